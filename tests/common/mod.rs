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
    if corpus_required() {
        panic!("{msg}; HKGEN_REQUIRE_CORPUS=1 makes this a failure");
    }
    eprintln!("SKIPPED: {msg}");
    None
}

/// True under `HKGEN_REQUIRE_CORPUS=1`, where a corpus test that cannot find its files fails.
pub fn corpus_required() -> bool {
    std::env::var_os("HKGEN_REQUIRE_CORPUS").is_some_and(|v| v == "1")
}

/// The bytes of the corpus file `rel` (relative to `corpus`), the one way the tests read a single
/// named corpus file. `None` (with a line on stderr saying so) when it cannot be read; under
/// `HKGEN_REQUIRE_CORPUS=1` that fails the test instead. `tests/honest_tests.rs` checks that no
/// test skips a corpus file any other way.
pub fn corpus_file(corpus: &Path, rel: &str) -> Option<Vec<u8>> {
    let path = corpus.join(rel);
    match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(e) => {
            let msg = format!("corpus file {}: {e}", path.display());
            if corpus_required() {
                panic!("{msg}; HKGEN_REQUIRE_CORPUS=1 makes this a failure");
            }
            eprintln!("SKIPPED: {msg}");
            None
        }
    }
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

/// Where a failing snapshot test leaves the output it made instead of the committed files: a
/// fresh, emptied folder `NAME` under `target/` (the test binary's temporary folder), never the
/// source tree.
pub fn mismatch_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("snapshot-mismatch").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
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

/// The TCM0 compendia the manifest lists, loaded for the tagfiles that name them.
pub fn compendia(entries: &[Entry]) -> hkgen::inputs::Compendia {
    let tcm0: Vec<PathBuf> = entries.iter().filter(|e| e.format == "tcm0").map(|e| e.path.clone()).collect();
    hkgen::inputs::Compendia::load(&tcm0).expect("load the corpus compendia")
}

/// The corpus the committed snapshots under `schemas/` were extracted from: `../shared/corpus`
/// beside the checkout, whatever `HKGEN_CORPUS` says. Absent as for [`corpus`].
pub fn snapshot_corpus() -> Option<PathBuf> {
    let dir = workspace_root().join("../shared/corpus");
    if dir.join("MANIFEST.tsv").is_file() {
        return Some(dir);
    }
    let msg = format!("the snapshot corpus {} is absent", dir.display());
    if corpus_required() {
        panic!("{msg}; HKGEN_REQUIRE_CORPUS=1 makes this a failure");
    }
    eprintln!("SKIPPED: {msg}");
    None
}

/// A corpus file with a few bytes changed, as an edit script says (`tests/fuzz_regressions/`
/// keeps fuzz findings this way, so that the project holds no game data): `corpus PATH`
/// (relative to `corpus`), then lines `OFFSET OLD NEW` in hex; each OLD is checked against the
/// file before NEW is written. `#` starts a comment.
pub fn edited_corpus_file(script: &Path, corpus: &Path) -> Vec<u8> {
    let text = std::fs::read_to_string(script).unwrap_or_else(|e| panic!("{}: {e}", script.display()));
    let mut out: Option<Vec<u8>> = None;
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let at = || format!("{}:{}", script.display(), n + 1);
        if let Some(rel) = line.strip_prefix("corpus ") {
            let file = corpus.join(rel.trim());
            out = Some(std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {}: {e}", at(), file.display())));
            continue;
        }
        let data = out.as_mut().unwrap_or_else(|| panic!("{}: an edit before the `corpus` line", at()));
        let nums: Vec<usize> = line
            .split_whitespace()
            .map(|w| usize::from_str_radix(w.trim_start_matches("0x"), 16).unwrap_or_else(|_| panic!("{}: {w:?} is not hex", at())))
            .collect();
        let [offset, old, new] = nums[..] else { panic!("{}: want OFFSET OLD NEW", at()) };
        let byte = data.get_mut(offset).unwrap_or_else(|| panic!("{}: offset {offset:#x} past the file", at()));
        assert_eq!(usize::from(*byte), old, "{}: the corpus file has changed at {offset:#x}", at());
        *byte = u8::try_from(new).unwrap_or_else(|_| panic!("{}: {new:#x} is not a byte", at()));
    }
    out.unwrap_or_else(|| panic!("{}: no `corpus` line", script.display()))
}

/// How long a program run by a test may take before the test kills it and fails. Far above what
/// any run takes; it is there so that a hang fails one test instead of stalling the whole job.
pub const CHILD_DEADLINE: std::time::Duration = std::time::Duration::from_secs(15 * 60);

/// Runs `cmd` to its end and returns its exit status and output, like [`Command::output`]; a run
/// still going after [`CHILD_DEADLINE`] is killed and fails the test with the command line.
///
/// [`Command::output`]: std::process::Command::output
pub fn run(cmd: &mut std::process::Command) -> std::process::Output {
    use std::io::Read;
    use std::process::Stdio;
    fn drain(mut from: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            from.read_to_end(&mut bytes).expect("reading a child's output");
            bytes
        })
    }
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    let stdout = drain(child.stdout.take().unwrap());
    let stderr = drain(child.stderr.take().unwrap());
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > CHILD_DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} was still running after {CHILD_DEADLINE:?}; killed");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    std::process::Output { status, stdout: stdout.join().unwrap(), stderr: stderr.join().unwrap() }
}

/// The largest seed the fuzz targets take (`fuzz/run.sh` runs them with `-max_len=131072`).
pub const FUZZ_SEED_MAX: usize = 128 << 10;

/// With `HKGEN_FUZZ_SEED_DIR=DIR` set (`fuzz/seeds.sh` sets it), writes a crafted input of the
/// tests as a fuzz seed: a TAG0 file into `DIR/tag0/crafted/` (the `typed` target reads the same
/// folder), a packfile into `DIR/packfile/crafted/` (so does `packfile_objects`), packfile XML into
/// `DIR/packfile_xml/crafted/`, tagfile XML into `DIR/tagfile_xml/crafted/`, named by a hash of its bytes. Inputs over [`FUZZ_SEED_MAX`] bytes are not written (the tests craft small
/// versions of the large cases for that). Without the variable it does nothing.
pub fn fuzz_seed(bytes: &[u8]) {
    let Some(dir) = std::env::var_os("HKGEN_FUZZ_SEED_DIR") else { return }; // not-a-skip: seeds are written only when asked for
    if bytes.len() > FUZZ_SEED_MAX {
        return; // not-a-skip: the fuzzers take no larger input
    }
    let target = match bytes.get(..8) {
        Some(head) if &head[4..8] == b"TAG0" => "tag0",
        Some(head) if head == [0x57, 0xE0, 0xE0, 0x57, 0x10, 0xC0, 0xC0, 0x10] => "packfile",
        Some(_) if bytes.windows(10).take(512).any(|w| w == b"<hktagfile") => "tagfile_xml",
        Some(head) if head == b"<?xml ve" || head == b"<hkpackf" => "packfile_xml",
        _ => panic!("fuzz_seed: neither a TAG0 file, a packfile, packfile XML nor tagfile XML"),
    };
    // FNV-1a of the bytes: the same input crafted twice is one seed.
    let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    let dir = Path::new(&dir).join(target).join("crafted");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let path = dir.join(format!("{hash:016x}"));
    std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}
