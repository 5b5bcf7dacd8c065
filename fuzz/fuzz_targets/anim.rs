#![no_main]
//! Fuzz target `anim`: see `fuzz/src/checks.rs`.

#[allow(dead_code)]
#[path = "../src/checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(init: checks::init(), |data: &[u8]| checks::anim(data));
