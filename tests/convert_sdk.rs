//! `hkgen convert --sdk` (`hkgen::convert`) on the one pair of the same assets that the game's own
//! makers wrote with two SDKs: Dark Souls Prepare to Die Edition (2010.2 packfiles, 32-bit) and
//! Remastered (2015.1 TAG0 tagfiles, 64-bit), `soulstruct-havok/PTDE__c2240__*` and
//! `DSR__c2240__*`.
//!
//! PTDE converted to a 2015.1 tagfile must hold the values of the DSR file member for member,
//! and DSR converted to a 2010.2 packfile (4,1,0,1) PTDE's, but for [`EXPECTED`]: each
//! difference left with its reason. Objects are paired by walking both documents from their
//! roots along the pointers. Spline animation data is compared by its decoded frames.
//!
//! `cargo test --no-default-features --features cli,hk2010_2,hk2015_1 --test convert_sdk`.
#![cfg(all(feature = "cli", feature = "hk2010_2", feature = "hk2015_1"))]

mod common;
#[path = "common/hkgen_verify.rs"]
mod hkgen_verify;

use hkgen::convert::{self, Migrations, Options, Report, TargetFormat};
use hktypes::dump::Val;
use hktypes::packfile::LayoutRules;
use hktypes::{Document, Handle};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::process::Command;

const PAIRS: &[(&str, &str)] = &[
    ("soulstruct-havok/PTDE__c2240__a00_0000.hkx", "soulstruct-havok/DSR__c2240__a00_0000.hkx"),
    ("soulstruct-havok/PTDE__c2240__c2240.hkx", "soulstruct-havok/DSR__c2240__c2240.hkx"),
];

/// The PTDE files without a DSR counterpart in the corpus: converted and verified.
const PTDE_ONLY: &[&str] = &["soulstruct-havok/PTDE__c2240__a00_3000.hkx", "soulstruct-havok/PTDE__c2240__Skeleton.HKX"];

/// Differences left between a converted file and its counterpart: (class, member path, reason).
/// `[]` stands for any element.
const EXPECTED: &[(&str, &str, &str)] = &[
    (
        "hkaSplineCompressedAnimation",
        "data",
        "DSR's blocks are another fit of the same tracks, not PTDE's blocks re-laid: both files have one block (121 frames, maskAndQuantizationSize 336) whose 84 track masks are equal byte for byte (same quantizations, same static and spline channels), but of the 36 spline channels 22 have another control point count or other knots (track 0's translation: PTDE 10 control points, knots 0,0,0,0,17,32,54,73,87,104,120x4; DSR 11, knots 0,0,0,0,17,31,53,53,73,87,104,120x4) and other ranges (its x maximum 0.030057 in PTDE, 0.026808 in DSR); 414 control points against 411, so 4,016 bytes against 4,000. Re-laying cannot give DSR's bytes: the converted data is PTDE's, which decodes to PTDE's frames exactly and to DSR's within the encoders' tolerance (checked below)",
    ),
    ("hkaSplineCompressedAnimation", "floatBlockOffsets[]", "where the float data starts in a block: after that fit's transform bytes"),
];

fn migrations() -> &'static Migrations {
    static M: std::sync::OnceLock<Migrations> = std::sync::OnceLock::new();
    M.get_or_init(Migrations::builtin)
}

fn open(bytes: &[u8]) -> Document {
    hktypes::open(bytes, &hkclasses::open_options()).unwrap()
}

fn options(sdk: &str, format: TargetFormat) -> Options<'static> {
    Options { sdk: sdk.to_owned(), format, classes: &hkclasses::REGISTRY, migrations: migrations(), compendia: None, prefer: None }
}

const TAGFILE: TargetFormat = TargetFormat::Tagfile;

fn packfile32() -> TargetFormat {
    TargetFormat::Packfile(LayoutRules::parse("4,1,0,1").unwrap())
}

fn convert(doc: &Document, sdk: &str, format: TargetFormat) -> (Vec<u8>, Report) {
    convert::convert(doc, &options(sdk, format), false).unwrap_or_else(|e| panic!("{e}"))
}

/// `hkgen verify FILE` passes (the binary this test is built with).
fn verify(bytes: &[u8], name: &str) {
    hkgen_verify::verify("convert_sdk", bytes, name).unwrap_or_else(|e| panic!("{e}"));
}

type Found = BTreeMap<(String, String), String>;

/// Pairs the objects of `a` and `b` from their roots along the pointers and lists every member
/// whose value differs (pointers pair their objects instead).
fn differences(a: &Document, b: &Document) -> (Found, Vec<(Handle, Handle)>) {
    let mut found = Found::new();
    let mut todo = vec![(a.root().unwrap(), b.root().unwrap())];
    let mut seen = BTreeSet::new();
    let mut pairs = Vec::new();
    while let Some((h, g)) = todo.pop() {
        if !seen.insert((h.0, g.0)) {
            continue;
        }
        let class = a.class_name(h).unwrap();
        assert_eq!(Some(&class), b.class_name(g).as_ref(), "objects {} and {} pair", h.0, g.0);
        pairs.push((h, g));
        let (x, y) = (Val::Record(a.members(h).unwrap()), Val::Record(b.members(g).unwrap()));
        walk(&class, "", &x, &y, &mut todo, &mut found);
    }
    assert_eq!(seen.len(), a.handles().len(), "every object of the one is paired");
    assert_eq!(seen.len(), b.handles().len(), "every object of the other is paired");
    (found, pairs)
}

fn walk(class: &str, path: &str, x: &Val, y: &Val, todo: &mut Vec<(Handle, Handle)>, found: &mut Found) {
    let mut differ = |what: String| {
        found.entry((class.to_owned(), path.to_owned())).or_insert(what);
    };
    match (x, y) {
        (Val::Ref(h, None), Val::Ref(g, None)) => todo.push((Handle(*h), Handle(*g))),
        (Val::Record(p), Val::Record(q)) => {
            let names: Vec<&String> = p.0.iter().map(|(n, _)| n).chain(q.0.iter().map(|(n, _)| n).filter(|n| p.get(n).is_none())).collect();
            for n in names {
                let sub = if path.is_empty() { n.clone() } else { format!("{path}.{n}") };
                match (p.get(n), q.get(n)) {
                    (Some(v), Some(w)) => walk(class, &sub, v, w, todo, found),
                    (Some(_), None) => {
                        found.entry((class.to_owned(), sub)).or_insert_with(|| "only in the first".into());
                    }
                    _ => {
                        found.entry((class.to_owned(), sub)).or_insert_with(|| "only in the second".into());
                    }
                }
            }
        }
        (Val::List(p) | Val::Array(p, _), Val::List(q) | Val::Array(q, _)) if p.len() == q.len() => {
            for (v, w) in p.iter().zip(q) {
                walk(class, &format!("{path}[]"), v, w, todo, found);
            }
        }
        _ if x == y => {}
        _ => differ(format!("{:?} vs {:?}", short(x), short(y))),
    }
}

fn short(v: &Val) -> String {
    format!("{v:?}").chars().take(80).collect()
}

/// The largest difference between the decoded frames of two spline animations.
fn frames_apart(a: &Document, h: Handle, b: &Document, g: Handle) -> f32 {
    let fa = hktypes::anim::Animation::read(a, h).unwrap().frames().unwrap();
    let fb = hktypes::anim::Animation::read(b, g).unwrap().frames().unwrap();
    assert_eq!((fa.frame_count, fa.track_count), (fb.frame_count, fb.track_count));
    let mut worst = 0f32;
    for (x, y) in fa.transforms.iter().zip(&fb.transforms) {
        // A quaternion and its negation are one rotation.
        let q = (0..4).map(|i| (x[3 + i] - y[3 + i]).abs()).fold(0f32, f32::max).min((0..4).map(|i| (x[3 + i] + y[3 + i]).abs()).fold(0f32, f32::max));
        let rest = [0, 1, 2, 7, 8, 9].iter().map(|&i| (x[i] - y[i]).abs()).fold(0f32, f32::max);
        worst = worst.max(q).max(rest);
    }
    worst
}

/// Checks `converted` against `counterpart` and `source`; returns the differences found.
fn check_pair(source: &Document, converted: &Document, counterpart: &Document, what: &str, used: &mut BTreeSet<(String, String)>) {
    let (found, pairs) = differences(converted, counterpart);
    let mut unexplained = Vec::new();
    for ((class, path), d) in &found {
        match EXPECTED.iter().find(|(c, p, _)| c == class && p == path) {
            Some((c, p, _)) => {
                used.insert((c.to_string(), p.to_string()));
            }
            None => unexplained.push(format!("{what}: {class}.{path}: {d}")),
        }
    }
    assert!(unexplained.is_empty(), "differences no rule explains:\n{}", unexplained.join("\n"));
    // Spline data: the converted file's decodes to the source's frames exactly, and to the
    // counterpart's within the tolerance of Havok's encoders.
    for (h, g) in pairs {
        if converted.class_name(h).as_deref() != Some("hkaSplineCompressedAnimation") {
            continue;
        }
        let s = source.find("hkaSplineCompressedAnimation")[0];
        assert_eq!(frames_apart(converted, h, source, s), 0.0, "{what}: the converted spline decodes to the source's frames");
        let apart = frames_apart(converted, h, counterpart, g);
        eprintln!("{what}: decoded frames of the converted spline and the counterpart's: {apart} apart at most");
        assert!(apart < 0.01, "{what}: {apart}");
    }
}

#[test]
fn ptde_to_2015_1_tagfile_gives_dsr_values_and_back() {
    let Some(corpus) = common::corpus() else { return };
    let mut used = BTreeSet::new();
    for (ptde, dsr) in PAIRS {
        let (Some(p), Some(d)) = (common::corpus_file(&corpus, ptde), common::corpus_file(&corpus, dsr)) else { continue };
        let (p, d) = (open(&p), open(&d));

        // PTDE -> 2015.1 tagfile: DSR's values.
        let (bytes, report) = convert(&p, "2015.1", TAGFILE);
        assert!(report.is_lossless(), "{ptde}: {}", report.to_text());
        let name = Path::new(ptde).file_name().unwrap().to_string_lossy();
        verify(&bytes, &format!("{name}.2015.1.hkx"));
        let up = open(&bytes);
        assert_eq!((up.format(), up.sdk().as_deref()), (hktypes::Format::Tag0, Some("2015.1")));
        check_pair(&p, &up, &d, &format!("{ptde} -> 2015.1 vs {dsr}"), &mut used);

        // DSR -> 2010.2 packfile (32-bit, PTDE's layout): PTDE's values.
        let (bytes, report) = convert(&d, "2010.2", packfile32());
        assert!(report.is_lossless(), "{dsr}: {}", report.to_text());
        let name = Path::new(dsr).file_name().unwrap().to_string_lossy();
        verify(&bytes, &format!("{name}.2010.2.hkx"));
        let down = open(&bytes);
        assert_eq!((down.format(), down.sdk().as_deref(), down.layout()), (hktypes::Format::Packfile, Some("2010.2"), p.layout()));
        check_pair(&d, &down, &p, &format!("{dsr} -> 2010.2 vs {ptde}"), &mut used);

        // A -> B -> A of a file with no loss gives A's values back.
        let (back, report) = convert(&up, "2010.2", packfile32());
        assert!(report.is_lossless(), "{}", report.to_text());
        let (found, _) = differences(&open(&back), &p);
        assert!(found.is_empty(), "{ptde} -> 2015.1 -> 2010.2: {found:?}");
        let (back, report) = convert(&down, "2015.1", TAGFILE);
        assert!(report.is_lossless(), "{}", report.to_text());
        let (found, _) = differences(&open(&back), &d);
        assert!(found.is_empty(), "{dsr} -> 2010.2 -> 2015.1: {found:?}");
    }
    if !used.is_empty() || common::corpus_required() {
        let unused: Vec<_> = EXPECTED.iter().filter(|(c, p, _)| !used.contains(&(c.to_string(), p.to_string()))).collect();
        assert!(unused.is_empty(), "listed differences that no longer occur: {unused:?}");
    }
}

#[test]
fn ptde_files_without_a_counterpart_convert_and_verify() {
    let Some(corpus) = common::corpus() else { return };
    for rel in PTDE_ONLY {
        let Some(bytes) = common::corpus_file(&corpus, rel) else { continue };
        let p = open(&bytes);
        let (out, report) = convert(&p, "2015.1", TAGFILE);
        assert!(report.is_lossless(), "{rel}: {}", report.to_text());
        let name = Path::new(rel).file_name().unwrap().to_string_lossy();
        verify(&out, &format!("{name}.2015.1.hkx"));
        // and back: PTDE's values.
        let (back, report) = convert(&open(&out), "2010.2", packfile32());
        assert!(report.is_lossless(), "{rel}: {}", report.to_text());
        let (found, _) = differences(&open(&back), &p);
        assert!(found.is_empty(), "{rel} -> 2015.1 -> 2010.2: {found:?}");
    }
}

/// A value 2010.2 has no place for stops the conversion with a report naming it; allowed, the
/// conversion drops it and says so.
#[test]
fn a_loss_is_reported_and_refused() {
    let Some(corpus) = common::corpus() else { return };
    let rel = "soulstruct-havok/DSR__c2240__a00_0000.hkx";
    let Some(bytes) = common::corpus_file(&corpus, rel) else { return };
    let mut d = open(&bytes);
    let h = d.find("hkaDefaultAnimatedReferenceFrame")[0];
    // frameType, new in 2015.1: a value other than the one Havok writes has no place in 2010.2.
    let h = d.set_members(h, vec![("frameType".into(), Val::UInt(1))], &hkclasses::open_options()).unwrap();
    let e = convert::convert(&d, &options("2010.2", packfile32()), false).unwrap_err();
    let convert::ConvertError::Loss(report) = &e else { panic!("{e}") };
    assert_eq!(report.lost.len(), 1, "{}", report.to_text());
    let n = &report.lost[0];
    assert_eq!((n.handle, n.class.as_str(), n.member.as_str()), (h.0, "hkaDefaultAnimatedReferenceFrame", "frameType"));
    assert!(e.to_string().contains("hkaDefaultAnimatedReferenceFrame.frameType"), "{e}");
    let (out, report) = convert::convert(&d, &options("2010.2", packfile32()), true).unwrap();
    assert_eq!(report.lost.len(), 1);
    verify(&out, "lossy.2010.2.hkx");
}

/// The command line: `--dry-run` on a file that loses nothing prints the report and writes
/// nothing; a lossy conversion fails without writing, `--allow-loss` writes and prints the report.
#[test]
fn cli_dry_run_and_allow_loss() {
    let Some(corpus) = common::corpus() else { return };
    let rel = "soulstruct-havok/PTDE__c2240__a00_0000.hkx";
    let Some(_) = common::corpus_file(&corpus, rel) else { return };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("convert_sdk_cli");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let hkgen = || Command::new(env!("CARGO_BIN_EXE_hkgen"));
    let out = hkgen().args(["convert", "--sdk", "2015.1", "--dry-run"]).arg(corpus.join(rel)).current_dir(&dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("2010.2 -> 2015.1: 0 lost, 2 defaulted"), "{text}");
    assert!(text.contains("defaulted: #3 hkaDefaultAnimatedReferenceFrame.frameType: \"REFERENCE_FRAME_UNKNOWN\""), "{text}");
    assert!(text.contains("migrated: #1 hkaAnimationContainer.refCount: referenceCount -> refCount (renamed)"), "{text}");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "--dry-run writes nothing");

    // A lossy case from the command line: a 2015.1 file with a frameType 2010.2 cannot hold.
    let mut d = open(&common::corpus_file(&corpus, "soulstruct-havok/DSR__c2240__a00_0000.hkx").unwrap());
    let h = d.find("hkaDefaultAnimatedReferenceFrame")[0];
    d.set_members(h, vec![("frameType".into(), Val::UInt(1))], &hkclasses::open_options()).unwrap();
    let lossy = dir.join("lossy.hkx");
    std::fs::write(&lossy, d.write().unwrap()).unwrap();
    let target = dir.join("out.hkx");
    let out = hkgen().args(["convert", "--sdk", "2010.2", "--layout", "4,1,0,1"]).arg(&lossy).arg(&target).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("lost: #") && err.contains("hkaDefaultAnimatedReferenceFrame.frameType"), "{err}");
    assert!(!target.exists(), "a refused conversion writes nothing");
    let out = hkgen().args(["convert", "--sdk", "2010.2", "--layout", "4,1,0,1", "--allow-loss"]).arg(&lossy).arg(&target).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 lost"));
    assert!(target.exists());
}

#[test]
fn builtin_rules_parse() {
    let m = Migrations::builtin();
    assert!(m.renames.iter().any(|r| r.before == "referenceCount" && r.after == "refCount"));
    let _: HashMap<(), ()> = HashMap::new();
}
