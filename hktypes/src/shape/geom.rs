//! The geometry the shapes need: frames (rotation, translation, scale), quaternions from
//! matrices, tessellated spheres, capsules, cylinders and boxes, and convex hulls (from plane
//! equations, or from points alone).

use super::Mesh;

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

/// The faces of the convex polytope of `points` whose face normals `planes` give (each
/// `n·p + d = 0`, `n` pointing out; only `n` is used): for each plane, the points farthest
/// along `n` (within a tolerance scaled to the points' extent), in order around the normal,
/// fanned into triangles. A plane with fewer than three points on it, or the same points as an
/// earlier plane, gives no face.
pub(crate) fn hull_from_planes(points: &[V3], planes: &[[f32; 4]]) -> Mesh {
    let extent = points.iter().flat_map(|p| p.iter()).fold(0f32, |m, x| m.max(x.abs())).max(1e-3);
    let tol = extent * 1e-3;
    let mut m = Mesh { positions: points.to_vec(), triangles: Vec::new() };
    let mut faces = std::collections::HashSet::new();
    for pl in planes {
        let Some(n) = normalize([pl[0], pl[1], pl[2]]) else { continue };
        // Measured from the points' support along `n`, not from the plane itself: a file's
        // planes may stand off the vertices (Breath of the Wild's convex vertices shapes keep
        // them about 0.094 outside every face).
        let Some(support) = points.iter().map(|&p| dot(n, p)).max_by(f32::total_cmp) else { continue };
        let on: Vec<u32> = (0..points.len() as u32).filter(|&i| support - dot(n, points[i as usize]) <= tol).collect();
        if on.len() >= 3 && faces.insert(on.clone()) {
            fan_sorted(&mut m, &on, n);
        }
    }
    m
}

/// Fans the points `on` (indices into `m.positions`, all on one plane of normal `n`) into
/// triangles, sorted by angle about their centroid, counter-clockwise seen from the side `n` points to.
fn fan_sorted(m: &mut Mesh, on: &[u32], n: V3) {
    if on.len() < 3 {
        return;
    }
    let c = scale(on.iter().fold([0.0; 3], |s, &i| add(s, m.positions[i as usize])), 1.0 / on.len() as f32);
    let (u, v) = basis(n);
    let mut ordered: Vec<(f32, u32)> = on
        .iter()
        .map(|&i| {
            let d = sub(m.positions[i as usize], c);
            (dot(d, v).atan2(dot(d, u)), i)
        })
        .collect();
    ordered.sort_by(|a, b| a.0.total_cmp(&b.0));
    for k in 1..ordered.len() - 1 {
        m.triangles.push([ordered[0].1, ordered[k].1, ordered[k + 1].1]);
    }
}

/// The most points [`hull_from_points`] takes: its work grows with the square of the count.
pub(crate) const HULL_MAX_POINTS: usize = 4096;

/// The convex hull of `points` (at most [`HULL_MAX_POINTS`]): the supporting planes found by an
/// incremental hull, then [`hull_from_planes`]. Fewer than four points that span a volume
/// give no triangles.
pub(crate) fn hull_from_points(points: &[V3]) -> Mesh {
    let planes = hull_planes(points);
    hull_from_planes(points, &planes)
}

/// The outward plane equations of the convex hull of `points` (incremental: each point outside
/// the hull so far replaces the faces it sees by a fan from its horizon).
fn hull_planes(points: &[V3]) -> Vec<[f32; 4]> {
    let n = points.len().min(HULL_MAX_POINTS);
    let pts = &points[..n];
    if n < 4 {
        return Vec::new();
    }
    let extent = pts.iter().flat_map(|p| p.iter()).fold(0f32, |m, x| m.max(x.abs())).max(1e-6);
    let eps = extent * 1e-5;
    // An initial tetrahedron from extreme points.
    let i0 = 0;
    let Some(i1) = (0..n).max_by(|&a, &b| len(sub(pts[a], pts[i0])).total_cmp(&len(sub(pts[b], pts[i0])))) else { return Vec::new() };
    let line = sub(pts[i1], pts[i0]);
    let Some(i2) = (0..n).max_by(|&a, &b| len(cross(line, sub(pts[a], pts[i0]))).total_cmp(&len(cross(line, sub(pts[b], pts[i0]))))) else {
        return Vec::new();
    };
    let nrm = cross(line, sub(pts[i2], pts[i0]));
    if len(nrm) <= eps * eps {
        return Vec::new();
    }
    let Some(i3) = (0..n).max_by(|&a, &b| dot(nrm, sub(pts[a], pts[i0])).abs().total_cmp(&dot(nrm, sub(pts[b], pts[i0])).abs())) else {
        return Vec::new();
    };
    if dot(nrm, sub(pts[i3], pts[i0])).abs() <= eps * len(nrm) {
        return Vec::new();
    }
    let inside = scale(add(add(pts[i0], pts[i1]), add(pts[i2], pts[i3])), 0.25);
    let plane_of = |f: [usize; 3]| -> Option<[f32; 4]> {
        let nn = normalize(cross(sub(pts[f[1]], pts[f[0]]), sub(pts[f[2]], pts[f[0]])))?;
        Some([nn[0], nn[1], nn[2], -dot(nn, pts[f[0]])])
    };
    let orient = |f: [usize; 3]| -> [usize; 3] {
        match plane_of(f) {
            Some(p) if dot([p[0], p[1], p[2]], inside) + p[3] > 0.0 => [f[0], f[2], f[1]],
            _ => f,
        }
    };
    let mut faces: Vec<[usize; 3]> = vec![orient([i0, i1, i2]), orient([i0, i1, i3]), orient([i0, i2, i3]), orient([i1, i2, i3])];
    for p in 0..n {
        if [i0, i1, i2, i3].contains(&p) {
            continue;
        }
        let visible: Vec<bool> = faces
            .iter()
            .map(|&f| plane_of(f).is_some_and(|pl| dot([pl[0], pl[1], pl[2]], pts[p]) + pl[3] > eps))
            .collect();
        if !visible.iter().any(|&v| v) {
            continue;
        }
        // Horizon: edges of visible faces whose reverse is on no visible face.
        let mut edges: Vec<(usize, usize)> = Vec::new();
        for (f, _) in faces.iter().zip(&visible).filter(|(_, &v)| v) {
            for k in 0..3 {
                edges.push((f[k], f[(k + 1) % 3]));
            }
        }
        let horizon: Vec<(usize, usize)> = edges.iter().copied().filter(|&(a, b)| !edges.contains(&(b, a))).collect();
        let mut kept: Vec<[usize; 3]> = faces.iter().zip(&visible).filter(|(_, &v)| !v).map(|(f, _)| *f).collect();
        kept.extend(horizon.into_iter().map(|(a, b)| [a, b, p]));
        faces = kept;
    }
    let mut planes: Vec<[f32; 4]> = Vec::new();
    for f in faces {
        let Some(pl) = plane_of(f) else { continue };
        let same = planes.iter().any(|q| dot([q[0], q[1], q[2]], [pl[0], pl[1], pl[2]]) > 1.0 - 1e-5 && (q[3] - pl[3]).abs() <= eps * 10.0);
        if !same {
            planes.push(pl);
        }
    }
    planes
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
        let planes = [[1.0, 0.0, 0.0, -1.0], [-1.0, 0.0, 0.0, -1.0], [0.0, 1.0, 0.0, -2.0], [0.0, -1.0, 0.0, -2.0], [0.0, 0.0, 1.0, -3.0], [0.0, 0.0, -1.0, -3.0]];
        assert_eq!(hull_from_planes(&b.positions, &planes).triangles.len(), 12);
        // An interior point changes nothing; flat input gives nothing.
        let mut pts = b.positions.clone();
        pts.push([0.1, 0.2, 0.3]);
        assert_eq!(hull_from_points(&pts).triangles.len(), 12);
        assert!(hull_from_points(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]]).triangles.is_empty());
    }
}
