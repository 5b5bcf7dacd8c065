//! How every `hkgen` command writes: the same rules and the same words for `convert`, `dump
//! --out`, `build`, `extract --out`, `codegen --out` and `stubs --out`.
//!
//! - An output that exists is replaced only with `--force`.
//! - An output is never one of the command's inputs, even with `--force` (paths compared after
//!   resolving links and `..`).
//! - No folder is created unless `--parents` says so (a directory conversion's output folder,
//!   and the folders under it that mirror the input, are its output and are made).
//! - A file is written to a temporary file in the same folder, then renamed over the output, so
//!   a failure or a kill leaves the old file whole (or no file at all).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The flags of every command that writes: the same words in each.
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct WriteArgs {
    /// Replace an output that exists (never one of the inputs, which hkgen does not write over).
    #[arg(long)]
    pub force: bool,
    /// Create the folders the output goes in when they do not exist (without it, a missing
    /// folder is an error).
    #[arg(long)]
    pub parents: bool,
}

impl WriteArgs {
    /// The policy these flags give.
    pub fn policy(self) -> WritePolicy {
        WritePolicy { force: self.force, parents: self.parents }
    }
}

/// What a command may do to the files and folders it writes.
#[derive(Clone, Copy, Debug, Default)]
pub struct WritePolicy {
    /// Replace an output that exists (`--force`).
    pub force: bool,
    /// Create the folders an output goes in (`--parents`).
    pub parents: bool,
}

/// `path` made absolute and resolved (links, `.` and `..`), as far as it exists: a part that
/// does not exist yet cannot be a link, so `..` after it goes up lexically.
pub fn resolved(path: &Path) -> PathBuf {
    use std::path::Component;
    if let Ok(p) = path.canonicalize() {
        return p;
    }
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().map(|d| d.join(path)).unwrap_or_else(|_| path.to_path_buf())
    };
    let mut cur = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                cur.pop();
            }
            other => {
                cur.push(other.as_os_str());
                // An existing part is resolved (it may be a link).
                if let Ok(real) = cur.canonicalize() {
                    cur = real;
                }
            }
        }
    }
    cur
}

/// Checks, before any work, that `out` may be written as a file: it is none of `inputs`, it
/// exists only under `force` (and is then no directory), and its folder exists unless
/// `parents`.
pub fn check_file(out: &Path, inputs: &[&Path], policy: WritePolicy) -> Result<(), String> {
    not_an_input(out, inputs)?;
    if out.is_dir() {
        return Err(format!("the output {} is a folder; name a file", out.display()));
    }
    if out.exists() && !policy.force {
        return Err(format!("{} exists; --force replaces it", out.display()));
    }
    check_parent(out, policy)
}

/// Checks that the folder `out` may be written into: none of `inputs` is it or inside it, and
/// it does not hold an input; its own folder exists unless `parents`. `out` itself is the output
/// and is made when missing; one that exists and holds files is written into only under `force`
/// when `nonempty_needs_force`.
pub fn check_dir(out: &Path, inputs: &[&Path], policy: WritePolicy, nonempty_needs_force: bool) -> Result<(), String> {
    let o = resolved(out);
    for input in inputs {
        let i = resolved(input);
        if o.starts_with(&i) || i.starts_with(&o) {
            return Err(format!(
                "the output folder {} must lie outside the input {} (and not hold it); hkgen never writes over its own input",
                out.display(),
                input.display()
            ));
        }
    }
    if out.exists() && !out.is_dir() {
        return Err(format!("the output {} is a file, not a folder", out.display()));
    }
    if nonempty_needs_force && !policy.force && std::fs::read_dir(out).is_ok_and(|mut d| d.next().is_some()) {
        return Err(format!("{} exists and holds files; --force writes into it", out.display()));
    }
    check_parent(out, policy)
}

/// Makes the output folder `out` (checked by [`check_dir`]), its parents too under `parents`.
pub fn make_dir(out: &Path, policy: WritePolicy) -> Result<(), String> {
    check_parent(out, policy)?;
    let made = if policy.parents { std::fs::create_dir_all(out) } else { std::fs::create_dir(out) };
    match made {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && out.is_dir() => Ok(()),
        Err(e) => Err(format!("cannot make the output folder {}: {e}", out.display())),
    }
}

/// `out` is none of `inputs` (compared resolved).
pub fn not_an_input(out: &Path, inputs: &[&Path]) -> Result<(), String> {
    let o = resolved(out);
    for input in inputs {
        if resolved(input) == o {
            return Err(format!(
                "the output {} is the input {}; hkgen never writes over its own input, not even with --force (write elsewhere, then rename)",
                out.display(),
                input.display()
            ));
        }
    }
    Ok(())
}

/// The folder `out` goes in exists, or `parents` lets it be made.
fn check_parent(out: &Path, policy: WritePolicy) -> Result<(), String> {
    match out.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) if !dir.is_dir() && !policy.parents => {
            if dir.exists() {
                Err(format!("cannot write {}: {} is not a folder", out.display(), dir.display()))
            } else {
                Err(format!("the folder {} does not exist; --parents creates it", dir.display()))
            }
        }
        _ => Ok(()),
    }
}

/// Writes `bytes` to the file `out` (checked again as [`check_file`] does), through a temporary
/// file in the same folder renamed into place. Without `force` the file is linked into place, so
/// an output that appeared since the check is not replaced either.
pub fn write_file(out: &Path, bytes: &[u8], inputs: &[&Path], policy: WritePolicy) -> Result<(), String> {
    check_file(out, inputs, policy)?;
    let failed = |e: std::io::Error| format!("cannot write the output {}: {e}", out.display());
    let dir = match out.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(d) => d.to_path_buf(),
        None => PathBuf::from("."),
    };
    if policy.parents {
        std::fs::create_dir_all(&dir).map_err(failed)?;
    }
    let tmp = temp_name(&dir, out);
    let written = (|| {
        let mut f = std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(failed(e));
    }
    let placed = if policy.force {
        std::fs::rename(&tmp, out).map_err(failed)
    } else {
        // A hard link fails when the output exists: no window between the check and the write.
        match std::fs::hard_link(&tmp, out) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(format!("{} exists; --force replaces it", out.display())),
            // A file system without hard links: the check above stands.
            Err(_) if !out.exists() => std::fs::rename(&tmp, out).map_err(failed),
            Err(e) => Err(failed(e)),
        }
    };
    let _ = std::fs::remove_file(&tmp);
    placed
}

/// A name for a temporary file beside `out` in `dir`, unique in this process and across processes.
fn temp_name(dir: &Path, out: &Path) -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    let name = out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    dir.join(format!(".{name}.hkgen-{}-{}.tmp", std::process::id(), N.fetch_add(1, Ordering::Relaxed)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("hkgen-output-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn refuses_an_existing_file_and_replaces_it_whole_with_force() {
        let d = scratch("exists");
        let out = d.join("precious.xml");
        std::fs::write(&out, b"mine").unwrap();
        let e = write_file(&out, b"new", &[], WritePolicy::default()).unwrap_err();
        assert!(e.ends_with("exists; --force replaces it"), "{e}");
        assert_eq!(std::fs::read(&out).unwrap(), b"mine");
        write_file(&out, b"new", &[], WritePolicy { force: true, parents: false }).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"new");
        // No temporary file is left behind.
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 1);
    }

    #[test]
    fn never_writes_over_an_input_and_makes_folders_only_when_told() {
        let d = scratch("input");
        let input = d.join("self.hkx");
        std::fs::write(&input, b"in").unwrap();
        let other_name = d.join("sub").join("..").join("self.hkx");
        let e = write_file(&other_name, b"x", &[&input], WritePolicy { force: true, parents: true }).unwrap_err();
        assert!(e.contains("never writes over its own input"), "{e}");
        let deep = d.join("a/b/c.xml");
        let e = write_file(&deep, b"x", &[], WritePolicy::default()).unwrap_err();
        assert!(e.contains("does not exist; --parents creates it"), "{e}");
        assert!(!d.join("a").exists());
        write_file(&deep, b"x", &[], WritePolicy { force: false, parents: true }).unwrap();
        assert_eq!(std::fs::read(&deep).unwrap(), b"x");
    }
}
