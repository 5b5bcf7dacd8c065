//! The walk of a packfile object's member values in: [`PackWalk`] makes each member's
//! [`MemberValue`] from its class description, each member kind handled here once, pulling the
//! values from a [`PackSource`] (the dump's value tree, the `<hkpackfile>` XML reader), which
//! reports errors at its own place (a dump path, an XML line and column).
//!
//! The source only says how a scalar or a container is spelt; the walk decides what a value of
//! each kind is: a bool, an integer of its member type's width, a real or half, a vector of 4 and
//! a matrix of 12 or 16 reals, an enum or flags by its storage type, a pointer, a variant's two
//! pointers, a string, an array of its element type, a struct by its class's members, a C array
//! of whole elements, and an object's hidden bytes.
//!
//! The walk asks in order: a record's fields one by one ([`PackSource::field`]), a container's
//! elements one by one ([`PackSource::item`]), so that a streaming source (the XML reader) reads
//! each value where it stands; a source may give a member late ([`Next::Late`]: its parameter
//! came after later members'), or say it is absent (its zero value).

use std::rc::Rc;

use super::layout::{Member, MemberType};
use super::objects::{typed_items, Items, MemberArray, MemberValue, Ref, HIDDEN};
use crate::error::ValueError;

/// How deep values may nest (structs, arrays).
pub const MAX_DEPTH: usize = 64;

/// What a source gives for the field the walk asks for.
pub(crate) enum Next<N> {
    /// The value of the field asked for.
    Value(N),
    /// The field asked for has no value in the form: [`PackSource::absent`] gives it.
    Absent,
    /// The value of an earlier field the source called absent (its value came out of order);
    /// the field asked for is asked again.
    Late(usize, N),
    /// The record ends (asked for the field after the last).
    End,
}

/// Where the walk in takes values from: one form's spelling of them. A node is a value's place
/// in the form (and where its errors point); a record and a sequence are a struct's and a
/// container's values being read.
pub(crate) trait PackSource {
    type Node;
    type Rec;
    type Seq;

    /// An error at `n`.
    fn err(&self, n: &Self::Node, msg: &str) -> ValueError;
    /// The members of `class` (its ancestors' first).
    fn members(&mut self, n: &Self::Node, class: &str) -> Result<Rc<[Member]>, ValueError>;
    /// `n` as a record of the members `ms` (an object's or a struct member's value).
    fn record(&mut self, n: &Self::Node, ms: &[Member]) -> Result<Self::Rec, ValueError>;
    /// The value of member `i` of `ms` (`i == ms.len()`: the record's end) of the record `r` of
    /// `class`.
    fn field(&mut self, r: &mut Self::Rec, class: &str, ms: &[Member], i: usize) -> Result<Next<Self::Node>, ValueError>;
    /// The value of member `m` of the record `r`, which the form does not give.
    fn absent(&mut self, r: &Self::Rec, class: &str, m: &Member) -> Result<MemberValue, ValueError>;
    /// An object's hidden bytes.
    fn hidden(&mut self, n: &Self::Node) -> Result<Vec<u8>, ValueError>;
    /// The elements of C array member `m` (`count` of them).
    fn c_array(&mut self, n: &Self::Node, m: &Member, count: usize) -> Result<Self::Seq, ValueError>;
    /// The elements of array member `m` (of kind `m.ty`).
    fn array(&mut self, n: &Self::Node, m: &Member) -> Result<Self::Seq, ValueError>;
    /// How many elements to reserve room for.
    fn size_hint(&self, s: &Self::Seq) -> usize;
    /// The next element (`None`: the container ends).
    fn item(&mut self, s: &mut Self::Seq) -> Result<Option<Self::Node>, ValueError>;
    /// Plain numbers of kind `ty` (an integer type, a real, a vector or quaternion: no enum) at the start of
    /// what is left of `s`, appended to `out` in one loop where the source spells them plainly
    /// (the XML reader's token lists), as many as it can: the walk then goes on element by
    /// element ([`PackSource::item`]) from the first it did not take (an element it may not
    /// take, or an error, which the per-element read reports at its place). `out` is typed for
    /// `ty` where the container is an array of plain numbers, else values. By default, none.
    fn numbers(&mut self, _s: &mut Self::Seq, _ty: MemberType, _out: &mut Items) {}
    /// The container's end, after `len` elements: the capacity the form states (an hkArray's).
    fn end_items(&mut self, s: Self::Seq, len: usize) -> Result<Option<u32>, ValueError>;
    /// A void member's (empty) value.
    fn void(&mut self, n: &Self::Node) -> Result<(), ValueError>;
    fn bool(&mut self, n: &Self::Node) -> Result<u8, ValueError>;
    /// An integer of type `ty` (of member `m`: an enum's storage, an array's element), `bits`
    /// wide, within its range.
    fn int(&mut self, n: &Self::Node, m: &Member, ty: MemberType, signed: bool, bits: u32) -> Result<i128, ValueError>;
    fn real(&mut self, n: &Self::Node) -> Result<f32, ValueError>;
    /// A half's 16 bits.
    fn half(&mut self, n: &Self::Node) -> Result<u16, ValueError>;
    /// The `count` reals of a vector or matrix of kind `ty`.
    fn reals(&mut self, n: &Self::Node, ty: MemberType, count: usize) -> Result<Vec<f32>, ValueError>;
    /// The 4 reals of a vector or quaternion (kind `ty`): [`PackSource::reals`] unless the source
    /// reads them without a `Vec`.
    fn vec4(&mut self, n: &Self::Node, ty: MemberType) -> Result<[f32; 4], ValueError> {
        let f = self.reals(n, ty, 4)?;
        match f[..] {
            [a, b, c, d] => Ok([a, b, c, d]),
            _ => Err(self.err(n, "a vector of 4 reals belongs here")),
        }
    }
    fn pointer(&mut self, n: &Self::Node) -> Result<Ref, ValueError>;
    /// A variant's object and class pointers.
    fn variant(&mut self, n: &Self::Node) -> Result<(Ref, Ref), ValueError>;
    /// A string (`None`: null).
    fn string(&mut self, n: &Self::Node) -> Result<Option<Vec<u8>>, ValueError>;
}

/// The walk in.
pub(crate) struct PackWalk;

impl PackWalk {
    /// The values of `class`'s members (its ancestors' first) from the record `n`.
    pub fn object<S: PackSource>(&self, src: &mut S, class: &str, n: &S::Node) -> Result<Vec<MemberValue>, ValueError> {
        self.record(src, class, n, 0)
    }

    fn record<S: PackSource>(&self, src: &mut S, class: &str, n: &S::Node, depth: usize) -> Result<Vec<MemberValue>, ValueError> {
        if depth > MAX_DEPTH {
            return Err(src.err(n, &format!("values nested more than {MAX_DEPTH} deep")));
        }
        let ms = src.members(n, class)?;
        let mut r = src.record(n, &ms)?;
        let mut out: Vec<MemberValue> = Vec::with_capacity(ms.len());
        loop {
            let i = out.len();
            match src.field(&mut r, class, &ms, i)? {
                Next::Value(x) => {
                    let v = self.member(src, &ms[i], &x, depth)?;
                    out.push(v);
                }
                Next::Absent => {
                    let v = src.absent(&r, class, &ms[i])?;
                    out.push(v);
                }
                Next::Late(k, x) => {
                    let v = self.member(src, &ms[k], &x, depth)?;
                    match out.get_mut(k) {
                        Some(o) => *o = v,
                        None => return Err(src.err(&x, "a late value of a member not yet passed")),
                    }
                }
                Next::End => return Ok(out),
            }
        }
    }

    fn member<S: PackSource>(&self, src: &mut S, m: &Member, x: &S::Node, depth: usize) -> Result<MemberValue, ValueError> {
        Ok(if m.name == HIDDEN {
            MemberValue::Opaque(src.hidden(x)?)
        } else if m.c_array_size > 0 {
            let s = src.c_array(x, m, usize::from(m.c_array_size))?;
            MemberValue::CArray(self.items(src, s, m, m.ty, depth, false)?.0.into_values())
        } else {
            self.one(src, m, m.ty, x, depth)?
        })
    }

    /// The elements of `s`, each of kind `ty` (of member `m`), and the capacity the source states;
    /// `typed`: numbers and vectors are kept typed ([`typed_items`]: an hkArray's or simple
    /// array's elements), else values.
    fn items<S: PackSource>(&self, src: &mut S, mut s: S::Seq, m: &Member, ty: MemberType, depth: usize, typed: bool) -> Result<(Items, Option<u32>), ValueError> {
        let n = src.size_hint(&s);
        let mut vals = if typed { typed_items(m, ty, n) } else { Items::Values(Vec::with_capacity(n)) };
        if m.enumeration.is_none() && matches!(ty, MemberType::Int8 | MemberType::Int16 | MemberType::Int32 | MemberType::Int64 | MemberType::Uint8 | MemberType::Uint16 | MemberType::Uint32 | MemberType::Uint64 | MemberType::Real | MemberType::Vector4 | MemberType::Quaternion) {
            src.numbers(&mut s, ty, &mut vals);
        }
        if let Items::Values(v) = &mut vals {
            while let Some(x) = src.item(&mut s)? {
                v.push(self.one(src, m, ty, &x, depth)?);
            }
        } else {
            while let Some(x) = src.item(&mut s)? {
                vals.push(self.one(src, m, ty, &x, depth)?);
            }
        }
        vals.shrink_to_fit();
        let capacity = src.end_items(s, vals.len())?;
        Ok((vals, capacity))
    }

    fn one<S: PackSource>(&self, src: &mut S, m: &Member, ty: MemberType, n: &S::Node, depth: usize) -> Result<MemberValue, ValueError> {
        if depth > MAX_DEPTH {
            return Err(src.err(n, &format!("values nested more than {MAX_DEPTH} deep")));
        }
        let int = |src: &mut S, signed: bool, bits: u32| -> Result<MemberValue, ValueError> {
            let v = src.int(n, m, ty, signed, bits)?;
            Ok(if signed { MemberValue::Int(v as i64) } else { MemberValue::UInt(v as u64) })
        };
        Ok(match ty {
            MemberType::Void => {
                src.void(n)?;
                MemberValue::Void
            }
            MemberType::Bool => MemberValue::Bool(src.bool(n)?),
            MemberType::Char | MemberType::Int8 => int(src, true, 8)?,
            MemberType::Int16 => int(src, true, 16)?,
            MemberType::Int32 => int(src, true, 32)?,
            MemberType::Int64 => int(src, true, 64)?,
            MemberType::Uint8 => int(src, false, 8)?,
            MemberType::Uint16 => int(src, false, 16)?,
            MemberType::Uint32 => int(src, false, 32)?,
            MemberType::Uint64 | MemberType::Ulong => int(src, false, 64)?,
            MemberType::Real => MemberValue::Real(src.real(n)?),
            MemberType::Half => MemberValue::Half(src.half(n)?),
            MemberType::Vector4 | MemberType::Quaternion => {
                MemberValue::Vec4(src.vec4(n, ty)?)
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
                let s = src.array(n, m)?;
                // Each element of kind `m.subtype` (of `m`'s class, enum).
                let (vals, capacity) = self.items(src, s, m, m.subtype, depth + 1, ty != MemberType::RelArray)?;
                match ty {
                    MemberType::RelArray => MemberValue::RelArray(vals.into_values()),
                    MemberType::SimpleArray => MemberValue::Array(MemberArray { items: vals, capacity: 0 }),
                    _ => {
                        let mut a = MemberArray::from_items(vals, super::objects::DONT_DEALLOCATE);
                        if let Some(c) = capacity {
                            a.capacity = c;
                        }
                        MemberValue::Array(a)
                    }
                }
            }
            MemberType::Struct => {
                let class = m.class.as_deref().ok_or_else(|| src.err(n, "a struct member without a class"))?;
                MemberValue::Struct(self.record(src, class, n, depth + 1)?)
            }
            MemberType::InplaceArray | MemberType::HomogeneousArray => {
                return Err(src.err(n, &format!("{} has no value form", ty.sdk_name())))
            }
        })
    }
}
