//! A packfile split into its parts: the header, and per section its data, its three fixup tables
//! (local: a pointer to a place in the same section; global: to a place in another section;
//! virtual: an object of a named class starts here), its export and import lists and its `0xFF`
//! fill. `__classnames__` is read into its entries (signature, the `0x09` byte, the name).
//!
//! Everything is checked while reading, so that a [`PackFile`] can be trusted by later stages:
//! every fixup source and destination lies inside its section's data, every virtual fixup names a
//! class-name entry, every table ends in `0xFF` fill only. A file that breaks one of these rules
//! gives a located error, never a panic: a [`ContainerError`] for the header, the section headers
//! and the tables, an [`ItemsError`] for a fixup that points outside its sections.

use super::raw::{
    minimal_fill, Endian, LayoutRules, RawHeader, RawSectionHeader, CONTENTS_VERSION_LEN, FILL,
    GLOBAL_FIXUP_LEN, HEADER_LEN, LOCAL_FIXUP_LEN, SECTION_NAME_LEN, VERSION_11, VIRTUAL_FIXUP_LEN,
};
use crate::bytes::{check_count, Cursor};
use crate::error::{ContainerError as Error, ContainerError, ItemsError};

type Result<T, E = Error> = std::result::Result<T, E>;
use std::borrow::Cow;

/// Name of the class-name section, `__classnames__`.
pub const CLASSNAMES: &str = "__classnames__";
/// Name of the types section, `__types__` (hkClass objects, or empty).
pub const TYPES: &str = "__types__";
/// Name of the data section, `__data__`, which holds the objects.
pub const DATA: &str = "__data__";

/// A section name field: the name, NUL-padded, with `0xFF` in the last byte as stock files have
/// it. Kept as stored so that an unusual fill survives a round trip.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SectionName(pub [u8; SECTION_NAME_LEN]);

impl SectionName {
    /// The stock field for `name` (at most 19 bytes).
    pub fn new(name: &str) -> Self {
        let mut b = [0u8; SECTION_NAME_LEN];
        let n = name.len().min(SECTION_NAME_LEN - 1);
        b[..n].copy_from_slice(&name.as_bytes()[..n]);
        b[SECTION_NAME_LEN - 1] = FILL;
        SectionName(b)
    }

    /// The name up to its first NUL.
    pub fn as_str(&self) -> Cow<'_, str> {
        let end = self.0.iter().position(|&b| b == 0).unwrap_or(SECTION_NAME_LEN);
        String::from_utf8_lossy(&self.0[..end])
    }
}

impl std::fmt::Debug for SectionName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

/// The contents version field at 0x28 (`hk_2014.2.0-r1`), NUL-terminated and `0xFF`-filled.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ContentsVersion(pub [u8; CONTENTS_VERSION_LEN]);

impl ContentsVersion {
    /// The stock field for `version`: at most 15 bytes, a NUL, then `0xFF` fill.
    pub fn new(version: &str) -> Self {
        let mut b = [FILL; CONTENTS_VERSION_LEN];
        let n = version.len().min(CONTENTS_VERSION_LEN - 1);
        b[..n].copy_from_slice(&version.as_bytes()[..n]);
        b[n] = 0;
        ContentsVersion(b)
    }

    /// The version string up to its first NUL.
    pub fn as_str(&self) -> Cow<'_, str> {
        let end = self.0.iter().position(|&b| b == 0).unwrap_or(CONTENTS_VERSION_LEN);
        String::from_utf8_lossy(&self.0[..end])
    }
}

impl std::fmt::Debug for ContentsVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

/// What follows the flags word at 0x3C.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeaderTail {
    /// Before version 11: one pad word (`0xFFFFFFFF` in stock files), kept as stored.
    Pad([u8; 4]),
    /// Version 11: the max predicate (21 in stock files) and the region between the header and the
    /// first section header whose size the next 16-bit word gives (16 bytes `14 00 ..` or none).
    Predicates {
        /// The first 16-bit word at 0x3C (21 in stock files).
        max_predicate: u16,
        /// The bytes between the header and the first section header.
        region: Vec<u8>,
    },
}

/// The file header, interpreted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The word at 0x08 (0 in stock files).
    pub user_tag: u32,
    /// The file version at 0x0C (5, 7, 8, 9 or 11).
    pub file_version: u32,
    /// The four layout bytes at 0x10.
    pub layout: LayoutRules,
    /// Index of the section holding the root object (the word at 0x18).
    pub contents_section_index: u32,
    /// Offset of the root object in that section (the word at 0x1C).
    pub contents_section_offset: u32,
    /// Index of the section holding the root object's class name (the word at 0x20).
    pub contents_class_name_section_index: u32,
    /// Offset of that class name in its section (the word at 0x24).
    pub contents_class_name_section_offset: u32,
    /// The contents version at 0x28.
    pub contents_version: ContentsVersion,
    /// The flags word at 0x38 (0 in stock files).
    pub flags: u32,
    /// The bytes at 0x3C and, from version 11, the region after the header.
    pub tail: HeaderTail,
}

impl Header {
    /// The file's byte order (little-endian when the endian byte is neither 0 nor 1).
    pub fn endian(&self) -> Endian {
        self.layout.endian().unwrap_or(Endian::Little)
    }

    /// Header size including the version-11 region.
    pub fn byte_len(&self) -> usize {
        match &self.tail {
            HeaderTail::Pad(_) => HEADER_LEN,
            HeaderTail::Predicates { region, .. } => HEADER_LEN + region.len(),
        }
    }
}

/// A pointer at `src` to `dst`, both offsets into the same section's data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalFixup {
    /// Offset of the pointer.
    pub src: u32,
    /// Offset it points to.
    pub dst: u32,
}

/// A pointer at `src` to `dst` in section `section`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GlobalFixup {
    /// Offset of the pointer.
    pub src: u32,
    /// Index of the section pointed into.
    pub section: u32,
    /// Offset it points to in that section.
    pub dst: u32,
}

/// An object starts at `src`; its class is the name at `name_offset` in section `section` (the
/// class-name section). This is the file's class mapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VirtualFixup {
    /// Offset of the object.
    pub src: u32,
    /// Index of the class-name section.
    pub section: u32,
    /// Offset of the class name in that section.
    pub name_offset: u32,
}

/// `0xFF` bytes after a table's records, when they differ from the stock amount (up to the next
/// multiple of 16 from the section start). `None` everywhere for every stock file of SDK 2010 and
/// later; some 5.5 and 6.6 files pad their global fixups further.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fill {
    /// Fill after the local fixups.
    pub local: Option<u32>,
    /// Fill after the global fixups.
    pub global: Option<u32>,
    /// Fill after the virtual fixups.
    pub virtuals: Option<u32>,
}

/// One `__classnames__` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassName {
    /// The class signature (a CRC of its reflection).
    pub signature: u32,
    /// The class name.
    pub name: String,
}

/// The `__classnames__` section body: entries of signature, `0x09`, NUL-terminated name, then
/// `0xFF` up to a multiple of 16.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassNames {
    /// The entries, in file order.
    pub entries: Vec<ClassName>,
    /// The fill when it is not the stock amount.
    pub fill: Option<u32>,
}

/// The byte between a class signature and its name.
pub const CLASS_NAME_MARK: u8 = 0x09;

impl ClassNames {
    /// Reads entries until only `0xFF` fill is left. `base` is the section's file offset.
    pub fn read(body: &[u8], base: u64, e: Endian) -> Result<Self> {
        let mut c = Cursor::new(body, base);
        let mut entries = Vec::new();
        // Every entry ends in a NUL, so the fill is the run of 0xFF at the end.
        let fill_start = body.len() - body.iter().rev().take_while(|&&b| b == FILL).count();
        while c.position() < fill_start {
            let at = c.offset();
            let sig: [u8; 4] = c.array()?;
            let mark = c.u8()?;
            if mark != CLASS_NAME_MARK {
                return Err(Error::invalid(at + 4, format!("class-name entry has {mark:#04x} where 0x09 belongs")));
            }
            let name_at = c.offset();
            let name = c.cstr()?;
            let name = std::str::from_utf8(name).map_err(|_| Error::at(name_at, crate::error::ErrorKind::BadUtf8))?;
            entries.push(ClassName { signature: e.u32(sig), name: name.to_owned() });
        }
        let fill = c.remaining();
        let used = body.len() - fill;
        let fill = (fill != minimal_fill(used)).then_some(fill as u32);
        Ok(ClassNames { entries, fill })
    }

    /// Offsets of each entry's name (what virtual fixups and the header point to).
    pub fn name_offsets(&self) -> impl Iterator<Item = u32> + '_ {
        let mut at = 0u32;
        self.entries.iter().map(move |e| {
            let name = at + 5;
            at = name + e.name.len() as u32 + 1;
            name
        })
    }

    /// The entry whose name starts at `offset`.
    pub fn at_offset(&self, offset: u32) -> Option<&ClassName> {
        self.name_offsets().zip(&self.entries).find(|(o, _)| *o == offset).map(|(_, e)| e)
    }

    /// The name offset of the first entry named `name`.
    pub fn offset_of(&self, name: &str) -> Option<u32> {
        self.name_offsets().zip(&self.entries).find(|(_, e)| e.name == name).map(|(o, _)| o)
    }

    /// The first entry named `name`.
    pub fn get(&self, name: &str) -> Option<&ClassName> {
        self.entries.iter().find(|e| e.name == name)
    }

    /// The section body in the file's byte order.
    pub fn to_bytes(&self, e: Endian) -> Vec<u8> {
        let mut out = Vec::new();
        for c in &self.entries {
            out.extend_from_slice(&e.u32_bytes(c.signature));
            out.push(CLASS_NAME_MARK);
            out.extend_from_slice(c.name.as_bytes());
            out.push(0);
        }
        let fill = self.fill.map_or_else(|| minimal_fill(out.len()), |f| f as usize);
        out.resize(out.len() + fill, FILL);
        out
    }
}

/// What a section holds before its fixup tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SectionBody<'a> {
    /// The `__classnames__` body, read into its entries.
    ClassNames(ClassNames),
    /// Object bytes (`__data__`, and `__types__` when it carries hkClass objects), kept as stored.
    Data(Cow<'a, [u8]>),
}

/// One section: its data and its tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section<'a> {
    /// The name field from the section header.
    pub name: SectionName,
    /// The class names or object bytes before the fixup tables.
    pub body: SectionBody<'a>,
    /// Local fixups, in file order.
    pub local: Vec<LocalFixup>,
    /// Global fixups, in file order.
    pub global: Vec<GlobalFixup>,
    /// Virtual fixups, in file order.
    pub virtuals: Vec<VirtualFixup>,
    /// Export and import lists, kept as stored (empty in every corpus file).
    pub exports: Cow<'a, [u8]>,
    /// The import list, kept as stored (empty in every corpus file).
    pub imports: Cow<'a, [u8]>,
    /// `0xFF` fill after each fixup table when it is not the stock amount.
    pub fill: Fill,
    /// The 16 bytes a version-11 section header ends with (`0xFF` in stock files).
    pub header_tail: [u8; 16],
}

impl<'a> Section<'a> {
    /// The data bytes (`None` for the class-name section).
    pub fn data(&self) -> Option<&[u8]> {
        match &self.body {
            SectionBody::Data(d) => Some(d),
            SectionBody::ClassNames(_) => None,
        }
    }

    /// The class-name entries (`None` for a data section).
    pub fn class_names(&self) -> Option<&ClassNames> {
        match &self.body {
            SectionBody::ClassNames(c) => Some(c),
            SectionBody::Data(_) => None,
        }
    }

    /// Length of the body as written (the class names with their fill).
    pub fn body_len(&self) -> usize {
        match &self.body {
            SectionBody::Data(d) => d.len(),
            SectionBody::ClassNames(c) => c.to_bytes(Endian::Little).len(),
        }
    }

    /// An empty section named `name` with stock fill.
    pub fn empty(name: &str) -> Self {
        Section {
            name: SectionName::new(name),
            body: SectionBody::Data(Cow::Borrowed(&[])),
            local: Vec::new(),
            global: Vec::new(),
            virtuals: Vec::new(),
            exports: Cow::Borrowed(&[]),
            imports: Cow::Borrowed(&[]),
            fill: Fill::default(),
            header_tail: [FILL; 16],
        }
    }
}

/// A whole packfile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackFile<'a> {
    /// The file header.
    pub header: Header,
    /// The sections, in file order.
    pub sections: Vec<Section<'a>>,
}

impl<'a> PackFile<'a> {
    /// Reads and checks a packfile; data bytes are borrowed from `bytes`.
    pub fn read(bytes: &'a [u8]) -> crate::error::Result<Self> {
        let (raw, e) = RawHeader::read(bytes)?;
        let version = raw.file_version;
        let tail = if version >= VERSION_11 {
            let max_predicate = e.u16([raw.word_3c[0], raw.word_3c[1]]);
            let region_len = e.u16([raw.word_3c[2], raw.word_3c[3]]) as usize;
            let region = bytes
                .get(HEADER_LEN..HEADER_LEN + region_len)
                .ok_or_else(|| Error::invalid(0x3E, format!("header region of {region_len} bytes runs past the end of the file")))?;
            HeaderTail::Predicates { max_predicate, region: region.to_vec() }
        } else {
            HeaderTail::Pad(raw.word_3c)
        };
        let header = Header {
            user_tag: raw.user_tag,
            file_version: version,
            layout: raw.layout,
            contents_section_index: raw.contents_section_index,
            contents_section_offset: raw.contents_section_offset,
            contents_class_name_section_index: raw.contents_class_name_section_index,
            contents_class_name_section_offset: raw.contents_class_name_section_offset,
            contents_version: ContentsVersion(raw.contents_version),
            flags: raw.flags,
            tail,
        };
        let ptr = u32::from(raw.layout.pointer_size);
        if ptr != 4 && ptr != 8 {
            return Err(Error::invalid(0x10, format!("pointer size {ptr} is neither 4 nor 8")).into());
        }

        // Section headers.
        let hdr_len = RawSectionHeader::len(version);
        let first = header.byte_len();
        let room = bytes.len().saturating_sub(first);
        let n = check_count("section headers", u64::from(raw.num_sections), hdr_len as u64, room, 0x14).map_err(Error::from)?;
        let mut c = Cursor::new(&bytes[first..], first as u64);
        let mut heads = Vec::with_capacity(n);
        for _ in 0..n {
            heads.push((c.offset(), RawSectionHeader::read(&mut c, e, version)?));
        }

        // Section extents: contiguous from the end of the headers to the end of the file.
        let mut expect = c.offset();
        for (i, (at, h)) in heads.iter().enumerate() {
            let name = SectionName(h.name).as_str().into_owned();
            let loc = |e: Error| e.in_section(&format!("packfile/section {i} {name}"), *at);
            if u64::from(h.start) != expect {
                return Err(loc(Error::invalid(
                    at + SECTION_NAME_LEN as u64,
                    format!("section starts at {:#x}, not where the previous one ends ({expect:#x})", h.start),
                ))
                .into());
            }
            let mut prev = 0;
            for (k, &o) in h.offsets.iter().enumerate() {
                if o < prev {
                    return Err(loc(Error::invalid(at + 24 + 4 * k as u64, format!("section offset {o:#x} is before the previous one ({prev:#x})"))).into());
                }
                prev = o;
            }
            let end = u64::from(h.start) + u64::from(h.offsets[5]);
            if end > bytes.len() as u64 {
                return Err(loc(Error::invalid(at + 44, format!("section ends at {end:#x}, past the end of the file ({:#x})", bytes.len()))).into());
            }
            expect = end;
        }
        if expect != bytes.len() as u64 {
            return Err(Error::invalid(expect, format!("{} bytes after the last section", bytes.len() as u64 - expect)).into());
        }

        let mut sections = Vec::with_capacity(n);
        for (i, (at, h)) in heads.iter().enumerate() {
            let path = format!("packfile/{}", SectionName(h.name).as_str());
            sections.push(read_section(bytes, e, h).map_err(|err| err.in_section(&path, u64::from(h.start)).in_context(format!("section {i} (header at {at:#x})")))?);
        }
        let file = PackFile { header, sections };
        let starts: Vec<u64> = heads.iter().map(|(_, h)| u64::from(h.start)).collect();
        let tables: Vec<[u64; 3]> = heads.iter().map(|(_, h)| [0, 1, 2].map(|k| u64::from(h.start) + u64::from(h.offsets[k]))).collect();
        file.check(&starts, &tables)?;
        Ok(file)
    }

    /// The file's byte order.
    pub fn endian(&self) -> Endian {
        self.header.endian()
    }

    /// The four layout rules at 0x10.
    pub fn layout(&self) -> LayoutRules {
        self.header.layout
    }

    /// Pointer size in bytes (4 or 8).
    pub fn pointer_size(&self) -> u32 {
        u32::from(self.header.layout.pointer_size)
    }

    /// The contents version string (`hk_2014.2.0-r1` in BotW files).
    pub fn contents_version(&self) -> String {
        self.header.contents_version.as_str().into_owned()
    }

    /// Index of the first section named `name`.
    pub fn section_index(&self, name: &str) -> Option<usize> {
        self.sections.iter().position(|s| s.name.as_str() == name)
    }

    /// The first section named `name`.
    pub fn section(&self, name: &str) -> Option<&Section<'a>> {
        self.sections.iter().find(|s| s.name.as_str() == name)
    }

    /// The class-name section's entries (empty when the file has none).
    pub fn class_names(&self) -> &ClassNames {
        static EMPTY: ClassNames = ClassNames { entries: Vec::new(), fill: None };
        self.sections.iter().find_map(|s| s.class_names()).unwrap_or(&EMPTY)
    }

    /// The objects of section `index`: their offsets and class names, in virtual-fixup order.
    pub fn objects(&self, index: usize) -> Vec<(u32, &ClassName)> {
        let Some(sec) = self.sections.get(index) else { return Vec::new() };
        let mut by_offset: std::collections::HashMap<(u32, u32), &ClassName> = Default::default();
        for (i, s) in self.sections.iter().enumerate() {
            if let Some(names) = s.class_names() {
                by_offset.extend(names.name_offsets().zip(&names.entries).map(|(o, e)| ((i as u32, o), e)));
            }
        }
        sec.virtuals.iter().filter_map(|v| Some((v.src, *by_offset.get(&(v.section, v.name_offset))?))).collect()
    }

    /// Where the pointers of section `index` point: source offset -> (target section, target
    /// offset), from its local and global fixups.
    pub fn pointers(&self, index: usize) -> std::collections::HashMap<u32, (u32, u32)> {
        let Some(sec) = self.sections.get(index) else { return Default::default() };
        sec.local
            .iter()
            .map(|f| (f.src, (index as u32, f.dst)))
            .chain(sec.global.iter().map(|f| (f.src, (f.section, f.dst))))
            .collect()
    }

    /// Checks the references between sections: fixup sources and destinations, class names, the
    /// contents section and class named by the header. `starts` are the sections' file offsets,
    /// `tables` where each one's local, global and virtual fixup tables start (for the error's
    /// location: the offending record). A fixup outside its sections is an [`ItemsError`], a
    /// header index out of range a [`ContainerError`].
    fn check(&self, starts: &[u64], tables: &[[u64; 3]]) -> crate::error::Result<()> {
        let n = self.sections.len() as u32;
        let ptr = self.pointer_size();
        let lens: Vec<u32> = self.sections.iter().map(|s| s.body_len() as u32).collect();
        let len_of = |i: u32| lens.get(i as usize).copied();
        // Name offsets of each class-name section, looked up once per virtual fixup.
        let name_starts: Vec<Option<std::collections::HashSet<u32>>> =
            self.sections.iter().map(|s| s.class_names().map(|c| c.name_offsets().collect())).collect();
        for (i, (s, &len)) in self.sections.iter().zip(&lens).enumerate() {
            let path = format!("packfile/{}", s.name.as_str());
            let at = |table: usize, rec: usize, size: usize| tables[i][table] + (rec * size) as u64;
            let bad = |offset: u64, what: String| -> crate::error::Error { ItemsError::invalid(offset, what).in_section(&path, starts[i]).into() };
            let src_ok = |src: u32| src.checked_add(ptr).is_some_and(|end| end <= len);
            for (k, f) in s.local.iter().enumerate() {
                if !src_ok(f.src) || f.dst > len {
                    let what = format!("local fixup {:#x} -> {:#x} outside the section's {len:#x} data bytes", f.src, f.dst);
                    return Err(bad(at(0, k, LOCAL_FIXUP_LEN), what));
                }
            }
            for (k, f) in s.global.iter().enumerate() {
                let here = at(1, k, GLOBAL_FIXUP_LEN);
                let Some(tlen) = len_of(f.section) else {
                    return Err(bad(here, format!("global fixup at {:#x} names section {} of {n}", f.src, f.section)));
                };
                if !src_ok(f.src) || f.dst > tlen {
                    return Err(bad(here, format!("global fixup {:#x} -> {}:{:#x} outside its sections", f.src, f.section, f.dst)));
                }
            }
            for (k, f) in s.virtuals.iter().enumerate() {
                let here = at(2, k, VIRTUAL_FIXUP_LEN);
                let names = name_starts.get(f.section as usize).and_then(Option::as_ref);
                let Some(names) = names else {
                    let what = format!("virtual fixup at {:#x} names section {}, which holds no class names", f.src, f.section);
                    return Err(bad(here, what));
                };
                // An object may be empty (hkxpack's test-base.hkx has one at the end of an empty section).
                if f.src > len {
                    return Err(bad(here, format!("virtual fixup at {:#x} outside the section's {len:#x} data bytes", f.src)));
                }
                if !names.contains(&f.name_offset) {
                    return Err(bad(here, format!("virtual fixup at {:#x}: no class name starts at {:#x}", f.src, f.name_offset)));
                }
            }
        }
        let h = &self.header;
        for (what, idx, offset, at) in [
            ("contents section", h.contents_section_index, h.contents_section_offset, 0x18u64),
            ("contents class-name section", h.contents_class_name_section_index, h.contents_class_name_section_offset, 0x20),
        ] {
            let Some(len) = len_of(idx).filter(|_| idx < n) else {
                return Err(ContainerError::invalid(at, format!("{what} index {idx} out of range ({n} sections)")).into());
            };
            // The offset (the word after the index) must lie inside the section's data.
            if offset > len {
                return Err(ContainerError::invalid(
                    at + 4,
                    format!("{what} offset {offset:#x} outside the section's {len:#x} data bytes"),
                )
                .into());
            }
        }
        Ok(())
    }
}

fn read_section<'a>(bytes: &'a [u8], e: Endian, h: &RawSectionHeader) -> Result<Section<'a>> {
    let start = h.start as usize;
    let o = h.offsets.map(|x| x as usize);
    let part = |lo: usize, hi: usize| &bytes[start + lo..start + hi];
    let base = |lo: usize| (start + lo) as u64;
    let name = SectionName(h.name);
    let body = if name.as_str() == CLASSNAMES {
        SectionBody::ClassNames(ClassNames::read(part(0, o[0]), base(0), e)?)
    } else {
        SectionBody::Data(Cow::Borrowed(part(0, o[0])))
    };
    let (local, lf) = read_table(part(o[0], o[1]), base(o[0]), o[0], LOCAL_FIXUP_LEN, "local fixups", |c| {
        Ok(LocalFixup { src: e.read_u32(c)?, dst: e.read_u32(c)? })
    })?;
    let (global, gf) = read_table(part(o[1], o[2]), base(o[1]), o[1], GLOBAL_FIXUP_LEN, "global fixups", |c| {
        Ok(GlobalFixup { src: e.read_u32(c)?, section: e.read_u32(c)?, dst: e.read_u32(c)? })
    })?;
    let (virtuals, vf) = read_table(part(o[2], o[3]), base(o[2]), o[2], VIRTUAL_FIXUP_LEN, "virtual fixups", |c| {
        Ok(VirtualFixup { src: e.read_u32(c)?, section: e.read_u32(c)?, name_offset: e.read_u32(c)? })
    })?;
    Ok(Section {
        name,
        body,
        local,
        global,
        virtuals,
        exports: Cow::Borrowed(part(o[3], o[4])),
        imports: Cow::Borrowed(part(o[4], o[5])),
        fill: Fill { local: lf, global: gf, virtuals: vf },
        header_tail: h.tail.unwrap_or([FILL; 16]),
    })
}

/// Reads records of `rec` bytes until the first one that starts with `0xFFFFFFFF`; the rest of
/// the table must be `0xFF`. Returns the records and the fill when it is not the stock amount.
/// `rel` is the table's offset from the section start (stock fill ends on a multiple of 16 of it).
fn read_table<T>(
    table: &[u8],
    base: u64,
    rel: usize,
    rec: usize,
    what: &'static str,
    mut read: impl FnMut(&mut Cursor<'_>) -> Result<T>,
) -> Result<(Vec<T>, Option<u32>)> {
    let mut c = Cursor::new(table, base);
    let mut out = Vec::with_capacity(table.len() / rec);
    while c.remaining() >= rec && c.rest()[..4] != [FILL; 4] {
        out.push(read(&mut c)?);
    }
    let fill = c.remaining();
    if c.rest().iter().any(|&b| b != FILL) {
        let at = c.rest().iter().position(|&b| b != FILL).unwrap_or(0) as u64;
        return Err(Error::invalid(c.offset() + at, format!("{what}: bytes other than 0xFF after the records")));
    }
    let used = rel + out.len() * rec;
    Ok((out, (fill != minimal_fill(used)).then_some(fill as u32)))
}
