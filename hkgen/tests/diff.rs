//! `hkgen schema-diff` on the committed snapshots gives the spec's "Class versions" facts, and reads a
//! snapshot from a git revision as well as from a directory.

use hkgen::diff::{diff, table, Change};
use hkgen::schema::snapshot;
use std::path::Path;

fn schemas() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas")
}

#[test]
fn sdk_2016_2_to_2018_1_matches_the_class_versions_table() {
    let old = snapshot::read(&schemas().join("2016.2")).unwrap();
    let new = snapshot::read(&schemas().join("2018.1")).unwrap();
    let changes = diff(&old, &new);
    let get = |name: &str| changes.iter().find(|c| c.class == name).unwrap_or_else(|| panic!("{name} in the diff"));
    let body = get("hknpBodyCinfo");
    assert_eq!(body.version, (Some(6), Some(8)));
    assert_eq!(body.added, ["dragProperties", "activationPriority"]);
    let system = get("hknpPhysicsSystemData");
    assert_eq!(system.version, (Some(2), Some(3)));
    assert_eq!(system.removed, ["referencedObjects"]);
    for (name, from, to) in [("hknpMaterial", 4, 5), ("hknpMotionProperties", 4, 5), ("hknpWorldCinfo", 11, 13)] {
        assert_eq!(get(name).version, (Some(from), Some(to)), "{name}");
    }
    // Same version in both, though their hashes differ (hkReferencedObject changed beneath them).
    for (name, v) in [("hknpConvexPolytopeShape", 4), ("hknpShape", 4), ("hkaSkeleton", 6), ("hkaAnimation", 3), ("hkaAnimationBinding", 3)] {
        let c = get(name);
        assert_eq!(c.change, Change::Changed);
        assert_eq!(c.version, (Some(v), Some(v)), "{name}");
    }
    let text = table(&changes, false);
    assert!(text.lines().any(|l| l.starts_with("hknpBodyCinfo") && l.contains("6 -> 8") && l.contains("+dragProperties")), "{text}");
    assert!(text.lines().last().unwrap().contains("classes changed in layout"));
}

#[test]
fn a_snapshot_against_itself_has_no_changes_from_git_or_disk() {
    let dir = schemas().join("2016.2");
    let disk = snapshot::read(&dir).unwrap();
    assert!(diff(&disk, &disk).is_empty());
    // The committed snapshot, read through git, is the same schema (skipped outside a checkout).
    let inside = std::process::Command::new("git").args(["rev-parse", "--is-inside-work-tree"]).output();
    if !inside.is_ok_and(|o| o.status.success()) {
        eprintln!("SKIPPED: not in a git checkout");
        return; // not-a-skip: not a git checkout, no corpus read
    }
    let top = String::from_utf8(std::process::Command::new("git").args(["rev-parse", "--show-toplevel"]).output().unwrap().stdout).unwrap();
    std::env::set_current_dir(top.trim()).unwrap();
    let git = snapshot::open("HEAD:schemas/2016.2").unwrap();
    assert_eq!(git.types.len(), disk.types.len());
    assert!(diff(&git, &disk).is_empty());
}
