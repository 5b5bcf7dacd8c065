//! DCX: FromSoftware's compressed-file wrapper (`.dcx`), around one file (a binder, a `.hkx`).
//!
//! The header is big-endian whatever the platform, four tagged blocks:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0x00 | 4 | `DCX\0` |
//! | 0x04 | 4 | version: `0x10000` (Dark Souls III, Sekiro), `0x11000` (Elden Ring) |
//! | 0x08 | 4 | offset of `DCS` (0x18) |
//! | 0x0C | 4 | offset of `DCP` (0x24) |
//! | 0x10 | 4 | `0x44` (offset of `DCA` in the DFLT and ZSTD variants; `0x24` in older ones) |
//! | 0x14 | 4 | `0x4C` (offset of the data; `0x2C` in older ones) |
//! | 0x18 | 4 | `DCS\0` |
//! | 0x1C | 4 | uncompressed size |
//! | 0x20 | 4 | compressed size (of the stream from the data offset on) |
//! | 0x24 | 4 | `DCP\0` |
//! | 0x28 | 4 | codec: `DFLT` (a zlib stream), `ZSTD` (a zstd frame), `KRAK` (Oodle Kraken), `EDGE` (PS3 chunks) |
//! | 0x2C | 4 | size of the `DCP` block (0x20): `DCA` follows at 0x24 + this |
//! | 0x30 | 1 | compression level (9 for DFLT) |
//! | 0x31 | 15 | reserved and variant flags (`0x00010100` at 0x40) |
//! | DCA | 4 | `DCA\0` |
//! | DCA+4 | 4 | size of the `DCA` block (8): the data follows at DCA + this |
//!
//! The reader takes every block position from the sizes the header gives (never from the fixed
//! offsets above), checks each tag, and decompresses `compressed size` bytes into at most
//! `uncompressed size` bytes, refused before any work when [`super::Limits`] says the claim is
//! impossible for the input's size. KRAK cannot be decompressed without Oodle, a proprietary library
//! hkgen does not ship: its error says so. The header's bytes are kept as they are, so that writing
//! back changes only the two sizes.

use super::raw::Reader;
use super::{Error, Limits, Result};

/// The compression codec a DCX names at 0x28.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Codec {
    /// `DFLT`: one zlib stream.
    Deflate,
    /// `ZSTD`: one zstd frame.
    Zstd,
    /// `KRAK`: Oodle Kraken (Sekiro, Elden Ring); not decompressible without Oodle.
    Kraken,
    /// `EDGE` or anything else: not supported.
    Other([u8; 4]),
}

impl Codec {
    /// The four-letter tag.
    pub fn tag(self) -> [u8; 4] {
        match self {
            Codec::Deflate => *b"DFLT",
            Codec::Zstd => *b"ZSTD",
            Codec::Kraken => *b"KRAK",
            Codec::Other(t) => t,
        }
    }
}

/// The raw header of a DCX file: its bytes up to the data, and what they say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The header's bytes, `DCX\0` to the start of the data, as read.
    pub raw: Vec<u8>,
    /// The codec at 0x28.
    pub codec: Codec,
    /// The level byte at 0x30.
    pub level: u8,
    /// The uncompressed size at 0x1C.
    pub uncompressed_size: u32,
    /// The compressed size at 0x20.
    pub compressed_size: u32,
}

/// The magic of a DCX file.
pub const MAGIC: &[u8; 4] = b"DCX\0";

/// Whether `bytes` start like a DCX file.
pub fn is_dcx(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// Reads the header, checking its tags and that the compressed data lies inside `bytes`; returns
/// the header and the compressed stream.
pub fn read_header(bytes: &[u8]) -> Result<(Header, &[u8])> {
    let mut r = Reader::new(bytes, "DCX", true);
    r.magic(MAGIC)?;
    let _version = r.u32("version")?;
    let mut s = r.at(0x18);
    s.magic(b"DCS\0")?;
    let uncompressed_size = s.u32("uncompressed size")?;
    let compressed_size = s.u32("compressed size")?;
    let mut p = r.at(0x24);
    p.magic(b"DCP\0")?;
    let codec = match p.array::<4>("codec")? {
        [b'D', b'F', b'L', b'T'] => Codec::Deflate,
        [b'Z', b'S', b'T', b'D'] => Codec::Zstd,
        [b'K', b'R', b'A', b'K'] => Codec::Kraken,
        t => Codec::Other(t),
    };
    let dcp_size = p.u32("DCP block size")? as usize;
    let level = p.u8("level")?;
    if !(0x10..=0x1000).contains(&dcp_size) {
        return Err(Error::invalid("DCX", 0x2C, format!("DCP block size {dcp_size:#x} is not plausible (0x20 expected)")));
    }
    let dca_at = 0x24 + dcp_size;
    let mut a = r.at(dca_at);
    a.magic(b"DCA\0")?;
    let dca_size = a.u32("DCA block size")? as usize;
    if !(8..=0x1000).contains(&dca_size) {
        return Err(Error::invalid("DCX", dca_at as u64 + 4, format!("DCA block size {dca_size:#x} is not plausible (8 expected)")));
    }
    let data_at = dca_at + dca_size;
    let stream = r.range(data_at as u64, compressed_size as u64, || format!("compressed size {compressed_size} (at 0x20) from data offset {data_at:#x}"))?;
    let raw = bytes[..data_at].to_vec();
    Ok((Header { raw, codec, level, uncompressed_size, compressed_size }, stream))
}

/// Decompresses a DCX file: its header and payload.
pub fn decompress(bytes: &[u8], limits: &Limits) -> Result<(Header, Vec<u8>)> {
    let (header, stream) = read_header(bytes)?;
    let data_at = header.raw.len() as u64;
    let claimed = header.uncompressed_size as u64;
    limits.check("DCX", 0x1C, claimed, bytes.len() as u64)?;
    let out = match header.codec {
        Codec::Deflate => inflate(stream, claimed, data_at)?,
        Codec::Zstd => super::zstd_frame::decompress_exact(stream, None, claimed, limits, "DCX", data_at)?,
        Codec::Kraken => {
            return Err(Error::unsupported(
                "DCX",
                0x28,
                "DCX KRAK (Oodle Kraken) cannot be decompressed without Oodle, a proprietary library hkgen does not ship; \
                 decompress it with a tool that has oo2core (WitchyBND, Yabber with the game's DLL) first",
            ))
        }
        Codec::Other(t) => {
            return Err(Error::unsupported("DCX", 0x28, format!("DCX codec {:?} is not supported (DFLT and ZSTD are)", String::from_utf8_lossy(&t))))
        }
    };
    Ok((header, out))
}

/// Inflates a zlib stream into exactly `claimed` bytes: more or fewer is an error at `at`.
pub(crate) fn inflate(stream: &[u8], claimed: u64, at: u64) -> Result<Vec<u8>> {
    use std::io::Read;
    let mut out = Vec::with_capacity(claimed.min(1 << 24) as usize);
    let mut d = flate2::read::ZlibDecoder::new(stream);
    (&mut d).take(claimed + 1).read_to_end(&mut out).map_err(|e| Error::invalid("DCX", at, format!("zlib stream: {e}")))?;
    if out.len() as u64 != claimed {
        return Err(Error::invalid(
            "DCX",
            0x1C,
            format!("uncompressed size {claimed} (at 0x1C) is not what the zlib stream holds ({}{} bytes)", out.len(), if out.len() as u64 > claimed { "+" } else { "" }),
        ));
    }
    Ok(out)
}

/// Compresses `payload` with the header's codec and level and writes the DCX file: the header as
/// read with the two sizes replaced.
pub fn compress(header: &Header, payload: &[u8]) -> Result<Vec<u8>> {
    let stream = match header.codec {
        Codec::Deflate => deflate(payload, header.level),
        Codec::Zstd => super::zstd_frame::compress(payload, None, zstd_level(header.level), &super::zstd_frame::FrameFlags::default())?,
        c => return Err(Error::unsupported("DCX", 0x28, format!("cannot compress DCX {:?}", String::from_utf8_lossy(&c.tag())))),
    };
    assemble(header, payload.len(), &stream)
}

/// The header with its sizes set, followed by `stream`.
pub fn assemble(header: &Header, payload_len: usize, stream: &[u8]) -> Result<Vec<u8>> {
    let too_big = |what: &str| Error::invalid("DCX", 0x1C, format!("{what} does not fit DCX's 32-bit size"));
    let u = u32::try_from(payload_len).map_err(|_| too_big("the payload"))?;
    let c = u32::try_from(stream.len()).map_err(|_| too_big("the compressed stream"))?;
    let mut out = header.raw.clone();
    out[0x1C..0x20].copy_from_slice(&u.to_be_bytes());
    out[0x20..0x24].copy_from_slice(&c.to_be_bytes());
    out.extend_from_slice(stream);
    Ok(out)
}

/// A zlib stream of `payload` at `level` (flate2; see the module docs of [`super`] on exactness).
pub(crate) fn deflate(payload: &[u8], level: u8) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(u32::from(level.clamp(0, 9))));
    e.write_all(payload).expect("writing to memory");
    e.finish().expect("writing to memory")
}

fn zstd_level(level: u8) -> i32 {
    if level == 0 {
        3
    } else {
        i32::from(level).min(22)
    }
}

/// A new DCX header for `codec` in the Elden Ring form (version 0x11000, level 9 for DFLT).
pub fn new_header(codec: Codec) -> Header {
    let mut raw = Vec::with_capacity(0x4C);
    raw.extend_from_slice(MAGIC);
    for v in [0x11000u32, 0x18, 0x24, 0x44, 0x4C] {
        raw.extend_from_slice(&v.to_be_bytes());
    }
    raw.extend_from_slice(b"DCS\0");
    raw.extend_from_slice(&[0; 8]);
    raw.extend_from_slice(b"DCP\0");
    raw.extend_from_slice(&codec.tag());
    raw.extend_from_slice(&0x20u32.to_be_bytes());
    let level = if codec == Codec::Zstd { 15 } else { 9 };
    raw.extend_from_slice(&[level, 0, 0, 0]);
    raw.extend_from_slice(&[0; 12]);
    raw.extend_from_slice(&0x0001_0100u32.to_be_bytes());
    raw.extend_from_slice(b"DCA\0");
    raw.extend_from_slice(&8u32.to_be_bytes());
    Header { raw, codec, level, uncompressed_size: 0, compressed_size: 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_made_dcx_reads_back_and_lies_are_located() {
        let payload = b"hello hello hello hello DCX".repeat(50);
        for codec in [Codec::Deflate, Codec::Zstd] {
            let file = compress(&new_header(codec), &payload).unwrap();
            let (h, back) = decompress(&file, &Limits::default()).unwrap();
            assert_eq!((h.codec, back.as_slice()), (codec, payload.as_slice()));
        }
        let file = compress(&new_header(Codec::Deflate), &payload).unwrap();
        let mut lie = file.clone();
        lie[0x1C..0x20].copy_from_slice(&u32::MAX.to_be_bytes());
        let e = decompress(&lie, &Limits::default()).unwrap_err().to_string();
        assert!(e.starts_with("DCX at byte 0x1c:") && e.contains("4294967295"), "{e}");
        let mut lie = file.clone();
        lie[0x1C..0x20].copy_from_slice(&((payload.len() + 1) as u32).to_be_bytes());
        let e = decompress(&lie, &Limits::default()).unwrap_err().to_string();
        assert!(e.contains("is not what the zlib stream holds"), "{e}");
        let mut lie = file.clone();
        lie[0x20..0x24].copy_from_slice(&(file.len() as u32).to_be_bytes());
        let e = decompress(&lie, &Limits::default()).unwrap_err().to_string();
        assert!(e.contains("run past the end"), "{e}");
        let mut krak = file;
        krak[0x28..0x2C].copy_from_slice(b"KRAK");
        let e = decompress(&krak, &Limits::default()).unwrap_err().to_string();
        assert!(e.contains("cannot be decompressed without Oodle"), "{e}");
    }
}
