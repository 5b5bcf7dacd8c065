//! `hkgen convert --sdk` between the SDKs of the corpus: 2010.2, 2014.1, 2015.1, 2016.2 and 2018.1.
//!
//! Each case converts a corpus file A to SDK B, checks the output with `hkgen verify`, converts
//! it back to A's SDK and format, and compares the values with A's: equal, or every difference
//! is named by the loss report of one of the two conversions (`lost: #h Class.member: ...`).
//!
//! `cargo test --no-default-features --features cli,hk2010_2,hk2014_1,hk2015_1,hk2016_2,hk2018_1 --test convert_pairs`.
#![cfg(all(feature = "cli", feature = "hk2010_2", feature = "hk2014_1", feature = "hk2015_1", feature = "hk2016_2", feature = "hk2018_1"))]

mod common;
#[path = "common/hkgen_verify.rs"]
mod hkgen_verify;

use hkgen::convert::{self, ConvertError, Migrations, Options, Report, TargetFormat};
use hktypes::dump::Val;
use hktypes::packfile::LayoutRules;
use hktypes::tagfile::CompendiumSet;
use hktypes::{Document, Handle, OpenOptions};
use std::collections::BTreeSet;
use std::path::Path;

fn migrations() -> &'static Migrations {
    static M: std::sync::OnceLock<Migrations> = std::sync::OnceLock::new();
    M.get_or_init(Migrations::builtin)
}

/// A corpus file, opened with the compendia beside it (an animation of Sekiro or Elden Ring names
/// its types in one).
struct Source {
    rel: String,
    doc: Document,
    set: &'static CompendiumSet,
}

fn source(corpus: &Path, rel: &str) -> Option<Source> {
    let bytes = common::corpus_file(corpus, rel)?;
    let path = corpus.join(rel);
    let near = hkgen::inputs::Compendia::load_near(&path).unwrap();
    let set: &'static CompendiumSet = Box::leak(Box::new(near.set_for(&path)));
    let options = OpenOptions { compendia: Some(set), ..hkclasses::open_options() };
    let doc = hktypes::open(&bytes, &options).unwrap_or_else(|e| panic!("{rel}: {e}"));
    Some(Source { rel: rel.to_owned(), doc, set })
}

fn open(bytes: &[u8]) -> Document {
    hktypes::open(bytes, &hkclasses::open_options()).unwrap()
}

/// A tagfile for 2015.1 and later, else a packfile under `layout`.
fn format_for(sdk: &str, layout: LayoutRules) -> TargetFormat {
    if sdk.as_bytes() >= b"2015".as_slice() {
        TargetFormat::Tagfile
    } else {
        TargetFormat::Packfile(layout)
    }
}

fn layout(s: &str) -> LayoutRules {
    LayoutRules::parse(s).unwrap()
}

fn convert_to(doc: &Document, set: Option<&CompendiumSet>, sdk: &str, format: TargetFormat, allow_loss: bool) -> Result<(Vec<u8>, Report), ConvertError> {
    let o = Options { sdk: sdk.to_owned(), format, classes: &hkclasses::REGISTRY, migrations: migrations(), compendia: set, prefer: None };
    convert::convert(doc, &o, allow_loss)
}

/// `hkgen verify FILE` passes (the binary this test is built with).
fn verify(bytes: &[u8], name: &str) -> Result<(), String> {
    hkgen_verify::verify("convert_pairs", bytes, name)
}

/// A difference between two documents: the first's object class, member path (`[k]` for an
/// element), what differs.
type Difference = (String, String, String);

/// Pairs the objects of `a` and `b` from their roots along the pointers and lists every member
/// whose value differs; a pointer to an object on one side and null on the other is a difference
/// at the pointer.
fn differences(a: &Document, b: &Document) -> Vec<Difference> {
    let mut found = Vec::new();
    let mut todo = vec![(a.root().unwrap(), b.root().unwrap())];
    let mut seen = BTreeSet::new();
    while let Some((h, g)) = todo.pop() {
        if !seen.insert((h.0, g.0)) {
            continue;
        }
        let class = a.class_name(h).unwrap();
        if Some(&class) != b.class_name(g).as_ref() {
            found.push((class, String::new(), format!("paired with a {:?}", b.class_name(g))));
            continue;
        }
        let (x, y) = (Val::Record(a.members(h).unwrap()), Val::Record(b.members(g).unwrap()));
        walk(&class, "", &x, &y, &mut todo, &mut found);
    }
    found
}

fn walk(class: &str, path: &str, x: &Val, y: &Val, todo: &mut Vec<(Handle, Handle)>, found: &mut Vec<Difference>) {
    let mut differ = |what: String| found.push((class.to_owned(), path.to_owned(), what));
    match (x, y) {
        (Val::Ref(h, None), Val::Ref(g, None)) => todo.push((Handle(*h), Handle(*g))),
        (Val::Record(p), Val::Record(q)) => {
            let names: Vec<&String> = p.0.iter().map(|(n, _)| n).chain(q.0.iter().map(|(n, _)| n).filter(|n| p.get(n).is_none())).collect();
            for n in names {
                let sub = if path.is_empty() { n.clone() } else { format!("{path}.{n}") };
                match (p.get(n), q.get(n)) {
                    (Some(v), Some(w)) => walk(class, &sub, v, w, todo, found),
                    (Some(_), None) => found.push((class.to_owned(), sub, "only in the first".into())),
                    _ => found.push((class.to_owned(), sub, "only in the second".into())),
                }
            }
        }
        (Val::List(p) | Val::Array(p, _), Val::List(q) | Val::Array(q, _)) if p.len() == q.len() => {
            for (k, (v, w)) in p.iter().zip(q).enumerate() {
                walk(class, &format!("{path}[{k}]"), v, w, todo, found);
            }
        }
        _ if x == y => {}
        _ => differ(format!("{} vs {}", short(x), short(y))),
    }
}

fn short(v: &Val) -> String {
    format!("{v:?}").chars().take(80).collect()
}

/// Whether a note of `reports` names difference `d`: the same class, and the note's member the
/// difference's path or a record or element holding it. The notes are the losses, and the
/// migrations that change a value: a member the target lacks dropped as zero (`""` comes back
/// null), one the run time rebuilds, a build's stored value.
fn named(d: &Difference, reports: &[&Report]) -> bool {
    reports.iter().flat_map(|r| r.lost.iter().chain(&r.migrated).chain(&r.computed)).any(|n| {
        n.class == d.0 && (n.member.is_empty() || d.1 == n.member || d.1.starts_with(&format!("{}.", n.member)) || d.1.starts_with(&format!("{}[", n.member)))
    })
}

/// What one case gave.
#[derive(Debug)]
struct Outcome {
    /// The forward conversion's report, or why it failed.
    forward: Result<Report, String>,
    /// Whether `hkgen verify` passed on the converted file (and its message).
    verified: Result<(), String>,
    /// The way back's report, or why it failed.
    back: Result<Report, String>,
    /// Differences of the round trip no loss report names.
    unnamed: Vec<Difference>,
    /// Differences of the round trip the loss reports name.
    named: usize,
}

impl Outcome {
    fn lost_classes(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        if let Ok(r) = &self.forward {
            for n in &r.lost {
                if n.member.is_empty() {
                    out.insert(n.class.clone());
                }
            }
        }
        out
    }

    fn lost_members(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        if let Ok(r) = &self.forward {
            for n in &r.lost {
                if !n.member.is_empty() && !n.what.starts_with("a pointer to object") {
                    out.insert(format!("{}.{}", n.class, strip_indices(&n.member)));
                }
            }
        }
        out
    }

    fn ok(&self) -> bool {
        self.forward.is_ok() && self.verified.is_ok() && self.back.is_ok() && self.unnamed.is_empty()
    }

    fn lossless(&self) -> bool {
        self.ok() && self.forward.as_ref().is_ok_and(Report::is_lossless) && self.back.as_ref().is_ok_and(Report::is_lossless) && self.named == 0
    }
}

fn strip_indices(p: &str) -> String {
    let mut out = String::with_capacity(p.len());
    let mut skip = false;
    for c in p.chars() {
        match c {
            '[' => {
                skip = true;
                out.push_str("[]");
            }
            ']' => skip = false,
            _ if skip => {}
            c => out.push(c),
        }
    }
    out
}

/// Converts `s` to `sdk` (a packfile under `pack`), verifies it, converts it back to the source's
/// SDK and format, and compares.
fn round_trip(s: &Source, sdk: &str, pack: LayoutRules) -> Outcome {
    let from = s.doc.sdk().unwrap();
    let name = format!("{}.{sdk}.hkx", s.rel);
    let mut o = Outcome { forward: Err(String::new()), verified: Err("not converted".into()), back: Err("not converted".into()), unnamed: Vec::new(), named: 0 };
    let (bytes, forward) = match convert_to(&s.doc, Some(s.set), sdk, format_for(sdk, pack), true) {
        Ok(x) => x,
        Err(e) => {
            o.forward = Err(e.to_string());
            return o;
        }
    };
    o.forward = Ok(forward.clone());
    o.verified = verify(&bytes, &name);
    let there = open(&bytes);
    let back_format = match s.doc.layout() {
        Some(l) => TargetFormat::Packfile(l),
        None => TargetFormat::Tagfile,
    };
    let (back, back_report) = match convert_to(&there, None, &from, back_format, true) {
        Ok(x) => x,
        Err(e) => {
            o.back = Err(e.to_string());
            return o;
        }
    };
    o.back = Ok(back_report.clone());
    let back = open(&back);
    for d in differences(&s.doc, &back) {
        if named(&d, &[&forward, &back_report]) {
            o.named += 1;
        } else {
            o.unnamed.push(d);
        }
    }
    o
}

fn summary(rel: &str, sdk: &str, o: &Outcome) -> String {
    let head = format!("{rel} -> {sdk}:");
    match (&o.forward, &o.back) {
        (Err(e), _) => format!("{head} FAILED: {e}"),
        (Ok(f), back) => format!(
            "{head} {} lost, {} defaulted; verify {}; back {}; {} differences named, {} unnamed{}{}{}",
            f.lost.len(),
            f.defaulted.len(),
            if o.verified.is_ok() { "ok".to_owned() } else { format!("FAILED ({})", o.verified.as_ref().unwrap_err().chars().take(300).collect::<String>()) },
            match back {
                Ok(b) => format!("{} lost", b.lost.len()),
                Err(e) => format!("FAILED ({e})"),
            },
            o.named,
            o.unnamed.len(),
            if o.lost_classes().is_empty() { String::new() } else { format!("; classes lost: {:?}", o.lost_classes()) },
            if o.lost_members().is_empty() { String::new() } else { format!("; members lost: {:?}", o.lost_members().iter().take(12).collect::<Vec<_>>()) },
            if o.unnamed.is_empty() { String::new() } else { format!("; first unnamed: {:?}", &o.unnamed[..o.unnamed.len().min(5)]) },
        ),
    }
}

const SDKS: &[&str] = &["2010.2", "2014.1", "2015.1", "2016.2", "2018.1"];

/// One corpus file per SDK and kind of content: (file, what it holds, the targets to which it
/// converts and back without loss). Every other pair converts, verifies and comes back with each
/// difference named by a report; what they lose, and why, is in [`LOSSES`].
const MATRIX: &[(&str, &str, &[&str])] = &[
    ("soulstruct-havok/PTDE__c2240__a00_0000.hkx", "2010.2 animation, binding, container (Dark Souls)", ALL),
    ("soulstruct-havok/PTDE__c2240__Skeleton.HKX", "2010.2 skeleton", ALL),
    ("soulstruct-havok/PTDE__c2240__c2240.hkx", "2010.2 skeletons, skeleton mappers, hkp ragdoll and physics system", &["2015.1"]),
    ("Project-New-Reign---Nemesis-Main/defaultmale.hkx", "2010.2 32-bit hkb character (Skyrim LE)", &[]),
    ("Pandora-Behaviour-Engine-Plus/dogbehavior.hkx", "2010.2 64-bit hkb behaviour graph (Skyrim SE)", &[]),
    (DS3_ANIMATION, "2014.1 animation (Dark Souls III)", ALL),
    (DS3_SKELETON, "2014.1 skeleton", ALL),
    ("monaxiastr__MonaxiaSouls/MonaxiaSouls/chr/c1400.chrbnd/chr/c1400/c1400.HKX", "2014.1 skeletons and hknp ragdoll", &[]),
    ("tokotchd__Cinders/chr/c0000.behbnd/Export/Characters/c0000.hkx", "2014.1 hkb character", &[]),
    ("soulstruct-havok/DSR__c2240__a00_0000.hkx", "2015.1 animation (Dark Souls Remastered)", ALL),
    ("soulstruct-havok/DSR__c2240__c2240.hkx", "2015.1 skeletons, mappers, hkp ragdoll", &["2010.2"]),
    (SEKIRO_SKELETON, "2016.2 skeleton (Sekiro)", ALL),
    (SEKIRO_ANIMATION, "2016.2 animation (TCRF)", ALL),
    (SEKIRO_CHR, "2016.2 skeleton mapper, hknp ragdoll", &["2018.1"]),
    (SEKIRO_BEHAVIOUR, "2016.2 hkb behaviour graph", &["2018.1"]),
    ("SekiroResurrection__SR_GSEDC/chr/c1452.behbnd/Export/Characters/c1452.hkx", "2016.2 hkb character", &[]),
    (ER_SKELETON, "2018.1 skeleton (Elden Ring)", ALL),
    (ER_ANIMATION, "2018.1 animation (TCRF)", ALL),
    (ER_CHR, "2018.1 skeleton mapper, hknp ragdoll", &[]),
    ("AriT000__midir-NR/chr/c6211.behbnd/Export/Characters/c6211.hkx", "2018.1 hkb character (Nightreign)", &[]),
    ("AriT000__midir-NR/chr/c6211.behbnd/c6211/Export/c6211.hkx", "2018.1 hkb project", &["2014.1", "2016.2"]),
];

const ALL: &[&str] = SDKS;
const DS3_ANIMATION: &str =
    "monaxiastr__MonaxiaSouls/MonaxiaSouls/parts/wp_a_10010.partsbnd/Weapon/WP_A_10010/WP_A_10010.anibnd/WP_A_0500/hkx/a029_036200.hkx";
const DS3_SKELETON: &str = "monaxiastr__MonaxiaSouls/MonaxiaSouls/parts/wp_a_10010.partsbnd/Weapon/WP_A_10010/WP_A_10010.anibnd/WP_A_0500/hkx/skeleton.HKX";
const SEKIRO_SKELETON: &str = "SekiroResurrection__SR_GSEDC/chr/c0000.anibnd/c0000/hkx/skeleton.hkx";
const SEKIRO_ANIMATION: &str = "SekiroResurrection__SR_GSEDC/chr/c1060.anibnd/c1060/hkx_compendium/a000_005401.hkx";
const SEKIRO_CHR: &str = "nikhil-RGB__Genichiro-The-Last-Stand/chr/c7190.chrbnd/chr/c7190/c7190.hkx";
const SEKIRO_BEHAVIOUR: &str = "SekiroResurrection__SR_GSEDC/chr/c1452.behbnd/Export/Behaviors/c1452.hkx";
const ER_SKELETON: &str = "Axelph237__mod/chr/c2110.anibnd/c2110/hkx/skeleton.hkx";
const ER_ANIMATION: &str = "Axelph237__mod/chr/c2031.anibnd/c2031/hkx_compendium/a000_005000.hkx";
const ER_CHR: &str = "Blabla132132__More-Map-Variation/chr/c5051.chrbnd/chr/c5051/c5051.hkx";

/// Why the lossy pairs of [`MATRIX`] lose what their reports name.
pub const LOSSES: &[(&str, &str)] = &[
    ("hkp ragdolls and physics systems to 2014.1, 2016.2 and 2018.1", "2014.1 has the hkp classes, but its games' ragdolls are hknp (Dark Souls III; `preferred` in physics.ron), so an hkp ragdoll whose objects all have rules becomes hknp there as in 2016.2 and 2018.1; the 2016.2 and 2018.1 snapshots hold no hkp classes (hkpRigidBody, hkpPhysicsSystem, hkaRagdollInstance, hkpCapsuleShape, hkpConstraintInstance, hkpPhysicsData): they are extracted from FromSoftware's tagfiles, whose ragdolls are hknp; `replacements` rules (physics.ron) make the capsules hknpCapsuleShape, the physics data hknpPhysicsSceneData and the system an hknpRagdollData whose bodyCinfos and constraintCinfos are its rigid bodies and constraint instances (materials and motion properties one record per distinct set; in 2014.1 a motion per body with its inverse mass and inertia, centre of mass and orientation); lost: what no hknp member holds (objectRadius, allowedPenetrationDepth, savedQualityTypeIndex; in 2016.2 and 2018.1 the inverse inertia, which they keep only in the shape's hknpShapeMassProperties objects, and a swept transform with a local centre of mass), the hkaRagdollInstance's own constraint instances, and values cut to a half"),
    ("hknp ragdolls to 2010.2 and 2015.1", "neither SDK's classes here have hknp; `replacements` rules make hknpCapsuleShape an hkpCapsuleShape, hknpPhysicsSceneData hkpPhysicsData, hknpRagdollData an hkpPhysicsSystem whose bodies and constraints become hkpRigidBody and hkpConstraintInstance objects (placed at the body's position and orientation); and an hkaRagdollInstance of them, the skeleton and the bone map; lost: the shapes' mass properties (hknpShapeMassProperties, hkRefCountedProperties), the system's motions (but each body's inverse mass and inertia; its material's friction and restitution and its motion properties' damping, gravity and time factors are carried), hkpLimitedHingeConstraintData in 2015.1"),
    ("hknp ragdolls between 2014.1 and 2016.2 / 2018.1", "rules of schemas/migrations/physics.ron carry the body ids, reservedBodyId/desiredBodyId, the packed mass properties, a body's motion (indexed_records: 2014.1's motionCinfos[motionId] <-> the body's motionPropertiesId, mass = 1/inverseMass, velocities, motionType), 2018.1's deactivationSettings (grouped) and the new members' stock values; so c1400 (2014.1) to 2016.2 and back loses only what 2016.2's body has no member for and no rule computes: each motion's centerOfMassWorld (19: x, y, z are the body's position plus the rotated packed centre of mass within 6e-8, but w, nonzero in 18, comes from nothing the target keeps), 4 of the 19 orientations (the body's times the shape's packed majorAxisSpace is up to 2.7e-5 off, the packed quaternion's step) and 10 massFactors that are not 1.0 (2016.2 and 2018.1 have no massFactor anywhere in their schemas): 33 values; each motion's inverseInertiaLocal (1/the shape's packed inertia, all 57 components within 5 ulp) and 15 orientations (within 3 ulp) are reported computed, not lost (`computed` rules), and the way back computes both for every new motion instead of zero; to 2018.1 the same (referencedObjects, which 2018.1 lacks, is the bodies' shapes in motion order: a derived rule). Sekiro to 2014.1 loses what 2014.1 cannot store: constraint names, microStepMultiplier, hknpCapsuleShape.maxAllowedPenetration, weldingTolerance as 2014.1's half, 6 masses whose inverse does not give them back in 32 bits"),
    ("hknp ragdolls between 2016.2 and 2018.1", "Sekiro c7190 to 2018.1 and back is lossless; Elden Ring c5051 to 2016.2 loses the bodies' dragProperties (hknpRefDragProperties, a class 2016.2 lacks)"),
    ("hkb characters and behaviours across SDKs", "members added or removed between the SDKs (hkbCharacterData.characterControllerInfo/Setup, propertySheets, hkbCharacterStringData.animationNames/luaFiles, hkbFootIkDriverInfo legs' angles, hkbClipGenerator.animationBindingIndex, the nodes' padNode), classes only some SDKs have (Skyrim's BS* are in 2010.2 only; the 2015.1 snapshot, from four Dark Souls Remastered files, has no hkb class at all; 2016.2 lacks hkbPoweredRagdollControlsModifier and others the corpus does not use), and enum items an SDK lacks (WORLD_FROM_MODEL_MODE_RAGDOLL)"),
];

/// Every pair: prints one line per case (`--nocapture`), and holds each to [`MATRIX`]: converted,
/// verified and back with every difference named; lossless exactly where listed.
#[test]
fn matrix() {
    let Some(corpus) = common::corpus() else { return };
    let mut lines = Vec::new();
    let mut broken = Vec::new();
    for (rel, what, lossless) in MATRIX {
        let Some(s) = source(&corpus, rel) else { continue };
        let from = s.doc.sdk().unwrap();
        for sdk in SDKS.iter().filter(|t| **t != from) {
            let o = round_trip(&s, sdk, s.doc.layout().unwrap_or(layout("8,1,0,1")));
            let line = summary(rel, sdk, &o);
            eprintln!("{line}  [{what}]");
            if !o.ok() {
                broken.push(line.clone());
            } else if o.lossless() != lossless.contains(sdk) {
                broken.push(format!("{line} (lossless: {}, expected {})", o.lossless(), lossless.contains(sdk)));
            }
            lines.push(line);
        }
    }
    assert!(broken.is_empty(), "{} of {} cases broken:\n{}", broken.len(), lines.len(), broken.join("\n"));
}

/// A Skyrim LE behaviour graph (2010.2, 32-bit) as a 64-bit 2010.2 packfile (Skyrim SE's) and
/// back, without loss; and as 2014.1 and back, losing exactly Skyrim's own classes and the
/// members 2014.1 has no place for, each named.
#[test]
fn skyrim_behaviour_to_64_bit_and_to_2014_1_and_back() {
    let Some(corpus) = common::corpus() else { return };
    let rel = "Project-New-Reign---Nemesis-Main/0_master.hkx";
    let Some(s) = source(&corpus, rel) else { return }; // not-a-skip: source() reads through common::corpus_file, which says so (or fails under HKGEN_REQUIRE_CORPUS=1)
    assert_eq!((s.doc.sdk().as_deref(), s.doc.layout()), (Some("2010.2"), Some(layout("4,1,0,1"))));
    assert!(!s.doc.find("hkbBehaviorGraph").is_empty());

    // 32 -> 64 bits: the same values, and back.
    let (bytes, report) = convert_to(&s.doc, None, "2010.2", TargetFormat::Packfile(layout("8,1,0,1")), false).unwrap();
    assert!(report.is_lossless() && report.defaulted.is_empty(), "{}", report.to_text());
    verify(&bytes, "0_master.x64.hkx").unwrap();
    let x64 = open(&bytes);
    assert_eq!(x64.layout(), Some(layout("8,1,0,1")));
    assert_eq!(x64.handles().len(), s.doc.handles().len());
    assert_eq!(differences(&s.doc, &x64), vec![], "64-bit values");
    let (back, report) = convert_to(&x64, None, "2010.2", TargetFormat::Packfile(layout("4,1,0,1")), false).unwrap();
    assert!(report.is_lossless());
    assert_eq!(differences(&s.doc, &open(&back)), vec![], "back to 32 bits");

    // To 2014.1: refused, the report naming what would be lost.
    let e = convert_to(&s.doc, None, "2014.1", TargetFormat::Packfile(layout("4,1,0,1")), false).unwrap_err();
    let ConvertError::Loss(report) = e else { panic!("{e}") };
    let classes: BTreeSet<&str> = report.lost.iter().filter(|n| n.member.is_empty()).map(|n| n.class.as_str()).collect();
    assert!(classes.iter().all(|c| c.starts_with("BS")), "only Skyrim's own classes are lost: {classes:?}");
    assert_eq!(classes.len(), 14, "{classes:?}");
    for n in report.lost.iter().filter(|n| n.what.starts_with("a pointer to object #")) {
        let h: u32 = n.what["a pointer to object #".len()..].split(',').next().unwrap().parse().unwrap();
        assert!(s.doc.class_name(Handle(h)).unwrap().starts_with("BS"), "{n}");
    }
    let members: BTreeSet<String> =
        report.lost.iter().filter(|n| !n.member.is_empty() && !n.what.starts_with("a pointer")).map(|n| format!("{}.{}", n.class, n.member)).collect();
    let expected = [
        // no such member in 2014.1
        "hkbFootIkControlsModifier.alignWithGroundRotation",
        "hkbFootIkControlsModifier.controlData.gains.ankleOrientationGain",
        "hkbFootIkControlsModifier.controlData.gains.footUnlockGain",
        "hkbFootIkControlsModifier.errorOutTranslation",
        // WORLD_FROM_MODEL_MODE_RAGDOLL is no item of 2014.1's enumeration
        "hkbPoweredRagdollControlsModifier.worldFromModelModeData.mode",
        "hkbRigidBodyRagdollControlsModifier.controlData.keyFrameHierarchyControlData",
    ];
    assert_eq!(members, expected.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>(), "{}", report.to_text());

    // Allowed: verified, and back with every difference named by the reports.
    let o = round_trip(&s, "2014.1", layout("4,1,0,1"));
    assert!(o.ok(), "{}", summary(rel, "2014.1", &o));
    eprintln!("{}", summary(rel, "2014.1", &o));

    // A Skyrim LE character (hkb classes only) to 2014.1 and back: what differs is named.
    let rel = "Project-New-Reign---Nemesis-Main/defaultmale.hkx";
    let Some(s) = source(&corpus, rel) else { return }; // not-a-skip: source() reads through common::corpus_file, which says so (or fails under HKGEN_REQUIRE_CORPUS=1)
    let o = round_trip(&s, "2014.1", layout("4,1,0,1"));
    assert!(o.ok(), "{}", summary(rel, "2014.1", &o));
}

/// Converts each file to `sdk` without loss, verifies it and back: the source's values.
fn lossless_both_ways(corpus: &Path, files: &[&str], sdk: &str) -> usize {
    let mut n = 0;
    for rel in files {
        let Some(s) = source(corpus, rel) else { continue };
        let (bytes, report) = convert_to(&s.doc, Some(s.set), sdk, format_for(sdk, layout("8,1,0,1")), false).unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert!(report.is_lossless());
        verify(&bytes, &format!("{rel}.{sdk}.hkx")).unwrap();
        let there = open(&bytes);
        assert_eq!((there.sdk().as_deref(), there.format()), (Some(sdk), if sdk >= "2015" { hktypes::Format::Tag0 } else { hktypes::Format::Packfile }));
        let from = s.doc.sdk().unwrap();
        let back_format = s.doc.layout().map_or(TargetFormat::Tagfile, TargetFormat::Packfile);
        let (back, report) = convert_to(&there, None, &from, back_format, false).unwrap_or_else(|e| panic!("{rel} back: {e}"));
        assert!(report.is_lossless());
        assert_eq!(differences(&s.doc, &open(&back)), vec![], "{rel} -> {sdk} -> {from}");
        n += 1;
    }
    n
}

/// Dark Souls III animations and skeletons (2014.1 packfiles) as 2018.1 tagfiles, verified, and
/// back. (`bench/convert_vs_soulstruct.py` converts all of the corpus's and has soulstruct-havok
/// read them.)
#[test]
fn dark_souls_3_animations_and_skeletons_to_2018_1() {
    let Some(corpus) = common::corpus() else { return };
    let dir = "monaxiastr__MonaxiaSouls/MonaxiaSouls/parts/wp_a_10010.partsbnd/Weapon/WP_A_10010/WP_A_10010";
    let files = [
        DS3_ANIMATION.to_owned(),
        DS3_SKELETON.to_owned(),
        format!("{dir}.anibnd/WP_A_0500/hkx/a029_036230.hkx"),
        format!("{dir}_1.anibnd/WP_A_0500/hkx/a999_000000_1.hkx"),
        format!("{dir}_1.anibnd/WP_A_0500/hkx/skeleton_1.HKX"),
        "tokotchd__Cinders/parts/wp_a_9823.partsbnd/Weapon/WP_A_9823/WP_A_9823.anibnd/WP_A_1342/hkx/a000_000000.hkx".to_owned(),
    ];
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    let n = lossless_both_ways(&corpus, &files, "2018.1");
    assert!(n == files.len() || !common::corpus_required());
}

/// Sekiro (2016.2) to Elden Ring (2018.1) and back, and Elden Ring to Sekiro: skeletons,
/// animations (TCRF, read with their compendium; the output carries its own types) and a
/// behaviour graph and Sekiro's hknp ragdoll without loss; Elden Ring's ragdoll with the losses the
/// report names.
#[test]
fn sekiro_and_elden_ring_both_ways() {
    let Some(corpus) = common::corpus() else { return };
    let n = lossless_both_ways(&corpus, &[SEKIRO_SKELETON, SEKIRO_ANIMATION, SEKIRO_BEHAVIOUR, SEKIRO_CHR], "2018.1");
    let m = lossless_both_ways(&corpus, &[ER_SKELETON, ER_ANIMATION], "2016.2");
    assert!(n + m == 6 || !common::corpus_required());
    for (rel, sdk) in [(ER_CHR, "2016.2")] {
        let Some(s) = source(&corpus, rel) else { continue };
        let o = round_trip(&s, sdk, layout("8,1,0,1"));
        assert!(o.ok(), "{}", summary(rel, sdk, &o));
        let lost = o.forward.as_ref().unwrap().lost.len();
        assert!(lost > 0, "{rel}: 2016.2 has no hknpRefDragProperties");
        eprintln!("{}", summary(rel, sdk, &o));
    }
}

/// `doc.convert(sdk, format, classes)` from Rust ([`hkgen::convert::DocumentConvert`]): the
/// converted document, read back, with the report; a lossy one refused.
#[test]
fn document_convert_method() {
    use hkgen::convert::DocumentConvert;
    let Some(corpus) = common::corpus() else { return };
    let Some(s) = source(&corpus, DS3_ANIMATION) else { return }; // not-a-skip: source() reads through common::corpus_file, which says so (or fails under HKGEN_REQUIRE_CORPUS=1)
    let (doc, report) = s.doc.convert("2018.1", TargetFormat::Tagfile, &hkclasses::REGISTRY).unwrap();
    assert!(report.is_lossless());
    assert_eq!((doc.sdk().as_deref(), doc.format()), (Some("2018.1"), hktypes::Format::Tag0));
    let (back, _) = doc.convert("2014.1", TargetFormat::Packfile(s.doc.layout().unwrap()), &hkclasses::REGISTRY).unwrap();
    assert_eq!(differences(&s.doc, &back), vec![]);
    let Some(c) = source(&corpus, SEKIRO_CHR) else { return }; // not-a-skip: as above
    match c.doc.convert("2010.2", TargetFormat::Packfile(layout("8,1,0,1")), &hkclasses::REGISTRY) {
        // The ragdoll is replaced by an hkpPhysicsSystem (a `replacements` rule); its shapes' mass
        // properties have no class in 2010.2.
        Err(ConvertError::Loss(r)) => assert!(r.lost.iter().any(|n| n.class == "hknpShapeMassProperties" && n.member.is_empty()), "{}", r.to_text()),
        other => panic!("{:?}", other.map(|(_, r)| r)),
    }
}

/// Array elements of another shape with no conversion named are a loss in the report, not a
/// write error: 2010.2's `hkpConvexVerticesShape.rotatedVertices` holds records of three vectors,
/// 2014.1's `hkMatrix3`s (found converting every corpus file to every other SDK).
#[test]
fn elements_of_another_shape_are_a_named_loss() {
    let Some(corpus) = common::corpus() else { return };
    let rel = "Pandora-Behaviour-Engine-Plus/dwarvenspherecenturion__character_assets__skeleton.hkx";
    let Some(s) = source(&corpus, rel) else { return }; // not-a-skip: source() reads through common::corpus_file, which says so (or fails under HKGEN_REQUIRE_CORPUS=1)
    let e = convert_to(&s.doc, None, "2014.1", TargetFormat::Packfile(layout("8,1,0,1")), false).unwrap_err();
    let ConvertError::Loss(report) = e else { panic!("{e}") };
    let lost: Vec<String> = report.lost.iter().map(|n| format!("{}.{}", n.class, n.member)).collect();
    assert_eq!(lost, ["hkpConvexVerticesShape.rotatedVertices"], "{}", report.to_text());
    // 2014.1 prefers hknp, but no rule makes a convex vertices shape hknp: the file stays hkp, all of it.
    assert!(report.migrated.iter().any(|n| n.what.contains("kept as") && n.what.contains("hkpConvexVerticesShape")), "{}", report.to_text());
    let o = round_trip(&s, "2014.1", layout("8,1,0,1"));
    assert!(o.ok(), "{}", summary(rel, "2014.1", &o));
}

/// hknp ragdolls between Dark Souls III (2014.1), Sekiro (2016.2) and Elden Ring (2018.1): what
/// each way loses is exactly what the target has no place for, after the `indexed_records`
/// (2014.1's motionCinfos <-> the body's own motion members), `grouped` (2018.1's
/// deactivationSettings) and `derived` (referencedObjects, which 2018.1 lacks) rules of
/// schemas/migrations/physics.ron. (Sekiro's to 2018.1 is lossless: `sekiro_and_elden_ring_both_ways`.)
#[test]
fn hknp_ragdolls_lose_only_what_the_target_cannot_hold() {
    let Some(corpus) = common::corpus() else { return };
    let c1400 = "monaxiastr__MonaxiaSouls/MonaxiaSouls/chr/c1400.chrbnd/chr/c1400/c1400.HKX";
    // inverseInertiaLocal is not among them: a `computed` rule gives it back from the shape's
    // packed inertia within 5 ulp, so it is reported computed; 15 of 19 orientations likewise.
    let motion = ["motionCinfos[].centerOfMassWorld", "motionCinfos[].massFactor", "motionCinfos[].orientation"];
    let cases: [(&str, &str, Vec<&str>); 3] = [
        (c1400, "2016.2", motion.to_vec()),
        (c1400, "2018.1", motion.to_vec()),
        (ER_CHR, "2016.2", vec!["bodyCinfos[].dragProperties"]),
    ];
    for (rel, sdk, expected) in cases {
        let Some(s) = source(&corpus, rel) else { continue };
        let o = round_trip(&s, sdk, layout("8,1,0,1"));
        assert!(o.ok(), "{}", summary(rel, sdk, &o));
        let lost: BTreeSet<String> = o.lost_members();
        let expected: BTreeSet<String> = expected.iter().map(|m| format!("hknpRagdollData.{m}")).collect();
        assert_eq!(lost, expected, "{}", summary(rel, sdk, &o));
        assert!(o.back.as_ref().unwrap().is_lossless(), "{}", summary(rel, sdk, &o));
        let forward = o.forward.as_ref().unwrap();
        // Only 10 of the 19 massFactors (0.99999994, 0.9999999) are lost; the 1.0s are what 2014.1 writes.
        if rel == c1400 {
            assert_eq!(forward.lost.iter().filter(|n| n.member.ends_with(".massFactor")).count(), 10);
            assert!(!forward.lost.iter().any(|n| n.member.contains("inverseMass") || n.member.contains("motionPropertiesId")));
            // Computed: all 19 inverse inertias, and the 15 orientations within 3 ulp of the body's
            // times the shape's packed major axes; the other 4 orientations are lost.
            let computed = |what: &str| forward.computed.iter().filter(|n| n.member.ends_with(what)).count();
            assert_eq!((computed("].inverseInertiaLocal"), computed("].orientation"), forward.computed.len()), (19, 15, 34), "{}", forward.to_text());
            assert_eq!(forward.lost.iter().filter(|n| n.member.ends_with("].orientation")).count(), 4, "{}", forward.to_text());
        }
    }
    // Sekiro to 2014.1: a body's mass goes into a new motion as its inverse; where 1/(1/m) is not
    // m in 32 bits that body's mass is named, and the motions follow motionPropertiesId's order.
    let Some(s) = source(&corpus, SEKIRO_CHR) else { return }; // not-a-skip: source() reads through common::corpus_file, which says so (or fails under HKGEN_REQUIRE_CORPUS=1)
    let o = round_trip(&s, "2014.1", layout("8,1,0,1"));
    assert!(o.ok(), "{}", summary(SEKIRO_CHR, "2014.1", &o));
    let lost = o.lost_members();
    for m in ["hknpRagdollData.bodyCinfos[].mass", "hknpRagdollData.constraintCinfos[].name", "hknpRagdollData.materials[].weldingTolerance"] {
        assert!(lost.contains(m), "{m}: {}", summary(SEKIRO_CHR, "2014.1", &o));
    }
    assert!(!lost.iter().any(|m| m.contains("motionType") || m.contains("linearVelocity") || m.contains("desiredConstraintId")), "{lost:?}");
    // Each new motion's inverseInertiaLocal is computed from its body's shape, not zero.
    let forward = o.forward.as_ref().unwrap();
    assert_eq!(forward.computed.len(), 40, "{}", forward.to_text());
    assert!(!forward.defaulted.iter().any(|n| n.member.contains("inverseInertiaLocal") || n.member.ends_with("].orientation")), "{}", forward.to_text());
}
