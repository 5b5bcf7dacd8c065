//! Schemas: type tables merged per SDK version into records keyed by full name ([`model`]), built
//! from many tables ([`merge`]), written to and read from RON snapshots ([`snapshot`]), and turned
//! back into a type table ([`rebuild`]).

pub mod merge;
pub mod model;
pub mod rebuild;
pub mod snapshot;

pub use merge::{Conflict, Merger, Origin};
pub use model::{Schema, Type};
