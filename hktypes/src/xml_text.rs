//! What the two XML dialects (`<hkpackfile>`, `hktypes::packfile::xml`; `<hktagfile>`,
//! `hktypes::tagfile::xml`) share below both: which dialect a text is, how reals are printed, and
//! the located error of a reader (line and column, then the object and member).

use crate::error::ValueError;

/// Which XML a text is (`hktypes::sniff` names it as a `hktypes::Format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum XmlForm {
    /// `<hkpackfile>`: the objects of a packfile.
    Packfile,
    /// `<hktagfile>`: a tagfile with its types (`hktypes::tagfile::xml`).
    Tagfile,
}

/// The XML form of `bytes` from its first element (after a byte-order mark, the XML declaration,
/// comments, a document type and white space), never from a file name; `None` when it is neither.
pub(crate) fn xml_form(bytes: &[u8]) -> Option<XmlForm> {
    let mut s = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    // Each step removes at least one byte, so this ends.
    loop {
        let t = s.trim_ascii_start();
        if t.starts_with(b"<?") || t.starts_with(b"<!--") {
            let end: &[u8] = if t.starts_with(b"<?") { b"?>" } else { b"-->" };
            let at = t.windows(end.len()).position(|w| w == end)?;
            s = &t[at + end.len()..];
        } else if t.starts_with(b"<!DOCTYPE") {
            // A document type (which the reader refuses): to its end, `]>` where it has an
            // internal subset.
            let gt = t.iter().position(|&b| b == b'>')?;
            let end = match t.iter().position(|&b| b == b'[') {
                Some(open) if open < gt => t.windows(2).position(|w| w == b"]>")? + 2,
                _ => gt + 1,
            };
            s = &t[end..];
        } else if t.starts_with(b"<hkpackfile") {
            return Some(XmlForm::Packfile);
        } else if t.starts_with(b"<hktagfile") {
            return Some(XmlForm::Tagfile);
        } else {
            return None;
        }
    }
}

/// How the writer prints reals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FloatForm {
    /// The shortest text that reads back to the same bits (ryu); a NaN other than the quiet one
    /// as its bits in hex (`0x7fc00001`), which the reader takes as bits too.
    #[default]
    Shortest,
    /// Six decimals, as Havok's own writer prints them (`1.000000`; at most 17 significant
    /// digits, as its C runtime prints them): loses bits. No `hkgen:` comment is written either
    /// (see the module documentation): the text is Havok's.
    Havok,
}

/// Line and column (from 1, in characters) of byte `pos` of `text`.
fn text_pos(text: &str, pos: usize) -> (usize, usize) {
    let mut pos = pos.min(text.len());
    while !text.is_char_boundary(pos) {
        pos -= 1;
    }
    let before = &text.as_bytes()[..pos];
    let line = 1 + memchr::memchr_iter(b'\n', before).count();
    let start = memchr::memrchr(b'\n', before).map_or(0, |n| n + 1);
    (line, 1 + text[start..pos].chars().count())
}

/// An XML reader's located error: `line L, column C: ` of byte `pos` of `text`, then
/// `object O: ` or `object O, member M: ` when `place` names the object (and the member, `None`
/// at the object's own level), then `msg`; its offset is `pos`. Shared by the packfile and
/// tagfile XML readers.
pub(crate) fn located(text: &str, pos: usize, place: Option<(&str, Option<&dyn std::fmt::Display>)>, msg: impl std::fmt::Display) -> ValueError {
    let (line, col) = text_pos(text, pos);
    let place = match place {
        Some((object, None)) => format!("object {object}: "),
        Some((object, Some(member))) => format!("object {object}, member {member}: "),
        None => String::new(),
    };
    ValueError::invalid(pos as u64, format!("line {line}, column {col}: {place}{msg}"))
}
