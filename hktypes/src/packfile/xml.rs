//! Havok's XML form of a packfile (`<hkpackfile>`), read into and written from the same
//! [`PackfileDocument`] as the binary form: the same objects, [`MemberValue`]s and [`Handle`]s.
//!
//! ```xml
//! <hkpackfile classversion="8" contentsversion="hk_2010.2.0-r1" toplevelobject="#0001">
//!   <hksection name="__data__">
//!     <hkobject name="#0001" class="hkRootLevelContainer" signature="0x2772c11e">
//!       <hkparam name="namedVariants" numelements="1">
//!         <hkobject>
//!           <hkparam name="name">hkbProjectData</hkparam>
//!           <hkparam name="variant">#0002</hkparam>
//! ```
//!
//! Forms, by member type: integers in decimal (`0x` hex is read too); `true`/`false` (a number
//! is read as the stored byte, `-1` as `0xFF`); reals as
//! text (see [`FloatForm`]); `hkVector4` and quaternions as `(x y z w)`; matrices and transforms as
//! groups in parentheses, of three numbers where Havok drops a zero `w` (`hkQsTransform`:
//! `(t)(q)(s)` of 3, 4 and 3, as Havok's XML and serde-hkx have them; a group of four is read
//! too, and where the dropped word is not what Havok's packer fills in, 0, or 1 for an
//! `hkTransform`'s translation, the lossless writer keeps it in the object's note, `lanes=`);
//! `hkHalf` as the real whose upper 16 bits it is; pointers as an object's name or `null`; enums
//! by item name (a number where no item has it); flags as Havok writes them, the names of the
//! named bits joined by `|` and the bits no item names as one number after them
//! (`FLAG_RAGDOLL|FLAG_NOT_VARIABLE|5760`; `0` for none), and read from names, numbers (decimal,
//! `0x` hex) and mixtures of both, with or without a trailing `|` (empty text is 0); an unknown
//! name is an error at its parameter; strings as their text, with bytes
//! of 0x80 and above as character references of the byte value (`&#129;`, as Havok's `ascii`
//! writer does; the reader maps each character below 256 back to one byte, others to their UTF-8
//! bytes), an empty string as empty text and a null one as `&#9216;` (`␀`, as serde-hkx writes
//! it); arrays with `numelements` (where it disagrees with the text, the text's elements are
//! read), their scalars separated by
//! white space, their structs as `<hkobject>` without a name, their strings as `<hkcstring>`; C
//! arrays the same without `numelements`; embedded structs as one nameless `<hkobject>`;
//! `SERIALIZE_IGNORED` members as a comment (`<!-- memSizeAndFlags SERIALIZE_IGNORED -->`; the
//! lossless writer writes such a member as a parameter when its value is not zero). A class with
//! hidden bytes ([`HIDDEN`]) writes them as hex under that name. The classversions of the corpus
//! (5, 8, 9, 11) share these forms; object names are `#0001`-style when written and any text when
//! read (`0x74939800` in version 5 files).
//!
//! Reading ([`read`], [`read_with`] to choose the class sources from the `contentsversion`;
//! [`ReadOptions`]: the layout of the packfile written, the object order) pulls the text through
//! quick-xml, one event at a time, and makes the values as it goes: no tree of the text is
//! built, and the text of a parameter is borrowed from the input where it holds no reference.
//! What each member kind's value is, [`super::walk`] decides (as for the dump's build): the
//! reader is its source, giving each `<hkparam>` as the walk asks for its member (a parameter
//! ahead of its member waits, one after its member was passed is given late; a missing member
//! is its zero value, missing hidden bytes an error).
//! No DTD (a `<!DOCTYPE`, and so any entity beyond the five built-in ones, is an error);
//! elements nested past the values are passed over without recursion, and the walk over objects
//! and structs stops at [`MAX_DEPTH`]. Pointers may name objects further on: a name is resolved
//! when `__data__` ends, and a name no object has is an error located at its first use. Every
//! error is a [`ValueError`] whose message names the line and column, the object and the member
//! path.
//! Which classes describe the objects: per class, the first of the given sources that has it
//! with the signature the XML states (any, where it states none) and knows every parameter of
//! its first object. [`crate::sniff`] tells the XML forms apart by content; `<hktagfile>` XML is
//! read by [`crate::tagfile::xml`].
//!
//! Writing ([`write()`]) needs every object typed (a raw object has no members to name).
//!
//! **Nothing read is lost on write.** What Havok's XML has no place for, the lossless writer puts
//! in comments of its own, which [`read`] takes back, so that binary -> XML -> binary gives the
//! same bytes:
//! - `<!-- hkgen:container HEX -->` after `<hkpackfile>`, where the container is not the one the
//!   reader builds for these objects (Havok's packer's): the packfile with `__data__` emptied, in
//!   hex (header and its version-11 region, `__classnames__` with unused entries, `__types__`
//!   with its class records, each section's fill). The reader takes it when the layout it
//!   writes is the one the container states, and builds the stock container otherwise.
//! - `<!-- hkgen:arrays flags=0x80000000 -->` after `<hkpackfile>`, where the flags of the
//!   document's hkArray capacity words ([`PackfileDocument::array_flags`]) are not those of its
//!   contents version's files ([`stock_array_flags`]: `0xc0000000` for 5.5 and 6.6, else
//!   `0x80000000`). Every hkArray read gets `len | ` these flags (the note's, else the contents
//!   version's, so a stock file needs no note) unless its object's note gives its word; the
//!   document then learns its flags from its arrays as reading a binary file does.
//! - `<!-- hkgen:object align=8 places=F:T,.. end=F:T padding=OFF:HEX,.. refs=K:TARGET,.. caps=K:WORD,.. lanes=K:BITS,.. -->`
//!   first in an `<hkobject>`, where the object has any of these: its arrays on 8-byte
//!   boundaries ([`ArrayAlign::Eight`]), kept bytes ([`objects::Kept`](super::objects::Kept):
//!   data places, the object's end, padding that is not zero), pointers that name no object's
//!   start (written `null` in the parameter; `K` counts the object's pointers depth first in
//!   member order, `TARGET` is `s1+400`, 400 bytes into section 1, or `#0003+16`, 16 bytes into
//!   an object), hkArrays whose capacity word is not `len | ` the document's flags (`K` counts
//!   the object's hkArrays depth first in member order, an array before its elements' arrays;
//!   `WORD` is the word in hex), the fourth words of groups Havok writes three numbers of
//!   where they are not the packer's (0, or 1 for an `hkTransform`'s translation: `K` counts
//!   the object's three-number groups depth first in member order, array elements in turn;
//!   `BITS` is the real's bits in hex, `0x3f800000` for a translation's 1.0 that 32-bit
//!   exporters leave).
//!
//! Comments, because Havok's own writer writes comments (the `SERIALIZE_IGNORED` members), so its
//! reader and every tool that reads its XML skips them; an unknown attribute or processing
//! instruction is not known to be skipped by Havok's tools. With [`FloatForm::Havok`] no such
//! comment is written: that form is for tools that compare text with Havok's.

use super::file::{ClassName, ClassNames, ContentsVersion, Header, HeaderTail, PackFile, Section, SectionBody};
use super::file::{CLASSNAMES, DATA, TYPES};
use super::layout::{member_flags, ClassSet, ClassSource, Member, MemberType};
use super::objects::{copy_class, FxMap, each_hk_array, each_hk_array_mut, stock_array_flags, ItemSlice, Items, MemberArray, ArrayAlign, Body, PackfileDocument, Object, Ref, MemberValue, ARRAY_FLAG_BITS, HIDDEN};
use crate::shared::Handle;
use super::walk_out::{each_scalar, half_to_f32, wrong, Elem, EnumOf, Held, Int, PackOut, PackSink, Path};
use super::raw::{LayoutRules, FILL};
use crate::error::{ErrorKind, Result, ValueError};
pub use crate::xml_text::FloatForm;
use crate::xml_text::{control_char, located, same, short_decimal, utf8_text, xml_form, Ev, Pull, Txt, XmlForm};
use std::collections::HashMap;
use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt::Write as _;
use std::rc::Rc;
use quick_xml::events::{BytesStart, Event};
use super::walk::{Next, PackSource, PackWalk};

/// A null string's text (serde-hkx's `␀`, U+2400); empty text is an empty string, as Havok's
/// packer reads it.
const NULL_STRING: &str = "&#9216;";

/// How deep objects, structs and arrays of structs may nest in the XML.
pub const MAX_DEPTH: usize = 64;

/// The most elements the reader reserves for an array of structs before reading them (from its
/// `numelements`); a longer array grows as it is read.
const STRUCTS_RESERVED: usize = 1024;

/// Options of [`write()`].
#[derive(Clone, Copy, Debug, Default)]
pub struct WriteOptions {
    /// How reals are printed.
    pub floats: FloatForm,
}

/// The layout a document read from XML gets when none is given: little-endian 64-bit, no
/// reuse-padding, empty-base (`8,1,0,1`).
pub const DEFAULT_LAYOUT: LayoutRules = LayoutRules { pointer_size: 8, little_endian: 1, reuse_padding: 0, empty_base: 1 };

/// A packfile's objects written as `<hkpackfile>` XML.
pub fn write(doc: &PackfileDocument, options: WriteOptions) -> Result<String> {
    let mut out = String::new();
    write_to(doc, options, &mut out)?;
    Ok(out)
}

/// [`write()`], appending to `out`: a caller that converts many files can give the same buffer
/// (cleared) for each, whose pages are then touched once instead of once per file. On an error,
/// what was appended is left in `out`.
pub fn write_to(doc: &PackfileDocument, options: WriteOptions, out: &mut String) -> Result<()> {
    // About eleven bytes of text per byte of `__data__` (the corpus's all-typed packfiles: 405 MB
    // of XML for 37 MB), reserved at once: growing by doubling copies and touches every page
    // twice.
    let size = doc.file.sections.get(doc.data_index).map_or(0, |s| s.body_len());
    out.reserve(12 * size + 4096);
    let mut w = XmlWriter { doc, out, floats: options.floats, names: Vec::new(), depth: 0, zeros: HashMap::new(), inner_refs: false, other_caps: false, other_lanes: false };
    w.document()?;
    Ok(())
}

/// Where the objects of a document read from XML go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ObjectOrder {
    /// In the order of the XML.
    #[default]
    Xml,
    /// In the order Havok's packer writes them ([`havok_order`]).
    Havok,
}

/// Options of [`read`].
#[derive(Clone, Copy, Debug)]
pub struct ReadOptions {
    /// The layout rules of the packfile the document writes ([`DEFAULT_LAYOUT`] unless given).
    /// An `hkgen:container` comment is taken only where it states this layout ([`stated_layout`]
    /// tells which it states).
    pub layout: LayoutRules,
    /// Where the objects go.
    pub order: ObjectOrder,
    /// What a pointer to a name no object has gives.
    pub dangling: Dangling,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions { layout: DEFAULT_LAYOUT, order: ObjectOrder::Xml, dangling: Dangling::Error }
    }
}

/// What the XML readers do with a pointer whose text names no object (`#0099` where no object
/// has that name; hkxlib wrote `1` for a null pointer once).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Dangling {
    /// The read fails, at the pointer's first use (line, column, object, member).
    #[default]
    Error,
    /// The pointer is read as null, and the document lists the repair, with where the name was
    /// first used, in [`PackfileDocument::repairs`]: for a file known to be broken, explicitly.
    Null,
}

/// Reads `<hkpackfile>` XML into a document whose packfile (header, `__classnames__`, empty
/// `__types__`, `__data__`, as Havok's packer writes them for the XML's classversion) is laid
/// out under `options.layout`, through the classes of `sources` (see the module documentation
/// for which one describes a class). `__classnames__` lists `hkClass`, `hkClassMember`,
/// `hkClassEnum` and `hkClassEnumItem` (where a source has their signatures), then each class
/// where its first object is.
pub fn read(bytes: &[u8], sources: &[&dyn ClassSource], options: ReadOptions) -> Result<PackfileDocument> {
    read_with(bytes, |_| sources.to_vec(), options)
}

/// [`read`] with the class sources chosen from the XML's `contentsversion` (`hk_2010.2.0-r1`),
/// which `sources_for` is given.
pub fn read_with<'s>(bytes: &[u8], sources_for: impl FnOnce(&str) -> Vec<&'s dyn ClassSource>, options: ReadOptions) -> Result<PackfileDocument> {
    let rules = options.layout;
    match xml_form(bytes) {
        Some(XmlForm::Packfile) => {}
        Some(XmlForm::Tagfile) => return Err(ValueError::new(ErrorKind::Invalid("hktagfile XML: a tagfile, read by tagfile::xml::read".into())).into()),
        None => return Err(ValueError::invalid(0, "not Havok XML: the first element is neither <hkpackfile> nor <hktagfile>").into()),
    }
    let latin1: String;
    let (text, control) = match utf8_text(bytes) {
        Ok(t) => t,
        // Not UTF-8: each byte is one character (Latin-1), as the strings map back.
        Err(_) => {
            latin1 = bytes.iter().map(|&b| char::from(b)).collect();
            (latin1.as_str(), control_char(latin1.as_bytes()))
        }
    };
    let mut pull = Pull::scanned(text, control)?;
    // Before the root element: declarations, comments, processing instructions, white space.
    let (root_pos, root) = loop {
        match pull.next()? {
            (p, Ev::Open(s)) => break (p, s),
            (_, Ev::Comment(_)) => {}
            (_, Ev::Text(t, Txt::Refs | Txt::Plain)) if t.trim_ascii().is_empty() => {}
            (p, Ev::Eof) => return Err(located(&text, p, None, "XML: no root element").into()),
            (p, _) => return Err(located(&text, p, None, "XML: text before the root element").into()),
        }
    };
    let tag = pull.tag(&root);
    if tag != "hkpackfile" {
        return Err(located(&text, root_pos, None, format!("<{tag}> where <hkpackfile> belongs")).into());
    }
    let [contents] = pull.attrs(&root, root_pos, ["contentsversion"])?;
    let sources = sources_for(contents.as_deref().unwrap_or_default());
    let reader = XmlReader {
        pull,
        sources,
        rules,
        classes: ClassSet::default(),
        chosen: FxMap::default(),
        names: RefCell::default(),
        slots: RefCell::default(),
        members: FxMap::default(),
        last_members: None,
        note_budget: bytes.len(),
        section_refs: false,
        array_flags: super::objects::DONT_DEALLOCATE,
        dangling: options.dangling,
        object: Cow::Borrowed(""),
        path: Vec::new(),
        list: Cow::Borrowed(""),
        list_at: 0,
        group: (0, 0),
        note: None,
    };
    reader.document(root_pos, &root, options.order)
}

// ---------------------------------------------------------------------------------------------
// Writing

struct XmlWriter<'d, 'o> {
    doc: &'d PackfileDocument,
    out: &'o mut String,
    floats: FloatForm,
    names: Vec<String>,
    /// The indentation of the members being written.
    depth: usize,
    /// Per `SERIALIZE_IGNORED` member (by address): its zero value, which it is written as a
    /// comment for.
    zeros: HashMap<*const Member, Option<MemberValue>>,
    /// Whether the object being written holds a pointer into an object or another section,
    /// which its note then lists ([`XmlWriter::object_note`]).
    inner_refs: bool,
    /// Whether the object being written holds an hkArray whose capacity word is not
    /// `len | `[`PackfileDocument::array_flags`], which its note then lists.
    other_caps: bool,
    /// Whether the object being written holds a group Havok writes three numbers of whose
    /// fourth is not the word Havok's packer puts there, which its note then lists.
    other_lanes: bool,
}

/// The members of `class` with its ancestors' first (the hidden bytes after a hidden class's own).
/// The names of `class`'s members in `source` (its ancestors' first, as [`members_of`] gives them
/// once copied), without copying it: `None` where it or an ancestor is missing or the chain is
/// too long.
fn member_names(source: &dyn ClassSource, class: &str) -> Option<Vec<String>> {
    let mut chain = Vec::new();
    let mut next = Some(source.class(class)?);
    while let Some(c) = next {
        if chain.len() > 64 {
            return None;
        }
        next = match c.parent.as_deref() {
            Some(p) => Some(source.class(p)?),
            None => None,
        };
        chain.push(c);
    }
    let mut names = Vec::new();
    for c in chain.iter().rev() {
        names.extend(c.members.iter().map(|m| m.name.clone()));
        if c.hidden_members {
            names.push(HIDDEN.to_owned());
        }
    }
    Some(names)
}

fn members_of<'c>(classes: &'c ClassSet, class: &str) -> Vec<&'c Member> {
    super::objects::members_in(classes, class).collect()
}

fn indent(out: &mut String, n: usize) {
    const TABS: &str = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";
    let mut n = n;
    while n > 0 {
        let k = n.min(TABS.len());
        out.push_str(&TABS[..k]);
        n -= k;
    }
}

/// The word Havok drops from group `k` of a matrix type where it writes three numbers: 1 for
/// the translation of an `hkTransform` (its fourth group), 0 elsewhere.
fn dropped_w(ty: MemberType, k: usize) -> f32 {
    if ty == MemberType::Transform && k == 3 {
        1.0
    } else {
        0.0
    }
}

/// Group lengths Havok writes for the floats of a matrix type (each group holds four floats).
fn groups(ty: MemberType) -> &'static [usize] {
    match ty {
        MemberType::Matrix3 | MemberType::Rotation => &[3, 3, 3],
        MemberType::QsTransform => &[3, 4, 3],
        MemberType::Transform => &[3, 3, 3, 3],
        _ => &[4, 4, 4, 4],
    }
}

/// Calls `f` with the fourth word of each group of the object's values that Havok writes three
/// numbers of (a matrix's columns, an `hkQsTransform`'s translation and scale), and the word
/// Havok's packer puts there ([`dropped_w`]): depth first in member order, array elements in
/// turn, the groups of a value in order. The `lanes=` of an `hkgen:object` note count these.
fn each_lane(classes: &ClassSet, class: &str, values: &[MemberValue], depth: usize, f: &mut dyn FnMut(f32, f32)) {
    if depth > MAX_DEPTH {
        return;
    }
    for (m, v) in super::objects::members_in(classes, class).zip(values) {
        lanes_in(classes, m, m.ty, v, depth, f);
    }
}

fn lanes_in(classes: &ClassSet, m: &Member, ty: MemberType, v: &MemberValue, depth: usize, f: &mut dyn FnMut(f32, f32)) {
    match v {
        // (A typed array holds no matrices.)
        MemberValue::Array(a) => a.values().unwrap_or_default().iter().for_each(|x| lanes_in(classes, m, m.subtype, x, depth + 1, f)),
        MemberValue::RelArray(items) => items.iter().for_each(|x| lanes_in(classes, m, m.subtype, x, depth + 1, f)),
        MemberValue::CArray(items) => items.iter().for_each(|x| lanes_in(classes, m, ty, x, depth + 1, f)),
        MemberValue::Struct(vs) => {
            if let Some(c) = m.class.as_deref() {
                each_lane(classes, c, vs, depth + 1, f);
            }
        }
        MemberValue::Floats(x) if x.len() == 4 * groups(ty).len() => {
            for (k, &n) in groups(ty).iter().enumerate() {
                if n == 3 {
                    f(x[4 * k + 3], dropped_w(ty, k));
                }
            }
        }
        _ => {}
    }
}

/// [`each_lane`], to set the words.
fn each_lane_mut(classes: &ClassSet, class: &str, values: &mut [MemberValue], depth: usize, f: &mut dyn FnMut(&mut f32)) {
    if depth > MAX_DEPTH {
        return;
    }
    for (m, v) in super::objects::members_in(classes, class).zip(values) {
        lanes_in_mut(classes, m, m.ty, v, depth, f);
    }
}

fn lanes_in_mut(classes: &ClassSet, m: &Member, ty: MemberType, v: &mut MemberValue, depth: usize, f: &mut dyn FnMut(&mut f32)) {
    match v {
        MemberValue::Array(MemberArray { items: Items::Values(items), .. }) | MemberValue::RelArray(items) => items.iter_mut().for_each(|x| lanes_in_mut(classes, m, m.subtype, x, depth + 1, f)),
        MemberValue::CArray(items) => items.iter_mut().for_each(|x| lanes_in_mut(classes, m, ty, x, depth + 1, f)),
        MemberValue::Struct(vs) => {
            if let Some(c) = m.class.as_deref() {
                each_lane_mut(classes, c, vs, depth + 1, f);
            }
        }
        MemberValue::Floats(x) if x.len() == 4 * groups(ty).len() => {
            for (k, &n) in groups(ty).iter().enumerate() {
                if n == 3 {
                    f(&mut x[4 * k + 3]);
                }
            }
        }
        _ => {}
    }
}

fn escape_text(out: &mut String, bytes: &[u8], path: &Path<'_>) -> Result<(), ValueError> {
    for &b in bytes {
        match b {
            b'&' => out.push_str("&amp;"),
            b'<' => out.push_str("&lt;"),
            b'>' => out.push_str("&gt;"),
            b'"' => out.push_str("&quot;"),
            b'\t' | b'\n' | b'\r' => write!(out, "&#{b};").unwrap(),
            0..0x20 => return Err(ValueError::new(ErrorKind::Invalid(format!("{path}: the string holds byte {b:#04x}, which XML 1.0 cannot hold")))),
            0x80.. => write!(out, "&#{b};").unwrap(),
            _ => out.push(char::from(b)),
        }
    }
    Ok(())
}

impl<'d> XmlWriter<'d, '_> {
    fn int(&mut self, i: impl itoa::Integer) {
        self.out.push_str(itoa::Buffer::new().format(i));
    }

    fn float(&mut self, x: f32) {
        match self.floats {
            FloatForm::Havok => havok_float(self.out, x),
            FloatForm::Shortest if x.is_nan() && x.to_bits() != f32::NAN.to_bits() => write!(self.out, "{:#010x}", x.to_bits()).unwrap(),
            FloatForm::Shortest => self.out.push_str(ryu::Buffer::new().format(x)),
        }
    }

    fn document(&mut self) -> Result<(), ValueError> {
        let doc = self.doc;
        let width = doc.objects.len().to_string().len().max(4);
        self.names = (0..doc.objects.len()).map(|i| format!("#{:0width$}", i + 1)).collect();
        // The classversion is the packfile's file version (7 for 2010.1, 8 for 2010.2, ...).
        let classversion = doc.file.header.file_version;
        let contents = doc.file.contents_version();
        write!(self.out, "<?xml version=\"1.0\" encoding=\"ascii\"?>\n<hkpackfile classversion=\"{classversion}\" contentsversion=\"").unwrap();
        escape_text(self.out, contents.as_bytes(), &Path::Root("contentsversion"))?;
        self.out.push('"');
        if let Some(r) = doc.root {
            write!(self.out, " toplevelobject=\"{}\"", self.names[r.0 as usize]).unwrap();
        }
        self.out.push_str(">\n");
        // A container other than the stock one for these objects: kept whole in a comment.
        let classes: Vec<(&str, u32)> = doc.objects.iter().map(|o| (o.class.as_str(), doc.file.class_names().at_offset(o.class_ref.1).map_or(0, |c| c.signature))).collect();
        let (stock, stock_refs) = stock_container(classversion, &contents, doc.layout(), &classes, doc.root);
        let own = container_of(doc);
        let stock_refs_differ = doc.objects.iter().zip(&stock_refs).any(|(o, r)| o.class_ref != *r);
        if self.floats == FloatForm::Shortest && (own != stock || stock_refs_differ || doc.layout() != DEFAULT_LAYOUT) {
            let bytes = own.to_bytes().map_err(|e| ValueError::new(ErrorKind::Invalid(format!("the container: {e}"))))?;
            self.out.push_str("\n\t<!-- ");
            self.out.push_str(CONTAINER_NOTE);
            self.out.push(' ');
            to_hex(self.out, &bytes);
            self.out.push_str(" -->\n");
        }
        if self.floats == FloatForm::Shortest && doc.array_flags != stock_array_flags(&contents) {
            write!(self.out, "\n\t<!-- {ARRAYS_NOTE} flags={:#x} -->\n", doc.array_flags).unwrap();
        }
        self.out.push_str("\n\t<hksection name=\"__data__\">\n\n");
        let names = doc.file.class_names();
        let mut walk = PackOut::new(&doc.classes);
        for (i, o) in doc.objects.iter().enumerate() {
            let Body::Typed(values) = &o.body else {
                return Err(ValueError::new(ErrorKind::Invalid(format!(
                    "object {i} ({}) is kept as raw bytes (no class description): it has no XML form",
                    o.class
                ))));
            };
            write!(self.out, "\t\t<hkobject name=\"{}\" class=\"{}\"", self.names[i], o.class).unwrap();
            if let Some(c) = names.at_offset(o.class_ref.1) {
                write!(self.out, " signature=\"{:#x}\"", c.signature).unwrap();
            }
            self.out.push_str(">\n");
            // The note comes first, but what it lists is known once the members are written:
            // it is put in front of them then (rare: most objects have none).
            let note_at = self.out.len();
            self.inner_refs = false;
            self.other_caps = false;
            self.other_lanes = false;
            let root = format!("object {} ({})", self.names[i], o.class);
            self.depth = 3;
            walk.object(self, &o.class, values, &Path::Root(&root))?;
            if self.floats == FloatForm::Shortest {
                let note = self.object_note(o, values);
                self.out.insert_str(note_at, &note);
            }
            self.out.push_str("\t\t</hkobject>\n\n");
        }
        self.out.push_str("\t</hksection>\n\n</hkpackfile>\n");
        Ok(())
    }

    /// What the object's XML has no place for, as a comment line (empty when there is
    /// nothing): the 8-byte array alignment, the kept bytes, pointers into other sections or into
    /// objects (looked for only where writing the members met one), hkArray capacity words other
    /// than `len | ` the document's flags (looked for only where writing met one).
    fn object_note(&self, o: &Object, values: &[MemberValue]) -> String {
        let mut note = String::new();
        if o.array_align == ArrayAlign::Eight {
            note.push_str(" align=8");
        }
        let pairs = |note: &mut String, key: &str, pairs: &[(u32, u32)]| {
            if !pairs.is_empty() {
                write!(note, " {key}=").unwrap();
                for (k, (a, b)) in pairs.iter().enumerate() {
                    write!(note, "{}{a}:{b}", if k > 0 { "," } else { "" }).unwrap();
                }
            }
        };
        pairs(&mut note, "places", &o.kept.places);
        pairs(&mut note, "end", o.kept.end.as_slice());
        if !o.kept.padding.is_empty() {
            note.push_str(" padding=");
            for (k, (at, bytes)) in o.kept.padding.iter().enumerate() {
                write!(note, "{}{at}:", if k > 0 { "," } else { "" }).unwrap();
                to_hex(&mut note, bytes);
            }
        }
        let mut targets = Vec::new();
        let mut k = 0usize;
        values.iter().filter(|_| self.inner_refs).for_each(|v| {
            refs(v, &mut |r| {
                match r {
                    Ref::Section(s, off) => targets.push(format!("{k}:s{s}+{off}")),
                    Ref::Inside(h, off) => targets.push(format!("{k}:{}+{off}", self.names.get(h.0 as usize).map_or("?", String::as_str))),
                    _ => {}
                }
                k += 1;
            })
        });
        if !targets.is_empty() {
            write!(note, " refs={}", targets.join(",")).unwrap();
        }
        if self.other_caps {
            let mut caps = Vec::new();
            let mut k = 0usize;
            each_hk_array(&self.doc.classes, &o.class, values, 0, &mut |a| {
                if a.capacity != a.items.len() as u32 | self.doc.array_flags {
                    caps.push(format!("{k}:{:#x}", a.capacity));
                }
                k += 1;
                true
            });
            write!(note, " caps={}", caps.join(",")).unwrap();
        }
        if self.other_lanes {
            let mut lanes = Vec::new();
            let mut k = 0usize;
            each_lane(&self.doc.classes, &o.class, values, 0, &mut |w, stock| {
                if w.to_bits() != stock.to_bits() {
                    lanes.push(format!("{k}:{:#x}", w.to_bits()));
                }
                k += 1;
            });
            write!(note, " lanes={}", lanes.join(",")).unwrap();
        }
        if note.is_empty() {
            return note;
        }
        let mut line = String::new();
        indent(&mut line, 3);
        writeln!(line, "<!-- {OBJECT_NOTE}{note} -->").unwrap();
        line
    }

    /// Whether `v` is member `m`'s zero value ([`zero_value`], made once per member).
    fn is_zero(&mut self, m: &Member, v: &MemberValue) -> bool {
        let classes = &self.doc.classes;
        let flags = self.doc.array_flags;
        let zero = self.zeros.entry(m as *const Member).or_insert_with(|| zero_value(classes, m, m.ty, 0, flags).ok());
        zero.as_ref() == Some(v)
    }

    fn group(&mut self, f: &[f32], n: usize) {
        self.out.push('(');
        for (k, &x) in f[..n].iter().enumerate() {
            if k > 0 {
                self.out.push(' ');
            }
            self.float(x);
        }
        self.out.push(')');
    }
}

/// The XML's spelling of the values the walk out ([`PackOut`]) gives: `self.depth` is the
/// indentation of the members being written.
impl PackSink for XmlWriter<'_, '_> {
    #[inline(always)]
    fn member(&mut self, m: &Member, v: &MemberValue, _: &Path<'_>) -> Result<bool, ValueError> {
        if m.ty == MemberType::Void && m.name != HIDDEN {
            return Ok(false);
        }
        if m.flags & member_flags::SERIALIZE_IGNORED != 0 && (self.floats == FloatForm::Havok || self.is_zero(m, v)) {
            indent(self.out, self.depth);
            writeln!(self.out, "<!-- {} SERIALIZE_IGNORED -->", m.name).unwrap();
            return Ok(false);
        }
        indent(self.out, self.depth);
        self.out.push_str("<hkparam name=\"");
        self.out.push_str(&m.name);
        self.out.push('"');
        Ok(true)
    }

    #[inline(always)]
    fn open(&mut self, held: Held) {
        match held {
            Held::One | Held::Hidden => self.out.push('>'),
            Held::Struct => self.out.push_str(">\n"),
            Held::Array { len, capacity, .. } => {
                self.other_caps |= capacity.is_some_and(|c| c != len as u32 | self.doc.array_flags);
                self.out.push_str(" numelements=\"");
                self.int(len);
                self.out.push_str("\">");
            }
            Held::CArray { .. } => self.out.push('>'),
        }
        if let Held::Array { len: 1.., .. } | Held::CArray { len: 1.., .. } = held {
            self.out.push('\n');
        }
    }

    #[inline(always)]
    fn close(&mut self, held: Held) {
        if let Held::Struct | Held::Array { len: 1.., .. } | Held::CArray { len: 1.., .. } = held {
            indent(self.out, self.depth);
        }
        self.out.push_str("</hkparam>\n");
    }

    #[inline(always)]
    fn element(&mut self, i: usize, _: usize, elem: Elem) {
        match elem {
            Elem::Struct => {}
            Elem::String => {
                indent(self.out, self.depth + 1);
                self.out.push_str("<hkcstring>");
            }
            Elem::Reals => indent(self.out, self.depth + 1),
            Elem::Scalar if i % SCALARS_PER_LINE == 0 => indent(self.out, self.depth + 1),
            Elem::Scalar => self.out.push(' '),
        }
    }

    #[inline(always)]
    fn element_end(&mut self, i: usize, len: usize, elem: Elem) {
        match elem {
            Elem::Struct => {}
            Elem::String => self.out.push_str("</hkcstring>\n"),
            Elem::Reals => self.out.push('\n'),
            Elem::Scalar if (i + 1) % SCALARS_PER_LINE == 0 || i + 1 == len => self.out.push('\n'),
            Elem::Scalar => {}
        }
    }

    #[inline(always)]
    fn record(&mut self, _: &str) {
        indent(self.out, self.depth + 1);
        self.out.push_str("<hkobject>\n");
        self.depth += 2;
    }

    #[inline(always)]
    fn record_end(&mut self) {
        self.depth -= 2;
        indent(self.out, self.depth + 1);
        self.out.push_str("</hkobject>\n");
    }

    #[inline]
    fn void(&mut self) {}

    #[inline(always)]
    fn bool(&mut self, b: u8) {
        match b {
            0 => self.out.push_str("false"),
            1 => self.out.push_str("true"),
            _ => self.int(b),
        }
    }

    #[inline(always)]
    fn int(&mut self, i: i64) {
        self.out.push_str(itoa::Buffer::new().format(i));
    }

    #[inline(always)]
    fn uint(&mut self, u: u64) {
        self.out.push_str(itoa::Buffer::new().format(u));
    }

    #[inline]
    fn enumeration(&mut self, n: Int, e: EnumOf<'_>) {
        let n = match n {
            Int::Signed(i) => i,
            Int::Unsigned(u) => u as i64,
        };
        match e.items.and_then(|items| enum_text(items, n, e.flags)) {
            Some(t) => self.out.push_str(&t),
            None => self.out.push_str(itoa::Buffer::new().format(n)),
        }
    }

    #[inline(always)]
    fn real(&mut self, x: f32) {
        self.float(x);
    }

    #[inline]
    fn reals(&mut self, ty: MemberType, f: &[f32]) {
        if let MemberType::Vector4 | MemberType::Quaternion = ty {
            return self.group(f, 4);
        }
        for (k, &n) in groups(ty).iter().enumerate() {
            let q = &f[4 * k..4 * k + 4];
            // The number of values Havok writes; a fourth word that is not the packer's goes in
            // the object's note (`lanes=`).
            self.other_lanes |= n == 3 && q[3].to_bits() != dropped_w(ty, k).to_bits();
            self.group(q, n);
        }
    }

    #[inline]
    fn pointer(&mut self, r: &Ref, path: &Path<'_>) -> Result<(), ValueError> {
        match r {
            Ref::Null => self.out.push_str("null"),
            Ref::Object(h) => {
                let name = self.names.get(h.0 as usize).ok_or_else(|| ValueError::new(ErrorKind::Invalid(format!("{path}: pointer to object {} of {}", h.0, self.names.len()))))?;
                self.out.push_str(name);
            }
            // Havok's XML has no form for these: `null`, and the object's note gives the target.
            Ref::Inside(..) | Ref::Section(..) => {
                self.inner_refs = true;
                self.out.push_str("null");
            }
        }
        Ok(())
    }

    #[inline]
    fn variant(&mut self, object: &Ref, class: &Ref, path: &Path<'_>) -> Result<(), ValueError> {
        self.out.push('(');
        self.pointer(object, path)?;
        self.out.push(' ');
        self.pointer(class, path)?;
        self.out.push(')');
        Ok(())
    }

    #[inline]
    fn string(&mut self, s: Option<&[u8]>, path: &Path<'_>) -> Result<(), ValueError> {
        match s {
            Some(s) => escape_text(self.out, s, path),
            None => {
                self.out.push_str(NULL_STRING);
                Ok(())
            }
        }
    }

    #[inline]
    fn hidden(&mut self, bytes: &[u8]) {
        to_hex(self.out, bytes);
    }

    /// Integers, reals, halves, bools and pointers 16 a line in one loop each (the element kind
    /// matched once per array); enums and variants element by element.
    fn scalars(&mut self, classes: &ClassSet, m: &Member, ty: MemberType, items: ItemSlice<'_>, path: &Path<'_>) -> Result<(), ValueError> {
        use MemberType as T;
        use MemberValue as V;
        let is_int = matches!(ty, T::Char | T::Int8 | T::Int16 | T::Int32 | T::Int64 | T::Uint8 | T::Uint16 | T::Uint32 | T::Uint64 | T::Ulong | T::Zero);
        // Typed elements (an array of numbers): no element to check.
        match items {
            ItemSlice::Ints(v) if is_int => return self.rows(v, path, |w, i, _| Ok(w.int(*i))),
            ItemSlice::UInts(v) if is_int => return self.rows(v, path, |w, u, _| Ok(w.int(*u))),
            ItemSlice::Reals(v) if ty == T::Real => return self.rows(v, path, |w, x, _| Ok(w.float(*x))),
            ItemSlice::Values(_) => {}
            // Another form (not of the member's type: each is refused at its place).
            _ => return each_scalar(self, classes, m, ty, items, path),
        }
        let ItemSlice::Values(items) = items else { return Ok(()) };
        let name = || ty.sdk_name();
        match ty {
            _ if is_int => self.rows(items, path, |w, v, at| {
                match v {
                    V::Int(i) => w.int(*i),
                    V::UInt(u) => w.int(*u),
                    _ => return Err(wrong(at, name().as_str(), v)),
                }
                Ok(())
            }),
            T::Real => self.rows(items, path, |w, v, at| if let V::Real(x) = v { w.float(*x); Ok(()) } else { Err(wrong(at, name().as_str(), v)) }),
            T::Half => self.rows(items, path, |w, v, at| if let V::Half(h) = v { w.float(half_to_f32(*h)); Ok(()) } else { Err(wrong(at, name().as_str(), v)) }),
            T::Bool => self.rows(items, path, |w, v, at| if let V::Bool(b) = v { PackSink::bool(w, *b); Ok(()) } else { Err(wrong(at, name().as_str(), v)) }),
            T::Pointer | T::FunctionPointer => self.rows(items, path, |w, v, at| if let V::Ptr(r) = v { w.pointer(r, at) } else { Err(wrong(at, name().as_str(), v)) }),
            _ => each_scalar(self, classes, m, ty, items.into(), path),
        }
    }
}

impl XmlWriter<'_, '_> {
    /// `items` [`SCALARS_PER_LINE`] a line, each by `one` (which refuses a value not of the
    /// array's type, an error at its index).
    #[inline(always)]
    fn rows<T>(&mut self, items: &[T], path: &Path<'_>, mut one: impl FnMut(&mut Self, &T, &Path<'_>) -> Result<(), ValueError>) -> Result<(), ValueError> {
        for (row, chunk) in items.chunks(SCALARS_PER_LINE).enumerate() {
            indent(self.out, self.depth + 1);
            for (k, v) in chunk.iter().enumerate() {
                if k > 0 {
                    self.out.push(' ');
                }
                let at = Path::Index(path, row * SCALARS_PER_LINE + k);
                one(self, v, &at)?;
            }
            self.out.push('\n');
        }
        Ok(())
    }
}

/// How many numbers of an array Havok writes on a line (a vector or matrix has a line of its own).
const SCALARS_PER_LINE: usize = 16;

/// `x` as Havok's writer prints it: `%f` of the MSVC runtime Havok's tools were built with, six
/// decimals and at most 17 significant digits, zeros after them (`18446726481523507000.000000`
/// for 2^64 - 2^44, where the exact value ends in `7200`).
fn havok_float(out: &mut String, x: f32) {
    let start = out.len();
    write!(out, "{x:.6}").unwrap();
    let digits_end = out[start..].find('.').map_or(out.len(), |d| start + d);
    let first = start + usize::from(out[start..].starts_with('-'));
    let n = digits_end - first;
    if n <= 17 {
        return;
    }
    // Round at the 17th digit (the exact tail decides), then zeros.
    let mut digits: Vec<u8> = out[first..digits_end].bytes().collect();
    let up = digits[17] > b'5' || (digits[17] == b'5' && digits[18..].iter().any(|&d| d != b'0')) || (digits[17] == b'5' && digits[16] % 2 == 1);
    digits[17..].iter_mut().for_each(|d| *d = b'0');
    let mut carry = up;
    for d in digits[..17].iter_mut().rev() {
        if !carry {
            break;
        }
        if *d == b'9' {
            *d = b'0';
        } else {
            *d += 1;
            carry = false;
        }
    }
    if carry {
        digits.insert(0, b'1');
    }
    // A float's fraction is zero this far from zero.
    out.truncate(first);
    digits.iter().for_each(|&d| out.push(char::from(d)));
    out.push_str(".000000");
}

/// An enum value by item name (`None` where no item has it: the number is written); flags as
/// Havok's writer and serde-hkx write them: the names of the named bits (items of one or more
/// bits, in the enum's order) joined by `|`, then the bits no item names as one number
/// (`FLAG_RAGDOLL|FLAG_NOT_VARIABLE|4096`), so that no bit is lost; no bits is `0`.
fn enum_text(items: &[(i64, String)], n: i64, flags: bool) -> Option<Cow<'_, str>> {
    if !flags {
        return items.iter().find(|(v, _)| *v == n).map(|(_, name)| Cow::Borrowed(name.as_str()));
    }
    if n == 0 {
        return None;
    }
    let mut rest = n;
    let mut parts: Vec<Cow<'_, str>> = Vec::new();
    for (v, name) in items {
        if *v != 0 && rest & v == *v {
            parts.push(Cow::Borrowed(name.as_str()));
            rest &= !v;
        }
    }
    if parts.is_empty() {
        return None;
    }
    if rest != 0 {
        parts.push(Cow::Owned(rest.to_string()));
    }
    Some(if parts.len() == 1 { parts.pop().unwrap_or_default() } else { Cow::Owned(parts.join("|")) })
}

/// The value of a member no parameter gives (and of a `SERIALIZE_IGNORED` one): zeros, null,
/// empty (an hkArray's capacity word: `array_flags`, the document's).
fn zero_value(classes: &ClassSet, m: &Member, ty: MemberType, nest: usize, array_flags: u32) -> Result<MemberValue, String> {
    if m.c_array_size > 0 {
        let one = zero_value(classes, &Member { c_array_size: 0, ..m.clone() }, ty, nest, array_flags)?;
        return Ok(MemberValue::CArray(vec![one; m.c_array_size as usize]));
    }
    zero_one(classes, m, ty, nest, array_flags)
}

/// [`zero_value`] of one value (of a C array's element).
fn zero_one(classes: &ClassSet, m: &Member, ty: MemberType, nest: usize, array_flags: u32) -> Result<MemberValue, String> {
    if nest > MAX_DEPTH {
        return Err(format!("{}: structs nested more than {MAX_DEPTH} deep", m.name));
    }
    Ok(match ty {
        MemberType::Void => MemberValue::Void,
        MemberType::Bool => MemberValue::Bool(0),
        MemberType::Char | MemberType::Int8 | MemberType::Int16 | MemberType::Int32 | MemberType::Int64 => MemberValue::Int(0),
        MemberType::Uint8 | MemberType::Uint16 | MemberType::Uint32 | MemberType::Uint64 | MemberType::Ulong => MemberValue::UInt(0),
        MemberType::Real => MemberValue::Real(0.0),
        MemberType::Half => MemberValue::Half(0),
        MemberType::Vector4 | MemberType::Quaternion => MemberValue::Vec4([0.0; 4]),
        MemberType::Matrix3 | MemberType::Rotation | MemberType::QsTransform => MemberValue::Floats(vec![0.0; 12]),
        MemberType::Matrix4 | MemberType::Transform => MemberValue::Floats(vec![0.0; 16]),
        MemberType::Enum | MemberType::Flags | MemberType::Zero => {
            if m.subtype == ty || m.subtype == MemberType::Void {
                return Err(format!("{}: an enum without a storage type", m.name));
            }
            zero_one(classes, m, m.subtype, nest + 1, array_flags)?
        }
        MemberType::Pointer | MemberType::FunctionPointer => MemberValue::Ptr(Ref::Null),
        MemberType::Variant => MemberValue::Variant(Ref::Null, Ref::Null),
        MemberType::CString | MemberType::StringPtr => MemberValue::Str(None),
        MemberType::Array | MemberType::SimpleArray => {
            MemberValue::Array(MemberArray { items: super::objects::typed_items(m, m.subtype, 0), capacity: if ty == MemberType::Array { array_flags } else { 0 } })
        }
        MemberType::RelArray => MemberValue::RelArray(Vec::new()),
        MemberType::Struct => {
            let c = m.class.as_deref().ok_or_else(|| format!("{}: a struct member without a class", m.name))?;
            let mut out = Vec::new();
            for f in members_of(classes, c) {
                out.push(if f.name == HIDDEN { MemberValue::Opaque(Vec::new()) } else { zero_value(classes, f, f.ty, nest + 1, array_flags)? });
            }
            MemberValue::Struct(out)
        }
        MemberType::InplaceArray | MemberType::HomogeneousArray => return Err(format!("{}: {} has no value", m.name, ty.sdk_name())),
    })
}

/// A float as `TYPE_HALF` bits: its upper 16 bits (exact for every value [`half_to_f32`] gives).
fn f32_to_half(x: f32) -> u16 {
    (x.to_bits() >> 16) as u16
}

/// The signatures of `hkClass`, `hkClassMember`, `hkClassEnum` and `hkClassEnumItem` that
/// Havok's packer lists first in `__classnames__`, by file version (as the corpus's packfiles
/// store them: 5.5; 6.6, 7.1 and 2010.1; 2010.2 and 2011; 2012.2 to 2014.2).
pub(crate) fn meta_signatures(file_version: u32) -> [u32; 4] {
    let (class, member) = match file_version {
        ..=5 => (0x3877_1f8e, 0xa524_0f57),
        6 | 7 => (0x1442_5e51, 0x4a98_6551),
        8 => (0x7558_5ef6, 0x5c7e_a4c2),
        _ => (0x33d4_2383, 0xb0ef_a719),
    };
    [class, member, 0x8a36_09cf, 0xce6f_8a6c]
}

/// Whether a value may hold a pointer: the elements of an array are of one type, so an array
/// whose first element cannot holds none.
fn may_hold_refs(v: &MemberValue) -> bool {
    matches!(v, MemberValue::Ptr(_) | MemberValue::Variant(..) | MemberValue::Array(_) | MemberValue::Struct(_) | MemberValue::CArray(_) | MemberValue::RelArray(_))
}

/// Every pointer of `v`, depth first in member order.
fn refs(v: &MemberValue, f: &mut impl FnMut(&Ref)) {
    match v {
        MemberValue::Ptr(r) => f(r),
        MemberValue::Variant(a, b) => {
            f(a);
            f(b);
        }
        MemberValue::Struct(items) => items.iter().for_each(|v| refs(v, f)),
        // (A typed array holds numbers, no pointer.)
        MemberValue::Array(MemberArray { items: Items::Values(items), .. }) | MemberValue::CArray(items) | MemberValue::RelArray(items) if items.first().is_some_and(may_hold_refs) => {
            items.iter().for_each(|v| refs(v, f));
        }
        _ => {}
    }
}

/// [`refs`], to change them.
fn refs_mut(v: &mut MemberValue, f: &mut impl FnMut(&mut Ref)) {
    match v {
        MemberValue::Ptr(r) => f(r),
        MemberValue::Variant(a, b) => {
            f(a);
            f(b);
        }
        MemberValue::Struct(items) => items.iter_mut().for_each(|v| refs_mut(v, f)),
        MemberValue::Array(MemberArray { items: Items::Values(items), .. }) | MemberValue::CArray(items) | MemberValue::RelArray(items) if items.first().is_some_and(may_hold_refs) => {
            items.iter_mut().for_each(|v| refs_mut(v, f));
        }
        _ => {}
    }
}

/// The object order of the binaries Havok's packer makes from XML: depth first from the root
/// object, each object's pointees in member order after it (an object once, where first met);
/// objects the root does not reach follow in document order.
pub fn havok_order(doc: &PackfileDocument) -> Vec<Handle> {
    let n = doc.objects.len();
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(n);
    // The root first, then the rest: an explicit stack, so deep chains do not recurse.
    let mut pending: Vec<Handle> = Vec::new();
    for start in doc.root.into_iter().chain((0..n as u32).map(Handle)) {
        pending.push(start);
        while let Some(h) = pending.pop() {
            let i = h.0 as usize;
            if i >= n || seen[i] {
                continue;
            }
            seen[i] = true;
            order.push(h);
            let mut next = Vec::new();
            if let Body::Typed(values) = &doc.objects[i].body {
                values.iter().for_each(|v| refs(v, &mut |r| if let Ref::Object(t) | Ref::Inside(t, _) = r { next.push(*t) }));
            }
            pending.extend(next.into_iter().rev());
        }
    }
    order
}

/// Puts the objects of `doc` in `order` (a permutation of its handles: an error otherwise), every
/// pointer and the root following them.
pub fn reorder(doc: &mut PackfileDocument, order: &[Handle]) -> Result<()> {
    let n = doc.objects.len();
    let mut check = vec![false; n];
    for h in order {
        match check.get_mut(h.0 as usize) {
            Some(c) if !*c => *c = true,
            _ => return Err(ValueError::new(ErrorKind::Invalid(format!("object order: handle {} is out of range or repeated", h.0))).into()),
        }
    }
    if order.len() != n {
        return Err(ValueError::new(ErrorKind::Invalid(format!("object order: {} handles for {n} objects", order.len()))).into());
    }
    let mut new_of = vec![0u32; n];
    for (k, h) in order.iter().enumerate() {
        new_of[h.0 as usize] = k as u32;
    }
    let mut old: Vec<Option<Object>> = std::mem::take(&mut doc.objects).into_iter().map(Some).collect();
    doc.objects = order.iter().filter_map(|h| old.get_mut(h.0 as usize).and_then(Option::take)).collect();
    let map = |r: &mut Ref| match r {
        Ref::Object(h) => *h = Handle(new_of[h.0 as usize]),
        Ref::Inside(h, _) => *h = Handle(new_of[h.0 as usize]),
        _ => {}
    };
    let mut map = map;
    for o in &mut doc.objects {
        if let Body::Typed(values) = &mut o.body {
            values.iter_mut().for_each(|v| refs_mut(v, &mut map));
        }
    }
    doc.root = doc.root.map(|h| Handle(new_of[h.0 as usize]));
    Ok(())
}

/// The comment that holds the container of a packfile whose container is not the one
/// [`read`] builds (`<!-- hkgen:container HEX -->`, after `<hkpackfile>`).
const CONTAINER_NOTE: &str = "hkgen:container";

/// The comment that holds what an object's XML has no place for (`<!-- hkgen:object ... -->`,
/// first in its `<hkobject>`).
const OBJECT_NOTE: &str = "hkgen:object";

/// The comment that gives the flags of the document's hkArray capacity words where they are not
/// those of its contents version's files (`<!-- hkgen:arrays flags=0x80000000 -->`, after
/// `<hkpackfile>`, before `__data__`).
const ARRAYS_NOTE: &str = "hkgen:arrays";

/// The layout the `hkgen:container` comment of packfile XML states: the layout of the packfile
/// the XML was written from, where it was not [`DEFAULT_LAYOUT`] (see [`write()`]); `None` where
/// the XML has no such comment (or one that does not read).
pub fn stated_layout(bytes: &[u8]) -> Option<LayoutRules> {
    let head = b"<!-- hkgen:container ";
    // The comment comes before the first section.
    let before = bytes.windows(10).position(|w| w == b"<hksection").unwrap_or(bytes.len());
    let at = bytes[..before].windows(head.len()).position(|w| w == head)? + head.len();
    let len = bytes[at..].iter().position(|b| !b.is_ascii_hexdigit())?;
    let hex = std::str::from_utf8(&bytes[at..at + len]).ok()?;
    PackFile::read(&from_hex(hex)?).ok().map(|f| f.header.layout)
}

/// The header Havok's packer writes for a classversion, contents version and layout.
fn stock_header(classversion: u32, contents: &str, rules: LayoutRules) -> Header {
    let tail = if classversion >= super::raw::VERSION_11 {
        // Stock files of the corpus hold no region after the header.
        HeaderTail::Predicates { max_predicate: 21, region: Vec::new() }
    } else {
        HeaderTail::Pad([FILL; 4])
    };
    Header {
        user_tag: 0,
        file_version: classversion,
        layout: rules,
        contents_section_index: 2,
        contents_section_offset: 0,
        contents_class_name_section_index: 0,
        contents_class_name_section_offset: 0,
        contents_version: ContentsVersion::new(contents),
        flags: 0,
        tail,
    }
}

/// The container Havok's packer writes around objects of `classes` (class name and signature
/// per object, in order) with an empty `__data__`: the header, `__classnames__` (`hkClass`,
/// `hkClassMember`, `hkClassEnum` and `hkClassEnumItem`, then each class where its first object
/// is), an empty `__types__`; and each object's `(section, offset)` of its class name.
fn stock_container(classversion: u32, contents: &str, rules: LayoutRules, classes: &[(&str, u32)], root: Option<Handle>) -> (PackFile<'static>, Vec<(u32, u32)>) {
    let mut entries: Vec<ClassName> = Vec::new();
    let mut seen: HashMap<&str, ()> = HashMap::new();
    for (name, signature) in ["hkClass", "hkClassMember", "hkClassEnum", "hkClassEnumItem"].into_iter().zip(meta_signatures(classversion)) {
        seen.insert(name, ());
        entries.push(ClassName { signature, name: name.to_owned() });
    }
    for &(class, signature) in classes {
        if seen.insert(class, ()).is_none() {
            entries.push(ClassName { signature, name: class.to_owned() });
        }
    }
    let class_names = ClassNames { entries, fill: None };
    let refs: Vec<(u32, u32)> = classes.iter().map(|(c, _)| (0, class_names.offset_of(c).unwrap_or(0))).collect();
    let mut header = stock_header(classversion, contents, rules);
    header.contents_class_name_section_offset = root.and_then(|h| refs.get(h.0 as usize)).map_or(0, |r| r.1);
    let mut names_section = Section::empty(CLASSNAMES);
    names_section.body = SectionBody::ClassNames(class_names);
    (PackFile { header, sections: vec![names_section, Section::empty(TYPES), Section::empty(DATA)] }, refs)
}

/// `doc`'s container as [`stock_container`] compares it: `__data__` emptied, no root offset.
fn container_of(doc: &PackfileDocument) -> PackFile<'static> {
    let mut header = doc.file.header.clone();
    header.contents_section_offset = 0;
    let sections = doc
        .file
        .sections
        .iter()
        .enumerate()
        .map(|(i, s)| {
            if i != doc.data_index {
                return s.clone();
            }
            Section {
                name: s.name,
                body: SectionBody::Data(Cow::Borrowed(&[])),
                local: Vec::new(),
                global: Vec::new(),
                virtuals: Vec::new(),
                exports: s.exports.clone(),
                imports: s.imports.clone(),
                fill: s.fill,
                header_tail: s.header_tail,
            }
        })
        .collect();
    super::objects::owned(PackFile { header, sections })
}

fn to_hex(out: &mut String, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    out.reserve(2 * bytes.len());
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
}

fn from_hex(t: &str) -> Option<Vec<u8>> {
    let t = t.as_bytes();
    if !t.len().is_multiple_of(2) {
        return None;
    }
    let digit = |c: u8| char::from(c).to_digit(16).map(|d| d as u8);
    t.chunks_exact(2).map(|p| Some(digit(p[0])? << 4 | digit(p[1])?)).collect()
}

// ---------------------------------------------------------------------------------------------
// Reading

/// An object name as a pointer gives it, before the object is known: pointers may point forward.
#[derive(Default)]
struct Slot {
    /// The object of that name (its index), once read.
    object: Option<u32>,
    /// Where the name was first used while no object had it: the error if none ever does.
    first_use: Option<(usize, String, Option<String>, String)>,
}

struct XmlReader<'i, 's> {
    pull: Pull<'i>,
    sources: Vec<&'s dyn ClassSource>,
    rules: LayoutRules,
    classes: ClassSet,
    /// Per class name: whether it was copied into `classes` (and from which source).
    chosen: FxMap<String, usize>,
    /// Per object name, its slot: values name objects by slot (`Handle(slot)`) until the
    /// section is read, then by object. Keyed by names the text chooses: std's seeded hash, so that
    /// no text makes its lookups collide (FxHash's collisions are easy to make).
    names: RefCell<HashMap<Cow<'i, str>, u32>>,
    slots: RefCell<Vec<Slot>>,
    /// Per class: its members with its ancestors' first (once the classes are chosen).
    members: FxMap<Rc<str>, Rc<[Member]>>,
    /// The class last asked for and its members (an array of structs asks for the same class per element).
    last_members: Option<(Rc<str>, Rc<[Member]>)>,
    /// What the objects' `hkgen:object` notes may still place (the bytes of the input): each
    /// note's largest offset is taken from it, so that the kept places of a hostile note cannot
    /// make the writer allocate beyond the input's size.
    note_budget: usize,
    /// Whether a note gave a pointer into another section (checked against the container).
    section_refs: bool,
    /// The flags of the hkArray capacity words ([`PackfileDocument::array_flags`]): the contents
    /// version's, or the `hkgen:arrays` note's.
    array_flags: u32,
    dangling: Dangling,
    /// The object the walk is in, and the path of the value it is at.
    object: Cow<'i, str>,
    path: Vec<Seg<'i>>,
    /// The text of the token list being read (an array's or C array's values), where its next
    /// token starts, and the rest of the group of reals being read in it.
    list: Cow<'i, str>,
    list_at: usize,
    group: (usize, usize),
    /// The object's first `hkgen:object` comment.
    note: Option<(usize, &'i str)>,
}

/// A step of the path of a value the walk is at.
enum Seg<'i> {
    Member(Cow<'i, str>),
    Index(usize),
}

/// A path as errors spell it (`a.b[3].c`).
struct Segs<'a, 'i>(&'a [Seg<'i>]);

impl std::fmt::Display for Segs<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (k, s) in self.0.iter().enumerate() {
            match s {
                Seg::Member(n) if k == 0 => f.write_str(n)?,
                Seg::Member(n) => write!(f, ".{n}")?,
                Seg::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}

/// A value's place in the XML, as the walk in asks for it: where its element starts.
#[derive(Clone, Copy)]
enum XNode {
    /// A top-level `<hkobject>` whose start tag was read.
    Object(usize),
    /// An `<hkparam>` whose start tag was read, and its `numelements`.
    Param { p: usize, hint: Option<usize> },
    /// An `<hkobject>` element of an array of structs.
    Elem(usize),
    /// An `<hkcstring>` element of an array of strings.
    CStr(usize),
    /// The next value of the token list being read (of the `<hkparam>` at the position).
    Tok(usize),
    /// The next number of the group of reals being read.
    GroupWord(usize),
}

impl XNode {
    fn pos(&self) -> usize {
        match *self {
            XNode::Object(p) | XNode::Param { p, .. } | XNode::Elem(p) | XNode::CStr(p) | XNode::Tok(p) | XNode::GroupWord(p) => p,
        }
    }
}

/// A record being read: an `<hkobject>`'s parameters.
struct XRec<'i> {
    /// Where its `<hkobject>` starts; for a struct member, where the `<hkparam>` holding it does.
    pos: usize,
    wrapper: Option<usize>,
    /// Whether it is a top-level object (whose note is kept).
    top: bool,
    path_len: usize,
    marks: Marks,
    /// A parameter read ahead of its member: where, its member, `numelements`, name.
    pending: Option<(usize, usize, Option<usize>, Cow<'i, str>)>,
    /// Whether its end was read.
    closed: bool,
}

/// A member's value was given, or passed over as absent (it may still come late).
const GIVEN: u8 = 1;
const PASSED: u8 = 2;

/// Per member of a record: [`GIVEN`], [`PASSED`] or neither (bits where the members are few).
struct Marks {
    given: u64,
    passed: u64,
    many: Vec<u8>,
}

impl Marks {
    fn new(n: usize) -> Self {
        Marks { given: 0, passed: 0, many: if n > 64 { vec![0; n] } else { Vec::new() } }
    }

    fn get(&self, k: usize) -> u8 {
        match self.many.get(k) {
            Some(&m) => m,
            None if k < 64 => u8::from(self.given >> k & 1 != 0) * GIVEN | u8::from(self.passed >> k & 1 != 0) * PASSED,
            None => 0,
        }
    }

    fn set(&mut self, k: usize, mark: u8) {
        if let Some(m) = self.many.get_mut(k) {
            *m = mark;
        } else if k < 64 {
            self.given &= !(1 << k);
            self.passed &= !(1 << k);
            match mark {
                GIVEN => self.given |= 1 << k,
                PASSED => self.passed |= 1 << k,
                _ => {}
            }
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum SeqKind {
    /// `<hkobject>` elements.
    Objects,
    /// `<hkcstring>` elements.
    Strings,
    /// The tokens of the parameter's text.
    Tokens,
}

/// A container being read: the elements of the `<hkparam>` at `p`.
struct XSeq {
    p: usize,
    kind: SeqKind,
    ty: MemberType,
    count: Option<usize>,
    reserve: usize,
    path_len: usize,
    len: usize,
    /// Whether it is an hkArray (whose capacity word the document's flags give).
    array: bool,
}

/// Where a value is read: the object's name and the member path.
struct At<'a> {
    object: &'a str,
    path: Path<'a>,
}

/// A top-level object as read: where it and its `hkgen:object` note are.
struct ObjectAt<'i> {
    pos: usize,
    name: Cow<'i, str>,
    note: Option<(usize, &'i str)>,
}

impl<'i> XmlReader<'i, '_> {
    fn err(&self, pos: usize, at: Option<&At<'_>>, msg: impl std::fmt::Display) -> ValueError {
        let place = at.map(|a| (a.object, (!a.path.is_root()).then_some(&a.path as &dyn std::fmt::Display)));
        located(self.pull.text, pos, place, msg)
    }

    /// The slot of an object name (a new one the first time it is seen); `used` tells where
    /// and how a use before its object is reported if no object has the name.
    fn slot(&self, name: &str, used: Option<(usize, &dyn Fn() -> (String, Option<String>, String))>) -> u32 {
        let mut names = self.names.borrow_mut();
        let mut slots = self.slots.borrow_mut();
        let k = match names.get(name) {
            Some(&k) => k,
            None => {
                let k = slots.len() as u32;
                slots.push(Slot::default());
                names.insert(Cow::Owned(name.to_owned()), k);
                k
            }
        };
        let s = &mut slots[k as usize];
        if let (None, None, Some((pos, used))) = (s.object, &s.first_use, used) {
            let (object, member, msg) = used();
            s.first_use = Some((pos, object, member, msg));
        }
        k
    }

    fn document(mut self, root_pos: usize, root: &BytesStart<'_>, order: ObjectOrder) -> Result<PackfileDocument> {
        let [classversion, contents, top] = self.pull.attrs(root, root_pos, ["classversion", "contentsversion", "toplevelobject"])?;
        let classversion: u32 = match classversion {
            Some(v) => v.trim().parse().map_err(|_| self.err(root_pos, None, format!("classversion {v:?} is not a number")))?,
            None => return Err(self.err(root_pos, None, "<hkpackfile> without classversion").into()),
        };
        if !matches!(classversion, 5..=11) {
            return Err(self.err(root_pos, None, format!("classversion {classversion}: packfile XML has 5 to 11")).into());
        }
        let contents = contents.ok_or_else(|| self.err(root_pos, None, "<hkpackfile> without contentsversion"))?;
        self.array_flags = stock_array_flags(&contents);
        let mut arrays_note = false;
        let mut data = false;
        let mut container_note: Option<(usize, &'i str)> = None;
        let mut objects: Vec<ObjectAt<'i>> = Vec::new();
        let mut out: Vec<Object> = Vec::new();
        let mut signatures: HashMap<String, u32> = HashMap::new();
        loop {
            let (p, ev) = self.pull.next()?;
            match ev {
                Ev::Open(s) => {
                    let tag = self.pull.tag(&s);
                    if tag != "hksection" {
                        return Err(self.err(p, None, format!("<{tag}> where <hksection> belongs")).into());
                    }
                    let [name] = self.pull.attrs(&s, p, ["name"])?;
                    match name.as_deref() {
                        Some(DATA) if !data => data = true,
                        Some(DATA) => return Err(self.err(p, None, "a second __data__ section").into()),
                        other => return Err(self.err(p, None, format!("section {other:?}: only __data__ holds objects")).into()),
                    }
                    self.section(p, &mut objects, &mut out, &mut signatures)?;
                }
                Ev::Comment(c) => {
                    if container_note.is_none() && c.trim_start().starts_with(CONTAINER_NOTE) {
                        container_note = Some((p, c));
                    }
                    if c.trim_start().starts_with(ARRAYS_NOTE) {
                        if data || arrays_note {
                            return Err(self.err(p, None, format!("{ARRAYS_NOTE}: one note, before __data__ (it gives the arrays' words)")).into());
                        }
                        arrays_note = true;
                        let value = c.trim_start().trim_start_matches(ARRAYS_NOTE).trim().strip_prefix("flags=");
                        self.array_flags = value
                            .and_then(parse_u64)
                            .filter(|&f| f & !u64::from(ARRAY_FLAG_BITS) == 0)
                            .ok_or_else(|| self.err(p, None, format!("{ARRAYS_NOTE}: not flags=HEX of the bits {ARRAY_FLAG_BITS:#x}")))? as u32;
                    }
                }
                Ev::Text(..) => {}
                Ev::Close => break,
                Ev::Eof => return Err(self.pull.unclosed(root_pos).into()),
            }
        }
        // After the root element: comments, processing instructions and white space only.
        loop {
            match self.pull.next()? {
                (_, Ev::Eof) => break,
                (_, Ev::Comment(_)) => {}
                (_, Ev::Text(t, Txt::Refs | Txt::Plain)) if t.trim_ascii().is_empty() => {}
                (p, _) => return Err(self.err(p, None, "XML: content after the root element").into()),
            }
        }
        // Every name a pointer or note gave is an object's: slots become handles. Under
        // `Dangling::Null` a name no object has is null (a pointer) and a repair.
        let mut repairs = Vec::new();
        let mut dangling_inside = None;
        let slot_objects: Vec<Option<u32>> = {
            let slots = self.slots.borrow();
            let mut v = Vec::with_capacity(slots.len());
            for s in slots.iter() {
                match (s.object, &s.first_use) {
                    (Some(o), _) => v.push(Some(o)),
                    (None, Some((pos, object, member, msg))) => {
                        let member = member.as_ref().map(|m| m as &dyn std::fmt::Display);
                        let e = located(self.pull.text, *pos, Some((object, member)), msg);
                        if self.dangling == Dangling::Error {
                            return Err(e.into());
                        }
                        repairs.push(format!("{e}: read as null"));
                        dangling_inside.get_or_insert(e);
                        v.push(None);
                    }
                    // A slot is made for a use or for an object.
                    (None, None) => v.push(Some(0)),
                }
            }
            v
        };
        if slot_objects.iter().enumerate().any(|(k, &o)| o != Some(k as u32)) {
            // A note's pointer into an object names one that must be there.
            let mut inside_of_none = false;
            let mut map = |r: &mut Ref| match r {
                Ref::Object(h) => match slot_objects[h.0 as usize] {
                    Some(o) => *h = Handle(o),
                    None => *r = Ref::Null,
                },
                Ref::Inside(h, _) => match slot_objects[h.0 as usize] {
                    Some(o) => *h = Handle(o),
                    None => inside_of_none = true,
                },
                _ => {}
            };
            for o in &mut out {
                if let Body::Typed(values) = &mut o.body {
                    values.iter_mut().for_each(|v| refs_mut(v, &mut map));
                }
            }
            if let (true, Some(e)) = (inside_of_none, dangling_inside) {
                return Err(e.into());
            }
        }
        let root_handle = match top {
            Some(n) => {
                let k = self.names.borrow().get(&*n).copied();
                let o = k.and_then(|k| self.slots.borrow()[k as usize].object);
                Some(Handle(o.ok_or_else(|| self.err(root_pos, None, format!("toplevelobject {n:?} names no object")))?))
            }
            // The packfile's header names an object: the first, as Havok's packer writes it.
            None => (!out.is_empty()).then_some(Handle(0)),
        };
        let placeholder = PackFile { header: stock_header(classversion, &contents, self.rules), sections: Vec::new() };
        let mut doc = PackfileDocument { file: placeholder, data_index: 2, objects: out, classes: std::mem::take(&mut self.classes), root: root_handle, demoted: 0, bad_values: None, declare_from: Default::default(), array_flags: self.array_flags, repairs };
        // A note must come back from the binary: one its values do not fit would be dropped.
        if let Some(i) = doc.first_unkept().map_err(|e| self.err(root_pos, None, e))? {
            let o = &objects[i];
            let at = At { object: &o.name, path: Path::Root("") };
            let pos = o.note.map_or(o.pos, |n| n.0);
            return Err(self.err(pos, Some(&at), format!("{OBJECT_NOTE}: the note does not fit the object's values (its places, end or padding are not where writing these values puts them, or the stock layout gives them anyway); without the note the object is laid out the stock way")).into());
        }
        if order == ObjectOrder::Havok {
            let o = havok_order(&doc);
            reorder(&mut doc, &o)?;
        }
        let classes: Vec<(&str, u32)> = doc.objects.iter().map(|o| (o.class.as_str(), signatures.get(o.class.as_str()).copied().unwrap_or(0))).collect();
        let (mut file, mut class_refs) = stock_container(classversion, &contents, self.rules, &classes, doc.root);
        let mut restored = false;
        // The container the XML was written from (see `write`), where it states one for this layout.
        if let Some((n, text)) = container_note {
            let hex = text.trim_start().trim_start_matches(CONTAINER_NOTE).trim();
            let bytes = from_hex(hex).ok_or_else(|| self.err(n, None, format!("{CONTAINER_NOTE}: not hex digits")))?;
            let kept = PackFile::read(&bytes).map_err(|e| self.err(n, None, format!("{CONTAINER_NOTE}: {e}")))?;
            if kept.header.layout == self.rules && kept.header.file_version == classversion {
                let kept = super::objects::owned(kept);
                let names_at = kept.section_index(CLASSNAMES).ok_or_else(|| self.err(n, None, format!("{CONTAINER_NOTE}: no __classnames__ section")))?;
                doc.data_index = kept.section_index(DATA).ok_or_else(|| self.err(n, None, format!("{CONTAINER_NOTE}: no __data__ section")))?;
                // Every object's class must be in the kept `__classnames__`: its virtual fixup names it there.
                let names = kept.class_names();
                class_refs = doc
                    .objects
                    .iter()
                    .map(|o| {
                        let at = names.offset_of(&o.class).ok_or_else(|| self.err(n, None, format!("{CONTAINER_NOTE}: its __classnames__ has no class {}", o.class)))?;
                        Ok((names_at as u32, at))
                    })
                    .collect::<Result<_, ValueError>>()?;
                file = kept;
                restored = true;
            }
        }
        for (o, r) in doc.objects.iter_mut().zip(class_refs) {
            o.class_ref = r;
        }
        // Pointers into other sections: into the container's, within their bytes; without the
        // container they point at nothing written, and are null.
        let mut outside = None;
        for (i, o) in doc.objects.iter_mut().enumerate().filter(|_| self.section_refs) {
            let Body::Typed(values) = &mut o.body else { continue };
            values.iter_mut().for_each(|v| {
                refs_mut(v, &mut |r| {
                    if let Ref::Section(s, off) = *r {
                        let fits = s as usize != doc.data_index && file.sections.get(s as usize).is_some_and(|sec| off as usize <= sec.body_len());
                        match (fits, restored) {
                            (true, _) => {}
                            (false, false) => *r = Ref::Null,
                            (false, true) => outside = outside.or(Some((i, s, off))),
                        }
                    }
                })
            });
        }
        if let Some((i, s, off)) = outside {
            return Err(self.err(root_pos, None, format!("object {i}: a pointer to {off:#x} in section {s}, which the container does not hold")).into());
        }
        doc.file = file;
        // The document's flags are those its binary form reads with.
        doc.learn_array_flags();
        Ok(doc)
    }

    /// The objects of `__data__` (opened at `pos`), each with its class chosen, its values read
    /// and its note applied.
    fn section(&mut self, pos: usize, objects: &mut Vec<ObjectAt<'i>>, out: &mut Vec<Object>, signatures: &mut HashMap<String, u32>) -> Result<(), ValueError> {
        loop {
            let (p, ev) = self.pull.next_markup()?;
            let s = match ev {
                Ev::Open(s) => s,
                Ev::Comment(_) | Ev::Text(..) => continue,
                Ev::Close => return Ok(()),
                Ev::Eof => return Err(self.pull.unclosed(pos)),
            };
            if !Pull::is(&s, "hkobject") {
                let tag = self.pull.tag(&s);
                return Err(self.err(p, None, format!("<{tag}> where <hkobject> belongs")));
            }
            let [name, class, signature] = self.pull.attrs(&s, p, ["name", "class", "signature"])?;
            let name = name.ok_or_else(|| self.err(p, None, "a top-level <hkobject> without a name"))?;
            let k = self.slot(&name, None);
            let index = out.len() as u32;
            match &mut self.slots.get_mut()[k as usize] {
                Slot { object: Some(_), .. } => return Err(self.err(p, None, format!("a second object named {name:?}"))),
                slot => slot.object = Some(index),
            }
            let at = At { object: &name, path: Path::Root("") };
            let class = class.ok_or_else(|| self.err(p, Some(&at), "<hkobject> without a class"))?;
            let signature = match signature {
                Some(s) => Some(parse_u64(&s).filter(|&v| v <= u64::from(u32::MAX)).ok_or_else(|| self.err(p, Some(&at), format!("signature {s:?} is not a 32-bit number")))? as u32),
                None => None,
            };
            let k = self.choose(p, &at, &class, signature)?;
            if !signatures.contains_key(&*class) {
                signatures.insert(class.to_string(), signature.or_else(|| self.sources[k].signature(&class)).unwrap_or(0));
            }
            self.object = name.clone();
            self.path.clear();
            self.note = None;
            let values = PackWalk.object(self, &class, &XNode::Object(p))?;
            let note = self.note.take();
            let mut object = Object { class: class.into_owned(), class_ref: (0, 0), body: Body::Typed(values), array_align: ArrayAlign::Sixteen, kept: Default::default() };
            if let Some((n, text)) = note {
                self.object_note(n, text, &at, &mut object)?;
            }
            out.push(object);
            objects.push(ObjectAt { pos: p, name, note });
        }
    }

    /// Applies the object's `hkgen:object` comment at `n` (see [`XmlWriter::object_note`]).
    fn object_note(&mut self, n: usize, text: &str, at: &At<'_>, object: &mut Object) -> Result<(), ValueError> {
        let text = text.trim_start().trim_start_matches(OBJECT_NOTE);
        let bad = |what: &str| self.err(n, Some(at), format!("{OBJECT_NOTE}: {what}"));
        let pair = |t: &str| -> Result<(u32, u32), ValueError> {
            let (a, b) = t.split_once(':').ok_or_else(|| bad(&format!("{t:?} is not from:to")))?;
            Ok((a.parse().map_err(|_| bad(&format!("{a:?} is not an offset")))?, b.parse().map_err(|_| bad(&format!("{b:?} is not an offset")))?))
        };
        let mut targets: HashMap<usize, Ref> = HashMap::new();
        let mut caps: HashMap<usize, u32> = HashMap::new();
        let mut lanes: HashMap<usize, u32> = HashMap::new();
        let mut section_refs = false;
        for item in text.split_ascii_whitespace() {
            let (key, value) = item.split_once('=').ok_or_else(|| bad(&format!("{item:?} is not key=value")))?;
            match key {
                "align" if value == "8" => object.array_align = ArrayAlign::Eight,
                "places" => object.kept.places = value.split(',').map(pair).collect::<Result<_, _>>()?,
                "end" => object.kept.end = Some(pair(value)?),
                "padding" => {
                    for run in value.split(',') {
                        let (at, hex) = run.split_once(':').ok_or_else(|| bad(&format!("{run:?} is not offset:bytes")))?;
                        let at = at.parse().map_err(|_| bad(&format!("{at:?} is not an offset")))?;
                        object.kept.padding.push((at, from_hex(hex).ok_or_else(|| bad("padding bytes are not hex"))?));
                    }
                }
                "refs" => {
                    for r in value.split(',') {
                        let (k, target) = r.split_once(':').ok_or_else(|| bad(&format!("{r:?} is not index:target")))?;
                        let k: usize = k.parse().map_err(|_| bad(&format!("{k:?} is not an index")))?;
                        let (to, off) = target.rsplit_once('+').ok_or_else(|| bad(&format!("{target:?} is not target+offset")))?;
                        let off: u32 = off.parse().map_err(|_| bad(&format!("{off:?} is not an offset")))?;
                        let r = match to.strip_prefix('s').and_then(|s| s.parse::<u32>().ok()) {
                            Some(section) => {
                                section_refs = true;
                                Ref::Section(section, off)
                            }
                            None => {
                                let used = || (at.object.to_owned(), None, format!("{OBJECT_NOTE}: {to:?} names no object"));
                                Ref::Inside(Handle(self.slot(to, Some((n, &used)))), off)
                            }
                        };
                        targets.insert(k, r);
                    }
                }
                "caps" => {
                    for c in value.split(',') {
                        let (k, word) = c.split_once(':').ok_or_else(|| bad(&format!("{c:?} is not index:word")))?;
                        let k: usize = k.parse().map_err(|_| bad(&format!("{k:?} is not an index")))?;
                        let word = parse_u64(word).filter(|&w| w <= u64::from(u32::MAX)).ok_or_else(|| bad(&format!("{word:?} is not a 32-bit word")))?;
                        caps.insert(k, word as u32);
                    }
                }
                "lanes" => {
                    for c in value.split(',') {
                        let (k, word) = c.split_once(':').ok_or_else(|| bad(&format!("{c:?} is not index:word")))?;
                        let k: usize = k.parse().map_err(|_| bad(&format!("{k:?} is not an index")))?;
                        let word = parse_u64(word).filter(|&w| w <= u64::from(u32::MAX)).ok_or_else(|| bad(&format!("{word:?} is not a 32-bit word")))?;
                        lanes.insert(k, word as u32);
                    }
                }
                _ => return Err(bad(&format!("unknown item {item:?}"))),
            }
        }
        if !caps.is_empty() {
            let Body::Typed(values) = &mut object.body else { return Ok(()) };
            let mut k = 0usize;
            each_hk_array_mut(&self.classes, &object.class, values, 0, &mut |a| {
                if let Some(word) = caps.remove(&k) {
                    a.capacity = word;
                }
                k += 1;
                true
            });
            if let Some(k) = caps.keys().min() {
                return Err(bad(&format!("hkArray {k}: the object has no such hkArray")));
            }
        }
        if !lanes.is_empty() {
            let Body::Typed(values) = &mut object.body else { return Ok(()) };
            let mut k = 0usize;
            each_lane_mut(&self.classes, &object.class, values, 0, &mut |w| {
                if let Some(word) = lanes.remove(&k) {
                    *w = f32::from_bits(word);
                }
                k += 1;
            });
            if let Some(k) = lanes.keys().min() {
                return Err(bad(&format!("lane {k}: the object has no such group of three numbers")));
            }
        }
        // Kept places move data forward only; every offset counts against the note budget.
        if object.kept.places.iter().any(|&(from, to)| to < from) {
            return Err(bad("a place moves data backwards"));
        }
        let k = &object.kept;
        let reach = k.places.iter().map(|p| p.1 as usize).chain(k.end.iter().flat_map(|e| [e.0 as usize, e.1 as usize]))
            .chain(k.padding.iter().map(|(at, b)| *at as usize + b.len()))
            .chain(targets.values().map(|r| match r { Ref::Inside(_, off) | Ref::Section(_, off) => *off as usize, _ => 0 }))
            .max()
            .unwrap_or(0);
        let left = self.note_budget;
        if reach > left {
            return Err(bad(&format!("offsets up to {reach} exceed the {left} bytes the input has left for them")));
        }
        self.note_budget = left - reach;
        self.section_refs |= section_refs;
        if !targets.is_empty() {
            let Body::Typed(values) = &mut object.body else { return Ok(()) };
            let mut k = 0usize;
            let mut wrong = None;
            values.iter_mut().for_each(|v| {
                refs_mut(v, &mut |r| {
                    if let Some(t) = targets.remove(&k) {
                        if *r != Ref::Null {
                            wrong = Some(k);
                        }
                        *r = t;
                    }
                    k += 1;
                })
            });
            if let Some(k) = wrong.or(targets.keys().next().copied()) {
                return Err(self.err(n, Some(at), format!("{OBJECT_NOTE}: pointer {k} is not a null pointer of the object")));
            }
        }
        Ok(())
    }

    /// The names of the parameters of the object whose start tag the reader just read (a look
    /// ahead with a second reader, which stops at the object's end or at anything it cannot
    /// read: the main reader reports that).
    fn param_names(&self) -> Vec<Cow<'i, str>> {
        let mut names = Vec::new();
        if self.pull.close_next {
            return names;
        }
        let from = self.pull.pos();
        let Some(rest) = self.pull.text.get(from..) else { return names };
        let mut ahead = quick_xml::Reader::from_str(rest);
        ahead.config_mut().trim_text(false);
        let mut depth = 0usize;
        loop {
            let (s, open) = match ahead.read_event() {
                Ok(Event::Start(s)) => (s, true),
                Ok(Event::Empty(s)) => (s, false),
                Ok(Event::End(_)) if depth == 0 => break,
                Ok(Event::End(_)) => {
                    depth -= 1;
                    continue;
                }
                Ok(Event::Eof) | Err(_) => break,
                Ok(_) => continue,
            };
            if depth == 0 && s.name().as_ref() == b"hkparam" {
                if let Ok([Some(n)]) = self.pull.attrs(&s, from, ["name"]) {
                    names.push(n);
                }
            }
            depth += usize::from(open);
        }
        names
    }

    /// The source that describes `class` (copied into `self.classes` on first use).
    fn choose(&mut self, pos: usize, at: &At<'_>, class: &str, signature: Option<u32>) -> Result<usize, ValueError> {
        if let Some(&k) = self.chosen.get(class) {
            return Ok(k);
        }
        // First a source whose class knows every parameter; else the first that has the class
        // (whose members then name the parameter it lacks). Where every source that may describe
        // the class names the same members (the usual case: the signature the XML states is
        // computed from them), both rounds choose the same source, and the parameters are not
        // looked ahead at.
        let candidates = self.sources.iter().filter(|source| source.class(class).is_some() && signature.is_none_or(|s| source.signature(class).is_none_or(|own| own == s)));
        let mut names = candidates.map(|source| member_names(*source, class));
        let first = names.next();
        let same = first.as_ref().is_some_and(|f| f.is_some() && names.all(|n| n == *f));
        let params = if same { Vec::new() } else { self.param_names() };
        for all_params in if same { &[false][..] } else { &[true, false][..] } {
            let all_params = *all_params;
            for (k, source) in self.sources.iter().enumerate() {
                if source.class(class).is_none() {
                    continue;
                }
                if let Some(s) = signature {
                    if source.signature(class).is_some_and(|own| own != s) {
                        continue;
                    }
                }
                let mut trial = ClassSet::default();
                if !copy_class(*source, class, &mut trial, 0) {
                    continue;
                }
                let members = members_of(&trial, class);
                if all_params && !params.iter().all(|p| members.iter().any(|m| m.name == *p)) {
                    continue;
                }
                if !copy_class(*source, class, &mut self.classes, 0) {
                    continue;
                }
                if super::layout::ClassLayouts::new(&self.classes, self.rules).hidden_from_members(true).class(class).is_err() {
                    return Err(self.err(pos, Some(at), format!("class {class} does not lay out under {}", self.rules)));
                }
                self.chosen.insert(class.to_owned(), k);
                return Ok(k);
            }
        }
        let sig = signature.map(|s| format!(" with signature {s:#x}")).unwrap_or_default();
        Err(self.err(pos, Some(at), format!("unknown class {class}{sig} (no class schema has it)")))
    }

    /// [`members_of`], once per class.
    fn members_of(&mut self, class: &str) -> Rc<[Member]> {
        if let Some((c, m)) = &self.last_members {
            if **c == *class {
                return m.clone();
            }
        }
        if let Some((c, m)) = self.members.get_key_value(class) {
            let m = m.clone();
            self.last_members = Some((c.clone(), m.clone()));
            return m;
        }
        let m: Rc<[Member]> = members_of(&self.classes, class).into_iter().cloned().collect();
        self.members.insert(class.into(), m.clone());
        m
    }

    /// An error at `pos` at the value the walk is at (the current object and member path).
    fn here(&self, pos: usize, msg: impl std::fmt::Display) -> ValueError {
        let path = Segs(&self.path);
        located(self.pull.text, pos, Some((&self.object, (!self.path.is_empty()).then_some(&path as &dyn std::fmt::Display))), msg)
    }

    /// The error of a value that does not stand where `n` is.
    fn misplaced(&self, n: &XNode, what: &str) -> ValueError {
        self.here(n.pos(), format!("{what} is not read from XML here"))
    }

    /// One value of kind `ty` from the tokens of `n`: an `<hkparam>`'s whole text (which holds
    /// that value only), or the next element of the token list being read.
    fn scalar<R>(&mut self, n: &XNode, ty: MemberType, f: impl FnOnce(&Self, usize, &mut Tokens<'_>) -> Result<R, ValueError>) -> Result<R, ValueError> {
        match *n {
            XNode::Param { p, .. } => {
                let (text, _) = self.pull.content(p)?;
                self.whole(p, &text, ty, f)
            }
            XNode::Tok(p) | XNode::GroupWord(p) => {
                let list = std::mem::take(&mut self.list);
                let (from, to) = if matches!(n, XNode::Tok(_)) { (self.list_at, list.len()) } else { self.group };
                let mut toks = Tokens::new(list.get(from..to).unwrap_or_default());
                let v = f(self, p, &mut toks);
                let at = to - toks.rest.len();
                if matches!(n, XNode::Tok(_)) {
                    self.list_at = at;
                } else {
                    self.group.0 = at;
                }
                self.list = list;
                v
            }
            _ => Err(self.misplaced(n, &ty.sdk_name())),
        }
    }

    /// [`XmlReader::scalar`] of an `<hkparam>`'s whole `text`.
    fn whole<R>(&self, p: usize, text: &str, ty: MemberType, f: impl FnOnce(&Self, usize, &mut Tokens<'_>) -> Result<R, ValueError>) -> Result<R, ValueError> {
        let mut toks = Tokens::new(text);
        let v = f(self, p, &mut toks)?;
        if toks.next().is_some() {
            return Err(self.here(p, format!("more text than one {} value", ty.sdk_name())));
        }
        Ok(v)
    }

    /// A container's elements at the `<hkparam>` `n`, each of kind `ty` (of member `m`): exactly
    /// `count` (a C array) or as many as the text holds (an array).
    fn seq(&mut self, n: &XNode, m: &Member, ty: MemberType, count: Option<usize>, array: bool) -> Result<XSeq, ValueError> {
        let XNode::Param { p, hint } = *n else { return Err(self.misplaced(n, "an array")) };
        let path_len = self.path.len();
        let (kind, reserve) = match ty {
            MemberType::Struct => {
                if m.class.is_none() {
                    return Err(self.here(p, "an array of structs without a class"));
                }
                // As many as numelements says, where the rest of the text can hold them (an
                // `<hkobject></hkobject>` is 21 bytes), and at most `STRUCTS_RESERVED`: what a
                // hostile count reserves stays small, and is given back when the array ends.
                let room = self.pull.text.len().saturating_sub(p) / 21;
                (SeqKind::Objects, count.or(hint).unwrap_or(0).min(room).min(STRUCTS_RESERVED))
            }
            MemberType::CString | MemberType::StringPtr => (SeqKind::Strings, 0),
            _ => {
                let (text, child) = self.pull.content(p)?;
                if let Some((q, tag)) = child {
                    return Err(self.here(q, format!("<{tag}> in an array of {}", ty.sdk_name())));
                }
                // As many as numelements says, where the text can hold them (two bytes a value at least).
                let reserve = count.or(hint).unwrap_or(0).min(text.len() / 2 + 1);
                self.list = text;
                self.list_at = 0;
                self.group = (0, 0);
                (SeqKind::Tokens, reserve)
            }
        };
        Ok(XSeq { p, kind, ty, count, reserve, path_len, len: 0, array })
    }
}

/// The `<hkpackfile>` XML as a source of the packfile walk in: parameters are read as the walk
/// asks for their members, in the order they stand (a parameter ahead of its member waits; one
/// after its member was passed is given late).
impl<'i> PackSource for XmlReader<'i, '_> {
    type Node = XNode;
    type Rec = XRec<'i>;
    type Seq = XSeq;

    fn err(&self, n: &XNode, msg: &str) -> ValueError {
        self.here(n.pos(), msg)
    }

    fn members(&mut self, _n: &XNode, class: &str) -> Result<Rc<[Member]>, ValueError> {
        Ok(self.members_of(class))
    }

    fn record(&mut self, n: &XNode, ms: &[Member]) -> Result<XRec<'i>, ValueError> {
        let (pos, wrapper) = match *n {
            XNode::Object(p) | XNode::Elem(p) => (p, None),
            // A struct member's value: one <hkobject>.
            XNode::Param { p, .. } => loop {
                let (q, ev) = self.pull.next_markup()?;
                match ev {
                    Ev::Open(_) => break (q, Some(p)),
                    Ev::Comment(_) | Ev::Text(..) => {}
                    Ev::Close => return Err(self.here(p, "a struct member holds one <hkobject>")),
                    Ev::Eof => return Err(self.pull.unclosed(p)),
                }
            },
            _ => return Err(self.misplaced(n, "a struct")),
        };
        Ok(XRec { pos, wrapper, top: matches!(n, XNode::Object(_)), path_len: self.path.len(), marks: Marks::new(ms.len()), pending: None, closed: false })
    }

    fn field(&mut self, r: &mut XRec<'i>, class: &str, ms: &[Member], i: usize) -> Result<Next<XNode>, ValueError> {
        self.path.truncate(r.path_len);
        if let Some((p, k, hint, name)) = r.pending.take() {
            if k == i {
                r.marks.set(k, GIVEN);
                self.path.push(Seg::Member(name));
                return Ok(Next::Value(XNode::Param { p, hint }));
            }
            r.pending = Some((p, k, hint, name));
            r.marks.set(i, PASSED);
            return Ok(Next::Absent);
        }
        while !r.closed {
            let (p, ev) = self.pull.next_markup()?;
            let s = match ev {
                Ev::Open(s) => s,
                Ev::Comment(c) => {
                    if r.top && self.note.is_none() && c.trim_start().starts_with(OBJECT_NOTE) {
                        self.note = Some((p, c));
                    }
                    continue;
                }
                Ev::Text(..) => continue,
                Ev::Close => {
                    r.closed = true;
                    break;
                }
                Ev::Eof => return Err(self.pull.unclosed(r.pos)),
            };
            if !Pull::is(&s, "hkparam") {
                let tag = self.pull.tag(&s);
                return Err(self.here(p, format!("<{tag}> where <hkparam> belongs")));
            }
            let [name, numelements] = self.pull.attrs(&s, p, ["name", "numelements"])?;
            let name = name.ok_or_else(|| self.here(p, "<hkparam> without a name"))?;
            // Parameters mostly come in member order: the member asked for is tried first.
            let k = match ms.get(i) {
                Some(m) if same(m.name.as_bytes(), name.as_bytes()) => i,
                _ => ms.iter().position(|m| m.name == *name).ok_or_else(|| self.here(p, format!("unknown member {name} of {class}")))?,
            };
            self.path.push(Seg::Member(name));
            if r.marks.get(k) == GIVEN {
                return Err(self.here(p, "a second value"));
            }
            // `numelements` must be a count, but where it disagrees with the text the text's
            // elements are the array (two of HavokLib's test files say 7 and 1 for arrays that
            // hold 1 and 0).
            let hint = match numelements {
                Some(n) => Some(n.trim().parse::<usize>().map_err(|_| self.here(p, format!("numelements {n:?} is not a count")))?),
                None => None,
            };
            if k <= i {
                r.marks.set(k, GIVEN);
                return Ok(if k == i { Next::Value(XNode::Param { p, hint }) } else { Next::Late(k, XNode::Param { p, hint }) });
            }
            let Some(Seg::Member(name)) = self.path.pop() else { unreachable!("pushed above") };
            r.pending = Some((p, k, hint, name));
            r.marks.set(i, PASSED);
            return Ok(Next::Absent);
        }
        if i < ms.len() {
            r.marks.set(i, PASSED);
            return Ok(Next::Absent);
        }
        if ms.iter().enumerate().any(|(k, m)| m.name == HIDDEN && r.marks.get(k) != GIVEN) {
            return Err(self.here(r.pos, format!("{class}'s hidden bytes are missing")));
        }
        if let Some(p) = r.wrapper {
            loop {
                match self.pull.next_markup()?.1 {
                    Ev::Open(_) => return Err(self.here(p, "a struct member holds one <hkobject>")),
                    Ev::Comment(_) | Ev::Text(..) => {}
                    Ev::Close => break,
                    Ev::Eof => return Err(self.pull.unclosed(p)),
                }
            }
        }
        Ok(Next::End)
    }

    fn absent(&mut self, r: &XRec<'i>, _class: &str, m: &Member) -> Result<MemberValue, ValueError> {
        if m.name == HIDDEN {
            // Missing at the record's end is an error; until then the parameter may follow.
            return Ok(MemberValue::Opaque(Vec::new()));
        }
        zero_value(&self.classes, m, m.ty, 0, self.array_flags).map_err(|e| self.here(r.pos, e))
    }

    fn hidden(&mut self, n: &XNode) -> Result<Vec<u8>, ValueError> {
        let XNode::Param { p, .. } = *n else { return Err(self.misplaced(n, "hidden bytes")) };
        let (t, _) = self.pull.content(p)?;
        let t = t.trim();
        if !t.len().is_multiple_of(2) {
            return Err(self.here(p, "hidden bytes are not pairs of hex digits"));
        }
        from_hex(t).ok_or_else(|| self.here(p, "hidden bytes are not hex"))
    }

    fn c_array(&mut self, n: &XNode, m: &Member, count: usize) -> Result<XSeq, ValueError> {
        self.seq(n, m, m.ty, Some(count), false)
    }

    fn array(&mut self, n: &XNode, m: &Member) -> Result<XSeq, ValueError> {
        self.seq(n, m, m.subtype, None, m.ty == MemberType::Array)
    }

    fn size_hint(&self, s: &XSeq) -> usize {
        s.reserve
    }

    fn item(&mut self, s: &mut XSeq) -> Result<Option<XNode>, ValueError> {
        self.path.truncate(s.path_len);
        let node = match s.kind {
            SeqKind::Objects | SeqKind::Strings => loop {
                let (q, ev) = self.pull.next_markup()?;
                match ev {
                    Ev::Open(t) => {
                        let (want, node) = if s.kind == SeqKind::Objects { ("hkobject", XNode::Elem(q)) } else { ("hkcstring", XNode::CStr(q)) };
                        if !Pull::is(&t, want) {
                            let tag = self.pull.tag(&t);
                            return Err(self.here(q, format!("<{tag}> where <{want}> belongs")));
                        }
                        break node;
                    }
                    Ev::Comment(_) | Ev::Text(..) => {}
                    Ev::Close => return Ok(None),
                    Ev::Eof => return Err(self.pull.unclosed(s.p)),
                }
            },
            SeqKind::Tokens => loop {
                // Reals may come in groups (`vectorData` of vertex buffers: numelements counts
                // the floats): each number of a group is an element.
                let (from, to) = self.group;
                let g = skip_space(self.list.get(from..to).unwrap_or_default());
                if !g.is_empty() {
                    self.group.0 = to - g.len();
                    break XNode::GroupWord(s.p);
                }
                let rest = skip_space(self.list.get(self.list_at..).unwrap_or_default());
                self.list_at = self.list.len() - rest.len();
                if rest.is_empty() {
                    return Ok(None);
                }
                if matches!(s.ty, MemberType::Real | MemberType::Half) && rest.starts_with('(') {
                    let mut toks = Tokens::new(rest);
                    if let Some(Tok::Group(g)) = toks.next() {
                        let start = g.as_ptr() as usize - self.list.as_ptr() as usize;
                        self.group = (start, start + g.len());
                        self.list_at = self.list.len() - toks.rest.len();
                        continue;
                    }
                }
                break XNode::Tok(s.p);
            },
        };
        if s.count.is_some_and(|n| s.len >= n) {
            return Err(self.here(s.p, format!("more than {} elements", s.count.unwrap_or(0))));
        }
        self.path.push(Seg::Index(s.len));
        s.len += 1;
        Ok(Some(node))
    }

    fn numbers(&mut self, s: &mut XSeq, ty: MemberType, out: &mut Items) {
        // Only a plain token list (no group being read); each word is read as `int`/`real` read
        // it, and the first word that does not read so (or a group, or one past a C array's
        // count) is left to them, to be read or reported at its place.
        if s.kind != SeqKind::Tokens || self.group.0 < self.group.1 {
            return;
        }
        let (signed, bits) = match ty {
            MemberType::Int8 => (true, 8),
            MemberType::Int16 => (true, 16),
            MemberType::Int32 => (true, 32),
            MemberType::Int64 => (true, 64),
            MemberType::Uint8 => (false, 8),
            MemberType::Uint16 => (false, 16),
            MemberType::Uint32 => (false, 32),
            MemberType::Uint64 => (false, 64),
            MemberType::Real => (false, 0),
            MemberType::Vector4 | MemberType::Quaternion => {
                if let Items::Vec4s(v) = out {
                    self.vec4s(s, v);
                }
                return;
            }
            // Any other type is read element by element (the walk asks for these alone).
            _ => return,
        };
        let (lo, hi) = (i64::MIN >> (64 - bits.max(1)), i64::MAX >> (64 - bits.max(1)));
        let int = move |t: &str| parse_i64(t).filter(|v| (lo..=hi).contains(v));
        let uint = move |t: &str| parse_u64(t).filter(|&v| v <= u64::MAX >> (64 - bits.max(1)));
        let list = std::mem::take(&mut self.list);
        let mut at = self.list_at;
        // Typed elements go straight into their vector; values (a C array's, an array of another
        // form) one value each.
        match (out, bits, signed) {
            (Items::Reals(v), 0, _) => self.words(s, &list, &mut at, v, |r, p, t| r.float(p, t).ok()),
            (Items::Ints(v), 1.., true) => {
                decimals(s, &list, &mut at, v, true, |d| Some(d as i64).filter(|x| *x <= hi), |d| Some(-(d as i64)).filter(|x| *x >= lo));
                self.words(s, &list, &mut at, v, |_, _, t| int(t))
            }
            (Items::UInts(v), 1.., false) => {
                let max = u64::MAX >> (64 - bits);
                decimals(s, &list, &mut at, v, false, |d| Some(d).filter(|x| *x <= max), |_| None);
                self.words(s, &list, &mut at, v, |_, _, t| uint(t))
            }
            (Items::Values(v), 0, _) => self.words(s, &list, &mut at, v, |r, p, t| r.float(p, t).ok().map(MemberValue::Real)),
            (Items::Values(v), 1.., true) => {
                decimals(s, &list, &mut at, v, true, |d| Some(d as i64).filter(|x| *x <= hi).map(MemberValue::Int), |d| Some(-(d as i64)).filter(|x| *x >= lo).map(MemberValue::Int));
                self.words(s, &list, &mut at, v, |_, _, t| int(t).map(MemberValue::Int))
            }
            (Items::Values(v), 1.., false) => {
                let max = u64::MAX >> (64 - bits);
                decimals(s, &list, &mut at, v, false, |d| Some(d).filter(|x| *x <= max).map(MemberValue::UInt), |_| None);
                self.words(s, &list, &mut at, v, |_, _, t| uint(t).map(MemberValue::UInt))
            }
            // A typed form of another kind: element by element.
            _ => {}
        }
        self.list_at = at;
        self.list = list;
    }

    fn end_items(&mut self, s: XSeq, len: usize) -> Result<Option<u32>, ValueError> {
        self.path.truncate(s.path_len);
        if s.kind == SeqKind::Tokens {
            self.list = Cow::Borrowed("");
        }
        if let Some(n) = s.count.filter(|&n| n != len) {
            return Err(self.here(s.p, format!("the C array has {n} elements, the text holds {len}")));
        }
        Ok(s.array.then(|| len as u32 | self.array_flags))
    }

    fn void(&mut self, n: &XNode) -> Result<(), ValueError> {
        Err(self.here(n.pos(), format!("{} is not read from XML", MemberType::Void.sdk_name())))
    }

    fn bool(&mut self, n: &XNode) -> Result<u8, ValueError> {
        self.scalar(n, MemberType::Bool, |r, p, toks| {
            let bad = |t: &str| r.here(p, format!("{t:?} is not true or false"));
            Ok(match want(r, p, MemberType::Bool, toks)? {
                Tok::Word("true") => 1,
                Tok::Word("false") => 0,
                // A number is the stored byte; a negative one its two's complement (hkxlib writes
                // `-1` for a member that was an `hkInt8` in other class versions).
                Tok::Word(t) => parse_i64(t).filter(|v| (-128..=255).contains(v)).ok_or_else(|| bad(t))? as u8,
                Tok::Group(g) => return Err(bad(g)),
            })
        })
    }

    fn int(&mut self, n: &XNode, m: &Member, ty: MemberType, signed: bool, bits: u32) -> Result<i128, ValueError> {
        let as_storage = |v: i64| if signed { i128::from(v) } else { i128::from(v as u64) };
        // A scalar enum or flags value is the whole text: other writers put spaces around the
        // `|`, or leave it empty for no bits.
        if let (MemberType::Enum | MemberType::Flags, XNode::Param { p, .. }) = (m.ty, n) {
            let p = *p;
            let (text, child) = self.pull.content(p)?;
            if let Some((q, tag)) = child {
                return Err(self.here(q, format!("<{tag}> in a {} value", m.ty.sdk_name())));
            }
            return self.enum_value(p, m, m.ty, &text).map(as_storage);
        }
        // An enum (of a C array, or `Zero`) is one word of a list.
        let enumerated = matches!(m.ty, MemberType::Enum | MemberType::Flags | MemberType::Zero);
        let ptr4 = self.rules.pointer_size == 4;
        let read = move |r: &Self, p: usize, toks: &mut Tokens<'_>| {
            let t = word(r, p, want(r, p, if enumerated { m.ty } else { ty }, toks)?)?;
            if enumerated {
                return r.enum_value(p, m, m.ty, t).map(as_storage);
            }
            if signed {
                let (lo, hi) = (i64::MIN >> (64 - bits), i64::MAX >> (64 - bits));
                let v = parse_i64(t).ok_or_else(|| r.here(p, format!("{t:?} is not an integer")))?;
                if v < lo || v > hi {
                    return Err(r.here(p, format!("{v} is out of range for {} ({lo} to {hi})", ty.sdk_name())));
                }
                Ok(i128::from(v))
            } else {
                let hi = if ty == MemberType::Ulong && ptr4 { 0xffff_ffff } else { u64::MAX >> (64 - bits) };
                let v = parse_u64(t).ok_or_else(|| r.here(p, format!("{t:?} is not an unsigned integer")))?;
                if v > hi {
                    return Err(r.here(p, format!("{v} is out of range for {} (0 to {hi})", ty.sdk_name())));
                }
                Ok(i128::from(v))
            }
        };
        // The common case, an `<hkparam>` whose text is one short decimal in range, read at once;
        // any other text as the general read reads it (and reports it).
        if let (false, XNode::Param { p, .. }) = (enumerated, *n) {
            let (text, _) = self.pull.content(p)?;
            let t = text.trim_ascii().as_bytes();
            if signed {
                let (lo, hi) = (i64::MIN >> (64 - bits), i64::MAX >> (64 - bits));
                let v = match t {
                    [b'-', rest @ ..] => short_decimal(rest).map(|v| -(v as i64)),
                    _ => short_decimal(t).map(|v| v as i64),
                };
                if let Some(v) = v.filter(|v| (lo..=hi).contains(v)) {
                    return Ok(i128::from(v));
                }
            } else {
                let hi = if ty == MemberType::Ulong && ptr4 { 0xffff_ffff } else { u64::MAX >> (64 - bits) };
                if let Some(v) = short_decimal(t).filter(|&v| v <= hi) {
                    return Ok(i128::from(v));
                }
            }
            return self.whole(p, &text, ty, read);
        }
        self.scalar(n, if enumerated { m.ty } else { ty }, read)
    }

    fn real(&mut self, n: &XNode) -> Result<f32, ValueError> {
        self.scalar(n, MemberType::Real, |r, p, toks| r.float(p, word(r, p, want(r, p, MemberType::Real, toks)?)?))
    }

    fn half(&mut self, n: &XNode) -> Result<u16, ValueError> {
        self.scalar(n, MemberType::Half, |r, p, toks| Ok(f32_to_half(r.float(p, word(r, p, want(r, p, MemberType::Half, toks)?)?)?)))
    }

    fn reals(&mut self, n: &XNode, ty: MemberType, _count: usize) -> Result<Vec<f32>, ValueError> {
        self.scalar(n, ty, |r, p, toks| {
            if matches!(ty, MemberType::Vector4 | MemberType::Quaternion) {
                return Ok(r.group(p, want(r, p, ty, toks)?, 4, 0.0)?.to_vec());
            }
            let mut f = Vec::with_capacity(16);
            for (k, &n) in groups(ty).iter().enumerate() {
                f.extend(r.group(p, want(r, p, ty, toks)?, n, dropped_w(ty, k))?);
            }
            Ok(f)
        })
    }

    fn vec4(&mut self, n: &XNode, ty: MemberType) -> Result<[f32; 4], ValueError> {
        self.scalar(n, ty, |r, p, toks| r.group(p, want(r, p, ty, toks)?, 4, 0.0))
    }

    fn pointer(&mut self, n: &XNode) -> Result<Ref, ValueError> {
        self.scalar(n, MemberType::Pointer, |r, p, toks| r.pointer(p, word(r, p, want(r, p, MemberType::Pointer, toks)?)?))
    }

    fn variant(&mut self, n: &XNode) -> Result<(Ref, Ref), ValueError> {
        self.scalar(n, MemberType::Variant, |r, p, toks| {
            let Tok::Group(g) = want(r, p, MemberType::Variant, toks)? else { return Err(r.here(p, "a variant is (object class)")) };
            let mut parts = g.split_ascii_whitespace();
            let (Some(a), Some(b), None) = (parts.next(), parts.next(), parts.next()) else {
                return Err(r.here(p, "a variant is (object class)"));
            };
            Ok((r.pointer(p, a)?, r.pointer(p, b)?))
        })
    }

    fn string(&mut self, n: &XNode) -> Result<Option<Vec<u8>>, ValueError> {
        match *n {
            XNode::Param { p, .. } | XNode::CStr(p) => Ok(text_bytes(&self.pull.content(p)?.0)),
            _ => Err(self.here(n.pos(), format!("{} in a list of values", MemberType::CString.sdk_name()))),
        }
    }
}

impl<'i> XmlReader<'i, '_> {

    /// [`PackSource::numbers`] of vectors: the groups of 4 reals at the start of what is left of
    /// the token list, each read as [`PackSource::vec4`] reads it, up to the first that does not
    /// read so (or a C array's count), which is left to it.
    fn vec4s(&mut self, s: &mut XSeq, out: &mut Vec<[f32; 4]>) {
        let list = std::mem::take(&mut self.list);
        let mut at = self.list_at;
        while s.count.is_none_or(|n| s.len < n) {
            let rest = skip_space(list.get(at..).unwrap_or_default());
            let start = list.len() - rest.len();
            at = start;
            let Some(body) = rest.strip_prefix('(') else { break };
            let Some(end) = body.find(')') else { break };
            let Ok(v) = self.group(s.p, Tok::Group(&body[..end]), 4, 0.0) else { break };
            out.push(v);
            s.len += 1;
            at = start + 1 + end + 1;
        }
        self.list_at = at;
        self.list = list;
    }

    /// [`PackSource::numbers`]' loop: the words of `list` from `at` read by `read` into `out`, up
    /// to the first it does not read (or a C array's count); `at` is left at that word.
    #[inline(always)]
    fn words<T>(&self, s: &mut XSeq, list: &str, at: &mut usize, out: &mut Vec<T>, read: impl Fn(&Self, usize, &str) -> Option<T>) {
        while s.count.is_none_or(|n| s.len < n) {
            let rest = skip_space(list.get(*at..).unwrap_or_default());
            let start = list.len() - rest.len();
            *at = start;
            let end = word_end(rest);
            if end == 0 {
                break;
            }
            let Some(v) = read(self, s.p, &rest[..end]) else { break };
            out.push(v);
            s.len += 1;
            *at = start + end;
        }
    }

    /// An enum or flags value: parts joined by `|`, each an item name of the member's enum or a
    /// number (decimal, `0x` hex, negative), their bits or'ed (`FLAG_RAGDOLL|FLAG_NOT_VARIABLE|4096`);
    /// white space around parts and empty parts (a trailing `|`) are passed over, and a flags
    /// value with no part (empty text) is 0. A flags number that fits the storage's width
    /// unsigned (`0x8000` for an `hkInt16`) is its bits. An unknown name is an error at the
    /// parameter.
    fn enum_value(&self, p: usize, m: &Member, ty: MemberType, t: &str) -> Result<i64, ValueError> {
        let items = m.enumeration.as_deref().and_then(|e| self.classes.enums.get(e));
        let mut n = 0i64;
        let mut parts = 0usize;
        for part in t.split('|').map(str::trim).filter(|part| !part.is_empty()) {
            let v = match parse_i64(part) {
                Some(v) => v,
                None => items.and_then(|items| items.iter().find(|(_, name)| name == part)).map(|(v, _)| *v).ok_or_else(|| {
                    self.here(p, format!("{part:?} is no item of enum {}", m.enumeration.as_deref().unwrap_or("(none)")))
                })?,
            };
            n |= v;
            parts += 1;
        }
        if parts == 0 && ty != MemberType::Flags {
            return Err(self.here(p, format!("a {} value is missing", ty.sdk_name())));
        }
        let storage = m.subtype;
        let (lo, hi, bits): (i64, i64, u32) = match storage {
            MemberType::Int8 | MemberType::Char => (-128, 127, 8),
            MemberType::Uint8 => (0, 255, 0),
            MemberType::Int16 => (i16::MIN.into(), i16::MAX.into(), 16),
            MemberType::Uint16 => (0, 0xffff, 0),
            MemberType::Int32 => (i32::MIN.into(), i32::MAX.into(), 32),
            MemberType::Uint32 => (0, 0xffff_ffff, 0),
            MemberType::Int64 | MemberType::Uint64 => (i64::MIN, i64::MAX, 0),
            _ => return Err(self.here(p, format!("an enum stored as {}", storage.sdk_name()))),
        };
        // Flags in a signed word: the bits of the word (0x8000 is -32768 in an hkInt16).
        if ty == MemberType::Flags && bits > 0 && n > hi && n < 1i64 << bits {
            n -= 1i64 << bits;
        }
        if n < lo || n > hi {
            return Err(self.here(p, format!("{n} is out of range for an enum stored as {}", storage.sdk_name())));
        }
        Ok(n)
    }

    fn pointer(&self, p: usize, t: &str) -> Result<Ref, ValueError> {
        if t == "null" {
            return Ok(Ref::Null);
        }
        let used = || (self.object.to_string(), (!self.path.is_empty()).then(|| Segs(&self.path).to_string()), format!("pointer to {t:?}, which names no object"));
        Ok(Ref::Object(Handle(self.slot(t, Some((p, &used))))))
    }

    fn float(&self, p: usize, t: &str) -> Result<f32, ValueError> {
        if let Some(x) = plain_f32(t.as_bytes()) {
            return Ok(x);
        }
        if let Some(bits) = t.strip_prefix("0x").and_then(|h| u32::from_str_radix(h, 16).ok()) {
            return Ok(f32::from_bits(bits));
        }
        if let Ok(x) = t.parse::<f32>() {
            if x.is_infinite() && !t.to_ascii_lowercase().contains("inf") {
                return Err(self.here(p, format!("{t} is out of range for a 32-bit real")));
            }
            return Ok(x);
        }
        // Havok's (MSVC's) spellings of the special values.
        match t.to_ascii_lowercase().as_str() {
            "1.#inf00" | "1.#inf" => Ok(f32::INFINITY),
            "-1.#inf00" | "-1.#inf" => Ok(f32::NEG_INFINITY),
            "1.#qnan0" | "-1.#ind00" | "-1.#qnan0" | "-nan(ind)" | "nan(ind)" => Ok(f32::NAN),
            _ => Err(self.here(p, format!("{t:?} is not a real number"))),
        }
    }

    /// A parenthesized group of `n` floats (a group of four where `n` is 3: the fourth is kept;
    /// else it is `w`).
    fn group(&self, p: usize, tok: Tok<'_>, n: usize, w: f32) -> Result<[f32; 4], ValueError> {
        let Tok::Group(g) = tok else { return Err(self.here(p, format!("a group of {n} numbers in parentheses belongs here"))) };
        let mut out = [0.0, 0.0, 0.0, w];
        let mut k = 0;
        for t in g.split_ascii_whitespace() {
            if k == 4 {
                return Err(self.here(p, format!("({g}) holds more than 4 numbers")));
            }
            out[k] = self.float(p, t)?;
            k += 1;
        }
        if k != n && !(n == 3 && k == 4) {
            return Err(self.here(p, format!("({g}) holds {k} numbers, not {n}")));
        }
        Ok(out)
    }
}

#[inline]
fn word<'t>(r: &XmlReader<'_, '_>, p: usize, tok: Tok<'t>) -> Result<&'t str, ValueError> {
    match tok {
        Tok::Word(w) => Ok(w),
        Tok::Group(g) => Err(r.here(p, format!("({g}) where a single value belongs"))),
    }
}

/// The next token, which a value of kind `ty` needs.
#[inline]
fn want<'t>(r: &XmlReader<'_, '_>, p: usize, ty: MemberType, toks: &mut Tokens<'t>) -> Result<Tok<'t>, ValueError> {
    toks.next().ok_or_else(|| r.here(p, format!("a {} value is missing", ty.sdk_name())))
}

/// [`XmlReader::numbers`]' loop over the plain decimals of `list` from `at` (at most 18 digits,
/// a `-` before them where `signed`, ASCII white space after them), each read in the one pass
/// that finds its end and made an element by `pos` (`neg` after a `-`), up to the first word
/// that is not one or that they refuse (or a C array's count): `at` is left at that word, for
/// the general loop ([`XmlReader::words`]) to read from.
#[inline(always)]
fn decimals<T>(s: &mut XSeq, list: &str, at: &mut usize, out: &mut Vec<T>, signed: bool, pos: impl Fn(u64) -> Option<T>, neg: impl Fn(u64) -> Option<T>) {
    let b = list.as_bytes();
    let mut i = *at;
    while s.count.is_none_or(|n| s.len < n) {
        // White space: in a text the reader took (`Pull::scanned` refuses any control character
        // but tab, line feed and carriage return, as `unescape` does those of references), the bytes
        // up to the space are the four XML white space characters, so one compare.
        while i < b.len() && b[i] <= b' ' {
            i += 1;
        }
        *at = i;
        if i == b.len() {
            return;
        }
        let minus = signed && b[i] == b'-';
        let from = i + usize::from(minus);
        let mut j = from;
        let mut d = 0u64;
        while j < b.len() && j - from < 19 {
            let x = b[j].wrapping_sub(b'0');
            if x > 9 {
                break;
            }
            d = d * 10 + u64::from(x);
            j += 1;
        }
        // A word of anything else (a longer number, hex, a group, a character beyond ASCII)
        // is the general loop's.
        if j == from || j - from > 18 || b.get(j).is_some_and(|&c| !matches!(c, b' ' | b'\n' | b'\t' | b'\r' | 0x0b | 0x0c)) {
            return;
        }
        let Some(v) = (if minus { neg(d) } else { pos(d) }) else { return };
        out.push(v);
        s.len += 1;
        i = j;
        *at = i;
    }
}

/// `t` as `str::parse::<f32>` reads it, where `t` is a plain decimal (`-`, digits, a `.` and
/// digits: what the writer gives for most reals) whose digits without the point are a number up
/// to 2^53 with at most 22 after the point. That number and the power of ten are exact in an
/// `f64`, so their one correctly rounded division is the decimal rounded to 53 bits; rounding that
/// to an `f32` is the decimal rounded to 24 bits, except where it lands on the midpoint of two
/// `f32`s (which the rounding to 53 bits may have moved onto it) or below the `f32` normals: those
/// are `None`, as is any other text, for the standard parser.
#[inline]
fn plain_f32(t: &[u8]) -> Option<f32> {
    const TENS: [f64; 23] = [1.0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];
    let (neg, b) = match t {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, t),
    };
    if b.is_empty() || b.len() > 19 {
        return None;
    }
    let mut m = 0u64;
    let mut point = None;
    for (k, &c) in b.iter().enumerate() {
        let d = c.wrapping_sub(b'0');
        if d <= 9 {
            m = m * 10 + u64::from(d);
        } else if c == b'.' && point.is_none() {
            point = Some(k);
        } else {
            return None;
        }
    }
    let frac = point.map_or(0, |k| b.len() - k - 1);
    if b.len() == usize::from(point.is_some()) || m > 1 << 53 || frac > 22 {
        return None;
    }
    let y = m as f64 / TENS[frac];
    // The 29 bits an f32 drops of a normal f64 significand: exactly a half is a midpoint.
    if (y != 0.0 && y < f64::from(f32::MIN_POSITIVE)) || y.to_bits() & ((1 << 29) - 1) == 1 << 28 {
        return None;
    }
    let x = y as f32;
    Some(if neg { -x } else { x })
}

fn parse_i64(t: &str) -> Option<i64> {
    match t.as_bytes() {
        [b'-', rest @ ..] => {
            if let Some(v) = short_decimal(rest) {
                return Some(-(v as i64));
            }
        }
        b => {
            if let Some(v) = short_decimal(b) {
                return Some(v as i64);
            }
        }
    }
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return u64::from_str_radix(h, 16).ok().map(|v| v as i64);
    }
    t.parse().ok()
}

fn parse_u64(t: &str) -> Option<u64> {
    if let Some(v) = short_decimal(t.as_bytes()) {
        return Some(v);
    }
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return u64::from_str_radix(h, 16).ok();
    }
    t.parse().ok()
}

/// A string's bytes: characters below 256 as one byte each, others as UTF-8; `␀` alone is a
/// null string.
fn text_bytes(t: &str) -> Option<Vec<u8>> {
    if t == "\u{2400}" {
        return None;
    }
    let mut out = Vec::with_capacity(t.len());
    for c in t.chars() {
        match u8::try_from(u32::from(c)) {
            Ok(b) => out.push(b),
            Err(_) => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
    }
    Some(out)
}

/// `t.trim_start()`, ASCII white space passed over byte by byte (the rest of Unicode's, where a
/// byte beyond ASCII follows, by `trim_start`).
#[inline]
fn skip_space(t: &str) -> &str {
    let b = t.as_bytes();
    let mut i = 0;
    while i < b.len() && matches!(b[i], b' ' | b'\n' | b'\t' | b'\r' | 0x0b | 0x0c) {
        i += 1;
    }
    match b.get(i) {
        Some(&c) if c >= 0x80 => unicode_trim_start(&t[i..]),
        _ => &t[i..],
    }
}

#[cold]
fn unicode_trim_start(t: &str) -> &str {
    t.trim_start()
}

#[cold]
fn unicode_word_end(t: &str) -> usize {
    t.find(|c: char| c.is_whitespace() || c == '(').unwrap_or(t.len())
}

/// Where the word at the start of `t` ends: at white space (Unicode's) or `(`.
#[inline]
fn word_end(t: &str) -> usize {
    let b = t.as_bytes();
    let mut i = 0;
    while i < b.len() && !matches!(b[i], b' ' | b'\n' | b'\t' | b'\r' | 0x0b | 0x0c | b'(') {
        if b[i] >= 0x80 {
            return i + unicode_word_end(&t[i..]);
        }
        i += 1;
    }
    i
}

/// A value list's tokens: words separated by white space, and groups in parentheses.
#[derive(Clone, Copy, Debug)]
enum Tok<'t> {
    Word(&'t str),
    Group(&'t str),
}

struct Tokens<'t> {
    rest: &'t str,
}

impl<'t> Tokens<'t> {
    fn new(text: &'t str) -> Self {
        Tokens { rest: text }
    }
}

impl<'t> Iterator for Tokens<'t> {
    type Item = Tok<'t>;
    #[inline]
    fn next(&mut self) -> Option<Tok<'t>> {
        let s = skip_space(self.rest);
        if s.is_empty() {
            self.rest = s;
            return None;
        }
        if let Some(body) = s.strip_prefix('(') {
            // An unclosed group takes the rest (and then fails as a number).
            let end = body.find(')').unwrap_or(body.len());
            self.rest = body.get(end + 1..).unwrap_or("");
            return Some(Tok::Group(&body[..end]));
        }
        let end = word_end(s);
        self.rest = &s[end..];
        Some(Tok::Word(&s[..end]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packfile::walk_out::half_to_f32;

    #[test]
    fn halves_round_trip() {
        for h in 0..=u16::MAX {
            assert_eq!(f32_to_half(half_to_f32(h)), h);
        }
        assert_eq!(f32_to_half(0.049805), 0x3d4c);
    }

    #[test]
    fn sniffs_by_content() {
        assert_eq!(xml_form(b"\xEF\xBB\xBF<?xml version=\"1.0\"?>\n<!-- x -->\n<hkpackfile classversion=\"8\">"), Some(XmlForm::Packfile));
        assert_eq!(xml_form(b"<?xml version=\"1.0\"?><hktagfile version=\"3\">"), Some(XmlForm::Tagfile));
        assert_eq!(xml_form(b"<?xml version=\"1.0\"?><html>"), None);
        assert_eq!(xml_form(b"<?xml version=\"1.0\""), None);
        assert_eq!(xml_form(b"<!DOCTYPE x [<!ENTITY a \"b\">]><hkpackfile>"), Some(XmlForm::Packfile));
    }

    #[test]
    fn plain_reals_as_str_parse() {
        // Where the fast read answers, it is the standard parser's value, bit for bit: the
        // writer's `{:.6}` of many floats (below and around 2^24 / 10^6), and other spellings.
        let mut x = 1.0f32;
        let mut answered = 0;
        for k in 0..200_000u32 {
            x = f32::from_bits(x.to_bits().wrapping_mul(2_654_435_761).wrapping_add(k)).abs() % 40.0;
            let any = f32::from_bits(k.wrapping_mul(2_654_435_761));
            // Midpoints of two f32s, which the 53-bit rounding must not decide.
            let mid = (f64::from(x) + f64::from(f32::from_bits(x.to_bits() + 1))) / 2.0;
            for t in [format!("{x:.6}"), format!("-{x:.6}"), format!("{x:.3}"), format!("{x}"), format!("{:.1}", x * 1000.0), format!("{any}"), format!("{:.9}", x / 1000.0), format!("{mid}"), format!("{mid:.17}")] {
                if let Some(v) = plain_f32(t.as_bytes()) {
                    answered += 1;
                    assert_eq!(v.to_bits(), t.parse::<f32>().unwrap().to_bits(), "{t:?}");
                }
            }
        }
        assert!(answered > 500_000, "{answered}");
        for t in ["0", "-0", "0.000000", "-0.000000", "16.777216", "16.777217", "0.000000000000000000001", "9007199254740993", "9007199254740992", "5.", ".5", "-.5", "0000012.5", "1e5", ".", "-", "", "1.2.3", "0x10", "inf", "+1.0", "1 ", "1234567890.1234567890"] {
            if let Some(v) = plain_f32(t.as_bytes()) {
                assert_eq!(v.to_bits(), t.parse::<f32>().unwrap().to_bits(), "{t:?}");
            }
        }
    }

    #[test]
    fn integers_as_str_parse() {
        for t in ["0", "7", "-0", "-12", "+5", "123456789012345678", "1234567890123456789", "18446744073709551615", "18446744073709551616", "-9223372036854775808", "-9223372036854775809", "", "-", "1a", "0x10", "0X1f", "0x", " 1", "٣"] {
            let std_i = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")).map_or_else(|| t.parse::<i64>().ok(), |h| u64::from_str_radix(h, 16).ok().map(|v| v as i64));
            let std_u = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")).map_or_else(|| t.parse::<u64>().ok(), |h| u64::from_str_radix(h, 16).ok());
            assert_eq!(parse_i64(t), std_i, "{t:?}");
            assert_eq!(parse_u64(t), std_u, "{t:?}");
        }
    }

    #[test]
    fn space_and_words_as_unicode() {
        for t in ["", " ", " \t\n\r\x0b\x0c1 2", "\u{a0}\u{2028} 3", "4\u{a0}5", "6(7)", "8\u{3000}", "é 9", "10é 11", "  12"] {
            assert_eq!(skip_space(t), t.trim_start(), "{t:?}");
            assert_eq!(word_end(t), t.find(|c: char| c.is_whitespace() || c == '(').unwrap_or(t.len()), "{t:?}");
        }
    }

    #[test]
    fn tokens_split_words_and_groups() {
        let t: Vec<String> = Tokens::new(" 1 -2\n(3 4)(5 6 7) null ").map(|t| format!("{t:?}")).collect();
        assert_eq!(t, ["Word(\"1\")", "Word(\"-2\")", "Group(\"3 4\")", "Group(\"5 6 7\")", "Word(\"null\")"]);
    }

    #[test]
    fn havok_floats_keep_17_digits() {
        let text = |x: f32| {
            let mut s = String::new();
            havok_float(&mut s, x);
            s
        };
        assert_eq!(text(18446726481523507200.0), "18446726481523507000.000000");
        assert_eq!(text(-1.0e20), "-100000002004087730000.000000");
        assert_eq!(text(0.5), "0.500000");
        assert_eq!(text(1.0e16), "10000000272564224.000000");
    }

    #[test]
    fn flags_by_name() {
        let items = vec![(1, "A".to_owned()), (2, "B".to_owned()), (4, "C".to_owned())];
        assert_eq!(enum_text(&items, 5, true).as_deref(), Some("A|C"));
        assert_eq!(enum_text(&items, 4, true).as_deref(), Some("C"));
        // The bits no item names follow as one number; none named, the number alone.
        assert_eq!(enum_text(&items, 5 | 4096 | 64, true).as_deref(), Some("A|C|4160"));
        assert_eq!(enum_text(&items, 8, true), None);
        assert_eq!(enum_text(&items, 0, true), None);
        assert_eq!(enum_text(&items, 2, false).as_deref(), Some("B"));
        assert_eq!(enum_text(&items, 3, false), None);
    }
}
