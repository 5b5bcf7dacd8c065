//! `hkaDeltaCompressedAnimation` (`hkaDeltaCompressedSkeletalAnimation` of SDKs 5.5 to 7.x):
//! each animated degree of freedom stored per block as its first value and then the differences
//! of the following frames, quantized to a few bits.
//!
//! The layout of `dataBuffer` (byte offsets are members of the object; numbers little-endian in
//! every file, big-endian platforms' too):
//! - `qFormat.bitWidthIdx`: one `u8` bit width per dynamic degree of freedom (`qFormat.numD` of
//!   them); `qFormat.offsetIdx` and `qFormat.scaleIdx`: one `f32` offset and scale per dynamic
//!   degree of freedom;
//! - `staticMaskIdx`: one `u16` mask per transform track, then per float track. Bits 0-1, 2-3 and
//!   4-5 are the kind of the translation, rotation and scale (0 animated, 1 static, 2 identity);
//!   bits 6 to 15 say which components are animated: 6 translation z, 7 y, 8 x, 9 rotation w,
//!   10 z, 11 y, 12 x, 13 scale z, 14 y, 15 x;
//! - `staticDOFsIdx`: the `f32` values of what is not animated: a static translation or scale
//!   (3 values), a static rotation (4), and the components an animated part does not animate
//!   (in x, y, z, w order), track by track, then a static float track's value;
//! - `quantizedDataIdx`: the blocks. Frames go in blocks of `blockSize` (the last holds the
//!   rest); per block, per dynamic degree of freedom in the order the masks give them (each
//!   track's translation x y z, rotation x y z w, scale x y z, then the float tracks):
//!   `qFormat.preserved` values as `f32`, then one quantized difference per remaining frame of
//!   the block, `bitWidth` bits each, packed from the low bit of 32-bit words up and taking the
//!   whole bytes they need. A difference `q` gives `previous + offset + q * scale / (2^bits - 1)`.
//! - A decoded rotation whose `w` is 2 or -2 stands for a `w` of that sign computed from `x y z`
//!   (the unit quaternion's).
//!
//! Every index, count and width is checked against the buffer before it is used: a member that
//! lies is an error naming it, never a read out of bounds or an allocation out of proportion to
//! the buffer.

use super::{Frames, IDENTITY};
use crate::dump::Members;
use crate::error::{ErrorKind, ValueError};
use crate::members::ValExt;

/// The most transforms and floats a decoder makes (frames times tracks): 4 Mi, 160 MiB of
/// transforms. An animation stating more is refused.
pub const MAX_DECODED: usize = 1 << 22;

/// The members of a delta-compressed animation that its data depends on.
#[derive(Clone, Debug, PartialEq)]
pub struct DeltaData {
    /// `numberOfTransformTracks`.
    pub tracks: usize,
    /// `numberOfFloatTracks`.
    pub float_tracks: usize,
    /// `numberOfPoses`.
    pub poses: usize,
    /// `blockSize`.
    pub block_size: usize,
    /// `qFormat.preserved`.
    pub preserved: usize,
    /// `qFormat.numD`.
    pub num_d: usize,
    /// `qFormat.offsetIdx`.
    pub offset_idx: usize,
    /// `qFormat.scaleIdx`.
    pub scale_idx: usize,
    /// `qFormat.bitWidthIdx`.
    pub bit_width_idx: usize,
    /// `quantizedDataIdx`.
    pub quantized_idx: usize,
    /// `staticMaskIdx`.
    pub static_mask_idx: usize,
    /// `staticDOFsIdx`.
    pub static_dofs_idx: usize,
    /// `dataBuffer`.
    pub data: Vec<u8>,
    /// The byte order of the numbers in `data`.
    pub big_endian: bool,
}

fn invalid(msg: String) -> ValueError {
    ValueError::new(ErrorKind::Invalid(msg))
}

/// The members a delta or wavelet animation's decoder takes, read from its [`Members`]: counts
/// and indices (top level or in `qFormat`) and the `dataBuffer` bytes, each error naming the
/// object and the member.
pub(super) struct QuantizedMembers<'a> {
    ms: &'a Members,
    q: &'a crate::dump::Val,
    at: String,
}

impl<'a> QuantizedMembers<'a> {
    pub(super) fn of(ms: &'a Members, anim: &super::Animation) -> Result<Self, ValueError> {
        let at = format!("object {} ({})", anim.handle.0, anim.class);
        Ok(QuantizedMembers { ms, q: ms.need("qFormat", &at)?, at })
    }

    fn count_of(&self, v: Option<&crate::dump::Val>, name: &str) -> Result<usize, ValueError> {
        let v = v.ok_or_else(|| invalid(format!("{}: no member {name}", self.at)))?;
        v.as_u64().and_then(|u| usize::try_from(u).ok()).ok_or_else(|| invalid(format!("{}.{name}: not a count", self.at)))
    }

    /// The count or index `name` of the object.
    pub(super) fn count(&self, name: &str) -> Result<usize, ValueError> {
        self.count_of(self.ms.get(name), name)
    }

    /// The count or index `name` of its `qFormat`.
    pub(super) fn q_count(&self, name: &str) -> Result<usize, ValueError> {
        self.count_of(self.q.field(name), &format!("qFormat.{name}"))
    }

    /// The count or index `name`, or under its older name `old`.
    fn count_or(&self, name: &str, old: &str) -> Result<usize, ValueError> {
        self.count_of(self.ms.get(name).or_else(|| self.ms.get(old)), name)
    }

    /// The `dataBuffer` bytes.
    pub(super) fn data(&self) -> Result<Vec<u8>, ValueError> {
        let at = &self.at;
        self.ms
            .need("dataBuffer", at)?
            .as_list()
            .ok_or_else(|| invalid(format!("{at}.dataBuffer: not an array")))?
            .iter()
            .map(|v| v.as_u64().and_then(|u| u8::try_from(u).ok()).ok_or_else(|| invalid(format!("{at}.dataBuffer: not bytes"))))
            .collect()
    }
}

impl DeltaData {
    /// The members of `anim` (an animation of the delta codec) as the decoder takes them.
    pub fn from_members(ms: &Members, anim: &super::Animation) -> Result<DeltaData, ValueError> {
        let m = QuantizedMembers::of(ms, anim)?;
        Ok(DeltaData {
            tracks: anim.track_count,
            float_tracks: anim.float_track_count,
            poses: m.count("numberOfPoses")?,
            block_size: m.count("blockSize")?,
            preserved: m.q_count("preserved")?,
            num_d: m.q_count("numD")?,
            offset_idx: m.q_count("offsetIdx")?,
            scale_idx: m.q_count("scaleIdx")?,
            bit_width_idx: m.q_count("bitWidthIdx")?,
            quantized_idx: m.count("quantizedDataIdx")?,
            static_mask_idx: m.count("staticMaskIdx")?,
            static_dofs_idx: m.count_or("staticDOFsIdx", "maskDOFsIdx")?,
            data: m.data()?,
            // The buffer is little-endian on every platform: the big-endian HavokLib files
            // (2010.1 and 5.5, 4- and 8-byte pointers) hold the same `dataBuffer` bytes as the
            // little-endian ones of the same clip.
            big_endian: false,
        })
    }

    fn slice(&self, at: usize, len: usize, what: &str) -> Result<&[u8], ValueError> {
        slice(&self.data, at, len, what)
    }

    fn f32_at(&self, b: &[u8]) -> f32 {
        f32_at(b, self.big_endian)
    }
}

/// `len` bytes of `dataBuffer` at byte `at`, or an error located there naming `what`.
pub(super) fn slice<'a>(data: &'a [u8], at: usize, len: usize, what: &str) -> Result<&'a [u8], ValueError> {
    at.checked_add(len).and_then(|end| data.get(at..end)).ok_or_else(|| {
        ValueError::at(at as u64, ErrorKind::Invalid(format!("dataBuffer: {what} ({len} bytes at {at}) lies outside its {} bytes", data.len())))
    })
}

/// The `f32` in the first 4 bytes of `b` (which holds at least 4).
pub(super) fn f32_at(b: &[u8], big_endian: bool) -> f32 {
    let w = [b[0], b[1], b[2], b[3]];
    f32::from_bits(if big_endian { u32::from_be_bytes(w) } else { u32::from_le_bytes(w) })
}

/// The static masks: one `u16` per transform track, then per float track, at `static_mask_idx`.
pub(super) fn static_masks(data: &[u8], static_mask_idx: usize, per_frame: usize, big_endian: bool) -> Result<Vec<u16>, ValueError> {
    let mask_bytes = per_frame.checked_mul(2).ok_or_else(|| invalid("track counts overflow".into()))?;
    Ok(slice(data, static_mask_idx, mask_bytes, "the static masks")?
        .chunks_exact(2)
        .map(|b| if big_endian { u16::from_be_bytes([b[0], b[1]]) } else { u16::from_le_bytes([b[0], b[1]]) })
        .collect())
}

/// How many dynamic values `masks` name (the first `tracks` are transform tracks' masks, the
/// rest float tracks'): what `qFormat.numD` must be.
pub(super) fn named_dynamic(masks: &[u16], tracks: usize) -> usize {
    let mut named = 0usize;
    for (t, &m) in masks.iter().enumerate() {
        if t < tracks {
            named += (m >> 6).count_ones() as usize;
        } else if m & 3 == DYNAMIC {
            named += 1;
        }
    }
    named
}

/// The 32-bit word at byte `at` of `data` in its byte order, zero beyond its end.
fn word(data: &[u8], at: usize, big: bool) -> u32 {
    let mut w = [0u8; 4];
    for (k, b) in w.iter_mut().enumerate() {
        *b = at.checked_add(k).and_then(|i| data.get(i)).copied().unwrap_or(0);
    }
    if big {
        u32::from_be_bytes(w)
    } else {
        u32::from_le_bytes(w)
    }
}

/// The kinds a mask gives a part.
const DYNAMIC: u16 = 0;
const STATIC: u16 = 1;
const IDENTITY_KIND: u16 = 2;

/// Decodes every frame of every track.
pub fn decode(d: &DeltaData) -> Result<Frames, ValueError> {
    let (tracks, floats, frames) = (d.tracks, d.float_tracks, d.poses);
    let per_frame = tracks.checked_add(floats).ok_or_else(|| invalid("track counts overflow".into()))?;
    // The frame count bounds every loop below (an animation of no tracks still counts frames).
    if frames > MAX_DECODED || frames.checked_mul(per_frame).is_none_or(|n| n > MAX_DECODED) {
        return Err(invalid(format!("numberOfPoses: {frames} frames of {per_frame} tracks is more than {MAX_DECODED} values")));
    }
    if frames > 0 && d.block_size == 0 {
        return Err(invalid("blockSize: 0 for a non-empty animation".into()));
    }
    let masks = static_masks(&d.data, d.static_mask_idx, per_frame, d.big_endian)?;
    let widths = d.slice(d.bit_width_idx, d.num_d, "the bit widths")?;
    if let Some(k) = widths.iter().position(|&w| w > 32) {
        return Err(invalid(format!("qFormat: the bit width of dynamic value {k} is {}, more than 32", widths[k])));
    }
    let nd4 = d.num_d.checked_mul(4).ok_or_else(|| invalid("qFormat.numD overflows".into()))?;
    let offsets: Vec<f32> = d.slice(d.offset_idx, nd4, "the offsets")?.chunks_exact(4).map(|b| d.f32_at(b)).collect();
    let scales: Vec<f32> = d.slice(d.scale_idx, nd4, "the scales")?.chunks_exact(4).map(|b| d.f32_at(b)).collect();
    // How many dynamic values the masks name: it must be numD.
    let named = named_dynamic(&masks, tracks);
    if named != d.num_d {
        return Err(invalid(format!("qFormat.numD: {} dynamic values, the static masks name {named}", d.num_d)));
    }
    // The dynamic values, each `frames` long.
    let mut dynamic = vec![0f32; d.num_d.checked_mul(frames).filter(|&n| n <= MAX_DECODED).ok_or_else(|| {
        invalid(format!("qFormat.numD: {} dynamic values of {frames} frames is more than {MAX_DECODED}", d.num_d))
    })?];
    let mut at = d.quantized_idx;
    // No dynamic values, no blocks to read.
    let blocks = if frames == 0 || d.num_d == 0 { 0 } else { frames.div_ceil(d.block_size) };
    for b in 0..blocks {
        let first = b * d.block_size;
        let n = d.block_size.min(frames - first);
        for p in 0..d.num_d {
            let track = &mut dynamic[p * frames..(p + 1) * frames];
            let keep = d.preserved.min(n);
            for k in 0..d.preserved {
                let x = d.f32_at(d.slice(at, 4, "a preserved value")?);
                if k < keep {
                    track[first + k] = x;
                }
                at += 4;
            }
            let deltas = n.saturating_sub(keep.max(1));
            let width = u32::from(widths[p]);
            let bytes = (width as usize * deltas).div_ceil(8);
            let block = d.slice(at, bytes, "a block's differences")?;
            let mask: u64 = (1u64 << width) - 1;
            let step = if mask == 0 { 0.0 } else { scales[p] / mask as f32 };
            let mut prev = if keep > 0 { track[first + keep - 1] } else { 0.0 };
            for k in 0..deltas {
                let bit = k * width as usize;
                let (w0, shift) = (bit / 32, bit % 32);
                let lo = u64::from(word(block, 4 * w0, d.big_endian));
                let hi = u64::from(word(block, 4 * w0 + 4, d.big_endian));
                // Bits past the block's bytes are not the block's: zero them.
                let avail = (8 * bytes).saturating_sub(32 * w0) as u32;
                let joined = (lo | (hi << 32)) & if avail >= 64 { u64::MAX } else { (1u64 << avail) - 1 };
                let q = (joined >> shift) & mask;
                prev += offsets[p] + q as f32 * step;
                track[first + keep.max(1) + k] = prev;
            }
            at += bytes;
        }
    }
    recompose(&d.data, d.big_endian, d.static_dofs_idx, &masks, tracks, floats, frames, &dynamic)
}

/// The frames of an animation whose dynamic values are decoded: `dynamic` holds each dynamic
/// degree of freedom's `frames` values, one after the other in the order the static `masks`
/// name them; the rest comes from the static values at `static_dofs_idx` of `data` (consumed in
/// mask order) and the identity. The delta and wavelet codecs share this layout.
#[allow(clippy::too_many_arguments)]
pub(super) fn recompose(
    data: &[u8],
    big_endian: bool,
    static_dofs_idx: usize,
    masks: &[u16],
    tracks: usize,
    floats: usize,
    frames: usize,
    dynamic: &[f32],
) -> Result<Frames, ValueError> {
    let named = named_dynamic(masks, tracks);
    if tracks.checked_add(floats) != Some(masks.len()) || named.checked_mul(frames) != Some(dynamic.len()) {
        return Err(invalid(format!(
            "{} dynamic values for {frames} frames of the {named} the static masks name ({} masks for {tracks} + {floats} tracks)",
            dynamic.len(),
            masks.len()
        )));
    }
    // Static values, consumed in mask order.
    let mut st = static_dofs_idx;
    let mut next_static = |what: &str| -> Result<f32, ValueError> {
        let x = f32_at(slice(data, st, 4, what)?, big_endian);
        st += 4;
        Ok(x)
    };
    let mut next_dyn = 0usize;
    // Per track and part: the constant value and which components are dynamic (their index).
    let mut layout: Vec<[([f32; 4], [Option<usize>; 4]); 3]> = Vec::with_capacity(tracks);
    for (t, &m) in masks.iter().enumerate().take(tracks) {
        let mut one = [([0f32; 4], [None; 4]); 3];
        // Part: (kind bits, dynamic bits of x y z [w], components, identity value).
        let spec: [(u16, &[u16], [f32; 4]); 3] = [
            ((m) & 3, &[8, 7, 6], [0.0, 0.0, 0.0, 0.0]),
            ((m >> 2) & 3, &[12, 11, 10, 9], [0.0, 0.0, 0.0, 1.0]),
            ((m >> 4) & 3, &[15, 14, 13], [1.0, 1.0, 1.0, 0.0]),
        ];
        for (k, (kind, bits, ident)) in spec.iter().enumerate() {
            let (value, dynamic_of) = &mut one[k];
            *value = *ident;
            match *kind {
                IDENTITY_KIND => {}
                STATIC => {
                    for c in 0..bits.len() {
                        value[c] = next_static(&format!("track {t}: a static value"))?;
                    }
                }
                DYNAMIC => {
                    for (c, bit) in bits.iter().enumerate() {
                        if m & (1 << bit) != 0 {
                            dynamic_of[c] = Some(next_dyn);
                            next_dyn += 1;
                        } else {
                            value[c] = next_static(&format!("track {t}: a static component"))?;
                        }
                    }
                }
                other => return Err(invalid(format!("track {t}: static mask {m:#06x} gives part {k} the kind {other}, which is none"))),
            }
        }
        layout.push(one);
    }
    let mut float_src: Vec<Result<usize, f32>> = Vec::with_capacity(floats);
    for (k, &m) in masks.iter().enumerate().skip(tracks) {
        float_src.push(match m & 3 {
            DYNAMIC => {
                next_dyn += 1;
                Ok(next_dyn - 1)
            }
            STATIC => Err(next_static(&format!("float track {}: its static value", k - tracks))?),
            _ => Err(0.0),
        });
    }
    let mut out = Frames { frame_count: frames, track_count: tracks, transforms: vec![IDENTITY; frames * tracks], float_track_count: floats, floats: vec![0.0; frames * floats] };
    for f in 0..frames {
        for (t, parts) in layout.iter().enumerate() {
            let x = &mut out.transforms[f * tracks + t];
            for (k, (value, dyn_of)) in parts.iter().enumerate() {
                let mut v = *value;
                for c in 0..4 {
                    if let Some(p) = dyn_of[c] {
                        v[c] = dynamic[p * frames + f];
                    }
                }
                match k {
                    0 => x[0..3].copy_from_slice(&v[0..3]),
                    1 => {
                        if v[3] == 2.0 || v[3] == -2.0 {
                            let s = v[3] * 0.5;
                            v[3] = s * (1.0 - v[0] * v[0] - v[1] * v[1] - v[2] * v[2]).max(0.0).sqrt();
                        }
                        x[3..7].copy_from_slice(&v);
                    }
                    _ => x[7..10].copy_from_slice(&v[0..3]),
                }
            }
        }
        for (k, src) in float_src.iter().enumerate() {
            out.floats[f * floats + k] = match *src {
                Ok(p) => dynamic[p * frames + f],
                Err(c) => c,
            };
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> DeltaData {
        DeltaData {
            tracks: 1,
            float_tracks: 0,
            poses: 3,
            block_size: 2,
            preserved: 1,
            num_d: 1,
            offset_idx: 0,
            scale_idx: 4,
            bit_width_idx: 8,
            quantized_idx: 12,
            static_mask_idx: 10,
            static_dofs_idx: 24,
            data: Vec::new(),
            big_endian: false,
        }
    }

    #[test]
    fn one_animated_component_decodes_and_lies_are_located() {
        // Translation x animated (bit 8), rotation and scale identity, y z static 0.
        let mask: u16 = (1 << 8) | (2 << 2) | (2 << 4);
        let mut data = Vec::new();
        data.extend_from_slice(&0.5f32.to_le_bytes()); // offset
        data.extend_from_slice(&3.0f32.to_le_bytes()); // scale
        data.extend_from_slice(&[2, 0]); // bit width 2, pad
        data.extend_from_slice(&mask.to_le_bytes());
        // block 0: preserved 1.0, one 2-bit difference 3 -> 1 + 0.5 + 3 = 4.5
        data.extend_from_slice(&1.0f32.to_le_bytes());
        data.push(0b11);
        // block 1 (one frame): preserved 7.0, no differences
        data.extend_from_slice(&7.0f32.to_le_bytes());
        while data.len() < 24 {
            data.push(0);
        }
        data.extend_from_slice(&0f32.to_le_bytes());
        data.extend_from_slice(&0f32.to_le_bytes());
        let mut d = base();
        d.static_dofs_idx = data.len() - 8;
        d.data = data;
        let f = decode(&d).unwrap();
        let xs: Vec<f32> = (0..3).map(|k| f.transform(k, 0).unwrap()[0]).collect();
        assert_eq!(xs, vec![1.0, 4.5, 7.0]);
        assert_eq!(f.transform(1, 0).unwrap()[6], 1.0);
        let mut bad = d.clone();
        bad.poses = usize::MAX / 2;
        assert!(decode(&bad).is_err());
        let mut bad = d.clone();
        bad.num_d = 2;
        assert!(decode(&bad).unwrap_err().to_string().contains("numD"));
        let mut bad = d.clone();
        bad.quantized_idx = 1 << 40;
        assert!(decode(&bad).is_err());
        let mut bad = d;
        bad.block_size = 0;
        assert!(decode(&bad).is_err());
    }
}
