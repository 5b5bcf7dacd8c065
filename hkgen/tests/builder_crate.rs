//! A crate of a user's own, outside this workspace, that generates a few classes with
//! `hkgen::Builder` in its build script and reads a typed field from a corpus tagfile (Elden Ring's
//! `c3460.hkx` ragdoll, SDK 2018.1) through them: the generated subset compiles on its own, and
//! the file reads as typed objects and writes back byte for byte.
//!
//! The crate lives under `target/builder-crate/` with its own target directory beside it, so that
//! it does not lock the workspace's and its rebuilds stay cheap.

#[path = "../../tests/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("hkgen/ has a parent").to_path_buf()
}

const BUILD_RS: &str = r#"
fn main() {
    let schemas = concat!(env!("HKGEN_WORKSPACE"), "/schemas/2018.1");
    // The ragdoll and what it holds and points to: $OUT_DIR/hk2018_1.rs, bare items.
    let report = hkgen::Builder::new().schemas(schemas).classes(["hknpRagdollData"]).generate().unwrap();
    assert!(report.classes.iter().any(|c| c == "hknpRagdollData"));
    // A body alone, its pointers untyped, wrapped in a module of its own.
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").unwrap()).join("bodies.rs");
    hkgen::Builder::new()
        .schemas(schemas)
        .classes(["hknpBodyCinfo"])
        .follow_pointers(false)
        .formatted(false)
        .module("bodies")
        .out_file(out)
        .generate()
        .unwrap();
}
"#;

const MAIN_RS: &str = r#"
#[allow(non_camel_case_types, non_snake_case, non_upper_case_globals, dead_code)]
mod havok {
    include!(concat!(env!("OUT_DIR"), "/hk2018_1.rs"));
}
include!(concat!(env!("OUT_DIR"), "/bodies.rs"));

fn main() {
    let path = std::env::args().nth(1).expect("a tagfile path");
    let bytes = std::fs::read(&path).unwrap();
    let options = hktypes::OpenOptions { classes: Some(&havok::CLASSES), ..Default::default() };
    let doc = hktypes::open(&bytes, &options).unwrap();
    let (_, ragdoll) = doc.all::<havok::hknpRagdollData>().next().expect("a typed hknpRagdollData");
    let ragdoll = ragdoll.unwrap();
    let body = &ragdoll.body_cinfos[0];
    println!("body 0: {} mass {}", body.name.as_deref().unwrap_or(""), body.mass);
    println!("skeleton pointer typed: {}", std::any::type_name_of_val(&ragdoll.skeleton).contains("hkaSkeleton"));
    assert_eq!(doc.write().unwrap(), bytes, "written back byte for byte");
    // The subset without pointers: a body's shape is a pointer to Unknown, and the class table
    // holds the body and its id only.
    let shape: fn(&bodies::hknpBodyCinfo) -> &hktypes::value::Ptr<hktypes::value::Unknown> = |b| &b.shape;
    let _ = shape;
    println!("bodies classes: {}", bodies::CLASSES.len());
}
"#;

#[test]
fn an_external_crate_generates_classes_with_the_builder_and_reads_a_typed_field() {
    let Some(corpus) = common::corpus() else { return };
    let file = corpus.join("Axelph237__mod/chr/c3460.chrbnd/chr/c3460/c3460.hkx");
    let ws = workspace();
    let root = ws.join("target/builder-crate");
    let pkg = root.join("user");
    std::fs::create_dir_all(pkg.join("src")).unwrap();
    let manifest = format!(
        r#"[package]
name = "hkgen-builder-user"
version = "0.0.0"
edition = "2021"
publish = false

# Not a member of the hkgen workspace that holds target/. Literal strings: paths as they are.
[workspace]

[dependencies]
hktypes = {{ path = '{ws}/hktypes' }}

[build-dependencies]
hkgen = {{ path = '{ws}/hkgen', default-features = false }}
"#,
        ws = ws.display()
    );
    let write = |rel: &str, text: &str| {
        let p = pkg.join(rel);
        if std::fs::read_to_string(&p).ok().as_deref() != Some(text) {
            std::fs::write(&p, text).unwrap();
        }
    };
    write("Cargo.toml", &manifest);
    write("build.rs", BUILD_RS);
    write("src/main.rs", MAIN_RS);
    // The workspace's lock file pins the same dependency versions, so nothing new is resolved.
    if !pkg.join("Cargo.lock").exists() {
        std::fs::copy(ws.join("Cargo.lock"), pkg.join("Cargo.lock")).unwrap();
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["run", "--quiet", "--manifest-path"])
        .arg(pkg.join("Cargo.toml"))
        .arg("--")
        .arg(&file)
        .env("CARGO_TARGET_DIR", root.join("target"))
        .env("HKGEN_WORKSPACE", &ws)
        .output()
        .expect("run cargo");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "cargo run failed\nstdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains("body 0: Ragdoll_Pelvis001 mass 110"), "{stdout}");
    assert!(stdout.contains("skeleton pointer typed: true"), "{stdout}");
    assert!(stdout.contains("bodies classes: 2"), "{stdout}");
}
