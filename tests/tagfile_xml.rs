//! `<hktagfile>` XML (`hktypes::tagfile::xml`): every corpus TAG0 file goes to XML and back to the
//! same bytes (TCRF files with their compendium given), the corpus's one HKLib XML file reads, and
//! hostile XML gets located errors.

mod common;

use hkgen::inputs::Compendia;
use hktypes::packfile::xml::FloatForm;
use hktypes::tagfile::xml::{self, WriteOptions};
use hktypes::tagfile::TagFile;
use std::collections::BTreeMap;

/// Binary -> XML -> binary, per SDK: (files, byte-exact), and the failures with their reasons.
fn round_trips(corpus: &std::path::Path, floats: FloatForm) -> (BTreeMap<String, (usize, usize)>, Vec<String>) {
    let entries = common::manifest(corpus);
    let tcm0: Vec<_> = entries.iter().filter(|e| e.format == "tcm0").map(|e| e.path.clone()).collect();
    let compendia = Compendia::load(&tcm0).unwrap();
    let mut per_sdk: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut bad = Vec::new();
    for e in entries.iter().filter(|e| e.format == "tag0") {
        let bytes = std::fs::read(&e.path).unwrap();
        let set = compendia.set_for(&e.path);
        let file = TagFile::read(&bytes, &set).unwrap_or_else(|err| panic!("{}: {err}", e.relpath));
        let n = per_sdk.entry(file.sdk_version()).or_default();
        n.0 += 1;
        let back = xml::write(&file, WriteOptions { floats })
            .and_then(|text| xml::read(text.as_bytes()))
            .and_then(|doc| doc.write_tag0(&set));
        match back {
            Ok(out) if out == bytes => n.1 += 1,
            Ok(out) => {
                let at = out
                    .iter()
                    .zip(&bytes)
                    .position(|(a, b)| a != b)
                    .unwrap_or(out.len().min(bytes.len()));
                bad.push(format!(
                    "{}: differs at {at:#x} ({} bytes, stock {})",
                    e.relpath,
                    out.len(),
                    bytes.len()
                ));
            }
            Err(err) => bad.push(format!("{}: {err}", e.relpath)),
        }
    }
    (per_sdk, bad)
}

#[test]
fn every_corpus_tagfile_round_trips_through_xml() {
    let Some(corpus) = common::corpus() else { return };
    let (per_sdk, bad) = round_trips(&corpus, FloatForm::Shortest);
    let figures: Vec<String> = per_sdk
        .iter()
        .map(|(sdk, (files, exact))| format!("{sdk}: {exact}/{files}"))
        .collect();
    assert!(bad.is_empty(), "{}\n{}", figures.join(", "), bad.join("\n"));
    assert_eq!(figures.join(", "), "2015.1: 4/4, 2016.2: 126/126, 2018.1: 207/207, 2019.1: 3/3");
}
