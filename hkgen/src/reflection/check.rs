//! What `hkgen verify` checks of a packfile: that it reads, that every class signature its
//! `__classnames__` stores recomputes from the SDK's class schema, that writing its parts back
//! gives the same bytes, and that reading `__data__` into objects (typed through the class schema
//! where it covers them) and laying it out again from them does too (with the first difference
//! located by header, section and table).

use super::signature;
use super::snapshot;
use super::sources::sdk_of_contents_version;
use crate::schema::model::ClassSchema;
use hktypes::packfile::layout::ClassSet;
use hktypes::packfile::objects::PackfileDocument;
use hktypes::packfile::{raw::RawSectionHeader, PackFile};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

static NO_CLASSES: std::sync::LazyLock<ClassSet> = std::sync::LazyLock::new(ClassSet::default);

/// The class schemas by SDK (`2014.2`), as loaded from `schemas/`.
#[derive(Clone, Debug, Default)]
pub struct ClassSchemas {
    /// Each SDK's class schema, keyed by its SDK version (`2014.2`).
    pub by_sdk: BTreeMap<String, ClassSchema>,
    /// The same as runtime class sets with their signatures, built on first use.
    sets: std::sync::OnceLock<BTreeMap<String, ClassSet>>,
}

impl ClassSchemas {
    /// Every `DIR/<sdk>/classes/` there is; none is no error (signatures then go unchecked).
    pub fn load(dir: &Path) -> Result<Self, crate::error::Error> {
        let mut by_sdk = BTreeMap::new();
        if dir.is_dir() {
            for sdk in snapshot::list(dir)? {
                by_sdk.insert(sdk.clone(), snapshot::read(dir, &sdk)?);
            }
        }
        Ok(ClassSchemas { by_sdk, sets: Default::default() })
    }

    /// The given class schemas, each keyed by its own SDK version (a later one of the same SDK
    /// replaces an earlier one).
    pub fn from_schemas(schemas: impl IntoIterator<Item = ClassSchema>) -> Self {
        ClassSchemas { by_sdk: schemas.into_iter().map(|s| (s.sdk.clone(), s)).collect(), sets: Default::default() }
    }

    /// The class sets to read a file of `sdk` with: its own first, then the other SDKs' nearest
    /// first (their records lay out only classes whose signature they recompute as the file
    /// stores it; see [`PackfileDocument::from_file_with`]).
    pub fn sources_for(&self, sdk: &str) -> Vec<&dyn hktypes::packfile::layout::ClassSource> {
        let num = |s: &str| s.parse::<f64>().unwrap_or(0.0);
        let mut others: Vec<&String> = self.by_sdk.keys().filter(|k| k.as_str() != sdk).collect();
        others.sort_by(|a, b| (num(a) - num(sdk)).abs().total_cmp(&(num(b) - num(sdk)).abs()));
        let mut out: Vec<&dyn hktypes::packfile::layout::ClassSource> = Vec::new();
        match self.class_set(sdk) {
            Some(s) => out.push(s),
            // No schema of its own: nothing unknown is laid out on trust.
            None => out.push(&*NO_CLASSES),
        }
        out.extend(others.into_iter().filter_map(|k| self.class_set(k)).map(|s| s as &dyn hktypes::packfile::layout::ClassSource));
        out
    }

    /// The class set of `sdk` (every class with its recomputed signature), for reading objects.
    pub fn class_set(&self, sdk: &str) -> Option<&ClassSet> {
        self.sets.get_or_init(|| self.by_sdk.iter().map(|(k, s)| (k.clone(), super::layout::class_set(s))).collect()).get(sdk)
    }
}

/// [`hktypes::open`] reads a packfile through the schema of the SDK its contents version names
/// (tagfile classes are compiled in: `hkclasses::REGISTRY`).
impl hktypes::ClassRegistry for ClassSchemas {
    fn packfile(&self, version: &str) -> Vec<&dyn hktypes::packfile::layout::ClassSource> {
        self.sources_for(&crate::reflection::sources::sdk_of_contents_version(version))
    }
}

/// The result for one packfile.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PackfileCheck {
    /// `2014.2` from the contents version `hk_2014.2.0-r1`.
    pub sdk: String,
    /// The contents version string from the header (`hk_2014.2.0-r1`).
    pub contents_version: String,
    /// The file version from the header.
    pub file_version: u32,
    /// `8,1,1,1`.
    pub layout: String,
    /// `__classnames__` entries.
    pub classes: usize,
    /// Objects in `__data__` (its virtual fixups).
    pub objects: usize,
    /// Class signatures its `__classnames__` stores (one per entry).
    pub signatures_stored: usize,
    /// How many of the stored signatures recompute from the class schema of its SDK.
    pub signatures_matched: usize,
    /// Every one that does not, as `name (stored 0x..., computed 0x...)` or `name (stored 0x...,
    /// why not)`, in `__classnames__` order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mismatches: Vec<String>,
    /// Through the objects: `exact`, `differs` or `error`.
    pub roundtrip: &'static str,
    /// The container alone (sections and tables written back from their parts): `exact`,
    /// `differs` or `error`.
    pub container_roundtrip: &'static str,
    /// Objects read through the class schema, and objects kept as bytes.
    pub typed: usize,
    /// Objects kept untyped: their bytes (with their fixups), not read through a class schema.
    pub untyped: usize,
    /// When the round trip through the objects differs: the first differing file offset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roundtrip_offset: Option<u64>,
    /// When the round trip through the objects differs: the part of the file the first difference
    /// falls in (see [`locate`]); when it failed: the error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roundtrip_detail: Option<String>,
    /// The first pointer of a typed object that does not name the start of an object of its
    /// member's class or a class derived from it ([`PackfileDocument::check_pointers`]), located and
    /// named by object and member.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bad_pointer: Option<String>,
}

impl PackfileCheck {
    /// Everything stored recomputes, the round trip is exact and every checked pointer fits.
    pub fn ok(&self) -> bool {
        self.signatures_matched == self.signatures_stored
            && self.roundtrip == "exact"
            && self.container_roundtrip == "exact"
            && self.bad_pointer.is_none()
    }
}

/// Checks one packfile against `schemas`.
pub fn check_packfile(bytes: &[u8], schemas: &ClassSchemas) -> Result<PackfileCheck, hktypes::Error> {
    let signature = |sdk: &str, name: &str| match schemas.by_sdk.get(sdk) {
        Some(s) => signature::class_signature(s, name).map_err(|m| m.to_string()),
        None => Err(format!("no class schema for SDK {sdk}")),
    };
    check_packfile_with(bytes, &|sdk| schemas.sources_for(sdk), &signature)
}

/// Checks one packfile against class sources of any origin (the snapshots of [`check_packfile`],
/// or the classes compiled into a program): `sources` gives the sources to read a file of an SDK
/// with, `signature` the signature of a class of an SDK (or why there is none).
pub fn check_packfile_with<'s>(
    bytes: &[u8],
    sources: &dyn Fn(&str) -> Vec<&'s dyn hktypes::packfile::layout::ClassSource>,
    signature: &dyn Fn(&str, &str) -> Result<u32, String>,
) -> Result<PackfileCheck, hktypes::Error> {
    let file = PackFile::read(bytes)?;
    let contents_version = file.contents_version();
    let sdk = sdk_of_contents_version(&contents_version);
    let mut r = PackfileCheck {
        sdk: sdk.clone(),
        contents_version,
        file_version: file.header.file_version,
        layout: file.layout().to_string(),
        classes: file.class_names().entries.len(),
        objects: file.section_index(hktypes::packfile::DATA).map_or(0, |i| file.objects(i).len()),
        ..Default::default()
    };
    for c in &file.class_names().entries {
        r.signatures_stored += 1;
        let got = signature(&sdk, &c.name);
        match got {
            Ok(s) if s == c.signature => r.signatures_matched += 1,
            Ok(s) => r.mismatches.push(format!("{} (stored {:#010x}, computed {s:#010x})", c.name, c.signature)),
            Err(why) => r.mismatches.push(format!("{} (stored {:#010x}, {why})", c.name, c.signature)),
        }
    }
    r.container_roundtrip = match file.to_bytes() {
        Ok(out) if out == bytes => "exact",
        Ok(_) => "differs",
        Err(_) => "error",
    };
    let sources = sources(&sdk);
    let doc = PackfileDocument::from_file_with(file.clone(), &sources);
    match doc.and_then(|d| {
        let c = d.counts();
        r.typed = c.typed;
        r.untyped = c.untyped;
        r.bad_pointer = d.check_pointers(&sources).err().map(|e| e.to_string());
        d.write()
    }) {
        Ok(out) if out == bytes => r.roundtrip = "exact",
        Ok(out) => {
            let at = out.iter().zip(bytes).position(|(a, b)| a != b).unwrap_or(out.len().min(bytes.len())) as u64;
            r.roundtrip = "differs";
            r.roundtrip_offset = Some(at);
            r.roundtrip_detail = Some(locate(&file, at));
        }
        Err(e) => {
            r.roundtrip = "error";
            r.roundtrip_detail = Some(e.to_string());
        }
    }
    Ok(r)
}

/// Names the part of a packfile an offset falls in: `header`, `section header 2 (__data__)`,
/// `__data__ local fixups +0x18`, and so on.
pub fn locate(file: &PackFile<'_>, at: u64) -> String {
    let header = file.header.byte_len() as u64;
    if at < header {
        return format!("header +{at:#x}");
    }
    let sh = RawSectionHeader::len(file.header.file_version) as u64;
    let heads_end = header + sh * file.sections.len() as u64;
    if at < heads_end {
        let i = (at - header) / sh;
        let name = file.sections.get(i as usize).map(|s| s.name.as_str().into_owned()).unwrap_or_default();
        return format!("section header {i} ({name}) +{:#x}", (at - header) % sh);
    }
    let Ok(plan) = hktypes::packfile::write::plan(file) else { return format!("file {at:#x}") };
    for (s, p) in file.sections.iter().zip(&plan.sections) {
        let start = u64::from(p.start);
        let end = start + u64::from(p.offsets[5]);
        if at < start || at >= end {
            continue;
        }
        let rel = at - start;
        let parts = ["data", "local fixups", "global fixups", "virtual fixups", "exports", "imports"];
        for (k, part) in parts.iter().enumerate() {
            let from = if k == 0 { 0 } else { u64::from(p.offsets[k - 1]) };
            if rel >= from && rel < u64::from(p.offsets[k]) {
                return format!("{} {part} +{:#x}", s.name.as_str(), rel - from);
            }
        }
        return format!("{} +{rel:#x}", s.name.as_str());
    }
    format!("file {at:#x}, past the last section")
}
