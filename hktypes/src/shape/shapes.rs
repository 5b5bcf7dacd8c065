//! One shape object to triangles in its own frame, whatever its class: the compressed meshes
//! ([`super::meshtree`]), convex polytopes and vertex sets (hulls), primitives (tessellated),
//! and the containers (compound, list, transform, MOPP and extended mesh shapes), whose
//! children are placed by their transforms and joined into one mesh.

use super::geom::{self, Frame, V3};
use super::meshtree;
use super::read::{join, out_of_range, At, Obj, Objects};
use super::Mesh;
use crate::dump::Val;
use crate::error::{ErrorKind, Result};
use crate::Handle;
use std::collections::HashMap;
use std::rc::Rc;

/// How deep containers may nest (a compound of compounds of ...).
pub const MAX_NESTING: usize = 32;

/// The most triangles and vertices (together) the shapes of one document may expand to: a
/// compound that places one mesh many times makes more than its file holds, and this bound
/// keeps the memory such a file can ask for finite (a made compound of 2^24 spheres stops at
/// 190 MB peak, `tests/shape.rs`).
pub const MAX_ELEMENTS: usize = 1 << 24;

/// A shape's mesh and the numbers worth keeping beside it.
#[derive(Debug, Default)]
pub(crate) struct ShapeMesh {
    pub mesh: Mesh,
    pub extras: Vec<(String, f64)>,
}

/// The shape reader of one document: meshes made once per shape object.
pub(crate) struct Shapes<'o, 'd> {
    objs: &'o Objects<'d>,
    memo: HashMap<Handle, Rc<ShapeMesh>>,
    stack: Vec<Handle>,
    /// Triangles and vertices made so far (see [`MAX_ELEMENTS`]).
    pub spent: usize,
}

/// The class a FromSoftware subclass is read as (it adds members, the geometry is its base's).
fn base_class(class: &str) -> &str {
    match class {
        "fsnpCustomParamCompressedMeshShape" => "hknpCompressedMeshShape",
        "CustomParamStorageExtendedMeshShape" => "hkpStorageExtendedMeshShape",
        c => c,
    }
}

/// Whether `class` names a shape (the classes [`Shapes::mesh`] reads, and any other whose name
/// says it is one, which it refuses by name).
pub(crate) fn is_shape_class(class: &str) -> bool {
    let c = base_class(class);
    (c.starts_with("hkp") || c.starts_with("hknp") || c.starts_with("hcl") || c.starts_with("fsnp") || c.starts_with("Custom"))
        && c.ends_with("Shape")
}

impl<'o, 'd> Shapes<'o, 'd> {
    pub(crate) fn new(objs: &'o Objects<'d>) -> Self {
        Shapes { objs, memo: HashMap::new(), stack: Vec::new(), spent: 0 }
    }

    /// Counts `n` more triangles and vertices against [`MAX_ELEMENTS`].
    pub(crate) fn spend(&mut self, o: &Obj, n: usize) -> Result<()> {
        self.spent = self.spent.saturating_add(n);
        if self.spent > MAX_ELEMENTS {
            return Err(o.err("", format!("the shapes expand to more than {MAX_ELEMENTS} triangles and vertices")));
        }
        Ok(())
    }

    /// The mesh of shape object `h`, in the shape's frame.
    pub(crate) fn mesh(&mut self, h: Handle) -> Result<Rc<ShapeMesh>> {
        if let Some(m) = self.memo.get(&h) {
            return Ok(m.clone());
        }
        let o = self.objs.get(h)?;
        if self.stack.contains(&h) {
            return Err(super::read::located(h, &o.class, "", ErrorKind::Cycle("shape: it contains itself".into())));
        }
        if self.stack.len() >= MAX_NESTING {
            return Err(o.err("", format!("shapes nest more than {MAX_NESTING} deep")));
        }
        self.stack.push(h);
        let r = self.make(&o);
        self.stack.pop();
        let m = Rc::new(r?);
        self.spend(&o, m.mesh.positions.len() + m.mesh.triangles.len())?;
        self.memo.insert(h, m.clone());
        Ok(m)
    }

    /// The class of the shape a pointer names, for the scene's `shape_class`.
    pub(crate) fn class_of(&self, h: Handle) -> String {
        self.objs.class(h).unwrap_or_default()
    }

    fn child(&mut self, o: &Obj, path: &str, h: Option<Handle>, frame: Frame, into: &mut Mesh) -> Result<()> {
        let Some(h) = h else { return Ok(()) };
        if !frame.is_finite() {
            return Err(o.err(path, "the child's transform is not finite"));
        }
        let m = self.mesh(h)?;
        self.spend(o, m.mesh.positions.len() + m.mesh.triangles.len())?;
        append(into, &m.mesh, &frame);
        Ok(())
    }

    fn make(&mut self, o: &Obj) -> Result<ShapeMesh> {
        let root = Val::Record(o.ms.clone());
        let at = o.at(&root);
        let mut out = ShapeMesh::default();
        if let Some(r) = o.get("convexRadius").or_else(|| o.get("radius")).and_then(crate::members::ValExt::as_f64) {
            out.extras.push(("convexRadius".into(), r));
        }
        let m = &mut out.mesh;
        match base_class(&o.class) {
            // Compressed meshes.
            "hknpCompressedMeshShape" => {
                let data = o.ptr("data")?.ok_or_else(|| o.err("data", "null: the mesh has no data"))?;
                let d = self.objs.get(data)?;
                let droot = Val::Record(d.ms.clone());
                let (tree, tp) = d.at(&droot).field("", "meshTree")?;
                let (mesh, facts) = meshtree::decode(tree, &tp, MAX_ELEMENTS.saturating_sub(self.spent))?;
                *m = mesh;
                push_facts(&mut out.extras, facts);
                if let Some(ext) = o.get("externShapes") {
                    let a = at.with(ext);
                    for (i, v) in a.list("externShapes")?.iter().enumerate() {
                        let p = format!("externShapes[{i}]");
                        let h = a.with(v).ptr(&p)?;
                        self.child(o, &p, h, Frame::IDENTITY, &mut out.mesh)?;
                    }
                }
            }
            "hkpBvCompressedMeshShape" => {
                let (tree, tp) = at.field("", "tree")?;
                let (mesh, facts) = meshtree::decode(tree, &tp, MAX_ELEMENTS.saturating_sub(self.spent))?;
                *m = mesh;
                push_facts(&mut out.extras, facts);
            }
            // hknp convex shapes.
            "hknpCapsuleShape" => *m = geom::capsule(o.v3("a")?, o.v3("b")?, o.f32("convexRadius")?),
            "hknpSphereShape" => {
                let c = at.field("", "vertices")?;
                let c = c.0.points(&c.1)?.first().copied().unwrap_or([0.0; 3]);
                *m = geom::capsule(c, c, o.f32("convexRadius")?);
            }
            "hknpConvexPolytopeShape" | "hknpBoxShape" | "hknpTriangleShape" | "hknpCylinderShape" => *m = polytope(at)?,
            "hknpConvexShape" => {
                let (v, p) = at.field("", "vertices")?;
                *m = hull(o, &p, &v.points(&p)?)?;
            }
            "hknpScaledConvexShape" => {
                let frame = Frame { rot: Frame::IDENTITY.rot, t: o.v3("translation")?, scale: o.v3("scale")? };
                let core = o.ptr("coreShape")?;
                self.child(o, "coreShape", core, frame, &mut out.mesh)?;
            }
            "hknpCompoundShape" | "hknpStaticCompoundShape" | "hknpDynamicCompoundShape" => {
                let (v, p) = at.field("", "instances")?;
                for (i, inst) in v.list(&p)?.iter().enumerate() {
                    let ip = format!("{p}[{i}]");
                    let iv = v.with(inst);
                    if iv.opt("isEmpty").map(|e| e.u64(&join(&ip, "isEmpty"))).transpose()?.unwrap_or(0) != 0 {
                        continue;
                    }
                    let (s, sp) = iv.field(&ip, "shape")?;
                    let (t, tp) = iv.field(&ip, "transform")?;
                    let mut frame = Frame::from_transform(&t.reals(&tp, 16, false)?);
                    if let Some(sc) = iv.opt("scale") {
                        frame.scale = sc.v3(&join(&ip, "scale"))?;
                    }
                    let h = s.ptr(&sp)?;
                    self.child(o, &ip, h, frame, &mut out.mesh)?;
                }
            }
            "hknpExternMeshShape" => {
                let g = o.ptr("geometry")?.ok_or_else(|| o.err("geometry", "null: the mesh has no geometry"))?;
                let g = self.objs.get(g)?;
                let geometry = match g.get("geometry") {
                    Some(_) => {
                        let h = g.ptr("geometry")?.ok_or_else(|| g.err("geometry", "null: the mesh has no geometry"))?;
                        self.objs.get(h)?
                    }
                    None => g,
                };
                *m = hk_geometry(&geometry)?;
            }
            // hkp convex shapes.
            "hkpSphereShape" => *m = geom::capsule([0.0; 3], [0.0; 3], o.f32("radius")?),
            "hkpCapsuleShape" => *m = geom::capsule(o.v3("vertexA")?, o.v3("vertexB")?, o.f32("radius")?),
            "hkpCylinderShape" => *m = geom::cylinder(o.v3("vertexA")?, o.v3("vertexB")?, o.f32("cylRadius")?),
            "hkpBoxShape" => *m = geom::boxed(o.v3("halfExtents")?),
            "hkpTriangleShape" => {
                *m = Mesh { positions: vec![o.v3("vertexA")?, o.v3("vertexB")?, o.v3("vertexC")?], triangles: vec![[0, 1, 2]] }
            }
            "hkpConvexVerticesShape" => *m = convex_vertices(o, at)?,
            "hkpMultiSphereShape" => {
                let n = o.need("numSpheres").map(|v| at.with(v).u64("numSpheres"))??;
                let (v, p) = at.field("", "spheres")?;
                let r = v.reals(&p, 0, true)?;
                if n as usize > r.len() / 4 {
                    return Err(out_of_range(o.h, &o.class, "numSpheres", "sphere", n, (r.len() / 4) as u64));
                }
                for s in r.chunks(4).take(n as usize) {
                    let c = [s[0], s[1], s[2]];
                    append(m, &geom::capsule(c, c, s[3]), &Frame::IDENTITY);
                }
            }
            "hkpSimpleMeshShape" => {
                let (v, p) = at.field("", "vertices")?;
                let points = v.points(&p)?;
                let (t, tp) = at.field("", "triangles")?;
                let mut tris = Vec::new();
                for (i, tri) in t.list(&tp)?.iter().enumerate() {
                    let ip = format!("{tp}[{i}]");
                    let tv = t.with(tri);
                    let mut idx = [0u32; 3];
                    for (k, name) in ["a", "b", "c"].iter().enumerate() {
                        let (x, xp) = tv.field(&ip, name)?;
                        idx[k] = index(o, &xp, x.u64(&xp)?, points.len())?;
                    }
                    tris.push(idx);
                }
                *m = Mesh { positions: points, triangles: tris };
            }
            // Containers.
            "hkpConvexTranslateShape" => {
                let frame = Frame { t: o.v3("translation")?, ..Frame::IDENTITY };
                let h = single_child(at)?;
                self.child(o, "childShape", h, frame, &mut out.mesh)?;
            }
            "hkpConvexTransformShape" | "hkpTransformShape" => {
                let (t, tp) = at.field("", "transform")?;
                let r = t.reals(&tp, 12, true)?;
                let frame = Frame::from_reals(&r).ok_or_else(|| o.err(&tp, format!("{} reals: not a transform", r.len())))?;
                let h = single_child(at)?;
                self.child(o, "childShape", h, frame, &mut out.mesh)?;
            }
            "hkpMoppBvTreeShape" => {
                // The MOPP code is never read: the triangles come from the child shape, so the
                // code's bytes cannot make this loop.
                let h = single_child(at)?;
                self.child(o, "child", h, Frame::IDENTITY, &mut out.mesh)?;
            }
            "hkpListShape" => {
                let (v, p) = at.field("", "childInfo")?;
                for (i, c) in v.list(&p)?.iter().enumerate() {
                    let ip = format!("{p}[{i}]");
                    let (s, sp) = v.with(c).field(&ip, "shape")?;
                    let h = s.ptr(&sp)?;
                    self.child(o, &ip, h, Frame::IDENTITY, &mut out.mesh)?;
                }
            }
            "hkpConvexListShape" => {
                let (v, p) = at.field("", "childShapes")?;
                for (i, c) in v.list(&p)?.iter().enumerate() {
                    let ip = format!("{p}[{i}]");
                    let h = v.with(c).ptr(&ip)?;
                    self.child(o, &ip, h, Frame::IDENTITY, &mut out.mesh)?;
                }
            }
            "hkpStaticCompoundShape" => {
                let (v, p) = at.field("", "instances")?;
                for (i, inst) in v.list(&p)?.iter().enumerate() {
                    let ip = format!("{p}[{i}]");
                    let iv = v.with(inst);
                    let (t, tp) = iv.field(&ip, "transform")?;
                    let r = t.reals(&tp, 12, true)?;
                    let frame = Frame::from_reals(&r).ok_or_else(|| o.err(&tp, format!("{} reals: not a transform", r.len())))?;
                    let (s, sp) = iv.field(&ip, "shape")?;
                    let h = s.ptr(&sp)?;
                    self.child(o, &ip, h, frame, &mut out.mesh)?;
                }
            }
            "hkpStorageExtendedMeshShape" | "hkpExtendedMeshShape" => self.extended(o, at, &mut out)?,
            // Cloth collidable shapes.
            "hclCapsuleShape" => *m = geom::capsule(o.v3("start")?, o.v3("end")?, o.f32("radius")?),
            "hclTaperedCapsuleShape" => {
                *m = geom::tapered_capsule(o.v3("small")?, o.f32("smallRadius")?, o.v3("big")?, o.f32("bigRadius")?)
            }
            "hclSphereShape" => {
                let (s, sp) = at.field("", "sphere")?;
                let r = s.reals(&sp, 4, false)?;
                let c = [r[0], r[1], r[2]];
                *m = geom::capsule(c, c, r[3]);
                out.extras.push(("radius".into(), f64::from(r[3])));
            }
            "hclPlaneShape" => {
                let (p, pp) = at.field("", "planeEquation")?;
                let e = p.reals(&pp, 4, false)?;
                *m = plane_patch([e[0], e[1], e[2]], e[3]).ok_or_else(|| o.err(&pp, "the plane's normal is zero"))?;
                out.extras.push(("planePatchHalfSize".into(), f64::from(PLANE_PATCH)));
            }
            other => {
                return Err(o.err("", format!("shape class {other} is not one hkgen turns into triangles")));
            }
        }
        Ok(out)
    }

    /// An extended mesh shape: its triangle subparts (the storage shape's `meshstorage`, one
    /// storage object per subpart, in order) and its shape subparts.
    fn extended(&mut self, o: &Obj, at: At<'_>, out: &mut ShapeMesh) -> Result<()> {
        let (tsv, tsp) = at.field("", "trianglesSubparts")?;
        let mut subparts: Vec<(At<'_>, String)> = tsv.list(&tsp)?.iter().enumerate().map(|(i, s)| (tsv.with(s), format!("{tsp}[{i}]"))).collect();
        if subparts.is_empty() {
            if let Some(e) = at.opt("embeddedTrianglesSubpart") {
                let n = e.opt("numTriangleShapes").map(|v| v.i64("embeddedTrianglesSubpart.numTriangleShapes")).transpose()?.unwrap_or(0);
                if n > 0 {
                    subparts.push((e, "embeddedTrianglesSubpart".into()));
                }
            }
        }
        let storage: Vec<Option<Handle>> = match at.opt("meshstorage") {
            Some(s) => s.list("meshstorage")?.iter().enumerate().map(|(i, v)| s.with(v).ptr(&format!("meshstorage[{i}]"))).collect::<Result<_>>()?,
            None => Vec::new(),
        };
        for (k, (sub, sp)) in subparts.iter().enumerate() {
            let n = sub.field(sp, "numTriangleShapes").and_then(|(v, p)| v.i64(&p))?;
            let n = u64::try_from(n).map_err(|_| o.err(&join(sp, "numTriangleShapes"), format!("{n} triangles")))?;
            if n == 0 {
                continue;
            }
            let Some(Some(sh)) = storage.get(k) else {
                return Err(o.err(sp, "a triangle subpart without its storage (meshstorage): the vertices of a plain extended mesh shape are not in the file"));
            };
            let st = self.objs.get(*sh)?;
            let sroot = Val::Record(st.ms.clone());
            let sat = st.at(&sroot);
            let (vv, vp) = sat.field("", "vertices")?;
            let points = vv.points(&vp)?;
            let striding = sub.opt("stridingType").map(|v| match v.v {
                Val::Str(s) => s.clone(),
                other => format!("{other:?}"),
            });
            let (name, size) = match striding.as_deref() {
                Some("INDICES_INT8") | Some("UInt(1)") => ("indices8", 1),
                Some("INDICES_INT32") | Some("UInt(3)") => ("indices32", 4),
                Some("INDICES_INT16") | Some("UInt(2)") => ("indices16", 2),
                _ => ["indices16", "indices32", "indices8"]
                    .into_iter()
                    .zip([2, 4, 1])
                    .find(|(nm, _)| st.get(nm).and_then(|v| crate::members::ValExt::as_list(v)).is_some_and(|l| !l.is_empty()))
                    .unwrap_or(("indices16", 2)),
            };
            let (iv, ip) = sat.field("", name)?;
            let indices = iv.ints(&ip)?;
            let stride_bytes = sub.opt("indexStriding").map(|v| v.u64(&join(sp, "indexStriding"))).transpose()?.unwrap_or(0);
            let stride = if stride_bytes >= 3 * size && stride_bytes % size == 0 { stride_bytes / size } else { 3 };
            let need = n.saturating_mul(stride);
            if need > indices.len() as u64 + (stride - 3) {
                return Err(out_of_range(st.h, &st.class, &ip, "index", need.saturating_sub(1), indices.len() as u64));
            }
            let frame = match sub.opt("transform") {
                Some(t) => {
                    let tp = join(sp, "transform");
                    let r = t.reals(&tp, 12, true)?;
                    Frame::from_reals(&r).ok_or_else(|| o.err(&tp, format!("{} reals: not a transform", r.len())))?
                }
                None => Frame::IDENTITY,
            };
            let mut mesh = Mesh { positions: points, triangles: Vec::with_capacity(n as usize) };
            for t in 0..n {
                let b = (t * stride) as usize;
                let mut tri = [0u32; 3];
                for j in 0..3 {
                    tri[j] = index(&st, &format!("{ip}[{}]", b + j), indices[b + j], mesh.positions.len())?;
                }
                mesh.triangles.push(tri);
            }
            self.spend(o, mesh.positions.len() + mesh.triangles.len())?;
            append(&mut out.mesh, &mesh, &frame);
        }
        if let Some(ssv) = at.opt("shapesSubparts") {
            let ssp = "shapesSubparts";
            for (i, s) in ssv.list(ssp)?.iter().enumerate() {
                let ip = format!("{ssp}[{i}]");
                let sv = ssv.with(s);
                let q = sv.field(&ip, "rotation").and_then(|(v, p)| v.v4(&p))?;
                let t = sv.field(&ip, "translation").and_then(|(v, p)| v.v3(&p))?;
                let frame = Frame::from_quat(q, t);
                let (cv, cp) = sv.field(&ip, "childShapes")?;
                for (j, c) in cv.list(&cp)?.iter().enumerate() {
                    let jp = format!("{cp}[{j}]");
                    let h = cv.with(c).ptr(&jp)?;
                    self.child(o, &jp, h, frame, &mut out.mesh)?;
                }
            }
        }
        Ok(())
    }
}

/// `i` as an index into `n` vertices, or an error at `path`.
fn index(o: &Obj, path: &str, i: u64, n: usize) -> Result<u32> {
    if i >= n as u64 {
        return Err(out_of_range(o.h, &o.class, path, "vertex", i, n as u64));
    }
    Ok(i as u32)
}

fn push_facts(extras: &mut Vec<(String, f64)>, f: meshtree::TreeFacts) {
    extras.push(("sections".into(), f.sections as f64));
    extras.push(("triangles".into(), f.triangles as f64));
    extras.push(("quads".into(), f.quads as f64));
    if f.custom > 0 {
        extras.push(("customPrimitives".into(), f.custom as f64));
    }
}

/// Appends `m` placed by `frame` to `into`.
pub(crate) fn append(into: &mut Mesh, m: &Mesh, frame: &Frame) {
    let base = into.positions.len() as u32;
    into.positions.extend(m.positions.iter().map(|p| frame.apply(*p)));
    into.triangles.extend(m.triangles.iter().map(|t| [t[0] + base, t[1] + base, t[2] + base]));
}

/// The one child of a container: `childShape` or `child` (a pointer, or a record holding
/// `childShape`).
fn single_child(at: At<'_>) -> Result<Option<Handle>> {
    for name in ["childShape", "child"] {
        if let Some(v) = at.opt(name) {
            return match v.opt("childShape") {
                Some(inner) => inner.ptr(&format!("{name}.childShape")),
                None => v.ptr(name),
            };
        }
    }
    Err(at.err("childShape", "no such member"))
}

/// A convex polytope (`hknpConvexPolytopeShape` and its subclasses): each face's run of
/// `indices` into `vertices`, fanned.
fn polytope(at: At<'_>) -> Result<Mesh> {
    let (vv, vp) = at.field("", "vertices")?;
    let points = vv.points(&vp)?;
    let (iv, ip) = at.field("", "indices")?;
    let indices = iv.ints(&ip)?;
    let (fv, fp) = at.field("", "faces")?;
    let mut m = Mesh { positions: points, triangles: Vec::new() };
    for (i, f) in fv.list(&fp)?.iter().enumerate() {
        let p = format!("{fp}[{i}]");
        let f = fv.with(f);
        let first = f.field(&p, "firstIndex").and_then(|(v, q)| v.u64(&q))?;
        let count = f.field(&p, "numIndices").and_then(|(v, q)| v.u64(&q))?;
        let end = first.saturating_add(count);
        if end > indices.len() as u64 {
            return Err(out_of_range(at.h, at.class, &p, "index", end.saturating_sub(1), indices.len() as u64));
        }
        let face = &indices[first as usize..end as usize];
        for (k, &x) in face.iter().enumerate() {
            if x >= m.positions.len() as u64 {
                return Err(out_of_range(at.h, at.class, &format!("{ip}[{}]", first as usize + k), "vertex", x, m.positions.len() as u64));
            }
        }
        for k in 1..face.len().saturating_sub(1) {
            m.triangles.push([face[0] as u32, face[k] as u32, face[k + 1] as u32]);
        }
    }
    Ok(m)
}

/// The convex hull of `points`, refused past [`geom::HULL_MAX_POINTS`].
fn hull(o: &Obj, path: &str, points: &[V3]) -> Result<Mesh> {
    if points.len() > geom::HULL_MAX_POINTS {
        return Err(o.err(path, format!("{} vertices: a hull is made of at most {}", points.len(), geom::HULL_MAX_POINTS)));
    }
    Ok(geom::hull_from_points(points))
}

/// `hkpConvexVerticesShape`: the hull of its vertices (`rotatedVertices`, four to a block as
/// x, y and z rows, `numVertices` of them). Its `planeEquations` are not its faces (Breath of
/// the Wild's stand off the vertices, and many touch fewer than three of them), so they are
/// not read.
fn convex_vertices(o: &Obj, at: At<'_>) -> Result<Mesh> {
    let (rv, rp) = at.field("", "rotatedVertices")?;
    let blocks = rv.list(&rp)?;
    let n = o.need("numVertices").map(|v| at.with(v).u64("numVertices"))??;
    if n > 4 * blocks.len() as u64 {
        return Err(out_of_range(o.h, &o.class, "numVertices", "vertex", n.saturating_sub(1), 4 * blocks.len() as u64));
    }
    let mut points = Vec::with_capacity(n as usize);
    for (b, block) in blocks.iter().enumerate() {
        let r = rv.with(block).reals(&format!("{rp}[{b}]"), 12, false)?;
        for j in 0..4 {
            if points.len() < n as usize {
                points.push([r[j], r[4 + j], r[8 + j]]);
            }
        }
    }
    hull(o, "rotatedVertices", &points)
}

/// An `hkGeometry`: `vertices` and `triangles` (`a`, `b`, `c`).
fn hk_geometry(g: &Obj) -> Result<Mesh> {
    let root = Val::Record(g.ms.clone());
    let at = g.at(&root);
    let (vv, vp) = at.field("", "vertices")?;
    let points = vv.points(&vp)?;
    let (tv, tp) = at.field("", "triangles")?;
    let mut tris = Vec::new();
    for (i, t) in tv.list(&tp)?.iter().enumerate() {
        let ip = format!("{tp}[{i}]");
        let t = tv.with(t);
        let mut idx = [0u32; 3];
        for (k, name) in ["a", "b", "c"].iter().enumerate() {
            let (x, xp) = t.field(&ip, name)?;
            let v = x.i64(&xp)?;
            idx[k] = index(g, &xp, u64::try_from(v).unwrap_or(u64::MAX), points.len())?;
        }
        tris.push(idx);
    }
    Ok(Mesh { positions: points, triangles: tris })
}

/// Half the side of the square that stands for an (infinite) cloth collision plane.
pub const PLANE_PATCH: f32 = 1.0;

/// A square of half side [`PLANE_PATCH`] on the plane `n·p + d = 0`, centred on the plane's
/// point nearest the origin, facing along `n`.
fn plane_patch(n: V3, d: f32) -> Option<Mesh> {
    let l = geom::len(n);
    let nn = geom::normalize(n)?;
    let c = geom::scale(nn, -d / l);
    let (u, v) = geom::basis(nn);
    let corner = |a: f32, b: f32| geom::add(c, geom::add(geom::scale(u, a * PLANE_PATCH), geom::scale(v, b * PLANE_PATCH)));
    Some(Mesh {
        positions: vec![corner(-1.0, -1.0), corner(1.0, -1.0), corner(1.0, 1.0), corner(-1.0, 1.0)],
        triangles: vec![[0, 1, 2], [0, 2, 3]],
    })
}
