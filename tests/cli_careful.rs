//! Issue 37, the command line: each case a new modder met, tried again with the binary run from a
//! folder of their own (under the system's temporary folder, outside the checkout, where no
//! `./schemas` is).
//!
//! - writes: an existing output is replaced only with `--force`, an input never, no folder is
//!   made without `--parents`;
//! - one set of defaults: `verify` reads with the compiled-in classes, `--schemas` must exist,
//!   a TCRF file stays TCRF through XML and back (or the missing compendium is named),
//!   `<hkpackfile>` XML without a layout note needs `--layout`, extension case is kept;
//! - `verify --semantic`: every invariant broken once on a corpus skeleton and animation, each
//!   failure located;
//! - `diff A B` of two files; `schema-diff` of snapshots; `--help` groups the commands.

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A skeleton of Elden Ring (TAG0 2018.1, its own `TYPE`).
const SKELETON: &str = "Axelph237__mod/chr/c2110.anibnd/c2110/hkx/skeleton.hkx";
/// The same kind of file under an upper-case extension.
const SKELETON_UPPER: &str = "Axelph237__mod/chr/c3010.anibnd/c3010/hkx/skeleton.HKX";
/// An Elden Ring animation that names its compendium (TCRF), and the compendium.
const TCRF_ANIM: &str = "Axelph237__mod/chr/c2031.anibnd/c2031/hkx_compendium/a000_003005.hkx";
const COMPENDIUM: &str = "Axelph237__mod/chr/c2031.anibnd/c2031/hkx_compendium/c2031.compendium";
/// A BotW Wii U ragdoll (packfile 2014.2).
const PACKFILE: &str =
    "NiceneNerd__UKMM/uk-mod/test/wiiu/content/Actor/Pack/Enemy_Moriblin_Dark.sbactorpack/Ragdoll/Moriblin_Blue/Moriblin_Blue.hkrg";
/// `<hkpackfile>` XML of Skyrim (2010.2) without hkgen's layout note.
const XML_NO_NOTE: &str = "hkxlib/skeleton.xml";

fn hkgen(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_hkgen"));
    c.current_dir(dir);
    c
}

/// A fresh folder outside the checkout, nested so that the compendium search beside a file
/// (its folder and the two above) stays inside it.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hkgen-careful-{}", std::process::id())).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    let deep = dir.join("mods").join("work");
    std::fs::create_dir_all(&deep).unwrap();
    deep
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Copies a corpus file into `dir` under `name`; `None` when the corpus lacks it.
fn copy(corpus: &Path, rel: &str, dir: &Path, name: &str) -> Option<PathBuf> {
    let bytes = common::corpus_file(corpus, rel)?;
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    Some(p)
}

#[test]
fn writes_refuse_an_existing_output_an_input_and_a_missing_folder() {
    let Some(corpus) = common::corpus() else { return };
    let dir = scratch("writes");
    let Some(input) = copy(&corpus, PACKFILE, &dir, "a.hkrg") else { return }; // not-a-skip: copy() reads through common::corpus_file
    // An existing output: refused, untouched; --force replaces it.
    let precious = dir.join("precious.xml");
    std::fs::write(&precious, "mine").unwrap();
    let o = hkgen(&dir).args(["convert", "a.hkrg", "precious.xml"]).output().unwrap();
    assert!(!o.status.success());
    assert!(err(&o).contains("precious.xml exists; --force replaces it"), "{}", err(&o));
    assert_eq!(std::fs::read_to_string(&precious).unwrap(), "mine");
    let o = hkgen(&dir).args(["convert", "--force", "a.hkrg", "precious.xml"]).output().unwrap();
    assert!(o.status.success(), "{}", err(&o));
    assert!(std::fs::read_to_string(&precious).unwrap().contains("<hkpackfile"));
    // Its own input: refused even with --force, under another spelling of the same path.
    let before = std::fs::read(&input).unwrap();
    for target in ["a.hkrg", "./a.hkrg", "../work/a.hkrg"] {
        let o = hkgen(&dir).args(["convert", "--force", "--layout", "8,1,1,1", "a.hkrg", target]).output().unwrap();
        assert!(!o.status.success(), "{target}");
        assert!(err(&o).contains("never writes over its own input"), "{target}: {}", err(&o));
    }
    assert!(std::fs::read(&input).unwrap() == before);
    // A missing folder: refused, nothing made; --parents makes it.
    let o = hkgen(&dir).args(["convert", "a.hkrg", "new/dir/a.xml"]).output().unwrap();
    assert!(!o.status.success());
    assert!(err(&o).contains("does not exist; --parents creates it"), "{}", err(&o));
    assert!(!dir.join("new").exists());
    let o = hkgen(&dir).args(["convert", "--parents", "a.hkrg", "new/dir/a.xml"]).output().unwrap();
    assert!(o.status.success(), "{}", err(&o));
    assert!(dir.join("new/dir/a.xml").is_file());
    // dump --out and build say it the same way.
    let o = hkgen(&dir).args(["dump", "--format", "json", "--out", "precious.xml", "a.hkrg"]).output().unwrap();
    assert!(!o.status.success() && err(&o).contains("precious.xml exists; --force replaces it"), "{}", err(&o));
    let o = hkgen(&dir).args(["dump", "--format", "json", "--out", "a.json", "a.hkrg"]).output().unwrap();
    assert!(o.status.success(), "{}", err(&o));
    let o = hkgen(&dir).args(["build", "a.json", "precious.xml"]).output().unwrap();
    assert!(!o.status.success() && err(&o).contains("precious.xml exists; --force replaces it"), "{}", err(&o));
    let o = hkgen(&dir).args(["build", "--force", "a.json", "a.json"]).output().unwrap();
    assert!(!o.status.success() && err(&o).contains("never writes over its own input"), "{}", err(&o));
    let o = hkgen(&dir).args(["build", "a.json", "b.hkrg"]).output().unwrap();
    assert!(o.status.success(), "{}", err(&o));
    assert!(std::fs::read(dir.join("b.hkrg")).unwrap() == before);
    // No temporary file is left beside the outputs.
    let names: Vec<String> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
    // codegen --out and stubs --out too.
    let schemas = common::workspace_root().join("schemas");
    let o = hkgen(&dir).args(["codegen", "--sdk", "2014.2", "--out", "precious.xml", "--schemas"]).arg(&schemas).output().unwrap();
    assert!(!o.status.success() && err(&o).contains("precious.xml exists; --force replaces it"), "{}", err(&o));
    let o = hkgen(&dir).args(["stubs", "--sdk", "2014.2", "--out", "new/dir", "--schemas"]).arg(&schemas).output().unwrap();
    assert!(!o.status.success() && err(&o).contains("holds files; --force writes into it"), "{}", err(&o));
}

#[test]
fn verify_outside_the_checkout_reads_with_the_compiled_classes() {
    let Some(corpus) = common::corpus() else { return };
    let dir = scratch("verify-defaults");
    let Some(_) = copy(&corpus, PACKFILE, &dir, "a.hkrg") else { return }; // not-a-skip: copy() reads through common::corpus_file
    let Some(_) = copy(&corpus, XML_NO_NOTE, &dir, "skeleton.xml") else { return }; // not-a-skip: copy() reads through common::corpus_file
    let o = hkgen(&dir).args(["verify", "--json", "a.hkrg", "skeleton.xml"]).output().unwrap();
    assert!(o.status.success(), "{}{}", out(&o), err(&o));
    let lines: Vec<Value> = out(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let pack = &lines[0];
    assert_eq!(pack["signatures_checked"], true, "{pack}");
    assert_eq!(pack["untyped"], 0, "{pack}");
    assert!(pack["typed"].as_u64().unwrap() > 0, "{pack}");
    assert_eq!(pack["signatures_matched"], pack["signatures_stored"], "{pack}");
    assert_eq!(lines[1]["ok"], true, "the XML reads with the compiled classes: {}", lines[1]);
    // A --schemas that is not there is an error, not a quiet fallback.
    let o = hkgen(&dir).args(["verify", "--schemas", "/nonexistent/schemas", "a.hkrg"]).output().unwrap();
    assert!(!o.status.success());
    assert!(err(&o).contains("--schemas /nonexistent/schemas: no such folder"), "{}", err(&o));
    for cmd in [&["dump"][..], &["convert", "a.hkrg", "x.xml"][..]] {
        let mut c = hkgen(&dir);
        c.args(cmd).args(["--schemas", "/nonexistent/schemas"]);
        if cmd.len() == 1 {
            c.arg("a.hkrg");
        }
        let o = c.output().unwrap();
        assert!(!o.status.success() && err(&o).contains("no such folder"), "{cmd:?}: {}", err(&o));
    }
}

#[test]
fn a_tcrf_file_stays_tcrf_through_xml_or_the_compendium_is_named() {
    let Some(corpus) = common::corpus() else { return };
    let dir = scratch("tcrf");
    let input = dir.join("anims");
    std::fs::create_dir_all(&input).unwrap();
    let Some(anim) = copy(&corpus, TCRF_ANIM, &input, "a000_003005.hkx") else { return }; // not-a-skip: copy() reads through common::corpus_file
    let Some(_) = copy(&corpus, COMPENDIUM, &input, "c2031.compendium") else { return }; // not-a-skip: copy() reads through common::corpus_file
    let original = std::fs::read(&anim).unwrap();
    let id = hktypes::tagfile::file::compendium_reference(&original).unwrap().unwrap().to_string();
    // The XML goes where no compendium is near (the search beside a file looks in its folder and
    // the two above).
    std::fs::create_dir_all(dir.join("far/a/b")).unwrap();
    let o = hkgen(&dir).args(["convert", "--to", "xml", "anims", "far/a/b/xml"]).output().unwrap();
    assert!(o.status.success(), "{}", err(&o));
    // The XML folder holds no compendium: the way back names it instead of writing the file
    // self-contained.
    let o = hkgen(&dir).args(["convert", "--to", "binary", "far/a/b/xml", "far/a/b/back"]).output().unwrap();
    assert!(!o.status.success());
    assert!(err(&o).contains(&format!("its types are in the compendium {id}")) && err(&o).contains("--compendium PATH"), "{}", err(&o));
    assert!(err(&o).contains("0 converted, 1 failed"), "{}", err(&o));
    assert!(!dir.join("far/a/b/back/a000_003005.hkx").exists());
    let o = hkgen(&dir).args(["convert", "--to", "binary", "--compendium", "anims", "far/a/b/xml", "back2"]).output().unwrap();
    assert!(o.status.success(), "{}", err(&o));
    let back = std::fs::read(dir.join("back2/a000_003005.hkx")).unwrap();
    assert_eq!(back.len(), original.len());
    assert!(back == original, "TCRF -> XML -> TCRF differs");
    // Beside its compendium, a file finds it; one alone: dump and verify name the compendium.
    let o = hkgen(&dir).args(["verify", "anims/a000_003005.hkx"]).output().unwrap();
    assert!(o.status.success(), "{}{}", out(&o), err(&o));
    let alone = dir.join("far/a/b/alone.hkx");
    std::fs::write(&alone, &original).unwrap();
    for cmd in ["dump", "verify"] {
        let o = hkgen(&dir).args([cmd, "far/a/b/alone.hkx"]).output().unwrap();
        assert!(!o.status.success(), "{cmd}");
        let text = format!("{}{}", out(&o), err(&o));
        assert!(text.contains(&id) && text.contains("--compendium PATH"), "{cmd}: {text}");
    }
    let o = hkgen(&dir).args(["verify", "--compendium", "anims/c2031.compendium", "far/a/b/alone.hkx"]).output().unwrap();
    assert!(o.status.success(), "{}{}", out(&o), err(&o));
}

#[test]
fn packfile_xml_without_a_layout_note_needs_a_layout_and_extension_case_is_kept() {
    let Some(corpus) = common::corpus() else { return };
    let dir = scratch("layout");
    let Some(_) = copy(&corpus, XML_NO_NOTE, &dir, "skeleton.xml") else { return }; // not-a-skip: copy() reads through common::corpus_file
    let o = hkgen(&dir).args(["convert", "skeleton.xml", "skeleton.hkx"]).output().unwrap();
    assert!(!o.status.success());
    assert!(err(&o).contains("states no binary layout") && err(&o).contains("--layout 4,1,0,1"), "{}", err(&o));
    assert!(!dir.join("skeleton.hkx").exists());
    let o = hkgen(&dir).args(["convert", "--layout", "4,1,0,1", "skeleton.xml", "skeleton.hkx"]).output().unwrap();
    assert!(o.status.success(), "{}", err(&o));
    let bytes = std::fs::read(dir.join("skeleton.hkx")).unwrap();
    assert_eq!(hktypes::packfile::PackFile::read(&bytes).unwrap().layout().to_string(), "4,1,0,1");

    // skeleton.HKX -> skeleton.XML -> skeleton.HKX in a directory conversion.
    let input = dir.join("in");
    std::fs::create_dir_all(&input).unwrap();
    let Some(upper) = copy(&corpus, SKELETON_UPPER, &input, "skeleton.HKX") else { return }; // not-a-skip: copy() reads through common::corpus_file
    let o = hkgen(&dir).args(["convert", "--to", "xml", "in", "xml"]).output().unwrap();
    assert!(o.status.success(), "{}", err(&o));
    assert!(dir.join("xml/skeleton.XML").is_file(), "{:?}", std::fs::read_dir(dir.join("xml")).unwrap().collect::<Vec<_>>());
    let o = hkgen(&dir).args(["convert", "--to", "binary", "xml", "back"]).output().unwrap();
    assert!(o.status.success(), "{}", err(&o));
    assert!(std::fs::read(dir.join("back/skeleton.HKX")).unwrap() == std::fs::read(&upper).unwrap());
}

/// The dump of `SKELETON` as JSON, edited by `edit`, built into `name` and verified.
fn broken(dir: &Path, name: &str, edit: impl Fn(&mut Value)) -> Output {
    let o = hkgen(dir).args(["dump", "--format", "json", "skeleton.hkx"]).output().unwrap();
    assert!(o.status.success(), "{}", err(&o));
    let mut v: Value = serde_json::from_slice(&o.stdout).unwrap();
    edit(&mut v);
    let json = dir.join(format!("{name}.json"));
    std::fs::write(&json, serde_json::to_vec(&v).unwrap()).unwrap();
    let o = hkgen(dir).arg("build").arg(&json).arg(format!("{name}.hkx")).output().unwrap();
    assert!(o.status.success(), "{name}: {}", err(&o));
    hkgen(dir).args(["verify", &format!("{name}.hkx")]).output().unwrap()
}

/// The skeleton object of a dump, with its handle.
fn skeleton(v: &mut Value) -> (u64, &mut serde_json::Map<String, Value>) {
    let o = v["objects"].as_array_mut().unwrap().iter_mut().find(|o| o["class"] == "hkaSkeleton").unwrap();
    let h = o["handle"].as_u64().unwrap();
    (h, o["members"].as_object_mut().unwrap())
}

#[test]
fn semantic_checks_locate_each_broken_invariant_of_a_skeleton() {
    let Some(corpus) = common::corpus() else { return };
    let dir = scratch("semantic");
    let Some(_) = copy(&corpus, SKELETON, &dir, "skeleton.hkx") else { return }; // not-a-skip: copy() reads through common::corpus_file
    let o = hkgen(&dir).args(["verify", "--json", "skeleton.hkx"]).output().unwrap();
    assert!(o.status.success(), "{}{}", out(&o), err(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["semantic_checks"].as_u64().unwrap() >= 5, "{v}");

    let mut dump: Value = serde_json::from_slice(&hkgen(&dir).args(["dump", "--format", "json", "skeleton.hkx"]).output().unwrap().stdout).unwrap();
    let (h, m) = skeleton(&mut dump);
    let bones = m["bones"].as_array().unwrap().len();
    let last = bones - 1;

    let o = broken(&dir, "past", |v| {
        let (_, m) = skeleton(v);
        m.get_mut("parentIndices").unwrap()[last] = 999.into();
    });
    assert!(!o.status.success());
    let want = format!("object #{h} hkaSkeleton.parentIndices[{last}]: 999, past the {bones} bones");
    assert!(out(&o).contains(&want), "{want} in {}", out(&o));
    // The same file passes with --no-semantic: the byte-level checks hold.
    let o = hkgen(&dir).args(["verify", "--no-semantic", "past.hkx"]).output().unwrap();
    assert!(o.status.success(), "{}", out(&o));

    let o = broken(&dir, "short", |v| {
        let (_, m) = skeleton(v);
        m.get_mut("parentIndices").unwrap().as_array_mut().unwrap().pop();
    });
    let want = format!("object #{h} hkaSkeleton.parentIndices: {last} entries, for {bones} bones (bones)");
    assert!(!o.status.success() && out(&o).contains(&want), "{want} in {}", out(&o));

    let o = broken(&dir, "pose", |v| {
        let (_, m) = skeleton(v);
        m.get_mut("referencePose").unwrap().as_array_mut().unwrap().pop();
    });
    let want = format!("object #{h} hkaSkeleton.referencePose: {last} entries, for {bones} bones (bones)");
    assert!(!o.status.success() && out(&o).contains(&want), "{want} in {}", out(&o));

    let o = broken(&dir, "order", |v| {
        let (_, m) = skeleton(v);
        m.get_mut("parentIndices").unwrap()[1] = (last as i64).into();
    });
    let want = format!("object #{h} hkaSkeleton.parentIndices[1]: {last}, a parent after its child (bone 1)");
    assert!(!o.status.success() && out(&o).contains(&want), "{want} in {}", out(&o));

    let o = broken(&dir, "quat", |v| {
        let (_, m) = skeleton(v);
        // The dump gives an hkQsTransform as its twelve reals: translation, rotation, scale.
        let pose = m.get_mut("referencePose").unwrap()[0].as_array_mut().unwrap();
        for (c, x) in [0.0, 0.0, 0.0, 0.5].into_iter().enumerate() {
            pose[4 + c] = serde_json::json!(x);
        }
    });
    let want = format!("object #{h} hkaSkeleton.referencePose[0].rotation: (0, 0, 0, 0.5) of length 0.5, not a rotation (1 within 0.001)");
    assert!(!o.status.success() && out(&o).contains(&want), "{want} in {}", out(&o));

    let o = broken(&dir, "floats", |v| {
        let (_, m) = skeleton(v);
        m.insert("referenceFloats".to_owned(), serde_json::json!([1.0]));
    });
    let slots = m["floatSlots"].as_array().map_or(0, Vec::len);
    let want = format!("object #{h} hkaSkeleton.referenceFloats: 1 entries, for {slots} float slots (floatSlots)");
    if slots != 1 {
        assert!(!o.status.success() && out(&o).contains(&want), "{want} in {}", out(&o));
    }
}

#[test]
fn semantic_checks_compare_a_binding_with_its_animation() {
    let Some(corpus) = common::corpus() else { return };
    let dir = scratch("semantic-binding");
    let Some(_) = copy(&corpus, TCRF_ANIM, &dir, "anim.hkx") else { return }; // not-a-skip: copy() reads through common::corpus_file
    let Some(_) = copy(&corpus, COMPENDIUM, &dir, "c2031.compendium") else { return }; // not-a-skip: copy() reads through common::corpus_file
    let o = hkgen(&dir).args(["dump", "--format", "json", "anim.hkx"]).output().unwrap();
    assert!(o.status.success(), "{}", err(&o));
    let mut v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let objects = v["objects"].as_array_mut().unwrap();
    let binding = objects.iter_mut().find(|o| o["class"] == "hkaAnimationBinding").unwrap();
    let h = binding["handle"].as_u64().unwrap();
    let tracks = binding["members"]["transformTrackToBoneIndices"].as_array_mut().unwrap();
    let n = tracks.len();
    assert!(n > 1, "the binding maps its tracks");
    tracks.pop();
    std::fs::write(dir.join("anim.json"), serde_json::to_vec(&v).unwrap()).unwrap();
    let o = hkgen(&dir).args(["build", "anim.json", "broken.hkx"]).output().unwrap();
    assert!(o.status.success(), "{}", err(&o));
    let o = hkgen(&dir).args(["verify", "broken.hkx"]).output().unwrap();
    assert!(!o.status.success());
    let want = format!("object #{h} hkaAnimationBinding.transformTrackToBoneIndices: {} entries, but its animation (object #", n - 1);
    assert!(out(&o).contains(&want) && out(&o).contains(&format!("has {n} transform tracks")), "{want} in {}", out(&o));
}

#[test]
fn diff_of_two_files_by_object_and_member() {
    let Some(corpus) = common::corpus() else { return };
    let dir = scratch("diff");
    let Some(_) = copy(&corpus, SKELETON, &dir, "skeleton.hkx") else { return }; // not-a-skip: copy() reads through common::corpus_file
    let o = hkgen(&dir).args(["dump", "--format", "json", "skeleton.hkx"]).output().unwrap();
    let mut v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let (h, m) = skeleton(&mut v);
    let old = m["parentIndices"][2].clone();
    m.get_mut("parentIndices").unwrap()[2] = 0.into();
    std::fs::write(dir.join("b.json"), serde_json::to_vec(&v).unwrap()).unwrap();
    assert!(hkgen(&dir).args(["build", "b.json", "b.hkx"]).output().unwrap().status.success());
    // The same file, and the file against its XML: exit 0.
    let o = hkgen(&dir).args(["diff", "skeleton.hkx", "skeleton.hkx"]).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(hkgen(&dir).args(["convert", "skeleton.hkx", "skeleton.xml"]).output().unwrap().status.success());
    let o = hkgen(&dir).args(["diff", "skeleton.hkx", "skeleton.xml"]).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}{}", out(&o), err(&o));
    // A changed value: exit 1, located, old and new.
    let o = hkgen(&dir).args(["diff", "skeleton.hkx", "b.hkx"]).output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    let text = out(&o);
    assert!(text.contains(&format!("~ hkaSkeleton at root.")) && text.contains(&format!("(#{h})")), "{text}");
    assert!(text.contains(&format!("    parentIndices[2]: {old} -> 0\n")), "{text}");
    let o = hkgen(&dir).args(["diff", "--format", "json", "skeleton.hkx", "b.hkx"]).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let d: Value = serde_json::from_slice(&o.stdout).unwrap();
    let changes = d["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{d}");
    assert_eq!((changes[0]["path"].as_str(), &changes[0]["old"], &changes[0]["new"]), (Some("parentIndices[2]"), &old, &Value::from(0)));
    // An error: exit 2.
    let o = hkgen(&dir).args(["diff", "skeleton.hkx", "missing.hkx"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    // Snapshots compare under their own name.
    let schemas = common::workspace_root().join("schemas");
    let o = hkgen(&dir).arg("schema-diff").arg(schemas.join("2016.2")).arg(schemas.join("2018.1")).output().unwrap();
    assert!(o.status.success(), "{}", err(&o));
}

#[test]
fn help_groups_the_commands_and_the_flags_say_the_same() {
    let dir = scratch("help");
    let o = hkgen(&dir).arg("--help").output().unwrap();
    let text = out(&o);
    let user = text.find("Commands for your files:").expect("user group");
    let tool = text.find("Schema tool").expect("schema tool group");
    assert!(user < tool, "{text}");
    for c in ["verify", "dump", "build", "convert", "diff"] {
        let at = text.find(&format!("\n  {c} ")).unwrap_or_else(|| panic!("{c} in {text}"));
        assert!(at > user && at < tool, "{c} among the user commands: {text}");
    }
    for c in ["extract", "codegen", "stubs", "schema-diff"] {
        let at = text.find(&format!("\n  {c} ")).unwrap_or_else(|| panic!("{c} in {text}"));
        assert!(at > tool, "{c} among the schema tool's: {text}");
    }
    // --force, --parents, --compendium and --schemas read the same in every command that has them.
    let help = |c: &str| out(&hkgen(&dir).args([c, "--help"]).output().unwrap());
    // An option's block: its line and the indented lines after it, up to the next option.
    let line = |text: &str, flag: &str| -> Option<String> {
        let lines: Vec<&str> = text.lines().collect();
        let start = lines.iter().position(|l| l.trim_start().starts_with(&format!("{flag} ")) || l.trim() == flag)?;
        let end = lines[start + 1..].iter().position(|l| l.trim_start().starts_with('-')).map_or(lines.len(), |e| start + 1 + e);
        Some(lines[start..end].join(" ").split_whitespace().collect::<Vec<_>>().join(" "))
    };
    for flag in ["--force", "--parents", "--compendium", "--schemas"] {
        let seen: std::collections::BTreeSet<String> =
            ["verify", "dump", "build", "convert", "diff"].iter().filter_map(|c| line(&help(c), flag)).collect();
        assert!(seen.len() <= 1, "{flag}: {seen:#?}");
    }
}
