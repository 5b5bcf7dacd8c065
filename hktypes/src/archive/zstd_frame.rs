//! zstd frames (RFC 8878), as Tears of the Kingdom compresses its files (`.pack.zs`, `.bphcl.zs`)
//! with a dictionary (`pack.zsdic`, `zs.zsdic`, ...), and as DCX `ZSTD` holds them.
//!
//! The frame header that the reader checks before decompressing:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 4 | magic `28 B5 2F FD` |
//! | 4 | 1 | descriptor: bits 7-6 content-size field size (0: 0 or 1 byte, 1: 2, 2: 4, 3: 8), bit 5 single segment, bit 2 checksum, bits 1-0 dictionary id size (0, 1, 2, 4) |
//! | 5 | 0/1 | window descriptor (absent in a single-segment frame) |
//! | .. | 0-4 | dictionary id (little-endian) |
//! | .. | 0-8 | content size (little-endian; +256 when 2 bytes) |
//!
//! A dictionary starts with `37 A4 30 EC` and its id (u32 little-endian). The content size, when
//! the frame gives it, is checked against [`super::Limits`] before allocating; without it the
//! decoder stops at the limit. A frame that names a dictionary needs one with that id
//! ([`super::OpenOptions::zstd_dictionaries`]; [`super::read_path`] also looks beside the archive).

use super::{Error, Limits, Result};

/// The magic of a zstd frame.
pub const MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];
/// The magic of a zstd dictionary.
pub const DICT_MAGIC: [u8; 4] = [0x37, 0xA4, 0x30, 0xEC];

/// What a frame header says, and the flags to write a frame like it again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameFlags {
    /// The content size, if the header gives it.
    pub content_size: Option<u64>,
    /// The dictionary id, if the header gives one (non-zero).
    pub dictionary_id: Option<u32>,
    /// Whether the frame ends with a checksum.
    pub checksum: bool,
}

/// Whether `bytes` start like a zstd frame.
pub fn is_zstd(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

/// Reads a frame's header (at `at` in its layer, for errors).
pub fn read_flags(bytes: &[u8], layer: &'static str, at: u64) -> Result<FrameFlags> {
    let short = || Error::invalid(layer, at, format!("zstd frame header is cut short ({} bytes)", bytes.len()));
    if !is_zstd(bytes) {
        return Err(Error::invalid(layer, at, format!("not a zstd frame (starts with {})", super::raw::hex(bytes))));
    }
    let d = *bytes.get(4).ok_or_else(short)?;
    let fcs_flag = d >> 6;
    let single = d & 0x20 != 0;
    if d & 0x08 != 0 {
        return Err(Error::invalid(layer, at + 4, format!("zstd frame descriptor {d:#04x} sets the reserved bit")));
    }
    let mut p = 5 + usize::from(!single);
    let did_size = [0, 1, 2, 4][usize::from(d & 3)];
    let did = bytes.get(p..p + did_size).ok_or_else(short)?;
    let dictionary_id = le(did) as u32;
    p += did_size;
    let fcs_size = match (fcs_flag, single) {
        (0, true) => 1,
        (0, false) => 0,
        (1, _) => 2,
        (2, _) => 4,
        _ => 8,
    };
    let content_size = match fcs_size {
        0 => None,
        n => {
            let v = le(bytes.get(p..p + n).ok_or_else(short)?);
            Some(if n == 2 { v + 256 } else { v })
        }
    };
    Ok(FrameFlags { content_size, dictionary_id: (dictionary_id != 0).then_some(dictionary_id), checksum: d & 4 != 0 })
}

fn le(b: &[u8]) -> u64 {
    b.iter().rev().fold(0, |a, &x| a << 8 | u64::from(x))
}

/// The id of a zstd dictionary (`None` for bytes that are not one).
pub fn dictionary_id(dict: &[u8]) -> Option<u32> {
    (dict.len() >= 8 && dict[..4] == DICT_MAGIC).then(|| u32::from_le_bytes(dict[4..8].try_into().unwrap()))
}

/// Decompresses one frame (`stream`, at `at` in `layer`) through `dict` where it names one, into at
/// most [`Limits`] allows; `expect` is the size the enclosing format claims (DCX), checked too.
pub(crate) fn decompress_exact(stream: &[u8], dict: Option<&[u8]>, expect: u64, limits: &Limits, layer: &'static str, at: u64) -> Result<Vec<u8>> {
    let (_, out) = decompress(stream, dict, limits, layer, at)?;
    if out.len() as u64 != expect {
        return Err(Error::invalid(layer, at, format!("the zstd frame holds {} bytes, not the {expect} its header claims", out.len())));
    }
    Ok(out)
}

/// Decompresses one zstd frame with an optional dictionary: its flags and content.
pub fn decompress(stream: &[u8], dict: Option<&[u8]>, limits: &Limits, layer: &'static str, at: u64) -> Result<(FrameFlags, Vec<u8>)> {
    use std::io::Read;
    let flags = read_flags(stream, layer, at)?;
    let cap = limits.allowed(stream.len() as u64);
    if let Some(size) = flags.content_size {
        limits.check(layer, at + 5, size, stream.len() as u64)?;
    }
    let dict = match (flags.dictionary_id, dict) {
        (None, _) => None,
        (Some(id), Some(d)) => {
            if dictionary_id(d) != Some(id) {
                let have = dictionary_id(d).map_or("no dictionary".to_string(), |i| format!("dictionary {i}"));
                return Err(Error::invalid(layer, at, format!("the zstd frame needs dictionary {id}, the given one is {have}")));
            }
            Some(d)
        }
        (Some(id), None) => {
            return Err(Error::missing_dictionary(layer, at, id));
        }
    };
    // One frame, and nothing after it: bytes past the frame would otherwise be dropped unseen.
    let frame_len = ::zstd::zstd_safe::find_frame_compressed_size(stream)
        .map_err(|code| Error::invalid(layer, at, format!("zstd frame: {}", ::zstd::zstd_safe::get_error_name(code))))?;
    if frame_len != stream.len() {
        return Err(Error::invalid(
            layer,
            at + frame_len as u64,
            format!("{} bytes follow the zstd frame ({frame_len} bytes); one frame is expected", stream.len() - frame_len),
        ));
    }
    let limit = flags.content_size.unwrap_or(cap);
    let mut out = Vec::with_capacity(limit.min(1 << 24) as usize);
    let err = |e: std::io::Error| Error::invalid(layer, at, format!("zstd frame: {e}"));
    let reader: Box<dyn Read> = match dict {
        Some(d) => Box::new(::zstd::stream::read::Decoder::with_dictionary(stream, d).map_err(err)?.single_frame()),
        None => Box::new(::zstd::stream::read::Decoder::with_buffer(stream).map_err(err)?.single_frame()),
    };
    reader.take(limit.saturating_add(1)).read_to_end(&mut out).map_err(err)?;
    if out.len() as u64 > limit {
        return Err(match flags.content_size {
            Some(s) => Error::invalid(layer, at + 5, format!("the zstd frame holds more than the {s} bytes its header claims")),
            None => Error::invalid(layer, at, format!("the zstd frame decompresses to more than the limit of {limit} bytes for its size")),
        });
    }
    if let Some(s) = flags.content_size {
        if out.len() as u64 != s {
            return Err(Error::invalid(layer, at + 5, format!("the zstd frame holds {} bytes, not the {s} its header claims", out.len())));
        }
    }
    Ok((flags, out))
}

/// Compresses `payload` as one frame at `level` with `dict` (its id written when `flags` has one),
/// a content size and a checksum as `flags` asks (a content size always when it had one).
pub fn compress(payload: &[u8], dict: Option<&[u8]>, level: i32, flags: &FrameFlags) -> Result<Vec<u8>> {
    let err = |e: std::io::Error| Error::invalid("zstd", 0, format!("zstd compression failed: {e}"));
    let mut c = match dict {
        Some(d) => ::zstd::bulk::Compressor::with_dictionary(level, d).map_err(err)?,
        None => ::zstd::bulk::Compressor::new(level).map_err(err)?,
    };
    c.include_checksum(flags.checksum).map_err(err)?;
    c.include_contentsize(true).map_err(err)?;
    c.include_dictid(flags.dictionary_id.is_some()).map_err(err)?;
    c.compress(payload).map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_after_the_frame_and_claims_over_the_limits_are_refused() {
        let frame = compress(b"hello zstd hello zstd", None, 3, &FrameFlags::default()).unwrap();
        let (_, back) = decompress(&frame, None, &Limits::default(), "zstd", 0).unwrap();
        assert_eq!(back, b"hello zstd hello zstd");
        let trailing = [frame.as_slice(), &[0xFF; 9]].concat();
        let e = decompress(&trailing, None, &Limits::default(), "zstd", 0).unwrap_err().to_string();
        assert_eq!(e, format!("zstd at byte {:#x}: 9 bytes follow the zstd frame ({} bytes); one frame is expected", frame.len(), frame.len()));
        // 100 MB of zeros compress to a few bytes: more than the limits let a claim be.
        let zeros = vec![0u8; 100 << 20];
        let frame = compress(&zeros, None, 3, &FrameFlags::default()).unwrap();
        let e = decompress(&frame, None, &Limits::default(), "zstd", 0).unwrap_err().to_string();
        assert!(e.contains("over the limit") && e.contains("refused before allocating"), "{e}");
        let generous = Limits { max_ratio: u64::MAX, max_size: u64::MAX };
        assert_eq!(decompress(&frame, None, &generous, "zstd", 0).unwrap().1.len(), 100 << 20);
    }
}
