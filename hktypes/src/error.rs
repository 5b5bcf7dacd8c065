//! Located errors, one type per layer of the readers and writers. Every failure to read a file
//! names the byte offset, the section path and, where known, the type and field being read, e.g.
//! `TAG0/DATA+0x1a40 (file 0x1a68) in hknpBodyCinfo.shape: item 812 out of range (ITEM has 97)`.
//!
//! The layers, innermost first, each with its own error type:
//!
//! | layer | type | returned by |
//! |---|---|---|
//! | container | [`ContainerError`] | section framing, file and compendium headers, a packfile's header and tables |
//! | type table | [`TypeTableError`] | [`crate::tagfile::type_section::read`], [`crate::reflect::hash`] |
//! | items | [`ItemsError`] | [`crate::tagfile::index`], [`crate::tagfile::items::Items::read`], a packfile's fixups |
//! | values | [`ValueError`] | [`crate::value`] (and the generated classes), [`crate::dynamic`], [`crate::packfile::typed`] |
//! | writer | [`WriteError`] | laying out and writing tagfiles and packfiles |
//!
//! They are one generic type, [`LayerError`], over a marker per layer, so they share the builders
//! ([`LayerError::new`], [`LayerError::at`], [`LayerError::in_section`], ...) and the accessors.
//! Helpers that several layers share (the [`crate::bytes::Cursor`], packed integers, section
//! lookup, [`crate::reflect::layout`]) return an [`UnlayeredError`], which `?` turns into the
//! error of whichever layer called them. Entry points that cross layers ([`crate::tagfile::TagFile::read`],
//! the documents' `read` and `write`) return [`Error`], an enum over the five that says which
//! layer failed ([`Error::layer`]) and prints exactly as the inner error does.
//!
//! ```
//! use hktypes::error::{Error, ErrorKind, ItemsError, Layer, UnlayeredError};
//!
//! fn helper() -> Result<(), UnlayeredError> {
//!     Err(UnlayeredError::at(0x1a68, ErrorKind::BadUtf8))
//! }
//! fn items() -> Result<(), ItemsError> {
//!     helper().map_err(|e| e.in_section("TAG0/DATA", 0x28))?;
//!     Ok(())
//! }
//! let e: Error = items().unwrap_err().into();
//! assert_eq!(e.layer(), Layer::Items);
//! assert_eq!(e.to_string(), "TAG0/DATA+0x1a40 (file 0x1a68): string is not valid UTF-8");
//! ```

use std::fmt;
use std::marker::PhantomData;

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
    #[error("{what} {index} out of range ({})", TableCount(.what, *.count))]
    /// An index (type, item, string...) past the end of its table. Printed with the table it
    /// indexes where `what` names one (`item 812 out of range (ITEM has 97)`), else as
    /// `element 9 out of range (4 available)`.
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
    #[error("cannot remove {object}: still pointed at by {}", .referrers.join(", "))]
    /// `remove` of an object that other objects point at; they are named (`object 3
    /// (hkaAnimationContainer)`) so that their pointers can be cleared first.
    Referenced {
        /// The object to remove.
        object: String,
        /// The objects that point at it, in handle order.
        referrers: Vec<String>,
    },
    #[error("not a Havok file: {0}")]
    /// The bytes are none of the formats [`crate::sniff`] recognises; says how they start
    /// (`starts with 89 50 4E 47 ...`).
    NotHavok(String),
}

impl ErrorKind {
    /// The table an [`ErrorKind::IndexOutOfRange`] of `what` indexes, where `what` names one:
    /// `ITEM` for items, `TSTR`/`FSTR` for type and field name strings, the type table for type
    /// indices.
    pub fn indexed_table(what: &str) -> Option<&'static str> {
        match what {
            "item" => Some("ITEM"),
            "type name string" | "template parameter name string" => Some("TSTR"),
            "field name string" => Some("FSTR"),
            "type index" | "item type index" => Some("the type table"),
            _ => None,
        }
    }
}

/// `ITEM has 97` where the table is known, else `97 available`.
struct TableCount<'a>(&'a str, u64);

impl fmt::Display for TableCount<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match ErrorKind::indexed_table(self.0) {
            Some(table) => write!(f, "{table} has {}", self.1),
            None => write!(f, "{} available", self.1),
        }
    }
}

/// The layer of the readers and writers an error comes from, innermost first: the container's
/// framing (sections, headers, fixup tables), the type table, the items (`ITEM`/`PTCH` and what
/// they claim of `DATA`), the values (members decoded through a class or a type table), and the
/// writer. Each has its own error type (see the [module](self) documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layer {
    /// Section framing of a tagfile or compendium, a packfile's header and tables.
    Container,
    /// A `TYPE` section: strings, names, bodies, hashes.
    TypeTable,
    /// The item and patch tables and the item ranges of `DATA`, a packfile's fixups.
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

mod sealed {
    pub trait Sealed {}
}

/// The marker types that tell the layers' errors apart (see [`LayerError`]).
pub mod marker {
    use super::{sealed::Sealed, Layer};

    /// A marker of [`super::LayerError`]: one of the layers, or [`Unlayered`].
    pub trait Marker: Sealed + Send + Sync + 'static {
        /// The type's name in `Debug` output.
        const NAME: &'static str;
    }

    /// A marker of one of the layers of [`Layer`].
    pub trait LayerMarker: Marker {
        /// The layer the marker stands for.
        const LAYER: Layer;
    }

    macro_rules! markers {
        ($($(#[$doc:meta])* $name:ident => $error:literal $(, $layer:ident)?;)*) => {$(
            $(#[$doc])*
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
            pub enum $name {}
            impl Sealed for $name {}
            impl Marker for $name {
                const NAME: &'static str = $error;
            }
            $(impl LayerMarker for $name {
                const LAYER: Layer = Layer::$layer;
            })?
        )*};
    }

    markers! {
        /// The container layer ([`super::ContainerError`]).
        Container => "ContainerError", Container;
        /// The type table layer ([`super::TypeTableError`]).
        TypeTable => "TypeTableError", TypeTable;
        /// The items layer ([`super::ItemsError`]).
        Items => "ItemsError", Items;
        /// The values layer ([`super::ValueError`]).
        Values => "ValueError", Values;
        /// The writer ([`super::WriteError`]).
        Writer => "WriteError", Writer;
        /// Helpers shared by several layers ([`super::UnlayeredError`]).
        Unlayered => "UnlayeredError";
    }
}

use marker::{LayerMarker, Marker};

/// Where an error happened, and what went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Location {
    kind: ErrorKind,
    /// Absolute offset in the file, when the failure is tied to one.
    offset: Option<u64>,
    /// Section path such as `TAG0/TYPE/TBDY` and the section's own start offset.
    section: Option<(String, u64)>,
    /// Type and field context, innermost first (`bones`, `hkaSkeleton`).
    path: Vec<String>,
    /// The file the error came from, when known.
    file: Option<String>,
}

/// A located error of the layer `L`: what went wrong ([`ErrorKind`]), the byte offset, the
/// section and the type/field path. Use it through its aliases [`ContainerError`],
/// [`TypeTableError`], [`ItemsError`], [`ValueError`], [`WriteError`] and [`UnlayeredError`].
/// Boxed so that a `Result` stays one word wider than its value on the happy path.
///
/// ```
/// use hktypes::error::{ErrorKind, TypeTableError};
///
/// let e = TypeTableError::new(ErrorKind::BadUtf8).with_offset(0x48a4).in_context("hkaSkeleton");
/// assert_eq!(e.to_string(), "file 0x48a4 in hkaSkeleton: string is not valid UTF-8");
/// assert_eq!(e.kind(), &ErrorKind::BadUtf8);
/// assert_eq!(e.layer(), hktypes::Layer::TypeTable);
/// ```
pub struct LayerError<L> {
    at: Box<Location>,
    layer: PhantomData<L>,
}

/// An error of the container layer: section framing, file and compendium headers, a packfile's
/// header and section tables.
pub type ContainerError = LayerError<marker::Container>;
/// An error of the type table layer: a `TYPE` section and the hash check.
pub type TypeTableError = LayerError<marker::TypeTable>;
/// An error of the items layer: `ITEM`/`PTCH`, the items' ranges and references, a packfile's
/// fixups.
pub type ItemsError = LayerError<marker::Items>;
/// An error of the values layer: a member value read or written through a class (generated or
/// dynamic).
pub type ValueError = LayerError<marker::Values>;
/// An error of the writers of tagfiles and packfiles.
pub type WriteError = LayerError<marker::Writer>;
/// An error of a helper that several layers share (the byte cursor, packed integers, section
/// lookup, type layouts); `?` turns it into the error of the layer that called the helper.
pub type UnlayeredError = LayerError<marker::Unlayered>;

impl<L: Marker> LayerError<L> {
    /// An error of `kind` without a location.
    pub fn new(kind: ErrorKind) -> Self {
        LayerError {
            at: Box::new(Location { kind, offset: None, section: None, path: Vec::new(), file: None }),
            layer: PhantomData,
        }
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
        &self.at.kind
    }

    /// The absolute file offset, when the failure is tied to one.
    pub fn offset(&self) -> Option<u64> {
        self.at.offset
    }

    /// The section path (`TAG0/TYPE/TBDY`), when known.
    pub fn section(&self) -> Option<&str> {
        self.at.section.as_ref().map(|(s, _)| s.as_str())
    }

    /// The type/field path, outermost first.
    pub fn path(&self) -> Vec<&str> {
        self.at.path.iter().rev().map(String::as_str).collect()
    }

    /// The file named by [`LayerError::in_file`], if any.
    pub fn file(&self) -> Option<&str> {
        self.at.file.as_deref()
    }

    /// Sets the file offset, unless one is set already (the innermost wins).
    pub fn with_offset(mut self, offset: u64) -> Self {
        if self.at.offset.is_none() {
            self.at.offset = Some(offset);
        }
        self
    }

    /// Moves the error's file offsets (its own and its section's start) `delta` bytes on: for an
    /// error of a part read on its own that sits at `delta` in the whole file (a tagfile inside a
    /// wrapper).
    pub fn shifted(mut self, delta: u64) -> Self {
        if let Some(o) = &mut self.at.offset {
            *o = o.saturating_add(delta);
        }
        if let Some((_, start)) = &mut self.at.section {
            *start = start.saturating_add(delta);
        }
        self
    }

    /// Names the section the error happened in; the innermost section wins.
    pub fn in_section(mut self, path: &str, start: u64) -> Self {
        if self.at.section.is_none() {
            self.at.section = Some((path.to_owned(), start));
        }
        self
    }

    /// Pushes a type or field name while the error travels outwards.
    pub fn in_context(mut self, name: impl Into<String>) -> Self {
        self.at.path.push(name.into());
        self
    }

    /// Names the file, unless one is named already.
    pub fn in_file(mut self, file: impl Into<String>) -> Self {
        if self.at.file.is_none() {
            self.at.file = Some(file.into());
        }
        self
    }

    /// The same error as one of layer `M`, its location kept: for a layer that takes over an
    /// error of another as its own (the `From` conversions of [`UnlayeredError`]).
    fn relayer<M: Marker>(self) -> LayerError<M> {
        LayerError { at: self.at, layer: PhantomData }
    }
}

impl<L: LayerMarker> LayerError<L> {
    /// The layer the error belongs to.
    pub fn layer(&self) -> Layer {
        L::LAYER
    }
}

impl<L> Clone for LayerError<L> {
    fn clone(&self) -> Self {
        LayerError { at: self.at.clone(), layer: PhantomData }
    }
}

impl<L> PartialEq for LayerError<L> {
    fn eq(&self, other: &Self) -> bool {
        self.at == other.at
    }
}

impl<L> Eq for LayerError<L> {}

impl<L: Marker> From<ErrorKind> for LayerError<L> {
    fn from(kind: ErrorKind) -> Self {
        LayerError::new(kind)
    }
}

/// A shared helper's error becomes the error of the layer that called the helper.
impl<L: LayerMarker> From<UnlayeredError> for LayerError<L> {
    fn from(e: UnlayeredError) -> Self {
        e.relayer()
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{file}: ")?;
        }
        match (&self.section, self.offset) {
            (Some((sec, start)), Some(off)) if off >= *start => write!(f, "{sec}+{:#x} (file {off:#x})", off - start)?,
            (Some((sec, _)), Some(off)) => write!(f, "{sec} (file {off:#x})")?,
            (Some((sec, _)), None) => write!(f, "{sec}")?,
            (None, Some(off)) => write!(f, "file {off:#x}")?,
            (None, None) => {}
        }
        if !self.path.is_empty() {
            let path: Vec<&str> = self.path.iter().rev().map(String::as_str).collect();
            let space = if self.section.is_some() || self.offset.is_some() { " " } else { "" };
            write!(f, "{space}in {}", path.join("."))?;
        }
        if self.section.is_some() || self.offset.is_some() || !self.path.is_empty() {
            f.write_str(": ")?;
        }
        write!(f, "{}", self.kind)
    }
}

impl<L> fmt::Display for LayerError<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.at, f)
    }
}

impl<L: Marker> fmt::Debug for LayerError<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({self})", L::NAME)
    }
}

impl<L: Marker> std::error::Error for LayerError<L> {}

/// A located error of any layer: what the entry points that cross layers return
/// ([`crate::tagfile::TagFile::read`], [`crate::tagfile::Compendium::read`], the documents of
/// [`crate::graph`] and [`crate::packfile`]). `?` turns each layer's error into it; it prints
/// exactly as the layer's error does.
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Section framing, headers, a packfile's tables.
    #[error(transparent)]
    Container(#[from] ContainerError),
    /// A `TYPE` section or its hashes.
    #[error(transparent)]
    TypeTable(#[from] TypeTableError),
    /// The items and their references, a packfile's fixups.
    #[error(transparent)]
    Items(#[from] ItemsError),
    /// Member values.
    #[error(transparent)]
    Values(#[from] ValueError),
    /// Laying out and writing a file.
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// Applies `$f` to the layer error inside an [`Error`], giving back a value or an [`Error`] of
/// the same variant.
macro_rules! each_layer {
    ($e:expr, $inner:ident => $f:expr) => {
        match $e {
            Error::Container($inner) => $f,
            Error::TypeTable($inner) => $f,
            Error::Items($inner) => $f,
            Error::Values($inner) => $f,
            Error::Write($inner) => $f,
        }
    };
    (map $e:expr, $inner:ident => $f:expr) => {
        match $e {
            Error::Container($inner) => Error::Container($f),
            Error::TypeTable($inner) => Error::TypeTable($f),
            Error::Items($inner) => Error::Items($f),
            Error::Values($inner) => Error::Values($f),
            Error::Write($inner) => Error::Write($f),
        }
    };
}

impl Error {
    /// The layer that failed.
    pub fn layer(&self) -> Layer {
        each_layer!(self, e => e.layer())
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        each_layer!(self, e => e.kind())
    }

    /// The absolute file offset, when the failure is tied to one.
    pub fn offset(&self) -> Option<u64> {
        each_layer!(self, e => e.offset())
    }

    /// The section path (`TAG0/TYPE/TBDY`), when known.
    pub fn section(&self) -> Option<&str> {
        each_layer!(self, e => e.section())
    }

    /// The type/field path, outermost first.
    pub fn path(&self) -> Vec<&str> {
        each_layer!(self, e => e.path())
    }

    /// The file named by [`Error::in_file`], if any.
    pub fn file(&self) -> Option<&str> {
        each_layer!(self, e => e.file())
    }

    /// Sets the file offset, unless one is set already (the innermost wins).
    pub fn with_offset(self, offset: u64) -> Self {
        each_layer!(map self, e => e.with_offset(offset))
    }

    /// Names the section the error happened in; the innermost section wins.
    pub fn in_section(self, path: &str, start: u64) -> Self {
        each_layer!(map self, e => e.in_section(path, start))
    }

    /// Moves the error's file offsets `delta` bytes on ([`LayerError::shifted`]).
    pub fn shifted(self, delta: u64) -> Self {
        each_layer!(map self, e => e.shifted(delta))
    }

    /// Pushes a type or field name while the error travels outwards.
    pub fn in_context(self, name: impl Into<String>) -> Self {
        let name = name.into();
        each_layer!(map self, e => e.in_context(name))
    }

    /// Names the file, unless one is named already.
    pub fn in_file(self, file: impl Into<String>) -> Self {
        let file = file.into();
        each_layer!(map self, e => e.in_file(file))
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        each_layer!(self, e => fmt::Debug::fmt(e, f))
    }
}

/// A result with this crate's [`Error`] (or, as `Result<T, E>`, another).
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The errors that carry a location: every [`LayerError`] and [`Error`].
pub trait Locate: Sized {
    /// Pushes a type or field name (see [`LayerError::in_context`]).
    fn in_context(self, name: impl Into<String>) -> Self;
    /// Names the section, unless one is named already (see [`LayerError::in_section`]).
    fn in_section(self, path: &str, start: u64) -> Self;
}

impl<L: Marker> Locate for LayerError<L> {
    fn in_context(self, name: impl Into<String>) -> Self {
        LayerError::in_context(self, name)
    }
    fn in_section(self, path: &str, start: u64) -> Self {
        LayerError::in_section(self, path, start)
    }
}

impl Locate for Error {
    fn in_context(self, name: impl Into<String>) -> Self {
        Error::in_context(self, name)
    }
    fn in_section(self, path: &str, start: u64) -> Self {
        Error::in_section(self, path, start)
    }
}

/// Adds context to any result on its way out.
pub trait Context<T, E> {
    /// Adds a type or field name to the error's path (see [`LayerError::path`]).
    fn context(self, name: impl FnOnce() -> String) -> Result<T, E>;
    /// Names the section (its path and start offset), unless one is named already.
    fn section(self, path: &str, start: u64) -> Result<T, E>;
}

impl<T, E: Locate> Context<T, E> for Result<T, E> {
    fn context(self, name: impl FnOnce() -> String) -> Result<T, E> {
        self.map_err(|e| e.in_context(name()))
    }
    fn section(self, path: &str, start: u64) -> Result<T, E> {
        self.map_err(|e| e.in_section(path, start))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_with_and_without_a_location() {
        let e = ValueError::new(ErrorKind::Cycle("x".into())).in_context("T");
        assert_eq!(e.to_string(), "in T: cyclic x");
        let e = ContainerError::at(0x10, ErrorKind::BadUtf8).in_section("TAG0/SDKV", 8).in_context("T");
        assert_eq!(e.to_string(), "TAG0/SDKV+0x8 (file 0x10) in T: string is not valid UTF-8");
    }

    /// The location as each layer's error prints it: section, offset in it and in the file, path.
    fn shown<L: Marker>(kind: ErrorKind) -> String {
        LayerError::<L>::at(0x1a68, kind).in_section("TAG0/DATA", 0x28).in_context("shape").in_context("hknpBodyCinfo").to_string()
    }

    #[test]
    fn container_error_display() {
        let e = ContainerError::at(0x20, ErrorKind::BadSectionSize { size: 0x100, room: 0x10 }).in_section("TAG0/INDX", 0x18);
        assert_eq!(e.layer(), Layer::Container);
        assert_eq!((e.offset(), e.section()), (Some(0x20), Some("TAG0/INDX")));
        assert_eq!(
            e.to_string(),
            "TAG0/INDX+0x8 (file 0x20): section size 256 is smaller than its header or runs past its parent (16 bytes left)"
        );
        assert_eq!(format!("{e:?}"), format!("ContainerError({e})"));
    }

    #[test]
    fn type_table_error_display() {
        let e = TypeTableError::at(0x4a, ErrorKind::IndexOutOfRange { what: "field name string", index: 40, count: 12 })
            .in_section("TAG0/TYPE/TBDY", 0x40)
            .in_context("m_bones")
            .in_context("hkaSkeleton");
        assert_eq!(e.layer(), Layer::TypeTable);
        assert_eq!(e.path(), ["hkaSkeleton", "m_bones"]);
        assert_eq!(e.to_string(), "TAG0/TYPE/TBDY+0xa (file 0x4a) in hkaSkeleton.m_bones: field name string 40 out of range (FSTR has 12)");
    }

    #[test]
    fn items_error_display() {
        let e = ItemsError::at(0x1a68, ErrorKind::IndexOutOfRange { what: "item", index: 812, count: 97 })
            .in_section("TAG0/DATA", 0x28)
            .in_context("shape")
            .in_context("hknpBodyCinfo");
        assert_eq!(e.layer(), Layer::Items);
        assert_eq!(e.to_string(), "TAG0/DATA+0x1a40 (file 0x1a68) in hknpBodyCinfo.shape: item 812 out of range (ITEM has 97)");
    }

    #[test]
    fn value_error_display() {
        let s = shown::<marker::Values>(ErrorKind::IndexOutOfRange { what: "element", index: 9, count: 4 });
        assert_eq!(s, "TAG0/DATA+0x1a40 (file 0x1a68) in hknpBodyCinfo.shape: element 9 out of range (4 available)");
        assert_eq!(ValueError::new(ErrorKind::BadUtf8).layer(), Layer::Values);
    }

    #[test]
    fn write_error_display() {
        let s = shown::<marker::Writer>(ErrorKind::Invalid("DATA over 4 GiB".into()));
        assert_eq!(s, "TAG0/DATA+0x1a40 (file 0x1a68) in hknpBodyCinfo.shape: DATA over 4 GiB");
        let e = WriteError::new(ErrorKind::MissingSection("TYPE")).in_file("out.hkx");
        assert_eq!((e.layer(), e.to_string().as_str()), (Layer::Writer, "out.hkx: missing section TYPE"));
    }

    #[test]
    fn question_mark_keeps_the_location_and_names_the_layer() {
        fn cursor() -> Result<u8, UnlayeredError> {
            crate::bytes::Cursor::new(&[], 0x1a68).u8()
        }
        fn items() -> Result<u8, ItemsError> {
            let b = cursor().map_err(|e| e.in_section("TAG0/DATA", 0x28).in_context("hknpBodyCinfo"))?;
            Ok(b)
        }
        fn top() -> Result<u8> {
            Ok(items()?)
        }
        let e = top().unwrap_err();
        assert_eq!(e.layer(), Layer::Items);
        assert!(matches!(e, Error::Items(_)));
        assert_eq!((e.offset(), e.section(), e.path()), (Some(0x1a68), Some("TAG0/DATA"), vec!["hknpBodyCinfo"]));
        assert_eq!(e.to_string(), "TAG0/DATA+0x1a40 (file 0x1a68) in hknpBodyCinfo: unexpected end of data: need 1 bytes, 0 left");
        assert_eq!(e.to_string(), items().unwrap_err().to_string());
        // The context added to the enum reaches the inner error.
        let e = e.in_context("outer").in_file("a.hkx");
        assert_eq!(e.path(), ["outer", "hknpBodyCinfo"]);
        assert_eq!(e.file(), Some("a.hkx"));
        assert_eq!(format!("{e:?}"), format!("ItemsError({e})"));
    }
}
