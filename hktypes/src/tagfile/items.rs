//! The items of a tagfile as bytes: each `ITEM` record's elements as a range of `DATA`, with its
//! reference slots (from [`Layouts`]) checked to name items of the right kind. This is the lossless
//! middle layer between the container and typed objects: every byte of every item is kept, so a
//! writer that lays the items out again loses nothing. Spec: "Item table", "Values".

use super::file::TagFile;
use super::index::{KIND_OBJECT, KIND_RUN};
use crate::error::{ErrorKind, ItemsError as Error, UnlayeredError};
use crate::reflect::layout::{Layouts, Slot, SlotKind, Slots, MIN_SLOT_BYTES};
use crate::reflect::TypeIndex;
use std::ops::Deref;
use std::sync::Arc;

type Result<T, E = Error> = std::result::Result<T, E>;

/// The bytes of one item: a range of the `DATA` it was read from (one copy of `DATA` shared by
/// every item of the file), bytes of its own once built or changed, or, for a short item, a copy
/// held in place.
#[derive(Clone)]
pub struct ItemBytes(Repr);

/// The longest item held in place rather than as a shared range: as many bytes as fit beside the
/// length in the space a shared range takes. Most items of a stock file are strings and short
/// arrays under this length; copying them is cheaper than counting one more reference to `DATA`
/// for each and releasing it again.
pub const INLINE_ITEM_BYTES: usize = 38;

#[derive(Clone)]
enum Repr {
    Shared { data: Arc<[u8]>, start: usize, end: usize },
    Owned(Vec<u8>),
    Inline { len: u8, bytes: [u8; INLINE_ITEM_BYTES] },
}

impl ItemBytes {
    /// `data[start..end]`, shared, or held in place when it is at most [`INLINE_ITEM_BYTES`] long;
    /// `None` when the range is not inside `data`.
    #[inline]
    pub fn shared(data: &Arc<[u8]>, start: usize, end: usize) -> Option<ItemBytes> {
        let len = data.get(start..end)?.len();
        if len <= INLINE_ITEM_BYTES {
            // A copy of fixed length where `data` holds one (the bytes past the item's end are
            // never read back), which compiles to a few moves instead of a call.
            let bytes = match data.get(start..start + INLINE_ITEM_BYTES) {
                Some(b) => <[u8; INLINE_ITEM_BYTES]>::try_from(b).ok()?,
                None => {
                    let mut b = [0; INLINE_ITEM_BYTES];
                    b[..len].copy_from_slice(&data[start..end]);
                    b
                }
            };
            return Some(ItemBytes(Repr::Inline { len: len as u8, bytes }));
        }
        Some(ItemBytes(Repr::Shared { data: Arc::clone(data), start, end }))
    }

    /// `part`, as a range of `buffer` when it lies there (found by address, as
    /// [`Items::read_sharing`] finds `DATA`), else as a copy.
    pub fn part_of(buffer: Option<&Arc<[u8]>>, part: &[u8]) -> ItemBytes {
        let start = buffer.and_then(|b| (part.as_ptr() as usize).checked_sub(b.as_ptr() as usize).filter(|&o| holds_at(b, part, o as u64)));
        match (buffer, start) {
            (Some(b), Some(start)) => ItemBytes::shared(b, start, start + part.len()).unwrap_or_else(|| part.to_vec().into()),
            _ => part.to_vec().into(),
        }
    }

    /// The bytes, to change: a shared range or bytes held in place are copied out first.
    pub fn to_mut(&mut self) -> &mut Vec<u8> {
        if !matches!(self.0, Repr::Owned(_)) {
            self.0 = Repr::Owned(self.to_vec());
        }
        match &mut self.0 {
            Repr::Owned(v) => v,
            Repr::Shared { .. } | Repr::Inline { .. } => unreachable!("made owned above"),
        }
    }
}

impl Deref for ItemBytes {
    type Target = [u8];
    #[inline]
    fn deref(&self) -> &[u8] {
        match &self.0 {
            // The range was checked when the value was made.
            Repr::Shared { data, start, end } => data.get(*start..*end).unwrap_or(&[]),
            Repr::Owned(v) => v,
            Repr::Inline { len, bytes } => bytes.get(..usize::from(*len)).unwrap_or(&[]),
        }
    }
}

impl AsRef<[u8]> for ItemBytes {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl From<Vec<u8>> for ItemBytes {
    fn from(v: Vec<u8>) -> Self {
        ItemBytes(Repr::Owned(v))
    }
}

impl Default for ItemBytes {
    fn default() -> Self {
        ItemBytes(Repr::Owned(Vec::new()))
    }
}

impl PartialEq for ItemBytes {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for ItemBytes {}

impl PartialEq<[u8]> for ItemBytes {
    fn eq(&self, other: &[u8]) -> bool {
        **self == *other
    }
}

impl PartialEq<Vec<u8>> for ItemBytes {
    fn eq(&self, other: &Vec<u8>) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for ItemBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

/// One item: `count` elements of type `ty`, as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ItemData {
    /// The type of one element.
    pub ty: TypeIndex,
    /// The kind byte as stored: high nibble 1 (an object) or 2 (a run), low nibble flags.
    pub kind_byte: u8,
    /// Elements held (1 for an object).
    pub count: u32,
    /// Size of one element.
    pub elem_size: u32,
    /// `count * elem_size` bytes.
    pub bytes: ItemBytes,
    /// The reference slots of one element.
    pub slots: Slots,
}

impl ItemData {
    /// The null item, index 0 of every item table: no type, no bytes.
    pub fn null() -> ItemData {
        ItemData { ty: 0, kind_byte: 0, count: 0, elem_size: 0, bytes: ItemBytes::default(), slots: crate::reflect::layout::Slots::NONE }
    }

    /// The kind nibble: 1 an object, 2 a run.
    pub fn kind(&self) -> u8 {
        self.kind_byte >> 4
    }

    /// Whether the item is an object (kind 1).
    pub fn is_object(&self) -> bool {
        self.kind() == KIND_OBJECT
    }

    /// Whether this is a placeholder (kind byte 0): a handle of a document with no item behind it,
    /// which no file holds and no writer writes.
    pub fn is_placeholder(&self) -> bool {
        self.kind_byte == 0
    }

    /// The item index stored in a slot of element `elem`.
    pub fn target(&self, elem: u32, slot: &Slot) -> u32 {
        slot_target(&self.bytes, self.elem_size, elem, slot)
    }

    /// Every (element, slot, target) with a nonzero target, in element then slot order.
    pub fn references(&self) -> References<'_> {
        // A run of plain values has no slots: nothing to visit per element.
        let elems = if self.slots.is_empty() { 0 } else { self.count };
        References { bytes: &self.bytes, slots: &self.slots, elem_size: self.elem_size, elems, elem: 0, slot: 0 }
    }
}

/// The nonzero reference slots of an item ([`ItemData::references`]), walked element by element.
#[derive(Clone, Debug)]
pub struct References<'a> {
    bytes: &'a [u8],
    slots: &'a [Slot],
    elem_size: u32,
    elems: u32,
    elem: u32,
    slot: usize,
}

impl Iterator for References<'_> {
    type Item = (u32, Slot, u32);

    #[inline]
    fn next(&mut self) -> Option<(u32, Slot, u32)> {
        while self.elem < self.elems {
            while let Some(s) = self.slots.get(self.slot) {
                self.slot += 1;
                let t = slot_target(self.bytes, self.elem_size, self.elem, s);
                if t != 0 {
                    return Some((self.elem, *s, t));
                }
            }
            self.slot = 0;
            self.elem += 1;
        }
        None
    }
}

/// Whether `data` is the part of `bytes` that starts at `offset` (the same memory, not equal bytes).
fn holds_at(bytes: &[u8], data: &[u8], offset: u64) -> bool {
    usize::try_from(offset)
        .ok()
        .and_then(|o| bytes.get(o..o.checked_add(data.len())?))
        .is_some_and(|part| std::ptr::eq(part, data))
}

/// The item index stored in `slot` of element `elem` of `bytes` (elements of `elem_size` bytes).
/// Slots were checked to lie inside the element when the item was read; one that does not reads
/// as 0 rather than panicking.
#[inline]
fn slot_target(bytes: &[u8], elem_size: u32, elem: u32, slot: &Slot) -> u32 {
    let at = elem as usize * elem_size as usize + slot.offset as usize;
    bytes.get(at..at + 4).map_or(0, |b| u32::from_le_bytes(b.try_into().unwrap_or([0; 4])))
}

/// What [`Items::read_checked`] saw of how runs are named.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RunSharing {
    /// Some run is named by more than one slot (of any kind but pointer), an array slot among
    /// them: a hostile file's string slot may name the same run as an array slot.
    pub shared_arrays: bool,
}

/// A run named by some slot (see `check_references`).
const NAMED: u8 = 1;
/// A run named by an array slot.
const NAMED_BY_ARRAY: u8 = 2;

/// Every item of a file; index 0 is the null item.
#[derive(Clone, Debug, Default)]
pub struct Items {
    /// By item index.
    pub items: Vec<ItemData>,
}

/// Reference slots the item types of a file may have in all beyond a quarter of its `DATA` (see
/// `slot_budget` in [`Items::read_checked`]): room for the types of empty runs.
const MIN_SLOT_BUDGET: usize = 4096;

/// The most elements an item may claim per input byte: a run of zero-sized elements would
/// otherwise let a tiny file describe an enormous loop.
const MAX_ELEMENTS_PER_BYTE: u64 = 1;

/// The most elements the items of a file with `data_len` bytes of `DATA` and `n_items` items
/// may hold together (see [`MAX_ELEMENTS_PER_BYTE`]); the reader and the writer both hold files
/// to it, so that whatever is written reads back.
pub(crate) fn check_element_budget(elements: u64, data_len: u64, n_items: u64) -> Result<(), UnlayeredError> {
    let room = (data_len + n_items) * MAX_ELEMENTS_PER_BYTE;
    if elements > room {
        return Err(UnlayeredError::new(ErrorKind::CountTooLarge { what: "item elements", count: elements, room }));
    }
    Ok(())
}

impl Items {
    /// Every item of `file`'s `DATA` (which is copied once and shared by the items), checking
    /// ranges and references.
    pub fn read(file: &TagFile<'_>, layouts: &mut Layouts<'_>) -> Result<Items> {
        Self::read_sharing(file, None, layouts)
    }

    /// Per item, how many slots other than pointers (strings, arrays) name it, at most 255: a run
    /// named more than once is shared, and a writer that gives runs inline marks it so.
    pub fn inline_referrers(&self) -> Vec<u8> {
        let mut named = vec![0u8; self.items.len()];
        for it in &self.items {
            for (_, slot, t) in it.references() {
                if slot.kind != crate::reflect::layout::SlotKind::Pointer {
                    if let Some(n) = named.get_mut(t as usize) {
                        *n = n.saturating_add(1);
                    }
                }
            }
        }
        named
    }

    /// Like [`Items::read`]; when `bytes` is the buffer `file` was read from, the items share it
    /// instead of a copy of `DATA` (any other buffer is ignored and `DATA` is copied).
    pub fn read_sharing(file: &TagFile<'_>, bytes: Option<&Arc<[u8]>>, layouts: &mut Layouts<'_>) -> Result<Items> {
        Self::read_checked(file, bytes, layouts).map(|(items, _)| items)
    }

    /// [`Items::read_sharing`], also telling what the reference check saw on the way.
    pub(crate) fn read_checked(
        file: &TagFile<'_>,
        bytes: Option<&Arc<[u8]>>,
        layouts: &mut Layouts<'_>,
    ) -> Result<(Items, RunSharing)> {
        let data = file.data;
        // The items' ranges are offsets into `shared`, from `base` on.
        let (shared, base) = match bytes.filter(|b| holds_at(b, data, file.data_offset)) {
            Some(b) => (Arc::clone(b), file.data_offset as usize),
            None => (Arc::from(data), 0),
        };
        if file.items.is_empty() {
            return Err(Error::new(ErrorKind::Invalid("ITEM lacks the null item".into())).in_section("TAG0/INDX/ITEM", 0));
        }
        let mut items = Vec::with_capacity(file.items.len());
        let n_items = file.items.len() as u64;
        let mut total_elems: u64 = 0;
        // Items of stock files never overlap, so their bytes add up to at most DATA; holding a
        // hostile file to that keeps the copies in proportion to the input.
        let mut total_bytes: u64 = 0;
        // Per type: its element size and slots, once they were checked to fit (most items share
        // a handful of types).
        let mut shapes: Vec<Option<(u32, Slots)>> = vec![None; file.types.types.len()];
        // The reference slots the item types may have in all: an element takes four bytes per
        // slot, and the elements of distinct types lie apart in DATA (checked below), so stock
        // files stay below a quarter of DATA's size. Charged per type as its slots are collected,
        // it bounds the slot lists, and the reference check that walks them, by DATA.
        let mut slot_budget = data.len() / MIN_SLOT_BYTES + MIN_SLOT_BUDGET;
        for (index, it) in file.items.iter().enumerate() {
            let locate = |e: Error| e.in_section("TAG0/INDX/ITEM", 0).in_context(format!("item {index}"));
            if index == 0 {
                items.push(ItemData {
                    ty: it.ty,
                    kind_byte: it.kind_byte,
                    count: it.count,
                    elem_size: 0,
                    bytes: ItemBytes::default(),
                    slots: Slots::NONE,
                });
                continue;
            }
            let type_name = || file.types.get(it.ty).map_or_else(|| format!("type {}", it.ty), |t| t.name.to_string());
            if file.types.get(it.ty).is_none() {
                return Err(locate(Error::new(ErrorKind::IndexOutOfRange {
                    what: "item type index",
                    index: it.ty.into(),
                    count: file.types.types.len() as u64,
                })));
            }
            let kind = it.kind_byte >> 4;
            if kind != KIND_OBJECT && kind != KIND_RUN {
                return Err(locate(Error::invalid(file.data_offset + u64::from(it.offset), format!("item kind byte {:#04x}", it.kind_byte))));
            }
            // Spec: every item of kind 0x10 holds exactly one object.
            if kind == KIND_OBJECT && it.count != 1 {
                return Err(locate(Error::invalid(
                    file.data_offset + u64::from(it.offset),
                    format!("object item holds {} elements, not one", it.count),
                )));
            }
            let size_of = |layouts: &mut Layouts<'_>| layouts.size_of(it.ty).map_err(|e| locate(Error::from(e).in_context(type_name())));
            let elem_size = match &shapes[it.ty as usize] {
                Some((size, _)) => *size,
                None => size_of(layouts)?,
            };
            total_elems += u64::from(it.count);
            check_element_budget(total_elems, data.len() as u64, n_items).map_err(|e| locate(e.into()))?;
            let len = u64::from(it.count) * u64::from(elem_size);
            let start = u64::from(it.offset);
            if start + len > data.len() as u64 {
                return Err(Error::at(
                    file.data_offset + start,
                    ErrorKind::Eof { need: len, have: (data.len() as u64).saturating_sub(start) },
                )
                .in_section("TAG0/DATA", file.data_offset)
                .in_context(format!("item {index} ({} x{})", type_name(), it.count)));
            }
            total_bytes += len;
            if total_bytes > data.len() as u64 {
                return Err(locate(Error::invalid(
                    file.data_offset + start,
                    format!("items claim {total_bytes} bytes, more than DATA's {}", data.len()),
                )));
            }
            // The slots of each item type, collected once the item was found to fit DATA, and
            // no more of them than DATA could hold (see `slot_budget`).
            let slots = match &shapes[it.ty as usize] {
                Some((_, slots)) => slots.clone(),
                None => {
                    let slots = layouts.slots_within(it.ty, slot_budget).map_err(|e| {
                        Error::from(e)
                            .in_context(type_name())
                            .with_offset(file.data_offset + start)
                            .in_section("TAG0/DATA", file.data_offset)
                            .in_context(format!("item {index}"))
                    })?;
                    slot_budget -= slots.len();
                    if let Some(s) = slots.iter().find(|s| u64::from(s.offset) + 4 > u64::from(elem_size)) {
                        return Err(locate(Error::invalid(
                            file.data_offset + u64::from(it.offset),
                            format!("reference slot at {} lies outside the {elem_size}-byte element of {}", s.offset, type_name()),
                        )));
                    }
                    shapes[it.ty as usize] = Some((elem_size, slots.clone()));
                    slots
                }
            };
            let bytes = ItemBytes::shared(&shared, base + start as usize, base + (start + len) as usize)
                .ok_or_else(|| locate(Error::invalid(file.data_offset + start, "item outside DATA")))?;
            items.push(ItemData { ty: it.ty, kind_byte: it.kind_byte, count: it.count, elem_size, bytes, slots });
        }
        let graph = Items { items };
        let sharing = graph.check_references(file)?;
        Ok((graph, sharing))
    }

    /// Every slot names an existing item of the kind the slot expects; on the way, whether some
    /// run is named by more than one slot with an array slot among them.
    fn check_references(&self, file: &TagFile<'_>) -> Result<RunSharing> {
        // Per item: its kind nibble, and how slots named it so far (see `NAMED_*`).
        let mut kinds: Vec<(u8, u8)> = self.items.iter().map(|it| (it.kind(), 0)).collect();
        let mut shared_arrays = false;
        for (index, it) in self.items.iter().enumerate().skip(1) {
            // Slots were checked to fit the element, so an item with slots has elements of at
            // least four bytes.
            let size = it.elem_size as usize;
            if it.slots.is_empty() || size == 0 {
                continue;
            }
            for (e, elem) in it.bytes.chunks_exact(size).enumerate() {
                for s in it.slots.iter() {
                    let t = elem
                        .get(s.offset as usize..s.offset as usize + 4)
                        .map_or(0, |b| u32::from_le_bytes(b.try_into().unwrap_or([0; 4])));
                    if t == 0 {
                        continue;
                    }
                    let want = if s.kind == SlotKind::Pointer { KIND_OBJECT } else { KIND_RUN };
                    let Some((_, named)) = kinds.get_mut(t as usize).filter(|(kind, _)| *kind == want) else {
                        return Err(self.bad_reference(file, index, e as u32, s, t));
                    };
                    if s.kind != SlotKind::Pointer {
                        let by_array = s.kind == SlotKind::Array;
                        shared_arrays |= *named != 0 && (by_array || *named & NAMED_BY_ARRAY != 0);
                        *named |= NAMED | if by_array { NAMED_BY_ARRAY } else { 0 };
                    }
                }
            }
        }
        Ok(RunSharing { shared_arrays })
    }

    /// What reading leaves to `hkgen verify`: every reference names an item of the right kind
    /// (checked on reading), and here also one that makes sense for the slot. A pointer names an
    /// object of its pointee class or of a class derived from it (or implementing it, for an
    /// interface; a pointer without a pointee class, such as `void*`, takes any object), and not
    /// the object that holds it; a string names a run of one-byte characters other than the run
    /// that holds it; an array names a run other than its own, whose elements are of the array's
    /// element type (or, for an array of records, of a class derived from it). A reader still reads such a file
    /// (as dynamic values where a class does not fit); the error names the first slot that does
    /// not, by item, element and member path.
    pub fn check_targets(&self, file: &TagFile<'_>, layouts: &mut Layouts<'_>) -> Result<()> {
        // Per (slot type, target type): whether the target's type fits the pointer or array.
        let mut fits: std::collections::HashMap<(TypeIndex, TypeIndex), bool> = std::collections::HashMap::new();
        for (index, it) in self.items.iter().enumerate().skip(1) {
            for (e, s, t) in it.references() {
                let Some(target) = self.items.get(t as usize) else {
                    return Err(self.bad_reference(file, index, e, &s, t));
                };
                let problem = match s.kind {
                    SlotKind::Pointer if t as usize == index => Some("points to the object that holds it".to_owned()),
                    SlotKind::Pointer => {
                        let ok = match fits.get(&(s.ty, target.ty)) {
                            Some(&ok) => ok,
                            None => {
                                let ok = pointee_fits(layouts, s.ty, target.ty)?;
                                fits.insert((s.ty, target.ty), ok);
                                ok
                            }
                        };
                        (!ok).then(|| {
                            let pointee = layouts.element_of(s.ty).ok().flatten().map_or_else(|| "?".to_owned(), |p| file.types.full_name(p));
                            format!(
                                "points to item {t}, a {}, which is neither a {pointee} nor a class derived from it",
                                file.types.full_name(target.ty)
                            )
                        })
                    }
                    SlotKind::String if t as usize == index => Some("names the run that holds it as its characters".to_owned()),
                    SlotKind::String if target.elem_size != 1 => Some(format!(
                        "names item {t}, a run of {} ({} bytes each), as its characters",
                        file.types.full_name(target.ty),
                        target.elem_size
                    )),
                    SlotKind::Array if t as usize == index => Some("names the run that holds it as its elements".to_owned()),
                    SlotKind::Array => {
                        let ok = match fits.get(&(s.ty, target.ty)) {
                            Some(&ok) => ok,
                            None => {
                                let ok = element_fits(layouts, s.ty, target.ty)?;
                                fits.insert((s.ty, target.ty), ok);
                                ok
                            }
                        };
                        (!ok).then(|| {
                            let element = layouts.element_of(s.ty).ok().flatten().map_or_else(|| "?".to_owned(), |p| file.types.full_name(p));
                            format!(
                                "names item {t}, a run of {}, as its elements, which are neither {element} nor of a class derived from it",
                                file.types.full_name(target.ty)
                            )
                        })
                    }
                    _ => None,
                };
                if let Some(problem) = problem {
                    let rel = u64::from(file.items[index].offset) + u64::from(e) * u64::from(it.elem_size) + u64::from(s.offset);
                    let path = super::locate::data_path(file, rel).unwrap_or_else(|| format!("item {index}"));
                    return Err(Error::invalid(file.data_offset + rel, problem).in_section("TAG0/DATA", file.data_offset).in_context(path));
                }
            }
        }
        Ok(())
    }

    /// The error for slot `s` of element `e` of item `index`, which names item `t`: one that does
    /// not exist, or one of the wrong kind.
    #[cold]
    fn bad_reference(&self, file: &TagFile<'_>, index: usize, e: u32, s: &Slot, t: u32) -> Error {
        let it = &self.items[index];
        let at = file.data_offset + u64::from(file.items[index].offset) + u64::from(e) * u64::from(it.elem_size) + u64::from(s.offset);
        let field = file.types.get(s.ty).map_or("?", |t| t.name.as_str());
        let owner = file.types.get(it.ty).map_or("?", |t| t.name.as_str());
        let ctx = format!("{owner}[{e}] slot +{:#x} ({field})", s.offset);
        let n = self.items.len();
        let err = match self.items.get(t as usize) {
            None => Error::at(at, ErrorKind::IndexOutOfRange { what: "item", index: t.into(), count: n as u64 }),
            Some(target) => Error::invalid(at, format!("slot refers to item {t} of kind {:#04x}", target.kind_byte)),
        };
        err.in_section("TAG0/DATA", file.data_offset).in_context(ctx)
    }
}

/// Whether a run of `target` elements may be the elements of an array of type `slot_ty`: its
/// element type is the array's (by index, or by full name: a table may hold one type under two
/// indices), or the array's is a record the run's type derives from. An array type that names no
/// element type takes any run.
fn element_fits(layouts: &mut Layouts<'_>, slot_ty: TypeIndex, target: TypeIndex) -> Result<bool, UnlayeredError> {
    let table = layouts.table();
    let Some(element) = layouts.element_of(slot_ty)? else { return Ok(true) };
    if element == target {
        return Ok(true);
    }
    let name = table.full_name(element);
    if table.full_name(target) == name {
        return Ok(true);
    }
    if layouts.shape(element)?.is_none_or(|s| s.kind != crate::reflect::Kind::Record) {
        return Ok(false);
    }
    Ok(table.ancestry_chain(target).iter().any(|&a| a == element || table.full_name(a) == name))
}

/// Whether an object of type `target` may stand behind a pointer of type `slot_ty`: the pointer
/// names no pointee class (`void*`, or a pointee with no shape), or the target's class is the
/// pointee, derives from it or implements it as an interface. Classes are matched by index and
/// else by full name (a table may hold one class under two indices).
fn pointee_fits(layouts: &mut Layouts<'_>, slot_ty: TypeIndex, target: TypeIndex) -> Result<bool, UnlayeredError> {
    let table = layouts.table();
    let Some(pointee) = layouts.element_of(slot_ty)? else { return Ok(true) };
    if layouts.shape(pointee)?.is_none_or(|s| s.kind != crate::reflect::Kind::Record) {
        return Ok(true);
    }
    let name = table.full_name(pointee);
    for a in table.ancestry_chain(target).iter().copied() {
        if a == pointee || table.get(a).is_some_and(|t| t.name == table.get(pointee).map_or("", |p| p.name.as_str())) && table.full_name(a) == name {
            return Ok(true);
        }
        let Some(t) = table.get(a) else { continue };
        if t.interfaces.iter().flatten().any(|i| i.ty == pointee || table.full_name(i.ty) == name) {
            return Ok(true);
        }
    }
    Ok(false)
}
