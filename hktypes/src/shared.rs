//! The words both formats share, under both of them: a [`Handle`] names an object, [`Counts`]
//! counts a document's objects, a [`Ref`] says where a pointer points, and a [`MemberValue`] (with its
//! [`MemberArray`]) is one member value of an object read through a class description (a packfile
//! object's members; the packfile half of a generated class converts from and to them).
//!
//! Nothing here imports the formats: `hktypes::tagfile`, `hktypes::packfile`, `hktypes::value`
//! and the front page's `Document` import these words, never the other way round. The crate
//! root re-exports [`Handle`] and [`Counts`]; `packfile::objects` re-exports the rest under their
//! old paths.

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
    /// The elements.
    pub items: Vec<MemberValue>,
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
        let capacity = items.len() as u32 | flags;
        MemberArray { items, capacity }
    }
}
