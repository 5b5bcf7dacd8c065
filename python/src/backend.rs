//! Every call of the Python package into the Rust crates, behind one small API: an [`OpenDoc`]
//! opened from bytes, its objects by handle, members read as [`Val`]s at a [`Loc`] and assigned
//! in place, the file written back, and `verify`. The PyO3 layer (`lib.rs`) sees only this
//! module's types, so that moving to another Rust API (issue 23's `hktypes::open`) means editing
//! this module alone.
//!
//! Tagfiles (TAG0) are read through the file's own type table: no generated class is compiled in.
//! Each record type's members are worked out once per document ([`TagDoc::members`]). An
//! assignment of a number, boolean, enumeration or fixed array (a vector) writes the new value
//! over the member's bytes in the file and reads the file again, so every other byte stays as it
//! was. An assignment of a pointer, string or variable array changes the items (a run in place
//! when one slot alone names it, else a new run; a run no slot names any more is dropped) and
//! writes the file again through the tagfile writer's walk (`hktypes::tagfile::write`), which may
//! number the items anew: [`OpenDoc::set`] returns the new index of each old item. The tagfile
//! is read here rather than through `hktypes::open`, whose graph holds untyped objects as bytes:
//! members are decoded when Python asks for them.
//!
//! Packfiles and `<hkpackfile>` XML are opened through `hktypes::open` as
//! `hktypes::packfile::objects` documents, with the class descriptions of
//! `schemas/<sdk>/classes/` embedded in the library at build time (see `build.rs`), or with the
//! feature `compiled-classes` the root crate's compiled-in `hkclasses::<sdk>::SCHEMA` (which
//! more than doubles the build; `verify` takes the embedded descriptions either way). An
//! assignment changes the object's value and the file is written by the packfile writer.

use hkgen::reflection::check::ClassSchemas;
use hktypes::packfile::layout::{Member, MemberType};
use hktypes::packfile::objects::{self, Body, Ref, Value};
use hktypes::reflect::layout::Shape;
use hktypes::reflect::{Kind, TemplateArg, TypeIndex, TypeTable};
use hktypes::tagfile::items::Items;
use hktypes::tagfile::{CompendiumSet, TagFile};
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
    /// A record of a tagfile: type `ty` at byte `at` of item `item`.
    Tag {
        /// The record's type.
        ty: TypeIndex,
        /// The item holding it.
        item: u32,
        /// Its byte offset in the item.
        at: u32,
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

/// One step into a packfile value.
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
    /// An array of numbers lying at `start..start + len` of the file's bytes, elements of
    /// Python's `struct` format `format`.
    FileNumbers {
        /// `f`, `i`, `H`...
        format: &'static str,
        /// The first byte.
        start: usize,
        /// Its length in bytes.
        len: usize,
    },
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

/// A tagfile: its items and type table, and what reading it again needs.
pub struct TagDoc {
    sdk: String,
    types: Arc<TypeTable>,
    /// Per type, its shape (`None`: no layout).
    shapes: Vec<Option<Shape>>,
    items: Items,
    /// Per item, the absolute offset of its bytes in the file.
    offsets: Vec<usize>,
    compendia: CompendiumSet,
    /// The file, with the assignments made.
    bytes: Vec<u8>,
    /// Per record type, its members as read: made on first use (see [`TagDoc::members`]).
    members: RefCell<HashMap<TypeIndex, Arc<[TagMember]>>>,
    /// Per type, its full name, made on first use.
    names: RefCell<HashMap<TypeIndex, Name>>,
    /// `tag0`, or `tagfile_xml` for a document read from `<hktagfile>` XML (written as TAG0).
    format: &'static str,
}

/// One member of a tagfile record type, with what reading it needs, worked out once per type.
struct TagMember {
    name: Name,
    /// Its type.
    ty: TypeIndex,
    /// Its byte offset in the record.
    offset: u32,
    /// The enumeration an integer member holds (by `hkEnum`/`hkFlags`, else by the overlay).
    enumeration: Option<Name>,
}

/// A packfile's objects.
pub struct PackDoc {
    doc: objects::PackfileDocument,
    format: &'static str,
}

impl OpenDoc {
    /// Reads a file of any format the package reads.
    pub fn open(bytes: Vec<u8>, compendia: CompendiumSet) -> Result<OpenDoc, Failure> {
        use hktypes::Format;
        // Packfiles and `<hkpackfile>` XML through the one entry point, `hktypes::open`.
        let format = hktypes::sniff(&bytes);
        if let Some(f @ (Format::Packfile | Format::PackfileXml)) = format {
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
            return Ok(OpenDoc::Pack(PackDoc { doc, format }));
        }
        match format {
            // `<hktagfile>` XML holds its types: read as the TAG0 file it gives (the compendium it
            // names, when given, makes that file TCRF again), as `hktypes::open` reads it.
            Some(Format::TagfileXml) => {
                let tag0 = hktypes::tagfile::xml::read(&bytes).and_then(|d| d.write_tag0(&compendia))?;
                let mut t = TagDoc::read(tag0, compendia)?;
                t.format = "tagfile_xml";
                Ok(OpenDoc::Tag(t))
            }
            Some(Format::Tag0) => Ok(OpenDoc::Tag(TagDoc::read(bytes, compendia)?)),
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
            OpenDoc::Tag(t) => (1..t.items.items.len() as u32)
                .filter(|&i| t.items.items[i as usize].is_object())
                .collect(),
            OpenDoc::Pack(p) => (0..p.doc.objects.len() as u32).collect(),
        }
    }

    /// The objects of class `class`, in file order: of that class or one derived from it, or of
    /// that class alone when `exact`. `None` when the document knows no class of that name (its
    /// type table, a packfile's class descriptions).
    pub fn handles_of(&self, class: &str, exact: bool) -> Option<Vec<u32>> {
        match self {
            OpenDoc::Tag(t) => {
                // The types of that name (a template's full name, else its bare name).
                let mut full = String::new();
                let wanted: Vec<TypeIndex> = (1..t.types.len() as TypeIndex)
                    .filter(|&i| {
                        t.types.get(i).is_some_and(|d| {
                            if class.contains('<') {
                                t.types.full_name_into(i, &mut full);
                                full == class
                            } else {
                                d.name.as_str() == class && t.types.params_of(d).is_empty()
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
                            t.types.ancestry(def).iter().any(|a| wanted.contains(a))
                                || wanted.contains(&ty)
                        }
                    })
                };
                Some(
                    (1..t.items.items.len() as u32)
                        .filter(|&i| {
                            let it = &t.items.items[i as usize];
                            it.is_object() && is_a(it.ty)
                        })
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
            OpenDoc::Tag(t) => t.items.items.get(1).filter(|it| it.is_object()).map(|_| 1),
            OpenDoc::Pack(p) => p.doc.root.map(|h| h.0),
        }
    }

    /// The class name of an object.
    pub fn class_name(&self, h: u32) -> Option<String> {
        match self {
            OpenDoc::Tag(t) => t
                .items
                .items
                .get(h as usize)
                .filter(|it| it.is_object())
                .map(|it| t.types.full_name(it.ty)),
            OpenDoc::Pack(p) => p.doc.objects.get(h as usize).map(|o| o.class.clone()),
        }
    }

    /// The record of an object itself.
    pub fn object_loc(&self, h: u32) -> Option<Loc> {
        match self {
            OpenDoc::Tag(t) => t
                .items
                .items
                .get(h as usize)
                .filter(|it| it.is_object())
                .map(|it| Loc::Tag {
                    ty: it.ty,
                    item: h,
                    at: 0,
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
            (OpenDoc::Tag(t), Loc::Tag { ty, item, at }) => t.get(*ty, *item, *at, name),
            (
                OpenDoc::Pack(p),
                Loc::Pack {
                    handle,
                    class,
                    steps,
                },
            ) => Ok(p.get(*handle, class, steps, name)),
            _ => Ok(None),
        }
    }

    /// Every member of the record at `loc`, in [`OpenDoc::keys`] order.
    pub fn get_all(&self, loc: &Loc) -> Result<Vec<(Name, Val)>, Failure> {
        match (self, loc) {
            (OpenDoc::Tag(t), Loc::Tag { ty, item, at }) => t.get_all(*ty, *item, *at),
            (
                OpenDoc::Pack(p),
                Loc::Pack {
                    handle,
                    class,
                    steps,
                },
            ) => Ok(p.get_all(*handle, class, steps)),
            _ => Ok(Vec::new()),
        }
    }

    /// Assigns member `name` of the record at `loc`. A tagfile is changed in its bytes and read
    /// again; when it was written again by the writer's walk (a pointer, string or array
    /// assigned), its items may be numbered anew: the new index of each old item is returned.
    pub fn set(
        &mut self,
        loc: &Loc,
        name: &str,
        value: NewVal,
    ) -> Result<Option<Vec<u32>>, SetError> {
        match (self, loc) {
            (OpenDoc::Tag(t), Loc::Tag { ty, item, at }) => t.set(*ty, *item, *at, name, value),
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

    /// Where the elements of variable array member `name` of the record at `loc` lie in a
    /// tagfile's bytes, when they are numbers or fixed arrays of 4-byte floats (vectors and
    /// matrices) with no padding: `(format, start, element count, shape of one element)`. `None`
    /// for a packfile, another member, or an empty array.
    pub fn number_run(&self, loc: &Loc, name: &str) -> Option<NumberRun> {
        let (OpenDoc::Tag(t), Loc::Tag { ty, item, at }) = (self, loc) else {
            return None;
        };
        t.number_run(*ty, *item, *at, name)
    }

    /// The file's bytes as read (a tagfile's with its assignments).
    pub fn bytes(&self) -> Option<&[u8]> {
        match self {
            OpenDoc::Tag(t) => Some(&t.bytes),
            OpenDoc::Pack(_) => None,
        }
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

/// `hkHalf16`: the top 16 bits of an `f32`.
fn half_to_f64(h: u16) -> f64 {
    f64::from(f32::from_bits(u32::from(h) << 16))
}

fn le(bytes: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = bytes.len().min(8);
    b[..n].copy_from_slice(&bytes[..n]);
    u64::from_le_bytes(b)
}

/// See [`OpenDoc::number_run`].
pub struct NumberRun {
    /// Python's `struct` format of one number (`f`, `h`...).
    pub format: &'static str,
    /// The first byte in the file.
    pub start: usize,
    /// How many elements.
    pub count: usize,
    /// The bytes of one element.
    pub size: usize,
    /// The shape of one element: `[]` for a number, `[4]` for a vector, `[rows, columns]`.
    pub shape: Vec<usize>,
}

impl TagDoc {
    /// See [`OpenDoc::number_run`].
    fn number_run(&self, ty: TypeIndex, item: u32, at: u32, name: &str) -> Option<NumberRun> {
        let members = self.members(ty);
        let m = members.iter().find(|m| &*m.name == name)?;
        let shape = self.shape(m.ty)?;
        let fixed = |d: TypeIndex| {
            self.types
                .get(d)
                .and_then(|d| d.format())
                .is_some_and(|f| f.is_fixed_array())
        };
        if shape.kind != Kind::Array || fixed(shape.def) {
            return None;
        }
        let slot = self.item_bytes(item, at + m.offset, shape.size).ok()?;
        let run = le(&slot[..slot.len().min(4)]) as u32;
        let it = self.items.items.get(run as usize).filter(|_| run != 0)?;
        // The element: a number, or fixed arrays (nested at most twice) ending in 4-byte floats.
        let mut elem = it.ty;
        let mut dims = Vec::new();
        for _ in 0..3 {
            let s = self.shape(elem)?;
            if s.kind == Kind::Array && fixed(s.def) {
                let d = self.types.get(s.def)?;
                dims.push(d.format()?.fixed_count() as usize);
                elem = d.subtype?;
                continue;
            }
            let signed = self
                .types
                .get(s.def)
                .and_then(|d| d.format())
                .is_some_and(|f| f.is_signed());
            let format = number_format(s.kind, s.size, signed)?;
            if !dims.is_empty() && format != "f" {
                return None;
            }
            let size = dims.iter().product::<usize>() * s.size as usize;
            if size != it.elem_size as usize {
                return None;
            }
            let start = *self.offsets.get(run as usize)?;
            let count = it.count as usize;
            if start + count * size > self.bytes.len() {
                return None;
            }
            return Some(NumberRun {
                format,
                start,
                count,
                size,
                shape: dims,
            });
        }
        None
    }

    fn read(bytes: Vec<u8>, compendia: CompendiumSet) -> Result<TagDoc, Failure> {
        let t = TagFile::read(&bytes, &compendia)?;
        let mut layouts = t.layouts();
        let items = Items::read(&t, &mut layouts).map_err(hktypes::Error::from)?;
        let shapes = (0..t.types.len() as TypeIndex)
            .map(|i| layouts.shape(i).ok().flatten())
            .collect();
        let offsets = t
            .items
            .iter()
            .map(|it| (t.data_offset + u64::from(it.offset)) as usize)
            .collect();
        Ok(TagDoc {
            sdk: t.sdk_version(),
            types: Arc::clone(&t.types),
            shapes,
            items,
            offsets,
            compendia,
            bytes,
            members: Default::default(),
            names: Default::default(),
            format: "tag0",
        })
    }

    fn shape(&self, ty: TypeIndex) -> Option<Shape> {
        self.shapes.get(ty as usize).copied().flatten()
    }

    /// The full name of type `ty` (`hkArray<hkInt16, hkContainerHeapAllocator>`), made once.
    fn name(&self, ty: TypeIndex) -> Name {
        self.names
            .borrow_mut()
            .entry(ty)
            .or_insert_with(|| Arc::from(self.types.full_name(ty)))
            .clone()
    }

    /// A record type's members, ancestors' first (by the type that carries its format), with
    /// their enumerations: worked out on the first read of a record of that type.
    fn members(&self, ty: TypeIndex) -> Arc<[TagMember]> {
        if let Some(m) = self.members.borrow().get(&ty) {
            return Arc::clone(m);
        }
        let def = self.shape(ty).map_or(ty, |s| s.def);
        let mut out = Vec::new();
        for owner in self.types.ancestry(def) {
            let Some(t) = self.types.get(owner) else {
                continue;
            };
            for f in self.types.fields_of(t) {
                // Only integers are enumerations: the lookups are spared for every other member.
                let is_int = self.shape(f.ty).is_some_and(|s| s.kind == Kind::Int);
                let mut enumeration = if is_int { self.enum_of(f.ty) } else { None };
                if is_int && enumeration.is_none() {
                    // A member stored as a bare integer that the overlay knows as an enumeration.
                    let key = format!("{}.{}", self.types.full_name(owner), f.name.as_str());
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
        let mut cur = ty;
        for _ in 0..16 {
            let t = self.types.get(cur)?;
            if t.name.as_str() == "hkEnum" || t.name.as_str() == "hkFlags" {
                let param = self
                    .types
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

    fn get(&self, ty: TypeIndex, item: u32, at: u32, name: &str) -> Result<Option<Val>, Failure> {
        let members = self.members(ty);
        let Some(m) = members.iter().find(|m| &*m.name == name) else {
            return Ok(None);
        };
        self.member(m, item, at).map(Some)
    }

    /// Every member of the record of type `ty` at byte `at` of item `item`.
    fn get_all(&self, ty: TypeIndex, item: u32, at: u32) -> Result<Vec<(Name, Val)>, Failure> {
        self.members(ty)
            .iter()
            .map(|m| Ok((Arc::clone(&m.name), self.member(m, item, at)?)))
            .collect()
    }

    /// Member `m` of the record at byte `at` of item `item`.
    fn member(&self, m: &TagMember, item: u32, at: u32) -> Result<Val, Failure> {
        self.value(m.ty, item, at + m.offset, m.enumeration.clone(), 0)
            .map_err(|e| Failure {
                path: vec![m.name.to_string()],
                ..e
            })
    }

    fn item_bytes(&self, item: u32, at: u32, size: u32) -> Result<&[u8], Failure> {
        let it = self
            .items
            .items
            .get(item as usize)
            .ok_or_else(|| Failure::input(format!("no item #{item}")))?;
        it.bytes
            .get(at as usize..(at + size) as usize)
            .ok_or_else(|| Failure {
                layer: "values",
                message: format!(
                    "a member at byte {at} of item #{item} lies outside its {} bytes",
                    it.bytes.len()
                ),
                offset: self
                    .offsets
                    .get(item as usize)
                    .map(|o| (*o + at as usize) as u64),
                section: Some("TAG0/DATA".into()),
                path: Vec::new(),
            })
    }

    /// The value of type `ty` at byte `at` of item `item`.
    fn value(
        &self,
        ty: TypeIndex,
        item: u32,
        at: u32,
        enumeration: Option<Name>,
        depth: usize,
    ) -> Result<Val, Failure> {
        if depth > 64 {
            return Err(Failure::input("values nested more than 64 deep"));
        }
        let Some(shape) = self.shape(ty) else {
            return Ok(Val::Bytes(Vec::new()));
        };
        let bytes = self.item_bytes(item, at, shape.size)?;
        let def = self.types.get(shape.def);
        let fmt = def
            .and_then(|d| d.format())
            .unwrap_or(hktypes::reflect::TypeFormat(0));
        Ok(match shape.kind {
            Kind::Bool => Val::Bool(le(bytes) != 0),
            Kind::Int => {
                let u = le(bytes);
                let n = bytes.len();
                let v = if fmt.is_signed() && n > 0 && n < 8 {
                    let shift = 64 - 8 * n as u32;
                    Val::Int(((u << shift) as i64) >> shift)
                } else if fmt.is_signed() {
                    Val::Int(u as i64)
                } else {
                    Val::UInt(u)
                };
                match (enumeration, v) {
                    (Some(name), Val::Int(value)) => Val::Enum { name, value },
                    (Some(name), Val::UInt(value)) => Val::Enum {
                        name,
                        value: value as i64,
                    },
                    (_, v) => v,
                }
            }
            Kind::Float if bytes.len() == 4 => Val::Float(f64::from(f32::from_le_bytes([
                bytes[0], bytes[1], bytes[2], bytes[3],
            ]))),
            Kind::Float if bytes.len() == 2 => {
                Val::Float(half_to_f64(u16::from_le_bytes([bytes[0], bytes[1]])))
            }
            Kind::Float if bytes.len() == 8 => {
                Val::Float(f64::from_le_bytes(bytes.try_into().unwrap_or([0; 8])))
            }
            Kind::Pointer => match le(&bytes[..bytes.len().min(4)]) as u32 {
                0 => Val::None,
                i if self
                    .items
                    .items
                    .get(i as usize)
                    .is_some_and(|it| it.is_object()) =>
                {
                    Val::Object(i)
                }
                _ => Val::None,
            },
            Kind::String => match le(&bytes[..bytes.len().min(4)]) as u32 {
                0 => Val::None,
                i => {
                    let run = self
                        .items
                        .items
                        .get(i as usize)
                        .ok_or_else(|| Failure::input(format!("no string item #{i}")))?;
                    let text = run.bytes.strip_suffix(&[0]).unwrap_or(&run.bytes[..]);
                    Val::Str(String::from_utf8_lossy(text).into_owned())
                }
            },
            Kind::Array if !fmt.is_fixed_array() => match le(&bytes[..bytes.len().min(4)]) as u32 {
                0 => Val::List(Vec::new()),
                i => {
                    let run = self
                        .items
                        .items
                        .get(i as usize)
                        .ok_or_else(|| Failure::input(format!("no array item #{i}")))?;
                    self.elements(run.ty, i, 0, run.count, run.elem_size, depth)?
                }
            },
            Kind::Array => {
                let elem = def.and_then(|d| d.subtype).unwrap_or(0);
                let size = self.shape(elem).map_or(0, |s| s.size);
                let n = fmt.fixed_count();
                if elem == 0 || size == 0 || u64::from(n) * u64::from(size) > bytes.len() as u64 {
                    return Ok(Val::Bytes(bytes.to_vec()));
                }
                self.fixed(elem, item, at, n, size, depth)?
            }
            Kind::Record => Val::Record(Loc::Tag { ty, item, at }, self.name(ty)),
            _ => Val::Bytes(bytes.to_vec()),
        })
    }

    /// `count` elements of type `elem` from byte `at` of item `item` (an array's run).
    fn elements(
        &self,
        elem: TypeIndex,
        item: u32,
        at: u32,
        count: u32,
        size: u32,
        depth: usize,
    ) -> Result<Val, Failure> {
        let shape = self.shape(elem);
        let signed = self
            .types
            .get(shape.map_or(elem, |s| s.def))
            .and_then(|d| d.format())
            .is_some_and(|f| f.is_signed());
        if let Some(format) = shape.and_then(|s| number_format(s.kind, s.size, signed)) {
            let start = self.offsets.get(item as usize).copied().unwrap_or(0) + at as usize;
            let len = count as usize * size as usize;
            if start + len <= self.bytes.len() {
                return Ok(Val::FileNumbers { format, start, len });
            }
        }
        let enumeration = self.enum_of(elem);
        let mut list = Vec::with_capacity(count.min(1 << 20) as usize);
        for e in 0..count {
            list.push(self.value(elem, item, at + e * size, enumeration.clone(), depth + 1)?);
        }
        Ok(Val::List(list))
    }

    /// A fixed array: floats as a vector (or rows of a matrix), other elements as a list.
    fn fixed(
        &self,
        elem: TypeIndex,
        item: u32,
        at: u32,
        n: u32,
        size: u32,
        depth: usize,
    ) -> Result<Val, Failure> {
        let kind = self.shape(elem).map(|s| s.kind);
        if kind == Some(Kind::Float) && size == 4 {
            // A vector or quaternion: its floats read at once.
            let bytes = self.item_bytes(item, at, n * 4)?;
            return Ok(Val::Floats(
                bytes
                    .chunks_exact(4)
                    .map(|b| f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])))
                    .collect(),
                0,
            ));
        }
        let mut list = Vec::with_capacity(n as usize);
        for k in 0..n {
            list.push(self.value(elem, item, at + k * size, None, depth + 1)?);
        }
        if kind == Some(Kind::Float) {
            return Ok(Val::Floats(
                list.iter()
                    .map(|v| if let Val::Float(f) = v { *f } else { 0.0 })
                    .collect(),
                0,
            ));
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

    /// The bytes of a value of type `ty` assigned `value`: a boolean, an integer, a float, or a
    /// fixed array of them (a vector, a matrix as rows) given as a sequence of its length.
    fn encode(
        &self,
        ty: TypeIndex,
        value: &NewVal,
        name: &str,
        depth: usize,
    ) -> Result<Vec<u8>, SetError> {
        let shape = self
            .shape(ty)
            .ok_or_else(|| SetError::Type(format!("{name}: its type has no layout")))?;
        let fmt = self
            .types
            .get(shape.def)
            .and_then(|d| d.format())
            .unwrap_or(hktypes::reflect::TypeFormat(0));
        let size = shape.size as usize;
        Ok(match (shape.kind, value) {
            (Kind::Bool, NewVal::Bool(b)) => {
                let mut v = vec![0u8; size];
                if let Some(first) = v.first_mut() {
                    *first = u8::from(*b);
                }
                v
            }
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
                (i as u64).to_le_bytes()[..size].to_vec()
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
                let bits = (x as f32).to_bits();
                match size {
                    4 => bits.to_le_bytes().to_vec(),
                    // hkHalf16: the float's top 16 bits, rounded to nearest even.
                    2 => {
                        let rounded = bits.wrapping_add(0x7FFF + ((bits >> 16) & 1)) >> 16;
                        (rounded as u16).to_le_bytes().to_vec()
                    }
                    _ => {
                        return Err(SetError::Type(format!(
                            "{name}: a {size}-byte float is not assignable"
                        )))
                    }
                }
            }
            (Kind::Float, _) => return Err(SetError::Type(format!("{name}: expected a float"))),
            (Kind::Array, NewVal::Seq(items)) if fmt.is_fixed_array() && depth < 4 => {
                let elem = self
                    .types
                    .get(shape.def)
                    .and_then(|d| d.subtype)
                    .unwrap_or(0);
                let n = fmt.fixed_count() as usize;
                let elem_size = self.shape(elem).map_or(0, |s| s.size as usize);
                if elem == 0 || elem_size * n != size {
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
                let mut out = Vec::with_capacity(size);
                for (k, v) in items.iter().enumerate() {
                    out.extend(self.encode(elem, v, &format!("{name}[{k}]"), depth + 1)?);
                }
                out
            }
            (Kind::Array, _) if fmt.is_fixed_array() => {
                return Err(SetError::Type(format!(
                    "{name}: expected a sequence of {} values",
                    fmt.fixed_count()
                )))
            }
            (k, _) => {
                return Err(SetError::Type(format!(
                    "{name}: assigning a {k:?} member is not supported"
                )))
            }
        })
    }

    fn set(
        &mut self,
        ty: TypeIndex,
        item: u32,
        at: u32,
        name: &str,
        value: NewVal,
    ) -> Result<Option<Vec<u32>>, SetError> {
        let members = self.members(ty);
        let Some(f) = members.iter().find(|m| &*m.name == name) else {
            return Err(SetError::NoMember(name.to_owned()));
        };
        let shape = self
            .shape(f.ty)
            .ok_or_else(|| SetError::Type(format!("{name}: its type has no layout")))?;
        let fixed = self
            .types
            .get(shape.def)
            .and_then(|d| d.format())
            .is_some_and(|f| f.is_fixed_array());
        if matches!(shape.kind, Kind::Pointer | Kind::String)
            || (shape.kind == Kind::Array && !fixed)
        {
            return self.set_reference(shape, item, at + f.offset, name, value);
        }
        let stored = self.encode(f.ty, &value, name, 0)?;
        let start =
            self.offsets.get(item as usize).copied().unwrap_or(0) + (at + f.offset) as usize;
        let mut bytes = std::mem::take(&mut self.bytes);
        match bytes.get_mut(start..start + stored.len()) {
            Some(slot) => slot.copy_from_slice(&stored),
            None => {
                self.bytes = bytes;
                return Err(SetError::Type(format!("{name}: lies outside the file")));
            }
        }
        let compendia = std::mem::take(&mut self.compendia);
        let format = self.format;
        *self = TagDoc::read(bytes, compendia).map_err(SetError::Havok)?;
        self.format = format;
        Ok(None)
    }

    /// Assigns a pointer, string or variable array member (of shape `shape`, its slot at byte `at`
    /// of item `item`): the items are changed (a run changed in place when this slot alone names
    /// it, else a new run; a run no slot names any more is dropped) and the file is written again
    /// by the tagfile writer's walk, then read again.
    fn set_reference(
        &mut self,
        shape: Shape,
        item: u32,
        at: u32,
        name: &str,
        value: NewVal,
    ) -> Result<Option<Vec<u32>>, SetError> {
        let mut items = self.items.clone();
        let slot_at = at as usize;
        let old = items
            .items
            .get(item as usize)
            .and_then(|it| it.bytes.get(slot_at..slot_at + 4))
            .map(le)
            .ok_or_else(|| SetError::Type(format!("{name}: lies outside its item")))?
            as u32;
        let target_ty = self
            .types
            .get(shape.def)
            .and_then(|d| d.subtype)
            .unwrap_or(0);
        let new = match (shape.kind, value) {
            (Kind::Pointer | Kind::String, NewVal::None) => 0,
            (Kind::Pointer, NewVal::Object(h)) => {
                let obj = items
                    .items
                    .get(h as usize)
                    .filter(|it| it.is_object())
                    .ok_or_else(|| SetError::Type(format!("{name}: #{h} is not an object")))?;
                let target = self.shape(target_ty).map_or(target_ty, |s| s.def);
                let ancestry = self
                    .types
                    .ancestry(self.shape(obj.ty).map_or(obj.ty, |s| s.def));
                if target_ty != 0 && !ancestry.contains(&target) {
                    return Err(SetError::Type(format!(
                        "{name}: a {} is not a {}",
                        self.types.full_name(obj.ty),
                        self.types.full_name(target_ty)
                    )));
                }
                h
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
                let mut bytes = s.into_bytes();
                bytes.push(0);
                let count = bytes.len() as u32;
                // A new run is made like the file's other string runs.
                let template = |items: &Items| {
                    items
                        .items
                        .iter()
                        .flat_map(|it| it.references())
                        .find_map(|(_, slot, t)| {
                            (slot.kind == hktypes::reflect::layout::SlotKind::String).then_some(t)
                        })
                };
                place_run(&mut items, old, template, bytes, count).ok_or_else(|| {
                    SetError::Type(format!(
                        "{name}: the file has no string run to model one on"
                    ))
                })?
            }
            (Kind::String, _) => {
                return Err(SetError::Type(format!("{name}: expected a str or None")))
            }
            (Kind::Array, NewVal::Seq(values)) => {
                let elem_shape = self.shape(target_ty).ok_or_else(|| {
                    SetError::Type(format!("{name}: its elements have no layout"))
                })?;
                let elem_fixed = self
                    .types
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
                let mut bytes = Vec::with_capacity(values.len() * elem_shape.size as usize);
                for (k, v) in values.iter().enumerate() {
                    bytes.extend(self.encode(target_ty, v, &format!("{name}[{k}]"), 0)?);
                }
                let count = values.len() as u32;
                if count == 0 {
                    place_run(&mut items, old, |_| None, Vec::new(), 0).unwrap_or(0)
                } else {
                    let template = |items: &Items| {
                        items
                            .items
                            .iter()
                            .position(|it| {
                                it.ty == target_ty && !it.is_object() && !it.is_placeholder()
                            })
                            .map(|i| i as u32)
                    };
                    place_run(&mut items, old, template, bytes, count).ok_or_else(|| {
                        SetError::Type(format!(
                            "{name}: the file has no run of {} to model one on",
                            self.types.full_name(target_ty)
                        ))
                    })?
                }
            }
            (Kind::Array, _) => {
                return Err(SetError::Type(format!("{name}: expected a list or tuple")))
            }
            (k, _) => {
                return Err(SetError::Type(format!(
                    "{name}: assigning a {k:?} member is not supported"
                )))
            }
        };
        if let Some(slot) = items
            .items
            .get_mut(item as usize)
            .and_then(|it| it.bytes.to_mut().get_mut(slot_at..slot_at + 4))
        {
            slot.copy_from_slice(&new.to_le_bytes());
        }
        let (out, renumbered) = {
            let file = TagFile::read(&self.bytes, &self.compendia)
                .map_err(|e| SetError::Havok(e.into()))?;
            let mut layouts = file.layouts();
            let plan = hktypes::tagfile::write::plan(&items, &mut layouts)
                .map_err(|e| SetError::Havok(hktypes::Error::from(e).into()))?;
            let (data, table, patches) = hktypes::tagfile::write::lay_out(&items, &plan);
            let tcrf;
            let types = match (&file.source, file.type_section) {
                (hktypes::tagfile::TypeSource::Own, Some(raw)) => {
                    hktypes::tagfile::write::TypesOut::Section(raw)
                }
                (hktypes::tagfile::TypeSource::Compendium { id, rest }, _) => {
                    tcrf = [&id.0[..], rest].concat();
                    hktypes::tagfile::write::TypesOut::Reference(&tcrf)
                }
                (hktypes::tagfile::TypeSource::Own, None) => {
                    return Err(SetError::Type(format!(
                        "{name}: the file has no TYPE section"
                    )))
                }
            };
            let mut out =
                hktypes::tagfile::write::write_file(file.sdkv_raw, &data, types, &table, &patches);
            out.extend_from_slice(file.trailing);
            (out, plan.new_index)
        };
        let compendia = std::mem::take(&mut self.compendia);
        match TagDoc::read(out, compendia.clone()) {
            Ok(doc) => {
                let format = self.format;
                *self = doc;
                self.format = format;
                Ok(Some(renumbered))
            }
            Err(f) => {
                self.compendia = compendia;
                Err(SetError::Havok(f))
            }
        }
    }
}

/// Puts a run of `count` elements `bytes` where slot content `old` was: in place when `old` is a
/// run that one slot alone names, else as a new item made like item `template(items)` (`None`:
/// none to model one on). A run that no slot names any more is dropped (made a placeholder, which
/// the writer leaves out). Returns the item index for the slot (0 for an empty array).
fn place_run(
    items: &mut Items,
    old: u32,
    template: impl Fn(&Items) -> Option<u32>,
    bytes: Vec<u8>,
    count: u32,
) -> Option<u32> {
    let named = |items: &Items, i: u32| {
        items
            .items
            .iter()
            .flat_map(|it| it.references())
            .filter(|(_, _, t)| *t == i)
            .count()
    };
    let sole = old != 0
        && items
            .items
            .get(old as usize)
            .is_some_and(|it| !it.is_object() && it.slots.is_empty())
        && named(items, old) == 1;
    if sole && count == 0 {
        let it = &mut items.items[old as usize];
        it.kind_byte = 0;
        it.count = 0;
        it.bytes = Vec::new().into();
        return Some(0);
    }
    if count == 0 {
        return Some(0);
    }
    if sole {
        let it = &mut items.items[old as usize];
        it.bytes = bytes.into();
        it.count = count;
        return Some(old);
    }
    let t = if old != 0
        && items
            .items
            .get(old as usize)
            .is_some_and(|it| !it.is_object())
    {
        old
    } else {
        template(items)?
    };
    let mut run = items.items.get(t as usize)?.clone();
    run.bytes = bytes.into();
    run.count = count;
    items.items.push(run);
    Some(items.items.len() as u32 - 1)
}

/// The element of `items` that `step` names (`None` when it names a member, not an element).
fn elem<'v>(items: &'v [Value], step: &Step) -> Option<&'v Value> {
    let Step::Elem(e) = step else { return None };
    items.get(*e)
}

/// [`elem`], to change it.
fn elem_mut<'v>(items: &'v mut [Value], step: &Step) -> Option<&'v mut Value> {
    let Step::Elem(e) = step else { return None };
    items.get_mut(*e)
}

impl PackDoc {
    /// The values of the record at `steps` from object `handle`.
    fn record(&self, handle: u32, steps: &[Step]) -> Option<&[Value]> {
        let Body::Typed(values) = &self.doc.objects.get(handle as usize)?.body else {
            return None;
        };
        let mut cur: &[Value] = values;
        let mut it = steps.iter();
        while let Some(step) = it.next() {
            let Step::Member(i) = step else { return None };
            // A struct member is the record; an array member's record is the element the next
            // step names.
            let v = match cur.get(*i)? {
                Value::Array(a) => elem(&a.items, it.next()?)?,
                Value::CArray(a) | Value::RelArray(a) => elem(a, it.next()?)?,
                v => v,
            };
            let Value::Struct(vs) = v else { return None };
            cur = vs;
        }
        Some(cur)
    }

    fn record_mut(&mut self, handle: u32, steps: &[Step]) -> Option<&mut Vec<Value>> {
        let Body::Typed(values) = &mut self.doc.objects.get_mut(handle as usize)?.body else {
            return None;
        };
        let mut cur: &mut Vec<Value> = values;
        let mut it = steps.iter();
        while let Some(step) = it.next() {
            let Step::Member(i) = step else { return None };
            let v = match cur.get_mut(*i)? {
                Value::Array(a) => elem_mut(&mut a.items, it.next()?)?,
                Value::CArray(a) | Value::RelArray(a) => elem_mut(a, it.next()?)?,
                v => v,
            };
            let Value::Struct(vs) = v else { return None };
            cur = vs;
        }
        Some(cur)
    }

    fn get(&self, handle: u32, class: &str, steps: &[Step], name: &str) -> Option<Val> {
        let names = self.doc.member_names(class);
        let i = names
            .iter()
            .position(|n| n == name && n != objects::HIDDEN)?;
        self.get_index(handle, class, steps, i)
    }

    fn get_all(&self, handle: u32, class: &str, steps: &[Step]) -> Vec<(Name, Val)> {
        let names = self.doc.member_names(class);
        names
            .into_iter()
            .enumerate()
            .filter(|(_, n)| n != objects::HIDDEN)
            .filter_map(|(i, n)| Some((Arc::from(n), self.get_index(handle, class, steps, i)?)))
            .collect()
    }

    fn get_index(&self, handle: u32, class: &str, steps: &[Step], i: usize) -> Option<Val> {
        let member = self.doc.member(class, i)?.clone();
        let value = self.record(handle, steps)?.get(i)?;
        let mut path = steps.to_vec();
        path.push(Step::Member(i));
        Some(self.value(handle, &path, value, &member))
    }

    fn value(&self, handle: u32, path: &[Step], v: &Value, m: &Member) -> Val {
        let record = |steps: Vec<Step>| match &m.class {
            Some(c) => Val::Record(
                Loc::Pack {
                    handle,
                    class: c.clone(),
                    steps,
                },
                Arc::from(c.as_str()),
            ),
            None => Val::None,
        };
        match v {
            Value::Void => Val::None,
            Value::Bool(b) => Val::Bool(*b != 0),
            Value::Int(i) => match &m.enumeration {
                Some(e) => Val::Enum {
                    name: Arc::from(e.as_str()),
                    value: *i,
                },
                None => Val::Int(*i),
            },
            Value::UInt(u) => match &m.enumeration {
                Some(e) => Val::Enum {
                    name: Arc::from(e.as_str()),
                    value: *u as i64,
                },
                None => Val::UInt(*u),
            },
            Value::Real(f) => Val::Float(f64::from(*f)),
            Value::Half(h) => Val::Float(half_to_f64(*h)),
            Value::Vec4(f) => Val::Floats(f.iter().map(|x| f64::from(*x)).collect(), 0),
            Value::Floats(f) => Val::Floats(f.iter().map(|x| f64::from(*x)).collect(), 4),
            Value::Ptr(Ref::Object(h)) | Value::Variant(Ref::Object(h), _) => Val::Object(h.0),
            Value::Ptr(_) | Value::Variant(..) => Val::None,
            Value::Str(s) => s.as_ref().map_or(Val::None, |s| {
                Val::Str(String::from_utf8_lossy(s).into_owned())
            }),
            Value::Struct(_) => record(path.to_vec()),
            Value::Array(a) => self.list(handle, path, &a.items, m),
            Value::CArray(a) | Value::RelArray(a) => self.list(handle, path, a, m),
            Value::Opaque(b) => Val::Bytes(b.clone()),
        }
    }

    fn list(&self, handle: u32, path: &[Step], items: &[Value], m: &Member) -> Val {
        let format = match m.subtype {
            MemberType::Real => Some("f"),
            MemberType::Int8 => Some("b"),
            MemberType::Uint8 => Some("B"),
            MemberType::Int16 => Some("h"),
            MemberType::Uint16 => Some("H"),
            MemberType::Int32 => Some("i"),
            MemberType::Uint32 => Some("I"),
            MemberType::Int64 => Some("q"),
            MemberType::Uint64 => Some("Q"),
            _ => None,
        };
        if let Some(format) = format.filter(|_| m.enumeration.is_none()) {
            let mut bytes = Vec::new();
            for v in items {
                match (v, format) {
                    (Value::Real(f), _) => bytes.extend(f.to_le_bytes()),
                    (Value::Int(i), "b") => bytes.extend((*i as i8).to_le_bytes()),
                    (Value::Int(i), "h") => bytes.extend((*i as i16).to_le_bytes()),
                    (Value::Int(i), "i") => bytes.extend((*i as i32).to_le_bytes()),
                    (Value::Int(i), _) => bytes.extend(i.to_le_bytes()),
                    (Value::UInt(u), "B") => bytes.extend((*u as u8).to_le_bytes()),
                    (Value::UInt(u), "H") => bytes.extend((*u as u16).to_le_bytes()),
                    (Value::UInt(u), "I") => bytes.extend((*u as u32).to_le_bytes()),
                    (Value::UInt(u), _) => bytes.extend(u.to_le_bytes()),
                    _ => return self.plain_list(handle, path, items, m),
                }
            }
            return Val::Numbers { format, bytes };
        }
        self.plain_list(handle, path, items, m)
    }

    fn plain_list(&self, handle: u32, path: &[Step], items: &[Value], m: &Member) -> Val {
        // An element is described by the member with its element type.
        let elem = Member {
            ty: m.subtype,
            subtype: MemberType::Void,
            c_array_size: 0,
            ..m.clone()
        };
        let elem = if m.ty == MemberType::Array || m.ty == MemberType::InplaceArray {
            &elem
        } else {
            m
        };
        Val::List(
            items
                .iter()
                .enumerate()
                .map(|(e, v)| {
                    let mut p = path.to_vec();
                    p.push(Step::Elem(e));
                    self.value(handle, &p, v, elem)
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
            (Value::Array(a), NewVal::Seq(values)) => {
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
                Value::Array(objects::Array { items, capacity })
            }
            (Value::Array(_), _) => {
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
fn packed_element(subtype: MemberType) -> Option<Value> {
    Some(match subtype {
        MemberType::Bool => Value::Bool(0),
        MemberType::Real => Value::Real(0.0),
        MemberType::Char
        | MemberType::Int8
        | MemberType::Int16
        | MemberType::Int32
        | MemberType::Int64 => Value::Int(0),
        MemberType::Uint8
        | MemberType::Uint16
        | MemberType::Uint32
        | MemberType::Uint64
        | MemberType::Ulong => Value::UInt(0),
        MemberType::Vector4 | MemberType::Quaternion => Value::Vec4([0.0; 4]),
        _ => return None,
    })
}

/// `value` as a packfile value of the kind `slot` is (integers of the range of `storage`).
fn packed_value(
    slot: &Value,
    storage: MemberType,
    value: &NewVal,
    name: &str,
) -> Result<Value, SetError> {
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
        (Value::Bool(_), NewVal::Bool(b)) => Value::Bool(u8::from(*b)),
        (Value::Bool(_), _) => return Err(SetError::Type(format!("{name}: expected a bool"))),
        (Value::Int(_) | Value::UInt(_), NewVal::Int(_) | NewVal::Bool(_)) => {
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
            if matches!(slot, Value::Int(_)) {
                Value::Int(i as i64)
            } else {
                Value::UInt(i as u64)
            }
        }
        (Value::Int(_) | Value::UInt(_), _) => {
            return Err(SetError::Type(format!("{name}: expected an int")))
        }
        (Value::Real(_), v) => Value::Real(float(v, name)?),
        (Value::Half(_), v) => {
            let bits = float(v, name)?.to_bits();
            Value::Half((bits.wrapping_add(0x7FFF + ((bits >> 16) & 1)) >> 16) as u16)
        }
        (Value::Vec4(_), NewVal::Seq(xs)) if xs.len() == 4 => {
            let mut v = [0f32; 4];
            for (k, x) in xs.iter().enumerate() {
                v[k] = float(x, &format!("{name}[{k}]"))?;
            }
            Value::Vec4(v)
        }
        (Value::Vec4(_), _) => {
            return Err(SetError::Type(format!(
                "{name}: expected a sequence of 4 floats"
            )))
        }
        (Value::Floats(old), NewVal::Seq(rows)) => {
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
            Value::Floats(v)
        }
        (Value::Floats(_), _) => {
            return Err(SetError::Type(format!("{name}: expected rows of 4 floats")))
        }
        (Value::Str(_), NewVal::None) => Value::Str(None),
        (Value::Str(_), NewVal::Str(s)) => {
            if s.as_bytes().contains(&0) {
                return Err(SetError::Range(format!("{name}: a string holds no NUL")));
            }
            Value::Str(Some(s.as_bytes().to_vec()))
        }
        (Value::Str(_), _) => {
            return Err(SetError::Type(format!("{name}: expected a str or None")))
        }
        (Value::Ptr(_), NewVal::None) => Value::Ptr(Ref::Null),
        (Value::Ptr(_), NewVal::Object(h)) => Value::Ptr(Ref::Object(hktypes::Handle(*h))),
        (Value::Ptr(_), _) => {
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
                let objects = |t: &TagDoc| -> Vec<u32> {
                    t.items.items.iter().enumerate().filter(|(_, it)| it.is_object()).map(|(i, _)| i as u32).collect()
                };
                let (a, b) = (objects(old), objects(new));
                let mut map = vec![0u32; old.items.items.len()];
                for (o, n) in a.iter().zip(&b) {
                    map[*o as usize] = *n;
                }
                Some(map)
            }
            _ => None,
        };
        *self = next;
        Ok((h.0, map))
    }
}
