//! Errors of the schema tool: a Havok read error with its location, an I/O error with its path,
//! or a schema problem.

use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Havok(#[from] hktypes::Error),
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    #[error("schema: {0}")]
    Schema(String),
    #[error("registry: {0}")]
    Registry(String),
}

impl Error {
    pub fn io(path: &Path, e: std::io::Error) -> Self {
        Error::Io { path: path.display().to_string(), message: e.to_string() }
    }
}
