//! `Serialize` and `Deserialize` for the runtime types the generated classes hold (feature
//! `serde`), so that `hkclasses`' structs derive both. Each form keeps what the binary holds, so
//! that a value goes to JSON or RON and back equal:
//!
//! - a [`Ptr`] is where it points, in both formats: `"Null"`, `{"Object": 3}` (a handle: a
//!   tagfile object's item index, a packfile object's index in `__data__`), and in a packfile
//!   also `{"Inside": [3, 16]}` or `{"Section": [2, 64]}` (section index, offset);
//! - arrays are sequences; C arrays of any length go through [`array`] (serde's own derive stops
//!   at 32 elements);
//! - strings are text or null; a packfile string whose bytes are not UTF-8 is a sequence of bytes;
//! - [`Bool8`] is its stored byte, [`Half16`] its 16 stored bits, enums and flags their stored
//!   integer (odd values kept), [`Opaque`] bytes a sequence;
//! - math types are their lanes and columns, by their Rust field names.
//!
//! A member the generated classes hold as a dynamic packfile value (`TYPE_HOMOGENEOUSARRAY`) has no
//! serde form: [`unsupported`] makes serializing or deserializing it an error, never a silent loss.

use crate::packfile::objects::Ref;
use crate::shared::Handle;
use crate::packfile::typed;
use crate::value::{Array, Bool8, Enum, Flags, Half16, Opaque, Ptr, StringPtr};
use serde::de::Error as _;
use serde::ser::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

impl<T: Serialize, const SLOT: usize> Serialize for Array<T, SLOT> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.items.serialize(s)
    }
}
impl<'de, T: Deserialize<'de>, const SLOT: usize> Deserialize<'de> for Array<T, SLOT> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::deserialize(d).map(|items| Array { items })
    }
}

impl Serialize for StringPtr {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.as_deref().serialize(s)
    }
}
impl<'de> Deserialize<'de> for StringPtr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Option::<String>::deserialize(d).map(|s| StringPtr(s.map(Into::into)))
    }
}

/// Newtypes serialized as the one value they hold.
macro_rules! as_inner {
    ($($ty:ident($inner:ty)),*) => {$(
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                self.0.serialize(s)
            }
        }
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                <$inner>::deserialize(d).map($ty)
            }
        }
    )*};
}
as_inner!(Bool8(u8), Half16(u16));

/// `hkEnum`/`hkFlags` as their stored integer.
macro_rules! stored {
    ($($ty:ident),*) => {$(
        impl<E, S: Serialize> Serialize for $ty<E, S> {
            fn serialize<Ser: Serializer>(&self, s: Ser) -> Result<Ser::Ok, Ser::Error> {
                self.raw.serialize(s)
            }
        }
        impl<'de, E, S: Deserialize<'de>> Deserialize<'de> for $ty<E, S> {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                S::deserialize(d).map($ty::new)
            }
        }
    )*};
}
stored!(Enum, Flags);

impl<const N: usize, const A: usize> Serialize for Opaque<N, A> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.as_slice().serialize(s)
    }
}
impl<'de, const N: usize, const A: usize> Deserialize<'de> for Opaque<N, A> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Vec::<u8>::deserialize(d)?;
        let n = v.len();
        v.try_into().map(Opaque).map_err(|_| D::Error::invalid_length(n, &format!("{N} bytes").as_str()))
    }
}

/// Where a packfile pointer points ([`Ref`]), by variant.
#[derive(Serialize, Deserialize)]
enum RefForm {
    Null,
    Object(u32),
    Inside(u32, u32),
    Section(u32, u32),
}

impl From<Ref> for RefForm {
    fn from(r: Ref) -> Self {
        match r {
            Ref::Null => RefForm::Null,
            Ref::Object(h) => RefForm::Object(h.0),
            Ref::Inside(h, at) => RefForm::Inside(h.0, at),
            Ref::Section(s, at) => RefForm::Section(s, at),
        }
    }
}

impl From<RefForm> for Ref {
    fn from(r: RefForm) -> Self {
        match r {
            RefForm::Null => Ref::Null,
            RefForm::Object(h) => Ref::Object(Handle(h)),
            RefForm::Inside(h, at) => Ref::Inside(Handle(h), at),
            RefForm::Section(s, at) => Ref::Section(s, at),
        }
    }
}

impl<T: ?Sized> Serialize for Ptr<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        RefForm::from(self.target).serialize(s)
    }
}
impl<'de, T: ?Sized> Deserialize<'de> for Ptr<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        RefForm::deserialize(d).map(|r| Ptr::new(r.into()))
    }
}

/// `hkVariant`: its object and its class.
#[derive(Serialize, Deserialize)]
struct VariantForm {
    object: RefForm,
    class: RefForm,
}

impl Serialize for typed::Variant {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        VariantForm { object: self.object.target.into(), class: self.class.target.into() }.serialize(s)
    }
}
impl<'de> Deserialize<'de> for typed::Variant {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = VariantForm::deserialize(d)?;
        Ok(typed::Variant { object: Ptr::new(v.object.into()), class: Ptr::new(v.class.into()) })
    }
}

/// A packfile string: text when its bytes are UTF-8, else the bytes.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum StringForm<'a> {
    Text(std::borrow::Cow<'a, str>),
    Bytes(Vec<u8>),
}

impl Serialize for typed::PackString {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0
            .as_deref()
            .map(|b| match std::str::from_utf8(b) {
                Ok(t) => StringForm::Text(t.into()),
                Err(_) => StringForm::Bytes(b.to_vec()),
            })
            .serialize(s)
    }
}
impl<'de> Deserialize<'de> for typed::PackString {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let form = Option::<StringForm<'de>>::deserialize(d)?;
        Ok(typed::PackString(form.map(|f| match f {
            StringForm::Text(t) => t.into_owned().into_bytes(),
            StringForm::Bytes(b) => b,
        })))
    }
}

/// Packfile sequences as their elements.
macro_rules! as_vec {
    ($($ty:ident),*) => {$(
        impl<T: Serialize> Serialize for typed::$ty<T> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                self.0.serialize(s)
            }
        }
        impl<'de, T: Deserialize<'de>> Deserialize<'de> for typed::$ty<T> {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                Vec::deserialize(d).map(typed::$ty)
            }
        }
    )*};
}
as_vec!(SimpleArray, PackRelArray);

impl Serialize for typed::PackOpaque {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}
impl<'de> Deserialize<'de> for typed::PackOpaque {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::deserialize(d).map(typed::PackOpaque)
    }
}

/// A C array `[T; N]` of any length as a sequence (`#[serde(with = "...::array")]`).
pub mod array {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// The elements as a sequence.
    pub fn serialize<T: Serialize, const N: usize, S: Serializer>(v: &[T; N], s: S) -> Result<S::Ok, S::Error> {
        v.as_slice().serialize(s)
    }

    /// Exactly `N` elements.
    pub fn deserialize<'de, T: Deserialize<'de>, const N: usize, D: Deserializer<'de>>(d: D) -> Result<[T; N], D::Error> {
        let v = Vec::<T>::deserialize(d)?;
        let n = v.len();
        v.try_into().map_err(|_| D::Error::invalid_length(n, &format!("{N} elements").as_str()))
    }
}

/// A member held as a dynamic packfile value (`TYPE_HOMOGENEOUSARRAY`): no serde form, an error
/// either way (`#[serde(with = "...::unsupported")]`).
pub mod unsupported {
    use super::*;

    const WHY: &str = "a member of a dynamic type (TYPE_HOMOGENEOUSARRAY) has no serde form";

    /// Always an error.
    pub fn serialize<V, S: Serializer>(_: &V, _: S) -> Result<S::Ok, S::Error> {
        Err(S::Error::custom(WHY))
    }

    /// Always an error.
    pub fn deserialize<'de, V, D: Deserializer<'de>>(_: D) -> Result<V, D::Error> {
        Err(D::Error::custom(WHY))
    }
}
