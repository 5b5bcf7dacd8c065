//! Packfile objects as generated Rust structs (the `hk2014_2` and `hk2014_1` modules of the root
//! crate), on top of [`PackfileDocument`]'s values.
//!
//! A generated struct holds no offsets: [`PackfileDocument`] lays a class out under the file's own four
//! layout rules (pointer size, byte order, reuse-padding, empty-base) when it reads and writes, and
//! a struct converts to and from the object's member values, member by member in declaration order
//! (the ancestors' first, as [`Body::Typed`] holds them). So one struct serves every platform, and
//! [`PackfileDocument::write_as`] lays an edited object out for another.
//!
//! A struct applies to an object only when the class name matches, the signature the file stores
//! in `__classnames__` is the struct's [`PackClass::SIGNATURE`] (the schema's, recomputed), and the
//! document read the object through a description with the same members. Objects of other classes
//! stay values ([`PackfileDocument::field`]) or bytes ([`Body::Untyped`]).
//!
//! Typed access is [`crate::Document`]'s, one convention for both formats (`get`, `get_mut`,
//! `all`, `set`, `add`); a packfile document is `crate::Document::Packfile(doc)`:
//!
//! ```no_run
//! # use hktypes::value::Typed;
//! # fn demo<Skeleton: Typed + Clone>(doc: hktypes::packfile::objects::PackfileDocument) -> hktypes::Result<()> {
//! // With a generated `hkaSkeleton` (`hkclasses::hk2014_2::hkaSkeleton`):
//! let mut doc = hktypes::Document::Packfile(doc);
//! for (_h, skeleton) in doc.all::<Skeleton>() {
//!     let _s = skeleton?; // read every skeleton
//! }
//! for h in doc.find(Skeleton::ENTRY.name) {
//!     let _s = doc.get_mut::<Skeleton>(h)?; // ... change it; stored back when dropped
//! }
//! let _bytes = doc.write()?;
//! # Ok(()) }
//! ```
//!
//! Member types: integers as `i8`...`u64` (`TYPE_ULONG` as `u64`), `hkBool` as
//! [`Bool8`] (the stored byte), `hkHalf` as [`Half16`], `hkReal` as `f32`, the
//! math types as [`crate::value`]'s lane types, enums and flags with named items as
//! [`Enum`]/[`Flags`] over the storage integer (a value without a name is kept), strings as
//! [`PackString`] (the stored bytes, whatever their encoding), pointers as [`Ptr`], `hkArray` as
//! `Vec` (its capacity word must be `len | ` the document's [`PackfileDocument::array_flags`], which the
//! document also gives each hkArray of a struct it stores), C arrays as `[T; N]`, embedded
//! structs as their struct, `hkVariant` as [`Variant`], `hkRelArray` as [`PackRelArray`], the bytes of
//! a class with hidden members that no member describes as [`PackOpaque`] (after the class's own
//! members, named [`HIDDEN`]), and member kinds the reader keeps no value for
//! (`TYPE_INPLACEARRAY`, `TYPE_HOMOGENEOUSARRAY`) as a dynamic [`MemberValue`].

pub use super::objects::HIDDEN;
use super::objects::{each_hk_array, each_hk_array_mut, ItemSlice, Items, MemberArray, Body, PackfileDocument, MemberValue, ARRAY_FLAG_BITS};
use crate::shared::Handle;
use crate::error::{ErrorKind, ValueError as Error};
use crate::value::{Bool8, ClassEntry, ClassFormat, Enum, Flags, Half16, Matrix3, Matrix4, PackfileClass, Ptr, QsTransform, Quaternion, Result, Transform, Vector4};
#[cfg(doc)]
use crate::value::Typed;
use std::any::Any;
use std::fmt;

fn err(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::Invalid(msg.into()))
}

fn expected(what: &str, v: &MemberValue) -> Error {
    err(format!("expected {what}, found a {} value", v.kind()))
}

/// A Rust type that one member value (of [`MemberValue`]) converts to and from without loss.
pub trait PackValue: Sized {
    /// The Rust value of `v`; an error when `v` is not of this member's shape or does not fit.
    fn from_value(v: &MemberValue) -> Result<Self>;
    /// The member value, as [`PackfileDocument`] writes it.
    fn to_value(&self) -> MemberValue;
    /// The elements `items` of an array, as the readers hold them: plain numbers and vectors
    /// typed ([`Items::Ints`], [`Items::Reals`]...), anything else values.
    fn to_items(items: &[Self]) -> Items {
        Items::Values(items.iter().map(PackValue::to_value).collect())
    }
}

/// A generated packfile class: its identity and its conversion to and from an object's member
/// values (the ancestors' members first).
pub trait PackClass: PackValue {
    /// The Havok class name.
    const NAME: &'static str;
    /// The class signature the schema recomputes (what `__classnames__` stores for it).
    const SIGNATURE: u32;
    /// The class version (0 when the schema gives none).
    const VERSION: u32;
    /// The parent class.
    const PARENT: Option<&'static str>;
    /// The names of the members, the ancestors' first: the order of [`Body::Typed`]'s values.
    const MEMBERS: &'static [&'static str];
    /// The struct from an object's values (exactly [`Self::MEMBERS`]`.len()` of them).
    fn from_values(values: &[MemberValue]) -> Result<Self>;
    /// Appends the values of every member, the ancestors' first.
    fn to_values(&self, out: &mut Vec<MemberValue>);
}

impl<T: ?Sized> PackValue for Ptr<T> {
    fn from_value(v: &MemberValue) -> Result<Self> {
        match v {
            MemberValue::Ptr(r) => Ok(Ptr::new(*r)),
            _ => Err(expected("a pointer", v)),
        }
    }
    fn to_value(&self) -> MemberValue {
        MemberValue::Ptr(self.target)
    }
}

/// `hkVariant`: an object and its class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Variant {
    /// The object.
    pub object: Ptr<crate::value::Unknown>,
    /// Its class (usually in `__types__`).
    pub class: Ptr<crate::value::Unknown>,
}

impl PackValue for Variant {
    fn from_value(v: &MemberValue) -> Result<Self> {
        match v {
            MemberValue::Variant(a, b) => Ok(Variant { object: Ptr::new(*a), class: Ptr::new(*b) }),
            _ => Err(expected("a variant", v)),
        }
    }
    fn to_value(&self) -> MemberValue {
        MemberValue::Variant(self.object.target, self.class.target)
    }
}

impl PackValue for MemberValue {
    fn from_value(v: &MemberValue) -> Result<Self> {
        Ok(v.clone())
    }
    fn to_value(&self) -> MemberValue {
        self.clone()
    }
}

impl PackValue for () {
    fn from_value(v: &MemberValue) -> Result<Self> {
        match v {
            MemberValue::Void => Ok(()),
            _ => Err(expected("void", v)),
        }
    }
    fn to_value(&self) -> MemberValue {
        MemberValue::Void
    }
}

macro_rules! ints {
    ($variant:ident, $form:ident, $wide:ty: $($t:ty),*) => {$(
        impl PackValue for $t {
            fn from_value(v: &MemberValue) -> Result<Self> {
                match v {
                    MemberValue::$variant(i) => <$t>::try_from(*i).map_err(|_| err(format!("{i} does not fit {}", stringify!($t)))),
                    _ => Err(expected(stringify!($t), v)),
                }
            }
            fn to_value(&self) -> MemberValue {
                MemberValue::$variant(<$wide>::from(*self))
            }
            fn to_items(items: &[Self]) -> Items {
                Items::$form(items.iter().map(|&x| <$wide>::from(x)).collect())
            }
        }
    )*};
}

ints!(Int, Ints, i64: i8, i16, i32, i64);
ints!(UInt, UInts, u64: u8, u16, u32, u64);

/// `PackValue` for a type held in one [`MemberValue`] variant: `$p => $from` builds it from the
/// variant's payload, `$s => $to` gives the payload back.
macro_rules! one_variant {
    ($($t:ty: $variant:ident, $what:literal, $p:ident => $from:expr, $s:ident => $to:expr $(, $form:ident |$x:ident| $item:expr)?;)*) => {$(
        impl PackValue for $t {
            fn from_value(v: &MemberValue) -> Result<Self> {
                match v {
                    MemberValue::$variant($p) => Ok($from),
                    _ => Err(expected($what, v)),
                }
            }
            fn to_value(&$s) -> MemberValue {
                MemberValue::$variant($to)
            }
            $(fn to_items(items: &[Self]) -> Items {
                Items::$form(items.iter().map(|$x| $item).collect())
            })?
        }
    )*};
}

one_variant! {
    f32: Real, "a real", r => *r, self => *self, Reals |x| *x;
    Bool8: Bool, "a bool", b => Bool8(*b), self => self.0;
    Half16: Half, "a half", h => Half16(*h), self => self.0;
    Vector4: Vec4, "a vector", l => Vector4 { lanes: *l }, self => self.lanes, Vec4s |x| x.lanes;
    Quaternion: Vec4, "a quaternion", l => Quaternion { lanes: *l }, self => self.lanes, Vec4s |x| x.lanes;
}

/// `N` lanes of four floats from a [`MemberValue::Floats`] of `4 * N`.
fn columns<const N: usize>(v: &MemberValue) -> Result<[[f32; 4]; N]> {
    match v {
        MemberValue::Floats(fs) if fs.len() == 4 * N => {
            let mut out = [[0f32; 4]; N];
            for (c, chunk) in out.iter_mut().zip(fs.chunks_exact(4)) {
                c.copy_from_slice(chunk);
            }
            Ok(out)
        }
        _ => Err(expected(&format!("{} floats", 4 * N), v)),
    }
}

fn floats(cols: &[[f32; 4]]) -> MemberValue {
    MemberValue::Floats(cols.iter().flatten().copied().collect())
}

fn v4(l: [f32; 4]) -> Vector4 {
    Vector4 { lanes: l }
}

impl PackValue for Matrix3 {
    fn from_value(v: &MemberValue) -> Result<Self> {
        let [a, b, c] = columns::<3>(v)?;
        Ok(Matrix3 { cols: [v4(a), v4(b), v4(c)] })
    }
    fn to_value(&self) -> MemberValue {
        floats(&self.cols.map(|c| c.lanes))
    }
}

impl PackValue for Matrix4 {
    fn from_value(v: &MemberValue) -> Result<Self> {
        let [a, b, c, d] = columns::<4>(v)?;
        Ok(Matrix4 { cols: [v4(a), v4(b), v4(c), v4(d)] })
    }
    fn to_value(&self) -> MemberValue {
        floats(&self.cols.map(|c| c.lanes))
    }
}

impl PackValue for Transform {
    fn from_value(v: &MemberValue) -> Result<Self> {
        let [a, b, c, t] = columns::<4>(v)?;
        Ok(Transform { rotation: Matrix3 { cols: [v4(a), v4(b), v4(c)] }, translation: v4(t) })
    }
    fn to_value(&self) -> MemberValue {
        let r = self.rotation.cols;
        floats(&[r[0].lanes, r[1].lanes, r[2].lanes, self.translation.lanes])
    }
}

impl PackValue for QsTransform {
    fn from_value(v: &MemberValue) -> Result<Self> {
        let [t, r, s] = columns::<3>(v)?;
        Ok(QsTransform { translation: v4(t), rotation: Quaternion { lanes: r }, scale: v4(s) })
    }
    fn to_value(&self) -> MemberValue {
        floats(&[self.translation.lanes, self.rotation.lanes, self.scale.lanes])
    }
}

/// A packfile string (`char*`, `hkStringPtr`): its bytes as stored, without the terminator;
/// `None` is the null pointer, `Some(vec![])` the empty string. Packfiles name no encoding (older
/// files hold Latin-1 or Shift-JIS paths), so the bytes are kept as they are and write back
/// unchanged; [`PackString::as_deref`] gives the text when it is UTF-8.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PackString(pub Option<Vec<u8>>);

impl PackString {
    /// The text, when the string is not null and its bytes are UTF-8.
    pub fn as_deref(&self) -> Option<&str> {
        self.0.as_deref().and_then(|b| std::str::from_utf8(b).ok())
    }

    /// The bytes, `None` for the null string.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        self.0.as_deref()
    }

    /// Whether this is the null string.
    pub fn is_null(&self) -> bool {
        self.0.is_none()
    }
}

impl From<&str> for PackString {
    fn from(s: &str) -> Self {
        PackString(Some(s.as_bytes().to_vec()))
    }
}

impl From<String> for PackString {
    fn from(s: String) -> Self {
        PackString(Some(s.into_bytes()))
    }
}

impl PackValue for PackString {
    fn from_value(v: &MemberValue) -> Result<Self> {
        match v {
            MemberValue::Str(s) => Ok(PackString(s.clone())),
            _ => Err(expected("a string", v)),
        }
    }
    fn to_value(&self) -> MemberValue {
        MemberValue::Str(self.0.clone())
    }
}

impl<E, S: PackValue> PackValue for Enum<E, S> {
    fn from_value(v: &MemberValue) -> Result<Self> {
        S::from_value(v).map(Enum::new)
    }
    fn to_value(&self) -> MemberValue {
        self.raw.to_value()
    }
}

impl<E, S: PackValue> PackValue for Flags<E, S> {
    fn from_value(v: &MemberValue) -> Result<Self> {
        S::from_value(v).map(Flags::new)
    }
    fn to_value(&self) -> MemberValue {
        self.raw.to_value()
    }
}

/// `hkArray<T>`: the capacity bits of the capacity word must be the length. Its flags are the
/// document's: [`crate::Document::get`] converts an object only where every hkArray's word is
/// `len | `[`PackfileDocument::array_flags`], and the document gives that word to each hkArray of a
/// struct it stores (for which [`PackValue::to_value`] writes `len | 0x80000000`); an array with
/// another word stays a value of the document.
impl<T: PackValue> PackValue for Vec<T> {
    fn from_value(v: &MemberValue) -> Result<Self> {
        match v {
            MemberValue::Array(a) => {
                if a.capacity & !ARRAY_FLAG_BITS != a.len() as u32 {
                    return Err(err(format!("array of {} with capacity word {:#x}, whose capacity is not its length", a.len(), a.capacity)));
                }
                items(a.items.as_slice())
            }
            _ => Err(expected("an array", v)),
        }
    }
    fn to_value(&self) -> MemberValue {
        MemberValue::Array(MemberArray::from_items(T::to_items(self), super::objects::DONT_DEALLOCATE))
    }
}

fn items<T: PackValue>(values: ItemSlice<'_>) -> Result<Vec<T>> {
    values.iter().enumerate().map(|(i, v)| T::from_value(&v).map_err(|e| e.in_context(format!("[{i}]")))).collect()
}

/// A simple array (`TYPE_SIMPLEARRAY`: pointer and count, no capacity word), as a `Vec`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SimpleArray<T>(pub Vec<T>);

impl<T> std::ops::Deref for SimpleArray<T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.0
    }
}
impl<T> std::ops::DerefMut for SimpleArray<T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.0
    }
}

impl<T: PackValue> PackValue for SimpleArray<T> {
    fn from_value(v: &MemberValue) -> Result<Self> {
        match v {
            MemberValue::Array(a) => items(a.items.as_slice()).map(SimpleArray),
            _ => Err(expected("an array", v)),
        }
    }
    fn to_value(&self) -> MemberValue {
        MemberValue::Array(MemberArray { items: T::to_items(&self.0), capacity: 0 })
    }
}

/// `hkRelArray<T>`: elements the object holds after its own members, as a `Vec` (the writer
/// places them and stores their 16-bit count and offset).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PackRelArray<T>(pub Vec<T>);

impl<T> std::ops::Deref for PackRelArray<T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.0
    }
}
impl<T> std::ops::DerefMut for PackRelArray<T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.0
    }
}

impl<T: PackValue> PackValue for PackRelArray<T> {
    fn from_value(v: &MemberValue) -> Result<Self> {
        match v {
            MemberValue::RelArray(a) => items(a[..].into()).map(PackRelArray),
            _ => Err(expected("a relative array", v)),
        }
    }
    fn to_value(&self) -> MemberValue {
        MemberValue::RelArray(self.0.iter().map(PackValue::to_value).collect())
    }
}

/// The bytes of a class's part of an object that its reflection does not describe (a class with
/// hidden members, marked so by its schema's layout override), in offset order: what the file
/// stored there, written back as they are. Its member name is [`HIDDEN`]; the layout fixes its
/// length (a value of another length does not write).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PackOpaque(pub Vec<u8>);

impl PackValue for PackOpaque {
    fn from_value(v: &MemberValue) -> Result<Self> {
        match v {
            MemberValue::Opaque(b) => Ok(PackOpaque(b.clone())),
            _ => Err(expected("hidden bytes", v)),
        }
    }
    fn to_value(&self) -> MemberValue {
        MemberValue::Opaque(self.0.clone())
    }
}

impl<T: PackValue, const N: usize> PackValue for [T; N] {
    fn from_value(v: &MemberValue) -> Result<Self> {
        match v {
            MemberValue::CArray(vs) if vs.len() == N => {
                let list: Vec<T> = items(vs[..].into())?;
                list.try_into().map_err(|_| err("C array length"))
            }
            _ => Err(expected(&format!("a C array of {N}"), v)),
        }
    }
    fn to_value(&self) -> MemberValue {
        MemberValue::CArray(self.iter().map(PackValue::to_value).collect())
    }
}

/// Reads member `i` (named `name`) of a generated class's values; used by generated code.
pub fn member<T: PackValue>(values: &[MemberValue], i: usize, name: &str) -> Result<T> {
    let v = values.get(i).ok_or_else(|| err(format!("member {name}: only {} values", values.len())))?;
    T::from_value(v).map_err(|e| e.in_context(name.to_owned()))
}

/// The values of a generated class from a [`MemberValue::Struct`] (embedded structs); used by generated
/// code for [`PackValue::from_value`].
pub fn struct_values<T: PackClass>(v: &MemberValue) -> Result<T> {
    match v {
        MemberValue::Struct(values) => T::from_values(values).map_err(|e| e.in_context(T::NAME)),
        _ => Err(expected(&format!("a {} struct", T::NAME), v)),
    }
}

/// The [`MemberValue::Struct`] of a generated class; used by generated code for
/// [`PackValue::to_value`].
pub fn to_struct<T: PackClass>(t: &T) -> MemberValue {
    let mut out = Vec::with_capacity(T::MEMBERS.len());
    t.to_values(&mut out);
    MemberValue::Struct(out)
}

/// Checks the number of values a generated class is read from; used by generated code.
pub fn check_count<T: PackClass>(values: &[MemberValue]) -> Result<()> {
    if values.len() == T::MEMBERS.len() {
        Ok(())
    } else {
        Err(err(format!("{}: {} values for {} members", T::NAME, values.len(), T::MEMBERS.len())))
    }
}

fn read_of<T: PackClass + 'static>(values: &[MemberValue]) -> Result<Box<dyn Any>> {
    Ok(Box::new(T::from_values(values)?))
}

fn write_of<T: PackClass + 'static>(t: &dyn Any, out: &mut Vec<MemberValue>) -> Option<()> {
    t.downcast_ref::<T>().map(|t| t.to_values(out))
}

fn debug_of<T: PackClass + fmt::Debug>(values: &[MemberValue]) -> Result<String> {
    Ok(format!("{:#?}", T::from_values(values)?))
}

impl ClassEntry {
    /// The entry of packfile class `T` (what the generated [`Typed::ENTRY`] of a packfile class
    /// is).
    pub const fn packfile<T: PackClass + fmt::Debug + 'static>() -> Self {
        ClassEntry {
            name: T::NAME,
            version: if T::VERSION == 0 { None } else { Some(T::VERSION) },
            parent: T::PARENT,
            format: ClassFormat::Packfile(PackfileClass {
                signature: T::SIGNATURE,
                members: T::MEMBERS,
                read: read_of::<T>,
                write: write_of::<T>,
                debug: debug_of::<T>,
            }),
        }
    }
}

/// What [`PackfileDocument::through_structs`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StructCounts {
    /// Objects converted into their generated struct and back.
    pub structs: usize,
    /// Objects left as they are: no struct of their class (or of its signature), or untyped.
    pub untyped: usize,
    /// Objects that have a struct but whose values did not convert (kept as they were).
    pub failed: usize,
    /// The first of those: the object, its class and why.
    pub first_failure: Option<(Handle, String, String)>,
}

impl PackfileDocument {
    /// The signature `__classnames__` stores for the class of object `h`.
    pub fn signature_of(&self, h: Handle) -> Option<u32> {
        let o = self.objects.get(h.0 as usize)?;
        self.file.class_names().at_offset(o.class_ref.1).map(|c| c.signature)
    }

    /// Whether the members the document read `class` with are, by name, `members`.
    fn members_are(&self, class: &str, members: &[&str]) -> bool {
        let mut chain = Vec::new();
        let mut next = self.classes.classes.get(class);
        while let Some(c) = next {
            if chain.len() > 64 {
                return false;
            }
            chain.push(c);
            next = c.parent.as_deref().and_then(|p| self.classes.classes.get(p));
        }
        let mut names =
            chain.iter().rev().flat_map(|c| c.members.iter().map(|m| m.name.as_str()).chain(c.hidden_members.then_some(HIDDEN)));
        members.iter().all(|m| names.next() == Some(*m)) && names.next().is_none()
    }

    /// Whether every hkArray among `values` (of `class`, its members' values) has the capacity
    /// word `len | `[`PackfileDocument::array_flags`], which a `Vec` stands for.
    fn stock_arrays(&self, class: &str, values: &[MemberValue]) -> bool {
        each_hk_array(&self.classes, class, values, 0, &mut |a| a.capacity == a.items.len() as u32 | self.array_flags)
    }

    /// Gives every hkArray among `values` (of `class`, values from a struct) the capacity word
    /// `len | `[`PackfileDocument::array_flags`].
    pub(crate) fn give_array_flags(&self, class: &str, values: &mut [MemberValue]) {
        each_hk_array_mut(&self.classes, class, values, 0, &mut |a| {
            a.capacity = a.items.len() as u32 | self.array_flags;
            true
        });
    }

    /// The values of object `h` when a class of that name, signature and members applies to it
    /// ([`Self::applies`]) and every hkArray among them has the document's capacity word
    /// ([`Self::stock_arrays`]): the values a struct converts from.
    pub(crate) fn struct_source(&self, h: Handle, name: &str, signature: u32, members: &[&str]) -> Result<&[MemberValue]> {
        let values = self.applies(h, name, signature, members)?;
        if !self.stock_arrays(name, values) {
            return Err(err(format!(
                "object {} ({name}) has an hkArray whose capacity word is not its length | {:#x} (the document's flags): it stays values",
                h.0, self.array_flags
            )));
        }
        Ok(values)
    }

    /// The values of object `h` when a class of that name, signature and members applies to it.
    pub(crate) fn applies(&self, h: Handle, name: &str, signature: u32, members: &[&str]) -> Result<&[MemberValue]> {
        let o = self.objects.get(h.0 as usize).ok_or_else(|| {
            Error::new(ErrorKind::IndexOutOfRange { what: "object handle", index: u64::from(h.0), count: self.objects.len() as u64 })
        })?;
        if o.class != name {
            return Err(err(format!("object {} is a {}, not a {name}", h.0, o.class)));
        }
        let stored = self.signature_of(h);
        if stored != Some(signature) {
            return Err(err(format!(
                "object {} ({name}): the file stores signature {}, the struct is {signature:#010x}",
                h.0,
                stored.map_or("none".to_owned(), |s| format!("{s:#010x}"))
            )));
        }
        let Body::Typed(values) = &o.body else {
            return Err(err(format!("object {} ({name}) is kept as its bytes (raw), not as values", h.0)));
        };
        if !self.members_are(name, members) {
            return Err(err(format!("object {} ({name}) was read with other members than the struct's", h.0)));
        }
        Ok(values)
    }

    /// Replaces the values of object `h`, of the class named `name` with `signature` and
    /// `members`, with `values` (whatever its values were, even ones no struct converts): what
    /// `hktypes::Document::set` does for a packfile.
    pub(crate) fn set_values(&mut self, h: Handle, name: &str, signature: u32, members: &[&str], mut values: Vec<MemberValue>) -> Result<()> {
        self.applies(h, name, signature, members)?;
        self.give_array_flags(name, &mut values);
        if let Some(o) = self.objects.get_mut(h.0 as usize) {
            o.body = Body::Typed(values);
        }
        Ok(())
    }

    /// Appends a new object of the class named `name` with `signature` and `members` holding
    /// `values` (written after the others) and returns its handle: what `hktypes::Document::add`
    /// does for a packfile. The class must be one the document lists in `__classnames__` with that
    /// signature and describes with those members: a class of the file read, or one
    /// [`PackfileDocument::declare`]d (or declared from the document's registry). The first object added
    /// to an empty document is its root.
    pub(crate) fn add_values(&mut self, name: &str, signature: u32, members: &[&str], mut values: Vec<MemberValue>) -> Result<Handle> {
        let like = self.find(name).find(|h| self.applies(*h, name, signature, members).is_ok());
        let class_ref = match like {
            Some(like) => self.objects[like.0 as usize].class_ref,
            None => {
                self.declare_on_add(name, signature)?;
                let section = self.file.section_index(super::CLASSNAMES);
                let names = self.file.class_names();
                let offset = names.get(name).filter(|c| c.signature == signature).and_then(|_| names.offset_of(name));
                match (section, offset) {
                    (Some(s), Some(o)) if self.members_are(name, members) => (s as u32, o),
                    _ => return Err(err(format!("{name} (signature {signature:#010x}) is not a class of the document: declare it first"))),
                }
            }
        };
        if self.root.is_none() && self.objects.is_empty() {
            self.root = Some(Handle(0));
            self.file.header.contents_class_name_section_offset = class_ref.1;
        }
        self.give_array_flags(name, &mut values);
        let h = Handle(self.objects.len() as u32);
        self.objects.push(super::objects::Object { class: name.to_owned(), class_ref, body: Body::Typed(values), array_align: Default::default(), kept: Default::default() });
        Ok(h)
    }

    /// Declares class `name` of `signature` from [`PackfileDocument::declare_from`] when the document
    /// does not list `name` yet: from the registry's own class source for the document's contents
    /// version (the first it gives; the others describe the
    /// classes of other SDKs, which a file of this one does not list), when it computes
    /// `signature` for the class. Nothing to do when the document lists the class or has no
    /// registry; an error when the registry's source has no such class.
    fn declare_on_add(&mut self, name: &str, signature: u32) -> Result<()> {
        let Some(sources) = self.declare_from.0.clone() else { return Ok(()) };
        if self.file.class_names().get(name).is_some() {
            return Ok(());
        }
        let version = self.file.contents_version();
        match sources(&version).first() {
            Some(source) if source.signature(name) == Some(signature) => self.declare(name, *source),
            _ => Err(err(format!("{name} (signature {signature:#010x}) is not a class the class registry has for {version}"))),
        }
    }

    /// Converts every object a class of `table` applies to into its struct and back (replacing
    /// its values with the struct's), and counts them: what `hkgen verify` and the tests use to
    /// check that the generated structs lose nothing.
    pub fn through_structs(&mut self, table: &[ClassEntry]) -> StructCounts {
        let mut c = StructCounts::default();
        for i in 0..self.objects.len() {
            let h = Handle(i as u32);
            let Some((name, e)) = ClassEntry::find(table, &self.objects[i].class).and_then(|e| Some((e.name, e.as_packfile()?))) else {
                c.untyped += 1;
                continue;
            };
            // An hkArray whose capacity word is not `len | array_flags` has no `Vec` to go into:
            // the object stays values of the document, whose writer keeps the word.
            let Ok(values) = self.struct_source(h, name, e.signature, e.members) else {
                c.untyped += 1;
                continue;
            };
            match e.roundtrip(values) {
                Ok(mut v) => {
                    self.give_array_flags(name, &mut v);
                    self.objects[i].body = Body::Typed(v);
                    c.structs += 1;
                }
                Err(e) => {
                    c.failed += 1;
                    if c.first_failure.is_none() {
                        c.first_failure = Some((h, self.objects[i].class.clone(), e.to_string()));
                    }
                }
            }
        }
        c
    }
}
