//! The wavelet codec (issue 33) on Demon's Souls' `a00_3000.hkx` (Havok 5.5.0-r1, PS3,
//! `hkaWaveletSkeletalAnimation`), the one wavelet animation of the corpus. soulstruct-havok
//! cannot decode wavelet data, so the evidence is the file's own and its neighbours':
//! - every block's coefficients end exactly where the block index starts the next block;
//! - the motion is as smooth across block boundaries as inside blocks;
//! - `a00_3000_despacito.hkx` (a 2010.2 interleaved file of 85 tracks and 61 frames, made by a
//!   modder) holds this clip sampled by Havok's runtime at time `f * duration / 61` for its frame
//!   `f` (one frame's step short of the clip's own `f * duration / 60`): the decoded frames,
//!   blended linearly as the runtime blends them, give its values to 1e-5;
//! - the constant translations are the bone lengths of the skeleton (`skeleton.hkx`, 85 bones);
//! - the lies a hostile file can tell give located errors.

mod common;

use hkgen::reflection::check::ClassSchemas;
use hktypes::anim::{self, wavelet, Animation, Codec, Frames};
use hktypes::dump::{Members, Val};
use hktypes::members::ValExt;
use hktypes::{open, Document, OpenOptions};

const FILE: &str = "DSAnimStudio/a00_3000.hkx";

fn schemas() -> &'static ClassSchemas {
    Box::leak(Box::new(ClassSchemas::load(&common::workspace_root().join("schemas")).unwrap()))
}

fn options() -> OpenOptions<'static> {
    OpenOptions { classes: Some(schemas()), ..OpenOptions::default() }
}

fn read(rel: &str) -> Option<(Vec<u8>, Document)> {
    let corpus = common::corpus()?;
    let bytes = common::corpus_file(&corpus, rel)?;
    let doc = open(&bytes, &options()).unwrap_or_else(|e| panic!("{rel}: {e}"));
    Some((bytes, doc))
}

fn only_animation(doc: &Document) -> Animation {
    let hs = anim::handles(doc);
    assert_eq!(hs.len(), 1);
    Animation::read(doc, hs[0]).unwrap()
}

/// Linear blend of frames `f` and `f + 1` at fraction `a`, component by component.
fn lerp(fr: &Frames, tau: f64, track: usize, c: usize) -> f32 {
    let i = (tau.floor() as usize).min(fr.frame_count - 2);
    let a = (tau - i as f64) as f32;
    let (x, y) = (fr.transform(i, track).unwrap()[c], fr.transform(i + 1, track).unwrap()[c]);
    x * (1.0 - a) + y * a
}

#[test]
fn a00_3000_decodes_and_its_blocks_fill_the_block_index() {
    let Some((_, doc)) = read(FILE) else { return }; // not-a-skip: read() goes through common::corpus_file, which fails under HKGEN_REQUIRE_CORPUS=1
    let a = only_animation(&doc);
    assert_eq!(a.codec, Codec::Wavelet);
    assert_eq!(a.class, "hkaWaveletSkeletalAnimation");
    assert_eq!((a.track_count, a.float_track_count, a.frame_count, a.duration), (85, 0, 61, 2.0));
    let d = wavelet::WaveletData::from_members(a.members(), &a).unwrap();
    assert_eq!((d.block_size, d.num_d, d.block_index_size, d.preserved), (8, 72, 8, 0));
    // Each block's 72 degrees of freedom take exactly the bytes the index gives the block.
    let usage = wavelet::block_usage(&d).unwrap();
    assert_eq!(usage.len(), 8);
    for (k, (used, given)) in usage.iter().enumerate() {
        assert_eq!(used, given, "block {k}");
    }
    let f = a.frames().unwrap();
    assert_eq!((f.frame_count, f.track_count, f.transforms.len()), (61, 85, 61 * 85));
    for (k, x) in f.transforms.iter().enumerate() {
        assert!(x.iter().all(|v| v.is_finite()), "transform {k}: {x:?}");
        let len = (3..7).map(|c| x[c] * x[c]).sum::<f32>().sqrt();
        assert!((len - 1.0).abs() < 1e-3, "transform {k}: rotation length {len}");
    }
    // Smooth across blocks: the mean second difference at a block's first and last frame is no
    // larger than inside blocks (measured: 0.0073 at the edges, 0.0083 inside).
    let (mut edge, mut inside) = ((0f64, 0usize), (0f64, 0usize));
    for t in 0..85 {
        for c in 0..10 {
            for i in 1..60 {
                let v = |j: usize| f64::from(f.transform(j, t).unwrap()[c]);
                let dd = (v(i + 1) - 2.0 * v(i) + v(i - 1)).abs();
                if dd == 0.0 {
                    continue;
                }
                let s = if i % 8 == 0 || i % 8 == 7 { &mut edge } else { &mut inside };
                s.0 += dd;
                s.1 += 1;
            }
        }
    }
    let (edge, inside) = (edge.0 / edge.1 as f64, inside.0 / inside.1 as f64);
    assert!(edge < 1.5 * inside, "block edges {edge}, inside {inside}");
    // The first frame of the root: what the despacito file (below) starts from too.
    let root = f.transform(0, 0).unwrap();
    for (got, want) in root[..7].iter().zip([-0.13385, 1.37353, -0.056038, 0.018333, 0.868932, -0.030761, 0.493635]) {
        assert!((got - want).abs() < 1e-5, "{root:?}");
    }
    // Sampling goes through the decoded frames.
    let mid = a.sample(1.0).unwrap();
    assert_eq!(mid.len(), 85);
}

#[test]
fn the_despacito_file_is_this_clip_sampled_by_havoks_runtime() {
    let Some((_, doc)) = read(FILE) else { return }; // not-a-skip: read() goes through common::corpus_file, which fails under HKGEN_REQUIRE_CORPUS=1
    let Some((_, other)) = read("DSAnimStudio/a00_3000_despacito.hkx") else { return }; // not-a-skip: read() goes through common::corpus_file, which fails under HKGEN_REQUIRE_CORPUS=1
    let mine = only_animation(&doc).frames().unwrap();
    let theirs = only_animation(&other);
    assert_eq!((theirs.codec.clone(), theirs.track_count, theirs.frame_count), (Codec::Interleaved, 85, 61));
    let theirs = theirs.frames().unwrap();
    let mut worst = (0f32, 0, 0, 0);
    let mut worst_w = 0f32;
    for f in 0..61 {
        let tau = f as f64 * 60.0 / 61.0;
        for t in 0..85 {
            let want = theirs.transform(f, t).unwrap();
            // Translation, rotation x y z and scale blend linearly; `w` too where it is
            // decoded, else the runtime computes it from the blended x y z.
            for c in [0, 1, 2, 3, 4, 5, 7, 8, 9] {
                let d = (lerp(&mine, tau, t, c) - want[c]).abs();
                if d > worst.0 {
                    worst = (d, f, t, c);
                }
            }
            let w = lerp(&mine, tau, t, 6);
            let xyz: f32 = (3..6).map(|c| lerp(&mine, tau, t, c).powi(2)).sum();
            let computed = (1.0 - xyz).max(0.0).sqrt().copysign(w);
            worst_w = worst_w.max((w - want[6]).abs().min((computed - want[6]).abs()));
        }
    }
    // Measured: 3.2e-7 and 2e-7.
    eprintln!("frames blended at f * 60 / 61 against the despacito frames: largest difference {worst:?}, in w {worst_w}");
    assert!(worst.0 < 1e-5, "largest difference {worst:?}");
    assert!(worst_w < 1e-5, "largest difference in w {worst_w}");
    // `Animation::sample` samples as that runtime: every component of every track.
    let a = only_animation(&doc);
    let mut worst = (0f32, 0, 0, 0);
    for f in 0..61 {
        let pose = a.sample(f as f32 * a.duration / 61.0).unwrap();
        for (t, x) in pose.iter().enumerate() {
            let want = theirs.transform(f, t).unwrap();
            for c in 0..10 {
                if (x[c] - want[c]).abs() > worst.0 {
                    worst = ((x[c] - want[c]).abs(), f, t, c);
                }
            }
        }
    }
    eprintln!("Animation::sample against the despacito frames: largest difference {worst:?} (size, frame, track, component)");
    assert!(worst.0 < 1e-5, "sample: largest difference {worst:?}");
    // Sampled at the clip's own frame times instead, the files differ by far more: the 61/60
    // time scale is the despacito file's, not a fault of the decoding.
    let off = (0..61).flat_map(|f| (0..85).map(move |t| (f, t))).map(|(f, t)| (mine.transform(f, t).unwrap()[4] - theirs.transform(f, t).unwrap()[4]).abs());
    assert!(off.fold(0f32, f32::max) > 0.01);
}

#[test]
fn constant_translations_are_the_skeletons_bone_lengths() {
    let Some((_, doc)) = read(FILE) else { return }; // not-a-skip: read() goes through common::corpus_file, which fails under HKGEN_REQUIRE_CORPUS=1
    let Some((_, skel)) = read("DSAnimStudio/skeleton.hkx") else { return }; // not-a-skip: read() goes through common::corpus_file, which fails under HKGEN_REQUIRE_CORPUS=1
    let f = only_animation(&doc).frames().unwrap();
    let h = skel.find("hkaSkeleton")[0];
    let ms = skel.members(h).unwrap();
    let pose = ms.get("referencePose").unwrap().reals();
    assert_eq!(pose.len(), 85 * 12, "85 bones of 12 reals");
    let (mut constant, mut equal) = (0, 0);
    for t in 0..85 {
        let first = *f.transform(0, t).unwrap();
        if (0..61).all(|k| f.transform(k, t).unwrap()[..3] == first[..3]) {
            constant += 1;
            if (0..3).all(|c| (first[c] - pose[12 * t + c]).abs() < 1e-3) {
                equal += 1;
            }
        }
    }
    // Measured: 82 constant translations (80 static, 2 identity), 79 the skeleton's.
    assert!(constant >= 80 && equal >= 77, "{equal} of {constant} constant translations are the skeleton's");
}

/// `doc` with the members `changes` of its animation replaced, decoded: the error.
fn lie(bytes: &[u8], changes: Vec<(String, Val)>) -> String {
    let opts = options();
    let mut d = open(bytes, &opts).unwrap();
    let h = anim::handles(&d)[0];
    let h = d.set_members(h, changes, &opts).unwrap();
    match Animation::read(&d, h).and_then(|a| a.frames()) {
        Ok(_) => panic!("a lie decoded"),
        Err(e) => e.to_string(),
    }
}

fn with_buffer(a: &Animation, edit: impl Fn(&mut Vec<u8>, &wavelet::WaveletData)) -> (String, Val) {
    let mut d = wavelet::WaveletData::from_members(a.members(), a).unwrap();
    let mut buf = d.data.clone();
    edit(&mut buf, &d);
    d.data = buf;
    ("dataBuffer".into(), Val::List(d.data.iter().map(|&b| Val::UInt(b.into())).collect()))
}

fn with_q(ms: &Members, field: &str, v: Val) -> (String, Val) {
    let Some(Val::Record(q)) = ms.get("qFormat") else { panic!("qFormat is no record") };
    let q = Members(q.0.iter().map(|(n, x)| (n.clone(), if n == field { v.clone() } else { x.clone() })).collect());
    ("qFormat".into(), Val::Record(q))
}

#[test]
fn hostile_members_give_located_errors() {
    let Some((bytes, doc)) = read(FILE) else { return }; // not-a-skip: read() goes through common::corpus_file, which fails under HKGEN_REQUIRE_CORPUS=1
    let a = only_animation(&doc);
    let ms = a.members();
    let u = |x: u64| Val::UInt(x);
    let cases: Vec<(&str, Vec<(String, Val)>, &str)> = vec![
        ("poses", vec![("numberOfPoses".into(), u(i32::MAX as u64))], "numberOfPoses"),
        ("block size 0", vec![("blockSize".into(), u(0))], "power of two"),
        ("block size 6", vec![("blockSize".into(), u(6))], "power of two"),
        ("huge block", vec![("blockSize".into(), u(1 << 30))], "blockSize"),
        ("few blocks", vec![("blockIndexSize".into(), u(3))], "blockIndexSize"),
        ("block index out", vec![("blockIndexIdx".into(), u(0x7fff_fff0))], "block index"),
        ("quantized out", vec![("quantizedDataIdx".into(), u(0x7fff_fff0))], "quantized data"),
        ("quantized size", vec![("quantizedDataSize".into(), u(0x7fff_fff0))], "quantized data"),
        ("short quantized", vec![("quantizedDataSize".into(), u(6500))], "block"),
        ("masks out", vec![("staticMaskIdx".into(), u(0x7fff_fff0))], "static masks"),
        ("statics out", vec![("staticDOFsIdx".into(), u(10_020))], "static"),
        ("numD", vec![with_q(ms, "numD", u(71))], "numD"),
        ("bit widths out", vec![with_q(ms, "bitWidthIdx", u(0x7fff_fff0))], "bit widths"),
        ("preserved", vec![with_q(ms, "preserved", u(9))], "preserved"),
        ("width 0", vec![with_buffer(&a, |b, d| b[d.bit_width_idx + 5] = 0)], "bit width"),
        ("width 40", vec![with_buffer(&a, |b, d| b[d.bit_width_idx] = 40)], "bit width"),
        ("block start lies", vec![with_buffer(&a, |b, d| b[d.block_index_idx + 7] = 0x7f)], "block 0 spans bytes 0 to 2130707363"),
        ("blocks overlap", vec![with_buffer(&a, |b, d| b[d.block_index_idx + 4..d.block_index_idx + 8].copy_from_slice(&5u32.to_le_bytes()))], "block 0"),
        ("truncated buffer", vec![("dataBuffer".into(), Val::List(vec![Val::UInt(1); 40]))], "dataBuffer"),
        ("tracks", vec![("numberOfTransformTracks".into(), u(100_000))], "object"),
    ];
    for (what, changes, want) in cases {
        let e = lie(&bytes, changes);
        assert!(e.contains("object 2"), "{what}: not located: {e}");
        assert!(e.contains(want), "{what}: {e}");
    }
}

/// The decoder on members that lie in every way a few hundred pseudo-random draws find, built on
/// the real file's buffer: an answer or a located error, never a panic, and never more values
/// than its bound.
#[test]
fn wavelet_decoder_survives_lying_members() {
    let Some((_, doc)) = read(FILE) else { return }; // not-a-skip: read() goes through common::corpus_file, which fails under HKGEN_REQUIRE_CORPUS=1
    let a = only_animation(&doc);
    let real = wavelet::WaveletData::from_members(a.members(), &a).unwrap();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut ok = 0;
    for round in 0..300 {
        let mut d = real.clone();
        let r = next();
        let v = |r: u64| match r % 4 {
            0 => (r >> 8) as usize % 16,
            1 => (r >> 8) as usize % 20_000,
            2 => usize::MAX - (r >> 8) as usize % 8,
            _ => (r >> 8) as usize,
        };
        match r % 12 {
            0 => d.poses = v(next()),
            1 => d.block_size = v(next()),
            2 => d.num_d = v(next()),
            3 => d.block_index_idx = v(next()),
            4 => d.block_index_size = v(next()),
            5 => d.quantized_idx = v(next()),
            6 => d.quantized_size = v(next()),
            7 => d.preserved = v(next()) % 12,
            8 => d.tracks = v(next()),
            9 => d.static_dofs_idx = v(next()),
            _ => {
                // Flip bytes of the buffer: index, widths, flags and literals.
                for _ in 0..1 + next() % 8 {
                    let at = next() as usize % d.data.len();
                    d.data[at] = next() as u8;
                }
            }
        }
        if round % 50 == 0 {
            d.data.truncate(next() as usize % d.data.len());
        }
        if let Ok(f) = wavelet::decode(&d) {
            assert_eq!(f.transforms.len(), f.frame_count * f.track_count);
            assert!(f.transforms.len() + f.floats.len() <= anim::delta::MAX_DECODED);
            ok += 1;
        }
    }
    eprintln!("{ok} of 300 lying wavelet animations decoded (the rest gave errors)");
}

/// A wavelet animation written here (no game data), in the layout `hktypes::anim::wavelet`
/// documents: two transform tracks and a float track, 19 frames in blocks of 8, six dynamic
/// degrees of freedom of 3 to 16 bits. Returns its members and the values it was made from
/// (per dynamic degree of freedom, per frame).
fn synthetic() -> (wavelet::WaveletData, Vec<Vec<f32>>) {
    const FRAMES: usize = 19;
    const B: usize = 8;
    let widths: [u8; 6] = [8, 5, 12, 16, 3, 7];
    let signal = |p: usize, f: usize| -> f32 {
        let x = f as f32;
        match p {
            0 => (x * 0.3).sin(),
            1 => x * 0.1,
            2 => 0.2 * (x * 0.2).sin(),
            3 => 0.1 * (x * 0.25).cos(),
            4 => 0.05 * x / 19.0,
            _ => (x * 0.4).cos(),
        }
    };
    let values: Vec<Vec<f32>> = (0..6).map(|p| (0..FRAMES).map(|f| signal(p, f)).collect()).collect();
    // Track 0: translation x y animated, z static; rotation and scale identity. Track 1:
    // translation identity, rotation x y z animated (w a static 2: computed), scale static.
    // Float track 0 animated.
    let masks: [u16; 3] = [(1 << 8) | (1 << 7) | (2 << 2) | (2 << 4), 2 | (1 << 12) | (1 << 11) | (1 << 10) | (1 << 4), 0];
    let statics: [f32; 5] = [0.25, 2.0, 1.0, 2.0, 3.0];
    // The coefficients of each block (the last padded with its last frame).
    let blocks = FRAMES.div_ceil(B);
    let coefficients: Vec<Vec<Vec<f32>>> = (0..blocks)
        .map(|k| {
            (0..6)
                .map(|p| {
                    let mut c: Vec<f32> = (0..B).map(|i| values[p][(k * B + i).min(FRAMES - 1)]).collect();
                    wavelet::forward_transform(&mut c);
                    c
                })
                .collect()
        })
        .collect();
    let mut offsets = [0f32; 6];
    let mut scales = [0f32; 6];
    for p in 0..6 {
        let all = coefficients.iter().flat_map(|b| b[p].iter().copied());
        let (lo, hi) = all.fold((f32::MAX, f32::MIN), |(l, h), x| (l.min(x), h.max(x)));
        offsets[p] = lo.min(0.0);
        scales[p] = (hi.max(0.0) - offsets[p]).max(1e-6);
    }
    let mut data = Vec::new();
    let mask_idx = data.len();
    for m in masks {
        data.extend_from_slice(&m.to_le_bytes());
    }
    let statics_idx = data.len();
    for s in statics {
        data.extend_from_slice(&s.to_le_bytes());
    }
    let offset_idx = data.len();
    offsets.iter().for_each(|x| data.extend_from_slice(&x.to_le_bytes()));
    let scale_idx = data.len();
    scales.iter().for_each(|x| data.extend_from_slice(&x.to_le_bytes()));
    let width_idx = data.len();
    data.extend_from_slice(&widths);
    let index_idx = data.len();
    data.resize(index_idx + 4 * blocks, 0);
    let quantized_idx = data.len();
    for (k, block) in coefficients.iter().enumerate() {
        let start = (data.len() - quantized_idx) as u32;
        data[index_idx + 4 * k..index_idx + 4 * k + 4].copy_from_slice(&start.to_le_bytes());
        for p in 0..6 {
            let w = u32::from(widths[p]);
            let levels = (1u64 << w) as f32;
            let top = (1u32 << w) - 1;
            let run = (((-offsets[p] / scales[p]) * levels) as i64 as u32).min(top);
            let (mut flags, mut bits, mut used) = (0u8, Vec::<u8>::new(), 0usize);
            for (i, &c) in block[p].iter().enumerate() {
                let q = (((c - offsets[p]) / scales[p] * levels) as i64).clamp(0, i64::from(top)) as u32;
                if q == run {
                    flags |= 1 << i;
                    continue;
                }
                for b in 0..w as usize {
                    let at = used * w as usize + b;
                    if at / 8 >= bits.len() {
                        bits.push(0);
                    }
                    bits[at / 8] |= (((q >> b) & 1) as u8) << (at % 8);
                }
                used += 1;
            }
            data.push(flags);
            data.extend_from_slice(&bits);
        }
    }
    let d = wavelet::WaveletData {
        tracks: 2,
        float_tracks: 1,
        poses: FRAMES,
        block_size: B,
        preserved: 0,
        num_d: 6,
        offset_idx,
        scale_idx,
        bit_width_idx: width_idx,
        static_mask_idx: mask_idx,
        static_dofs_idx: statics_idx,
        block_index_idx: index_idx,
        block_index_size: blocks,
        quantized_idx,
        quantized_size: data.len() - quantized_idx,
        data,
        big_endian: false,
    };
    (d, values)
}

/// The synthetic animation decodes to what it was made from (within its quantization), its blocks
/// fill the index, and with `HKGEN_FUZZ_SEED_DIR` set it becomes the `anim` fuzz target's seed of
/// the wavelet decoder (`WAVE`, the fifteen member words, the buffer).
#[test]
fn a_synthetic_wavelet_animation_decodes_to_its_values() {
    let (d, values) = synthetic();
    for (k, (used, given)) in wavelet::block_usage(&d).unwrap().iter().enumerate() {
        assert_eq!(used, given, "block {k}");
    }
    let f = wavelet::decode(&d).unwrap();
    assert_eq!((f.frame_count, f.track_count, f.float_track_count), (19, 2, 1));
    for fr in 0..19 {
        let (t0, t1) = (f.transform(fr, 0).unwrap(), f.transform(fr, 1).unwrap());
        let got = [t0[0], t0[1], t1[3], t1[4], t1[5], f.float(fr, 0).unwrap()];
        for p in 0..6 {
            // Each coefficient is off by at most half a quantization step; the inverse transform
            // of 8 sums at most 2.625 of them (the largest row of its matrix in absolute values).
            let step = f32::from_bits(u32::from_le_bytes(d.data[d.scale_idx + 4 * p..d.scale_idx + 4 * p + 4].try_into().unwrap()))
                / (1u32 << d.data[d.bit_width_idx + p]) as f32;
            let tol = 0.5 * 2.625 * step + 1e-5;
            assert!((got[p] - values[p][fr]).abs() < tol, "frame {fr}, value {p}: {} for {}", got[p], values[p][fr]);
        }
        assert_eq!((t0[2], t0[6], t1[7], t1[8], t1[9]), (0.25, 1.0, 1.0, 2.0, 3.0));
        let len = (3..7).map(|c| t1[c] * t1[c]).sum::<f32>().sqrt();
        assert!((len - 1.0).abs() < 1e-5 && t1[6] > 0.0, "frame {fr}: {t1:?}");
    }
    if let Some(dir) = std::env::var_os("HKGEN_FUZZ_SEED_DIR") {
        let mut seed = b"WAVE".to_vec();
        let words = [
            d.tracks,
            d.float_tracks,
            d.poses,
            d.block_size,
            d.preserved,
            d.num_d,
            d.offset_idx,
            d.scale_idx,
            d.bit_width_idx,
            d.static_mask_idx,
            d.static_dofs_idx,
            d.block_index_idx,
            d.block_index_size,
            d.quantized_idx,
            d.quantized_size,
        ];
        for w in words {
            seed.extend_from_slice(&(w as u32).to_le_bytes());
        }
        seed.extend_from_slice(&d.data);
        let dir = std::path::Path::new(&dir).join("anim").join("crafted");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("wavelet_synthetic"), &seed).unwrap();
    }
}

/// The synthetic animation with its members and bytes changed at random, 5,000 times (no corpus
/// needed): an answer or an error, never a panic, and never more values than the decoder's bound;
/// `sample` and `block_usage` alike.
#[test]
fn mutated_synthetic_animations_never_panic() {
    let (real, _) = synthetic();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut ok, mut errors) = (0, 0);
    for _ in 0..5_000 {
        let mut d = real.clone();
        for _ in 0..1 + next() % 3 {
            let r = next();
            let v = |r: u64, base: usize| match r % 4 {
                0 => base ^ (1 << (r >> 8) % 12),
                1 => (r >> 8) as usize % 64,
                2 => usize::MAX - (r >> 8) as usize % 4,
                _ => base.wrapping_add((r >> 8) as usize % 9).wrapping_sub(4),
            };
            match r % 16 {
                0 => d.poses = v(next(), d.poses),
                1 => d.block_size = v(next(), d.block_size),
                2 => d.num_d = v(next(), d.num_d),
                3 => d.block_index_idx = v(next(), d.block_index_idx),
                4 => d.block_index_size = v(next(), d.block_index_size),
                5 => d.quantized_idx = v(next(), d.quantized_idx),
                6 => d.quantized_size = v(next(), d.quantized_size),
                7 => d.preserved = v(next(), d.preserved) % 9,
                8 => d.tracks = v(next(), d.tracks) % 5,
                9 => d.float_tracks = v(next(), d.float_tracks) % 5,
                10 => d.static_dofs_idx = v(next(), d.static_dofs_idx),
                11 => d.bit_width_idx = v(next(), d.bit_width_idx),
                12 => d.data.truncate(next() as usize % (d.data.len() + 1)),
                _ => {
                    if !d.data.is_empty() {
                        let at = next() as usize % d.data.len();
                        d.data[at] = next() as u8;
                    }
                }
            }
        }
        match wavelet::decode(&d) {
            Ok(f) => {
                assert_eq!(f.transforms.len(), f.frame_count * f.track_count);
                assert!(f.transforms.len() + f.floats.len() <= anim::delta::MAX_DECODED);
                ok += 1;
            }
            Err(_) => errors += 1,
        }
        let _ = wavelet::block_usage(&d);
        let _ = wavelet::sample(&d, 1.0, 0.37);
    }
    eprintln!("{ok} mutated synthetic animations decoded, {errors} gave errors");
    assert!(ok > 0 && errors > 0);
}
