//! Section framing shared by TAG0 files and TCM0 compendia: an 8-byte header of a big-endian size
//! word (low 30 bits the size including the header, bit 30 the leaf flag) and a four-character
//! tag. A section without the leaf flag holds further sections (spec: "Section framing").
//!
//! Framing errors ([`read_root`]) are [`ContainerError`](crate::error::ContainerError)s;
//! [`Section::require`], which every layer uses to find its sections, fails with an
//! [`UnlayeredError`] that takes the caller's layer.

use crate::bytes::Cursor;
use crate::error::{ContainerError as Error, ErrorKind, Locate, UnlayeredError};

type Result<T, E = Error> = std::result::Result<T, E>;

/// Length of a section header: the size word and the tag.
pub const HEADER_LEN: usize = 8;
const SIZE_MASK: u32 = 0x3FFF_FFFF;
const LEAF: u32 = 0x4000_0000;

/// A four-character section tag such as `TAG0` or `TBDY`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tag(pub [u8; 4]);

impl Tag {
    /// The tag of these four bytes.
    pub const fn new(s: &[u8; 4]) -> Self {
        Tag(*s)
    }
    /// The tag as text, non-printing bytes as `?`.
    pub fn as_str(&self) -> String {
        self.0.iter().map(|&b| Self::shown(b)).collect()
    }

    /// Appends the tag as [`Tag::as_str`] spells it.
    fn push_to(&self, out: &mut compact_str::CompactString) {
        for &b in &self.0 {
            out.push(Self::shown(b));
        }
    }

    fn shown(b: u8) -> char {
        if b.is_ascii_graphic() { b as char } else { '?' }
    }
}

impl std::fmt::Debug for Tag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.as_str())
    }
}

impl std::fmt::Display for Tag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.as_str())
    }
}

/// One section as read: its tag, flag bits, where it starts, and its body (children parsed when it
/// is not a leaf).
#[derive(Clone, Debug)]
pub struct Section<'a> {
    /// The section's tag.
    pub tag: Tag,
    /// The two flag bits above the size (bit 0 of this is the leaf flag).
    pub flags: u8,
    /// Absolute offset of the section header.
    pub start: u64,
    /// Section path from the outermost section, e.g. `TAG0/TYPE/TBDY`. Held in place (stock paths
    /// are at most 14 bytes), since every section of every read has one.
    pub path: compact_str::CompactString,
    /// The body (after the header), children included.
    pub body: &'a [u8],
    /// The sections inside a non-leaf section, in order.
    pub children: Vec<Section<'a>>,
}

impl<'a> Section<'a> {
    /// Whether the section holds bytes rather than further sections.
    pub fn is_leaf(&self) -> bool {
        self.flags & 1 != 0
    }

    /// Absolute offset of the first body byte.
    pub fn body_offset(&self) -> u64 {
        self.start + HEADER_LEN as u64
    }

    /// A cursor over the body, at its file offset.
    pub fn cursor(&self) -> Cursor<'a> {
        Cursor::new(self.body, self.body_offset())
    }

    /// The first child with tag `tag`.
    pub fn child(&self, tag: &[u8; 4]) -> Option<&Section<'a>> {
        self.children.iter().find(|s| s.tag.0 == *tag)
    }

    /// The first child whose tag is any of `tags` (older and newer SDKs name some sections
    /// differently).
    pub fn child_any(&self, tags: &[&[u8; 4]]) -> Option<&Section<'a>> {
        self.children.iter().find(|s| tags.iter().any(|t| s.tag.0 == **t))
    }

    /// Wraps an error (of any layer) with this section's path.
    pub fn locate<E: Locate>(&self, e: E) -> E {
        e.in_section(&self.path, self.body_offset())
    }

    /// The first child whose tag is any of `tags`, or a [`ErrorKind::MissingSection`] error.
    pub fn require(&self, tags: &[&[u8; 4]]) -> Result<&Section<'a>, UnlayeredError> {
        self.child_any(tags).ok_or_else(|| {
            let name: &'static str = match tags.first() {
                Some(t) => tag_name(t),
                None => "?",
            };
            UnlayeredError::at(self.start, ErrorKind::MissingSection(name)).in_section(&self.path, self.body_offset())
        })
    }
}

fn tag_name(t: &[u8; 4]) -> &'static str {
    // Static names for the error message; unknown tags are never required.
    match t {
        b"SDKV" => "SDKV",
        b"DATA" => "DATA",
        b"TYPE" => "TYPE",
        b"TCRF" => "TCRF",
        b"INDX" => "INDX",
        b"ITEM" => "ITEM",
        b"PTCH" => "PTCH",
        b"TCID" => "TCID",
        b"TPTR" => "TPTR",
        b"TSTR" => "TSTR",
        b"TNA1" => "TNA1",
        b"FSTR" => "FSTR",
        b"TBDY" => "TBDY",
        _ => "section",
    }
}

/// Reads the one top-level section that makes up a whole file.
pub fn read_root(data: &[u8]) -> Result<Section<'_>> {
    let (root, rest) = read_root_and_rest(data)?;
    if !rest.is_empty() {
        return Err(Error::invalid(root.start + (data.len() - rest.len()) as u64, format!("{} bytes after the {} section", rest.len(), root.tag)));
    }
    Ok(root)
}

/// Reads the top-level section that starts the file, and returns the bytes after it (Helldivers
/// 2 `.physics` files carry data of their own after the `TAG0` section). Bytes before the first
/// section are an error as in [`read_root`]: the file must start with a section header.
pub fn read_root_and_rest(data: &[u8]) -> Result<(Section<'_>, &[u8])> {
    let mut c = Cursor::new(data, 0);
    let root = read_one(&mut c, "", 0)?;
    Ok((root, c.rest()))
}

const MAX_DEPTH: usize = 8;

fn read_one<'a>(c: &mut Cursor<'a>, parent: &str, depth: usize) -> Result<Section<'a>> {
    let start = c.offset();
    let room = c.remaining() as u64;
    // A bad header is an error of the section that holds it (of none, for the file's own).
    let parent_body = c.base();
    let in_parent = |e: Error| if parent.is_empty() { e } else { e.in_section(parent, parent_body) };
    let word = c.u32_be().map_err(|e| in_parent(e.into()))?;
    let tag = Tag(c.array::<4>().map_err(|e| in_parent(e.into()))?);
    let size = u64::from(word & SIZE_MASK);
    if size < HEADER_LEN as u64 || size > room {
        return Err(in_parent(Error::at(start, ErrorKind::BadSectionSize { size, room })));
    }
    let body = c.bytes(size as usize - HEADER_LEN)?;
    let mut path = compact_str::CompactString::const_new("");
    if !parent.is_empty() {
        path.push_str(parent);
        path.push('/');
    }
    tag.push_to(&mut path);
    let flags = (word >> 30) as u8;
    let mut sec = Section { tag, flags, start, path, body, children: Vec::new() };
    if word & LEAF == 0 {
        if depth >= MAX_DEPTH {
            return Err(Error::invalid(start, "sections nested too deeply").in_section(&sec.path, start));
        }
        let mut inner = Cursor::new(body, start + HEADER_LEN as u64);
        while !inner.is_empty() {
            sec.children.push(read_one(&mut inner, &sec.path, depth + 1)?);
        }
    }
    Ok(sec)
}

/// Builds sections back into bytes.
pub struct SectionWriter {
    /// The bytes written so far.
    pub out: Vec<u8>,
    open: Vec<(usize, u8)>,
}

impl Default for SectionWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl SectionWriter {
    /// An empty writer.
    pub fn new() -> Self {
        SectionWriter { out: Vec::new(), open: Vec::new() }
    }

    /// An empty writer that holds `bytes` before it grows.
    pub fn with_capacity(bytes: usize) -> Self {
        SectionWriter { out: Vec::with_capacity(bytes), open: Vec::new() }
    }

    /// Opens a section whose length is filled in by [`SectionWriter::end`].
    pub fn begin(&mut self, tag: &[u8; 4], flags: u8) {
        self.open.push((self.out.len(), flags));
        self.out.extend_from_slice(&[0; 4]);
        self.out.extend_from_slice(tag);
    }

    /// Closes the innermost open section, filling in its size.
    pub fn end(&mut self) {
        let (start, flags) = self.open.pop().expect("end without begin");
        let size = (self.out.len() - start) as u32;
        let word = size | (u32::from(flags) << 30);
        self.out[start..start + 4].copy_from_slice(&word.to_be_bytes());
    }

    /// A whole leaf section with the leaf flag set.
    pub fn leaf(&mut self, tag: &[u8; 4], body: &[u8]) {
        self.begin(tag, 1);
        self.out.extend_from_slice(body);
        self.end();
    }

    /// The bytes written (every section closed).
    pub fn finish(self) -> Vec<u8> {
        assert!(self.open.is_empty(), "unclosed section");
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_header_names_the_section_that_holds_it() {
        let mut w = SectionWriter::new();
        w.begin(b"TAG0", 0);
        w.leaf(b"SDKV", b"20180100");
        w.begin(b"INDX", 0);
        w.leaf(b"ITEM", &[0; 12]);
        w.end();
        w.end();
        let good = w.finish();
        assert!(read_root(&good).is_ok());
        // ITEM's size word (at 0x20) made larger than INDX.
        let mut bad = good.clone();
        bad[0x20..0x24].copy_from_slice(&0x4000_0100u32.to_be_bytes());
        let e = read_root(&bad).unwrap_err();
        assert_eq!((e.section(), e.offset()), (Some("TAG0/INDX"), Some(0x20)), "{e}");
        assert!(e.to_string().starts_with("TAG0/INDX+0x0 (file 0x20)"), "{e}");
        // A header cut short inside INDX.
        let mut cut = good[..0x22].to_vec();
        cut[0..4].copy_from_slice(&0x22u32.to_be_bytes());
        cut[0x18..0x1c].copy_from_slice(&0x0Au32.to_be_bytes());
        let e = read_root(&cut).unwrap_err();
        assert_eq!((e.section(), e.offset()), (Some("TAG0/INDX"), Some(0x20)), "{e}");
        // The file's own header belongs to no section.
        let e = read_root(&good[..6]).unwrap_err();
        assert_eq!((e.section(), e.offset()), (None, Some(4)), "{e}");
    }
}
