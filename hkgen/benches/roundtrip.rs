//! Throughput of reading tagfiles into items and writing them back, over the corpus TAG0 files
//! (`$HKGEN_CORPUS`, else `../shared/corpus`), one core, in MB/s of file bytes. See
//! `bench/README.md`.
//!
//! `cargo bench -p hkgen --bench roundtrip`
//!
//! - `read_items`: `TagFile::read` (framing, types, `INDX`) and `Items::read` (every item copied out
//!   of `DATA` with its reference slots checked), from bytes in memory.
//! - `write`: from items already read, the walk (`write::plan`), `lay_out` and `write_file`.
//! - `read_and_write`: both, as `hkgen verify` does per file.

use divan::counter::{BytesCount, ItemsCount};
use divan::{black_box, Bencher};
use hkgen::inputs::Compendia;
use hktypes::reflect::layout::Layouts;
use hktypes::tagfile::items::Items;
use hktypes::tagfile::{write, CompendiumSet, TagFile, TypeSource};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

struct Corpus {
    files: Vec<(Vec<u8>, CompendiumSet)>,
    bytes: u64,
}

static CORPUS: OnceLock<Corpus> = OnceLock::new();

fn corpus() -> &'static Corpus {
    CORPUS.get().expect("corpus loaded in main")
}

fn load(dir: &Path) -> Corpus {
    let paths = hkgen::inputs::walk(&[dir.to_path_buf()]).expect("walk corpus");
    let compendia = Compendia::load(&[dir.to_path_buf()]).expect("compendia");
    let mut files = Vec::new();
    for p in paths {
        if hkgen::inputs::input_kind_of(&p).ok() == Some(hkgen::inputs::InputKind::Tag0) {
            files.push((std::fs::read(&p).expect("read"), compendia.set_for(&p)));
        }
    }
    let bytes = files.iter().map(|(b, _)| b.len() as u64).sum();
    Corpus { files, bytes }
}

fn counters<'a, 'b>(b: Bencher<'a, 'b>) -> Bencher<'a, 'b> {
    let c = corpus();
    b.counter(BytesCount::new(c.bytes)).counter(ItemsCount::new(c.files.len()))
}

#[divan::bench]
fn read_items(b: Bencher) {
    counters(b).bench(|| {
        for (bytes, set) in &corpus().files {
            let f = TagFile::read(bytes, set).unwrap();
            let mut layouts = Layouts::new(&f.types);
            black_box(Items::read(&f, &mut layouts).unwrap());
        }
    });
}

#[divan::bench]
fn write(b: Bencher) {
    let read: Vec<_> = corpus()
        .files
        .iter()
        .map(|(bytes, set)| {
            let f = TagFile::read(bytes, set).unwrap();
            let items = Items::read(&f, &mut Layouts::new(&f.types)).unwrap();
            (f, items)
        })
        .collect();
    // The `TCRF` body of a file that names a compendium (its id and the bytes after it), as
    // `write::rewrite` writes it.
    let tcrf: Vec<Option<Vec<u8>>> = read
        .iter()
        .map(|(f, _)| match &f.source {
            TypeSource::Compendium { id, rest } => Some([&id.0[..], rest].concat()),
            TypeSource::Own => None,
        })
        .collect();
    fn write_one((f, items): &(TagFile<'_>, Items), tcrf: &Option<Vec<u8>>) -> Vec<u8> {
        let mut layouts = Layouts::new(&f.types);
        let plan = write::plan(items, &mut layouts).unwrap();
        let (data, table, patches) = write::lay_out(items, &plan);
        let types = match (tcrf, f.type_section) {
            (Some(body), _) => write::TypesOut::Reference(body),
            (None, Some(raw)) => write::TypesOut::Section(raw),
            (None, None) => panic!("a file with neither TYPE nor TCRF"),
        };
        write::write_file(f.sdkv_raw, &data, types, &table, &patches)
    }
    // What is timed writes the stock files back.
    for ((r, t), (bytes, _)) in read.iter().zip(&tcrf).zip(&corpus().files) {
        assert!(write_one(r, t) == *bytes, "the benchmark's write does not give the stock file back");
    }
    counters(b).bench(|| {
        for (r, t) in read.iter().zip(&tcrf) {
            black_box(write_one(r, t));
        }
    });
}

#[divan::bench]
fn read_and_write(b: Bencher) {
    counters(b).bench(|| {
        for (bytes, set) in &corpus().files {
            let f = TagFile::read(bytes, set).unwrap();
            black_box(write::rewrite(&f).unwrap());
        }
    });
}

fn main() {
    let dir = std::env::var_os("HKGEN_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"));
    if !dir.join("MANIFEST.tsv").is_file() {
        println!("SKIPPED: no corpus at {} (set HKGEN_CORPUS)", dir.display());
        return;
    }
    let c = load(&dir);
    println!("{} TAG0 files, {} bytes", c.files.len(), c.bytes);
    let _ = CORPUS.set(c);
    divan::main();
}
