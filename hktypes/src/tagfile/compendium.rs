//! TCM0 type compendia: `TCID` (the eight-byte ids by which tagfiles name the compendium in their
//! `TCRF`) and one `TYPE` section shared by every tagfile that names one of those ids.

use super::section::{read_root, Section};
use super::type_section;
use crate::error::{ContainerError, ErrorKind, Result};
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
        let types = type_section::read(ty)?;
        Ok(Compendium { ids, types: Arc::new(types) })
    }
}

/// Compendia looked up by id.
#[derive(Clone, Debug, Default)]
pub struct CompendiumSet {
    by_id: HashMap<CompendiumId, Arc<TypeTable>>,
}

impl CompendiumSet {
    /// An empty set (tagfiles with their own `TYPE` need no more).
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers `c` under each of its ids.
    pub fn add(&mut self, c: &Compendium) {
        for id in &c.ids {
            self.by_id.insert(*id, Arc::clone(&c.types));
        }
    }

    /// Registers one id; an id given twice keeps the later table.
    pub fn insert(&mut self, id: CompendiumId, types: Arc<TypeTable>) {
        self.by_id.insert(id, types);
    }

    /// The table registered under `id`.
    pub fn get(&self, id: &CompendiumId) -> Option<&Arc<TypeTable>> {
        self.by_id.get(id)
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
