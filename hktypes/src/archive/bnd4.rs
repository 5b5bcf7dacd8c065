//! BND4: the binder of Dark Souls II to Elden Ring (`.anibnd`, `.chrbnd`, `.partsbnd`, ...), and the
//! header half of a split binder (BHF4, see [`super::bhf4`]), which has the same header and entries.
//!
//! Header, 0x40 bytes, in the byte order byte 0x09 says:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0x00 | 4 | `BND4` (`BHF4`) |
//! | 0x04 | 2 | two unknown flags |
//! | 0x06 | 3 | 0 |
//! | 0x09 | 1 | 1 when big-endian |
//! | 0x0A | 1 | 0 when the format byte is stored in canonical bit order ("bit big-endian"), else 1 |
//! | 0x0B | 1 | 0 |
//! | 0x0C | 4 | file count |
//! | 0x10 | 8 | header size, 0x40 |
//! | 0x18 | 8 | version string (`07D7R6`) |
//! | 0x20 | 8 | size of one file entry (follows from the format byte) |
//! | 0x28 | 8 | end of the entries, names and hash table (0 in BHF4) |
//! | 0x30 | 1 | 1 when names are UTF-16 |
//! | 0x31 | 1 | format byte ([`super::binder`]) |
//! | 0x32 | 1 | extended: 4 when a name hash table follows the names |
//! | 0x33 | 5 | 0 |
//! | 0x38 | 8 | offset of the hash table (extended 4), else 0 |
//!
//! A file entry: flags (1), 0 (3), -1 (4), stored size (8), uncompressed size (8, with the
//! compression flag), data offset (4, or 8 with long offsets), id (4, with ids), name offset (4,
//! with names); the old names-only form adds an id and a zero word. Names are NUL-terminated,
//! in entry order after the entries. The hash table: path-hash offset (8), group count (4, the
//! first prime at least count / 7), 4 bytes `10 08 08 00`, the groups (length, first index: 4 + 4)
//! and the path hashes (hash, entry index: 4 + 4) grouped by `hash % groups` and sorted by hash
//! within a group. A name's hash is `h = h * 37 + c` over its UTF-16 units, lower-cased, with
//! `\` as `/` and a leading `/`. Member data follows, each aligned to 16 bytes in the games' files.

use super::binder::{check_count, read_name, write_name, BinderFormat, Entry};
use super::raw::{relayout, Block, Reader, Writer};
use super::{Error, Result};

/// A BND4 binder (or the header of a BHF4 one, with its data from the BDF4 file).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bnd4 {
    /// The 0x40 header bytes as read (count, sizes and offsets are recomputed on writing).
    pub raw_header: Vec<u8>,
    /// Big-endian fields.
    pub big: bool,
    /// The format flags.
    pub format: BinderFormat,
    /// UTF-16 names.
    pub unicode: bool,
    /// The extended byte (4: a hash table).
    pub extended: u8,
    /// The 4 bytes after the hash table's group count (`10 08 08 00`).
    pub hash_table_flags: [u8; 4],
    /// The members.
    pub entries: Vec<Entry>,
    /// The header region's end and the file's length as read, for laying the data out again.
    orig: Option<(u64, u64)>,
}

/// The name hash a BND4 hash table keys on.
pub fn path_hash(name: &str) -> u32 {
    let t = name.trim().replace('\\', "/").to_lowercase();
    let lead = if t.starts_with('/') { None } else { Some('/' as u16) };
    lead.into_iter().chain(t.encode_utf16()).fold(0u32, |h, c| h.wrapping_mul(37).wrapping_add(u32::from(c)))
}

/// The size of one entry for `format`.
pub fn entry_size(format: BinderFormat) -> u64 {
    let mut n = 16;
    if format.compression() {
        n += 8;
    }
    n += if format.long_offsets() { 8 } else { 4 };
    if format.ids() {
        n += 4;
    }
    if format.names() {
        n += 4;
    }
    if format.names1_only() {
        n += 8;
    }
    n
}

impl Bnd4 {
    /// A new empty binder in the Elden Ring form: little-endian, version `07D7R6`, UTF-16 names,
    /// ids, names, uncompressed sizes, and a hash table.
    pub fn new() -> Self {
        let mut h = vec![0u8; 0x40];
        h[..4].copy_from_slice(b"BND4");
        h[0x0A] = 1;
        h[0x10] = 0x40;
        h[0x18..0x1E].copy_from_slice(b"07D7R6");
        h[0x30] = 1;
        h[0x31] = 0x74;
        h[0x32] = 4;
        Bnd4 {
            raw_header: h,
            big: false,
            format: BinderFormat::from_raw(0x74, false),
            unicode: true,
            extended: 4,
            hash_table_flags: [0x10, 8, 8, 0],
            entries: Vec::new(),
            orig: None,
        }
    }

    /// Reads a BND4 (`magic` `BND4`, data in `bytes`) or a BHF4 (`BHF4`, data in `data`).
    pub fn read(bytes: &[u8], data: Option<&[u8]>) -> Result<Self> {
        let layer = if data.is_some() { "BHF4" } else { "BND4" };
        let mut r = Reader::new(bytes, layer, false);
        r.magic(if data.is_some() { b"BHF4" } else { b"BND4" })?;
        let head = r.bytes(0x3C, "header")?;
        let big = head[5] != 0;
        let bit_big = head[6] == 0;
        r.big = big;
        let mut r = r.at(0x0C);
        let count = u64::from(r.u32("file count")?);
        let header_size = r.u64("header size")?;
        if header_size != 0x40 {
            return Err(r.err(0x10, format!("header size {header_size:#x} is not 0x40")));
        }
        let mut r = r.at(0x20);
        let stated_entry = r.u64("entry size")?;
        let _headers_end = r.u64("headers end")?;
        let unicode = r.u8("unicode")? != 0;
        let format = BinderFormat::from_raw(r.u8("format")?, bit_big);
        let extended = r.u8("extended")?;
        let esize = entry_size(format);
        if stated_entry != esize {
            return Err(r.err(0x20, format!("entry size {stated_entry:#x} is not the {esize:#x} the format byte {:#04x} gives", format.0)));
        }
        check_count(&r, 0x0C, count, esize, 0x40)?;
        let hash_offset = r.at(0x38).u64("hash table offset")?;
        let mut hash_table_flags = [0x10, 8, 8, 0];
        if extended == 4 {
            let mut h = r.at(0);
            let at = hash_offset;
            if at.checked_add(16).is_none_or(|e| e > bytes.len() as u64) {
                return Err(r.err(0x38, format!("hash table offset {at:#x} runs past the end ({:#x})", bytes.len())));
            }
            h.pos = at as usize + 12;
            hash_table_flags = h.array("hash table flags")?;
        }
        let data_src = data.unwrap_or(bytes);
        let data_layer = if data.is_some() { "BDF4" } else { layer };
        let mut entries = Vec::with_capacity(count as usize);
        let mut e = r.at(0x40);
        let mut headers_end = 0x40 + count * esize;
        for i in 0..count {
            let at = e.pos;
            let flags = e.u8("entry flags")?;
            e.bytes(3, "entry padding")?;
            let minus1 = e.u32("entry marker")?;
            if minus1 != u32::MAX {
                return Err(e.err(at + 4, format!("file {i}: entry marker {minus1:#x} is not -1")));
            }
            let size = e.u64("stored size")?;
            if format.compression() {
                e.u64("uncompressed size")?;
            }
            let offset = if format.long_offsets() { e.u64("data offset")? } else { u64::from(e.u32("data offset")?) };
            let mut id = if format.ids() { Some(e.u32("id")? as i32) } else { None };
            let (raw_name, name) = if format.names() {
                let off = u64::from(e.u32("name offset")?);
                let (raw, text) = read_name(&e, off, unicode, &format!("file {i}"))?;
                headers_end = headers_end.max(off + raw.len() as u64 + if unicode { 2 } else { 1 });
                (Some(raw), text)
            } else {
                (None, format!("{}", id.unwrap_or(i as i32)))
            };
            if format.names1_only() {
                id = Some(e.u32("id")? as i32);
                e.u32("zero")?;
            }
            let dr = Reader::new(data_src, data_layer, big);
            let data = dr
                .range(offset, size, || format!("file {i} ({name})"))
                .map_err(|err| err.with_note(format!("entry at {layer}+{at:#x}")))?
                .to_vec();
            entries.push(Entry { flags, id, raw_name, name, data, orig: Some((offset, size)) });
        }
        if extended == 4 {
            let groups = u64::from(r.at(hash_offset as usize + 8).u32("hash group count")?);
            headers_end = (hash_offset + 16 + groups * 8 + count * 8).min(bytes.len() as u64);
        }
        let orig_end = data_src.len() as u64;
        let orig_start = if data.is_some() { 0x30 } else { headers_end };
        Ok(Bnd4 { raw_header: bytes[..0x40].to_vec(), big, format, unicode, extended, hash_table_flags, entries, orig: Some((orig_start, orig_end)) })
    }

    /// Writes the binder: the header and entries, and the data in the same file (BND4) or, for a
    /// BHF4, the header file and the data (BDF4) file with `bdf_header` (0x30 bytes) in front.
    pub fn write_parts(&self, bdf_header: Option<&[u8]>) -> Result<(Vec<u8>, Option<Vec<u8>>)> {
        let mut w = Writer::new(self.big);
        w.bytes(&self.raw_header);
        let count = u32::try_from(self.entries.len()).map_err(|_| Error::invalid("BND4", 0x0C, "too many files"))?;
        w.set_u32(0x0C, count);
        let esize = entry_size(self.format);
        w.set_u64(0x20, esize);
        let mut fix = Vec::new();
        for e in &self.entries {
            let at = w.len();
            w.u8(e.flags);
            w.bytes(&[0; 3]);
            w.u32(u32::MAX);
            w.u64(e.data.len() as u64);
            if self.format.compression() {
                w.u64(e.uncompressed_size());
            }
            let data_at = w.len();
            if self.format.long_offsets() {
                w.u64(0);
            } else {
                w.u32(0);
            }
            if self.format.ids() && !self.format.names1_only() {
                w.u32(e.id.unwrap_or(-1) as u32);
            }
            let name_at = w.len();
            if self.format.names() {
                w.u32(0);
            }
            if self.format.names1_only() {
                w.u32(e.id.unwrap_or(-1) as u32);
                w.u32(0);
            }
            debug_assert_eq!((w.len() - at) as u64, esize);
            fix.push((data_at, name_at));
        }
        if self.format.names() {
            for (e, &(_, name_at)) in self.entries.iter().zip(&fix) {
                let off = u32::try_from(w.len()).map_err(|_| Error::invalid("BND4", 0, "names past 4 GiB"))?;
                w.set_u32(name_at, off);
                write_name(&mut w, e.raw_name.as_deref().unwrap_or_default(), self.unicode);
            }
        }
        if self.extended == 4 {
            w.pad_to(8);
            let at = w.len();
            w.set_u64(0x38, at as u64);
            self.write_hash_table(&mut w);
        }
        let headers_end = w.len() as u64;
        let split = bdf_header.is_some();
        if !split {
            w.set_u64(0x28, headers_end);
        }
        let (orig_start, orig_end) = self.orig.unwrap_or((0, 0));
        let data_start = if split { bdf_header.unwrap().len() as u64 } else { headers_end };
        let blocks: Vec<Block> = self
            .entries
            .iter()
            .map(|e| match e.orig {
                Some((o, l)) => Block { orig_offset: o, orig_len: l, new_len: e.data.len() as u64 },
                None => Block { orig_offset: u64::MAX / 2, orig_len: 0, new_len: e.data.len() as u64 },
            })
            .collect();
        let (offsets, end) = if self.orig.is_some() && self.entries.iter().all(|e| e.orig.is_some()) {
            relayout(orig_start, data_start, &blocks, orig_end, 0x10000)
        } else {
            fresh_layout(data_start, &blocks, 16)
        };
        let mut bdf = bdf_header.map(|h| h.to_vec());
        {
            let body = bdf.as_mut().unwrap_or(&mut w.out);
            body.resize(end as usize, 0);
            for (e, &off) in self.entries.iter().zip(&offsets) {
                body[off as usize..off as usize + e.data.len()].copy_from_slice(&e.data);
            }
        }
        for (&off, &(data_at, _)) in offsets.iter().zip(&fix) {
            if self.format.long_offsets() {
                w.set_u64(data_at, off);
            } else {
                let o = u32::try_from(off).map_err(|_| Error::invalid("BND4", data_at as u64, "data offset past 4 GiB needs long offsets"))?;
                w.set_u32(data_at, o);
            }
        }
        Ok((w.out, bdf))
    }

    /// Writes a BND4 binder.
    pub fn write(&self) -> Result<Vec<u8>> {
        Ok(self.write_parts(None)?.0)
    }

    fn write_hash_table(&self, w: &mut Writer) {
        let n = self.entries.len() as u32;
        let groups = (n / 7..).find(|&p| is_prime(p)).unwrap_or(1);
        let mut lists: Vec<Vec<(u32, u32)>> = vec![Vec::new(); groups as usize];
        for (i, e) in self.entries.iter().enumerate() {
            let h = path_hash(&e.name);
            lists[(h % groups) as usize].push((h, i as u32));
        }
        for l in &mut lists {
            l.sort_by_key(|&(h, _)| h);
        }
        let table_at = w.len();
        w.u64(0);
        w.u32(groups);
        w.bytes(&self.hash_table_flags);
        let mut index = 0u32;
        for l in &lists {
            w.u32(l.len() as u32);
            w.u32(index);
            index += l.len() as u32;
        }
        let hashes_at = w.len() as u64;
        w.set_u64(table_at, hashes_at);
        for l in &lists {
            for &(h, i) in l {
                w.u32(h);
                w.u32(i);
            }
        }
    }
}

impl Default for Bnd4 {
    fn default() -> Self {
        Self::new()
    }
}

fn is_prime(p: u32) -> bool {
    if p < 2 {
        return false;
    }
    let mut i = 2;
    while i * i <= p {
        if p.is_multiple_of(i) {
            return false;
        }
        i += 1;
    }
    true
}

/// Lays out members made in memory one after another, each aligned to `align`.
pub(crate) fn fresh_layout(start: u64, blocks: &[Block], align: u64) -> (Vec<u64>, u64) {
    let mut at = start;
    let mut out = Vec::with_capacity(blocks.len());
    for b in blocks {
        at = super::raw::align_up(at, align);
        out.push(at);
        at += b.new_len;
    }
    (out, at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_made_bnd4_reads_back_and_writes_the_same() {
        let mut b = Bnd4::new();
        for (i, name) in ["N:\\GR\\data\\a\\skeleton.hkx", "N:\\GR\\data\\a\\a000_000001.hkx", "x.bin"].iter().enumerate() {
            b.entries.push(Entry::new(name, 1000 + i as i32, vec![i as u8; 17 + i], true, false));
        }
        let bytes = b.write().unwrap();
        let back = Bnd4::read(&bytes, None).unwrap();
        assert_eq!(back.entries.len(), 3);
        assert_eq!(back.entries[1].name, "N:\\GR\\data\\a\\a000_000001.hkx");
        assert_eq!(back.entries[2].data, vec![2u8; 19]);
        assert_eq!(back.entries[2].id, Some(1002));
        assert_eq!(back.write().unwrap(), bytes);
        // A count that lies.
        let mut lie = bytes.clone();
        lie[0x0C..0x10].copy_from_slice(&100_000u32.to_le_bytes());
        let e = Bnd4::read(&lie, None).unwrap_err().to_string();
        assert!(e.starts_with("BND4 at byte 0xc: file count 100000"), "{e}");
        // An offset that lies.
        let mut lie = bytes.clone();
        lie[0x40 + 0x18..0x40 + 0x1C].copy_from_slice(&0xFFFF_FF00u32.to_le_bytes());
        let e = Bnd4::read(&lie, None).unwrap_err().to_string();
        assert!(e.contains("file 0 (N:\\GR\\data\\a\\skeleton.hkx): 17 bytes at 0xffffff00 run past the end"), "{e}");
    }
}
