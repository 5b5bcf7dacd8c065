//! The `hkgen` binary on corpus files: `verify --json` lines, the closing count line, `dump`.

mod common;

use std::process::Command;

fn hkgen() -> Command {
    Command::new(env!("CARGO_BIN_EXE_hkgen"))
}

#[test]
fn verify_reports_every_corpus_tagfile_as_exact() {
    let Some(corpus) = common::corpus() else { return };
    // hkxlib's Minotaur_character.xml holds a pointer `1` that names no object: read as null,
    // explicitly, and reported as a repair (without the flag it fails: see
    // `verify_fails_a_dangling_xml_pointer_unless_told_to_repair_it`).
    let out = common::run(
        hkgen().arg("verify").arg("--json").arg("--dangling-pointers").arg("null").arg("--schemas").arg(common::workspace_root().join("schemas")).arg(&corpus),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let tag0 = common::manifest(&corpus).iter().filter(|e| e.format == "tag0").count();
    // Semantic checks are on by default (issue 37): every stock file passes them, and they run
    // on the skeletons and animations.
    let semantic: Vec<&str> = stdout.lines().filter(|l| l.contains("\"semantic_failures\":")).collect();
    assert!(semantic.is_empty(), "{semantic:#?}");
    let checked = stdout.lines().filter(|l| l.contains("\"semantic_checks\":") && !l.contains("\"semantic_checks\":0")).count();
    assert!(checked >= 100, "semantic checks ran on {checked} files");
    let repaired: Vec<&str> = stdout.lines().filter(|l| l.contains("\"repairs\":")).collect();
    assert_eq!(repaired.len(), 1, "{repaired:?}");
    assert!(repaired[0].contains("Minotaur_character.xml") && repaired[0].contains("\"ok\":true"), "{}", repaired[0]);
    let (mut exact, mut passed, mut failed) = (0, 0, 0);
    let mut per_format: std::collections::BTreeMap<String, usize> = Default::default();
    let mut skipped_formats: std::collections::BTreeMap<String, usize> = Default::default();
    let mut failing = Vec::new();
    for line in stdout.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        *per_format.entry(v["format"].as_str().unwrap().to_owned()).or_default() += 1;
        if v.get("skipped").is_some() {
            *skipped_formats.entry(v["format"].as_str().unwrap().to_owned()).or_default() += 1;
        } else if v["ok"] != true {
            failing.push((v["format"].as_str().unwrap().to_owned(), format!("{}: {}", v["path"], v["error"])));
        }
        if v["format"] == "tcm0" {
            assert!(v["hashes_stored"].as_u64().unwrap() > 0, "{line}");
            assert_eq!(v["hashes_stored"], v["hashes_matched"], "{line}");
        }
        for key in ["path", "format", "sdk", "types", "hashes_stored", "hashes_matched", "ok", "error"] {
            assert!(v.get(key).is_some(), "{key} missing in {line}");
        }
        if v["format"] == "tag0" {
            assert_eq!(v["roundtrip"], "exact", "{line}");
            assert_eq!(v["typed_roundtrip"], "exact", "{line}");
            assert_eq!(v["hashes_stored"], v["hashes_matched"], "{line}");
            assert_eq!(v["untyped"], 0, "every corpus object reads typed: {line}");
            assert!(v["typed"].as_u64().unwrap() > 0);
            exact += 1;
        }
        if matches!(v["format"].as_str(), Some("tag0" | "tcm0")) {
            assert_eq!(v["ok"], true, "{line}");
        }
        if v["format"] == "packfile" {
            // Every packfile's container round trips; signatures are checked where a class
            // schema covers the SDK.
            assert_eq!(v["roundtrip"], "exact", "{line}");
            if v["sdk"] == "2014.2" {
                assert_eq!(v["ok"], true, "{line}");
            }
        }
        if v.get("skipped").is_none() {
            if v["ok"] == true { passed += 1 } else { failed += 1 }
        }
    }
    assert_eq!(exact, tag0);
    // One line per file the walk finds, by format as the manifest has them: MANIFEST.tsv, the one
    // file that is not Havok, is skipped; its packfile XML and its hktagfile XML (HKLib's, whose
    // member-less types the compiled-in type tables complete) are verified.
    let manifest = common::manifest(&corpus);
    let count = |f: &str| manifest.iter().filter(|e| e.format == f).count();
    let xml = manifest.iter().filter(|e| e.format.starts_with("xml")).count();
    let tagfile_xml = count("xml-tagfile");
    let want = std::collections::BTreeMap::from([
        ("tag0".to_owned(), tag0),
        ("tcm0".to_owned(), count("tcm0")),
        ("packfile".to_owned(), count("packfile")),
        ("xml".to_owned(), xml),
        // Tears of the Kingdom's cloth: a TAG0 in the Phive wrapper (tests/phive.rs).
        ("phive".to_owned(), count("phive")),
        ("other".to_owned(), 1),
    ]);
    assert_eq!(per_format, want);
    assert_eq!(skipped_formats, std::collections::BTreeMap::from([("other".to_owned(), 1)]));
    assert_eq!(passed + failed, tag0 + count("tcm0") + count("packfile") + count("xml") + tagfile_xml + count("phive"));
    assert!(stderr.contains("1 skipped: 0 hktagfile XML without member records, 1 not Havok files"), "{stderr}");
    // The figures of 2026-12-04 (Demon's Souls' map collision, soulstruct-havok's
    // MapCollisionTemplate_DES.hkx, failed until its 5.5 physics classes were derived): the one
    // file that fails is HKX2's chickenbehavior.hkx (below).
    let list = || failing.iter().map(|(_, f)| f.as_str()).collect::<Vec<_>>().join("\n");
    assert_eq!(failed, FAILING_PACKFILES + FAILING_XML + 1, "{failed} files fail:\n{}", list());
    // HKX2's chickenbehavior.hkx places members 8 bytes past the 2010.2 layout: the few objects
    // that still read through their classes hold pointers to objects of the wrong class.
    assert!(
        failing.iter().any(|(_, f)| f.contains("HKX2-Enhanced-Library/chickenbehavior.hkx") && f.contains("a pointer does not name what its member expects")),
        "{}",
        list()
    );
    assert_eq!(failing.iter().filter(|(format, f)| format == "packfile" && f.contains("signature")).count(), FAILING_PACKFILES, "{}", list());
    // The XML that does not read (see tests/xml.rs): located errors.
    assert_eq!(failing.iter().filter(|(format, f)| format == "xml" && f.contains(" line ") && f.contains(", column ")).count(), FAILING_XML, "{}", list());
    assert_eq!(stderr.lines().last().unwrap(), format!("{passed} passed (1 of them only after repairs), {failed} failed"));
    assert_eq!(out.status.success(), failed == 0);
}

/// A pointer of `<hkpackfile>` XML that names no object fails `verify` with where it is; with
/// `--dangling-pointers null` the file passes, read with the pointer null, and the repair is
/// printed with the same place.
#[test]
fn verify_fails_a_dangling_xml_pointer_unless_told_to_repair_it() {
    let Some(corpus) = common::corpus() else { return };
    let Some(_) = common::corpus_file(&corpus, MINOTAUR) else { return };
    let path = corpus.join(MINOTAUR);
    let schemas = common::workspace_root().join("schemas");
    let place = "line 9, column 16: object #0023, member characterControllerInfo.characterControllerCinfo: pointer to \"1\", which names no object";
    let strict = common::run(hkgen().arg("verify").arg("--schemas").arg(&schemas).arg(&path));
    assert!(!strict.status.success());
    let stdout = String::from_utf8_lossy(&strict.stdout);
    assert_eq!(stdout.trim(), format!("FAIL {}: file 0x1ca: {place}", path.display()));
    let repaired = common::run(hkgen().arg("verify").arg("--dangling-pointers").arg("null").arg("--schemas").arg(&schemas).arg(&path));
    assert!(repaired.status.success());
    let stdout = String::from_utf8_lossy(&repaired.stdout);
    assert_eq!(stdout.trim(), format!("REPAIRED {}: file 0x1ca: {place}: read as null", path.display()));
    assert_eq!(String::from_utf8_lossy(&repaired.stderr).trim(), "1 passed (1 of them only after repairs), 0 failed");
}

const MINOTAUR: &str = "hkxlib/minotaur__characters__Minotaur_character.xml";

/// Corpus packfiles `verify` fails on for class signatures that no schema recomputes: none. Until
/// the physics classes of Demon's Souls' map collision were derived (2026-12-06) one of SDK 5.5,
/// MapCollisionTemplate_DES.hkx; before the derived 5.5 classes (`classdata/hkclass-5.5.ron`)
/// came in, all 28 of 5.5 failed; before the serde-hkx classes, the 32 of 2010.2 too.
const FAILING_PACKFILES: usize = 0;

/// Corpus `<hkpackfile>` XML files `verify --dangling-pointers null` fails on: none of 23 (the
/// hkxlib file with a pointer that names no object passes after its repair; the five HavokLib 5.5
/// animation files read since the 5.5 classes came).
const FAILING_XML: usize = 0;

#[test]
fn verify_fails_on_a_missing_compendium_and_names_it() {
    let Some(corpus) = common::corpus() else { return };
    let e = common::manifest(&corpus)
        .into_iter()
        .find(|e| e.format == "tag0" && hktypes::tagfile::file::compendium_reference(&std::fs::read(&e.path).unwrap()).unwrap().is_some())
        .unwrap();
    let id = hktypes::tagfile::file::compendium_reference(&std::fs::read(&e.path).unwrap()).unwrap().unwrap();
    // Beside its compendium the file finds it (issue 37: as dump, convert and Python look); away
    // from it, verify fails naming the id.
    let near = common::run(hkgen().args(["verify", "--json"]).arg(&e.path));
    assert!(near.status.success(), "{}", String::from_utf8_lossy(&near.stdout));
    let dir = scratch("verify-missing-compendium");
    let alone = dir.join("alone.hkx");
    std::fs::copy(&e.path, &alone).unwrap();
    let out = common::run(hkgen().args(["verify", "--json"]).arg(&alone));
    assert!(!out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    assert_eq!(v["ok"], false);
    assert!(v["error"].as_str().unwrap().contains(&id.to_string()), "{stdout}");
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().last().unwrap(), "0 passed, 1 failed");
    // With the compendium given, it passes.
    let out = common::run(hkgen().args(["verify", "--compendium"]).arg(&corpus).arg(&alone));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn dump_prints_the_object_tree_in_both_formats() {
    let Some(corpus) = common::corpus() else { return };
    let e = common::manifest(&corpus).into_iter().find(|e| e.relpath.ends_with("Skeleton.hkx") && e.format == "tag0").unwrap();
    let json = common::run(hkgen().args(["dump", "--format", "json"]).arg(&e.path));
    assert!(json.status.success(), "{}", String::from_utf8_lossy(&json.stderr));
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!((v["format"].as_str(), v["root"].as_u64()), (Some("tagfile"), Some(1)));
    assert_eq!(v["objects"][0]["handle"], 1);
    assert_eq!(v["objects"][0]["class"], "hkRootLevelContainer");
    let skeleton = v["objects"].as_array().unwrap().iter().find(|o| o["class"] == "hkaSkeleton").expect("a skeleton");
    assert!(skeleton["members"]["bones"].as_array().unwrap().len() > 1);
    let ron = common::run(hkgen().arg("dump").arg(&e.path));
    assert!(ron.status.success());
    assert!(String::from_utf8_lossy(&ron.stdout).contains("type: \"hkaSkeleton\""));
}

/// A file alone in the temporary directory: `dump` looks for compendia only near it (the
/// temporary directory's parent is the filesystem root, which it must not walk), reads a file
/// with its own type table, and on a cut copy prints a located error and exits non-zero without a
/// panic message.
#[test]
fn dump_of_a_file_far_from_any_compendium() {
    let Some(corpus) = common::corpus() else { return };
    let e = common::manifest(&corpus)
        .into_iter()
        // SDK 2015.1 files carry their own type table.
        .find(|e| e.format == "tag0" && e.sdk == "20150100" && e.bytes > 4096)
        .expect("an SDK 2015.1 tagfile");
    let bytes = std::fs::read(&e.path).unwrap();
    let dir = std::env::temp_dir().join(format!("hkgen-dump-alone-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let whole = dir.join("whole.hkx");
    let cut = dir.join("cut.hkx");
    std::fs::write(&whole, &bytes).unwrap();
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let ok = common::run(hkgen().arg("dump").arg(&whole));
    let bad = common::run(hkgen().arg("dump").arg(&cut));
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(ok.status.success(), "{}: {}", e.relpath, String::from_utf8_lossy(&ok.stderr));
    assert!(String::from_utf8_lossy(&ok.stdout).contains("id: \"#1\""));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(!bad.status.success());
    assert!(err.contains("cut.hkx") && err.contains("0x") && !err.contains("panicked"), "{err}");
    // One line, no backtrace: `hkgen: FILE: SECTION+OFFSET (file OFFSET)...: what went wrong`.
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("hkgen: ") && !err.contains("stack backtrace"), "{err}");
}

/// `dump` of a BotW packfile run where there is no `schemas/` folder lays its objects out with
/// the classes compiled into the binary: every object with members, none raw, and the same text
/// as with `--schemas` naming the committed snapshots.
#[test]
fn dump_of_a_packfile_needs_no_schemas_folder() {
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, BOTW_RAGDOLL) else { return };
    let dir = scratch("dump-compiled");
    std::fs::write(dir.join("ragdoll.hkrg"), &bytes).unwrap();
    let compiled = common::run(hkgen().args(["dump", "--format", "json", "ragdoll.hkrg"]).current_dir(&dir));
    let snapshots = common::run(
        hkgen().args(["dump", "--format", "json", "--schemas"]).arg(common::workspace_root().join("schemas")).arg("ragdoll.hkrg").current_dir(&dir),
    );
    assert!(compiled.status.success(), "{}", stderr(&compiled));
    assert!(!dir.join("schemas").exists());
    let v: serde_json::Value = serde_json::from_slice(&compiled.stdout).unwrap();
    let objects = v["objects"].as_array().unwrap();
    assert_eq!(objects.len(), 126);
    assert_eq!(objects.iter().filter(|o| o["members"].is_object()).count(), 126);
    assert_eq!(compiled.stdout, snapshots.stdout);
}

const BOTW_RAGDOLL: &str =
    "NiceneNerd__UKMM/uk-mod/test/wiiu/content/Actor/Pack/Enemy_Moriblin_Dark.sbactorpack/Ragdoll/Moriblin_Blue/Moriblin_Blue.hkrg";

/// A fresh, emptied folder for one test under `target/`.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89";

/// The first SDK 2015.1 tagfile of the corpus (it carries its own type table).
fn own_types_tagfile(corpus: &std::path::Path) -> common::Entry {
    common::manifest(corpus).into_iter().find(|e| e.format == "tag0" && e.sdk == "20150100").expect("an SDK 2015.1 tagfile")
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `extract` writes into the committed `schemas/` only when asked: without `--out` or `--update`
/// it refuses, saying how, and writes nothing; inputs without a type table write nothing either.
#[test]
fn extract_writes_only_where_it_is_told() {
    let Some(corpus) = common::corpus() else { return };
    let dir = scratch("extract");
    let input = dir.join("in");
    std::fs::create_dir_all(&input).unwrap();
    let e = own_types_tagfile(&corpus);
    std::fs::copy(&e.path, input.join("file.hkx")).unwrap();
    for args in [vec![input.as_os_str()], vec![]] {
        let out = common::run(hkgen().arg("extract").args(&args).current_dir(&dir));
        let err = stderr(&out);
        assert!(!out.status.success(), "{err}");
        assert!(err.contains("--out DIR") && err.contains("--update") && err.contains("schemas/"), "{err}");
        assert!(!dir.join("schemas").exists(), "extract wrote {} without being asked", dir.join("schemas").display());
    }
    // A folder of no Havok file: an error, and nothing written.
    let junk = dir.join("junk");
    std::fs::create_dir_all(&junk).unwrap();
    std::fs::write(junk.join("a.png"), PNG).unwrap();
    let out = common::run(hkgen().arg("extract").arg("--out").arg(dir.join("mine")).arg(&junk));
    assert!(!out.status.success());
    assert!(stderr(&out).contains("no type table"), "{}", stderr(&out));
    assert!(!dir.join("mine").exists());
    // Told where: the snapshot of the one SDK found.
    let out = common::run(hkgen().arg("extract").arg("--out").arg(dir.join("mine")).arg(&input));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(dir.join("mine/2015.1/sdk.ron").is_file() && dir.join("mine/enums.ron").is_file(), "{}", stderr(&out));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A named file that is not a Havok file fails `verify` (naming it and its first bytes) unless
/// `--skip-unknown`; in a directory walk such files are passed over and counted; an input with no
/// Havok file at all (an empty folder) is an error.
#[test]
fn verify_refuses_what_is_not_a_havok_file() {
    let Some(corpus) = common::corpus() else { return };
    let dir = scratch("verify-unknown");
    let png = dir.join("picture.png");
    let txt = dir.join("notes.txt");
    std::fs::write(&png, PNG).unwrap();
    std::fs::write(&txt, "hello\n").unwrap();
    let e = own_types_tagfile(&corpus);
    let good = dir.join("good.hkx");
    std::fs::copy(&e.path, &good).unwrap();
    let xml = common::manifest(&corpus).into_iter().find(|e| e.format == "xml").expect("a Havok XML file");
    std::fs::copy(&xml.path, dir.join("packfile.xml")).unwrap();
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();

    for (file, bytes) in [(&png, "89 50 4E 47 0D 0A 1A 0A"), (&txt, "68 65 6C 6C 6F 0A")] {
        let out = common::run(hkgen().args(["verify", "--json"]).arg(file));
        assert!(!out.status.success(), "{}", stderr(&out));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["ok"], false);
        let error = v["error"].as_str().unwrap();
        assert!(error.contains("not a Havok file") && error.contains(bytes), "{error}");
        assert_eq!(stderr(&out).lines().last().unwrap(), "0 passed, 1 failed");
        // Without --json the failing file is named.
        let out = common::run(hkgen().arg("verify").arg(file));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(&*file.display().to_string()) && text.contains("not a Havok file"), "{text}");
    }
    // Named packfile XML is verified: it reads, and XML -> binary -> XML gives it back.
    let out = common::run(hkgen().args(["verify", "--json"]).arg(dir.join("packfile.xml")));
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["format"], "xml");
    assert_eq!(v["roundtrip"], "exact", "{v}");
    assert_eq!(v["sdk"], "2010.2", "{v}");
    // Named HKLib tagfile XML, whose types list no members, is verified through the compiled-in
    // type tables: its types are 2019.1's.
    let tagfile_xml = common::manifest(&corpus).into_iter().find(|e| e.format == "xml-tagfile").expect("a tagfile XML file");
    std::fs::copy(&tagfile_xml.path, dir.join("tagfile.xml")).unwrap();
    let out = common::run(hkgen().args(["verify", "--json"]).arg(dir.join("tagfile.xml")));
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((v["format"].as_str(), v["sdk"].as_str(), v["ok"].as_bool()), (Some("xml"), Some("2019.1"), Some(true)), "{v}");
    // Asked to skip them, the named unknown files are passed over.
    let out = common::run(hkgen().args(["verify", "--skip-unknown"]).arg(&png).arg(&txt).arg(&good));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("2 skipped: 0 hktagfile XML without member records, 2 not Havok files"), "{}", stderr(&out));
    assert_eq!(stderr(&out).lines().last().unwrap(), "1 passed, 0 failed");
    // A walk passes over what it cannot verify, and counts it.
    let out = common::run(hkgen().arg("verify").arg(&dir));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("2 skipped: 0 hktagfile XML without member records, 2 not Havok files"), "{}", stderr(&out));
    assert_eq!(stderr(&out).lines().last().unwrap(), "3 passed, 0 failed");
    // Nothing to verify is an error.
    for input in [&empty, &png] {
        let out = common::run(hkgen().arg("verify").arg("--skip-unknown").arg(input));
        assert!(!out.status.success(), "{}", stderr(&out));
        assert!(stderr(&out).contains("no Havok file to verify"), "{}", stderr(&out));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `dump` of what is not a Havok file names its first bytes; of HKLib's hktagfile XML prints its
/// objects (its member-less types completed from the compiled-in type tables); of packfile XML
/// prints its objects;
/// of a TCM0 compendium prints its ids and type table.
#[test]
fn dump_names_what_it_cannot_read_and_prints_compendia() {
    let Some(corpus) = common::corpus() else { return };
    let dir = scratch("dump-unknown");
    let png = dir.join("picture.png");
    std::fs::write(&png, PNG).unwrap();
    let out = common::run(hkgen().arg("dump").arg(&png));
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("picture.png: not a Havok file: starts with 89 50 4E 47 0D 0A 1A 0A ..."), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let xml = common::manifest(&corpus).into_iter().find(|e| e.format == "xml-tagfile").expect("a tagfile XML file");
    let out = common::run(hkgen().arg("dump").arg(&xml.path));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("hkaSkeleton"), "{}", String::from_utf8_lossy(&out.stdout));
    let Some(bytes) = common::corpus_file(&corpus, "serde-hkx/defaultmale.xml") else { return };
    std::fs::write(dir.join("defaultmale.xml"), bytes).unwrap();
    // XML without hkgen's layout note: the dump's layout is the one --layout names.
    let out = common::run(hkgen().args(["dump", "--format", "json", "--layout", "4,1,0,1", "--schemas"]).arg(common::workspace_root().join("schemas")).arg(dir.join("defaultmale.xml")));
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("hkbProjectStringData") && text.contains("Characters\\\\DefaultMale.hkx"), "{text}");
    let tcm0 = common::manifest(&corpus).into_iter().find(|e| e.format == "tcm0").expect("a compendium");
    let out = common::run(hkgen().args(["dump", "--format", "json"]).arg(&tcm0.path));
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let c = hktypes::tagfile::Compendium::read(&std::fs::read(&tcm0.path).unwrap()).unwrap();
    assert_eq!(v["ids"].as_array().unwrap().len(), c.ids.len());
    assert_eq!(v["ids"][0], c.ids[0].to_string());
    let types = v["types"].as_object().unwrap();
    assert!(types.len() > 100, "{} types", types.len());
    assert!(types.contains_key("hkReferencedObject"), "{:?}", types.keys().take(5).collect::<Vec<_>>());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `convert` creates the folders its output goes in only with `--parents`, and a write that
/// fails names the output.
#[test]
fn convert_creates_its_output_folder_and_names_the_output_on_failure() {
    let Some(corpus) = common::corpus() else { return };
    let dir = scratch("convert-out");
    let schemas = common::workspace_root().join("schemas");
    let input =
        corpus.join("NiceneNerd__UKMM/uk-mod/test/wiiu/content/Actor/Pack/Enemy_Moriblin_Dark.sbactorpack/Ragdoll/Moriblin_Blue/Moriblin_Blue.hkrg");
    let output = dir.join("not/yet/there/switch.hkrg");
    let out = common::run(hkgen().args(["convert", "--layout", "8,1,1,1", "--schemas"]).arg(&schemas).arg(&input).arg(&output));
    assert!(!out.status.success());
    assert!(stderr(&out).contains("does not exist; --parents creates it"), "{}", stderr(&out));
    assert!(!dir.join("not").exists());
    let out = common::run(hkgen().args(["convert", "--parents", "--layout", "8,1,1,1", "--schemas"]).arg(&schemas).arg(&input).arg(&output));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(output.is_file());
    // The output is a folder: the error says it is the output that cannot be written.
    let out = common::run(hkgen().args(["convert", "--layout", "8,1,1,1", "--schemas"]).arg(&schemas).arg(&input).arg(&dir));
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains(&format!("the output {} is a folder", dir.display())), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A tagfile that names a compendium, copied away from it: `dump` and `verify` name the missing
/// compendium and say to pass `--compendium`.
#[test]
fn a_tagfile_away_from_its_compendium_is_told_about_compendium() {
    let Some(corpus) = common::corpus() else { return };
    let e = common::manifest(&corpus)
        .into_iter()
        .find(|e| e.format == "tag0" && hktypes::tagfile::file::compendium_reference(&std::fs::read(&e.path).unwrap()).unwrap().is_some())
        .expect("a tagfile naming a compendium");
    let dir = scratch("alone");
    let file = dir.join("alone.hkx");
    std::fs::copy(&e.path, &file).unwrap();
    let dump = common::run(hkgen().arg("dump").arg(&file));
    let verify = common::run(hkgen().arg("verify").arg(&file));
    std::fs::remove_dir_all(&dir).unwrap();
    for (what, out, text) in [("dump", &dump, stderr(&dump)), ("verify", &verify, String::from_utf8_lossy(&verify.stdout).into_owned())] {
        assert!(!out.status.success(), "{what}");
        let id = hktypes::tagfile::file::compendium_reference(&std::fs::read(&e.path).unwrap()).unwrap().unwrap().to_string();
        assert!(text.contains(&id) && text.contains("--compendium PATH"), "{what}: {text}");
    }
}

/// `hkgen codegen --unformatted` prints byte for byte the module the build script wrote into
/// `OUT_DIR` (and so compiled), the enumeration overlay included; without the flag the same code
/// is pretty-printed.
#[cfg(all(feature = "hk2018_1", feature = "hk2014_2"))]
#[test]
fn codegen_prints_what_the_build_script_compiles() {
    let out_dir = std::path::Path::new(env!("OUT_DIR"));
    let schemas = match option_env!("HKCLASSES_SCHEMAS") {
        Some(d) => std::path::PathBuf::from(d),
        None => common::workspace_root().join("schemas"),
    };
    for (sdk, module) in [("2018.1", "hk2018_1.rs"), ("2014.2", "hk2014_2.rs")] {
        let built = std::fs::read(out_dir.join(module)).unwrap();
        let out = common::run(hkgen().args(["codegen", "--unformatted", "--sdk", sdk, "--schemas"]).arg(&schemas));
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(out.stdout == built, "hkgen codegen --sdk {sdk} differs from {}", out_dir.join(module).display());
        let pretty = common::run(hkgen().args(["codegen", "--sdk", sdk, "--schemas"]).arg(&schemas));
        assert!(pretty.status.success());
        assert!(pretty.stdout.len() > built.len() / 2);
    }
    // The overlay: a body's motion type is the enum the build script gives it.
    let pretty = common::run(hkgen().args(["codegen", "--sdk", "2018.1", "--schemas"]).arg(&schemas));
    let text = String::from_utf8_lossy(&pretty.stdout);
    assert!(text.contains("pub motion_type: ::hktypes::value::Enum<hknpMotionType_Enum, u8>"), "no enum overlay in hknpBodyCinfo");
    let bad = common::run(hkgen().args(["codegen", "--sdk", "1999.1", "--schemas"]).arg(&schemas));
    assert!(!bad.status.success() && stderr(&bad).contains("no snapshot for SDK 1999.1"), "{}", stderr(&bad));
}

/// Every file under `dir`, by path relative to it.
fn tree(dir: &std::path::Path) -> std::collections::BTreeMap<std::path::PathBuf, Vec<u8>> {
    hkgen::inputs::walk(&[dir.to_path_buf()])
        .unwrap()
        .into_iter()
        .map(|f| (f.strip_prefix(dir).unwrap().to_path_buf(), std::fs::read(&f).unwrap()))
        .collect()
}

/// The README's main command, `hkgen extract --update`, run from the checkout on the default
/// inputs: into a folder of its own here (`--out`, which `--update` is short for), it gives the
/// committed `schemas/` byte for byte, so the command is a no-op on a fresh clone.
#[test]
fn the_readme_main_command_reproduces_the_committed_schemas() {
    let Some(corpus) = common::snapshot_corpus() else { return };
    let root = common::workspace_root();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(readme.contains("cargo run --release -- extract --update\n"), "the README's main command changed");
    let out = scratch("readme-extract");
    let run = common::run(hkgen().args(["extract", "--out"]).arg(&out).current_dir(&root).env("HKGEN_CORPUS", &corpus));
    assert!(run.status.success(), "{}", stderr(&run));
    // `schemas/migrations/` holds the SDK conversion's rules, written by hand with their evidence
    // (hkgen::convert): no extraction makes them, and none removes them.
    let mut committed = tree(&root.join("schemas"));
    committed.retain(|k, _| !k.starts_with("migrations"));
    let fresh = tree(&out);
    let differ: Vec<_> = fresh.keys().chain(committed.keys()).filter(|k| fresh.get(*k) != committed.get(*k)).collect();
    assert!(
        differ.is_empty(),
        "{} files differ from schemas/, e.g. {:?} (the fresh ones are in {})",
        differ.len(),
        &differ[..differ.len().min(5)],
        out.display()
    );
    std::fs::remove_dir_all(&out).unwrap();
    // `--update` is accepted; on an input that is not there it writes nothing.
    let bad = common::run(hkgen().args(["extract", "--update", "/nonexistent/hkgen-input"]).current_dir(out.parent().unwrap()));
    assert!(!bad.status.success() && stderr(&bad).contains("/nonexistent/hkgen-input"), "{}", stderr(&bad));
    assert!(!out.parent().unwrap().join("schemas").exists());
}

/// `verify` without inputs reads the corpus and the class data beside it: the class data files
/// that are not Havok files (JSON, TSV, RON) are passed over as in a walk, not failed as named.
#[test]
fn verify_of_the_default_inputs_passes_over_the_class_data() {
    let Some(corpus) = common::snapshot_corpus() else { return };
    let root = common::workspace_root();
    let out = common::run(hkgen().args(["verify", "--json"]).current_dir(&root).env("HKGEN_CORPUS", &corpus));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut class_data = 0;
    for line in stdout.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v["path"].as_str().unwrap().contains("classdata") && v["format"] == "other" {
            class_data += 1;
            assert_eq!(v["skipped"], true, "{line}");
        }
    }
    assert!(class_data > 0, "no class data file among the default inputs:\n{}", stderr(&out));
    assert!(stderr(&out).lines().last().unwrap().ends_with(" failed"), "{}", stderr(&out));
}

/// `convert` between packfile XML and binary: the output form from OUT's extension or `--to`;
/// serde-hkx's `defaultmale.xml` in Havok's object order under its binary's layout gives exactly
/// the binary Havok's packer made of it, and that binary to XML and back gives it again.
#[test]
fn convert_between_xml_and_binary() {
    let Some(corpus) = common::corpus() else { return };
    let Some(xml) = common::corpus_file(&corpus, "serde-hkx/defaultmale.xml") else { return };
    let Some(bin) = common::corpus_file(&corpus, "serde-hkx/defaultmale_x86.hkx") else { return };
    let dir = scratch("convert-xml");
    let schemas = common::workspace_root().join("schemas");
    std::fs::write(dir.join("defaultmale.xml"), &xml).unwrap();
    let out = common::run(hkgen().args(["convert", "--havok-order", "--layout", "4,1,0,1", "--schemas"]).arg(&schemas).arg(dir.join("defaultmale.xml")).arg(dir.join("out.hkx")));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(std::fs::read(dir.join("out.hkx")).unwrap() == bin, "XML -> binary is not Havok's bytes");
    // Binary -> XML (by extension) -> binary (by --to; the XML's layout is given again).
    let out = common::run(hkgen().args(["convert", "--schemas"]).arg(&schemas).arg(dir.join("out.hkx")).arg(dir.join("again.xml")));
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(dir.join("again.xml")).unwrap();
    assert!(text.starts_with("<?xml version=\"1.0\" encoding=\"ascii\"?>\n<hkpackfile classversion=\"8\" contentsversion=\"hk_2010.2.0-r1\" toplevelobject=\"#0001\">"), "{text}");
    let out = common::run(hkgen().args(["convert", "--to", "packfile", "--layout", "4,1,0,1", "--schemas"]).arg(&schemas).arg(dir.join("again.xml")).arg(dir.join("again.bin")));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(std::fs::read(dir.join("again.bin")).unwrap() == bin, "binary -> XML -> binary is not the same bytes");
    // Without --layout: the layout the XML's hkgen:container comment states.
    assert!(text.contains("<!-- hkgen:container "), "{text}");
    let out = common::run(hkgen().args(["convert", "--schemas"]).arg(&schemas).arg(dir.join("again.xml")).arg(dir.join("again2.hkx")));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(std::fs::read(dir.join("again2.hkx")).unwrap() == bin, "binary -> XML -> binary without --layout is not the same bytes");
    // Havok's six-decimal reals on request.
    let out = common::run(hkgen().args(["convert", "--floats", "havok", "--schemas"]).arg(&schemas).arg(dir.join("out.hkx")).arg(dir.join("havok.xml")));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(std::fs::read_to_string(dir.join("havok.xml")).unwrap().contains("<hkparam name=\"worldUpWS\">(0.000000 0.000000 1.000000 0.000000)</hkparam>"));
    // XML holds no layout.
    let out = common::run(hkgen().args(["convert", "--layout", "4,1,0,1", "--schemas"]).arg(&schemas).arg(dir.join("out.hkx")).arg(dir.join("x.xml")));
    assert!(!out.status.success());
    assert!(stderr(&out).contains("XML holds no layout"), "{}", stderr(&out));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `convert` of a directory: every Havok file under it to the form `--to` names, at the same
/// relative path under OUT (`a.hkx` -> `a.xml`, `a.hkrg` -> `a.hkrg.xml`, and back), with other
/// files passed over and counted; the round trip gives the same bytes; files that exist are left
/// alone unless `--force`; an OUT inside INPUT and a missing `--to` are refused.
#[test]
fn convert_a_directory_file_by_file() {
    let Some(corpus) = common::corpus() else { return };
    let files = [
        ("serde-hkx/defaultmale_x86.hkx", "male/defaultmale_x86.hkx", "male/defaultmale_x86.xml"),
        (
            "NiceneNerd__UKMM/crates/uk-content/test/Actor/Pack/Enemy_Moriblin_Junior.sbactorpack/Ragdoll/Moriblin_Blue/Moriblin_Blue.hkrg",
            "Moriblin_Blue.hkrg",
            "Moriblin_Blue.hkrg.xml",
        ),
        ("AriT000__midir-NR/chr/c6211.behbnd/Export/Characters/c6211.hkx", "c6211.hkx", "c6211.xml"),
    ];
    let dir = scratch("convert-dir");
    let (input, xml, back) = (dir.join("in"), dir.join("xml"), dir.join("back"));
    for (rel, name, _) in files {
        let Some(bytes) = common::corpus_file(&corpus, rel) else { return };
        std::fs::create_dir_all(input.join(name).parent().unwrap()).unwrap();
        std::fs::write(input.join(name), bytes).unwrap();
    }
    std::fs::write(input.join("notes.txt"), "not Havok").unwrap();
    std::fs::write(input.join("logo.png"), PNG).unwrap();

    let out = common::run(hkgen().args(["convert", "--to", "xml"]).arg(&input).arg(&xml));
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out).lines().last().unwrap(), "3 converted, 0 failed; passed over: 2 not Havok files", "{}", stderr(&out));
    for (_, _, xml_name) in files {
        let text = std::fs::read_to_string(xml.join(xml_name)).unwrap();
        assert!(text.contains("<hkpackfile ") || text.contains("<hktagfile "), "{xml_name}");
    }
    assert!(!xml.join("notes.txt").exists() && !xml.join("notes.txt.xml").exists());

    // Back to each file's binary form, under its first name, byte for byte.
    let out = common::run(hkgen().args(["convert", "--to", "binary"]).arg(&xml).arg(&back));
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out).lines().last().unwrap(), "3 converted, 0 failed", "{}", stderr(&out));
    for (_, name, _) in files {
        assert!(std::fs::read(back.join(name)).unwrap() == std::fs::read(input.join(name)).unwrap(), "{name} differs after XML");
    }

    // Again into the same OUT: every output exists, so every file fails and nothing is replaced.
    std::fs::write(xml.join("c6211.xml"), "mine").unwrap();
    let out = common::run(hkgen().args(["convert", "--to", "xml"]).arg(&input).arg(&xml));
    assert!(!out.status.success());
    assert!(stderr(&out).contains("c6211.xml exists; --force replaces it"), "{}", stderr(&out));
    assert_eq!(stderr(&out).lines().last().unwrap(), "0 converted, 3 failed; passed over: 2 not Havok files", "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(xml.join("c6211.xml")).unwrap(), "mine");
    let out = common::run(hkgen().args(["convert", "--force", "--to", "xml"]).arg(&input).arg(&xml));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(std::fs::read_to_string(xml.join("c6211.xml")).unwrap().contains("<hktagfile "));

    // Files already in the output form are passed over; a directory needs --to; OUT may not lie in INPUT.
    let out = common::run(hkgen().args(["convert", "--to", "binary"]).arg(&input).arg(dir.join("same")));
    assert!(!out.status.success());
    assert_eq!(stderr(&out).lines().nth_back(1).unwrap(), "0 converted, 0 failed; passed over: 3 already in the output form, 2 not Havok files", "{}", stderr(&out));
    let out = common::run(hkgen().arg("convert").arg(&input).arg(dir.join("x")));
    assert!(stderr(&out).contains("say the output form with --to"), "{}", stderr(&out));
    let out = common::run(hkgen().args(["convert", "--to", "xml"]).arg(&input).arg(input.join("sub")));
    assert!(stderr(&out).contains("must lie outside the input"), "{}", stderr(&out));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `convert` between TAG0 and hktagfile XML: by OUT's extension or `--to`, back to the same bytes,
/// and `verify` and `dump` read the XML.
#[test]
fn convert_between_tagfile_and_xml() {
    let Some(corpus) = common::corpus() else { return };
    let rel = "AriT000__midir-NR/chr/c6211.behbnd/Export/Characters/c6211.hkx";
    let Some(bytes) = common::corpus_file(&corpus, rel) else { return };
    let dir = scratch("convert-tagfile-xml");
    std::fs::write(dir.join("c6211.hkx"), &bytes).unwrap();
    let out = common::run(hkgen().arg("convert").arg(dir.join("c6211.hkx")).arg(dir.join("c6211.xml")));
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(dir.join("c6211.xml")).unwrap();
    assert!(text.starts_with("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<hktagfile version=\"3\" sdkversion=\"20180100\">"), "{}", &text[..200]);
    let out = common::run(hkgen().args(["convert", "--to", "tagfile"]).arg(dir.join("c6211.xml")).arg(dir.join("back.bin")));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(std::fs::read(dir.join("back.bin")).unwrap() == bytes, "TAG0 -> XML -> TAG0 differs");
    let out = common::run(hkgen().args(["verify", "--json"]).arg(dir.join("c6211.xml")));
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((v["format"].as_str(), v["sdk"].as_str(), v["ok"].as_bool()), (Some("xml"), Some("2018.1"), Some(true)), "{v}");
    let out = common::run(hkgen().args(["dump", "--format", "json"]).arg(dir.join("c6211.xml")));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("hkbCharacterData"));
    let out = common::run(hkgen().args(["convert", "--to", "packfile"]).arg(dir.join("c6211.xml")).arg(dir.join("x.hkx")));
    assert!(stderr(&out).contains("a tagfile converts to xml or tagfile, not packfile"), "{}", stderr(&out));
    std::fs::remove_dir_all(&dir).unwrap();
}
