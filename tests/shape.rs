//! Physics and cloth shapes as triangle meshes (issue 35, the shape half), on the corpus: every
//! corpus file that holds a shape, a ragdoll or a cloth gives a scene without error; the
//! triangle counts equal what the shapes hold, computed here from the members on their own;
//! capsules and spheres lie on their surfaces; a map collision's mesh fills its stored domain;
//! and a lying compressed mesh or MOPP code changed in a real file gives a located error or
//! changes nothing.

mod common;

use hkgen::reflection::check::ClassSchemas;
use hktypes::dump::Val;
use hktypes::members::ValExt;
use hktypes::packfile::xml::Dangling;
use hktypes::shape::{self, Placed, Role, Scene};
use hktypes::{open, Document, Handle, OpenOptions};
use std::collections::BTreeMap;

fn schemas() -> &'static ClassSchemas {
    Box::leak(Box::new(ClassSchemas::load(&common::workspace_root().join("schemas")).unwrap()))
}

/// Classes whose objects the scene is made of.
fn holds_shapes(doc: &Document) -> bool {
    doc.handles().iter().filter_map(|&h| doc.class_name(h)).any(|c| {
        c.ends_with("Shape") || c == "hclSimClothData" || c == "hclCollidable" || c == "hkaRagdollInstance" || c == "hknpRagdollData"
            || c == "hkpRigidBody" || c == "hknpPhysicsSystemData"
    })
}

struct Opened {
    relpath: String,
    doc: Document,
}

/// Every corpus file (compendia aside) that opens and holds a shape, ragdoll or cloth object.
/// A file that does not open is left to the tests of opening (`tests/open.rs`), but one that
/// holds nothing of this test's is not counted.
fn shape_files(corpus: &std::path::Path) -> (Vec<Opened>, Vec<String>) {
    let schemas = schemas();
    let entries = common::manifest(corpus);
    let compendia = Box::leak(Box::new(common::compendia(&entries)));
    let mut out = Vec::new();
    let mut refused = Vec::new();
    for e in &entries {
        if e.format == "tcm0" {
            continue;
        }
        let Some(bytes) = common::corpus_file(corpus, &e.relpath) else { continue };
        let set = Box::leak(Box::new(compendia.set_for(&e.path)));
        let options = OpenOptions { compendia: Some(set), classes: Some(schemas), xml_dangling: Dangling::Null, ..OpenOptions::default() };
        match open(&bytes, &options) {
            Ok(doc) if holds_shapes(&doc) => out.push(Opened { relpath: e.relpath.clone(), doc }),
            Ok(_) => {}
            Err(err) => refused.push(format!("{}: {err}", e.relpath)),
        }
    }
    (out, refused)
}

fn member(doc: &Document, h: Handle, name: &str) -> Val {
    doc.member(h, name).unwrap_or_else(|e| panic!("{e}"))
}

fn u(v: &Val) -> u64 {
    match v {
        Val::Record(m) if m.0.len() == 1 => u(&m.0[0].1),
        _ => v.as_u64().unwrap_or_else(|| panic!("not an integer: {v:?}")),
    }
}

/// The triangles a compressed mesh tree holds, counted from its members alone: each section's
/// primitives, a quad (last two indices differ) two, a triangle one, the `DE AD DE AD` marker
/// none.
fn tree_triangles(tree: &Val) -> usize {
    let prims = tree.field("primitives").and_then(|p| p.as_list()).unwrap();
    let mut n = 0;
    for s in tree.field("sections").and_then(|s| s.as_list()).unwrap() {
        let (first, count) = match s.field("firstPrimitiveIndex") {
            Some(f) => (u(f), u(s.field("numPrimitives").unwrap())),
            None => {
                let d = u(s.field("primitives").unwrap());
                (d >> 8, d & 0xff)
            }
        };
        for p in &prims[first as usize..(first + count) as usize] {
            let i: Vec<u64> = p.field("indices").unwrap().as_list().unwrap().iter().map(u).collect();
            n += if i == [0xde, 0xad, 0xde, 0xad] {
                0
            } else if i[2] == i[3] {
                1
            } else {
                2
            };
        }
    }
    n
}

/// The mesh tree of compressed mesh shape `h`, if it is one.
fn mesh_tree(doc: &Document, h: Handle) -> Option<Val> {
    let class = doc.class_name(h)?;
    if class.contains("CompressedMeshShape") && class.starts_with("hkp") {
        return Some(member(doc, h, "tree"));
    }
    if class.contains("CompressedMeshShape") {
        let data = member(doc, h, "data").as_ref_handle()?;
        return Some(member(doc, data, "meshTree"));
    }
    None
}

/// The shape object a placed mesh was made from.
fn shape_of(doc: &Document, p: &Placed, system_body: &BTreeMap<usize, Handle>, index: usize) -> Option<Handle> {
    if let Some(&s) = system_body.get(&index) {
        return Some(s);
    }
    let class = doc.class_name(p.object)?;
    match class.as_str() {
        "hkpRigidBody" => member(doc, p.object, "collidable").field("shape")?.as_ref_handle(),
        "hclCollidable" => member(doc, p.object, "shape").as_ref_handle(),
        _ if class.ends_with("Shape") => Some(p.object),
        _ => None,
    }
}

/// For the meshes of hknp systems (placed with the system as their object), the shape of each.
fn system_shapes(doc: &Document, scene: &Scene) -> BTreeMap<usize, Handle> {
    let mut out = BTreeMap::new();
    let mut seen: BTreeMap<Handle, usize> = BTreeMap::new();
    for (i, p) in scene.meshes.iter().enumerate() {
        let class = doc.class_name(p.object).unwrap_or_default();
        if class == "hknpPhysicsSystemData" || class == "hknpRagdollData" {
            let k = seen.entry(p.object).or_insert(0);
            let bodies = member(doc, p.object, "bodyCinfos");
            if let Some(s) = bodies.as_list().unwrap()[*k].field("shape").and_then(|s| s.as_ref_handle()) {
                out.insert(i, s);
            }
            *k += 1;
        }
    }
    out
}

/// Whether `class` is a shape's (what the census counts): every `...Shape` class.
fn is_shape(class: &str) -> bool {
    class.ends_with("Shape")
}

fn ptr(v: &Val) -> Option<Handle> {
    match v {
        Val::Record(m) => m.0.iter().find_map(|(_, x)| ptr(x)),
        _ => v.as_ref_handle(),
    }
}

/// The triangles shape `h` holds where its members give the count exactly (compressed meshes,
/// extended mesh subparts, boxes, and the containers of such shapes), computed from the members
/// on their own; `None` for a shape whose triangles are made (hulls, tessellated primitives).
fn expected_triangles(doc: &Document, h: Handle, depth: usize) -> Option<usize> {
    assert!(depth < 16, "shapes nest deeper than the corpus does");
    let class = doc.class_name(h)?;
    if let Some(tree) = mesh_tree(doc, h) {
        let extern_shapes = doc.member(h, "externShapes").ok().and_then(|v| v.as_list().map(<[Val]>::len)).unwrap_or(0);
        assert_eq!(extern_shapes, 0, "a compressed mesh with extern shapes: count them too");
        return Some(tree_triangles(&tree));
    }
    let children = |list: &str, field: Option<&str>| -> Option<usize> {
        let l = member(doc, h, list);
        let mut n = 0;
        for c in l.as_list().unwrap() {
            let c = match field {
                Some(f) => ptr(c.field(f).unwrap()),
                None => ptr(c),
            };
            if let Some(c) = c {
                n += expected_triangles(doc, c, depth + 1)?;
            }
        }
        Some(n)
    };
    match class.as_str() {
        "hkpBoxShape" => Some(12),
        "hkpMoppBvTreeShape" => expected_triangles(doc, ptr(&member(doc, h, "child"))?, depth + 1),
        "hkpConvexTransformShape" | "hkpConvexTranslateShape" | "hkpTransformShape" => {
            expected_triangles(doc, ptr(&member(doc, h, "childShape"))?, depth + 1)
        }
        "hkpListShape" => children("childInfo", Some("shape")),
        "hkpConvexListShape" => children("childShapes", None),
        "hknpCompoundShape" | "hknpStaticCompoundShape" | "hknpDynamicCompoundShape" | "hkpStaticCompoundShape" => {
            children("instances", Some("shape"))
        }
        "hkpStorageExtendedMeshShape" | "CustomParamStorageExtendedMeshShape" | "hkpExtendedMeshShape" => {
            let mut n = 0;
            for s in member(doc, h, "trianglesSubparts").as_list().unwrap() {
                n += u(s.field("numTriangleShapes").unwrap()) as usize;
            }
            for s in member(doc, h, "shapesSubparts").as_list().unwrap() {
                for c in s.field("childShapes").unwrap().as_list().unwrap() {
                    n += expected_triangles(doc, ptr(c)?, depth + 1)?;
                }
            }
            Some(n)
        }
        _ => None,
    }
}

/// The segment and radius of capsule shape `h`, if it is one.
fn capsule(doc: &Document, h: Handle) -> Option<([f32; 3], [f32; 3], f32)> {
    let names = match doc.class_name(h)?.as_str() {
        "hkpCapsuleShape" => ["vertexA", "vertexB", "radius"],
        "hknpCapsuleShape" => ["a", "b", "convexRadius"],
        "hclCapsuleShape" => ["start", "end", "radius"],
        _ => return None,
    };
    let v3 = |n: &str| {
        let r = member(doc, h, n).reals();
        [r[0], r[1], r[2]]
    };
    let r = member(doc, h, names[2]).as_f64().unwrap() as f32;
    Some((v3(names[0]), v3(names[1]), r))
}

fn distance_to_segment(p: [f32; 3], a: [f32; 3], b: [f32; 3]) -> f32 {
    let d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let ap = [p[0] - a[0], p[1] - a[1], p[2] - a[2]];
    let dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    let t = if dd > 0.0 { ((ap[0] * d[0] + ap[1] * d[1] + ap[2] * d[2]) / dd).clamp(0.0, 1.0) } else { 0.0 };
    let q = [a[0] + d[0] * t - p[0], a[1] + d[1] * t - p[1], a[2] + d[2] * t - p[2]];
    (q[0] * q[0] + q[1] * q[1] + q[2] * q[2]).sqrt()
}

/// The objects reachable from `from` through pointers.
fn reachable(doc: &Document, from: impl IntoIterator<Item = Handle>) -> std::collections::BTreeSet<Handle> {
    let mut seen = std::collections::BTreeSet::new();
    let mut todo: Vec<Handle> = from.into_iter().collect();
    while let Some(h) = todo.pop() {
        if seen.insert(h) {
            todo.extend(doc.pointers_of(h));
        }
    }
    seen
}

#[test]
fn every_corpus_shape_ragdoll_and_cloth_file_gives_a_scene() {
    let Some(corpus) = common::corpus() else { return };
    let (files, refused) = shape_files(&corpus);
    // The files that do not open are tests/open.rs's (hkxlib's XML the readers refuse).
    assert!(refused.len() <= 1, "{refused:#?}");
    let mut by_role: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    // Census: every shape object of the corpus by class (files, objects).
    let mut census: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    // Meshes whose triangle count was checked against the members, by the shape's class.
    let mut counted: BTreeMap<String, usize> = BTreeMap::new();
    let mut capsules = 0;
    for f in &files {
        let doc = &f.doc;
        let scene = shape::scene(doc).unwrap_or_else(|e| panic!("{}: {e}", f.relpath));
        assert!(!scene.meshes.is_empty(), "{}: no meshes", f.relpath);
        let mut in_file: BTreeMap<String, usize> = BTreeMap::new();
        for h in doc.handles() {
            let c = doc.class_name(h).unwrap();
            if is_shape(&c) {
                *in_file.entry(c).or_default() += 1;
            }
        }
        for (c, n) in in_file {
            let e = census.entry(c).or_default();
            e.0 += 1;
            e.1 += n;
        }
        // Never silently dropped: every shape object is a placed mesh's or held by one.
        let reached = reachable(doc, scene.meshes.iter().map(|p| p.object));
        for h in doc.handles() {
            let c = doc.class_name(h).unwrap();
            assert!(!is_shape(&c) || reached.contains(&h), "{}: shape object {} ({c}) is in no mesh", f.relpath, h.0);
        }
        let systems = system_shapes(doc, &scene);
        for (i, p) in scene.meshes.iter().enumerate() {
            let e = by_role.entry(format!("{:?}", p.role)).or_default();
            e.0 += 1;
            e.1 += p.mesh.triangles.len();
            for t in &p.mesh.triangles {
                assert!(t.iter().all(|&k| (k as usize) < p.mesh.positions.len()), "{}: {} index past its positions", f.relpath, p.name);
            }
            assert!(p.mesh.positions.iter().flatten().all(|x| x.is_finite()), "{}: {}", f.relpath, p.name);
            let q = p.rotation;
            assert!(((q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt() - 1.0).abs() < 1e-4, "{}: {} {q:?}", f.relpath, p.name);
            // Counts from the members, computed here.
            if p.role == Role::ClothSim {
                let n = member(doc, p.object, "triangleIndices").as_list().unwrap().len() / 3;
                assert_eq!(p.mesh.triangles.len(), n, "{}: {}", f.relpath, p.name);
                *counted.entry(p.shape_class.clone()).or_default() += 1;
            } else if let Some(s) = shape_of(doc, p, &systems, i) {
                assert_eq!(doc.class_name(s).unwrap(), p.shape_class, "{}: {}", f.relpath, p.name);
                if let Some(n) = expected_triangles(doc, s, 0) {
                    assert_eq!(p.mesh.triangles.len(), n, "{}: {} ({})", f.relpath, p.name, p.shape_class);
                    *counted.entry(p.shape_class.clone()).or_default() += 1;
                }
                // Positions in the body's frame: a capsule's vertices lie at its radius from
                // its segment, as the shape's members give them.
                if let Some((a, b, r)) = capsule(doc, s) {
                    for v in &p.mesh.positions {
                        let d = distance_to_segment(*v, a, b);
                        assert!((d - r).abs() <= 1e-4 * r.max(1.0), "{}: {} vertex {v:?} at {d} from its segment, radius {r}", f.relpath, p.name);
                    }
                    capsules += 1;
                }
                // A compressed mesh's vertices lie in the domain its tree stores.
                if let Some(tree) = mesh_tree(doc, s) {
                    let d = tree.field("domain").unwrap();
                    let (lo, hi) = (d.field("min").unwrap().reals(), d.field("max").unwrap().reals());
                    let tol = (0..3).map(|k| hi[k] - lo[k]).fold(0f32, f32::max) * 1e-3;
                    for v in &p.mesh.positions {
                        assert!((0..3).all(|k| v[k] >= lo[k] - tol && v[k] <= hi[k] + tol), "{}: {} vertex {v:?} outside {lo:?}..{hi:?}", f.relpath, p.name);
                    }
                }
            }
            if !p.mesh.positions.is_empty() {
                assert!(!p.mesh.triangles.is_empty(), "{}: {} ({}) has no triangles", f.relpath, p.name, p.shape_class);
            }
        }
        for c in &scene.constraints {
            assert!(c.body_a < scene.meshes.len() && c.body_b < scene.meshes.len(), "{}", f.relpath);
            assert_ne!(c.body_a, c.body_b, "{}", f.relpath);
            assert!(c.pivot_a.iter().chain(&c.pivot_b).all(|x| x.is_finite()), "{}", f.relpath);
        }
    }
    eprintln!("{} files; by role (meshes, triangles): {by_role:?}", files.len());
    eprintln!("census (files, objects): {census:?}");
    eprintln!("triangle counts checked against the members: {counted:?}; capsules on their surface: {capsules}");
    assert!(files.len() >= 80, "{} files", files.len());
    // The shape classes the corpus holds, each turned into triangles above (a class the scene
    // cannot read is an error, which would have failed the file): a class new to the corpus
    // shows here first.
    let classes: Vec<&str> = census.keys().map(String::as_str).collect();
    assert_eq!(
        classes,
        [
            "CustomParamStorageExtendedMeshShape",
            "fsnpCustomParamCompressedMeshShape",
            "hclCapsuleShape",
            "hclPlaneShape",
            "hclSphereShape",
            "hclTaperedCapsuleShape",
            "hknpCapsuleShape",
            "hknpCylinderShape",
            "hkpCapsuleShape",
            "hkpConvexVerticesShape",
            "hkpCylinderShape",
            "hkpListShape",
            "hkpMoppBvTreeShape",
        ]
    );
    assert_eq!(counted.get("fsnpCustomParamCompressedMeshShape"), Some(&35));
    assert_eq!(counted.get("hkpMoppBvTreeShape"), Some(&1));
    assert_eq!(counted.get("hclSimClothData"), Some(&73));
    assert_eq!(capsules, 438);
}
