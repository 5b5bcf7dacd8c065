//! The tests themselves: no corpus test may skip in silence. `HKGEN_REQUIRE_CORPUS=1` makes a
//! missing corpus or corpus file a failure only where the test goes through `tests/common/mod.rs`
//! (`corpus()`, `snapshot_corpus()`, `corpus_file()`); a test that reads a corpus file itself and
//! returns early when it cannot (`let Ok(bytes) = std::fs::read(..) else { return }`, `.ok()?`)
//! would pass without checking anything. This scans the sources of every test (`tests/`,
//! `hkgen/tests/`) and every doctest (the `///` and `//!` lines of `hktypes/src` and `hkgen/src`)
//! for such early returns and fails on each one that is not the shared helper's, naming file and
//! line.
//!
//! An early return that is not a corpus skip (a golden test re-blessing, a check that passed)
//! carries the marker `not-a-skip:` and a reason on its line or the line above.

mod common;

use std::path::{Path, PathBuf};

/// The early returns a test may use: the shared helpers, which fail under
/// `HKGEN_REQUIRE_CORPUS=1` and say "SKIPPED" otherwise.
const HELPER_RETURNS: &[&str] =
    &["common::corpus() else { return }", "common::snapshot_corpus() else { return }", "common::corpus_file(", "common::corpus()?"];

/// Ways a test returns early without failing.
fn early_return(line: &str) -> bool {
    let code = line.split("//").next().unwrap_or("");
    // A doctest line: its code follows the comment marker.
    let code = if let Some(doc) = line.trim_start().strip_prefix("///").or_else(|| line.trim_start().strip_prefix("//!")) { doc } else { code };
    // `else { return }`, `if !path.exists() { return; }` and the like.
    let bare_else = ["{ return }", "{ return; }", "{return}", "{return;}"].iter().any(|p| code.contains(p));
    let bare = code.trim() == "return;"
        || code.trim() == "return"
        || code.contains("=> return,")
        || code.contains("=> return;")
        || code.contains("=> return }");
    bare_else || bare || code.contains(".ok()?")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { panic!("{}: cannot list", dir.display()) };
    for e in entries {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The lines of `text` a test runs: all of a test file, the doc-comment lines of a library file.
fn offending(text: &str, doc_only: bool) -> Vec<usize> {
    let lines: Vec<&str> = text.lines().collect();
    let mut bad = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        if doc_only && !(t.starts_with("///") || t.starts_with("//!")) {
            continue;
        }
        if !early_return(line) || HELPER_RETURNS.iter().any(|h| line.contains(h)) {
            continue;
        }
        let marked = line.contains("not-a-skip:") || i > 0 && lines[i - 1].contains("not-a-skip:");
        if !marked {
            bad.push(i + 1);
        }
    }
    bad
}

#[test]
fn no_test_returns_early_around_a_corpus_read() {
    let root = common::workspace_root();
    let mut tests = Vec::new();
    rust_files(&root.join("tests"), &mut tests);
    rust_files(&root.join("hkgen/tests"), &mut tests);
    let mut libs = Vec::new();
    rust_files(&root.join("hktypes/src"), &mut libs);
    rust_files(&root.join("hkgen/src"), &mut libs);
    let this = Path::new(file!()).file_name().unwrap();
    let mut found = Vec::new();
    let mut scanned = 0;
    for (files, doc_only) in [(&tests, false), (&libs, true)] {
        for f in files.iter().filter(|f| f.file_name() != Some(this)) {
            let text = std::fs::read_to_string(f).unwrap();
            scanned += 1;
            for n in offending(&text, doc_only) {
                found.push(format!("{}:{n}: {}", f.strip_prefix(&root).unwrap_or(f).display(), text.lines().nth(n - 1).unwrap().trim()));
            }
        }
    }
    assert!(scanned > 40, "only {scanned} files scanned under {}", root.display());
    assert!(
        found.is_empty(),
        "early returns that would skip a test in silence under HKGEN_REQUIRE_CORPUS=1; read corpus files through \
         tests/common/mod.rs (corpus(), corpus_file()) or mark a return that is no skip with `not-a-skip: why`:\n{}",
        found.join("\n")
    );
}

/// The scan finds what it is for: the patterns that once skipped in silence.
#[test]
fn the_scan_catches_the_silent_skips_it_is_for() {
    let old = [
        "    let Ok(bytes) = std::fs::read(corpus.join(path)) else { return };",
        "    let bytes = std::fs::read(corpus.join(RAGDOLL)).ok()?;",
        "/// let Ok(bytes) = std::fs::read(format!(\"{corpus}/c3460.hkx\")) else { return };",
        "        Err(_) => return,",
        "        return;",
        "    if !corpus.join(P).is_file() { return; }",
    ];
    for line in old {
        assert_eq!(offending(line, false), [1], "{line}");
    }
    assert_eq!(offending(old[2], true), [1]);
    // The helpers and marked returns pass; a library's code lines are not doctests.
    for line in [
        "    let Some(corpus) = common::corpus() else { return };",
        "    let Some(b) = common::corpus_file(&corpus, P) else { return };",
        "        return; // not-a-skip: the check passed",
    ] {
        assert!(offending(line, false).is_empty(), "{line}");
    }
    assert!(offending("    let Some(x) = y else { return };", true).is_empty());
}
