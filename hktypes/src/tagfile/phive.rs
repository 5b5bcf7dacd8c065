//! Nintendo's `Phive` wrapper (Tears of the Kingdom, Splatoon 3): a 48-byte header, a TAG0
//! tagfile, then a trailing block the game reads beside it (an `AAMP` parameter archive in the
//! cloth files, `.bphcl`; the same wrapper holds shapes `.bphsh`, static compounds `.bphsc` and
//! navmeshes `.bphnm`).
//!
//! The header, as the files show it (little-endian in the Switch files; the byte-order mark says
//! which, and a big-endian header is read the same way with its words swapped):
//!
//! | offset | size | field | in `Armor_006_RaulSkin_Upper.bphcl` |
//! |---|---|---|---|
//! | 0x00 | 6 | magic `Phive\0` | |
//! | 0x06 | 2 | [`Header::version`] | 1 |
//! | 0x08 | 2 | byte-order mark, 0xFEFF in the file's order | `FF FE` (little-endian) |
//! | 0x0A | 2 | [`Header::kind`], two bytes of unknown meaning | 3, 3 |
//! | 0x0C | 4 | offset of the TAG0 tagfile | 0x30 |
//! | 0x10 | 4 | offset of the trailing block | 0x7C90 |
//! | 0x14 | 4 | size of the whole file | 0x8000 |
//! | 0x18 | 4 | room of the tagfile: its size rounded up to 16 | 0x7C60 (the TAG0 is 0x7C5C) |
//! | 0x1C | 4 | size of the trailing block | 0x370 (an `AAMP` of 0x36C, rounded up to 16) |
//! | 0x20 | 16 | [`Header::reserved`], zero | |
//!
//! The tagfile begins right after the header and the trailing block right after the tagfile's
//! room; the file ends with the trailing block. [`Phive::read`] checks each of these, so a size
//! past the end of the file, a trailing block that starts inside the tagfile or a tagfile whose
//! own section header disagrees with its room is a located error. [`Phive::write`] recomputes
//! the offsets and sizes around a tagfile of any length: a file read and written unchanged is its
//! bytes again.

use crate::bytes::Cursor;
use crate::error::{ContainerError, ErrorKind};
use std::fmt::Write as _;

/// The magic at the start of a Phive file.
pub const MAGIC: &[u8; 6] = b"Phive\0";
/// The size of the header: the tagfile starts here.
pub const HEADER_SIZE: usize = 0x30;
/// What the tagfile's room and the trailing block are rounded up to.
pub const ALIGN: usize = 16;

type Result<T> = std::result::Result<T, ContainerError>;

/// The header fields that are not recomputed on write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The word after the magic (1 in every file seen).
    pub version: u16,
    /// True when the header's words are big-endian (byte-order mark `FE FF`).
    pub big_endian: bool,
    /// Two bytes after the byte-order mark (3, 3 in the cloth file seen); kept as read.
    pub kind: [u8; 2],
    /// The last 16 bytes of the header (zero in the files seen); kept as read.
    pub reserved: [u8; 16],
}

/// A Phive file split into its parts: the header fields, the TAG0 tagfile and the trailing block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Phive<'a> {
    /// The header fields that are not offsets or sizes.
    pub header: Header,
    /// The TAG0 tagfile, exactly as long as its own section header says.
    pub tag0: &'a [u8],
    /// The bytes between the tagfile's end and its room's end (zero in stock files).
    pub tag0_padding: &'a [u8],
    /// The trailing block (an `AAMP` parameter archive in the cloth files), with its padding.
    pub tail: &'a [u8],
}

/// True when `bytes` start with the Phive magic.
pub fn is_phive(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

impl<'a> Phive<'a> {
    /// Splits a Phive file, checking that every offset and size the header gives agrees with the
    /// file and with the others.
    pub fn read(bytes: &'a [u8]) -> Result<Self> {
        let (header, words) = header_words(bytes)?;
        let [(at_tag0_offset, tag0_offset), (at_tail_offset, tail_offset), (at_file_size, file_size), (at_room, room), (at_tail_size, tail_size)] = words;

        let len = bytes.len();
        if file_size != len {
            return Err(ContainerError::invalid(at_file_size, format!("Phive file size {file_size:#x}, but the file is {len:#x} bytes")));
        }
        if tag0_offset != HEADER_SIZE {
            return Err(ContainerError::invalid(
                at_tag0_offset,
                format!("Phive tagfile offset {tag0_offset:#x}: the tagfile starts right after the {HEADER_SIZE:#x}-byte header"),
            ));
        }
        let room_end = tag0_offset.checked_add(room).filter(|&e| e <= len).ok_or_else(|| {
            ContainerError::invalid(at_room, format!("Phive tagfile of {room:#x} bytes at {tag0_offset:#x} runs past the end of the file ({len:#x})"))
        })?;
        if tail_offset < room_end {
            return Err(ContainerError::invalid(
                at_tail_offset,
                format!("Phive trailing block at {tail_offset:#x} starts inside the tagfile ({tag0_offset:#x}..{room_end:#x})"),
            ));
        }
        if tail_offset != room_end {
            return Err(ContainerError::invalid(
                at_tail_offset,
                format!("Phive trailing block at {tail_offset:#x}, but the tagfile's room ends at {room_end:#x}"),
            ));
        }
        if tail_offset.checked_add(tail_size) != Some(len) {
            return Err(ContainerError::invalid(
                at_tail_size,
                format!("Phive trailing block of {tail_size:#x} bytes at {tail_offset:#x} does not end the file ({len:#x} bytes)"),
            ));
        }
        // The tagfile's own size: the first section header's low 30 bits (big-endian).
        let head: [u8; 4] = bytes
            .get(tag0_offset..tag0_offset + 4)
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| ContainerError::at(tag0_offset as u64, ErrorKind::Eof { need: 4, have: room as u64 }))?;
        let tag0_len = (u32::from_be_bytes(head) & 0x3FFF_FFFF) as usize;
        if tag0_len > room || bytes.get(tag0_offset + 4..tag0_offset + 8) != Some(b"TAG0") {
            return Err(ContainerError::invalid(
                tag0_offset as u64,
                format!("Phive holds no TAG0 tagfile of at most {room:#x} bytes at {tag0_offset:#x}"),
            ));
        }
        Ok(Phive {
            header,
            tag0: &bytes[tag0_offset..tag0_offset + tag0_len],
            tag0_padding: &bytes[tag0_offset + tag0_len..room_end],
            tail: &bytes[tail_offset..],
        })
    }

    /// Writes the file around `tag0`, a TAG0 tagfile (the one read, or an edited one): the
    /// header with every offset and size recomputed, the tagfile, its room's padding (the one read
    /// when the tagfile keeps its length, else zeros up to [`ALIGN`]), and the trailing block.
    pub fn write(&self, tag0: &[u8]) -> Vec<u8> {
        write(&self.header, tag0, (tag0.len() == self.tag0.len()).then_some(self.tag0_padding), self.tail)
    }
}

/// The header's fields and its five words (tagfile offset, trailing block offset, file size,
/// tagfile room, trailing block size), each with its offset.
fn header_words(bytes: &[u8]) -> Result<(Header, [(u64, usize); 5])> {
    let mut c = Cursor::new(bytes, 0);
    let magic = c.bytes(6)?;
    if magic != MAGIC {
        return Err(ContainerError::at(0, ErrorKind::BadMagic(String::from_utf8_lossy(magic).into_owned())));
    }
    let version_bytes: [u8; 2] = c.bytes(2)?.try_into().expect("two bytes");
    let big_endian = match c.bytes(2)? {
        [0xFF, 0xFE] => false,
        [0xFE, 0xFF] => true,
        other => return Err(ContainerError::invalid(8, format!("Phive byte-order mark {:02X} {:02X} is neither FF FE nor FE FF", other[0], other[1]))),
    };
    let version = if big_endian { u16::from_be_bytes(version_bytes) } else { u16::from_le_bytes(version_bytes) };
    let kind: [u8; 2] = c.bytes(2)?.try_into().expect("two bytes");
    let mut words = [(0u64, 0usize); 5];
    for w in &mut words {
        let at = c.offset();
        let b: [u8; 4] = c.bytes(4)?.try_into().expect("four bytes");
        *w = (at, if big_endian { u32::from_be_bytes(b) } else { u32::from_le_bytes(b) } as usize);
    }
    let reserved: [u8; 16] = c.bytes(16)?.try_into().expect("sixteen bytes");
    Ok((Header { version, big_endian, kind, reserved }, words))
}

/// Writes a Phive file of `header`, `tag0` and `tail`; `padding` is what follows the tagfile in
/// its room (`None`: zeros up to a multiple of [`ALIGN`]).
pub fn write(header: &Header, tag0: &[u8], padding: Option<&[u8]>, tail: &[u8]) -> Vec<u8> {
    let zeros;
    let padding = match padding {
        Some(p) => p,
        None => {
            zeros = vec![0u8; tag0.len().next_multiple_of(ALIGN) - tag0.len()];
            &zeros
        }
    };
    let mut out = Vec::with_capacity(HEADER_SIZE + tag0.len() + padding.len() + tail.len());
    write_header(&mut out, header, tag0.len(), padding.len(), tail.len());
    out.extend_from_slice(tag0);
    out.extend_from_slice(padding);
    out.extend_from_slice(tail);
    out
}

/// The 48-byte header of a file of a tagfile of `tag0_len` bytes, `padding_len` bytes after it in
/// its room and a trailing block of `tail_len` bytes.
fn write_header(out: &mut Vec<u8>, header: &Header, tag0_len: usize, padding_len: usize, tail_len: usize) {
    let room = tag0_len + padding_len;
    let tail_offset = HEADER_SIZE + room;
    let file_size = tail_offset + tail_len;
    let word = |out: &mut Vec<u8>, v: usize| {
        let v = v as u32;
        out.extend_from_slice(&if header.big_endian { v.to_be_bytes() } else { v.to_le_bytes() });
    };
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&if header.big_endian { header.version.to_be_bytes() } else { header.version.to_le_bytes() });
    out.extend_from_slice(if header.big_endian { &[0xFE, 0xFF] } else { &[0xFF, 0xFE] });
    out.extend_from_slice(&header.kind);
    word(out, HEADER_SIZE);
    word(out, tail_offset);
    word(out, file_size);
    word(out, room);
    word(out, tail_len);
    out.extend_from_slice(&header.reserved);
}

/// What a document keeps of the Phive wrapper around its tagfile (a [`TagfileDocument`](crate::graph::TagfileDocument),
/// `<hktagfile>` XML, a dump): the header fields that are not offsets or sizes, the tagfile's
/// padding and the trailing block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhiveWrapper {
    /// The header fields kept as read.
    pub header: Header,
    /// The bytes after the tagfile in its room, written again while the tagfile keeps its length.
    pub padding: Vec<u8>,
    /// The length of the tagfile read (the padding is kept for a tagfile of this length).
    pub tag0_len: usize,
    /// The trailing block (an `AAMP` parameter archive in the cloth files).
    pub tail: Vec<u8>,
}

impl PhiveWrapper {
    /// What a document keeps of `p`.
    pub fn of(p: &Phive<'_>) -> Self {
        PhiveWrapper { header: p.header.clone(), padding: p.tag0_padding.to_vec(), tag0_len: p.tag0.len(), tail: p.tail.to_vec() }
    }

    /// The Phive file around `tag0`, with its offsets and sizes recomputed.
    pub fn wrap(&self, tag0: &[u8]) -> Vec<u8> {
        let padding = (tag0.len() == self.tag0_len).then_some(&self.padding[..]);
        write(&self.header, tag0, padding, &self.tail)
    }

    /// The wrapper as text for XML and dumps: the file read without its tagfile (the header as
    /// read, the tagfile's padding, the trailing block), in hex. [`PhiveWrapper::from_hex`] reads
    /// it back.
    pub fn to_hex(&self) -> String {
        // The file as read, its tagfile left out: the header's offsets and sizes stay the read ones.
        let mut bytes = Vec::with_capacity(HEADER_SIZE + self.padding.len() + self.tail.len());
        write_header(&mut bytes, &self.header, self.tag0_len, self.padding.len(), self.tail.len());
        bytes.extend_from_slice(&self.padding);
        bytes.extend_from_slice(&self.tail);
        let mut text = String::with_capacity(2 * bytes.len());
        for b in bytes {
            let _ = write!(text, "{b:02x}");
        }
        text
    }

    /// The wrapper [`PhiveWrapper::to_hex`] wrote: a Phive file whose tagfile is left out, its
    /// offsets and sizes checked against each other and the bytes given (the tagfile's length is
    /// the room less the padding). The errors name the byte of the wrapper (the digit pair of the
    /// text) they are about.
    pub fn from_hex(text: &str) -> Result<Self> {
        let text = text.trim().as_bytes();
        if !text.len().is_multiple_of(2) {
            return Err(ContainerError::invalid(0, "a Phive wrapper in hex has an odd number of digits"));
        }
        let bytes = text
            .chunks_exact(2)
            .enumerate()
            .map(|(k, d)| {
                std::str::from_utf8(d)
                    .ok()
                    .and_then(|d| u8::from_str_radix(d, 16).ok())
                    .ok_or_else(|| ContainerError::invalid(k as u64, "a Phive wrapper in hex has a digit that is not hex"))
            })
            .collect::<Result<Vec<u8>>>()?;
        let (header, words) = header_words(&bytes)?;
        let [(at_tag0_offset, tag0_offset), (at_tail_offset, tail_offset), (at_file_size, file_size), (at_room, room), (at_tail_size, tail_size)] = words;
        let len = bytes.len();
        if tag0_offset != HEADER_SIZE {
            return Err(ContainerError::invalid(at_tag0_offset, format!("Phive tagfile offset {tag0_offset:#x}: the tagfile starts right after the {HEADER_SIZE:#x}-byte header")));
        }
        // The bytes after the header: the tagfile's padding, then the trailing block.
        let padding_len = (len - HEADER_SIZE)
            .checked_sub(tail_size)
            .ok_or_else(|| ContainerError::invalid(at_tail_size, format!("Phive trailing block of {tail_size:#x} bytes, but the wrapper holds {:#x} after its header", len - HEADER_SIZE)))?;
        let tag0_len = room.checked_sub(padding_len).filter(|&n| n >= 8).ok_or_else(|| {
            ContainerError::invalid(at_room, format!("Phive tagfile room {room:#x} leaves no tagfile beside {padding_len:#x} bytes of padding"))
        })?;
        if tail_offset != HEADER_SIZE + room {
            return Err(ContainerError::invalid(at_tail_offset, format!("Phive trailing block at {tail_offset:#x}, but the tagfile's room ends at {:#x}", HEADER_SIZE + room)));
        }
        if file_size != len + tag0_len {
            return Err(ContainerError::invalid(at_file_size, format!("Phive file size {file_size:#x}, but the wrapper and its tagfile of {tag0_len:#x} bytes make {:#x}", len + tag0_len)));
        }
        Ok(PhiveWrapper { header, padding: bytes[HEADER_SIZE..HEADER_SIZE + padding_len].to_vec(), tag0_len, tail: bytes[HEADER_SIZE + padding_len..].to_vec() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn made(tag0_len: usize, tail: &[u8]) -> Vec<u8> {
        let mut tag0 = vec![0u8; tag0_len];
        tag0[..4].copy_from_slice(&(tag0_len as u32).to_be_bytes());
        tag0[4..8].copy_from_slice(b"TAG0");
        let header = Header { version: 1, big_endian: false, kind: [3, 3], reserved: [0; 16] };
        write(&header, &tag0, None, tail)
    }

    #[test]
    fn a_made_file_reads_back_and_writes_its_bytes() {
        let bytes = made(0x5C, b"AAMP\0\0\0\0");
        let p = Phive::read(&bytes).unwrap();
        assert_eq!((p.tag0.len(), p.tag0_padding.len(), p.tail.len()), (0x5C, 4, 8));
        assert_eq!(p.write(p.tag0), bytes);
        // A longer tagfile moves the trailing block and grows the file.
        let mut longer = p.tag0.to_vec();
        longer.extend_from_slice(&[0; 8]);
        longer[..4].copy_from_slice(&0x64u32.to_be_bytes());
        let grown = p.write(&longer);
        let q = Phive::read(&grown).unwrap();
        assert_eq!((q.tag0.len(), q.tag0_padding.len(), q.tail), (0x64, 12, p.tail));
    }

    #[test]
    fn lies_are_located_errors() {
        let good = made(0x5C, b"AAMP\0\0\0\0");
        let set = |at: usize, v: u32| {
            let mut b = good.clone();
            b[at..at + 4].copy_from_slice(&v.to_le_bytes());
            b
        };
        let cases = [
            (set(0x14, 0x1000), "file 0x14: Phive file size 0x1000, but the file is 0x98 bytes"),
            (set(0x18, 0x1000), "file 0x18: Phive tagfile of 0x1000 bytes at 0x30 runs past the end of the file (0x98)"),
            (set(0x10, 0x40), "file 0x10: Phive trailing block at 0x40 starts inside the tagfile (0x30..0x90)"),
            (set(0x1C, 4), "file 0x1c: Phive trailing block of 0x4 bytes at 0x90 does not end the file (0x98 bytes)"),
            (set(0x0C, 0x40), "file 0xc: Phive tagfile offset 0x40: the tagfile starts right after the 0x30-byte header"),
            (set(0x30, 0xFFFF_0000), "file 0x30: Phive holds no TAG0 tagfile of at most 0x60 bytes at 0x30"),
        ];
        for (bytes, want) in cases {
            let e = Phive::read(&bytes).unwrap_err().to_string();
            assert_eq!(e, want);
        }
        assert!(Phive::read(&good[..0x20]).is_err());
    }

    /// The wrapper as hex (XML, dumps) reads back to the same wrapper, and wraps the tagfile to
    /// the file again; a hex wrapper whose sizes disagree is an error at the word that lies.
    #[test]
    fn the_wrapper_goes_through_hex() {
        let bytes = made(0x5C, b"AAMP\0\0\0\0");
        let p = Phive::read(&bytes).unwrap();
        let w = PhiveWrapper::of(&p);
        let text = w.to_hex();
        assert_eq!(text.len(), 2 * (bytes.len() - 0x5C));
        let back = PhiveWrapper::from_hex(&text).unwrap();
        assert_eq!(back, w);
        assert_eq!(back.wrap(p.tag0), bytes);
        let lie = |at: usize, v: u32| {
            let mut b: Vec<u8> = (0..text.len() / 2).map(|k| u8::from_str_radix(&text[2 * k..2 * k + 2], 16).unwrap()).collect();
            b[at..at + 4].copy_from_slice(&v.to_le_bytes());
            PhiveWrapper::from_hex(&b.iter().map(|x| format!("{x:02x}")).collect::<String>()).unwrap_err().offset()
        };
        assert_eq!(lie(0x14, 0x1000), Some(0x14));
        assert_eq!(lie(0x18, 4), Some(0x18));
        assert_eq!(lie(0x1C, 0x1000), Some(0x1C));
        assert_eq!(lie(0x10, 0x40), Some(0x10));
        // A wrapper that claims a tagfile of almost 4 GiB (its sizes agreeing) is kept as text
        // without that much memory.
        let mut big: Vec<u8> = (0..text.len() / 2).map(|k| u8::from_str_radix(&text[2 * k..2 * k + 2], 16).unwrap()).collect();
        let padding = 4;
        let room = 0xFFFF_0000u32;
        let tail_offset = 0x30 + room;
        for (at, v) in [(0x10, tail_offset), (0x14, tail_offset + 8), (0x18, room)] {
            big[at..at + 4].copy_from_slice(&v.to_le_bytes());
        }
        let hex: String = big.iter().map(|x| format!("{x:02x}")).collect();
        let w = PhiveWrapper::from_hex(&hex).unwrap();
        assert_eq!((w.tag0_len, w.padding.len()), (room as usize - padding, padding));
        assert_eq!(w.to_hex(), hex);
        assert!(PhiveWrapper::from_hex("50686976").is_err());
        assert!(PhiveWrapper::from_hex("zz").is_err());
        assert!(PhiveWrapper::from_hex("506").is_err());
    }
}
