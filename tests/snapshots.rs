//! The committed snapshots under `schemas/` are what `hkgen extract` makes of the corpus and the
//! registries and the class data, byte for byte (on a mismatch the fresh files are written under
//! `target/tmp/snapshot-mismatch/schemas/` for review, never into `schemas/`, and the test fails
//! saying where); and a snapshot alone
//! rebuilds every type record and recomputes every hash it records.

mod common;

use hkgen::schema::{rebuild, snapshot};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn schemas_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas")
}

/// Every snapshot file under `dir`, by path relative to it.
fn read_tree(dir: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    for sdk in snapshot::list(dir).expect("list snapshots") {
        for f in hkgen::inputs::walk(&[sdk.clone()]).unwrap() {
            if f.extension().is_some_and(|x| x == "ron") {
                let rel = f.strip_prefix(dir).unwrap().to_path_buf();
                out.insert(rel, std::fs::read_to_string(&f).unwrap());
            }
        }
    }
    out
}

/// The tagfile inputs `hkgen extract` reads by default: the corpus and the registries beside it.
fn inputs(corpus: &Path) -> Vec<PathBuf> {
    let cd = common::classdata(corpus);
    std::iter::once(corpus.to_path_buf()).chain(hkgen::registry::CLASS_DATA.iter().map(|f| cd.join(f))).collect()
}

fn fresh(corpus: &Path) -> BTreeMap<PathBuf, String> {
    let inputs = inputs(corpus);
    let ex = hkgen::extract::extract(&inputs, &|_| {}).expect("extract");
    assert!(ex.failures.is_empty(), "{:?}", ex.failures);
    assert!(ex.conflicts.is_empty(), "{:?}", ex.conflicts);
    let mut out = BTreeMap::new();
    for s in &ex.schemas {
        for (rel, text) in snapshot::render(s).unwrap() {
            out.insert(Path::new(&s.sdk).join(rel), text);
        }
    }
    out
}

#[test]
fn committed_snapshots_equal_a_fresh_extraction() {
    let Some(corpus) = common::snapshot_corpus() else { return };
    let want = fresh(&corpus);
    let dir = schemas_dir();
    let have = read_tree(&dir);
    if want == have {
        return; // not-a-skip: the snapshots are equal
    }
    let changed: Vec<_> = want.keys().chain(have.keys()).filter(|k| want.get(*k) != have.get(*k)).collect();
    let mut list: Vec<String> = changed.iter().map(|p| p.display().to_string()).collect();
    list.sort();
    list.dedup();
    // The fresh snapshots go under target/ for review, never into schemas/.
    let out = common::mismatch_dir("schemas");
    for (rel, text) in &want {
        let path = out.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
    }
    panic!(
        "schemas/ differs from a fresh `hkgen extract` in {} files: {}\nthe fresh snapshots are in {} \
         (compare with `diff -r schemas {}`; `hkgen extract --update` rewrites schemas/)",
        list.len(),
        list.iter().take(20).cloned().collect::<Vec<_>>().join(", "),
        out.display(),
        out.display()
    );
}

#[test]
fn extraction_is_deterministic() {
    let Some(corpus) = common::corpus() else { return };
    assert!(fresh(&corpus) == fresh(&corpus));
}

#[test]
fn snapshots_rebuild_and_recompute_every_hash() {
    let dirs = snapshot::list(&schemas_dir()).expect("schemas/ exists");
    assert!(!dirs.is_empty(), "no snapshots committed under schemas/");
    for dir in dirs {
        let schema = snapshot::read(&dir).unwrap();
        let (stored, computed_ok) = rebuild::check(&schema).unwrap();
        eprintln!(
            "{}: {} types; {}/{} stored hashes and {}/{} computed hashes recompute from the snapshot",
            schema.sdk,
            schema.types.len(),
            stored.matched,
            stored.stored,
            computed_ok,
            schema.types.len()
        );
        assert!(stored.stored > 0);
        assert_eq!(stored.matched, stored.stored, "{}: {:?}", schema.sdk, stored.mismatches.first());
        assert_eq!(computed_ok, schema.types.len(), "{}", schema.sdk);
        if schema.sdk == "2019.1" {
            // Armored Core VI's registry: every one of its 2,969 types, each with its stored hash.
            assert_eq!((schema.types.len(), stored.stored), (2969, 2969));
            assert!(schema.sources.registry && schema.sources.tagfiles == 3);
        }
        // Every variant key listed in sdk.ron is a type of the snapshot.
        for keys in schema.variants.values() {
            for k in keys {
                assert!(schema.types.contains_key(k), "{}: variant {k} missing", schema.sdk);
            }
        }
    }
}
