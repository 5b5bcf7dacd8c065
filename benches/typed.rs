//! Reading the corpus tagfiles into typed objects (`TagfileDocument::from_file_sharing` with the generated
//! classes, keeping each file's buffer rather than a copy of its DATA, as a caller holding the
//! bytes would), writing them back, and `hkgen verify`'s whole check of each file (hashes, the round
//! trip through the graph and through the classes), one core, in MB/s of file bytes. See
//! `bench/README.md`.
//!
//! `typed_read` is a batch figure: the files that share a compendium share its facts (hashes and
//! layouts of its types), computed by the first file of the first pass and kept for every later
//! file and pass. `typed_read_cold` reads each file as a program that opens one file would: the
//! compendium's facts fresh for every file (its type table already read, as `Compendia::load`
//! gives it).
//!
//! `cargo bench --bench typed`
//!
//! It allocates through mimalloc, as the `hkgen` binary does; `--features system-allocator`
//! measures the system allocator instead.

use divan::counter::{BytesCount, ItemsCount};
use divan::{black_box, Bencher};
use hkgen::inputs::Compendia;
use hktypes::graph::TagfileDocument;
use hktypes::reflect::TypeTable;
use hktypes::tagfile::{CompendiumId, CompendiumSet, TagFile};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// The allocator of the `hkgen` binary.
#[cfg(not(feature = "system-allocator"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[cfg(not(feature = "system-allocator"))]
#[path = "../src/allocator.rs"]
mod allocator;

static CORPUS: OnceLock<(Vec<(Arc<[u8]>, CompendiumSet)>, u64)> = OnceLock::new();

/// The compendium a file names: its id and type table.
type Named = Option<(CompendiumId, Arc<TypeTable>)>;

/// For each file of the corpus, the compendium it names.
static NAMED: OnceLock<Vec<Named>> = OnceLock::new();

fn corpus() -> &'static (Vec<(Arc<[u8]>, CompendiumSet)>, u64) {
    CORPUS.get().expect("corpus loaded in main")
}

fn counted<'a, 'b>(b: Bencher<'a, 'b>) -> Bencher<'a, 'b> {
    let (files, bytes) = corpus();
    b.counter(BytesCount::new(*bytes)).counter(ItemsCount::new(files.len()))
}

fn read(bytes: &Arc<[u8]>, set: &CompendiumSet) -> TagfileDocument {
    let f = TagFile::read(bytes, set).unwrap();
    TagfileDocument::from_file_sharing(&f, Some(bytes), hkclasses::classes_for_sdk(&f.sdk_version())).unwrap()
}

#[divan::bench]
fn typed_read(b: Bencher) {
    counted(b).bench(|| {
        for (bytes, set) in &corpus().0 {
            black_box(read(bytes, set));
        }
    });
}

#[divan::bench]
fn typed_read_cold(b: Bencher) {
    let named = NAMED.get().expect("loaded in main");
    counted(b).bench(|| {
        for ((bytes, _), named) in corpus().0.iter().zip(named) {
            // A set of its own: the compendium's facts start empty.
            let mut set = CompendiumSet::new();
            if let Some((id, types)) = named {
                set.insert(*id, Arc::clone(types));
            }
            black_box(read(bytes, &set));
        }
    });
}

#[divan::bench]
fn typed_write(b: Bencher) {
    let docs: Vec<TagfileDocument> = corpus().0.iter().map(|(bytes, set)| read(bytes, set)).collect();
    counted(b).bench(|| {
        for d in &docs {
            black_box(d.write().unwrap());
        }
    });
}

#[divan::bench]
fn verify(b: Bencher) {
    let verifier = hkgen::verify::Verifier { classes: hkclasses::classes_for_sdk, ..Default::default() };
    counted(b).bench(|| {
        for (bytes, set) in &corpus().0 {
            let report = verifier.verify("bench", bytes, set);
            assert!(report.ok, "a corpus tagfile fails verify: {:?}", report.error);
            black_box(report);
        }
    });
}

fn main() {
    #[cfg(not(feature = "system-allocator"))]
    if !allocator::keep_freed_pages() {
        eprintln!("note: mimalloc gives freed pages back (MIMALLOC_PURGE_DELAY set, or another mimalloc)");
    }
    let dir = std::env::var_os("HKGEN_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"));
    if !dir.join("MANIFEST.tsv").is_file() {
        println!("SKIPPED: no corpus at {} (set HKGEN_CORPUS)", dir.display());
        return;
    }
    let compendia = Compendia::load(std::slice::from_ref(&dir)).expect("compendia");
    let mut files = Vec::new();
    for p in hkgen::inputs::walk(std::slice::from_ref(&dir)).expect("walk") {
        if hkgen::inputs::input_kind_of(&p).ok() == Some(hkgen::inputs::InputKind::Tag0) {
            files.push((Arc::<[u8]>::from(std::fs::read(&p).expect("read")), compendia.set_for(&p)));
        }
    }
    let bytes: u64 = files.iter().map(|(b, _)| b.len() as u64).sum();
    let named = files
        .iter()
        .map(|(b, set)| {
            let id = hktypes::tagfile::file::compendium_reference(b).expect("framing")?;
            Some((id, Arc::clone(set.get(&id).expect("the compendium a corpus file names"))))
        })
        .collect();
    let _ = NAMED.set(named);
    println!("{} TAG0 files, {bytes} bytes", files.len());
    let _ = CORPUS.set((files, bytes));
    divan::main();
}
