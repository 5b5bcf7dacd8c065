"""Type stubs of each SDK's classes, generated from the schemas by ``hkgen stubs`` (one module
per tagfile SDK: ``hk2015_1``, ``hk2016_2``, ``hk2018_1``, ``hk2019_1``, ``hk2022_1``; and per packfile SDK:
``hk5_5``, ``hk6_6``, ``hk7_1``, ``hk2010_2``, ``hk2011_1``, ``hk2013_1``, ``hk2014_1``, ``hk2014_2``).

Each ``<sdk>.pyi`` has a run-time twin ``<sdk>.py`` that executes it, so that the modules import
in a program too (``from hkgen.classes import hk2018_1``): their enumerations are the
``enum.IntEnum`` classes to assign, and ``typing.get_type_hints`` resolves their annotations. The
objects ``hkgen.open`` returns are all ``hkgen.Record`` instances (the classes derive from it, but
a record is not an instance of its class). A class's docstring gives its Havok name, base,
version, size and each member's Havok type. Annotate a record with its class to have its members
completed::

    from hkgen.classes import hk2018_1

    body: hk2018_1.hknpBodyCinfo = ragdoll.bodyCinfos[0]
    body.motionType = hk2018_1.hknpMotionType_Enum.KEYFRAMED
"""
