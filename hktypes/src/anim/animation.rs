//! The animations of a [`Document`], read through generic member access ([`crate::members`]), so
//! that the same code serves every SDK and format: TAG0 tagfiles (2015.1 to 2019.1) and packfiles
//! (5.5 to 2014.2, both byte orders, 4- and 8-byte pointers), with or without generated classes
//! (a packfile needs the class descriptions of its SDK to give member values; a tagfile's own
//! type table is enough).

use super::{interleaved, Frames, Transform};
use crate::dump::{Members, Val};
use crate::error::{ErrorKind, Result, ValueError};
use crate::members::ValExt;
use crate::{Document, Handle, OpenOptions};

/// How an animation stores its frames: its class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Codec {
    /// `hkaSplineCompressedAnimation` (and 5.5's `hkaSplineSkeletalAnimation`): B-spline blocks.
    Spline,
    /// `hkaInterleavedUncompressedAnimation` (`hkaInterleavedSkeletalAnimation` before 2010):
    /// every frame as it is.
    Interleaved,
    /// `hkaDeltaCompressedAnimation` (`hkaDeltaCompressedSkeletalAnimation` before 2010).
    Delta,
    /// `hkaWaveletCompressedAnimation` (`hkaWaveletSkeletalAnimation` before 2010).
    Wavelet,
    /// `hkaQuantizedAnimation`.
    Quantized,
    /// `hkaPredictiveCompressedAnimation`.
    Predictive,
    /// Another class derived from `hkaAnimation` (a reference pose, a mirrored animation...).
    Other(String),
}

impl Codec {
    /// The codec of an animation class, `None` when `class` is no animation.
    pub fn of_class(class: &str) -> Option<Codec> {
        Some(match class {
            "hkaSplineCompressedAnimation" | "hkaSplineSkeletalAnimation" => Codec::Spline,
            "hkaInterleavedUncompressedAnimation" | "hkaInterleavedSkeletalAnimation" => Codec::Interleaved,
            "hkaDeltaCompressedAnimation" | "hkaDeltaCompressedSkeletalAnimation" => Codec::Delta,
            "hkaWaveletCompressedAnimation" | "hkaWaveletSkeletalAnimation" => Codec::Wavelet,
            "hkaQuantizedAnimation" => Codec::Quantized,
            "hkaPredictiveCompressedAnimation" => Codec::Predictive,
            "hkaReferencePoseAnimation" | "hkaMirroredAnimation" | "hkaMirroredSkeletalAnimation" => Codec::Other(class.to_owned()),
            _ => return None,
        })
    }

    /// The lower-case name: `spline`, `interleaved`, `delta`, `wavelet`, `quantized`,
    /// `predictive`, or the class name of another.
    pub fn name(&self) -> &str {
        match self {
            Codec::Spline => "spline",
            Codec::Interleaved => "interleaved",
            Codec::Delta => "delta",
            Codec::Wavelet => "wavelet",
            Codec::Quantized => "quantized",
            Codec::Predictive => "predictive",
            Codec::Other(c) => c,
        }
    }
}

/// `hkaAnimationBinding.blendHint`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlendHint {
    /// `NORMAL`: the animation gives each bone's local transform.
    Normal,
    /// `ADDITIVE` (or the older `ADDITIVE_DEPRECATED`): the animation is added to a pose.
    Additive,
}

/// An `hkaAnimationBinding` of the animation: which bone each track drives.
#[derive(Clone, Debug, PartialEq)]
pub struct Binding {
    /// The binding object.
    pub handle: Handle,
    /// `originalSkeletonName` (SDKs 2010 and later; empty where the file has none).
    pub skeleton_name: String,
    /// `transformTrackToBoneIndices`: the bone of each transform track (empty: track `i` drives
    /// bone `i`).
    pub track_to_bone: Vec<i32>,
    /// `floatTrackToFloatSlotIndices`.
    pub float_track_to_slot: Vec<i32>,
    /// `blendHint`.
    pub blend_hint: BlendHint,
}

/// An `hkaSkeleton` of the document: its name and bones.
#[derive(Clone, Debug, PartialEq)]
pub struct Skeleton {
    /// The skeleton object.
    pub handle: Handle,
    /// `name`.
    pub name: String,
    /// The bones' names, by bone index.
    pub bones: Vec<String>,
    /// `parentIndices`.
    pub parents: Vec<i32>,
}

/// One annotation: a text at a time.
#[derive(Clone, Debug, PartialEq)]
pub struct Annotation {
    /// Seconds from the start.
    pub time: f32,
    /// The text.
    pub text: String,
}

/// An annotation track (one per transform track in Havok's tools, most empty).
#[derive(Clone, Debug, PartialEq)]
pub struct AnnotationTrack {
    /// `trackName` (`name` in 5.5): the bone's name.
    pub name: String,
    /// The annotations.
    pub annotations: Vec<Annotation>,
}

/// `hkaDefaultAnimatedReferenceFrame`: root motion as samples.
#[derive(Clone, Debug, PartialEq)]
pub struct RootMotion {
    /// The reference frame object.
    pub handle: Handle,
    /// `up` (xyzw).
    pub up: [f32; 4],
    /// `forward` (xyzw).
    pub forward: [f32; 4],
    /// `duration`, seconds.
    pub duration: f32,
    /// `referenceFrameSamples`: translation xyz and the rotation about `up` (radians) as `w`,
    /// evenly spaced over the duration.
    pub samples: Vec<[f32; 4]>,
}

/// An animation object of a document: its header members, what refers to it, and its data
/// members, read once ([`Animation::read`]); [`Animation::frames`] decodes.
///
/// ```no_run
/// use hktypes::anim::{self, Codec, EncodeOptions};
/// use hktypes::{open, OpenOptions};
///
/// // A tagfile reads through its own type table; a packfile needs its SDK's class descriptions
/// // (`hkclasses::open_options()` in a program built with the generated classes).
/// let options = OpenOptions::default();
/// let bytes = std::fs::read("chr/c2010.anibnd/a000_003005.hkx")?;
/// let mut doc = open(&bytes, &options)?;
/// for a in anim::animations(&doc)? {
///     println!("#{} {}: {} tracks, {} frames, {} s", a.handle.0, a.codec.name(), a.track_count, a.frame_count, a.duration);
///     let frames = a.frames()?;
///     // Bone 0's transform at frame 10, and every track half-way through.
///     let t = frames.transform(10, 0);
///     let pose = a.sample(a.duration / 2.0)?;
///     println!("{:?} {:?} {:?}", t, a.bone_name(0), pose.first());
/// }
/// // Replace an interleaved animation's frames; `write` gives the file with them.
/// let h = anim::handles(&doc)[0];
/// let mut frames = anim::Animation::read(&doc, h)?.frames()?;
/// frames.transforms[0][0] += 1.0;
/// let opts = EncodeOptions { codec: Codec::Interleaved, ..EncodeOptions::default() };
/// anim::set_frames(&mut doc, h, &frames, &opts, &options)?;
/// std::fs::write("edited.hkx", doc.write()?)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Animation {
    /// The animation object.
    pub handle: Handle,
    /// Its class.
    pub class: String,
    /// How it stores its frames.
    pub codec: Codec,
    /// `duration`, seconds.
    pub duration: f32,
    /// `numberOfTransformTracks`.
    pub track_count: usize,
    /// `numberOfFloatTracks`.
    pub float_track_count: usize,
    /// Frames per track, as the data members state (`numFrames`, `numberOfPoses`, or the
    /// interleaved arrays' length over the tracks); 0 where the codec states none.
    pub frame_count: usize,
    /// The bytes of the codec's data members (spline `data` and its offsets, interleaved
    /// `transforms` and `floats`, delta `dataBuffer`...).
    pub data_bytes: usize,
    /// `annotationTracks`.
    pub annotations: Vec<AnnotationTrack>,
    /// The first `hkaAnimationBinding` whose `animation` is this one.
    pub binding: Option<Binding>,
    /// The skeleton the binding names (`originalSkeletonName`), else the document's one skeleton.
    pub skeleton: Option<Skeleton>,
    /// `extractedMotion`, where it is an `hkaDefaultAnimatedReferenceFrame`.
    pub root_motion: Option<RootMotion>,
    /// The data's byte order: a packfile's, little-endian for tagfiles.
    pub big_endian: bool,
    members: Members,
}

/// Tracks an animation may have beyond one per byte of its data ([`Animation::read`]).
pub const TRACK_SLACK: usize = 1 << 16;

fn invalid(msg: String) -> ValueError {
    ValueError::new(ErrorKind::Invalid(msg))
}

fn count(ms: &Members, name: &str, at: &str) -> std::result::Result<usize, ValueError> {
    let v = ms.need(name, at)?;
    let n = v.as_i64().ok_or_else(|| invalid(format!("{at}.{name}: not an integer")))?;
    usize::try_from(n).map_err(|_| invalid(format!("{at}.{name}: {n} is negative")))
}

fn real(ms: &Members, name: &str, at: &str) -> std::result::Result<f32, ValueError> {
    ms.need(name, at)?.as_f64().map(|x| x as f32).ok_or_else(|| invalid(format!("{at}.{name}: not a number")))
}

fn ints(v: &Val) -> Vec<i32> {
    v.as_list().unwrap_or_default().iter().filter_map(|x| x.as_i64()).map(|x| x as i32).collect()
}

fn text(v: Option<&Val>) -> String {
    v.and_then(|v| v.as_str()).unwrap_or_default().to_owned()
}

fn vec4(v: Option<&Val>) -> [f32; 4] {
    let r = v.map(|v| v.reals()).unwrap_or_default();
    let mut out = [0.0; 4];
    for (o, x) in out.iter_mut().zip(r) {
        *o = x;
    }
    out
}

/// Every animation object of `doc`, in handle order.
pub fn animations(doc: &Document) -> Result<Vec<Animation>> {
    handles(doc).into_iter().map(|h| Animation::read(doc, h)).collect()
}

/// The handles of `doc`'s animation objects (every class [`Codec::of_class`] knows), in order.
pub fn handles(doc: &Document) -> Vec<Handle> {
    doc.handles().into_iter().filter(|&h| doc.class_name(h).is_some_and(|c| Codec::of_class(&c).is_some())).collect()
}

impl Animation {
    /// Reads animation `h` of `doc`: its members, the binding that names it, the skeleton, root
    /// motion and annotations. Errors: `h` is no animation, or a member is missing or of the
    /// wrong kind (located by object and member).
    pub fn read(doc: &Document, h: Handle) -> Result<Animation> {
        let class = doc.class_name(h).ok_or_else(|| invalid(format!("no object {}", h.0)))?;
        let codec = Codec::of_class(&class).ok_or_else(|| invalid(format!("object {} is a {class}, no animation", h.0)))?;
        let at = format!("object {} ({class})", h.0);
        let ms = doc.members(h)?;
        let duration = real(&ms, "duration", &at)?;
        let track_count = count(&ms, "numberOfTransformTracks", &at)?;
        let float_track_count = count(&ms, "numberOfFloatTracks", &at)?;
        let len = |name: &str| ms.get(name).and_then(|v| v.as_list()).map_or(0, <[Val]>::len);
        let (frame_count, data_bytes) = match codec {
            Codec::Spline => (
                count(&ms, "numFrames", &at)?,
                len("data") + 4 * (len("blockOffsets") + len("floatBlockOffsets") + len("transformOffsets") + len("floatOffsets")),
            ),
            Codec::Interleaved => {
                let (t, f) = (len("transforms"), len("floats"));
                (interleaved::frame_count(t, f, track_count, float_track_count).map_err(|e| e.in_context(at.clone()))?, 48 * t + 4 * f)
            }
            Codec::Delta => (count(&ms, "numberOfPoses", &at)?, len("dataBuffer")),
            Codec::Wavelet => (count(&ms, "numberOfPoses", &at)?, len("dataBuffer")),
            Codec::Quantized => (0, len("data")),
            Codec::Predictive => (0, len("compressedData") + 2 * len("intData") + 4 * len("floatData")),
            Codec::Other(_) => (0, 0),
        };
        // Every codec holds some of its data per track (a mask, a range, a sample), so a count of
        // tracks past the data's bytes (and a slack for animations without data) is not one the
        // file can hold: refused here, before one entry per track is made of it (the anim fuzz
        // target's finding at 18086d0: 2^26 tracks of a 3 KB file, and a 1 GiB `track_to_bone`).
        for (name, n) in [("numberOfTransformTracks", track_count), ("numberOfFloatTracks", float_track_count)] {
            if n > data_bytes.saturating_add(TRACK_SLACK) {
                return Err(invalid(format!("{at}.{name}: {n} tracks, more than {data_bytes} bytes of data (and {TRACK_SLACK} besides) can hold")).into());
            }
        }
        let annotations = ms
            .get("annotationTracks")
            .and_then(|v| v.as_list())
            .unwrap_or_default()
            .iter()
            .map(|t| AnnotationTrack {
                name: text(t.field("trackName").or_else(|| t.field("name"))),
                annotations: t
                    .field("annotations")
                    .and_then(|a| a.as_list())
                    .unwrap_or_default()
                    .iter()
                    .map(|a| Annotation {
                        time: a.field("time").and_then(|x| x.as_f64()).unwrap_or(0.0) as f32,
                        text: text(a.field("text")),
                    })
                    .collect(),
            })
            .collect();
        let root_motion = match ms.get("extractedMotion").and_then(|v| v.as_ref_handle()) {
            Some(r) if doc.class_name(r).as_deref() == Some("hkaDefaultAnimatedReferenceFrame") => {
                let rm = doc.members(r)?;
                let samples = rm.get("referenceFrameSamples").map(|v| v.reals()).unwrap_or_default();
                Some(RootMotion {
                    handle: r,
                    up: vec4(rm.get("up")),
                    forward: vec4(rm.get("forward")),
                    duration: rm.get("duration").and_then(|v| v.as_f64()).unwrap_or(0.0) as f32,
                    samples: samples.chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]).collect(),
                })
            }
            _ => None,
        };
        let binding = binding_of(doc, h)?;
        let skeleton = skeleton_for(doc, binding.as_ref())?;
        let big_endian = doc.layout().is_some_and(|l| l.little_endian == 0);
        Ok(Animation {
            handle: h,
            class,
            codec,
            duration,
            track_count,
            float_track_count,
            frame_count,
            data_bytes,
            annotations,
            binding,
            skeleton,
            root_motion,
            big_endian,
            members: ms,
        })
    }

    /// The members as read.
    pub fn members(&self) -> &Members {
        &self.members
    }

    /// Bytes of data per second of animation (`data_bytes / duration`; 0 for a zero duration).
    pub fn bytes_per_second(&self) -> f64 {
        if self.duration > 0.0 {
            self.data_bytes as f64 / f64::from(self.duration)
        } else {
            0.0
        }
    }

    /// The bone each transform track drives: the binding's `transformTrackToBoneIndices` (a
    /// negative index is `None`), or track `i` to bone `i` where the binding maps none.
    pub fn track_to_bone(&self) -> Vec<Option<usize>> {
        match &self.binding {
            Some(b) if !b.track_to_bone.is_empty() => {
                (0..self.track_count).map(|t| b.track_to_bone.get(t).and_then(|&i| usize::try_from(i).ok())).collect()
            }
            _ => (0..self.track_count).map(Some).collect(),
        }
    }

    /// The name of the bone track `t` drives, where the file has a skeleton.
    pub fn bone_name(&self, t: usize) -> Option<&str> {
        let b = (*self.track_to_bone().get(t)?)?;
        self.skeleton.as_ref()?.bones.get(b).map(String::as_str)
    }

    /// Every frame of every track, decoded. Errors: a codec not decoded yet (named), or data that
    /// lies (a count, offset or size the arrays do not hold), located by object and member.
    pub fn frames(&self) -> Result<Frames> {
        let at = format!("object {} ({})", self.handle.0, self.class);
        let f = match self.codec {
            Codec::Interleaved => {
                let t = self.members.need("transforms", &at)?.reals();
                let fl = self.members.get("floats").map(|v| v.reals()).unwrap_or_default();
                interleaved::decode(&t, &fl, self.track_count, self.float_track_count)
            }
            Codec::Spline => super::spline::decode(&self.spline_data()?),
            Codec::Delta => super::delta::decode(&super::delta::DeltaData::from_members(&self.members, self)?),
            Codec::Wavelet => super::wavelet::decode(&super::wavelet::WaveletData::from_members(&self.members, self)?),
            ref c => Err(invalid(format!("decoding {} animations is not written yet", c.name()))),
        };
        let f = f.map_err(|e| e.in_context(at.clone()))?;
        if f.track_count != self.track_count || f.float_track_count != self.float_track_count {
            return Err(invalid(format!(
                "{at}: decoded {} tracks and {} float tracks, the members state {} and {}",
                f.track_count, f.float_track_count, self.track_count, self.float_track_count
            ))
            .into());
        }
        Ok(f)
    }

    /// The members of a spline animation as its codec takes them.
    pub fn spline_data(&self) -> std::result::Result<super::spline::SplineData, ValueError> {
        let at = format!("object {} ({})", self.handle.0, self.class);
        let ms = &self.members;
        let u32s = |name: &str| -> std::result::Result<Vec<u32>, ValueError> {
            ms.need(name, &at)?
                .as_list()
                .ok_or_else(|| invalid(format!("{at}.{name}: not an array")))?
                .iter()
                .map(|v| v.as_u64().and_then(|u| u32::try_from(u).ok()).ok_or_else(|| invalid(format!("{at}.{name}: not a 32-bit count"))))
                .collect()
        };
        let n = |name: &str| -> std::result::Result<u32, ValueError> {
            u32::try_from(count(ms, name, &at)?).map_err(|_| invalid(format!("{at}.{name}: out of range")))
        };
        let data: Vec<u8> = ms
            .need("data", &at)?
            .as_list()
            .ok_or_else(|| invalid(format!("{at}.data: not an array")))?
            .iter()
            .map(|v| v.as_u64().and_then(|u| u8::try_from(u).ok()).ok_or_else(|| invalid(format!("{at}.data: not bytes"))))
            .collect::<std::result::Result<_, _>>()?;
        Ok(super::spline::SplineData {
            duration: self.duration,
            number_of_transform_tracks: u32::try_from(self.track_count).unwrap_or(u32::MAX),
            number_of_float_tracks: u32::try_from(self.float_track_count).unwrap_or(u32::MAX),
            num_frames: n("numFrames")?,
            num_blocks: n("numBlocks")?,
            max_frames_per_block: n("maxFramesPerBlock")?,
            mask_and_quantization_size: n("maskAndQuantizationSize")?,
            block_duration: real(ms, "blockDuration", &at)?,
            block_inverse_duration: real(ms, "blockInverseDuration", &at)?,
            frame_duration: real(ms, "frameDuration", &at)?,
            block_offsets: u32s("blockOffsets")?,
            float_block_offsets: u32s("floatBlockOffsets")?,
            transform_offsets: u32s("transformOffsets")?,
            float_offsets: u32s("floatOffsets")?,
            data,
            endian_member: ms.get("endian").and_then(|v| v.as_i64()).unwrap_or(0) as i32,
            // Where the class has `endian`, it states the data's order (0 little, 1 big) whatever
            // the platform; where it has none, the data is in the file's order.
            endian: match ms.get("endian").and_then(|v| v.as_i64()) {
                Some(0) => super::spline::Endian::Little,
                Some(_) => super::spline::Endian::Big,
                None if self.big_endian => super::spline::Endian::Big,
                None => super::spline::Endian::Little,
            },
        })
    }

    /// Every transform track at `time` seconds (clamped to the animation), sampled as Havok's
    /// runtime samples: a spline animation's curves evaluated at the fractional frame
    /// ([`super::spline::sample`]), a wavelet animation's degrees of freedom blended before they
    /// are recomposed ([`super::wavelet::sample`]), stored frames blended by [`sample`] for the
    /// other codecs.
    pub fn sample(&self, time: f32) -> Result<Vec<Transform>> {
        Ok(self.sample_all(time)?.0)
    }

    /// The float tracks at `time` seconds (as [`Animation::sample`]).
    pub fn sample_floats(&self, time: f32) -> Result<Vec<f32>> {
        Ok(self.sample_all(time)?.1)
    }

    fn sample_all(&self, time: f32) -> Result<(Vec<Transform>, Vec<f32>)> {
        if self.codec == Codec::Spline {
            let at = format!("object {} ({})", self.handle.0, self.class);
            return Ok(super::spline::sample(&self.spline_data()?, time).map_err(|e| e.in_context(at))?);
        }
        if self.codec == Codec::Wavelet {
            let at = format!("object {} ({})", self.handle.0, self.class);
            let d = super::wavelet::WaveletData::from_members(&self.members, self)?;
            return Ok(super::wavelet::sample(&d, self.duration, time).map_err(|e| e.in_context(at))?);
        }
        Ok(sample(&self.frames()?, self.duration, time))
    }
}

/// The frame and the fraction towards the next of `time` in an animation of `frames` frames over
/// `duration` seconds, as Havok's `hkaAnimation::getFrameAndDelta`: `time / duration * (frames -
/// 1)`, clamped so that the last time is the last frame (frame `frames - 2`, fraction 1).
pub fn frame_and_delta(frames: usize, duration: f32, time: f32) -> (usize, f32) {
    if frames < 2 || duration <= 0.0 || time.is_nan() {
        return (0, 0.0);
    }
    let last = (frames - 1) as f32;
    let x = (time.clamp(0.0, duration) / duration * last).clamp(0.0, last);
    let i = (x.floor() as usize).min(frames - 2);
    (i, x - i as f32)
}

/// The transforms and floats of `frames` at `time`, as Havok's runtime blends two stored frames
/// (`hkQsTransform::setInterpolate4`, the blend of `hkaBlender`): translation and scale linearly,
/// rotation by normalised linear interpolation (nlerp) towards the second quaternion taken on the
/// same hemisphere as the first (negated when their dot product is negative), not slerp; floats
/// linearly. This is exact for interleaved and delta data, which store frames; a spline
/// animation's runtime evaluates its curves at `time` instead, which this matches at the frames
/// and approximates between them.
pub fn sample(frames: &Frames, duration: f32, time: f32) -> (Vec<Transform>, Vec<f32>) {
    let (n, t, k) = (frames.frame_count, frames.track_count, frames.float_track_count);
    if n == 0 {
        return (vec![super::IDENTITY; t], vec![0.0; k]);
    }
    let (i, d) = frame_and_delta(n, duration, time);
    let j = (i + 1).min(n - 1);
    let lerp = |a: f32, b: f32| a + (b - a) * d;
    let mut out = Vec::with_capacity(t);
    for track in 0..t {
        let (Some(a), Some(b)) = (frames.transform(i, track), frames.transform(j, track)) else { break };
        let mut x = [0f32; 10];
        for c in (0..3).chain(7..10) {
            x[c] = lerp(a[c], b[c]);
        }
        let dot: f32 = (3..7).map(|c| a[c] * b[c]).sum();
        let s = if dot < 0.0 { -1.0 } else { 1.0 };
        for c in 3..7 {
            x[c] = lerp(a[c], s * b[c]);
        }
        let len = (3..7).map(|c| x[c] * x[c]).sum::<f32>().sqrt();
        if len > 0.0 {
            for c in 3..7 {
                x[c] /= len;
            }
        }
        out.push(x);
    }
    let floats = (0..k).map(|f| lerp(frames.float(i, f).unwrap_or(0.0), frames.float(j, f).unwrap_or(0.0))).collect();
    (out, floats)
}

fn binding_of(doc: &Document, anim: Handle) -> Result<Option<Binding>> {
    for h in doc.find("hkaAnimationBinding") {
        let ms = doc.members(h)?;
        if ms.get("animation").and_then(|v| v.as_ref_handle()) != Some(anim) {
            continue;
        }
        let hint = match ms.get("blendHint") {
            Some(Val::Str(s)) if s.to_ascii_uppercase().contains("ADDITIVE") => BlendHint::Additive,
            Some(v) if v.as_i64().is_some_and(|i| i != 0) => BlendHint::Additive,
            _ => BlendHint::Normal,
        };
        return Ok(Some(Binding {
            handle: h,
            skeleton_name: text(ms.get("originalSkeletonName")),
            track_to_bone: ms.get("transformTrackToBoneIndices").map(ints).unwrap_or_default(),
            float_track_to_slot: ms.get("floatTrackToFloatSlotIndices").map(ints).unwrap_or_default(),
            blend_hint: hint,
        }));
    }
    Ok(None)
}

fn skeleton_for(doc: &Document, binding: Option<&Binding>) -> Result<Option<Skeleton>> {
    let mut skeletons = Vec::new();
    for h in doc.find("hkaSkeleton") {
        let ms = doc.members(h)?;
        let bones = ms
            .get("bones")
            .and_then(|v| v.as_list())
            .unwrap_or_default()
            .iter()
            .map(|b| text(b.field("name")))
            .collect();
        skeletons.push(Skeleton {
            handle: h,
            name: text(ms.get("name")),
            bones,
            parents: ms.get("parentIndices").map(ints).unwrap_or_default(),
        });
    }
    let named = binding.map(|b| b.skeleton_name.as_str()).filter(|n| !n.is_empty());
    if let Some(n) = named {
        if let Some(i) = skeletons.iter().position(|s| s.name == n) {
            return Ok(Some(skeletons.swap_remove(i)));
        }
    }
    Ok(if skeletons.len() == 1 { skeletons.pop() } else { None })
}

/// How [`set_frames`] encodes.
#[derive(Clone, Debug, PartialEq)]
pub struct EncodeOptions {
    /// The codec to write; the animation object must be of it (its class is kept).
    pub codec: Codec,
    /// Translation tolerance (spline), in the units of the file.
    pub position_tolerance: f32,
    /// Rotation tolerance (spline), in quaternion components.
    pub rotation_tolerance: f32,
    /// Scale tolerance (spline).
    pub scale_tolerance: f32,
    /// Float track tolerance (spline).
    pub float_tolerance: f32,
    /// Spline rotation quantization: `ThreeComp40`, `ThreeComp48`, ...
    pub rotation_quantization: String,
}

impl Default for EncodeOptions {
    /// Havok's defaults of `hkaSplineCompressedAnimation::TrackCompressionParams` (as
    /// [`super::spline::SplineOptions::default`]): tolerances 0.01, `THREECOMP40` rotations; the
    /// codec spline.
    fn default() -> Self {
        EncodeOptions {
            codec: Codec::Spline,
            position_tolerance: 0.01,
            rotation_tolerance: 0.01,
            scale_tolerance: 0.01,
            float_tolerance: 0.01,
            rotation_quantization: "ThreeComp40".into(),
        }
    }
}

/// `template` with its reals replaced, in order, by those `reals` gives.
fn fill_reals(template: &Val, reals: &mut impl Iterator<Item = f32>) -> Val {
    match template {
        Val::Real(_) | Val::Bits(_) => {
            let x = reals.next().unwrap_or(0.0);
            if x.is_finite() {
                Val::Real(x)
            } else {
                Val::Bits(x.to_bits())
            }
        }
        Val::List(l) => Val::List(l.iter().map(|v| fill_reals(v, reals)).collect()),
        Val::Array(l, c) => Val::Array(l.iter().map(|v| fill_reals(v, reals)).collect(), *c),
        Val::Record(m) => Val::Record(Members(m.0.iter().map(|(n, v)| (n.clone(), fill_reals(v, reals))).collect())),
        other => other.clone(),
    }
}

/// Replaces the frames of animation `h` of `doc` by `frames`, encoded as `options.codec` (which
/// must be the animation's own: its class is kept), and reads the document back with `options_open`
/// (the classes and compendia it was opened with); returns the animation's handle then. The
/// frames are checked first ([`interleaved::check`]: whole frames, finite values, unit
/// quaternions); on any error nothing changes.
///
/// Interleaved: `transforms`, `floats` and the track counts are written, each transform's unused
/// `w` words kept where the frame and track counts stay. Spline: through the spline codec's
/// encoder at the tolerances and quantization given.
pub fn set_frames(doc: &mut Document, h: Handle, frames: &Frames, options: &EncodeOptions, options_open: &OpenOptions<'_>) -> Result<Handle> {
    interleaved::check(frames)?;
    let anim = Animation::read(doc, h)?;
    if anim.codec != options.codec {
        return Err(invalid(format!(
            "object {} is a {} ({} codec); writing it as {} would change its class, which set_frames does not do",
            h.0,
            anim.class,
            anim.codec.name(),
            options.codec.name()
        ))
        .into());
    }
    let tracks = Val::UInt(frames.track_count as u64);
    let float_tracks = Val::UInt(frames.float_track_count as u64);
    let mut changes = vec![("numberOfTransformTracks".to_owned(), tracks), ("numberOfFloatTracks".to_owned(), float_tracks)];
    match options.codec {
        Codec::Interleaved => {
            let at = format!("object {} ({})", h.0, anim.class);
            let old = anim.members.need("transforms", &at)?;
            let old_list = old.as_list().unwrap_or_default();
            let template = old_list.first().cloned().ok_or_else(|| {
                invalid(format!("{at}.transforms: empty, so it shows no shape for a transform to be written in"))
            })?;
            let old_reals = old.reals();
            let w = (old_reals.len() == frames.transforms.len() * interleaved::REALS_PER_TRANSFORM)
                .then(|| old_reals.chunks_exact(12).map(|q| [q[3], q[11]]).collect::<Vec<_>>());
            let (t, fl) = interleaved::encode(frames, w.as_deref())?;
            let mut it = t.into_iter();
            let transforms: Vec<Val> = (0..frames.transforms.len()).map(|_| fill_reals(&template, &mut it)).collect();
            let floats: Vec<Val> = fl.into_iter().map(Val::Real).collect();
            let keep_cap = |v: Vec<Val>, old: Option<&Val>| match old {
                Some(Val::Array(l, c)) if l.len() == v.len() => Val::Array(v, *c),
                _ if v.is_empty() => old.filter(|o| o.as_list().is_some_and(<[Val]>::is_empty)).cloned().unwrap_or(Val::Null),
                _ => Val::List(v),
            };
            changes.push(("transforms".into(), keep_cap(transforms, Some(old))));
            changes.push(("floats".into(), keep_cap(floats, anim.members.get("floats"))));
        }
        Codec::Spline => {
            let old = anim.spline_data()?;
            let rotation = super::spline::RotationQuantization::from_name(&options.rotation_quantization).ok_or_else(|| {
                invalid(format!("rotation quantization {:?}: POLAR32, THREECOMP40, THREECOMP48, THREECOMP24, STRAIGHT16 or UNCOMPRESSED", options.rotation_quantization))
            })?;
            let defaults = super::spline::SplineOptions::default();
            let spline_options = super::spline::SplineOptions {
                position_tolerance: options.position_tolerance,
                rotation_tolerance: options.rotation_tolerance,
                scale_tolerance: options.scale_tolerance,
                float_tolerance: options.float_tolerance,
                rotation_quantization: rotation,
                // The animation's own frame rate, block size and byte order.
                frame_duration: if old.frame_duration > 0.0 { old.frame_duration } else { defaults.frame_duration },
                max_frames_per_block: if (2..=256).contains(&old.max_frames_per_block) { old.max_frames_per_block } else { defaults.max_frames_per_block },
                endian: old.endian,
                ..defaults
            };
            let new = super::spline::encode(frames, &spline_options)?;
            verify_encoded(frames, &super::spline::decode(&new)?, options)?;
            changes.extend(spline_members(&new, anim.members.get("endian").is_some()));
        }
        ref c => {
            return Err(invalid(format!("encoding {} animations is not written yet", c.name())).into());
        }
    }
    doc.set_members(h, changes, options_open)
}

/// The members an encoded spline animation sets (`endian` where the class has it).
fn spline_members(d: &super::spline::SplineData, has_endian: bool) -> Vec<(String, Val)> {
    let u32s = |v: &[u32]| Val::List(v.iter().map(|&x| Val::UInt(u64::from(x))).collect());
    let mut out = vec![
        ("duration".to_owned(), Val::Real(d.duration)),
        ("numFrames".to_owned(), Val::UInt(d.num_frames.into())),
        ("numBlocks".to_owned(), Val::UInt(d.num_blocks.into())),
        ("maxFramesPerBlock".to_owned(), Val::UInt(d.max_frames_per_block.into())),
        ("maskAndQuantizationSize".to_owned(), Val::UInt(d.mask_and_quantization_size.into())),
        ("blockDuration".to_owned(), Val::Real(d.block_duration)),
        ("blockInverseDuration".to_owned(), Val::Real(d.block_inverse_duration)),
        ("frameDuration".to_owned(), Val::Real(d.frame_duration)),
        ("blockOffsets".to_owned(), u32s(&d.block_offsets)),
        ("floatBlockOffsets".to_owned(), u32s(&d.float_block_offsets)),
        ("transformOffsets".to_owned(), u32s(&d.transform_offsets)),
        ("floatOffsets".to_owned(), u32s(&d.float_offsets)),
        ("data".to_owned(), Val::List(d.data.iter().map(|&b| Val::UInt(b.into())).collect())),
    ];
    if has_endian {
        let big = d.endian == super::spline::Endian::Big;
        out.push(("endian".to_owned(), Val::UInt(u64::from(big))));
    }
    out
}

/// What a lossy encoder wrote, decoded again, against the frames it was given: every value
/// finite, translation and scale within the position and scale tolerance, rotations (normalised
/// and sign-normalised) within the rotation tolerance, floats within theirs (each with a slack of
/// 5% and 1e-4 for the quantization's rounding). Otherwise an error naming the first frame, track
/// and part that is off, and nothing is written.
fn verify_encoded(want: &Frames, got: &Frames, options: &EncodeOptions) -> std::result::Result<(), ValueError> {
    if (got.frame_count, got.track_count, got.float_track_count) != (want.frame_count, want.track_count, want.float_track_count) {
        return Err(invalid(format!(
            "the encoded animation decodes to {} frames of {} tracks and {} float tracks, not {} of {} and {}",
            got.frame_count, got.track_count, got.float_track_count, want.frame_count, want.track_count, want.float_track_count
        )));
    }
    let slack = |t: f32| t * 1.05 + 1e-4;
    for (k, (a, b)) in want.transforms.iter().zip(&got.transforms).enumerate() {
        let (f, t) = (k / want.track_count.max(1), k % want.track_count.max(1));
        let len = |x: &Transform| (3..7).map(|c| x[c] * x[c]).sum::<f32>().sqrt().max(f32::MIN_POSITIVE);
        let (la, lb) = (len(a), len(b));
        let s = if (3..7).map(|c| a[c] * b[c]).sum::<f32>() < 0.0 { -1.0 } else { 1.0 };
        let parts: [(&str, std::ops::Range<usize>, f32); 3] =
            [("translation", 0..3, options.position_tolerance), ("rotation", 3..7, options.rotation_tolerance), ("scale", 7..10, options.scale_tolerance)];
        for (name, range, tol) in parts {
            for c in range {
                let d = if name == "rotation" { (a[c] / la - s * b[c] / lb).abs() } else { (a[c] - b[c]).abs() };
                // `!(d <= ..)` is true for a NaN too.
                if !(d <= slack(tol)) {
                    return Err(invalid(format!(
                        "the encoded animation is off at frame {f}, track {t}: {name} component {} decodes to {} for {} (tolerance {tol}); nothing was written",
                        c - if name == "translation" { 0 } else if name == "rotation" { 3 } else { 7 },
                        b[c],
                        a[c]
                    )));
                }
            }
        }
    }
    for (k, (a, b)) in want.floats.iter().zip(&got.floats).enumerate() {
        if !((a - b).abs() <= slack(options.float_tolerance)) {
            let n = want.float_track_count.max(1);
            return Err(invalid(format!(
                "the encoded animation is off at frame {}, float track {}: {b} for {a} (tolerance {}); nothing was written",
                k / n,
                k % n,
                options.float_tolerance
            )));
        }
    }
    Ok(())
}
