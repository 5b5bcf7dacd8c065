//! The `TYPE` section of a TAG0 file or TCM0 compendium, read into a [`TypeTable`]. Sub-sections, in
//! stock order: `TPTR` (run-time pointer slots), `TSTR` (type-name strings), `TNA1` (names and
//! template parameters), `FSTR` (field-name strings), `TBDY` (bodies), `THSH` (stored hashes), `TPAD`.
//! SDK 2015.1 names two of them `TNAM` and `TBOD`; SDK 2019.1 names the string tables `TST1` and
//! `FST1` and pads them with 0xFF instead of zero. Spec: "Type table".

use super::packed;
use super::section::Section;
use crate::bytes::{check_count, Cursor};
use crate::error::{Error, ErrorKind, Result};
use crate::reflect::{
    presence, Field, Interface, SizeAlign, TemplateArg, TemplateParam, TypeDef, TypeIndex, TypeTable,
};

pub const TYPE_STRINGS: &[&[u8; 4]] = &[b"TSTR", b"TST1"];
pub const TYPE_NAMES: &[&[u8; 4]] = &[b"TNA1", b"TNAM"];
pub const FIELD_STRINGS: &[&[u8; 4]] = &[b"FSTR", b"FST1"];
pub const BODIES: &[&[u8; 4]] = &[b"TBDY", b"TBOD"];
pub const HASHES: &[&[u8; 4]] = &[b"THSH"];

/// Reads a `TYPE` section into a type table.
pub fn read(ty: &Section<'_>) -> Result<TypeTable> {
    let tstr = ty.require(TYPE_STRINGS)?;
    let type_strings = read_strings(tstr).map_err(|e| tstr.locate(e))?;
    let fstr = ty.require(FIELD_STRINGS)?;
    let field_strings = read_strings(fstr).map_err(|e| fstr.locate(e))?;

    let tna = ty.require(TYPE_NAMES)?;
    let mut table = read_names(tna, &type_strings).map_err(|e| tna.locate(e))?;
    let tbdy = ty.require(BODIES)?;
    read_bodies(tbdy, &mut table, &field_strings).map_err(|e| tbdy.locate(e))?;
    if let Some(thsh) = ty.child_any(HASHES) {
        read_hashes(thsh, &mut table).map_err(|e| thsh.locate(e))?;
    }
    validate(&table).map_err(|e| tbdy.locate(e))?;
    Ok(table)
}

/// Splits a string table into its NUL-terminated strings; trailing padding (zero or 0xFF bytes
/// after the last terminator) is not a string. The strings borrow the section; a type or field
/// takes its own copy of the one it names.
fn read_strings<'a>(sec: &Section<'a>) -> Result<Vec<&'a str>> {
    let body = sec.body;
    let end = body.iter().rposition(|&b| b == 0).map_or(0, |p| p + 1);
    // Valid UTF-8 as a whole is valid string by string (NUL is a character of its own); only a
    // table that is not needs the walk below, which says where.
    if let Ok(all) = std::str::from_utf8(&body[..end]) {
        return Ok(all.split_terminator('\0').collect());
    }
    let mut out = Vec::new();
    let mut c = Cursor::new(&body[..end], sec.body_offset());
    while !c.is_empty() {
        let at = c.offset();
        let s = c.cstr()?;
        let s = std::str::from_utf8(s).map_err(|_| Error::at(at, ErrorKind::BadUtf8))?;
        out.push(s);
    }
    Ok(out)
}

fn string_at(strings: &[&str], index: u64, at: u64, what: &'static str) -> Result<String> {
    strings.get(index as usize).map(|s| (*s).to_owned()).ok_or_else(|| {
        Error::at(at, ErrorKind::IndexOutOfRange { what, index, count: strings.len() as u64 })
    })
}

fn type_index(c: &mut Cursor<'_>, count: usize) -> Result<TypeIndex> {
    let at = c.offset();
    let v = packed::read(c)?;
    if v >= count as u64 {
        return Err(Error::at(at, ErrorKind::IndexOutOfRange { what: "type index", index: v, count: count as u64 }));
    }
    Ok(v as TypeIndex)
}

fn read_names(sec: &Section<'_>, strings: &[&str]) -> Result<TypeTable> {
    let mut c = sec.cursor();
    let at = c.offset();
    let count = packed::read(&mut c)?;
    // Every type after the null one takes at least two bytes (name and parameter count).
    let count = check_count("types", count, 2, c.remaining() + 2, at)?;
    let mut types = Vec::with_capacity(count);
    types.push(TypeDef::default());
    for _ in 1..count.max(1) {
        let at = c.offset();
        let name = string_at(strings, packed::read(&mut c)?, at, "type name string")?;
        let at = c.offset();
        let nparams = packed::read(&mut c)?;
        let nparams = check_count("template parameters", nparams, 2, c.remaining(), at)?;
        let mut params = Vec::with_capacity(nparams);
        for _ in 0..nparams {
            let at = c.offset();
            let pname = string_at(strings, packed::read(&mut c)?, at, "template parameter name string")?;
            let arg = if pname.starts_with('t') {
                TemplateArg::Type(type_index(&mut c, count)?)
            } else if pname.starts_with('v') {
                TemplateArg::Value(packed::read(&mut c)?)
            } else {
                return Err(Error::invalid(at, format!("template parameter {pname:?} is neither `t` nor `v`"))
                    .in_context(name));
            };
            params.push(TemplateParam { name: pname, arg });
        }
        types.push(TypeDef { name, params, ..TypeDef::default() });
    }
    expect_padding(&c)?;
    Ok(TypeTable { types })
}

/// What may follow the last record of a packed sub-section: zero bytes only.
fn expect_padding(c: &Cursor<'_>) -> Result<()> {
    if let Some(p) = c.rest().iter().position(|&b| b != 0) {
        return Err(Error::invalid(c.offset() + p as u64, "unexpected bytes after the last record"));
    }
    Ok(())
}

fn read_bodies(sec: &Section<'_>, table: &mut TypeTable, fields: &[&str]) -> Result<()> {
    let count = table.types.len();
    let mut seen = vec![false; count];
    let mut c = sec.cursor();
    while !c.is_empty() {
        // A zero byte where a record's type index would be is skipped (spec: 294 such bytes in
        // Sekiro's tables).
        if c.peek_u8()? == 0 {
            c.skip(1)?;
            continue;
        }
        let at = c.offset();
        let i = type_index(&mut c, count)?;
        if std::mem::replace(&mut seen[i as usize], true) {
            return Err(Error::at(at, ErrorKind::Duplicate(format!("body of type {i}"))));
        }
        // The name is copied into the error only when there is one.
        read_body(&mut c, &mut table.types[i as usize], count, fields)
            .map_err(|e| e.in_context(table.types[i as usize].name.clone()))?;
    }
    Ok(())
}

fn read_body(c: &mut Cursor<'_>, t: &mut TypeDef, count: usize, fields: &[&str]) -> Result<()> {
    t.parent = type_index(c, count)?;
    let at = c.offset();
    let p = packed::read_u32(c)?;
    if p & !presence::KNOWN != 0 {
        return Err(Error::invalid(at, format!("unknown presence bits {:#x}", p & !presence::KNOWN)));
    }
    if p & presence::ATTRIBUTE != 0 {
        // Never present in stock files; its encoding is unknown, so refuse rather than guess.
        return Err(Error::invalid(at, "attribute strings (presence bit 128) are not supported"));
    }
    if p & presence::FORMAT != 0 {
        t.format = Some(packed::read_u32(c)?);
    }
    if p & presence::SUBTYPE != 0 {
        t.subtype = Some(type_index(c, count)?);
    }
    if p & presence::VERSION != 0 {
        t.version = Some(packed::read_u32(c)?);
    }
    if p & presence::SIZE_ALIGN != 0 {
        let size = packed::read_u32(c)?;
        let align = packed::read_u32(c)?;
        t.size = Some(SizeAlign { size, align });
    }
    if p & presence::FLAGS != 0 {
        t.flags = Some(packed::read_u32(c)?);
    }
    if p & presence::FIELDS != 0 {
        let at = c.offset();
        let word = packed::read_u32(c)?;
        let n = check_count("fields", u64::from(word & 0xFFFF), 4, c.remaining(), at)?;
        t.properties = Some((word >> 16) as u16);
        let mut list = Vec::with_capacity(n);
        for _ in 0..n {
            let at = c.offset();
            let name = string_at(fields, packed::read(c)?, at, "field name string")?;
            let flags = packed::read_u32(c)?;
            let offset = packed::read_u32(c)?;
            let ty = type_index(c, count).map_err(|e| e.in_context(name.clone()))?;
            list.push(Field { name, flags, offset, ty });
        }
        t.fields = Some(list);
    }
    if p & presence::INTERFACES != 0 {
        let at = c.offset();
        let n = packed::read(c)?;
        let n = check_count("interfaces", n, 2, c.remaining(), at)?;
        let mut list = Vec::with_capacity(n);
        for _ in 0..n {
            let ty = type_index(c, count)?;
            let value = packed::read_u32(c)?;
            list.push(Interface { ty, value });
        }
        t.interfaces = Some(list);
    }
    Ok(())
}

fn read_hashes(sec: &Section<'_>, table: &mut TypeTable) -> Result<()> {
    let count = table.types.len();
    let mut c = sec.cursor();
    let at = c.offset();
    let n = packed::read(&mut c)?;
    let n = check_count("hashes", n, 5, c.remaining(), at)?;
    for _ in 0..n {
        let at = c.offset();
        let i = type_index(&mut c, count)?;
        let h = c.u32_le()?;
        let t = &mut table.types[i as usize];
        if t.hash.replace(h).is_some() {
            return Err(Error::at(at, ErrorKind::Duplicate(format!("hash of {}", t.name))));
        }
    }
    expect_padding(&c)
}

/// The order in which `THSH` lists its hashes, for writing a section back as it was read.
pub fn hash_order(ty: &Section<'_>, count: usize) -> Result<Vec<TypeIndex>> {
    let Some(sec) = ty.child_any(HASHES) else { return Ok(Vec::new()) };
    let mut c = sec.cursor();
    let n = packed::read(&mut c)?;
    let n = check_count("hashes", n, 5, c.remaining(), sec.body_offset())?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(type_index(&mut c, count)?);
        c.skip(4)?;
    }
    Ok(out)
}

/// Structural checks the rest of the crate relies on: every parent chain ends. Linear in the
/// number of types (each type is settled once), so a hostile table cannot make it quadratic.
fn validate(table: &TypeTable) -> Result<()> {
    const UNSEEN: u8 = 0;
    const ON_PATH: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![UNSEEN; table.types.len()];
    let mut path = Vec::new();
    for (start, _) in table.iter() {
        let mut cur = start;
        while cur != 0 && state[cur as usize] == UNSEEN {
            state[cur as usize] = ON_PATH;
            path.push(cur);
            cur = table.types[cur as usize].parent;
        }
        if cur != 0 && state[cur as usize] == ON_PATH {
            let name = table.types[cur as usize].name.clone();
            return Err(Error::new(ErrorKind::Cycle(format!("parent chain through {name}"))));
        }
        for i in path.drain(..) {
            state[i as usize] = DONE;
        }
    }
    Ok(())
}
