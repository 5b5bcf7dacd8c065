//! The memory budget of reading a tagfile into typed objects and writing it back: for every
//! corpus TAG0 file, the most heap that `TagfileDocument::read` and `TagfileDocument::write` hold live at once
//! (beyond the file's own bytes, already in memory) stays within [`FACTOR`] times the file plus
//! [`SLACK`]. The slack is small, so the factor is what the large files are held to. Measured
//! with a counting global allocator, so the figure is exact and repeatable.

mod common;

use hkgen::inputs::Compendia;
use hktypes::graph::TagfileDocument;

#[global_allocator]
static ALLOC: common::counting::Counting = common::counting::Counting;

/// Heap bytes per file byte.
const FACTOR: usize = 7;
/// Heap bytes beyond the factor, whatever the file's size.
const SLACK: usize = 1 << 20;

#[test]
fn reading_and_writing_stays_within_the_budget() {
    let Some(corpus) = common::corpus() else { return };
    let compendia = Compendia::load(std::slice::from_ref(&corpus)).expect("load compendia");
    let mut files = 0;
    let mut worst: Option<(f64, usize, usize, String)> = None;
    let mut largest: (usize, usize, String) = (0, 0, String::new());
    let mut over = Vec::new();
    let mut all = Vec::new();
    for e in common::manifest(&corpus).iter().filter(|e| e.format == "tag0") {
        let path = e.path.clone();
        let bytes = std::fs::read(&path).expect("read corpus file");
        let set = compendia.set_for(&path);
        let (written, peak) = common::counting::measured(|| {
            let doc = TagfileDocument::read(&bytes, &set, hkclasses::classes_for_sdk(&hktypes::tagfile::sdk_version(&e.sdk)))?;
            doc.write()
        });
        let written = written.unwrap_or_else(|err| panic!("{}: {err}", e.relpath));
        assert_eq!(written, bytes, "{} does not round-trip", e.relpath);
        files += 1;
        let ratio = peak as f64 / bytes.len() as f64;
        if worst.as_ref().is_none_or(|w| ratio > w.0) {
            worst = Some((ratio, peak, bytes.len(), e.relpath.clone()));
        }
        if bytes.len() > largest.0 {
            largest = (bytes.len(), peak, e.relpath.clone());
        }
        all.push((peak, bytes.len(), e.relpath.clone()));
        if peak > FACTOR * bytes.len() + SLACK {
            over.push(format!("{}: {peak} bytes for a {}-byte file", e.relpath, bytes.len()));
        }
    }
    assert!(files > 0, "no TAG0 files in the manifest");
    if let Some((ratio, peak, len, path)) = &worst {
        println!("{files} TAG0 files; largest peak per file byte {ratio:.2}x ({peak} bytes for {len}: {path})");
        println!("largest file: {} bytes, peak {} bytes ({:.2}x): {}", largest.0, largest.1, largest.1 as f64 / largest.0 as f64, largest.2);
    }
    // The factor each file needs beyond the slack: the largest is the factor the corpus needs.
    all.sort_by(|a, b| (b.0.saturating_sub(SLACK) as f64 / b.1 as f64).total_cmp(&(a.0.saturating_sub(SLACK) as f64 / a.1 as f64)));
    for (peak, len, path) in all.iter().take(5) {
        println!("needs {:.2}x beyond the slack: {peak} bytes for {len}: {path}", peak.saturating_sub(SLACK) as f64 / *len as f64);
    }
    assert!(over.is_empty(), "over the budget of {FACTOR} x file + {SLACK} bytes:\n{}", over.join("\n"));
    // The largest file is held to the factor, not passed by the slack.
    assert!(largest.1 > SLACK, "the largest file's peak {} is within the slack {SLACK} alone", largest.1);
}
