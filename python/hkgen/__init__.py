"""hkgen: Havok files as Python objects, byte-exact on round trip.

    import hkgen
    doc = hkgen.open("c7190.hkx")            # TAG0 tagfiles, packfiles (2010-2014), packfile XML
    doc.sdk, doc.format, doc.root
    for body in doc.objects("hknpRagdollData")[0].bodyCinfos:
        print(body.name, body.mass, body.motionType)
    body.mass = 80.0                          # checked: TypeError / ValueError name the member
    doc.write("out.hkx")                      # every byte not assigned comes back as read
    hkgen.verify("c7190.hkx")                 # the report of `hkgen verify --json`, as a dict

Members are read under their Havok names: ints, floats, bools, str, enums as ``enum.IntEnum``
subclasses named after the Havok enumeration (where its items are known), vectors and matrices as
tuples, pointers as objects, arrays as lists, and arrays of numbers as read-only ``memoryview``s
(numpy.frombuffer wraps them without a copy; a tagfile's are views of the file's bytes).
Errors are ``HavokError`` subclasses per layer with ``offset``, ``section`` and ``path``.
"""

from ._native import (
    ContainerError,
    Document,
    FormatError,
    HavokError,
    ItemsError,
    Record,
    TypeTableError,
    ValuesError,
    WriteError,
    open,
    verify,
)

__all__ = [
    "open",
    "verify",
    "Document",
    "Record",
    "HavokError",
    "ContainerError",
    "TypeTableError",
    "ItemsError",
    "ValuesError",
    "WriteError",
    "FormatError",
]
