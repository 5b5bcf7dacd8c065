//! Enumerated members (spec: "Enumerated members"): `hkEnum<E, S>` and `hkFlags<E, S>` store an
//! integer of the storage type `S`; the type table names the enumeration `E` but lists none of its
//! items. The stored integer is kept as is, so values without a name survive; names come from the
//! enumeration's [`Enumeration::ITEMS`] (an overlay, not the file). A generated enumeration type
//! also has one constant per known item ([`Item`]), so code names values rather than numbers:
//! `Enum::<hknpMotionType_Enum, u8>::of(hknpMotionType_Enum::DYNAMIC)`,
//! `body.motion_type == hknpMotionType_Enum::DYNAMIC`.

use super::{Be, Reader, Value, Writer};
use super::Result;
use std::fmt;
use std::marker::PhantomData;

/// An enumeration: its Havok name and the items known by name.
///
/// Generated modules implement it for a marker type per enumeration; by hand:
///
/// ```
/// use hktypes::value::{Enum, Enumeration};
///
/// enum MotionType {}
/// impl Enumeration for MotionType {
///     const NAME: &'static str = "hknpMotionType::Enum";
///     const ITEMS: &'static [(&'static str, i64)] = &[("STATIC", 0), ("KEYFRAMED", 1), ("DYNAMIC", 2)];
/// }
/// let m = Enum::<MotionType, u8>::new(2);
/// assert_eq!((m.value(), m.name()), (2, Some("DYNAMIC")));
/// assert_eq!(MotionType::value_of("KEYFRAMED"), Some(1));
/// // A value without a name is kept.
/// assert_eq!(Enum::<MotionType, u8>::new(7).name(), None);
/// ```
pub trait Enumeration: 'static {
    /// Havok's full name (`hknpMotionType::Enum`).
    const NAME: &'static str;
    /// Known items as (name, value).
    const ITEMS: &'static [(&'static str, i64)];

    /// The name of the known item of value `value`.
    fn name_of(value: i64) -> Option<&'static str> {
        Self::ITEMS.iter().find(|(_, v)| *v == value).map(|(n, _)| *n)
    }

    /// The value of the known item named `name`.
    fn value_of(name: &str) -> Option<i64> {
        Self::ITEMS.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }
}

/// One enumeration of a generated module as run-time data: what code that has no generated types
/// at hand (the dump of [`crate::dump`]) names stored integers by.
///
/// ```
/// use hktypes::value::{EnumEntry, EnumTable, Enumeration, MemberEnum};
///
/// enum MotionType {}
/// impl Enumeration for MotionType {
///     const NAME: &'static str = "hknpMotionType::Enum";
///     const ITEMS: &'static [(&'static str, i64)] = &[("STATIC", 0), ("KEYFRAMED", 1), ("DYNAMIC", 2)];
/// }
/// static ENUMS: EnumTable = EnumTable {
///     enums: &[EnumEntry::of::<MotionType>()],
///     members: &[MemberEnum { class: "hknpBodyCinfo", member: "motionType", enumeration: "hknpMotionType::Enum" }],
/// };
/// assert_eq!(ENUMS.name_of("hknpMotionType::Enum", 2), Some("DYNAMIC"));
/// assert_eq!(ENUMS.value_of("hknpMotionType::Enum", "KEYFRAMED"), Some(1));
/// assert_eq!(ENUMS.member("hknpBodyCinfo", "motionType"), Some("hknpMotionType::Enum"));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct EnumEntry {
    /// Havok's full name (`hknpMotionType::Enum`).
    pub name: &'static str,
    /// Known items as (name, value).
    pub items: &'static [(&'static str, i64)],
}

impl EnumEntry {
    /// The entry of a generated enumeration type.
    pub const fn of<E: Enumeration>() -> Self {
        EnumEntry { name: E::NAME, items: E::ITEMS }
    }
}

/// A member that a type table stores as a bare integer and the enumeration overlay types as an
/// enumeration (`hknpBodyCinfo.motionType`).
#[derive(Clone, Copy, Debug)]
pub struct MemberEnum {
    /// The class's full name.
    pub class: &'static str,
    /// The member's Havok name.
    pub member: &'static str,
    /// The enumeration's full name (an [`EnumEntry::name`]).
    pub enumeration: &'static str,
}

/// The enumerations of one tagfile SDK, whose type tables name an enumeration but list none of
/// its items: each generated tagfile module's `ENUMS`, which `ClassRegistry::tagfile_enums`
/// hands out by SDK. The default table knows none.
#[derive(Clone, Copy, Debug, Default)]
pub struct EnumTable {
    /// Every enumeration with its known items.
    pub enums: &'static [EnumEntry],
    /// Integer members typed as an enumeration.
    pub members: &'static [MemberEnum],
}

impl EnumTable {
    /// The items of enumeration `name`.
    pub fn items(&self, name: &str) -> Option<&'static [(&'static str, i64)]> {
        self.enums.iter().find(|e| e.name == name).map(|e| e.items)
    }

    /// The name of the first item of enumeration `name` whose value is `value`.
    pub fn name_of(&self, name: &str, value: i64) -> Option<&'static str> {
        self.items(name)?.iter().find(|(_, v)| *v == value).map(|(n, _)| *n)
    }

    /// The value of item `item` of enumeration `name`.
    pub fn value_of(&self, name: &str, item: &str) -> Option<i64> {
        self.items(name)?.iter().find(|(n, _)| *n == item).map(|(_, v)| *v)
    }

    /// The enumeration of integer member `member` of class `class` (a full name).
    pub fn member(&self, class: &str, member: &str) -> Option<&'static str> {
        self.members.iter().find(|m| m.class == class && m.member == member).map(|m| m.enumeration)
    }
}

/// A named item of enumeration `E`: the constants of a generated enumeration type.
pub struct Item<E> {
    /// The item's Havok name (`DYNAMIC`).
    pub name: &'static str,
    /// Its value.
    pub value: i64,
    e: PhantomData<fn() -> E>,
}

impl<E> Item<E> {
    /// The item `name` = `value`.
    pub const fn new(name: &'static str, value: i64) -> Self {
        Item { name, value, e: PhantomData }
    }
}

impl<E> Clone for Item<E> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<E> Copy for Item<E> {}
impl<E> PartialEq for Item<E> {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}
impl<E> Eq for Item<E> {}
impl<E> fmt::Debug for Item<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({})", self.name, self.value)
    }
}

/// An integer that can store an enumeration: converts to and from `i64` without loss of any
/// value of its own width.
pub trait IntStorage: Value + Copy + PartialEq + fmt::Debug {
    /// The stored integer as an `i64` (an unsigned 64-bit value as its bits).
    fn to_i64(self) -> i64;
    /// `None` when `v` does not fit the storage.
    fn from_i64(v: i64) -> Option<Self>;
}

macro_rules! storage {
    ($($t:ty),*) => {$(
        impl IntStorage for $t {
            fn to_i64(self) -> i64 {
                self as i64
            }
            fn from_i64(v: i64) -> Option<Self> {
                <$t>::try_from(v).ok()
            }
        }
        impl IntStorage for Be<$t> {
            fn to_i64(self) -> i64 {
                self.0 as i64
            }
            fn from_i64(v: i64) -> Option<Self> {
                <$t>::try_from(v).ok().map(Be)
            }
        }
    )*};
}

storage!(u8, i8, u16, i16, u32, i32, i64);

impl IntStorage for u64 {
    /// Reinterprets the bits: a `u64` enumeration value above `i64::MAX` maps to a negative
    /// number and back.
    fn to_i64(self) -> i64 {
        self as i64
    }
    fn from_i64(v: i64) -> Option<Self> {
        Some(v as u64)
    }
}

macro_rules! stored_int {
    ($name:ident, $doc:literal) => {
        #[doc = $doc]
        pub struct $name<E, S> {
            /// The stored integer, exactly as the file holds it.
            pub raw: S,
            e: PhantomData<fn() -> E>,
        }

        impl<E, S> $name<E, S> {
            /// A value storing `raw`.
            pub const fn new(raw: S) -> Self {
                $name { raw, e: PhantomData }
            }
        }

        impl<E: Enumeration, S: IntStorage> $name<E, S> {
            /// The stored integer.
            pub fn value(&self) -> i64 {
                self.raw.to_i64()
            }
        }

        impl<E, S: Clone> Clone for $name<E, S> {
            fn clone(&self) -> Self {
                Self::new(self.raw.clone())
            }
        }
        impl<E, S: Copy> Copy for $name<E, S> {}
        impl<E, S: PartialEq> PartialEq for $name<E, S> {
            fn eq(&self, other: &Self) -> bool {
                self.raw == other.raw
            }
        }
        impl<E, S: Eq> Eq for $name<E, S> {}
        impl<E, S: Default> Default for $name<E, S> {
            fn default() -> Self {
                Self::new(S::default())
            }
        }

        impl<E: Enumeration, S: IntStorage> Value for $name<E, S> {
            const SIZE: usize = S::SIZE;
            const ALIGN: usize = S::ALIGN;
            fn read(r: &Reader<'_>) -> Result<Self> {
                Ok(Self::new(S::read(r)?))
            }
            fn write(&self, w: &mut Writer<'_>) -> Result<()> {
                self.raw.write(w)
            }
        }
    };
}

stored_int!(Enum, "`hkEnum<E, S>`: one value of enumeration `E` stored as `S`.");
stored_int!(Flags, "`hkFlags<E, S>`: a set of bits of enumeration `E` stored as `S`.");

impl<E: Enumeration, S: IntStorage> Enum<E, S> {
    /// The item's name, when the enumeration knows the value.
    pub fn name(&self) -> Option<&'static str> {
        E::name_of(self.value())
    }

    /// The known item the value is, if any.
    pub fn item(&self) -> Option<Item<E>> {
        let v = self.value();
        E::name_of(v).map(|n| Item::new(n, v))
    }

    /// The value `item`; `None` when its value does not fit the storage `S`.
    pub fn try_of(item: Item<E>) -> Option<Self> {
        S::from_i64(item.value).map(Self::new)
    }

    /// The value `item`.
    ///
    /// # Panics
    ///
    /// When the item's value does not fit the storage `S` (see [`Self::try_of`]).
    pub fn of(item: Item<E>) -> Self {
        match Self::try_of(item) {
            Some(v) => v,
            None => panic!("{}::{} = {} does not fit the storage of this member", E::NAME, item.name, item.value),
        }
    }

    /// Stores `item`; `false` (and no change) when its value does not fit the storage.
    pub fn set(&mut self, item: Item<E>) -> bool {
        match S::from_i64(item.value) {
            Some(raw) => {
                self.raw = raw;
                true
            }
            None => false,
        }
    }
}

impl<E: Enumeration, S: IntStorage> PartialEq<Item<E>> for Enum<E, S> {
    fn eq(&self, item: &Item<E>) -> bool {
        self.value() == item.value
    }
}

impl<E: Enumeration, S: IntStorage> fmt::Debug for Enum<E, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{n}({:?})", self.raw),
            None => write!(f, "{}({:?})", E::NAME, self.raw),
        }
    }
}

impl<E: Enumeration, S: IntStorage> Flags<E, S> {
    /// The names of the known items whose bits are all set, and the bits no known item covers.
    pub fn names(&self) -> (Vec<&'static str>, i64) {
        let v = self.value();
        let mut rest = v;
        let mut names = Vec::new();
        for &(n, bits) in E::ITEMS {
            if bits != 0 && v & bits == bits {
                names.push(n);
                rest &= !bits;
            }
        }
        (names, rest)
    }
}

impl<E: Enumeration, S: IntStorage> Flags<E, S> {
    /// Whether every bit of `item` is set.
    pub fn contains(&self, item: Item<E>) -> bool {
        self.value() & item.value == item.value
    }

    /// Sets the bits of `item`; `false` (and no change) when the result does not fit the storage.
    pub fn insert(&mut self, item: Item<E>) -> bool {
        match S::from_i64(self.value() | item.value) {
            Some(raw) => {
                self.raw = raw;
                true
            }
            None => false,
        }
    }

    /// Clears the bits of `item`.
    pub fn remove(&mut self, item: Item<E>) -> bool {
        match S::from_i64(self.value() & !item.value) {
            Some(raw) => {
                self.raw = raw;
                true
            }
            None => false,
        }
    }
}

impl<E: Enumeration, S: IntStorage> fmt::Debug for Flags<E, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (names, rest) = self.names();
        write!(f, "Flags({:?}", self.raw)?;
        if !names.is_empty() {
            write!(f, " = {}", names.join(" | "))?;
            if rest != 0 {
                write!(f, " | {rest:#x}")?;
            }
        }
        f.write_str(")")
    }
}
