//! Input files: walking the paths a user names, telling the Havok formats apart by their first
//! bytes, and gathering the TCM0 compendia that TAG0 files reference.

use crate::error::Error;
use hktypes::tagfile::{Compendium, CompendiumId, CompendiumSet};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What an input file of the schema tool is, from its first bytes: a coarser and wider set than
/// `hktypes::Format` (which it is made from), with the Elden Ring type registry and "anything
/// else" (Havok XML among it), for walking the files a user names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InputKind {
    /// A TAG0 tagfile (SDK 2015 and later).
    Tag0,
    /// A TCM0 type compendium.
    Tcm0,
    /// A 2010-2014 binary packfile.
    Packfile,
    /// The Elden Ring runtime type registry dump (XML with a `HavokTypeRegistry` root).
    Registry,
    /// Something else (including Havok XML files and the older binary tagfile).
    Other,
}

impl InputKind {
    /// The lower-case name `verify --json` prints (`tag0`, `tcm0`, `packfile`, `registry`, `other`).
    pub fn name(self) -> &'static str {
        match self {
            InputKind::Tag0 => "tag0",
            InputKind::Tcm0 => "tcm0",
            InputKind::Packfile => "packfile",
            InputKind::Registry => "registry",
            InputKind::Other => "other",
        }
    }
}

/// The first eight bytes of a binary packfile.
pub const PACKFILE_MAGIC: [u8; 8] = hktypes::packfile::MAGIC;

/// Classifies a file by its first bytes (up to 512 are looked at).
///
/// ```
/// use hkgen::inputs::{input_kind, InputKind, PACKFILE_MAGIC};
///
/// assert_eq!(input_kind(b"\x00\x00\x01\x00TAG0\x40\x00\x00\x10SDKV20180100"), InputKind::Tag0);
/// assert_eq!(input_kind(&PACKFILE_MAGIC), InputKind::Packfile);
/// assert_eq!(input_kind(b"<?xml version=\"1.0\"?><HavokTypeRegistry>"), InputKind::Registry);
/// assert_eq!(input_kind(b"hello"), InputKind::Other);
/// ```
pub fn input_kind(head: &[u8]) -> InputKind {
    match hktypes::sniff(head) {
        // A Phive file is a tagfile in a wrapper: read as one through `tag0_of`.
        Some(hktypes::Format::Tag0 | hktypes::Format::Phive) => return InputKind::Tag0,
        Some(hktypes::Format::Tcm0) => return InputKind::Tcm0,
        Some(hktypes::Format::Packfile) => return InputKind::Packfile,
        // Havok XML is `Other` here (its readers tell its forms apart), unless it is a registry.
        _ => {}
    }
    let text = String::from_utf8_lossy(&head[..head.len().min(512)]);
    if text.contains("<HavokTypeRegistry") {
        return InputKind::Registry;
    }
    InputKind::Other
}

/// The TAG0 tagfile of `bytes` sniffed as [`InputKind::Tag0`]: the bytes themselves, or the
/// tagfile inside a Phive wrapper ([`hktypes::tagfile::phive`]) with the wrapper.
pub fn tag0_of(bytes: &[u8]) -> Result<(&[u8], Option<hktypes::tagfile::phive::Phive<'_>>), hktypes::error::ContainerError> {
    if hktypes::tagfile::phive::is_phive(bytes) {
        let p = hktypes::tagfile::phive::Phive::read(bytes)?;
        Ok((p.tag0, Some(p)))
    } else {
        Ok((bytes, None))
    }
}

/// Reads the first bytes of a file for [`input_kind`].
pub fn input_kind_of(path: &Path) -> Result<InputKind, Error> {
    use std::io::Read;
    let mut f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut head = [0u8; 512];
    let mut n = 0;
    while n < head.len() {
        match f.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io(path, e)),
        }
    }
    Ok(input_kind(&head[..n]))
}

/// Every file under the given paths (directories walked recursively, links not followed), sorted
/// and without duplicates.
pub fn walk(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Error> {
    let mut out = Vec::new();
    for p in paths {
        walk_one(p, &mut out)?;
    }
    out.sort();
    out.dedup();
    Ok(out)
}

fn walk_one(p: &Path, out: &mut Vec<PathBuf>) -> Result<(), Error> {
    let meta = std::fs::symlink_metadata(p).map_err(|e| Error::io(p, e))?;
    if meta.is_dir() {
        for entry in std::fs::read_dir(p).map_err(|e| Error::io(p, e))? {
            let entry = entry.map_err(|e| Error::io(p, e))?;
            walk_one(&entry.path(), out)?;
        }
    } else if meta.is_file() || meta.file_type().is_symlink() && p.is_file() {
        out.push(p.to_path_buf());
    }
    Ok(())
}

/// How many directory levels below each candidate directory [`files_near`] looks.
pub const NEAR_DEPTH: usize = 2;
/// How many directory entries [`files_near`] looks at, files and directories together, before
/// it stops.
pub const NEAR_ENTRIES: usize = 4096;
/// The shortest file that can hold a compendium: one section header.
const NEAR_MIN_BYTES: u64 = 8;

/// Files where a binder keeps the compendium of `file`: its directory and the two above it, each
/// searched [`NEAR_DEPTH`] levels down. This is a guess, not a request, so unreadable entries are
/// passed over, and the walk is kept small and safe wherever the file lies:
/// - it stops after [`NEAR_ENTRIES`] entries, so a file in `/tmp` does not walk the disk;
/// - it never searches the filesystem root, and never leaves the file system that holds `file`'s
///   directory, so it does not reach `/proc`, `/sys` or a mount. Opening some of their files
///   (`/proc/kmsg`) blocks forever, and any of them may be slow;
/// - it takes only regular files (directly or through a link) of at least a section header's
///   size, never a pipe or a device.
pub fn files_near(file: &Path) -> Vec<PathBuf> {
    struct Walk {
        device: Option<u64>,
        seen: usize,
        out: Vec<PathBuf>,
    }
    impl Walk {
        fn dir(&mut self, dir: &Path, depth: usize) {
            let Ok(entries) = std::fs::read_dir(dir) else { return };
            for entry in entries.flatten() {
                if self.seen >= NEAR_ENTRIES {
                    return;
                }
                self.seen += 1;
                let path = entry.path();
                let Ok(kind) = entry.file_type() else { continue };
                if kind.is_dir() {
                    if depth > 0 && std::fs::symlink_metadata(&path).is_ok_and(|m| self.holds(&m)) {
                        self.dir(&path, depth - 1);
                    }
                } else if kind.is_file() || kind.is_symlink() {
                    // `metadata` follows a link to what it names.
                    if std::fs::metadata(&path).is_ok_and(|m| m.is_file() && m.len() >= NEAR_MIN_BYTES && self.holds(&m)) {
                        self.out.push(path);
                    }
                }
            }
        }
        /// Whether `m` is on the file system the walk started on.
        fn holds(&self, m: &std::fs::Metadata) -> bool {
            self.device.is_none_or(|d| device_of(m) == Some(d))
        }
    }
    let start = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    // Ascending needs real names: the parent of `.` is not the directory above it.
    let Ok(start) = std::fs::canonicalize(start) else { return Vec::new() };
    let Ok(meta) = std::fs::metadata(&start) else { return Vec::new() };
    let mut walk = Walk { device: device_of(&meta), seen: 0, out: Vec::new() };
    let mut dir = Some(start.as_path());
    for _ in 0..3 {
        // The root has no parent; it is every file's ancestor and no binder's folder.
        let Some(d) = dir.filter(|d| d.parent().is_some()) else { break };
        walk.dir(d, NEAR_DEPTH);
        dir = d.parent();
    }
    let mut out = walk.out;
    out.sort();
    out.dedup();
    out
}

/// The id of the file system holding `m`'s file, where the platform tells it.
fn device_of(m: &std::fs::Metadata) -> Option<u64> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some(m.dev())
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        None
    }
}

/// Compendia by id. Several compendia may claim one id (a newer one lists the ids of those it
/// extends, and copies of one compendium may store different subsets of hashes); a tagfile takes the
/// candidate nearest to it in the directory tree, the way a binder keeps a compendium beside the
/// files that use it. Candidates whose tables disagree on a type are reported as clashes.
#[derive(Default)]
pub struct Compendia {
    /// Every compendium loaded, by path.
    pub files: BTreeMap<PathBuf, Compendium>,
    /// Compendia that claim one id with tables that disagree: (id, first path, other path).
    pub clashes: Vec<(CompendiumId, PathBuf, PathBuf)>,
    candidates: BTreeMap<CompendiumId, Vec<PathBuf>>,
}

/// Whether two tables agree type by type (stored hashes aside) on every index both have.
fn compatible(a: &hktypes::reflect::TypeTable, b: &hktypes::reflect::TypeTable) -> bool {
    let unhashed = |t: &hktypes::reflect::TypeTable, i| t.record(i).map(|r| hktypes::reflect::TypeRecord { hash: None, ..r });
    (0..a.len().min(b.len()) as u32).all(|i| unhashed(a, i) == unhashed(b, i))
}

fn common_prefix(a: &Path, b: &Path) -> usize {
    a.components().zip(b.components()).take_while(|(x, y)| x == y).count()
}

impl Compendia {
    /// Adds the compendium read from `path` as a candidate for each of its ids.
    pub fn add(&mut self, path: &Path, c: Compendium) {
        for id in &c.ids {
            let list = self.candidates.entry(*id).or_default();
            if let Some(first) = list.first() {
                if !compatible(&self.files[first].types, &c.types) {
                    self.clashes.push((*id, first.clone(), path.to_path_buf()));
                }
            }
            list.push(path.to_path_buf());
        }
        self.files.insert(path.to_path_buf(), c);
    }

    /// The compendium file that a tagfile at `tagfile` takes for `id`.
    pub fn file_for(&self, tagfile: &Path, id: &CompendiumId) -> Option<&Path> {
        let list = self.candidates.get(id)?;
        // Nearest by shared leading path components; the first in path order on a tie.
        let mut best: Option<(&PathBuf, usize)> = None;
        for p in list {
            let n = common_prefix(p, tagfile);
            if best.is_none_or(|(_, m)| n > m) {
                best = Some((p, n));
            }
        }
        best.map(|(p, _)| p.as_path())
    }

    /// The compendia a tagfile at `tagfile` reads against: for each id, its nearest candidate.
    pub fn set_for(&self, tagfile: &Path) -> CompendiumSet {
        let mut set = CompendiumSet::new();
        for id in self.candidates.keys() {
            if let Some(p) = self.file_for(tagfile, id) {
                set.add_as(*id, &self.files[p]);
            }
        }
        set
    }

    /// Whether no compendium was loaded.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Loads the compendia among [`files_near`] `file`; files that cannot be read are passed over,
    /// a compendium that does not parse is an error.
    pub fn load_near(file: &Path) -> Result<Self, Error> {
        let mut out = Compendia::default();
        for p in files_near(file) {
            if input_kind_of(&p).ok() == Some(InputKind::Tcm0) {
                let bytes = std::fs::read(&p).map_err(|e| Error::io(&p, e))?;
                let c = Compendium::read(&bytes).map_err(|e| Error::Havok(e.in_file(p.display().to_string())))?;
                out.add(&p, c);
            }
        }
        Ok(out)
    }

    /// Loads every TCM0 among `paths` (files or directories); other files are ignored.
    pub fn load(paths: &[PathBuf]) -> Result<Self, Error> {
        let mut out = Compendia::default();
        for p in walk(paths)? {
            if input_kind_of(&p)? == InputKind::Tcm0 {
                let bytes = std::fs::read(&p).map_err(|e| Error::io(&p, e))?;
                let c = Compendium::read(&bytes).map_err(|e| Error::Havok(e.in_file(p.display().to_string())))?;
                out.add(&p, c);
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory under the system's temporary one, removed on drop.
    struct Scratch(PathBuf);
    impl Scratch {
        fn new(name: &str) -> Self {
            let dir = std::env::temp_dir().join(format!("hkgen-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Scratch(std::fs::canonicalize(&dir).unwrap())
        }
    }
    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn the_near_walk_takes_regular_files_within_its_depth() {
        let t = Scratch::new("near-kinds");
        let bnd = t.0.join("c1000.anibnd");
        std::fs::create_dir_all(bnd.join("a/b/c/d")).unwrap();
        std::fs::write(bnd.join("types.compendium"), [0u8; 16]).unwrap();
        std::fs::write(bnd.join("a/b/two-down.hkx"), [0u8; 16]).unwrap();
        std::fs::write(bnd.join("a/b/c/d/too-deep.hkx"), [0u8; 16]).unwrap();
        std::fs::write(bnd.join("short"), [0u8; 3]).unwrap();
        let fifo = bnd.join("pipe");
        let have_fifo = std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
        let file = bnd.join("a/anim.hkx");
        std::fs::write(&file, [0u8; 16]).unwrap();

        let near = files_near(&file);
        assert!(near.contains(&bnd.join("types.compendium")), "{near:?}");
        assert!(near.contains(&bnd.join("a/b/two-down.hkx")), "{near:?}");
        assert!(!near.contains(&bnd.join("a/b/c/d/too-deep.hkx")), "more than two levels below `bnd`: {near:?}");
        assert!(!near.contains(&bnd.join("short")), "shorter than a section header: {near:?}");
        if have_fifo {
            assert!(!near.contains(&fifo), "a pipe is not a file to sniff: {near:?}");
        }
    }

    #[test]
    fn the_near_walk_never_searches_the_root() {
        // A file one or two levels below the root (as in `/tmp/x/file.hkx`) must not walk `/`,
        // whose `/proc/kmsg` blocks when opened. Every file found lies under an ancestor of the
        // file's directory that is not the root.
        let t = Scratch::new("near-root");
        let file = t.0.join("alone.hkx");
        std::fs::write(&file, [0u8; 16]).unwrap();
        let ancestors: Vec<&Path> = t.0.ancestors().take(3).filter(|d| d.parent().is_some()).collect();
        let near = files_near(&file);
        assert!(near.contains(&file), "{near:?}");
        for p in &near {
            assert!(ancestors.iter().any(|d| p.starts_with(d)), "{} is outside {ancestors:?}", p.display());
        }
        // The file's own directory is the root's child here only if the temporary directory is
        // (`/tmp`); a file placed straight in a root-level directory must see only that directory.
        let root_child = t.0.ancestors().find(|d| d.parent() == Some(Path::new("/")));
        if let Some(top) = root_child {
            for p in files_near(&top.join("no-such-file.hkx")) {
                assert!(p.starts_with(top), "{} is outside {}", p.display(), top.display());
            }
        }
    }

    #[test]
    fn the_near_walk_of_a_relative_name_ascends_from_the_real_directory() {
        // `x.hkx` has the parent `` (the working directory), whose parent is not the directory
        // above; the walk must name files by their real paths.
        let near = files_near(Path::new("Cargo.toml"));
        let here = std::fs::canonicalize(".").unwrap();
        assert!(near.contains(&here.join("Cargo.toml")), "{near:?}");
        assert!(near.iter().any(|p| !p.starts_with(&here)), "nothing from the directory above: {near:?}");
    }
}
