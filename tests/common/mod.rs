//! Shared by the corpus tests: where the corpus is, and what to do when it is absent.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub mod counting;

/// The corpus: `$HKGEN_CORPUS`, else `../shared/corpus` beside the checkout. `None` (with a line on
/// stderr saying so) when it is absent; under `HKGEN_REQUIRE_CORPUS=1` an absent corpus fails the
/// test instead.
pub fn corpus() -> Option<PathBuf> {
    let dir = match std::env::var_os("HKGEN_CORPUS") {
        Some(d) => PathBuf::from(d),
        None => workspace_root().join("../shared/corpus"),
    };
    if dir.join("MANIFEST.tsv").is_file() {
        return Some(dir);
    }
    let msg = format!(
        "corpus not found at {} (set HKGEN_CORPUS to the folder holding MANIFEST.tsv)",
        dir.display()
    );
    if std::env::var_os("HKGEN_REQUIRE_CORPUS").is_some_and(|v| v == "1") {
        panic!("{msg}; HKGEN_REQUIRE_CORPUS=1 makes this a failure");
    }
    eprintln!("SKIPPED: {msg}");
    None
}

/// The workspace root (this module serves the root crate's tests and those of `hkgen/`).
pub fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    if here.join("schemas").is_dir() {
        here.to_path_buf()
    } else {
        here.join("..")
    }
}

/// `../shared/classdata` beside the corpus.
pub fn classdata(corpus: &Path) -> PathBuf {
    corpus.join("../classdata")
}

/// The packfile inputs `hkgen extract` reads by default: the corpus and the class data beside it.
pub fn class_inputs(corpus: &Path) -> Vec<PathBuf> {
    let cd = classdata(corpus);
    std::iter::once(corpus.to_path_buf()).chain(hkgen::reflection::sources::CLASS_DATA.map(|f| cd.join(f))).collect()
}

/// One row of `MANIFEST.tsv`.
#[derive(Clone, Debug)]
pub struct Entry {
    pub path: PathBuf,
    pub relpath: String,
    pub format: String,
    pub sdk: String,
    pub bytes: u64,
}

/// Every file the manifest lists, in manifest order.
pub fn manifest(corpus: &Path) -> Vec<Entry> {
    let text = std::fs::read_to_string(corpus.join("MANIFEST.tsv")).expect("read MANIFEST.tsv");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("manifest header").split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("manifest column {name}"));
    let (rel, fmt, sdk, bytes) = (col("relpath"), col("format"), col("sdk_version"), col("bytes"));
    lines
        .filter(|l| !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Entry {
                path: corpus.join(f[rel]),
                relpath: f[rel].to_owned(),
                format: f[fmt].to_owned(),
                sdk: f[sdk].to_owned(),
                bytes: f[bytes].parse().unwrap_or(0),
            }
        })
        .collect()
}

/// The corpus the committed snapshots under `schemas/` were extracted from: `../shared/corpus`
/// beside the checkout, whatever `HKGEN_CORPUS` says. Absent as for [`corpus`].
pub fn snapshot_corpus() -> Option<PathBuf> {
    let dir = workspace_root().join("../shared/corpus");
    if dir.join("MANIFEST.tsv").is_file() {
        return Some(dir);
    }
    let msg = format!("the snapshot corpus {} is absent", dir.display());
    if std::env::var_os("HKGEN_REQUIRE_CORPUS").is_some_and(|v| v == "1") {
        panic!("{msg}; HKGEN_REQUIRE_CORPUS=1 makes this a failure");
    }
    eprintln!("SKIPPED: {msg}");
    None
}
