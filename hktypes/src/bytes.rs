//! A bounds-checked cursor over a byte slice that knows its absolute position in the file, so every
//! read failure can say where it happened. Every layer reads through it, so its failures are
//! [`UnlayeredError`](crate::error::UnlayeredError)s, which `?` turns into the error of the
//! calling layer.

use crate::error::{ErrorKind, UnlayeredError as Error};

type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Clone, Copy)]
/// A read position in a byte slice that lies at file offset `base`: every read checks the bounds
/// and a failed one reports the absolute offset.
///
/// ```
/// use hktypes::bytes::Cursor;
///
/// let mut c = Cursor::new(&[0, 0, 0, 16, b'T', b'A', b'G', b'0', 1], 0x100);
/// assert_eq!(c.u32_be().unwrap(), 16);
/// assert_eq!(c.bytes(4).unwrap(), b"TAG0");
/// assert_eq!((c.offset(), c.remaining()), (0x108, 1));
/// let e = c.u32_le().unwrap_err(); // three bytes short
/// assert_eq!(e.offset(), Some(0x108));
/// ```
pub struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    /// Absolute file offset of `data[0]`.
    base: u64,
}

impl<'a> Cursor<'a> {
    #[inline]
    /// A cursor at the start of `data`, which lies at file offset `base`.
    pub fn new(data: &'a [u8], base: u64) -> Self {
        Cursor { data, pos: 0, base }
    }

    /// Absolute file offset of the next byte.
    #[inline]
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// File offset of the start of the slice.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// Bytes read so far (the position in the slice).
    pub fn position(&self) -> usize {
        self.pos
    }

    #[inline]
    /// Bytes left to read.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    #[inline]
    /// Whether nothing is left to read.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    #[inline]
    /// The bytes left, without moving.
    pub fn rest(&self) -> &'a [u8] {
        &self.data[self.pos..]
    }

    #[cold]
    #[inline(never)]
    fn eof(&self, need: usize) -> Error {
        Error::at(self.offset(), ErrorKind::Eof { need: need as u64, have: self.remaining() as u64 })
    }

    #[inline]
    /// The next `n` bytes.
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.eof(n));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    #[inline]
    /// The next `N` bytes as an array.
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let s = self.bytes(N)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    #[inline]
    /// The next byte, without moving.
    pub fn peek_u8(&self) -> Result<u8> {
        self.data.get(self.pos).copied().ok_or_else(|| self.eof(1))
    }

    #[inline]
    /// The next byte.
    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.array::<1>()?[0])
    }

    #[inline]
    /// A big-endian `u32` (section headers).
    pub fn u32_be(&mut self) -> Result<u32> {
        Ok(u32::from_be_bytes(self.array()?))
    }

    #[inline]
    /// A little-endian `u32`.
    pub fn u32_le(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    #[inline(always)]
    /// Moves past `n` bytes already known to be there (see [`Cursor::rest`]); past the end, stops
    /// at the end.
    pub fn advance(&mut self, n: usize) {
        self.pos = self.data.len().min(self.pos + n);
    }

    #[inline]
    /// Moves past `n` bytes.
    pub fn skip(&mut self, n: usize) -> Result<()> {
        self.bytes(n).map(|_| ())
    }

    /// A NUL-terminated string (the terminator is consumed, not returned).
    #[inline]
    pub fn cstr(&mut self) -> Result<&'a [u8]> {
        let start = self.offset();
        let rest = self.rest();
        let len = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| Error::at(start, ErrorKind::UnterminatedString))?;
        let s = &rest[..len];
        self.pos += len + 1;
        Ok(s)
    }
}

/// Checks that `count` items of at least `min_size` bytes each can fit in `room` bytes, so that a
/// hostile count never drives an allocation larger than the input.
#[inline]
pub fn check_count(what: &'static str, count: u64, min_size: u64, room: usize, at: u64) -> Result<usize> {
    if count.saturating_mul(min_size.max(1)) > room as u64 {
        return Err(count_too_large(what, count, room, at));
    }
    Ok(count as usize)
}

#[cold]
fn count_too_large(what: &'static str, count: u64, room: usize, at: u64) -> Error {
    Error::at(at, ErrorKind::CountTooLarge { what, count, room: room as u64 })
}
