//! Member-by-member reading and writing for generated classes. A class reads each member (and its
//! base) into its place in the object being built ([`Value::read_members_into`]) and writes them in
//! a row; these helpers keep the first error instead of returning at each member, so that the
//! generated code needs no `?` (and no early-return drop path) per member, which is most of what its
//! compile time was.
//!
//! The in-place read is one of the two `unsafe` parts of the runtime (the other takes ASCII string
//! bytes as text without checking them again, in `refs.rs`): a generated class writes every field
//! of a `MaybeUninit` of itself through a raw pointer, and [`fill`] checks that what a
//! `read_members_into` hands back is the place it was given before that place is taken as
//! initialised.

use super::{NoItems, Reader, Value, Writer};
use super::{Result, ValueError as Error};
use std::mem::MaybeUninit;

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
    /// Member `name` of type `T` at `offset`; after an error, a placeholder. The safe form of
    /// [`FieldReader::get_into`], for a `read_members` written by hand.
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
        let mut v = MaybeUninit::<T>::uninit();
        self.member_into(offset, name, &mut v);
        // SAFETY: `member_into` initialises its place on every path.
        unsafe { v.assume_init() }
    }

    /// Member `name` of type `T` at `offset`, read where it is kept (see
    /// [`Value::read_members_into`]); after an error, a placeholder. `out` is initialised on
    /// return.
    ///
    /// # Safety
    /// `out` is valid for writes of a `T`, aligned, and not otherwise accessed during the call;
    /// what it held before is overwritten, not dropped.
    #[inline]
    pub unsafe fn get_into<T: Value>(&mut self, offset: usize, name: &'static str, out: *mut T) {
        // SAFETY: the caller's promise; `MaybeUninit<T>` has the layout of `T`.
        self.member_into(offset, Some(name), unsafe { &mut *(out as *mut MaybeUninit<T>) });
    }

    /// The base-class part at offset 0, read where it is kept.
    ///
    /// # Safety
    /// As for [`FieldReader::get_into`].
    #[inline]
    pub unsafe fn base_into<T: Value>(&mut self, out: *mut T) {
        // SAFETY: the caller's promise; `MaybeUninit<T>` has the layout of `T`.
        self.member_into(0, None, unsafe { &mut *(out as *mut MaybeUninit<T>) });
    }

    /// `T` read member by member into a local and returned (what [`Value::read_members`] is for
    /// a class that reads its members in place).
    #[inline]
    pub fn take<T: Value>(&mut self) -> T {
        let mut v = MaybeUninit::<T>::uninit();
        fill(self, &mut v);
        // SAFETY: `fill` initialised `v`.
        unsafe { v.assume_init() }
    }

    #[inline]
    fn member_into<T: Value>(&mut self, offset: usize, name: Option<&'static str>, out: &mut MaybeUninit<T>) {
        if self.err.is_none() {
            match self.r.sub(offset, T::SIZE) {
                Ok(window) => {
                    let mut inner = FieldReader { r: &window, err: None };
                    fill(&mut inner, out);
                    // After an error the value is incomplete, and never used: the error is.
                    if let Some(e) = inner.err {
                        self.err = Some(name_error(e, name));
                    }
                    return;
                }
                Err(e) => self.err = Some(name_error(e, name)),
            }
        }
        // After an error, the value of all-zero bytes (see `zeroed`), read in place by the same
        // `fill` so that no other function is instantiated per member type.
        let zeros = vec![0u8; T::SIZE];
        let window = Reader::new(&zeros, 0, &NoItems);
        let mut inner = FieldReader { r: &window, err: None };
        fill(&mut inner, out);
        if let Some(e) = inner.err {
            zero_bytes_failed(T::SIZE, e);
        }
    }

    /// `value`, or the first error met while reading its members.
    pub fn finish<T>(self, value: T) -> Result<T> {
        match self.err {
            None => Ok(value),
            Some(e) => Err(e),
        }
    }
}

/// Reads `T` into `out` through [`Value::read_members_into`], and makes sure that what it returned
/// is `out` initialised: the callers take `out` as initialised afterwards.
///
/// It is instantiated for every class, so it uses no generic helper of its own (`as_ptr`,
/// `ptr::eq`, `type_name`): in a debug build each would be one more function per class.
#[inline]
pub(crate) fn fill<T: Value>(f: &mut FieldReader<'_, '_>, out: &mut MaybeUninit<T>) {
    let at = out as *mut MaybeUninit<T> as usize;
    let filled = T::read_members_into(f, out) as *mut T as usize;
    if filled != at {
        wrong_place();
    }
}

#[cold]
#[inline(never)]
fn zero_bytes_failed(size: usize, e: Error) -> ! {
    panic!("a value of {size} bytes does not read from zero bytes: {e}")
}

#[cold]
#[inline(never)]
fn wrong_place() -> ! {
    panic!("a read_members_into returned a place other than its own")
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
        // A `match` rather than `Writer::field`'s closures: this is instantiated for every member
        // type, and in a debug build each closure and combinator is one more function per type.
        if self.err.is_none() {
            let done = match self.w.sub(offset, T::SIZE) {
                Ok(mut w) => v.write(&mut w),
                Err(e) => Err(e),
            };
            if let Err(e) = done {
                self.err = Some(name_error(e, Some(name)));
            }
        }
    }

    /// Writes the base-class part at offset 0.
    pub fn base<T: Value>(&mut self, v: &T) {
        if self.err.is_none() {
            let done = match self.w.sub(0, T::SIZE) {
                Ok(mut w) => v.write(&mut w),
                Err(e) => Err(e),
            };
            if let Err(e) = done {
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
