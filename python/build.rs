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
            let text = std::fs::read(&f).expect("a class file");
            blob.extend(sdk.file_name().unwrap().to_string_lossy().as_bytes());
            blob.push(0);
            blob.extend(f.file_name().unwrap().to_string_lossy().as_bytes());
            blob.push(0);
            blob.extend((text.len() as u32).to_le_bytes());
            blob.extend(text);
            println!("cargo:rerun-if-changed={}", f.display());
        }
    }
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).join("class_schemas.bin");
    std::fs::write(out, blob).expect("OUT_DIR");
}
