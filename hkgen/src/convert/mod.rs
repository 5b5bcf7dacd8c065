//! A document of one SDK and format as a document of another: `hkgen convert --sdk SDK`.
//!
//! # How
//!
//! Every object is rebuilt as the target SDK's class of the same name, member by member, through
//! the one value shape of [`hktypes::dump`] ([`Val`]): the source's members come from
//! [`Document::members`], the target's file from [`hktypes::dump::build`]. What the target's
//! classes are is asked of the class registry (`hkclasses::REGISTRY`): a tagfile SDK's type table,
//! a packfile SDK's class descriptions. A target class's members, in the target's order and with
//! their zero values, are read from an object of that class whose bytes are all zero, laid out
//! by the target's own writer and read back by its own reader (so that every member has the shape
//! the target's dump gives it).
//!
//! Members are matched by name. What names alone cannot say is a migration rule, data read from
//! `schemas/migrations/` ([`rules`]): a rename, a named conversion between two shapes of a value,
//! the value Havok writes for a member the source lacks, a member whose value the run time
//! rebuilds, records moved between a table and the elements indexing it, members grouped in a
//! record member, an array that only lists another's members, a record member the run time
//! computes from what another object holds (within a stated tolerance). There is no code per
//! class here.
//!
//! # Nothing lost in silence
//!
//! [`plan`] gives the target's dump and a [`Report`]: every value the target cannot hold
//! (`lost`: a member it lacks holding something, a class it lacks, a pointer to such an object, a
//! value of another shape with no conversion named), every member given a value the source did
//! not have (`defaulted`), every rule applied (`migrated`), and every value a computed-member
//! rule gives back or gives a new member (`computed`). [`convert`] refuses a plan that
//! loses anything unless told to allow it. A member the target lacks whose value is zero
//! (null, 0, empty) loses nothing and is listed as migrated.
//!
//! Objects are ordered as each format's writer orders them: a tagfile's breadth first from the
//! root, a packfile's depth first (Havok's packer); objects no pointer reaches follow in the
//! source's order.
//!
//! Data whose encoding depends on the format goes through the target's writer: pointers,
//! strings, arrays (capacity words are the target's stock ones) and layouts. Spline animation
//! `data` is a byte stream whose blocks start on 16 bytes of the stream whatever the pointer size
//! ([`hktypes::anim::spline`] reads a 32-bit PTDE and a 64-bit DSR block alike), so it is carried
//! as it is and decodes to the same frames; `tests/convert_sdk.rs` decodes both.

pub mod rules;

pub use rules::{Migrations, ValueConversion};

use hktypes::dump::{self, BuildOptions, Dump, DumpObject, Kept, Members, ObjectKept, Val};
use hktypes::packfile::layout::{ClassSource, Member, MemberType};
use hktypes::packfile::LayoutRules;
use hktypes::reflect::{Kind, TypeIndex, TypeTable};
use hktypes::{ClassRegistry, Document, Handle, NewFormat, OpenOptions};
use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::sync::Arc;

/// The format of the converted file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetFormat {
    /// A TAG0 tagfile (SDK 2015.1 and later).
    Tagfile,
    /// A binary packfile under these layout rules (SDK 2014 and earlier).
    Packfile(LayoutRules),
}

/// What [`plan`] and [`convert`] convert to.
pub struct Options<'a> {
    /// The target SDK (`2015.1`, `2010.2`).
    pub sdk: String,
    /// The target format.
    pub format: TargetFormat,
    /// Where the target's classes come from (`&hkclasses::REGISTRY`).
    pub classes: &'static (dyn ClassRegistry + Sync),
    /// The migration rules ([`Migrations::builtin`]).
    pub migrations: &'a Migrations,
    /// The compendia a TCRF source tagfile was read with (none for other files).
    pub compendia: Option<&'a hktypes::tagfile::CompendiumSet>,
    /// Which side of a class replacement ([`rules::Replacement`]) a target SDK that has both
    /// takes, by the start of its classes' names (`hkp`, `hknp`): none for what the rules'
    /// `preferred` say (2014.1: hknp). [`Migrations::with_preference`] gives the rules it asks for.
    pub prefer: Option<String>,
}

/// One entry of a [`Report`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// The source object's handle.
    pub handle: u32,
    /// The source object's class.
    pub class: String,
    /// The member path within it (`motion.motionState.maxLinearVelocity`), empty for the object.
    pub member: String,
    /// What happened.
    pub what: String,
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.member.is_empty() {
            write!(f, "#{} {}: {}", self.handle, self.class, self.what)
        } else {
            write!(f, "#{} {}.{}: {}", self.handle, self.class, self.member, self.what)
        }
    }
}

/// What a conversion loses, defaults and migrates (see the module documentation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// The source SDK.
    pub from: String,
    /// The target SDK.
    pub to: String,
    /// Values the target cannot hold.
    pub lost: Vec<Note>,
    /// Members given a value the source did not have.
    pub defaulted: Vec<Note>,
    /// Rules applied, and members without a place whose value was zero.
    pub migrated: Vec<Note>,
    /// Values a target without a place for them need not hold, as a computed-member rule
    /// computes them from what it keeps; and values the target's new members were given so.
    pub computed: Vec<Note>,
}

impl Report {
    /// Nothing lost.
    pub fn is_lossless(&self) -> bool {
        self.lost.is_empty()
    }

    /// The report as text, one line per note under a heading per kind.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{} -> {}: {} lost, {} defaulted, {} migrated, {} computed",
            self.from,
            self.to,
            self.lost.len(),
            self.defaulted.len(),
            self.migrated.len(),
            self.computed.len()
        );
        for (head, notes) in [("lost", &self.lost), ("defaulted", &self.defaulted), ("migrated", &self.migrated), ("computed", &self.computed)] {
            for n in notes {
                let _ = writeln!(s, "  {head}: {n}");
            }
        }
        s
    }
}

/// Why a conversion stopped.
#[derive(Debug)]
pub enum ConvertError {
    /// Values the target cannot hold (the whole report).
    Loss(Box<Report>),
    /// Anything else: a class registry without the target SDK, an untyped source object, a
    /// target writer's error.
    Failed(String),
}

impl std::fmt::Display for ConvertError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConvertError::Loss(r) => write!(
                f,
                "converting would lose {} value(s) (allow it with --allow-loss):\n{}",
                r.lost.len(),
                r.lost.iter().map(|n| format!("  lost: {n}")).collect::<Vec<_>>().join("\n")
            ),
            ConvertError::Failed(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for ConvertError {}

fn failed(m: impl std::fmt::Display) -> ConvertError {
    ConvertError::Failed(m.to_string())
}

/// A plan: the target's dump and what it loses, defaults and migrates.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The target file as a dump ([`hktypes::dump::build`] writes it).
    pub dump: Dump,
    /// The report.
    pub report: Report,
}

/// The packfile contents version and file (class) version Havok's packer writes for `sdk`.
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

/// The `SDKV` of tagfile SDK `sdk` (`2015.1` -> `20150100`).
fn sdkv_of(sdk: &str) -> Option<String> {
    let (y, m) = sdk.split_once('.')?;
    let (y, m): (u16, u8) = (y.parse().ok()?, m.parse().ok()?);
    ((2000..10000).contains(&y) && m < 100).then(|| format!("{y}{m:02}00"))
}

/// The target SDK's classes.
enum Types {
    Tag { sdk: String, table: Arc<TypeTable>, by_name: HashMap<String, TypeIndex>, enums: hktypes::value::EnumTable },
    Pack { version: String, file_version: u32, rules: LayoutRules, sources: Vec<&'static dyn ClassSource> },
}

impl Types {
    fn new(o: &Options<'_>) -> Result<Types, ConvertError> {
        match o.format {
            TargetFormat::Tagfile => {
                let table = o.classes.tagfile_types(&o.sdk).ok_or_else(|| {
                    failed(format!("no type table of tagfile SDK {} is compiled in (its feature is off, or it writes packfiles)", o.sdk))
                })?;
                let mut by_name = HashMap::new();
                for (i, _) in table.iter() {
                    by_name.entry(table.full_name(i)).or_insert(i);
                }
                Ok(Types::Tag { sdk: o.sdk.clone(), table, by_name, enums: o.classes.tagfile_enums(&o.sdk) })
            }
            TargetFormat::Packfile(rules) => {
                let (version, file_version) =
                    packfile_versions(&o.sdk).ok_or_else(|| failed(format!("SDK {} writes no packfiles", o.sdk)))?;
                let sources = o.classes.packfile(&version);
                if sources.first().and_then(|s| s.class("hkBaseObject").or_else(|| s.class("hkReferencedObject"))).is_none() {
                    return Err(failed(format!("no class descriptions of packfile SDK {} are compiled in", o.sdk)));
                }
                Ok(Types::Pack { version, file_version, rules, sources })
            }
        }
    }

    /// Whether the target SDK has `class` (its own classes, not a neighbour's).
    fn has(&self, class: &str) -> bool {
        match self {
            Types::Tag { by_name, .. } => by_name.contains_key(class),
            Types::Pack { sources, .. } => sources.first().is_some_and(|s| s.class(class).is_some()),
        }
    }

    /// `class` and its ancestors' names, the class first.
    fn ancestry(&self, class: &str) -> Vec<String> {
        let mut out = Vec::new();
        match self {
            Types::Tag { table, by_name, .. } => {
                if let Some(&i) = by_name.get(class) {
                    // `ancestry` is root first; the class comes first here.
                    out.extend(table.ancestry(i).into_iter().rev().map(|a| table.full_name(a)));
                }
            }
            Types::Pack { sources, .. } => {
                let mut cur = Some(class.to_owned());
                while let Some(c) = cur.take() {
                    if out.len() > 64 || out.contains(&c) {
                        break;
                    }
                    cur = sources.first().and_then(|s| s.class(&c)).and_then(|d| d.parent.clone());
                    out.push(c);
                }
            }
        }
        if out.is_empty() {
            out.push(class.to_owned());
        }
        out
    }

    /// The record type of member `member` of record type `class` where the member is a record,
    /// or an array or C array of records.
    fn nested(&self, class: &str, member: &str) -> Option<String> {
        match self {
            Types::Tag { table, by_name, .. } => {
                let i = *by_name.get(class)?;
                let mut ty = None;
                for a in table.ancestry(i) {
                    let def = table.get(a)?;
                    if let Some(f) = table.fields_of(def).iter().find(|f| &*f.name == member) {
                        ty = Some(f.ty);
                        break;
                    }
                }
                let mut t = ty?;
                for _ in 0..16 {
                    let def = table.get(t)?;
                    let kind = {
                        let mut k = None;
                        let mut c = t;
                        for _ in 0..16 {
                            let d = table.get(c)?;
                            if let Some(f) = d.format() {
                                k = Some(f.kind());
                                break;
                            }
                            if d.parent == 0 {
                                break;
                            }
                            c = d.parent;
                        }
                        k?
                    };
                    match kind {
                        Kind::Record => return Some(table.full_name(t)),
                        Kind::Array => t = def.subtype.or_else(|| first_type_param(table, t))?,
                        _ => return None,
                    }
                }
                None
            }
            Types::Pack { sources, .. } => {
                let mut c = Some(class.to_owned());
                for _ in 0..64 {
                    let d = sources.first()?.class(c.as_deref()?)?;
                    if let Some(m) = d.members.iter().find(|m| m.name == member) {
                        return (m.ty == MemberType::Struct || m.subtype == MemberType::Struct).then(|| m.class.clone()).flatten();
                    }
                    c = d.parent.clone();
                }
                None
            }
        }
    }

    /// What the target says of member `member` of the first record of `ancestry` that has it: the
    /// names of its enumeration's items (when it is an enum or flags member whose items are
    /// known), and whether it is a half (16 bits: a float's high half).
    fn member_facts(&self, ancestry: &[String], member: &str) -> (Option<Vec<String>>, bool) {
        match self {
            Types::Tag { table, by_name, enums, .. } => {
                for class in ancestry {
                    let Some(&i) = by_name.get(class) else { continue };
                    let Some(def) = table.get(i) else { continue };
                    let Some(f) = table.fields_of(def).iter().find(|f| &*f.name == member) else { continue };
                    let e = enums.member(class, member).map(str::to_owned).or_else(|| {
                        let t = table.get(f.ty)?;
                        if t.name != "hkEnum" && t.name != "hkFlags" {
                            return None;
                        }
                        table.params_of(t).iter().find_map(|p| match (p.name.as_str(), &p.arg) {
                            ("tENUM" | "tBITS", hktypes::reflect::TemplateArg::Type(e)) => Some(table.full_name(*e)),
                            _ => None,
                        })
                    });
                    let items = e.and_then(|e| enums.items(&e)).map(|items| items.iter().map(|(n, _)| (*n).to_owned()).collect());
                    let mut layouts = hktypes::reflect::layout::Layouts::new(table);
                    let half = matches!(kind_of(table, f.ty), Some(Kind::Float)) && layouts.size_of(f.ty).ok() == Some(2);
                    return (items, half);
                }
                (None, false)
            }
            Types::Pack { sources, .. } => {
                let Some(src) = sources.first() else { return (None, false) };
                for class in ancestry {
                    let mut c = Some(class.clone());
                    for _ in 0..64 {
                        let Some(d) = c.as_deref().and_then(|c| src.class(c)) else { break };
                        if let Some(m) = d.members.iter().find(|m| m.name == member) {
                            let items = m.enumeration.as_deref().and_then(|e| src.enumeration(e)).map(|items| items.iter().map(|(_, n)| n.clone()).collect());
                            return (items, m.ty == MemberType::Half || m.subtype == MemberType::Half);
                        }
                        c = d.parent.clone();
                    }
                }
                (None, false)
            }
        }
    }

    /// Whether a record of `ancestry` (the first that the target has) has member `member`.
    fn has_member(&self, ancestry: &[String], member: &str) -> bool {
        match self {
            Types::Tag { table, by_name, .. } => ancestry.iter().filter_map(|c| by_name.get(c)).any(|&i| {
                table.ancestry(i).into_iter().any(|a| table.get(a).is_some_and(|d| table.fields_of(d).iter().any(|f| &*f.name == member)))
            }),
            Types::Pack { sources, .. } => {
                let Some(src) = sources.first() else { return false };
                ancestry.iter().any(|class| pack_member_is(*src, class, member, |_| true))
            }
        }
    }

    /// Whether member `member` of the first record of `ancestry` that has it is a C array (a
    /// fixed number of elements, whose zero value holds nothing).
    fn fixed_array(&self, ancestry: &[String], member: &str) -> bool {
        match self {
            Types::Tag { table, by_name, .. } => ancestry.iter().find_map(|class| {
                let def = table.get(*by_name.get(class)?)?;
                let f = table.fields_of(def).iter().find(|f| &*f.name == member)?;
                let mut c = f.ty;
                for _ in 0..16 {
                    let d = table.get(c)?;
                    if let Some(fmt) = d.format() {
                        return Some(fmt.is_fixed_array());
                    }
                    if d.parent == 0 {
                        return Some(false);
                    }
                    c = d.parent;
                }
                Some(false)
            }) == Some(true),
            Types::Pack { sources, .. } => {
                let Some(src) = sources.first() else { return false };
                ancestry.iter().any(|class| pack_member_is(*src, class, member, |m| m.c_array_size > 0))
            }
        }
    }

    /// The members of `class` with their zero values, in the target's order and shape: an object
    /// of all zero bytes written by the target's writer and read back.
    fn template(&self, class: &str) -> Result<Members, String> {
        match self {
            Types::Tag { sdk, table, by_name, .. } => {
                use hktypes::tagfile::items::{ItemData, Items};
                let ty = *by_name.get(class).ok_or_else(|| format!("{sdk} has no type {class}"))?;
                let mut layouts = hktypes::reflect::layout::Layouts::new(table);
                let size = layouts.size_of(ty).map_err(|e| format!("{class}: {e}"))?;
                let slots = layouts.slots(ty).map_err(|e| format!("{class}: {e}"))?;
                let items = Items {
                    items: vec![
                        ItemData::null(),
                        ItemData {
                            ty,
                            kind_byte: hktypes::tagfile::index::KIND_OBJECT << 4,
                            count: 1,
                            elem_size: size,
                            bytes: vec![0u8; size as usize].into(),
                            slots,
                        },
                    ],
                };
                let xml = hktypes::tagfile::xml::XmlTagfile {
                    sdkv: sdkv_of(sdk).unwrap_or_default().into_bytes(),
                    types: (**table).clone(),
                    items,
                    compendium: None,
                    trailing: Vec::new(),
                    phive: None,
                };
                let bytes = xml.write_file(&hktypes::tagfile::CompendiumSet::new()).map_err(|e| format!("{class}: {e}"))?;
                let doc = hktypes::open(&bytes, &OpenOptions::default()).map_err(|e| format!("{class}: {e}"))?;
                let h = doc.root().ok_or_else(|| format!("{class}: no object"))?;
                doc.members(h).map_err(|e| format!("{class}: {e}"))
            }
            Types::Pack { version, file_version, rules, sources } => {
                let text = format!(
                    "<?xml version=\"1.0\" encoding=\"ascii\"?>\n<hkpackfile classversion=\"{file_version}\" contentsversion=\"{version}\" toplevelobject=\"#0001\">\n<hksection name=\"__data__\">\n<hkobject name=\"#0001\" class=\"{}\"></hkobject>\n</hksection>\n</hkpackfile>\n",
                    xml_escape(class)
                );
                let options = hktypes::packfile::xml::ReadOptions { layout: *rules, ..Default::default() };
                let own: Vec<&dyn ClassSource> = sources.to_vec();
                let p = hktypes::packfile::xml::read(text.as_bytes(), &own, options).map_err(|e| format!("{class}: {e}"))?;
                Document::Packfile(p).members(Handle(0)).map_err(|e| format!("{class}: {e}"))
            }
        }
    }
}

/// The kind of type `t`'s format, from it or the nearest parent that has one.
/// Whether member `member` of packfile class `class` (found in it or the nearest ancestor that
/// declares it, at most 64 levels up) is as `test` says; false when no class declares it.
fn pack_member_is(src: &dyn ClassSource, class: &str, member: &str, test: impl Fn(&Member) -> bool) -> bool {
    let mut c = Some(class.to_owned());
    for _ in 0..64 {
        let Some(d) = c.as_deref().and_then(|c| src.class(c)) else { return false };
        if let Some(m) = d.members.iter().find(|m| m.name == member) {
            return test(m);
        }
        c = d.parent.clone();
    }
    false
}

fn kind_of(table: &TypeTable, t: TypeIndex) -> Option<Kind> {
    let mut c = t;
    for _ in 0..16 {
        let d = table.get(c)?;
        if let Some(f) = d.format() {
            return Some(f.kind());
        }
        if d.parent == 0 {
            return None;
        }
        c = d.parent;
    }
    None
}

fn first_type_param(table: &TypeTable, t: TypeIndex) -> Option<TypeIndex> {
    let def = table.get(t)?;
    table.params_of(def).iter().find_map(|p| match p.arg {
        hktypes::reflect::TemplateArg::Type(i) => Some(i),
        _ => None,
    })
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// `x` as an `hkHalf16` holds it: its high 16 bits, the low ones cut off (what Havok's files
/// show, see [`Cx::value`]).
pub fn half_of(x: f32) -> f32 {
    f32::from_bits(x.to_bits() & 0xFFFF_0000)
}

/// A value that holds nothing: null, false, zero, empty, or made only of such values.
pub fn is_zero(v: &Val) -> bool {
    match v {
        Val::Null => true,
        Val::Bool(b) => !b,
        Val::Int(i) => *i == 0,
        Val::UInt(u) => *u == 0,
        Val::Real(x) => x.to_bits() == 0,
        Val::Bits(b) => *b == 0,
        Val::Str(s) => s.is_empty(),
        Val::List(l) | Val::Array(l, _) => l.iter().all(is_zero),
        Val::Record(m) => m.0.iter().all(|(_, x)| is_zero(x)),
        Val::Ref(..) | Val::Section(..) => false,
        Val::Bytes(b) => b.iter().all(|&x| x == 0),
    }
}

/// A value whose dropping loses nothing: [`is_zero`], but a variable array with elements holds
/// its count (`hkbCharacterStringData.animationBundleNameData` of one record of empty members is
/// not the empty array); a C array of zeros holds nothing (the caller asks the source's class).
fn holds_nothing(v: &Val) -> bool {
    match v {
        Val::List(l) | Val::Array(l, _) => l.is_empty(),
        Val::Record(m) => m.0.iter().all(|(_, x)| holds_nothing(x)),
        v => is_zero(v),
    }
}

/// The shape of a value, for telling whether a source value fits the target's member: a pointer,
/// a number, a string, elements, members or bytes.
fn shape(v: &Val) -> u8 {
    match v {
        Val::Null | Val::Ref(..) | Val::Section(..) => 0,
        Val::Bool(_) | Val::Int(_) | Val::UInt(_) | Val::Real(_) | Val::Bits(_) => 1,
        Val::Str(_) => 2,
        Val::List(_) | Val::Array(..) => 3,
        Val::Record(_) => 4,
        Val::Bytes(_) => 5,
    }
}

fn is_list(v: &Val) -> bool {
    matches!(v, Val::List(_) | Val::Array(..))
}

fn is_scalar(v: &Val) -> bool {
    matches!(v, Val::Bool(_) | Val::Int(_) | Val::UInt(_) | Val::Real(_) | Val::Bits(_))
}

fn short(v: &Val) -> String {
    let s = serde_json::to_string(v).unwrap_or_default();
    if s.chars().count() > 60 {
        format!("{}...", s.chars().take(60).collect::<String>())
    } else {
        s
    }
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}

/// The `owner[k].` part of a path in a record replaced by a record rule (none for an object's).
fn prefix_of<'p>(r: &rules::Replacement, sub: &'p str) -> &'p str {
    if !r.records {
        return "";
    }
    match sub.find("].") {
        Some(i) => &sub[..i + 2],
        None => "",
    }
}

/// An object of the target: a source object (`h` its handle), or one made of a record of a
/// replaced object's array (`element`: the owner's handle, the record's path, its members; `h`
/// a handle above the source's).
struct Keep<'r> {
    h: u32,
    /// The source class (the owner's, for a record).
    class: String,
    /// The target class.
    target: String,
    rule: Option<(&'r rules::Replacement, rules::Way)>,
    element: Option<(u32, String, Members)>,
    /// For an object made besides a replaced one ([`rules::Also`]): the replaced one's handle.
    also_owner: Option<u32>,
}

struct Cx<'a> {
    o: &'a Options<'a>,
    types: &'a Types,
    /// The source SDK's classes, where the registry has them: the ancestry rules match a
    /// member the target lacks by.
    source_types: Option<Types>,
    /// The source's objects by handle: what computed-member rules read.
    objects: &'a HashMap<u32, &'a DumpObject>,
    templates: HashMap<String, Result<Members, String>>,
    handles: HashMap<u32, u32>,
    report: Report,
    handle: u32,
    class: String,
    /// The current object's enum members given by item name, as the numbers they are stored
    /// as, by member path: what a target that names no items for the member takes.
    numbers: HashMap<String, Val>,
    /// The source's and the target's pointer sizes.
    pointers: (u8, u8),
    /// The handles of the objects made of the records of a source object's array (by the
    /// object's handle and the array's name).
    made: HashMap<(u32, String), Vec<u32>>,
    /// Whether the current object is replaced by another class (`class` is the source's).
    replacing: bool,
    /// The objects made besides a replaced one ([`rules::Also`]), by handle.
    also_made: HashMap<u32, &'a rules::Also>,
    /// The object a class-naming record names instead of a replaced source object, and its class.
    also_of: HashMap<u32, (u32, String)>,
    /// The target SDK, where its preference for the other side of a replacement applies to the file.
    prefer: Option<String>,
    /// Objects an [`rules::Also`] back gives to a replaced object (by handle: the replaced
    /// object's handle).
    also_back: HashMap<u32, u32>,
}

/// A value through an [`rules::IndexedConversion`] (each its own inverse).
fn indexed_convert(c: Option<rules::IndexedConversion>, v: &Val) -> Val {
    match (c, v) {
        (None, _) => v.clone(),
        (Some(rules::IndexedConversion::Reciprocal), Val::Real(x)) => Val::Real(if *x == 0.0 { 0.0 } else { (1.0 / f64::from(*x)) as f32 }),
        (Some(_), _) => v.clone(),
    }
}

/// The enum members `named` gives by item name and `raw` (the same object read without item
/// names) as numbers, by member path.
fn enum_numbers(named: &Val, raw: &Val, path: &str, out: &mut HashMap<String, Val>) {
    match (named, raw) {
        (Val::Str(_), Val::UInt(_) | Val::Int(_)) => {
            out.insert(path.to_owned(), raw.clone());
        }
        (Val::Record(p), Val::Record(q)) => {
            for (n, v) in &p.0 {
                if let Some(w) = q.get(n) {
                    enum_numbers(v, w, &join(path, n), out);
                }
            }
        }
        (Val::List(p) | Val::Array(p, _), Val::List(q) | Val::Array(q, _)) => {
            for (k, (v, w)) in p.iter().zip(q).enumerate() {
                enum_numbers(v, w, &format!("{path}[{k}]"), out);
            }
        }
        _ => {}
    }
}

impl Cx<'_> {
    fn note(&mut self, kind: u8, member: &str, what: String) {
        let n = Note { handle: self.handle, class: self.class.clone(), member: member.to_owned(), what };
        match kind {
            0 => self.report.lost.push(n),
            1 => self.report.defaulted.push(n),
            3 => self.report.computed.push(n),
            _ => self.report.migrated.push(n),
        }
    }

    /// Applies the [`rules::IndexedRecords`] rules of object class `class` to its members `src`:
    /// a table's records moved into the elements indexing them, or the elements' members into
    /// a new table, as the source and the target keep them.
    fn indexed(&mut self, class: &str, src: &mut Members) {
        let mut ancestry = self.types.ancestry(class);
        if let Some(st) = &self.source_types {
            ancestry.extend(st.ancestry(class).into_iter().filter(|a| a != class));
        }
        for rule in self.o.migrations.indexed_records(&ancestry) {
            let (Some(ei), target_has_table) = (src.0.iter().position(|(n, _)| *n == rule.elements), self.types.has_member(&ancestry, &rule.table)) else {
                continue;
            };
            let table_at = src.0.iter().position(|(n, _)| *n == rule.table);
            let element_type = self.types.nested(class, &rule.elements);
            let element_ancestry = element_type.as_deref().map(|t| self.types.ancestry(t)).unwrap_or_default();
            match table_at {
                // Inline in the target: each element takes its record's members.
                Some(ti) if !target_has_table => {
                    let table = match &src.0[ti].1 {
                        Val::List(v) | Val::Array(v, _) => v.clone(),
                        _ => continue,
                    };
                    let mut used = vec![false; table.len()];
                    let record_ancestry = self.source_types.as_ref().and_then(|st| st.nested(class, &rule.table).map(|t| st.ancestry(&t))).unwrap_or_default();
                    let computed_rules = self.o.migrations.computed(&record_ancestry);
                    let mut computed: std::collections::HashSet<(usize, String)> = std::collections::HashSet::new();
                    let objects = self.objects;
                    let object = |h: u32| -> Option<&Members> { objects.get(&h).and_then(|o| o.members.as_ref()) };
                    if let Val::List(elements) | Val::Array(elements, _) = &mut src.0[ei].1 {
                        for (k, e) in elements.iter_mut().enumerate() {
                            let Val::Record(e) = e else { continue };
                            let Some(slot) = e.0.iter().position(|(n, _)| *n == rule.index) else { continue };
                            let i = match e.0[slot].1 {
                                Val::UInt(i) if (i as usize) < table.len() => i as usize,
                                _ => continue,
                            };
                            let Val::Record(rec) = &table[i] else { continue };
                            used[i] = true;
                            let path = format!("{}[{k}]", rule.elements);
                            for c in &computed_rules {
                                // A member the rule carries into the element is no loss to compute away.
                                let Some(stored) = rec.get(&c.member) else { continue };
                                if rule.members.iter().any(|m| m.record == c.member) {
                                    continue;
                                }
                                let member = format!("{}[{i}].{}", rule.table, c.member);
                                let got = c.evaluate(e, &object);
                                match got.as_ref().and_then(|g| rules::Computed::ulps(stored, g)) {
                                    Some(d) if d <= c.tolerance_ulps => {
                                        computed.insert((i, c.member.clone()));
                                        self.note(3, &member, format!("{} dropped: {path}.{} gives it within {d} ulp ({})", short(stored), c.from, c.evidence));
                                    }
                                    Some(d) => {
                                        // Named here, with the distance, instead of below.
                                        computed.insert((i, c.member.clone()));
                                        self.note(0, &member, format!("{}: {path}.{} gives {}, {d} ulp away (more than {})", short(stored), c.from, short(got.as_ref().unwrap_or(&Val::Null)), c.tolerance_ulps));
                                    }
                                    None => {}
                                }
                            }
                            for m in &rule.members {
                                let Some(v) = rec.get(&m.record) else { continue };
                                if e.get(&m.element).is_some() || !self.types.has_member(&element_ancestry, &m.element) {
                                    continue;
                                }
                                let w = indexed_convert(m.conversion, v);
                                if m.conversion.is_some() && indexed_convert(m.conversion, &w) != *v {
                                    self.note(0, &format!("{}[{i}].{}", rule.table, m.record), format!("{} as {} = {}, which gives back {}", short(v), m.element, short(&w), short(&indexed_convert(m.conversion, &w))));
                                }
                                e.0.push((m.element.clone(), w));
                            }
                            for (n, v) in &rule.inline_values {
                                if e.get(n).is_none() && self.types.has_member(&element_ancestry, n) {
                                    e.0.push((n.clone(), v.clone()));
                                }
                            }
                            self.note(2, &format!("{path}.{}", rule.index), format!("{} -> {}: {}[{i}]'s members in the element ({})", i, short(&rule.unindexed), rule.table, rule.evidence));
                            e.0[slot].1 = rule.unindexed.clone();
                        }
                    }
                    // What the elements cannot hold: a loss, but for the value Havok writes
                    // where the target's record is new (the way back gives it again) and what
                    // a computed-member rule gives back.
                    let from = self.report.from.clone();
                    for (i, rec) in table.iter().enumerate() {
                        let Val::Record(rec) = rec else { continue };
                        for (n, v) in &rec.0 {
                            let mapped = used[i] && (rule.members.iter().any(|m| m.record == *n) || computed.contains(&(i, n.clone())));
                            if !mapped && used[i] && self.o.migrations.default_for(&record_ancestry, n, &from).is_some_and(|d| d.value == *v) {
                                self.note(2, &format!("{}[{i}].{n}", rule.table), format!("{} dropped: what Havok writes in {from} where a body's motion is new", short(v)));
                            } else if !mapped {
                                let why = if used[i] { format!("no member of {}'s elements holds it in {}", rule.elements, self.o.sdk) } else { format!("no element of {} indexes the record", rule.elements) };
                                self.note(0, &format!("{}[{i}].{n}", rule.table), format!("{}: {why}", short(v)));
                            }
                        }
                    }
                    src.0.remove(ti);
                }
                // A table in the target: built from the elements that keep their members.
                None if target_has_table => {
                    let mut table = Vec::new();
                    let record_type = self.types.nested(class, &rule.table);
                    let record_ancestry = record_type.as_deref().map(|t| self.types.ancestry(t)).unwrap_or_default();
                    let computed_rules = self.o.migrations.computed(&record_ancestry);
                    let objects = self.objects;
                    let object = |h: u32| -> Option<&Members> { objects.get(&h).and_then(|o| o.members.as_ref()) };
                    if let Val::List(elements) | Val::Array(elements, _) = &mut src.0[ei].1 {
                        for (k, e) in elements.iter_mut().enumerate() {
                            let Val::Record(e) = e else { continue };
                            let Some(slot) = e.0.iter().position(|(n, _)| *n == rule.index) else { continue };
                            if e.0[slot].1 != rule.unindexed || !rule.members.iter().any(|m| e.get(&m.element).is_some()) {
                                continue;
                            }
                            let mut rec = Vec::new();
                            for m in &rule.members {
                                if self.types.has_member(&element_ancestry, &m.element) {
                                    continue;
                                }
                                let Some(at) = e.0.iter().position(|(n, _)| *n == m.element) else { continue };
                                let v = e.0.remove(at).1;
                                let w = indexed_convert(m.conversion, &v);
                                if m.conversion.is_some() && indexed_convert(m.conversion, &w) != v {
                                    self.note(0, &format!("{}[{k}].{}", rule.elements, m.element), format!("{} as {} = {}, which gives back {}", short(&v), m.record, short(&w), short(&indexed_convert(m.conversion, &w))));
                                }
                                rec.push((m.record.clone(), w));
                            }
                            for c in &computed_rules {
                                if !self.types.has_member(&record_ancestry, &c.member) || rec.iter().any(|(n, _)| *n == c.member) {
                                    continue;
                                }
                                if let Some(v) = c.evaluate(e, &object) {
                                    self.note(3, &format!("{}[{k}].{}", rule.elements, c.from), format!("{} as {}'s {} ({})", short(&v), rule.table, c.member, c.evidence));
                                    rec.push((c.member.clone(), v));
                                }
                            }
                            for (n, v) in &rule.inline_values {
                                if self.types.has_member(&element_ancestry, n) {
                                    continue;
                                }
                                if let Some(at) = e.0.iter().position(|(m, _)| m == n) {
                                    if e.0[at].1 == *v {
                                        e.0.remove(at);
                                    }
                                }
                            }
                            let slot = e.0.iter().position(|(n, _)| *n == rule.index).unwrap_or(slot);
                            table.push((k, slot, Members(rec)));
                        }
                        // The records' order: by `order_by` where its values are 0..n once each.
                        let n = table.len();
                        let at: Vec<Option<usize>> = table
                            .iter()
                            .map(|(_, _, r)| match (&rule.order_by, rule.order_by.as_ref().and_then(|o| r.get(o))) {
                                (Some(_), Some(Val::UInt(i))) if (*i as usize) < n => Some(*i as usize),
                                _ => None,
                            })
                            .collect();
                        let mut seen = vec![false; n];
                        let ordered = at.iter().all(|i| i.is_some_and(|i| !std::mem::replace(&mut seen[i], true)));
                        for (j, (k, slot, _)) in table.iter().enumerate() {
                            let i = if ordered { at[j].unwrap_or(j) } else { j };
                            if let Val::Record(e) = &mut elements[*k] {
                                e.0[*slot].1 = Val::UInt(i as u64);
                            }
                            self.note(2, &format!("{}[{k}].{}", rule.elements, rule.index), format!("{} -> {i}: the element's members in {}[{i}] ({})", short(&rule.unindexed), rule.table, rule.evidence));
                        }
                        if ordered {
                            let mut records: Vec<(usize, Members)> = table.drain(..).zip(&at).map(|((_, _, r), i)| (i.unwrap_or(0), r)).collect();
                            records.sort_by_key(|(i, _)| *i);
                            table = records.into_iter().map(|(i, r)| (i, 0, r)).collect();
                        }
                    }
                    let table: Vec<Val> = table.into_iter().map(|(_, _, r)| Val::Record(r)).collect();
                    if !table.is_empty() {
                        src.0.push((rule.table.clone(), Val::List(table)));
                    }
                }
                _ => {}
            }
        }
    }

    /// Source members `src` of an object the target replaces by rule `r` (`way`), as the
    /// replacing class's members (`tmpl`, its template): the carried members moved to their
    /// paths, every other source member reported (dropped as derived, default, run-time or
    /// zero; else lost).
    fn replace(&mut self, r: &rules::Replacement, way: rules::Way, src: &Members, tmpl: &Members, prefix: &str, owner: u32) -> Members {
        let (from, to, pairs) = r.oriented(way);
        if r.records {
            self.note(2, prefix, format!("a {from} record as an {to} object of its own ({})", r.evidence));
        } else {
            self.note(2, prefix, format!("replaced by {to}: {} has no {from} ({})", self.o.sdk, r.evidence));
        }
        let made = &self.made;
        let objects = self.objects;
        let owner_member = |name: &str| objects.get(&owner).and_then(|o| o.members.as_ref()).and_then(|m| m.get(name)).cloned();
        let (mut out, mut carried) = r.remap(way, src, &|array| made.get(&(owner, array.to_owned())).cloned(), &owner_member);
        if way == rules::Way::Back {
            self.records_back(r, src, &mut out, &mut carried);
            self.also_back(r, owner, &mut out);
        }
        for (m, (t, f)) in r.members.iter().zip(pairs) {
            if let Some((table, index)) = m.op.as_ref().and_then(rules::MemberOp::table) {
                if carried.iter().any(|c| *c == format!("{table}[].{f}")) {
                    self.note(2, &join(prefix, index), format!("{table}[{index}].{f} as {to}.{t}"));
                }
                continue;
            }
            if carried.iter().any(|c| c == f) {
                let how = match (&m.each, &m.op) {
                    (Some(each), _) => format!(": each element an {each} object"),
                    (None, Some(op)) => format!(" ({op:?})"),
                    (None, None) => String::new(),
                };
                self.note(2, &join(prefix, f), format!("as {to}.{t}{how}"));
            }
        }
        let ancestry = match &self.source_types {
            Some(st) => st.ancestry(from),
            None => vec![from.to_owned()],
        };
        let mut carried: Vec<String> = carried.iter().map(|c| join(prefix, c)).collect();
        // The records of a table the elements of an `each` array share (`Shared`): each member
        // an element's record rule carries, record by record (the rest reported below, by name).
        if way == rules::Way::Forward {
            carried.extend(self.shared_carried(r, src));
        }
        // What the objects made besides this one carry.
        if way == rules::Way::Forward {
            for a in r.also.iter().filter(|a| self.types.has(&a.class)) {
                carried.extend(a.members.iter().filter(|m| rules::path_get(src, &m.from).is_some()).map(|m| join(prefix, &m.from)));
            }
        }
        self.leftover(r, to, &ancestry, src, &carried, prefix);
        // The target's members that only the run time or the constructor derives: left zero.
        for (name, why) in &r.derived {
            if tmpl.get(name).is_some() && out.get(name).is_none() && self.o.migrations.default_for(&self.types.ancestry(to), name, &self.o.sdk).is_none() {
                self.note(1, &join(prefix, name), format!("{to}.{name} left zero: {why}; the converter does not compute it"));
            }
        }
        out
    }

    /// The members of the records of each table that the record rules of `r`'s `each` members
    /// index with a [`rules::MemberOp::Shared`] op, as `table[i].member`, that those rules carry
    /// for some element of source members `src` indexing record `i`.
    fn shared_carried(&self, r: &rules::Replacement, src: &Members) -> Vec<String> {
        let mut out = Vec::new();
        for m in r.members.iter().filter(|m| m.each.is_some()) {
            let Some(er) = m.each.as_deref().and_then(|each| self.o.migrations.record_replacement(each)) else { continue };
            let Some(Val::List(elements) | Val::Array(elements, _)) = rules::path_get(src, &m.from) else { continue };
            for em in &er.members {
                let Some(rules::MemberOp::Shared(table, index)) = &em.op else { continue };
                let Some(Val::List(records) | Val::Array(records, _)) = src.get(table) else { continue };
                for e in elements {
                    let Val::Record(e) = e else { continue };
                    let i = er.record_index(table, index, e, &|name| src.get(name).cloned());
                    let Some((i, Val::Record(rec))) = i.and_then(|i| Some((i, records.get(i)?))) else { continue };
                    if er.carried_from_record(table, rec).contains(&em.from) {
                        let c = format!("{table}[{i}].{}", em.from);
                        if !out.contains(&c) {
                            out.push(c);
                        }
                    }
                }
            }
        }
        out
    }

    /// The way back of `each` (an array of pointers to objects made of records): each object
    /// pointed to by `src`'s array as a record of the target's array, through its record rule
    /// the other way ([`rules::Way::Back`]); what the rule does not carry of each object is
    /// reported, by name.
    fn records_back(&mut self, r: &rules::Replacement, src: &Members, out: &mut Members, carried: &mut Vec<String>) {
        let handles_of = |v: Option<&Val>| -> Vec<u32> {
            match v {
                Some(Val::List(l) | Val::Array(l, _)) => l.iter().filter_map(|x| if let Val::Ref(h, _) = x { Some(*h) } else { None }).collect(),
                _ => Vec::new(),
            }
        };
        // The target's arrays (`from` names) and the source objects that become their records.
        let arrays: Vec<(String, Vec<u32>)> = r.members.iter().filter(|m| m.each.is_some()).map(|m| (m.from.clone(), handles_of(rules::path_get(src, &m.to)))).collect();
        for m in r.members.iter().filter(|m| m.each.is_some()) {
            let Some(each) = &m.each else { continue };
            let Some(er) = self.o.migrations.record_replacement(each) else { continue };
            let Some((_, hs)) = arrays.iter().find(|(a, _)| *a == m.from) else { continue };
            let objects = self.objects;
            let mut records = Vec::with_capacity(hs.len());
            // The target's member and element types, for the tables the elements index.
            let owner_ancestry = self.types.ancestry(&r.from);
            let element_ancestry = self.types.nested(&r.from, &m.from).map(|t| self.types.ancestry(&t)).unwrap_or_default();
            // Tables built of the objects' members (`Indexed`, `Shared` back): name, records.
            let mut tables: Vec<(String, Vec<Members>)> = Vec::new();
            for (k, h) in hs.iter().enumerate() {
                let Some(body) = objects.get(h).and_then(|o| o.members.as_ref()) else { continue };
                let (mut rec, got) = er.remap(rules::Way::Back, body, &|array| arrays.iter().find(|(a, _)| a == array).map(|(_, hs)| hs.clone()), &|_| None);
                let at = format!("{}[{k}]", m.to);
                self.note(2, &at, format!("the {each} object #{h} as a {} record of {}.{} ({})", er.from, r.from, m.from, er.evidence));
                let mut got: Vec<String> = got.iter().map(|c| join(&at, c)).collect();
                // The members the target keeps in a table the element indexes: a record of
                // them (one per object, or, `Shared`, one per distinct set of values), where
                // the target has the table and the element its index. A vector is not carried
                // back: its fourth component is another member's (hkp's inverse mass in
                // inertiaAndMassInv.w), and stays a named loss.
                // `via`: where the element has no member `index`, the table of another op of the
                // rule whose records hold it (2014.1's motionCinfos[body.motionId].motionPropertiesId).
                let mut by_table: Vec<(String, String, bool, Members, Option<String>)> = Vec::new();
                for em in &er.members {
                    let Some((table, index)) = em.op.as_ref().and_then(rules::MemberOp::table) else { continue };
                    if !self.types.has_member(&owner_ancestry, table) {
                        continue;
                    }
                    let via = if self.types.has_member(&element_ancestry, index) {
                        None
                    } else {
                        let via = er.members.iter().filter_map(|o| o.op.as_ref().and_then(rules::MemberOp::table)).find(|(t, i)| {
                            *t != table
                                && self.types.has_member(&owner_ancestry, t)
                                && self.types.has_member(&element_ancestry, i)
                                && self.types.nested(&r.from, t).is_some_and(|rt| self.types.has_member(&self.types.ancestry(&rt), index))
                        });
                        match via {
                            Some((t, _)) => Some(t.to_owned()),
                            None => continue,
                        }
                    };
                    let Some(v) = rules::path_get_indexed(body, &em.to) else { continue };
                    // A vector whose fourth component is another member's (`to_w`: hkp's inverse
                    // mass in inertiaAndMassInv.w) with that component as the target's (`from_w`).
                    let v = match (em.back_w(body), v) {
                        (Some(w), Val::List(l) | Val::Array(l, _)) if l.iter().all(is_scalar) => {
                            let mut l = l.clone();
                            l[3] = w;
                            Val::List(l)
                        }
                        // A vector no other member takes an element of (2015.1's swept transform's
                        // centre of mass as 2014.1's motion's centerOfMassWorld).
                        (None, Val::List(l) | Val::Array(l, _)) if !l.is_empty() && l.iter().all(is_scalar) && !er.members.iter().any(|o| o.to.starts_with(&format!("{}[", em.to))) => Val::List(l.clone()),
                        (_, v) if is_scalar(v) => v.clone(),
                        _ => continue,
                    };
                    let v = &v;
                    let shared = matches!(em.op, Some(rules::MemberOp::Shared(..)));
                    let slot = match by_table.iter().position(|(t, ..)| t == table) {
                        Some(i) => i,
                        None => {
                            by_table.push((table.to_owned(), index.to_owned(), shared, Members(Vec::new()), via));
                            by_table.len() - 1
                        }
                    };
                    rules::path_set(&mut by_table[slot].3, &em.from, v.clone());
                    got.push(join(&at, &em.to));
                    // A member the element would hold inline where the target keeps it in the
                    // table (2016.2's `mass`, where 2014.1 has `motionCinfos`): not kept.
                    for other in er.members.iter().filter(|o| o.to == em.to && o.op.as_ref().and_then(rules::MemberOp::table).is_none()) {
                        if !self.types.has_member(&element_ancestry, &other.from) {
                            rec.0.retain(|(n, _)| *n != other.from);
                        }
                    }
                }
                // The tables whose index another table's record holds first, so that record
                // takes it.
                by_table.sort_by_key(|e| e.4.is_none());
                let mut held: Vec<(String, String, u64)> = Vec::new();
                for (table, index, shared, mut values, via) in by_table {
                    for (t, n, i) in held.iter().filter(|(t, ..)| *t == table) {
                        let _ = t;
                        rules::path_set(&mut values, n, Val::UInt(*i));
                    }
                    let t = match tables.iter().position(|(n, _)| *n == table) {
                        Some(i) => i,
                        None => {
                            tables.push((table.clone(), Vec::new()));
                            tables.len() - 1
                        }
                    };
                    let list = &mut tables[t].1;
                    let i = match list.iter().position(|x| shared && *x == values) {
                        Some(i) => i,
                        None => {
                            list.push(values);
                            list.len() - 1
                        }
                    };
                    let names = list[i].0.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", ");
                    let each = if shared { ", one record per distinct set of values" } else { "" };
                    match via {
                        Some(v) => {
                            self.note(2, &join(&at, &index), format!("{i}: the object's {names} in {}.{table}[{i}]{each}, indexed by its {v} record's {index}", r.from));
                            held.push((v, index, i as u64));
                        }
                        None => {
                            self.note(2, &join(&at, &index), format!("{i}: the object's {names} in {}.{table}[{i}]{each}", r.from));
                            rules::path_set(&mut rec, &index, Val::UInt(i as u64));
                        }
                    }
                }
                // A swept transform whose centre of mass went to a table (2014.1's motion) holds
                // nothing else where its local centre of mass is what that gives.
                if let Some(sw) = er.members.iter().find(|x| matches!(x.op, Some(rules::MemberOp::SweptTransform(_)))) {
                    let whole = join(&at, &sw.to);
                    if !got.contains(&whole) && got.contains(&format!("{whole}[0]")) && er.swept_derivable(body, true) {
                        got.push(whole);
                    }
                }
                // A list whose every element was carried (`entities[0]`, `entities[1]`) is carried.
                for (name, v) in &body.0 {
                    if let Val::List(l) | Val::Array(l, _) = v {
                        let whole = join(&at, name);
                        if !l.is_empty() && (0..l.len()).all(|k| got.contains(&format!("{whole}[{k}]"))) {
                            got.push(whole);
                        }
                    }
                }
                let ancestry = match &self.source_types {
                    Some(st) => st.ancestry(each),
                    None => vec![each.clone()],
                };
                self.leftover(er, &er.from, &ancestry, body, &got, &at);
                records.push(Val::Record(rec));
            }
            rules::path_set(out, &m.from, Val::List(records));
            carried.push(m.to.clone());
            for (table, list) in tables {
                rules::path_set(out, &table, Val::List(list.into_iter().map(Val::Record).collect()));
            }
        }
    }

    /// The way back of [`rules::Also`]: the members of each object given to replaced object
    /// `owner` (`also_back`) that the also rule carries but its `each` arrays (the replaced
    /// object's own), into `out`; the rest of the object reported, by name.
    fn also_back(&mut self, r: &rules::Replacement, owner: u32, out: &mut Members) {
        let mut given: Vec<u32> = self.also_back.iter().filter(|(_, o)| **o == owner).map(|(x, _)| *x).collect();
        given.sort_unstable();
        let (handle, class) = (self.handle, self.class.clone());
        for x in given {
            let objects = self.objects;
            let Some(ob) = objects.get(&x) else { continue };
            let Some(xm) = ob.members.as_ref() else { continue };
            let Some(a) = r.also.iter().find(|a| a.class == ob.class) else { continue };
            self.handle = x;
            self.class = ob.class.clone();
            let mut carried = Vec::new();
            for m in &a.members {
                if m.each.is_some() {
                    // Carried where it lists the replaced object's own array's objects (in any
                    // order: an index into it is re-pointed, `indexes`).
                    let sorted = |v: Option<&Val>| -> Option<Vec<u32>> {
                        let (Val::List(l) | Val::Array(l, _)) = v? else { return None };
                        let mut hs: Vec<u32> = l.iter().filter_map(|x| if let Val::Ref(h, _) = x { Some(*h) } else { None }).collect();
                        hs.sort_unstable();
                        Some(hs)
                    };
                    let own = r.members.iter().find(|y| y.from == m.from && y.each.is_some()).and_then(|y| sorted(self.objects.get(&owner)?.members.as_ref().and_then(|om| rules::path_get(om, &y.to))));
                    if own.is_some() && own == sorted(rules::path_get(xm, &m.to)) {
                        carried.push(m.to.clone());
                    }
                    continue;
                }
                carried.push(m.to.clone());
                if let Some(v) = rules::path_get(xm, &m.to) {
                    let mut v = v.clone();
                    // Indices into the object's array as indices into the replaced object's.
                    if let Some(array) = &m.indexes {
                        let handles = |v: Option<&Val>| -> Vec<u32> {
                            match v {
                                Some(Val::List(l) | Val::Array(l, _)) => l.iter().filter_map(|x| if let Val::Ref(h, _) = x { Some(*h) } else { None }).collect(),
                                _ => Vec::new(),
                            }
                        };
                        let mine = handles(rules::path_get(xm, array));
                        let owner_array = a.members.iter().find(|y| y.to == *array).and_then(|y| r.members.iter().find(|z| z.from == y.from && z.each.is_some()));
                        let theirs = handles(owner_array.and_then(|z| self.objects.get(&owner)?.members.as_ref().and_then(|om| rules::path_get(om, &z.to))));
                        if let Val::List(l) | Val::Array(l, _) = &mut v {
                            for e in l.iter_mut() {
                                let i = match e {
                                    Val::Int(i) if *i >= 0 => *i as usize,
                                    Val::UInt(i) => *i as usize,
                                    _ => continue,
                                };
                                match mine.get(i).and_then(|h| theirs.iter().position(|t| t == h)) {
                                    Some(j) => *e = if matches!(e, Val::Int(_)) { Val::Int(j as i64) } else { Val::UInt(j as u64) },
                                    None => self.note(0, &m.to, format!("index {i} into {array}, which names no object of {}'s", r.from)),
                                }
                            }
                        }
                    }
                    rules::path_set(out, &m.from, v);
                    self.note(2, &m.to, format!("as {}.{} of the object #{owner} it was made besides ({} in {})", r.from, m.from, r.from, self.o.sdk));
                }
            }
            let ancestry = match &self.source_types {
                Some(st) => st.ancestry(&a.class),
                None => vec![a.class.clone()],
            };
            let tmp = a.as_replacement(r);
            self.leftover(&tmp, &r.from, &ancestry, xm, &carried, "");
        }
        self.handle = handle;
        self.class = class;
    }

    /// The members of an object made besides a replaced one ([`rules::Also`]) of its source
    /// members `src`.
    fn also(&mut self, r: &rules::Replacement, a: &rules::Also, src: &Members, owner: u32) -> Members {
        let tmp = a.as_replacement(r);
        let made = &self.made;
        let objects = self.objects;
        let owner_member = |name: &str| objects.get(&owner).and_then(|o| o.members.as_ref()).and_then(|m| m.get(name)).cloned();
        let (out, carried) = tmp.remap(rules::Way::Forward, src, &|array| made.get(&(owner, array.to_owned())).cloned(), &owner_member);
        self.note(2, "", format!("also an {} of {}", a.class, carried.join(", ")));
        for (m, f) in a.members.iter().map(|m| (m, &m.from)) {
            if carried.iter().any(|c| c == f) {
                self.note(2, f, format!("as {}.{}", a.class, m.to));
            }
        }
        out
    }

    /// Reports each member of `m` (at `path` in a replaced object) that the replacement does not
    /// carry: dropped where it holds nothing the target needs, lost otherwise.
    fn leftover(&mut self, r: &rules::Replacement, to: &str, ancestry: &[String], m: &Members, carried: &[String], path: &str) {
        for (name, v) in &m.0 {
            let sub = join(path, name);
            if carried.contains(&sub) {
                continue;
            }
            if let Val::Record(inner) = v {
                // The record's own type, where the source's types say (its members' stock
                // values are rules of that type, not of the object's class).
                let nested = match (&self.source_types, ancestry.first()) {
                    (Some(st), Some(c)) => st.nested(c, name).map(|t| st.ancestry(&t)),
                    _ => None,
                };
                let prefix = format!("{sub}.");
                let from = self.report.from.clone();
                let stock = nested.as_ref().is_some_and(|n| self.o.migrations.has_defaults(n, &from));
                // A record of zeros too, member by member (its fixed arrays of zeros hold nothing).
                if stock || carried.iter().any(|c| c.starts_with(&prefix)) || (is_zero(v) && nested.is_some()) {
                    let inner_ancestry = nested.unwrap_or_else(|| ancestry.to_vec());
                    self.leftover(r, to, &inner_ancestry, inner, carried, &sub);
                    continue;
                }
            }
            let records = matches!(v, Val::List(items) | Val::Array(items, _) if !items.is_empty() && items.iter().all(|e| matches!(e, Val::Record(_))));
            if let (Val::List(items) | Val::Array(items, _), true) = (v, records && carried.iter().any(|c| c.starts_with(&format!("{sub}[")))) {
                // A table some of whose records' members are carried: record by record.
                let nested = match (&self.source_types, ancestry.first()) {
                    (Some(st), Some(c)) => st.nested(c, name).map(|t| st.ancestry(&t)),
                    _ => None,
                };
                let inner_ancestry = nested.unwrap_or_else(|| ancestry.to_vec());
                for (k, e) in items.iter().enumerate() {
                    if let Val::Record(inner) = e {
                        self.leftover(r, to, &inner_ancestry, inner, carried, &format!("{sub}[{k}]"));
                    }
                }
                continue;
            }
            let from = self.report.from.clone();
            let rel = sub.strip_prefix(prefix_of(r, &sub)).unwrap_or(&sub);
            if let Some(why) = r.derived_reason(rel) {
                let why = why.to_owned();
                self.note(2, &sub, format!("{} dropped: {why}", short(v)));
            } else if self.o.migrations.default_for(ancestry, name, &from).is_some_and(|d| d.value == *v) {
                self.note(2, &sub, format!("{} dropped: what Havok writes for every {}", short(v), ancestry.first().map_or("", String::as_str)));
            } else if let Some(rt) = self.o.migrations.runtime(ancestry, name) {
                let reason = rt.reason.clone();
                self.note(2, &sub, format!("{} dropped: {reason}", short(v)));
            } else if holds_nothing(v) || (is_zero(v) && self.source_types.as_ref().is_some_and(|st| st.fixed_array(ancestry, name))) {
                self.note(2, &sub, format!("{} dropped: {to} has no counterpart, and zero", short(v)));
            } else {
                self.note(0, &sub, format!("{}: {to} ({}) has no counterpart", short(v), self.o.sdk));
            }
        }
    }

    fn template(&mut self, class: &str) -> Result<Members, String> {
        if !self.templates.contains_key(class) {
            let t = self.types.template(class);
            self.templates.insert(class.to_owned(), t);
        }
        self.templates[class].clone()
    }

    /// A record of target type `ty` (when known) from source members `src`, shaped as `tmpl`.
    fn record(&mut self, ty: Option<&str>, src: &Members, tmpl: &Members, path: &str) -> Members {
        let mut ancestry = ty.map(|t| self.types.ancestry(t)).unwrap_or_default();
        if let (Some(t), Some(st)) = (ty, &self.source_types) {
            ancestry.extend(st.ancestry(t).into_iter().filter(|a| a != t));
        }
        // The object's own class (a replaced object's is another class's: not its ancestor).
        if path.is_empty() && !self.replacing {
            ancestry.push(self.class.clone());
        }
        let regrouped = self.regroup(&ancestry, src, tmpl, path);
        let src = regrouped.as_ref().unwrap_or(src);
        let mut used = vec![false; src.0.len()];
        let mut out = Vec::with_capacity(tmpl.0.len());
        let mut redirect: Option<(String, Val)> = None;
        for (name, t) in &tmpl.0 {
            let sub = join(path, name);
            let mut found = src.0.iter().position(|(n, _)| n == name);
            let mut renamed = None;
            if found.is_none() {
                for r in self.o.migrations.other_names(&ancestry, name) {
                    let other = if r.before == *name { &r.after } else { &r.before };
                    if let Some(i) = src.0.iter().position(|(n, _)| n == other) {
                        found = Some(i);
                        renamed = Some((other.clone(), r.evidence.clone()));
                        break;
                    }
                }
            }
            match found {
                Some(i) if !used[i] => {
                    used[i] = true;
                    // The pointer a class-naming record's redirect gives (below).
                    if redirect.as_ref().is_some_and(|(p, _)| p == name) {
                        out.push((name.clone(), Val::Null));
                        continue;
                    }
                    if let Some((other, _)) = renamed {
                        self.note(2, &sub, format!("{other} -> {name} (renamed)"));
                    }
                    let nested = ty.and_then(|t| self.types.nested(t, name));
                    let v = src.0[i].1.clone();
                    // A class name whose class the target replaces: the replacement's.
                    if let (Val::Str(c), Some(rule)) = (&v, self.o.migrations.names_class(&ancestry, name)) {
                        let types = self.types;
                        let to = match self.o.migrations.replacement(c, &|x| types.has(x), self.prefer.as_deref()) {
                            Some((r, way)) => Some(r.oriented(way).1.to_owned()),
                            _ => None,
                        };
                        // The object made besides the replaced one, where the record names that.
                        let pointed = rule.pointer.as_ref().and_then(|p| match src.get(p) {
                            Some(Val::Ref(h, _)) => self.also_of.get(h).map(|(id, class)| (p.clone(), *id, class.clone())),
                            _ => None,
                        });
                        // A record naming an object given back to a replaced one (`also` back):
                        // it names the replaced one's target.
                        let given = rule.pointer.as_ref().and_then(|p| match src.get(p) {
                            Some(Val::Ref(h, _)) => self.also_back.get(h).map(|o| (p.clone(), *o)),
                            _ => None,
                        });
                        if let Some((p, o)) = given {
                            let target = self.objects.get(&o).map(|ob| ob.class.clone()).and_then(|oc| self.o.migrations.replacement(&oc, &|x| types.has(x), self.prefer.as_deref()).map(|(r, way)| r.oriented(way).1.to_owned()));
                            if let (Some(target), Some(n)) = (target, self.handles.get(&o).copied()) {
                                self.note(2, &sub, format!("{c} -> {target}, and {p} to the {target} it was given to"));
                                redirect = Some((p, Val::Ref(n, None)));
                                out.push((name.clone(), Val::Str(target)));
                                continue;
                            }
                        }
                        if let (Some(_), Some((p, id, class))) = (&to, pointed) {
                            self.note(2, &sub, format!("{c} -> {class}, and {p} to the {class} made of it"));
                            redirect = self.handles.get(&id).map(|n| (p, Val::Ref(*n, None)));
                            out.push((name.clone(), Val::Str(class)));
                            continue;
                        }
                        if let Some(to) = to {
                            self.note(2, &sub, format!("{c} -> {to} (the class that replaces it in {})", self.o.sdk));
                            out.push((name.clone(), Val::Str(to)));
                            continue;
                        }
                    }
                    let (from, to) = ((self.report.from.as_str(), self.pointers.0), (self.o.sdk.as_str(), self.pointers.1));
                    if let Some(b) = self.o.migrations.build_value(&ancestry, name, &v, from, to).cloned() {
                        if b != v {
                            self.note(2, &sub, format!("{} -> {} (what a {} build with {}-byte pointers stores)", short(&v), short(&b), to.0, to.1));
                        }
                        out.push((name.clone(), b));
                        continue;
                    }
                    let value = self.value(nested.as_deref(), &ancestry, name, &v, t, &sub);
                    out.push((name.clone(), value));
                }
                _ => {
                    // A record the source lacks whose members have defaults of their own.
                    if let (Val::Record(tm), Some(nt)) = (t, ty.and_then(|t| self.types.nested(t, name))) {
                        let nested_ancestry = self.types.ancestry(&nt);
                        if self.o.migrations.default_for(&ancestry, name, &self.o.sdk).is_none() && self.o.migrations.has_defaults(&nested_ancestry, &self.o.sdk) {
                            let r = self.record(Some(&nt), &Members(Vec::new()), tm, &sub);
                            out.push((name.clone(), Val::Record(r)));
                            continue;
                        }
                    }
                    let v = match self.o.migrations.default_for(&ancestry, name, &self.o.sdk) {
                        Some(d) => {
                            let v = d.value.clone();
                            self.note(1, &sub, format!("{} (not in {}; as Havok writes it in {})", short(&v), self.report.from, self.o.sdk));
                            v
                        }
                        None => {
                            self.note(1, &sub, format!("{} (not in {}; {}'s zero)", short(t), self.report.from, self.o.sdk));
                            t.clone()
                        }
                    };
                    out.push((name.clone(), v));
                }
            }
        }
        if let Some((p, v)) = redirect {
            if let Some(slot) = out.iter_mut().find(|(n, _)| *n == p) {
                slot.1 = v;
            }
        }
        for (i, (name, v)) in src.0.iter().enumerate() {
            if used[i] {
                continue;
            }
            let sub = join(path, name);
            let from = self.report.from.clone();
            if self.o.migrations.default_for(&ancestry, name, &from).is_some_and(|d| d.value == *v) {
                self.note(2, &sub, format!("{} dropped: not in {}, and what Havok writes where the member is new", short(v), self.o.sdk));
            } else if let Some(r) = self.o.migrations.runtime(&ancestry, name) {
                let reason = r.reason.clone();
                self.note(2, &sub, format!("{} dropped: {reason}", short(v)));
            } else if holds_nothing(v) || (is_zero(v) && self.source_types.as_ref().is_some_and(|st| st.fixed_array(&ancestry, name))) {
                self.note(2, &sub, format!("{} dropped: not in {}, and zero", short(v), self.o.sdk));
            } else {
                self.note(0, &sub, format!("{}: no such member in {}", short(v), self.o.sdk));
            }
        }
        Members(out)
    }

    /// Source members `src` with the [`rules::Grouped`] rules of `ancestry` applied, where the
    /// target's template `tmpl` keeps members grouped otherwise; `None` where no rule applies.
    fn regroup(&mut self, ancestry: &[String], src: &Members, tmpl: &Members, path: &str) -> Option<Members> {
        let mut out: Option<Members> = None;
        for rule in self.o.migrations.grouped(ancestry) {
            let cur = out.as_ref().unwrap_or(src);
            let at = cur.0.iter().position(|(n, _)| *n == rule.member);
            let target_has = tmpl.get(&rule.member).is_some();
            match at {
                // Out of the record.
                Some(i) if !target_has && rule.members.iter().any(|m| tmpl.get(m).is_some()) => {
                    let Val::Record(inner) = &cur.0[i].1 else { continue };
                    let mut m = cur.clone();
                    let inner = inner.clone();
                    m.0.remove(i);
                    let mut at = i;
                    for (n, v) in inner.0 {
                        if rule.members.contains(&n) && m.get(&n).is_none() {
                            self.note(2, &join(path, &format!("{}.{n}", rule.member)), format!("as {n} of the record itself ({})", rule.evidence));
                            m.0.insert(at.min(m.0.len()), (n, v));
                            at += 1;
                        } else {
                            m.0.push((format!("{}.{n}", rule.member), v));
                        }
                    }
                    out = Some(m);
                }
                // Into the record.
                None if target_has => {
                    let mut m = cur.clone();
                    let mut inner = Vec::new();
                    let mut first = None;
                    for name in &rule.members {
                        if let Some(j) = m.0.iter().position(|(n, _)| n == name) {
                            first = Some(first.map_or(j, |f: usize| f.min(j)));
                            inner.push(m.0.remove(j));
                        }
                    }
                    let Some(first) = first else { continue };
                    self.note(2, &join(path, &rule.member), format!("{} members of the record itself, grouped ({})", inner.len(), rule.evidence));
                    m.0.insert(first.min(m.0.len()), (rule.member.clone(), Val::Record(Members(inner))));
                    out = Some(m);
                }
                _ => {}
            }
        }
        for rule in self.o.migrations.derived(ancestry) {
            let cur = out.as_ref().unwrap_or(src);
            let at = cur.0.iter().position(|(n, _)| *n == rule.member);
            let target_has = tmpl.get(&rule.member).is_some();
            let Some(list) = rule.derive(cur) else { continue };
            match at {
                // Dropped where it is the list its elements give.
                Some(i) if !target_has => {
                    let same = matches!(&cur.0[i].1, Val::List(v) | Val::Array(v, _) if *v == list);
                    if same {
                        let mut m = cur.clone();
                        let (_, v) = m.0.remove(i);
                        self.note(2, &join(path, &rule.member), format!("{} dropped: {}'s {} in order ({})", short(&v), rule.elements, rule.take, rule.evidence));
                        out = Some(m);
                    }
                }
                // Rebuilt where the target has it.
                None if target_has => {
                    let mut m = cur.clone();
                    self.note(2, &join(path, &rule.member), format!("{} elements rebuilt: {}'s {} in order ({})", list.len(), rule.elements, rule.take, rule.evidence));
                    m.0.push((rule.member.clone(), Val::List(list)));
                    out = Some(m);
                }
                _ => {}
            }
        }
        out
    }

    /// Source value `v` of member `member` (of a record whose ancestry is `ancestry`) shaped as
    /// the target's zero value `t`; `nested` is the member's record type (or its elements').
    fn value(&mut self, nested: Option<&str>, ancestry: &[String], member: &str, v: &Val, t: &Val, path: &str) -> Val {
        let t = match t {
            Val::Array(items, _) => &Val::List(items.clone()),
            t => t,
        };
        // A member both SDKs have in other shapes, whose value the run time computes: the
        // target's zero (`hkbVariableBindingSet::Binding.memberType`, an integer in 2010.2, a type
        // pointer in 2016.2, serialized by neither).
        if shape(v) != shape(t) {
            if let Some(r) = self.o.migrations.runtime(ancestry, member) {
                let reason = r.reason.clone();
                self.note(2, path, format!("{} -> {} ({}'s zero): {reason}", short(v), short(t), self.o.sdk));
                return t.clone();
            }
        }
        // An enum item the target's enumeration lacks, a real a target's half cannot hold.
        if let (Val::Str(item), Val::Str(_) | Val::UInt(_) | Val::Int(_)) = (v, t) {
            if let (Some(items), _) = self.types.member_facts(ancestry, member) {
                let missing: Vec<&str> = item.split('|').map(str::trim).filter(|p| !items.iter().any(|i| i == p)).collect();
                if !missing.is_empty() {
                    self.note(0, path, format!("enum item {} is not an item of the member's enumeration in {}", missing.join("|"), self.o.sdk));
                    return t.clone();
                }
            }
        }
        if let Val::Real(x) = v {
            if x.to_bits() & 0xFFFF != 0 && self.types.member_facts(ancestry, member).1 {
                // A half is a float's high 16 bits, the low half cut off as Havok cuts it (not
                // rounded): 0.3 is 0.29882812 and 0.8 0.796875 in Elden Ring's materials
                // (c5051.hkx, 20 each), 0.4 0.3984375 in 34 Dark Souls III map files, 0.05
                // 0.049804688 in 72 hknpMaterial.weldingTolerance of 36 and in DSR's 21
                // hkMotionState.angularDamping; rounding gives 0.30078125, 0.80078125, ...
                let h = half_of(*x);
                self.note(0, path, format!("{x} where {} stores a half: {h}, the value cut to its high 16 bits as Havok stores it", self.o.sdk));
                return Val::Real(h);
            }
        }
        match (v, t) {
            (Val::Array(items, _), _) => {
                let l = Val::List(items.clone());
                self.value(nested, ancestry, member, &l, t, path)
            }
            (Val::Ref(..), _) => self.pointer(v, path),
            (Val::Record(sm), Val::Record(tm)) => Val::Record(self.record(nested, sm, tm, path)),
            (Val::List(sl), Val::List(tl)) if tl.is_empty() => {
                // A variable array: each element as the element type's zero (records), or as it is.
                let tmpl = match nested {
                    Some(et) if sl.iter().any(|e| matches!(e, Val::Record(_))) => match self.template(et) {
                        Ok(m) => Some(m),
                        Err(e) => {
                            self.note(0, path, format!("elements of {et}: {e}"));
                            return Val::List(Vec::new());
                        }
                    },
                    // Records where the target's elements are no records (2010.2's
                    // hkpConvexVerticesShape.rotatedVertices, records of three vectors; 2014.1's,
                    // hkMatrix3): no conversion is named, so the elements are lost.
                    None if sl.iter().any(|e| matches!(e, Val::Record(_))) && self.types.has_member(ancestry, member) => {
                        self.note(0, path, format!("{} elements of records where {} holds no records, and no conversion is named", sl.len(), self.o.sdk));
                        return Val::List(Vec::new());
                    }
                    _ => None,
                };
                let mut out = Vec::with_capacity(sl.len());
                for (k, e) in sl.iter().enumerate() {
                    let sub = format!("{path}[{k}]");
                    out.push(match (e, &tmpl) {
                        (Val::Record(sm), Some(tm)) => Val::Record(self.record(nested, sm, tm, &sub)),
                        _ => self.plain(e, &sub),
                    });
                }
                Val::List(out)
            }
            (Val::List(sl), Val::List(tl)) if sl.len() == tl.len() => {
                let mut out = Vec::with_capacity(sl.len());
                for (k, (e, te)) in sl.iter().zip(tl).enumerate() {
                    out.push(self.value(nested, ancestry, member, e, te, &format!("{path}[{k}]")));
                }
                Val::List(out)
            }
            (Val::Null, Val::List(_) | Val::Record(_)) => t.clone(),
            (Val::Record(_), _) | (Val::List(_), _) | (_, Val::Record(_)) | (_, Val::List(_)) => self.converted(nested, ancestry, member, v, t, path),
            // An enum item by name where the target's member names no items: its number.
            (Val::Str(item), Val::UInt(_) | Val::Int(_)) => match self.numbers.get(path).cloned() {
                Some(n) => {
                    self.note(2, path, format!("enum item {item} as its stored number {} ({} names no items of this member)", short(&n), self.o.sdk));
                    n
                }
                None => v.clone(),
            },
            _ => v.clone(),
        }
    }

    /// A value whose shape differs from the target's: a named conversion, else a loss.
    fn converted(&mut self, nested: Option<&str>, ancestry: &[String], member: &str, v: &Val, t: &Val, path: &str) -> Val {
        let conv = self.o.migrations.conversion(ancestry, member).map(|c| (c.conversion, c.evidence.clone()));
        let out = match (conv.as_ref().map(|c| c.0), v, t) {
            (Some(ValueConversion::ScalarInRecord), v, Val::Record(tm)) if (is_scalar(v) || is_list(v)) && tm.0.len() == 1 => {
                Some(Val::Record(Members(vec![(tm.0[0].0.clone(), self.plain(v, path))])))
            }
            (Some(ValueConversion::ScalarInRecord), Val::Record(sm), t)
                if (is_scalar(t) || is_list(t) || matches!(t, Val::Str(_))) && sm.0.len() == 1 =>
            {
                Some(self.plain(&sm.0[0].1, path))
            }
            (Some(ValueConversion::RecordAsArray), Val::Record(sm), Val::List(tl)) if sm.0.len() == tl.len() => {
                let mut out = Vec::with_capacity(tl.len());
                for ((n, e), te) in sm.0.iter().zip(tl) {
                    out.push(self.value(None, ancestry, member, e, te, &join(path, n)));
                }
                Some(Val::List(out))
            }
            (Some(ValueConversion::RecordAsArray), Val::List(sl), Val::Record(tm)) if sl.len() == tm.0.len() => {
                let mut out = Vec::with_capacity(sl.len());
                for (k, (e, (n, te))) in sl.iter().zip(&tm.0).enumerate() {
                    let v = self.value(None, ancestry, member, e, te, &format!("{path}[{k}]"));
                    out.push((n.clone(), v));
                }
                Some(Val::Record(Members(out)))
            }
            _ => None,
        };
        let _ = nested;
        match (out, conv) {
            (Some(x), Some((c, evidence))) => {
                let _ = evidence;
                self.note(2, path, format!("{c:?}: {} -> {}", short(v), short(&x)));
                x
            }
            _ => {
                if is_zero(v) && is_zero(t) {
                    return t.clone();
                }
                self.note(0, path, format!("{} where {} holds {}, and no conversion is named", short(v), self.o.sdk, short(t)));
                t.clone()
            }
        }
    }

    /// A value copied as it is, its pointers renamed to the target's handles.
    fn plain(&mut self, v: &Val, path: &str) -> Val {
        match v {
            Val::Ref(..) | Val::Section(..) => self.pointer(v, path),
            Val::List(l) | Val::Array(l, _) => Val::List(l.iter().enumerate().map(|(k, e)| self.plain(e, &format!("{path}[{k}]"))).collect()),
            Val::Record(m) => Val::Record(Members(m.0.iter().map(|(n, e)| (n.clone(), self.plain(e, &join(path, n)))).collect())),
            v => v.clone(),
        }
    }

    fn pointer(&mut self, v: &Val, path: &str) -> Val {
        match v {
            Val::Ref(h, off) => match self.handles.get(h) {
                Some(&n) => Val::Ref(n, *off),
                None => {
                    self.note(0, path, format!("a pointer to object #{h}, which {} cannot hold", self.o.sdk));
                    Val::Null
                }
            },
            _ => {
                self.note(0, path, "a pointer into another packfile section".to_owned());
                Val::Null
            }
        }
    }
}

/// The order the target's writer puts objects in: breadth first from the root for a tagfile,
/// depth first for a packfile; the rest in the source's order.
fn order(doc: &Document, tagfile: bool) -> Vec<Handle> {
    let all = doc.handles();
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(all.len());
    if let Some(root) = doc.root() {
        if tagfile {
            let mut q = VecDeque::from([root]);
            seen.insert(root);
            while let Some(h) = q.pop_front() {
                out.push(h);
                for p in doc.pointers_of(h) {
                    if seen.insert(p) {
                        q.push_back(p);
                    }
                }
            }
        } else {
            let mut stack = vec![root];
            while let Some(h) = stack.pop() {
                if !seen.insert(h) {
                    continue;
                }
                out.push(h);
                for p in doc.pointers_of(h).into_iter().rev() {
                    if !seen.contains(&p) {
                        stack.push(p);
                    }
                }
            }
        }
    }
    out.extend(all.into_iter().filter(|h| !seen.contains(h)));
    out
}

/// The source's objects in the dump's shape, enum members by item name (a tagfile's from the
/// enumerations of its SDK's generated classes, a packfile's from its class descriptions), so
/// that an enum value is carried by its name: SDKs number some items differently
/// (`hkaAnimation.type`'s `HK_SPLINE_COMPRESSED_ANIMATION`).
fn source_dump(doc: &Document, o: &Options<'_>) -> Result<Dump, ConvertError> {
    match doc {
        Document::Packfile(p) => dump::dump_packfile(p).map_err(failed),
        Document::Tagfile(g) => {
            let bytes = g.write().map_err(failed)?;
            let empty = hktypes::tagfile::CompendiumSet::new();
            let file = hktypes::tagfile::TagFile::read(&bytes, o.compendia.unwrap_or(&empty)).map_err(failed)?;
            let enums = o.classes.tagfile_enums(&file.sdk_version());
            dump::dump_tagfile_with(&file, &enums).map_err(failed)
        }
        Document::Compendium(_) => Err(failed("a TCM0 compendium holds types, no objects")),
    }
}

/// The target's dump of `doc` and its report; writes nothing.
pub fn plan(doc: &Document, o: &Options<'_>) -> Result<Plan, ConvertError> {
    // A preference asked for: the rules with their `preferred` for the target SDK rewritten.
    let preferred;
    let asked;
    let o = match &o.prefer {
        Some(p) => {
            preferred = o.migrations.with_preference(&o.sdk, p).map_err(failed)?;
            asked = Options { sdk: o.sdk.clone(), format: o.format, classes: o.classes, migrations: &preferred, compendia: o.compendia, prefer: None };
            &asked
        }
        None => o,
    };
    let source = source_dump(doc, o)?;
    let source: HashMap<u32, &DumpObject> = source.objects.iter().map(|ob| (ob.handle, ob)).collect();
    let types = Types::new(o)?;
    let from = doc.sdk().unwrap_or_default();
    let tagfile = o.format == TargetFormat::Tagfile;
    let source_types = doc.sdk().and_then(|sdk| {
        let format = match doc {
            Document::Packfile(p) => TargetFormat::Packfile(p.layout()),
            _ => TargetFormat::Tagfile,
        };
        Types::new(&Options { sdk, format, classes: o.classes, migrations: o.migrations, compendia: None, prefer: None }).ok()
    });
    let mut cx = Cx {
        o,
        types: &types,
        source_types,
        objects: &source,
        templates: HashMap::new(),
        handles: HashMap::new(),
        report: Report { from, to: o.sdk.clone(), ..Report::default() },
        handle: 0,
        class: String::new(),
        numbers: HashMap::new(),
        pointers: (
            doc.layout().map_or(8, |l| l.pointer_size),
            match o.format {
                TargetFormat::Packfile(l) => l.pointer_size,
                TargetFormat::Tagfile => 8,
            },
        ),
        made: HashMap::new(),
        replacing: false,
        also_made: HashMap::new(),
        also_of: HashMap::new(),
        prefer: None,
        also_back: HashMap::new(),
    };
    // Which objects the target holds, and their handles.
    let mut kept: Vec<Keep<'_>> = Vec::new();
    // Whether the target's preference for the other side of a replacement applies to this file:
    // every object the objects it would replace reach is of a class a rule replaces or the
    // preference names (else the file keeps the classes the target has, all of them).
    let preferring = {
        let candidates: Vec<Handle> = doc.handles().into_iter().filter(|h| o.migrations.preferred_away(&o.sdk, &doc.class_name(*h).unwrap_or_default())).collect();
        let mut seen: std::collections::HashSet<Handle> = candidates.iter().copied().collect();
        let mut queue: VecDeque<Handle> = candidates.iter().copied().collect();
        let mut blocker = None;
        while let Some(h) = queue.pop_front() {
            let class = doc.class_name(h).unwrap_or_default();
            match o.migrations.preference_reaches(&o.sdk, &class) {
                None => {
                    blocker = Some((h, class));
                    break;
                }
                Some(false) => continue,
                Some(true) => {}
            }
            for p in doc.pointers_of(h) {
                if seen.insert(p) {
                    queue.push_back(p);
                }
            }
        }
        if let (Some((h, class)), Some(first)) = (&blocker, candidates.first()) {
            cx.handle = first.0;
            cx.class = doc.class_name(*first).unwrap_or_default();
            cx.note(2, "", format!("kept as {}: {} prefers the class a rule replaces it by, but object #{} ({class}) it reaches has no rule", cx.class, o.sdk, h.0));
        }
        blocker.is_none()
    };
    let prefer = preferring.then_some(o.sdk.as_str());
    cx.prefer = prefer.map(str::to_owned);
    // The handles of objects made of records (`each`), above every source handle.
    let mut next = doc.handles().iter().map(|h| h.0).max().map_or(0, |m| m.saturating_add(1));
    // Objects that the way back of `each` makes records of (an hkpRigidBody of an
    // hkpPhysicsSystem's rigidBodies as a record of hknpRagdollData.bodyCinfos): no objects of
    // their own in the target.
    let mut absorbed: HashMap<u32, String> = HashMap::new();
    for h in doc.handles() {
        let class = doc.class_name(h).unwrap_or_default();
        let Some((r, rules::Way::Back)) = o.migrations.replacement(&class, &|c| types.has(c), prefer) else { continue };
        let Some(mm) = source.get(&h.0).and_then(|ob| ob.members.as_ref()) else { continue };
        for m in r.members.iter().filter(|m| m.each.is_some()) {
            if let Some(Val::List(l) | Val::Array(l, _)) = rules::path_get(mm, &m.to) {
                for x in l {
                    if let Val::Ref(e, _) = x {
                        absorbed.insert(*e, format!("{}.{}", r.from, m.from));
                    }
                }
            }
        }
        // The objects made besides the replaced one forward (`also`), back: an object of the
        // also class whose `each` arrays are the replaced object's (DSR's hkaRagdollInstance of
        // the system's bodies and constraints) gives its other members (skeleton, bone map) to
        // the replaced object's target, and is no object of its own.
        for a in &r.also {
            let each: Vec<(&str, &str)> = a.members.iter().filter(|m| m.each.is_some()).filter_map(|m| Some((m.to.as_str(), r.members.iter().find(|x| x.from == m.from && x.each.is_some())?.to.as_str()))).collect();
            if each.is_empty() {
                continue;
            }
            for x in doc.handles() {
                if doc.class_name(x).as_deref() != Some(a.class.as_str()) || absorbed.contains_key(&x.0) {
                    continue;
                }
                let Some(xm) = source.get(&x.0).and_then(|ob| ob.members.as_ref()) else { continue };
                // The first array (the bodies) tells whose it is; others that differ (DSR's
                // instance lists copies of the system's constraints) are reported with it.
                let (at, owner_at) = each[0];
                let set = |v: Option<&Val>| -> Option<Vec<Val>> {
                    let (Val::List(l) | Val::Array(l, _)) = v? else { return None };
                    let mut l = l.clone();
                    l.sort_by_key(|x| if let Val::Ref(h, _) = x { *h } else { u32::MAX });
                    Some(l)
                };
                // The same objects, in whatever order (DSR's instance lists the bodies in bone order).
                if set(rules::path_get(xm, at)).is_some() && set(rules::path_get(xm, at)) == set(rules::path_get(mm, owner_at)) {
                    absorbed.insert(x.0, format!("{} (its members as {}'s)", r.from, r.from));
                    cx.also_back.insert(x.0, h.0);
                }
            }
        }
    }
    for h in order(doc, tagfile) {
        let class = doc.class_name(h).unwrap_or_default();
        if let Some(into) = absorbed.get(&h.0) {
            cx.handle = h.0;
            cx.class = class.clone();
            cx.note(2, "", format!("a record of {into} in {}", o.sdk));
            continue;
        }
        // A class the target replaces by one of its own (a `replacements` rule).
        let replaced = o.migrations.replacement(&class, &|c| types.has(c), prefer);
        if types.has(&class) || replaced.is_some() {
            let n = kept.len() as u32 + u32::from(tagfile);
            cx.handles.insert(h.0, n);
            let target = replaced.map_or(class.as_str(), |(r, way)| r.oriented(way).1).to_owned();
            kept.push(Keep { h: h.0, class: class.clone(), target, rule: replaced, element: None, also_owner: None });
            // Arrays of records the target keeps as objects of their own, each after its owner.
            let Some((r, rules::Way::Forward)) = replaced else { continue };
            for m in &r.members {
                let Some(each) = &m.each else { continue };
                let (Some(er), true) = (o.migrations.record_replacement(each), types.has(each)) else { continue };
                let elements = source.get(&h.0).and_then(|ob| ob.members.as_ref()).and_then(|mm| rules::path_get(mm, &m.from));
                let Some(Val::List(elements) | Val::Array(elements, _)) = elements else { continue };
                let mut ids = Vec::with_capacity(elements.len());
                for (k, e) in elements.iter().enumerate() {
                    let Val::Record(e) = e else { continue };
                    let n = kept.len() as u32 + u32::from(tagfile);
                    cx.handles.insert(next, n);
                    ids.push(next);
                    kept.push(Keep { h: next, class: class.clone(), target: each.clone(), rule: Some((er, rules::Way::Forward)), element: Some((h.0, format!("{}[{k}]", m.from), e.clone())), also_owner: None });
                    next = next.saturating_add(1);
                }
                cx.made.insert((h.0, m.from.clone()), ids);
            }
            // Other objects made of the same source object's members.
            for a in r.also.iter().filter(|a| types.has(&a.class)) {
                let n = kept.len() as u32 + u32::from(tagfile);
                cx.handles.insert(next, n);
                if a.named_by_root {
                    cx.also_of.insert(h.0, (next, a.class.clone()));
                }
                kept.push(Keep { h: next, class: class.clone(), target: a.class.clone(), rule: Some((r, rules::Way::Forward)), element: None, also_owner: Some(h.0) });
                cx.also_made.insert(next, a);
                next = next.saturating_add(1);
            }
        } else {
            cx.handle = h.0;
            cx.class = class.clone();
            cx.note(0, "", format!("class {class} is not in {}", o.sdk));
        }
    }
    let mut objects = Vec::with_capacity(kept.len());
    for k in &kept {
        let class = &k.class;
        let target_class = k.target.clone();
        let (owner, prefix) = match &k.element {
            Some((owner, at, _)) => (*owner, at.clone()),
            None => (k.h, String::new()),
        };
        cx.handle = owner;
        cx.class = class.clone();
        cx.replacing = k.rule.is_some();
        let also = cx.also_made.get(&k.h).copied();
        let owner = k.also_owner.unwrap_or(owner);
        cx.handle = owner;
        let src: Members = match &k.element {
            Some((_, _, e)) => e.clone(),
            None => source
                .get(if also.is_some() { &owner } else { &k.h })
                .and_then(|ob| ob.members.clone())
                .ok_or_else(|| failed(format!("object #{} ({class}) is untyped: no class description of the source's SDK read it", k.h)))?,
        };
        let tmpl = cx.template(&target_class).map_err(|e| failed(format!("the target's {e}")))?;
        cx.numbers.clear();
        if k.element.is_none() {
            if let Ok(raw) = doc.members_stored(Handle(k.h)) {
                enum_numbers(&Val::Record(src.clone()), &Val::Record(raw), "", &mut cx.numbers);
            }
        }
        let mut src = src;
        match (k.rule, also) {
            (Some((r, _)), Some(a)) => src = cx.also(r, a, &src, owner),
            (Some((r, way)), None) => src = cx.replace(r, way, &src, &tmpl, &prefix, owner),
            _ => {}
        }
        cx.indexed(&target_class, &mut src);
        let members = cx.record(Some(&target_class), &src, &tmpl, &prefix);
        objects.push(DumpObject {
            handle: cx.handles[&k.h],
            class: target_class,
            members: Some(members),
            untyped: None,
            kept: ObjectKept::default(),
        });
    }
    // Source objects the target keeps that its root no longer reaches, where the source pointed
    // to them: what pointed to them is lost (DSR's hkaRagdollInstance lists its own
    // constraint instances, which 2016.2 lacks, on data of a class 2016.2 has).
    {
        fn refs(v: &Val, out: &mut std::collections::HashSet<u32>) {
            match v {
                Val::Ref(h, _) => {
                    out.insert(*h);
                }
                Val::List(l) | Val::Array(l, _) => l.iter().for_each(|x| refs(x, out)),
                Val::Record(m) => m.0.iter().for_each(|(_, x)| refs(x, out)),
                _ => {}
            }
        }
        // The target's objects the root reaches.
        let by_handle: HashMap<u32, &DumpObject> = objects.iter().map(|ob| (ob.handle, ob)).collect();
        let mut pointed = std::collections::HashSet::new();
        let mut queue: VecDeque<u32> = objects.first().map(|o| o.handle).into_iter().collect();
        while let Some(n) = queue.pop_front() {
            let mut next = std::collections::HashSet::new();
            if let Some(m) = by_handle.get(&n).and_then(|ob| ob.members.as_ref()) {
                m.0.iter().for_each(|(_, x)| refs(x, &mut next));
            }
            for x in next {
                if pointed.insert(x) {
                    queue.push_back(x);
                }
            }
        }
        let mut pointed_in_source = std::collections::HashSet::new();
        for h in doc.handles() {
            for p in doc.pointers_of(h) {
                pointed_in_source.insert(p.0);
            }
        }
        let root = objects.first().map(|o| o.handle);
        for k in kept.iter().filter(|k| k.element.is_none() && k.also_owner.is_none()) {
            let n = cx.handles[&k.h];
            if Some(n) != root && !pointed.contains(&n) && pointed_in_source.contains(&k.h) {
                cx.handle = k.h;
                cx.class = k.class.clone();
                cx.note(2, "", format!("kept, but the root of the {} file no longer reaches it: what pointed to it is not carried (see above)", o.sdk));
            }
        }
    }
    check_indices(&objects, o.migrations)?;
    let report = cx.report;
    let (format, layout, kept) = match (&types, o.format) {
        (Types::Tag { sdk, table, by_name, .. }, _) => {
            // The types the objects need (their classes, and what those name), as Havok's
            // writer lists them: not the SDK's whole table.
            // `char` too: a string's bytes are an item of it, whatever type names the string.
            let roots: Vec<TypeIndex> =
                objects.iter().filter_map(|ob| by_name.get(&ob.class).copied()).chain(by_name.get("char").copied()).collect();
            let (used, _) = hktypes::tagfile::type_writer::used_types(table, roots);
            let records = (1..used.len() as TypeIndex).filter_map(|i| used.record(i)).collect();
            let kept = Kept { sdkv: sdkv_of(sdk), types: Some(records), ..Kept::default() };
            (dump::TAGFILE, None, kept)
        }
        (Types::Pack { sources, .. }, TargetFormat::Packfile(rules)) => {
            let mut d = Document::new(&o.sdk, NewFormat::Packfile(rules), Some(o.classes)).map_err(failed)?;
            let mut listed = std::collections::HashSet::new();
            for ob in &objects {
                if listed.insert(ob.class.clone()) {
                    let src = sources.first().ok_or_else(|| failed("no class descriptions"))?;
                    d.declare(&ob.class, *src).map_err(|e| failed(format!("{}: {e}", ob.class)))?;
                }
            }
            let bytes = d.write().map_err(failed)?;
            let mut hex = String::with_capacity(bytes.len() * 2);
            for b in &bytes {
                let _ = write!(hex, "{b:02x}");
            }
            (dump::PACKFILE, Some(rules.to_string()), Kept { container: Some(hex), ..Kept::default() })
        }
        (Types::Pack { .. }, TargetFormat::Tagfile) => unreachable!("a packfile target's types are a packfile's"),
    };
    let root = objects.first().map(|o| o.handle);
    let dump = Dump { format: format.to_owned(), sdk: o.sdk.clone(), layout, root, objects, kept };
    Ok(Plan { dump, report })
}

/// The converter's last check of a target: every index that a rule names into a table of the
/// same object (`materialId` into `materials`, `motionPropertiesId` into `motionProperties`,
/// `motionId` into `motionCinfos`: the `indexed_records` rules and the tables of the `Indexed`
/// and `Shared` ops) names a record of the table, or is the rule's value for none
/// (`unindexed`). A target the run time would read past a table's end with is refused as a
/// failure of the converter, with or without `--allow-loss`.
fn check_indices(objects: &[DumpObject], m: &Migrations) -> Result<(), ConvertError> {
    let mut pairs: Vec<(&str, &str, Option<&Val>)> = m.indexed_records.iter().map(|r| (r.table.as_str(), r.index.as_str(), Some(&r.unindexed))).collect();
    for r in &m.replacements {
        for (t, i) in r.members.iter().filter_map(|x| x.op.as_ref().and_then(rules::MemberOp::table)) {
            if !pairs.iter().any(|(pt, pi, _)| *pt == t && *pi == i) {
                pairs.push((t, i, None));
            }
        }
    }
    for ob in objects {
        let Some(mm) = ob.members.as_ref() else { continue };
        for &(table, index, none) in &pairs {
            // No table: every index is the rule's value for none (2016.2's motionId).
            let records = match mm.get(table) {
                Some(Val::List(records) | Val::Array(records, _)) => records.as_slice(),
                None if none.is_some() => &[],
                _ => continue,
            };
            for (name, v) in &mm.0 {
                let (Val::List(elements) | Val::Array(elements, _)) = v else { continue };
                for (k, e) in elements.iter().enumerate() {
                    let Val::Record(e) = e else { continue };
                    let Some(x) = e.get(index) else { continue };
                    if none == Some(x) {
                        continue;
                    }
                    let i = match x {
                        Val::UInt(i) => Some(*i),
                        Val::Int(i) => u64::try_from(*i).ok(),
                        _ => continue,
                    };
                    if i.is_none_or(|i| i >= records.len() as u64) {
                        return Err(failed(format!(
                            "the converted {}'s {name}[{k}].{index} is {}, which names no record of its {table} ({} records): no rule of the converter fills the table",
                            ob.class,
                            short(x),
                            records.len()
                        )));
                    }
                }
            }
        }
    }
    Ok(())
}

/// The bytes of a plan's target file.
pub fn write(plan: &Plan, o: &Options<'_>) -> Result<Vec<u8>, ConvertError> {
    let types = Types::new(o)?;
    let sources = match &types {
        Types::Pack { sources, .. } => sources.clone(),
        Types::Tag { .. } => Vec::new(),
    };
    let enums = if o.format == TargetFormat::Tagfile { o.classes.tagfile_enums(&o.sdk) } else { Default::default() };
    let options = BuildOptions { compendia: None, packfile_classes: sources, tagfile_enums: enums };
    // The build's bound on the bytes it lays out: a generous one of the dump's size.
    let text = serde_json::to_string(&plan.dump).map_err(failed)?.len();
    dump::build(&plan.dump, &options, text).map_err(|e| failed(format!("writing the {} file: {e}", o.sdk)))
}

/// `doc` as a file of the target SDK and format, with the report; a plan that loses anything is
/// refused ([`ConvertError::Loss`]) unless `allow_loss`.
pub fn convert(doc: &Document, o: &Options<'_>, allow_loss: bool) -> Result<(Vec<u8>, Report), ConvertError> {
    let p = plan(doc, o)?;
    if !p.report.is_lossless() && !allow_loss {
        return Err(ConvertError::Loss(Box::new(p.report)));
    }
    let bytes = write(&p, o)?;
    Ok((bytes, p.report))
}

/// `doc.convert(sdk, format, classes)`: [`convert`] as a method of [`Document`], with the built-in
/// migration rules ([`Migrations::builtin`]); the converted file is read back (with `classes`) and
/// returned as a document, with the report. A conversion that would lose anything is refused
/// ([`ConvertError::Loss`], the whole report); [`convert`] with `allow_loss` converts anyway, and
/// takes the compendia a TCRF tagfile (a Sekiro or Elden Ring animation) was read with
/// ([`Options::compendia`]), which this method does not.
///
/// ```no_run
/// use hkgen::convert::{DocumentConvert, TargetFormat};
/// # fn f(doc: &hktypes::Document, classes: &'static (dyn hktypes::ClassRegistry + Sync)) -> Result<(), Box<dyn std::error::Error>> {
/// let (doc2018, report) = doc.convert("2018.1", TargetFormat::Tagfile, classes)?;
/// assert!(report.is_lossless());
/// std::fs::write("out.hkx", doc2018.write()?)?;
/// # Ok(()) }
/// ```
pub trait DocumentConvert {
    /// This document as SDK `sdk`'s, in `format`, through the classes of `classes`
    /// (`&hkclasses::REGISTRY`).
    fn convert(&self, sdk: &str, format: TargetFormat, classes: &'static (dyn ClassRegistry + Sync)) -> Result<(Document, Report), ConvertError>;
}

impl DocumentConvert for Document {
    fn convert(&self, sdk: &str, format: TargetFormat, classes: &'static (dyn ClassRegistry + Sync)) -> Result<(Document, Report), ConvertError> {
        static BUILTIN: std::sync::OnceLock<Migrations> = std::sync::OnceLock::new();
        let migrations = BUILTIN.get_or_init(Migrations::builtin);
        let o = Options { sdk: sdk.to_owned(), format, classes, migrations, compendia: None, prefer: None };
        let (bytes, report) = convert(self, &o, false)?;
        let doc = hktypes::open(&bytes, &OpenOptions { classes: Some(classes), ..OpenOptions::default() })
            .map_err(|e| failed(format!("the converted {sdk} file does not read back: {e}")))?;
        Ok((doc, report))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A half keeps a float's high 16 bits, the rest cut off as Havok's files show: 0.3 and 0.8
    /// are Elden Ring's 0.29882812 and 0.796875 (c5051.hkx), 0.4 Dark Souls III's 0.3984375, 0.05
    /// DSR's and DS III's 0.049804688; a half stays itself.
    #[test]
    fn half_cuts_as_havok() {
        assert_eq!(half_of(0.3), 0.29882812);
        assert_eq!(half_of(0.8), 0.796875);
        assert_eq!(half_of(0.4), 0.3984375);
        assert_eq!(half_of(0.05), 0.049804688);
        assert_eq!(half_of(0.5), 0.5);
        assert_eq!(half_of(-0.3), -0.29882812);
    }

    fn object(members: Vec<(&str, Val)>) -> DumpObject {
        DumpObject {
            handle: 1,
            class: "hknpRagdollData".into(),
            members: Some(Members(members.into_iter().map(|(n, v)| (n.to_owned(), v)).collect())),
            untyped: None,
            kept: ObjectKept::default(),
        }
    }

    fn body(members: Vec<(&str, Val)>) -> Val {
        Val::Record(Members(members.into_iter().map(|(n, v)| (n.to_owned(), v)).collect()))
    }

    /// An index into an empty or short table is refused; one into the table, or a table's
    /// value for none where the SDK has no table (2016.2's motionId 0x7fffffff), passes.
    #[test]
    fn indices_name_records() {
        let m = Migrations::builtin();
        let record = || Val::Record(Members(vec![]));
        let ok = object(vec![
            ("materials", Val::List(vec![record()])),
            ("motionProperties", Val::List(vec![record(), record()])),
            ("bodyCinfos", Val::List(vec![body(vec![("materialId", Val::UInt(0)), ("motionPropertiesId", Val::UInt(1)), ("motionId", Val::UInt(0x7fff_ffff))])])),
        ]);
        assert!(check_indices(&[ok], &m).is_ok());
        let empty = object(vec![("motionProperties", Val::List(vec![])), ("bodyCinfos", Val::List(vec![body(vec![("motionPropertiesId", Val::UInt(0))])]))]);
        let e = check_indices(&[empty], &m).unwrap_err().to_string();
        assert!(e.contains("bodyCinfos[0].motionPropertiesId is 0, which names no record of its motionProperties (0 records)"), "{e}");
        let motion = object(vec![("bodyCinfos", Val::List(vec![body(vec![("motionId", Val::UInt(0))])]))]);
        assert!(check_indices(&[motion], &m).is_err(), "a motionId where the SDK keeps no motionCinfos");
        let motions = object(vec![("motionCinfos", Val::List(vec![record()])), ("bodyCinfos", Val::List(vec![body(vec![("motionId", Val::UInt(1))])]))]);
        assert!(check_indices(&[motions], &m).is_err());
    }
}
