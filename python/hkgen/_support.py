"""Helpers the native module calls: enumerations as ``enum.IntEnum`` subclasses."""

import enum

_classes = {}


def enum_class(name, items):
    """The IntEnum class of Havok enumeration ``name`` (``hknpMotionType::Enum`` gives a class
    ``hknpMotionType_Enum``), made once per name and items."""
    key = (name, tuple(items))
    cls = _classes.get(key)
    if cls is None:
        py_name = name.replace("::", "_").replace("<", "_").replace(">", "_").replace(" ", "")
        # Items with the same value are aliases; names that are not identifiers are left out.
        members = [(n, v) for n, v in items if n.isidentifier() and not n.startswith("_")]
        cls = enum.IntEnum(py_name, members)
        cls.__qualname__ = py_name
        cls.havok_name = name
        _classes[key] = cls
    return cls


def enum_value(name, items, value):
    """``value`` as a member of the enumeration, or the plain int when no item has that value
    (a flags combination, a value the SDK's items do not list)."""
    cls = enum_class(name, items)
    try:
        return cls(value)
    except ValueError:
        return value


def to_array(value, path):
    """``Record.array``: a member's value as a numpy array (see its docstring)."""
    import numpy

    if isinstance(value, memoryview):
        # A view of the bytes the memoryview holds (the file's, for a tagfile): no copy.
        return numpy.asarray(value)
    if isinstance(value, (list, tuple)):
        a = numpy.asarray(value)
        if a.dtype.kind == "f" or (a.size == 0 and a.dtype.kind == "f"):
            return a.astype(numpy.float32)
        if a.dtype.kind in "iub":
            return a
    raise TypeError(f"{path}: a {type(value).__name__} member is not an array of numbers or vectors")
