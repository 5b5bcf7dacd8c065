//! `hkgen convert --sdk` across a class replaced by another (`replacements` in
//! `schemas/migrations/physics.ron`): Dark Souls III's hknp ragdoll (c1400.HKX, 2014.1) as a 2015.1
//! hkp one, and Dark Souls Remastered's hkp ragdoll (DSR__c2240__c2240.hkx, 2015.1) as a 2016.2
//! hknp one and back.
//!
//! `cargo test --no-default-features --features cli,all-sdks --test convert_replace`.
#![cfg(all(feature = "cli", feature = "hk2014_1", feature = "hk2015_1", feature = "hk2016_2"))]

mod common;
#[path = "common/hkgen_verify.rs"]
mod hkgen_verify;

use hkgen::convert::{self, Migrations, Options, Report, TargetFormat};
use hktypes::dump::{Members, Val};
use hktypes::{Document, Handle};
use std::collections::BTreeMap;

const C1400: &str = "monaxiastr__MonaxiaSouls/MonaxiaSouls/chr/c1400.chrbnd/chr/c1400/c1400.HKX";
const DSR: &str = "soulstruct-havok/DSR__c2240__c2240.hkx";

fn migrations() -> &'static Migrations {
    static M: std::sync::OnceLock<Migrations> = std::sync::OnceLock::new();
    M.get_or_init(Migrations::builtin)
}

fn open(bytes: &[u8]) -> Document {
    hktypes::open(bytes, &hkclasses::open_options()).unwrap()
}

/// `doc` as a tagfile of `sdk`, losses allowed (each is in the report).
fn convert(doc: &Document, sdk: &str) -> (Vec<u8>, Report) {
    let o = Options { sdk: sdk.to_owned(), format: TargetFormat::Tagfile, classes: &hkclasses::REGISTRY, migrations: migrations(), compendia: None, prefer: None };
    convert::convert(doc, &o, true).unwrap_or_else(|e| panic!("{e}"))
}

/// `hkgen verify FILE` passes.
fn verify(bytes: &[u8], name: &str) {
    hkgen_verify::verify("convert_replace", bytes, name).unwrap_or_else(|e| panic!("{e}"));
}

fn objects<'d>(doc: &'d Document, class: &str) -> Vec<(Handle, Members)> {
    doc.handles().into_iter().filter(|h| doc.class_name(*h).as_deref() == Some(class)).map(|h| (h, doc.members(h).unwrap())).collect()
}

fn at<'m>(m: &'m Members, path: &str) -> &'m Val {
    let mut parts = path.split('.');
    let mut v = m.get(parts.next().unwrap()).unwrap_or_else(|| panic!("no {path}"));
    for p in parts {
        let Val::Record(r) = v else { panic!("{path}: {v:?}") };
        v = r.get(p).unwrap_or_else(|| panic!("no {path}"));
    }
    v
}

fn reals(v: &Val) -> Vec<f32> {
    let (Val::List(l) | Val::Array(l, _)) = v else { panic!("{v:?}") };
    l.iter().map(|x| if let Val::Real(r) = x { *r } else { panic!("{x:?}") }).collect()
}

fn real(v: &Val) -> f32 {
    let Val::Real(r) = v else { panic!("{v:?}") };
    *r
}

fn text(v: &Val) -> String {
    let Val::Str(s) = v else { panic!("{v:?}") };
    s.clone()
}

fn handle(v: &Val) -> Handle {
    let Val::Ref(h, _) = v else { panic!("{v:?}") };
    Handle(*h)
}

fn close(a: &[f32], b: &[f32], tol: f32, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= tol, "{what}: {a:?} against {b:?}");
    }
}

/// Vector `v` rotated by unit quaternion `q` (x, y, z, w) as q v q*, in 64 bits: another
/// computation than the converter's matrix.
fn rotate(q: &[f32], v: [f64; 3]) -> [f64; 3] {
    let (x, y, z, w) = (f64::from(q[0]), f64::from(q[1]), f64::from(q[2]), f64::from(q[3]));
    let u = [x, y, z];
    let cross = |a: [f64; 3], b: [f64; 3]| [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
    let t = cross(u, v).map(|c| 2.0 * c);
    let ut = cross(u, t);
    [v[0] + w * t[0] + ut[0], v[1] + w * t[1] + ut[1], v[2] + w * t[2] + ut[2]]
}

/// The losses of a report by what they are: (class, member path without element indices) -> count.
fn losses(r: &Report) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for n in &r.lost {
        let mut member = String::new();
        let mut skip = false;
        for c in n.member.chars() {
            match c {
                '[' => skip = true,
                ']' => skip = false,
                c if !skip => member.push(c),
                _ => {}
            }
        }
        *out.entry(format!("{}.{member}", n.class)).or_default() += 1;
    }
    out
}

/// c1400's 19 hknp bodies become 19 hkpRigidBody objects placed where the source placed them
/// (the transform's translation is the position, its axes the orientation's), on 19
/// hkpCapsuleShape with the same ends and radii; its 18 constraints 18 hkpConstraintInstance
/// between the same bodies (child, parent), whose data are the same pivots; an
/// hkaRagdollInstance of the bodies, constraints, skeleton and bone map, which the root names as
/// DSR's does. The file verifies; every loss is one of the kinds listed, each by name.
#[test]
fn c1400_hknp_ragdoll_as_2015_1_hkp() {
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, C1400) else { return };
    let src = open(&bytes);
    let (out, report) = convert(&src, "2015.1");
    verify(&out, "c1400_2015_1.hkx");
    let dst = open(&out);

    // The losses, kind by kind: what hkp keeps elsewhere or not at all.
    let lost = losses(&report);
    let expected: BTreeMap<String, usize> = [
        ("hkRefCountedProperties.", 19),
        ("hknpShapeMassProperties.", 19),
        ("hkpLimitedHingeConstraintData.", 4),
        ("hknpRagdollData.motionCinfos", 1),
        ("hknpRagdollData.constraintCinfos.data", 4),
        ("hknpCapsuleShape.properties", 19),
    ]
    .into_iter()
    .map(|(k, n)| (k.to_owned(), n))
    .collect();
    assert_eq!(lost, expected, "{}", report.to_text());

    let (_, ragdoll) = objects(&src, "hknpRagdollData").pop().unwrap();
    let Val::List(bodies) = at(&ragdoll, "bodyCinfos") else { panic!() };
    let Val::List(constraints) = at(&ragdoll, "constraintCinfos") else { panic!() };
    let (_, system) = objects(&dst, "hkpPhysicsSystem").pop().unwrap();
    let Val::List(rigid) = at(&system, "rigidBodies") else { panic!() };
    let Val::List(instances) = at(&system, "constraints") else { panic!() };
    assert_eq!((bodies.len(), rigid.len()), (19, 19));
    assert_eq!((constraints.len(), instances.len()), (18, 18));

    let index = |v: &Val| match v {
        Val::UInt(i) => *i as usize,
        Val::Int(i) => *i as usize,
        v => panic!("{v:?}"),
    };
    let mut max_apart = 0f32;
    for (b, r) in bodies.iter().zip(rigid) {
        let Val::Record(b) = b else { panic!() };
        let rb = dst.members(handle(r)).unwrap();
        assert_eq!(text(at(b, "name")), text(at(&rb, "name")));
        // Placed where the source placed it.
        let q = reals(at(b, "orientation"));
        let p = reals(at(b, "position"));
        let t = reals(at(&rb, "motion.motionState.transform"));
        close(&t[12..15], &p[..3], 0.0, "translation");
        for (k, axis) in [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]].into_iter().enumerate() {
            let want = rotate(&q, axis).map(|c| c as f32);
            let got = &t[4 * k..4 * k + 3];
            for (x, y) in got.iter().zip(want) {
                max_apart = max_apart.max((x - y).abs());
            }
        }
        // Its motion's inverse mass and inertia (2014.1 keeps them in motionCinfos[motionId]).
        let Val::List(motions) = at(&ragdoll, "motionCinfos") else { panic!() };
        let Val::Record(motion) = &motions[index(at(b, "motionId"))] else { panic!() };
        let inv = reals(at(&rb, "motion.inertiaAndMassInv"));
        close(&inv[..3], &reals(at(motion, "inverseInertiaLocal"))[..3], 0.0, "inverse inertia");
        assert_eq!(inv[3], real(at(motion, "inverseMass")));
        assert_eq!(at(&rb, "motion.type"), &Val::Str("MOTION_BOX_INERTIA".into()));
        let swept = at(&rb, "motion.motionState.sweptTransform");
        let Val::List(swept) = swept else { panic!() };
        close(&reals(&swept[2]), &q, 0.0, "sweptTransform rotation");
        // The centre of mass as Havok's hkp bodies hold it (DSR's): the motion's, at time 0 (w),
        // twice, and in the body's frame (the position plus the rotated local one gives it).
        let com = reals(at(motion, "centerOfMassWorld"));
        close(&reals(&swept[0])[..3], &com[..3], 0.0, "sweptTransform center");
        assert_eq!((reals(&swept[0])[3], &swept[0]), (0.0, &swept[1]));
        let local = reals(&swept[4]);
        let back = rotate(&q, [0, 1, 2].map(|k| f64::from(local[k])));
        close(&[0, 1, 2].map(|k| (back[k] + f64::from(p[k])) as f32), &com[..3], 1e-6, "sweptTransform local centre");
        // The same capsule.
        let shape = src.members(handle(at(b, "shape"))).unwrap();
        let cap_h = handle(at(&rb, "collidable.shape"));
        assert_eq!(dst.class_name(cap_h).as_deref(), Some("hkpCapsuleShape"));
        let cap = dst.members(cap_h).unwrap();
        let radius = real(at(&shape, "convexRadius"));
        assert_eq!(real(at(&cap, "radius")), radius);
        close(&reals(at(&cap, "vertexA"))[..3], &reals(at(&shape, "a"))[..3], 0.0, "vertexA");
        close(&reals(at(&cap, "vertexB"))[..3], &reals(at(&shape, "b"))[..3], 0.0, "vertexB");
        assert_eq!(reals(at(&cap, "vertexA"))[3], radius, "vertexA.w holds the radius, as DSR's");
        // Its material's friction and restitution (2014.1 keeps them in materials[materialId]).
        let Val::List(materials) = at(&ragdoll, "materials") else { panic!() };
        let Val::Record(material) = &materials[index(at(b, "materialId"))] else { panic!() };
        assert_eq!(real(at(&rb, "material.friction")), real(at(material, "dynamicFriction")));
        assert_eq!(real(at(&rb, "material.restitution")), real(at(material, "restitution")));
        // Its motion properties (2014.1 keeps them in motionProperties[motionCinfos[motionId].motionPropertiesId]).
        let Val::List(motions) = at(&ragdoll, "motionCinfos") else { panic!() };
        let Val::Record(motion) = &motions[index(at(b, "motionId"))] else { panic!() };
        let Val::List(props) = at(&ragdoll, "motionProperties") else { panic!() };
        let Val::Record(mp) = &props[index(at(motion, "motionPropertiesId"))] else { panic!() };
        for (hkp, hknp) in [("motion.motionState.linearDamping", "linearDamping"), ("motion.motionState.angularDamping", "angularDamping"), ("motion.gravityFactor", "gravityFactor"), ("motion.motionState.timeFactor", "timeFactor")] {
            assert_eq!(real(at(&rb, hkp)), real(at(mp, hknp)), "{hkp}");
        }
    }
    assert!(max_apart < 1e-6, "the transform's axes are the orientation's within {max_apart}");

    let names: Vec<String> = bodies.iter().map(|b| if let Val::Record(b) = b { text(at(b, "name")) } else { panic!() }).collect();
    let mut pivots = 0;
    for (c, i) in constraints.iter().zip(instances) {
        let Val::Record(c) = c else { panic!() };
        let ci = dst.members(handle(i)).unwrap();
        let Val::List(entities) = at(&ci, "entities") else { panic!() };
        let name_of = |v: &Val| text(at(&dst.members(handle(v)).unwrap(), "name"));
        assert_eq!(name_of(&entities[0]), names[index(at(c, "bodyA"))]);
        assert_eq!(name_of(&entities[1]), names[index(at(c, "bodyB"))]);
        // The same pivots, where the data's class is in 2015.1.
        let data = handle(at(c, "constraintData"));
        if src.class_name(data).as_deref() != Some("hkpRagdollConstraintData") {
            assert_eq!(at(&ci, "data"), &Val::Null, "an hkpLimitedHingeConstraintData, which 2015.1 lacks (a loss)");
            continue;
        }
        let (a, b) = (src.members(data).unwrap(), dst.members(handle(at(&ci, "data"))).unwrap());
        for t in ["atoms.transforms.transformA", "atoms.transforms.transformB"] {
            close(&reals(at(&a, t)), &reals(at(&b, t)), 0.0, t);
        }
        pivots += 1;
    }
    assert_eq!(pivots, 14);

    // The ragdoll instance made besides the system, as DSR's: the same bodies and constraints,
    // the ragdoll's skeleton and bone map.
    let (_, instance) = objects(&dst, "hkaRagdollInstance").pop().unwrap();
    assert_eq!(at(&instance, "rigidBodies"), at(&system, "rigidBodies"));
    assert_eq!(at(&instance, "constraints"), at(&system, "constraints"));
    let ints = |v: &Val| if let Val::List(l) = v { l.iter().map(index).collect::<Vec<usize>>() } else { panic!("{v:?}") };
    assert_eq!(ints(at(&instance, "boneToRigidBodyMap")), ints(at(&ragdoll, "boneToBodyMap")));
    let skeleton_name = |d: &Document, v: &Val| text(at(&d.members(handle(v)).unwrap(), "name"));
    assert_eq!(skeleton_name(&dst, at(&instance, "skeleton")), skeleton_name(&src, at(&ragdoll, "skeleton")));

    // The root names the replacing classes beside their objects.
    let (_, root) = objects(&dst, "hkRootLevelContainer").pop().unwrap();
    let Val::List(variants) = at(&root, "namedVariants") else { panic!() };
    let classes: Vec<String> = variants.iter().map(|v| if let Val::Record(v) = v { text(at(v, "className")) } else { panic!() }).collect();
    assert_eq!(classes, ["hkaAnimationContainer", "hkpPhysicsData", "hkaRagdollInstance", "hkaSkeletonMapper", "hkaSkeletonMapper"]);
    for v in variants {
        let Val::Record(v) = v else { panic!() };
        assert_eq!(dst.class_name(handle(at(v, "variant"))), Some(text(at(v, "className"))));
    }
}

/// DSR's hkp capsules as 2016.2 hknp ones and back give DSR's ends and radii; the physics data
/// and system are replaced both ways; the rigid bodies and constraint instances become hknp
/// records and back, with their names, transforms and constraint bodies.
#[test]
fn dsr_hkp_to_2016_2_hknp_and_back() {
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, DSR) else { return };
    let a = open(&bytes);
    let (b_bytes, to_b) = convert(&a, "2016.2");
    verify(&b_bytes, "dsr_2016_2.hkx");
    let b = open(&b_bytes);
    assert_eq!(objects(&b, "hknpCapsuleShape").len(), 21);
    assert_eq!(objects(&b, "hknpPhysicsSceneData").len(), 1);
    assert_eq!(objects(&b, "hknpRagdollData").len(), 1);
    assert!(!to_b.lost.iter().any(|n| n.class == "hkpRigidBody" && n.what.contains("not in 2016.2")), "{}", to_b.to_text());
    for (_, cap) in objects(&b, "hknpCapsuleShape") {
        assert_eq!(reals(at(&cap, "a"))[3], 0.0, "a.w 0, as c1400's");
    }
    let (a2_bytes, _) = convert(&b, "2015.1");
    verify(&a2_bytes, "dsr_2016_2_2015_1.hkx");
    let a2 = open(&a2_bytes);
    let caps = |d: &Document| {
        let mut v: Vec<Vec<f32>> = objects(d, "hkpCapsuleShape")
            .into_iter()
            .map(|(_, m)| [reals(at(&m, "vertexA")), reals(at(&m, "vertexB")), vec![real(at(&m, "radius"))]].concat())
            .collect();
        v.sort_by(|x, y| x.partial_cmp(y).unwrap());
        v
    };
    let (before, after) = (caps(&a), caps(&a2));
    assert_eq!(before.len(), 21);
    assert_eq!(before, after, "A -> B -> A gives A's capsules");
    assert_eq!(objects(&a2, "hkpPhysicsData").len(), 1);
    let (_, s) = objects(&a2, "hkpPhysicsSystem").pop().unwrap();
    assert_eq!(text(at(&s, "name")), "Default Physics System");
    // The way back of the bodies and constraints: DSR's 21 hkpRigidBody objects as 21 records
    // of bodyCinfos and back, with their names, positions (the transform's last column) and
    // orientations (its rotation as a quaternion, then its axes) within 1e-6; the system's 20
    // constraints between the same bodies, on the same constraint data.
    let (_, rag) = objects(&b, "hknpRagdollData").pop().unwrap();
    let Val::List(bodies) = at(&rag, "bodyCinfos") else { panic!() };
    assert_eq!(bodies.len(), 21);
    let Val::List(cons) = at(&rag, "constraintCinfos") else { panic!() };
    assert_eq!(cons.len(), 20);
    // DSR's hkaRagdollInstance gives the ragdoll its skeleton and bone map; the map indexes the
    // instance's bodies (in bone order), re-pointed to the same bodies in bodyCinfos.
    let (_, inst) = objects(&a, "hkaRagdollInstance").pop().unwrap();
    let Val::List(inst_bodies) = at(&inst, "rigidBodies") else { panic!() };
    let ints = |v: &Val| if let Val::List(l) = v { l.iter().map(|x| match x { Val::Int(i) => *i, Val::UInt(i) => *i as i64, x => panic!("{x:?}") }).collect::<Vec<i64>>() } else { panic!("{v:?}") };
    let (map_a, map_b) = (ints(at(&inst, "boneToRigidBodyMap")), ints(at(&rag, "boneToBodyMap")));
    assert_eq!(map_a.len(), map_b.len());
    assert!(map_a != map_b, "DSR's instance lists the bodies in another order than its system");
    for (i, j) in map_a.iter().zip(&map_b) {
        assert_eq!(*i < 0, *j < 0);
        if *i >= 0 {
            let Val::Record(body) = &bodies[*j as usize] else { panic!() };
            assert_eq!(text(at(&a.members(handle(&inst_bodies[*i as usize])).unwrap(), "name")), text(at(body, "name")));
        }
    }
    let skel = |d: &Document, v: &Val| text(at(&d.members(handle(v)).unwrap(), "name"));
    assert_eq!(skel(&a, at(&inst, "skeleton")), skel(&b, at(&rag, "skeleton")));
    // Each body's motion: DYNAMIC (2, as all of Sekiro c7190's), its mass 1/DSR's inverse mass.
    let (_, sys_a) = objects(&a, "hkpPhysicsSystem").pop().unwrap();
    let Val::List(rbs) = at(&sys_a, "rigidBodies") else { panic!() };
    let inv_a: Vec<Vec<f32>> = rbs.iter().map(|h| reals(at(&a.members(handle(h)).unwrap(), "motion.inertiaAndMassInv"))).collect();
    for (body, inv) in bodies.iter().zip(&inv_a) {
        let Val::Record(body) = body else { panic!() };
        assert!(matches!(at(body, "motionType"), Val::UInt(2) | Val::Int(2)) || *at(body, "motionType") == Val::Str("DYNAMIC".into()), "DYNAMIC: {:?}", at(body, "motionType"));
        assert_eq!(real(at(body, "mass")), (1.0 / f64::from(inv[3])) as f32, "mass 1/inverse mass");
    }
    let system = |d: &Document| {
        let (_, s) = objects(d, "hkpPhysicsSystem").pop().unwrap();
        let list = |name: &str| {
            let Val::List(l) = at(&s, name) else { panic!() };
            l.iter().map(handle).collect::<Vec<Handle>>()
        };
        let bodies: Vec<(String, Vec<f32>)> = list("rigidBodies")
            .iter()
            .map(|h| {
                let m = d.members(*h).unwrap();
                (text(at(&m, "name")), reals(at(&m, "motion.motionState.transform")))
            })
            .collect();
        let index = |h: Handle| list("rigidBodies").iter().position(|b| *b == h).unwrap();
        let cons: Vec<(usize, usize)> = list("constraints")
            .iter()
            .map(|h| {
                let m = d.members(*h).unwrap();
                let Val::List(e) = at(&m, "entities") else { panic!() };
                (index(handle(&e[0])), index(handle(&e[1])))
            })
            .collect();
        (bodies, cons)
    };
    let ((bodies_a, cons_a), (bodies_a2, cons_a2)) = (system(&a), system(&a2));
    assert_eq!(bodies_a.len(), 21);
    for ((n, t), (n2, t2)) in bodies_a.iter().zip(&bodies_a2) {
        assert_eq!(n, n2);
        close(t, t2, 1e-6, n);
    }
    assert_eq!(cons_a, cons_a2, "constraints between the same bodies");
    // And with the same names (hknpConstraintCinfo.name in 2016.2).
    let constraint_names = |d: &Document| {
        let (_, s) = objects(d, "hkpPhysicsSystem").pop().unwrap();
        let Val::List(l) = at(&s, "constraints") else { panic!() };
        l.iter().map(|h| text(at(&d.members(handle(h)).unwrap(), "name"))).collect::<Vec<String>>()
    };
    assert!(constraint_names(&a).iter().all(|n| !n.is_empty()));
    assert_eq!(constraint_names(&a), constraint_names(&a2));
    // The inverse mass back exactly (0.2 -> 5 -> 0.2); the inverse inertia has no place in a
    // 2016.2 body (hknp derives it from the shape's mass properties): a named loss.
    let (_, sys_a2) = objects(&a2, "hkpPhysicsSystem").pop().unwrap();
    let Val::List(rbs2) = at(&sys_a2, "rigidBodies") else { panic!() };
    for (h, inv) in rbs2.iter().zip(&inv_a) {
        assert_eq!(reals(at(&a2.members(handle(h)).unwrap(), "motion.inertiaAndMassInv"))[3], inv[3], "inverse mass back");
    }
    assert_eq!(to_b.lost.iter().filter(|n| n.member.ends_with("motion.inertiaAndMassInv")).count(), 21, "{}", to_b.to_text());
}

const PTDE: &str = "soulstruct-havok/PTDE__c2240__c2240.hkx";

/// c1400's hknp ragdoll as a 2010.2 32-bit packfile (`--layout 4,1,0,1`): its 19 rigid bodies
/// and 18 constraint instances hold PTDE's stock values (those all 21 bodies and 40 instances of
/// PTDE__c2240__c2240.hkx share, from the `defaults` rules for 2010.2), not zeros, but for the
/// friction and restitution, c1400's own (its materials'); it verifies.
#[test]
#[cfg(feature = "hk2010_2")]
fn c1400_as_2010_2_packfile_takes_ptde_stock_values() {
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, C1400) else { return };
    let Some(ptde) = common::corpus_file(&corpus, PTDE) else { return };
    let ptde = open(&ptde);
    let a = open(&bytes);
    let format = TargetFormat::Packfile(hktypes::packfile::LayoutRules::parse("4,1,0,1").unwrap());
    let o = Options { sdk: "2010.2".to_owned(), format, classes: &hkclasses::REGISTRY, migrations: migrations(), compendia: None, prefer: None };
    let (b_bytes, _) = convert::convert(&a, &o, true).unwrap_or_else(|e| panic!("{e}"));
    verify(&b_bytes, "c1400_2010_2.hkx");
    let b = open(&b_bytes);
    assert_eq!(b.sdk().as_deref(), Some("2010.2"));
    let stock = |class: &str, paths: &[&str]| {
        let (_, want) = objects(&ptde, class).into_iter().next().unwrap();
        let got = objects(&b, class);
        assert!(!got.is_empty(), "no {class}");
        for (_, m) in &got {
            for p in paths {
                assert_eq!(at(m, p), at(&want, p), "{class}.{p}: PTDE's");
            }
        }
        got.len()
    };
    let bodies = stock(
        "hkpRigidBody",
        &[
            "collidable.shapeKey",
            "collidable.broadPhaseHandle.type",
            "collidable.broadPhaseHandle.objectQualityType",
            "material.responseType",
            "damageMultiplier",
            "storageIndex",
            "contactPointCallbackDelay",
            "uid",
            "spuCollisionCallback.eventFilter",
            "spuCollisionCallback.userFilter",
            "motion.type",
            "motion.deactivationIntegrateCounter",
            "motion.deactivationNumInactiveFrames",
            "motion.motionState.maxLinearVelocity",
            "motion.motionState.maxAngularVelocity",
            "motion.motionState.deactivationClass",
        ],
    );
    assert_eq!(bodies, 19);
    // Friction and restitution are c1400's (its 19 materials' 1.0 and 0.0), not PTDE's stock 0.3, 0.8.
    for (_, m) in objects(&b, "hkpRigidBody") {
        assert_eq!((real(at(&m, "material.friction")), real(at(&m, "material.restitution"))), (1.0, 0.0));
        // So are the damping, gravity and time factors (its 19 motion properties' 0.5, 1.0, 1.0,
        // 1.0), not PTDE's stock 0.0, 0.049804688, 1.0, 1.0.
        let motion = [real(at(&m, "motion.motionState.linearDamping")), real(at(&m, "motion.motionState.angularDamping")), real(at(&m, "motion.gravityFactor")), real(at(&m, "motion.motionState.timeFactor"))];
        assert_eq!(motion, [0.5, 1.0, 1.0, 1.0]);
    }
    let constraints = stock("hkpConstraintInstance", &["priority", "wantRuntime", "destructionRemapInfo"]);
    assert_eq!(constraints, 18);
    // The ragdoll constraints' solver offsets as PTDE's 32-bit build stores them (c1400's 64-bit
    // 2014.1 build: 56, 0, 0).
    let ragdolls = stock("hkpRagdollConstraintData", &["atoms.coneLimit.memOffsetToAngleOffset", "atoms.ragdollMotors.initializedOffset", "atoms.ragdollMotors.previousTargetAnglesOffset"]);
    assert_eq!(ragdolls, 14);
    // The mapped values are there too: capsule radii and the bodies' names.
    let names: Vec<String> = objects(&b, "hkpRigidBody").iter().map(|(_, m)| text(at(m, "name"))).collect();
    assert!(names.iter().all(|n| !n.is_empty()), "{names:?}");
}

/// The stock hknp motion properties Havok writes besides what an hkp body carries (c1400.HKX,
/// c7190.hkx and c5051.hkx hold them in every record).
fn assert_stock_motion_properties(mp: &Members, sdk: &str) {
    assert_eq!(real(at(mp, "maxLinearSpeed")), 200.0, "{sdk}");
    assert_eq!(real(at(mp, "maxAngularSpeed")), 100.0, "{sdk}");
    let deactivation = if sdk == "2018.1" { "deactivationSettings." } else { "" };
    assert_eq!(real(at(mp, &format!("{deactivation}maxDistSqrd"))), 0.0025000002, "{sdk}");
    assert_eq!(index_of(at(mp, &format!("{deactivation}pathingUpperThreshold"))), 26623, "{sdk}");
    assert_eq!(index_of(at(mp, &format!("{deactivation}numDeactivationFrequencyPasses"))), 4, "{sdk}");
}

/// An index as a number.
fn index_of(v: &Val) -> usize {
    match v {
        Val::UInt(i) => *i as usize,
        Val::Int(i) => usize::try_from(*i).unwrap_or(usize::MAX),
        v => panic!("{v:?}"),
    }
}

/// Motion properties (a crash risk: an index into an empty table): DSR's 21 hkp bodies as
/// 2016.2 and 2018.1 hknp bodies each name a record of the ragdoll's motionProperties (one, for
/// the one distinct set of DSR's damping, gravity and time factors) and of its materials, their
/// motionId the invalid 0x7fffffff as Sekiro's and Elden Ring's; the record holds DSR's damping
/// (linear 0.0, angular 0.049804688) and the stock values of the rest. Back to 2015.1 each body
/// has DSR's damping, gravity and time factors again.
#[test]
fn dsr_motion_properties_to_hknp_and_back() {
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, DSR) else { return };
    let a = open(&bytes);
    let motion = |d: &Document, h: Handle| {
        let m = d.members(h).unwrap();
        [real(at(&m, "motion.motionState.linearDamping")), real(at(&m, "motion.motionState.angularDamping")), real(at(&m, "motion.gravityFactor")), real(at(&m, "motion.motionState.timeFactor"))]
    };
    let (_, sys_a) = objects(&a, "hkpPhysicsSystem").pop().unwrap();
    let Val::List(rbs) = at(&sys_a, "rigidBodies") else { panic!() };
    let motions_a: Vec<[f32; 4]> = rbs.iter().map(|h| motion(&a, handle(h))).collect();
    assert!(motions_a.iter().all(|m| *m == [0.0, 0.049804688, 1.0, 1.0]), "{motions_a:?}");
    for sdk in ["2016.2", "2018.1"] {
        let (b_bytes, _) = convert(&a, sdk);
        verify(&b_bytes, &format!("dsr_motion_{sdk}.hkx"));
        let b = open(&b_bytes);
        let (_, rag) = objects(&b, "hknpRagdollData").pop().unwrap();
        let list = |name: &str| -> Vec<Members> {
            let Val::List(l) = at(&rag, name) else { panic!("{name}") };
            l.iter().map(|x| if let Val::Record(r) = x { r.clone() } else { panic!() }).collect()
        };
        let (props, materials, bodies) = (list("motionProperties"), list("materials"), list("bodyCinfos"));
        assert_eq!((props.len(), materials.len(), bodies.len()), (1, 1, 21), "{sdk}");
        for body in &bodies {
            assert!(index_of(at(body, "motionPropertiesId")) < props.len(), "{sdk}: {:?}", at(body, "motionPropertiesId"));
            assert!(index_of(at(body, "materialId")) < materials.len(), "{sdk}");
            assert_eq!(at(body, "motionId"), &Val::UInt(0x7fff_ffff), "{sdk}: no motion record, as Sekiro's and Elden Ring's bodies");
            // No body id asked for and the world's default quality, as theirs (not body 0, quality 0).
            assert_eq!(at(body, "desiredBodyId"), &Val::Record(Members(vec![("serialAndIndex".into(), Val::UInt(0xff_ffff))])), "{sdk}");
            assert_eq!(index_of(at(body, "qualityId")), 255, "{sdk}");
        }
        let mp = &props[0];
        assert_eq!([real(at(mp, "linearDamping")), real(at(mp, "angularDamping")), real(at(mp, "gravityFactor")), real(at(mp, "timeFactor"))], [0.0, 0.049804688, 1.0, 1.0], "{sdk}");
        assert_stock_motion_properties(mp, sdk);
        let (a2_bytes, _) = convert(&b, "2015.1");
        verify(&a2_bytes, &format!("dsr_motion_{sdk}_2015_1.hkx"));
        let a2 = open(&a2_bytes);
        let (_, sys) = objects(&a2, "hkpPhysicsSystem").pop().unwrap();
        let Val::List(rbs2) = at(&sys, "rigidBodies") else { panic!() };
        let motions: Vec<[f32; 4]> = rbs2.iter().map(|h| motion(&a2, handle(h))).collect();
        assert_eq!(motions, motions_a, "{sdk} -> 2015.1 gives DSR's damping, gravity and time factors back");
    }
}

/// hkHalf16's step near `x`: 8 bits of mantissa.
fn half_step(x: f32) -> f32 {
    x.abs() / 128.0
}

/// Friction and restitution are never lost in silence: DSR's 21 hkp bodies (friction 0.3,
/// restitution 0.8) as 2016.2 and 2018.1 hknp bodies index one hknpMaterial of those values
/// (hkHalf16: within its step, each rounding a named loss), its other members 2016.2's and
/// 2018.1's stock values (Sekiro c7190.hkx, Elden Ring c5051.hkx); back to 2015.1 the bodies'
/// materials are DSR's within the half's step.
#[test]
fn dsr_materials_to_hknp_and_back() {
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, DSR) else { return };
    let a = open(&bytes);
    let (_, sys_a) = objects(&a, "hkpPhysicsSystem").pop().unwrap();
    let Val::List(rbs) = at(&sys_a, "rigidBodies") else { panic!() };
    let mats_a: Vec<(f32, f32)> = rbs.iter().map(|h| {
        let m = a.members(handle(h)).unwrap();
        (real(at(&m, "material.friction")), real(at(&m, "material.restitution")))
    }).collect();
    assert_eq!(mats_a.len(), 21);
    assert!(mats_a.iter().all(|m| *m == (0.3, 0.8)), "{mats_a:?}");
    for (sdk, trigger) in [("2016.2", 255u64), ("2018.1", 0)] {
        let (b_bytes, to_b) = convert(&a, sdk);
        verify(&b_bytes, &format!("dsr_materials_{sdk}.hkx"));
        let b = open(&b_bytes);
        let (_, rag) = objects(&b, "hknpRagdollData").pop().unwrap();
        let Val::List(materials) = at(&rag, "materials") else { panic!() };
        assert_eq!(materials.len(), 1, "one material per distinct friction and restitution");
        let Val::Record(m) = &materials[0] else { panic!() };
        for (name, want, stored) in [("dynamicFriction", 0.3f32, 0.29882812f32), ("staticFriction", 0.3, 0.29882812), ("restitution", 0.8, 0.796875)] {
            let got = real(at(m, name));
            assert!((got - want).abs() <= half_step(want), "{sdk} {name}: {got}");
            // Cut to a half as Havok cuts it: Elden Ring's c5051.hkx holds 0.29882812 and 0.796875
            // for 0.3 and 0.8 (rounding would give 0.30078125 and 0.80078125).
            assert_eq!(got, stored, "{sdk} {name}");
            // The cut to a half is named.
            assert!(to_b.lost.iter().any(|n| n.member == format!("materials[0].{name}") && n.what.contains("half")), "{}", to_b.to_text());
        }
        // The other members as Havok writes them in that SDK's ragdolls.
        assert_eq!(at(m, "triggerManifoldTolerance"), &Val::Record(Members(vec![("value".into(), Val::UInt(trigger))])), "{sdk}");
        assert_eq!(real(at(m, "weldingTolerance")), 0.05);
        assert_eq!(real(at(m, "maxContactImpulse")), 3.40282e38);
        assert_eq!(real(at(m, "disablingCollisionsBetweenCvxCvxDynamicObjectsDistance")), 5.0);
        let Val::List(bodies) = at(&rag, "bodyCinfos") else { panic!() };
        assert_eq!(bodies.len(), 21);
        for body in bodies {
            let Val::Record(body) = body else { panic!() };
            assert!(matches!(at(body, "materialId"), Val::UInt(0) | Val::Int(0)), "{:?}", at(body, "materialId"));
        }
        // Back: each body's material is DSR's within the half's step.
        let (a2_bytes, _) = convert(&b, "2015.1");
        verify(&a2_bytes, &format!("dsr_materials_{sdk}_2015_1.hkx"));
        let a2 = open(&a2_bytes);
        let (_, sys) = objects(&a2, "hkpPhysicsSystem").pop().unwrap();
        let Val::List(rbs2) = at(&sys, "rigidBodies") else { panic!() };
        assert_eq!(rbs2.len(), 21);
        for (h, (f, r)) in rbs2.iter().zip(&mats_a) {
            let m = a2.members(handle(h)).unwrap();
            let (f2, r2) = (real(at(&m, "material.friction")), real(at(&m, "material.restitution")));
            assert!((f2 - f).abs() <= half_step(*f) && (r2 - r).abs() <= half_step(*r), "{sdk}: {f2}, {r2} against {f}, {r}");
            assert_eq!(at(&m, "material.responseType"), &Val::Str("RESPONSE_SIMPLE_CONTACT".into()));
        }
    }
}

/// A 2014.1 target prefers hknp (`preferred` in physics.ron: Dark Souls III's ragdolls, and
/// every 2014.1 physics file of the corpus, are hknp, although 2014.1 has the hkp classes too):
/// c1400 -> 2015.1 (hkp) -> 2014.1 gives an hknp ragdoll again, with c1400's bodies (names,
/// positions and orientations within 1e-6, inverse masses and inertias, motion properties),
/// capsules and constraint bodies, and loses nothing.
#[test]
#[cfg(feature = "hk2014_1")]
fn c1400_to_2015_1_and_back_to_2014_1_is_hknp() {
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, C1400) else { return };
    let a = open(&bytes);
    let (b_bytes, _) = convert(&a, "2015.1");
    let b = open(&b_bytes);
    let format = TargetFormat::Packfile(a.layout().unwrap());
    let o = Options { sdk: "2014.1".to_owned(), format, classes: &hkclasses::REGISTRY, migrations: migrations(), compendia: None, prefer: None };
    let (c_bytes, report) = convert::convert(&b, &o, true).unwrap_or_else(|e| panic!("{e}"));
    verify(&c_bytes, "c1400_2015_1_2014_1.hkx");
    let c = open(&c_bytes);
    assert_eq!(c.sdk().as_deref(), Some("2014.1"));
    for class in ["hkpRigidBody", "hkpPhysicsSystem", "hkpPhysicsData", "hkpCapsuleShape", "hkpConstraintInstance"] {
        assert!(objects(&c, class).is_empty(), "no {class} in the 2014.1 file");
    }
    assert_eq!(objects(&c, "hknpPhysicsSceneData").len(), 1);
    // Nothing is lost: each body's inverse inertia goes back into its motion (inertiaAndMassInv's
    // x, y, z, w 1.0), its swept transform is the one at rest at its transform that the way
    // forward made (carried by the transform), its motion properties go back into the table its
    // motion indexes. The hkaRagdollInstance made besides the system gives its skeleton and
    // bone map back to the hknpRagdollData, which the root names again.
    let lost = losses(&report);
    assert!(lost.is_empty(), "{}", report.to_text());

    let ragdoll = |d: &Document| objects(d, "hknpRagdollData").pop().unwrap().1;
    let (ra, rc) = (ragdoll(&a), ragdoll(&c));
    let list = |m: &Members, name: &str| -> Vec<Members> {
        let Val::List(l) = at(m, name) else { panic!("{name}") };
        l.iter().map(|x| if let Val::Record(r) = x { r.clone() } else { panic!() }).collect()
    };
    let index = |v: &Val| match v {
        Val::UInt(i) => *i as usize,
        Val::Int(i) => *i as usize,
        v => panic!("{v:?}"),
    };
    assert!(objects(&c, "hkaRagdollInstance").is_empty());
    assert_eq!(at(&ra, "boneToBodyMap"), at(&rc, "boneToBodyMap"));
    let skeleton_name = |d: &Document, m: &Members| text(at(&d.members(handle(at(m, "skeleton"))).unwrap(), "name"));
    assert_eq!(skeleton_name(&a, &ra), skeleton_name(&c, &rc));
    let classes = |d: &Document| {
        let (_, root) = objects(d, "hkRootLevelContainer").pop().unwrap();
        let Val::List(v) = at(&root, "namedVariants") else { panic!() };
        v.iter().map(|v| if let Val::Record(v) = v { (text(at(v, "className")), d.class_name(handle(at(v, "variant")))) } else { panic!() }).collect::<Vec<_>>()
    };
    assert_eq!(classes(&a), classes(&c), "the root names the same classes, each its object's");
    let (ba, bc) = (list(&ra, "bodyCinfos"), list(&rc, "bodyCinfos"));
    assert_eq!((ba.len(), bc.len()), (19, 19));
    let (ma, mc) = (list(&ra, "motionCinfos"), list(&rc, "motionCinfos"));
    for (x, y) in ba.iter().zip(&bc) {
        let name = text(at(x, "name"));
        assert_eq!(name, text(at(y, "name")));
        close(&reals(at(x, "position"))[..3], &reals(at(y, "position"))[..3], 1e-6, &name);
        // The same rotation (a quaternion and its negation are one).
        let (q, q2) = (reals(at(x, "orientation")), reals(at(y, "orientation")));
        let dot: f32 = q.iter().zip(&q2).map(|(u, v)| u * v).sum();
        let q2: Vec<f32> = q2.iter().map(|v| v * dot.signum()).collect();
        close(&q, &q2, 1e-6, &name);
        assert_eq!((index(at(y, "reservedBodyId")), index(at(y, "qualityId"))), (0x7fff_ffff, 255), "{name}: c1400's, no body id asked, the default quality");
        let inverse_mass = |m: &[Members], b: &Members| real(at(&m[index(at(b, "motionId"))], "inverseMass"));
        assert_eq!(inverse_mass(&ma, x), inverse_mass(&mc, y), "{name}: inverse mass");
        // The inverse inertia too (w 1.0 as c1400's, where hkp's inertiaAndMassInv.w is the
        // inverse mass), and motion properties the motion's motionPropertiesId names, c1400's.
        let motion = |m: &[Members], b: &Members| m[index(at(b, "motionId"))].clone();
        let (mx, my) = (motion(&ma, x), motion(&mc, y));
        assert_eq!(reals(at(&mx, "inverseInertiaLocal")), reals(at(&my, "inverseInertiaLocal")), "{name}: inverse inertia");
        // The centre of mass through the hkp swept transform (x, y, z; its w, nonzero in 18 of
        // c1400's motions, has no place in hkp and was reported lost with the motions).
        close(&reals(at(&mx, "centerOfMassWorld"))[..3], &reals(at(&my, "centerOfMassWorld"))[..3], 1e-6, &format!("{name}: centre of mass"));
        let props = list(&rc, "motionProperties");
        let mp = props.get(index(at(&my, "motionPropertiesId"))).unwrap_or_else(|| panic!("{name}: motionPropertiesId names no record"));
        let mpa = &list(&ra, "motionProperties")[index(at(&mx, "motionPropertiesId"))];
        assert_eq!(mp, mpa, "{name}: c1400's motion properties");
        // The same capsule.
        let (sa, sc) = (a.members(handle(at(x, "shape"))).unwrap(), c.members(handle(at(y, "shape"))).unwrap());
        assert_eq!(c.class_name(handle(at(y, "shape"))).as_deref(), Some("hknpCapsuleShape"));
        for p in ["a", "b"] {
            assert_eq!(reals(at(&sa, p)), reals(at(&sc, p)), "{name}: capsule {p}");
        }
        assert_eq!(real(at(&sa, "convexRadius")), real(at(&sc, "convexRadius")));
        // Its material's friction and restitution.
        let material = |r: &Members, b: &Members| list(r, "materials")[index(at(b, "materialId"))].clone();
        let (fa, fc) = (material(&ra, x), material(&rc, y));
        for p in ["dynamicFriction", "staticFriction", "restitution"] {
            assert_eq!(at(&fa, p), at(&fc, p), "{name}: {p}");
        }
    }
    // The constraints between the same bodies, on data of the same classes.
    let (ca, cc) = (list(&ra, "constraintCinfos"), list(&rc, "constraintCinfos"));
    assert_eq!((ca.len(), cc.len()), (18, 18));
    let mut kept = 0;
    for (x, y) in ca.iter().zip(&cc) {
        assert_eq!((index(at(x, "bodyA")), index(at(x, "bodyB"))), (index(at(y, "bodyA")), index(at(y, "bodyB"))));
        if let Val::Ref(h, _) = at(y, "constraintData") {
            assert_eq!(c.class_name(Handle(*h)), a.class_name(handle(at(x, "constraintData"))));
            kept += 1;
        }
    }
    assert_eq!(kept, 14, "the 14 hkpRagdollConstraintData (the 4 hinges were lost to 2015.1)");
}

/// `prefer` (`hkgen convert --prefer hkp`): a 2014.1 target that has both sides of the
/// replacements takes the hkp classes asked for instead of the rules' hknp, so c1400 -> 2015.1 ->
/// 2014.1 stays hkp (19 hkpRigidBody, 19 hkpCapsuleShape, 18 hkpConstraintInstance, no hknp
/// class), loses nothing and verifies; `hknp` is what the rules prefer anyway; a prefix no
/// replacement has is refused, naming the replacements.
#[test]
#[cfg(feature = "hk2014_1")]
fn c1400_to_2015_1_and_to_2014_1_preferring_hkp_stays_hkp() {
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, C1400) else { return };
    let a = open(&bytes);
    let (b_bytes, _) = convert(&a, "2015.1");
    let b = open(&b_bytes);
    let format = TargetFormat::Packfile(a.layout().unwrap());
    let to_2014 = |prefer: Option<&str>| {
        let o = Options { sdk: "2014.1".to_owned(), format, classes: &hkclasses::REGISTRY, migrations: migrations(), compendia: None, prefer: prefer.map(str::to_owned) };
        convert::convert(&b, &o, true)
    };
    let (c_bytes, report) = to_2014(Some("hkp")).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.is_lossless(), "{}", report.to_text());
    verify(&c_bytes, "c1400_2015_1_2014_1_hkp.hkx");
    let c = open(&c_bytes);
    assert_eq!(c.sdk().as_deref(), Some("2014.1"));
    for (class, n) in [("hkpRigidBody", 19), ("hkpCapsuleShape", 19), ("hkpConstraintInstance", 18), ("hkpPhysicsSystem", 1)] {
        assert_eq!(objects(&c, class).len(), n, "{class}");
    }
    for class in ["hknpRagdollData", "hknpCapsuleShape", "hknpPhysicsSceneData"] {
        assert!(objects(&c, class).is_empty(), "no {class} where hkp is preferred");
    }
    let (hknp_bytes, _) = to_2014(Some("hknp")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(objects(&open(&hknp_bytes), "hknpRagdollData").len(), 1);
    let e = to_2014(Some("hkx")).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("--prefer hkx") && e.contains("hknpRagdollData / hkpPhysicsSystem"), "{e}");
}

/// DSR's hkp ragdoll as a 2014.1 hknp one (the rules' preference): each body's motion is whole,
/// no zeros where Havok keeps a value: its orientation the body's (a unit quaternion, DSR's
/// swept transform rotation), its centre of mass DSR's (the swept transform's centerOfMass0),
/// its inverse mass and inertia DSR's (w 1.0), its motion properties a record the motion
/// names; neither the swept transforms (their local centres of mass are what the motion's
/// centre of mass gives) nor the inverse inertias are lost; the file verifies.
#[test]
#[cfg(feature = "hk2014_1")]
fn dsr_to_2014_1_motions_are_whole() {
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, DSR) else { return };
    let a = open(&bytes);
    let format = TargetFormat::Packfile(hktypes::packfile::LayoutRules::parse("8,1,0,1").unwrap());
    let o = Options { sdk: "2014.1".to_owned(), format, classes: &hkclasses::REGISTRY, migrations: migrations(), compendia: None, prefer: None };
    let (c_bytes, report) = convert::convert(&a, &o, true).unwrap_or_else(|e| panic!("{e}"));
    verify(&c_bytes, "dsr_2014_1.hkx");
    let lost = losses(&report);
    for k in ["hkpPhysicsSystem.rigidBodies.motion.motionState.sweptTransform", "hkpPhysicsSystem.rigidBodies.motion.inertiaAndMassInv"] {
        assert!(!lost.contains_key(k), "{k}: {}", report.to_text());
    }
    let c = open(&c_bytes);
    let (_, rag) = objects(&c, "hknpRagdollData").pop().unwrap();
    let list = |name: &str| -> Vec<Members> {
        let Val::List(l) = at(&rag, name) else { panic!("{name}") };
        l.iter().map(|x| if let Val::Record(r) = x { r.clone() } else { panic!() }).collect()
    };
    let (bodies, motions, props) = (list("bodyCinfos"), list("motionCinfos"), list("motionProperties"));
    assert_eq!((bodies.len(), motions.len(), props.len()), (21, 21, 1));
    let by_name: BTreeMap<String, Members> = objects(&a, "hkpRigidBody").into_iter().map(|(_, m)| (text(at(&m, "name")), m)).collect();
    for body in &bodies {
        let name = text(at(body, "name"));
        let rb = &by_name[&name];
        let motion = &motions[index_of(at(body, "motionId"))];
        assert!(index_of(at(motion, "motionPropertiesId")) < props.len(), "{name}");
        let Val::List(swept) = at(rb, "motion.motionState.sweptTransform") else { panic!() };
        let q = reals(at(motion, "orientation"));
        assert!((q.iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-5, "{name}: a unit quaternion, not zeros: {q:?}");
        assert_eq!(q, reals(&swept[2]), "{name}: the body's rotation");
        assert_eq!(reals(at(motion, "centerOfMassWorld")), reals(&swept[0]), "{name}: DSR's centre of mass");
        let inertia = reals(at(rb, "motion.inertiaAndMassInv"));
        assert_eq!(reals(at(motion, "inverseInertiaLocal")), [&inertia[..3], &[1.0]].concat(), "{name}");
        assert_eq!(real(at(motion, "inverseMass")), inertia[3], "{name}");
    }
}
