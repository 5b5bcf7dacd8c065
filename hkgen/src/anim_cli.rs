//! `hkgen anim FILE`: the animations of a Havok file, listed, or their decoded frames written as
//! CSV or JSON (`--frames csv|json`, to stdout or `--out PATH`). The work is `hktypes::anim`'s;
//! this module opens the file and prints.

use crate::inputs::Compendia;
use hktypes::anim::{self, Animation};
use hktypes::{ClassRegistry, OpenOptions};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The arguments of `hkgen anim`.
pub struct AnimArgs<'a> {
    /// `csv` or `json` to write frames; `None` to list.
    pub frames: Option<&'a str>,
    /// Where the frames go (stdout when `None`).
    pub out: Option<&'a Path>,
    /// Replace `out` when it exists.
    pub force: bool,
    /// TCM0 compendia; the ones near the file when empty.
    pub compendia: Vec<PathBuf>,
    /// Snapshots whose packfile class schemas lay objects out (else the compiled-in classes).
    pub schemas: Option<PathBuf>,
    /// The classes compiled into the program.
    pub registry: Option<&'static (dyn ClassRegistry + Sync)>,
    /// The input.
    pub file: &'a Path,
}

/// The bytes of a file, or of a game archive's member (`ARCHIVE:MEMBER`, or a DCX-wrapped file),
/// and the file on disk to look for compendia beside.
fn read_file_or_member(file: &Path) -> Result<(Vec<u8>, PathBuf), String> {
    use hktypes::archive;
    if file.is_file() {
        let bytes = std::fs::read(file).map_err(|e| crate::error::Error::io(file, e).to_string())?;
        if !archive::is_archive(&bytes) {
            return Ok((bytes, file.to_path_buf()));
        }
    }
    let (bytes, origin) = archive::read_path(&file.to_string_lossy(), &archive::OpenOptions::default()).map_err(|e| e.to_string())?;
    Ok((bytes, origin.file))
}

/// Runs `hkgen anim`.
pub fn anim(a: &AnimArgs<'_>) -> Result<ExitCode, String> {
    let file = a.file;
    let located = |e: hktypes::Error| e.in_file(file.display().to_string()).to_string();
    if let Some(out) = a.out {
        if out.exists() && !a.force {
            return Err(format!("{} exists; --force replaces it", out.display()));
        }
    }
    let (bytes, near) = read_file_or_member(file)?;
    let compendia = if a.compendia.is_empty() { Compendia::load_near(&near) } else { Compendia::load(&a.compendia) }.map_err(|e| e.to_string())?;
    let set = compendia.set_for(&near);
    let registry: &'static (dyn ClassRegistry + Sync) = match (&a.schemas, a.registry) {
        (None, Some(r)) => r,
        (dir, _) => {
            let dir = dir.clone().unwrap_or_else(|| PathBuf::from("schemas"));
            let s = crate::reflection::check::ClassSchemas::load(&dir).map_err(|e| e.to_string())?;
            Box::leak(Box::new(s))
        }
    };
    let options = OpenOptions { compendia: Some(&set), classes: Some(registry), ..OpenOptions::default() };
    let doc = hktypes::open(&bytes, &options).map_err(located)?;
    let anims = anim::animations(&doc).map_err(located)?;
    match a.frames {
        None => {
            let mut text = format!("{}: {} animation{}\n", file.display(), anims.len(), if anims.len() == 1 { "" } else { "s" });
            for x in &anims {
                text.push_str(&listing(x));
            }
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
            Ok(ExitCode::SUCCESS)
        }
        Some(form) => {
            let text = if form == "csv" { csv(&anims).map_err(located)? } else { json(file, &anims).map_err(located)? };
            match a.out {
                None => {
                    let _ = std::io::stdout().lock().write_all(text.as_bytes());
                }
                Some(out) => {
                    write_whole(out, text.as_bytes())?;
                    eprintln!("{} -> {} ({form}): {} animations, {} bytes", file.display(), out.display(), anims.len(), text.len());
                }
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Writes `bytes` to `path` through a temporary file beside it, renamed over it once whole: an
/// interrupted write never leaves half a file under the name asked for.
fn write_whole(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let failed = |e: std::io::Error| format!("cannot write the output {}: {e}", path.display());
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(failed)?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".hkgen-{}.tmp", std::process::id()));
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, bytes).map_err(failed)?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        failed(e)
    })
}

/// One animation's lines of the listing.
fn listing(a: &Animation) -> String {
    let mut s = format!(
        "  #{} {} ({}): {} tracks, {} float tracks, {} frames, {:.4} s, {} bytes of data, {:.0} bytes/s",
        a.handle.0,
        a.codec.name(),
        a.class,
        a.track_count,
        a.float_track_count,
        a.frame_count,
        a.duration,
        a.data_bytes,
        a.bytes_per_second()
    );
    if let Some(b) = &a.binding {
        let _ = write!(s, ", blend {:?}", b.blend_hint);
    }
    match &a.skeleton {
        Some(k) => {
            let _ = write!(s, ", skeleton {:?} ({} bones)", k.name, k.bones.len());
        }
        None => {
            if let Some(b) = a.binding.as_ref().filter(|b| !b.skeleton_name.is_empty()) {
                let _ = write!(s, ", skeleton {:?} (not in the file)", b.skeleton_name);
            }
        }
    }
    if let Some(r) = &a.root_motion {
        let _ = write!(s, ", root motion ({} samples)", r.samples.len());
    }
    let notes: usize = a.annotations.iter().map(|t| t.annotations.len()).sum();
    if notes > 0 {
        let _ = write!(s, ", {notes} annotations");
    }
    s.push('\n');
    s
}

fn time_of(a: &Animation, f: usize) -> f32 {
    if a.frame_count > 1 {
        a.duration * f as f32 / (a.frame_count - 1) as f32
    } else {
        0.0
    }
}

/// One row per frame and track: `handle,frame,time,kind,track,bone,tx,ty,tz,rx,ry,rz,rw,sx,sy,sz,value`.
fn csv(anims: &[Animation]) -> hktypes::Result<String> {
    let mut s = String::from("handle,frame,time,kind,track,bone,tx,ty,tz,rx,ry,rz,rw,sx,sy,sz,value\n");
    for a in anims {
        let f = a.frames()?;
        let bones: Vec<String> = (0..a.track_count).map(|t| a.bone_name(t).map(quote).unwrap_or_default()).collect();
        for frame in 0..f.frame_count {
            let time = time_of(a, frame);
            for (t, bone) in bones.iter().enumerate() {
                let x = f.transform(frame, t).copied().unwrap_or(anim::IDENTITY);
                let _ = write!(s, "{},{frame},{time},transform,{t},{bone}", a.handle.0);
                for v in x {
                    let _ = write!(s, ",{v}");
                }
                s.push_str(",\n");
            }
            for k in 0..f.float_track_count {
                let _ = writeln!(s, "{},{frame},{time},float,{k},,,,,,,,,,,,{}", a.handle.0, f.float(frame, k).unwrap_or(0.0));
            }
        }
    }
    Ok(s)
}

/// A CSV field, quoted where it holds a comma, quote or line break.
fn quote(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// `{file, animations: [{handle, class, codec, duration, frame_count, track_count,
/// float_track_count, track_to_bone, bones, blend_hint, frames, floats, root_motion}]}`.
fn json(file: &Path, anims: &[Animation]) -> hktypes::Result<String> {
    use serde_json::{json, Value};
    let mut out = Vec::new();
    for a in anims {
        let f = a.frames()?;
        let frames: Vec<Value> = (0..f.frame_count)
            .map(|k| Value::from(f.transforms[k * f.track_count..(k + 1) * f.track_count].iter().map(|x| x.to_vec()).collect::<Vec<_>>()))
            .collect();
        let floats: Vec<Value> = (0..f.frame_count)
            .map(|k| Value::from(f.floats[k * f.float_track_count..(k + 1) * f.float_track_count].to_vec()))
            .collect();
        out.push(json!({
            "handle": a.handle.0,
            "class": a.class,
            "codec": a.codec.name(),
            "duration": a.duration,
            "frame_count": a.frame_count,
            "track_count": a.track_count,
            "float_track_count": a.float_track_count,
            "track_to_bone": a.track_to_bone(),
            "bones": (0..a.track_count).map(|t| a.bone_name(t)).collect::<Vec<_>>(),
            "blend_hint": a.binding.as_ref().map(|b| format!("{:?}", b.blend_hint).to_lowercase()),
            "frames": frames,
            "floats": floats,
            "root_motion": a.root_motion.as_ref().map(|r| r.samples.iter().map(|x| x.to_vec()).collect::<Vec<_>>()),
        }));
    }
    let v = json!({ "file": file.display().to_string(), "animations": out });
    let mut s = serde_json::to_string(&v).map_err(|e| hktypes::ValueError::new(hktypes::ErrorKind::Invalid(e.to_string())))?;
    s.push('\n');
    Ok(s)
}
