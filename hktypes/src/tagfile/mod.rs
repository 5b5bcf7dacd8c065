//! The TAG0 tagfile and TCM0 compendium container (spec: havok-tagfile-fromsoft.txt): section
//! framing, packed integers, the type section, the item and patch tables.

pub mod compendium;
pub mod file;
pub mod index;
pub mod items;
pub mod locate;
pub mod packed;
pub mod phive;
pub mod section;
pub mod type_section;
pub mod type_writer;
pub mod write;
pub(crate) mod walk;
pub mod xml;

pub use compendium::{Compendium, CompendiumId, CompendiumSet};
pub use file::{sdk_version, TagFile, TypeCache, TypeSource};
