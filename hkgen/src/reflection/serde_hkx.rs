//! Import of the serde-hkx class JSON (classdata/skyrim-2010.2-serde-hkx/classes/*.json): the
//! hkClass reflection of hk_2010.2.0-r1 as Skyrim uses it, one file per class with its version,
//! signature, parent, declared enums (with items) and members (type, subtype, class, enum, C-array
//! size, flags), and the offsets and sizes of two compilers: x86 (layout rules 4,1,0,1) and x86_64
//! (8,1,0,1). The records are platform-neutral; the offsets go to [`SourceFacts::layouts`], to be
//! checked against our own layout rules. The source has no interface counts:
//! [`super::facts::infer_interfaces`] finds them from its x86_64 offsets.

use super::layout::ObservedLayout;
use super::facts::SourceFacts;
use crate::schema::model::{member_flags, ClassRecord, ClassSchema, EnumRecord, MemberRecord, MemberType};
use crate::error::Error;
use hktypes::packfile::LayoutRules;
use serde::Deserialize;
use std::collections::BTreeMap;

/// The folder of the source in `classdata/`.
pub const FOLDER: &str = "skyrim-2010.2-serde-hkx";

/// The x86 layout rules the source's `offset_x86` and `size_x86` follow.
pub const X86: LayoutRules = LayoutRules { pointer_size: 4, little_endian: 1, reuse_padding: 0, empty_base: 1 };
/// The x86_64 layout rules the source's `offset_x86_64` and `size_x86_64` follow.
pub const X86_64: LayoutRules = LayoutRules::WIN64;

#[derive(Deserialize)]
struct JsonClass {
    name: String,
    version: u32,
    signature: String,
    size_x86: u32,
    size_x86_64: u32,
    #[serde(default)]
    parent: Option<String>,
    #[serde(default)]
    enums: Vec<JsonEnum>,
    members: Vec<JsonMember>,
}

#[derive(Deserialize)]
struct JsonEnum {
    name: String,
    flags: String,
    enum_item: Vec<JsonItem>,
}

#[derive(Deserialize)]
struct JsonItem {
    name: String,
    value: i64,
}

#[derive(Deserialize)]
struct JsonMember {
    name: String,
    #[serde(default)]
    class_ref: Option<String>,
    #[serde(default)]
    enum_ref: Option<String>,
    vtype: String,
    vsubtype: String,
    offset_x86: u32,
    offset_x86_64: u32,
    arrsize: u16,
    flags: String,
}

fn err(what: &str, msg: impl std::fmt::Display) -> Error {
    Error::schema(format!("serde-hkx class JSON {what}: {msg}"))
}

/// `TYPE_ARRAY` -> the member type.
pub(crate) fn member_type(s: &str, what: &str) -> Result<MemberType, Error> {
    MemberType::from_sdk_name(s).ok_or_else(|| err(what, format!("unknown member type {s}")))
}

/// `FLAGS_NONE|ALIGN_16|SERIALIZE_IGNORED` -> the flag bits.
pub(crate) fn member_flags_of(s: &str, what: &str) -> Result<u16, Error> {
    let mut bits = 0;
    for part in s.split('|') {
        bits |= match part.trim() {
            "FLAGS_NONE" | "" => 0,
            "ALIGN_8" => member_flags::ALIGN_8,
            "ALIGN_16" => member_flags::ALIGN_16,
            "NOT_OWNED" => member_flags::NOT_OWNED,
            "SERIALIZE_IGNORED" => member_flags::SERIALIZE_IGNORED,
            other => return Err(err(what, format!("unknown member flag {other}"))),
        };
    }
    Ok(bits)
}

/// `0x1234abcd` -> the number.
pub(crate) fn hex(s: &str, what: &str) -> Result<u32, Error> {
    let digits = s.strip_prefix("0x").unwrap_or(s);
    u32::from_str_radix(digits, 16).map_err(|_| err(what, format!("bad hex number {s}")))
}

/// Resolves a member's enum, named by its own name: declared by the member's class or a parent
/// (nearest first), else by another class that declares an enum of that name (the first in file
/// order, when several do). `declared` maps an enum's own name to its keys (`Class::Name`).
pub(crate) fn resolve_enum(schema: &ClassSchema, class: &str, enum_name: &str, declared: &BTreeMap<String, Vec<String>>) -> Option<String> {
    for c in schema.ancestry(class) {
        let key = format!("{}::{enum_name}", c.name);
        if schema.enums.contains_key(&key) {
            return Some(key);
        }
    }
    declared.get(enum_name).and_then(|keys| keys.first().cloned())
}

/// Replaces every member's enum name by the key [`resolve_enum`] gives it (the name as it is where
/// none does), once every class, and so every parent, is in `schema`.
pub(crate) fn resolve_member_enums(schema: &mut ClassSchema, declared: &BTreeMap<String, Vec<String>>) {
    let names: Vec<String> = schema.classes.keys().cloned().collect();
    for n in names {
        let resolved: Vec<Option<String>> = schema.classes[&n]
            .members
            .iter()
            .map(|m| m.enumeration.as_deref().map(|e| resolve_enum(schema, &n, e, declared).unwrap_or_else(|| e.to_owned())))
            .collect();
        if let Some(c) = schema.classes.get_mut(&n) {
            for (m, r) in c.members.iter_mut().zip(resolved) {
                m.enumeration = r;
            }
        }
    }
}

/// Reads the class files: `(file name, contents)` each.
pub fn import<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<SourceFacts, Error> {
    let mut facts = SourceFacts {
        schema: ClassSchema { sdk: "2010.2".into(), sources: vec![format!("{FOLDER}/classes")], ..Default::default() },
        ..Default::default()
    };
    let mut x86 = ObservedLayout::default();
    let mut x86_64 = ObservedLayout::default();
    let mut parsed = Vec::new();
    for (file, text) in files {
        let c: JsonClass = serde_json::from_str(text).map_err(|e| err(file, e))?;
        parsed.push(c);
    }
    // Declared enums first, so that members can name them.
    let mut declared: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for c in &parsed {
        for e in &c.enums {
            let what = format!("{}::{}", c.name, e.name);
            let flags = hex(&e.flags, &what)?;
            let items = e.enum_item.iter().map(|i| (i.value, i.name.clone())).collect();
            facts.schema.enums.insert(what.clone(), EnumRecord { name: e.name.clone(), items, flags, signature_items: None, items_unknown: false });
            declared.entry(e.name.clone()).or_default().push(what);
        }
    }
    for c in &parsed {
        let mut members = Vec::new();
        for m in &c.members {
            let what = format!("{}.{}", c.name, m.name);
            members.push(MemberRecord {
                name: m.name.clone(),
                ty: member_type(&m.vtype, &what)?,
                subtype: member_type(&m.vsubtype, &what)?,
                class: m.class_ref.clone(),
                enumeration: m.enum_ref.clone(),
                c_array_size: m.arrsize,
                flags: member_flags_of(&m.flags, &what)?,
            });
        }
        let rec = ClassRecord {
            name: c.name.clone(),
            parent: c.parent.clone(),
            version: c.version,
            flags: 0,
            interfaces: 0,
            enums: c.enums.iter().map(|e| format!("{}::{}", c.name, e.name)).collect(),
            members,
            signature: None,
        };
        if facts.schema.classes.insert(c.name.clone(), rec).is_some() {
            return Err(err(&c.name, "class defined twice"));
        }
        facts.signatures.insert(c.name.clone(), hex(&c.signature, &c.name)?);
        x86.sizes.insert(c.name.clone(), c.size_x86);
        x86.offsets.insert(c.name.clone(), c.members.iter().map(|m| m.offset_x86).collect());
        x86_64.sizes.insert(c.name.clone(), c.size_x86_64);
        x86_64.offsets.insert(c.name.clone(), c.members.iter().map(|m| m.offset_x86_64).collect());
    }
    // Member enums by name -> key, once every class (and so every parent) is in.
    resolve_member_enums(&mut facts.schema, &declared);
    facts.layouts.insert(X86.to_string(), x86);
    facts.layouts.insert(X86_64.to_string(), x86_64);
    super::facts::infer_interfaces(&mut facts, X86_64, "interfaces: not in the serde-hkx JSON, found from its x86_64 offsets");
    // hkpWorld holds a member its reflection does not describe (m_dynamicsStepInfo): the source's
    // two layouts are kept as they are.
    super::facts::fix_hidden_members(
        &mut facts,
        &[X86, X86_64],
        "hidden members: the reflection does not describe all bytes; laid out only where the serde-hkx JSON gives the offsets (x86, x86_64)",
    );
    Ok(facts)
}

/// Reads the source's folder (`classdata/skyrim-2010.2-serde-hkx`: its `classes/*.json`).
pub fn load(dir: &std::path::Path) -> Result<SourceFacts, Error> {
    let files = super::facts::read_folder(&dir.join("classes"), "json")?;
    import(files.iter().map(|(n, t)| (n.as_str(), t.as_str())))
}
