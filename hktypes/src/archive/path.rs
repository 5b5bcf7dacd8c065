//! Member paths: `ARCHIVE:MEMBER`, where the archive is the longest prefix before a `:` that is an
//! existing file (member names hold `:` and `\` themselves: `c3570.anibnd.dcx:N:\GR\data\...`).

use std::path::{Path, PathBuf};

use super::{bhf4, zstd_frame, Archive, Error, ErrorKind, OpenOptions, Result};

/// Where bytes read by [`read_path`] came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The file read (the archive, or the file itself).
    pub file: PathBuf,
    /// The member's full name, when the bytes are an archive member.
    pub member: Option<String>,
    /// The member's index in the archive.
    pub index: Option<usize>,
    /// What the file is (`DCX(DFLT) > BND4`), when it is an archive or compressed.
    pub container: Option<String>,
}

impl Origin {
    /// `archive:member` (with the member's full name), or the file.
    pub fn display(&self) -> String {
        match &self.member {
            Some(m) => format!("{}:{m}", self.file.display()),
            None => self.file.display().to_string(),
        }
    }
}

/// Splits a member path into the archive's path and the member (`None` when the whole path is an
/// existing file, or no prefix before a `:` is one).
pub fn split_member_path(path: &str) -> (PathBuf, Option<String>) {
    if Path::new(path).is_file() {
        return (PathBuf::from(path), None);
    }
    for (i, _) in path.char_indices().rev().filter(|&(_, c)| c == ':') {
        let (a, m) = (&path[..i], &path[i + 1..]);
        if !a.is_empty() && Path::new(a).is_file() {
            return (PathBuf::from(a), Some(m.to_string()));
        }
    }
    (PathBuf::from(path), None)
}

fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| Error::io(path, e))
}

/// zstd dictionaries beside `path` or in the `Pack` folder above it: `*.zsdic` files and the
/// dictionaries inside `ZsDic.pack.zs` (Tears of the Kingdom keeps them in `romfs/Pack/`).
fn find_dictionaries(path: &Path, opts: &OpenOptions) -> Vec<Vec<u8>> {
    let mut found = Vec::new();
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut d = path.parent().map(Path::to_path_buf);
    for _ in 0..4 {
        let Some(dir) = d else { break };
        let dir = if dir.as_os_str().is_empty() { PathBuf::from(".") } else { dir };
        dirs.push(dir.clone());
        dirs.push(dir.join("Pack"));
        d = dir.parent().map(Path::to_path_buf);
    }
    for dir in dirs {
        let Ok(rd) = std::fs::read_dir(&dir) else { continue };
        for entry in rd.flatten().take(4096) {
            let p = entry.path();
            let name = entry.file_name().to_string_lossy().to_lowercase();
            if name.ends_with(".zsdic") {
                if let Ok(b) = std::fs::read(&p) {
                    if zstd_frame::dictionary_id(&b).is_some() {
                        found.push(b);
                    }
                }
            } else if name == "zsdic.pack.zs" {
                if let Ok(a) = std::fs::read(&p).map_err(|e| Error::io(&p, e)).and_then(|b| Archive::read(&b, &OpenOptions { zstd_dictionaries: vec![], limits: opts.limits })) {
                    for i in 0..a.names().len() {
                        if let Ok(b) = a.member_bytes(i) {
                            if zstd_frame::dictionary_id(&b).is_some() {
                                found.push(b);
                            }
                        }
                    }
                }
            }
        }
        if !found.is_empty() {
            break;
        }
    }
    found
}

/// Whether `bytes` need a zstd dictionary that `opts` does not have.
fn needs_dictionary(bytes: &[u8], opts: &OpenOptions) -> bool {
    zstd_frame::is_zstd(bytes)
        && zstd_frame::read_flags(bytes, "zstd", 0).ok().and_then(|f| f.dictionary_id).is_some_and(|id| opts.dictionary(id).is_none())
}

pub(super) fn open_archive(path: &Path, opts: &OpenOptions) -> Result<Archive> {
    let bytes = read(path)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut opts = opts.clone();
    if needs_dictionary(&bytes, &opts) {
        opts.zstd_dictionaries.extend(find_dictionaries(path, &opts));
    }
    let split_partner = || bhf4::data_file_name(&name).map(|n| path.with_file_name(n));
    if bhf4::is_bhf4(&bytes) {
        let data_path = split_partner().ok_or_else(|| Error::plain(ErrorKind::Io, "cannot name the data file (.bdt) of this BHF4 header file").in_file(path))?;
        let data = read(&data_path)?;
        return Archive::read_split(&bytes, &data, &opts).map_err(|e| e.in_file(path));
    }
    if bytes.starts_with(b"BDF4") {
        let header_path = split_partner().ok_or_else(|| Error::plain(ErrorKind::Io, "cannot name the header file (.bhd) of this BDF4 data file").in_file(path))?;
        let header = read(&header_path)?;
        return Archive::read_split(&header, &bytes, &opts).map_err(|e| e.in_file(&header_path));
    }
    let single = ["dcx", "zs", "yaz0"].iter().find_map(|ext| name.strip_suffix(&format!(".{ext}"))).unwrap_or(&name);
    let single = single.strip_prefix(".").unwrap_or(single).to_string();
    Archive::read_named(&bytes, &single, &opts).map_err(|e| e.in_file(path))
}

/// Reads the bytes a path names: a member path `ARCHIVE:MEMBER` (the member's full name or a
/// unique suffix, see [`Archive::find`]), a compressed single file (`x.hkx.dcx`), or a plain file;
/// compression layers are undone. The bytes are for [`crate::open`].
///
/// An archive named without a member is an error listing its members (`hkgen ls` lists them).
pub fn read_path(path: &str, opts: &OpenOptions) -> Result<(Vec<u8>, Origin)> {
    let (file, member) = split_member_path(path);
    match member {
        None => {
            let bytes = read(&file)?;
            if !super::is_archive(&bytes) {
                return Ok((bytes, Origin { file, member: None, index: None, container: None }));
            }
            let a = open_archive(&file, opts)?;
            if a.is_container() {
                let names = a.names();
                return Err(Error::plain(
                    ErrorKind::NotFound,
                    format!("is an archive ({}) of {} members: name one as {}:MEMBER ({})", a.describe(), names.len(), file.display(), super::preview(&names)),
                )
                .in_file(&file));
            }
            let bytes = a.member_bytes(0).map_err(|e| e.in_file(&file))?;
            Ok((bytes, Origin { file, member: None, index: None, container: Some(a.describe()) }))
        }
        Some(m) => {
            let a = open_archive(&file, opts)?;
            let chain = resolve(a, &m, opts).map_err(|e| e.in_file(&file))?;
            let (last, i) = chain.last().expect("one link at least");
            let bytes = last.member_bytes(*i).map_err(|e| e.in_file(&file))?;
            Ok((bytes, Origin { member: Some(chain_name(&chain)), file, index: Some(chain[0].1), container: Some(chain[0].0.describe()) }))
        }
    }
}

/// Replaces the member a member path names with `bytes` (compressed as the member was) and writes
/// the archive back atomically, every size, offset and hash recomputed; returns where it went.
pub fn write_member(path: &str, bytes: Vec<u8>, opts: &OpenOptions) -> Result<Origin> {
    let (file, member) = split_member_path(path);
    let a = open_archive(&file, opts)?;
    let mut chain = match &member {
        Some(m) => resolve(a, m, opts).map_err(|e| e.in_file(&file))?,
        None if !a.is_container() => vec![(a, 0)],
        None => return Err(Error::plain(ErrorKind::NotFound, "name the member to replace as ARCHIVE:MEMBER").in_file(&file)),
    };
    let shown = chain_name(&chain);
    // The innermost archive takes the bytes; each archive around it takes the one inside.
    let mut bytes = bytes;
    while let Some((mut inner, i)) = chain.pop() {
        inner.set_member(i, bytes).map_err(|e| e.in_file(&file))?;
        if chain.is_empty() {
            chain.push((inner, i));
            break;
        }
        bytes = inner.write()?.0;
    }
    let (a, i) = chain.pop().expect("the outermost archive");
    let target = if bhf4::is_bhf4(&read(&file)?) || !file.to_string_lossy().to_lowercase().ends_with("bdt") {
        file.clone()
    } else {
        // A BDF4 data file was named: the header file is the one saved (the data file beside it).
        let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        file.with_file_name(bhf4::data_file_name(&name).unwrap_or(name))
    };
    a.save(&target)?;
    Ok(Origin { member: Some(shown), file, index: Some(i), container: Some(a.describe()) })
}

/// How deep archives may nest inside archives (a `.partsbnd.dcx` holding an `.anibnd`).
const MAX_DEPTH: usize = 4;

/// The archives and member indices that `member` names, outermost first: the whole string names
/// a member of `a`; or a part before a `:` names a member that is itself an archive, and the rest
/// names a member of that (`wp.partsbnd.dcx:WP_A_9823.anibnd:skeleton.HKX`).
fn resolve(a: Archive, member: &str, opts: &OpenOptions) -> Result<Vec<(Archive, usize)>> {
    let mut chain = Vec::new();
    let mut a = a;
    let mut rest = member.to_string();
    for _ in 0..MAX_DEPTH {
        let whole = a.find(&rest);
        match whole {
            Ok(i) => {
                chain.push((a, i));
                return Ok(chain);
            }
            Err(e) if e.kind != ErrorKind::NotFound => return Err(e),
            Err(e) => {
                // A prefix naming a nested archive.
                let mut next = None;
                for (at, _) in rest.char_indices().filter(|&(_, c)| c == ':') {
                    let Ok(i) = a.find(&rest[..at]) else { continue };
                    let bytes = a.member_bytes(i)?;
                    if super::is_archive(&bytes) {
                        let name = a.names()[i].clone();
                        let inner = Archive::read_named(&bytes, &name, opts).map_err(|e| e.within(&format!("member {name}")))?;
                        next = Some((i, inner, rest[at + 1..].to_string()));
                        break;
                    }
                }
                let Some((i, inner, r)) = next else { return Err(e) };
                chain.push((a, i));
                a = inner;
                rest = r;
            }
        }
    }
    Err(Error::plain(ErrorKind::NotFound, format!("archives nest deeper than {MAX_DEPTH} levels")))
}

/// `outer member:inner member` of a chain.
fn chain_name(chain: &[(Archive, usize)]) -> String {
    chain.iter().map(|(a, i)| a.names()[*i].clone()).collect::<Vec<_>>().join(":")
}
