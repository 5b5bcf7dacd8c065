//! Golden test of the code generator: the fixture schema `tests/codegen/fixture/` with the overlay
//! `tests/codegen/enums.ron` must generate exactly `tests/codegen/fixture.rs`. Re-bless with
//! `HKGEN_BLESS=1 cargo test -p hkgen --test codegen`. `codegen_compile.rs` compiles the expected
//! file and exercises its readers and writers.

use hkgen::codegen::Config;
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/codegen")
}

#[test]
fn golden_fixture() {
    // The build script's path: snapshot directory `tests/codegen` with the overlay `enums.ron`
    // and the SDK directory `fixture/`.
    let out = std::env::temp_dir().join(format!("hkgen-golden-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let done = hkgen::codegen::generate_sdks(&Config::new(), &dir(), &out, &["fixture"]).unwrap();
    let text = std::fs::read_to_string(&done[0].path).unwrap();
    let _ = std::fs::remove_dir_all(&out);
    let path = dir().join("fixture.rs");
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
