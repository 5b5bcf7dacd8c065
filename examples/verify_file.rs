//! Verify files as `hkgen verify` does, from code: parse, recompute every stored type hash, read
//! every object through the generated classes and write the file back.
//!
//! `cargo run --example verify_file -- [FILE_OR_DIR...]` (defaults to the Elden Ring ragdoll of the
//! corpus). Compendia (`.compendium`, TCM0) among the inputs serve the tagfiles that name them.

use hkgen::inputs::{self, Compendia, InputKind};
use hkgen::verify::Verifier;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let corpus = std::env::var_os("HKGEN_CORPUS").map(PathBuf::from).unwrap_or_else(|| "../shared/corpus".into());
    let mut args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if args.is_empty() {
        args.push(corpus.join("Axelph237__mod/chr/c3460.chrbnd/chr/c3460/c3460.hkx"));
    }
    let files = inputs::walk(&args)?;
    let tcm0: Vec<PathBuf> =
        files.iter().filter(|p| inputs::input_kind_of(p).is_ok_and(|f| f == InputKind::Tcm0)).cloned().collect();
    let compendia = Compendia::load(&tcm0)?;
    // The generated classes of every SDK this build has; packfile class schemas left out.
    let verifier = Verifier { classes: hkclasses::classes_for_sdk, ..Verifier::default() };
    let mut failed = 0;
    for path in &files {
        let bytes = std::fs::read(path)?;
        let r = verifier.verify(&path.display().to_string(), &bytes, &compendia.set_for(path));
        println!(
            "{}: {} sdk {} types {} hashes {}/{} round trip {} typed {:?} untyped {:?}{}",
            r.path,
            r.format,
            r.sdk.as_deref().unwrap_or("-"),
            r.types,
            r.hashes_matched,
            r.hashes_stored,
            r.roundtrip.unwrap_or("-"),
            r.typed,
            r.untyped,
            r.error.as_deref().map(|e| format!(" error: {e}")).unwrap_or_default()
        );
        failed += usize::from(!r.ok);
    }
    println!("{} passed, {failed} failed", files.len() - failed);
    if failed > 0 {
        std::process::exit(1);
    }
    Ok(())
}
