//! Open a tagfile and read a typed field: Elden Ring's `c3460.hkx` (SDK 2018.1), its ragdoll's
//! bodies with their names and masses, through the generated classes of `hkclasses::hk2018_1`.
//!
//! `cargo run --example read_field -- [FILE]` (FILE defaults to the corpus copy under
//! `$HKGEN_CORPUS`, else `../shared/corpus`). Any SDK 2018.1 tagfile with a ragdoll will do; one
//! that names a compendium (`TCRF`) needs the compendium: see `verify_file.rs`.

#[cfg(feature = "hk2018_1")]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    use hkclasses::hk2018_1::hknpRagdollData;
    use std::path::PathBuf;

    let corpus = std::env::var_os("HKGEN_CORPUS").map(PathBuf::from).unwrap_or_else(|| "../shared/corpus".into());
    let path = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| corpus.join("Axelph237__mod/chr/c3460.chrbnd/chr/c3460/c3460.hkx"));
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;

    // Objects whose class the build compiles in (by name and layout hash) are typed; the rest are
    // untyped.
    let doc = hktypes::open(&bytes, &hkclasses::open_options())?;
    let hktypes::Counts { typed, untyped, .. } = doc.counts();
    println!("{}: {typed} typed and {untyped} untyped objects", path.display());
    for h in doc.handles().into_iter().take(8) {
        println!("  object {h:?}: {}", doc.class_name(h).unwrap_or_default());
    }

    let (_, ragdoll) = doc.all::<hknpRagdollData>().next().ok_or("no hknpRagdollData in the file")?;
    let ragdoll = ragdoll?;
    // Inherited members through Deref: body_cinfos belongs to hknpPhysicsSystemData.
    for (i, body) in ragdoll.body_cinfos.iter().enumerate().take(5) {
        println!(
            "body {i}: {:<24} mass {:>6} motion type {:?} at {:?}",
            body.name.as_deref().unwrap_or(""),
            body.mass,
            body.motion_type.name(),
            &body.position.lanes[..3]
        );
    }
    println!("{} bodies, {} constraints", ragdoll.body_cinfos.len(), ragdoll.constraint_cinfos.len());
    Ok(())
}

#[cfg(not(feature = "hk2018_1"))]
fn main() {
    eprintln!("this example needs the hk2018_1 feature (on by default)");
}
