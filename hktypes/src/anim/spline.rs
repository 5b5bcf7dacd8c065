//! `hkaSplineCompressedAnimation`: decoding its blocks to frames, and encoding frames to blocks.
//!
//! (Skeleton laid down for the codec's owner; the types below are the interface the animation
//! API relies on.)

use super::Frames;

/// Byte order of the spline `data` (the file's: Wii U files are big-endian).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endian {
    /// Little-endian.
    Little,
    /// Big-endian.
    Big,
}

/// The members of an `hkaSplineCompressedAnimation` (and of its `hkaAnimation` parent) that its
/// data depends on, as the file holds them.
#[derive(Clone, Debug, PartialEq)]
pub struct SplineData {
    /// `hkaAnimation.duration`, seconds.
    pub duration: f32,
    /// `hkaAnimation.numberOfTransformTracks`.
    pub number_of_transform_tracks: u32,
    /// `hkaAnimation.numberOfFloatTracks`.
    pub number_of_float_tracks: u32,
    /// `numFrames`.
    pub num_frames: u32,
    /// `numBlocks`.
    pub num_blocks: u32,
    /// `maxFramesPerBlock`.
    pub max_frames_per_block: u32,
    /// `maskAndQuantizationSize`.
    pub mask_and_quantization_size: u32,
    /// `blockDuration`.
    pub block_duration: f32,
    /// `blockInverseDuration`.
    pub block_inverse_duration: f32,
    /// `frameDuration`.
    pub frame_duration: f32,
    /// `blockOffsets`.
    pub block_offsets: Vec<u32>,
    /// `floatBlockOffsets`.
    pub float_block_offsets: Vec<u32>,
    /// `transformOffsets`.
    pub transform_offsets: Vec<u32>,
    /// `floatOffsets`.
    pub float_offsets: Vec<u32>,
    /// `data`.
    pub data: Vec<u8>,
    /// `endian` (the member, where the SDK has it; 0 when it does not).
    pub endian_member: i32,
    /// The byte order `data` is in.
    pub endian: Endian,
}

/// Decodes every frame of every track.
pub fn decode(_spline: &SplineData) -> Result<Frames, crate::error::ValueError> {
    Err(crate::error::ValueError::new(crate::error::ErrorKind::Invalid(
        "spline decoding is not written yet".into(),
    )))
}
