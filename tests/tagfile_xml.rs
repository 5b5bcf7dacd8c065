//! `<hktagfile>` XML (`hktypes::tagfile::xml`): every corpus TAG0 file goes to XML and back to the
//! same bytes (TCRF files with their compendium given), the corpus's one HKLib XML file reads, and
//! hostile XML gets located errors.

mod common;

use hktypes::packfile::xml::FloatForm;
use hktypes::tagfile::xml::{self, WriteOptions};
use hktypes::tagfile::TagFile;
use std::collections::BTreeMap;

/// Binary -> XML -> binary, per SDK: (files, byte-exact), and the failures with their reasons.
/// Also the largest XML text per byte of `DATA` (over files with at least 4 KiB of it), and its file.
fn round_trips(corpus: &std::path::Path, floats: FloatForm) -> (BTreeMap<String, (usize, usize)>, Vec<String>, (f64, String)) {
    let entries = common::manifest(corpus);
    let compendia = common::compendia(&entries);
    let mut per_sdk: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut bad = Vec::new();
    let mut widest = (0.0, String::new());
    for e in entries.iter().filter(|e| e.format == "tag0") {
        let bytes = std::fs::read(&e.path).unwrap();
        let set = compendia.set_for(&e.path);
        let file = TagFile::read(&bytes, &set).unwrap_or_else(|err| panic!("{}: {err}", e.relpath));
        let n = per_sdk.entry(file.sdk_version()).or_default();
        n.0 += 1;
        let back = xml::write(&file, WriteOptions { floats })
            .inspect(|text| {
                common::fuzz_seed(text.as_bytes());
                let ratio = text.len() as f64 / file.data.len() as f64;
                if file.data.len() >= 4096 && ratio > widest.0 {
                    widest = (ratio, e.relpath.clone());
                }
            })
            .and_then(|text| xml::read(text.as_bytes()))
            .and_then(|doc| doc.write_tag0(&set));
        match back {
            Ok(out) if out == bytes => n.1 += 1,
            Ok(out) => {
                let at = out
                    .iter()
                    .zip(&bytes)
                    .position(|(a, b)| a != b)
                    .unwrap_or(out.len().min(bytes.len()));
                bad.push(format!(
                    "{}: differs at {at:#x} ({} bytes, stock {})",
                    e.relpath,
                    out.len(),
                    bytes.len()
                ));
            }
            Err(err) => bad.push(format!("{}: {err}", e.relpath)),
        }
    }
    (per_sdk, bad, widest)
}

#[test]
fn every_corpus_tagfile_round_trips_through_xml() {
    let Some(corpus) = common::corpus() else { return };
    let (per_sdk, bad, widest) = round_trips(&corpus, FloatForm::Shortest);
    let figures: Vec<String> = per_sdk
        .iter()
        .map(|(sdk, (files, exact))| format!("{sdk}: {exact}/{files}"))
        .collect();
    assert!(bad.is_empty(), "{}\n{}", figures.join(", "), bad.join("\n"));
    assert_eq!(figures.join(", "), "2015.1: 4/4, 2016.2: 126/126, 2018.1: 207/207, 2019.1: 3/3");
    // The writer's bound on its text leaves the corpus ample room.
    assert!(widest.0 * 4.0 < xml::TEXT_PER_DATA_BYTE as f64, "{widest:?}");
    println!("widest XML per DATA byte: {widest:?}");
}

/// HKLib's `<hktagfile version="3">` file lists its types without member records: without a type
/// table the reader says, located at the first such type, that its values need one; with the
/// 2018.1 table (its SDK: the file names none, and HKLib writes 2018.1) the types are completed,
/// the file reads through the generated classes and goes to TAG0 and back to the same XML values.
#[test]
fn hklib_tagfile_xml_reads_with_the_sdk_type_table() {
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, "HKLibForHD2/Havester.ik_skeleton.xml.bak") else { return };
    assert_eq!(hktypes::sniff(&bytes), Some(hktypes::Format::TagfileXml));
    let err = xml::read(&bytes).unwrap_err().to_string();
    assert!(err.contains(xml::NO_MEMBERS), "{err}");
    assert!(err.contains("line 3, column 3") && err.contains("type hkaSkeleton"), "{err}");
    // Without 2019.1's table: 2018.1 and 2016.2 have hkReferencedObject of version 3.
    let types = |sdk: &str| hkclasses::tagfile_types_for_sdk(sdk);
    let err = xml::read_with(&bytes, &["2018.1", "2016.2", "2011.1"], &types).unwrap_err().to_string();
    assert!(
        err.ends_with(
            "line 11, column 3: hktagfile XML without member records: type hkaSkeleton (HKLib's form): no type table fits: \
             SDK 2018.1: type hkReferencedObject is version Some(4) here, Some(3) in the type table; \
             SDK 2016.2: type hkReferencedObject is version Some(4) here, Some(3) in the type table; \
             SDK 2011.1: no type table was given"
        ),
        "{err}"
    );

    // 2019.1 (Armored Core VI's SDK) has every type at its version: the file is of that SDK.
    let none = Default::default();
    let read = xml::read_with(&bytes, hkclasses::TAGFILE_SDKS, &types).unwrap();
    let tag0 = read.write_tag0(&none).unwrap();
    let file = TagFile::read(&tag0, &none).unwrap();
    assert_eq!(file.sdk_version(), "2019.1");
    let doc = hktypes::open(&tag0, &hktypes::OpenOptions { classes: Some(&hkclasses::hk2019_1::CLASSES), ..Default::default() }).unwrap();
    assert_eq!((doc.counts().typed, doc.counts().untyped), (1, 0));
    let (_, skeleton) = doc.all::<hkclasses::hk2019_1::hkaSkeleton>().next().expect("the skeleton");
    let skeleton = skeleton.unwrap();
    assert_eq!(skeleton.name.as_deref(), Some("skeleton"));
    assert_eq!(skeleton.parent_indices[..], [-1, 0, 1, 2, 3, 4, 1, 6, 7, 8, 1, 10, 11, 12]);
    assert_eq!(skeleton.bones.len(), 14);
    assert_eq!(skeleton.bones[0].name.as_deref(), Some("root"));
    // The TAG0 file's XML lists the members: it reads without a table, to the same TAG0.
    let text = xml::write(&file, WriteOptions::default()).unwrap();
    assert_eq!(xml::read(text.as_bytes()).unwrap().write_tag0(&none).unwrap(), tag0);
}

/// A small tagfile XML of its own types: a record with a pointer and a 16-bit integer.
const SMALL: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<hktagfile version="3" sdkversion="20180100">
  <type id="type1"><name value="Root" /><format value="7" /><size value="16" align="8" />
    <members count="2"><member name="next" flags="32" offset="0" typeid="type2" /><member name="small" flags="32" offset="8" typeid="type3" /></members>
  </type>
  <type id="type2"><name value="T*" /><format value="6" /><subtype id="type1" /><size value="8" align="8" /></type>
  <type id="type3"><name value="short" /><format value="16900" /><size value="2" align="2" /></type>
  <object id="object1" typeid="type1"><record><field name="next"><pointer id="object2" /></field><field name="small"><integer value="-5" /></field></record></object>
  <object id="object2" typeid="type1"><record><field name="next"><null /></field><field name="small"><integer value="7" /></field></record></object>
</hktagfile>
"#;

#[test]
fn small_tagfile_xml_goes_to_tag0_and_back() {
    let none = Default::default();
    let tag0 = xml::read(SMALL.as_bytes()).unwrap().write_tag0(&none).unwrap();
    let file = TagFile::read(&tag0, &none).unwrap();
    // The null item, two objects.
    assert_eq!(file.items.len(), 3);
    assert_eq!(file.types.types.len(), 4);
    let text = xml::write(&file, WriteOptions::default()).unwrap();
    assert!(text.contains(r#"<integer value="-5" />"#) && text.contains(r#"<pointer id="object2" />"#), "{text}");
    assert_eq!(xml::read(text.as_bytes()).unwrap().write_tag0(&none).unwrap(), tag0);
}

/// A type table whose records hold their members over and over (8 members of no size at offset 0
/// of the next record, 10 levels) makes 8^10 values of one object: the writer stops at its bound
/// on the text with an error, instead of growing without end. (Members that share bytes, the first
/// way to it, are refused with the types.)
#[test]
fn tagfile_xml_writer_stops_at_its_text_bound() {
    let mut text = String::from("<hktagfile version=\"3\">");
    for k in 1..=10 {
        let members: String = (0..8).map(|m| format!(r#"<member name="m{m}" flags="32" offset="0" typeid="type{}" />"#, k + 1)).collect();
        text += &format!(r#"<type id="type{k}"><name value="R{k}" /><format value="7" /><size value="0" align="2" /><members>{members}</members></type>"#);
    }
    text += r#"<type id="type11"><name value="E" /><format value="7" /><size value="0" align="2" /></type><object id="object1" typeid="type1"><record /></object></hktagfile>"#;
    let none = Default::default();
    let tag0 = xml::read(text.as_bytes()).and_then(|d| d.write_tag0(&none)).unwrap();
    let file = TagFile::read(&tag0, &none).unwrap();
    let e = xml::write(&file, WriteOptions::default()).unwrap_err().to_string();
    assert!(e.contains("the XML text would exceed") && e.contains("m0"), "{e}");
}

/// Hostile tagfile XML: each gets an error naming the line and column (and the object and member
/// where a value is wrong), never a panic.
#[test]
fn hostile_tagfile_xml_gets_located_errors() {
    let bomb = format!(
        "<!DOCTYPE hktagfile [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]>\n{}",
        SMALL.replace(r#"value="Root""#, r#"value="&b;""#).trim_start_matches(r#"<?xml version="1.0" encoding="utf-8"?>"#)
    );
    let deep_xml = format!("<hktagfile version=\"3\">{}{}</hktagfile>", "<a>".repeat(1_000_000), "</a>".repeat(1_000_000));
    // Records nested 100 deep, each of the next.
    let mut nested = String::from("<hktagfile version=\"3\">");
    for k in 1..=100 {
        nested += &format!(r#"<type id="type{k}"><name value="R{k}" /><format value="7" /><size value="2" align="2" /><members><member name="m" flags="32" offset="0" typeid="type{}" /></members></type>"#, k + 1);
    }
    nested += r#"<type id="type101"><name value="short" /><format value="16900" /><size value="2" align="2" /></type><object id="object1" typeid="type1">"#;
    nested += &"<record><field name=\"m\">".repeat(100);
    nested += "<integer value=\"1\" />";
    nested += &"</field></record>".repeat(100);
    nested += "</object></hktagfile>";
    let cases: Vec<(&str, String, &str)> = vec![
        ("unclosed tag", SMALL.replace("</hktagfile>", ""), "line 2, column 1: XML: the element is not closed (the text ends inside it)"),
        ("entity bomb", bomb, "line 1, column 1: XML: "),
        ("deep elements", deep_xml, "line 1, column"),
        ("deep values", nested, "nested more than 64 deep"),
        ("out-of-range number", SMALL.replace(r#"value="-5""#, r#"value="70000""#), "line 8, column 118: object object1, member small: 70000 is out of range for short (16-bit signed)"),
        ("unknown type id", SMALL.replace(r#"typeid="type1"><record><field name="next"><null"#, r#"typeid="type9"><record><field name="next"><null"#), "line 9, column 3: object object2: unknown type id \"type9\""),
        ("dangling object ref", SMALL.replace(r#"<pointer id="object2" />"#, r#"<pointer id="object7" />"#), "object object1, member next: pointer to a missing object \"object7\""),
        // End tags the pull parser reads itself (issue 39): checked as quick-xml checked them.
        ("an end tag of another element", SMALL.replacen("</object>", "</record>", 1), "XML: ill-formed document: expected `</object>`, but `</record>` was found"),
        ("an end tag beyond the root", format!("{SMALL}</hktagfile>"), "XML: ill-formed document: close tag `</hktagfile>` does not match any open tag"),
    ];
    // A string whose elementtypeid is a 4-byte type (the tagfile_xml fuzz target's first finding:
    // the run was made 4 times the string's length, taking in the bytes after it).
    let string_of = |elem: &str, value: &str| {
        format!(
            r#"<hktagfile version="3">
<type id="type1"><name value="S" /><format value="7" /><size value="8" align="8" /><members count="1"><member name="s" flags="32" offset="0" typeid="type2" /></members></type>
<type id="type2"><name value="hkStringPtr" /><format value="3" /><size value="8" align="8" /></type>
<type id="type3"><name value="char" /><format value="8196" /><size value="1" align="1" /></type>
<type id="type4"><name value="unsigned int" /><format value="32772" /><size value="4" align="4" /></type>
<object id="object1" typeid="type1"><record><field name="s"><string value="{value}" elementtypeid="{elem}" /></field></record></object>
</hktagfile>"#
        )
    };
    let none = Default::default();
    let tag0 = xml::read(string_of("type3", "R_ThighTwist").as_bytes()).and_then(|d| d.write_tag0(&none)).unwrap();
    let text = xml::write(&TagFile::read(&tag0, &none).unwrap(), WriteOptions::default()).unwrap();
    assert!(text.contains(r#"<string value="R_ThighTwist" elementtypeid="type3" />"#), "{text}");
    // "abc" and its NUL are one 4-byte element: it reads, and goes round as it came.
    let tag0 = xml::read(string_of("type4", "abc").as_bytes()).and_then(|d| d.write_tag0(&none)).unwrap();
    let text = xml::write(&TagFile::read(&tag0, &none).unwrap(), WriteOptions::default()).unwrap();
    assert_eq!(xml::read(text.as_bytes()).and_then(|d| d.write_tag0(&none)).unwrap(), tag0);
    let cases = [cases, vec![("member outside its record", SMALL.replace(r#"offset="8""#, r#"offset="20""#), "line 2, column 1: the types: in Root.small: member at offset 20 of 2 bytes does not fit the 16-byte record")]].concat();
    // Members that share bytes (the tagfile_xml fuzz target's finding at f65dd88: the second
    // value's item index was written over the first one's, whose run the TAG0 file then lost).
    let shared = SMALL.replace(r#"offset="8""#, r#"offset="6""#);
    let cases = [cases, vec![("members that share bytes", shared, "line 2, column 1: the types: in Root: members next (bytes 0..8) and small (bytes 6..8) share bytes")]].concat();
    // A template parameter whose name does not start with `t` (type) or `v` (value), which is
    // how TAG0 tells them apart (the tagfile_xml fuzz target's third finding: the XML read, the
    // TAG0 file written from it did not).
    let param = SMALL.replace(r#"<subtype id="type1" />"#, r#"<subtype id="type1" /><parameters count="1"><typeparam id="type1" name="=tT" /></parameters>"#);
    // A pointer type without its size (the tagfile_xml fuzz target's fourth finding: the TAG0 file
    // written from such XML lost the items its slots named).
    let sizeless = SMALL.replace(r#"<subtype id="type1" /><size value="8" align="8" />"#, r#"<subtype id="type1" />"#);
    let cases = [cases, vec![("pointer type without size", sizeless, "line 6, column 3: type T*: a string, pointer or array type without <size>")]].concat();
    // A pointer type of 2 bytes (the tagfile_xml fuzz target's seventh finding, a string type of
    // 2 bytes: the item index did not fit its slot, so the string's run was written as an item
    // nothing named, which the XML of that TAG0 no longer had).
    let narrow = SMALL.replace(r#"<subtype id="type1" /><size value="8" align="8" />"#, r#"<subtype id="type1" /><size value="2" align="8" />"#);
    let cases = [cases, vec![("pointer type of 2 bytes", narrow, "line 6, column 3: type T*: a string, pointer or array type of 2 bytes, under the 4 its item index takes")]].concat();
    let cases = [cases, vec![("template parameter neither t nor v", param, "<typeparam> named \"=tT\": the name must start with `t`")]].concat();
    // A field given twice, the first value an array, the second null (the tagfile_xml fuzz target's
    // fifth finding, after 29 minutes: the first value's array was written to TAG0 as an item
    // nothing pointed at, which the XML of that TAG0 no longer had).
    let twice = SMALL.replace(r#"<field name="small"><integer value="-5" /></field>"#, r#"<field name="small"><integer value="-5" /></field><field name="next"><null /></field>"#);
    let cases = [cases, vec![("field given twice", twice, "line 8, column 148: object object1: a second value of field next")]].concat();
    // A NUL inside a template parameter's name (the tagfile_xml fuzz target's sixth finding, at
    // 86aa6a4, the first reader on the pull parser: quick-xml does not check characters, and the
    // TAG0 file's name table, NUL-separated, then read another name, "hkEnum", for the parameter).
    let nul = SMALL.replace(r#"<subtype id="type1" />"#, "<subtype id=\"type1\" /><parameters count=\"1\"><typeparam id=\"type1\" name=\"t\0hkEnum\" /></parameters>");
    let cases = [cases, vec![("NUL in a name", nul, "XML: character U+0000, which XML 1.0 does not allow")]].concat();
    // Two attributes without white space between them, which roxmltree refused and the first
    // one-pass attribute reader took.
    let unspaced = SMALL.replace(r#"<name value="Root" />"#, r#"<name value="Root"id="x" />"#);
    let cases = [cases, vec![("attributes without white space", unspaced, "line 3, column 20: XML: no white space before the attribute at")]].concat();
    let cases = [cases, vec![("string of 4-byte elements", string_of("type4", "R_ThighTwist"), "line 6, column 61: object object1, member s: a string of 13 bytes is not a whole number of 4-byte elements")]].concat();
    let mut wrong = Vec::new();
    common::fuzz_seed(SMALL.as_bytes());
    for (what, text, want) in &cases {
        common::fuzz_seed(text.as_bytes());
        match xml::read(text.as_bytes()) {
            Ok(_) => wrong.push(format!("{what}: read")),
            Err(e) if e.to_string().contains(want) => {}
            Err(e) => wrong.push(format!("{what}: {e}")),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
