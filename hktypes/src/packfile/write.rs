//! Writing a packfile from its parts, in two phases: [`plan`] places every section and table and
//! so fixes every header word; [`fn@write`] then emits the bytes in one pass. Sections follow their
//! headers without gaps; each fixup table is its records and `0xFF` up to a multiple of 16 from the
//! section start (or the fill a file was read with, see [`Fill`](super::Fill)). Both phases fail
//! with a [`WriteError`](crate::error::WriteError).

use super::file::{SectionBody, HeaderTail, PackFile, Section};
use super::raw::{
    minimal_fill, RawHeader, RawSectionHeader, FILL, GLOBAL_FIXUP_LEN, HEADER_LEN, LOCAL_FIXUP_LEN, VERSION_11,
    VIRTUAL_FIXUP_LEN,
};
use crate::error::{ErrorKind, WriteError as Error};

type Result<T, E = Error> = std::result::Result<T, E>;

/// Where one section and its tables go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SectionPlan {
    /// Absolute start.
    pub start: u32,
    /// Relative to `start`: local, global and virtual fixups, exports, imports, end.
    pub offsets: [u32; 6],
    /// `0xFF` bytes after each fixup table's records.
    pub fill: [usize; 3],
}

/// The placement of every section: the first phase of writing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Size of the header, including the version-11 region.
    pub header_len: usize,
    /// Placement of each section, in file order.
    pub sections: Vec<SectionPlan>,
    /// Total file size.
    pub file_len: usize,
}

fn too_big() -> Error {
    Error::new(ErrorKind::Invalid("packfile over 4 GiB".into()))
}

/// Places every section.
pub fn plan(file: &PackFile<'_>) -> Result<Plan> {
    let v11 = file.header.file_version >= VERSION_11;
    if v11 != matches!(file.header.tail, HeaderTail::Predicates { .. }) {
        return Err(Error::new(ErrorKind::Invalid(format!(
            "file version {} does not match the header's layout at 0x3C",
            file.header.file_version
        ))));
    }
    let header_len = file.header.byte_len();
    let mut at = header_len + file.sections.len() * RawSectionHeader::len(file.header.file_version);
    let mut sections = Vec::with_capacity(file.sections.len());
    for s in &file.sections {
        let mut rel = s.body_len();
        let mut offsets = [0u32; 6];
        let mut fill = [0usize; 3];
        let tables = [
            (s.local.len() * LOCAL_FIXUP_LEN, s.fill.local),
            (s.global.len() * GLOBAL_FIXUP_LEN, s.fill.global),
            (s.virtuals.len() * VIRTUAL_FIXUP_LEN, s.fill.virtuals),
        ];
        for (k, (len, stored)) in tables.into_iter().enumerate() {
            offsets[k] = u32::try_from(rel).map_err(|_| too_big())?;
            rel += len;
            fill[k] = stored.map_or_else(|| minimal_fill(rel), |f| f as usize);
            rel += fill[k];
        }
        offsets[3] = u32::try_from(rel).map_err(|_| too_big())?;
        rel += s.exports.len();
        offsets[4] = u32::try_from(rel).map_err(|_| too_big())?;
        rel += s.imports.len();
        offsets[5] = u32::try_from(rel).map_err(|_| too_big())?;
        sections.push(SectionPlan { start: u32::try_from(at).map_err(|_| too_big())?, offsets, fill });
        at += rel;
    }
    u32::try_from(at).map_err(|_| too_big())?;
    Ok(Plan { header_len, sections, file_len: at })
}

/// The whole file.
pub fn write(file: &PackFile<'_>) -> Result<Vec<u8>> {
    let plan = plan(file)?;
    let e = file.endian();
    let h = &file.header;
    let word_3c = match &h.tail {
        HeaderTail::Pad(w) => *w,
        HeaderTail::Predicates { max_predicate, region } => {
            let len = u16::try_from(region.len())
                .map_err(|_| Error::new(ErrorKind::Invalid("header region over 64 KiB".into())))?;
            let mut w = [0u8; 4];
            w[..2].copy_from_slice(&e.u16_bytes(*max_predicate));
            w[2..].copy_from_slice(&e.u16_bytes(len));
            w
        }
    };
    let raw = RawHeader {
        user_tag: h.user_tag,
        file_version: h.file_version,
        layout: h.layout,
        num_sections: file.sections.len() as u32,
        contents_section_index: h.contents_section_index,
        contents_section_offset: h.contents_section_offset,
        contents_class_name_section_index: h.contents_class_name_section_index,
        contents_class_name_section_offset: h.contents_class_name_section_offset,
        contents_version: h.contents_version.0,
        flags: h.flags,
        word_3c,
    };
    let mut out = Vec::with_capacity(plan.file_len);
    raw.write(e, &mut out);
    if let HeaderTail::Predicates { region, .. } = &h.tail {
        out.extend_from_slice(region);
    }
    debug_assert_eq!(out.len(), plan.header_len.max(HEADER_LEN));
    let v11 = h.file_version >= VERSION_11;
    for (s, p) in file.sections.iter().zip(&plan.sections) {
        RawSectionHeader { name: s.name.0, start: p.start, offsets: p.offsets, tail: v11.then_some(s.header_tail) }
            .write(e, &mut out);
    }
    for (s, p) in file.sections.iter().zip(&plan.sections) {
        debug_assert_eq!(out.len(), p.start as usize);
        write_section(s, p, e, &mut out);
    }
    debug_assert_eq!(out.len(), plan.file_len);
    Ok(out)
}

fn write_section(s: &Section<'_>, p: &SectionPlan, e: super::Endian, out: &mut Vec<u8>) {
    match &s.body {
        SectionBody::Data(d) => out.extend_from_slice(d),
        SectionBody::ClassNames(c) => out.extend_from_slice(&c.to_bytes(e)),
    }
    for f in &s.local {
        out.extend_from_slice(&e.u32_bytes(f.src));
        out.extend_from_slice(&e.u32_bytes(f.dst));
    }
    out.resize(out.len() + p.fill[0], FILL);
    for f in &s.global {
        for w in [f.src, f.section, f.dst] {
            out.extend_from_slice(&e.u32_bytes(w));
        }
    }
    out.resize(out.len() + p.fill[1], FILL);
    for f in &s.virtuals {
        for w in [f.src, f.section, f.name_offset] {
            out.extend_from_slice(&e.u32_bytes(w));
        }
    }
    out.resize(out.len() + p.fill[2], FILL);
    out.extend_from_slice(&s.exports);
    out.extend_from_slice(&s.imports);
}

impl PackFile<'_> {
    /// The file's bytes, rebuilt from its parts.
    pub fn to_bytes(&self) -> crate::error::Result<Vec<u8>> {
        Ok(write(self)?)
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use std::borrow::Cow;

    /// A small file built from parts, in each byte order and header version, reads back to the
    /// same parts.
    fn sample(layout: LayoutRules, version: u32) -> PackFile<'static> {
        let names = ClassNames {
            entries: vec![
                ClassName { signature: 0x33d4_2383, name: "hkClass".into() },
                ClassName { signature: 0x2772_c11e, name: "hkRootLevelContainer".into() },
            ],
            fill: None,
        };
        let root = names.offset_of("hkRootLevelContainer").unwrap();
        let mut classnames = Section::empty(CLASSNAMES);
        classnames.body = SectionBody::ClassNames(names);
        let mut data = Section::empty(DATA);
        data.body = SectionBody::Data(Cow::Owned(vec![0; 48]));
        data.local = vec![LocalFixup { src: 0, dst: 16 }];
        data.global = vec![GlobalFixup { src: 8, section: 2, dst: 32 }];
        data.virtuals = vec![VirtualFixup { src: 0, section: 0, name_offset: root }];
        let tail = if version >= 11 {
            HeaderTail::Predicates { max_predicate: 21, region: vec![0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] }
        } else {
            HeaderTail::Pad([0xFF; 4])
        };
        PackFile {
            header: Header {
                user_tag: 0,
                file_version: version,
                layout,
                contents_section_index: 2,
                contents_section_offset: 0,
                contents_class_name_section_index: 0,
                contents_class_name_section_offset: root,
                contents_version: ContentsVersion::new("hk_2014.2.0-r1"),
                flags: 0,
                tail,
            },
            sections: vec![classnames, Section::empty(TYPES), data],
        }
    }

    #[test]
    fn packfile_parts_round_trip() {
        for layout in [LayoutRules::WII_U, LayoutRules::SWITCH] {
            for version in [9, 11] {
                let f = sample(layout, version);
                let bytes = f.to_bytes().unwrap();
                let back = PackFile::read(&bytes).unwrap();
                assert_eq!(back, f);
                assert_eq!(back.to_bytes().unwrap(), bytes);
                assert_eq!(back.objects(2)[0].1.name, "hkRootLevelContainer");
            }
        }
    }

    #[test]
    fn packfile_bad_fixups_are_errors() {
        let mut f = sample(LayoutRules::SWITCH, 11);
        f.sections[2].global[0].section = 7;
        let err = PackFile::read(&f.to_bytes().unwrap()).unwrap_err();
        assert_eq!(err.layer(), crate::error::Layer::Items, "{err}");
        let err = err.to_string();
        assert!(err.contains("names section 7"), "{err}");
        let mut f = sample(LayoutRules::WII_U, 11);
        f.sections[2].virtuals[0].name_offset = 3;
        let err = PackFile::read(&f.to_bytes().unwrap()).unwrap_err().to_string();
        assert!(err.contains("no class name starts at 0x3"), "{err}");
        let bytes = sample(LayoutRules::WII_U, 9).to_bytes().unwrap();
        for cut in 0..bytes.len() {
            let err = PackFile::read(&bytes[..cut]).unwrap_err();
            assert_eq!(err.layer(), crate::error::Layer::Container, "{err}");
        }
    }
}
