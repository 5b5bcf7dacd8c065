//! Havok's SIMD math types as lane arrays: every lane is kept, the fourth (`w`) lane of vectors
//! and matrix columns included, since files store bytes there. Lanes are `f32` read through their
//! bits, so no pattern is lost. Matrices hold their stored `hkVector4` columns in order.

use super::{Reader, Value, Writer};
use super::Result;

/// `hkVector4f`: four lanes, 16 bytes, 16-aligned.
///
/// ```
/// use hktypes::value::{read_value, write_value, NoItems, SourceIndices, Vector4};
///
/// let bytes: Vec<u8> = [1.0f32, 2.0, 3.0, 0.0].iter().flat_map(|f| f.to_le_bytes()).collect();
/// let v: Vector4 = read_value(&bytes, 0, &NoItems).unwrap();
/// assert_eq!(v.lanes, [1.0, 2.0, 3.0, 0.0]);
/// let back = write_value(&v, 0, &mut SourceIndices { data: &bytes, base: 0 }).unwrap();
/// assert_eq!(back, bytes);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Vector4 {
    /// `x, y, z, w`.
    pub lanes: [f32; 4],
}

/// `hkQuaternionf`: `x, y, z, w` lanes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Quaternion {
    /// `x, y, z, w` (`w` the real part).
    pub lanes: [f32; 4],
}

/// `hkMatrix3f`: three columns of four lanes, 48 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Matrix3 {
    /// The columns (the fourth lane of each is padding).
    pub cols: [Vector4; 3],
}

/// `hkRotationf`: a 3x3 matrix that is a rotation; laid out as [`Matrix3`].
pub type Rotation = Matrix3;

/// `hkMatrix4f`: four columns of four lanes, 64 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Matrix4 {
    /// The columns.
    pub cols: [Vector4; 4],
}

/// `hkTransformf`: rotation columns then translation, 64 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Transform {
    /// The rotation part.
    pub rotation: Rotation,
    /// The translation (fourth lane padding).
    pub translation: Vector4,
}

/// `hkQsTransformf`: translation, rotation, scale, 48 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct QsTransform {
    /// The translation.
    pub translation: Vector4,
    /// The rotation.
    pub rotation: Quaternion,
    /// The scale.
    pub scale: Vector4,
}

/// The `N` lanes at the start of `r`, checked against its window once (a matrix or an array of
/// vectors reads as one row of lanes, not as vectors one by one).
#[inline]
fn lanes<const N: usize>(r: &Reader<'_>) -> Result<[f32; N]> {
    f32::read_array::<N>(r)
}

/// Four lanes from a row of lanes, from lane `at` on.
#[inline(always)]
fn vector(l: &[f32], at: usize) -> Vector4 {
    Vector4 { lanes: [l[at], l[at + 1], l[at + 2], l[at + 3]] }
}

macro_rules! lanes {
    ($($t:ident),*) => {$(
        impl Value for $t {
            const SIZE: usize = 16;
            const ALIGN: usize = 16;
            #[inline]
            fn read(r: &Reader<'_>) -> Result<Self> {
                Ok($t { lanes: lanes(r)? })
            }
            #[inline]
            fn read_array<const K: usize>(r: &Reader<'_>) -> Result<[Self; K]> {
                let bytes = r.sub(0, K * 16)?.data();
                Ok(std::array::from_fn(|i| {
                    let lane = |j: usize| {
                        let at = i * 16 + j * 4;
                        f32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
                    };
                    $t { lanes: [lane(0), lane(1), lane(2), lane(3)] }
                }))
            }
            fn write(&self, w: &mut Writer<'_>) -> Result<()> {
                w.value(0, &self.lanes)
            }
        }
    )*};
}

lanes!(Vector4, Quaternion);

impl Value for Matrix3 {
    const SIZE: usize = 48;
    const ALIGN: usize = 16;
    #[inline]
    fn read(r: &Reader<'_>) -> Result<Self> {
        let l: [f32; 12] = lanes(r)?;
        Ok(Matrix3 { cols: [vector(&l, 0), vector(&l, 4), vector(&l, 8)] })
    }
    fn write(&self, w: &mut Writer<'_>) -> Result<()> {
        w.value(0, &self.cols)
    }
}

impl Value for Matrix4 {
    const SIZE: usize = 64;
    const ALIGN: usize = 16;
    #[inline]
    fn read(r: &Reader<'_>) -> Result<Self> {
        let l: [f32; 16] = lanes(r)?;
        Ok(Matrix4 { cols: [vector(&l, 0), vector(&l, 4), vector(&l, 8), vector(&l, 12)] })
    }
    fn write(&self, w: &mut Writer<'_>) -> Result<()> {
        w.value(0, &self.cols)
    }
}

impl Value for Transform {
    const SIZE: usize = 64;
    const ALIGN: usize = 16;
    #[inline]
    fn read(r: &Reader<'_>) -> Result<Self> {
        let l: [f32; 16] = lanes(r)?;
        Ok(Transform { rotation: Matrix3 { cols: [vector(&l, 0), vector(&l, 4), vector(&l, 8)] }, translation: vector(&l, 12) })
    }
    fn write(&self, w: &mut Writer<'_>) -> Result<()> {
        w.field(0, "rotation", &self.rotation)?;
        w.field(48, "translation", &self.translation)
    }
}

impl Value for QsTransform {
    const SIZE: usize = 48;
    const ALIGN: usize = 16;
    #[inline]
    fn read(r: &Reader<'_>) -> Result<Self> {
        let l: [f32; 12] = lanes(r)?;
        let v = vector(&l, 4);
        Ok(QsTransform { translation: vector(&l, 0), rotation: Quaternion { lanes: v.lanes }, scale: vector(&l, 8) })
    }
    fn write(&self, w: &mut Writer<'_>) -> Result<()> {
        w.field(0, "translation", &self.translation)?;
        w.field(16, "rotation", &self.rotation)?;
        w.field(32, "scale", &self.scale)
    }
}
