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
        "hclPlaneShape" => Some(2),
        // A polytope's faces, each fanned: a face of n indices is n - 2 triangles.
        "hknpConvexPolytopeShape" | "hknpCylinderShape" | "hknpBoxShape" => {
            Some(member(doc, h, "faces").as_list().unwrap().iter().map(|f| u(f.field("numIndices").unwrap()) as usize - 2).sum())
        }
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

/// Whether `p` lies on the surface of shape `h` (in the shape's frame) where the test knows
/// that surface from the members alone: capsules, spheres, cylinders (side or cap), tapered
/// capsules (on either end sphere or between), cloth planes, and lists of such shapes (on one
/// of the children). `None` for any other shape.
fn on_surface(doc: &Document, h: Handle, p: [f32; 3]) -> Option<bool> {
    let v3 = |n: &str| {
        let r = member(doc, h, n).reals();
        [r[0], r[1], r[2]]
    };
    let f = |n: &str| member(doc, h, n).as_f64().unwrap() as f32;
    let dist = |a: [f32; 3], b: [f32; 3]| ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt();
    let near = |x: f32, want: f32| (x - want).abs() <= 1e-4 * want.abs().max(1.0);
    if let Some((a, b, r)) = capsule(doc, h) {
        return Some(near(distance_to_segment(p, a, b), r));
    }
    match doc.class_name(h)?.as_str() {
        "hclSphereShape" => {
            let s = member(doc, h, "sphere").reals();
            Some(near(dist(p, [s[0], s[1], s[2]]), s[3]))
        }
        "hkpCylinderShape" => {
            let (a, b, r) = (v3("vertexA"), v3("vertexB"), f("cylRadius"));
            // The distance from the axis line: to the segment, for a point beside it.
            Some(p == a || p == b || near(distance_to_segment(p, a, b), r))
        }
        "hclTaperedCapsuleShape" => {
            let (a, ra, b, rb) = (v3("small"), f("smallRadius"), v3("big"), f("bigRadius"));
            Some(near(dist(p, a), ra) || near(dist(p, b), rb))
        }
        "hclPlaneShape" => {
            let e = member(doc, h, "planeEquation").reals();
            let l = (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]).sqrt();
            Some(((e[0] * p[0] + e[1] * p[1] + e[2] * p[2] + e[3]) / l).abs() <= 1e-5)
        }
        "hkpListShape" => {
            let mut any = false;
            for c in member(doc, h, "childInfo").as_list().unwrap() {
                any |= on_surface(doc, ptr(c.field("shape").unwrap())?, p)?;
            }
            Some(any)
        }
        _ => None,
    }
}

/// How many (triangle, vertex) pairs of `m` have the vertex above the triangle's plane by more
/// than a thousandth of the mesh's extent: 0 for a convex mesh.
fn convex_excess(m: &hktypes::shape::Mesh) -> usize {
    let extent = m.positions.iter().flatten().fold(0f32, |a, x| a.max(x.abs()));
    let sub = |a: [f32; 3], b: [f32; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let mut n = 0;
    for t in &m.triangles {
        let [a, b, c] = t.map(|i| m.positions[i as usize]);
        let (u, v) = (sub(b, a), sub(c, a));
        let nn = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
        let l = (nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]).sqrt();
        if l == 0.0 {
            continue;
        }
        n += m.positions.iter().filter(|&&p| {
            let d = sub(p, a);
            (d[0] * nn[0] + d[1] * nn[1] + d[2] * nn[2]) / l > 1e-3 * extent
        }).count();
    }
    n
}

/// Whether every edge of `m` is on exactly two of its triangles.
fn closed(m: &hktypes::shape::Mesh) -> bool {
    let mut edges: BTreeMap<(u32, u32), usize> = BTreeMap::new();
    for t in &m.triangles {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            *edges.entry((a.min(b), a.max(b))).or_default() += 1;
        }
    }
    edges.values().all(|&c| c == 2)
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
    // Meshes whose every vertex was found on the shape's surface, and meshes found closed, by class.
    let mut surfaces: BTreeMap<String, usize> = BTreeMap::new();
    let mut closed_meshes: BTreeMap<String, usize> = BTreeMap::new();
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
                if p.mesh.positions.first().and_then(|&v| on_surface(doc, s, v)).is_some() {
                    for &v in &p.mesh.positions {
                        assert_eq!(on_surface(doc, s, v), Some(true), "{}: {} ({}) vertex {v:?} off its surface", f.relpath, p.name, p.shape_class);
                    }
                    *surfaces.entry(p.shape_class.clone()).or_default() += 1;
                }
                // Tessellated and hull shapes are closed.
                if ["Capsule", "Sphere", "Cylinder", "ConvexVertices"].iter().any(|k| p.shape_class.contains(k)) {
                    assert!(closed(&p.mesh), "{}: {} ({}) is not closed", f.relpath, p.name, p.shape_class);
                    if p.shape_class == "hkpConvexVerticesShape" {
                        assert_eq!(convex_excess(&p.mesh), 0, "{}: {}: vertices above a hull face", f.relpath, p.name);
                    }
                    *closed_meshes.entry(p.shape_class.clone()).or_default() += 1;
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
    eprintln!("vertices on the surface: {surfaces:?}; closed: {closed_meshes:?}");
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

/// `v` at `path` (record members by name, list elements by index), to edit.
fn at_mut<'v>(v: &'v mut Val, path: &[&str]) -> &'v mut Val {
    let Some((first, rest)) = path.split_first() else { return v };
    let next = match v {
        Val::Record(m) => &mut m.0.iter_mut().find(|(n, _)| n == first).unwrap_or_else(|| panic!("no member {first}")).1,
        Val::List(l) | Val::Array(l, _) => &mut l[first.parse::<usize>().unwrap()],
        other => panic!("{first}: not a record or list: {other:?}"),
    };
    at_mut(next, rest)
}

/// The smallest corpus map collision: Dark Souls III, one hknpCompressedMeshShapeData whose
/// one section holds three packed vertices and one triangle.
const DS3_COLLISION: &str = "DevonLen__DS3-Awesome-Mod/map/m30_00_00_00/h30_00_00_00-hkxbhd/m30_00_00_00/h30_00_00_00_995030.hkx.dcx";

/// A real compressed mesh whose section or quantization lies gives an error naming the object
/// and member, at once (the work is bounded by the arrays the file holds, not the counts it
/// tells).
#[test]
fn a_lying_compressed_mesh_in_a_real_file_is_a_located_error() {
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, DS3_COLLISION) else { return };
    let options = OpenOptions { classes: Some(schemas()), ..OpenOptions::default() };
    let doc = open(&bytes, &options).unwrap();
    let scene = shape::scene(&doc).unwrap();
    assert_eq!(scene.meshes.len(), 1);
    assert_eq!(scene.meshes[0].mesh.triangles.len(), 1);
    let data = doc.find("hknpCompressedMeshShapeData")[0];
    let tree = member(&doc, data, "meshTree");
    type Edit = fn(&mut Val);
    let cases: [(&str, Edit, &str); 6] = [
        // A section's primitive range past the primitives (first 5, count 200 of 1).
        ("primitives", |t| *at_mut(t, &["sections", "0", "primitives", "data"]) = Val::UInt(5 << 8 | 200), "sections[0].primitives: primitive 204 out of range (1 available)"),
        // The largest range the 32-bit word can tell.
        ("huge range", |t| *at_mut(t, &["sections", "0", "primitives", "data"]) = Val::UInt(u64::from(u32::MAX)), "out of range (1 available)"),
        // Packed vertices from far past the array.
        ("packed", |t| *at_mut(t, &["sections", "0", "firstPackedVertex"]) = Val::UInt(1_000_000), "meshTree.primitives[0]: packed vertex 1000000 out of range (3 available)"),
        // More packed vertices than the array holds, named by a primitive.
        ("shared", |t| *at_mut(t, &["sections", "0", "sharedVertices", "data"]) = Val::UInt(1), "meshTree.primitives[0]: shared vertex index 0 out of range (0 available)"),
        // A quantization that is not finite.
        ("codec", |t| *at_mut(t, &["sections", "0", "codecParms", "4"]) = Val::Real(f32::NAN), "sections[0].codecParms"),
        ("bits", |t| *at_mut(t, &["bitsPerKey"]) = Val::UInt(200), "meshTree.bitsPerKey: 200 bits per key"),
    ];
    for (what, edit, expect) in cases {
        let mut lying = tree.clone();
        edit(&mut lying);
        let mut d = open(&bytes, &options).unwrap();
        let h = d.set_members(data, vec![("meshTree".into(), lying)], &options).unwrap();
        let start = std::time::Instant::now();
        let e = shape::scene(&d).expect_err(what).to_string();
        assert!(start.elapsed().as_secs() < 2, "{what}: {:?}", start.elapsed());
        let object = format!("in object {} (hknpCompressedMeshShapeData).meshTree.", h.0);
        assert!(e.starts_with(&object) && e.contains(expect), "{what}: {e}");
    }
}

/// Dark Souls: Demon's Souls' map collision: an `hkpMoppBvTreeShape` over FromSoftware's
/// storage extended mesh shape. The MOPP code is never executed, so a code that would loop
/// cannot: its bytes replaced (here by one byte repeated, longer than the original) leave the
/// scene as it was; the triangles are the storage mesh's.
#[test]
fn the_mopp_code_is_never_run() {
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, "soulstruct-havok/MapCollisionTemplate_DES.hkx") else { return };
    let options = OpenOptions { classes: Some(schemas()), ..OpenOptions::default() };
    let mut doc = open(&bytes, &options).unwrap();
    let scene = shape::scene(&doc).unwrap();
    let collision: Vec<&Placed> = scene.meshes.iter().filter(|p| p.shape_class == "hkpMoppBvTreeShape").collect();
    assert_eq!(collision.len(), 1);
    let storage = doc.find("CustomParamStorageExtendedMeshShape")[0];
    let n: u64 = member(&doc, storage, "trianglesSubparts").as_list().unwrap().iter().map(|s| u(s.field("numTriangleShapes").unwrap())).sum();
    assert_eq!(collision[0].mesh.triangles.len() as u64, n);
    let code = doc.find("hkpMoppCode")[0];
    let data = member(&doc, code, "data");
    let len = data.as_list().unwrap().len();
    assert!(len > 0);
    let looping = Val::List(vec![Val::UInt(0x05); len.max(4096)]);
    doc.set_members(code, vec![("data".into(), looping)], &options).unwrap();
    assert_eq!(shape::scene(&doc).unwrap(), scene);
}

/// A huge count in a real convex vertices shape (Breath of the Wild) is a located error, not an
/// allocation of that size.
#[test]
fn a_huge_vertex_count_is_a_located_error() {
    let Some(corpus) = common::corpus() else { return };
    let rel = "NiceneNerd__UKMM/uk-mod/test/wiiu/content/Actor/Pack/Obj_Mineral_A_01.sbactorpack/RigidBody/Obj_Mineral_A/Obj_Mineral_A_01.hkrb";
    let Some(bytes) = common::corpus_file(&corpus, rel) else { return };
    let options = OpenOptions { classes: Some(schemas()), ..OpenOptions::default() };
    let mut doc = open(&bytes, &options).unwrap();
    let scene = shape::scene(&doc).unwrap();
    let hull = &scene.meshes.iter().find(|p| p.shape_class == "hkpConvexVerticesShape").unwrap().mesh;
    assert_eq!(hull.positions.len(), 33);
    // A closed hull: every edge on two triangles.
    let mut edges: BTreeMap<(u32, u32), usize> = BTreeMap::new();
    for t in &hull.triangles {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            *edges.entry((a.min(b), a.max(b))).or_default() += 1;
        }
    }
    assert!(edges.values().all(|&c| c == 2), "{} edges, {} not on two triangles", edges.len(), edges.values().filter(|&&c| c != 2).count());
    // Euler: a closed triangulated hull of v vertices (all on it) has 2v - 4 triangles.
    let used: std::collections::BTreeSet<u32> = hull.triangles.iter().flatten().copied().collect();
    assert_eq!(hull.triangles.len(), 2 * used.len() - 4);
    let h = doc.find("hkpConvexVerticesShape")[0];
    doc.set_members(h, vec![("numVertices".into(), Val::UInt(i32::MAX as u64))], &options).unwrap();
    let e = shape::scene(&doc).unwrap_err().to_string();
    assert_eq!(e, format!("in object {} (hkpConvexVerticesShape).numVertices: vertex 2147483646 out of range (36 available)", h.0));
}

/// Shape classes the corpus does not hold, in a file made at run time from a real one: Breath
/// of the Wild's `Obj_Mineral_A_01.hkrb` (SDK 2014.2) with its rigid body's shape replaced by
/// an `hkpConvexTranslateShape` over an `hkpConvexTransformShape` over an `hkpBoxShape`, and an
/// `hkpSphereShape` that no body holds; written through the 2014.2 class schemas and opened
/// again as any file is. The box is 12 triangles at its corners placed by both transforms in
/// the body's frame; the sphere's vertices lie at its radius.
#[test]
fn classes_the_corpus_lacks_in_a_made_botw_file() {
    use hktypes::dump::{self, BuildOptions, DumpObject, Members, ObjectKept};
    use hktypes::ClassRegistry;
    let Some(corpus) = common::corpus() else { return };
    let rel = "NiceneNerd__UKMM/uk-mod/test/wiiu/content/Actor/Pack/Obj_Mineral_A_01.sbactorpack/RigidBody/Obj_Mineral_A/Obj_Mineral_A_01.hkrb";
    let Some(bytes) = common::corpus_file(&corpus, rel) else { return };
    let options = OpenOptions { classes: Some(schemas()), ..OpenOptions::default() };
    let mut doc = open(&bytes, &options).unwrap();
    let version = doc.as_packfile().unwrap().file.contents_version();
    let sources = schemas().packfile(&version);
    for class in ["hkpConvexTranslateShape", "hkpConvexTransformShape", "hkpBoxShape", "hkpSphereShape"] {
        doc.declare(class, sources[0]).unwrap();
    }
    let mut d = dump::dump_packfile(doc.as_packfile().unwrap()).unwrap();
    let convex = d.objects.iter().position(|o| o.class == "hkpConvexVerticesShape").unwrap();
    // The members every convex shape has (hkReferencedObject to hkpConvexShape), the radius 0.
    let base: Vec<(String, Val)> = d.objects[convex].members.as_ref().unwrap().0[..7]
        .iter()
        .map(|(n, v)| (n.clone(), if n == "radius" { Val::Real(0.0) } else { v.clone() }))
        .collect();
    assert_eq!(base.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["memSizeAndRefCount", "type", "dispatchType", "bitsPerKey", "shapeInfoCodecType", "userData", "radius"]);
    let v4 = |x: [f32; 4]| Val::List(x.iter().map(|&r| Val::Real(r)).collect());
    let with = |extra: Vec<(&str, Val)>| -> Members {
        let mut m = base.clone();
        m.extend(extra.into_iter().map(|(n, v)| (n.to_owned(), v)));
        Members(m)
    };
    let next = d.objects.iter().map(|o| o.handle).max().unwrap() + 1;
    let (transform_h, box_h, sphere_h) = (next, next + 1, next + 2);
    let child = |h: u32| Val::Record(Members(vec![("childShape".into(), Val::Ref(h, None))]));
    // The body's shape: translated by (1, 2, 3).
    d.objects[convex].class = "hkpConvexTranslateShape".into();
    d.objects[convex].members = Some(with(vec![
        ("childShape", child(transform_h)),
        ("childShapeSizeForSpu", Val::Int(0)),
        ("translation", v4([1.0, 2.0, 3.0, 0.0])),
    ]));
    // A quarter turn about z (x -> y), then up by 1; an hkQsTransform is translation,
    // rotation, scale.
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let qs = Val::List([0.0, 0.0, 1.0, 0.0, 0.0, 0.0, h, h, 1.0, 1.0, 1.0, 0.0].iter().map(|&r| Val::Real(r)).collect());
    let made = |handle: u32, class: &str, members: Members| DumpObject {
        handle,
        class: class.into(),
        members: Some(members),
        untyped: None,
        kept: ObjectKept::default(),
    };
    d.objects.push(made(
        transform_h,
        "hkpConvexTransformShape",
        with(vec![("childShape", child(box_h)), ("childShapeSizeForSpu", Val::Int(0)), ("transform", qs), ("extraScale", v4([0.0; 4]))]),
    ));
    d.objects.push(made(box_h, "hkpBoxShape", with(vec![("halfExtents", v4([0.5, 1.0, 2.0, 0.0]))])));
    let mut sphere = with(vec![("pad16", Val::List(vec![Val::UInt(0); 3]))]);
    sphere.0.iter_mut().find(|(n, _)| n == "radius").unwrap().1 = Val::Real(0.75);
    d.objects.push(made(sphere_h, "hkpSphereShape", sphere));
    let build = BuildOptions { compendia: None, packfile_classes: sources, tagfile_enums: Default::default() };
    let made_bytes = dump::build(&d, &build, bytes.len() * 4).unwrap();
    let doc = open(&made_bytes, &options).unwrap();
    let scene = shape::scene(&doc).unwrap();

    let body = scene.meshes.iter().find(|p| p.role == Role::Collision && doc.class_name(p.object).as_deref() == Some("hkpRigidBody")).unwrap();
    assert_eq!(body.shape_class, "hkpConvexTranslateShape");
    assert_eq!((body.mesh.positions.len(), body.mesh.triangles.len()), (8, 12));
    // Each corner (±0.5, ±1, ±2): turned (x, y) -> (-y, x), up 1, then moved by (1, 2, 3).
    for (i, p) in body.mesh.positions.iter().enumerate() {
        let c = [if i & 1 != 0 { 0.5 } else { -0.5 }, if i & 2 != 0 { 1.0 } else { -1.0 }, if i & 4 != 0 { 2.0 } else { -2.0 }];
        let want = [-c[1] + 1.0, c[0] + 2.0, c[2] + 1.0 + 3.0];
        assert!((0..3).all(|k| (p[k] - want[k]).abs() < 1e-5), "corner {i}: {p:?}, want {want:?}");
    }
    let sphere = scene.meshes.iter().find(|p| p.object == Handle(sphere_h)).expect("the sphere no body holds is placed by itself");
    assert_eq!(sphere.shape_class, "hkpSphereShape");
    assert!(!sphere.mesh.triangles.is_empty());
    for p in &sphere.mesh.positions {
        assert!(((p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt() - 0.75).abs() < 1e-5, "{p:?}");
    }
    // Neither the transform nor the box is placed on its own: the body holds them.
    assert!(!scene.meshes.iter().any(|p| p.object == Handle(transform_h) || p.object == Handle(box_h)));
}

/// An `hkpBvCompressedMeshShape` (not in the corpus) in a file made at run time: Breath of
/// the Wild's `Obj_Mineral_A_01.hkrb` with its rigid body's shape replaced by one whose tree is
/// a Dark Souls III map collision's mesh tree (the same `hkcdStaticMeshTree` members, its
/// primitive data runs left empty). Its triangles are what the tree holds, and each lies in the
/// tree's domain.
#[test]
fn a_bv_compressed_mesh_shape_in_a_made_file() {
    use hktypes::dump::{self, BuildOptions, Members};
    use hktypes::ClassRegistry;
    let Some(corpus) = common::corpus() else { return };
    let ds3 = "DevonLen__DS3-Awesome-Mod/map/m30_00_00_00/h30_00_00_00-hkxbhd/m30_00_00_00/h30_00_00_00_003501.hkx.dcx";
    let Some(ds3_bytes) = common::corpus_file(&corpus, ds3) else { return };
    let rel = "NiceneNerd__UKMM/uk-mod/test/wiiu/content/Actor/Pack/Obj_Mineral_A_01.sbactorpack/RigidBody/Obj_Mineral_A/Obj_Mineral_A_01.hkrb";
    let Some(bytes) = common::corpus_file(&corpus, rel) else { return };
    let options = OpenOptions { classes: Some(schemas()), ..OpenOptions::default() };
    let ds3_doc = open(&ds3_bytes, &options).unwrap();
    let mut tree = member(&ds3_doc, ds3_doc.find("hknpCompressedMeshShapeData")[0], "meshTree");
    let expected = tree_triangles(&tree);
    *at_mut(&mut tree, &["primitiveDataRuns"]) = Val::List(Vec::new());

    let mut doc = open(&bytes, &options).unwrap();
    let version = doc.as_packfile().unwrap().file.contents_version();
    let sources = schemas().packfile(&version);
    doc.declare("hkpBvCompressedMeshShape", sources[0]).unwrap();
    let mut d = dump::dump_packfile(doc.as_packfile().unwrap()).unwrap();
    let convex = d.objects.iter().position(|o| o.class == "hkpConvexVerticesShape").unwrap();
    let mut m: Vec<(String, Val)> = d.objects[convex].members.as_ref().unwrap().0[..6].to_vec();
    let empty = || Val::List(Vec::new());
    for (n, v) in [
        ("bvTreeType", Val::UInt(3)),
        ("convexRadius", Val::Real(0.0)),
        ("weldingType", Val::UInt(0)),
        ("hasPerPrimitiveCollisionFilterInfo", Val::Bool(false)),
        ("hasPerPrimitiveUserData", Val::Bool(false)),
        ("collisionFilterInfoPalette", empty()),
        ("userDataPalette", empty()),
        ("userStringPalette", empty()),
        ("tree", tree),
    ] {
        m.push((n.to_owned(), v));
    }
    d.objects[convex].class = "hkpBvCompressedMeshShape".into();
    d.objects[convex].members = Some(Members(m));
    let build = BuildOptions { compendia: None, packfile_classes: sources, tagfile_enums: Default::default() };
    let made = dump::build(&d, &build, bytes.len() * 4 + ds3_bytes.len() * 16).unwrap_or_else(|e| panic!("{e}"));
    let doc = open(&made, &options).unwrap();
    let scene = shape::scene(&doc).unwrap();
    let body = scene.meshes.iter().find(|p| p.shape_class == "hkpBvCompressedMeshShape").unwrap();
    assert!(expected > 10, "{expected}");
    eprintln!("hkpBvCompressedMeshShape: {expected} triangles");
    assert_eq!(body.mesh.triangles.len(), expected);
    let shape_h = doc.find("hkpBvCompressedMeshShape")[0];
    let tree = member(&doc, shape_h, "tree");
    let dm = tree.field("domain").unwrap();
    let (lo, hi) = (dm.field("min").unwrap().reals(), dm.field("max").unwrap().reals());
    let tol = (0..3).map(|k| hi[k] - lo[k]).fold(0f32, f32::max) * 1e-3;
    // The body's frame is BotW's (identity here): the vertices are the tree's own.
    assert_eq!(body.rotation, [0.0, 0.0, 0.0, 1.0]);
    for v in &body.mesh.positions {
        assert!((0..3).all(|k| v[k] >= lo[k] - tol && v[k] <= hi[k] + tol), "{v:?} outside {lo:?}..{hi:?}");
    }
}

/// hknp shape classes the corpus does not hold, in a file made at run time from Dark Souls
/// III's smallest map collision (SDK 2014.1): its body's shape replaced by an
/// `hknpCompoundShape` of three instances: a plain `hknpCompressedMeshShape` over the file's
/// own mesh data, an `hknpSphereShape` moved by (10, 0, 0), and an `hknpConvexPolytopeShape`
/// cube turned a quarter about z, scaled by 2 and moved by (0, 5, 0); written through the
/// 2014.1 class schemas and opened again.
#[test]
fn hknp_classes_the_corpus_lacks_in_a_made_ds3_file() {
    use hktypes::dump::{self, BuildOptions, DumpObject, Members, ObjectKept};
    use hktypes::ClassRegistry;
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, DS3_COLLISION) else { return };
    let options = OpenOptions { classes: Some(schemas()), ..OpenOptions::default() };
    let mut doc = open(&bytes, &options).unwrap();
    let version = doc.as_packfile().unwrap().file.contents_version();
    let sources = schemas().packfile(&version);
    for class in ["hknpCompoundShape", "hknpCompressedMeshShape", "hknpSphereShape", "hknpConvexPolytopeShape"] {
        doc.declare(class, sources[0]).unwrap();
    }
    let mut d = dump::dump_packfile(doc.as_packfile().unwrap()).unwrap();
    let fs = d.objects.iter().position(|o| o.class == "fsnpCustomParamCompressedMeshShape").unwrap();
    let ms = d.objects[fs].members.clone().unwrap().0;
    let names: Vec<&str> = ms.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names[..14], ["memSizeAndRefCount", "flags", "numShapeKeyBits", "dispatchType", "convexRadius", "userData", "properties", "edgeWeldingMap", "shapeTagCodecInfo", "data", "quadIsFlat", "triangleIsInterior", "numTriangles", "numConvexShapes"]);
    let shape_base = |radius: f32| -> Vec<(String, Val)> {
        ms[..7].iter().map(|(n, v)| (n.clone(), if n == "convexRadius" { Val::Real(radius) } else { v.clone() })).collect()
    };
    let reals = |x: &[f32]| Val::List(x.iter().map(|&r| Val::Real(r)).collect());
    let next = d.objects.iter().map(|o| o.handle).max().unwrap() + 1;
    let (mesh_h, sphere_h, cube_h) = (next, next + 1, next + 2);
    let made = |handle: u32, class: &str, members: Vec<(String, Val)>| DumpObject {
        handle,
        class: class.into(),
        members: Some(Members(members)),
        untyped: None,
        kept: ObjectKept::default(),
    };
    let named = |v: Vec<(&str, Val)>| v.into_iter().map(|(n, x)| (n.to_owned(), x)).collect::<Vec<_>>();
    // The plain compressed mesh: the FromSoftware shape's hknp members.
    d.objects.push(made(mesh_h, "hknpCompressedMeshShape", ms[..14].to_vec()));
    let mut sphere = shape_base(0.5);
    sphere.extend(named(vec![("vertices", Val::List(vec![reals(&[1.0, 1.0, 1.0, 0.0])]))]));
    d.objects.push(made(sphere_h, "hknpSphereShape", sphere));
    // The unit cube about the origin: corners (±0.5)^3, six faces of four, facing out.
    let corners: Vec<Val> = (0..8).map(|i| reals(&[if i & 1 != 0 { 0.5 } else { -0.5 }, if i & 2 != 0 { 0.5 } else { -0.5 }, if i & 4 != 0 { 0.5 } else { -0.5 }, 0.0])).collect();
    let quads: [[u64; 4]; 6] = [[0, 4, 6, 2], [1, 3, 7, 5], [0, 1, 5, 4], [2, 6, 7, 3], [0, 2, 3, 1], [4, 5, 7, 6]];
    let planes = [[-1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0], [0.0, 0.0, 1.0]].map(|n: [f32; 3]| reals(&[n[0], n[1], n[2], -0.5]));
    let faces = (0..6u64).map(|f| Val::Record(Members(named(vec![("firstIndex", Val::UInt(4 * f)), ("numIndices", Val::UInt(4)), ("minHalfAngle", Val::UInt(0))])))).collect();
    let mut cube = shape_base(0.0);
    cube.extend(named(vec![
        ("vertices", Val::List(corners)),
        ("planes", Val::List(planes.to_vec())),
        ("faces", Val::List(faces)),
        ("indices", Val::List(quads.iter().flatten().map(|&i| Val::UInt(i)).collect())),
    ]));
    d.objects.push(made(cube_h, "hknpConvexPolytopeShape", cube));
    // The compound: hkTransform is the rotation's columns, then the translation.
    let instance = |shape: u32, transform: [f32; 16], scale: f32| {
        Val::Record(Members(named(vec![
            ("transform", reals(&transform)),
            ("scale", reals(&[scale, scale, scale, 0.0])),
            ("shape", Val::Ref(shape, None)),
            ("shapeTag", Val::UInt(0)),
            ("destructionTag", Val::UInt(0)),
            ("padding", Val::List(vec![Val::UInt(0); 30])),
        ])))
    };
    let identity = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0];
    let mut moved = identity;
    moved[12] = 10.0;
    let turned = [0.0, 1.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 5.0, 0.0, 1.0];
    let mut compound = ms[..9].to_vec();
    compound.extend(named(vec![
        ("instances", Val::Record(Members(named(vec![("elements", Val::List(vec![instance(mesh_h, identity, 1.0), instance(sphere_h, moved, 1.0), instance(cube_h, turned, 2.0)])), ("firstFree", Val::Int(-1))])))),
        ("aabb", Val::Record(Members(named(vec![("min", reals(&[-100.0; 4])), ("max", reals(&[100.0; 4]))])))),
        ("isMutable", Val::Bool(false)),
        ("mutationSignals", Val::Record(Members(named(vec![("shapeMutated", Val::Null), ("shapeDestroyed", Val::Null)])))),
    ]));
    d.objects[fs].class = "hknpCompoundShape".into();
    d.objects[fs].members = Some(Members(compound));
    let build = BuildOptions { compendia: None, packfile_classes: sources, tagfile_enums: Default::default() };
    let made_bytes = dump::build(&d, &build, bytes.len() * 16).unwrap_or_else(|e| panic!("{e}"));
    let doc = open(&made_bytes, &options).unwrap();
    let scene = shape::scene(&doc).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(scene.meshes.len(), 1, "{:?}", scene.meshes.iter().map(|p| &p.shape_class).collect::<Vec<_>>());
    let body = &scene.meshes[0];
    assert_eq!(body.shape_class, "hknpCompoundShape");
    let m = &body.mesh;
    // The compressed mesh's one triangle (3 vertices), the sphere, then the cube's 8 corners
    // and 12 triangles.
    let sphere_vertices = m.positions.len() - 3 - 8;
    for p in &m.positions[3..3 + sphere_vertices] {
        let d = ((p[0] - 11.0).powi(2) + (p[1] - 1.0).powi(2) + (p[2] - 1.0).powi(2)).sqrt();
        assert!((d - 0.5).abs() < 1e-5, "sphere vertex {p:?} at {d}");
    }
    for (i, p) in m.positions[3 + sphere_vertices..].iter().enumerate() {
        let c = [if i & 1 != 0 { 1.0 } else { -1.0 }, if i & 2 != 0 { 1.0 } else { -1.0 }, if i & 4 != 0 { 1.0 } else { -1.0 }];
        let want = [-c[1], c[0] + 5.0, c[2]];
        assert!((0..3).all(|k| (p[k] - want[k]).abs() < 1e-5), "corner {i}: {p:?}, want {want:?}");
    }
    let cube_tris = m.triangles.iter().filter(|t| t.iter().all(|&k| k as usize >= 3 + sphere_vertices)).count();
    let mesh_tris = m.triangles.iter().filter(|t| t.iter().all(|&k| k < 3)).count();
    assert_eq!((mesh_tris, cube_tris), (1, 12));
    assert!(m.triangles.len() > 13);
}

/// DS3's smallest map collision with its body's shape object replaced: `edit` gets the dump,
/// the index of the shape object, its members (the first 9 are hknpShape's and
/// hknpCompositeShape's) and the first free handle. Written through the 2014.1 schemas (the
/// `classes` declared first) and opened again.
fn made_ds3(
    corpus: &std::path::Path,
    classes: &[&str],
    edit: impl FnOnce(&mut hktypes::dump::Dump, usize, &[(String, Val)], u32),
) -> Option<Document> {
    use hktypes::dump::{self, BuildOptions};
    use hktypes::ClassRegistry;
    let bytes = common::corpus_file(corpus, DS3_COLLISION)?;
    let options = OpenOptions { classes: Some(schemas()), ..OpenOptions::default() };
    let mut doc = open(&bytes, &options).unwrap();
    let version = doc.as_packfile().unwrap().file.contents_version();
    let sources = schemas().packfile(&version);
    for class in classes {
        doc.declare(class, sources[0]).unwrap();
    }
    let mut d = dump::dump_packfile(doc.as_packfile().unwrap()).unwrap();
    let fs = d.objects.iter().position(|o| o.class == "fsnpCustomParamCompressedMeshShape").unwrap();
    let ms = d.objects[fs].members.clone().unwrap().0;
    let next = d.objects.iter().map(|o| o.handle).max().unwrap() + 1;
    edit(&mut d, fs, &ms, next);
    let build = BuildOptions { compendia: None, packfile_classes: sources, tagfile_enums: Default::default() };
    let made = dump::build(&d, &build, bytes.len() * 64).unwrap_or_else(|e| panic!("{e}"));
    Some(open(&made, &options).unwrap())
}

/// An `hknpCompoundShape` of the members `base` (hknpShape's and hknpCompositeShape's) whose
/// instances are `shapes`, each untransformed.
fn compound(base: &[(String, Val)], shapes: &[u32]) -> hktypes::dump::Members {
    use hktypes::dump::Members;
    let reals = |x: &[f32]| Val::List(x.iter().map(|&r| Val::Real(r)).collect());
    let rec = |v: Vec<(&str, Val)>| Val::Record(Members(v.into_iter().map(|(n, x)| (n.to_owned(), x)).collect()));
    let identity = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0];
    let instances = shapes
        .iter()
        .map(|&s| {
            rec(vec![
                ("transform", reals(&identity)),
                ("scale", reals(&[1.0, 1.0, 1.0, 0.0])),
                ("shape", Val::Ref(s, None)),
                ("shapeTag", Val::UInt(0)),
                ("destructionTag", Val::UInt(0)),
                ("padding", Val::List(vec![Val::UInt(0); 30])),
            ])
        })
        .collect();
    let mut m = base[..9].to_vec();
    m.push(("instances".into(), rec(vec![("elements", Val::List(instances)), ("firstFree", Val::Int(-1))])));
    m.push(("aabb".into(), rec(vec![("min", reals(&[-1.0; 4])), ("max", reals(&[1.0; 4]))])));
    m.push(("isMutable".into(), Val::Bool(false)));
    m.push(("mutationSignals".into(), rec(vec![("shapeMutated", Val::Null), ("shapeDestroyed", Val::Null)])));
    Members(m)
}

/// A compound that holds itself, and compounds that place one sphere 2^24 times, are errors
/// naming the object, after bounded work (each shape is made once; the expansion is counted
/// before it is made).
#[test]
fn a_shape_that_holds_itself_or_expands_without_end_is_a_located_error() {
    use hktypes::dump::{DumpObject, ObjectKept};
    let Some(corpus) = common::corpus() else { return };
    let Some(doc) = made_ds3(&corpus, &["hknpCompoundShape"], |d, fs, ms, _| {
        let me = d.objects[fs].handle;
        d.objects[fs].class = "hknpCompoundShape".into();
        d.objects[fs].members = Some(compound(ms, &[me]));
    }) else {
        return; // not-a-skip: made_ds3 read the file through common::corpus_file, which reported it
    };
    let h = doc.find("hknpCompoundShape")[0];
    let e = shape::scene(&doc).unwrap_err();
    assert!(matches!(e.kind(), hktypes::ErrorKind::Cycle(_)), "{e}");
    assert!(e.to_string().starts_with(&format!("in object {} (hknpCompoundShape)", h.0)), "{e}");

    // Four levels of 64 instances over one sphere: 64^4 = 2^24 spheres.
    let Some(doc) = made_ds3(&corpus, &["hknpCompoundShape", "hknpSphereShape"], |d, fs, ms, next| {
        let made = |handle: u32, class: &str, members| DumpObject { handle, class: class.into(), members: Some(members), untyped: None, kept: ObjectKept::default() };
        let mut sphere = ms[..7].to_vec();
        sphere.push(("vertices".into(), Val::List(vec![Val::List(vec![Val::Real(0.0); 4])])));
        d.objects.push(made(next, "hknpSphereShape", hktypes::dump::Members(sphere)));
        let mut below = next;
        for level in 1..4 {
            d.objects.push(made(next + level, "hknpCompoundShape", compound(ms, &[below; 64])));
            below = next + level;
        }
        d.objects[fs].class = "hknpCompoundShape".into();
        d.objects[fs].members = Some(compound(ms, &[below; 64]));
    }) else {
        return; // not-a-skip: made_ds3 read the file through common::corpus_file, which reported it
    };
    let start = std::time::Instant::now();
    let e = shape::scene(&doc).unwrap_err().to_string();
    let took = start.elapsed();
    assert!(e.contains("(hknpCompoundShape)") && e.contains("the shapes expand to more than 16777216 triangles and vertices"), "{e}");
    eprintln!("expansion refused after {took:?}: {e}");
}
