//! Import of the DSMapStudio class XML (classdata/ds3-2014.1-dsmapstudio/*.xml): the hkClass
//! reflection of hk_2014.1.0-r1 as linked into Dark Souls III for PC, one `<class>` per file with
//! its version, signature, size, parent, declared enums (with items) and members (offset, type,
//! subtype, class, enum, C-array size, flags). Offsets and sizes are those of 64-bit Windows
//! (layout rules 8,1,0,1) and go to [`SourceFacts::layouts`]; the records are platform-neutral.
//! The source has no interface counts ([`super::facts::infer_interfaces`] finds them from its
//! offsets) and keeps only the `SERIALIZE_IGNORED` member flag.

use super::layout::ObservedLayout;
use super::facts::{RecoveredFlag, SourceFacts};
use super::serde_hkx::{hex, member_flags_of, member_type, resolve_member_enums};
use crate::schema::model::{ClassRecord, ClassSchema, EnumRecord, MemberRecord};
use crate::error::Error;
use hktypes::packfile::LayoutRules;
use roxmltree::Node;
use std::collections::BTreeMap;

/// The folder of the source in `classdata/`.
pub const FOLDER: &str = "ds3-2014.1-dsmapstudio";

/// The layout rules of the source's offsets and sizes.
pub const RULES: LayoutRules = LayoutRules::WIN64;

fn err(what: &str, msg: impl std::fmt::Display) -> Error {
    Error::schema(format!("DSMapStudio class XML {what}: {msg}"))
}

fn attr<'a>(n: Node<'a, '_>, key: &str, what: &str) -> Result<&'a str, Error> {
    n.attribute(key).ok_or_else(|| err(what, format!("<{}> without {key}", n.tag_name().name())))
}

fn number<T: std::str::FromStr>(n: Node<'_, '_>, key: &str, what: &str) -> Result<T, Error> {
    let s = attr(n, key, what)?;
    s.parse().map_err(|_| err(what, format!("{key}='{s}' is not a number")))
}

struct Parsed {
    record: ClassRecord,
    signature: u32,
    size: u32,
    offsets: Vec<u32>,
}

fn class(file: &str, text: &str, schema: &mut ClassSchema, declared: &mut BTreeMap<String, Vec<String>>) -> Result<Parsed, Error> {
    let doc = roxmltree::Document::parse(text).map_err(|e| err(file, e))?;
    let c = doc.root_element();
    if !c.has_tag_name("class") {
        return Err(err(file, format!("root element <{}>, not <class>", c.tag_name().name())));
    }
    let name = attr(c, "name", file)?.to_owned();
    let what = name.as_str();
    let mut enums = Vec::new();
    for e in c.children().filter(|n| n.has_tag_name("enums")).flat_map(|n| n.children()).filter(|n| n.has_tag_name("enum")) {
        let ename = attr(e, "name", what)?;
        let key = format!("{name}::{ename}");
        let items = e
            .children()
            .filter(|n| n.has_tag_name("enumitem"))
            .map(|i| Ok((number::<i64>(i, "value", &key)?, attr(i, "name", &key)?.to_owned())))
            .collect::<Result<Vec<_>, Error>>()?;
        let flags = hex(e.attribute("flags").unwrap_or("0"), &key)?;
        schema.enums.insert(key.clone(), EnumRecord { name: ename.to_owned(), items, flags, signature_items: None, items_unknown: false });
        declared.entry(ename.to_owned()).or_default().push(key.clone());
        enums.push(key);
    }
    let mut members = Vec::new();
    let mut offsets = Vec::new();
    for m in c.children().filter(|n| n.has_tag_name("members")).flat_map(|n| n.children()).filter(|n| n.has_tag_name("member")) {
        let mname = attr(m, "name", what)?;
        let mw = format!("{name}.{mname}");
        members.push(MemberRecord {
            name: mname.to_owned(),
            ty: member_type(attr(m, "vtype", &mw)?, &mw)?,
            subtype: member_type(attr(m, "vsubtype", &mw)?, &mw)?,
            class: m.attribute("ctype").map(str::to_owned),
            enumeration: m.attribute("etype").map(str::to_owned),
            c_array_size: number(m, "arrsize", &mw)?,
            flags: member_flags_of(attr(m, "flags", &mw)?, &mw)?,
        });
        offsets.push(number(m, "offset", &mw)?);
    }
    Ok(Parsed {
        record: ClassRecord {
            name: name.clone(),
            parent: c.attribute("parent").map(str::to_owned),
            version: number(c, "version", what)?,
            flags: 0,
            interfaces: 0,
            enums,
            members,
            signature: None,
        },
        signature: hex(attr(c, "signature", what)?, what)?,
        size: number(c, "size", what)?,
        offsets,
    })
}

/// Reads the class files: `(file name, contents)` each. Returns the facts and the member flags
/// recovered from the stated signatures ([`super::facts::recover_flags`]).
pub fn import<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<(SourceFacts, Vec<RecoveredFlag>), Error> {
    let mut facts = SourceFacts {
        schema: ClassSchema { sdk: "2014.1".into(), sources: vec![FOLDER.into()], ..Default::default() },
        ..Default::default()
    };
    let mut observed = ObservedLayout::default();
    let mut declared: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (file, text) in files {
        let p = class(file, text, &mut facts.schema, &mut declared)?;
        let name = p.record.name.clone();
        if facts.schema.classes.insert(name.clone(), p.record).is_some() {
            return Err(err(file, format!("class {name} defined twice")));
        }
        facts.signatures.insert(name.clone(), p.signature);
        observed.sizes.insert(name.clone(), p.size);
        observed.offsets.insert(name, p.offsets);
    }
    resolve_member_enums(&mut facts.schema, &declared);
    facts.layouts.insert(RULES.to_string(), observed);
    // Interface counts from the offsets, then the flags the XML drops from the signatures it
    // states, then interface counts of the classes whose offsets those flags explain.
    let reason = "interfaces: not in the DSMapStudio XML, found from its 8,1,0,1 offsets";
    super::facts::infer_interfaces(&mut facts, RULES, reason);
    let flags = super::facts::recover_flags(&mut facts);
    super::facts::infer_interfaces(&mut facts, RULES, reason);
    Ok((facts, flags))
}

/// Reads the source's folder (`classdata/ds3-2014.1-dsmapstudio`: its `*.xml`).
pub fn load(dir: &std::path::Path) -> Result<(SourceFacts, Vec<RecoveredFlag>), Error> {
    let files = super::facts::read_folder(dir, "xml")?;
    import(files.iter().map(|(n, t)| (n.as_str(), t.as_str())))
}
