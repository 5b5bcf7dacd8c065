import os
from typing import Optional, Sequence, Union

from ._native import Document

def export(
    docs: Sequence[Document],
    path: Optional[Union[str, os.PathLike[str]]] = None,
    *,
    up: str = "y",
    root_motion: bool = True,
) -> bytes:
    """The documents as one binary glTF 2.0 (.glb bytes), also written to ``path`` when given."""
    ...
