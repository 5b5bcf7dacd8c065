//! Import of the FromSoftware hk_2014.1.0-r1 type table (classdata/fromsoft-2014.1-types.xml):
//! tagfile-style type records (`hkArray` with `tT`, `T*`, `hkEnum` with `tENUM`/`tSTORAGE`, `T[N]`
//! with `vN`, typedef chains through `parent`) turned back into hkClass members. A record with
//! `hash` carries the packfile signature.
//!
//! The table is lossy for hkClass purposes: enums have no items, a class lists no enums it does
//! not use, some enum members are stored as their plain storage type, some alignment flags are
//! gone. [`complete_from`] fills those gaps from another SDK's records (2014.2) where the class and
//! member names agree; what it changes is counted so that it can be reported.

use crate::schema::model::{member_flags, ClassRecord, ClassSchema, EnumRecord, MemberRecord, MemberType};
use crate::error::Error;
use roxmltree::Node;
use std::collections::{BTreeMap, HashMap};

fn err(msg: impl Into<String>) -> Error {
    Error::schema(format!("FromSoft type table: {}", msg.into()))
}

/// Names of the basic types, Havok's and C's.
fn basic(name: &str) -> Option<MemberType> {
    use MemberType as T;
    Some(match name {
        "hkBool" | "bool" => T::Bool,
        "hkChar" | "char" => T::Char,
        "hkInt8" | "signed char" => T::Int8,
        "hkUint8" | "unsigned char" => T::Uint8,
        "hkInt16" | "short" => T::Int16,
        "hkUint16" | "unsigned short" => T::Uint16,
        "hkInt32" | "int" => T::Int32,
        "hkUint32" | "unsigned int" => T::Uint32,
        "hkInt64" | "long long" => T::Int64,
        "hkUint64" | "unsigned long long" => T::Uint64,
        "hkReal" | "float" | "hkFloat32" => T::Real,
        "hkHalf" | "hkHalf16" => T::Half,
        "hkVector4" | "hkVector4f" => T::Vector4,
        "hkQuaternion" | "hkQuaternionf" => T::Quaternion,
        "hkMatrix3" | "hkMatrix3f" => T::Matrix3,
        "hkRotation" | "hkRotationf" => T::Rotation,
        "hkQsTransform" | "hkQsTransformf" => T::QsTransform,
        "hkMatrix4" | "hkMatrix4f" => T::Matrix4,
        "hkTransform" | "hkTransformf" => T::Transform,
        "hkUlong" | "unsigned long" => T::Ulong,
        "hkStringPtr" => T::StringPtr,
        "char*" | "const char*" => T::CString,
        "hkVariant" => T::Variant,
        "void" => T::Void,
        _ => return None,
    })
}

/// A member's type as hkClass has it.
#[derive(Clone, Debug)]
struct Resolved {
    ty: MemberType,
    subtype: MemberType,
    class: Option<String>,
    enumeration: Option<String>,
    c_array_size: u16,
}

impl Resolved {
    fn simple(ty: MemberType) -> Self {
        Resolved { ty, subtype: MemberType::Void, class: None, enumeration: None, c_array_size: 0 }
    }
}

struct Table<'a, 'i> {
    by_id: HashMap<&'a str, Node<'a, 'i>>,
}

impl<'a, 'i> Table<'a, 'i> {
    fn get(&self, id: &str) -> Result<Node<'a, 'i>, Error> {
        self.by_id.get(id).copied().ok_or_else(|| err(format!("type id {id} not defined")))
    }

    fn template(n: Node<'a, 'i>, name: &str) -> Option<&'a str> {
        n.children().find(|c| c.has_tag_name("template") && c.attribute("name") == Some(name)).and_then(|c| c.attribute("value"))
    }

    fn is_class(n: Node<'_, '_>) -> bool {
        n.attribute("subTypeFlags") == Some("7")
    }

    fn resolve(&self, id: &str, depth: usize) -> Result<Resolved, Error> {
        if depth > 32 {
            return Err(err(format!("type {id} nests too deeply")));
        }
        let t = self.get(id)?;
        let name = t.attribute("name").unwrap_or("");
        if let Some(b) = basic(name) {
            return Ok(Resolved::simple(b));
        }
        let arg = |key: &str| Self::template(t, key).ok_or_else(|| err(format!("type {id} ({name}) has no template {key}")));
        let r = match name {
            "T*" => {
                let target = t.attribute("pointer").ok_or_else(|| err(format!("type {id} (T*) has no pointer")))?;
                let p = self.resolve(target, depth + 1)?;
                match p.ty {
                    MemberType::Char => Resolved::simple(MemberType::CString),
                    MemberType::Struct => Resolved { subtype: MemberType::Struct, ..Resolved::simple(MemberType::Pointer) }.with_class(p.class),
                    // A pointer to an opaque type.
                    MemberType::Void => Resolved::simple(MemberType::Pointer),
                    other => Resolved { subtype: other, ..Resolved::simple(MemberType::Pointer) },
                }
            }
            "hkRefPtr" => {
                let p = self.resolve(arg("tTYPE")?, depth + 1)?;
                Resolved { subtype: MemberType::Struct, ..Resolved::simple(MemberType::Pointer) }.with_class(p.class)
            }
            "hkRefVariant" => Resolved { subtype: MemberType::Struct, ..Resolved::simple(MemberType::Pointer) }
                .with_class(Some("hkReferencedObject".into())),
            "hkArray" | "hkRelArray" => {
                let e = self.resolve(arg("tT")?, depth + 1)?;
                let ty = if name == "hkArray" { MemberType::Array } else { MemberType::RelArray };
                Resolved { ty, subtype: e.ty, class: e.class, enumeration: None, c_array_size: 0 }
            }
            "hkEnum" | "hkFlags" => {
                let storage = self.resolve(arg("tSTORAGE")?, depth + 1)?;
                let e = self.get(arg("tENUM")?)?;
                let ty = if name == "hkEnum" { MemberType::Enum } else { MemberType::Flags };
                Resolved { ty, subtype: storage.ty, class: None, enumeration: e.attribute("name").map(str::to_owned), c_array_size: 0 }
            }
            "T[N]" => {
                let target = t.attribute("pointer").ok_or_else(|| err(format!("type {id} (T[N]) has no pointer")))?;
                let n: u16 = arg("vN")?.parse().map_err(|_| err(format!("type {id}: bad vN")))?;
                Resolved { c_array_size: n, ..self.resolve(target, depth + 1)? }
            }
            _ if Self::is_class(t) => Resolved::simple(MemberType::Struct).with_class(Some(name.to_owned())),
            _ => match t.attribute("parent") {
                // A typedef: its parent is what it names.
                Some(p) if t.attribute("subTypeFlags").is_none() => self.resolve(p, depth + 1)?,
                // An opaque or unknown type: no hkClass type describes it.
                _ => Resolved::simple(MemberType::Void),
            },
        };
        Ok(r)
    }
}

impl Resolved {
    fn with_class(mut self, class: Option<String>) -> Self {
        self.class = class;
        self
    }
}

/// hkClassMember flags from a table member's flags: the hkClass bits are kept; the tagfile-style
/// words (bit 5 set) carry "not serialized" in bit 0.
fn member_flags_of(xml: u32) -> u16 {
    let mut f = (xml & 0xF80) as u16;
    if xml & 0x20 != 0 && xml & 1 != 0 {
        f |= member_flags::SERIALIZE_IGNORED;
    }
    f
}

/// Reads the table.
pub fn import(xml: &str) -> Result<ClassSchema, Error> {
    let doc = roxmltree::Document::parse(xml).map_err(|e| err(e.to_string()))?;
    let types: Vec<Node<'_, '_>> = doc.root_element().children().filter(|n| n.has_tag_name("type")).collect();
    let mut by_id = HashMap::new();
    for t in &types {
        let id = t.attribute("id").ok_or_else(|| err("a type without id"))?;
        if by_id.insert(id, *t).is_some() {
            return Err(err(format!("type id {id} defined twice")));
        }
    }
    let table = Table { by_id };
    let mut schema = ClassSchema { sdk: "2014.1".into(), sources: vec!["fromsoft-2014.1-types.xml".into()], ..Default::default() };
    for t in types.iter().filter(|t| Table::is_class(**t)) {
        let name = t.attribute("name").unwrap_or("").to_owned();
        let parent = match t.attribute("parent") {
            Some(p) => table.get(p)?.attribute("name").map(str::to_owned),
            None => None,
        };
        let mut members = Vec::new();
        let mut enums: Vec<String> = Vec::new();
        for m in t.children().filter(|c| c.has_tag_name("member")) {
            let mname = m.attribute("name").unwrap_or("").to_owned();
            let ty = m.attribute("type").ok_or_else(|| err(format!("{name}.{mname} has no type")))?;
            let r = table.resolve(ty, 0).map_err(|e| err(format!("{name}.{mname}: {e}")))?;
            let flags = m.attribute("flags").and_then(|f| f.parse().ok()).map_or(0, member_flags_of);
            if let Some(e) = &r.enumeration {
                schema.enums.entry(e.clone()).or_insert_with(|| EnumRecord {
                    name: e.rsplit("::").next().unwrap_or(e).to_owned(),
                    items: Vec::new(),
                    flags: 0,
                    signature_items: None,
                    items_unknown: true,
                });
                // An enum named `Class::Enum` is declared by that class.
                if e.rsplit_once("::").map(|(owner, _)| owner) == Some(name.as_str()) && !enums.contains(e) {
                    enums.push(e.clone());
                }
            }
            members.push(MemberRecord {
                name: mname,
                ty: r.ty,
                subtype: r.subtype,
                class: r.class,
                enumeration: r.enumeration,
                c_array_size: r.c_array_size,
                flags,
            });
        }
        let rec = ClassRecord {
            interfaces: super::botw::INTERFACES.iter().find(|(n, _)| *n == name).map_or(0, |(_, k)| *k),
            name: name.clone(),
            parent,
            version: t.attribute("version").and_then(|v| v.parse().ok()).unwrap_or(0),
            flags: 0,
            enums,
            members,
            signature: t.attribute("hash").and_then(|h| h.parse().ok()).map(crate::schema::model::Hex),
        };
        schema.classes.insert(name, rec);
    }
    Ok(schema)
}

/// What [`complete_from`] changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Completed {
    /// Enums whose items came from the other schema.
    pub enum_items: Vec<String>,
    /// Classes whose declared-enum list came from the other schema.
    pub declared_enums: Vec<String>,
    /// Members (`Class.member`) whose type, enum or flags came from the other schema.
    pub members: Vec<String>,
}

/// Fills what the table lost from `other` (the 2014.2 records), where names agree: enum items,
/// the enums a class declares, and per member (same class, same name, same storage) the enum type
/// and the alignment flags.
pub fn complete_from(schema: &mut ClassSchema, other: &ClassSchema) -> Completed {
    let mut done = Completed::default();
    let names: Vec<String> = schema.classes.keys().cloned().collect();
    for name in names {
        let Some(theirs) = other.classes.get(&name) else { continue };
        let Some(ours) = schema.classes.get_mut(&name) else { continue };
        for m in &mut ours.members {
            let Some(t) = theirs.members.iter().find(|t| t.name == m.name) else { continue };
            let before = m.clone();
            if matches!(t.ty, MemberType::Enum | MemberType::Flags) && m.ty == t.subtype && m.c_array_size == t.c_array_size {
                m.ty = t.ty;
                m.subtype = t.subtype;
                m.enumeration = t.enumeration.clone();
            }
            if m.ty == t.ty && m.subtype == t.subtype {
                m.flags |= t.flags & (member_flags::ALIGN_8 | member_flags::ALIGN_16 | member_flags::NOT_OWNED);
            }
            if *m != before {
                done.members.push(format!("{name}.{}", m.name));
            }
        }
        if ours.enums.len() < theirs.enums.len() && ours.enums.iter().all(|e| theirs.enums.contains(e)) {
            ours.enums = theirs.enums.clone();
            done.declared_enums.push(name.clone());
        }
    }
    // Every enum a class or member now names, with items from the other schema where ours has none.
    let wanted: Vec<String> = schema
        .classes
        .values()
        .flat_map(|c| c.enums.iter().cloned().chain(c.members.iter().filter_map(|m| m.enumeration.clone())))
        .collect();
    for key in wanted {
        let Some(theirs) = other.enums.get(&key) else { continue };
        let e = schema.enums.entry(key.clone()).or_insert_with(|| EnumRecord { items_unknown: true, ..theirs.clone() });
        if e.items_unknown && !theirs.items_unknown {
            e.items_unknown = false;
            e.items = theirs.items.clone();
            e.signature_items = theirs.signature_items.clone();
            e.flags = theirs.flags;
            done.enum_items.push(key);
        }
    }
    done.enum_items.sort();
    done.enum_items.dedup();
    done
}

/// Stored signatures by class, for reports.
pub fn stored_signatures(schema: &ClassSchema) -> BTreeMap<String, u32> {
    schema.classes.iter().filter_map(|(n, c)| c.signature.map(|s| (n.clone(), s.0))).collect()
}
