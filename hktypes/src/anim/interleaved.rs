//! `hkaInterleavedUncompressedAnimation` (and `hkaInterleavedSkeletalAnimation` of SDKs 5.5 to
//! 7.x): every frame of every track stored as it is, frame-major.
//!
//! `transforms` holds `frames * numberOfTransformTracks` `hkQsTransform`s (translation xyzw,
//! rotation xyzw, scale xyzw: 12 reals, the `w` of translation and scale unused) and `floats`
//! `frames * numberOfFloatTracks` reals; the transform of track `t` at frame `f` is
//! `transforms[f * tracks + t]`. The codec is lossless: [`encode`] of [`decode`] gives the same
//! reals, bit for bit, but the unused `w` words, which it writes as Havok's tools do (0 for
//! translation, 1 for scale) unless it is given the ones read.

use super::{Frames, Transform};
use crate::error::{ErrorKind, ValueError};

/// Reals per stored `hkQsTransform`.
pub const REALS_PER_TRANSFORM: usize = 12;

fn invalid(msg: String) -> ValueError {
    ValueError::new(ErrorKind::Invalid(msg))
}

/// The frame count the arrays imply: `transforms / tracks`, or `floats / float tracks` when
/// there are no transform tracks; an error when the arrays are not whole frames of the tracks.
pub fn frame_count(transforms: usize, floats: usize, tracks: usize, float_tracks: usize) -> Result<usize, ValueError> {
    let by_t = (tracks > 0).then(|| (transforms / tracks, transforms % tracks));
    let by_f = (float_tracks > 0).then(|| (floats / float_tracks, floats % float_tracks));
    match (by_t, by_f) {
        // Values for tracks the animation does not have would be dropped, or kept beside frames
        // that do not hold them.
        (None, _) if transforms > 0 && float_tracks > 0 => Err(invalid(format!("transforms: {transforms} transforms for no transform tracks"))),
        (_, None) if floats > 0 && tracks > 0 => Err(invalid(format!("floats: {floats} floats for no float tracks"))),
        (Some((_, r)), _) if r != 0 => Err(invalid(format!("transforms: {transforms} transforms are not whole frames of {tracks} tracks"))),
        (_, Some((_, r))) if r != 0 => Err(invalid(format!("floats: {floats} floats are not whole frames of {float_tracks} float tracks"))),
        (Some((a, _)), Some((b, _))) if a != b => {
            Err(invalid(format!("transforms hold {a} frames of {tracks} tracks, floats {b} frames of {float_tracks} float tracks")))
        }
        (Some((a, _)), _) => Ok(a),
        (None, Some((b, _))) => Ok(b),
        (None, None) if transforms == 0 && floats == 0 => Ok(0),
        (None, None) => Err(invalid(format!("{transforms} transforms and {floats} floats for no tracks"))),
    }
}

/// Decodes the reals of `transforms` (12 per transform) and `floats` for `tracks` transform
/// tracks and `float_tracks` float tracks.
pub fn decode(transforms: &[f32], floats: &[f32], tracks: usize, float_tracks: usize) -> Result<Frames, ValueError> {
    if !transforms.len().is_multiple_of(REALS_PER_TRANSFORM) {
        return Err(invalid(format!("transforms: {} reals are not whole hkQsTransforms of 12", transforms.len())));
    }
    let n = frame_count(transforms.len() / REALS_PER_TRANSFORM, floats.len(), tracks, float_tracks)?;
    let out = transforms
        .chunks_exact(REALS_PER_TRANSFORM)
        .map(|q| [q[0], q[1], q[2], q[4], q[5], q[6], q[7], q[8], q[9], q[10]])
        .collect();
    Ok(Frames { frame_count: n, track_count: tracks, transforms: out, float_track_count: float_tracks, floats: floats.to_vec() })
}

/// The stored reals of `frames`: 12 per transform (the unused `w` of translation 0, of scale 1,
/// or the ones of `w_words` where it holds two per transform), and the floats.
pub fn encode(frames: &Frames, w_words: Option<&[[f32; 2]]>) -> Result<(Vec<f32>, Vec<f32>), ValueError> {
    check(frames)?;
    let mut t = Vec::with_capacity(frames.transforms.len() * REALS_PER_TRANSFORM);
    let keep = w_words.filter(|w| w.len() == frames.transforms.len());
    for (k, x) in frames.transforms.iter().enumerate() {
        let [tw, sw] = keep.map_or([0.0, 1.0], |w| w[k]);
        t.extend_from_slice(&[x[0], x[1], x[2], tw, x[3], x[4], x[5], x[6], x[7], x[8], x[9], sw]);
    }
    Ok((t, frames.floats.clone()))
}

/// The checks every encoder makes of frames: the arrays hold `frame_count` whole frames, every
/// value is finite, every rotation a unit quaternion (within 0.01 of length 1: stock files hold rotations 1e-3 off). The error names
/// the frame, track and value.
pub fn check(frames: &Frames) -> Result<(), ValueError> {
    let want = frames.frame_count.checked_mul(frames.track_count);
    if want != Some(frames.transforms.len()) {
        return Err(invalid(format!(
            "frames hold {} transforms, not {} frames x {} tracks",
            frames.transforms.len(),
            frames.frame_count,
            frames.track_count
        )));
    }
    if frames.frame_count.checked_mul(frames.float_track_count) != Some(frames.floats.len()) {
        return Err(invalid(format!(
            "frames hold {} floats, not {} frames x {} float tracks",
            frames.floats.len(),
            frames.frame_count,
            frames.float_track_count
        )));
    }
    for (k, x) in frames.transforms.iter().enumerate() {
        let (f, t) = (k / frames.track_count.max(1), k % frames.track_count.max(1));
        if let Some(i) = x.iter().position(|v| !v.is_finite()) {
            return Err(invalid(format!("frame {f}, track {t}: value {i} is {} (not finite)", x[i])));
        }
        let len = quat_len(x);
        if (len - 1.0).abs() > 0.01 {
            return Err(invalid(format!("frame {f}, track {t}: the rotation {:?} is no unit quaternion (length {len})", &x[3..7])));
        }
    }
    if let Some(k) = frames.floats.iter().position(|v| !v.is_finite()) {
        let n = frames.float_track_count.max(1);
        return Err(invalid(format!("frame {}, float track {}: {} is not finite", k / n, k % n, frames.floats[k])));
    }
    Ok(())
}

fn quat_len(x: &Transform) -> f32 {
    (x[3] * x[3] + x[4] * x[4] + x[5] * x[5] + x[6] * x[6]).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::IDENTITY;

    #[test]
    fn round_trip_is_exact_and_checks_name_the_problem() {
        let mut a = IDENTITY;
        a[0] = 1.5;
        let f = Frames { frame_count: 2, track_count: 1, transforms: vec![IDENTITY, a], float_track_count: 1, floats: vec![0.25, 0.5] };
        let (t, fl) = encode(&f, None).unwrap();
        assert_eq!(t.len(), 24);
        assert_eq!(decode(&t, &fl, 1, 1).unwrap(), f);
        let mut bad = f.clone();
        bad.transforms[1][6] = 2.0;
        assert!(check(&bad).unwrap_err().to_string().contains("frame 1, track 0"));
        bad.transforms[1][0] = f32::NAN;
        assert!(check(&bad).unwrap_err().to_string().contains("not finite"));
        assert!(decode(&t[..12], &fl, 1, 1).unwrap_err().to_string().contains("1 frames"));
        assert!(decode(&t[..13], &fl, 1, 1).is_err());
    }
}
