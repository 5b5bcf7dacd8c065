//! Located errors: every failure to read a file names the byte offset, the section path and, where
//! known, the type and field being read, e.g. `TAG0/TYPE/TBDY+0x1a4 (file 0x48a4) in hkaSkeleton:
//! packed integer runs past the end of the section`.

use std::fmt;

/// What went wrong, without where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErrorKind {
    #[error("unexpected end of data: need {need} bytes, {have} left")]
    /// A read runs past the end of the data.
    Eof {
        /// Bytes the read needs.
        need: u64,
        /// Bytes left.
        have: u64,
    },
    #[error("not a Havok tagfile or compendium (magic {0:?})")]
    /// The file does not start like any Havok container this crate reads.
    BadMagic(String),
    #[error("section size {size} is smaller than its header or runs past its parent ({room} bytes left)")]
    /// A section header gives an impossible size.
    BadSectionSize {
        /// The size the header gives.
        size: u64,
        /// Bytes left in the parent section.
        room: u64,
    },
    #[error("missing section {0}")]
    /// A required section is absent.
    MissingSection(&'static str),
    #[error("unexpected section {0}")]
    /// A section where the format allows none of its tag.
    UnexpectedSection(String),
    #[error("invalid packed integer first byte {0:#04x}")]
    /// A packed integer's first byte is not a valid prefix.
    BadPackedInt(u8),
    #[error("{what} {index} out of range ({count} available)")]
    /// An index (type, item, string...) past the end of its table.
    IndexOutOfRange {
        /// What kind of index.
        what: &'static str,
        /// The index.
        index: u64,
        /// Entries the table has.
        count: u64,
    },
    #[error("{0} is declared more than once")]
    /// Something that must be unique appears twice.
    Duplicate(String),
    #[error("string is not terminated")]
    /// A NUL-terminated string has no NUL before the end.
    UnterminatedString,
    #[error("string is not valid UTF-8")]
    /// A string is not UTF-8.
    BadUtf8,
    #[error("count {count} of {what} exceeds what {room} bytes can hold")]
    /// A count that the remaining bytes cannot hold (checked before allocating).
    CountTooLarge {
        /// What is counted.
        what: &'static str,
        /// The count.
        count: u64,
        /// Bytes left.
        room: u64,
    },
    #[error("{0}")]
    /// Anything else that is not as the format requires, described.
    Invalid(String),
    #[error("type compendium {0} not found among the given compendia")]
    /// A tagfile names (`TCRF`) a compendium id that is not among the given compendia.
    MissingCompendium(String),
    #[error("cyclic {0}")]
    /// A cycle where none may be (a type's parent chain, nested values).
    Cycle(String),
    #[error("{0}")]
    /// An I/O failure, as text.
    Io(String),
}

/// The layer of the readers and writers an error comes from, innermost first: the container's
/// framing (sections, headers, fixup tables), the type table, the items (`ITEM`/`PTCH` and what
/// they claim of `DATA`), the values (members decoded through a class or a type table), and the
/// writer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layer {
    /// Section framing of a tagfile or compendium, a packfile's header and tables.
    Container,
    /// A `TYPE` section: strings, names, bodies, hashes.
    TypeTable,
    /// The item and patch tables and the item ranges of `DATA`.
    Items,
    /// Member values read through generated classes or the file's type table.
    Values,
    /// Laying out and writing a file.
    Writer,
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Layer::Container => "container",
            Layer::TypeTable => "type table",
            Layer::Items => "items",
            Layer::Values => "values",
            Layer::Writer => "writer",
        })
    }
}

/// A located error. Boxed so that `Result<T>` stays one word wide on the happy path.
#[derive(Clone, PartialEq, Eq)]
pub struct Error(Box<Inner>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct Inner {
    kind: ErrorKind,
    /// Absolute offset in the file, when the failure is tied to one.
    offset: Option<u64>,
    /// Section path such as `TAG0/TYPE/TBDY` and the section's own start offset.
    section: Option<(String, u64)>,
    /// Type and field context, innermost last (`hkaSkeleton`, `bones`).
    path: Vec<String>,
    /// The file the error came from, when known.
    file: Option<String>,
    /// The layer that failed, when known.
    layer: Option<Layer>,
}

/// A result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error of `kind` without a location.
    ///
    /// ```
    /// use hktypes::error::{Error, ErrorKind};
    ///
    /// let e = Error::new(ErrorKind::BadUtf8).with_offset(0x48a4).in_context("hkaSkeleton");
    /// assert_eq!(e.to_string(), "file 0x48a4 in hkaSkeleton: string is not valid UTF-8");
    /// assert_eq!(e.kind(), &ErrorKind::BadUtf8);
    /// ```
    pub fn new(kind: ErrorKind) -> Self {
        Error(Box::new(Inner { kind, offset: None, section: None, path: Vec::new(), file: None, layer: None }))
    }

    /// An error at an absolute file offset.
    pub fn at(offset: u64, kind: ErrorKind) -> Self {
        Self::new(kind).with_offset(offset)
    }

    /// An [`ErrorKind::Invalid`] at an absolute file offset.
    pub fn invalid(offset: u64, msg: impl Into<String>) -> Self {
        Self::at(offset, ErrorKind::Invalid(msg.into()))
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }

    /// The absolute file offset, when the failure is tied to one.
    pub fn offset(&self) -> Option<u64> {
        self.0.offset
    }

    /// The section path (`TAG0/TYPE/TBDY`), when known.
    pub fn section(&self) -> Option<&str> {
        self.0.section.as_ref().map(|(s, _)| s.as_str())
    }

    /// The type/field path, outermost first.
    pub fn path(&self) -> Vec<&str> {
        self.0.path.iter().rev().map(String::as_str).collect()
    }

    /// Sets the file offset, unless one is set already (the innermost wins).
    pub fn with_offset(mut self, offset: u64) -> Self {
        if self.0.offset.is_none() {
            self.0.offset = Some(offset);
        }
        self
    }

    /// Names the section the error happened in; the innermost section wins.
    pub fn in_section(mut self, path: &str, start: u64) -> Self {
        if self.0.section.is_none() {
            self.0.section = Some((path.to_owned(), start));
        }
        self
    }

    /// Pushes a type or field name while the error travels outwards.
    pub fn in_context(mut self, name: impl Into<String>) -> Self {
        self.0.path.push(name.into());
        self
    }

    /// The layer that failed (see [`Layer`]); the innermost layer named wins.
    pub fn layer(&self) -> Option<Layer> {
        self.0.layer
    }

    /// Names the layer the error comes from, unless an inner one was named already.
    pub fn in_layer(mut self, layer: Layer) -> Self {
        if self.0.layer.is_none() {
            self.0.layer = Some(layer);
        }
        self
    }

    /// Names the file, unless one is named already.
    pub fn in_file(mut self, file: impl Into<String>) -> Self {
        if self.0.file.is_none() {
            self.0.file = Some(file.into());
        }
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = &*self.0;
        if let Some(file) = &i.file {
            write!(f, "{file}: ")?;
        }
        match (&i.section, i.offset) {
            (Some((sec, start)), Some(off)) if off >= *start => {
                write!(f, "{sec}+{:#x} (file {off:#x})", off - start)?
            }
            (Some((sec, _)), Some(off)) => write!(f, "{sec} (file {off:#x})")?,
            (Some((sec, _)), None) => write!(f, "{sec}")?,
            (None, Some(off)) => write!(f, "file {off:#x}")?,
            (None, None) => {}
        }
        if !i.path.is_empty() {
            let path: Vec<&str> = i.path.iter().rev().map(String::as_str).collect();
            let space = if i.section.is_some() || i.offset.is_some() { " " } else { "" };
            write!(f, "{space}in {}", path.join("."))?;
        }
        if i.section.is_some() || i.offset.is_some() || !i.path.is_empty() {
            f.write_str(": ")?;
        }
        write!(f, "{}", i.kind)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({self})")
    }
}

impl std::error::Error for Error {}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Self {
        Error::new(kind)
    }
}

/// Adds context to any result on its way out.
pub trait Context<T> {
    /// Adds a type or field name to the error's path (see [`Error::path`]).
    fn context(self, name: impl FnOnce() -> String) -> Result<T>;
    /// Names the section (its path and start offset), unless one is named already.
    fn section(self, path: &str, start: u64) -> Result<T>;
}

impl<T> Context<T> for Result<T> {
    fn context(self, name: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|e| e.in_context(name()))
    }
    fn section(self, path: &str, start: u64) -> Result<T> {
        self.map_err(|e| e.in_section(path, start))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_with_and_without_a_location() {
        let e = Error::new(ErrorKind::Cycle("x".into())).in_context("T");
        assert_eq!(e.to_string(), "in T: cyclic x");
        let e = Error::at(0x10, ErrorKind::BadUtf8).in_section("TAG0/SDKV", 8).in_context("T");
        assert_eq!(e.to_string(), "TAG0/SDKV+0x8 (file 0x10) in T: string is not valid UTF-8");
    }
}
