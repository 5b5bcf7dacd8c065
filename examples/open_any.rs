//! Open any Havok file through the one entry point, `hktypes::open`: a TAG0 tagfile, a TCM0
//! compendium, a packfile of any version or `<hkpackfile>` XML. Prints the format, the layout
//! rules of a packfile, the object counts and the classes, and checks that the file writes back
//! as it was read (binary files).
//!
//! `cargo run --example open_any -- [FILE]` (FILE defaults to a BotW 2014.2 rigid body of the
//! corpus under `$HKGEN_CORPUS`, else `../shared/corpus`). Objects are typed through the classes
//! compiled in (`hkclasses::REGISTRY`) when the file's SDK feature is built in, untyped otherwise.
//! Writes nothing.

use hktypes::{open, Format, OpenOptions};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let corpus = std::env::var_os("HKGEN_CORPUS").map(PathBuf::from).unwrap_or_else(|| "../shared/corpus".into());
    let path = std::env::args_os().nth(1).map(PathBuf::from).unwrap_or_else(|| {
        corpus.join("NiceneNerd__UKMM/uk-mod/test/wiiu/content/Actor/Pack/Obj_Mineral_A_01.sbactorpack/RigidBody/Obj_Mineral_A/Obj_Mineral_A_01.hkrb")
    });
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;

    // Where the classes come from: compiled in, every SDK this build enables (tagfile classes of
    // the file's SDK, packfile class descriptions of its contents version); a compendium the file
    // names is looked for beside it.
    let compendia = hkgen::inputs::Compendia::load_near(&path)?;
    let set = compendia.set_for(&path);
    let options = OpenOptions { compendia: Some(&set), ..hkclasses::open_options() };
    let doc = open(&bytes, &options).map_err(|e| e.in_file(path.display().to_string()))?;

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
