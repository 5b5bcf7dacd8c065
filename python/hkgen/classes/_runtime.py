"""The run-time modules of ``hkgen.classes``: each ``<sdk>.py`` executes its stub module
``<sdk>.pyi`` (the one source of the classes) with postponed evaluation of annotations, so that
``from hkgen.classes import hk2018_1`` works in a program, not only in an editor: its enumerations
are ``enum.IntEnum`` classes to assign (``body.motionType = hk2018_1.hknpMotionType_Enum.KEYFRAMED``),
its classes subclasses of ``hkgen.Record`` whose annotations ``typing.get_type_hints`` resolves.
The objects a document gives are ``hkgen.Record`` instances, not instances of these classes."""

import __future__
from pathlib import Path


def load(module_name, namespace):
    """Executes the stub module of ``module_name`` (``hkgen.classes.hk2018_1``) in ``namespace``."""
    stub = Path(__file__).with_name(module_name.rsplit(".", 1)[-1] + ".pyi")
    code = compile(
        stub.read_text(encoding="utf-8"),
        str(stub),
        "exec",
        flags=__future__.annotations.compiler_flag,
        dont_inherit=True,
    )
    exec(code, namespace)
