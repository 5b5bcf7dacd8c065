//! Merges the type tables of many files into one [`Schema`] per SDK version.
//!
//! A type is identified by its full name and layout (its computed hash). Tables are collected
//! first and keyed only at the end, because whether a name needs a `#hash` suffix depends on every
//! table of the SDK. Identical tables (a compendium shared by many files, or the same own `TYPE`
//! section in many files) are merged before any work is done on them.

use super::model::{Arg, Field, Hex, Interface, Param, Schema, Seen, Sources, Type};
use hktypes::reflect::hash::{Hasher, Recipe};
use hktypes::reflect::{TemplateArg, TypeIndex, TypeTable};
use hktypes::tagfile::sdk_version;
use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{Hash, Hasher as _};
use std::sync::Arc;

/// Where a table came from.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Origin {
    /// A compendium with these ids.
    Compendium(Vec<String>),
    /// A tagfile's own `TYPE` section.
    OwnTypes,
    /// The runtime type registry.
    Registry,
}

struct TableUse {
    table: Arc<TypeTable>,
    origin: Origin,
    /// Tagfiles that take their types from this table.
    files: u32,
}

#[derive(Default)]
struct SdkTables {
    sdkv: String,
    recipe: Option<Recipe>,
    tables: Vec<TableUse>,
    by_content: HashMap<u64, usize>,
    /// Tables added before, by address: a table shared between files (read once through a cache)
    /// is recognised without hashing it again.
    by_address: HashMap<usize, usize>,
    tagfiles: u32,
}

/// A merge conflict: one key, two different records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    /// The SDK version.
    pub sdk: String,
    /// The type key.
    pub key: String,
}

/// Collects tables, then builds one schema per SDK.
#[derive(Default)]
pub struct Merger {
    sdks: BTreeMap<String, SdkTables>,
}

fn content_hash(t: &TypeTable) -> u64 {
    let mut h = DefaultHasher::new();
    t.types.hash(&mut h);
    h.finish()
}

impl Merger {
    /// An empty merger.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a table under the `SDKV` string `sdkv`. `files` tagfiles use it (0 for a compendium
    /// that no input tagfile names, or the registry).
    pub fn add(&mut self, sdkv: &str, table: Arc<TypeTable>, origin: Origin, files: u32) {
        let sdk = sdk_version(sdkv);
        let acc = self.sdks.entry(sdk).or_default();
        acc.sdkv = sdkv.to_owned();
        acc.recipe.get_or_insert(Recipe::for_sdk(sdkv));
        acc.tagfiles += files;
        if let Some(&i) = acc.by_address.get(&(Arc::as_ptr(&table) as usize)) {
            let u = &mut acc.tables[i];
            if u.origin == origin {
                u.files += files;
                return;
            }
        }
        let key = content_hash(&table);
        if let Some(&i) = acc.by_content.get(&key) {
            let u = &mut acc.tables[i];
            if *u.table == *table {
                u.files += files;
                if let (Origin::Compendium(a), Origin::Compendium(b)) = (&mut u.origin, &origin) {
                    a.extend(b.iter().cloned());
                    a.sort();
                    a.dedup();
                } else if origin < u.origin {
                    u.origin = origin;
                }
                return;
            }
        }
        acc.by_content.insert(key, acc.tables.len());
        acc.by_address.insert(Arc::as_ptr(&table) as usize, acc.tables.len());
        acc.tables.push(TableUse { table, origin, files });
    }

    /// Builds the schemas, and lists any key under which two different records were seen.
    pub fn finish(mut self) -> (Vec<Schema>, Vec<Conflict>) {
        let mut out = Vec::new();
        let mut conflicts = Vec::new();
        for (sdk, mut acc) in std::mem::take(&mut self.sdks) {
            acc.tables.sort_by(|a, b| a.origin.cmp(&b.origin).then(a.files.cmp(&b.files).reverse()));
            let (schema, c) = build(&sdk, acc);
            conflicts.extend(c.into_iter().map(|key| Conflict { sdk: sdk.clone(), key }));
            out.push(schema);
        }
        (out, conflicts)
    }
}

fn is_declaration(t: &hktypes::reflect::TypeDef) -> bool {
    t.parent == 0 && t.presence() == 0
}

fn build(sdk: &str, acc: SdkTables) -> (Schema, Vec<String>) {
    let recipe = acc.recipe.unwrap_or_default();
    // Per table: full name and computed hash of each type.
    let mut names: Vec<Vec<String>> = Vec::with_capacity(acc.tables.len());
    let mut hashes: Vec<Vec<u32>> = Vec::with_capacity(acc.tables.len());
    // Distinct defined layouts per full name.
    let mut layouts: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
    for u in &acc.tables {
        let t = &*u.table;
        let mut hasher = Hasher::new(t, recipe);
        let n: Vec<String> = (0..t.types.len() as TypeIndex).map(|i| if i == 0 { String::new() } else { t.full_name(i) }).collect();
        let h: Vec<u32> = (0..t.types.len() as TypeIndex).map(|i| if i == 0 { 0 } else { hasher.hash(i).unwrap_or(0) }).collect();
        for (i, ty) in t.iter() {
            if !is_declaration(ty) {
                layouts.entry(n[i as usize].clone()).or_default().insert(h[i as usize]);
            }
        }
        names.push(n);
        hashes.push(h);
    }
    let key_of = |name: &str, hash: u32, decl: bool| -> String {
        match layouts.get(name) {
            Some(set) if set.len() > 1 && !decl => format!("{name}#{hash:08x}"),
            _ => name.to_owned(),
        }
    };

    let mut types: BTreeMap<String, Type> = BTreeMap::new();
    let mut conflicts = BTreeSet::new();
    let mut compendia = BTreeSet::new();
    let mut registry = false;
    for (ti, u) in acc.tables.iter().enumerate() {
        let t = &*u.table;
        let key = |i: TypeIndex| -> String {
            match t.get(i) {
                None => String::new(),
                Some(ty) => key_of(&names[ti][i as usize], hashes[ti][i as usize], is_declaration(ty)),
            }
        };
        let mut seen = Seen { files: u.files, compendia: Vec::new(), registry: false };
        match &u.origin {
            Origin::Compendium(ids) => {
                seen.compendia = ids.clone();
                compendia.extend(ids.iter().cloned());
            }
            Origin::Registry => {
                seen.registry = true;
                registry = true;
            }
            Origin::OwnTypes => {}
        }
        for (i, ty) in t.iter() {
            let k = key(i);
            // A declaration adds nothing where the name is defined somewhere.
            if is_declaration(ty) && layouts.contains_key(&names[ti][i as usize]) {
                continue;
            }
            let rec = Type {
                key: k.clone(),
                name: ty.name.to_string(),
                params: t
                    .params_of(ty)
                    .iter()
                    .map(|p| Param {
                        name: p.name.to_string(),
                        arg: match p.arg {
                            TemplateArg::Type(x) => Arg::Type(key(x)),
                            TemplateArg::Value(v) => Arg::Value(v),
                        },
                    })
                    .collect(),
                parent: (ty.parent != 0).then(|| key(ty.parent)),
                format: ty.format.map(Hex),
                subtype: ty.subtype.map(key),
                version: ty.version,
                size: ty.size.map(|s| s.size),
                align: ty.size.map(|s| s.align),
                flags: ty.flags.map(Hex),
                properties: ty.properties,
                fields: ty.fields.map(|_| {
                    t.fields_of(ty)
                        .iter()
                        .map(|f| Field { name: f.name.to_string(), flags: Hex(f.flags), offset: f.offset, ty: key(f.ty), aux: f.aux })
                        .collect()
                }),
                interfaces: ty
                    .interfaces
                    .as_ref()
                    .map(|is| is.iter().map(|x| Interface { ty: key(x.ty), value: x.value }).collect()),
                hash: ty.hash.map(Hex),
                computed: Hex(hashes[ti][i as usize]),
                seen: seen.clone(),
            };
            match types.get_mut(&k) {
                None => {
                    types.insert(k, rec);
                }
                Some(existing) => {
                    if !same_record(existing, &rec) {
                        conflicts.insert(k);
                        continue;
                    }
                    // A stored hash seen anywhere is kept.
                    if existing.hash.is_none() {
                        existing.hash = rec.hash;
                    }
                    merge_seen(&mut existing.seen, &rec.seen);
                }
            }
        }
    }
    let variants = layouts
        .iter()
        .filter(|(_, set)| set.len() > 1)
        .map(|(name, set)| (name.clone(), set.iter().map(|h| format!("{name}#{h:08x}")).collect()))
        .collect();
    let schema = Schema {
        sdk: sdk.to_owned(),
        sdkv: acc.sdkv,
        recipe,
        sources: Sources { tagfiles: acc.tagfiles, compendia: compendia.into_iter().collect(), registry },
        variants,
        types,
    };
    (schema, conflicts.into_iter().collect())
}

/// Two records of one key agree when everything but where-seen and the stored hash agrees (a
/// table need not store a hash it could).
fn same_record(a: &Type, b: &Type) -> bool {
    let strip = |t: &Type| Type { seen: Seen::default(), hash: None, ..t.clone() };
    strip(a) == strip(b) && (a.hash.is_none() || b.hash.is_none() || a.hash == b.hash)
}

fn merge_seen(into: &mut Seen, from: &Seen) {
    into.files += from.files;
    into.registry |= from.registry;
    for c in &from.compendia {
        if !into.compendia.contains(c) {
            into.compendia.push(c.clone());
        }
    }
    into.compendia.sort();
}
