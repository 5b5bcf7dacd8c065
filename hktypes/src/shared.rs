//! The words both formats share, under both of them: a [`Handle`] names an object, [`Counts`]
//! counts a document's objects, a [`Ref`] says where a pointer points, and a [`MemberValue`] (with its
//! [`MemberArray`]) is one member value of an object read through a class description (a packfile
//! object's members; the packfile half of a generated class converts from and to them).
//!
//! Nothing here imports the formats: `hktypes::tagfile`, `hktypes::packfile`, `hktypes::value`
//! and the front page's `Document` import these words, never the other way round. The crate
//! root re-exports [`Handle`] and [`Counts`]; `packfile::objects` re-exports the rest under their
//! old paths.

use std::borrow::Cow;

/// An object of a document: a tagfile object's item index in the file read (objects added
/// later get new ones), or a packfile object's index in `__data__`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Handle(pub u32);

/// How many objects a document holds, by how they were read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Objects read through a generated class (a tagfile) or a class description (a packfile).
    pub typed: usize,
    /// Objects no class matched, kept as their bytes and written back as read.
    pub untyped: usize,
    /// Of the untyped ones, those a class read but whose values do not write back to their bytes
    /// (packfiles only; a tagfile object is untyped only when no class matches).
    pub demoted: usize,
}

/// Where a pointer points. A tagfile pointer is [`Ref::Null`] or a [`Ref::Object`]; a packfile
/// pointer may also point inside an object or into another section, as its fixups say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ref {
    /// No fixup patches the slot (a null pointer).
    Null,
    /// The start of an object (of a packfile's `__data__`).
    Object(Handle),
    /// `offset` bytes into an object of `__data__`.
    Inside(Handle, u32),
    /// A place in another section (a class in `__types__`, a name in `__classnames__`).
    Section(u32, u32),
}

/// One member value of an object read through a class description (a packfile object's
/// members, `packfile::objects`).
#[derive(Clone, Debug, PartialEq)]
pub enum MemberValue {
    /// `TYPE_VOID`: no bytes.
    Void,
    /// A `bool` byte as stored.
    Bool(u8),
    /// A signed integer (`TYPE_CHAR`, `TYPE_INT8` to `TYPE_INT64`).
    Int(i64),
    /// An unsigned integer (`TYPE_UINT8` to `TYPE_UINT64`, `TYPE_ULONG`).
    UInt(u64),
    /// `TYPE_REAL`.
    Real(f32),
    /// `TYPE_HALF`: the stored 16 bits.
    Half(u16),
    /// `hkVector4` and `hkQuaternion`.
    Vec4([f32; 4]),
    /// Matrices and transforms (12 or 16 floats) in storage order.
    Floats(Vec<f32>),
    /// A pointer (or a function pointer).
    Ptr(Ref),
    /// A C string or `hkStringPtr` (`None`: null), without its NUL.
    Str(Option<Vec<u8>>),
    /// `hkArray` and simple arrays.
    Array(MemberArray),
    /// An embedded struct: its members, the ancestors' first.
    Struct(Vec<MemberValue>),
    /// A C array of a member's values.
    CArray(Vec<MemberValue>),
    /// `hkVariant`: the object and its class.
    Variant(Ref, Ref),
    /// `hkRelArray`: the elements, which the object holds after its members (the stored 16-bit
    /// offset from the member to them is laid out again when writing).
    RelArray(Vec<MemberValue>),
    /// The bytes of a class's part of an object that none of its members describes (a class
    /// with hidden members, `packfile::layout::Class::hidden_members`), in offset order: kept so
    /// that they write back. It follows the class's own members in the object's values; its
    /// member name is `packfile::objects::HIDDEN`.
    Opaque(Vec<u8>),
}

impl MemberValue {
    /// A short name of the variant, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            MemberValue::Void => "void",
            MemberValue::Bool(_) => "bool",
            MemberValue::Int(_) => "int",
            MemberValue::UInt(_) => "uint",
            MemberValue::Real(_) => "real",
            MemberValue::Half(_) => "half",
            MemberValue::Vec4(_) => "vector",
            MemberValue::Floats(_) => "floats",
            MemberValue::Ptr(_) => "pointer",
            MemberValue::Str(_) => "string",
            MemberValue::Array(_) => "array",
            MemberValue::Struct(_) => "struct",
            MemberValue::CArray(_) => "c array",
            MemberValue::Variant(..) => "variant",
            MemberValue::RelArray(_) => "relative array",
            MemberValue::Opaque(_) => "hidden bytes",
        }
    }
}

/// Havok's `DONT_DEALLOCATE` flag of an `hkArray`'s capacity word: the flags of the stored arrays
/// of every SDK's files but 5.5's and 6.6's.
pub const DONT_DEALLOCATE: u32 = 0x8000_0000;

/// An array's elements and the words stored beside them.
#[derive(Clone, Debug, PartialEq)]
pub struct MemberArray {
    /// The elements (compared by value, whatever their form: see [`Items`]).
    pub items: Items,
    /// `hkArray`'s capacity-and-flags word as stored: `len | flags` in stock files, the flags
    /// being the document's `array_flags` (0 for a simple array, which has none).
    pub capacity: u32,
}

impl MemberArray {
    /// An array of `items` with the capacity word `len | 0x80000000` (the flags of every SDK's
    /// files but 5.5's and 6.6's, see `packfile::objects::stock_array_flags`); a document gives
    /// the arrays of values it stores for a struct its own `array_flags`.
    pub fn new(items: Vec<MemberValue>) -> Self {
        Self::with_flags(items, DONT_DEALLOCATE)
    }

    /// An array of `items` with the capacity word `len | flags`.
    pub fn with_flags(items: Vec<MemberValue>, flags: u32) -> Self {
        Self::from_items(Items::Values(items), flags)
    }

    /// An array of `items` in any form with the capacity word `len | flags`.
    pub fn from_items(items: Items, flags: u32) -> Self {
        let capacity = items.len() as u32 | flags;
        MemberArray { items, capacity }
    }

    /// An array of signed integers (stored typed) with the capacity word `len | flags`.
    pub fn of_ints(items: Vec<i64>, flags: u32) -> Self {
        Self::from_items(Items::Ints(items), flags)
    }

    /// An array of unsigned integers (stored typed) with the capacity word `len | flags`.
    pub fn of_uints(items: Vec<u64>, flags: u32) -> Self {
        Self::from_items(Items::UInts(items), flags)
    }

    /// An array of reals (stored typed) with the capacity word `len | flags`.
    pub fn of_reals(items: Vec<f32>, flags: u32) -> Self {
        Self::from_items(Items::Reals(items), flags)
    }

    /// An array of vectors or quaternions (stored typed) with the capacity word `len | flags`.
    pub fn of_vec4s(items: Vec<[f32; 4]>, flags: u32) -> Self {
        Self::from_items(Items::Vec4s(items), flags)
    }

    /// How many elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Element `i` ([`Items::get`]).
    #[inline]
    pub fn get(&self, i: usize) -> Option<Cow<'_, MemberValue>> {
        self.items.get(i)
    }

    /// The elements in order ([`Items::iter`]).
    #[inline]
    pub fn iter(&self) -> ItemsIter<'_> {
        self.items.iter()
    }

    /// The elements as values ([`Items::into_values`]).
    pub fn into_values(self) -> Vec<MemberValue> {
        self.items.into_values()
    }

    /// The elements as values to edit ([`Items::values_mut`]: a typed form becomes values).
    pub fn values_mut(&mut self) -> &mut Vec<MemberValue> {
        self.items.values_mut()
    }

    /// The elements, where stored as values.
    pub fn values(&self) -> Option<&[MemberValue]> {
        self.items.values()
    }

    /// The elements, where stored as signed integers.
    pub fn ints(&self) -> Option<&[i64]> {
        self.items.ints()
    }

    /// The elements, where stored as unsigned integers.
    pub fn uints(&self) -> Option<&[u64]> {
        self.items.uints()
    }

    /// The elements, where stored as reals.
    pub fn reals(&self) -> Option<&[f32]> {
        self.items.reals()
    }

    /// The elements, where stored as vectors.
    pub fn vec4s(&self) -> Option<&[[f32; 4]]> {
        self.items.vec4s()
    }
}

/// How a [`MemberArray`] stores its elements: as values, or, for an array of plain numbers or
/// vectors, as the numbers themselves (the same array, stored compactly: a `Reals` of `n` floats
/// is the array a `Values` of `n` [`MemberValue::Real`] is, and compares equal to it). Readers
/// make the typed forms for `hkArray`s and simple arrays of integers (no enum), reals, vectors and
/// quaternions; anything may be stored as `Values`. [`Items::values_mut`] turns a typed form into
/// `Values` for editing.
#[derive(Clone)]
pub enum Items {
    /// Any elements, each a value.
    Values(Vec<MemberValue>),
    /// Signed integers: what `Values` of [`MemberValue::Int`] hold.
    Ints(Vec<i64>),
    /// Unsigned integers: what `Values` of [`MemberValue::UInt`] hold.
    UInts(Vec<u64>),
    /// Reals: what `Values` of [`MemberValue::Real`] hold.
    Reals(Vec<f32>),
    /// Vectors and quaternions: what `Values` of [`MemberValue::Vec4`] hold.
    Vec4s(Vec<[f32; 4]>),
}

impl Default for Items {
    fn default() -> Self {
        Items::Values(Vec::new())
    }
}

impl From<Vec<MemberValue>> for Items {
    fn from(v: Vec<MemberValue>) -> Self {
        Items::Values(v)
    }
}

impl Items {
    /// The elements borrowed, in their form.
    #[inline]
    pub fn as_slice(&self) -> ItemSlice<'_> {
        match self {
            Items::Values(v) => ItemSlice::Values(v),
            Items::Ints(v) => ItemSlice::Ints(v),
            Items::UInts(v) => ItemSlice::UInts(v),
            Items::Reals(v) => ItemSlice::Reals(v),
            Items::Vec4s(v) => ItemSlice::Vec4s(v),
        }
    }

    /// How many elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.as_slice().len()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i`: borrowed from `Values`, made (without allocating) from a typed form.
    #[inline]
    pub fn get(&self, i: usize) -> Option<Cow<'_, MemberValue>> {
        self.as_slice().get(i)
    }

    /// The elements in order, as [`Items::get`] gives them.
    #[inline]
    pub fn iter(&self) -> ItemsIter<'_> {
        self.as_slice().iter()
    }

    /// The elements as values (a typed form makes one per element).
    #[inline]
    pub fn into_values(self) -> Vec<MemberValue> {
        match self {
            Items::Values(v) => v,
            Items::Ints(v) => v.into_iter().map(MemberValue::Int).collect(),
            Items::UInts(v) => v.into_iter().map(MemberValue::UInt).collect(),
            Items::Reals(v) => v.into_iter().map(MemberValue::Real).collect(),
            Items::Vec4s(v) => v.into_iter().map(MemberValue::Vec4).collect(),
        }
    }

    /// The elements as values to edit: a typed form is turned into `Values` first.
    pub fn values_mut(&mut self) -> &mut Vec<MemberValue> {
        if !matches!(self, Items::Values(_)) {
            *self = Items::Values(std::mem::take(self).into_values());
        }
        match self {
            Items::Values(v) => v,
            _ => unreachable!("turned into values above"),
        }
    }

    /// The elements, where they are stored as values.
    pub fn values(&self) -> Option<&[MemberValue]> {
        match self {
            Items::Values(v) => Some(v),
            _ => None,
        }
    }

    /// The elements, where they are stored as signed integers.
    pub fn ints(&self) -> Option<&[i64]> {
        match self {
            Items::Ints(v) => Some(v),
            _ => None,
        }
    }

    /// The elements, where they are stored as unsigned integers.
    pub fn uints(&self) -> Option<&[u64]> {
        match self {
            Items::UInts(v) => Some(v),
            _ => None,
        }
    }

    /// The elements, where they are stored as reals.
    pub fn reals(&self) -> Option<&[f32]> {
        match self {
            Items::Reals(v) => Some(v),
            _ => None,
        }
    }

    /// The elements, where they are stored as vectors.
    pub fn vec4s(&self) -> Option<&[[f32; 4]]> {
        match self {
            Items::Vec4s(v) => Some(v),
            _ => None,
        }
    }

    /// Appends `v`: kept typed where it is a value of the typed form's kind, else the elements
    /// are turned into `Values` first.
    #[inline]
    pub fn push(&mut self, v: MemberValue) {
        match (&mut *self, v) {
            (Items::Values(o), v) => o.push(v),
            (Items::Ints(o), MemberValue::Int(x)) => o.push(x),
            (Items::UInts(o), MemberValue::UInt(x)) => o.push(x),
            (Items::Reals(o), MemberValue::Real(x)) => o.push(x),
            (Items::Vec4s(o), MemberValue::Vec4(x)) => o.push(x),
            (_, v) => self.push_value(v),
        }
    }

    /// [`Items::push`] of a value of another kind than the typed form's.
    #[cold]
    #[inline(never)]
    fn push_value(&mut self, v: MemberValue) {
        self.values_mut().push(v)
    }

    /// Gives back the room reserved past the elements.
    #[inline]
    pub fn shrink_to_fit(&mut self) {
        match self {
            Items::Values(v) => v.shrink_to_fit(),
            Items::Ints(v) => v.shrink_to_fit(),
            Items::UInts(v) => v.shrink_to_fit(),
            Items::Reals(v) => v.shrink_to_fit(),
            Items::Vec4s(v) => v.shrink_to_fit(),
        }
    }
}

/// Logical equality: the same elements, whatever the forms (`Values([Real(1.0)])` equals
/// `Reals([1.0])`).
impl PartialEq for Items {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

/// The elements of an [`Items`], or of any slice of values (a C array's, a relative array's),
/// borrowed in their form: what the walk out and the writers read.
#[derive(Clone, Copy)]
pub enum ItemSlice<'a> {
    /// [`Items::Values`]' (or a slice of values).
    Values(&'a [MemberValue]),
    /// [`Items::Ints`]'.
    Ints(&'a [i64]),
    /// [`Items::UInts`]'.
    UInts(&'a [u64]),
    /// [`Items::Reals`]'.
    Reals(&'a [f32]),
    /// [`Items::Vec4s`]'.
    Vec4s(&'a [[f32; 4]]),
}

impl<'a> From<&'a [MemberValue]> for ItemSlice<'a> {
    fn from(v: &'a [MemberValue]) -> Self {
        ItemSlice::Values(v)
    }
}

impl<'a> ItemSlice<'a> {
    /// How many elements.
    #[inline]
    pub fn len(&self) -> usize {
        match self {
            ItemSlice::Values(v) => v.len(),
            ItemSlice::Ints(v) => v.len(),
            ItemSlice::UInts(v) => v.len(),
            ItemSlice::Reals(v) => v.len(),
            ItemSlice::Vec4s(v) => v.len(),
        }
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i` ([`Items::get`]).
    #[inline]
    pub fn get(&self, i: usize) -> Option<Cow<'a, MemberValue>> {
        Some(match *self {
            ItemSlice::Values(v) => Cow::Borrowed(v.get(i)?),
            ItemSlice::Ints(v) => Cow::Owned(MemberValue::Int(*v.get(i)?)),
            ItemSlice::UInts(v) => Cow::Owned(MemberValue::UInt(*v.get(i)?)),
            ItemSlice::Reals(v) => Cow::Owned(MemberValue::Real(*v.get(i)?)),
            ItemSlice::Vec4s(v) => Cow::Owned(MemberValue::Vec4(*v.get(i)?)),
        })
    }

    /// The elements in order ([`Items::iter`]).
    #[inline]
    pub fn iter(&self) -> ItemsIter<'a> {
        ItemsIter(match *self {
            ItemSlice::Values(v) => IterForm::Values(v.iter()),
            ItemSlice::Ints(v) => IterForm::Ints(v.iter()),
            ItemSlice::UInts(v) => IterForm::UInts(v.iter()),
            ItemSlice::Reals(v) => IterForm::Reals(v.iter()),
            ItemSlice::Vec4s(v) => IterForm::Vec4s(v.iter()),
        })
    }
}

/// Logical equality, as [`Items`]'.
impl PartialEq for ItemSlice<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (*self, *other) {
            (ItemSlice::Values(a), ItemSlice::Values(b)) => a == b,
            (ItemSlice::Ints(a), ItemSlice::Ints(b)) => a == b,
            (ItemSlice::UInts(a), ItemSlice::UInts(b)) => a == b,
            (ItemSlice::Reals(a), ItemSlice::Reals(b)) => a == b,
            (ItemSlice::Vec4s(a), ItemSlice::Vec4s(b)) => a == b,
            (a, b) => a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| *x == *y),
        }
    }
}

impl std::fmt::Debug for ItemSlice<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The elements as a list of values, whatever the form (as a `Vec<MemberValue>` prints).
impl std::fmt::Debug for Items {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// [`Items::iter`].
#[derive(Clone, Debug)]
pub struct ItemsIter<'a>(IterForm<'a>);

#[derive(Clone, Debug)]
enum IterForm<'a> {
    Values(std::slice::Iter<'a, MemberValue>),
    Ints(std::slice::Iter<'a, i64>),
    UInts(std::slice::Iter<'a, u64>),
    Reals(std::slice::Iter<'a, f32>),
    Vec4s(std::slice::Iter<'a, [f32; 4]>),
}

impl<'a> Iterator for ItemsIter<'a> {
    type Item = Cow<'a, MemberValue>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        Some(match &mut self.0 {
            IterForm::Values(it) => Cow::Borrowed(it.next()?),
            IterForm::Ints(it) => Cow::Owned(MemberValue::Int(*it.next()?)),
            IterForm::UInts(it) => Cow::Owned(MemberValue::UInt(*it.next()?)),
            IterForm::Reals(it) => Cow::Owned(MemberValue::Real(*it.next()?)),
            IterForm::Vec4s(it) => Cow::Owned(MemberValue::Vec4(*it.next()?)),
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = match &self.0 {
            IterForm::Values(it) => it.len(),
            IterForm::Ints(it) => it.len(),
            IterForm::UInts(it) => it.len(),
            IterForm::Reals(it) => it.len(),
            IterForm::Vec4s(it) => it.len(),
        };
        (n, Some(n))
    }
}

impl ExactSizeIterator for ItemsIter<'_> {}

impl<'a> IntoIterator for &'a Items {
    type Item = Cow<'a, MemberValue>;
    type IntoIter = ItemsIter<'a>;
    fn into_iter(self) -> ItemsIter<'a> {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_items_equal_their_values() {
        let reals = Items::Reals(vec![1.0, -2.5, 3.0]);
        let values = Items::Values(vec![MemberValue::Real(1.0), MemberValue::Real(-2.5), MemberValue::Real(3.0)]);
        assert_eq!(reals, values);
        assert_eq!(values, reals);
        assert_ne!(reals, Items::Values(vec![MemberValue::Real(1.0), MemberValue::Real(-2.5)]));
        assert_ne!(reals, Items::Values(vec![MemberValue::Real(1.0), MemberValue::Real(-2.5), MemberValue::Real(4.0)]));
        // An integer is not a real of the same value; signed and unsigned differ as values do.
        assert_ne!(Items::Ints(vec![1]), Items::Reals(vec![1.0]));
        assert_ne!(Items::Ints(vec![1]), Items::UInts(vec![1]));
        assert_eq!(Items::UInts(vec![7, 8]), Items::Values(vec![MemberValue::UInt(7), MemberValue::UInt(8)]));
        assert_eq!(Items::Vec4s(vec![[1.0, 2.0, 3.0, 4.0]]), Items::Values(vec![MemberValue::Vec4([1.0, 2.0, 3.0, 4.0])]));
        assert_eq!(Items::Ints(Vec::new()), Items::Reals(Vec::new()));
        // The arrays too (same capacity word), and their printing is the values'.
        let a = MemberArray::of_ints(vec![-1, 0, 1], DONT_DEALLOCATE);
        let b = MemberArray::new(vec![MemberValue::Int(-1), MemberValue::Int(0), MemberValue::Int(1)]);
        assert_eq!(a, b);
        assert_eq!(a.capacity, 3 | DONT_DEALLOCATE);
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
        assert_ne!(a, MemberArray::of_ints(vec![-1, 0, 1], 0));
    }

    #[test]
    fn typed_items_read_and_edit_as_values() {
        let mut a = MemberArray::of_reals(vec![0.5, 1.5], DONT_DEALLOCATE);
        assert_eq!((a.len(), a.is_empty()), (2, false));
        assert!(matches!(a.get(1), Some(Cow::Owned(MemberValue::Real(x))) if x == 1.5));
        assert!(a.get(2).is_none());
        assert_eq!(a.iter().len(), 2);
        assert_eq!(a.iter().map(Cow::into_owned).collect::<Vec<_>>(), [MemberValue::Real(0.5), MemberValue::Real(1.5)]);
        assert_eq!(a.reals(), Some(&[0.5f32, 1.5][..]));
        assert!(a.ints().is_none() && a.values().is_none());
        // A value of the form's kind stays typed; another turns the array into values.
        a.items.push(MemberValue::Real(2.5));
        assert_eq!(a.reals().map(<[f32]>::len), Some(3));
        a.values_mut()[0] = MemberValue::Int(3);
        assert!(a.reals().is_none());
        assert_eq!(a.clone().into_values(), [MemberValue::Int(3), MemberValue::Real(1.5), MemberValue::Real(2.5)]);
        assert!(matches!(a.get(0), Some(Cow::Borrowed(MemberValue::Int(3)))));
        let mut v = Items::Vec4s(vec![[1.0; 4]]);
        v.push(MemberValue::Real(1.0));
        assert_eq!(v.into_values(), [MemberValue::Vec4([1.0; 4]), MemberValue::Real(1.0)]);
        let mut i = Items::UInts(vec![1]);
        i.push(MemberValue::UInt(2));
        assert_eq!(i.uints(), Some(&[1u64, 2][..]));
    }
}
