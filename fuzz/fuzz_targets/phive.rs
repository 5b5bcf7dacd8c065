#![no_main]
//! Fuzz target `phive`: see `fuzz/src/checks.rs`. Seeds: `fuzz/seeds.sh` writes a minimal Phive
//! file made in code around a crafted TAG0 (`tests/hostile.rs`), and links the corpus's Phive
//! files (Tears of the Kingdom `.bphcl` and the like) when `$HKGEN_CORPUS` has some.

#[allow(dead_code)]
#[path = "../src/checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::phive(data));
