//! Reads the tagfiles given (compendia found among them) into objects: typed through the generated
//! classes, every member of every object decoded (dynamic values where no class matches), as many
//! times as fit in about two seconds; prints the throughput. Each file is read from a shared
//! buffer that its document keeps (`TagfileDocument::from_file_sharing`), as a caller holding the bytes
//! would; nothing is kept from one read to the next. Used by `bench/soulstruct.sh` to
//! compare with soulstruct-havok on the same files.
//!
//! `cargo run --release --example read_throughput -- FILE...`
//!
//! It allocates through mimalloc, as the `hkgen` binary does; `--features system-allocator` makes
//! it use the system allocator.

use hkgen::inputs::Compendia;
use hktypes::graph::TagfileDocument;
use hktypes::tagfile::TagFile;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// The allocator the `hkgen` binary uses (`bench/README.md` gives the system allocator's figure).
#[cfg(not(feature = "system-allocator"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let paths: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let compendia = Compendia::load(&paths).expect("compendia");
    // Each file is held as a shared buffer, which the documents keep instead of copying DATA.
    let files: Vec<(Arc<[u8]>, _)> = paths
        .iter()
        .filter(|p| hkgen::inputs::input_kind_of(p).ok() == Some(hkgen::inputs::InputKind::Tag0))
        .map(|p| (Arc::from(std::fs::read(p).expect("read")), compendia.set_for(p)))
        .collect();
    let bytes: usize = files.iter().map(|(b, _)| b.len()).sum();
    let start = Instant::now();
    let mut passes = 0u32;
    let mut objects = 0usize;
    while passes == 0 || start.elapsed().as_secs_f64() < 2.0 {
        for (b, set) in &files {
            let f = TagFile::read(b, set).expect("read tagfile");
            let doc = TagfileDocument::from_file_sharing(&f, Some(b), hkclasses::classes_for_sdk(&f.sdk_version())).expect("read objects");
            objects += std::hint::black_box(doc).counts().typed;
        }
        passes += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{} files, {bytes} bytes, {passes} passes, {} typed objects per pass, {:.3} s, {:.1} MB/s",
        files.len(),
        objects / passes as usize,
        secs,
        bytes as f64 * f64::from(passes) / secs / 1e6
    );
}
