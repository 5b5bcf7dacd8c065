//! The schema model: type records keyed by full name, as committed under `schemas/<sdk>/`. It is
//! the per-file [`TypeTable`](hktypes::reflect::TypeTable) with indices replaced by type keys, so a
//! record can be rebuilt from a snapshot alone and its hash recomputed.
//!
//! A type key is the type's full name (`hkArray<hkaBone, hkContainerHeapAllocator>`). Where one SDK
//! holds two layouts under one name, every variant's key gets `#` and its computed hash appended
//! (`hkcdSimdTree::Node#1a2b3c4d`), and references name the variant they mean.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// A 32-bit value written as `"0x1234abcd"` so hashes and format words read well in diffs.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Hex(pub u32);

impl fmt::Debug for Hex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#010x}", self.0)
    }
}

impl fmt::Display for Hex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#010x}", self.0)
    }
}

impl Serialize for Hex {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{:#010x}", self.0))
    }
}

impl<'de> Deserialize<'de> for Hex {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let digits = s.strip_prefix("0x").ok_or_else(|| serde::de::Error::custom("hex value must start with 0x"))?;
        u32::from_str_radix(digits, 16).map(Hex).map_err(serde::de::Error::custom)
    }
}

/// A template argument: a type key or a number.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Arg {
    Type(String),
    Value(u64),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Param {
    pub name: String,
    pub arg: Arg,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Field {
    pub name: String,
    pub flags: Hex,
    pub offset: u32,
    /// Key of the field's type.
    pub ty: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Interface {
    pub ty: String,
    pub value: u32,
}

/// Where a type was seen.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seen {
    /// Tagfiles whose types (their own, or their compendium's) define it.
    pub files: u32,
    /// Ids of the compendia that define it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub compendia: Vec<String>,
    /// Defined by the runtime type registry.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub registry: bool,
}

/// One type, as lossless as the table it came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Type {
    /// The key: full name, with `#hash` when the SDK holds more than one layout under the name.
    pub key: String,
    /// The name as the type table stores it (`hkArray`, `T*`).
    pub name: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<Param>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<Hex>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtype: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u32>,
    /// The whole alignment word (low 12 bits bytes, bits 12-15 a requested-alignment code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub align: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flags: Option<Hex>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub properties: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fields: Option<Vec<Field>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interfaces: Option<Vec<Interface>>,
    /// The hash a `THSH` (or the registry) stores for it, when any does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<Hex>,
    /// The hash computed by the recipe, stored or not: identifies the layout.
    pub computed: Hex,
    pub seen: Seen,
}

impl Type {
    /// A bare declaration: a name (and template arguments) with nothing else, as files write the
    /// types they only point to.
    pub fn is_declaration(&self) -> bool {
        self.parent.is_none()
            && self.format.is_none()
            && self.subtype.is_none()
            && self.version.is_none()
            && self.size.is_none()
            && self.flags.is_none()
            && self.fields.is_none()
            && self.interfaces.is_none()
    }

    /// The full name without the variant suffix.
    pub fn full_name(&self) -> &str {
        base_key(&self.key)
    }
}

/// Strips a `#hash` variant suffix from a key.
pub fn base_key(key: &str) -> &str {
    match key.rfind('#') {
        Some(p) if key[p + 1..].len() == 8 && key[p + 1..].bytes().all(|b| b.is_ascii_hexdigit()) => &key[..p],
        _ => key,
    }
}

/// What produced a snapshot.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sources {
    /// Tagfiles read (with their own types or a compendium's).
    pub tagfiles: u32,
    /// Compendium ids whose types were merged.
    pub compendia: Vec<String>,
    pub registry: bool,
}

/// The snapshot of one SDK version.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Schema {
    /// `2018.1`.
    pub sdk: String,
    /// The `SDKV` string, `20180100`.
    pub sdkv: String,
    pub recipe: hktypes::reflect::hash::Recipe,
    pub sources: Sources,
    /// Full names under which more than one layout was seen, with their variant keys.
    pub variants: BTreeMap<String, Vec<String>>,
    /// Every type by key.
    #[serde(skip)]
    pub types: BTreeMap<String, Type>,
}

impl Schema {
    pub fn get(&self, key: &str) -> Option<&Type> {
        self.types.get(key)
    }
}
