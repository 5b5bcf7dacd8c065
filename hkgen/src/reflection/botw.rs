//! Import of the BotW Switch reflection dump (classdata/botw-2014.2-switch-reflection.json): 984
//! hkClass objects of hk_2014.2.0-r1 as linked into Breath of the Wild for Switch. The dump gives
//! names, parents, versions, flags, declared enums, members (type, subtype, class, enum id, C-array
//! size, flags) and the Switch offsets and sizes; it lacks the interface counts, which come from
//! [`INTERFACES`].

use crate::schema::model::{ClassRecord, ClassSchema, EnumRecord, FixedLayout, LayoutOverride, MemberRecord, MemberType};
use crate::error::Error;
use serde_json::Value;
use std::collections::BTreeMap;

/// Classes that implement an interface of their own (a vtable pointer): not in the dump, listed in
/// classdata/README.md.
pub const INTERFACES: &[(&str, u32)] = &[
    ("hkBaseObject", 1),
    ("hkpShapeContainer", 1),
    ("hkpShapeCollection", 1),
    ("hkpBvCompressedMeshShape", 1),
    ("hkpStaticCompoundShape", 1),
];

/// Enum items that the Switch runtime has but the signatures in BotW's files were computed without
/// (the files predate them): (enum key, item).
pub const ITEMS_AFTER_SIGNATURES: &[(&str, &str)] = &[("hclClothData::Platform", "HCL_PLATFORM_NX")];

/// What the dump says about the Switch layout (8,1,1,1), kept apart from the neutral records
/// (defined with the layouts, which every importer shares).
pub use super::layout::ObservedLayout;

fn schema_err(msg: impl Into<String>) -> Error {
    Error::schema(format!("BotW reflection dump: {}", msg.into()))
}

fn str_of<'a>(v: &'a Value, key: &str, what: &str) -> Result<&'a str, Error> {
    v.get(key).and_then(Value::as_str).ok_or_else(|| schema_err(format!("{what}: no string {key}")))
}

fn u64_of(v: &Value, key: &str, what: &str) -> Result<u64, Error> {
    v.get(key).and_then(Value::as_u64).ok_or_else(|| schema_err(format!("{what}: no number {key}")))
}

fn enum_record(v: &Value, what: &str) -> Result<EnumRecord, Error> {
    let name = str_of(v, "name", what)?.to_owned();
    let items = v
        .get("items")
        .and_then(Value::as_array)
        .ok_or_else(|| schema_err(format!("{what}: no items")))?
        .iter()
        .map(|it| {
            let value = it.get(0).and_then(Value::as_i64);
            let item = it.get(1).and_then(Value::as_str);
            match (value, item) {
                (Some(v), Some(n)) => Ok((v, n.to_owned())),
                _ => Err(schema_err(format!("{what}: bad item {it}"))),
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    let flags = v.get("flags").and_then(Value::as_u64).unwrap_or(0) as u32;
    Ok(EnumRecord { name, items, flags, signature_items: None, items_unknown: false })
}

/// Reads the dump.
pub fn import(json: &str) -> Result<(ClassSchema, ObservedLayout), Error> {
    let root: Value = serde_json::from_str(json).map_err(|e| schema_err(e.to_string()))?;
    let classes = root.get("classes").and_then(Value::as_object).ok_or_else(|| schema_err("no classes"))?;
    let by_id = root.get("enums_by_id").and_then(Value::as_object).ok_or_else(|| schema_err("no enums_by_id"))?;
    let mut schema = ClassSchema { sdk: "2014.2".into(), sources: vec!["botw-2014.2-switch-reflection.json".into()], ..Default::default() };
    let mut observed = ObservedLayout::default();

    // Declared enums first, keyed by their class; then the member enums, found by content.
    let mut declared: Vec<(String, EnumRecord)> = Vec::new();
    for (cname, c) in classes {
        for e in c.get("enums").and_then(Value::as_array).into_iter().flatten() {
            let rec = enum_record(e, &format!("{cname} enum"))?;
            declared.push((format!("{cname}::{}", rec.name), rec));
        }
    }
    let mut id_key: BTreeMap<&str, String> = BTreeMap::new();
    for (id, e) in by_id {
        let rec = enum_record(e, &format!("enum {id}"))?;
        let key = match declared.iter().find(|(_, d)| *d == rec) {
            Some((k, _)) => k.clone(),
            None => {
                let mut k = rec.name.clone();
                if schema.enums.get(&k).is_some_and(|old| *old != rec) {
                    k = format!("{}#{id}", rec.name);
                }
                schema.enums.insert(k.clone(), rec);
                k
            }
        };
        id_key.insert(id.as_str(), key);
    }
    for (k, rec) in declared {
        schema.enums.insert(k, rec);
    }
    for (key, item) in ITEMS_AFTER_SIGNATURES {
        if let Some(e) = schema.enums.get_mut(*key) {
            let kept: Vec<_> = e.items.iter().filter(|(_, n)| n != item).cloned().collect();
            if kept.len() != e.items.len() {
                e.signature_items = Some(kept);
            }
        }
    }

    for (cname, c) in classes {
        let what = cname.as_str();
        let mut members = Vec::new();
        let mut offsets = Vec::new();
        for m in c.get("members").and_then(Value::as_array).into_iter().flatten() {
            let mname = str_of(m, "name", what)?;
            let mw = format!("{cname}.{mname}");
            let ty_of = |key: &str| -> Result<MemberType, Error> {
                let s = str_of(m, key, &mw)?;
                MemberType::from_sdk_name(s).ok_or_else(|| schema_err(format!("{mw}: unknown {key} {s}")))
            };
            let enum_id = m.get("enum").map(|v| v.to_string()).unwrap_or_default();
            let enumeration = match enum_id.as_str() {
                "" | "0" | "null" => None,
                // One member (hkaiGatePathUtilGate.type) names an enum the dump does not hold: kept as
                // an unresolved key, so its signature reports the missing enum.
                id => Some(id_key.get(id).cloned().unwrap_or_else(|| format!("#{id}"))),
            };
            members.push(MemberRecord {
                name: mname.to_owned(),
                ty: ty_of("type")?,
                subtype: ty_of("subtype")?,
                class: m.get("cl").and_then(Value::as_str).map(str::to_owned),
                enumeration,
                c_array_size: u16::try_from(u64_of(m, "array_size", &mw)?).map_err(|_| schema_err(format!("{mw}: array_size")))?,
                flags: u16::try_from(u64_of(m, "flags", &mw)?).map_err(|_| schema_err(format!("{mw}: flags")))?,
            });
            offsets.push(u64_of(m, "offset", &mw)? as u32);
        }
        let enums = c
            .get("enums")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|e| format!("{cname}::{}", e.get("name").and_then(Value::as_str).unwrap_or("")))
            .collect();
        let rec = ClassRecord {
            name: str_of(c, "name", what)?.to_owned(),
            parent: c.get("parent").and_then(Value::as_str).map(str::to_owned),
            version: c.get("version").and_then(Value::as_u64).unwrap_or(0) as u32,
            flags: c.get("flags").and_then(Value::as_u64).unwrap_or(0) as u32,
            interfaces: INTERFACES.iter().find(|(n, _)| n == cname).map_or(0, |(_, k)| *k),
            enums,
            members,
            signature: None,
        };
        observed.sizes.insert(cname.clone(), u64_of(c, "obj_size", what)? as u32);
        observed.offsets.insert(cname.clone(), offsets);
        schema.classes.insert(cname.clone(), rec);
    }
    Ok((schema, observed))
}

/// Interface counts the dump leaves out, found from its own offsets: for each class (parents
/// first) whose computed Switch layout differs from the dump, the smallest count of 1 to 4 that
/// makes it agree. Sets them in `schema` (with an override that says where they came from) and
/// returns them. A class that no count explains hides members: its override fixes the dump's
/// Switch layout, and no other layout can be computed for it.
pub fn infer_interfaces(schema: &mut ClassSchema, observed: &ObservedLayout) -> Vec<(String, u32)> {
    use super::layout::ClassLayouts;
    use hktypes::packfile::LayoutRules;
    let reason = "interfaces: not in the dump, found from its Switch offsets";
    let found = super::facts::infer_interface_counts(schema, observed, LayoutRules::SWITCH, &BTreeMap::new(), reason);
    // What no interface count explains: members the reflection hides. Their Switch layout is the
    // dump's; other layouts cannot be computed.
    for (name, size) in &observed.sizes {
        let l = ClassLayouts::new(schema, LayoutRules::SWITCH).class(name);
        if l.as_ref().is_ok_and(|l| l.size == *size && l.offsets == observed.offsets[name]) {
            continue;
        }
        let align = l.map_or(16, |l| l.align);
        let fixed = FixedLayout { size: *size, align, offsets: observed.offsets[name].clone() };
        schema.overrides.insert(
            name.clone(),
            LayoutOverride {
                reason: "hidden members: the reflection does not describe all bytes; laid out only where a dump gives the offsets".into(),
                hidden_members: true,
                fixed: BTreeMap::from([(LayoutRules::SWITCH.to_string(), fixed)]),
            },
        );
    }
    found
}
