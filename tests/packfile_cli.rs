//! The `hkgen` binary on packfiles: `verify --json` round trips through the objects, `dump`
//! prints the objects, `convert --layout` writes another platform's file.

mod common;

use std::process::Command;

fn hkgen() -> Command {
    Command::new(env!("CARGO_BIN_EXE_hkgen"))
}

const WIIU: &str = "NiceneNerd__UKMM/uk-mod/test/wiiu/content/Actor/Pack/Enemy_Moriblin_Dark.sbactorpack/Ragdoll/Moriblin_Blue/Moriblin_Blue.hkrg";
const SWITCH: &str = "NiceneNerd__UKMM/crates/uk-content/test/Actor/Pack/Enemy_Moriblin_Junior.sbactorpack/Ragdoll/Moriblin_Blue/Moriblin_Blue.hkrg";

#[test]
fn verify_round_trips_every_packfile_through_its_objects() {
    let Some(corpus) = common::corpus() else { return };
    let schemas = common::workspace_root().join("schemas");
    let out = common::run(hkgen().arg("verify").arg("--json").arg("--schemas").arg(&schemas).arg(&corpus));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut packfiles = 0;
    for line in stdout.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v["format"] != "packfile" {
            continue;
        }
        packfiles += 1;
        assert_eq!(v["roundtrip"], "exact", "{line}");
        assert_eq!(v["container_roundtrip"], "exact", "{line}");
        if v["contents_version"] == "hk_2014.2.0-r1" {
            assert_eq!(v["untyped"], 0, "every BotW object typed: {line}");
            assert!(v["typed"].as_u64().unwrap() > 0, "{line}");
        }
    }
    assert!(packfiles > 0);
}

#[test]
fn dump_prints_packfile_objects() {
    let Some(corpus) = common::corpus() else { return };
    let schemas = common::workspace_root().join("schemas");
    let out = common::run(hkgen().args(["dump", "--format", "json", "--schemas"]).arg(&schemas).arg(corpus.join(WIIU)));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let objects = v["objects"].as_array().unwrap();
    assert_eq!(objects.len(), 126);
    assert_eq!(objects[0]["class"], "hkRootLevelContainer");
    assert_eq!(objects[0]["members"]["namedVariants"][0]["className"], "hkaAnimationContainer");
    assert_eq!(objects[0]["members"]["namedVariants"][0]["variant"], serde_json::json!({"ref": 1}));
    assert_eq!(objects[2]["members"]["name"], "model_skeleton");
    let ron = common::run(hkgen().args(["dump", "--schemas"]).arg(&schemas).arg(corpus.join(WIIU)));
    assert!(String::from_utf8_lossy(&ron.stdout).contains("\"hkaSkeleton\""));
}

#[test]
fn convert_wiiu_to_switch_gives_the_stock_switch_file() {
    let Some(corpus) = common::corpus() else { return };
    let schemas = common::workspace_root().join("schemas");
    let dir = std::env::temp_dir().join(format!("hkgen-convert-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (sw, wu) = (dir.join("switch.hkrg"), dir.join("wiiu.hkrg"));
    let run = |layout: &str, from: &std::path::Path, to: &std::path::Path| {
        let out = common::run(hkgen().args(["convert", "--layout", layout, "--schemas"]).arg(&schemas).arg(from).arg(to));
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    };
    run("8,1,1,1", &corpus.join(WIIU), &sw);
    assert!(std::fs::read(&sw).unwrap() == std::fs::read(corpus.join(SWITCH)).unwrap(), "converted file differs from the stock Switch file");
    run("4,0,0,1", &sw, &wu);
    assert!(std::fs::read(&wu).unwrap() == std::fs::read(corpus.join(WIIU)).unwrap(), "Switch -> Wii U differs from the stock Wii U file");
    let bad = common::run(hkgen().args(["convert", "--layout", "8,1"]).arg(corpus.join(WIIU)).arg(&sw));
    assert!(!bad.status.success());
    std::fs::remove_dir_all(&dir).ok();
}
