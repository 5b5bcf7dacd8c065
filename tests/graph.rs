//! The object graph: every corpus tagfile read into typed and dynamic objects and written back
//! gives the same bytes; typed lookup, iteration and an edit.

mod common;

use hkgen::inputs::Compendia;
use hktypes::graph::Document;
use hktypes::tagfile::TagFile;
use std::collections::BTreeMap;

#[test]
fn every_corpus_tagfile_round_trips_through_the_object_graph() {
    let Some(corpus) = common::corpus() else { return };
    let entries = common::manifest(&corpus);
    let tcm0: Vec<_> = entries.iter().filter(|e| e.format == "tcm0").map(|e| e.path.clone()).collect();
    let compendia = Compendia::load(&tcm0).unwrap();
    let mut per_sdk: BTreeMap<String, [usize; 4]> = BTreeMap::new();
    let mut bad = Vec::new();
    for e in entries.iter().filter(|e| e.format == "tag0") {
        let bytes = std::fs::read(&e.path).unwrap();
        let file = TagFile::read(&bytes, &compendia.set_for(&e.path)).unwrap();
        let sdk = file.sdk_version();
        let doc = match Document::from_file(&file, hkclasses::classes_for_sdk(&sdk)) {
            Ok(d) => d,
            Err(err) => {
                bad.push(format!("{}: {err}", e.relpath));
                continue;
            }
        };
        let (typed, dynamic) = doc.counts();
        let n = per_sdk.entry(sdk).or_default();
        n[0] += 1;
        n[2] += typed;
        n[3] += dynamic;
        match doc.write() {
            Ok(out) if out == bytes => n[1] += 1,
            Ok(out) => {
                let at = out.iter().zip(&bytes).position(|(a, b)| a != b).unwrap_or(out.len().min(bytes.len()));
                bad.push(format!("{}: differs at {at:#x}", e.relpath));
            }
            Err(err) => bad.push(format!("{}: {err}", e.relpath)),
        }
    }
    for (sdk, [files, exact, typed, dynamic]) in &per_sdk {
        eprintln!("{sdk}: {exact}/{files} files exact; {typed} typed and {dynamic} dynamic objects");
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
