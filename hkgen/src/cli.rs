//! The `hkgen` command line: `extract` schema snapshots, `verify` and `dump` files (and `build`
//! a dump back into its file), `diff` snapshots, `codegen` to print the Rust code the root
//! crate's build script generates.
//!
//! The binary lives in the root crate (`src/main.rs`), which hands [`main_with`] the generated
//! classes of every SDK it was built with, so that `verify` reads objects through them.

use crate as hkgen;
use crate::inputs::{self, Compendia};
use crate::verify::{ClassesOf, Report, Verifier};
use crate::Error;
use clap::{Parser, Subcommand};
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
    /// With no INPUT, reads the corpus ($HKGEN_CORPUS, else ../shared/corpus) and the class data
    /// beside it (../shared/classdata): the Elden Ring and Armored Core VI registries
    /// (eldenring-2018.1-registry.xml, ac6-2019.1-registry.xml) and the packfile class sources.
    /// The snapshots go where --out says; --update writes them over the committed snapshots under
    /// schemas/.
    Extract {
        /// Where the snapshots go: one directory per SDK version, and enums.ron.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Rewrite the committed snapshots under schemas/ (the same as --out schemas).
        #[arg(long, conflicts_with = "out")]
        update: bool,
        /// Files or directories (walked recursively).
        inputs: Vec<PathBuf>,
    },
    /// Compare two schema snapshots class by class (directories, or git revisions as REV:path).
    Diff {
        /// `table`, `markdown` or `json`.
        #[arg(long, default_value = "table", value_parser = ["table", "markdown", "json"])]
        format: String,
        /// Also list classes added, removed, or changed only in their hash.
        #[arg(long)]
        all: bool,
        old: String,
        new: String,
    },
    /// Print the objects of a tagfile or packfile with Havok's names: for people (`text`, the
    /// default), or in one shape for both formats (`json`, `ron`) that `hkgen build` turns back
    /// into the same bytes.
    Dump {
        /// `text` (a readable listing), `json` or `ron` (the dump shape of `hktypes::dump`).
        #[arg(long, default_value = "text", value_parser = ["text", "ron", "json"])]
        format: String,
        /// Write to this file instead of stdout (an existing file only with --force).
        #[arg(long, value_name = "PATH")]
        out: Option<PathBuf>,
        /// Let --out replace an existing file.
        #[arg(long)]
        force: bool,
        /// TCM0 compendia (files or directories) for a tagfile that names one. Without it, the
        /// compendia beside the file (its directory and the two above, two levels down each) are tried.
        #[arg(long = "compendium", value_name = "PATH")]
        compendia: Vec<PathBuf>,
        /// Snapshots of your own whose packfile class schemas (`<sdk>/classes/`) lay out a
        /// packfile's objects. Default: the classes compiled into this program.
        #[arg(long, value_name = "DIR")]
        schemas: Option<PathBuf>,
        /// What a pointer of `<hkpackfile>` XML that names no object gives: `error` (the
        /// default), or `null`, for a file known to be broken: the pointer is read as null and
        /// each such repair is reported.
        #[arg(long, value_name = "HOW", default_value = "error", value_parser = ["error", "null"])]
        dangling_pointers: String,
        file: PathBuf,
    },
    /// Convert a packfile between its binary form and Havok's `<hkpackfile>` XML, or write it
    /// under other layout rules (another platform): its objects are read through the SDK's class
    /// schema and written again, e.g. a BotW Wii U file (4,0,0,1) as Switch (8,1,1,1). The input's
    /// form is told by its content; the output's by --to, else OUT's extension (`.xml`: XML).
    ///
    /// With a directory as INPUT, every Havok file under it converts (in parallel, with a progress
    /// bar) to the same relative path under the directory OUT, in the form --to names: `a.hkx`
    /// becomes `a.xml` and other names gain `.xml` (`a.hkrg.xml`); back to binary, `a.hkrg.xml`
    /// becomes `a.hkrg` and `a.xml` `a.hkx`. Files already in the output form (except binary
    /// packfiles given --layout), compendia and files that are not Havok files are passed over
    /// and counted; a file that exists under OUT is left alone unless --force.
    Convert {
        /// Pointer size, little-endian, reuse-padding and empty-base bytes of a binary output,
        /// e.g. `8,1,1,1`. Default: the input's own; for XML input the layout of the binary it was written from (its
        /// `hkgen:container` comment), else `8,1,0,1`.
        #[arg(long)]
        layout: Option<String>,
        /// The output form: `xml`, `packfile`, `tagfile`, or `binary` (the binary form of each
        /// input's own kind). Default: from OUT's extension; a TAG0 file or `<hktagfile>` XML
        /// converts to the other form. Needed when INPUT is a directory.
        #[arg(long, value_parser = ["xml", "packfile", "tagfile", "binary"])]
        to: Option<String>,
        /// How XML output prints reals: `shortest` (reads back to the same bits) or `havok`
        /// (six decimals, as Havok's tools write them; loses bits).
        #[arg(long, default_value = "shortest", value_parser = ["shortest", "havok"])]
        floats: String,
        /// A binary written from XML takes its objects in the order Havok's packer writes them
        /// (depth first from the root object) instead of the XML's.
        #[arg(long)]
        havok_order: bool,
        /// Snapshots of your own whose packfile class schemas (`<sdk>/classes/`) lay out the
        /// objects. Default: the classes compiled into this program.
        #[arg(long, value_name = "DIR")]
        schemas: Option<PathBuf>,
        /// With a directory INPUT: replace files that already exist under OUT.
        #[arg(long)]
        force: bool,
        /// What a pointer of `<hkpackfile>` XML that names no object gives: `error` (the
        /// default), or `null`, for a file known to be broken: the pointer is read as null and
        /// each such repair is reported.
        #[arg(long, value_name = "HOW", default_value = "error", value_parser = ["error", "null"])]
        dangling_pointers: String,
        input: PathBuf,
        output: PathBuf,
    },
    /// Turn a dump (`hkgen dump --format json|ron`, told apart by content) back into the binary
    /// file it was dumped from, byte for byte.
    Build {
        /// TCM0 compendia (files or directories) for a dump of a tagfile that names one. Without
        /// it, the compendia beside the input (its directory and the two above) are tried.
        #[arg(long = "compendium", value_name = "PATH")]
        compendia: Vec<PathBuf>,
        /// Snapshots of your own whose packfile class schemas (`<sdk>/classes/`) lay out the
        /// objects. Default: the classes compiled into this program.
        #[arg(long, value_name = "DIR")]
        schemas: Option<PathBuf>,
        /// Replace OUT when it exists.
        #[arg(long)]
        force: bool,
        input: PathBuf,
        output: PathBuf,
    },
    /// Parse and check each file; recompute every stored type hash; write every TAG0 file again
    /// and compare.
    Verify {
        /// One JSON object per file and line on stdout.
        #[arg(long)]
        json: bool,
        /// TCM0 compendia (files or directories) for tagfiles that name one. Every TCM0 among the
        /// inputs is used too.
        #[arg(long = "compendium", value_name = "PATH")]
        compendia: Vec<PathBuf>,
        /// The snapshots whose packfile class schemas (`<sdk>/classes/`) check signatures.
        #[arg(long, default_value = "schemas")]
        schemas: PathBuf,
        /// Pass over files named on the command line that are not Havok files (or hktagfile XML,
        /// not read yet) instead of failing them. In a directory walk such files are always passed
        /// over, and counted.
        #[arg(long)]
        skip_unknown: bool,
        /// What a pointer of `<hkpackfile>` XML that names no object gives: `error` (the
        /// default), or `null`, for a file known to be broken: the pointer is read as null and
        /// each such repair is reported (the file passes
        /// "after repairs", counted apart).
        #[arg(long, value_name = "HOW", default_value = "error", value_parser = ["error", "null"])]
        dangling_pointers: String,
        /// Files or directories (walked recursively). Defaults as for `extract`.
        inputs: Vec<PathBuf>,
    },
    /// Write the Rust module that the root crate's build script generates for one SDK version:
    /// the same code (with the enumeration overlay <schemas>/enums.ron applied), pretty-printed.
    Codegen {
        /// SDK version, e.g. 2018.1.
        #[arg(long)]
        sdk: String,
        /// The directory of snapshots (holding <sdk>/sdk.ron, or <sdk>/classes/ for a packfile SDK).
        #[arg(long, default_value = "schemas")]
        schemas: PathBuf,
        /// Output file; stdout when absent.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Print the module as the build script writes it, byte for byte: one item per line, not
        /// pretty-printed.
        #[arg(long)]
        unformatted: bool,
    },
    /// Write the Python type stubs of the SDKs' classes (`<module>.pyi`, one per tagfile and
    /// packfile SDK) for the Python package; the package ships them in python/hkgen/classes/.
    Stubs {
        /// SDK version, e.g. 2018.1 or 2014.2; every SDK of the root crate when absent.
        #[arg(long)]
        sdk: Option<String>,
        /// The directory of snapshots (holding enums.ron, and <sdk>/sdk.ron or, for a packfile SDK, <sdk>/classes/).
        #[arg(long, default_value = "schemas")]
        schemas: PathBuf,
        /// Where the .pyi files go.
        #[arg(long)]
        out: PathBuf,
    },
    /// List the animations of a file (codec, tracks, frames, duration, bytes per second of
    /// animation, the skeleton its binding names), or with --frames write every decoded frame
    /// (translation xyz, rotation xyzw, scale xyz per track; float tracks; root motion) as CSV or
    /// JSON.
    Anim {
        /// Write the decoded frames in this form (`csv`: one row per frame and track, float
        /// tracks as rows of kind `float`; `json`: per animation, frames x tracks x 10 values).
        #[arg(long, value_name = "FORM", value_parser = ["csv", "json"])]
        frames: Option<String>,
        /// Write the frames to this file instead of stdout (an existing file only with --force).
        #[arg(long, value_name = "PATH", requires = "frames")]
        out: Option<PathBuf>,
        /// Let --out replace an existing file.
        #[arg(long)]
        force: bool,
        /// TCM0 compendia (files or directories) for a tagfile that names one. Without it, the
        /// compendia beside the file are tried.
        #[arg(long = "compendium", value_name = "PATH")]
        compendia: Vec<PathBuf>,
        /// Snapshots of your own whose packfile class schemas lay out a packfile's objects.
        /// Default: the classes compiled into this program.
        #[arg(long, value_name = "DIR")]
        schemas: Option<PathBuf>,
        file: PathBuf,
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
    // The class data beside the corpus: the runtime type registries (tagfile types of 2018.1 and
    // 2019.1) and the packfile class sources (BotW reflection and signatures, the FromSoft 2014.1
    // table, the serde-hkx 2010.2 and DSMapStudio 2014.1 class folders).
    for name in crate::registry::CLASS_DATA.iter().copied().chain(crate::reflection::sources::CLASS_DATA) {
        let p = corpus.join("../classdata").join(name);
        if p.exists() {
            v.push(p);
        }
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

/// Runs the command line, reading objects through `classes` (the generated classes of an SDK
/// version; `|_| &[]` for none).
pub fn main_with(classes: ClassesOf) -> ExitCode {
    main_with_packfiles(classes, |_| &[])
}

/// Runs the command line as [`main_with`] does, and `verify` also takes every packfile object a
/// generated struct of `packfile_classes` (per SDK version) applies to through it.
pub fn main_with_packfiles(classes: ClassesOf, packfile_classes: ClassesOf) -> ExitCode {
    main_with_compiled(classes, packfile_classes, None, None)
}

/// The class descriptions compiled into a program, per packfile SDK version
/// (`hkclasses::packfile_sources_for_sdk`).
pub type PackfileSourcesOf = fn(&str) -> Vec<&'static dyn hktypes::packfile::layout::ClassSource>;

/// Runs the command line as [`main_with_packfiles`] does, and `dump` and `convert` lay packfile
/// objects out with `packfile_sources` (the classes compiled in) unless `--schemas DIR` names
/// snapshots; without it they read the snapshots under `./schemas`.
pub fn main_with_compiled(
    classes: ClassesOf,
    packfile_classes: ClassesOf,
    packfile_sources: Option<PackfileSourcesOf>,
    registry: Option<&'static (dyn hktypes::ClassRegistry + Sync)>,
) -> ExitCode {
    if let Some(r) = registry {
        let _ = REGISTRY.set(r);
    }
    let cli = Cli::parse();
    let r = match cli.command {
        Command::Extract { out, update, inputs } => match (out, update) {
            (Some(out), _) => extract(out, inputs),
            (None, true) => extract(PathBuf::from("schemas"), inputs),
            (None, false) => Err("extract writes its snapshots where you say: --out DIR for a folder of your own, or --update \
                 (the same as --out schemas) to rewrite the committed snapshots under schemas/"
                .to_owned()),
        },
        Command::Verify { json, compendia, schemas, skip_unknown, dangling_pointers, inputs } => {
            let o = VerifyOptions { json, skip_unknown, xml_dangling: dangling_of(&dangling_pointers) };
            verify(o, compendia, &schemas, inputs, classes, packfile_classes)
        }
        Command::Dump { format, out, force, compendia, schemas, dangling_pointers, file } => PackSources::new(schemas, packfile_sources).and_then(|s| {
            let dangling = dangling_of(&dangling_pointers);
            if format == "text" {
                if out.is_some() {
                    return Err("--out is for --format json or ron".to_owned());
                }
                dump(compendia, &s, dangling, &file)
            } else {
                dump_shape(&format, out.as_deref(), force, compendia, &s, dangling, &file)
            }
        }),
        Command::Build { compendia, schemas, force, input, output } => {
            PackSources::new(schemas, packfile_sources).and_then(|s| build(compendia, &s, force, &input, &output))
        }
        Command::Convert { layout, to, floats, havok_order, schemas, force, dangling_pointers, input, output } => {
            let dangling = dangling_of(&dangling_pointers);
            PackSources::new(schemas, packfile_sources).and_then(|s| convert(&ConvertOptions { layout, to, floats, havok_order, force, dangling }, &s, &input, &output))
        }
        Command::Diff { format, all, old, new } => diff(&format, all, &old, &new),
        Command::Anim { frames, out, force, compendia, schemas, file } => crate::anim_cli::anim(&crate::anim_cli::AnimArgs {
            frames: frames.as_deref(),
            out: out.as_deref(),
            force,
            compendia,
            schemas,
            registry: REGISTRY.get().copied(),
            file: &file,
        }),
        Command::Codegen { sdk, schemas, out, unformatted } => codegen(&sdk, &schemas, out.as_deref(), unformatted),
        Command::Stubs { sdk, schemas, out } => {
            let all = [hkgen::codegen::SDKS, hkgen::codegen::PACKFILE_SDKS].concat();
            let sdks: Vec<&str> = sdk.as_deref().map_or(all, |s| vec![s]);
            hkgen::codegen::generate_stubs(&schemas, &out, &sdks).map(|_| ExitCode::SUCCESS).map_err(|e| e.to_string())
        }
    };
    match r {
        Ok(code) => code,
        Err(e) => {
            eprintln!("hkgen: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The classes compiled into the program, where it has them: the type tables that complete
/// HKLib's member-less `<hktagfile>` XML ([`tagfile_xml`]).
static REGISTRY: std::sync::OnceLock<&'static (dyn hktypes::ClassRegistry + Sync)> = std::sync::OnceLock::new();

/// `<hktagfile>` XML, with HKLib's member-less types completed from the compiled-in type tables
/// where the program has them.
fn tagfile_xml(bytes: &[u8]) -> hktypes::Result<hktypes::tagfile::xml::XmlTagfile> {
    match REGISTRY.get() {
        Some(r) => hktypes::tagfile::xml::read_with(bytes, &r.tagfile_sdks(), &|sdk| r.tagfile_types(sdk)),
        None => hktypes::tagfile::xml::read(bytes),
    }
}

/// `--dangling-pointers` (`error` or `null`, which clap has checked).
fn dangling_of(how: &str) -> hktypes::packfile::xml::Dangling {
    match how {
        "null" => hktypes::packfile::xml::Dangling::Null,
        _ => hktypes::packfile::xml::Dangling::Error,
    }
}

fn inputs_or_default(inputs: Vec<PathBuf>) -> Result<Vec<PathBuf>, String> {
    if inputs.is_empty() {
        default_inputs()
    } else {
        Ok(inputs)
    }
}

/// Extracts `inputs` (the default corpus when empty) into `out`; nothing is written when no input
/// holds a type table or class record.
fn extract(out: PathBuf, inputs: Vec<PathBuf>) -> Result<ExitCode, String> {
    let inputs = inputs_or_default(inputs)?;
    let files = inputs::walk(&inputs).map_err(|e| e.to_string())?;
    let pb = progress_bar(files.len() as u64);
    let ex = hkgen::extract::extract(&inputs, &|_: &Path| pb.inc(1)).map_err(|e| e.to_string())?;
    pb.finish_and_clear();
    // Packfile class schemas (hkClass records) from the class data and the packfiles among the
    // inputs.
    let classes = hkgen::reflection::sources::extract(&inputs).map_err(|e| e.to_string())?;
    if ex.schemas.is_empty() && classes.schemas.is_empty() {
        for (p, e) in &ex.failures {
            eprintln!("{}: {e}", p.display());
        }
        let names: Vec<String> = inputs.iter().map(|p| p.display().to_string()).collect();
        return Err(format!(
            "no type table in {} ({} files, {} unreadable); nothing written to {}",
            names.join(", "),
            files.len(),
            ex.failures.len(),
            out.display()
        ));
    }
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
    for (sdk, name, code) in &ex.recovered_alignment {
        eprintln!("registry {sdk}: recovered requested-alignment code {code} of {name} from its stored hash");
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
    for s in &classes.schemas {
        let dir = hkgen::reflection::snapshot::write(&out, s).map_err(|e| e.to_string())?;
        let unresolved = classes.unresolved.get(&s.sdk).map_or(0, Vec::len);
        eprintln!("{}: {} classes, {unresolved} classes of its packfiles unresolved", dir.display(), s.classes.len());
        // Each unresolved class with the files that name it.
        for (name, files) in classes.unresolved_in.get(&s.sdk).into_iter().flatten() {
            const SHOWN: usize = 3;
            let more = if files.len() > SHOWN { format!(" and {} more", files.len() - SHOWN) } else { String::new() };
            eprintln!("  {} {name}: unresolved, named by {}{more}", s.sdk, files[..files.len().min(SHOWN)].join(", "));
        }
    }
    // Enumeration item names for the code generator, from the registry and the BotW reflection
    // among the inputs, for the enumerations of the snapshots just written.
    let find = |name: &str| inputs.iter().find(|p| p.file_name().is_some_and(|n| n == name)).cloned();
    let registries: Vec<PathBuf> = hkgen::registry::CLASS_DATA.iter().filter_map(|n| find(n)).collect();
    let overlay = hkgen::codegen::overlay::build_from(
        &out,
        &registries.iter().map(PathBuf::as_path).collect::<Vec<_>>(),
        find("botw-2014.2-switch-reflection.json").as_deref(),
    )
    .map_err(|e| e.to_string())?;
    let path = out.join("enums.ron");
    let text = overlay.render();
    if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
        std::fs::write(&path, text).map_err(|e| Error::io(&path, e).to_string())?;
    }
    eprintln!("{}: enumeration item names", path.display());
    Ok(if ex.failures.is_empty() && ex.conflicts.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// The module through the build script's own code path (`generate_sdks` /
/// `generate_packfile_sdks`, overlay and header included) into a scratch folder, then printed:
/// what `hkgen codegen` shows is what the build script compiles.
fn codegen(sdk: &str, schemas: &Path, out: Option<&Path>, unformatted: bool) -> Result<ExitCode, String> {
    let tagfile = schemas.join(sdk).join("sdk.ron").is_file();
    if !tagfile && !hkgen::codegen::packfile::has_schema(schemas, sdk) {
        return Err(format!("no snapshot for SDK {sdk} under {} (neither {sdk}/sdk.ron nor {sdk}/classes/)", schemas.display()));
    }
    let scratch = std::env::temp_dir().join(format!("hkgen-codegen-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(|e| Error::io(&scratch, e).to_string())?;
    let config = hkgen::codegen::Config::new().formatted(!unformatted);
    let done = if tagfile {
        hkgen::codegen::generate_sdks(&config, schemas, &scratch, &[sdk])
    } else {
        hkgen::codegen::generate_packfile_sdks(&config, schemas, &scratch, &[sdk])
    };
    let text = done.map_err(|e| e.to_string()).and_then(|g| {
        let path = &g[0].path;
        std::fs::read_to_string(path).map_err(|e| Error::io(path, e).to_string())
    });
    let _ = std::fs::remove_dir_all(&scratch);
    let text = text?;
    match out {
        Some(p) => write_output(p, text.as_bytes())?,
        None => {
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes an output file, creating the folders it goes in; an error names the output path.
fn write_output(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let failed = |e: std::io::Error| format!("cannot write the output {}: {e}", path.display());
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(failed)?;
    }
    std::fs::write(path, bytes).map_err(failed)
}

/// The text of [`ErrorKind::MissingCompendium`](hktypes::error::ErrorKind) for `bytes` when it is
/// a tagfile that names a compendium: to recognise that error and add how to give one.
fn missing_compendium_hint(error: &str, bytes: &[u8]) -> Option<String> {
    let id = hktypes::tagfile::file::compendium_reference(bytes).ok()??;
    let text = hktypes::error::ErrorKind::MissingCompendium(id.to_string()).to_string();
    error.contains(&text).then(|| format!("{error} (pass the .compendium file or a folder holding it with --compendium PATH)"))
}

/// `verify`'s flags.
struct VerifyOptions {
    json: bool,
    skip_unknown: bool,
    xml_dangling: hktypes::packfile::xml::Dangling,
}

fn verify(
    o: VerifyOptions,
    compendium_paths: Vec<PathBuf>,
    schemas: &Path,
    inputs: Vec<PathBuf>,
    classes: ClassesOf,
    packfile_classes: ClassesOf,
) -> Result<ExitCode, String> {
    let VerifyOptions { json, skip_unknown, xml_dangling } = o;
    // The default inputs (the corpus and the class data beside it) are not named by the user: their
    // files that are not Havok files are passed over as in a walk.
    let by_user = !inputs.is_empty();
    let inputs = inputs_or_default(inputs)?;
    let class_schemas = hkgen::reflection::check::ClassSchemas::load(schemas).map_err(|e| e.to_string())?;
    let verifier = Verifier { classes, class_schemas, packfile_classes, xml_dangling, registry: REGISTRY.get().copied() };
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
    // A file named on the command line is meant to be verified: one that is not a Havok file (or
    // hktagfile XML, not read yet) fails unless --skip-unknown. In a directory walk such files are
    // passed over and counted.
    let named: std::collections::BTreeSet<&Path> = inputs.iter().filter(|p| by_user && p.is_file()).map(PathBuf::as_path).collect();
    let pb = progress_bar(files.len() as u64);
    let mut reports: Vec<Report> = files
        .par_iter()
        .map(|p| {
            let r = read_and_verify(p, &compendia, &verifier);
            pb.inc(1);
            r
        })
        .collect();
    pb.finish_and_clear();
    for (r, p) in reports.iter_mut().zip(&files) {
        if r.skipped && !skip_unknown && named.contains(p.as_path()) {
            r.skipped = false;
            r.ok = false;
            let why = r.error.take().unwrap_or_default();
            r.error = Some(format!("{why} (--skip-unknown passes over such files)"));
        }
    }
    let (mut passed, mut failed, mut skipped, mut repaired) = (0usize, 0usize, 0usize, 0usize);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for r in &reports {
        if r.skipped {
            skipped += 1;
        } else if r.ok {
            passed += 1;
            repaired += usize::from(!r.repairs.is_empty());
        } else {
            failed += 1;
        }
        if json {
            let line = serde_json::to_string(r).map_err(|e| e.to_string())?;
            let _ = writeln!(out, "{line}");
        } else if !r.ok && !r.skipped {
            let _ = writeln!(out, "FAIL {}: {}", r.path, r.error.as_deref().unwrap_or("?"));
        } else if r.ok {
            for repair in &r.repairs {
                let _ = writeln!(out, "REPAIRED {}: {repair}", r.path);
            }
        }
    }
    drop(out);
    if skipped > 0 {
        let xml = reports.iter().filter(|r| r.skipped && r.format == "xml").count();
        eprintln!("{skipped} skipped: {xml} hktagfile XML without member records, {} not Havok files", skipped - xml);
    }
    if repaired > 0 {
        eprintln!("{passed} passed ({repaired} of them only after repairs), {failed} failed");
    } else {
        eprintln!("{passed} passed, {failed} failed");
    }
    if passed + failed == 0 {
        let names: Vec<String> = inputs.iter().map(|p| p.display().to_string()).collect();
        return Err(format!("no Havok file to verify in {} ({} files found, {skipped} skipped)", names.join(", "), files.len()));
    }
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

fn read_and_verify(p: &Path, compendia: &Compendia, verifier: &Verifier) -> Report {
    let path = p.display().to_string();
    match std::fs::read(p) {
        Ok(bytes) => {
            let mut r = verifier.verify(&path, &bytes, &compendia.set_for(p));
            if let Some(e) = r.error.as_deref().and_then(|e| missing_compendium_hint(e, &bytes)) {
                r.error = Some(e);
            }
            r
        }
        Err(e) => {
            let e = Error::io(p, e);
            Report { path, format: "other", ok: false, error: Some(e.to_string()), ..Report::default() }
        }
    }
}

/// Where `dump` and `convert` take packfile class descriptions from: snapshots on disk, or the
/// classes compiled into the program.
enum PackSources {
    Snapshots(hkgen::reflection::check::ClassSchemas),
    Compiled(PackfileSourcesOf),
}

impl PackSources {
    /// `--schemas DIR` when given; else the compiled-in classes, or `./schemas` for a program
    /// without them.
    fn new(dir: Option<PathBuf>, compiled: Option<PackfileSourcesOf>) -> Result<Self, String> {
        match (dir, compiled) {
            (None, Some(c)) => Ok(PackSources::Compiled(c)),
            (dir, _) => {
                let dir = dir.unwrap_or_else(|| PathBuf::from("schemas"));
                hkgen::reflection::check::ClassSchemas::load(&dir).map(PackSources::Snapshots).map_err(|e| e.to_string())
            }
        }
    }

    /// The sources to read a file of `sdk` with, its own first.
    fn for_sdk(&self, sdk: &str) -> Vec<&dyn hktypes::packfile::layout::ClassSource> {
        match self {
            PackSources::Snapshots(s) => s.sources_for(sdk),
            PackSources::Compiled(c) => c(sdk),
        }
    }
}

/// A packfile's objects through the class schema of its SDK (raw where it has none).
fn packfile_document(bytes: &[u8], schemas: &PackSources, file: &Path) -> Result<hktypes::packfile::objects::Document, String> {
    let located = |e: hktypes::Error| e.in_file(file.display().to_string()).to_string();
    let pf = hktypes::packfile::PackFile::read(bytes).map_err(located)?;
    let sdk = hkgen::reflection::sources::sdk_of_contents_version(&pf.contents_version());
    hktypes::packfile::objects::Document::from_file_with(pf, &schemas.for_sdk(&sdk)).map_err(located)
}

fn print(format: &str, value: &impl serde::Serialize) -> Result<(), String> {
    let text = match format {
        "json" => serde_json::to_string_pretty(value).map_err(|e| e.to_string())?,
        _ => ron::ser::to_string_pretty(value, ron::ser::PrettyConfig::new().indentor("  ".to_owned())).map_err(|e| e.to_string())?,
    };
    // A closed pipe (`hkgen dump f | head`) ends the output quietly.
    let _ = writeln!(std::io::stdout().lock(), "{text}");
    Ok(())
}

struct ConvertOptions {
    layout: Option<String>,
    to: Option<String>,
    floats: String,
    havok_order: bool,
    force: bool,
    dangling: hktypes::packfile::xml::Dangling,
}

/// The objects of a binary packfile or of `<hkpackfile>` XML (told apart by content), read
/// through the class schemas of its SDK; XML laid out under `layout` (default: the layout its
/// `hkgen:container` comment states, else `8,1,0,1`).
fn any_packfile_document(
    bytes: &[u8],
    schemas: &PackSources,
    file: &Path,
    layout: Option<hktypes::packfile::LayoutRules>,
    order: hktypes::packfile::xml::ObjectOrder,
    dangling: hktypes::packfile::xml::Dangling,
) -> Result<hktypes::packfile::objects::Document, String> {
    use hktypes::packfile::xml;
    match hktypes::sniff(bytes) {
        Some(hktypes::Format::Packfile) => return packfile_document(bytes, schemas, file),
        Some(hktypes::Format::PackfileXml) => {}
        Some(hktypes::Format::TagfileXml) => return Err(format!("{}: hktagfile XML is a tagfile, not a packfile", file.display())),
        _ => return Err(format!("{}: not a packfile nor packfile XML", file.display())),
    }
    let options = xml::ReadOptions { layout: layout.or_else(|| xml::stated_layout(bytes)).unwrap_or(xml::DEFAULT_LAYOUT), order, dangling };
    let doc = xml::read_with(bytes, |contents| schemas.for_sdk(&hkgen::reflection::sources::sdk_of_contents_version(contents)), options)
        .map_err(|e| e.in_file(file.display().to_string()).to_string())?;
    for r in &doc.repairs {
        eprintln!("hkgen: {}: repaired: {r}", file.display());
    }
    Ok(doc)
}

fn convert(o: &ConvertOptions, schemas: &PackSources, input: &Path, output: &Path) -> Result<ExitCode, String> {
    if input.is_dir() {
        return convert_dir(o, schemas, input, output);
    }
    let bytes = std::fs::read(input).map_err(|e| Error::io(input, e).to_string())?;
    let done = convert_file(o, schemas, &bytes, input, output, None)?;
    eprintln!("{done}");
    Ok(ExitCode::SUCCESS)
}

/// Converts one file (`bytes`, read from `input`) to `output`; the summary line it gives is
/// printed by the caller. A tagfile takes `compendia`, else those beside it.
fn convert_file(o: &ConvertOptions, schemas: &PackSources, bytes: &[u8], input: &Path, output: &Path, compendia: Option<&Compendia>) -> Result<String, String> {
    use hktypes::packfile::xml;
    let rules = match &o.layout {
        Some(l) => Some(hktypes::packfile::LayoutRules::parse(l).ok_or_else(|| format!("--layout {l}: expected four numbers like 8,1,1,1"))?),
        None => None,
    };
    let to_xml = match o.to.as_deref() {
        Some(t) => t == "xml",
        None => output.extension().is_some_and(|e| e.eq_ignore_ascii_case("xml")),
    };
    if to_xml && rules.is_some() {
        return Err("--layout is for a binary output; XML holds no layout".to_owned());
    }
    if let Some(done) = convert_tagfile(o, bytes, input, output, compendia)? {
        return Ok(done);
    }
    if o.to.as_deref() == Some("tagfile") {
        return Err(format!("{}: a packfile converts to xml or packfile, not tagfile", input.display()));
    }
    let order = if o.havok_order { xml::ObjectOrder::Havok } else { xml::ObjectOrder::Xml };
    let doc = any_packfile_document(bytes, schemas, input, rules, order, o.dangling)?;
    let located = |e: hktypes::Error| e.in_file(input.display().to_string()).to_string();
    let (out, form) = if to_xml {
        let floats = if o.floats == "havok" { xml::FloatForm::Havok } else { xml::FloatForm::Shortest };
        (xml::write(&doc, xml::WriteOptions { floats }).map_err(located)?.into_bytes(), "XML".to_owned())
    } else {
        let rules = rules.unwrap_or_else(|| doc.layout());
        (doc.write_as(rules).map_err(located)?, rules.to_string())
    };
    write_output(output, &out)?;
    Ok(format!("{} ({}) -> {} ({form}): {} objects, {} bytes", input.display(), doc.layout(), output.display(), doc.objects.len(), out.len()))
}

/// Where a file converted from `rel` (a path under the input directory) goes under `out`: to XML,
/// `a.hkx` becomes `a.xml` and any other name gains `.xml`; to a binary form, `a.hkrg.xml`
/// becomes `a.hkrg`, `a.xml` becomes `a.hkx`, and other names are kept.
fn converted_name(rel: &Path, to_xml: bool) -> PathBuf {
    let ext = |p: &Path, e: &str| p.extension().is_some_and(|x| x.eq_ignore_ascii_case(e));
    if to_xml {
        if ext(rel, "hkx") {
            rel.with_extension("xml")
        } else if ext(rel, "xml") {
            rel.to_path_buf()
        } else {
            let mut name = rel.as_os_str().to_owned();
            name.push(".xml");
            PathBuf::from(name)
        }
    } else if ext(rel, "xml") {
        let stem = rel.with_extension("");
        if stem.extension().is_some() { stem } else { rel.with_extension("hkx") }
    } else {
        rel.to_path_buf()
    }
}

/// What became of one file of a directory conversion.
enum Converted {
    Done,
    Failed(String),
    /// Passed over, with the reason it is counted under.
    PassedOver(&'static str),
}

/// Converts every Havok file under the directory `input` to the same relative path under `output`
/// (see [`converted_name`]), in the form `--to` names, with a progress bar; prints each failure
/// and a summary. Fails when a file failed or when no file converted.
fn convert_dir(o: &ConvertOptions, schemas: &PackSources, input: &Path, output: &Path) -> Result<ExitCode, String> {
    let Some(to) = o.to.as_deref() else {
        return Err(format!("{} is a directory: say the output form with --to xml|packfile|tagfile|binary", input.display()));
    };
    if output.exists() && !output.is_dir() {
        return Err(format!("{} is a directory but the output {} is not", input.display(), output.display()));
    }
    // An output inside the input would be read as input by the next run, and the other way round.
    let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let (cin, cout) = (canon(input), canon(output));
    if cout.starts_with(&cin) || cin.starts_with(&cout) {
        return Err(format!("the output directory {} must lie outside the input directory {} (and not hold it)", output.display(), input.display()));
    }
    let to_xml = to == "xml";
    let files = inputs::walk(&[input.to_path_buf()]).map_err(|e| e.to_string())?;
    // The tagfiles of a directory take the compendia in it (and beside it, as one file would).
    let mut compendia = Compendia::load(&[input.to_path_buf()]).map_err(|e| e.to_string())?;
    if compendia.is_empty() {
        // `load_near` looks beside a file: a name in the directory stands for the directory.
        compendia = Compendia::load_near(&input.join("-")).map_err(|e| e.to_string())?;
    }
    let pb = progress_bar(files.len() as u64);
    let results: Vec<(PathBuf, Converted)> = files
        .par_iter()
        .map(|file| {
            let r = convert_one_of_dir(o, schemas, to_xml, &compendia, input, output, file);
            pb.inc(1);
            (file.clone(), r)
        })
        .collect();
    pb.finish_and_clear();
    let (mut done, mut failed) = (0usize, 0usize);
    let mut passed_over: std::collections::BTreeMap<&str, usize> = Default::default();
    for (file, r) in &results {
        match r {
            Converted::Done => done += 1,
            Converted::Failed(e) => {
                failed += 1;
                eprintln!("FAIL {}: {e}", file.display());
            }
            Converted::PassedOver(why) => *passed_over.entry(why).or_default() += 1,
        }
    }
    let over: Vec<String> = passed_over.iter().map(|(why, n)| format!("{n} {why}")).collect();
    let over = if over.is_empty() { String::new() } else { format!("; passed over: {}", over.join(", ")) };
    eprintln!("{done} converted, {failed} failed{over}");
    if done + failed == 0 {
        return Err(format!("no file to convert to {to} in {} ({} files found)", input.display(), files.len()));
    }
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

fn convert_one_of_dir(
    o: &ConvertOptions,
    schemas: &PackSources,
    to_xml: bool,
    compendia: &Compendia,
    input: &Path,
    output: &Path,
    file: &Path,
) -> Converted {
    let bytes = match std::fs::read(file) {
        Ok(b) => b,
        Err(e) => return Converted::Failed(Error::io(file, e).to_string()),
    };
    let Some(format) = hktypes::sniff(&bytes) else { return Converted::PassedOver("not Havok files") };
    use hktypes::Format;
    let to = o.to.as_deref().unwrap_or_default();
    let already = match format {
        Format::Tcm0 => return Converted::PassedOver("compendia"),
        Format::PackfileXml | Format::TagfileXml => to_xml,
        Format::Packfile => matches!(to, "packfile" | "binary") && o.layout.is_none(),
        Format::Tag0 => matches!(to, "tagfile" | "binary"),
    };
    if already {
        return Converted::PassedOver("already in the output form");
    }
    let rel = file.strip_prefix(input).unwrap_or(file);
    let target = output.join(converted_name(rel, to_xml));
    if target.exists() && !o.force {
        return Converted::Failed(format!("{} exists (--force replaces it)", target.display()));
    }
    match convert_file(o, schemas, &bytes, file, &target, Some(compendia)) {
        Ok(_) => Converted::Done,
        Err(e) => Converted::Failed(e),
    }
}

/// A TAG0 file to `<hktagfile>` XML, or such XML to TAG0 (told apart by content; the output form
/// from `--to`, else OUT's extension, else the other form). A TCRF file reads with the compendia
/// beside it; XML that names one of those writes TCRF again, else a `TYPE` section of its own.
/// `None` when the input is neither.
fn convert_tagfile(o: &ConvertOptions, bytes: &[u8], input: &Path, output: &Path, compendia: Option<&Compendia>) -> Result<Option<String>, String> {
    use hktypes::tagfile::{xml, TagFile};
    let is_xml = hktypes::sniff(bytes) == Some(hktypes::Format::TagfileXml);
    if !is_xml && hktypes::sniff(bytes) != Some(hktypes::Format::Tag0) {
        return Ok(None);
    }
    if o.layout.is_some() || o.havok_order {
        return Err("--layout and --havok-order are for packfiles; a tagfile has one layout".to_owned());
    }
    let to_xml = match o.to.as_deref() {
        Some("xml") => true,
        Some("tagfile" | "binary") => false,
        Some(other) => return Err(format!("{}: a tagfile converts to xml or tagfile, not {other}", input.display())),
        None => match output.extension() {
            Some(e) if e.eq_ignore_ascii_case("xml") => true,
            Some(_) => false,
            None => !is_xml,
        },
    };
    let located = |e: hktypes::Error| e.in_file(input.display().to_string()).to_string();
    let near;
    let compendia = match compendia {
        Some(c) => c,
        None => {
            near = Compendia::load_near(input).map_err(|e| e.to_string())?;
            &near
        }
    };
    let set = compendia.set_for(input);
    let tag0 = if is_xml { tagfile_xml(bytes).and_then(|d| d.write_tag0(&set)).map_err(located)? } else { bytes.to_vec() };
    let out = if to_xml {
        let file = TagFile::read(&tag0, &set).map_err(located)?;
        let floats = if o.floats == "havok" { xml::FloatForm::Havok } else { xml::FloatForm::Shortest };
        xml::write(&file, xml::WriteOptions { floats }).map_err(located)?.into_bytes()
    } else {
        tag0
    };
    write_output(output, &out)?;
    let form = if to_xml { "hktagfile XML" } else { "TAG0" };
    Ok(Some(format!("{} -> {} ({form}): {} bytes", input.display(), output.display(), out.len())))
}

/// The readable listing of `hkgen dump` (`--format text`): RON of a tagfile's items and a
/// packfile's objects as `hktypes::dynamic::dump` and `packfile::objects::Document::dump` give
/// them.
fn dump(compendium_paths: Vec<PathBuf>, schemas: &PackSources, dangling: hktypes::packfile::xml::Dangling, file: &Path) -> Result<ExitCode, String> {
    let format = "ron";
    let mut bytes = std::fs::read(file).map_err(|e| Error::io(file, e).to_string())?;
    // `<hktagfile>` XML holds its types: dumped as the TAG0 file it gives.
    if hktypes::sniff(&bytes) == Some(hktypes::Format::TagfileXml) {
        bytes = tagfile_xml(&bytes)
            .and_then(|d| d.write_tag0(&Default::default()))
            .map_err(|e| e.in_file(file.display().to_string()).to_string())?;
    }
    if matches!(hktypes::sniff(&bytes), Some(hktypes::Format::Packfile | hktypes::Format::PackfileXml)) {
        let doc = any_packfile_document(&bytes, schemas, file, None, Default::default(), dangling)?;
        print(format, &doc.dump())?;
        return Ok(ExitCode::SUCCESS);
    }
    match inputs::sniff(&bytes) {
        inputs::Format::Tag0 => {}
        inputs::Format::Tcm0 => return dump_compendium(format, &bytes, file),
        _ => return Err(format!("{}: {}", file.display(), hkgen::verify::not_havok(&bytes))),
    }
    // Without compendia named, the ones a binder keeps beside the file are looked for.
    let compendia = if compendium_paths.is_empty() { Compendia::load_near(file) } else { Compendia::load(&compendium_paths) }
        .map_err(|e| e.to_string())?;
    let t = hktypes::tagfile::TagFile::read(&bytes, &compendia.set_for(file)).map_err(|e| {
        let e = e.in_file(file.display().to_string()).to_string();
        missing_compendium_hint(&e, &bytes).unwrap_or(e)
    })?;
    let objects = hktypes::dynamic::dump(&t).map_err(|e| e.in_file(file.display().to_string()).to_string())?;
    let text = match format {
        "json" => serde_json::to_string_pretty(&objects).map_err(|e| e.to_string())?,
        _ => ron::ser::to_string_pretty(&objects, ron::ser::PrettyConfig::new().indentor("  ".to_owned()))
            .map_err(|e| e.to_string())?,
    };
    // A closed pipe (`hkgen dump f | head`) ends the output quietly.
    let _ = writeln!(std::io::stdout().lock(), "{text}");
    Ok(ExitCode::SUCCESS)
}

/// Writes `bytes` to `path`, which must not exist unless `force`.
fn write_new(path: &Path, bytes: &[u8], force: bool) -> Result<(), String> {
    if !force && path.exists() {
        return Err(format!("{} exists; --force replaces it", path.display()));
    }
    write_output(path, bytes)
}

/// A file in the one dump shape of both formats (`hktypes::dump`); a TCM0 compendium, which holds
/// no objects, as its ids and type table.
fn dump_shape(
    format: &str,
    out: Option<&Path>,
    force: bool,
    compendium_paths: Vec<PathBuf>,
    schemas: &PackSources,
    dangling: hktypes::packfile::xml::Dangling,
    file: &Path,
) -> Result<ExitCode, String> {
    let located = |e: hktypes::Error| e.in_file(file.display().to_string()).to_string();
    let mut bytes = std::fs::read(file).map_err(|e| Error::io(file, e).to_string())?;
    if hktypes::sniff(&bytes) == Some(hktypes::Format::TagfileXml) {
        bytes = tagfile_xml(&bytes).and_then(|d| d.write_tag0(&Default::default())).map_err(located)?;
    }
    let shape = if matches!(hktypes::sniff(&bytes), Some(hktypes::Format::Packfile | hktypes::Format::PackfileXml)) {
        let doc = any_packfile_document(&bytes, schemas, file, None, Default::default(), dangling)?;
        hktypes::dump::dump_packfile(&doc).map_err(located)?
    } else {
        match inputs::sniff(&bytes) {
            inputs::Format::Tag0 => {}
            inputs::Format::Tcm0 if out.is_none() => return dump_compendium(format, &bytes, file),
            inputs::Format::Tcm0 => return Err(format!("{}: a compendium holds no objects to dump to a file", file.display())),
            _ => return Err(format!("{}: {}", file.display(), hkgen::verify::not_havok(&bytes))),
        }
        let compendia = if compendium_paths.is_empty() { Compendia::load_near(file) } else { Compendia::load(&compendium_paths) }
            .map_err(|e| e.to_string())?;
        let t = hktypes::tagfile::TagFile::read(&bytes, &compendia.set_for(file)).map_err(|e| {
            let e = located(e);
            missing_compendium_hint(&e, &bytes).unwrap_or(e)
        })?;
        hktypes::dump::dump_tagfile(&t).map_err(located)?
    };
    let text = dump_text(format, &shape)?;
    match out {
        Some(path) => {
            write_new(path, text.as_bytes(), force)?;
            eprintln!("{} -> {} ({format}): {} objects, {} bytes", file.display(), path.display(), shape.objects.len(), text.len());
        }
        // A closed pipe (`hkgen dump f | head`) ends the output quietly.
        None => {
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A dump's text: pretty JSON or RON, ending in a newline.
pub fn dump_text(format: &str, dump: &hktypes::dump::Dump) -> Result<String, String> {
    let mut text = match format {
        "json" => serde_json::to_string_pretty(dump).map_err(|e| e.to_string())?,
        _ => ron::ser::to_string_pretty(dump, ron::ser::PrettyConfig::new().indentor("  ".to_owned())).map_err(|e| e.to_string())?,
    };
    text.push('\n');
    Ok(text)
}

/// A dump's text read back: JSON when it starts with `{`, else RON.
pub fn parse_dump(text: &[u8]) -> Result<hktypes::dump::Dump, String> {
    let s = std::str::from_utf8(text).map_err(|e| format!("a dump is UTF-8 text: {e}"))?;
    if s.trim_start().starts_with('{') {
        serde_json::from_str(s).map_err(|e| format!("JSON dump: {e}"))
    } else {
        ron::from_str(s).map_err(|e| format!("RON dump: {e}"))
    }
}

/// A dump back to the binary file.
fn build(compendium_paths: Vec<PathBuf>, schemas: &PackSources, force: bool, input: &Path, output: &Path) -> Result<ExitCode, String> {
    let located = |e: hktypes::Error| e.in_file(input.display().to_string()).to_string();
    let text = std::fs::read(input).map_err(|e| Error::io(input, e).to_string())?;
    let dump = parse_dump(&text).map_err(|e| format!("{}: {e}", input.display()))?;
    let compendia = if dump.kept.compendium.is_some() {
        if compendium_paths.is_empty() { Compendia::load_near(input) } else { Compendia::load(&compendium_paths) }.map_err(|e| e.to_string())?
    } else {
        Compendia::default()
    };
    let set = compendia.set_for(input);
    let sdk = hkgen::reflection::sources::sdk_of_contents_version(&dump.sdk);
    let options = hktypes::dump::BuildOptions { compendia: Some(&set), packfile_classes: schemas.for_sdk(&sdk) };
    let bytes = hktypes::dump::build(&dump, &options, text.len()).map_err(|e| {
        let e = located(e);
        if e.contains("compendium") && dump.kept.compendium.is_some() {
            format!("{e} (pass the .compendium file or a folder holding it with --compendium PATH)")
        } else {
            e
        }
    })?;
    write_new(output, &bytes, force)?;
    eprintln!("{} ({}) -> {}: {} objects, {} bytes", input.display(), dump.format, output.display(), dump.objects.len(), bytes.len());
    Ok(ExitCode::SUCCESS)
}

/// A TCM0 compendium: its ids and its type table, type by type under its full name, as a snapshot
/// holds them.
fn dump_compendium(format: &str, bytes: &[u8], file: &Path) -> Result<ExitCode, String> {
    #[derive(serde::Serialize)]
    struct CompendiumDump<'a> {
        ids: Vec<String>,
        types: &'a std::collections::BTreeMap<String, hkgen::schema::model::Type>,
    }
    let c = hktypes::tagfile::Compendium::read(bytes).map_err(|e| e.in_file(file.display().to_string()).to_string())?;
    let ids: Vec<String> = c.ids.iter().map(|i| i.to_string()).collect();
    let mut m = hkgen::schema::Merger::new();
    // A compendium stores no SDK version; the records do not depend on one.
    m.add("", c.types.clone(), hkgen::schema::Origin::Compendium(ids.clone()), 0);
    let (schemas, _) = m.finish();
    let empty = std::collections::BTreeMap::new();
    let types = schemas.first().map_or(&empty, |s| &s.types);
    print(format, &CompendiumDump { ids, types })?;
    Ok(ExitCode::SUCCESS)
}

fn diff(format: &str, all: bool, old: &str, new: &str) -> Result<ExitCode, String> {
    let a = hkgen::schema::snapshot::open(old).map_err(|e| e.to_string())?;
    let b = hkgen::schema::snapshot::open(new).map_err(|e| e.to_string())?;
    let changes = hkgen::diff::diff(&a, &b);
    let text = match format {
        "json" => serde_json::to_string_pretty(&changes).map_err(|e| e.to_string())? + "\n",
        "markdown" => hkgen::diff::markdown(&changes, all),
        _ => hkgen::diff::table(&changes, all),
    };
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
    Ok(ExitCode::SUCCESS)
}
