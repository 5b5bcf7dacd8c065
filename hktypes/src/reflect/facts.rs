//! What is worth computing once for a type table that many files read with: a compendium's table
//! (every tagfile of a game names one of a few) or one a [`crate::tagfile::TypeCache`] hands out.
//! A file read against such a table finds the type hashes and layouts the files before it
//! computed, instead of working them out again.
//!
//! The facts are only as good as the table they were computed from, so they stay tied to it: a
//! [`TableFacts`] holds a weak reference to its table's `Arc` and serves its caches only to that
//! same `Arc`. While the facts exist the table cannot be changed in place (`Arc::get_mut` refuses,
//! and `Arc::make_mut` moves the value to a new allocation, which the facts do not answer to);
//! any other table gets fresh layouts and a fresh hasher.

use super::hash::{HashMemo, Hasher, Recipe};
use super::layout::{LayoutCache, Layouts};
use super::TypeTable;
use std::sync::{Arc, OnceLock, Weak};

/// Hashes (by recipe) and layouts of one shared type table, filled as files need them; safe to
/// share between threads.
pub struct TableFacts {
    table: Weak<TypeTable>,
    /// By [`Recipe`] (its position in [`Recipe::ALL`]); made when a file first hashes by it.
    hashes: [OnceLock<HashMemo>; 2],
    layouts: LayoutCache,
}

impl TableFacts {
    /// Facts of `table`, none computed yet.
    pub fn new(table: &Arc<TypeTable>) -> Arc<TableFacts> {
        Arc::new(TableFacts {
            table: Arc::downgrade(table),
            hashes: [OnceLock::new(), OnceLock::new()],
            layouts: LayoutCache::new(table.types.len()),
        })
    }

    /// Whether these are the facts of `table` (the same `Arc`, not an equal table).
    pub fn is_for(&self, table: &Arc<TypeTable>) -> bool {
        std::ptr::eq(self.table.as_ptr(), Arc::as_ptr(table))
    }

    /// Layouts of `table` that share what earlier files computed, when these are its facts;
    /// otherwise layouts of its own.
    pub fn layouts<'t>(&'t self, table: &'t Arc<TypeTable>) -> Layouts<'t> {
        if self.is_for(table) {
            Layouts::with_cache(table, &self.layouts)
        } else {
            Layouts::new(table)
        }
    }

    /// A hasher of `table` by `recipe` that shares the hashes earlier files computed, when these
    /// are its facts; otherwise a hasher of its own.
    pub fn hasher<'t>(&'t self, table: &'t Arc<TypeTable>, recipe: Recipe) -> Hasher<'t> {
        if !self.is_for(table) {
            return Hasher::new(table, recipe);
        }
        let slot = Recipe::ALL.iter().position(|&r| r == recipe).unwrap_or(0);
        let memo = self.hashes[slot].get_or_init(|| HashMemo::new(table.types.len()));
        Hasher::with_memo(table, recipe, memo)
    }
}

impl std::fmt::Debug for TableFacts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableFacts").field("types", &self.layouts.len()).finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reflect::{TypeDef, TypeTable};

    fn table(names: &[&str]) -> Arc<TypeTable> {
        let mut t = TypeTable::default();
        t.types.push(TypeDef::default());
        for n in names {
            t.types.push(TypeDef { name: (*n).into(), ..TypeDef::default() });
        }
        Arc::new(t)
    }

    #[test]
    fn facts_serve_only_the_table_they_were_made_for() {
        let a = table(&["hkA"]);
        let equal = table(&["hkA"]);
        let facts = TableFacts::new(&a);
        assert!(facts.is_for(&a));
        assert!(facts.is_for(&Arc::clone(&a)));
        assert!(!facts.is_for(&equal), "an equal table in another Arc is not the table the facts describe");
    }

    #[test]
    fn a_table_with_facts_cannot_be_changed_in_place() {
        let mut a = table(&["hkA"]);
        let facts = TableFacts::new(&a);
        assert!(Arc::get_mut(&mut a).is_none());
        Arc::make_mut(&mut a).types[1].name = "hkB".into();
        assert!(!facts.is_for(&a), "a table changed through make_mut no longer answers to the old facts");
    }

    #[test]
    fn shared_hashes_equal_hashes_of_a_hasher_of_its_own() {
        let a = table(&["hkA", "hkB"]);
        let facts = TableFacts::new(&a);
        for recipe in Recipe::ALL {
            let own: Vec<_> = (1..3).map(|i| Hasher::new(&a, recipe).hash(i).unwrap()).collect();
            let first: Vec<_> = (1..3).map(|i| facts.hasher(&a, recipe).hash(i).unwrap()).collect();
            // The second hasher finds the first one's hashes in the memo.
            let again: Vec<_> = (1..3).map(|i| facts.hasher(&a, recipe).hash(i).unwrap()).collect();
            assert_eq!(own, first);
            assert_eq!(own, again);
        }
    }
}
