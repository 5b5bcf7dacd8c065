//! hkClass records transcribed by hand from public descriptions of the classes (the repository's
//! `classdata/` folder): the classes no dump among the inputs describes, such as the behaviour
//! (`hkb*`) classes of FromSoftware's hk_2014.1.0-r1 files, and the Havok 5.5.0-r1 classes of
//! HavokLib's and Demon's Souls' files, derived from their public descriptions, and those of the
//! 6.6, 7.1 and 2011.1 classes that differ from their neighbours' ([`DERIVED`]). Each file names
//! its sources in its header and above each record. [`super::sources::extract`] takes them last, and only a class
//! whose signature then equals what the files of its SDK store.
//!
//! A file is RON: `(classes: [ClassRecord, ...], enums: {key: EnumRecord, ...}, overrides:
//! {class: LayoutOverride, ...})`, in the records of [`crate::schema::model`]; an override marks
//! a class whose bytes the reflection does not all describe (its objects stay raw). A record's `signature` is the one the corpus files store
//! for it, as documentation; it is checked, not trusted.

use crate::schema::model::{ClassRecord, ClassSchema, EnumRecord, LayoutOverride};
use crate::error::SchemaError;
use crate::error::Error;
use serde::Deserialize;
use std::collections::BTreeMap;

/// The transcribed hk_2014.1.0-r1 records, built in.
pub const HK2014_1: &str = include_str!("../../../classdata/hkclass-2014.1.ron");

/// The file name of [`HK2014_1`] in `classdata/`, for the schema's list of sources.
pub const HK2014_1_NAME: &str = "classdata/hkclass-2014.1.ron";

/// The transcribed hk_2013.1.0-r1 records (where 2013.1 differs from 2014.1), built in.
pub const HK2013_1: &str = include_str!("../../../classdata/hkclass-2013.1.ron");

/// The file name of [`HK2013_1`] in `classdata/`, for the schema's list of sources.
pub const HK2013_1_NAME: &str = "classdata/hkclass-2013.1.ron";

/// The Havok 5.5.0-r1 records derived where no other source gives them, built in.
pub const HK5_5: &str = include_str!("../../../classdata/hkclass-5.5.ron");

/// The file name of [`HK5_5`] in `classdata/`, for the schema's list of sources.
pub const HK5_5_NAME: &str = "classdata/hkclass-5.5.ron";

/// The hk_2010.2.0-r1 records derived where no other source gives them (FromSoftware's classes
/// of Dark Souls' map collisions), built in.
pub const HK2010_2: &str = include_str!("../../../classdata/hkclass-2010.2.ron");

/// The file name of [`HK2010_2`] in `classdata/`, for the schema's list of sources.
pub const HK2010_2_NAME: &str = "classdata/hkclass-2010.2.ron";

/// The Havok 6.6.0-r1 records derived where the 5.5 and 2010.2 records differ, built in.
pub const HK6_6: &str = include_str!("../../../classdata/hkclass-6.6.ron");

/// The file name of [`HK6_6`] in `classdata/`, for the schema's list of sources.
pub const HK6_6_NAME: &str = "classdata/hkclass-6.6.ron";

/// The Havok 7.1.0-r1 records derived where the 2010.2 records differ, built in.
pub const HK7_1: &str = include_str!("../../../classdata/hkclass-7.1.ron");

/// The file name of [`HK7_1`] in `classdata/`, for the schema's list of sources.
pub const HK7_1_NAME: &str = "classdata/hkclass-7.1.ron";

/// The hk_2011.1.0-r1 records (2011.2 stores the same signatures) derived where the 2010.2 records
/// differ, built in.
pub const HK2011_1: &str = include_str!("../../../classdata/hkclass-2011.1.ron");

/// The file name of [`HK2011_1`] in `classdata/`, for the schema's list of sources.
pub const HK2011_1_NAME: &str = "classdata/hkclass-2011.1.ron";

/// The SDKs whose records are derived over their neighbours' ([`super::sources::extract`]): per
/// SDK, its transcription and its file name, and the SDKs whose records it starts from, the one
/// its records are nearest to last (a later SDK's record of a class replaces an earlier one's,
/// and the transcription replaces them all).
pub const DERIVED: [(&str, &str, &str, &[&str]); 3] = [
    ("6.6", HK6_6, HK6_6_NAME, &["2010.2", "5.5"]),
    ("7.1", HK7_1, HK7_1_NAME, &["2010.2"]),
    ("2011.1", HK2011_1, HK2011_1_NAME, &["2010.2"]),
];

#[derive(Deserialize)]
struct File {
    classes: Vec<ClassRecord>,
    #[serde(default)]
    enums: BTreeMap<String, EnumRecord>,
    #[serde(default)]
    overrides: BTreeMap<String, LayoutOverride>,
}

/// Reads a transcription into a class schema of SDK `sdk`; `what` names it in errors.
pub fn parse(text: &str, sdk: &str, what: &str) -> Result<ClassSchema, Error> {
    let f: File = ron::from_str(text).map_err(|e| SchemaError::ron(what, text, &e))?;
    let mut schema = ClassSchema { sdk: sdk.to_owned(), sources: vec![what.to_owned()], ..Default::default() };
    for c in f.classes {
        if schema.classes.contains_key(&c.name) {
            return Err(SchemaError::in_file(what, "class defined twice").in_context(c.name.as_str()).into());
        }
        schema.classes.insert(c.name.clone(), c);
    }
    schema.enums = f.enums;
    schema.overrides = f.overrides;
    Ok(schema)
}

/// The built-in hk_2014.1.0-r1 transcription.
pub fn hk2014_1() -> Result<ClassSchema, Error> {
    parse(HK2014_1, "2014.1", HK2014_1_NAME)
}

/// The built-in hk_2013.1.0-r1 transcription.
pub fn hk2013_1() -> Result<ClassSchema, Error> {
    parse(HK2013_1, "2013.1", HK2013_1_NAME)
}

/// The built-in Havok 5.5.0-r1 records.
pub fn hk5_5() -> Result<ClassSchema, Error> {
    parse(HK5_5, "5.5", HK5_5_NAME)
}

/// The built-in hk_2010.2.0-r1 records.
pub fn hk2010_2() -> Result<ClassSchema, Error> {
    parse(HK2010_2, "2010.2", HK2010_2_NAME)
}
