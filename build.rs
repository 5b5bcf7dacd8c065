//! Build script of the root crate: generates one module per enabled SDK feature from the schema
//! snapshots under `schemas/<sdk>/` (or `$HKCLASSES_SCHEMAS`) into `OUT_DIR`, which `src/lib.rs`
//! includes: tagfile SDKs from `sdk.ron` and `types/`, packfile SDKs (`hk2014_2`, `hk2014_1`) from
//! the hkClass schema in `classes/`, and for each tagfile SDK its type table as a `TYPE` section
//! (`<module>.types`, embedded by `tagfile_types_for_sdk`). An SDK without a snapshot gets an
//! empty module (and an empty type file), so every feature builds.
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=HKCLASSES_SCHEMAS");
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let schemas = match std::env::var_os("HKCLASSES_SCHEMAS") {
        Some(dir) => PathBuf::from(dir),
        None => root.join("schemas"),
    };
    // Cargo scans a directory given here recursively, so the script re-runs exactly when a snapshot
    // changes.
    println!("cargo:rerun-if-changed={}", schemas.display());
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    // Unformatted even when the CLI feature gives the build script's hkgen prettyplease.
    let config = hkgen::codegen::Config::new().formatted(false);
    let packfile = enabled(hkgen::codegen::PACKFILE_SDKS);
    report(hkgen::codegen::generate_packfile_sdks(&config, &schemas, &out, &packfile), "class schema", &schemas);
    let tagfile = enabled(hkgen::codegen::SDKS);
    report(hkgen::codegen::generate_sdks(&config, &schemas, &out, &tagfile), "schema snapshot", &schemas);
    // The SDK's type table as a `TYPE` section, for tagfiles made from nothing
    // (`tagfile_types_for_sdk`); an SDK without a snapshot was warned of above.
    if let Err(e) = hkgen::codegen::write_type_sections(&schemas, &out, &tagfile) {
        eprintln!("type table generation failed: {e}");
        std::process::exit(1);
    }
}

/// The SDKs of `sdks` whose cargo feature is on.
fn enabled(sdks: &'static [&'static str]) -> Vec<&'static str> {
    sdks.iter()
        .copied()
        .filter(|sdk| {
            let feature = hkgen::codegen::module_name(sdk).to_uppercase();
            std::env::var_os(format!("CARGO_FEATURE_{feature}")).is_some()
        })
        .collect()
}

/// Warns of each SDK generated empty for want of its `what`; a failure ends the build.
fn report(done: Result<Vec<hkgen::codegen::Generated>, hkgen::Error>, what: &str, schemas: &std::path::Path) {
    match done {
        Ok(done) => {
            for g in done.iter().filter(|g| g.types.is_none()) {
                println!("cargo:warning=no {what} for SDK {} under {}; its module is empty", g.sdk, schemas.display());
            }
        }
        Err(e) => {
            eprintln!("code generation failed: {e}");
            std::process::exit(1);
        }
    }
}

