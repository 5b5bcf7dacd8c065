#![no_main]
//! Fuzz target `anim_spline`: see `anim_spline` in `fuzz/src/checks.rs` (the input's layout).

#[allow(dead_code)]
#[path = "../src/checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::anim_spline(data));
