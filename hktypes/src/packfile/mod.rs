//! The Havok packfile container of SDK 5.5 to 2014 (specs: havok-packfile-botw.txt and the
//! "Packfiles, versions 9 and 11" part of havok-tagfile-fromsoft.txt): the header with its layout
//! rules, the section headers, `__classnames__`, `__types__` and `__data__` with their local,
//! global and virtual fixups, and the `0xFF` fill. Both byte orders, 4- and 8-byte pointers.
//!
//! [`raw`] holds the on-disk records, [`mod@file`] reads and checks them into a [`PackFile`], and
//! [`mod@write`] rebuilds the bytes from a `PackFile`'s parts (a stock file comes back byte for byte).
//! [`layout`] lays classes out from platform-neutral hkClass descriptions under a file's four layout
//! rules; [`objects`] reads `__data__` into objects through them (raw bytes where no description
//! fits) and lays it out again, under the file's rules or another platform's; [`typed`] converts
//! objects to and from generated structs; [`scratch`] makes an empty document to
//! which classes are declared and objects added; [`dump`] prints the objects; [`check`] checks where the
//! typed objects' pointers point (for `hkgen verify`); [`xml`] reads and writes the objects as
//! Havok's `<hkpackfile>` XML.

pub mod check;
pub mod dump;
pub mod file;
pub mod layout;
pub mod objects;
pub mod raw;
pub mod scratch;
pub mod typed;
pub(crate) mod walk;
pub(crate) mod walk_out;
pub mod write;
pub mod xml;

pub use file::{
    ClassName, ClassNames, ContentsVersion, Fill, GlobalFixup, Header, HeaderTail, LocalFixup, PackFile, SectionBody,
    Section, SectionName, VirtualFixup, CLASSNAMES, DATA, TYPES,
};
pub use raw::{Endian, LayoutRules, MAGIC};

/// The SDK a contents version names: `hk_2014.1.0-r1` -> `2014.1`; `Havok-5.5.0-r1` -> `5.5`.
///
/// ```
/// assert_eq!(hktypes::packfile::sdk_of_contents_version("hk_2014.2.0-r1"), "2014.2");
/// assert_eq!(hktypes::packfile::sdk_of_contents_version("Havok-5.5.0-r1"), "5.5");
/// ```
pub fn sdk_of_contents_version(v: &str) -> String {
    let v = v.strip_prefix("hk_").or_else(|| v.strip_prefix("Havok-")).unwrap_or(v);
    let v = v.split('-').next().unwrap_or(v);
    v.strip_suffix(".0").unwrap_or(v).to_owned()
}
