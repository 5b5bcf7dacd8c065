//! Open any Havok file through the one entry point, `hktypes::open`: a TAG0 tagfile, a TCM0
//! compendium, a packfile of any version or `<hkpackfile>` XML. Prints the format, the layout
//! rules of a packfile, the object counts and the classes, and checks that the file writes back
//! as it was read (binary files).
//!
//! `cargo run --example open_any -- [FILE]` (FILE defaults to a BotW 2014.2 rigid body of the
//! corpus under `$HKGEN_CORPUS`, else `../shared/corpus`). Tagfile objects are typed through the
//! generated classes of the file's SDK when its feature is built in; packfile objects through the
//! class schemas under `schemas/`. Writes nothing.

use hkgen::reflection::check::ClassSchemas;
use hktypes::{open, Format, OpenOptions};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let corpus = std::env::var_os("HKGEN_CORPUS").map(PathBuf::from).unwrap_or_else(|| "../shared/corpus".into());
    let path = std::env::args_os().nth(1).map(PathBuf::from).unwrap_or_else(|| {
        corpus.join("NiceneNerd__UKMM/uk-mod/test/wiiu/content/Actor/Pack/Obj_Mineral_A_01.sbactorpack/RigidBody/Obj_Mineral_A/Obj_Mineral_A_01.hkrb")
    });
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;

    // Where the classes come from: the schemas beside this example for packfiles, the compiled-in
    // module of the file's SDK for tagfiles; a compendium the file names is looked for beside it.
    let schemas = ClassSchemas::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas"))?;
    let compendia = hkgen::inputs::Compendia::load_near(&path)?;
    let set = compendia.set_for(&path);
    let options = OpenOptions { compendia: Some(&set), packfile_classes: Some(&schemas), ..OpenOptions::default() };
    let mut doc = open(&bytes, &options).map_err(|e| e.in_file(path.display().to_string()))?;
    if doc.format() == Format::Tag0 {
        // A tagfile's SDK is known once read: read again through that SDK's classes.
        let classes = hkclasses::classes_for_sdk(&doc.sdk().unwrap_or_default());
        doc = open(&bytes, &OpenOptions { tagfile_classes: classes, ..options })?;
    }

    let c = doc.counts();
    println!("{}: {} (SDK {})", path.display(), doc.format().name(), doc.sdk().unwrap_or_default());
    if let Some(layout) = doc.layout() {
        println!("  layout rules {layout}");
    }
    println!("  {} typed, {} untyped objects", c.typed, c.untyped);
    let mut classes: BTreeMap<String, usize> = BTreeMap::new();
    for h in doc.handles() {
        *classes.entry(doc.class_name(h).unwrap_or_default()).or_default() += 1;
    }
    for (class, n) in classes {
        println!("  {n:>5} {class}");
    }
    if doc.format() != Format::Tcm0 && hktypes::sniff(&bytes) != Some(Format::PackfileXml) {
        let same = doc.write()? == bytes;
        println!("  written back: {}", if same { "the same bytes" } else { "different bytes" });
    }
    Ok(())
}
