//! Every call of the Python package into the Rust crates, behind one small API: an [`OpenDoc`]
//! opened from bytes, its objects by handle, members read as [`Val`]s at a [`Loc`] and assigned,
//! the file written back, and `verify`. The PyO3 layer (`lib.rs`) sees only this module's types.
//!
//! Every file is opened through `hktypes::open`. A tagfile's objects are read untyped (no
//! generated class is compiled in); their member values come from `hktypes::Document::members`,
//! the dump's one walk of member values, decoded once per object on its first read. A nested
//! record is named by its object and the member and element indices that lead to it. What Python
//! needs beyond the values (a record's class name, the enumeration an integer holds, the element
//! format of a number array, the range of an assignment) is looked up in the file's type table.
//! An assignment goes through `hktypes::Document::set_members`: the object's member that holds
//! the change is given its new value, the file is laid out again by the tagfile writer (byte for
//! byte as read where nothing changed) and read back, which may number the objects anew:
//! [`OpenDoc::set`] returns the new handle of each old one.
//!
//! Packfiles and `<hkpackfile>` XML are opened through `hktypes::open` as
//! `hktypes::packfile::objects` documents, with the class descriptions of
//! `schemas/<sdk>/classes/` embedded in the library at build time (see `build.rs`), or with the
//! feature `compiled-classes` the root crate's compiled-in `hkclasses::<sdk>::SCHEMA` (which
//! more than doubles the build; `verify` takes the embedded descriptions either way). An
//! assignment changes the object's value and the file is written by the packfile writer.

use hkgen::reflection::check::ClassSchemas;
use hktypes::packfile::layout::{Member, MemberType};
use hktypes::packfile::objects::{self, Body, Ref, MemberValue};
use hktypes::reflect::layout::Shape;
use hktypes::reflect::{Kind, TemplateArg, TypeIndex, TypeTable};
use hktypes::dump::{Members as DMembers, Val as DVal};
use hktypes::members::ValExt;
use hktypes::tagfile::CompendiumSet;
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// A name shared by every value that carries it (a member, a class, an enumeration): made once
/// per type of a document, not once per value read.
pub type Name = Arc<str>;

/// A failure of the Rust side, by the layer that found it.
#[derive(Debug)]
pub struct Failure {
    /// `container`, `type_table`, `items`, `values`, `writer`, or `input` (not a Havok file the
    /// package reads, a file that cannot be read).
    pub layer: &'static str,
    /// The message as `hkgen` prints it.
    pub message: String,
    /// The absolute byte offset in the file, when known.
    pub offset: Option<u64>,
    /// The section (`TAG0/DATA`, `__data__`), when known.
    pub section: Option<String>,
    /// The member path, outermost first.
    pub path: Vec<String>,
}

impl Failure {
    fn input(message: impl Into<String>) -> Self {
        Failure {
            layer: "input",
            message: message.into(),
            offset: None,
            section: None,
            path: Vec::new(),
        }
    }
}

impl From<hktypes::Error> for Failure {
    fn from(e: hktypes::Error) -> Self {
        use hktypes::Layer;
        let layer = match e.layer() {
            Layer::Container => "container",
            Layer::TypeTable => "type_table",
            Layer::Items => "items",
            Layer::Values => "values",
            Layer::Writer => "writer",
        };
        Failure {
            layer,
            message: e.to_string(),
            offset: e.offset(),
            section: e.section().map(str::to_owned),
            path: e.path().into_iter().map(str::to_owned).collect(),
        }
    }
}

impl From<hkgen::Error> for Failure {
    fn from(e: hkgen::Error) -> Self {
        match e {
            hkgen::Error::Havok(h) => h.into(),
            e => Failure::input(e.to_string()),
        }
    }
}

/// Why an assignment was refused.
#[derive(Debug)]
pub enum SetError {
    /// The value is of the wrong type for the member (Python's `TypeError`).
    Type(String),
    /// The value is out of the member's range (Python's `ValueError`).
    Range(String),
    /// No such member (Python's `AttributeError`).
    NoMember(String),
    /// The file could not be read again after the change.
    Havok(Failure),
}

/// A value assigned from Python.
#[derive(Clone, Debug)]
pub enum NewVal {
    /// `None`: a null pointer or string.
    None,
    /// `True`/`False`.
    Bool(bool),
    /// An integer (an `IntEnum` member included), as Python holds it.
    Int(i128),
    /// A float.
    Float(f64),
    /// A string.
    Str(String),
    /// An object of the same document, by handle.
    Object(u32),
    /// A list or tuple (a vector, a matrix's rows, an array's elements).
    Seq(Vec<NewVal>),
}

/// Where a record lives: the object (tagfile item or packfile handle) and the way into it.
#[derive(Clone, Debug)]
pub enum Loc {
    /// A record of a tagfile: object `handle`'s member and element `steps` lead to it.
    Tag {
        /// The object.
        handle: u32,
        /// The record's type.
        ty: TypeIndex,
        /// Member (by index among its record type's members) and element indices from the
        /// object's members to the record.
        steps: Vec<Step>,
    },
    /// A record of a packfile object: the object's values, then struct members and elements.
    Pack {
        /// The object.
        handle: u32,
        /// The record's class.
        class: String,
        /// Member and element indices from the object's values to the record.
        steps: Vec<Step>,
    },
}

/// One step into a value.
#[derive(Clone, Copy, Debug)]
pub enum Step {
    /// Member `i` of a struct's values.
    Member(usize),
    /// Element `i` of an array.
    Elem(usize),
}

/// A member's value, as Python will see it.
#[derive(Debug)]
pub enum Val {
    /// A null pointer or string, no value.
    None,
    /// A boolean.
    Bool(bool),
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    UInt(u64),
    /// A float.
    Float(f64),
    /// A string.
    Str(String),
    /// Bytes no type describes.
    Bytes(Vec<u8>),
    /// A value of Havok enumeration `name` (its items: [`OpenDoc::enum_items`]).
    Enum {
        /// `hknpMotionType::Enum`.
        name: Name,
        /// The stored value.
        value: i64,
    },
    /// A vector, quaternion or matrix: its floats in storage order, in rows of `width` when it
    /// is a matrix (0: one row).
    Floats(Vec<f64>, usize),
    /// A pointer to an object.
    Object(u32),
    /// An array or fixed array of non-numeric values.
    List(Vec<Val>),
    /// An array of numbers as packed bytes of `format` elements.
    Numbers {
        /// `f`, `i`, `H`...
        format: &'static str,
        /// Little-endian elements.
        bytes: Vec<u8>,
    },
    /// A nested record, of the class named.
    Record(Loc, Name),
}

/// The class descriptions of the packfile SDKs, embedded at build time, parsed on first use.
pub(crate) fn class_schemas() -> Result<&'static ClassSchemas, Failure> {
    static SCHEMAS: OnceLock<Result<ClassSchemas, String>> = OnceLock::new();
    SCHEMAS
        .get_or_init(load_class_schemas)
        .as_ref()
        .map_err(|e| Failure::input(format!("the embedded class schemas: {e}")))
}

/// The blob `build.rs` writes: per file, `sdk NUL name NUL length(u32 LE)` and the text.
fn load_class_schemas() -> Result<ClassSchemas, String> {
    static BLOB: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/class_schemas.bin"));
    let mut files: Vec<(String, String, &str)> = Vec::new();
    let mut rest = BLOB;
    while !rest.is_empty() {
        let mut field = || -> Result<String, String> {
            let end = rest.iter().position(|&b| b == 0).ok_or("truncated blob")?;
            let s = String::from_utf8(rest[..end].to_vec()).map_err(|e| e.to_string())?;
            rest = &rest[end + 1..];
            Ok(s)
        };
        let sdk = field()?;
        let name = field()?;
        let len = rest.get(..4).ok_or("truncated blob")?;
        let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
        let text = rest.get(4..4 + len).ok_or("truncated blob")?;
        files.push((
            sdk,
            name,
            std::str::from_utf8(text).map_err(|e| e.to_string())?,
        ));
        rest = &rest[4 + len..];
    }
    let mut sdks: Vec<&str> = files.iter().map(|f| f.0.as_str()).collect();
    sdks.dedup();
    let mut schemas = Vec::new();
    for sdk in sdks {
        let of = |n: &str| {
            files
                .iter()
                .find(|f| f.0 == sdk && f.1 == n)
                .map(|f| f.2)
                .ok_or(format!("{sdk}: no {n}"))
        };
        let path = |n: &str| PathBuf::from(format!("schemas/{sdk}/classes/{n}"));
        let (head, enums) = (of("schema.ron")?, of("enums.ron")?);
        let classes: Vec<(PathBuf, &str)> = files
            .iter()
            .filter(|f| f.0 == sdk && f.1 != "schema.ron" && f.1 != "enums.ron")
            .map(|f| (path(&f.1), f.2))
            .collect();
        let s = hkgen::reflection::snapshot::from_texts(
            (&path("schema.ron"), head),
            (&path("enums.ron"), enums),
            classes.iter().map(|(p, t)| (p.as_path(), *t)),
        )
        .map_err(|e| e.to_string())?;
        schemas.push(s);
    }
    Ok(ClassSchemas::from_schemas(schemas))
}

/// The packfile class descriptions `open` reads packfiles through: the root crate's compiled-in
/// classes (`hkclasses::<sdk>::SCHEMA`) with the feature `compiled-classes`, else the embedded RON
/// descriptions.
fn packfile_classes() -> Result<&'static dyn hktypes::ClassRegistry, Failure> {
    #[cfg(feature = "compiled-classes")]
    {
        Ok(&hkclasses::REGISTRY)
    }
    #[cfg(not(feature = "compiled-classes"))]
    {
        Ok(class_schemas()?)
    }
}

/// The enumeration overlay of the tagfile SDKs (`schemas/enums.ron`): item names of enumerations
/// and the integer members that hold one.
pub(crate) fn overlay() -> Option<&'static hkgen::codegen::overlay::Overlay> {
    static OVERLAY: OnceLock<Option<hkgen::codegen::overlay::Overlay>> = OnceLock::new();
    OVERLAY
        .get_or_init(|| {
            hkgen::codegen::overlay::Overlay::parse(include_str!("../../schemas/enums.ron")).ok()
        })
        .as_ref()
}

/// The compendia named (files or folders) for a tagfile at `path` (none: an empty set; a file
/// opened by path looks beside itself through [`compendia_beside`]). The compendia last named are
/// kept, read once, for the next file that names the same.
pub fn compendia_for(path: Option<&Path>, named: &[PathBuf]) -> Result<CompendiumSet, Failure> {
    static LAST: std::sync::Mutex<Option<(Vec<PathBuf>, hkgen::inputs::Compendia)>> =
        std::sync::Mutex::new(None);
    let at = path.unwrap_or(Path::new("."));
    match (path, named.is_empty()) {
        (_, false) => {
            let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((_, c)) = last.as_ref().filter(|(paths, _)| paths == named) {
                return Ok(c.set_for(at));
            }
            let c = hkgen::inputs::Compendia::load(named)?;
            let set = c.set_for(at);
            *last = Some((named.to_vec(), c));
            Ok(set)
        }
        (_, true) => Ok(CompendiumSet::new()),
    }
}

/// Every class name the schemas of every SDK know, one a line, sorted (written by `build.rs`).
pub static CLASS_NAMES: &str = include_str!(concat!(env!("OUT_DIR"), "/class_names.txt"));

/// Whether some SDK's schema knows class `name`.
pub fn is_known_class(name: &str) -> bool {
    CLASS_NAMES.lines().any(|n| n == name)
}

/// What [`compendia_beside`] found for a tagfile that names a compendium.
pub struct Beside {
    /// The compendia to read the file against (empty when the file names none, or none was
    /// found).
    pub set: CompendiumSet,
    /// The id the file names when no compendium beside it holds it, with the folder searched.
    pub missing: Option<(String, PathBuf)>,
}

/// The compendium of the tagfile `bytes` read from `path`, looked for only when the file names
/// one (a TAG0 file with a `TCRF` section), and only in the file's folder and its subfolders one
/// level down (a binder's `hkx_compendium/`): files named `*.compendium` first, then any other
/// file whose first bytes say TCM0. A file that names none costs nothing here (no folder is
/// read). Each compendium read is kept (by path, length and modification time) for the next
/// file that names it.
pub fn compendia_beside(path: &Path, bytes: &[u8]) -> Result<Beside, Failure> {
    let mut out = Beside {
        set: CompendiumSet::new(),
        missing: None,
    };
    if hktypes::sniff(bytes) != Some(hktypes::Format::Tag0) {
        return Ok(out);
    }
    let Ok(Some(id)) = hktypes::tagfile::file::compendium_reference(bytes) else {
        return Ok(out);
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    // The candidates: the folder's regular files, then its subfolders' (one level down), at most
    // `hkgen::inputs::NEAR_ENTRIES` entries in all.
    let mut files = Vec::new();
    let mut subdirs = Vec::new();
    let mut seen = 0usize;
    let mut list = |d: &Path, subdirs: Option<&mut Vec<PathBuf>>, files: &mut Vec<PathBuf>| {
        let Ok(entries) = std::fs::read_dir(d) else {
            return;
        };
        let mut subdirs = subdirs;
        for e in entries.flatten() {
            seen += 1;
            if seen > hkgen::inputs::NEAR_ENTRIES {
                return;
            }
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() {
                if let Some(s) = subdirs.as_deref_mut() {
                    s.push(e.path());
                }
            } else if kind.is_file() || kind.is_symlink() {
                files.push(e.path());
            }
        }
    };
    list(&dir, Some(&mut subdirs), &mut files);
    subdirs.sort();
    for s in &subdirs {
        list(s, None, &mut files);
    }
    let named = |p: &PathBuf| {
        p.extension()
            .is_some_and(|x| x.eq_ignore_ascii_case("compendium"))
    };
    let (first, rest): (Vec<PathBuf>, Vec<PathBuf>) = files.into_iter().partition(named);
    for p in first.iter().chain(rest.iter()) {
        if p.as_path() == path {
            continue;
        }
        if let Some(c) = cached_compendium(p)? {
            if c.ids.contains(&id) {
                out.set.add_as(id, &c);
                return Ok(out);
            }
        }
    }
    out.missing = Some((id.to_string(), dir));
    Ok(out)
}

/// The compendium at `p` (`None`: not a regular TCM0 file), read once per length and
/// modification time.
fn cached_compendium(
    p: &Path,
) -> Result<Option<hktypes::tagfile::compendium::Compendium>, Failure> {
    use hktypes::tagfile::compendium::Compendium;
    /// A file's length and modification time.
    type Key = (u64, Option<std::time::SystemTime>);
    /// Per file, its key when read and the compendium it held (`None`: not a TCM0 file).
    type Cache = HashMap<PathBuf, (Key, Option<Compendium>)>;
    static CACHE: std::sync::Mutex<Option<Cache>> = std::sync::Mutex::new(None);
    let Ok(meta) = std::fs::metadata(p) else {
        return Ok(None);
    };
    if !meta.is_file() || meta.len() < 16 {
        return Ok(None);
    }
    let key: Key = (meta.len(), meta.modified().ok());
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    let map = cache.get_or_insert_with(HashMap::new);
    if let Some((k, c)) = map.get(p) {
        if *k == key {
            return Ok(c.clone());
        }
    }
    // The first bytes say whether it is a compendium; only then is the whole file read.
    let mut head = [0u8; 8];
    let is_tcm0 = std::fs::File::open(p)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok()
        && &head[4..8] == b"TCM0";
    let c = if is_tcm0 {
        let bytes =
            std::fs::read(p).map_err(|e| Failure::input(format!("{}: {e}", p.display())))?;
        let c = Compendium::read(&bytes).map_err(|e| {
            let mut f = Failure::from(e);
            f.message = format!("{}: {}", p.display(), f.message);
            f
        })?;
        Some(c)
    } else {
        None
    };
    map.insert(p.to_path_buf(), (key, c.clone()));
    Ok(c)
}

/// `hkgen verify --json`'s report of one file, as JSON text.
pub fn verify(path: &Path, bytes: &[u8], compendia: &CompendiumSet) -> Result<String, Failure> {
    let verifier = hkgen::verify::Verifier {
        class_schemas: class_schemas()?.clone(),
        ..Default::default()
    };
    let report = verifier.verify(&path.display().to_string(), bytes, compendia);
    serde_json::to_string(&report).map_err(|e| Failure::input(e.to_string()))
}

/// An open file.
pub enum OpenDoc {
    /// A TAG0 tagfile.
    Tag(TagDoc),
    /// A binary packfile or `<hkpackfile>` XML.
    Pack(PackDoc),
}

/// A tagfile, read by `hktypes::open`: its objects' member values come from
/// `hktypes::Document::members` (the dump's one walk of member values), decoded once per object
/// when Python first reads one of its members; what Python needs beyond the values (a record's
/// class name, the enumeration of an integer, the element format of a number array, the range of
/// an assignment) comes from the file's type table, never from its bytes.
pub struct TagDoc {
    doc: hktypes::Document,
    sdk: String,
    /// Per type, its shape (`None`: no layout).
    shapes: Vec<Option<Shape>>,
    compendia: CompendiumSet,
    /// The file, with the assignments made.
    bytes: Vec<u8>,
    /// Per record type, its members as read: made on first use (see [`TagDoc::members`]).
    members: RefCell<HashMap<TypeIndex, Arc<[TagMember]>>>,
    /// Per type, its full name, made on first use.
    names: RefCell<HashMap<TypeIndex, Name>>,
    /// Per object handle, its members as `Document::members` gives them (a record), made on first
    /// read.
    values: Values,
    /// `tag0`, or `tagfile_xml` for a document read from `<hktagfile>` XML (written as TAG0).
    format: &'static str,
}

/// One member of a tagfile record type, with what reading it needs, worked out once per type.
struct TagMember {
    name: Name,
    /// Its type.
    ty: TypeIndex,
    /// Its byte offset in the record (where a vector or transform's members lie among its reals).
    offset: u32,
    /// The enumeration an integer member holds (by `hkEnum`/`hkFlags`, else by the overlay).
    enumeration: Option<Name>,
}

/// A packfile's objects.
pub struct PackDoc {
    doc: objects::PackfileDocument,
    format: &'static str,
    /// Per object handle, its members as `PackfileDocument::members` gives them (a record), made
    /// on first read; an assignment drops its object's.
    values: Values,
}

/// Per object handle, the object's members as one record (what the document's walk out gives),
/// read on the first look at the object and kept until an assignment drops it: the one cache of
/// both kinds of document.
#[derive(Default)]
struct Values(RefCell<HashMap<u32, Arc<DVal>>>);

impl Values {
    /// Object `h`'s record, read with `members` the first time.
    fn get(&self, h: u32, members: impl FnOnce(hktypes::Handle) -> Result<DMembers, hktypes::Error>) -> Result<Arc<DVal>, Failure> {
        if let Some(v) = self.0.borrow().get(&h) {
            return Ok(Arc::clone(v));
        }
        let v = Arc::new(DVal::Record(members(hktypes::Handle(h))?));
        self.0.borrow_mut().insert(h, Arc::clone(&v));
        Ok(v)
    }

    /// Drops object `h`'s record (after an assignment to it).
    fn forget(&self, h: u32) {
        self.0.borrow_mut().remove(&h);
    }

    /// Drops every record (after an assignment that lays the file out again).
    fn clear(&self) {
        self.0.borrow_mut().clear();
    }
}

impl OpenDoc {
    /// Reads a file of any format the package reads, through `hktypes::open`.
    pub fn open(bytes: Vec<u8>, compendia: CompendiumSet) -> Result<OpenDoc, Failure> {
        use hktypes::Format;
        let format = hktypes::sniff(&bytes);
        match format {
            Some(f @ (Format::Packfile | Format::PackfileXml)) => {
                let options = hktypes::OpenOptions {
                    classes: Some(packfile_classes()?),
                    ..Default::default()
                };
                let hktypes::Document::Packfile(doc) = hktypes::open(&bytes, &options)? else {
                    return Err(Failure::input("a packfile that did not read as one"));
                };
                let format = if f == Format::Packfile {
                    "packfile"
                } else {
                    "packfile_xml"
                };
                Ok(OpenDoc::Pack(PackDoc { doc, format, values: Values::default() }))
            }
            // `<hktagfile>` XML holds its types: `hktypes::open` reads it as the TAG0 file it
            // gives (the compendium it names, when given, makes that file TCRF again).
            Some(f @ (Format::Tag0 | Format::TagfileXml)) => {
                let format = if f == Format::Tag0 { "tag0" } else { "tagfile_xml" };
                Ok(OpenDoc::Tag(TagDoc::open(bytes, compendia, format)?))
            }
            Some(Format::Phive) => Err(Failure::input(
                "a Phive file (Tears of the Kingdom's TAG0 in Nintendo's wrapper) is read by the Rust \
                 crates (hktypes::open, hkgen dump and verify), not yet by the Python package",
            )),
            Some(_) => Err(Failure::input(
                "a TCM0 compendium holds types, not objects: open the tagfiles that name it",
            )),
            None => Err(Failure::input(hkgen::verify::not_havok(&bytes))),
        }
    }

    /// `2018.1`.
    pub fn sdk(&self) -> String {
        match self {
            OpenDoc::Tag(t) => t.sdk.clone(),
            OpenDoc::Pack(p) => {
                hkgen::reflection::sources::sdk_of_contents_version(&p.doc.file.contents_version())
            }
        }
    }

    /// `tag0`, `tagfile_xml`, `packfile` or `packfile_xml` (the form read; documents are written
    /// in their binary form).
    pub fn format(&self) -> &'static str {
        match self {
            OpenDoc::Tag(t) => t.format,
            OpenDoc::Pack(p) => p.format,
        }
    }

    /// Every object's handle, in file order.
    pub fn handles(&self) -> Vec<u32> {
        match self {
            OpenDoc::Tag(t) => t.doc.handles().into_iter().map(|h| h.0).collect(),
            OpenDoc::Pack(p) => (0..p.doc.objects.len() as u32).collect(),
        }
    }

    /// The objects of class `class`, in file order: of that class or one derived from it, or of
    /// that class alone when `exact`. `None` when the document knows no class of that name (its
    /// type table, a packfile's class descriptions).
    pub fn handles_of(&self, class: &str, exact: bool) -> Option<Vec<u32>> {
        match self {
            OpenDoc::Tag(t) => {
                let types = t.types();
                // The types of that name (a template's full name, else its bare name).
                let mut full = String::new();
                let wanted: Vec<TypeIndex> = (1..types.len() as TypeIndex)
                    .filter(|&i| {
                        types.get(i).is_some_and(|d| {
                            if class.contains('<') {
                                types.full_name_into(i, &mut full);
                                full == class
                            } else {
                                d.name.as_str() == class && types.params_of(d).is_empty()
                            }
                        })
                    })
                    .collect();
                if wanted.is_empty() {
                    return None;
                }
                let mut memo: HashMap<TypeIndex, bool> = HashMap::new();
                let mut is_a = |ty: TypeIndex| {
                    *memo.entry(ty).or_insert_with(|| {
                        let def = t.shape(ty).map_or(ty, |s| s.def);
                        if exact {
                            wanted.contains(&ty) || wanted.contains(&def)
                        } else {
                            types.ancestry(def).iter().any(|a| wanted.contains(a))
                                || wanted.contains(&ty)
                        }
                    })
                };
                Some(
                    t.doc
                        .handles()
                        .into_iter()
                        .filter(|&h| t.type_of(h.0).is_some_and(&mut is_a))
                        .map(|h| h.0)
                        .collect(),
                )
            }
            OpenDoc::Pack(p) => {
                let known = p.doc.classes.classes.contains_key(class)
                    || p.doc.objects.iter().any(|o| o.class == class);
                if !known {
                    return None;
                }
                Some(
                    (0..p.doc.objects.len() as u32)
                        .filter(|&h| {
                            let c = &p.doc.objects[h as usize].class;
                            if exact {
                                c == class
                            } else {
                                p.derives(c, class)
                            }
                        })
                        .collect(),
                )
            }
        }
    }

    /// The root object.
    pub fn root(&self) -> Option<u32> {
        match self {
            OpenDoc::Tag(t) => t.doc.root().map(|h| h.0).filter(|&h| t.type_of(h).is_some()),
            OpenDoc::Pack(p) => p.doc.root.map(|h| h.0),
        }
    }

    /// The class name of an object.
    pub fn class_name(&self, h: u32) -> Option<String> {
        match self {
            OpenDoc::Tag(t) => t.type_of(h).map(|ty| t.types().full_name(ty)),
            OpenDoc::Pack(p) => p.doc.objects.get(h as usize).map(|o| o.class.clone()),
        }
    }

    /// The record of an object itself.
    pub fn object_loc(&self, h: u32) -> Option<Loc> {
        match self {
            OpenDoc::Tag(t) => t.type_of(h).map(|ty| Loc::Tag {
                handle: h,
                ty,
                steps: Vec::new(),
            }),
            OpenDoc::Pack(p) => p.doc.objects.get(h as usize).map(|o| Loc::Pack {
                handle: h,
                class: o.class.clone(),
                steps: Vec::new(),
            }),
        }
    }

    /// The member names of a record, ancestors' first.
    pub fn keys(&self, loc: &Loc) -> Vec<String> {
        match (self, loc) {
            (OpenDoc::Tag(t), Loc::Tag { ty, .. }) => {
                t.members(*ty).iter().map(|m| m.name.to_string()).collect()
            }
            (OpenDoc::Pack(p), Loc::Pack { handle, class, .. }) => {
                match p.doc.objects.get(*handle as usize).map(|o| &o.body) {
                    Some(Body::Typed(_)) => p
                        .doc
                        .member_names(class)
                        .into_iter()
                        .filter(|n| n != objects::HIDDEN)
                        .collect(),
                    _ => Vec::new(),
                }
            }
            _ => Vec::new(),
        }
    }

    /// Member `name` of the record at `loc`; `Ok(None)` when it has no such member.
    pub fn get(&self, loc: &Loc, name: &str) -> Result<Option<Val>, Failure> {
        match (self, loc) {
            (OpenDoc::Tag(t), Loc::Tag { handle, ty, steps }) => t.get(*handle, *ty, steps, name),
            (
                OpenDoc::Pack(p),
                Loc::Pack {
                    handle,
                    class,
                    steps,
                },
            ) => p.get(*handle, class, steps, name),
            _ => Ok(None),
        }
    }

    /// Every member of the record at `loc`, in [`OpenDoc::keys`] order.
    pub fn get_all(&self, loc: &Loc) -> Result<Vec<(Name, Val)>, Failure> {
        match (self, loc) {
            (OpenDoc::Tag(t), Loc::Tag { handle, ty, steps }) => t.get_all(*handle, *ty, steps),
            (
                OpenDoc::Pack(p),
                Loc::Pack {
                    handle,
                    class,
                    steps,
                },
            ) => p.get_all(*handle, class, steps),
            _ => Ok(Vec::new()),
        }
    }

    /// Assigns member `name` of the record at `loc`. A tagfile is changed through
    /// `hktypes::Document::set_members`, which lays the file out again and may number its objects
    /// anew: the new handle of each old one is returned (indexed by old handle, 0 where none).
    pub fn set(
        &mut self,
        loc: &Loc,
        name: &str,
        value: NewVal,
    ) -> Result<Option<Vec<u32>>, SetError> {
        match (self, loc) {
            (OpenDoc::Tag(t), Loc::Tag { handle, ty, steps }) => {
                t.set(*handle, *ty, steps, name, value).map(Some)
            }
            (
                OpenDoc::Pack(p),
                Loc::Pack {
                    handle,
                    class,
                    steps,
                },
            ) => p.set(*handle, class, steps, name, value).map(|()| None),
            _ => Err(SetError::NoMember(name.to_owned())),
        }
    }

    /// The items of Havok enumeration `name`, where known (the packfile's class descriptions, the
    /// tagfile SDKs' overlay).
    pub fn enum_items(&self, name: &str) -> Option<Vec<(String, i64)>> {
        match self {
            OpenDoc::Tag(t) => overlay()?.items(name, &t.sdk).map(|i| i.items.clone()),
            OpenDoc::Pack(p) => p
                .doc
                .classes
                .enums
                .get(name)
                .map(|v| v.iter().map(|(n, s)| (s.clone(), *n)).collect()),
        }
    }

    /// Variable array member `name` of the record at `loc` as packed numbers, when it is numbers
    /// or fixed arrays of 4-byte floats (vectors and matrices): `None` for a packfile, another
    /// member, or an empty array.
    pub fn number_run(&self, loc: &Loc, name: &str) -> Option<NumberRun> {
        let (OpenDoc::Tag(t), Loc::Tag { handle, ty, steps }) = (self, loc) else {
            return None;
        };
        t.number_run(*handle, *ty, steps, name)
    }

    /// The file written: a tagfile's bytes with its assignments, a packfile laid out again from
    /// its objects by the packfile writer.
    pub fn to_bytes(&self) -> Result<Vec<u8>, Failure> {
        match self {
            OpenDoc::Tag(t) => Ok(t.bytes.clone()),
            OpenDoc::Pack(p) => Ok(p.doc.write()?),
        }
    }
}

/// Python's `struct` format of a number array's elements (`None`: not one `memoryview.cast` takes
/// as is).
fn number_format(kind: Kind, size: u32, signed: bool) -> Option<&'static str> {
    Some(match (kind, size, signed) {
        (Kind::Int, 1, true) => "b",
        (Kind::Int, 1, false) => "B",
        (Kind::Int, 2, true) => "h",
        (Kind::Int, 2, false) => "H",
        (Kind::Int, 4, true) => "i",
        (Kind::Int, 4, false) => "I",
        (Kind::Int, 8, true) => "q",
        (Kind::Int, 8, false) => "Q",
        (Kind::Float, 4, _) => "f",
        _ => return None,
    })
}

/// See [`OpenDoc::number_run`].
pub struct NumberRun {
    /// Python's `struct` format of one number (`f`, `h`...).
    pub format: &'static str,
    /// The elements, little-endian.
    pub bytes: Vec<u8>,
    /// How many elements.
    pub count: usize,
    /// The shape of one element: `[]` for a number, `[4]` for a vector, `[rows, columns]`.
    pub shape: Vec<usize>,
}

/// The shape of every type of `table` (`None`: no layout).
fn shapes_of(table: &TypeTable) -> Vec<Option<Shape>> {
    let mut layouts = hktypes::reflect::layout::Layouts::new(table);
    (0..table.len() as TypeIndex)
        .map(|i| layouts.shape(i).ok().flatten())
        .collect()
}

/// Element formats' sizes in bytes.
fn format_size(format: &str) -> usize {
    match format {
        "b" | "B" => 1,
        "h" | "H" => 2,
        "i" | "I" | "f" => 4,
        _ => 8,
    }
}

/// The numbers `elems` packed as little-endian elements of `format` (`None`: one is no number of
/// that kind).
fn pack(format: &str, elems: &[DVal]) -> Option<Vec<u8>> {
    let size = format_size(format);
    let mut out = Vec::with_capacity(elems.len().saturating_mul(size));
    for e in elems {
        let bits: u64 = match (format, e) {
            ("f", DVal::Real(x)) => u64::from(x.to_bits()),
            ("f", DVal::Bits(b)) => u64::from(*b),
            ("f", _) => return None,
            (_, DVal::UInt(u)) => *u,
            (_, DVal::Int(i)) => *i as u64,
            (_, DVal::Bool(b)) => u64::from(*b),
            _ => return None,
        };
        out.extend_from_slice(&bits.to_le_bytes()[..size]);
    }
    Some(out)
}

/// For each old handle (by index), its new handle (0 where an index named no object), from
/// pairs (old, new).
fn renumbering(pairs: &[(hktypes::Handle, hktypes::Handle)]) -> Vec<u32> {
    let len = pairs.iter().map(|(o, _)| o.0 as usize + 1).max().unwrap_or(0);
    let mut map = vec![0u32; len];
    for (o, n) in pairs {
        map[o.0 as usize] = n.0;
    }
    map
}

impl TagDoc {
    /// Reads a TAG0 file (or `<hktagfile>` XML, `format` `tagfile_xml`) through `hktypes::open`,
    /// with `compendia`; every object untyped (its members come from `Document::members`).
    fn open(bytes: Vec<u8>, compendia: CompendiumSet, format: &'static str) -> Result<TagDoc, Failure> {
        let options = hktypes::OpenOptions {
            compendia: Some(&compendia),
            ..Default::default()
        };
        let doc = hktypes::open(&bytes, &options)?;
        let (sdk, shapes) = match doc.as_tagfile() {
            Some(t) => (t.sdk_version(), shapes_of(t.types())),
            None => return Err(Failure::input("a tagfile that did not read as one")),
        };
        // A TAG0 file is kept as read; XML is written as the TAG0 file it gives.
        let bytes = if format == "tag0" { bytes } else { doc.write()? };
        Ok(TagDoc {
            doc,
            sdk,
            shapes,
            compendia,
            bytes,
            members: Default::default(),
            names: Default::default(),
            values: Default::default(),
            format,
        })
    }

    /// The tagfile's object graph (a `TagDoc` holds nothing else).
    fn graph(&self) -> &hktypes::graph::TagfileDocument {
        match self.doc.as_tagfile() {
            Some(t) => t,
            None => unreachable!("a TagDoc holds a tagfile"),
        }
    }

    fn types(&self) -> &TypeTable {
        self.graph().types()
    }

    /// The type of object `h` (`None`: no object).
    fn type_of(&self, h: u32) -> Option<TypeIndex> {
        let g = self.graph();
        let item = g.source_of(hktypes::Handle(h))?;
        g.source_item(item).map(|it| it.ty)
    }

    fn object_type(&self, h: u32) -> Result<TypeIndex, Failure> {
        self.type_of(h)
            .ok_or_else(|| Failure::input(format!("no object #{h}")))
    }

    fn shape(&self, ty: TypeIndex) -> Option<Shape> {
        self.shapes.get(ty as usize).copied().flatten()
    }

    /// The full name of type `ty` (`hkArray<hkInt16, hkContainerHeapAllocator>`), made once.
    fn name(&self, ty: TypeIndex) -> Name {
        self.names
            .borrow_mut()
            .entry(ty)
            .or_insert_with(|| Arc::from(self.types().full_name(ty)))
            .clone()
    }

    /// The element type of an array type (variable or fixed).
    fn elem_type(&self, ty: TypeIndex) -> Option<TypeIndex> {
        let def = self.shape(ty)?.def;
        self.types().get(def)?.subtype
    }

    /// A record type's members, ancestors' first (by the type that carries its format), with
    /// their enumerations: worked out on the first read of a record of that type.
    fn members(&self, ty: TypeIndex) -> Arc<[TagMember]> {
        if let Some(m) = self.members.borrow().get(&ty) {
            return Arc::clone(m);
        }
        let types = self.types();
        let def = self.shape(ty).map_or(ty, |s| s.def);
        let mut out = Vec::new();
        for owner in types.ancestry(def) {
            let Some(t) = types.get(owner) else {
                continue;
            };
            for f in types.fields_of(t) {
                // Only integers are enumerations: the lookups are spared for every other member.
                let is_int = self.shape(f.ty).is_some_and(|s| s.kind == Kind::Int);
                let mut enumeration = if is_int { self.enum_of(f.ty) } else { None };
                if is_int && enumeration.is_none() {
                    // A member stored as a bare integer that the overlay knows as an enumeration.
                    let key = format!("{}.{}", types.full_name(owner), f.name.as_str());
                    enumeration =
                        overlay().and_then(|o| o.members.get(&key).map(|e| Arc::from(e.as_str())));
                }
                out.push(TagMember {
                    name: Arc::from(f.name.as_str()),
                    ty: f.ty,
                    offset: f.offset,
                    enumeration,
                });
            }
        }
        let members: Arc<[TagMember]> = out.into();
        self.members.borrow_mut().insert(ty, Arc::clone(&members));
        members
    }

    /// The enumeration a member of type `ty` holds: `hkEnum<E, S>`/`hkFlags<E, S>` name theirs.
    fn enum_of(&self, ty: TypeIndex) -> Option<Name> {
        let types = self.types();
        let mut cur = ty;
        for _ in 0..16 {
            let t = types.get(cur)?;
            if t.name.as_str() == "hkEnum" || t.name.as_str() == "hkFlags" {
                let param = types
                    .params_of(t)
                    .iter()
                    .find(|p| p.name.as_str() == "tENUM" || p.name.as_str() == "tBITS")?;
                return match param.arg {
                    TemplateArg::Type(e) => Some(self.name(e)),
                    TemplateArg::Value(_) => None,
                };
            }
            if t.parent == 0 {
                return None;
            }
            cur = t.parent;
        }
        None
    }

    /// Object `h`'s members as `Document::members` gives them, as one record: decoded on the
    /// first read of the object.
    fn values(&self, h: u32) -> Result<Arc<DVal>, Failure> {
        self.values.get(h, |h| self.doc.members(h))
    }

    /// The value `steps` lead to from `root` (of type `ty`), and its type.
    fn walk<'v>(&self, root: &'v DVal, mut ty: TypeIndex, steps: &[Step]) -> Option<(Cow<'v, DVal>, TypeIndex)> {
        let mut v = Cow::Borrowed(root);
        for step in steps {
            match *step {
                Step::Member(i) => {
                    let members = self.members(ty);
                    let m = members.get(i)?;
                    v = self.field(v, i, m)?;
                    ty = m.ty;
                }
                Step::Elem(k) => {
                    ty = self.elem_type(ty)?;
                    v = match v {
                        Cow::Borrowed(x) => Cow::Borrowed(x.as_list()?.get(k)?),
                        Cow::Owned(x) => Cow::Owned(x.as_list()?.get(k)?.clone()),
                    };
                }
            }
        }
        Some((v, ty))
    }

    /// Member `m` (the `i`th of its record type) of record value `v`: a record's member, or,
    /// where the value is a vector, matrix or transform given as its reals (as the dump gives
    /// those), the reals at the member's offset.
    fn field<'v>(&self, v: Cow<'v, DVal>, i: usize, m: &TagMember) -> Option<Cow<'v, DVal>> {
        fn pick<'a>(ms: &'a DMembers, i: usize, name: &str) -> Option<&'a DVal> {
            match ms.0.get(i) {
                Some((n, v)) if n == name => Some(v),
                _ => ms.get(name),
            }
        }
        match v {
            Cow::Borrowed(DVal::Record(ms)) => pick(ms, i, &m.name).map(Cow::Borrowed),
            Cow::Owned(DVal::Record(ms)) => pick(&ms, i, &m.name).cloned().map(Cow::Owned),
            v => {
                let (a, b, one) = self.reals_of(m)?;
                let part = v.as_list()?.get(a..b)?;
                Some(Cow::Owned(if one {
                    part.first()?.clone()
                } else {
                    DVal::List(part.to_vec())
                }))
            }
        }
    }

    /// Where member `m` of a record given as its reals lies among them, and whether it is one
    /// real.
    fn reals_of(&self, m: &TagMember) -> Option<(usize, usize, bool)> {
        let s = self.shape(m.ty)?;
        let a = (m.offset / 4) as usize;
        Some((a, a + (s.size / 4) as usize, s.kind == Kind::Float))
    }

    /// A value of type `ty` as Python sees it; `path` leads to it from object `h`.
    fn view(
        &self,
        h: u32,
        ty: TypeIndex,
        v: &DVal,
        enumeration: Option<Name>,
        path: &mut Vec<Step>,
        depth: usize,
    ) -> Result<Val, Failure> {
        if depth > 64 {
            return Err(Failure::input("values nested more than 64 deep"));
        }
        let Some(shape) = self.shape(ty) else {
            return Ok(Val::Bytes(match v {
                DVal::Bytes(b) => b.clone(),
                _ => Vec::new(),
            }));
        };
        let def = self.types().get(shape.def);
        let fmt = def
            .and_then(|d| d.format())
            .unwrap_or(hktypes::reflect::TypeFormat(0));
        Ok(match (shape.kind, v) {
            (Kind::String, DVal::Str(s)) => Val::Str(s.clone()),
            (Kind::String, DVal::Bytes(b)) => {
                Val::Str(String::from_utf8_lossy(b.strip_suffix(&[0]).unwrap_or(b)).into_owned())
            }
            (Kind::String, _) => Val::None,
            (_, DVal::Bytes(b)) => Val::Bytes(b.clone()),
            (Kind::Bool, DVal::Bool(b)) => Val::Bool(*b),
            (Kind::Bool, x) => Val::Bool(x.as_u64().is_none_or(|u| u != 0)),
            (Kind::Int, x) => {
                let (n, u) = match x {
                    DVal::Int(i) => (*i, *i as u64),
                    DVal::UInt(u) => (*u as i64, *u),
                    DVal::Bool(b) => (i64::from(*b), u64::from(*b)),
                    _ => return Ok(Val::None),
                };
                match enumeration {
                    Some(name) => Val::Enum { name, value: n },
                    None if fmt.is_signed() => Val::Int(n),
                    None => Val::UInt(u),
                }
            }
            (Kind::Float, x) => match x.as_f64() {
                Some(f) => Val::Float(f),
                None => Val::None,
            },
            (Kind::Pointer, DVal::Ref(i, _)) if self.type_of(*i).is_some() => Val::Object(*i),
            (Kind::Pointer, _) => Val::None,
            (Kind::Array, x) if !fmt.is_fixed_array() => {
                let elem = def.and_then(|d| d.subtype).unwrap_or(0);
                self.elements(h, elem, x.as_list().unwrap_or(&[]), path, depth)?
            }
            (Kind::Array, x) => {
                let elem = def.and_then(|d| d.subtype).unwrap_or(0);
                self.fixed(h, elem, x.as_list().unwrap_or(&[]), path, depth)?
            }
            (Kind::Record, _) => Val::Record(
                Loc::Tag {
                    handle: h,
                    ty,
                    steps: path.clone(),
                },
                self.name(ty),
            ),
            _ => Val::Bytes(Vec::new()),
        })
    }

    /// The elements of a variable array of element type `elem`: numbers packed, other values a
    /// list.
    fn elements(
        &self,
        h: u32,
        elem: TypeIndex,
        elems: &[DVal],
        path: &mut Vec<Step>,
        depth: usize,
    ) -> Result<Val, Failure> {
        let shape = self.shape(elem);
        let signed = self
            .types()
            .get(shape.map_or(elem, |s| s.def))
            .and_then(|d| d.format())
            .is_some_and(|f| f.is_signed());
        if let Some(format) = shape.and_then(|s| number_format(s.kind, s.size, signed)) {
            if let Some(bytes) = pack(format, elems) {
                return Ok(Val::Numbers { format, bytes });
            }
        }
        let enumeration = self.enum_of(elem);
        let mut list = Vec::with_capacity(elems.len());
        for (k, e) in elems.iter().enumerate() {
            path.push(Step::Elem(k));
            let v = self.view(h, elem, e, enumeration.clone(), path, depth + 1);
            path.pop();
            list.push(v?);
        }
        Ok(Val::List(list))
    }

    /// A fixed array: floats as a vector (or rows of a matrix), other elements as a list.
    fn fixed(
        &self,
        h: u32,
        elem: TypeIndex,
        elems: &[DVal],
        path: &mut Vec<Step>,
        depth: usize,
    ) -> Result<Val, Failure> {
        let kind = self.shape(elem).map(|s| s.kind);
        if kind == Some(Kind::Float) {
            return Ok(Val::Floats(
                elems.iter().map(|e| e.as_f64().unwrap_or(0.0)).collect(),
                0,
            ));
        }
        let mut list = Vec::with_capacity(elems.len());
        for (k, e) in elems.iter().enumerate() {
            path.push(Step::Elem(k));
            let v = self.view(h, elem, e, None, path, depth + 1);
            path.pop();
            list.push(v?);
        }
        // A matrix: rows that are vectors.
        if list.iter().all(|v| matches!(v, Val::Floats(_, 0))) && !list.is_empty() {
            let mut width = 0;
            let mut all = Vec::new();
            for v in list {
                if let Val::Floats(f, _) = v {
                    width = f.len();
                    all.extend(f);
                }
            }
            return Ok(Val::Floats(all, width));
        }
        Ok(Val::List(list))
    }

    /// An error for a record that is not where its path leads (any more).
    fn gone(h: u32, steps: &[Step]) -> Failure {
        Failure::input(format!(
            "object #{h} holds no record at {steps:?}: the value it was read from has changed"
        ))
    }

    /// Member `i` (`m`) of record value `rec`, its record at `steps` of object `h`.
    fn member(&self, h: u32, rec: &DVal, steps: &[Step], i: usize, m: &TagMember) -> Result<Val, Failure> {
        let located = |e: Failure| Failure {
            path: vec![m.name.to_string()],
            ..e
        };
        let v = self
            .field(Cow::Borrowed(rec), i, m)
            .ok_or_else(|| located(Failure::input(format!("the object's members have no {}", m.name))))?;
        let mut path = steps.to_vec();
        path.push(Step::Member(i));
        self.view(h, m.ty, &v, m.enumeration.clone(), &mut path, 0)
            .map_err(located)
    }

    fn get(&self, h: u32, ty: TypeIndex, steps: &[Step], name: &str) -> Result<Option<Val>, Failure> {
        let members = self.members(ty);
        let Some(i) = members.iter().position(|m| &*m.name == name) else {
            return Ok(None);
        };
        let root = self.values(h)?;
        let (rec, _) = self
            .walk(&root, self.object_type(h)?, steps)
            .ok_or_else(|| Self::gone(h, steps))?;
        self.member(h, &rec, steps, i, &members[i]).map(Some)
    }

    /// Every member of the record of type `ty` at `steps` of object `h`.
    fn get_all(&self, h: u32, ty: TypeIndex, steps: &[Step]) -> Result<Vec<(Name, Val)>, Failure> {
        let root = self.values(h)?;
        let (rec, _) = self
            .walk(&root, self.object_type(h)?, steps)
            .ok_or_else(|| Self::gone(h, steps))?;
        self.members(ty)
            .iter()
            .enumerate()
            .map(|(i, m)| Ok((Arc::clone(&m.name), self.member(h, &rec, steps, i, m)?)))
            .collect()
    }

    /// See [`OpenDoc::number_run`].
    fn number_run(&self, h: u32, ty: TypeIndex, steps: &[Step], name: &str) -> Option<NumberRun> {
        let members = self.members(ty);
        let m = members.iter().find(|m| &*m.name == name)?;
        let shape = self.shape(m.ty)?;
        let fixed = self
            .types()
            .get(shape.def)
            .and_then(|d| d.format())
            .is_some_and(|f| f.is_fixed_array());
        if shape.kind != Kind::Array || fixed {
            return None;
        }
        match self.get(h, ty, steps, name).ok()?? {
            Val::Numbers { format, bytes } if !bytes.is_empty() => Some(NumberRun {
                format,
                count: bytes.len() / format_size(format),
                bytes,
                shape: Vec::new(),
            }),
            // Vectors or matrices of 4-byte floats.
            Val::List(items) if !items.is_empty() => {
                let elem = self.elem_type(m.ty)?;
                let floats = |t: TypeIndex| self.elem_type(t).and_then(|e| self.shape(e));
                let inner = floats(elem)?;
                let four = (inner.kind == Kind::Float && inner.size == 4)
                    || floats(self.elem_type(elem)?).is_some_and(|s| s.kind == Kind::Float && s.size == 4);
                if !four {
                    return None;
                }
                let mut dims: Option<Vec<usize>> = None;
                let mut bytes = Vec::new();
                for it in &items {
                    let Val::Floats(f, w) = it else { return None };
                    let d = if *w == 0 { vec![f.len()] } else { vec![f.len() / w, *w] };
                    if *dims.get_or_insert_with(|| d.clone()) != d {
                        return None;
                    }
                    for x in f {
                        bytes.extend_from_slice(&(*x as f32).to_le_bytes());
                    }
                }
                Some(NumberRun {
                    format: "f",
                    bytes,
                    count: items.len(),
                    shape: dims?,
                })
            }
            _ => None,
        }
    }

    /// A value of type `ty` assigned `value`, as `Document::members` gives one: a boolean, an
    /// integer, a float, a fixed array of them (a vector, a matrix as rows) given as a sequence of
    /// its length, a pointer to an object of the document, a string, or a variable array of
    /// numbers, booleans or vectors. Checked against the type (kind, range, length).
    fn encode(&self, ty: TypeIndex, value: &NewVal, name: &str, depth: usize) -> Result<DVal, SetError> {
        let shape = self
            .shape(ty)
            .ok_or_else(|| SetError::Type(format!("{name}: its type has no layout")))?;
        let types = self.types();
        let def = types.get(shape.def);
        let fmt = def
            .and_then(|d| d.format())
            .unwrap_or(hktypes::reflect::TypeFormat(0));
        let size = shape.size as usize;
        let target_ty = def.and_then(|d| d.subtype).unwrap_or(0);
        Ok(match (shape.kind, value) {
            (Kind::Bool, NewVal::Bool(b)) => DVal::Bool(*b),
            (Kind::Bool, _) => return Err(SetError::Type(format!("{name}: expected a bool"))),
            (Kind::Int, NewVal::Int(_) | NewVal::Bool(_)) if size <= 8 && size > 0 => {
                let i = match value {
                    NewVal::Int(i) => *i,
                    NewVal::Bool(b) => i128::from(*b),
                    _ => 0,
                };
                let bits = 8 * size as u32;
                let (lo, hi) = if fmt.is_signed() {
                    (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
                } else {
                    (0, (1i128 << bits) - 1)
                };
                if i < lo || i > hi {
                    return Err(SetError::Range(format!(
                        "{name}: {i} is out of the range {lo}..={hi} of a {size}-byte integer"
                    )));
                }
                if i < 0 {
                    DVal::Int(i as i64)
                } else {
                    DVal::UInt(i as u64)
                }
            }
            (Kind::Int, _) => return Err(SetError::Type(format!("{name}: expected an int"))),
            (Kind::Float, NewVal::Float(_) | NewVal::Int(_)) => {
                let x = match value {
                    NewVal::Float(x) => *x,
                    NewVal::Int(i) => *i as f64,
                    _ => 0.0,
                };
                if x.is_finite() && x.abs() > f64::from(f32::MAX) {
                    return Err(SetError::Range(format!(
                        "{name}: {x} is out of the range of a 32-bit float"
                    )));
                }
                if size != 4 && size != 2 {
                    return Err(SetError::Type(format!(
                        "{name}: a {size}-byte float is not assignable"
                    )));
                }
                DVal::Real(x as f32)
            }
            (Kind::Float, _) => return Err(SetError::Type(format!("{name}: expected a float"))),
            (Kind::Array, NewVal::Seq(items)) if fmt.is_fixed_array() && depth < 4 => {
                let n = fmt.fixed_count() as usize;
                let elem_size = self.shape(target_ty).map_or(0, |s| s.size as usize);
                if target_ty == 0 || elem_size * n != size {
                    return Err(SetError::Type(format!(
                        "{name}: a fixed array of this type is not assignable"
                    )));
                }
                if items.len() != n {
                    return Err(SetError::Range(format!(
                        "{name}: {} values given for a fixed array of {n}",
                        items.len()
                    )));
                }
                let mut out = Vec::with_capacity(n);
                for (k, v) in items.iter().enumerate() {
                    out.push(self.encode(target_ty, v, &format!("{name}[{k}]"), depth + 1)?);
                }
                DVal::List(out)
            }
            (Kind::Array, _) if fmt.is_fixed_array() => {
                return Err(SetError::Type(format!(
                    "{name}: expected a sequence of {} values",
                    fmt.fixed_count()
                )))
            }
            (Kind::Pointer | Kind::String, NewVal::None) => DVal::Null,
            (Kind::Pointer, NewVal::Object(h)) => {
                let obj = self
                    .type_of(*h)
                    .ok_or_else(|| SetError::Type(format!("{name}: #{h} is not an object")))?;
                let target = self.shape(target_ty).map_or(target_ty, |s| s.def);
                let ancestry = types.ancestry(self.shape(obj).map_or(obj, |s| s.def));
                if target_ty != 0 && !ancestry.contains(&target) {
                    return Err(SetError::Type(format!(
                        "{name}: a {} is not a {}",
                        types.full_name(obj),
                        types.full_name(target_ty)
                    )));
                }
                DVal::Ref(*h, None)
            }
            (Kind::Pointer, _) => {
                return Err(SetError::Type(format!(
                    "{name}: expected an object of this document or None"
                )))
            }
            (Kind::String, NewVal::Str(s)) => {
                if s.as_bytes().contains(&0) {
                    return Err(SetError::Range(format!("{name}: a string holds no NUL")));
                }
                DVal::Str(s.clone())
            }
            (Kind::String, _) => {
                return Err(SetError::Type(format!("{name}: expected a str or None")))
            }
            (Kind::Array, NewVal::Seq(values)) => {
                let elem_shape = self.shape(target_ty).ok_or_else(|| {
                    SetError::Type(format!("{name}: its elements have no layout"))
                })?;
                let elem_fixed = types
                    .get(elem_shape.def)
                    .and_then(|d| d.format())
                    .is_some_and(|f| f.is_fixed_array());
                let assignable = matches!(elem_shape.kind, Kind::Bool | Kind::Int | Kind::Float)
                    || (elem_shape.kind == Kind::Array && elem_fixed);
                if !assignable {
                    return Err(SetError::Type(format!(
                        "{name}: assigning an array of {:?} elements is not supported (arrays of numbers, booleans and vectors are)",
                        elem_shape.kind
                    )));
                }
                let mut out = Vec::with_capacity(values.len());
                for (k, v) in values.iter().enumerate() {
                    out.push(self.encode(target_ty, v, &format!("{name}[{k}]"), 0)?);
                }
                DVal::List(out)
            }
            (Kind::Array, _) => {
                return Err(SetError::Type(format!("{name}: expected a list or tuple")))
            }
            (k, _) => {
                return Err(SetError::Type(format!(
                    "{name}: assigning a {k:?} member is not supported"
                )))
            }
        })
    }

    /// Puts `new` where `steps` lead in `v` (of type `ty`); `None` when they lead nowhere.
    fn put(&self, v: &mut DVal, ty: TypeIndex, steps: &[Step], new: DVal) -> Option<()> {
        let Some((first, rest)) = steps.split_first() else {
            *v = new;
            return Some(());
        };
        match *first {
            Step::Member(i) => {
                let members = self.members(ty);
                let m = members.get(i)?;
                match v {
                    DVal::Record(ms) => {
                        let bare = |n: &str| n.strip_prefix("m_").unwrap_or(n).to_owned();
                        let j = if ms.0.get(i).is_some_and(|(n, _)| **n == *m.name) {
                            i
                        } else {
                            ms.0.iter().position(|(n, _)| bare(n) == bare(&m.name))?
                        };
                        self.put(&mut ms.0[j].1, m.ty, rest, new)
                    }
                    // A vector, matrix or transform as its reals: the member's reals replaced.
                    DVal::List(reals) | DVal::Array(reals, _) => {
                        let (a, b, one) = self.reals_of(m)?;
                        let part = reals.get(a..b)?;
                        let mut sub = if one {
                            part.first()?.clone()
                        } else {
                            DVal::List(part.to_vec())
                        };
                        self.put(&mut sub, m.ty, rest, new)?;
                        let flat = match sub {
                            DVal::List(l) => l,
                            x => vec![x],
                        };
                        if flat.len() != b - a {
                            return None;
                        }
                        reals.splice(a..b, flat);
                        Some(())
                    }
                    _ => None,
                }
            }
            Step::Elem(k) => {
                let elem = self.elem_type(ty)?;
                match v {
                    DVal::List(l) | DVal::Array(l, _) => self.put(l.get_mut(k)?, elem, rest, new),
                    _ => None,
                }
            }
        }
    }

    /// Assigns member `name` of the record of type `ty` at `steps` of object `h`: the object's
    /// member that holds it is given its new value through `Document::set_members`, which lays
    /// the file out again (byte for byte as read where nothing changed) and reads it back.
    /// Returns the new handle of each old one.
    fn set(&mut self, h: u32, ty: TypeIndex, steps: &[Step], name: &str, value: NewVal) -> Result<Vec<u32>, SetError> {
        let members = self.members(ty);
        let Some(i) = members.iter().position(|m| &*m.name == name) else {
            return Err(SetError::NoMember(name.to_owned()));
        };
        let new = self.encode(members[i].ty, &value, name, 0)?;
        let obj = self.object_type(h).map_err(SetError::Havok)?;
        let mut full = steps.to_vec();
        full.push(Step::Member(i));
        let (top, changed) = {
            let mut root = (*self.values(h).map_err(SetError::Havok)?).clone();
            self.put(&mut root, obj, &full, new)
                .ok_or_else(|| SetError::Havok(Self::gone(h, steps)))?;
            let Step::Member(j) = full[0] else {
                return Err(SetError::Havok(Self::gone(h, steps)));
            };
            let top = self.members(obj).get(j).map(|m| m.name.to_string()).unwrap_or_default();
            let changed = match &root {
                DVal::Record(ms) => ms.get(&top).cloned(),
                _ => None,
            };
            (top, changed.ok_or_else(|| SetError::Havok(Self::gone(h, steps)))?)
        };
        let options = hktypes::OpenOptions {
            compendia: Some(&self.compendia),
            ..Default::default()
        };
        let map = self
            .doc
            .set_members_renumbered(hktypes::Handle(h), vec![(top, changed)], &options)
            .map_err(|e| SetError::Havok(e.into()))?;
        self.bytes = self.doc.write().map_err(|e| SetError::Havok(e.into()))?;
        // The file read back may describe its types anew: what was worked out per type is
        // worked out again.
        self.shapes = shapes_of(self.types());
        self.members.borrow_mut().clear();
        self.names.borrow_mut().clear();
        self.values.clear();
        Ok(renumbering(&map))
    }
}

/// The element of `items` that `step` names, to change it (`None` when it names a member, not an
/// element).
fn elem_mut<'v>(items: &'v mut [MemberValue], step: &Step) -> Option<&'v mut MemberValue> {
    let Step::Elem(e) = step else { return None };
    items.get_mut(*e)
}

impl PackDoc {
    /// Object `h`'s members as `PackfileDocument::members` gives them (the packfile walk out, as
    /// the dump), decoded on its first read.
    fn values(&self, h: u32) -> Result<Arc<DVal>, Failure> {
        self.values.get(h, |h| self.doc.members(h))
    }

    /// The members of the record `steps` lead to from object `h`'s values: a struct member is
    /// the record, an array member's record is the element the next step names.
    fn walk<'v>(root: &'v DVal, steps: &[Step]) -> Option<&'v DMembers> {
        let DVal::Record(first) = root else { return None };
        let mut cur = first;
        let mut it = steps.iter();
        while let Some(step) = it.next() {
            let Step::Member(i) = step else { return None };
            let mut v = &cur.0.get(*i)?.1;
            if let DVal::List(items) | DVal::Array(items, _) = v {
                let Step::Elem(k) = it.next()? else { return None };
                v = items.get(*k)?;
            }
            let DVal::Record(ms) = v else { return None };
            cur = ms;
        }
        Some(cur)
    }

    fn record_mut(&mut self, handle: u32, steps: &[Step]) -> Option<&mut Vec<MemberValue>> {
        let Body::Typed(values) = &mut self.doc.objects.get_mut(handle as usize)?.body else {
            return None;
        };
        let mut cur: &mut Vec<MemberValue> = values;
        let mut it = steps.iter();
        while let Some(step) = it.next() {
            let Step::Member(i) = step else { return None };
            let v = match cur.get_mut(*i)? {
                // A typed array (numbers) holds no struct.
                MemberValue::Array(a) => match &mut a.items {
                    objects::Items::Values(items) => elem_mut(items, it.next()?)?,
                    _ => return None,
                },
                MemberValue::CArray(a) | MemberValue::RelArray(a) => elem_mut(a, it.next()?)?,
                v => v,
            };
            let MemberValue::Struct(vs) = v else { return None };
            cur = vs;
        }
        Some(cur)
    }

    fn get(&self, handle: u32, class: &str, steps: &[Step], name: &str) -> Result<Option<Val>, Failure> {
        let names = self.doc.member_names(class);
        let Some(i) = names.iter().position(|n| n == name && n != objects::HIDDEN) else {
            return Ok(None);
        };
        self.get_index(handle, class, steps, i)
    }

    fn get_all(&self, handle: u32, class: &str, steps: &[Step]) -> Result<Vec<(Name, Val)>, Failure> {
        let mut out = Vec::new();
        for (i, n) in self.doc.member_names(class).into_iter().enumerate() {
            if n != objects::HIDDEN {
                if let Some(v) = self.get_index(handle, class, steps, i)? {
                    out.push((Arc::from(n), v));
                }
            }
        }
        Ok(out)
    }

    /// Member `i` of `class`, of the record at `steps` of object `handle`.
    fn get_index(&self, handle: u32, class: &str, steps: &[Step], i: usize) -> Result<Option<Val>, Failure> {
        let Some(member) = self.doc.member(class, i) else { return Ok(None) };
        // An untyped object (kept as its bytes) has no members to read.
        if !matches!(self.doc.objects.get(handle as usize).map(|o| &o.body), Some(Body::Typed(_))) {
            return Ok(None);
        }
        let root = self.values(handle)?;
        let record = Self::walk(&root, steps).ok_or_else(|| {
            Failure::input(format!("object #{handle} holds no record at {steps:?}: the value it was read from has changed"))
        })?;
        let Some((_, v)) = record.0.get(i) else { return Ok(None) };
        let mut path = steps.to_vec();
        path.push(Step::Member(i));
        Ok(Some(self.view(handle, &path, v, member)))
    }

    /// A value of member `m` as Python sees it; `path` leads to it from object `handle`.
    fn view(&self, handle: u32, path: &[Step], v: &DVal, m: &Member) -> Val {
        use MemberType as T;
        if m.c_array_size > 0 || matches!(m.ty, T::Array | T::SimpleArray | T::RelArray | T::InplaceArray) {
            return self.list(handle, path, v.as_list().unwrap_or(&[]), m);
        }
        match (m.ty, v) {
            (T::Struct, DVal::Record(_)) => match &m.class {
                Some(c) => Val::Record(Loc::Pack { handle, class: c.clone(), steps: path.to_vec() }, Arc::from(c.as_str())),
                None => Val::None,
            },
            (T::Enum | T::Flags, x) if m.enumeration.is_some() => {
                let name = m.enumeration.as_deref().unwrap_or_default();
                // The walk names an item where the class set has one of that value.
                let value = match x {
                    DVal::Str(item) => self.doc.classes.enums.get(name).and_then(|items| items.iter().find(|(_, s)| s == item)).map_or(0, |(n, _)| *n),
                    x => x.as_i64().unwrap_or(0),
                };
                Val::Enum { name: Arc::from(name), value }
            }
            (T::Bool, x) => Val::Bool(x.as_u64().is_some_and(|b| b != 0)),
            (T::Vector4 | T::Quaternion, x) => Val::Floats(x.reals().into_iter().map(f64::from).collect(), 0),
            (T::Matrix3 | T::Rotation | T::QsTransform | T::Matrix4 | T::Transform, x) => Val::Floats(x.reals().into_iter().map(f64::from).collect(), 4),
            (T::Pointer | T::FunctionPointer, DVal::Ref(h, None)) => Val::Object(*h),
            (T::Variant, DVal::List(pair)) => match pair.first() {
                Some(DVal::Ref(h, None)) => Val::Object(*h),
                _ => Val::None,
            },
            (T::CString | T::StringPtr, DVal::Str(s)) => Val::Str(s.clone()),
            (T::CString | T::StringPtr, DVal::Bytes(b)) => Val::Str(String::from_utf8_lossy(b).into_owned()),
            (_, DVal::Int(i)) => Val::Int(*i),
            (_, DVal::UInt(u)) => Val::UInt(*u),
            (_, x @ (DVal::Real(_) | DVal::Bits(_))) => x.as_f64().map_or(Val::None, Val::Float),
            (_, DVal::Bytes(b)) => Val::Bytes(b.clone()),
            _ => Val::None,
        }
    }

    /// An array's or C array's elements: a variable array of numbers packed, other elements a list.
    fn list(&self, handle: u32, path: &[Step], items: &[DVal], m: &Member) -> Val {
        use MemberType as T;
        let format = match m.subtype {
            T::Real => Some("f"),
            T::Int8 => Some("b"),
            T::Uint8 => Some("B"),
            T::Int16 => Some("h"),
            T::Uint16 => Some("H"),
            T::Int32 => Some("i"),
            T::Uint32 => Some("I"),
            T::Int64 => Some("q"),
            T::Uint64 => Some("Q"),
            _ => None,
        };
        if let Some(format) = format.filter(|_| m.c_array_size == 0 && m.enumeration.is_none()) {
            if let Some(bytes) = pack(format, items) {
                return Val::Numbers { format, bytes };
            }
        }
        // An element is described by the member with its element type.
        let elem = Member {
            ty: if m.c_array_size > 0 { m.ty } else { m.subtype },
            subtype: MemberType::Void,
            c_array_size: 0,
            ..m.clone()
        };
        Val::List(
            items
                .iter()
                .enumerate()
                .map(|(e, v)| {
                    let mut p = path.to_vec();
                    p.push(Step::Elem(e));
                    self.view(handle, &p, v, &elem)
                })
                .collect(),
        )
    }

    fn set(
        &mut self,
        handle: u32,
        class: &str,
        steps: &[Step],
        name: &str,
        value: NewVal,
    ) -> Result<(), SetError> {
        let names = self.doc.member_names(class);
        let i = names
            .iter()
            .position(|n| n == name && n != objects::HIDDEN)
            .ok_or_else(|| SetError::NoMember(name.to_owned()))?;
        let member = self
            .doc
            .member(class, i)
            .ok_or_else(|| SetError::NoMember(name.to_owned()))?
            .clone();
        // A pointer's target must be an object of the member's class (or a class derived from it).
        if let NewVal::Object(h) = &value {
            let object = self
                .doc
                .objects
                .get(*h as usize)
                .ok_or_else(|| SetError::Type(format!("{name}: #{h} is not an object")))?;
            if let Some(want) = &member.class {
                if !self.derives(&object.class, want) {
                    return Err(SetError::Type(format!(
                        "{name}: a {} is not a {want}",
                        object.class
                    )));
                }
            }
        }
        let record = self
            .record_mut(handle, steps)
            .ok_or_else(|| SetError::NoMember(name.to_owned()))?;
        let slot = record
            .get_mut(i)
            .ok_or_else(|| SetError::NoMember(name.to_owned()))?;
        let new = match (&*slot, &value) {
            (MemberValue::Array(a), NewVal::Seq(values)) => {
                let template = packed_element(member.subtype).ok_or_else(|| {
                    SetError::Type(format!(
                        "{name}: assigning an array of {:?} elements is not supported (arrays of numbers, booleans and vectors are)",
                        member.subtype
                    ))
                })?;
                if member.enumeration.is_some() {
                    return Err(SetError::Type(format!(
                        "{name}: assigning an array of enumeration values is not supported"
                    )));
                }
                let items = values
                    .iter()
                    .enumerate()
                    .map(|(k, v)| {
                        packed_value(&template, member.subtype, v, &format!("{name}[{k}]"))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                // The capacity word keeps its flags; its count follows the new length.
                let capacity = (a.capacity & 0xC000_0000) | items.len() as u32;
                MemberValue::Array(objects::MemberArray { items: objects::Items::Values(items), capacity })
            }
            (MemberValue::Array(_), _) => {
                return Err(SetError::Type(format!("{name}: expected a list or tuple")))
            }
            (slot, v) => {
                let storage = if member.ty == MemberType::Enum || member.ty == MemberType::Flags {
                    member.subtype
                } else {
                    member.ty
                };
                packed_value(slot, storage, v, name)?
            }
        };
        *slot = new;
        self.values.forget(handle);
        Ok(())
    }

    /// Whether class `class` is `base` or derives from it.
    fn derives(&self, class: &str, base: &str) -> bool {
        let mut cur = Some(class);
        for _ in 0..64 {
            let Some(c) = cur else { return false };
            if c == base {
                return true;
            }
            cur = self
                .doc
                .classes
                .classes
                .get(c)
                .and_then(|c| c.parent.as_deref());
        }
        false
    }
}

/// A zero element of an array of `subtype`, the kind of value its elements are (`None`: elements
/// that are not assignable: structs, pointers, strings).
fn packed_element(subtype: MemberType) -> Option<MemberValue> {
    Some(match subtype {
        MemberType::Bool => MemberValue::Bool(0),
        MemberType::Real => MemberValue::Real(0.0),
        MemberType::Char
        | MemberType::Int8
        | MemberType::Int16
        | MemberType::Int32
        | MemberType::Int64 => MemberValue::Int(0),
        MemberType::Uint8
        | MemberType::Uint16
        | MemberType::Uint32
        | MemberType::Uint64
        | MemberType::Ulong => MemberValue::UInt(0),
        MemberType::Vector4 | MemberType::Quaternion => MemberValue::Vec4([0.0; 4]),
        _ => return None,
    })
}

/// `value` as a packfile value of the kind `slot` is (integers of the range of `storage`).
fn packed_value(
    slot: &MemberValue,
    storage: MemberType,
    value: &NewVal,
    name: &str,
) -> Result<MemberValue, SetError> {
    let float = |v: &NewVal, name: &str| -> Result<f32, SetError> {
        let x = match v {
            NewVal::Float(x) => *x,
            NewVal::Int(i) => *i as f64,
            _ => return Err(SetError::Type(format!("{name}: expected a float"))),
        };
        if x.is_finite() && x.abs() > f64::from(f32::MAX) {
            return Err(SetError::Range(format!(
                "{name}: {x} is out of the range of a 32-bit float"
            )));
        }
        Ok(x as f32)
    };
    let int_range = |ty: MemberType| -> Option<(i128, i128)> {
        Some(match ty {
            MemberType::Int8 | MemberType::Char => (i8::MIN.into(), i8::MAX.into()),
            MemberType::Uint8 => (0, u8::MAX.into()),
            MemberType::Int16 => (i16::MIN.into(), i16::MAX.into()),
            MemberType::Uint16 => (0, u16::MAX.into()),
            MemberType::Int32 => (i32::MIN.into(), i32::MAX.into()),
            MemberType::Uint32 => (0, u32::MAX.into()),
            MemberType::Int64 => (i64::MIN.into(), i64::MAX.into()),
            MemberType::Uint64 | MemberType::Ulong => (0, u64::MAX.into()),
            _ => return None,
        })
    };
    Ok(match (slot, value) {
        (MemberValue::Bool(_), NewVal::Bool(b)) => MemberValue::Bool(u8::from(*b)),
        (MemberValue::Bool(_), _) => return Err(SetError::Type(format!("{name}: expected a bool"))),
        (MemberValue::Int(_) | MemberValue::UInt(_), NewVal::Int(_) | NewVal::Bool(_)) => {
            let i = match value {
                NewVal::Int(i) => *i,
                NewVal::Bool(b) => i128::from(*b),
                _ => 0,
            };
            let (lo, hi) = int_range(storage)
                .ok_or_else(|| SetError::Type(format!("{name}: not an integer member")))?;
            if i < lo || i > hi {
                return Err(SetError::Range(format!(
                    "{name}: {i} is out of the range {lo}..={hi} of {storage:?}"
                )));
            }
            if matches!(slot, MemberValue::Int(_)) {
                MemberValue::Int(i as i64)
            } else {
                MemberValue::UInt(i as u64)
            }
        }
        (MemberValue::Int(_) | MemberValue::UInt(_), _) => {
            return Err(SetError::Type(format!("{name}: expected an int")))
        }
        (MemberValue::Real(_), v) => MemberValue::Real(float(v, name)?),
        (MemberValue::Half(_), v) => {
            let bits = float(v, name)?.to_bits();
            MemberValue::Half((bits.wrapping_add(0x7FFF + ((bits >> 16) & 1)) >> 16) as u16)
        }
        (MemberValue::Vec4(_), NewVal::Seq(xs)) if xs.len() == 4 => {
            let mut v = [0f32; 4];
            for (k, x) in xs.iter().enumerate() {
                v[k] = float(x, &format!("{name}[{k}]"))?;
            }
            MemberValue::Vec4(v)
        }
        (MemberValue::Vec4(_), _) => {
            return Err(SetError::Type(format!(
                "{name}: expected a sequence of 4 floats"
            )))
        }
        (MemberValue::Floats(old), NewVal::Seq(rows)) => {
            // A matrix: its rows as sequences of 4 floats, as the package reads it.
            let mut v = Vec::with_capacity(old.len());
            for (r, row) in rows.iter().enumerate() {
                let NewVal::Seq(xs) = row else {
                    return Err(SetError::Type(format!(
                        "{name}[{r}]: expected a row of 4 floats"
                    )));
                };
                for (k, x) in xs.iter().enumerate() {
                    v.push(float(x, &format!("{name}[{r}][{k}]"))?);
                }
            }
            if v.len() != old.len() {
                return Err(SetError::Range(format!(
                    "{name}: {} floats given for a matrix of {}",
                    v.len(),
                    old.len()
                )));
            }
            MemberValue::Floats(v)
        }
        (MemberValue::Floats(_), _) => {
            return Err(SetError::Type(format!("{name}: expected rows of 4 floats")))
        }
        (MemberValue::Str(_), NewVal::None) => MemberValue::Str(None),
        (MemberValue::Str(_), NewVal::Str(s)) => {
            if s.as_bytes().contains(&0) {
                return Err(SetError::Range(format!("{name}: a string holds no NUL")));
            }
            MemberValue::Str(Some(s.as_bytes().to_vec()))
        }
        (MemberValue::Str(_), _) => {
            return Err(SetError::Type(format!("{name}: expected a str or None")))
        }
        (MemberValue::Ptr(_), NewVal::None) => MemberValue::Ptr(Ref::Null),
        (MemberValue::Ptr(_), NewVal::Object(h)) => MemberValue::Ptr(Ref::Object(hktypes::Handle(*h))),
        (MemberValue::Ptr(_), _) => {
            return Err(SetError::Type(format!(
                "{name}: expected an object of this document or None"
            )))
        }
        (v, _) => {
            return Err(SetError::Type(format!(
                "{name}: assigning a {} member is not supported",
                v.kind()
            )))
        }
    })
}

// ---------------------------------------------------------------------------------------------
// Animations (issue 33): through `hktypes::anim`, on an `hktypes::Document` read from the
// document's bytes as they are (with its assignments).

impl OpenDoc {
    /// The compendia a tagfile was read with (none for a packfile).
    fn compendia(&self) -> CompendiumSet {
        match self {
            OpenDoc::Tag(t) => t.compendia.clone(),
            OpenDoc::Pack(_) => CompendiumSet::new(),
        }
    }

    /// The file as an `hktypes::Document`, with the classes packfiles are read with.
    fn hk_document(&self, compendia: &CompendiumSet) -> Result<hktypes::Document, Failure> {
        let bytes = self.to_bytes()?;
        let options = hktypes::OpenOptions { compendia: Some(compendia), classes: Some(packfile_classes()?), ..Default::default() };
        Ok(hktypes::open(&bytes, &options)?)
    }

    /// Every animation object, read ([`hktypes::anim::Animation`]).
    pub fn animations(&self) -> Result<Vec<hktypes::anim::Animation>, Failure> {
        let compendia = self.compendia();
        let doc = self.hk_document(&compendia)?;
        Ok(hktypes::anim::animations(&doc)?)
    }

    /// Replaces the frames of animation `handle` (see [`hktypes::anim::set_frames`]) and reads the
    /// file written again. Returns the animation's new handle and, for a tagfile, the new item
    /// index of each old one (objects keep their order; runs map to 0), for the records made
    /// before. On an error the document is left as it was.
    pub fn set_animation_frames(
        &mut self,
        handle: u32,
        frames: &hktypes::anim::Frames,
        options: &hktypes::anim::EncodeOptions,
    ) -> Result<(u32, Option<Vec<u32>>), Failure> {
        let compendia = self.compendia();
        let mut doc = self.hk_document(&compendia)?;
        let open = hktypes::OpenOptions { compendia: Some(&compendia), classes: Some(packfile_classes()?), ..Default::default() };
        let h = hktypes::anim::set_frames(&mut doc, hktypes::Handle(handle), frames, options, &open)?;
        let bytes = doc.write()?;
        let next = OpenDoc::open(bytes, compendia)?;
        let map = match (&*self, &next) {
            (OpenDoc::Tag(old), OpenDoc::Tag(new)) => {
                let pairs: Vec<_> = old.doc.handles().into_iter().zip(new.doc.handles()).collect();
                Some(renumbering(&pairs))
            }
            _ => None,
        };
        *self = next;
        Ok((h.0, map))
    }
}

// ---------------------------------------------------------------------------------------------
// glTF (issue 35): an export of documents through `hktypes::gltf`.

/// The glTF export of `docs` (each with its name: a file name), as `.glb` bytes.
pub fn gltf_export(docs: &[(&OpenDoc, String)], options: &hktypes::gltf::ExportOptions) -> Result<Vec<u8>, Failure> {
    let mut opened = Vec::with_capacity(docs.len());
    for (d, _) in docs {
        let compendia = d.compendia();
        opened.push(d.hk_document(&compendia)?);
    }
    let inputs: Vec<hktypes::gltf::Input<'_>> =
        opened.iter().zip(docs).map(|(doc, (_, name))| hktypes::gltf::Input { name, doc }).collect();
    Ok(hktypes::gltf::export_inputs(&inputs, options)?.to_glb()?)
}
