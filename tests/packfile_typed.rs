//! Packfile objects through the generated structs (`hk2014_2`, `hk2014_1`, `hk2013_1`, `hk2010_2`,
//! `hk5_5`): every corpus packfile
//! of those SDKs read into a document, every object whose class has a struct converted into it
//! and back (replacing its values), the file written again and compared with the stock bytes; and
//! typed edits of a BotW ragdoll through the structs.
#![cfg(all(feature = "hk2014_2", feature = "hk2014_1", feature = "hk2013_1", feature = "hk2010_2", feature = "hk5_5"))]

mod common;

use hkclasses::{hk2010_2, hk2013_1, hk2014_1, hk2014_2, hk5_5};
use hkclasses::packfile_sources_for_sdk;
use hkgen::reflection::check::ClassSchemas;
use hkgen::reflection::sources::sdk_of_contents_version;
use hktypes::packfile::objects::{Body, PackfileDocument};
use hktypes::packfile::typed::{PackClass, StructCounts};
use hktypes::value::{ClassEntry, Ptr};
use hktypes::Document as OneDocument;
use hktypes::Handle;
use std::collections::BTreeMap;

/// Objects that went through a struct in all corpus files of each version, at least: the figures
/// when this test was written (the schemas may grow, the counts may not shrink).
const FLOOR: [(&str, usize); 5] = [
    ("hk_2014.2.0-r1", 1382),
    ("hk_2014.1.0-r1", 26663),
    ("hk_2013.1.0-r1", 85),
    ("hk_2010.2.0-r1", 8687),
    ("Havok-5.5.0-r1", 1894),
];

/// Per version: the corpus packfiles, and how many of them had every object go through its
/// struct (none left as a value or raw, none failed) and came back byte for byte, exactly. 2014.1
/// and 2014.2: all (the objects of files mod tools wrote keep their other padding and places as
/// [`Kept`](hktypes::packfile::objects::Kept)). 2010.2: all but [`NOT_ALL_THROUGH`]. 5.5: all but
/// Demon's Souls' map collision (MapCollisionTemplate_DES.hkx), whose objects are all typed but
/// whose rigid body stays values: its runtime-only (SERIALIZE_IGNORED) hkArrays carry the word
/// `0x80000000` where its stored ones carry 5.5's `len | 0xC0000000`, and a `Vec` keeps no word
/// (tests/map_collision.rs). (Havok 5.5
/// writes an `hkArray`'s capacity word as `len | 0xC0000000`: the document's `array_flags`, which
/// a `Vec` stands for; see [`mixed_array_flags_through_structs`].)
const ALL_THROUGH_STRUCTS: [(&str, usize, usize); 5] = [
    ("hk_2014.2.0-r1", 22, 22),
    ("hk_2014.1.0-r1", 86, 86),
    ("hk_2013.1.0-r1", 18, 18),
    ("hk_2010.2.0-r1", 32, 31),
    ("Havok-5.5.0-r1", 28, 27),
];

/// The one packfile of 2010.2, 2014.1 and 2014.2 whose objects do not all go through their
/// structs, and which `verify` fails: HKX2 wrote every object with an 8-byte word before its
/// class's bytes (its own object number, 84 to 333), where the virtual fixup and every pointer to
/// the object land, so every member sits 8 bytes past the 2010.2 layout, for plain structs
/// (`hkRootLevelContainer`, no vtable) as for virtual classes. No header byte or layout rule
/// declares it, and Havok's loader would read those words as the objects' first members: the
/// file is malformed, not a layout of its own ([`hkx2_objects_begin_with_a_word_outside_their_class`]).
/// 236 objects stay raw; the 14 that happen to read as values hold pointers to objects of the
/// wrong class, which `verify` reports (`bad_pointer`). (Those 14 go through their structs: the
/// 25 hkArrays read from them are empty with the word 0, which the document takes as its array
/// flags.) It round-trips (raw objects and values).
const NOT_ALL_THROUGH: [&str; 1] = ["HKX2-Enhanced-Library/chickenbehavior.hkx"];

fn table(version: &str) -> &'static [ClassEntry] {
    match version {
        "hk_2014.2.0-r1" => hk2014_2::CLASSES,
        "hk_2014.1.0-r1" => hk2014_1::CLASSES,
        "hk_2013.1.0-r1" => hk2013_1::CLASSES,
        "hk_2010.2.0-r1" => hk2010_2::CLASSES,
        "Havok-5.5.0-r1" => hk5_5::CLASSES,
        _ => &[],
    }
}

#[test]
fn corpus_packfiles_round_trip_through_structs() {
    let Some(corpus) = common::corpus() else { return };
    // version -> (files, exact, counts, objects the document typed, classes through structs)
    let mut per: BTreeMap<String, (usize, usize, StructCounts, usize, BTreeMap<String, usize>)> = BTreeMap::new();
    // version -> files whose every object went through its struct and that came back exact
    let mut all_through: BTreeMap<String, usize> = BTreeMap::new();
    let mut bad = Vec::new();
    // Files of 2010.2, 2014.1 and 2014.2 where not every object went through its struct.
    let mut short: Vec<String> = Vec::new();
    for e in common::manifest(&corpus).into_iter().filter(|e| e.format == "packfile") {
        if !FLOOR.iter().any(|(v, _)| *v == e.sdk) {
            continue;
        }
        let bytes = std::fs::read(&e.path).unwrap();
        let f = hktypes::packfile::PackFile::read(&bytes).unwrap();
        let version = f.contents_version();
        let mut doc = PackfileDocument::from_file_with(f, &packfile_sources_for_sdk(&sdk_of_contents_version(&version))).unwrap();
        let typed = doc.counts().typed;
        let before = doc.objects.clone();
        let c = doc.through_structs(table(&version));
        let n = per.entry(version.clone()).or_default();
        n.0 += 1;
        n.2.structs += c.structs;
        n.2.untyped += c.untyped;
        n.2.failed += c.failed;
        n.3 += typed;
        for o in &doc.objects {
            if ClassEntry::find(table(&version), &o.class).is_some() && matches!(o.body, Body::Typed(_)) {
                *n.4.entry(o.class.clone()).or_default() += 1;
            }
        }
        // The structs give back the values they were made from.
        if doc.objects != before {
            let i = doc.objects.iter().zip(&before).position(|(a, b)| a != b).unwrap();
            bad.push(format!("{} object {i} ({}): values changed through its struct", e.relpath, before[i].class));
        }
        if c.failed > 0 {
            let failures: Vec<String> = (0..doc.objects.len())
                .filter_map(|i| {
                    let o = &doc.objects[i];
                    let entry = ClassEntry::find(table(&version), &o.class)?.as_packfile()?;
                    let Body::Typed(v) = &o.body else { return None };
                    let sig_ok = doc.signature_of(Handle(i as u32)) == Some(entry.signature);
                    entry.roundtrip(v).err().filter(|_| sig_ok).map(|err| format!("{}: {err}", o.class))
                })
                .take(3)
                .collect();
            bad.push(format!("{}: {} objects failed to convert: {failures:?}", e.relpath, c.failed));
        }
        match doc.write() {
            Ok(out) if out == bytes => {
                n.1 += 1;
                if ["hk_2010.2.0-r1", "hk_2014.1.0-r1", "hk_2014.2.0-r1"].contains(&version.as_str())
                    && (c.structs != doc.objects.len() || c.failed > 0)
                {
                    short.push(e.relpath.clone());
                }
                if c.structs == doc.objects.len() && c.failed == 0 {
                    *all_through.entry(version.clone()).or_default() += 1;
                }
            }
            Ok(_) => bad.push(format!("{}: written bytes differ", e.relpath)),
            Err(err) => bad.push(format!("{}: write: {err}", e.relpath)),
        }
    }
    for (v, (files, exact, c, typed, classes)) in &per {
        eprintln!(
            "{v}: {exact} of {files} files exact through structs; {} objects through structs ({} classes), {} left dynamic ({typed} read typed by the document), {} failed",
            c.structs,
            classes.len(),
            c.untyped,
            c.failed
        );
    }
    for b in bad.iter().take(40) {
        eprintln!("  {b}");
    }
    let through: Vec<(&str, usize, usize)> = ALL_THROUGH_STRUCTS
        .iter()
        .map(|(v, _, _)| (*v, per.get(*v).map_or(0, |n| n.0), all_through.get(*v).copied().unwrap_or(0)))
        .collect();
    eprintln!("files, and files with every object through its struct: {through:?}");
    assert!(bad.is_empty(), "{} problems", bad.len());
    for (v, floor) in FLOOR {
        let (files, exact, c, _, _) = per.get(v).cloned().unwrap_or_default();
        assert!(files > 0, "{v}: no corpus files");
        assert_eq!(exact, files, "{v}");
        assert!(c.structs > 0 && c.structs >= floor, "{v}: {} objects through structs, expected at least {floor}", c.structs);
        assert_eq!(c.failed, 0, "{v}");
    }
    // Every object of every BotW file goes through a struct.
    assert_eq!(per["hk_2014.2.0-r1"].2.untyped, 0);
    assert_eq!(through, ALL_THROUGH_STRUCTS, "per version: files, files with every object through its struct");
    assert_eq!(short, NOT_ALL_THROUGH);
}

/// Objects of files mod tools wrote keep what their values do not give back (`Kept`), and write
/// back exactly; an edit that keeps sizes keeps the padding, an edit that changes a size lays
/// the rest of its object out the stock way. Pandora's `horse.hkx` pads with 0x7f; Nemesis's
/// staggerback animation puts a string on 16 bytes, not 2; hkxpack's `test-base.hkx` ends inside
/// its one object's 8 bytes.
#[test]
fn kept_bytes_of_mod_tool_files() {
    use hktypes::packfile::objects::{Kept, MemberValue};
    let Some(corpus) = common::corpus() else { return };
    let read = |rel: &str| {
        let bytes = common::corpus_file(&corpus, rel).unwrap();
        let f = hktypes::packfile::PackFile::read(&bytes).unwrap();
        let sdk = sdk_of_contents_version(&f.contents_version());
        let doc = PackfileDocument::from_file_with(f, &packfile_sources_for_sdk(&sdk)).unwrap();
        (bytes, doc)
    };
    let kept = |doc: &PackfileDocument| {
        let objects = doc.objects.iter().filter(|o| !o.kept.is_empty()).count();
        let places = doc.objects.iter().map(|o| o.kept.places.iter().filter(|(f, t)| f != t).count()).sum::<usize>();
        let padding = doc.objects.iter().flat_map(|o| &o.kept.padding).map(|(_, b)| b.len()).sum::<usize>();
        (objects, places, padding)
    };

    let (bytes, mut doc) = read("Pandora-Behaviour-Engine-Plus/horse.hkx");
    assert_eq!((doc.objects.len(), doc.counts().typed), (7, 7));
    assert_eq!(kept(&doc), KEPT_HORSE);
    assert!(doc.objects.iter().flat_map(|o| &o.kept.padding).all(|(_, b)| b.iter().all(|&x| x == 0x7f)));
    assert_eq!(doc.write().unwrap(), bytes);
    let sevens = |b: &[u8]| b.iter().filter(|&&x| x == 0x7f).count();
    // An edit of the same size: only that value's bytes change, the padding stays.
    let root = doc.root.unwrap();
    let Some(MemberValue::Array(variants)) = doc.field_mut(root, "namedVariants") else { panic!("namedVariants") };
    let MemberValue::Struct(v) = &mut variants.values_mut()[0] else { panic!("a variant") };
    let MemberValue::Str(Some(name)) = &mut v[0] else { panic!("a name") };
    let old_name = name.clone();
    name.iter_mut().for_each(|b| *b = b.to_ascii_uppercase());
    let out = doc.write().unwrap();
    assert_eq!(out.len(), bytes.len());
    assert_eq!(out.iter().zip(&bytes).filter(|(a, b)| a != b).count(), old_name.iter().filter(|b| b.is_ascii_lowercase()).count());
    assert_eq!(sevens(&out), sevens(&bytes));
    // A longer name: the root container's data after it is laid out the stock way (zeros), the
    // other objects keep theirs, and the file reads back with the edit.
    let Some(MemberValue::Array(variants)) = doc.field_mut(root, "namedVariants") else { panic!("namedVariants") };
    let MemberValue::Struct(v) = &mut variants.values_mut()[0] else { panic!("a variant") };
    v[0] = MemberValue::Str(Some(b"a much longer name than the one Pandora wrote".to_vec()));
    let out = doc.write().unwrap();
    let root_padding: usize = doc.objects[root.0 as usize].kept.padding.iter().map(|(_, b)| b.len()).sum();
    assert!(sevens(&out) < sevens(&bytes) && sevens(&out) >= sevens(&bytes) - root_padding, "{} of {}", sevens(&out), sevens(&bytes));
    let back = PackfileDocument::from_file_with(hktypes::packfile::PackFile::read(&out).unwrap(), &packfile_sources_for_sdk("2010.2")).unwrap();
    assert_eq!(back.counts().typed, 7);
    assert_eq!(back.field(root, "namedVariants"), doc.field(root, "namedVariants"));
    assert_eq!(back.write().unwrap(), out);

    let (bytes, doc) = read("Project-New-Reign---Nemesis-Main/NAR0_2hw_staggerbacksmallest.hkx");
    assert_eq!((doc.objects.len(), doc.counts().typed), (5, 5));
    assert_eq!(kept(&doc), KEPT_NEMESIS);
    assert_eq!(doc.write().unwrap(), bytes);

    let (bytes, doc) = read("hkxpack/test-base.hkx");
    assert_eq!(doc.objects.len(), 1);
    assert!(matches!(doc.objects[0].body, Body::Typed(_)));
    assert_eq!(doc.objects[0].kept, Kept { places: Vec::new(), end: Some((8, 0)), padding: Vec::new() });
    assert_eq!(doc.write().unwrap(), bytes);
}

/// A hand-built [`Kept`](hktypes::packfile::objects::Kept) the writer cannot follow is an error
/// naming the object, not a wrapped offset, a cut into bytes already written or a 4 GiB
/// allocation: a kept place far past the 32-bit offsets, one 2 MiB past the writer's position
/// (more than any gap the reader keeps), one before it, a kept end far past the 32-bit offsets.
/// The documents as read still write their files back.
#[test]
fn hand_built_kept_offsets_are_errors() {
    let Some(corpus) = common::corpus() else { return };
    let read = |rel: &str| {
        let bytes = common::corpus_file(&corpus, rel).unwrap();
        let f = hktypes::packfile::PackFile::read(&bytes).unwrap();
        let doc = PackfileDocument::from_file_with(f, &packfile_sources_for_sdk("2010.2")).unwrap();
        (bytes, doc)
    };
    let refused = |doc: &PackfileDocument, i: usize, what: &str, edit: &dyn Fn(&mut PackfileDocument)| {
        let mut d = doc.clone();
        edit(&mut d);
        let e = d.write().expect_err(what).to_string();
        assert!(e.contains(&format!("object {i} ({})", doc.objects[i].class)) && e.contains(what), "{e}");
    };

    let (bytes, doc) = read("Project-New-Reign---Nemesis-Main/NAR0_2hw_staggerbacksmallest.hkx");
    let kept: Vec<usize> = (0..doc.objects.len()).filter(|&i| !doc.objects[i].kept.places.is_empty()).collect();
    assert_eq!(kept.len(), 1);
    let i = kept[0];
    let (from, _) = doc.objects[i].kept.places[0];
    refused(&doc, i, "kept place", &|d| d.objects[i].kept.places[0].1 = u32::MAX - 8);
    refused(&doc, i, "kept place", &|d| d.objects[i].kept.places[0].1 = from + (2 << 20));
    refused(&doc, i, "kept place", &|d| d.objects[i].kept.places[0].1 = from - 1);
    assert_eq!(doc.write().unwrap(), bytes);

    let (bytes, doc) = read("hkxpack/test-base.hkx");
    assert_eq!(doc.objects[0].kept.end, Some((8, 0)));
    refused(&doc, 0, "kept end", &|d| d.objects[0].kept.end = Some((8, u32::MAX)));
    assert_eq!(doc.write().unwrap(), bytes);
}

/// (objects with kept data, kept places with padding before the data, kept padding bytes)
const KEPT_HORSE: (usize, usize, usize) = (6, 26, 108);
const KEPT_NEMESIS: (usize, usize, usize) = (1, 107, 0);

/// The packfile document under the one document (for what only a packfile has: its objects'
/// kept bytes, its container).
fn packfile(doc: &OneDocument) -> &PackfileDocument {
    match doc {
        OneDocument::Packfile(d) => d,
        _ => panic!("not a packfile"),
    }
}

fn packfile_mut(doc: &mut OneDocument) -> &mut PackfileDocument {
    match doc {
        OneDocument::Packfile(d) => d,
        _ => panic!("not a packfile"),
    }
}

const RAGDOLL: &str =
    "NiceneNerd__UKMM/uk-mod/test/wiiu/content/Actor/Pack/Enemy_Moriblin_Dark.sbactorpack/Ragdoll/Moriblin_Blue/Moriblin_Blue.hkrg";


/// Edits through the structs: the skeleton's name and a bone, a rigid body's friction and name;
/// the file is laid out again, reads back with the edits, and every other object is unchanged.
#[test]
fn botw_ragdoll_edited_through_structs() {
    use hk2014_2::{hkaRagdollInstance, hkaSkeleton, hkpRigidBody};
    let set = &hk2014_2::SCHEMA;
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, RAGDOLL) else { return };
    let read = |bytes: &[u8]| OneDocument::Packfile(PackfileDocument::read(bytes, set).unwrap());
    let mut doc = read(&bytes);

    // Reading: a ragdoll instance points at its skeleton and bodies.
    let (_, ragdoll) = doc.all::<hkaRagdollInstance>().next().expect("a ragdoll instance");
    let ragdoll = ragdoll.unwrap().into_owned();
    let sk = ragdoll.skeleton.handle().unwrap();
    let skeleton: hkaSkeleton = doc.get::<hkaSkeleton>(sk).unwrap().into_owned();
    assert_eq!(skeleton.name.as_deref(), Some("Ragdoll_Skl_Root"));
    assert!(!skeleton.bones.is_empty() && skeleton.bones.len() == skeleton.parent_indices.len());
    let body_ptr: Ptr<hkpRigidBody> = ragdoll.rigid_bodies[0];
    let rb = body_ptr.handle().unwrap();
    let body: hkpRigidBody = doc.get::<hkpRigidBody>(rb).unwrap().into_owned();
    assert_eq!(hkpRigidBody::NAME, "hkpRigidBody");
    assert_eq!(Some(hkpRigidBody::SIGNATURE), packfile(&doc).signature_of(rb));

    // A struct of another class does not apply.
    let err = doc.get::<hkaSkeleton>(rb).unwrap_err().to_string();
    assert!(err.contains("not a hkaSkeleton"), "{err}");

    // Nor does a struct whose signature is not the one the file stores for the class.
    let mut other = packfile(&doc).clone();
    for sec in &mut other.file.sections {
        if let hktypes::packfile::SectionBody::ClassNames(names) = &mut sec.body {
            names.entries.iter_mut().filter(|e| e.name == "hkaSkeleton").for_each(|e| e.signature ^= 1);
        }
    }
    let skeletons = other.find("hkaSkeleton").count();
    let mut other = OneDocument::Packfile(other);
    let err = other.get::<hkaSkeleton>(sk).unwrap_err().to_string();
    assert!(err.contains("signature"), "{err}");
    assert_eq!(packfile_mut(&mut other).through_structs(hk2014_2::CLASSES).untyped, skeletons);

    // Editing: a longer skeleton name (everything after it moves), a bone name, friction.
    let untouched: Vec<_> = packfile(&doc).objects.clone();
    {
        let mut s = doc.get_mut::<hkaSkeleton>(sk).unwrap();
        s.name = "Ragdoll_Skl_Root_edited_by_hkgen".into();
        s.bones[0].name = "root_edited".into();
        s.reference_pose[0].translation.lanes[1] += 1.0;
    }
    let mut body2 = body.clone();
    body2.material.friction = 0.25;
    body2.name = "edited_body".into();
    *doc.get_mut::<hkpRigidBody>(rb).unwrap() = body2.clone();
    let out = doc.write().unwrap();
    assert_ne!(out, bytes);

    let back = read(&out);
    assert_eq!(back.counts(), doc.counts());
    let s2: hkaSkeleton = back.get::<hkaSkeleton>(sk).unwrap().into_owned();
    assert_eq!(s2.name.as_deref(), Some("Ragdoll_Skl_Root_edited_by_hkgen"));
    assert_eq!(s2.bones[0].name.as_deref(), Some("root_edited"));
    assert_eq!(s2.reference_pose[0].translation.lanes[1], skeleton.reference_pose[0].translation.lanes[1] + 1.0);
    assert_eq!(s2.bones[1..], skeleton.bones[1..]);
    let b2: hkpRigidBody = back.get::<hkpRigidBody>(rb).unwrap().into_owned();
    assert_eq!((b2.material.friction, b2.name.as_deref()), (0.25, Some("edited_body")));
    assert_eq!(b2.motion, body.motion);
    for (i, (a, b)) in packfile(&back).objects.iter().zip(&untouched).enumerate() {
        if i != sk.0 as usize && i != rb.0 as usize {
            assert_eq!(a, b, "object {i} ({})", a.class);
        }
    }
    // A new object: a copy of the edited body, appended and pointed at by the ragdoll.
    let mut grown = read(&out);
    let n = grown.handles().len();
    let new = grown.add(b2.clone()).unwrap();
    assert_eq!(new, Handle(n as u32));
    let rh = grown.find("hkaRagdollInstance")[0];
    grown.get_mut::<hkaRagdollInstance>(rh).unwrap().rigid_bodies.push(Ptr::to(new));
    let grown_bytes = grown.write().unwrap();
    let reread = read(&grown_bytes);
    assert_eq!(reread.handles().len(), n + 1);
    let r = reread.get::<hkaRagdollInstance>(rh).unwrap();
    assert_eq!(r.rigid_bodies.last().and_then(|p| p.handle()), Some(new));
    assert_eq!(*reread.get::<hkpRigidBody>(new).unwrap(), b2);
    assert!(grown.add(hk2014_2::hkaBone { name: "x".into(), lock_translation: hktypes::value::Bool8(0) }).is_err());

    // Undoing the edits gives the stock file back.
    let mut undo = back;
    *undo.get_mut::<hkaSkeleton>(sk).unwrap() = skeleton;
    *undo.get_mut::<hkpRigidBody>(rb).unwrap() = body;
    assert_eq!(undo.write().unwrap(), bytes);
    // The edited file converts to Switch through the same structs.
    let sw = read(&out).write_as(Some(hktypes::packfile::LayoutRules::SWITCH)).unwrap();
    let on_switch = read(&sw);
    assert_eq!(on_switch.layout().map(|l| l.pointer_size), Some(8));
    assert_eq!(*on_switch.get::<hkaSkeleton>(sk).unwrap(), s2);
}

/// An enum member through its marker type: the item's name comes from the class schema.
#[test]
fn botw_enum_members_name_their_items() {
    use hk2014_2::hkpRigidBody;
    let set = &hk2014_2::SCHEMA;
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, RAGDOLL) else { return };
    let doc = OneDocument::Packfile(PackfileDocument::read(&bytes, set).unwrap());
    let (_, body) = doc.all::<hkpRigidBody>().next().unwrap();
    let body = body.unwrap();
    let motion_type = body.motion.r#type;
    assert!(motion_type.name().is_some(), "{motion_type:?}");
}

/// `hkgen verify` counts the objects that went through generated structs.
#[test]
fn verify_reports_objects_through_structs() {
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, RAGDOLL) else { return };
    let verifier = hkgen::verify::Verifier {
        class_schemas: ClassSchemas::load(&common::workspace_root().join("schemas")).unwrap(),
        classes: hkclasses::classes_for_sdk,
        ..Default::default()
    };
    let r = verifier.verify(RAGDOLL, &bytes, &Default::default());
    assert!(r.ok, "{:?}", r.error);
    assert_eq!(r.structs, r.items);
    assert_eq!(r.typed_roundtrip, Some("exact"));
    // Without structs the field is absent.
    let plain = hkgen::verify::Verifier { class_schemas: verifier.class_schemas.clone(), ..Default::default() };
    assert_eq!(plain.verify(RAGDOLL, &bytes, &Default::default()).structs, None);
}

/// Dark Souls III's c1400 (a 2014.1 packfile of 19 `hknpCapsuleShape`s, whose vertices, planes,
/// faces and indices are `hkRelArray`s inside the object).
const CAPSULES: &str = "monaxiastr__MonaxiaSouls/MonaxiaSouls/chr/c1400.chrbnd/chr/c1400/c1400.HKX";

/// `hkRelArray` members through the structs: read, edited (a vertex moved, an index added, which
/// moves the elements after it), written, read back; undoing the edit gives the stock bytes.
#[test]
fn relative_arrays_through_structs() {
    use hk2014_1::hknpCapsuleShape;
    let Some(corpus) = common::corpus() else { return };
    let set = &hk2014_1::SCHEMA;
    let bytes = std::fs::read(corpus.join(CAPSULES)).unwrap();
    let read = |bytes: &[u8]| OneDocument::Packfile(PackfileDocument::read(bytes, set).unwrap());
    let mut doc = read(&bytes);
    let capsules: Vec<_> = doc.all::<hknpCapsuleShape>().map(|(h, c)| (h, c.unwrap().into_owned())).collect();
    assert_eq!(capsules.len(), 19);
    let (h, stock) = capsules[0].clone();
    assert!(!stock.vertices.is_empty() && !stock.planes.is_empty() && !stock.faces.is_empty() && !stock.indices.is_empty());
    let face_indices: usize = stock.faces.iter().map(|f| usize::from(f.num_indices)).sum();
    assert_eq!(face_indices, stock.indices.len(), "the faces use every index");

    let mut edited = stock.clone();
    edited.vertices[0].lanes[0] += 1.0;
    edited.indices.push(0);
    *doc.get_mut::<hknpCapsuleShape>(h).unwrap() = edited.clone();
    let out = doc.write().unwrap();
    assert_ne!(out, bytes);
    let back = read(&out);
    assert_eq!(*back.get::<hknpCapsuleShape>(h).unwrap(), edited);
    for (k, (other, c)) in capsules.iter().enumerate().skip(1) {
        assert_eq!(&*back.get::<hknpCapsuleShape>(*other).unwrap(), c, "capsule {k}");
    }
    let mut undo = back;
    *undo.get_mut::<hknpCapsuleShape>(h).unwrap() = stock;
    assert_eq!(undo.write().unwrap(), bytes);
}

/// `fsnpCustomMeshParameter`, whose schema marks it `hidden_members` (4 bytes after `version`
/// that its reflection does not describe): every corpus object goes through the struct with
/// those bytes (and the 4 of padding before its first member) in `hidden_bytes` (zero in all 35;
/// 9 of them are objects whose arrays start on 8 bytes, not 16, which the document keeps); hidden
/// bytes an edit sets are written and read back; under other layout rules, which leave no room
/// for them, writing is an error that names the class.
#[test]
fn hidden_bytes_through_structs() {
    use hk2014_1::fsnpCustomMeshParameter;
    use hktypes::packfile::objects::ArrayAlign;
    let Some(corpus) = common::corpus() else { return };
    let set = &hk2014_1::SCHEMA;
    let (mut objects, mut eight) = (0, 0);
    let mut smallest: Option<(Vec<u8>, Handle, fsnpCustomMeshParameter)> = None;
    for e in common::manifest(&corpus).into_iter().filter(|e| e.format == "packfile" && e.sdk == "hk_2014.1.0-r1") {
        let bytes = std::fs::read(&e.path).unwrap();
        let doc = OneDocument::Packfile(PackfileDocument::read(&bytes, set).unwrap());
        for (h, p) in doc.all::<fsnpCustomMeshParameter>() {
            let p = p.unwrap_or_else(|err| panic!("{}: {err}", e.relpath)).into_owned();
            assert_eq!(p.hidden_bytes.0, [0; 8], "{}", e.relpath);
            objects += 1;
            eight += usize::from(packfile(&doc).objects[h.0 as usize].array_align == ArrayAlign::Eight);
            if smallest.as_ref().is_none_or(|(b, _, _)| bytes.len() < b.len()) {
                smallest = Some((bytes.clone(), h, p));
            }
        }
    }
    assert_eq!((objects, eight), (35, 9));
    let (bytes, h, p) = smallest.unwrap();
    let mut doc = OneDocument::Packfile(PackfileDocument::read(&bytes, set).unwrap());
    let mut edited = p.clone();
    edited.version += 1;
    edited.hidden_bytes.0 = vec![1, 2, 3, 4, 5, 6, 7, 8];
    *doc.get_mut::<fsnpCustomMeshParameter>(h).unwrap() = edited.clone();
    let out = doc.write().unwrap();
    let back = OneDocument::Packfile(PackfileDocument::read(&out, set).unwrap());
    assert_eq!(*back.get::<fsnpCustomMeshParameter>(h).unwrap(), edited);
    let err = doc.write_as(Some(hktypes::packfile::LayoutRules::parse("4,1,0,1").unwrap())).unwrap_err().to_string();
    assert!(err.contains("fsnpCustomMeshParameter") && err.contains("hidden bytes"), "{err}");
    // Hidden bytes of another length do not write.
    edited.hidden_bytes.0.pop();
    *doc.get_mut::<fsnpCustomMeshParameter>(h).unwrap() = edited;
    assert!(doc.write().unwrap_err().to_string().contains("7 hidden bytes where the layout leaves 8"));
}

/// The compiled-in class descriptions (`hkclasses::<sdk>::SCHEMA`, which the tests above read
/// with) hold exactly what the committed snapshots under `schemas/<sdk>/classes/` give at run
/// time: every class, every recomputed signature, every enum; and `packfile_sources_for_sdk`
/// orders the SDKs as `ClassSchemas::sources_for` does.
#[test]
fn compiled_in_classes_equal_the_snapshots() {
    let schemas = ClassSchemas::load(&common::workspace_root().join("schemas")).unwrap();
    let mut counts = Vec::new();
    for compiled in hkclasses::PACKFILE_SCHEMAS {
        let from_disk = schemas.class_set(compiled.sdk).unwrap();
        let built = compiled.to_class_set();
        assert_eq!(built.classes, from_disk.classes, "{}", compiled.sdk);
        assert_eq!(built.signatures, from_disk.signatures, "{}", compiled.sdk);
        assert_eq!(built.enums, from_disk.enums, "{}", compiled.sdk);
        counts.push((compiled.sdk, compiled.classes.len(), compiled.classes.iter().filter(|c| c.signature.is_some()).count()));
        let order = |sources: Vec<&dyn hktypes::packfile::layout::ClassSource>| -> Vec<Option<u32>> {
            sources.iter().map(|s| s.signature("hkBaseObject").or(s.signature("hkReferencedObject"))).collect()
        };
        assert_eq!(order(packfile_sources_for_sdk(compiled.sdk)), order(schemas.sources_for(compiled.sdk)), "{}", compiled.sdk);
    }
    // 6.6, 7.1 and 2011.1 (their own features): tests/packfile_old_sdks.rs counts them.
    counts.retain(|c| !["6.6", "7.1", "2011.1"].contains(&c.0));
    assert_eq!(counts, COMPILED_IN);
}

/// Per packfile SDK: classes compiled in, and how many of them have a recomputed signature.
const COMPILED_IN: [(&str, usize, usize); 5] =
    [("5.5", 102, 102), ("2010.2", 680, 680), ("2013.1", 23, 23), ("2014.1", 1365, 1359), ("2014.2", 984, 981)];

/// What HKX2 did to `chickenbehavior.hkx` ([`NOT_ALL_THROUGH`]): each of its 250 objects starts
/// with an 8-byte word outside its class, holding a distinct number from 84 to 333; its
/// `hkRootLevelContainer` (a plain struct whose array pointer is its first member) has its local
/// fixup at +8 and none at +0; every pointer into `__data__` names such a word. A stock Skyrim SE
/// behaviour of the same layout rules (Pandora's `dogbehavior.hkx`) has its root's fixup at +0.
#[test]
fn hkx2_objects_begin_with_a_word_outside_their_class() {
    let Some(corpus) = common::corpus() else { return };
    // The `__data__` bytes, object starts, local fixup sources and global fixup targets.
    type Data = (Vec<u8>, std::collections::BTreeSet<u32>, std::collections::BTreeSet<u32>, Vec<(u32, u32)>);
    let data = |rel: &str| -> Data {
        let bytes = common::corpus_file(&corpus, rel).unwrap();
        let f = hktypes::packfile::PackFile::read(&bytes).unwrap();
        let sec = f.sections.iter().find(|s| !s.virtuals.is_empty()).unwrap();
        (
            sec.data().unwrap().to_vec(),
            sec.virtuals.iter().map(|v| v.src).collect(),
            sec.local.iter().map(|l| l.src).collect(),
            sec.global.iter().map(|g| (g.section, g.dst)).collect(),
        )
    };
    let (bytes, starts, locals, globals) = data(NOT_ALL_THROUGH[0]);
    let mut words: Vec<u64> = starts.iter().map(|&s| u64::from_le_bytes(bytes[s as usize..s as usize + 8].try_into().unwrap())).collect();
    words.sort_unstable();
    assert_eq!(words, (84..=333).collect::<Vec<u64>>());
    assert!(!locals.contains(&0) && locals.contains(&8));
    let into_data: Vec<u32> = globals.iter().filter(|g| g.0 == 2).map(|g| g.1).collect();
    assert_eq!(into_data.len(), 280);
    assert!(into_data.iter().all(|d| starts.contains(d)));

    let (_, _, stock_locals, _) = data("Pandora-Behaviour-Engine-Plus/dogbehavior.hkx");
    assert!(stock_locals.contains(&0));
}

/// A 5.5 file whose hkArrays carry Havok 5.5's `len | 0xC0000000` goes through its structs: the
/// document's flags are the file's. With one word made `len | 0x80000000` (mixed flags) the
/// object that holds it stays values, the others go through, and the file writes back exactly;
/// the struct of the stock object stored into it gives its arrays 5.5's words again.
#[test]
fn mixed_array_flags_through_structs() {
    use hktypes::packfile::objects::MemberValue;
    let Some(corpus) = common::corpus() else { return };
    let Some(stock) = common::corpus_file(&corpus, "HavokLib/550__allosaur_run_S32_V16_B255_D1[4101].hkx") else { return };
    let read = |b: &[u8]| PackfileDocument::from_file_with(hktypes::packfile::PackFile::read(b).unwrap(), &packfile_sources_for_sdk("5.5")).unwrap();
    let mut doc = read(&stock);
    assert_eq!(doc.array_flags, 0xC000_0000);
    let n = doc.objects.len();
    let c = doc.through_structs(hk5_5::CLASSES);
    assert_eq!((c.structs, c.untyped, c.failed), (n, 0, 0));
    assert_eq!(doc.write().unwrap(), stock);

    let spline = doc.find("hkaSplineSkeletalAnimation").next().unwrap();
    let Some(MemberValue::Array(a)) = doc.field_mut(spline, "floatOffsets") else { panic!("floatOffsets") };
    assert_eq!((a.items.len(), a.capacity), (0, 0xC000_0000));
    a.capacity = 0x8000_0000;
    let mixed = doc.write().unwrap();
    let mut doc = read(&mixed);
    assert_eq!(doc.array_flags, 0xC000_0000);
    let c = doc.through_structs(hk5_5::CLASSES);
    assert_eq!((c.structs, c.untyped, c.failed), (n - 1, 1, 0));
    assert_eq!(doc.write().unwrap(), mixed);
    let mut doc = OneDocument::Packfile(doc);
    let err = doc.get::<hk5_5::hkaSplineSkeletalAnimation>(spline).unwrap_err().to_string();
    assert!(err.contains("hkArray whose capacity word is not its length | 0xc0000000"), "{err}");
    let s = OneDocument::Packfile(read(&stock)).get::<hk5_5::hkaSplineSkeletalAnimation>(spline).unwrap().into_owned();
    // `set` replaces values no struct converts.
    doc.set(spline, s).unwrap();
    assert_eq!(doc.write().unwrap(), stock);
}
