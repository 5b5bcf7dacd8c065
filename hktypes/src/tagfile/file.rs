//! A TAG0 tagfile split into its parts: `SDKV`, `DATA`, a `TYPE` section of its own or a `TCRF`
//! reference to a compendium, and `INDX` with `ITEM` and `PTCH`. Spec: "Sections".

use super::compendium::{CompendiumId, CompendiumSet};
use super::index::{self, Item, Patch};
use super::section::{read_root_and_rest, Section};
use super::type_section;
use crate::error::{ContainerError, ErrorKind, Result, TypeTableError};
use crate::reflect::facts::TableFacts;
use crate::reflect::hash::{Hasher, Recipe};
use crate::reflect::layout::Layouts;
use crate::reflect::TypeTable;
use std::sync::Arc;

/// Where a tagfile's types come from.
#[derive(Clone, Debug)]
pub enum TypeSource {
    /// The file's own `TYPE` section.
    Own,
    /// A `TCRF` naming a compendium; `rest` holds the bytes after the id as stored.
    Compendium {
        /// The compendium id (the first eight bytes of `TCRF`).
        id: CompendiumId,
        /// What `TCRF` holds after the id, kept for writing.
        rest: Vec<u8>,
    },
}

/// A read TAG0 file. `data` borrows the file's `DATA` body.
#[derive(Clone, Debug)]
pub struct TagFile<'a> {
    /// The `SDKV` string, e.g. `20180100`.
    pub sdk: String,
    /// The `DATA` body: every item's bytes.
    pub data: &'a [u8],
    /// Absolute offset of the `DATA` body.
    pub data_offset: u64,
    /// Where the types came from: the file's own `TYPE` section or a compendium.
    pub source: TypeSource,
    /// The type table the items are described by.
    pub types: Arc<TypeTable>,
    /// Hashes and layouts of `types` shared with the other files read against the same table (a
    /// compendium's, or one from a [`TypeCache`]); `None` for a table this file alone holds.
    pub facts: Option<Arc<TableFacts>>,
    /// The `ITEM` records; index 0 is the null item.
    pub items: Vec<Item>,
    /// The `PTCH` records, as stored.
    pub patches: Vec<Patch>,
    /// The `SDKV` body as stored.
    pub sdkv_raw: &'a [u8],
    /// The whole `TYPE` section (header included) of a file with its own types, as stored, so a
    /// writer can give it back unchanged.
    pub type_section: Option<&'a [u8]>,
    /// The bytes after the `TAG0` section, as stored (empty in stock Havok files; Helldivers 2
    /// `.physics` files carry data of their own there). Writers give them back verbatim.
    pub trailing: &'a [u8],
}

/// The compendium a TAG0 file names, if any, without reading the rest of it.
pub fn compendium_reference(bytes: &[u8]) -> Result<Option<CompendiumId>, ContainerError> {
    let (root, _) = read_root_and_rest(bytes)?;
    Ok(root.child(b"TCRF").and_then(|s| s.body.get(..8)).map(|b| CompendiumId(b.try_into().unwrap_or([0; 8]))))
}

impl<'a> TagFile<'a> {
    /// Reads a TAG0 file; a file that names a compendium takes its types from `compendia`. The
    /// error says which layer failed: the container, the type table or the item tables.
    pub fn read(bytes: &'a [u8], compendia: &CompendiumSet) -> Result<Self> {
        Self::read_cached(bytes, compendia, None)
    }

    /// Like [`TagFile::read`], taking an own `TYPE` section from `cache` when a file with the same
    /// section bytes was read before (the files of one game share a few hundred tables).
    pub fn read_cached(bytes: &'a [u8], compendia: &CompendiumSet, cache: Option<&TypeCache>) -> Result<Self> {
        let (root, trailing) = read_root_and_rest(bytes)?;
        if root.tag.0 != *b"TAG0" {
            return Err(ContainerError::at(0, ErrorKind::BadMagic(root.tag.as_str())).into());
        }
        let sdkv = root.require(&[b"SDKV"]).map_err(ContainerError::from)?;
        let sdk = std::str::from_utf8(sdkv.body)
            .map_err(|_| sdkv.locate(ContainerError::at(sdkv.body_offset(), ErrorKind::BadUtf8)))?
            .trim_end_matches('\0')
            .to_owned();
        let data = root.require(&[b"DATA"]).map_err(ContainerError::from)?;
        let (source, types, facts) = Self::read_types(bytes, &root, compendia, cache)?;
        let indx = root.require(&[b"INDX"]).map_err(ContainerError::from)?;
        let item = indx.require(&[b"ITEM"]).map_err(ContainerError::from)?;
        let items = index::read_items(item)?;
        let patches = match indx.child(b"PTCH") {
            Some(p) => index::read_patches(p)?,
            None => Vec::new(),
        };
        let type_section = root.child(b"TYPE").map(|t| {
            let start = t.start as usize;
            &bytes[start..start + t.body.len() + super::section::HEADER_LEN]
        });
        Ok(TagFile {
            sdk,
            data: data.body,
            data_offset: data.body_offset(),
            source,
            types,
            facts,
            items,
            patches,
            sdkv_raw: sdkv.body,
            type_section,
            trailing,
        })
    }

    fn read_types(
        bytes: &[u8],
        root: &Section<'_>,
        compendia: &CompendiumSet,
        cache: Option<&TypeCache>,
    ) -> Result<(TypeSource, Arc<TypeTable>, Option<Arc<TableFacts>>)> {
        if let Some(ty) = root.child(b"TYPE") {
            let (table, facts) = match cache {
                None => (Arc::new(type_section::read(ty)?), None),
                Some(cache) => {
                    let start = ty.start as usize;
                    let raw = &bytes[start..start + ty.body.len() + super::section::HEADER_LEN];
                    let (table, facts) = cache.get_or_read_shared(raw, || type_section::read(ty))?;
                    (table, Some(facts))
                }
            };
            return Ok((TypeSource::Own, table, facts));
        }
        let tcrf = root.require(&[b"TYPE", b"TCRF"]).map_err(ContainerError::from)?;
        let id: [u8; 8] = tcrf
            .body
            .get(..8)
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| tcrf.locate(ContainerError::at(tcrf.body_offset(), ErrorKind::Eof { need: 8, have: tcrf.body.len() as u64 })))?;
        let id = CompendiumId(id);
        let (types, facts) = compendia
            .get_shared(&id)
            .ok_or_else(|| tcrf.locate(ContainerError::at(tcrf.body_offset(), ErrorKind::MissingCompendium(id.to_string()))))?;
        Ok((TypeSource::Compendium { id, rest: tcrf.body[8..].to_vec() }, Arc::clone(types), Some(Arc::clone(facts))))
    }

    /// Layouts of the file's types, sharing what other files of the same table computed when the
    /// table is shared ([`TagFile::facts`]).
    pub fn layouts(&self) -> Layouts<'_> {
        match &self.facts {
            Some(f) => f.layouts(&self.types),
            None => Layouts::new(&self.types),
        }
    }

    /// A hasher of the file's types by its SDK's recipe, sharing hashes as [`TagFile::layouts`]
    /// shares layouts.
    pub fn hasher(&self) -> Hasher<'_> {
        let recipe = Recipe::for_sdk(&self.sdk);
        match &self.facts {
            Some(f) => f.hasher(&self.types, recipe),
            None => Hasher::new(&self.types, recipe),
        }
    }

    /// The SDK version as `2018.1` from the `SDKV` string `20180100`.
    pub fn sdk_version(&self) -> String {
        sdk_version(&self.sdk)
    }
}

/// `20180100` -> `2018.1`; anything else is returned as it is.
pub fn sdk_version(sdkv: &str) -> String {
    if sdkv.len() == 8 && sdkv.bytes().all(|b| b.is_ascii_digit()) {
        let year = &sdkv[..4];
        let minor: u32 = sdkv[4..6].parse().unwrap_or(0);
        let patch: u32 = sdkv[6..8].parse().unwrap_or(0);
        if patch == 0 {
            format!("{year}.{minor}")
        } else {
            format!("{year}.{minor}.{patch}")
        }
    } else {
        sdkv.to_owned()
    }
}

/// Type tables already read, by the exact bytes of their `TYPE` section, each with the facts
/// ([`TableFacts`]) the files that read it share. Shared between threads.
#[derive(Default)]
pub struct TypeCache {
    tables: std::sync::Mutex<std::collections::HashMap<Vec<u8>, Shared>>,
}

/// A table of a [`TypeCache`] and its facts.
type Shared = (Arc<TypeTable>, Arc<TableFacts>);

impl TypeCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// The table of the section `raw`, read by `read` the first time these bytes are met. Two
    /// threads meeting new bytes at once may both read them; the first to finish is kept.
    pub fn get_or_read(
        &self,
        raw: &[u8],
        read: impl FnOnce() -> Result<TypeTable, TypeTableError>,
    ) -> Result<Arc<TypeTable>, TypeTableError> {
        self.get_or_read_shared(raw, read).map(|(table, _)| table)
    }

    /// [`TypeCache::get_or_read`], with the table's facts.
    pub fn get_or_read_shared(
        &self,
        raw: &[u8],
        read: impl FnOnce() -> Result<TypeTable, TypeTableError>,
    ) -> Result<Shared, TypeTableError> {
        if let Some((t, f)) = self.lock().get(raw) {
            return Ok((Arc::clone(t), Arc::clone(f)));
        }
        let table = Arc::new(read()?);
        let facts = TableFacts::new(&table);
        let (t, f) = self.lock().entry(raw.to_vec()).or_insert((table, facts)).clone();
        Ok((t, f))
    }

    /// Distinct tables held.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no table is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<Vec<u8>, Shared>> {
        // A panic while holding the lock cannot leave the map half-updated, so a poisoned lock is
        // still usable.
        self.tables.lock().unwrap_or_else(|e| e.into_inner())
    }
}
