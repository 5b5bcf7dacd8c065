//! Embeds the packfile class descriptions (`../schemas/<sdk>/classes/*.ron`) in the library: a
//! wheel cannot read `schemas/` from the checkout at run time. They go into one blob in OUT_DIR,
//! per file `sdk NUL name NUL length(u32 LE) text`, which `backend::load_class_schemas` parses.

use std::path::Path;

fn main() {
    let schemas = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas");
    println!("cargo:rerun-if-changed={}", schemas.display());
    let mut blob = Vec::new();
    let mut sdks: Vec<_> = std::fs::read_dir(&schemas)
        .expect("schemas/")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .collect();
    sdks.sort();
    for sdk in sdks {
        let classes = sdk.join("classes");
        if !classes.join("schema.ron").is_file() {
            continue;
        }
        println!("cargo:rerun-if-changed={}", classes.display());
        let mut files: Vec<_> = std::fs::read_dir(&classes)
            .expect("classes/")
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .collect();
        files.retain(|p| p.extension().is_some_and(|x| x == "ron"));
        files.sort();
        for f in files {
            push_entry(&mut blob, &sdk, &f);
        }
    }
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).join("class_schemas.bin");
    std::fs::write(out, blob).expect("OUT_DIR");
    class_names(&schemas);
    tagfile_schemas(&schemas);
}

/// The tagfile SDKs' snapshots (`schemas/<sdk>/sdk.ron` and `types/*.ron`), for
/// `Document.convert` to a tagfile SDK: one blob in OUT_DIR, per file `sdk NUL name NUL
/// length(u32 LE) text` (`name` is `sdk.ron` or the type file's name), as `convert::snapshot_files`
/// parses it.
fn tagfile_schemas(schemas: &Path) {
    let mut blob = Vec::new();
    let mut sdks: Vec<_> = std::fs::read_dir(schemas).expect("schemas/").filter_map(|e| e.ok()).map(|e| e.path()).collect();
    sdks.sort();
    for sdk in sdks {
        let (head, types) = (sdk.join("sdk.ron"), sdk.join("types"));
        if !head.is_file() || !types.is_dir() {
            continue;
        }
        println!("cargo:rerun-if-changed={}", types.display());
        let mut files = vec![head];
        let mut list: Vec<_> = std::fs::read_dir(&types).expect("types/").filter_map(|e| e.ok()).map(|e| e.path()).collect();
        list.retain(|p| p.extension().is_some_and(|x| x == "ron"));
        list.sort();
        files.extend(list);
        for f in files {
            push_entry(&mut blob, &sdk, &f);
        }
    }
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).join("tagfile_schemas.bin");
    std::fs::write(out, blob).expect("OUT_DIR");
}

/// Every class name the schemas know, of every SDK (`schemas/<sdk>/types/*.ron`'s keys and
/// `schemas/<sdk>/classes/*.ron`'s class names), one a line, sorted: `Document.objects` tells a
/// class that is not in a file from a name that no SDK has.
fn class_names(schemas: &Path) {
    let mut names = std::collections::BTreeSet::new();
    let Ok(sdks) = std::fs::read_dir(schemas) else {
        return;
    };
    for sdk in sdks.flatten() {
        for (dir, prefix) in [("types", "    key: \""), ("classes", "    name: \"")] {
            let dir = sdk.path().join(dir);
            let Ok(files) = std::fs::read_dir(&dir) else {
                continue;
            };
            println!("cargo:rerun-if-changed={}", dir.display());
            for f in files.flatten() {
                let Ok(text) = std::fs::read_to_string(f.path()) else {
                    continue;
                };
                for line in text.lines() {
                    if let Some(rest) = line.strip_prefix(prefix) {
                        if let Some(name) = rest.strip_suffix("\",") {
                            names.insert(name.to_owned());
                        }
                    }
                }
            }
        }
    }
    let text: String = names.into_iter().map(|n| n + "\n").collect();
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).join("class_names.txt");
    std::fs::write(out, text).expect("OUT_DIR");
}

/// Appends file `f` of SDK folder `sdk` to a blob as `sdk NUL name NUL length(u32 LE) text`.
fn push_entry(blob: &mut Vec<u8>, sdk: &Path, f: &Path) {
    let text = std::fs::read(f).expect("a schema file");
    blob.extend(sdk.file_name().unwrap().to_string_lossy().as_bytes());
    blob.push(0);
    blob.extend(f.file_name().unwrap().to_string_lossy().as_bytes());
    blob.push(0);
    blob.extend((text.len() as u32).to_le_bytes());
    blob.extend(text);
    println!("cargo:rerun-if-changed={}", f.display());
}
