//! `hkgen gltf export OUT FILE...` and `hkgen gltf import IN --into FILE OUT`: the work is
//! `hktypes::gltf`'s; this module opens the files (compendia as every command finds them) and
//! writes (as [`crate::cli::output`] says: atomically, never over an input, an existing output
//! only with `--force`).

use super::{output, reading};
use hktypes::anim::{Codec, EncodeOptions};
use hktypes::gltf::{self, import, ExportOptions, Up};
use hktypes::{ClassRegistry, Document, OpenOptions};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// How a file is read.
pub struct Reading<'a> {
    /// `--compendium` paths; empty: those beside a file that names one.
    pub compendia: &'a [PathBuf],
    /// The classes compiled into the program.
    pub registry: Option<&'static (dyn ClassRegistry + Sync)>,
    /// `--schemas DIR`.
    pub schemas: Option<&'a Path>,
}

/// The bytes of a file, or of a game archive's member (`ARCHIVE:MEMBER`, or a DCX-wrapped file),
/// and the file on disk to look for compendia beside.
fn read_file_or_member(file: &Path) -> Result<(Vec<u8>, PathBuf), String> {
    use hktypes::archive;
    if file.is_file() {
        let bytes = std::fs::read(file).map_err(|e| crate::Error::io(file, e).to_string())?;
        if !archive::is_archive(&bytes) {
            return Ok((bytes, file.to_path_buf()));
        }
    }
    let (bytes, origin) = archive::read_path(&file.to_string_lossy(), &archive::OpenOptions::default()).map_err(|e| e.to_string())?;
    Ok((bytes, origin.file))
}

/// A file opened: its document and what it was opened with.
struct Opened {
    doc: Document,
    set: hktypes::tagfile::CompendiumSet,
    registry: &'static (dyn ClassRegistry + Sync),
}

fn open(file: &Path, r: &Reading<'_>) -> Result<Opened, String> {
    let (bytes, near) = read_file_or_member(file)?;
    let names = reading::named_compendium(&bytes);
    let compendia = reading::compendia_for(&near, names, r.compendia)?;
    let set = compendia.set_for(&near);
    reading::require_compendium(file, names, &set, r.compendia)?;
    let registry: &'static (dyn ClassRegistry + Sync) = match (r.schemas, r.registry) {
        (None, Some(reg)) => reg,
        (dir, _) => {
            let dir = dir.map_or_else(|| PathBuf::from("schemas"), Path::to_path_buf);
            let s = crate::reflection::check::ClassSchemas::load(&dir).map_err(|e| e.to_string())?;
            Box::leak(Box::new(s))
        }
    };
    let doc = {
        let options = OpenOptions { compendia: Some(&set), classes: Some(registry), ..OpenOptions::default() };
        hktypes::open(&bytes, &options).map_err(|e| e.in_file(file.display().to_string()).to_string())?
    };
    Ok(Opened { doc, set, registry })
}

/// `up` as the command line gives it.
pub fn parse_up(s: &str) -> Result<Up, String> {
    match s {
        "y" | "Y" => Ok(Up::Y),
        "z" | "Z" => Ok(Up::Z),
        _ => Err(format!("--up {s}: y or z")),
    }
}

/// The side buffer's path of a `.gltf` output: the same stem, `.bin`.
pub fn side_bin(out: &Path) -> PathBuf {
    out.with_extension("bin")
}

/// Runs `hkgen gltf export`.
#[allow(clippy::too_many_arguments)]
pub fn export(out: &Path, files: &[PathBuf], up: Up, root_motion: bool, placeholder_skeletons: bool, r: &Reading<'_>, policy: output::WritePolicy) -> Result<ExitCode, String> {
    if files.is_empty() {
        return Err("gltf export needs at least one FILE".into());
    }
    let as_json = out.extension().is_some_and(|e| e.eq_ignore_ascii_case("gltf"));
    let inputs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    output::check_file(out, &inputs, policy)?;
    let bin_path = side_bin(out);
    if as_json {
        output::check_file(&bin_path, &inputs, policy)?;
    }
    let opened: Vec<Opened> = files.iter().map(|f| open(f, r)).collect::<Result<_, _>>()?;
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let ins: Vec<gltf::Input<'_>> = opened.iter().zip(&names).map(|(o, n)| gltf::Input { name: n, doc: &o.doc }).collect();
    let options = ExportOptions { up, root_motion, shapes: true, placeholder_skeletons };
    let g = gltf::export_inputs(&ins, &options).map_err(|e| e.to_string())?;
    let summary = format!(
        "{} nodes, {} skins, {} animations, {} meshes",
        g.root.nodes.len(),
        g.root.skins.len(),
        g.root.animations.len(),
        g.root.meshes.len()
    );
    if as_json {
        let uri = bin_path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "buffer.bin".into());
        let (text, bin) = g.to_gltf(&uri).map_err(|e| e.to_string())?;
        output::write_file(&bin_path, &bin, &inputs, policy)?;
        output::write_file(out, &text, &inputs, policy)?;
        eprintln!("{} files -> {} + {}: {summary}", files.len(), out.display(), bin_path.display());
    } else {
        let glb = g.to_glb().map_err(|e| e.to_string())?;
        output::write_file(out, &glb, &inputs, policy)?;
        eprintln!("{} files -> {} ({} bytes): {summary}", files.len(), out.display(), glb.len());
    }
    Ok(ExitCode::SUCCESS)
}

/// The flags of `hkgen gltf import` beyond the files.
pub struct ImportFlags {
    /// `--animation N`.
    pub animation: Option<u32>,
    /// `--codec`.
    pub codec: Option<String>,
    /// Spline tolerances and quantization.
    pub encode: EncodeOptions,
}

/// Runs `hkgen gltf import IN --into FILE OUT`.
pub fn import(input: &Path, into: &Path, out: &Path, flags: &ImportFlags, r: &Reading<'_>, policy: output::WritePolicy) -> Result<ExitCode, String> {
    output::check_file(out, &[input, into], policy)?;
    let bytes = std::fs::read(input).map_err(|e| crate::Error::io(input, e).to_string())?;
    let base = input.parent().map(|p| if p.as_os_str().is_empty() { Path::new(".") } else { p });
    let g = import::GltfAnimations::read(&bytes, base).map_err(|e| e.in_file(input.display().to_string()).to_string())?;
    let mut opened = open(into, r)?;
    let codec = match flags.codec.as_deref() {
        None => None,
        Some("spline") => Some(Codec::Spline),
        Some("interleaved") => Some(Codec::Interleaved),
        Some(c) => return Err(format!("--codec {c}: spline or interleaved")),
    };
    let options = import::ImportOptions { animation: flags.animation.map(hktypes::Handle), codec, encode: flags.encode.clone() };
    let name = into.display().to_string();
    let done = {
        let Opened { doc, set, registry } = &mut opened;
        let o = OpenOptions { compendia: Some(set), classes: Some(*registry), ..OpenOptions::default() };
        import::import_animations(doc, &name, &g, &options, &o).map_err(|e| e.in_file(name.clone()).to_string())?
    };
    let written = opened.doc.write().map_err(|e| e.in_file(name.clone()).to_string())?;
    output::write_file(out, &written, &[input, into], policy)?;
    for d in &done {
        eprintln!(
            "{} animation {:?} -> object {} of {} ({}, {} frames, {} tracks)",
            input.display(),
            d.from,
            d.handle.0,
            out.display(),
            d.codec,
            d.frames,
            d.tracks
        );
    }
    Ok(ExitCode::SUCCESS)
}
