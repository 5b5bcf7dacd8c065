//! The complete class sources (serde-hkx for 2010.2, DSMapStudio for 2014.1) checked fact by fact:
//! every class signature recomputed from the imported members against the one the source states
//! and the ones corpus packfiles store, and every size and offset our layout rules compute against
//! the source's. The counts and the disagreements are asserted exactly, so that a change to the
//! importers, the signature recipe or the layout rules that loses (or gains) an agreement fails.

mod common;

use hkgen::reflection::facts::{self, Disagreement, SourceFacts};
use hkgen::reflection::sources::sdk_of_contents_version;
use hkgen::reflection::{dsmapstudio, serde_hkx, signature};
use hktypes::packfile::{LayoutRules, PackFile};
use std::collections::BTreeMap;
use std::path::Path;

fn lines(d: &[Disagreement]) -> Vec<String> {
    d.iter().map(ToString::to_string).collect()
}

/// Class -> signatures the corpus packfiles of `sdk` store, with the files that store each.
fn stored(corpus: &Path, sdk: &str) -> BTreeMap<String, BTreeMap<u32, Vec<String>>> {
    let mut out: BTreeMap<String, BTreeMap<u32, Vec<String>>> = BTreeMap::new();
    for e in common::manifest(corpus).into_iter().filter(|e| e.format == "packfile") {
        let bytes = std::fs::read(&e.path).unwrap();
        let file = PackFile::read(&bytes).unwrap();
        if sdk_of_contents_version(&file.contents_version()) != sdk {
            continue;
        }
        for c in &file.class_names().entries {
            out.entry(c.name.clone()).or_default().entry(c.signature).or_default().push(e.relpath.clone());
        }
    }
    out
}

/// (classes of the files the source has, of which agree, disagreements as `class: files store X
/// (N files), source computes Y`).
fn against_files(f: &SourceFacts, stored: &BTreeMap<String, BTreeMap<u32, Vec<String>>>) -> (usize, usize, Vec<String>) {
    let (mut known, mut agree, mut bad) = (0, 0, Vec::new());
    for (name, sigs) in stored {
        if !f.schema.classes.contains_key(name) {
            continue;
        }
        known += 1;
        let computed = signature::class_signature(&f.schema, name);
        for (sig, files) in sigs {
            if computed.as_ref().is_ok_and(|c| c == sig) {
                agree += 1;
            } else {
                let c = computed.as_ref().map_or_else(|m| m.to_string(), |c| format!("{c:#010x}"));
                bad.push(format!("{name}: files store {sig:#010x} ({} files, e.g. {}), source gives {c}", files.len(), files[0]));
            }
        }
    }
    (known, agree, bad)
}

#[test]
fn serde_hkx_2010_2() {
    let Some(corpus) = common::corpus() else { return };
    let f = serde_hkx::load(&common::classdata(&corpus).join(serde_hkx::FOLDER)).unwrap();
    assert_eq!((f.schema.classes.len(), f.schema.enums.len(), f.signatures.len()), (678, 162, 678));

    // (a) The stated signatures: all but six recompute from the imported members.
    let sig = facts::signature_disagreements(&f);
    eprintln!("serde-hkx: {} of {} stated signatures recompute", f.signatures.len() - sig.len(), f.signatures.len());
    assert_eq!(
        lines(&sig),
        [
            "hkColor: source 0x106b96ce, computed 0x47d72852",
            "hkMonitorStreamColorTable: source 0x79e53e85, computed 0xadcaedf9",
            "hkMonitorStreamColorTableColorPair: source 0x738fca05, computed 0x6a0ca221",
            "hkpRejectChassisListener: source 0xc4fa16c9, computed 0x1bfc9b0b",
            "hkpVehicleLinearCastWheelCollide: source 0xc59399d0, computed 0x033e567d",
            "hkpVehicleRayCastWheelCollide: source 0x41efd9e3, computed 0x31b2f38c",
        ]
    );

    // Interface counts found from the x86_64 offsets (each gives the stated signature too).
    let interfaces: Vec<(&str, u32)> = f.schema.classes.values().filter(|c| c.interfaces > 0).map(|c| (c.name.as_str(), c.interfaces)).collect();
    assert_eq!(interfaces.len(), 15, "{interfaces:?}");
    assert!(interfaces.contains(&("hkBaseObject", 1)) && interfaces.contains(&("hkpShapeCollection", 1)));

    // (c) Sizes and offsets under x86 (4,1,0,1) and x86_64 (8,1,0,1). hkpWorld hides a member its
    // reflection does not describe (m_dynamicsStepInfo, 320 bytes): laid out from its members
    // alone it disagrees in size and six offsets under both rules, so its override keeps the
    // source's two layouts (and it cannot be laid out for other platforms).
    let hidden: Vec<&String> = f.schema.overrides.iter().filter(|(_, o)| o.hidden_members).map(|(n, _)| n).collect();
    assert_eq!(hidden, ["hkpWorld"]);
    let mut bare = f.clone();
    bare.schema.overrides.clear();
    let world = |d: Vec<Disagreement>| d.iter().filter(|d| d.class == "hkpWorld").map(ToString::to_string).collect::<Vec<_>>();
    assert_eq!(
        world(facts::layout_disagreements(&bare, serde_hkx::X86).1),
        [
            "hkpWorld: source size 864, computed size 544",
            "hkpWorld.broadPhaseExtents: source 800, computed 480",
            "hkpWorld.broadPhaseNumMarkers: source 832, computed 512",
            "hkpWorld.sizeOfToiEventQueue: source 836, computed 516",
            "hkpWorld.broadPhaseQuerySize: source 840, computed 520",
            "hkpWorld.broadPhaseUpdateSize: source 844, computed 524",
            "hkpWorld.contactPointGeneration: source 848, computed 528",
        ]
    );
    assert_eq!(world(facts::layout_disagreements(&bare, serde_hkx::X86_64).1).len(), 7);
    let (n, x86) = facts::layout_disagreements(&f, serde_hkx::X86);
    eprintln!("serde-hkx x86: {} of {n} sizes and offsets agree", n - x86.len());
    assert_eq!(n, 3643);
    assert_eq!(
        lines(&x86),
        [
            "hkpRejectChassisListener: source size 16, computed size 12",
            "hkpRejectChassisListener.chassis: source 12, computed 8",
            "hkpVehicleLinearCastWheelCollide: source size 52, computed size 48",
            "hkpVehicleLinearCastWheelCollide.maxExtraPenetration: source 44, computed 40",
            "hkpVehicleLinearCastWheelCollide.startPointTolerance: source 48, computed 44",
            "hkpVehicleRayCastWheelCollide: source size 36, computed size 32",
        ]
    );
    let (n, x64) = facts::layout_disagreements(&f, serde_hkx::X86_64);
    eprintln!("serde-hkx x86_64: {} of {n} sizes and offsets agree", n - x64.len());
    assert_eq!(n, 3643);
    assert_eq!(
        lines(&x64),
        [
            // (hkbCharacter's simple array agrees since a simple array is laid out as the pointer
            // and 32-bit count Havok declares, P + 4 bytes unpadded.)
            // The readme's "different signature" class: its x86_64 facts come from another build.
            "hkpCompressedMeshShape: source size 304, computed size 288",
        ]
    );

    // (b) The signatures the corpus's 2010.2 packfiles store.
    let (known, agree, bad) = against_files(&f, &stored(&corpus, "2010.2"));
    eprintln!("serde-hkx against the 2010.2 files: {known} classes, {agree} stored signatures agree, {} do not", bad.len());
    for b in &bad {
        eprintln!("  {b}");
    }
    assert_eq!((known, agree, bad.len()), (87, 87, 0), "{bad:#?}");
}

#[test]
fn dsmapstudio_2014_1() {
    let Some(corpus) = common::corpus() else { return };
    let (f, recovered) = dsmapstudio::load(&common::classdata(&corpus).join(dsmapstudio::FOLDER)).unwrap();
    assert_eq!((f.schema.classes.len(), f.schema.enums.len(), f.signatures.len()), (1362, 343, 1362));

    // The XML keeps only SERIALIZE_IGNORED: the other flags (and two interfaces) come back from
    // the stated signatures.
    let count = |flag: u16| recovered.iter().filter(|r| r.flag == flag).count();
    use hkgen::schema::model::member_flags::{ALIGN_16, ALIGN_8, NOT_OWNED};
    eprintln!(
        "dsmapstudio: recovered {} ALIGN_16, {} ALIGN_8, {} NOT_OWNED, {} interfaces",
        count(ALIGN_16),
        count(ALIGN_8),
        count(NOT_OWNED),
        count(0)
    );
    assert_eq!((recovered.len(), count(0)), (67, 2), "{recovered:#?}");

    // (a) The stated signatures.
    let sig = facts::signature_disagreements(&f);
    eprintln!("dsmapstudio: {} of {} stated signatures recompute", f.signatures.len() - sig.len(), f.signatures.len());
    assert_eq!(
        lines(&sig),
        [
            "hkaiLineOfSightUtilDirectPathInput: source 0x3996e690, computed enum UserEdgeFlagBits is not in the schema",
            "hkaiLineOfSightUtilInputBase: source 0x399a366c, computed enum UserEdgeFlagBits is not in the schema",
            "hkaiLineOfSightUtilLineOfSightInput: source 0x6747e873, computed enum UserEdgeFlagBits is not in the schema",
            "hkaiTraversalAnnotationLibrary: source 0x7a7524f7, computed enum hkaiTraversalType is not in the schema",
            "hkaiTraversalAnnotationLibraryAnnotation: source 0x536da0c3, computed enum hkaiTraversalType is not in the schema",
            "hkbnpPhysicsInterface: source 0xe96e7679, computed class hkbPhysicsInterface is not in the schema",
            "hknpConstraintCinfo: source 0x67ea986d, computed 0xc6a19005",
            "hknpPhysicsSystemData: source 0xb857718b, computed 0x4ccde401",
            "hknpRagdollData: source 0xdc8f20ab, computed 0xb9a46ed6",
            "hknpWorldSnapshot: source 0x70aa3c32, computed 0x9e0d0c8c",
            "hkpSimpleShapePhantom: source 0x9b09059f, computed class hkpSimpleShapePhantomCollisionDetail is not in the schema",
        ]
    );

    // (c) Sizes and offsets under 8,1,0,1.
    let (n, d) = facts::layout_disagreements(&f, dsmapstudio::RULES);
    eprintln!("dsmapstudio 8,1,0,1: {} of {n} sizes and offsets agree", n - d.len());
    assert_eq!(n, 7307);
    assert_eq!(
        lines(&d),
        [
            // (CustomMeshParameter and CustomMeshTriangleParameter, whose simple arrays the source
            // packs as a pointer and a 32-bit count declared apart, agree since our rules do the
            // same: Havok 5.5's 8-byte allosaur files, reuse-padding on, show it.)
            "hkbnpPhysicsInterface: source size 160, computed class hkbPhysicsInterface is not in the schema",
        ]
    );

    // (b) The signatures the corpus's 2014.1 packfiles store.
    let (known, agree, bad) = against_files(&f, &stored(&corpus, "2014.1"));
    eprintln!("dsmapstudio against the 2014.1 files: {known} classes, {agree} stored signatures agree, {} do not", bad.len());
    for b in &bad {
        eprintln!("  {b}");
    }
    // The two the files disagree with are two of the stated signatures that do not recompute:
    // the files store the source's signature, and the member flags it dropped are more than two.
    // The files decide (sources::extract takes these classes from the FromSoft table).
    assert_eq!((known, agree), (93, 91));
    assert_eq!(
        bad.iter().map(|b| b.split(':').next().unwrap()).collect::<Vec<_>>(),
        ["hknpPhysicsSystemData", "hknpRagdollData"],
        "{bad:#?}"
    );
}

/// The layout rules a source's offsets follow are the ones its importer names.
#[test]
fn source_layout_rules() {
    assert_eq!(serde_hkx::X86, LayoutRules::parse("4,1,0,1").unwrap());
    assert_eq!(serde_hkx::X86_64, LayoutRules::parse("8,1,0,1").unwrap());
    assert_eq!(dsmapstudio::RULES, LayoutRules::parse("8,1,0,1").unwrap());
}

/// `verify` names every class whose signature does not recompute, with the stored signature and
/// the computed one (or why none is), in its JSON `mismatches` and in its error.
#[test]
fn verify_names_the_classes_whose_signatures_do_not_recompute() {
    use hkgen::reflection::check::ClassSchemas;
    let Some(corpus) = common::corpus() else { return };
    let e = common::manifest(&corpus).into_iter().find(|e| e.format == "packfile" && e.sdk == "hk_2014.1.0-r1").unwrap();
    let bytes = std::fs::read(&e.path).unwrap();
    let file = PackFile::read(&bytes).unwrap();
    let names: Vec<(String, u32)> = file.class_names().entries.iter().map(|c| (c.name.clone(), c.signature)).collect();
    let mut schema = hkgen::reflection::snapshot::read(&common::workspace_root().join("schemas"), "2014.1").unwrap();
    // The first class leaves the schema; the last gets an interface it does not have.
    let (gone, gone_sig) = names[0].clone();
    let (changed, changed_sig) = names[names.len() - 1].clone();
    schema.classes.remove(&gone);
    schema.classes.get_mut(&changed).unwrap().interfaces += 1;
    let computed = signature::class_signature(&schema, &changed).unwrap();
    let verifier = hkgen::verify::Verifier { class_schemas: ClassSchemas::from_schemas([schema]), ..Default::default() };
    let r = verifier.verify(&e.relpath, &bytes, &Default::default());
    let want_gone = format!("{gone} (stored {gone_sig:#010x}, class {gone} is not in the schema)");
    let want_changed = format!("{changed} (stored {changed_sig:#010x}, computed {computed:#010x})");
    assert!(r.mismatches.contains(&want_gone) && r.mismatches.contains(&want_changed), "{:?}", r.mismatches);
    let n = r.mismatches.len();
    let error = r.error.unwrap();
    assert!(error.starts_with(&format!("{n} of {} class signatures do not recompute: ", names.len())), "{error}");
    assert!(error.contains(&want_gone) && error.contains(&want_changed), "{error}");
}
