//! Reading a stock tagfile and writing it again by the walk gives back the same bytes, for every
//! TAG0 file of the corpus; and when it does not, the report names the place.

mod common;

use hkgen::inputs::Compendia;
use hkgen::verify::verify_bytes;
use hktypes::tagfile::{write, TagFile};
use std::collections::BTreeMap;

#[test]
fn every_corpus_tagfile_round_trips_exactly() {
    let Some(corpus) = common::corpus() else { return };
    let entries = common::manifest(&corpus);
    let tcm0: Vec<_> = entries.iter().filter(|e| e.format == "tcm0").map(|e| e.path.clone()).collect();
    let compendia = Compendia::load(&tcm0).unwrap();
    let mut per_sdk: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut bad = Vec::new();
    for e in entries.iter().filter(|e| e.format == "tag0") {
        let bytes = std::fs::read(&e.path).unwrap();
        let file = TagFile::read(&bytes, &compendia.set_for(&e.path)).unwrap_or_else(|err| panic!("{}: {err}", e.relpath));
        let n = per_sdk.entry(file.sdk_version()).or_default();
        n.0 += 1;
        match write::rewrite(&file) {
            Ok(out) if out == bytes => n.1 += 1,
            Ok(out) => {
                let at = out.iter().zip(&bytes).position(|(a, b)| a != b).unwrap_or(out.len().min(bytes.len()));
                bad.push(format!("{}: differs at {at:#x}", e.relpath));
            }
            Err(err) => bad.push(format!("{}: {err}", e.relpath)),
        }
    }
    for (sdk, (files, exact)) in &per_sdk {
        eprintln!("{sdk}: {exact}/{files} tagfiles round trip exactly");
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert_eq!(per_sdk.values().map(|n| n.1).sum::<usize>(), entries.iter().filter(|e| e.format == "tag0").count());
}

/// A nonzero byte where the walk puts zero padding is a difference, and verify says where.
#[test]
fn a_difference_is_located() {
    let Some(corpus) = common::corpus() else { return };
    let entries = common::manifest(&corpus);
    // A file with its own types whose DATA has padding between two items.
    for e in entries.iter().filter(|e| e.format == "tag0") {
        let mut bytes = std::fs::read(&e.path).unwrap();
        let Ok(file) = TagFile::read(&bytes, &Default::default()) else { continue };
        let data_at = file.data_offset as usize;
        let mut layouts = hktypes::reflect::layout::Layouts::new(&file.types);
        let mut ends: Vec<(usize, usize)> = file
            .items
            .iter()
            .skip(1)
            .map(|it| {
                let len = layouts.size_of(it.ty).unwrap() as usize * it.count as usize;
                (it.offset as usize, it.offset as usize + len)
            })
            .collect();
        ends.sort();
        let Some(gap) = ends.windows(2).find(|w| w[0].1 < w[1].0).map(|w| w[0].1) else { continue };
        drop(file);
        bytes[data_at + gap] = 0xAB;
        let r = verify_bytes(&e.relpath, &bytes, &Default::default());
        assert_eq!(r.roundtrip, Some("differs"), "{r:?}");
        assert_eq!(r.roundtrip_offset, Some((data_at + gap) as u64));
        let detail = r.roundtrip_detail.unwrap();
        assert!(detail.contains("TAG0/DATA+") && detail.contains("padding between items"), "{detail}");
        assert!(!r.ok);
        return;
    }
    panic!("no corpus file with padding between items");
}
