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
    /// A type, by key.
    Type(String),
    /// A number (a template value parameter, negative ones as their 32-bit two's complement).
    Value(u64),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
/// A template parameter: its name (`tT`, `vN`) and argument.
pub struct Param {
    /// The parameter's name: `t...` for a type, `v...` for a value.
    pub name: String,
    /// The argument.
    pub arg: Arg,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
/// A member of a record type.
pub struct Field {
    /// The Havok member name (`bodyCinfos`).
    pub name: String,
    /// The member flags word of the type table.
    pub flags: Hex,
    /// Offset in bytes from the start of the record.
    pub offset: u32,
    /// Key of the field's type.
    pub ty: String,
    /// The number that follows the flags when flag 0x80 is set (SDK 2022.1; see
    /// `hktypes::reflect::Field::aux`); absent from the snapshot when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub aux: u32,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
/// An interface a type implements.
pub struct Interface {
    /// Key of the interface type.
    pub ty: String,
    /// The value the table stores with it.
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
    /// Template parameters, in order.
    pub params: Vec<Param>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Key of the parent type (the base class, or what a typedef names).
    pub parent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The format word (kind in the low bits; see `hktypes::reflect::TypeFormat`).
    pub format: Option<Hex>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Key of the element type of an array or the pointee of a pointer.
    pub subtype: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The class version.
    pub version: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Size in bytes.
    pub size: Option<u32>,
    /// The whole alignment word (low 12 bits bytes, bits 12-15 a requested-alignment code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub align: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The type flags word.
    pub flags: Option<Hex>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Number of properties (registry members with flag `0x10`, which have no record).
    pub properties: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Its own members (not inherited ones).
    pub fields: Option<Vec<Field>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Interfaces it implements.
    pub interfaces: Option<Vec<Interface>>,
    /// The hash a `THSH` (or the registry) stores for it, when any does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<Hex>,
    /// The hash computed by the recipe, stored or not: identifies the layout.
    pub computed: Hex,
    /// Where it was seen.
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

/// Strips a `#hash` variant suffix from a key (one definition, shared with the runtime).
pub use hktypes::value::base_key;

/// What produced a snapshot.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sources {
    /// Tagfiles read (with their own types or a compendium's).
    pub tagfiles: u32,
    /// Compendium ids whose types were merged.
    pub compendia: Vec<String>,
    /// Defined by the runtime type registry.
    pub registry: bool,
}

/// The snapshot of one SDK version.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Schema {
    /// `2018.1`.
    pub sdk: String,
    /// The `SDKV` string, `20180100`.
    pub sdkv: String,
    /// The type-hash recipe the SDK's tables follow.
    pub recipe: hktypes::reflect::hash::Recipe,
    /// What was read to make it.
    pub sources: Sources,
    /// Full names under which more than one layout was seen, with their variant keys.
    pub variants: BTreeMap<String, Vec<String>>,
    /// Every type by key.
    #[serde(skip)]
    pub types: BTreeMap<String, Type>,
}

impl Schema {
    /// The type of key `key`.
    pub fn get(&self, key: &str) -> Option<&Type> {
        self.types.get(key)
    }
}

// ---------------------------------------------------------------------------------------------
// hkClass records: the reflection of the packfile SDKs (2010-2014), a record kind of its own.
// ---------------------------------------------------------------------------------------------

/// `hkClassMember::Type`: the runtime's ([`hktypes::packfile::layout::MemberType`]), one enum for
/// both the schema records and the packfile readers.
pub use hktypes::packfile::layout::MemberType;

/// hkClassMember flags the layout and the signature look at.
pub mod member_flags {
    /// Member aligned to 8 bytes.
    pub const ALIGN_8: u16 = 128;
    /// Member aligned to 16 bytes.
    pub const ALIGN_16: u16 = 256;
    /// Pointer that does not own its target.
    pub const NOT_OWNED: u16 = 512;
    /// Member not serialized.
    pub const SERIALIZE_IGNORED: u16 = 1024;
}

/// One hkClassMember, without its offset (offsets belong to a platform, see the layout).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberRecord {
    /// The member's name.
    pub name: String,
    #[serde(rename = "type")]
    /// Its type.
    pub ty: MemberType,
    #[serde(default = "void", skip_serializing_if = "is_void")]
    /// The element type of an array or pointer (`Void` for none).
    pub subtype: MemberType,
    /// The struct or pointee class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// Key of the enum in [`ClassSchema::enums`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enumeration: Option<String>,
    /// C array length (0 for a single value).
    #[serde(default, skip_serializing_if = "is_zero_u16")]
    pub c_array_size: u16,
    #[serde(default, skip_serializing_if = "is_zero_u16")]
    /// hkClassMember flags ([`member_flags`]).
    pub flags: u16,
}

fn void() -> MemberType {
    MemberType::Void
}
fn is_void(t: &MemberType) -> bool {
    *t == MemberType::Void
}
fn is_zero_u16(v: &u16) -> bool {
    *v == 0
}
fn is_zero_u32(v: &u32) -> bool {
    *v == 0
}

/// One hkClassEnum.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnumRecord {
    /// The enum's own name (`Platform`); the key adds the class that declares it.
    pub name: String,
    /// (value, name) in declaration order.
    pub items: Vec<(i64, String)>,
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    /// hkClassEnum flags.
    pub flags: u32,
    /// The items the stored class signatures were computed with, where they differ from `items`
    /// (BotW's Switch runtime added `HCL_PLATFORM_NX` to `hclClothData::Platform` after its files
    /// were written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature_items: Option<Vec<(i64, String)>>,
    /// The source names the enum but not its items (a type table), so `items` is empty for want
    /// of data and no signature that includes it can be computed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub items_unknown: bool,
}

/// One hkClass: platform-neutral (member types, C-array sizes, alignment flags, interface count,
/// enum storage); offsets and sizes are computed per layout.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassRecord {
    /// The class name.
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The parent class's name.
    pub parent: Option<String>,
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    /// The class version.
    pub version: u32,
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    /// hkClass flags.
    pub flags: u32,
    /// Interfaces this class itself implements (extra vtable pointers; 1 for hkBaseObject).
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub interfaces: u32,
    /// Keys of the enums it declares, in declaration order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub enums: Vec<String>,
    /// Its own members, in declaration order.
    pub members: Vec<MemberRecord>,
    /// The signature files store for it, when one is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<Hex>,
}

/// The hkClass reflection of one packfile SDK.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassSchema {
    /// `2014.2`.
    pub sdk: String,
    /// Where the records came from.
    pub sources: Vec<String>,
    /// Classes by name.
    pub classes: BTreeMap<String, ClassRecord>,
    /// Enums by key: `Class::Name` for a declared enum, the bare name otherwise.
    pub enums: BTreeMap<String, EnumRecord>,
    /// Classes that the description alone does not lay out, and what is known instead.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub overrides: BTreeMap<String, LayoutOverride>,
    /// Classes this SDK's files name whose stored signature no source recomputes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unresolved: Vec<String>,
}

/// What a class's reflection leaves out of its layout.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayoutOverride {
    /// Why: `interfaces` (a count the source lacks, found from its offsets; it is in the record)
    /// or `hidden members` (bytes the reflection does not describe).
    pub reason: String,
    /// The reflection does not describe every byte: only a `fixed` layout lays it out.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hidden_members: bool,
    /// Layouts known from a source, by layout rules (`8,1,1,1`): used as they are.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fixed: BTreeMap<String, FixedLayout>,
}

/// A class's size, alignment and declared members' offsets under one set of layout rules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FixedLayout {
    /// Size in bytes.
    pub size: u32,
    /// Alignment in bytes.
    pub align: u32,
    /// Offsets of the class's own members, in declaration order.
    pub offsets: Vec<u32>,
}

impl ClassSchema {
    /// The class named `name`.
    pub fn class(&self, name: &str) -> Option<&ClassRecord> {
        self.classes.get(name)
    }

    /// The class and its parents, the class first.
    pub fn ancestry<'a>(&'a self, name: &str) -> Vec<&'a ClassRecord> {
        let mut out = Vec::new();
        let mut next = self.classes.get(name);
        while let Some(c) = next {
            if out.len() > 256 || out.iter().any(|o: &&ClassRecord| o.name == c.name) {
                break;
            }
            out.push(c);
            next = c.parent.as_deref().and_then(|p| self.classes.get(p));
        }
        out
    }
}
