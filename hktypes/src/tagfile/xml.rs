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
//! and give a located error. Parsing uses roxmltree: no DTD (so no entity beyond XML's five),
//! values nested at most [`MAX_DEPTH`] deep, item bytes bounded by the text's length; every error
//! names the line and column, and the object and member where there is one.

use super::compendium::{CompendiumId, CompendiumSet};
use super::index::{KIND_OBJECT, KIND_RUN};
use super::phive::PhiveWrapper;
use super::items::{ItemBytes, ItemData, Items};
use super::type_writer;
use super::write::{self as tag_write, TypesOut};
use super::{TagFile, TypeSource};
use crate::error::{ErrorKind, Result, ValueError};
pub use crate::xml_text::FloatForm;
use crate::xml_text::located;
use crate::reflect::layout::{Layouts, Slots};
use super::walk::{Open, Scalar, TagSink, Walk};
use crate::reflect::{Field, Interface, Kind, SizeAlign, TemplateArg, TemplateParam, TypeIndex, TypeRecord, TypeTable};
use std::collections::HashMap;
use std::fmt::Write as _;

/// How deep values may nest (records, arrays) in reading and writing.
pub const MAX_DEPTH: usize = 64;

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
/// of overlapping or repeated members, or a run that many slots name, could otherwise make the
/// text grow without bound in the input's size (each member of a record may itself be a record of
/// many members at the same offset, 64 levels deep). Past it, writing stops with an error.
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
    for _ in 0..n {
        out.push_str("  ");
    }
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
            write!(self.out, "\" hex=\"#{:x}\" />", wide.to_bits()).unwrap();
        } else {
            // A NaN whose bits a double does not keep.
            write!(self.out, "\" bits=\"{:#010x}\" />", x.to_bits()).unwrap();
        }
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
                 the types repeat or overlap members, or many slots name one run",
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
            Scalar::Int(_, v) => write!(self.out, "<integer value=\"{v}\" />").unwrap(),
            Scalar::Real(x) => self.real(x),
            Scalar::Null | Scalar::NullArray => self.out.push_str("<null />"),
            Scalar::Pointer(i) => write!(self.out, "<pointer id=\"object{i}\" />").unwrap(),
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
                write!(self.out, "\" elementtypeid=\"type{}\"", run.ty).unwrap();
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
                write!(self.out, "<array count=\"{}\" elementtypeid=\"type{}\"", run.count, run.ty).unwrap();
                if run.kind_byte != KIND_RUN << 4 {
                    write!(self.out, " kind=\"{}\"", run.kind_byte).unwrap();
                }
                self.run_number(i);
            }
            Open::Fixed { ty, count, .. } => write!(self.out, "<array count=\"{count}\" elementtypeid=\"type{ty}\"").unwrap(),
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
    xml: &'x roxmltree::Document<'i>,
    /// Where member-less types (HKLib's form) take their members from: the SDKs to try and their
    /// type tables.
    registry: Option<(&'x [&'x str], &'x TypesOf<'x>)>,
    /// The file is in HKLib's form (its types were completed from a type table): there an empty
    /// array, `<array count="0">`, is the null array Havok writes, not a run of no elements.
    hklib: bool,
    types: HashMap<&'x str, TypeIndex>,
    objects: HashMap<&'x str, u32>,
    /// Runs made for a `run` number.
    runs: HashMap<&'x str, u32>,
    /// Item bytes that may still be made.
    budget: usize,
}

/// Parses XML text with roxmltree, which refuses any DTD (so no entity beyond XML's five); the
/// error is located by line and column.
fn parse(text: &str) -> Result<roxmltree::Document<'_>, ValueError> {
    roxmltree::Document::parse(text).map_err(|e| {
        let p = e.pos();
        ValueError::new(ErrorKind::Invalid(format!("line {}, column {}: XML: {e}", p.row, p.col)))
    })
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
fn elements<'a, 'i>(n: roxmltree::Node<'a, 'i>) -> impl Iterator<Item = roxmltree::Node<'a, 'i>> {
    n.children().filter(|c| c.is_element())
}

/// Where a value is: the object's id and the member path.
struct At<'a> {
    object: &'a str,
    path: String,
}

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
    let text = std::str::from_utf8(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes))
        .map_err(|e| ValueError::invalid(e.valid_up_to() as u64, "hktagfile XML: not UTF-8"))?;
    let xml = parse(text)?;
    let budget = text.len().saturating_mul(BYTES_PER_TEXT_BYTE).saturating_add(BYTES_SLACK);
    let r = XmlReader {
        xml: &xml,
        registry,
        hklib: false,
        types: HashMap::new(),
        objects: HashMap::new(),
        runs: HashMap::new(),
        budget,
    };
    Ok(r.document()?)
}

impl<'x, 'i> XmlReader<'x, 'i> {
    fn err(&self, node: roxmltree::Node<'_, '_>, at: Option<&At<'_>>, msg: impl std::fmt::Display) -> ValueError {
        let place = at.map(|a| (a.object, (!a.path.is_empty()).then_some(&a.path as &dyn std::fmt::Display)));
        located(self.xml.input_text(), node.range().start, place, msg)
    }

    fn attr(&self, n: roxmltree::Node<'x, 'i>, at: Option<&At<'_>>, name: &str) -> Result<&'x str, ValueError> {
        n.attribute(name)
            .ok_or_else(|| self.err(n, at, format!("<{}> without {name}", n.tag_name().name())))
    }

    fn number<T: std::str::FromStr>(&self, n: roxmltree::Node<'x, 'i>, at: Option<&At<'_>>, name: &str) -> Result<T, ValueError> {
        let v = self.attr(n, at, name)?;
        v.trim()
            .parse()
            .map_err(|_| self.err(n, at, format!("{name} {v:?} is not a number in range")))
    }

    fn type_ref(&self, n: roxmltree::Node<'x, 'i>, at: Option<&At<'_>>, name: &str) -> Result<TypeIndex, ValueError> {
        let id = self.attr(n, at, name)?;
        self.types
            .get(id)
            .copied()
            .ok_or_else(|| self.err(n, at, format!("unknown type id {id:?}")))
    }

    fn document(mut self) -> Result<XmlTagfile, ValueError> {
        let root = self.xml.root_element();
        if root.tag_name().name() != "hktagfile" {
            return Err(self.err(root, None, format!("<{}> where <hktagfile> belongs", root.tag_name().name())));
        }
        let version: u32 = self.number(root, None, "version")?;
        if version != 3 {
            return Err(self.err(root, None, format!("hktagfile version {version}: only version 3 is read")));
        }
        let mut sdkv = root.attribute("sdkversion").unwrap_or(DEFAULT_SDKV).as_bytes().to_vec();
        let hex_attr = |name: &str| -> Result<Option<Vec<u8>>, ValueError> {
            root.attribute(name)
                .map(|v| unhex(v).ok_or_else(|| self.err(root, None, format!("{name} {v:?} is not hex"))))
                .transpose()
        };
        let compendium = match hex_attr("compendium")? {
            Some(id) => {
                let id: [u8; 8] = id.try_into().map_err(|_| self.err(root, None, "compendium is not 8 bytes"))?;
                Some((CompendiumId(id), hex_attr("tcrf")?.unwrap_or_default()))
            }
            None => None,
        };
        let trailing = hex_attr("trailing")?.unwrap_or_default();
        let phive = root
            .attribute("phive")
            .map(|v| PhiveWrapper::from_hex(v).map_err(|e| self.err(root, None, format!("phive: byte {:#x} of the wrapper: {}", e.offset().unwrap_or(0), e.kind()))))
            .transpose()?;
        let (mut type_nodes, mut object_nodes) = (Vec::new(), Vec::new());
        for n in elements(root) {
            match n.tag_name().name() {
                "type" => type_nodes.push(n),
                "object" => object_nodes.push(n),
                other => return Err(self.err(n, None, format!("<{other}> where <type> or <object> belongs"))),
            }
        }
        // `type0` is the null type (a subtype or template argument of none).
        self.types.insert("type0", 0);
        for (k, n) in type_nodes.iter().enumerate() {
            let id = self.attr(*n, None, "id")?;
            if self.types.insert(id, k as TypeIndex + 1).is_some() {
                return Err(self.err(*n, None, format!("a second type {id:?}")));
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
                return Err(self.err(type_nodes[k - 1], None, format!("{NO_MEMBERS}: type {name} (HKLib's form; its values need a type registry)")));
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
                return Err(self.err(type_nodes[at - 1], None, format!("{NO_MEMBERS}: type {name} (HKLib's form): no type table fits: {why}")));
            }
        }
        // A type whose values are item indices (strings, pointers, arrays that are not fixed)
        // states its size: without one the TAG0 file written from it loses those items (the
        // tagfile_xml fuzz target's fourth finding).
        if let Some(k) = records.iter().position(|r| {
            r.size.is_none() && r.format.map(crate::reflect::TypeFormat).is_some_and(|f| matches!(f.kind(), Kind::String | Kind::Pointer) || (f.kind() == Kind::Array && !f.is_fixed_array()))
        }) {
            let at = type_nodes.get(k.wrapping_sub(1)).copied().unwrap_or(root);
            return Err(self.err(at, None, format!("type {}: a string, pointer or array type without <size>", records[k].name)));
        }
        let types = TypeTable::from_records(records);
        // The checks the TAG0 reader makes of a `TYPE` section (parent chains end; every member
        // lies inside its record): the TAG0 file written from this XML must read back.
        super::type_section::validate(&types).map_err(|e| self.err(root, None, format!("the types: {e}")))?;
        for (k, n) in object_nodes.iter().enumerate() {
            let id = self.attr(*n, None, "id")?;
            if self.objects.insert(id, k as u32 + 1).is_some() {
                return Err(self.err(*n, None, format!("a second object {id:?}")));
            }
        }
        let mut b = Builder {
            layouts: Layouts::new(&types),
            items: Vec::with_capacity(object_nodes.len() + 1),
        };
        b.items.push(ItemData::null());
        for n in &object_nodes {
            let at = At {
                object: n.attribute("id").unwrap_or_default(),
                path: String::new(),
            };
            let ty = self.type_ref(*n, Some(&at), "typeid")?;
            let kind_byte = match n.attribute("kind") {
                Some(_) => self.number(*n, Some(&at), "kind")?,
                None => KIND_OBJECT << 4,
            };
            b.items.push(ItemData {
                ty,
                kind_byte,
                count: 1,
                elem_size: 0,
                bytes: ItemBytes::default(),
                slots: Slots::NONE,
            });
        }
        for (k, n) in object_nodes.iter().enumerate() {
            let mut at = At {
                object: n.attribute("id").unwrap_or_default(),
                path: String::new(),
            };
            let ty = b.items[k + 1].ty;
            let size = b.layouts.size_of(ty).map_err(|e| self.err(*n, Some(&at), e))? as usize;
            let mut bytes = self.take(*n, &at, size)?;
            let mut vals = elements(*n);
            let (Some(v), None) = (vals.next(), vals.next()) else {
                return Err(self.err(*n, Some(&at), "an <object> holds exactly one value"));
            };
            self.value(&mut b, ty, v, &mut bytes, &mut at, 0)?;
            let slots = b.layouts.slots(ty).map_err(|e| self.err(*n, Some(&at), e))?;
            let it = &mut b.items[k + 1];
            it.elem_size = size as u32;
            it.bytes = bytes.into();
            it.slots = slots;
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

    fn take(&mut self, n: roxmltree::Node<'_, '_>, at: &At<'_>, size: usize) -> Result<Vec<u8>, ValueError> {
        self.budget = self
            .budget
            .checked_sub(size)
            .ok_or_else(|| self.err(n, Some(at), "more item bytes than the text could describe"))?;
        Ok(vec![0; size])
    }

    fn type_record(&self, n: roxmltree::Node<'x, 'i>) -> Result<TypeRecord, ValueError> {
        let mut r = TypeRecord::default();
        for c in elements(n) {
            match c.tag_name().name() {
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
                        let (arg, default) = match p.tag_name().name() {
                            "typeparam" => (TemplateArg::Type(self.type_ref(p, None, "id")?), "tT"),
                            "valueparam" => (TemplateArg::Value(self.number(p, None, "value")?), "vN"),
                            other => return Err(self.err(p, None, format!("<{other}> where <typeparam> or <valueparam> belongs"))),
                        };
                        let name = p.attribute("name").unwrap_or(default);
                        // TAG0 tells a type parameter from a value parameter by the name's first
                        // letter, as the reader of a TYPE section does.
                        if !name.starts_with(&default[..1]) {
                            return Err(self.err(p, None, format!("<{}> named {name:?}: the name must start with `{}`", p.tag_name().name(), &default[..1])));
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
                        if m.tag_name().name() != "member" {
                            return Err(self.err(m, None, format!("<{}> where <member> belongs", m.tag_name().name())));
                        }
                        let flags: u32 = self.number(m, None, "flags")?;
                        let aux = match m.attribute("aux") {
                            Some(_) if flags & crate::reflect::field_flags::AUX != 0 => self.number(m, None, "aux")?,
                            Some(_) => return Err(self.err(m, None, "<member aux=...> without flag 0x80")),
                            None if flags & crate::reflect::field_flags::AUX != 0 => {
                                return Err(self.err(m, None, "<member> with flag 0x80 needs aux=..."))
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
                other => return Err(self.err(c, None, format!("<{other}> in a <type>"))),
            }
        }
        Ok(r)
    }

    fn new_run(
        &mut self,
        b: &mut Builder<'_>,
        n: roxmltree::Node<'x, 'i>,
        at: &At<'_>,
        ty: TypeIndex,
        bytes: Vec<u8>,
        (count, elem_size): (u32, u32),
    ) -> Result<u32, ValueError> {
        let kind_byte = match n.attribute("kind") {
            Some(_) => self.number(n, Some(at), "kind")?,
            None => KIND_RUN << 4,
        };
        let slots = b.layouts.slots(ty).map_err(|e| self.err(n, Some(at), e))?;
        b.items.push(ItemData {
            ty,
            kind_byte,
            count,
            elem_size,
            bytes: bytes.into(),
            slots,
        });
        let i = u32::try_from(b.items.len() - 1).map_err(|_| self.err(n, Some(at), "more than 2^32 items"))?;
        if let Some(r) = n.attribute("run") {
            self.runs.insert(r, i);
        }
        Ok(i)
    }

    fn value(
        &mut self,
        b: &mut Builder<'_>,
        ty: TypeIndex,
        n: roxmltree::Node<'x, 'i>,
        out: &mut [u8],
        at: &mut At<'_>,
        depth: usize,
    ) -> Result<(), ValueError> {
        if depth > MAX_DEPTH {
            return Err(self.err(n, Some(at), format!("values nested more than {MAX_DEPTH} deep")));
        }
        let tag = n.tag_name().name();
        let shape = b.layouts.shape(ty).map_err(|e| self.err(n, Some(at), e))?;
        let table = b.layouts.table();
        let name = || table.full_name(ty);
        if tag == "bytes" {
            let v = self.attr(n, Some(at), "value")?;
            let bytes = unhex(v)
                .filter(|x| x.len() == out.len())
                .ok_or_else(|| self.err(n, Some(at), format!("{} bytes of hex for {}", out.len(), name())))?;
            out.copy_from_slice(&bytes);
            return Ok(());
        }
        let Some(shape) = shape else {
            return Err(self.err(n, Some(at), format!("<{tag}> for {}, which has no layout", name())));
        };
        let def = table.get(shape.def);
        let fmt = def.and_then(|d| d.format()).unwrap_or(crate::reflect::TypeFormat(0));
        let subtype = def.and_then(|d| d.subtype).unwrap_or(0);
        let wrong = |this: &Self| {
            this.err(
                n,
                Some(at),
                format!(
                    "<{tag}> where a value of {} ({:?}, {} bytes) belongs",
                    name(),
                    shape.kind,
                    out.len()
                ),
            )
        };
        let put_index = |out: &mut [u8], i: u32| {
            if let Some(w) = out.get_mut(..4) {
                w.copy_from_slice(&i.to_le_bytes());
            }
        };
        match (shape.kind, tag) {
            (Kind::Pointer | Kind::String, "null") | (Kind::Array, "null") if !fmt.is_fixed_array() || shape.kind != Kind::Array => {
                put_index(out, 0);
            }
            (Kind::Bool, "bool") if out.len() == 1 => {
                let v = self.attr(n, Some(at), "value")?;
                out[0] = match v.trim() {
                    "true" => 1,
                    "false" => 0,
                    t => t
                        .parse()
                        .map_err(|_| self.err(n, Some(at), format!("bool {v:?} is not true, false or a byte")))?,
                };
            }
            (Kind::Bool | Kind::Int, "integer") if (1..=8).contains(&out.len()) => {
                let v = self.attr(n, Some(at), "value")?.trim();
                let bits = 8 * out.len() as u32;
                let raw: u64 = if fmt.is_signed() {
                    let x: i64 = v
                        .parse()
                        .map_err(|_| self.err(n, Some(at), format!("{v:?} is not a signed integer")))?;
                    let (lo, hi) = if bits == 64 {
                        (i64::MIN, i64::MAX)
                    } else {
                        (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
                    };
                    if x < lo || x > hi {
                        return Err(self.err(n, Some(at), format!("{x} is out of range for {} ({bits}-bit signed)", name())));
                    }
                    x as u64
                } else {
                    let x: u64 = v
                        .parse()
                        .map_err(|_| self.err(n, Some(at), format!("{v:?} is not an unsigned integer")))?;
                    if bits < 64 && x >> bits != 0 {
                        return Err(self.err(n, Some(at), format!("{x} is out of range for {} ({bits}-bit unsigned)", name())));
                    }
                    x
                };
                out.copy_from_slice(&raw.to_le_bytes()[..out.len()]);
            }
            (Kind::Float, "real") if out.len() == 4 || out.len() == 2 => {
                let x = self.real(n, at)?;
                if out.len() == 4 {
                    out.copy_from_slice(&x.to_bits().to_le_bytes());
                } else {
                    if x.to_bits() & 0xFFFF != 0 {
                        return Err(self.err(n, Some(at), format!("{x} is not a half (its low 16 bits are not zero)")));
                    }
                    out.copy_from_slice(&((x.to_bits() >> 16) as u16).to_le_bytes());
                }
            }
            (Kind::Pointer, "pointer") => {
                let id = self.attr(n, Some(at), "id")?;
                let i = *self
                    .objects
                    .get(id)
                    .ok_or_else(|| self.err(n, Some(at), format!("pointer to a missing object {id:?}")))?;
                put_index(out, i);
            }
            (Kind::String | Kind::Array, "string" | "array") if !fmt.is_fixed_array() && self.shared_run(n).is_some() => {
                put_index(out, self.shared_run(n).unwrap_or(0));
            }
            (Kind::String, "string") => {
                let bytes = match (n.attribute("value"), n.attribute("bytes")) {
                    (Some(v), None) => [v.as_bytes(), &[0]].concat(),
                    (None, Some(h)) => unhex(h).ok_or_else(|| self.err(n, Some(at), "string bytes are not hex"))?,
                    _ => return Err(self.err(n, Some(at), "a <string> has one of value and bytes")),
                };
                // The run's type: as written, else the table's `char`.
                let elem = match n.attribute("elementtypeid") {
                    Some(_) => self.type_ref(n, Some(at), "elementtypeid")?,
                    None => table
                        .iter()
                        .find(|(_, t)| t.name == "char")
                        .map(|(i, _)| i)
                        .ok_or_else(|| self.err(n, Some(at), "a <string> without elementtypeid in a table without char"))?,
                };
                self.budget = self
                    .budget
                    .checked_sub(bytes.len())
                    .ok_or_else(|| self.err(n, Some(at), "more item bytes than the text could describe"))?;
                // The run holds whole elements of its type (`char`, one byte, in every stock file).
                let size = b.layouts.size_of(elem).map_err(|e| self.err(n, Some(at), e))?;
                if size == 0 || bytes.len() % size as usize != 0 {
                    return Err(self.err(
                        n,
                        Some(at),
                        format!("a string of {} bytes is not a whole number of {size}-byte elements of its elementtypeid", bytes.len()),
                    ));
                }
                let count = u32::try_from(bytes.len() / size as usize).map_err(|_| self.err(n, Some(at), "a string of 2^32 elements or more"))?;
                let i = self.new_run(b, n, at, elem, bytes, (count, size))?;
                put_index(out, i);
            }
            (Kind::Array, "array") => {
                let count: u32 = self.number(n, Some(at), "count")?;
                let children: Vec<_> = elements(n).collect();
                if children.len() != count as usize {
                    return Err(self.err(n, Some(at), format!("count {count} but {} elements", children.len())));
                }
                if fmt.is_fixed_array() {
                    let size = b.layouts.size_of(subtype).map_err(|e| self.err(n, Some(at), e))? as usize;
                    if count != fmt.fixed_count() || size.checked_mul(count as usize) != Some(out.len()) {
                        return Err(self.err(
                            n,
                            Some(at),
                            format!("{count} elements where {} holds {}", name(), fmt.fixed_count()),
                        ));
                    }
                    for (k, c) in children.iter().enumerate() {
                        let len = at.path.len();
                        write!(at.path, "[{k}]").unwrap();
                        self.value(b, subtype, *c, &mut out[k * size..(k + 1) * size], at, depth + 1)?;
                        at.path.truncate(len);
                    }
                } else if count == 0 && self.hklib {
                    put_index(out, 0);
                } else {
                    let et = self.type_ref(n, Some(at), "elementtypeid")?;
                    let size = b.layouts.size_of(et).map_err(|e| self.err(n, Some(at), e))? as usize;
                    let total = size
                        .checked_mul(count as usize)
                        .ok_or_else(|| self.err(n, Some(at), "array too large"))?;
                    let mut run = self.take(n, at, total)?;
                    for (k, c) in children.iter().enumerate() {
                        let len = at.path.len();
                        write!(at.path, "[{k}]").unwrap();
                        self.value(b, et, *c, &mut run[k * size..(k + 1) * size], at, depth + 1)?;
                        at.path.truncate(len);
                    }
                    let i = self.new_run(b, n, at, et, run, (count, size as u32))?;
                    put_index(out, i);
                }
            }
            (Kind::Record, "record") => {
                let mut fields: Vec<Field> = Vec::new();
                for owner in table.ancestry(shape.def) {
                    if let Some(t) = table.get(owner) {
                        fields.extend(table.fields_of(t).iter().cloned());
                    }
                }
                for c in elements(n) {
                    if c.tag_name().name() != "field" {
                        return Err(self.err(c, Some(at), format!("<{}> where <field> belongs", c.tag_name().name())));
                    }
                    let fname = self.attr(c, Some(at), "name")?;
                    let f = fields
                        .iter()
                        .find(|f| f.name == fname)
                        .ok_or_else(|| self.err(c, Some(at), format!("{} has no member {fname:?}", name())))?;
                    let size = b.layouts.size_of(f.ty).map_err(|e| self.err(c, Some(at), e))? as usize;
                    let range = f.offset as usize..f.offset as usize + size;
                    if range.end > out.len() {
                        return Err(self.err(c, Some(at), format!("member {fname} lies outside its {}-byte owner", out.len())));
                    }
                    let mut vals = elements(c);
                    let (Some(v), None) = (vals.next(), vals.next()) else {
                        return Err(self.err(c, Some(at), "a <field> holds exactly one value"));
                    };
                    let len = at.path.len();
                    if len > 0 {
                        at.path.push('.');
                    }
                    at.path.push_str(fname);
                    self.value(b, f.ty, v, &mut out[range], at, depth + 1)?;
                    at.path.truncate(len);
                }
            }
            _ => return Err(wrong(self)),
        }
        Ok(())
    }

    /// The run already made for `n`'s `run` number, if any.
    fn shared_run(&self, n: roxmltree::Node<'x, 'i>) -> Option<u32> {
        n.attribute("run").and_then(|r| self.runs.get(r).copied())
    }

    fn real(&self, n: roxmltree::Node<'x, 'i>, at: &At<'_>) -> Result<f32, ValueError> {
        if let Some(v) = n.attribute("bits") {
            let t = v.trim();
            let t = t.strip_prefix("0x").unwrap_or(t);
            return u32::from_str_radix(t, 16)
                .map(f32::from_bits)
                .map_err(|_| self.err(n, Some(at), format!("bits {v:?} are not a 32-bit hex number")));
        }
        if let Some(v) = n.attribute("hex") {
            let t = v.trim();
            let t = t.strip_prefix('#').unwrap_or(t);
            let wide = u64::from_str_radix(t, 16)
                .map(f64::from_bits)
                .map_err(|_| self.err(n, Some(at), format!("hex {v:?} is not a 64-bit hex number")))?;
            let x = wide as f32;
            if f64::from(x).to_bits() != wide.to_bits() && !wide.is_nan() {
                return Err(self.err(n, Some(at), format!("hex {v:?} is not a float's value")));
            }
            return Ok(x);
        }
        let v = self.attr(n, Some(at), "dec")?;
        v.trim()
            .parse::<f32>()
            .map_err(|_| self.err(n, Some(at), format!("dec {v:?} is not a number")))
    }
}

struct Builder<'t> {
    layouts: Layouts<'t>,
    items: Vec<ItemData>,
}
