//! TCM0 type compendia: `TCID` (the eight-byte ids by which tagfiles name the compendium in their
//! `TCRF`) and one `TYPE` section shared by every tagfile that names one of those ids.

use super::section::{read_root, Section};
use super::type_section;
use crate::error::{ContainerError, ErrorKind, Result};
use crate::reflect::facts::TableFacts;
use crate::reflect::TypeTable;
use std::collections::HashMap;
use std::sync::Arc;

/// An eight-byte compendium id, shown as 16 hex digits in file order.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CompendiumId(pub [u8; 8]);

impl std::fmt::Display for CompendiumId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl std::fmt::Debug for CompendiumId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CompendiumId({self})")
    }
}

/// A read compendium.
#[derive(Clone, Debug)]
pub struct Compendium {
    /// The ids the compendium answers to (its `TCID`): its own and those of the compendia it extends.
    pub ids: Vec<CompendiumId>,
    /// Its type table, shared with the tagfiles that read against it.
    pub types: Arc<TypeTable>,
    /// The hashes and layouts of `types` those tagfiles share.
    pub facts: Arc<TableFacts>,
}

impl Compendium {
    /// Reads a whole TCM0 file. The error is the container's or the type table's.
    pub fn read(data: &[u8]) -> Result<Self> {
        let root = read_root(data)?;
        Self::from_root(&root)
    }

    pub(crate) fn from_root(root: &Section<'_>) -> Result<Self> {
        if root.tag.0 != *b"TCM0" {
            return Err(ContainerError::at(0, ErrorKind::BadMagic(root.tag.as_str())).into());
        }
        let tcid = root.require(&[b"TCID"]).map_err(ContainerError::from)?;
        if tcid.body.len() % 8 != 0 {
            return Err(tcid.locate(ContainerError::invalid(tcid.body_offset(), "TCID size is not a multiple of 8")).into());
        }
        let ids = tcid.body.chunks_exact(8).map(|c| CompendiumId(c.try_into().unwrap_or([0; 8]))).collect();
        let ty = root.require(&[b"TYPE"]).map_err(ContainerError::from)?;
        let types = Arc::new(type_section::read(ty)?);
        let facts = TableFacts::new(&types);
        Ok(Compendium { ids, types, facts })
    }
}

/// Compendia looked up by id, each table with the facts ([`TableFacts`]) of the files that read
/// against it.
#[derive(Clone, Debug, Default)]
pub struct CompendiumSet {
    by_id: HashMap<CompendiumId, (Arc<TypeTable>, Arc<TableFacts>)>,
}

impl CompendiumSet {
    /// An empty set (tagfiles with their own `TYPE` need no more).
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers `c` under each of its ids.
    pub fn add(&mut self, c: &Compendium) {
        for id in &c.ids {
            self.add_as(*id, c);
        }
    }

    /// Registers `c` under one id (one it answers to or not); an id given twice keeps the later
    /// compendium.
    pub fn add_as(&mut self, id: CompendiumId, c: &Compendium) {
        self.by_id.insert(id, (Arc::clone(&c.types), Arc::clone(&c.facts)));
    }

    /// Registers one id with a table of no compendium read (its facts start empty); an id given
    /// twice keeps the later table.
    pub fn insert(&mut self, id: CompendiumId, types: Arc<TypeTable>) {
        let facts = TableFacts::new(&types);
        self.by_id.insert(id, (types, facts));
    }

    /// The table registered under `id`.
    pub fn get(&self, id: &CompendiumId) -> Option<&Arc<TypeTable>> {
        self.by_id.get(id).map(|(t, _)| t)
    }

    /// The table registered under `id`, with its facts.
    pub fn get_shared(&self, id: &CompendiumId) -> Option<(&Arc<TypeTable>, &Arc<TableFacts>)> {
        self.by_id.get(id).map(|(t, f)| (t, f))
    }

    /// Number of ids registered.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// Whether no id is registered.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }
}
