//! Enumerated members (spec: "Enumerated members"): `hkEnum<E, S>` and `hkFlags<E, S>` store an
//! integer of the storage type `S`; the type table names the enumeration `E` but lists none of its
//! items. The stored integer is kept as is, so values without a name survive; names come from the
//! enumeration's [`Enumeration::ITEMS`] (an overlay, not the file).

use super::{Be, Reader, Value, Writer};
use crate::error::Result;
use std::fmt;
use std::marker::PhantomData;

/// An enumeration: its Havok name and the items known by name.
pub trait Enumeration: 'static {
    /// Havok's full name (`hknpMotionType::Enum`).
    const NAME: &'static str;
    /// Known items as (name, value).
    const ITEMS: &'static [(&'static str, i64)];

    fn name_of(value: i64) -> Option<&'static str> {
        Self::ITEMS.iter().find(|(_, v)| *v == value).map(|(n, _)| *n)
    }

    fn value_of(name: &str) -> Option<i64> {
        Self::ITEMS.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }
}

/// An integer that can store an enumeration: converts to and from `i64` without loss of any
/// value of its own width.
pub trait IntStorage: Value + Copy + PartialEq + fmt::Debug {
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
            pub const fn new(raw: S) -> Self {
                $name { raw, e: PhantomData }
            }
        }

        impl<E: Enumeration, S: IntStorage> $name<E, S> {
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
