#![no_main]
//! Fuzz target `archive_dcx`: see `fuzz/src/archive_checks.rs`.

#[allow(dead_code)]
#[path = "../src/archive_checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::archive_dcx(data));
