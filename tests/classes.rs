//! Every class of every enabled SDK snapshot has a generated struct whose size, alignment and
//! member offsets and sizes are the schema's. The member sizes come from the Rust types
//! (`<T as Value>::SIZE`), so this also checks that each member's type mapping lost no byte.
//!
//! Runs for the SDK features that are enabled: `cargo test --features all-sdks --test classes`.

#![allow(dead_code)]

use hkgen::codegen::types::WELL_KNOWN;
use hkgen::schema::{model::Type, Schema};
use hktypes::reflect::{Kind, TypeFormat};
use hktypes::value::ClassEntry;
use std::path::PathBuf;

fn schemas_dir() -> PathBuf {
    std::env::var_os("HKCLASSES_SCHEMAS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schemas"))
}

fn size_of(schema: &Schema, key: &str) -> Option<u32> {
    let mut t = schema.get(key)?;
    for _ in 0..64 {
        if t.size.is_some() || t.format.is_some() {
            return t.size;
        }
        t = schema.get(t.parent.as_deref()?)?;
    }
    None
}

fn is_class(t: &Type) -> bool {
    let record = t.format.is_some_and(|f| TypeFormat(f.0).kind() == Kind::Record) && t.size.is_some();
    let runtime = WELL_KNOWN.iter().any(|&(n, _, size)| n == t.full_name() && Some(size) == t.size);
    record && !runtime
}

fn check(sdk: &str, classes: &[ClassEntry]) {
    let dir = schemas_dir().join(sdk);
    if !dir.join("sdk.ron").is_file() {
        eprintln!("{sdk}: no snapshot under {}; nothing to check", dir.display());
        assert!(classes.is_empty());
        return; // not-a-skip: no snapshot, and no classes either (asserted)
    }
    let schema = hkgen::schema::snapshot::read(&dir).unwrap();
    let mut problems = Vec::new();
    let mut checked = 0;
    for t in schema.types.values().filter(|t| is_class(t)) {
        let Some(entry) = ClassEntry::find(classes, &t.key) else {
            problems.push(format!("{}: no struct", t.key));
            continue;
        };
        let Some(e) = entry.as_tagfile() else {
            problems.push(format!("{}: a packfile class in a tagfile table", t.key));
            continue;
        };
        checked += 1;
        if Some(e.size as u32) != t.size {
            problems.push(format!("{}: size {} != {:?}", t.key, e.size, t.size));
        }
        let align = t.align.map_or(1, |a| (a & 0xFFF).max(1)) as usize;
        if e.align != align {
            problems.push(format!("{}: align {} != {align}", t.key, e.align));
        }
        if entry.parent != t.parent.as_deref() {
            problems.push(format!("{}: parent {:?} != {:?}", t.key, entry.parent, t.parent));
        }
        let mut fields: Vec<_> = t.fields.iter().flatten().collect();
        fields.sort_by_key(|f| f.offset);
        if e.fields.len() != fields.len() {
            problems.push(format!("{}: {} fields != {}", t.key, e.fields.len(), fields.len()));
            continue;
        }
        for (f, info) in fields.iter().zip(e.fields) {
            if (info.name, info.offset) != (f.name.as_str(), f.offset) {
                problems.push(format!("{}.{}: at {} != {}.{} at {}", t.key, info.name, info.offset, t.key, f.name, f.offset));
            }
            if Some(info.size) != size_of(&schema, &f.ty) {
                problems.push(format!("{}.{}: size {} != {:?} of {}", t.key, f.name, info.size, size_of(&schema, &f.ty), f.ty));
            }
        }
    }
    assert!(problems.is_empty(), "{sdk}: {} problems:\n{}", problems.len(), problems.join("\n"));
    assert_eq!(checked, classes.len(), "{sdk}: structs that are no class of the schema");
    eprintln!("{sdk}: {checked} classes match the schema");
}

#[cfg(feature = "hk2015_1")]
#[test]
fn layouts_2015_1() {
    check("2015.1", hkclasses::hk2015_1::CLASSES);
}

#[cfg(feature = "hk2016_2")]
#[test]
fn layouts_2016_2() {
    check("2016.2", hkclasses::hk2016_2::CLASSES);
}

#[cfg(feature = "hk2018_1")]
#[test]
fn layouts_2018_1() {
    check("2018.1", hkclasses::hk2018_1::CLASSES);
}

#[cfg(feature = "hk2019_1")]
#[test]
fn layouts_2019_1() {
    check("2019.1", hkclasses::hk2019_1::CLASSES);
}
