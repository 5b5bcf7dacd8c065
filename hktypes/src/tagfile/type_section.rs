//! The `TYPE` section of a TAG0 file or TCM0 compendium, read into a [`TypeTable`]. Sub-sections, in
//! stock order: `TPTR` (run-time pointer slots), `TSTR` (type-name strings), `TNA1` (names and
//! template parameters), `FSTR` (field-name strings), `TBDY` (bodies), `THSH` (stored hashes), `TPAD`.
//! SDK 2015.1 names two of them `TNAM` and `TBOD`; SDK 2019.1 names the string tables `TST1` and
//! `FST1` and pads them with 0xFF instead of zero. Spec: "Type table".
//!
//! Each type has at most one `TBDY` record, in SDK 2022.1 too: the second body of type 55 that
//! TotK's cloth (`Armor_006_RaulSkin_Upper.bphcl`) once seemed to declare was the record of
//! `hclCollidable`, read past its `userData` field without the number that a field with flag
//! 0x80 ([`field_flags::AUX`]) carries. Read with it, the file's 196 records name 196 types, so a
//! second record of a type is an error at that record (`ErrorKind::Duplicate`), whether or not
//! it agrees with the first.

use super::packed;
use super::section::Section;
use crate::bytes::{check_count, Cursor};
use crate::error::{ErrorKind, TypeTableError as Error};
use crate::reflect::hash::MAX_DEPTH;
use crate::reflect::{
    field_flags, presence, Field, Interface, Name, SizeAlign, Span, TemplateArg, TemplateParam, TypeDef, TypeIndex, TypeTable,
};

type Result<T, E = Error> = std::result::Result<T, E>;

/// Tags of the type-name string table (2019.1 names it `TST1`).
pub const TYPE_STRINGS: &[&[u8; 4]] = &[b"TSTR", b"TST1"];
/// Tags of the type-name records (2015.1 names it `TNAM`).
pub const TYPE_NAMES: &[&[u8; 4]] = &[b"TNA1", b"TNAM"];
/// Tags of the field-name string table (2019.1 names it `FST1`).
pub const FIELD_STRINGS: &[&[u8; 4]] = &[b"FSTR", b"FST1"];
/// Tags of the type bodies (2015.1 names it `TBOD`).
pub const BODIES: &[&[u8; 4]] = &[b"TBDY", b"TBOD"];
/// Tags of the stored type hashes.
pub const HASHES: &[&[u8; 4]] = &[b"THSH"];

/// Reads a `TYPE` section into a type table.
pub fn read(ty: &Section<'_>) -> Result<TypeTable> {
    let tstr = ty.require(TYPE_STRINGS)?;
    let type_strings = read_strings(tstr).map_err(|e| tstr.locate(e))?;
    let fstr = ty.require(FIELD_STRINGS)?;
    let field_strings = read_strings(fstr).map_err(|e| fstr.locate(e))?;

    let mut budget = NameBudget::for_section(ty);
    let tna = ty.require(TYPE_NAMES)?;
    let mut table = read_names(tna, &type_strings, &mut budget, ty.body.len()).map_err(|e| tna.locate(e))?;
    let tbdy = ty.require(BODIES)?;
    read_bodies(tbdy, &mut table, &field_strings, &mut budget).map_err(|e| tbdy.locate(e))?;
    if let Some(thsh) = ty.child_any(HASHES) {
        read_hashes(thsh, &mut table).map_err(|e| thsh.locate(e))?;
    }
    validate(&table).map_err(|e| tbdy.locate(e))?;
    Ok(table)
}

/// Splits a string table into its NUL-terminated strings; trailing padding (zero or 0xFF bytes
/// after the last terminator) is not a string. The strings borrow the section; a type or field
/// takes its own [`Name`] of the one it names.
fn read_strings<'a>(sec: &Section<'a>) -> Result<Vec<&'a str>> {
    let body = sec.body;
    let end = body.iter().rposition(|&b| b == 0).map_or(0, |p| p + 1);
    let text = match std::str::from_utf8(&body[..end]) {
        Ok(t) => t,
        Err(e) => {
            // Say which string is not UTF-8: the one holding the first bad byte.
            let at = body[..e.valid_up_to()].iter().rposition(|&b| b == 0).map_or(0, |p| p + 1);
            return Err(Error::at(sec.body_offset() + at as u64, ErrorKind::BadUtf8));
        }
    };
    // Valid UTF-8 as a whole is valid string by string (NUL is a character of its own, so every
    // cut below falls between characters).
    // One pass; stock strings average well over eight bytes, so this rarely grows.
    let mut out = Vec::with_capacity(text.len() / 8 + 1);
    let mut start = 0;
    let mut cut = |i: usize| {
        out.push(text.get(start..i).unwrap_or_default());
        start = i + 1;
    };
    // Eight bytes at a time: the strings are short, too short for a search call per string to
    // pay for its setup.
    let mut words = text.as_bytes().chunks_exact(8);
    let mut at = 0;
    for w in &mut words {
        let mut zeros = zero_bytes(u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]));
        while zeros != 0 {
            cut(at + (zeros.trailing_zeros() / 8) as usize);
            zeros &= zeros - 1;
        }
        at += 8;
    }
    for (j, &b) in words.remainder().iter().enumerate() {
        if b == 0 {
            cut(at + j);
        }
    }
    Ok(out)
}

/// The high bit of each zero byte of `v`, exactly: no carry crosses from one byte to the next.
#[inline]
fn zero_bytes(v: u64) -> u64 {
    const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    !(((v & LOW7) + LOW7) | v | LOW7)
}

/// How many bytes the copies of type, parameter and field names may still take. Every record names
/// its string by index, so a hostile table could name one long string from every record and make
/// its copies out of all proportion to the file; stock tables take less than one byte of names per
/// byte of their `TYPE` section.
struct NameBudget {
    left: u64,
    limit: u64,
}

impl NameBudget {
    fn for_section(ty: &Section<'_>) -> Self {
        let limit = 4 * ty.body.len() as u64 + (64 << 10);
        NameBudget { left: limit, limit }
    }

    fn take(&mut self, n: usize, at: u64) -> Result<()> {
        match self.left.checked_sub(n as u64) {
            Some(left) => {
                self.left = left;
                Ok(())
            }
            None => Err(Error::invalid(at, format!("names take more than {} bytes, out of proportion to the TYPE section", self.limit))),
        }
    }
}

/// The string `index` names, charged to `budget`. It returns the borrowed text, not a [`Name`]:
/// the caller makes the name where it is kept, which spares a move of the name through the result.
#[inline(always)]
fn string_at<'s>(strings: &[&'s str], index: u64, at: u64, what: &'static str, budget: &mut NameBudget) -> Result<&'s str> {
    let Some(&s) = strings.get(index as usize) else {
        return Err(Error::at(at, ErrorKind::IndexOutOfRange { what, index, count: strings.len() as u64 }));
    };
    budget.take(s.len(), at)?;
    Ok(s)
}

#[inline]
fn type_index(c: &mut Cursor<'_>, count: usize) -> Result<TypeIndex> {
    let at = c.offset();
    let v = packed::read(c)?;
    if v >= count as u64 {
        return Err(Error::at(at, ErrorKind::IndexOutOfRange { what: "type index", index: v, count: count as u64 }));
    }
    Ok(v as TypeIndex)
}

/// The fewest bytes of its `TYPE` section that a type of a table may take on average: a table of
/// more types than `section bytes / MIN_TYPE_BYTES + TYPE_SLACK` is refused before any is read.
/// A type takes about 250 bytes of memory in the reader, the hasher and the layouts together,
/// whatever its record's size (two bytes at the least), so this bounds that memory by about 16 x
/// the section's size; stock tables take 39 bytes or more per type (the fewest in the corpus:
/// 38.96, a 50-type skeleton), two and a half times the limit.
pub const MIN_TYPE_BYTES: usize = 16;
/// Types a table may hold beyond [`MIN_TYPE_BYTES`]'s share (tables of a few hand-built types).
pub const TYPE_SLACK: usize = 256;

fn read_names(sec: &Section<'_>, strings: &[&str], budget: &mut NameBudget, section_len: usize) -> Result<TypeTable> {
    let mut c = sec.cursor();
    let at = c.offset();
    let count = packed::read(&mut c)?;
    // Every type after the null one takes at least two bytes (name and parameter count).
    let count = check_count("types", count, 2, c.remaining() + 2, at)?;
    let most = section_len / MIN_TYPE_BYTES + TYPE_SLACK;
    if count > most {
        return Err(Error::invalid(
            at,
            format!("{count} types in a TYPE section of {section_len} bytes: more than one per {MIN_TYPE_BYTES} bytes (at most {most})"),
        ));
    }
    // Filled in place: a type record is large enough that building each one aside and moving it
    // in costs a copy per type. Parameters go to the table's one list.
    let mut types = Vec::with_capacity(count.max(1));
    // Pushed from the constant rather than built by `Default` each time, which compiles to a
    // copy per type instead of assembling each one on the stack.
    for _ in 0..count.max(1) {
        types.push(TypeDef::EMPTY);
    }
    // Sized once for the common case: a parameter takes three bytes or more of this section.
    let mut params = Vec::with_capacity(c.remaining() / 6);
    for t in types.iter_mut().skip(1) {
        let at = c.offset();
        let name = string_at(strings, packed::read(&mut c)?, at, "type name string", budget)?;
        let at = c.offset();
        let nparams = packed::read(&mut c)?;
        let nparams = check_count("template parameters", nparams, 2, c.remaining(), at)?;
        let start = params.len();
        for _ in 0..nparams {
            let at = c.offset();
            let pname = string_at(strings, packed::read(&mut c)?, at, "template parameter name string", budget)?;
            let arg = if pname.starts_with('t') {
                TemplateArg::Type(type_index(&mut c, count)?)
            } else if pname.starts_with('v') {
                TemplateArg::Value(packed::read(&mut c)?)
            } else {
                return Err(Error::invalid(at, format!("template parameter {pname:?} is neither `t` nor `v`"))
                    .in_context(name));
            };
            params.push(TemplateParam { name: Name::new(pname), arg });
        }
        t.name = Name::new(name);
        t.params = Span::between(start, params.len());
    }
    expect_padding(&c)?;
    Ok(TypeTable { types, params, fields: Vec::new() })
}

/// What may follow the last record of a packed sub-section: zero bytes only.
fn expect_padding(c: &Cursor<'_>) -> Result<()> {
    if let Some(p) = c.rest().iter().position(|&b| b != 0) {
        return Err(Error::invalid(c.offset() + p as u64, "unexpected bytes after the last record"));
    }
    Ok(())
}

fn read_bodies(sec: &Section<'_>, table: &mut TypeTable, fields: &[&str], budget: &mut NameBudget) -> Result<()> {
    let count = table.types.len();
    // Sized once for the common case (stock bodies take about ten bytes per field, a field at
    // least four); a table with more grows it.
    table.fields.reserve(sec.body.len() / 8);
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
        read_body(&mut c, &mut table.types[i as usize], &mut table.fields, count, fields, budget)
            .map_err(|e| e.in_context(table.types[i as usize].name.clone()))?;
    }
    Ok(())
}

fn read_body(
    c: &mut Cursor<'_>,
    t: &mut TypeDef,
    all_fields: &mut Vec<Field>,
    count: usize,
    fields: &[&str],
    budget: &mut NameBudget,
) -> Result<()> {
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
        let start = all_fields.len();
        all_fields.reserve(n);
        for _ in 0..n {
            let at = c.offset();
            let name = string_at(fields, packed::read(c)?, at, "field name string", budget)?;
            let flags = packed::read_u32(c)?;
            let aux = if flags & field_flags::AUX != 0 { packed::read_u32(c)? } else { 0 };
            let offset = packed::read_u32(c)?;
            let ty = type_index(c, count).map_err(|e| e.in_context(name))?;
            all_fields.push(Field { name: Name::new(name), flags, offset, ty, aux });
        }
        t.fields = Some(Span::between(start, all_fields.len()));
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
    let read = || -> Result<Vec<TypeIndex>> {
        let mut c = sec.cursor();
        let n = packed::read(&mut c)?;
        let n = check_count("hashes", n, 5, c.remaining(), sec.body_offset())?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(type_index(&mut c, count)?);
            c.skip(4)?;
        }
        Ok(out)
    };
    read().map_err(|e| sec.locate(e))
}

/// Structural checks the rest of the crate relies on: every parent chain ends, within
/// [`MAX_DEPTH`] types (stock chains are under ten), so that walking the ancestry of every type
/// stays linear. Linear itself (each type is settled once, with its depth), so a hostile table
/// cannot make it quadratic. The `<hktagfile>` XML reader makes the same checks of the table it
/// builds, so that what XML -> TAG0 writes reads back.
pub(crate) fn validate(table: &TypeTable) -> Result<()> {
    // Per type: 0 unseen, 1 on the path being walked, else 2 + the length of its parent chain.
    const UNSEEN: usize = 0;
    const ON_PATH: usize = 1;
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
        let mut depth = if cur == 0 { 0 } else { state[cur as usize] - 2 };
        for &i in path.iter().rev() {
            depth += 1;
            if depth > MAX_DEPTH {
                let name = table.types[i as usize].name.clone();
                return Err(Error::new(ErrorKind::Invalid(format!("parent chain longer than {MAX_DEPTH} types"))).in_context(name));
            }
            state[i as usize] = depth + 2;
        }
        path.clear();
    }
    check_members(table)
}

/// Every member of a record lies inside it: its offset plus its type's size is at most the
/// record's size. (Slots and values are read at `offset` within an element of the record's size;
/// a member past the end, or one whose offset wraps around 2^32 when its size is added, would be
/// read from the next element or not at all.)
///
/// And a type that states its own size is at least as large as its parent (an heir holds its
/// parent's members at their offsets; a smaller one would have them read past its elements).
///
/// And no two members take the same byte, within the record or with its ancestors' members
/// ([`check_ancestors`]).
fn check_members(table: &TypeTable) -> Result<()> {
    use crate::reflect::layout::{Layouts, Shape};
    use crate::reflect::Kind;
    let mut layouts = Layouts::new(table);
    let mut spans: Vec<Vec<Taken>> = vec![Vec::new(); table.types.len()];
    for (i, t) in table.iter() {
        if let (Some(own), true) = (t.size, t.parent != 0) {
            let parent = layouts.size_of(t.parent).map_err(|e| Error::from(e).in_context(t.name.clone()))?;
            if own.size < parent {
                return Err(Error::new(ErrorKind::Invalid(format!(
                    "size {} is smaller than the {parent} bytes of its parent {}",
                    own.size,
                    table.full_name(t.parent)
                )))
                .in_context(table.full_name(i)));
            }
        }
        let fields = table.fields_of(t);
        if fields.is_empty() {
            continue;
        }
        let Some(Shape { kind: Kind::Record, size, .. }) = layouts.shape(i).map_err(|e| Error::from(e).in_context(t.name.clone()))? else {
            continue;
        };
        let own = &mut spans[i as usize];
        for (k, f) in fields.iter().enumerate() {
            let member = layouts.size_of(f.ty).map_err(|e| Error::from(e).in_context(f.name.clone()).in_context(t.name.clone()))?;
            if u64::from(f.offset) + u64::from(member) > u64::from(size) {
                return Err(Error::new(ErrorKind::Invalid(format!(
                    "member at offset {} of {member} bytes does not fit the {size}-byte record",
                    f.offset
                )))
                .in_context(f.name.clone())
                .in_context(t.name.clone()));
            }
            if member > 0 {
                own.push(Taken { start: f.offset, end: f.offset + member, field: k as u32 });
            }
        }
        own.sort_unstable_by_key(|s| s.start);
        if let Some(w) = own.windows(2).find(|w| w[1].start < w[0].end) {
            return Err(shared_bytes(table, i, w[0], i, w[1]));
        }
    }
    check_ancestors(table, &spans)
}

/// The bytes one member of a record takes: `start..end`, `field` its index among its type's own.
#[derive(Clone, Copy)]
struct Taken {
    start: u32,
    end: u32,
    field: u32,
}

/// No member of a record shares a byte with a member of one of its ancestors (its own members
/// were found apart by [`check_members`]). Two members over the same bytes hold one value: the
/// walk reads it twice, and writing them (from XML, where each has its own text) keeps only the
/// second, with nothing to say that the first was lost.
///
/// `spans` are each type's own members, sorted and apart. A member at or past every byte its
/// ancestors take (the usual case: an heir's members follow its parent's) is settled by one
/// compare; one below is looked up in each ancestor's members by halving, so the work stays at
/// most [`MAX_DEPTH`] lookups per member however the types share ancestors.
fn check_ancestors(table: &TypeTable, spans: &[Vec<Taken>]) -> Result<()> {
    let ends: Vec<u32> = spans.iter().map(|s| s.iter().map(|s| s.end).max().unwrap_or(0)).collect();
    let end_of = |i: TypeIndex| ends.get(i as usize).copied().unwrap_or(0);
    // Per type: the end of the last byte its ancestors' members take (0 for none), once found.
    let mut above: Vec<Option<u32>> = vec![None; spans.len()];
    let mut path = Vec::new();
    for (i, own) in spans.iter().enumerate() {
        let Some(parent) = table.types.get(i).map(|t| t.parent).filter(|&p| p != 0) else { continue };
        if own.is_empty() {
            continue;
        }
        // The ancestors' end: walk up to a type already settled (or the root), then down.
        let mut cur = parent;
        while cur != 0 && above[cur as usize].is_none() {
            path.push(cur);
            cur = table.types[cur as usize].parent;
        }
        let mut end = if cur == 0 { 0 } else { above[cur as usize].unwrap_or(0).max(end_of(cur)) };
        for &j in path.iter().rev() {
            above[j as usize] = Some(end);
            end = end.max(end_of(j));
        }
        path.clear();
        for &s in own.iter().filter(|s| s.start < end) {
            let mut cur = parent;
            while cur != 0 {
                let theirs = &spans[cur as usize];
                // The last of theirs starting before `s` ends: the only one that can share a byte.
                let k = theirs.partition_point(|t| t.start < s.end);
                if let Some(&t) = k.checked_sub(1).and_then(|k| theirs.get(k)).filter(|t| t.end > s.start) {
                    return Err(shared_bytes(table, cur, t, i as TypeIndex, s));
                }
                cur = table.types[cur as usize].parent;
            }
        }
    }
    Ok(())
}

/// Member `a` of type `ta` and member `b` of type `tb` (the same type, or `tb` an heir of `ta`)
/// share bytes.
fn shared_bytes(table: &TypeTable, ta: TypeIndex, a: Taken, tb: TypeIndex, b: Taken) -> Error {
    let name = |t: TypeIndex, s: Taken| {
        let f = table.types.get(t as usize).map(|d| table.fields_of(d)).and_then(|f| f.get(s.field as usize));
        f.map_or_else(String::new, |f| f.name.to_string())
    };
    let whose = if ta == tb { String::new() } else { format!(" of its ancestor {}", table.full_name(ta)) };
    Error::new(ErrorKind::Invalid(format!(
        "members {} (bytes {}..{}){whose} and {} (bytes {}..{}) share bytes: one value would be lost",
        name(ta, a),
        a.start,
        a.end,
        name(tb, b),
        b.start,
        b.end
    )))
    .in_context(table.full_name(tb))
}

#[cfg(test)]
mod hostile_tests {
    use super::*;
    use crate::tagfile::section::{read_root, SectionWriter};

    #[test]
    fn zero_bytes_are_found_exactly() {
        // A byte of 1 or 0x80 beside a zero byte is where a borrowing test would err.
        for v in [0u64, u64::MAX, 0x0100_0100_0180_8000, 0x0001_0000_7F01_0080, 0x8000_0000_0000_0001] {
            let want = (0..8).filter(|i| (v >> (8 * i)) as u8 == 0).fold(0u64, |m, i| m | 0x80 << (8 * i));
            assert_eq!(zero_bytes(v), want, "{v:#018x}");
        }
    }

    fn type_section(children: &[(&[u8; 4], Vec<u8>)]) -> Vec<u8> {
        let mut w = SectionWriter::new();
        w.begin(b"TYPE", 0);
        for (tag, body) in children {
            w.leaf(tag, body);
        }
        w.end();
        w.finish()
    }

    fn packed_all(values: &[u64]) -> Vec<u8> {
        let mut out = Vec::new();
        for &v in values {
            packed::write(&mut out, v);
        }
        out
    }

    /// `n` types after the null one, each named string 0 and without parameters.
    fn names(n: u64) -> Vec<u8> {
        let mut out = packed_all(&[n + 1]);
        for _ in 0..n {
            out.extend([0, 0]);
        }
        out
    }

    fn read_bytes(bytes: &[u8]) -> crate::error::Result<TypeTable> {
        Ok(read(&read_root(bytes)?)?)
    }

    #[test]
    fn more_types_than_the_section_holds_are_refused() {
        let bytes = type_section(&[(b"TSTR", b"T\0".to_vec()), (b"FSTR", vec![0]), (b"TNA1", names(2_000)), (b"TBDY", vec![])]);
        let e = read_bytes(&bytes).unwrap_err();
        assert_eq!(e.section(), Some("TYPE/TNA1"), "{e}");
        assert!(e.offset().is_some() && e.to_string().contains("more than one per 16 bytes"), "{e}");
    }

    #[test]
    fn one_long_string_named_by_every_type_is_refused() {
        // 800 types naming one 60 000-byte string would copy 48 MB out of a 62 kB section (few
        // enough types for the section's size, see `MIN_TYPE_BYTES`).
        let mut long = vec![b'A'; 60_000];
        long.push(0);
        let bytes = type_section(&[(b"TSTR", long), (b"FSTR", vec![0]), (b"TNA1", names(800)), (b"TBDY", vec![])]);
        let e = read_bytes(&bytes).unwrap_err();
        assert!(e.offset().is_some(), "{e}");
        assert_eq!(e.section(), Some("TYPE/TNA1"), "{e}");
        assert!(e.to_string().contains("out of proportion"), "{e}");
    }

    #[test]
    fn one_long_string_named_by_every_field_is_refused() {
        let mut long = vec![b'F'; 10_000];
        long.push(0);
        let mut tbdy = packed_all(&[1, 0, presence::FIELDS as u64, 2_000]);
        for _ in 0..2_000 {
            tbdy.extend(packed_all(&[0, 0x20, 0, 0]));
        }
        let bytes = type_section(&[(b"TSTR", b"T\0".to_vec()), (b"FSTR", long), (b"TNA1", names(1)), (b"TBDY", tbdy)]);
        let e = read_bytes(&bytes).unwrap_err();
        assert_eq!(e.section(), Some("TYPE/TBDY"), "{e}");
        assert!(e.offset().is_some() && e.path() == ["T"], "{e}");
    }

    #[test]
    fn names_within_the_budget_still_read() {
        // Every type named by one 100-byte string: 20 kB of copies from a 4 kB section is fine.
        let mut s = vec![b'A'; 100];
        s.push(0);
        let bytes = type_section(&[(b"TSTR", s), (b"FSTR", vec![0]), (b"TNA1", names(200)), (b"TBDY", vec![])]);
        let t = read_bytes(&bytes).unwrap();
        assert_eq!(t.len(), 201);
        assert_eq!(t.types[200].name.len(), 100);
    }

    #[test]
    fn a_parent_chain_longer_than_the_limit_is_refused() {
        let chain = |n: u64| {
            let tbdy: Vec<u8> = (1..=n).flat_map(|k| packed_all(&[k, k - 1, 0])).collect();
            type_section(&[(b"TSTR", b"T\0".to_vec()), (b"FSTR", vec![0]), (b"TNA1", names(n)), (b"TBDY", tbdy)])
        };
        assert!(read_bytes(&chain(MAX_DEPTH as u64)).is_ok());
        let e = read_bytes(&chain(MAX_DEPTH as u64 + 1)).unwrap_err();
        assert_eq!(e.section(), Some("TYPE/TBDY"), "{e}");
        assert!(e.to_string().contains("parent chain longer than"), "{e}");
    }

    #[test]
    fn hash_order_errors_name_the_section() {
        let mut thsh = packed_all(&[2, 1]);
        thsh.extend([0, 0, 0]); // a hash one byte short
        let bytes = type_section(&[(b"THSH", thsh)]);
        let e = hash_order(&read_root(&bytes).unwrap(), 2).unwrap_err();
        assert_eq!(e.section(), Some("TYPE/THSH"), "{e}");
        assert!(e.offset().is_some(), "{e}");
    }
}
