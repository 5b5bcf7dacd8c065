//! The spline codec (`hktypes::anim::spline`) on every corpus file holding an
//! `hkaSplineCompressedAnimation`: every animation decodes, known values agree, and every one
//! re-encodes at Havok's default tolerances to data that decodes within them.
//!
//! The members are read here through the plain dump (`hktypes::dump`), which every SDK and format
//! gives; the animation API reads them through the typed classes.

mod common;

use hkgen::reflection::check::ClassSchemas;
use hkgen::reflection::sources::sdk_of_contents_version;
use hktypes::anim::spline::{self, Endian, SplineData, SplineOptions};
use hktypes::anim::Frames;
use hktypes::dump::{dump_packfile, dump_tagfile, Dump, Val};
use std::path::Path;

fn schemas() -> ClassSchemas {
    ClassSchemas::load(&common::workspace_root().join("schemas")).unwrap()
}

fn member<'a>(m: &'a [(String, Val)], name: &str) -> Option<&'a Val> {
    m.iter().find(|(n, _)| n == name).map(|(_, v)| v)
}

fn num(v: Option<&Val>) -> Option<f64> {
    match v? {
        Val::Int(i) => Some(*i as f64),
        Val::UInt(u) => Some(*u as f64),
        Val::Real(r) => Some(*r as f64),
        Val::Bits(b) => Some(f32::from_bits(*b) as f64),
        Val::Str(s) => s.parse().ok(),
        _ => None,
    }
}

fn list(v: Option<&Val>) -> Vec<u32> {
    match v {
        Some(Val::List(l)) | Some(Val::Array(l, _)) => l.iter().map(|x| num(Some(x)).unwrap_or(0.0) as u32).collect(),
        Some(Val::Bytes(b)) => b.iter().map(|&x| x as u32).collect(),
        _ => Vec::new(),
    }
}

/// Every spline animation of a dump, with its handle.
fn splines_of(dump: &Dump) -> Vec<(u32, SplineData)> {
    let endian = match dump.layout.as_deref().and_then(|l| l.split(',').nth(1)) {
        Some("0") | Some("false") => Endian::Big,
        _ => Endian::Little,
    };
    let mut out = Vec::new();
    for o in &dump.objects {
        if o.class != "hkaSplineCompressedAnimation" {
            continue;
        }
        let Some(m) = &o.members else { continue };
        let m = &m.0[..];
        let u = |n: &str| num(member(m, n)).unwrap_or(0.0) as u32;
        let f = |n: &str| num(member(m, n)).unwrap_or(0.0) as f32;
        out.push((
            o.handle,
            SplineData {
                duration: f("duration"),
                number_of_transform_tracks: u("numberOfTransformTracks"),
                number_of_float_tracks: u("numberOfFloatTracks"),
                num_frames: u("numFrames"),
                num_blocks: u("numBlocks"),
                max_frames_per_block: u("maxFramesPerBlock"),
                mask_and_quantization_size: u("maskAndQuantizationSize"),
                block_duration: f("blockDuration"),
                block_inverse_duration: f("blockInverseDuration"),
                frame_duration: f("frameDuration"),
                block_offsets: list(member(m, "blockOffsets")),
                float_block_offsets: list(member(m, "floatBlockOffsets")),
                transform_offsets: list(member(m, "transformOffsets")),
                float_offsets: list(member(m, "floatOffsets")),
                data: list(member(m, "data")).into_iter().map(|b| b as u8).collect(),
                endian_member: num(member(m, "endian")).unwrap_or(0.0) as i32,
                // The data's byte order is the `endian` member's where the class has one (Havok's
                // tools write it with the data, whatever the file's platform), else the file's.
                endian: match num(member(m, "endian")) {
                    Some(e) if e == 0.0 => Endian::Little,
                    Some(_) => Endian::Big,
                    None => endian,
                },
            },
        ));
    }
    out
}

/// Every corpus file with spline animations: `(relpath, sdk, animations)`.
fn corpus_splines(corpus: &Path) -> Vec<(String, String, Vec<(u32, SplineData)>)> {
    let entries = common::manifest(corpus);
    let compendia = common::compendia(&entries);
    let schemas = schemas();
    let mut out = Vec::new();
    for e in entries.iter().filter(|e| e.format == "packfile" || e.format == "tag0") {
        let Some(bytes) = common::corpus_file(corpus, &e.relpath) else { continue };
        // The class name is in a packfile's __classnames__, a TAG0 file's TYPE section or the
        // compendium a TCRF file names.
        let named = bytes.windows(28).any(|w| w == b"hkaSplineCompressedAnimation");
        let tcrf = bytes.windows(4).any(|w| w == b"TCRF");
        if !named && !tcrf {
            continue;
        }
        let dump = if e.format == "packfile" {
            let Ok(f) = hktypes::packfile::PackFile::read(&bytes) else { continue };
            let sdk = sdk_of_contents_version(&f.contents_version());
            let Ok(doc) = hktypes::packfile::objects::PackfileDocument::from_file_with(f, &schemas.sources_for(&sdk)) else { continue };
            dump_packfile(&doc)
        } else {
            let set = compendia.set_for(&e.path);
            let Ok(t) = hktypes::tagfile::TagFile::read(&bytes, &set) else { continue };
            dump_tagfile(&t)
        };
        let Ok(dump) = dump else { continue };
        let splines = splines_of(&dump);
        if !splines.is_empty() {
            out.push((e.relpath.clone(), e.sdk.clone(), splines));
        }
    }
    out
}

fn quat_diff(a: &[f32], b: &[f32]) -> f32 {
    let d = (0..4).map(|i| (a[i] - b[i]).abs()).fold(0.0, f32::max);
    let e = (0..4).map(|i| (a[i] + b[i]).abs()).fold(0.0, f32::max);
    d.min(e)
}

/// Largest (translation, rotation, scale, float) differences between two frame sets.
fn differences(a: &Frames, b: &Frames) -> [f32; 4] {
    let mut d = [0.0f32; 4];
    // A value that is not finite on either side is an infinite difference (f32::max would drop
    // a NaN).
    let bad = |x: &[f32]| x.iter().any(|c| !c.is_finite());
    if a.transforms.iter().chain(&b.transforms).any(|t| bad(t)) || bad(&a.floats) || bad(&b.floats) {
        return [f32::INFINITY; 4];
    }
    for (x, y) in a.transforms.iter().zip(&b.transforms) {
        for i in 0..3 {
            d[0] = d[0].max((x[i] - y[i]).abs());
            d[2] = d[2].max((x[7 + i] - y[7 + i]).abs());
        }
        d[1] = d[1].max(quat_diff(&x[3..7], &y[3..7]));
    }
    for (x, y) in a.floats.iter().zip(&b.floats) {
        d[3] = d[3].max((x - y).abs());
    }
    d
}

#[test]
fn every_corpus_spline_animation_decodes() {
    let Some(corpus) = common::corpus() else { return };
    let files = corpus_splines(&corpus);
    let (mut anims, mut frames, mut tracks, mut failures) = (0, 0usize, 0usize, Vec::new());
    let mut sdks = std::collections::BTreeSet::new();
    for (rel, sdk, splines) in &files {
        for (h, s) in splines {
            anims += 1;
            match spline::decode(s) {
                Ok(f) => {
                    frames += f.frame_count;
                    tracks += f.track_count;
                    sdks.insert(format!("{sdk} {:?}", s.endian));
                    assert_eq!(f.transforms.len(), f.frame_count * f.track_count);
                    for (i, t) in f.transforms.iter().enumerate() {
                        assert!(t.iter().all(|c| c.is_finite()), "{rel} #{h}: frame {} not finite: {t:?}", i / f.track_count.max(1));
                        let n: f32 = t[3..7].iter().map(|c| c * c).sum();
                        assert!((n - 1.0).abs() < 1e-4, "{rel} #{h}: rotation {t:?} not unit");
                    }
                }
                Err(e) => failures.push(format!("{rel} #{h} (endian member {}, {:?}): {e}", s.endian_member, s.endian)),
            }
        }
    }
    println!("{} files, {anims} spline animations, {frames} frames, {tracks} tracks; SDKs {sdks:?}", files.len());
    assert!(failures.is_empty(), "{} of {anims} do not decode:\n{}", failures.len(), failures.join("\n"));
    if common::corpus_required() {
        assert!(anims >= 60, "only {anims} spline animations found");
    }
}

/// Every corpus spline animation, decoded, re-encoded at Havok's default tolerances and
/// quantization (keeping the stock file's frame duration and block size), decodes within those
/// tolerances; the encoded data's size against the stock data's is printed per file with the
/// median ratio.
#[test]
fn every_corpus_spline_animation_reencodes_within_the_default_tolerances() {
    let Some(corpus) = common::corpus() else { return };
    let files = corpus_splines(&corpus);
    let defaults = SplineOptions::default();
    let mut ratios = Vec::new();
    let mut failures = Vec::new();
    let (mut stock_total, mut ours_total) = (0usize, 0usize);
    let started = std::time::Instant::now();
    for (rel, _, splines) in &files {
        for (h, s) in splines {
            let frames = spline::decode(s).unwrap();
            let options = SplineOptions {
                frame_duration: if s.frame_duration > 0.0 { s.frame_duration } else { defaults.frame_duration },
                max_frames_per_block: s.max_frames_per_block.clamp(2, 256),
                endian: s.endian,
                ..defaults.clone()
            };
            let enc = match spline::encode(&frames, &options) {
                Ok(e) => e,
                Err(e) => {
                    failures.push(format!("{rel} #{h}: does not encode: {e}"));
                    continue;
                }
            };
            let back = match spline::decode(&enc) {
                Ok(b) => b,
                Err(e) => {
                    failures.push(format!("{rel} #{h}: its encoding does not decode: {e}"));
                    continue;
                }
            };
            assert_eq!((back.frame_count, back.track_count, back.float_track_count), (frames.frame_count, frames.track_count, frames.float_track_count));
            let d = differences(&frames, &back);
            let tol = [options.position_tolerance, options.rotation_tolerance, options.scale_tolerance, options.float_tolerance];
            // The decoder's arithmetic in f32 adds a few ulps of the values to the fit's error.
            if d.iter().zip(tol).any(|(d, t)| *d > t * 1.001 + 1e-5) {
                failures.push(format!("{rel} #{h}: differences {d:?} beyond {tol:?}"));
            }
            let ratio = enc.data.len() as f64 / s.data.len().max(1) as f64;
            stock_total += s.data.len();
            ours_total += enc.data.len();
            println!("{rel} #{h}: {} frames, {} tracks: stock {} bytes, encoded {} bytes, ratio {ratio:.3}; max differences {d:?}", frames.frame_count, frames.track_count, s.data.len(), enc.data.len());
            ratios.push(ratio);
        }
    }
    ratios.sort_by(f64::total_cmp);
    let median = if ratios.is_empty() { 0.0 } else { ratios[ratios.len() / 2] };
    println!(
        "{} animations re-encoded in {:.2?}: median size ratio {median:.3} (encoded/stock), total {ours_total} / {stock_total} bytes = {:.3}",
        ratios.len(),
        started.elapsed(),
        ours_total as f64 / stock_total.max(1) as f64
    );
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// Encoding 100 frames of 100 tracks, every channel moving, at the default tolerances.
#[test]
fn encoding_100_frames_of_100_tracks_is_fast() {
    let (nf, nt) = (100, 100);
    let mut transforms = Vec::with_capacity(nf * nt);
    for f in 0..nf {
        for t in 0..nt {
            let x = f as f32 / 10.0 + t as f32;
            let a = (x * 0.37).sin() * 0.8;
            let h = a * 0.5;
            let axis = [0.6f32, 0.0, 0.8];
            transforms.push([x.sin(), (x * 1.3).cos() * 2.0, x * 0.05, axis[0] * h.sin(), axis[1] * h.sin(), axis[2] * h.sin(), h.cos(), 1.0 + 0.1 * (x * 0.7).sin(), 1.0, 1.0]);
        }
    }
    let floats: Vec<f32> = (0..nf).flat_map(|f| [(f as f32 * 0.1).sin(), 3.0]).collect();
    let frames = Frames { frame_count: nf, track_count: nt, transforms, float_track_count: 2, floats };
    let started = std::time::Instant::now();
    let enc = spline::encode(&frames, &SplineOptions::default()).unwrap();
    let took = started.elapsed();
    let back = spline::decode(&enc).unwrap();
    let d = differences(&frames, &back);
    println!("100 frames x 100 tracks (+2 float tracks): encoded to {} bytes in {took:.2?}; max differences {d:?}", enc.data.len());
    assert!(d.iter().all(|&d| d <= 0.01 * 1.001 + 1e-5), "{d:?}");
    assert!(took.as_secs_f64() < 1.0, "{took:?}");
    // Big-endian data of the same frames decodes to the same values, with every rotation
    // quantization and 16-bit scalars.
    for q in spline::RotationQuantization::ALL {
        let options = SplineOptions {
            rotation_quantization: q,
            translation_quantization: spline::ScalarQuantization::Bits16,
            rotation_tolerance: 0.2,
            ..SplineOptions::default()
        };
        let le = spline::encode(&frames, &options).unwrap();
        let be = spline::encode(&frames, &SplineOptions { endian: Endian::Big, ..options.clone() }).unwrap();
        assert_eq!(le.data.len(), be.data.len(), "{q:?}");
        assert_ne!(le.data, be.data, "{q:?}");
        let (a, b) = (spline::decode(&le).unwrap(), spline::decode(&be).unwrap());
        assert_eq!(a, b, "{q:?}");
        let d = differences(&frames, &a);
        assert!(d[0] <= 0.01 * 1.001 + 1e-5 && d[1] <= 0.2 * 1.001 && d[3] <= 0.01 * 1.001 + 1e-5, "{q:?}: {d:?}");
    }
}

#[test]
fn decoded_frames_agree_with_known_values() {
    let Some(corpus) = common::corpus() else { return };
    let rel = "soulstruct-havok/PTDE__c2240__a00_0000.hkx";
    let Some(bytes) = common::corpus_file(&corpus, rel) else { return };
    let f = hktypes::packfile::PackFile::read(&bytes).unwrap();
    let sdk = sdk_of_contents_version(&f.contents_version());
    let doc = hktypes::packfile::objects::PackfileDocument::from_file_with(f, &schemas().sources_for(&sdk)).unwrap();
    let splines = splines_of(&dump_packfile(&doc).unwrap());
    assert_eq!(splines.len(), 1);
    let s = &splines[0].1;
    let frames = spline::decode(s).unwrap();
    assert_eq!((frames.frame_count, frames.track_count, frames.float_track_count), (121, 84, 0));
    let known: [(usize, usize, [f32; 10]); 3] = [
        (0, 0, [-4.936009645462036e-07, 1.4050744771957397, -1.4901161193847656e-07, 0.03627074137330055, 0.7926520109176636, 0.02763485163450241, 0.6079667210578918, 1.0, 1.0, 1.0]),
        (60, 10, [0.7098670601844788, 0.0, 0.0, 0.0, 0.2084566056728363, 0.0, 0.9780316352844238, 1.0, 1.0, 1.0]),
        (120, 83, [0.20448656380176544, 0.0, 0.0, -0.707452118396759, 0.0, -0.7067613005638123, 0.0, 1.0, 1.0, 1.0]),
    ];
    for (f, t, want) in known {
        let got = frames.transform(f, t).unwrap();
        assert!(got.iter().zip(&want).all(|(a, b)| (a - b).abs() <= 1e-5), "frame {f} track {t}: {got:?}, want {want:?}");
    }
    // Sampling at a frame's time gives that frame; between frames, a value between them.
    let frame_time = |f: usize| s.duration * f as f32 / (s.num_frames - 1) as f32;
    let (at60, _) = spline::sample(s, frame_time(60)).unwrap();
    assert!(at60[10].iter().zip(frames.transform(60, 10).unwrap()).all(|(a, b)| (a - b).abs() <= 1e-4));
    let (mid, _) = spline::sample(s, (frame_time(60) + frame_time(61)) / 2.0).unwrap();
    let (a, b) = (frames.transform(60, 0).unwrap()[1], frames.transform(61, 0).unwrap()[1]);
    assert!(mid[0][1] >= a.min(b) - 1e-3 && mid[0][1] <= a.max(b) + 1e-3, "{} not between {a} and {b}", mid[0][1]);
}

/// For `bench/spline_vs_soulstruct.py`: writes, for every corpus spline animation, its members
/// (`N.json`) and hkgen's decoded frames (`N.f32`: little-endian f32, frame-major, 10 per
/// transform) to `$SPLINE_DUMP_DIR`.
#[test]
#[ignore]
fn dump_decoded_for_soulstruct() {
    let Some(corpus) = common::corpus() else { return };
    let dir = std::path::PathBuf::from(std::env::var("SPLINE_DUMP_DIR").expect("SPLINE_DUMP_DIR"));
    std::fs::create_dir_all(&dir).unwrap();
    let mut n = 0;
    let mut index = Vec::new();
    for (rel, sdk, splines) in corpus_splines(&corpus) {
        for (h, s) in splines {
            let started = std::time::Instant::now();
            let f = spline::decode(&s).unwrap();
            let took = started.elapsed().as_secs_f64();
            let bytes: Vec<u8> = f.transforms.iter().flatten().flat_map(|c| c.to_le_bytes()).collect();
            std::fs::write(dir.join(format!("{n}.f32")), bytes).unwrap();
            let meta = serde_json::json!({
                "file": rel, "handle": h, "sdk": sdk,
                "tracks": s.number_of_transform_tracks, "float_tracks": s.number_of_float_tracks,
                "frames": s.num_frames, "blocks": s.num_blocks, "max_frames_per_block": s.max_frames_per_block,
                "big_endian": s.endian == Endian::Big, "data": s.data.iter().map(|b| format!("{b:02x}")).collect::<String>(),
                "hkgen_seconds": took,
            });
            std::fs::write(dir.join(format!("{n}.json")), meta.to_string()).unwrap();
            // The re-encoding at the default tolerances, as hkgen decodes it.
            let options = SplineOptions {
                frame_duration: if s.frame_duration > 0.0 { s.frame_duration } else { 1.0 / 30.0 },
                max_frames_per_block: s.max_frames_per_block.clamp(2, 256),
                endian: s.endian,
                ..SplineOptions::default()
            };
            let enc = spline::encode(&f, &options).unwrap();
            let back = spline::decode(&enc).unwrap();
            let bytes: Vec<u8> = back.transforms.iter().flatten().flat_map(|c| c.to_le_bytes()).collect();
            std::fs::write(dir.join(format!("{n}.enc.f32")), bytes).unwrap();
            let meta = serde_json::json!({
                "file": format!("{rel} (re-encoded)"), "handle": h, "sdk": sdk,
                "tracks": enc.number_of_transform_tracks, "float_tracks": enc.number_of_float_tracks,
                "frames": enc.num_frames, "blocks": enc.num_blocks, "max_frames_per_block": enc.max_frames_per_block,
                "big_endian": enc.endian == Endian::Big, "data": enc.data.iter().map(|b| format!("{b:02x}")).collect::<String>(),
                "hkgen_seconds": 0.0,
            });
            std::fs::write(dir.join(format!("{n}.enc.json")), meta.to_string()).unwrap();
            index.push(n);
            n += 1;
        }
    }
    std::fs::write(dir.join("count"), n.to_string()).unwrap();
    println!("{n} animations written to {}", dir.display());
}
