//! The `hkgen` command line (see `hkgen::cli`), with the generated classes of every SDK this build
//! enables, so `hkgen verify` reads objects as typed values.
fn main() -> std::process::ExitCode {
    hkgen::cli::main_with(hkclasses::classes_for_sdk)
}
