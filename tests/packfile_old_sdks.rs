//! The packfile SDKs whose classes are derived into `classdata/` over their neighbours' records
//! (features `hk6_6`, `hk7_1`, `hk2011_1`): every corpus packfile of Havok-6.6.0-r1,
//! Havok-7.1.0-r1, hk_2011.1.0-r1 and hk_2011.2.0-r1 (HavokLib's allosaur files, 84, of both byte
//! orders and pointer sizes) opens through the classes compiled in with every object typed, every
//! object goes through its generated struct and back, the file writes back byte for byte, and its
//! animations decode; the compiled-in descriptions are the committed snapshots.
#![cfg(all(feature = "hk6_6", feature = "hk7_1", feature = "hk2011_1"))]

mod common;

use hkclasses::{hk2011_1, hk6_6, hk7_1, packfile_sources_for_sdk, PACKFILE_SCHEMAS};
use hkgen::reflection::check::ClassSchemas;
use hktypes::anim;
use hktypes::packfile::objects::{Body, PackfileDocument};
use hktypes::packfile::sdk_of_contents_version;
use hktypes::value::ClassEntry;
use std::collections::BTreeMap;

/// The contents versions, the struct table each reads through (2011.2 files store 2011.1's
/// signatures), and how many corpus files each has.
const VERSIONS: [(&str, &[ClassEntry], usize); 4] = [
    ("Havok-6.6.0-r1", hk6_6::CLASSES, 24),
    ("Havok-7.1.0-r1", hk7_1::CLASSES, 24),
    ("hk_2011.1.0-r1", hk2011_1::CLASSES, 18),
    ("hk_2011.2.0-r1", hk2011_1::CLASSES, 18),
];

#[test]
fn every_object_typed_through_structs_and_written_back() {
    let Some(corpus) = common::corpus() else { return };
    // version -> (files, objects, objects through structs, animations decoded)
    let mut per: BTreeMap<&str, [usize; 4]> = BTreeMap::new();
    for e in common::manifest(&corpus).into_iter().filter(|e| e.format == "packfile") {
        let Some(&(version, table, _)) = VERSIONS.iter().find(|v| v.0 == e.sdk) else { continue };
        let Some(bytes) = common::corpus_file(&corpus, &e.relpath) else { continue };
        let f = hktypes::packfile::PackFile::read(&bytes).unwrap();
        assert_eq!(f.contents_version(), version);
        let mut doc = PackfileDocument::from_file_with(f, &packfile_sources_for_sdk(&sdk_of_contents_version(version))).unwrap();
        let raw: Vec<&str> = doc.objects.iter().filter(|o| !matches!(o.body, Body::Typed(_))).map(|o| o.class.as_str()).collect();
        assert!(raw.is_empty(), "{}: untyped {raw:?}", e.relpath);
        let before = doc.objects.clone();
        let c = doc.through_structs(table);
        assert_eq!((c.structs, c.untyped, c.failed), (doc.objects.len(), 0, 0), "{}", e.relpath);
        assert!(doc.objects == before, "{}: values changed through the structs", e.relpath);
        assert!(doc.write().unwrap() == bytes, "{}: written bytes differ", e.relpath);
        let n = per.entry(version).or_default();
        n[0] += 1;
        n[1] += doc.objects.len();
        n[2] += c.structs;
        // The one way in, with the compiled-in classes: the animations decode.
        let one = hktypes::open(&bytes, &hkclasses::open_options()).unwrap();
        assert_eq!(one.counts().untyped, 0, "{}", e.relpath);
        for a in anim::animations(&one).unwrap() {
            let frames = a.frames().unwrap_or_else(|err| panic!("{}: {err}", e.relpath));
            assert_eq!(frames.transforms.len(), a.frame_count * a.track_count, "{}", e.relpath);
            assert!(frames.transforms.iter().flatten().all(|v| v.is_finite()), "{}", e.relpath);
            n[3] += 1;
        }
    }
    eprintln!("per version: [files, objects, through structs, animations decoded] {per:?}");
    for (version, _, files) in VERSIONS {
        let n = per.get(version).copied().unwrap_or_default();
        assert_eq!(n[0], files, "{version}");
        assert!(n[3] > 0, "{version}: no animation");
    }
}

/// The compiled-in class descriptions of 6.6, 7.1 and 2011.1 hold exactly what the committed
/// snapshots give, and a 2011.2 file reads through 2011.1's first.
#[test]
fn compiled_in_classes_equal_the_snapshots() {
    let schemas = ClassSchemas::load(&common::workspace_root().join("schemas")).unwrap();
    let mut counts = Vec::new();
    for compiled in PACKFILE_SCHEMAS.iter().filter(|s| ["6.6", "7.1", "2011.1"].contains(&s.sdk)) {
        let from_disk = schemas.class_set(compiled.sdk).unwrap();
        let built = compiled.to_class_set();
        assert_eq!(built.classes, from_disk.classes, "{}", compiled.sdk);
        assert_eq!(built.signatures, from_disk.signatures, "{}", compiled.sdk);
        assert_eq!(built.enums, from_disk.enums, "{}", compiled.sdk);
        counts.push((compiled.sdk, compiled.classes.len(), compiled.classes.iter().filter(|c| c.signature.is_some()).count()));
    }
    assert_eq!(counts, [("6.6", 24, 24), ("7.1", 24, 24), ("2011.1", 22, 22)]);
    let first = packfile_sources_for_sdk("2011.2");
    assert_eq!(first[1].signature("hkaSkeleton"), Some(0x2f13_03fa));
}
