//! One entry point for every Havok file: [`open`] tells the formats apart by their bytes and gives
//! back a [`Document`], whatever the file holds.
//!
//! # Design
//!
//! The model is the `object` crate's `File`: one enum over the formats, the same methods on each,
//! and the format-specific types left where they are for those who need them.
//!
//! - **One entry point.** [`open`]`(&bytes, &`[`OpenOptions`]`)` reads a TAG0 tagfile, a TCM0
//!   compendium, a binary packfile of any version (5.5 to 2014, both byte orders, 4- and 8-byte
//!   pointers), `<hkpackfile>` XML, and `<hktagfile>` XML (read as the TAG0 file it describes,
//!   through [`tagfile::xml`](mod@crate::tagfile::xml)). Anything else is one error, [`ErrorKind::NotHavok`]: `not a Havok file: starts with 89 50 4E 47 ...`.
//! - **One sniffer.** [`sniff`] returns the [`Format`] of a file from its first bytes; it is the
//!   one `open` uses, so what `sniff` says is what `open` reads.
//! - **One vocabulary.** A [`Handle`] names an object in either format (a tagfile object's item
//!   index, a packfile object's index in `__data__`); [`Counts`] counts the objects read through a
//!   generated class (*typed*) and the others (*untyped*: kept as their bytes, written back as
//!   read). [`Document`] answers the same questions with the same names in both formats:
//!   [`Document::format`], [`Document::counts`], [`Document::handles`], [`Document::class_name`],
//!   [`Document::find`], [`Document::root`], [`Document::pointers_of`], [`Document::referrers`],
//!   [`Document::remove`] (refused, naming the referrers, while another object points at the
//!   one removed), [`Document::write`].
//! - **The format difference is an option, not a second API.** A packfile's layout rules are
//!   [`Document::layout`] and the argument of [`Document::write_as`]; a tagfile's compendium is
//!   [`OpenOptions::compendia`]; the class sources of each format are fields of [`OpenOptions`].
//! - **Format-specific parts stay underneath, under their own names.** [`Document::Tagfile`] holds a
//!   [`crate::graph::TagfileDocument`] and [`Document::Packfile`] a
//!   [`crate::packfile::objects::PackfileDocument`] (as the `object` crate's `File` holds an
//!   `ElfFile` or a `PeFile`), reached through [`Document::as_tagfile`] and
//!   [`Document::as_packfile`] (and their `_mut` and `into_` forms) by code that needs a format's
//!   details: a tagfile's type table and items, a packfile's sections, class descriptions and
//!   member values. Typed access is the front page's alone: the inner documents keep no public
//!   `get`, `all` or `add`. [`crate::tagfile`] and [`crate::packfile`] keep their containers.
//!
//! Where the classes come from: [`OpenOptions::classes`], a [`ClassRegistry`] that gives the
//! generated classes of a tagfile's SDK (a module's `CLASSES`) and the
//! [`crate::packfile::layout::ClassSource`]s of a packfile's contents version (`hk_2014.2.0-r1`).
//! `hkclasses::REGISTRY` (and `hkclasses::open_options()`) is every SDK the build compiles in;
//! `hkgen`'s `ClassSchemas` the packfile snapshots of a schema folder. Without one, every object
//! reads as untyped and still writes back byte for byte.
//!
//! Documents from nothing: [`Document::new`]`(sdk, `[`NewFormat`]`, Some(&hkclasses::REGISTRY))`,
//! then [`Document::add`] of objects of any generated class of the SDK; the writer makes what
//! describes them. A packfile one has the header Havok's packer writes for the SDK, and `add`
//! lists each object's class in `__classnames__` with the signature the registry's class sources
//! compute ([`ClassRegistry::packfile`]), as the packer lists the classes of the objects it
//! writes; [`Document::declare`] lists a class from a class source of one's own beforehand. A
//! tagfile one is described by the SDK's type table from the registry
//! ([`ClassRegistry::tagfile_types`]: `hkclasses` compiles in each tagfile SDK's table, rebuilt
//! from its snapshot by the build script and written as a `TYPE` section, parsed once at run
//! time), and its `TYPE` section is written by [`crate::tagfile::type_writer`]. No `hkgen` is
//! needed at run time. A Dark Souls III skeleton made so is its stock file byte for byte; a BotW
//! and an Elden Ring skeleton read back and pass `hkgen verify` (`tests/scratch.rs`). The
//! tagfile's `TYPE` section holds the types its objects and their members use (and what those
//! types name), renumbered, not the SDK's whole table.
//!
//! **Typed access, one convention.** The generated classes of both formats implement one trait,
//! [`Typed`] (with one [`crate::value::Ptr`] for their pointers and one [`ClassEntry`] in their
//! modules' `CLASSES`), and [`Document::get`], [`Document::get_mut`], [`Document::all`] and
//! [`Document::add`] take any of them. The formats hold objects differently: a tagfile's typed
//! objects are the generated structs themselves, a packfile's are member values that a struct
//! converts from and to (so that one struct serves every layout). One return convention covers
//! both without copying where nothing needs converting: `get` returns `Result<Cow<'_, T>>`,
//! borrowed from a tagfile, owned (converted) from a packfile; `get_mut` returns an
//! [`ObjectMut`] that dereferences to `T` and, for a packfile, stores the change back when it is
//! dropped. Errors rather than `None`, because a packfile object can fail to convert for a
//! reason worth telling (another signature, a value that does not fit), and the error names the
//! object either way.
//!
//! ```
//! use hktypes::{open, ErrorKind, OpenOptions};
//!
//! let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
//! let e = open(png, &OpenOptions::default()).unwrap_err();
//! assert!(matches!(e.kind(), ErrorKind::NotHavok(_)));
//! assert_eq!(e.to_string(), "not a Havok file: starts with 89 50 4E 47 0D 0A 1A 0A ...");
//! ```

use crate::error::{ContainerError, ErrorKind, Result, ValueError, WriteError};
use crate::value::{ClassEntry, PackfileClass, Typed};
use std::borrow::Cow;
use crate::packfile::layout::ClassSource;
use crate::packfile::{self, objects, LayoutRules};
use crate::tagfile::{self, Compendium, CompendiumSet};
use crate::graph;
use crate::xml_text;
use crate::shared::{Counts, Handle};
use crate::reflect::TypeTable;
use std::sync::Arc;

/// What a file is, from its first bytes ([`sniff`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    /// A TAG0 tagfile (SDK 2015 and later).
    Tag0,
    /// A TCM0 type compendium: types for the tagfiles that name it, no objects.
    Tcm0,
    /// A binary packfile (SDK 5.5 to 2014).
    Packfile,
    /// `<hkpackfile>` XML.
    PackfileXml,
    /// `<hktagfile>` XML.
    TagfileXml,
    /// A TAG0 tagfile inside Nintendo's Phive wrapper (Tears of the Kingdom's `.bphcl`, ...:
    /// [`tagfile::phive`]).
    Phive,
}

impl Format {
    /// The lower-case name (`tag0`, `tcm0`, `packfile`, `packfile-xml`, `tagfile-xml`, `phive`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Tag0 => "tag0",
            Format::Tcm0 => "tcm0",
            Format::Packfile => "packfile",
            Format::PackfileXml => "packfile-xml",
            Format::TagfileXml => "tagfile-xml",
            Format::Phive => "phive",
        }
    }
}

/// The [`Format`] of `bytes`, from the first bytes (XML from its first element, never from a file
/// name); `None` when it is none of them.
///
/// ```
/// use hktypes::{sniff, Format};
///
/// assert_eq!(sniff(b"\x00\x00\x01\x00TAG0\x40\x00\x00\x10SDKV20180100"), Some(Format::Tag0));
/// assert_eq!(sniff(&hktypes::packfile::MAGIC), Some(Format::Packfile));
/// assert_eq!(sniff(b"<?xml version=\"1.0\"?>\n<hkpackfile>"), Some(Format::PackfileXml));
/// assert_eq!(sniff(b"\x89PNG"), None);
/// ```
pub fn sniff(bytes: &[u8]) -> Option<Format> {
    match bytes.get(4..8) {
        Some(b"TAG0") => return Some(Format::Tag0),
        Some(b"TCM0") => return Some(Format::Tcm0),
        _ => {}
    }
    if bytes.starts_with(&packfile::MAGIC) {
        return Some(Format::Packfile);
    }
    if tagfile::phive::is_phive(bytes) {
        return Some(Format::Phive);
    }
    match xml_text::xml_form(bytes)? {
        xml_text::XmlForm::Packfile => Some(Format::PackfileXml),
        xml_text::XmlForm::Tagfile => Some(Format::TagfileXml),
    }
}

/// Where [`open`] finds the classes of a file's SDK: the generated classes of a tagfile SDK, the
/// class descriptions (which lay objects out) of a packfile SDK. The root crate's
/// `hkclasses::REGISTRY` gives every SDK the build compiles in, with no schema folder at run time;
/// `hkgen`'s `ClassSchemas` gives the packfile snapshots of a schema folder of your own. Both
/// methods give nothing by default.
pub trait ClassRegistry {
    /// The generated classes of tagfile SDK `sdk` (`2018.1`, as [`crate::tagfile::TagFile::sdk_version`]
    /// gives it), sorted by name: a module's `CLASSES`. An object whose type one of them matches
    /// (same name, same computed hash) is typed.
    fn tagfile(&self, sdk: &str) -> &[ClassEntry] {
        let _ = sdk;
        &[]
    }

    /// The class sources for a packfile of contents version `version` (`hk_2014.2.0-r1`), first
    /// source first (see [`objects::PackfileDocument::from_file_with`] for how they are tried).
    fn packfile(&self, version: &str) -> Vec<&dyn ClassSource> {
        let _ = version;
        Vec::new()
    }

    /// The type table of tagfile SDK `sdk` (`2018.1`): every type of the SDK, which a tagfile
    /// made from nothing ([`Document::new`] with [`NewFormat::Tagfile`]) is described by; its
    /// `TYPE` section holds the types of that table its objects use. `hkclasses::REGISTRY` gives the table its build script
    /// rebuilt from the SDK's snapshot, parsed once and shared.
    fn tagfile_types(&self, sdk: &str) -> Option<Arc<TypeTable>> {
        let _ = sdk;
        None
    }

    /// The tagfile SDKs it has type tables of, newest first: what `<hktagfile>` XML that names no
    /// SDK and lists no members (HKLib's form) is tried against ([`tagfile::xml::read_with`]).
    fn tagfile_sdks(&self) -> Vec<&str> {
        Vec::new()
    }

    /// The enumerations of tagfile SDK `sdk` (`2018.1`) with their items, which its type tables
    /// do not list: a generated module's `ENUMS`. The dump ([`crate::dump::dump_tagfile_with`])
    /// names enum members by them, as a packfile's class descriptions name its own.
    fn tagfile_enums(&self, sdk: &str) -> crate::value::EnumTable {
        let _ = sdk;
        crate::value::EnumTable::default()
    }
}

/// One generated module's classes as a class source (`Some(&hkclasses::hk2018_1::CLASSES)`, or the
/// `CLASSES` of a module your crate generates with `hkgen`'s builder): its tagfile classes for a
/// tagfile of any SDK (an object is typed only where a class's name and computed hash match its
/// type, so a module of another SDK types nothing it does not describe). It has no type table and
/// no packfile class descriptions (a packfile module's are its `SCHEMA`, a class source of its own).
///
/// ```
/// # static CLASSES: &[hktypes::value::ClassEntry] = &[];
/// // `CLASSES` is a generated module's table (`hkclasses::hk2018_1::CLASSES`, `havok::CLASSES`).
/// let options = hktypes::OpenOptions { classes: Some(&CLASSES), ..Default::default() };
/// # let _ = options;
/// ```
impl ClassRegistry for &[ClassEntry] {
    fn tagfile(&self, _sdk: &str) -> &[ClassEntry] {
        self
    }
}

/// One packfile SDK module's class descriptions as a class source (`Some(&hkclasses::hk2014_2::SCHEMA)`):
/// the one source for a packfile of any contents version (a class whose signature it computes is
/// laid out by it only when that is the signature the file stores), and the one [`Document::new`] declares added classes from.
impl ClassRegistry for packfile::layout::StaticClassSet {
    fn packfile(&self, _version: &str) -> Vec<&dyn ClassSource> {
        vec![self]
    }
}

/// The class descriptions a packfile document read its objects with (its `classes`) as a class
/// source: to read a file it wrote again with the same classes.
impl ClassRegistry for packfile::layout::ClassSet {
    fn packfile(&self, _version: &str) -> Vec<&dyn ClassSource> {
        vec![self]
    }
}

/// What [`open`] reads a file with. [`OpenOptions::default`] reads every object untyped.
#[derive(Clone, Copy)]
pub struct OpenOptions<'a> {
    /// The compendia a TAG0 file that names one (`TCRF`) takes its types from.
    pub compendia: Option<&'a CompendiumSet>,
    /// Where the classes of each SDK come from: `hkclasses::REGISTRY` (every SDK the build compiles
    /// in), one generated module's classes (`&hkclasses::hk2018_1::CLASSES`, or the `CLASSES` of a
    /// module your own crate generates; a packfile module's `&SCHEMA`), or a [`ClassRegistry`] of
    /// your own; `None` reads every object untyped.
    pub classes: Option<&'a dyn ClassRegistry>,
    /// The layout rules a document read from `<hkpackfile>` XML writes under
    /// ([`packfile::xml::DEFAULT_LAYOUT`] by default).
    pub xml_layout: LayoutRules,
    /// What a pointer of `<hkpackfile>` XML that names no object gives: an error (the default),
    /// or null with the repair listed in [`Document::repairs`].
    pub xml_dangling: packfile::xml::Dangling,
    /// The order the objects of `<hkpackfile>` XML are laid out in (as the XML lists them, by
    /// default).
    pub xml_order: packfile::xml::ObjectOrder,
}

impl Default for OpenOptions<'_> {
    fn default() -> Self {
        OpenOptions {
            compendia: None,
            classes: None,
            xml_layout: packfile::xml::DEFAULT_LAYOUT,
            xml_dangling: packfile::xml::Dangling::Error,
            xml_order: packfile::xml::ObjectOrder::default(),
        }
    }
}

/// A Havok file read by [`open`] or made by [`Document::new`]: its objects, named by
/// [`Handle`]s, in either format. Each variant holds the format's own document.
///
/// Where the classes come from: the root crate `hkclasses` compiles the generated classes of every
/// SDK its features enable (`hkclasses::hk2018_1::hkaSkeleton`, `hkclasses::hk2014_2::hkaSkeleton`)
/// and `hkclasses::open_options()` reads with all of them ([`ClassRegistry`]); no schema folder
/// and no `hkgen` at run time. Typed access ([`Document::get`], [`Document::get_mut`],
/// [`Document::all`], [`Document::add`]) takes any generated class of either format ([`Typed`]).
///
/// The example below makes a packfile from nothing, reads it, edits a member and writes it. It
/// writes its one class by hand (hidden lines), as the code generator would, so that it runs
/// without `hkclasses`; with it, the class is `hkclasses::hk2014_2::SomeClass`, the schema
/// `hkclasses::hk2014_2::SCHEMA` and the options `hkclasses::open_options()`.
///
/// ```
/// # use hktypes::packfile::layout::{MemberType, StaticClass, StaticClassSet, StaticMember};
/// # use hktypes::packfile::objects::MemberValue;
/// # use hktypes::packfile::typed::{check_count, member, struct_values, to_struct, PackClass, PackValue};
/// # use hktypes::value::{ClassEntry, Object, Result};
/// use hktypes::packfile::LayoutRules;
/// use hktypes::value::Typed;
/// use hktypes::{open, ClassRegistry, Document, NewFormat, OpenOptions};
///
/// /// A class with one member, `count`.
/// #[derive(Clone, Debug, PartialEq)]
/// struct Counter {
///     count: u32,
/// }
/// # impl PackValue for Counter {
/// #     fn from_value(v: &MemberValue) -> Result<Self> { struct_values(v) }
/// #     fn to_value(&self) -> MemberValue { to_struct(self) }
/// # }
/// # impl PackClass for Counter {
/// #     const NAME: &'static str = "Counter";
/// #     const SIGNATURE: u32 = 0x1234_5678;
/// #     const VERSION: u32 = 0;
/// #     const PARENT: Option<&'static str> = None;
/// #     const MEMBERS: &'static [&'static str] = &["count"];
/// #     fn from_values(values: &[MemberValue]) -> Result<Self> {
/// #         check_count::<Self>(values)?;
/// #         Ok(Counter { count: member(values, 0, "count")? })
/// #     }
/// #     fn to_values(&self, out: &mut Vec<MemberValue>) { out.push(self.count.to_value()) }
/// # }
/// # impl Typed for Counter {
/// #     const ENTRY: ClassEntry = ClassEntry::packfile::<Self>();
/// #     fn into_object(self) -> std::result::Result<Box<dyn Object>, Self> { Err(self) }
/// # }
/// # static SCHEMA: StaticClassSet = StaticClassSet {
/// #     sdk: "2014.2",
/// #     classes: &[StaticClass {
/// #         name: "Counter", parent: None, interfaces: 0, hidden_members: false, fixed: &[], signature: Some(0x1234_5678),
/// #         members: &[StaticMember {
/// #             name: "count", ty: MemberType::Uint32, subtype: MemberType::Void, class: None, c_array_size: 0, flags: 0, enumeration: None,
/// #         }],
/// #     }],
/// #     enums: &[],
/// # };
/// /// The classes documents are made and read with (`hkclasses::REGISTRY` in a program).
/// struct Classes;
/// impl ClassRegistry for Classes {
///     fn packfile(&self, _version: &str) -> Vec<&dyn hktypes::packfile::layout::ClassSource> {
///         vec![&SCHEMA]
///     }
/// }
/// static CLASSES: Classes = Classes;
///
/// // A Switch packfile (8-byte pointers, little-endian) of SDK 2014.2, made from nothing.
/// let mut doc = Document::new("2014.2", NewFormat::Packfile(LayoutRules::SWITCH), Some(&CLASSES))?;
/// // `Counter` is listed in `__classnames__` with its signature from the registry's schema.
/// let h = doc.add(Counter { count: 1 })?;
/// let bytes = doc.write()?;
///
/// // Read: the format is told by the bytes, the classes come from the options.
/// let options = OpenOptions { classes: Some(&CLASSES), ..OpenOptions::default() };
/// let mut doc = open(&bytes, &options)?;
/// assert_eq!(doc.get::<Counter>(h)?.count, 1);
///
/// // Edit a member and write: what was not changed is written back as it was read.
/// doc.get_mut::<Counter>(h)?.count += 41;
/// let edited = doc.write()?;
/// assert_eq!(open(&edited, &options)?.get::<Counter>(h)?.count, 42);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Its `Debug` form is the format and the counts (`Document { format: Tag0, counts: .. }`).
// One per file read: the packfile variant's size costs nothing that boxing it would save.
#[allow(clippy::large_enum_variant)]
pub enum Document {
    /// A TAG0 tagfile's object graph.
    Tagfile(graph::TagfileDocument),
    /// A packfile's objects, read from a binary packfile or from `<hkpackfile>` XML.
    Packfile(objects::PackfileDocument),
    /// A TCM0 compendium: a type table for other files, no objects.
    Compendium(Compendium),
}

/// Reads any Havok file [`sniff`] recognises.
///
/// Errors: [`ErrorKind::NotHavok`] when the bytes are no Havok file; else the located error of
/// the format's reader.
pub fn open(bytes: &[u8], options: &OpenOptions<'_>) -> Result<Document> {
    let Some(format) = sniff(bytes) else {
        return Err(ContainerError::new(ErrorKind::NotHavok(head_hex(bytes))).into());
    };
    let pick = |version: &str| options.classes.map(|c| c.packfile(version)).unwrap_or_default();
    let read_tagfile = |file: &tagfile::TagFile<'_>| -> Result<Document> {
        let classes = options.classes.map_or(&[][..], |c| c.tagfile(&file.sdk_version()));
        let mut d = graph::TagfileDocument::from_file(file, classes)?;
        // Generic member access names enum members by the items the classes know.
        if let Some(c) = options.classes {
            d.set_enums(c.tagfile_enums(&file.sdk_version()));
        }
        Ok(Document::Tagfile(d))
    };
    match format {
        Format::Tag0 => {
            let empty = CompendiumSet::new();
            read_tagfile(&tagfile::TagFile::read(bytes, options.compendia.unwrap_or(&empty))?)
        }
        Format::Tcm0 => Ok(Document::Compendium(Compendium::read(bytes)?)),
        Format::Phive => {
            let empty = CompendiumSet::new();
            let wrapped = tagfile::phive::Phive::read(bytes)?;
            // The tagfile is read on its own; its errors point into the whole file.
            let inner = || read_tagfile(&tagfile::TagFile::read(wrapped.tag0, options.compendia.unwrap_or(&empty))?);
            let mut doc = inner().map_err(|e| e.shifted(tagfile::phive::HEADER_SIZE as u64))?;
            if let Document::Tagfile(d) = &mut doc {
                d.set_phive(Some(graph::PhiveWrapper::of(&wrapped)));
            }
            Ok(doc)
        }
        Format::Packfile => {
            let file = packfile::PackFile::read(bytes)?;
            let sources = pick(&file.contents_version());
            Ok(Document::Packfile(objects::PackfileDocument::from_file_with(file, &sources)?))
        }
        Format::PackfileXml => {
            let read = packfile::xml::ReadOptions { layout: options.xml_layout, dangling: options.xml_dangling, order: options.xml_order };
            Ok(Document::Packfile(packfile::xml::read_with(bytes, pick, read)?))
        }
        // Tagfile XML is read as the TAG0 file it describes (types from its `<type>` records, a
        // TCRF file's compendium from the options), then as that TAG0.
        Format::TagfileXml => {
            let empty = CompendiumSet::new();
            let compendia = options.compendia.unwrap_or(&empty);
            // HKLib's member-less types take their members from the registry's type table.
            let xml = match options.classes {
                Some(c) => tagfile::xml::read_with(bytes, &c.tagfile_sdks(), &|sdk| c.tagfile_types(sdk))?,
                None => tagfile::xml::read(bytes)?,
            };
            let tag0 = xml.write_tag0(compendia)?;
            let mut doc = read_tagfile(&tagfile::TagFile::read(&tag0, compendia)?)?;
            // The Phive wrapper the XML keeps (its root's `phive` attribute) is written around
            // the tagfile again.
            if let (Document::Tagfile(d), Some(w)) = (&mut doc, xml.phive) {
                d.set_phive(Some(w));
            }
            Ok(doc)
        }
    }
}

/// `starts with 89 50 4E 47 0D 0A 1A 0A ...`: the first eight bytes in hex, `...` when more
/// follow.
fn head_hex(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "it is empty".to_owned();
    }
    let head = &bytes[..bytes.len().min(8)];
    let hex: Vec<String> = head.iter().map(|b| format!("{b:02X}")).collect();
    let more = if bytes.len() > head.len() { " ..." } else { "" };
    format!("starts with {}{more}", hex.join(" "))
}

impl std::fmt::Debug for Document {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Document").field("format", &self.format()).field("counts", &self.counts()).finish()
    }
}

impl Document {
    /// The format the document was read from (a document read from XML writes as a binary
    /// packfile, [`Format::PackfileXml`] is never returned).
    pub fn format(&self) -> Format {
        match self {
            Document::Tagfile(d) if d.phive().is_some() => Format::Phive,
            Document::Tagfile(_) => Format::Tag0,
            Document::Packfile(_) => Format::Packfile,
            Document::Compendium(_) => Format::Tcm0,
        }
    }

    /// The SDK the file was written by, named the same way in every format: `2018.1` for a
    /// tagfile (from its `SDKV`), `2014.2` for a packfile (from its contents version
    /// `hk_2014.2.0-r1`, `5.5` from `Havok-5.5.0-r1`); `None` for a compendium, which stores none.
    /// Havok's own string is [`Document::contents_version`].
    pub fn sdk(&self) -> Option<String> {
        match self {
            Document::Tagfile(d) => Some(d.sdk_version()),
            Document::Packfile(d) => Some(packfile::sdk_of_contents_version(&d.file.contents_version())),
            Document::Compendium(_) => None,
        }
    }

    /// Havok's full version string as the file stores it: a packfile's contents version
    /// (`hk_2014.2.0-r1`), a tagfile's `SDKV` (`20180100`); `None` for a compendium.
    pub fn contents_version(&self) -> Option<String> {
        match self {
            Document::Tagfile(d) => Some(d.sdkv()),
            Document::Packfile(d) => Some(d.file.contents_version()),
            Document::Compendium(_) => None,
        }
    }

    /// The tagfile underneath, for the format's own details (its type table, items, Phive
    /// wrapper); `None` for another format.
    pub fn as_tagfile(&self) -> Option<&graph::TagfileDocument> {
        match self {
            Document::Tagfile(d) => Some(d),
            _ => None,
        }
    }

    /// [`Document::as_tagfile`], to change it.
    pub fn as_tagfile_mut(&mut self) -> Option<&mut graph::TagfileDocument> {
        match self {
            Document::Tagfile(d) => Some(d),
            _ => None,
        }
    }

    /// The packfile underneath, for the format's own details (its header and sections, class
    /// descriptions, member values); `None` for another format.
    pub fn as_packfile(&self) -> Option<&objects::PackfileDocument> {
        match self {
            Document::Packfile(d) => Some(d),
            _ => None,
        }
    }

    /// [`Document::as_packfile`], to change it.
    pub fn as_packfile_mut(&mut self) -> Option<&mut objects::PackfileDocument> {
        match self {
            Document::Packfile(d) => Some(d),
            _ => None,
        }
    }

    /// The tagfile underneath, taken out of the document; the document itself when it is
    /// another format.
    pub fn into_tagfile(self) -> std::result::Result<graph::TagfileDocument, Document> {
        match self {
            Document::Tagfile(d) => Ok(d),
            other => Err(other),
        }
    }

    /// The packfile underneath, taken out of the document; the document itself when it is
    /// another format.
    pub fn into_packfile(self) -> std::result::Result<objects::PackfileDocument, Document> {
        match self {
            Document::Packfile(d) => Ok(d),
            other => Err(other),
        }
    }

    /// The compendium, `None` for a file with objects.
    pub fn as_compendium(&self) -> Option<&Compendium> {
        match self {
            Document::Compendium(c) => Some(c),
            _ => None,
        }
    }

    /// A packfile's layout rules (pointer size, byte order, padding reuse, empty bases); `None`
    /// for a tagfile, which has one layout.
    pub fn layout(&self) -> Option<LayoutRules> {
        match self {
            Document::Packfile(d) => Some(d.layout()),
            _ => None,
        }
    }

    /// How many objects are typed and untyped.
    pub fn counts(&self) -> Counts {
        match self {
            Document::Tagfile(d) => d.counts(),
            Document::Packfile(d) => d.counts(),
            Document::Compendium(_) => Counts::default(),
        }
    }

    /// Every object, in handle order.
    pub fn handles(&self) -> Vec<Handle> {
        match self {
            Document::Tagfile(d) => d.handles().collect(),
            Document::Packfile(d) => (0..d.objects.len() as u32).map(Handle).collect(),
            Document::Compendium(_) => Vec::new(),
        }
    }

    /// The class (type) name of an object, `None` when `h` is none.
    pub fn class_name(&self, h: Handle) -> Option<String> {
        match self {
            Document::Tagfile(d) => d.type_name(h),
            Document::Packfile(d) => d.objects.get(h.0 as usize).map(|o| o.class.clone()),
            Document::Compendium(_) => None,
        }
    }

    /// The objects of class `class` (exactly, not derived ones), in handle order.
    pub fn find(&self, class: &str) -> Vec<Handle> {
        match self {
            Document::Packfile(d) => d.find(class).collect(),
            _ => self.handles().into_iter().filter(|&h| self.class_name(h).as_deref() == Some(class)).collect(),
        }
    }

    /// The objects `h` points at, each once, in ascending order.
    pub fn pointers_of(&self, h: Handle) -> Vec<Handle> {
        match self {
            Document::Tagfile(d) => d.pointers_of(h),
            Document::Packfile(d) => d.pointers_of(h),
            Document::Compendium(_) => Vec::new(),
        }
    }

    /// The objects that point at `h`, in handle order.
    pub fn referrers(&self, h: Handle) -> Vec<Handle> {
        match self {
            Document::Tagfile(d) => d.referrers(h),
            Document::Packfile(d) => d.referrers(h),
            Document::Compendium(_) => Vec::new(),
        }
    }

    /// Removes object `h`: refused while another object points at it, with an
    /// [`ErrorKind::Referenced`] naming them, and for the root object. A tagfile's other objects
    /// keep their handles; a packfile's later objects move down by one (its handles are places
    /// in `__data__`).
    pub fn remove(&mut self, h: Handle) -> Result<()> {
        match self {
            Document::Tagfile(d) => Ok(d.remove(h)?),
            Document::Packfile(d) => Ok(d.remove(h)?),
            Document::Compendium(_) => Err(no_objects("remove").into()),
        }
    }

    /// What reading changed to read the input, each with where (a dangling XML pointer read as
    /// null under [`OpenOptions::xml_dangling`]); empty for a faithful read.
    pub fn repairs(&self) -> &[String] {
        match self {
            Document::Packfile(d) => &d.repairs,
            Document::Tagfile(_) | Document::Compendium(_) => &[],
        }
    }

    /// The root object (a tagfile's first object, a packfile's contents object).
    pub fn root(&self) -> Option<Handle> {
        match self {
            Document::Tagfile(d) => Some(d.root()),
            Document::Packfile(d) => d.root,
            Document::Compendium(_) => None,
        }
    }

    /// The file's bytes: a tagfile as TAG0, a packfile under its own layout rules. A document
    /// left alone writes back the bytes it was read from.
    pub fn write(&self) -> Result<Vec<u8>> {
        match self {
            Document::Tagfile(d) => d.write(),
            Document::Packfile(d) => d.write(),
            Document::Compendium(_) => Err(no_objects("write").into()),
        }
    }

    /// A packfile laid out under other rules (another platform's pointer size or byte order).
    /// A tagfile has one layout: the rules must be `None`.
    pub fn write_as(&self, layout: Option<LayoutRules>) -> Result<Vec<u8>> {
        match (self, layout) {
            (Document::Packfile(d), Some(rules)) => d.write_as(rules),
            (_, None) => self.write(),
            (_, Some(rules)) => Err(WriteError::new(ErrorKind::Invalid(format!(
                "layout rules {rules} are for packfiles; a {} has one layout",
                self.format().name()
            )))
            .into()),
        }
    }
}

/// What [`Document::new`] makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewFormat {
    /// A TAG0 tagfile whose objects are described by the SDK's type table, which the class
    /// registry gives ([`ClassRegistry::tagfile_types`]); its `TYPE` section is written from the
    /// types of that table its objects use ([`crate::tagfile::type_writer`]).
    Tagfile,
    /// A binary packfile laid out under these rules (pointer size, byte order, padding reuse,
    /// empty bases), its header the one Havok's packer writes for the SDK. The class of an object
    /// added is listed in `__classnames__` from the class registry ([`ClassRegistry::packfile`]),
    /// or beforehand by [`Document::declare`] from a class source of one's own.
    Packfile(LayoutRules),
}

/// The packfile contents version and file version of SDK `sdk`, as the corpus' stock files of
/// each SDK store them.
fn packfile_versions(sdk: &str) -> Option<(String, u32)> {
    let (major, minor) = sdk.split_once('.')?;
    let (major, minor): (u32, u32) = (major.parse().ok()?, minor.parse().ok()?);
    let file_version = match (major, minor) {
        (5, _) => 5,
        (6 | 7, _) | (2010, 1) => 7,
        (2010, 2) => 8,
        (2011..=2013, _) => 9,
        (2014, _) => 11,
        _ => return None,
    };
    let prefix = if major >= 2010 { "hk_" } else { "Havok-" };
    Some((format!("{prefix}{major}.{minor}.0-r1"), file_version))
}

impl Document {
    /// An empty document of SDK `sdk` (`2018.1`, `2014.2`) in `format`, whose classes come from
    /// `classes` (`Some(&hkclasses::REGISTRY)`: every SDK the build compiles in), as
    /// [`OpenOptions::classes`] for [`open`]. Objects are added with [`Document::add`]; the first
    /// added is the root.
    ///
    /// A tagfile's `SDKV` is `sdk` (`20180100`) and its types the SDK's type table
    /// ([`ClassRegistry::tagfile_types`]). A packfile's header names the SDK's contents version
    /// (`hk_2014.2.0-r1`) and packfile version (11 for 2014, 9 for 2011 to 2013, 8 for 2010.2, 7
    /// for 6.x to 2010.1, 5 for 5.5); `add` lists the class of each object in `__classnames__`,
    /// with its signature, from the registry's class sources for that contents version (the
    /// first that computes the object's signature), as Havok's packer lists the classes of the
    /// objects it writes. Without a registry, a packfile's classes are [`Document::declare`]d.
    ///
    /// Errors: an SDK that is not `<year or major>.<minor>`, no packfile SDK, or a tagfile SDK
    /// whose type table `classes` does not have (none given, or the SDK's feature off).
    pub fn new(sdk: &str, format: NewFormat, classes: Option<&'static (dyn ClassRegistry + Sync)>) -> Result<Document> {
        let invalid = |m: String| -> crate::error::Error { ValueError::new(ErrorKind::Invalid(m)).into() };
        match format {
            NewFormat::Tagfile => {
                let (major, minor) = sdk.split_once('.').ok_or_else(|| invalid(format!("SDK {sdk:?} is not <year>.<minor>")))?;
                let sdkv = match (major.parse::<u16>(), minor.parse::<u8>()) {
                    (Ok(y), Ok(m)) if (2000..10000).contains(&y) && m < 100 => format!("{y}{m:02}00"),
                    _ => return Err(invalid(format!("SDK {sdk:?} is not <year>.<minor>"))),
                };
                let types = classes
                    .and_then(|c| c.tagfile_types(sdk))
                    .ok_or_else(|| invalid(format!("the class registry has no type table of SDK {sdk}")))?;
                Ok(Document::Tagfile(graph::TagfileDocument::new(&sdkv, types)))
            }
            NewFormat::Packfile(rules) => {
                let (contents, file_version) = packfile_versions(sdk).ok_or_else(|| invalid(format!("SDK {sdk:?} writes no packfiles")))?;
                let mut doc = objects::PackfileDocument::new(&contents, file_version, rules);
                doc.declare_from = objects::DeclareFrom(classes.map(|c| Arc::new(move |version: &str| c.packfile(version)) as Arc<objects::SourcesFor>));
                Ok(Document::Packfile(doc))
            }
        }
    }

    /// Lists class `class` in a packfile's `__classnames__`, with the signature `source` computes,
    /// and its description (with its parents' and its struct members' classes) for laying
    /// objects out, so that [`Document::add`] takes objects of it; a class the document lists is
    /// left as it is. `source` is a compiled-in class set (`hkclasses::hk2014_2::SCHEMA`) or one
    /// of [`ClassRegistry::packfile`]. A tagfile's types are all in its type table: declaring is
    /// a packfile's step, and an error on a tagfile.
    pub fn declare(&mut self, class: &str, source: &dyn ClassSource) -> Result<()> {
        match self {
            Document::Packfile(d) => Ok(d.declare(class, source)?),
            _ => Err(ValueError::new(ErrorKind::Invalid(format!(
                "declare is a packfile's step; a {} names its types in its type table",
                self.format().name()
            )))
            .into()),
        }
    }
}

/// Typed access through the generated classes of either format, with one bound ([`Typed`]) and
/// one return convention (see the module doc).
impl Document {
    /// Object `h` as class `T`: a tagfile object of class `T` or derived from it, borrowed
    /// ([`Cow::Borrowed`]); a packfile object of exactly class `T` (its stored signature and the
    /// members the document read it with agreeing), converted from its member values
    /// ([`Cow::Owned`]). An error names the object and why: no such object, an untyped object,
    /// another class, a class of the other format, or a value that does not convert.
    pub fn get<T: Typed>(&self, h: Handle) -> Result<Cow<'_, T>> {
        match self {
            Document::Tagfile(d) => match d.get::<T>(h) {
                Some(t) => Ok(Cow::Borrowed(t)),
                None => Err(self.not_a::<T>(h).into()),
            },
            Document::Packfile(d) => {
                let p = packfile_class::<T>(self.format())?;
                let values = d.struct_source(h, T::ENTRY.name, p.signature, p.members)?;
                let t = (p.read)(values).map_err(|e| e.in_context(format!("object {} ({})", h.0, T::ENTRY.name)))?;
                match t.downcast::<T>() {
                    Ok(t) => Ok(Cow::Owned(*t)),
                    Err(_) => Err(wrong_entry::<T>().into()),
                }
            }
            Document::Compendium(_) => Err(no_objects("read").into()),
        }
    }

    /// Object `h` as class `T`, to change it: a tagfile object of exactly class `T` (not a
    /// base), borrowed; a packfile object as for [`Document::get`], converted, and stored back as
    /// member values when the [`ObjectMut`] is dropped. Either way the document writes the object
    /// through its class from then on.
    pub fn get_mut<T: Typed>(&mut self, h: Handle) -> Result<ObjectMut<'_, T>> {
        if let Document::Packfile(_) = self {
            let value = self.get::<T>(h)?.into_owned();
            let Document::Packfile(doc) = self else { unreachable!("matched above") };
            return Ok(ObjectMut(Mut::Packfile { doc, h, value }));
        }
        let error = self.not_a::<T>(h);
        match self {
            Document::Tagfile(d) => d.get_mut::<T>(h).map(|t| ObjectMut(Mut::Tagfile(t))).ok_or_else(|| error.into()),
            _ => Err(no_objects("change").into()),
        }
    }

    /// Every object [`Document::get`] gives as class `T` (a tagfile's objects of class `T` and
    /// derived ones; a packfile's objects of class `T`), in handle order, each with its value or
    /// the reason it did not convert.
    pub fn all<T: Typed>(&self) -> impl Iterator<Item = (Handle, Result<Cow<'_, T>>)> + '_ {
        let handles: Vec<Handle> = match self {
            Document::Tagfile(d) => d.all::<T>().map(|(h, _)| h).collect(),
            Document::Packfile(d) => d.find(T::ENTRY.name).collect(),
            Document::Compendium(_) => Vec::new(),
        };
        handles.into_iter().map(move |h| (h, self.get::<T>(h)))
    }

    /// Adds `obj` as a new object and returns its handle: to a tagfile whose type table has a
    /// type of `T`'s name, or to a packfile that lists `T`'s class in `__classnames__` with `T`'s
    /// signature (a class of the file read, one declared, see [`objects::PackfileDocument::declare`], or,
    /// in a document made by [`Document::new`] with a class registry, one the registry has: it
    /// is declared then). The first object added to an empty document is its root.
    pub fn add<T: Typed>(&mut self, obj: T) -> Result<Handle> {
        let format = self.format();
        match self {
            Document::Tagfile(d) => match obj.into_object() {
                Ok(o) => Ok(d.add_object(T::ENTRY.name, o)?),
                Err(_) => Err(other_format::<T>(format).into()),
            },
            Document::Packfile(d) => {
                let p = packfile_class::<T>(format)?;
                let mut values = Vec::with_capacity(p.members.len());
                (p.write)(&obj, &mut values).ok_or_else(wrong_entry::<T>)?;
                Ok(d.add_values(T::ENTRY.name, p.signature, p.members, values)?)
            }
            Document::Compendium(_) => Err(no_objects("add").into()),
        }
    }

    /// Replaces object `h` with `obj`: a packfile object of exactly class `T` (its stored
    /// signature and members agreeing), whatever its values were, even ones [`Document::get`]
    /// cannot convert (an hkArray with another capacity word); a tagfile object of exactly class
    /// `T`, as through [`Document::get_mut`].
    pub fn set<T: Typed>(&mut self, h: Handle, obj: T) -> Result<()> {
        let format = self.format();
        match self {
            Document::Packfile(d) => {
                let p = packfile_class::<T>(format)?;
                let mut values = Vec::with_capacity(p.members.len());
                (p.write)(&obj, &mut values).ok_or_else(wrong_entry::<T>)?;
                Ok(d.set_values(h, T::ENTRY.name, p.signature, p.members, values)?)
            }
            _ => {
                *self.get_mut::<T>(h)? = obj;
                Ok(())
            }
        }
    }

    /// Why a tagfile object is not a `T`.
    fn not_a<T: Typed>(&self, h: Handle) -> ValueError {
        let want = T::ENTRY.name;
        let msg = match (self, self.class_name(h)) {
            (_, None) => format!("no object {}", h.0),
            (_, Some(_)) if T::ENTRY.as_tagfile().is_none() => return other_format::<T>(self.format()),
            (Document::Tagfile(d), Some(c)) if matches!(d.node(h), Some(graph::Node::Untyped { .. })) => {
                format!("object {} ({c}) is untyped: no generated class of the document's SDK read it as {want}", h.0)
            }
            (_, Some(c)) => format!("object {} is a {c}, not a {want}", h.0),
        };
        ValueError::new(ErrorKind::Invalid(msg))
    }
}

/// `T`'s packfile half, or the error that `T` is a tagfile class.
fn packfile_class<T: Typed>(format: Format) -> std::result::Result<PackfileClass, ValueError> {
    T::ENTRY.as_packfile().copied().ok_or_else(|| other_format::<T>(format))
}

fn other_format<T: Typed>(format: Format) -> ValueError {
    let of = if T::ENTRY.as_tagfile().is_some() { "tagfile" } else { "packfile" };
    ValueError::new(ErrorKind::Invalid(format!("{} is a class of a {of} SDK; the document is a {}", T::ENTRY.name, format.name())))
}

/// A class whose entry converts to another type than itself (hand-written, not generated).
fn wrong_entry<T: Typed>() -> ValueError {
    ValueError::new(ErrorKind::Invalid(format!("the entry of {} converts to another type", T::ENTRY.name)))
}

/// An object of a [`Document`] taken mutably as class `T` ([`Document::get_mut`]); it
/// dereferences to `T`. A packfile object's change is stored back when it is dropped.
pub struct ObjectMut<'a, T: Typed>(Mut<'a, T>);

enum Mut<'a, T: Typed> {
    Tagfile(&'a mut T),
    Packfile { doc: &'a mut objects::PackfileDocument, h: Handle, value: T },
}

impl<T: Typed> std::ops::Deref for ObjectMut<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        match &self.0 {
            Mut::Tagfile(t) => t,
            Mut::Packfile { value, .. } => value,
        }
    }
}

impl<T: Typed> std::ops::DerefMut for ObjectMut<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        match &mut self.0 {
            Mut::Tagfile(t) => t,
            Mut::Packfile { value, .. } => value,
        }
    }
}

impl<T: Typed> Drop for ObjectMut<'_, T> {
    fn drop(&mut self) {
        if let Mut::Packfile { doc, h, value } = &mut self.0 {
            // `get_mut` converted the object through `T`'s entry, which writes a `T` back.
            let Some(p) = T::ENTRY.as_packfile() else { return };
            let mut values = Vec::with_capacity(p.members.len());
            if (p.write)(&*value, &mut values).is_some() {
                doc.give_array_flags(T::ENTRY.name, &mut values);
                if let Some(o) = doc.objects.get_mut(h.0 as usize) {
                    o.body = objects::Body::Typed(values);
                }
            }
        }
    }
}

fn no_objects(what: &str) -> WriteError {
    WriteError::new(ErrorKind::Invalid(format!("a TCM0 compendium holds types, no objects: nothing to {what}")))
}
