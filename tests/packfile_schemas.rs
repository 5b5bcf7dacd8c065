//! The committed hkClass schemas under `schemas/<sdk>/classes/` (2014.2, 2014.1, 2013.1) are what
//! `reflection::sources::extract` makes of the corpus and the class data, byte for byte (on a
//! mismatch the fresh files are written into the tree for review, and the test fails); and a
//! snapshot read back alone recomputes every signature it records.

mod common;

use hkgen::reflection::{signature, snapshot, sources};
use std::path::{Path, PathBuf};

fn schemas_dir() -> PathBuf {
    common::workspace_root().join("schemas")
}

fn inputs(corpus: &Path) -> Vec<PathBuf> {
    let cd = common::classdata(corpus);
    vec![
        corpus.to_path_buf(),
        cd.join("botw-2014.2-switch-reflection.json"),
        cd.join("botw-2014.2-signatures.tsv"),
        cd.join("fromsoft-2014.1-types.xml"),
    ]
}

#[test]
fn committed_class_schemas_equal_a_fresh_extraction() {
    let Some(corpus) = common::snapshot_corpus() else { return };
    let ex = sources::extract(&inputs(&corpus)).unwrap();
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
        return;
    }
    for s in &ex.schemas {
        snapshot::write(&dir, s).unwrap();
    }
    panic!("schemas/*/classes differ from a fresh extraction in {} files (rewritten; review and commit): {}", changed.len(), changed.join(", "));
}

#[test]
fn class_snapshots_recompute_their_signatures() {
    let dir = schemas_dir();
    let Ok(sdks) = snapshot::list(&dir) else { return };
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
