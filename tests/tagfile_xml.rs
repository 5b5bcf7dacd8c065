//! `<hktagfile>` XML (`hktypes::tagfile::xml`): every corpus TAG0 file goes to XML and back to the
//! same bytes (TCRF files with their compendium given), the corpus's one HKLib XML file reads, and
//! hostile XML gets located errors.

mod common;

use hktypes::packfile::xml::FloatForm;
use hktypes::tagfile::xml::{self, WriteOptions};
use hktypes::tagfile::TagFile;
use std::collections::BTreeMap;

/// Binary -> XML -> binary, per SDK: (files, byte-exact), and the failures with their reasons.
fn round_trips(corpus: &std::path::Path, floats: FloatForm) -> (BTreeMap<String, (usize, usize)>, Vec<String>) {
    let entries = common::manifest(corpus);
    let compendia = common::compendia(&entries);
    let mut per_sdk: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut bad = Vec::new();
    for e in entries.iter().filter(|e| e.format == "tag0") {
        let bytes = std::fs::read(&e.path).unwrap();
        let set = compendia.set_for(&e.path);
        let file = TagFile::read(&bytes, &set).unwrap_or_else(|err| panic!("{}: {err}", e.relpath));
        let n = per_sdk.entry(file.sdk_version()).or_default();
        n.0 += 1;
        let back = xml::write(&file, WriteOptions { floats })
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
    (per_sdk, bad)
}

#[test]
fn every_corpus_tagfile_round_trips_through_xml() {
    let Some(corpus) = common::corpus() else { return };
    let (per_sdk, bad) = round_trips(&corpus, FloatForm::Shortest);
    let figures: Vec<String> = per_sdk
        .iter()
        .map(|(sdk, (files, exact))| format!("{sdk}: {exact}/{files}"))
        .collect();
    assert!(bad.is_empty(), "{}\n{}", figures.join(", "), bad.join("\n"));
    assert_eq!(figures.join(", "), "2015.1: 4/4, 2016.2: 126/126, 2018.1: 207/207, 2019.1: 3/3");
}

/// HKLib's `<hktagfile version="3">` file lists its types without member records: it parses, and
/// the reader says, located at the first such type, that its values need a type registry.
#[test]
fn hklib_tagfile_xml_names_what_it_lacks() {
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, "HKLibForHD2/Havester.ik_skeleton.xml.bak") else { return };
    assert_eq!(hktypes::sniff(&bytes), Some(hktypes::Format::TagfileXml));
    let err = xml::read(&bytes).unwrap_err().to_string();
    assert!(err.contains(xml::NO_MEMBERS), "{err}");
    assert!(err.contains("line 3, column 3") && err.contains("type hkaSkeleton"), "{err}");
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
        ("unclosed tag", SMALL.replace("</hktagfile>", ""), "line 1, column 1: XML: the root node was opened but never closed"),
        ("entity bomb", bomb, "line 1, column 1: XML: "),
        ("deep elements", deep_xml, "line 1, column"),
        ("deep values", nested, "nested more than 64 deep"),
        ("out-of-range number", SMALL.replace(r#"value="-5""#, r#"value="70000""#), "line 8, column 118: object object1, member small: 70000 is out of range for short (16-bit signed)"),
        ("unknown type id", SMALL.replace(r#"typeid="type1"><record><field name="next"><null"#, r#"typeid="type9"><record><field name="next"><null"#), "line 9, column 3: object object2: unknown type id \"type9\""),
        ("dangling object ref", SMALL.replace(r#"<pointer id="object2" />"#, r#"<pointer id="object7" />"#), "object object1, member next: pointer to a missing object \"object7\""),
    ];
    let mut wrong = Vec::new();
    for (what, text, want) in &cases {
        match xml::read(text.as_bytes()) {
            Ok(_) => wrong.push(format!("{what}: read")),
            Err(e) if e.to_string().contains(want) => {}
            Err(e) => wrong.push(format!("{what}: {e}")),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
