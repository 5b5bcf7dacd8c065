//! Errors of the schema tool, one type per input: a Havok file ([`hktypes::Error`], located by
//! byte offset, section and type/field path), a schema snapshot or overlay file ([`SchemaError`]),
//! the schema handed to the code generator ([`CodegenInputError`]), the runtime type registry
//! ([`RegistryError`]), and I/O. Each prints its location first, then what went wrong.

use std::fmt;
use std::path::Path;

/// An error of the schema tool.
///
/// ```
/// let e = hkgen::schema::snapshot::read(std::path::Path::new("no/such/snapshot")).unwrap_err();
/// assert!(matches!(e, hkgen::Error::Io { .. }));
/// assert!(e.to_string().starts_with("no/such/snapshot/sdk.ron: "));
/// ```
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing a Havok file failed (the message says where in the file, and
    /// [`hktypes::Error::layer`] which layer).
    #[error(transparent)]
    Havok(#[from] hktypes::Error),
    /// Reading or writing a file failed.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// What the operating system said.
        message: String,
    },
    /// A snapshot, an overlay or a reflection dump is not as expected.
    #[error(transparent)]
    Schema(#[from] SchemaError),
    /// The schema given to the code generator cannot be generated from.
    #[error(transparent)]
    Codegen(#[from] CodegenInputError),
    /// The runtime type registry could not be imported.
    #[error(transparent)]
    Registry(#[from] RegistryError),
}

impl Error {
    /// An [`Error::Io`] for `path`.
    pub fn io(path: &Path, e: std::io::Error) -> Self {
        Error::Io { path: path.display().to_string(), message: e.to_string() }
    }

    /// An [`Error::Schema`] without a location (see [`SchemaError`] for one with).
    pub fn schema(message: impl Into<String>) -> Self {
        Error::Schema(SchemaError::new(message))
    }

    /// An [`Error::Codegen`] without a location (see [`CodegenInputError`] for one with).
    pub fn codegen(message: impl Into<String>) -> Self {
        Error::Codegen(CodegenInputError::new(message))
    }

    /// Prepends a type or field name to the path of a schema, code generator or Havok error
    /// (the others are returned as they are).
    pub fn in_context(self, name: impl Into<String>) -> Self {
        match self {
            Error::Havok(e) => Error::Havok(e.in_context(name)),
            Error::Schema(e) => Error::Schema(e.in_context(name)),
            Error::Codegen(e) => Error::Codegen(e.in_context(name)),
            e => e,
        }
    }

    /// Names the SDK of a code generator error, unless it names one already.
    pub fn for_sdk(self, sdk: &str) -> Self {
        match self {
            Error::Codegen(e) => Error::Codegen(e.for_sdk(sdk)),
            e => e,
        }
    }
}

/// Each layer's error of the runtime converts as the enum does.
macro_rules! from_layer {
    ($($t:ident),*) => {$(
        impl From<hktypes::error::$t> for Error {
            fn from(e: hktypes::error::$t) -> Self {
                Error::Havok(e.into())
            }
        }
    )*};
}
from_layer!(ContainerError, TypeTableError, ItemsError, ValueError, WriteError);

/// A place in a text file: the line and column (from 1) and, where known, the byte offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextPosition {
    /// Line, from 1.
    pub line: usize,
    /// Column in characters, from 1.
    pub column: usize,
    /// Byte offset in the file, from 0.
    pub offset: Option<usize>,
}

impl TextPosition {
    /// The position at `line`:`column` (both from 1, the column in characters) of `text`, with
    /// its byte offset when `text` has such a place.
    pub fn in_text(text: &str, line: usize, column: usize) -> Self {
        let offset = line
            .checked_sub(1)
            .and_then(|skip| {
                let mut start = 0;
                for _ in 0..skip {
                    start += text.get(start..)?.find('\n')? + 1;
                }
                Some(start)
            })
            .and_then(|start| {
                let line_text = text.get(start..)?;
                let within = match column.saturating_sub(1) {
                    0 => 0,
                    c => line_text.char_indices().nth(c).map_or(line_text.len(), |(i, _)| i),
                };
                Some(start + within)
            });
        TextPosition { line, column, offset }
    }
}

impl fmt::Display for TextPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)?;
        if let Some(o) = self.offset {
            write!(f, " (byte {o})")?;
        }
        Ok(())
    }
}

/// Writes `what`, then ` in a.b` for a non-empty path, then `: ` when anything was written.
fn located(f: &mut fmt::Formatter<'_>, what: Option<&dyn fmt::Display>, path: &[String]) -> fmt::Result {
    if let Some(w) = what {
        write!(f, "{w}")?;
    }
    if !path.is_empty() {
        let space = if what.is_some() { " " } else { "" };
        write!(f, "{space}in {}", path.join("."))?;
    }
    if what.is_some() || !path.is_empty() {
        f.write_str(": ")?;
    }
    Ok(())
}

/// A schema snapshot, an overlay or a reflection dump that is not as expected: the file, the
/// position in it, the type/field path and what is wrong. Prints as
/// `schemas/2018.1/types/hka.ron:12:5 (byte 340) in hkaSkeleton.bones: expected ...`.
///
/// ```
/// use hkgen::error::SchemaError;
///
/// let e = SchemaError::parse("types/a.ron", "(\n  x: 1,\n)", 2, 3, "unexpected field").in_context("hkaBone");
/// assert_eq!(e.to_string(), "types/a.ron:2:3 (byte 4) in hkaBone: unexpected field");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct SchemaError {
    /// The file (a path, or `REV:path` for a snapshot read from git), when known.
    pub file: Option<String>,
    /// Where in the file, when known.
    pub position: Option<TextPosition>,
    /// The type and field, outermost first.
    pub path: Vec<String>,
    /// What is wrong.
    pub message: String,
}

impl SchemaError {
    /// An error without a location.
    pub fn new(message: impl Into<String>) -> Self {
        SchemaError { file: None, position: None, path: Vec::new(), message: message.into() }
    }

    /// An error in `file`.
    pub fn in_file(file: impl Into<String>, message: impl Into<String>) -> Self {
        SchemaError { file: Some(file.into()), ..Self::new(message) }
    }

    /// An error at `line`:`column` of `file`, whose text is `text` (for the byte offset).
    pub fn parse(file: impl Into<String>, text: &str, line: usize, column: usize, message: impl Into<String>) -> Self {
        SchemaError { position: Some(TextPosition::in_text(text, line, column)), ..Self::in_file(file, message) }
    }

    /// A RON error of `file`, whose text is `text`, at the position RON gives.
    pub fn ron(file: impl Into<String>, text: &str, e: &ron::error::SpannedError) -> Self {
        let start = e.span.start;
        Self::parse(file, text, start.line, start.col, e.code.to_string())
    }

    /// Prepends a type or field name to the path (the error travels outwards).
    pub fn in_context(mut self, name: impl Into<String>) -> Self {
        self.path.insert(0, name.into());
        self
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let place = match (&self.file, &self.position) {
            (Some(file), Some(p)) => Some(format!("{file}:{p}")),
            (Some(file), None) => Some(file.clone()),
            (None, Some(p)) => Some(format!("line {p}")),
            (None, None) => None,
        };
        located(f, place.as_ref().map(|p| p as &dyn fmt::Display), &self.path)?;
        f.write_str(&self.message)
    }
}

/// A schema given to the code generator (or [`crate::builder::Builder`]) that code cannot be generated
/// from: the SDK, the type/field path and what is wrong. Prints as
/// `SDK 2018.1 in hkaSkeleton.bones: unknown type "hkaBone"`.
///
/// ```
/// use hkgen::error::CodegenInputError;
///
/// let e = CodegenInputError::new("class without a size").in_context("hkaSkeleton").for_sdk("2018.1");
/// assert_eq!(e.to_string(), "SDK 2018.1 in hkaSkeleton: class without a size");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct CodegenInputError {
    /// The SDK whose schema it is, when known.
    pub sdk: Option<String>,
    /// The type and field, outermost first.
    pub path: Vec<String>,
    /// What is wrong.
    pub message: String,
}

impl CodegenInputError {
    /// An error without a location.
    pub fn new(message: impl Into<String>) -> Self {
        CodegenInputError { sdk: None, path: Vec::new(), message: message.into() }
    }

    /// An error of type or field `key` (a schema key, `hkaSkeleton` or `hkaSkeleton.bones`).
    pub fn of(key: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(message).in_context(key)
    }

    /// Prepends a type or field name to the path.
    pub fn in_context(mut self, name: impl Into<String>) -> Self {
        self.path.insert(0, name.into());
        self
    }

    /// Names the SDK, unless one is named already.
    pub fn for_sdk(mut self, sdk: impl Into<String>) -> Self {
        if self.sdk.is_none() {
            self.sdk = Some(sdk.into());
        }
        self
    }
}

impl fmt::Display for CodegenInputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sdk = self.sdk.as_ref().map(|s| format!("SDK {s}"));
        located(f, sdk.as_ref().map(|s| s as &dyn fmt::Display), &self.path)?;
        f.write_str(&self.message)
    }
}

/// An error of the registry importer: the place in the XML (line, column and byte offset where
/// known) and what is wrong. Prints as `line 12:5 (byte 340): unknown type id 1777`.
///
/// ```
/// use hkgen::error::RegistryError;
///
/// let xml = "<a>\n  <b/>\n</a>";
/// let e = RegistryError::at(xml, 6, "unknown type id 7");
/// assert_eq!(e.to_string(), "line 2:3 (byte 6): unknown type id 7");
/// assert_eq!(RegistryError::new("no types").to_string(), "registry: no types");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct RegistryError {
    /// Where in the XML, when known.
    pub position: Option<TextPosition>,
    /// What is wrong.
    pub message: String,
}

impl RegistryError {
    /// An error without a place in the XML.
    pub fn new(message: impl Into<String>) -> Self {
        RegistryError { position: None, message: message.into() }
    }

    /// An error at byte `offset` of `xml`.
    pub fn at(xml: &str, offset: usize, message: impl Into<String>) -> Self {
        let before = xml.get(..offset).unwrap_or(xml);
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        RegistryError { position: Some(TextPosition { line, column, offset: Some(before.len()) }), message: message.into() }
    }

    /// An error at `line`:`column` of `xml` (both from 1).
    pub fn at_line(xml: &str, line: usize, column: usize, message: impl Into<String>) -> Self {
        RegistryError { position: Some(TextPosition::in_text(xml, line, column)), message: message.into() }
    }
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.position {
            Some(p) => write!(f, "line {p}: {}", self.message),
            None => write!(f, "registry: {}", self.message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_give_byte_offsets() {
        let text = "ab\ncdé\nf";
        assert_eq!(TextPosition::in_text(text, 1, 1).offset, Some(0));
        assert_eq!(TextPosition::in_text(text, 2, 3).offset, Some(5));
        assert_eq!(TextPosition::in_text(text, 3, 1).offset, Some(8));
        assert_eq!(TextPosition::in_text(text, 9, 1).offset, None);
        let e = RegistryError::at(text, 5, "x");
        assert_eq!(e.position, Some(TextPosition { line: 2, column: 3, offset: Some(5) }));
    }

    #[test]
    fn ron_errors_name_file_line_column_and_byte() {
        let text = "(\n  a: 1,\n  b: ,\n)";
        let e = ron::from_str::<ron::Value>(text).unwrap_err();
        let e = SchemaError::ron("sdk.ron", text, &e);
        let shown = e.to_string();
        assert!(shown.starts_with("sdk.ron:3:"), "{shown}");
        assert!(shown.contains("(byte "), "{shown}");
    }

    #[test]
    fn every_error_prints_its_location_first() {
        let e: Error = SchemaError::in_file("types/a.ron", "type hkaBone defined twice").in_context("hkaBone").into();
        assert_eq!(e.to_string(), "types/a.ron in hkaBone: type hkaBone defined twice");
        let e: Error = CodegenInputError::of("hkaSkeleton.bones", "unknown type \"x\"").for_sdk("2018.1").into();
        assert_eq!(e.to_string(), "SDK 2018.1 in hkaSkeleton.bones: unknown type \"x\"");
        let e: Error = hktypes::error::ItemsError::at(0x20, hktypes::ErrorKind::BadUtf8).into();
        assert!(matches!(&e, Error::Havok(h) if h.layer() == hktypes::Layer::Items));
        assert_eq!(e.to_string(), "file 0x20: string is not valid UTF-8");
    }
}
