//! The walk of a packfile object's member values in: [`PackWalk`] makes each member's
//! [`MemberValue`] from its class description, each member kind handled here once, pulling the
//! values from a [`PackSource`] (the dump's value tree; the `<hkpackfile>` XML reader is to follow),
//! which reports errors at its own place (a dump path, an XML line and column).
//!
//! The source only says how a scalar or a container is spelt; the walk decides what a value of
//! each kind is: a bool, an integer of its member type's width, a real or half, a vector of 4 and
//! a matrix of 12 or 16 reals, an enum or flags by its storage type, a pointer, a variant's two
//! pointers, a string, an array of its element type, a struct by its class's members, a C array
//! of whole elements, and an object's hidden bytes.

use super::layout::{ClassSet, Member, MemberType};
use super::objects::{elem_member, members_in, MemberArray, MemberValue, Ref, HIDDEN};
use crate::error::ValueError;

/// How deep values may nest (structs, arrays).
pub const MAX_DEPTH: usize = 64;

/// Where the walk in takes values from: one form's spelling of them. A node is a value's place
/// in the form (and where its errors point).
pub(crate) trait PackSource {
    type Node;

    /// An error at `n`.
    fn err(&self, n: &Self::Node, msg: &str) -> ValueError;
    /// The values of the members `ms` of the record `n`, in their order.
    fn fields(&self, n: &Self::Node, ms: &[Member]) -> Result<Vec<Self::Node>, ValueError>;
    /// `n` as a record (a struct member's value).
    fn record(&self, n: &Self::Node) -> Result<Self::Node, ValueError>;
    /// An object's hidden bytes.
    fn hidden(&self, n: &Self::Node) -> Result<Vec<u8>, ValueError>;
    /// The `count` elements of a C array.
    fn c_array(&self, n: &Self::Node, count: usize) -> Result<Vec<Self::Node>, ValueError>;
    /// The elements of an array of kind `ty`, and the capacity the form states.
    fn array(&self, n: &Self::Node, ty: MemberType) -> Result<(Vec<Self::Node>, Option<u32>), ValueError>;
    /// A void member's (empty) value.
    fn void(&self, n: &Self::Node) -> Result<(), ValueError>;
    fn bool(&self, n: &Self::Node) -> Result<u8, ValueError>;
    /// An integer of member `m`, `bits` wide, within its range.
    fn int(&self, n: &Self::Node, m: &Member, signed: bool, bits: u32) -> Result<i128, ValueError>;
    fn real(&self, n: &Self::Node) -> Result<f32, ValueError>;
    /// A half's 16 bits.
    fn half(&self, n: &Self::Node) -> Result<u16, ValueError>;
    /// The `count` reals of a vector or matrix of kind `ty`.
    fn reals(&self, n: &Self::Node, ty: MemberType, count: usize) -> Result<Vec<f32>, ValueError>;
    fn pointer(&self, n: &Self::Node) -> Result<Ref, ValueError>;
    /// A variant's object and class pointers.
    fn variant(&self, n: &Self::Node) -> Result<(Ref, Ref), ValueError>;
    /// A string (`None`: null).
    fn string(&self, n: &Self::Node) -> Result<Option<Vec<u8>>, ValueError>;
}

/// The walk in over one class set.
pub(crate) struct PackWalk<'c> {
    pub classes: &'c ClassSet,
}

impl PackWalk<'_> {
    /// The values of `class`'s members (its ancestors' first) from the record `n`.
    pub fn object<S: PackSource>(&self, src: &S, class: &str, n: &S::Node) -> Result<Vec<MemberValue>, ValueError> {
        let ms: Vec<Member> = members_in(self.classes, class).cloned().collect();
        self.members(src, &ms, n, 0)
    }

    fn members<S: PackSource>(&self, src: &S, ms: &[Member], n: &S::Node, depth: usize) -> Result<Vec<MemberValue>, ValueError> {
        if depth > MAX_DEPTH {
            return Err(src.err(n, &format!("values nested more than {MAX_DEPTH} deep")));
        }
        let nodes = src.fields(n, ms)?;
        let mut out = Vec::with_capacity(ms.len());
        for (m, x) in ms.iter().zip(&nodes) {
            out.push(if m.name == HIDDEN {
                MemberValue::Opaque(src.hidden(x)?)
            } else if m.c_array_size > 0 {
                let items = src.c_array(x, usize::from(m.c_array_size))?;
                let mut vals = Vec::with_capacity(items.len());
                for x in &items {
                    vals.push(self.one(src, m, m.ty, x, depth)?);
                }
                MemberValue::CArray(vals)
            } else {
                self.one(src, m, m.ty, x, depth)?
            });
        }
        Ok(out)
    }

    fn one<S: PackSource>(&self, src: &S, m: &Member, ty: MemberType, n: &S::Node, depth: usize) -> Result<MemberValue, ValueError> {
        if depth > MAX_DEPTH {
            return Err(src.err(n, &format!("values nested more than {MAX_DEPTH} deep")));
        }
        let int = |signed: bool, bits: u32| -> Result<MemberValue, ValueError> {
            let v = src.int(n, m, signed, bits)?;
            Ok(if signed { MemberValue::Int(v as i64) } else { MemberValue::UInt(v as u64) })
        };
        Ok(match ty {
            MemberType::Void => {
                src.void(n)?;
                MemberValue::Void
            }
            MemberType::Bool => MemberValue::Bool(src.bool(n)?),
            MemberType::Char | MemberType::Int8 => int(true, 8)?,
            MemberType::Int16 => int(true, 16)?,
            MemberType::Int32 => int(true, 32)?,
            MemberType::Int64 => int(true, 64)?,
            MemberType::Uint8 => int(false, 8)?,
            MemberType::Uint16 => int(false, 16)?,
            MemberType::Uint32 => int(false, 32)?,
            MemberType::Uint64 | MemberType::Ulong => int(false, 64)?,
            MemberType::Real => MemberValue::Real(src.real(n)?),
            MemberType::Half => MemberValue::Half(src.half(n)?),
            MemberType::Vector4 | MemberType::Quaternion => {
                let f = src.reals(n, ty, 4)?;
                MemberValue::Vec4([f[0], f[1], f[2], f[3]])
            }
            MemberType::Matrix3 | MemberType::Rotation | MemberType::QsTransform => MemberValue::Floats(src.reals(n, ty, 12)?),
            MemberType::Matrix4 | MemberType::Transform => MemberValue::Floats(src.reals(n, ty, 16)?),
            MemberType::Enum | MemberType::Flags | MemberType::Zero => {
                if m.subtype == ty {
                    return Err(src.err(n, "an enum without a storage type"));
                }
                self.one(src, m, m.subtype, n, depth)?
            }
            MemberType::Pointer | MemberType::FunctionPointer => MemberValue::Ptr(src.pointer(n)?),
            MemberType::Variant => {
                let (object, class) = src.variant(n)?;
                MemberValue::Variant(object, class)
            }
            MemberType::CString | MemberType::StringPtr => MemberValue::Str(src.string(n)?),
            MemberType::Array | MemberType::SimpleArray | MemberType::RelArray => {
                let (items, capacity) = src.array(n, ty)?;
                let em = elem_member(m);
                let mut vals = Vec::with_capacity(items.len());
                for x in &items {
                    vals.push(self.one(src, &em, m.subtype, x, depth + 1)?);
                }
                match ty {
                    MemberType::RelArray => MemberValue::RelArray(vals),
                    MemberType::SimpleArray => MemberValue::Array(MemberArray { items: vals, capacity: 0 }),
                    _ => {
                        let mut a = MemberArray::new(vals);
                        if let Some(c) = capacity {
                            a.capacity = c;
                        }
                        MemberValue::Array(a)
                    }
                }
            }
            MemberType::Struct => {
                let rec = src.record(n)?;
                let class = m.class.as_deref().ok_or_else(|| src.err(n, "a struct member without a class"))?;
                let ms: Vec<Member> = members_in(self.classes, class).cloned().collect();
                MemberValue::Struct(self.members(src, &ms, &rec, depth + 1)?)
            }
            MemberType::InplaceArray | MemberType::HomogeneousArray => {
                return Err(src.err(n, &format!("{} has no value form", ty.sdk_name())))
            }
        })
    }
}
