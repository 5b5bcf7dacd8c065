//! The `hkgen` binary on corpus files: `verify --json` lines, the closing count line, `dump`.

mod common;

use std::process::Command;

fn hkgen() -> Command {
    Command::new(env!("CARGO_BIN_EXE_hkgen"))
}

#[test]
fn verify_reports_every_corpus_tagfile_as_exact() {
    let Some(corpus) = common::corpus() else { return };
    let out = common::run(hkgen().arg("verify").arg("--json").arg("--schemas").arg(common::workspace_root().join("schemas")).arg(&corpus));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let tag0 = common::manifest(&corpus).iter().filter(|e| e.format == "tag0").count();
    let (mut exact, mut passed, mut failed) = (0, 0, 0);
    for line in stdout.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        for key in ["path", "format", "sdk", "types", "hashes_stored", "hashes_matched", "ok", "error"] {
            assert!(v.get(key).is_some(), "{key} missing in {line}");
        }
        if v["format"] == "tag0" {
            assert_eq!(v["roundtrip"], "exact", "{line}");
            assert_eq!(v["typed_roundtrip"], "exact", "{line}");
            assert_eq!(v["hashes_stored"], v["hashes_matched"], "{line}");
            assert_eq!(v["dynamic"], 0, "every corpus object reads typed: {line}");
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
    assert_eq!(stderr.lines().last().unwrap(), format!("{passed} passed, {failed} failed"));
    assert_eq!(out.status.success(), failed == 0);
}

#[test]
fn verify_fails_on_a_missing_compendium_and_names_it() {
    let Some(corpus) = common::corpus() else { return };
    let e = common::manifest(&corpus)
        .into_iter()
        .find(|e| e.format == "tag0" && hktypes::tagfile::file::compendium_reference(&std::fs::read(&e.path).unwrap()).unwrap().is_some())
        .unwrap();
    let id = hktypes::tagfile::file::compendium_reference(&std::fs::read(&e.path).unwrap()).unwrap().unwrap();
    let out = common::run(hkgen().args(["verify", "--json"]).arg(&e.path));
    assert!(!out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    assert_eq!(v["ok"], false);
    assert!(v["error"].as_str().unwrap().contains(&id.to_string()), "{stdout}");
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().last().unwrap(), "0 passed, 1 failed");
    // With the compendium given, it passes.
    let out = common::run(hkgen().args(["verify", "--compendium"]).arg(&corpus).arg(&e.path));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn dump_prints_the_object_tree_in_both_formats() {
    let Some(corpus) = common::corpus() else { return };
    let e = common::manifest(&corpus).into_iter().find(|e| e.relpath.ends_with("Skeleton.hkx") && e.format == "tag0").unwrap();
    let json = common::run(hkgen().args(["dump", "--format", "json"]).arg(&e.path));
    assert!(json.status.success(), "{}", String::from_utf8_lossy(&json.stderr));
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v[0]["id"], "#1");
    assert_eq!(v[0]["type"], "hkRootLevelContainer");
    let skeleton = v.as_array().unwrap().iter().find(|o| o["type"] == "hkaSkeleton").expect("a skeleton");
    assert!(skeleton["value"]["bones"].as_array().unwrap().len() > 1);
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
