//! Yaz0: Nintendo's LZ77 compression (`.s*` files of Breath of the Wild: `.sbactorpack`, `.sbfres`).
//!
//! The header is big-endian, 16 bytes:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0x0 | 4 | `Yaz0` |
//! | 0x4 | 4 | uncompressed size |
//! | 0x8 | 4 | alignment the payload asks for (0 in older files) |
//! | 0xC | 4 | reserved (0) |
//!
//! Then groups of a code byte and eight operations, most significant bit first: a set bit copies
//! one literal byte; a clear bit is a back-reference of two bytes `NR RR` (distance `RRR + 1`,
//! length `N + 2`) or, when `N` is 0, three bytes `0R RR LL` (length `LL + 0x12`). The decoder
//! stops at the uncompressed size; a back-reference before the start of the output, or data
//! ending early, is an error at its byte offset. A group of 25 bytes yields at most 2,184, so a
//! size claiming more than 88 times the input is refused before allocating.
//!
//! Nintendo's encoder is not public: an unchanged payload is written back with its original
//! stream; an edited one is compressed by [`compress`] (greedy matching over a 4 KiB window), which
//! the games read but which is not Nintendo's byte sequence.

use super::{Error, Limits, Result};

/// The magic of a Yaz0 file.
pub const MAGIC: &[u8; 4] = b"Yaz0";

/// The header of a Yaz0 stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Uncompressed size.
    pub size: u32,
    /// The alignment field at 0x8.
    pub alignment: u32,
    /// The reserved word at 0xC.
    pub reserved: u32,
}

/// Whether `bytes` start like Yaz0.
pub fn is_yaz0(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// The most bytes a Yaz0 stream of `len` bytes can decompress to (25-byte groups of eight
/// longest back-references).
pub fn max_output(len: u64) -> u64 {
    len.saturating_sub(16).div_ceil(25).saturating_add(1).saturating_mul(8 * 0x111)
}

/// Decompresses a Yaz0 file: its header and payload.
pub fn decompress(bytes: &[u8], limits: &Limits) -> Result<(Header, Vec<u8>)> {
    let mut r = super::raw::Reader::new(bytes, "Yaz0", true);
    r.magic(MAGIC)?;
    let header = Header { size: r.u32("uncompressed size")?, alignment: r.u32("alignment")?, reserved: r.u32("reserved")? };
    let size = u64::from(header.size);
    if size > max_output(bytes.len() as u64) {
        return Err(Error::invalid(
            "Yaz0",
            4,
            format!("uncompressed size {size} is more than {} bytes of Yaz0 can hold ({})", bytes.len(), max_output(bytes.len() as u64)),
        ));
    }
    limits.check("Yaz0", 4, size, bytes.len() as u64)?;
    let size = size as usize;
    let mut out: Vec<u8> = Vec::with_capacity(size);
    let mut p = 16usize;
    let end = |p: usize, what: &str, len: usize| {
        Error::invalid("Yaz0", p as u64, format!("data ends in {what} with {len} of {size} bytes decompressed"))
    };
    while out.len() < size {
        let code = *bytes.get(p).ok_or_else(|| end(p, "a code byte", out.len()))?;
        p += 1;
        for bit in (0..8).rev() {
            if out.len() >= size {
                break;
            }
            if code >> bit & 1 == 1 {
                let b = *bytes.get(p).ok_or_else(|| end(p, "a literal", out.len()))?;
                out.push(b);
                p += 1;
            } else {
                let at = p;
                let pair = bytes.get(p..p + 2).ok_or_else(|| end(p, "a back-reference", out.len()))?;
                p += 2;
                let dist = (usize::from(pair[0] & 0xF) << 8 | usize::from(pair[1])) + 1;
                let len = match pair[0] >> 4 {
                    0 => {
                        let l = *bytes.get(p).ok_or_else(|| end(p, "a back-reference's length", out.len()))?;
                        p += 1;
                        usize::from(l) + 0x12
                    }
                    n => usize::from(n) + 2,
                };
                if dist > out.len() {
                    return Err(Error::invalid(
                        "Yaz0",
                        at as u64,
                        format!("back-reference {dist} bytes back reaches before the start of the output (at {})", out.len()),
                    ));
                }
                let len = len.min(size - out.len());
                let from = out.len() - dist;
                for i in 0..len {
                    let b = out[from + i];
                    out.push(b);
                }
            }
        }
    }
    Ok((header, out))
}

/// Compresses `payload` into a Yaz0 file with the header fields of `header` (its size replaced).
pub fn compress(header: &Header, payload: &[u8]) -> Result<Vec<u8>> {
    let size = u32::try_from(payload.len()).map_err(|_| Error::invalid("Yaz0", 4, "payload does not fit Yaz0's 32-bit size"))?;
    let mut out = Vec::with_capacity(16 + payload.len() + payload.len() / 8 + 1);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&size.to_be_bytes());
    out.extend_from_slice(&header.alignment.to_be_bytes());
    out.extend_from_slice(&header.reserved.to_be_bytes());
    // Greedy LZ77 with hash chains over 3-byte prefixes, a 4 KiB window and a bounded chain walk.
    const WINDOW: usize = 0x1000;
    const MAX_LEN: usize = 0x111;
    const CHAIN: usize = 64;
    let mut head = vec![usize::MAX; 1 << 14];
    let mut prev = vec![usize::MAX; payload.len()];
    fn hash(p: &[u8], i: usize) -> usize {
        let v = u32::from(p[i]) << 16 | u32::from(p[i + 1]) << 8 | u32::from(p[i + 2]);
        (v.wrapping_mul(2654435761) >> 18) as usize
    }
    fn insert(p: &[u8], i: usize, head: &mut [usize], prev: &mut [usize]) {
        if i + 3 <= p.len() {
            let h = hash(p, i);
            prev[i] = head[h];
            head[h] = i;
        }
    }
    let mut i = 0;
    while i < payload.len() {
        let code_at = out.len();
        out.push(0);
        let mut code = 0u8;
        for bit in (0..8).rev() {
            if i >= payload.len() {
                break;
            }
            let (mut best_len, mut best_at) = (0, 0);
            if i + 3 <= payload.len() {
                let mut cand = head[hash(payload, i)];
                let mut steps = 0;
                while cand != usize::MAX && i - cand <= WINDOW && steps < CHAIN {
                    let max = MAX_LEN.min(payload.len() - i);
                    let l = payload[cand..].iter().zip(&payload[i..i + max]).take_while(|(a, b)| a == b).count();
                    if l > best_len {
                        (best_len, best_at) = (l, cand);
                        if l == max {
                            break;
                        }
                    }
                    cand = prev[cand];
                    steps += 1;
                }
            }
            if best_len >= 3 {
                let dist = i - best_at - 1;
                if best_len >= 0x12 {
                    out.push((dist >> 8) as u8);
                    out.push(dist as u8);
                    out.push((best_len - 0x12) as u8);
                } else {
                    out.push(((best_len - 2) << 4 | dist >> 8) as u8);
                    out.push(dist as u8);
                }
                for j in i..i + best_len {
                    insert(payload, j, &mut head, &mut prev);
                }
                i += best_len;
            } else {
                code |= 1 << bit;
                out.push(payload[i]);
                insert(payload, i, &mut head, &mut prev);
                i += 1;
            }
        }
        out[code_at] = code;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compress_reads_back_and_hostile_streams_are_located() {
        let payload: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8 ^ (i / 700) as u8).chain(std::iter::repeat_n(7, 900)).collect();
        let h = Header { size: 0, alignment: 0x80, reserved: 0 };
        let file = compress(&h, &payload).unwrap();
        assert!(file.len() < payload.len() / 2);
        let (h2, back) = decompress(&file, &Limits::default()).unwrap();
        assert_eq!((h2.alignment, back), (0x80, payload));
        // A back-reference before the start: code byte 0 (all back-references), then `10 05`.
        let bad = [b"Yaz0".as_slice(), &[0, 0, 0, 8], &[0; 8], &[0, 0x10, 0x05]].concat();
        let e = decompress(&bad, &Limits::default()).unwrap_err().to_string();
        assert_eq!(e, "Yaz0 at byte 0x11: back-reference 6 bytes back reaches before the start of the output (at 0)");
        // A 4 GB claim from a few bytes: refused before allocating.
        let bomb = [b"Yaz0".as_slice(), &[0xFF, 0xFF, 0xFF, 0xFF], &[0; 8], &[0xFF, 1, 2]].concat();
        let e = decompress(&bomb, &Limits::default()).unwrap_err().to_string();
        assert!(e.starts_with("Yaz0 at byte 0x4: uncompressed size 4294967295"), "{e}");
        // Data that ends early.
        let cut = &file[..file.len() / 2];
        let e = decompress(cut, &Limits::default()).unwrap_err().to_string();
        assert!(e.contains("data ends in"), "{e}");
    }
}
