//! Animation as data: Havok's animation codecs decoded to frames, and encoded back.
//!
//! The codecs work on plain values: [`spline::SplineData`] holds exactly the members of an
//! `hkaSplineCompressedAnimation` that its data depends on, so the codec knows nothing of
//! documents, formats or SDKs. Reading those members out of a [`crate::Document`] and writing
//! them back is the job of the animation API beside the codecs.
//!
//! Frames are one shape for every codec: [`Frames`].

pub mod delta;
pub mod interleaved;
pub mod spline;
pub mod wavelet;

mod animation;
pub use animation::{
    animations, frame_and_delta, handles, sample, set_frames, Animation, Annotation, AnnotationTrack, BlendHint, Binding, Codec,
    EncodeOptions, RootMotion, Skeleton,
};

/// Every frame of every track of an animation, decoded.
///
/// Frame-major: the transform of track `t` at frame `f` is `transforms[f * track_count + t]`,
/// the float track `k` at frame `f` is `floats[f * float_track_count + k]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Frames {
    /// Frames per track.
    pub frame_count: usize,
    /// Transform tracks.
    pub track_count: usize,
    /// Translation xyz, rotation quaternion xyzw, scale xyz, per frame and track.
    pub transforms: Vec<Transform>,
    /// Float tracks.
    pub float_track_count: usize,
    /// The float tracks' values, per frame and track.
    pub floats: Vec<f32>,
}

/// One track's transform at one frame: translation xyz, rotation quaternion xyzw, scale xyz.
pub type Transform = [f32; 10];

/// The identity transform (no translation, no rotation, unit scale).
pub const IDENTITY: Transform = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0];

impl Frames {
    /// The transform of `track` at `frame`.
    pub fn transform(&self, frame: usize, track: usize) -> Option<&Transform> {
        if track >= self.track_count {
            return None;
        }
        self.transforms.get(frame.checked_mul(self.track_count)?.checked_add(track)?)
    }

    /// The value of float track `track` at `frame`.
    pub fn float(&self, frame: usize, track: usize) -> Option<f32> {
        if track >= self.float_track_count {
            return None;
        }
        self.floats.get(frame.checked_mul(self.float_track_count)?.checked_add(track)?).copied()
    }
}
