//! `hktypes`: the Havok runtime of hkgen. Data flows one way: bytes -> sections ([`tagfile`]) ->
//! type table ([`reflect`]) and items -> typed objects, and back.
//!
//! Start with [`open`]: it reads any Havok file (a TAG0 tagfile, a TCM0 compendium, a packfile of
//! any version, `<hkpackfile>` or `<hktagfile>` XML) into one [`Document`], whose objects are
//! named by [`Handle`]s and counted by [`Counts`] the same way in every format ([`mod@document`]
//! has the design). [`sniff`] says which format bytes are.
//!
//! ```
//! use hktypes::packfile::LayoutRules;
//! use hktypes::{open, Counts, Document, Format, NewFormat, OpenOptions};
//!
//! // Any Havok file: here an empty Wii U packfile of SDK 2014.2 made in memory; in a program,
//! // `std::fs::read("skeleton.hkx")?`.
//! let wii_u = LayoutRules::WII_U;
//! let bytes = Document::new("2014.2", NewFormat::Packfile(wii_u), None)?.write()?;
//!
//! // Without classes every object reads untyped; `hkclasses::open_options()` gives the generated
//! // classes of every SDK the root crate compiles in, for typed access (see [`Document`]).
//! let doc = open(&bytes, &OpenOptions::default())?;
//! assert_eq!((doc.format(), doc.layout()), (Format::Packfile, Some(wii_u)));
//! assert_eq!(doc.sdk().as_deref(), Some("2014.2"));
//! assert_eq!(doc.contents_version().as_deref(), Some("hk_2014.2.0-r1"));
//! assert_eq!(doc.counts(), Counts::default());
//! for h in doc.find("hkaSkeleton") {
//!     println!("{h:?} is pointed at by {:?}", doc.referrers(h));
//! }
//! assert_eq!(doc.write()?, bytes); // a document left alone writes back what it read
//!
//! // Bytes of no Havok format are one error.
//! let png = open(b"\x89PNG\r\n\x1a\n", &OpenOptions::default()).unwrap_err();
//! assert_eq!(png.to_string(), "not a Havok file: starts with 89 50 4E 47 0D 0A 1A 0A");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

/// `Clone`, `Copy`, `PartialEq`, `Eq` and `Default` (its `NULL`) for a handle `$ty<T: ?Sized>`
/// that holds `T` only as a phantom and compares by `$key`: deriving would require `T: Clone`
/// and the rest of every class it points at. Shared by the tagfile and packfile pointers.
macro_rules! phantom_handle_impls {
    ($ty:ident, $key:ident) => {
        impl<T: ?Sized> Clone for $ty<T> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<T: ?Sized> Copy for $ty<T> {}
        impl<T: ?Sized> PartialEq for $ty<T> {
            fn eq(&self, other: &Self) -> bool {
                self.$key == other.$key
            }
        }
        impl<T: ?Sized> Eq for $ty<T> {}
        impl<T: ?Sized> Default for $ty<T> {
            fn default() -> Self {
                Self::NULL
            }
        }
    };
}

pub mod anim;
pub mod archive;
pub mod bytes;
pub mod document;
pub mod dump;
pub mod dynamic;
pub mod error;
pub mod graph;
#[cfg(feature = "gltf")]
pub mod gltf;
pub mod members;
pub mod packfile;
pub mod reflect;
#[cfg(feature = "serde")]
pub mod serde_support;
pub mod shape;
pub mod shared;
pub mod tagfile;
pub mod value;
pub mod xml_text;

pub use document::{open, sniff, ClassRegistry, Document, Format, NewFormat, ObjectMut, OpenOptions};
pub use shared::{Counts, Handle};
pub use error::{ContainerError, Error, ErrorKind, ItemsError, Layer, Result, TypeTableError, ValueError, WriteError};
