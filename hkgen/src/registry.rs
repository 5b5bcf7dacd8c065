//! Import of a runtime type registry as HKLib dumps it (Elden Ring's
//! `classdata/eldenring-2018.1-registry.xml`, SDK 2018.1, and Armored Core VI's
//! `classdata/ac6-2019.1-registry.xml`, SDK 2019.1) into the same [`TypeTable`] model that tagfiles
//! read into, so its hashes recompute by the same recipe and its types merge into the SDK's snapshot.
//!
//! `Optionals` is the runtime presence set, and which runtime bit stands for which tagfile presence
//! bit differs between SDKs: [`OPTIONALS`] holds the mapping per registry `Version`. Template
//! parameter names lack the `t`/`v` prefix that tagfiles give them; `Kind` says which it is. The dump
//! drops bits 12-15 of the alignment word (the requested-alignment code); [`import`] recovers them
//! from the stored hashes.

use crate::error::RegistryError;
use crate::error::Error;
use hktypes::reflect::hash::{Hasher, Recipe};
use hktypes::reflect::{field_flags, presence, Field, Interface, SizeAlign, TemplateArg, TemplateParam, TypeIndex, TypeRecord, TypeTable};
use std::collections::HashMap;

/// The registry dumps among the class data beside the corpus (`../shared/classdata`), which
/// `hkgen extract` and `verify` read by default.
pub const CLASS_DATA: &[&str] = &["eldenring-2018.1-registry.xml", "ac6-2019.1-registry.xml"];

/// Where a registry dump says that a type has type flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlagsPresence {
    /// Runtime `Optionals` bit `n`.
    Bit(u32),
    /// No bit tracks them: a type has flags where its `Flags` attribute is nonzero.
    Nonzero,
}

/// How one SDK's registry encodes presence in `Optionals`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptionalBits {
    /// The registry's `Version` attribute (`20180100`).
    pub version: &'static str,
    /// (runtime `Optionals` bit, tagfile presence bit), for every presence bit but the type flags.
    pub bits: &'static [(u32, u32)],
    /// Where the type flags are present.
    pub flags: FlagsPresence,
}

/// The `Optionals` mapping of each registry version hkgen reads (classdata/README.md).
pub const OPTIONALS: &[OptionalBits] = &[
    OptionalBits {
        version: "20180100",
        bits: &[
            (0, presence::FORMAT),
            (1, presence::SUBTYPE),
            (4, presence::VERSION),
            (23, presence::SIZE_ALIGN),
            (26, presence::FIELDS),
            (17, presence::INTERFACES),
            (28, presence::ATTRIBUTE),
        ],
        flags: FlagsPresence::Bit(24),
    },
    OptionalBits {
        version: "20190100",
        bits: &[
            (0, presence::FORMAT),
            (1, presence::SUBTYPE),
            (4, presence::VERSION),
            (20, presence::SIZE_ALIGN),
            (23, presence::FIELDS),
            (14, presence::INTERFACES),
        ],
        flags: FlagsPresence::Nonzero,
    },
];

impl OptionalBits {
    /// The mapping of registry version `version`, if hkgen knows it.
    pub fn for_version(version: &str) -> Option<&'static OptionalBits> {
        OPTIONALS.iter().find(|o| o.version == version)
    }

    /// The tagfile presence bits of a type whose `Optionals` is `optionals` and `Flags` is `flags`.
    pub fn presence(&self, optionals: u32, flags: u32) -> u32 {
        let mut p = 0;
        for &(rt, tag) in self.bits {
            if optionals & (1 << rt) != 0 {
                p |= tag;
            }
        }
        let has_flags = match self.flags {
            FlagsPresence::Bit(rt) => optionals & (1 << rt) != 0,
            FlagsPresence::Nonzero => flags != 0,
        };
        if has_flags {
            p |= presence::FLAGS;
        }
        p
    }
}

/// An imported registry.
#[derive(Clone, Debug)]
pub struct Registry {
    /// The `Version` attribute, an `SDKV`-style string (`20180100`).
    pub sdkv: String,
    /// The types, as a tagfile type table would hold them.
    pub types: TypeTable,
    /// The registry id of each type index.
    pub ids: Vec<u64>,
    /// Enumeration items (`Presets`) by type index: (name, value).
    pub presets: HashMap<TypeIndex, Vec<(String, i64)>>,
    /// Types whose requested-alignment code was recovered from the stored hash: (index, code).
    pub recovered_alignment: Vec<(TypeIndex, u32)>,
}

/// An error at the start of element `n`: its line, column and byte offset in the XML.
fn at(n: roxmltree::Node<'_, '_>, message: impl Into<String>) -> Error {
    RegistryError::at(n.document().input_text(), n.range().start, message).into()
}

fn attr<'a>(n: roxmltree::Node<'a, '_>, name: &str) -> Result<&'a str, Error> {
    n.attribute(name).ok_or_else(|| at(n, format!("<{}> lacks attribute {name}", n.tag_name().name())))
}

fn num<T: std::str::FromStr>(n: roxmltree::Node<'_, '_>, name: &str) -> Result<T, Error> {
    let s = attr(n, name)?;
    s.parse().map_err(|_| at(n, format!("attribute {name}={s:?} is not a number")))
}

fn value_param(v: i64) -> u64 {
    if v < 0 {
        u64::from(v as i32 as u32)
    } else {
        v as u64
    }
}

/// Reads a registry dump.
pub fn import(xml: &str) -> Result<Registry, Error> {
    let doc = roxmltree::Document::parse(xml).map_err(|e| {
        // roxmltree names the position in some of its messages only, and none for a dump that
        // ends too soon: there, it is the last line.
        match e {
            roxmltree::Error::UnexpectedEndOfStream | roxmltree::Error::UnclosedRootNode => RegistryError::at(xml, xml.len(), e.to_string()),
            _ => RegistryError::at_line(xml, e.pos().row as usize, e.pos().col as usize, e.to_string()),
        }
    })?;
    let root = doc.root_element();
    if root.tag_name().name() != "HavokTypeRegistry" {
        return Err(at(root, format!("root element is <{}>, not <HavokTypeRegistry>", root.tag_name().name())));
    }
    let sdkv = attr(root, "Version")?.to_owned();
    let optional_bits = OptionalBits::for_version(&sdkv).ok_or_else(|| {
        let known: Vec<&str> = OPTIONALS.iter().map(|o| o.version).collect();
        at(root, format!("registry Version={sdkv:?} is not one whose Optionals bits hkgen knows ({})", known.join(", ")))
    })?;
    let nodes: Vec<roxmltree::Node<'_, '_>> =
        root.descendants().filter(|n| n.is_element() && n.tag_name().name() == "HavokType").collect();
    // Indices in id order, so the table does not depend on how the dump groups its types.
    let mut ids: Vec<(u64, usize)> = Vec::with_capacity(nodes.len());
    for (k, n) in nodes.iter().enumerate() {
        ids.push((num(*n, "Id")?, k));
    }
    ids.sort();
    let mut index: HashMap<u64, TypeIndex> = HashMap::with_capacity(ids.len());
    for (pos, (id, k)) in ids.iter().enumerate() {
        if index.insert(*id, pos as TypeIndex + 1).is_some() {
            return Err(at(nodes[*k], format!("type id {id} appears twice")));
        }
    }
    let resolve = |n: roxmltree::Node<'_, '_>, id: u64| -> Result<TypeIndex, Error> {
        if id == 0 {
            return Ok(0);
        }
        index.get(&id).copied().ok_or_else(|| at(n, format!("unknown type id {id}")))
    };

    let mut types = vec![TypeRecord::default()];
    let mut presets = HashMap::new();
    for (pos, (_, k)) in ids.iter().enumerate() {
        let n = nodes[*k];
        let name: String = attr(n, "Name")?.to_owned();
        let opt: u32 = num(n, "Optionals")?;
        let flags_attr: u32 = match optional_bits.flags {
            FlagsPresence::Bit(_) => 0,
            FlagsPresence::Nonzero => num(n, "Flags")?,
        };
        let p = optional_bits.presence(opt, flags_attr);
        if p & presence::ATTRIBUTE != 0 {
            return Err(at(n, format!("{name} has an attribute string, which is not supported")));
        }
        let mut t = TypeRecord { name: name.as_str().into(), parent: resolve(n, num(n, "Parent")?)?, ..TypeRecord::default() };
        if p & presence::FORMAT != 0 {
            t.format = Some(num(n, "Format")?);
        }
        if p & presence::SUBTYPE != 0 {
            t.subtype = Some(resolve(n, num(n, "SubType")?)?);
        }
        if p & presence::VERSION != 0 {
            t.version = Some(num(n, "Version")?);
        }
        if p & presence::SIZE_ALIGN != 0 {
            t.size = Some(SizeAlign { size: num(n, "Size")?, align: num(n, "Alignment")? });
        }
        if p & presence::FLAGS != 0 {
            t.flags = Some(num(n, "Flags")?);
        }
        t.hash = match n.attribute("Hash") {
            None => None,
            Some(_) => match num::<u32>(n, "Hash")? {
                0 => None,
                h => Some(h),
            },
        };
        for child in n.children().filter(|c| c.is_element()) {
            match child.tag_name().name() {
                "Template" => {
                    for prm in child.children().filter(|c| c.is_element()) {
                        let pname = attr(prm, "Name")?;
                        let (prefix, arg) = match attr(prm, "Kind")? {
                            "Type" => ('t', TemplateArg::Type(resolve(prm, num(prm, "Value")?)?)),
                            // Tagfiles store a value parameter as an unsigned packed integer; a negative
                            // value is its 32-bit two's complement (`hkHandle`'s -1 is 0xFFFFFFFF).
                            "Value" => ('v', TemplateArg::Value(value_param(num(prm, "Value")?))),
                            other => {
                                return Err(at(prm, format!("parameter kind {other:?}")))
                            }
                        };
                        t.params.push(TemplateParam { name: format!("{prefix}{pname}").into(), arg });
                    }
                }
                "Members" if p & presence::FIELDS != 0 => {
                    // A member flagged 0x10 is a property: tagfiles count it in the high half of
                    // the field-count word and store no record for it.
                    let mut fields = Vec::new();
                    let mut properties: u16 = 0;
                    for m in child.children().filter(|c| c.is_element()) {
                        let flags: u32 = num(m, "Flags")?;
                        if flags & field_flags::PROPERTY != 0 {
                            properties = properties.saturating_add(1);
                            continue;
                        }
                        fields.push(Field {
                            name: attr(m, "Name")?.into(),
                            flags,
                            offset: num(m, "Offset")?,
                            ty: resolve(m, num(m, "Type")?)?,
                            aux: 0,
                        });
                    }
                    t.fields = Some(fields);
                    t.properties = Some(properties);
                }
                "Interfaces" if p & presence::INTERFACES != 0 => {
                    let mut list = Vec::new();
                    for m in child.children().filter(|c| c.is_element()) {
                        list.push(Interface { ty: resolve(m, num(m, "Type")?)?, value: num(m, "Offset")? });
                    }
                    t.interfaces = Some(list);
                }
                "Presets" => {
                    let mut items = Vec::new();
                    for m in child.children().filter(|c| c.is_element()) {
                        // A preset without a value names a constant of a type that is no
                        // integer (2019.1's `nullptr_t` has `nullptr`): no enumeration item.
                        if m.attribute("Value").is_none() {
                            continue;
                        }
                        items.push((attr(m, "Name")?.to_owned(), num(m, "Value")?));
                    }
                    presets.insert(pos as TypeIndex + 1, items);
                }
                _ => {}
            }
        }
        if p & presence::FIELDS != 0 && t.fields.is_none() {
            t.fields = Some(Vec::new());
            t.properties = Some(0);
        }
        if p & presence::INTERFACES != 0 && t.interfaces.is_none() {
            t.interfaces = Some(Vec::new());
        }
        types.push(t);
    }
    let mut table = TypeTable::from_records(types);
    // A corrupt dump can make a parent chain loop, which the rest of hkgen takes to be impossible
    // (the tagfile reader refuses such tables too).
    for (i, t) in table.iter() {
        let root = table.ancestry(i).first().and_then(|&r| table.get(r)).map_or(0, |r| r.parent);
        if root != 0 {
            let message = format!("the parent chain of {} runs into a cycle", t.name);
            return Err(match ids.get(i as usize - 1) {
                Some(&(_, k)) => at(nodes[k], message),
                None => RegistryError::new(message).into(),
            });
        }
    }
    let recovered_alignment = recover_alignment_codes(&mut table, Recipe::for_sdk(&sdkv))?;
    Ok(Registry { sdkv, types: table, ids: ids.iter().map(|(id, _)| *id).collect(), presets, recovered_alignment })
}

/// For every type whose stored hash does not recompute, tries the requested-alignment codes 1-15 in
/// bits 12-15 of its alignment word and keeps the one that makes the hash recompute. Repeats until
/// nothing changes, since a containing type recomputes only once its member's code is right.
fn recover_alignment_codes(table: &mut TypeTable, recipe: Recipe) -> Result<Vec<(TypeIndex, u32)>, Error> {
    let mut found = Vec::new();
    loop {
        let mut changed = false;
        let mismatched: Vec<TypeIndex> = {
            let mut h = Hasher::new(table, recipe);
            table
                .iter()
                .filter(|(_, t)| t.size.is_some() && t.hash.is_some())
                .map(|(i, t)| (i, t.hash))
                .collect::<Vec<_>>()
                .into_iter()
                .filter(|&(i, stored)| h.hash(i).ok() != stored)
                .map(|(i, _)| i)
                .collect()
        };
        for i in mismatched {
            let Some(orig) = table.types[i as usize].size else { continue };
            if orig.request_code() != 0 {
                continue;
            }
            for code in 1..16u32 {
                table.types[i as usize].size = Some(SizeAlign { align: orig.align | code << 12, ..orig });
                let ok = Hasher::new(table, recipe).hash(i).ok() == table.types[i as usize].hash;
                if ok {
                    found.push((i, code));
                    changed = true;
                    break;
                }
                table.types[i as usize].size = Some(orig);
            }
        }
        if !changed {
            break;
        }
    }
    found.sort();
    Ok(found)
}
