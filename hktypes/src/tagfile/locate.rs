//! Names a byte of a tagfile: its section, and inside `DATA` the item, element and member path
//! (`TAG0/DATA+0x1a40: item 12 hknpBodyCinfo[0].motionType`). Used to report where a round trip
//! first differs.

use super::file::TagFile;
use super::section::{read_root_and_rest, Section};
use crate::reflect::layout::Layouts;
use crate::reflect::{Kind, TypeIndex};

/// A description of one byte position.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Place {
    /// Innermost section path, e.g. `TAG0/INDX/ITEM`.
    pub section: String,
    /// Offset within that section's body.
    pub section_offset: u64,
    /// Inside `DATA`: the item and member path, e.g. `item 12 hknpBodyCinfo[0].motionType`.
    pub object: Option<String>,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}+{:#x}", self.section, self.section_offset)?;
        if let Some(o) = &self.object {
            write!(f, " in {o}")?;
        }
        Ok(())
    }
}

fn innermost<'a>(s: &'a Section<'a>, off: u64) -> Option<&'a Section<'a>> {
    let end = s.body_offset() + s.body.len() as u64;
    if off < s.start || off >= end {
        return None;
    }
    s.children.iter().find_map(|c| innermost(c, off)).or(Some(s))
}

/// Describes `offset` of `bytes`; `file` (the same bytes, read) adds the object path in `DATA`.
pub fn locate(bytes: &[u8], offset: u64, file: Option<&TagFile<'_>>) -> Place {
    let Ok((root, _)) = read_root_and_rest(bytes) else {
        return Place { section: "file".into(), section_offset: offset, object: None };
    };
    let Some(sec) = innermost(&root, offset) else {
        return Place { section: "file".into(), section_offset: offset, object: None };
    };
    let mut place = Place {
        section: sec.path.to_string(),
        section_offset: offset.saturating_sub(sec.body_offset()),
        object: None,
    };
    if sec.tag.0 == *b"DATA" {
        if let Some(file) = file {
            place.object = data_path(file, place.section_offset);
        }
    }
    place
}

/// The item and member path of byte `rel` of `file`'s `DATA` (`item 12 hknpBodyCinfo[0].motionType`).
pub(crate) fn data_path(file: &TagFile<'_>, rel: u64) -> Option<String> {
    let mut layouts = file.layouts();
    for (index, it) in file.items.iter().enumerate().skip(1) {
        let size = u64::from(layouts.size_of(it.ty).ok()?);
        let start = u64::from(it.offset);
        let len = size * u64::from(it.count);
        if rel >= start && rel < start + len {
            let e = (rel - start) / size.max(1);
            let within = (rel - start) % size.max(1);
            let mut path = format!("item {index} {}[{e}]", file.types.full_name(it.ty));
            member_path(&mut layouts, it.ty, within as u32, &mut path, 0);
            return Some(path);
        }
    }
    Some("padding between items".into())
}

fn member_path(layouts: &mut Layouts<'_>, ty: TypeIndex, off: u32, out: &mut String, depth: usize) {
    if depth > 32 {
        return;
    }
    let Ok(Some(shape)) = layouts.shape(ty) else { return };
    let table = layouts.table();
    if shape.kind != Kind::Record {
        if off != 0 {
            out.push_str(&format!("+{off:#x}"));
        }
        return;
    }
    // The member with the greatest offset not past `off`.
    let mut best: Option<(&str, u32, TypeIndex)> = None;
    for owner in table.ancestry(shape.def) {
        let Some(t) = table.get(owner) else { continue };
        for f in table.fields_of(t) {
            if f.offset <= off && best.is_none_or(|(_, o, _)| f.offset >= o) {
                let size = layouts.size_of(f.ty).unwrap_or(0);
                if u64::from(off) < u64::from(f.offset) + u64::from(size.max(1)) {
                    best = Some((f.name.as_str(), f.offset, f.ty));
                }
            }
        }
    }
    match best {
        Some((name, o, fty)) => {
            out.push('.');
            out.push_str(name);
            member_path(layouts, fty, off - o, out, depth + 1);
        }
        None => out.push_str(&format!("+{off:#x}")),
    }
}
