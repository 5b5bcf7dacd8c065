//! Seeds for the fuzz targets that `fuzz/seeds.sh` cannot link from the corpus as they stand:
//! `anim`, `anim_spline`, `phive` and `tagfile_xml`. Written into a scratch folder at run time, never into the
//! repository; needs only `hktypes` and `hkgen`'s library (no generated classes).
//!
//!   cargo run --example seeds -- OUT [CORPUS]
//!
//! - Made in code, without the corpus: spline data that `hktypes::anim::spline::encode` makes of
//!   synthetic frames (every rotation quantization, both scalar ones, both byte orders, several
//!   block sizes) as `anim_spline` inputs; interleaved frames as `anim`'s `INTL` inputs; a
//!   minimal Phive file around a TAG0 of two sections (`phive`).
//! - From `CORPUS` (its `MANIFEST.tsv`): its self-contained TAG0 files written as `<hktagfile>`
//!   XML (`tagfile_xml`, as `tests/tagfile_xml.rs` does, without building the generated classes); links to its animation files of at most 128 KiB (`anim`);
//!   the members of each spline, interleaved and delta animation in them, laid out as the
//!   `anim_spline`, `INTL` and `DLTA` inputs; links to its Phive files, and its small TAG0 files
//!   wrapped in a Phive header (`phive`).
//!
//! The layouts are those of `fuzz/src/checks.rs` (`anim`, `anim_spline`).

use hktypes::anim::{self, spline, Codec, Frames};
use hktypes::tagfile::phive;
use std::path::{Path, PathBuf};

const MAX: usize = 128 << 10;

struct Out {
    dir: PathBuf,
    counts: std::collections::BTreeMap<&'static str, usize>,
}

impl Out {
    fn write(&mut self, target: &'static str, name: &str, bytes: &[u8]) {
        if bytes.len() > MAX {
            return;
        }
        let dir = self.dir.join(target);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(name), bytes).unwrap();
        *self.counts.entry(target).or_default() += 1;
    }
    fn link(&mut self, target: &'static str, name: &str, to: &Path) {
        let dir = self.dir.join(target);
        std::fs::create_dir_all(&dir).unwrap();
        let at = dir.join(name);
        let _ = std::fs::remove_file(&at);
        std::os::unix::fs::symlink(to, &at).unwrap();
        *self.counts.entry(target).or_default() += 1;
    }
}

fn words(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// `s` as an `anim_spline` input, where its counts fit the target's ranges.
fn spline_input(s: &spline::SplineData) -> Option<Vec<u8>> {
    let fits = s.number_of_transform_tracks < 1024
        && s.number_of_float_tracks < 256
        && s.num_frames < 8192
        && s.num_blocks < 128
        && s.max_frames_per_block < 300
        && s.block_offsets.len() == s.num_blocks as usize;
    if !fits {
        return None;
    }
    let with_floats = s.float_block_offsets.len() == s.num_blocks as usize && s.num_blocks > 0;
    let big = u32::from(s.endian == spline::Endian::Big) << 31;
    let time_ms = ((s.duration * 500.0) as u32).min(0xFF_FFFF);
    let flags = u32::from(with_floats) | (time_ms << 8);
    let mut ws =
        vec![s.number_of_transform_tracks | big, s.number_of_float_tracks, s.num_frames, s.num_blocks, s.max_frames_per_block, flags];
    ws.extend(&s.block_offsets);
    if with_floats {
        ws.extend(&s.float_block_offsets);
    }
    let mut out = words(&ws);
    out.extend(&s.data);
    Some(out)
}

/// `f` as an `anim` `INTL` input.
fn interleaved_input(f: &Frames) -> Option<Vec<u8>> {
    let (t, fl) = anim::interleaved::encode(f, None).ok()?;
    let mut out = b"INTL".to_vec();
    out.extend(words(&[f.track_count as u32, f.float_track_count as u32, t.len() as u32]));
    out.extend(t.iter().chain(&fl).flat_map(|x| x.to_le_bytes()));
    Some(out)
}

/// Synthetic frames: smooth curves on every channel, unit rotations.
fn synthetic(frames: usize, tracks: usize, floats: usize) -> Frames {
    let mut f = Frames { frame_count: frames, track_count: tracks, float_track_count: floats, ..Default::default() };
    for i in 0..frames {
        let x = i as f32 / frames.max(2) as f32;
        for t in 0..tracks {
            let a = x * (1.0 + t as f32) * 0.7;
            let (s, c) = (a * 0.5).sin_cos();
            let static_track = t % 3 == 2;
            let tr = if static_track { [0.5, 0.0, -1.0] } else { [a.sin(), a.cos() * 2.0, x * 3.0] };
            f.transforms.push([tr[0], tr[1], tr[2], s * 0.6, s * 0.8, 0.0, c, 1.0, 1.0 + x * 0.1 * t as f32, 1.0]);
        }
        for k in 0..floats {
            f.floats.push((x * (k + 1) as f32).sin());
        }
    }
    f
}

fn made_in_code(out: &mut Out) {
    let mut n = 0;
    for (frames, tracks, floats, mfpb) in [(1, 1, 0, 256), (2, 1, 1, 256), (30, 3, 1, 256), (70, 4, 2, 16), (9, 2, 0, 4)] {
        let f = synthetic(frames, tracks, floats);
        for rq in spline::RotationQuantization::ALL {
            for (sq, endian) in
                [(spline::ScalarQuantization::Bits8, spline::Endian::Little), (spline::ScalarQuantization::Bits16, spline::Endian::Big)]
            {
                let options = spline::SplineOptions {
                    rotation_quantization: rq,
                    translation_quantization: sq,
                    scale_quantization: sq,
                    float_quantization: sq,
                    max_frames_per_block: mfpb,
                    endian,
                    ..Default::default()
                };
                let Ok(s) = spline::encode(&f, &options) else { continue };
                if let Some(bytes) = spline_input(&s) {
                    out.write("anim_spline", &format!("made-{n:03}"), &bytes);
                    n += 1;
                }
            }
        }
        if let Some(bytes) = interleaved_input(&f) {
            out.write("anim", &format!("made-intl-{frames}-{tracks}-{floats}"), &bytes);
        }
    }
    // A minimal Phive file: the wrapper around a TAG0 of an SDKV and an empty DATA section (no
    // type table: the wrapper reads, the tagfile inside does not), and an AAMP-like trailing
    // block, in both byte orders.
    let leaf = |tag: &[u8; 4], body: &[u8]| -> Vec<u8> {
        let mut v = (0x4000_0000u32 | (8 + body.len()) as u32).to_be_bytes().to_vec();
        v.extend(tag);
        v.extend(body);
        v
    };
    let mut inner = leaf(b"SDKV", b"20220100");
    inner.extend(leaf(b"DATA", &[]));
    let mut tag0 = ((8 + inner.len()) as u32).to_be_bytes().to_vec();
    tag0.extend(b"TAG0");
    tag0.extend(inner);
    for big_endian in [false, true] {
        let header = phive::Header { version: 1, big_endian, kind: [3, 3], reserved: [0; 16] };
        let bytes = phive::write(&header, &tag0, None, b"AAMP\x02\x00\x00\x00\0\0\0\0\0\0\0\0");
        out.write("phive", &format!("made-{}", if big_endian { "be" } else { "le" }), &bytes);
    }
}

fn from_corpus(out: &mut Out, corpus: &Path) {
    let manifest = std::fs::read_to_string(corpus.join("MANIFEST.tsv")).expect("MANIFEST.tsv");
    let schemas_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas");
    let schemas = hkgen::reflection::check::ClassSchemas::load(&schemas_dir).expect("schemas/ loads");
    let options = hktypes::OpenOptions { classes: Some(&schemas), ..Default::default() };
    for line in manifest.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (Some(path), Some(size), Some(format)) = (cols.first(), cols.get(2), cols.get(3)) else { continue };
        let size: usize = size.parse().unwrap_or(usize::MAX);
        let classes = cols.get(7).copied().unwrap_or("");
        let file = corpus.join(path);
        let name = path.replace('/', "_");
        if *format == "phive" {
            out.link("phive", &name, &file);
        }
        if *format == "tag0" && size <= MAX - 64 && cols.get(6).is_some_and(|t| *t == "TYPE") && out.counts.get("phive").copied().unwrap_or(0) < 60 {
            if let Ok(tag0) = std::fs::read(&file) {
                let header = phive::Header { version: 1, big_endian: false, kind: [3, 3], reserved: [0; 16] };
                out.write("phive", &format!("wrapped-{name}"), &phive::write(&header, &tag0, None, b"AAMP\0\0\0\0"));
            }
        }
        if *format == "tag0" && size <= MAX && cols.get(6).is_some_and(|t| *t == "TYPE") {
            if let Ok(tag0) = std::fs::read(&file) {
                let none = hktypes::tagfile::CompendiumSet::new();
                let text = hktypes::tagfile::TagFile::read(&tag0, &none)
                    .ok()
                    .and_then(|f| hktypes::tagfile::xml::write(&f, hktypes::tagfile::xml::WriteOptions::default()).ok());
                if let Some(text) = text {
                    out.write("tagfile_xml", &format!("{name}.xml"), text.as_bytes());
                }
            }
        }
        if *format == "xml-tagfile" && size <= MAX {
            out.link("tagfile_xml", &name, &file);
        }
        if !classes.contains("hka") || !classes.contains("Animation") || !matches!(*format, "tag0" | "packfile") {
            continue;
        }
        if size <= MAX {
            out.link("anim", &name, &file);
        }
        if size > 16 << 20 {
            continue;
        }
        let Ok(bytes) = std::fs::read(&file) else { continue };
        let Ok(doc) = hktypes::open(&bytes, &options) else { continue };
        for (k, h) in anim::handles(&doc).into_iter().enumerate().take(8) {
            let Ok(a) = anim::Animation::read(&doc, h) else { continue };
            match a.codec {
                Codec::Spline => {
                    if let Some(input) = a.spline_data().ok().as_ref().and_then(spline_input) {
                        out.write("anim_spline", &format!("{name}-{k}"), &input);
                    }
                }
                Codec::Interleaved => {
                    if let Some(input) = a.frames().ok().as_ref().and_then(interleaved_input) {
                        out.write("anim", &format!("intl-{name}-{k}"), &input);
                    }
                }
                Codec::Delta => {
                    if let Ok(d) = anim::delta::DeltaData::from_members(a.members(), &a) {
                        let ws = [
                            d.tracks, d.float_tracks, d.poses, d.block_size, d.preserved, d.num_d, d.offset_idx, d.scale_idx, d.bit_width_idx,
                            d.quantized_idx, d.static_mask_idx, d.static_dofs_idx,
                        ];
                        let mut input = b"DLTA".to_vec();
                        input.extend(words(&ws.map(|w| w as u32)));
                        input.extend(&d.data);
                        out.write("anim", &format!("dlta-{name}-{k}"), &input);
                    }
                }
                _ => {}
            }
        }
    }
}

fn main() {
    let mut args = std::env::args_os().skip(1);
    let dir = PathBuf::from(args.next().expect("usage: seeds OUT [CORPUS]"));
    let mut out = Out { dir, counts: Default::default() };
    made_in_code(&mut out);
    if let Some(corpus) = args.next() {
        from_corpus(&mut out, Path::new(&corpus));
    }
    for (target, n) in &out.counts {
        println!("{target}: {n} seeds written or linked");
    }
}
