//! glTF 2.0 out of Havok documents: skeletons, animations and shape scenes; and edited animations
//! back in ([`import`]). Behind the cargo feature `gltf`; the document model is `gltf-json`'s,
//! reading a glTF back is `gltf`'s.
//!
//! # What an export holds
//!
//! - One root node `Havok` holding everything, which carries the axis conversion (below).
//! - Per `hkaSkeleton` of the inputs: a node named as the skeleton, its bones as nodes below it
//!   (hierarchy from `parentIndices`, each bone's translation, rotation and scale from
//!   `referencePose`, exactly as the file stores them), and a skin of the same name whose joints
//!   are the bones in bone order, with inverse bind matrices of the reference pose in the
//!   skeleton node's space. Bone node extras: `{"bone": index}`; skeleton node extras: the
//!   source and object.
//! - Per animation (`hktypes::anim`: every codec it decodes): one glTF animation with a sampler
//!   per animated bone and property, keyed at every stored frame (times `duration * f /
//!   (frames - 1)`), linear. Tracks go to bones through the binding's
//!   `transformTrackToBoneIndices`. The skeleton is the one the binding names
//!   (`originalSkeletonName`) among all inputs; an animation whose binding names none takes its
//!   own file's only skeleton, else the one skeleton whose bone count equals its track count (the
//!   animation's extras say `"skeleton_matched_by": "track count"`); otherwise the export is
//!   refused with the skeleton's name. Extras: the source, handle, codec, `additive` (the
//!   binding's blend hint: such an animation's values are added to a pose, not the pose),
//!   float tracks (`float_tracks`: per track its value per frame, and the binding's
//!   `float_track_to_slot`), annotations, and how root motion was treated.
//! - Root motion (`hkaDefaultAnimatedReferenceFrame`): translation and rotation channels on the
//!   skeleton's node, so that the whole skeleton moves as in the game; with
//!   [`ExportOptions::root_motion`] false it is left out and the extras say
//!   `"root_motion": "left out"`.
//! - Per placed mesh of [`crate::shape::scene`]: a node with a triangle mesh, parented to its
//!   bone's node where it names one; extras: role, shape class, object, and its numbers.
//!   Constraints are listed in the scene's extras with the nodes of their bodies.
//!
//! # Axes and units
//!
//! Havok fixes no axes: each game chooses its up axis. glTF is Y-up, right-handed, in metres.
//! Values are written in the file's own units (the games use metres, Skyrim uses its own units,
//! about 1.43 cm: scale the export in the viewer if needed). With [`Up::Y`] (Breath of the Wild,
//! Tears of the Kingdom, Dark Souls, Sekiro, Elden Ring) the `Havok` node is the identity; with
//! [`Up::Z`] (Skyrim, Fallout 4) it turns the scene -90° about X, so Havok's +Z is glTF's +Y and
//! Havok's +Y is glTF's -Z. Everything below it (bones, animation values, meshes) is written
//! untouched, so the numbers of the export are the file's.
//!
//! # Shape frames
//!
//! A [`Placed`] mesh's frame is read as model space (the frame the ragdoll or cloth's bodies are
//! in at the reference pose); a mesh that follows a bone is written in that bone's frame
//! (the bone's rigid model-space frame at the reference pose, inverted, times the placed frame),
//! so that it stays where the file puts it at rest and moves with the bone when animated.

pub mod import;

use crate::anim::{self, Animation, BlendHint, Transform};
use crate::dump::Val;
use crate::error::{ErrorKind, Result, ValueError};
use crate::members::ValExt;
use crate::shape::{Placed, Role, Scene};
use crate::{Document, Handle};
use gltf_json as json;
use json::validation::{Checked, USize64};
use json::Index;
use serde_json::{json as js, Value};

/// The up axis of the input files (see the module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Up {
    /// +Y is up (FromSoft games, Breath of the Wild, Tears of the Kingdom): written as is.
    #[default]
    Y,
    /// +Z is up (Skyrim, Fallout 4): the `Havok` root node turns -90° about X.
    Z,
}

/// How [`export`] writes.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportOptions {
    /// The input files' up axis.
    pub up: Up,
    /// Root motion as the skeleton node's track (`true`), or left out with a flag in the
    /// animation's extras.
    pub root_motion: bool,
    /// The meshes of [`crate::shape::scene`] of each input.
    pub shapes: bool,
    /// An animation whose skeleton no input holds gets a placeholder skeleton instead of being
    /// refused: a node named as the skeleton its binding names (else `placeholder for NAME`),
    /// bones `bone 0`, `bone 1`, ... up to the highest bone its tracks drive, flat below it,
    /// at rest at the identity; the node's extras say `"placeholder": true`. [`import`] reads such
    /// an export back onto the same file (its bones matched by index through those names).
    pub placeholder_skeletons: bool,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions { up: Up::Y, root_motion: true, shapes: true, placeholder_skeletons: false }
    }
}

/// An export: the glTF document and its one binary buffer.
#[derive(Clone, Debug)]
pub struct Gltf {
    /// The glTF JSON document. Its one buffer has no `uri` (GLB); [`Gltf::to_gltf`] names one.
    pub root: json::Root,
    /// The buffer's bytes.
    pub bin: Vec<u8>,
}

fn invalid(msg: String) -> ValueError {
    ValueError::new(ErrorKind::Invalid(msg))
}

impl Gltf {
    /// The export as a binary glTF (`.glb`).
    pub fn to_glb(&self) -> Result<Vec<u8>> {
        let text = json::serialize::to_vec(&self.root).map_err(|e| invalid(format!("glTF JSON: {e}")))?;
        let mut bin = self.bin.clone();
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        let json_len = text.len().next_multiple_of(4);
        let length = 12 + 8 + json_len + if bin.is_empty() { 0 } else { 8 + bin.len() };
        let length = u32::try_from(length).map_err(|_| invalid(format!("a GLB holds at most 4 GiB; this export is {length} bytes")))?;
        let glb = gltf::binary::Glb {
            header: gltf::binary::Header { magic: *b"glTF", version: 2, length },
            json: std::borrow::Cow::Owned(text),
            bin: (!bin.is_empty()).then_some(std::borrow::Cow::Owned(bin)),
        };
        glb.to_vec().map_err(|e| invalid(format!("GLB: {e}")).into())
    }

    /// The export as glTF JSON whose buffer is the file `bin_uri` (relative to the JSON file),
    /// and that buffer's bytes.
    pub fn to_gltf(&self, bin_uri: &str) -> Result<(Vec<u8>, Vec<u8>)> {
        let mut root = self.root.clone();
        if let Some(b) = root.buffers.first_mut() {
            b.uri = Some(bin_uri.to_owned());
        }
        let text = json::serialize::to_vec_pretty(&root).map_err(|e| invalid(format!("glTF JSON: {e}")))?;
        Ok((text, self.bin.clone()))
    }
}

/// One input of an export: a document and the name it goes by (its file name: animation names
/// and messages use it).
#[derive(Clone, Copy)]
pub struct Input<'a> {
    /// The name (a file name).
    pub name: &'a str,
    /// The document.
    pub doc: &'a Document,
}

/// The documents `docs` as one binary glTF (named `input0`, `input1`, ... in the export).
/// See [`export_inputs`].
pub fn export(docs: &[&Document], options: &ExportOptions) -> Result<Vec<u8>> {
    let names: Vec<String> = (0..docs.len()).map(|i| format!("input{i}")).collect();
    let inputs: Vec<Input<'_>> = docs.iter().zip(&names).map(|(d, n)| Input { name: n, doc: d }).collect();
    export_inputs(&inputs, options)?.to_glb()
}

impl Document {
    /// This document with `others` (documents that hold the skeletons its animations play on,
    /// or more to put in the same scene) as one binary glTF (`.glb` bytes); the inputs are named
    /// `input0` (this one), `input1`, ... in the export. See [`export_inputs`] to name them.
    pub fn to_gltf(&self, others: &[&Document], options: &ExportOptions) -> Result<Vec<u8>> {
        let mut docs = Vec::with_capacity(1 + others.len());
        docs.push(self);
        docs.extend_from_slice(others);
        export(&docs, options)
    }
}

/// The glTF of `inputs` (see the module documentation). Errors: an input holds nothing to export
/// (no skeleton, animation or shape), an animation's skeleton is not among the inputs (the
/// message names it), a skeleton whose parents loop or lie out of range, data an animation codec
/// refuses (located by object and member).
pub fn export_inputs(inputs: &[Input<'_>], options: &ExportOptions) -> Result<Gltf> {
    let mut b = Builder::new(options);
    for (i, input) in inputs.iter().enumerate() {
        b.add_skeletons(i, input).map_err(|e| e.in_file(input.name))?;
    }
    for (i, input) in inputs.iter().enumerate() {
        let before = b.contributed;
        b.add_animations(i, input).map_err(|e| e.in_file(input.name))?;
        if options.shapes {
            let scene = crate::shape::scene(input.doc).map_err(|e| e.in_file(input.name))?;
            b.add_scene(i, input.name, &scene).map_err(|e| crate::Error::from(e).in_file(input.name))?;
        }
        let own_skeletons = b.skeletons.iter().filter(|s| s.input == i).count();
        if b.contributed == before && own_skeletons == 0 {
            return Err(crate::Error::from(invalid(
                "holds nothing a glTF export takes: no hkaSkeleton, no animation, no shape".to_owned(),
            ))
            .in_file(input.name));
        }
    }
    Ok(b.finish())
}

/// A skeleton as the export reads it.
#[derive(Clone, Debug)]
pub struct SkeletonPose {
    /// The skeleton object.
    pub handle: Handle,
    /// `name`.
    pub name: String,
    /// The bones' names.
    pub bones: Vec<String>,
    /// `parentIndices` (-1 for a root), checked: in range, no loop.
    pub parents: Vec<i32>,
    /// `referencePose` per bone (identity where the file has none).
    pub pose: Vec<Transform>,
}

/// Every `hkaSkeleton` of `doc`, checked: `parentIndices` as long as `bones`, each parent -1 or
/// another bone, no loop; `referencePose` empty or one finite transform per bone.
pub fn skeletons(doc: &Document) -> Result<Vec<SkeletonPose>> {
    let mut out = Vec::new();
    for h in doc.find("hkaSkeleton") {
        let at = format!("object {} (hkaSkeleton)", h.0);
        let ms = doc.members(h)?;
        let text = |v: Option<&Val>| v.and_then(|v| v.as_str()).unwrap_or_default().to_owned();
        let name = text(ms.get("name"));
        let bones: Vec<String> = ms.get("bones").and_then(|v| v.as_list()).unwrap_or_default().iter().map(|b| text(b.field("name"))).collect();
        let n = bones.len();
        let parents: Vec<i32> = ms
            .get("parentIndices")
            .and_then(|v| v.as_list())
            .unwrap_or_default()
            .iter()
            .map(|x| x.as_i64().map_or(i32::MIN, |i| i32::try_from(i).unwrap_or(i32::MIN)))
            .collect();
        if parents.len() != n {
            return Err(invalid(format!("{at}.parentIndices: {} entries for {n} bones", parents.len())).into());
        }
        for (i, &p) in parents.iter().enumerate() {
            if p != -1 && (p < 0 || p as usize >= n || p as usize == i) {
                return Err(invalid(format!("{at}.parentIndices[{i}]: {p} is no other bone of {n} (-1 for a root)")).into());
            }
        }
        // No loop: from any bone, a root within n steps.
        for i in 0..n {
            let (mut b, mut steps) = (i, 0);
            while parents[b] >= 0 {
                b = parents[b] as usize;
                steps += 1;
                if steps > n {
                    return Err(invalid(format!("{at}.parentIndices: bone {i}'s parents loop")).into());
                }
            }
        }
        let reals = ms.get("referencePose").map(|v| v.reals()).unwrap_or_default();
        let pose = if reals.is_empty() {
            vec![anim::IDENTITY; n]
        } else {
            if reals.len() != 12 * n {
                return Err(invalid(format!("{at}.referencePose: {} reals, not 12 for each of {n} bones", reals.len())).into());
            }
            let mut pose = Vec::with_capacity(n);
            for (i, c) in reals.chunks_exact(12).enumerate() {
                let t = [c[0], c[1], c[2], c[4], c[5], c[6], c[7], c[8], c[9], c[10]];
                if t.iter().any(|x| !x.is_finite()) {
                    return Err(invalid(format!("{at}.referencePose[{i}]: not finite ({t:?})")).into());
                }
                pose.push(t);
            }
            pose
        };
        out.push(SkeletonPose { handle: h, name, bones, parents, pose });
    }
    Ok(out)
}

/// The name an export gives animation `h` of the input `input_name` that holds `count`
/// animations: the file's stem, and `#handle` after it when the file holds more than one.
/// [`import`] matches animations by this name.
pub fn animation_name(input_name: &str, h: Handle, count: usize) -> String {
    let base = input_name.rsplit(['/', '\\']).next().unwrap_or(input_name);
    let stem = base.split_once('.').map_or(base, |(s, _)| s);
    let stem = if stem.is_empty() { base } else { stem };
    if count == 1 {
        stem.to_owned()
    } else {
        format!("{stem}#{}", h.0)
    }
}

struct SkelNodes {
    input: usize,
    input_name: String,
    pose: SkeletonPose,
    node: u32,
    bones: Vec<u32>,
    /// Each bone's rigid model-space frame at the reference pose (translation, rotation).
    world: Vec<([f64; 3], [f64; 4])>,
}

struct Builder<'o> {
    options: &'o ExportOptions,
    root: json::Root,
    bin: Vec<u8>,
    skeletons: Vec<SkelNodes>,
    /// Children per node, set on the nodes at the end.
    children: Vec<Vec<u32>>,
    constraints: Vec<Value>,
    /// Animations and meshes added (to tell an input that gave nothing).
    contributed: usize,
}

fn extras(v: Value) -> json::Extras {
    serde_json::value::to_raw_value(&v).ok()
}

fn normalized(q: [f32; 4]) -> Option<[f32; 4]> {
    let len = q.iter().map(|x| f64::from(*x) * f64::from(*x)).sum::<f64>().sqrt();
    (len > 1e-12 && len.is_finite()).then(|| q.map(|x| (f64::from(x) / len) as f32))
}

fn qmul(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

fn qconj(q: [f64; 4]) -> [f64; 4] {
    [-q[0], -q[1], -q[2], q[3]]
}

fn qrot(q: [f64; 4], v: [f64; 3]) -> [f64; 3] {
    let p = qmul(qmul(q, [v[0], v[1], v[2], 0.0]), qconj(q));
    [p[0], p[1], p[2]]
}

fn f64q(q: [f32; 4]) -> [f64; 4] {
    let len = q.iter().map(|x| f64::from(*x) * f64::from(*x)).sum::<f64>().sqrt().max(1e-30);
    q.map(|x| f64::from(x) / len)
}

/// Column-major 4x4 of translation, rotation, scale.
fn trs_matrix(t: [f64; 3], q: [f64; 4], s: [f64; 3]) -> [f64; 16] {
    let [x, y, z, w] = q;
    let r = [
        [1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + z * w), 2.0 * (x * z - y * w)],
        [2.0 * (x * y - z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + x * w)],
        [2.0 * (x * z + y * w), 2.0 * (y * z - x * w), 1.0 - 2.0 * (x * x + y * y)],
    ];
    let mut m = [0.0; 16];
    for c in 0..3 {
        for row in 0..3 {
            m[c * 4 + row] = r[c][row] * s[c];
        }
    }
    m[12] = t[0];
    m[13] = t[1];
    m[14] = t[2];
    m[15] = 1.0;
    m
}

fn mat_mul(a: &[f64; 16], b: &[f64; 16]) -> [f64; 16] {
    let mut m = [0.0; 16];
    for c in 0..4 {
        for r in 0..4 {
            m[c * 4 + r] = (0..4).map(|k| a[k * 4 + r] * b[c * 4 + k]).sum();
        }
    }
    m
}

/// The inverse of an affine column-major matrix, `None` when singular.
fn affine_inverse(m: &[f64; 16]) -> Option<[f64; 16]> {
    let a = |r: usize, c: usize| m[c * 4 + r];
    let det = a(0, 0) * (a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1)) - a(0, 1) * (a(1, 0) * a(2, 2) - a(1, 2) * a(2, 0))
        + a(0, 2) * (a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0));
    if !det.is_finite() || det.abs() < 1e-12 {
        return None;
    }
    let mut inv = [[0.0f64; 3]; 3];
    for r in 0..3 {
        for c in 0..3 {
            let (r1, r2) = ((c + 1) % 3, (c + 2) % 3);
            let (c1, c2) = ((r + 1) % 3, (r + 2) % 3);
            inv[r][c] = (a(r1, c1) * a(r2, c2) - a(r1, c2) * a(r2, c1)) / det;
        }
    }
    let t = [a(0, 3), a(1, 3), a(2, 3)];
    let mut out = [0.0; 16];
    for r in 0..3 {
        for c in 0..3 {
            out[c * 4 + r] = inv[r][c];
        }
        out[12 + r] = -(0..3).map(|k| inv[r][k] * t[k]).sum::<f64>();
    }
    out[15] = 1.0;
    Some(out)
}

impl<'o> Builder<'o> {
    fn new(options: &'o ExportOptions) -> Self {
        let mut root = json::Root::default();
        root.asset.generator = Some(format!("hkgen {}", env!("CARGO_PKG_VERSION")));
        let axes = match options.up {
            Up::Y => None,
            Up::Z => Some(json::scene::UnitQuaternion([-std::f32::consts::FRAC_1_SQRT_2, 0.0, 0.0, std::f32::consts::FRAC_1_SQRT_2])),
        };
        root.nodes.push(json::Node {
            name: Some("Havok".into()),
            rotation: axes,
            extras: extras(js!({ "up": match options.up { Up::Y => "y", Up::Z => "z" } })),
            ..Default::default()
        });
        Builder { options, root, bin: Vec::new(), skeletons: Vec::new(), children: vec![Vec::new()], constraints: Vec::new(), contributed: 0 }
    }

    fn push_node(&mut self, parent: u32, node: json::Node) -> u32 {
        let i = self.root.nodes.len() as u32;
        self.root.nodes.push(node);
        self.children.push(Vec::new());
        self.children[parent as usize].push(i);
        i
    }

    /// Appends `bytes` as a buffer view (4-byte aligned).
    fn view(&mut self, bytes: &[u8], target: Option<json::buffer::Target>) -> Index<json::buffer::View> {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.root.push(json::buffer::View {
            buffer: Index::new(0),
            byte_length: USize64::from(bytes.len()),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: target.map(Checked::Valid),
            extensions: None,
            extras: None,
        })
    }

    /// A float accessor of `count` elements of `kind` over `values` (min and max given when asked).
    fn floats(&mut self, values: &[f32], kind: json::accessor::Type, width: usize, bounds: bool, target: Option<json::buffer::Target>) -> Index<json::Accessor> {
        let bytes: Vec<u8> = values.iter().flat_map(|x| x.to_le_bytes()).collect();
        let count = values.len() / width;
        let view = self.view(&bytes, target);
        let (min, max) = if bounds && count > 0 {
            let mut lo = vec![f32::INFINITY; width];
            let mut hi = vec![f32::NEG_INFINITY; width];
            for c in values.chunks_exact(width) {
                for k in 0..width {
                    lo[k] = lo[k].min(c[k]);
                    hi[k] = hi[k].max(c[k]);
                }
            }
            (Some(js!(lo)), Some(js!(hi)))
        } else {
            (None, None)
        };
        self.root.push(json::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(count),
            component_type: Checked::Valid(json::accessor::GenericComponentType(json::accessor::ComponentType::F32)),
            extensions: None,
            extras: None,
            type_: Checked::Valid(kind),
            min,
            max,
            name: None,
            normalized: false,
            sparse: None,
        })
    }

    fn add_skeletons(&mut self, input: usize, inp: &Input<'_>) -> Result<()> {
        for pose in skeletons(inp.doc)? {
            let ex = js!({ "source": inp.name, "object": pose.handle.0, "class": "hkaSkeleton" });
            self.add_pose(input, inp.name, pose, ex)?;
        }
        Ok(())
    }

    /// A placeholder skeleton for animation `a` of input `input` (see
    /// [`ExportOptions::placeholder_skeletons`]); its index in `self.skeletons`.
    fn add_placeholder(&mut self, input: usize, input_name: &str, a: &Animation, anim_name: &str) -> Result<usize> {
        let n = a.track_to_bone().into_iter().flatten().max().map_or(0, |m| m + 1).max(1);
        if n > 1 << 16 {
            return Err(invalid(format!("animation object {} ({}): its tracks drive bone {}; a placeholder skeleton has at most 65,536", a.handle.0, a.class, n - 1)).into());
        }
        let name = a.binding.as_ref().map(|b| b.skeleton_name.clone()).filter(|s| !s.is_empty()).unwrap_or_else(|| format!("placeholder for {anim_name}"));
        let pose = SkeletonPose {
            handle: a.handle,
            name,
            bones: (0..n).map(|i| format!("bone {i}")).collect(),
            parents: vec![-1; n],
            pose: vec![anim::IDENTITY; n],
        };
        let ex = js!({
            "source": input_name,
            "placeholder": true,
            "note": "no input holds this skeleton: bones named by index, flat, at rest at the identity",
        });
        self.add_pose(input, input_name, pose, ex)?;
        Ok(self.skeletons.len() - 1)
    }

    /// Adds `pose` as a skeleton node (extras `ex`), its bones and skin.
    fn add_pose(&mut self, input: usize, input_name: &str, pose: SkeletonPose, ex: Value) -> Result<()> {
        {
            let at = format!("object {} (hkaSkeleton {:?})", pose.handle.0, pose.name);
            let node = self.push_node(
                0,
                json::Node {
                    name: Some(if pose.name.is_empty() { format!("skeleton {}", pose.handle.0) } else { pose.name.clone() }),
                    extras: extras(ex),
                    ..Default::default()
                },
            );
            let n = pose.bones.len();
            let mut bones = Vec::with_capacity(n);
            // Bones in index order; a bone's node is made before it is attached, so parents that
            // come after their children are fine.
            for (i, name) in pose.bones.iter().enumerate() {
                let t = pose.pose[i];
                let rotation = normalized([t[3], t[4], t[5], t[6]])
                    .ok_or_else(|| invalid(format!("{at}.referencePose[{i}]: rotation {:?} has no direction", &t[3..7])))?;
                let idx = self.root.nodes.len() as u32;
                self.root.nodes.push(json::Node {
                    name: Some(name.clone()),
                    translation: Some([t[0], t[1], t[2]]),
                    rotation: Some(json::scene::UnitQuaternion(rotation)),
                    scale: Some([t[7], t[8], t[9]]),
                    extras: extras(js!({ "bone": i })),
                    ..Default::default()
                });
                self.children.push(Vec::new());
                bones.push(idx);
            }
            for i in 0..n {
                let parent = if pose.parents[i] < 0 { node } else { bones[pose.parents[i] as usize] };
                self.children[parent as usize].push(bones[i]);
            }
            // Model-space frames: full matrices for the inverse bind matrices, rigid frames for
            // meshes that follow a bone.
            let mut mats: Vec<Option<[f64; 16]>> = vec![None; n];
            let mut world: Vec<Option<([f64; 3], [f64; 4])>> = vec![None; n];
            fn solve(i: usize, pose: &SkeletonPose, mats: &mut [Option<[f64; 16]>], world: &mut [Option<([f64; 3], [f64; 4])>]) {
                // Iterative: walk up to the first solved ancestor, then down.
                let mut chain = vec![i];
                let mut b = i;
                while pose.parents[b] >= 0 && mats[pose.parents[b] as usize].is_none() {
                    b = pose.parents[b] as usize;
                    chain.push(b);
                }
                for &k in chain.iter().rev() {
                    let t = pose.pose[k];
                    let q = f64q([t[3], t[4], t[5], t[6]]);
                    let tr = [f64::from(t[0]), f64::from(t[1]), f64::from(t[2])];
                    let local = trs_matrix(tr, q, [f64::from(t[7]), f64::from(t[8]), f64::from(t[9])]);
                    let p = pose.parents[k];
                    if p < 0 {
                        mats[k] = Some(local);
                        world[k] = Some((tr, q));
                    } else {
                        let pm = mats[p as usize].expect("parent solved first");
                        let (pt, pq) = world[p as usize].expect("parent solved first");
                        mats[k] = Some(mat_mul(&pm, &local));
                        let r = qrot(pq, tr);
                        world[k] = Some(([pt[0] + r[0], pt[1] + r[1], pt[2] + r[2]], qmul(pq, q)));
                    }
                }
            }
            for i in 0..n {
                if mats[i].is_none() {
                    solve(i, &pose, &mut mats, &mut world);
                }
            }
            let mut singular = Vec::new();
            let mut ibm = Vec::with_capacity(16 * n);
            for (i, m) in mats.iter().enumerate() {
                let inv = affine_inverse(&m.expect("solved")).unwrap_or_else(|| {
                    singular.push(i);
                    trs_matrix([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3])
                });
                ibm.extend(inv.iter().map(|&x| x as f32));
            }
            if n > 0 {
                let ibm = self.floats(&ibm, json::accessor::Type::Mat4, 16, false, None);
                let skin_extras = if singular.is_empty() {
                    None
                } else {
                    extras(js!({ "singular_bones": singular, "note": "bones whose reference pose has no inverse (a zero scale): identity inverse bind matrices" }))
                };
                let skin = self.root.push(json::Skin {
                    extensions: None,
                    extras: skin_extras,
                    inverse_bind_matrices: Some(ibm),
                    joints: bones.iter().map(|&b| Index::new(b)).collect(),
                    name: self.root.nodes[node as usize].name.clone(),
                    skeleton: Some(Index::new(node)),
                });
                let _ = skin;
            }
            self.skeletons.push(SkelNodes {
                input,
                input_name: input_name.to_owned(),
                pose,
                node,
                bones,
                world: world.into_iter().map(|w| w.expect("solved")).collect(),
            });
        }
        Ok(())
    }

    /// The skeleton (index into `self.skeletons`) animation `a` of input `input` plays on, and
    /// how it was found.
    fn skeleton_for(&self, input: usize, a: &Animation) -> std::result::Result<(usize, &'static str), ValueError> {
        let what = format!("animation object {} ({})", a.handle.0, a.class);
        let named = a.binding.as_ref().map(|b| b.skeleton_name.as_str()).filter(|n| !n.is_empty());
        let held = || {
            if self.skeletons.is_empty() {
                "the inputs hold no skeleton".to_owned()
            } else {
                format!(
                    "the inputs hold {}",
                    self.skeletons
                        .iter()
                        .map(|s| format!("{:?} ({} bones, {})", s.pose.name, s.pose.bones.len(), s.input_name))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        };
        if let Some(name) = named {
            let pick = |exact: bool| {
                let eq = |s: &SkelNodes| if exact { s.pose.name == name } else { s.pose.name.eq_ignore_ascii_case(name) };
                self.skeletons
                    .iter()
                    .position(|s| s.input == input && eq(s))
                    .or_else(|| self.skeletons.iter().position(eq))
            };
            return match pick(true).or_else(|| pick(false)) {
                Some(i) => Ok((i, "binding")),
                None => Err(invalid(format!(
                    "{what} is bound to the skeleton {name:?} (its binding's originalSkeletonName), which no input holds ({}); \
                     give the file with that skeleton too",
                    held()
                ))),
            };
        }
        let own: Vec<usize> = (0..self.skeletons.len()).filter(|&i| self.skeletons[i].input == input).collect();
        if own.len() == 1 {
            return Ok((own[0], "file"));
        }
        let by_count: Vec<usize> = (0..self.skeletons.len()).filter(|&i| self.skeletons[i].pose.bones.len() == a.track_count).collect();
        match by_count.as_slice() {
            [i] => Ok((*i, "track count")),
            [] => Err(invalid(format!(
                "{what} names no skeleton (no binding, or one without originalSkeletonName), and no input's skeleton has its {} tracks as bones \
                 ({}); give its skeleton file too",
                a.track_count,
                held()
            ))),
            many => Err(invalid(format!(
                "{what} names no skeleton, and {} skeletons of the inputs have its {} tracks as bones ({}); export it with one of them only",
                many.len(),
                a.track_count,
                many.iter().map(|&i| format!("{:?} ({})", self.skeletons[i].pose.name, self.skeletons[i].input_name)).collect::<Vec<_>>().join(", ")
            ))),
        }
    }

    fn add_animations(&mut self, input: usize, inp: &Input<'_>) -> Result<()> {
        let handles = anim::handles(inp.doc);
        for &h in &handles {
            let a = Animation::read(inp.doc, h)?;
            let (si, how) = match self.skeleton_for(input, &a) {
                Ok(found) => found,
                Err(_) if self.options.placeholder_skeletons => {
                    (self.add_placeholder(input, inp.name, &a, &animation_name(inp.name, h, handles.len()))?, "placeholder")
                }
                Err(e) => return Err(e.into()),
            };
            let frames = a.frames()?;
            let at = format!("animation object {} ({})", h.0, a.class);
            let skel = &self.skeletons[si];
            let n = frames.frame_count;
            let mut notes: Vec<String> = Vec::new();
            // Track -> bone node, checked.
            let mut targets: Vec<Option<u32>> = Vec::with_capacity(a.track_count);
            let mut taken = vec![false; skel.bones.len()];
            for (t, b) in a.track_to_bone().into_iter().enumerate() {
                match b {
                    None => targets.push(None),
                    Some(b) if b >= skel.bones.len() => {
                        return Err(invalid(format!(
                            "{at}: track {t} drives bone {b}, and the skeleton {:?} has {} bones",
                            skel.pose.name,
                            skel.bones.len()
                        ))
                        .into())
                    }
                    Some(b) if taken[b] => {
                        notes.push(format!("track {t} drives bone {b} again; left out"));
                        targets.push(None);
                    }
                    Some(b) => {
                        taken[b] = true;
                        targets.push(Some(skel.bones[b]));
                    }
                }
            }
            let skel_node = skel.node;
            let skel_name = skel.pose.name.clone();
            let skel_bones = skel.pose.bones.clone();
            let name = animation_name(inp.name, h, handles.len());
            let duration = if a.duration > 0.0 && a.duration.is_finite() { a.duration } else { (n.max(2) - 1) as f32 / 30.0 };
            let time = |f: usize, count: usize| if count > 1 { duration * f as f32 / (count - 1) as f32 } else { 0.0 };
            let mut channels = Vec::new();
            let mut samplers: Vec<json::animation::Sampler> = Vec::new();
            if n > 0 {
                let times: Vec<f32> = (0..n).map(|f| time(f, n)).collect();
                let input_acc = self.floats(&times, json::accessor::Type::Scalar, 1, true, None);
                for (t, node) in targets.iter().enumerate() {
                    let Some(node) = *node else { continue };
                    let mut tr = Vec::with_capacity(3 * n);
                    let mut ro = Vec::with_capacity(4 * n);
                    let mut sc = Vec::with_capacity(3 * n);
                    let mut prev: Option<[f32; 4]> = None;
                    for f in 0..n {
                        let x = frames.transform(f, t).copied().unwrap_or(anim::IDENTITY);
                        if x.iter().any(|v| !v.is_finite()) {
                            return Err(invalid(format!("{at}: frame {f}, track {t} decodes to a value that is not finite ({x:?})")).into());
                        }
                        tr.extend_from_slice(&x[0..3]);
                        let mut q = normalized([x[3], x[4], x[5], x[6]])
                            .ok_or_else(|| invalid(format!("{at}: frame {f}, track {t}: rotation {:?} has no direction", &x[3..7])))?;
                        // The same hemisphere as the frame before, so that interpolation takes the short way.
                        if let Some(p) = prev {
                            if p.iter().zip(&q).map(|(a, b)| a * b).sum::<f32>() < 0.0 {
                                q = q.map(|c| -c);
                            }
                        }
                        prev = Some(q);
                        ro.extend_from_slice(&q);
                        sc.extend_from_slice(&x[7..10]);
                    }
                    for (values, kind, width, path) in [
                        (tr, json::accessor::Type::Vec3, 3, json::animation::Property::Translation),
                        (ro, json::accessor::Type::Vec4, 4, json::animation::Property::Rotation),
                        (sc, json::accessor::Type::Vec3, 3, json::animation::Property::Scale),
                    ] {
                        let output = self.floats(&values, kind, width, false, None);
                        linear_channel(&mut samplers, &mut channels, input_acc, output, node, path);
                    }
                }
            }
            let root_motion = match &a.root_motion {
                None => Value::Null,
                Some(_) if !self.options.root_motion => js!("left out"),
                Some(rm) if rm.samples.is_empty() => js!("empty"),
                Some(rm) => {
                    let m = rm.samples.len();
                    let rd = if rm.duration > 0.0 && rm.duration.is_finite() { rm.duration } else { duration };
                    let times: Vec<f32> = (0..m).map(|i| if m > 1 { rd * i as f32 / (m - 1) as f32 } else { 0.0 }).collect();
                    let axis = f64q([rm.up[0], rm.up[1], rm.up[2], 0.0]);
                    let mut tr = Vec::with_capacity(3 * m);
                    let mut ro = Vec::with_capacity(4 * m);
                    for (i, s) in rm.samples.iter().enumerate() {
                        if s.iter().any(|v| !v.is_finite()) {
                            return Err(invalid(format!(
                                "object {} (hkaDefaultAnimatedReferenceFrame).referenceFrameSamples[{i}]: not finite ({s:?})",
                                rm.handle.0
                            ))
                            .into());
                        }
                        tr.extend_from_slice(&s[0..3]);
                        let half = f64::from(s[3]) / 2.0;
                        let q = if rm.up[..3].iter().all(|&c| c == 0.0) {
                            [0.0, 0.0, 0.0, 1.0]
                        } else {
                            [(axis[0] * half.sin()) as f32, (axis[1] * half.sin()) as f32, (axis[2] * half.sin()) as f32, half.cos() as f32]
                        };
                        ro.extend_from_slice(&q);
                    }
                    let input_acc = self.floats(&times, json::accessor::Type::Scalar, 1, true, None);
                    for (values, kind, width, path) in [
                        (tr, json::accessor::Type::Vec3, 3, json::animation::Property::Translation),
                        (ro, json::accessor::Type::Vec4, 4, json::animation::Property::Rotation),
                    ] {
                        let output = self.floats(&values, kind, width, false, None);
                        linear_channel(&mut samplers, &mut channels, input_acc, output, skel_node, path);
                    }
                    js!("skeleton node track")
                }
            };
            let float_tracks: Vec<Vec<f32>> =
                (0..frames.float_track_count).map(|k| (0..n).map(|f| frames.float(f, k).unwrap_or(0.0)).collect()).collect();
            let annotations: Vec<Value> = a
                .annotations
                .iter()
                .filter(|t| !t.annotations.is_empty())
                .map(|t| js!({ "track": t.name, "annotations": t.annotations.iter().map(|x| js!({ "time": x.time, "text": x.text })).collect::<Vec<_>>() }))
                .collect();
            let additive = a.binding.as_ref().is_some_and(|b| b.blend_hint == BlendHint::Additive);
            let mut ex = js!({
                "source": inp.name,
                "object": h.0,
                "class": a.class,
                "codec": a.codec.name(),
                "duration": a.duration,
                "frame_count": n,
                "skeleton": skel_name,
                "skeleton_matched_by": how,
                "additive": additive,
                "bones": (0..a.track_count).map(|t| a.track_to_bone()[t].and_then(|b| skel_bones.get(b).cloned())).collect::<Vec<_>>(),
            });
            if !root_motion.is_null() {
                ex["root_motion"] = root_motion;
            }
            if !float_tracks.is_empty() {
                ex["float_tracks"] = js!(float_tracks);
                ex["float_track_to_slot"] = js!(a.binding.as_ref().map(|b| b.float_track_to_slot.clone()).unwrap_or_default());
            }
            if !annotations.is_empty() {
                ex["annotations"] = js!(annotations);
            }
            if !notes.is_empty() {
                ex["notes"] = js!(notes);
            }
            if channels.is_empty() {
                // glTF requires at least one channel: an animation of no frame or no bound track is
                // kept in the scene's extras instead.
                let scene_note = js!({ "animation": name, "extras": ex, "note": "no channel: no frame or no track bound to a bone" });
                self.constraints.push(js!({ "unplayable_animation": scene_note }));
            } else {
                self.root.push(json::Animation { extensions: None, extras: extras(ex), channels, name: Some(name), samplers });
            }
            self.contributed += 1;
        }
        Ok(())
    }

    /// Adds every placed mesh of `scene` (from input `input`, named `input_name`) as a node with
    /// a mesh, and its constraints to the scene's extras.
    fn add_scene(&mut self, input: usize, input_name: &str, scene: &Scene) -> std::result::Result<(), ValueError> {
        let mut nodes = Vec::with_capacity(scene.meshes.len());
        for (k, p) in scene.meshes.iter().enumerate() {
            nodes.push(self.add_placed(input, input_name, k, p)?);
            self.contributed += 1;
        }
        for (k, c) in scene.constraints.iter().enumerate() {
            let node = |i: usize| {
                nodes.get(i).copied().ok_or_else(|| invalid(format!("constraint {k} ({:?}): body {i} is not among the {} meshes", c.name, nodes.len())))
            };
            let (a, b) = (node(c.body_a)?, node(c.body_b)?);
            self.constraints.push(js!({
                "source": input_name,
                "name": c.name,
                "class": c.class,
                "body_a": a,
                "body_b": b,
                "body_a_name": scene.meshes[c.body_a].name,
                "body_b_name": scene.meshes[c.body_b].name,
                "pivot_a": c.pivot_a,
                "pivot_b": c.pivot_b,
            }));
        }
        Ok(())
    }

    fn add_placed(&mut self, input: usize, input_name: &str, k: usize, p: &Placed) -> std::result::Result<u32, ValueError> {
        let at = format!("placed mesh {k} ({:?}, {})", p.name, p.shape_class);
        let n = p.mesh.positions.len();
        if p.mesh.positions.iter().flatten().chain(&p.translation).chain(&p.rotation).any(|x| !x.is_finite()) {
            return Err(invalid(format!("{at}: a position or its frame is not finite")));
        }
        for (i, t) in p.mesh.triangles.iter().enumerate() {
            if let Some(&v) = t.iter().find(|&&v| v as usize >= n) {
                return Err(invalid(format!("{at}: triangle {i} names vertex {v} of {n}")));
            }
        }
        let rot = normalized(p.rotation).ok_or_else(|| invalid(format!("{at}: rotation {:?} has no direction", p.rotation)))?;
        // The parent: the bone's node (a skeleton of the same input first), else the root.
        let bone = p.bone.as_deref().and_then(|name| {
            let find = |same: bool| {
                self.skeletons.iter().filter(|s| !same || s.input == input).find_map(|s| s.pose.bones.iter().position(|b| b == name).map(|b| (s, b)))
            };
            find(true).or_else(|| find(false))
        });
        let (parent, translation, rotation) = match bone {
            Some((s, b)) => {
                let (bt, bq) = s.world[b];
                let inv = qconj(bq);
                let d = [f64::from(p.translation[0]) - bt[0], f64::from(p.translation[1]) - bt[1], f64::from(p.translation[2]) - bt[2]];
                let lt = qrot(inv, d);
                let lq = qmul(inv, f64q(rot));
                (s.bones[b], lt.map(|x| x as f32), normalized(lq.map(|x| x as f32)).unwrap_or([0.0, 0.0, 0.0, 1.0]))
            }
            None => (0, p.translation, rot),
        };
        let mesh = if p.mesh.triangles.is_empty() || n == 0 {
            None
        } else {
            let flat: Vec<f32> = p.mesh.positions.iter().flatten().copied().collect();
            let pos = self.floats(&flat, json::accessor::Type::Vec3, 3, true, Some(json::buffer::Target::ArrayBuffer));
            let idx: Vec<u8> = p.mesh.triangles.iter().flatten().flat_map(|v| v.to_le_bytes()).collect();
            let view = self.view(&idx, Some(json::buffer::Target::ElementArrayBuffer));
            let indices = self.root.push(json::Accessor {
                buffer_view: Some(view),
                byte_offset: None,
                count: USize64::from(3 * p.mesh.triangles.len()),
                component_type: Checked::Valid(json::accessor::GenericComponentType(json::accessor::ComponentType::U32)),
                extensions: None,
                extras: None,
                type_: Checked::Valid(json::accessor::Type::Scalar),
                min: None,
                max: None,
                name: None,
                normalized: false,
                sparse: None,
            });
            let mut attributes = std::collections::BTreeMap::new();
            attributes.insert(Checked::Valid(json::mesh::Semantic::Positions), pos);
            Some(self.root.push(json::Mesh {
                extensions: None,
                extras: None,
                name: Some(p.name.clone()),
                primitives: vec![json::mesh::Primitive {
                    attributes,
                    extensions: None,
                    extras: None,
                    indices: Some(indices),
                    material: None,
                    mode: Checked::Valid(json::mesh::Mode::Triangles),
                    targets: None,
                }],
                weights: None,
            }))
        };
        let numbers: serde_json::Map<String, Value> = p.extras.iter().map(|(k, v)| (k.clone(), js!(v))).collect();
        let role = match p.role {
            Role::Collision => "collision",
            Role::RagdollBody => "ragdoll body",
            Role::ClothSim => "cloth sim",
            Role::ClothCollidable => "cloth collidable",
        };
        Ok(self.push_node(
            parent,
            json::Node {
                name: Some(p.name.clone()),
                translation: Some(translation),
                rotation: Some(json::scene::UnitQuaternion(rotation)),
                mesh,
                extras: extras(js!({
                    "source": input_name,
                    "role": role,
                    "shape_class": p.shape_class,
                    "object": p.object.0,
                    "bone": p.bone,
                    "triangles": p.mesh.triangles.len(),
                    "extras": numbers,
                })),
                ..Default::default()
            },
        ))
    }

    fn finish(mut self) -> Gltf {
        for (i, c) in std::mem::take(&mut self.children).into_iter().enumerate() {
            if !c.is_empty() {
                self.root.nodes[i].children = Some(c.into_iter().map(Index::new).collect());
            }
        }
        let scene_extras = if self.constraints.is_empty() {
            None
        } else {
            let (unplayable, constraints): (Vec<Value>, Vec<Value>) = self.constraints.into_iter().partition(|v| v.get("unplayable_animation").is_some());
            let mut e = js!({});
            if !constraints.is_empty() {
                e["constraints"] = js!(constraints);
            }
            if !unplayable.is_empty() {
                e["animations_without_channels"] = js!(unplayable.into_iter().map(|v| v["unplayable_animation"].clone()).collect::<Vec<_>>());
            }
            extras(e)
        };
        self.root.push(json::Scene { extensions: None, extras: scene_extras, name: Some("Havok".into()), nodes: vec![Index::new(0)] });
        self.root.scene = Some(Index::new(0));
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        if !self.bin.is_empty() {
            self.root.push(json::Buffer { byte_length: USize64::from(self.bin.len()), name: None, uri: None, extensions: None, extras: None });
        }
        Gltf { root: self.root, bin: self.bin }
    }
}

/// The glTF of one hand-made [`Scene`] (no document): the placed meshes and constraints as an
/// export of shapes writes them. For tests and for tools that build scenes themselves.
pub fn export_scene(name: &str, scene: &Scene, options: &ExportOptions) -> Result<Gltf> {
    let mut b = Builder::new(options);
    b.add_scene(0, name, scene)?;
    Ok(b.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::Mesh;

    #[test]
    fn the_inverse_of_a_bone_chain_undoes_it() {
        let q = f64q([0.1, 0.7, -0.2, 0.6]);
        let a = trs_matrix([1.0, 2.0, 3.0], q, [1.0, 2.0, 0.5]);
        let b = trs_matrix([0.5, -1.0, 0.0], f64q([0.0, 0.0, 0.38, 0.92]), [1.0; 3]);
        let m = mat_mul(&a, &b);
        let i = affine_inverse(&m).unwrap();
        let id = mat_mul(&m, &i);
        for c in 0..4 {
            for r in 0..4 {
                assert!((id[c * 4 + r] - if c == r { 1.0 } else { 0.0 }).abs() < 1e-9, "{id:?}");
            }
        }
        assert!(affine_inverse(&trs_matrix([0.0; 3], q, [1.0, 0.0, 1.0])).is_none());
    }

    #[test]
    fn a_placed_mesh_on_a_bone_keeps_its_model_space_frame() {
        // A mesh placed at (1, 2, 3) rotated 90 degrees about Z, on a bone at (1, 0, 0) turned
        // 90 degrees about Z: in the bone's frame it sits at (2, 0, 3)... rotated back, unturned.
        let options = ExportOptions::default();
        let mut b = Builder::new(&options);
        let s = std::f32::consts::FRAC_1_SQRT_2;
        let pose = SkeletonPose {
            handle: Handle(1),
            name: "s".into(),
            bones: vec!["root".into()],
            parents: vec![-1],
            pose: vec![[1.0, 0.0, 0.0, 0.0, 0.0, s, s, 1.0, 1.0, 1.0]],
        };
        b.skeletons.push(SkelNodes { input: 0, input_name: "f".into(), pose, node: 0, bones: vec![0], world: vec![([1.0, 0.0, 0.0], f64q([0.0, 0.0, s, s]))] });
        let p = Placed {
            name: "m".into(),
            role: Role::RagdollBody,
            object: Handle(2),
            shape_class: "hkpSphereShape".into(),
            translation: [1.0, 2.0, 3.0],
            rotation: [0.0, 0.0, s, s],
            bone: Some("root".into()),
            mesh: Mesh { positions: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], triangles: vec![[0, 1, 2]] },
            extras: vec![],
        };
        let n = b.add_placed(0, "f", 0, &p).unwrap() as usize;
        let node = &b.root.nodes[n];
        let t = node.translation.unwrap();
        assert!((t[0] - 2.0).abs() < 1e-6 && t[1].abs() < 1e-6 && (t[2] - 3.0).abs() < 1e-6, "{t:?}");
        let r = node.rotation.as_ref().unwrap().0;
        assert!((r[3].abs() - 1.0).abs() < 1e-6, "{r:?}");
        assert_eq!(b.children[0], vec![n as u32]);
    }

    #[test]
    fn an_empty_export_still_is_a_scene_with_the_axes_node() {
        let g = export_scene("none", &Scene::default(), &ExportOptions { up: Up::Z, ..ExportOptions::default() }).unwrap();
        assert_eq!(g.root.nodes.len(), 1);
        assert!(g.root.buffers.is_empty());
        let glb = g.to_glb().unwrap();
        assert_eq!(&glb[..4], b"glTF");
        assert_eq!(u32::from_le_bytes(glb[8..12].try_into().unwrap()) as usize, glb.len());
    }
}

/// Adds a linearly interpolated sampler (times `input`, values `output`) and the channel that
/// drives `path` of node `node` with it.
fn linear_channel(
    samplers: &mut Vec<json::animation::Sampler>,
    channels: &mut Vec<json::animation::Channel>,
    input: Index<json::Accessor>,
    output: Index<json::Accessor>,
    node: u32,
    path: json::animation::Property,
) {
    let sampler = Index::new(samplers.len() as u32);
    samplers.push(json::animation::Sampler {
        extensions: None,
        extras: None,
        input,
        interpolation: Checked::Valid(json::animation::Interpolation::Linear),
        output,
    });
    channels.push(json::animation::Channel {
        sampler,
        target: json::animation::Target { extensions: None, extras: None, node: Index::new(node), path: Checked::Valid(path) },
        extensions: None,
        extras: None,
    });
}
