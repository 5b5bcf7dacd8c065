//! Typed values: the Rust types that Havok members map to, and the traits that read one value from
//! the bytes of an object and write it back (spec: "Values"). Generated classes implement the same
//! traits, so a class reads itself field by field at the offsets of its schema layout.
//!
//! A reference (pointer, array, string) stores an item index in the low four bytes of its slot and
//! zeros after it. Reading resolves array and string contents through [`Items`] (the file's item
//! table); pointers stay handles ([`Ptr`]) because objects are shared and are loaded by the object
//! graph, not by the slot that meets them. Writing is two-phase like the file writer it serves:
//! [`Value::visit_refs`] lists every reference slot so that items can be numbered and laid out
//! first, then [`Value::write`] asks [`Refs`] for the index each slot stores.
//!
//! Every failure here is a [`ValueError`], located by the byte offset of the value and the path of
//! fields that led to it.

mod class;
mod enums;
mod fields;
mod math;
mod prim;
mod refs;

pub use class::{base_key, Class, ClassEntry, ClassFormat, FieldInfo, Object, PackfileClass, TagfileClass, Typed};
pub use enums::{Enum, EnumEntry, EnumTable, Enumeration, Flags, IntStorage, Item, MemberEnum};
pub use fields::{FieldReader, FieldWriter};
pub use math::{Matrix3, Matrix4, QsTransform, Quaternion, Rotation, Transform, Vector4};
pub use prim::{Be, Bool32, Bool8, Half16, Opaque};
pub use refs::{Array, NoItems, Ptr, RelArray, Run, RunValue, SourceIndices, StringPtr, Unknown};

pub use crate::error::ValueError;
use crate::error::{ErrorKind, ValueError as Error};

/// A result of the values layer (what [`Value::read`] and [`Value::write`] and the generated
/// classes return).
pub type Result<T, E = ValueError> = std::result::Result<T, E>;

/// How deep array and string contents may nest while reading, so that an item that refers to
/// itself ends in an error rather than a stack overflow.
pub const MAX_DEPTH: u32 = 64;

/// A value with a fixed-size slot in its owner's bytes.
pub trait Value: Sized + 'static {
    /// Bytes of the slot (the type table's size).
    const SIZE: usize;
    /// Alignment in bytes (low 12 bits of the type table's alignment word).
    const ALIGN: usize;
    /// Whether the type lays out reference slots, so that [`Value::visit_refs`] may report any.
    const HAS_REFS: bool = false;

    /// Reads the value from `r`, which holds exactly [`Self::SIZE`] bytes.
    fn read(r: &Reader<'_>) -> Result<Self>;

    /// Reads the value from the window of `f`, keeping the first error in `f` rather than
    /// returning it; after an error the value is incomplete and must not be used. The default reads
    /// through [`Value::read`]; a generated class reads in place ([`Value::read_members_into`]).
    #[inline]
    fn read_members(f: &mut FieldReader<'_, '_>) -> Self {
        f.whole()
    }

    /// Reads the value as [`Value::read_members`] does, into `out`, and returns `out`
    /// initialised (after an error, with placeholders). A generated class writes each member (and
    /// its base) through a pointer to its place in `out`, so that an object is built in its
    /// allocation rather than moved there from every level of its nesting. The default writes
    /// [`Value::read_members`].
    #[inline]
    fn read_members_into<'o>(f: &mut FieldReader<'_, '_>, out: &'o mut std::mem::MaybeUninit<Self>) -> &'o mut Self {
        out.write(Self::read_members(f))
    }

    /// Writes the value into `w`, which holds exactly [`Self::SIZE`] zero bytes.
    fn write(&self, w: &mut Writer<'_>) -> Result<()>;

    /// Reports every reference slot of the value, in ascending offset; `at` is the offset of the
    /// value within the element being visited.
    fn visit_refs(&self, at: usize, v: &mut dyn Visitor) {
        let _ = (at, v);
    }

    /// Reads `count` consecutive values from the start of `r`. Scalars override this with one
    /// pass over the bytes; the default reads element by element, naming the element in errors.
    fn read_run(r: &Reader<'_>, count: usize) -> Result<Vec<Self>> {
        let mut items = Vec::with_capacity(count);
        for i in 0..count {
            items.push(r.value::<Self>(i * Self::SIZE).map_err(|e| e.in_context(format!("[{i}]")))?);
        }
        Ok(items)
    }

    /// Reads `N` consecutive values from the start of `r` (a C-array member), naming the element
    /// in errors. Scalars override this with one bounds check for the whole array.
    fn read_array<const N: usize>(r: &Reader<'_>) -> Result<[Self; N]> {
        // Built in place: the first error is kept and the remaining elements read as zero bytes.
        let mut first_err = None;
        let v = std::array::from_fn(|i| match first_err {
            Some(_) => fields::zeroed(),
            None => r.value::<Self>(i * Self::SIZE).unwrap_or_else(|e| {
                first_err = Some(e.in_context(format!("[{i}]")));
                fields::zeroed()
            }),
        });
        match first_err {
            None => Ok(v),
            Some(e) => Err(e),
        }
    }

    /// Writes `values` into `out` (exactly their bytes) when they hold no reference slots, and
    /// says whether it did; scalars do, the default leaves it to [`Value::write`] per element.
    fn write_plain(values: &[Self], out: &mut [u8]) -> bool {
        let _ = (values, out);
        false
    }
}

/// What a reference slot refers to, as [`Visitor`] and [`Refs`] see it.
pub enum Target<'a> {
    /// An object item, by handle.
    Object(u32),
    /// The elements of an array.
    Run(&'a dyn RunValue),
    /// The characters of a string; `None` is the null string.
    Str(Option<&'a str>),
}

/// Receives the reference slots of a value (see [`Value::visit_refs`]).
pub trait Visitor {
    /// A reference slot at `at` (offset within the visited element).
    fn reference(&mut self, at: usize, target: Target<'_>);
}

impl<F: FnMut(usize, Target<'_>)> Visitor for F {
    fn reference(&mut self, at: usize, target: Target<'_>) {
        self(at, target)
    }
}

/// The item table a reader resolves array and string contents from.
pub trait Items {
    /// The run (kind `0x20` item) with index `index` (never 0).
    fn run(&self, index: u32) -> Result<Run<'_>>;
}

/// Chooses the item index that a reference slot stores when it is written.
pub trait Refs {
    /// `slot` is the absolute offset of the slot being written.
    fn index(&mut self, slot: u64, target: Target<'_>) -> Result<u32>;
}

/// The bytes of one value: a bounds-checked window that knows its absolute file offset.
#[derive(Clone, Copy)]
pub struct Reader<'a> {
    data: &'a [u8],
    base: u64,
    items: &'a dyn Items,
    depth: u32,
}

impl<'a> Reader<'a> {
    /// A window over `data` (at file offset `base`) whose reference slots resolve through `items`.
    pub fn new(data: &'a [u8], base: u64, items: &'a dyn Items) -> Self {
        Reader { data, base, items, depth: 0 }
    }

    #[inline]
    /// The window's bytes.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// Absolute file offset of the first byte.
    #[inline]
    pub fn base(&self) -> u64 {
        self.base
    }

    #[inline]
    /// The items that array and string slots resolve through.
    pub fn items(&self) -> &'a dyn Items {
        self.items
    }

    #[inline]
    /// How many runs deep this window is (see [`MAX_DEPTH`]).
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The window `offset..offset + len`.
    #[inline]
    pub fn sub(&self, offset: usize, len: usize) -> Result<Reader<'a>> {
        let end = offset.checked_add(len).filter(|&e| e <= self.data.len());
        match end {
            Some(end) => Ok(Reader { data: &self.data[offset..end], base: self.base + offset as u64, ..*self }),
            None => Err(Error::at(
                self.base + offset.min(self.data.len()) as u64,
                ErrorKind::Eof { need: len as u64, have: self.data.len().saturating_sub(offset) as u64 },
            )),
        }
    }

    /// A window over other bytes (an item's run), one level deeper.
    #[inline]
    pub fn nested(&self, data: &'a [u8], base: u64) -> Result<Reader<'a>> {
        if self.depth >= MAX_DEPTH {
            return Err(Error::at(base, ErrorKind::Cycle(format!("nesting of arrays deeper than {MAX_DEPTH}"))));
        }
        Ok(Reader { data, base, items: self.items, depth: self.depth + 1 })
    }

    /// Reads a `T` at `offset`, naming `name` in the error path.
    #[inline]
    pub fn field<T: Value>(&self, offset: usize, name: &'static str) -> Result<T> {
        self.sub(offset, T::SIZE).and_then(|r| T::read(&r)).map_err(|e| e.in_context(name))
    }

    /// Reads a `T` at `offset` without naming it (a base class, an array element).
    #[inline]
    pub fn value<T: Value>(&self, offset: usize) -> Result<T> {
        self.sub(offset, T::SIZE).and_then(|r| T::read(&r))
    }

    #[inline]
    /// `N` bytes at `offset`.
    pub fn bytes<const N: usize>(&self, offset: usize) -> Result<[u8; N]> {
        let r = self.sub(offset, N)?;
        let mut a = [0u8; N];
        a.copy_from_slice(r.data);
        Ok(a)
    }

    #[inline]
    /// A little-endian `u32` at `offset`.
    pub fn u32_le(&self, offset: usize) -> Result<u32> {
        self.bytes::<4>(offset).map(u32::from_le_bytes)
    }

    /// Checks that `offset..` of the window is zero: the unused part of a reference slot.
    #[inline]
    pub fn expect_zero(&self, offset: usize) -> Result<()> {
        match self.data.get(offset..).unwrap_or(&[]).iter().position(|&b| b != 0) {
            None => Ok(()),
            Some(p) => Err(Error::invalid(
                self.base + (offset + p) as u64,
                "nonzero byte after the item index of a reference slot",
            )),
        }
    }
}

/// The zeroed bytes one value is written into, with the [`Refs`] that choose item indices.
pub struct Writer<'a> {
    out: &'a mut [u8],
    base: u64,
    refs: &'a mut dyn Refs,
}

impl<'a> Writer<'a> {
    /// A writer into `out` (zeroed, at file offset `base`) whose slots take their indices from `refs`.
    pub fn new(out: &'a mut [u8], base: u64, refs: &'a mut dyn Refs) -> Self {
        Writer { out, base, refs }
    }

    /// Absolute file offset of the first byte.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// The bytes to write into.
    pub fn out(&mut self) -> &mut [u8] {
        self.out
    }

    #[inline]
    /// The window `offset..offset + len`.
    pub fn sub(&mut self, offset: usize, len: usize) -> Result<Writer<'_>> {
        let have = self.out.len();
        match offset.checked_add(len).filter(|&e| e <= have) {
            Some(end) => Ok(Writer { out: &mut self.out[offset..end], base: self.base + offset as u64, refs: &mut *self.refs }),
            None => Err(Error::at(
                self.base + offset.min(have) as u64,
                ErrorKind::Eof { need: len as u64, have: have.saturating_sub(offset) as u64 },
            )),
        }
    }

    /// Writes `v` at `offset`, naming `name` in the error path.
    #[inline]
    pub fn field<T: Value>(&mut self, offset: usize, name: &'static str, v: &T) -> Result<()> {
        self.sub(offset, T::SIZE).and_then(|mut w| v.write(&mut w)).map_err(|e| e.in_context(name))
    }

    #[inline]
    /// Writes `v` at `offset` without naming it (a base class, an array element).
    pub fn value<T: Value>(&mut self, offset: usize, v: &T) -> Result<()> {
        self.sub(offset, T::SIZE).and_then(|mut w| v.write(&mut w))
    }

    #[inline]
    /// Copies `bytes` to `offset`.
    pub fn put(&mut self, offset: usize, bytes: &[u8]) -> Result<()> {
        let w = self.sub(offset, bytes.len())?;
        w.out.copy_from_slice(bytes);
        Ok(())
    }

    /// Asks [`Refs`] for the index of the reference slot at the start of this window and stores it
    /// in the low four bytes.
    pub fn reference(&mut self, target: Target<'_>) -> Result<()> {
        let index = self.refs.index(self.base, target)?;
        self.put(0, &index.to_le_bytes())
    }
}

/// Reads a whole value from `data` at absolute offset `base`, resolving contents through `items`.
pub fn read_value<T: Value>(data: &[u8], base: u64, items: &dyn Items) -> Result<T> {
    Reader::new(data, base, items).value(0)
}

/// Writes `v` into a fresh buffer of [`Value::SIZE`] bytes placed at absolute offset `base`.
pub fn write_value<T: Value>(v: &T, base: u64, refs: &mut dyn Refs) -> Result<Vec<u8>> {
    let mut out = vec![0u8; T::SIZE];
    v.write(&mut Writer::new(&mut out, base, refs))?;
    Ok(out)
}

#[cfg(test)]
mod tests;
