"""hkgen: Havok files as Python objects, byte-exact on round trip.

    import hkgen
    doc = hkgen.open("c7190.hkx")            # TAG0 tagfiles, packfiles (2010-2014), packfile XML
    doc.sdk, doc.format, doc.root
    for body in doc.objects("hknpRagdollData")[0].bodyCinfos:
        print(body.name, body.mass, body.motionType)
    body.mass = 80.0                          # checked: TypeError / ValueError name the member
    body.name = "Pelvis"                      # strings, pointers (an object of the same document
    body.shape = other_body.shape             # or None) and arrays (a list of numbers or vectors)
    skeleton.referenceFloats = [0.5, 1.0]     # are assigned too
    doc.write("out.hkx")                      # every byte not assigned comes back as read
    hkgen.verify("c7190.hkx")                 # the report of `hkgen verify --json`, as a dict
    doc.objects("hknpShape")                  # subclasses included (exact=True: that class alone)
    skeleton.parentIndices = parents_ndarray  # numpy arrays and other buffers assign too;
    skeleton.array("parentIndices")           # and read as numpy arrays (views of a tagfile's bytes)
    json.dumps(body.to_dict())                # plain data, recursively

Members are read under their Havok names: ints, floats, bools, str, enums as ``enum.IntEnum``
subclasses named after the Havok enumeration (where its items are known), vectors and matrices as
tuples, pointers as objects, arrays as lists, and arrays of numbers as read-only ``memoryview``s
(numpy.frombuffer wraps them without a copy; a tagfile's are views of the file's bytes).
Errors are ``HavokError`` subclasses per layer with ``offset``, ``section`` and ``path`` (and
``filename`` for a file opened by path); a file that cannot be read raises ``OSError``
(``FileNotFoundError``...) with ``filename``. ``open(path)`` looks for a compendium only when the
file names one, in the file's folder and its subfolders one level down.

Assigning a tagfile's pointer, string or array writes the file again through the tagfile writer,
which may number its objects anew; records taken before follow their objects (``handle`` gives
the new number). The classes of each SDK are typed in ``hkgen.classes.<sdk>`` (stubs for editors,
and modules that import at run time).
"""

from ._native import (
    Animation,
    ContainerError,
    Document,
    FormatError,
    HavokError,
    ItemsError,
    Record,
    TypeTableError,
    ValuesError,
    WriteError,
    archive_members,
    open,
    verify,
    write_member,
)

__all__ = [
    "open",
    "verify",
    "write_member",
    "archive_members",
    "Document",
    "Record",
    "Animation",
    "HavokError",
    "ContainerError",
    "TypeTableError",
    "ItemsError",
    "ValuesError",
    "WriteError",
    "FormatError",
]
