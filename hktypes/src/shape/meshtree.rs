//! The compressed mesh of `hknpCompressedMeshShape` (its data's `meshTree`) and of
//! `hkpBvCompressedMeshShape` (its `tree`): an `hkcdStaticMeshTree`, decoded into triangles.
//!
//! The layout, as the class descriptions (`/work/shared/classdata`) and public readers of these
//! files describe it (facts only, the code is this crate's own):
//!
//! - The tree holds `sections`, `primitives` (four 8-bit vertex indices each),
//!   `packedVertices` (32-bit words), `sharedVertices` (64-bit words), `sharedVerticesIndex`
//!   (16-bit indices into `sharedVertices`) and, from its static tree, the `domain` (an AABB).
//! - A section names a run of primitives and of vertices. Up to SDK 2014 it packs them in
//!   bit fields: `primitives.data` is `first << 8 | count`, `sharedVertices.data` is
//!   `firstSharedIndex << 8 | numPackedVertices`, with `firstPackedVertex` beside them; from
//!   SDK 2016 on it has the plain members `firstPrimitiveIndex`, `numPrimitives`,
//!   `firstPackedVertexIndex`, `firstSharedVertexIndex` and `numPackedVertices`.
//! - A primitive's index `i` below the section's packed vertex count names
//!   `packedVertices[firstPacked + i]`: x in bits 0-10, y in bits 11-21, z in bits 22-31, each
//!   the quantized position `codecParms[0..3] + codecParms[3..6] * q` (offset, then scale).
//!   Any other index names `sharedVertices[sharedVerticesIndex[firstShared + i - numPacked]]`:
//!   x in bits 0-20, y in 21-41, z in 42-63, each `domain.min + (domain.max - domain.min) * q
//!   / (2^bits - 1)`.
//! - A primitive whose last two indices are equal is the triangle of its first three; any
//!   other is the quad `0 1 2 3`, two triangles `0 1 2` and `0 2 3`. The indices `DE AD DE AD`
//!   mark a primitive that holds no triangle of the mesh (a custom primitive); it gives none.
//!
//! A section without packed vertices may leave its `codecParms` unset (Dark Souls III's map
//! collisions hold sections with the largest real and minus infinity there); the codec is
//! checked where a packed vertex uses it.
//!
//! Every count and index is checked against the array it names before it is used, so a
//! lying section or primitive is a located error. The work is one pass over the sections and
//! the primitives each names: up to SDK 2014 at most 255 a section, proportional to the input;
//! from 2016 on a section's count is a plain member, and the triangles and vertices made are
//! held to a limit (the scene's [`super::shapes::MAX_ELEMENTS`]).

use super::geom::V3;
use super::read::{join, out_of_range, At};
use super::Mesh;
use crate::error::Result;
use crate::members::ValExt;
use std::collections::HashMap;

/// The marker of a primitive that holds no triangle.
pub(crate) const CUSTOM_PRIMITIVE: [u8; 4] = [0xde, 0xad, 0xde, 0xad];

/// What [`decode`] found besides the mesh.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TreeFacts {
    pub sections: usize,
    pub triangles: usize,
    pub quads: usize,
    pub custom: usize,
}

/// The triangles of the mesh tree `tree` (at member path `path`), at most `limit` triangles and
/// vertices together (sections of SDK 2016 on name any number of primitives, and nothing
/// keeps two from naming the same ones: the limit bounds what lying sections can make).
pub(crate) fn decode(tree: At<'_>, path: &str, limit: usize) -> Result<(Mesh, TreeFacts)> {
    if let Some(b) = tree.opt("bitsPerKey") {
        let p = join(path, "bitsPerKey");
        let bits = b.i64(&p)?;
        if !(0..=32).contains(&bits) {
            return Err(tree.err(&p, format!("{bits} bits per key: a key has at most 32")));
        }
    }
    let (domain, dp) = tree.field(path, "domain")?;
    let min = domain.field(&dp, "min")?;
    let max = domain.field(&dp, "max")?;
    let (min, max) = (min.0.v3(&min.1)?, max.0.v3(&max.1)?);

    let (prims_v, prims_p) = tree.field(path, "primitives")?;
    let prims_l = prims_v.list(&prims_p)?;
    let mut prims = Vec::with_capacity(prims_l.len());
    for (i, p) in prims_l.iter().enumerate() {
        let at = format!("{prims_p}[{i}]");
        let pv = prims_v.with(p);
        let idx = match pv.opt("indices") {
            Some(x) => x.ints(&join(&at, "indices"))?,
            None => pv.ints(&at)?,
        };
        if idx.len() != 4 || idx.iter().any(|&x| x > 255) {
            return Err(pv.err(&at, format!("a primitive is four 8-bit indices, not {idx:?}")));
        }
        prims.push([idx[0] as u8, idx[1] as u8, idx[2] as u8, idx[3] as u8]);
    }
    let words = |name: &str, bits: u32| -> Result<(Vec<u64>, String)> {
        let (v, p) = tree.field(path, name)?;
        let w = v.ints(&p)?;
        if let Some(i) = w.iter().position(|&x| bits < 64 && x >> bits != 0) {
            return Err(v.err(&format!("{p}[{i}]"), format!("{} does not fit in {bits} bits", w[i])));
        }
        Ok((w, p))
    };
    let (packed, _) = words("packedVertices", 32)?;
    let (shared, _) = words("sharedVertices", 64)?;
    let (shared_index, shared_index_p) = words("sharedVerticesIndex", 32)?;

    let shared_scale = [
        (max[0] - min[0]) / ((1u64 << 21) - 1) as f32,
        (max[1] - min[1]) / ((1u64 << 21) - 1) as f32,
        (max[2] - min[2]) / ((1u64 << 22) - 1) as f32,
    ];

    let (secs_v, secs_p) = tree.field(path, "sections")?;
    let secs = secs_v.list(&secs_p)?;
    let mut mesh = Mesh::default();
    let mut facts = TreeFacts { sections: secs.len(), ..TreeFacts::default() };
    let mut shared_out: HashMap<u64, u32> = HashMap::new();
    for (si, s) in secs.iter().enumerate() {
        let sp = format!("{secs_p}[{si}]");
        let s = secs_v.with(s);
        let get = |name: &str| -> Result<u64> {
            let (v, p) = s.field(&sp, name)?;
            v.u64(&p)
        };
        // A section without packed vertices may leave its codec unset (the largest real
        // and minus infinity in the corpus): it is checked where a packed vertex uses it.
        let (cv, cp) = s.field(&sp, "codecParms")?;
        let codec = cv.v.reals();
        if codec.len() != 6 {
            return Err(cv.err(&cp, format!("{} reals where 6 belong", codec.len())));
        }
        let codec_finite = codec.iter().all(|x| x.is_finite());
        let (first_packed, num_packed, first_shared, first_prim, num_prims) = if s.opt("firstPrimitiveIndex").is_some() {
            (
                get("firstPackedVertexIndex")?,
                get("numPackedVertices")?,
                get("firstSharedVertexIndex")?,
                get("firstPrimitiveIndex")?,
                get("numPrimitives")?,
            )
        } else {
            let sv = get("sharedVertices")?;
            let pr = get("primitives")?;
            (get("firstPackedVertex")?, sv & 0xff, sv >> 8, pr >> 8, pr & 0xff)
        };
        let end = first_prim.saturating_add(num_prims);
        if end > prims.len() as u64 {
            return Err(out_of_range(s.h, s.class, &join(&sp, "primitives"), "primitive", end.saturating_sub(1), prims.len() as u64));
        }
        let mut local: [Option<u32>; 256] = [None; 256];
        let mut vertex = |i: u8, prim: u64, mesh: &mut Mesh| -> Result<u32> {
            if let Some(o) = local[i as usize] {
                return Ok(o);
            }
            let ppath = || format!("{prims_p}[{prim}]");
            let out = if u64::from(i) < num_packed {
                let k = first_packed + u64::from(i);
                let w = *packed.get(k as usize).ok_or_else(|| out_of_range(s.h, s.class, &ppath(), "packed vertex", k, packed.len() as u64))?;
                if !codec_finite {
                    return Err(s.err(&cp, format!("{codec:?} is not finite, and packed vertex {k} is quantized by it")));
                }
                let q = [(w & 0x7ff) as f32, ((w >> 11) & 0x7ff) as f32, ((w >> 22) & 0x3ff) as f32];
                let p: V3 = [codec[0] + codec[3] * q[0], codec[1] + codec[4] * q[1], codec[2] + codec[5] * q[2]];
                push(mesh, p)
            } else {
                let slot = first_shared + (u64::from(i) - num_packed);
                let k = *shared_index
                    .get(slot as usize)
                    .ok_or_else(|| out_of_range(s.h, s.class, &ppath(), "shared vertex index", slot, shared_index.len() as u64))?;
                if let Some(&o) = shared_out.get(&k) {
                    o
                } else {
                    let w = *shared
                        .get(k as usize)
                        .ok_or_else(|| out_of_range(s.h, s.class, &format!("{shared_index_p}[{slot}]"), "shared vertex", k, shared.len() as u64))?;
                    let q = [(w & 0x1f_ffff) as f32, ((w >> 21) & 0x1f_ffff) as f32, ((w >> 42) & 0x3f_ffff) as f32];
                    let p: V3 = [
                        min[0] + shared_scale[0] * q[0],
                        min[1] + shared_scale[1] * q[1],
                        min[2] + shared_scale[2] * q[2],
                    ];
                    let o = push(mesh, p);
                    shared_out.insert(k, o);
                    o
                }
            };
            local[i as usize] = Some(out);
            Ok(out)
        };
        for pi in first_prim..end {
            if mesh.positions.len() + mesh.triangles.len() > limit {
                return Err(s.err(&sp, format!("the sections make more than {limit} triangles and vertices")));
            }
            let p = prims[pi as usize];
            if p == CUSTOM_PRIMITIVE {
                facts.custom += 1;
                continue;
            }
            let v = [vertex(p[0], pi, &mut mesh)?, vertex(p[1], pi, &mut mesh)?, vertex(p[2], pi, &mut mesh)?];
            mesh.triangles.push(v);
            if p[2] == p[3] {
                facts.triangles += 1;
            } else {
                let v3 = vertex(p[3], pi, &mut mesh)?;
                mesh.triangles.push([v[0], v[2], v3]);
                facts.quads += 1;
            }
        }
    }
    Ok((mesh, facts))
}

fn push(mesh: &mut Mesh, p: V3) -> u32 {
    mesh.positions.push(p);
    (mesh.positions.len() - 1) as u32
}
