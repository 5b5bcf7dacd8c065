//! `hkgen`: the schema tool of hkgen. It reads the type tables of Havok files ([`inputs`]), merges
//! them into per-SDK schema snapshots ([`schema`]), checks files ([`verify`]) and drives the code
//! generator. The packfile SDKs (2010-2014) describe their classes with hkClass reflection instead:
//! [`reflection`] imports it, computes class signatures and per-platform layouts.

pub mod builder;
#[cfg(feature = "cli")]
pub mod cli;
pub mod codegen;
pub mod diff;
pub mod error;
#[cfg(feature = "tool")]
pub mod extract;
pub mod inputs;
#[cfg(feature = "tool")]
pub mod reflection;
#[cfg(feature = "tool")]
pub mod registry;
pub mod schema;
#[cfg(feature = "tool")]
pub mod verify;

pub use builder::Builder;
pub use error::Error;
