//! Throughput of type-table extraction over the real corpus (`$HKGEN_CORPUS`, else
//! `../shared/corpus` beside the workspace), in files/s and MB/s. See `bench/README.md`.
//!
//! `cargo bench -p hkgen --bench extract`
//!
//! - `a_read_tables`: `Compendium::read` of every TCM0 and `TagFile::read` of every TAG0, from
//!   bytes already in memory, on one thread.
//! - `a_type_sections_only`: of that, only the `TYPE` sections (framing plus
//!   `type_section::read`), without `INDX` and the compendium lookup.
//! - `b_read_tables_and_check_hashes`: the same, plus `check_table` on every distinct table.
//! - `c_extract_from_disk`: the whole `hkgen::extract::extract` over the corpus folder (walk,
//!   sniff, read, parse in parallel, merge).
//! - `d_disk_read` / `d_disk_read_parallel`: only `std::fs::read` of the files that `extract` reads
//!   whole (page cache warm), on one thread / on rayon's pool like `extract`.
//! - `e_merge_and_render`: `Merger` over the tables read in setup, `finish()`, and
//!   `snapshot::render` of every schema; `e_merge_only` without the rendering.
//!
//! Every benchmark counts the same corpus bytes and files (those of the TAG0 and TCM0 files, or for
//! `c` and `d` every file that `extract` reads whole), so the MB/s columns compare directly.

use divan::counter::{BytesCount, ItemsCount};
use divan::{black_box, Bencher};
use hkgen::inputs::{self, InputKind};
use hkgen::schema::{snapshot, Merger, Origin};
use hktypes::reflect::hash::{check_table, Recipe};
use hktypes::reflect::TypeTable;
use hktypes::tagfile::{section, type_section, Compendium, CompendiumId, CompendiumSet, TagFile, TypeSource};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// The corpus, read once before any benchmark runs.
struct Corpus {
    dir: PathBuf,
    tag0: Vec<Vec<u8>>,
    tcm0: Vec<Vec<u8>>,
    /// Recipe of each compendium: that of the first tagfile that names one of its ids.
    tcm0_recipe: Vec<Recipe>,
    /// Bytes and count of the TAG0 and TCM0 files, and the bytes of their `TYPE` sections.
    bytes: u64,
    type_bytes: u64,
    files: u64,
    /// What `extract` reads whole: every TAG0, TCM0 and registry file, and their bytes and count
    /// as `extract` itself reports them.
    extract_paths: Vec<PathBuf>,
    extract_bytes: u64,
    extract_files: u64,
    /// The tables `extract` hands the merger: (SDKV, table, origin, tagfiles using it).
    merge_input: Vec<(String, Arc<TypeTable>, Origin, u32)>,
}

static CORPUS: OnceLock<Corpus> = OnceLock::new();

fn corpus() -> &'static Corpus {
    CORPUS.get().expect("corpus loaded in main")
}

fn corpus_dir() -> PathBuf {
    match std::env::var_os("HKGEN_CORPUS") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"),
    }
}

fn load(dir: PathBuf) -> Corpus {
    let files = inputs::walk(std::slice::from_ref(&dir)).expect("walk corpus");
    let mut tag0 = Vec::new();
    let mut tcm0 = Vec::new();
    let mut extract_paths = Vec::new();
    for p in files {
        match inputs::input_kind_of(&p).expect("sniff") {
            InputKind::Tag0 => {
                tag0.push(std::fs::read(&p).expect("read TAG0"));
                extract_paths.push(p);
            }
            InputKind::Tcm0 => {
                tcm0.push(std::fs::read(&p).expect("read TCM0"));
                extract_paths.push(p);
            }
            InputKind::Registry => extract_paths.push(p),
            _ => {}
        }
    }
    let bytes = tag0.iter().chain(&tcm0).map(|b| b.len() as u64).sum();
    let files = (tag0.len() + tcm0.len()) as u64;
    let type_bytes = tag0
        .iter()
        .chain(&tcm0)
        .filter_map(|b| section::read_root(b).ok()?.child(b"TYPE").map(|t| t.body.len() as u64 + 8))
        .sum();

    // Compendia and which tagfiles use them, as `extract` would find them (one table per id here:
    // the corpus's compendia that share an id are copies of one table for this purpose).
    let compendia: Vec<Compendium> = tcm0.iter().map(|b| Compendium::read(b).expect("read TCM0")).collect();
    let mut set = CompendiumSet::new();
    for c in &compendia {
        set.add(c);
    }
    let owner: BTreeMap<CompendiumId, usize> =
        compendia.iter().enumerate().flat_map(|(i, c)| c.ids.iter().map(move |id| (*id, i))).collect();
    let mut tcm0_recipe = vec![None; compendia.len()];
    let mut uses: BTreeMap<(usize, String), u32> = BTreeMap::new();
    let mut merge_input = Vec::new();
    for b in &tag0 {
        let t = TagFile::read(b, &set).expect("read TAG0");
        match t.source {
            TypeSource::Own => merge_input.push((t.sdk.clone(), t.types, Origin::OwnTypes, 1)),
            TypeSource::Compendium { id, .. } => {
                let i = owner[&id];
                tcm0_recipe[i].get_or_insert(Recipe::for_sdk(&t.sdk));
                *uses.entry((i, t.sdk.clone())).or_default() += 1;
            }
        }
    }
    for ((i, sdkv), n) in uses {
        let c = &compendia[i];
        let ids = c.ids.iter().map(|id| id.to_string()).collect();
        merge_input.push((sdkv, Arc::clone(&c.types), Origin::Compendium(ids), n));
    }
    let tcm0_recipe = tcm0_recipe.into_iter().map(Option::unwrap_or_default).collect();

    let x = hkgen::extract::extract(std::slice::from_ref(&dir), &|_| {}).expect("extract");
    assert!(x.failures.is_empty(), "extract failed on {:?}", x.failures);
    Corpus {
        dir,
        tag0,
        tcm0,
        tcm0_recipe,
        bytes,
        type_bytes,
        files,
        extract_paths,
        extract_bytes: x.bytes_read,
        extract_files: x.files_read as u64,
        merge_input,
    }
}

fn main() {
    let dir = corpus_dir();
    if !dir.join("MANIFEST.tsv").is_file() {
        eprintln!(
            "SKIPPED: corpus not found at {} (set HKGEN_CORPUS to the folder holding MANIFEST.tsv); no benchmark run",
            dir.display()
        );
        return;
    }
    let c = load(dir);
    eprintln!(
        "corpus {}: {} TAG0 + {} TCM0 files, {:.1} MB ({:.2} MB of TYPE sections); extract reads {} files, {:.1} MB",
        c.dir.display(),
        c.tag0.len(),
        c.tcm0.len(),
        c.bytes as f64 / 1e6,
        c.type_bytes as f64 / 1e6,
        c.extract_files,
        c.extract_bytes as f64 / 1e6,
    );
    let _ = CORPUS.set(c);
    divan::main();
}

/// Reads every compendium, then every tagfile against them; returns the tables read.
fn read_all(c: &Corpus) -> (Vec<Compendium>, Vec<TagFile<'_>>) {
    let compendia: Vec<Compendium> = c.tcm0.iter().map(|b| Compendium::read(b).expect("read TCM0")).collect();
    let mut set = CompendiumSet::new();
    for k in &compendia {
        set.add(k);
    }
    let tagfiles = c.tag0.iter().map(|b| TagFile::read(b, &set).expect("read TAG0")).collect();
    (compendia, tagfiles)
}

fn corpus_counters<'a, 'b>(bencher: Bencher<'a, 'b>) -> Bencher<'a, 'b> {
    let c = corpus();
    bencher.counter(BytesCount::new(c.bytes)).counter(ItemsCount::new(c.files))
}

#[divan::bench(sample_count = 50)]
fn a_read_tables(bencher: Bencher) {
    let c = corpus();
    corpus_counters(bencher).bench(|| read_all(black_box(c)));
}

#[divan::bench(sample_count = 50)]
fn a_type_sections_only(bencher: Bencher) {
    let c = corpus();
    // Counted in the bytes it reads: the TYPE sections (about 4% of the corpus), not every file
    // byte as the other rows are.
    let sections = c.tcm0.iter().chain(&c.tag0).filter(|b| section::read_root(b).is_ok_and(|r| r.child(b"TYPE").is_some())).count();
    bencher.counter(BytesCount::new(c.type_bytes)).counter(ItemsCount::new(sections as u64)).bench(|| {
        // Returned, so that freeing them falls outside the timing as in `a_read_tables`.
        let mut tables = Vec::with_capacity(c.tcm0.len() + c.tag0.len());
        for b in c.tcm0.iter().chain(&c.tag0) {
            let root = section::read_root(black_box(b)).expect("framing");
            if let Some(ty) = root.child(b"TYPE") {
                tables.push(type_section::read(ty).expect("TYPE"));
            }
        }
        tables
    });
}

#[divan::bench(sample_count = 20)]
fn b_read_tables_and_check_hashes(bencher: Bencher) {
    let c = corpus();
    corpus_counters(bencher).bench(|| {
        let (compendia, tagfiles) = read_all(black_box(c));
        let mut matched = 0usize;
        for (k, &recipe) in compendia.iter().zip(&c.tcm0_recipe) {
            matched += check_table(&k.types, recipe).expect("hash TCM0").matched;
        }
        for t in &tagfiles {
            if let TypeSource::Own = t.source {
                matched += check_table(&t.types, Recipe::for_sdk(&t.sdk)).expect("hash TAG0").matched;
            }
        }
        matched
    });
}

#[divan::bench(sample_count = 20)]
fn c_extract_from_disk(bencher: Bencher) {
    let c = corpus();
    bencher
        .counter(BytesCount::new(c.extract_bytes))
        .counter(ItemsCount::new(c.extract_files))
        .bench(|| hkgen::extract::extract(std::slice::from_ref(&c.dir), &|_| {}).expect("extract"));
}

#[divan::bench(sample_count = 50)]
fn d_disk_read(bencher: Bencher) {
    let c = corpus();
    bencher
        .counter(BytesCount::new(c.extract_bytes))
        .counter(ItemsCount::new(c.extract_files))
        .bench(|| c.extract_paths.iter().map(|p| std::fs::read(p).expect("read").len()).sum::<usize>());
}

#[divan::bench(sample_count = 50)]
fn d_disk_read_parallel(bencher: Bencher) {
    let c = corpus();
    bencher
        .counter(BytesCount::new(c.extract_bytes))
        .counter(ItemsCount::new(c.extract_files))
        .bench(|| c.extract_paths.par_iter().map(|p| std::fs::read(p).expect("read").len()).sum::<usize>());
}

fn merge(c: &Corpus) -> Vec<hkgen::schema::Schema> {
    let mut m = Merger::new();
    for (sdkv, table, origin, files) in &c.merge_input {
        m.add(sdkv, Arc::clone(table), origin.clone(), *files);
    }
    m.finish().0
}

#[divan::bench(sample_count = 20)]
fn e_merge_and_render(bencher: Bencher) {
    let c = corpus();
    corpus_counters(bencher).bench(|| {
        let schemas = merge(black_box(c));
        let files: Vec<_> = schemas.iter().map(|s| snapshot::render(s).expect("render")).collect();
        (schemas, files)
    });
}

#[divan::bench(sample_count = 20)]
fn e_merge_only(bencher: Bencher) {
    let c = corpus();
    corpus_counters(bencher).bench(|| merge(black_box(c)));
}
