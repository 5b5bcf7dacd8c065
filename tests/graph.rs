//! The object graph: every corpus tagfile read into typed and dynamic objects and written back
//! gives the same bytes; typed lookup, iteration and an edit.

mod common;

use hktypes::graph::{TagfileDocument, Node};
use hktypes::tagfile::items::{ItemData, INLINE_ITEM_BYTES};
use hktypes::tagfile::TagFile;
use std::collections::BTreeMap;

#[test]
fn every_corpus_tagfile_round_trips_through_the_object_graph() {
    let Some(corpus) = common::corpus() else { return };
    let entries = common::manifest(&corpus);
    let compendia = common::compendia(&entries);
    let mut per_sdk: BTreeMap<String, [usize; 4]> = BTreeMap::new();
    let mut bad = Vec::new();
    for e in entries.iter().filter(|e| e.format == "tag0") {
        let bytes = std::fs::read(&e.path).unwrap();
        let file = TagFile::read(&bytes, &compendia.set_for(&e.path)).unwrap();
        let sdk = file.sdk_version();
        let doc = match TagfileDocument::from_file(&file, hkclasses::classes_for_sdk(&sdk)) {
            Ok(d) => d,
            Err(err) => {
                bad.push(format!("{}: {err}", e.relpath));
                continue;
            }
        };
        let hktypes::Counts { typed, untyped, .. } = doc.counts();
        let n = per_sdk.entry(sdk).or_default();
        n[0] += 1;
        n[2] += typed;
        n[3] += untyped;
        // Every typed object written through its generated class gives the same file too.
        match doc.write_typed() {
            Ok(out) if out == bytes => {}
            Ok(out) => {
                let at = out.iter().zip(&bytes).position(|(a, b)| a != b).unwrap_or(out.len().min(bytes.len()));
                bad.push(format!("{}: typed write differs at {at:#x}", e.relpath));
            }
            Err(err) => bad.push(format!("{}: typed write: {err}", e.relpath)),
        }
        match doc.write() {
            Ok(out) if out == bytes => n[1] += 1,
            Ok(out) => {
                let at = out.iter().zip(&bytes).position(|(a, b)| a != b).unwrap_or(out.len().min(bytes.len()));
                bad.push(format!("{}: differs at {at:#x}", e.relpath));
            }
            Err(err) => bad.push(format!("{}: {err}", e.relpath)),
        }
    }
    for (sdk, [files, exact, typed, dynamic]) in &per_sdk {
        eprintln!("{sdk}: {exact}/{files} files exact; {typed} typed and {dynamic} dynamic objects");
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // Armored Core VI: with the registry's classes, every object of the 2019.1 files is typed.
    #[cfg(feature = "hk2019_1")]
    {
        let [files, exact, typed, dynamic] = per_sdk.get("2019.1").copied().unwrap_or_default();
        assert_eq!((files, exact, typed, dynamic), (3, 3, TYPED_2019_1, 0));
    }
}

/// Objects of the three 2019.1 corpus files, all typed.
#[cfg(feature = "hk2019_1")]
const TYPED_2019_1: usize = 9;

/// Change a body of a ragdoll (Sekiro `c7190.hkx` and Elden Ring `c3460.hkx`), write, read back:
/// the change is there and every other byte is the same.
#[test]
fn a_typed_edit_changes_only_its_bytes() {
    let Some(corpus) = common::corpus() else { return };
    for (rel, sdk) in [
        ("nikhil-RGB__Genichiro-The-Last-Stand/chr/c7190.chrbnd/chr/c7190/c7190.hkx", "2016.2"),
        ("Axelph237__mod/chr/c3460.chrbnd/chr/c3460/c3460.hkx", "2018.1"),
    ] {
        let bytes = std::fs::read(corpus.join(rel)).unwrap();
        match sdk {
            "2016.2" => edit_2016(&bytes),
            _ => edit_2018(&bytes),
        }
    }
}

macro_rules! ragdoll_edit {
    ($name:ident, $m:ident) => {
        fn $name(bytes: &[u8]) {
            use hkclasses::$m::{hknpMotionType_Enum, hknpRagdollData};
            use hktypes::value::Enum;
            let mut doc = hktypes::Document::Tagfile(TagfileDocument::read(bytes, &Default::default(), hkclasses::$m::CLASSES).unwrap());
            let (h, ragdoll) = doc.all::<hknpRagdollData>().next().expect("a typed hknpRagdollData");
            let before = ragdoll.unwrap().body_cinfos[1].clone();
            let mut r = doc.get_mut::<hknpRagdollData>(h).unwrap();
            r.body_cinfos[1].mass = 123.5;
            r.body_cinfos[1].motion_type = Enum::<hknpMotionType_Enum, u8>::new(1);
            drop(r);
            let out = doc.write().unwrap();
            assert_eq!(out.len(), bytes.len());
            let diff: Vec<usize> = (0..out.len()).filter(|&i| out[i] != bytes[i]).collect();
            // The mass (4 bytes, f32) and the motion type (1 byte): at most five bytes change,
            // none of them outside one 160-byte body record.
            assert!(!diff.is_empty() && diff.len() <= 5, "{diff:x?}");
            assert!(diff.last().unwrap() - diff.first().unwrap() < 160, "{diff:x?}");
            let again = hktypes::Document::Tagfile(TagfileDocument::read(&out, &Default::default(), hkclasses::$m::CLASSES).unwrap());
            let ragdoll = again.get::<hknpRagdollData>(h).unwrap();
            let body = &ragdoll.body_cinfos[1];
            assert_eq!(body.mass, 123.5);
            assert_eq!(body.motion_type.name(), Some("KEYFRAMED"));
            assert_eq!(body.name, before.name);
            assert_eq!(body.position, before.position);
        }
    };
}
ragdoll_edit!(edit_2016, hk2016_2);
ragdoll_edit!(edit_2018, hk2018_1);

/// A file whose type table gives `hkaAnimationContainer` its stock name and hash but lays a
/// variable array where the class has a pointer (the typed fuzz target's finding, kept as an edit
/// of a stock skeleton): the class must not read it, so the object stays dynamic, and the
/// document writes a file that reads back.
#[test]
fn a_class_reads_only_objects_whose_references_sit_where_the_file_says() {
    let Some(corpus) = common::corpus() else { return };
    let script = common::workspace_root().join("tests/fuzz_regressions/typed/class_layout_differs.edits");
    let mut bytes = common::edited_corpus_file(&script, &corpus);
    // The script's third byte also moves hkaBone's `name` to offset 4, over `lockTranslation`:
    // members that share bytes, which the type table now refuses before any class is tried
    // (`tests/hostile.rs`). This test wants the container's layout alone changed.
    let refused = TagFile::read(&bytes, &Default::default()).unwrap_err().to_string();
    assert!(refused.contains("in hkaBone: members name (bytes 4..12) and lockTranslation (bytes 8..9) share bytes"), "{refused}");
    bytes[0x326e] = 0;
    let stock = std::fs::read(corpus.join("Vumsy101__ProjectVumsyPatch/chr/c0300.anibnd/c0300/hkx/Skeleton.hkx")).unwrap();
    let typed_names = |bytes: &[u8]| {
        let file = TagFile::read(bytes, &Default::default()).unwrap();
        let doc = TagfileDocument::from_file(&file, hkclasses::classes_for_sdk(&file.sdk_version())).unwrap();
        let names: Vec<String> =
            doc.handles().filter(|&h| matches!(doc.node(h), Some(Node::Typed(_)))).filter_map(|h| doc.type_name(h)).collect();
        (doc, names)
    };
    let (_, stock_typed) = typed_names(&stock);
    assert!(stock_typed.iter().any(|n| n == "hkaAnimationContainer"), "{stock_typed:?}");
    let (doc, edited_typed) = typed_names(&bytes);
    assert!(!edited_typed.iter().any(|n| n == "hkaAnimationContainer"), "{edited_typed:?}");
    for out in [doc.write(), doc.write_typed()] {
        let out = out.unwrap();
        TagfileDocument::read(&out, &Default::default(), &[]).unwrap();
    }
}

/// A pointer set to a handle that is not an object (here a run of the file read) is refused by
/// the writer with a located error, not written as an item of the null type.
#[test]
fn a_pointer_to_what_is_not_an_object_is_refused_on_write() {
    let Some(corpus) = common::corpus() else { return };
    use hkclasses::hk2016_2::hknpRagdollData;
    let bytes = std::fs::read(corpus.join("nikhil-RGB__Genichiro-The-Last-Stand/chr/c7190.chrbnd/chr/c7190/c7190.hkx")).unwrap();
    let doc = TagfileDocument::read(&bytes, &Default::default(), hkclasses::hk2016_2::CLASSES).unwrap();
    let objects: Vec<u32> = doc.handles().map(|h| h.0).collect();
    let run = (1..).find(|h| !objects.contains(h) && doc.source_item(*h).is_some()).unwrap();
    let mut doc = hktypes::Document::Tagfile(doc);
    let h = doc.find("hknpRagdollData")[0];
    doc.get_mut::<hknpRagdollData>(h).unwrap().body_cinfos[0].shape = hktypes::value::Ptr::to(hktypes::Handle(run));
    let err = doc.write().unwrap_err();
    assert_eq!(err.layer(), hktypes::error::Layer::Writer, "{err}");
    let text = err.to_string();
    assert!(text.contains(&format!("item {run} is not an object")) && text.contains("TAG0/INDX/ITEM"), "{text}");
}

/// A document read from a shared buffer keeps that buffer, not a copy of its `DATA`: the bytes of
/// its items longer than [`INLINE_ITEM_BYTES`] lie in it (shorter ones are held in place), and it
/// writes the same file as a document that copied. A buffer holding the
/// same bytes elsewhere is not the file's and is not kept.
#[test]
fn a_document_read_from_a_shared_buffer_keeps_it_instead_of_a_copy() {
    let Some(corpus) = common::corpus() else { return };
    let path = corpus.join("nikhil-RGB__Genichiro-The-Last-Stand/chr/c7190.chrbnd/chr/c7190/c7190.hkx");
    let bytes: std::sync::Arc<[u8]> = std::fs::read(path).unwrap().into();
    let classes = hkclasses::hk2016_2::CLASSES;
    let copied = TagfileDocument::read(&bytes, &Default::default(), classes).unwrap();
    assert_eq!(std::sync::Arc::strong_count(&bytes), 1);
    let shared = TagfileDocument::read_shared(&bytes, &Default::default(), classes).unwrap();
    assert!(std::sync::Arc::strong_count(&bytes) > 1, "the document keeps the buffer");
    let range = bytes.as_ptr_range();
    // Whether every item longer than the in-place limit lies in the buffer, and every shorter one
    // outside it; the file has items of both lengths.
    let lengths: Vec<usize> = (1..).map_while(|i| copied.source_item(i)).map(|it| it.bytes.len()).collect();
    assert!(lengths.iter().any(|&n| n > INLINE_ITEM_BYTES) && lengths.iter().any(|&n| (1..=INLINE_ITEM_BYTES).contains(&n)));
    let placed = |doc: &TagfileDocument| -> (bool, bool) {
        let items = (1..).map_while(|i| doc.source_item(i)).filter(|it| !it.bytes.is_empty());
        let (long, short): (Vec<_>, Vec<_>) = items.partition(|it| it.bytes.len() > INLINE_ITEM_BYTES);
        let within = |it: &&ItemData| range.contains(&it.bytes.as_ptr());
        (long.iter().all(within), short.iter().any(within))
    };
    assert_eq!(placed(&shared), (true, false), "long items lie in the buffer, short ones are held in place");
    assert!(!placed(&copied).0, "a document that copied holds no range of the buffer");
    let inside = |doc: &TagfileDocument| placed(doc).0;
    assert_eq!(shared.counts(), copied.counts());
    assert_eq!(shared.write().unwrap(), copied.write().unwrap());
    assert_eq!(shared.write_typed().unwrap(), copied.write_typed().unwrap());
    assert_eq!(shared.write().unwrap(), &bytes[..], "a stock file writes back as read");
    drop(shared);
    assert_eq!(std::sync::Arc::strong_count(&bytes), 1);

    let file = TagFile::read(&bytes, &Default::default()).unwrap();
    let elsewhere: std::sync::Arc<[u8]> = bytes.to_vec().into();
    let doc = TagfileDocument::from_file_sharing(&file, Some(&elsewhere), classes).unwrap();
    assert_eq!(std::sync::Arc::strong_count(&elsewhere), 1, "another buffer is not kept");
    assert!(!inside(&doc));
    assert_eq!(doc.write().unwrap(), &bytes[..]);
}

/// A file in which two array slots name one run (a stock ragdoll, its second array slot edited to
/// name the run of the first) is read as dynamic objects, which keep run identities, rather than
/// typed ones that would each own a copy of the run; the document still writes a file that reads
/// back with the run shared.
#[test]
fn a_run_named_by_two_array_slots_keeps_the_objects_dynamic() {
    let Some(corpus) = common::corpus() else { return };
    use hktypes::reflect::layout::SlotKind;
    use hktypes::tagfile::items::Items;
    let stock = std::fs::read(corpus.join("nikhil-RGB__Genichiro-The-Last-Stand/chr/c7190.chrbnd/chr/c7190/c7190.hkx")).unwrap();
    let classes = hkclasses::hk2016_2::CLASSES;
    let file = TagFile::read(&stock, &Default::default()).unwrap();
    let items = Items::read(&file, &mut file.layouts()).unwrap();
    // The first two array slots, in item order, that name two different runs.
    let arrays: Vec<(usize, u32)> = items
        .items
        .iter()
        .enumerate()
        .flat_map(|(i, it)| {
            let at = file.data_offset as usize + file.items[i].offset as usize;
            it.references()
                .filter(|(_, s, _)| s.kind == SlotKind::Array)
                .map(move |(e, s, t)| (at + (e * it.elem_size + s.offset) as usize, t))
        })
        .collect();
    let (first, second) = (arrays[0], arrays.iter().copied().find(|&(_, t)| t != arrays[0].1).unwrap());
    let mut edited = stock.clone();
    edited[second.0..second.0 + 4].copy_from_slice(&first.1.to_le_bytes());

    let typed = TagfileDocument::read(&stock, &Default::default(), classes).unwrap().counts().typed;
    assert!(typed > 0);
    let doc = TagfileDocument::read(&edited, &Default::default(), classes).unwrap();
    assert_eq!(doc.counts().typed, 0, "no object of a file sharing an array run is typed");
    let out = doc.write().unwrap();
    let again = TagFile::read(&out, &Default::default()).unwrap();
    let runs = Items::read(&again, &mut again.layouts()).unwrap();
    let mut named = BTreeMap::<u32, usize>::new();
    for it in &runs.items {
        for (_, s, t) in it.references() {
            if s.kind == SlotKind::Array {
                *named.entry(t).or_default() += 1;
            }
        }
    }
    assert!(named.values().any(|&n| n == 2), "the written file names one run from two array slots");
}

/// The tagfiles that read against one compendium share its facts: the hashes and layouts the
/// first file's read computed serve the next, and the documents are those read with facts of
/// their own.
#[test]
fn tagfiles_of_one_compendium_share_its_facts() {
    let Some(corpus) = common::corpus() else { return };
    let entries = common::manifest(&corpus);
    let compendia = common::compendia(&entries);
    let mut checked = 0;
    for e in entries.iter().filter(|e| e.format == "tag0") {
        let bytes = std::fs::read(&e.path).unwrap();
        let set = compendia.set_for(&e.path);
        let file = TagFile::read(&bytes, &set).unwrap();
        let Some(facts) = &file.facts else { continue };
        assert!(facts.is_for(&file.types), "{}", e.relpath);
        // The same file read again takes the same facts, the ones of the compendium.
        let again = TagFile::read(&bytes, &compendia.set_for(&e.path)).unwrap();
        assert!(std::sync::Arc::ptr_eq(facts, again.facts.as_ref().unwrap()), "{}", e.relpath);
        let classes = hkclasses::classes_for_sdk(&file.sdk_version());
        let shared = TagfileDocument::from_file(&file, classes).unwrap();
        let mut alone = file.clone();
        alone.facts = None;
        let own = TagfileDocument::from_file(&alone, classes).unwrap();
        assert_eq!(shared.counts(), own.counts(), "{}", e.relpath);
        assert_eq!(shared.write_typed().unwrap(), own.write_typed().unwrap(), "{}", e.relpath);
        checked += 1;
        if checked == 20 {
            break;
        }
    }
    assert_eq!(checked, 20, "the corpus holds at least 20 compendium tagfiles");
}
