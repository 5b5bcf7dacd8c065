//! What a generated class knows about itself ([`Class`], from its schema record) and what any
//! object answers at run time ([`Object`]), so that a pointer to a base class can hold an object of
//! a derived class and be downcast with a check.
//!
//! A derived class holds its parent as its first member (`base`, at offset 0, the parent's size)
//! and dereferences to it, so inherited fields read as `derived.field`.

use super::{Reader, Value, Visitor, Writer};
use crate::shared::MemberValue;
use super::Result;
use std::any::Any;

/// One member of a class, as the schema describes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldInfo {
    /// Havok's member name (`motionType`).
    pub name: &'static str,
    /// The Rust field name (`motion_type`).
    pub rust_name: &'static str,
    /// Offset in the class's bytes.
    pub offset: u32,
    /// Size of the member's type.
    pub size: u32,
    /// Field flags (spec: "Field flags").
    pub flags: u32,
    /// Key of the member's type in the schema.
    pub ty: &'static str,
}

/// A class generated from a schema record.
pub trait Class: Value + Object {
    /// The schema key: full name, with `#hash` when the SDK has more than one layout of the name.
    const NAME: &'static str;
    /// The class version, when the type table stores one.
    const VERSION: Option<u32>;
    /// The layout hash computed from the schema.
    const HASH: u32;
    /// The hash a file or the registry stores, when any does.
    const STORED_HASH: Option<u32>;
    /// Type flags (spec: "Type flags").
    const FLAGS: Option<u32>;
    /// The parent's schema key.
    const PARENT: Option<&'static str>;
    /// The class's own members in offset order (the parent's are on the parent).
    const FIELDS: &'static [FieldInfo];
}

/// Any generated object, behind `dyn`: its class name, its base-class part and its references.
pub trait Object: Any + Send + Sync {
    /// The Havok name of the object's class (its schema key).
    fn class_name(&self) -> &'static str;
    /// The part of the object that is its parent class.
    fn parent_object(&self) -> Option<&dyn Object>;
    /// The object as `Any`, for downcasting to its generated struct.
    fn as_any(&self) -> &dyn Any;
    /// Calls `v` for every reference slot of the object, at offsets from its start.
    fn visit_object_refs(&self, v: &mut dyn Visitor);
    /// Writes the object's bytes (its class's [`Value::SIZE`]) into `w`.
    fn write_object(&self, w: &mut Writer<'_>) -> Result<()>;
}

/// A schema key without its `#hash` variant suffix (`hkcdSimdTree::Node#1a2b3c4d` ->
/// `hkcdSimdTree::Node`): the type's full name.
pub fn base_key(key: &str) -> &str {
    match key.rfind('#') {
        Some(p) if key[p + 1..].len() == 8 && key[p + 1..].bytes().all(|b| b.is_ascii_hexdigit()) => &key[..p],
        _ => key,
    }
}

/// A generated class in a module's `CLASSES` table (sorted by name), of either format: what a
/// document needs to read an object of that class, and what a test needs to compare the class with
/// its schema. A tagfile SDK module (`hkclasses::hk2018_1::CLASSES`) and a packfile SDK module
/// (`hkclasses::hk2014_2::CLASSES`) hold the same type; [`ClassEntry::format`] holds what differs.
#[derive(Clone, Copy, Debug)]
pub struct ClassEntry {
    /// The class's name: a tagfile class's schema key (`hknpBodyCinfo`, with `#hash` where the SDK
    /// has several layouts of the name), a packfile class's Havok name.
    pub name: &'static str,
    /// The class version (a packfile class's 0 is `None`).
    pub version: Option<u32>,
    /// The parent's name (schema key).
    pub parent: Option<&'static str>,
    /// What the class is in its format.
    pub format: ClassFormat,
}

/// The format-specific half of a [`ClassEntry`].
#[derive(Clone, Copy, Debug)]
pub enum ClassFormat {
    /// A class of a tagfile SDK: a fixed layout, matched by name and hash.
    Tagfile(TagfileClass),
    /// A class of a packfile SDK: laid out per file, matched by name, signature and members.
    Packfile(PackfileClass),
}

/// A tagfile class (see [`ClassFormat::Tagfile`]).
#[derive(Clone, Copy)]
pub struct TagfileClass {
    /// Size in bytes.
    pub size: usize,
    /// Alignment in bytes.
    pub align: usize,
    /// The computed type hash: with the name, what a file's type must match for the class to read it.
    pub hash: u32,
    /// The class's own members.
    pub fields: &'static [FieldInfo],
    /// Reads an object of the class from exactly `size` bytes.
    pub read: fn(&Reader<'_>) -> Result<Box<dyn Object>>,
}

impl std::fmt::Debug for TagfileClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TagfileClass").field("size", &self.size).field("hash", &format_args!("{:#010x}", self.hash)).finish_non_exhaustive()
    }
}

/// A packfile class (see [`ClassFormat::Packfile`]).
#[derive(Clone, Copy)]
pub struct PackfileClass {
    /// The signature the schema recomputes (what `__classnames__` must store).
    pub signature: u32,
    /// Member names, the ancestors' first.
    pub members: &'static [&'static str],
    /// The struct of an object's member values (behind `Any`, for [`crate::Document::get`]).
    pub read: fn(&[MemberValue]) -> Result<Box<dyn Any>>,
    /// Appends the member values of a struct of this class (`None` when it is of another type).
    pub write: fn(&dyn Any, &mut Vec<MemberValue>) -> Option<()>,
    /// The struct of an object's values, printed with `{:#?}`.
    pub debug: fn(&[MemberValue]) -> Result<String>,
}

impl std::fmt::Debug for PackfileClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PackfileClass").field("signature", &format_args!("{:#010x}", self.signature)).finish_non_exhaustive()
    }
}

impl PackfileClass {
    /// Converts an object's values into the struct and back: what `hkgen verify` checks.
    pub fn roundtrip(&self, values: &[MemberValue]) -> Result<Vec<MemberValue>> {
        let t = (self.read)(values)?;
        let mut out = Vec::with_capacity(values.len());
        (self.write)(&*t, &mut out);
        Ok(out)
    }
}

/// A generated class of either format: the one bound of [`crate::Document`]'s typed access
/// (`get`, `get_mut`, `all`, `add`). The code generator implements it for every class of a
/// tagfile SDK module (with [`Class`] and [`Object`]) and of a packfile SDK module (with
/// [`crate::packfile::typed::PackClass`]).
pub trait Typed: Any + Clone + Send + Sync {
    /// The class's entry, as the module's `CLASSES` table holds it.
    const ENTRY: ClassEntry;
    /// The object a tagfile document holds (`Ok` for a tagfile class); a packfile class gives
    /// itself back.
    fn into_object(self) -> std::result::Result<Box<dyn Object>, Self>;
}

/// Reads an object of class `T` into a box allocated first, so that a large object is built in
/// its allocation rather than on the stack and then copied in.
///
/// It is instantiated for every class, so the allocation is made through `std::alloc` rather than
/// `Box::new_uninit`, whose helpers (and the drop glue of a `Box<MaybeUninit<T>>`) would each be
/// one more function per class in a debug build.
fn read_boxed<T: Class>(r: &Reader<'_>) -> Result<Box<dyn Object>> {
    let mut f = r.fields();
    if const { std::mem::size_of::<T>() == 0 } {
        // A class without members: no allocation to build it in.
        let object: Box<dyn Object> = Box::new(f.take::<T>());
        return f.finish(object);
    }
    let layout = const { std::alloc::Layout::new::<T>() };
    // SAFETY: `T` is not zero-sized.
    let bytes = unsafe { std::alloc::alloc(layout) };
    if bytes.is_null() {
        std::alloc::handle_alloc_error(layout);
    }
    let place = bytes as *mut std::mem::MaybeUninit<T>;
    // SAFETY: `place` is a fresh allocation for a `T`, valid and not aliased.
    super::fields::fill(&mut f, unsafe { &mut *place });
    // SAFETY: `fill` initialised the allocation, made by the global allocator with `T`'s layout
    // as `Box` requires. (Were `fill` to panic, the allocation would leak; it does not drop.)
    let object: Box<dyn Object> = unsafe { Box::from_raw(place as *mut T) };
    f.finish(object)
}

impl ClassEntry {
    /// The entry of a generated class of either format ([`Typed::ENTRY`]).
    pub const fn of<T: Typed>() -> Self {
        T::ENTRY
    }

    /// The entry of tagfile class `T` (what the generated [`Typed::ENTRY`] of a tagfile class is).
    pub const fn tagfile<T: Class>() -> Self {
        ClassEntry {
            name: T::NAME,
            version: T::VERSION,
            parent: T::PARENT,
            format: ClassFormat::Tagfile(TagfileClass { size: T::SIZE, align: T::ALIGN, hash: T::HASH, fields: T::FIELDS, read: read_boxed::<T> }),
        }
    }

    /// The tagfile half of the entry, `None` for a packfile class.
    pub fn as_tagfile(&self) -> Option<&TagfileClass> {
        match &self.format {
            ClassFormat::Tagfile(t) => Some(t),
            ClassFormat::Packfile(_) => None,
        }
    }

    /// The packfile half of the entry, `None` for a tagfile class.
    pub fn as_packfile(&self) -> Option<&PackfileClass> {
        match &self.format {
            ClassFormat::Packfile(p) => Some(p),
            ClassFormat::Tagfile(_) => None,
        }
    }

    /// Finds `name` in a sorted table of classes.
    pub fn find<'a>(table: &'a [ClassEntry], name: &str) -> Option<&'a ClassEntry> {
        table.binary_search_by(|e| e.name.cmp(name)).ok().map(|i| &table[i])
    }

    /// Whether `table` (sorted by name) holds classes keyed `name#hash`: the layouts of a name the
    /// SDK has several of.
    pub fn has_layouts_of(table: &[ClassEntry], name: &str) -> bool {
        // The first key not below `name#` (compared without building it) starts with it if any does.
        let key = || name.bytes().chain(*b"#");
        let i = table.partition_point(|e| e.name.bytes().lt(key()));
        table.get(i).is_some_and(|e| e.name.as_bytes().starts_with(name.as_bytes()) && e.name.as_bytes().get(name.len()) == Some(&b'#'))
    }
}

impl dyn Object {
    /// The object viewed as class `T`: itself or one of its bases. `None` when it is neither.
    pub fn downcast_ref<T: Any>(&self) -> Option<&T> {
        let mut cur: Option<&dyn Object> = Some(self);
        // The chain is as long as the class hierarchy, which the schema bounds.
        while let Some(o) = cur {
            if let Some(t) = o.as_any().downcast_ref::<T>() {
                return Some(t);
            }
            cur = o.parent_object();
        }
        None
    }

    /// Whether the object is of class `name` or derives from it.
    pub fn is_a(&self, name: &str) -> bool {
        let mut cur: Option<&dyn Object> = Some(self);
        while let Some(o) = cur {
            if o.class_name() == name {
                return true;
            }
            cur = o.parent_object();
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &'static str) -> ClassEntry {
        fn unread(_: &Reader<'_>) -> Result<Box<dyn Object>> {
            Err(crate::error::ValueError::invalid(0, "not read in this test"))
        }
        ClassEntry {
            name,
            version: None,
            parent: None,
            format: ClassFormat::Tagfile(TagfileClass { size: 0, align: 1, hash: 0, fields: &[], read: unread }),
        }
    }

    #[test]
    fn layouts_of_a_name_are_found_by_their_keys() {
        // Sorted by bytes, as generated tables are: ' ' and '<' sort before '#', 'A' after.
        let table: Vec<ClassEntry> =
            ["T", "T <x>", "T#0000abcd", "T#1234abcd", "TA", "U#00000001"].into_iter().map(entry).collect();
        assert!(table.windows(2).all(|w| w[0].name < w[1].name));
        assert!(ClassEntry::has_layouts_of(&table, "T"));
        assert!(ClassEntry::has_layouts_of(&table, "U"));
        assert!(!ClassEntry::has_layouts_of(&table, "TA"));
        assert!(!ClassEntry::has_layouts_of(&table, "S"));
        assert!(!ClassEntry::has_layouts_of(&table, "V"));
        assert!(!ClassEntry::has_layouts_of(&[], "T"));
    }
}
