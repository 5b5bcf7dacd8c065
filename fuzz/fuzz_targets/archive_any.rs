#![no_main]
//! Fuzz target `archive_any`: see `fuzz/src/archive_checks.rs`.

#[allow(dead_code)]
#[path = "../src/archive_checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::archive_any(data));
