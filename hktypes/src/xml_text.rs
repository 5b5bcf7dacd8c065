//! What the two XML dialects (`<hkpackfile>`, `hktypes::packfile::xml`; `<hktagfile>`,
//! `hktypes::tagfile::xml`) share below both: which dialect a text is, how reals are printed, and
//! the located error of a reader (line and column, then the object and member), and the pull
//! parser over quick-xml that both readers read with ([`Pull`]).

use crate::error::ValueError;
use quick_xml::events::{BytesStart, Event};
use std::borrow::Cow;

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

// ---------------------------------------------------------------------------------------------
// The pull parser both XML readers read with

/// One event of the pull parser.
pub(crate) enum Ev<'i> {
    /// An element's start tag (for `<x/>`, a [`Ev::Close`] follows).
    Open(BytesStart<'i>),
    /// An element's end.
    Close,
    /// Character data as it stands in the text, or the content of a CDATA section; which of
    /// these, and whether references may need resolving, is the [`Txt`].
    Text(&'i str, Txt),
    /// A comment's text (between `<!--` and `-->`).
    Comment(&'i str),
    Eof,
}

/// What a [`Ev::Text`] is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Txt {
    /// Character data that may hold references or carriage returns (see [`unescape`]).
    Refs,
    /// Character data with neither: its value is the text as it stands.
    Plain,
    /// A CDATA section's content: taken as it is.
    CData,
}

/// A child element where text belongs: where it starts and its name.
pub(crate) type Child<'i> = (usize, Cow<'i, str>);

/// quick-xml's reader over the text, giving each event with the byte offset where it starts.
/// quick-xml reads the markup and checks that comments hold no `--`; the rest of what the
/// reader needs (names, attributes not repeated, end tags that match their start tags, no DTD,
/// known entities, closed elements, one root element) is checked here.
///
/// Once quick-xml has read the first tag (it is then in its text state), the markup spelled the
/// usual way is read here without its event loop, whose cost per event was most of what a
/// reader spent on it: character data without `&` or carriage return ([`Pull::plain_text`]),
/// start tags of `key="value"` attributes ([`Pull::start_tag`]), end tags ([`Pull::end_tag`]),
/// and an element's plain content with its end tag at once ([`Pull::plain_content`]). Each
/// fast path reads only what it can read whole and leaves anything else, untouched, to
/// quick-xml: comments, CDATA sections, declarations, processing instructions, references,
/// other spellings of a tag, and every malformed text, so the errors are quick-xml's and this
/// type's as before.
pub(crate) struct Pull<'i> {
    pub(crate) r: quick_xml::Reader<&'i [u8]>,
    pub(crate) text: &'i str,
    /// The end of an element written `<x/>`, given on the next call.
    pub(crate) close_next: bool,
    /// The attributes (name, value as it stands in the text, whether that is its value: no
    /// reference or carriage return in it) of the element last opened, read once when it was
    /// checked, and where that element starts (`usize::MAX`: none kept).
    pub(crate) attr_buf: Vec<(&'i str, &'i str, bool)>,
    pub(crate) attr_of: usize,
    /// quick-xml is in its text state (the last event it gave was markup), so the input left to
    /// it starts with character data or a `<`: see [`Pull::plain_text`].
    in_text: bool,
    /// Bytes taken from quick-xml's input by the fast paths: its positions count from where it
    /// was then, so this is added to them.
    skipped: usize,
    /// The names of the elements open (the innermost last), for the end tags' check. quick-xml
    /// keeps its own list but does not see the end tags read here, so its check is off (and its
    /// list only grows: at most the bytes of the text's element names, once).
    open: Vec<&'i str>,
    /// The name of the element [`Pull::start_tag`] read last (for [`Pull::tag`]).
    last_name: &'i str,
}

impl<'i> Pull<'i> {
    /// A reader of `text` (for the tests: the readers scan their bytes with [`utf8_text`] and
    /// call [`Pull::scanned`]).
    #[cfg(test)]
    pub(crate) fn new(text: &'i str) -> Result<Self, ValueError> {
        Self::scanned(text, control_char(text.as_bytes()))
    }

    /// A reader of `text`, whose first control character is at `control` ([`utf8_text`]): an
    /// error there, as XML 1.0 allows none but tab, line feed and carriage return. quick-xml does
    /// not check them, and a NUL inside a name or string would cut it in two in the binary the
    /// text is written to (the tagfile_xml fuzz target's sixth finding).
    pub(crate) fn scanned(text: &'i str, control: Option<usize>) -> Result<Self, ValueError> {
        if let Some(at) = control {
            let b = text.as_bytes().get(at).copied().unwrap_or_default();
            return Err(located(text, at, None, format!("XML: character U+{b:04X}, which XML 1.0 does not allow")));
        }
        let mut r = quick_xml::Reader::from_str(text);
        let c = r.config_mut();
        c.trim_text(false);
        // End tags are checked against `open` (quick-xml's list of names does not lose the
        // elements whose end tags were read here).
        c.check_end_names = false;
        c.allow_unmatched_ends = true;
        c.check_comments = true;
        c.expand_empty_elements = false;
        Ok(Pull { r, text, close_next: false, attr_buf: Vec::new(), attr_of: usize::MAX, in_text: false, skipped: 0, open: Vec::new(), last_name: "" })
    }

    pub(crate) fn pos(&self) -> usize {
        self.r.buffer_position() as usize + self.skipped
    }

    /// Character data up to the next `<`, taken from quick-xml's input without it when it holds
    /// no `&` and no carriage return (its value is then the text as it stands; quick-xml's text
    /// event checks nothing more): quick-xml reads on from the `<`, in the same state. Only in
    /// quick-xml's text state, and not at the end of the input (left to quick-xml).
    fn plain_text(&mut self) -> Option<(usize, &'i str)> {
        let rest_str = self.rest()?;
        let rest = rest_str.as_bytes();
        if rest.first().is_none_or(|&b| b == b'<') {
            return None;
        }
        let k = text_stop(rest)?;
        if rest[k] != b'<' {
            return None;
        }
        let at = self.pos();
        let t = rest_str.get(..k)?;
        self.skip(rest, k);
        Some((at, t))
    }

    /// Passes over the first `n` bytes of `rest`, quick-xml's input (read here, not by
    /// quick-xml).
    #[inline]
    fn skip(&mut self, rest: &'i [u8], n: usize) {
        *self.r.get_mut() = &rest[n..];
        self.skipped += n;
    }

    /// An end tag (`</name>`, white space allowed before the `>`) where quick-xml's input starts
    /// with one, read here and checked against the element open; `None` where the input starts
    /// otherwise or the tag has no `>` (quick-xml reads it and gives the error). Only in quick-xml's
    /// text state.
    fn end_tag(&mut self) -> Result<Option<usize>, ValueError> {
        let rest: &'i [u8] = self.r.get_ref();
        if !rest.starts_with(b"</") {
            return Ok(None);
        }
        // Most end tags are `</name>` of the element open.
        if let Some(&open) = self.open.last() {
            let n = open.len();
            if rest.get(2..2 + n).is_some_and(|t| same(t, open.as_bytes())) && rest.get(2 + n) == Some(&b'>') {
                let at = self.pos();
                self.open.pop();
                self.skip(rest, n + 3);
                return Ok(Some(at));
            }
        }
        let Some(gt) = memchr::memchr(b'>', rest) else { return Ok(None) };
        let at = self.pos();
        self.closes(rest[2..gt].trim_ascii_end(), at)?;
        self.skip(rest, gt + 1);
        Ok(Some(at))
    }

    /// A start tag where quick-xml's input starts with one written the usual way (`<name`, then
    /// `key="value"` or `key='value'` attributes each after white space, their keys XML names not
    /// repeated and their values without `<`, then `>` or `/>`), read here in one pass with its
    /// attributes kept (as [`Pull::checked`] keeps them); `None` at anything else, which quick-xml
    /// then reads and [`Pull::checked`] checks (the same tag or the same error). Only in
    /// quick-xml's text state.
    #[inline(never)]
    fn start_tag(&mut self) -> Option<(usize, BytesStart<'i>)> {
        let rest_str = self.rest()?;
        let rest = rest_str.as_bytes();
        if rest.first() != Some(&b'<') || NAME_BYTES[usize::from(*rest.get(1)?)] != 2 {
            return None;
        }
        let at = self.pos();
        self.attr_buf.clear();
        self.attr_of = usize::MAX;
        // The commonest start of a tag in packfile XML, known at once: its name and first key
        // are not scanned byte by byte.
        const HKPARAM: &str = "<hkparam name=\"";
        const NAME_END: usize = "<hkparam".len();
        const KEY: std::ops::Range<usize> = NAME_END + 1..HKPARAM.len() - 2;
        let (name_end, mut i) = if rest.starts_with(HKPARAM.as_bytes()) {
            let (value_end, plain) = quoted(rest, HKPARAM.len(), b'"')?;
            self.attr_buf.push((rest_str.get(KEY)?, rest_str.get(HKPARAM.len()..value_end)?, plain));
            (NAME_END, value_end + 1)
        } else {
            let i = span(rest, 2, |b| NAME_BYTES[usize::from(b)] != 0);
            (i, i)
        };
        let empty = loop {
            let before = i;
            i = span(rest, i, |b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
            match rest.get(i) {
                Some(b'>') => break false,
                Some(b'/') if rest.get(i + 1) == Some(&b'>') => break true,
                _ => {}
            }
            // An attribute, after white space.
            if i == before {
                return None;
            }
            let a = attribute(rest, i)?;
            let (k, v) = (rest_str.get(i..a.key_end)?, rest_str.get(a.value_start..a.value_end)?);
            if self.attr_buf.iter().any(|&(seen, ..)| seen == k) {
                return None;
            }
            self.attr_buf.push((k, v, a.plain));
            i = a.value_end + 1;
        };
        let content = rest_str.get(1..i)?;
        let name = rest_str.get(1..name_end)?;
        let len = i + 1 + usize::from(empty);
        self.skip(rest, len);
        self.attr_of = at;
        self.last_name = name;
        if empty {
            self.close_next = true;
        } else {
            self.open.push(name);
        }
        Some((at, BytesStart::from_content(content, name_end - 1)))
    }

    /// Checks that an end tag naming `name` (at `at`) closes the element open, which it closes.
    fn closes(&mut self, name: &[u8], at: usize) -> Result<(), ValueError> {
        let found = || String::from_utf8_lossy(name).into_owned();
        match self.open.pop() {
            Some(open) if open.as_bytes() == name => Ok(()),
            Some(open) => Err(located(self.text, at, None, format!("XML: ill-formed document: expected `</{open}>`, but `</{}>` was found", found()))),
            None => Err(located(self.text, at, None, format!("XML: ill-formed document: close tag `</{}>` does not match any open tag", found()))),
        }
    }

    /// The next event and the byte offset where it starts (declarations and processing
    /// instructions passed over; a document type is an error).
    pub(crate) fn next(&mut self) -> Result<(usize, Ev<'i>), ValueError> {
        if self.close_next {
            self.close_next = false;
            return Ok((self.pos(), Ev::Close));
        }
        if self.in_text {
            let rest: &[u8] = self.r.get_ref();
            match (rest.first(), rest.get(1)) {
                (Some(b'<'), Some(b'/')) => {
                    if let Some(at) = self.end_tag()? {
                        return Ok((at, Ev::Close));
                    }
                }
                (Some(b'<'), Some(_)) => {
                    if let Some((at, s)) = self.start_tag() {
                        return Ok((at, Ev::Open(s)));
                    }
                }
                (Some(_), _) => {
                    if let Some((at, t)) = self.plain_text() {
                        return Ok((at, Ev::Text(t, Txt::Plain)));
                    }
                }
                (None, _) => {}
            }
        }
        loop {
            let at = self.pos();
            let ev = self.r.read_event().map_err(|e| self.xml_error(self.r.error_position() as usize + self.skipped, e))?;
            self.in_text = !matches!(ev, Event::Text(_) | Event::Eof);
            // The event's text, for the events given as text (start and end tags are not).
            let raw = |p: &Self| p.text.get(at..p.pos()).unwrap_or_default();
            let ev = match ev {
                Event::Start(s) => {
                    let s = self.checked(s, at)?;
                    match self.slice(s.name().as_ref()) {
                        Some(n) => self.open.push(n),
                        None => return Err(located(self.text, at, None, "XML: an element name outside the text")),
                    }
                    Ev::Open(s)
                }
                Event::Empty(s) => {
                    self.close_next = true;
                    Ev::Open(self.checked(s, at)?)
                }
                Event::End(e) => {
                    self.closes(e.name().as_ref(), at)?;
                    Ev::Close
                }
                Event::Text(_) | Event::GeneralRef(_) => Ev::Text(raw(self), Txt::Refs),
                Event::CData(_) => {
                    let raw = raw(self);
                    Ev::Text(raw.get(9..raw.len().saturating_sub(3)).unwrap_or_default(), Txt::CData)
                }
                Event::Comment(_) => {
                    let raw = raw(self);
                    Ev::Comment(raw.get(4..raw.len().saturating_sub(3)).unwrap_or_default())
                }
                Event::DocType(_) => return Err(located(self.text, at, None, "XML: a document type (<!DOCTYPE>): refused, so no entity beyond XML's five")),
                Event::Decl(_) => {
                    // Only first, and only XML's own pseudo-attributes.
                    let raw = raw(self);
                    let body = raw.get(5..raw.len().saturating_sub(2)).unwrap_or_default();
                    let decl = BytesStart::from_content(body, 0);
                    let keys: Result<Vec<_>, _> = decl.attributes().map(|a| a.map(|a| a.key.as_ref().to_vec())).collect();
                    let fits = keys.is_ok_and(|k| k.first().is_some_and(|f| f == b"version") && k.iter().all(|k| [&b"version"[..], b"encoding", b"standalone"].contains(&&k[..])));
                    if at > 3 || !raw.starts_with("<?xml ") || !fits {
                        return Err(located(self.text, at, None, "XML: a malformed XML declaration, or one not at the start"));
                    }
                    continue;
                }
                Event::PI(_) => continue,
                Event::Eof => Ev::Eof,
            };
            return Ok((at, ev));
        }
    }

    /// The next event as [`Pull::next`] gives it, passing over character data that is only white
    /// space (space, tab, line feed) before a tag: for readers that pass over all character data
    /// there (between the elements of an object), without an event per run of indentation.
    pub(crate) fn next_markup(&mut self) -> Result<(usize, Ev<'i>), ValueError> {
        if self.in_text && !self.close_next {
            let rest: &'i [u8] = self.r.get_ref();
            let k = span(rest, 0, |c| matches!(c, b' ' | b'\t' | b'\n'));
            if k > 0 && rest.get(k) == Some(&b'<') {
                self.skip(rest, k);
            }
        }
        self.next()
    }

    /// A start tag whose element and attribute names are XML names, whose attributes are not
    /// repeated and whose attribute values hold no `<`.
    pub(crate) fn checked<'s>(&mut self, s: BytesStart<'s>, at: usize) -> Result<BytesStart<'s>, ValueError> {
        let text = self.text;
        let bad = |what: String| located(text, at, None, format!("XML: {what}"));
        if !is_name(s.name().as_ref()) {
            return Err(bad(format!("{:?} is not an element name", String::from_utf8_lossy(s.name().as_ref()))));
        }
        self.attr_buf.clear();
        self.attr_of = at;
        // The usual spelling (`key="value"` separated by white space, names and values that
        // pass) read in one pass; anything else is read again by quick-xml's attribute reader
        // below, which gives the same attributes or the error.
        if self.plain_attrs(s.attributes_raw()).map_err(bad)? {
            return Ok(s);
        }
        self.attr_buf.clear();
        for a in s.attributes() {
            let a = a.map_err(|e| bad(e.to_string()))?;
            if !is_name(a.key.as_ref()) {
                return Err(bad(format!("{:?} is not an attribute name", String::from_utf8_lossy(a.key.as_ref()))));
            }
            if a.value.contains(&b'<') {
                return Err(bad("an attribute value holds '<'".to_owned()));
            }
            match (self.slice(a.key.as_ref()), self.slice(&a.value)) {
                (Some(k), Some(v)) => self.attr_buf.push((k, v, false)),
                _ => self.attr_of = usize::MAX,
            }
        }
        Ok(s)
    }

    /// Reads the attributes `raw` (a start tag's bytes after its name) into `attr_buf` where
    /// each is `key="value"` or `key='value'` after white space, its key an XML name not seen
    /// before in the tag and its value without `<`; `false` at anything else (what is in
    /// `attr_buf` then is to be read again); an error where an attribute follows the one before
    /// without white space (`a="1"b="2"`), which XML does not allow.
    fn plain_attrs(&mut self, raw: &[u8]) -> Result<bool, String> {
        let mut i = 0;
        loop {
            let before = i;
            while raw.get(i).is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')) {
                i += 1;
            }
            if i == raw.len() {
                return Ok(true);
            }
            if i == before {
                return Err(format!("no white space before the attribute at {:?}", String::from_utf8_lossy(&raw[i..raw.len().min(i + 16)])));
            }
            let Some(a) = attribute(raw, i) else { return Ok(false) };
            let (Some(k), Some(v)) = (self.slice(&raw[i..a.key_end]), self.slice(&raw[a.value_start..a.value_end])) else { return Ok(false) };
            i = a.value_end + 1;
            if self.attr_buf.iter().any(|&(seen, ..)| seen == k) {
                return Ok(false);
            }
            self.attr_buf.push((k, v, a.plain));
        }
    }

    /// The text left to quick-xml, where it is a tail of the text (always: it is the text's bytes,
    /// from a tag's start or end).
    #[inline]
    fn rest(&self) -> Option<&'i str> {
        let rest: &'i [u8] = self.r.get_ref();
        let start = (rest.as_ptr() as usize).checked_sub(self.text.as_ptr() as usize)?;
        self.text.get(start..).filter(|t| t.len() == rest.len())
    }

    /// A slice of the text that `b` (bytes borrowed from it) is.
    #[inline]
    pub(crate) fn slice(&self, b: &[u8]) -> Option<&'i str> {
        let start = (b.as_ptr() as usize).checked_sub(self.text.as_ptr() as usize)?;
        self.text.get(start..start.checked_add(b.len())?)
    }

    /// Whether an element is named `name` ([`same`]).
    #[inline(always)]
    pub(crate) fn is(s: &BytesStart<'_>, name: &str) -> bool {
        same(s.name().as_ref(), name.as_bytes())
    }

    /// An element's name.
    pub(crate) fn tag(&self, s: &BytesStart<'_>) -> Cow<'i, str> {
        let n = s.name();
        // The element the fast path read last: its name is kept.
        if n.as_ref().as_ptr() == self.last_name.as_ptr() && n.as_ref().len() == self.last_name.len() {
            return Cow::Borrowed(self.last_name);
        }
        match self.slice(n.as_ref()) {
            Some(t) => Cow::Borrowed(t),
            None => Cow::Owned(String::from_utf8_lossy(n.as_ref()).into_owned()),
        }
    }

    /// The values of the attributes `keys` of the element at `pos` (the references in them
    /// resolved): those [`Pull::checked`] kept when it is the element last opened, else read
    /// again (the look ahead of [`XmlReader::param_names`]).
    ///
    /// Inlined where it is called, so that the keys, constants there, are compared without a
    /// call to `memcmp` (a third of this function's cost when it was not: two calls per
    /// `<hkparam>`).
    #[inline(always)]
    pub(crate) fn attrs<const N: usize>(&self, s: &BytesStart<'_>, pos: usize, keys: [&str; N]) -> Result<[Option<Cow<'i, str>>; N], ValueError> {
        if self.attr_of != pos {
            return self.attrs_again(s, pos, keys);
        }
        // The element just checked: its attributes are kept.
        let mut out = [const { None }; N];
        for &(key, value, plain) in &self.attr_buf {
            if let Some(k) = keys.iter().position(|k| *k == key) {
                out[k] = Some(attr_value(value, plain).map_err(|e| self.xml_error(pos, e))?);
            }
        }
        Ok(out)
    }

    /// The error `e` (quick-xml's, or [`unescape`]'s) at byte `pos`: out of line, so that the
    /// paths that may fail stay small where they are inlined.
    #[cold]
    #[inline(never)]
    pub(crate) fn xml_error(&self, pos: usize, e: impl std::fmt::Display) -> ValueError {
        located(self.text, pos, None, format!("XML: {e}"))
    }

    /// [`Pull::attrs`] of an element other than the one last opened: its attributes read again.
    #[inline(never)]
    fn attrs_again<const N: usize>(&self, s: &BytesStart<'_>, pos: usize, keys: [&str; N]) -> Result<[Option<Cow<'i, str>>; N], ValueError> {
        let mut out = [const { None }; N];
        for a in s.attributes() {
            let a = a.map_err(|e| self.xml_error(pos, e))?;
            let Some(k) = keys.iter().position(|k| k.as_bytes() == a.key.as_ref()) else { continue };
            let v = match self.slice(&a.value) {
                Some(t) => unescape(t),
                None => unescape(&String::from_utf8_lossy(&a.value)).map(|c| Cow::Owned(c.into_owned())),
            };
            out[k] = Some(v.map_err(|e| self.xml_error(pos, e))?);
        }
        Ok(out)
    }

    /// The content of the element open where it is character data without `&` or carriage return
    /// and then the element's end tag (`</name>`), read in one pass; `None` (nothing read) at
    /// anything else.
    fn plain_content(&mut self) -> Option<&'i str> {
        if !self.in_text || self.close_next {
            return None;
        }
        let open = *self.open.last()?;
        let rest_str = self.rest()?;
        let rest = rest_str.as_bytes();
        let k = text_stop(rest)?;
        let n = open.len();
        if rest.get(k..k + 2)? != b"</" || !same(rest.get(k + 2..k + 2 + n)?, open.as_bytes()) || rest.get(k + 2 + n)? != &b'>' {
            return None;
        }
        let t = rest_str.get(..k)?;
        self.skip(rest, k + n + 3);
        self.open.pop();
        Some(t)
    }

    /// The error of an element the text ends inside.
    pub(crate) fn unclosed(&self, pos: usize) -> ValueError {
        located(self.text, pos, None, "XML: the element is not closed (the text ends inside it)")
    }

    /// The text of the element opened at `pos`, up to its end: its character data joined
    /// (comments and the text of child elements passed over), and the first child element
    /// (where and which) if it has one.
    pub(crate) fn content(&mut self, pos: usize) -> Result<(Cow<'i, str>, Option<Child<'i>>), ValueError> {
        // Most elements hold plain character data and then their end tag: read at once.
        if let Some(t) = self.plain_content() {
            return Ok((Cow::Borrowed(t), None));
        }
        let mut text: Option<Cow<'i, str>> = None;
        let mut child = None;
        let mut depth = 0usize;
        loop {
            let (q, ev) = self.next()?;
            match ev {
                Ev::Text(raw, kind) if depth == 0 => {
                    let t = if kind != Txt::Refs { Cow::Borrowed(raw) } else { unescape(raw).map_err(|e| self.xml_error(q, e))? };
                    text = Some(match text {
                        None => t,
                        Some(a) => Cow::Owned(a.into_owned() + &t),
                    });
                }
                Ev::Open(s) => {
                    if depth == 0 && child.is_none() {
                        child = Some((q, self.tag(&s)));
                    }
                    depth += 1;
                }
                Ev::Close if depth == 0 => break,
                Ev::Close => depth -= 1,
                Ev::Eof => return Err(self.unclosed(pos)),
                Ev::Text(..) | Ev::Comment(_) => {}
            }
        }
        Ok((text.unwrap_or_default(), child))
    }

}

/// The offset of the first control character XML 1.0 does not allow (below U+0020, but tab, line
/// feed and carriage return) in `b`. Checked 64 bytes at a time, without a branch per byte.
pub(crate) fn control_char(b: &[u8]) -> Option<usize> {
    // Without a branch per byte (`&`, not `&&`), so that the compiler checks a chunk's bytes
    // side by side.
    let bad = |c: u8| (c < 0x20) & (c != b'\t') & (c != b'\n') & (c != b'\r');
    let mut chunks = b.chunks_exact(64);
    let mut at = 0;
    for chunk in &mut chunks {
        let mut any = 0u8;
        for &c in chunk {
            any |= u8::from(bad(c));
        }
        if any != 0 {
            return chunk.iter().position(|&c| bad(c)).map(|k| at + k);
        }
        at += 64;
    }
    chunks.remainder().iter().position(|&c| bad(c)).map(|k| at + k)
}

/// Whether `a` and `b` are the same bytes, compared here, without a call to `memcmp`, where they
/// are up to 16 bytes long (two loads each): the names and keys the readers compare, millions of
/// times a document, mostly are, and the call cost more than the compare (2% of a packfile
/// read's instructions in `memcmp`). Inlined, so that a constant side's length settles which
/// branch is taken where it is called.
#[inline(always)]
pub(crate) fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let word8 = |s: &[u8]| (u64::from_le_bytes(*s.first_chunk::<8>().unwrap_or(&[0; 8])), u64::from_le_bytes(*s.last_chunk::<8>().unwrap_or(&[0; 8])));
    let word4 = |s: &[u8]| (u32::from_le_bytes(*s.first_chunk::<4>().unwrap_or(&[0; 4])), u32::from_le_bytes(*s.last_chunk::<4>().unwrap_or(&[0; 4])));
    match a.len() {
        // The first and the last eight (or four) bytes, which overlap where shorter than 16 (8).
        8..=16 => word8(a) == word8(b),
        4..=7 => word4(a) == word4(b),
        0..=3 => a.iter().zip(b).all(|(x, y)| x == y),
        _ => a == b,
    }
}

/// `bytes` as UTF-8 text, with the offset of its first control character (any below U+0020 but
/// tab, line feed and carriage return: XML 1.0 allows no other, and [`Pull::scanned`] refuses
/// them); `Err` with the offset of the first byte that is not UTF-8. One pass over the bytes: each
/// block is checked both ways while it is in the cache, where two passes over a text larger than
/// the cache read it twice from memory (2% of a packfile read's time each, over the corpus).
pub(crate) fn utf8_text(bytes: &[u8]) -> Result<(&str, Option<usize>), usize> {
    const BLOCK: usize = 1 << 14;
    let mut control = None;
    let mut start = 0;
    while start < bytes.len() {
        let end = bytes.len().min(start + BLOCK);
        let valid = match std::str::from_utf8(&bytes[start..end]) {
            Ok(_) => end,
            // A character that the block's end cuts: checked again with the next block. The block
            // is not the last, so it is BLOCK bytes long and all but the last three are valid:
            // this moves on.
            Err(e) if e.error_len().is_none() && end < bytes.len() => start + e.valid_up_to(),
            Err(e) => return Err(start + e.valid_up_to()),
        };
        if control.is_none() {
            control = control_char(&bytes[start..valid]).map(|k| start + k);
        }
        start = valid;
    }
    // SAFETY: `bytes` is the blocks checked above, one after the other, each UTF-8 and ending at
    // the end of a character, and UTF-8 strings one after the other are UTF-8.
    Ok((unsafe { std::str::from_utf8_unchecked(bytes) }, control))
}

/// Whether `n` is an XML name (ASCII letters, digits, `_`, `:`, `-`, `.`, and any character
/// beyond ASCII; not starting with a digit, `-` or `.`).
pub(crate) fn is_name(n: &[u8]) -> bool {
    n.first().is_some_and(|&b| NAME_BYTES[usize::from(b)] == 2) && n.iter().all(|&b| NAME_BYTES[usize::from(b)] != 0)
}

/// The end of the run of bytes of `b` from `from` that `keep` keeps: the first byte after it
/// that it does not keep, or the length of `b`.
#[inline]
fn span(b: &[u8], from: usize, keep: impl Fn(u8) -> bool) -> usize {
    match b.get(from..) {
        Some(t) => from + t.iter().position(|&c| !keep(c)).unwrap_or(t.len()),
        None => b.len(),
    }
}

/// How many bytes of character data [`text_stop`] scans itself, eight at a time, before it calls
/// memchr (whose setup costs more than a short run: most runs are the white space between tags or
/// a number).
const SHORT: usize = 64;

/// The offset of the first `<`, `&` or carriage return in `b`.
fn text_stop(b: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < SHORT {
        let Some(w) = b.get(i..).and_then(|t| t.first_chunk::<8>()) else { break };
        let m = stop_bits(u64::from_le_bytes(*w), [b'<', b'&', b'\r']);
        if m != 0 {
            return Some(i + (m.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    memchr::memchr3(b'<', b'&', b'\r', b.get(i..)?).map(|k| i + k)
}

/// The high bit of each byte of `x` (eight bytes of text, the first lowest) that is one of
/// `stops`, and maybe of bytes after such a byte: the lowest bit set is exact.
#[inline(always)]
fn stop_bits<const N: usize>(x: u64, stops: [u8; N]) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The high bit of each zero byte of `v` (and maybe of bytes above one, by the borrow).
    let zeros = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    stops.iter().fold(0, |m, &s| m | zeros(x ^ (ONES * u64::from(s))))
}

/// Per byte: where an attribute value's scan stops (either quote, `<`, `&`, carriage return).
static VALUE_STOPS: [bool; 256] = {
    let mut t = [false; 256];
    t[b'"' as usize] = true;
    t[b'\'' as usize] = true;
    t[b'<' as usize] = true;
    t[b'&' as usize] = true;
    t[b'\r' as usize] = true;
    t
};

/// Per byte: 2 where it may start an XML name (ASCII letters, `_`, `:`, any byte beyond ASCII), 1
/// where it may only follow (digits, `-`, `.`), else 0.
static NAME_BYTES: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = if c.is_ascii_alphabetic() || c == b'_' || c == b':' || c >= 0x80 {
            2
        } else if c.is_ascii_digit() || c == b'-' || c == b'.' {
            1
        } else {
            0
        };
        b += 1;
    }
    t
};

/// An attribute value kept by [`Pull::checked`]: as it stands where it is `plain`, else
/// [`unescape`]d (not inlined: most values are plain).
#[inline(always)]
pub(crate) fn attr_value(v: &str, plain: bool) -> Result<Cow<'_, str>, String> {
    if plain {
        Ok(Cow::Borrowed(v))
    } else {
        unescape(v)
    }
}

/// Character data or an attribute value with XML's five entities and character references
/// resolved and line ends normalized (`\r\n` and `\r` to `\n`); borrowed where it has neither.
#[inline(never)]
pub(crate) fn unescape(raw: &str) -> Result<Cow<'_, str>, String> {
    let b = raw.as_bytes();
    // Most texts and attribute values are short (a name, a number): a plain loop there, memchr's
    // setup only for the long ones.
    let first = if b.len() < 32 { b.iter().position(|&c| c == b'&' || c == b'\r') } else { memchr::memchr2(b'&', b'\r', b) };
    let Some(first) = first else { return Ok(Cow::Borrowed(raw)) };
    let mut out = String::with_capacity(raw.len());
    out.push_str(&raw[..first]);
    let mut rest = &raw[first..];
    while let Some(c) = rest.chars().next() {
        match c {
            '\r' => {
                out.push('\n');
                rest = rest.strip_prefix("\r\n").unwrap_or(&rest[1..]);
            }
            '&' => {
                let end = rest.find(';').filter(|&e| e <= 12).ok_or_else(|| format!("{:?}: a bare & (write &amp;)", rest.chars().take(12).collect::<String>()))?;
                let name = &rest[1..end];
                let ch = match name {
                    "lt" => '<',
                    "gt" => '>',
                    "amp" => '&',
                    "apos" => '\'',
                    "quot" => '"',
                    _ => {
                        let n = match name.strip_prefix("#x") {
                            Some(h) => u32::from_str_radix(h, 16).ok(),
                            None => name.strip_prefix('#').and_then(|d| d.parse().ok()),
                        };
                        match n.and_then(char::from_u32) {
                            Some(ch) if ch >= ' ' || matches!(ch, '\t' | '\n' | '\r') => ch,
                            Some(_) => return Err(format!("&{name};: a character XML 1.0 does not allow")),
                            None if name.starts_with('#') => return Err(format!("&{name};: not a character")),
                            None => return Err(format!("&{name};: an unknown entity (XML's five are known; a DTD is refused)")),
                        }
                    }
                };
                out.push(ch);
                rest = &rest[end + 1..];
            }
            _ => {
                let next = memchr::memchr2(b'&', b'\r', rest.as_bytes()).unwrap_or(rest.len());
                out.push_str(&rest[..next]);
                rest = &rest[next..];
            }
        }
    }
    Ok(Cow::Owned(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Start tags the one-pass read takes and spellings of them it leaves to quick-xml (white
    /// space around `=`, before `/>`) give the same element and attributes.
    #[test]
    fn start_tags_read_alike_either_way() {
        let read = |tag: &str| -> Vec<String> {
            let text = format!("<r>{tag}</r>");
            let mut p = Pull::new(&text).unwrap();
            let mut out = Vec::new();
            loop {
                let (at, ev) = p.next().unwrap();
                match ev {
                    Ev::Open(s) => {
                        let [k, j, name] = p.attrs(&s, at, ["k", "j", "name"]).unwrap();
                        let name = name.map(|n| format!(" name={n:?}")).unwrap_or_default();
                        out.push(format!("open {} k={k:?} j={j:?}{name} at {at}", p.tag(&s)));
                    }
                    Ev::Close => out.push("close".into()),
                    Ev::Text(t, _) => out.push(format!("text {t:?}")),
                    Ev::Comment(_) => {}
                    Ev::Eof => return out,
                }
            }
        };
        for (fast, slow) in [
            ("<a k=\"v\" j='w'/>", "<a k = \"v\" j='w' />"),
            ("<a k=\"x>y\" j='a\"b'></a>", "<a k =\"x>y\" j='a\"b' ></a >"),
            ("<a k=\"&amp;&#65;\" j=\"\r\n\"/>", "<a k= \"&amp;&#65;\" j=\"\r\n\" />"),
            ("<a\tk=\"1\"\nj=\"2\">t</a>", "<a\tk=\"1\"\nj\n=\"2\">t</a>"),
            ("<élan k=\"é\"/>", "<élan k=\"é\" />"),
            ("<hkparam name=\"a&amp;b\" k=\"v\"/>", "<hkparam name = \"a&amp;b\" k=\"v\" />"),
            ("<hkparam name=\"x\">t</hkparam>", "<hkparam name=\"x\" >t</hkparam>"),
        ] {
            assert_eq!(read(fast), read(slow), "{fast} / {slow}");
        }
        assert_eq!(read("<a k=\"&amp;\"/>")[1], "open a k=Some(\"&\") j=None at 3");
        assert_eq!(read("<hkparam name=\"a&lt;\" k=\"\"/>")[1], "open hkparam k=Some(\"\") j=None name=\"a<\" at 3");
        // Spelled otherwise after its start, it is the same tag or the same error as quick-xml's.
        for bad in ["<hkparam name=\"a<\"/>", "<hkparam name=\"a\"k=\"b\"/>", "<hkparam name=\"a\" name=\"b\"/>", "<hkparam name=\"a"] {
            let text = format!("<r>{bad}</r>");
            let mut p = Pull::new(&text).unwrap();
            let mut end = Ok(());
            for _ in 0..4 {
                match p.next() {
                    Ok((_, Ev::Eof)) => break,
                    Ok(_) => {}
                    Err(e) => {
                        end = Err(e.to_string());
                        break;
                    }
                }
            }
            assert!(end.is_err(), "{bad}: read");
        }
    }

    /// An element's content, read at once where it is plain text and its end tag, else event by
    /// event.
    #[test]
    fn contents() {
        let text = "<r><a>12 3</a><b>x&amp;y</b><c>t<!--c-->u<e>v</e></c><d/><f></f><g>w</g ></r>";
        let mut p = Pull::new(text).unwrap();
        let mut got = Vec::new();
        loop {
            let (at, ev) = p.next().unwrap();
            match ev {
                Ev::Open(s) if p.tag(&s) != "r" => {
                    let (t, child) = p.content(at).unwrap();
                    got.push(format!("{}={t:?}{}", p.tag(&s), child.map(|(q, n)| format!(" child {n} at {q}")).unwrap_or_default()));
                }
                Ev::Eof => break,
                _ => {}
            }
        }
        assert_eq!(got, ["a=\"12 3\"", "b=\"x&y\"", "c=\"tu\" child e at 41", "d=\"\"", "f=\"\"", "g=\"w\""]);
        // Another element's end tag is the same error as before.
        let text = "<r><a>1</b></r>";
        let mut p = Pull::new(text).unwrap();
        p.next().unwrap();
        let (at, _) = p.next().unwrap();
        let e = p.content(at).unwrap_err().to_string();
        assert!(e.contains("expected `</a>`, but `</b>` was found"), "{e}");
    }

    #[test]
    fn quoted_values_end_where_a_byte_loop_ends_them() {
        // The value's end and whether it is plain, byte by byte.
        let naive = |raw: &[u8], q: u8| -> Option<(usize, bool)> {
            let mut plain = true;
            for (k, &b) in raw.iter().enumerate() {
                match b {
                    _ if b == q => return Some((k, plain)),
                    b'<' => return None,
                    b'&' | b'\r' => plain = false,
                    _ => {}
                }
            }
            None
        };
        for len in [0usize, 1, 7, 8, 9, 16, 17, 30] {
            for at in 0..=len {
                for stop in [b'"', b'\'', b'<', b'&', b'\r', 0xA2, b'!'] {
                    let mut v = vec![b'a'; len + 1];
                    v[len] = b'"';
                    v[at] = stop;
                    if at + 1 < len {
                        v[at + 1] = stop.wrapping_add(1);
                    }
                    for q in [b'"', b'\''] {
                        assert_eq!(quoted(&v, 0, q), naive(&v, q), "{v:?} {q}");
                    }
                }
            }
        }
    }

    #[test]
    fn utf8_text_reads_as_std_and_finds_control_characters() {
        // Texts across several blocks, with characters of two to four bytes across the blocks'
        // ends, a byte that is not UTF-8, and control characters.
        let unit = "ab\t\n\r é € 😀 <x a='1'/>";
        let long = unit.repeat(3000);
        let mut cases: Vec<Vec<u8>> = vec![Vec::new(), b"a".to_vec(), long.as_bytes().to_vec()];
        for at in [0usize, 1, 16383, 16384, 16385, 40000, long.len() - 1] {
            for bad in [0u8, 0x1F, 0x0B, 0xFF, 0x80] {
                let mut v = long.as_bytes().to_vec();
                v[at] = bad;
                cases.push(v.clone());
                // A control character before the bad byte.
                if at > 10 {
                    v[at - 5] = 1;
                    cases.push(v);
                }
            }
        }
        for v in &cases {
            let got = utf8_text(v);
            match std::str::from_utf8(v) {
                Ok(t) => assert_eq!(got, Ok((t, control_char(v)))),
                Err(e) => assert_eq!(got, Err(e.valid_up_to())),
            }
        }
    }

    #[test]
    fn same_is_slice_equality() {
        let base: Vec<u8> = (0..40u8).map(|k| b'a' + k % 26).collect();
        for len in 0..=40 {
            let a = &base[..len];
            assert!(same(a, a) && same(a, base[..len].to_vec().as_slice()), "{len}");
            // A byte changed anywhere, and a length one more or one less.
            for at in 0..len {
                let mut b = a.to_vec();
                b[at] ^= 0x20;
                assert!(!same(a, &b), "{len} {at}");
            }
            assert!(!same(a, &base[..(len + 1).min(40)]) || len == 40);
            assert!(len == 0 || !same(a, &a[..len - 1]));
        }
    }

    #[test]
    fn control_characters_found_where_a_byte_loop_finds_them() {
        let naive = |b: &[u8]| b.iter().position(|&c| c < 0x20 && !matches!(c, b'\t' | b'\n' | b'\r'));
        for len in [0usize, 1, 63, 64, 65, 127, 128, 200] {
            let base: Vec<u8> = (0..len).map(|k| [b'a', b'\t', b'\n', b'\r', b' ', 0xC3, 0xA9][k % 7]).collect();
            assert_eq!(control_char(&base), None);
            for at in 0..len {
                for c in [0u8, 1, 8, 0x0B, 0x0C, 0x0E, 0x1F] {
                    let mut v = base.clone();
                    v[at] = c;
                    assert_eq!(control_char(&v), naive(&v), "{len} {at} {c}");
                }
            }
        }
    }

    #[test]
    fn text_stops_where_memchr_does() {
        let mut cases: Vec<Vec<u8>> = vec![b"".to_vec(), b"<".to_vec(), b"abc".to_vec()];
        for len in [1usize, 7, 8, 9, 15, 16, 63, 64, 65, 100] {
            for at in 0..len {
                for stop in [b'<', b'&', b'\r'] {
                    let mut v = vec![b' '; len];
                    v[at] = stop;
                    // Bytes next to a stop that differ from it by one bit or by borrow.
                    if at + 1 < len {
                        v[at + 1] = stop.wrapping_add(1);
                    }
                    if at > 0 {
                        v[at - 1] = 0x80 | stop;
                    }
                    cases.push(v);
                }
            }
            cases.push(vec![b'\t'; len]);
        }
        for c in cases {
            assert_eq!(text_stop(&c), memchr::memchr3(b'<', b'&', b'\r', &c), "{c:?}");
        }
    }

    #[test]
    fn names_as_before() {
        let old = |n: &[u8]| {
            let start = |b: u8| b.is_ascii_alphabetic() || b == b'_' || b == b':' || b >= 0x80;
            n.first().is_some_and(|&b| start(b)) && n.iter().all(|&b| start(b) || b.is_ascii_digit() || b == b'-' || b == b'.')
        };
        for b in 0..=255u8 {
            for n in [&[b][..], &[b'a', b][..], &[b, b'a'][..]] {
                assert_eq!(is_name(n), old(n), "{n:?}");
            }
        }
        assert!(!is_name(b""));
    }
}

/// One attribute written the usual way, as [`Pull`] reads it itself: where `raw[from..]` starts
/// with a key that is an XML name, then `=` and a quote right after it.
struct Attribute {
    /// Where the key ends (at its `=`).
    key_end: usize,
    /// The value, between its quotes (its closing quote at `value_end`).
    value_start: usize,
    value_end: usize,
    /// Whether the value holds no reference (`&`) and no carriage return: it is its own text.
    plain: bool,
}

/// The attribute at `raw[from..]` ([`Attribute`]), whose value has no `<` before its closing
/// quote; `None` at anything else (for quick-xml to read, or to report).
#[inline(always)]
fn attribute(raw: &[u8], from: usize) -> Option<Attribute> {
    if NAME_BYTES[usize::from(*raw.get(from)?)] != 2 {
        return None;
    }
    let key_end = span(raw, from + 1, |b| NAME_BYTES[usize::from(b)] != 0);
    let (Some(b'='), Some(&q @ (b'"' | b'\''))) = (raw.get(key_end), raw.get(key_end + 1)) else { return None };
    let value_start = key_end + 2;
    let (value_end, plain) = quoted(raw, value_start, q)?;
    Some(Attribute { key_end, value_start, value_end, plain })
}

/// An attribute value from `raw[value_start..]` to its closing quote `q`, where no `<` comes
/// first: where the quote is, and whether the value is plain (no `&`, no carriage return).
#[inline(always)]
fn quoted(raw: &[u8], value_start: usize, q: u8) -> Option<(usize, bool)> {
    let value = raw.get(value_start..)?;
    let mut plain = true;
    let mut len = 0;
    loop {
        len = span(value, len, |b| !VALUE_STOPS[usize::from(b)]);
        match *value.get(len)? {
            b if b == q => break,
            b'<' => return None,
            b => {
                plain &= b != b'&' && b != b'\r';
                len += 1;
            }
        }
    }
    Some((value_start + len, plain))
}

/// A decimal of at most 18 digits (no sign), the common case of both readers' integers: `None`
/// for anything else (which they then read the long way, or refuse).
#[inline]
pub(crate) fn short_decimal(t: &[u8]) -> Option<u64> {
    if t.is_empty() || t.len() > 18 {
        return None;
    }
    let mut v = 0u64;
    for &b in t {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v * 10 + u64::from(d);
    }
    Some(v)
}
