//! Errors of the schema tool: a Havok read error with its location, an I/O error with its path,
//! or a schema problem.

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
    /// Reading a Havok file failed (the message says where in the file).
    #[error("{0}")]
    Havok(#[from] hktypes::Error),
    /// Reading or writing a file failed.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// What the operating system said.
        message: String,
    },
    /// A snapshot, an overlay or the code generated from them is not as expected.
    #[error("schema: {0}")]
    Schema(String),
    /// The runtime type registry could not be imported.
    #[error("registry: {0}")]
    Registry(String),
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

impl Error {
    /// An [`Error::Io`] for `path`.
    pub fn io(path: &Path, e: std::io::Error) -> Self {
        Error::Io { path: path.display().to_string(), message: e.to_string() }
    }
}
