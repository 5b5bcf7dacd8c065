//! Physics and cloth shapes as triangle meshes: collision shapes (compressed and MOPP meshes,
//! convex polytopes, capsules, spheres, boxes, compound and list shapes), ragdoll rigid bodies
//! and their constraints, and cloth simulation meshes, each placed in its body's frame, for
//! export (glTF) and counting.
//!
//! The frames are Havok's own axes and units; a form that needs other axes (glTF is Y-up)
//! converts them itself.

use crate::error::Result;
use crate::{Document, Handle};

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

/// Every collision shape, ragdoll body and cloth mesh of `doc` as placed triangle meshes.
///
/// Not yet implemented: gives an empty scene.
pub fn scene(doc: &Document) -> Result<Scene> {
    let _ = doc;
    Ok(Scene::default())
}
