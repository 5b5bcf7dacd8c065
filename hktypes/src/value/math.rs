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
pub struct Vector4 {
    /// `x, y, z, w`.
    pub lanes: [f32; 4],
}

/// `hkQuaternionf`: `x, y, z, w` lanes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Quaternion {
    /// `x, y, z, w` (`w` the real part).
    pub lanes: [f32; 4],
}

/// `hkMatrix3f`: three columns of four lanes, 48 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Matrix3 {
    /// The columns (the fourth lane of each is padding).
    pub cols: [Vector4; 3],
}

/// `hkRotationf`: a 3x3 matrix that is a rotation; laid out as [`Matrix3`].
pub type Rotation = Matrix3;

/// `hkMatrix4f`: four columns of four lanes, 64 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Matrix4 {
    /// The columns.
    pub cols: [Vector4; 4],
}

/// `hkTransformf`: rotation columns then translation, 64 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Transform {
    /// The rotation part.
    pub rotation: Rotation,
    /// The translation (fourth lane padding).
    pub translation: Vector4,
}

/// `hkQsTransformf`: translation, rotation, scale, 48 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct QsTransform {
    /// The translation.
    pub translation: Vector4,
    /// The rotation.
    pub rotation: Quaternion,
    /// The scale.
    pub scale: Vector4,
}

macro_rules! lanes {
    ($($t:ident),*) => {$(
        impl Value for $t {
            const SIZE: usize = 16;
            const ALIGN: usize = 16;
            fn read(r: &Reader<'_>) -> Result<Self> {
                Ok($t { lanes: r.value(0)? })
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
    fn read(r: &Reader<'_>) -> Result<Self> {
        Ok(Matrix3 { cols: r.value(0)? })
    }
    fn write(&self, w: &mut Writer<'_>) -> Result<()> {
        w.value(0, &self.cols)
    }
}

impl Value for Matrix4 {
    const SIZE: usize = 64;
    const ALIGN: usize = 16;
    fn read(r: &Reader<'_>) -> Result<Self> {
        Ok(Matrix4 { cols: r.value(0)? })
    }
    fn write(&self, w: &mut Writer<'_>) -> Result<()> {
        w.value(0, &self.cols)
    }
}

impl Value for Transform {
    const SIZE: usize = 64;
    const ALIGN: usize = 16;
    fn read(r: &Reader<'_>) -> Result<Self> {
        Ok(Transform { rotation: r.field(0, "rotation")?, translation: r.field(48, "translation")? })
    }
    fn write(&self, w: &mut Writer<'_>) -> Result<()> {
        w.field(0, "rotation", &self.rotation)?;
        w.field(48, "translation", &self.translation)
    }
}

impl Value for QsTransform {
    const SIZE: usize = 48;
    const ALIGN: usize = 16;
    fn read(r: &Reader<'_>) -> Result<Self> {
        Ok(QsTransform {
            translation: r.field(0, "translation")?,
            rotation: r.field(16, "rotation")?,
            scale: r.field(32, "scale")?,
        })
    }
    fn write(&self, w: &mut Writer<'_>) -> Result<()> {
        w.field(0, "translation", &self.translation)?;
        w.field(16, "rotation", &self.rotation)?;
        w.field(32, "scale", &self.scale)
    }
}
