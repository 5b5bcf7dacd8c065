//! The `hkgen` command line (see `hkgen::cli`), with the generated classes of every SDK this build
//! enables, so `hkgen verify` reads objects as typed values
//! (packfile objects through the generated structs of `hk2014_2` and `hk2014_1`), and `dump` and
//! `convert` lay packfile objects out with the class descriptions compiled in.

/// Reading a file makes many small allocations, which mimalloc serves faster than the system
/// allocator (see `bench/README.md`).
#[cfg(not(feature = "system-allocator"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[cfg(not(feature = "system-allocator"))]
#[path = "allocator.rs"]
mod allocator;

fn main() -> std::process::ExitCode {
    #[cfg(not(feature = "system-allocator"))]
    allocator::keep_freed_pages();
    hkgen::cli::main_with(hkgen::cli::Compiled {
        classes: hkclasses::classes_for_sdk,
        packfile_sources: Some(hkclasses::packfile_sources_for_sdk),
        registry: Some(&hkclasses::REGISTRY),
    })
}
