//! The geometry the shapes need: frames (rotation, translation, scale), quaternions from
//! matrices, tessellated spheres, capsules, cylinders and boxes, and convex hulls (from plane
//! equations, or from points alone).

use super::Mesh;
use std::collections::HashMap;

/// A 3-vector.
pub(crate) type V3 = [f32; 3];

pub(crate) fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

pub(crate) fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

pub(crate) fn scale(a: V3, s: f32) -> V3 {
    [a[0] * s, a[1] * s, a[2] * s]
}

pub(crate) fn dot(a: V3, b: V3) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub(crate) fn cross(a: V3, b: V3) -> V3 {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

pub(crate) fn len(a: V3) -> f32 {
    dot(a, a).sqrt()
}

pub(crate) fn normalize(a: V3) -> Option<V3> {
    let l = len(a);
    (l > 1e-12 && l.is_finite()).then(|| scale(a, 1.0 / l))
}

/// Two unit vectors perpendicular to the unit vector `n` and to each other.
pub(crate) fn basis(n: V3) -> (V3, V3) {
    let helper = if n[0].abs() < 0.9 { [1.0, 0.0, 0.0] } else { [0.0, 1.0, 0.0] };
    let u = normalize(cross(n, helper)).unwrap_or([0.0, 0.0, 1.0]);
    let v = cross(n, u);
    (u, v)
}

/// A frame: `p -> rot * (scale * p) + t`, the rotation as a row-major matrix.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Frame {
    pub rot: [[f32; 3]; 3],
    pub t: V3,
    pub scale: V3,
}

impl Frame {
    pub(crate) const IDENTITY: Frame = Frame { rot: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], t: [0.0; 3], scale: [1.0; 3] };

    /// A Havok `hkTransform` as its 16 reals: the rotation's three columns (each padded to
    /// four), then the translation.
    pub(crate) fn from_transform(r: &[f32]) -> Frame {
        let mut rot = [[0.0; 3]; 3];
        for (col, c) in r.chunks(4).take(3).enumerate() {
            for row in 0..3 {
                rot[row][col] = c[row];
            }
        }
        Frame { rot, t: [r[12], r[13], r[14]], scale: [1.0; 3] }
    }

    /// A Havok `hkQsTransform` as its 12 reals: translation, rotation quaternion (x, y, z, w),
    /// scale.
    pub(crate) fn from_qs(r: &[f32]) -> Frame {
        let q = [r[4], r[5], r[6], r[7]];
        Frame { rot: quat_matrix(q), t: [r[0], r[1], r[2]], scale: [r[8], r[9], r[10]] }
    }

    /// A rotation quaternion (x, y, z, w) and a translation.
    pub(crate) fn from_quat(q: [f32; 4], t: V3) -> Frame {
        Frame { rot: quat_matrix(q), t, scale: [1.0; 3] }
    }

    /// The transform as a Havok transform's reals of either form (16: `hkTransform`, 12:
    /// `hkQsTransform`), `None` for another count.
    pub(crate) fn from_reals(r: &[f32]) -> Option<Frame> {
        match r.len() {
            16 => Some(Frame::from_transform(r)),
            12 => Some(Frame::from_qs(r)),
            _ => None,
        }
    }

    pub(crate) fn apply(&self, p: V3) -> V3 {
        let s = [p[0] * self.scale[0], p[1] * self.scale[1], p[2] * self.scale[2]];
        let m = &self.rot;
        [
            m[0][0] * s[0] + m[0][1] * s[1] + m[0][2] * s[2] + self.t[0],
            m[1][0] * s[0] + m[1][1] * s[1] + m[1][2] * s[2] + self.t[1],
            m[2][0] * s[0] + m[2][1] * s[1] + m[2][2] * s[2] + self.t[2],
        ]
    }

    /// The rotation as a unit quaternion (x, y, z, w).
    pub(crate) fn quat(&self) -> [f32; 4] {
        matrix_quat(&self.rot)
    }

    pub(crate) fn is_finite(&self) -> bool {
        self.rot.iter().flatten().chain(&self.t).chain(&self.scale).all(|x| x.is_finite())
    }
}

/// The rotation matrix (row-major) of a quaternion (x, y, z, w), normalised first.
pub(crate) fn quat_matrix(q: [f32; 4]) -> [[f32; 3]; 3] {
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    let [x, y, z, w] = if n > 1e-12 && n.is_finite() { [q[0] / n, q[1] / n, q[2] / n, q[3] / n] } else { [0.0, 0.0, 0.0, 1.0] };
    [
        [1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - z * w), 2.0 * (x * z + y * w)],
        [2.0 * (x * y + z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - x * w)],
        [2.0 * (x * z - y * w), 2.0 * (y * z + x * w), 1.0 - 2.0 * (x * x + y * y)],
    ]
}

/// The unit quaternion (x, y, z, w) of a rotation matrix (row-major).
pub(crate) fn matrix_quat(m: &[[f32; 3]; 3]) -> [f32; 4] {
    let tr = m[0][0] + m[1][1] + m[2][2];
    let q = if tr > 0.0 {
        let s = (tr + 1.0).sqrt() * 2.0;
        [(m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s, (m[1][0] - m[0][1]) / s, 0.25 * s]
    } else if m[0][0] > m[1][1] && m[0][0] > m[2][2] {
        let s = (1.0 + m[0][0] - m[1][1] - m[2][2]).sqrt() * 2.0;
        [0.25 * s, (m[0][1] + m[1][0]) / s, (m[0][2] + m[2][0]) / s, (m[2][1] - m[1][2]) / s]
    } else if m[1][1] > m[2][2] {
        let s = (1.0 + m[1][1] - m[0][0] - m[2][2]).sqrt() * 2.0;
        [(m[0][1] + m[1][0]) / s, 0.25 * s, (m[1][2] + m[2][1]) / s, (m[0][2] - m[2][0]) / s]
    } else {
        let s = (1.0 + m[2][2] - m[0][0] - m[1][1]).sqrt() * 2.0;
        [(m[0][2] + m[2][0]) / s, (m[1][2] + m[2][1]) / s, 0.25 * s, (m[1][0] - m[0][1]) / s]
    };
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    if n > 1e-12 && n.is_finite() {
        [q[0] / n, q[1] / n, q[2] / n, q[3] / n]
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

/// Segments around a sphere, capsule or cylinder.
pub(crate) const SEGMENTS: u32 = 16;
/// Rings from a sphere's pole to its equator.
pub(crate) const RINGS: u32 = 6;

/// A capsule around the segment `a`-`b` of radius `r` (a sphere when `a == b`): two
/// hemispheres of [`RINGS`] rings and [`SEGMENTS`] segments joined by a cylinder. Every vertex
/// lies at distance `r` from the segment.
pub(crate) fn capsule(a: V3, b: V3, r: f32) -> Mesh {
    tapered_capsule(a, r, b, r)
}

/// A capsule whose end spheres differ (`hclTaperedCapsuleShape`): the sphere of radius `ra`
/// about `a` and of `rb` about `b`, each hemisphere on its own end, joined ring to ring.
pub(crate) fn tapered_capsule(a: V3, ra: f32, b: V3, rb: f32) -> Mesh {
    let axis = normalize(sub(b, a)).unwrap_or([0.0, 0.0, 1.0]);
    let (u, v) = basis(axis);
    let mut m = Mesh::default();
    // Rings from the pole beyond `a` (ring 0, a point) to the pole beyond `b`.
    // Each ring: the sphere centre, the ring's radius, its offset along the axis.
    let mut rings: Vec<(V3, f32, f32)> = Vec::new();
    for i in 0..=RINGS {
        // Latitude from -90° (pole at a) to 0° (equator at a).
        let lat = -std::f32::consts::FRAC_PI_2 + std::f32::consts::FRAC_PI_2 * i as f32 / RINGS as f32;
        rings.push((a, ra * lat.cos(), ra * lat.sin()));
    }
    // A sphere (one centre, one radius) has one equator, not a band of no height.
    let first = if a == b && ra == rb { 1 } else { 0 };
    for i in first..=RINGS {
        let lat = std::f32::consts::FRAC_PI_2 * i as f32 / RINGS as f32;
        rings.push((b, rb * lat.cos(), rb * lat.sin()));
    }
    let mut ring_start = Vec::new();
    for &(c, rr, off) in &rings {
        let centre = add(c, scale(axis, off));
        ring_start.push(m.positions.len() as u32);
        if rr.abs() <= f32::EPSILON * 4.0 * (ra.abs() + rb.abs()).max(1.0) {
            m.positions.push(centre);
            continue;
        }
        for s in 0..SEGMENTS {
            let ang = std::f32::consts::TAU * s as f32 / SEGMENTS as f32;
            let dir = add(scale(u, ang.cos()), scale(v, ang.sin()));
            m.positions.push(add(centre, scale(dir, rr)));
        }
    }
    ring_start.push(m.positions.len() as u32);
    for k in 0..rings.len() - 1 {
        let (s0, n0) = (ring_start[k], ring_start[k + 1] - ring_start[k]);
        let (s1, n1) = (ring_start[k + 1], ring_start[k + 2] - ring_start[k + 1]);
        join_rings(&mut m, (s0, n0), (s1, n1));
    }
    m
}

/// Triangles between two rings of one vertex (a pole) or [`SEGMENTS`] vertices each.
fn join_rings(m: &mut Mesh, (s0, n0): (u32, u32), (s1, n1): (u32, u32)) {
    match (n0, n1) {
        (1, 1) => {}
        (1, n) => (0..n).for_each(|i| m.triangles.push([s0, s1 + (i + 1) % n, s1 + i])),
        (n, 1) => (0..n).for_each(|i| m.triangles.push([s0 + i, s0 + (i + 1) % n, s1])),
        (n, _) => {
            for i in 0..n {
                let j = (i + 1) % n;
                m.triangles.push([s0 + i, s0 + j, s1 + j]);
                m.triangles.push([s0 + i, s1 + j, s1 + i]);
            }
        }
    }
}

/// A closed cylinder about the segment `a`-`b` of radius `r`: two caps of [`SEGMENTS`]
/// vertices each and their centres.
pub(crate) fn cylinder(a: V3, b: V3, r: f32) -> Mesh {
    let axis = normalize(sub(b, a)).unwrap_or([0.0, 0.0, 1.0]);
    let (u, v) = basis(axis);
    let mut m = Mesh::default();
    m.positions.push(a);
    let ring = |m: &mut Mesh, c: V3| {
        for s in 0..SEGMENTS {
            let ang = std::f32::consts::TAU * s as f32 / SEGMENTS as f32;
            m.positions.push(add(c, scale(add(scale(u, ang.cos()), scale(v, ang.sin())), r)));
        }
    };
    ring(&mut m, a);
    ring(&mut m, b);
    m.positions.push(b);
    let last = m.positions.len() as u32 - 1;
    join_rings(&mut m, (0, 1), (1, SEGMENTS));
    join_rings(&mut m, (1, SEGMENTS), (1 + SEGMENTS, SEGMENTS));
    join_rings(&mut m, (1 + SEGMENTS, SEGMENTS), (last, 1));
    m
}

/// A box of half extents `h` about the origin: 8 corners, 12 triangles facing out.
pub(crate) fn boxed(h: V3) -> Mesh {
    let mut m = Mesh::default();
    for i in 0..8u32 {
        let s = |bit: u32| if i & bit != 0 { 1.0 } else { -1.0 };
        m.positions.push([h[0] * s(1), h[1] * s(2), h[2] * s(4)]);
    }
    // Faces as corner quads, counter-clockwise seen from outside.
    for q in [[0, 4, 6, 2], [1, 3, 7, 5], [0, 1, 5, 4], [2, 6, 7, 3], [0, 2, 3, 1], [4, 5, 7, 6]] {
        m.triangles.push([q[0], q[1], q[2]]);
        m.triangles.push([q[0], q[2], q[3]]);
    }
    m
}

/// A 3-vector of f64, for the hull.
type D3 = [f64; 3];

/// The vector operations in f64.
mod d {
    use super::D3;

    pub(super) fn sub(a: D3, b: D3) -> D3 {
        [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
    }

    pub(super) fn add(a: D3, b: D3) -> D3 {
        [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
    }

    pub(super) fn scale(a: D3, s: f64) -> D3 {
        [a[0] * s, a[1] * s, a[2] * s]
    }

    pub(super) fn dot(a: D3, b: D3) -> f64 {
        a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
    }

    pub(super) fn cross(a: D3, b: D3) -> D3 {
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    }

    pub(super) fn len(a: D3) -> f64 {
        dot(a, a).sqrt()
    }

    pub(super) fn normalize(a: D3) -> Option<D3> {
        let l = len(a);
        (l > 0.0 && l.is_finite()).then(|| scale(a, 1.0 / l))
    }
}

/// The most points [`hull_from_points`] takes: its work grows with the count times the hull's
/// faces.
pub(crate) const HULL_MAX_POINTS: usize = 4096;

/// The convex hull of `points` (the first [`HULL_MAX_POINTS`] of them) as a closed triangle
/// mesh over the same positions (a point inside the hull is in no triangle), its triangles
/// counter-clockwise seen from outside. Points that span no volume give no triangles.
///
/// Incremental: a tetrahedron of extreme points, then each point outside the hull so far
/// replaces the faces it sees by a fan from their horizon.
pub(crate) fn hull_from_points(points: &[V3]) -> Mesh {
    let mut m = Mesh { positions: points.to_vec(), triangles: Vec::new() };
    let n = points.len().min(HULL_MAX_POINTS);
    // In f64: an f32 point's products are exact there, so nearly coplanar or nearly equal
    // points (Skyrim's ragdoll hulls hold vertices a centimetre apart 30 units out) keep their
    // side of a face.
    let pts: Vec<D3> = points[..n].iter().map(|p| p.map(f64::from)).collect();
    if n < 4 {
        return m;
    }
    let extent = pts.iter().flat_map(|p| p.iter()).fold(0f64, |m, x| m.max(x.abs())).max(1e-6);
    // About an f32's resolution at the points' extent.
    let eps = extent * 1e-7;
    let i0 = 0;
    let far = |key: &dyn Fn(usize) -> f64| (0..n).max_by(|&a, &b| key(a).total_cmp(&key(b)));
    let Some(i1) = far(&|a| d::len(d::sub(pts[a], pts[i0]))) else { return m };
    let line = d::sub(pts[i1], pts[i0]);
    let Some(i2) = far(&|a| d::len(d::cross(line, d::sub(pts[a], pts[i0])))) else { return m };
    let nrm = d::cross(line, d::sub(pts[i2], pts[i0]));
    if d::len(nrm) <= eps * extent {
        return m;
    }
    let Some(i3) = far(&|a| d::dot(nrm, d::sub(pts[a], pts[i0])).abs()) else { return m };
    if d::dot(nrm, d::sub(pts[i3], pts[i0])).abs() <= eps * d::len(nrm) {
        return m;
    }
    let inside = d::scale(d::add(d::add(pts[i0], pts[i1]), d::add(pts[i2], pts[i3])), 0.25);
    // Each face with its outward plane (unit normal, offset).
    let plane_of = |f: [usize; 3]| -> ([usize; 3], D3, f64) {
        let nn = d::normalize(d::cross(d::sub(pts[f[1]], pts[f[0]]), d::sub(pts[f[2]], pts[f[0]]))).unwrap_or([0.0; 3]);
        (f, nn, -d::dot(nn, pts[f[0]]))
    };
    let outward = |f: [usize; 3]| {
        let (f, nn, off) = plane_of(f);
        if d::dot(nn, inside) + off > 0.0 {
            plane_of([f[0], f[2], f[1]])
        } else {
            (f, nn, off)
        }
    };
    // Faces in slots (a removed face's slot is reused), each directed edge to its face.
    type Face = ([usize; 3], D3, f64);
    let mut faces: Vec<Option<Face>> = Vec::new();
    let mut free: Vec<usize> = Vec::new();
    let mut edge_face: HashMap<(usize, usize), usize> = HashMap::new();
    let add = |faces: &mut Vec<Option<Face>>, free: &mut Vec<usize>, edge_face: &mut HashMap<(usize, usize), usize>, face: Face| {
        let slot = match free.pop() {
            Some(i) => {
                faces[i] = Some(face);
                i
            }
            None => {
                faces.push(Some(face));
                faces.len() - 1
            }
        };
        let f = face.0;
        for k in 0..3 {
            edge_face.insert((f[k], f[(k + 1) % 3]), slot);
        }
        slot
    };
    for f in [[i0, i1, i2], [i0, i1, i3], [i0, i2, i3], [i1, i2, i3]] {
        add(&mut faces, &mut free, &mut edge_face, outward(f));
    }
    let mut seen: Vec<bool> = Vec::new();
    let mut visible: Vec<usize> = Vec::new();
    // Farthest from the tetrahedron's centre first: the points that make the hull come before
    // those near its faces, which then mostly fall inside.
    let mut order: Vec<usize> = (0..n).filter(|p| ![i0, i1, i2, i3].contains(p)).collect();
    order.sort_by(|&a, &b| d::len(d::sub(pts[b], inside)).total_cmp(&d::len(d::sub(pts[a], inside))));
    for p in order {
        let point = pts[p];
        let height = |f: &Face| d::dot(f.1, point) + f.2;
        // The visible faces: from the one the point is highest above (by more than `eps`),
        // every face connected to it that the point is above at all. Keeping a face the point
        // is barely above would leave a reflex edge, and a far point later sees faces on both
        // sides of it but not between (Skyrim's dwarven centurion lid: a face 25 units
        // inside the hull).
        let Some((start, top)) = faces.iter().enumerate().filter_map(|(i, f)| f.as_ref().map(|f| (i, height(f)))).max_by(|a, b| a.1.total_cmp(&b.1))
        else {
            break;
        };
        if top <= eps {
            continue;
        }
        seen.clear();
        seen.resize(faces.len(), false);
        visible.clear();
        visible.push(start);
        seen[start] = true;
        let mut k = 0;
        while k < visible.len() {
            let f = faces[visible[k]].expect("a visible face is in its slot").0;
            for e in 0..3 {
                if let Some(&n) = edge_face.get(&(f[(e + 1) % 3], f[e])) {
                    if !seen[n] && faces[n].as_ref().is_some_and(|g| height(g) > 0.0) {
                        seen[n] = true;
                        visible.push(n);
                    }
                }
            }
            k += 1;
        }
        // The horizon: edges of visible faces whose neighbour across is not visible.
        let mut horizon: Vec<(usize, usize)> = Vec::new();
        for &i in &visible {
            let f = faces[i].expect("a visible face is in its slot").0;
            for e in 0..3 {
                let (a, b) = (f[e], f[(e + 1) % 3]);
                if !edge_face.get(&(b, a)).is_some_and(|&n| seen[n]) {
                    horizon.push((a, b));
                }
            }
        }
        for &i in &visible {
            let f = faces[i].take().expect("a visible face is in its slot").0;
            for e in 0..3 {
                edge_face.remove(&(f[e], f[(e + 1) % 3]));
            }
            free.push(i);
        }
        for (a, b) in horizon {
            add(&mut faces, &mut free, &mut edge_face, plane_of([a, b, p]));
        }
    }
    m.triangles = faces.into_iter().flatten().map(|(f, _, _)| [f[0] as u32, f[1] as u32, f[2] as u32]).collect();
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f32, b: f32, tol: f32) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn quaternion_and_matrix_agree() {
        let q = [0.1825742, 0.3651484, 0.5477226, 0.7302967];
        let back = matrix_quat(&quat_matrix(q));
        for k in 0..4 {
            assert!(close(back[k], q[k], 1e-5), "{back:?}");
        }
        let f = Frame::from_quat([0.0, 0.0, std::f32::consts::FRAC_1_SQRT_2, std::f32::consts::FRAC_1_SQRT_2], [1.0, 2.0, 3.0]);
        let p = f.apply([1.0, 0.0, 0.0]);
        assert!(close(p[0], 1.0, 1e-6) && close(p[1], 3.0, 1e-6) && close(p[2], 3.0, 1e-6), "{p:?}");
    }

    #[test]
    fn capsule_vertices_lie_at_the_radius_from_the_segment() {
        let (a, b, r) = ([0.0, 0.0, -1.0], [0.0, 0.0, 1.0], 0.5);
        let m = capsule(a, b, r);
        for p in &m.positions {
            let z = p[2].clamp(-1.0, 1.0);
            let d = len(sub(*p, [0.0, 0.0, z]));
            assert!(close(d, r, 1e-5), "{p:?} at {d}");
        }
        // Closed: every edge is used twice.
        let mut edges = std::collections::HashMap::new();
        for t in &m.triangles {
            for k in 0..3 {
                let (x, y) = (t[k].min(t[(k + 1) % 3]), t[k].max(t[(k + 1) % 3]));
                *edges.entry((x, y)).or_insert(0) += 1;
            }
        }
        assert!(edges.values().all(|&c| c == 2));
    }

    #[test]
    fn box_and_hulls() {
        let b = boxed([1.0, 2.0, 3.0]);
        assert_eq!((b.positions.len(), b.triangles.len()), (8, 12));
        let hull = hull_from_points(&b.positions);
        assert_eq!(hull.triangles.len(), 12);
        // Facing out: each triangle's normal points away from the centre.
        for t in &hull.triangles {
            let [a, b2, c] = t.map(|i| hull.positions[i as usize]);
            assert!(dot(cross(sub(b2, a), sub(c, a)), a) > 0.0);
        }
        // An interior point changes nothing; flat input gives nothing.
        let mut pts = b.positions.clone();
        pts.push([0.1, 0.2, 0.3]);
        assert_eq!(hull_from_points(&pts).triangles.len(), 12);
        assert!(hull_from_points(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]]).triangles.is_empty());
    }

    #[test]
    fn a_hull_of_coplanar_and_near_duplicate_points_is_closed() {
        // A 5 x 5 grid on each face of a cube (many points on one plane, edges shared), each
        // point once more 1e-4 away (Skyrim's ragdoll hulls hold such near pairs).
        let mut pts = Vec::new();
        for axis in 0..3 {
            for side in [-1.0f32, 1.0] {
                for i in 0..5 {
                    for j in 0..5 {
                        let (u, v) = (i as f32 / 2.0 - 1.0, j as f32 / 2.0 - 1.0);
                        let mut p = [0.0; 3];
                        p[axis] = side;
                        p[(axis + 1) % 3] = u;
                        p[(axis + 2) % 3] = v;
                        pts.push(p);
                        pts.push([p[0] + 1e-4 * u, p[1] - 1e-4 * v, p[2] + 1e-4]);
                    }
                }
            }
        }
        assert_convex_and_closed(&pts);
        // And points of a ball and a box, in a scrambled order (a fixed LCG).
        let mut x: u32 = 12345;
        let mut next = || {
            x = x.wrapping_mul(1664525).wrapping_add(1013904223);
            (x >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
        };
        let mut pts = Vec::new();
        for i in 0..800 {
            let p = [next(), next(), next()];
            pts.push(if i % 2 == 0 { p } else { normalize(p).map_or(p, |n| scale(n, 1.2)) });
        }
        assert_convex_and_closed(&pts);
    }

    fn assert_convex_and_closed(pts: &[V3]) {
        let hull = hull_from_points(pts);
        // In f64: no point above a face by more than 1e-6 of the points' extent.
        let p64: Vec<D3> = pts.iter().map(|p| p.map(f64::from)).collect();
        let extent = p64.iter().flatten().fold(0f64, |m, x| m.max(x.abs()));
        for t in &hull.triangles {
            let [a, b, c] = t.map(|i| p64[i as usize]);
            let Some(n) = d::normalize(d::cross(d::sub(b, a), d::sub(c, a))) else { continue };
            let above = p64.iter().map(|&p| d::dot(n, d::sub(p, a))).fold(f64::MIN, f64::max);
            assert!(above <= extent * 1e-6, "{a:?} {b:?} {c:?}: a point {above} above");
        }
        let mut edges = std::collections::HashMap::new();
        for t in &hull.triangles {
            for k in 0..3 {
                *edges.entry((t[k].min(t[(k + 1) % 3]), t[k].max(t[(k + 1) % 3]))).or_insert(0) += 1;
            }
        }
        assert!(!hull.triangles.is_empty() && edges.values().all(|&c| c == 2), "{} triangles", hull.triangles.len());
    }
}
