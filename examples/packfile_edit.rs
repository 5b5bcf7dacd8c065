//! A typed edit of a Breath of the Wild packfile through the generated structs of `hk2014_2`:
//! every rigid body of a ragdoll gets half its friction, the skeleton's first bone a new name, and
//! the file is written again (for its own platform, and for the Switch).
//!
//! ```sh
//! cargo run --example packfile_edit --features hk2014_2 -- IN.hkrg OUT.hkrg
//! ```
//!
//! Without arguments it reads a ragdoll of the corpus (`$HKGEN_CORPUS`, else `../shared/corpus`)
//! and writes `target/packfile_edit.hkrg` (under the current directory, the checkout's `target/`
//! when run through cargo), never into the checkout itself.
use hkclasses::hk2014_2::{hkaSkeleton, hkpRigidBody};
use hktypes::packfile::LayoutRules;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let input = args.next().map(std::path::PathBuf::from).unwrap_or_else(|| {
        let corpus = std::env::var_os("HKGEN_CORPUS").map_or_else(|| "../shared/corpus".into(), std::path::PathBuf::from);
        corpus.join("NiceneNerd__UKMM/uk-mod/test/wiiu/content/Actor/Pack/Enemy_Moriblin_Dark.sbactorpack/Ragdoll/Moriblin_Blue/Moriblin_Blue.hkrg")
    });
    let output = args.next().unwrap_or_else(|| "target/packfile_edit.hkrg".into());

    // The class descriptions are compiled in (`hkclasses::open_options()`, no schema folder at
    // run time); the document lays them out under the file's own layout rules.
    let bytes = std::fs::read(&input)?;
    let mut doc = hktypes::open(&bytes, &hkclasses::open_options())?;
    let layout = doc.layout().ok_or("not a packfile")?;
    println!("{}: layout {layout}, {} objects", input.display(), doc.handles().len());

    for h in doc.find("hkpRigidBody") {
        let mut b = doc.get_mut::<hkpRigidBody>(h)?;
        let before = b.material.friction;
        b.material.friction *= 0.5;
        println!("  {}: friction {before} -> {}, motion {:?}", b.name.as_deref().unwrap_or(""), b.material.friction, b.motion.r#type);
    }
    if let Some(&h) = doc.find("hkaSkeleton").first() {
        let mut s = doc.get_mut::<hkaSkeleton>(h)?;
        println!("  skeleton {:?}: {} bones", s.name.as_deref(), s.bones.len());
        if let Some(bone) = s.bones.first_mut() {
            println!("  first bone {:?} -> \"root_renamed\"", bone.name.as_deref());
            bone.name = "root_renamed".into();
        }
    }

    if let Some(dir) = std::path::Path::new(&output).parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(&output, doc.write()?)?;
    // The same objects for the other platform (pointer size, byte order and padding rules).
    let other = if layout.pointer_size == 8 { LayoutRules::WII_U } else { LayoutRules::SWITCH };
    let converted = doc.write_as(Some(other))?;
    println!("wrote {output}; as {other}: {} bytes", converted.len());
    Ok(())
}
