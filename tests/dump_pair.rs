//! The one dump shape across formats: `hkgen dump --format json` of the same Dark Souls asset as
//! Prepare to Die Edition wrote it (a 2010.2 packfile, 32-bit) and as Remastered wrote it (a 2015.1
//! TAG0 tagfile, 64-bit) differ only where the two SDKs' classes differ. The objects of the two
//! dumps are paired by walking both from their roots along the pointers (handles differ: a
//! packfile's are object indices, a tagfile's item indices), and every difference of a member's
//! value, presence or kind must be one of [`EXPECTED`], each with the reason the classes give.
//! Every listed difference must also occur, so the list stays the record of what is left.
//!
//! Needs the compiled-in classes of both SDKs (`hk2010_2` for the packfile's layouts, `hk2015_1`
//! for the tagfile's enumeration items): `cargo test --no-default-features --features
//! cli,hk2010_2,hk2015_1 --test dump_pair`.
#![cfg(all(feature = "cli", feature = "hk2010_2", feature = "hk2015_1"))]

mod common;

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::process::Command;

/// The pairs: (PTDE packfile, DSR tagfile) under the corpus.
const PAIRS: &[(&str, &str)] = &[
    ("soulstruct-havok/PTDE__c2240__a00_0000.hkx", "soulstruct-havok/DSR__c2240__a00_0000.hkx"),
    ("soulstruct-havok/PTDE__c2240__c2240.hkx", "soulstruct-havok/DSR__c2240__c2240.hkx"),
];

/// Every difference left, as (class of the object, member path within it, reason). A path's `[]`
/// stands for any element; class `*` for any class (a member of a base class).
const EXPECTED: &[(&str, &str, &str)] = &[
    // hkReferencedObject: 2010.2's `referenceCount` is 2015.1's `refCount`.
    ("*", "referenceCount", "renamed refCount in 2015.1 (hkReferencedObject, base of every object here)"),
    ("*", "refCount", "renamed from referenceCount in 2010.2 (hkReferencedObject)"),
    ("*", "motion.referenceCount", "hkReferencedObject's member renamed (hkpMotion inside hkpRigidBody)"),
    ("*", "motion.refCount", "hkReferencedObject's member renamed (hkpMotion inside hkpRigidBody)"),
    // Animation.
    ("hkaAnimationBinding", "partitionIndices", "new in 2015.1 (skeleton partitions)"),
    ("hkaDefaultAnimatedReferenceFrame", "frameType", "new in 2015.1"),
    ("hkaSplineCompressedAnimation", "data", "the compressed blocks: 4,016 bytes in PTDE, 4,000 in DSR (its own encoding of the same tracks)"),
    ("hkaSplineCompressedAnimation", "floatBlockOffsets[]", "where the float data starts in a block: after the 4,016 or 4,000 transform bytes"),
    ("hkaSkeleton", "partitions", "new in 2015.1"),
    ("hkaSkeletonMapper", "mapping.partitionMap", "new in 2015.1 (partitions)"),
    ("hkaSkeletonMapper", "mapping.simpleMappingPartitionRanges", "new in 2015.1 (partitions)"),
    ("hkaSkeletonMapper", "mapping.chainMappingPartitionRanges", "new in 2015.1 (partitions)"),
    // Physics.
    ("hkpCapsuleShape", "dispatchType", "new in 2015.1 (hkcdShape)"),
    ("hkpCapsuleShape", "bitsPerKey", "new in 2015.1 (hkcdShape)"),
    ("hkpCapsuleShape", "shapeInfoCodecType", "new in 2015.1 (hkcdShape)"),
    ("hkpCapsuleShape", "type", "0 in both (set at run time): 2010.2's hkpShape.type is an enum whose hkClass names no enumeration (a number), 2015.1's hkcdShape.type an hkEnum of hkcdShapeType (SPHERE)"),
    ("hkpRigidBody", "npData", "2010.2 only (removed by 2015.1)"),
    ("hkpRigidBody", "treeData", "2010.2 only (removed by 2015.1)"),
    ("hkpRigidBody", "motion.motionState.maxLinearVelocity", "hkUFloat8: an 8-bit integer member in 2010.2, a record {value} in 2015.1"),
    ("hkpRigidBody", "motion.motionState.maxAngularVelocity", "hkUFloat8: an 8-bit integer member in 2010.2, a record {value} in 2015.1"),
    ("hkpRigidBody", "motion.motionState.sweptTransform", "hkSweptTransform: a record of five vectors in 2010.2, a fixed array of them in 2015.1"),
    ("hkpRagdollConstraintData", "atoms.ballSocket.velocityStabilizationFactor", "hkUFloat8: an integer in 2010.2, a record {value} in 2015.1"),
    ("hkpRagdollConstraintData", "atoms.ballSocket.maxImpulse", "2010.2 only (2015.1 has breachImpulse)"),
    ("hkpRagdollConstraintData", "atoms.ballSocket.breachImpulse", "new in 2015.1"),
    ("hkpRagdollConstraintData", "atoms.ballSocket.enableLinearImpulseLimit", "new in 2015.1"),
    ("hkpRagdollConstraintData", "atoms.coneLimit.angularLimitsDampFactor", "new in 2015.1"),
    ("hkpRagdollConstraintData", "atoms.planesLimit.angularLimitsDampFactor", "new in 2015.1"),
    ("hkpRagdollConstraintData", "atoms.twistLimit.angularLimitsDampFactor", "new in 2015.1"),
    ("hkpRagdollConstraintData", "atoms.coneLimit.memOffsetToAngleOffset", "an offset into the runtime's solver data: 32-bit layout in PTDE, 64-bit in DSR"),
    ("hkpRagdollConstraintData", "atoms.ragdollMotors.initializedOffset", "an offset into the runtime's solver data, 0 in DSR's 64-bit file"),
    ("hkpRagdollConstraintData", "atoms.ragdollMotors.previousTargetAnglesOffset", "an offset into the runtime's solver data, 0 in DSR's 64-bit file"),
    ("hkpRagdollConstraintData", "atoms.setupStabilization.padding", "2010.2 only"),
    ("hkpRagdollConstraintData", "atoms.setupStabilization.maxLinImpulse", "new in 2015.1"),
    ("hkpRagdollConstraintData", "atoms.setupStabilization.maxAngImpulse", "new in 2015.1"),
];

/// `hkgen dump --format json` of corpus file `rel`, through the binary this test is built with.
fn dump(corpus: &std::path::Path, rel: &str) -> Option<Value> {
    // The one way the tests read a named corpus file (a missing one fails under
    // HKGEN_REQUIRE_CORPUS=1).
    common::corpus_file(corpus, rel)?;
    let out = Command::new(env!("CARGO_BIN_EXE_hkgen")).args(["dump", "--format", "json"]).arg(corpus.join(rel)).output().unwrap();
    assert!(out.status.success(), "hkgen dump {rel}: {}", String::from_utf8_lossy(&out.stderr));
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

/// A pointer's handle.
fn handle(v: &Value) -> Option<u64> {
    match v {
        Value::Object(m) if m.len() == 1 => m.get("ref")?.as_u64(),
        _ => None,
    }
}

/// A dump's objects by handle.
fn objects(d: &Value) -> HashMap<u64, &Value> {
    d["objects"].as_array().unwrap().iter().map(|o| (o["handle"].as_u64().unwrap(), o)).collect()
}

/// One difference: the object's class, the member path, what differs.
type Found = BTreeMap<(String, String), String>;

struct Walk<'a> {
    a: HashMap<u64, &'a Value>,
    b: HashMap<u64, &'a Value>,
    todo: Vec<(u64, u64)>,
    found: Found,
}

impl Walk<'_> {
    fn differ(&mut self, class: &str, path: &str, what: String) {
        self.found.entry((class.to_owned(), path.to_owned())).or_insert(what);
    }

    /// Compares two values of member `path` of a `class` object; pointers pair their objects.
    fn value(&mut self, class: &str, path: &str, x: &Value, y: &Value) {
        if let (Some(h), Some(g)) = (handle(x), handle(y)) {
            self.todo.push((h, g));
            return; // not-a-skip: two pointers pair their objects, compared when popped
        }
        match (x, y) {
            (Value::Object(p), Value::Object(q)) => {
                for k in p.keys().chain(q.keys().filter(|k| !p.contains_key(*k))) {
                    let sub = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                    match (p.get(k), q.get(k)) {
                        (Some(v), Some(w)) => self.value(class, &sub, v, w),
                        (Some(_), None) => self.differ(class, &sub, "only in the 2010.2 packfile".into()),
                        _ => self.differ(class, &sub, "only in the 2015.1 tagfile".into()),
                    }
                }
            }
            (Value::Array(p), Value::Array(q)) if p.len() == q.len() => {
                for (v, w) in p.iter().zip(q) {
                    self.value(class, &format!("{path}[]"), v, w);
                }
            }
            _ if x == y => {}
            _ => {
                let short = |v: &Value| v.to_string().chars().take(80).collect::<String>();
                self.differ(class, path, format!("{} vs {}", short(x), short(y)))
            }
        }
    }
}

fn expected(class: &str, path: &str) -> Option<&'static (&'static str, &'static str, &'static str)> {
    EXPECTED.iter().find(|(c, p, _)| (*c == class || *c == "*") && *p == path)
}

#[test]
fn ptde_packfile_and_dsr_tagfile_dump_alike() {
    let Some(corpus) = common::corpus() else { return };
    let mut used = BTreeSet::new();
    let mut unexplained = Vec::new();
    for (ptde, dsr) in PAIRS {
        let (Some(a), Some(b)) = (dump(&corpus, ptde), dump(&corpus, dsr)) else { continue };
        assert_eq!((a["format"].as_str(), a["sdk"].as_str()), (Some("packfile"), Some("2010.2")), "{ptde}");
        assert_eq!((b["format"].as_str(), b["sdk"].as_str()), (Some("tagfile"), Some("2015.1")), "{dsr}");
        let (oa, ob) = (objects(&a), objects(&b));
        let mut w = Walk { a: oa, b: ob, todo: vec![(a["root"].as_u64().unwrap(), b["root"].as_u64().unwrap())], found: Found::new() };
        let mut seen = BTreeSet::new();
        while let Some((h, g)) = w.todo.pop() {
            if !seen.insert((h, g)) {
                continue;
            }
            let (x, y) = (w.a[&h], w.b[&g]);
            let class = x["class"].as_str().unwrap().to_owned();
            assert_eq!(Some(class.as_str()), y["class"].as_str(), "{ptde} object {h} and {dsr} object {g}");
            w.value(&class, "", &x["members"], &y["members"]);
        }
        // Every object of either file is reached from its root, and paired once.
        assert_eq!(seen.len(), w.a.len(), "{ptde}: objects not paired");
        assert_eq!(seen.len(), w.b.len(), "{dsr}: objects not paired");
        for ((class, path), what) in &w.found {
            eprintln!("{ptde} vs {dsr}: {class}.{path}: {what}");
            match expected(class, path) {
                Some(e) => {
                    used.insert(*e);
                }
                None => unexplained.push(format!("{ptde} vs {dsr}: {class}.{path}: {what}")),
            }
        }
    }
    assert!(unexplained.is_empty(), "differences no class difference explains:\n{}", unexplained.join("\n"));
    let unused: Vec<_> = EXPECTED.iter().filter(|e| !used.contains(*e)).collect();
    assert!(unused.is_empty(), "listed differences that no longer occur: {unused:?}");
}
