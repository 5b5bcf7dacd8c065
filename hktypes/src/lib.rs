//! `hktypes`: the Havok runtime of hkgen. Data flows one way: bytes -> sections ([`tagfile`]) ->
//! type table ([`reflect`]) and items -> typed objects, and back.
#![warn(missing_docs)]

pub mod bytes;
pub mod dynamic;
pub mod error;
pub mod graph;
pub mod packfile;
pub mod reflect;
pub mod tagfile;
pub mod value;

pub use error::{ContainerError, Error, ErrorKind, ItemsError, Layer, Result, TypeTableError, ValueError, WriteError};
