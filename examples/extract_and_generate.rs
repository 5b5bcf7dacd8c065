//! Your own files, end to end without the CLI: extract the type tables of some tagfiles into
//! schema snapshots (what `hkgen extract --out DIR FILES...` does), then generate Rust classes for
//! a few of them with `hkgen::Builder` (what a build script of yours would do; see the README).
//!
//! `cargo run --example extract_and_generate -- [OUT] [FILE_OR_DIR...]`: OUT defaults to
//! `target/my-schemas`, the inputs to the Elden Ring character folder of the corpus.

use hkgen::schema::snapshot;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let corpus = std::env::var_os("HKGEN_CORPUS").map(PathBuf::from).unwrap_or_else(|| "../shared/corpus".into());
    let mut args = std::env::args_os().skip(1).map(PathBuf::from);
    let out = args.next().unwrap_or_else(|| "target/my-schemas".into());
    let mut inputs: Vec<PathBuf> = args.collect();
    if inputs.is_empty() {
        inputs.push(corpus.join("Axelph237__mod/chr"));
    }

    // 1. The type tables of every tagfile and compendium under the inputs, one schema per SDK.
    let ex = hkgen::extract::extract(&inputs, &|_| {})?;
    for (path, why) in &ex.failures {
        eprintln!("{}: {why}", path.display());
    }
    let mut dirs = Vec::new();
    for schema in &ex.schemas {
        let dir = snapshot::write(&out, schema)?;
        println!("{}: {} types from {} tagfiles", dir.display(), schema.types.len(), schema.sources.tagfiles);
        dirs.push((schema.sdk.clone(), dir));
    }
    // The enumeration overlay (item names the tables do not store) for those snapshots.
    let overlay = hkgen::codegen::overlay::build_from(&out, &[], None)?;
    std::fs::write(out.join(hkgen::codegen::OVERLAY), overlay.render())?;

    // 2. Classes for each SDK found: the ragdoll (and what it holds) where the SDK has one,
    //    else every class.
    for (sdk, dir) in dirs {
        let schema = snapshot::read(&dir)?;
        let mut builder = hkgen::Builder::new().schemas(&dir).out_dir(&out).cargo_metadata(false);
        if schema.types.contains_key("hknpRagdollData") {
            builder = builder.classes(["hknpRagdollData"]);
        }
        let report = builder.generate()?;
        println!("{sdk}: {} classes in {}", report.classes.len(), report.path.display());
    }
    Ok(())
}
