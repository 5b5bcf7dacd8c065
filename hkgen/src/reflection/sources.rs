//! Building the hkClass schemas of the packfile SDKs from everything the inputs hold: the BotW
//! Switch reflection dump and its signature list (2014.2), the hkClass objects packfiles embed in
//! `__types__`, the DSMapStudio class XML and the FromSoft type table (2014.1), the serde-hkx
//! class JSON (2010.2), and the signatures every packfile stores in `__classnames__`. The entry point is [`extract`]; [`super::snapshot`] writes the result under
//! `schemas/<sdk>/classes/`.
//!
//! Per SDK the sources are taken in order of how much they say, and a class comes from the first
//! that has it; a class from a later source (or another SDK) is only taken when its signature,
//! computed in the schema being built, equals what that SDK's files store for it:
//!
//! - 2014.2: the BotW dump, its interface counts completed from its own offsets.
//! - 2014.1: hkClass objects embedded in 2014.1 files; the DSMapStudio XML (every Dark Souls III
//!   class; one the files name only where its signature agrees); the FromSoft table completed
//!   from 2014.2;
//!   then 2014.2 records that give the 2014.1 files' signatures; last the records transcribed into
//!   the repository's `classdata/` ([`transcribed`]) for the classes still missing or wrong.
//! - 2013.1 (no dump of its own): 2014.1 records, then 2014.2 records, that give the 2013.1
//!   files' signatures, then the 2013.1 records transcribed into `classdata/` where 2013.1
//!   differs; the classes none gives are listed in [`Extraction::unresolved`].
//! - 2010.2: hkClass objects embedded in 2010.2 files, then the serde-hkx JSON (every Skyrim
//!   class; one the files name only where its signature agrees), then the records derived into
//!   `classdata/` for FromSoftware's classes of Dark Souls' map collisions ([`transcribed`]; held
//!   as derived where no file of the inputs names them).
//! - 5.5: hkClass objects embedded in 5.5 files, then 2010.2 records whose signatures agree
//!   with the 5.5 files, then the 5.5 records derived into `classdata/` ([`transcribed`]),
//!   with the 2010.2 records they need.
//! - 6.6, 7.1 and 2011.1 (no dump, no embedded hkClass objects in the corpus): the records of
//!   their neighbours (5.5 and 2010.2; 2010.2) overlaid with the differences derived into
//!   `classdata/` ([`transcribed::DERIVED`]), then each neighbour's records on its own. 2011.2 files
//!   store 2011.1's signatures and 2010.1 files 2010.2's and 7.1's: they are read through those
//!   schemas (the nearest SDK's records whose signatures agree), as 2012.2 files through 2013.1's.
//! - Any other SDK whose files embed hkClass objects: those records.
//!
//! A class the files name whose signature no source gives is listed in
//! [`Extraction::unresolved`], with the files that name it in [`Extraction::unresolved_in`].

use super::facts::SourceFacts;
use super::{botw, dsmapstudio, fromsoft, serde_hkx, signature, transcribed, types_section};
use crate::inputs::{input_kind_of, walk, InputKind};
use crate::schema::model::{ClassRecord, ClassSchema, Hex, MemberType};
use crate::error::Error;
use hktypes::packfile::PackFile;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The class schemas built, and what could not be resolved.
#[derive(Clone, Debug, Default)]
pub struct Extraction {
    /// One class schema per SDK: 2014.2, 2014.1 and 2013.1 first, then 2010.2, 5.5 and any other
    /// SDK whose files embed hkClass objects, then 6.6, 7.1 and 2011.1.
    pub schemas: Vec<ClassSchema>,
    /// Per SDK, classes its files name whose signature no source recomputes.
    pub unresolved: BTreeMap<String, Vec<String>>,
    /// Per SDK, each unresolved class with the files that name it (paths as walked).
    pub unresolved_in: BTreeMap<String, BTreeMap<String, Vec<String>>>,
}

/// `hk_2014.1.0-r1` -> `2014.1` (defined in `hktypes`, which `hktypes::open` and the compiled-in
/// registry use too).
pub use hktypes::packfile::sdk_of_contents_version;

/// What the inputs hold.
#[derive(Default)]
struct Found {
    botw_json: Option<String>,
    botw_tsv: Option<String>,
    fromsoft_xml: Option<String>,
    /// The serde-hkx class files (2010.2), as (file name, contents).
    serde_hkx: Vec<(String, String)>,
    /// The DSMapStudio class files (2014.1), as (file name, contents).
    dsmapstudio: Vec<(String, String)>,
    /// SDK -> class -> signatures the files store.
    stored: BTreeMap<String, BTreeMap<String, BTreeSet<u32>>>,
    /// SDK -> class -> the files that name it.
    users: BTreeMap<String, BTreeMap<String, Vec<String>>>,
    /// SDK -> schemas read from embedded hkClass objects (in path order).
    embedded: BTreeMap<String, Vec<(String, ClassSchema)>>,
}

fn read_text(p: &Path) -> Result<String, Error> {
    std::fs::read_to_string(p).map_err(|e| Error::io(p, e))
}

fn gather(inputs: &[PathBuf]) -> Result<Found, Error> {
    let mut found = Found::default();
    for path in walk(inputs)? {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name == "botw-2014.2-switch-reflection.json" {
            found.botw_json = Some(read_text(&path)?);
            continue;
        }
        if name == "botw-2014.2-signatures.tsv" {
            found.botw_tsv = Some(read_text(&path)?);
            continue;
        }
        if name == "fromsoft-2014.1-types.xml" {
            found.fromsoft_xml = Some(read_text(&path)?);
            continue;
        }
        // The class sources kept one class per file, known by the folder they are in.
        let dir = |p: Option<&Path>| p.and_then(Path::file_name).and_then(|n| n.to_str()).unwrap_or("").to_owned();
        let (parent, grandparent) = (dir(path.parent()), dir(path.parent().and_then(Path::parent)));
        let ext = path.extension().and_then(|x| x.to_str()).unwrap_or("");
        if parent == "classes" && grandparent == serde_hkx::FOLDER && ext == "json" {
            found.serde_hkx.push((name.to_owned(), read_text(&path)?));
            continue;
        }
        if parent == dsmapstudio::FOLDER && ext == "xml" {
            found.dsmapstudio.push((name.to_owned(), read_text(&path)?));
            continue;
        }
        if input_kind_of(&path)? != InputKind::Packfile {
            continue;
        }
        let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
        let file = PackFile::read(&bytes).map_err(|e| Error::Havok(e.in_file(path.display().to_string())))?;
        let sdk = sdk_of_contents_version(&file.contents_version());
        let stored = found.stored.entry(sdk.clone()).or_default();
        let users = found.users.entry(sdk.clone()).or_default();
        for c in &file.class_names().entries {
            stored.entry(c.name.clone()).or_default().insert(c.signature);
            let list = users.entry(c.name.clone()).or_default();
            if list.last() != Some(&path.display().to_string()) {
                list.push(path.display().to_string());
            }
        }
        let embeds = file
            .section_index(hktypes::packfile::TYPES)
            .is_some_and(|i| file.objects(i).iter().any(|(_, c)| c.name == "hkClass"));
        if embeds {
            let (schema, _) = types_section::import(&file, &sdk)?;
            found.embedded.entry(sdk).or_default().push((path.display().to_string(), schema));
        }
    }
    Ok(found)
}

/// Adds `name` from `from` to `to`, with every class and enum its layout and signature need that
/// `to` lacks (parents, struct classes, enums; not the classes it points to, which are taken on
/// their own merits); returns what it added.
fn add_closure(to: &mut ClassSchema, from: &ClassSchema, name: &str) -> (Vec<String>, Vec<String>) {
    let mut added_classes = Vec::new();
    let mut added_enums = Vec::new();
    let mut queue = vec![name.to_owned()];
    while let Some(n) = queue.pop() {
        if to.classes.contains_key(&n) {
            continue;
        }
        let Some(c) = from.classes.get(&n) else { continue };
        to.classes.insert(n.clone(), c.clone());
        added_classes.push(n);
        queue.extend(c.parent.iter().cloned());
        queue.extend(
            c.members
                .iter()
                .filter(|m| m.ty != MemberType::Pointer && m.subtype != MemberType::Pointer)
                .filter_map(|m| m.class.clone()),
        );
        for e in c.enums.iter().chain(c.members.iter().filter_map(|m| m.enumeration.as_ref())) {
            if !to.enums.contains_key(e) {
                if let Some(rec) = from.enums.get(e) {
                    to.enums.insert(e.clone(), rec.clone());
                    added_enums.push(e.clone());
                }
            }
        }
    }
    (added_classes, added_enums)
}

/// [`add_closure`], kept only when the signature of `name` then equals one of `want`.
fn adopt(to: &mut ClassSchema, from: &ClassSchema, name: &str, want: &BTreeSet<u32>) -> bool {
    let (classes, enums) = add_closure(to, from, name);
    if signature::class_signature(to, name).is_ok_and(|s| want.contains(&s)) {
        return true;
    }
    for c in classes {
        to.classes.remove(&c);
    }
    for e in enums {
        to.enums.remove(&e);
    }
    false
}

/// [`adopt`] for a class `to` may already hold with another signature: the class is taken from
/// `from` (with what it needs that `to` lacks) only when its signature then equals one of `want`
/// and every class of `stored` that recomputed before still does.
fn adopt_in_place_of(
    to: &mut ClassSchema,
    from: &ClassSchema,
    name: &str,
    want: &BTreeSet<u32>,
    stored: Option<&BTreeMap<String, BTreeSet<u32>>>,
) -> bool {
    let recomputes = |s: &ClassSchema| -> BTreeSet<String> {
        stored
            .into_iter()
            .flatten()
            .filter(|(n, sigs)| signature::class_signature(s, n).is_ok_and(|x| sigs.contains(&x)))
            .map(|(n, _)| n.clone())
            .collect()
    };
    if !to.classes.contains_key(name) {
        return adopt(to, from, name, want);
    }
    let before = recomputes(to);
    let mut trial = to.clone();
    trial.classes.remove(name);
    if !adopt(&mut trial, from, name, want) || !recomputes(&trial).is_superset(&before) {
        return false;
    }
    *to = trial;
    true
}

/// Takes from `from` the classes (with what they need) that a class of `to` needs for its layout
/// and signature (a parent, a struct member's class) and `to` lacks, keeping them only where the
/// signature `src` states for that class then recomputes (`hkpSimpleShapePhantom`, whose element
/// class DSMapStudio lacks); returns how many classes recompute their stated signature through
/// them.
fn borrow_missing(to: &mut ClassSchema, from: &ClassSchema, src: &SourceFacts) -> usize {
    let names: Vec<String> = to.classes.keys().cloned().collect();
    let mut borrowed = 0;
    for n in names {
        let Some(&stated) = src.signatures.get(&n) else { continue };
        let (mut classes, mut enums) = (Vec::new(), Vec::new());
        let ok = loop {
            match signature::class_signature(to, &n) {
                Ok(s) => break s == stated,
                Err(signature::Missing::Class(m)) if !to.classes.contains_key(&m) && from.classes.contains_key(&m) => {
                    let (c, e) = add_closure(to, from, &m);
                    classes.extend(c);
                    enums.extend(e);
                }
                Err(_) => break false,
            }
        };
        if ok && !classes.is_empty() {
            borrowed += 1;
        } else if !ok {
            classes.iter().for_each(|c| drop(to.classes.remove(c)));
            enums.iter().for_each(|e| drop(to.enums.remove(e)));
        }
    }
    borrowed
}

/// Removes classes whose signature contradicts what the files store, unless another class needs
/// them for its layout (as parent or struct), until none is left to remove.
fn prune(schema: &mut ClassSchema, stored: Option<&BTreeMap<String, BTreeSet<u32>>>) {
    let Some(stored) = stored else { return };
    loop {
        let needed: BTreeSet<String> = schema
            .classes
            .values()
            .flat_map(|c| {
                c.parent.iter().cloned().chain(
                    c.members
                        .iter()
                        .filter(|m| m.ty != MemberType::Pointer && m.subtype != MemberType::Pointer)
                        .filter_map(|m| m.class.clone()),
                )
            })
            .collect();
        let bad: Vec<String> = stored
            .iter()
            .filter(|(n, _)| schema.classes.contains_key(*n) && !needed.contains(*n))
            .filter(|(n, s)| !signature::class_signature(schema, n).is_ok_and(|x| s.contains(&x)))
            .map(|(n, _)| n.clone())
            .collect();
        if bad.is_empty() {
            return;
        }
        for n in bad {
            schema.classes.remove(&n);
        }
    }
}

/// What [`take_source`] did with a complete source's classes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Taken {
    /// Classes the files store a signature for that the source's record gives.
    pub agreeing: Vec<String>,
    /// Classes the files store a signature for that the schema already gave (the files' own
    /// records come first).
    pub already: Vec<String>,
    /// Classes the files store a signature for that the source's record does not give: the files
    /// decide, and the source's record is left out.
    pub refused: Vec<String>,
    /// Classes no file names, taken as the source has them.
    pub unchecked: Vec<String>,
}

impl Taken {
    /// ` (N classes the files name, whose signatures agree; M no file names; the files contradict
    /// its records of A, B)`, for a schema's list of sources.
    fn describe(&self) -> String {
        let mut s = format!(" ({} classes the files name, whose signatures agree; {} no file names", self.agreeing.len(), self.unchecked.len());
        if !self.refused.is_empty() {
            s.push_str(&format!("; the files contradict its records of {}", self.refused.join(", ")));
        }
        s.push(')');
        s
    }
}

/// Takes the classes of a complete source into `to`: one whose signature the files of the SDK
/// store only where its signature then agrees (with the classes it needs, and in place of what `to`
/// holds where every class that recomputed still does), every other one as the source has it
/// where `to` lacks it; then the source's enums `to` lacks, and the layout overrides of the
/// records `to` now holds as the source has them.
fn take_source(to: &mut ClassSchema, src: &SourceFacts, stored: Option<&BTreeMap<String, BTreeSet<u32>>>) -> Taken {
    let mut taken = Taken::default();
    for n in src.schema.classes.keys() {
        match stored.and_then(|s| s.get(n)) {
            Some(want) => {
                if signature::class_signature(to, n).is_ok_and(|s| want.contains(&s)) {
                    taken.already.push(n.clone());
                } else if adopt_in_place_of(to, &src.schema, n, want, stored) {
                    taken.agreeing.push(n.clone());
                } else {
                    taken.refused.push(n.clone());
                }
            }
            None => {
                if !to.classes.contains_key(n) {
                    add_closure(to, &src.schema, n);
                    taken.unchecked.push(n.clone());
                }
            }
        }
    }
    for (k, e) in &src.schema.enums {
        to.enums.entry(k.clone()).or_insert_with(|| e.clone());
    }
    for (n, o) in &src.schema.overrides {
        if to.classes.get(n).is_some_and(|c| src.schema.classes.get(n).is_some_and(|d| same_record(c, d))) {
            to.overrides.insert(n.clone(), o.clone());
        }
    }
    taken
}

/// Two records of one class that differ at most in the signature they note and the version (which
/// neither the layout nor the signature depends on): an override of one applies to the other.
fn same_record(c: &ClassRecord, d: &ClassRecord) -> bool {
    ClassRecord { signature: None, version: 0, ..c.clone() } == ClassRecord { signature: None, version: 0, ..d.clone() }
}

/// Notes in each class of `schema` that has none the signature a source states for it, where the
/// record recomputes it.
fn note_stated_signatures(schema: &mut ClassSchema, src: &SourceFacts) {
    let names: Vec<String> = schema.classes.keys().cloned().collect();
    for n in names {
        let Some(stated) = src.signatures.get(&n) else { continue };
        if schema.classes[&n].signature.is_none() && signature::class_signature(schema, &n).is_ok_and(|s| s == *stated) {
            if let Some(c) = schema.classes.get_mut(&n) {
                c.signature = Some(Hex(*stated));
            }
        }
    }
}

/// Records the stored signatures of `sdk` in its classes.
fn note_signatures(schema: &mut ClassSchema, stored: Option<&BTreeMap<String, BTreeSet<u32>>>, tsv: Option<&str>) {
    let mut sigs: BTreeMap<String, u32> = BTreeMap::new();
    for line in tsv.unwrap_or("").lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        if let (Some(n), Some(h)) = (f.first(), f.get(1)) {
            if let Ok(v) = u32::from_str_radix(h.trim_start_matches("0x"), 16) {
                sigs.insert((*n).to_owned(), v);
            }
        }
    }
    for (n, s) in stored.into_iter().flatten() {
        if let Some(v) = s.iter().next() {
            sigs.insert(n.clone(), *v);
        }
    }
    for (n, v) in sigs {
        if let Some(c) = schema.classes.get_mut(&n) {
            c.signature = Some(Hex(v));
        }
    }
}

/// Classes of `sdk`'s files whose signature `schema` does not recompute.
fn unresolved(schema: &ClassSchema, stored: Option<&BTreeMap<String, BTreeSet<u32>>>) -> Vec<String> {
    stored
        .into_iter()
        .flatten()
        .filter(|(n, s)| !signature::class_signature(schema, n).is_ok_and(|x| s.contains(&x)))
        .map(|(n, _)| n.clone())
        .collect()
}

/// Completes the 5.5 schema `s` (the classes its files embed) for the classes its files name that
/// it lacks or does not recompute: first the 2010.2 records of `built` whose signatures agree with
/// the 5.5 files, then the records derived into `classdata/` ([`transcribed::hk5_5`]), with the
/// 2010.2 records they need, each only where the stored signature then recomputes.
fn derive_5_5(s: &mut ClassSchema, built: &[ClassSchema], stored: Option<&BTreeMap<String, BTreeSet<u32>>>) -> Result<(), Error> {
    let s2010_2 = built.iter().find(|b| b.sdk == "2010.2");
    let recomputes = |s: &ClassSchema, n: &str, want: &BTreeSet<u32>| signature::class_signature(s, n).is_ok_and(|x| want.contains(&x));
    if let Some(older) = s2010_2 {
        let mut taken = 0;
        for (n, want) in stored.into_iter().flatten() {
            if !recomputes(s, n, want) && adopt_in_place_of(s, older, n, want, stored) {
                taken += 1;
            }
        }
        if taken > 0 {
            s.sources.push("2010.2 classes whose signatures agree with the 5.5 files".into());
        }
    }
    let derived = transcribed::hk5_5()?;
    let mut with_older = s2010_2.cloned().unwrap_or_default();
    with_older.classes.extend(derived.classes.iter().map(|(k, c)| (k.clone(), c.clone())));
    with_older.enums.extend(derived.enums.iter().map(|(k, e)| (k.clone(), e.clone())));
    let mut taken = 0;
    for (n, want) in stored.into_iter().flatten() {
        if !recomputes(s, n, want) && with_older.classes.contains_key(n) && adopt_in_place_of(s, &with_older, n, want, stored) {
            taken += 1;
        }
    }
    if taken > 0 {
        s.sources.push(format!("{} (classes whose signatures agree, with the 2010.2 records they need)", transcribed::HK5_5_NAME));
    }
    prune(s, stored);
    Ok(())
}

/// Completes the 2010.2 schema `s` with the records derived into `classdata/`
/// ([`transcribed::hk2010_2`], FromSoftware's classes of Dark Souls' map collisions): a class the
/// 2010.2 files name only where its signature then recomputes (with what it needs that `s`
/// lacks), one they do not name held as derived, for files not in the inputs.
fn derive_2010_2(s: &mut ClassSchema, stored: Option<&BTreeMap<String, BTreeSet<u32>>>) -> Result<(), Error> {
    let derived = transcribed::hk2010_2()?;
    let (mut checked, mut held) = (0, 0);
    for n in derived.classes.keys() {
        match stored.and_then(|st| st.get(n)) {
            Some(want) => {
                if !signature::class_signature(s, n).is_ok_and(|x| want.contains(&x)) && adopt_in_place_of(s, &derived, n, want, stored) {
                    checked += 1;
                }
            }
            None if !s.classes.contains_key(n) => {
                add_closure(s, &derived, n);
                held += 1;
            }
            None => {}
        }
    }
    if checked + held > 0 {
        s.sources.push(format!("{} ({checked} classes whose signatures agree, {held} no file of the inputs names)", transcribed::HK2010_2_NAME));
    }
    Ok(())
}

/// Builds the schema `s` of an SDK that has no source of its own ([`transcribed::DERIVED`]) for
/// the classes its files name: first from the records of the SDKs `bases` (of `built`) overlaid
/// with `derived`, the records derived into `classdata/` (the last base's record of a class in
/// place of an earlier one's, the derived record in place of both), then from each base's records
/// on its own, nearest first; each class, with the classes and enums its layout and signature
/// need, only where its stored signature then recomputes.
fn derive_over(s: &mut ClassSchema, built: &[ClassSchema], bases: &[&str], derived: &ClassSchema, stored: Option<&BTreeMap<String, BTreeSet<u32>>>) {
    let recomputes = |s: &ClassSchema, n: &str, want: &BTreeSet<u32>| signature::class_signature(s, n).is_ok_and(|x| want.contains(&x));
    let found: Vec<&ClassSchema> = bases.iter().filter_map(|b| built.iter().find(|x| x.sdk == *b)).collect();
    let mut over = ClassSchema::default();
    for src in found.iter().copied().chain([derived]) {
        over.classes.extend(src.classes.iter().map(|(k, c)| (k.clone(), c.clone())));
        over.enums.extend(src.enums.iter().map(|(k, e)| (k.clone(), e.clone())));
    }
    let names = found.iter().map(|b| b.sdk.as_str()).collect::<Vec<_>>().join(" and ");
    let mut taken = 0;
    for (n, want) in stored.into_iter().flatten() {
        if !recomputes(s, n, want) && over.classes.contains_key(n) && adopt_in_place_of(s, &over, n, want, stored) {
            taken += 1;
        }
    }
    if taken > 0 {
        let what = derived.sources.first().map_or("", String::as_str);
        s.sources.push(format!("{what} over the {names} records (classes whose signatures agree with the {} files)", s.sdk));
    }
    for base in found.iter().rev() {
        let mut taken = 0;
        for (n, want) in stored.into_iter().flatten() {
            if !recomputes(s, n, want) && base.classes.contains_key(n) && adopt_in_place_of(s, base, n, want, stored) {
                taken += 1;
            }
        }
        if taken > 0 {
            s.sources.push(format!("{} classes whose signatures agree with the {} files", base.sdk, s.sdk));
        }
    }
    prune(s, stored);
}

/// The files and folders of the class data (`classdata/`, beside the corpus) that the packfile
/// class schemas are built from.
pub const CLASS_DATA: [&str; 5] = [
    "botw-2014.2-switch-reflection.json",
    "botw-2014.2-signatures.tsv",
    "fromsoft-2014.1-types.xml",
    serde_hkx::FOLDER,
    dsmapstudio::FOLDER,
];

/// Builds the 2014.2, 2014.1, 2013.1, 2010.2, 5.5, 6.6, 7.1 and 2011.1 class schemas (and those of
/// other SDKs whose files embed hkClass objects) from `inputs` (files and directories).
pub fn extract(inputs: &[PathBuf]) -> Result<Extraction, Error> {
    let found = gather(inputs)?;
    let mut out = Extraction::default();

    let Some(json) = &found.botw_json else { return Ok(out) };
    let (mut s2014_2, observed) = botw::import(json)?;
    botw::infer_interfaces(&mut s2014_2, &observed);
    note_signatures(&mut s2014_2, found.stored.get("2014.2"), found.botw_tsv.as_deref());
    out.unresolved.insert("2014.2".into(), unresolved(&s2014_2, found.stored.get("2014.2")));

    // 2014.1: embedded records, the FromSoft table, then 2014.2 records, each checked.
    let stored_2014_1 = found.stored.get("2014.1");
    let mut s2014_1 = ClassSchema { sdk: "2014.1".into(), ..Default::default() };
    for (path, emb) in found.embedded.get("2014.1").into_iter().flatten() {
        let file = Path::new(path).file_name().and_then(|n| n.to_str()).unwrap_or(path);
        s2014_1.sources.push(format!("hkClass objects in {file}"));
        for (k, e) in &emb.enums {
            s2014_1.enums.entry(k.clone()).or_insert_with(|| e.clone());
        }
        for (n, c) in &emb.classes {
            s2014_1.classes.entry(n.clone()).or_insert_with(|| c.clone());
        }
    }
    // Then the Dark Souls III reflection, the one complete 2014.1 source: a class the files name
    // only where its signature agrees.
    let ds3 = if found.dsmapstudio.is_empty() { None } else { Some(dsmapstudio::import(found.dsmapstudio.iter().map(|(n, t)| (n.as_str(), t.as_str())))?.0) };
    if let Some(d) = &ds3 {
        let t = take_source(&mut s2014_1, d, stored_2014_1);
        s2014_1.sources.push(format!("{}{}", dsmapstudio::FOLDER, t.describe()));
    }
    if let Some(xml) = &found.fromsoft_xml {
        let mut table = fromsoft::import(xml)?;
        fromsoft::complete_from(&mut table, &s2014_2);
        s2014_1.sources.push("fromsoft-2014.1-types.xml (completed from 2014.2)".into());
        let names: Vec<String> = table.classes.keys().cloned().collect();
        for n in names {
            // A class the files store a signature for must give it; one they do not name is kept
            // as the table describes it.
            let want = stored_2014_1.and_then(|s| s.get(&n));
            match want {
                Some(w) => {
                    adopt(&mut s2014_1, &table, &n, w);
                }
                // Not named by any 2014.1 file: nothing to check it against.
                None => {
                    add_closure(&mut s2014_1, &table, &n);
                }
            }
        }
        for (k, e) in &table.enums {
            s2014_1.enums.entry(k.clone()).or_insert_with(|| e.clone());
        }
    }
    let mut from_2014_2 = 0;
    for (n, want) in stored_2014_1.into_iter().flatten() {
        if !signature::class_signature(&s2014_1, n).is_ok_and(|s| want.contains(&s)) && !s2014_1.classes.contains_key(n) && adopt(&mut s2014_1, &s2014_2, n, want) {
            from_2014_2 += 1;
        }
    }
    if from_2014_2 > 0 {
        s2014_1.sources.push("botw-2014.2-switch-reflection.json (classes whose signatures agree)".into());
    }
    // Last, the records transcribed into the repository's classdata/, for what is still missing
    // or wrong. A transcribed class may need classes (parents, structs) only the 2014.2 records
    // describe, and a 2014.2 class a transcribed one; the stored signature checks them together.
    let transcribed = transcribed::hk2014_1()?;
    let mut with_2014_2 = s2014_2.clone();
    with_2014_2.classes.extend(transcribed.classes.iter().map(|(k, c)| (k.clone(), c.clone())));
    with_2014_2.enums.extend(transcribed.enums.iter().map(|(k, e)| (k.clone(), e.clone())));
    let mut from_transcribed = 0;
    for (n, want) in stored_2014_1.into_iter().flatten() {
        if signature::class_signature(&s2014_1, n).is_ok_and(|s| want.contains(&s)) || !with_2014_2.classes.contains_key(n) {
            continue;
        }
        if adopt_in_place_of(&mut s2014_1, &with_2014_2, n, want, stored_2014_1) {
            from_transcribed += 1;
        }
    }
    if from_transcribed > 0 {
        s2014_1.sources.push(format!("{} (classes whose signatures agree, with the 2014.2 records they need)", transcribed::HK2014_1_NAME));
    }
    prune(&mut s2014_1, stored_2014_1);
    if let Some(d) = &ds3 {
        if borrow_missing(&mut s2014_1, &s2014_2, d) > 0 {
            s2014_1.sources.push("botw-2014.2-switch-reflection.json (classes DSMapStudio's classes need but lack, where their stated signatures then recompute)".into());
        }
    }
    note_signatures(&mut s2014_1, stored_2014_1, None);
    if let Some(d) = &ds3 {
        note_stated_signatures(&mut s2014_1, d);
    }
    out.unresolved.insert("2014.1".into(), unresolved(&s2014_1, stored_2014_1));

    // 2013.1: the 2014.1 and 2014.2 records where they agree, then its transcribed differences.
    let stored_2013_1 = found.stored.get("2013.1");
    let mut s2013_1 = ClassSchema { sdk: "2013.1".into(), ..Default::default() };
    for (src, label) in [(&s2014_1, "2014.1"), (&s2014_2, "2014.2")] {
        let mut taken = 0;
        for (n, want) in stored_2013_1.into_iter().flatten() {
            if !s2013_1.classes.contains_key(n) && adopt(&mut s2013_1, src, n, want) {
                taken += 1;
            }
        }
        if taken > 0 {
            s2013_1.sources.push(format!("{label} classes whose signatures agree with the 2013.1 files"));
        }
    }
    // Then the 2013.1 records transcribed into classdata/, with the 2014.1 and 2014.2 records
    // they need.
    let transcribed_2013_1 = transcribed::hk2013_1()?;
    let mut with_2014 = s2014_2.clone();
    for src in [&s2014_1, &transcribed_2013_1] {
        with_2014.classes.extend(src.classes.iter().map(|(k, c)| (k.clone(), c.clone())));
        with_2014.enums.extend(src.enums.iter().map(|(k, e)| (k.clone(), e.clone())));
    }
    let mut taken = 0;
    for (n, want) in stored_2013_1.into_iter().flatten() {
        if !signature::class_signature(&s2013_1, n).is_ok_and(|s| want.contains(&s))
            && adopt_in_place_of(&mut s2013_1, &with_2014, n, want, stored_2013_1)
        {
            taken += 1;
        }
    }
    if taken > 0 {
        s2013_1.sources.push(format!("{} (classes whose signatures agree, with the 2014.1 and 2014.2 records they need)", transcribed::HK2013_1_NAME));
    }
    prune(&mut s2013_1, stored_2013_1);
    note_signatures(&mut s2013_1, stored_2013_1, None);
    out.unresolved.insert("2013.1".into(), unresolved(&s2013_1, stored_2013_1));
    // Overrides of the classes a schema holds.
    for s in [&mut s2014_1, &mut s2013_1] {
        let from_2014_2: Vec<_> = s2014_2
            .overrides
            .iter()
            .filter(|(n, _)| s.classes.contains_key(*n) && s.classes.get(*n) == s2014_2.classes.get(*n))
            .map(|(n, o)| (n.clone(), o.clone()))
            .collect();
        s.overrides.extend(from_2014_2);
        // And those of the transcribed records it holds as transcribed.
        for t in [&transcribed, &transcribed_2013_1] {
            for (n, o) in &t.overrides {
                if s.classes.get(n).zip(t.classes.get(n)).is_some_and(|(c, d)| same_record(c, d)) {
                    s.overrides.insert(n.clone(), o.clone());
                }
            }
        }
    }
    for s in [&mut s2014_2, &mut s2014_1, &mut s2013_1] {
        s.unresolved = out.unresolved.get(&s.sdk).cloned().unwrap_or_default();
    }
    out.schemas = vec![s2014_2, s2014_1, s2013_1];

    // Other SDKs: what their files embed, where any does; for 2010.2 then the serde-hkx classes,
    // a class the files name only where its signature agrees.
    let skyrim = if found.serde_hkx.is_empty() { None } else { Some(serde_hkx::import(found.serde_hkx.iter().map(|(n, t)| (n.as_str(), t.as_str())))?) };
    let mut sdks: BTreeSet<&String> = found.embedded.keys().collect();
    let s2010_2 = "2010.2".to_owned();
    if skyrim.is_some() {
        sdks.insert(&s2010_2);
    }
    let s5_5 = "5.5".to_owned();
    if found.stored.contains_key(&s5_5) {
        sdks.insert(&s5_5);
    }
    for sdk in sdks {
        if out.schemas.iter().any(|s| s.sdk == *sdk) {
            continue;
        }
        let mut s = ClassSchema { sdk: sdk.clone(), ..Default::default() };
        let stored = found.stored.get(sdk);
        for (path, emb) in found.embedded.get(sdk).into_iter().flatten() {
            let file = Path::new(path).file_name().and_then(|n| n.to_str()).unwrap_or(path);
            s.sources.push(format!("hkClass objects in {file}"));
            for (k, e) in &emb.enums {
                s.enums.entry(k.clone()).or_insert_with(|| e.clone());
            }
            for (n, c) in &emb.classes {
                s.classes.entry(n.clone()).or_insert_with(|| c.clone());
            }
        }
        let source = skyrim.as_ref().filter(|_| *sdk == s2010_2);
        if let Some(src) = source {
            let t = take_source(&mut s, src, stored);
            s.sources.push(format!("{}/classes{}", serde_hkx::FOLDER, t.describe()));
            prune(&mut s, stored);
            derive_2010_2(&mut s, stored)?;
        }
        if *sdk == s5_5 {
            derive_5_5(&mut s, &out.schemas, stored)?;
        }
        note_signatures(&mut s, stored, None);
        if let Some(src) = source {
            note_stated_signatures(&mut s, src);
        }
        s.unresolved = unresolved(&s, stored);
        out.unresolved.insert(sdk.clone(), s.unresolved.clone());
        out.schemas.push(s);
    }
    // The SDKs no source describes: their neighbours' records with the differences derived into
    // classdata/, over what their files embed where any does.
    for (sdk, text, file, bases) in transcribed::DERIVED {
        let stored = found.stored.get(sdk);
        if stored.is_none() && !out.schemas.iter().any(|s| s.sdk == sdk) {
            continue;
        }
        let mut s = match out.schemas.iter().position(|s| s.sdk == sdk) {
            Some(i) => out.schemas.remove(i),
            None => ClassSchema { sdk: sdk.to_owned(), ..Default::default() },
        };
        let derived = transcribed::parse(text, sdk, file)?;
        derive_over(&mut s, &out.schemas, bases, &derived, stored);
        note_signatures(&mut s, stored, None);
        s.unresolved = unresolved(&s, stored);
        out.unresolved.insert(sdk.to_owned(), s.unresolved.clone());
        out.schemas.push(s);
    }
    for (sdk, names) in &out.unresolved {
        let users = found.users.get(sdk);
        let files = names.iter().map(|n| (n.clone(), users.and_then(|u| u.get(n)).cloned().unwrap_or_default())).collect();
        out.unresolved_in.insert(sdk.clone(), files);
    }
    Ok(out)
}
