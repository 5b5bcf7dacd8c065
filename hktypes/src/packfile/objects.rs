//! The objects of a packfile's `__data__` section as values, and a writer that lays them out again.
//!
//! Reading: each virtual fixup starts an object of a named class. An object whose class the
//! [`ClassSource`] describes (and whose signature, where the source computes one, is the one the
//! file stores) is read member by member from the layout the file's four rules give: global
//! fixups are pointers to objects, local fixups the out-of-line data of arrays and strings. Any
//! other object is kept as [`Untyped`] bytes (from its start up to the next object) with its fixups, so
//! that it round-trips too. `hkRelArray` elements are read from inside the object (the member's
//! 16-bit offset from itself); a class with hidden members ([`Class::hidden_members`]) gets, after
//! its own members, a [`MemberValue::Opaque`] of the bytes of its part that no member covers.
//!
//! Writing ([`PackfileDocument::write`], [`PackfileDocument::write_as`]) lays `__data__` out again the way stock
//! files do: objects in order, each 16-aligned; after each object the out-of-line data of its
//! members in member order, depth first (an array's elements, then the data of each element's
//! members); array data 16-aligned (8-aligned for an object read so, [`ArrayAlign`]), strings
//! 2-aligned; an object's relative arrays' elements right after its own bytes, each 16-aligned;
//! `0` padding to 16 after each member's data (the strings of an array of strings follow each
//! other and are padded after the last); local
//! fixups in the order their data is written, global fixups in member order as the walk meets
//! them (an array's pointers while its data is written, before the pointers of later members),
//! virtual fixups in object order.
//!
//! An object that does not write back this way under its class is still typed when what differs
//! is only where its out-of-line data starts, where its bytes end, or padding bytes no value
//! writes: the reader keeps those on the object ([`Kept`]) and the writer puts them back under
//! the same layout (the edit rules are on [`Kept`]). Any other difference (a byte a value writes,
//! a fixup the values do not give) leaves the object raw.

use super::file::{GlobalFixup, LocalFixup, PackFile, SectionBody, VirtualFixup, DATA};
use super::layout::{Class, ClassSet, ClassSource, ClassLayouts, Member, MemberType};
use super::raw::{Endian, LayoutRules};
use crate::error::{ContainerError, ErrorKind, ItemsError, Result, UnlayeredError, ValueError, WriteError};
pub use crate::shared::{ItemSlice, Items, ItemsIter, MemberArray, Ref, MemberValue, DONT_DEALLOCATE};
use crate::shared::{Counts, Handle};
use std::borrow::Cow;
use std::collections::HashMap;
use std::rc::Rc;

/// FxHash (rustc's): member lookups by offset and class name are the reader's inner loop, where
/// SipHash showed in profiles.
#[derive(Default, Clone, Copy)]
pub(crate) struct Fx(u64);

impl std::hash::Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for c in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.add(u64::from(v));
    }
    fn write_u8(&mut self, v: u8) {
        self.add(u64::from(v));
    }
    fn write_usize(&mut self, v: usize) {
        self.add(v as u64);
    }
}

impl Fx {
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

pub(crate) type FxMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<Fx>>;



/// The name of the value that holds a class's hidden bytes ([`MemberValue::Opaque`]) among its
/// members' (no Havok member name has parentheses).
pub const HIDDEN: &str = "(hidden bytes)";

/// The member description of [`HIDDEN`].
pub(crate) fn hidden_member() -> &'static Member {
    static M: std::sync::OnceLock<Member> = std::sync::OnceLock::new();
    M.get_or_init(|| Member { name: HIDDEN.to_owned(), ty: MemberType::Void, subtype: MemberType::Void, class: None, c_array_size: 0, flags: 0, enumeration: None })
}


/// The flag bits of an `hkArray`'s capacity-and-flags word; the other 30 bits are the capacity.
pub const ARRAY_FLAG_BITS: u32 = 0xC000_0000;

/// The flags of the capacity words Havok's packer stores for the arrays of a contents version's
/// files: [`DONT_DEALLOCATE`] and `0x40000000` (`0xC0000000`) for Havok 5.5 and 6.6, whose every
/// corpus hkArray carries both (the empty ones too, as `0xC0000000`), else `DONT_DEALLOCATE`
/// alone (2010.1 to 2014.2 and 7.1). What a document read from XML, or made from nothing, gives
/// its arrays ([`PackfileDocument::array_flags`]).
///
/// ```
/// use hktypes::packfile::objects::stock_array_flags;
/// assert_eq!(stock_array_flags("Havok-5.5.0-r1"), 0xC000_0000);
/// assert_eq!(stock_array_flags("hk_2010.2.0-r1"), 0x8000_0000);
/// // A document made from nothing takes them.
/// use hktypes::packfile::{objects::PackfileDocument, LayoutRules};
/// assert_eq!(PackfileDocument::new("Havok-5.5.0-r1", 5, LayoutRules::WII_U).array_flags, 0xC000_0000);
/// ```
pub fn stock_array_flags(contents_version: &str) -> u32 {
    match super::sdk_of_contents_version(contents_version).as_str() {
        "5.5" | "6.6" => ARRAY_FLAG_BITS,
        _ => DONT_DEALLOCATE,
    }
}

/// An object kept as its bytes: from its start to the next object, with the fixups inside.
#[derive(Clone, Debug, PartialEq)]
pub struct Untyped {
    /// The bytes (the object, its out-of-line data and the padding after).
    pub bytes: Vec<u8>,
    /// Local fixups, relative to the object's start.
    pub local: Vec<LocalFixup>,
    /// Global fixups: source relative to the object's start, and target.
    pub global: Vec<(u32, Ref)>,
}

/// What an object holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// Its members through the class description, the ancestors' first.
    Typed(Vec<MemberValue>),
    /// Its bytes, for a class no description covers.
    Untyped(Untyped),
}

/// One object of `__data__`.
#[derive(Clone, Debug, PartialEq)]
pub struct Object {
    /// The class name.
    pub class: String,
    /// The virtual fixup's class-name section and name offset.
    pub class_ref: (u32, u32),
    /// The values.
    pub body: Body,
    /// Where the writer starts the elements of the object's arrays.
    pub array_align: ArrayAlign,
    /// What the object's bytes hold that neither its values nor the stock layout give back (empty
    /// for objects Havok's own tools wrote).
    pub kept: Kept,
}

/// What a typed object's bytes hold beyond its values, kept so that it writes back as read
/// ("nothing read is lost on write"): where its out-of-line data starts when that is not where
/// the stock layout puts it, where its bytes end (other padding after it, or an object cut short
/// at the end of `__data__`), and padding bytes that are not zero. Offsets are from the object's
/// start.
///
/// The writer follows it only under the layout the object was read with
/// ([`PackfileDocument::write`]; [`PackfileDocument::write_as`] another layout lays every object out the stock
/// way), and only while the object is laid out as it was read: each kept place is taken when
/// the writer reaches it from where it did when reading (`from`). From the first place where an
/// edit changed that (an array or string of another length before it), the rest of the object
/// is laid out the stock way and the kept padding bytes after that point are dropped. Kept
/// padding bytes are only ever put where no value writes (struct padding, vtable slots), so an
/// edited value always wins over them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Kept {
    /// Each piece of out-of-line data in the order the writer places it (arrays' elements,
    /// strings, relative arrays' elements): `(from, to)`, where the stock writer had got to and
    /// where the file starts the data.
    pub places: Vec<(u32, u32)>,
    /// The end of the object's bytes (where the next object starts): `(from, to)` as for
    /// [`Kept::places`]; `to` may be less than `from` when the file ends inside the object's
    /// own bytes where no value is written (a truncated last object).
    pub end: Option<(u32, u32)>,
    /// Runs of bytes no value writes that the file does not hold as zeros: `(offset, bytes)`.
    pub padding: Vec<(u32, Vec<u8>)>,
}

impl Kept {
    /// Nothing kept: the object is laid out the stock way.
    pub fn is_empty(&self) -> bool {
        self.places.is_empty() && self.end.is_none() && self.padding.is_empty()
    }
}

/// Where an object's array elements start in its out-of-line data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ArrayAlign {
    /// On a 16-byte boundary, as Havok's own tools write them.
    #[default]
    Sixteen,
    /// On an 8-byte boundary, as some other tools write them (objects of FromSoftware collision
    /// files that modding tools wrote again): the reader takes this where the stock rule does not
    /// give the object's bytes back and this one does.
    Eight,
}

impl ArrayAlign {
    fn bytes(self) -> usize {
        match self {
            ArrayAlign::Sixteen => 16,
            ArrayAlign::Eight => 8,
        }
    }
}

/// One member of a class with its parents' members before it, laid out.
#[derive(Clone, Debug)]
struct Field {
    member: Member,
    offset: u32,
    /// Size of one value (of the C array's element).
    size: u32,
    /// For the [`HIDDEN`] value of a class with hidden members: the (offset, length) runs of the
    /// bytes of its part that no member covers; `None` for a member.
    hidden: Option<Vec<(u32, u32)>>,
}

/// Flattened, laid out members per class, under one set of rules.
struct Plan<'c> {
    layouts: ClassLayouts<'c, ClassSet>,
    fields: FxMap<String, (Rc<[Field]>, u32)>,
    /// The last class looked up (arrays of structs ask for one class many times running).
    last: Option<(String, Rc<[Field]>, u32)>,
    ptr: u32,
    e: Endian,
}

fn layout_err(e: super::layout::LayoutError) -> UnlayeredError {
    UnlayeredError::new(ErrorKind::Invalid(e.to_string()))
}

/// Copies into `classes` the description of class `name` (with the classes it needs) from the
/// first of `sources` that describes it with `signature`, the signature `__classnames__` states
/// (the first source also where it computes none), and that lays out under `rules`: the class
/// choice of a packfile reader. Gives whether one did; `classes` is left as it was if none.
pub(crate) fn choose_class(sources: &[&dyn ClassSource], name: &str, signature: u32, rules: LayoutRules, classes: &mut ClassSet) -> bool {
    for (k, source) in sources.iter().enumerate() {
        let sig = source.signature(name);
        let sig_ok = if k == 0 { sig.is_none_or(|s| s == signature) } else { sig == Some(signature) };
        if !sig_ok || source.class(name).is_none() {
            continue;
        }
        let before: std::collections::HashSet<String> = classes.classes.keys().cloned().collect();
        if copy_class(*source, name, classes, 0) && ClassLayouts::new(classes, rules).hidden_from_members(true).class(name).is_ok() {
            return true;
        }
        classes.classes.retain(|k, _| before.contains(k));
    }
    false
}

/// The member an element of array or C-array member `m` is read as.
pub(crate) fn elem_member(m: &Member) -> Member {
    Member { name: m.name.clone(), ty: m.subtype, subtype: MemberType::Void, class: m.class.clone(), c_array_size: 0, flags: 0, enumeration: m.enumeration.clone() }
}

impl<'c> Plan<'c> {
    fn new(classes: &'c ClassSet, rules: LayoutRules) -> Result<Self, UnlayeredError> {
        let e = rules
            .endian()
            .ok_or_else(|| UnlayeredError::new(ErrorKind::Invalid(format!("layout {rules}: endian byte is neither 0 nor 1"))))?;
        if rules.pointer_size != 4 && rules.pointer_size != 8 {
            return Err(UnlayeredError::new(ErrorKind::Invalid(format!("layout {rules}: pointer size is neither 4 nor 8"))));
        }
        Ok(Plan { layouts: ClassLayouts::new(classes, rules).hidden_from_members(true), fields: FxMap::default(), last: None, ptr: u32::from(rules.pointer_size), e })
    }

    /// The fields and size of `class`.
    fn fields(&mut self, class: &str) -> Result<(Rc<[Field]>, u32), UnlayeredError> {
        if let Some((name, f, size)) = &self.last {
            if name == class {
                return Ok((f.clone(), *size));
            }
        }
        if let Some(f) = self.fields.get(class) {
            let f = f.clone();
            self.last = Some((class.to_owned(), f.0.clone(), f.1));
            return Ok(f);
        }
        let size = self.layouts.class(class).map_err(layout_err)?.size;
        let mut chain = Vec::new();
        let mut next = Some(class.to_owned());
        while let Some(n) = next {
            if chain.len() > 64 {
                return Err(UnlayeredError::new(ErrorKind::Cycle(format!("parents of {class}"))));
            }
            let c = self.layouts.source().class(&n).ok_or_else(|| layout_err(super::layout::LayoutError::MissingClass(n.clone())))?;
            next = c.parent.clone();
            chain.push(c);
        }
        let mut out = Vec::new();
        // Each hidden class's part: from its parent's end to its size.
        let mut parts = Vec::new();
        let mut parent_end = 0;
        for c in chain.iter().rev() {
            let l = self.layouts.class(&c.name).map_err(layout_err)?;
            for (m, &off) in c.members.iter().zip(&l.offsets) {
                let (sz, _) = self.layouts.type_shape(&c.name, m, m.ty).map_err(layout_err)?;
                out.push(Field { member: m.clone(), offset: off, size: sz, hidden: None });
            }
            if c.hidden_members {
                parts.push((out.len(), parent_end, l.size));
                out.push(Field { member: hidden_member().clone(), offset: parent_end, size: 0, hidden: Some(Vec::new()) });
            }
            parent_end = l.data_size;
        }
        // The runs of each part that no member of the chain covers.
        for (i, start, end) in parts {
            let mut covered = vec![false; end.saturating_sub(start) as usize];
            for f in &out {
                let (a, b) = (f.offset, f.offset + f.size * f.member.count());
                for x in a.max(start)..b.min(end) {
                    covered[(x - start) as usize] = true;
                }
            }
            let mut runs: Vec<(u32, u32)> = Vec::new();
            for (k, _) in covered.iter().enumerate().filter(|(_, c)| !**c) {
                let x = start + k as u32;
                match runs.last_mut() {
                    Some((a, n)) if *a + *n == x => *n += 1,
                    _ => runs.push((x, 1)),
                }
            }
            out[i].hidden = Some(runs);
        }
        let f: (Rc<[Field]>, u32) = (out.into(), size);
        self.fields.insert(class.to_owned(), f.clone());
        Ok(f)
    }

    /// Where the bytes of `class`'s values end: past the last member (or hidden byte).
    fn extent(&mut self, class: &str) -> Result<u32, UnlayeredError> {
        let (fields, _) = self.fields(class)?;
        Ok(fields
            .iter()
            .map(|f| match &f.hidden {
                Some(runs) => runs.iter().map(|r| r.0 + r.1).max().unwrap_or(0),
                None => f.offset + f.size * f.member.count(),
            })
            .max()
            .unwrap_or(0))
    }

    /// Size of one array element.
    fn elem_shape(&mut self, class: &str, m: &Member) -> Result<(u32, u32), UnlayeredError> {
        if m.subtype == MemberType::Struct {
            if let Some(c) = &m.class {
                let size = self.fields(c)?.1;
                return Ok((size, self.layouts.class(c).map_err(layout_err)?.align));
            }
        }
        self.layouts.type_shape(class, &elem_member(m), m.subtype).map_err(layout_err)
    }
}

/// A packfile whose `__data__` objects are values.
#[derive(Clone, Debug)]
pub struct PackfileDocument {
    /// The container: the header, the other sections, and `__data__` with its tables as read
    /// (replaced when writing).
    pub file: PackFile<'static>,
    /// Index of `__data__` in `file.sections`.
    pub data_index: usize,
    /// The objects in file order.
    pub objects: Vec<Object>,
    /// The descriptions of the typed objects' classes, their parents and struct members.
    pub classes: ClassSet,
    /// The object the header's contents offset names.
    pub root: Option<Handle>,
    /// Objects that read through their class but whose values do not write back to their bytes
    /// even with [`Kept`] data (bytes a value writes that differ, fixups the values do not
    /// give): kept raw.
    pub demoted: usize,
    /// The first object whose class describes it but whose values claim more than the data
    /// holds (an array count past its bytes, a string without its end, data read past the
    /// section): kept raw, and named here for `hkgen verify`. Classes the reader does not read
    /// (unsupported member kinds) are not counted.
    pub bad_values: Option<(Handle, ValueError)>,
    /// Where `hktypes::Document::add` finds a class the document does not list yet: a document made by
    /// `hktypes::Document::new` with a class registry declares it from there
    /// ([`PackfileDocument::declare`]); none for a document read from a file.
    pub declare_from: DeclareFrom,
    /// What the reader changed to read its input, each with where: only under an option that
    /// allows it ([`super::xml::Dangling::Null`]); empty for a faithful read.
    pub repairs: Vec<String>,
    /// The flag bits ([`ARRAY_FLAG_BITS`]) of the capacity word of the document's hkArrays: an
    /// hkArray whose word is `len | array_flags` converts to a `Vec` of a generated struct
    /// ([`super::typed`]), and each hkArray of values stored from a struct gets that word; XML
    /// writes no word for such an array. Read from a file (or from XML, once its arrays have their
    /// words): the flags that every hkArray of its typed objects carries over exactly its length,
    /// else (no hkArray, or arrays that disagree) [`stock_array_flags`] of its contents version,
    /// as for a document made from nothing. An array whose word is another keeps it
    /// ([`MemberArray::capacity`]), and its object stays values.
    pub array_flags: u32,
}

/// Where a packfile [`PackfileDocument`] declares the classes of added objects from
/// ([`PackfileDocument::declare_from`]): the class sources for a contents version, first source first.
/// `hktypes::Document::new(sdk, format, Some(&hkclasses::REGISTRY))` sets it to the registry's
/// `ClassRegistry::packfile`.
#[derive(Clone, Default)]
pub struct DeclareFrom(pub Option<std::sync::Arc<SourcesFor>>);

/// The class sources for a packfile contents version (`hk_2014.2.0-r1`), first source first: what
/// [`DeclareFrom`] holds.
pub type SourcesFor = dyn Fn(&str) -> Vec<&'static dyn ClassSource> + Send + Sync;

impl std::fmt::Debug for DeclareFrom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "DeclareFrom(registry)" } else { "DeclareFrom(none)" })
    }
}

/// [`PackfileDocument::members_of`] in `classes`.
pub(crate) fn members_in<'c>(classes: &'c ClassSet, class: &str) -> impl Iterator<Item = &'c Member> + 'c {
    let mut chain = Vec::new();
    let mut next = classes.classes.get(class);
    while let Some(c) = next {
        if chain.len() > 64 {
            break;
        }
        chain.push(c);
        next = c.parent.as_deref().and_then(|p| classes.classes.get(p));
    }
    chain.into_iter().rev().flat_map(|c| c.members.iter().chain(c.hidden_members.then(hidden_member)))
}

/// Calls `f` on each hkArray (`TYPE_ARRAY`: not simple or relative arrays) among `values`, the
/// values of `class`'s members in `classes`: depth first in member order, an array before the
/// arrays of its elements. Stops, giving `false`, where `f` gives `false`, at a struct value
/// without a class, or past 64 levels of nesting from `depth`.
pub(crate) fn each_hk_array<'v>(classes: &ClassSet, class: &str, values: &'v [MemberValue], depth: usize, f: &mut dyn FnMut(&'v MemberArray) -> bool) -> bool {
    let ms: Vec<&Member> = members_in(classes, class).collect();
    hk_arrays_of(classes, &ms, values, depth, f)
}

/// [`each_hk_array`] over the values of the members `ms`.
fn hk_arrays_of<'v>(classes: &ClassSet, ms: &[&Member], values: &'v [MemberValue], depth: usize, f: &mut dyn FnMut(&'v MemberArray) -> bool) -> bool {
    depth <= 64 && ms.iter().zip(values).all(|(m, v)| hk_arrays_in(classes, m, m.ty, v, depth, f))
}

/// Whether values of kind `ty` may hold hkArrays (structs and containers): the elements of an
/// array of numbers, strings or pointers are not visited one by one (a scalar holds none).
fn holds_arrays(ty: MemberType) -> bool {
    matches!(ty, MemberType::Struct | MemberType::Array | MemberType::SimpleArray | MemberType::RelArray | MemberType::InplaceArray | MemberType::HomogeneousArray)
}

/// The elements `items` (each of kind `ty`, of member `m`): a struct's members are looked up once
/// for all of them.
fn hk_arrays_items<'v>(classes: &ClassSet, m: &Member, ty: MemberType, items: &'v [MemberValue], depth: usize, f: &mut dyn FnMut(&'v MemberArray) -> bool) -> bool {
    if !holds_arrays(ty) || items.is_empty() {
        return true;
    }
    if ty == MemberType::Struct {
        let Some(c) = m.class.as_deref() else { return items.iter().all(|x| !matches!(x, MemberValue::Struct(_))) };
        let ms: Vec<&Member> = members_in(classes, c).collect();
        return items.iter().all(|x| match x {
            MemberValue::Struct(vs) => hk_arrays_of(classes, &ms, vs, depth + 2, f),
            x => hk_arrays_in(classes, m, ty, x, depth + 1, f),
        });
    }
    items.iter().all(|x| hk_arrays_in(classes, m, ty, x, depth + 1, f))
}

fn hk_arrays_in<'v>(classes: &ClassSet, m: &Member, ty: MemberType, v: &'v MemberValue, depth: usize, f: &mut dyn FnMut(&'v MemberArray) -> bool) -> bool {
    match v {
        MemberValue::Array(a) => (ty != MemberType::Array || f(a)) && hk_arrays_items(classes, m, m.subtype, a.values().unwrap_or_default(), depth, f),
        MemberValue::RelArray(items) => hk_arrays_items(classes, m, m.subtype, items, depth, f),
        MemberValue::CArray(items) => hk_arrays_items(classes, m, ty, items, depth, f),
        MemberValue::Struct(vs) => m.class.as_deref().is_some_and(|c| each_hk_array(classes, c, vs, depth + 1, f)),
        _ => true,
    }
}

/// [`each_hk_array`], to change the arrays' words.
pub(crate) fn each_hk_array_mut(classes: &ClassSet, class: &str, values: &mut [MemberValue], depth: usize, f: &mut dyn FnMut(&mut MemberArray) -> bool) -> bool {
    let ms: Vec<&Member> = members_in(classes, class).collect();
    hk_arrays_of_mut(classes, &ms, values, depth, f)
}

fn hk_arrays_of_mut(classes: &ClassSet, ms: &[&Member], values: &mut [MemberValue], depth: usize, f: &mut dyn FnMut(&mut MemberArray) -> bool) -> bool {
    depth <= 64 && ms.iter().zip(values).all(|(m, v)| hk_arrays_in_mut(classes, m, m.ty, v, depth, f))
}

fn hk_arrays_items_mut(classes: &ClassSet, m: &Member, ty: MemberType, items: &mut [MemberValue], depth: usize, f: &mut dyn FnMut(&mut MemberArray) -> bool) -> bool {
    if !holds_arrays(ty) || items.is_empty() {
        return true;
    }
    if ty == MemberType::Struct {
        let Some(c) = m.class.as_deref() else { return items.iter().all(|x| !matches!(x, MemberValue::Struct(_))) };
        let ms: Vec<&Member> = members_in(classes, c).collect();
        return items.iter_mut().all(|x| match x {
            MemberValue::Struct(vs) => hk_arrays_of_mut(classes, &ms, vs, depth + 2, f),
            x => hk_arrays_in_mut(classes, m, ty, x, depth + 1, f),
        });
    }
    items.iter_mut().all(|x| hk_arrays_in_mut(classes, m, ty, x, depth + 1, f))
}

fn hk_arrays_in_mut(classes: &ClassSet, m: &Member, ty: MemberType, v: &mut MemberValue, depth: usize, f: &mut dyn FnMut(&mut MemberArray) -> bool) -> bool {
    match v {
        MemberValue::Array(a) => {
            // A typed array holds numbers, no arrays.
            (ty != MemberType::Array || f(a)) && match &mut a.items {
                Items::Values(items) => hk_arrays_items_mut(classes, m, m.subtype, items, depth, f),
                _ => true,
            }
        }
        MemberValue::RelArray(items) => hk_arrays_items_mut(classes, m, m.subtype, items, depth, f),
        MemberValue::CArray(items) => hk_arrays_items_mut(classes, m, ty, items, depth, f),
        MemberValue::Struct(vs) => m.class.as_deref().is_some_and(|c| each_hk_array_mut(classes, c, vs, depth + 1, f)),
        _ => true,
    }
}

/// The elements of an array member `m` whose elements are of kind `ty`, empty, in the form the
/// readers store them: typed for plain integers (no enum), reals, vectors and quaternions, else
/// values; room for `n` of them.
pub(crate) fn typed_items(m: &Member, ty: MemberType, n: usize) -> Items {
    if m.enumeration.is_some() {
        return Items::Values(Vec::with_capacity(n));
    }
    match ty {
        MemberType::Int8 | MemberType::Int16 | MemberType::Int32 | MemberType::Int64 => Items::Ints(Vec::with_capacity(n)),
        MemberType::Uint8 | MemberType::Uint16 | MemberType::Uint32 | MemberType::Uint64 => Items::UInts(Vec::with_capacity(n)),
        MemberType::Real => Items::Reals(Vec::with_capacity(n)),
        MemberType::Vector4 | MemberType::Quaternion => Items::Vec4s(Vec::with_capacity(n)),
        _ => Items::Values(Vec::with_capacity(n)),
    }
}

/// Object reading state.
struct Reader<'d, 'c> {
    d: &'d [u8],
    base: u64,
    data_index: u32,
    local: FxMap<u32, u32>,
    global: FxMap<u32, (u32, u32)>,
    objects: &'d [(u32, u32)],
    plan: Plan<'c>,
    /// Bytes of array elements and strings left to read (the size of `__data__`, plus 64): a
    /// stock file reads each byte of out-of-line data once, while data that several slots share
    /// (or that contains itself) could otherwise be read again for each of them.
    budget: u64,
}

/// Unsupported member kinds make an object raw.
fn unsupported(at: u64, what: impl Into<String>) -> UnlayeredError {
    UnlayeredError::invalid(at, what)
}

/// The object reader's errors: values read through their class.
type Error = ValueError;

impl Reader<'_, '_> {
    fn loc(&self, at: u32) -> u64 {
        self.base + u64::from(at)
    }

    fn bytes(&self, at: u32, n: u32) -> Result<&[u8], Error> {
        let (a, b) = (at as usize, at as usize + n as usize);
        self.d.get(a..b).ok_or_else(|| Error::at(self.loc(at), ErrorKind::Eof { need: u64::from(n), have: self.d.len().saturating_sub(a) as u64 }))
    }

    fn u32(&self, at: u32) -> Result<u32, Error> {
        Ok(self.plan.e.u32(self.bytes(at, 4)?.try_into().unwrap()))
    }

    fn uint(&self, at: u32, n: u32) -> Result<u64, Error> {
        let b = self.bytes(at, n)?;
        let mut v = 0u64;
        match self.plan.e {
            Endian::Big => b.iter().for_each(|&x| v = v << 8 | u64::from(x)),
            Endian::Little => b.iter().rev().for_each(|&x| v = v << 8 | u64::from(x)),
        }
        Ok(v)
    }

    fn floats(&self, at: u32, n: u32) -> Result<Vec<f32>, Error> {
        (0..n).map(|i| Ok(f32::from_bits(self.u32(at + 4 * i)?))).collect()
    }

    fn spend(&mut self, n: u64, at: u32) -> Result<(), Error> {
        self.budget = self.budget.checked_sub(n).ok_or_else(|| {
            // Out-of-line data shared by several slots, or containing itself.
            Error::at(self.loc(at), ErrorKind::CountTooLarge { what: "bytes of array elements and strings read", count: n, room: self.budget })
        })?;
        Ok(())
    }

    /// The target of the pointer slot at `slot`, from its global fixup.
    fn resolve(&self, slot: u32) -> Result<Ref, UnlayeredError> {
        if self.local.contains_key(&slot) {
            return Err(unsupported(self.loc(slot), "a pointer to out-of-line data (local fixup) where an object pointer belongs"));
        }
        let Some(&(sec, dst)) = self.global.get(&slot) else { return Ok(Ref::Null) };
        if sec != self.data_index {
            return Ok(Ref::Section(sec, dst));
        }
        let i = self.objects.partition_point(|&(o, _)| o <= dst);
        let Some(i) = i.checked_sub(1) else { return Ok(Ref::Section(sec, dst)) };
        let (o, _) = self.objects[i];
        Ok(if o == dst { Ref::Object(Handle(i as u32)) } else { Ref::Inside(Handle(i as u32), dst - o) })
    }

    fn read_struct(&mut self, class: &str, at: u32, depth: usize) -> Result<Vec<MemberValue>, Error> {
        if depth > 64 {
            return Err(Error::at(self.loc(at), ErrorKind::Cycle(format!("nesting of {class}"))));
        }
        let (fields, _) = self.plan.fields(class)?;
        let mut out = Vec::with_capacity(fields.len());
        for f in fields.iter() {
            let v = if let Some(runs) = &f.hidden {
                let mut bytes = Vec::with_capacity(runs.iter().map(|r| r.1 as usize).sum());
                for &(off, n) in runs {
                    bytes.extend_from_slice(self.bytes(at + off, n).map_err(|e| e.in_context(format!("{class}.{HIDDEN}")))?);
                }
                MemberValue::Opaque(bytes)
            } else if f.member.c_array_size > 0 {
                let mut items = Vec::with_capacity(f.member.count() as usize);
                for i in 0..f.member.count() {
                    items.push(self.read_one(class, &f.member, f.member.ty, at + f.offset + i * f.size, depth)?);
                }
                MemberValue::CArray(items)
            } else {
                self.read_one(class, &f.member, f.member.ty, at + f.offset, depth)?
            };
            out.push(v);
        }
        Ok(out)
    }

    fn read_one(&mut self, class: &str, m: &Member, ty: MemberType, at: u32, depth: usize) -> Result<MemberValue, Error> {
        let p = self.plan.ptr;
        let here = |e: Error| e.in_context(format!("{class}.{}", m.name));
        Ok(match ty {
            MemberType::Void => MemberValue::Void,
            MemberType::Bool => MemberValue::Bool(self.bytes(at, 1)?[0]),
            MemberType::Char | MemberType::Int8 => MemberValue::Int(i64::from(self.bytes(at, 1)?[0] as i8)),
            MemberType::Uint8 => MemberValue::UInt(self.uint(at, 1)?),
            MemberType::Int16 => MemberValue::Int(i64::from(self.uint(at, 2)? as u16 as i16)),
            MemberType::Uint16 => MemberValue::UInt(self.uint(at, 2)?),
            MemberType::Int32 => MemberValue::Int(i64::from(self.uint(at, 4)? as u32 as i32)),
            MemberType::Uint32 => MemberValue::UInt(self.uint(at, 4)?),
            MemberType::Int64 => MemberValue::Int(self.uint(at, 8)? as i64),
            MemberType::Uint64 => MemberValue::UInt(self.uint(at, 8)?),
            MemberType::Ulong => MemberValue::UInt(self.uint(at, p)?),
            MemberType::Real => MemberValue::Real(f32::from_bits(self.u32(at)?)),
            MemberType::Half => MemberValue::Half(self.uint(at, 2)? as u16),
            MemberType::Vector4 | MemberType::Quaternion => {
                let mut v = [0f32; 4];
                for (i, x) in v.iter_mut().enumerate() {
                    *x = f32::from_bits(self.u32(at + 4 * i as u32)?);
                }
                MemberValue::Vec4(v)
            }
            MemberType::Matrix3 | MemberType::Rotation | MemberType::QsTransform => MemberValue::Floats(self.floats(at, 12)?),
            MemberType::Matrix4 | MemberType::Transform => MemberValue::Floats(self.floats(at, 16)?),
            MemberType::Enum | MemberType::Flags | MemberType::Zero => {
                if m.subtype == ty {
                    return Err(here(unsupported(self.loc(at), "an enum without a storage type").into()));
                }
                self.read_one(class, m, m.subtype, at, depth)?
            }
            MemberType::Pointer | MemberType::FunctionPointer => MemberValue::Ptr(self.resolve(at).map_err(|e| here(e.into()))?),
            MemberType::Variant => {
                MemberValue::Variant(self.resolve(at).map_err(|e| here(e.into()))?, self.resolve(at + p).map_err(|e| here(e.into()))?)
            }
            MemberType::CString | MemberType::StringPtr => {
                if self.global.contains_key(&at) {
                    return Err(here(unsupported(self.loc(at), "a string pointer with a global fixup").into()));
                }
                match self.local.get(&at) {
                    None => MemberValue::Str(None),
                    Some(&dst) => {
                        let rest = self.d.get(dst as usize..).unwrap_or(&[]);
                        let n = rest.iter().position(|&b| b == 0).ok_or_else(|| here(Error::at(self.loc(dst), ErrorKind::UnterminatedString)))?;
                        self.spend(n as u64 + 1, at)?;
                        MemberValue::Str(Some(rest[..n].to_vec()))
                    }
                }
            }
            MemberType::Array | MemberType::SimpleArray => {
                let n = self.uint(at + p, 4)? as u32;
                let capacity = if ty == MemberType::Array { self.u32(at + p + 4)? } else { 0 };
                let items = match self.local.get(&at).copied() {
                    None if n == 0 => typed_items(m, m.subtype, 0),
                    None => return Err(here(Error::invalid(self.loc(at), format!("array of {n} elements without a data pointer")))),
                    Some(dst) => {
                        let (stride, _) = self.plan.elem_shape(class, m).map_err(|e| here(e.into()))?;
                        let room = self.d.len().saturating_sub(dst as usize);
                        let count = crate::bytes::check_count("array elements", u64::from(n), u64::from(stride), room, self.loc(at))
                            .map_err(|e| here(e.into()))?;
                        self.spend(u64::from(n) * u64::from(stride.max(1)), at)?;
                        let em = elem_member(m);
                        // Numbers and vectors stored typed (no value per element).
                        let mut items = typed_items(m, m.subtype, count);
                        match &mut items {
                            Items::Reals(v) => {
                                for i in 0..n {
                                    v.push(f32::from_bits(self.u32(dst + i * stride).map_err(|e| e.in_context(format!("[{i}]")))?));
                                }
                            }
                            items => {
                                for i in 0..n {
                                    items.push(self.read_one(class, &em, m.subtype, dst + i * stride, depth + 1).map_err(|e| e.in_context(format!("[{i}]")))?);
                                }
                            }
                        }
                        items
                    }
                };
                if self.global.contains_key(&at) {
                    return Err(here(unsupported(self.loc(at), "array data pointer with a global fixup").into()));
                }
                MemberValue::Array(MemberArray { items, capacity })
            }
            MemberType::Struct => {
                let name = m.class.as_deref().ok_or_else(|| here(Error::invalid(self.loc(at), "struct member without a class")))?;
                MemberValue::Struct(self.read_struct(name, at, depth + 1).map_err(here)?)
            }
            MemberType::RelArray => {
                if self.local.contains_key(&at) || self.global.contains_key(&at) {
                    return Err(here(unsupported(self.loc(at), "a relative array with a fixup").into()));
                }
                let n = self.uint(at, 2)? as u32;
                let offset = self.uint(at + 2, 2)? as u32;
                let mut items = Vec::new();
                if n > 0 {
                    let (stride, _) = self.plan.elem_shape(class, m).map_err(|e| here(e.into()))?;
                    let dst = at + offset;
                    let room = self.d.len().saturating_sub(dst as usize);
                    let count = crate::bytes::check_count("relative array elements", u64::from(n), u64::from(stride), room, self.loc(at))
                        .map_err(|e| here(e.into()))?;
                    self.spend(u64::from(n) * u64::from(stride.max(1)), at)?;
                    let em = elem_member(m);
                    items.reserve(count);
                    for i in 0..n {
                        items.push(self.read_one(class, &em, m.subtype, dst + i * stride, depth + 1).map_err(|e| e.in_context(format!("[{i}]")))?);
                    }
                } else if offset != 0 {
                    return Err(here(unsupported(self.loc(at), format!("an empty relative array with offset {offset}")).into()));
                }
                MemberValue::RelArray(items)
            }
            MemberType::InplaceArray | MemberType::HomogeneousArray => {
                return Err(here(unsupported(self.loc(at), format!("{} is not read as a value", ty.sdk_name())).into()));
            }
        })
    }
}

/// One object written alone, as the reader checks it.
struct Written<'k> {
    out: Vec<u8>,
    local: Vec<LocalFixup>,
    /// The non-null pointers.
    pending: Vec<(u32, Ref)>,
    follow: Follow<'k>,
    written: Option<Vec<bool>>,
}

/// Writes the object of `class` with `values` from offset 0; `None` when the values do not
/// write.
fn write_one<'k>(plan: &mut Plan<'_>, class: &str, values: &[MemberValue], align: ArrayAlign, follow: Follow<'k>) -> Option<Written<'k>> {
    let mut w = Writer {
        plan,
        out: Vec::new(),
        local: Vec::new(),
        pending: Vec::new(),
        rel: None,
        array_align: align.bytes(),
        align: 1,
        follow,
        start: 0,
        written: None,
    };
    w.object(class, values).ok()?;
    let pending = w.pending.into_iter().filter(|(_, r)| *r != Ref::Null).collect();
    Some(Written { out: w.out, local: w.local, pending, follow: w.follow, written: w.written })
}

/// How an object whose bytes are `span` (with these fixups) is laid out, as the reader keeps it:
/// under the stock rule for where array elements start, or else the other tools' one, or else
/// with what the values do not give kept ([`Kept`]: where the file puts out-of-line data, where
/// the object ends, padding bytes that are not zero). `Some(None)` when none of these writes
/// `values` back as `span` and its fixups (a byte a value writes that differs, fixups the values
/// do not give: the object is demoted to raw); `None` when the values do not write at all.
fn learn_layout(plan: &mut Plan<'_>, class: &str, values: &[MemberValue], span: &[u8], local: &[LocalFixup], global: &[(u32, Ref)]) -> Option<Option<(ArrayAlign, Kept)>> {
    for align in [ArrayAlign::Sixteen, ArrayAlign::Eight] {
        // The reader's plan: the same classes under the same rules, laid out once.
        let w = write_one(plan, class, values, align, Follow::Stock)?;
        if w.out == span && w.local == local && w.pending == global {
            return Some(Some((align, Kept::default())));
        }
        if local.is_empty() {
            // No out-of-line data: where arrays start cannot matter.
            break;
        }
    }
    let learn = Follow::Learn { span, local: local.iter().map(|f| (f.src, f.dst)).collect(), places: Vec::new(), end: None, failed: false };
    if let Some(k) = write_one(plan, class, values, ArrayAlign::Sixteen, learn).and_then(|w| w.kept(span, local, global)) {
        let w = write_one(plan, class, values, ArrayAlign::Sixteen, Follow::Replay { kept: &k, next: 0, off: None })?;
        if w.out == span && w.local == local && w.pending == global {
            return Some(Some((ArrayAlign::Sixteen, k)));
        }
    }
    Some(None)
}

/// Whether [`learn_layout`] over `w` (the object written with `align` and `kept`) gives back
/// `align` and `kept`, without the writes whose outcome is known: a learned layout other than
/// the stock one is 16-aligned, and the write that would confirm a learned `Kept` equal to
/// `kept`, or the 8-aligned stock write when `align` is 8 and `kept` empty, is `w` again
/// (writes are deterministic). The same answer as comparing `learn_layout`'s, with one write
/// fewer per noted object.
fn noted_layout_holds(plan: &mut Plan<'_>, class: &str, values: &[MemberValue], align: ArrayAlign, kept: &Kept, w: &Written<'_>) -> bool {
    let same = |x: &Written<'_>| x.out == w.out && x.local == w.local && x.pending == w.pending;
    // learn_layout's first try, the 16-aligned stock layout: taken if it gives the bytes back,
    // and then nothing is kept (so a note was not needed: refused).
    match write_one(plan, class, values, ArrayAlign::Sixteen, Follow::Stock) {
        Some(x) if !same(&x) => {}
        _ => return false,
    }
    if kept.is_empty() {
        // Only an 8-aligned object has no kept data and a note; the 8-aligned stock write is `w`
        // itself, tried where there is out-of-line data (else learn_layout learns a 16-aligned
        // layout).
        return align == ArrayAlign::Eight && !w.local.is_empty();
    }
    // A learned `Kept` is 16-aligned.
    if align != ArrayAlign::Sixteen {
        return false;
    }
    if !w.local.is_empty() {
        match write_one(plan, class, values, ArrayAlign::Eight, Follow::Stock) {
            Some(x) if !same(&x) => {}
            _ => return false,
        }
    }
    let learn = Follow::Learn { span: &w.out, local: w.local.iter().map(|f| (f.src, f.dst)).collect(), places: Vec::new(), end: None, failed: false };
    // Its replay with a `Kept` equal to `kept` is `w`.
    write_one(plan, class, values, ArrayAlign::Sixteen, learn).and_then(|x| x.kept(&w.out, &w.local, &w.pending)).is_some_and(|k| k == *kept)
}

impl PackfileDocument {
    /// The first object whose array alignment and [`Kept`] data (given, not read from bytes:
    /// an XML reader's `hkgen:object` note) are not what reading the bytes it writes gives back:
    /// a kept place, end or padding that its values do not reach or overwrite, or a layout the
    /// stock rules give anyway. Such an object would lose them on the way through the binary.
    pub(crate) fn first_unkept(&self) -> Result<Option<usize>, WriteError> {
        let mut plan = Plan::new(&self.classes, self.layout())?;
        for (i, o) in self.objects.iter().enumerate() {
            let Body::Typed(values) = &o.body else { continue };
            if o.array_align == ArrayAlign::Sixteen && o.kept.is_empty() {
                continue;
            }
            // Objects start 16-aligned and `__data__` ends so: a binary gives every object an
            // end that is a multiple of 16 (the packfile_xml fuzz target's third finding: a note's
            // end of 360 came back as 368).
            if o.kept.end.is_some_and(|(_, to)| to % 16 != 0) {
                return Ok(Some(i));
            }
            let follow = if o.kept.is_empty() { Follow::Stock } else { Follow::Replay { kept: &o.kept, next: 0, off: None } };
            let Some(w) = write_one(&mut plan, &o.class, values, o.array_align, follow) else { return Ok(Some(i)) };
            if !noted_layout_holds(&mut plan, &o.class, values, o.array_align, &o.kept, &w) {
                return Ok(Some(i));
            }
        }
        Ok(None)
    }
}

impl Written<'_> {
    /// What a write that learned the file's places keeps: its places and end, and the bytes
    /// where the file differs, when all of them are bytes no value writes and the fixups agree.
    fn kept(self, span: &[u8], local: &[LocalFixup], global: &[(u32, Ref)]) -> Option<Kept> {
        let Follow::Learn { places, end, failed: false, .. } = self.follow else { return None };
        if self.out.len() != span.len() || self.local != local || self.pending != global {
            return None;
        }
        let written = self.written.unwrap_or_default();
        let mut padding: Vec<(u32, Vec<u8>)> = Vec::new();
        for k in (0..span.len()).filter(|&k| self.out[k] != span[k]) {
            if written.get(k).copied().unwrap_or(false) {
                return None;
            }
            match padding.last_mut() {
                Some((a, b)) if *a as usize + b.len() == k => b.push(span[k]),
                _ => padding.push((k as u32, vec![span[k]])),
            }
        }
        Some(Kept { places, end, padding })
    }
}

/// Copies `name`, its parents and its struct members' classes from `source` into `into`.
pub(crate) fn copy_class<S: ClassSource + ?Sized>(source: &S, name: &str, into: &mut ClassSet, depth: usize) -> bool {
    if into.classes.contains_key(name) {
        return true;
    }
    if depth > 64 {
        return false;
    }
    let Some(c) = source.class(name) else { return false };
    let c: Class = c.into_owned();
    into.classes.insert(name.to_owned(), c.clone());
    let mut ok = c.parent.as_deref().is_none_or(|p| copy_class(source, p, into, depth + 1));
    for m in &c.members {
        if let Some(e) = &m.enumeration {
            if !into.enums.contains_key(e) {
                if let Some(items) = source.enumeration(e) {
                    into.enums.insert(e.clone(), items.into_owned());
                }
            }
        }
        if m.ty == MemberType::Struct
            || (matches!(m.ty, MemberType::Array | MemberType::SimpleArray | MemberType::RelArray) && m.subtype == MemberType::Struct)
        {
            ok &= m.class.as_deref().is_some_and(|s| copy_class(source, s, into, depth + 1));
        }
    }
    ok
}

impl PackfileDocument {
    /// Reads a packfile's objects through the classes of `source`.
    pub fn read(bytes: &[u8], source: &dyn ClassSource) -> Result<PackfileDocument> {
        let file = PackFile::read(bytes)?;
        Self::from_file(file, source)
    }

    /// Reads the objects of an already parsed packfile.
    pub fn from_file(file: PackFile<'_>, source: &dyn ClassSource) -> Result<PackfileDocument> {
        Self::from_file_with(file, &[source])
    }

    /// Reads the objects through the first of `sources` that describes each class with the
    /// signature the file stores: a neighbouring SDK's record of a class whose signature agrees
    /// lays it out as well as the file's own SDK would. The first source may also lay out a class
    /// whose signature it cannot compute; the others only classes whose signature they recompute.
    ///
    /// A missing `__data__` is a [`ContainerError`]; fixups that do not fit the objects are
    /// [`ItemsError`]s. An object whose values do not read through its class stays raw.
    pub fn from_file_with(file: PackFile<'_>, sources: &[&dyn ClassSource]) -> Result<PackfileDocument> {
        let file = owned(file);
        let data_index = file.section_index(DATA).ok_or_else(|| ContainerError::new(ErrorKind::MissingSection("__data__")))?;
        let names = file.class_names().clone();
        let sec = &file.sections[data_index];
        let d = sec.data().unwrap_or(&[]);
        let mut objects: Vec<(u32, u32)> = sec.virtuals.iter().map(|v| (v.src, 0)).collect();
        if !objects.windows(2).all(|w| w[0].0 < w[1].0) {
            return Err(ItemsError::invalid(0, "virtual fixups are not in ascending order of their objects").into());
        }
        if objects.first().is_some_and(|o| o.0 != 0) {
            return Err(ItemsError::invalid(0, "bytes before the first object of __data__").into());
        }
        for i in 0..objects.len() {
            objects[i].1 = objects.get(i + 1).map_or(d.len() as u32, |o| o.0);
        }
        let rules = file.layout();
        // The classes the typed objects use.
        let mut classes = ClassSet::default();
        let mut typed_class: HashMap<String, bool> = HashMap::new();
        for v in &sec.virtuals {
            let Some(cn) = names.at_offset(v.name_offset) else { continue };
            if typed_class.contains_key(&cn.name) {
                continue;
            }
            let ok = choose_class(sources, &cn.name, cn.signature, rules, &mut classes);
            typed_class.insert(cn.name.clone(), ok);
        }
        let mut reader = Reader {
            d,
            // Errors name file offsets.
            base: super::write::plan(&file).map_or(0, |p| u64::from(p.sections[data_index].start)),
            data_index: data_index as u32,
            local: sec.local.iter().map(|f| (f.src, f.dst)).collect(),
            global: sec.global.iter().map(|f| (f.src, (f.section, f.dst))).collect(),
            objects: &objects,
            plan: Plan::new(&classes, rules).map_err(ContainerError::from)?,
            budget: d.len() as u64 + 64,
        };
        // Each object's fixups, in table order: sources fall in [start, next start).
        let owner = |src: u32| objects.partition_point(|&(o, _)| o <= src).checked_sub(1);
        let mut local_of: Vec<Vec<LocalFixup>> = vec![Vec::new(); objects.len()];
        for f in &sec.local {
            if let Some(i) = owner(f.src) {
                local_of[i].push(*f);
            }
        }
        let mut global_of: Vec<Vec<u32>> = vec![Vec::new(); objects.len()];
        for f in &sec.global {
            if let Some(i) = owner(f.src) {
                global_of[i].push(f.src);
            }
        }
        let mut out = Vec::with_capacity(objects.len());
        let mut demoted = 0;
        let mut bad_values = None;
        for (i, (v, &(at, end))) in sec.virtuals.iter().zip(&objects).enumerate() {
            let class = names
                .at_offset(v.name_offset)
                .map(|c| c.name.clone())
                .ok_or_else(|| ItemsError::invalid(u64::from(at), format!("object {i}: no class name at {:#x}", v.name_offset)))?;
            let span = &d[at as usize..end as usize];
            let local: Vec<LocalFixup> = local_of[i]
                .iter()
                .map(|f| {
                    if f.dst < at || f.dst > end {
                        Err(ItemsError::invalid(
                            reader.loc(f.src),
                            format!("{class} at {at:#x}: local fixup {:#x} -> {:#x} leaves the object's bytes", f.src, f.dst),
                        ))
                    } else {
                        Ok(LocalFixup { src: f.src - at, dst: f.dst - at })
                    }
                })
                .collect::<Result<_, ItemsError>>()?;
            let global: Vec<(u32, Ref)> =
                global_of[i].iter().map(|&src| Ok((src - at, reader.resolve(src)?))).collect::<Result<_, ItemsError>>()?;
            let typed = if at % 16 == 0
                && typed_class.get(&class).copied().unwrap_or(false)
                && (reader.plan.layouts.class(&class).is_ok_and(|l| l.size <= end - at)
                    // The last object may end early where the file ends, past its values' bytes.
                    || end as usize == d.len() && reader.plan.extent(&class).is_ok_and(|n| n <= end - at))
            {
                match reader.read_struct(&class, at, 0) {
                    Ok(values) => Some(values),
                    Err(e) => {
                        let data_error = matches!(
                            e.kind(),
                            ErrorKind::CountTooLarge { .. } | ErrorKind::Eof { .. } | ErrorKind::UnterminatedString | ErrorKind::Cycle(_)
                        );
                        if data_error && bad_values.is_none() {
                            bad_values = Some((Handle(i as u32), e.in_context(format!("object {i} ({class})"))));
                        }
                        None
                    }
                }
            } else {
                None
            };
            // A typed object is kept typed only when writing it gives back its bytes and fixups:
            // under the stock rule for where array elements start, or else the other tools' one,
            // or else with what the values do not give kept on the object ([`Kept`]: where the
            // file puts out-of-line data, where the object ends, padding bytes that are not zero).
            // Anything else (a byte a value writes that differs, fixups the values do not give)
            // leaves the object raw.
            let mut array_align = ArrayAlign::Sixteen;
            let mut kept = Kept::default();
            let typed = typed.and_then(|values| match learn_layout(&mut reader.plan, &class, &values, span, &local, &global)? {
                Some((a, k)) => {
                    (array_align, kept) = (a, k);
                    Some(values)
                }
                None => {
                    demoted += 1;
                    None
                }
            });
            let body = match typed {
                Some(values) => Body::Typed(values),
                None => Body::Untyped(Untyped { bytes: span.to_vec(), local, global }),
            };
            out.push(Object { class, class_ref: (v.section, v.name_offset), body, array_align, kept });
        }
        let root = if file.header.contents_section_index as usize == data_index {
            objects.iter().position(|o| o.0 == file.header.contents_section_offset).map(|i| Handle(i as u32))
        } else {
            None
        };
        drop(reader);
        let mut doc = PackfileDocument { file, data_index, objects: out, classes, root, demoted, bad_values, declare_from: DeclareFrom::default(), array_flags: DONT_DEALLOCATE, repairs: Vec::new() };
        doc.learn_array_flags();
        Ok(doc)
    }

    /// Sets [`PackfileDocument::array_flags`] from the objects, as reading a file does: the flags every
    /// hkArray of the typed objects carries, else those of the contents version's files.
    pub(crate) fn learn_array_flags(&mut self) {
        self.array_flags = self.common_array_flags().unwrap_or_else(|| stock_array_flags(&self.file.contents_version()));
    }

    /// The flags that every hkArray of the typed objects carries over exactly its length, when
    /// there is at least one hkArray and they all agree.
    fn common_array_flags(&self) -> Option<u32> {
        let mut common: Option<Option<u32>> = None;
        for o in &self.objects {
            let Body::Typed(values) = &o.body else { continue };
            let agree = each_hk_array(&self.classes, &o.class, values, 0, &mut |a| {
                let flags = a.capacity & ARRAY_FLAG_BITS;
                let fits = a.capacity & !ARRAY_FLAG_BITS == a.items.len() as u32;
                let same = fits && common.is_none_or(|c| c == Some(flags));
                common = Some(same.then_some(flags));
                same
            });
            if !agree {
                return None;
            }
        }
        common.flatten()
    }

    /// How many objects are typed and how many untyped (kept as their bytes).
    pub fn counts(&self) -> Counts {
        let typed = self.objects.iter().filter(|o| matches!(o.body, Body::Typed(_))).count();
        Counts { typed, untyped: self.objects.len() - typed, demoted: self.demoted }
    }

    /// The objects `h` points at (from its values, or an untyped object's global fixups), each
    /// once, in ascending order.
    pub fn pointers_of(&self, h: Handle) -> Vec<Handle> {
        let mut out = Vec::new();
        if let Some(o) = self.objects.get(h.0 as usize) {
            body_refs(&o.body, &mut |r: &Ref| {
                if let Ref::Object(t) | Ref::Inside(t, _) = *r {
                    out.push(t);
                }
            });
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The objects that point at `h`, in file order.
    pub fn referrers(&self, h: Handle) -> Vec<Handle> {
        (0..self.objects.len() as u32).map(Handle).filter(|&o| o != h && self.pointers_of(o).contains(&h)).collect()
    }

    /// Removes object `h`. Refused while another object points at it (the error names them, see
    /// [`ErrorKind::Referenced`]) and for the contents (root) object. The objects after it move
    /// down by one handle, and every pointer to them follows.
    pub fn remove(&mut self, h: Handle) -> Result<(), ValueError> {
        let name = |d: &PackfileDocument, o: Handle| format!("object {} ({})", o.0, d.objects[o.0 as usize].class);
        if h.0 as usize >= self.objects.len() {
            return Err(ValueError::new(ErrorKind::Invalid(format!("no object {}", h.0))));
        }
        if Some(h) == self.root {
            return Err(ValueError::new(ErrorKind::Invalid(format!("{} is the contents (root) object", name(self, h)))));
        }
        let referrers = self.referrers(h);
        if !referrers.is_empty() {
            let referrers = referrers.into_iter().map(|o| name(self, o)).collect();
            return Err(ValueError::new(ErrorKind::Referenced { object: name(self, h), referrers }));
        }
        self.objects.remove(h.0 as usize);
        let down = |t: &mut Handle| {
            if t.0 > h.0 {
                t.0 -= 1;
            }
        };
        for o in &mut self.objects {
            each_ref(&mut o.body, &mut |r: &mut Ref| {
                if let Ref::Object(t) | Ref::Inside(t, _) = r {
                    down(t);
                }
            });
        }
        if let Some(r) = &mut self.root {
            down(r);
        }
        if let Some((b, _)) = &mut self.bad_values {
            down(b);
        }
        Ok(())
    }

    /// The objects of class `class`, in file order.
    pub fn find<'a>(&'a self, class: &'a str) -> impl Iterator<Item = Handle> + 'a {
        self.objects.iter().enumerate().filter(move |(_, o)| o.class == class).map(|(i, _)| Handle(i as u32))
    }

    /// The value of member `name` (its own or an ancestor's) of a typed object.
    pub fn field(&self, h: Handle, name: &str) -> Option<&MemberValue> {
        let o = self.objects.get(h.0 as usize)?;
        let Body::Typed(values) = &o.body else { return None };
        let i = self.member_names(&o.class).iter().position(|n| n == name)?;
        values.get(i)
    }

    /// The value of member `name` of a typed object, to change it (the writer checks that the new
    /// value fits the member's type).
    pub fn field_mut(&mut self, h: Handle, name: &str) -> Option<&mut MemberValue> {
        let class = self.objects.get(h.0 as usize)?.class.clone();
        let i = self.member_names(&class).iter().position(|n| n == name)?;
        match &mut self.objects.get_mut(h.0 as usize)?.body {
            Body::Typed(values) => values.get_mut(i),
            Body::Untyped(_) => None,
        }
    }

    /// The layout rules the file was read with.
    pub fn layout(&self) -> LayoutRules {
        self.file.layout()
    }

    /// The names of a typed object's members (ancestors' first), in the order of its values.
    pub fn member_names(&self, class: &str) -> Vec<String> {
        self.members_of(class).map(|m| m.name.clone()).collect()
    }

    /// The class of a struct member, to name its values.
    pub fn member(&self, class: &str, index: usize) -> Option<&Member> {
        self.members_of(class).nth(index)
    }

    /// A class's members with its ancestors' first (a parent chain is followed 65 classes deep at
    /// most, so a cyclic one ends).
    pub(super) fn members_of(&self, class: &str) -> impl Iterator<Item = &Member> + '_ {
        members_in(&self.classes, class)
    }

    /// The file again, `__data__` laid out from the objects under the file's own rules. The
    /// error is a [`WriteError`].
    pub fn write(&self) -> Result<Vec<u8>> {
        self.write_as(self.layout())
    }

    /// The file with `__data__` laid out under `rules` (another platform's pointer size, byte
    /// order and padding rules). Untyped objects cannot change layout: writing them under other rules
    /// is an error that names them.
    pub fn write_as(&self, rules: LayoutRules) -> Result<Vec<u8>> {
        self.to_packfile(rules)?.to_bytes()
    }

    /// The container with `__data__` rebuilt under `rules`.
    pub fn to_packfile(&self, rules: LayoutRules) -> Result<PackFile<'static>, WriteError> {
        let own = self.layout();
        let same = rules == own;
        if !same {
            if let Some((i, o)) = self.objects.iter().enumerate().find(|(_, o)| matches!(o.body, Body::Untyped(_))) {
                return Err(WriteError::new(ErrorKind::Invalid(format!(
                    "object {i} ({}) has no class description: it cannot be laid out under {rules}",
                    o.class
                ))));
            }
        }
        let mut plan = Plan::new(&self.classes, rules)?;
        let mut w = Writer {
            plan: &mut plan,
            out: Vec::new(),
            local: Vec::new(),
            pending: Vec::new(),
            rel: None,
            array_align: 16,
            align: 1,
            follow: Follow::Stock,
            start: 0,
            written: None,
        };
        let mut starts = Vec::with_capacity(self.objects.len());
        let mut virtuals = Vec::with_capacity(self.objects.len());
        for (i, o) in self.objects.iter().enumerate() {
            let at = w.place(16, None).map_err(|e| e.in_context(format!("object {i} ({})", o.class)))?;
            starts.push(at);
            virtuals.push(VirtualFixup { src: at, section: o.class_ref.0, name_offset: o.class_ref.1 });
            w.array_align = o.array_align.bytes();
            // Kept places and padding hold for the layout the object was read with.
            w.follow = if same && !o.kept.is_empty() { Follow::Replay { kept: &o.kept, next: 0, off: None } } else { Follow::Stock };
            match &o.body {
                Body::Typed(values) => w.object(&o.class, values).map_err(|e| e.in_context(format!("object {i} ({})", o.class)))?,
                Body::Untyped(r) => {
                    w.out.extend_from_slice(&r.bytes);
                    w.local.extend(r.local.iter().map(|f| LocalFixup { src: f.src + at, dst: f.dst + at }));
                    w.pending.extend(r.global.iter().map(|&(src, t)| (src + at, t)));
                }
            }
        }
        w.place(16, None)?;
        let di = self.data_index as u32;
        let global = w
            .pending
            .iter()
            .filter(|(_, t)| *t != Ref::Null)
            .map(|&(src, t)| {
                let (section, dst) = match t {
                    Ref::Null => (0, 0),
                    Ref::Object(h) => (di, *starts.get(h.0 as usize).ok_or_else(|| bad_handle(&h))?),
                    Ref::Inside(h, off) => (di, starts.get(h.0 as usize).ok_or_else(|| bad_handle(&h))? + off),
                    Ref::Section(s, o) => (s, o),
                };
                Ok(GlobalFixup { src, section, dst })
            })
            .collect::<Result<Vec<_>, WriteError>>()?;
        let mut file = self.file.clone();
        if rules.endian() != own.endian() {
            // The version-11 header region holds 32-bit words (20, then zeros).
            if let super::file::HeaderTail::Predicates { region, .. } = &mut file.header.tail {
                region.chunks_exact_mut(4).for_each(|w| w.reverse());
            }
        }
        file.header.layout = rules;
        if let Some(r) = self.root {
            file.header.contents_section_offset = *starts.get(r.0 as usize).ok_or_else(|| bad_handle(&r))?;
        }
        let sec = &mut file.sections[self.data_index];
        sec.body = SectionBody::Data(Cow::Owned(w.out));
        sec.local = w.local;
        sec.global = global;
        sec.virtuals = virtuals;
        if !same {
            sec.fill = Default::default();
        }
        Ok(file)
    }
}

fn bad_handle(h: &Handle) -> WriteError {
    WriteError::new(ErrorKind::IndexOutOfRange { what: "object handle", index: u64::from(h.0), count: 0 })
}

/// The container with every borrowed part copied.
pub(super) fn owned(file: PackFile<'_>) -> PackFile<'static> {
    PackFile {
        header: file.header,
        sections: file
            .sections
            .into_iter()
            .map(|s| super::file::Section {
                name: s.name,
                body: match s.body {
                    SectionBody::Data(d) => SectionBody::Data(Cow::Owned(d.into_owned())),
                    SectionBody::ClassNames(c) => SectionBody::ClassNames(c),
                },
                local: s.local,
                global: s.global,
                virtuals: s.virtuals,
                exports: Cow::Owned(s.exports.into_owned()),
                imports: Cow::Owned(s.imports.into_owned()),
                fill: s.fill,
                header_tail: s.header_tail,
            })
            .collect(),
    }
}

/// Laying out `__data__`.
struct Writer<'p, 'c, 'k> {
    plan: &'p mut Plan<'c>,
    out: Vec<u8>,
    local: Vec<LocalFixup>,
    /// Global fixups in walk order, targets resolved once every object is placed.
    pending: Vec<(u32, Ref)>,
    /// While an object's own bytes are written: its relative arrays (slot, member, elements),
    /// whose elements go after those bytes. `None` elsewhere (array elements, out-of-line
    /// data), where a relative array has no place to go.
    rel: Option<Vec<(u32, Member, Vec<MemberValue>)>>,
    /// Where array elements start: [`ArrayAlign::bytes`] of the object being written.
    array_align: usize,
    /// The alignment the next placed data needs (padding is laid down when data is placed, so
    /// that a kept place can replace it).
    align: usize,
    /// How the object being written places its data.
    follow: Follow<'k>,
    /// The start of the object being written, and which of its bytes a value wrote (while
    /// learning or following kept places).
    start: u32,
    written: Option<Vec<bool>>,
}

/// Where an object's data goes.
enum Follow<'k> {
    /// The stock layout.
    Stock,
    /// Reading: where the file puts it (its bytes and its local fixups, from the object's start),
    /// recorded as [`Kept`] places.
    Learn { span: &'k [u8], local: FxMap<u32, u32>, places: Vec<(u32, u32)>, end: Option<(u32, u32)>, failed: bool },
    /// Writing an object with [`Kept`] data: the next kept place, and where the object stopped
    /// following it (relative offset), if it did.
    Replay { kept: &'k Kept, next: usize, off: Option<u32> },
}

/// What out-of-line data is placed for: the slot of a pointer with a local fixup, or of a
/// relative array.
#[derive(Clone, Copy)]
enum Src {
    Fixup(u32),
    Rel(u32),
}

/// Where a [`Kept`] place or end `(from, to)` puts data of the object that starts at `start`:
/// an error, not a wrapped offset or a cut into bytes already written, when a hand-built
/// [`Kept`] asks for data before the writer's position or past the 32-bit offsets of a packfile.
fn kept_target(start: u32, from: u32, to: u32, what: &str) -> Result<u32, WriteError> {
    match start.checked_add(to) {
        Some(target) if to >= from && to - from <= MAX_KEPT_GAP => Ok(target),
        _ => Err(WriteError::new(ErrorKind::Invalid(format!(
            "{what} ({from:#x}, {to:#x}) of the object at {start:#x} is before the data already written, \
             more than {MAX_KEPT_GAP:#x} bytes past it or past a packfile's 32-bit offsets"
        )))),
    }
}

/// The most padding a [`Kept`] place or end may put before an object's data or end: the reader
/// keeps no larger gap (such an object stays raw), and the writer refuses one from a hand-built
/// [`Kept`], so that no `Kept` makes it allocate more than this per place.
const MAX_KEPT_GAP: u32 = 1 << 20;

/// The error of a `__data__` section grown past a packfile's 32-bit offsets.
fn too_large(len: usize) -> WriteError {
    WriteError::new(ErrorKind::Invalid(format!("__data__ of {len} bytes does not fit a packfile's 32-bit offsets")))
}

fn mismatch(what: &str, v: &MemberValue) -> WriteError {
    WriteError::new(ErrorKind::Invalid(format!("{what}: value {} does not fit the member type", short(v))))
}

fn short(v: &MemberValue) -> String {
    let s = format!("{v:?}");
    if let Some((cut, _)) = s.char_indices().nth(60) {
        format!("{}...", &s[..cut])
    } else {
        s
    }
}

impl Writer<'_, '_, '_> {
    /// Asks that the next data placed start on an `a`-byte boundary.
    fn pad(&mut self, a: usize) {
        self.align = self.align.max(a);
    }

    /// Pads for data that needs alignment `a` (and what [`Writer::pad`] asked) and returns where
    /// it starts: the stock place, or where the file put it ([`Follow`]).
    fn place(&mut self, a: usize, src: Option<Src>) -> Result<u32, WriteError> {
        let a = a.max(self.align);
        self.align = 1;
        let len = self.out.len() as u32;
        let stock = u32::try_from(self.out.len().div_ceil(a) * a).map_err(|_| too_large(self.out.len()))?;
        let (start, e) = (self.start, self.plan.e);
        let from = len.wrapping_sub(start);
        let target = match (&mut self.follow, src) {
            (Follow::Stock, _) | (_, None) => stock,
            (Follow::Learn { span, local, places, failed, .. }, Some(src)) => {
                let to = match src {
                    Src::Fixup(slot) => local.get(&(slot - start)).copied(),
                    Src::Rel(slot) => {
                        let at = (slot - start) as usize + 2;
                        span.get(at..at + 2).map(|b| (slot - start) + u32::from(e.u16([b[0], b[1]])))
                    }
                };
                match to {
                    Some(to) if to >= from && to - from <= MAX_KEPT_GAP => {
                        places.push((from, to));
                        start + to
                    }
                    _ => {
                        *failed = true;
                        stock
                    }
                }
            }
            (Follow::Replay { kept, next, off }, Some(_)) => match kept.places.get(*next) {
                Some(&(f, t)) if off.is_none() && f == from => {
                    *next += 1;
                    kept_target(start, f, t, "kept place")?
                }
                _ => {
                    off.get_or_insert(from);
                    stock
                }
            },
        };
        self.out.resize(target as usize, 0);
        Ok(target)
    }

    /// Whether the object's bytes may end at `to` (from its start) though more was written: no
    /// value wrote past it and no fixup starts or lands past it.
    fn cuttable(&self, to: u32) -> bool {
        let cut = self.start + to;
        self.written.as_ref().is_some_and(|w| w.iter().skip(to as usize).all(|x| !x))
            && self.local.iter().all(|f| f.src < cut && f.dst < cut)
            && self.pending.iter().all(|p| p.0 < cut)
    }

    /// Ends the object: pads to 16 the stock way, or ends where the file ended it; then puts
    /// back kept padding bytes.
    fn finish(&mut self) -> Result<(), WriteError> {
        let a = self.align.max(16);
        self.align = 1;
        let stock = self.out.len().div_ceil(a) * a;
        let from = (self.out.len() as u32).wrapping_sub(self.start);
        let end = match &self.follow {
            Follow::Stock => None,
            Follow::Learn { span, .. } => Some(span.len() as u32),
            Follow::Replay { kept, off, .. } => kept.end.filter(|&(f, _)| off.is_none() && f == from).map(|(_, t)| t),
        };
        let ok = end.filter(|&to| (to >= from && (to - from <= MAX_KEPT_GAP || matches!(self.follow, Follow::Replay { .. }))) || self.cuttable(to));
        match (&mut self.follow, ok) {
            (Follow::Learn { end: e, .. }, Some(to)) => *e = Some((from, to)),
            (Follow::Learn { failed, .. }, None) => *failed = true,
            (Follow::Replay { off, .. }, None) => {
                off.get_or_insert(from);
            }
            _ => {}
        }
        match ok {
            // A kept end past the stock one only adds padding; one before it only cuts bytes no
            // value wrote ([`Writer::cuttable`]).
            Some(to) if matches!(self.follow, Follow::Replay { .. }) => {
                let end = kept_target(self.start, from.min(to), to, "kept end")?;
                self.out.resize(end as usize, 0);
            }
            Some(to) => self.out.resize((self.start + to) as usize, 0),
            None => {
                u32::try_from(stock).map_err(|_| too_large(stock))?;
                self.out.resize(stock, 0);
            }
        }
        if let (Follow::Replay { kept, off, .. }, Some(w)) = (&self.follow, &self.written) {
            let limit = off.unwrap_or(u32::MAX) as usize;
            let n = self.out.len() - self.start as usize;
            for (at, bytes) in &kept.padding {
                for (j, &b) in bytes.iter().enumerate() {
                    let k = *at as usize + j;
                    if k < limit && k < n && !w.get(k).copied().unwrap_or(false) {
                        self.out[self.start as usize + k] = b;
                    }
                }
            }
        }
        Ok(())
    }

    /// Notes that a value wrote `n` bytes at `at` (while learning or following kept places).
    fn mark(&mut self, at: u32, n: usize) {
        if let Some(w) = &mut self.written {
            let s = (at - self.start) as usize;
            if w.len() < s + n {
                w.resize(s + n, false);
            }
            w[s..s + n].fill(true);
        }
    }

    fn put(&mut self, at: u32, b: &[u8]) {
        self.out[at as usize..at as usize + b.len()].copy_from_slice(b);
        self.mark(at, b.len());
    }

    fn put_uint(&mut self, at: u32, n: u32, v: u64) {
        let n = n as usize;
        match self.plan.e {
            Endian::Big => {
                let b = v.to_be_bytes();
                self.put(at, &b[8 - n..]);
            }
            Endian::Little => {
                let b = v.to_le_bytes();
                self.put(at, &b[..n]);
            }
        }
    }

    fn object(&mut self, class: &str, values: &[MemberValue]) -> Result<(), WriteError> {
        let (_, size) = self.plan.fields(class)?;
        let at = self.out.len() as u32;
        self.start = at;
        self.written = (!matches!(self.follow, Follow::Stock)).then(Vec::new);
        self.out.resize(self.out.len() + size as usize, 0);
        self.rel = Some(Vec::new());
        let inline = self.inline_struct(class, at, values);
        let rel = self.rel.take().unwrap_or_default();
        inline?;
        for (slot, m, items) in &rel {
            self.rel_data(class, *slot, m, items).map_err(|e| e.in_context(format!("{class}.{}", m.name)))?;
        }
        // Top-level data starts on a 16-byte boundary after the object.
        self.pad(16);
        self.data_struct(class, at, values)?;
        self.finish()
    }

    /// Writes a struct's inline bytes at `at` (already zeroed room).
    fn inline_struct(&mut self, class: &str, at: u32, values: &[MemberValue]) -> Result<(), WriteError> {
        let (fields, _) = self.plan.fields(class)?;
        if fields.len() != values.len() {
            return Err(WriteError::new(ErrorKind::Invalid(format!("{class}: {} values for {} members", values.len(), fields.len()))));
        }
        for (f, v) in fields.iter().zip(values) {
            let here = |e: WriteError| e.in_context(format!("{class}.{}", f.member.name));
            if let Some(runs) = &f.hidden {
                let n: usize = runs.iter().map(|r| r.1 as usize).sum();
                match v {
                    MemberValue::Opaque(b) if b.len() == n => {
                        let mut b = &b[..];
                        for &(off, len) in runs {
                            let (run, rest) = b.split_at(len as usize);
                            self.put(at + off, run);
                            b = rest;
                        }
                    }
                    MemberValue::Opaque(b) => {
                        return Err(here(WriteError::new(ErrorKind::Invalid(format!(
                            "{} hidden bytes where the layout leaves {n}",
                            b.len()
                        )))))
                    }
                    _ => return Err(here(mismatch("hidden bytes", v))),
                }
                continue;
            }
            match (f.member.c_array_size > 0, v) {
                (true, MemberValue::CArray(items)) if items.len() == f.member.count() as usize => {
                    for (i, item) in items.iter().enumerate() {
                        self.inline_one(class, &f.member, f.member.ty, at + f.offset + i as u32 * f.size, item).map_err(here)?;
                    }
                }
                (true, _) => return Err(here(mismatch("C array", v))),
                (false, v) => self.inline_one(class, &f.member, f.member.ty, at + f.offset, v).map_err(here)?,
            }
        }
        Ok(())
    }

    fn inline_one(&mut self, class: &str, m: &Member, ty: MemberType, at: u32, v: &MemberValue) -> Result<(), WriteError> {
        let p = self.plan.ptr;
        // An integer member of `n` bytes takes a value in its signed or its unsigned range (the
        // reader gives signed types as `Int`, unsigned as `UInt`; an edit may give either); a value
        // outside both would be cut silently, so it is refused.
        let int = |v: &MemberValue, n: u32, what: &str| -> Result<u64, WriteError> {
            let bits = 8 * n;
            let fits = match *v {
                MemberValue::Int(i) => bits >= 64 || (-(1i128 << (bits - 1))..(1i128 << bits)).contains(&i128::from(i)),
                MemberValue::UInt(u) => bits >= 64 || u < 1u64 << bits,
                _ => return Err(mismatch(what, v)),
            };
            if !fits {
                return Err(WriteError::new(ErrorKind::Invalid(format!("{what}: value {} does not fit in {bits} bits", short(v)))));
            }
            Ok(match *v {
                MemberValue::Int(i) => i as u64,
                MemberValue::UInt(u) => u,
                _ => 0,
            })
        };
        match ty {
            MemberType::Void => {}
            MemberType::Bool => match v {
                MemberValue::Bool(b) => self.put(at, &[*b]),
                _ => return Err(mismatch("bool", v)),
            },
            MemberType::Char | MemberType::Int8 | MemberType::Uint8 => self.put_uint(at, 1, int(v, 1, "8-bit integer")?),
            MemberType::Int16 | MemberType::Uint16 => self.put_uint(at, 2, int(v, 2, "16-bit integer")?),
            MemberType::Int32 | MemberType::Uint32 => self.put_uint(at, 4, int(v, 4, "32-bit integer")?),
            MemberType::Int64 | MemberType::Uint64 => self.put_uint(at, 8, int(v, 8, "64-bit integer")?),
            MemberType::Ulong => self.put_uint(at, p, int(v, p, "ulong")?),
            MemberType::Real => match v {
                MemberValue::Real(r) => self.put_uint(at, 4, u64::from(r.to_bits())),
                _ => return Err(mismatch("real", v)),
            },
            MemberType::Half => match v {
                MemberValue::Half(h) => self.put_uint(at, 2, u64::from(*h)),
                _ => return Err(mismatch("half", v)),
            },
            MemberType::Vector4 | MemberType::Quaternion => match v {
                MemberValue::Vec4(fs) => {
                    for (i, x) in fs.iter().enumerate() {
                        self.put_uint(at + 4 * i as u32, 4, u64::from(x.to_bits()));
                    }
                }
                _ => return Err(mismatch("vector", v)),
            },
            MemberType::Matrix3 | MemberType::Rotation | MemberType::QsTransform | MemberType::Matrix4 | MemberType::Transform => {
                let n = if matches!(ty, MemberType::Matrix4 | MemberType::Transform) { 16 } else { 12 };
                match v {
                    MemberValue::Floats(fs) if fs.len() == n => {
                        for (i, x) in fs.iter().enumerate() {
                            self.put_uint(at + 4 * i as u32, 4, u64::from(x.to_bits()));
                        }
                    }
                    _ => return Err(mismatch(&format!("{n} floats"), v)),
                }
            }
            MemberType::Enum | MemberType::Flags | MemberType::Zero => {
                if m.subtype == ty {
                    return Err(mismatch("enum without storage", v));
                }
                self.inline_one(class, m, m.subtype, at, v)?
            }
            // Pointer slots are the fixups' (kept padding never goes there).
            MemberType::Pointer | MemberType::FunctionPointer => {
                if !matches!(v, MemberValue::Ptr(_)) {
                    return Err(mismatch("pointer", v));
                }
                self.mark(at, p as usize);
            }
            MemberType::Variant => {
                if !matches!(v, MemberValue::Variant(..)) {
                    return Err(mismatch("variant", v));
                }
                self.mark(at, 2 * p as usize);
            }
            MemberType::CString | MemberType::StringPtr => {
                if !matches!(v, MemberValue::Str(_)) {
                    return Err(mismatch("string", v));
                }
                self.mark(at, p as usize);
            }
            MemberType::Array | MemberType::SimpleArray => match v {
                MemberValue::Array(a) => {
                    self.mark(at, p as usize);
                    self.put_uint(at + p, 4, a.len() as u64);
                    if ty == MemberType::Array {
                        self.put_uint(at + p + 4, 4, u64::from(a.capacity));
                    }
                }
                _ => return Err(mismatch("array", v)),
            },
            MemberType::Struct => match v {
                MemberValue::Struct(vals) => {
                    let name = m.class.as_deref().ok_or_else(|| mismatch("struct without class", v))?;
                    self.inline_struct(name, at, vals)?
                }
                _ => return Err(mismatch("struct", v)),
            },
            MemberType::RelArray => match (v, &mut self.rel) {
                (MemberValue::RelArray(items), Some(rel)) => {
                    rel.push((at, m.clone(), items.clone()));
                    self.mark(at, 4);
                }
                (MemberValue::RelArray(_), None) => {
                    return Err(WriteError::new(ErrorKind::Invalid(format!(
                        "{class}.{}: a relative array outside an object's own members has no place for its elements",
                        m.name
                    ))))
                }
                _ => return Err(mismatch("relative array", v)),
            },
            MemberType::InplaceArray | MemberType::HomogeneousArray => {
                return Err(WriteError::new(ErrorKind::Invalid(format!("{class}.{}: {} cannot be written", m.name, ty.sdk_name()))))
            }
        }
        Ok(())
    }

    /// The elements of a relative array whose slot is `slot`: after what the object holds so far,
    /// 16-aligned (or to the element, when more), with the slot's count and offset.
    fn rel_data(&mut self, class: &str, slot: u32, m: &Member, items: &[MemberValue]) -> Result<(), WriteError> {
        if items.is_empty() {
            return Ok(());
        }
        // Stock files start each relative array's elements on a 16-byte boundary.
        let (stride, align) = self.plan.elem_shape(class, m)?;
        let dst = self.place(align.max(16) as usize, Some(Src::Rel(slot)))?;
        let offset = dst - slot;
        let (Ok(n), Ok(offset)) = (u16::try_from(items.len()), u16::try_from(offset)) else {
            return Err(WriteError::new(ErrorKind::Invalid(format!(
                "{} elements at {offset} bytes from the member do not fit a relative array's 16-bit count and offset",
                items.len()
            ))));
        };
        self.put_uint(slot, 2, u64::from(n));
        self.put_uint(slot + 2, 2, u64::from(offset));
        self.out.resize(self.out.len() + stride as usize * items.len(), 0);
        let em = elem_member(m);
        for (i, item) in items.iter().enumerate() {
            self.inline_one(class, &em, m.subtype, dst + i as u32 * stride, item).map_err(|e| e.in_context(format!("[{i}]")))?;
        }
        Ok(())
    }

    /// Writes the out-of-line data of a struct placed at `at`, member by member, and records its
    /// fixups; pads to 16 after each member that wrote data.
    fn data_struct(&mut self, class: &str, at: u32, values: &[MemberValue]) -> Result<(), WriteError> {
        let (fields, _) = self.plan.fields(class)?;
        for (f, v) in fields.iter().zip(values) {
            let before = self.out.len();
            match v {
                MemberValue::CArray(items) => {
                    for (i, item) in items.iter().enumerate() {
                        self.data_one(class, &f.member, f.member.ty, at + f.offset + i as u32 * f.size, item)?;
                    }
                }
                v => self.data_one(class, &f.member, f.member.ty, at + f.offset, v)?,
            }
            if self.out.len() != before {
                self.pad(16);
            }
        }
        Ok(())
    }

    fn data_one(&mut self, class: &str, m: &Member, ty: MemberType, at: u32, v: &MemberValue) -> Result<(), WriteError> {
        let p = self.plan.ptr;
        match (ty, v) {
            (MemberType::Enum | MemberType::Flags | MemberType::Zero, _) => {}
            (MemberType::Pointer | MemberType::FunctionPointer, MemberValue::Ptr(r)) => self.pending.push((at, *r)),
            (MemberType::Variant, MemberValue::Variant(a, b)) => {
                self.pending.push((at, *a));
                self.pending.push((at + p, *b));
            }
            (MemberType::CString | MemberType::StringPtr, MemberValue::Str(Some(s))) => {
                let dst = self.place(2, Some(Src::Fixup(at)))?;
                self.out.extend_from_slice(s);
                self.out.push(0);
                self.mark(dst, s.len() + 1);
                self.local.push(LocalFixup { src: at, dst });
            }
            (MemberType::Array | MemberType::SimpleArray, MemberValue::Array(a)) if !a.is_empty() => {
                let (stride, _) = self.plan.elem_shape(class, m)?;
                let dst = self.place(self.array_align, Some(Src::Fixup(at)))?;
                self.local.push(LocalFixup { src: at, dst });
                self.out.resize(self.out.len() + stride as usize * a.len(), 0);
                let em = elem_member(m);
                // The bytes of an integer element (0: not an integer type).
                let width = match m.subtype {
                    MemberType::Char | MemberType::Int8 | MemberType::Uint8 => 1,
                    MemberType::Int16 | MemberType::Uint16 => 2,
                    MemberType::Int32 | MemberType::Uint32 => 4,
                    MemberType::Int64 | MemberType::Uint64 => 8,
                    MemberType::Ulong => p,
                    _ => 0,
                };
                match &a.items {
                    Items::Values(items) => {
                        for (i, item) in items.iter().enumerate() {
                            self.inline_one(class, &em, m.subtype, dst + i as u32 * stride, item)?;
                        }
                        for (i, item) in items.iter().enumerate() {
                            let slot = dst + i as u32 * stride;
                            match (m.subtype, item) {
                                (MemberType::Struct, MemberValue::Struct(vals)) => {
                                    self.data_struct(m.class.as_deref().unwrap_or_default(), slot, vals)?;
                                }
                                _ => self.data_one(class, &em, m.subtype, slot, item)?,
                            }
                        }
                    }
                    Items::Reals(v) if m.subtype == MemberType::Real => {
                        for (i, x) in v.iter().enumerate() {
                            self.put_uint(dst + i as u32 * stride, 4, u64::from(x.to_bits()));
                        }
                    }
                    Items::Vec4s(v) if matches!(m.subtype, MemberType::Vector4 | MemberType::Quaternion) => {
                        for (i, f) in v.iter().enumerate() {
                            for (k, x) in f.iter().enumerate() {
                                self.put_uint(dst + i as u32 * stride + 4 * k as u32, 4, u64::from(x.to_bits()));
                            }
                        }
                    }
                    // Numbers and vectors: no out-of-line data; each checked as a value (an
                    // integer's range, a form not of the element type refused).
                    Items::Ints(v) if width > 0 => {
                        let bits = 8 * width;
                        for (i, &x) in v.iter().enumerate() {
                            let at = dst + i as u32 * stride;
                            if bits >= 64 || (-(1i128 << (bits - 1))..(1i128 << bits)).contains(&i128::from(x)) {
                                self.put_uint(at, width, x as u64);
                            } else {
                                // Does not fit: the error of the value.
                                self.inline_one(class, &em, m.subtype, at, &MemberValue::Int(x))?;
                            }
                        }
                    }
                    Items::UInts(v) if width > 0 => {
                        let bits = 8 * width;
                        for (i, &x) in v.iter().enumerate() {
                            let at = dst + i as u32 * stride;
                            if bits >= 64 || x < 1u64 << bits {
                                self.put_uint(at, width, x);
                            } else {
                                self.inline_one(class, &em, m.subtype, at, &MemberValue::UInt(x))?;
                            }
                        }
                    }
                    typed => {
                        for (i, item) in typed.iter().enumerate() {
                            self.inline_one(class, &em, m.subtype, dst + i as u32 * stride, &item)?;
                        }
                    }
                }
            }
            (MemberType::Struct, MemberValue::Struct(vals)) => {
                self.data_struct(m.class.as_deref().unwrap_or_default(), at, vals)?;
            }
            _ => {}
        }
        Ok(())
    }
}

/// Calls `f` on every pointer of an object: the values' pointers and variants, or an untyped
/// object's global fixups.
fn body_refs(body: &Body, f: &mut impl FnMut(&Ref)) {
    fn value(v: &MemberValue, f: &mut impl FnMut(&Ref)) {
        match v {
            MemberValue::Ptr(r) => f(r),
            MemberValue::Variant(a, b) => {
                f(a);
                f(b);
            }
            MemberValue::Array(a) => a.values().unwrap_or_default().iter().for_each(|x| value(x, f)),
            MemberValue::Struct(vs) | MemberValue::CArray(vs) | MemberValue::RelArray(vs) => vs.iter().for_each(|x| value(x, f)),
            _ => {}
        }
    }
    match body {
        Body::Typed(vs) => vs.iter().for_each(|v| value(v, f)),
        Body::Untyped(u) => u.global.iter().for_each(|(_, r)| f(r)),
    }
}

/// [`body_refs`] with the pointers given mutably (for renumbering them).
fn each_ref(body: &mut Body, f: &mut impl FnMut(&mut Ref)) {
    fn value(v: &mut MemberValue, f: &mut impl FnMut(&mut Ref)) {
        match v {
            MemberValue::Ptr(r) => f(r),
            MemberValue::Variant(a, b) => {
                f(a);
                f(b);
            }
            MemberValue::Array(a) => {
                if let Items::Values(items) = &mut a.items {
                    items.iter_mut().for_each(|x| value(x, f));
                }
            }
            MemberValue::Struct(vs) | MemberValue::CArray(vs) | MemberValue::RelArray(vs) => vs.iter_mut().for_each(|x| value(x, f)),
            _ => {}
        }
    }
    match body {
        Body::Typed(vs) => vs.iter_mut().for_each(|v| value(v, f)),
        Body::Untyped(u) => u.global.iter_mut().for_each(|(_, r)| f(r)),
    }
}

