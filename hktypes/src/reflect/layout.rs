//! Where the item references sit in one element of a type: every pointer, string and variable
//! array slot, found by flattening records (with their ancestors' fields) and fixed-size arrays.
//! Spec: "Values" (slot encodings) and "Order and layout of DATA" (numbering by slot offset).
//!
//! A type without a format word of its own takes its parent's shape (`hkQsTransform` is an alias of
//! `hkQsTransformf`); a record with a parent inherits its fields.

use super::{Kind, TypeDef, TypeIndex, TypeTable};
use crate::error::{ErrorKind, UnlayeredError as Error};
use std::sync::OnceLock;

type Result<T, E = Error> = std::result::Result<T, E>;

/// What a reference slot refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SlotKind {
    /// A pointer (`T*`, `hkRefPtr`, `hkViewPtr`, `hkRefVariant`): an object item, index in the low
    /// four bytes of 8.
    Pointer,
    /// A variable array (`hkArray`: index then 12 zero bytes; `hkRelArray`: a 4-byte index).
    Array,
    /// A string (`hkStringPtr`, `char*`): a run of characters, index in the low four bytes.
    String,
}

/// One reference slot within an element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// Byte offset within one element.
    pub offset: u32,
    /// The slot's own type (the pointer, array or string type of the member): `PTCH` groups by it.
    pub ty: TypeIndex,
    /// What the slot refers to.
    pub kind: SlotKind,
}

/// The reference slots of one element of a type, in ascending offset. The items of one type share
/// one list; a type without slots (a run of numbers or characters, most runs of a file) needs no
/// shared list at all, so making, cloning and dropping its empty list costs nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Slots(Option<std::sync::Arc<[Slot]>>);

impl Slots {
    /// No slots.
    pub const NONE: Slots = Slots(None);
}

impl std::ops::Deref for Slots {
    type Target = [Slot];
    #[inline]
    fn deref(&self) -> &[Slot] {
        self.0.as_deref().unwrap_or(&[])
    }
}

impl From<Vec<Slot>> for Slots {
    fn from(v: Vec<Slot>) -> Self {
        if v.is_empty() {
            Slots::NONE
        } else {
            Slots(Some(v.into()))
        }
    }
}

/// The shape of a type after aliases are followed.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// The type that carries the format word (the type itself, or the ancestor it aliases).
    pub def: TypeIndex,
    /// The kind of its format word.
    pub kind: Kind,
    /// Size in bytes.
    pub size: u32,
    /// Alignment in bytes.
    pub align: u32,
}

const MAX_DEPTH: usize = 64;

/// Shapes and slots of the types of one table, each computed at most once and then kept; the
/// cache a [`Layouts`] fills. A cache that outlives one file is shared through
/// [`super::facts::TableFacts`], which keeps it with the table it describes.
pub struct LayoutCache {
    shapes: Box<[OnceLock<Option<Shape>>]>,
    slots: Box<[OnceLock<Slots>]>,
}

impl LayoutCache {
    /// An empty cache for a table of `n` types.
    pub(crate) fn new(n: usize) -> Self {
        LayoutCache { shapes: (0..n).map(|_| OnceLock::new()).collect(), slots: (0..n).map(|_| OnceLock::new()).collect() }
    }

    /// Types of the table.
    pub(crate) fn len(&self) -> usize {
        self.shapes.len()
    }
}

/// The cache of a [`Layouts`]: its own, or one shared with other files of the same table.
enum CacheRef<'t> {
    Own(LayoutCache),
    Shared(&'t LayoutCache),
}

/// Per-type layout facts, computed on demand and cached.
pub struct Layouts<'t> {
    table: &'t TypeTable,
    cache: CacheRef<'t>,
}

impl<'t> Layouts<'t> {
    /// Layouts of the types of `table`, none computed yet.
    pub fn new(table: &'t TypeTable) -> Self {
        Layouts { table, cache: CacheRef::Own(LayoutCache::new(table.types.len())) }
    }

    /// Layouts of `table` kept in `cache`, which must be a cache of this very table (see
    /// [`super::facts::TableFacts::layouts`], which makes sure of it).
    pub(crate) fn with_cache(table: &'t TypeTable, cache: &'t LayoutCache) -> Self {
        debug_assert_eq!(cache.len(), table.types.len());
        Layouts { table, cache: CacheRef::Shared(cache) }
    }

    fn cache(&self) -> &LayoutCache {
        match &self.cache {
            CacheRef::Own(c) => c,
            CacheRef::Shared(c) => c,
        }
    }

    /// The table.
    pub fn table(&self) -> &'t TypeTable {
        self.table
    }

    fn def(&self, i: TypeIndex) -> Result<&'t TypeDef> {
        self.table.get(i).ok_or_else(|| {
            Error::new(ErrorKind::IndexOutOfRange { what: "type index", index: i.into(), count: self.table.types.len() as u64 })
        })
    }

    /// The shape of `i`: its own format, size and alignment, or those of the first ancestor that has
    /// them. `None` for a type with no format anywhere in its chain (a bare declaration).
    pub fn shape(&mut self, i: TypeIndex) -> Result<Option<Shape>> {
        if let Some(s) = self.cache().shapes.get(i as usize).and_then(OnceLock::get) {
            return Ok(*s);
        }
        let mut cur = i;
        let mut size = None;
        let mut found = None;
        for _ in 0..self.table.types.len().min(1 << 16) {
            let t = self.def(cur)?;
            if size.is_none() {
                size = t.size;
            }
            if let Some(f) = t.format() {
                found = Some((cur, f.kind()));
                break;
            }
            if t.parent == 0 {
                break;
            }
            cur = t.parent;
        }
        let shape = found.map(|(def, kind)| {
            let sa = size.unwrap_or_default();
            Shape { def, kind, size: sa.size, align: sa.alignment() }
        });
        if let Some(cell) = self.cache().shapes.get(i as usize) {
            // Another thread sharing the cache may have set the same shape first.
            let _ = cell.set(shape);
        }
        Ok(shape)
    }

    /// Size in bytes of one element of `i`.
    pub fn size_of(&mut self, i: TypeIndex) -> Result<u32> {
        Ok(self.shape(i)?.map_or(0, |s| s.size))
    }

    /// Every reference slot of one element of `i`, in ascending offset order.
    pub fn slots(&mut self, i: TypeIndex) -> Result<Slots> {
        self.slots_at_depth(i, 0)
    }

    /// The element type of a variable-array slot type (its shape's subtype); `None` when the type
    /// names none.
    pub fn element_of(&mut self, slot_ty: TypeIndex) -> Result<Option<TypeIndex>> {
        let def = self.shape(slot_ty)?.map_or(slot_ty, |s| s.def);
        Ok(self.def(def)?.subtype.filter(|&t| t != 0))
    }

    fn collect(&mut self, i: TypeIndex, base: u32, out: &mut Vec<Slot>, depth: usize) -> Result<()> {
        match self.shape(i)? {
            Some(shape) => self.collect_shaped(i, shape, base, out, depth),
            None => Ok(()),
        }
    }

    /// [`Layouts::collect`] for a type whose shape is known.
    fn collect_shaped(&mut self, i: TypeIndex, shape: Shape, base: u32, out: &mut Vec<Slot>, depth: usize) -> Result<()> {
        if depth > MAX_DEPTH {
            return Err(Error::new(ErrorKind::Cycle(format!("or too deep nesting of members in {}", self.def(i)?.name))));
        }
        let def = self.def(shape.def)?;
        let fmt = def.format().unwrap_or(super::Format(0));
        match shape.kind {
            Kind::Pointer => out.push(Slot { offset: base, ty: i, kind: SlotKind::Pointer }),
            Kind::String => out.push(Slot { offset: base, ty: i, kind: SlotKind::String }),
            Kind::Array if !fmt.is_fixed_array() => out.push(Slot { offset: base, ty: i, kind: SlotKind::Array }),
            Kind::Array => {
                let elem = def.subtype.unwrap_or(0);
                if elem == 0 {
                    return Ok(());
                }
                let n = fmt.fixed_count();
                let size = self.size_of(elem)?;
                // Only element types that hold references need expanding.
                let inner = self.slots_at_depth(elem, depth + 1)?;
                if inner.is_empty() {
                    return Ok(());
                }
                for k in 0..n {
                    let at = base.checked_add(k.checked_mul(size).ok_or_else(overflow)?).ok_or_else(overflow)?;
                    push_shifted(out, &inner, at)?;
                }
            }
            Kind::Record => {
                for &owner in self.table.ancestry_chain(shape.def).iter() {
                    let fields = self.table.fields_of(self.def(owner)?);
                    for f in fields {
                        let at = base.checked_add(f.offset).ok_or_else(overflow)?;
                        match self.shape(f.ty)? {
                            None => {}
                            Some(Shape { kind: Kind::Record, .. }) => {
                                // A record member's slots are computed once per type and shifted into place.
                                let inner = self.slots_at_depth(f.ty, depth + 1).map_err(|e| e.in_context(f.name.clone()))?;
                                push_shifted(out, &inner, at)?;
                            }
                            Some(shape) => {
                                self.collect_shaped(f.ty, shape, at, out, depth + 1).map_err(|e| e.in_context(f.name.clone()))?;
                            }
                        }
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn slots_at_depth(&mut self, i: TypeIndex, depth: usize) -> Result<Slots> {
        if let Some(s) = self.cache().slots.get(i as usize).and_then(OnceLock::get) {
            return Ok(s.clone());
        }
        let mut out = Vec::new();
        self.collect(i, 0, &mut out, depth)?;
        // Members are nearly always listed in offset order already.
        if !out.is_sorted_by_key(|s| s.offset) {
            out.sort_by_key(|s| s.offset);
        }
        let slots = Slots::from(out);
        if let Some(cell) = self.cache().slots.get(i as usize) {
            let _ = cell.set(slots.clone());
        }
        Ok(slots)
    }
}

/// Appends the slots of a value that lies at offset `at` of the element being collected.
fn push_shifted(out: &mut Vec<Slot>, inner: &[Slot], at: u32) -> Result<()> {
    for s in inner {
        out.push(Slot { offset: s.offset.checked_add(at).ok_or_else(overflow)?, ..*s });
    }
    Ok(())
}

fn overflow() -> Error {
    Error::new(ErrorKind::Invalid("member offset overflows".into()))
}
