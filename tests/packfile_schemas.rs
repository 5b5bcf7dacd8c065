//! The committed hkClass schemas under `schemas/<sdk>/classes/` (2014.2, 2014.1, 2013.1) are what
//! `reflection::sources::extract` makes of the corpus and the class data, byte for byte (on a
//! mismatch the fresh files are written under `target/tmp/snapshot-mismatch/classes/` for review,
//! never into `schemas/`, and the test fails saying where); and a
//! snapshot read back alone recomputes every signature it records.

mod common;

use hkgen::reflection::{signature, snapshot, sources};
use std::path::PathBuf;

fn schemas_dir() -> PathBuf {
    common::workspace_root().join("schemas")
}

#[test]
fn committed_class_schemas_equal_a_fresh_extraction() {
    let Some(corpus) = common::snapshot_corpus() else { return };
    let ex = sources::extract(&common::class_inputs(&corpus)).unwrap();
    for (sdk, names) in &ex.unresolved {
        let s = ex.schemas.iter().find(|s| s.sdk == *sdk).unwrap();
        eprintln!("{sdk}: {} classes; {} classes of its files unresolved: {}", s.classes.len(), names.len(), names.join(", "));
    }
    let dir = schemas_dir();
    let mut changed = Vec::new();
    for s in &ex.schemas {
        let root = snapshot::folder(&dir, &s.sdk);
        for (rel, text) in snapshot::render(s).unwrap() {
            if std::fs::read_to_string(root.join(&rel)).ok().as_deref() != Some(text.as_str()) {
                changed.push(format!("{}/classes/{}", s.sdk, rel.display()));
            }
        }
        let have = std::fs::read_dir(&root).map(|d| d.count()).unwrap_or(0);
        if have != snapshot::render(s).unwrap().len() {
            changed.push(format!("{}/classes/ (file count)", s.sdk));
        }
    }
    if changed.is_empty() {
        return; // not-a-skip: the schemas are equal
    }
    // The fresh schemas go under target/ for review, never into schemas/.
    let out = common::mismatch_dir("classes");
    for s in &ex.schemas {
        snapshot::write(&out, s).unwrap();
    }
    panic!(
        "schemas/*/classes differ from a fresh extraction in {} files: {}\nthe fresh class schemas are in {} \
         (compare with `diff -r schemas/<sdk>/classes {}/<sdk>/classes`)",
        changed.len(),
        changed.join(", "),
        out.display(),
        out.display()
    );
}

#[test]
fn class_snapshots_recompute_their_signatures() {
    let dir = schemas_dir();
    let sdks = snapshot::list(&dir).unwrap();
    for sdk in sdks {
        let s = snapshot::read(&dir, &sdk).unwrap();
        let with: Vec<_> = s.classes.values().filter(|c| c.signature.is_some()).collect();
        let ok = with.iter().filter(|c| signature::class_signature(&s, &c.name) == Ok(c.signature.unwrap().0)).count();
        eprintln!("schemas/{sdk}/classes: {} classes, {ok} of {} recorded signatures recompute", s.classes.len(), with.len());
        // Round trip of the files themselves.
        let again = snapshot::render(&s).unwrap();
        for (rel, text) in again {
            assert_eq!(std::fs::read_to_string(snapshot::folder(&dir, &sdk).join(&rel)).unwrap(), text, "{sdk}/{}", rel.display());
        }
    }
}

/// `check_packfile` over the corpus with the committed class schemas: what `hkgen verify` will
/// report per contents version (signatures stored and matched, round trips exact), and a
/// difference is located.
#[test]
fn packfile_checks_with_the_committed_schemas() {
    use hkgen::reflection::check::{check_packfile, ClassSchemas};
    let Some(corpus) = common::corpus() else { return };
    let schemas = ClassSchemas::load(&schemas_dir()).unwrap();
    let mut per: std::collections::BTreeMap<String, [usize; 4]> = Default::default();
    let mut example = None;
    for e in common::manifest(&corpus).into_iter().filter(|e| e.format == "packfile") {
        let bytes = std::fs::read(&e.path).unwrap();
        let r = check_packfile(&bytes, &schemas).unwrap();
        let n = per.entry(r.contents_version.clone()).or_default();
        n[0] += 1;
        n[1] += usize::from(r.roundtrip == "exact");
        n[2] += r.signatures_stored;
        n[3] += r.signatures_matched;
        if example.is_none() {
            example = Some(bytes);
        }
    }
    for (v, [files, exact, stored, matched]) in &per {
        eprintln!("{v:<16} {files:>4} files, {exact:>4} round trips exact, signatures {matched}/{stored}");
    }
    assert!(per.values().all(|n| n[0] == n[1]));
    // Every stored signature of the four packfile SDKs with complete class schemas recomputes (see
    // tests/packfile_signatures.rs and tests/class_sources.rs), and the corpus stores this many.
    for (v, stored) in [("hk_2014.2.0-r1", 489), ("hk_2014.1.0-r1", 1018), ("hk_2013.1.0-r1", 157), ("hk_2010.2.0-r1", 476)] {
        let n = per[v];
        assert_eq!((n[2], n[3]), (stored, stored), "{v}");
    }
    // Whatever reads writes back the same (the reader keeps every byte it does not derive), so
    // a difference can only come from a changed part; `locate` names where one would be.
    let bytes = example.unwrap();
    let f = hktypes::packfile::PackFile::read(&bytes).unwrap();
    let h = f.header.byte_len() as u64;
    assert_eq!(hkgen::reflection::check::locate(&f, 0x11), "header +0x11");
    assert!(hkgen::reflection::check::locate(&f, h + 0x14).starts_with("section header 0 (__classnames__)"));
    let plan = hktypes::packfile::write::plan(&f).unwrap();
    let data = &plan.sections[2];
    let at = u64::from(data.start) + u64::from(data.offsets[0]) + 4;
    assert_eq!(hkgen::reflection::check::locate(&f, at), "__data__ local fixups +0x4");
}

/// The two 2014.1 classes whose struct needed a class DSMapStudio lacks. `hkpSimpleShapePhantom`:
/// its element class `hkpSimpleShapePhantomCollisionDetail`, whose 2010.2 and 2014.2 records
/// both recompute the `0x9b09059f` DSMapStudio states for it, so extraction borrows the 2014.2
/// record and the class gets its signature. `hkbnpPhysicsInterface`: its parent
/// `hkbPhysicsInterface` is in no source, so it still recomputes nothing and has no struct.
#[test]
fn classes_of_2014_1_that_need_a_class_dsmapstudio_lacks() {
    let dir = schemas_dir();
    let ds3 = snapshot::read(&dir, "2014.1").unwrap();
    assert_eq!(signature::class_signature(&ds3, "hkpSimpleShapePhantom").ok(), Some(0x9b09059f));
    let mut computed = Vec::new();
    for other in ["2010.2", "2014.2"] {
        let from = snapshot::read(&dir, other).unwrap();
        let mut borrowed = ds3.clone();
        borrowed.classes.remove("hkpSimpleShapePhantomCollisionDetail");
        assert!(signature::class_signature(&borrowed, "hkpSimpleShapePhantom").is_err());
        let detail = from.classes["hkpSimpleShapePhantomCollisionDetail"].clone();
        borrowed.classes.insert(detail.name.clone(), detail);
        computed.push(signature::class_signature(&borrowed, "hkpSimpleShapePhantom").ok());
    }
    assert_eq!(computed, [Some(0x9b09059f), Some(0x9b09059f)]);
    assert_eq!(ds3.classes["hkbnpPhysicsInterface"].parent.as_deref(), Some("hkbPhysicsInterface"));
    assert!(!ds3.classes.contains_key("hkbPhysicsInterface"));
    assert!(signature::class_signature(&ds3, "hkbnpPhysicsInterface").is_err());
}
