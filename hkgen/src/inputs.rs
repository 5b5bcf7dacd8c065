//! Input files: walking the paths a user names, telling the Havok formats apart by their first
//! bytes, and gathering the TCM0 compendia that TAG0 files reference.

use crate::Error;
use hktypes::tagfile::{Compendium, CompendiumId, CompendiumSet};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a file is, from its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
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

impl Format {
    /// The lower-case name `verify --json` prints (`tag0`, `tcm0`, `packfile`, `registry`, `other`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Tag0 => "tag0",
            Format::Tcm0 => "tcm0",
            Format::Packfile => "packfile",
            Format::Registry => "registry",
            Format::Other => "other",
        }
    }
}

/// The first eight bytes of a binary packfile.
pub const PACKFILE_MAGIC: [u8; 8] = [0x57, 0xE0, 0xE0, 0x57, 0x10, 0xC0, 0xC0, 0x10];

/// Classifies a file by its first bytes (up to 512 are looked at).
///
/// ```
/// use hkgen::inputs::{sniff, Format, PACKFILE_MAGIC};
///
/// assert_eq!(sniff(b"\x00\x00\x01\x00TAG0\x40\x00\x00\x10SDKV20180100"), Format::Tag0);
/// assert_eq!(sniff(&PACKFILE_MAGIC), Format::Packfile);
/// assert_eq!(sniff(b"<?xml version=\"1.0\"?><HavokTypeRegistry>"), Format::Registry);
/// assert_eq!(sniff(b"hello"), Format::Other);
/// ```
pub fn sniff(head: &[u8]) -> Format {
    match hktypes::tagfile::sniff(head) {
        Some("tag0") => return Format::Tag0,
        Some("tcm0") => return Format::Tcm0,
        _ => {}
    }
    if head.starts_with(&PACKFILE_MAGIC) {
        return Format::Packfile;
    }
    let text = String::from_utf8_lossy(&head[..head.len().min(512)]);
    if text.contains("<HavokTypeRegistry") {
        return Format::Registry;
    }
    Format::Other
}

/// Reads the first bytes of a file for [`sniff`].
pub fn sniff_path(path: &Path) -> Result<Format, Error> {
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
    Ok(sniff(&head[..n]))
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
/// How many files [`files_near`] looks at before it stops.
pub const NEAR_FILES: usize = 4096;

/// Files where a binder keeps the compendium of `file`: its directory and the two above it, each
/// searched [`NEAR_DEPTH`] levels down. This is a guess, not a request, so unreadable entries are
/// passed over, and it stops after [`NEAR_FILES`] files: a file in `/tmp` must not walk the disk.
pub fn files_near(file: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            if out.len() >= NEAR_FILES {
                return;
            }
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() && depth > 0 => walk(&path, depth - 1, out),
                Ok(t) if t.is_file() || t.is_symlink() && path.is_file() => out.push(path),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    let mut dir = file.parent();
    for _ in 0..3 {
        let Some(d) = dir else { break };
        let d = if d.as_os_str().is_empty() { Path::new(".") } else { d };
        walk(d, NEAR_DEPTH, &mut out);
        dir = d.parent();
    }
    out.sort();
    out.dedup();
    out
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
                set.insert(*id, Arc::clone(&self.files[p].types));
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
            if sniff_path(&p).ok() == Some(Format::Tcm0) {
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
            if sniff_path(&p)? == Format::Tcm0 {
                let bytes = std::fs::read(&p).map_err(|e| Error::io(&p, e))?;
                let c = Compendium::read(&bytes).map_err(|e| Error::Havok(e.in_file(p.display().to_string())))?;
                out.add(&p, c);
            }
        }
        Ok(out)
    }
}
