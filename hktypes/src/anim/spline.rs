//! `hkaSplineCompressedAnimation`: decoding its blocks to frames, and encoding frames to blocks.
//!
//! # The data
//!
//! The animation's frames are cut into blocks of at most `maxFramesPerBlock` frames; neighbouring
//! blocks share one frame (block `b` starts at frame `b * (maxFramesPerBlock - 1)`), and a frame
//! on a boundary is read from the later block. Block `b` starts at `blockOffsets[b]` in `data`:
//!
//! - one 4-byte mask per transform track (quantization byte: translation quantization in bits
//!   0..2, rotation quantization in bits 2..6, scale quantization in bits 6..8; then the
//!   translation, rotation and scale channel bytes), then one byte per float track (its
//!   quantization in bits 1..3): `maskAndQuantizationSize` bytes, padded to 4;
//! - per transform track, its translation, rotation and scale channels; then, at
//!   `floatBlockOffsets[b]` from the block's start, the float tracks.
//!
//! A channel byte holds a "static" bit (low nibble) and a "spline" bit (high nibble) per
//! component: a component with neither is the identity (0 for translation and floats, 1 for
//! scale, `(0,0,0,1)` for rotation, whose bits are all-or-nothing). A vector channel with a
//! spline component is a B-spline: `u16` largest control point index `n`, `u8` degree `p`,
//! `n + p + 2` knots (bytes, in frames of the block), padding to 4, then per component either a
//! float minimum and maximum (spline), one float (static) or nothing (identity), then the `n + 1`
//! control points, each with one 8- or 16-bit integer per spline component, padding to 4. A
//! vector channel without a spline component is its static floats. A rotation is a spline
//! (header and knots as above, padding to its quantization's alignment, `n + 1` quantized
//! quaternions) or one quantized quaternion, then padding to 4.
//!
//! Havok evaluates a spline at a block's local frame with the knot span search of *The NURBS
//! Book* (A2.1) and the Cox–de Boor basis functions; so does [`decode`]. Rotations are the
//! spline of quaternions, normalised ([`decode`] and [`sample`] give unit quaternions, as the
//! runtime's `hkaSkeletonUtils::normalizeRotations` does after sampling).
//!
//! Every read is bounds-checked and every count is checked against the bytes it needs before
//! anything is allocated: a lying count, code, offset or knot vector gives an error naming the
//! byte offset in `data` and the block, track and channel.

mod encode;
pub mod quant;

pub use encode::{encode, SplineOptions};
pub use quant::{RotationQuantization, ScalarQuantization};

use super::{Frames, Transform, IDENTITY};
use crate::error::ValueError;

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
    /// The byte order `data` is in: where the class has the `endian` member, 0 is little-endian
    /// and 1 big-endian, whatever the file's platform (the stock big-endian packfiles of SDKs
    /// 2010 to 2014 hold little-endian spline data with `endian` 0); where it has none, the
    /// file's byte order.
    pub endian: Endian,
}

/// The largest spline degree Havok writes and reads (`hkaSplineCompressedAnimation::MAX_DEGREE`).
pub const MAX_DEGREE: usize = 3;

// ---------------------------------------------------------------------------------------------
// Reading

/// A bounds-checked cursor over `data`, naming the block and channel in its errors.
struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    endian: Endian,
    place: String,
}

impl<'a> Reader<'a> {
    fn err(&self, at: usize, msg: impl std::fmt::Display) -> ValueError {
        ValueError::invalid(at as u64, format!("spline data offset {at}, {}: {msg}", self.place))
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], ValueError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        match end {
            Some(end) => {
                let s = &self.data[self.pos..end];
                self.pos = end;
                Ok(s)
            }
            None => Err(self.err(
                self.pos,
                format!("{what} needs {n} bytes, {} left", self.data.len().saturating_sub(self.pos)),
            )),
        }
    }

    fn u8(&mut self, what: &str) -> Result<u8, ValueError> {
        Ok(self.take(1, what)?[0])
    }

    fn u16(&mut self, what: &str) -> Result<u16, ValueError> {
        let b = self.take(2, what)?;
        Ok(match self.endian {
            Endian::Little => u16::from_le_bytes([b[0], b[1]]),
            Endian::Big => u16::from_be_bytes([b[0], b[1]]),
        })
    }

    fn f32(&mut self, what: &str) -> Result<f32, ValueError> {
        let b = self.take(4, what)?;
        let bits = match self.endian {
            Endian::Little => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            Endian::Big => u32::from_be_bytes([b[0], b[1], b[2], b[3]]),
        };
        Ok(f32::from_bits(bits))
    }

    fn align(&mut self, to: usize) {
        self.pos = self.pos.div_ceil(to) * to;
    }

    /// Checks that `count` items of `size` bytes fit before allocating for them.
    fn room(&self, count: usize, size: usize, what: &str) -> Result<(), ValueError> {
        let left = self.data.len().saturating_sub(self.pos);
        if count.checked_mul(size).is_none_or(|n| n > left) {
            return Err(self.err(self.pos, format!("{count} {what} of {size} bytes do not fit in the {left} bytes left")));
        }
        Ok(())
    }
}

/// A B-spline of `N` components: degree, knots (frames of the block) and control points.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Curve<const N: usize> {
    pub degree: usize,
    pub knots: Vec<f32>,
    pub points: Vec<[f32; N]>,
}

impl<const N: usize> Curve<N> {
    /// The value at local frame `u` (clamped to the knot range, as Havok's span search clamps).
    pub fn eval(&self, u: f32) -> [f32; N] {
        let p = self.degree;
        let n = self.points.len() - 1;
        let span = find_span(n, p, u, &self.knots);
        let basis = basis_functions(span, u, p, &self.knots);
        let mut out = [0.0; N];
        for (i, b) in basis.iter().enumerate().take(p + 1) {
            let pt = &self.points[span - p + i];
            for c in 0..N {
                out[c] += b * pt[c];
            }
        }
        out
    }
}

/// The knot span of `u`: the `i` in `p..=n` with `U[i] <= u < U[i+1]` (A2.1 of *The NURBS Book*),
/// `n` past the end and `p` before the start. `knots` is non-decreasing with `n + p + 2` entries.
pub(crate) fn find_span(n: usize, p: usize, u: f32, knots: &[f32]) -> usize {
    if u >= knots[n + 1] {
        return n;
    }
    if u <= knots[p] {
        return p;
    }
    // The last i in p..=n with knots[i] <= u.
    let count = knots[p..=n].partition_point(|&k| k <= u);
    (p + count).saturating_sub(1).clamp(p, n)
}

/// The `p + 1` non-zero basis functions at `u` in `span` (A2.2 of *The NURBS Book*); a zero-width
/// interval contributes nothing.
pub(crate) fn basis_functions(span: usize, u: f32, p: usize, knots: &[f32]) -> [f32; MAX_DEGREE + 1] {
    let mut n = [0.0f32; MAX_DEGREE + 1];
    let mut left = [0.0f32; MAX_DEGREE + 1];
    let mut right = [0.0f32; MAX_DEGREE + 1];
    n[0] = 1.0;
    for j in 1..=p {
        left[j] = u - knots[span + 1 - j];
        right[j] = knots[span + j] - u;
        let mut saved = 0.0;
        for r in 0..j {
            let den = right[r + 1] + left[j - r];
            let temp = if den != 0.0 { n[r] / den } else { 0.0 };
            n[r] = saved + right[r + 1] * temp;
            saved = left[j - r] * temp;
        }
        n[j] = saved;
    }
    n
}

/// A translation, scale or float channel: per component a constant (static or identity) or the
/// curve's value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct VecChannel<const N: usize> {
    pub consts: [f32; N],
    pub dynamic: [bool; N],
    pub curve: Option<Curve<N>>,
}

impl<const N: usize> VecChannel<N> {
    fn eval(&self, u: f32) -> [f32; N] {
        let mut out = self.consts;
        if let Some(c) = &self.curve {
            let v = c.eval(u);
            for i in 0..N {
                if self.dynamic[i] {
                    out[i] = v[i];
                }
            }
        }
        out
    }
}

/// A rotation channel.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum RotChannel {
    Const([f32; 4]),
    Spline(Curve<4>),
}

impl RotChannel {
    fn eval(&self, u: f32) -> [f32; 4] {
        match self {
            RotChannel::Const(q) => quant::normalized(*q),
            RotChannel::Spline(c) => quant::normalized(c.eval(u)),
        }
    }
}

/// One block, read.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Block {
    pub tracks: Vec<(VecChannel<3>, RotChannel, VecChannel<3>)>,
    pub floats: Vec<VecChannel<1>>,
}

/// The header and knots of a spline channel: `(n, p, knots)`, checked.
fn read_knots(r: &mut Reader<'_>, frames: usize) -> Result<(usize, usize, Vec<f32>), ValueError> {
    let at = r.pos;
    let n = r.u16("the control point count")? as usize;
    let p = r.u8("the degree")? as usize;
    if p == 0 || p > MAX_DEGREE {
        return Err(r.err(at, format!("spline degree {p} (Havok's are 1 to {MAX_DEGREE})")));
    }
    if n < p {
        return Err(r.err(at, format!("{} control points for a spline of degree {p}", n + 1)));
    }
    let count = n + p + 2;
    let kat = r.pos;
    let bytes = r.take(count, "the knots")?;
    if let Some(i) = bytes.windows(2).position(|w| w[1] < w[0]) {
        return Err(r.err(kat + i, format!("the knots decrease ({} then {}, knot {i} of {count})", bytes[i], bytes[i + 1])));
    }
    if bytes[p] as usize > 0 || (bytes[n + 1] as usize) + 1 < frames {
        return Err(r.err(
            kat,
            format!("the knots span frames {} to {}, the block has frames 0 to {}", bytes[p], bytes[n + 1], frames.saturating_sub(1)),
        ));
    }
    Ok((n, p, bytes.iter().map(|&k| k as f32).collect()))
}

/// A translation, scale or float channel whose mask is `mask` (static bits 0..N, spline bits
/// 4..4+N), identity value `identity`.
fn read_vec<const N: usize>(
    r: &mut Reader<'_>,
    mask: u8,
    q: ScalarQuantization,
    identity: f32,
    frames: usize,
) -> Result<VecChannel<N>, ValueError> {
    let mut consts = [identity; N];
    let mut dynamic = [false; N];
    let mut is_static = [false; N];
    for i in 0..N {
        is_static[i] = mask & (1 << i) != 0;
        dynamic[i] = !is_static[i] && mask & (0x10 << i) != 0;
    }
    if !dynamic.iter().any(|&d| d) {
        for i in 0..N {
            if is_static[i] {
                consts[i] = r.f32("a static value")?;
            }
        }
        return Ok(VecChannel { consts, dynamic, curve: None });
    }
    let (n, p, knots) = read_knots(r, frames)?;
    r.align(4);
    let mut range = [(0.0f32, 0.0f32); N];
    for i in 0..N {
        if dynamic[i] {
            range[i] = (r.f32("a minimum")?, r.f32("a maximum")?);
        } else if is_static[i] {
            consts[i] = r.f32("a static value")?;
        }
    }
    let per = dynamic.iter().filter(|&&d| d).count() * q.size();
    r.room(n + 1, per, "control points")?;
    let span = q.span();
    let mut points = Vec::with_capacity(n + 1);
    for _ in 0..=n {
        let mut pt = consts;
        for i in 0..N {
            if dynamic[i] {
                let v = match q {
                    ScalarQuantization::Bits8 => r.u8("a control point")? as u32,
                    ScalarQuantization::Bits16 => r.u16("a control point")? as u32,
                };
                pt[i] = quant::unpack_scalar(range[i].0, range[i].1, v, span);
            }
        }
        points.push(pt);
    }
    r.align(4);
    Ok(VecChannel { consts, dynamic, curve: Some(Curve { degree: p, knots, points }) })
}

fn read_rotation(r: &mut Reader<'_>, mask: u8, q: RotationQuantization, frames: usize) -> Result<RotChannel, ValueError> {
    let out = if mask & 0xf0 != 0 {
        let (n, p, knots) = read_knots(r, frames)?;
        r.align(q.align());
        r.room(n + 1, q.size(), "quaternions")?;
        let mut points = Vec::with_capacity(n + 1);
        for _ in 0..=n {
            let b = r.take(q.size(), "a quaternion")?;
            points.push(quant::unpack_quaternion(q, b, r.endian));
        }
        RotChannel::Spline(Curve { degree: p, knots, points })
    } else if mask & 0x0f != 0 {
        r.align(q.align());
        let b = r.take(q.size(), "a quaternion")?;
        RotChannel::Const(quant::unpack_quaternion(q, b, r.endian))
    } else {
        RotChannel::Const([0.0, 0.0, 0.0, 1.0])
    };
    r.align(4);
    Ok(out)
}

/// The members checked against each other and the data; `(frames_per_block_step, blocks)`.
fn check_header(s: &SplineData) -> Result<usize, ValueError> {
    let bad = |msg: String| Err(ValueError::invalid(0, format!("hkaSplineCompressedAnimation: {msg}")));
    let tracks = s.number_of_transform_tracks as usize;
    let floats = s.number_of_float_tracks as usize;
    let masks = tracks.checked_mul(4).and_then(|t| t.checked_add(floats));
    if masks != Some(s.mask_and_quantization_size as usize) {
        return bad(format!(
            "maskAndQuantizationSize {} is not 4 bytes per transform track and 1 per float track ({tracks} and {floats})",
            s.mask_and_quantization_size
        ));
    }
    // A clip of no frames reads no data, but `sample` still gives a pose of every track: more
    // tracks than a decoder makes values is a lie, not a pose to allocate.
    if tracks.saturating_add(floats) > super::delta::MAX_DECODED {
        return bad(format!("{tracks} transform tracks and {floats} float tracks (at most {} in all)", super::delta::MAX_DECODED));
    }
    if s.block_offsets.len() != s.num_blocks as usize {
        return bad(format!("numBlocks {} but {} blockOffsets", s.num_blocks, s.block_offsets.len()));
    }
    let frames = s.num_frames as usize;
    if frames == 0 {
        return Ok(1);
    }
    // Static tracks take no bytes per frame: the frame count, not the data, sets what a decode
    // makes, so it is held to the bound the other decoders keep.
    if frames.checked_mul(tracks.saturating_add(floats)).is_none_or(|n| n > super::delta::MAX_DECODED) {
        return bad(format!(
            "numFrames {frames} of {tracks} transform and {floats} float tracks is more than {} values",
            super::delta::MAX_DECODED
        ));
    }
    if s.num_blocks == 0 {
        return bad(format!("{frames} frames in no blocks"));
    }
    let mfpb = s.max_frames_per_block as usize;
    if mfpb > 256 || (mfpb < 2 && (frames > 1 || s.num_blocks > 1)) {
        return bad(format!("maxFramesPerBlock {mfpb} (a block holds 2 to 256 frames, its knots being bytes)"));
    }
    let step = mfpb.saturating_sub(1).max(1);
    let need = (frames - 1).div_ceil(step).max(1);
    if s.num_blocks as usize != need {
        return bad(format!("numBlocks {} for {frames} frames of at most {mfpb} per block (needs {need})", s.num_blocks));
    }
    // Each block holds at least its masks: blocks start in order, at least that far apart.
    let mut prev: Option<usize> = None;
    for (b, &o) in s.block_offsets.iter().enumerate() {
        let o = o as usize;
        if !o.is_multiple_of(4) || o.checked_add(masks.unwrap_or(0)).is_none_or(|e| e > s.data.len()) {
            return bad(format!("blockOffsets[{b}] = {o} is not a 4-aligned block start within the {} bytes of data", s.data.len()));
        }
        if let Some(p) = prev {
            if o < p + masks.unwrap_or(0).max(1) {
                return bad(format!("blockOffsets[{b}] = {o} overlaps block {} at {p}", b - 1));
            }
        }
        prev = Some(o);
    }
    if floats > 0 && !s.float_block_offsets.is_empty() && s.float_block_offsets.len() != s.num_blocks as usize {
        return bad(format!("{} floatBlockOffsets for {} blocks", s.float_block_offsets.len(), s.num_blocks));
    }
    Ok(step)
}

/// Frames in block `b`: `(first frame, frames the block's knots cover, frames it gives)`.
fn block_frames(s: &SplineData, step: usize, b: usize) -> (usize, usize, usize) {
    let frames = s.num_frames as usize;
    let first = b * step;
    let last_block = b + 1 == s.num_blocks as usize;
    let covered = (frames - first).min(step + 1);
    let given = if last_block { frames - first } else { step };
    (first, covered, given)
}

fn read_block(s: &SplineData, b: usize, covered: usize) -> Result<Block, ValueError> {
    let start = s.block_offsets[b] as usize;
    let tracks = s.number_of_transform_tracks as usize;
    let floats = s.number_of_float_tracks as usize;
    let mut r = Reader { data: &s.data, pos: start, endian: s.endian, place: format!("block {b}") };
    let masks = r.take(4 * tracks + floats, "the masks")?;
    r.align(4);
    let mut out = Block { tracks: Vec::with_capacity(tracks), floats: Vec::with_capacity(floats) };
    for t in 0..tracks {
        let m = &masks[4 * t..4 * t + 4];
        let at = start + 4 * t;
        let qt = ScalarQuantization::from_code(m[0] & 3);
        let qr = RotationQuantization::from_code((m[0] >> 2) & 0xf);
        let qs = ScalarQuantization::from_code(m[0] >> 6);
        let (Some(qt), Some(qr), Some(qs)) = (qt, qr, qs) else {
            r.place = format!("block {b} track {t}");
            return Err(r.err(at, format!("quantization byte {:#04x} names no Havok quantization", m[0])));
        };
        r.place = format!("block {b} track {t} translation");
        let tr = read_vec::<3>(&mut r, m[1], qt, 0.0, covered)?;
        r.place = format!("block {b} track {t} rotation");
        let rot = read_rotation(&mut r, m[2], qr, covered)?;
        r.place = format!("block {b} track {t} scale");
        let sc = read_vec::<3>(&mut r, m[3], qs, 1.0, covered)?;
        out.tracks.push((tr, rot, sc));
    }
    if floats > 0 {
        if let Some(&fo) = s.float_block_offsets.get(b) {
            let pos = start.checked_add(fo as usize).filter(|&p| p <= s.data.len());
            let Some(pos) = pos else {
                return Err(r.err(start, format!("floatBlockOffsets[{b}] = {fo} is past the data")));
            };
            r.pos = pos;
        } else {
            r.align(4);
        }
        for k in 0..floats {
            let m = masks[4 * tracks + k];
            r.place = format!("block {b} float track {k}");
            let Some(q) = ScalarQuantization::from_code((m >> 1) & 3) else {
                return Err(r.err(start + 4 * tracks + k, format!("float mask {m:#04x} names no Havok quantization")));
            };
            out.floats.push(read_vec::<1>(&mut r, m & !0x06, q, 0.0, covered)?);
        }
    }
    Ok(out)
}

impl Block {
    fn eval(&self, u: f32, transforms: &mut Vec<Transform>, floats: &mut Vec<f32>) {
        for (tr, rot, sc) in &self.tracks {
            let t = tr.eval(u);
            let q = rot.eval(u);
            let s = sc.eval(u);
            transforms.push([t[0], t[1], t[2], q[0], q[1], q[2], q[3], s[0], s[1], s[2]]);
        }
        for f in &self.floats {
            floats.push(f.eval(u)[0]);
        }
    }
}

/// Decodes every frame of every track.
pub fn decode(spline: &SplineData) -> Result<Frames, ValueError> {
    let step = check_header(spline)?;
    let tracks = spline.number_of_transform_tracks as usize;
    let floats = spline.number_of_float_tracks as usize;
    let frames = spline.num_frames as usize;
    // Memory grows block by block, each block read before its frames are: at most 256 frames of
    // the tracks whose masks (4 bytes each) the block holds.
    let mut out = Frames { frame_count: frames, track_count: tracks, transforms: Vec::new(), float_track_count: floats, floats: Vec::new() };
    if frames == 0 {
        return Ok(out);
    }
    for b in 0..spline.num_blocks as usize {
        let (_, covered, given) = block_frames(spline, step, b);
        let block = read_block(spline, b, covered)?;
        out.transforms.reserve(given * tracks);
        out.floats.reserve(given * floats);
        for f in 0..given {
            block.eval(f as f32, &mut out.transforms, &mut out.floats);
        }
    }
    Ok(out)
}

/// Every track at `time` seconds, as Havok's runtime samples it: the frame and the fraction
/// between it and the next from `time / duration * (numFrames - 1)` (clamped to the clip), the
/// block of that frame, and its splines at the fractional local frame. Gives the transforms (one
/// per track) and the float track values.
pub fn sample(spline: &SplineData, time: f32) -> Result<(Vec<Transform>, Vec<f32>), ValueError> {
    let step = check_header(spline)?;
    let frames = spline.num_frames as usize;
    let tracks = spline.number_of_transform_tracks as usize;
    let mut transforms = Vec::with_capacity(tracks);
    let mut floats = Vec::with_capacity(spline.number_of_float_tracks as usize);
    if frames == 0 {
        transforms.resize(tracks, IDENTITY);
        floats.resize(spline.number_of_float_tracks as usize, 0.0);
        return Ok((transforms, floats));
    }
    let (frame, delta) = if frames < 2 || !(spline.duration.is_finite() && spline.duration > 0.0) || !time.is_finite() {
        (0usize, 0.0f32)
    } else {
        let f = (time.clamp(0.0, spline.duration) / spline.duration) * (frames - 1) as f32;
        let whole = (f.floor() as usize).min(frames - 2);
        (whole, (f - whole as f32).clamp(0.0, 1.0))
    };
    let b = (frame / step).min(spline.num_blocks as usize - 1);
    let (first, covered, _) = block_frames(spline, step, b);
    let block = read_block(spline, b, covered)?;
    block.eval((frame - first) as f32 + delta, &mut transforms, &mut floats);
    Ok((transforms, floats))
}

#[cfg(test)]
mod tests;
