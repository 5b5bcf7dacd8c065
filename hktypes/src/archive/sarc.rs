//! SARC: Nintendo's archive (`.pack`, `.sbactorpack` inside Yaz0, Tears of the Kingdom's `.pack.zs`
//! inside zstd), big-endian on the Wii U and little-endian on the Switch.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0x00 | 4 | `SARC` |
//! | 0x04 | 2 | header size, 0x14 |
//! | 0x06 | 2 | byte-order mark: `FE FF` big-endian, `FF FE` little-endian |
//! | 0x08 | 4 | file size |
//! | 0x0C | 4 | offset of the data region |
//! | 0x10 | 2 | version, 0x0100 |
//! | 0x12 | 2 | reserved |
//! | 0x14 | 4 | `SFAT` |
//! | 0x18 | 2 | SFAT header size, 0xC |
//! | 0x1A | 2 | node count |
//! | 0x1C | 4 | hash key, 0x65 |
//! | 0x20 | 16 each | nodes: name hash, attributes (`0x01000000 \| name offset / 4` when named; the top byte counts hash collisions), data start and end (relative to the data region) |
//! | .. | 4 | `SFNT` |
//! | .. | 2 | SFNT header size, 8 |
//! | .. | 2 | reserved |
//! | .. | .. | names, NUL-terminated, each padded to 4 bytes |
//!
//! Nodes are sorted by name hash: `h = h * key + byte` over the name's bytes (as signed bytes,
//! as Nintendo's code does). Member data is aligned as the file type asks (0x2000 for some
//! textures); writing back keeps each member's alignment as its original offset shows.

use super::raw::{relayout, Block, Reader, Writer};
use super::{Error, Result};

/// One member of a SARC archive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// The stored name hash.
    pub hash: u32,
    /// The attributes word as read (top byte: 1 plus the collision index when named, 0 unnamed).
    pub attributes: u32,
    /// The name's bytes, where named.
    pub raw_name: Option<Vec<u8>>,
    /// The name as text (the hash in hex when unnamed).
    pub name: String,
    /// The member's bytes.
    pub data: Vec<u8>,
    orig: Option<(u64, u64)>,
}

/// A SARC archive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sarc {
    /// Big-endian.
    pub big: bool,
    /// The version field.
    pub version: u16,
    /// The reserved field at 0x12.
    pub reserved: u16,
    /// The hash key.
    pub hash_key: u32,
    /// The members, in node (hash) order.
    pub nodes: Vec<Node>,
    /// The end of the name table, the file size and the data offset as read.
    orig: Option<(u64, u64, u64)>,
}

/// The SARC name hash of `name` with `key`.
pub fn name_hash(name: &[u8], key: u32) -> u32 {
    name.iter().fold(0u32, |h, &c| h.wrapping_mul(key).wrapping_add(c as i8 as i32 as u32))
}

/// Whether `bytes` start like SARC.
pub fn is_sarc(bytes: &[u8]) -> bool {
    bytes.starts_with(b"SARC")
}

impl Sarc {
    /// A new empty archive.
    pub fn new(big: bool) -> Self {
        Sarc { big, version: 0x0100, reserved: 0, hash_key: 0x65, nodes: Vec::new(), orig: None }
    }

    /// Adds a named member, keeping the nodes in hash order.
    pub fn add(&mut self, name: &str, data: Vec<u8>) {
        let hash = name_hash(name.as_bytes(), self.hash_key);
        let at = self.nodes.partition_point(|n| n.hash <= hash);
        self.nodes.insert(at, Node { hash, attributes: 0x0100_0000, raw_name: Some(name.as_bytes().to_vec()), name: name.into(), data, orig: None });
    }

    /// Reads a SARC archive.
    pub fn read(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::new(bytes, "SARC", false);
        r.magic(b"SARC")?;
        let bom = r.at(6).array::<2>("byte-order mark")?;
        r.big = match bom {
            [0xFE, 0xFF] => true,
            [0xFF, 0xFE] => false,
            b => return Err(r.err(6, format!("byte-order mark {:02X} {:02X} is neither FE FF nor FF FE", b[0], b[1]))),
        };
        let hsize = r.u16("header size")?;
        if hsize != 0x14 {
            return Err(r.err(4, format!("header size {hsize:#x} is not 0x14")));
        }
        let mut h = r.at(8);
        let file_size = h.u32("file size")?;
        if file_size as usize > bytes.len() {
            return Err(r.err(8, format!("file size {file_size} is more than the {} bytes there are", bytes.len())));
        }
        let data_offset = u64::from(h.u32("data offset")?);
        if data_offset > u64::from(file_size) {
            return Err(r.err(0xC, format!("data offset {data_offset:#x} is past the file size {file_size:#x}")));
        }
        let version = h.u16("version")?;
        let reserved = h.u16("reserved")?;
        let mut f = r.at(0x14);
        f.magic(b"SFAT")?;
        let fsize = f.u16("SFAT header size")?;
        if fsize != 0xC {
            return Err(r.err(0x18, format!("SFAT header size {fsize:#x} is not 0xC")));
        }
        let count = u64::from(f.u16("node count")?);
        let hash_key = f.u32("hash key")?;
        super::binder::check_count(&r, 0x1A, count, 16, 0x20)?;
        let mut n = r.at(0x20 + count as usize * 16);
        let sfnt_at = n.pos;
        n.magic(b"SFNT")?;
        let nsize = n.u16("SFNT header size")?;
        if nsize != 8 {
            return Err(r.err(sfnt_at + 4, format!("SFNT header size {nsize:#x} is not 8")));
        }
        let names_at = sfnt_at as u64 + 8;
        if names_at > data_offset {
            return Err(r.err(0xC, format!("data offset {data_offset:#x} lies inside the node table (names start at {names_at:#x})")));
        }
        let body = &bytes[..file_size as usize];
        let mut nodes = Vec::with_capacity(count as usize);
        let mut e = r.at(0x20);
        let mut prev_hash = None;
        for i in 0..count {
            let at = e.pos;
            let hash = e.u32("name hash")?;
            let attributes = e.u32("attributes")?;
            let start = u64::from(e.u32("data start")?);
            let end = u64::from(e.u32("data end")?);
            if prev_hash.is_some_and(|p| p > hash) {
                return Err(r.err(at, format!("node {i}: hash {hash:#010x} is out of order (nodes are sorted by hash)")));
            }
            prev_hash = Some(hash);
            let (raw_name, name) = if attributes >> 24 != 0 {
                let off = names_at + u64::from(attributes & 0xFF_FFFF) * 4;
                if off >= data_offset {
                    return Err(r.err(at + 4, format!("node {i}: name offset {off:#x} is past the name table (ends at {data_offset:#x})")));
                }
                let s = &bytes[off as usize..(data_offset as usize).min(off as usize + super::binder::MAX_NAME + 1)];
                let len = memchr::memchr(0, s)
                    .ok_or_else(|| r.err(off as usize, format!("node {i}: name is not terminated within {} bytes", super::binder::MAX_NAME)))?;
                let raw = s[..len].to_vec();
                (Some(raw.clone()), String::from_utf8_lossy(&raw).into_owned())
            } else {
                (None, format!("{hash:08x}"))
            };
            if end < start {
                return Err(r.err(at + 8, format!("node {i} ({name}): data end {end:#x} is before its start {start:#x}")));
            }
            let abs = data_offset + start;
            let data = Reader::new(body, "SARC", r.big).range(abs, end - start, || format!("node {i} ({name}) at data offset {start:#x}"))?.to_vec();
            nodes.push(Node { hash, attributes, raw_name, name, data, orig: Some((abs, end - start)) });
        }
        let mut names_end = names_at;
        for nd in &nodes {
            if let Some(raw) = &nd.raw_name {
                let off = names_at + u64::from(nd.attributes & 0xFF_FFFF) * 4;
                names_end = names_end.max(super::raw::align_up(off + raw.len() as u64 + 1, 4));
            }
        }
        Ok(Sarc { big: r.big, version, reserved, hash_key, nodes, orig: Some((names_end, u64::from(file_size), data_offset)) })
    }

    /// Writes the archive; names keep their order in the name table, members their alignment.
    pub fn write(&self) -> Result<Vec<u8>> {
        let mut w = Writer::new(self.big);
        let count = u16::try_from(self.nodes.len()).map_err(|_| Error::invalid("SARC", 0x1A, "more than 65535 members"))?;
        w.bytes(b"SARC");
        w.u16(0x14);
        w.u16(0xFEFF);
        w.u32(0);
        w.u32(0);
        w.u16(self.version);
        w.u16(self.reserved);
        w.bytes(b"SFAT");
        w.u16(0xC);
        w.u16(count);
        w.u32(self.hash_key);
        let nodes_at = w.len();
        w.out.resize(nodes_at + self.nodes.len() * 16, 0);
        w.bytes(b"SFNT");
        w.u16(8);
        w.u16(0);
        let names_at = w.len();
        // Names in the order of their original offsets (the order they were written in), new ones
        // after them.
        let mut order: Vec<usize> = (0..self.nodes.len()).filter(|&i| self.nodes[i].raw_name.is_some()).collect();
        order.sort_by_key(|&i| if self.nodes[i].orig.is_some() { (0, self.nodes[i].attributes & 0xFF_FFFF) } else { (1, i as u32) });
        let mut attrs: Vec<u32> = self.nodes.iter().map(|n| n.attributes).collect();
        for i in order {
            let off = (w.len() - names_at) / 4;
            attrs[i] = (self.nodes[i].attributes & 0xFF00_0000).max(0x0100_0000) | off as u32;
            w.bytes(self.nodes[i].raw_name.as_deref().unwrap());
            w.u8(0);
            w.pad_to(4);
        }
        let names_end = w.len() as u64;
        let mut blocks: Vec<Block> = self
            .nodes
            .iter()
            .map(|n| {
                let (o, l) = n.orig.unwrap_or((0, 0));
                Block { orig_offset: o, orig_len: l, new_len: n.data.len() as u64 }
            })
            .collect();
        let (offsets, end, data_offset) = match self.orig {
            Some((start, len, data_offset)) if self.nodes.iter().all(|n| n.orig.is_some()) => {
                // The data region's start is laid out as a member of no length before the rest.
                blocks.push(Block { orig_offset: data_offset, orig_len: 0, new_len: 0 });
                let (mut offsets, end) = relayout(start, names_end, &blocks, len, 0x2000);
                let data_offset = offsets.pop().unwrap();
                (offsets, end, data_offset)
            }
            _ => {
                let start = super::raw::align_up(names_end, 0x100);
                let (offsets, end) = super::bnd4::fresh_layout(start, &blocks, 0x100);
                (offsets, end, start)
            }
        };
        let file_size = u32::try_from(end).map_err(|_| Error::invalid("SARC", 8, "archive of 4 GiB or more"))?;
        w.out.resize(end as usize, 0);
        w.set_u32(8, file_size);
        w.set_u32(0xC, data_offset as u32);
        // Nodes go in the order of their hashes, recomputed from the names (a stored hash that was
        // not its name's is corrected, and the node moves to where its hash sorts).
        let hashes: Vec<u32> = self.nodes.iter().map(|n| n.raw_name.as_deref().map_or(n.hash, |raw| name_hash(raw, self.hash_key))).collect();
        let mut order: Vec<usize> = (0..self.nodes.len()).collect();
        order.sort_by_key(|&i| hashes[i]);
        for (slot, &i) in order.iter().enumerate() {
            let (n, off) = (&self.nodes[i], offsets[i]);
            w.out[off as usize..off as usize + n.data.len()].copy_from_slice(&n.data);
            let at = nodes_at + slot * 16;
            let hash = hashes[i];
            w.set_u32(at, hash);
            w.set_u32(at + 4, attrs[i]);
            w.set_u32(at + 8, (off - data_offset) as u32);
            w.set_u32(at + 12, (off - data_offset + n.data.len() as u64) as u32);
        }
        Ok(w.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_made_sarc_reads_back_in_both_byte_orders() {
        for big in [false, true] {
            let mut s = Sarc::new(big);
            s.add("Physics/RigidBody/Obj_A/Obj_A_01.hkrb", vec![1; 100]);
            s.add("Actor/ActorLink/Obj_A_01.bxml", vec![2; 7]);
            s.add("Model/Obj_A.sbfres", vec![3; 33]);
            let bytes = s.write().unwrap();
            let back = Sarc::read(&bytes).unwrap();
            assert_eq!(back.big, big);
            let n = back.nodes.iter().find(|n| n.name == "Actor/ActorLink/Obj_A_01.bxml").unwrap();
            assert_eq!(n.data, vec![2; 7]);
            assert_eq!(back.write().unwrap(), bytes);
            let mut lie = bytes.clone();
            let v = if big { 0xFFFF_0000u32.to_be_bytes() } else { 0xFFFF_0000u32.to_le_bytes() };
            lie[0x20 + 12..0x20 + 16].copy_from_slice(&v);
            let e = Sarc::read(&lie).unwrap_err().to_string();
            assert!(e.starts_with("SARC at byte") && e.contains("node 0"), "{e}");
        }
    }

    /// A fuzz finding: a node whose stored hash is not its name's is written with the right hash,
    /// where that hash sorts, so that what is written reads.
    #[test]
    fn a_wrong_stored_hash_is_corrected_where_it_sorts() {
        let mut s = Sarc::new(false);
        s.add("b.bin", vec![2; 4]);
        s.add("a.bin", vec![1; 4]);
        let mut bytes = s.write().unwrap();
        // The first node's hash made 0: still sorted, but not its name's.
        bytes[0x20..0x24].copy_from_slice(&[0; 4]);
        let read = Sarc::read(&bytes).unwrap();
        let again = Sarc::read(&read.write().unwrap()).unwrap();
        assert_eq!(again.write().unwrap(), s.write().unwrap());
    }
}
