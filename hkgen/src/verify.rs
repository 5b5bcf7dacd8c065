//! `hkgen verify`: per file, parse it and check what can be checked. A TAG0 file: every type hash
//! its table stores (or its compendium's), and that reading it into objects (typed through the
//! generated classes where they match, untyped otherwise) and writing it again gives the same
//! bytes. A TCM0 compendium or the registry: its hashes. A packfile: its class signatures against
//! the class schemas under `schemas/`, and its container round trip.

use crate::inputs::{input_kind, InputKind};
use crate::registry;
use hktypes::reflect::hash::{check_table, Recipe};
use hktypes::reflect::TypeTable;
use hktypes::tagfile::locate::locate;
use crate::reflection::check::{check_packfile, ClassSchemas};
use crate::reflection::sources::sdk_of_contents_version;
use hktypes::graph::TagfileDocument;
use hktypes::tagfile::{Compendium, CompendiumSet, TagFile, TypeSource};
use hktypes::value::ClassEntry;
use serde::Serialize;

/// The result for one file, printed as one JSON line by `--json`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    /// The file's path, as given to [`Verifier::verify`] (on the command line: as walked from the
    /// inputs).
    pub path: String,
    /// The format sniffed from the file's first bytes: `tag0`, `tcm0`, `packfile`, `registry`,
    /// `xml` (Havok XML: `<hkpackfile>` read, `<hktagfile>` not yet) or `other` (see
    /// [`InputKind::name`]).
    pub format: &'static str,
    /// `2018.1`, or null for a compendium (which stores no SDK version).
    pub sdk: Option<String>,
    /// Types in the file's table (the null type not counted).
    pub types: usize,
    /// Type hashes (THSH) the table stores; 0 for a packfile, which stores none.
    pub hashes_stored: usize,
    /// How many of the stored type hashes recompute from the table under its hash recipe.
    pub hashes_matched: usize,
    /// For a tagfile: its own `TYPE` or the compendium id it names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub type_source: Option<String>,
    /// The hash recipe the file's table follows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recipe: Option<Recipe>,
    /// The first few hash mismatches, as `name: stored != computed`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mismatches: Vec<String>,
    /// Registry only: requested-alignment codes recovered from stored hashes, as `name: code`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub recovered_alignment: Vec<String>,
    /// For a TAG0 file: `exact` when reading and writing it again gives the same bytes, `differs`,
    /// or `error` when it could not be rewritten.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roundtrip: Option<&'static str>,
    /// A TAG0 file: `exact` when writing every typed object through its generated class (not from
    /// the bytes it was read from) still gives the same bytes, `differs` or `error`. A packfile
    /// (when generated structs of its SDK are given): the same after every object a struct
    /// applies to went into its struct and back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub typed_roundtrip: Option<&'static str>,
    /// A packfile: `roundtrip` is through its objects (`__data__` laid out again from them); this
    /// is its container alone (sections and tables written back from their parts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container_roundtrip: Option<&'static str>,
    /// Where a round trip first differs (file offset), or why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roundtrip_offset: Option<u64>,
    /// When a round trip differs: the first differing offset with the part of the file it falls in
    /// and the written and read lengths; when it failed: the error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roundtrip_detail: Option<String>,
    /// A packfile: the first pointer of a typed object that names neither the start of an object
    /// of its member's class nor of a class derived from it, located and named by object and
    /// member (`hktypes::packfile::objects::PackfileDocument::check_pointers`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bad_pointer: Option<String>,
    /// A TAG0 file: bytes after the `TAG0` section (Helldivers 2 `.physics` files carry data of
    /// their own there), kept and written back verbatim by the round trip.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trailing_bytes: Option<usize>,
    /// Items of a TAG0 file (objects and runs, the null item not counted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<usize>,
    /// What reading changed to read the file (a dangling XML pointer read as null under
    /// `--dangling-pointers null`), each with where; a file that passes with repairs is not the
    /// file it claims to be.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub repairs: Vec<String>,
    /// Objects read through a generated class (a packfile: objects read through the class
    /// schema).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub typed: Option<usize>,
    /// Objects no class matched, kept as their bytes (a packfile's with their fixups).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub untyped: Option<usize>,
    /// A packfile, when generated structs of its SDK are given ([`Verifier::classes`]):
    /// objects converted into their generated struct and back (the others stay values or bytes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structs: Option<usize>,
    /// A packfile: its `__classnames__` signatures, and how many recompute from the class schema.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signatures_stored: Option<usize>,
    /// A packfile: how many of its stored `__classnames__` signatures recompute from the class
    /// schema of its SDK.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signatures_matched: Option<usize>,
    /// False when no class schema covers the packfile's SDK: its signatures cannot be checked, and
    /// the file passes on its round trip alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signatures_checked: Option<bool>,
    /// A packfile: its contents version and layout bytes (`8,1,1,1`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contents_version: Option<String>,
    /// A packfile: its layout rules from the header (pointer size, little-endian, reuse padding,
    /// empty base class optimization), as `8,1,1,1`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layout: Option<String>,
    /// A file this version does not check (Havok XML, files that are not Havok files); not counted
    /// as passed or failed. The command line fails a file named on it that is skipped, unless told
    /// `--skip-unknown`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub skipped: bool,
    /// With semantic checks ([`Verifier::semantic`]): how many invariant checks of
    /// [`crate::semantic::RULES`] ran on the file's objects.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub semantic_checks: Option<usize>,
    /// The invariants the file breaks, each located (`object #12
    /// hkaSkeleton.parentIndices[153]: 999, past the 154 bones`); the first few.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub semantic_failures: Vec<String>,
    /// True when the file passed: every stored hash (or checked signature) recomputes and every
    /// round trip is exact.
    pub ok: bool,
    /// Why the file failed (or, when skipped, why it was not checked); null when it passed.
    pub error: Option<String>,
}

const MAX_MISMATCHES: usize = 8;

impl Report {
    fn hashes(&mut self, table: &TypeTable, recipe: Recipe) {
        self.types = table.types.len().saturating_sub(1);
        self.recipe = Some(recipe);
        match check_table(table, recipe) {
            Ok(c) => {
                self.hashes_stored = c.stored;
                self.hashes_matched = c.matched;
                self.mismatches = c
                    .mismatches
                    .iter()
                    .take(MAX_MISMATCHES)
                    .map(|(_, name, s, h)| format!("{name}: stored {s:#010x}, computed {h:#010x}"))
                    .collect();
                self.ok = c.stored == c.matched;
                if !self.ok {
                    self.error = Some(format!("{} of {} stored type hashes do not recompute", c.stored - c.matched, c.stored));
                }
            }
            Err(e) => self.fail(e.to_string()),
        }
    }

    fn roundtrip(&mut self, bytes: &[u8], t: &TagFile<'_>, classes: &[ClassEntry]) {
        let written = TagfileDocument::from_file(t, classes).and_then(|doc| {
            let c = doc.counts();
            self.typed = Some(c.typed);
            self.untyped = Some(c.untyped);
            self.typed_roundtrip = Some(match doc.write_typed() {
                Ok(out) if out == bytes => "exact",
                Ok(_) => "differs",
                Err(_) => "error",
            });
            doc.write()
        });
        match written {
            Ok(out) if out == bytes => {
                self.roundtrip = Some("exact");
                if self.typed_roundtrip != Some("exact") {
                    self.fail(format!("writing the typed objects through their classes {}", self.typed_roundtrip.unwrap_or("failed")));
                }
            }
            Ok(out) => {
                let at = out.iter().zip(bytes).position(|(a, b)| a != b).unwrap_or(out.len().min(bytes.len()));
                let place = locate(bytes, at as u64, Some(t));
                self.roundtrip = Some("differs");
                self.roundtrip_offset = Some(at as u64);
                self.roundtrip_detail = Some(format!(
                    "first difference at {at:#x}, {place} (written {} bytes, read {})",
                    out.len(),
                    bytes.len()
                ));
                self.fail(format!("round trip differs at {at:#x}, {place}"));
            }
            Err(e) => {
                self.roundtrip = Some("error");
                self.roundtrip_detail = Some(e.to_string());
                self.fail(format!("round trip: {e}"));
            }
        }
    }

    /// Every packfile object a generated struct applies to into the struct and back, then the
    /// file written: `structs` and `typed_roundtrip`; fails the file when a struct does not
    /// convert its object or the bytes differ.
    fn through_structs(&mut self, bytes: &[u8], v: &Verifier, table: &[ClassEntry]) {
        let mut doc = match v.open_packfile(bytes) {
            Ok(d) => d,
            Err(e) => {
                self.typed_roundtrip = Some("error");
                if self.ok {
                    self.fail(format!("reading the objects for the structs: {e}"));
                }
                return;
            }
        };
        let c = doc.through_structs(table);
        self.structs = Some(c.structs);
        self.typed_roundtrip = Some(match doc.write() {
            Ok(out) if out == bytes && c.failed == 0 => "exact",
            Ok(out) if out == bytes => "error",
            Ok(_) => "differs",
            Err(_) => "error",
        });
        if !self.ok {
            // The first failure stays the file's error.
        } else if c.failed > 0 {
            let first = c.first_failure.as_ref().map_or(String::new(), |(h, class, e)| format!("; the first, object {} ({class}): {e}", h.0));
            self.fail(format!("{} objects do not convert into their generated struct{first}", c.failed));
        } else if self.typed_roundtrip != Some("exact") {
            self.fail(format!("writing the objects through their generated structs {}", self.typed_roundtrip.unwrap_or("failed")));
        }
    }

    fn fail(&mut self, e: String) {
        self.ok = false;
        self.error = Some(e);
    }

    /// The invariants of [`crate::semantic::RULES`] on the file's objects (read again in the one
    /// dump shape of both formats); a file that breaks one fails with the first, located.
    fn semantic(&mut self, v: &Verifier, bytes: &[u8], compendia: &CompendiumSet) {
        let dump = match hktypes::sniff(bytes) {
            Some(hktypes::Format::Tag0) => TagFile::read(bytes, compendia).and_then(|t| hktypes::dump::dump_tagfile(&t)),
            Some(hktypes::Format::Packfile | hktypes::Format::PackfileXml) => v.open_packfile(bytes).and_then(|doc| hktypes::dump::dump_packfile(&doc)),
            Some(hktypes::Format::TagfileXml) => {
                let read = match v.registry {
                    Some(r) => hktypes::tagfile::xml::read_with(bytes, &r.tagfile_sdks(), &|sdk| r.tagfile_types(sdk)),
                    None => hktypes::tagfile::xml::read(bytes),
                };
                read.and_then(|d| d.write_tag0(compendia))
                    .and_then(|tag0| TagFile::read(&tag0, compendia).and_then(|t| hktypes::dump::dump_tagfile(&t)))
            }
            // Compendia and the registry hold types, not objects.
            _ => return,
        };
        let dump = match dump {
            Ok(d) => d,
            Err(e) => return self.fail(format!("reading the objects for the semantic checks: {e}")),
        };
        let out = crate::semantic::check(&dump);
        self.semantic_checks = Some(out.checks);
        if let Some(first) = out.failures.first() {
            let more = if out.failures.len() > 1 { format!(" (and {} more)", out.failures.len() - 1) } else { String::new() };
            self.fail(format!("{first}{more}"));
        }
        self.semantic_failures = out.failures.into_iter().take(MAX_MISMATCHES).collect();
    }
}

/// The generated classes of an SDK version (a tagfile SDK's `2018.1`, a packfile SDK's `2014.2`);
/// none makes every object untyped.
pub type ClassesOf = fn(&str) -> &'static [ClassEntry];

fn no_classes(_: &str) -> &'static [ClassEntry] {
    &[]
}

/// What a verification checks against: the generated classes, the packfile class schemas.
pub struct Verifier {
    /// The generated classes per SDK version, tagfile or packfile (`hkclasses::classes_for_sdk`):
    /// TAG0 objects are typed through them, and packfile objects go through them (into the struct
    /// and back, then written). The default gives none, so every object is read untyped.
    pub classes: ClassesOf,
    /// The packfile class schemas per SDK that signatures are recomputed from and packfile objects
    /// are typed through; the default is empty, so packfile signatures go unchecked.
    pub class_schemas: ClassSchemas,
    /// What a pointer of `<hkpackfile>` XML that names no object gives: an error (the default),
    /// or null, the repair listed in the report's [`Report::repairs`].
    pub xml_dangling: hktypes::packfile::xml::Dangling,
    /// The type tables that complete `<hktagfile>` XML in HKLib's form (types without members);
    /// without them such a file is skipped, saying so.
    pub registry: Option<&'static (dyn hktypes::ClassRegistry + Sync)>,
    /// Packfile class sources compiled into the program (`hkclasses::packfile_sources_for_sdk`):
    /// when given, they read packfiles and give the signatures checked, instead of
    /// [`Verifier::class_schemas`].
    pub packfile_sources: Option<PackfileSources>,
    /// Check the invariants Havok's runtime relies on ([`crate::semantic`]) of every file that
    /// passed the other checks.
    pub semantic: bool,
}

/// The packfile class sources of an SDK version, compiled in (`hkclasses::packfile_sources_for_sdk`).
pub type PackfileSources = fn(&str) -> Vec<&'static dyn hktypes::packfile::layout::ClassSource>;

/// The error of a document that `hktypes::open` read as another format than a packfile.
fn not_a_packfile(d: &hktypes::Document) -> hktypes::Error {
    hktypes::error::ValueError::new(hktypes::ErrorKind::Invalid(format!("a {} file, not a packfile", d.format().name()))).into()
}

/// The verifier's classes as `hktypes::open` takes them: its packfile sources
/// ([`Verifier::sources_for`] of the SDK a contents version names) and its registry's tagfile
/// classes and type tables.
impl hktypes::ClassRegistry for Verifier {
    fn tagfile(&self, sdk: &str) -> &[ClassEntry] {
        self.registry.map_or(&[][..], |r| r.tagfile(sdk))
    }

    fn packfile(&self, version: &str) -> Vec<&dyn hktypes::packfile::layout::ClassSource> {
        self.sources_for(&sdk_of_contents_version(version))
    }

    fn tagfile_types(&self, sdk: &str) -> Option<std::sync::Arc<TypeTable>> {
        self.registry.and_then(|r| r.tagfile_types(sdk))
    }

    fn tagfile_sdks(&self) -> Vec<&str> {
        self.registry.map_or_else(Vec::new, |r| r.tagfile_sdks())
    }
}

impl Default for Verifier {
    fn default() -> Self {
        Verifier {
            classes: no_classes,
            class_schemas: ClassSchemas::default(),
            xml_dangling: Default::default(),
            registry: None,
            packfile_sources: None,
            semantic: false,
        }
    }
}

impl Verifier {
    /// The class sources to read a packfile of `sdk` with.
    pub fn sources_for(&self, sdk: &str) -> Vec<&dyn hktypes::packfile::layout::ClassSource> {
        match self.packfile_sources {
            Some(f) => f(sdk),
            None => self.class_schemas.sources_for(sdk),
        }
    }

    /// `hktypes::open` of a packfile or `<hkpackfile>` XML with the verifier's classes (its
    /// packfile sources, dangling XML pointers as [`Verifier::xml_dangling`]); an error for another
    /// format.
    pub fn open_packfile(&self, bytes: &[u8]) -> hktypes::Result<hktypes::packfile::objects::PackfileDocument> {
        let options = hktypes::OpenOptions { classes: Some(self), xml_dangling: self.xml_dangling, ..Default::default() };
        hktypes::open(bytes, &options)?.into_packfile().map_err(|d| not_a_packfile(&d))
    }

    /// Whether the class records of `sdk` are known, so that signatures are checked.
    fn has_schema(&self, sdk: &str) -> bool {
        match self.packfile_sources {
            // Every packfile SDK describes its root container.
            Some(f) => f(sdk).first().is_some_and(|s| s.signature("hkRootLevelContainer").is_some()),
            None => self.class_schemas.by_sdk.contains_key(sdk),
        }
    }

    fn check_packfile(&self, bytes: &[u8]) -> Result<crate::reflection::check::PackfileCheck, hktypes::Error> {
        match self.packfile_sources {
            Some(f) => {
                let signature = |sdk: &str, name: &str| {
                    f(sdk).first().and_then(|s| s.signature(name)).ok_or_else(|| format!("no class record of {name} in SDK {sdk}"))
                };
                crate::reflection::check::check_packfile_with(bytes, &|sdk| f(sdk), &signature)
            }
            None => check_packfile(bytes, &self.class_schemas),
        }
    }
}

/// Verifies one file already in memory, without generated classes or packfile class schemas.
pub fn verify_bytes(path: &str, bytes: &[u8], compendia: &CompendiumSet) -> Report {
    Verifier::default().verify(path, bytes, compendia)
}

impl Verifier {
    /// Verifies one file already in memory.
    pub fn verify(&self, path: &str, bytes: &[u8], compendia: &CompendiumSet) -> Report {
        verify_with(self, path, bytes, compendia)
    }
}

fn verify_with(v: &Verifier, path: &str, bytes: &[u8], compendia: &CompendiumSet) -> Report {
    let format = input_kind(bytes);
    let mut r = Report { path: path.to_owned(), format: format.name(), ..Report::default() };
    match format {
        // A tagfile in a Phive wrapper: the wrapper must give the file back around the tagfile
        // written back, and the tagfile is verified as any other (its offsets are the tagfile's).
        InputKind::Tag0 if hktypes::tagfile::phive::is_phive(bytes) => match hktypes::tagfile::phive::Phive::read(bytes) {
            Ok(wrapper) => {
                let mut inner = verify_with(v, path, wrapper.tag0, compendia);
                inner.format = "phive";
                if wrapper.write(wrapper.tag0) != bytes {
                    inner.fail("the Phive wrapper does not write back to its bytes".to_owned());
                }
                return inner;
            }
            Err(e) => r.fail(e.to_string()),
        },
        InputKind::Tag0 => match TagFile::read(bytes, compendia) {
            Ok(t) => {
                r.sdk = Some(t.sdk_version());
                r.type_source = Some(match &t.source {
                    TypeSource::Own => "TYPE".to_owned(),
                    TypeSource::Compendium { id, .. } => format!("TCRF:{id}"),
                });
                r.hashes(&t.types, Recipe::for_sdk(&t.sdk));
                r.items = Some(t.items.len().saturating_sub(1));
                r.trailing_bytes = Some(t.trailing.len());
                let classes = (v.classes)(&t.sdk_version());
                r.roundtrip(bytes, &t, classes);
                {
                    // References that read but make no sense (a pointer to an object of another
                    // class, an object pointing to itself, a string naming its own run): the
                    // file's first problem, whatever the round trip gave.
                    let mut layouts = t.layouts();
                    if let Err(e) = hktypes::tagfile::items::Items::read(&t, &mut layouts).and_then(|items| items.check_targets(&t, &mut layouts)) {
                        r.fail(format!("references: {e}"));
                    }
                }
            }
            Err(e) => r.fail(e.to_string()),
        },
        InputKind::Tcm0 => match Compendium::read(bytes) {
            Ok(c) => {
                r.type_source = Some(c.ids.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(","));
                r.hashes(&c.types, Recipe::detect(&c.types));
            }
            Err(e) => r.fail(e.to_string()),
        },
        InputKind::Registry => match std::str::from_utf8(bytes).map_err(|e| e.to_string()).and_then(|s| {
            registry::import(s.trim_start_matches('\u{feff}')).map_err(|e| e.to_string())
        }) {
            Ok(reg) => {
                r.sdk = Some(hktypes::tagfile::sdk_version(&reg.sdkv));
                r.recovered_alignment = reg
                    .recovered_alignment
                    .iter()
                    .map(|(i, code)| format!("{}: {code}", reg.types.full_name(*i)))
                    .collect();
                r.hashes(&reg.types, Recipe::for_sdk(&reg.sdkv));
            }
            Err(e) => r.fail(e),
        },
        InputKind::Packfile => match v.check_packfile(bytes) {
            Ok(c) => {
                r.sdk = Some(c.sdk.clone());
                r.types = c.classes;
                r.items = Some(c.objects);
                r.signatures_stored = Some(c.signatures_stored);
                r.signatures_matched = Some(c.signatures_matched);
                r.contents_version = Some(c.contents_version.clone());
                r.layout = Some(c.layout.clone());
                let checked = v.has_schema(&c.sdk);
                r.signatures_checked = Some(checked);
                if checked {
                    r.mismatches = c.mismatches.clone();
                }
                r.roundtrip = Some(c.roundtrip);
                r.container_roundtrip = Some(c.container_roundtrip);
                r.roundtrip_offset = c.roundtrip_offset;
                r.roundtrip_detail = c.roundtrip_detail.clone();
                r.bad_pointer = c.bad_pointer.clone();
                // Objects typed through the class schema, and objects kept as their bytes.
                r.typed = Some(c.typed);
                r.untyped = Some(c.untyped);
                r.ok = if checked { c.ok() } else { c.roundtrip == "exact" && c.container_roundtrip == "exact" && c.bad_pointer.is_none() };
                if !r.ok {
                    r.error = Some(if c.signatures_matched != c.signatures_stored {
                        format!(
                            "{} of {} class signatures do not recompute: {}",
                            c.signatures_stored - c.signatures_matched,
                            c.signatures_stored,
                            c.mismatches.join(", ")
                        )
                    } else if let (Some(e), "exact", "exact") = (&c.bad_pointer, c.roundtrip, c.container_roundtrip) {
                        format!("a pointer does not name what its member expects: {e}")
                    } else {
                        format!("round trip {} (container {})", c.roundtrip, c.container_roundtrip)
                    });
                }
                if r.ok && c.untyped > 0 {
                    // Objects kept raw because their values claim more than the data holds (an
                    // array of 0x7FFFFFFF elements) name the object and member.
                    match v.open_packfile(bytes) {
                        Ok(doc) => {
                            if let Some((_, e)) = &doc.bad_values {
                                r.fail(format!("an object's values do not fit the data: {e}"));
                            }
                        }
                        Err(e) => r.fail(format!("reading the objects: {e}")),
                    }
                }
                let structs = (v.classes)(&c.sdk);
                if !structs.is_empty() {
                    r.through_structs(bytes, v, structs);
                }
            }
            Err(e) => r.fail(e.to_string()),
        },
        InputKind::Other => match hktypes::sniff(bytes) {
            Some(hktypes::Format::PackfileXml) => {
                r.format = "xml";
                r.check_xml(bytes, v, v.xml_dangling);
            }
            Some(hktypes::Format::TagfileXml) => {
                r.format = "xml";
                r.check_tagfile_xml(bytes, v.registry);
            }
            _ => {
                r.skipped = true;
                r.error = Some(not_havok(bytes));
            }
        },
    }
    if v.semantic && r.ok && !r.skipped {
        r.semantic(v, bytes, compendia);
    }
    r
}

/// A Havok XML packfile or tagfile (its first element `<hkpackfile>` or `<hktagfile>`, by
/// content: [`hktypes::sniff`]).
pub fn is_havok_xml(bytes: &[u8]) -> bool {
    matches!(hktypes::sniff(bytes), Some(hktypes::Format::PackfileXml | hktypes::Format::TagfileXml))
}

impl Report {
    /// An `<hktagfile>` XML file: it reads with its own types, its TAG0 reads back, and XML ->
    /// TAG0 -> XML -> TAG0 gives the same bytes. One in HKLib's form (types without member
    /// records) is completed from `registry`'s type tables; without them it is skipped.
    fn check_tagfile_xml(&mut self, bytes: &[u8], registry: Option<&(dyn hktypes::ClassRegistry + Sync)>) {
        use hktypes::tagfile::{xml, CompendiumSet, TagFile};
        let none = CompendiumSet::new();
        let read = match registry {
            Some(r) => xml::read_with(bytes, &r.tagfile_sdks(), &|sdk| r.tagfile_types(sdk)),
            None => xml::read(bytes),
        };
        let checked = read.and_then(|doc| {
            let tag0 = doc.write_tag0(&none)?;
            let file = TagFile::read(&tag0, &none)?;
            let again = xml::read(xml::write(&file, xml::WriteOptions::default())?.as_bytes())?.write_tag0(&none)?;
            Ok((file.sdk_version(), file.types.types.len().saturating_sub(1), again == tag0))
        });
        match checked {
            Ok((sdk, types, same)) => {
                self.sdk = Some(sdk);
                self.types = types;
                self.ok = same;
                if !same {
                    self.fail("XML -> TAG0 -> XML -> TAG0 does not give the same bytes".to_owned());
                }
            }
            Err(e) if e.to_string().contains(xml::NO_MEMBERS) => {
                self.skipped = true;
                self.error = Some(e.to_string());
            }
            Err(e) => self.fail(e.to_string()),
        }
    }

    /// An `<hkpackfile>` XML file: it reads through the class schemas of its contents version,
    /// and XML -> binary -> XML gives the same document (the binary's objects equal the XML's,
    /// and their XML is the same text).
    fn check_xml(&mut self, bytes: &[u8], v: &Verifier, dangling: hktypes::packfile::xml::Dangling) {
        use hktypes::packfile::xml;
        let mut sdk = String::new();
        let doc = xml::read_with(
            bytes,
            |contents| {
                sdk = sdk_of_contents_version(contents);
                v.sources_for(&sdk)
            },
            xml::ReadOptions { dangling, ..Default::default() },
        );
        self.sdk = Some(sdk);
        let doc = match doc {
            Ok(d) => d,
            Err(e) => return self.fail(e.to_string()),
        };
        self.repairs = doc.repairs.clone();
        self.contents_version = Some(doc.file.contents_version());
        self.layout = Some(doc.layout().to_string());
        self.types = doc.file.class_names().entries.len();
        self.items = Some(doc.objects.len());
        self.typed = Some(doc.objects.len());
        self.untyped = Some(0);
        let again = doc
            .write()
            .and_then(|bin| {
                let options = hktypes::OpenOptions { classes: Some(&doc.classes), ..Default::default() };
                hktypes::open(&bin, &options)?.into_packfile().map_err(|d| not_a_packfile(&d))
            })
            .and_then(|again| Ok((xml::write(&doc, Default::default())?, xml::write(&again, Default::default())?, again)));
        match again {
            Ok((a, b, again)) if a == b && again.objects == doc.objects => {
                self.roundtrip = Some("exact");
                self.ok = true;
            }
            Ok(_) => {
                self.roundtrip = Some("differs");
                self.fail("XML -> binary -> XML gives another document".to_owned());
            }
            Err(e) => {
                self.roundtrip = Some("error");
                self.fail(format!("XML -> binary -> XML: {e}"));
            }
        }
    }
}

/// Why `bytes` are not a Havok file, naming their first bytes in hex and as text (`not a Havok
/// file: starts with 89 50 4E 47 0D 0A 1A 0A ...` for a PNG), or `not a Havok file: it is empty`.
pub fn not_havok(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "not a Havok file: it is empty".to_owned();
    }
    let head = &bytes[..bytes.len().min(8)];
    let hex: Vec<String> = head.iter().map(|b| format!("{b:02X}")).collect();
    let more = if bytes.len() > head.len() { " ..." } else { "" };
    format!(
        "not a Havok file: starts with {}{more} ({:?}; a TAG0 or TCM0 tagfile, a packfile or the type registry was expected)",
        hex.join(" "),
        String::from_utf8_lossy(head)
    )
}
