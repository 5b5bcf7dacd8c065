//! Writing a tagfile: the walk that numbers and lays out the items (spec: "Order and layout of
//! DATA"), then `DATA`, `ITEM`, `PTCH` and the section framing.
//!
//! - Objects are taken from a first-in first-out queue that starts with the root. An object is
//!   laid out when taken; then the runs it refers to, level by level.
//! - An item is numbered when the walk first meets a reference to it: the references of the item
//!   being processed, non-strings before strings, each group by slot offset within an element and
//!   then by element. Runs of one level are laid out in number order.
//! - The root is at 0; an object is aligned to the larger of 2 and its type's alignment, an array's
//!   run to 16, a string's to 2; padding is zero and `DATA` ends on a multiple of 16.
//! - `PTCH` lists every nonzero slot by (slot type, offset).
//!
//! Items the walk does not reach (stock files have none) are laid out after it, as further roots
//! in their old order, so nothing read is lost.
//!
//! The walk's errors are [`WriteError`](crate::error::WriteError)s.

use super::index::{self, Item, Patch, KIND_OBJECT};
use super::items::Items;
use super::section::SectionWriter;
use crate::error::{ErrorKind, Result, WriteError as Error};
use crate::reflect::layout::{Layouts, SlotKind};
use crate::reflect::TypeIndex;
use std::collections::{BTreeMap, VecDeque};

/// The new numbering and placement of every item.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Old item index -> new index (0 for the null item).
    pub new_index: Vec<u32>,
    /// Old item index by new index (entry 0 is the null item).
    pub order: Vec<u32>,
    /// Old item index -> offset in the new `DATA`.
    pub offset: Vec<u32>,
    /// Length of `DATA` before its final padding.
    pub data_len: usize,
}

fn align_up(v: usize, a: usize) -> usize {
    if a <= 1 {
        v
    } else {
        v.div_ceil(a) * a
    }
}

struct Walk<'a> {
    items: &'a Items,
    new_index: Vec<u32>,
    order: Vec<u32>,
    offset: Vec<u32>,
    via: Vec<SlotKind>,
    cursor: usize,
    queue: VecDeque<u32>,
}

impl Walk<'_> {
    fn number(&mut self, old: u32, via: SlotKind) -> bool {
        if self.new_index[old as usize] != 0 {
            return false;
        }
        self.new_index[old as usize] = self.order.len() as u32;
        self.order.push(old);
        self.via[old as usize] = via;
        true
    }

    /// Numbers the items `old` refers to; queues new objects and returns new runs.
    fn visit(&mut self, old: u32) -> Result<Vec<u32>, Error> {
        let it = &self.items.items[old as usize];
        let n = self.items.items.len();
        let mut runs = Vec::new();
        for strings in [false, true] {
            for s in it.slots.iter().filter(|s| (s.kind == SlotKind::String) == strings) {
                for e in 0..it.count {
                    let t = it.target(e, s);
                    // Refused, not followed: a target past the items (a hostile type table may lay
                    // two slots over each other, so that writing one slot's new index garbles the
                    // other's), and a handle that names no item (a document's pointer to what was
                    // a run in the file read), which would be written as an item of the null type.
                    let refused = if t as usize >= n {
                        Some(ErrorKind::IndexOutOfRange { what: "item", index: t.into(), count: n as u64 })
                    } else if t != 0 && self.items.items[t as usize].is_placeholder() {
                        Some(ErrorKind::Invalid(format!("item {t} is not an object or a run of the document")))
                    } else {
                        None
                    };
                    if let Some(kind) = refused {
                        let at = u64::from(e) * u64::from(it.elem_size) + u64::from(s.offset);
                        return Err(Error::at(at, kind)
                            .in_section("TAG0/INDX/ITEM", 0)
                            .in_context(format!("the items to write: item {old} (offset within its bytes), slot +{:#x}", s.offset)));
                    }
                    if t != 0 && self.number(t, s.kind) {
                        if self.items.items[t as usize].is_object() {
                            self.queue.push_back(t);
                        } else {
                            runs.push(t);
                        }
                    }
                }
            }
        }
        Ok(runs)
    }

    fn place(&mut self, old: u32, layouts: &mut Layouts<'_>) -> Result<(), Error> {
        let it = &self.items.items[old as usize];
        let align = if it.is_object() {
            let a = layouts.shape(it.ty)?.map_or(1, |s| s.align) as usize;
            a.max(2)
        } else if self.via[old as usize] == SlotKind::String {
            2
        } else {
            16
        };
        let at = align_up(self.cursor, align);
        self.offset[old as usize] = u32::try_from(at).map_err(|_| Error::new(ErrorKind::Invalid("DATA over 4 GiB".into())))?;
        self.cursor = at + it.bytes.len();
        Ok(())
    }

    fn run_from(&mut self, root: u32, layouts: &mut Layouts<'_>) -> Result<(), Error> {
        self.queue.push_back(root);
        while let Some(obj) = self.queue.pop_front() {
            self.place(obj, layouts)?;
            let mut level = self.visit(obj)?;
            while !level.is_empty() {
                for &r in &level {
                    self.place(r, layouts)?;
                }
                let mut next = Vec::new();
                for &r in &level {
                    next.extend(self.visit(r)?);
                }
                level = next;
            }
        }
        Ok(())
    }
}

/// Numbers and places every item, starting the walk at item 1 (the root).
pub fn plan(items: &Items, layouts: &mut Layouts<'_>) -> Result<Plan, Error> {
    let n = items.items.len();
    let mut w = Walk {
        items,
        new_index: vec![0; n],
        order: vec![0],
        offset: vec![0; n],
        via: vec![SlotKind::Pointer; n],
        cursor: 0,
        queue: VecDeque::new(),
    };
    for old in 1..n as u32 {
        if items.items[old as usize].is_placeholder() {
            continue;
        }
        let via = if items.items[old as usize].kind() == KIND_OBJECT { SlotKind::Pointer } else { SlotKind::Array };
        if w.number(old, via) {
            w.run_from(old, layouts)?;
        }
    }
    let data_len = w.cursor;
    // What the reader would refuse, the writer does not write.
    let elements: u64 = w.order.iter().skip(1).map(|&old| u64::from(items.items[old as usize].count)).sum();
    super::items::check_element_budget(elements, align_up(data_len, 16) as u64, w.order.len() as u64)
        .map_err(|e| Error::from(e).in_section("TAG0/INDX/ITEM", 0).in_context("the items to write"))?;
    Ok(Plan { new_index: w.new_index, order: w.order, offset: w.offset, data_len })
}

/// `DATA`, `ITEM` and `PTCH` laid out by `plan`.
pub fn lay_out(items: &Items, plan: &Plan) -> (Vec<u8>, Vec<Item>, Vec<Patch>) {
    let mut data = vec![0u8; align_up(plan.data_len, 16)];
    let mut table = Vec::with_capacity(plan.order.len());
    let mut patches: BTreeMap<TypeIndex, Vec<u32>> = BTreeMap::new();
    for (new, &old) in plan.order.iter().enumerate() {
        let it = &items.items[old as usize];
        if new == 0 {
            table.push(Item { ty: it.ty, kind_byte: it.kind_byte, offset: 0, count: it.count });
            continue;
        }
        let base = plan.offset[old as usize] as usize;
        data[base..base + it.bytes.len()].copy_from_slice(&it.bytes);
        for (e, s, t) in it.references() {
            let at = base + (e * it.elem_size + s.offset) as usize;
            data[at..at + 4].copy_from_slice(&plan.new_index[t as usize].to_le_bytes());
            patches.entry(s.ty).or_default().push(at as u32);
        }
        table.push(Item { ty: it.ty, kind_byte: it.kind_byte, offset: base as u32, count: it.count });
    }
    let patches = patches
        .into_iter()
        .map(|(ty, mut offsets)| {
            offsets.sort_unstable();
            Patch { ty, offsets }
        })
        .collect();
    (data, table, patches)
}

/// Where the types of a written file come from.
pub enum TypesOut<'a> {
    /// A whole `TYPE` section, header included, written as given.
    Section(&'a [u8]),
    /// A `TCRF` body: the compendium id and the bytes after it.
    Reference(&'a [u8]),
}

/// A whole TAG0 file: `SDKV`, `DATA`, `TYPE` or `TCRF`, `INDX` (`ITEM`, then `PTCH` when any slot
/// holds a reference). Section lengths count their headers; the leaf sections carry the leaf flag.
pub fn write_file(sdkv: &[u8], data: &[u8], types: TypesOut<'_>, items: &[Item], patches: &[Patch]) -> Vec<u8> {
    let items_bytes = index::write_items(items);
    let patch_bytes = (!patches.is_empty()).then(|| index::write_patches(patches));
    let types_len = match types {
        TypesOut::Section(raw) => raw.len(),
        TypesOut::Reference(body) => 8 + body.len(),
    };
    // Six section headers, and the bodies: the whole file, in one allocation.
    let len = 6 * 8 + sdkv.len() + data.len() + types_len + items_bytes.len() + patch_bytes.as_ref().map_or(0, Vec::len);
    let mut w = SectionWriter::with_capacity(len);
    w.begin(b"TAG0", 0);
    w.leaf(b"SDKV", sdkv);
    w.leaf(b"DATA", data);
    match types {
        TypesOut::Section(raw) => w.out.extend_from_slice(raw),
        TypesOut::Reference(body) => w.leaf(b"TCRF", body),
    }
    w.begin(b"INDX", 0);
    w.leaf(b"ITEM", &items_bytes);
    if let Some(p) = &patch_bytes {
        w.leaf(b"PTCH", p);
    }
    w.end();
    w.end();
    w.finish()
}

/// Reads the items of `file` and writes the file again by the walk: the round trip that gives a
/// stock file back byte for byte. Bytes after the `TAG0` section ([`super::TagFile::trailing`])
/// follow it as read. The error is the items' (reading) or the writer's.
pub fn rewrite(file: &super::TagFile<'_>) -> Result<Vec<u8>> {
    let mut layouts = file.layouts();
    let items = Items::read(file, &mut layouts)?;
    let plan = plan(&items, &mut layouts)?;
    let (data, table, patches) = lay_out(&items, &plan);
    let tcrf;
    let types = match (&file.source, file.type_section) {
        (super::TypeSource::Own, Some(raw)) => TypesOut::Section(raw),
        (super::TypeSource::Compendium { id, rest }, _) => {
            tcrf = [&id.0[..], rest].concat();
            TypesOut::Reference(&tcrf)
        }
        (super::TypeSource::Own, None) => return Err(Error::new(ErrorKind::MissingSection("TYPE")).into()),
    };
    let mut out = write_file(file.sdkv_raw, &data, types, &table, &patches);
    out.extend_from_slice(file.trailing);
    Ok(out)
}
