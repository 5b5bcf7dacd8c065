//! Scalars (spec: "Values"): integers and floats little-endian unless wrapped in [`Be`], the
//! 16-bit half that is the top of a `float`, booleans that keep their stored byte, raw bytes for
//! what a tagfile never serialises, and fixed-size arrays.

use super::{Reader, Value, Writer};
use super::Result;
use std::fmt;

macro_rules! scalar {
    ($($t:ty),*) => {$(
        impl Value for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            const ALIGN: usize = std::mem::size_of::<$t>();
            #[inline]
            fn read(r: &Reader<'_>) -> Result<Self> {
                Ok(<$t>::from_le_bytes(r.bytes(0)?))
            }
            fn write(&self, w: &mut Writer<'_>) -> Result<()> {
                w.put(0, &self.to_le_bytes())
            }
            #[inline]
            fn read_array<const K: usize>(r: &Reader<'_>) -> Result<[Self; K]> {
                const N: usize = std::mem::size_of::<$t>();
                let bytes = r.sub(0, K * N)?.data();
                Ok(std::array::from_fn(|i| {
                    let mut b = [0u8; N];
                    b.copy_from_slice(&bytes[i * N..(i + 1) * N]);
                    <$t>::from_le_bytes(b)
                }))
            }
            fn read_run(r: &Reader<'_>, count: usize) -> Result<Vec<Self>> {
                const N: usize = std::mem::size_of::<$t>();
                let bytes = r.sub(0, count.checked_mul(N).unwrap_or(usize::MAX))?.data();
                Ok(bytes.chunks_exact(N).map(|c| <$t>::from_le_bytes(c.try_into().unwrap_or([0; N]))).collect())
            }
            fn write_plain(values: &[Self], out: &mut [u8]) -> bool {
                const N: usize = std::mem::size_of::<$t>();
                if out.len() != values.len() * N {
                    return false;
                }
                for (c, v) in out.chunks_exact_mut(N).zip(values) {
                    c.copy_from_slice(&v.to_le_bytes());
                }
                true
            }
        }
    )*};
}

// Floats go through their bytes, so every bit pattern (NaN payloads included) survives.
scalar!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64);

/// A big-endian scalar (the type table's format bit 8: `hkUint32Be`, `hkFloat32Be`).
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd, Eq, Hash)]
pub struct Be<T>(pub T);

macro_rules! big_endian {
    ($($t:ty),*) => {$(
        impl Value for Be<$t> {
            const SIZE: usize = std::mem::size_of::<$t>();
            const ALIGN: usize = std::mem::size_of::<$t>();
            fn read(r: &Reader<'_>) -> Result<Self> {
                Ok(Be(<$t>::from_be_bytes(r.bytes(0)?)))
            }
            fn write(&self, w: &mut Writer<'_>) -> Result<()> {
                w.put(0, &self.0.to_be_bytes())
            }
        }
    )*};
}

big_endian!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64);

/// `hkHalf16`: the top 16 bits of an IEEE `float` (not a binary16). Keeps its bits.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Half16(pub u16);

impl Half16 {
    /// The `float` these are the top bits of.
    pub fn to_f32(self) -> f32 {
        f32::from_bits((self.0 as u32) << 16)
    }

    /// Truncates `f`'s low 16 bits, as Havok does.
    pub fn from_f32(f: f32) -> Self {
        Half16((f.to_bits() >> 16) as u16)
    }
}

impl fmt::Debug for Half16 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Half16({:#06x} = {})", self.0, self.to_f32())
    }
}

impl Value for Half16 {
    const SIZE: usize = 2;
    const ALIGN: usize = 2;
    fn read(r: &Reader<'_>) -> Result<Self> {
        Ok(Half16(u16::from_le_bytes(r.bytes(0)?)))
    }
    fn write(&self, w: &mut Writer<'_>) -> Result<()> {
        w.put(0, &self.0.to_le_bytes())
    }
}

/// An 8-bit boolean (`bool`, `hkBool`) that keeps the stored byte, odd values included.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Bool8(pub u8);

impl Bool8 {
    /// Whether the stored byte is nonzero.
    pub fn get(self) -> bool {
        self.0 != 0
    }
}

impl From<bool> for Bool8 {
    fn from(b: bool) -> Self {
        Bool8(b as u8)
    }
}

impl Value for Bool8 {
    const SIZE: usize = 1;
    const ALIGN: usize = 1;
    fn read(r: &Reader<'_>) -> Result<Self> {
        Ok(Bool8(r.bytes::<1>(0)?[0]))
    }
    fn write(&self, w: &mut Writer<'_>) -> Result<()> {
        w.put(0, &[self.0])
    }
}

/// A 32-bit boolean (`hkBool32Le`) that keeps the stored word.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Bool32(pub u32);

impl Bool32 {
    /// Whether the stored word is nonzero.
    pub fn get(self) -> bool {
        self.0 != 0
    }
}

impl Value for Bool32 {
    const SIZE: usize = 4;
    const ALIGN: usize = 4;
    fn read(r: &Reader<'_>) -> Result<Self> {
        Ok(Bool32(u32::from_le_bytes(r.bytes(0)?)))
    }
    fn write(&self, w: &mut Writer<'_>) -> Result<()> {
        w.put(0, &self.0.to_le_bytes())
    }
}

impl Value for Be<Bool32> {
    const SIZE: usize = 4;
    const ALIGN: usize = 4;
    fn read(r: &Reader<'_>) -> Result<Self> {
        Ok(Be(Bool32(u32::from_be_bytes(r.bytes(0)?))))
    }
    fn write(&self, w: &mut Writer<'_>) -> Result<()> {
        w.put(0, &self.0 .0.to_be_bytes())
    }
}

impl Value for Be<Half16> {
    const SIZE: usize = 2;
    const ALIGN: usize = 2;
    fn read(r: &Reader<'_>) -> Result<Self> {
        Ok(Be(Half16(u16::from_be_bytes(r.bytes(0)?))))
    }
    fn write(&self, w: &mut Writer<'_>) -> Result<()> {
        w.put(0, &self.0 .0.to_be_bytes())
    }
}

/// Bytes kept as stored, for types the runtime does not interpret (kind `Opaque`, run-time-only
/// members). `A` is the alignment.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Opaque<const N: usize, const A: usize = 1>(pub [u8; N]);

impl<const N: usize, const A: usize> fmt::Debug for Opaque<N, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.iter().all(|&b| b == 0) {
            write!(f, "Opaque([0; {N}])")
        } else {
            write!(f, "Opaque({:02x?})", &self.0[..])
        }
    }
}

impl<const N: usize, const A: usize> Value for Opaque<N, A> {
    const SIZE: usize = N;
    const ALIGN: usize = A;
    fn read(r: &Reader<'_>) -> Result<Self> {
        Ok(Opaque(r.bytes(0)?))
    }
    fn write(&self, w: &mut Writer<'_>) -> Result<()> {
        w.put(0, &self.0)
    }
}

/// `void` members and empty records: no bytes.
impl Value for () {
    const SIZE: usize = 0;
    const ALIGN: usize = 1;
    fn read(_: &Reader<'_>) -> Result<Self> {
        Ok(())
    }
    fn write(&self, _: &mut Writer<'_>) -> Result<()> {
        Ok(())
    }
}

/// A fixed-size array (`T[N]`): `N` elements at a stride of the element's size.
impl<T: Value, const N: usize> Value for [T; N] {
    const SIZE: usize = T::SIZE * N;
    const ALIGN: usize = T::ALIGN;
    const HAS_REFS: bool = T::HAS_REFS;
    fn read(r: &Reader<'_>) -> Result<Self> {
        T::read_array::<N>(r)
    }
    fn write(&self, w: &mut Writer<'_>) -> Result<()> {
        if T::write_plain(self, w.out()) {
            return Ok(());
        }
        for (i, x) in self.iter().enumerate() {
            w.value(i * T::SIZE, x).map_err(|e| e.in_context(format!("[{i}]")))?;
        }
        Ok(())
    }
    fn visit_refs(&self, at: usize, v: &mut dyn super::Visitor) {
        for (i, x) in self.iter().enumerate() {
            x.visit_refs(at + i * T::SIZE, v);
        }
    }
}
