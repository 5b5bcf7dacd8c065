//! Every type table of the corpus reads, and every hash it stores recomputes: TAG0 files of each
//! SDK, TCM0 compendia, and the Elden Ring runtime registry.

mod common;

use hktypes::reflect::hash::{check_table, Recipe};
use hktypes::tagfile::{Compendium, CompendiumSet, TagFile, TypeSource};
use hktypes::ErrorKind;
use std::collections::BTreeMap;

#[derive(Default, Debug)]
struct Counts {
    files: usize,
    own_tables: usize,
    stored: usize,
    matched: usize,
}

#[test]
fn every_stored_hash_recomputes() {
    let Some(corpus) = common::corpus() else { return };
    let entries = common::manifest(&corpus);
    let compendia = common::compendia(&entries);
    let tcm0 = entries.iter().filter(|e| e.format == "tcm0").count();
    assert_eq!(compendia.files.len(), tcm0, "every compendium reads");
    assert!(compendia.clashes.is_empty(), "compendia that claim one id agree: {:?}", compendia.clashes);

    let mut per_sdk: BTreeMap<String, Counts> = BTreeMap::new();
    let mut failures = Vec::new();
    for c in compendia.files.values() {
        let check = check_table(&c.types, Recipe::detect(&c.types)).expect("hash compendium");
        let n = per_sdk.entry("TCM0".into()).or_default();
        n.files += 1;
        n.own_tables += 1;
        n.stored += check.stored;
        n.matched += check.matched;
        failures.extend(check.mismatches.iter().map(|m| format!("compendium {:?}: {m:?}", c.ids)));
    }
    for e in entries.iter().filter(|e| e.format == "tag0") {
        let bytes = std::fs::read(&e.path).expect("read corpus file");
        let t = match TagFile::read(&bytes, &compendia.set_for(&e.path)) {
            Ok(t) => t,
            Err(err) => {
                failures.push(format!("{}: {err}", e.relpath));
                continue;
            }
        };
        assert_eq!(format!("{}", t.sdk), e.sdk, "{}: SDKV as the manifest says", e.relpath);
        let n = per_sdk.entry(t.sdk_version()).or_default();
        n.files += 1;
        if matches!(t.source, TypeSource::Own) {
            let check = check_table(&t.types, Recipe::for_sdk(&t.sdk)).expect("hash table");
            n.own_tables += 1;
            n.stored += check.stored;
            n.matched += check.matched;
            failures.extend(check.mismatches.iter().map(|m| format!("{}: {m:?}", e.relpath)));
        }
    }
    for (sdk, n) in &per_sdk {
        eprintln!("{sdk}: {} files, {} own type tables, {}/{} stored hashes recompute", n.files, n.own_tables, n.matched, n.stored);
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    let tag0 = entries.iter().filter(|e| e.format == "tag0").count();
    assert_eq!(per_sdk.iter().filter(|(k, _)| *k != "TCM0").map(|(_, n)| n.files).sum::<usize>(), tag0);
    for sdk in ["2015.1", "2016.2", "2018.1", "2019.1", "TCM0"] {
        let n = per_sdk.get(sdk).unwrap_or_else(|| panic!("corpus has {sdk} files"));
        assert!(n.stored > 0 && n.stored == n.matched, "{sdk}: {n:?}");
    }
}

/// The recipe really differs in SDK 2019.1: its files' hashes recompute only when the field step
/// leaves out inherited fields, and no older file's do.
#[test]
fn sdk_2019_hashes_own_fields_only() {
    let Some(corpus) = common::corpus() else { return };
    let mut seen = [0usize; 2];
    for e in common::manifest(&corpus).iter().filter(|e| e.format == "tag0") {
        let bytes = std::fs::read(&e.path).expect("read");
        let Ok(t) = TagFile::read(&bytes, &CompendiumSet::new()) else { continue };
        let own = check_table(&t.types, Recipe::OwnFields).unwrap();
        let inherited = check_table(&t.types, Recipe::InheritedFields).unwrap();
        let derived_hashed = t.types.iter().any(|(_, ty)| ty.hash.is_some() && ty.parent != 0 && ty.fields.is_some());
        if !derived_hashed {
            continue;
        }
        if e.sdk == "20190100" {
            assert!(own.matched == own.stored && inherited.matched < inherited.stored, "{}", e.relpath);
            seen[0] += 1;
        } else {
            assert!(inherited.matched == inherited.stored && own.matched < own.stored, "{}", e.relpath);
            seen[1] += 1;
        }
    }
    assert!(seen[0] > 0 && seen[1] > 0, "both recipes exercised: {seen:?}");
}

#[test]
fn registry_hashes_recompute_and_alignment_codes_are_recovered() {
    let Some(corpus) = common::corpus() else { return };
    let path = common::classdata(&corpus).join("eldenring-2018.1-registry.xml");
    let text = std::fs::read_to_string(&path).expect("registry present beside the corpus");
    let reg = hkgen::registry::import(text.trim_start_matches('\u{feff}')).expect("registry imports");
    assert_eq!(reg.sdkv, "20180100");
    let check = check_table(&reg.types, Recipe::for_sdk(&reg.sdkv)).unwrap();
    eprintln!("registry: {} types, {}/{} stored hashes recompute", reg.types.len() - 1, check.matched, check.stored);
    assert!(check.stored > 4000);
    assert_eq!(check.matched, check.stored, "{:?}", &check.mismatches[..check.mismatches.len().min(5)]);
    // The spec's two types with a requested-alignment code (bits 12-15 of the alignment word).
    let code = |name: &str| {
        reg.recovered_alignment.iter().find(|(i, _)| reg.types.full_name(*i) == name).map(|(_, c)| *c)
    };
    assert_eq!(code("hkpConstraintAtom"), Some(15));
    assert_eq!(code("hkCompressedMassProperties"), Some(3));
    // Enumeration items come along for the code generator.
    let motion = reg.types.iter().find(|(_, t)| t.name == "hknpMotionType::Enum").expect("hknpMotionType::Enum").0;
    assert_eq!(
        reg.presets[&motion],
        [("STATIC", 0), ("KEYFRAMED", 1), ("DYNAMIC", 2), ("NUM_TYPES", 3)].map(|(n, v)| (n.to_owned(), v))
    );
}

/// Armored Core VI's registry (SDK 2019.1): every stored hash recomputes by the 2019.1 recipe, and
/// every hash the 2019.1 corpus tagfiles store (their own `TYPE` sections and any compendium they
/// name) is the hash the registry stores and computes for the type of that name.
#[test]
fn ac6_registry_hashes_agree_with_the_2019_1_files() {
    let Some(corpus) = common::corpus() else { return };
    let path = common::classdata(&corpus).join("ac6-2019.1-registry.xml");
    let text = std::fs::read_to_string(&path).expect("registry present beside the corpus");
    let reg = hkgen::registry::import(text.trim_start_matches('\u{feff}')).expect("registry imports");
    assert_eq!(reg.sdkv, "20190100");
    let recipe = Recipe::for_sdk(&reg.sdkv);
    assert_eq!(recipe, Recipe::OwnFields);
    let check = check_table(&reg.types, recipe).unwrap();
    let types = reg.types.len() - 1;
    let recovered: Vec<(String, u32)> = reg.recovered_alignment.iter().map(|(i, c)| (reg.types.full_name(*i), *c)).collect();
    eprintln!(
        "registry 2019.1: {types} types, {} with a stored hash, {} recompute, {} do not: {:?}; alignment codes recovered: {recovered:?}",
        check.stored,
        check.matched,
        check.mismatches.len(),
        check.mismatches,
    );
    assert_eq!((types, check.stored, check.matched), (2969, 2969, 2969), "{:?}", &check.mismatches[..check.mismatches.len().min(5)]);
    // The dump drops the requested-alignment code of 14 types; their stored hashes give it back.
    assert_eq!(recovered.len(), 14, "{recovered:?}");
    for (name, code) in [("hkpConstraintAtom", 15), ("hkCompressedMassProperties", 3), ("hkVector4f", 4), ("hkIntVector", 15)] {
        assert!(recovered.contains(&(name.to_owned(), code)), "{name}: {recovered:?}");
    }
    // No runtime bit tracks type flags in 2019.1: `void` has them (nonzero), `bool` not.
    let flags = |name: &str| reg.types.iter().find(|(_, t)| t.name == name).map(|(_, t)| t.flags);
    assert_eq!(flags("void"), Some(Some(1)));
    assert_eq!(flags("bool"), Some(None));
    let motion = reg.types.iter().find(|(_, t)| t.name == "hknpMotionType::Enum").expect("hknpMotionType::Enum").0;
    assert_eq!(
        reg.presets[&motion],
        [("STATIC", 0), ("KEYFRAMED", 1), ("DYNAMIC", 2), ("NUM_TYPES", 3)].map(|(n, v)| (n.to_owned(), v))
    );

    // The registry's stored and computed hash by full name.
    let mut hasher = hktypes::reflect::hash::Hasher::new(&reg.types, recipe);
    let mut by_name: BTreeMap<String, (Option<u32>, u32)> = BTreeMap::new();
    for (i, t) in reg.types.iter() {
        let computed = hasher.hash(i).unwrap();
        assert!(by_name.insert(reg.types.full_name(i), (t.hash, computed)).is_none(), "one type per full name");
    }
    let entries = common::manifest(&corpus);
    let compendia = common::compendia(&entries);
    let (mut files, mut compendium_files, mut file_hashes, mut agree) = (0, 0, 0, 0);
    let mut disagreements = Vec::new();
    let mut unknown = Vec::new();
    for e in entries.iter().filter(|e| e.format == "tag0" && e.sdk == "20190100") {
        let bytes = std::fs::read(&e.path).unwrap();
        let t = TagFile::read(&bytes, &compendia.set_for(&e.path)).unwrap();
        files += 1;
        if matches!(t.source, TypeSource::Compendium { .. }) {
            compendium_files += 1;
        }
        for (i, ty) in t.types.iter() {
            let Some(stored) = ty.hash else { continue };
            file_hashes += 1;
            let name = t.types.full_name(i);
            match by_name.get(&name) {
                Some(&(reg_stored, reg_computed)) if reg_stored == Some(stored) && reg_computed == stored => agree += 1,
                Some(&(reg_stored, reg_computed)) => disagreements.push((e.relpath.clone(), name, stored, reg_stored, reg_computed)),
                None => unknown.push((e.relpath.clone(), name)),
            }
        }
    }
    eprintln!(
        "2019.1 tagfiles: {files} ({compendium_files} through a compendium), {file_hashes} stored hashes, {agree} agree with the registry; disagreements {disagreements:?}; not in the registry {unknown:?}"
    );
    assert_eq!((files, compendium_files), (3, 0));
    assert!(disagreements.is_empty(), "file, type, stored in the file, stored in the registry, computed from it: {disagreements:?}");
    assert!(unknown.is_empty(), "types of the files the registry lacks: {unknown:?}");
    assert_eq!((file_hashes, agree), (48, 48));
}

#[test]
fn missing_compendium_error_names_the_id() {
    let Some(corpus) = common::corpus() else { return };
    let entries = common::manifest(&corpus);
    let tcrf = entries
        .iter()
        .find(|e| e.format == "tag0" && hktypes::tagfile::file::compendium_reference(&std::fs::read(&e.path).unwrap()).unwrap().is_some())
        .expect("a tagfile that names a compendium");
    let bytes = std::fs::read(&tcrf.path).unwrap();
    let id = hktypes::tagfile::file::compendium_reference(&bytes).unwrap().unwrap();
    let err = TagFile::read(&bytes, &CompendiumSet::new()).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::MissingCompendium(s) if *s == id.to_string()), "{err}");
    assert!(err.to_string().contains(&id.to_string()) && err.to_string().contains("TCRF"), "{err}");
    // The same file reads once its compendium is given.
    let comp_path = entries.iter().find(|e| e.format == "tcm0" && {
        let c = Compendium::read(&std::fs::read(&e.path).unwrap()).unwrap();
        c.ids.contains(&id)
    });
    let comp = Compendium::read(&std::fs::read(&comp_path.expect("its compendium is in the corpus").path).unwrap()).unwrap();
    let mut set = CompendiumSet::new();
    set.add(&comp);
    assert!(TagFile::read(&bytes, &set).is_ok());
}
