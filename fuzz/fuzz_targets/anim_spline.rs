#![no_main]
//! Fuzz target `anim_spline`: `hktypes::anim::spline::decode` and `sample` on members and data
//! made from the input. The first 24 bytes give the counts (transform tracks, float tracks,
//! frames, blocks, frames per block, block offset stride), the rest is `data`; the block offsets
//! step through it by the stride. Decoding must give frames or an error, never a panic, and its
//! frames must be as many as the members say.

use hktypes::anim::spline::{decode, sample, Endian, SplineData};

libfuzzer_sys::fuzz_target!(|input: &[u8]| {
    if input.len() < 24 {
        return;
    }
    let word = |i: usize| u32::from_le_bytes([input[i], input[i + 1], input[i + 2], input[i + 3]]);
    let tracks = word(0) % 512;
    let floats = word(4) % 64;
    let frames = word(8) % 4096;
    let blocks = word(12) % 64;
    let mfpb = word(16) % 300;
    let stride = (word(20) % 4096) & !3;
    let data = input[24..].to_vec();
    let spline = SplineData {
        duration: frames.saturating_sub(1) as f32 / 30.0,
        number_of_transform_tracks: tracks,
        number_of_float_tracks: floats,
        num_frames: frames,
        num_blocks: blocks,
        max_frames_per_block: mfpb,
        mask_and_quantization_size: 4 * tracks + floats,
        block_duration: mfpb.saturating_sub(1) as f32 / 30.0,
        block_inverse_duration: 30.0 / mfpb.saturating_sub(1).max(1) as f32,
        frame_duration: 1.0 / 30.0,
        block_offsets: (0..blocks).map(|b| b * stride).collect(),
        float_block_offsets: Vec::new(),
        transform_offsets: Vec::new(),
        float_offsets: Vec::new(),
        data,
        endian_member: (word(0) >> 31) as i32,
        endian: if word(0) >> 31 == 1 { Endian::Big } else { Endian::Little },
    };
    if let Ok(f) = decode(&spline) {
        assert_eq!(f.transforms.len(), f.frame_count * f.track_count);
        assert_eq!(f.floats.len(), f.frame_count * f.float_track_count);
        assert_eq!(f.frame_count, frames as usize);
    }
    let _ = sample(&spline, word(8) as f32 / 1000.0);
});
