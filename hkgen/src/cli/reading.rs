//! How every `hkgen` command reads: one set of defaults.
//!
//! - Packfile classes: the ones compiled into the program, unless `--schemas DIR` names snapshots
//!   of your own (a folder that must exist).
//! - Compendia: those `--compendium` names (files or folders); without it, a tagfile that names
//!   a compendium (`TCRF`) takes one found beside it (its folder and the two above, two levels
//!   down each, as the Python package looks), and a file that names none looks nowhere. A
//!   compendium that is still missing is an error naming its id; a file is never written again
//!   self-contained in its place.
//! - `<hkpackfile>` XML takes the layout `--layout` names, else the one its `hkgen:container`
//!   note states; XML with neither stops with an error saying how to choose.

use crate::inputs::Compendia;
use hktypes::tagfile::{CompendiumId, CompendiumSet};
use std::path::{Path, PathBuf};

/// The reading flags of the user commands, the same words in each.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ReadArgs {
    /// TCM0 compendia (files or folders) for a tagfile that names one (`TCRF`). Without it, the
    /// compendia beside the file (its folder and the two above, two levels down each) are looked
    /// for, only when the file names one; a compendium not found is an error naming its id.
    #[arg(long = "compendium", value_name = "PATH")]
    pub compendia: Vec<PathBuf>,
    /// Snapshots of your own (a folder of `<sdk>/classes/`) whose packfile class schemas read
    /// packfiles. Default: the classes compiled into this program.
    #[arg(long, value_name = "DIR")]
    pub schemas: Option<PathBuf>,
}

impl ReadArgs {
    /// `--schemas` as given, checked to be a folder.
    pub fn schemas_dir(&self) -> Result<Option<&Path>, String> {
        match &self.schemas {
            Some(d) if !d.is_dir() => Err(format!(
                "--schemas {}: no such folder (leave --schemas out to read with the classes compiled into hkgen)",
                d.display()
            )),
            Some(d) => Ok(Some(d)),
            None => Ok(None),
        }
    }
}

/// The compendium id a TAG0 file's `TCRF` names, if any.
pub fn named_compendium(bytes: &[u8]) -> Option<CompendiumId> {
    if hktypes::sniff(bytes) != Some(hktypes::Format::Tag0) {
        return None;
    }
    hktypes::tagfile::file::compendium_reference(bytes).ok().flatten()
}

/// The compendia for the file `file` that names `names` (none: nothing is looked for): those
/// `named`, else those beside it.
pub fn compendia_for(file: &Path, names: Option<CompendiumId>, named: &[PathBuf]) -> Result<Compendia, String> {
    if !named.is_empty() {
        for p in named {
            if !p.exists() {
                return Err(format!("--compendium {}: no such file or folder", p.display()));
            }
        }
        return Compendia::load(named).map_err(|e| e.to_string());
    }
    match names {
        Some(_) => Compendia::load_near(file).map_err(|e| e.to_string()),
        None => Ok(Compendia::default()),
    }
}

/// The error of a file that names the compendium `id` that `set` lacks; `Ok` when it has it or
/// the file names none.
pub fn require_compendium(file: &Path, id: Option<CompendiumId>, set: &CompendiumSet, named: &[PathBuf]) -> Result<(), String> {
    match id {
        Some(id) if set.get(&id).is_none() => Err(missing(file, &id, named)),
        _ => Ok(()),
    }
}

/// The words of a missing compendium.
pub fn missing(file: &Path, id: &CompendiumId, named: &[PathBuf]) -> String {
    let looked = if named.is_empty() {
        "none was found beside it".to_owned()
    } else {
        format!("none of {} holds it", named.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "))
    };
    format!(
        "{}: its types are in the compendium {id}, and {looked}; pass the .compendium file or a folder holding it with --compendium PATH",
        file.display()
    )
}

/// The comment `convert` writes into `<hkpackfile>` XML that has no `hkgen:container` note (the
/// writer leaves it out for a stock container under the default layout), so that the layout of
/// the binary it came from is always stated: `<!-- hkgen:layout 8,1,0,1 -->`.
pub const LAYOUT_NOTE: &str = "hkgen:layout";

/// The layout hkgen's notes in `<hkpackfile>` XML state: the `hkgen:container` note's, else the
/// `hkgen:layout` note's (both before the first section).
pub fn stated_layout(bytes: &[u8]) -> Option<hktypes::packfile::LayoutRules> {
    if let Some(l) = hktypes::packfile::xml::stated_layout(bytes) {
        return Some(l);
    }
    let before = bytes.windows(10).position(|w| w == b"<hksection").unwrap_or(bytes.len());
    let head = format!("<!-- {LAYOUT_NOTE} ");
    let at = bytes[..before].windows(head.len()).position(|w| w == head.as_bytes())? + head.len();
    let len = bytes[at..].iter().position(|b| !(b.is_ascii_digit() || *b == b','))?;
    hktypes::packfile::LayoutRules::parse(std::str::from_utf8(&bytes[at..at + len]).ok()?)
}

/// `<hkpackfile>` XML written from a binary of `layout`, with an `hkgen:layout` note after the
/// root element where it states no layout yet.
pub fn note_layout(xml: String, layout: hktypes::packfile::LayoutRules) -> String {
    if stated_layout(xml.as_bytes()).is_some() {
        return xml;
    }
    let Some(root) = xml.find("<hkpackfile") else { return xml };
    let Some(end) = xml[root..].find(">\n").map(|e| root + e + 2) else { return xml };
    format!("{}\n\t<!-- {LAYOUT_NOTE} {layout} -->\n{}", &xml[..end], &xml[end..])
}

/// The layout `<hkpackfile>` XML is read (and a binary written) under: `--layout`, else hkgen's
/// note in the XML ([`stated_layout`]); neither is an error saying how to choose.
pub fn xml_layout(bytes: &[u8], given: Option<hktypes::packfile::LayoutRules>, file: &Path) -> Result<hktypes::packfile::LayoutRules, String> {
    if let Some(l) = given {
        return Ok(l);
    }
    stated_layout(bytes).ok_or_else(|| {
        format!(
            "{}: <hkpackfile> XML states no binary layout (it has no hkgen:container or hkgen:layout note), and the layout decides \
             the binary the game reads: choose it with --layout (pointer size, little-endian, reuse padding, empty base), e.g. \
             --layout 4,1,0,1 for 32-bit PC (Skyrim LE, Dark Souls), --layout 8,1,0,1 for 64-bit PC (Skyrim SE), \
             --layout 4,0,0,1 for Wii U, --layout 8,1,1,1 for Switch",
            file.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layout_note_is_written_once_and_read_back() {
        let xml = "<?xml version=\"1.0\" encoding=\"ascii\"?>\n<hkpackfile classversion=\"8\" contentsversion=\"hk_2010.2.0-r1\">\n\n\t<hksection name=\"__data__\">\n".to_owned();
        assert_eq!(stated_layout(xml.as_bytes()), None);
        let l = hktypes::packfile::LayoutRules::parse("8,1,0,1").unwrap();
        let noted = note_layout(xml, l);
        assert!(noted.contains("<!-- hkgen:layout 8,1,0,1 -->"), "{noted}");
        assert_eq!(stated_layout(noted.as_bytes()), Some(l));
        assert_eq!(note_layout(noted.clone(), l), noted);
    }
}
