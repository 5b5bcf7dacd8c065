//! The on-disk records of a packfile, as bytes and words and nothing more: the file header at 0,
//! the section headers after it, the fixup records. Which words mean what (and whether they
//! agree with each other) is for [`super::file`]; this module only knows sizes, offsets and the
//! byte order a file announces in its layout rules.
//!
//! Header (all words in the file's byte order):
//!
//! | at   | size | field |
//! |------|------|-------|
//! | 0x00 | 8    | magic `57 E0 E0 57 10 C0 C0 10` |
//! | 0x08 | 4    | user tag |
//! | 0x0C | 4    | file version (5, 7, 8, 9, 11) |
//! | 0x10 | 4    | layout rules: pointer size, little-endian, reuse padding, empty base |
//! | 0x14 | 4    | section count |
//! | 0x18 | 4+4  | contents section index and offset |
//! | 0x20 | 4+4  | contents class-name section index and offset |
//! | 0x28 | 16   | contents version, NUL-terminated, `0xFF` after the NUL |
//! | 0x38 | 4    | flags |
//! | 0x3C | 4    | before version 11 a pad word (`0xFFFFFFFF`); from 11 two 16-bit words: the max predicate (21) and the size of the region that follows the header |
//!
//! A section header is a 20-byte name field (NUL-padded, `0xFF` in its last byte), the section's
//! absolute start and six offsets relative to it (local fixups, global fixups, virtual fixups,
//! exports, imports, end); version 11 adds 16 bytes (`0xFF` in stock files).

use crate::bytes::Cursor;
use crate::error::{ContainerError as Error, ErrorKind, UnlayeredError};

type Result<T, E = Error> = std::result::Result<T, E>;

/// The eight signature bytes at 0x00.
pub const MAGIC: [u8; 8] = [0x57, 0xE0, 0xE0, 0x57, 0x10, 0xC0, 0xC0, 0x10];
/// Size of the fixed part of the header; version 11 may add a region after it.
pub const HEADER_LEN: usize = 0x40;
/// The first file version with 64-byte section headers and the predicate words at 0x3C.
pub const VERSION_11: u32 = 11;
/// Size of a section name field.
pub const SECTION_NAME_LEN: usize = 20;
/// Size of the contents version field at 0x28.
pub const CONTENTS_VERSION_LEN: usize = 16;
/// Local fixup record: source, destination.
pub const LOCAL_FIXUP_LEN: usize = 8;
/// Global and virtual fixup records: source, section, destination (or class-name offset).
pub const GLOBAL_FIXUP_LEN: usize = 12;
/// Virtual fixup record: source, class-name section, class-name offset.
pub const VIRTUAL_FIXUP_LEN: usize = 12;
/// Tables and sections are padded with `0xFF` to this.
pub const FILL_ALIGN: usize = 16;
/// The fill byte, `0xFF`.
pub const FILL: u8 = 0xFF;

/// Byte order of a file's words, from layout byte 0x11 (0 big, 1 little).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Endian {
    /// Most significant byte first (Wii U).
    Big,
    /// Least significant byte first (Switch, Windows).
    Little,
}

impl Endian {
    /// Decodes a 16-bit word.
    pub fn u16(self, b: [u8; 2]) -> u16 {
        match self {
            Endian::Big => u16::from_be_bytes(b),
            Endian::Little => u16::from_le_bytes(b),
        }
    }
    /// Decodes a 32-bit word.
    pub fn u32(self, b: [u8; 4]) -> u32 {
        match self {
            Endian::Big => u32::from_be_bytes(b),
            Endian::Little => u32::from_le_bytes(b),
        }
    }
    /// Decodes a 64-bit word.
    pub fn u64(self, b: [u8; 8]) -> u64 {
        match self {
            Endian::Big => u64::from_be_bytes(b),
            Endian::Little => u64::from_le_bytes(b),
        }
    }
    /// Encodes a 16-bit word.
    pub fn u16_bytes(self, v: u16) -> [u8; 2] {
        match self {
            Endian::Big => v.to_be_bytes(),
            Endian::Little => v.to_le_bytes(),
        }
    }
    /// Encodes a 32-bit word.
    pub fn u32_bytes(self, v: u32) -> [u8; 4] {
        match self {
            Endian::Big => v.to_be_bytes(),
            Endian::Little => v.to_le_bytes(),
        }
    }
    /// Encodes a 64-bit word.
    pub fn u64_bytes(self, v: u64) -> [u8; 8] {
        match self {
            Endian::Big => v.to_be_bytes(),
            Endian::Little => v.to_le_bytes(),
        }
    }
    /// Reads one word from a cursor.
    pub fn read_u32(self, c: &mut Cursor<'_>) -> Result<u32, UnlayeredError> {
        Ok(self.u32(c.array()?))
    }
    /// Reads one 16-bit word from a cursor.
    pub fn read_u16(self, c: &mut Cursor<'_>) -> Result<u16, UnlayeredError> {
        Ok(self.u16(c.array()?))
    }
}

/// The four layout bytes at 0x10, as stored. They say how the writing platform's compiler laid out
/// the classes: pointer size, byte order, whether a derived class reuses the tail padding of its
/// base, and whether an empty base class takes no room.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LayoutRules {
    /// Pointer size in bytes (4 or 8).
    pub pointer_size: u8,
    /// 1 little-endian, 0 big-endian.
    pub little_endian: u8,
    /// 1 when a derived class's members may start in its base's tail padding.
    pub reuse_padding: u8,
    /// 1 when an empty base class takes no room.
    pub empty_base: u8,
}

impl LayoutRules {
    /// Wii U: 4-byte pointers, big-endian, no padding reuse, empty-base optimisation.
    pub const WII_U: LayoutRules = LayoutRules { pointer_size: 4, little_endian: 0, reuse_padding: 0, empty_base: 1 };
    /// Switch: 8-byte pointers, little-endian, padding reuse, empty-base optimisation.
    pub const SWITCH: LayoutRules = LayoutRules { pointer_size: 8, little_endian: 1, reuse_padding: 1, empty_base: 1 };
    /// 64-bit Windows and PlayStation 4 (FromSoftware's files).
    pub const WIN64: LayoutRules = LayoutRules { pointer_size: 8, little_endian: 1, reuse_padding: 0, empty_base: 1 };

    /// From the four bytes at 0x10: pointer size, endian, reuse padding, empty base.
    pub fn from_bytes(b: [u8; 4]) -> Self {
        LayoutRules { pointer_size: b[0], little_endian: b[1], reuse_padding: b[2], empty_base: b[3] }
    }

    /// The four bytes as stored at 0x10.
    pub fn to_bytes(self) -> [u8; 4] {
        [self.pointer_size, self.little_endian, self.reuse_padding, self.empty_base]
    }

    /// The byte order, when the endian byte is 0 or 1.
    pub fn endian(self) -> Option<Endian> {
        match self.little_endian {
            0 => Some(Endian::Big),
            1 => Some(Endian::Little),
            _ => None,
        }
    }

    /// `8,1,1,1`, the form `hkgen convert --layout` takes.
    pub fn parse(s: &str) -> Option<Self> {
        let v: Vec<u8> = s.split(',').map(|p| p.trim().parse().ok()).collect::<Option<_>>()?;
        let b: [u8; 4] = v.try_into().ok()?;
        Some(Self::from_bytes(b))
    }
}

impl std::fmt::Display for LayoutRules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{},{},{},{}", self.pointer_size, self.little_endian, self.reuse_padding, self.empty_base)
    }
}

/// The fixed 64-byte header, words decoded but not interpreted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawHeader {
    /// The word at 0x08.
    pub user_tag: u32,
    /// The file version at 0x0C.
    pub file_version: u32,
    /// The four layout bytes at 0x10.
    pub layout: LayoutRules,
    /// The section count at 0x14.
    pub num_sections: u32,
    /// Index of the section holding the root object (0x18).
    pub contents_section_index: u32,
    /// Offset of the root object in that section (0x1C).
    pub contents_section_offset: u32,
    /// Index of the section holding the root object's class name (0x20).
    pub contents_class_name_section_index: u32,
    /// Offset of that class name in its section (0x24).
    pub contents_class_name_section_offset: u32,
    /// The contents version field at 0x28, as stored.
    pub contents_version: [u8; CONTENTS_VERSION_LEN],
    /// The flags word at 0x38.
    pub flags: u32,
    /// The raw bytes at 0x3C (a pad word before version 11, two 16-bit words from 11).
    pub word_3c: [u8; 4],
}

impl RawHeader {
    /// Reads the header at the start of `data`; the byte order comes from its layout bytes.
    pub fn read(data: &[u8]) -> Result<(RawHeader, Endian)> {
        let mut c = Cursor::new(data, 0);
        let magic: [u8; 8] = c.array()?;
        if magic != MAGIC {
            return Err(Error::at(0, ErrorKind::Invalid(format!("not a Havok packfile (magic {})", hex(&magic)))));
        }
        let mut rest = c;
        rest.skip(8)?;
        let layout = LayoutRules::from_bytes(rest.array()?);
        let endian = layout
            .endian()
            .ok_or_else(|| Error::invalid(0x11, format!("endian byte {} is neither 0 nor 1", layout.little_endian)))?;
        let e = endian;
        let user_tag = e.read_u32(&mut c)?;
        let file_version = e.read_u32(&mut c)?;
        c.skip(4)?;
        let h = RawHeader {
            user_tag,
            file_version,
            layout,
            num_sections: e.read_u32(&mut c)?,
            contents_section_index: e.read_u32(&mut c)?,
            contents_section_offset: e.read_u32(&mut c)?,
            contents_class_name_section_index: e.read_u32(&mut c)?,
            contents_class_name_section_offset: e.read_u32(&mut c)?,
            contents_version: c.array()?,
            flags: e.read_u32(&mut c)?,
            word_3c: c.array()?,
        };
        Ok((h, endian))
    }

    /// Appends the 64 header bytes in byte order `e`.
    pub fn write(&self, e: Endian, out: &mut Vec<u8>) {
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&e.u32_bytes(self.user_tag));
        out.extend_from_slice(&e.u32_bytes(self.file_version));
        out.extend_from_slice(&self.layout.to_bytes());
        for w in [
            self.num_sections,
            self.contents_section_index,
            self.contents_section_offset,
            self.contents_class_name_section_index,
            self.contents_class_name_section_offset,
        ] {
            out.extend_from_slice(&e.u32_bytes(w));
        }
        out.extend_from_slice(&self.contents_version);
        out.extend_from_slice(&e.u32_bytes(self.flags));
        out.extend_from_slice(&self.word_3c);
    }
}

/// One section header as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawSectionHeader {
    /// The name field, as stored.
    pub name: [u8; SECTION_NAME_LEN],
    /// Absolute offset of the section.
    pub start: u32,
    /// Relative to `start`: local fixups, global fixups, virtual fixups, exports, imports, end.
    pub offsets: [u32; 6],
    /// The 16 bytes version 11 adds.
    pub tail: Option<[u8; 16]>,
}

impl RawSectionHeader {
    /// Size of a section header: 64 bytes from version 11, 48 before.
    pub fn len(file_version: u32) -> usize {
        if file_version >= VERSION_11 {
            64
        } else {
            48
        }
    }

    /// Reads one section header; the 16-byte tail only from version 11.
    pub fn read(c: &mut Cursor<'_>, e: Endian, file_version: u32) -> Result<Self> {
        let name = c.array()?;
        let start = e.read_u32(c)?;
        let mut offsets = [0u32; 6];
        for o in &mut offsets {
            *o = e.read_u32(c)?;
        }
        let tail = if file_version >= VERSION_11 { Some(c.array()?) } else { None };
        Ok(RawSectionHeader { name, start, offsets, tail })
    }

    /// Appends the section header in byte order `e`.
    pub fn write(&self, e: Endian, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.name);
        out.extend_from_slice(&e.u32_bytes(self.start));
        for o in self.offsets {
            out.extend_from_slice(&e.u32_bytes(o));
        }
        if let Some(t) = &self.tail {
            out.extend_from_slice(t);
        }
    }
}

pub(crate) fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Bytes of `0xFF` that take `len` to the next multiple of 16.
pub fn minimal_fill(len: usize) -> usize {
    len.next_multiple_of(FILL_ALIGN) - len
}
