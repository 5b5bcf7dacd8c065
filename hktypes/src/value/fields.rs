//! Member-by-member reading and writing for generated classes. A class reads its members into
//! one struct literal and writes them in a row; these helpers keep the first error instead of
//! returning at each member, so that the generated code needs no `?` (and no early-return drop
//! path) per member, which is most of what its compile time was.

use super::{NoItems, Reader, Value, Writer};
use super::{Result, ValueError as Error};

/// Reads the members of one object (see [`Reader::fields`]).
pub struct FieldReader<'r, 'a> {
    r: &'r Reader<'a>,
    err: Option<Error>,
}

/// The value a member takes after an error, never seen by callers: the value of all-zero bytes
/// (null references, empty arrays, zero numbers), which every value type reads.
pub(crate) fn zeroed<T: Value>() -> T {
    let zeros = vec![0u8; T::SIZE];
    match T::read(&Reader::new(&zeros, 0, &NoItems)) {
        Ok(v) => v,
        Err(e) => panic!("a value of {} bytes does not read from zero bytes: {e}", T::SIZE),
    }
}

impl<'r, 'a> FieldReader<'r, 'a> {
    /// Member `name` of type `T` at `offset`; after an error, a placeholder.
    #[inline]
    pub fn get<T: Value>(&mut self, offset: usize, name: &'static str) -> T {
        self.member(offset, Some(name))
    }

    /// The base-class part at offset 0 (not named in errors).
    #[inline]
    pub fn base<T: Value>(&mut self) -> T {
        self.member(0, None)
    }

    /// The whole window as one `T`, through [`Value::read`] (what [`Value::read_members`] does
    /// for a type that reads no members of its own).
    #[inline]
    pub fn whole<T: Value>(&mut self) -> T {
        if self.err.is_none() {
            match T::read(self.r) {
                Ok(v) => return v,
                Err(e) => self.err = Some(e),
            }
        }
        zeroed()
    }

    #[inline]
    fn member<T: Value>(&mut self, offset: usize, name: Option<&'static str>) -> T {
        if self.err.is_none() {
            match self.r.sub(offset, T::SIZE) {
                Ok(window) => {
                    let mut inner = FieldReader { r: &window, err: None };
                    let v = T::read_members(&mut inner);
                    // After an error the value is incomplete, and never used: the error is.
                    if let Some(e) = inner.err {
                        self.err = Some(name_error(e, name));
                    }
                    return v;
                }
                Err(e) => self.err = Some(name_error(e, name)),
            }
        }
        zeroed()
    }

    /// `value`, or the first error met while reading its members.
    pub fn finish<T>(self, value: T) -> Result<T> {
        match self.err {
            None => Ok(value),
            Some(e) => Err(e),
        }
    }
}

#[cold]
fn name_error(e: Error, name: Option<&'static str>) -> Error {
    match name {
        Some(n) => e.in_context(n),
        None => e,
    }
}

/// Writes the members of one object (see [`Writer::fields`]).
pub struct FieldWriter<'w, 'a> {
    w: &'w mut Writer<'a>,
    err: Option<Error>,
}

impl FieldWriter<'_, '_> {
    /// Writes member `name` at `offset`; nothing after an error.
    pub fn put<T: Value>(&mut self, offset: usize, name: &'static str, v: &T) {
        if self.err.is_none() {
            if let Err(e) = self.w.field(offset, name, v) {
                self.err = Some(e);
            }
        }
    }

    /// Writes the base-class part at offset 0.
    pub fn base<T: Value>(&mut self, v: &T) {
        if self.err.is_none() {
            if let Err(e) = self.w.value(0, v) {
                self.err = Some(e);
            }
        }
    }

    /// The first error met, if any.
    pub fn finish(self) -> Result<()> {
        match self.err {
            None => Ok(()),
            Some(e) => Err(e),
        }
    }
}

impl<'a> Reader<'a> {
    /// A reader of the members of the value in this window.
    pub fn fields(&self) -> FieldReader<'_, 'a> {
        FieldReader { r: self, err: None }
    }
}

impl<'a> Writer<'a> {
    /// A writer of the members of the value in this window.
    pub fn fields(&mut self) -> FieldWriter<'_, 'a> {
        FieldWriter { w: self, err: None }
    }
}
