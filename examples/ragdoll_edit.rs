//! A typed edit, end to end: open Sekiro's Genichiro ragdoll (`c7190.hkx`, SDK 2016.2), make its
//! first body keyframed and double its mass, write the file, read it back and show the change.
//!
//! `cargo run --example ragdoll_edit --features hk2016_2 -- [IN] [OUT]`
//! (IN defaults to the corpus copy, OUT to `target/c7190-edited.hkx`).

use hkclasses::hk2016_2::{hknpMotionType_Enum, hknpRagdollData};
use hktypes::value::Enum;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let corpus = std::env::var_os("HKGEN_CORPUS").map(PathBuf::from).unwrap_or_else(|| "../shared/corpus".into());
    let mut args = std::env::args_os().skip(1);
    let input = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| corpus.join("nikhil-RGB__Genichiro-The-Last-Stand/chr/c7190.chrbnd/chr/c7190/c7190.hkx"));
    let output = args.next().map(PathBuf::from).unwrap_or_else(|| "target/c7190-edited.hkx".into());

    let bytes = std::fs::read(&input)?;
    let mut doc = hktypes::open(&bytes, &hkclasses::open_options())?;
    let hktypes::Counts { typed, untyped, .. } = doc.counts();
    println!("{}: {typed} typed and {untyped} untyped objects", input.display());

    let (handle, ragdoll) = doc.all::<hknpRagdollData>().next().ok_or("no hknpRagdollData in the file")?;
    let ragdoll = ragdoll?;
    let body = &ragdoll.body_cinfos[0];
    println!(
        "body 0 {:?}: motion type {} ({:?}), mass {}",
        body.name.as_deref().unwrap_or(""),
        body.motion_type.value(),
        body.motion_type.name(),
        body.mass
    );

    drop(ragdoll);
    let mut ragdoll = doc.get_mut::<hknpRagdollData>(handle)?;
    let body = &mut ragdoll.body_cinfos[0];
    body.motion_type = Enum::<hknpMotionType_Enum, u8>::new(1); // KEYFRAMED
    body.mass *= 2.0;
    drop(ragdoll);

    let out = doc.write()?;
    if let Some(dir) = output.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(&output, &out)?;
    let changed: Vec<usize> = bytes.iter().zip(&out).enumerate().filter(|(_, (a, b))| a != b).map(|(i, _)| i).collect();
    println!("wrote {} ({} bytes, {} bytes differ: {:x?})", output.display(), out.len(), changed.len(), changed);

    let again = hktypes::open(&out, &hkclasses::open_options())?;
    let ragdoll = again.get::<hknpRagdollData>(handle)?;
    let body = &ragdoll.body_cinfos[0];
    println!("read back: motion type {} ({:?}), mass {}", body.motion_type.value(), body.motion_type.name(), body.mass);
    Ok(())
}
