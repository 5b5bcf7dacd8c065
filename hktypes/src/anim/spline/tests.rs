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
    cases.push((a, "numFrames"));
    let mut a = s.clone();
    a.num_frames = 5_000_000; // 5 M frames of one track: more than a decode makes, whatever the blocks
    cases.push((a, "numFrames"));
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

/// What the `anim_spline` fuzz target does, on pseudo-random members and data: frames or an
/// error, never a panic, and frames as many as the members say.
#[test]
fn random_members_and_data_never_panic() {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let base = tiny();
    for i in 0..20_000 {
        let mut s = base.clone();
        let r = next();
        match i % 4 {
            0 => {
                let n = (r % 64) as usize;
                s.data = (0..n).map(|_| next() as u8).collect();
            }
            1 => {
                for _ in 0..1 + r % 4 {
                    let at = (next() as usize) % s.data.len();
                    s.data[at] = next() as u8;
                }
            }
            2 => {
                s.num_frames = (r % 600) as u32;
                s.num_blocks = (next() % 4) as u32;
                s.max_frames_per_block = (next() % 260) as u32;
                s.block_offsets = (0..s.num_blocks).map(|b| b * 16).collect();
            }
            _ => {
                s.number_of_transform_tracks = (r % 3) as u32;
                s.number_of_float_tracks = (next() % 3) as u32;
                s.mask_and_quantization_size = 4 * s.number_of_transform_tracks + s.number_of_float_tracks;
                s.endian = if next() % 2 == 0 { Endian::Big } else { Endian::Little };
            }
        }
        if let Ok(f) = decode(&s) {
            assert_eq!(f.transforms.len(), f.frame_count * f.track_count);
            assert_eq!(f.frame_count, s.num_frames as usize);
        }
        let _ = sample(&s, (r % 1000) as f32 / 100.0);
    }
}

#[test]
fn bad_frames_give_errors_naming_them() {
    let ok = Frames { frame_count: 2, track_count: 1, transforms: vec![IDENTITY, IDENTITY], float_track_count: 0, floats: vec![] };
    assert!(encode(&ok, &SplineOptions::default()).is_ok());
    let mut nan = ok.clone();
    nan.transforms[1][1] = f32::NAN;
    let mut unit = ok.clone();
    unit.transforms[0][6] = 2.0;
    let mut shape = ok.clone();
    shape.transforms.pop();
    let mut floats = ok.clone();
    floats.float_track_count = 1;
    floats.floats = vec![0.0, f32::INFINITY];
    for (f, want) in [(nan, "frame 1 track 0: component 1"), (unit, "not a unit quaternion"), (shape, "1 transforms for 2 frames"), (floats, "float track 0")] {
        let e = encode(&f, &SplineOptions::default()).unwrap_err().to_string();
        assert!(e.contains(want), "{want}: {e}");
    }
    let bad = SplineOptions { position_tolerance: 0.0, ..SplineOptions::default() };
    assert!(encode(&ok, &bad).unwrap_err().to_string().contains("position tolerance"));
    let bad = SplineOptions { max_frames_per_block: 1, ..SplineOptions::default() };
    assert!(encode(&ok, &bad).is_err());
}

#[test]
fn an_encoding_has_havoks_layout() {
    // 600 frames in blocks of 256: 3 blocks sharing boundary frames, each on 16 bytes.
    let n = 600;
    let transforms: Vec<Transform> = (0..n)
        .map(|f| {
            let a = f as f32 * 0.01;
            [a.sin(), 0.0, 5.0, 0.0, (a / 2.0).sin(), 0.0, (a / 2.0).cos(), 1.0, 1.0, 1.0]
        })
        .collect();
    let frames = Frames { frame_count: n, track_count: 1, transforms, float_track_count: 0, floats: vec![] };
    let s = encode(&frames, &SplineOptions::default()).unwrap();
    assert_eq!((s.num_blocks, s.max_frames_per_block, s.mask_and_quantization_size), (3, 256, 4));
    assert!(s.block_offsets.iter().all(|o| o % 16 == 0));
    assert_eq!(s.data.len() % 16, 0);
    // translation: x spline, y identity, z static; rotation spline; scale identity
    assert_eq!(&s.data[1..4], &[0x10 | 0x04, 0xf0, 0x00]);
    assert_eq!(s.data[0], RotationQuantization::ThreeComp40.code() << 2);
    let back = decode(&s).unwrap();
    for (a, b) in frames.transforms.iter().zip(&back.transforms) {
        for i in 0..3 {
            assert!((a[i] - b[i]).abs() <= 0.01);
        }
    }
}
