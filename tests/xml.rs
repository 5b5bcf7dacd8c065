//! Havok packfile XML (`hktypes::packfile::xml`) over the corpus: binary -> XML -> binary, the
//! corpus's XML files read and written again, XML and binary forms of the same content compared,
//! and hostile XML.

#[allow(dead_code)]
#[path = "../fuzz/src/checks.rs"]
mod checks;
mod common;

use hkgen::reflection::check::ClassSchemas;
use hkgen::reflection::sources::sdk_of_contents_version;
use hktypes::packfile::objects::{Body, Items, PackfileDocument, Ref, MemberValue};
use hktypes::Handle;
use hktypes::packfile::xml::{self, FloatForm, ObjectOrder, ReadOptions, WriteOptions};
use std::collections::{BTreeMap, HashMap};

fn schemas() -> ClassSchemas {
    ClassSchemas::load(&common::workspace_root().join("schemas")).unwrap()
}

fn read_xml(schemas: &ClassSchemas, bytes: &[u8], sdk: &str, options: ReadOptions) -> hktypes::Result<PackfileDocument> {
    xml::read(bytes, &schemas.sources_for(sdk), options)
}

/// Every corpus packfile whose objects are all typed goes to XML and back to the same bytes.
#[test]
fn binary_to_xml_to_binary_is_exact() {
    let Some(corpus) = common::corpus() else { return };
    let schemas = schemas();
    // sdk -> [files, all typed, exact]
    let mut per: BTreeMap<String, [usize; 3]> = BTreeMap::new();
    let mut not_exact = Vec::new();
    let mut noted = 0;
    for e in common::manifest(&corpus).into_iter().filter(|e| e.format == "packfile") {
        let Some(bytes) = common::corpus_file(&corpus, &e.relpath) else { continue };
        let f = hktypes::packfile::PackFile::read(&bytes).unwrap();
        let sdk = sdk_of_contents_version(&f.contents_version());
        let doc = PackfileDocument::from_file_with(f, &schemas.sources_for(&sdk)).unwrap();
        let n = per.entry(sdk.clone()).or_default();
        n[0] += 1;
        if doc.objects.iter().any(|o| matches!(o.body, Body::Untyped(_))) {
            continue;
        }
        n[1] += 1;
        let text = xml::write(&doc, WriteOptions::default());
        if let Some(t) = text.as_ref().ok().filter(|t| t.contains("<!-- hkgen:")) {
            noted += 1;
            common::fuzz_seed(t.as_bytes());
        }
        // The layout is the one the XML states (`hkgen convert`'s default).
        let result = text
            .and_then(|text| {
                let layout = xml::stated_layout(text.as_bytes()).unwrap_or(xml::DEFAULT_LAYOUT);
                read_xml(&schemas, text.as_bytes(), &sdk, ReadOptions { layout, order: ObjectOrder::Xml, ..Default::default() })
            })
            .and_then(|back| back.write());
        match result {
            Ok(out) if out == bytes => n[2] += 1,
            Ok(out) => {
                let at = out.iter().zip(&bytes).position(|(a, b)| a != b).unwrap_or(out.len().min(bytes.len()));
                not_exact.push(format!("{sdk} {}: differs at {at:#x} ({})", e.relpath, hkgen::reflection::check::locate(&doc.file, at as u64)));
            }
            Err(err) => not_exact.push(format!("{sdk} {}: {err}", e.relpath)),
        }
    }
    let summary: Vec<String> = per.iter().map(|(sdk, [files, typed, exact])| format!("{sdk}: {exact} of {typed} all-typed files exact ({files} files)")).collect();
    eprintln!("{}\n{noted} with hkgen notes", summary.join("\n"));
    not_exact.sort();
    assert!(not_exact.is_empty(), "{}", not_exact.join("\n"));
    assert_eq!(
        summary,
        [
            "2010.1: 13 of 13 all-typed files exact (13 files)",
            "2010.2: 31 of 31 all-typed files exact (32 files)",
            "2011.1: 18 of 18 all-typed files exact (18 files)",
            "2011.2: 18 of 18 all-typed files exact (18 files)",
            "2012.2: 18 of 18 all-typed files exact (18 files)",
            "2013.1: 18 of 18 all-typed files exact (18 files)",
            "2014.1: 86 of 86 all-typed files exact (86 files)",
            "2014.2: 22 of 22 all-typed files exact (22 files)",
            "5.5: 28 of 28 all-typed files exact (28 files)",
            "6.6: 24 of 24 all-typed files exact (24 files)",
            "7.1: 24 of 24 all-typed files exact (24 files)",
        ]
    );
    // What Havok's XML has no place for is in `hkgen:` comments: the layout where it is not
    // 8,1,0,1; kept bytes (Pandora's 0x7F padding, Nemesis's string placement, hkxpack's object
    // cut off by the end of the file), `__types__` records, unused `__classnames__` entries, a
    // pointer into `__types__`, the version-11 header region, a section's fill that is not the
    // stock amount, 8-byte array alignment. Havok 5.5's hkArray capacity words (`len |
    // 0xC0000000`) need none: the contents version gives them.
    assert_eq!(noted, NOTED);
}

/// hkArray capacity words other than a file's own convention come back through XML: a 5.5 file
/// (whose 6 hkArrays carry `len | 0xC0000000`, Havok 5.5's flags) with one array's word made
/// `len | 0x80000000` (mixed flags: the document keeps 5.5's flags, the XML notes the one word
/// in its object's `hkgen:object` note), and with every word made so (the document takes the
/// file's flags, the XML notes them in `hkgen:arrays`). Both write back and come back through
/// XML byte for byte; the stock file's XML has neither note and reads back with 5.5's words.
#[test]
fn array_flags_come_back_through_xml() {
    let Some(corpus) = common::corpus() else { return };
    let schemas = schemas();
    let Some(stock) = common::corpus_file(&corpus, "HavokLib/550__allosaur_run_S32_V16_B255_D1[4101].hkx") else { return };
    let read = |bytes: &[u8]| PackfileDocument::from_file_with(hktypes::packfile::PackFile::read(bytes).unwrap(), &schemas.sources_for("5.5")).unwrap();
    let through_xml = |doc: &PackfileDocument| {
        let text = xml::write(doc, WriteOptions::default()).unwrap();
        let back = read_xml(&schemas, text.as_bytes(), "5.5", ReadOptions { layout: doc.layout(), order: ObjectOrder::Xml, ..Default::default() }).unwrap();
        (text, back)
    };
    let doc = read(&stock);
    assert_eq!(doc.array_flags, 0xC000_0000);
    let (text, back) = through_xml(&doc);
    assert!(!text.contains("hkgen:arrays") && !text.contains("caps="));
    assert_eq!(back.array_flags, 0xC000_0000);
    assert_eq!(back.write().unwrap(), stock);

    let env = doc.find("hkxEnvironment").next().unwrap();
    let spline = doc.find("hkaSplineSkeletalAnimation").next().unwrap();
    let word = |doc: &mut PackfileDocument, h: Handle, member: &str| {
        let Some(MemberValue::Array(a)) = doc.field_mut(h, member) else { panic!("{member}") };
        a.capacity = a.items.len() as u32 | 0x8000_0000;
    };

    // One word of another flag: the 4th hkArray of the spline animation (`floatOffsets`, empty).
    let mut mixed = read(&stock);
    word(&mut mixed, spline, "floatOffsets");
    let mixed_bytes = mixed.write().unwrap();
    assert_eq!(mixed_bytes.len(), stock.len());
    assert_eq!(mixed_bytes.iter().zip(&stock).filter(|(a, b)| a != b).count(), 1);
    let mixed = read(&mixed_bytes);
    assert_eq!(mixed.array_flags, 0xC000_0000);
    assert_eq!(mixed.write().unwrap(), mixed_bytes);
    let (text, back) = through_xml(&mixed);
    assert!(!text.contains("hkgen:arrays"));
    assert_eq!(text.matches(" caps=").count(), 1);
    assert!(text.contains("<!-- hkgen:object caps=3:0x80000000 -->"), "{}", &text[..2000.min(text.len())]);
    assert_eq!(back.write().unwrap(), mixed_bytes);

    // Every word of the other flag: the document's flags are the file's.
    let mut other = read(&stock);
    for m in ["blockOffsets", "floatBlockOffsets", "transformOffsets", "floatOffsets", "data"] {
        word(&mut other, spline, m);
    }
    word(&mut other, env, "variables");
    let other_bytes = other.write().unwrap();
    let other = read(&other_bytes);
    assert_eq!(other.array_flags, 0x8000_0000);
    let (text, back) = through_xml(&other);
    assert_eq!(text.matches("<!-- hkgen:arrays flags=0x80000000 -->").count(), 1);
    assert!(!text.contains("caps="));
    assert_eq!(back.array_flags, 0x8000_0000);
    assert_eq!(back.write().unwrap(), other_bytes);

    // What the fuzz target checks (XML -> binary -> XML gives the same text) holds for each, and
    // for an `hkgen:arrays` note on a file without hkArrays (HavokLib's 5.5 animref): the note
    // gives no array its word, and the document's flags are learned from its arrays as its
    // binary's are (none: 5.5's).
    let Some(animref) = common::corpus_file(&corpus, "HavokLib/550__animref[4101].hkx") else { return };
    let text = xml::write(&read(&animref), WriteOptions::default()).unwrap();
    let noted = text.replacen("<hksection", "<!-- hkgen:arrays flags=0x80000000 -->\n\t<hksection", 1);
    let back = read_xml(&schemas, noted.as_bytes(), "5.5", ReadOptions { layout: read(&animref).layout(), order: ObjectOrder::Xml, ..Default::default() }).unwrap();
    assert_eq!(back.array_flags, 0xC000_0000);
    assert_eq!(back.write().unwrap(), animref);
    for doc in [&read(&stock), &mixed, &other] {
        checks::packfile_xml(xml::write(doc, WriteOptions::default()).unwrap().as_bytes());
    }
    checks::packfile_xml(noted.as_bytes());
}

/// The all-typed corpus packfiles whose XML carries `hkgen:` comments (84 of them the 6.6, 7.1
/// and 2011.x files, typed since their classes were derived into `classdata/`; one Demon's Souls'
/// map collision, whose container is not Havok's packer's and whose rigid body's runtime-only
/// hkArrays carry `0x80000000` where its stored ones carry 5.5's flags).
const NOTED: usize = 282;

/// Compares two documents' objects as graphs from their roots: the same classes and values,
/// pointers to corresponding objects, reals within `tolerance` (relative, and absolute near zero).
fn same_graph(a: &PackfileDocument, b: &PackfileDocument, tolerance: f32) -> Result<usize, String> {
    let (Some(ra), Some(rb)) = (a.root, b.root) else { return Err("a document without a root object".into()) };
    let mut map: HashMap<Handle, Handle> = HashMap::from([(ra, rb)]);
    let mut todo = vec![(ra, rb)];
    while let Some((ha, hb)) = todo.pop() {
        let (oa, ob) = (&a.objects[ha.0 as usize], &b.objects[hb.0 as usize]);
        if oa.class != ob.class {
            return Err(format!("object {} is {} in one, {} in the other", ha.0, oa.class, ob.class));
        }
        let (Body::Typed(va), Body::Typed(vb)) = (&oa.body, &ob.body) else { return Err(format!("object {} ({}) is raw", ha.0, oa.class)) };
        let names = a.member_names(&oa.class);
        if names != b.member_names(&ob.class) {
            return Err(format!("{}: members differ", oa.class));
        }
        for ((x, y), name) in va.iter().zip(vb).zip(&names) {
            same_value(x, y, tolerance, &mut map, &mut todo).map_err(|e| format!("object {} ({}).{name}: {e}", ha.0, oa.class))?;
        }
    }
    Ok(map.len())
}

fn same_ref(x: &Ref, y: &Ref, map: &mut HashMap<Handle, Handle>, todo: &mut Vec<(Handle, Handle)>) -> Result<(), String> {
    match (x, y) {
        (Ref::Null, Ref::Null) => Ok(()),
        (Ref::Object(p), Ref::Object(q)) => match map.get(p) {
            Some(m) if m == q => Ok(()),
            Some(m) => Err(format!("points to {} where {} was met before", q.0, m.0)),
            None => {
                map.insert(*p, *q);
                todo.push((*p, *q));
                Ok(())
            }
        },
        _ => Err(format!("{x:?} vs {y:?}")),
    }
}

fn close(x: f32, y: f32, tolerance: f32) -> bool {
    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()) || (x - y).abs() <= tolerance * (1.0 + x.abs().max(y.abs()))
}

fn same_value(x: &MemberValue, y: &MemberValue, tolerance: f32, map: &mut HashMap<Handle, Handle>, todo: &mut Vec<(Handle, Handle)>) -> Result<(), String> {
    match (x, y) {
        (MemberValue::Ptr(p), MemberValue::Ptr(q)) => same_ref(p, q, map, todo),
        (MemberValue::Variant(p, c), MemberValue::Variant(q, d)) => {
            same_ref(p, q, map, todo)?;
            same_ref(c, d, map, todo)
        }
        (MemberValue::Real(p), MemberValue::Real(q)) if close(*p, *q, tolerance) => Ok(()),
        (MemberValue::Vec4(p), MemberValue::Vec4(q)) if p.iter().zip(q).all(|(p, q)| close(*p, *q, tolerance)) => Ok(()),
        (MemberValue::Floats(p), MemberValue::Floats(q)) if p.len() == q.len() && p.iter().zip(q).all(|(p, q)| close(*p, *q, tolerance)) => Ok(()),
        // hkArray capacity words too: Havok 5.5's `len | 0xC0000000` come from the XML's contents version.
        (MemberValue::Array(p), MemberValue::Array(q)) if p.capacity != q.capacity => Err(format!("capacity word {:#x} against {:#x}", p.capacity, q.capacity)),
        (MemberValue::Array(p), MemberValue::Array(q)) => same_items(&p.clone().into_values(), &q.clone().into_values(), tolerance, map, todo),
        (MemberValue::Struct(p), MemberValue::Struct(q)) | (MemberValue::CArray(p), MemberValue::CArray(q)) | (MemberValue::RelArray(p), MemberValue::RelArray(q)) => {
            same_items(p, q, tolerance, map, todo)
        }
        _ if x == y => Ok(()),
        _ => Err(format!("{x:?} vs {y:?}").chars().take(300).collect()),
    }
}

fn same_items(p: &[MemberValue], q: &[MemberValue], tolerance: f32, map: &mut HashMap<Handle, Handle>, todo: &mut Vec<(Handle, Handle)>) -> Result<(), String> {
    if p.len() != q.len() {
        return Err(format!("{} elements vs {}", p.len(), q.len()));
    }
    for (i, (x, y)) in p.iter().zip(q).enumerate() {
        same_value(x, y, tolerance, map, todo).map_err(|e| format!("[{i}]: {e}"))?;
    }
    Ok(())
}

/// Every `<hkpackfile>` XML file of the corpus reads, and written as XML and read again gives the
/// same document; those that do not read fail with a located error, listed here.
#[test]
fn corpus_xml_files_read_and_round_trip() {
    let Some(corpus) = common::corpus() else { return };
    let schemas = schemas();
    let mut read = 0;
    let mut same = 0;
    let mut failed = Vec::new();
    let entries: Vec<_> = common::manifest(&corpus).into_iter().filter(|e| e.format == "xml").collect();
    for e in &entries {
        let Some(bytes) = common::corpus_file(&corpus, &e.relpath) else { continue };
        assert_eq!(hktypes::sniff(&bytes), Some(hktypes::Format::PackfileXml), "{}", e.relpath);
        let sdk = sdk_of_contents_version(&e.sdk);
        let doc = match read_xml(&schemas, &bytes, &sdk, ReadOptions::default()) {
            Ok(d) => d,
            Err(err) => {
                failed.push(format!("{}: {err}", e.relpath));
                continue;
            }
        };
        read += 1;
        // XML -> binary -> XML: the binary reads back into the same objects, and its XML text is
        // the same as the first.
        let bin = doc.write().unwrap();
        let again = PackfileDocument::from_file_with(hktypes::packfile::PackFile::read(&bin).unwrap(), &[&doc.classes]).unwrap();
        assert_eq!(again.objects, doc.objects, "{}", e.relpath);
        let text = xml::write(&doc, WriteOptions::default()).unwrap();
        let text2 = xml::write(&again, WriteOptions::default()).unwrap();
        if text2 != text {
            let at = text.bytes().zip(text2.bytes()).position(|(a, b)| a != b).unwrap_or(0);
            eprintln!("{}: XML texts differ at byte {at}: {:?}", e.relpath, &text[at.saturating_sub(80)..(at + 80).min(text.len())]);
        }
        assert!(text2 == text, "{}", e.relpath);
        let back = read_xml(&schemas, text.as_bytes(), &sdk, ReadOptions::default()).unwrap();
        if back.objects == doc.objects {
            same += 1;
        }
    }
    failed.sort();
    eprintln!("{read} of {} read, {same} the same through XML\n{}", entries.len(), failed.join("\n"));
    assert_eq!((entries.len(), read, same), (23, 22, 22));
    // The one that does not read: an hkxlib file whose pointer `1` names no object of the file.
    // (HavokLib's five SDK 5.5 animation files read since the 5.5 classes were derived.)
    let short: Vec<String> = failed.iter().map(|f| f.split(": ").take(3).collect::<Vec<_>>().join(": ")).collect();
    assert_eq!(short, ["hkxlib/minotaur__characters__Minotaur_character.xml: file 0x1ca: line 9, column 16"]);
    assert!(failed[0].ends_with("pointer to \"1\", which names no object"), "{}", failed[0]);
    // The tagfile XML is told apart by content, and the packfile reader refers it to tagfile::xml.
    for e in common::manifest(&corpus).into_iter().filter(|e| e.format == "xml-tagfile") {
        let Some(bytes) = common::corpus_file(&corpus, &e.relpath) else { continue };
        assert_eq!(hktypes::sniff(&bytes), Some(hktypes::Format::TagfileXml), "{}", e.relpath);
        let err = read_xml(&schemas, &bytes, "2014.1", ReadOptions::default()).unwrap_err().to_string();
        assert!(err.contains("hktagfile XML: a tagfile, read by tagfile::xml::read"), "{err}");
    }
}

/// The corpus's XML files and the binaries made from them (by Havok's packer: serde-hkx's Skyrim
/// files; HavokLib's allosaur in two SDKs): the same objects, reals up to the six decimals the
/// XML holds; and the binary written from the XML in Havok's object order under the binary's
/// layout, compared with the binary byte for byte.
#[test]
fn xml_and_binary_forms_hold_the_same_objects() {
    let Some(corpus) = common::corpus() else { return };
    let schemas = schemas();
    let pairs = [
        ("serde-hkx/defaultmale.xml", "serde-hkx/defaultmale_x86.hkx"),
        ("serde-hkx/skeleton.xml", "serde-hkx/skeleton_x86_reconverted.hkx"),
        ("serde-hkx/skeleton.xml", "serde-hkx/skeleton_x64_reconverted.hkx"),
        ("serde-hkx/wisp_skeleton__skeleton.xml", "serde-hkx/wisp_skeleton__skeleton_x64_reconverted.hkx"),
        ("HavokLib/allosaur2010.xml", "HavokLib/2010_2__allosaur[4101].hkx"),
        ("HavokLib/allosaur2012.xml", "HavokLib/2012_2__allosaur[4101].hkx"),
    ];
    let mut same = Vec::new();
    let mut exact = Vec::new();
    let mut report = Vec::new();
    for (x, b) in pairs {
        let (Some(xml_bytes), Some(bin)) = (common::corpus_file(&corpus, x), common::corpus_file(&corpus, b)) else { continue };
        let f = hktypes::packfile::PackFile::read(&bin).unwrap();
        let sdk = sdk_of_contents_version(&f.contents_version());
        let layout = f.layout();
        let from_bin = PackfileDocument::from_file_with(f, &schemas.sources_for(&sdk)).unwrap();
        let from_xml = read_xml(&schemas, &xml_bytes, &sdk, ReadOptions { layout, order: ObjectOrder::Havok, ..Default::default() }).unwrap();
        match same_graph(&from_xml, &from_bin, 1e-6) {
            Ok(n) if n == from_bin.objects.len() && n == from_xml.objects.len() => same.push(b),
            Ok(n) => report.push(format!("{x} vs {b}: {n} objects reached, {} and {}", from_xml.objects.len(), from_bin.objects.len())),
            Err(e) => report.push(format!("{x} vs {b}: {e}")),
        }
        let out = from_xml.write().unwrap();
        if out == bin {
            exact.push(b);
        } else {
            let at = out.iter().zip(&bin).position(|(p, q)| p != q).unwrap_or(out.len().min(bin.len()));
            report.push(format!("{x} -> {b}: differs at {at:#x} ({}), {} bytes vs {}", hkgen::reflection::check::locate(&from_bin.file, at as u64), out.len(), bin.len()));
        }
    }
    eprintln!("{}", report.join("\n"));
    // skeleton_x64_reconverted.hkx holds other values than skeleton.xml (a body's
    // angularDamping); the allosaur binaries are of other SDKs than their XML (2010.2 from
    // 2010.1, 2012.2 from 2012.1), so their bytes differ in the header's contents version.
    assert_eq!(
        same,
        [
            "serde-hkx/defaultmale_x86.hkx",
            "serde-hkx/skeleton_x86_reconverted.hkx",
            "serde-hkx/wisp_skeleton__skeleton_x64_reconverted.hkx",
            "HavokLib/2010_2__allosaur[4101].hkx",
            "HavokLib/2012_2__allosaur[4101].hkx",
        ]
    );
    assert_eq!(
        exact,
        ["serde-hkx/defaultmale_x86.hkx", "serde-hkx/skeleton_x86_reconverted.hkx", "serde-hkx/wisp_skeleton__skeleton_x64_reconverted.hkx"]
    );
}

/// HavokLib's allosaur exists as XML (`allosaur2010.xml`, `allosaur2012.xml`) and as binaries of
/// several SDKs and layouts (`<sdk>__allosaur[<layout>].hkx`): the 2010 XML holds the same objects
/// as each of the five 2010.2 binaries and the twelve 2011.1 and 2011.2 ones, the 2012 XML as each
/// of the seventeen 2012.2, 2013.1 and 2014.1 binaries (reals up to the XML's six decimals);
/// across the 2012 change of `hkaSkeleton` (its `partitions`) they differ, and from the 7.1
/// binaries (whose `hkaSkeleton` has no `referenceFloats`) and the 6.6 ones (whose
/// `hkRootLevelContainer` holds 5.5's `hkVariant`s, not named pointers) both differ.
/// (`allosaur500.xml` is of SDK 5.0, whose binaries no class schema types.)
#[test]
fn allosaur_xml_and_its_binaries_hold_the_same_objects() {
    let Some(corpus) = common::corpus() else { return };
    let schemas = schemas();
    let manifest = common::manifest(&corpus);
    // (The 5.5 binaries, `550__allosaur[...]`, are of other class versions than either XML.)
    let binaries: Vec<&common::Entry> = manifest
        .iter()
        .filter(|e| e.format == "packfile" && e.relpath.starts_with("HavokLib/") && e.relpath.contains("__allosaur[") && !e.relpath.starts_with("HavokLib/550__"))
        .collect();
    let pairs: Vec<(&str, &common::Entry)> =
        ["HavokLib/allosaur2010.xml", "HavokLib/allosaur2012.xml"].into_iter().flat_map(|x| binaries.iter().map(move |b| (x, *b))).collect();
    // per XML file and binary SDK: (binaries all typed, of them the same objects)
    let mut per: BTreeMap<(&str, String), (usize, usize)> = BTreeMap::new();
    let mut differ = Vec::new();
    for (x, b) in pairs {
        let (Some(xml_bytes), Some(bin)) = (common::corpus_file(&corpus, x), common::corpus_file(&corpus, &b.relpath)) else { continue };
        let f = hktypes::packfile::PackFile::read(&bin).unwrap();
        let sdk = sdk_of_contents_version(&f.contents_version());
        let layout = f.layout();
        let from_bin = PackfileDocument::from_file_with(f, &schemas.sources_for(&sdk)).unwrap();
        if from_bin.objects.iter().any(|o| matches!(o.body, Body::Untyped(_))) {
            continue;
        }
        let n = per.entry((x, sdk.clone())).or_default();
        n.0 += 1;
        let from_xml = match read_xml(&schemas, &xml_bytes, &sdk, ReadOptions { layout, order: ObjectOrder::Havok, ..Default::default() }) {
            Ok(d) => d,
            Err(e) => {
                differ.push(format!("{x} vs {}: {e}", b.relpath));
                continue;
            }
        };
        match same_graph(&from_xml, &from_bin, 1e-6) {
            Ok(k) if k == from_bin.objects.len() && k == from_xml.objects.len() => n.1 += 1,
            Ok(k) => differ.push(format!("{x} vs {}: {k} objects reached, {} and {}", b.relpath, from_xml.objects.len(), from_bin.objects.len())),
            Err(e) => differ.push(format!("{x} vs {}: {e}", b.relpath)),
        }
    }
    differ.sort();
    eprintln!("{per:?}\n{}", differ.join("\n"));
    let per: Vec<String> = per.into_iter().map(|((x, sdk), (typed, same))| format!("{x} vs {sdk}: {same} of {typed}")).collect();
    assert_eq!(
        per,
        [
            "HavokLib/allosaur2010.xml vs 2010.2: 5 of 5",
            "HavokLib/allosaur2010.xml vs 2011.1: 5 of 5",
            "HavokLib/allosaur2010.xml vs 2011.2: 7 of 7",
            "HavokLib/allosaur2010.xml vs 2012.2: 0 of 5",
            "HavokLib/allosaur2010.xml vs 2013.1: 0 of 5",
            "HavokLib/allosaur2010.xml vs 2014.1: 0 of 7",
            "HavokLib/allosaur2010.xml vs 6.6: 0 of 6",
            "HavokLib/allosaur2010.xml vs 7.1: 0 of 6",
            "HavokLib/allosaur2012.xml vs 2010.2: 0 of 5",
            "HavokLib/allosaur2012.xml vs 2011.1: 0 of 5",
            "HavokLib/allosaur2012.xml vs 2011.2: 0 of 7",
            "HavokLib/allosaur2012.xml vs 2012.2: 5 of 5",
            "HavokLib/allosaur2012.xml vs 2013.1: 5 of 5",
            "HavokLib/allosaur2012.xml vs 2014.1: 7 of 7",
            "HavokLib/allosaur2012.xml vs 6.6: 0 of 6",
            "HavokLib/allosaur2012.xml vs 7.1: 0 of 6",
        ]
    );
    // Where they differ, it is the hkaSkeleton of the other class version, or 6.6's root
    // container.
    let six_six_root = |d: &str| d.contains("/660__") && d.contains("namedVariants[0].variant");
    assert!(differ.iter().all(|d| d.contains("hkaSkeleton") || six_six_root(d)), "{}", differ.join("\n"));
}

/// HavokLib's SDK 5.5 animation XML files (`allosaur_run_<compression>.xml`, `animref.xml`) and
/// the 5.5 binaries of the same name (`550__<name>[<layout>].hkx`: 4- and 8-byte pointers, both
/// byte orders, reuse-padding on and off) hold the same objects, reals up to the XML's six
/// decimals, and the same hkArray capacity words (Havok 5.5's `len | 0xC0000000`, which the XML's
/// contents version gives: `stock_array_flags`): the derived 5.5 classes read both forms alike.
/// The one difference is the export's
/// own record: the `hkxEnvironment` of the allosaur_run binaries says its export ran one more
/// filter ("Write to Platform" twice in `infoString`) than the XML's, so that object is compared
/// apart, and all others must be the same.
#[test]
fn havoklib_5_5_xml_and_its_binaries_hold_the_same_objects() {
    let Some(corpus) = common::corpus() else { return };
    let schemas = schemas();
    let manifest = common::manifest(&corpus);
    let names = ["allosaur_run_D12_8_3", "allosaur_run_S32_V16_B255_D1", "allosaur_run_S40_V16_B25_D3", "allosaur_run_S48_V8_B255_D2", "animref"];
    // per XML file: (binaries, of them all typed and the same objects)
    let mut per: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    // per XML file: binaries whose hkxEnvironment differs from the XML's
    let mut env_differs: BTreeMap<&str, usize> = BTreeMap::new();
    let mut differ = Vec::new();
    for name in names {
        let x = format!("HavokLib/{name}.xml");
        let Some(xml_bytes) = common::corpus_file(&corpus, &x) else { continue };
        let prefix = format!("HavokLib/550__{name}[");
        for b in manifest.iter().filter(|e| e.format == "packfile" && e.relpath.starts_with(&prefix)) {
            let Some(bin) = common::corpus_file(&corpus, &b.relpath) else { continue };
            let f = hktypes::packfile::PackFile::read(&bin).unwrap();
            let sdk = sdk_of_contents_version(&f.contents_version());
            assert_eq!(sdk, "5.5", "{}", b.relpath);
            let layout = f.layout();
            let from_bin = PackfileDocument::from_file_with(f, &schemas.sources_for(&sdk)).unwrap();
            let n = per.entry(name).or_default();
            n.0 += 1;
            if from_bin.objects.iter().any(|o| matches!(o.body, Body::Untyped(_))) {
                differ.push(format!("{}: untyped objects", b.relpath));
                continue;
            }
            let result = read_xml(&schemas, &xml_bytes, &sdk, ReadOptions { layout, order: ObjectOrder::Havok, ..Default::default() })
                .map_err(|e| e.to_string())
                .and_then(|mut from_xml| {
                    let env = |d: &PackfileDocument| d.objects.iter().position(|o| o.class == "hkxEnvironment");
                    match (env(&from_xml), env(&from_bin)) {
                        (Some(x), Some(y)) if from_xml.objects[x].body != from_bin.objects[y].body => {
                            *env_differs.entry(name).or_default() += 1;
                            from_xml.objects[x].body = from_bin.objects[y].body.clone();
                        }
                        (Some(_), Some(_)) | (None, None) => {}
                        _ => return Err("an hkxEnvironment in one form only".to_owned()),
                    }
                    same_graph(&from_xml, &from_bin, 1e-6).map(|k| (k, from_xml.objects.len()))
                });
            match result {
                Ok((k, in_xml)) if k == from_bin.objects.len() && k == in_xml => n.1 += 1,
                Ok((k, in_xml)) => differ.push(format!("{x} vs {}: {k} objects reached, {in_xml} and {}", b.relpath, from_bin.objects.len())),
                Err(e) => differ.push(format!("{x} vs {}: {e}", b.relpath)),
            }
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
    assert_eq!(
        per.into_iter().collect::<Vec<_>>(),
        [
            ("allosaur_run_D12_8_3", (6, 6)),
            ("allosaur_run_S32_V16_B255_D1", (3, 3)),
            ("allosaur_run_S40_V16_B25_D3", (2, 2)),
            ("allosaur_run_S48_V8_B255_D2", (3, 3)),
            ("animref", (7, 7)),
        ]
    );
    assert_eq!(
        env_differs.into_iter().collect::<Vec<_>>(),
        [("allosaur_run_D12_8_3", 6), ("allosaur_run_S32_V16_B255_D1", 3), ("allosaur_run_S40_V16_B25_D3", 2), ("allosaur_run_S48_V8_B255_D2", 3)]
    );
}

/// A text with white space runs made one space, and none next to `<` or `>`; object names
/// (`#0122`) numbered in the order they first appear (`#1`), as the binary form holds none.
fn without_white_space(text: &str) -> String {
    let one: Vec<&str> = text.split_ascii_whitespace().collect();
    let t = one.join(" ").replace("> ", ">").replace(" <", "<").replace(" >", ">").replace("< ", "<");
    let mut names: HashMap<String, usize> = HashMap::new();
    let mut out = String::with_capacity(t.len());
    let mut rest = t.as_str();
    while let Some(at) = rest.find('#') {
        out.push_str(&rest[..at]);
        let digits = rest[at + 1..].bytes().take_while(u8::is_ascii_digit).count();
        let name = &rest[at..at + 1 + digits];
        let n = names.len();
        out.push_str(&format!("#{}", names.entry(name.to_owned()).or_insert(n)));
        rest = &rest[at + 1 + digits..];
    }
    out.push_str(rest);
    out
}

/// The corpus XML files Havok's tools wrote (`<?xml version="1.0" encoding="ascii"?>`, as
/// Havok's packfile XML writer begins) go XML -> binary -> XML with `--floats havok` to the same
/// text up to white space and the numbers in object names.
#[test]
fn havok_xml_comes_back_as_the_same_text_with_havok_floats() {
    let Some(corpus) = common::corpus() else { return };
    let schemas = schemas();
    let (mut read, mut same, mut same_but_ignored) = (0, 0, 0);
    let mut differ = Vec::new();
    for e in common::manifest(&corpus).into_iter().filter(|e| e.format == "xml") {
        let Some(bytes) = common::corpus_file(&corpus, &e.relpath) else { continue };
        let sdk = sdk_of_contents_version(&e.sdk);
        if !bytes.starts_with(b"<?xml version=\"1.0\" encoding=\"ascii\"?>") {
            continue;
        }
        let Ok(doc) = read_xml(&schemas, &bytes, &sdk, ReadOptions::default()) else { continue };
        read += 1;
        let bin = doc.write().unwrap();
        let again = PackfileDocument::from_file_with(hktypes::packfile::PackFile::read(&bin).unwrap(), &[&doc.classes]).unwrap();
        let text = xml::write(&again, WriteOptions { floats: FloatForm::Havok }).unwrap();
        let (a, b) = (without_white_space(&String::from_utf8_lossy(&bytes)), without_white_space(&text));
        // Some of Havok's writers leave out the comments for SERIALIZE_IGNORED members.
        let without_ignored = |t: &str| t.split("<!--").map(|part| part.split_once("SERIALIZE_IGNORED -->").map_or(part, |(_, rest)| rest)).collect::<String>();
        if a == b {
            same += 1;
        } else if a == without_ignored(&b) {
            same_but_ignored += 1;
        } else {
            let b = without_ignored(&b);
            let at = a.bytes().zip(b.bytes()).position(|(p, q)| p != q).unwrap_or(a.len().min(b.len()));
            let around = |t: &str| t.get(at.saturating_sub(60)..(at + 60).min(t.len())).unwrap_or("").to_owned();
            differ.push(format!("{}: {:?} vs {:?}", e.relpath, around(&a), around(&b)));
        }
    }
    eprintln!("{same} of {read}, {same_but_ignored} without the ignored members' comments\n{}", differ.join("\n"));
    // HavokLib's teapot files begin as Havok's writer does but were edited by hand: a
    // `<!-- body -->` comment, `0` for `0.000000`, `10 10 10` scales, `<hkparam .../>`, and
    // numelements that disagree with their text. HavokLib's five SDK 5.5 files (classversion 5)
    // have no `toplevelobject` attribute on `<hkpackfile>`, which the writer always writes.
    assert_eq!((read, same, same_but_ignored), (14, 5, 1), "{}", differ.join("\n"));
    let no_top = differ.iter().filter(|d| d.contains("contentsversion=\\\"Havok-5.5.0-r1\\\" toplevelobject=")).count();
    assert_eq!(no_top, 5, "{}", differ.join("\n"));
    let differ: Vec<&str> = differ.iter().filter_map(|d| d.split(':').next()).collect();
    assert_eq!(
        differ,
        [
            "HavokLib/allosaur_run_D12_8_3.xml",
            "HavokLib/allosaur_run_S32_V16_B255_D1.xml",
            "HavokLib/allosaur_run_S40_V16_B25_D3.xml",
            "HavokLib/allosaur_run_S48_V8_B255_D2.xml",
            "HavokLib/animref.xml",
            "HavokLib/visual__teapot.xml",
            "HavokLib/visual__teapot_scale_whole.xml",
            "HavokLib/visual__teapot_scale_whole_offsets.xml",
        ]
    );
}

/// Havok's six-decimal form reads back to reals within its rounding, and the default form to
/// the same bits.
#[test]
fn float_forms_read_back() {
    let Some(corpus) = common::corpus() else { return };
    let schemas = schemas();
    let Some(bin) = common::corpus_file(&corpus, "NiceneNerd__rstb-rust/test/Obj_TreeWhiteBirch_A_01.hkrb") else { return };
    let doc = PackfileDocument::from_file_with(hktypes::packfile::PackFile::read(&bin).unwrap(), &schemas.sources_for("2014.2")).unwrap();
    let havok = xml::write(&doc, WriteOptions { floats: FloatForm::Havok }).unwrap();
    assert!(havok.contains(">0.500000<"), "six decimals");
    let back = read_xml(&schemas, havok.as_bytes(), "2014.2", ReadOptions { layout: doc.layout(), order: ObjectOrder::Xml, ..Default::default() }).unwrap();
    assert_eq!(same_graph(&back, &doc, 1e-6).unwrap(), doc.objects.len());
    assert_ne!(back.objects, doc.objects, "six decimals lose bits of some reals");
    let shortest = xml::write(&doc, WriteOptions::default()).unwrap();
    let back = read_xml(&schemas, shortest.as_bytes(), "2014.2", ReadOptions { layout: doc.layout(), order: ObjectOrder::Xml, ..Default::default() }).unwrap();
    assert_eq!(back.objects, doc.objects);
}

/// Hostile XML: each case a located error (line and column, object, member), no panic, no hang.
/// A million nested elements fail where the reader meets the first element out of place (it
/// does not recurse over elements it passes); no class schema nests structs by value past the walk's
/// `MAX_DEPTH`, which guards the walk all the same.
#[test]
fn hostile_xml_gives_located_errors() {
    let schemas = schemas();
    let head = "<?xml version=\"1.0\" encoding=\"ascii\"?>\n<hkpackfile classversion=\"8\" contentsversion=\"hk_2010.2.0-r1\" toplevelobject=\"#0001\">\n<hksection name=\"__data__\">\n";
    let tail = "</hksection>\n</hkpackfile>\n";
    let project = |params: &str| {
        format!("{head}<hkobject name=\"#0001\" class=\"hkbProjectData\" signature=\"0x13a39ba7\">\n{params}\n</hkobject>\n{tail}")
    };
    let err = |text: &str| read_xml(&schemas, text.as_bytes(), "2010.2", ReadOptions::default()).unwrap_err().to_string();
    let deep = format!("{head}{}{}{tail}", "<hkobject>".repeat(1_000_000), "</hkobject>".repeat(1_000_000));
    let bomb = "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">]>\n<hkpackfile classversion=\"8\" contentsversion=\"hk_2010.2.0-r1\"><hksection name=\"__data__\">&lol2;</hksection></hkpackfile>";
    let cases: Vec<(&str, String, &str)> = vec![
        ("unclosed tag", format!("{head}<hkobject name=\"#0001\" class=\"hkbProjectData\">\n"), "line 4, column 1: XML: the element is not closed (the text ends inside it)"),
        ("a million levels", deep, "line 4, column 1: a top-level <hkobject> without a name"),
        ("entity bomb", bomb.to_owned(), "line 2, column 1: XML: a document type (<!DOCTYPE>): refused, so no entity beyond XML's five"),
        ("out of range", project("<hkparam name=\"defaultEventMode\">300</hkparam>"), "line 5, column 1: object #0001, member defaultEventMode: 300 is out of range"),
        ("dangling pointer", project("<hkparam name=\"stringData\">#0099</hkparam>"), "line 5, column 1: object #0001, member stringData: pointer to \"#0099\", which names no object"),
        ("unknown class", format!("{head}<hkobject name=\"#0001\" class=\"hkNoSuchClass\"></hkobject>\n{tail}"), "line 4, column 1: object #0001: unknown class hkNoSuchClass"),
        ("unknown member", project("<hkparam name=\"noSuchMember\">1</hkparam>"), "line 5, column 1: object #0001: unknown member noSuchMember of hkbProjectData"),
        ("real out of range", project("<hkparam name=\"worldUpWS\">(1e39 0 0 0)</hkparam>"), "line 5, column 1: object #0001, member worldUpWS: 1e39 is out of range for a 32-bit real"),
        ("tagfile XML", "<?xml version=\"1.0\"?><hktagfile version=\"3\"></hktagfile>".to_owned(), "hktagfile XML: a tagfile, read by tagfile::xml::read"),
        (
            "kept places beyond the input",
            project("<!-- hkgen:object places=0:4000000000 -->"),
            "line 5, column 1: object #0001: hkgen:object: offsets up to 4000000000 exceed the",
        ),
        // An end no binary gives (objects end on 16 bytes; the packfile_xml fuzz target's third
        // finding: it read, and came back as another end).
        ("an end off 16 bytes", project("<!-- hkgen:object end=48:56 -->"), "line 5, column 1: object #0001: hkgen:object: the note does not fit the object's values"),
        // 8-aligned arrays where there are none to place: the stock layout gives the bytes.
        ("align=8 on an object without arrays", project("<!-- hkgen:object align=8 -->"), "line 5, column 1: object #0001: hkgen:object: the note does not fit the object's values"),
        ("a place backwards", project("<!-- hkgen:object places=64:16 -->"), "line 5, column 1: object #0001: hkgen:object: a place moves data backwards"),
        ("a pointer note on no pointer", project("<!-- hkgen:object refs=7:s1+16 -->"), "hkgen:object: pointer 7 is not a null pointer of the object"),
        (
            "a container that is not hex",
            project("").replacen("<hksection", "<!-- hkgen:container 5a5z -->\n<hksection", 1),
            "line 3, column 1: hkgen:container: not hex digits",
        ),
        (
            "a container that is no packfile",
            project("").replacen("<hksection", "<!-- hkgen:container 00112233 -->\n<hksection", 1),
            "line 3, column 1: hkgen:container: ",
        ),
        (
            "array flags beyond the flag bits",
            project("").replacen("<hksection", "<!-- hkgen:arrays flags=0x1 -->\n<hksection", 1),
            "line 3, column 1: hkgen:arrays: not flags=HEX of the bits 0xc0000000",
        ),
        (
            "array flags after __data__",
            project("").replacen("</hkpackfile>", "<!-- hkgen:arrays flags=0x80000000 -->\n</hkpackfile>", 1),
            "hkgen:arrays: one note, before __data__",
        ),
        ("a capacity word for no hkArray", project("<!-- hkgen:object caps=0:0x80000000 -->"), "line 5, column 1: object #0001: hkgen:object: hkArray 0: the object has no such hkArray"),
        // Start tags the one-pass attribute reader leaves to quick-xml's (issue 39): the same
        // errors as before it.
        ("a repeated attribute", project("<hkparam name=\"stringData\" name=\"stringData\">null</hkparam>"), "line 5, column 1: XML: position 26: duplicated attribute, previous declaration at position 8"),
        ("an unquoted attribute value", project("<hkparam name=stringData>null</hkparam>"), "line 5, column 1: XML: position 13: attribute value must be enclosed in `\"` or `'`"),
        ("'<' in an attribute value", project("<hkparam name=\"a<b\">null</hkparam>"), "line 5, column 1: XML: an attribute value holds '<'"),
        ("an attribute name that is no name", project("<hkparam 1name=\"stringData\">null</hkparam>"), "line 5, column 1: XML: \"1name\" is not an attribute name"),
        ("attributes without white space between", project("<hkparam name=\"stringData\"numelements=\"0\">null</hkparam>"), "line 5, column 1: XML: no white space before the attribute at"),
        // End tags are checked by the pull parser itself where they follow a tag or plain text
        // (issue 39), and after text with references as quick-xml gives them: the same checks.
        ("an end tag of another element", project("<hkparam name=\"stringData\">null</hkobject>"), "line 5, column 32: XML: ill-formed document: expected `</hkparam>`, but `</hkobject>` was found"),
        ("an end tag of another element after a reference", project("<hkparam name=\"stringData\">a&amp;b</hkobject>"), "line 5, column 35: XML: ill-formed document: expected `</hkparam>`, but `</hkobject>` was found"),
        ("an end tag with a space inside its name", project("<hkparam name=\"stringData\">null</hk param>"), "XML: ill-formed document: expected `</hkparam>`, but `</hk param>` was found"),
        ("an end tag beyond the root", format!("{}</hkpackfile>", project("")), "XML: ill-formed document: close tag `</hkpackfile>` does not match any open tag"),
        ("an end tag without its >", format!("{head}<hkobject name=\"#0001\" class=\"hkbProjectData\" signature=\"0x13a39ba7\">\n</hkobject"), "XML: "),
    ];
    for (what, text, want) in cases {
        common::fuzz_seed(text.as_bytes());
        let got = err(&text);
        assert!(got.contains(want), "{what}: {got}");
    }
    // White space before an end tag's `>` is XML's, and reads.
    let spaced = project("<hkparam name=\"stringData\">null</hkparam \n >").replace("</hkobject>", "</hkobject\t>");
    assert_eq!(read_xml(&schemas, spaced.as_bytes(), "2010.2", ReadOptions::default()).unwrap().objects.len(), 1);
    // The same end on 16 bytes is kept, and comes back through the binary.
    let doc = read_xml(&schemas, project("<!-- hkgen:object end=48:64 -->").as_bytes(), "2010.2", ReadOptions::default()).unwrap();
    assert_eq!(doc.objects[0].kept.end, Some((48, 64)));
    // A bare `&` followed by bytes beyond ASCII (read as Latin-1, two bytes each in UTF-8): the
    // packfile_xml fuzz target found that the message cut the text inside a character and
    // panicked. The input is kept under tests/fuzz_regressions/packfile_xml/.
    let bare = b"<hkpackfile classversion=\"&\xff\xff\xff\xff\xff\xff\xff\">";
    let got = read_xml(&schemas, bare, "2010.2", ReadOptions::default()).unwrap_err().to_string();
    assert!(got.ends_with("line 1, column 1: XML: \"&\u{ff}\u{ff}\u{ff}\u{ff}\u{ff}\u{ff}\u{ff}\": a bare & (write &amp;)"), "{got}");
}

/// Mutations of two corpus XML files (every 7th byte replaced, in turn, by one of the bytes XML
/// and the value texts care about) through the fuzz target's check: each reads or fails with an
/// error, and what reads goes XML -> binary -> XML unchanged.
#[test]
fn mutated_xml_reads_or_fails_cleanly() {
    let Some(corpus) = common::corpus() else { return };
    let schemas = schemas();
    let bytes_for = [b'<', b'>', b'"', b'0', b'#', b'(', b'&', 0xFF, b'9', b'-', b' ', b'/'];
    let (mut tried, mut read) = (0, 0);
    for rel in ["serde-hkx/defaultmale.xml", "hkxlib/skeleton.xml"] {
        let Some(bytes) = common::corpus_file(&corpus, rel) else { continue };
        for (k, at) in (0..bytes.len()).step_by(7).enumerate() {
            let mut m = bytes.clone();
            m[at] = bytes_for[k % bytes_for.len()];
            checks::packfile_xml(&m);
            tried += 1;
            if read_xml(&schemas, &m, "2010.2", ReadOptions::default()).is_ok() {
                read += 1;
            }
        }
    }
    eprintln!("{tried} mutations, {read} read");
    assert_eq!((tried, read), (2689, 594));
}

/// A member value of the wrong kind for its member type (a document edited through the API) is
/// an error at its object and member path, from the XML writer and from the dump alike (both
/// spell what the one walk out of packfile values gives), not a panic or a silent number.
#[test]
fn a_value_of_the_wrong_kind_is_an_error_at_its_path() {
    let Some(corpus) = common::corpus() else { return };
    let schemas = schemas();
    let e = common::manifest(&corpus)
        .into_iter()
        .find(|e| e.format == "packfile" && e.sdk == "hk_2010.2.0-r1" && e.bytes < 20_000)
        .expect("a small 2010.2 packfile in the corpus");
    let bytes = common::corpus_file(&corpus, &e.relpath).expect("the corpus file");
    let f = hktypes::packfile::PackFile::read(&bytes).unwrap();
    let mut doc = PackfileDocument::from_file_with(f, &schemas.sources_for("2010.2")).unwrap();
    let k = doc.objects.iter().position(|o| o.class == "hkaSkeleton").expect("an hkaSkeleton");
    let names = doc.member_names("hkaSkeleton");
    let at = |n: &str| names.iter().position(|x| x == n).unwrap();
    let (name, bones) = (at("name"), at("bones"));
    let bone_name = doc.member_names("hkaBone").iter().position(|x| x == "name").unwrap();
    let Body::Typed(values) = &mut doc.objects[k].body else { panic!("the skeleton is typed") };
    values[name] = MemberValue::Int(12);
    let object = format!("object #{:04} (hkaSkeleton)", k + 1);
    let err = xml::write(&doc, WriteOptions::default()).unwrap_err().to_string();
    assert!(err.contains(&format!("{object}.name: a ")) && err.contains("belongs"), "{err}");
    let err = hktypes::dump::dump_packfile(&doc).unwrap_err().to_string();
    assert!(err.contains(&format!("(handle {k}, hkaSkeleton).name: a ")) && err.contains("belongs"), "{err}");
    // An element of an array of structs: its index in the path.
    let Body::Typed(values) = &mut doc.objects[k].body else { panic!("the skeleton is typed") };
    values[name] = MemberValue::Str(Some(b"skeleton".to_vec()));
    let MemberValue::Array(a) = &mut values[bones] else { panic!("bones is an hkArray") };
    let MemberValue::Struct(bone) = &mut a.values_mut()[1] else { panic!("a bone is a struct") };
    bone[bone_name] = MemberValue::Real(1.5);
    let err = xml::write(&doc, WriteOptions::default()).unwrap_err().to_string();
    assert!(err.contains(&format!("{object}.bones[1].name: a ")), "{err}");
    let err = hktypes::dump::dump_packfile(&doc).unwrap_err().to_string();
    assert!(err.contains("hkaSkeleton).bones[1].name: a "), "{err}");
    // Put back, both write again.
    let Body::Typed(values) = &mut doc.objects[k].body else { panic!("the skeleton is typed") };
    let MemberValue::Array(a) = &mut values[bones] else { panic!("bones is an hkArray") };
    let MemberValue::Struct(bone) = &mut a.values_mut()[1] else { panic!("a bone is a struct") };
    bone[bone_name] = MemberValue::Str(Some(b"bone".to_vec()));
    assert!(xml::write(&doc, WriteOptions::default()).unwrap().contains("<hkparam name=\"name\">skeleton</hkparam>"));
    hktypes::dump::dump_packfile(&doc).unwrap();
}

/// `text` with the `<hkparam>`s of every `<hkobject>` (top-level and nested) in reverse order
/// (the XML written one element a line, as the corpus files and the writer have it).
fn params_reversed(text: &str) -> String {
    fn indent(l: &str) -> usize {
        l.len() - l.trim_start().len()
    }
    fn rev(lines: &[&str], out: &mut Vec<String>) {
        let mut i = 0;
        while i < lines.len() {
            let l = lines[i];
            let t = l.trim();
            i += 1;
            if !(t.starts_with("<hkobject") && !t.ends_with("/>") && !t.ends_with("</hkobject>")) {
                out.push(l.to_owned());
                continue;
            }
            let end = i + lines[i..].iter().position(|m| m.trim() == "</hkobject>" && indent(m) == indent(l)).expect("closed");
            let children: Vec<&str> = lines[i..end].iter().copied().filter(|m| !m.trim().is_empty()).collect();
            let mut blocks: Vec<Vec<&str>> = Vec::new();
            let mut k = 0;
            while k < children.len() {
                let first = children[k];
                let mut to = k + 1;
                if first.trim_start().starts_with("<hkparam") && !first.contains("</hkparam>") && !first.trim_end().ends_with("/>") {
                    to = k + 1 + children[k + 1..].iter().position(|m| m.trim() == "</hkparam>" && indent(m) == indent(first)).expect("closed") + 1;
                }
                blocks.push(children[k..to].to_vec());
                k = to;
            }
            out.push(l.to_owned());
            for b in blocks.iter().rev() {
                rev(b, out);
            }
            out.push(lines[end].to_owned());
            i = end + 1;
        }
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    rev(&lines, &mut out);
    out.join("\n")
}

/// Parameters may come in any order: corpus XML files with every object's parameters reversed
/// (each read ahead of its member waits, each after its member comes late) read as the files do;
/// a parameter given twice, in order or out of it, is an error at the second.
#[test]
fn parameters_in_any_order() {
    let Some(corpus) = common::corpus() else { return };
    let schemas = schemas();
    let read = |bytes: &[u8]| xml::read_with(bytes, |c| schemas.sources_for(&sdk_of_contents_version(c)), ReadOptions { order: ObjectOrder::Xml, ..Default::default() });
    let mut files = 0;
    for rel in ["hkxlib/skeleton.xml", "hkxlib/Minotaur_behavior.xml", "serde-hkx/defaultmale.xml", "HavokLib/allosaur2010.xml"] {
        let Some(bytes) = common::corpus_file(&corpus, rel) else { continue };
        let text = String::from_utf8(bytes).unwrap();
        let reversed = params_reversed(&text);
        assert_ne!(reversed, text, "{rel}");
        let want = read(text.as_bytes()).unwrap();
        let got = read(reversed.as_bytes()).unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert_eq!(got.objects, want.objects, "{rel}");
        files += 1;
    }
    assert_eq!(files, 4);
    let head = "<?xml version=\"1.0\" encoding=\"ascii\"?>\n<hkpackfile classversion=\"8\" contentsversion=\"hk_2010.2.0-r1\" toplevelobject=\"#0001\">\n<hksection name=\"__data__\">\n";
    let project = |params: &str| format!("{head}<hkobject name=\"#0001\" class=\"hkbProjectData\" signature=\"0x13a39ba7\">\n{params}\n</hkobject>\n</hksection>\n</hkpackfile>\n");
    let mode = "<hkparam name=\"defaultEventMode\">1</hkparam>";
    let up = "<hkparam name=\"worldUpWS\">(0 0 1 0)</hkparam>";
    for (params, want) in [
        (format!("{mode}\n{mode}"), "line 6, column 1: object #0001, member defaultEventMode: a second value"),
        (format!("{mode}\n{up}\n{mode}"), "line 7, column 1: object #0001, member defaultEventMode: a second value"),
        (format!("{up}\n{mode}\n{up}"), "line 7, column 1: object #0001, member worldUpWS: a second value"),
    ] {
        let e = read(project(&params).as_bytes()).unwrap_err().to_string();
        assert!(e.ends_with(want), "{params}: {e}");
    }
    // Out of order and missing members: the same values as in order, the missing ones zero.
    let in_order = read(project(&format!("{up}\n{mode}")).as_bytes()).unwrap();
    let out_of_order = read(project(&format!("{mode}\n{up}")).as_bytes()).unwrap();
    assert_eq!(in_order.objects, out_of_order.objects);
    let Body::Typed(values) = &in_order.objects[0].body else { panic!("typed") };
    assert!(values.contains(&MemberValue::Vec4([0.0, 0.0, 1.0, 0.0])) && values.contains(&MemberValue::Ptr(Ref::Null)), "{values:?}");
}

/// A list of numbers is read in one loop until a word it cannot take: that word is read (and
/// reported) at its own place as before, and the elements after it follow; a real list with
/// groups reads each group's numbers as elements.
#[test]
fn number_lists_report_the_element_at_fault() {
    let Some(corpus) = common::corpus() else { return };
    let schemas = schemas();
    let read = |text: &str| xml::read_with(text.as_bytes(), |c| schemas.sources_for(&sdk_of_contents_version(c)), ReadOptions::default());
    let bytes = common::corpus_file(&corpus, "hkxlib/skeleton.xml").expect("hkxlib/skeleton.xml in the corpus");
    let text = String::from_utf8(bytes).unwrap();
    let list = "\t\t\t\t-1 0 1 2 3 4 5 6 6 6 6 5 11 12 13 14\n";
    assert!(text.contains(list));
    let doc = read(&text).unwrap();
    let parents = |doc: &PackfileDocument| -> Vec<MemberValue> {
        let k = doc.objects.iter().position(|o| o.class == "hkaSkeleton").unwrap();
        let i = doc.member_names("hkaSkeleton").iter().position(|n| n == "parentIndices").unwrap();
        let Body::Typed(values) = &doc.objects[k].body else { panic!("typed") };
        let MemberValue::Array(a) = &values[i] else { panic!("an hkArray") };
        a.clone().into_values()
    };
    let want = parents(&doc);
    assert_eq!(want.len(), 65);
    assert_eq!(want[..3], [MemberValue::Int(-1), MemberValue::Int(0), MemberValue::Int(1)]);
    // Hex and the same numbers in other spacing read the same.
    let same = read(&text.replace(list, "\t-1\t0x0 1\n2 3 4 5 6 6 6 6 5 11 12 13 14 ")).unwrap();
    assert_eq!(parents(&same), want);
    for (bad, at) in [
        ("-1 0 70000 2 3 4 5 6 6 6 6 5 11 12 13 14\n", "member parentIndices[2]: 70000 is out of range for TYPE_INT16 (-32768 to 32767)"),
        ("-1 0 1 x 3 4 5 6 6 6 6 5 11 12 13 14\n", "member parentIndices[3]: \"x\" is not an integer"),
        ("-1 0 1 2 (3 4) 5 6 6 6 6 5 11 12 13 14\n", "member parentIndices[4]: (3 4) where a single value belongs"),
    ] {
        let e = read(&text.replace(list, bad)).unwrap_err().to_string();
        assert!(e.contains(at), "{bad}: {e}");
    }
}

/// Arrays of plain numbers and vectors are held typed (`Items::Ints`/`UInts`/`Reals`/`Vec4s`, no
/// value per element) by the binary reader and the XML reader alike, and still write back: a
/// 2010.2 HavokLib skeleton, a spline-compressed run and a BotW (Wii U) rigid body, each read from its
/// bytes, written to XML and read back, hold the same arrays in the same forms (the skeleton's
/// parent indices as integers, the animation's blocks as unsigned ones, reals, the shapes'
/// vectors), values equal to the binary reader's, and write the same bytes.
#[test]
fn number_arrays_are_held_typed_and_round_trip() {
    let Some(corpus) = common::corpus() else { return };
    let schemas = schemas();
    // Each document's arrays of typed objects' own members by form: arrays and elements.
    let forms = |doc: &PackfileDocument, n: &mut BTreeMap<&'static str, (usize, usize)>| {
        for o in &doc.objects {
            let Body::Typed(values) = &o.body else { continue };
            for v in values {
                let MemberValue::Array(a) = v else { continue };
                let form = match &a.items {
                    Items::Values(_) => "values",
                    Items::Ints(_) => "ints",
                    Items::UInts(_) => "uints",
                    Items::Reals(_) => "reals",
                    Items::Vec4s(_) => "vec4s",
                };
                let e = n.entry(form).or_default();
                e.0 += 1;
                e.1 += a.len();
            }
        }
    };
    let mut all = BTreeMap::new();
    for rel in [
        "HavokLib/2010_2__allosaur[4101].hkx",
        "HavokLib/2010_2__allosaur_run_S32_V16_B255_D1[4011].hkx",
        "NiceneNerd__UKMM/uk-mod/test/wiiu/content/Actor/Pack/Obj_Mineral_A_01.sbactorpack/RigidBody/Obj_Mineral_A/Obj_Mineral_A_01.hkrb",
    ] {
        let stock = common::corpus_file(&corpus, rel).unwrap_or_else(|| panic!("{rel} in the corpus"));
        let f = hktypes::packfile::PackFile::read(&stock).unwrap();
        let sdk = sdk_of_contents_version(&f.contents_version());
        let doc = PackfileDocument::from_file_with(f, &schemas.sources_for(&sdk)).unwrap();
        let text = xml::write(&doc, WriteOptions::default()).unwrap();
        let back = read_xml(&schemas, text.as_bytes(), &sdk, ReadOptions { layout: doc.layout(), order: ObjectOrder::Xml, ..Default::default() }).unwrap();
        let (mut from_bytes, mut from_xml) = (BTreeMap::new(), BTreeMap::new());
        forms(&doc, &mut from_bytes);
        forms(&back, &mut from_xml);
        assert_eq!(from_bytes, from_xml, "{rel}");
        // Equal values (the forms' equality is by value; compared as values too).
        assert_eq!(back.objects.iter().map(|o| &o.body).collect::<Vec<_>>(), doc.objects.iter().map(|o| &o.body).collect::<Vec<_>>(), "{rel}");
        assert_eq!(back.write().unwrap(), stock, "{rel}");
        assert_eq!(doc.write().unwrap(), stock, "{rel}");
        if rel.ends_with(".hkrb") {
            // A vector that does not read as one (3 numbers, not 4) in the middle of an array read
            // as vectors is reported at its index, as read element by element.
            let at = text.find("<hkparam name=\"planeEquations\"").expect("planeEquations in the rigid body's XML");
            let groups: Vec<usize> = text[at..].match_indices('(').map(|(k, _)| at + k).take(3).collect();
            let end = groups[2] + text[groups[2]..].find(')').unwrap();
            let last = text[groups[2]..end].rfind(' ').unwrap() + groups[2];
            let bad = format!("{}{}", &text[..last], &text[end..]);
            let e = read_xml(&schemas, bad.as_bytes(), &sdk, ReadOptions { layout: doc.layout(), order: ObjectOrder::Xml, ..Default::default() }).unwrap_err().to_string();
            assert!(e.contains("planeEquations[2]: (") && e.contains(") holds 3 numbers, not 4"), "{e}");
        }
        if rel.contains("allosaur[") {
            let skeleton = back.find("hkaSkeleton").next().unwrap();
            let Some(MemberValue::Array(p)) = back.field(skeleton, "parentIndices") else { panic!("parentIndices is an hkArray") };
            let ints = p.ints().expect("parentIndices held as integers");
            assert_eq!((ints.len(), &ints[..3]), (93, &[-1, -1, 1][..]));
            assert_eq!(p.get(2).as_deref(), Some(&MemberValue::Int(1)));
            let Some(MemberValue::Array(f)) = back.field(skeleton, "referenceFloats") else { panic!("referenceFloats is an hkArray") };
            assert_eq!(f.reals().map(<[f32]>::len), Some(3));
        }
        for (form, (arrays, elements)) in from_bytes {
            let e = all.entry(form).or_insert((0, 0));
            e.0 += arrays;
            e.1 += elements;
        }
    }
    eprintln!("{all:?}");
    for form in ["ints", "uints", "reals", "vec4s"] {
        assert!(all.get(form).is_some_and(|&(_, n)| n > 0), "no {form} array with elements: {all:?}");
    }
}
