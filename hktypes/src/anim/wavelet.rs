//! `hkaWaveletCompressedAnimation` (2010 on; `hkaWaveletSkeletalAnimation` before): each
//! animated degree of freedom stored per block of frames as the coefficients of a wavelet
//! transform, quantized, with a run-length flag per coefficient.
//!
//! The layout of `dataBuffer` (byte offsets are members of the object; numbers little-endian in
//! every file, big-endian platforms' too, as the delta codec's):
//! - `staticMaskIdx`, `staticDOFsIdx`: the static masks and static values, exactly as
//!   [`super::delta`] describes them (one `u16` mask per track; the `f32` values of what is not
//!   animated, in mask order);
//! - `qFormat.offsetIdx`, `qFormat.scaleIdx`: one `f32` offset and scale per dynamic degree of
//!   freedom (`qFormat.numD` of them); `qFormat.bitWidthIdx`: one `u8` bit width per dynamic
//!   degree of freedom;
//! - `blockIndexIdx`: `blockIndexSize` `u32`s, the byte offset of each block from
//!   `quantizedDataIdx`; the blocks fill `quantizedDataSize` bytes. A block holds `blockSize`
//!   frames (a power of two; the last block's frames past `numberOfPoses` are padding);
//! - per block, per dynamic degree of freedom in mask order: `qFormat.preserved` coefficients as
//!   `f32`; then `n = 8 * ceil((blockSize - preserved) * bits / 8) / bits` symbols (at least the
//!   `blockSize - preserved` coefficients, more where the bits round up) as one flag bit per
//!   symbol (`ceil(n / 8)` bytes, from the low bit of each byte up): a set flag is the "run"
//!   symbol, the quantized value nearest zero (`(-offset / scale) * 2^bits`, truncated, at most
//!   `2^bits - 1`); each clear flag takes the next literal of `bits` bits from the stream that
//!   follows the flag bytes (from the low bit of each byte up). The degree of freedom takes
//!   `(32 * preserved + n + bits * literals + 7) / 8` bytes, the next one starts there.
//! - A symbol `q` stands for the coefficient `offset + (q + 0.5) * scale / 2^bits`.
//! - The coefficients of a block are those of a dyadic lifting wavelet transform (the 5/3
//!   biorthogonal wavelet, LeGall's, with symmetric extension at both ends) taken down to one
//!   coefficient: `[approximation, detail of the coarsest level (1), of the next (2), (4), ...]`.
//!   The inverse, level by level (`m` = 1, 2, 4, ... `blockSize / 2`), takes the `m` values and
//!   `m` details `d` to `2m` values: even `e[k] = s[k] - (d[k-1] + d[k]) / 4`, odd
//!   `o[k] = d[k] + (e[k] + e[k+1]) / 2`, with `d[-1] = d[0]` and `e[m] = e[m-1]`.
//! - The frames so decoded are recomposed with the static values as the delta codec's are (a
//!   rotation whose `w` is a static 2 or -2 takes the unit quaternion's `w` of that sign).
//!
//! Sources: the member names come from the SDK's reflection; the bit layout, the run symbol,
//! the dequantization and the transform were taken as facts from text found on public GitHub:
//! a decompilation of a console game's copy of Havok's runtime helpers (`hkBlockDecode`,
//! `hkExpandReal`, `hkInverseWaveletTransform`: its unrolled first three levels are the 8x8
//! matrix this inverse gives) and a copy of Havok 4.x SDK source marked as Havok's confidential
//! information (`hkWaveletSkeletalAnimation.cpp`). No line of either is here: this module was
//! written anew from the rules above, and the 5/3 lifting transform is the JPEG 2000 one;
//! checked against Demon's Souls' `a00_3000.hkx`: every block of it ends exactly where the
//! block index starts the next, the motion is continuous across block boundaries, and
//! `a00_3000_despacito.hkx` holds this clip as Havok's runtime samples it (`tests/anim_wavelet.rs`).
//!
//! Not seen in a file yet (the one corpus file has 12-bit widths, no preserved values, blocks of
//! 8 and no float tracks), so decoded by the rules above without a file to confirm them:
//! preserved values; blocks whose symbol count is no multiple of 8 (preserved values or blocks
//! under 8 frames), where the size formula counts the flag bits and the literal bits together;
//! widths of 8 and 16 bits (Havok's runtime has own paths for them); and float tracks of the
//! 2010 class (taken, as the delta codec takes them, from the masks after the transform tracks;
//! `numStaticTransformDOFs` and `numDynamicTransformDOFs` are not read).
//!
//! Every index, count and width is checked against the buffer before it is used: a member that
//! lies is an error naming it, never a read out of bounds or an allocation out of proportion to
//! the buffer.

use super::delta::{f32_at, named_dynamic, recompose, slice, static_masks, QuantizedMembers, MAX_DECODED};
use super::Frames;
use crate::dump::Members;
use crate::error::{ErrorKind, ValueError};

/// The widest quantized symbol: Havok's runtime reads symbols 16 bits at a time.
pub const MAX_BIT_WIDTH: u8 = 16;

/// The members of a wavelet-compressed animation that its data depends on.
#[derive(Clone, Debug, PartialEq)]
pub struct WaveletData {
    /// `numberOfTransformTracks`.
    pub tracks: usize,
    /// `numberOfFloatTracks`.
    pub float_tracks: usize,
    /// `numberOfPoses`.
    pub poses: usize,
    /// `blockSize`: frames per block, a power of two.
    pub block_size: usize,
    /// `qFormat.preserved`: coefficients per block and degree of freedom stored as `f32`.
    pub preserved: usize,
    /// `qFormat.numD`: the dynamic degrees of freedom.
    pub num_d: usize,
    /// `qFormat.offsetIdx`.
    pub offset_idx: usize,
    /// `qFormat.scaleIdx`.
    pub scale_idx: usize,
    /// `qFormat.bitWidthIdx`.
    pub bit_width_idx: usize,
    /// `staticMaskIdx`.
    pub static_mask_idx: usize,
    /// `staticDOFsIdx`.
    pub static_dofs_idx: usize,
    /// `blockIndexIdx`.
    pub block_index_idx: usize,
    /// `blockIndexSize`: the number of blocks.
    pub block_index_size: usize,
    /// `quantizedDataIdx`.
    pub quantized_idx: usize,
    /// `quantizedDataSize`.
    pub quantized_size: usize,
    /// `dataBuffer`.
    pub data: Vec<u8>,
    /// The byte order of the numbers in `data` (little-endian in every file seen).
    pub big_endian: bool,
}

fn invalid(msg: String) -> ValueError {
    ValueError::new(ErrorKind::Invalid(msg))
}

impl WaveletData {
    /// The members of `anim` (an animation of the wavelet codec) as the decoder takes them.
    pub fn from_members(ms: &Members, anim: &super::Animation) -> Result<WaveletData, ValueError> {
        let m = QuantizedMembers::of(ms, anim)?;
        Ok(WaveletData {
            tracks: anim.track_count,
            float_tracks: anim.float_track_count,
            poses: m.count("numberOfPoses")?,
            block_size: m.count("blockSize")?,
            preserved: m.q_count("preserved")?,
            num_d: m.q_count("numD")?,
            offset_idx: m.q_count("offsetIdx")?,
            scale_idx: m.q_count("scaleIdx")?,
            bit_width_idx: m.q_count("bitWidthIdx")?,
            static_mask_idx: m.count("staticMaskIdx")?,
            static_dofs_idx: m.count("staticDOFsIdx")?,
            block_index_idx: m.count("blockIndexIdx")?,
            block_index_size: m.count("blockIndexSize")?,
            quantized_idx: m.count("quantizedDataIdx")?,
            quantized_size: m.count("quantizedDataSize")?,
            data: m.data()?,
            // Little-endian on every platform: Demon's Souls' PS3 (big-endian) file holds its
            // masks, static values, offsets, scales and block index little-endian.
            big_endian: false,
        })
    }

    /// Entry `k` of the block index.
    fn block_start(&self, k: usize) -> Result<usize, ValueError> {
        let at = k.checked_mul(4).and_then(|o| o.checked_add(self.block_index_idx)).ok_or_else(|| {
            invalid(format!("blockIndexIdx: {} plus 4 bytes per block overflows", self.block_index_idx))
        })?;
        let b = slice(&self.data, at, 4, "the block index")?;
        let w = [b[0], b[1], b[2], b[3]];
        Ok((if self.big_endian { u32::from_be_bytes(w) } else { u32::from_le_bytes(w) }) as usize)
    }
}

/// Bit `i` of `bytes` counted from the low bit of byte 0 up; zero past the end.
fn bit(bytes: &[u8], i: usize) -> u32 {
    bytes.get(i / 8).map_or(0, |b| u32::from(b >> (i % 8)) & 1)
}

/// `width` bits of `bytes` from bit `at` up (low bit first).
fn bits(bytes: &[u8], at: usize, width: u32) -> u32 {
    let mut v = 0u32;
    for k in 0..width as usize {
        v |= bit(bytes, at + k) << k;
    }
    v
}

/// The inverse of Havok's wavelet transform, in place: `x` holds a block's coefficients
/// (approximation first, then the details of each level, coarsest first) and gets its values.
/// `x.len()` must be a power of two (else it is left as it is).
pub fn inverse_transform(x: &mut [f32]) {
    let n = x.len();
    if !n.is_power_of_two() {
        return;
    }
    let mut tmp = vec![0f32; n];
    let mut m = 1;
    while m < n {
        let (s, d) = (&x[..m], &x[m..2 * m]);
        for k in 0..m {
            let prev = d[k.saturating_sub(1)];
            tmp[2 * k] = s[k] - 0.25 * (prev + d[k]);
        }
        for k in 0..m {
            let next = if k + 1 < m { tmp[2 * k + 2] } else { tmp[2 * k] };
            tmp[2 * k + 1] = d[k] + 0.5 * (tmp[2 * k] + next);
        }
        x[..2 * m].copy_from_slice(&tmp[..2 * m]);
        m *= 2;
    }
}

/// Havok's forward wavelet transform (the inverse of [`inverse_transform`]): values to
/// coefficients, in place; `x.len()` a power of two (else it is left as it is). For tests and an
/// encoder.
pub fn forward_transform(x: &mut [f32]) {
    let n = x.len();
    if !n.is_power_of_two() {
        return;
    }
    let mut tmp = vec![0f32; n];
    let mut m = n / 2;
    while m >= 1 {
        // Split the first 2m values into m details (odd) and m approximations (even).
        for k in 0..m {
            let e = x[2 * k];
            let next = if k + 1 < m { x[2 * k + 2] } else { x[2 * k] };
            tmp[m + k] = x[2 * k + 1] - 0.5 * (e + next);
        }
        for k in 0..m {
            let prev = tmp[m + k.saturating_sub(1)];
            tmp[k] = x[2 * k] + 0.25 * (prev + tmp[m + k]);
        }
        x[..2 * m].copy_from_slice(&tmp[..2 * m]);
        m /= 2;
    }
}

/// Decodes the coefficients of one degree of freedom of one block from `stream` (which starts
/// where they do and ends where the block does) into `out` (`block_size` long), and returns
/// the bytes they take. `at` locates errors.
fn decode_dof(stream: &[u8], preserved: usize, width: u8, offset: f32, scale: f32, out: &mut [f32], at: usize) -> Result<usize, ValueError> {
    let block_size = out.len();
    let w = u32::from(width);
    let quantized = block_size - preserved;
    // Havok sizes the quantized stream in whole bytes; every symbol that fits in them is coded.
    let symbols = (quantized * w as usize).div_ceil(8) * 8 / w as usize;
    let flag_bytes = symbols.div_ceil(8);
    let pres_bytes = 4 * preserved;
    if stream.len() < pres_bytes + flag_bytes {
        return Err(ValueError::at(
            at as u64,
            ErrorKind::Invalid(format!(
                "quantized data: {pres_bytes} bytes of preserved values and {flag_bytes} of flags for {symbols} symbols, the block has {} left",
                stream.len()
            )),
        ));
    }
    for (k, o) in out.iter_mut().take(preserved).enumerate() {
        *o = f32_at(&stream[4 * k..], false);
    }
    let flags = &stream[pres_bytes..pres_bytes + flag_bytes];
    let literals = &stream[pres_bytes + flag_bytes..];
    let levels = (1u64 << w) as f32;
    let run = {
        // The quantized value of 0 as Havok computes it: truncated, 2^bits taken as 2^bits - 1.
        let r = ((-offset / scale) * levels) as i64 as u32;
        let r = if u64::from(r) == 1u64 << w { r - 1 } else { r };
        r & ((1u32 << w) - 1)
    };
    let step = scale * (1.0 / levels);
    let mut used = 0usize;
    for s in 0..symbols {
        let q = if bit(flags, s) == 1 {
            run
        } else {
            let q = bits(literals, used * w as usize, w);
            used += 1;
            q
        };
        if let Some(o) = out.get_mut(preserved + s) {
            *o = (q as f32 + 0.5) * step + offset;
        }
    }
    let size = (32 * preserved + symbols + w as usize * used).div_ceil(8);
    if size > stream.len() {
        return Err(ValueError::at(
            at as u64,
            ErrorKind::Invalid(format!("quantized data: {used} literals of {width} bits take {size} bytes, the block has {} left", stream.len())),
        ));
    }
    inverse_transform(out);
    Ok(size)
}

/// Decodes every frame of every track.
pub fn decode(d: &WaveletData) -> Result<Frames, ValueError> {
    let (masks, dynamic, _) = decode_dynamic(d)?;
    recompose(&d.data, d.big_endian, d.static_dofs_idx, &masks, d.tracks, d.float_tracks, d.poses, &dynamic)
}

/// Every transform track and float track at `time` seconds of an animation of `duration`, as
/// Havok's runtime samples wavelet data: the frame and fraction of
/// [`super::frame_and_delta`], each dynamic degree of freedom blended linearly between the two
/// frames, then recomposed with the static values (a computed `w` from the blended `x y z`; a
/// rotation whose four components are animated is not normalised).
pub fn sample(d: &WaveletData, duration: f32, time: f32) -> Result<(Vec<super::Transform>, Vec<f32>), ValueError> {
    let (masks, dynamic, _) = decode_dynamic(d)?;
    let frames = d.poses;
    let mut pose = vec![0f32; d.num_d];
    if frames > 0 {
        let (i, a) = super::frame_and_delta(frames, duration, time);
        let j = (i + 1).min(frames - 1);
        for (p, v) in pose.iter_mut().enumerate() {
            let (x, y) = (dynamic[p * frames + i], dynamic[p * frames + j]);
            *v = (1.0 - a) * x + a * y;
        }
    }
    let one = recompose(&d.data, d.big_endian, d.static_dofs_idx, &masks, d.tracks, d.float_tracks, 1, &pose)?;
    Ok((one.transforms, one.floats))
}

/// Per block, the bytes its coefficients take and the bytes the block index gives it (the next
/// entry, or `quantizedDataSize`, less its own). Havok's encoder writes them equal; a block
/// whose coefficients take more is an error of [`decode`].
pub fn block_usage(d: &WaveletData) -> Result<Vec<(usize, usize)>, ValueError> {
    Ok(decode_dynamic(d)?.2)
}

/// The static masks, the dynamic values (`numD` runs of `numberOfPoses`) and the blocks' usage.
#[allow(clippy::type_complexity)]
fn decode_dynamic(d: &WaveletData) -> Result<(Vec<u16>, Vec<f32>, Vec<(usize, usize)>), ValueError> {
    let (tracks, floats, frames) = (d.tracks, d.float_tracks, d.poses);
    let per_frame = tracks.checked_add(floats).ok_or_else(|| invalid("track counts overflow".into()))?;
    if frames > MAX_DECODED || frames.checked_mul(per_frame).is_none_or(|n| n > MAX_DECODED) {
        return Err(invalid(format!("numberOfPoses: {frames} frames of {per_frame} tracks is more than {MAX_DECODED} values")));
    }
    let masks = static_masks(&d.data, d.static_mask_idx, per_frame, d.big_endian)?;
    let named = named_dynamic(&masks, tracks);
    if named != d.num_d {
        return Err(invalid(format!("qFormat.numD: {} dynamic values, the static masks name {named}", d.num_d)));
    }
    let values = d.num_d.checked_mul(frames).filter(|&n| n <= MAX_DECODED).ok_or_else(|| {
        invalid(format!("qFormat.numD: {} dynamic values of {frames} frames is more than {MAX_DECODED}", d.num_d))
    })?;
    let mut dynamic = vec![0f32; values];
    let mut usage = Vec::new();
    if values > 0 {
        let b = d.block_size;
        if !b.is_power_of_two() {
            return Err(invalid(format!("blockSize: {b}, not a power of two")));
        }
        if d.preserved > b {
            return Err(invalid(format!("qFormat.preserved: {} preserved values in blocks of {b}", d.preserved)));
        }
        let blocks = frames.div_ceil(b);
        if d.block_index_size < blocks {
            return Err(invalid(format!("blockIndexSize: {} blocks, {frames} frames in blocks of {b} take {blocks}", d.block_index_size)));
        }
        let widths = slice(&d.data, d.bit_width_idx, d.num_d, "the bit widths")?;
        if let Some(k) = widths.iter().position(|&w| w == 0 || w > MAX_BIT_WIDTH) {
            return Err(invalid(format!("qFormat: the bit width of dynamic value {k} is {}, not 1 to {MAX_BIT_WIDTH}", widths[k])));
        }
        let nd4 = d.num_d.checked_mul(4).ok_or_else(|| invalid("qFormat.numD overflows".into()))?;
        let offsets: Vec<f32> = slice(&d.data, d.offset_idx, nd4, "the offsets")?.chunks_exact(4).map(|c| f32_at(c, d.big_endian)).collect();
        let scales: Vec<f32> = slice(&d.data, d.scale_idx, nd4, "the scales")?.chunks_exact(4).map(|c| f32_at(c, d.big_endian)).collect();
        let quantized = slice(&d.data, d.quantized_idx, d.quantized_size, "the quantized data")?;
        // A block codes at least one flag bit per frame and degree of freedom: a block size the
        // quantized data cannot hold is refused before its scratch space is made.
        if b.checked_mul(d.num_d).is_none_or(|bits| bits.div_ceil(8) > quantized.len()) {
            return Err(invalid(format!(
                "blockSize: blocks of {b} frames of {} dynamic values take more than the {} bytes of quantized data",
                d.num_d,
                quantized.len()
            )));
        }
        let mut scratch = vec![0f32; b];
        usage.reserve_exact(blocks);
        for k in 0..blocks {
            let start = d.block_start(k)?;
            let end = if k + 1 < d.block_index_size { d.block_start(k + 1)? } else { d.quantized_size };
            if start > end || end > d.quantized_size {
                return Err(ValueError::at(
                    d.block_index_idx.saturating_add(4 * k) as u64,
                    ErrorKind::Invalid(format!(
                        "block index: block {k} spans bytes {start} to {end} of the {} bytes of quantized data",
                        d.quantized_size
                    )),
                ));
            }
            let block = &quantized[start..end];
            let first = k * b;
            let n = b.min(frames - first);
            let mut pos = 0usize;
            for p in 0..d.num_d {
                let at = d.quantized_idx + start + pos;
                let used = decode_dof(&block[pos..], d.preserved, widths[p], offsets[p], scales[p], &mut scratch, at)
                    .map_err(|e| e.in_context(format!("block {k}, dynamic value {p}")))?;
                pos += used;
                dynamic[p * frames + first..p * frames + first + n].copy_from_slice(&scratch[..n]);
            }
            usage.push((pos, end - start));
        }
    }
    Ok((masks, dynamic, usage))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_transform_inverts_and_its_first_levels_are_havoks() {
        let x: Vec<f32> = (0..16).map(|i| ((i * 7 % 11) as f32) * 0.3 - 1.0).collect();
        let mut y = x.clone();
        forward_transform(&mut y);
        inverse_transform(&mut y);
        for (a, b) in x.iter().zip(&y) {
            assert!((a - b).abs() < 1e-5, "{x:?} {y:?}");
        }
        // Eight coefficients, one at a time: the 8x8 matrix of Havok's inverse (its first output
        // is the approximation less half of each level's first detail).
        let mut e = [0f32; 8];
        e[0] = 1.0;
        inverse_transform(&mut e);
        assert_eq!(e, [1.0; 8]);
        let mut e = [0f32; 8];
        e[1] = 1.0;
        inverse_transform(&mut e);
        assert_eq!(e, [-0.5, -0.25, 0.0, 0.25, 0.5, 0.5, 0.5, 0.5]);
        let mut e = [0f32; 8];
        e[4] = 1.0;
        inverse_transform(&mut e);
        assert_eq!(e, [-0.5, 0.625, -0.25, -0.125, 0.0, 0.0, 0.0, 0.0]);
        // A constant and a line come through the forward transform as one approximation (the
        // line's details vanish but for the boundary's).
        let mut c = [3.0f32; 8];
        forward_transform(&mut c);
        assert_eq!(c, [3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    }

    /// A wavelet animation of one track of 3 frames (translation x animated), written here.
    fn one_track() -> WaveletData {
        let mask: u16 = (1 << 8) | (2 << 2) | (2 << 4);
        let mut data = Vec::new();
        data.extend_from_slice(&mask.to_le_bytes()); // 0: mask
        data.extend_from_slice(&[0, 0]);
        data.extend_from_slice(&0f32.to_le_bytes()); // 4: static y
        data.extend_from_slice(&0f32.to_le_bytes()); // 8: static z
        data.extend_from_slice(&(-4.0f32).to_le_bytes()); // 12: offset
        data.extend_from_slice(&8.0f32.to_le_bytes()); // 16: scale
        data.push(4); // 20: bit width
        data.extend_from_slice(&[0, 0, 0]);
        data.extend_from_slice(&0u32.to_le_bytes()); // 24: block index
        // 28: the block: values 1, 2, 3, 3 -> coefficients, quantized to 4 bits.
        let mut c = [1.0f32, 2.0, 3.0, 3.0];
        forward_transform(&mut c);
        let q: Vec<u32> = c.iter().map(|v| (((v + 4.0) / 8.0 * 16.0) - 0.5).round().clamp(0.0, 15.0) as u32).collect();
        let run = 8; // the symbol of 0: -(-4) / 8 * 16
        let mut flags = 0u8;
        let mut lits: Vec<u32> = Vec::new();
        for (k, &s) in q.iter().enumerate() {
            if s == run {
                flags |= 1 << k;
            } else {
                lits.push(s);
            }
        }
        data.push(flags);
        let mut acc = 0u32;
        for (k, l) in lits.iter().enumerate() {
            acc |= l << (4 * k);
        }
        data.extend_from_slice(&acc.to_le_bytes()[..(4 * lits.len()).div_ceil(8)]);
        let qsize = data.len() - 28;
        WaveletData {
            tracks: 1,
            float_tracks: 0,
            poses: 3,
            block_size: 4,
            preserved: 0,
            num_d: 1,
            offset_idx: 12,
            scale_idx: 16,
            bit_width_idx: 20,
            static_mask_idx: 0,
            static_dofs_idx: 4,
            block_index_idx: 24,
            block_index_size: 1,
            quantized_idx: 28,
            quantized_size: qsize,
            data,
            big_endian: false,
        }
    }

    #[test]
    fn a_written_block_decodes_and_lies_are_located() {
        let d = one_track();
        let f = decode(&d).unwrap();
        assert_eq!((f.frame_count, f.track_count), (3, 1));
        for (k, want) in [1.0f32, 2.0, 3.0].iter().enumerate() {
            let x = f.transform(k, 0).unwrap();
            // 4 bits over a range of 8: half a step of 0.25 per coefficient, a few through the
            // inverse transform.
            assert!((x[0] - want).abs() < 0.6, "frame {k}: {x:?}");
            assert_eq!(x[6], 1.0);
            assert_eq!(x[7..10], [1.0, 1.0, 1.0]);
        }
        let lie = |f: &dyn Fn(&mut WaveletData)| {
            let mut bad = d.clone();
            f(&mut bad);
            decode(&bad).unwrap_err().to_string()
        };
        assert!(lie(&|b| b.poses = usize::MAX / 2).contains("numberOfPoses"));
        assert!(lie(&|b| b.num_d = 2).contains("numD"));
        assert!(lie(&|b| b.block_size = 3).contains("power of two"));
        assert!(lie(&|b| b.block_size = 1 << 40).contains("blockSize"));
        assert!(lie(&|b| b.block_index_size = 0).contains("blockIndexSize"));
        assert!(lie(&|b| b.quantized_size = 1 << 40).contains("quantized data"));
        assert!(lie(&|b| b.quantized_size = 1).contains("block"));
        assert!(lie(&|b| b.block_index_idx = usize::MAX - 2).contains("block index"));
        assert!(lie(&|b| b.data[20] = 0).contains("bit width"));
        assert!(lie(&|b| b.data[20] = 17).contains("bit width"));
        assert!(lie(&|b| b.data[24] = 200).contains("block 0 spans"));
        assert!(lie(&|b| b.preserved = 5).contains("preserved"));
        assert!(lie(&|b| b.static_dofs_idx = 1 << 40).contains("static"));
    }
}
