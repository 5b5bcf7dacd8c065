//! `hkgen verify --semantic`: the invariants Havok's runtime relies on and the file format does
//! not enforce, checked on a file's objects in the one dump shape of both formats
//! ([`hktypes::dump`]), so one rule serves TAG0 files, packfiles and XML of every SDK.
//!
//! The rules are data ([`RULES`]): per class, which arrays must agree in length, which integers
//! index which array, which index arrays list parents before children, which quaternions must
//! be of unit length, which counts must equal another object's, which offsets must lie inside
//! their buffer. A member a file's SDK does not have is passed over, so one rule covers the
//! versions that name it. Each failure is located by object handle, class and member path:
//! `object #12 hkaSkeleton.parentIndices[153]: 999, past the 154 bones`.

use hktypes::dump::{Dump, DumpObject, Val};
use std::collections::HashMap;

/// How far from 1 the length of a quaternion that must be a rotation may be.
pub const UNIT_TOLERANCE: f32 = 1e-3;

/// One invariant of a class's members.
#[derive(Clone, Copy, Debug)]
pub enum Check {
    /// Two array members hold as many elements (`hkaSkeleton.parentIndices` and `bones`); `noun`
    /// names an element of `b` in the message.
    SameLength {
        /// The array checked.
        a: &'static str,
        /// The array it must agree with.
        b: &'static str,
        /// What an element of `b` is called (`bones`).
        noun: &'static str,
    },
    /// Every integer of the array member `member` is `-1` (when `none` allows it) or an index
    /// into the array member `of` of the same object.
    IndexInto {
        /// The array of indices.
        member: &'static str,
        /// The array they index.
        of: &'static str,
        /// What an element of `of` is called.
        noun: &'static str,
        /// Whether -1 ("none") is allowed.
        none: bool,
    },
    /// Every integer of `member` at position `i` is `-1` or less than `i`: parents come before
    /// their children, as Havok's pose code walks them.
    ParentsFirst {
        /// The parent index array.
        member: &'static str,
    },
    /// Each element of the array `member` holds a rotation (the quaternion `field` of a record,
    /// or the second four reals of a packfile `hkQsTransform`) of unit length within
    /// [`UNIT_TOLERANCE`].
    UnitRotations {
        /// The array of transforms.
        member: &'static str,
        /// The rotation's member in each element.
        field: &'static str,
    },
    /// Every integer of the array `member` is `-1` or an index into the array `len` of the
    /// object of class `class` whose string member `key` equals this object's string `by`
    /// (`hkaAnimationBinding.transformTrackToBoneIndices` into the bones of the skeleton its
    /// `originalSkeletonName` names). Passed over when the file holds no such object.
    IndexIntoNamed {
        /// The array of indices.
        member: &'static str,
        /// This object's string that names the other object.
        by: &'static str,
        /// The other object's class.
        class: &'static str,
        /// The other object's name member.
        key: &'static str,
        /// The other object's array the indices point into.
        len: &'static str,
        /// What an element of `len` is called.
        noun: &'static str,
    },
    /// The array `member`, when not empty, holds as many elements as the integer `count` of the
    /// object the pointer `target` names (a binding's track map and its animation's track count).
    LengthIsCountOf {
        /// The array checked.
        member: &'static str,
        /// The pointer to the other object.
        target: &'static str,
        /// The other object's count member.
        count: &'static str,
        /// What the count counts.
        noun: &'static str,
    },
    /// The integer `count` equals the length of the array `member`.
    CountIsLength {
        /// The count.
        count: &'static str,
        /// The array counted.
        member: &'static str,
    },
    /// Every integer of the array `member` lies inside the byte buffer `buffer` (less than its
    /// length; an empty buffer takes only 0).
    OffsetsInside {
        /// The offsets.
        member: &'static str,
        /// The buffer they point into.
        buffer: &'static str,
    },
}

/// The checks of one class (and of the classes derived from it whose names are listed with it).
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    /// The class name, as a file names it (a tagfile's full type name without template
    /// arguments).
    pub class: &'static str,
    /// Its checks, in order.
    pub checks: &'static [Check],
}

/// The rules, per class.
///
/// Not a rule: the frames of an `hkaInterleavedUncompressedAnimation`, which the runtime
/// normalises as it samples them (DSAnimStudio's corpus animation holds rotations of length
/// 0.993).
pub const RULES: &[Rule] = &[
    Rule {
        class: "hkaSkeleton",
        checks: &[
            Check::SameLength { a: "parentIndices", b: "bones", noun: "bones" },
            Check::SameLength { a: "referencePose", b: "bones", noun: "bones" },
            Check::SameLength { a: "referenceFloats", b: "floatSlots", noun: "float slots" },
            Check::IndexInto { member: "parentIndices", of: "bones", noun: "bones", none: true },
            Check::ParentsFirst { member: "parentIndices" },
            Check::UnitRotations { member: "referencePose", field: "rotation" },
        ],
    },
    Rule {
        class: "hkaAnimationBinding",
        checks: &[
            Check::IndexIntoNamed {
                member: "transformTrackToBoneIndices",
                by: "originalSkeletonName",
                class: "hkaSkeleton",
                key: "name",
                len: "bones",
                noun: "bones",
            },
            Check::IndexIntoNamed {
                member: "floatTrackToFloatSlotIndices",
                by: "originalSkeletonName",
                class: "hkaSkeleton",
                key: "name",
                len: "floatSlots",
                noun: "float slots",
            },
            Check::LengthIsCountOf {
                member: "transformTrackToBoneIndices",
                target: "animation",
                count: "numberOfTransformTracks",
                noun: "transform tracks",
            },
            Check::LengthIsCountOf {
                member: "floatTrackToFloatSlotIndices",
                target: "animation",
                count: "numberOfFloatTracks",
                noun: "float tracks",
            },
        ],
    },
    Rule {
        class: "hkaSplineCompressedAnimation",
        checks: &[
            Check::CountIsLength { count: "numBlocks", member: "blockOffsets" },
            // (`floatBlockOffsets` and `transformOffsets` count from their block's start.)
            Check::OffsetsInside { member: "blockOffsets", buffer: "data" },
        ],
    },
];

/// What [`check`] found.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// How many checks ran (a check of a member the object lacks does not run).
    pub checks: usize,
    /// Each broken invariant, located.
    pub failures: Vec<String>,
}

/// The most failures one check reports per object (a broken array would otherwise list each
/// element).
const MAX_PER_CHECK: usize = 4;

/// Runs [`RULES`] on every object of `dump`.
pub fn check(dump: &Dump) -> Outcome {
    let mut out = Outcome::default();
    let by_handle: HashMap<u32, &DumpObject> = dump.objects.iter().map(|o| (o.handle, o)).collect();
    for o in &dump.objects {
        let Some(rule) = RULES.iter().find(|r| r.class == base_name(&o.class)) else { continue };
        let Some(members) = &o.members else { continue };
        let get = |name: &str| members.0.iter().find(|(n, _)| n == name).map(|(_, v)| v);
        let at = |path: String| format!("object #{} {}.{path}", o.handle, o.class);
        for c in rule.checks {
            let before = out.failures.len();
            let mut fail = |m: String| {
                if out.failures.len() - before < MAX_PER_CHECK {
                    out.failures.push(m);
                }
            };
            match *c {
                Check::SameLength { a, b, noun } => {
                    let (Some(x), Some(y)) = (get(a).and_then(elements), get(b).and_then(elements)) else { continue };
                    out.checks += 1;
                    if x.len() != y.len() {
                        fail(at(format!("{a}: {} entries, for {} {noun} ({b})", x.len(), y.len())));
                    }
                }
                Check::IndexInto { member, of, noun, none } => {
                    let (Some(idx), Some(n)) = (get(member).and_then(elements), get(of).and_then(elements).map(<[Val]>::len)) else { continue };
                    out.checks += 1;
                    indices(idx, n, none, noun, &|i| at(format!("{member}[{i}]")), &mut fail);
                }
                Check::ParentsFirst { member } => {
                    let Some(idx) = get(member).and_then(elements) else { continue };
                    out.checks += 1;
                    for (i, v) in idx.iter().enumerate() {
                        if let Some(p) = int(v) {
                            if p >= 0 && p as usize >= i && p as usize != i {
                                fail(at(format!("{member}[{i}]: {p}, a parent after its child (bone {i})")));
                            } else if p >= 0 && p as usize == i {
                                fail(at(format!("{member}[{i}]: {p}, the bone its own parent")));
                            }
                        }
                    }
                }
                Check::UnitRotations { member, field } => {
                    let Some(list) = get(member).and_then(elements) else { continue };
                    out.checks += 1;
                    for (i, v) in list.iter().enumerate() {
                        if let Some(q) = rotation(v, field) {
                            let len = q.iter().map(|x| x * x).sum::<f32>().sqrt();
                            if !len.is_finite() || (len - 1.0).abs() > UNIT_TOLERANCE {
                                fail(at(format!(
                                    "{member}[{i}].{field}: ({}, {}, {}, {}) of length {len}, not a rotation (1 within {UNIT_TOLERANCE})",
                                    q[0], q[1], q[2], q[3]
                                )));
                            }
                        }
                    }
                }
                Check::IndexIntoNamed { member, by, class, key, len, noun } => {
                    let (Some(idx), Some(name)) = (get(member).and_then(elements), get(by).and_then(string)) else { continue };
                    let target = dump.objects.iter().find(|t| {
                        base_name(&t.class) == class && t.members.as_ref().and_then(|m| m.0.iter().find(|(n, _)| n == key)).and_then(|(_, v)| string(v)) == Some(name)
                    });
                    let Some(n) = target.and_then(|t| member_of(t, len)).and_then(elements).map(<[Val]>::len) else { continue };
                    out.checks += 1;
                    let t = target.map_or(0, |t| t.handle);
                    let noun = format!("{noun} of {class} {name:?} (object #{t})");
                    indices(idx, n, true, &noun, &|i| at(format!("{member}[{i}]")), &mut fail);
                }
                Check::LengthIsCountOf { member, target, count, noun } => {
                    let Some(list) = get(member).and_then(elements) else { continue };
                    if list.is_empty() {
                        continue;
                    }
                    let Some(Val::Ref(h, None)) = get(target) else { continue };
                    let Some(n) = by_handle.get(h).and_then(|t| member_of(t, count)).and_then(int) else { continue };
                    out.checks += 1;
                    if list.len() as i64 != n {
                        let class = by_handle.get(h).map_or("", |t| t.class.as_str());
                        fail(at(format!("{member}: {} entries, but its {target} (object #{h} {class}) has {n} {noun}", list.len())));
                    }
                }
                Check::CountIsLength { count, member } => {
                    let (Some(n), Some(list)) = (get(count).and_then(int), get(member).and_then(elements)) else { continue };
                    out.checks += 1;
                    if n != list.len() as i64 {
                        fail(at(format!("{count}: {n}, but {member} holds {}", list.len())));
                    }
                }
                Check::OffsetsInside { member, buffer } => {
                    let (Some(list), Some(size)) = (get(member).and_then(elements), get(buffer).and_then(byte_len)) else { continue };
                    out.checks += 1;
                    for (i, v) in list.iter().enumerate() {
                        if let Some(off) = int(v) {
                            if off < 0 || (off as usize >= size && !(off == 0 && size == 0)) {
                                fail(at(format!("{member}[{i}]: {off}, past the {size} bytes of {buffer}")));
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

/// Index checks of `idx` against `n` elements.
fn indices(idx: &[Val], n: usize, none: bool, noun: &str, at: &dyn Fn(usize) -> String, fail: &mut dyn FnMut(String)) {
    for (i, v) in idx.iter().enumerate() {
        let Some(x) = int(v) else { continue };
        if x == -1 && none {
            continue;
        }
        if x < 0 {
            fail(format!("{}: {x}, not an index (-1 or 0 to {})", at(i), n.saturating_sub(1)));
        } else if x as usize >= n {
            fail(format!("{}: {x}, past the {n} {noun}", at(i)));
        }
    }
}

/// A class name without template arguments (`hkArray<int>` -> `hkArray`).
fn base_name(class: &str) -> &str {
    class.split('<').next().unwrap_or(class)
}

fn member_of<'a>(o: &'a DumpObject, name: &str) -> Option<&'a Val> {
    o.members.as_ref()?.0.iter().find(|(n, _)| n == name).map(|(_, v)| v)
}

/// The elements of an array value (null: none).
fn elements(v: &Val) -> Option<&[Val]> {
    match v {
        Val::List(l) | Val::Array(l, _) => Some(l),
        Val::Null => Some(&[]),
        _ => None,
    }
}

fn int(v: &Val) -> Option<i64> {
    match *v {
        Val::Int(i) => Some(i),
        Val::UInt(u) => i64::try_from(u).ok(),
        _ => None,
    }
}

fn real(v: &Val) -> Option<f32> {
    match *v {
        Val::Real(r) => Some(r),
        Val::Bits(b) => Some(f32::from_bits(b)),
        _ => None,
    }
}

fn string(v: &Val) -> Option<&str> {
    match v {
        Val::Str(s) => Some(s),
        _ => None,
    }
}

/// The length in bytes of a byte buffer member (an array of bytes, or hex bytes).
fn byte_len(v: &Val) -> Option<usize> {
    match v {
        Val::Bytes(b) => Some(b.len()),
        other => elements(other).map(<[Val]>::len),
    }
}

/// Four reals: a list of four, or a record whose one member is (a tagfile `hkQuaternionf`'s
/// `vec`).
fn four(v: &Val) -> Option<[f32; 4]> {
    match v {
        Val::List(l) if l.len() == 4 => Some([real(&l[0])?, real(&l[1])?, real(&l[2])?, real(&l[3])?]),
        Val::Record(m) if m.0.len() == 1 => four(&m.0[0].1),
        _ => None,
    }
}

/// The rotation of a transform: the member `field` of a record, or reals 4 to 7 of a packfile
/// `hkQsTransform`'s twelve.
fn rotation(v: &Val, field: &str) -> Option<[f32; 4]> {
    match v {
        Val::Record(m) => four(m.0.iter().find(|(n, _)| n == field).map(|(_, v)| v)?),
        Val::List(l) if l.len() == 12 => four(&Val::List(l[4..8].to_vec())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hktypes::dump::{Kept, Members};

    fn object(handle: u32, class: &str, members: Vec<(&str, Val)>) -> DumpObject {
        DumpObject {
            handle,
            class: class.to_owned(),
            members: Some(Members(members.into_iter().map(|(n, v)| (n.to_owned(), v)).collect())),
            untyped: None,
            kept: Default::default(),
        }
    }

    fn ints(v: &[i64]) -> Val {
        Val::List(v.iter().map(|&i| Val::Int(i)).collect())
    }

    #[test]
    fn a_skeleton_with_a_parent_past_its_bones_is_located() {
        let bones = Val::List(vec![Val::Null; 3]);
        let pose = |w: f32| Val::List((0..3).map(|_| Val::List([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, w, 1.0, 1.0, 1.0, 0.0].map(Val::Real).to_vec())).collect());
        let dump = |parents: &[i64], w: f32| Dump {
            format: "packfile".to_owned(),
            sdk: "2014.1".to_owned(),
            layout: None,
            root: None,
            objects: vec![object(12, "hkaSkeleton", vec![("bones", bones.clone()), ("parentIndices", ints(parents)), ("referencePose", pose(w))])],
            kept: Kept::default(),
        };
        assert!(check(&dump(&[-1, 0, 1], 1.0)).failures.is_empty());
        let f = check(&dump(&[-1, 0, 999], 1.0)).failures;
        assert_eq!(f[0], "object #12 hkaSkeleton.parentIndices[2]: 999, past the 3 bones");
        let f = check(&dump(&[-1, 2, 0], 1.0)).failures;
        assert_eq!(f, ["object #12 hkaSkeleton.parentIndices[1]: 2, a parent after its child (bone 1)"]);
        let f = check(&dump(&[-1, 0], 1.0)).failures;
        assert_eq!(f, ["object #12 hkaSkeleton.parentIndices: 2 entries, for 3 bones (bones)"]);
        let f = check(&dump(&[-1, 0, 1], 0.5)).failures;
        assert_eq!(f.len(), 3);
        assert!(f[0].starts_with("object #12 hkaSkeleton.referencePose[0].rotation: (0, 0, 0, 0.5) of length 0.5"), "{}", f[0]);
    }
}
