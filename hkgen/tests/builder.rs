//! The Builder's selection on the committed snapshots: the classes asked for and what they hold,
//! errors that name what is wrong. `builder_crate.rs` compiles a selection in a crate of its own.

use hkgen::builder::{BuildError, Builder};
use hkgen::schema::{snapshot, Schema};
use std::path::{Path, PathBuf};

fn schemas() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas")
}

fn sdk_2018() -> Schema {
    snapshot::read(&schemas().join("2018.1")).unwrap()
}

#[test]
fn a_class_brings_its_bases_members_and_pointees() {
    let s = sdk_2018();
    let sub = Builder::new().classes(["hknpRagdollData"]).select(&s).unwrap();
    for k in ["hknpRagdollData", "hknpPhysicsSystemData", "hkReferencedObject", "hknpBodyCinfo", "hknpMaterial", "hkaSkeleton", "hknpShape"] {
        assert!(sub.types.contains_key(k), "{k}");
    }
    assert!(!sub.types.contains_key("hknpWorldCinfo"));
    assert!(sub.types.len() < s.types.len() / 10, "{} of {}", sub.types.len(), s.types.len());
    // Without pointers: the skeleton and the shapes are left out, the bodies stay.
    let flat = Builder::new().classes(["hknpRagdollData"]).follow_pointers(false).select(&s).unwrap();
    assert!(flat.types.contains_key("hknpBodyCinfo") && flat.types.contains_key("hkReferencedObject"));
    assert!(!flat.types.contains_key("hkaSkeleton") && !flat.types.contains_key("hknpShape"));
    // Excluding a pointee is allowed.
    let ex = Builder::new().classes(["hknpRagdollData"]).exclude(["hka*"]).select(&s).unwrap();
    assert!(!ex.types.contains_key("hkaSkeleton") && ex.types.contains_key("hknpShape"));
}

#[test]
fn globs_select_by_havok_name() {
    let s = sdk_2018();
    let sub = Builder::new().classes(["hkaSkeleton*"]).follow_pointers(false).select(&s).unwrap();
    for k in ["hkaSkeleton", "hkaSkeleton::Partition", "hkaSkeleton::LocalFrameOnBone", "hkaSkeletonMapper"] {
        assert!(sub.types.contains_key(k), "{k}");
    }
}

#[test]
fn errors_name_what_is_wrong() {
    let s = sdk_2018();
    match Builder::new().classes(["hknpBodyCinf0"]).select(&s) {
        Err(e @ BuildError::NoMatch { .. }) => {
            let text = e.to_string();
            assert!(text.contains("\"hknpBodyCinf0\"") && text.contains("hknpBodyCinfo"), "{text}");
        }
        other => panic!("{other:?}"),
    }
    // What a build script's unwrap prints: the message.
    let e = Builder::new().classes(["hknpRagdolData"]).select(&s).unwrap_err();
    assert_eq!(format!("{e:?}"), e.to_string());
    // The base class cannot be left out.
    match Builder::new().classes(["hknpRagdollData"]).exclude(["hknpPhysicsSystemData"]).select(&s) {
        Err(e @ BuildError::NeedsExcluded(_)) => {
            let text = e.to_string();
            assert!(text.contains("hknpPhysicsSystemData (base of hknpRagdollData)"), "{text}");
        }
        other => panic!("{other:?}"),
    }
    // A member's class either.
    match Builder::new().classes(["hknpPhysicsSystemData"]).exclude(["hknpMaterial"]).select(&s) {
        Err(BuildError::NeedsExcluded(needs)) => assert!(needs.iter().any(|n| n.ty == "hknpMaterial"), "{needs:?}"),
        other => panic!("{other:?}"),
    }
    // A type the snapshot lacks.
    let mut broken = s.clone();
    broken.types.remove("hknpBodyId");
    match Builder::new().classes(["hknpBodyCinfo"]).follow_pointers(false).select(&broken) {
        Err(BuildError::Missing(needs)) => assert!(needs.iter().any(|n| n.ty == "hknpBodyId"), "{needs:?}"),
        other => panic!("{other:?}"),
    }
    // A folder of snapshots rather than one: the error lists them.
    let e = Builder::new().schemas(schemas()).out_file("/nonexistent/x.rs").generate().unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, BuildError::NoSnapshot { .. }) && text.contains("2018.1"), "{text}");
    let e = Builder::new().out_file("/nonexistent/x.rs").generate().unwrap_err();
    assert!(matches!(e, BuildError::NoSchemas), "{e}");
}

#[test]
fn generate_writes_the_selection_with_the_overlay() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("builder");
    std::fs::create_dir_all(&dir).unwrap();
    let r = Builder::new()
        .schemas(schemas().join("2018.1"))
        .classes(["hknpBodyCinfo"])
        .follow_pointers(false)
        .out_dir(&dir)
        .header("test header")
        .cargo_metadata(false)
        .generate()
        .unwrap();
    assert_eq!(r.path, dir.join("hk2018_1.rs"));
    assert_eq!(r.classes, ["hknpBodyCinfo", "hknpBodyId"]);
    let code = std::fs::read_to_string(&r.path).unwrap();
    assert!(code.contains("// test header"));
    // schemas/enums.ron beside the snapshot: motionType is an enumeration with item names.
    assert!(code.contains("hknpMotionType_Enum") && code.contains("KEYFRAMED"), "{code}");
    let plain = Builder::new()
        .schemas(schemas().join("2018.1"))
        .classes(["hknpBodyCinfo"])
        .follow_pointers(false)
        .no_enums_file()
        .runtime_crate("::my::rt")
        .out_file(dir.join("plain.rs"))
        .cargo_metadata(false)
        .generate()
        .unwrap();
    let code = std::fs::read_to_string(&plain.path).unwrap();
    assert!(!code.contains("KEYFRAMED") && code.contains("my::rt"), "{code}");
    let bad = Builder::new().schemas(schemas().join("2018.1")).runtime_crate("not a path").out_file(dir.join("x.rs")).generate();
    assert!(matches!(bad, Err(BuildError::RuntimeCrate(_))));
}
