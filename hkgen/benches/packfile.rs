//! Throughput of reading packfiles into objects and laying `__data__` out again, over the corpus
//! packfiles (`$HKGEN_CORPUS`, else `../shared/corpus`), one core, in MB/s of file bytes. The
//! class schemas are the committed `schemas/<sdk>/classes/`, as runtime class sets built once. See `bench/README.md`.
//!
//! `cargo bench -p hkgen --bench packfile`
//!
//! - `read_container`: `PackFile::read` alone (header, sections, tables).
//! - `read_objects`: `PackfileDocument::read`: the container, every object through its class (and the
//!   check that it writes back to its bytes) or kept raw.
//! - `write_objects`: from documents already read, `PackfileDocument::write`.
//! - `read_botw`, `write_botw`: the same over the BotW files alone (every object typed).
//! - `convert_botw`: the BotW Wii U files, read and written as Switch.

use divan::counter::{BytesCount, ItemsCount};
use divan::{black_box, Bencher};
use hkgen::reflection::check::ClassSchemas;
use hkgen::reflection::sources::sdk_of_contents_version;
use hktypes::packfile::layout::{ClassSet, ClassSource};
use hktypes::packfile::objects::PackfileDocument;
use hktypes::packfile::{LayoutRules, PackFile};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

struct Corpus {
    /// File bytes and the SDK's class schema.
    files: Vec<(Vec<u8>, Option<String>)>,
    bytes: u64,
    schemas: ClassSchemas,
}

static CORPUS: OnceLock<Corpus> = OnceLock::new();
static EMPTY: OnceLock<ClassSet> = OnceLock::new();

fn corpus() -> &'static Corpus {
    CORPUS.get().expect("corpus loaded in main")
}

fn sources(sdk: &Option<String>) -> Vec<&'static dyn ClassSource> {
    match sdk {
        Some(s) => corpus().schemas.sources_for(s),
        None => vec![EMPTY.get_or_init(ClassSet::default)],
    }
}

fn load(dir: &Path, schemas: ClassSchemas) -> Corpus {
    let paths = hkgen::inputs::walk(&[dir.to_path_buf()]).expect("walk corpus");
    let mut files = Vec::new();
    for p in paths {
        let bytes = std::fs::read(&p).expect("read");
        if let Ok(f) = PackFile::read(&bytes) {
            let sdk = sdk_of_contents_version(&f.contents_version());
            let sdk = Some(sdk);
            files.push((bytes, sdk));
        }
    }
    let bytes = files.iter().map(|(b, _)| b.len() as u64).sum();
    Corpus { files, bytes, schemas }
}

fn counters<'a, 'b>(b: Bencher<'a, 'b>) -> Bencher<'a, 'b> {
    let c = corpus();
    b.counter(BytesCount::new(c.bytes)).counter(ItemsCount::new(c.files.len()))
}

#[divan::bench]
fn read_container(b: Bencher) {
    counters(b).bench(|| {
        for (bytes, _) in &corpus().files {
            black_box(PackFile::read(bytes).unwrap());
        }
    });
}

#[divan::bench]
fn read_objects(b: Bencher) {
    counters(b).bench(|| {
        for (bytes, sdk) in &corpus().files {
            black_box(PackfileDocument::from_file_with(PackFile::read(bytes).unwrap(), &sources(sdk)).unwrap());
        }
    });
}

#[divan::bench]
fn write_objects(b: Bencher) {
    let docs: Vec<PackfileDocument> = corpus().files.iter().map(|(bytes, sdk)| PackfileDocument::from_file_with(PackFile::read(bytes).unwrap(), &sources(sdk)).unwrap()).collect();
    counters(b).bench(|| {
        for d in &docs {
            black_box(d.write().unwrap());
        }
    });
}

/// A corpus file: its bytes and its SDK.
type CorpusFile = (Vec<u8>, Option<String>);

fn botw() -> (Vec<&'static CorpusFile>, u64) {
    let files: Vec<_> = corpus().files.iter().filter(|(bytes, _)| PackFile::read(bytes).is_ok_and(|f| f.contents_version() == "hk_2014.2.0-r1")).collect();
    let n = files.iter().map(|(b, _)| b.len() as u64).sum();
    (files, n)
}

#[divan::bench]
fn read_botw(b: Bencher) {
    let (files, n) = botw();
    b.counter(BytesCount::new(n)).counter(ItemsCount::new(files.len())).bench(|| {
        for (bytes, sdk) in &files {
            black_box(PackfileDocument::from_file_with(PackFile::read(bytes).unwrap(), &sources(sdk)).unwrap());
        }
    });
}

#[divan::bench]
fn write_botw(b: Bencher) {
    let (files, n) = botw();
    let docs: Vec<PackfileDocument> = files.iter().map(|(bytes, sdk)| PackfileDocument::from_file_with(PackFile::read(bytes).unwrap(), &sources(sdk)).unwrap()).collect();
    b.counter(BytesCount::new(n)).counter(ItemsCount::new(files.len())).bench(|| {
        for d in &docs {
            black_box(d.write().unwrap());
        }
    });
}

#[divan::bench]
fn convert_botw(b: Bencher) {
    let wiiu: Vec<&(Vec<u8>, Option<String>)> =
        corpus().files.iter().filter(|(bytes, _)| PackFile::read(bytes).is_ok_and(|f| f.layout() == LayoutRules::WII_U && f.contents_version() == "hk_2014.2.0-r1")).collect();
    let n: u64 = wiiu.iter().map(|(b, _)| b.len() as u64).sum();
    b.counter(BytesCount::new(n)).counter(ItemsCount::new(wiiu.len())).bench(|| {
        for (bytes, sdk) in &wiiu {
            let d = PackfileDocument::from_file_with(PackFile::read(bytes).unwrap(), &sources(sdk)).unwrap();
            black_box(d.write_as(LayoutRules::SWITCH).unwrap());
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
    let schemas = ClassSchemas::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas")).expect("schemas");
    let c = load(&dir, schemas);
    println!("{} packfiles, {} bytes", c.files.len(), c.bytes);
    for sdk in c.schemas.by_sdk.keys() {
        c.schemas.class_set(sdk);
    }
    let _ = CORPUS.set(c);
    divan::main();
}
