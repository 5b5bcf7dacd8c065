//! Typed readers and writers on the corpus: for every class that occurs as an object item in a
//! corpus tagfile, one object of it is read through its generated reader (arrays and strings
//! resolved through the file's items) and written back; the bytes must be the item's bytes. Runs
//! for the enabled SDK features: `cargo test --features all-sdks --test typed_roundtrip`.

#![allow(dead_code, unused_imports)]

mod common;

use hktypes::reflect::layout::Layouts;
use hktypes::tagfile::items::Items as FileItems;
use hktypes::tagfile::TagFile;
use hktypes::value::{self, ClassEntry, Reader, Result, Run, SourceIndices, ValueError, Writer};
use hktypes::ErrorKind;
use std::collections::{BTreeMap, BTreeSet};

/// The file's items as the value readers see them. Item `i` is placed at the synthetic absolute
/// offset `i << 32`, so an error offset names the item in its high half.
struct ItemsOf<'a>(&'a FileItems);

impl value::Items for ItemsOf<'_> {
    fn run(&self, index: u32) -> Result<Run<'_>> {
        let it = self.0.items.get(index as usize).ok_or_else(|| {
            ValueError::new(ErrorKind::IndexOutOfRange { what: "item", index: index.into(), count: self.0.items.len() as u64 })
        })?;
        Ok(Run { data: &it.bytes, base: u64::from(index) << 32, count: it.count })
    }
}

fn classes_of(sdk: &str) -> Option<&'static [ClassEntry]> {
    match sdk {
        #[cfg(feature = "hk2015_1")]
        "2015.1" => Some(hkclasses::hk2015_1::CLASSES),
        #[cfg(feature = "hk2016_2")]
        "2016.2" => Some(hkclasses::hk2016_2::CLASSES),
        #[cfg(feature = "hk2018_1")]
        "2018.1" => Some(hkclasses::hk2018_1::CLASSES),
        #[cfg(feature = "hk2019_1")]
        "2019.1" => Some(hkclasses::hk2019_1::CLASSES),
        _ => None,
    }
}

#[test]
fn one_object_of_each_class_round_trips() {
    let Some(corpus) = common::corpus() else { return };
    let entries = common::manifest(&corpus);
    let compendia = common::compendia(&entries);
    // (sdk, class) -> first file, or the failure.
    let mut done: BTreeSet<(String, String)> = BTreeSet::new();
    let mut bad = Vec::new();
    let mut skipped_sdks = BTreeSet::new();
    for e in entries.iter().filter(|e| e.format == "tag0") {
        let bytes = std::fs::read(&e.path).unwrap();
        let file = TagFile::read(&bytes, &compendia.set_for(&e.path)).unwrap_or_else(|err| panic!("{}: {err}", e.relpath));
        let sdk = file.sdk_version();
        let Some(classes) = classes_of(&sdk) else {
            skipped_sdks.insert(sdk);
            continue;
        };
        let mut layouts = Layouts::new(&file.types);
        let items = FileItems::read(&file, &mut layouts).unwrap_or_else(|err| panic!("{}: {err}", e.relpath));
        for (index, it) in items.items.iter().enumerate().skip(1).filter(|(_, it)| it.is_object()) {
            let name = file.types.full_name(it.ty);
            if done.contains(&(sdk.clone(), name.clone())) {
                continue;
            }
            done.insert((sdk.clone(), name.clone()));
            // A name with several layouts in the SDK is keyed `name#hash`: take the layout whose
            // hash the file stores, else the only one of the item's size.
            let stored = file.types.get(it.ty).and_then(|t| t.hash);
            let prefix = format!("{name}#");
            let variants: Vec<&ClassEntry> = classes.iter().filter(|c| c.name.starts_with(&prefix)).collect();
            let tagfile = |c: &&ClassEntry| c.as_tagfile().copied();
            let by_hash = variants.iter().find(|c| tagfile(c).map(|t| t.hash) == stored).copied();
            let by_size: Vec<&ClassEntry> = variants.iter().copied().filter(|c| tagfile(c).is_some_and(|t| t.size == it.bytes.len())).collect();
            let found = ClassEntry::find(classes, &name).or(by_hash).or(if by_size.len() == 1 { Some(by_size[0]) } else { None });
            let Some(class) = found.and_then(ClassEntry::as_tagfile) else {
                bad.push(format!("{sdk} {name} ({}): no generated class of that name", e.relpath));
                continue;
            };
            if class.size != it.bytes.len() {
                bad.push(format!("{sdk} {name} ({}): class size {} but item {} bytes", e.relpath, class.size, it.bytes.len()));
                continue;
            }
            let base = (index as u64) << 32;
            let source = ItemsOf(&items);
            let obj = match (class.read)(&Reader::new(&it.bytes, base, &source)) {
                Ok(o) => o,
                Err(err) => {
                    bad.push(format!("{sdk} {name} ({}): read: {err}", e.relpath));
                    continue;
                }
            };
            let mut out = vec![0u8; class.size];
            let mut refs = SourceIndices { data: &it.bytes, base };
            if let Err(err) = obj.write_object(&mut Writer::new(&mut out, base, &mut refs)) {
                bad.push(format!("{sdk} {name} ({}): write: {err}", e.relpath));
                continue;
            }
            if out[..] != it.bytes[..] {
                let at = out.iter().zip(it.bytes.iter()).position(|(a, b)| a != b).unwrap_or(0);
                bad.push(format!("{sdk} {name} ({}): written bytes differ at {at:#x}", e.relpath));
            }
        }
    }
    for sdk in &skipped_sdks {
        eprintln!("{sdk}: feature off, not checked");
    }
    let mut per_sdk: BTreeMap<&str, usize> = BTreeMap::new();
    for (sdk, _) in &done {
        *per_sdk.entry(sdk).or_default() += 1;
    }
    for (sdk, n) in &per_sdk {
        eprintln!("{sdk}: {n} classes checked");
    }
    assert!(bad.is_empty(), "{} of {} classes fail:\n{}", bad.len(), done.len(), bad.join("\n"));
}
