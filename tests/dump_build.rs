//! `hkgen dump --format json|ron` and `hkgen build` over the corpus: every file that dumps goes
//! to the one dump shape (`hktypes::dump`) as JSON (and, for every tenth, as RON) and back to the
//! same bytes; and malformed dumps give errors that name their place in the dump.

mod common;

use hkgen::cli::{dump_text, parse_dump};
use hkgen::reflection::check::ClassSchemas;
use hkgen::reflection::sources::sdk_of_contents_version;
use hktypes::dump::{build, dump_packfile, dump_tagfile, dump_tagfile_with, BuildOptions, Dump};
use std::collections::BTreeMap;

fn schemas() -> ClassSchemas {
    ClassSchemas::load(&common::workspace_root().join("schemas")).unwrap()
}

/// A dump through its text and back, as `hkgen build` reads it.
fn rebuild(dump: &Dump, format: &str, options: &BuildOptions<'_>) -> Result<Vec<u8>, String> {
    let text = dump_text(format, dump)?;
    let back = parse_dump(text.as_bytes())?;
    if back != *dump {
        return Err(format!("the {format} text reads back as another dump"));
    }
    build(&back, options, text.len()).map_err(|e| e.to_string())
}

/// Every corpus packfile and TAG0 file dumps, and its dump builds back to the same bytes: JSON for
/// every file, RON for every tenth. TCM0 compendia hold types and no objects: they have no dump
/// to build (`hkgen dump` prints their ids and types).
#[test]
fn every_corpus_file_dumps_and_builds_back_to_the_same_bytes() {
    let Some(corpus) = common::corpus() else { return };
    let started = std::time::Instant::now();
    let entries = common::manifest(&corpus);
    let compendia = common::compendia(&entries);
    let schemas = schemas();
    // (format, sdk) -> [files, exact through JSON, of them through RON too]
    let mut per: BTreeMap<(String, String), [usize; 3]> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut k = 0;
    for e in entries
        .iter()
        .filter(|e| e.format == "packfile" || e.format == "tag0")
    {
        let Some(bytes) = common::corpus_file(&corpus, &e.relpath) else {
            continue;
        };
        let set = compendia.set_for(&e.path);
        let (dump, sources, enums) = if e.format == "packfile" {
            let f = hktypes::packfile::PackFile::read(&bytes).unwrap();
            let sdk = sdk_of_contents_version(&f.contents_version());
            let doc =
                hktypes::packfile::objects::PackfileDocument::from_file_with(f, &schemas.sources_for(&sdk))
                    .unwrap();
            (dump_packfile(&doc), schemas.sources_for(&sdk), Default::default())
        } else {
            // Enum members by item name where the compiled-in classes of the SDK know the items.
            let t = hktypes::tagfile::TagFile::read(&bytes, &set).unwrap();
            let enums = hkclasses::tagfile_enums_for_sdk(&t.sdk_version());
            (dump_tagfile_with(&t, &enums), Vec::new(), enums)
        };
        let n = per.entry((e.format.clone(), e.sdk.clone())).or_default();
        n[0] += 1;
        let dump = match dump {
            Ok(d) => d,
            Err(err) => {
                failures.push(format!("{}: does not dump: {err}", e.relpath));
                continue;
            }
        };
        let options = BuildOptions {
            compendia: Some(&set),
            packfile_classes: sources,
            tagfile_enums: enums,
        };
        match rebuild(&dump, "json", &options) {
            Ok(out) if out == bytes => n[1] += 1,
            Ok(out) => {
                let at = out
                    .iter()
                    .zip(&bytes)
                    .position(|(a, b)| a != b)
                    .unwrap_or(out.len().min(bytes.len()));
                failures.push(format!(
                    "{}: JSON build differs at {at:#x} ({} vs {} bytes)",
                    e.relpath,
                    out.len(),
                    bytes.len()
                ));
                continue;
            }
            Err(err) => {
                failures.push(format!("{}: JSON build: {err}", e.relpath));
                continue;
            }
        }
        k += 1;
        if k % 10 == 0 {
            match rebuild(&dump, "ron", &options) {
                Ok(out) if out == bytes => n[2] += 1,
                Ok(_) => failures.push(format!("{}: RON build differs", e.relpath)),
                Err(err) => failures.push(format!("{}: RON build: {err}", e.relpath)),
            }
        }
    }
    eprintln!(
        "dump -> build over the corpus: {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} files:\n{}",
        failures.len(),
        failures.join("\n")
    );
    let table: Vec<String> = per
        .iter()
        .map(|((f, s), [n, json, ron])| format!("{f} {s}: {n} {json} {ron}"))
        .collect();
    assert_eq!(
        table,
        [
            "packfile Havok-5.5.0-r1: 28 28 3",
            "packfile Havok-6.6.0-r1: 24 24 2",
            "packfile Havok-7.1.0-r1: 24 24 2",
            "packfile hk_2010.1.0-r1: 13 13 2",
            "packfile hk_2010.2.0-r1: 32 32 3",
            "packfile hk_2011.1.0-r1: 18 18 2",
            "packfile hk_2011.2.0-r1: 18 18 2",
            "packfile hk_2012.2.0-r1: 18 18 2",
            "packfile hk_2013.1.0-r1: 18 18 2",
            "packfile hk_2014.1.0-r1: 86 86 8",
            "packfile hk_2014.2.0-r1: 22 22 2",
            "tag0 20150100: 4 4 0",
            "tag0 20160200: 126 126 12",
            "tag0 20180100: 207 207 21",
            "tag0 20190100: 3 3 1",
        ],
        "format sdk: files, exact through JSON, exact through RON (every tenth file)"
    );
}

/// XML files dump as the binary file they give (`hkgen dump` reads XML as `convert` does), and
/// their dump builds that binary: the 23 `<hkpackfile>` XML files (one with its dangling pointer
/// read as null) and the one `<hktagfile>` file (HKLib's, its member-less types completed from
/// the compiled-in type tables).
#[test]
fn xml_files_dump_as_the_binary_they_give() {
    use hktypes::packfile::xml;
    let Some(corpus) = common::corpus() else { return };
    let schemas = schemas();
    let (mut exact, mut not_read) = (0, Vec::new());
    let entries = common::manifest(&corpus);
    for e in entries
        .iter()
        .filter(|e| e.format == "xml" || e.format == "xml-tagfile")
    {
        let Some(bytes) = common::corpus_file(&corpus, &e.relpath) else {
            continue;
        };
        if e.format == "xml-tagfile" {
            // HKLib's member-less types, completed from the compiled-in type tables.
            let types = |sdk: &str| hkclasses::tagfile_types_for_sdk(sdk);
            let none = Default::default();
            let tag0 = hktypes::tagfile::xml::read_with(&bytes, hkclasses::TAGFILE_SDKS, &types)
                .and_then(|x| x.write_tag0(&none))
                .unwrap();
            let dump = dump_tagfile(&hktypes::tagfile::TagFile::read(&tag0, &none).unwrap()).unwrap();
            let options = BuildOptions { compendia: None, packfile_classes: Vec::new(), ..Default::default() };
            assert!(rebuild(&dump, "json", &options).unwrap() == tag0, "{}", e.relpath);
            exact += 1;
            continue;
        }
        // hkxlib's Minotaur_character.xml: its pointer `1` names no object, read as null.
        let sdk = sdk_of_contents_version(&e.sdk);
        let options = xml::ReadOptions { dangling: xml::Dangling::Null, ..Default::default() };
        let read = xml::read(&bytes, &schemas.sources_for(&sdk), options).map(|doc| (doc, sdk));
        let (doc, sdk) = match read {
            Ok(d) => d,
            Err(err) => {
                not_read.push(format!(
                    "{}: {}",
                    e.relpath,
                    err.to_string().rsplit(": ").next().unwrap_or("")
                ));
                continue;
            }
        };
        let binary = doc.write().unwrap();
        let dump = dump_packfile(&doc).unwrap();
        let options = BuildOptions {
            compendia: None,
            packfile_classes: schemas.sources_for(&sdk),
            ..Default::default()
        };
        assert!(
            rebuild(&dump, "json", &options).unwrap() == binary,
            "{}",
            e.relpath
        );
        exact += 1;
    }
    assert_eq!(exact, 24);
    assert!(not_read.is_empty(), "{not_read:?}");
}

/// Dumps made wrong on purpose: each is an error that names its place in the dump, none panics,
/// and none allocates what its numbers claim.
#[test]
fn malformed_dumps_are_located_errors() {
    let Some(corpus) = common::corpus() else { return };
    let entries = common::manifest(&corpus);
    let schemas = schemas();
    // A BotW ragdoll: every object typed.
    let Some(pack) = common::corpus_file(&corpus, BOTW_RAGDOLL) else { return };
    let f = hktypes::packfile::PackFile::read(&pack).unwrap();
    let sdk = sdk_of_contents_version(&f.contents_version());
    let doc = hktypes::packfile::objects::PackfileDocument::from_file_with(f, &schemas.sources_for(&sdk))
        .unwrap();
    let pdump = dump_packfile(&doc).unwrap();
    let skeleton = entries
        .iter()
        .find(|e| e.relpath.ends_with("Skeleton.hkx") && e.format == "tag0")
        .expect("a tagfile skeleton");
    let Some(tag) = common::corpus_file(&corpus, &skeleton.relpath) else { return };
    let compendia = common::compendia(&entries);
    let set = compendia.set_for(&skeleton.path);
    let tdump = dump_tagfile(&hktypes::tagfile::TagFile::read(&tag, &set).unwrap()).unwrap();
    let popts = BuildOptions {
        compendia: None,
        packfile_classes: schemas.sources_for(&sdk),
        ..Default::default()
    };
    let topts = BuildOptions {
        compendia: Some(&set),
        packfile_classes: Vec::new(),
        ..Default::default()
    };

    // Edits of the JSON text: (what, dump, edit of its JSON value, what the error says).
    type Edit = fn(&mut serde_json::Value);
    let cases: [(&str, bool, Edit, &str); 11] = [
        ("wrong type", true, |v| v["objects"][2]["members"]["name"] = serde_json::json!(12), "objects[2] (handle 2, hkaSkeleton).name: an integer where a string belongs"),
        ("unknown class", true, |v| v["objects"][3]["class"] = serde_json::json!("hkpNoSuchBody"), "objects[3] (handle 3, hkpNoSuchBody): class \"hkpNoSuchBody\" is not in the container's __classnames__"),
        ("dangling handle", true, |v| v["objects"][0]["members"]["namedVariants"][0]["variant"] = serde_json::json!({"ref": 9999}), "objects[0] (handle 0, hkRootLevelContainer).namedVariants[0].variant: a pointer to handle 9999, which names no object"),
        ("unknown member", true, |v| v["objects"][2]["members"]["noSuchMember"] = serde_json::json!(1), "objects[2] (handle 2, hkaSkeleton): no member \"noSuchMember\""),
        ("number out of range", true, |v| v["objects"][2]["members"]["parentIndices"][1] = serde_json::json!(70000), "objects[2] (handle 2, hkaSkeleton).parentIndices[1]: 70000 is out of range"),
        ("fixup outside its object", true, |v| {
            let o = v["objects"][1].as_object_mut().unwrap();
            o.remove("members");
            o.insert("untyped".into(), serde_json::json!({"bytes": "00000000", "local": [[0, 4000000000u32]], "global": []}));
        }, "objects[1] (handle 1, hkaAnimationContainer).untyped.local[0]: a fixup (0, 4000000000) outside the object's 4 bytes"),
        ("pointer into no section", true, |v| v["objects"][0]["members"]["namedVariants"][0]["variant"] = serde_json::json!({"section": 77, "offset": 0}), "namedVariants[0].variant: a pointer to 0x0 in section 77, which the container does not hold"),
        (
            "tagfile missing member",
            false,
            |v| {
                v["objects"][0]["members"].as_object_mut().unwrap().remove("namedVariants");
            },
            "objects[0] (handle 1, hkRootLevelContainer): member \"namedVariants\" is missing",
        ),
        ("tagfile wrong type", false, |v| v["objects"][0]["members"]["namedVariants"] = serde_json::json!("x"), "objects[0] (handle 1, hkRootLevelContainer).namedVariants: a string where a value of hkArray"),
        ("tagfile dangling handle", false, |v| v["objects"][0]["members"]["namedVariants"][0]["variant"] = serde_json::json!({"ref": 4000000000u32}), "a pointer to handle 4000000000, which names no object"),
        ("tagfile unknown class", false, |v| v["objects"][1]["class"] = serde_json::json!("hkNoSuchClass"), ": unknown class \"hkNoSuchClass\""),
    ];
    for (what, is_pack, edit, want) in cases {
        let mut v = serde_json::to_value(if is_pack { &pdump } else { &tdump }).unwrap();
        edit(&mut v);
        let text = serde_json::to_string(&v).unwrap();
        let dump = parse_dump(text.as_bytes()).unwrap();
        let err = build(&dump, if is_pack { &popts } else { &topts }, text.len())
            .expect_err(what)
            .to_string();
        assert!(err.contains(want), "{what}: {err}");
    }
    // Huge counts: a list holds its elements, so a count is only ever a number the builder
    // checks; what a dump can claim without holding it is a type's size, and the item bytes it
    // asks for are bounded by the text's length.
    let mut v = serde_json::to_value(&tdump).unwrap();
    let types = v["kept"]["types"].as_array_mut().unwrap();
    let root = types
        .iter_mut()
        .find(|t| t["name"] == "hkRootLevelContainer")
        .unwrap();
    root["size"]["size"] = serde_json::json!(0x7fff_fff0u32);
    let text = serde_json::to_string(&v).unwrap();
    let err = build(&parse_dump(text.as_bytes()).unwrap(), &topts, text.len())
        .expect_err("a 2 GB object")
        .to_string();
    assert!(err.contains("objects[0] (handle 1, hkRootLevelContainer): more item bytes than the dump could describe"), "{err}");
    let mut v = serde_json::to_value(&tdump).unwrap();
    v["kept"]["types"] = serde_json::json!("not records");
    let err = parse_dump(serde_json::to_string(&v).unwrap().as_bytes())
        .expect_err("types that are no records");
    assert!(err.contains("JSON dump"), "{err}");
    let mut big = tdump.clone();
    big.objects[0].kept.ty = Some(u32::MAX);
    let err = build(&big, &topts, 100)
        .expect_err("a type index past the table")
        .to_string();
    assert!(
        err.contains("type index 4294967295 is not in the table"),
        "{err}"
    );
    // A tagfile dump that claims more bytes than its text could describe.
    let err = build(&tdump, &topts, 0)
        .map(|_| ())
        .err()
        .map(|e| e.to_string());
    assert_eq!(err, None, "1 MiB of slack holds a small skeleton");
    let err = parse_dump(b"{\"format\": \"tag0\", \"objects\": [").expect_err("cut JSON");
    assert!(err.contains("JSON dump") && err.contains("line 1"), "{err}");
    // Values nested past the parsers' limits: an error, not a stack overflow.
    let deep = |open: &str, close: &str| {
        format!(
            "{}{}{}{}",
            open,
            "[".repeat(200_000),
            "]".repeat(200_000),
            close
        )
    };
    let err = parse_dump(
        deep(
            "{\"format\": \"tag0\", \"objects\": [{\"members\": {\"m\": ",
            "}}]}",
        )
        .as_bytes(),
    )
    .expect_err("deep JSON");
    assert!(err.contains("recursion limit exceeded"), "{err}");
    let err = parse_dump(
        deep(
            "(format: \"tag0\", objects: [(members: Some({\"m\": ",
            "}))])",
        )
        .as_bytes(),
    )
    .expect_err("deep RON");
    assert!(err.contains("Exceeded recursion limit"), "{err}");
    let err = parse_dump(b"(format: 12)").expect_err("bad RON");
    assert!(err.contains("RON dump"), "{err}");
}

/// Mutated dumps: bytes of a tagfile's and a packfile's JSON dump changed at random (a
/// deterministic generator), each mutant read and built. None panics; each either fails with an
/// error or builds a file (a changed number, string or name that still fits).
#[test]
fn mutated_dumps_fail_cleanly() {
    let Some(corpus) = common::corpus() else { return };
    let entries = common::manifest(&corpus);
    let schemas = schemas();
    let Some(pack) = common::corpus_file(&corpus, BOTW_RAGDOLL) else { return };
    let f = hktypes::packfile::PackFile::read(&pack).unwrap();
    let sdk = sdk_of_contents_version(&f.contents_version());
    let doc = hktypes::packfile::objects::PackfileDocument::from_file_with(f, &schemas.sources_for(&sdk))
        .unwrap();
    let skeleton = entries
        .iter()
        .find(|e| e.relpath.ends_with("Skeleton.hkx") && e.format == "tag0")
        .expect("a tagfile skeleton");
    let Some(tag) = common::corpus_file(&corpus, &skeleton.relpath) else { return };
    let compendia = common::compendia(&entries);
    let set = compendia.set_for(&skeleton.path);
    let tdump = dump_tagfile(&hktypes::tagfile::TagFile::read(&tag, &set).unwrap()).unwrap();
    let pdump = dump_packfile(&doc).unwrap();
    let inputs = [
        (
            "tagfile",
            serde_json::to_string(&tdump).unwrap(),
            BuildOptions {
                compendia: Some(&set),
                packfile_classes: Vec::new(),
                ..Default::default()
            },
        ),
        (
            "packfile",
            serde_json::to_string(&pdump).unwrap(),
            BuildOptions {
                compendia: None,
                packfile_classes: schemas.sources_for(&sdk),
                ..Default::default()
            },
        ),
    ];
    const MUTANTS: usize = 400;
    const BYTES: &[u8] = b"{}[]\",:-.0123456789eEa9";
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    for (name, text, options) in &inputs {
        let (mut unread, mut refused, mut built) = (0, 0, 0);
        for _ in 0..MUTANTS {
            let mut m = text.clone().into_bytes();
            let at = next(m.len());
            match next(4) {
                0 => m[at] = BYTES[next(BYTES.len())],
                1 => {
                    m.remove(at);
                }
                2 => m
                    .splice(at..at, b"4294967295".iter().copied())
                    .for_each(drop),
                _ => m.splice(at..at, b"[[[[".iter().copied()).for_each(drop),
            }
            match parse_dump(&m) {
                Err(_) => unread += 1,
                Ok(d) => match build(&d, options, m.len()) {
                    Ok(_) => built += 1,
                    Err(e) => {
                        // Named by its place in the dump, or (a kept offset the writer cannot
                        // follow) by the object the writer was at.
                        let e = e.to_string();
                        assert!(e.contains("dump") || e.contains("object"), "{name}: {e}");
                        refused += 1;
                    }
                },
            }
        }
        let want = if *name == "tagfile" {
            [228, 18, 154]
        } else {
            [143, 195, 62]
        };
        assert_eq!(
            [unread, refused, built],
            want,
            "{name}: unread, refused, built of {MUTANTS}"
        );
    }
}

/// The commands: `dump --format json|ron --out` writes the dump and refuses to replace a file
/// without `--force`; `build` gives the file back, and refuses to replace OUT without `--force`;
/// a TCRF tagfile builds with its compendium; a dump that does not fit fails naming its place.
#[test]
fn dump_and_build_commands() {
    let Some(corpus) = common::corpus() else { return };
    let hkgen = || std::process::Command::new(env!("CARGO_BIN_EXE_hkgen"));
    let stderr = |o: &std::process::Output| String::from_utf8_lossy(&o.stderr).into_owned();
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("dump_build");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let entries = common::manifest(&corpus);
    let tcrf = entries
        .iter()
        .find(|e| {
            e.format == "tag0"
                && hktypes::tagfile::file::compendium_reference(&std::fs::read(&e.path).unwrap())
                    .ok()
                    .flatten()
                    .is_some()
        })
        .expect("a TCRF tagfile");
    let tcm0: Vec<&common::Entry> = entries.iter().filter(|e| e.format == "tcm0").collect();
    let Some(tcrf_bytes) = common::corpus_file(&corpus, &tcrf.relpath) else { return };
    let Some(pack) = common::corpus_file(&corpus, BOTW_RAGDOLL) else { return };
    for (name, input, original, format) in [
        ("tcrf", &tcrf.path, &tcrf_bytes, "ron"),
        ("ragdoll", &corpus.join(BOTW_RAGDOLL), &pack, "json"),
    ] {
        let text = dir.join(format!("{name}.{format}"));
        let out = dir.join(format!("{name}.bin"));
        let mut dump = hkgen();
        // The committed snapshots: a build without generated classes has none compiled in.
        dump.args(["dump", "--format", format, "--schemas"])
            .arg(common::workspace_root().join("schemas"))
            .arg("--out")
            .arg(&text)
            .arg(input);
        for c in &tcm0 {
            dump.arg("--compendium").arg(&c.path);
        }
        let first = common::run(&mut dump);
        assert!(first.status.success(), "{name}: {}", stderr(&first));
        let again = common::run(&mut dump);
        assert!(
            !again.status.success() && stderr(&again).contains("exists; --force replaces it"),
            "{name}: {}",
            stderr(&again)
        );
        let mut build = hkgen();
        build
            .args(["build", "--schemas"])
            .arg(common::workspace_root().join("schemas"))
            .arg(&text)
            .arg(&out);
        for c in &tcm0 {
            build.arg("--compendium").arg(&c.path);
        }
        let built = common::run(&mut build);
        assert!(built.status.success(), "{name}: {}", stderr(&built));
        assert!(
            std::fs::read(&out).unwrap() == *original,
            "{name}: dump -> build differs"
        );
        let again = common::run(&mut build);
        assert!(
            !again.status.success() && stderr(&again).contains("exists; --force replaces it"),
            "{name}: {}",
            stderr(&again)
        );
        let forced = common::run(build.arg("--force"));
        assert!(forced.status.success(), "{name}: {}", stderr(&forced));
    }
    // The TCRF dump without its compendium: far from any, it says how to give one.
    let alone = dir.join("alone");
    std::fs::create_dir_all(&alone).unwrap();
    std::fs::copy(dir.join("tcrf.ron"), alone.join("tcrf.ron")).unwrap();
    let out = common::run(
        hkgen()
            .arg("build")
            .arg(alone.join("tcrf.ron"))
            .arg(alone.join("x.bin")),
    );
    assert!(
        !out.status.success() && stderr(&out).contains("--compendium PATH"),
        "{}",
        stderr(&out)
    );
    // A dump with a member of the wrong kind.
    let text = std::fs::read_to_string(dir.join("ragdoll.json"))
        .unwrap()
        .replacen("\"model_skeleton\"", "12", 1);
    std::fs::write(dir.join("bad.json"), text).unwrap();
    let out = common::run(
        hkgen()
            .args(["build", "--schemas"])
            .arg(common::workspace_root().join("schemas"))
            .arg(dir.join("bad.json"))
            .arg(dir.join("bad.bin")),
    );
    assert!(!out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out).trim(), format!("hkgen: {}: dump objects[2] (handle 2, hkaSkeleton).name: an integer where a string belongs", dir.join("bad.json").display()));
    assert!(!dir.join("bad.bin").exists());
}

const BOTW_RAGDOLL: &str =
    "NiceneNerd__UKMM/uk-mod/test/wiiu/content/Actor/Pack/Enemy_Moriblin_Dark.sbactorpack/Ragdoll/Moriblin_Blue/Moriblin_Blue.hkrg";
