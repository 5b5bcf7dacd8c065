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

/// A TAG0 file into typed objects through every SDK's generated classes, written back through
/// the classes and as read.
pub fn typed(data: &[u8]) {
    let Ok(file) = TagFile::read(data, &CompendiumSet::new()) else { return };
    let classes = hkclasses::classes_for_sdk(&file.sdk_version());
    drop(file);
    stable_write(data, classes);
}

/// Reads `data` as a document with `classes`; where both writers succeed, their output must read
/// again and write the same bytes.
fn stable_write(data: &[u8], classes: &'static [hktypes::value::ClassEntry]) {
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

/// Animations (issue 33): an input that starts with `DLTA` is a delta-compressed animation's
/// members (twelve little-endian `u32`: tracks, float tracks, poses, block size, preserved, numD,
/// offset, scale and bit-width indices, quantized data, static mask and static DOF indices) and
/// its data buffer (the rest), decoded; any other input is read as a Havok file (packfiles through
/// the class schemas of `schemas/`) and each of its animations read and decoded. Every count,
/// index and width may lie: the decoders end in `Ok` or a located `Err`, never a panic, and make
/// no more than `hktypes::anim::delta::MAX_DECODED` values.
pub fn anim(data: &[u8]) {
    use hktypes::anim;
    if let Some(rest) = data.strip_prefix(b"DLTA") {
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
            assert_eq!(f.transforms.len(), f.frame_count * f.track_count);
            assert!(f.transforms.len() + f.floats.len() <= anim::delta::MAX_DECODED);
        }
        return;
    }
    let options = hktypes::OpenOptions { classes: Some(class_schemas()), ..Default::default() };
    let Ok(doc) = hktypes::open(data, &options) else { return };
    for h in anim::handles(&doc) {
        let Ok(a) = anim::Animation::read(&doc, h) else { continue };
        let _ = a.bytes_per_second();
        let _ = a.track_to_bone();
        if let Ok(f) = a.frames() {
            assert_eq!(f.transforms.len(), f.frame_count * f.track_count);
            let _ = anim::sample(&f, a.duration, a.duration * 0.5);
        }
    }
}
