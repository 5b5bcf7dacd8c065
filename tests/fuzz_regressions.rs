//! Every input a fuzzer failed on, run through the same check as the fuzz target
//! (`fuzz/src/checks.rs`): each must now read, or fail with a located error, without a panic.
//! Stable Rust, no fuzzer needed.
//!
//! An input is kept under `tests/fuzz_regressions/<target>/` in one of two forms:
//! - `NAME.bin`: the input itself (minimized where the fuzzer could shrink it);
//! - `NAME.edits`: a corpus file and the bytes the fuzzer changed in it, so that the project
//!   holds no game data. Lines are `corpus PATH` (relative to the corpus folder), then
//!   `OFFSET OLD NEW` (hex), each OLD checked against the corpus file before NEW is written;
//!   `#` starts a comment. These need the corpus (see `tests/common`).

#[allow(dead_code)]
#[path = "../fuzz/src/checks.rs"]
mod checks;
mod common;
#[path = "../fuzz/src/typed_checks.rs"]
mod typed_checks;

use std::path::{Path, PathBuf};

/// The bytes of one kept input; `None` for an edit script when the corpus is absent.
fn input(path: &Path, corpus: Option<&Path>) -> Option<Vec<u8>> {
    if path.extension().is_some_and(|x| x == "bin") {
        return Some(std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())));
    }
    Some(common::edited_corpus_file(path, corpus?))
}

/// Runs every kept input of `target`; returns how many ran and how many needed the corpus that
/// is absent.
fn run(target: &str, check: fn(&[u8]), corpus: Option<&Path>) -> (usize, usize) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions").join(target);
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "bin" || x == "edits"))
        .collect();
    inputs.sort();
    let (mut ran, mut skipped) = (0, 0);
    for p in &inputs {
        let Some(bytes) = input(p, corpus) else {
            skipped += 1;
            continue;
        };
        if std::panic::catch_unwind(|| check(&bytes)).is_err() {
            panic!("{target}: {} fails its check again", p.display());
        }
        ran += 1;
    }
    (ran, skipped)
}

#[test]
fn fuzz_findings_stay_fixed() {
    let corpus = common::corpus();
    let mut counts = Vec::new();
    for (target, check) in [
        ("tag0", checks::tag0 as fn(&[u8])),
        ("tcm0", checks::tcm0),
        ("registry", checks::registry),
        ("packfile", checks::packfile),
        ("packfile_objects", checks::packfile_objects),
        ("typed", typed_checks::typed),
        ("packfile_xml", checks::packfile_xml),
        ("tagfile_xml", checks::tagfile_xml),
        ("anim", checks::anim),
        ("anim_spline", checks::anim_spline),
        ("phive", checks::phive),
    ] {
        let (ran, skipped) = run(target, check, corpus.as_deref());
        counts.push(format!("{target} {ran}"));
        if skipped > 0 {
            counts.push(format!("({skipped} skipped: no corpus)"));
        }
    }
    println!("fuzz regression inputs: {}", counts.join(", "));
}

/// The `packfile_xml` finding: an `hkgen:object` note whose kept places do not fit the object's
/// values (the note was written for 107 annotation tracks, the XML holds 29) is refused where it
/// stands, instead of being dropped on the way through the binary.
#[test]
fn packfile_xml_note_that_does_not_fit_is_refused() {
    use hktypes::packfile::xml;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions/packfile_xml/note_does_not_fit.bin");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let schemas = hkgen::reflection::check::ClassSchemas::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas")).expect("schemas");
    let read = xml::read_with(&bytes, |c| schemas.sources_for(&hkgen::reflection::sources::sdk_of_contents_version(c)), xml::ReadOptions::default());
    let e = read.expect_err("a note that does not fit is refused").to_string();
    assert!(e.contains("line 33, column 4: object #0003: hkgen:object: the note does not fit the object's values"), "{e}");
}
