//! A packfile's objects as plain data for people and diffs (`hkgen dump`): each object with its
//! index, class and members by Havok name; pointers as `#12` (the object index), `#12+0x10` or
//! `section 1 +0x40`; raw objects as their size and fixup counts.

use super::layout::{Member, MemberType};
use super::objects::{Body, PackfileDocument, Ref, MemberValue};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

/// One dumped value.
#[derive(Clone, Debug, PartialEq)]
pub enum Dumped {
    /// A null pointer or string.
    Null,
    /// A bool byte.
    Bool(u8),
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    UInt(u64),
    /// A real (a half as the float its top 16 bits give).
    Float(f32),
    /// A string (lossy UTF-8).
    Str(String),
    /// A pointer, as `#index` and the like.
    Ptr(String),
    /// Elements or floats.
    List(Vec<Dumped>),
    /// Members by name.
    Record(Vec<(String, Dumped)>),
}

impl Serialize for Dumped {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Dumped::Null => s.serialize_none(),
            Dumped::Bool(b) if *b <= 1 => s.serialize_bool(*b == 1),
            Dumped::Bool(b) => s.serialize_u8(*b),
            Dumped::Int(i) => s.serialize_i64(*i),
            Dumped::UInt(u) => s.serialize_u64(*u),
            Dumped::Float(f) => s.serialize_f32(*f),
            Dumped::Str(t) | Dumped::Ptr(t) => s.serialize_str(t),
            Dumped::List(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for i in items {
                    seq.serialize_element(i)?;
                }
                seq.end()
            }
            Dumped::Record(fields) => {
                let mut map = s.serialize_map(Some(fields.len()))?;
                for (k, v) in fields {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

/// One dumped object.
#[derive(Clone, Debug, Serialize)]
pub struct DumpedObject {
    /// Its index (what pointers to it show).
    pub index: usize,
    /// Its class.
    pub class: String,
    /// Its members, or for a raw object its size and fixups.
    pub members: Dumped,
}

fn ptr(r: &Ref) -> Dumped {
    match r {
        Ref::Null => Dumped::Null,
        Ref::Object(h) => Dumped::Ptr(format!("#{}", h.0)),
        Ref::Inside(h, off) => Dumped::Ptr(format!("#{}+{off:#x}", h.0)),
        Ref::Section(s, off) => Dumped::Ptr(format!("section {s} +{off:#x}")),
    }
}

impl PackfileDocument {
    /// Every object as plain data.
    pub fn dump(&self) -> Vec<DumpedObject> {
        self.objects
            .iter()
            .enumerate()
            .map(|(index, o)| DumpedObject {
                index,
                class: o.class.clone(),
                members: match &o.body {
                    Body::Typed(values) => self.record(&o.class, values, 0),
                    Body::Untyped(r) => Dumped::Record(vec![
                        ("raw_bytes".into(), Dumped::UInt(r.bytes.len() as u64)),
                        ("local_fixups".into(), Dumped::UInt(r.local.len() as u64)),
                        ("pointers".into(), Dumped::List(r.global.iter().map(|(_, t)| ptr(t)).collect())),
                    ]),
                },
            })
            .collect()
    }

    fn record(&self, class: &str, values: &[MemberValue], depth: usize) -> Dumped {
        let names = self.member_names(class);
        Dumped::Record(
            values
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let m = self.member(class, i).cloned();
                    (names.get(i).cloned().unwrap_or_else(|| format!("#{i}")), self.value(m.as_ref(), v, depth))
                })
                .collect(),
        )
    }

    fn value(&self, m: Option<&Member>, v: &MemberValue, depth: usize) -> Dumped {
        if depth > 64 {
            return Dumped::Null;
        }
        let struct_class = m.and_then(|m| m.class.clone());
        match v {
            MemberValue::Void => Dumped::Null,
            MemberValue::Bool(b) => Dumped::Bool(*b),
            MemberValue::Int(i) => Dumped::Int(*i),
            MemberValue::UInt(u) => Dumped::UInt(*u),
            MemberValue::Real(r) => Dumped::Float(*r),
            MemberValue::Half(h) => Dumped::Float(f32::from_bits(u32::from(*h) << 16)),
            MemberValue::Vec4(fs) => Dumped::List(fs.iter().map(|f| Dumped::Float(*f)).collect()),
            MemberValue::Floats(fs) => Dumped::List(fs.iter().map(|f| Dumped::Float(*f)).collect()),
            MemberValue::Ptr(r) => ptr(r),
            MemberValue::Str(None) => Dumped::Null,
            MemberValue::Str(Some(b)) => Dumped::Str(String::from_utf8_lossy(b).into_owned()),
            MemberValue::Array(a) => {
                let elem = m.map(|m| Member { ty: m.subtype, subtype: MemberType::Void, c_array_size: 0, ..m.clone() });
                Dumped::List(a.iter().map(|x| self.value(elem.as_ref(), &x, depth + 1)).collect())
            }
            MemberValue::CArray(items) => {
                let elem = m.map(|m| Member { c_array_size: 0, ..m.clone() });
                Dumped::List(items.iter().map(|x| self.value(elem.as_ref(), x, depth + 1)).collect())
            }
            MemberValue::Struct(vals) => match struct_class {
                Some(c) => self.record(&c, vals, depth + 1),
                None => Dumped::List(vals.iter().map(|x| self.value(None, x, depth + 1)).collect()),
            },
            MemberValue::Variant(a, b) => Dumped::Record(vec![("object".into(), ptr(a)), ("class".into(), ptr(b))]),
            MemberValue::RelArray(items) => {
                let elem = m.map(|m| Member { ty: m.subtype, subtype: MemberType::Void, c_array_size: 0, ..m.clone() });
                Dumped::List(items.iter().map(|x| self.value(elem.as_ref(), x, depth + 1)).collect())
            }
            MemberValue::Opaque(b) => Dumped::List(b.iter().map(|x| Dumped::UInt(u64::from(*x))).collect()),
        }
    }
}
