//! A bounds-checked cursor over a byte slice that knows its absolute position in the file, so every
//! read failure can say where it happened.

use crate::error::{Error, ErrorKind, Result};

#[derive(Clone, Copy)]
pub struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    /// Absolute file offset of `data[0]`.
    base: u64,
}

impl<'a> Cursor<'a> {
    #[inline]
    pub fn new(data: &'a [u8], base: u64) -> Self {
        Cursor { data, pos: 0, base }
    }

    /// Absolute file offset of the next byte.
    #[inline]
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    pub fn base(&self) -> u64 {
        self.base
    }

    pub fn position(&self) -> usize {
        self.pos
    }

    #[inline]
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    #[inline]
    pub fn rest(&self) -> &'a [u8] {
        &self.data[self.pos..]
    }

    #[cold]
    #[inline(never)]
    fn eof(&self, need: usize) -> Error {
        Error::at(self.offset(), ErrorKind::Eof { need: need as u64, have: self.remaining() as u64 })
    }

    #[inline]
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.eof(n));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    #[inline]
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let s = self.bytes(N)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    #[inline]
    pub fn peek_u8(&self) -> Result<u8> {
        self.data.get(self.pos).copied().ok_or_else(|| self.eof(1))
    }

    #[inline]
    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.array::<1>()?[0])
    }

    #[inline]
    pub fn u32_be(&mut self) -> Result<u32> {
        Ok(u32::from_be_bytes(self.array()?))
    }

    #[inline]
    pub fn u32_le(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    #[inline]
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
pub fn check_count(what: &'static str, count: u64, min_size: u64, room: usize, at: u64) -> Result<usize> {
    if count.saturating_mul(min_size.max(1)) > room as u64 {
        return Err(Error::at(at, ErrorKind::CountTooLarge { what, count, room: room as u64 }));
    }
    Ok(count as usize)
}
