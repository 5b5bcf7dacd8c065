#![no_main]
//! Fuzz target `tagfile_xml`: see `fuzz/src/checks.rs`.

#[allow(dead_code)]
#[path = "../src/checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::tagfile_xml(data));
