//! What FromSoftware's binders (BND3, BND4, BHF4+BDF4) share: the format byte that says which
//! fields a file entry has, the entries themselves, and their names.
//!
//! The format byte, in its canonical bit order (the files store it bit-reversed unless the header's
//! "bit big-endian" flag is set, or its lowest bit is set and its highest is not):
//!
//! | bit | meaning |
//! |---|---|
//! | 0x01 | big-endian entries (BND3) |
//! | 0x02 | entries have an id |
//! | 0x04, 0x08 | entries have a name offset (0x04 alone: the old form, id after the name) |
//! | 0x10 | 64-bit data offsets |
//! | 0x20 | entries have an uncompressed size |
//! | 0x40, 0x80 | unknown, kept |

use super::raw::{Reader, Writer};
use super::{Error, Result};

/// The format flags of a binder, canonical bit order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BinderFormat(pub u8);

impl BinderFormat {
    /// Entries have an id.
    pub const IDS: u8 = 0x02;
    /// Names, old form (with `NAMES2` or alone).
    pub const NAMES1: u8 = 0x04;
    /// Names.
    pub const NAMES2: u8 = 0x08;
    /// 64-bit offsets.
    pub const LONG_OFFSETS: u8 = 0x10;
    /// Uncompressed sizes.
    pub const COMPRESSION: u8 = 0x20;

    /// The canonical flags of the stored byte `raw`.
    pub fn from_raw(raw: u8, bit_big_endian: bool) -> Self {
        let keep = bit_big_endian || (raw & 1 != 0 && raw & 0x80 == 0);
        BinderFormat(if keep { raw } else { raw.reverse_bits() })
    }
    /// Entries have an id.
    pub fn ids(self) -> bool {
        self.0 & Self::IDS != 0
    }
    /// Entries have a name.
    pub fn names(self) -> bool {
        self.0 & (Self::NAMES1 | Self::NAMES2) != 0
    }
    /// 64-bit offsets.
    pub fn long_offsets(self) -> bool {
        self.0 & Self::LONG_OFFSETS != 0
    }
    /// Entries have an uncompressed size.
    pub fn compression(self) -> bool {
        self.0 & Self::COMPRESSION != 0
    }
    /// The old names form: the id follows the name offset, then a zero word (BND4).
    pub fn names1_only(self) -> bool {
        self.0 & 0xFE == Self::NAMES1
    }
}

/// One member of a binder: its stored fields and bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The flags byte as stored (0x40 in most files: the bit-reversed "normal" flag).
    pub flags: u8,
    /// The id, where the format has ids.
    pub id: Option<i32>,
    /// The name as stored (Shift-JIS or UTF-16 code units as bytes, no terminator), where the
    /// format has names.
    pub raw_name: Option<Vec<u8>>,
    /// The name as text (Shift-JIS beyond ASCII is shown as U+FFFD).
    pub name: String,
    /// The stored bytes (a DCX file where the member is compressed).
    pub data: Vec<u8>,
    /// Where the data lay in the file read (absolute offset and stored length), for laying it out
    /// again; `None` for an entry made in memory.
    pub orig: Option<(u64, u64)>,
}

impl Entry {
    /// A new entry with a name, an id and bytes, flags 0x40 (the usual).
    pub fn new(name: &str, id: i32, data: Vec<u8>, unicode: bool, big: bool) -> Self {
        Entry { flags: 0x40, id: Some(id), raw_name: Some(encode_name(name, unicode, big)), name: name.to_string(), data, orig: None }
    }

    /// The uncompressed size to store: a DCX member's own size, else its length.
    pub fn uncompressed_size(&self) -> u64 {
        if super::dcx::is_dcx(&self.data) && self.data.len() >= 0x20 {
            u64::from(u32::from_be_bytes(self.data[0x1C..0x20].try_into().unwrap()))
        } else {
            self.data.len() as u64
        }
    }
}

/// `name` as a binder stores it: UTF-16 in the binder's byte order, or ASCII/Shift-JIS bytes.
pub fn encode_name(name: &str, unicode: bool, big: bool) -> Vec<u8> {
    if unicode {
        name.encode_utf16().flat_map(|u| if big { u.to_be_bytes() } else { u.to_le_bytes() }).collect()
    } else {
        name.as_bytes().to_vec()
    }
}

/// The longest member name the readers take, in bytes (a game path is far shorter).
pub const MAX_NAME: usize = 4096;

/// Reads a NUL-terminated name at `offset`: its stored bytes and text.
pub(crate) fn read_name(r: &Reader, offset: u64, unicode: bool, what: &str) -> Result<(Vec<u8>, String)> {
    let data = r.data;
    if offset >= data.len() as u64 {
        return Err(r.err(r.pos, format!("{what}: name offset {offset:#x} is past the end ({:#x})", data.len())));
    }
    // Names are paths: bounding their length keeps the work of many entries naming one long run of
    // bytes proportional to the input.
    let s = &data[offset as usize..data.len().min(offset as usize + MAX_NAME + 2)];
    if unicode {
        let n = s
            .chunks_exact(2)
            .position(|c| c == [0, 0])
            .ok_or_else(|| r.err(offset as usize, format!("{what}: UTF-16 name is not terminated within {MAX_NAME} bytes")))?;
        let raw = s[..n * 2].to_vec();
        let units: Vec<u16> = raw.chunks_exact(2).map(|c| if r.big { u16::from_be_bytes([c[0], c[1]]) } else { u16::from_le_bytes([c[0], c[1]]) }).collect();
        let text = String::from_utf16(&units).map_err(|_| r.err(offset as usize, format!("{what}: name is not valid UTF-16")))?;
        Ok((raw, text))
    } else {
        let n = memchr::memchr(0, s).ok_or_else(|| r.err(offset as usize, format!("{what}: name is not terminated within {MAX_NAME} bytes")))?;
        let raw = s[..n].to_vec();
        let text = raw.iter().map(|&b| if b < 0x80 { b as char } else { '\u{FFFD}' }).collect();
        Ok((raw, text))
    }
}

/// Writes a name with its terminator.
pub(crate) fn write_name(w: &mut Writer, raw: &[u8], unicode: bool) {
    w.bytes(raw);
    w.bytes(if unicode { &[0, 0] } else { &[0] });
}

/// Checks that `count` entries of `entry_size` bytes from `at` fit in the layer.
pub(crate) fn check_count(r: &Reader, count_at: usize, count: u64, entry_size: u64, at: u64) -> Result<()> {
    let room = (r.data.len() as u64).saturating_sub(at);
    if count.saturating_mul(entry_size) > room {
        return Err(Error::invalid(
            r.layer,
            count_at as u64,
            format!("file count {count} needs {} bytes of entries ({entry_size} each) from {at:#x}, {room} are left", count.saturating_mul(entry_size)),
        ));
    }
    Ok(())
}
