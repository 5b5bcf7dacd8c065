//! `hktypes`: the Havok runtime of hkgen. Data flows one way: bytes -> sections ([`tagfile`]) ->
//! type table ([`reflect`]) and items -> typed objects, and back.
//!
//! Start with [`open`]: it reads any Havok file (a TAG0 tagfile, a TCM0 compendium, a packfile of
//! any version, `<hkpackfile>` XML) into one [`Document`], whose objects are named by [`Handle`]s
//! and counted by [`Counts`] the same way in every format ([`mod@document`] has the design).
//!
//! ```no_run
//! use hktypes::{open, OpenOptions};
//!
//! let bytes = std::fs::read("skeleton.hkx")?;
//! // Without classes every object reads untyped; give the generated ones for typed access
//! // (`OpenOptions::tagfile_classes`, `OpenOptions::packfile_classes`).
//! let doc = open(&bytes, &OpenOptions::default())?;
//! println!("{} ({:?}): {:?}", doc.format().name(), doc.layout(), doc.counts());
//! for h in doc.find("hkaSkeleton") {
//!     println!("{h:?}: {}", doc.class_name(h).unwrap_or_default());
//! }
//! assert_eq!(doc.write()?, bytes); // a document left alone writes back what it read
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

pub mod bytes;
pub mod document;
pub mod dynamic;
pub mod error;
pub mod graph;
pub mod packfile;
pub mod reflect;
#[cfg(feature = "serde")]
pub mod serde_support;
pub mod tagfile;
pub mod value;

pub use document::{open, sniff, ClassRegistry, Counts, Document, Format, Handle, NewFormat, ObjectMut, OpenOptions};
pub use error::{ContainerError, Error, ErrorKind, ItemsError, Layer, Result, TypeTableError, ValueError, WriteError};
