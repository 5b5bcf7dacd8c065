//! BHF4 + BDF4: a binder split into a header file (`.hkxbhd`, `.tpfbhd`: the BND4 header and
//! entries, see [`super::bnd4`], with magic `BHF4` and 0 at 0x28) and a data file (`.hkxbdt`,
//! `.tpfbdt`) that the entries' offsets point into. Elden Ring's map collision binders
//! (`h30_00_00_00.hkxbhd` + `.hkxbdt`) are of this kind, each member a DCX-compressed `.hkx`.
//!
//! The data file's header, 0x30 bytes, in the header file's byte order:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0x00 | 4 | `BDF4` |
//! | 0x04 | 2 | two unknown flags (as the header file's) |
//! | 0x06 | 3 | 0 |
//! | 0x09 | 1 | 1 when big-endian |
//! | 0x0A | 1 | as BND4's 0x0A |
//! | 0x0B | 5 | 0 |
//! | 0x10 | 8 | header size, 0x30 |
//! | 0x18 | 8 | version string |
//! | 0x20 | 16 | 0 |
//!
//! The data file of `name.xxxbhd` is `name.xxxbdt` beside it ([`data_file_name`]).

use super::bnd4::Bnd4;
use super::raw::Reader;
use super::Result;

/// A split binder: the header file's binder, and the data file's header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bhf4 {
    /// The header file's binder, its entries holding their data.
    pub binder: Bnd4,
    /// The data file's 0x30 header bytes as read.
    pub bdf_header: Vec<u8>,
}

/// Whether `bytes` start like a BHF4 header file.
pub fn is_bhf4(bytes: &[u8]) -> bool {
    bytes.starts_with(b"BHF4")
}

/// The name of the data file that goes with header file `name` (`bhd` -> `bdt`, `bhf` -> `bdf`),
/// and the reverse; `None` when the name is neither.
pub fn data_file_name(name: &str) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    for (a, b) in [("bhd", "bdt"), ("bhf", "bdf"), ("bdt", "bhd"), ("bdf", "bhf")] {
        if lower.ends_with(a) {
            let keep = &name[..name.len() - 3];
            let upper = name[name.len() - 3..].chars().all(|c| c.is_ascii_uppercase());
            return Some(format!("{keep}{}", if upper { b.to_ascii_uppercase() } else { b.to_string() }));
        }
    }
    None
}

impl Bhf4 {
    /// Reads a header file and its data file.
    pub fn read(bhf: &[u8], bdf: &[u8]) -> Result<Self> {
        let mut r = Reader::new(bdf, "BDF4", false);
        r.magic(b"BDF4")?;
        r.big = bdf.get(9).is_some_and(|&b| b != 0);
        let size = r.at(0x10).u64("header size")?;
        if size != 0x30 {
            return Err(r.err(0x10, format!("header size {size:#x} is not 0x30")));
        }
        let binder = Bnd4::read(bhf, Some(bdf))?;
        Ok(Bhf4 { binder, bdf_header: bdf[..0x30].to_vec() })
    }

    /// Writes the header file and the data file.
    pub fn write(&self) -> Result<(Vec<u8>, Vec<u8>)> {
        let (h, d) = self.binder.write_parts(Some(&self.bdf_header))?;
        Ok((h, d.expect("a data file")))
    }

    /// A new empty split binder in the Elden Ring form.
    pub fn new() -> Self {
        let mut binder = Bnd4::new();
        binder.raw_header[..4].copy_from_slice(b"BHF4");
        binder.extended = 0;
        binder.raw_header[0x32] = 0;
        let mut d = vec![0u8; 0x30];
        d[..4].copy_from_slice(b"BDF4");
        d[0x0A] = 1;
        d[0x10] = 0x30;
        d[0x18..0x1E].copy_from_slice(b"07D7R6");
        Bhf4 { binder, bdf_header: d }
    }
}

impl Default for Bhf4 {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::binder::Entry;

    #[test]
    fn a_made_split_binder_reads_back() {
        let mut b = Bhf4::new();
        for i in 0..20 {
            b.binder.entries.push(Entry::new(&format!("h30_00_00_00\\h30_00_00_00_{i:06}.hkx.dcx"), i, vec![i as u8; 33], true, false));
        }
        let (h, d) = b.write().unwrap();
        let back = Bhf4::read(&h, &d).unwrap();
        assert_eq!(back.binder.entries[7].data, vec![7u8; 33]);
        assert_eq!(back.write().unwrap(), (h.clone(), d.clone()));
        let e = Bhf4::read(&h, &d[..d.len() - 40]).unwrap_err().to_string();
        assert!(e.starts_with("BDF4 at byte") && e.contains("file 19"), "{e}");
        assert_eq!(data_file_name("h30_00_00_00.hkxbhd").as_deref(), Some("h30_00_00_00.hkxbdt"));
    }
}
