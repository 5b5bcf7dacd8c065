//! BND3: the binder of Demon's Souls, Dark Souls and Dark Souls Remastered (`.anibnd`,
//! `.chrbnd`, `.objbnd`, the latter usually inside DCX).
//!
//! Header, 0x20 bytes:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0x00 | 4 | `BND3` |
//! | 0x04 | 8 | version string (`07D7R6`) |
//! | 0x0C | 1 | format byte ([`super::binder`]); its big-endian bit also makes the fields big-endian |
//! | 0x0D | 1 | 1 when big-endian |
//! | 0x0E | 1 | 1 when the format byte is stored in canonical bit order |
//! | 0x0F | 1 | 0 |
//! | 0x10 | 4 | file count |
//! | 0x14 | 4 | end of the entries and names |
//! | 0x18 | 4 | unknown (0 or 0x80000000) |
//! | 0x1C | 4 | 0 |
//!
//! A file entry: flags (1), 0 (3), stored size (4), data offset (4, or 8 with long offsets), id (4,
//! with ids), name offset (4, with names), uncompressed size (4, with the compression flag). Names
//! are NUL-terminated Shift-JIS, in entry order after the entries; the data follows.

use super::binder::{check_count, read_name, write_name, BinderFormat, Entry};
use super::raw::{relayout, Block, Reader, Writer};
use super::{Error, Result};

/// A BND3 binder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bnd3 {
    /// The 0x20 header bytes as read (count and end of headers are recomputed on writing).
    pub raw_header: Vec<u8>,
    /// Big-endian fields.
    pub big: bool,
    /// The format flags.
    pub format: BinderFormat,
    /// The members.
    pub entries: Vec<Entry>,
    orig: Option<(u64, u64)>,
}

/// The size of one entry for `format`.
pub fn entry_size(format: BinderFormat) -> u64 {
    let mut n = 8;
    n += if format.long_offsets() { 8 } else { 4 };
    if format.ids() {
        n += 4;
    }
    if format.names() {
        n += 4;
    }
    if format.compression() {
        n += 4;
    }
    n
}

impl Bnd3 {
    /// A new empty binder in the Dark Souls form: little-endian, version `07D7R6`, format 0x74
    /// (ids, names, uncompressed sizes).
    pub fn new() -> Self {
        let mut h = vec![0u8; 0x20];
        h[..4].copy_from_slice(b"BND3");
        h[4..10].copy_from_slice(b"07D7R6");
        h[0x0C] = 0x74;
        Bnd3 { raw_header: h, big: false, format: BinderFormat::from_raw(0x74, false), entries: Vec::new(), orig: None }
    }

    /// Reads a BND3 binder.
    pub fn read(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::new(bytes, "BND3", false);
        r.magic(b"BND3")?;
        let head = r.bytes(0x1C, "header")?;
        let bit_big = head[0x0A] != 0;
        let format = BinderFormat::from_raw(head[8], bit_big);
        let big = head[9] != 0 || format.0 & 1 != 0;
        r.big = big;
        let count = u64::from(r.at(0x10).u32("file count")?);
        let esize = entry_size(format);
        check_count(&r, 0x10, count, esize, 0x20)?;
        let mut e = r.at(0x20);
        let mut entries = Vec::with_capacity(count as usize);
        let mut headers_end = 0x20 + count * esize;
        for i in 0..count {
            let at = e.pos;
            let flags = e.u8("entry flags")?;
            e.bytes(3, "entry padding")?;
            let size = u64::from(e.u32("stored size")?);
            let offset = if format.long_offsets() { e.u64("data offset")? } else { u64::from(e.u32("data offset")?) };
            let id = if format.ids() { Some(e.u32("id")? as i32) } else { None };
            let (raw_name, name) = if format.names() {
                let off = u64::from(e.u32("name offset")?);
                let (raw, text) = read_name(&e, off, false, &format!("file {i}"))?;
                headers_end = headers_end.max(off + raw.len() as u64 + 1);
                (Some(raw), text)
            } else {
                (None, format!("{}", id.unwrap_or(i as i32)))
            };
            if format.compression() {
                e.u32("uncompressed size")?;
            }
            let data = r.range(offset, size, || format!("file {i} ({name})")).map_err(|err| err.with_note(format!("entry at BND3+{at:#x}")))?.to_vec();
            entries.push(Entry { flags, id, raw_name, name, data, orig: Some((offset, size)) });
        }
        Ok(Bnd3 { raw_header: bytes[..0x20].to_vec(), big, format, entries, orig: Some((headers_end, bytes.len() as u64)) })
    }

    /// Writes the binder.
    pub fn write(&self) -> Result<Vec<u8>> {
        let mut w = Writer::new(self.big);
        w.bytes(&self.raw_header);
        let count = u32::try_from(self.entries.len()).map_err(|_| Error::invalid("BND3", 0x10, "too many files"))?;
        w.set_u32(0x10, count);
        let mut fix = Vec::new();
        for e in &self.entries {
            w.u8(e.flags);
            w.bytes(&[0; 3]);
            w.u32(u32::try_from(e.data.len()).map_err(|_| Error::invalid("BND3", 0, "a file of 4 GiB or more"))?);
            let data_at = w.len();
            if self.format.long_offsets() {
                w.u64(0);
            } else {
                w.u32(0);
            }
            if self.format.ids() {
                w.u32(e.id.unwrap_or(-1) as u32);
            }
            let name_at = w.len();
            if self.format.names() {
                w.u32(0);
            }
            if self.format.compression() {
                w.u32(e.uncompressed_size() as u32);
            }
            fix.push((data_at, name_at));
        }
        if self.format.names() {
            for (e, &(_, name_at)) in self.entries.iter().zip(&fix) {
                let off = w.len() as u32;
                w.set_u32(name_at, off);
                write_name(&mut w, e.raw_name.as_deref().unwrap_or_default(), false);
            }
        }
        let headers_end = w.len() as u64;
        w.set_u32(0x14, headers_end as u32);
        let blocks: Vec<Block> = self
            .entries
            .iter()
            .map(|e| {
                let (o, l) = e.orig.unwrap_or((0, 0));
                Block { orig_offset: o, orig_len: l, new_len: e.data.len() as u64 }
            })
            .collect();
        let (offsets, end) = match self.orig {
            Some((start, len)) if self.entries.iter().all(|e| e.orig.is_some()) => relayout(start, headers_end, &blocks, len, 0x10000),
            _ => super::bnd4::fresh_layout(headers_end, &blocks, 16),
        };
        w.out.resize(end as usize, 0);
        for ((e, &off), &(data_at, _)) in self.entries.iter().zip(&offsets).zip(&fix) {
            w.out[off as usize..off as usize + e.data.len()].copy_from_slice(&e.data);
            if self.format.long_offsets() {
                w.set_u64(data_at, off);
            } else {
                let o = u32::try_from(off).map_err(|_| Error::invalid("BND3", data_at as u64, "data offset past 4 GiB"))?;
                w.set_u32(data_at, o);
            }
        }
        Ok(w.out)
    }
}

impl Default for Bnd3 {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_made_bnd3_reads_back_in_both_byte_orders() {
        for big in [false, true] {
            let mut b = Bnd3::new();
            if big {
                b.raw_header[0x0D] = 1;
                b.big = true;
            }
            for i in 0..4 {
                b.entries.push(Entry::new(&format!("N:\\FRPG\\data\\Model\\chr\\c2300\\hkx\\a00_{i:04}.hkx"), 100 + i, vec![i as u8; 5 + i as usize], false, big));
            }
            let bytes = b.write().unwrap();
            let back = Bnd3::read(&bytes).unwrap();
            assert_eq!(back.big, big);
            assert_eq!(back.entries[3].name, "N:\\FRPG\\data\\Model\\chr\\c2300\\hkx\\a00_0003.hkx");
            assert_eq!((back.entries[3].id, back.entries[3].data.clone()), (Some(103), vec![3u8; 8]));
            assert_eq!(back.write().unwrap(), bytes);
            let mut lie = bytes.clone();
            let at = 0x20 + 4 + 3 * 0x18;
            let v = if big { 9999u32.to_be_bytes() } else { 9999u32.to_le_bytes() };
            lie[at..at + 4].copy_from_slice(&v);
            let e = Bnd3::read(&lie).unwrap_err().to_string();
            assert!(e.contains("file 3") && e.contains("9999 bytes at"), "{e}");
        }
    }

    /// A fuzz finding: a binder of the plainest format (no ids, names or sizes: 12-byte entries)
    /// whose empty member points at an odd offset writes the same bytes when its output is read
    /// and written again.
    #[test]
    fn the_plainest_format_writes_stably() {
        let mut h = vec![0u8; 0x20];
        h[..4].copy_from_slice(b"BND3");
        h[0x0D] = 1; // big-endian
        h[0x0E] = 1; // format byte in canonical order: 0, no fields
        h[0x10..0x14].copy_from_slice(&1u32.to_be_bytes());
        let entry = [[0u8; 4], 0u32.to_be_bytes(), 0x3Du32.to_be_bytes()].concat();
        let bytes = [h, entry, vec![0; 0x46 - 0x2C]].concat();
        let b = Bnd3::read(&bytes).unwrap();
        assert_eq!(entry_size(b.format), 12);
        let once = b.write().unwrap();
        assert_eq!(once, bytes.iter().enumerate().map(|(i, &x)| if (0x14..0x18).contains(&i) { [0, 0, 0, 0x2C][i - 0x14] } else { x }).collect::<Vec<u8>>());
        assert_eq!(Bnd3::read(&once).unwrap().write().unwrap(), once);
    }
}
