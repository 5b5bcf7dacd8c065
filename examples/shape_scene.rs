//! The placed triangle meshes of Havok files (`hktypes::shape::scene`): collision shapes,
//! ragdoll bodies and constraints, cloth sim meshes and collidables. Prints, per file, each
//! mesh's role, name, shape class, vertex and triangle counts, and the constraints; a file
//! whose shapes cannot be read prints the located error.
//!
//! `cargo run --no-default-features --features cli --example shape_scene -- FILE...`. Packfiles
//! are read through the class schemas under `schemas/` (no SDK feature needed); a compendium a
//! tagfile names is looked for beside it. Writes nothing.

use hkgen::reflection::check::ClassSchemas;
use hktypes::{open, shape, OpenOptions};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let schemas = ClassSchemas::load(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schemas"))?;
    let mut failed = 0;
    for path in std::env::args_os().skip(1).map(PathBuf::from) {
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let compendia = hkgen::inputs::Compendia::load_near(&path)?;
        let set = compendia.set_for(&path);
        let options = OpenOptions { compendia: Some(&set), classes: Some(&schemas), ..OpenOptions::default() };
        let doc = match open(&bytes, &options) {
            Ok(d) => d,
            Err(e) => {
                println!("{}: {e}", path.display());
                failed += 1;
                continue;
            }
        };
        let scene = match shape::scene(&doc) {
            Ok(s) => s,
            Err(e) => {
                println!("{}: {e}", path.display());
                failed += 1;
                continue;
            }
        };
        let triangles: usize = scene.meshes.iter().map(|p| p.mesh.triangles.len()).sum();
        println!("{}: {} meshes, {triangles} triangles, {} constraints", path.display(), scene.meshes.len(), scene.constraints.len());
        let mut classes: BTreeMap<(String, String), (usize, usize, usize)> = BTreeMap::new();
        for p in &scene.meshes {
            let e = classes.entry((format!("{:?}", p.role), p.shape_class.clone())).or_default();
            e.0 += 1;
            e.1 += p.mesh.positions.len();
            e.2 += p.mesh.triangles.len();
        }
        for ((role, class), (n, v, t)) in classes {
            println!("  {n:>5} {role:<16} {class:<40} {v:>9} vertices {t:>9} triangles");
        }
    }
    if failed > 0 {
        return Err(format!("{failed} file(s) gave no scene").into());
    }
    Ok(())
}
