//! The one entry point: every corpus file opens through `hktypes::open`, whatever its format (but
//! the XML file the XML readers refuse; hkxlib's broken pointer read as null, explicitly), and a document left alone writes back the bytes it was
//! read from (binary files; XML writes as a binary packfile). Tagfiles are opened without classes
//! here (every object untyped; tests/graph.rs reads them through the generated classes), packfiles
//! through the class schemas under `schemas/`.

mod common;

use hkgen::reflection::check::ClassSchemas;
use hktypes::packfile::xml::Dangling;
use hktypes::{open, sniff, Counts, ErrorKind, Format, OpenOptions};
use std::collections::BTreeMap;

/// Per manifest format: files, files opened, typed objects, untyped objects, demoted objects,
/// files written back byte for byte.
type Tally = BTreeMap<String, [usize; 6]>;

#[test]
fn every_corpus_file_opens_through_the_one_entry_point() {
    let Some(corpus) = common::corpus() else { return };
    let entries = common::manifest(&corpus);
    let compendia = common::compendia(&entries);
    let schemas = ClassSchemas::load(&common::workspace_root().join("schemas")).unwrap();
    let mut tally = Tally::new();
    let mut refused = Vec::new();
    let mut repaired = Vec::new();
    for e in &entries {
        let bytes = std::fs::read(&e.path).unwrap();
        let set = compendia.set_for(&e.path);
        // hkxlib's Minotaur_character.xml holds a pointer `1` that names no object: read as
        // null, and listed among the document's repairs.
        let options = OpenOptions { compendia: Some(&set), classes: Some(&schemas), xml_dangling: Dangling::Null, ..OpenOptions::default() };
        let n = tally.entry(e.format.clone()).or_default();
        n[0] += 1;
        let doc = match open(&bytes, &options) {
            Ok(d) => d,
            Err(err) => {
                refused.push(format!("{}: {err}", e.relpath));
                continue;
            }
        };
        n[1] += 1;
        if !doc.repairs().is_empty() {
            repaired.push((e.relpath.clone(), doc.repairs().to_vec()));
        }
        let Counts { typed, untyped, demoted } = doc.counts();
        n[2] += typed;
        n[3] += untyped;
        n[4] += demoted;
        let expected = match e.format.as_str() {
            "tag0" => Format::Tag0,
            "tcm0" => Format::Tcm0,
            "phive" => Format::Phive,
            _ => Format::Packfile,
        };
        assert_eq!(doc.format(), expected, "{}", e.relpath);
        assert_eq!(doc.handles().len(), typed + untyped, "{}", e.relpath);
        if doc.format() != Format::Tcm0 && e.format != "xml" && doc.write().is_ok_and(|out| out == bytes) {
            n[5] += 1;
        }
    }
    let expected: Tally = [
        ("packfile", [301, 301, 41050, 236, 137, 301]),
        // Tears of the Kingdom's cloth: a TAG0 of SDK 2022.1 in the Phive wrapper.
        ("phive", [1, 1, 0, 54, 0, 1]),
        ("tag0", [340, 340, 0, 15584, 0, 340]),
        ("tcm0", [5, 5, 0, 0, 0, 0]),
        ("xml", [23, 23, 1032, 0, 0, 0]),
        ("xml-tagfile", [1, 0, 0, 0, 0, 0]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    assert_eq!(tally, expected, "refused: {refused:#?}");
    // HKLib's tagfile XML lists no members (tests/tagfile_xml.rs): the class schemas have no
    // tagfile type tables to complete them from (the compiled-in classes do: the test below).
    let refused_files: Vec<&str> = refused.iter().map(|r| r.split(": ").next().unwrap_or("")).collect();
    assert_eq!(refused_files, ["HKLibForHD2/Havester.ik_skeleton.xml.bak"]);
    assert!(refused[0].contains("hktagfile XML without member records"), "{}", refused[0]);
    assert_eq!(
        repaired,
        [(
            "hkxlib/minotaur__characters__Minotaur_character.xml".to_owned(),
            vec!["file 0x1ca: line 9, column 16: object #0023, member characterControllerInfo.characterControllerCinfo: pointer to \"1\", which names no object: read as null".to_owned()]
        )]
    );
}

/// The same corpus through the classes compiled into `hkclasses` (`open_options()`: every SDK's
/// generated classes and packfile class descriptions, no schema folder, no `hkgen`): tagfile
/// objects are typed too, and every binary file still writes back byte for byte.
#[cfg(feature = "all-sdks")]
#[test]
fn every_corpus_file_opens_with_the_compiled_in_classes() {
    let Some(corpus) = common::corpus() else { return };
    let entries = common::manifest(&corpus);
    let compendia = common::compendia(&entries);
    let mut tally = Tally::new();
    for e in &entries {
        let bytes = std::fs::read(&e.path).unwrap();
        let set = compendia.set_for(&e.path);
        let options = OpenOptions { compendia: Some(&set), xml_dangling: Dangling::Null, ..hkclasses::open_options() };
        let n = tally.entry(e.format.clone()).or_default();
        n[0] += 1;
        let Ok(doc) = open(&bytes, &options) else { continue };
        n[1] += 1;
        let Counts { typed, untyped, demoted } = doc.counts();
        n[2] += typed;
        n[3] += untyped;
        n[4] += demoted;
        if doc.format() != Format::Tcm0 && e.format != "xml" && doc.write().is_ok_and(|out| out == bytes) {
            n[5] += 1;
        }
    }
    let expected: Tally = [
        // The same packfile tallies as through the snapshots under `schemas/` (the test above):
        // the compiled-in descriptions are those snapshots.
        ("packfile", [301, 301, 41050, 236, 137, 301]),
        ("phive", [1, 1, 54, 0, 0, 1]),
        // Every tagfile object typed.
        ("tag0", [340, 340, 15584, 0, 0, 340]),
        ("tcm0", [5, 5, 0, 0, 0, 0]),
        ("xml", [23, 23, 1032, 0, 0, 0]),
        ("xml-tagfile", [1, 1, 1, 0, 0, 0]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    assert_eq!(tally, expected);
}

#[test]
fn sniff_names_each_corpus_format() {
    let Some(corpus) = common::corpus() else { return };
    let mut per: BTreeMap<(String, Option<Format>), usize> = BTreeMap::new();
    for e in common::manifest(&corpus) {
        let bytes = std::fs::read(&e.path).unwrap();
        *per.entry((e.format, sniff(&bytes))).or_default() += 1;
    }
    let expected: BTreeMap<(String, Option<Format>), usize> = [
        ("packfile", Some(Format::Packfile), 301),
        ("phive", Some(Format::Phive), 1),
        ("tag0", Some(Format::Tag0), 340),
        ("tcm0", Some(Format::Tcm0), 5),
        ("xml", Some(Format::PackfileXml), 23),
        ("xml-tagfile", Some(Format::TagfileXml), 1),
    ]
    .into_iter()
    .map(|(f, s, n)| ((f.to_owned(), s), n))
    .collect();
    assert_eq!(per, expected);
}

#[test]
fn bytes_of_no_havok_format_are_one_error() {
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    let e = open(png, &OpenOptions::default()).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::NotHavok("starts with 89 50 4E 47 0D 0A 1A 0A ...".into()));
    assert_eq!(e.to_string(), "not a Havok file: starts with 89 50 4E 47 0D 0A 1A 0A ...");
    let e = open(b"", &OpenOptions::default()).unwrap_err();
    assert_eq!(e.to_string(), "not a Havok file: it is empty");
    let e = open(b"PK\x03", &OpenOptions::default()).unwrap_err();
    assert_eq!(e.to_string(), "not a Havok file: starts with 50 4B 03");
}

/// The Wii U rigid body of BotW's `Obj_Mineral_A_01` (2014.2 packfile, 4-byte big-endian).
const MINERAL: &str =
    "NiceneNerd__UKMM/uk-mod/test/wiiu/content/Actor/Pack/Obj_Mineral_A_01.sbactorpack/RigidBody/Obj_Mineral_A/Obj_Mineral_A_01.hkrb";
/// A 2016.2 ragdoll tagfile of Sekiro.
const RAGDOLL: &str = "nikhil-RGB__Genichiro-The-Last-Stand/chr/c7190.chrbnd/chr/c7190/c7190.hkx";

/// Every pointer of `v` to `target` made null.
fn clear_pointers(v: &mut hktypes::packfile::objects::MemberValue, target: hktypes::Handle) -> usize {
    use hktypes::packfile::objects::{Ref, MemberValue};
    match v {
        MemberValue::Ptr(r) if matches!(*r, Ref::Object(t) | Ref::Inside(t, _) if t == target) => {
            *r = Ref::Null;
            1
        }
        MemberValue::Array(a) => a.values_mut().iter_mut().map(|x| clear_pointers(x, target)).sum(),
        MemberValue::Struct(vs) | MemberValue::CArray(vs) | MemberValue::RelArray(vs) => vs.iter_mut().map(|x| clear_pointers(x, target)).sum(),
        _ => 0,
    }
}

#[test]
fn remove_refuses_while_pointed_at_and_removes_once_free() {
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, MINERAL) else { return };
    let schemas = ClassSchemas::load(&common::workspace_root().join("schemas")).unwrap();
    let options = OpenOptions { classes: Some(&schemas), ..OpenOptions::default() };
    let mut doc = open(&bytes, &options).unwrap();
    let classes: Vec<String> = doc.handles().into_iter().map(|h| doc.class_name(h).unwrap()).collect();
    assert_eq!(classes, ["hkRootLevelContainer", "hkpPhysicsData", "hkpPhysicsSystem", "hkpRigidBody", "hkpConvexVerticesShape"]);
    let shape = doc.find("hkpConvexVerticesShape")[0];
    let body = doc.find("hkpRigidBody")[0];
    assert_eq!(doc.referrers(shape), [body]);
    assert_eq!(doc.pointers_of(body), [shape]);
    let e = doc.remove(shape).unwrap_err();
    assert_eq!(
        e.kind(),
        &ErrorKind::Referenced { object: "object 4 (hkpConvexVerticesShape)".into(), referrers: vec!["object 3 (hkpRigidBody)".into()] }
    );
    assert_eq!(e.to_string(), "cannot remove object 4 (hkpConvexVerticesShape): still pointed at by object 3 (hkpRigidBody)");
    assert_eq!(doc.remove(doc.root().unwrap()).unwrap_err().to_string(), "object 0 (hkRootLevelContainer) is the contents (root) object");
    // Cleared, the shape goes; the file written without it reads back, verifies and writes
    // back the same bytes.
    let hktypes::Document::Packfile(p) = &mut doc else { panic!("not a packfile") };
    let hktypes::packfile::objects::Body::Typed(values) = &mut p.objects[body.0 as usize].body else { panic!("the body is untyped") };
    assert_eq!(values.iter_mut().map(|v| clear_pointers(v, shape)).sum::<usize>(), 1);
    doc.remove(shape).unwrap();
    assert_eq!(doc.counts(), Counts { typed: 4, untyped: 0, demoted: 0 });
    let out = doc.write().unwrap();
    let back = open(&out, &options).unwrap();
    assert_eq!(back.find("hkpConvexVerticesShape"), []);
    assert_eq!(back.counts(), Counts { typed: 4, untyped: 0, demoted: 0 });
    assert_eq!(back.write().unwrap(), out);
    let report = hkgen::verify::verify_bytes("without-shape.hkrb", &out, &Default::default());
    assert!(report.ok, "{:?}", report.error);

    // A tagfile: every object but the root is pointed at by another.
    let Some(bytes) = common::corpus_file(&corpus, RAGDOLL) else { return };
    let mut doc = open(&bytes, &OpenOptions::default()).unwrap();
    let root = doc.root().unwrap();
    let free: Vec<_> = doc.handles().into_iter().filter(|&h| h != root && doc.referrers(h).is_empty()).collect();
    assert_eq!(free, []);
    let last = *doc.handles().last().unwrap();
    let referrers = doc.referrers(last);
    let e = doc.remove(last).unwrap_err();
    let ErrorKind::Referenced { referrers: named, .. } = e.kind() else { panic!("{e}") };
    assert_eq!(named.len(), referrers.len());
    assert_eq!(doc.remove(root).unwrap_err().to_string(), "object 1 (hkRootLevelContainer) is the root object");
    assert_eq!(doc.write().unwrap(), bytes, "a refused remove changes nothing");
}

/// An Elden Ring skeleton (2018.1 tagfile, its own `TYPE` section).
const ER_SKELETON: &str = "Axelph237__mod/chr/c2110.anibnd/c2110/hkx/skeleton.hkx";

/// `get`, `get_mut`, `all` and `add` on the one `Document`, with the classes compiled into
/// `hkclasses` (`open_options()`): the same calls on a BotW packfile and an Elden Ring tagfile.
#[cfg(all(feature = "hk2014_2", feature = "hk2018_1"))]
#[test]
fn typed_access_is_one_api_for_both_formats() {
    use hkclasses::{hk2014_2, hk2018_1};
    use hktypes::Handle;
    use std::borrow::Cow;
    let Some(corpus) = common::corpus() else { return };
    let Some(mineral) = common::corpus_file(&corpus, MINERAL) else { return };
    let Some(skeleton) = common::corpus_file(&corpus, ER_SKELETON) else { return };

    // A packfile: objects convert from their member values (owned), and a change made through
    // `get_mut` is stored back when it is dropped.
    let mut doc = open(&mineral, &hkclasses::open_options()).unwrap();
    assert_eq!(doc.counts(), Counts { typed: 5, untyped: 0, demoted: 0 });
    let shapes: Vec<_> = doc.all::<hk2014_2::hkpConvexVerticesShape>().collect();
    assert_eq!(shapes.len(), 1);
    let (shape, value) = (shapes[0].0, shapes[0].1.as_ref().unwrap());
    assert!(matches!(value, Cow::Owned(_)));
    let radius = value.radius;
    drop(shapes);
    assert_eq!(doc.get::<hk2014_2::hkpRigidBody>(shape).unwrap_err().to_string(), "object 4 is a hkpConvexVerticesShape, not a hkpRigidBody");
    assert_eq!(
        doc.get::<hk2018_1::hkaSkeleton>(shape).unwrap_err().to_string(),
        "hkaSkeleton is a class of a tagfile SDK; the document is a packfile"
    );
    doc.get_mut::<hk2014_2::hkpConvexVerticesShape>(shape).unwrap().radius = radius * 2.0;
    let out = doc.write().unwrap();
    assert_eq!(out.len(), mineral.len());
    let back = open(&out, &hkclasses::open_options()).unwrap();
    assert_eq!(back.get::<hk2014_2::hkpConvexVerticesShape>(shape).unwrap().radius, radius * 2.0);
    // An object of a class the file lists is added after the others.
    let copy = back.get::<hk2014_2::hkpConvexVerticesShape>(shape).unwrap().into_owned();
    let mut back = back;
    assert_eq!(back.add(copy).unwrap(), Handle(5));
    assert_eq!(back.all::<hk2014_2::hkpConvexVerticesShape>().count(), 2);

    // A tagfile: objects are borrowed, a base class reaches a derived object.
    let mut doc = open(&skeleton, &hkclasses::open_options()).unwrap();
    let found: Vec<_> = doc.all::<hk2018_1::hkaSkeleton>().map(|(h, s)| (h, s.unwrap())).collect();
    assert_eq!(found.len(), 1);
    let (h, s) = &found[0];
    assert!(matches!(s, Cow::Borrowed(_)));
    assert_eq!((s.name.as_deref(), s.bones.items.len()), (Some("c2110"), 193));
    let (h, ref_count) = (*h, s.ref_count);
    drop(found);
    let base = doc.get::<hk2018_1::hkReferencedObject>(h).unwrap();
    assert!(matches!(base, Cow::Borrowed(_)) && base.ref_count == ref_count);
    assert_eq!(
        doc.get::<hk2018_1::hkaAnimationContainer>(h).unwrap_err().to_string(),
        format!("object {} is a hkaSkeleton, not a hkaAnimationContainer", h.0)
    );
    assert_eq!(
        doc.get::<hk2014_2::hkaSkeleton>(h).unwrap_err().to_string(),
        "hkaSkeleton is a class of a packfile SDK; the document is a tag0"
    );
    doc.get_mut::<hk2018_1::hkaSkeleton>(h).unwrap().name = "Renamed".into();
    let back = open(&doc.write().unwrap(), &hkclasses::open_options()).unwrap();
    assert_eq!(back.get::<hk2018_1::hkaSkeleton>(h).unwrap().name.as_deref(), Some("Renamed"));
}

#[test]
fn one_sdk_name_in_both_formats_and_one_module_as_a_class_source() {
    use hkclasses::{hk2014_2, hk2018_1};
    let Some(corpus) = common::corpus() else { return };
    let Some(mineral) = common::corpus_file(&corpus, MINERAL) else { return };
    let Some(skeleton) = common::corpus_file(&corpus, ER_SKELETON) else { return };

    // The SDK is named one way in both formats; Havok's own string is the contents version.
    let pack = open(&mineral, &OpenOptions::default()).unwrap();
    assert_eq!(pack.sdk().as_deref(), Some("2014.2"));
    assert_eq!(pack.contents_version().as_deref(), Some("hk_2014.2.0-r1"));
    assert!(pack.as_packfile().is_some_and(|p| p.file.contents_version() == "hk_2014.2.0-r1") && pack.as_tagfile().is_none());
    let tag = open(&skeleton, &OpenOptions::default()).unwrap();
    assert_eq!(tag.sdk().as_deref(), Some("2018.1"));
    assert_eq!(tag.contents_version().as_deref(), Some("20180100"));
    assert!(tag.as_tagfile().is_some_and(|t| t.sdk_version() == "2018.1") && tag.as_packfile().is_none());

    // One generated module's classes are a class source of their own, as a user's crate passes
    // the module it generates: a tagfile module's `CLASSES`, a packfile module's `SCHEMA`.
    let options = OpenOptions { classes: Some(&hk2018_1::CLASSES), ..OpenOptions::default() };
    let doc = open(&skeleton, &options).unwrap();
    assert_eq!(doc.counts(), open(&skeleton, &hkclasses::open_options()).unwrap().counts());
    assert_eq!(doc.all::<hk2018_1::hkaSkeleton>().count(), 1);
    let options = OpenOptions { classes: Some(&hk2014_2::SCHEMA), ..OpenOptions::default() };
    let doc = open(&mineral, &options).unwrap();
    assert_eq!(doc.counts(), Counts { typed: 5, untyped: 0, demoted: 0 });
    assert_eq!(doc.all::<hk2014_2::hkpConvexVerticesShape>().count(), 1);
    assert_eq!(doc.write().unwrap(), mineral);
    // The format's own document comes out whole, and a document of the other format stays one.
    let tag = tag.into_packfile().unwrap_err();
    assert_eq!(tag.format(), Format::Tag0);
    assert_eq!(doc.into_packfile().unwrap().objects.len(), 5);
}
