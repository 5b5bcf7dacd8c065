from ._native import (
    Animation as Animation,
    ContainerError as ContainerError,
    Document as Document,
    FormatError as FormatError,
    HavokError as HavokError,
    ItemsError as ItemsError,
    Record as Record,
    TypeTableError as TypeTableError,
    ValuesError as ValuesError,
    WriteError as WriteError,
    open as open,
    verify as verify,
)
