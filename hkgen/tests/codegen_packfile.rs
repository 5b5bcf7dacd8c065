//! Golden test of the packfile code generator (`hkgen::codegen::packfile`): the small hand-written
//! hkClass schema `tests/codegen/packfile/fixture/classes/` must generate exactly
//! `tests/codegen/packfile_fixture.rs`, as the root crate's build script generates a packfile SDK's
//! module. Re-bless with `HKGEN_BLESS=1 cargo test -p hkgen --test codegen_packfile`. The tagfile
//! generator's golden test is `codegen.rs`. The expected file is also compiled here.

// The generated code's `cfg_attr(feature = "serde", ...)` names the root crate's feature.
#![allow(unexpected_cfgs)]

use hkgen::codegen::Config;
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/codegen")
}

#[test]
fn golden_packfile_fixture() {
    // The build script's path: schema directory `tests/codegen/packfile` with the SDK folder
    // `fixture/classes/`.
    let out = std::env::temp_dir().join(format!("hkgen-golden-packfile-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let done = hkgen::codegen::generate_packfile_sdks(&Config::new(), &dir().join("packfile"), &out, &["fixture"]).unwrap();
    let text = std::fs::read_to_string(&done[0].path).unwrap();
    let _ = std::fs::remove_dir_all(&out);
    // Every class but the one that holds a class the schema lacks has a struct.
    assert_eq!(done[0].types, Some(4), "classes with a struct");
    assert!(text.contains("pub struct fxBody") && !text.contains("pub struct fxBroken"), "{text}");
    let path = dir().join("packfile_fixture.rs");
    if std::env::var_os("HKGEN_BLESS").is_some() {
        std::fs::write(&path, &text).unwrap();
        return; // not-a-skip: re-blessed
    }
    let old = std::fs::read_to_string(&path).unwrap_or_default();
    if old != text {
        let line = old.lines().zip(text.lines()).position(|(a, b)| a != b).unwrap_or(old.lines().count().min(text.lines().count()));
        panic!(
            "{} differs from the generated code from line {} on; re-bless with HKGEN_BLESS=1\n  expected: {:?}\n  generated: {:?}",
            path.display(),
            line + 1,
            old.lines().nth(line),
            text.lines().nth(line)
        );
    }
}

#[allow(non_camel_case_types, non_snake_case, non_upper_case_globals, dead_code)]
mod expected {
    include!("codegen/packfile_fixture.rs");
}

/// The expected file compiles, and its tables hold what the schema gives: a struct per class with
/// a signature, every class's description (the one without a struct too) and the enums.
#[test]
fn expected_packfile_module_compiles_with_its_tables() {
    use hktypes::packfile::layout::ClassSource;
    let names: Vec<&str> = expected::CLASSES.iter().map(|c| c.name).collect();
    assert_eq!(names, ["fxBase", "fxBody", "fxMesh", "fxPoint"]);
    assert_eq!(expected::SCHEMA.sdk, "2014.2");
    let described: Vec<&str> = expected::SCHEMA.classes.iter().map(|c| c.name).collect();
    assert_eq!(described, ["fxBase", "fxBody", "fxBroken", "fxMesh", "fxPoint"]);
    assert_eq!(expected::SCHEMA.enums.iter().map(|e| e.name).collect::<Vec<_>>(), ["fxBody::Flags", "fxBody::MotionType"]);
    assert!(expected::SCHEMA.signature("fxBody").is_some());
    assert_eq!(<expected::fxBody_MotionType as hktypes::value::Enumeration>::name_of(2), Some("MOTION_KEYFRAMED"));
}
