//! Writes a [`TypeTable`] as a `TYPE` section, for files built from scratch or whose types changed
//! (a file read with its own `TYPE` section writes that section back as it was).
//!
//! The layout follows stock files: `TPTR` with eight zero bytes per type; `TSTR` holding every type
//! and parameter name once, in the order a pass over the types meets them (a type's name, then its
//! template parameters' names; SDK 2019.1 also puts a type parameter's type name right after the
//! parameter's); `TNA1`; `FSTR` with the field names in the order the bodies use them; `TBDY` with
//! one record per type that has a parent or any optional part; `THSH`; `TPAD`.
//!
//! Stock files order the `TBDY` records and `THSH` entries by a walk over the types that this
//! writer does not reproduce (it writes both in index order), and SDK 2019.1 sizes `TPTR`
//! differently; the sections it writes read back to the same table with the same hashes.
//! Packed integers take their shortest form and every sub-section is padded to four bytes (string
//! tables with 0xFF from SDK 2019.1 on, zero before).

use super::packed;
use super::section::SectionWriter;
use crate::reflect::{presence, TemplateArg, TypeTable};
use std::collections::HashMap;

/// Which sub-section names and padding a section is written with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    /// `TNAM`/`TBOD` (SDK 2015.1) instead of `TNA1`/`TBDY`.
    pub old_names: bool,
    /// `TST1`/`FST1` and 0xFF string padding (SDK 2019.1 on) instead of `TSTR`/`FSTR` and zeros.
    pub v2019: bool,
}

impl Style {
    /// The style of an `SDKV` string such as `20180100`.
    pub fn for_sdk(sdkv: &str) -> Style {
        let year: u32 = sdkv.get(..4).and_then(|y| y.parse().ok()).unwrap_or(2018);
        let minor: u32 = sdkv.get(4..6).and_then(|m| m.parse().ok()).unwrap_or(0);
        Style { old_names: (year, minor) <= (2015, 1), v2019: year >= 2019 }
    }
}

struct Strings {
    list: Vec<u8>,
    index: HashMap<String, u64>,
}

impl Strings {
    fn new() -> Self {
        Strings { list: Vec::new(), index: HashMap::new() }
    }
    fn intern(&mut self, s: &str) -> u64 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.index.len() as u64;
        self.index.insert(s.to_owned(), i);
        self.list.extend_from_slice(s.as_bytes());
        self.list.push(0);
        i
    }
}

fn pad4(v: &mut Vec<u8>, byte: u8) {
    while !v.len().is_multiple_of(4) {
        v.push(byte);
    }
}

/// The `TYPE` section (header included) for `table`.
pub fn write(table: &TypeTable, style: Style) -> Vec<u8> {
    let n = table.types.len();
    let mut tstr = Strings::new();
    for (_, t) in table.iter() {
        tstr.intern(&t.name);
        for p in table.params_of(t) {
            tstr.intern(&p.name);
            // SDK 2019.1 interns a type parameter's type name right after the parameter name;
            // older SDKs only when that type's own entry comes.
            if style.v2019 {
                if let TemplateArg::Type(ti) = p.arg {
                    if let Some(pt) = table.get(ti) {
                        tstr.intern(&pt.name);
                    }
                }
            }
        }
    }
    let mut tna = Vec::new();
    packed::write(&mut tna, n as u64);
    for (_, t) in table.iter() {
        packed::write(&mut tna, tstr.intern(&t.name));
        let params = table.params_of(t);
        packed::write(&mut tna, params.len() as u64);
        for p in params {
            packed::write(&mut tna, tstr.intern(&p.name));
            match p.arg {
                TemplateArg::Type(ti) => packed::write(&mut tna, u64::from(ti)),
                TemplateArg::Value(v) => packed::write(&mut tna, v),
            }
        }
    }
    let mut fstr = Strings::new();
    let mut tbdy = Vec::new();
    for (i, t) in table.iter() {
        let p = t.presence();
        if p == 0 && t.parent == 0 {
            continue;
        }
        packed::write(&mut tbdy, u64::from(i));
        packed::write(&mut tbdy, u64::from(t.parent));
        packed::write(&mut tbdy, u64::from(p));
        if let Some(f) = t.format {
            packed::write(&mut tbdy, f.into());
        }
        if let Some(s) = t.subtype {
            packed::write(&mut tbdy, s.into());
        }
        if let Some(v) = t.version {
            packed::write(&mut tbdy, v.into());
        }
        if let Some(sa) = t.size {
            packed::write(&mut tbdy, sa.size.into());
            packed::write(&mut tbdy, sa.align.into());
        }
        if let Some(f) = t.flags {
            packed::write(&mut tbdy, f.into());
        }
        if t.fields.is_some() {
            let fields = table.fields_of(t);
            let word = (u64::from(t.properties.unwrap_or(0)) << 16) | fields.len() as u64;
            packed::write(&mut tbdy, word);
            for f in fields {
                packed::write(&mut tbdy, fstr.intern(&f.name));
                packed::write(&mut tbdy, f.flags.into());
                packed::write(&mut tbdy, f.offset.into());
                packed::write(&mut tbdy, f.ty.into());
            }
        }
        if let Some(ifaces) = &t.interfaces {
            packed::write(&mut tbdy, ifaces.len() as u64);
            for x in ifaces {
                packed::write(&mut tbdy, x.ty.into());
                packed::write(&mut tbdy, x.value.into());
            }
        }
        debug_assert_eq!(p & presence::ATTRIBUTE, 0);
    }
    let hashed: Vec<_> = table.iter().filter_map(|(i, t)| t.hash.map(|h| (i, h))).collect();
    let mut thsh = Vec::new();
    packed::write(&mut thsh, hashed.len() as u64);
    for (i, h) in hashed {
        packed::write(&mut thsh, i.into());
        thsh.extend_from_slice(&h.to_le_bytes());
    }

    let string_pad = if style.v2019 { 0xFF } else { 0 };
    let (mut ts, mut fs) = (tstr.list, fstr.list);
    pad4(&mut ts, string_pad);
    pad4(&mut fs, string_pad);
    pad4(&mut tna, 0);
    pad4(&mut tbdy, 0);
    pad4(&mut thsh, 0);

    let mut w = SectionWriter::new();
    w.begin(b"TYPE", 0);
    w.leaf(b"TPTR", &vec![0u8; 8 * n]);
    w.leaf(if style.v2019 { b"TST1" } else { b"TSTR" }, &ts);
    w.leaf(if style.old_names { b"TNAM" } else { b"TNA1" }, &tna);
    w.leaf(if style.v2019 { b"FST1" } else { b"FSTR" }, &fs);
    w.leaf(if style.old_names { b"TBOD" } else { b"TBDY" }, &tbdy);
    w.leaf(b"THSH", &thsh);
    w.leaf(b"TPAD", &[]);
    w.end();
    w.finish()
}
