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

/// The fewest bytes of an element a reference slot takes: the item index of a pointer, string or
/// `hkRelArray` (an `hkArray` or `T*` takes more). An element of `size` bytes holds at most
/// `size / MIN_SLOT_BYTES` slots that do not overlap; a type that claims more is refused.
pub const MIN_SLOT_BYTES: usize = 4;

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

    /// Every reference slot of one element of `i`, in ascending offset order. A slot takes at
    /// least four bytes of the element, so an element of `size` bytes holds at most `size / 4`
    /// (see [`Layouts::slots_within`]).
    pub fn slots(&mut self, i: TypeIndex) -> Result<Slots> {
        let limit = self.size_of(i)? as usize / MIN_SLOT_BYTES;
        self.slots_within(i, limit)
    }

    /// [`Layouts::slots`], refusing once more than `limit` slots would be collected (and before
    /// they are: the fixed-size arrays of a hostile table nested a few levels deep would otherwise
    /// expand into more slots than memory holds). The limit also applies to the member types
    /// collected on the way; the caller derives it from what the input holds (a reader from the
    /// element size and the size of `DATA`), so that the work is in proportion to the file.
    pub fn slots_within(&mut self, i: TypeIndex, limit: usize) -> Result<Slots> {
        let limit = limit.min(self.size_of(i)? as usize / MIN_SLOT_BYTES);
        self.slots_at_depth(i, 0, limit)
    }

    /// The element type of a variable-array slot type (its shape's subtype); `None` when the type
    /// names none.
    pub fn element_of(&mut self, slot_ty: TypeIndex) -> Result<Option<TypeIndex>> {
        let def = self.shape(slot_ty)?.map_or(slot_ty, |s| s.def);
        Ok(self.def(def)?.subtype.filter(|&t| t != 0))
    }

    fn collect(&mut self, i: TypeIndex, base: u32, out: &mut Vec<Slot>, depth: usize, limit: usize) -> Result<()> {
        match self.shape(i)? {
            Some(shape) => self.collect_shaped(i, shape, base, out, depth, limit),
            None => Ok(()),
        }
    }

    /// [`Layouts::collect`] for a type whose shape is known.
    fn collect_shaped(&mut self, i: TypeIndex, shape: Shape, base: u32, out: &mut Vec<Slot>, depth: usize, limit: usize) -> Result<()> {
        if depth > MAX_DEPTH {
            return Err(Error::new(ErrorKind::Cycle(format!("or too deep nesting of members in {}", self.def(i)?.name))));
        }
        let def = self.def(shape.def)?;
        let fmt = def.format().unwrap_or(super::TypeFormat(0));
        let kind = match shape.kind {
            Kind::Pointer => Some(SlotKind::Pointer),
            Kind::String => Some(SlotKind::String),
            Kind::Array if !fmt.is_fixed_array() => Some(SlotKind::Array),
            _ => None,
        };
        if let Some(kind) = kind {
            make_room(out, 1, limit)?;
            out.push(Slot { offset: base, ty: i, kind });
            return Ok(());
        }
        match shape.kind {
            Kind::Array => {
                let elem = def.subtype.unwrap_or(0);
                if elem == 0 {
                    return Ok(());
                }
                let n = fmt.fixed_count();
                let size = self.size_of(elem)?;
                // Only element types that hold references need expanding.
                let inner = self.slots_at_depth(elem, depth + 1, limit.saturating_sub(out.len()))?;
                if inner.is_empty() {
                    return Ok(());
                }
                // Refused before any is pushed: `n` copies of the element's slots.
                make_room(out, (n as usize).saturating_mul(inner.len()), limit)?;
                for k in 0..n {
                    let at = base.checked_add(k.checked_mul(size).ok_or_else(overflow)?).ok_or_else(overflow)?;
                    push_shifted(out, &inner, at)?;
                }
            }
            Kind::Record => {
                // The parent's slots, computed once for all its heirs, when the parent is a
                // record of its own shape: its fields lie at the same offsets in the heir. (A
                // table of many heirs of one record with many fields would otherwise walk those
                // fields again for every heir.)
                let parent = def.parent;
                let chain = self.table.ancestry_chain(shape.def);
                let mut owners = &chain[..];
                if parent != 0 && depth < MAX_DEPTH && matches!(self.shape(parent)?, Some(Shape { def, kind: Kind::Record, .. }) if def == parent) {
                    let inner = self.slots_at_depth(parent, depth + 1, limit.saturating_sub(out.len()))?;
                    make_room(out, inner.len(), limit)?;
                    push_shifted(out, &inner, base)?;
                    owners = chain.last().map_or(&[][..], std::slice::from_ref);
                }
                for &owner in owners.iter() {
                    let fields = self.table.fields_of(self.def(owner)?);
                    for f in fields {
                        let at = base.checked_add(f.offset).ok_or_else(overflow)?;
                        match self.shape(f.ty)? {
                            None => {}
                            Some(Shape { kind: Kind::Record, .. }) => {
                                // A record member's slots are computed once per type and shifted into place.
                                let inner = self
                                    .slots_at_depth(f.ty, depth + 1, limit.saturating_sub(out.len()))
                                    .map_err(|e| e.in_context(f.name.clone()))?;
                                make_room(out, inner.len(), limit).map_err(|e| e.in_context(f.name.clone()))?;
                                push_shifted(out, &inner, at)?;
                            }
                            Some(shape) => {
                                self.collect_shaped(f.ty, shape, at, out, depth + 1, limit).map_err(|e| e.in_context(f.name.clone()))?;
                            }
                        }
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The slots of `i`, from the cache or collected (at most `limit` of them; a list that would
    /// be longer is refused and not cached, since another caller may allow more).
    fn slots_at_depth(&mut self, i: TypeIndex, depth: usize, limit: usize) -> Result<Slots> {
        if let Some(s) = self.cache().slots.get(i as usize).and_then(OnceLock::get) {
            if s.len() > limit {
                return Err(too_many_slots(s.len(), limit));
            }
            return Ok(s.clone());
        }
        let mut out = Vec::new();
        self.collect(i, 0, &mut out, depth, limit)?;
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

/// Makes room in `out` for `more` slots, or refuses when that would pass `limit` (checked before
/// anything is allocated, so that no slot list outgrows what the caller allows).
fn make_room(out: &mut Vec<Slot>, more: usize, limit: usize) -> Result<()> {
    let want = out.len().saturating_add(more);
    if want > limit {
        return Err(too_many_slots(want, limit));
    }
    out.try_reserve(more).map_err(|_| too_many_slots(want, limit))
}

#[cold]
fn too_many_slots(want: usize, limit: usize) -> Error {
    Error::new(ErrorKind::Invalid(format!(
        "{want} or more reference slots in one element, past the {limit} that its size and DATA allow (a slot takes {MIN_SLOT_BYTES} bytes)"
    )))
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
