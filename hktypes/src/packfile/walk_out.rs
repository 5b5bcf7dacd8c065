//! The walk of a packfile object's member values out: [`PackOut`] goes over a typed object's
//! members and their [`MemberValue`]s, each member kind decided here once, and tells a
//! [`PackSink`] (the `<hkpackfile>` XML writer, the dump) what each value is; the sink only
//! spells it. The counterpart of [`super::walk`]'s walk in.
//!
//! What the walk decides: an object's hidden bytes (by the member's name, [`HIDDEN`]); a C array
//! of whole elements; an array (hkArray with its capacity word, a simple or relative array) of
//! its element type; a struct by its class's members (with their ancestors' first, nested at
//! most [`MAX_DEPTH`] deep); an enum or flags by its storage (its items, where the member names
//! an enumeration the class set has); an integer as stored (signed or not); a bool as its stored
//! byte; a half as the real whose upper 16 bits it is; a vector's 4 and a matrix's 12 or 16
//! reals; a pointer; a variant's object and class pointers; a string or null; a void member.
//! A value whose kind is not its member type's is an error at its path ([`Path`]).

use super::layout::{ClassSet, Member, MemberType};
use super::objects::{members_in, ItemSlice, MemberArray, MemberValue, Ref, HIDDEN};
use super::walk::MAX_DEPTH;
use crate::error::{ErrorKind, ValueError};
use std::collections::HashMap;
use std::rc::Rc;

/// Where a value is: built on the stack as a walk goes down, spelled out only in an error message.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Path<'a> {
    /// The object (the writer: `object #0001 (hkFoo)`; the reader: empty, the object apart).
    Root(&'a str),
    /// A member of a struct.
    Member(&'a Path<'a>, &'a str),
    /// An element of an array.
    Index(&'a Path<'a>, usize),
}

impl Path<'_> {
    pub(crate) fn is_root(&self) -> bool {
        matches!(self, Path::Root(_))
    }
}

impl std::fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Path::Root(s) => f.write_str(s),
            Path::Member(Path::Root(""), name) => f.write_str(name),
            Path::Member(p, name) => write!(f, "{p}.{name}"),
            Path::Index(p, i) => write!(f, "{p}[{i}]"),
        }
    }
}

/// A value of the wrong kind at `path`, where `what` belongs.
pub(crate) fn wrong(path: &Path<'_>, what: &str, v: &MemberValue) -> ValueError {
    ValueError::new(ErrorKind::Invalid(format!("{path}: a {} value where {what} belongs", v.kind())))
}

/// `TYPE_HALF` bits as a float: Havok's `hkHalf` is the upper 16 bits of a 32-bit float (the
/// binaries Havok's packer made from XML say so: `0.049805` is stored `0x3D4C`).
pub(crate) fn half_to_f32(h: u16) -> f32 {
    f32::from_bits(u32::from(h) << 16)
}

/// How a member's value is held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Held {
    /// One value: a scalar, a vector or matrix, a pointer, a variant, a string.
    One,
    /// An object's hidden bytes.
    Hidden,
    /// A struct (its members follow between [`PackSink::record`] and [`PackSink::record_end`]).
    Struct,
    /// An array of `len` elements; `capacity`: an hkArray's capacity word (`None` for the other
    /// arrays).
    Array { len: usize, capacity: Option<u32>, elem: Elem },
    /// A C array of `len` elements.
    CArray { len: usize, elem: Elem },
}

/// What the elements of an array or C array are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Elem {
    /// Structs.
    Struct,
    /// Strings.
    String,
    /// Vectors, quaternions, matrices, transforms.
    Reals,
    /// Numbers, bools, enums, pointers, variants.
    Scalar,
}

/// An integer as stored.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Int {
    Signed(i64),
    Unsigned(u64),
}

/// What an integer that is an enum or flags is.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EnumOf<'c> {
    /// The enumeration's items (value, name), where the member names one the class set has.
    pub items: Option<&'c [(i64, String)]>,
    /// Flags (bits), not an enum.
    pub flags: bool,
}

/// Where the walk out puts values: one form's spelling of them. The walk calls, per member, one
/// [`member`](PackSink::member), then (where it returns true) [`open`](PackSink::open), the
/// value, [`close`](PackSink::close) with the same [`Held`]; per element of an array,
/// [`element`](PackSink::element), the value, [`element_end`](PackSink::element_end); per
/// struct value, [`record`](PackSink::record), its members, [`record_end`](PackSink::record_end).
pub(crate) trait PackSink {
    /// Member `m` of value `v` at `path` begins; `false` passes it over (no value, no `close`).
    fn member(&mut self, m: &Member, v: &MemberValue, path: &Path<'_>) -> Result<bool, ValueError>;
    /// The member's value, held as `held`, follows.
    fn open(&mut self, held: Held);
    /// The member's value is done.
    fn close(&mut self, held: Held);
    /// Element `i` of `len` follows.
    fn element(&mut self, i: usize, len: usize, elem: Elem);
    /// Element `i` of `len` is done.
    fn element_end(&mut self, i: usize, len: usize, elem: Elem);
    /// A struct of `class`: its members follow.
    fn record(&mut self, class: &str);
    fn record_end(&mut self);
    /// A void member's value.
    fn void(&mut self);
    /// A bool's stored byte.
    fn bool(&mut self, b: u8);
    /// A signed integer.
    fn int(&mut self, i: i64);
    /// An unsigned integer.
    fn uint(&mut self, u: u64);
    /// An enum's or flags' value.
    fn enumeration(&mut self, n: Int, e: EnumOf<'_>);
    /// A real (a half's too).
    fn real(&mut self, x: f32);
    /// A vector's or quaternion's 4 reals, a matrix's or transform's 12 or 16 (4 per column or
    /// part), of type `ty`.
    fn reals(&mut self, ty: MemberType, f: &[f32]);
    fn pointer(&mut self, r: &Ref, path: &Path<'_>) -> Result<(), ValueError>;
    /// A variant's object and class pointers.
    fn variant(&mut self, object: &Ref, class: &Ref, path: &Path<'_>) -> Result<(), ValueError>;
    /// A string (`None`: null).
    fn string(&mut self, s: Option<&[u8]>, path: &Path<'_>) -> Result<(), ValueError>;
    /// An object's hidden bytes.
    fn hidden(&mut self, bytes: &[u8]);
    /// The elements `items` of type `ty` (numbers, bools, enums, pointers, variants: [`Elem::Scalar`])
    /// of member `m`'s array or C array at `path`, in one call; by default each as
    /// [`element`](PackSink::element), the value, [`element_end`](PackSink::element_end)
    /// ([`each_scalar`]). A sink may spell the plain kinds in a loop of its own (checking each
    /// value's kind as [`each_scalar`] does).
    fn scalars(&mut self, classes: &ClassSet, m: &Member, ty: MemberType, items: ItemSlice<'_>, path: &Path<'_>) -> Result<(), ValueError>
    where
        Self: Sized,
    {
        each_scalar(self, classes, m, ty, items, path)
    }
}

/// [`PackSink::scalars`]' default: each element of `items` with its [`Path::Index`].
pub(crate) fn each_scalar<S: PackSink>(sink: &mut S, classes: &ClassSet, m: &Member, ty: MemberType, items: ItemSlice<'_>, path: &Path<'_>) -> Result<(), ValueError> {
    let len = items.len();
    for (i, v) in items.iter().enumerate() {
        sink.element(i, len, Elem::Scalar);
        one(sink, classes, m, ty, &v, &Path::Index(path, i))?;
        sink.element_end(i, len, Elem::Scalar);
    }
    Ok(())
}

/// One value `v` of type `ty` of member `m` that is not a struct.
#[inline]
fn one<S: PackSink>(sink: &mut S, classes: &ClassSet, m: &Member, ty: MemberType, v: &MemberValue, path: &Path<'_>) -> Result<(), ValueError> {
    use MemberType as T;
    use MemberValue as V;
    match (ty, v) {
        (T::Bool, V::Bool(b)) => sink.bool(*b),
        (T::Enum | T::Flags, V::Int(_) | V::UInt(_)) => {
            let items = m.enumeration.as_deref().and_then(|e| classes.enums.get(e)).map(Vec::as_slice);
            let n = if let V::UInt(u) = v { Int::Unsigned(*u) } else if let V::Int(i) = v { Int::Signed(*i) } else { Int::Signed(0) };
            sink.enumeration(n, EnumOf { items, flags: ty == T::Flags });
        }
        (T::Char | T::Int8 | T::Int16 | T::Int32 | T::Int64 | T::Uint8 | T::Uint16 | T::Uint32 | T::Uint64 | T::Ulong | T::Zero, V::Int(i)) => sink.int(*i),
        (T::Char | T::Int8 | T::Int16 | T::Int32 | T::Int64 | T::Uint8 | T::Uint16 | T::Uint32 | T::Uint64 | T::Ulong | T::Zero, V::UInt(u)) => sink.uint(*u),
        (T::Real, V::Real(x)) => sink.real(*x),
        (T::Half, V::Half(h)) => sink.real(half_to_f32(*h)),
        (T::Vector4 | T::Quaternion, V::Vec4(f)) => sink.reals(ty, f),
        (T::Matrix3 | T::Rotation | T::QsTransform, V::Floats(f)) if f.len() == 12 => sink.reals(ty, f),
        (T::Matrix4 | T::Transform, V::Floats(f)) if f.len() == 16 => sink.reals(ty, f),
        (T::Pointer | T::FunctionPointer, V::Ptr(r)) => sink.pointer(r, path)?,
        (T::Variant, V::Variant(a, b)) => sink.variant(a, b, path)?,
        (T::CString | T::StringPtr, V::Str(s)) => sink.string(s.as_deref(), path)?,
        (T::Void, V::Void) => sink.void(),
        _ => return Err(wrong(path, ty.sdk_name().as_str(), v)),
    }
    Ok(())
}

/// The walk out over one class set (which keeps each class's members, looked up once).
pub(crate) struct PackOut<'c> {
    classes: &'c ClassSet,
    /// Per class: its members with its ancestors' first.
    members: HashMap<&'c str, Rc<[&'c Member]>>,
    /// The class last looked up there (the elements of an array of structs are of one class).
    last: Option<(&'c str, Rc<[&'c Member]>)>,
}

/// What the elements of type `ty` are.
fn elem_of(ty: MemberType) -> Elem {
    match ty {
        MemberType::Struct => Elem::Struct,
        MemberType::CString | MemberType::StringPtr => Elem::String,
        MemberType::Vector4 | MemberType::Quaternion | MemberType::Matrix3 | MemberType::Rotation | MemberType::QsTransform | MemberType::Matrix4 | MemberType::Transform => Elem::Reals,
        _ => Elem::Scalar,
    }
}

impl<'c> PackOut<'c> {
    pub fn new(classes: &'c ClassSet) -> Self {
        PackOut { classes, members: HashMap::new(), last: None }
    }

    /// The members of `class` with its ancestors' first (the hidden bytes after a hidden class's
    /// own), once per class; none for a class the set has not.
    fn members_of(&mut self, class: &str) -> Rc<[&'c Member]> {
        if let Some((name, m)) = &self.last {
            if *name == class {
                return m.clone();
            }
        }
        let classes = self.classes;
        let Some((name, _)) = classes.classes.get_key_value(class) else { return Rc::from(Vec::new()) };
        let m = match self.members.get(class) {
            Some(m) => m.clone(),
            None => {
                let m: Rc<[&'c Member]> = members_in(classes, class).collect::<Vec<_>>().into();
                self.members.insert(name.as_str(), m.clone());
                m
            }
        };
        self.last = Some((name.as_str(), m.clone()));
        m
    }

    /// The members of object `values` of `class` into `sink` (`path`: the object's).
    pub fn object<S: PackSink>(&mut self, sink: &mut S, class: &str, values: &[MemberValue], path: &Path<'_>) -> Result<(), ValueError> {
        self.members(sink, class, values, path, 0)
    }

    fn members<S: PackSink>(&mut self, sink: &mut S, class: &str, values: &[MemberValue], path: &Path<'_>, nest: usize) -> Result<(), ValueError> {
        if nest > MAX_DEPTH {
            return Err(ValueError::new(ErrorKind::Cycle(format!("{path}: structs nested more than {MAX_DEPTH} deep"))));
        }
        let members = self.members_of(class);
        if members.len() != values.len() {
            return Err(ValueError::new(ErrorKind::Invalid(format!("{path}: {} values for the {} members of {class}", values.len(), members.len()))));
        }
        for (&m, v) in members.iter().zip(values) {
            let path = &Path::Member(path, &m.name);
            if sink.member(m, v, path)? {
                self.member(sink, m, v, path, nest)?;
            }
        }
        Ok(())
    }

    /// Member `m`'s value `v`.
    #[inline]
    fn member<S: PackSink>(&mut self, sink: &mut S, m: &'c Member, v: &MemberValue, path: &Path<'_>, nest: usize) -> Result<(), ValueError> {
        // (The hidden bytes' member is void; the type is compared first, as it is cheaper.)
        if m.ty == MemberType::Void && m.name == HIDDEN {
            let MemberValue::Opaque(bytes) = v else { return Err(wrong(path, "hidden bytes", v)) };
            sink.open(Held::Hidden);
            sink.hidden(bytes);
            sink.close(Held::Hidden);
            return Ok(());
        }
        if m.c_array_size > 0 {
            let MemberValue::CArray(items) = v else { return Err(wrong(path, "a C array", v)) };
            return self.items(sink, m, m.ty, items[..].into(), Held::CArray { len: items.len(), elem: elem_of(m.ty) }, path, nest);
        }
        match m.ty {
            MemberType::Array | MemberType::SimpleArray | MemberType::RelArray => {
                let (items, capacity) = match v {
                    MemberValue::Array(MemberArray { items, capacity }) => (items.as_slice(), (m.ty == MemberType::Array).then_some(*capacity)),
                    MemberValue::RelArray(items) => (items[..].into(), None),
                    _ => return Err(wrong(path, m.ty.sdk_name().as_str(), v)),
                };
                self.items(sink, m, m.subtype, items, Held::Array { len: items.len(), capacity, elem: elem_of(m.subtype) }, path, nest)
            }
            ty => {
                let held = if ty == MemberType::Struct { Held::Struct } else { Held::One };
                sink.open(held);
                self.value(sink, m, ty, v, path, nest)?;
                sink.close(held);
                Ok(())
            }
        }
    }

    /// The elements `items` of type `ty` of member `m`'s array or C array.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn items<S: PackSink>(&mut self, sink: &mut S, m: &'c Member, ty: MemberType, items: ItemSlice<'_>, held: Held, path: &Path<'_>, nest: usize) -> Result<(), ValueError> {
        sink.open(held);
        let elem = elem_of(ty);
        if elem == Elem::Scalar {
            sink.scalars(self.classes, m, ty, items, path)?;
            sink.close(held);
            return Ok(());
        }
        let len = items.len();
        for (i, v) in items.iter().enumerate() {
            sink.element(i, len, elem);
            self.value(sink, m, ty, &v, &Path::Index(path, i), nest)?;
            sink.element_end(i, len, elem);
        }
        sink.close(held);
        Ok(())
    }

    /// One value `v` of type `ty` of member `m` (a member's own, or one element of its array).
    fn value<S: PackSink>(&mut self, sink: &mut S, m: &'c Member, ty: MemberType, v: &MemberValue, path: &Path<'_>, nest: usize) -> Result<(), ValueError> {
        match (ty, v) {
            (MemberType::Struct, MemberValue::Struct(fields)) => {
                let class = m.class.as_deref().unwrap_or_default();
                sink.record(class);
                self.members(sink, class, fields, path, nest + 1)?;
                sink.record_end();
                Ok(())
            }
            _ => one(sink, self.classes, m, ty, v, path),
        }
    }
}
