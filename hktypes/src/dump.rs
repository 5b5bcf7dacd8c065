//! A Havok file of either format as one plain-data shape (`hkgen dump --format json|ron`), and
//! that shape back to the same bytes (`hkgen build`).
//!
//! # The shape
//!
//! ```text
//! { format: "tagfile" | "packfile", sdk, layout?, root?, objects: [ {handle, class, members?, untyped?, kept?} ], kept }
//! ```
//!
//! - `format`: the format family, [`TAGFILE`] (a TAG0 tagfile; a TCRF one names its compendium in
//!   `kept`) or [`PACKFILE`] (a binary packfile of any version; `layout` gives its rules). A dump
//!   of XML describes the binary the XML gives. [`build`] also reads `tag0`, the name before.
//! - `sdk`: the SDK version in one naming for both formats (`2018.1`, `2014.2`, ...); a
//!   packfile's from its contents version (`hk_2014.2.0-r1`, which its kept container holds).
//! - `layout`: a packfile's layout rules (`8,1,0,1`: pointer size, little-endian,
//!   reuse-padding, empty-base); absent for tagfiles, which have one layout.
//! - `root`: the handle of the root object.
//! - `objects`: every object in file order, each with its `handle` (a tagfile's item index, a
//!   packfile's object index: what pointers name), its `class` (the full type name) and its
//!   `members` by Havok name, the ancestors' first (a tagfile object whose type is no record, which
//!   Havok does not write, holds its one value under the name `""`). An object no class
//!   description matched (packfile only) has `untyped` instead: its bytes in hex and its fixups.
//!
//! Values are written the same whatever the format ([`Val`]): `null` (a null pointer or string;
//! a `void` member), booleans, integers, reals (the shortest decimal that reads back to the same
//! 32 bits; a real whose text would not, a NaN or an infinity is `{"bits": "0x7fc00001"}`),
//! strings (an enum or flags member by item name where one item has its value: a packfile's
//! from its class descriptions, a tagfile's from the items of its SDK's enumerations given to
//! [`dump_tagfile_with`], since a type table names none; without them a number; [`build`] reads
//! names and numbers, and `A|B` for flags), lists (arrays, an array without elements being `[]`
//! in both formats; C arrays; vectors, quaternions, matrices and transforms as their reals in
//! storage order, a tagfile's records of them too; a variant as its two pointers), records
//! (`{member: value}`),
//! pointers `{"ref": HANDLE}` (`{"ref": H, "offset": N}` into an object, `{"section": S,
//! "offset": N}` into another packfile section), `{"bytes": "hex"}` (bytes no member describes, a
//! string that is not UTF-8), and `{"items": [...], "capacity": N}` for an `hkArray` whose
//! capacity word is not the stock `len | 0x80000000`. A `hkHalf` is the real its 16 bits are the
//! top of.
//!
//! What a byte-exact rebuild needs beyond the values sits in `kept`, never mixed with them (it is
//! what the lossless XML forms keep in their `hkgen:` comments and attributes):
//! - the document's `kept` ([`Kept`]): a packfile's `container` (the file with `__data__`
//!   emptied, in hex: header, `__classnames__`, `__types__`, each section's fill); a tagfile's
//!   `sdkv`, its `types` (the type records a `TYPE` section is written from) or, for a TCRF
//!   file, its `compendium` id and `tcrf` bytes (the types then come from the compendium),
//!   `trailing` bytes after `TAG0`, and for a Phive file its wrapper (`phive`, [`dump_phive`]);
//! - an object's `kept` ([`ObjectKept`]), only where the object has any: a packfile object's
//!   `class_ref` (where its virtual fixup names its class, when not the class's own entry),
//!   `align8` (arrays on 8-byte boundaries), `places`/`end`/`padding` (the bytes of
//!   [`crate::packfile::objects::Kept`]); a tagfile object's `type` (its type index, when not
//!   the first type of its name), `kind` (the item kind byte, when not the stock one) and `runs`:
//!   per member path (`bones[3].name`) the run facts of arrays and strings that differ from
//!   what the type table gives (the run's element `type`, its `kind` byte, `share`: the number
//!   of a run that several slots name, made once; `empty_run`: an array of no elements that
//!   has a run, which `[]` otherwise has not).
//!
//! # Reading a dump back
//!
//! [`build`] lays the objects out again: a tagfile through the same item builder and writer as
//! `<hktagfile>` XML (`TYPE` written again from the kept records, or `TCRF` when the compendium is
//! given), a packfile through [`crate::packfile::objects::PackfileDocument`]'s writer with each class
//! described by the first given source that has it under the signature `__classnames__` states.
//! Every error is a value naming its place in the dump (`objects[3] (handle 7,
//! hkaSkeleton).bones[2].name: a string where a number belongs`): a value of the wrong kind, an
//! unknown class or member, a missing member, a pointer to no object, a number out of its
//! type's range. Item bytes are bounded by 16 per byte of the dump text plus 1 MiB, as the XML
//! readers bound theirs.

use crate::error::{ErrorKind, Result, ValueError};
use crate::packfile::layout::{ClassSet, ClassSource, Member, MemberType};
use crate::packfile::objects::{
    self, ArrayAlign, Body, PackfileDocument as PackDocument, Ref, Untyped, MemberValue,
};
use crate::packfile::walk::{Next, PackSource, PackWalk};
use crate::packfile::walk_out::{Elem, EnumOf, Held, Int, PackOut, PackSink, Path};
use crate::packfile::{LayoutRules, PackFile};
use crate::reflect::layout::Layouts;
use crate::reflect::{Field, TemplateArg, TypeIndex, TypeRecord, TypeTable};
use crate::value::EnumTable;
use crate::tagfile::compendium::{CompendiumId, CompendiumSet};
use crate::tagfile::index::{KIND_OBJECT, KIND_RUN};
use crate::tagfile::items::{ItemData, Items};
use crate::tagfile::walk::{Build, Got, Open, RunFacts, Scalar, TagSink, TagSource, Walk};
use crate::tagfile::{TagFile, TypeSource};
use crate::Handle;
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

/// How deep values may nest.
pub const MAX_DEPTH: usize = 64;

/// [`Dump::format`] of a TAG0 tagfile (a TCRF one too: its kept `compendium` says so).
pub const TAGFILE: &str = "tagfile";

/// [`Dump::format`] of a binary packfile of any version and layout (its `layout` says which).
pub const PACKFILE: &str = "packfile";

/// A whole file as plain data (see the module documentation).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dump {
    /// [`TAGFILE`] or [`PACKFILE`] ([`build`] also reads `tag0`, the name dumps had before).
    pub format: String,
    /// The SDK version (`2015.1`, `2010.2`), one naming for both formats (a packfile's full
    /// contents version is in its kept container).
    pub sdk: String,
    /// A packfile's layout rules (`8,1,0,1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<String>,
    /// The root object's handle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<u32>,
    /// The objects in file order.
    pub objects: Vec<DumpObject>,
    /// What a byte-exact rebuild needs beyond the values.
    pub kept: Kept,
}

/// One object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DumpObject {
    /// What pointers to it name.
    pub handle: u32,
    /// Its class (a tagfile type's full name).
    pub class: String,
    /// Its members by Havok name, the ancestors' first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub members: Option<Members>,
    /// A packfile object no class description matched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub untyped: Option<UntypedObject>,
    /// What its bytes hold beyond its values.
    #[serde(default, skip_serializing_if = "ObjectKept::is_empty")]
    pub kept: ObjectKept,
}

/// A packfile object kept as its bytes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UntypedObject {
    /// Its bytes in hex, from its start to the next object.
    pub bytes: String,
    /// Local fixups `(source, target)`, relative to the object's start.
    #[serde(default)]
    pub local: Vec<(u32, u32)>,
    /// Global fixups: the source relative to the object's start, and the pointer.
    #[serde(default)]
    pub global: Vec<(u32, Val)>,
}

/// The document's facts beyond its values.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Kept {
    /// A packfile's container with `__data__` emptied, in hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// A tagfile's `SDKV` body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sdkv: Option<String>,
    /// A tagfile's type records (the null type left out), unless its types are a compendium's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub types: Option<Vec<TypeRecord>>,
    /// The compendium id a TCRF file names, in hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compendium: Option<String>,
    /// The `TCRF` bytes after the id, in hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcrf: Option<String>,
    /// Bytes after the `TAG0` section, in hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trailing: Option<String>,
    /// The Phive wrapper around the tagfile of a Phive file, in hex
    /// ([`PhiveWrapper::to_hex`](crate::tagfile::phive::PhiveWrapper::to_hex)): the file is
    /// built in it again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phive: Option<String>,
}

/// An object's facts beyond its values (every field empty for most objects).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ObjectKept {
    /// Packfile: the virtual fixup's class-name section and offset, when not the class's entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class_ref: Option<(u32, u32)>,
    /// Packfile: array elements on 8-byte boundaries.
    #[serde(default, skip_serializing_if = "is_false")]
    pub align8: bool,
    /// Packfile: where out-of-line data starts, `(from, to)`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub places: Vec<(u32, u32)>,
    /// Packfile: where the object's bytes end, `(from, to)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<(u32, u32)>,
    /// Packfile: padding bytes that are not zero, `(offset, hex)`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub padding: Vec<(u32, String)>,
    /// Tagfile: the object's type index, when not the first type of its name.
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "type")]
    pub ty: Option<u32>,
    /// Tagfile: the item kind byte, when not the stock one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<u8>,
    /// Tagfile: run facts by member path.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub runs: BTreeMap<String, RunKept>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl ObjectKept {
    /// Nothing kept.
    pub fn is_empty(&self) -> bool {
        *self == ObjectKept::default()
    }
}

/// A tagfile run's facts that its member's type does not give.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunKept {
    /// The element type index, when not the member's element type (a string's: `char`).
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "type")]
    pub ty: Option<u32>,
    /// The item kind byte, when not the stock one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<u8>,
    /// The run's item index where several slots name it: the first place makes it, the others
    /// name it again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share: Option<u32>,
    /// The array has a run of no elements (an empty array `[]` otherwise has none: index 0).
    #[serde(default, skip_serializing_if = "is_false")]
    pub empty_run: bool,
}

/// Members by Havok name, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Members(pub Vec<(String, Val)>);

/// One value (see the module documentation for its text forms).
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    /// A null pointer, string or array; a `void` member.
    Null,
    /// A bool.
    Bool(bool),
    /// A negative integer.
    Int(i64),
    /// A non-negative integer.
    UInt(u64),
    /// A real.
    Real(f32),
    /// A real by its bits.
    Bits(u32),
    /// A string, or an enum item's name.
    Str(String),
    /// Elements.
    List(Vec<Val>),
    /// An `hkArray` with its capacity word.
    Array(Vec<Val>, u32),
    /// Members.
    Record(Members),
    /// A pointer: handle and offset into it.
    Ref(u32, Option<u32>),
    /// A pointer into another packfile section.
    Section(u32, u32),
    /// Bytes.
    Bytes(Vec<u8>),
}

// ---------------------------------------------------------------------------------------------
// serde of values

fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(2 * bytes.len());
    for b in bytes {
        write!(s, "{b:02x}").unwrap();
    }
    s
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    let s = s.as_bytes();
    if !s.len().is_multiple_of(2) {
        return None;
    }
    s.chunks_exact(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).ok()?, 16).ok())
        .collect()
}

impl Members {
    /// Every one of `names` once, and nothing else.
    fn check<'n>(
        &self,
        names: impl Iterator<Item = &'n str> + Clone,
        at: &At,
    ) -> std::result::Result<(), ValueError> {
        for (k, (name, _)) in self.0.iter().enumerate() {
            if !names.clone().any(|n| n == name) {
                return Err(at.err(format!("no member {name:?}")));
            }
            if self.0[..k].iter().any(|(n, _)| n == name) {
                return Err(at.err(format!("member {name:?} twice")));
            }
        }
        for n in names {
            if !self.0.iter().any(|(m, _)| m == n) {
                return Err(at.err(format!("member {n:?} is missing")));
            }
        }
        Ok(())
    }
}

impl Serialize for Members {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for Members {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        match Val::deserialize(d)? {
            Val::Record(m) => Ok(m),
            _ => Err(de::Error::custom(
                "members are a map of member name to value",
            )),
        }
    }
}

impl Serialize for Val {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Val::Null => s.serialize_none(),
            Val::Bool(b) => s.serialize_bool(*b),
            Val::Int(i) => s.serialize_i64(*i),
            Val::UInt(u) => s.serialize_u64(*u),
            Val::Real(x) => s.serialize_f32(*x),
            Val::Bits(b) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("bits", &format!("{b:#010x}"))?;
                m.end()
            }
            Val::Str(t) => s.serialize_str(t),
            Val::List(v) => {
                let mut q = s.serialize_seq(Some(v.len()))?;
                for x in v {
                    q.serialize_element(x)?;
                }
                q.end()
            }
            Val::Array(v, capacity) => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("items", &Val::List(v.clone()))?;
                m.serialize_entry("capacity", capacity)?;
                m.end()
            }
            Val::Record(m) => m.serialize(s),
            Val::Ref(h, at) => {
                let mut m = s.serialize_map(Some(1 + usize::from(at.is_some())))?;
                m.serialize_entry("ref", h)?;
                if let Some(at) = at {
                    m.serialize_entry("offset", at)?;
                }
                m.end()
            }
            Val::Section(sec, at) => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("section", sec)?;
                m.serialize_entry("offset", at)?;
                m.end()
            }
            Val::Bytes(b) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("bytes", &hex(b))?;
                m.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Val {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_any(ValVisitor)
    }
}

struct ValVisitor;

impl<'de> Visitor<'de> for ValVisitor {
    type Value = Val;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a Havok value: null, bool, number, string, list or map")
    }
    fn visit_unit<E: de::Error>(self) -> std::result::Result<Val, E> {
        Ok(Val::Null)
    }
    fn visit_none<E: de::Error>(self) -> std::result::Result<Val, E> {
        Ok(Val::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Val, D::Error> {
        Val::deserialize(d)
    }
    fn visit_bool<E: de::Error>(self, b: bool) -> std::result::Result<Val, E> {
        Ok(Val::Bool(b))
    }
    fn visit_i64<E: de::Error>(self, i: i64) -> std::result::Result<Val, E> {
        Ok(if i < 0 {
            Val::Int(i)
        } else {
            Val::UInt(i as u64)
        })
    }
    fn visit_u64<E: de::Error>(self, u: u64) -> std::result::Result<Val, E> {
        Ok(Val::UInt(u))
    }
    fn visit_f64<E: de::Error>(self, x: f64) -> std::result::Result<Val, E> {
        Ok(Val::Real(x as f32))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<Val, E> {
        Ok(Val::Str(s.to_owned()))
    }
    fn visit_string<E: de::Error>(self, s: String) -> std::result::Result<Val, E> {
        Ok(Val::Str(s))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> std::result::Result<Val, A::Error> {
        // No capacity from the input's claim: the elements are read one by one.
        let mut v = Vec::new();
        while let Some(x) = a.next_element()? {
            v.push(x);
        }
        Ok(Val::List(v))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> std::result::Result<Val, A::Error> {
        let mut v: Vec<(String, Val)> = Vec::new();
        while let Some((k, x)) = a.next_entry::<String, Val>()? {
            v.push((k, x));
        }
        Ok(special(&v).unwrap_or(Val::Record(Members(v))))
    }
}

/// The forms of a map that are not a record: `ref`, `section`, `bytes`, `bits`, `items`.
fn special(v: &[(String, Val)]) -> Option<Val> {
    let get = |k: &str| v.iter().find(|(n, _)| n == k).map(|(_, x)| x);
    let num = |x: Option<&Val>| match x {
        Some(Val::UInt(u)) => u32::try_from(*u).ok(),
        _ => None,
    };
    // In any order: a hand-edited dump, or one that went through a sorted map, has them so.
    let mut keys: Vec<&str> = v.iter().map(|(k, _)| k.as_str()).collect();
    keys.sort_unstable();
    match keys.as_slice() {
        ["ref"] => Some(Val::Ref(num(get("ref"))?, None)),
        ["offset", "ref"] => Some(Val::Ref(num(get("ref"))?, Some(num(get("offset"))?))),
        ["offset", "section"] => Some(Val::Section(num(get("section"))?, num(get("offset"))?)),
        ["bytes"] => match get("bytes") {
            Some(Val::Str(s)) => Some(Val::Bytes(unhex(s)?)),
            _ => None,
        },
        ["bits"] => match get("bits") {
            Some(Val::Str(s)) => u32::from_str_radix(s.trim_start_matches("0x"), 16)
                .ok()
                .map(Val::Bits),
            _ => None,
        },
        ["capacity", "items"] => match (get("items"), get("capacity")) {
            (Some(Val::List(items)), c) => Some(Val::Array(items.clone(), num(c)?)),
            _ => None,
        },
        _ => None,
    }
}

impl Val {
    fn kind(&self) -> &'static str {
        match self {
            Val::Null => "null",
            Val::Bool(_) => "a bool",
            Val::Int(_) | Val::UInt(_) => "an integer",
            Val::Real(_) | Val::Bits(_) => "a real",
            Val::Str(_) => "a string",
            Val::List(_) | Val::Array(..) => "a list",
            Val::Record(_) => "a record",
            Val::Ref(..) | Val::Section(..) => "a pointer",
            Val::Bytes(_) => "bytes",
        }
    }
}

/// A real as its shortest text where that reads back to the same bits through an `f64` (as
/// JSON and RON readers read numbers), else by its bits.
fn real(x: f32) -> Val {
    if x.is_finite() {
        let short: f64 = ryu::Buffer::new()
            .format_finite(x)
            .parse()
            .unwrap_or(f64::NAN);
        if (short as f32).to_bits() == x.to_bits() {
            return Val::Real(x);
        }
    }
    Val::Bits(x.to_bits())
}

// ---------------------------------------------------------------------------------------------
// Errors

/// Where in the dump a value sits: `objects[3] (handle 7, hkaSkeleton).bones[2].name`.
#[derive(Clone)]
struct At {
    path: String,
}

impl At {
    fn object(k: usize, o: &DumpObject) -> At {
        At {
            path: format!("objects[{k}] (handle {}, {})", o.handle, o.class),
        }
    }
    fn field(&self, name: &str) -> At {
        At {
            path: format!("{}.{name}", self.path),
        }
    }
    fn index(&self, i: usize) -> At {
        At {
            path: format!("{}[{i}]", self.path),
        }
    }
    fn err(&self, msg: impl std::fmt::Display) -> ValueError {
        ValueError::new(ErrorKind::Invalid(format!("dump {}: {msg}", self.path)))
    }
    fn wrong(&self, v: &Val, want: &str) -> ValueError {
        self.err(format!("{} where {want} belongs", v.kind()))
    }
}

fn top(msg: impl std::fmt::Display) -> ValueError {
    ValueError::new(ErrorKind::Invalid(format!("dump: {msg}")))
}

// ---------------------------------------------------------------------------------------------
// Tagfiles

/// The dump's spelling of a tagfile's values (the sink of the one walk,
/// [`crate::tagfile::walk`]): a [`Val`] tree, and the run facts of each member by its path
/// within its object.
struct TagDumper<'t> {
    table: &'t TypeTable,
    /// Per item: how many slots other than pointers name it.
    named: Vec<u8>,
    /// The first type index of each full name.
    first_of_name: HashMap<String, TypeIndex>,
    char_type: Option<TypeIndex>,
    /// The items of the SDK's enumerations, which the type table does not list.
    enums: EnumTable,
    /// The types whose members `enums` types ([`member_enum_owners`]).
    owners: HashMap<TypeIndex, &'static str>,
    /// The run facts of the object walked.
    kept: ObjectKept,
}

/// The tagfile of a Phive file as a [`Dump`] that keeps the wrapper (`kept.phive`): it builds
/// the whole file again. Enum members are named as [`dump_tagfile_with`] names them.
pub fn dump_phive(file: &TagFile<'_>, phive: &crate::tagfile::phive::PhiveWrapper, enums: &EnumTable) -> Result<Dump> {
    let mut dump = dump_tagfile_with(file, enums)?;
    dump.kept.phive = Some(phive.to_hex());
    Ok(dump)
}

/// A TAG0 file as a [`Dump`], its enum members as numbers (no enumeration items known: see
/// [`dump_tagfile_with`]).
pub fn dump_tagfile(file: &TagFile<'_>) -> Result<Dump> {
    dump_tagfile_with(file, &EnumTable::default())
}

/// A TAG0 file as a [`Dump`], each enum member by the name of its item where `enums` (the
/// SDK's, `ClassRegistry::tagfile_enums`) has one of its value, as a packfile's class
/// descriptions name them; [`build`] reads the names back through [`BuildOptions::tagfile_enums`].
pub fn dump_tagfile_with(file: &TagFile<'_>, enums: &EnumTable) -> Result<Dump> {
    let mut layouts = file.layouts();
    let items = Items::read(file, &mut layouts)?;
    let table = layouts.table();
    let mut d = TagDumper::new(table, enums);
    d.named = items.inline_referrers();
    for (i, _) in table.iter() {
        d.first_of_name.entry(table.full_name(i)).or_insert(i);
    }
    d.char_type = table.iter().find(|(_, t)| t.name == "char").map(|(i, _)| i);
    let mut walk = Walk::new(&items, layouts);
    let mut objects = Vec::new();
    for (i, it) in items.items.iter().enumerate().skip(1) {
        if !it.is_object() {
            continue;
        }
        let class = table.full_name(it.ty);
        d.kept = ObjectKept::default();
        if d.first_of_name.get(&class) != Some(&it.ty) {
            d.kept.ty = Some(it.ty);
        }
        if it.kind_byte != KIND_OBJECT << 4 {
            d.kept.kind = Some(it.kind_byte);
        }
        let members = d.object(&mut walk, i as u32, it)?;
        objects.push(DumpObject {
            handle: i as u32,
            class,
            members: Some(members),
            untyped: None,
            kept: std::mem::take(&mut d.kept),
        });
    }
    let mut kept = Kept {
        sdkv: Some(String::from_utf8_lossy(file.sdkv_raw).into_owned()),
        ..Kept::default()
    };
    if String::from_utf8_lossy(file.sdkv_raw).as_bytes() != file.sdkv_raw {
        return Err(top("an SDKV that is not UTF-8").into());
    }
    match &file.source {
        TypeSource::Own => {
            kept.types = Some(
                (1..table.types.len() as TypeIndex)
                    .filter_map(|i| table.record(i))
                    .collect(),
            )
        }
        TypeSource::Compendium { id, rest } => {
            kept.compendium = Some(hex(&id.0));
            kept.tcrf = Some(hex(rest));
        }
    }
    if !file.trailing.is_empty() {
        kept.trailing = Some(hex(file.trailing));
    }
    Ok(Dump {
        format: TAGFILE.to_owned(),
        sdk: file.sdk_version(),
        layout: None,
        root: objects.first().map(|o| o.handle),
        objects,
        kept,
    })
}

/// The members of item `item` of a tagfile's items, decoded through `table` as
/// [`dump_tagfile_with`] decodes each object, enum members named by `enums` (what
/// [`crate::Document::members`] gives for a tagfile object).
pub(crate) fn tagfile_members(items: &Items, table: &TypeTable, item: u32, enums: &EnumTable) -> std::result::Result<Members, ValueError> {
    let it = items.items.get(item as usize).filter(|_| item != 0).ok_or_else(|| {
        ValueError::new(ErrorKind::IndexOutOfRange { what: "item", index: item.into(), count: items.items.len() as u64 })
    })?;
    TagDumper::new(table, enums).object(&mut Walk::new(items, Layouts::new(table)), item, it)
}

/// The members of packfile object `h` (`None` for an untyped object), as [`dump_packfile`]
/// gives them.
pub(crate) fn packfile_members(doc: &PackDocument, h: Handle) -> std::result::Result<Option<Members>, ValueError> {
    let o = doc.objects.get(h.0 as usize).ok_or_else(|| {
        ValueError::new(ErrorKind::IndexOutOfRange { what: "object", index: h.0.into(), count: doc.objects.len() as u64 })
    })?;
    let Body::Typed(values) = &o.body else { return Ok(None) };
    let ms = members_of(&doc.classes, &o.class);
    if ms.len() != values.len() {
        return Err(top(format!("object {} ({}): {} values for {} members", h.0, o.class, values.len(), ms.len())));
    }
    Ok(Some(pack_members(&mut PackOut::new(&doc.classes), &o.class, values, h.0 as usize)?))
}

/// The enumeration an `hkEnum<E, S>` or `hkFlags<E, S>` type names (`E`, by full name), when
/// `enums` has items at all.
fn enum_of(table: &TypeTable, enums: &EnumTable, ty: TypeIndex) -> Option<String> {
    if enums.enums.is_empty() {
        return None;
    }
    let t = table.get(ty)?;
    if t.name != "hkEnum" && t.name != "hkFlags" {
        return None;
    }
    table.params_of(t).iter().find_map(|p| match (p.name.as_str(), &p.arg) {
        ("tENUM" | "tBITS", TemplateArg::Type(e)) => Some(table.full_name(*e)),
        _ => None,
    })
}

/// The types of `table` that `enums` types members of (`hknpBodyCinfo` for
/// `hknpBodyCinfo.motionType`), by index: found once per file, so that a record's members are
/// looked up without naming its type.
fn member_enum_owners(table: &TypeTable, enums: &EnumTable) -> HashMap<TypeIndex, &'static str> {
    let mut out = HashMap::new();
    if enums.members.is_empty() {
        return out;
    }
    for (i, t) in table.iter() {
        if let Some(m) = enums.members.iter().find(|m| t.name == m.class) {
            if table.full_name(i) == m.class {
                out.insert(i, m.class);
            }
        }
    }
    out
}

/// An integer as the name of enumeration `e`'s item of its value, where it has one.
fn name_item(enums: &EnumTable, e: &str, v: Val) -> Val {
    let n = match v {
        Val::Int(i) => i,
        Val::UInt(u) => u as i64,
        other => return other,
    };
    match enums.name_of(e, n) {
        Some(name) => Val::Str(name.to_owned()),
        None => v,
    }
}

/// The value of an item name (or names joined by `|`, for flags) of enumeration `e`.
fn item_value(enums: &EnumTable, e: Option<&str>, s: &str, at: &At) -> std::result::Result<i64, ValueError> {
    let e = e.filter(|e| enums.items(e).is_some()).ok_or_else(|| {
        at.err(format!("{s:?} where a number belongs (no enumeration items known for the member)"))
    })?;
    let mut n = 0i64;
    for part in s.split('|') {
        let part = part.trim();
        n |= enums.value_of(e, part).ok_or_else(|| at.err(format!("{part:?} is no item of {e}")))?;
    }
    Ok(n)
}

impl<'t> TagDumper<'t> {
    fn new(table: &'t TypeTable, enums: &EnumTable) -> Self {
        TagDumper {
            table,
            named: Vec::new(),
            first_of_name: HashMap::new(),
            char_type: None,
            enums: *enums,
            owners: member_enum_owners(table, enums),
            kept: ObjectKept::default(),
        }
    }

    /// The members of object `i` (the value of an object whose type is no record under `""`).
    fn object(&mut self, walk: &mut Walk<'_, '_>, i: u32, it: &ItemData) -> std::result::Result<Members, ValueError> {
        Ok(match walk.object(self, it.ty, &it.bytes).map_err(|e| e.in_context(format!("object {i}")))? {
            Val::Record(m) => m,
            other => Members(vec![(String::new(), other)]),
        })
    }

    /// The run facts of item `i` that differ from the stock ones (`ty`: the element type the
    /// member's type gives).
    fn run_facts(&mut self, path: &str, i: u32, run: &ItemData, ty: Option<TypeIndex>, empty_run: bool) {
        let facts = RunKept {
            ty: (Some(run.ty) != ty).then_some(run.ty),
            kind: (run.kind_byte != KIND_RUN << 4).then_some(run.kind_byte),
            share: (self.named.get(i as usize).copied().unwrap_or(0) > 1).then_some(i),
            empty_run,
        };
        if facts != RunKept::default() {
            self.kept.runs.insert(path.to_owned(), facts);
        }
    }
}

impl TagSink for TagDumper<'_> {
    type Out = Val;
    /// A list's elements or a record's members.
    type Acc = (Vec<Val>, Vec<(String, Val)>);
    const PATHS: bool = true;
    const FLAT_MATH: bool = true;

    fn scalar(&mut self, s: Scalar<'_>, path: &str) -> std::result::Result<Val, ValueError> {
        Ok(match s {
            Scalar::Bool(_, b, _) if b <= 1 => Val::Bool(b == 1),
            Scalar::Bool(ty, _, v) | Scalar::Int(ty, v) => {
                let named = enum_of(self.table, &self.enums, ty).and_then(|e| self.enums.name_of(&e, v as i64).map(str::to_owned));
                match named {
                    Some(name) => Val::Str(name),
                    None if v < 0 => Val::Int(v as i64),
                    None => Val::UInt(v as u64),
                }
            }
            Scalar::Real(x) => real(x),
            Scalar::Null => Val::Null,
            // An array without elements is `[]` whether or not it has a run (as in a packfile);
            // a run of none is a kept fact.
            Scalar::NullArray => Val::List(Vec::new()),
            Scalar::Pointer(i) => Val::Ref(i, None),
            Scalar::Str(i, run) => {
                self.run_facts(path, i, run, self.char_type, false);
                match run.bytes.strip_suffix(&[0]).and_then(|t| std::str::from_utf8(t).ok()).filter(|t| !t.contains('\0')) {
                    Some(t) => Val::Str(t.to_owned()),
                    None => Val::Bytes(run.bytes.to_vec()),
                }
            }
            Scalar::Bytes(b) => Val::Bytes(b.to_vec()),
        })
    }

    fn begin(&mut self, open: &Open<'_>, path: &str) -> std::result::Result<Self::Acc, ValueError> {
        let n = match *open {
            Open::Run(i, run, elem) => {
                self.run_facts(path, i, run, Some(elem), run.count == 0);
                run.count as usize
            }
            Open::Record(n) => n,
            Open::Fixed { count, .. } => count,
            Open::Math => 16,
        };
        Ok(match open {
            Open::Record(_) => (Vec::new(), Vec::with_capacity(n)),
            _ => (Vec::with_capacity(n.min(1 << 16)), Vec::new()),
        })
    }

    fn push(&mut self, acc: &mut Self::Acc, field: Option<(TypeIndex, &Field)>, v: Val) {
        match field {
            Some((owner, f)) => {
                let v = match self.owners.get(&owner).and_then(|c| self.enums.member(c, f.name.as_str())) {
                    Some(e) => name_item(&self.enums, e, v),
                    None => v,
                };
                acc.1.push((f.name.to_string(), v));
            }
            None => acc.0.push(v),
        }
    }

    fn end(&mut self, open: &Open<'_>, acc: Self::Acc) -> std::result::Result<Val, ValueError> {
        Ok(match open {
            Open::Record(_) => Val::Record(Members(acc.1)),
            _ => Val::List(acc.0),
        })
    }
}

/// Item bytes a dump may describe: this many per byte of its text, plus [`BYTES_SLACK`].
const BYTES_PER_TEXT_BYTE: usize = 16;
const BYTES_SLACK: usize = 1 << 20;

/// A dump's values as the tagfile walk in ([`crate::tagfile::walk::Build`]) reads them, each
/// error at its place in the dump.
struct DumpSource<'v, 't> {
    table: &'t TypeTable,
    enums: EnumTable,
    owners: HashMap<TypeIndex, &'static str>,
    /// Dump handle -> item index.
    objects: HashMap<u32, u32>,
    /// The object read: its place and its run facts.
    at: At,
    kept: &'v ObjectKept,
}

/// A dump value, or the members of an object.
#[derive(Clone, Copy)]
enum Node<'v> {
    Val(&'v Val),
    Members(&'v Members),
}

impl<'v> Node<'v> {
    fn val(self) -> Option<&'v Val> {
        match self {
            Node::Val(v) => Some(v),
            Node::Members(_) => None,
        }
    }
}

impl DumpSource<'_, '_> {
    fn at(&self, path: &str) -> At {
        match path.as_bytes().first() {
            None => self.at.clone(),
            Some(b'[') => At { path: format!("{}{path}", self.at.path) },
            Some(_) => self.at.field(path),
        }
    }

    fn facts(&self, path: &str) -> RunFacts {
        let f = self.kept.runs.get(path);
        RunFacts {
            elem: f.and_then(|f| f.ty),
            kind: f.and_then(|f| f.kind),
            share: f.and_then(|f| f.share).map(|s| s.to_string()),
            null_if_empty: !f.is_some_and(|f| f.empty_run),
        }
    }
}

impl<'v> TagSource<'v> for DumpSource<'v, '_> {
    type Node = Node<'v>;
    const TEXT: &'static str = "dump";

    fn err(&self, _: Node<'v>, path: &str, msg: impl std::fmt::Display) -> ValueError {
        self.at(path).err(msg)
    }
    fn what(&self, n: Node<'v>) -> String {
        n.val().map_or("a record", Val::kind).to_owned()
    }
    fn bytes(&self, n: Node<'v>, _: &str, string: bool) -> Got<Cow<'v, [u8]>> {
        Ok(match n.val() {
            Some(Val::Bytes(b)) if !string => Some(Cow::Borrowed(b)),
            _ => None,
        })
    }
    fn null(&self, n: Node<'v>) -> bool {
        matches!(n.val(), Some(Val::Null))
    }
    fn bool(&self, n: Node<'v>, _: &str) -> Got<u8> {
        Ok(match n.val() {
            Some(Val::Bool(b)) => Some(u8::from(*b)),
            _ => None,
        })
    }
    fn int(&self, n: Node<'v>, path: &str, ty: TypeIndex, field: Option<(TypeIndex, &str)>, _: bool) -> Got<i128> {
        Ok(match n.val() {
            Some(Val::Int(i)) => Some(i128::from(*i)),
            Some(Val::UInt(u)) => Some(i128::from(*u)),
            Some(Val::Str(s)) => {
                // By the enumeration of the member (a bare integer the SDK's enums type), else of
                // its `hkEnum`/`hkFlags` type.
                let member = field.and_then(|(owner, name)| self.enums.member(self.owners.get(&owner)?, name));
                let e = member.map(str::to_owned).or_else(|| enum_of(self.table, &self.enums, ty));
                Some(i128::from(item_value(&self.enums, e.as_deref(), s, &self.at(path))?))
            }
            _ => None,
        })
    }
    fn real(&self, n: Node<'v>, _: &str) -> Got<f32> {
        Ok(n.val().filter(|v| is_number(v)).map(to_f32))
    }
    fn reals(&self, n: Node<'v>, path: &str) -> Got<Vec<f32>> {
        let Some(Val::List(items)) = n.val() else { return Ok(None) };
        let at = self.at(path);
        let reals = items.iter().enumerate().map(|(k, x)| if is_number(x) { Ok(to_f32(x)) } else { Err(at.index(k).wrong(x, "a real")) });
        Ok(Some(reals.collect::<std::result::Result<_, _>>()?))
    }
    fn pointer(&self, n: Node<'v>, path: &str) -> Got<u32> {
        let Some(Val::Ref(h, None)) = n.val() else { return Ok(None) };
        let i = self.objects.get(h).ok_or_else(|| self.at(path).err(format!("a pointer to handle {h}, which names no object")))?;
        Ok(Some(*i))
    }
    fn string(&self, n: Node<'v>, path: &str) -> Got<(Cow<'v, [u8]>, RunFacts)> {
        let bytes = match n.val() {
            Some(Val::Str(t)) => Cow::Owned([t.as_bytes(), &[0]].concat()),
            Some(Val::Bytes(b)) => Cow::Borrowed(b.as_slice()),
            _ => return Ok(None),
        };
        Ok(Some((bytes, self.facts(path))))
    }
    fn list(&self, n: Node<'v>, path: &str) -> Got<(Vec<Node<'v>>, RunFacts)> {
        let Some(Val::List(items)) = n.val() else { return Ok(None) };
        Ok(Some((items.iter().map(Node::Val).collect(), self.facts(path))))
    }
    fn fields(&self, n: Node<'v>, path: &str, fields: &[(TypeIndex, &Field)]) -> Got<Vec<(&'v str, Node<'v>)>> {
        let members = match n {
            Node::Members(m) | Node::Val(Val::Record(m)) => m,
            _ => return Ok(None),
        };
        members.check(fields.iter().map(|(_, f)| f.name.as_str()), &self.at(path))?;
        Ok(Some(members.0.iter().map(|(k, v)| (k.as_str(), Node::Val(v))).collect()))
    }
}

fn is_number(v: &Val) -> bool {
    matches!(v, Val::Real(_) | Val::Bits(_) | Val::Int(_) | Val::UInt(_))
}

/// `numbers`, when given, is filled with each dump object's handle in the file built (in the
/// dump's order): the writer numbers the items in the order of its walk from the root.
fn build_tagfile(dump: &Dump, compendia: &CompendiumSet, enums: &EnumTable, text_len: usize, numbers: Option<&mut Vec<u32>>) -> Result<Vec<u8>> {
    let kept = &dump.kept;
    let sdkv = kept
        .sdkv
        .clone()
        .ok_or_else(|| top("kept.sdkv is missing"))?
        .into_bytes();
    let trailing = match &kept.trailing {
        Some(t) => unhex(t).ok_or_else(|| top("kept.trailing is not hex"))?,
        None => Vec::new(),
    };
    let phive = match &kept.phive {
        Some(t) => Some(crate::tagfile::phive::PhiveWrapper::from_hex(t).map_err(|e| {
            top(format!("kept.phive: byte {:#x} of the wrapper: {}", e.offset().unwrap_or(0), e.kind()))
        })?),
        None => None,
    };
    let compendium = match &kept.compendium {
        Some(c) => {
            let id: [u8; 8] = unhex(c)
                .and_then(|b| b.try_into().ok())
                .ok_or_else(|| top("kept.compendium is not 8 bytes of hex"))?;
            let rest = unhex(kept.tcrf.as_deref().unwrap_or(""))
                .ok_or_else(|| top("kept.tcrf is not hex"))?;
            Some((CompendiumId(id), rest))
        }
        None => None,
    };
    let types: TypeTable = match (&kept.types, &compendium) {
        (Some(records), _) => TypeTable::from_records(
            std::iter::once(TypeRecord::default()).chain(records.iter().cloned()),
        ),
        (None, Some((id, _))) => compendia
            .get(id)
            .map(|t| (**t).clone())
            .ok_or_else(|| ValueError::new(ErrorKind::MissingCompendium(id.to_string())))?,
        (None, None) => return Err(top("kept holds neither types nor a compendium").into()),
    };
    let mut first_of_name = HashMap::new();
    for (i, _) in types.iter() {
        first_of_name.entry(types.full_name(i)).or_insert(i);
    }
    if dump.root.is_some() && dump.root != dump.objects.first().map(|o| o.handle) {
        return Err(top("the root of a tagfile is its first object").into());
    }
    let mut objects = HashMap::new();
    let mut heads = Vec::with_capacity(dump.objects.len());
    for (k, o) in dump.objects.iter().enumerate() {
        let at = At::object(k, o);
        if objects.insert(o.handle, k as u32 + 1).is_some() {
            return Err(at.err("a second object with this handle").into());
        }
        let ty = match o.kept.ty {
            Some(t) if (t as usize) < types.types.len() && t != 0 => t,
            Some(t) => return Err(at.err(format!("type index {t} is not in the table")).into()),
            None => *first_of_name.get(&o.class).ok_or_else(|| at.err(format!("unknown class {:?}", o.class)))?,
        };
        if o.untyped.is_some() {
            return Err(at.err("a tagfile object has members, not untyped bytes").into());
        }
        heads.push((ty, o.kept.kind.unwrap_or(KIND_OBJECT << 4)));
    }
    let budget = text_len.saturating_mul(BYTES_PER_TEXT_BYTE).saturating_add(BYTES_SLACK);
    let mut b = Build::new(&types, budget, heads.into_iter());
    let none = ObjectKept::default();
    let mut src = DumpSource { table: &types, enums: *enums, owners: member_enum_owners(&types, enums), objects, at: At { path: String::new() }, kept: &none };
    for (k, o) in dump.objects.iter().enumerate() {
        src.at = At::object(k, o);
        src.kept = &o.kept;
        let members = o.members.as_ref().ok_or_else(|| src.at.err("no members"))?;
        let n = match members.0.as_slice() {
            [(name, v)] if name.is_empty() => Node::Val(v),
            _ => Node::Members(members),
        };
        b.object(&src, k + 1, n)?;
    }
    let xml = crate::tagfile::xml::XmlTagfile {
        sdkv,
        types: types.clone(),
        items: Items { items: b.items },
        compendium,
        trailing,
        phive,
    };
    if let Some(out) = numbers {
        let plan = crate::tagfile::write::plan(&xml.items, &mut Layouts::new(&xml.types))?;
        *out = (1..=dump.objects.len()).map(|k| plan.new_index.get(k).copied().unwrap_or(0)).collect();
    }
    xml.write_file(compendia)
}

/// [`build`] of a tagfile dump, with each of its objects' handle in the file built, in the
/// dump's order (what [`crate::Document::set_members_renumbered`] maps handles by).
pub(crate) fn build_tagfile_numbered(dump: &Dump, options: &BuildOptions<'_>, text_len: usize) -> Result<(Vec<u8>, Vec<u32>)> {
    let mut numbers = Vec::new();
    let empty = CompendiumSet::default();
    let bytes = build_tagfile(dump, options.compendia.unwrap_or(&empty), &options.tagfile_enums, text_len, Some(&mut numbers))?;
    Ok((bytes, numbers))
}

fn to_f32(v: &Val) -> f32 {
    match *v {
        Val::Real(x) => x,
        Val::Bits(b) => f32::from_bits(b),
        Val::Int(i) => i as f32,
        Val::UInt(u) => u as f32,
        _ => f32::NAN,
    }
}

// ---------------------------------------------------------------------------------------------
// Packfiles

/// A packfile document as a [`Dump`].
pub fn dump_packfile(doc: &PackDocument) -> Result<Dump> {
    let container = container_of(doc).to_bytes()?;
    let names = doc.file.class_names();
    let names_index = doc
        .file
        .section_index(crate::packfile::file::CLASSNAMES)
        .unwrap_or(0) as u32;
    let mut objects = Vec::with_capacity(doc.objects.len());
    let mut walk = PackOut::new(&doc.classes);
    for (i, o) in doc.objects.iter().enumerate() {
        let mut kept = ObjectKept::default();
        if names.offset_of(&o.class).map(|off| (names_index, off)) != Some(o.class_ref) {
            kept.class_ref = Some(o.class_ref);
        }
        kept.align8 = o.array_align == ArrayAlign::Eight;
        kept.places = o.kept.places.clone();
        kept.end = o.kept.end;
        kept.padding = o.kept.padding.iter().map(|(at, b)| (*at, hex(b))).collect();
        let (members, untyped) = match &o.body {
            Body::Typed(values) => {
                let ms = members_of(&doc.classes, &o.class);
                if ms.len() != values.len() {
                    return Err(top(format!(
                        "object {i} ({}): {} values for {} members",
                        o.class,
                        values.len(),
                        ms.len()
                    ))
                    .into());
                }
                (Some(pack_members(&mut walk, &o.class, values, i)?), None)
            }
            Body::Untyped(u) => (
                None,
                Some(UntypedObject {
                    bytes: hex(&u.bytes),
                    local: u.local.iter().map(|f| (f.src, f.dst)).collect(),
                    global: u.global.iter().map(|(s, r)| (*s, ref_val(*r))).collect(),
                }),
            ),
        };
        objects.push(DumpObject {
            handle: i as u32,
            class: o.class.clone(),
            members,
            untyped,
            kept,
        });
    }
    Ok(Dump {
        format: PACKFILE.to_owned(),
        sdk: crate::packfile::sdk_of_contents_version(&doc.file.contents_version()),
        layout: Some(doc.layout().to_string()),
        root: doc.root.map(|h| h.0),
        objects,
        kept: Kept {
            container: Some(hex(&container)),
            ..Kept::default()
        },
    })
}

/// `doc`'s container with `__data__` emptied and no root offset.
fn container_of(doc: &PackDocument) -> PackFile<'static> {
    let mut file = doc.file.clone();
    file.header.contents_section_offset = 0;
    if let Some(s) = file.sections.get_mut(doc.data_index) {
        s.body = crate::packfile::file::SectionBody::Data(std::borrow::Cow::Owned(Vec::new()));
        s.local.clear();
        s.global.clear();
        s.virtuals.clear();
    }
    file
}

/// A class's members, its ancestors' first, with the hidden bytes where the class has them.
fn members_of(classes: &ClassSet, class: &str) -> Vec<Member> {
    objects::members_in(classes, class).cloned().collect()
}

fn ref_val(r: Ref) -> Val {
    match r {
        Ref::Null => Val::Null,
        Ref::Object(h) => Val::Ref(h.0, None),
        Ref::Inside(h, at) => Val::Ref(h.0, Some(at)),
        Ref::Section(s, at) => Val::Section(s, at),
    }
}

/// The members of packfile object `i` (`values`, of `class`) as dump values, through the walk
/// out (errors name `objects[i] (handle i, class)` and the member path).
fn pack_members(walk: &mut PackOut<'_>, class: &str, values: &[MemberValue], i: usize) -> std::result::Result<Members, ValueError> {
    let root = format!("objects[{i}] (handle {i}, {class})");
    let mut sink = PackVals { stack: vec![Frame::Record(Vec::with_capacity(values.len()))] };
    walk.object(&mut sink, class, values, &Path::Root(&root))?;
    Ok(match sink.stack.pop() {
        Some(Frame::Record(ms)) => Members(ms),
        _ => Members(Vec::new()),
    })
}

/// The dump's spelling of the values the walk out ([`PackOut`]) gives: the records and lists
/// being made, innermost last.
struct PackVals {
    stack: Vec<Frame>,
}

enum Frame {
    /// A record's members (the last one's value is set when it comes).
    Record(Vec<(String, Val)>),
    /// A list's items, and an hkArray's capacity word where it is not `len | 0x80000000`.
    List(Vec<Val>, Option<u32>),
}

impl PackVals {
    fn put(&mut self, v: Val) {
        match self.stack.last_mut() {
            Some(Frame::Record(ms)) => {
                if let Some(last) = ms.last_mut() {
                    last.1 = v;
                }
            }
            Some(Frame::List(items, _)) => items.push(v),
            None => {}
        }
    }
}

impl PackSink for PackVals {
    fn member(&mut self, m: &Member, _: &MemberValue, _: &Path<'_>) -> std::result::Result<bool, ValueError> {
        if let Some(Frame::Record(ms)) = self.stack.last_mut() {
            ms.push((m.name.clone(), Val::Null));
        }
        Ok(true)
    }

    fn open(&mut self, held: Held) {
        match held {
            Held::Array { len, capacity, .. } => self.stack.push(Frame::List(Vec::with_capacity(len), capacity.filter(|&c| c != len as u32 | 0x8000_0000))),
            Held::CArray { len, .. } => self.stack.push(Frame::List(Vec::with_capacity(len), None)),
            Held::One | Held::Hidden | Held::Struct => {}
        }
    }

    fn close(&mut self, held: Held) {
        if let Held::Array { .. } | Held::CArray { .. } = held {
            if let Some(Frame::List(items, capacity)) = self.stack.pop() {
                self.put(match capacity {
                    Some(c) => Val::Array(items, c),
                    None => Val::List(items),
                });
            }
        }
    }

    fn element(&mut self, _: usize, _: usize, _: Elem) {}

    fn element_end(&mut self, _: usize, _: usize, _: Elem) {}

    fn record(&mut self, _: &str) {
        self.stack.push(Frame::Record(Vec::new()));
    }

    fn record_end(&mut self) {
        if let Some(Frame::Record(ms)) = self.stack.pop() {
            self.put(Val::Record(Members(ms)));
        }
    }

    fn void(&mut self) {
        self.put(Val::Null);
    }

    fn bool(&mut self, b: u8) {
        self.put(if b <= 1 { Val::Bool(b == 1) } else { Val::UInt(u64::from(b)) });
    }

    fn int(&mut self, i: i64) {
        self.put(if i < 0 { Val::Int(i) } else { Val::UInt(i as u64) });
    }

    fn uint(&mut self, u: u64) {
        self.put(Val::UInt(u));
    }

    fn enumeration(&mut self, n: Int, e: EnumOf<'_>) {
        // The name of the item of that value, where one has it (flags too: one item's value).
        let name = |v: i64| e.items?.iter().find(|(x, _)| *x == v).map(|(_, s)| Val::Str(s.clone()));
        self.put(match n {
            Int::Signed(i) => name(i).unwrap_or(if i < 0 { Val::Int(i) } else { Val::UInt(i as u64) }),
            Int::Unsigned(u) => i64::try_from(u).ok().and_then(name).unwrap_or(Val::UInt(u)),
        });
    }

    fn real(&mut self, x: f32) {
        self.put(real(x));
    }

    fn reals(&mut self, _: MemberType, f: &[f32]) {
        self.put(Val::List(f.iter().map(|x| real(*x)).collect()));
    }

    fn pointer(&mut self, r: &Ref, _: &Path<'_>) -> std::result::Result<(), ValueError> {
        self.put(ref_val(*r));
        Ok(())
    }

    fn variant(&mut self, object: &Ref, class: &Ref, _: &Path<'_>) -> std::result::Result<(), ValueError> {
        self.put(Val::List(vec![ref_val(*object), ref_val(*class)]));
        Ok(())
    }

    fn string(&mut self, s: Option<&[u8]>, _: &Path<'_>) -> std::result::Result<(), ValueError> {
        self.put(match s {
            None => Val::Null,
            Some(b) => match std::str::from_utf8(b) {
                Ok(t) if !t.contains('\0') => Val::Str(t.to_owned()),
                _ => Val::Bytes(b.to_vec()),
            },
        });
        Ok(())
    }

    fn hidden(&mut self, bytes: &[u8]) {
        self.put(Val::Bytes(bytes.to_vec()));
    }
}

/// The class set a dump's typed objects need: per class, the first source with the signature
/// `__classnames__` states (the first source also where it computes none), as a packfile reader
/// picks it.
fn classes_for(
    dump: &Dump,
    file: &PackFile<'_>,
    sources: &[&dyn ClassSource],
) -> std::result::Result<ClassSet, ValueError> {
    let rules = file.layout();
    let names = file.class_names();
    let mut classes = ClassSet::default();
    let mut done: HashMap<&str, ()> = HashMap::new();
    for (k, o) in dump.objects.iter().enumerate() {
        if o.members.is_none() || done.insert(o.class.as_str(), ()).is_some() {
            continue;
        }
        let at = At::object(k, o);
        let cn = names.get(&o.class).ok_or_else(|| {
            at.err(format!(
                "class {:?} is not in the container's __classnames__",
                o.class
            ))
        })?;
        let ok = objects::choose_class(sources, &cn.name, cn.signature, rules, &mut classes);
        if !ok {
            return Err(at.err(format!(
                "unknown class {:?} (signature {:#010x}): no class description has it",
                o.class, cn.signature
            )));
        }
    }
    Ok(classes)
}

struct PackBuilder<'a> {
    classes: &'a ClassSet,
    count: u32,
    /// The body length of each section of the container (`None` for `__data__`, which pointers
    /// name by handle).
    sections: Vec<Option<u32>>,
}

static NO_ITEMS: Vec<Val> = Vec::new();

/// How far into an object a pointer may point: beyond any object a dump's text could describe
/// within the writer's 32-bit offsets.
const MAX_INSIDE: u32 = 1 << 30;

fn build_packfile(dump: &Dump, sources: &[&dyn ClassSource]) -> Result<Vec<u8>> {
    let container = unhex(
        dump.kept
            .container
            .as_deref()
            .ok_or_else(|| top("kept.container is missing"))?,
    )
    .ok_or_else(|| top("kept.container is not hex"))?;
    let file = PackFile::read(&container).map_err(|e| top(format!("kept.container: {e}")))?;
    if let Some(l) = &dump.layout {
        if LayoutRules::parse(l) != Some(file.layout()) {
            return Err(top(format!(
                "layout {l} is not the container's {}",
                file.layout()
            ))
            .into());
        }
    }
    let classes = classes_for(dump, &file, sources)?;
    let names_index = file
        .section_index(crate::packfile::file::CLASSNAMES)
        .unwrap_or(0) as u32;
    let offsets: HashMap<String, u32> = file
        .class_names()
        .entries
        .iter()
        .filter_map(|c| Some((c.name.clone(), file.class_names().offset_of(&c.name)?)))
        .collect();
    let data_index = file.section_index(crate::packfile::file::DATA);
    let sections = file
        .sections
        .iter()
        .enumerate()
        .map(|(i, s)| (Some(i) != data_index).then(|| s.body_len() as u32))
        .collect();
    let mut doc = PackDocument::from_file_with(file, &[])?;
    let count = u32::try_from(dump.objects.len()).map_err(|_| top("more than 2^32 objects"))?;
    let mut b = PackBuilder {
        classes: &classes,
        count,
        sections,
    };
    let walk = PackWalk;
    let mut objects = Vec::with_capacity(dump.objects.len());
    for (k, o) in dump.objects.iter().enumerate() {
        let at = At::object(k, o);
        if o.handle as usize != k {
            return Err(at
                .err(format!(
                    "handle {} where the {k}th object's handle is {k}",
                    o.handle
                ))
                .into());
        }
        let body = match (&o.members, &o.untyped) {
            (Some(members), None) => {
                Body::Typed(walk.object(&mut b, &o.class, &PackNode::Members(members, at.clone()))?)
            }
            (None, Some(u)) => Body::Untyped(b.untyped(u, &at)?),
            _ => {
                return Err(at
                    .err("an object has members or untyped bytes, one of them")
                    .into())
            }
        };
        let class_ref = match (o.kept.class_ref, offsets.get(&o.class)) {
            (Some(r), _) => r,
            (None, Some(&off)) => (names_index, off),
            (None, None) => {
                return Err(at
                    .err(format!(
                        "class {:?} is not in the container's __classnames__",
                        o.class
                    ))
                    .into())
            }
        };
        let mut padding = Vec::with_capacity(o.kept.padding.len());
        for (off, h) in &o.kept.padding {
            padding.push((
                *off,
                unhex(h).ok_or_else(|| at.field("kept.padding").err("not hex"))?,
            ));
        }
        objects.push(objects::Object {
            class: o.class.clone(),
            class_ref,
            body,
            array_align: if o.kept.align8 {
                ArrayAlign::Eight
            } else {
                ArrayAlign::Sixteen
            },
            kept: objects::Kept {
                places: o.kept.places.clone(),
                end: o.kept.end,
                padding,
            },
        });
    }
    doc.root = match dump.root {
        Some(r) if r < count => Some(Handle(r)),
        Some(r) => return Err(top(format!("root {r} names no object")).into()),
        None => None,
    };
    doc.objects = objects;
    doc.classes = classes;
    doc.write()
}

/// A place in a dump's objects: an object's members or a value, and its path.
enum PackNode<'v> {
    Members(&'v Members, At),
    Val(&'v Val, At),
}

impl PackNode<'_> {
    fn at(&self) -> &At {
        match self {
            PackNode::Members(_, at) | PackNode::Val(_, at) => at,
        }
    }
}

impl PackBuilder<'_> {
    /// An object's bytes as the dump gives them, with fixups within them.
    fn untyped(&self, u: &UntypedObject, at: &At) -> std::result::Result<Untyped, ValueError> {
        let bytes = unhex(&u.bytes).ok_or_else(|| at.field("untyped.bytes").err("not hex"))?;
        let len = bytes.len() as u64;
        for (f, &(src, dst)) in u.local.iter().enumerate() {
            if u64::from(src) + 4 > len || u64::from(dst) > len {
                return Err(at
                    .field("untyped.local")
                    .index(f)
                    .err(format!("a fixup ({src}, {dst}) outside the object's {len} bytes")));
            }
        }
        let mut global = Vec::with_capacity(u.global.len());
        for (g, (src, r)) in u.global.iter().enumerate() {
            let here = at.field("untyped.global").index(g);
            if u64::from(*src) + 4 > len {
                return Err(here.err(format!("a fixup at {src} outside the object's {len} bytes")));
            }
            global.push((*src, self.pointer(r, &here)?));
        }
        Ok(Untyped {
            bytes,
            local: u
                .local
                .iter()
                .map(|&(src, dst)| crate::packfile::file::LocalFixup { src, dst })
                .collect(),
            global,
        })
    }

    fn pointer(&self, v: &Val, at: &At) -> std::result::Result<Ref, ValueError> {
        let check = |h: u32| {
            if h < self.count {
                Ok(Handle(h))
            } else {
                Err(at.err(format!("a pointer to handle {h}, which names no object")))
            }
        };
        Ok(match *v {
            Val::Null => Ref::Null,
            Val::Ref(h, None) => Ref::Object(check(h)?),
            Val::Ref(h, Some(off)) if off < MAX_INSIDE => Ref::Inside(check(h)?, off),
            Val::Ref(h, Some(off)) => {
                return Err(at.err(format!(
                    "a pointer {off} bytes into handle {h}, past any object"
                )))
            }
            Val::Section(s, off) => match self.sections.get(s as usize) {
                Some(Some(len)) if off <= *len => Ref::Section(s, off),
                _ => {
                    return Err(at.err(format!(
                        "a pointer to {off:#x} in section {s}, which the container does not hold"
                    )))
                }
            },
            _ => return Err(at.wrong(v, "a pointer")),
        })
    }

    fn real_at(&self, v: &Val, at: &At) -> std::result::Result<f32, ValueError> {
        match v {
            Val::Real(_) | Val::Bits(_) | Val::Int(_) | Val::UInt(_) => Ok(to_f32(v)),
            _ => Err(at.wrong(v, "a real")),
        }
    }

    /// An enum item's name (or names joined by `|`) as its number.
    fn enum_number(&self, m: &Member, s: &str, at: &At) -> std::result::Result<i64, ValueError> {
        let items = m
            .enumeration
            .as_deref()
            .and_then(|e| self.classes.enums.get(e))
            .ok_or_else(|| {
                at.err(format!(
                    "{s:?} where a number belongs (the member names no enum items)"
                ))
            })?;
        let mut n = 0i64;
        for part in s.split('|') {
            let part = part.trim();
            let v = items
                .iter()
                .find(|(_, name)| name == part)
                .map(|(v, _)| *v)
                .ok_or_else(|| {
                    at.err(format!(
                        "{part:?} is no item of {}",
                        m.enumeration.as_deref().unwrap_or("?")
                    ))
                })?;
            n |= v;
        }
        Ok(n)
    }
}

/// The dump's value tree as a source of the packfile walk in: a dump value of the wrong shape is
/// an error at its dump path.
impl<'a> PackSource for PackBuilder<'a> {
    type Node = PackNode<'a>;
    type Rec = (&'a Members, At);
    type Seq = (std::iter::Enumerate<std::slice::Iter<'a, Val>>, At, usize, Option<u32>);

    fn err(&self, n: &PackNode<'a>, msg: &str) -> ValueError {
        n.at().err(msg)
    }

    fn members(&mut self, _n: &PackNode<'a>, class: &str) -> std::result::Result<std::rc::Rc<[Member]>, ValueError> {
        Ok(crate::packfile::objects::members_in(self.classes, class).cloned().collect())
    }

    fn record(&mut self, n: &PackNode<'a>, ms: &[Member]) -> std::result::Result<(&'a Members, At), ValueError> {
        let (members, at) = match n {
            PackNode::Members(members, at) => (*members, at),
            PackNode::Val(Val::Record(members), at) => (members, at),
            PackNode::Val(v, at) => return Err(at.wrong(v, "a record")),
        };
        members.check(ms.iter().map(|m| m.name.as_str()), at)?;
        Ok((members, at.clone()))
    }

    fn field(&mut self, r: &mut (&'a Members, At), _class: &str, ms: &[Member], i: usize) -> std::result::Result<Next<PackNode<'a>>, ValueError> {
        let (members, at) = r;
        let Some(m) = ms.get(i) else { return Ok(Next::End) };
        let v = members
            .0
            .iter()
            .find(|(n, _)| *n == m.name)
            .map(|(_, v)| v)
            .ok_or_else(|| at.err(format!("member {:?} is missing", m.name)))?;
        Ok(Next::Value(PackNode::Val(v, at.field(&m.name))))
    }

    fn absent(&mut self, r: &(&'a Members, At), _class: &str, m: &Member) -> std::result::Result<MemberValue, ValueError> {
        Err(r.1.err(format!("member {:?} is missing", m.name)))
    }

    fn hidden(&mut self, n: &PackNode<'a>) -> std::result::Result<Vec<u8>, ValueError> {
        match n {
            PackNode::Val(Val::Bytes(b), _) => Ok(b.clone()),
            PackNode::Val(other, at) => Err(at.wrong(other, "bytes")),
            PackNode::Members(_, at) => Err(at.err("a record where bytes belong")),
        }
    }

    fn c_array(&mut self, n: &PackNode<'a>, _m: &Member, count: usize) -> std::result::Result<Self::Seq, ValueError> {
        let (v, at) = val(n)?;
        let Val::List(items) = v else {
            return Err(at.wrong(v, "a list"));
        };
        if items.len() != count {
            return Err(at.err(format!(
                "{} elements where the C array holds {count}",
                items.len()
            )));
        }
        Ok((items.iter().enumerate(), at.clone(), items.len(), None))
    }

    fn array(&mut self, n: &PackNode<'a>, m: &Member) -> std::result::Result<Self::Seq, ValueError> {
        let (v, at) = val(n)?;
        let (items, capacity) = match v {
            Val::List(items) => (items, None),
            // A tagfile's form of an array without a run.
            Val::Null => (&NO_ITEMS, None),
            Val::Array(items, c) if m.ty == MemberType::Array => (items, Some(*c)),
            other => return Err(at.wrong(other, "a list")),
        };
        Ok((items.iter().enumerate(), at.clone(), items.len(), capacity))
    }

    fn size_hint(&self, s: &Self::Seq) -> usize {
        s.2
    }

    fn item(&mut self, s: &mut Self::Seq) -> std::result::Result<Option<PackNode<'a>>, ValueError> {
        Ok(s.0.next().map(|(k, x)| PackNode::Val(x, s.1.index(k))))
    }

    fn end_items(&mut self, s: Self::Seq, _len: usize) -> std::result::Result<Option<u32>, ValueError> {
        Ok(s.3)
    }

    fn void(&mut self, n: &PackNode<'a>) -> std::result::Result<(), ValueError> {
        match val(n)? {
            (Val::Null, _) => Ok(()),
            (other, at) => Err(at.wrong(other, "null (a void member)")),
        }
    }

    fn bool(&mut self, n: &PackNode<'a>) -> std::result::Result<u8, ValueError> {
        match val(n)? {
            (Val::Bool(b), _) => Ok(u8::from(*b)),
            (Val::UInt(u), _) if *u <= 255 => Ok(*u as u8),
            (other, at) => Err(at.wrong(other, "a bool")),
        }
    }

    fn int(&mut self, n: &PackNode<'a>, m: &Member, _ty: MemberType, signed: bool, bits: u32) -> std::result::Result<i128, ValueError> {
        let (v, at) = val(n)?;
        let n: i128 = match v {
            Val::Int(i) => i128::from(*i),
            Val::UInt(u) => i128::from(*u),
            Val::Str(s) if m.enumeration.is_some() => i128::from(self.enum_number(m, s, at)?),
            other => return Err(at.wrong(other, "an integer")),
        };
        let (lo, hi) = if signed {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        };
        // An enum's item of the other sign fits by its bits.
        let n = if !(lo..=hi).contains(&n) && matches!(v, Val::Str(_)) {
            n & ((1i128 << bits) - 1)
        } else {
            n
        };
        if !(lo..=hi).contains(&n) {
            return Err(at.err(format!(
                "{n} is out of range for {} ({bits}-bit {})",
                m.name,
                if signed { "signed" } else { "unsigned" }
            )));
        }
        Ok(n)
    }

    fn real(&mut self, n: &PackNode<'a>) -> std::result::Result<f32, ValueError> {
        let (v, at) = val(n)?;
        self.real_at(v, at)
    }

    fn half(&mut self, n: &PackNode<'a>) -> std::result::Result<u16, ValueError> {
        let (v, at) = val(n)?;
        let x = self.real_at(v, at)?;
        if x.to_bits() & 0xFFFF != 0 {
            return Err(at.err(format!("{x} is not a half (its low 16 bits are not zero)")));
        }
        Ok((x.to_bits() >> 16) as u16)
    }

    fn reals(&mut self, n: &PackNode<'a>, _ty: MemberType, count: usize) -> std::result::Result<Vec<f32>, ValueError> {
        let (v, at) = val(n)?;
        let Val::List(items) = v else {
            return Err(at.wrong(v, &format!("a list of {count} reals")));
        };
        if items.len() != count {
            return Err(at.err(format!("{} reals where {count} belong", items.len())));
        }
        items
            .iter()
            .enumerate()
            .map(|(k, x)| self.real_at(x, &at.index(k)))
            .collect()
    }

    fn pointer(&mut self, n: &PackNode<'a>) -> std::result::Result<Ref, ValueError> {
        let (v, at) = val(n)?;
        PackBuilder::pointer(self, v, at)
    }

    fn variant(&mut self, n: &PackNode<'a>) -> std::result::Result<(Ref, Ref), ValueError> {
        match val(n)? {
            (Val::List(p), at) if p.len() == 2 => Ok((
                PackBuilder::pointer(self, &p[0], &at.index(0))?,
                PackBuilder::pointer(self, &p[1], &at.index(1))?,
            )),
            (other, at) => Err(at.wrong(other, "a variant's two pointers")),
        }
    }

    fn string(&mut self, n: &PackNode<'a>) -> std::result::Result<Option<Vec<u8>>, ValueError> {
        match val(n)? {
            (Val::Null, _) => Ok(None),
            (Val::Str(s), _) if !s.contains('\0') => Ok(Some(s.as_bytes().to_vec())),
            (Val::Bytes(b), _) => Ok(Some(b.clone())),
            (other, at) => Err(at.wrong(other, "a string")),
        }
    }
}

/// A member's value (a walk's node below an object is one).
fn val<'n, 'v>(n: &'n PackNode<'v>) -> std::result::Result<(&'v Val, &'n At), ValueError> {
    match n {
        PackNode::Val(v, at) => Ok((v, at)),
        PackNode::Members(_, at) => Err(at.err("a record where a value belongs")),
    }
}
// ---------------------------------------------------------------------------------------------
// Entry points

/// Where [`build`] takes what the dump does not hold.
#[derive(Default)]
pub struct BuildOptions<'a> {
    /// The compendia of a TCRF tagfile.
    pub compendia: Option<&'a CompendiumSet>,
    /// The class descriptions of a packfile's SDK, its own first (as for reading).
    pub packfile_classes: Vec<&'a dyn ClassSource>,
    /// The enumerations of a tagfile's SDK (`ClassRegistry::tagfile_enums`), for enum members
    /// given by item name.
    pub tagfile_enums: EnumTable,
}

/// The binary file a dump describes; `text_len` (the dump text's length) bounds the item bytes
/// it may describe.
pub fn build(dump: &Dump, options: &BuildOptions<'_>, text_len: usize) -> Result<Vec<u8>> {
    match dump.format.as_str() {
        // `tag0`: what dumps named a tagfile before.
        TAGFILE | "tag0" => build_tagfile(
            dump,
            options.compendia.unwrap_or(&CompendiumSet::default()),
            &options.tagfile_enums,
            text_len,
            None,
        ),
        PACKFILE => build_packfile(dump, &options.packfile_classes),
        other => Err(top(format!("format {other:?}: a dump is {TAGFILE} or {PACKFILE}")).into()),
    }
}
