//! Frames to an `hkaSplineCompressedAnimation`'s data.
//!
//! Per block and channel: a component within tolerance of its identity value is identity, one
//! within tolerance of a constant is static; the others are fitted together (one knot vector per
//! channel, as the format has it) by a clamped B-spline of degree 3 (lower for blocks of fewer
//! frames): a least-squares fit with no interior knots first, then knots inserted, one at a time,
//! at the frame of largest error, until the curve, with its control points quantized as they will
//! be stored, is within tolerance at every frame. A channel that no spline of integer knots meets
//! falls back to a degree-1 curve through every frame; a translation, scale or float channel that
//! 8 bits cannot meet is stored in 16 bits. The layout (masks, alignment, padding, block starts on
//! 16 bytes) is the one [`super::decode`] and Havok's runtime read.

// Component loops index several fixed-size arrays at once; the fitting callbacks are plain closures.
#![allow(clippy::needless_range_loop, clippy::type_complexity)]

use super::quant::{self, pack_scalar, unpack_scalar};
use super::{basis_functions, find_span, Curve, Endian, RotationQuantization, ScalarQuantization, SplineData, MAX_DEGREE};
use crate::anim::Frames;
use crate::error::ValueError;

/// How [`encode`] compresses. The defaults are those of Havok's
/// `hkaSplineCompressedAnimation::TrackCompressionParams` and `AnimationCompressionParams`
/// constructors: tolerances 0.01, degree 3, `THREECOMP40` rotations, 8-bit scalars, 256 frames
/// per block.
#[derive(Clone, Debug, PartialEq)]
pub struct SplineOptions {
    /// Largest translation error per component.
    pub position_tolerance: f32,
    /// Largest rotation error per quaternion component (sign-normalised).
    pub rotation_tolerance: f32,
    /// Largest scale error per component.
    pub scale_tolerance: f32,
    /// Largest float track error.
    pub float_tolerance: f32,
    /// Rotation quantization.
    pub rotation_quantization: RotationQuantization,
    /// Translation quantization (a track 8 bits cannot hold within tolerance gets 16).
    pub translation_quantization: ScalarQuantization,
    /// Scale quantization (as translation).
    pub scale_quantization: ScalarQuantization,
    /// Float track quantization (as translation).
    pub float_quantization: ScalarQuantization,
    /// Most frames per block (2 to 256; `AnimationCompressionParams::m_maxFramesPerBlock`).
    pub max_frames_per_block: u32,
    /// Seconds per frame (the clip lasts `(frames - 1) * frame_duration`).
    pub frame_duration: f32,
    /// Byte order of the data (the target platform's). `SplineData::endian_member` is set to
    /// match (0 little, 1 big); the stock big-endian packfiles of SDKs 2010 to 2014 hold
    /// little-endian data with `endian` 0, which this reproduces with [`Endian::Little`].
    pub endian: Endian,
}

impl Default for SplineOptions {
    fn default() -> Self {
        SplineOptions {
            position_tolerance: 0.01,
            rotation_tolerance: 0.01,
            scale_tolerance: 0.01,
            float_tolerance: 0.01,
            rotation_quantization: RotationQuantization::ThreeComp40,
            translation_quantization: ScalarQuantization::Bits8,
            scale_quantization: ScalarQuantization::Bits8,
            float_quantization: ScalarQuantization::Bits8,
            max_frames_per_block: 256,
            frame_duration: 1.0 / 30.0,
            endian: Endian::Little,
        }
    }
}

fn invalid(msg: impl Into<String>) -> ValueError {
    ValueError::new(crate::error::ErrorKind::Invalid(msg.into()))
}

/// A byte sink in the target's byte order.
struct Out {
    bytes: Vec<u8>,
    endian: Endian,
}

impl Out {
    fn u16(&mut self, v: u16) {
        match self.endian {
            Endian::Little => self.bytes.extend_from_slice(&v.to_le_bytes()),
            Endian::Big => self.bytes.extend_from_slice(&v.to_be_bytes()),
        }
    }
    fn f32(&mut self, v: f32) {
        match self.endian {
            Endian::Little => self.bytes.extend_from_slice(&v.to_bits().to_le_bytes()),
            Endian::Big => self.bytes.extend_from_slice(&v.to_bits().to_be_bytes()),
        }
    }
    fn align(&mut self, to: usize) {
        while !self.bytes.len().is_multiple_of(to) {
            self.bytes.push(0);
        }
    }
}

/// Checks the frames: counts, finite values, unit quaternions.
fn check_frames(frames: &Frames, o: &SplineOptions) -> Result<(), ValueError> {
    let t = frames.frame_count.checked_mul(frames.track_count);
    if t != Some(frames.transforms.len()) {
        return Err(invalid(format!(
            "{} transforms for {} frames of {} tracks",
            frames.transforms.len(),
            frames.frame_count,
            frames.track_count
        )));
    }
    if frames.frame_count.checked_mul(frames.float_track_count) != Some(frames.floats.len()) {
        return Err(invalid(format!("{} floats for {} frames of {} float tracks", frames.floats.len(), frames.frame_count, frames.float_track_count)));
    }
    for (i, x) in frames.transforms.iter().enumerate() {
        let (f, t) = (i / frames.track_count, i % frames.track_count);
        if let Some(c) = x.iter().position(|c| !c.is_finite()) {
            return Err(invalid(format!("frame {f} track {t}: component {c} is {}", x[c])));
        }
        let n: f32 = x[3..7].iter().map(|c| c * c).sum::<f32>().sqrt();
        if (n - 1.0).abs() > 1e-3 {
            return Err(invalid(format!("frame {f} track {t}: rotation {:?} is not a unit quaternion (length {n})", &x[3..7])));
        }
    }
    if let Some(i) = frames.floats.iter().position(|c| !c.is_finite()) {
        return Err(invalid(format!("frame {} float track {}: {} is not finite", i / frames.float_track_count, i % frames.float_track_count, frames.floats[i])));
    }
    for (name, tol) in [("position", o.position_tolerance), ("rotation", o.rotation_tolerance), ("scale", o.scale_tolerance), ("float", o.float_tolerance)] {
        if !(tol > 0.0 && tol.is_finite()) {
            return Err(invalid(format!("the {name} tolerance {tol} is not a positive number")));
        }
    }
    if !(2..=256).contains(&o.max_frames_per_block) {
        return Err(invalid(format!("{} frames per block (Havok's blocks hold 2 to 256)", o.max_frames_per_block)));
    }
    if !(o.frame_duration > 0.0 && o.frame_duration.is_finite()) {
        return Err(invalid(format!("frame duration {}", o.frame_duration)));
    }
    if frames.track_count > u16::MAX as usize || frames.float_track_count > u16::MAX as usize {
        return Err(invalid("more than 65535 tracks"));
    }
    Ok(())
}

/// Encodes `frames` as spline-compressed data with `options`. Errors name what in the frames is
/// unusable (a count that disagrees, a value that is not finite, a rotation that is not a unit
/// quaternion) or the track and channel that no stored form meets the tolerance for.
pub fn encode(frames: &Frames, options: &SplineOptions) -> Result<SplineData, ValueError> {
    check_frames(frames, options)?;
    let nf = frames.frame_count;
    let nt = frames.track_count;
    let nfl = frames.float_track_count;
    let mfpb = options.max_frames_per_block as usize;
    let step = mfpb - 1;
    let num_blocks = if nf == 0 { 0 } else { (nf.saturating_sub(1)).div_ceil(step).max(1) };
    let mut out = Out { bytes: Vec::new(), endian: options.endian };
    let mut block_offsets = Vec::with_capacity(num_blocks);
    let mut float_block_offsets = Vec::with_capacity(num_blocks);
    for b in 0..num_blocks {
        let first = b * step;
        let count = (nf - first).min(mfpb);
        let start = out.bytes.len();
        block_offsets.push(start as u32);
        let mut masks = vec![0u8; 4 * nt + nfl];
        let mut body = Out { bytes: Vec::new(), endian: options.endian };
        // The body is laid out after the masks, padded to 4: offsets within it keep their
        // alignment relative to the data start when the block starts on 16.
        let mask_len = (4 * nt + nfl).div_ceil(4) * 4;
        body.bytes.resize(mask_len, 0);
        for t in 0..nt {
            let at = |f: usize| &frames.transforms[(first + f) * nt + t];
            let tr: Vec<[f32; 3]> = (0..count).map(|f| [at(f)[0], at(f)[1], at(f)[2]]).collect();
            let rot: Vec<[f32; 4]> = (0..count).map(|f| [at(f)[3], at(f)[4], at(f)[5], at(f)[6]]).collect();
            let sc: Vec<[f32; 3]> = (0..count).map(|f| [at(f)[7], at(f)[8], at(f)[9]]).collect();
            let place = |c: &str| format!("block {b} track {t} {c}");
            let (qt, mt) = write_vec(&mut body, &tr, 0.0, options.position_tolerance, options.translation_quantization).map_err(|e| invalid(format!("{}: {e}", place("translation"))))?;
            let mr = write_rotation(&mut body, &rot, options.rotation_tolerance, options.rotation_quantization);
            let (qs, ms) = write_vec(&mut body, &sc, 1.0, options.scale_tolerance, options.scale_quantization).map_err(|e| invalid(format!("{}: {e}", place("scale"))))?;
            masks[4 * t] = qt.code() | (options.rotation_quantization.code() << 2) | (qs.code() << 6);
            masks[4 * t + 1] = mt;
            masks[4 * t + 2] = mr;
            masks[4 * t + 3] = ms;
        }
        body.align(4);
        float_block_offsets.push(body.bytes.len() as u32);
        for k in 0..nfl {
            let vals: Vec<[f32; 1]> = (0..count).map(|f| [frames.floats[(first + f) * nfl + k]]).collect();
            let (q, m) = write_vec(&mut body, &vals, 0.0, options.float_tolerance, options.float_quantization)
                .map_err(|e| invalid(format!("block {b} float track {k}: {e}")))?;
            masks[4 * nt + k] = m | (q.code() << 1);
        }
        body.bytes[..masks.len()].copy_from_slice(&masks);
        body.align(16);
        out.bytes.extend_from_slice(&body.bytes);
        debug_assert_eq!(start % 16, 0);
    }
    let frame_duration = options.frame_duration;
    let block_duration = step as f32 * frame_duration;
    Ok(SplineData {
        duration: nf.saturating_sub(1) as f32 * frame_duration,
        number_of_transform_tracks: nt as u32,
        number_of_float_tracks: nfl as u32,
        num_frames: nf as u32,
        num_blocks: num_blocks as u32,
        max_frames_per_block: mfpb as u32,
        mask_and_quantization_size: (4 * nt + nfl) as u32,
        block_duration,
        block_inverse_duration: 1.0 / block_duration,
        frame_duration,
        block_offsets,
        float_block_offsets,
        transform_offsets: Vec::new(),
        float_offsets: Vec::new(),
        data: out.bytes,
        // The data's byte order: 0 little (every stock file, big-endian packfiles included), 1 big
        // (inferred: no stock file with big-endian spline data was at hand).
        endian_member: (options.endian == Endian::Big) as i32,
        endian: options.endian,
    })
}

// ---------------------------------------------------------------------------------------------
// Fitting

/// A clamped knot vector of degree `p` over frames `0..m` with the given interior knots.
fn knot_vector(p: usize, m: usize, interior: &[usize]) -> Vec<f32> {
    let mut k = vec![0.0; p + 1];
    k.extend(interior.iter().map(|&i| i as f32));
    k.extend(std::iter::repeat_n((m - 1) as f32, p + 1));
    k
}

/// The least-squares control points of degree `p` and knots `knots` through `pts` (one per
/// frame), by the normal equations (banded, solved by Cholesky; a singular system gives `None`).
fn fit<const N: usize>(p: usize, knots: &[f32], pts: &[[f32; N]]) -> Option<Vec<[f32; N]>> {
    let ncp = knots.len() - p - 1;
    let n = ncp - 1;
    let mut a = vec![0.0f64; ncp * ncp];
    let mut rhs = vec![[0.0f64; N]; ncp];
    for (f, pt) in pts.iter().enumerate() {
        let u = f as f32;
        let span = find_span(n, p, u, knots);
        let basis = basis_functions(span, u, p, knots);
        for i in 0..=p {
            let r = span - p + i;
            let bi = basis[i] as f64;
            for j in 0..=p {
                a[r * ncp + span - p + j] += bi * basis[j] as f64;
            }
            for c in 0..N {
                rhs[r][c] += bi * pt[c] as f64;
            }
        }
    }
    // Cholesky in place (a is symmetric positive semi-definite).
    for j in 0..ncp {
        let lo = j.saturating_sub(MAX_DEGREE + 1);
        let mut d = a[j * ncp + j];
        for k in lo..j {
            d -= a[j * ncp + k] * a[j * ncp + k];
        }
        if d <= 1e-12 {
            return None;
        }
        let d = d.sqrt();
        a[j * ncp + j] = d;
        for i in j + 1..(j + MAX_DEGREE + 2).min(ncp) {
            let mut s = a[i * ncp + j];
            for k in lo..j {
                s -= a[i * ncp + k] * a[j * ncp + k];
            }
            a[i * ncp + j] = s / d;
        }
    }
    // Forward and back substitution.
    let mut y = rhs;
    for i in 0..ncp {
        for k in i.saturating_sub(MAX_DEGREE + 1)..i {
            for c in 0..N {
                y[i][c] -= a[i * ncp + k] * y[k][c];
            }
        }
        for c in 0..N {
            y[i][c] /= a[i * ncp + i];
        }
    }
    for i in (0..ncp).rev() {
        for k in i + 1..(i + MAX_DEGREE + 2).min(ncp) {
            for c in 0..N {
                y[i][c] -= a[k * ncp + i] * y[k][c];
            }
        }
        for c in 0..N {
            y[i][c] /= a[i * ncp + i];
        }
    }
    // A nearly singular system (knots the frames do not support) gives no fit rather than
    // huge or non-finite control points.
    let out: Vec<[f32; N]> = y.into_iter().map(|v| v.map(|c| c as f32)).collect();
    out.iter().flatten().all(|c| c.is_finite() && c.abs() < 1e30).then_some(out)
}

/// Fits a curve to `pts` whose stored form (`store`: control points to what the decoder reads
/// back) is within tolerance (`err`: largest error of a frame's value) at every frame. Adds
/// interior knots at the frames of largest error; `None` when the knots run out.
fn fit_curve<const N: usize>(
    pts: &[[f32; N]],
    store: &dyn Fn(&[[f32; N]]) -> Vec<[f32; N]>,
    err: &dyn Fn(usize, [f32; N]) -> f32,
) -> Option<Curve<N>> {
    let m = pts.len();
    let p = (m - 1).min(MAX_DEGREE);
    let mut interior: Vec<usize> = Vec::new();
    loop {
        let knots = knot_vector(p, m, &interior);
        if let Some(cp) = fit(p, &knots, pts) {
            let curve = Curve { degree: p, knots, points: store(&cp) };
            let errs: Vec<f32> = (0..m).map(|f| err(f, curve.eval(f as f32))).collect();
            if errs.iter().all(|&e| e <= 1.0) {
                return Some(curve);
            }
            // In every knot span with a frame beyond tolerance, a knot at its worst frame (or the
            // free frame nearest to it): few refits, each span refined where it needs it.
            let mut bounds = vec![0];
            bounds.extend(interior.iter().copied());
            bounds.push(m - 1);
            let mut added = Vec::new();
            for w in bounds.windows(2) {
                let (lo, hi) = (w[0], w[1]);
                let (worst, at) = (lo..=hi).map(|f| (if errs[f].is_nan() { f32::INFINITY } else { errs[f] }, f)).fold((0.0f32, lo), |a, b| if b.0 > a.0 { b } else { a });
                if worst <= 1.0 {
                    continue;
                }
                let free = |f: usize| f > lo && f < hi && !interior.contains(&f) && !added.contains(&f);
                if let Some(f) = (0..=hi - lo).flat_map(|d| [at.checked_sub(d), Some(at + d)]).flatten().find(|&f| free(f)) {
                    added.push(f);
                }
            }
            if added.is_empty() || interior.len() + added.len() + p + 1 > m {
                return None;
            }
            interior.extend(added);
            interior.sort_unstable();
        } else {
            return None;
        }
    }
}

/// A degree-1 curve through every frame.
fn polyline<const N: usize>(pts: &[[f32; N]], store: &dyn Fn(&[[f32; N]]) -> Vec<[f32; N]>) -> Curve<N> {
    let m = pts.len();
    let interior: Vec<usize> = (1..m - 1).collect();
    Curve { degree: 1, knots: knot_vector(1, m, &interior), points: store(pts) }
}

fn write_knots<const N: usize>(out: &mut Out, c: &Curve<N>) {
    out.u16((c.points.len() - 1) as u16);
    out.bytes.push(c.degree as u8);
    out.bytes.extend(c.knots.iter().map(|&k| k as u8));
}

/// Writes a translation, scale or float channel; gives its quantization and mask byte.
fn write_vec<const N: usize>(
    out: &mut Out,
    pts: &[[f32; N]],
    identity: f32,
    tol: f32,
    q: ScalarQuantization,
) -> Result<(ScalarQuantization, u8), String> {
    let mut mask = 0u8;
    let mut consts = [identity; N];
    let mut dynamic = [false; N];
    for c in 0..N {
        let (lo, hi) = pts.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| (lo.min(p[c]), hi.max(p[c])));
        if pts.iter().all(|p| (p[c] - identity).abs() <= tol) {
            continue;
        }
        let mid = lo + (hi - lo) * 0.5;
        if pts.iter().all(|p| (p[c] - mid).abs() <= tol) {
            mask |= 1 << c;
            consts[c] = mid;
        } else {
            mask |= 0x10 << c;
            dynamic[c] = true;
        }
    }
    if !dynamic.iter().any(|&d| d) {
        for c in 0..N {
            if mask & (1 << c) != 0 {
                out.f32(consts[c]);
            }
        }
        return Ok((q, mask));
    }
    let err = |f: usize, v: [f32; N]| (0..N).filter(|&c| dynamic[c]).map(|c| (v[c] - pts[f][c]).abs()).fold(0.0, nan_max) / tol;
    let mut chosen = None;
    // 8 bits whose step alone nearly fills the tolerance would need a knot per frame: 16 then.
    let widest = (0..N).filter(|&c| dynamic[c]).map(|c| {
        let (lo, hi) = pts.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| (lo.min(p[c]), hi.max(p[c])));
        hi - lo
    }).fold(0.0, f32::max);
    let first = if widest / q.span() > tol { ScalarQuantization::Bits16 } else { q };
    for q in [first, ScalarQuantization::Bits16] {
        let span = q.span();
        let store = |cp: &[[f32; N]]| -> Vec<[f32; N]> {
            let (lo, hi) = range_of(cp, &dynamic);
            cp.iter()
                .map(|p| {
                    let mut s = consts;
                    for c in 0..N {
                        if dynamic[c] {
                            s[c] = unpack_scalar(lo[c], hi[c], pack_scalar(lo[c], hi[c], p[c], span), span);
                        }
                    }
                    s
                })
                .collect()
        };
        if let Some(c) = fit_curve(pts, &store, &err) {
            chosen = Some((q, c));
            break;
        }
        let c = polyline(pts, &store);
        if (0..pts.len()).all(|f| err(f, c.eval(f as f32)) <= 1.0) {
            chosen = Some((q, c));
            break;
        }
    }
    let Some((q, curve)) = chosen else {
        return Err(format!("no 16-bit spline holds this channel within the tolerance {tol}"));
    };
    // The stored points are the quantized ones; their range is the unquantized fit's, which
    // the stored extremes equal (the extremes quantize exactly).
    let (lo, hi) = range_of(&curve.points, &dynamic);
    write_knots(out, &curve);
    out.align(4);
    for c in 0..N {
        if dynamic[c] {
            out.f32(lo[c]);
            out.f32(hi[c]);
        } else if mask & (1 << c) != 0 {
            out.f32(consts[c]);
        }
    }
    let span = q.span();
    for p in &curve.points {
        for c in 0..N {
            if dynamic[c] {
                let v = pack_scalar(lo[c], hi[c], p[c], span);
                match q {
                    ScalarQuantization::Bits8 => out.bytes.push(v as u8),
                    ScalarQuantization::Bits16 => out.u16(v as u16),
                }
            }
        }
    }
    out.align(4);
    Ok((q, mask))
}

fn range_of<const N: usize>(cp: &[[f32; N]], dynamic: &[bool; N]) -> ([f32; N], [f32; N]) {
    let mut lo = [0.0; N];
    let mut hi = [0.0; N];
    for c in 0..N {
        if dynamic[c] {
            lo[c] = cp.iter().map(|p| p[c]).fold(f32::MAX, f32::min);
            hi[c] = cp.iter().map(|p| p[c]).fold(f32::MIN, f32::max);
        }
    }
    (lo, hi)
}

/// The larger of two values, NaN if either is (`f32::max` would drop a NaN, and a fit with a
/// non-finite value would look exact).
fn nan_max(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        f32::NAN
    } else {
        a.max(b)
    }
}

/// Largest component difference of two quaternions, sign-normalised (NaN if either has one).
fn quat_err(a: [f32; 4], b: [f32; 4]) -> f32 {
    let d = (0..4).map(|i| (a[i] - b[i]).abs()).fold(0.0, nan_max);
    let e = (0..4).map(|i| (a[i] + b[i]).abs()).fold(0.0, nan_max);
    if d.is_nan() || e.is_nan() {
        f32::NAN
    } else {
        d.min(e)
    }
}

/// Writes a rotation channel; gives its mask byte.
fn write_rotation(out: &mut Out, rots: &[[f32; 4]], tol: f32, q: RotationQuantization) -> u8 {
    let endian = out.endian;
    let roundtrip = |r: [f32; 4]| {
        let mut b = Vec::with_capacity(16);
        quant::pack_quaternion(q, quant::normalized(r), endian, &mut b);
        (quant::unpack_quaternion(q, &b, endian), b)
    };
    let identity = [0.0, 0.0, 0.0, 1.0];
    if rots.iter().all(|&r| quat_err(r, identity) <= tol) {
        return 0;
    }
    // One hemisphere, continuous from frame to frame.
    let mut pts = Vec::with_capacity(rots.len());
    for &r in rots {
        let prev: Option<&[f32; 4]> = pts.last();
        let flip = prev.is_some_and(|p: &[f32; 4]| p.iter().zip(&r).map(|(a, b)| a * b).sum::<f32>() < 0.0);
        pts.push(if flip { r.map(|c| -c) } else { r });
    }
    let mean = quant::normalized(pts.iter().fold([0.0; 4], |s, p| [s[0] + p[0], s[1] + p[1], s[2] + p[2], s[3] + p[3]]));
    let (stored, bytes) = roundtrip(mean);
    if rots.len() < 2 || rots.iter().all(|&r| quat_err(r, stored) <= tol) {
        out.align(q.align());
        out.bytes.extend_from_slice(&bytes);
        out.align(4);
        return 0x0f;
    }
    let store = |cp: &[[f32; 4]]| cp.iter().map(|&p| roundtrip(p).0).collect::<Vec<_>>();
    let err = |f: usize, v: [f32; 4]| quat_err(quant::normalized(v), pts[f]) / tol;
    let curve = fit_curve(&pts, &store, &err).unwrap_or_else(|| polyline(&pts, &store));
    write_knots(out, &curve);
    out.align(q.align());
    for &p in &curve.points {
        quant::pack_quaternion(q, p, endian, &mut out.bytes);
    }
    out.align(4);
    0xf0
}
