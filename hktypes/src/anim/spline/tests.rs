//! Unit tests of the spline decoder on hand-made data.

use super::*;

/// One block, one track: a spline translation x (degree 1, 2 control points, 8 bits),
/// a static rotation (UNCOMPRESSED), identity scale.
fn tiny() -> SplineData {
    let mut d = Vec::new();
    // mask: translation 8 bit, rotation UNCOMPRESSED (5 << 2), scale 8 bit
    d.extend_from_slice(&[5 << 2, 0x10, 0x01, 0x00]);
    // translation spline: n=1, p=1, knots 0 0 2 2, pad to 4
    d.extend_from_slice(&1u16.to_le_bytes());
    d.push(1);
    d.extend_from_slice(&[0, 0, 2, 2]);
    while d.len() % 4 != 0 {
        d.push(0);
    }
    d.extend_from_slice(&0.0f32.to_le_bytes());
    d.extend_from_slice(&2.0f32.to_le_bytes());
    d.extend_from_slice(&[0, 255]);
    while d.len() % 4 != 0 {
        d.push(0);
    }
    for c in [0.0f32, 0.0, 0.0, 1.0] {
        d.extend_from_slice(&c.to_le_bytes());
    }
    while d.len() % 16 != 0 {
        d.push(0);
    }
    SplineData {
        duration: 2.0 / 30.0,
        number_of_transform_tracks: 1,
        number_of_float_tracks: 0,
        num_frames: 3,
        num_blocks: 1,
        max_frames_per_block: 256,
        mask_and_quantization_size: 4,
        block_duration: 255.0 / 30.0,
        block_inverse_duration: 30.0 / 255.0,
        frame_duration: 1.0 / 30.0,
        block_offsets: vec![0],
        float_block_offsets: vec![],
        transform_offsets: vec![],
        float_offsets: vec![],
        data: d,
        endian_member: 0,
        endian: Endian::Little,
    }
}

#[test]
fn a_linear_spline_decodes_to_its_line() {
    let f = decode(&tiny()).unwrap();
    assert_eq!((f.frame_count, f.track_count), (3, 1));
    for (i, want) in [0.0, 1.0, 2.0].into_iter().enumerate() {
        let t = f.transform(i, 0).unwrap();
        assert!((t[0] - want).abs() < 1e-6, "frame {i}: {t:?}");
        assert_eq!(&t[3..], &[0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]);
    }
    let (s, _) = sample(&tiny(), 1.5 / 30.0).unwrap();
    assert!((s[0][0] - 1.5).abs() < 1e-5, "{s:?}");
}

#[test]
fn lying_members_give_located_errors() {
    let s = tiny();
    let mut cases: Vec<(SplineData, &str)> = Vec::new();
    let mut a = s.clone();
    a.num_blocks = 1_000_000;
    cases.push((a, "numBlocks"));
    let mut a = s.clone();
    a.num_frames = u32::MAX;
    cases.push((a, "numBlocks"));
    let mut a = s.clone();
    a.number_of_transform_tracks = 1 << 30;
    cases.push((a, "maskAndQuantizationSize"));
    let mut a = s.clone();
    a.data[0] = 0x3c; // rotation code 15
    cases.push((a, "quantization byte"));
    let mut a = s.clone();
    a.data[7] = 9; // knots 0 0 9 2: decreasing
    cases.push((a, "knots"));
    let mut a = s.clone();
    a.data[4] = 0xff; // 0xff01 control points
    a.data[5] = 0xff;
    cases.push((a, "bytes"));
    let mut a = s.clone();
    a.data[6] = 7; // degree 7
    cases.push((a, "degree"));
    let mut a = s.clone();
    a.block_offsets = vec![4096];
    cases.push((a, "blockOffsets"));
    let mut a = s.clone();
    a.data.truncate(20);
    cases.push((a, "left"));
    for (c, want) in cases {
        let e = decode(&c).unwrap_err().to_string();
        assert!(e.contains(want), "{want}: {e}");
    }
}

#[test]
fn truncated_data_never_panics() {
    let s = tiny();
    for n in 0..s.data.len() {
        let mut a = s.clone();
        a.data.truncate(n);
        let _ = decode(&a);
        for b in 0..s.data.len().min(n) {
            let mut c = a.clone();
            c.data[b] ^= 0xff;
            let _ = decode(&c);
        }
    }
}
