//! Class signatures recomputed from hkClass records: the 60 of botw-2014.2-signatures.tsv and the
//! `__classnames__` entries of every corpus packfile of hk_2014.2.0-r1 from the BotW Switch
//! reflection dump; the hk_2014.1.0-r1 entries are tried against the same records and counted.

mod common;

use hkgen::reflection::{botw, signature};
use hktypes::packfile::PackFile;
use std::collections::{BTreeMap, BTreeSet};

fn botw_schema(corpus: &std::path::Path) -> hkgen::schema::model::ClassSchema {
    let json = std::fs::read_to_string(common::classdata(corpus).join("botw-2014.2-switch-reflection.json")).unwrap();
    botw::import(&json).unwrap().0
}

/// Every (class, signature) a packfile of `version` stores.
fn stored(corpus: &std::path::Path, version: &str) -> BTreeMap<String, BTreeSet<u32>> {
    let mut out: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
    for e in common::manifest(corpus).into_iter().filter(|e| e.format == "packfile") {
        let bytes = std::fs::read(&e.path).unwrap();
        let f = PackFile::read(&bytes).unwrap();
        if f.contents_version() != version {
            continue;
        }
        for c in &f.class_names().entries {
            out.entry(c.name.clone()).or_default().insert(c.signature);
        }
    }
    out
}

#[test]
fn botw_tsv_signatures_recompute() {
    let Some(corpus) = common::corpus() else { return };
    let schema = botw_schema(&corpus);
    let tsv = std::fs::read_to_string(common::classdata(&corpus).join("botw-2014.2-signatures.tsv")).unwrap();
    let (mut ok, mut bad) = (0, Vec::new());
    for line in tsv.lines().skip(1).filter(|l| !l.is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        let want = u32::from_str_radix(f[1].trim_start_matches("0x"), 16).unwrap();
        match signature::class_signature(&schema, f[0]) {
            Ok(got) if got == want => ok += 1,
            Ok(got) => bad.push(format!("{}: {got:#010x}, stored {want:#010x}", f[0])),
            Err(m) => bad.push(format!("{}: {m}", f[0])),
        }
    }
    eprintln!("botw-2014.2-signatures.tsv: {ok} of {} recompute", ok + bad.len());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert_eq!(ok, 60);
}

#[test]
fn corpus_2014_2_signatures_recompute() {
    let Some(corpus) = common::corpus() else { return };
    let schema = botw_schema(&corpus);
    let stored = stored(&corpus, "hk_2014.2.0-r1");
    let mut bad = Vec::new();
    for (name, sigs) in &stored {
        match signature::class_signature(&schema, name) {
            Ok(got) if sigs.len() == 1 && sigs.contains(&got) => {}
            Ok(got) => bad.push(format!("{name}: {got:#010x}, stored {sigs:x?}")),
            Err(m) => bad.push(format!("{name}: {m}")),
        }
    }
    eprintln!("hk_2014.2.0-r1: {} of {} classes in corpus packfiles recompute", stored.len() - bad.len(), stored.len());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// hk_2014.1.0-r1 files against the 2014.2 records: counted, not required (the versions differ).
#[test]
fn corpus_2014_1_signatures_against_2014_2_records() {
    let Some(corpus) = common::corpus() else { return };
    let schema = botw_schema(&corpus);
    let stored = stored(&corpus, "hk_2014.1.0-r1");
    let (mut same, mut differ, mut absent) = (0, Vec::new(), Vec::new());
    for (name, sigs) in &stored {
        match signature::class_signature(&schema, name) {
            Ok(got) if sigs.contains(&got) => same += 1,
            Ok(_) => differ.push(name.as_str()),
            Err(_) => absent.push(name.as_str()),
        }
    }
    eprintln!(
        "hk_2014.1.0-r1: {} classes; {same} recompute from the 2014.2 records, {} differ ({}), {} not in them",
        stored.len(),
        differ.len(),
        differ.join(", "),
        absent.len()
    );
    assert!(same > 0);
}

/// The FromSoft 2014.1 type table: its stored hashes and the corpus hk_2014.1.0-r1 signatures,
/// from the table alone and completed from the 2014.2 records where names agree.
#[test]
fn fromsoft_2014_1_signatures() {
    use hkgen::reflection::fromsoft;
    let Some(corpus) = common::corpus() else { return };
    let xml = std::fs::read_to_string(common::classdata(&corpus).join("fromsoft-2014.1-types.xml")).unwrap();
    let alone = fromsoft::import(&xml).unwrap();
    let mut completed = alone.clone();
    let botw = botw_schema(&corpus);
    let changed = fromsoft::complete_from(&mut completed, &botw);
    eprintln!(
        "completed from 2014.2: {} enums' items, {} classes' declared enums, {} members",
        changed.enum_items.len(),
        changed.declared_enums.len(),
        changed.members.len()
    );
    // The figures of 2026-12-04: what completing from 2014.2 changes.
    assert_eq!((changed.enum_items.len(), changed.declared_enums.len(), changed.members.len()), (22, 10, 2));
    let stored_files = stored(&corpus, "hk_2014.1.0-r1");
    assert_eq!(stored_files.len(), 93, "hk_2014.1.0-r1 classes in the corpus files");
    // (label, schema, table hashes that recompute, of them; corpus classes of the table that
    // recompute, of them): completing the table makes more of both recompute.
    for (label, schema, want) in [("table alone", &alone, (5, 17, 6, 17)), ("completed", &completed, (11, 17, 13, 17))] {
        let hashes = fromsoft::stored_signatures(schema);
        let ok = hashes.iter().filter(|(n, h)| signature::class_signature(schema, n) == Ok(**h)).count();
        let in_files: Vec<&String> = stored_files.keys().filter(|n| schema.class(n).is_some()).collect();
        let mut file_ok = 0;
        let mut file_bad = Vec::new();
        for n in &in_files {
            match signature::class_signature(schema, n) {
                Ok(s) if stored_files[*n].contains(&s) => file_ok += 1,
                Ok(_) => file_bad.push(n.as_str()),
                Err(m) => file_bad.push(Box::leak(format!("{n} ({m})").into_boxed_str())),
            }
        }
        eprintln!(
            "2014.1 {label}: {ok} of {} table hashes recompute; {file_ok} of {} corpus classes the table has recompute (of {} in the files); not: {}",
            hashes.len(),
            in_files.len(),
            stored_files.len(),
            file_bad.join(", ")
        );
        assert_eq!((ok, hashes.len(), file_ok, in_files.len()), want, "2014.1 {label}");
    }
}

/// Packfiles that embed their hkClass objects in `__types__`: every class read from them, its
/// signature recomputed against the file's `__classnames__` and its layout under the file's rules
/// against the offsets the objects store. For hk_2014.1.0-r1 the embedded records are then tried on
/// every class of every corpus file of that version.
#[test]
fn embedded_hkclass_objects() {
    use hkgen::reflection::{layout::ClassLayouts, types_section};
    let Some(corpus) = common::corpus() else { return };
    let mut merged_2014_1: Option<hkgen::schema::model::ClassSchema> = None;
    for e in common::manifest(&corpus).into_iter().filter(|e| e.format == "packfile") {
        let bytes = std::fs::read(&e.path).unwrap();
        let f = PackFile::read(&bytes).unwrap();
        let has_classes = f.section_index(hktypes::packfile::TYPES).is_some_and(|i| f.objects(i).iter().any(|(_, c)| c.name == "hkClass"));
        if !has_classes {
            continue;
        }
        let version = f.contents_version();
        let (schema, observed) = match types_section::import(&f, &version) {
            Ok(s) => s,
            Err(err) => {
                eprintln!("{} ({version}, {}): {err}", e.relpath, f.layout());
                continue;
            }
        };
        let named: Vec<_> = f.class_names().entries.iter().filter(|c| schema.class(&c.name).is_some()).collect();
        let sig_ok = named.iter().filter(|c| signature::class_signature(&schema, &c.name) == Ok(c.signature)).count();
        let mut layouts = ClassLayouts::new(&schema, f.layout());
        let lay_ok = observed
            .sizes
            .iter()
            .filter(|(n, size)| layouts.class(n).is_ok_and(|l| l.size == **size && l.offsets == observed.offsets[*n]))
            .count();
        eprintln!(
            "{} ({version}, {}): {} hkClass objects; {sig_ok} of {} signatures in __classnames__ recompute; {lay_ok} of {} layouts match the stored offsets",
            e.relpath,
            f.layout(),
            schema.classes.len(),
            named.len(),
            observed.sizes.len()
        );
        if version == "hk_2014.1.0-r1" {
            merged_2014_1 = Some(schema);
        }
    }
    let schema = merged_2014_1.expect("an hk_2014.1.0-r1 corpus packfile whose __types__ hold hkClass objects");
    let stored = stored(&corpus, "hk_2014.1.0-r1");
    let (mut ok, mut differ, mut absent) = (0, Vec::new(), 0);
    for (name, sigs) in &stored {
        match signature::class_signature(&schema, name) {
            Ok(s) if sigs.contains(&s) => ok += 1,
            Ok(_) => differ.push(name.as_str()),
            Err(_) => absent += 1,
        }
    }
    eprintln!("hk_2014.1.0-r1 corpus classes from the embedded records: {ok} of {} recompute, {} differ ({}), {absent} not in them", stored.len(), differ.len(), differ.join(", "));
    assert!(differ.is_empty());
}

/// hk_2014.1.0-r1: every corpus class whose signature some source recomputes (the embedded
/// records of c1400.HKX, the FromSoft table completed from 2014.2, the 2014.2 records), counted.
#[test]
fn corpus_2014_1_from_all_sources() {
    use hkgen::reflection::{fromsoft, types_section};
    let Some(corpus) = common::corpus() else { return };
    let botw = botw_schema(&corpus);
    let xml = std::fs::read_to_string(common::classdata(&corpus).join("fromsoft-2014.1-types.xml")).unwrap();
    let mut table = fromsoft::import(&xml).unwrap();
    fromsoft::complete_from(&mut table, &botw);
    let mut sources = vec![("2014.2 records", botw), ("FromSoft table (completed)", table)];
    for e in common::manifest(&corpus).into_iter().filter(|e| e.format == "packfile") {
        let bytes = std::fs::read(&e.path).unwrap();
        let f = PackFile::read(&bytes).unwrap();
        if f.contents_version() == "hk_2014.1.0-r1" {
            if let Ok((s, _)) = types_section::import(&f, "2014.1") {
                sources.insert(0, ("embedded __types__", s));
            }
        }
    }
    let stored = stored(&corpus, "hk_2014.1.0-r1");
    let mut by: BTreeMap<&str, usize> = BTreeMap::new();
    let mut none = Vec::new();
    for (name, sigs) in &stored {
        match sources.iter().find(|(_, s)| signature::class_signature(s, name).is_ok_and(|x| sigs.contains(&x))) {
            Some((label, _)) => *by.entry(label).or_default() += 1,
            None => none.push(name.as_str()),
        }
    }
    eprintln!(
        "hk_2014.1.0-r1: {} of {} corpus classes recompute from some source ({by:?}); none for: {}",
        stored.len() - none.len(),
        stored.len(),
        none.join(", ")
    );
    // The figures of 2026-12-04: the first source that recomputes each class.
    assert_eq!(stored.len(), 93);
    assert_eq!(by, BTreeMap::from([("2014.2 records", 35), ("embedded __types__", 15)]));
    assert_eq!(none.len(), 43, "{}", none.join(", "));
}

/// The class schemas `hkgen extract` builds from every source (the records transcribed into
/// `classdata/` last) against every class signature the corpus packfiles of hk_2014.1.0-r1,
/// hk_2013.1.0-r1, hk_2010.2.0-r1, Havok-5.5.0-r1, Havok-6.6.0-r1, Havok-7.1.0-r1 and
/// hk_2011.1.0-r1 store: this many classes recompute, and none does not; 2011.2 and 2010.1
/// files recompute through their neighbours' schemas.
#[test]
fn extracted_schemas_recompute_the_2014_1_and_2013_1_signatures() {
    use hkgen::reflection::sources;
    let Some(corpus) = common::corpus() else { return };
    let ex = sources::extract(&common::class_inputs(&corpus)).unwrap();
    let expected: [(&str, &str, usize, &[&str]); 4] = [
        (
            "2014.1",
            "hk_2014.1.0-r1",
            93,
            &[],
        ),
        (
            "2013.1",
            "hk_2013.1.0-r1",
            12,
            &[],
        ),
        // Skyrim and Dark Souls: Prepare to Die: the serde-hkx classes and what the files embed.
        (
            "2010.2",
            "hk_2010.2.0-r1",
            87,
            &[],
        ),
        // HavokLib's allosaur files and Demon's Souls: what the files embed, the 2010.2 records
        // that agree, and the records derived into classdata/hkclass-5.5.ron, the physics and
        // FromSoftware classes of Demon's Souls' map collision (MapCollisionTemplate_DES.hkx)
        // among them.
        (
            "5.5",
            "Havok-5.5.0-r1",
            102,
            &[],
        ),
    ];
    // HavokLib's allosaur files of the SDKs no source describes: their neighbours' records with
    // the differences derived into classdata/hkclass-{6.6,7.1,2011.1}.ron; every class recomputes,
    // the hkClass family included. 2011.2 files store 2011.1's signatures and are read through its
    // schema (below).
    let derived: [(&str, &str, usize, &[&str]); 3] = [("6.6", "Havok-6.6.0-r1", 15, &[]), ("7.1", "Havok-7.1.0-r1", 13, &[]), ("2011.1", "hk_2011.1.0-r1", 12, &[])];
    for (sdk, version, want_ok, want_not) in expected.into_iter().chain(derived) {
        let schema = ex.schemas.iter().find(|s| s.sdk == sdk).unwrap();
        let stored = stored(&corpus, version);
        let (ok, not): (Vec<&String>, Vec<&String>) =
            stored.keys().partition(|n| signature::class_signature(schema, n).is_ok_and(|s| stored[*n].contains(&s)));
        eprintln!("{version}: {} of {} corpus classes recompute from the extracted schema; not: {not:?}", ok.len(), stored.len());
        assert_eq!(not, want_not, "{version}");
        assert_eq!(ok.len(), want_ok, "{version}");
        assert_eq!(schema.unresolved, want_not, "{version}");
    }
    // No schema of their own: 2011.2 files store exactly 2011.1's signatures, 2010.1 files only
    // 2010.2's and 7.1's (hkClass, hkClassMember).
    assert!(!ex.schemas.iter().any(|s| s.sdk == "2011.2" || s.sdk == "2010.1"));
    for (version, through) in [("hk_2011.2.0-r1", &["2011.1"][..]), ("hk_2010.1.0-r1", &["2010.2", "7.1"][..])] {
        let stored = stored(&corpus, version);
        let not: Vec<&String> = stored
            .keys()
            .filter(|n| {
                !through.iter().any(|sdk| {
                    let schema = ex.schemas.iter().find(|s| s.sdk == *sdk).unwrap();
                    signature::class_signature(schema, n).is_ok_and(|s| stored[*n].contains(&s))
                })
            })
            .collect();
        eprintln!("{version}: {} classes, through {through:?}; not: {not:?}", stored.len());
        assert!(not.is_empty() && !stored.is_empty(), "{version}: {not:?}");
    }
}

/// Every record of `classdata/hkclass-2014.1.ron`, `hkclass-2013.1.ron`, `hkclass-5.5.ron`,
/// `hkclass-6.6.ron`, `hkclass-7.1.ron` and `hkclass-2011.1.ron` that gives a
/// `signature` is what the extracted schema of its SDK holds for that class, and that signature
/// recomputes and is what the corpus stores; the others are held as transcribed.
#[test]
fn transcribed_records_are_taken_and_recompute() {
    use hkgen::reflection::{sources, transcribed};
    let Some(corpus) = common::corpus() else { return };
    let ex = sources::extract(&common::class_inputs(&corpus)).unwrap();
    for (tr, version, want_with) in [
        (transcribed::hk2014_1().unwrap(), "hk_2014.1.0-r1", 39),
        (transcribed::hk2013_1().unwrap(), "hk_2013.1.0-r1", 1),
        (transcribed::hk5_5().unwrap(), "Havok-5.5.0-r1", 43),
        (transcribed::parse(transcribed::HK6_6, "6.6", transcribed::HK6_6_NAME).unwrap(), "Havok-6.6.0-r1", 7),
        (transcribed::parse(transcribed::HK7_1, "7.1", transcribed::HK7_1_NAME).unwrap(), "Havok-7.1.0-r1", 1),
        (transcribed::parse(transcribed::HK2011_1, "2011.1", transcribed::HK2011_1_NAME).unwrap(), "hk_2011.1.0-r1", 0),
    ] {
        let schema = ex.schemas.iter().find(|s| s.sdk == tr.sdk).unwrap();
        let stored = stored(&corpus, version);
        let with: Vec<_> = tr.classes.values().filter(|c| c.signature.is_some()).collect();
        for c in &with {
            let want = c.signature.unwrap().0;
            assert!(stored.get(&c.name).is_some_and(|s| s.contains(&want)), "{}: {want:#010x} is not what the corpus stores", c.name);
            let mut ours = schema.classes.get(&c.name).unwrap_or_else(|| panic!("{} not taken", c.name)).clone();
            ours.signature = c.signature;
            // The DSMapStudio XML (taken first) gives the same records with their versions.
            ours.version = c.version;
            assert_eq!(&ours, *c, "{}", c.name);
            assert_eq!(signature::class_signature(schema, &c.name), Ok(want), "{}", c.name);
        }
        // The records without one that the schema holds (what the others need) are held as
        // transcribed.
        let held: Vec<_> = tr.classes.values().filter(|c| c.signature.is_none() && schema.classes.contains_key(&c.name)).collect();
        for c in &held {
            // (with the version and the signature the DSMapStudio XML states for it)
            let ours = hkgen::schema::model::ClassRecord { version: c.version, signature: c.signature, ..schema.classes[&c.name].clone() };
            assert_eq!(&ours, *c, "{} ({version})", c.name);
        }
        let missing: Vec<_> = tr.classes.keys().filter(|n| !schema.classes.contains_key(*n)).collect();
        // Every one is held: hkbBlendCurveUtils and hkbCustomIdSelector, which no signature needs
        // (only pointed to, or only declaring an enum), come with the DSMapStudio XML.
        assert!(missing.is_empty(), "{version}: {missing:?}");
        eprintln!("{}: {} classes, {} with a corpus signature, all taken", tr.sources[0], tr.classes.len(), with.len());
        assert_eq!(with.len(), want_with, "{version}");
    }
}
