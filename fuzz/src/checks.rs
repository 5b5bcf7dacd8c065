//! What each fuzz target checks of one input. Shared by the targets under `fuzz/fuzz_targets/`
//! and by the regression test `tests/fuzz_regressions.rs`, which runs every input a fuzzer ever
//! failed on through the same function.
//!
//! Each check reads the input with a reader of the project; the reader must end in `Ok` or in a
//! located `Err` (never a panic, which the fuzzer reports as a crash). Where a read succeeds, the
//! check also writes the result and requires the written bytes to read again and write the same
//! bytes (writing is a function of what was read).

use hktypes::graph::TagfileDocument;
use hktypes::tagfile::{Compendium, CompendiumSet, TagFile};

/// A TAG0 file (or any input) through the container, the type table and the items, with no
/// compendia and no generated classes: every object dynamic.
pub fn tag0(data: &[u8]) {
    let Ok(file) = TagFile::read(data, &CompendiumSet::new()) else { return };
    let _ = file.sdk_version();
    let _ = hktypes::dynamic::dump(&file);
    drop(file);
    stable_write(data, &[]);
}

/// A TCM0 compendium, and the set that looks its ids up.
pub fn tcm0(data: &[u8]) {
    let Ok(c) = Compendium::read(data) else { return };
    let mut set = CompendiumSet::new();
    set.add(&c);
    for id in &c.ids {
        assert!(set.get(id).is_some(), "a compendium's own id does not find it");
    }
}

/// The Elden Ring type-registry importer, on any text.
pub fn registry(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = hkgen::registry::import(text);
}

/// A packfile: the container read and written back; where the written file reads, writing it
/// again gives the same bytes.
pub fn packfile(data: &[u8]) {
    let Ok(file) = hktypes::packfile::PackFile::read(data) else { return };
    let _ = file.contents_version();
    for i in 0..file.sections.len() {
        let _ = file.objects(i);
        let _ = file.pointers(i);
    }
    let Ok(out) = hktypes::packfile::write::write(&file) else { return };
    let again = hktypes::packfile::PackFile::read(&out).expect("a written packfile reads back");
    let out2 = hktypes::packfile::write::write(&again).expect("a packfile that was written writes again");
    assert!(out == out2, "writing a packfile is not stable");
}

/// A packfile through its object graph: `__data__` read into objects with the class schemas of
/// `schemas/` (the file's own SDK first, as `hkgen verify` reads it), laid out and written again;
/// where that write succeeds, its bytes must read the same way and write the same bytes.
pub fn packfile_objects(data: &[u8]) {
    use hktypes::packfile::{objects, PackFile};
    let Ok(file) = PackFile::read(data) else { return };
    let schemas = class_schemas();
    let sdk = hkgen::reflection::sources::sdk_of_contents_version(&file.contents_version());
    let Ok(doc) = objects::PackfileDocument::from_file_with(file, &schemas.sources_for(&sdk)) else { return };
    let _ = doc.counts();
    let Ok(out) = doc.write() else { return };
    let file = PackFile::read(&out).expect("a packfile written from objects reads back");
    let sdk2 = hkgen::reflection::sources::sdk_of_contents_version(&file.contents_version());
    assert!(sdk == sdk2, "a packfile written from objects changes SDK");
    let again = objects::PackfileDocument::from_file_with(file, &schemas.sources_for(&sdk))
        .expect("a packfile written from objects reads back into objects");
    let out2 = again.write().expect("a packfile written from objects writes again");
    assert!(out == out2, "writing a packfile from objects is not stable");
}

/// Loads what the targets that read packfiles through class schemas share (`packfile_objects`,
/// `packfile_xml`, `anim`), before the first input: under the sanitizer on a busy machine the load
/// takes longer than one input's time limit.
pub fn init() {
    let _ = class_schemas();
}

/// The class schemas of every SDK under `schemas/` (beside this crate's manifest, or one level
/// up from the fuzz workspace's), loaded once.
fn class_schemas() -> &'static hkgen::reflection::check::ClassSchemas {
    static SCHEMAS: std::sync::OnceLock<hkgen::reflection::check::ClassSchemas> = std::sync::OnceLock::new();
    SCHEMAS.get_or_init(|| {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let dir = [root.join("schemas"), root.join("../schemas")]
            .into_iter()
            .find(|d| d.join("2014.2/classes").is_dir())
            .expect("the schemas/ folder with the packfile class schemas");
        let s = hkgen::reflection::check::ClassSchemas::load(&dir).expect("schemas/ loads");
        for sdk in s.by_sdk.keys().cloned().collect::<Vec<_>>() {
            let _ = s.class_set(&sdk); // built here, not inside the first input's time
        }
        s
    })
}

/// Reads `data` as a document with `classes`; where both writers succeed, their output must read
/// again and write the same bytes. (The `typed` target, `typed_checks.rs`, calls it with every
/// SDK's generated classes.)
pub fn stable_write(data: &[u8], classes: &'static [hktypes::value::ClassEntry]) {
    let set = CompendiumSet::new();
    let Ok(doc) = TagfileDocument::read(data, &set, classes) else { return };
    let _ = doc.counts();
    for h in doc.handles() {
        let _ = doc.type_name(h);
    }
    for out in [doc.write(), doc.write_typed()].into_iter().flatten() {
        let again = TagfileDocument::read(&out, &set, classes).expect("a written tagfile reads back");
        let out2 = again.write().expect("a tagfile that was written writes again");
        assert!(out == out2, "writing a tagfile is not stable");
    }
}

/// `<hkpackfile>` XML through the packfile object graph: read with the class schemas of its
/// contents version; where it reads, the binary written from it reads back into the same objects
/// and gives the same XML again.
pub fn packfile_xml(data: &[u8]) {
    use hktypes::packfile::{objects, xml, PackFile};
    let schemas = class_schemas();
    let read = xml::read_with(
        data,
        |contents| schemas.sources_for(&hkgen::reflection::sources::sdk_of_contents_version(contents)),
        xml::ReadOptions::default(),
    );
    let Ok(doc) = read else { return };
    let Ok(text) = xml::write(&doc, xml::WriteOptions::default()) else { return };
    let Ok(bin) = doc.write() else { return };
    let file = PackFile::read(&bin).expect("a packfile written from XML reads back");
    let again = objects::PackfileDocument::from_file_with(file, &[&doc.classes]).expect("a packfile written from XML reads into objects");
    assert!(again.objects == doc.objects, "XML -> binary changes the objects");
    let text2 = xml::write(&again, xml::WriteOptions::default()).expect("objects read from the binary write as XML");
    assert!(text == text2, "XML -> binary -> XML changes the text");
}

/// `<hktagfile>` XML through TAG0 and back: where the XML reads and writes as TAG0, that TAG0 reads
/// (no compendium), writes as XML that reads again, and gives the same TAG0 bytes.
pub fn tagfile_xml(data: &[u8]) {
    use hktypes::tagfile::xml;
    let none = CompendiumSet::new();
    let Ok(doc) = xml::read(data) else { return };
    let Ok(tag0) = doc.write_tag0(&none) else { return };
    let file = TagFile::read(&tag0, &none).expect("a TAG0 file written from XML reads back");
    // Values the written types cannot lay out, or text past the writer's bound, are errors.
    let Ok(text) = xml::write(&file, xml::WriteOptions::default()) else { return };
    let again = xml::read(text.as_bytes()).expect("XML written from TAG0 reads");
    let tag0_again = again.write_tag0(&none).expect("XML written from TAG0 writes as TAG0");
    assert!(tag0 == tag0_again, "XML -> TAG0 -> XML -> TAG0 changes the bytes");
}

/// Animations (issue 33). The first four bytes choose the decoder:
/// - `DLTA`: a delta-compressed animation's members (twelve little-endian `u32`: tracks, float
///   tracks, poses, block size, preserved, numD, offset, scale and bit-width indices, quantized
///   data, static mask and static DOF indices) and its data buffer (the rest), decoded;
/// - `INTL`: an interleaved animation: three little-endian `u32` (transform tracks, float tracks,
///   how many of the reals that follow are the transforms), then the reals (`f32`, little-endian);
///   decoded, and where the frames encode, decoded again to the same frames;
/// - `WAVE`: a wavelet-compressed animation's members (fifteen little-endian `u32`: tracks, float
///   tracks, poses, block size, preserved, numD, offset, scale and bit-width indices, static mask
///   and static DOF indices, block index index and size, quantized data index and size), then its
///   buffer; decoded, and its blocks' use of the buffer measured;
/// - anything else is read as a Havok file (packfiles through the class schemas of `schemas/`)
///   and each of its animations read, decoded and sampled, whatever its codec (spline,
///   interleaved, delta, wavelet).
///
/// Every count, index and width may lie: the decoders end in `Ok` or a located `Err`, never a
/// panic, and make no more than `hktypes::anim::delta::MAX_DECODED` values; decoded frames hold
/// exactly `frame_count` frames of the tracks they state.
pub fn anim(data: &[u8]) {
    use hktypes::anim;
    let (tag, rest) = data.split_at(data.len().min(4));
    match tag {
        b"DLTA" => return anim_delta(rest),
        b"INTL" => return anim_interleaved(rest),
        b"WAVE" => return anim_wavelet(rest),
        _ => {}
    }
    let options = hktypes::OpenOptions { classes: Some(class_schemas()), ..Default::default() };
    let Ok(doc) = hktypes::open(data, &options) else { return };
    for h in anim::handles(&doc) {
        let Ok(a) = anim::Animation::read(&doc, h) else { continue };
        let _ = a.bytes_per_second();
        let _ = a.track_to_bone();
        for t in 0..a.track_count.min(4) {
            let _ = a.bone_name(t);
        }
        if let Ok(f) = a.frames() {
            frames_whole(&f);
            assert_eq!((f.track_count, f.float_track_count), (a.track_count, a.float_track_count));
            let _ = anim::sample(&f, a.duration, a.duration * 0.5);
        }
        if let Ok(pose) = a.sample(a.duration * 0.5) {
            assert_eq!(pose.len(), a.track_count, "a sampled pose is not one transform per track");
        }
        let _ = a.sample_floats(a.duration);
    }
}

/// `WAVE` inputs of [`anim`]: the wavelet decoder on members and a buffer the input gives (15
/// words, then the buffer).
fn anim_wavelet(rest: &[u8]) {
    use hktypes::anim;
    {
        if rest.len() < 60 {
            return;
        }
        let w = |k: usize| u32::from_le_bytes([rest[4 * k], rest[4 * k + 1], rest[4 * k + 2], rest[4 * k + 3]]) as usize;
        let d = anim::wavelet::WaveletData {
            tracks: w(0),
            float_tracks: w(1),
            poses: w(2),
            block_size: w(3),
            preserved: w(4),
            num_d: w(5),
            offset_idx: w(6),
            scale_idx: w(7),
            bit_width_idx: w(8),
            static_mask_idx: w(9),
            static_dofs_idx: w(10),
            block_index_idx: w(11),
            block_index_size: w(12),
            quantized_idx: w(13),
            quantized_size: w(14),
            data: rest[60..].to_vec(),
            big_endian: false,
        };
        if let Ok(f) = anim::wavelet::decode(&d) {
            assert_eq!(f.transforms.len(), f.frame_count * f.track_count);
            assert!(f.transforms.len() + f.floats.len() <= anim::delta::MAX_DECODED);
        }
        let _ = anim::wavelet::block_usage(&d);
    }
}

/// Decoded frames are whole: `frame_count` frames of every track, within the decoders' bound.
fn frames_whole(f: &hktypes::anim::Frames) {
    assert_eq!(Some(f.transforms.len()), f.frame_count.checked_mul(f.track_count), "transforms are not frames x tracks");
    assert_eq!(Some(f.floats.len()), f.frame_count.checked_mul(f.float_track_count), "floats are not frames x float tracks");
    assert!(f.transforms.len() + f.floats.len() <= hktypes::anim::delta::MAX_DECODED, "more values than MAX_DECODED");
}

/// The `DLTA` case of [`anim`].
fn anim_delta(rest: &[u8]) {
    use hktypes::anim;
    if rest.len() < 48 {
        return;
    }
    let w = |k: usize| u32::from_le_bytes([rest[4 * k], rest[4 * k + 1], rest[4 * k + 2], rest[4 * k + 3]]) as usize;
    let d = anim::delta::DeltaData {
        tracks: w(0),
        float_tracks: w(1),
        poses: w(2),
        block_size: w(3),
        preserved: w(4),
        num_d: w(5),
        offset_idx: w(6),
        scale_idx: w(7),
        bit_width_idx: w(8),
        quantized_idx: w(9),
        static_mask_idx: w(10),
        static_dofs_idx: w(11),
        data: rest[48..].to_vec(),
        big_endian: false,
    };
    if let Ok(f) = anim::delta::decode(&d) {
        frames_whole(&f);
        assert_eq!((f.track_count, f.float_track_count, f.frame_count), (d.tracks, d.float_tracks, d.poses));
    }
}

/// The `INTL` case of [`anim`].
fn anim_interleaved(rest: &[u8]) {
    use hktypes::anim::interleaved;
    if rest.len() < 12 {
        return;
    }
    let w = |k: usize| u32::from_le_bytes([rest[4 * k], rest[4 * k + 1], rest[4 * k + 2], rest[4 * k + 3]]) as usize;
    let reals: Vec<f32> = rest[12..].chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    let (tracks, float_tracks) = (w(0), w(1));
    let split = w(2).min(reals.len());
    let (transforms, floats) = reals.split_at(split);
    let Ok(f) = interleaved::decode(transforms, floats, tracks, float_tracks) else { return };
    frames_whole(&f);
    assert_eq!((f.track_count, f.float_track_count), (tracks, float_tracks));
    let Ok((t2, f2)) = interleaved::encode(&f, None) else { return };
    let again = interleaved::decode(&t2, &f2, tracks, float_tracks).expect("encoded interleaved frames decode");
    let bits = |f: &hktypes::anim::Frames| -> (usize, Vec<u32>, Vec<u32>) {
        (f.frame_count, f.transforms.iter().flatten().map(|x| x.to_bits()).collect(), f.floats.iter().map(|x| x.to_bits()).collect())
    };
    assert!(bits(&again) == bits(&f), "interleaved frames change through encode and decode");
}

/// Fuzz target `anim_spline`: `hktypes::anim::spline::decode` and `sample` on members made from
/// the input. Six little-endian `u32` first: transform tracks (low 31 bits modulo 1024; bit 31
/// set: big-endian data), float tracks (modulo 256), frames (modulo 8192), blocks (modulo 128),
/// frames per block (modulo 300) and flags (bit 0: the block offsets are followed by as many
/// float block offsets; bit 1: `maskAndQuantizationSize` is the next word as it stands, else 4
/// per track and 1 per float track; bits 8 and up: the time `sample` is asked for, in ms). Then
/// one `u32` block offset per block (and the float block offsets, and the mask size), then the
/// data. Decoding must give frames or an error, never a panic, and its frames must be whole and
/// as many as the members say; sampling gives one transform per track.
pub fn anim_spline(input: &[u8]) {
    use hktypes::anim::spline::{decode, sample, Endian, SplineData};
    let mut words = input.chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let mut next = || words.next();
    let (Some(w0), Some(w1), Some(w2), Some(w3), Some(w4), Some(flags)) = (next(), next(), next(), next(), next(), next()) else { return };
    let tracks = (w0 & 0x7FFF_FFFF) % 1024;
    let floats = w1 % 256;
    let frames = w2 % 8192;
    let blocks = w3 % 128;
    let mfpb = w4 % 300;
    let mut take = |n: u32| -> Option<Vec<u32>> { (0..n).map(|_| next()).collect() };
    let Some(block_offsets) = take(blocks) else { return };
    let float_block_offsets = if flags & 1 != 0 { take(blocks) } else { Some(Vec::new()) };
    let Some(float_block_offsets) = float_block_offsets else { return };
    let mask_size = if flags & 2 != 0 { take(1).map(|v| v[0]) } else { Some(4 * tracks + floats) };
    let Some(mask_size) = mask_size else { return };
    let used = 4 * (6 + block_offsets.len() + float_block_offsets.len() + usize::from(flags & 2 != 0));
    let big = w0 >> 31 == 1;
    let spline = SplineData {
        duration: frames.saturating_sub(1) as f32 / 30.0,
        number_of_transform_tracks: tracks,
        number_of_float_tracks: floats,
        num_frames: frames,
        num_blocks: blocks,
        max_frames_per_block: mfpb,
        mask_and_quantization_size: mask_size,
        block_duration: mfpb.saturating_sub(1) as f32 / 30.0,
        block_inverse_duration: 30.0 / mfpb.saturating_sub(1).max(1) as f32,
        frame_duration: 1.0 / 30.0,
        block_offsets,
        float_block_offsets,
        transform_offsets: Vec::new(),
        float_offsets: Vec::new(),
        data: input[used..].to_vec(),
        endian_member: i32::from(big),
        endian: if big { Endian::Big } else { Endian::Little },
    };
    if let Ok(f) = decode(&spline) {
        frames_whole(&f);
        assert_eq!((f.frame_count, f.track_count, f.float_track_count), (frames as usize, tracks as usize, floats as usize));
    }
    if let Ok((t, fl)) = sample(&spline, (flags >> 8) as f32 / 1000.0) {
        assert_eq!((t.len(), fl.len()), (tracks as usize, floats as usize), "a sample is not one value per track");
    }
}

/// A Phive wrapper (`hktypes::tagfile::phive`, Tears of the Kingdom): the header's offsets and
/// sizes checked against the file and each other; where it splits, writing the parts again gives
/// the input's bytes, and the file opens through `hktypes::open` (the wrapped TAG0 read on its
/// own, no classes). Where it opens, the document writes a Phive file that splits into the same
/// header and trailing block and opens again to the same bytes.
pub fn phive(data: &[u8]) {
    use hktypes::tagfile::phive::Phive;
    let Ok(p) = Phive::read(data) else { return };
    assert!(p.write(p.tag0) == data, "a Phive file read and written unchanged changes its bytes");
    assert!(p.tag0.len() + p.tag0_padding.len() + p.tail.len() + hktypes::tagfile::phive::HEADER_SIZE == data.len());
    let options = hktypes::OpenOptions::default();
    let Ok(doc) = hktypes::open(data, &options) else { return };
    assert!(doc.format() == hktypes::Format::Phive, "a Phive file opens as another format");
    let Ok(out) = doc.write() else { return };
    let q = Phive::read(&out).expect("a Phive file written from a document splits");
    assert!(q.header == p.header && q.tail == p.tail, "writing a Phive document changes its header or trailing block");
    let again = hktypes::open(&out, &options).expect("a Phive file written from a document opens");
    let out2 = again.write().expect("a Phive document that was written writes again");
    assert!(out == out2, "writing a Phive document is not stable");
}
