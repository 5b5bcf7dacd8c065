//! Havok files where users find them: inside the games' archives, read and written back.
//!
//! | format | games | module |
//! |---|---|---|
//! | DCX (DFLT zlib, ZSTD; KRAK refused) | FromSoftware, all | [`dcx`] |
//! | BND3 | Demon's Souls, Dark Souls | [`bnd3`] |
//! | BND4 | Dark Souls II to Elden Ring | [`bnd4`] |
//! | BHF4 + BDF4 (header and data files side by side) | Dark Souls III to Elden Ring | [`bhf4`] |
//! | Yaz0 | Breath of the Wild | [`yaz0`] |
//! | SARC, both byte orders | Breath of the Wild, Tears of the Kingdom | [`sarc`] |
//! | zstd, with or without a dictionary | Tears of the Kingdom, DCX ZSTD | [`zstd_frame`] |
//!
//! Each format's module documents its header fields, reads the raw layout and writes it again;
//! [`Archive`] is the interpretation: compression layers ([`Wrapper`]: DCX, Yaz0, zstd) around one
//! [`Contents`] (a binder, a SARC, or a single file), opened as one (`Yaz0` around SARC, DCX around
//! BND4, zstd around SARC). [`Archive::members`] lists the members with the kind of Havok file
//! each is ([`crate::sniff`]); [`Archive::member_bytes`] gives one, with its own compression (a
//! DCX-compressed `.hkx` in a BHF4) undone. [`read_path`] reads the bytes a member path names
//! (`c3570.anibnd.dcx:N:\GR\...\skeleton.hkx`, `c3570.anibnd.dcx:skeleton.hkx`, `x.hkx.dcx`, and
//! `wp.partsbnd.dcx:WP_A_9823.anibnd:skeleton.HKX` for a binder inside a binder), for
//! [`crate::open`], which stays the one door for Havok bytes; [`write_member`] puts a member back.
//!
//! ```
//! use hktypes::archive::{Archive, Contents, OpenOptions};
//! use hktypes::archive::sarc::Sarc;
//!
//! let mut sarc = Sarc::new(true);
//! sarc.add("Physics/RigidBody/A.hkrb", b"not really Havok".to_vec());
//! let archive = Archive::from_contents(Contents::Sarc(sarc)).with_yaz0();
//! let bytes = archive.write()?.0;
//! let back = Archive::read(&bytes, &OpenOptions::default())?;
//! assert_eq!(back.describe(), "Yaz0 > SARC (big-endian)");
//! assert_eq!(back.members()[0].name, "Physics/RigidBody/A.hkrb");
//! assert_eq!(back.write()?.0, bytes); // nothing changed: the same bytes
//! # Ok::<(), hktypes::archive::Error>(())
//! ```
//!
//! **Hostile input.** Every count, offset, size and back-reference is checked against the bytes
//! there are; a failure is an [`Error`] naming the layer, the byte offset in it and what lied. A
//! decompressed size is checked against [`Limits`] before anything is allocated: at most
//! [`Limits::max_ratio`] times the compressed size (1,100 by default, above deflate's 1,032 and
//! Yaz0's 88) plus 64 KiB, and never more than [`Limits::max_size`] (2 GiB). Decoders then stop
//! at the claimed size, so a stream that holds more than it claims is an error, not an allocation.
//!
//! **Writing back.** A compression layer whose payload did not change writes its original bytes.
//! A changed payload is compressed again with the stored parameters: DFLT at the level the DCX
//! header gives (flate2 over miniz_oxide; neither it nor stock zlib at levels 6-9 reproduces
//! FromSoftware's streams, so an edited DCX is valid but not byte-identical to what the games'
//! tools would write), zstd at level 16 with the same dictionary and header flags, Yaz0 with this
//! crate's encoder. Binders and SARC are laid out again from their entries: every size, offset,
//! count, name hash (BND4 hash table, SARC nodes) and DCX size recomputed, the members in their
//! original order and alignment, so an unchanged archive writes back byte for byte.
//! [`save`](Archive::save) writes atomically (a temporary file in the same folder, renamed).

pub mod bhf4;
pub mod binder;
pub mod bnd3;
pub mod bnd4;
pub mod dcx;
mod path;
pub(crate) mod raw;
pub mod sarc;
pub mod yaz0;
pub mod zstd_frame;

pub use path::{read_path, split_member_path, write_member, Origin};

use std::fmt;
use std::path::{Path, PathBuf};

/// A failure to read or write an archive, located: the layer (`DCX > BND4`), the byte offset in
/// that layer's bytes (the decompressed payload for a layer inside a compression layer) and what
/// was wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// What kind of failure.
    pub kind: ErrorKind,
    /// The layer path, outermost first (`DCX > BND4`).
    pub layer: String,
    /// The byte offset in the innermost layer's bytes, where one applies.
    pub offset: Option<u64>,
    /// What was wrong.
    pub message: String,
    /// The file, where known.
    pub file: Option<PathBuf>,
}

/// The kinds of [`Error`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The bytes are not as the format requires (a lie in a count, offset, size...).
    Invalid,
    /// A valid file this crate cannot read (DCX KRAK).
    Unsupported,
    /// A zstd frame needs dictionary `id`, and none with that id was given or found.
    MissingDictionary(u32),
    /// A member path names no member.
    NotFound,
    /// A member path's suffix matches several members (their full names).
    Ambiguous(Vec<String>),
    /// Reading or writing a file failed.
    Io,
}

impl Error {
    pub(crate) fn invalid(layer: &str, offset: u64, message: impl Into<String>) -> Self {
        Error { kind: ErrorKind::Invalid, layer: layer.into(), offset: Some(offset), message: message.into(), file: None }
    }
    pub(crate) fn unsupported(layer: &str, offset: u64, message: impl Into<String>) -> Self {
        Error { kind: ErrorKind::Unsupported, ..Self::invalid(layer, offset, message) }
    }
    pub(crate) fn missing_dictionary(layer: &str, offset: u64, id: u32) -> Self {
        Error {
            kind: ErrorKind::MissingDictionary(id),
            ..Self::invalid(
                layer,
                offset,
                format!("the zstd frame needs dictionary {id}, and none was given or found beside the archive (a *.zsdic file, or ZsDic.pack.zs)"),
            )
        }
    }
    pub(crate) fn plain(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error { kind, layer: String::new(), offset: None, message: message.into(), file: None }
    }
    pub(crate) fn io(path: &Path, e: std::io::Error) -> Self {
        Error { file: Some(path.to_path_buf()), ..Self::plain(ErrorKind::Io, e.to_string()) }
    }
    /// The same error with `note` added to its message.
    pub(crate) fn with_note(mut self, note: String) -> Self {
        self.message = format!("{} ({note})", self.message);
        self
    }
    /// The same error inside `outer` (a compression layer or a binder member).
    pub(crate) fn within(mut self, outer: &str) -> Self {
        self.layer = if self.layer.is_empty() { outer.to_string() } else { format!("{outer} > {}", self.layer) };
        self
    }
    /// The same error, naming the file it is in.
    pub fn in_file(mut self, path: &Path) -> Self {
        self.file.get_or_insert_with(|| path.to_path_buf());
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = &self.file {
            write!(f, "{}: ", p.display())?;
        }
        match (self.layer.is_empty(), self.offset) {
            (false, Some(o)) => write!(f, "{} at byte {o:#x}: ", self.layer)?,
            (false, None) => write!(f, "{}: ", self.layer)?,
            _ => {}
        }
        f.write_str(&self.message)?;
        if let ErrorKind::Ambiguous(c) = &self.kind {
            write!(f, ": {}", c.join(", "))?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// The result of the archive readers and writers.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Bounds on what a decompressed size may claim, checked before allocating.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most a decompressed size may be per byte of compressed input (plus 64 KiB).
    pub max_ratio: u64,
    /// The most a decompressed size may be, whatever the input.
    pub max_size: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_ratio: 1100, max_size: 2 << 30 }
    }
}

impl Limits {
    /// The most `input` compressed bytes may decompress to.
    pub fn allowed(&self, input: u64) -> u64 {
        input.saturating_mul(self.max_ratio).saturating_add(1 << 16).min(self.max_size)
    }

    /// An error at `offset` of `layer` if `claimed` bytes from `input` bytes is over the limits.
    pub fn check(&self, layer: &str, offset: u64, claimed: u64, input: u64) -> Result<()> {
        let allowed = self.allowed(input);
        if claimed > allowed {
            return Err(Error::invalid(
                layer,
                offset,
                format!(
                    "uncompressed size {claimed} claimed for {input} compressed bytes is over the limit of {allowed} \
                     ({}x the input plus 64 KiB, at most {} bytes); refused before allocating",
                    self.max_ratio, self.max_size
                ),
            ));
        }
        Ok(())
    }
}

/// How to open an archive.
#[derive(Clone, Debug, Default)]
pub struct OpenOptions {
    /// Bounds on decompressed sizes.
    pub limits: Limits,
    /// zstd dictionaries to try, by their ids (Tears of the Kingdom's `pack.zsdic`, `zs.zsdic`,
    /// `bcett.byml.zsdic`). [`read_path`] and [`Archive::open`] add those they find beside the
    /// archive.
    pub zstd_dictionaries: Vec<Vec<u8>>,
}

impl OpenOptions {
    fn dictionary(&self, id: u32) -> Option<&[u8]> {
        self.zstd_dictionaries.iter().find(|d| zstd_frame::dictionary_id(d) == Some(id)).map(Vec::as_slice)
    }
}

/// A compression layer around an archive's contents or another layer, with the bytes it was read from.
#[derive(Clone, Debug)]
pub enum Wrapper {
    /// DCX: its header.
    Dcx(dcx::Header),
    /// Yaz0: its header.
    Yaz0(yaz0::Header),
    /// A zstd frame: its flags and the dictionary it was compressed with.
    Zstd(zstd_frame::FrameFlags, Option<Vec<u8>>),
}

impl Wrapper {
    /// `DCX(DFLT)`, `Yaz0`, `zstd`, `zstd(dictionary 3)`.
    pub fn name(&self) -> String {
        match self {
            Wrapper::Dcx(h) => format!("DCX({})", String::from_utf8_lossy(&h.codec.tag())),
            Wrapper::Yaz0(_) => "Yaz0".into(),
            Wrapper::Zstd(f, _) => match f.dictionary_id {
                Some(id) => format!("zstd(dictionary {id})"),
                None => "zstd".into(),
            },
        }
    }

    fn layer(&self) -> &'static str {
        match self {
            Wrapper::Dcx(_) => "DCX",
            Wrapper::Yaz0(_) => "Yaz0",
            Wrapper::Zstd(..) => "zstd",
        }
    }

    /// Compresses `payload` as this layer did.
    pub fn compress(&self, payload: &[u8]) -> Result<Vec<u8>> {
        match self {
            Wrapper::Dcx(h) => dcx::compress(h, payload),
            Wrapper::Yaz0(h) => yaz0::compress(h, payload),
            Wrapper::Zstd(f, d) => zstd_frame::compress(payload, d.as_deref(), 16, f),
        }
    }
}

/// Undoes one compression layer, if `bytes` start with one: the layer and its payload.
pub fn unwrap_layer(bytes: &[u8], opts: &OpenOptions) -> Result<Option<(Wrapper, Vec<u8>)>> {
    Ok(Some(if dcx::is_dcx(bytes) {
        let (h, p) = dcx::decompress(bytes, &opts.limits)?;
        (Wrapper::Dcx(h), p)
    } else if yaz0::is_yaz0(bytes) {
        let (h, p) = yaz0::decompress(bytes, &opts.limits)?;
        (Wrapper::Yaz0(h), p)
    } else if zstd_frame::is_zstd(bytes) {
        let flags = zstd_frame::read_flags(bytes, "zstd", 0)?;
        let dict = flags.dictionary_id.and_then(|id| opts.dictionary(id));
        let (f, p) = zstd_frame::decompress(bytes, dict, &opts.limits, "zstd", 0)?;
        (Wrapper::Zstd(f, dict.map(<[u8]>::to_vec)), p)
    } else {
        return Ok(None);
    }))
}

/// A compression layer and the bytes it was read from and what they decompressed to, so that an
/// unchanged payload writes back the original bytes.
#[derive(Clone, Debug)]
struct Layer {
    wrapper: Wrapper,
    original: Vec<u8>,
    payload: Vec<u8>,
}

/// What the compression layers hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Contents {
    /// A BND3 binder.
    Bnd3(bnd3::Bnd3),
    /// A BND4 binder.
    Bnd4(bnd4::Bnd4),
    /// A BHF4 header file with its BDF4 data.
    Bhf4(bhf4::Bhf4),
    /// A SARC archive.
    Sarc(sarc::Sarc),
    /// One file (a DCX-compressed `.hkx`): its name and bytes.
    Single(String, Vec<u8>),
}

/// One member as [`Archive::members`] lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberInfo {
    /// Its index in the archive's member list.
    pub index: usize,
    /// Its name (a binder's game path, a SARC path; for a binder without names, its id).
    pub name: String,
    /// Its id, in binders that have ids.
    pub id: Option<i32>,
    /// Its stored size in bytes.
    pub size: u64,
    /// Its own compression (a DCX member of a BHF4), if any.
    pub compression: Option<String>,
    /// The kind of Havok file its (decompressed) bytes are, if they are one.
    pub kind: Option<crate::Format>,
}

/// An archive: compression layers around its contents (a binder of members or one file), opened as one.
#[derive(Clone, Debug)]
pub struct Archive {
    layers: Vec<Layer>,
    /// The members' container.
    pub contents: Contents,
    options: OpenOptions,
}

/// The most compression layers that may nest (DCX around zstd around ...).
const MAX_NESTING: usize = 4;

impl Archive {
    /// An archive of `contents` without compression.
    pub fn from_contents(contents: Contents) -> Self {
        Archive { layers: Vec::new(), contents, options: OpenOptions::default() }
    }

    /// The same archive inside a new compression layer (outermost).
    pub fn wrapped(mut self, wrapper: Wrapper) -> Self {
        self.layers.insert(0, Layer { wrapper, original: Vec::new(), payload: Vec::new() });
        self
    }

    /// The same archive inside Yaz0.
    pub fn with_yaz0(self) -> Self {
        self.wrapped(Wrapper::Yaz0(yaz0::Header { size: 0, alignment: 0, reserved: 0 }))
    }

    /// Reads an archive from its bytes (a BHF4 header file needs [`Archive::read_split`]).
    pub fn read(bytes: &[u8], opts: &OpenOptions) -> Result<Self> {
        Self::read_named(bytes, "payload", opts)
    }

    /// As [`Archive::read`], naming the single member of a compressed non-archive file `name`.
    pub fn read_named(bytes: &[u8], name: &str, opts: &OpenOptions) -> Result<Self> {
        let mut layers = Vec::new();
        let mut outer = String::new();
        let mut current: Option<Vec<u8>> = None;
        loop {
            let b = current.as_deref().unwrap_or(bytes);
            if layers.len() >= MAX_NESTING {
                break;
            }
            let un = unwrap_layer(b, opts).map_err(|e| if outer.is_empty() { e } else { e.within(&outer) })?;
            let Some((wrapper, payload)) = un else { break };
            outer = if outer.is_empty() { wrapper.name() } else { format!("{outer} > {}", wrapper.name()) };
            let original = current.take().unwrap_or_else(|| bytes.to_vec());
            layers.push(Layer { wrapper, original, payload: payload.clone() });
            current = Some(payload);
        }
        let b = current.as_deref().unwrap_or(bytes);
        let contents = Self::read_contents(b, name).map_err(|e| if outer.is_empty() { e } else { e.within(&outer) })?;
        Ok(Archive { layers, contents, options: opts.clone() })
    }

    fn read_contents(b: &[u8], name: &str) -> Result<Contents> {
        Ok(if b.starts_with(b"BND4") {
            Contents::Bnd4(bnd4::Bnd4::read(b, None)?)
        } else if b.starts_with(b"BND3") {
            Contents::Bnd3(bnd3::Bnd3::read(b)?)
        } else if sarc::is_sarc(b) {
            Contents::Sarc(sarc::Sarc::read(b)?)
        } else if bhf4::is_bhf4(b) {
            return Err(Error::invalid("BHF4", 0, "a BHF4 header file needs its BDF4 data file (read both with Archive::read_split or open the path)"));
        } else {
            Contents::Single(name.to_string(), b.to_vec())
        })
    }

    /// Reads a split binder: the BHF4 header file and the BDF4 data file.
    pub fn read_split(header: &[u8], data: &[u8], opts: &OpenOptions) -> Result<Self> {
        Ok(Archive { layers: Vec::new(), contents: Contents::Bhf4(bhf4::Bhf4::read(header, data)?), options: opts.clone() })
    }

    /// Opens the archive at `path`: a BHF4 header file (`.hkxbhd`) with its data file beside it
    /// (naming either opens both), and zstd dictionaries found beside it added to `opts`'s.
    pub fn open(path: &Path, opts: &OpenOptions) -> Result<Self> {
        path::open_archive(path, opts)
    }

    /// The compression layers, outermost first.
    pub fn wrappers(&self) -> impl Iterator<Item = &Wrapper> {
        self.layers.iter().map(|l| &l.wrapper)
    }

    /// What the archive is: `DCX(DFLT) > BND4`, `Yaz0 > SARC (big-endian)`.
    pub fn describe(&self) -> String {
        let body = match &self.contents {
            Contents::Bnd3(_) => "BND3".to_string(),
            Contents::Bnd4(_) => "BND4".to_string(),
            Contents::Bhf4(_) => "BHF4+BDF4".to_string(),
            Contents::Sarc(s) => format!("SARC ({})", if s.big { "big-endian" } else { "little-endian" }),
            Contents::Single(..) => "one file".to_string(),
        };
        self.layers.iter().map(|l| l.wrapper.name()).chain([body]).collect::<Vec<_>>().join(" > ")
    }

    /// Whether the contents are a container of members (not a single compressed file).
    pub fn is_container(&self) -> bool {
        !matches!(self.contents, Contents::Single(..))
    }

    fn stored(&self) -> Vec<(&str, Option<i32>, &[u8])> {
        match &self.contents {
            Contents::Bnd3(b) => b.entries.iter().map(|e| (e.name.as_str(), e.id, e.data.as_slice())).collect(),
            Contents::Bnd4(b) => b.entries.iter().map(|e| (e.name.as_str(), e.id, e.data.as_slice())).collect(),
            Contents::Bhf4(b) => b.binder.entries.iter().map(|e| (e.name.as_str(), e.id, e.data.as_slice())).collect(),
            Contents::Sarc(s) => s.nodes.iter().map(|n| (n.name.as_str(), None, n.data.as_slice())).collect(),
            Contents::Single(n, d) => vec![(n.as_str(), None, d.as_slice())],
        }
    }

    fn stored_mut(&mut self, index: usize) -> Option<&mut Vec<u8>> {
        match &mut self.contents {
            Contents::Bnd3(b) => b.entries.get_mut(index).map(|e| &mut e.data),
            Contents::Bnd4(b) => b.entries.get_mut(index).map(|e| &mut e.data),
            Contents::Bhf4(b) => b.binder.entries.get_mut(index).map(|e| &mut e.data),
            Contents::Sarc(s) => s.nodes.get_mut(index).map(|n| &mut n.data),
            Contents::Single(_, d) => (index == 0).then_some(d),
        }
    }

    /// The member names, in order.
    pub fn names(&self) -> Vec<String> {
        self.stored().iter().map(|s| s.0.to_string()).collect()
    }

    /// Lists the members: name, id, size, own compression, kind of Havok file.
    pub fn members(&self) -> Vec<MemberInfo> {
        self.stored()
            .iter()
            .enumerate()
            .map(|(index, &(name, id, data))| {
                let (compression, kind) = match unwrap_layer(data, &self.options) {
                    Ok(Some((w, p))) => (Some(w.name()), crate::sniff(&p)),
                    Ok(None) => (None, crate::sniff(data)),
                    Err(_) => (Some("unreadable".into()), None),
                };
                MemberInfo { index, name: name.to_string(), id, size: data.len() as u64, compression, kind }
            })
            .collect()
    }

    /// The stored bytes of member `index` (compressed, where the member is).
    pub fn stored_bytes(&self, index: usize) -> Option<&[u8]> {
        self.stored().get(index).map(|s| s.2)
    }

    /// The bytes of member `index` with its own compression layers undone (a DCX `.hkx` of a
    /// BHF4 gives the `.hkx`).
    pub fn member_bytes(&self, index: usize) -> Result<Vec<u8>> {
        let stored = self.stored();
        let (name, _, data) = *stored.get(index).ok_or_else(|| Error::plain(ErrorKind::NotFound, format!("no member {index} ({} members)", stored.len())))?;
        let mut b = data.to_vec();
        for _ in 0..MAX_NESTING {
            match unwrap_layer(&b, &self.options).map_err(|e| e.within(&format!("member {name}")))? {
                Some((_, p)) => b = p,
                None => break,
            }
        }
        Ok(b)
    }

    /// Replaces member `index`'s bytes: `bytes` are compressed with the member's own layers
    /// (unchanged bytes keep the stored ones), and every size, offset and hash is recomputed when
    /// the archive is written.
    pub fn set_member(&mut self, index: usize, bytes: Vec<u8>) -> Result<()> {
        let stored = self.stored_bytes(index).ok_or_else(|| Error::plain(ErrorKind::NotFound, format!("no member {index}")))?.to_vec();
        // The member's own layers, outermost first, with what each held.
        let mut layers = Vec::new();
        let mut b = stored.clone();
        for _ in 0..MAX_NESTING {
            match unwrap_layer(&b, &self.options)? {
                Some((w, p)) => {
                    layers.push((w, b));
                    b = p;
                }
                None => break,
            }
        }
        let new = if b == bytes {
            stored
        } else {
            let mut out = bytes;
            for (w, _) in layers.iter().rev() {
                out = w.compress(&out)?;
            }
            out
        };
        *self.stored_mut(index).expect("checked above") = new;
        Ok(())
    }

    /// The index of the member `name` names: its full name (`\` and `/` alike, case ignored), or
    /// a unique suffix of it that starts at a path separator or the name's start; several members
    /// ending so are an [`ErrorKind::Ambiguous`] error listing them.
    pub fn find(&self, name: &str) -> Result<usize> {
        let norm = |s: &str| s.replace('\\', "/").to_lowercase();
        let want = norm(name);
        let names = self.names();
        if let Some(i) = names.iter().position(|n| norm(n) == want) {
            return Ok(i);
        }
        let hits: Vec<usize> = names
            .iter()
            .enumerate()
            .filter(|(_, n)| {
                let n = norm(n);
                n.ends_with(&want) && (want.starts_with('/') || n[..n.len() - want.len()].ends_with('/'))
            })
            .map(|(i, _)| i)
            .collect();
        match hits.as_slice() {
            [i] => Ok(*i),
            [] => Err(Error::plain(
                ErrorKind::NotFound,
                format!("no member named or ending in {name:?} among {} members ({})", names.len(), preview(&names)),
            )),
            many => Err(Error::plain(
                ErrorKind::Ambiguous(many.iter().map(|&i| names[i].clone()).collect()),
                format!("{name:?} ends {} member names; name one of them", many.len()),
            )),
        }
    }

    /// Visits every member, going into members that are archives themselves (to a depth of 4):
    /// `f` gets the member's path inside this archive (`inner.anibnd:skeleton.hkx`) and its bytes,
    /// or the error that reading it gave.
    pub fn walk(&self, f: &mut dyn FnMut(String, Result<Vec<u8>>)) {
        self.walk_at("", 0, f)
    }

    fn walk_at(&self, prefix: &str, depth: usize, f: &mut dyn FnMut(String, Result<Vec<u8>>)) {
        for (i, name) in self.names().into_iter().enumerate() {
            let shown = if self.is_container() { format!("{prefix}{name}") } else { prefix.trim_end_matches(':').to_string() };
            match self.member_bytes(i) {
                Ok(b) if depth < 3 && crate::sniff(&b).is_none() && is_archive(&b) => match Archive::read_named(&b, &name, &self.options) {
                    Ok(inner) => inner.walk_at(&format!("{shown}:"), depth + 1, f),
                    Err(e) => f(shown, Err(e)),
                },
                r => f(shown, r),
            }
        }
    }

    /// Writes the archive: the contents laid out again and compressed with each layer; a BHF4 gives
    /// the header file and, second, the data file.
    pub fn write(&self) -> Result<(Vec<u8>, Option<Vec<u8>>)> {
        let (mut bytes, data) = match &self.contents {
            Contents::Bnd3(b) => (b.write()?, None),
            Contents::Bnd4(b) => (b.write()?, None),
            Contents::Bhf4(b) => {
                let (h, d) = b.write()?;
                (h, Some(d))
            }
            Contents::Sarc(s) => (s.write()?, None),
            Contents::Single(_, d) => (d.clone(), None),
        };
        for l in self.layers.iter().rev() {
            bytes = if !l.original.is_empty() && l.payload == bytes {
                l.original.clone()
            } else {
                l.wrapper.compress(&bytes).map_err(|e| e.within(l.wrapper.layer()))?
            };
        }
        Ok((bytes, data))
    }

    /// Writes the archive to `path` (and a BHF4's data file beside it, named by
    /// [`bhf4::data_file_name`]), each file atomically: a temporary file in the same folder,
    /// renamed over the old one.
    pub fn save(&self, path: &Path) -> Result<()> {
        let (main, data) = self.write()?;
        if let Some(d) = data {
            let name = path.file_name().and_then(|n| n.to_str()).and_then(bhf4::data_file_name).ok_or_else(|| {
                Error::plain(ErrorKind::Io, format!("{}: cannot name the data file of a split binder (expected a name ending in bhd)", path.display()))
            })?;
            write_atomic(&path.with_file_name(name), &d)?;
        }
        write_atomic(path, &main)
    }
}

fn preview(names: &[String]) -> String {
    let mut s: Vec<&str> = names.iter().take(5).map(String::as_str).collect();
    if names.len() > 5 {
        s.push("...");
    }
    s.join(", ")
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder, synced, then renamed
/// over `path`; on failure the temporary file is removed and `path` is untouched.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.hkgen-tmp-{}", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    result.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io(path, e)
    })
}

/// Whether the file at `path` starts like an archive or compression layer this module reads (its
/// first bytes only, as [`is_archive`] takes them); a file that cannot be read is no archive here
/// (reading it as a Havok file then says why).
pub fn is_archive_file(path: &Path) -> bool {
    let mut head = [0u8; 8];
    std::fs::File::open(path).and_then(|mut f| std::io::Read::read(&mut f, &mut head)).is_ok_and(|n| is_archive(&head[..n]))
}

/// Whether `bytes` start like an archive or compression layer this module reads (DCX, Yaz0, zstd,
/// BND3, BND4, BHF4, SARC).
pub fn is_archive(bytes: &[u8]) -> bool {
    dcx::is_dcx(bytes)
        || yaz0::is_yaz0(bytes)
        || zstd_frame::is_zstd(bytes)
        || sarc::is_sarc(bytes)
        || bytes.starts_with(b"BND3")
        || bytes.starts_with(b"BND4")
        || bhf4::is_bhf4(bytes)
}
