//! Every input a fuzzer failed on (kept under `tests/fuzz_regressions/<target>/`, minimized),
//! run through the same check as the fuzz target (`fuzz/src/checks.rs`): each must now read, or
//! fail with a located error, without a panic. Stable Rust, no fuzzer needed.

#[allow(dead_code)]
#[path = "../fuzz/src/checks.rs"]
mod checks;

use std::path::Path;

fn run(target: &str, check: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions").join(target);
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "bin"))
        .collect();
    inputs.sort();
    for p in &inputs {
        let bytes = std::fs::read(p).expect("read regression input");
        if std::panic::catch_unwind(|| check(&bytes)).is_err() {
            panic!("{target}: {} fails its check again", p.display());
        }
    }
    inputs.len()
}

#[test]
fn fuzz_findings_stay_fixed() {
    let mut counts = Vec::new();
    for (target, check) in [
        ("tag0", checks::tag0 as fn(&[u8])),
        ("tcm0", checks::tcm0),
        ("registry", checks::registry),
        ("packfile", checks::packfile),
        ("packfile_objects", checks::packfile_objects),
        ("typed", checks::typed),
    ] {
        counts.push(format!("{target} {}", run(target, check)));
    }
    println!("fuzz regression inputs: {}", counts.join(", "));
}
