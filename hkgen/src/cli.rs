//! The `hkgen` command line. For your files: `verify`, `dump` (and `build` a dump back into its
//! file), `convert`, `diff` two files. The schema tool's: `extract` schema snapshots,
//! `schema-diff` snapshots, `codegen` to print the Rust code the root crate's build script
//! generates, `stubs`. How every command writes is [`output`]'s, how it reads [`reading`]'s.
//!
//! The binary lives in the root crate (`src/main.rs`), which hands [`main_with`] the generated
//! classes of every SDK it was built with, so that `verify` reads objects through them.

use crate as hkgen;
use crate::inputs::{self, Compendia};
use crate::verify::{ClassesOf, Report, Verifier};
use crate::error::Error;
use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub mod output;
pub mod reading;
pub mod gltf;

/// The schema tool's commands, listed apart from the commands for your files in `--help`.
const SCHEMA_TOOL: &[&str] = &["extract", "codegen", "stubs", "schema-diff"];
/// The order the commands for your files are listed in (others follow in declaration order).
const USER_ORDER: &[&str] = &["verify", "dump", "build", "convert", "diff", "ls", "anim", "gltf"];

/// The command line with `--help` listing the commands for your files apart from the schema
/// tool's.
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    let cmd = Cli::command();
    // Each command's first phrase: up to its first `;`, `:` or sentence end.
    let line = |c: &clap::Command| {
        let about = c.get_about().map(|a| a.to_string()).unwrap_or_default();
        let cut = ["; ", ": ", ". "].iter().filter_map(|p| about.find(p)).min().unwrap_or(about.len());
        format!("  {:<13} {}", c.get_name(), about[..cut].trim_end_matches('.'))
    };
    let mut user: Vec<&clap::Command> = Vec::new();
    let mut tool = Vec::new();
    for c in cmd.get_subcommands().filter(|c| !c.is_hide_set()) {
        if SCHEMA_TOOL.contains(&c.get_name()) {
            tool.push(line(c));
        } else {
            user.push(c);
        }
    }
    user.sort_by_key(|c| USER_ORDER.iter().position(|n| *n == c.get_name()).unwrap_or(USER_ORDER.len()));
    let mut user: Vec<String> = user.into_iter().map(line).collect();
    user.push(format!("  {:<13} Print this message or the help of the given command", "help"));
    let template = format!(
        "{{about-with-newline}}\n{{usage-heading}} {{usage}}\n\nCommands for your files:\n{}\n\nSchema tool (type tables to snapshots and code):\n{}\n\nOptions:\n{{options}}{{after-help}}",
        user.join("\n"),
        tool.join("\n")
    );
    cmd.help_template(template)
}

fn parse_grouped() -> Cli {
    use clap::FromArgMatches;
    let m = command().get_matches();
    Cli::from_arg_matches(&m).unwrap_or_else(|e| e.exit())
}

/// `--layout` parsed.
fn parse_layout(layout: Option<&str>) -> Result<Option<hktypes::packfile::LayoutRules>, String> {
    match layout {
        Some(l) => hktypes::packfile::LayoutRules::parse(l).map(Some).ok_or_else(|| format!("--layout {l}: expected four numbers like 8,1,1,1")),
        None => Ok(None),
    }
}

/// Where packfile classes come from: `--schemas` (a folder that must exist), else those compiled in.
fn pack_sources(read: &reading::ReadArgs, compiled: Option<PackfileSourcesOf>) -> Result<PackSources, String> {
    let dir = read.schemas_dir()?.map(Path::to_path_buf);
    PackSources::new(dir, compiled)
}

#[derive(Parser)]
#[command(name = "hkgen", version, about = "Havok type tables to schemas, typed Rust, and back")]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// A zstd dictionary for archives compressed with one (Tears of the Kingdom's `pack.zsdic`),
    /// besides those found beside the archive (`*.zsdic`, `ZsDic.pack.zs`). May be repeated.
    #[arg(long = "zstd-dictionary", value_name = "PATH", global = true)]
    zstd_dictionaries: Vec<PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// List the members of a game archive (DCX, BND3, BND4, BHF4+BDF4, Yaz0, SARC, zstd): index,
    /// size, kind of Havok file, own compression and name. A member is named to the other commands
    /// as ARCHIVE:MEMBER, with its full name or a unique ending of it
    /// (`c3570.anibnd.dcx:skeleton.hkx`).
    Ls {
        /// The archive (for a split binder, the .bhd or .bdt file).
        archive: PathBuf,
    },
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
        /// Rewrite the committed snapshots under schemas/ (the same as --out schemas --force).
        #[arg(long, conflicts_with = "out")]
        update: bool,
        #[command(flatten)]
        write: output::WriteArgs,
        /// Files or directories (walked recursively).
        inputs: Vec<PathBuf>,
    },
    /// Compare two schema snapshots class by class (directories, or git revisions as REV:path).
    SchemaDiff {
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
        /// Write to this file instead of stdout.
        #[arg(long, value_name = "PATH")]
        out: Option<PathBuf>,
        #[command(flatten)]
        write: output::WriteArgs,
        #[command(flatten)]
        read: reading::ReadArgs,
        /// The layout `<hkpackfile>` XML without hkgen's layout note is read under (as `convert
        /// --layout`), e.g. `4,1,0,1`.
        #[arg(long)]
        layout: Option<String>,
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
        /// e.g. `8,1,1,1`. Default: the input's own; for XML input the layout of the binary it
        /// was written from (its `hkgen:container` comment); XML without that note needs it.
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
        #[command(flatten)]
        read: reading::ReadArgs,
        #[command(flatten)]
        write: output::WriteArgs,
        /// What a pointer of `<hkpackfile>` XML that names no object gives: `error` (the
        /// default), or `null`, for a file known to be broken: the pointer is read as null and
        /// each such repair is reported.
        #[arg(long, value_name = "HOW", default_value = "error", value_parser = ["error", "null"])]
        dangling_pointers: String,
        /// Convert to another SDK (`2015.1`, `2010.2`, ...): every object rebuilt as that SDK's
        /// class of the same name, members matched by name and by the migration rules of
        /// `schemas/migrations/`. The output is a tagfile for SDK 2015.1 and later, a packfile
        /// before (or as --to says), under --layout (default: the input's, else 8,1,0,1). A
        /// value the target cannot hold stops the conversion with a report naming each.
        #[arg(long, value_name = "SDK")]
        sdk: Option<String>,
        /// With --sdk: convert even where values are lost, and print what was lost.
        #[arg(long, requires = "sdk")]
        allow_loss: bool,
        /// With --sdk: print what would be lost, defaulted, migrated and computed, and write nothing (OUT
        /// may be left out).
        #[arg(long, requires = "sdk")]
        dry_run: bool,
        /// With --sdk: where the target SDK has both classes of a replacement (2014.1 has hkp
        /// and hknp ragdolls), take the side whose class names start with this (`hkp`, `hknp`);
        /// without it, what the migration rules prefer (2014.1: hknp, as Dark Souls III's files).
        #[arg(long, requires = "sdk", value_name = "CLASSES")]
        prefer: Option<String>,
        input: PathBuf,
        /// The converted file (a folder for a folder INPUT).
        output: Option<PathBuf>,
    },
    /// Turn a dump back into the binary file it was dumped from, byte for byte. The dump is
    /// `hkgen dump --format json|ron`'s, told apart by content.
    Build {
        #[command(flatten)]
        read: reading::ReadArgs,
        #[command(flatten)]
        write: output::WriteArgs,
        /// Write the built file into an archive instead, replacing the member ARCHIVE:MEMBER
        /// (compressed as it was; the archive's sizes, offsets and hashes recomputed, the archive
        /// rewritten atomically). The member must exist.
        #[arg(long, value_name = "ARCHIVE:MEMBER", conflicts_with = "output")]
        into: Option<String>,
        input: PathBuf,
        #[arg(required_unless_present = "into")]
        output: Option<PathBuf>,
    },
    /// Parse and check each file; recompute every stored type hash; write every TAG0 file again
    /// and compare.
    Verify {
        /// One JSON object per file and line on stdout.
        #[arg(long)]
        json: bool,
        /// Every TCM0 among the inputs is used as a compendium too.
        #[command(flatten)]
        read: reading::ReadArgs,
        /// Check the invariants Havok's runtime relies on (array lengths that agree, indices in
        /// range, parents before children, unit quaternions, ...), per class where rules are
        /// known. On by default.
        #[arg(long, overrides_with = "no_semantic")]
        semantic: bool,
        /// Do not check the invariants of `--semantic`.
        #[arg(long, overrides_with = "semantic")]
        no_semantic: bool,
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
        #[command(flatten)]
        write: output::WriteArgs,
        /// Print the module as the build script writes it, byte for byte: one item per line, not
        /// pretty-printed.
        #[arg(long)]
        unformatted: bool,
    },
    /// Write the Python type stubs of the SDKs' classes (`<module>.pyi`, one per tagfile and
    /// packfile SDK, and `<module>.py`, which executes it at run time) for the Python package;
    /// the package ships them in python/hkgen/classes/.
    Stubs {
        /// SDK version, e.g. 2018.1 or 2014.2; every SDK of the root crate when absent.
        #[arg(long)]
        sdk: Option<String>,
        /// The directory of snapshots (holding enums.ron, and <sdk>/sdk.ron or, for a packfile SDK, <sdk>/classes/).
        #[arg(long, default_value = "schemas")]
        schemas: PathBuf,
        /// Where the .pyi and .py files go (a folder that holds files only with --force).
        #[arg(long)]
        out: PathBuf,
        #[command(flatten)]
        write: output::WriteArgs,
    },
    /// Compare two Havok files object by object and member by member: each changed value with its
    /// old and new value. Objects are matched by class and by their place in the graph from the
    /// root. Exit 0 when both hold the same objects and values, 1 when they differ, 2 on an
    /// error, as `diff` does.
    Diff {
        /// `text` or `json`.
        #[arg(long, default_value = "text", value_parser = ["text", "json"])]
        format: String,
        #[command(flatten)]
        read: reading::ReadArgs,
        /// The layout `<hkpackfile>` XML without hkgen's layout note is read under, e.g. `4,1,0,1`.
        #[arg(long)]
        layout: Option<String>,
        /// The old file.
        a: PathBuf,
        /// The new file.
        b: PathBuf,
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
        #[command(flatten)]
        write: output::WriteArgs,
        #[command(flatten)]
        read: reading::ReadArgs,
        file: PathBuf,
    },
    /// glTF 2.0: `export` skeletons, animations and shapes of Havok files into one .glb (or
    /// .gltf with a .bin beside it), `import` a glTF's animations back into a Havok file.
    #[command(subcommand)]
    Gltf(GltfCommand),
}

/// The subcommands of `hkgen gltf`.
#[derive(Subcommand)]
enum GltfCommand {
    /// Export the skeletons (bones as nodes, reference pose, a skin), animations (sampled per
    /// frame onto the skeleton's bones; an animation whose skeleton is not among the FILEs is
    /// refused with its name) and shapes of FILEs into one glTF: OUT.glb, or OUT.gltf with
    /// OUT.bin beside it.
    Export {
        /// The input files' up axis: y (FromSoft, Zelda: written as is) or z (Skyrim, Fallout 4:
        /// the scene turned so that Havok's +Z is glTF's +Y).
        #[arg(long, default_value = "y", value_parser = ["y", "z"])]
        up: String,
        /// Leave root motion (hkaDefaultAnimatedReferenceFrame) out; the animation's extras say so.
        #[arg(long)]
        no_root_motion: bool,
        /// Give an animation whose skeleton is not among the FILEs a placeholder skeleton (named
        /// as its binding's skeleton, bones `bone 0`, `bone 1`, ..., flat, at rest at the
        /// identity; flagged in the node's extras) instead of refusing it. `gltf import` reads
        /// such an export back onto the same file.
        #[arg(long)]
        placeholder_skeleton: bool,
        #[command(flatten)]
        write: output::WriteArgs,
        #[command(flatten)]
        read: reading::ReadArgs,
        out: PathBuf,
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Replace the animations of FILE (--into) with the glTF's (matched by the names the export
    /// gives, or --animation N), resampled at the file's frame rate and encoded with the file's
    /// codec (spline at the tolerances given, or interleaved); bones matched by name against the
    /// file's binding and skeleton. Writes OUT.
    Import {
        /// The Havok file whose animations are replaced (it is not written).
        #[arg(long, value_name = "FILE")]
        into: PathBuf,
        /// Only the animation object N of FILE (its handle, as `hkgen anim` lists it).
        #[arg(long, value_name = "N")]
        animation: Option<u32>,
        /// The codec to write; it must be the animation's own (its class is kept). Default: the
        /// animation's own.
        #[arg(long, value_parser = ["spline", "interleaved"])]
        codec: Option<String>,
        /// Spline translation tolerance, in the file's units.
        #[arg(long, default_value_t = 0.01)]
        position_tolerance: f32,
        /// Spline rotation tolerance, in quaternion components.
        #[arg(long, default_value_t = 0.01)]
        rotation_tolerance: f32,
        /// Spline scale tolerance.
        #[arg(long, default_value_t = 0.01)]
        scale_tolerance: f32,
        /// Spline float track tolerance.
        #[arg(long, default_value_t = 0.01)]
        float_tolerance: f32,
        /// Spline rotation quantization: POLAR32, THREECOMP40, THREECOMP48, THREECOMP24,
        /// STRAIGHT16 or UNCOMPRESSED.
        #[arg(long, default_value = "ThreeComp40")]
        rotation_quantization: String,
        #[command(flatten)]
        write: output::WriteArgs,
        #[command(flatten)]
        read: reading::ReadArgs,
        /// The glTF (.glb, or .gltf with its buffers beside it).
        input: PathBuf,
        out: PathBuf,
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

/// The classes compiled into a program that runs the command line ([`main_with`]); the default
/// has none (objects read untyped, packfiles laid out with the snapshots under `./schemas`).
#[derive(Clone, Copy)]
pub struct Compiled {
    /// The generated classes of an SDK version, tagfile (`2018.1`) or packfile (`2014.2`)
    /// (`hkclasses::classes_for_sdk`): `verify` takes every object one applies to through it.
    pub classes: ClassesOf,
    /// The class descriptions per packfile SDK version (`hkclasses::packfile_sources_for_sdk`):
    /// `dump` and `convert` lay packfile objects out with them unless `--schemas DIR` names
    /// snapshots; without them they read the snapshots under `./schemas`.
    pub packfile_sources: Option<PackfileSourcesOf>,
    /// The class registry of every SDK compiled in (`hkclasses::REGISTRY`).
    pub registry: Option<&'static (dyn hktypes::ClassRegistry + Sync)>,
}

impl Default for Compiled {
    fn default() -> Self {
        Compiled { classes: |_| &[], packfile_sources: None, registry: None }
    }
}

/// The class descriptions compiled into a program, per packfile SDK version
/// (`hkclasses::packfile_sources_for_sdk`).
pub type PackfileSourcesOf = fn(&str) -> Vec<&'static dyn hktypes::packfile::layout::ClassSource>;

/// Runs the command line with the classes `compiled` into the program
/// (`Compiled::default()` for none).
pub fn main_with(compiled: Compiled) -> ExitCode {
    let Compiled { classes, packfile_sources, registry } = compiled;
    if let Some(r) = registry {
        let _ = REGISTRY.set(r);
    }
    let cli = parse_grouped();
    let mut exit_error = ExitCode::FAILURE;
    match load_dictionaries(&cli.zstd_dictionaries) {
        Ok(o) => {
            let _ = ARCHIVE_OPTIONS.set(o);
        }
        Err(e) => {
            eprintln!("hkgen: {e}");
            return ExitCode::FAILURE;
        }
    }
    let r = match cli.command {
        Command::Ls { archive } => ls(&archive),
        Command::Extract { out, update, write, inputs } => match (out, update) {
            (Some(out), _) => extract(out, write.policy(), inputs),
            (None, true) => extract(PathBuf::from("schemas"), output::WritePolicy { force: true, parents: false }, inputs),
            (None, false) => Err("extract writes its snapshots where you say: --out DIR for a folder of your own, or --update \
                 (the same as --out schemas --force) to rewrite the committed snapshots under schemas/"
                .to_owned()),
        },
        Command::Verify { json, read, semantic: _, no_semantic, skip_unknown, dangling_pointers, inputs } => {
            let o = VerifyOptions { json, skip_unknown, xml_dangling: dangling_of(&dangling_pointers), semantic: !no_semantic };
            read.schemas_dir().map(|d| d.map(Path::to_path_buf)).and_then(|schemas| {
                verify(o, read.compendia.clone(), schemas.as_deref(), packfile_sources, inputs, classes)
            })
        }
        Command::Dump { format, out, write, read, layout, dangling_pointers, file } => pack_sources(&read, packfile_sources).and_then(|s| {
            let dangling = dangling_of(&dangling_pointers);
            let layout = parse_layout(layout.as_deref())?;
            if format == "text" {
                if out.is_some() {
                    return Err("--out is for --format json or ron".to_owned());
                }
                dump(&read, &s, layout, dangling, &file)
            } else {
                dump_shape(&format, out.as_deref(), write.policy(), &read, &s, layout, dangling, &file)
            }
        }),
        Command::Build { read, write, into, input, output } => pack_sources(&read, packfile_sources).and_then(|s| match (into, output) {
            (Some(into), _) => build_into(&read, &s, &input, &into),
            (None, Some(output)) => build(&read, &s, write.policy(), &input, &output),
            (None, None) => Err("build needs OUT or --into ARCHIVE:MEMBER".to_owned()),
        }),
        Command::Convert { layout, to, floats, havok_order, read, write, dangling_pointers, sdk, allow_loss, dry_run, prefer, input, output } => {
            let dangling = dangling_of(&dangling_pointers);
            match sdk {
                Some(sdk) => {
                    let o = SdkConvert { sdk, to, layout, allow_loss, dry_run, prefer, policy: write.policy(), compendia: read.compendia.clone() };
                    convert_sdk(&o, &input, output.as_deref())
                }
                None => pack_sources(&read, packfile_sources).and_then(|s| {
                    let output = output.ok_or_else(|| "convert needs OUT (only --sdk with --dry-run writes nothing)".to_owned())?;
                    let o = ConvertOptions { layout, to, floats, havok_order, policy: write.policy(), compendia: read.compendia.clone(), dangling };
                    convert(&o, &s, &input, &output)
                }),
            }
        }
        Command::SchemaDiff { format, all, old, new } => diff(&format, all, &old, &new),
        Command::Diff { format, read, layout, a, b } => {
            exit_error = ExitCode::from(2);
            pack_sources(&read, packfile_sources).and_then(|s| {
                let layout = parse_layout(layout.as_deref())?;
                file_diff(&format, &read, &s, layout, &a, &b)
            })
        }
        Command::Anim { frames, out, write, read, file } => read.schemas_dir().map(|d| d.map(Path::to_path_buf)).and_then(|schemas| {
            crate::anim_cli::anim(&crate::anim_cli::AnimArgs {
                frames: frames.as_deref(),
                out: out.as_deref(),
                force: write.policy().force,
                compendia: read.compendia.clone(),
                schemas,
                registry: REGISTRY.get().copied(),
                file: &file,
            })
        }),
        Command::Gltf(g) => gltf_command(g),
        Command::Codegen { sdk, schemas, out, write, unformatted } => codegen(&sdk, &schemas, out.as_deref(), write.policy(), unformatted),
        Command::Stubs { sdk, schemas, out, write } => output::check_dir(&out, &[schemas.as_path()], write.policy(), true)
            .and_then(|_| output::make_dir(&out, write.policy()))
            .and_then(|_| {
                let all = hkgen::codegen::sdk_versions(None);
                let sdks: Vec<&str> = sdk.as_deref().map_or(all, |s| vec![s]);
                hkgen::codegen::generate_stubs(&schemas, &out, &sdks).map(|_| ExitCode::SUCCESS).map_err(|e| e.to_string())
            }),
    };
    match r {
        Ok(code) => code,
        Err(e) => {
            eprintln!("hkgen: {e}");
            exit_error
        }
    }
}

/// Runs `hkgen gltf export` or `import`.
fn gltf_command(g: GltfCommand) -> Result<ExitCode, String> {
    use self::gltf as gltf_cli;
    match g {
        GltfCommand::Export { up, no_root_motion, placeholder_skeleton, write, read, out, files } => {
            let schemas = read.schemas_dir()?;
            let r = gltf_cli::Reading { compendia: &read.compendia, registry: REGISTRY.get().copied(), schemas };
            gltf_cli::export(&out, &files, gltf_cli::parse_up(&up)?, !no_root_motion, placeholder_skeleton, &r, write.policy())
        }
        GltfCommand::Import {
            into,
            animation,
            codec,
            position_tolerance,
            rotation_tolerance,
            scale_tolerance,
            float_tolerance,
            rotation_quantization,
            write,
            read,
            input,
            out,
        } => {
            let schemas = read.schemas_dir()?;
            let r = gltf_cli::Reading { compendia: &read.compendia, registry: REGISTRY.get().copied(), schemas };
            let encode = hktypes::anim::EncodeOptions {
                position_tolerance,
                rotation_tolerance,
                scale_tolerance,
                float_tolerance,
                rotation_quantization,
                ..hktypes::anim::EncodeOptions::default()
            };
            let flags = gltf_cli::ImportFlags { animation, codec, encode };
            gltf_cli::import(&input, &into, &out, &flags, &r, write.policy())
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
fn extract(out: PathBuf, policy: output::WritePolicy, inputs: Vec<PathBuf>) -> Result<ExitCode, String> {
    let inputs = inputs_or_default(inputs)?;
    let input_refs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    output::check_dir(&out, &input_refs, policy, true)?;
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
    output::make_dir(&out, policy)?;
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
        output::write_file(&path, text.as_bytes(), &[], output::WritePolicy { force: true, parents: false })?;
    }
    eprintln!("{}: enumeration item names", path.display());
    Ok(if ex.failures.is_empty() && ex.conflicts.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// The module through the build script's own code path (`generate_sdks` /
/// `generate_packfile_sdks`, overlay and header included) into a scratch folder, then printed:
/// what `hkgen codegen` shows is what the build script compiles.
fn codegen(sdk: &str, schemas: &Path, out: Option<&Path>, policy: output::WritePolicy, unformatted: bool) -> Result<ExitCode, String> {
    if let Some(p) = out {
        output::check_file(p, &[], policy)?;
    }
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
        Some(p) => output::write_file(p, text.as_bytes(), &[], policy)?,
        None => {
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
        }
    }
    Ok(ExitCode::SUCCESS)
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
    semantic: bool,
}

/// `verify`: packfiles read with `schemas` when given (snapshots), else with the classes compiled
/// in (`compiled`), else with none.
fn verify(
    o: VerifyOptions,
    compendium_paths: Vec<PathBuf>,
    schemas: Option<&Path>,
    compiled: Option<PackfileSourcesOf>,
    inputs: Vec<PathBuf>,
    classes: ClassesOf,
) -> Result<ExitCode, String> {
    let VerifyOptions { json, skip_unknown, xml_dangling, semantic } = o;
    for p in &compendium_paths {
        if !p.exists() {
            return Err(format!("--compendium {}: no such file or folder", p.display()));
        }
    }
    // The default inputs (the corpus and the class data beside it) are not named by the user: their
    // files that are not Havok files are passed over as in a walk.
    let by_user = !inputs.is_empty();
    let inputs = inputs_or_default(inputs)?;
    let (class_schemas, packfile_sources) = match schemas {
        Some(dir) => (hkgen::reflection::check::ClassSchemas::load(dir).map_err(|e| e.to_string())?, None),
        None => (Default::default(), compiled),
    };
    let verifier = Verifier { classes, class_schemas, xml_dangling, registry: REGISTRY.get().copied(), packfile_sources, semantic };
    let search_near = compendium_paths.is_empty();
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
    // An archive gives one report per member, named ARCHIVE:MEMBER.
    let per_file: Vec<Vec<Report>> = files
        .par_iter()
        .map(|p| {
            let r = read_and_verify_all(p, &compendia, search_near, &verifier);
            pb.inc(1);
            r
        })
        .collect();
    pb.finish_and_clear();
    let mut reports = Vec::with_capacity(per_file.len());
    let mut report_files = Vec::with_capacity(per_file.len());
    for (rs, p) in per_file.into_iter().zip(&files) {
        let single = rs.len() == 1 && rs[0].path == p.display().to_string();
        for r in rs {
            reports.push(r);
            report_files.push(single.then_some(p));
        }
    }
    for (r, p) in reports.iter_mut().zip(&report_files) {
        if r.skipped && !skip_unknown && p.is_some_and(|p| named.contains(p.as_path())) {
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

/// Verifies one walked file: a Havok file gives one report, an archive one per member (named
/// `ARCHIVE:MEMBER`; a member that is not a Havok file is skipped and counted as such), with the
/// compendia the binder holds added for its TCRF tagfiles.
fn read_and_verify_all(p: &Path, compendia: &Compendia, search_near: bool, verifier: &Verifier) -> Vec<Report> {
    use hktypes::archive::{self, Archive};
    let is_archive = archive::is_archive_file(p);
    if !is_archive {
        return vec![read_and_verify(p, compendia, search_near, verifier)];
    }
    let path = p.display().to_string();
    let a = match Archive::open(p, &archive_options()) {
        Ok(a) => a,
        Err(e) => return vec![Report { path, format: "other", ok: false, error: Some(e.to_string()), ..Report::default() }],
    };
    let mut set = compendia.set_for(p);
    for c in binder_compendia(&a) {
        set.add(&c);
    }
    let mut reports = Vec::new();
    // Members that are archives themselves (an .anibnd in a .partsbnd) are gone into.
    a.walk(&mut |member, bytes| {
        let shown = if member.is_empty() { path.clone() } else { format!("{path}:{member}") };
        reports.push(match bytes {
            Ok(bytes) => {
                let mut r = verifier.verify(&shown, &bytes, &set);
                if let Some(e) = r.error.as_deref().and_then(|e| missing_compendium_hint(e, &bytes)) {
                    r.error = Some(e);
                }
                r
            }
            Err(e) => Report { path: shown, format: "other", ok: false, error: Some(e.to_string()), ..Report::default() },
        });
    });
    reports
}

/// The compendia (TCM0 members) a binder holds, for the TCRF tagfiles beside them.
fn binder_compendia(a: &hktypes::archive::Archive) -> Vec<hktypes::tagfile::Compendium> {
    (0..a.names().len())
        .filter_map(|i| a.member_bytes(i).ok())
        .filter(|b| hktypes::sniff(b) == Some(hktypes::Format::Tcm0))
        .filter_map(|b| hktypes::tagfile::Compendium::read(&b).ok())
        .collect()
}

/// The archive options of this run: the `--zstd-dictionary` files.
static ARCHIVE_OPTIONS: std::sync::OnceLock<hktypes::archive::OpenOptions> = std::sync::OnceLock::new();

fn archive_options() -> hktypes::archive::OpenOptions {
    ARCHIVE_OPTIONS.get().cloned().unwrap_or_default()
}

fn load_dictionaries(paths: &[PathBuf]) -> Result<hktypes::archive::OpenOptions, String> {
    let mut o = hktypes::archive::OpenOptions::default();
    for p in paths {
        let b = std::fs::read(p).map_err(|e| Error::io(p, e).to_string())?;
        if hktypes::archive::zstd_frame::dictionary_id(&b).is_none() {
            return Err(format!("{}: not a zstd dictionary (it does not start with 37 A4 30 EC)", p.display()));
        }
        o.zstd_dictionaries.push(b);
    }
    Ok(o)
}

/// What [`read_input`] read.
struct Input {
    /// The bytes of the Havok file.
    bytes: Vec<u8>,
    /// The file on disk to look for compendia near (the archive of a member).
    near: PathBuf,
    /// The compendia the member's binder holds.
    binder: Vec<hktypes::tagfile::Compendium>,
}

impl Input {
    /// `set` with the binder's compendia added (they take precedence).
    fn compendia(&self, mut set: hktypes::tagfile::CompendiumSet) -> hktypes::tagfile::CompendiumSet {
        for c in &self.binder {
            set.add(c);
        }
        set
    }
}

/// The bytes a command's input path names: a file, an archive member `ARCHIVE:MEMBER` (its full
/// name or a unique ending), or a compressed single file (`x.hkx.dcx`).
fn read_input(file: &Path) -> Result<Input, String> {
    use hktypes::archive::{self, Archive};
    if file.is_file() {
        let bytes = std::fs::read(file).map_err(|e| Error::io(file, e).to_string())?;
        if !archive::is_archive(&bytes) {
            return Ok(Input { bytes, near: file.to_path_buf(), binder: Vec::new() });
        }
    }
    let text = file.to_string_lossy();
    let (path, member) = archive::split_member_path(&text);
    if member.is_none() {
        let (bytes, _) = archive::read_path(&text, &archive_options()).map_err(|e| e.to_string())?;
        return Ok(Input { bytes, near: path, binder: Vec::new() });
    }
    let a = Archive::open(&path, &archive_options()).map_err(|e| e.to_string())?;
    let (bytes, _) = archive::read_path(&text, &archive_options()).map_err(|e| e.to_string())?;
    Ok(Input { bytes, near: path, binder: binder_compendia(&a) })
}

/// `hkgen ls`: an archive's members.
fn ls(path: &Path) -> Result<ExitCode, String> {
    let a = hktypes::archive::Archive::open(path, &archive_options()).map_err(|e| e.to_string())?;
    let members = a.members();
    let havok = members.iter().filter(|m| m.kind.is_some()).count();
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}: {}, {} members, {havok} Havok files", path.display(), a.describe(), members.len());
    for m in &members {
        let kind = m.kind.map_or("-", |k| k.name());
        let compression = m.compression.as_deref().unwrap_or("-");
        let _ = writeln!(out, "{:>5} {:>10} {kind:<12} {compression:<10} {}", m.index, m.size, m.name);
    }
    Ok(ExitCode::SUCCESS)
}

/// One file verified; a tagfile whose compendium is not among the inputs (and no --compendium
/// was given) takes one found beside it, as `dump` and `convert` do.
fn read_and_verify(p: &Path, compendia: &Compendia, search_near: bool, verifier: &Verifier) -> Report {
    let path = p.display().to_string();
    match std::fs::read(p) {
        Ok(bytes) => {
            let mut set = compendia.set_for(p);
            if let Some(id) = reading::named_compendium(&bytes).filter(|id| search_near && set.get(id).is_none()) {
                if let Ok(near) = Compendia::load_near(p) {
                    if near.set_for(p).get(&id).is_some() {
                        set = near.set_for(p);
                    }
                }
            }
            let mut r = verifier.verify(&path, &bytes, &set);
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

/// The class sources of a packfile's SDK, for `hktypes::open`: a file's contents version
/// (`hk_2014.2.0-r1`) names the SDK whose sources are asked for.
impl hktypes::ClassRegistry for PackSources {
    fn packfile(&self, version: &str) -> Vec<&dyn hktypes::packfile::layout::ClassSource> {
        self.for_sdk(&hkgen::reflection::sources::sdk_of_contents_version(version))
    }
}

/// A packfile's objects through the class schema of its SDK (raw where it has none), opened by
/// `hktypes::open` with `options` (the schemas as its classes); an error for another format.
fn packfile_document(bytes: &[u8], options: &hktypes::OpenOptions<'_>, file: &Path) -> Result<hktypes::packfile::objects::PackfileDocument, String> {
    let located = |e: hktypes::Error| e.in_file(file.display().to_string()).to_string();
    hktypes::open(bytes, options)
        .map_err(located)?
        .into_packfile()
        .map_err(|d| format!("{}: a {} file, not a packfile", file.display(), d.format().name()))
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
    policy: output::WritePolicy,
    /// `--compendium`.
    compendia: Vec<PathBuf>,
    dangling: hktypes::packfile::xml::Dangling,
}

/// The objects of a binary packfile or of `<hkpackfile>` XML (told apart by content), read
/// through the class schemas of its SDK; XML laid out under `layout` (default: the layout its
/// `hkgen:container` comment states; without one an error when `require_layout`, else `8,1,0,1`).
fn any_packfile_document(
    bytes: &[u8],
    schemas: &PackSources,
    file: &Path,
    layout: Option<hktypes::packfile::LayoutRules>,
    order: hktypes::packfile::xml::ObjectOrder,
    dangling: hktypes::packfile::xml::Dangling,
    require_layout: bool,
) -> Result<hktypes::packfile::objects::PackfileDocument, String> {
    use hktypes::packfile::xml;
    let options = hktypes::OpenOptions { classes: Some(schemas), ..Default::default() };
    match hktypes::sniff(bytes) {
        Some(hktypes::Format::Packfile) => return packfile_document(bytes, &options, file),
        Some(hktypes::Format::PackfileXml) => {}
        Some(hktypes::Format::TagfileXml) => return Err(format!("{}: hktagfile XML is a tagfile, not a packfile", file.display())),
        _ => return Err(format!("{}: not a packfile nor packfile XML", file.display())),
    }
    // A binary made from XML takes the layout the user chose or the XML states; XML with
    // neither stops (a Skyrim LE file must not silently become an SE one).
    let layout = if require_layout { reading::xml_layout(bytes, layout, file)? } else { layout.or_else(|| reading::stated_layout(bytes)).unwrap_or(xml::DEFAULT_LAYOUT) };
    let options = hktypes::OpenOptions { xml_layout: layout, xml_order: order, xml_dangling: dangling, ..options };
    let doc = packfile_document(bytes, &options, file)?;
    for r in &doc.repairs {
        eprintln!("hkgen: {}: repaired: {r}", file.display());
    }
    Ok(doc)
}

fn convert(o: &ConvertOptions, schemas: &PackSources, input: &Path, output: &Path) -> Result<ExitCode, String> {
    if input.is_dir() {
        return convert_dir(o, schemas, input, output);
    }
    output::check_file(output, &[input], o.policy)?;
    let bytes = read_input(input)?.bytes;
    let done = convert_file(o, schemas, &bytes, input, output, None)?;
    eprintln!("{done}");
    Ok(ExitCode::SUCCESS)
}

/// `convert --sdk`: what [`convert_sdk`] converts to.
struct SdkConvert {
    sdk: String,
    to: Option<String>,
    layout: Option<String>,
    allow_loss: bool,
    dry_run: bool,
    prefer: Option<String>,
    policy: output::WritePolicy,
    compendia: Vec<PathBuf>,
}

/// `convert --sdk SDK IN OUT` ([`crate::convert`]): the file as one of another SDK and format;
/// `--dry-run` prints the report and writes nothing. The output is read back before it is
/// written: a file the target's reader refuses is never left behind.
fn convert_sdk(o: &SdkConvert, input: &Path, output: Option<&Path>) -> Result<ExitCode, String> {
    use crate::convert::{self, Migrations, TargetFormat};
    let registry = *REGISTRY.get().ok_or("convert --sdk needs the classes compiled into the hkgen binary")?;
    if input.is_dir() {
        return Err(format!("{}: convert --sdk converts one file at a time", input.display()));
    }
    let output = match (output, o.dry_run) {
        (Some(out), false) => {
            output::check_file(out, &[input], o.policy)?;
            Some(out)
        }
        (None, true) => None,
        (Some(_), true) => return Err("--dry-run writes nothing: leave OUT out".to_owned()),
        (None, false) => return Err("convert --sdk needs OUT (or --dry-run)".to_owned()),
    };
    let located = |e: hktypes::Error| e.in_file(input.display().to_string()).to_string();
    let read = read_input(input)?;
    let id = reading::named_compendium(&read.bytes);
    let set = read.compendia(reading::compendia_for(&read.near, id, &o.compendia)?.set_for(&read.near));
    reading::require_compendium(input, id, &set, &o.compendia)?;
    let options = hktypes::OpenOptions { classes: Some(registry), compendia: Some(&set), ..Default::default() };
    let doc = hktypes::open(&read.bytes, &options).map_err(located)?;
    let tagfile_sdk = o.sdk.split('.').next().and_then(|y| y.parse::<u32>().ok()).is_some_and(|y| y >= 2015);
    let format = match o.to.as_deref() {
        Some("tagfile") => TargetFormat::Tagfile,
        Some("packfile") => TargetFormat::Packfile(sdk_layout(o.layout.as_deref(), &doc)?),
        Some(other) => return Err(format!("--sdk converts to a tagfile or a packfile, not {other}")),
        None if tagfile_sdk => TargetFormat::Tagfile,
        None => TargetFormat::Packfile(sdk_layout(o.layout.as_deref(), &doc)?),
    };
    if format == TargetFormat::Tagfile && o.layout.is_some() {
        return Err("--layout is for a packfile; a tagfile has one layout".to_owned());
    }
    let migrations = Migrations::builtin();
    let co = convert::Options { sdk: o.sdk.clone(), format, classes: registry, migrations: &migrations, compendia: Some(&set), prefer: o.prefer.clone() };
    let plan = convert::plan(&doc, &co).map_err(|e| format!("{}: {e}", input.display()))?;
    if o.dry_run {
        // A reader that stops early (`| head`) is no error; anything else is.
        use std::io::Write as _;
        return match std::io::stdout().write_all(plan.report.to_text().as_bytes()) {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("writing the report: {e}")),
            _ => Ok(ExitCode::SUCCESS),
        };
    }
    if !plan.report.is_lossless() && !o.allow_loss {
        return Err(format!("{}: {}", input.display(), convert::ConvertError::Loss(Box::new(plan.report))));
    }
    let bytes = convert::write(&plan, &co).map_err(|e| format!("{}: {e}", input.display()))?;
    // The target's own reader takes what was written, or nothing is written.
    let back = hktypes::open(&bytes, &hktypes::OpenOptions { classes: Some(registry), ..Default::default() })
        .map_err(|e| format!("{}: the converted file does not read back: {e}", input.display()))?;
    let out = output.ok_or("no output")?;
    output::write_file(out, &bytes, &[input], o.policy)?;
    if !plan.report.is_lossless() || !plan.report.defaulted.is_empty() {
        eprint!("{}", plan.report.to_text());
    }
    eprintln!(
        "{} ({} {}) -> {} ({} {}): {} objects, {} bytes, {} lost",
        input.display(),
        doc.format().name(),
        doc.sdk().unwrap_or_default(),
        out.display(),
        back.format().name(),
        o.sdk,
        back.handles().len(),
        bytes.len(),
        plan.report.lost.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// The layout of a packfile `convert --sdk` writes: `--layout`, else the input's, else 8,1,0,1.
fn sdk_layout(layout: Option<&str>, doc: &hktypes::Document) -> Result<hktypes::packfile::LayoutRules, String> {
    match layout {
        Some(l) => hktypes::packfile::LayoutRules::parse(l).ok_or_else(|| format!("--layout {l}: expected four numbers like 8,1,0,1")),
        None => Ok(doc.layout().unwrap_or(hktypes::packfile::LayoutRules::parse("8,1,0,1").ok_or("8,1,0,1")?)),
    }
}

/// A directory conversion's compendia: those in the directory or named with `--compendium`, else
/// those beside the directory, looked for the first time a tagfile names a compendium (the walk
/// beside it reads up to [`inputs::NEAR_ENTRIES`] entries, which a folder of packfiles or of
/// self-contained tagfiles never needs).
struct DirCompendia {
    found: Compendia,
    /// A name in the directory, standing for it, when nothing was found in it.
    beside: Option<PathBuf>,
    near: std::sync::OnceLock<Result<Compendia, String>>,
}

impl DirCompendia {
    fn ready(found: Compendia) -> Self {
        DirCompendia { found, beside: None, near: std::sync::OnceLock::new() }
    }

    /// The compendia, looked for beside the directory now if they must be.
    fn get(&self) -> Result<&Compendia, String> {
        match &self.beside {
            Some(beside) if self.found.is_empty() => {
                self.near.get_or_init(|| Compendia::load_near(beside).map_err(|e| e.to_string())).as_ref().map_err(Clone::clone)
            }
            _ => Ok(&self.found),
        }
    }
}

/// Converts one file (`bytes`, read from `input`) to `output`; the summary line it gives is
/// printed by the caller. A tagfile takes `compendia`, else those beside it.
fn convert_file(o: &ConvertOptions, schemas: &PackSources, bytes: &[u8], input: &Path, output: &Path, compendia: Option<&DirCompendia>) -> Result<String, String> {
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
    let doc = any_packfile_document(bytes, schemas, input, rules, order, o.dangling, !to_xml)?;
    let located = |e: hktypes::Error| e.in_file(input.display().to_string()).to_string();
    let (out, form) = if to_xml {
        let floats = if o.floats == "havok" { xml::FloatForm::Havok } else { xml::FloatForm::Shortest };
        let text = xml::write(&doc, xml::WriteOptions { floats }).map_err(located)?;
        // The layout of the binary is stated in the XML (Havok's float form keeps no hkgen notes).
        let text = if o.floats == "havok" { text } else { reading::note_layout(text, doc.layout()) };
        (text.into_bytes(), "XML".to_owned())
    } else {
        let rules = rules.unwrap_or_else(|| doc.layout());
        (doc.write_as(rules).map_err(located)?, rules.to_string())
    };
    output::write_file(output, &out, &[input], o.policy)?;
    Ok(format!("{} ({}) -> {} ({form}): {} objects, {} bytes", input.display(), doc.layout(), output.display(), doc.objects.len(), out.len()))
}

/// Where a file converted from `rel` (a path under the input directory) goes under `out`: to XML,
/// `a.hkx` becomes `a.xml` and any other name gains `.xml`; to a binary form, `a.hkrg.xml`
/// becomes `a.hkrg`, `a.xml` becomes `a.hkx`, and other names are kept.
fn converted_name(rel: &Path, to_xml: bool) -> PathBuf {
    let ext = |p: &Path, e: &str| p.extension().is_some_and(|x| x.eq_ignore_ascii_case(e));
    // The new extension takes the case of the one it replaces: `skeleton.HKX` <-> `skeleton.XML`.
    let upper = |p: &Path| p.extension().and_then(|x| x.to_str()).is_some_and(|x| x.chars().any(|c| c.is_ascii_uppercase()) && !x.chars().any(|c| c.is_ascii_lowercase()));
    let cased = |e: &str, like: bool| if like { e.to_ascii_uppercase() } else { e.to_owned() };
    if to_xml {
        if ext(rel, "hkx") {
            rel.with_extension(cased("xml", upper(rel)))
        } else if ext(rel, "xml") {
            rel.to_path_buf()
        } else {
            let mut name = rel.as_os_str().to_owned();
            name.push(".xml");
            PathBuf::from(name)
        }
    } else if ext(rel, "xml") {
        let stem = rel.with_extension("");
        if stem.extension().is_some() { stem } else { rel.with_extension(cased("hkx", upper(rel))) }
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
    output::check_dir(output, &[input], o.policy, false)?;
    output::make_dir(output, o.policy)?;
    let to_xml = to == "xml";
    let files = inputs::walk(&[input.to_path_buf()]).map_err(|e| e.to_string())?;
    // The tagfiles of a directory take the compendia in it (and beside it, as one file would).
    let mut named = o.compendia.clone();
    named.push(input.to_path_buf());
    let found = Compendia::load(&named).map_err(|e| e.to_string())?;
    // `load_near` looks beside a file: a name in the directory stands for the directory.
    let compendia = DirCompendia { beside: Some(input.join("-")), ..DirCompendia::ready(found) };
    let pb = progress_bar(files.len() as u64);
    // An archive gives one result per member, named ARCHIVE:MEMBER.
    let results: Vec<(PathBuf, Converted)> = files
        .par_iter()
        .flat_map(|file| {
            let r = convert_one_or_members(o, schemas, to_xml, &compendia, input, output, file);
            pb.inc(1);
            r
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
                // Most errors name the file already.
                let named = format!("{}: ", file.display());
                eprintln!("FAIL {named}{}", e.strip_prefix(named.as_str()).unwrap_or(e.as_str()));
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

/// A walked file converted ([`convert_one_of_dir`]), or, for a game archive, each of its Havok
/// members (nested binders gone into), written under OUT at the archive's relative path followed
/// by the member's path (`c3570.anibnd.dcx/GR/data/.../skeleton.xml`); a TCRF member reads with
/// the compendia its binder holds. The archive itself is left as it is.
fn convert_one_or_members(
    o: &ConvertOptions,
    schemas: &PackSources,
    to_xml: bool,
    compendia: &DirCompendia,
    input: &Path,
    output: &Path,
    file: &Path,
) -> Vec<(PathBuf, Converted)> {
    use hktypes::archive::{self, Archive};
    let is_archive = archive::is_archive_file(file);
    if !is_archive {
        return vec![(file.to_path_buf(), convert_one_of_dir(o, schemas, to_xml, compendia, input, output, file, None))];
    }
    let a = match Archive::open(file, &archive_options()) {
        Ok(a) => a,
        Err(e) => return vec![(file.to_path_buf(), Converted::Failed(format!("{}: {e}", file.display())))],
    };
    // The directory's compendia, and the binder's beside its members.
    let mut with_binder = Compendia::default();
    let dir = match compendia.get() {
        Ok(c) => c,
        Err(e) => return vec![(file.to_path_buf(), Converted::Failed(e))],
    };
    for (p, c) in &dir.files {
        with_binder.add(p, c.clone());
    }
    for c in binder_compendia(&a) {
        with_binder.add(file, c);
    }
    let with_binder = DirCompendia::ready(with_binder);
    let rel = file.strip_prefix(input).unwrap_or(file).to_path_buf();
    let mut out = Vec::new();
    a.walk(&mut |member, bytes| {
        let shown = PathBuf::from(format!("{}:{member}", file.display()));
        let r = match bytes {
            Ok(bytes) if hktypes::sniff(&bytes).is_some() => {
                let target_rel = rel.join(member_folder_path(&member));
                convert_one_of_dir(o, schemas, to_xml, &with_binder, input, output, &shown, Some((bytes, target_rel)))
            }
            Ok(_) => Converted::PassedOver("archive members that are not Havok files"),
            Err(e) => Converted::Failed(format!("{}: {e}", shown.display())),
        };
        out.push((shown, r));
    });
    out
}

/// An archive member's name as a relative path under an output folder: its separators (`\`,
/// `/`, and the `:` between nested archives) become folders; a drive or root (`N:`, `GR:`) and
/// `.` or `..` parts are dropped, so that nothing is written outside the folder.
fn member_folder_path(member: &str) -> PathBuf {
    let mut p = PathBuf::new();
    // `:` separates nested archives and ends a drive: a segment right before a rooted one (`N` of
    // `N:\GR\...`) is a drive.
    let segments: Vec<&str> = member.split(':').collect();
    for (i, seg) in segments.iter().enumerate() {
        let drive = segments.get(i + 1).is_some_and(|next| next.starts_with(['\\', '/'])) && !seg.contains(['\\', '/']);
        if drive {
            continue;
        }
        for part in seg.split(['\\', '/']) {
            if part.is_empty() || part == "." || part == ".." {
                continue;
            }
            p.push(part);
        }
    }
    p
}

#[allow(clippy::too_many_arguments)]
fn convert_one_of_dir(
    o: &ConvertOptions,
    schemas: &PackSources,
    to_xml: bool,
    compendia: &DirCompendia,
    input: &Path,
    output: &Path,
    file: &Path,
    member: Option<(Vec<u8>, PathBuf)>,
) -> Converted {
    // An archive member comes with its bytes and its path under OUT.
    let (bytes, rel) = match member {
        Some((bytes, rel)) => (bytes, rel),
        None => match std::fs::read(file) {
            Ok(b) => (b, file.strip_prefix(input).unwrap_or(file).to_path_buf()),
            Err(e) => return Converted::Failed(Error::io(file, e).to_string()),
        },
    };
    let Some(format) = hktypes::sniff(&bytes) else { return Converted::PassedOver("not Havok files") };
    use hktypes::Format;
    let to = o.to.as_deref().unwrap_or_default();
    let already = match format {
        Format::Tcm0 => return Converted::PassedOver("compendia"),
        Format::PackfileXml | Format::TagfileXml => to_xml,
        Format::Packfile => matches!(to, "packfile" | "binary") && o.layout.is_none(),
        Format::Tag0 | Format::Phive => matches!(to, "tagfile" | "binary"),
    };
    if already {
        return Converted::PassedOver("already in the output form");
    }
    let target = output.join(converted_name(&rel, to_xml));
    if target.exists() && !o.policy.force {
        return Converted::Failed(format!("{} exists; --force replaces it", target.display()));
    }
    // The folders under OUT that mirror the input are part of the output.
    if let Some(dir) = target.parent() {
        if let Err(e) = std::fs::create_dir_all(dir) {
            return Converted::Failed(format!("cannot make the output folder {}: {e}", dir.display()));
        }
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
fn convert_tagfile(o: &ConvertOptions, bytes: &[u8], input: &Path, output: &Path, compendia: Option<&DirCompendia>) -> Result<Option<String>, String> {
    use hktypes::tagfile::{xml, TagFile};
    let is_xml = hktypes::sniff(bytes) == Some(hktypes::Format::TagfileXml);
    // A Phive file: its tagfile converts, the wrapper (header, trailing block) is kept as the
    // XML's `phive` attribute and written around the tagfile again.
    let is_phive = hktypes::sniff(bytes) == Some(hktypes::Format::Phive);
    if !is_xml && !is_phive && hktypes::sniff(bytes) != Some(hktypes::Format::Tag0) {
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
    // The compendium the file names: it must be found, so that a TCRF file stays TCRF (XML
    // names it on its root, which is read for that alone; the door reads the file again).
    let id = if is_xml {
        tagfile_xml(bytes).map_err(located)?.compendium.map(|(id, _)| id)
    } else if is_phive {
        let wrapped = hktypes::tagfile::phive::Phive::read(bytes).map_err(|e| located(e.into()))?;
        reading::named_compendium(wrapped.tag0)
    } else {
        reading::named_compendium(bytes)
    };
    let near;
    let compendia = match compendia {
        // A directory's: those beside it are looked for only for a file that names one.
        Some(c) if id.is_some() => c.get()?,
        Some(c) => &c.found,
        None => {
            near = reading::compendia_for(input, id, &o.compendia)?;
            &near
        }
    };
    let set = compendia.set_for(input);
    reading::require_compendium(input, id, &set, &o.compendia)?;
    // Every form through the one door: TAG0, Phive (the wrapper kept, errors located in the
    // whole file) and `<hktagfile>` XML (HKLib's member-less types completed from the registry;
    // its `phive` attribute kept as the wrapper).
    let options = hktypes::OpenOptions {
        compendia: Some(&set),
        classes: if is_xml { REGISTRY.get().map(|r| *r as &dyn hktypes::ClassRegistry) } else { None },
        ..Default::default()
    };
    let doc = hktypes::open(bytes, &options).map_err(located)?;
    let mut tagfile = doc.into_tagfile().map_err(|d| format!("{}: read as a {}, not a tagfile", input.display(), d.format().name()))?;
    let wrapper = tagfile.phive().cloned();
    // The TAG0 file inside: a binary tagfile's bytes as read (its document writes them back),
    // XML's as the document writes it.
    let tag0 = match (is_xml, is_phive) {
        (false, false) => bytes.to_vec(),
        (false, true) => hktypes::tagfile::phive::Phive::read(bytes).map_err(|e| located(e.into()))?.tag0.to_vec(),
        (true, _) => {
            tagfile.set_phive(None);
            tagfile.write().map_err(located)?
        }
    };
    // The errors of a Phive file's tagfile point into the whole file.
    let shift = if is_phive { hktypes::tagfile::phive::HEADER_SIZE as u64 } else { 0 };
    let located = |e: hktypes::Error| located(e.shifted(shift));
    let out = if to_xml {
        let file = TagFile::read(&tag0, &set).map_err(located)?;
        let floats = if o.floats == "havok" { xml::FloatForm::Havok } else { xml::FloatForm::Shortest };
        let options = xml::WriteOptions { floats };
        match &wrapper {
            Some(w) => xml::write_phive(&file, w, options),
            None => xml::write(&file, options),
        }
        .map_err(located)?
        .into_bytes()
    } else {
        match &wrapper {
            Some(w) => w.wrap(&tag0),
            None => tag0,
        }
    };
    output::write_file(output, &out, &[input], o.policy)?;
    let form = match (to_xml, &wrapper) {
        (true, _) => "hktagfile XML",
        (false, Some(_)) => "Phive around TAG0",
        (false, None) => "TAG0",
    };
    Ok(Some(format!("{} -> {} ({form}): {} bytes", input.display(), output.display(), out.len())))
}

/// A file read for `dump`, `diff` and `verify --semantic`: a TAG0 file (also the one
/// `<hktagfile>` XML gives) with the compendia it reads against, a packfile's objects, or a
/// compendium's bytes.
enum Loaded {
    /// The tagfile, its compendia, and the Phive wrapper it was read from (or XML kept).
    Tag(Vec<u8>, hktypes::tagfile::CompendiumSet, Option<hktypes::tagfile::phive::PhiveWrapper>),
    Pack(Box<hktypes::packfile::objects::PackfileDocument>),
    Compendium(Vec<u8>),
}

/// Reads `file` under the one set of defaults ([`reading`]): compendia named or, for a file that
/// names one, beside it; a compendium still missing is an error naming its id.
fn load(
    file: &Path,
    read: &reading::ReadArgs,
    schemas: &PackSources,
    layout: Option<hktypes::packfile::LayoutRules>,
    dangling: hktypes::packfile::xml::Dangling,
    require_layout: bool,
) -> Result<Loaded, String> {
    let located = |e: hktypes::Error| e.in_file(file.display().to_string()).to_string();
    // A file, or an archive member (ARCHIVE:MEMBER), whose binder's compendia come first.
    let input = read_input(file)?;
    let near = input.near.as_path();
    let bytes = input.bytes.clone();
    let compendia_for = |id| -> Result<hktypes::tagfile::CompendiumSet, String> {
        Ok(input.compendia(reading::compendia_for(near, id, &read.compendia)?.set_for(near)))
    };
    match hktypes::sniff(&bytes) {
        // `<hktagfile>` XML holds its types: read as the TAG0 file it gives, TCRF again when it
        // names a compendium.
        Some(hktypes::Format::TagfileXml) => {
            let d = tagfile_xml(&bytes).map_err(located)?;
            let id = d.compendium.as_ref().map(|(id, _)| *id);
            let set = compendia_for(id)?;
            reading::require_compendium(file, id, &set, &read.compendia)?;
            let tag0 = d.write_tag0(&set).map_err(located)?;
            Ok(Loaded::Tag(tag0, set, d.phive))
        }
        Some(hktypes::Format::Packfile | hktypes::Format::PackfileXml) => {
            any_packfile_document(&bytes, schemas, file, layout, Default::default(), dangling, require_layout).map(|d| Loaded::Pack(Box::new(d)))
        }
        Some(hktypes::Format::Tag0) => {
            let id = reading::named_compendium(&bytes);
            let set = compendia_for(id)?;
            reading::require_compendium(file, id, &set, &read.compendia)?;
            Ok(Loaded::Tag(bytes, set, None))
        }
        Some(hktypes::Format::Tcm0) => Ok(Loaded::Compendium(bytes)),
        // A Phive file's tagfile (its wrapper holds no objects).
        Some(hktypes::Format::Phive) => {
            let wrapped = hktypes::tagfile::phive::Phive::read(&bytes).map_err(|e| located(e.into()))?;
            let tag0 = wrapped.tag0.to_vec();
            let id = reading::named_compendium(&tag0);
            let set = compendia_for(id)?;
            reading::require_compendium(file, id, &set, &read.compendia)?;
            Ok(Loaded::Tag(tag0, set, Some(hktypes::tagfile::phive::PhiveWrapper::of(&wrapped))))
        }
        None => Err(format!("{}: {}", file.display(), hkgen::verify::not_havok(&bytes))),
    }
}

/// The one dump shape ([`hktypes::dump`]) of a file that holds objects.
fn load_dump(loaded: &Loaded, file: &Path) -> Result<hktypes::dump::Dump, String> {
    let located = |e: hktypes::Error| e.in_file(file.display().to_string()).to_string();
    match loaded {
        Loaded::Tag(bytes, set, phive) => {
            let t = hktypes::tagfile::TagFile::read(bytes, set).map_err(located)?;
            let enums = tagfile_enums(&t.sdk_version());
            match phive {
                // The dump keeps the wrapper: `hkgen build` gives the whole file again.
                Some(w) => hktypes::dump::dump_phive(&t, w, &enums).map_err(located),
                None => hktypes::dump::dump_tagfile_with(&t, &enums).map_err(located),
            }
        }
        Loaded::Pack(doc) => hktypes::dump::dump_packfile(doc).map_err(located),
        Loaded::Compendium(_) => Err(format!("{}: a compendium holds types, not objects", file.display())),
    }
}

/// The enumerations of tagfile SDK `sdk` that the compiled-in classes know (none without them), by
/// which a dump names enum members as a packfile's class descriptions do.
fn tagfile_enums(sdk: &str) -> hktypes::value::EnumTable {
    REGISTRY.get().map(|r| r.tagfile_enums(sdk)).unwrap_or_default()
}

/// The readable listing of `hkgen dump` (`--format text`): RON of a tagfile's items and a
/// packfile's objects as `hktypes::dynamic::dump` and `packfile::objects::PackfileDocument::dump` give
/// them.
fn dump(
    read: &reading::ReadArgs,
    schemas: &PackSources,
    layout: Option<hktypes::packfile::LayoutRules>,
    dangling: hktypes::packfile::xml::Dangling,
    file: &Path,
) -> Result<ExitCode, String> {
    let format = "ron";
    match load(file, read, schemas, layout, dangling, false)? {
        Loaded::Pack(doc) => print(format, &doc.dump()),
        Loaded::Compendium(bytes) => dump_compendium(format, &bytes, file).map(|_| ()),
        Loaded::Tag(bytes, set, _) => {
            let located = |e: hktypes::Error| e.in_file(file.display().to_string()).to_string();
            let t = hktypes::tagfile::TagFile::read(&bytes, &set).map_err(located)?;
            let objects = hktypes::dynamic::dump(&t).map_err(located)?;
            print(format, &objects)
        }
    }?;
    Ok(ExitCode::SUCCESS)
}

/// A file in the one dump shape of both formats (`hktypes::dump`); a TCM0 compendium, which holds
/// no objects, as its ids and type table.
#[allow(clippy::too_many_arguments)]
fn dump_shape(
    format: &str,
    out: Option<&Path>,
    policy: output::WritePolicy,
    read: &reading::ReadArgs,
    schemas: &PackSources,
    layout: Option<hktypes::packfile::LayoutRules>,
    dangling: hktypes::packfile::xml::Dangling,
    file: &Path,
) -> Result<ExitCode, String> {
    if let Some(path) = out {
        output::check_file(path, &[file], policy)?;
    }
    let loaded = load(file, read, schemas, layout, dangling, true)?;
    if let Loaded::Compendium(bytes) = &loaded {
        return match out {
            None => dump_compendium(format, bytes, file),
            Some(_) => Err(format!("{}: a compendium holds no objects to dump to a file", file.display())),
        };
    }
    let shape = load_dump(&loaded, file)?;
    let text = dump_text(format, &shape)?;
    match out {
        Some(path) => {
            output::write_file(path, text.as_bytes(), &[file], policy)?;
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
fn build(read: &reading::ReadArgs, schemas: &PackSources, policy: output::WritePolicy, input: &Path, output: &Path) -> Result<ExitCode, String> {
    output::check_file(output, &[input], policy)?;
    let (bytes, format, objects) = build_bytes(read, schemas, input)?;
    output::write_file(output, &bytes, &[input], policy)?;
    eprintln!("{} ({format}) -> {}: {objects} objects, {} bytes", input.display(), output.display(), bytes.len());
    Ok(ExitCode::SUCCESS)
}

/// The file a dump builds: its bytes, the dump's format and its number of objects.
fn build_bytes(read: &reading::ReadArgs, schemas: &PackSources, input: &Path) -> Result<(Vec<u8>, String, usize), String> {
    let located = |e: hktypes::Error| e.in_file(input.display().to_string()).to_string();
    let text = std::fs::read(input).map_err(|e| Error::io(input, e).to_string())?;
    let dump = parse_dump(&text).map_err(|e| format!("{}: {e}", input.display()))?;
    let id = match &dump.kept.compendium {
        Some(hex) => Some(parse_compendium_id(hex).ok_or_else(|| format!("{}: kept.compendium {hex:?} is not 8 bytes in hex", input.display()))?),
        None => None,
    };
    let set = reading::compendia_for(input, id, &read.compendia)?.set_for(input);
    reading::require_compendium(input, id, &set, &read.compendia)?;
    let sdk = hkgen::reflection::sources::sdk_of_contents_version(&dump.sdk);
    let options = hktypes::dump::BuildOptions { compendia: Some(&set), packfile_classes: schemas.for_sdk(&sdk), tagfile_enums: tagfile_enums(&dump.sdk) };
    let bytes = hktypes::dump::build(&dump, &options, text.len()).map_err(located)?;
    Ok((bytes, dump.format.to_string(), dump.objects.len()))
}

/// `build --into ARCHIVE:MEMBER`: a dump built and written into an archive in place of the member.
fn build_into(read: &reading::ReadArgs, schemas: &PackSources, input: &Path, into: &str) -> Result<ExitCode, String> {
    let (archive_path, member) = hktypes::archive::split_member_path(into);
    if member.is_none() || !archive_path.is_file() {
        return Err(format!("--into {into}: expected ARCHIVE:MEMBER, an existing archive and one of its members"));
    }
    // The member must exist before anything is built.
    hktypes::archive::read_path(into, &archive_options()).map_err(|e| e.to_string())?;
    let (bytes, format, objects) = build_bytes(read, schemas, input)?;
    let len = bytes.len();
    let origin = hktypes::archive::write_member(into, bytes, &archive_options()).map_err(|e| e.to_string())?;
    eprintln!("{} ({format}) -> {} ({}): {objects} objects, {len} bytes", input.display(), origin.display(), origin.container.unwrap_or_default());
    Ok(ExitCode::SUCCESS)
}

/// A compendium id from the 16 hex digits a dump keeps.
fn parse_compendium_id(hex: &str) -> Option<hktypes::tagfile::CompendiumId> {
    let hex = hex.trim();
    if hex.len() != 16 || !hex.is_ascii() {
        return None;
    }
    let mut id = [0u8; 8];
    for (i, b) in id.iter_mut().enumerate() {
        *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(hktypes::tagfile::CompendiumId(id))
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

/// `hkgen diff A B`: two files compared by object and member ([`hkgen::file_diff`]). Exit 0 when
/// the same, 1 when they differ (errors give 2, as `diff` does).
fn file_diff(
    format: &str,
    read: &reading::ReadArgs,
    schemas: &PackSources,
    layout: Option<hktypes::packfile::LayoutRules>,
    a: &Path,
    b: &Path,
) -> Result<ExitCode, String> {
    let dangling = hktypes::packfile::xml::Dangling::Error;
    let da = load_dump(&load(a, read, schemas, layout, dangling, false)?, a)?;
    let db = load_dump(&load(b, read, schemas, layout, dangling, false)?, b)?;
    let d = hkgen::file_diff::diff(&da, &db);
    let text = match format {
        "json" => serde_json::to_string_pretty(&d).map_err(|e| e.to_string())? + "\n",
        _ => d.text(),
    };
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
    if d.same() {
        eprintln!("{} and {}: the same {} objects and values", a.display(), b.display(), d.objects_a);
        Ok(ExitCode::SUCCESS)
    } else {
        let objects: std::collections::BTreeSet<&str> = d.changes.iter().map(|c| c.object.as_str()).collect();
        eprintln!("{} and {} differ: {} changes in {} objects", a.display(), b.display(), d.changes.len(), objects.len());
        Ok(ExitCode::FAILURE)
    }
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
