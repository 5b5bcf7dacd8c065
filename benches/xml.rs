//! Packfile XML over the corpus: binary -> XML (`to_xml`: `xml::write` of each document) and
//! XML -> binary (`from_xml`: `xml::read` of each text through the class schemas, then
//! `PackfileDocument::write`), one core, over the corpus packfiles whose objects are all typed and that
//! have an XML form. `to_xml_reused` is `to_xml` into one buffer reused for every file
//! (`xml::write_to`). The rows count the files' **binary bytes** (the packfiles as stored), not
//! the XML text's, so that the two directions compare. `xml_events_only` (and
//! `tagfile_xml_events_only`) is quick-xml's event loop alone over the same texts: what any
//! reader built on that tokenizer cannot beat; `xml_read` is `from_xml` without the binary write
//! (`xml::read` alone), the figure to set against it. See `bench/README.md`.
//!
//! `tagfile_to_xml` and `tagfile_from_xml` do the same for `<hktagfile>` XML over the corpus TAG0
//! files with a `TYPE` section of their own (`tagfile::xml::write` of each file read;
//! `tagfile::xml::read` then `write_tag0`), counting their binary bytes.
//!
//! `cargo bench --bench xml`

use divan::counter::{BytesCount, ItemsCount};
use divan::{black_box, Bencher};
use hkgen::reflection::check::ClassSchemas;
use hkgen::reflection::sources::sdk_of_contents_version;
use hktypes::packfile::objects::{Body, PackfileDocument};
use hktypes::packfile::xml::{self, ReadOptions, WriteOptions};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

#[cfg(not(feature = "system-allocator"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[cfg(not(feature = "system-allocator"))]
#[path = "../src/allocator.rs"]
mod allocator;

struct File {
    sdk: String,
    doc: PackfileDocument,
    text: String,
}

static SCHEMAS: OnceLock<ClassSchemas> = OnceLock::new();
static CORPUS: OnceLock<(Vec<File>, u64)> = OnceLock::new();
/// A TAG0 file with its own types: the binary and its XML.
type Tagfile = (Vec<u8>, String);
static TAGFILES: OnceLock<(Vec<Tagfile>, u64)> = OnceLock::new();

fn tagfiles_counted<'a, 'b>(b: Bencher<'a, 'b>) -> Bencher<'a, 'b> {
    let (files, bytes) = TAGFILES.get().expect("corpus loaded in main");
    b.counter(BytesCount::new(*bytes)).counter(ItemsCount::new(files.len()))
}

#[divan::bench]
fn tagfile_to_xml(b: Bencher) {
    let none = Default::default();
    tagfiles_counted(b).bench(|| {
        for (data, _) in &TAGFILES.get().unwrap().0 {
            let file = hktypes::tagfile::TagFile::read(data, &none).unwrap();
            black_box(hktypes::tagfile::xml::write(&file, Default::default()).unwrap());
        }
    });
}

#[divan::bench]
fn tagfile_from_xml(b: Bencher) {
    let none = Default::default();
    tagfiles_counted(b).bench(|| {
        for (_, text) in &TAGFILES.get().unwrap().0 {
            black_box(hktypes::tagfile::xml::read(text.as_bytes()).unwrap().write_tag0(&none).unwrap());
        }
    });
}

fn counted<'a, 'b>(b: Bencher<'a, 'b>) -> Bencher<'a, 'b> {
    let (files, bytes) = CORPUS.get().expect("corpus loaded in main");
    b.counter(BytesCount::new(*bytes)).counter(ItemsCount::new(files.len()))
}

#[divan::bench]
fn to_xml(b: Bencher) {
    counted(b).bench(|| {
        for f in &CORPUS.get().unwrap().0 {
            black_box(xml::write(&f.doc, WriteOptions::default()).unwrap());
        }
    });
}

/// `to_xml` into one buffer for all files (`xml::write_to`, the buffer cleared before each file),
/// as a converter of many files can write: the buffer's pages are touched once, not per file.
#[divan::bench]
fn to_xml_reused(b: Bencher) {
    let mut out = String::new();
    counted(b).bench_local(|| {
        for f in &CORPUS.get().unwrap().0 {
            out.clear();
            xml::write_to(&f.doc, WriteOptions::default(), &mut out).unwrap();
            black_box(&out);
        }
    });
}

/// The number of quick-xml events in `text`, and nothing else done with them.
fn events_only(text: &str) -> usize {
    let mut events = 0usize;
    let mut r = quick_xml::Reader::from_str(text);
    while !matches!(r.read_event().unwrap(), quick_xml::events::Event::Eof) {
        events += 1;
    }
    events
}

/// quick-xml's events over the same texts and nothing else (no attribute, text or number read):
/// the ceiling of any reader built on that tokenizer, counted in the same binary bytes.
#[divan::bench]
fn xml_events_only(b: Bencher) {
    counted(b).bench(|| CORPUS.get().unwrap().0.iter().map(|f| events_only(&f.text)).sum::<usize>());
}

/// `xml_events_only` over the `<hktagfile>` texts of `tagfile_from_xml`, counted in their
/// binary bytes.
#[divan::bench]
fn tagfile_xml_events_only(b: Bencher) {
    tagfiles_counted(b).bench(|| TAGFILES.get().unwrap().0.iter().map(|(_, text)| events_only(text)).sum::<usize>());
}

#[divan::bench]
fn from_xml(b: Bencher) {
    let schemas = SCHEMAS.get().unwrap();
    counted(b).bench(|| {
        for f in &CORPUS.get().unwrap().0 {
            let options = ReadOptions { layout: f.doc.layout(), ..Default::default() };
            let doc = xml::read(f.text.as_bytes(), &schemas.sources_for(&f.sdk), options).unwrap();
            black_box(doc.write().unwrap());
        }
    });
}

/// `from_xml` without the binary write: `xml::read` of each text alone, the reader that issue 39
/// measures against `xml_events_only` (same texts, same binary bytes counted).
#[divan::bench]
fn xml_read(b: Bencher) {
    let schemas = SCHEMAS.get().unwrap();
    counted(b).bench(|| {
        for f in &CORPUS.get().unwrap().0 {
            let options = ReadOptions { layout: f.doc.layout(), ..Default::default() };
            black_box(xml::read(f.text.as_bytes(), &schemas.sources_for(&f.sdk), options).unwrap());
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
    let schemas = SCHEMAS.get_or_init(|| ClassSchemas::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas")).expect("schemas"));
    let mut files = Vec::new();
    let mut bytes = 0u64;
    let (mut tagfiles, mut tag_bytes) = (Vec::new(), 0u64);
    for p in hkgen::inputs::walk(std::slice::from_ref(&dir)).expect("walk") {
        if hkgen::inputs::input_kind_of(&p).ok() == Some(hkgen::inputs::InputKind::Tag0) {
            let data = std::fs::read(&p).expect("read");
            // TCRF files need their compendium: left out.
            let Ok(file) = hktypes::tagfile::TagFile::read(&data, &Default::default()) else { continue };
            let text = hktypes::tagfile::xml::write(&file, Default::default()).expect("a corpus TAG0 file writes as XML");
            tag_bytes += data.len() as u64;
            tagfiles.push((data, text));
            continue;
        }
        if hkgen::inputs::input_kind_of(&p).ok() != Some(hkgen::inputs::InputKind::Packfile) {
            continue;
        }
        let data = std::fs::read(&p).expect("read");
        let file = hktypes::packfile::PackFile::read(&data).expect("a corpus packfile reads");
        let sdk = sdk_of_contents_version(&file.contents_version());
        let Ok(doc) = PackfileDocument::from_file_with(file, &schemas.sources_for(&sdk)) else { continue };
        if doc.objects.iter().any(|o| matches!(o.body, Body::Untyped(_))) {
            continue;
        }
        let Ok(text) = xml::write(&doc, WriteOptions::default()) else { continue };
        bytes += data.len() as u64;
        files.push(File { sdk, doc, text });
    }
    let text_bytes: usize = files.iter().map(|f| f.text.len()).sum();
    println!("{} packfiles with every object typed, {bytes} binary bytes, {text_bytes} bytes of XML", files.len());
    let _ = CORPUS.set((files, bytes));
    let tag_text: usize = tagfiles.iter().map(|(_, t)| t.len()).sum();
    println!("{} TAG0 files with their own types, {tag_bytes} binary bytes, {tag_text} bytes of XML", tagfiles.len());
    let _ = TAGFILES.set((tagfiles, tag_bytes));
    divan::main();
}
