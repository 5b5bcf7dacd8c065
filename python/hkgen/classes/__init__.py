"""Type stubs of each SDK's classes, generated from the schemas by ``hkgen stubs`` (one module
per tagfile SDK: ``hk2015_1``, ``hk2016_2``, ``hk2018_1``, ``hk2019_1``; and per packfile SDK:
``hk5_5``, ``hk2010_2``, ``hk2013_1``, ``hk2014_1``, ``hk2014_2``).

They exist for editors and type checkers only: the objects ``hkgen.open`` returns are all
``hkgen.Record`` instances. Annotate a record with its class to have its members completed::

    from typing import TYPE_CHECKING
    if TYPE_CHECKING:
        from hkgen.classes.hk2018_1 import hknpBodyCinfo

    body: "hknpBodyCinfo" = ragdoll.bodyCinfos[0]
    body.motionType      # hknpMotionType_Enum
"""
