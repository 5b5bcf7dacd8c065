//! `<hktagfile version="3">` XML, the form HKLib writes tagfiles in: `<type id="typeN">` records
//! (name, parent, format, subtype, version, template parameters) and `<object id="objectN"
//! typeid="typeN">` trees of `<record>`/`<field name>`, `<array count elementtypeid>`,
//! `<integer value>`, `<real dec hex>`, `<bool value>`, `<string value>`.
//!
//! Writing ([`write()`]) gives a TAG0 file's types and items. Beyond HKLib's records, each type also
//! carries what a `TYPE` section holds (`<size value align>`, `<flags value>`, `<members
//! properties>` of `<member name flags offset typeid>`, `<interfaces>` of `<interface typeid
//! value>`, `<hash value>`, and a `name` on each `<typeparam>`/`<valueparam>`), so that XML -> TAG0
//! needs no compendium and no registry. The root names the `SDKV` (`sdkversion`), the compendium
//! of a TCRF file (`compendium`, `tcrf`: hex), bytes after `TAG0` (`trailing`: hex) and the Phive
//! wrapper around the tagfile of a Phive file (`phive`: hex, [`write_phive`]). Values:
//! pointers as `<pointer id="objectN"/>`, a null pointer, string or array as `<null/>`; reals as
//! `dec` (shortest round trip by default, [`FloatForm`]) and `hex` (HKLib's: the bits of the value
//! as a double, `#3ff0000000000000`), which the reader prefers; `hkHalf16` as a real; strings not
//! representable as XML text as `<string bytes="hex"/>`; bytes of opaque types as `<bytes
//! value="hex"/>`. Objects are written in item order (the root first); arrays and strings inline.
//!
//! Reading ([`read`]) builds the type table from the `<type>` records (in order: `typeN` is the
//! N-th record) and the items from the objects, and [`XmlTagfile::write_tag0`] lays them out as
//! Havok does ([`super::write`]) with a `TYPE` section from [`super::type_writer`], or the `TCRF`
//! again when the compendium named is given. Types without `<members>` (HKLib's own files list
//! none) are records without fields: such a file reads, but its record values cannot be laid out
//! and give a located error. Parsing uses the pull parser the packfile XML reader reads with
//! (quick-xml, `crate::xml_text::Pull`): no DTD (so no entity beyond XML's five), values nested
//! at most [`MAX_DEPTH`] deep, item bytes bounded by the text's length; every error
//! names the line and column, and the object and member where there is one.

use super::compendium::{CompendiumId, CompendiumSet};
use super::index::{KIND_OBJECT, KIND_RUN};
use super::phive::PhiveWrapper;
use super::items::Items;
use super::type_writer;
use super::write::{self as tag_write, TypesOut};
use super::{TagFile, TypeSource};
use crate::error::{ErrorKind, Result, ValueError};
pub use crate::xml_text::FloatForm;
use crate::xml_text::{attr_value, located, short_decimal, unescape, utf8_text, Ev, Pull, Txt};
use crate::reflect::layout::Layouts;
use super::walk::{Build, Got, Open, RunFacts, Scalar, TagSink, TagSource, Walk};
use crate::reflect::{Field, Interface, Kind, SizeAlign, TemplateArg, TemplateParam, TypeIndex, TypeRecord, TypeTable};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write as _;

/// How deep values may nest (records, arrays) in reading and writing: the bound of the value walk
/// both directions go through.
pub use super::walk::MAX_DEPTH;

/// What the error for a type without member records starts with: HKLib's files list no members,
/// so their record values cannot be laid out without a type registry (`hkgen verify` skips such a
/// file, saying so).
pub const NO_MEMBERS: &str = "hktagfile XML without member records";

/// The `SDKV` of a file whose root names none (HKLib's files do not).
pub const DEFAULT_SDKV: &str = "20180100";

/// Item bytes a text may describe: this many per byte of text, plus [`BYTES_SLACK`].
const BYTES_PER_TEXT_BYTE: usize = 16;
const BYTES_SLACK: usize = 1 << 20;

/// XML text [`write()`] may give: this many bytes per byte of the `DATA` section, plus
/// [`TEXT_SLACK`]. The corpus needs at most a sixth of it (43, an Elden Ring effect file whose
/// byte arrays take an `<integer>` element per byte; `tests/tagfile_xml.rs`); a type table
/// of many members of no size, or a run that many slots name, could otherwise make the text grow
/// without bound in the input's size (each member of a record may itself be a record of many
/// members of no size at the same offset, 64 levels deep; members that share bytes are refused
/// with the types). Past it, writing stops with an error.
pub const TEXT_PER_DATA_BYTE: usize = 256;
/// Text [`write()`] may give beyond [`TEXT_PER_DATA_BYTE`] per data byte: room for the type
/// records and for small files.
pub const TEXT_SLACK: usize = 64 << 20;

/// Options of [`write()`].
#[derive(Clone, Copy, Debug, Default)]
pub struct WriteOptions {
    /// How the `dec` text of reals is printed (the `hex` keeps the bits either way).
    pub floats: FloatForm,
}

// ---------------------------------------------------------------------------------------------
// Writing

fn hex(out: &mut String, bytes: &[u8]) {
    for b in bytes {
        write!(out, "{b:02x}").unwrap();
    }
}

fn escape_attr(out: &mut String, s: &str) {
    if !s.bytes().any(|b| matches!(b, b'&' | b'<' | b'>' | b'"' | b'\t' | b'\n' | b'\r')) {
        out.push_str(s);
        return;
    }
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\t' | '\n' | '\r' => write!(out, "&#{};", c as u32).unwrap(),
            c => out.push(c),
        }
    }
}

/// Whether `s` can stand as XML attribute text (no control character but tab, newline, return).
fn xml_text(s: &str) -> bool {
    s.chars().all(|c| c >= ' ' || matches!(c, '\t' | '\n' | '\r'))
}

fn indent(out: &mut String, n: usize) {
    const SPACES: &str = "                                                                                                                                                                ";
    match SPACES.get(..2 * n) {
        Some(s) => out.push_str(s),
        None => {
            for _ in 0..n {
                out.push_str("  ");
            }
        }
    }
}

/// `x` in decimal, as an `i64` or `u64` (what an integer of up to 8 bytes reads as).
fn int(out: &mut String, x: i128) {
    let mut b = itoa::Buffer::new();
    out.push_str(match (i64::try_from(x), u64::try_from(x)) {
        (Ok(v), _) => b.format(v),
        (_, Ok(v)) => b.format(v),
        _ => b.format(x),
    });
}

/// `x` in lowercase hex, no leading zeros (`{x:x}`).
fn hex_u64(out: &mut String, x: u64) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut buf = [0u8; 16];
    let n = (64 - x.leading_zeros() as usize).div_ceil(4).max(1);
    for (k, d) in buf[..n].iter_mut().enumerate() {
        *d = DIGITS[((x >> (4 * (n - 1 - k))) & 0xF) as usize];
    }
    out.push_str(std::str::from_utf8(&buf[..n]).unwrap_or_default());
}

/// The XML spelling of a tagfile's values: the sink of the one walk ([`super::walk`]).
struct XmlWriter {
    /// Per item: whether more than one slot names it (a run written with its `run` number).
    shared: Vec<bool>,
    out: String,
    /// How long `out` may grow (see [`TEXT_PER_DATA_BYTE`]).
    limit: usize,
    floats: FloatForm,
    /// The indentation of the value being written.
    ind: usize,
}

/// A TAG0 file as `<hktagfile version="3">` XML (see the module docs).
pub fn write(file: &TagFile<'_>, options: WriteOptions) -> Result<String> {
    write_inner(file, None, options)
}

/// The tagfile of a Phive file (`phive` keeps the rest of it) as `<hktagfile version="3">` XML:
/// [`write()`]'s, with the wrapper in the root's `phive` attribute ([`PhiveWrapper::to_hex`]), so
/// that [`XmlTagfile::write_file`] gives the whole file again.
pub fn write_phive(file: &TagFile<'_>, phive: &PhiveWrapper, options: WriteOptions) -> Result<String> {
    write_inner(file, Some(phive), options)
}

fn write_inner(file: &TagFile<'_>, phive: Option<&PhiveWrapper>, options: WriteOptions) -> Result<String> {
    let mut layouts = file.layouts();
    let items = Items::read(file, &mut layouts)?;
    let named = items.inline_referrers();
    let shared = named.iter().map(|&n| n > 1).collect();
    let mut walk = Walk::new(&items, layouts);
    let mut w = XmlWriter {
        shared,
        out: String::new(),
        limit: file.data.len().saturating_mul(TEXT_PER_DATA_BYTE).saturating_add(TEXT_SLACK),
        floats: options.floats,
        ind: 2,
    };
    w.out
        .push_str("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<hktagfile version=\"3\" sdkversion=\"");
    escape_attr(&mut w.out, &String::from_utf8_lossy(file.sdkv_raw));
    w.out.push('"');
    if let TypeSource::Compendium { id, rest } = &file.source {
        w.out.push_str(" compendium=\"");
        hex(&mut w.out, &id.0);
        w.out.push_str("\" tcrf=\"");
        hex(&mut w.out, rest);
        w.out.push('"');
    }
    if !file.trailing.is_empty() {
        w.out.push_str(" trailing=\"");
        hex(&mut w.out, file.trailing);
        w.out.push('"');
    }
    if let Some(p) = phive {
        w.out.push_str(" phive=\"");
        w.out.push_str(&p.to_hex());
        w.out.push('"');
    }
    w.out.push_str(">\n");
    w.types(&file.types);
    for (i, it) in items.items.iter().enumerate().skip(1) {
        if !it.is_object() {
            continue;
        }
        write!(w.out, "  <object id=\"object{i}\" typeid=\"type{}\"", it.ty).unwrap();
        if it.kind_byte != KIND_OBJECT << 4 {
            write!(w.out, " kind=\"{}\"", it.kind_byte).unwrap();
        }
        w.out.push_str(">\n");
        w.ind = 2;
        walk.object(&mut w, it.ty, &it.bytes).map_err(|e| e.in_context(format!("object{i}")))?;
        w.out.push_str("  </object>\n");
    }
    w.out.push_str("</hktagfile>\n");
    Ok(w.out)
}

impl XmlWriter {
    fn types(&mut self, table: &TypeTable) {
        let o = &mut self.out;
        for (i, t) in table.iter() {
            write!(o, "  <type id=\"type{i}\">\n    <name value=\"").unwrap();
            escape_attr(o, &t.name);
            o.push_str("\" />\n");
            if t.parent != 0 {
                writeln!(o, "    <parent id=\"type{}\" />", t.parent).unwrap();
            }
            if let Some(f) = t.format {
                writeln!(o, "    <format value=\"{f}\" />").unwrap();
            }
            if let Some(s) = t.subtype {
                writeln!(o, "    <subtype id=\"type{s}\" />").unwrap();
            }
            if let Some(v) = t.version {
                writeln!(o, "    <version value=\"{v}\" />").unwrap();
            }
            let params = table.params_of(t);
            if !params.is_empty() {
                writeln!(o, "    <parameters count=\"{}\">", params.len()).unwrap();
                for p in params {
                    o.push_str("      <");
                    match p.arg {
                        TemplateArg::Type(ti) => write!(o, "typeparam id=\"type{ti}\" name=\"").unwrap(),
                        TemplateArg::Value(v) => write!(o, "valueparam value=\"{v}\" name=\"").unwrap(),
                    }
                    escape_attr(o, &p.name);
                    o.push_str("\" />\n");
                }
                o.push_str("    </parameters>\n");
            }
            if let Some(s) = t.size {
                writeln!(o, "    <size value=\"{}\" align=\"{}\" />", s.size, s.align).unwrap();
            }
            if let Some(f) = t.flags {
                writeln!(o, "    <flags value=\"{f}\" />").unwrap();
            }
            if t.fields.is_some() {
                let fields = table.fields_of(t);
                writeln!(
                    o,
                    "    <members count=\"{}\" properties=\"{}\">",
                    fields.len(),
                    t.properties.unwrap_or(0)
                )
                .unwrap();
                for f in fields {
                    o.push_str("      <member name=\"");
                    escape_attr(o, &f.name);
                    write!(o, "\" flags=\"{}\" offset=\"{}\" typeid=\"type{}\"", f.flags, f.offset, f.ty).unwrap();
                    if f.flags & crate::reflect::field_flags::AUX != 0 {
                        // Not in HKLib's form: SDK 2022.1's number after the flags (hkgen's own).
                        write!(o, " aux=\"{}\"", f.aux).unwrap();
                    }
                    o.push_str(" />\n");
                }
                o.push_str("    </members>\n");
            }
            if let Some(ifs) = &t.interfaces {
                writeln!(o, "    <interfaces count=\"{}\">", ifs.len()).unwrap();
                for f in ifs {
                    writeln!(o, "      <interface typeid=\"type{}\" value=\"{}\" />", f.ty, f.value).unwrap();
                }
                o.push_str("    </interfaces>\n");
            }
            if let Some(h) = t.hash {
                writeln!(o, "    <hash value=\"{h}\" />").unwrap();
            }
            o.push_str("  </type>\n");
        }
    }

    fn real(&mut self, x: f32) {
        self.out.push_str("<real dec=\"");
        match self.floats {
            FloatForm::Shortest => self.out.push_str(ryu::Buffer::new().format(x)),
            FloatForm::Havok => write!(self.out, "{x:.6}").unwrap(),
        }
        let wide = f64::from(x);
        if (wide as f32).to_bits() == x.to_bits() {
            self.out.push_str("\" hex=\"#");
            hex_u64(&mut self.out, wide.to_bits());
            self.out.push_str("\" />");
        } else {
            // A NaN whose bits a double does not keep.
            write!(self.out, "\" bits=\"{:#010x}\" />", x.to_bits()).unwrap();
        }
    }

    /// `<array count="N" elementtypeid="typeT"`.
    fn array(&mut self, count: impl itoa::Integer, ty: TypeIndex) {
        self.out.push_str("<array count=\"");
        self.out.push_str(itoa::Buffer::new().format(count));
        self.out.push_str("\" elementtypeid=\"type");
        self.out.push_str(itoa::Buffer::new().format(ty));
        self.out.push('"');
    }

    /// ` run="N"` for a run that more than one slot names: the reader makes it once.
    fn run_number(&mut self, index: u32) {
        if self.shared.get(index as usize).copied().unwrap_or(false) {
            write!(self.out, " run=\"{index}\"").unwrap();
        }
    }
}

impl TagSink for XmlWriter {
    type Out = ();
    type Acc = ();

    fn enter(&mut self) -> Result<(), ValueError> {
        // One value adds at most its own bytes' text (bounded by the value's size) past this check.
        if self.out.len() > self.limit {
            return Err(ValueError::new(ErrorKind::Invalid(format!(
                "the XML text would exceed {} bytes ({TEXT_PER_DATA_BYTE} per byte of DATA, plus {} MiB): \
                 the types hold many members of no size, or many slots name one run",
                self.limit,
                TEXT_SLACK >> 20
            ))));
        }
        indent(&mut self.out, self.ind);
        Ok(())
    }

    fn scalar(&mut self, s: Scalar<'_>, _: &str) -> Result<(), ValueError> {
        match s {
            Scalar::Bool(_, 0, _) => self.out.push_str("<bool value=\"false\" />"),
            Scalar::Bool(_, 1, _) => self.out.push_str("<bool value=\"true\" />"),
            Scalar::Bool(_, b, _) => write!(self.out, "<bool value=\"{b}\" />").unwrap(),
            Scalar::Int(_, v) => {
                self.out.push_str("<integer value=\"");
                int(&mut self.out, v);
                self.out.push_str("\" />");
            }
            Scalar::Real(x) => self.real(x),
            Scalar::Null | Scalar::NullArray => self.out.push_str("<null />"),
            Scalar::Pointer(i) => {
                self.out.push_str("<pointer id=\"object");
                self.out.push_str(itoa::Buffer::new().format(i));
                self.out.push_str("\" />");
            }
            Scalar::Str(i, run) => {
                let text = run
                    .bytes
                    .strip_suffix(&[0])
                    .and_then(|t| std::str::from_utf8(t).ok())
                    .filter(|t| !t.contains('\0') && xml_text(t));
                match text {
                    Some(t) => {
                        self.out.push_str("<string value=\"");
                        escape_attr(&mut self.out, t);
                    }
                    None => {
                        self.out.push_str("<string bytes=\"");
                        hex(&mut self.out, &run.bytes);
                    }
                }
                self.out.push_str("\" elementtypeid=\"type");
                self.out.push_str(itoa::Buffer::new().format(run.ty));
                self.out.push('"');
                self.run_number(i);
                self.out.push_str(" />");
            }
            Scalar::Bytes(bytes) => {
                self.out.push_str("<bytes value=\"");
                hex(&mut self.out, bytes);
                self.out.push_str("\" />");
            }
        }
        self.out.push('\n');
        Ok(())
    }

    fn begin(&mut self, open: &Open<'_>, _: &str) -> Result<(), ValueError> {
        match *open {
            Open::Record(0) => self.out.push_str("<record />"),
            Open::Record(_) => self.out.push_str("<record>\n"),
            Open::Run(i, run, _) => {
                self.array(run.count, run.ty);
                if run.kind_byte != KIND_RUN << 4 {
                    write!(self.out, " kind=\"{}\"", run.kind_byte).unwrap();
                }
                self.run_number(i);
            }
            Open::Fixed { ty, count, .. } => self.array(count, ty),
            Open::Math => {}
        }
        if let Open::Record(1..) | Open::Run(..) | Open::Fixed { .. } = open {
            if self.walks(open) {
                if !matches!(open, Open::Record(_)) {
                    self.out.push_str(">\n");
                }
                self.ind += 1;
            } else if !matches!(open, Open::Record(_)) {
                self.out.push_str(" />");
            }
        }
        Ok(())
    }

    fn walks(&self, open: &Open<'_>) -> bool {
        match *open {
            Open::Record(n) => n > 0,
            Open::Run(_, run, _) => run.count > 0 && run.elem_size > 0,
            Open::Fixed { count, size, .. } => count > 0 && size > 0,
            Open::Math => true,
        }
    }

    fn field(&mut self, name: &str) {
        indent(&mut self.out, self.ind);
        self.out.push_str("<field name=\"");
        escape_attr(&mut self.out, name);
        self.out.push_str("\">\n");
        self.ind += 1;
    }

    fn push(&mut self, _: &mut (), field: Option<(TypeIndex, &Field)>, _: ()) {
        if field.is_some() {
            self.ind -= 1;
            indent(&mut self.out, self.ind);
            self.out.push_str("</field>\n");
        }
    }

    fn end(&mut self, open: &Open<'_>, _: ()) -> Result<(), ValueError> {
        if self.walks(open) && !matches!(open, Open::Math) {
            self.ind -= 1;
            indent(&mut self.out, self.ind);
            self.out.push_str(if matches!(open, Open::Record(_)) { "</record>" } else { "</array>" });
        }
        self.out.push('\n');
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Reading

/// A tagfile read from XML: its `SDKV`, types and items, ready to be written as TAG0.
#[derive(Clone, Debug)]
pub struct XmlTagfile {
    /// The `SDKV` body (the root's `sdkversion`, else [`DEFAULT_SDKV`]).
    pub sdkv: Vec<u8>,
    /// The types of the `<type>` records, the null type first.
    pub types: TypeTable,
    /// The items: the objects in document order (the first is the root), then their runs.
    pub items: Items,
    /// The compendium of a TCRF file and the `TCRF` bytes after its id.
    pub compendium: Option<(CompendiumId, Vec<u8>)>,
    /// Bytes after the `TAG0` section.
    pub trailing: Vec<u8>,
    /// The Phive wrapper around the tagfile (the root's `phive`), which
    /// [`XmlTagfile::write_file`] writes around it.
    pub phive: Option<PhiveWrapper>,
}

impl XmlTagfile {
    /// The file the XML describes: [`XmlTagfile::write_tag0`]'s tagfile, in its Phive wrapper
    /// when the XML keeps one (offsets and sizes recomputed around it).
    pub fn write_file(&self, compendia: &CompendiumSet) -> Result<Vec<u8>> {
        let tag0 = self.write_tag0(compendia)?;
        Ok(match &self.phive {
            Some(w) => w.wrap(&tag0),
            None => tag0,
        })
    }


    /// The TAG0 file: the items laid out as Havok does, then a `TCRF` when the XML names a
    /// compendium that `compendia` holds, else a `TYPE` section generated from the types.
    pub fn write_tag0(&self, compendia: &CompendiumSet) -> Result<Vec<u8>> {
        let mut layouts = Layouts::new(&self.types);
        let plan = tag_write::plan(&self.items, &mut layouts)?;
        let (data, table, patches) = tag_write::lay_out(&self.items, &plan);
        let tcrf;
        let section;
        let types = match &self.compendium {
            Some((id, rest)) if compendia.get(id).is_some() => {
                tcrf = [&id.0[..], rest].concat();
                TypesOut::Reference(&tcrf)
            }
            _ => {
                let style = type_writer::Style::for_sdk(&String::from_utf8_lossy(&self.sdkv));
                let order = type_writer::data_hash_order(&self.types, &table, &patches);
                section = type_writer::write_ordered(&self.types, style, &order);
                TypesOut::Section(&section)
            }
        };
        let mut out = tag_write::write_file(&self.sdkv, &data, types, &table, &patches);
        out.extend_from_slice(&self.trailing);
        Ok(out)
    }
}

/// `s.trim()`, without its scan of the ends where `s` starts and ends with an ASCII byte above the
/// space (an attribute value as written: every white space character is either at most b' ' or
/// not ASCII).
#[inline]
fn trim(s: &str) -> &str {
    match (s.as_bytes().first(), s.as_bytes().last()) {
        (Some(&a), Some(&b)) if a > b' ' && a < 0x80 && b > b' ' && b < 0x80 => s,
        _ => s.trim(),
    }
}

/// `t` as a hex number where it is 1 to 16 hex digits (what `u64::from_str_radix(t, 16)` reads
/// the same, in a few instructions a digit: the `hex` of every real); else `None`, for
/// `from_str_radix` to read or refuse.
#[inline]
fn hex_digits(t: &str) -> Option<u64> {
    if t.is_empty() || t.len() > 16 {
        return None;
    }
    let mut x = 0u64;
    for &b in t.as_bytes() {
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => return None,
        };
        x = x << 4 | u64::from(d);
    }
    Some(x)
}

/// `v` as a decimal number of 1 to 18 digits, after a `-` where `signed` (what `i64` or `u64`
/// parsing reads the same: no such number overflows); else `None`, for those to read or refuse.
#[inline]
fn decimal(v: &str, signed: bool) -> Option<i128> {
    let (neg, digits) = match v.as_bytes() {
        [b'-', rest @ ..] if signed => (true, rest),
        b => (false, b),
    };
    let x = short_decimal(digits)? as i64;
    Some(i128::from(if neg { -x } else { x }))
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    let s = s.trim().as_bytes();
    if !s.len().is_multiple_of(2) {
        return None;
    }
    s.chunks_exact(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).ok()?, 16).ok())
        .collect()
}

struct XmlReader<'x, 'i> {
    xml: &'x Tree<'i>,
    /// Where member-less types (HKLib's form) take their members from: the SDKs to try and their
    /// type tables.
    registry: Option<(&'x [&'x str], &'x TypesOf<'x>)>,
    /// The file is in HKLib's form (its types were completed from a type table): there an empty
    /// array, `<array count="0">`, is the null array Havok writes, not a run of no elements.
    hklib: bool,
    /// Keyed by ids the file chooses: std's seeded hash, so that no file makes its lookups collide
    /// (FxHash's collisions are easy to make).
    types: HashMap<&'x str, TypeIndex>,
    objects: HashMap<&'x str, u32>,
    /// The id of the object read.
    object: &'x str,
    /// Item bytes the text may describe.
    budget: usize,
}

/// The elements of a `<hktagfile>` text, read with the pull parser the packfile XML reader reads
/// with ([`Pull`]: end tags that match, names that are XML names, attributes not repeated, no
/// DTD, so no entity beyond XML's five): each element's name, where it starts, its attributes with
/// their references resolved, and its child elements. Character data between elements is checked
/// (its references) and left out: no value of this XML is text. The walk looks values up by node
/// ([`TagSource`]), so the elements are kept, in one vector, linked first child to next sibling.
struct Tree<'i> {
    text: &'i str,
    elems: Vec<Elem<'i>>,
    /// Every element's attributes, in text order: (name, value).
    attrs: Vec<(&'i str, Cow<'i, str>)>,
}

/// No element (a link's end).
const NO_ELEM: u32 = u32::MAX;

struct Elem<'i> {
    name: &'i str,
    /// Where its start tag starts.
    pos: usize,
    /// Its attributes: `attrs[attrs.0..attrs.1]` of the tree.
    attrs: (u32, u32),
    first_child: u32,
    next_sibling: u32,
}

/// An element of a [`Tree`].
#[derive(Clone, Copy)]
struct Node<'a, 'i> {
    tree: &'a Tree<'i>,
    id: u32,
}

impl<'a, 'i> Node<'a, 'i> {
    fn elem(&self) -> &'a Elem<'i> {
        &self.tree.elems[self.id as usize]
    }

    /// The element's name as written.
    fn name(&self) -> &'a str {
        self.elem().name
    }

    /// Where the element's start tag starts.
    fn pos(&self) -> usize {
        self.elem().pos
    }

    /// The value of attribute `name`, references resolved.
    #[inline]
    fn attribute(&self, name: &str) -> Option<&'a str> {
        let (a, b) = self.elem().attrs;
        self.tree.attrs[a as usize..b as usize].iter().find(|(k, _)| *k == name).map(|(_, v)| &**v)
    }
}

/// The child elements of `n`, in order.
fn elements<'a, 'i>(n: Node<'a, 'i>) -> impl Iterator<Item = Node<'a, 'i>> {
    let tree = n.tree;
    let mut next = n.elem().first_child;
    std::iter::from_fn(move || {
        let id = next;
        (id != NO_ELEM).then(|| {
            next = tree.elems[id as usize].next_sibling;
            Node { tree, id }
        })
    })
}

impl<'i> Tree<'i> {
    /// The root element (the tree has one: [`parse`] made sure).
    fn root(&self) -> Node<'_, 'i> {
        Node { tree: self, id: 0 }
    }
}

/// Reads the elements of XML text ([`Tree`]); an error is located by line and column. Work and
/// memory are linear in the text: elements are linked as they open, with a stack of the open
/// ones, never by recursion.
fn parse(text: &str, control: Option<usize>) -> Result<Tree<'_>, ValueError> {
    let mut pull = Pull::scanned(text, control)?;
    // Room for the elements and attributes up front, as many as the corpus's XML holds for its
    // length (an element and an attribute in 30-40 bytes: most values are empty elements of one
    // attribute, `<integer value="1"/>`, indented), growing past that where a text holds more.
    // Not counted: a pass to count `<` and `=` read a text larger than the cache from memory
    // twice more.
    let mut tree = Tree { text, elems: Vec::with_capacity(text.len() / 32 + 1), attrs: Vec::with_capacity(text.len() / 32) };
    // The open elements: each one's index and its last child so far.
    let mut open: Vec<(u32, u32)> = Vec::new();
    loop {
        // Inside the root the text is not kept: white space before a tag is passed over.
        let (at, ev) = if open.is_empty() { pull.next()? } else { pull.next_markup()? };
        match ev {
            Ev::Open(s) => {
                let bad = |what: &str| located(text, at, None, format!("XML: {what}"));
                let id = u32::try_from(tree.elems.len()).map_err(|_| bad("more elements than a file can hold"))?;
                let name = pull.slice(s.name().as_ref()).ok_or_else(|| bad("an element name outside the text"))?;
                if pull.attr_of != at {
                    return Err(bad("an attribute outside the text"));
                }
                let first = tree.attrs.len() as u32;
                for &(k, v, plain) in &pull.attr_buf {
                    tree.attrs.push((k, attr_value(v, plain).map_err(|e| bad(&e))?));
                }
                match open.last_mut() {
                    None if !tree.elems.is_empty() => return Err(bad("a second root element")),
                    None => {}
                    Some((parent, last)) => {
                        match *last {
                            NO_ELEM => tree.elems[*parent as usize].first_child = id,
                            l => tree.elems[l as usize].next_sibling = id,
                        }
                        *last = id;
                    }
                }
                tree.elems.push(Elem { name, pos: at, attrs: (first, tree.attrs.len() as u32), first_child: NO_ELEM, next_sibling: NO_ELEM });
                open.push((id, NO_ELEM));
            }
            Ev::Close => {
                open.pop().ok_or_else(|| located(text, at, None, "XML: an end tag without its start"))?;
            }
            Ev::Text(raw, kind) => {
                if open.is_empty() && (kind == Txt::CData || !raw.trim_ascii().is_empty()) {
                    return Err(located(text, at, None, "XML: text outside the root element"));
                }
                // Only its references are checked (the text is not kept): the white space
                // between elements has none.
                if kind == Txt::Refs && memchr::memchr(b'&', raw.as_bytes()).is_some() {
                    unescape(raw).map_err(|e| located(text, at, None, format!("XML: {e}")))?;
                }
            }
            Ev::Comment(_) => {}
            Ev::Eof => {
                if let Some(&(id, _)) = open.last() {
                    return Err(pull.unclosed(tree.elems[id as usize].pos));
                }
                if tree.elems.is_empty() {
                    return Err(located(text, at, None, "XML: no root element"));
                }
                return Ok(tree);
            }
        }
    }
}

/// The `SDKV` of an SDK version: `2019.1` -> `20190100` (the inverse of
/// [`super::file::sdk_version`]); anything else as it is.
fn sdkv_of(sdk: &str) -> String {
    let mut parts = sdk.split('.');
    let (Some(year), minor, patch) = (parts.next(), parts.next().unwrap_or("0"), parts.next().unwrap_or("0")) else { return sdk.to_owned() };
    match (year.len() == 4 && year.bytes().all(|b| b.is_ascii_digit()), minor.parse::<u8>(), patch.parse::<u8>()) {
        (true, Ok(m), Ok(p)) => format!("{year}{m:02}{p:02}"),
        _ => sdk.to_owned(),
    }
}

/// Completes the types of `records` (index 0 the null type) from `table`, for HKLib's form, which
/// writes names, parents, versions and template arguments only: each type whose full name
/// (template arguments included) `table` has becomes that type of `table`, with the version the
/// file states, its references renumbered into `records`. A member-less record `table` does not
/// have, or has at another version, is an error, with the index of the record. Types the members
/// name that `records` lacks are appended, copied from `table` with what they name.
fn complete_types(records: &mut Vec<TypeRecord>, table: &TypeTable) -> Result<(), (usize, String)> {
    let file = TypeTable::from_records(records.iter().cloned());
    let mut in_table: HashMap<String, TypeIndex> = HashMap::new();
    for j in (1..table.types.len()).rev() {
        in_table.insert(table.full_name(j as TypeIndex), j as TypeIndex);
    }
    // Table index -> file index, for the types both have.
    let mut to_file: HashMap<TypeIndex, TypeIndex> = HashMap::from([(0, 0)]);
    let mut matched: Vec<Option<TypeIndex>> = vec![None];
    for i in 1..records.len() {
        let j = in_table.get(&file.full_name(i as TypeIndex)).copied();
        if let Some(j) = j {
            to_file.entry(j).or_insert(i as TypeIndex);
        }
        matched.push(j);
    }
    for i in 1..records.len() {
        let member_less = records[i].format.is_some_and(|f| crate::reflect::TypeFormat(f).kind() == Kind::Record) && records[i].fields.is_none();
        let Some(j) = matched[i] else {
            if member_less {
                return Err((i, format!("type {} is not in the type table", file.full_name(i as TypeIndex))));
            }
            continue;
        };
        let Some(t) = table.record(j) else { return Err((i, format!("type {j} of the table has no record"))) };
        if records[i].version.is_some() && records[i].version != t.version {
            return Err((i, format!("type {} is version {:?} here, {:?} in the type table", t.name, records[i].version, t.version)));
        }
        records[i] = renumbered(records, table, &mut to_file, t)?;
    }
    Ok(())
}

/// Table record `t` with the types it names as file indices ([`import`]).
fn renumbered(records: &mut Vec<TypeRecord>, table: &TypeTable, to_file: &mut HashMap<TypeIndex, TypeIndex>, t: TypeRecord) -> Result<TypeRecord, (usize, String)> {
    let mut r = t;
    r.parent = import(records, table, to_file, r.parent)?;
    r.subtype = match r.subtype {
        Some(st) => Some(import(records, table, to_file, st)?),
        None => None,
    };
    for p in &mut r.params {
        if let TemplateArg::Type(a) = p.arg {
            p.arg = TemplateArg::Type(import(records, table, to_file, a)?);
        }
    }
    if let Some(fs) = &mut r.fields {
        for f in fs {
            f.ty = import(records, table, to_file, f.ty)?;
        }
    }
    Ok(r)
}

/// The file index of table type `j`, appending it (and what it names) to `records` when the file
/// lacks it.
fn import(records: &mut Vec<TypeRecord>, table: &TypeTable, to_file: &mut HashMap<TypeIndex, TypeIndex>, j: TypeIndex) -> Result<TypeIndex, (usize, String)> {
    if let Some(&i) = to_file.get(&j) {
        return Ok(i);
    }
    let Some(t) = table.record(j) else { return Err((0, format!("type {j} of the table has no record"))) };
    // Reserved first: a type may name itself through its members.
    let i = records.len() as TypeIndex;
    to_file.insert(j, i);
    records.push(TypeRecord::default());
    records[i as usize] = renumbered(records, table, to_file, t)?;
    Ok(i)
}

/// The element children of `n` (text, comments and processing instructions passed over).
/// The type table of a tagfile SDK (`2018.1`), where one is known: `hkclasses::REGISTRY`'s
/// [`crate::ClassRegistry::tagfile_types`].
pub type TypesOf<'a> = dyn Fn(&str) -> Option<std::sync::Arc<TypeTable>> + 'a;

/// Reads `<hktagfile version="3">` XML (see the module docs). Types in HKLib's form (no members,
/// no size) are an error ([`NO_MEMBERS`]): [`read_with`] completes them from a type table.
pub fn read(bytes: &[u8]) -> Result<XmlTagfile> {
    read_inner(bytes, None)
}

/// [`read`], taking what the types in HKLib's form leave out (members, size and alignment, flags)
/// from the type table `types_of` gives for the file's SDK: the one its `sdkversion` names, else
/// (HKLib writes none) the first of `sdks` whose table has every such type, by full name
/// (template arguments included) and with the version the file states; the file is then of that
/// SDK. Types the members need that the file lacks are added.
pub fn read_with(bytes: &[u8], sdks: &[&str], types_of: &TypesOf<'_>) -> Result<XmlTagfile> {
    read_inner(bytes, Some((sdks, types_of)))
}

fn read_inner(bytes: &[u8], registry: Option<(&[&str], &TypesOf<'_>)>) -> Result<XmlTagfile> {
    let (text, control) = utf8_text(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)).map_err(|at| ValueError::invalid(at as u64, "hktagfile XML: not UTF-8"))?;
    let xml = parse(text, control)?;
    let budget = text.len().saturating_mul(BYTES_PER_TEXT_BYTE).saturating_add(BYTES_SLACK);
    let r = XmlReader {
        xml: &xml,
        registry,
        hklib: false,
        types: HashMap::new(),
        objects: HashMap::new(),
        object: "",
        budget,
    };
    Ok(r.document()?)
}

impl<'x, 'i> XmlReader<'x, 'i> {
    /// An error at `node`; `at`: in the object read, at that member path.
    fn fail(&self, node: Node<'_, '_>, at: Option<&str>, msg: impl std::fmt::Display) -> ValueError {
        let place = at.as_ref().map(|path| (self.object, (!path.is_empty()).then_some(path as &dyn std::fmt::Display)));
        located(self.xml.text, node.pos(), place, msg)
    }

    #[inline]
    fn attr(&self, n: Node<'x, 'i>, at: Option<&str>, name: &str) -> Result<&'x str, ValueError> {
        match n.attribute(name) {
            Some(v) => Ok(v),
            None => Err(self.without(n, at, name)),
        }
    }

    /// [`XmlReader::attr`]'s error.
    #[cold]
    #[inline(never)]
    fn without(&self, n: Node<'x, 'i>, at: Option<&str>, name: &str) -> ValueError {
        self.fail(n, at, format!("<{}> without {name}", n.name()))
    }

    fn number<T: std::str::FromStr>(&self, n: Node<'x, 'i>, at: Option<&str>, name: &str) -> Result<T, ValueError> {
        let v = self.attr(n, at, name)?;
        trim(v)
            .parse()
            .map_err(|_| self.fail(n, at, format!("{name} {v:?} is not a number in range")))
    }

    fn type_ref(&self, n: Node<'x, 'i>, at: Option<&str>, name: &str) -> Result<TypeIndex, ValueError> {
        let id = self.attr(n, at, name)?;
        self.types
            .get(id)
            .copied()
            .ok_or_else(|| self.fail(n, at, format!("unknown type id {id:?}")))
    }

    fn document(mut self) -> Result<XmlTagfile, ValueError> {
        let root = self.xml.root();
        if root.name() != "hktagfile" {
            return Err(self.fail(root, None, format!("<{}> where <hktagfile> belongs", root.name())));
        }
        let version: u32 = self.number(root, None, "version")?;
        if version != 3 {
            return Err(self.fail(root, None, format!("hktagfile version {version}: only version 3 is read")));
        }
        let mut sdkv = root.attribute("sdkversion").unwrap_or(DEFAULT_SDKV).as_bytes().to_vec();
        let hex_attr = |name: &str| -> Result<Option<Vec<u8>>, ValueError> {
            root.attribute(name)
                .map(|v| unhex(v).ok_or_else(|| self.fail(root, None, format!("{name} {v:?} is not hex"))))
                .transpose()
        };
        let compendium = match hex_attr("compendium")? {
            Some(id) => {
                let id: [u8; 8] = id.try_into().map_err(|_| self.fail(root, None, "compendium is not 8 bytes"))?;
                Some((CompendiumId(id), hex_attr("tcrf")?.unwrap_or_default()))
            }
            None => None,
        };
        let trailing = hex_attr("trailing")?.unwrap_or_default();
        let phive = root
            .attribute("phive")
            .map(|v| PhiveWrapper::from_hex(v).map_err(|e| self.fail(root, None, format!("phive: byte {:#x} of the wrapper: {}", e.offset().unwrap_or(0), e.kind()))))
            .transpose()?;
        let (mut type_nodes, mut object_nodes) = (Vec::new(), Vec::new());
        for n in elements(root) {
            match n.name() {
                "type" => type_nodes.push(n),
                "object" => object_nodes.push(n),
                other => return Err(self.fail(n, None, format!("<{other}> where <type> or <object> belongs"))),
            }
        }
        // `type0` is the null type (a subtype or template argument of none).
        self.types.insert("type0", 0);
        for (k, n) in type_nodes.iter().enumerate() {
            let id = self.attr(*n, None, "id")?;
            if self.types.insert(id, k as TypeIndex + 1).is_some() {
                return Err(self.fail(*n, None, format!("a second type {id:?}")));
            }
        }
        let mut records = vec![TypeRecord::default()];
        for n in &type_nodes {
            records.push(self.type_record(*n)?);
        }
        // A record type of an object's values with neither members nor a size: HKLib's form.
        let member_less = |records: &[TypeRecord]| {
            records.iter().position(|r| r.format.is_some_and(|f| crate::reflect::TypeFormat(f).kind() == Kind::Record) && r.fields.is_none() && r.size.is_none())
        };
        if let Some(k) = member_less(&records) {
            let name = records[k].name.clone();
            let stated = root.attribute("sdkversion").map(super::file::sdk_version);
            let Some((sdks, types_of)) = self.registry else {
                return Err(self.fail(type_nodes[k - 1], None, format!("{NO_MEMBERS}: type {name} (HKLib's form; its values need a type registry)")));
            };
            let candidates: Vec<&str> = match &stated {
                Some(sdk) => vec![sdk.as_str()],
                None => sdks.to_vec(),
            };
            // Each SDK tried, and why it did not fit (the first record it failed on).
            let mut tried: Vec<(usize, String)> = Vec::new();
            let mut done = false;
            for sdk in candidates {
                let Some(table) = types_of(sdk) else {
                    tried.push((k, format!("SDK {sdk}: no type table was given")));
                    continue;
                };
                let mut completed = records.clone();
                match complete_types(&mut completed, &table) {
                    Ok(()) => {
                        records = completed;
                        sdkv = sdkv_of(sdk).into_bytes();
                        self.hklib = true;
                        done = true;
                        break;
                    }
                    Err((k, e)) => tried.push((k, format!("SDK {sdk}: {e}"))),
                }
            }
            if !done {
                let at = tried.first().map_or(k, |t| t.0.max(1));
                let why: Vec<&str> = tried.iter().map(|t| t.1.as_str()).collect();
                let why = if why.is_empty() { "no SDK to try".to_owned() } else { why.join("; ") };
                return Err(self.fail(type_nodes[at - 1], None, format!("{NO_MEMBERS}: type {name} (HKLib's form): no type table fits: {why}")));
            }
        }
        // A type whose values are item indices (strings, pointers, arrays that are not fixed)
        // states its size, and one that holds the 4-byte index: without one the TAG0 file
        // written from it loses those items (the tagfile_xml fuzz target's fourth finding), and
        // in fewer bytes the index is not written (its seventh: a 2-byte string type, its run
        // written as an item nothing named).
        let indexed = |r: &TypeRecord| r.format.map(crate::reflect::TypeFormat).is_some_and(|f| matches!(f.kind(), Kind::String | Kind::Pointer) || (f.kind() == Kind::Array && !f.is_fixed_array()));
        if let Some(k) = records.iter().position(|r| indexed(r) && r.size.is_none_or(|s| s.size < 4)) {
            let at = type_nodes.get(k.wrapping_sub(1)).copied().unwrap_or(root);
            let why = match records[k].size {
                None => "without <size>".to_owned(),
                Some(s) => format!("of {} bytes, under the 4 its item index takes", s.size),
            };
            return Err(self.fail(at, None, format!("type {}: a string, pointer or array type {why}", records[k].name)));
        }
        let types = TypeTable::from_records(records);
        // The checks the TAG0 reader makes of a `TYPE` section (parent chains end; every member
        // lies inside its record; no two members, own or inherited, share a byte): the TAG0 file
        // written from this XML must read back, with every value the XML gave.
        super::type_section::validate(&types).map_err(|e| self.fail(root, None, format!("the types: {e}")))?;
        for (k, n) in object_nodes.iter().enumerate() {
            let id = self.attr(*n, None, "id")?;
            if self.objects.insert(id, k as u32 + 1).is_some() {
                return Err(self.fail(*n, None, format!("a second object {id:?}")));
            }
        }
        let mut heads = Vec::with_capacity(object_nodes.len());
        for n in &object_nodes {
            self.object = n.attribute("id").unwrap_or_default();
            let ty = self.type_ref(*n, Some(""), "typeid")?;
            let kind_byte = match n.attribute("kind") {
                Some(_) => self.number(*n, Some(""), "kind")?,
                None => KIND_OBJECT << 4,
            };
            heads.push((ty, kind_byte));
        }
        let mut b = Build::new(&types, self.budget, heads.into_iter());
        for (k, n) in object_nodes.iter().enumerate() {
            self.object = n.attribute("id").unwrap_or_default();
            let mut vals = elements(*n);
            let (Some(v), None) = (vals.next(), vals.next()) else {
                return Err(self.fail(*n, Some(""), "an <object> holds exactly one value"));
            };
            b.object(&self, k + 1, v)?;
        }
        let items = Items { items: b.items };
        Ok(XmlTagfile {
            sdkv,
            types,
            items,
            compendium,
            trailing,
            phive,
        })
    }

    fn type_record(&self, n: Node<'x, 'i>) -> Result<TypeRecord, ValueError> {
        let mut r = TypeRecord::default();
        for c in elements(n) {
            match c.name() {
                "name" => r.name = self.attr(c, None, "value")?.into(),
                "parent" => r.parent = self.type_ref(c, None, "id")?,
                "format" => r.format = Some(self.number(c, None, "value")?),
                "subtype" => r.subtype = Some(self.type_ref(c, None, "id")?),
                "version" => r.version = Some(self.number(c, None, "value")?),
                "size" => {
                    r.size = Some(SizeAlign {
                        size: self.number(c, None, "value")?,
                        align: self.number(c, None, "align")?,
                    })
                }
                "flags" => r.flags = Some(self.number(c, None, "value")?),
                "hash" => r.hash = Some(self.number(c, None, "value")?),
                "parameters" => {
                    for p in elements(c) {
                        let (arg, default) = match p.name() {
                            "typeparam" => (TemplateArg::Type(self.type_ref(p, None, "id")?), "tT"),
                            "valueparam" => (TemplateArg::Value(self.number(p, None, "value")?), "vN"),
                            other => return Err(self.fail(p, None, format!("<{other}> where <typeparam> or <valueparam> belongs"))),
                        };
                        let name = p.attribute("name").unwrap_or(default);
                        // TAG0 tells a type parameter from a value parameter by the name's first
                        // letter, as the reader of a TYPE section does.
                        if !name.starts_with(&default[..1]) {
                            return Err(self.fail(p, None, format!("<{}> named {name:?}: the name must start with `{}`", p.name(), &default[..1])));
                        }
                        r.params.push(TemplateParam { name: name.into(), arg });
                    }
                }
                "members" => {
                    r.properties = Some(match c.attribute("properties") {
                        Some(_) => self.number(c, None, "properties")?,
                        None => 0,
                    });
                    let mut fields = Vec::new();
                    for m in elements(c) {
                        if m.name() != "member" {
                            return Err(self.fail(m, None, format!("<{}> where <member> belongs", m.name())));
                        }
                        let flags: u32 = self.number(m, None, "flags")?;
                        let aux = match m.attribute("aux") {
                            Some(_) if flags & crate::reflect::field_flags::AUX != 0 => self.number(m, None, "aux")?,
                            Some(_) => return Err(self.fail(m, None, "<member aux=...> without flag 0x80")),
                            None if flags & crate::reflect::field_flags::AUX != 0 => {
                                return Err(self.fail(m, None, "<member> with flag 0x80 needs aux=..."))
                            }
                            None => 0,
                        };
                        fields.push(Field {
                            name: self.attr(m, None, "name")?.into(),
                            flags,
                            offset: self.number(m, None, "offset")?,
                            ty: self.type_ref(m, None, "typeid")?,
                            aux,
                        });
                    }
                    r.fields = Some(fields);
                }
                "interfaces" => {
                    let mut list = Vec::new();
                    for m in elements(c) {
                        list.push(Interface {
                            ty: self.type_ref(m, None, "typeid")?,
                            value: self.number(m, None, "value")?,
                        });
                    }
                    r.interfaces = Some(list);
                }
                other => return Err(self.fail(c, None, format!("<{other}> in a <type>"))),
            }
        }
        Ok(r)
    }

    /// The run facts of a `<string>` or `<array>`: its `elementtypeid`, `kind` and `run`.
    fn facts(&self, n: Node<'x, 'i>, path: &str) -> Result<RunFacts, ValueError> {
        Ok(RunFacts {
            elem: match n.attribute("elementtypeid") {
                Some(_) => Some(self.type_ref(n, Some(path), "elementtypeid")?),
                None => None,
            },
            kind: match n.attribute("kind") {
                Some(_) => Some(self.number(n, Some(path), "kind")?),
                None => None,
            },
            share: n.attribute("run").map(str::to_owned),
            // HKLib's `<array count="0">` is the null array Havok writes.
            null_if_empty: self.hklib,
        })
    }

    fn real_of(&self, n: Node<'x, 'i>, at: &str) -> Result<f32, ValueError> {
        if let Some(v) = n.attribute("bits") {
            let t = trim(v);
            let t = t.strip_prefix("0x").unwrap_or(t);
            return u32::from_str_radix(t, 16)
                .map(f32::from_bits)
                .map_err(|_| self.fail(n, Some(at), format!("bits {v:?} are not a 32-bit hex number")));
        }
        if let Some(v) = n.attribute("hex") {
            let t = trim(v);
            let t = t.strip_prefix('#').unwrap_or(t);
            let wide = hex_digits(t)
                .map_or_else(|| u64::from_str_radix(t, 16), Ok)
                .map(f64::from_bits)
                .map_err(|_| self.fail(n, Some(at), format!("hex {v:?} is not a 64-bit hex number")))?;
            let x = wide as f32;
            if f64::from(x).to_bits() != wide.to_bits() && !wide.is_nan() {
                return Err(self.fail(n, Some(at), format!("hex {v:?} is not a float's value")));
            }
            return Ok(x);
        }
        let v = self.attr(n, Some(at), "dec")?;
        trim(v)
            .parse::<f32>()
            .map_err(|_| self.fail(n, Some(at), format!("dec {v:?} is not a number")))
    }
}

impl<'x, 'i> TagSource<'x> for XmlReader<'x, 'i> {
    type Node = Node<'x, 'i>;
    const TEXT: &'static str = "text";

    fn err(&self, n: Self::Node, path: &str, msg: impl std::fmt::Display) -> ValueError {
        let place = (!path.is_empty()).then_some(&path as &dyn std::fmt::Display);
        located(self.xml.text, n.pos(), Some((self.object, place)), msg)
    }
    fn what(&self, n: Self::Node) -> String {
        format!("<{}>", n.name())
    }
    fn bytes(&self, n: Self::Node, path: &str, _: bool) -> Got<Cow<'x, [u8]>> {
        if n.name() != "bytes" {
            return Ok(None);
        }
        let v = self.attr(n, Some(path), "value")?;
        unhex(v).map(|b| Some(Cow::Owned(b))).ok_or_else(|| self.err(n, path, format!("bytes {v:?} are not hex")))
    }
    fn null(&self, n: Self::Node) -> bool {
        n.name() == "null"
    }
    fn bool(&self, n: Self::Node, path: &str) -> Got<u8> {
        if n.name() != "bool" {
            return Ok(None);
        }
        let v = self.attr(n, Some(path), "value")?;
        Ok(Some(match trim(v) {
            "true" => 1,
            "false" => 0,
            t => t.parse().map_err(|_| self.err(n, path, format!("bool {v:?} is not true, false or a byte")))?,
        }))
    }
    fn int(&self, n: Self::Node, path: &str, _: TypeIndex, _: Option<(TypeIndex, &str)>, signed: bool) -> Got<i128> {
        if n.name() != "integer" {
            return Ok(None);
        }
        let v = trim(self.attr(n, Some(path), "value")?);
        if let Some(x) = decimal(v, signed) {
            return Ok(Some(x));
        }
        let x = match signed {
            true => v.parse::<i64>().map(i128::from).map_err(|_| self.err(n, path, format!("{v:?} is not a signed integer")))?,
            false => v.parse::<u64>().map(i128::from).map_err(|_| self.err(n, path, format!("{v:?} is not an unsigned integer")))?,
        };
        Ok(Some(x))
    }
    fn real(&self, n: Self::Node, path: &str) -> Got<f32> {
        if n.name() != "real" {
            return Ok(None);
        }
        self.real_of(n, path).map(Some)
    }
    fn pointer(&self, n: Self::Node, path: &str) -> Got<u32> {
        if n.name() != "pointer" {
            return Ok(None);
        }
        let id = self.attr(n, Some(path), "id")?;
        let i = self.objects.get(id).ok_or_else(|| self.err(n, path, format!("pointer to a missing object {id:?}")))?;
        Ok(Some(*i))
    }
    fn string(&self, n: Self::Node, path: &str) -> Got<(Cow<'x, [u8]>, RunFacts)> {
        if n.name() != "string" {
            return Ok(None);
        }
        let bytes = match (n.attribute("value"), n.attribute("bytes")) {
            (Some(v), None) => Cow::Owned([v.as_bytes(), &[0]].concat()),
            (None, Some(h)) => Cow::Owned(unhex(h).ok_or_else(|| self.err(n, path, "string bytes are not hex"))?),
            _ => return Err(self.err(n, path, "a <string> has one of value and bytes")),
        };
        Ok(Some((bytes, self.facts(n, path)?)))
    }
    fn list(&self, n: Self::Node, path: &str) -> Got<(Vec<Self::Node>, RunFacts)> {
        if n.name() != "array" {
            return Ok(None);
        }
        let count: u32 = self.number(n, Some(path), "count")?;
        // Counted before they are collected: the vector made at its size.
        let len = elements(n).count();
        if len != count as usize {
            return Err(self.err(n, path, format!("count {count} but {len} elements")));
        }
        let mut children = Vec::with_capacity(len);
        children.extend(elements(n));
        Ok(Some((children, self.facts(n, path)?)))
    }
    fn fields(&self, n: Self::Node, path: &str, fields: &[(TypeIndex, &Field)]) -> Got<Vec<(&'x str, Self::Node)>> {
        if n.name() != "record" {
            return Ok(None);
        }
        let mut out = Vec::with_capacity(fields.len());
        // A field given twice would leave the first value's items in the file with nothing
        // pointing at them (the fuzzer's XML -> TAG0 -> XML -> TAG0 finding). Seen: the type's
        // fields by position (their names differ; the XML gives them in order, so each is looked
        // for after the one before), and names the type lacks (refused by the walk after).
        let mut seen = Seen::new(fields.len());
        let mut others = std::collections::HashSet::new();
        let mut next = 0;
        for c in elements(n) {
            if c.name() != "field" {
                return Err(self.err(c, path, format!("<{}> where <field> belongs", c.name())));
            }
            let fname = self.attr(c, Some(path), "name")?;
            let (head, tail) = fields.split_at(next.min(fields.len()));
            let at = match tail.iter().position(|(_, f)| f.name == fname) {
                Some(k) => Some(next + k),
                None => head.iter().position(|(_, f)| f.name == fname),
            };
            let again = match at {
                Some(k) => {
                    next = k + 1;
                    !seen.insert(k)
                }
                None => !others.insert(fname),
            };
            if again {
                return Err(self.err(c, path, format!("a second value of field {fname}")));
            }
            let mut vals = elements(c);
            let (Some(v), None) = (vals.next(), vals.next()) else {
                return Err(self.err(c, path, "a <field> holds exactly one value"));
            };
            out.push((fname, v));
        }
        Ok(Some(out))
    }
}

/// Positions met: a bit each, on the stack for records of up to 256 fields.
enum Seen {
    Small([u64; 4]),
    Big(Vec<u64>),
}

impl Seen {
    fn new(n: usize) -> Self {
        if n <= 256 { Seen::Small([0; 4]) } else { Seen::Big(vec![0; n.div_ceil(64)]) }
    }

    /// Marks `k`; false when it was marked.
    fn insert(&mut self, k: usize) -> bool {
        let words: &mut [u64] = match self {
            Seen::Small(w) => w,
            Seen::Big(w) => w,
        };
        let (w, bit) = (k / 64, 1u64 << (k % 64));
        let fresh = words[w] & bit == 0;
        words[w] |= bit;
        fresh
    }
}

#[cfg(test)]
mod tests {
    use super::{decimal, hex_digits, trim};

    /// The quick readings of numbers agree with the standard library's, and leave to it
    /// whatever they do not read.
    #[test]
    fn quick_numbers_read_as_std() {
        for v in ["0", "7", "-0", "-1", "+5", "-", "", "12a", "999999999999999999", "-999999999999999999", "1000000000000000000", "9223372036854775807", "-9223372036854775808", "18446744073709551615", "007", "1 ", "٣"] {
            for signed in [true, false] {
                let std = if signed { v.parse::<i64>().ok().map(i128::from) } else { v.parse::<u64>().ok().map(i128::from) };
                if let Some(x) = decimal(v, signed) {
                    assert_eq!(Some(x), std, "{v:?} signed {signed}");
                }
            }
            // Every 1-to-18-digit number reads quickly.
            if !v.is_empty() && v.len() <= 18 && v.bytes().all(|b| b.is_ascii_digit()) {
                assert!(decimal(v, false).is_some(), "{v:?}");
            }
        }
        for t in ["0", "3ff0000000000000", "3FF0000000000000", "ffffffffffffffff", "00000000000000001", "", "+1", "-1", "g", "10000000000000000"] {
            if let Some(x) = hex_digits(t) {
                assert_eq!(Ok(x), u64::from_str_radix(t, 16), "{t:?}");
            }
        }
        assert_eq!(hex_digits("3ff0000000000000"), Some(0x3ff0000000000000));
        for s in ["1", " 1", "1\n", "\u{a0}1\u{a0}", "", " ", "a\u{3000}"] {
            assert_eq!(trim(s), s.trim(), "{s:?}");
        }
    }
}
