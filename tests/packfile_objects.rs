//! Packfile objects: every corpus packfile read into objects (typed through the SDK's class
//! schema, or a neighbouring SDK's, where it covers the class and the stored signature
//! recomputes; raw bytes otherwise) and
//! `__data__` laid out again from them, counted per contents version.

mod common;

use hkgen::reflection::check::ClassSchemas;
use hkgen::reflection::sources::sdk_of_contents_version;
use hktypes::packfile::objects::PackfileDocument;
use std::collections::BTreeMap;

/// The versions whose every file must come back exact.
const TARGET: [&str; 3] = ["hk_2014.2.0-r1", "hk_2014.1.0-r1", "hk_2013.1.0-r1"];

#[test]
fn corpus_packfiles_round_trip_through_objects() {
    let Some(corpus) = common::corpus() else { return };
    let schemas = ClassSchemas::load(&common::workspace_root().join("schemas")).unwrap();
    // version -> [files, exact, typed objects, raw objects, demoted objects, files all typed]
    let mut per: BTreeMap<String, [usize; 6]> = BTreeMap::new();
    let mut bad = Vec::new();
    for e in common::manifest(&corpus).into_iter().filter(|e| e.format == "packfile") {
        let bytes = std::fs::read(&e.path).unwrap();
        let f = hktypes::packfile::PackFile::read(&bytes).unwrap();
        let version = f.contents_version();
        let doc = PackfileDocument::from_file_with(f, &schemas.sources_for(&sdk_of_contents_version(&version)));
        let n = per.entry(version.clone()).or_default();
        n[0] += 1;
        let doc = match doc {
            Ok(d) => d,
            Err(err) => {
                bad.push(format!("{version} {}: read: {err}", e.relpath));
                continue;
            }
        };
        let c = doc.counts();
        n[2] += c.typed;
        n[3] += c.untyped;
        n[4] += c.demoted;
        if c.untyped == 0 {
            n[5] += 1;
        }
        match doc.write() {
            Ok(out) if out == bytes => n[1] += 1,
            Ok(out) => {
                let at = out.iter().zip(&bytes).position(|(a, b)| a != b).unwrap_or(out.len().min(bytes.len()));
                let file = hktypes::packfile::PackFile::read(&bytes).unwrap();
                let detail = data_diff(&file, &out);
                bad.push(format!("{version} {} {}: differs at {at:#x} ({}{}), len {} vs {}", e.relpath, file.layout(), hkgen::reflection::check::locate(&file, at as u64), in_object(&file, at), out.len(), bytes.len()) + &detail);
            }
            Err(err) => bad.push(format!("{version} {}: write: {err}", e.relpath)),
        }
    }
    for (v, [files, exact, typed, raw, demoted, all_typed]) in &per {
        eprintln!(
            "{v}: {exact} of {files} files exact through objects ({all_typed} with every object typed); {typed} objects typed, {raw} raw ({demoted} of them read through their class but kept raw: their values do not write back to their bytes)"
        );
    }
    bad.sort_by_key(|b| !TARGET.iter().any(|v| b.starts_with(v)));
    for b in bad.iter().take(60) {
        eprintln!("  {b}");
    }
    for v in TARGET {
        let [files, exact, _, _, demoted, _] = per.get(v).copied().unwrap_or_default();
        assert_eq!(exact, files, "{v}: {exact} of {files} exact");
        // No object of these versions that reads through its class needs its stored bytes.
        assert_eq!(demoted, 0, "{v}");
    }
    // Every object of every BotW file is typed.
    let [files, _, _, raw, _, all_typed] = per.get("hk_2014.2.0-r1").copied().unwrap_or_default();
    assert_eq!((raw, all_typed), (0, files));
    // Every corpus packfile of any version round-trips through its objects.
    assert!(per.values().all(|n| n[0] == n[1]), "{per:?}");
}

/// `, in object 3 hkaSkeleton +0x18` when `at` falls in `__data__`'s data.
fn in_object(file: &hktypes::packfile::PackFile<'_>, at: usize) -> String {
    let Ok(plan) = hktypes::packfile::write::plan(file) else { return String::new() };
    let Some(di) = file.section_index(hktypes::packfile::DATA) else { return String::new() };
    let start = plan.sections[di].start as usize;
    let Some(rel) = at.checked_sub(start) else { return String::new() };
    let objects = file.objects(di);
    match objects.iter().rposition(|(o, _)| *o as usize <= rel) {
        Some(i) => format!(", in object {i} {} +{:#x}", objects[i].1.name, rel - objects[i].0 as usize),
        None => String::new(),
    }
}

/// Where the written `__data__` first differs from the stock one.
fn data_diff(file: &hktypes::packfile::PackFile<'_>, out: &[u8]) -> String {
    let Ok(back) = hktypes::packfile::PackFile::read(out) else { return "; written file does not read".into() };
    let di = file.section_index(hktypes::packfile::DATA).unwrap();
    let (a, b) = (file.sections[di].data().unwrap(), back.sections[di].data().unwrap());
    let objects = file.objects(di);
    let obj = |rel: usize| match objects.iter().rposition(|(o, _)| *o as usize <= rel) {
        Some(i) => format!("object {i} {} +{:#x}", objects[i].1.name, rel - objects[i].0 as usize),
        None => String::new(),
    };
    if let Some(at) = a.iter().zip(b).position(|(x, y)| x != y).or((a.len() != b.len()).then(|| a.len().min(b.len()))) {
        return format!("; data first differs at +{at:#x} ({}): stock {:02x?} written {:02x?}", obj(at), &a[at..(at + 16).min(a.len())], &b[at.min(b.len())..(at + 16).min(b.len())]);
    }
    let (sa, sb) = (&file.sections[di], &back.sections[di]);
    if let Some(k) = sa.local.iter().zip(&sb.local).position(|(x, y)| x != y) {
        return format!("; local fixup {k}: stock {:x?} written {:x?}", sa.local[k], sb.local[k]);
    }
    if let Some(k) = sa.global.iter().zip(&sb.global).position(|(x, y)| x != y) {
        return format!("; global fixup {k}: stock {:x?} written {:x?}", sa.global[k], sb.global[k]);
    }
    format!("; tables: local {} vs {}, global {} vs {}", sa.local.len(), sb.local.len(), sa.global.len(), sb.global.len())
}

/// Damaged packfiles give errors or documents, never panics or unbounded work: every truncation
/// of a small BotW file, and single-byte changes across its `__data__` and fixup tables (each
/// read document is written again too).
#[test]
fn damaged_packfiles_read_into_objects_without_panics() {
    let Some(corpus) = common::corpus() else { return };
    let schemas = ClassSchemas::load(&common::workspace_root().join("schemas")).unwrap();
    let set = schemas.class_set("2014.2").unwrap();
    let path = "NiceneNerd__UKMM/uk-mod/test/wiiu/content/Actor/Pack/Item_Spear_050_Broken.sbactorpack/Cloth/Weapon_Spear_050/Weapon_Spear_050.hkcl";
    let Some(bytes) = common::corpus_file(&corpus, path) else { return };
    let (mut ok, mut err) = (0, 0);
    for cut in (0..bytes.len()).step_by(7) {
        match PackfileDocument::read(&bytes[..cut], set) {
            Ok(_) => ok += 1,
            Err(e) => {
                err += 1;
                let off = e.offset().unwrap_or_else(|| panic!("cut at {cut:#x}: no offset in {e}"));
                assert!(off <= cut as u64, "cut at {cut:#x}: offset {off:#x} past the end: {e}");
            }
        }
    }
    for at in (0x100..bytes.len()).step_by(3) {
        for v in [0x00, 0x7f, 0xff] {
            let mut b = bytes.clone();
            b[at] = v;
            match PackfileDocument::read(&b, set) {
                Ok(d) => {
                    ok += 1;
                    let _ = d.write();
                    let _ = d.write_as(hktypes::packfile::LayoutRules::SWITCH);
                }
                Err(e) => {
                    err += 1;
                    // Located: the file offset, and the message says where.
                    let off = e.offset().unwrap_or_else(|| panic!("byte {at:#x} = {v:#04x}: no offset in {e}"));
                    assert!(off <= bytes.len() as u64, "byte {at:#x}: offset {off:#x} past the file: {e}");
                    assert!(e.to_string().contains("0x"), "byte {at:#x}: {e}");
                }
            }
        }
    }
    eprintln!("damaged copies: {ok} read, {err} errors");
    assert!(err > 0 && ok > 0);
}

/// Out-of-line data shared between the slots of its own elements (a hostile file) is refused,
/// not read without end.
#[test]
fn self_containing_array_data_is_an_error() {
    use hktypes::packfile::layout::{Class, ClassSet, Member, MemberType};
    use hktypes::packfile::{SectionBody, ClassName, ClassNames, ContentsVersion, Header, HeaderTail, LayoutRules, LocalFixup, PackFile, Section, VirtualFixup, CLASSNAMES, DATA, TYPES};
    use std::borrow::Cow;
    // Node { children: hkArray<Node> } with a 2-element array whose elements' arrays point back at it.
    let mut set = ClassSet::default();
    let member = Member { name: "children".into(), ty: MemberType::Array, subtype: MemberType::Struct, class: Some("Node".into()), c_array_size: 0, flags: 0, enumeration: None };
    set.classes.insert("Node".into(), Class { name: "Node".into(), parent: None, interfaces: 0, members: vec![member], hidden_members: false, fixed: vec![] });
    let rules = LayoutRules::SWITCH;
    let mut data = vec![0u8; 64];
    for slot in [0usize, 16, 32] {
        data[slot + 8..slot + 12].copy_from_slice(&2u32.to_le_bytes());
        data[slot + 12..slot + 16].copy_from_slice(&0x8000_0002u32.to_le_bytes());
    }
    let names = ClassNames { entries: vec![ClassName { signature: 0, name: "Node".into() }], fill: None };
    let name_at = names.offset_of("Node").unwrap();
    let mut cn = Section::empty(CLASSNAMES);
    cn.body = SectionBody::ClassNames(names);
    let mut ds = Section::empty(DATA);
    ds.body = SectionBody::Data(Cow::Owned(data));
    ds.local = vec![LocalFixup { src: 0, dst: 16 }, LocalFixup { src: 16, dst: 16 }, LocalFixup { src: 32, dst: 16 }];
    ds.virtuals = vec![VirtualFixup { src: 0, section: 0, name_offset: name_at }];
    let file = PackFile {
        header: Header {
            user_tag: 0,
            file_version: 11,
            layout: rules,
            contents_section_index: 2,
            contents_section_offset: 0,
            contents_class_name_section_index: 0,
            contents_class_name_section_offset: name_at,
            contents_version: ContentsVersion::new("hk_2014.2.0-r1"),
            flags: 0,
            tail: HeaderTail::Predicates { max_predicate: 21, region: vec![] },
        },
        sections: vec![cn, Section::empty(TYPES), ds],
    };
    let bytes = file.to_bytes().unwrap();
    // The object cannot be read through its class: it is kept raw, and still round-trips.
    let doc = PackfileDocument::read(&bytes, &set).unwrap();
    assert_eq!(doc.counts().typed, 0);
    assert_eq!(doc.write().unwrap(), bytes);
}

/// A typed edit end to end: a BotW ragdoll's skeleton gets a longer name and one more parent
/// index; the file is laid out again (everything after moves), reads back with the edit, and the
/// other objects are unchanged.
#[test]
fn edited_botw_skeleton_writes_and_reads_back() {
    use hktypes::packfile::objects::MemberValue;
    let Some(corpus) = common::corpus() else { return };
    let schemas = ClassSchemas::load(&common::workspace_root().join("schemas")).unwrap();
    let set = schemas.class_set("2014.2").unwrap();
    let path = "NiceneNerd__UKMM/uk-mod/test/wiiu/content/Actor/Pack/Enemy_Moriblin_Dark.sbactorpack/Ragdoll/Moriblin_Blue/Moriblin_Blue.hkrg";
    let Some(bytes) = common::corpus_file(&corpus, path) else { return };
    let mut doc = PackfileDocument::read(&bytes, set).unwrap();
    let h = doc.find("hkaSkeleton").next().unwrap();
    assert_eq!(doc.field(h, "name"), Some(&MemberValue::Str(Some(b"model_skeleton".to_vec()))));
    *doc.field_mut(h, "name").unwrap() = MemberValue::Str(Some(b"model_skeleton_edited_by_hkgen".to_vec()));
    let Some(MemberValue::Array(a)) = doc.field_mut(h, "parentIndices") else { panic!("parentIndices") };
    let n = a.items.len();
    a.items.push(MemberValue::Int(0));
    a.capacity = (n as u32 + 1) | 0x8000_0000;
    let out = doc.write().unwrap();
    assert_ne!(out, bytes);
    let back = PackfileDocument::read(&out, set).unwrap();
    assert_eq!(back.counts(), doc.counts());
    assert_eq!(back.objects, doc.objects);
    assert_eq!(back.field(h, "name"), Some(&MemberValue::Str(Some(b"model_skeleton_edited_by_hkgen".to_vec()))));
    // And the edited file converts to Switch and back like a stock one.
    let sw = back.write_as(hktypes::packfile::LayoutRules::SWITCH).unwrap();
    let down = PackfileDocument::read(&sw, set).unwrap().write_as(hktypes::packfile::LayoutRules::WII_U).unwrap();
    assert_eq!(down, out);
    // A value of the wrong type is a located error, not a panic.
    *doc.field_mut(h, "name").unwrap() = MemberValue::Real(1.0);
    let err = doc.write().unwrap_err().to_string();
    assert!(err.contains("hkaSkeleton.name"), "{err}");
}

/// An edited integer that its member cannot hold is an error on write, not cut to fit; the largest
/// unsigned and the smallest signed value of the width still write.
#[test]
fn an_integer_too_wide_for_its_member_is_refused() {
    use hktypes::packfile::layout::MemberType;
    use hktypes::packfile::objects::{Body, MemberValue};
    use hktypes::Handle;
    let Some(corpus) = common::corpus() else { return };
    let schemas = ClassSchemas::load(&common::workspace_root().join("schemas")).unwrap();
    let mut checked = 0;
    for e in common::manifest(&corpus).into_iter().filter(|e| e.format == "packfile") {
        let bytes = std::fs::read(&e.path).unwrap();
        let f = hktypes::packfile::PackFile::read(&bytes).unwrap();
        if f.contents_version() != "hk_2014.2.0-r1" {
            continue;
        }
        let mut doc = PackfileDocument::from_file_with(f, &schemas.sources_for("2014.2")).unwrap();
        // The first typed object with an 8-bit integer member outside any C array.
        let found = doc.objects.iter().enumerate().find_map(|(i, o)| {
            if !matches!(o.body, Body::Typed(_)) {
                return None;
            }
            let names = doc.member_names(&o.class);
            (0..names.len()).find_map(|k| {
                let m = doc.member(&o.class, k)?;
                (matches!(m.ty, MemberType::Uint8 | MemberType::Int8) && m.c_array_size == 0).then(|| (Handle(i as u32), m.name.clone()))
            })
        });
        let Some((h, name)) = found else { continue };
        for (v, ok) in [(MemberValue::UInt(256), false), (MemberValue::Int(-129), false), (MemberValue::UInt(255), true), (MemberValue::Int(-128), true)] {
            *doc.field_mut(h, &name).unwrap() = v.clone();
            match doc.write() {
                Ok(_) => assert!(ok, "{}: {v:?} in {name} wrote", e.relpath),
                Err(err) => {
                    assert!(!ok, "{}: {v:?} in {name}: {err}", e.relpath);
                    assert!(err.to_string().contains("does not fit in 8 bits"), "{err}");
                }
            }
        }
        checked += 1;
    }
    assert!(checked > 0, "no 2014.2 packfile with an 8-bit integer member");
}

/// The hkArray capacity words of the corpus packfiles' typed objects (raw objects' arrays are not
/// seen): per SDK, how many carry each flag pattern, and how many documents took each
/// `array_flags`. Every word's capacity bits are the array's length. Havok 5.5 and 6.6 set both
/// flag bits (`0xC0000000`, the empty arrays too), every other SDK `0x80000000` alone
/// (`stock_array_flags`), but for the 25 empty arrays of HKX2's malformed `chickenbehavior.hkx`
/// (2010.2), whose words are 0: that one document's flags are 0, the flags all its hkArrays carry.
#[test]
fn capacity_words_per_sdk() {
    use hktypes::packfile::layout::{Member, MemberType};
    use hktypes::packfile::objects::{Body, MemberValue};
    fn walk(doc: &PackfileDocument, class: &str, values: &[MemberValue], out: &mut BTreeMap<String, usize>) {
        for (i, v) in values.iter().enumerate() {
            let m = doc.member(class, i).unwrap().clone();
            value(doc, &m, m.ty, v, out);
        }
    }
    fn value(doc: &PackfileDocument, m: &Member, ty: MemberType, v: &MemberValue, out: &mut BTreeMap<String, usize>) {
        match v {
            MemberValue::Array(a) => {
                if ty == MemberType::Array {
                    let len = a.len() as u32;
                    assert_eq!(a.capacity & 0x3FFF_FFFF, len);
                    *out.entry(format!("{:#x}{}", a.capacity & 0xC000_0000, if len == 0 { " empty" } else { "" })).or_default() += 1;
                }
                a.iter().for_each(|x| value(doc, m, m.subtype, &x, out));
            }
            MemberValue::RelArray(items) => items.iter().for_each(|x| value(doc, m, m.subtype, x, out)),
            MemberValue::CArray(items) => items.iter().for_each(|x| value(doc, m, ty, x, out)),
            MemberValue::Struct(vs) => walk(doc, m.class.as_deref().unwrap(), vs, out),
            _ => {}
        }
    }
    let Some(corpus) = common::corpus() else { return };
    let schemas = ClassSchemas::load(&common::workspace_root().join("schemas")).unwrap();
    // sdk -> (flag pattern -> hkArrays, document flags -> files)
    type Tally = BTreeMap<String, usize>;
    let mut per: BTreeMap<String, (Tally, Tally)> = BTreeMap::new();
    for e in common::manifest(&corpus).into_iter().filter(|e| e.format == "packfile") {
        let Some(bytes) = common::corpus_file(&corpus, &e.relpath) else { return };
        let f = hktypes::packfile::PackFile::read(&bytes).unwrap();
        let sdk = sdk_of_contents_version(&f.contents_version());
        let doc = PackfileDocument::from_file_with(f, &schemas.sources_for(&sdk)).unwrap();
        let n = per.entry(sdk).or_default();
        for o in &doc.objects {
            if let Body::Typed(values) = &o.body {
                walk(&doc, &o.class, values, &mut n.0);
            }
        }
        *n.1.entry(format!("{:#x}", doc.array_flags)).or_default() += 1;
    }
    let summary: Vec<String> = per.iter().map(|(sdk, (words, docs))| format!("{sdk}: words {words:?}, documents {docs:?}")).collect();
    eprintln!("{}", summary.join("\n"));
    assert_eq!(
        summary,
        [
            r#"2010.1: words {"0x80000000": 103, "0x80000000 empty": 1274}, documents {"0x80000000": 13}"#,
            r#"2010.2: words {"0x0 empty": 25, "0x80000000": 4319, "0x80000000 empty": 12036}, documents {"0x0": 1, "0x80000000": 31}"#,
            r#"2011.1: words {"0x80000000": 141, "0x80000000 empty": 660}, documents {"0x80000000": 18}"#,
            r#"2011.2: words {"0x80000000": 141, "0x80000000 empty": 565}, documents {"0x80000000": 18}"#,
            r#"2012.2: words {"0x80000000": 150, "0x80000000 empty": 767}, documents {"0x80000000": 18}"#,
            r#"2013.1: words {"0x80000000": 150, "0x80000000 empty": 859}, documents {"0x80000000": 18}"#,
            r#"2014.1: words {"0x80000000": 16397, "0x80000000 empty": 63370}, documents {"0x80000000": 86}"#,
            r#"2014.2: words {"0x80000000": 2171, "0x80000000 empty": 1071}, documents {"0x80000000": 22}"#,
            r#"5.5: words {"0x80000000 empty": 3, "0xc0000000": 50, "0xc0000000 empty": 30}, documents {"0xc0000000": 28}"#,
            r#"6.6: words {"0xc0000000": 37, "0xc0000000 empty": 12}, documents {"0xc0000000": 24}"#,
            r#"7.1: words {"0x80000000": 182, "0x80000000 empty": 1154}, documents {"0x80000000": 24}"#,
        ]
    );
}
