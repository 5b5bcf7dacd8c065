//! The variable-length integers of type tables (spec: "Packed integers"): big-endian within the
//! integer, the first byte's high bits giving the width. Stock files always use the shortest form,
//! so [`write()`] picks it and reproduces their bytes.

use crate::bytes::Cursor;
use crate::error::{ErrorKind, UnlayeredError as Error};

type Result<T, E = Error> = std::result::Result<T, E>;

/// Reads one packed integer.
#[inline(always)]
pub fn read(c: &mut Cursor<'_>) -> Result<u64> {
    // Nearly every integer of a table is one or two bytes: take those without the general
    // decoding, checking the bounds once.
    match *c.rest() {
        [b0 @ 0x00..=0x7F, ..] => {
            c.advance(1);
            Ok(u64::from(b0))
        }
        [b0 @ 0x80..=0xBF, b1, ..] => {
            c.advance(2);
            Ok(u64::from(b0 & 0x3F) << 8 | u64::from(b1))
        }
        _ => read_wide(c),
    }
}

#[inline(never)]
fn read_wide(c: &mut Cursor<'_>) -> Result<u64> {
    let at = c.offset();
    let b0 = c.peek_u8()?;
    // (total width in bytes, value bits carried by the first byte)
    let (width, first_mask): (usize, u8) = match b0 {
        0x00..=0x7F => (1, 0x7F),
        0x80..=0xBF => (2, 0x3F),
        0xC0..=0xDF => (3, 0x1F),
        0xE0..=0xE7 => (4, 0x07),
        0xE8..=0xEF => (5, 0x07),
        0xF0..=0xF7 => (8, 0x07),
        0xF8 => (6, 0x00),
        0xF9 => (9, 0x00),
        _ => return Err(Error::at(at, ErrorKind::BadPackedInt(b0))),
    };
    let bytes = c.bytes(width)?;
    let mut v = u64::from(bytes[0] & first_mask);
    for &b in &bytes[1..] {
        v = (v << 8) | u64::from(b);
    }
    Ok(v)
}

/// Reads a packed integer that must fit in 32 bits.
#[inline(always)]
pub fn read_u32(c: &mut Cursor<'_>) -> Result<u32> {
    let at = c.offset();
    let v = read(c)?;
    u32::try_from(v).map_err(|_| too_wide(at, v))
}

#[cold]
fn too_wide(at: u64, v: u64) -> Error {
    Error::invalid(at, format!("packed integer {v} does not fit in 32 bits"))
}

/// Appends `v` in its shortest form.
///
/// ```
/// use hktypes::{bytes::Cursor, tagfile::packed};
///
/// let mut out = Vec::new();
/// for v in [5, 0x1234, 0x12_3456, 0x1234_5678] {
///     packed::write(&mut out, v);
/// }
/// assert_eq!(out.len(), 1 + 2 + 3 + 5); // the first byte's high bits give the width
/// let mut c = Cursor::new(&out, 0);
/// let back: Vec<u64> = (0..4).map(|_| packed::read(&mut c).unwrap()).collect();
/// assert_eq!(back, [5, 0x1234, 0x12_3456, 0x1234_5678]);
/// ```
pub fn write(out: &mut Vec<u8>, v: u64) {
    let (width, prefix): (usize, u8) = if v < 1 << 7 {
        (1, 0x00)
    } else if v < 1 << 14 {
        (2, 0x80)
    } else if v < 1 << 21 {
        (3, 0xC0)
    } else if v < 1 << 27 {
        (4, 0xE0)
    } else if v < 1 << 35 {
        (5, 0xE8)
    } else if v < 1 << 40 {
        (6, 0xF8)
    } else if v < 1 << 59 {
        (8, 0xF0)
    } else {
        (9, 0xF9)
    };
    let be = v.to_be_bytes();
    let start = out.len();
    match width {
        6 | 9 => {
            out.push(prefix);
            out.extend_from_slice(&be[8 - (width - 1)..]);
        }
        _ => {
            out.extend_from_slice(&be[8 - width..]);
            out[start] |= prefix;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(v: u64) -> Vec<u8> {
        let mut out = Vec::new();
        write(&mut out, v);
        let mut c = Cursor::new(&out, 0);
        assert_eq!(read(&mut c).unwrap(), v, "value {v:#x} bytes {out:02x?}");
        assert!(c.is_empty());
        out
    }

    #[test]
    fn widths_and_boundaries() {
        let cases: &[(u64, usize)] = &[
            (0, 1),
            (0x7F, 1),
            (0x80, 2),
            (0x3FFF, 2),
            (0x4000, 3),
            (0x1F_FFFF, 3),
            (0x20_0000, 4),
            (0x7FF_FFFF, 4),
            (0x800_0000, 5),
            ((1 << 35) - 1, 5),
            (1 << 35, 6),
            ((1 << 40) - 1, 6),
            (1 << 40, 8),
            ((1 << 59) - 1, 8),
            (1 << 59, 9),
            (u64::MAX, 9),
        ];
        for &(v, w) in cases {
            assert_eq!(roundtrip(v).len(), w, "width of {v:#x}");
        }
    }

    #[test]
    fn c3_is_an_ordinary_three_byte_integer() {
        // Elden Ring's field-count word 0x30001: three properties, one field.
        let mut c = Cursor::new(&[0xC3, 0x00, 0x01], 0);
        assert_eq!(read(&mut c).unwrap(), 0x30001);
    }

    #[test]
    fn bad_first_byte_and_truncation_are_located_errors() {
        let e = read(&mut Cursor::new(&[0xFA], 0x40)).unwrap_err();
        assert_eq!(e.offset(), Some(0x40));
        assert!(matches!(e.kind(), ErrorKind::BadPackedInt(0xFA)));
        let e = read(&mut Cursor::new(&[0xC0, 0x01], 0x10)).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::Eof { need: 3, have: 2 }));
    }
}
