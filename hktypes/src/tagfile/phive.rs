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
        let mut c = Cursor::new(bytes, 0);
        let magic = c.bytes(6)?;
        if magic != MAGIC {
            return Err(ContainerError::at(0, ErrorKind::BadMagic(String::from_utf8_lossy(magic).into_owned())));
        }
        let version_bytes: [u8; 2] = c.bytes(2)?.try_into().expect("two bytes");
        let big_endian = match c.bytes(2)? {
            [0xFF, 0xFE] => false,
            [0xFE, 0xFF] => true,
            other => {
                return Err(ContainerError::invalid(8, format!("Phive byte-order mark {:02X} {:02X} is neither FF FE nor FE FF", other[0], other[1])))
            }
        };
        let u16_of = |b: [u8; 2]| if big_endian { u16::from_be_bytes(b) } else { u16::from_le_bytes(b) };
        let kind: [u8; 2] = c.bytes(2)?.try_into().expect("two bytes");
        let word = |c: &mut Cursor<'a>| -> Result<(u64, usize)> {
            let at = c.offset();
            let b: [u8; 4] = c.bytes(4)?.try_into().expect("four bytes");
            let v = if big_endian { u32::from_be_bytes(b) } else { u32::from_le_bytes(b) };
            Ok((at, v as usize))
        };
        let (at_tag0_offset, tag0_offset) = word(&mut c)?;
        let (at_tail_offset, tail_offset) = word(&mut c)?;
        let (at_file_size, file_size) = word(&mut c)?;
        let (at_room, room) = word(&mut c)?;
        let (at_tail_size, tail_size) = word(&mut c)?;
        let reserved: [u8; 16] = c.bytes(16)?.try_into().expect("sixteen bytes");

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
            header: Header { version: u16_of(version_bytes), big_endian, kind, reserved },
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
    let room = tag0.len() + padding.len();
    let tail_offset = HEADER_SIZE + room;
    let file_size = tail_offset + tail.len();
    let mut out = Vec::with_capacity(file_size);
    let word = |out: &mut Vec<u8>, v: usize| {
        let v = v as u32;
        out.extend_from_slice(&if header.big_endian { v.to_be_bytes() } else { v.to_le_bytes() });
    };
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&if header.big_endian { header.version.to_be_bytes() } else { header.version.to_le_bytes() });
    out.extend_from_slice(if header.big_endian { &[0xFE, 0xFF] } else { &[0xFF, 0xFE] });
    out.extend_from_slice(&header.kind);
    word(&mut out, HEADER_SIZE);
    word(&mut out, tail_offset);
    word(&mut out, file_size);
    word(&mut out, room);
    word(&mut out, tail.len());
    out.extend_from_slice(&header.reserved);
    out.extend_from_slice(tag0);
    out.extend_from_slice(padding);
    out.extend_from_slice(tail);
    out
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
}
