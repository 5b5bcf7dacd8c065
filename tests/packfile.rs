//! Packfiles of the corpus: every one parses, and writing its parts back gives the same bytes
//! (container level: the data bytes are kept, fixups, class names, headers and fill rebuilt).
//! Counts per contents version and layout are printed. Damaged files give errors, not panics.

mod common;

use hktypes::packfile::{PackFile, DATA};
use std::collections::BTreeMap;

fn packfiles(corpus: &std::path::Path) -> Vec<common::Entry> {
    common::manifest(corpus).into_iter().filter(|e| e.format == "packfile").collect()
}

#[test]
fn every_corpus_packfile_parses_and_round_trips() {
    let Some(corpus) = common::corpus() else { return };
    let entries = packfiles(&corpus);
    assert!(!entries.is_empty());
    // (contents version, file version, layout) -> (files, exact round trips, objects)
    let mut counts: BTreeMap<(String, u32, String), (usize, usize, usize)> = BTreeMap::new();
    let mut bad = Vec::new();
    let (mut total, mut read_time, mut write_time) = (0usize, std::time::Duration::ZERO, std::time::Duration::ZERO);
    for e in &entries {
        let bytes = std::fs::read(&e.path).unwrap();
        total += bytes.len();
        let t0 = std::time::Instant::now();
        let read = PackFile::read(&bytes);
        read_time += t0.elapsed();
        let file = match read {
            Ok(f) => f,
            Err(err) => {
                bad.push(format!("{}: {err}", e.relpath));
                continue;
            }
        };
        let key = (file.contents_version(), file.header.file_version, file.layout().to_string());
        let n = counts.entry(key).or_default();
        n.0 += 1;
        n.2 += file.section_index(DATA).map_or(0, |i| file.objects(i).len());
        let t1 = std::time::Instant::now();
        let written = file.to_bytes();
        write_time += t1.elapsed();
        match written {
            Ok(out) if out == bytes => n.1 += 1,
            Ok(out) => {
                let at = out.iter().zip(&bytes).position(|(a, b)| a != b).unwrap_or(out.len().min(bytes.len()));
                bad.push(format!("{}: differs at {at:#x} (lengths {} and {})", e.relpath, out.len(), bytes.len()));
            }
            Err(err) => bad.push(format!("{}: write: {err}", e.relpath)),
        }
    }
    eprintln!("contents version   file  layout   files  exact  objects");
    for ((ver, fv, layout), (files, exact, objects)) in &counts {
        eprintln!("{ver:<18} {fv:>4}  {layout:<8} {files:>5}  {exact:>5}  {objects:>7}");
    }
    let (files, exact): (usize, usize) = counts.values().fold((0, 0), |a, n| (a.0 + n.0, a.1 + n.1));
    eprintln!("{exact}/{files} of {} packfiles round trip exactly", entries.len());
    let mbs = |d: std::time::Duration| total as f64 / 1e6 / d.as_secs_f64().max(1e-9);
    eprintln!(
        "{:.1} MB: container read {:.0} MB/s, write {:.0} MB/s (this build's profile)",
        total as f64 / 1e6,
        mbs(read_time),
        mbs(write_time)
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert_eq!(exact, entries.len());
}

/// Every corpus packfile cut short, and with bytes of its headers and tables overwritten, reads
/// to an error or a file; never a panic. A cut file is always an error.
#[test]
fn damaged_packfiles_give_errors() {
    let Some(corpus) = common::corpus() else { return };
    let entries = packfiles(&corpus);
    let mut seen_layouts = std::collections::BTreeSet::new();
    let mut tried = 0;
    for e in &entries {
        let bytes = std::fs::read(&e.path).unwrap();
        let Ok(file) = PackFile::read(&bytes) else { continue };
        // One file per (version, layout) keeps the test quick and covers every variant.
        if !seen_layouts.insert((file.header.file_version, file.layout().to_string())) {
            continue;
        }
        let tables_end = bytes.len();
        for cut in (0..bytes.len()).step_by((bytes.len() / 97).max(1)).chain([bytes.len() - 1]) {
            let r = PackFile::read(&bytes[..cut]);
            assert!(r.is_err(), "{}: cut at {cut:#x} still reads", e.relpath);
        }
        // Overwrite header words, section header words and fixup table words.
        let mut spots: Vec<usize> = (0..0x140.min(bytes.len())).step_by(3).collect();
        spots.extend((tables_end.saturating_sub(0x200)..tables_end).step_by(5));
        for &at in &spots {
            for v in [0x00u8, 0xFF, 0x7F, 0x80] {
                let mut b = bytes.clone();
                b[at] = v;
                if let Ok(f) = PackFile::read(&b) {
                    // Whatever reads must also write.
                    f.to_bytes().unwrap_or_else(|err| panic!("{}: {at:#x}={v:#x} reads but does not write: {err}", e.relpath));
                }
                tried += 1;
            }
        }
    }
    eprintln!("{tried} damaged variants of {} files (one per version and layout) read without a panic", seen_layouts.len());
}

/// A located error says which section and what went wrong.
#[test]
fn errors_are_located() {
    let Some(corpus) = common::corpus() else { return };
    let e = packfiles(&corpus).into_iter().next().unwrap();
    let bytes = std::fs::read(&e.path).unwrap();
    let file = PackFile::read(&bytes).unwrap();
    let data = file.section_index(DATA).unwrap();
    let mut broken = file.clone();
    if let Some(f) = broken.sections[data].local.first_mut() {
        f.src = 0xFFFF_FFF0;
    }
    let out = broken.to_bytes().unwrap();
    let err = PackFile::read(&out).unwrap_err().to_string();
    // The record is named by its place: the section and the local fixup table's first record.
    let plan = hktypes::packfile::write::plan(&broken).unwrap();
    let record = u64::from(plan.sections[data].start) + u64::from(plan.sections[data].offsets[0]);
    assert!(err.contains("packfile/__data__+") && err.contains(&format!("(file {record:#x})")) && err.contains("local fixup"), "{err}");
    eprintln!("{err}");
}
