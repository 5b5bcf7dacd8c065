//! `Document.convert(sdk=..., format=...)` (issue 34): a file as another SDK's, through
//! `hkgen::convert` with the built-in migration rules. The classes of the target come from what
//! the wheel embeds: a packfile SDK's RON class descriptions (`backend`'s), a tagfile SDK's
//! snapshot (`schemas/<sdk>/sdk.ron` and `types/*.ron`, embedded by build.rs and rebuilt into a
//! type table the first time an SDK is asked for) with the item names of `schemas/enums.ron`.

use hktypes::packfile::layout::ClassSource;
use hktypes::reflect::TypeTable;
use hktypes::value::{EnumEntry, EnumTable, MemberEnum};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// The tagfile snapshots: per file `sdk NUL name NUL length(u32 LE) text` (build.rs).
static SNAPSHOTS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/tagfile_schemas.bin"));

/// The files of each SDK's snapshot in [`SNAPSHOTS`]: (name, text) by SDK, `sdk.ron` included.
fn snapshot_files() -> HashMap<&'static str, Vec<(&'static str, &'static str)>> {
    let mut out: HashMap<&str, Vec<(&str, &str)>> = HashMap::new();
    let mut rest = SNAPSHOTS;
    let field = |rest: &mut &'static [u8]| -> Option<&'static str> {
        let end = rest.iter().position(|&b| b == 0)?;
        let s = std::str::from_utf8(&rest[..end]).ok()?;
        *rest = &rest[end + 1..];
        Some(s)
    };
    while !rest.is_empty() {
        let (Some(sdk), Some(name)) = (field(&mut rest), field(&mut rest)) else { break };
        let Some(len) = rest.get(..4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize) else { break };
        let Some(text) = rest.get(4..4 + len).and_then(|t| std::str::from_utf8(t).ok()) else { break };
        rest = &rest[4 + len..];
        out.entry(sdk).or_default().push((name, text));
    }
    out
}

/// The type table of tagfile SDK `sdk`, rebuilt from its snapshot once.
fn tagfile_table(sdk: &str) -> Option<Arc<TypeTable>> {
    static TABLES: OnceLock<Mutex<HashMap<String, Option<Arc<TypeTable>>>>> = OnceLock::new();
    static FILES: OnceLock<HashMap<&'static str, Vec<(&'static str, &'static str)>>> = OnceLock::new();
    let tables = TABLES.get_or_init(|| Mutex::new(HashMap::new()));
    let mut tables = tables.lock().ok()?;
    if let Some(t) = tables.get(sdk) {
        return t.clone();
    }
    let files = FILES.get_or_init(snapshot_files).get(sdk);
    let table = files.and_then(|files| {
        let head = files.iter().find(|(n, _)| *n == "sdk.ron")?.1;
        let types = files.iter().filter(|(n, _)| *n != "sdk.ron").map(|(n, t)| ((*n).to_owned(), (*t).to_owned())).collect();
        let schema = hkgen::schema::snapshot::parse("sdk.ron", head, types).ok()?;
        hkgen::schema::rebuild::to_table(&schema).ok().map(|(t, _)| Arc::new(t))
    });
    tables.insert(sdk.to_owned(), table.clone());
    table
}

/// The enumerations of tagfile SDK `sdk` from `schemas/enums.ron`, made once and kept for the
/// process (an [`EnumTable`] holds `'static` slices).
fn tagfile_enums(sdk: &str) -> EnumTable {
    static TABLES: OnceLock<Mutex<HashMap<String, EnumTable>>> = OnceLock::new();
    let tables = TABLES.get_or_init(|| Mutex::new(HashMap::new()));
    let Ok(mut tables) = tables.lock() else { return EnumTable::default() };
    if let Some(t) = tables.get(sdk) {
        return *t;
    }
    let leak = |s: &str| -> &'static str { Box::leak(s.to_owned().into_boxed_str()) };
    let table = match crate::backend::overlay() {
        Some(o) => {
            let enums: Vec<EnumEntry> = o
                .enums
                .keys()
                .filter_map(|k| {
                    let g = o.items(k, sdk)?;
                    let items: Vec<(&'static str, i64)> = g.items.iter().map(|(n, v)| (leak(n), *v)).collect();
                    Some(EnumEntry { name: leak(k), items: Box::leak(items.into_boxed_slice()) })
                })
                .collect();
            let members: Vec<MemberEnum> = o
                .members
                .iter()
                .filter_map(|(m, e)| {
                    let (class, member) = m.rsplit_once('.')?;
                    Some(MemberEnum { class: leak(class), member: leak(member), enumeration: leak(e) })
                })
                .collect();
            EnumTable { enums: Box::leak(enums.into_boxed_slice()), members: Box::leak(members.into_boxed_slice()) }
        }
        None => EnumTable::default(),
    };
    tables.insert(sdk.to_owned(), table);
    table
}

/// The classes a conversion reads and writes through: the packfile descriptions the package
/// opens files with, and the embedded tagfile snapshots.
struct Classes(&'static (dyn hktypes::ClassRegistry + Sync));

impl hktypes::ClassRegistry for Classes {
    fn packfile(&self, version: &str) -> Vec<&'static dyn ClassSource> {
        self.0.packfile(version)
    }

    fn tagfile_types(&self, sdk: &str) -> Option<Arc<TypeTable>> {
        tagfile_table(sdk)
    }

    fn tagfile_enums(&self, sdk: &str) -> EnumTable {
        tagfile_enums(sdk)
    }
}

/// `Document.convert`: `data` (the document's bytes) as SDK `sdk`'s file, opened; a conversion
/// that would lose anything raises `ValueError` with the report, unless `allow_loss`, which
/// converts and warns (`UserWarning`) with it.
pub(crate) fn document(
    py: Python<'_>,
    data: &[u8],
    sdk: &str,
    format: Option<&str>,
    layout: Option<&str>,
    allow_loss: bool,
    prefer: Option<&str>,
) -> PyResult<crate::Document> {
    let (bytes, report) = convert_bytes(data, sdk, format, layout, allow_loss, prefer)?;
    if !report.is_lossless() {
        let warn = py.import("warnings")?.getattr("warn")?;
        warn.call1((report.to_text(),))?;
    }
    crate::open(py, PyBytes::new(py, &bytes).as_any(), None)
}

fn convert_bytes(
    data: &[u8],
    sdk: &str,
    format: Option<&str>,
    layout: Option<&str>,
    allow_loss: bool,
    prefer: Option<&str>,
) -> PyResult<(Vec<u8>, hkgen::convert::Report)> {
    use hkgen::convert::{self, Migrations, Options, TargetFormat};
    static CLASSES: OnceLock<Classes> = OnceLock::new();
    #[cfg(feature = "compiled-classes")]
    let registry: &'static (dyn hktypes::ClassRegistry + Sync) = &hkclasses::REGISTRY;
    #[cfg(not(feature = "compiled-classes"))]
    let registry: &'static (dyn hktypes::ClassRegistry + Sync) = crate::backend::class_schemas().map_err(|f| PyValueError::new_err(f.message))?;
    let classes: &'static Classes = CLASSES.get_or_init(|| Classes(registry));
    let compendia = hktypes::tagfile::CompendiumSet::new();
    let options = hktypes::OpenOptions { classes: Some(classes), compendia: Some(&compendia), ..Default::default() };
    let doc = hktypes::open(data, &options).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let tagfile_sdk = sdk.split('.').next().and_then(|y| y.parse::<u32>().ok()).is_some_and(|y| y >= 2015);
    let rules = |l: Option<&str>| -> PyResult<hktypes::packfile::LayoutRules> {
        match l {
            Some(l) => hktypes::packfile::LayoutRules::parse(l)
                .ok_or_else(|| PyValueError::new_err(format!("layout {l:?}: expected four numbers like \"8,1,0,1\""))),
            None => doc
                .layout()
                .or_else(|| hktypes::packfile::LayoutRules::parse("8,1,0,1"))
                .ok_or_else(|| PyValueError::new_err("no layout")),
        }
    };
    let target = match format {
        Some("tagfile") | Some("tag0") => TargetFormat::Tagfile,
        Some("packfile") => TargetFormat::Packfile(rules(layout)?),
        Some(other) => return Err(PyValueError::new_err(format!("format {other:?}: \"tagfile\" or \"packfile\""))),
        None if tagfile_sdk => TargetFormat::Tagfile,
        None => TargetFormat::Packfile(rules(layout)?),
    };
    static MIGRATIONS: OnceLock<Migrations> = OnceLock::new();
    let migrations = MIGRATIONS.get_or_init(Migrations::builtin);
    let o = Options { sdk: sdk.to_owned(), format: target, classes, migrations, compendia: None, prefer: prefer.map(str::to_owned) };
    convert::convert(&doc, &o, allow_loss).map_err(|e| PyValueError::new_err(e.to_string()))
}
