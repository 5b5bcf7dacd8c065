//! Build script of the root crate. Code generation from `schemas/` arrives with the code-generator
//! issue; until then it only declares what it depends on.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=schemas");
}
