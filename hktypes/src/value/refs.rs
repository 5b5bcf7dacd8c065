//! Reference slots (spec: "Values", "Item table"): pointers, variable arrays and strings store an
//! item index in their low four bytes and zeros in the rest of the slot (8 bytes for a pointer or
//! string, 16 for `hkArray`, 4 for `hkRelArray`). Arrays and strings read their contents from the
//! run item the index names; index 0 is a null pointer, an empty array, a null string. An empty
//! string is a run holding only its terminator, so it stays apart from the null string.

use super::{Items, Reader, Refs, Target, Value, Visitor, Writer};
use super::{Result, ValueError as Error};
use crate::error::ErrorKind;
use crate::shared::{Handle, Ref};
use std::fmt;
use std::marker::PhantomData;

/// The run an array or string slot refers to: the bytes of its elements and their count.
#[derive(Clone, Copy, Debug)]
pub struct Run<'a> {
    /// The item's bytes from its first element on (at least `count` elements' worth).
    pub data: &'a [u8],
    /// Absolute file offset of `data[0]`.
    pub base: u64,
    /// Number of elements.
    pub count: u32,
}

/// Items for reading a value on its own: every nonzero array or string index is an error.
pub struct NoItems;

impl Items for NoItems {
    fn run(&self, index: u32) -> Result<Run<'_>> {
        Err(Error::new(ErrorKind::IndexOutOfRange { what: "item", index: index as u64, count: 0 }))
    }
}

/// Refs that store, for every slot, the index found at the same offset in `data` (the bytes the
/// value was read from): writing back a value read from a file reproduces its slots exactly.
pub struct SourceIndices<'a> {
    /// The bytes the value was read from.
    pub data: &'a [u8],
    /// Absolute offset of `data[0]`.
    pub base: u64,
}

impl Refs for SourceIndices<'_> {
    fn index(&mut self, slot: u64, _: Target<'_>) -> Result<u32> {
        let at = slot.checked_sub(self.base).and_then(|p| usize::try_from(p).ok());
        let bytes = at.and_then(|p| self.data.get(p..p.checked_add(4)?));
        match bytes {
            Some(b) => Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            None => Err(Error::at(slot, ErrorKind::Eof { need: 4, have: 0 })),
        }
    }
}

/// A type a pointer names but the generated code has no Rust type for (`void`, opaque types,
/// declarations).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unknown {}

/// A typed pointer to an object (`T*`, `hkRefPtr<T>`, `hkViewPtr<T>`), in either format: where
/// it points ([`Ref`]), with the class the schema declares. A tagfile pointer is null or names an
/// object by its [`Handle`] (its item index); a packfile pointer may also point inside an object
/// or into another section, as its fixups say. A pointer to a base class may point at an object
/// of a derived class (a document's `get` gives the derived type). Pointers are shared freely: two
/// slots naming one object hold equal pointers.
pub struct Ptr<T: ?Sized> {
    /// Where the pointer points.
    pub target: Ref,
    t: PhantomData<fn() -> T>,
}

impl<T: ?Sized> Ptr<T> {
    /// The null pointer.
    pub const NULL: Self = Ptr { target: Ref::Null, t: PhantomData };

    /// A pointer to `target`.
    pub const fn new(target: Ref) -> Self {
        Ptr { target, t: PhantomData }
    }

    /// A pointer to the start of object `h`.
    pub const fn to(h: Handle) -> Self {
        Self::new(Ref::Object(h))
    }

    /// The object pointed at, when the pointer names the start of an object.
    pub fn handle(&self) -> Option<Handle> {
        match self.target {
            Ref::Object(h) => Some(h),
            _ => None,
        }
    }

    /// Whether this is the null pointer.
    pub fn is_null(&self) -> bool {
        self.target == Ref::Null
    }
}

phantom_handle_impls!(Ptr, target);
impl<T: ?Sized> fmt::Debug for Ptr<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.target {
            Ref::Null => f.write_str("Ptr(null)"),
            Ref::Object(h) => write!(f, "Ptr(#{})", h.0),
            t => write!(f, "Ptr({t:?})"),
        }
    }
}

/// A tagfile pointer slot: the item index in the low four bytes (0: null), zeros after it.
impl<T: ?Sized + 'static> Value for Ptr<T> {
    const SIZE: usize = 8;
    const ALIGN: usize = 8;
    const HAS_REFS: bool = true;
    fn read(r: &Reader<'_>) -> Result<Self> {
        let index = r.u32_le(0)?;
        r.expect_zero(4)?;
        Ok(if index == 0 { Ptr::NULL } else { Ptr::to(Handle(index)) })
    }
    fn write(&self, w: &mut Writer<'_>) -> Result<()> {
        match self.target {
            Ref::Null => w.reference(Target::Object(0)),
            Ref::Object(h) => w.reference(Target::Object(h.0)),
            t => Err(Error::invalid(w.base(), format!("a tagfile pointer names an object or nothing, not {t:?}"))),
        }
    }
    fn visit_refs(&self, at: usize, v: &mut dyn Visitor) {
        if let Ref::Object(h) = self.target {
            v.reference(at, Target::Object(h.0));
        }
    }
}

/// The elements of an array, type-erased for the file writer that lays them out as a run.
pub trait RunValue {
    /// Number of elements.
    fn len(&self) -> usize;
    /// Whether there are none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Size of one element in bytes.
    fn elem_size(&self) -> usize;
    /// Alignment of an element in bytes.
    fn elem_align(&self) -> usize;
    /// Whether an element may hold references ([`Value::HAS_REFS`] of the element type).
    fn holds_refs(&self) -> bool;
    /// Writes element `i` into `w` (exactly one element's bytes).
    fn write_elem(&self, i: usize, w: &mut Writer<'_>) -> Result<()>;
    /// Calls `v` for every reference slot of element `i`, at offsets from `at`.
    fn visit_elem(&self, i: usize, at: usize, v: &mut dyn Visitor);
    /// Writes every element into `out` at once when they hold no references (see
    /// [`Value::write_plain`]); says whether it did.
    fn write_plain(&self, out: &mut [u8]) -> bool {
        let _ = out;
        false
    }
}

impl<T: Value> RunValue for Vec<T> {
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn elem_size(&self) -> usize {
        T::SIZE
    }
    fn elem_align(&self) -> usize {
        T::ALIGN
    }
    fn holds_refs(&self) -> bool {
        T::HAS_REFS
    }
    fn write_elem(&self, i: usize, w: &mut Writer<'_>) -> Result<()> {
        match self.get(i) {
            Some(x) => x.write(w),
            None => Err(Error::new(ErrorKind::IndexOutOfRange { what: "element", index: i as u64, count: self.len() as u64 })),
        }
    }
    fn visit_elem(&self, i: usize, at: usize, v: &mut dyn Visitor) {
        if let Some(x) = self.get(i) {
            x.visit_refs(at, v);
        }
    }
    fn write_plain(&self, out: &mut [u8]) -> bool {
        T::write_plain(self, out)
    }
}

/// A variable array (`hkArray<T>` with `SLOT` 16, `hkRelArray<T>` with 4, `hkPropertyBag` with 8):
/// its elements, read from the run its slot names. Empty is index 0.
#[derive(Clone, PartialEq)]
pub struct Array<T, const SLOT: usize = 16> {
    /// The elements.
    pub items: Vec<T>,
}

/// `hkRelArray<T>`: in a tagfile a 4-byte slot holding an item index, like `hkArray`.
pub type RelArray<T> = Array<T, 4>;

impl<T, const SLOT: usize> Default for Array<T, SLOT> {
    fn default() -> Self {
        Array { items: Vec::new() }
    }
}

impl<T: fmt::Debug, const SLOT: usize> fmt::Debug for Array<T, SLOT> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.items.fmt(f)
    }
}

impl<T, const SLOT: usize> std::ops::Deref for Array<T, SLOT> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.items
    }
}

impl<T, const SLOT: usize> std::ops::DerefMut for Array<T, SLOT> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.items
    }
}

impl<T, const SLOT: usize> From<Vec<T>> for Array<T, SLOT> {
    fn from(items: Vec<T>) -> Self {
        Array { items }
    }
}

impl<T: Value, const SLOT: usize> Value for Array<T, SLOT> {
    const SIZE: usize = SLOT;
    const ALIGN: usize = if SLOT >= 8 { 8 } else { 4 };
    const HAS_REFS: bool = true;
    fn read(r: &Reader<'_>) -> Result<Self> {
        let index = r.u32_le(0)?;
        r.expect_zero(4)?;
        if index == 0 {
            return Ok(Array::default());
        }
        let run = r.items().run(index).map_err(|e| e.with_offset(r.base()))?;
        let count = run.count as usize;
        let room = run.data.len();
        // A zero-sized element still counts against the run's bytes, so that a hostile count
        // cannot drive a long loop.
        let fits = count.checked_mul(T::SIZE.max(1)).is_some_and(|n| n <= room);
        if !fits {
            return Err(Error::at(
                run.base,
                ErrorKind::CountTooLarge { what: "array elements", count: count as u64, room: room as u64 },
            ));
        }
        let elems = r.nested(run.data, run.base)?;
        Ok(Array { items: T::read_run(&elems, count)? })
    }
    fn write(&self, w: &mut Writer<'_>) -> Result<()> {
        if self.items.is_empty() {
            return Ok(());
        }
        w.reference(Target::Run(&self.items))
    }
    fn visit_refs(&self, at: usize, v: &mut dyn Visitor) {
        if !self.items.is_empty() {
            v.reference(at, Target::Run(&self.items));
        }
    }
}

/// A string slot (`hkStringPtr`, `char*`, `const char*`): `None` is the null string (index 0),
/// `Some("")` the empty string (a run holding only the terminator). The text is a
/// [`compact_str::CompactString`], which holds strings of up to 24 bytes (nearly every bone, track
/// and object name) without an allocation of their own.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct StringPtr(pub Option<compact_str::CompactString>);

impl StringPtr {
    /// The string, `None` for the null string.
    pub fn as_deref(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

impl From<&str> for StringPtr {
    fn from(s: &str) -> Self {
        StringPtr(Some(s.into()))
    }
}

/// `bytes` as text, when they are UTF-8. Havok's strings are nearly all ASCII, which a word at a
/// time tells apart faster than a full UTF-8 check does for strings this short.
#[inline]
fn utf8(bytes: &[u8]) -> Option<&str> {
    if bytes.is_ascii() {
        // SAFETY: ASCII bytes are UTF-8.
        Some(unsafe { std::str::from_utf8_unchecked(bytes) })
    } else {
        std::str::from_utf8(bytes).ok()
    }
}

impl Value for StringPtr {
    const SIZE: usize = 8;
    const ALIGN: usize = 8;
    const HAS_REFS: bool = true;
    fn read(r: &Reader<'_>) -> Result<Self> {
        let index = r.u32_le(0)?;
        r.expect_zero(4)?;
        if index == 0 {
            return Ok(StringPtr(None));
        }
        let run = r.items().run(index).map_err(|e| e.with_offset(r.base()))?;
        let chars = run
            .data
            .get(..run.count as usize)
            .ok_or_else(|| Error::at(run.base, ErrorKind::Eof { need: run.count as u64, have: run.data.len() as u64 }))?;
        let Some((&0, text)) = chars.split_last() else {
            return Err(Error::at(run.base, ErrorKind::UnterminatedString));
        };
        let text = utf8(text).ok_or_else(|| Error::at(run.base, ErrorKind::BadUtf8))?;
        Ok(StringPtr(Some(text.into())))
    }
    fn write(&self, w: &mut Writer<'_>) -> Result<()> {
        if self.0.is_none() {
            return Ok(());
        }
        w.reference(Target::Str(self.0.as_deref()))
    }
    fn visit_refs(&self, at: usize, v: &mut dyn Visitor) {
        if self.0.is_some() {
            v.reference(at, Target::Str(self.0.as_deref()));
        }
    }
}
