#![no_main]
//! Fuzz target `typed`: see `fuzz/src/typed_checks.rs`. Needs the `typed` feature (the generated
//! classes): `cargo fuzz build -O --features typed typed`.

#[allow(dead_code)]
#[path = "../src/checks.rs"]
mod checks;
#[path = "../src/typed_checks.rs"]
mod typed_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| typed_checks::typed(data));
