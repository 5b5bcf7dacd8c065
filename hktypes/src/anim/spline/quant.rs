//! Havok's quantizations of spline control points: scalars in 8 or 16 bits between a per-channel
//! minimum and maximum, and the six rotation quantizations of
//! `hkaSplineCompressedAnimation::TrackCompressionParams::RotationQuantization`.
//!
//! The "smallest three" forms (THREECOMP24/40/48) store the three components that are not the
//! largest in magnitude, each as an unsigned integer centred on half its range and scaled so that
//! the range spans ±1/√2; two bits name the dropped component and one bit its sign, and the dropped
//! component is `√(1 − a² − b² − c²)`. POLAR32 stores `w` through `r = √(1 − |w|)` in 10 bits and
//! the direction of `xyz` as a point on an octant of the sphere (18 bits) plus four sign bits.
//! STRAIGHT16 stores four 4-bit components, normalised when read.

use super::Endian;
use std::f32::consts::{FRAC_1_SQRT_2, FRAC_PI_2, FRAC_PI_4};

/// How the rotations of a track are stored
/// (`hkaSplineCompressedAnimation::TrackCompressionParams::RotationQuantization`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RotationQuantization {
    /// 32 bits, polar (`POLAR32`, code 0).
    Polar32,
    /// 40 bits, smallest three of 12 bits each (`THREECOMP40`, code 1).
    ThreeComp40,
    /// 48 bits, smallest three of 15 bits each (`THREECOMP48`, code 2).
    ThreeComp48,
    /// 24 bits, smallest three of 7 bits each (`THREECOMP24`, code 3).
    ThreeComp24,
    /// 16 bits, four components of 4 bits (`STRAIGHT16`, code 4).
    Straight16,
    /// Four 32-bit floats (`UNCOMPRESSED`, code 5).
    Uncompressed,
}

impl RotationQuantization {
    /// Every quantization, in code order.
    pub const ALL: [RotationQuantization; 6] = [
        RotationQuantization::Polar32,
        RotationQuantization::ThreeComp40,
        RotationQuantization::ThreeComp48,
        RotationQuantization::ThreeComp24,
        RotationQuantization::Straight16,
        RotationQuantization::Uncompressed,
    ];

    /// The quantization of Havok's code (bits 2..6 of a track's quantization byte).
    pub fn from_code(code: u8) -> Option<Self> {
        Self::ALL.get(code as usize).copied()
    }

    /// Havok's code.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// Bytes per quaternion.
    pub fn size(self) -> usize {
        [4, 5, 6, 3, 2, 16][self as usize]
    }

    /// The alignment of a run of quaternions within the data.
    pub fn align(self) -> usize {
        [4, 1, 2, 1, 2, 4][self as usize]
    }

    /// Havok's name (`THREECOMP40`).
    pub fn name(self) -> &'static str {
        ["POLAR32", "THREECOMP40", "THREECOMP48", "THREECOMP24", "STRAIGHT16", "UNCOMPRESSED"][self as usize]
    }

    /// The quantization named `name` (Havok's name or a case-insensitive short form:
    /// `ThreeComp40`, `threecomp40`, `polar32`, ...).
    pub fn from_name(name: &str) -> Option<Self> {
        let n = name.to_ascii_uppercase();
        Self::ALL.into_iter().find(|q| q.name() == n)
    }
}

/// How scalars (translation, scale and float components) are stored
/// (`TrackCompressionParams::ScalarQuantization`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarQuantization {
    /// 8 bits between the channel's minimum and maximum (`BITS8`, code 0).
    Bits8,
    /// 16 bits between the channel's minimum and maximum (`BITS16`, code 1).
    Bits16,
}

impl ScalarQuantization {
    /// The quantization of Havok's code.
    pub fn from_code(code: u8) -> Option<Self> {
        match code {
            0 => Some(ScalarQuantization::Bits8),
            1 => Some(ScalarQuantization::Bits16),
            _ => None,
        }
    }

    /// Havok's code.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// Bytes per component.
    pub fn size(self) -> usize {
        match self {
            ScalarQuantization::Bits8 => 1,
            ScalarQuantization::Bits16 => 2,
        }
    }

    /// The largest stored integer.
    pub(crate) fn span(self) -> f32 {
        match self {
            ScalarQuantization::Bits8 => 255.0,
            ScalarQuantization::Bits16 => 65535.0,
        }
    }
}

/// A stored scalar back to its value.
pub(crate) fn unpack_scalar(min: f32, max: f32, q: u32, span: f32) -> f32 {
    (q as f32 / span) * (max - min) + min
}

/// A value to its stored integer (rounded to nearest).
pub(crate) fn pack_scalar(min: f32, max: f32, v: f32, span: f32) -> u32 {
    let range = max - min;
    if range <= 0.0 || !range.is_finite() {
        return 0;
    }
    let t = ((v - min) / range * span).round();
    t.clamp(0.0, span) as u32
}

/// The three stored components and the dropped one's index and sign, back to a quaternion.
fn smallest_three(idx: usize, negative: bool, vals: [f32; 3]) -> [f32; 4] {
    let sum: f32 = vals.iter().map(|v| v * v).sum();
    let mut largest = (1.0 - sum).max(0.0).sqrt();
    if negative {
        largest = -largest;
    }
    let mut out = [0.0; 4];
    let mut k = 0;
    for (i, o) in out.iter_mut().enumerate() {
        if i == idx {
            *o = largest;
        } else {
            *o = vals[k];
            k += 1;
        }
    }
    out
}

/// The index of the component of largest magnitude (the last of equals, as Havok picks).
fn largest_index(q: &[f32; 4]) -> usize {
    let mut best = 0;
    for i in 1..4 {
        if q[i].abs() >= q[best].abs() {
            best = i;
        }
    }
    best
}

/// The three components other than `idx`, in order.
fn others(q: &[f32; 4], idx: usize) -> [f32; 3] {
    let mut out = [0.0; 3];
    let mut k = 0;
    for (i, v) in q.iter().enumerate() {
        if i != idx {
            out[k] = *v;
            k += 1;
        }
    }
    out
}

/// Reads one quaternion of `ty` from `b` (exactly `ty.size()` bytes) in byte order `endian`.
/// The 40-, 24- and 16-bit forms are byte strings that read the same on every platform (Havok
/// swaps nothing for them); the others are swapped per 32-bit word, 16-bit word or float.
pub fn unpack_quaternion(ty: RotationQuantization, b: &[u8], endian: Endian) -> [f32; 4] {
    let u16_at = |i: usize| match endian {
        Endian::Little => u16::from_le_bytes([b[i], b[i + 1]]),
        Endian::Big => u16::from_be_bytes([b[i], b[i + 1]]),
    };
    let u32_at = |i: usize| match endian {
        Endian::Little => u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]),
        Endian::Big => u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]),
    };
    match ty {
        RotationQuantization::Polar32 => {
            let v = u32_at(0);
            let r = ((v >> 18) & 0x3ff) as f32 / 1023.0;
            let w = 1.0 - r * r;
            let phi_theta = (v & 0x3ffff) as f32;
            let mut phi = phi_theta.sqrt().floor();
            let mut theta = 0.0;
            if phi > 0.0 {
                theta = FRAC_PI_4 * (phi_theta - phi * phi) / phi;
                phi *= FRAC_PI_2 / 511.0;
            }
            let mag = (1.0 - w * w).max(0.0).sqrt();
            let mut q = [phi.sin() * theta.cos() * mag, phi.sin() * theta.sin() * mag, phi.cos() * mag, w];
            for (i, c) in q.iter_mut().enumerate() {
                if v & (0x1000_0000 << i) != 0 {
                    *c = -*c;
                }
            }
            q
        }
        RotationQuantization::ThreeComp40 => {
            let v = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], 0, 0, 0]);
            let f = |s: u32| (((v >> s) & 0xfff) as f32 - 2047.0) * (FRAC_1_SQRT_2 / 2047.0);
            smallest_three(((v >> 36) & 3) as usize, (v >> 38) & 1 != 0, [f(0), f(12), f(24)])
        }
        RotationQuantization::ThreeComp48 => {
            let (x, y, z) = (u16_at(0), u16_at(2), u16_at(4));
            let f = |c: u16| ((c & 0x7fff) as f32 - 16383.0) * (FRAC_1_SQRT_2 / 16383.0);
            let idx = ((x >> 15) | ((y >> 15) << 1)) as usize;
            smallest_three(idx, z >> 15 != 0, [f(x), f(y), f(z)])
        }
        RotationQuantization::ThreeComp24 => {
            let f = |c: u8| ((c & 0x7f) as f32 - 63.0) * (FRAC_1_SQRT_2 / 63.0);
            let idx = ((b[0] >> 7) | ((b[1] >> 7) << 1)) as usize;
            smallest_three(idx, b[2] >> 7 != 0, [f(b[0]), f(b[1]), f(b[2])])
        }
        RotationQuantization::Straight16 => {
            let q = [b[0] & 0xf, b[0] >> 4, b[1] & 0xf, b[1] >> 4].map(|c| (c as f32 - 7.0) / 7.0);
            normalized(q)
        }
        RotationQuantization::Uncompressed => {
            let f = |i: usize| f32::from_bits(u32_at(i));
            [f(0), f(4), f(8), f(12)]
        }
    }
}

/// `q` scaled to unit length (identity for a zero quaternion).
pub(crate) fn normalized(q: [f32; 4]) -> [f32; 4] {
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    if n > 0.0 && n.is_finite() {
        q.map(|c| c / n)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

/// Writes one unit quaternion as `ty` (`ty.size()` bytes) in byte order `endian`; the inverse
/// of [`unpack_quaternion`] up to the quantization's step (rounded to nearest).
pub fn pack_quaternion(ty: RotationQuantization, q: [f32; 4], endian: Endian, out: &mut Vec<u8>) {
    let put16 = |out: &mut Vec<u8>, v: u16| match endian {
        Endian::Little => out.extend_from_slice(&v.to_le_bytes()),
        Endian::Big => out.extend_from_slice(&v.to_be_bytes()),
    };
    let put32 = |out: &mut Vec<u8>, v: u32| match endian {
        Endian::Little => out.extend_from_slice(&v.to_le_bytes()),
        Endian::Big => out.extend_from_slice(&v.to_be_bytes()),
    };
    match ty {
        RotationQuantization::Polar32 => put32(out, pack_polar32(q)),
        RotationQuantization::ThreeComp40 => {
            let idx = largest_index(&q);
            let o = others(&q, idx);
            let f = |c: f32| ((c / (FRAC_1_SQRT_2 / 2047.0)).round() + 2047.0).clamp(0.0, 4094.0) as u64;
            let v = f(o[0]) | (f(o[1]) << 12) | (f(o[2]) << 24) | ((idx as u64) << 36) | (((q[idx] < 0.0) as u64) << 38);
            out.extend_from_slice(&v.to_le_bytes()[..5]);
        }
        RotationQuantization::ThreeComp48 => {
            let idx = largest_index(&q);
            let o = others(&q, idx);
            let f = |c: f32| ((c / (FRAC_1_SQRT_2 / 16383.0)).round() + 16383.0).clamp(0.0, 32766.0) as u16;
            put16(out, f(o[0]) | (((idx & 1) as u16) << 15));
            put16(out, f(o[1]) | (((idx >> 1) as u16) << 15));
            put16(out, f(o[2]) | (((q[idx] < 0.0) as u16) << 15));
        }
        RotationQuantization::ThreeComp24 => {
            let idx = largest_index(&q);
            let o = others(&q, idx);
            let f = |c: f32| ((c / (FRAC_1_SQRT_2 / 63.0)).round() + 63.0).clamp(0.0, 126.0) as u8;
            out.push(f(o[0]) | (((idx & 1) as u8) << 7));
            out.push(f(o[1]) | (((idx >> 1) as u8) << 7));
            out.push(f(o[2]) | (((q[idx] < 0.0) as u8) << 7));
        }
        RotationQuantization::Straight16 => {
            let f = |c: f32| ((c * 7.0).round() + 7.0).clamp(0.0, 14.0) as u8;
            out.push(f(q[0]) | (f(q[1]) << 4));
            out.push(f(q[2]) | (f(q[3]) << 4));
        }
        RotationQuantization::Uncompressed => {
            for c in q {
                put32(out, c.to_bits());
            }
        }
    }
}

/// POLAR32 of a unit quaternion: the nearest of the candidate codes around the direct rounding.
fn pack_polar32(q: [f32; 4]) -> u32 {
    let signs = (0..4).fold(0u32, |s, i| s | (((q[i] < 0.0) as u32) << (28 + i)));
    let a = q.map(f32::abs);
    let r = ((1.0 - a[3]).max(0.0).sqrt() * 1023.0).round().clamp(0.0, 1023.0) as u32;
    let xyz = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    if xyz == 0.0 {
        return signs | (r << 18);
    }
    let (x, y, z) = (a[0] / xyz, a[1] / xyz, a[2] / xyz);
    let phi = z.clamp(-1.0, 1.0).acos();
    let theta = y.atan2(x);
    // phi index p in 0..=511, theta within [0, pi/2] in p+1 steps (2p+1 codes: p*p .. p*p+2p).
    let best = |p: u32| -> (u32, f32) {
        let pf = p as f32;
        let mut best = (p * p, f32::MAX);
        let t0 = if p == 0 { 0 } else { ((theta / FRAC_PI_4 * pf).round().clamp(0.0, 2.0 * pf)) as u32 };
        for t in t0.saturating_sub(1)..=(t0 + 1).min(2 * p) {
            let code = p * p + t;
            if code > 0x3ffff {
                continue;
            }
            let d = unpack_quaternion(RotationQuantization::Polar32, &(signs | (r << 18) | code).to_le_bytes(), Endian::Little);
            let err = (d[0].abs() - a[0]).powi(2) + (d[1].abs() - a[1]).powi(2) + (d[2].abs() - a[2]).powi(2) + (d[3].abs() - a[3]).powi(2);
            if err < best.1 {
                best = (code, err);
            }
        }
        best
    };
    let p0 = (phi / (FRAC_PI_2 / 511.0)).round().clamp(0.0, 511.0) as u32;
    let mut pick = best(p0);
    for p in [p0.saturating_sub(1), (p0 + 1).min(511)] {
        let c = best(p);
        if c.1 < pick.1 {
            pick = c;
        }
    }
    signs | (r << 18) | pick.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: [f32; 4], b: [f32; 4], tol: f32) -> bool {
        let d: f32 = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max);
        let e: f32 = a.iter().zip(&b).map(|(x, y)| (x + y).abs()).fold(0.0, f32::max);
        d.min(e) <= tol
    }

    #[test]
    fn every_quantization_reads_back_what_it_packs() {
        let qs = [
            [0.0, 0.0, 0.0, 1.0],
            normalized([0.1, -0.7, 0.3, 0.6]),
            normalized([-0.9, 0.1, 0.05, -0.2]),
            normalized([0.3, 0.3, -0.8, 0.1]),
            normalized([0.5, 0.5, 0.5, 0.5]),
        ];
        let tol = [(RotationQuantization::Polar32, 4e-3), (RotationQuantization::ThreeComp40, 1e-3), (RotationQuantization::ThreeComp48, 1.5e-4), (RotationQuantization::ThreeComp24, 2e-2), (RotationQuantization::Straight16, 0.2), (RotationQuantization::Uncompressed, 0.0)];
        for endian in [Endian::Little, Endian::Big] {
            for (ty, t) in tol {
                for q in qs {
                    let mut out = Vec::new();
                    pack_quaternion(ty, q, endian, &mut out);
                    assert_eq!(out.len(), ty.size());
                    let back = unpack_quaternion(ty, &out, endian);
                    assert!(close(q, back, t), "{ty:?} {endian:?}: {q:?} -> {back:?}");
                }
            }
        }
    }
}
