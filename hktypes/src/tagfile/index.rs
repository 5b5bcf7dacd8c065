//! `INDX`: the item table `ITEM` (12-byte records: 24-bit type index, kind byte, DATA offset,
//! element count) and the patch table `PTCH` (per slot type, the DATA offsets of its item
//! references). Spec: "Item table", "Patch table". Errors are [`ItemsError`]s.

use super::section::Section;
use crate::bytes::{check_count, Cursor};
use crate::error::ItemsError;

type Result<T, E = ItemsError> = std::result::Result<T, E>;
use crate::reflect::TypeIndex;

/// Kind nibble of an item: a single object reached through a pointer (or the root)...
pub const KIND_OBJECT: u8 = 0x1;
/// ...or a run of elements (an array's contents or a string's characters).
pub const KIND_RUN: u8 = 0x2;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
/// One `ITEM` record: an object, or a run of array elements or string characters in `DATA`.
pub struct Item {
    /// The type of the object or of one element (24 bits).
    pub ty: TypeIndex,
    /// The whole kind byte: high nibble the kind, low nibble flags.
    pub kind_byte: u8,
    /// Offset of the first byte in the `DATA` body.
    pub offset: u32,
    /// Number of elements (1 for an object).
    pub count: u32,
}

impl Item {
    /// The kind nibble: [`KIND_OBJECT`], [`KIND_RUN`] or 0 (the null item).
    pub fn kind(&self) -> u8 {
        self.kind_byte >> 4
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
/// One `PTCH` group: the `DATA` offsets of every reference slot of one slot type.
pub struct Patch {
    /// The slot type (a pointer, array or string type).
    pub ty: TypeIndex,
    /// Offsets in the `DATA` body of the slots, ascending.
    pub offsets: Vec<u32>,
}

/// Reads an `ITEM` section.
///
/// ```
/// use hktypes::tagfile::index::{read_items, write_items, Item, KIND_OBJECT};
/// use hktypes::tagfile::section::{read_root, SectionWriter};
///
/// let items = [Item { ty: 0, kind_byte: 0, offset: 0, count: 0 }, Item { ty: 5, kind_byte: KIND_OBJECT << 4, offset: 16, count: 1 }];
/// let mut w = SectionWriter::new();
/// w.leaf(b"ITEM", &write_items(&items));
/// let bytes = w.finish();
/// let back = read_items(&read_root(&bytes).unwrap()).unwrap();
/// assert_eq!(back, items);
/// assert_eq!(back[1].kind(), KIND_OBJECT);
/// ```
pub fn read_items(sec: &Section<'_>) -> Result<Vec<Item>> {
    let body = sec.body;
    if !body.len().is_multiple_of(12) {
        return Err(sec.locate(ItemsError::invalid(sec.body_offset(), format!("ITEM size {} is not a multiple of 12", body.len()))));
    }
    // The size is a multiple of 12, so every record is whole.
    let word = |r: &[u8], i: usize| u32::from_le_bytes([r[i], r[i + 1], r[i + 2], r[i + 3]]);
    let items = body
        .chunks_exact(12)
        .map(|r| {
            let w = word(r, 0);
            Item { ty: w & 0x00FF_FFFF, kind_byte: (w >> 24) as u8, offset: word(r, 4), count: word(r, 8) }
        })
        .collect();
    Ok(items)
}

/// Reads a `PTCH` section.
pub fn read_patches(sec: &Section<'_>) -> Result<Vec<Patch>> {
    let mut c: Cursor<'_> = sec.cursor();
    let mut out = Vec::new();
    while !c.is_empty() {
        let ty = c.u32_le().map_err(|e| sec.locate(ItemsError::from(e)))?;
        let at = c.offset();
        let n = c.u32_le().map_err(|e| sec.locate(ItemsError::from(e)))?;
        let n = check_count("patch offsets", u64::from(n), 4, c.remaining(), at).map_err(|e| sec.locate(ItemsError::from(e)))?;
        let mut offsets = Vec::with_capacity(n);
        for _ in 0..n {
            offsets.push(c.u32_le()?);
        }
        out.push(Patch { ty, offsets });
    }
    Ok(out)
}

/// The body of an `ITEM` section.
pub fn write_items(items: &[Item]) -> Vec<u8> {
    let mut out = Vec::with_capacity(items.len() * 12);
    for it in items {
        out.extend_from_slice(&((it.ty & 0x00FF_FFFF) | (u32::from(it.kind_byte) << 24)).to_le_bytes());
        out.extend_from_slice(&it.offset.to_le_bytes());
        out.extend_from_slice(&it.count.to_le_bytes());
    }
    out
}

/// The body of a `PTCH` section.
pub fn write_patches(patches: &[Patch]) -> Vec<u8> {
    let mut out = Vec::new();
    for p in patches {
        out.extend_from_slice(&p.ty.to_le_bytes());
        out.extend_from_slice(&(p.offsets.len() as u32).to_le_bytes());
        for o in &p.offsets {
            out.extend_from_slice(&o.to_le_bytes());
        }
    }
    out
}
