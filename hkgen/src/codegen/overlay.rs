//! The enumeration overlay (`schemas/enums.ron`): what the type tables do not say about
//! enumerations (spec: "Enumerated members"). Tables name an enumeration but list none of its
//! items, and some members that Havok declares as an enumeration are stored as a bare integer
//! (`hknpBodyCinfo.motionType` is `unsigned char`). The overlay gives item names by enumeration
//! key and SDK, and an enumeration per such member; the stored integer is kept either way.
//!
//! The overlay is generated data ([`build`], committed like the schema snapshots): for every
//! enumeration of a tagfile snapshot it takes the items of
//!
//! 1. the `<Presets>` of a runtime type registry, where it has the enumeration under the same key:
//!    the registry of the snapshot's own SDK (Elden Ring's for 2018.1, Armored Core VI's for
//!    2019.1), or for an SDK without one the registry of the nearest later SDK (2015.1 and 2016.2
//!    take Elden Ring's) — see [`registry_for`];
//! 2. else the BotW Switch reflection (SDK 2014.2), where it has the enumeration under the same key;
//! 3. else the spec's items ([`SPEC_ITEMS`]).
//!
//! BotW's items of every enumeration that carries over are also kept for SDK 2014.2, so that names
//! that changed between the SDKs stay per SDK (`hkaAnimationBinding::BlendHint` 1 and 2 are
//! `ADDITIVE_DEPRECATED`/`ADDITIVE` in 2014.2 and `ADDITIVE_PARENT_SPACE`/`ADDITIVE_CHILD_SPACE`
//! in 2018.1). Groups of SDKs with equal items share one entry.

use super::Config;
#[cfg(feature = "tool")]
use crate::registry::Registry;
#[cfg(feature = "tool")]
use crate::schema::model::ClassSchema;
use crate::schema::model::Schema;
use crate::error::SchemaError;
use crate::error::Error;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

/// The items of one enumeration for some SDKs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Items {
    /// The SDK versions these items apply to.
    pub sdks: Vec<String>,
    /// Where they come from (`registry 2018.1`, `botw 2014.2`, `spec`).
    pub from: String,
    /// (name, value) in the source's order.
    pub items: Vec<(String, i64)>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
/// The overlay file's contents: item names per enumeration and SDK group, and the members that are
/// enumerations stored as integers.
pub struct Overlay {
    /// Items by enumeration key (`hknpMotionType::Enum`), per group of SDKs.
    #[serde(default)]
    pub enums: BTreeMap<String, Vec<Items>>,
    /// Enumeration key by member (`hknpBodyCinfo.motionType`), for members stored as an integer.
    #[serde(default)]
    pub members: BTreeMap<String, String>,
}

/// Items the spec gives (havok-tagfile-fromsoft.txt, "Enumerated members"; HKLib's 2018.1 names),
/// used where neither the registry nor BotW has the enumeration.
pub const SPEC_ITEMS: &[(&str, &[(&str, i64)])] = &[
    ("hknpMotionType::Enum", &[("STATIC", 0), ("KEYFRAMED", 1), ("DYNAMIC", 2)]),
    (
        "hknpShapeType::Enum",
        &[
            ("CONVEX", 0),
            ("CONVEX_POLYTOPE", 1),
            ("SPHERE", 2),
            ("CAPSULE", 3),
            ("CYLINDER", 4),
            ("TRIANGLE", 5),
            ("BOX", 6),
            ("COMPRESSED_MESH", 9),
            ("EXTERN_MESH", 10),
        ],
    ),
    (
        "hkaAnimation::AnimationType",
        &[("HK_INTERLEAVED_ANIMATION", 1), ("HK_SPLINE_COMPRESSED_ANIMATION", 3), ("HK_QUANTIZED_COMPRESSED_ANIMATION", 4)],
    ),
    ("hkaAnimationBinding::BlendHint", &[("NORMAL", 0), ("ADDITIVE_PARENT_SPACE", 1), ("ADDITIVE_CHILD_SPACE", 2)]),
    (
        "hkaAnimatedReferenceFrame::hkaReferenceFrameTypeEnum",
        &[("REFERENCE_FRAME_UNKNOWN", 0), ("REFERENCE_FRAME_DEFAULT", 1), ("REFERENCE_FRAME_PARAMETRIC", 2)],
    ),
    ("hclClothData::Platform", &[("HCL_PLATFORM_X64", 2)]),
    (
        "hclShapeType",
        &[
            ("HCL_SHAPE_TYPE_SPHERE", 0),
            ("HCL_SHAPE_TYPE_PLANE", 1),
            ("HCL_SHAPE_TYPE_CAPSULE", 2),
            ("HCL_SHAPE_TYPE_TAPERED_CAPSULE", 3),
            ("HCL_SHAPE_TYPE_CONVEX_GEOMETRY", 9),
        ],
    ),
];

/// Members that Havok declares as an enumeration but tables store as a bare integer (the spec).
pub const SPEC_MEMBERS: &[(&str, &str)] = &[("hknpBodyCinfo.motionType", "hknpMotionType::Enum"), ("hclShape.type", "hclShapeType")];

/// The SDK of the BotW Switch reflection.
pub const BOTW_SDK: &str = "2014.2";

/// The enumeration keys a snapshot's generated module has: the `tENUM`/`tBITS` arguments of its
/// `hkEnum`/`hkFlags` and the member enumerations of `members` whose class it has.
pub fn enumerations(schema: &Schema, members: &BTreeMap<String, String>) -> BTreeSet<String> {
    let pairs: BTreeMap<(String, String), String> = members
        .iter()
        .filter_map(|(m, e)| m.rsplit_once('.').map(|(c, f)| ((c.to_owned(), f.to_owned()), e.clone())))
        .collect();
    match super::types::Model::with_members(schema, proc_macro2::TokenStream::new(), &pairs) {
        Ok(m) => m.enums.iter().map(|k| k.to_string()).collect(),
        Err(_) => BTreeSet::new(),
    }
}

/// The SDK whose registry names the enumerations of SDK `sdk`, among the SDKs `registries` (of
/// the registries at hand): `sdk` itself, else the nearest later one. SDKs compare as versions
/// (`2016.2` < `2018.1`).
///
/// ```
/// use hkgen::codegen::overlay::registry_for;
/// let have = ["2018.1", "2019.1"];
/// assert_eq!(registry_for("2019.1", &have), Some("2019.1"));
/// assert_eq!(registry_for("2016.2", &have), Some("2018.1"));
/// assert_eq!(registry_for("2020.1", &have), None);
/// ```
pub fn registry_for<'a>(sdk: &str, registries: &[&'a str]) -> Option<&'a str> {
    let version = |s: &str| -> Vec<u32> { s.split(['.', '-']).map(|p| p.parse().unwrap_or(0)).collect() };
    let want = version(sdk);
    registries.iter().copied().filter(|r| version(r) >= want).min_by_key(|r| version(r))
}

/// Builds the overlay for the tagfile snapshots `schemas` from the registries (any number, one per
/// SDK) and the BotW reflection (may be absent). With the `tool` feature.
#[cfg(feature = "tool")]
pub fn build(schemas: &[Schema], registries: &[Registry], botw: Option<&ClassSchema>) -> Overlay {
    let members: BTreeMap<String, String> = SPEC_MEMBERS.iter().map(|(m, e)| (m.to_string(), e.to_string())).collect();
    // Items by enumeration key, per registry SDK.
    let mut reg: BTreeMap<String, BTreeMap<String, Vec<(String, i64)>>> = BTreeMap::new();
    for r in registries {
        let by_key = reg.entry(hktypes::tagfile::sdk_version(&r.sdkv)).or_default();
        let mut idx: Vec<_> = r.presets.keys().copied().collect();
        idx.sort();
        for i in idx {
            let items = &r.presets[&i];
            if !items.is_empty() {
                by_key.entry(r.types.full_name(i)).or_insert_with(|| items.clone());
            }
        }
    }
    let reg_sdks: Vec<&str> = reg.keys().map(String::as_str).collect();
    let mut bw: BTreeMap<&str, Vec<(String, i64)>> = BTreeMap::new();
    if let Some(b) = botw {
        for (k, e) in &b.enums {
            if !e.items.is_empty() && !k.contains('#') {
                bw.insert(k.as_str(), e.items.iter().map(|(v, n)| (n.clone(), *v)).collect());
            }
        }
    }
    let spec: BTreeMap<&str, Vec<(String, i64)>> =
        SPEC_ITEMS.iter().map(|(k, items)| (*k, items.iter().map(|(n, v)| (n.to_string(), *v)).collect())).collect();

    // (key, from, items) -> SDKs.
    type Group = (String, String, Vec<(String, i64)>);
    let mut groups: BTreeMap<Group, BTreeSet<String>> = BTreeMap::new();
    for schema in schemas {
        let own = registry_for(&schema.sdk, &reg_sdks).and_then(|r| Some((r, reg.get(r)?)));
        for key in enumerations(schema, &members) {
            let (from, items) = if let Some((r, i)) = own.and_then(|(r, by_key)| Some((r, by_key.get(&key)?))) {
                (format!("registry {r}"), i.clone())
            } else if let Some(i) = bw.get(key.as_str()) {
                (format!("botw {BOTW_SDK}"), i.clone())
            } else if let Some(i) = spec.get(key.as_str()) {
                ("spec".to_owned(), i.clone())
            } else {
                continue;
            };
            if let Some(i) = bw.get(key.as_str()) {
                groups.entry((key.clone(), format!("botw {BOTW_SDK}"), i.clone())).or_default().insert(BOTW_SDK.to_owned());
            }
            groups.entry((key, from, items)).or_default().insert(schema.sdk.clone());
        }
    }
    let mut enums: BTreeMap<String, Vec<Items>> = BTreeMap::new();
    for ((key, from, items), sdks) in groups {
        enums.entry(key).or_default().push(Items { sdks: sdks.into_iter().collect(), from, items });
    }
    for list in enums.values_mut() {
        list.sort_by(|a, b| a.sdks.cmp(&b.sdks));
    }
    Overlay { enums, members }
}

/// Reads the inputs of [`build`] from their usual places: the tagfile snapshots under `schemas`
/// (those with an `sdk.ron`), and the registry and BotW reflection files given. With the `tool`
/// feature.
#[cfg(feature = "tool")]
pub fn build_from(schemas: &Path, registries: &[&Path], botw: Option<&Path>) -> Result<Overlay, Error> {
    let mut list = Vec::new();
    for dir in crate::schema::snapshot::list(schemas)? {
        if dir.join("sdk.ron").is_file() {
            list.push(crate::schema::snapshot::read(&dir)?);
        }
    }
    let mut imported = Vec::new();
    for p in registries {
        let text = std::fs::read_to_string(p).map_err(|e| Error::io(p, e))?;
        imported.push(crate::registry::import(text.trim_start_matches('\u{feff}'))?);
    }
    let botw = match botw {
        Some(p) => Some(crate::reflection::botw::import(&std::fs::read_to_string(p).map_err(|e| Error::io(p, e))?)?.0),
        None => None,
    };
    Ok(build(&list, &imported, botw.as_ref()))
}

fn quoted(s: &str) -> String {
    format!("{s:?}")
}

impl Overlay {
    /// Parses the text of an `enums.ron`.
    pub fn parse(text: &str) -> Result<Self, Error> {
        Self::parse_named(text, "enumeration overlay")
    }

    /// Parses the text of an `enums.ron` named `name` in errors.
    fn parse_named(text: &str, name: &str) -> Result<Self, Error> {
        ron::from_str(text).map_err(|e| SchemaError::ron(name, text, &e).into())
    }

    /// Reads `path`; a missing file is an empty overlay.
    pub fn read(path: &Path) -> Result<Self, Error> {
        match std::fs::read_to_string(path) {
            Ok(text) => Self::parse_named(&text, &path.display().to_string()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(e) => Err(Error::io(path, e)),
        }
    }

    /// The file's text: stable, one item list per line.
    pub fn render(&self) -> String {
        let mut s = String::from(
            "// @generated by hkgen::codegen::overlay::build from the tagfile snapshots, the registries'\n\
             // <Presets> (Elden Ring 2018.1, Armored Core VI 2019.1), the BotW Switch reflection (2014.2) and\n\
             // the spec's items; do not edit.\n(\n  enums: {\n",
        );
        for (key, list) in &self.enums {
            let _ = writeln!(s, "    {}: [", quoted(key));
            for g in list {
                let sdks: Vec<String> = g.sdks.iter().map(|x| quoted(x)).collect();
                let items: Vec<String> = g.items.iter().map(|(n, v)| format!("({}, {v})", quoted(n))).collect();
                let _ = writeln!(s, "      (sdks: [{}], from: {}, items: [{}]),", sdks.join(", "), quoted(&g.from), items.join(", "));
            }
            s.push_str("    ],\n");
        }
        s.push_str("  },\n  members: {\n");
        for (m, e) in &self.members {
            let _ = writeln!(s, "    {}: {},", quoted(m), quoted(e));
        }
        s.push_str("  },\n)\n");
        s
    }

    /// The items of enumeration `key` for SDK `sdk`.
    pub fn items(&self, key: &str, sdk: &str) -> Option<&Items> {
        self.enums.get(key)?.iter().find(|g| g.sdks.iter().any(|s| s == sdk))
    }

    /// `config` with the overlay's names for SDK `sdk` and its member enumerations added.
    pub fn apply(&self, mut config: Config, sdk: &str) -> Config {
        for key in self.enums.keys() {
            if let Some(g) = self.items(key, sdk) {
                config = config.enum_items(key, g.items.iter().cloned());
            }
        }
        for (member, e) in &self.members {
            if let Some((class, field)) = member.rsplit_once('.') {
                config = config.member_enum(class, field, e);
            }
        }
        config
    }
}
