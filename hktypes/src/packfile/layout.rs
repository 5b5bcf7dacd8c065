//! Member offsets and class sizes from platform-neutral hkClass descriptions and a file's four
//! layout rules (pointer size, byte order, reuse of a base's tail padding, empty-base optimisation),
//! the way the SDK's compilers lay out the classes:
//!
//! - A member goes at the next multiple of its alignment; a class's alignment is the largest of
//!   its members' (and its parent's), its size its end rounded up to that.
//! - `ALIGN_8` / `ALIGN_16` raise a member's alignment; a C array is its element `c_array_size`
//!   times.
//! - A class that implements interfaces has one vtable pointer per interface: at the start of a
//!   root class, after the parent's part otherwise (the interface is a secondary base).
//! - With reuse-padding rules, a derived class's members start at the end of its parent's last
//!   member (its "data size") rather than at the parent's padded size, when the parent is not a
//!   plain struct (it has a vtable).
//! - With empty-base rules, a parent with no members and no vtable takes no room.
//! - A class with a fixed layout for these rules (hidden members) takes it; a class with hidden
//!   members and none is refused, unless the reader keeps the bytes no member describes
//!   ([`ClassLayouts::hidden_from_members`]).
//!
//! Containers by pointer size P: `hkArray` is a pointer and two 32-bit words (P + 8, aligned to
//! P); a simple array a pointer and a 32-bit count (P + 4, aligned to P, not padded: Havok
//! declares it as two members, so with 8-byte pointers the next member can take the 4 bytes after
//! the count, as Havok 5.5's `hkaSkeletalAnimation::annotationTracks` shows); a homogeneous
//! array a class pointer, a data pointer and a count; a variant two pointers; `hkRelArray` two
//! 16-bit words.
//!
//! The descriptions come through [`ClassSource`], so that the schema tool's records (`hkgen`'s
//! `ClassSchema`) and a runtime [`ClassSet`] share this one implementation.

use super::raw::LayoutRules;
use std::borrow::Cow;
use std::collections::HashMap;

/// `hkClassMember::Type` of the 2010-2014 SDKs, numbered as they store it. Schema records
/// (`hkgen`'s snapshots) serialize it by variant name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum MemberType {
    /// `TYPE_VOID`, code 0.
    Void,
    /// `TYPE_BOOL`, code 1.
    Bool,
    /// `TYPE_CHAR`, code 2.
    Char,
    /// `TYPE_INT8`, code 3.
    Int8,
    /// `TYPE_UINT8`, code 4.
    Uint8,
    /// `TYPE_INT16`, code 5.
    Int16,
    /// `TYPE_UINT16`, code 6.
    Uint16,
    /// `TYPE_INT32`, code 7.
    Int32,
    /// `TYPE_UINT32`, code 8.
    Uint32,
    /// `TYPE_INT64`, code 9.
    Int64,
    /// `TYPE_UINT64`, code 10.
    Uint64,
    /// `TYPE_REAL`, code 11.
    Real,
    /// `TYPE_VECTOR4`, code 12.
    Vector4,
    /// `TYPE_QUATERNION`, code 13.
    Quaternion,
    /// `TYPE_MATRIX3`, code 14.
    Matrix3,
    /// `TYPE_ROTATION`, code 15.
    Rotation,
    /// `TYPE_QSTRANSFORM`, code 16.
    QsTransform,
    /// `TYPE_MATRIX4`, code 17.
    Matrix4,
    /// `TYPE_TRANSFORM`, code 18.
    Transform,
    /// `TYPE_ZERO`, code 19.
    Zero,
    /// `TYPE_POINTER`, code 20.
    Pointer,
    /// `TYPE_FUNCTIONPOINTER`, code 21.
    FunctionPointer,
    /// `TYPE_ARRAY`, code 22.
    Array,
    /// `TYPE_INPLACEARRAY`, code 23.
    InplaceArray,
    /// `TYPE_ENUM`, code 24.
    Enum,
    /// `TYPE_STRUCT`, code 25.
    Struct,
    /// `TYPE_SIMPLEARRAY`, code 26.
    SimpleArray,
    /// `TYPE_HOMOGENEOUSARRAY`, code 27.
    HomogeneousArray,
    /// `TYPE_VARIANT`, code 28.
    Variant,
    /// `TYPE_CSTRING`, code 29.
    CString,
    /// `TYPE_ULONG`, code 30.
    Ulong,
    /// `TYPE_FLAGS`, code 31.
    Flags,
    /// `TYPE_HALF`, code 32.
    Half,
    /// `TYPE_STRINGPTR`, code 33.
    StringPtr,
    /// `TYPE_RELARRAY`, code 34.
    RelArray,
}

impl MemberType {
    /// Every type, in code order.
    pub const ALL: [MemberType; 35] = {
        use MemberType::*;
        [
            Void, Bool, Char, Int8, Uint8, Int16, Uint16, Int32, Uint32, Int64, Uint64, Real, Vector4, Quaternion,
            Matrix3, Rotation, QsTransform, Matrix4, Transform, Zero, Pointer, FunctionPointer, Array, InplaceArray,
            Enum, Struct, SimpleArray, HomogeneousArray, Variant, CString, Ulong, Flags, Half, StringPtr, RelArray,
        ]
    };

    /// The number an hkClassMember stores.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The type stored as `code`.
    pub fn from_code(code: u8) -> Option<Self> {
        Self::ALL.get(code as usize).copied()
    }

    /// `TYPE_ARRAY` and the like, as reflection dumps name them.
    pub fn sdk_name(self) -> String {
        format!("TYPE_{}", format!("{self:?}").to_ascii_uppercase())
    }

    /// The member type named `TYPE_...` (as [`Self::sdk_name`] spells it).
    pub fn from_sdk_name(name: &str) -> Option<Self> {
        let bare = name.strip_prefix("TYPE_")?;
        Self::ALL.iter().copied().find(|t| format!("{t:?}").eq_ignore_ascii_case(bare))
    }
}

/// hkClassMember flags the layout looks at.
pub mod member_flags {
    /// The member is aligned to 8 bytes.
    pub const ALIGN_8: u16 = 128;
    /// The member is aligned to 16 bytes.
    pub const ALIGN_16: u16 = 256;
    /// A pointer that does not own its target.
    pub const NOT_OWNED: u16 = 512;
    /// Not serialized: the member's bytes are zero in files.
    pub const SERIALIZE_IGNORED: u16 = 1024;
}

/// One hkClassMember, platform-neutral.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// The member name.
    pub name: String,
    /// Its type.
    pub ty: MemberType,
    /// The element, pointee or storage type (`Void` when none).
    pub subtype: MemberType,
    /// The struct or pointee class.
    pub class: Option<String>,
    /// C array length (0 for a single value).
    pub c_array_size: u16,
    /// hkClassMember flags ([`member_flags`]).
    pub flags: u16,
    /// The enum of an `Enum` or `Flags` member (a key of [`ClassSet::enums`], `Class::Name`),
    /// which names its values in XML.
    pub enumeration: Option<String>,
}

impl Member {
    /// The C array length, at least 1.
    pub fn count(&self) -> u32 {
        u32::from(self.c_array_size.max(1))
    }
}

/// A class's size, alignment and declared members' offsets under one set of layout rules, given by
/// a source rather than computed (a class whose reflection hides bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FixedLayout {
    /// Class size.
    pub size: u32,
    /// Class alignment.
    pub align: u32,
    /// Offsets of the declared members.
    pub offsets: Vec<u32>,
}

/// One hkClass, platform-neutral.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Class {
    /// The class name.
    pub name: String,
    /// The parent class.
    pub parent: Option<String>,
    /// Interfaces this class itself implements (extra vtable pointers).
    pub interfaces: u32,
    /// Declared members, in declaration order.
    pub members: Vec<Member>,
    /// The reflection does not describe every byte: only a `fixed` layout lays it out (or, for
    /// a reader that keeps the bytes, its members: [`ClassLayouts::hidden_from_members`]). The bytes
    /// of its part of an object that no member covers are kept as an opaque value.
    pub hidden_members: bool,
    /// ClassLayouts known from a source, by rules.
    pub fixed: Vec<(LayoutRules, FixedLayout)>,
}

/// Where class descriptions come from.
pub trait ClassSource {
    /// The description of `name`, if the source has one.
    fn class(&self, name: &str) -> Option<Cow<'_, Class>>;
    /// The signature this source computes for `name` (the CRC a packfile's `__classnames__`
    /// stores), when it can; `None` means unknown, not a mismatch.
    fn signature(&self, _name: &str) -> Option<u32> {
        None
    }
    /// The items (value, name) of the enum keyed `name` ([`Member::enumeration`]), when the source
    /// has them.
    fn enumeration(&self, _name: &str) -> Option<Cow<'_, [(i64, String)]>> {
        None
    }
}

/// Class descriptions held at run time.
#[derive(Clone, Debug, Default)]
pub struct ClassSet {
    /// The classes by name.
    pub classes: HashMap<String, Class>,
    /// Known signatures by class name.
    pub signatures: HashMap<String, u32>,
    /// Enum items (value, name) by enum key ([`Member::enumeration`]).
    pub enums: HashMap<String, Vec<(i64, String)>>,
}

impl ClassSource for ClassSet {
    fn class(&self, name: &str) -> Option<Cow<'_, Class>> {
        self.classes.get(name).map(Cow::Borrowed)
    }
    fn signature(&self, name: &str) -> Option<u32> {
        self.signatures.get(name).copied()
    }
    fn enumeration(&self, name: &str) -> Option<Cow<'_, [(i64, String)]>> {
        self.enums.get(name).map(|e| Cow::Borrowed(e.as_slice()))
    }
}

/// One hkClassMember of a [`StaticClassSet`] ([`Member`] as static data).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StaticMember {
    /// The member name.
    pub name: &'static str,
    /// Its type.
    pub ty: MemberType,
    /// The element, pointee or storage type.
    pub subtype: MemberType,
    /// The struct or pointee class.
    pub class: Option<&'static str>,
    /// C array length (0 for a single value).
    pub c_array_size: u16,
    /// hkClassMember flags ([`member_flags`]).
    pub flags: u16,
    /// The enum of an `Enum` or `Flags` member.
    pub enumeration: Option<&'static str>,
}

/// A layout of a [`StaticClass`] known from a source ([`FixedLayout`] as static data).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StaticFixedLayout {
    /// The rules it holds for.
    pub rules: LayoutRules,
    /// Class size.
    pub size: u32,
    /// Class alignment.
    pub align: u32,
    /// Offsets of the declared members.
    pub offsets: &'static [u32],
}

/// One hkClass of a [`StaticClassSet`] ([`Class`] as static data), with its signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StaticClass {
    /// The class name.
    pub name: &'static str,
    /// The parent class.
    pub parent: Option<&'static str>,
    /// Interfaces this class itself implements.
    pub interfaces: u32,
    /// Declared members, in declaration order.
    pub members: &'static [StaticMember],
    /// The reflection does not describe every byte ([`Class::hidden_members`]).
    pub hidden_members: bool,
    /// ClassLayouts known from a source, by rules.
    pub fixed: &'static [StaticFixedLayout],
    /// The signature the schema recomputes for the class, when it does.
    pub signature: Option<u32>,
}

/// The items of one enum of a [`StaticClassSet`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StaticEnum {
    /// The enum key ([`Member::enumeration`]).
    pub name: &'static str,
    /// (value, name) in declaration order.
    pub items: &'static [(i64, &'static str)],
}

/// The class descriptions of one packfile SDK compiled into a program: the same facts as a
/// [`ClassSet`], as static data (`hkclasses::hk2014_2::SCHEMA`, generated from the committed
/// schema snapshot), so that a reader needs no schema folder at run time.
#[derive(Clone, Copy, Debug)]
pub struct StaticClassSet {
    /// The SDK version (`2014.2`).
    pub sdk: &'static str,
    /// The classes, sorted by name.
    pub classes: &'static [StaticClass],
    /// The enums, sorted by key.
    pub enums: &'static [StaticEnum],
}

impl StaticClass {
    /// The runtime description.
    pub fn to_class(&self) -> Class {
        Class {
            name: self.name.to_string(),
            parent: self.parent.map(str::to_string),
            interfaces: self.interfaces,
            members: self
                .members
                .iter()
                .map(|m| Member {
                    name: m.name.to_string(),
                    ty: m.ty,
                    subtype: m.subtype,
                    class: m.class.map(str::to_string),
                    c_array_size: m.c_array_size,
                    flags: m.flags,
                    enumeration: m.enumeration.map(str::to_string),
                })
                .collect(),
            hidden_members: self.hidden_members,
            fixed: self.fixed.iter().map(|f| (f.rules, FixedLayout { size: f.size, align: f.align, offsets: f.offsets.to_vec() })).collect(),
        }
    }
}

impl StaticClassSet {
    /// The class named `name`.
    pub fn get(&self, name: &str) -> Option<&'static StaticClass> {
        let classes = self.classes;
        classes.binary_search_by(|c| c.name.cmp(name)).ok().map(|i| &classes[i])
    }

    /// The same descriptions as a runtime [`ClassSet`].
    pub fn to_class_set(&self) -> ClassSet {
        ClassSet {
            classes: self.classes.iter().map(|c| (c.name.to_string(), c.to_class())).collect(),
            signatures: self.classes.iter().filter_map(|c| Some((c.name.to_string(), c.signature?))).collect(),
            enums: self.enums.iter().map(|e| (e.name.to_string(), owned_items(e.items))).collect(),
        }
    }
}

fn owned_items(items: &[(i64, &str)]) -> Vec<(i64, String)> {
    items.iter().map(|&(v, n)| (v, n.to_string())).collect()
}

impl ClassSource for StaticClassSet {
    fn class(&self, name: &str) -> Option<Cow<'_, Class>> {
        self.get(name).map(|c| Cow::Owned(c.to_class()))
    }
    fn signature(&self, name: &str) -> Option<u32> {
        self.get(name)?.signature
    }
    fn enumeration(&self, name: &str) -> Option<Cow<'_, [(i64, String)]>> {
        let enums = self.enums;
        let i = enums.binary_search_by(|e| e.name.cmp(name)).ok()?;
        Some(Cow::Owned(owned_items(enums[i].items)))
    }
}

/// One class laid out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassLayout {
    /// Size, padded to the alignment.
    pub size: u32,
    /// Alignment.
    pub align: u32,
    /// Declared members' offsets, in declaration order.
    pub offsets: Vec<u32>,
    /// End of the last member (the part a derived class cannot reuse).
    pub data_size: u32,
    /// Whether the class or a parent has a vtable.
    pub has_vtable: bool,
    /// No members and no vtable anywhere in its ancestry.
    pub empty: bool,
}

/// Why a class could not be laid out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// The source lacks the class.
    MissingClass(String),
    /// A member type whose size the description alone does not give (`TYPE_INPLACEARRAY`).
    Unsized {
        /// The class.
        class: String,
        /// The member.
        member: String,
        /// Its type.
        ty: MemberType,
    },
    /// The class contains itself.
    Cycle(String),
    /// The class hides members and no source gives its layout under these rules.
    Hidden(String),
}

impl std::fmt::Display for LayoutError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LayoutError::MissingClass(c) => write!(f, "class {c} is not in the schema"),
            LayoutError::Unsized { class, member, ty } => write!(f, "{class}.{member}: {} has no size from the description", ty.sdk_name()),
            LayoutError::Cycle(c) => write!(f, "class {c} contains itself"),
            LayoutError::Hidden(c) => write!(f, "class {c} hides members; no layout is known for these rules"),
        }
    }
}

impl std::error::Error for LayoutError {}

/// Lays out the classes of one source under one set of rules, caching what it computed.
pub struct ClassLayouts<'a, S: ClassSource + ?Sized> {
    source: &'a S,
    rules: LayoutRules,
    cache: HashMap<String, ClassLayout>,
    busy: Vec<String>,
    /// Whether a class with hidden members and no fixed layout for the rules is laid out from its
    /// declared members (see [`Self::hidden_from_members`]).
    hidden_from_members: bool,
}

/// `v` rounded up to a multiple of `a`.
pub fn align_up(v: u32, a: u32) -> u32 {
    if a <= 1 {
        v
    } else {
        v.div_ceil(a) * a
    }
}

impl<'a, S: ClassSource + ?Sized> ClassLayouts<'a, S> {
    /// ClassLayouts of `source`'s classes under `rules`.
    pub fn new(source: &'a S, rules: LayoutRules) -> Self {
        ClassLayouts { source, rules, cache: HashMap::new(), busy: Vec::new(), hidden_from_members: false }
    }

    /// Lays out a class with hidden members that has no fixed layout under these rules from its
    /// declared members, as if the hidden bytes sat in its padding, instead of refusing it
    /// ([`LayoutError::Hidden`]). Only for a reader that keeps the bytes no member describes and
    /// checks, object by object, that they come back (`packfile::objects::PackfileDocument` does): the
    /// size is a guess such a check confirms, not a fact of the class.
    pub fn hidden_from_members(mut self, on: bool) -> Self {
        self.hidden_from_members = on;
        self
    }

    /// The rules.
    pub fn rules(&self) -> LayoutRules {
        self.rules
    }

    /// The source.
    pub fn source(&self) -> &'a S {
        self.source
    }

    fn ptr(&self) -> u32 {
        u32::from(self.rules.pointer_size)
    }

    /// Size and alignment of one value of a member type (not counting its C array).
    pub fn type_shape(&mut self, class: &str, m: &Member, ty: MemberType) -> Result<(u32, u32), LayoutError> {
        let p = self.ptr();
        Ok(match ty {
            MemberType::Void => (0, 1),
            MemberType::Bool | MemberType::Char | MemberType::Int8 | MemberType::Uint8 => (1, 1),
            MemberType::Int16 | MemberType::Uint16 | MemberType::Half => (2, 2),
            MemberType::Int32 | MemberType::Uint32 | MemberType::Real => (4, 4),
            MemberType::Int64 | MemberType::Uint64 => (8, 8),
            MemberType::Ulong
            | MemberType::Pointer
            | MemberType::FunctionPointer
            | MemberType::CString
            | MemberType::StringPtr => (p, p),
            MemberType::Vector4 | MemberType::Quaternion => (16, 16),
            MemberType::Matrix3 | MemberType::Rotation | MemberType::QsTransform => (48, 16),
            MemberType::Matrix4 | MemberType::Transform => (64, 16),
            MemberType::Array => (p + 8, p),
            // Two members in Havok's headers, not one struct: with 8-byte pointers a 32-bit member
            // (or a derived class's first member, under reuse-padding rules) follows the count.
            MemberType::SimpleArray => (p + 4, p),
            MemberType::HomogeneousArray => (align_up(2 * p + 4, p), p),
            MemberType::Variant => (2 * p, p),
            MemberType::RelArray => (4, 2),
            MemberType::Enum | MemberType::Flags | MemberType::Zero => {
                if m.subtype == ty {
                    return Err(LayoutError::Unsized { class: class.into(), member: m.name.clone(), ty });
                }
                return self.type_shape(class, m, m.subtype);
            }
            MemberType::Struct => {
                let name = m.class.clone().ok_or_else(|| LayoutError::MissingClass(format!("{class}.{} (no struct class)", m.name)))?;
                let l = self.class(&name)?;
                (l.size, l.align)
            }
            MemberType::InplaceArray => {
                return Err(LayoutError::Unsized { class: class.into(), member: m.name.clone(), ty });
            }
        })
    }

    /// The layout of `name`.
    pub fn class(&mut self, name: &str) -> Result<ClassLayout, LayoutError> {
        if let Some(l) = self.cache.get(name) {
            return Ok(l.clone());
        }
        if self.busy.iter().any(|b| b == name) || self.busy.len() > 256 {
            return Err(LayoutError::Cycle(name.into()));
        }
        let source = self.source;
        let c = source.class(name).ok_or_else(|| LayoutError::MissingClass(name.into()))?;
        self.busy.push(name.to_owned());
        let fixed = c.fixed.iter().find(|(r, _)| *r == self.rules).map(|(_, f)| f);
        if c.hidden_members && fixed.is_none() && !self.hidden_from_members {
            self.busy.pop();
            return Err(LayoutError::Hidden(name.into()));
        }
        if let Some(fixed) = fixed {
            let has_vtable = match &c.parent {
                Some(p) => self.class(p).map(|l| l.has_vtable),
                None => Ok(false),
            };
            self.busy.pop();
            let has_vtable = has_vtable? || c.interfaces > 0;
            // Where the hidden bytes end is unknown: a derived class starts after the padded size.
            let l = ClassLayout { size: fixed.size, align: fixed.align, offsets: fixed.offsets.clone(), data_size: fixed.size, has_vtable, empty: false };
            self.cache.insert(name.to_owned(), l.clone());
            return Ok(l);
        }
        let parent = c.parent.as_ref().map(|p| self.class(p)).transpose();
        let result = parent.and_then(|parent| self.lay_out(&c, parent));
        self.busy.pop();
        let mut l = result?;
        if c.hidden_members {
            // As for a fixed layout: a derived class starts after the padded size.
            l.data_size = l.size;
        }
        self.cache.insert(name.to_owned(), l.clone());
        Ok(l)
    }

    fn lay_out(&mut self, c: &Class, parent: Option<ClassLayout>) -> Result<ClassLayout, LayoutError> {
        let p = self.ptr();
        let (mut cursor, mut align, mut has_vtable, mut empty) = match &parent {
            None => (0, 1, false, true),
            Some(pl) if pl.empty && self.rules.empty_base == 1 => (0, pl.align, false, true),
            Some(pl) => {
                let start = if self.rules.reuse_padding == 1 { pl.data_size } else { pl.size };
                (start, pl.align, pl.has_vtable, pl.empty)
            }
        };
        if c.interfaces > 0 {
            cursor = align_up(cursor, p) + p * c.interfaces;
            align = align.max(p);
            has_vtable = true;
            empty = false;
        }
        let mut offsets = Vec::with_capacity(c.members.len());
        for m in &c.members {
            let (size, mut a) = self.type_shape(&c.name, m, m.ty)?;
            if m.flags & member_flags::ALIGN_16 != 0 {
                a = a.max(16);
            } else if m.flags & member_flags::ALIGN_8 != 0 {
                a = a.max(8);
            }
            let at = align_up(cursor, a);
            offsets.push(at);
            cursor = at + size * m.count();
            align = align.max(a);
            empty = false;
        }
        let size = if empty { 1 } else { align_up(cursor, align) };
        Ok(ClassLayout { size, align, offsets, data_size: cursor, has_vtable, empty })
    }

    /// Offsets, from the start of an object of class `name`, of every pointer-sized slot a fixup may
    /// patch: pointers, strings, the data pointers of arrays, both pointers of a variant and of a
    /// homogeneous array; through structs and C arrays, parents included.
    pub fn pointer_slots(&mut self, name: &str) -> Result<Vec<u32>, LayoutError> {
        let mut out = Vec::new();
        self.slots_into(name, 0, &mut out, 0)?;
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }

    fn slots_into(&mut self, name: &str, base: u32, out: &mut Vec<u32>, depth: usize) -> Result<(), LayoutError> {
        if depth > 64 {
            return Err(LayoutError::Cycle(name.into()));
        }
        let source = self.source;
        let c = source.class(name).ok_or_else(|| LayoutError::MissingClass(name.into()))?;
        if let Some(p) = &c.parent {
            self.slots_into(p, base, out, depth + 1)?;
        }
        let l = self.class(name)?;
        let p = self.ptr();
        for (m, &off) in c.members.iter().zip(&l.offsets) {
            let (size, _) = self.type_shape(&c.name, m, m.ty)?;
            for i in 0..m.count() {
                let at = base + off + i * size;
                match m.ty {
                    MemberType::Pointer
                    | MemberType::FunctionPointer
                    | MemberType::CString
                    | MemberType::StringPtr
                    | MemberType::Array
                    | MemberType::SimpleArray => out.push(at),
                    MemberType::Variant | MemberType::HomogeneousArray => out.extend([at, at + p]),
                    MemberType::Struct => {
                        if let Some(cl) = &m.class {
                            self.slots_into(cl, at, out, depth + 1)?;
                        }
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }
}
