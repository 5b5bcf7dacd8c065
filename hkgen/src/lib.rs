//! `hkgen`: the schema tool of hkgen. It reads the type tables of Havok files ([`inputs`]), merges
//! them into per-SDK schema snapshots ([`schema`], [`extract`]), checks files ([`verify`]),
//! compares snapshots ([`diff`]) and drives the code generator ([`codegen`]); [`Builder`] runs the
//! code generator from a build script of your own. The packfile SDKs (2010-2014) describe their
//! classes with hkClass reflection instead: [`reflection`] imports it, computes class signatures
//! and per-platform layouts.
//!
//! Features: `cli` (default) the command line and everything it needs, `tool` extraction,
//! verification and the registry and reflection imports, `pretty` formatted generated code. A
//! build script needs none of them (`default-features = false`): the code generator and
//! [`Builder`] are always there.
//!
//! ```
//! // Classes for the Elden Ring ragdoll from the committed SDK 2018.1 snapshot.
//! let out = std::env::temp_dir().join(format!("hkgen-lib-doctest-{}.rs", std::process::id()));
//! let report = hkgen::Builder::new()
//!     .schemas(concat!(env!("CARGO_MANIFEST_DIR"), "/../schemas/2018.1"))
//!     .classes(["hknpRagdollData"])
//!     .out_file(&out)
//!     .cargo_metadata(false)
//!     .generate()?;
//! assert!(report.classes.iter().any(|c| c == "hkaSkeleton")); // the ragdoll points to one
//! # std::fs::remove_file(&out)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

#[cfg(feature = "cli")]
pub mod anim_cli;
pub mod builder;
#[cfg(feature = "cli")]
pub mod cli;
pub mod codegen;
#[cfg(feature = "tool")]
pub mod convert;
pub mod diff;
pub mod error;
#[cfg(feature = "tool")]
pub mod extract;
#[cfg(feature = "tool")]
pub mod file_diff;
pub mod inputs;
pub mod reflection;
#[cfg(feature = "tool")]
pub mod registry;
pub mod schema;
pub mod semantic;
#[cfg(feature = "tool")]
pub mod verify;

pub use builder::Builder;
pub use error::Error;
