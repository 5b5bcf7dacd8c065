//! Packfile objects through the generated structs (`hk2014_2`, `hk2014_1`, `hk2013_1`, `hk2010_2`,
//! `hk5_5`): every corpus packfile
//! of those SDKs read into a document, every object whose class has a struct converted into it
//! and back (replacing its values), the file written again and compared with the stock bytes; and
//! typed edits of a BotW ragdoll through the structs.
#![cfg(all(feature = "hk2014_2", feature = "hk2014_1", feature = "hk2013_1", feature = "hk2010_2", feature = "hk5_5"))]

mod common;

use hkclasses::{hk2010_2, hk2013_1, hk2014_1, hk2014_2, hk5_5};
use hkgen::reflection::check::ClassSchemas;
use hkgen::reflection::sources::sdk_of_contents_version;
use hktypes::packfile::objects::{Body, Document, Handle};
use hktypes::packfile::typed::{ClassEntry, PackClass, Ptr, StructCounts};
use std::collections::BTreeMap;

/// Objects that went through a struct in all corpus files of each version, at least: the figures
/// when this test was written (the schemas may grow, the counts may not shrink).
const FLOOR: [(&str, usize); 5] = [
    ("hk_2014.2.0-r1", 1382),
    ("hk_2014.1.0-r1", 26608),
    ("hk_2013.1.0-r1", 85),
    ("hk_2010.2.0-r1", 436),
    ("Havok-5.5.0-r1", 1841),
];

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
    let schemas = ClassSchemas::load(&common::workspace_root().join("schemas")).unwrap();
    // version -> (files, exact, counts, objects the document typed, classes through structs)
    let mut per: BTreeMap<String, (usize, usize, StructCounts, usize, BTreeMap<String, usize>)> = BTreeMap::new();
    let mut bad = Vec::new();
    for e in common::manifest(&corpus).into_iter().filter(|e| e.format == "packfile") {
        if !FLOOR.iter().any(|(v, _)| *v == e.sdk) {
            continue;
        }
        let bytes = std::fs::read(&e.path).unwrap();
        let f = hktypes::packfile::PackFile::read(&bytes).unwrap();
        let version = f.contents_version();
        let mut doc = Document::from_file_with(f, &schemas.sources_for(&sdk_of_contents_version(&version))).unwrap();
        let typed = doc.counts().typed;
        let before = doc.objects.clone();
        let c = doc.through_structs(table(&version));
        let n = per.entry(version.clone()).or_default();
        n.0 += 1;
        n.2.structs += c.structs;
        n.2.dynamic += c.dynamic;
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
                    let entry = ClassEntry::find(table(&version), &o.class)?;
                    let Body::Typed(v) = &o.body else { return None };
                    let sig_ok = doc.signature_of(Handle(i as u32)) == Some(entry.signature);
                    (entry.roundtrip)(v).err().filter(|_| sig_ok).map(|err| format!("{}: {err}", o.class))
                })
                .take(3)
                .collect();
            bad.push(format!("{}: {} objects failed to convert: {failures:?}", e.relpath, c.failed));
        }
        match doc.write() {
            Ok(out) if out == bytes => n.1 += 1,
            Ok(_) => bad.push(format!("{}: written bytes differ", e.relpath)),
            Err(err) => bad.push(format!("{}: write: {err}", e.relpath)),
        }
    }
    for (v, (files, exact, c, typed, classes)) in &per {
        eprintln!(
            "{v}: {exact} of {files} files exact through structs; {} objects through structs ({} classes), {} left dynamic ({typed} read typed by the document), {} failed",
            c.structs,
            classes.len(),
            c.dynamic,
            c.failed
        );
    }
    for b in bad.iter().take(40) {
        eprintln!("  {b}");
    }
    assert!(bad.is_empty(), "{} problems", bad.len());
    for (v, floor) in FLOOR {
        let (files, exact, c, _, _) = per.get(v).cloned().unwrap_or_default();
        assert!(files > 0, "{v}: no corpus files");
        assert_eq!(exact, files, "{v}");
        assert!(c.structs > 0 && c.structs >= floor, "{v}: {} objects through structs, expected at least {floor}", c.structs);
        assert_eq!(c.failed, 0, "{v}");
    }
    // Every object of every BotW file goes through a struct.
    assert_eq!(per["hk_2014.2.0-r1"].2.dynamic, 0);
}

const RAGDOLL: &str =
    "NiceneNerd__UKMM/uk-mod/test/wiiu/content/Actor/Pack/Enemy_Moriblin_Dark.sbactorpack/Ragdoll/Moriblin_Blue/Moriblin_Blue.hkrg";


/// Edits through the structs: the skeleton's name and a bone, a rigid body's friction and name;
/// the file is laid out again, reads back with the edits, and every other object is unchanged.
#[test]
fn botw_ragdoll_edited_through_structs() {
    use hk2014_2::{hkaRagdollInstance, hkaSkeleton, hkpRigidBody};
    let schemas = ClassSchemas::load(&common::workspace_root().join("schemas")).unwrap();
    let set = schemas.class_set("2014.2").unwrap();
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, RAGDOLL) else { return };
    let mut doc = Document::read(&bytes, set).unwrap();

    // Reading: a ragdoll instance points at its skeleton and bodies.
    let (_, ragdoll) = doc.all::<hkaRagdollInstance>().next().expect("a ragdoll instance");
    let ragdoll = ragdoll.unwrap();
    let skeleton: hkaSkeleton = doc.follow(ragdoll.skeleton).unwrap();
    assert_eq!(skeleton.name.as_deref(), Some("Ragdoll_Skl_Root"));
    assert!(!skeleton.bones.is_empty() && skeleton.bones.len() == skeleton.parent_indices.len());
    let sk = ragdoll.skeleton.handle().unwrap();
    let body_ptr: Ptr<hkpRigidBody> = ragdoll.rigid_bodies[0];
    let rb = body_ptr.handle().unwrap();
    let body: hkpRigidBody = doc.get(rb).unwrap();
    assert_eq!(hkpRigidBody::NAME, "hkpRigidBody");
    assert_eq!(Some(hkpRigidBody::SIGNATURE), doc.signature_of(rb));

    // A struct of another class does not apply.
    let err = doc.get::<hkaSkeleton>(rb).unwrap_err().to_string();
    assert!(err.contains("not a hkaSkeleton"), "{err}");

    // Nor does a struct whose signature is not the one the file stores for the class.
    let mut other = doc.clone();
    for sec in &mut other.file.sections {
        if let hktypes::packfile::Body::ClassNames(names) = &mut sec.body {
            names.entries.iter_mut().filter(|e| e.name == "hkaSkeleton").for_each(|e| e.signature ^= 1);
        }
    }
    let err = other.get::<hkaSkeleton>(sk).unwrap_err().to_string();
    assert!(err.contains("signature"), "{err}");
    let skeletons = other.find("hkaSkeleton").count();
    assert_eq!(other.through_structs(hk2014_2::CLASSES).dynamic, skeletons);

    // Editing: a longer skeleton name (everything after it moves), a bone name, friction.
    let untouched: Vec<_> = doc.objects.clone();
    doc.update::<hkaSkeleton, _>(sk, |s| {
        s.name = "Ragdoll_Skl_Root_edited_by_hkgen".into();
        s.bones[0].name = "root_edited".into();
        s.reference_pose[0].translation.lanes[1] += 1.0;
    })
    .unwrap();
    let mut body2 = body.clone();
    body2.material.friction = 0.25;
    body2.name = "edited_body".into();
    doc.set(rb, &body2).unwrap();
    let out = doc.write().unwrap();
    assert_ne!(out, bytes);

    let back = Document::read(&out, set).unwrap();
    assert_eq!(back.counts(), doc.counts());
    let s2: hkaSkeleton = back.get(sk).unwrap();
    assert_eq!(s2.name.as_deref(), Some("Ragdoll_Skl_Root_edited_by_hkgen"));
    assert_eq!(s2.bones[0].name.as_deref(), Some("root_edited"));
    assert_eq!(s2.reference_pose[0].translation.lanes[1], skeleton.reference_pose[0].translation.lanes[1] + 1.0);
    assert_eq!(s2.bones[1..], skeleton.bones[1..]);
    let b2: hkpRigidBody = back.get(rb).unwrap();
    assert_eq!((b2.material.friction, b2.name.as_deref()), (0.25, Some("edited_body")));
    assert_eq!(b2.motion, body.motion);
    for (i, (a, b)) in back.objects.iter().zip(&untouched).enumerate() {
        if i != sk.0 as usize && i != rb.0 as usize {
            assert_eq!(a, b, "object {i} ({})", a.class);
        }
    }
    // A new object: a copy of the edited body, appended and pointed at by the ragdoll.
    let mut grown = Document::read(&out, set).unwrap();
    let n = grown.objects.len();
    let new = grown.push(&b2).unwrap();
    assert_eq!(new, Handle(n as u32));
    let rh = grown.find("hkaRagdollInstance").next().unwrap();
    grown.update::<hkaRagdollInstance, _>(rh, |r| r.rigid_bodies.push(Ptr::to(new))).unwrap();
    let grown_bytes = grown.write().unwrap();
    let reread = Document::read(&grown_bytes, set).unwrap();
    assert_eq!(reread.objects.len(), n + 1);
    let r: hkaRagdollInstance = reread.get(rh).unwrap();
    assert_eq!(r.rigid_bodies.last().and_then(|p| p.handle()), Some(new));
    assert_eq!(reread.get::<hkpRigidBody>(new).unwrap(), b2);
    assert!(grown.push(&hk2014_2::hkaBone { name: "x".into(), lock_translation: hktypes::value::Bool8(0) }).is_err());

    // Undoing the edits gives the stock file back.
    let mut undo = back;
    undo.set(sk, &skeleton).unwrap();
    undo.set(rb, &body).unwrap();
    assert_eq!(undo.write().unwrap(), bytes);
    // The edited file converts to Switch through the same structs.
    let sw = Document::read(&out, set).unwrap().write_as(hktypes::packfile::LayoutRules::SWITCH).unwrap();
    let on_switch = Document::read(&sw, set).unwrap();
    assert_eq!(on_switch.layout().pointer_size, 8);
    assert_eq!(on_switch.get::<hkaSkeleton>(sk).unwrap(), s2);
}

/// An enum member through its marker type: the item's name comes from the class schema.
#[test]
fn botw_enum_members_name_their_items() {
    use hk2014_2::hkpRigidBody;
    let schemas = ClassSchemas::load(&common::workspace_root().join("schemas")).unwrap();
    let set = schemas.class_set("2014.2").unwrap();
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, RAGDOLL) else { return };
    let doc = Document::read(&bytes, set).unwrap();
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
        packfile_classes: hkclasses::packfile_classes_for_sdk,
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
