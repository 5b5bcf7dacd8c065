//! Edited animations back into a Havok file: a glTF's animations resampled at the file's frame
//! rate and encoded over the file's animations ([`import_animations`]).
//!
//! Matching:
//! - Animations: the glTF animation named as the export names the file's animation
//!   ([`super::animation_name`] of the file name), or with [`ImportOptions::animation`] that one
//!   animation of the file; where the file has one animation (or one is chosen) and the glTF has
//!   one, they go together whatever their names.
//! - Bones: each transform track's bone (through the binding) by name against the glTF's nodes:
//!   the joints of the skin named as the skeleton (the file's own skeleton, else its binding's
//!   `originalSkeletonName`), else any node. The bone names come from the file's skeleton, or,
//!   for an animation file that holds none, from that skin's joints by bone index (as the export
//!   wrote them). A bone the glTF lacks, or an animated joint the file's skeleton lacks, is an
//!   error naming them.
//! - Values: a bone property the glTF animation does not animate takes the node's own value (as
//!   glTF defines it). `LINEAR` (rotations by slerp), `STEP` and `CUBICSPLINE` samplers are
//!   evaluated at the frame times `duration * f / (frames - 1)`, the file's frame spacing kept;
//!   a longer or shorter glTF animation gives more or fewer frames. Float tracks come from the
//!   animation's `float_tracks` extras where they fit, else stay the file's (held at the last
//!   frame when the animation grows).
//!
//! Root motion (`hkaDefaultAnimatedReferenceFrame`) is left as the file has it.

use crate::anim::{self, Animation, Codec, EncodeOptions, Frames, Transform};
use crate::error::{ErrorKind, Result, ValueError};
use crate::{Document, Handle, OpenOptions};
use gltf::animation::util::ReadOutputs;
use gltf::animation::{Interpolation, Property};
use std::collections::HashMap;
use std::path::Path;

fn invalid(msg: String) -> ValueError {
    ValueError::new(ErrorKind::Invalid(msg))
}

/// A glTF file read for import: its nodes, skins and animations' keyframes.
#[derive(Clone, Debug, Default)]
pub struct GltfAnimations {
    /// Node names and rest transforms (translation, rotation xyzw, scale), by node index.
    pub nodes: Vec<(String, Transform)>,
    /// Each node's parent node (`None` for a scene root).
    pub parents: Vec<Option<usize>>,
    /// Skins: name and joint node indices.
    pub skins: Vec<(String, Vec<usize>)>,
    /// The animations.
    pub animations: Vec<GltfAnimation>,
}

/// One glTF animation's channels.
#[derive(Clone, Debug, Default)]
pub struct GltfAnimation {
    /// Its name (empty where it has none).
    pub name: String,
    /// The channels.
    pub channels: Vec<Channel>,
    /// `float_tracks` of its extras (as the export writes them), per track its values per frame.
    pub float_tracks: Option<Vec<Vec<f32>>>,
    /// Its extras as JSON text (empty where it has none).
    pub extras: String,
}

/// One channel: a node's translation, rotation or scale over time.
#[derive(Clone, Debug)]
pub struct Channel {
    /// The node.
    pub node: usize,
    /// 0 translation, 1 rotation, 2 scale.
    pub path: usize,
    /// `LINEAR`, `STEP` or `CUBICSPLINE`.
    pub interpolation: Interpolation,
    /// Key times, seconds.
    pub times: Vec<f32>,
    /// Values (xyz or xyzw); for `CUBICSPLINE` in-tangent, value, out-tangent per key.
    pub values: Vec<[f32; 4]>,
}

impl GltfAnimations {
    /// Reads a `.glb`, or a `.gltf` whose buffers are files beside it in `base` (a `data:` URI
    /// is refused). Errors: not glTF, a buffer missing or short, an accessor that does not read.
    pub fn read(bytes: &[u8], base: Option<&Path>) -> Result<GltfAnimations> {
        let g = gltf::Gltf::from_slice(bytes).map_err(|e| invalid(format!("not a glTF file this reads: {e}")))?;
        // The gltf crate's validation leaves channel targets unchecked (and its reader unwraps
        // them): a target past the nodes is refused here.
        let node_count = g.as_json().nodes.len();
        for (ai, a) in g.as_json().animations.iter().enumerate() {
            for (ci, c) in a.channels.iter().enumerate() {
                if c.target.node.value() >= node_count {
                    return Err(invalid(format!("animation {ai}, channel {ci}: its target is node {}, of {node_count} nodes", c.target.node.value())).into());
                }
            }
        }
        let mut buffers: Vec<Vec<u8>> = Vec::new();
        for b in g.buffers() {
            let data = match b.source() {
                gltf::buffer::Source::Bin => g.blob.clone().ok_or_else(|| invalid("buffer 0 is the GLB's binary chunk, which the file lacks".into()))?,
                gltf::buffer::Source::Uri(uri) if uri.starts_with("data:") => {
                    return Err(invalid(format!("buffer {}: data: URIs are not read; export the glTF as .glb or with a separate .bin", b.index())).into())
                }
                gltf::buffer::Source::Uri(uri) => {
                    let dir = base.ok_or_else(|| invalid(format!("buffer {} is the file {uri:?}, and no folder to find it in was given", b.index())))?;
                    let path = dir.join(uri.replace("%20", " "));
                    std::fs::read(&path).map_err(|e| invalid(format!("buffer {}: cannot read {}: {e}", b.index(), path.display())))?
                }
            };
            if data.len() < b.length() {
                return Err(invalid(format!("buffer {}: {} bytes, the glTF states {}", b.index(), data.len(), b.length())).into());
            }
            buffers.push(data);
        }
        let get = |b: gltf::Buffer<'_>| buffers.get(b.index()).map(Vec::as_slice);
        let nodes = g
            .nodes()
            .map(|n| {
                let (t, r, s) = n.transform().decomposed();
                (n.name().unwrap_or_default().to_owned(), [t[0], t[1], t[2], r[0], r[1], r[2], r[3], s[0], s[1], s[2]])
            })
            .collect();
        let mut parents = vec![None; g.nodes().len()];
        for n in g.nodes() {
            for c in n.children() {
                if let Some(p) = parents.get_mut(c.index()) {
                    *p = Some(n.index());
                }
            }
        }
        let skins = g.skins().map(|s| (s.name().unwrap_or_default().to_owned(), s.joints().map(|j| j.index()).collect())).collect();
        let mut animations = Vec::new();
        for a in g.animations() {
            let mut channels = Vec::new();
            for c in a.channels() {
                let path = match c.target().property() {
                    Property::Translation => 0,
                    Property::Rotation => 1,
                    Property::Scale => 2,
                    Property::MorphTargetWeights => continue,
                };
                let r = c.reader(get);
                let at = || format!("animation {} ({:?}), channel {}", a.index(), a.name().unwrap_or_default(), c.index());
                let times: Vec<f32> = r.read_inputs().ok_or_else(|| invalid(format!("{}: its key times do not read", at())))?.collect();
                let values: Vec<[f32; 4]> = match r.read_outputs().ok_or_else(|| invalid(format!("{}: its values do not read", at())))? {
                    ReadOutputs::Translations(v) | ReadOutputs::Scales(v) => v.map(|x| [x[0], x[1], x[2], 0.0]).collect(),
                    ReadOutputs::Rotations(v) => v.into_f32().collect(),
                    ReadOutputs::MorphTargetWeights(_) => continue,
                };
                let interpolation = c.sampler().interpolation();
                let per_key = if interpolation == Interpolation::CubicSpline { 3 } else { 1 };
                if times.is_empty() || values.len() != per_key * times.len() {
                    return Err(invalid(format!("{}: {} keys and {} values", at(), times.len(), values.len())).into());
                }
                if times.iter().any(|t| !t.is_finite()) || times.windows(2).any(|w| w[1] < w[0]) || values.iter().flatten().any(|x| !x.is_finite()) {
                    return Err(invalid(format!("{}: key times that are not finite and increasing, or values not finite", at())).into());
                }
                channels.push(Channel { node: c.target().node().index(), path, interpolation, times, values });
            }
            let extras = a.extras().as_ref().map(|raw| raw.get().to_owned()).unwrap_or_default();
            let float_tracks = serde_json::from_str::<serde_json::Value>(&extras)
                .ok()
                .and_then(|v| serde_json::from_value::<Vec<Vec<f32>>>(v.get("float_tracks")?.clone()).ok());
            animations.push(GltfAnimation { name: a.name().unwrap_or_default().to_owned(), channels, float_tracks, extras });
        }
        Ok(GltfAnimations { nodes, parents, skins, animations })
    }
}

/// How [`import_animations`] encodes.
#[derive(Clone, Debug, Default)]
pub struct ImportOptions {
    /// Only this animation of the file (else every animation a glTF animation matches).
    pub animation: Option<Handle>,
    /// The codec and its tolerances; the codec must be each animation's own (`None`: each
    /// animation's own codec, at `encode`'s tolerances).
    pub codec: Option<Codec>,
    /// Tolerances and rotation quantization of the spline encoder.
    pub encode: EncodeOptions,
}

/// What [`import_animations`] did to one animation.
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    /// The animation's handle after the import.
    pub handle: Handle,
    /// The glTF animation's name.
    pub from: String,
    /// Frames written.
    pub frames: usize,
    /// Tracks written.
    pub tracks: usize,
    /// The codec written.
    pub codec: String,
}

fn lerp4(a: [f32; 4], b: [f32; 4], d: f32) -> [f32; 4] {
    [0, 1, 2, 3].map(|k| a[k] + (b[k] - a[k]) * d)
}

fn slerp(a: [f32; 4], b: [f32; 4], d: f32) -> [f32; 4] {
    let a = a.map(f64::from);
    let mut b = b.map(f64::from);
    let mut dot: f64 = (0..4).map(|k| a[k] * b[k]).sum();
    if dot < 0.0 {
        b = b.map(|x| -x);
        dot = -dot;
    }
    let d = f64::from(d);
    let (wa, wb) = if dot > 0.9995 {
        (1.0 - d, d)
    } else {
        let th = dot.min(1.0).acos();
        let s = th.sin();
        (((1.0 - d) * th).sin() / s, (d * th).sin() / s)
    };
    let q: [f64; 4] = [0, 1, 2, 3].map(|k| wa * a[k] + wb * b[k]);
    let len = q.iter().map(|x| x * x).sum::<f64>().sqrt().max(1e-30);
    q.map(|x| (x / len) as f32)
}

impl Channel {
    /// The channel's value at `t` (held before the first key and after the last).
    pub fn at(&self, t: f32) -> [f32; 4] {
        let n = self.times.len();
        let cubic = self.interpolation == Interpolation::CubicSpline;
        let value = |k: usize| if cubic { self.values[3 * k + 1] } else { self.values[k] };
        if t <= self.times[0] || n == 1 {
            return value(0);
        }
        if t >= self.times[n - 1] {
            return value(n - 1);
        }
        // The last key at or before t.
        let k = self.times.partition_point(|&x| x <= t) - 1;
        let (t0, t1) = (self.times[k], self.times[k + 1]);
        let dt = t1 - t0;
        let d = if dt > 0.0 { (t - t0) / dt } else { 0.0 };
        let mut v = match self.interpolation {
            Interpolation::Step => value(k),
            Interpolation::Linear if self.path == 1 => return slerp(value(k), value(k + 1), d),
            Interpolation::Linear => lerp4(value(k), value(k + 1), d),
            Interpolation::CubicSpline => {
                let (p0, m0) = (self.values[3 * k + 1], self.values[3 * k + 2]);
                let (p1, m1) = (self.values[3 * (k + 1) + 1], self.values[3 * (k + 1)]);
                let (d2, d3) = (d * d, d * d * d);
                let (h00, h10, h01, h11) = (2.0 * d3 - 3.0 * d2 + 1.0, d3 - 2.0 * d2 + d, -2.0 * d3 + 3.0 * d2, d3 - d2);
                [0, 1, 2, 3].map(|c| h00 * p0[c] + h10 * dt * m0[c] + h01 * p1[c] + h11 * dt * m1[c])
            }
        };
        if self.path == 1 {
            let len = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            if len > 0.0 {
                v = v.map(|x| x / len);
            }
        }
        v
    }
}

fn list(names: &[String]) -> String {
    let shown: Vec<&str> = names.iter().take(12).map(String::as_str).collect();
    let more = names.len().saturating_sub(shown.len());
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// The frames animation `a` gets from glTF animation `g` of `file` (see the module
/// documentation). `skin_bones`: the bone names where the file holds no skeleton.
pub fn frames_for(a: &Animation, g: &GltfAnimation, file: &GltfAnimations) -> std::result::Result<Frames, ValueError> {
    let at = format!("animation object {} ({})", a.handle.0, a.class);
    let skeleton_name = a
        .skeleton
        .as_ref()
        .map(|s| s.name.clone())
        .filter(|n| !n.is_empty())
        .or_else(|| a.binding.as_ref().map(|b| b.skeleton_name.clone()).filter(|n| !n.is_empty()));
    let skin = match &skeleton_name {
        Some(n) => file.skins.iter().find(|(s, _)| s == n).or_else(|| file.skins.iter().find(|(s, _)| s.eq_ignore_ascii_case(n))),
        None if file.skins.len() == 1 => file.skins.first(),
        None => None,
    };
    // Bone names per bone index.
    let bone_names: Vec<String> = match (&a.skeleton, skin) {
        (Some(s), _) => s.bones.clone(),
        (None, Some((_, joints))) => joints.iter().map(|&j| file.nodes.get(j).map(|n| n.0.clone()).unwrap_or_default()).collect(),
        (None, None) => {
            return Err(invalid(format!(
                "{at}: the file holds no skeleton, and the glTF has no skin named {} to give its bones' names (it has {})",
                skeleton_name.as_deref().map_or("as its skeleton".to_owned(), |n| format!("{n:?}")),
                if file.skins.is_empty() { "none".to_owned() } else { list(&file.skins.iter().map(|s| format!("{:?}", s.0)).collect::<Vec<_>>()) }
            )))
        }
    };
    // Candidate nodes: the skin's joints, else all.
    let candidates: Vec<usize> = match skin {
        Some((_, joints)) => joints.clone(),
        None => (0..file.nodes.len()).collect(),
    };
    let mut by_name: HashMap<&str, Option<usize>> = HashMap::new();
    for &n in &candidates {
        if let Some((name, _)) = file.nodes.get(n) {
            by_name.entry(name.as_str()).and_modify(|e| *e = None).or_insert(Some(n));
        }
    }
    let track_bones = a.track_to_bone();
    let mut nodes: Vec<Option<usize>> = Vec::with_capacity(a.track_count);
    let mut missing = Vec::new();
    let mut ambiguous = Vec::new();
    for (t, b) in track_bones.iter().enumerate() {
        let Some(b) = *b else {
            nodes.push(None);
            continue;
        };
        let name = bone_names.get(b).ok_or_else(|| invalid(format!("{at}: track {t} drives bone {b}, and the skeleton has {} bones", bone_names.len())))?;
        match by_name.get(name.as_str()) {
            Some(Some(n)) => nodes.push(Some(*n)),
            Some(None) => {
                ambiguous.push(name.clone());
                nodes.push(None);
            }
            None => {
                missing.push(name.clone());
                nodes.push(None);
            }
        }
    }
    if !missing.is_empty() || !ambiguous.is_empty() {
        let mut msg = format!("{at}: the bones of its tracks do not match the glTF's nodes");
        if !missing.is_empty() {
            msg.push_str(&format!("; no node for {} bone(s): {}", missing.len(), list(&missing)));
        }
        if !ambiguous.is_empty() {
            msg.push_str(&format!("; more than one node named {}", list(&ambiguous)));
        }
        return Err(invalid(msg));
    }
    // Animated joints that are no bone of the file's skeleton.
    if let (Some(s), Some((_, joints))) = (&a.skeleton, skin) {
        let known: std::collections::HashSet<&str> = s.bones.iter().map(String::as_str).collect();
        let mut strange: Vec<String> = g
            .channels
            .iter()
            .filter(|c| joints.contains(&c.node))
            .map(|c| file.nodes[c.node].0.clone())
            .filter(|n| !known.contains(n.as_str()))
            .collect();
        strange.sort();
        strange.dedup();
        if !strange.is_empty() {
            return Err(invalid(format!(
                "{at}: the glTF animation {:?} animates {} joint(s) the skeleton {:?} lacks: {}",
                g.name,
                strange.len(),
                s.name,
                list(&strange)
            )));
        }
    }
    // The channels of each node.
    let mut chan: HashMap<(usize, usize), &Channel> = HashMap::new();
    for c in &g.channels {
        chan.insert((c.node, c.path), c);
    }
    let used: std::collections::HashSet<usize> = nodes.iter().flatten().copied().collect();
    let end = g.channels.iter().filter(|c| used.contains(&c.node)).filter_map(|c| c.times.last().copied()).fold(0f32, f32::max);
    // The file's frame spacing.
    let spacing = if a.frame_count > 1 && a.duration > 0.0 {
        a.duration / (a.frame_count - 1) as f32
    } else {
        a.members().get("frameDuration").and_then(crate::members::ValExt::as_f64).map_or(1.0 / 30.0, |x| x as f32)
    };
    let spacing = if spacing > 0.0 && spacing.is_finite() { spacing } else { 1.0 / 30.0 };
    let steps = (end / spacing).round();
    if !(0.0..=1_000_000.0).contains(&steps) {
        return Err(invalid(format!("{at}: the glTF animation {:?} lasts {end} s, {steps} frames at the file's rate", g.name)));
    }
    let n = steps as usize + 1;
    // The decoders' bound on frames times tracks: a short glTF must not ask for gigabytes.
    let per_frame = a.track_count.saturating_add(a.float_track_count).max(1);
    if n.checked_mul(per_frame).is_none_or(|v| v > anim::delta::MAX_DECODED) {
        return Err(invalid(format!(
            "{at}: the glTF animation {:?} lasts {end} s, {n} frames at the file's {spacing} s of {per_frame} tracks: more than {} values",
            g.name,
            anim::delta::MAX_DECODED
        )));
    }
    let duration = if n == a.frame_count { a.duration } else { spacing * (n - 1) as f32 };
    let time = |f: usize| if n > 1 { duration * f as f32 / (n - 1) as f32 } else { 0.0 };
    let mut transforms = Vec::with_capacity(n * a.track_count);
    for f in 0..n {
        let t = time(f);
        for node in &nodes {
            let Some(node) = *node else {
                transforms.push(anim::IDENTITY);
                continue;
            };
            let rest = file.nodes[node].1;
            let mut x: Transform = rest;
            if let Some(c) = chan.get(&(node, 0)) {
                let v = c.at(t);
                x[0..3].copy_from_slice(&v[0..3]);
            }
            if let Some(c) = chan.get(&(node, 1)) {
                x[3..7].copy_from_slice(&c.at(t));
            }
            if let Some(c) = chan.get(&(node, 2)) {
                let v = c.at(t);
                x[7..10].copy_from_slice(&v[0..3]);
            }
            transforms.push(x);
        }
    }
    // Float tracks: the glTF's where they fit, else the file's.
    let k = a.float_track_count;
    let floats = match &g.float_tracks {
        Some(ft) if ft.len() == k && ft.iter().all(|v| v.len() == n) => (0..n).flat_map(|f| ft.iter().map(move |v| v[f])).collect(),
        _ if k == 0 => Vec::new(),
        _ => {
            let old = a.frames().map_err(|e| invalid(format!("{at}: its float tracks do not decode: {e}")))?;
            let last = old.frame_count.saturating_sub(1);
            (0..n).flat_map(|f| (0..k).map(move |j| (f, j))).map(|(f, j)| old.float(f.min(last), j).unwrap_or(0.0)).collect()
        }
    };
    Ok(Frames { frame_count: n, track_count: a.track_count, transforms, float_track_count: k, floats })
}

/// Replaces animations of `doc` (named `file_name`, as the export named it) by those of the glTF
/// `gltf` (see the module documentation), and reads the document back with `open` (the
/// classes and compendia it was opened with). Errors: no animation matched, a bone mismatch, a
/// codec other than the animation's own, an encoding outside its tolerances; the document is
/// unchanged by the animation that failed (those before it are replaced).
pub fn import_animations(doc: &mut Document, file_name: &str, gltf: &GltfAnimations, options: &ImportOptions, open: &OpenOptions<'_>) -> Result<Vec<Imported>> {
    let handles = anim::handles(doc);
    let targets: Vec<usize> = match options.animation {
        Some(h) => vec![handles.iter().position(|&x| x == h).ok_or_else(|| {
            invalid(format!("--animation {}: the file's animations are {}", h.0, handles.iter().map(|h| h.0.to_string()).collect::<Vec<_>>().join(", ")))
        })?],
        None => (0..handles.len()).collect(),
    };
    if targets.is_empty() {
        return Err(invalid("the file holds no animation to replace".into()).into());
    }
    let names: Vec<String> = gltf.animations.iter().map(|g| g.name.clone()).collect();
    let mut plan = Vec::new();
    for &i in &targets {
        let want = super::animation_name(file_name, handles[i], handles.len());
        let g = gltf.animations.iter().position(|g| g.name == want).or_else(|| (targets.len() == 1 && gltf.animations.len() == 1).then_some(0));
        match g {
            Some(g) => plan.push((i, g)),
            None if options.animation.is_some() || targets.len() == 1 => {
                return Err(invalid(format!(
                    "no glTF animation is named {want:?} (the file's animation {}); the glTF has {}",
                    handles[i].0,
                    if names.is_empty() { "none".to_owned() } else { list(&names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>()) }
                ))
                .into())
            }
            None => {}
        }
    }
    if plan.is_empty() {
        return Err(invalid(format!(
            "no glTF animation is named as one of the file's ({}); the glTF has {}",
            targets.iter().map(|&i| format!("{:?}", super::animation_name(file_name, handles[i], handles.len()))).collect::<Vec<_>>().join(", "),
            if names.is_empty() { "none".to_owned() } else { list(&names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>()) }
        ))
        .into());
    }
    let mut out = Vec::new();
    for (i, g) in plan {
        // Handles may move when the document is read back: the i-th animation is the same one.
        let h = *anim::handles(doc).get(i).ok_or_else(|| invalid(format!("animation {i} of the file is gone after an import")))?;
        let a = Animation::read(doc, h)?;
        let frames = frames_for(&a, &gltf.animations[g], gltf)?;
        let codec = options.codec.clone().unwrap_or_else(|| a.codec.clone());
        let enc = EncodeOptions { codec: codec.clone(), ..options.encode.clone() };
        let duration_changes = frames.frame_count != a.frame_count;
        let new_duration = if frames.frame_count > 1 && a.frame_count > 1 {
            a.duration / (a.frame_count - 1) as f32 * (frames.frame_count - 1) as f32
        } else {
            a.duration
        };
        let mut h2 = anim::set_frames(doc, h, &frames, &enc, open)?;
        if duration_changes && codec == Codec::Interleaved {
            h2 = doc.set_members(h2, vec![("duration".to_owned(), crate::dump::Val::Real(new_duration))], open)?;
        }
        out.push(Imported { handle: h2, from: gltf.animations[g].name.clone(), frames: frames.frame_count, tracks: frames.track_count, codec: codec.name().to_owned() });
    }
    Ok(out)
}
