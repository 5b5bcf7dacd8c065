//! The shared reading and writing helpers of the archive formats: an endian-aware, bounds-checked
//! reader whose failures are located [`Error`]s, a writer, and the placement of member data when
//! an archive is laid out again ([`relayout`]).

use super::{Error, Result};

/// A bounds-checked reader over one archive layer's bytes, in the layer's byte order. Every
/// failure names the layer (`BND4`), the byte offset and what was being read.
#[derive(Clone, Copy)]
pub(crate) struct Reader<'a> {
    pub data: &'a [u8],
    pub pos: usize,
    pub big: bool,
    pub layer: &'static str,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8], layer: &'static str, big: bool) -> Self {
        Reader { data, pos: 0, big, layer }
    }

    pub fn at(&self, pos: usize) -> Self {
        Reader { pos, ..*self }
    }

    pub fn err(&self, offset: usize, what: impl Into<String>) -> Error {
        Error::invalid(self.layer, offset as u64, what)
    }

    pub fn bytes(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        match end {
            Some(end) => {
                let b = &self.data[self.pos..end];
                self.pos = end;
                Ok(b)
            }
            None => Err(self.err(
                self.pos,
                format!("{what}: {n} bytes needed, {} left (layer is {} bytes)", self.data.len().saturating_sub(self.pos), self.data.len()),
            )),
        }
    }

    pub fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N]> {
        Ok(self.bytes(N, what)?.try_into().unwrap())
    }

    pub fn u8(&mut self, what: &str) -> Result<u8> {
        Ok(self.array::<1>(what)?[0])
    }

    pub fn u16(&mut self, what: &str) -> Result<u16> {
        let b = self.array(what)?;
        Ok(if self.big { u16::from_be_bytes(b) } else { u16::from_le_bytes(b) })
    }

    pub fn u32(&mut self, what: &str) -> Result<u32> {
        let b = self.array(what)?;
        Ok(if self.big { u32::from_be_bytes(b) } else { u32::from_le_bytes(b) })
    }

    pub fn u64(&mut self, what: &str) -> Result<u64> {
        let b = self.array(what)?;
        Ok(if self.big { u64::from_be_bytes(b) } else { u64::from_le_bytes(b) })
    }

    /// Reads `magic`, else an error naming what was found.
    pub fn magic(&mut self, magic: &[u8]) -> Result<()> {
        let at = self.pos;
        let got = self.bytes(magic.len(), "magic")?;
        if got != magic {
            return Err(self.err(at, format!("expected magic {:?}, found {}", String::from_utf8_lossy(magic), hex(got))));
        }
        Ok(())
    }

    /// `len` bytes at `offset`, checked against the layer's end; `what` names them in the error.
    pub fn range(&self, offset: u64, len: u64, what: impl Fn() -> String) -> Result<&'a [u8]> {
        let total = self.data.len() as u64;
        match offset.checked_add(len) {
            Some(end) if end <= total => Ok(&self.data[offset as usize..end as usize]),
            _ => Err(self.err(self.pos, format!("{}: {len} bytes at {offset:#x} run past the end ({total:#x})", what()))),
        }
    }
}

/// `AB CD EF` for an error message (at most 8 bytes).
pub(crate) fn hex(b: &[u8]) -> String {
    b.iter().take(8).map(|x| format!("{x:02X}")).collect::<Vec<_>>().join(" ")
}

/// A byte writer in one byte order.
pub(crate) struct Writer {
    pub out: Vec<u8>,
    pub big: bool,
}

impl Writer {
    pub fn new(big: bool) -> Self {
        Writer { out: Vec::new(), big }
    }
    pub fn u8(&mut self, v: u8) {
        self.out.push(v);
    }
    pub fn u16(&mut self, v: u16) {
        self.out.extend_from_slice(&if self.big { v.to_be_bytes() } else { v.to_le_bytes() });
    }
    pub fn u32(&mut self, v: u32) {
        self.out.extend_from_slice(&if self.big { v.to_be_bytes() } else { v.to_le_bytes() });
    }
    pub fn u64(&mut self, v: u64) {
        self.out.extend_from_slice(&if self.big { v.to_be_bytes() } else { v.to_le_bytes() });
    }
    pub fn bytes(&mut self, b: &[u8]) {
        self.out.extend_from_slice(b);
    }
    pub fn pad_to(&mut self, align: usize) {
        while !self.out.len().is_multiple_of(align) {
            self.out.push(0);
        }
    }
    pub fn set_u32(&mut self, at: usize, v: u32) {
        let b = if self.big { v.to_be_bytes() } else { v.to_le_bytes() };
        self.out[at..at + 4].copy_from_slice(&b);
    }
    pub fn set_u64(&mut self, at: usize, v: u64) {
        let b = if self.big { v.to_be_bytes() } else { v.to_le_bytes() };
        self.out[at..at + 8].copy_from_slice(&b);
    }
    pub fn len(&self) -> usize {
        self.out.len()
    }
}

/// Rounds `v` up to a multiple of `align` (a power of two).
pub(crate) fn align_up(v: u64, align: u64) -> u64 {
    v.div_ceil(align) * align
}

/// The largest power of two that divides `offset`, at most `cap` (the alignment a member's
/// original offset shows).
pub(crate) fn shown_alignment(offset: u64, cap: u64) -> u64 {
    if offset == 0 {
        cap
    } else {
        (1u64 << offset.trailing_zeros()).min(cap)
    }
}

/// Where one member's data lay in the original archive (absolute offsets in its layer) and how
/// long it is now.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Block {
    pub orig_offset: u64,
    pub orig_len: u64,
    pub new_len: u64,
}

/// Lays member data out again after a header region that ended at `orig_start` and now ends at
/// `new_start`: the members keep their original order, each is aligned as its original offset
/// shows (the largest power of two dividing it, at most `max_align`) and keeps whatever padding
/// it had beyond that alignment. An archive whose members and header did not change is laid out
/// exactly as it was; an edited member moves those after it by its growth, rounded to their
/// alignments. Members that shared one range of data (same offset and length) share it again.
/// Returns the new offsets (in `blocks` order) and the new end, for the original end `orig_end`.
pub(crate) fn relayout(orig_start: u64, new_start: u64, blocks: &[Block], orig_end: u64, max_align: u64) -> (Vec<u64>, u64) {
    let mut order: Vec<usize> = (0..blocks.len()).collect();
    order.sort_by_key(|&i| (blocks[i].orig_offset, blocks[i].orig_len, i));
    let mut out = vec![0u64; blocks.len()];
    let (mut orig_prev, mut new_prev) = (orig_start, new_start);
    let mut last: Option<usize> = None;
    for &i in &order {
        let b = blocks[i];
        if let Some(l) = last {
            let lb = blocks[l];
            if lb.orig_offset == b.orig_offset && lb.orig_len == b.orig_len && lb.new_len == b.new_len && b.orig_len == b.new_len {
                out[i] = out[l];
                continue;
            }
        }
        if b.orig_len == 0 && b.new_len == 0 && b.orig_offset < orig_start {
            // An empty member whose offset points into the header (0, often): nothing to place.
            out[i] = b.orig_offset.min(new_start);
            continue;
        }
        let align = shown_alignment(b.orig_offset, max_align);
        let aligned_orig = align_up(orig_prev, align);
        let pad = b.orig_offset.saturating_sub(aligned_orig);
        let at = align_up(new_prev, align) + pad;
        out[i] = at;
        orig_prev = orig_prev.max(b.orig_offset + b.orig_len);
        new_prev = new_prev.max(at + b.new_len);
        last = Some(i);
    }
    // Never less than what the members need (an original end inside the data is not kept).
    let placed_end = blocks.iter().zip(&out).map(|(b, &o)| o + b.new_len).max().unwrap_or(new_start).max(new_start);
    let new_prev = new_prev.max(placed_end);
    let end = if orig_end <= orig_prev {
        new_prev
    } else {
        let align = shown_alignment(orig_end, max_align);
        align_up(new_prev, align) + orig_end.saturating_sub(align_up(orig_prev, align))
    };
    (out, end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relayout_keeps_an_unchanged_layout_and_moves_the_rest() {
        let blocks = [
            Block { orig_offset: 0x40, orig_len: 0x13, new_len: 0x13 },
            Block { orig_offset: 0x60, orig_len: 0x5, new_len: 0x5 },
            Block { orig_offset: 0x100, orig_len: 0x8, new_len: 0x8 },
        ];
        let (offs, end) = relayout(0x30, 0x30, &blocks, 0x110, 0x2000);
        assert_eq!((offs, end), (vec![0x40, 0x60, 0x100], 0x110));
        let mut grown = blocks;
        grown[0].new_len = 0x33;
        let (offs, end) = relayout(0x30, 0x30, &grown, 0x110, 0x2000);
        assert_eq!((offs, end), (vec![0x40, 0x80, 0x100], 0x110));
    }

    /// Fuzz findings: an empty member pointing into a header that was longer than the new one,
    /// and an original end inside the data, still give a layout that holds every member.
    #[test]
    fn relayout_always_holds_every_member() {
        let blocks = [Block { orig_offset: 0x100, orig_len: 0, new_len: 0 }, Block { orig_offset: 0x200, orig_len: 8, new_len: 8 }];
        let (offs, end) = relayout(0x180, 0x40, &blocks, 0x100, 0x2000);
        assert_eq!(offs, vec![0x40, 0x200]);
        assert!(end >= 0x208, "{end:#x}");
    }
}
