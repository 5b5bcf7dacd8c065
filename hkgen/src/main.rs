//! The `hkgen` command line: `extract` schema snapshots, `verify` files.

use clap::{Parser, Subcommand};
use hkgen::inputs::{self, Compendia};
use hkgen::verify::{verify_bytes, Report};
use hkgen::Error;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "hkgen", version, about = "Havok type tables to schemas, typed Rust, and back")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Merge the type tables of Havok files into one RON snapshot per SDK version.
    ///
    /// With no INPUT, reads the corpus ($HKGEN_CORPUS, else ../shared/corpus) and the Elden Ring
    /// registry beside it (../shared/classdata/eldenring-2018.1-registry.xml).
    Extract {
        /// Where the snapshots go: one directory per SDK version.
        #[arg(long, default_value = "schemas")]
        out: PathBuf,
        /// Files or directories (walked recursively).
        inputs: Vec<PathBuf>,
    },
    /// Parse and check each file; recompute every stored type hash.
    Verify {
        /// One JSON object per file and line on stdout.
        #[arg(long)]
        json: bool,
        /// TCM0 compendia (files or directories) for tagfiles that name one. Every TCM0 among the
        /// inputs is used too.
        #[arg(long = "compendium", value_name = "PATH")]
        compendia: Vec<PathBuf>,
        /// Files or directories (walked recursively). Defaults as for `extract`.
        inputs: Vec<PathBuf>,
    },
}

/// The corpus directory: `$HKGEN_CORPUS`, else `../shared/corpus`.
fn corpus_dir() -> PathBuf {
    std::env::var_os("HKGEN_CORPUS").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("../shared/corpus"))
}

fn default_inputs() -> Result<Vec<PathBuf>, String> {
    let corpus = corpus_dir();
    if !corpus.is_dir() {
        return Err(format!(
            "no INPUT given and the default corpus {} is missing (set HKGEN_CORPUS)",
            corpus.display()
        ));
    }
    let mut v = vec![corpus.clone()];
    let registry = corpus.join("../classdata/eldenring-2018.1-registry.xml");
    if registry.is_file() {
        v.push(registry);
    }
    Ok(v)
}

fn progress_bar(len: u64) -> ProgressBar {
    let pb = ProgressBar::new(len);
    if std::io::stderr().is_terminal() {
        pb.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} files {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
    } else {
        pb.set_draw_target(ProgressDrawTarget::hidden());
    }
    pb
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.command {
        Command::Extract { out, inputs } => extract(out, inputs),
        Command::Verify { json, compendia, inputs } => verify(json, compendia, inputs),
    };
    match r {
        Ok(code) => code,
        Err(e) => {
            eprintln!("hkgen: {e}");
            ExitCode::FAILURE
        }
    }
}

fn inputs_or_default(inputs: Vec<PathBuf>) -> Result<Vec<PathBuf>, String> {
    if inputs.is_empty() {
        default_inputs()
    } else {
        Ok(inputs)
    }
}

fn extract(out: PathBuf, inputs: Vec<PathBuf>) -> Result<ExitCode, String> {
    let inputs = inputs_or_default(inputs)?;
    let files = inputs::walk(&inputs).map_err(|e| e.to_string())?;
    let pb = progress_bar(files.len() as u64);
    let ex = hkgen::extract::extract(&inputs, &|_: &Path| pb.inc(1)).map_err(|e| e.to_string())?;
    pb.finish_and_clear();
    for schema in &ex.schemas {
        let dir = hkgen::schema::snapshot::write(&out, schema).map_err(|e| e.to_string())?;
        eprintln!(
            "{}: {} types ({} with stored hashes), {} names with more than one layout, from {} tagfiles{}{}",
            dir.display(),
            schema.types.len(),
            schema.types.values().filter(|t| t.hash.is_some()).count(),
            schema.variants.len(),
            schema.sources.tagfiles,
            if schema.sources.compendia.is_empty() { String::new() } else { format!(", {} compendium ids", schema.sources.compendia.len()) },
            if schema.sources.registry { ", the registry" } else { "" },
        );
        for (name, keys) in &schema.variants {
            eprintln!("  {name}: {} layouts", keys.len());
        }
    }
    for (name, code) in &ex.recovered_alignment {
        eprintln!("registry: recovered requested-alignment code {code} of {name} from its stored hash");
    }
    for p in &ex.unreferenced {
        eprintln!("{}: no input tagfile names this compendium, so its SDK is unknown; left out", p.display());
    }
    for c in &ex.conflicts {
        eprintln!("{}: two different records under the key {}", c.sdk, c.key);
    }
    for (p, e) in &ex.failures {
        eprintln!("{}: {e}", p.display());
    }
    eprintln!("read {} files ({} bytes)", ex.files_read, ex.bytes_read);
    Ok(if ex.failures.is_empty() && ex.conflicts.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

fn verify(json: bool, compendium_paths: Vec<PathBuf>, inputs: Vec<PathBuf>) -> Result<ExitCode, String> {
    let inputs = inputs_or_default(inputs)?;
    let files = inputs::walk(&inputs).map_err(|e| e.to_string())?;
    let mut comp_paths = compendium_paths;
    comp_paths.extend(inputs.iter().cloned());
    let compendia = Compendia::load(&comp_paths).map_err(|e| e.to_string())?;
    for (id, a, b) in &compendia.clashes {
        eprintln!(
            "compendium id {id} is claimed by {} and {}, whose types differ; each tagfile takes the nearer",
            a.display(),
            b.display()
        );
    }
    let pb = progress_bar(files.len() as u64);
    let reports: Vec<Report> = files
        .par_iter()
        .map(|p| {
            let r = read_and_verify(p, &compendia);
            pb.inc(1);
            r
        })
        .collect();
    pb.finish_and_clear();
    let (mut passed, mut failed, mut skipped) = (0usize, 0usize, 0usize);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for r in &reports {
        if r.skipped {
            skipped += 1;
        } else if r.ok {
            passed += 1;
        } else {
            failed += 1;
        }
        if json {
            let line = serde_json::to_string(r).map_err(|e| e.to_string())?;
            let _ = writeln!(out, "{line}");
        } else if !r.ok && !r.skipped {
            let _ = writeln!(out, "FAIL {}: {}", r.path, r.error.as_deref().unwrap_or("?"));
        }
    }
    drop(out);
    if skipped > 0 {
        eprintln!("{skipped} skipped (formats this version does not check: packfiles, XML, other files)");
    }
    eprintln!("{passed} passed, {failed} failed");
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

fn read_and_verify(p: &Path, compendia: &Compendia) -> Report {
    let path = p.display().to_string();
    match std::fs::read(p) {
        Ok(bytes) => verify_bytes(&path, &bytes, &compendia.set_for(p)),
        Err(e) => {
            let e = Error::io(p, e);
            Report { path, format: "other", ok: false, error: Some(e.to_string()), ..Report::default() }
        }
    }
}
