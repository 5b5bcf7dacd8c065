//! `hkgen extract`: reads every type table among the inputs (tagfiles, compendia, the runtime
//! registry) in parallel and merges them into one schema per SDK version.

use crate::inputs::{self, Compendia, InputKind};
use crate::registry;
use crate::schema::{Conflict, Merger, Origin, Schema};
use crate::error::Error;
use hktypes::tagfile::{self, CompendiumId, TagFile, TypeCache, TypeSource};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What an extraction produced and met on the way.
#[derive(Default)]
pub struct Extraction {
    /// One merged schema per SDK version found, sorted by SDK.
    pub schemas: Vec<Schema>,
    /// Keys under which two tables of one SDK hold different records.
    pub conflicts: Vec<Conflict>,
    /// Files that could not be read, with the reason.
    pub failures: Vec<(PathBuf, String)>,
    /// Compendia that no input tagfile names: their SDK version is unknown, so they are left out.
    pub unreferenced: Vec<PathBuf>,
    /// Requested-alignment codes recovered from registry hashes: (SDK version, type, code).
    pub recovered_alignment: Vec<(String, String, u32)>,
    /// Files read successfully.
    pub files_read: usize,
    /// Their total size in bytes.
    pub bytes_read: u64,
}

enum Tables {
    Own(String, Arc<hktypes::reflect::TypeTable>),
    Uses(String, CompendiumId),
}

/// The Havok members of the game archives among the walked files, by their `ARCHIVE:MEMBER`
/// names (nested binders gone into), with their bytes.
type Members = std::collections::HashMap<PathBuf, Vec<u8>>;

/// The walked files with each game archive among them replaced by its Havok members, named
/// `ARCHIVE:MEMBER`; an archive that does not open is a failure of its own.
fn with_archive_members(files: Vec<PathBuf>, failures: &mut Vec<(PathBuf, String)>) -> (Vec<PathBuf>, Members) {
    use hktypes::archive::{self, Archive};
    let mut out = Vec::with_capacity(files.len());
    let mut members = Members::new();
    for f in files {
        let is_archive = archive::is_archive_file(&f);
        if !is_archive {
            out.push(f);
            continue;
        }
        match Archive::open(&f, &archive::OpenOptions::default()) {
            Ok(a) => a.walk(&mut |member, bytes| {
                let name = PathBuf::from(format!("{}:{member}", f.display()));
                match bytes {
                    Ok(b) if hktypes::sniff(&b).is_some() => {
                        out.push(name.clone());
                        members.insert(name, b);
                    }
                    Ok(_) => {}
                    Err(e) => failures.push((name, e.to_string())),
                }
            }),
            Err(e) => failures.push((f, e.to_string())),
        }
    }
    (out, members)
}

/// The bytes of a walked file or archive member.
fn read_input(path: &Path, members: &Members) -> Result<Vec<u8>, String> {
    match members.get(path) {
        Some(b) => Ok(b.clone()),
        None => std::fs::read(path).map_err(|e| e.to_string()),
    }
}

fn read_tagfile(path: &Path, members: &Members, compendia: &Compendia, cache: &TypeCache) -> Result<(Tables, u64), String> {
    let bytes = read_input(path, members)?;
    let (bytes, _) = crate::inputs::tag0_of(&bytes).map_err(|e| e.to_string())?;
    // Files that share a TYPE section share one table, read once.
    let t = TagFile::read_cached(bytes, &compendia.set_for(path), Some(cache)).map_err(|e| e.to_string())?;
    let n = bytes.len() as u64;
    Ok(match t.source {
        TypeSource::Own => (Tables::Own(t.sdk, t.types), n),
        TypeSource::Compendium { id, .. } => (Tables::Uses(t.sdk, id), n),
    })
}

/// A file and what reading it gave: the value and the bytes read, or why it failed.
type Outcome<T> = (PathBuf, Result<(T, u64), String>);

/// Extracts schemas from `inputs` (files or directories). `progress` is told each file done.
pub fn extract(inputs: &[PathBuf], progress: &(dyn Fn(&Path) + Sync)) -> Result<Extraction, Error> {
    let mut out = Extraction::default();
    // Game archives are gone into: their Havok members count as files, named ARCHIVE:MEMBER.
    let (files, members) = with_archive_members(inputs::walk(inputs)?, &mut out.failures);
    let formats: Vec<(PathBuf, InputKind)> = files
        .par_iter()
        .map(|p| match members.get(p) {
            Some(b) => Ok((p.clone(), inputs::input_kind(b))),
            None => Ok((p.clone(), inputs::input_kind_of(p)?)),
        })
        .collect::<Result<_, Error>>()?;
    let of = |f: InputKind| formats.iter().filter(move |(_, g)| *g == f).map(|(p, _)| p.clone());

    let compendium_files: Vec<PathBuf> = of(InputKind::Tcm0).collect();
    let mut compendia = Compendia::default();
    let read: Vec<Outcome<tagfile::Compendium>> = compendium_files
        .par_iter()
        .map(|p| {
            let r = read_input(p, &members)
                .and_then(|b| tagfile::Compendium::read(&b).map(|c| (c, b.len() as u64)).map_err(|e| e.to_string()));
            progress(p);
            (p.clone(), r)
        })
        .collect();
    for (p, r) in read {
        match r {
            Ok((c, n)) => {
                out.files_read += 1;
                out.bytes_read += n;
                compendia.add(&p, c);
            }
            Err(e) => out.failures.push((p, e)),
        }
    }

    let tagfiles: Vec<PathBuf> = of(InputKind::Tag0).collect();
    let cache = TypeCache::new();
    let results: Vec<Outcome<Tables>> = tagfiles
        .par_iter()
        .map(|p| {
            let r = read_tagfile(p, &members, &compendia, &cache);
            progress(p);
            (p.clone(), r)
        })
        .collect();

    let mut merger = Merger::new();
    // (compendium file, SDKV) -> tagfiles that use it.
    let mut uses: BTreeMap<(PathBuf, String), u32> = BTreeMap::new();
    for (p, r) in results {
        match r {
            Ok((tables, n)) => {
                out.files_read += 1;
                out.bytes_read += n;
                match tables {
                    Tables::Own(sdkv, table) => merger.add(&sdkv, table, Origin::OwnTypes, 1),
                    Tables::Uses(sdkv, id) => {
                        if let Some(f) = compendia.file_for(&p, &id) {
                            *uses.entry((f.to_path_buf(), sdkv)).or_default() += 1;
                        }
                    }
                }
            }
            Err(e) => out.failures.push((p, e)),
        }
    }
    for (path, c) in &compendia.files {
        let ids: Vec<String> = c.ids.iter().map(|i| i.to_string()).collect();
        let mut any = false;
        for ((f, sdkv), n) in &uses {
            if f == path {
                merger.add(sdkv, Arc::clone(&c.types), Origin::Compendium(ids.clone()), *n);
                any = true;
            }
        }
        if !any {
            out.unreferenced.push(path.clone());
        }
    }

    for p in of(InputKind::Registry) {
        let text = std::fs::read_to_string(&p).map_err(|e| Error::io(&p, e))?;
        progress(&p);
        match registry::import(text.trim_start_matches('\u{feff}')) {
            Ok(reg) => {
                out.files_read += 1;
                out.bytes_read += text.len() as u64;
                let sdk = hktypes::tagfile::sdk_version(&reg.sdkv);
                out.recovered_alignment
                    .extend(reg.recovered_alignment.iter().map(|(i, c)| (sdk.clone(), reg.types.full_name(*i), *c)));
                merger.add(&reg.sdkv, Arc::new(reg.types), Origin::Registry, 0);
            }
            Err(e) => out.failures.push((p, e.to_string())),
        }
    }
    let (schemas, conflicts) = merger.finish();
    out.schemas = schemas;
    out.conflicts = conflicts;
    Ok(out)
}
