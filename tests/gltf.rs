//! glTF 2.0 export and import (issue 35) on the corpus: every skeleton and animation file exports
//! (an animation with the skeleton it is bound to, found in the corpus by the binding's name;
//! one whose skeleton the corpus lacks is refused with that name); the Khronos glTF Validator
//! reports no error on any export; bones, parents and reference pose equal the skeleton's; the
//! glTF's keys equal the decoded frames; export -> import -> decode of every spline animation
//! stays within the encoder's tolerances and the written file passes `hkgen verify`. Every file
//! with shapes (collision, ragdoll bodies, cloth: `shape::scene`, whose triangle counts
//! tests/shape.rs holds to the shapes' members) exports its placed meshes with the scene's
//! triangles and positions, bit for bit. A hand-made shape scene (a box) exports as a mesh node
//! with its extras.

mod common;

use hkgen::reflection::check::ClassSchemas;
use hktypes::anim::{self, Animation, Codec};
use hktypes::gltf::{self, import, ExportOptions, Input};
use hktypes::packfile::xml::Dangling;
use hktypes::shape::{self, Constraint, Mesh, Placed, Role, Scene};
use hktypes::{open, Document, Handle, OpenOptions};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const MARKS: &[&str] = &["hkaAnimationContainer", "Animation", "hkaSkeletalAnimation", "hkaSkeleton"];

struct Opened {
    relpath: String,
    path: PathBuf,
    bytes: Vec<u8>,
    doc: Document,
    skeletons: Vec<gltf::SkeletonPose>,
    anims: Vec<Animation>,
    /// `shape::scene` of the file: collision shapes, ragdoll bodies, cloth.
    scene: Scene,
    options: OpenOptions<'static>,
}

fn schemas() -> &'static ClassSchemas {
    Box::leak(Box::new(ClassSchemas::load(&common::workspace_root().join("schemas")).unwrap()))
}

/// Every corpus file that holds a skeleton, an animation, or a shape, ragdoll or cloth (a
/// non-empty `shape::scene`), opened. A file the manifest lists with a skeleton or animation
/// class must open; any other that does not open is left to the tests of opening (tests/open.rs).
fn files(corpus: &Path) -> Vec<Opened> {
    let schemas = schemas();
    let text = std::fs::read_to_string(corpus.join("MANIFEST.tsv")).unwrap();
    let entries = common::manifest(corpus);
    let compendia = Box::leak(Box::new(common::compendia(&entries)));
    let mut out = Vec::new();
    for (e, line) in entries.iter().zip(text.lines().skip(1).filter(|l| !l.is_empty())) {
        if e.format == "tcm0" {
            continue;
        }
        let marked = MARKS.iter().any(|m| line.contains(m));
        let Some(bytes) = common::corpus_file(corpus, &e.relpath) else { continue };
        let set = Box::leak(Box::new(compendia.set_for(&e.path)));
        let options = OpenOptions { compendia: Some(set), classes: Some(schemas), xml_dangling: Dangling::Null, ..OpenOptions::default() };
        let doc = match open(&bytes, &options) {
            Ok(doc) => doc,
            Err(err) if marked => panic!("{}: {err}", e.relpath),
            Err(_) => continue,
        };
        let skeletons = gltf::skeletons(&doc).unwrap_or_else(|err| panic!("{}: {err}", e.relpath));
        let anims = anim::animations(&doc).unwrap_or_else(|err| panic!("{}: {err}", e.relpath));
        let scene = shape::scene(&doc).unwrap_or_else(|err| panic!("{}: {err}", e.relpath));
        if skeletons.is_empty() && anims.is_empty() && scene.meshes.is_empty() {
            continue;
        }
        out.push(Opened { relpath: e.relpath.clone(), path: e.path.clone(), bytes, doc, skeletons, anims, scene, options });
    }
    out
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.split('/').zip(b.split('/')).take_while(|(x, y)| x == y).count()
}

/// The skeleton file an animation file plays on: itself when it holds one; else the corpus file
/// whose skeleton the binding names (the nearest in the tree), with bones for every track.
fn skeleton_file<'a>(all: &'a [Opened], f: &'a Opened) -> Option<&'a Opened> {
    if !f.skeletons.is_empty() {
        return None;
    }
    let a = f.anims.first()?;
    let name = a.binding.as_ref().map(|b| b.skeleton_name.clone()).filter(|n| !n.is_empty())?;
    let need = a.track_to_bone().into_iter().flatten().max().map_or(0, |m| m + 1);
    all.iter()
        .filter(|s| s.skeletons.iter().any(|k| k.name == name && k.bones.len() >= need))
        .max_by_key(|s| common_prefix(&s.relpath, &f.relpath))
}

/// The exports of the corpus: (name, glb, the files it was made of). Animation files whose
/// skeleton the corpus lacks are checked to be refused with the skeleton's name, and are then
/// exported on a placeholder skeleton.
fn exports(all: &[Opened]) -> Vec<(String, Vec<u8>, Vec<usize>)> {
    let mut out = Vec::new();
    let mut refused = 0;
    for (i, f) in all.iter().enumerate() {
        let mut parts = vec![i];
        if let Some(s) = skeleton_file(all, f) {
            parts.insert(0, all.iter().position(|x| std::ptr::eq(x, s)).unwrap());
        }
        let inputs: Vec<Input<'_>> = parts.iter().map(|&k| Input { name: &all[k].relpath, doc: &all[k].doc }).collect();
        match gltf::export_inputs(&inputs, &ExportOptions::default()) {
            Ok(g) => out.push((f.relpath.clone(), g.to_glb().unwrap(), parts)),
            Err(e) => {
                let a = f.anims.first().unwrap_or_else(|| panic!("{}: {e}", f.relpath));
                let msg = e.to_string();
                match a.binding.as_ref().map(|b| b.skeleton_name.as_str()).filter(|n| !n.is_empty()) {
                    Some(name) => assert!(msg.contains(&format!("{name:?}")) && msg.contains("no input holds"), "{}: {msg}", f.relpath),
                    None => assert!(msg.contains("names no skeleton"), "{}: {msg}", f.relpath),
                }
                refused += 1;
                // With a placeholder skeleton (bones named by index) it exports.
                let options = ExportOptions { placeholder_skeletons: true, ..ExportOptions::default() };
                let g = gltf::export_inputs(&inputs, &options).unwrap_or_else(|e| panic!("{}: {e}", f.relpath));
                out.push((f.relpath.clone(), g.to_glb().unwrap(), parts));
            }
        }
    }
    eprintln!("{} exports; {refused} animation files refused for want of their skeleton, then exported on a placeholder", out.len());
    out
}

/// A GLB's JSON and binary chunk, split by hand (not through the writer's types).
fn glb_parts(glb: &[u8]) -> (serde_json::Value, &[u8]) {
    assert_eq!(&glb[..4], b"glTF");
    let word = |at: usize| u32::from_le_bytes(glb[at..at + 4].try_into().unwrap()) as usize;
    let json_len = word(12);
    let json = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    let bin = if glb.len() > 20 + json_len { &glb[28 + json_len..28 + json_len + word(20 + json_len)] } else { &[][..] };
    (json, bin)
}

/// The bytes of accessor `a` (tightly packed: the export writes no stride), `width` bytes an element.
fn accessor_bytes<'a>(g: &serde_json::Value, bin: &'a [u8], a: usize, width: usize) -> &'a [u8] {
    let acc = &g["accessors"][a];
    let view = &g["bufferViews"][acc["bufferView"].as_u64().unwrap() as usize];
    assert!(view.get("byteStride").is_none());
    let start = view["byteOffset"].as_u64().unwrap_or(0) as usize + acc["byteOffset"].as_u64().unwrap_or(0) as usize;
    &bin[start..start + acc["count"].as_u64().unwrap() as usize * width]
}

/// Checks that the placed-mesh nodes of an export are the scenes' meshes, in order: name, role,
/// positions and triangles equal. Gives (meshes, triangles) per role name.
fn check_meshes(name: &str, glb: &[u8], scenes: &[&Scene]) -> BTreeMap<String, (usize, usize)> {
    let (g, bin) = glb_parts(glb);
    let placed: Vec<&serde_json::Value> = g["nodes"].as_array().unwrap().iter().filter(|n| n["extras"].get("role").is_some()).collect();
    let want: Vec<&Placed> = scenes.iter().flat_map(|s| &s.meshes).collect();
    assert_eq!(placed.len(), want.len(), "{name}: placed mesh nodes");
    let mut by_role = BTreeMap::new();
    for (k, (node, p)) in placed.iter().zip(&want).enumerate() {
        assert_eq!(node["name"], p.name.as_str(), "{name}: placed mesh {k}");
        assert_eq!(node["extras"]["triangles"], p.mesh.triangles.len(), "{name}: placed mesh {k}");
        assert_eq!(node["extras"]["shape_class"], p.shape_class.as_str(), "{name}: placed mesh {k}");
        let role = node["extras"]["role"].as_str().unwrap().to_owned();
        let e = by_role.entry(role).or_insert((0, 0));
        e.0 += 1;
        e.1 += p.mesh.triangles.len();
        let Some(m) = node.get("mesh") else {
            // not-a-skip: a placed mesh of no triangle has no glTF mesh, which is what is asserted.
            assert!(p.mesh.triangles.is_empty(), "{name}: placed mesh {k} has triangles and no glTF mesh");
            continue;
        };
        let prim = &g["meshes"][m.as_u64().unwrap() as usize]["primitives"][0];
        let idx = accessor_bytes(&g, bin, prim["indices"].as_u64().unwrap() as usize, 4);
        let tris: Vec<u32> = idx.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
        assert_eq!(tris, p.mesh.triangles.iter().flatten().copied().collect::<Vec<_>>(), "{name}: placed mesh {k}'s triangles");
        let pos = accessor_bytes(&g, bin, prim["attributes"]["POSITION"].as_u64().unwrap() as usize, 12);
        let xyz: Vec<f32> = pos.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
        assert_eq!(xyz, p.mesh.positions.iter().flatten().copied().collect::<Vec<_>>(), "{name}: placed mesh {k}'s positions");
    }
    by_role
}

fn read(glb: &[u8]) -> import::GltfAnimations {
    import::GltfAnimations::read(glb, None).unwrap()
}

fn unit(q: &[f32]) -> [f32; 4] {
    let l = q.iter().map(|x| x * x).sum::<f32>().sqrt();
    [q[0] / l, q[1] / l, q[2] / l, q[3] / l]
}

fn same_rotation(a: &[f32], b: &[f32], tol: f32) -> bool {
    let (a, b) = (unit(a), unit(b));
    let d: f32 = (0..4).map(|k| a[k] * b[k]).sum();
    let s = if d < 0.0 { -1.0 } else { 1.0 };
    (0..4).all(|k| (a[k] - s * b[k]).abs() <= tol)
}

#[test]
fn corpus_exports_equal_the_skeletons_and_frames() {
    let Some(corpus) = common::corpus() else { return };
    let all = files(&corpus);
    assert!(all.len() > 50, "{} skeleton and animation files", all.len());
    let ex = exports(&all);
    let (mut bones_checked, mut keys_checked, mut anims_checked) = (0usize, 0usize, 0usize);
    let mut roles: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut shape_files = 0;
    for (name, glb, parts) in &ex {
        let scenes: Vec<&Scene> = parts.iter().map(|&k| &all[k].scene).collect();
        for (role, (m, t)) in check_meshes(name, glb, &scenes) {
            let e = roles.entry(role).or_insert((0, 0));
            e.0 += m;
            e.1 += t;
        }
        shape_files += usize::from(!all[*parts.last().unwrap()].scene.meshes.is_empty());
        let g = read(glb);
        // Skeletons: every skin is a skeleton of the inputs, bone for bone.
        for &k in parts {
            for s in &all[k].skeletons {
                let skin = g.skins.iter().find(|(n, j)| (n == &s.name || s.name.is_empty()) && j.len() == s.bones.len()).unwrap_or_else(|| panic!("{name}: no skin {:?}", s.name));
                let joints = &skin.1;
                for (b, &node) in joints.iter().enumerate() {
                    let (bone, t) = &g.nodes[node];
                    assert_eq!(bone, &s.bones[b], "{name}: bone {b}");
                    let parent = g.parents[node];
                    match s.parents[b] {
                        -1 => assert!(parent.is_some_and(|p| !joints.contains(&p)), "{name}: bone {b} is a root"),
                        p => assert_eq!(parent, Some(joints[p as usize]), "{name}: bone {b}'s parent"),
                    }
                    let want = s.pose[b];
                    for c in (0..3).chain(7..10) {
                        assert_eq!(t[c], want[c], "{name}: bone {b} component {c}");
                    }
                    assert!(same_rotation(&t[3..7], &want[3..7], 1e-6), "{name}: bone {b} rotation {:?} {:?}", &t[3..7], &want[3..7]);
                    bones_checked += 1;
                }
            }
        }
        // Animations: every key equals the decoded frame.
        for ga in &g.animations {
            let ex: serde_json::Value = serde_json::from_str(&ga.extras).unwrap();
            let h = Handle(ex["object"].as_u64().unwrap() as u32);
            let src = ex["source"].as_str().unwrap();
            let f = all.iter().find(|f| f.relpath == src).unwrap();
            let a = f.anims.iter().find(|a| a.handle == h).unwrap();
            let frames = a.frames().unwrap();
            let skin = g.skins.iter().find(|(n, _)| n == ex["skeleton"].as_str().unwrap()).unwrap();
            let bones = a.track_to_bone();
            for c in &ga.channels {
                let Some(b) = skin.1.iter().position(|&j| j == c.node) else { continue };
                let t = bones.iter().position(|x| *x == Some(b)).unwrap();
                assert_eq!(c.times.len(), frames.frame_count, "{name}");
                for (fi, v) in c.values.iter().enumerate() {
                    let x = frames.transform(fi, t).unwrap();
                    match c.path {
                        0 => assert_eq!(&v[..3], &x[0..3], "{name}: frame {fi} track {t}"),
                        2 => assert_eq!(&v[..3], &x[7..10], "{name}: frame {fi} track {t}"),
                        _ => assert!(same_rotation(v, &x[3..7], 2e-6), "{name}: frame {fi} track {t}: {v:?} {:?}", &x[3..7]),
                    }
                    keys_checked += 1;
                }
                // The key times are the frames'.
                if frames.frame_count > 1 {
                    let dt = c.times[1] - c.times[0];
                    assert!((dt - a.duration / (frames.frame_count - 1) as f32).abs() < 1e-5, "{name}: {dt}");
                }
            }
            anims_checked += 1;
        }
    }
    eprintln!("{bones_checked} bones, {anims_checked} animations, {keys_checked} keys equal the files'");
    eprintln!("{shape_files} files with shapes; placed meshes (meshes, triangles) by role equal the scenes': {roles:?}");
    for role in ["collision", "ragdoll body", "cloth sim"] {
        assert!(roles.get(role).is_some_and(|r| r.0 > 0 && r.1 > 0), "no {role} mesh exported: {roles:?}");
    }
    assert!(bones_checked > 1000 && anims_checked > 20, "{bones_checked} bones, {anims_checked} animations");
}

/// The validator's folder: `target/node-tools/node_modules/gltf-validator` (as `.ci/run` installs it).
fn validator() -> Option<PathBuf> {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).parent()?.to_path_buf();
    let dir = target.join("node-tools/node_modules/gltf-validator");
    dir.join("package.json").is_file().then_some(dir)
}

/// Runs the Khronos glTF Validator over `files` in one Node process; per file (name, errors,
/// warnings, the first messages).
fn validate(dir: &Path, files: &[PathBuf]) -> Vec<(String, u64, u64, String)> {
    let script = r#"
const v = require(process.argv[2]);
const fs = require('fs');
const path = require('path');
(async () => {
  const out = [];
  for (const f of process.argv.slice(3)) {
    const data = new Uint8Array(fs.readFileSync(f));
    const r = await v.validateBytes(data, {
      uri: path.basename(f), maxIssues: 50,
      externalResourceFunction: (u) => new Promise((ok, no) => fs.readFile(path.join(path.dirname(f), decodeURIComponent(u)), (e, d) => e ? no(e.toString()) : ok(new Uint8Array(d)))),
    });
    const msgs = r.issues.messages.filter(m => m.severity === 0).slice(0, 3).map(m => m.code + ' ' + m.message + ' ' + (m.pointer || ''));
    out.push([f, r.issues.numErrors, r.issues.numWarnings, msgs.join(' | ')]);
  }
  process.stdout.write(JSON.stringify(out));
})().catch(e => { console.error(e); process.exit(2); });
"#;
    let js = std::env::temp_dir().join(format!("hkgen-gltf-validate-{}.js", std::process::id()));
    std::fs::write(&js, script).unwrap();
    let o = Command::new("node").arg(&js).arg(dir).args(files).output().expect("run node");
    let _ = std::fs::remove_file(&js);
    assert!(o.status.success(), "validator: {}", String::from_utf8_lossy(&o.stderr));
    let v: Vec<(String, u64, u64, String)> = serde_json::from_slice(&o.stdout).unwrap();
    v
}

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("gltf-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn need_validator() -> Option<PathBuf> {
    match validator() {
        Some(v) => Some(v),
        None if common::corpus_required() => {
            panic!("the Khronos glTF Validator is not installed under target/node-tools (npm install --prefix target/node-tools gltf-validator); HKGEN_REQUIRE_CORPUS=1 makes this a failure")
        }
        None => {
            eprintln!("SKIPPED: the glTF Validator is not installed (npm install --prefix target/node-tools gltf-validator)");
            None
        }
    }
}

#[test]
fn the_khronos_validator_reports_no_error_on_any_corpus_export() {
    let Some(corpus) = common::corpus() else { return };
    // not-a-skip: need_validator() fails under HKGEN_REQUIRE_CORPUS=1 and prints SKIPPED otherwise.
    let Some(v) = need_validator() else { return };
    let all = files(&corpus);
    let ex = exports(&all);
    let dir = scratch("validate");
    let mut paths = Vec::new();
    // Each export named after its file (the corpus path with `/` as `__`), kept in
    // target/tmp/gltf-validate for a look (tools/gltf_blender.py loads them in Blender).
    let mut index = String::from("glb\tfiles\n");
    for (name, glb, parts) in &ex {
        let p = dir.join(format!("{}.glb", name.replace('/', "__")));
        std::fs::write(&p, glb).unwrap();
        let files: Vec<&str> = parts.iter().map(|&k| all[k].relpath.as_str()).collect();
        index.push_str(&format!("{}\t{}\n", p.file_name().unwrap().to_string_lossy(), files.join(" ")));
        paths.push(p);
    }
    std::fs::write(dir.join("index.tsv"), index).unwrap();
    // The hand-made box scene and a .gltf with its .bin, too.
    let g = gltf::export_scene("box.hkx", &box_scene(), &ExportOptions::default()).unwrap();
    let p = dir.join("box.glb");
    std::fs::write(&p, g.to_glb().unwrap()).unwrap();
    paths.push(p);
    let (text, bin) = g.to_gltf("box.bin").unwrap();
    std::fs::write(dir.join("box.bin"), bin).unwrap();
    let p = dir.join("box.gltf");
    std::fs::write(&p, text).unwrap();
    paths.push(p);
    let start = std::time::Instant::now();
    let reports = validate(&v, &paths);
    assert_eq!(reports.len(), paths.len());
    let bad: Vec<String> = reports
        .iter()
        .enumerate()
        .filter(|(_, r)| r.1 > 0)
        .map(|(k, r)| format!("{} ({} errors): {}", ex.get(k).map_or(r.0.as_str(), |e| e.0.as_str()), r.1, r.3))
        .collect();
    eprintln!("validated {} exports in {:?}; {} warnings in all", paths.len(), start.elapsed(), reports.iter().map(|r| r.2).sum::<u64>());
    assert!(bad.is_empty(), "{} exports with errors:\n{}", bad.len(), bad.join("\n"));
}

fn box_scene() -> Scene {
    let mut positions = Vec::new();
    for i in 0..8u32 {
        positions.push([if i & 1 == 0 { -0.5 } else { 0.5 }, if i & 2 == 0 { -0.25 } else { 0.25 }, if i & 4 == 0 { -1.0 } else { 1.0 }]);
    }
    let quads: [[u32; 4]; 6] = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
    let triangles = quads.iter().flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]]).collect();
    let placed = |name: &str, role, t: [f32; 3], bone: Option<&str>| Placed {
        name: name.into(),
        role,
        object: Handle(7),
        shape_class: "hkpBoxShape".into(),
        translation: t,
        rotation: [0.0, 0.0, 0.38268343, 0.9238795],
        bone: bone.map(str::to_owned),
        mesh: Mesh { positions: positions.clone(), triangles: Vec::clone(&triangles) },
        extras: vec![("mass".into(), 12.5), ("friction".into(), 0.4)],
    };
    Scene {
        meshes: vec![placed("Pelvis body", Role::RagdollBody, [0.0, 1.0, 0.0], None), placed("Floor", Role::Collision, [0.0, -1.0, 2.0], None)],
        constraints: vec![Constraint { name: "hip".into(), class: "hkpRagdollConstraintData".into(), body_a: 0, body_b: 1, pivot_a: [0.0, 0.5, 0.0], pivot_b: [0.1, 0.0, 0.0] }],
    }
}

#[test]
fn a_box_scene_exports_as_mesh_nodes_with_their_extras() {
    let g = gltf::export_scene("ragdoll.hkx", &box_scene(), &ExportOptions::default()).unwrap();
    assert_eq!(g.root.meshes.len(), 2);
    let prim = &g.root.meshes[0].primitives[0];
    let idx = &g.root.accessors[prim.indices.unwrap().value()];
    assert_eq!(idx.count.0, 36, "12 triangles");
    let pos = &g.root.accessors[prim.attributes.values().next().unwrap().value()];
    assert_eq!(pos.count.0, 8);
    assert_eq!(pos.min.as_ref().unwrap(), &serde_json::json!([-0.5, -0.25, -1.0]));
    let node = g.root.nodes.iter().find(|n| n.name.as_deref() == Some("Pelvis body")).unwrap();
    assert_eq!(node.translation, Some([0.0, 1.0, 0.0]));
    let ex: serde_json::Value = serde_json::from_str(node.extras.as_ref().unwrap().get()).unwrap();
    assert_eq!(ex["role"], "ragdoll body");
    assert_eq!(ex["shape_class"], "hkpBoxShape");
    assert_eq!(ex["extras"]["mass"], 12.5);
    assert_eq!(ex["triangles"], 12);
    let scene: serde_json::Value = serde_json::from_str(g.root.scenes[0].extras.as_ref().unwrap().get()).unwrap();
    assert_eq!(scene["constraints"][0]["class"], "hkpRagdollConstraintData");
    assert_eq!(scene["constraints"][0]["body_b_name"], "Floor");
    // The GLB reads back with the gltf crate; the nodes are under the Havok root.
    let back = read(&g.to_glb().unwrap());
    assert_eq!(back.nodes[0].0, "Havok");
    assert!(back.parents[1..].iter().all(|p| *p == Some(0)));
    // A triangle naming a vertex that is not there is a located error.
    let mut bad = box_scene();
    bad.meshes[1].mesh.triangles[3] = [0, 1, 99];
    let e = gltf::export_scene("bad.hkx", &bad, &ExportOptions::default()).unwrap_err().to_string();
    assert!(e.contains("\"Floor\"") && e.contains("triangle 3 names vertex 99 of 8"), "{e}");
}

/// The spline animation files the corpus has skeletons for, with their skeleton files.
#[test]
fn export_import_decode_of_every_spline_animation_stays_within_tolerance() {
    let Some(corpus) = common::corpus() else { return };
    let all = files(&corpus);
    let dir = scratch("roundtrip");
    let (mut done, mut placeholders, mut mixed) = (0, 0, 0);
    let mut written = Vec::new();
    for (i, f) in all.iter().enumerate() {
        if !f.anims.iter().any(|a| a.codec == Codec::Spline) {
            continue;
        }
        if f.anims.iter().any(|a| a.codec != Codec::Spline) {
            mixed += 1;
            continue;
        }
        let mut parts = vec![i];
        if let Some(s) = skeleton_file(&all, f) {
            parts.insert(0, all.iter().position(|x| std::ptr::eq(x, s)).unwrap());
        }
        let inputs: Vec<Input<'_>> = parts.iter().map(|&k| Input { name: &all[k].relpath, doc: &all[k].doc }).collect();
        // An animation whose skeleton the corpus lacks goes out on a placeholder skeleton (bones
        // named by index), which the import reads back onto the same file.
        let options = ExportOptions { placeholder_skeletons: true, ..ExportOptions::default() };
        let g = gltf::export_inputs(&inputs, &options).unwrap_or_else(|e| panic!("{}: {e}", f.relpath));
        let placeholder = g.root.nodes.iter().any(|n| n.extras.as_ref().is_some_and(|x| x.get().contains("\"placeholder\":true")));
        assert_eq!(placeholder, f.skeletons.is_empty() && parts.len() == 1, "{}: a placeholder skeleton where the inputs hold none", f.relpath);
        placeholders += usize::from(placeholder);
        let g = read(&g.to_glb().unwrap());
        let mut doc = open(&f.bytes, &f.options).unwrap();
        let opts = import::ImportOptions::default();
        let done_here = import::import_animations(&mut doc, &f.relpath, &g, &opts, &f.options).unwrap_or_else(|e| panic!("{}: {e}", f.relpath));
        assert_eq!(done_here.len(), f.anims.len(), "{}", f.relpath);
        let bytes = doc.write().unwrap();
        let back = open(&bytes, &f.options).unwrap();
        for (a, b) in f.anims.iter().zip(anim::animations(&back).unwrap()) {
            let (x, y) = (a.frames().unwrap(), b.frames().unwrap());
            assert_eq!((x.frame_count, x.track_count), (y.frame_count, y.track_count), "{}", f.relpath);
            let tol = 0.01 * 1.05 + 2e-4;
            for (k, (p, q)) in x.transforms.iter().zip(&y.transforms).enumerate() {
                for c in (0..3).chain(7..10) {
                    assert!((p[c] - q[c]).abs() <= tol, "{}: value {k} component {c}: {} {}", f.relpath, p[c], q[c]);
                }
                assert!(same_rotation(&p[3..7], &q[3..7], tol), "{}: value {k}: {:?} {:?}", f.relpath, &p[3..7], &q[3..7]);
            }
        }
        let out = dir.join(format!("{done}.hkx"));
        std::fs::write(&out, &bytes).unwrap();
        written.push((out, f.path.clone()));
        done += 1;
    }
    eprintln!("{done} spline animation files imported back ({placeholders} on a placeholder skeleton), {mixed} with other codecs too left out");
    assert_eq!(mixed, 0, "files with spline and other animations: import them too");
    assert!(done >= 300, "{done}");
    // The written files pass `hkgen verify` (with the corpus compendia for tagfiles that name one).
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hkgen"));
    cmd.arg("verify").arg("--compendium").arg(&corpus);
    for (p, _) in &written {
        cmd.arg(p);
    }
    let o = cmd.output().unwrap();
    assert!(o.status.success(), "verify: {}\n{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
}

fn hkgen(args: &[&std::ffi::OsStr]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hkgen"));
    // The class schemas of the checkout, whether or not the binary has classes compiled in.
    cmd.current_dir(common::workspace_root()).arg("gltf").args(args);
    common::run(&mut cmd)
}

/// The command line: `.gltf` with its `.bin`, no overwrite without `--force`, an animation alone
/// refused naming what it needs (and no file written), `--placeholder-skeleton`, and `gltf import`
/// back into the clip's file, which `hkgen verify` passes.
#[test]
fn the_command_line_exports_refuses_and_imports() {
    let Some(corpus) = common::corpus() else { return };
    let skeleton = corpus.join("HavokLib/2010_2__allosaur[4101].hkx");
    let clip = corpus.join("HavokLib/2010_2__allosaur_run[4101].hkx");
    let dir = scratch("cli");
    let out = dir.join("allosaur.gltf");
    let s = |p: &Path| p.as_os_str().to_owned();
    let schemas = std::ffi::OsString::from("--schemas=schemas");
    let o = hkgen(&["export".as_ref(), &schemas, &s(&out), &s(&skeleton), &s(&clip)]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read(&out).unwrap();
    let g: serde_json::Value = serde_json::from_slice(&text).unwrap();
    assert_eq!(g["buffers"][0]["uri"], "allosaur.bin");
    assert_eq!(g["buffers"][0]["byteLength"].as_u64().unwrap() as usize, std::fs::metadata(dir.join("allosaur.bin")).unwrap().len() as usize);
    assert_eq!((g["skins"].as_array().unwrap().len(), g["animations"].as_array().unwrap().len()), (1, 1));
    // Again, without --force: refused, the file unchanged.
    let o = hkgen(&["export".as_ref(), &schemas, &s(&out), &s(&skeleton), &s(&clip)]);
    assert!(!o.status.success());
    assert_eq!(std::fs::read(&out).unwrap(), text);
    // The clip alone: refused, saying what it needs; nothing written.
    let alone = dir.join("alone.glb");
    let o = hkgen(&["export".as_ref(), &schemas, &s(&alone), &s(&clip)]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("give its skeleton file too") && err.contains("93 tracks"), "{err}");
    assert!(!alone.exists());
    let o = hkgen(&["export".as_ref(), &schemas, "--placeholder-skeleton".as_ref(), &s(&alone), &s(&clip)]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (g, _) = glb_parts(&std::fs::read(&alone).unwrap());
    assert_eq!(g["skins"][0]["joints"].as_array().unwrap().len(), 93);
    assert_eq!(g["nodes"][1]["extras"]["placeholder"], true);
    // Import both back into the clip's file.
    for (from, name) in [(&out, "from_gltf.hkx"), (&alone, "from_placeholder.hkx")] {
        let back = dir.join(name);
        let o = hkgen(&["import".as_ref(), &schemas, "--into".as_ref(), &s(&clip), &s(from), &s(&back)]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_hkgen"));
        cmd.current_dir(common::workspace_root()).arg("verify").arg("--schemas=schemas").arg(&back);
        let o = common::run(&mut cmd);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
}

/// Files that are not in the corpus: a BotW ragdoll written under the Switch's layout rules (by
/// `hkgen convert`) exports to the same glTF as the Wii U file it was made from; and an edited
/// glTF animation (a bone moved on every key) imports into a spline file whose decoded frames
/// then follow the edit within the encoder's tolerance, the other bones unchanged.
#[test]
fn files_not_in_the_corpus_export_and_edits_import() {
    let Some(corpus) = common::corpus() else { return };
    let schemas = schemas();
    let dir = scratch("not-in-corpus");
    // 1. Another platform's layout.
    let rel = "NiceneNerd__UKMM/uk-mod/test/wiiu/content/Actor/Pack/Enemy_Lizalfos_Dark.sbactorpack/Ragdoll/Enemy_Lizalfos/Enemy_Lizalfos.hkrg";
    let Some(wiiu) = common::corpus_file(&corpus, rel) else { return };
    let switch = dir.join("Enemy_Lizalfos.switch.hkrg");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hkgen"));
    cmd.current_dir(common::workspace_root()).args(["convert", "--schemas=schemas", "--layout", "8,1,1,1"]).arg(corpus.join(rel)).arg(&switch);
    let o = common::run(&mut cmd);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let switch_bytes = std::fs::read(&switch).unwrap();
    assert_ne!(switch_bytes, wiiu);
    let options = OpenOptions { classes: Some(schemas), ..OpenOptions::default() };
    let glb = |bytes: &[u8]| {
        let doc = open(bytes, &options).unwrap();
        gltf::export_inputs(&[Input { name: "Enemy_Lizalfos.hkrg", doc: &doc }], &ExportOptions::default()).unwrap().to_glb().unwrap()
    };
    let (a, b) = (glb(&wiiu), glb(&switch_bytes));
    let (ga, _) = glb_parts(&a);
    assert_eq!(ga["skins"].as_array().unwrap().iter().map(|s| s["joints"].as_array().unwrap().len()).sum::<usize>(), 57);
    assert_eq!(ga["meshes"].as_array().unwrap().len(), 22);
    assert!(a == b, "the Switch layout's export differs from the Wii U file's");

    // 2. An edited animation back into a spline file.
    let all = files(&corpus);
    let (f, s) = all
        .iter()
        .filter(|f| !f.anims.is_empty() && f.anims.iter().all(|a| a.codec == Codec::Spline))
        .find_map(|f| skeleton_file(&all, f).map(|s| (f, s)))
        .expect("a spline animation file whose skeleton the corpus holds");
    let inputs = [Input { name: &s.relpath, doc: &s.doc }, Input { name: &f.relpath, doc: &f.doc }];
    let mut g = read(&gltf::export_inputs(&inputs, &ExportOptions::default()).unwrap().to_glb().unwrap());
    // The same from the document: `doc.to_gltf(others, options)`, inputs named input0, input1.
    let (h, _) = glb_parts(&f.doc.to_gltf(&[&s.doc], &ExportOptions::default()).unwrap());
    assert_eq!((h["animations"].as_array().unwrap().len(), h["skins"].as_array().unwrap().len()), (g.animations.len(), g.skins.len()));
    assert_eq!(h["animations"][0]["extras"]["source"], "input0");
    let a = &f.anims[0];
    let ex: serde_json::Value = serde_json::from_str(&g.animations[0].extras).unwrap();
    let skin = g.skins.iter().find(|(n, _)| n == ex["skeleton"].as_str().unwrap()).unwrap().1.clone();
    let bones = a.track_to_bone();
    // The first track's bone: moved by (0.05, -0.02, 0.1) on every key.
    let t0 = (0..a.track_count).find(|&t| bones[t].is_some()).unwrap();
    let node = skin[bones[t0].unwrap()];
    let shift = [0.05f32, -0.02, 0.1];
    let c = g.animations[0].channels.iter_mut().find(|c| c.node == node && c.path == 0).unwrap();
    for v in &mut c.values {
        for k in 0..3 {
            v[k] += shift[k];
        }
    }
    let mut doc = open(&f.bytes, &f.options).unwrap();
    // A key an hour later would resample to 108,000 frames of 230 tracks: refused, located, the file unchanged.
    let mut long = g.clone();
    let c = long.animations[0].channels.iter_mut().find(|c| c.node == node && c.path == 0).unwrap();
    c.times.push(3_600.0);
    c.values.push(c.values[c.values.len() - 1]);
    let e = import::import_animations(&mut doc, &f.relpath, &long, &import::ImportOptions::default(), &f.options).unwrap_err().to_string();
    assert!(e.contains("lasts 3600 s") && e.contains("more than 4194304 values"), "{e}");
    assert_eq!(doc.write().unwrap(), f.bytes);
    import::import_animations(&mut doc, &f.relpath, &g, &import::ImportOptions::default(), &f.options).unwrap();
    let back = open(&doc.write().unwrap(), &f.options).unwrap();
    let (x, y) = (a.frames().unwrap(), anim::animations(&back).unwrap()[0].frames().unwrap());
    assert_eq!((x.frame_count, x.track_count), (y.frame_count, y.track_count));
    let tol = 0.01 * 1.05 + 2e-4;
    let mut moved = 0;
    for fi in 0..x.frame_count {
        for t in 0..x.track_count {
            let (p, q) = (x.transform(fi, t).unwrap(), y.transform(fi, t).unwrap());
            let d = if t == t0 { shift } else { [0.0; 3] };
            for k in 0..3 {
                assert!((p[k] + d[k] - q[k]).abs() <= tol, "{}: frame {fi} track {t} component {k}: {} + {} vs {}", f.relpath, p[k], d[k], q[k]);
            }
            moved += usize::from(t == t0);
        }
    }
    eprintln!("{}: track {t0} moved on {moved} frames, {} tracks in all", f.relpath, x.track_count);
}

/// Reassembles a GLB from its JSON and binary chunk.
fn glb_from(json: &serde_json::Value, bin: &[u8]) -> Vec<u8> {
    let mut text = serde_json::to_vec(json).unwrap();
    while text.len() % 4 != 0 {
        text.push(b' ');
    }
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&((12 + 8 + text.len() + 8 + bin.len()) as u32).to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(bin);
    out
}

/// A glTF that lies (an accessor counting past its buffer, a buffer longer than the binary
/// chunk, key times that go back, a node index out of range) is refused with an error by the
/// import's reader, never a panic or a huge allocation.
#[test]
fn a_lying_gltf_is_refused_by_the_import() {
    let Some(corpus) = common::corpus() else { return };
    let Some(s) = common::corpus_file(&corpus, "HavokLib/2010_2__allosaur[4101].hkx") else { return };
    let Some(c) = common::corpus_file(&corpus, "HavokLib/2010_2__allosaur_run[4101].hkx") else { return };
    let options = OpenOptions { classes: Some(schemas()), ..OpenOptions::default() };
    let (s, c) = (open(&s, &options).unwrap(), open(&c, &options).unwrap());
    let glb = c.to_gltf(&[&s], &ExportOptions::default()).unwrap();
    assert!(import::GltfAnimations::read(&glb, None).is_ok());
    let (g, bin) = glb_parts(&glb);
    let sampler_output = g["animations"][0]["samplers"][0]["output"].as_u64().unwrap() as usize;
    let sampler_input = g["animations"][0]["samplers"][0]["input"].as_u64().unwrap() as usize;
    let mut cases: Vec<(&str, serde_json::Value, Vec<u8>)> = Vec::new();
    let mut x = g.clone();
    x["accessors"][sampler_output]["count"] = serde_json::json!(1u64 << 40);
    cases.push(("accessor count past its buffer", x, bin.to_vec()));
    let mut x = g.clone();
    x["buffers"][0]["byteLength"] = serde_json::json!(bin.len() * 4);
    cases.push(("buffer longer than the chunk", x, bin.to_vec()));
    let mut x = g.clone();
    x["animations"][0]["channels"][0]["target"]["node"] = serde_json::json!(1_000_000);
    cases.push(("node out of range", x, bin.to_vec()));
    // Key times going back: the input accessor's bytes reversed in place.
    let acc = &g["accessors"][sampler_input];
    let view = &g["bufferViews"][acc["bufferView"].as_u64().unwrap() as usize];
    let start = view["byteOffset"].as_u64().unwrap_or(0) as usize;
    let n = acc["count"].as_u64().unwrap() as usize;
    let mut b = bin.to_vec();
    let mut times: Vec<[u8; 4]> = b[start..start + 4 * n].chunks_exact(4).map(|c| c.try_into().unwrap()).collect();
    times.reverse();
    b[start..start + 4 * n].copy_from_slice(&times.concat());
    cases.push(("key times going back", g.clone(), b));
    for (what, json, bin) in cases {
        let start = std::time::Instant::now();
        let r = std::panic::catch_unwind(|| import::GltfAnimations::read(&glb_from(&json, &bin), None));
        let r = r.unwrap_or_else(|_| panic!("{what}: the reader panicked"));
        let e = r.err().unwrap_or_else(|| panic!("{what}: read without an error"));
        eprintln!("{what}: {e}");
        assert!(start.elapsed() < std::time::Duration::from_secs(2), "{what}: {:?}", start.elapsed());
    }
}
