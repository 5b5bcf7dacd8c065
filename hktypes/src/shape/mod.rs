//! Physics and cloth shapes as triangle meshes: collision shapes (compressed and MOPP meshes,
//! convex polytopes, capsules, spheres, boxes, compound and list shapes), ragdoll rigid bodies
//! and their constraints, and cloth simulation meshes, each placed in its body's frame, for
//! export (glTF) and counting.
//!
//! The frames are Havok's own axes and units; a form that needs other axes (glTF is Y-up)
//! converts them itself.
//!
//! # What is read
//!
//! Every member is read by its Havok name through [`Document::members`], so one code path
//! serves every SDK and both formats (and FromSoftware's subclasses, read as their Havok
//! base: `fsnpCustomParamCompressedMeshShape` as `hknpCompressedMeshShape`,
//! `CustomParamStorageExtendedMeshShape` as `hkpStorageExtendedMeshShape`).
//!
//! - Bodies: each `hkpRigidBody` (its `collidable.shape`, its frame from
//!   `motion.motionState.transform`, `mass` from `motion.inertiaAndMassInv`'s w, `friction` and
//!   `restitution` from `material`); each body of an `hknpPhysicsSystemData` or
//!   `hknpRagdollData` (`bodyCinfos`: `shape`, `position`, `orientation`, `mass` or the
//!   inverse mass of its `motionCinfos` entry, and its `materials` entry's frictions).
//!   A body of an `hkaRagdollInstance` or an `hknpRagdollData` is a [`Role::RagdollBody`] and
//!   follows the bone the ragdoll's bone-to-body map names.
//! - Constraints: each `hkpConstraintInstance` between two placed bodies and each
//!   `constraintCinfos` entry of an hknp system, with the pivots of its data's atoms (the
//!   translation of `transformA`/`transformB`, or `pivotA`/`pivotB`,
//!   `translationA`/`translationB`), in each body's frame.
//! - Cloth: each `hclSimClothData` (the particle positions of its first `simClothPoses` entry,
//!   `triangleIndices` three to a triangle) and each `hclCollidable` (its `shape` placed by its
//!   `transform`).
//! - Shapes that no body or collidable holds (a file of shapes alone) are placed as they are.
//!
//! The shape classes: compressed meshes (`hknpCompressedMeshShape`,
//! `hkpBvCompressedMeshShape`, see [`meshtree`] for the layout and where it was learnt), MOPP
//! trees over extended and storage mesh shapes (their triangle subparts from `meshstorage`,
//! and shape subparts; the MOPP code itself is never read, so its bytes cannot make this
//! loop), convex polytopes (each face fanned), vertex shapes (`hkpConvexVerticesShape`,
//! `hknpConvexShape`: the convex hull of their vertices, closed), capsules, spheres, cylinders and
//! boxes (tessellated: [`geom`]'s 16 segments and 6 rings per hemisphere), compound, list and
//! transform shapes (children placed by their transforms), `hknpExternMeshShape` (its
//! `hkGeometry`), and the cloth collidables' capsules, tapered capsules, spheres and planes (a
//! plane, being infinite, as a square of half side [`shapes::PLANE_PATCH`] about its point
//! nearest the origin). A convex radius is not added to the shape; it is in `extras`. A shape
//! of another class is an error naming it.
//!
//! # Hostile data
//!
//! A count, index or range that does not fit the array it names, a transform that is not
//! finite, a shape that contains itself, nesting deeper than [`shapes::MAX_NESTING`] or meshes
//! that expand past [`shapes::MAX_ELEMENTS`] triangles and vertices are errors naming the
//! object, its class and the member path (`in object 4 (hknpCompressedMeshShapeData)
//! .meshTree.sections[2].primitives: primitive 300 out of range (200 available)`). Each shape
//! is made once however often it is placed.

mod geom;
pub mod meshtree;
mod read;
pub mod shapes;

use crate::dump::Val;
use crate::error::Result;
use crate::members::ValExt;
use crate::{Document, Handle};
use geom::Frame;
use read::{At, Obj, Objects};
use shapes::Shapes;
use std::collections::{HashMap, HashSet};

/// Triangles over positions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mesh {
    /// Vertex positions (x, y, z).
    pub positions: Vec<[f32; 3]>,
    /// Triangles as three indices into `positions`.
    pub triangles: Vec<[u32; 3]>,
}

/// What a placed mesh is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The shape of a collision body or of a physics system's rigid body.
    Collision,
    /// The shape of a ragdoll's rigid body.
    RagdollBody,
    /// A cloth simulation mesh (`hclClothData`'s sim cloth).
    ClothSim,
    /// A cloth collidable.
    ClothCollidable,
}

/// A mesh placed in a frame, with what it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Placed {
    /// The body's (or shape's) name where the file gives one, else the class and handle.
    pub name: String,
    /// What the mesh is.
    pub role: Role,
    /// The object the mesh was made from (the body, or the shape when there is no body).
    pub object: Handle,
    /// The class of the shape the mesh was made from (`hknpCompressedMeshShape`, ...).
    pub shape_class: String,
    /// The frame's translation.
    pub translation: [f32; 3],
    /// The frame's rotation as a quaternion (x, y, z, w).
    pub rotation: [f32; 4],
    /// The bone the body follows, where a ragdoll or cloth maps it to one.
    pub bone: Option<String>,
    /// The triangles, in the frame.
    pub mesh: Mesh,
    /// Numbers worth keeping beside the mesh (`mass`, `friction`, ...), by name.
    pub extras: Vec<(String, f64)>,
}

/// A constraint between two placed bodies (a ragdoll's joints).
#[derive(Clone, Debug, PartialEq)]
pub struct Constraint {
    /// The constraint's name where the file gives one.
    pub name: String,
    /// The constraint data's class (`hkpRagdollConstraintData`, ...).
    pub class: String,
    /// Index of the first body in [`Scene::meshes`].
    pub body_a: usize,
    /// Index of the second body in [`Scene::meshes`].
    pub body_b: usize,
    /// The pivot in body A's frame.
    pub pivot_a: [f32; 3],
    /// The pivot in body B's frame.
    pub pivot_b: [f32; 3],
}

/// Every shape of a document as placed meshes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scene {
    /// The meshes.
    pub meshes: Vec<Placed>,
    /// The constraints between them.
    pub constraints: Vec<Constraint>,
}

/// Every collision shape, ragdoll body and cloth mesh of `doc` as placed triangle meshes (see
/// the [module](self) documentation for what is read).
pub fn scene(doc: &Document) -> Result<Scene> {
    let objs = Objects::new(doc);
    let mut b = Builder { objs: &objs, shapes: Shapes::new(&objs), scene: Scene::default(), placed_shapes: HashSet::new() };
    let handles = doc.handles();
    let classes: Vec<(Handle, String)> = handles.iter().filter_map(|&h| doc.class_name(h).map(|c| (h, c))).collect();
    let of = |name: &'static str| classes.iter().filter(move |(_, c)| c == name).map(|(h, _)| *h).collect::<Vec<_>>();

    // Ragdoll instances: which hkp bodies are ragdoll bodies, and their bones.
    let mut ragdoll: HashMap<Handle, Option<String>> = HashMap::new();
    for h in of("hkaRagdollInstance") {
        let o = objs.get(h)?;
        let bodies = ptr_list(&o, "rigidBodies")?;
        let bones = bone_names(&objs, &o, "skeleton")?;
        let map = int_list(&o, "boneToRigidBodyMap")?;
        for body in bodies.iter().flatten() {
            ragdoll.entry(*body).or_insert(None);
        }
        for (bone, &j) in map.iter().enumerate() {
            if let (Some(Some(body)), Some(name)) = (usize::try_from(j).ok().and_then(|j| bodies.get(j)), bones.get(bone)) {
                let slot = ragdoll.entry(*body).or_insert(None);
                if slot.is_none() {
                    *slot = Some(name.clone());
                }
            }
        }
    }

    // hkp rigid bodies.
    let mut hkp_index: HashMap<Handle, usize> = HashMap::new();
    for (h, class) in &classes {
        if class == "hkpRigidBody" {
            let (role, bone) = match ragdoll.get(h) {
                Some(bone) => (Role::RagdollBody, bone.clone()),
                None => (Role::Collision, None),
            };
            let i = b.hkp_body(*h, role, bone)?;
            hkp_index.insert(*h, i);
        }
    }
    for h in of("hkpConstraintInstance") {
        b.hkp_constraint(h, &hkp_index)?;
    }

    // hknp systems.
    for (h, class) in &classes {
        if class == "hknpPhysicsSystemData" || class == "hknpRagdollData" {
            b.hknp_system(*h, class == "hknpRagdollData")?;
        }
    }

    // Cloth.
    let mut cloth_names: HashMap<Handle, String> = HashMap::new();
    for h in of("hclClothData") {
        let o = objs.get(h)?;
        let name = o.name().unwrap_or_default();
        for sim in ptr_list(&o, "simClothDatas")?.into_iter().flatten() {
            cloth_names.entry(sim).or_insert_with(|| name.clone());
        }
    }
    for h in of("hclSimClothData") {
        b.cloth_sim(h, cloth_names.get(&h).map(String::as_str))?;
    }
    for h in of("hclCollidable") {
        b.cloth_collidable(h)?;
    }

    // Shapes no body holds: those that no other shape holds either.
    let shape_objects: Vec<Handle> = classes.iter().filter(|(_, c)| shapes::is_shape_class(c)).map(|(h, _)| *h).collect();
    let mut children: HashSet<Handle> = HashSet::new();
    for &h in &shape_objects {
        children.extend(doc.pointers_of(h));
    }
    for &h in &shape_objects {
        if b.placed_shapes.contains(&h) || children.contains(&h) {
            continue;
        }
        b.standalone(h)?;
    }
    Ok(b.scene)
}

/// Builds the scene.
struct Builder<'o, 'd> {
    objs: &'o Objects<'d>,
    shapes: Shapes<'o, 'd>,
    scene: Scene,
    /// The shape objects placed so far (held by a body or collidable).
    placed_shapes: HashSet<Handle>,
}

/// The name an object is given when the file gives it none.
fn fallback_name(o: &Obj) -> String {
    format!("{} {}", o.class, o.h.0)
}

fn ptr_list(o: &Obj, name: &str) -> Result<Vec<Option<Handle>>> {
    let root = Val::Record(o.ms.clone());
    let (v, p) = o.at(&root).field("", name)?;
    v.list(&p)?.iter().enumerate().map(|(i, x)| v.with(x).ptr(&format!("{p}[{i}]"))).collect()
}

fn int_list(o: &Obj, name: &str) -> Result<Vec<i64>> {
    let root = Val::Record(o.ms.clone());
    let (v, p) = o.at(&root).field("", name)?;
    v.list(&p)?.iter().enumerate().map(|(i, x)| v.with(x).i64(&format!("{p}[{i}]"))).collect()
}

/// The bone names of the skeleton member `name` of `o` points at (none for a null pointer).
fn bone_names(objs: &Objects<'_>, o: &Obj, name: &str) -> Result<Vec<String>> {
    let Some(sk) = o.ptr(name)? else { return Ok(Vec::new()) };
    let sk = objs.get(sk)?;
    let root = Val::Record(sk.ms.clone());
    let (v, p) = sk.at(&root).field("", "bones")?;
    Ok(v.list(&p)?.iter().map(|b| b.field("name").and_then(|n| n.as_str()).unwrap_or_default().to_owned()).collect())
}

/// The pivots of constraint data `h` (following a wrapper's `constraintData`).
fn pivots(objs: &Objects<'_>, h: Handle, depth: usize) -> Result<(String, [f32; 3], [f32; 3])> {
    let o = objs.get(h)?;
    let root = Val::Record(o.ms.clone());
    let at = o.at(&root);
    if let Some(found) = find_pivots(at, "", 0)? {
        return Ok((o.class.clone(), found.0, found.1));
    }
    if depth < 4 {
        if let Some(inner) = o.get("constraintData").map(|v| at.with(v).ptr("constraintData")).transpose()?.flatten() {
            return pivots(objs, inner, depth + 1);
        }
    }
    Err(o.err("atoms", "no pivots (transformA/B, pivotA/B or translationA/B) in the constraint data"))
}

/// The first pair of pivots in `at`'s records, depth first.
fn find_pivots(at: At<'_>, path: &str, depth: usize) -> Result<Option<([f32; 3], [f32; 3])>> {
    let Val::Record(m) = at.v else { return Ok(None) };
    for (a, b, transform) in [("transformA", "transformB", true), ("pivotA", "pivotB", false), ("translationA", "translationB", false)] {
        if let (Some(x), Some(y)) = (at.opt(a), at.opt(b)) {
            let read = |v: At<'_>, n: &str| -> Result<[f32; 3]> {
                let p = read::join(path, n);
                if transform {
                    let r = v.reals(&p, 16, false)?;
                    Ok([r[12], r[13], r[14]])
                } else {
                    v.v3(&p)
                }
            };
            return Ok(Some((read(x, a)?, read(y, b)?)));
        }
    }
    if depth >= 8 {
        return Ok(None);
    }
    for (n, v) in &m.0 {
        if let Some(found) = find_pivots(at.with(v), &read::join(path, n), depth + 1)? {
            return Ok(Some(found));
        }
    }
    Ok(None)
}

impl Builder<'_, '_> {
    /// Places the mesh of shape `shape` (none: an empty mesh) for body `o`; returns its index.
    #[allow(clippy::too_many_arguments)]
    fn place(&mut self, o: &Obj, role: Role, shape: Option<Handle>, frame: Frame, bone: Option<String>, mut extras: Vec<(String, f64)>) -> Result<usize> {
        if !frame.is_finite() {
            return Err(o.err("", "the body's frame is not finite"));
        }
        let (mesh, shape_class) = match shape {
            Some(s) => {
                let m = self.shapes.mesh(s)?;
                self.placed_shapes.insert(s);
                extras.extend(m.extras.iter().cloned());
                (m.mesh.clone(), self.shapes.class_of(s))
            }
            None => (Mesh::default(), String::new()),
        };
        self.shapes.spend(o, mesh.positions.len() + mesh.triangles.len())?;
        self.scene.meshes.push(Placed {
            name: o.name().unwrap_or_else(|| fallback_name(o)),
            role,
            object: o.h,
            shape_class,
            translation: frame.t,
            rotation: frame.quat(),
            bone,
            mesh,
            extras,
        });
        Ok(self.scene.meshes.len() - 1)
    }

    fn hkp_body(&mut self, h: Handle, role: Role, bone: Option<String>) -> Result<usize> {
        let o = self.objs.get(h)?;
        let root = Val::Record(o.ms.clone());
        let at = o.at(&root);
        let (c, cp) = at.field("", "collidable")?;
        let (s, sp) = c.field(&cp, "shape")?;
        let shape = s.ptr(&sp)?;
        let (m, mp) = at.field("", "motion")?;
        let (ms, msp) = m.field(&mp, "motionState")?;
        let (t, tp) = ms.field(&msp, "transform")?;
        let frame = Frame::from_transform(&t.reals(&tp, 16, false)?);
        let mut extras = Vec::new();
        if let Some(inv) = m.opt("inertiaAndMassInv") {
            let w = inv.reals(&read::join(&mp, "inertiaAndMassInv"), 4, false)?[3];
            extras.push(("mass".into(), if w > 0.0 { 1.0 / f64::from(w) } else { 0.0 }));
        }
        if let Some(mat) = at.opt("material") {
            for n in ["friction", "restitution"] {
                if let Some(x) = mat.opt(n) {
                    extras.push((n.into(), f64::from(x.f32(&read::join("material", n))?)));
                }
            }
        }
        self.place(&o, role, shape, frame, bone, extras)
    }

    fn hkp_constraint(&mut self, h: Handle, bodies: &HashMap<Handle, usize>) -> Result<()> {
        let o = self.objs.get(h)?;
        let ents = ptr_list(&o, "entities")?;
        let (Some(Some(a)), Some(Some(b))) = (ents.first(), ents.get(1)) else { return Ok(()) };
        let (Some(&ia), Some(&ib)) = (bodies.get(a), bodies.get(b)) else { return Ok(()) };
        let Some(data) = o.ptr("data")? else { return Ok(()) };
        let (class, pa, pb) = pivots(self.objs, data, 0)?;
        self.scene.constraints.push(Constraint { name: o.name().unwrap_or_default(), class, body_a: ia, body_b: ib, pivot_a: pa, pivot_b: pb });
        Ok(())
    }

    fn hknp_system(&mut self, h: Handle, is_ragdoll: bool) -> Result<()> {
        let o = self.objs.get(h)?;
        let root = Val::Record(o.ms.clone());
        let at = o.at(&root);
        let bones = if is_ragdoll { bone_names(self.objs, &o, "skeleton")? } else { Vec::new() };
        let mut bone_of: HashMap<usize, String> = HashMap::new();
        if is_ragdoll {
            for (bone, j) in int_list(&o, "boneToBodyMap")?.into_iter().enumerate() {
                if let (Ok(j), Some(name)) = (usize::try_from(j), bones.get(bone)) {
                    bone_of.entry(j).or_insert_with(|| name.clone());
                }
            }
        }
        let materials = at.opt("materials").map(|m| m.list("materials")).transpose()?.unwrap_or(&[]);
        let motions = at.opt("motionCinfos").map(|m| m.list("motionCinfos")).transpose()?.unwrap_or(&[]);
        let (bv, bp) = at.field("", "bodyCinfos")?;
        let mut index = Vec::new();
        for (i, body) in bv.list(&bp)?.iter().enumerate() {
            let ip = format!("{bp}[{i}]");
            let body = bv.with(body);
            let (s, sp) = body.field(&ip, "shape")?;
            let shape = s.ptr(&sp)?;
            let (p, pp) = body.field(&ip, "position")?;
            let (q, qp) = body.field(&ip, "orientation")?;
            let frame = Frame::from_quat(q.v4(&qp)?, p.v3(&pp)?);
            let mut extras = Vec::new();
            if let Some(m) = body.opt("mass") {
                extras.push(("mass".into(), f64::from(m.f32(&read::join(&ip, "mass"))?)));
            } else if let Some(id) = body.opt("motionId") {
                let id = id.u64(&read::join(&ip, "motionId"))?;
                if let Some(mc) = motions.get(id as usize) {
                    let inv = bv.with(mc).field(&format!("motionCinfos[{id}]"), "inverseMass").and_then(|(v, p)| v.f32(&p))?;
                    extras.push(("mass".into(), if inv > 0.0 { 1.0 / f64::from(inv) } else { 0.0 }));
                } else {
                    extras.push(("mass".into(), 0.0));
                }
            }
            if let Some(id) = body.opt("materialId") {
                let id = id.u64(&read::join(&ip, "materialId"))?;
                if let Some(mat) = materials.get(id as usize) {
                    let mat = bv.with(mat);
                    for n in ["dynamicFriction", "staticFriction", "restitution"] {
                        if let Some(x) = mat.opt(n) {
                            extras.push((n.into(), f64::from(x.f32(&format!("materials[{id}].{n}"))?)));
                        }
                    }
                }
            }
            let name = body.opt("name").and_then(|n| n.v.as_str()).filter(|n| !n.is_empty()).map(str::to_owned);
            let role = if is_ragdoll { Role::RagdollBody } else { Role::Collision };
            let k = self.place(&o, role, shape, frame, bone_of.get(&i).cloned(), extras)?;
            self.scene.meshes[k].name = name.unwrap_or_else(|| format!("{} {} body {i}", o.class, o.h.0));
            index.push(k);
        }
        if let Some(cv) = at.opt("constraintCinfos") {
            for (i, c) in cv.list("constraintCinfos")?.iter().enumerate() {
                let ip = format!("constraintCinfos[{i}]");
                let c = cv.with(c);
                let body = |n: &str| -> Result<usize> {
                    let p = read::join(&ip, n);
                    let (v, p) = c.field(&ip, n).map(|(v, _)| (v, p))?;
                    // An hknpBodyId keeps the index in its low 24 bits.
                    let raw = v.u64(&p)? & 0x00ff_ffff;
                    index.get(raw as usize).copied().ok_or_else(|| read::out_of_range(o.h, &o.class, &p, "body", raw, index.len() as u64))
                };
                let (a, bb) = (body("bodyA")?, body("bodyB")?);
                let (d, dp) = c.field(&ip, "constraintData")?;
                let Some(data) = d.ptr(&dp)? else { continue };
                let (class, pa, pb) = pivots(self.objs, data, 0)?;
                let name = c.opt("name").and_then(|n| n.v.as_str()).unwrap_or_default().to_owned();
                self.scene.constraints.push(Constraint { name, class, body_a: a, body_b: bb, pivot_a: pa, pivot_b: pb });
            }
        }
        Ok(())
    }

    fn cloth_sim(&mut self, h: Handle, cloth: Option<&str>) -> Result<()> {
        let o = self.objs.get(h)?;
        let root = Val::Record(o.ms.clone());
        let at = o.at(&root);
        let poses = ptr_list(&o, "simClothPoses")?;
        let positions = match poses.first() {
            Some(Some(p)) => {
                let pose = self.objs.get(*p)?;
                let proot = Val::Record(pose.ms.clone());
                let (v, vp) = pose.at(&proot).field("", "positions")?;
                v.points(&vp)?
            }
            _ => Vec::new(),
        };
        let (tv, tp) = at.field("", "triangleIndices")?;
        let idx = tv.ints(&tp)?;
        if idx.len() % 3 != 0 {
            return Err(o.err(&tp, format!("{} indices: not whole triangles", idx.len())));
        }
        let mut triangles = Vec::with_capacity(idx.len() / 3);
        for (t, tri) in idx.chunks(3).enumerate() {
            let mut out = [0u32; 3];
            for k in 0..3 {
                if tri[k] >= positions.len() as u64 {
                    return Err(read::out_of_range(o.h, &o.class, &format!("{tp}[{}]", 3 * t + k), "particle", tri[k], positions.len() as u64));
                }
                out[k] = tri[k] as u32;
            }
            triangles.push(out);
        }
        let mesh = Mesh { positions, triangles };
        self.shapes.spend(&o, mesh.positions.len() + mesh.triangles.len())?;
        let mut extras = Vec::new();
        if let Some(m) = at.opt("totalMass") {
            extras.push(("mass".into(), f64::from(m.f32("totalMass")?)));
        }
        extras.push(("particles".into(), mesh.positions.len() as f64));
        let own = o.name();
        let name = match (cloth, own) {
            (Some(c), Some(s)) if !c.is_empty() => format!("{c}/{s}"),
            (Some(c), None) if !c.is_empty() => c.to_owned(),
            (_, Some(s)) => s,
            _ => fallback_name(&o),
        };
        self.scene.meshes.push(Placed {
            name,
            role: Role::ClothSim,
            object: h,
            shape_class: o.class.clone(),
            translation: [0.0; 3],
            rotation: [0.0, 0.0, 0.0, 1.0],
            bone: None,
            mesh,
            extras,
        });
        Ok(())
    }

    fn cloth_collidable(&mut self, h: Handle) -> Result<()> {
        let o = self.objs.get(h)?;
        let root = Val::Record(o.ms.clone());
        let (t, tp) = o.at(&root).field("", "transform")?;
        let frame = Frame::from_transform(&t.reals(&tp, 16, false)?);
        let shape = o.ptr("shape")?;
        self.place(&o, Role::ClothCollidable, shape, frame, None, Vec::new())?;
        Ok(())
    }

    fn standalone(&mut self, h: Handle) -> Result<()> {
        let o = self.objs.get(h)?;
        let role = if o.class.starts_with("hcl") { Role::ClothCollidable } else { Role::Collision };
        self.place(&o, role, Some(h), Frame::IDENTITY, None, Vec::new())?;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
