//! Migration rules kept as data: what the schemas of two SDKs cannot say about a conversion
//! between them (a member renamed, a value stored in another shape, the value Havok writes for a
//! member an older SDK lacks, a member known to hold nothing in files). The converter
//! ([`super`]) has no code per class: every such decision is a rule of a [`Migrations`] read from
//! RON, the committed ones under `schemas/migrations/` ([`Migrations::builtin`]), reviewed as the
//! schema snapshots are.
//!
//! Every rule names the class that declares the member (`hkReferencedObject` for `refCount`, not
//! each class derived from it) or `*` for any class, and applies in both directions: a rename
//! `before` -> `after` takes a source's `before` where the target has `after` and the source
//! has no `after`, and the other way round.

use hktypes::dump::{Members, Val};
use serde::Deserialize;

/// The committed rules (`schemas/migrations/*.ron`), one file per subject.
pub const BUILTIN: &[(&str, &str)] = &[
    ("schemas/migrations/common.ron", include_str!("../../../schemas/migrations/common.ron")),
    ("schemas/migrations/animation.ron", include_str!("../../../schemas/migrations/animation.ron")),
    ("schemas/migrations/physics.ron", include_str!("../../../schemas/migrations/physics.ron")),
    ("schemas/migrations/behavior.ron", include_str!("../../../schemas/migrations/behavior.ron")),
];

/// A set of migration rules.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Migrations {
    /// Members renamed between SDKs.
    #[serde(default)]
    pub renames: Vec<Rename>,
    /// Members whose value takes another shape in some SDKs, with the named conversion between
    /// the shapes.
    #[serde(default)]
    pub conversions: Vec<Conversion>,
    /// The values Havok writes for members that a source lacks, per target SDK.
    #[serde(default)]
    pub defaults: Vec<MemberDefault>,
    /// Members whose value a target without them may drop without loss: what they hold is
    /// rebuilt at run time (a solver offset, a cache); anything else no target holds is a loss.
    #[serde(default)]
    pub runtime: Vec<Runtime>,
    /// Members whose stored value is a fact of the writer's build (an offset into the run
    /// time's data), not of the asset: the value each SDK and pointer size stores.
    #[serde(default)]
    pub build_values: Vec<BuildValue>,
    /// Records that one SDK keeps in a table indexed by a member of another array's elements,
    /// and another SDK inline in those elements.
    #[serde(default)]
    pub indexed_records: Vec<IndexedRecords>,
    /// Members that some SDKs keep in a record member of their own, others in the class itself.
    #[serde(default)]
    pub grouped: Vec<Grouped>,
    /// Array members that only list a member of another array's elements.
    #[serde(default)]
    pub derived: Vec<Derived>,
    /// Members of an [`IndexedRecords`] table's records that the run time computes from what
    /// the indexing element reaches (a motion's inverse inertia from its body's shape's mass
    /// properties).
    #[serde(default)]
    pub computed: Vec<Computed>,
    /// Classes one SDK has where another has a class of its own name in their stead (2014.1's
    /// `hknpCapsuleShape`, 2015.1's `hkpCapsuleShape`), with the members carried between them.
    #[serde(default)]
    pub replacements: Vec<Replacement>,
    /// String members that name a class (`hkRootLevelContainer::NamedVariant.className`): where
    /// the object they name is replaced ([`Replacement`]), they name the replacement.
    #[serde(default)]
    pub class_names: Vec<ClassName>,
}

/// A class `from` that SDKs without it replace by their class `to`, and the other way round:
/// an object of `from` becomes one of `to` where the target SDK lacks `from` and has `to` (and
/// the reverse). Only the members of `members` are carried, each from its path in the source
/// object to its path in the target's (member names separated by `.`, records walked into, the
/// target's missing records built); a same-named member is carried only when listed. Every
/// other source member holding something is a loss, but for those `derived` names (what the
/// run time or the class's constructor computes from the carried ones); every other target
/// member takes its default (a `defaults` rule, else zero).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Replacement {
    /// The class replaced (`hknpCapsuleShape`).
    pub from: String,
    /// The class in its stead (`hkpCapsuleShape`).
    pub to: String,
    /// The members carried: the path in `to` and the path in `from`.
    pub members: Vec<ReplacedMember>,
    /// Members of either class that hold only what the other's members give (the capsule's
    /// convex hull, of its two ends and radius), with why: dropped without loss.
    #[serde(default)]
    pub derived: Vec<(String, String)>,
    /// `from` is a record type, the elements of an array of another replaced class whose
    /// member names this rule's `to` as its `each` (2014.1's `hknpBodyCinfo`, the records of
    /// `hknpPhysicsSystemData.bodyCinfos`, each an `hkpRigidBody` object in 2015.1); no object
    /// of `to` is replaced by it.
    #[serde(default)]
    pub records: bool,
    /// Other objects the target keeps of the replaced object's members (forward only).
    #[serde(default)]
    pub also: Vec<Also>,
    /// Target SDKs that have both classes but whose games' files use `from` (2014.1: Dark Souls
    /// III's ragdolls are hknp, although 2014.1 has the hkp classes too): there an object of
    /// `to` becomes one of `from` as where the SDK lacks `to`.
    #[serde(default)]
    pub preferred: Vec<Preferred>,
    /// The stock files of each SDK and figures that show it.
    pub evidence: String,
}

/// A target SDK whose files use a [`Replacement`]'s `from` class where it has both.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Preferred {
    /// The SDK (`2014.1`).
    pub sdk: String,
    /// Classes without a rule that the `from` side's files hold among the objects their
    /// replaced objects point to (c1400's hknp ragdoll keeps `hkpRagdollConstraintData`): the
    /// preference applies to a file only where every object the objects it would replace
    /// reach (pointers followed through the replaced classes' objects, not through these
    /// classes', whose objects are kept with what they point to: the constraint motors) is of
    /// such a class or of a class a rule replaces; else the
    /// file keeps the target's `to` classes, all of them (an hkp system of convex vertices shapes,
    /// which no rule makes hknp, stays hkp).
    #[serde(default)]
    pub with: Vec<String>,
    /// The stock files that show it.
    pub evidence: String,
}

/// An object of class `class` made besides a [`Replacement`]'s, of members of the same source
/// object (2015.1's `hkaRagdollInstance` of an `hknpRagdollData`'s bodies, constraints,
/// skeleton and bone map): its members as a replacement's, `each` naming the objects the
/// replacement made of an array's records.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Also {
    /// The class.
    pub class: String,
    /// The members carried.
    pub members: Vec<ReplacedMember>,
    /// Whether a class-naming record ([`ClassName`] with a `pointer`) that names the replaced
    /// object names this one instead (DSR's root names the `hkaRagdollInstance` where DS III's
    /// names the `hknpRagdollData`).
    #[serde(default)]
    pub named_by_root: bool,
}

impl Also {
    /// The members as a replacement of `r`'s class by this class.
    pub fn as_replacement(&self, r: &Replacement) -> Replacement {
        Replacement {
            from: r.from.clone(),
            to: self.class.clone(),
            members: self.members.clone(),
            derived: Vec::new(),
            records: false,
            also: Vec::new(),
            preferred: Vec::new(),
            evidence: r.evidence.clone(),
        }
    }
}

/// How a [`ReplacedMember`]'s value is made from the source's (forward only: the way back
/// carries no member that has one, so each is reported lost).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub enum MemberOp {
    /// An index into the named array of the object being replaced (the element's owner),
    /// whose elements became objects (`each`): the pointer to the index's object (2014.1's
    /// `hknpConstraintCinfo.bodyA`, an index into `bodyCinfos`, as 2015.1's
    /// `hkpConstraintInstance.entities[0]`, a pointer to the body's `hkpRigidBody`).
    IndexOf(String),
    /// The member at this path of the record that the element's member `.1` indexes in the
    /// owner's array `.0` (2014.1's `motionCinfos[body.motionId].inverseMass`, as 2015.1's
    /// `hkpRigidBody.motion.inertiaAndMassInv[3]`).
    Indexed(String, String),
    /// A unit quaternion (x, y, z, w) and the position at the named path as a transform: four
    /// columns of four reals, the rotation's three axes (w 0) and the position (w 1).
    Transform(String),
    /// A unit quaternion and the position at the named path as an `hkSweptTransform` at rest
    /// (center of mass at the position, twice; the rotation, twice; a local center of mass of 0),
    /// or with the centre of mass an [`MemberOp::IndexedBack`] member of its `[0]` gives (its
    /// local one what that gives), as DSR's bodies hold it. Back, a swept transform that holds
    /// no more than that is carried by the transform ([`swept_at_rest`]).
    SweptTransform(String),
    /// 1/the value, both ways (0 stays 0: an infinite mass): 2016.2's `hknpBodyCinfo.mass` as
    /// 2015.1's `hkpRigidBody.motion.inertiaAndMassInv[3]`, the inverse mass.
    Reciprocal,
    /// As [`MemberOp::Indexed`] forward; back, the objects' values of the members with this op
    /// and table become the owner's table `.0`, one record per distinct set of values, which
    /// each record's member `.1` indexes (2015.1's `hkpRigidBody.material.friction` and
    /// `.restitution` as the 2016.2 `hknpPhysicsSystemData.materials[body.materialId]`, one
    /// material per distinct friction and restitution). Where two members of a table have the
    /// same path in the object (hknp's `dynamicFriction` and `staticFriction`, hkp's one
    /// `friction`), forward the second is carried only where it equals the first (else it is
    /// lost by name), back both take the object's value.
    Shared(String, String),
    /// As [`MemberOp::Indexed`], the way back only: the object's value at `to` becomes member
    /// `from` of the owner's table record `.0` the element indexes by `.1` (2015.1's
    /// `hkpRigidBody.motion.motionState.sweptTransform[0]`, the centre of mass, and `[2]`, the
    /// rotation, as 2014.1's `motionCinfos[body.motionId].centerOfMassWorld` and `.orientation`,
    /// which would otherwise be zero). Forward nothing is set but by a [`MemberOp::SweptTransform`]
    /// member whose `to` is this `to` less `[0]`, which takes its centre of mass from here (its
    /// local one the rotation's inverse of it less the position); the record's member is
    /// reported with its table.
    IndexedBack(String, String),
}

impl MemberOp {
    /// The table and index of an [`MemberOp::Indexed`] or [`MemberOp::Shared`] op.
    pub fn table(&self) -> Option<(&str, &str)> {
        match self {
            MemberOp::Indexed(t, i) | MemberOp::Shared(t, i) | MemberOp::IndexedBack(t, i) => Some((t, i)),
            _ => None,
        }
    }
}

/// An index held as an integer.
fn index_value(v: &Val) -> Option<usize> {
    match v {
        Val::UInt(i) => usize::try_from(*i).ok(),
        Val::Int(i) => usize::try_from(*i).ok(),
        _ => None,
    }
}

/// 1/`v` for a real (0 stays 0), computed in 64 bits.
fn reciprocal(v: &Val) -> Option<Val> {
    match v {
        Val::Real(x) => Some(Val::Real(if *x == 0.0 { 0.0 } else { (1.0 / f64::from(*x)) as f32 })),
        _ => None,
    }
}

/// One member of a [`Replacement`]: its path in the replacing class and in the replaced one.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplacedMember {
    /// Its path in [`Replacement::to`].
    pub to: String,
    /// Its path in [`Replacement::from`].
    pub from: String,
    /// For a vector: the path in `to` of the value its fourth component holds in `to` (2015.1's
    /// `hkpCapsuleShape.vertexA.w` is its `radius`), where `from`'s holds 0 (2014.1's
    /// `hknpCapsuleShape.a.w`). Back, a fourth component equal to that value becomes 0; any
    /// other is carried as it is.
    #[serde(default)]
    pub to_w: Option<String>,
    /// With `to_w`: what the vector's fourth component holds in `from` where it is not 0
    /// (2014.1's `hknpMotionCinfo.inverseInertiaLocal.w`, 1.0 in all 19 motions of c1400.HKX,
    /// where 2015.1's `hkpRigidBody.motion.inertiaAndMassInv.w` is the inverse mass). Back, a
    /// fourth component equal to the `to_w` value becomes this.
    #[serde(default)]
    pub from_w: Option<Val>,
    /// For an array of records whose rule ([`Replacement::records`]) makes each an object of
    /// this class: the array of pointers to those objects.
    #[serde(default)]
    pub each: Option<String>,
    /// How the value is made, where not carried as it is.
    #[serde(default)]
    pub op: Option<MemberOp>,
    /// For a list of indices into another member of the same object, an `each` array (2015.1's
    /// `hkaRagdollInstance.boneToRigidBodyMap` into its `rigidBodies`): the `to` path of that
    /// array. The way back of an [`Also`] re-points each index to the same object's place in
    /// the replaced object's array, where the two list the objects in other orders (DSR's
    /// instance lists the bodies in bone order, its system otherwise); a negative index stays.
    #[serde(default)]
    pub indexes: Option<String>,
}

impl ReplacedMember {
    /// The way back of `to_w`: the value a source vector's fourth component takes where it
    /// holds the `to_w` member's value (`from_w`, else 0); none where it holds anything else.
    pub fn back_w(&self, src: &Members) -> Option<Val> {
        let w = self.to_w.as_deref()?;
        let stored = path_get_indexed(src, w)?;
        let is_w = matches!(path_get_indexed(src, &self.to), Some(Val::List(l) | Val::Array(l, _)) if l.len() == 4 && l[3] == *stored);
        is_w.then(|| self.from_w.clone().unwrap_or(Val::Real(0.0)))
    }
}

/// A string member naming a class (see [`Migrations::class_names`]).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassName {
    /// The record declaring it, or `*`.
    pub class: String,
    /// The member.
    pub member: String,
    /// The record's member pointing to the object named.
    #[serde(default)]
    pub pointer: Option<String>,
    /// The stock files that show it.
    pub evidence: String,
}

/// Which way a [`Replacement`] applies: `from` -> `to` (forward) or back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    /// An object of `from` becomes one of `to`.
    Forward,
    /// An object of `to` becomes one of `from`.
    Back,
}

impl Replacement {
    /// The source class, target class and member paths (target, source) for `way`.
    pub fn oriented(&self, way: Way) -> (&str, &str, Vec<(&str, &str)>) {
        match way {
            Way::Forward => (&self.from, &self.to, self.members.iter().map(|m| (m.to.as_str(), m.from.as_str())).collect()),
            Way::Back => (&self.to, &self.from, self.members.iter().map(|m| (m.from.as_str(), m.to.as_str())).collect()),
        }
    }

    /// Source members `src` as the target's, by the member paths of `way`: the target's
    /// members (records built along the paths) and the source paths carried. A source path
    /// that reaches nothing is left out (the target member takes its default).
    /// `made` gives the handles of the objects made of an array's elements (`each`): the
    /// replaced object's own arrays, or for a record rule its owner's.
    /// `owner` gives a member of a record rule's owner object (for [`MemberOp::Indexed`]).
    pub fn remap(&self, way: Way, src: &Members, made: &dyn Fn(&str) -> Option<Vec<u32>>, owner: &dyn Fn(&str) -> Option<Val>) -> (Members, Vec<String>) {
        let (_, _, pairs) = self.oriented(way);
        let mut out = Members(Vec::new());
        let mut carried = Vec::new();
        for (m, (to, from)) in self.members.iter().zip(pairs) {
            if way == Way::Back && (m.op.is_some() || m.each.is_some()) {
                // The inverse ops: a pointer to an object made of an owner's record as the
                // record's index; a transform as the quaternion and position. `each` is the
                // caller's (it needs the objects pointed to); `Indexed` and `SweptTransform` are
                // not carried back (the transform gives the orientation).
                let Some(v) = path_get_indexed(src, from) else { continue };
                match &m.op {
                    Some(MemberOp::IndexOf(array)) => {
                        let (Val::Ref(h, _), Some(hs)) = (v, made(array)) else { continue };
                        let Some(i) = hs.iter().position(|x| x == h) else { continue };
                        path_set(&mut out, to, Val::UInt(i as u64));
                        carried.push(from.to_owned());
                    }
                    Some(MemberOp::Transform(p)) => {
                        let Some((q, pos)) = reals(v).and_then(|t| transform_quaternion(&t)) else { continue };
                        let list = |xs: &[f32]| Val::List(xs.iter().map(|x| Val::Real(*x)).collect());
                        path_set(&mut out, to, list(&q));
                        path_set(&mut out, p, list(&[pos[0], pos[1], pos[2], 0.0]));
                        carried.push(from.to_owned());
                    }
                    Some(MemberOp::Reciprocal) => {
                        let Some(w) = reciprocal(v) else { continue };
                        path_set(&mut out, to, w);
                        carried.push(from.to_owned());
                    }
                    // Nothing to set: a swept transform at rest at the body's transform (what
                    // the way forward makes of the orientation and position) holds nothing
                    // else, so it is carried by the transform; any other is a loss.
                    Some(MemberOp::SweptTransform(_)) => {
                        if self.swept_derivable(src, false) {
                            carried.push(from.to_owned());
                        }
                    }
                    _ => {}
                }
                continue;
            }
            if matches!(m.op, Some(MemberOp::IndexedBack(..))) {
                continue;
            }
            if let (None, Some((table, index))) = (&m.each, m.op.as_ref().and_then(MemberOp::table)) {
                let i = self.record_index(table, index, src, owner);
                let record = match (i, owner(table)) {
                    (Some(i), Some(Val::List(l) | Val::Array(l, _))) => l.get(i).cloned(),
                    _ => None,
                };
                let record = match record {
                    Some(Val::Record(r)) => Some(r),
                    _ => None,
                };
                let carries = record.as_ref().is_some_and(|r| self.carried_from_record(table, r).iter().any(|c| c == from));
                if let Some(v) = record.as_ref().filter(|_| carries).and_then(|r| path_get(r, from)) {
                    path_set(&mut out, to, v.clone());
                    carried.push(format!("{table}[].{from}"));
                }
                continue;
            }
            let Some(v) = path_get(src, from) else { continue };
            let v = match (&m.each, &m.op) {
                (Some(_), _) => match made(from) {
                    Some(hs) => Val::List(hs.into_iter().map(|h| Val::Ref(h, None)).collect()),
                    None => continue,
                },
                (None, Some(MemberOp::IndexOf(array))) => {
                    // 2016.2's hknpBodyId is a record {serialAndIndex} of the index.
                    let v = match v {
                        Val::Record(r) if r.0.len() == 1 => &r.0[0].1,
                        v => v,
                    };
                    let i = match v {
                        Val::UInt(i) => usize::try_from(*i).ok(),
                        Val::Int(i) => usize::try_from(*i).ok(),
                        _ => None,
                    };
                    match (i, made(array)) {
                        (Some(i), Some(hs)) if i < hs.len() => Val::Ref(hs[i], None),
                        _ => continue,
                    }
                }
                (None, Some(MemberOp::Transform(p) | MemberOp::SweptTransform(p))) => {
                    let (Some(q), Some(pos)) = (reals(v), path_get(src, p).and_then(reals)) else { continue };
                    let (Ok(q), Ok(pos)) = (<[f32; 4]>::try_from(q), <[f32; 4]>::try_from(pos)) else { continue };
                    let list = |xs: &[f32]| Val::List(xs.iter().map(|x| Val::Real(*x)).collect());
                    let out = if matches!(m.op, Some(MemberOp::Transform(_))) {
                        list(&quaternion_transform(q, pos))
                    } else {
                        // The centre of mass where the record an `IndexedBack` member of
                        // `{to}[0]` names holds it (2014.1's motion's centerOfMassWorld), its local
                        // one the rotation's inverse of it less the position; else the position.
                        let head = format!("{to}[0]");
                        let com = self.members.iter().find(|x| x.to == head && matches!(x.op, Some(MemberOp::IndexedBack(..)))).and_then(|x| {
                            let (t, i) = x.op.as_ref()?.table()?;
                            let k = self.record_index(t, i, src, owner)?;
                            let (Val::List(l) | Val::Array(l, _)) = owner(t)? else { return None };
                            let Val::Record(r) = l.get(k)? else { return None };
                            path_get(r, &x.from).and_then(reals).filter(|c| c.len() == 4 && c.iter().all(|v| v.is_finite()))
                        });
                        let (at, local) = match com {
                            Some(c) => {
                                let d = [0, 1, 2].map(|k| f64::from(c[k]) - f64::from(pos[k]));
                                let l = rotate_inverse(q, d);
                                ([c[0], c[1], c[2], 0.0], [l[0] as f32, l[1] as f32, l[2] as f32, 0.0])
                            }
                            None => ([pos[0], pos[1], pos[2], 0.0], [0.0; 4]),
                        };
                        Val::List(vec![list(&at), list(&at), list(&q), list(&q), list(&local)])
                    };
                    carried.push(p.clone());
                    out
                }
                (None, Some(MemberOp::Reciprocal)) => {
                    let Some(w) = reciprocal(v) else { continue };
                    // An element of a vector the source holds no other part of: the others 0.
                    if let Some((head, k)) = to.strip_suffix(']').and_then(|p| p.rsplit_once('[')) {
                        if let (None, Ok(k @ 0..=15)) = (path_get(&out, head), k.parse::<usize>()) {
                            path_set(&mut out, head, Val::List(vec![Val::Real(0.0); k + 1]));
                        }
                    }
                    w
                }
                (None, None | Some(MemberOp::Indexed(..) | MemberOp::Shared(..) | MemberOp::IndexedBack(..))) => v.clone(),
            };
            path_set(&mut out, to, v);
            carried.push(from.to_owned());
        }
        // Vectors whose fourth component is another member in `to`, 0 in `from`.
        for m in &self.members {
            let Some(w) = &m.to_w else { continue };
            let (at, w_value) = match way {
                Way::Forward => (m.to.as_str(), path_get_indexed(&out, w).cloned()),
                Way::Back => (m.from.as_str(), m.back_w(src)),
            };
            let (Some(wv @ Val::Real(_)), Some(Val::List(l) | Val::Array(l, _))) = (w_value, path_get(&out, at)) else { continue };
            if l.len() == 4 {
                let mut l = l.clone();
                l[3] = wv;
                path_set(&mut out, at, Val::List(l));
            }
        }
        (out, carried)
    }

    /// The index of the record of the owner's table `table` that record `element` names by its
    /// member `index`; where the element has no such member, the index that the record of
    /// another table of this rule's ops, which the element indexes, holds under that name
    /// (2014.1 keeps a body's `motionPropertiesId` in `motionCinfos[body.motionId]`, 2016.2 in
    /// the body). `owner` gives the owner's members.
    pub fn record_index(&self, table: &str, index: &str, element: &Members, owner: &dyn Fn(&str) -> Option<Val>) -> Option<usize> {
        if let Some(v) = path_get(element, index) {
            return index_value(v);
        }
        self.members.iter().filter_map(|m| m.op.as_ref().and_then(MemberOp::table)).filter(|(t, i)| *t != table && *i != index).find_map(|(t, i)| {
            let j = index_value(path_get(element, i)?)?;
            let (Val::List(l) | Val::Array(l, _)) = owner(t)? else { return None };
            let Val::Record(r) = l.get(j)? else { return None };
            index_value(r.get(index)?)
        })
    }

    /// The members of table record `rec` that the members of this rule with an
    /// [`MemberOp::Indexed`] or [`MemberOp::Shared`] op on `table` carry (their `from` names):
    /// each one present, but a member whose path in `to` an earlier one takes, unless their
    /// values are equal.
    pub fn carried_from_record(&self, table: &str, rec: &Members) -> Vec<String> {
        let mut taken: Vec<(&str, &Val)> = Vec::new();
        let mut out = Vec::new();
        for m in &self.members {
            if m.op.as_ref().and_then(MemberOp::table).is_none_or(|(t, _)| t != table) || matches!(m.op, Some(MemberOp::IndexedBack(..))) {
                continue;
            }
            let Some(v) = path_get(rec, &m.from) else { continue };
            match taken.iter().find(|(to, _)| *to == m.to) {
                Some((_, w)) if *w != v => {}
                Some(_) => out.push(m.from.clone()),
                None => {
                    taken.push((&m.to, v));
                    out.push(m.from.clone());
                }
            }
        }
        out
    }

    /// Whether the swept transform of object `src` (the `to` of this rule's
    /// [`MemberOp::SweptTransform`] member) holds only what its transform (the `to` of the
    /// [`MemberOp::Transform`] member) gives ([`swept_at_rest`]), the centre of mass where
    /// `com_kept` says the target keeps it elsewhere (2014.1's `motionCinfos`, see
    /// [`MemberOp::IndexedBack`]).
    pub fn swept_derivable(&self, src: &Members, com_kept: bool) -> bool {
        let path = |f: fn(&MemberOp) -> bool| self.members.iter().find(|x| x.op.as_ref().is_some_and(f)).map(|x| x.to.as_str());
        let (Some(swept), Some(transform)) = (path(|o| matches!(o, MemberOp::SweptTransform(_))), path(|o| matches!(o, MemberOp::Transform(_)))) else { return false };
        let Some((q, pos)) = path_get(src, transform).and_then(reals).and_then(|t| transform_quaternion(&t)) else { return false };
        path_get(src, swept).is_some_and(|v| swept_at_rest(v, q, pos, com_kept))
    }

    /// Why member `name` (of either class) may be dropped, where the rule says.
    pub fn derived_reason(&self, name: &str) -> Option<&str> {
        self.derived.iter().find(|(n, _)| n == name).map(|(_, r)| r.as_str())
    }
}

/// Whether `swept` (an `hkSweptTransform`: five vectors, as a C array of them or a record) is
/// the swept transform at rest of a body at rotation `q` and position `p`, as
/// [`MemberOp::SweptTransform`] makes it: the centre of mass at the position (within 1e-5) at
/// time 0, twice; the rotation `q` (up to sign, within 1e-5), twice; a local centre of mass of
/// 0. DSR's bodies hold a local centre of mass of about 1e-8 (Ragdoll_Pelvis01: 0,
/// -2.78e-10, -7.45e-9), which no 2016.2 hknp body member holds: not at rest in this sense.
/// With `com_kept` (the target keeps the centre of mass itself, 2014.1's motion
/// `centerOfMassWorld`) the centre of mass may be anywhere, the local one being what it gives:
/// the rotation's inverse of the centre of mass less the position, within 1e-5.
pub fn swept_at_rest(swept: &Val, q: [f32; 4], p: [f32; 4], com_kept: bool) -> bool {
    let vectors: Vec<Vec<f32>> = match swept {
        Val::List(l) | Val::Array(l, _) => l.iter().filter_map(reals).collect(),
        Val::Record(m) => m.0.iter().filter_map(|(_, v)| reals(v)).collect(),
        _ => return false,
    };
    if vectors.len() != 5 || vectors.iter().any(|v| v.len() != 4) {
        return false;
    }
    let (c0, c1, r0, r1, local) = (&vectors[0], &vectors[1], &vectors[2], &vectors[3], &vectors[4]);
    let near = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-5);
    let sign = if r0.iter().zip(&q).map(|(a, b)| a * b).sum::<f32>() < 0.0 { -1.0 } else { 1.0 };
    let q: Vec<f32> = q.iter().map(|c| sign * c).collect();
    let com = if com_kept {
        let d = [0, 1, 2].map(|k| f64::from(c0[k]) - f64::from(p[k]));
        let want = rotate_inverse([q[0], q[1], q[2], q[3]], d).map(|c| c as f32);
        near(&local[..3], &want) && local[3] == 0.0
    } else {
        local.iter().all(|x| *x == 0.0) && near(&c0[..3], &p[..3])
    };
    c0 == c1 && r0 == r1 && c0[3] == 0.0 && com && near(r0, &q)
}

/// Vector `v` rotated by the inverse of unit quaternion `q` (x, y, z, w), in 64 bits: a world
/// offset in the body's frame.
pub fn rotate_inverse(q: [f32; 4], v: [f64; 3]) -> [f64; 3] {
    let (x, y, z, w) = (-f64::from(q[0]), -f64::from(q[1]), -f64::from(q[2]), f64::from(q[3]));
    let cross = |a: [f64; 3], b: [f64; 3]| [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
    let t = cross([x, y, z], v).map(|c| 2.0 * c);
    let u = cross([x, y, z], t);
    [0, 1, 2].map(|k| v[k] + w * t[k] + u[k])
}

/// Unit quaternion `q` (x, y, z, w) and position `p` as a column-major 4x4 transform (in 64
/// bits, each component rounded to 32).
pub fn quaternion_transform(q: [f32; 4], p: [f32; 4]) -> [f32; 16] {
    let [x, y, z, w] = q.map(f64::from);
    let m = [
        1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + w * z), 2.0 * (x * z - w * y), 0.0,
        2.0 * (x * y - w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + w * x), 0.0,
        2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y), 0.0,
    ];
    let mut out = [0.0f32; 16];
    for (o, v) in out.iter_mut().zip(m) {
        *o = v as f32;
    }
    out[12..15].copy_from_slice(&p[..3]);
    out[15] = 1.0;
    out
}

/// The inverse of [`quaternion_transform`]: a transform's rotation (three columns of four, the
/// axes) as a unit quaternion (x, y, z, w; w >= 0, normalised) and its fourth column as the
/// position (w 1). Nothing where a value is not finite or the axes are not a rotation (not of
/// unit length and at right angles within 1e-3, or a reflection).
pub fn transform_quaternion(t: &[f32]) -> Option<([f32; 4], [f32; 4])> {
    if t.len() != 16 || t.iter().any(|x| !x.is_finite()) {
        return None;
    }
    // r[row][col] = t[4 * col + row]
    let r = |row: usize, col: usize| f64::from(t[4 * col + row]);
    for a in 0..3 {
        for b in 0..3 {
            let dot: f64 = (0..3).map(|k| r(k, a) * r(k, b)).sum();
            if (dot - if a == b { 1.0 } else { 0.0 }).abs() > 1e-3 {
                return None;
            }
        }
    }
    let det = r(0, 0) * (r(1, 1) * r(2, 2) - r(1, 2) * r(2, 1)) - r(0, 1) * (r(1, 0) * r(2, 2) - r(1, 2) * r(2, 0)) + r(0, 2) * (r(1, 0) * r(2, 1) - r(1, 1) * r(2, 0));
    if det < 0.0 {
        return None;
    }
    // Shepperd: from the largest of w, x, y, z, so that no division is by a small number.
    let trace = r(0, 0) + r(1, 1) + r(2, 2);
    let q = if trace > 0.0 {
        let s = (trace + 1.0).sqrt() * 2.0;
        [(r(2, 1) - r(1, 2)) / s, (r(0, 2) - r(2, 0)) / s, (r(1, 0) - r(0, 1)) / s, 0.25 * s]
    } else if r(0, 0) > r(1, 1) && r(0, 0) > r(2, 2) {
        let s = (1.0 + r(0, 0) - r(1, 1) - r(2, 2)).sqrt() * 2.0;
        [0.25 * s, (r(0, 1) + r(1, 0)) / s, (r(0, 2) + r(2, 0)) / s, (r(2, 1) - r(1, 2)) / s]
    } else if r(1, 1) > r(2, 2) {
        let s = (1.0 + r(1, 1) - r(0, 0) - r(2, 2)).sqrt() * 2.0;
        [(r(0, 1) + r(1, 0)) / s, 0.25 * s, (r(1, 2) + r(2, 1)) / s, (r(0, 2) - r(2, 0)) / s]
    } else {
        let s = (1.0 + r(2, 2) - r(0, 0) - r(1, 1)).sqrt() * 2.0;
        [(r(0, 2) + r(2, 0)) / s, (r(1, 2) + r(2, 1)) / s, 0.25 * s, (r(1, 0) - r(0, 1)) / s]
    };
    let n = q.iter().map(|c| c * c).sum::<f64>().sqrt();
    let sign = if q[3] < 0.0 { -1.0 } else { 1.0 };
    let q = q.map(|c| (sign * c / n) as f32);
    Some((q, [t[12], t[13], t[14], 1.0]))
}

/// The value at dotted `path` within records `m` (records only; a bounded walk).
pub fn path_get<'m>(m: &'m Members, path: &str) -> Option<&'m Val> {
    let mut parts = path.split('.');
    let mut v = m.get(parts.next()?)?;
    for p in parts {
        let Val::Record(r) = v else { return None };
        v = r.get(p)?;
    }
    Some(v)
}

/// As [`path_get`], where the last name may end in an element index (`entities[1]`).
pub fn path_get_indexed<'m>(m: &'m Members, path: &str) -> Option<&'m Val> {
    let Some((head, k)) = path.strip_suffix(']').and_then(|p| p.rsplit_once('[')) else { return path_get(m, path) };
    let k: usize = k.parse().ok()?;
    match path_get(m, head)? {
        Val::List(l) | Val::Array(l, _) => l.get(k),
        _ => None,
    }
}

/// Sets dotted `path` within `m` to `v`, building the records along it (a non-record in the
/// way is replaced by one).
pub fn path_set(m: &mut Members, path: &str, v: Val) {
    // `name[k]`: element k of a list member (the list grown with nulls).
    if let Some((name, k)) = path.strip_suffix(']').and_then(|p| p.split_once('[')).filter(|_| !path.contains('.')) {
        let Ok(k) = k.parse::<usize>() else { return };
        if k > 4096 {
            return;
        }
        let i = match m.0.iter().position(|(n, _)| n == name) {
            Some(i) => i,
            None => {
                m.0.push((name.to_owned(), Val::List(Vec::new())));
                m.0.len() - 1
            }
        };
        if !matches!(m.0[i].1, Val::List(_)) {
            m.0[i].1 = Val::List(Vec::new());
        }
        if let Val::List(l) = &mut m.0[i].1 {
            if l.len() <= k {
                l.resize(k + 1, Val::Null);
            }
            l[k] = v;
        }
        return;
    }
    match path.split_once('.') {
        None => match m.0.iter_mut().find(|(n, _)| n == path) {
            Some(slot) => slot.1 = v,
            None => m.0.push((path.to_owned(), v)),
        },
        Some((first, rest)) => {
            let i = match m.0.iter().position(|(n, _)| n == first) {
                Some(i) => i,
                None => {
                    m.0.push((first.to_owned(), Val::Record(Members(Vec::new()))));
                    m.0.len() - 1
                }
            };
            if !matches!(m.0[i].1, Val::Record(_)) {
                m.0[i].1 = Val::Record(Members(Vec::new()));
            }
            if let Val::Record(inner) = &mut m.0[i].1 {
                path_set(inner, rest, v);
            }
        }
    }
}

/// A member of the records of an [`IndexedRecords`] table (`class`, the record's type) that is
/// computed from a value the record's indexing element reaches by path `from`: where the target
/// keeps the members inline and has no place for `member`, a source value that the computation
/// gives back within `tolerance_ulps` units in the last place (each component) is reported as
/// computed, not lost (any other value is a loss); where the target's table is rebuilt from
/// the elements, `member` takes the computed value instead of a default.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Computed {
    /// The record's class (or one it derives from), or `*`.
    pub class: String,
    /// The member computed.
    pub member: String,
    /// The path from the indexing element to the source value: member names separated by `.`,
    /// a pointer followed to its object, an array searched for the first element the rest of
    /// the path resolves in.
    pub from: String,
    /// The path (as `from`) of the op's second operand, for the ops that take one.
    #[serde(default)]
    pub with: Option<String>,
    /// The computation.
    pub op: ComputeOp,
    /// How far (units in the last place of a 32-bit real, each component) a stored value may be
    /// from the computed one and still count as it.
    pub tolerance_ulps: u32,
    /// The stock files and figures that show it.
    pub evidence: String,
}

/// A computation of a [`Computed`] rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum ComputeOp {
    /// An `hkPackedVector3` (three `hkInt16` and an exponent, the exponent's bits the high half
    /// of a 32-bit real: component k is `values[k] * 2^16 * exponent`) unpacked, each of x, y, z
    /// replaced by its reciprocal (0 stays 0), w 1.0: a motion's inverse inertia from the
    /// shape's packed inertia.
    InversePackedVector3,
    /// The quaternion `with` (four reals) times the packed unit quaternion `from` (four
    /// `hkInt16`, each `(bits ^ 0x8000) / 30000` as a signed number, then normalised), in 64
    /// bits, each component rounded to 32: a motion's orientation from its body's and the
    /// shape's `majorAxisSpace`.
    RotatedByPackedQuaternion,
}

impl Computed {
    /// The source value at `from` from element `element`, `object` giving an object's members
    /// by handle. Each step takes one path segment, so the walk is bounded by the path.
    pub fn source<'o>(&self, element: &Members, object: &dyn Fn(u32) -> Option<&'o Members>) -> Option<Val> {
        resolve(&self.from, element, object)
    }

    /// The computed value for element `element` (`object` as for [`Computed::source`]).
    pub fn evaluate<'o>(&self, element: &Members, object: &dyn Fn(u32) -> Option<&'o Members>) -> Option<Val> {
        let v = self.source(element, object)?;
        let with = match &self.with {
            Some(p) => Some(resolve(p, element, object)?),
            None => None,
        };
        self.compute(&v, with.as_ref())
    }

    /// The computed value from the source value `v`, when `v` has the shape the op takes.
    pub fn compute(&self, v: &Val, with: Option<&Val>) -> Option<Val> {
        match self.op {
            ComputeOp::RotatedByPackedQuaternion => {
                let r = int16s(v)?;
                let q: Vec<f64> = reals(with?)?.into_iter().map(f64::from).collect();
                let r = <[i16; 4]>::try_from(r).ok()?.map(|c| f64::from(((c as u16) ^ 0x8000) as i16) / 30000.0);
                let [qx, qy, qz, qw] = <[f64; 4]>::try_from(q).ok()?;
                let n = r.iter().map(|c| c * c).sum::<f64>().sqrt();
                if n == 0.0 {
                    return None;
                }
                let [rx, ry, rz, rw] = r.map(|c| c / n);
                let out = [
                    qw * rx + qx * rw + qy * rz - qz * ry,
                    qw * ry - qx * rz + qy * rw + qz * rx,
                    qw * rz + qx * ry - qy * rx + qz * rw,
                    qw * rw - qx * rx - qy * ry - qz * rz,
                ];
                Some(Val::List(out.iter().map(|c| Val::Real(*c as f32)).collect()))
            }
            ComputeOp::InversePackedVector3 => {
                let [x, y, z, e] = int16s(v)?[..] else { return None };
                let e = f32::from_bits(u32::from(e as u16) << 16);
                let inv = |c: i16| {
                    let x = ((i32::from(c)) << 16) as f32 * e;
                    if x == 0.0 { 0.0 } else { 1.0 / x }
                };
                Some(Val::List(vec![Val::Real(inv(x)), Val::Real(inv(y)), Val::Real(inv(z)), Val::Real(1.0)]))
            }
        }
    }

    /// The largest distance in units in the last place between the components of `stored` and
    /// `computed`, when both are reals of the same count.
    pub fn ulps(stored: &Val, computed: &Val) -> Option<u32> {
        let (a, b) = (reals(stored)?, reals(computed)?);
        if a.len() != b.len() {
            return None;
        }
        a.iter().zip(&b).map(|(x, y)| ulp_distance(*x, *y)).try_fold(0, |m, d| d.map(|d| m.max(d)))
    }
}

/// The value at `path` (member names separated by `.`) from `element`: a pointer is followed to
/// its object, an array searched for the first element the rest of the path resolves in. Each
/// step takes one segment, so the walk is bounded by the path.
fn resolve<'o>(path: &str, element: &Members, object: &dyn Fn(u32) -> Option<&'o Members>) -> Option<Val> {
    fn walk<'o>(v: &Val, path: &[&str], object: &dyn Fn(u32) -> Option<&'o Members>) -> Option<Val> {
        let Some((first, rest)) = path.split_first() else { return Some(v.clone()) };
        match v {
            Val::Ref(h, None) => walk_members(object(*h)?, first, rest, object),
            Val::Record(m) => walk_members(m, first, rest, object),
            Val::List(items) | Val::Array(items, _) => items.iter().find_map(|i| walk(i, path, object)),
            _ => None,
        }
    }
    fn walk_members<'o>(m: &Members, first: &str, rest: &[&str], object: &dyn Fn(u32) -> Option<&'o Members>) -> Option<Val> {
        walk(m.get(first)?, rest, object)
    }
    let path: Vec<&str> = path.split('.').collect();
    let (first, rest) = path.split_first()?;
    walk_members(element, first, rest, object)
}

/// The 16-bit integers of a list (or of the one member of a record holding one: 2016.2's
/// `hkPackedVector3 {values}`).
fn int16s(v: &Val) -> Option<Vec<i16>> {
    let v = match v {
        Val::Record(m) if m.0.len() == 1 => &m.0[0].1,
        v => v,
    };
    let (Val::List(items) | Val::Array(items, _)) = v else { return None };
    items
        .iter()
        .map(|i| match i {
            Val::Int(x) => i16::try_from(*x).ok(),
            Val::UInt(x) => i16::try_from(*x).ok(),
            _ => None,
        })
        .collect()
}

/// The reals of a list.
fn reals(v: &Val) -> Option<Vec<f32>> {
    let (Val::List(items) | Val::Array(items, _)) = v else { return None };
    items.iter().map(|i| if let Val::Real(x) = i { Some(*x) } else { None }).collect()
}

/// The count of 32-bit reals between `a` and `b` (0 for equal ones, +0 and -0 too); none where
/// either is NaN.
pub fn ulp_distance(a: f32, b: f32) -> Option<u32> {
    if a.is_nan() || b.is_nan() {
        return None;
    }
    // The reals in order as integers: negative ones mirrored below zero.
    let key = |x: f32| {
        let b = x.to_bits() as i32;
        if b < 0 { i64::from(i32::MIN) - i64::from(b) } else { i64::from(b) }
    };
    u32::try_from((key(a) - key(b)).unsigned_abs()).ok()
}

/// An array member that lists member `take` of each element of array `elements`, ordered by
/// the first of `order_by` each element has (values 0..n once each): dropped without loss by a
/// target that lacks it when the source's equals that list, rebuilt so for a target that has it
/// (2016.2's `hknpPhysicsSystemData.referencedObjects`: the bodies' shapes in motion order).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Derived {
    /// The class declaring `member`, or `*`.
    pub class: String,
    /// The derived array.
    pub member: String,
    /// The array it is derived from.
    pub elements: String,
    /// The member of each element it lists.
    pub take: String,
    /// The members of an element giving its place in the list, the first present used.
    pub order_by: Vec<String>,
    /// The stock files that show it.
    pub evidence: String,
}

impl Derived {
    /// The list the rule derives from members `src`, when their elements give it.
    pub fn derive(&self, src: &hktypes::dump::Members) -> Option<Vec<Val>> {
        let (Val::List(elements) | Val::Array(elements, _)) = src.get(&self.elements)? else { return None };
        let n = elements.len();
        let mut out: Vec<Option<Val>> = vec![None; n];
        for e in elements {
            let Val::Record(e) = e else { return None };
            let key = self.order_by.iter().find_map(|k| e.get(k))?;
            let Val::UInt(i) = key else { return None };
            let slot = out.get_mut(usize::try_from(*i).ok()?)?;
            if slot.is_some() {
                return None;
            }
            *slot = Some(e.get(&self.take)?.clone());
        }
        out.into_iter().collect()
    }
}

/// Members of a class that one SDK keeps directly and another in record member `member` (2016.2's
/// `hknpMotionProperties.maxDistSqrd`, 2018.1's `deactivationSettings.maxDistSqrd`): taken
/// into the record where the target has it and the source does not, out of it the other way.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Grouped {
    /// The class declaring `member`, or `*`.
    pub class: String,
    /// The record member.
    pub member: String,
    /// The members it holds (the same names both ways).
    pub members: Vec<String>,
    /// The two SDKs' schemas and files.
    pub evidence: String,
}

/// Members of the records of array `table`, which the elements of array `elements` index by
/// their member `index` in one SDK, kept in the elements themselves in another (2014.1's
/// `hknpPhysicsSystemData.motionCinfos[bodyCinfos[k].motionId]`, 2016.2's `bodyCinfos[k]`).
/// Where the source has `table` and the target does not, each element takes its record's
/// mapped members and `unindexed` as its index; the record's other members are losses. The
/// other way, each element whose index is `unindexed` gives its mapped members to a new record
/// of the table, which it then indexes; the record's other members take the target's defaults.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexedRecords {
    /// The class declaring both arrays, or `*`.
    pub class: String,
    /// The array whose elements index the table.
    pub elements: String,
    /// The member of an element holding its record's index.
    pub index: String,
    /// The array of records indexed.
    pub table: String,
    /// What an element's index holds where the SDK keeps the members inline.
    pub unindexed: Val,
    /// The members carried: a record's member and the element's.
    pub members: Vec<IndexedMember>,
    /// Members an element that keeps a record's members inline holds for it (2016.2's
    /// `motionType: DYNAMIC`): set where the members move in, dropped where they move out when
    /// equal (a loss otherwise).
    #[serde(default)]
    pub inline_values: Vec<(String, Val)>,
    /// A record member whose value is the record's index in the table, where the source's
    /// records were so ordered (2014.1 motion k has motionPropertiesId k): records built from
    /// the elements go to those indices when their values are 0..n each once, else in the
    /// elements' order.
    #[serde(default)]
    pub order_by: Option<String>,
    /// The stock files that store them each way.
    pub evidence: String,
}

/// One member of an [`IndexedRecords`] rule.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexedMember {
    /// Its name in the table's record.
    pub record: String,
    /// Its name in the element.
    pub element: String,
    /// How the element's value is computed from the record's (and back).
    #[serde(default)]
    pub conversion: Option<IndexedConversion>,
}

/// A conversion between an [`IndexedMember`]'s two values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum IndexedConversion {
    /// The one is 1/the other (a mass and its inverse; 0 stays 0, an infinite mass).
    Reciprocal,
}

/// A member whose value depends on the SDK and pointer size the file was written for.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuildValue {
    /// The class declaring the member, or `*`.
    pub class: String,
    /// The member.
    pub member: String,
    /// What each build stores for it. A source value equal to its build's entry becomes the
    /// target build's entry; any other value is carried as it is.
    pub values: Vec<Stored>,
    /// The stock files that hold them.
    pub evidence: String,
}

/// One build's stored value of a [`BuildValue`].
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stored {
    /// The SDK (`2010.2`).
    pub sdk: String,
    /// The pointer size, 4 or 8.
    pub pointer_size: u8,
    /// The value stored.
    pub value: Val,
}

/// A member renamed: `before` in older SDKs, `after` in newer ones.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rename {
    /// The class declaring the member, or `*`.
    pub class: String,
    /// The older name.
    pub before: String,
    /// The newer name.
    pub after: String,
    /// Where the rename is seen (schemas, files).
    pub evidence: String,
}

/// A member stored in another shape by some SDKs.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Conversion {
    /// The class declaring the member, or `*`.
    pub class: String,
    /// The member.
    pub member: String,
    /// The conversion ([`ValueConversion`]), applied in whichever direction the shapes ask.
    pub conversion: ValueConversion,
    /// Where the two shapes are seen.
    pub evidence: String,
}

/// A named conversion between two shapes of one value. Each is its own inverse pair, so a rule
/// serves both directions and A -> B -> A gives A's value back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum ValueConversion {
    /// A scalar (integer or real) or an array is the one member of a record: `hkUFloat8`, an
    /// 8-bit integer member in 2010.2 and a record `{value}` in 2015.1; `hkPackedVector3`, four
    /// `hkInt16` in 2014.1 and a record `{values}` in 2016.2.
    ScalarInRecord,
    /// A record of N members is a fixed array of N values in member order: `hkSweptTransform`,
    /// a record of five vectors in 2010.2 and five `hkVector4` in 2015.1.
    RecordAsArray,
}

/// The value Havok writes for a member of target SDKs that the source lacks.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemberDefault {
    /// The class declaring the member, or `*`.
    pub class: String,
    /// The member.
    pub member: String,
    /// The target SDKs this holds for (`["2015.1", "2016.2"]`); empty: every SDK that has the
    /// member.
    #[serde(default)]
    pub sdks: Vec<String>,
    /// The value, in the dump's shape (an enum by item name or number).
    pub value: Val,
    /// The stock files that hold it.
    pub evidence: String,
}

/// A member whose value is rebuilt at run time: dropped without loss by a target that lacks it
/// (or given the target's default where the target has it under its own rules).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Runtime {
    /// The class declaring the member, or `*`.
    pub class: String,
    /// The member.
    pub member: String,
    /// Why its value need not be carried over.
    pub reason: String,
}

fn class_matches(rule: &str, ancestry: &[String]) -> bool {
    rule == "*" || ancestry.iter().any(|a| a == rule)
}

impl Migrations {
    /// Reads rules from RON text (`what` names it in errors).
    pub fn from_ron(text: &str, what: &str) -> Result<Migrations, String> {
        ron::from_str(text).map_err(|e| format!("{what}: {e}"))
    }

    /// The committed rules of `schemas/migrations/`, all files together.
    pub fn builtin() -> Migrations {
        let mut all = Migrations::default();
        for (name, text) in BUILTIN {
            // The committed files are read by a test (`builtin_rules_parse`); a broken one is a
            // build defect, not an input error.
            let m = Migrations::from_ron(text, name).unwrap_or_else(|e| panic!("{e}"));
            all.extend(m);
        }
        all
    }

    /// Adds the rules of `other`.
    pub fn extend(&mut self, other: Migrations) {
        self.renames.extend(other.renames);
        self.conversions.extend(other.conversions);
        self.defaults.extend(other.defaults);
        self.runtime.extend(other.runtime);
        self.build_values.extend(other.build_values);
        self.indexed_records.extend(other.indexed_records);
        self.grouped.extend(other.grouped);
        self.derived.extend(other.derived);
        self.computed.extend(other.computed);
        self.replacements.extend(other.replacements);
        self.class_names.extend(other.class_names);
    }

    /// These rules with the preference of target SDK `sdk` for the side of each replacement
    /// whose class name starts with `prefix` (`hkp`, `hknp`): a rule whose `from` class does is
    /// preferred for `sdk` (with the classes every preference of the rule names, `with`), one
    /// whose `to` class does is not. An error where no replacement has a class of that prefix.
    pub fn with_preference(&self, sdk: &str, prefix: &str) -> Result<Migrations, String> {
        let mut m = self.clone();
        let mut any = false;
        for r in &mut m.replacements {
            if r.from.starts_with(prefix) && !r.to.starts_with(prefix) {
                any = true;
                if !r.preferred.iter().any(|p| p.sdk == sdk) {
                    let mut with: Vec<String> = Vec::new();
                    for w in r.preferred.iter().flat_map(|p| &p.with) {
                        if !with.contains(w) {
                            with.push(w.clone());
                        }
                    }
                    let evidence = format!("asked for: {sdk} takes {} where it has both ({})", r.from, r.evidence);
                    r.preferred.push(Preferred { sdk: sdk.to_owned(), with, evidence });
                }
            } else if r.to.starts_with(prefix) && !r.from.starts_with(prefix) {
                any = true;
                r.preferred.retain(|p| p.sdk != sdk);
            }
        }
        if any {
            Ok(m)
        } else {
            let sides: Vec<String> = self.replacements.iter().filter(|r| !r.records).map(|r| format!("{} / {}", r.from, r.to)).collect();
            Err(format!("--prefer {prefix}: no class replacement has a side of classes named {prefix}... (the replacements: {})", sides.join(", ")))
        }
    }

    /// The replacement rule for an object of class `class` where target SDK `sdk` has (`has`)
    /// the class in its stead and lacks `class`, or has both and prefers the other
    /// ([`Replacement::preferred`]), with the way it applies.
    /// `sdk` is none where the preference does not apply to the file ([`Preferred::with`]).
    pub fn replacement(&self, class: &str, has: &dyn Fn(&str) -> bool, sdk: Option<&str>) -> Option<(&Replacement, Way)> {
        self.replacements.iter().filter(|r| !r.records).find_map(|r| {
            if r.from == class && has(&r.to) && !has(class) {
                Some((r, Way::Forward))
            } else if r.to == class && has(&r.from) && (!has(class) || r.preferred.iter().any(|p| Some(p.sdk.as_str()) == sdk)) {
                Some((r, Way::Back))
            } else {
                None
            }
        })
    }

    /// Whether an object that a preference of target SDK `sdk` would replace may reach an
    /// object of class `reached`: a class a rule replaces (either way), or one the preference
    /// names ([`Preferred::with`]), with what it points to.
    /// `Some(true)` where the object's own pointers are followed too (a replaced class), `Some(false)`
    /// where what it points to is kept with it (a class the preference names), `None` where the
    /// preference may not reach it.
    pub fn preference_reaches(&self, sdk: &str, reached: &str) -> Option<bool> {
        if self.replacements.iter().any(|r| r.from == reached || r.to == reached) {
            Some(true)
        } else if self.replacements.iter().flat_map(|r| &r.preferred).any(|p| p.sdk == sdk && p.with.iter().any(|w| w == reached)) {
            Some(false)
        } else {
            None
        }
    }

    /// Whether a preference of target SDK `sdk` replaces objects of `class` the target has.
    pub fn preferred_away(&self, sdk: &str, class: &str) -> bool {
        self.replacements.iter().any(|r| !r.records && r.to == class && r.preferred.iter().any(|p| p.sdk == sdk))
    }

    /// The record rule ([`Replacement::records`]) whose records become objects of `class`.
    pub fn record_replacement(&self, class: &str) -> Option<&Replacement> {
        self.replacements.iter().find(|r| r.records && r.to == class)
    }

    /// Whether member `name` of a record of `ancestry` names a class.
    pub fn names_class(&self, ancestry: &[String], name: &str) -> Option<&ClassName> {
        self.class_names.iter().find(|r| class_matches(&r.class, ancestry) && r.member == name)
    }

    /// The value a build of SDK `to` with `to_ptr`-byte pointers stores for member `name` where
    /// a build of `from` with `from_ptr`-byte pointers stores `v`, when a rule says.
    pub fn build_value(&self, ancestry: &[String], name: &str, v: &Val, from: (&str, u8), to: (&str, u8)) -> Option<&Val> {
        let rule = self.build_values.iter().find(|r| class_matches(&r.class, ancestry) && r.member == name)?;
        rule.values.iter().find(|s| s.sdk == from.0 && s.pointer_size == from.1 && s.value == *v)?;
        rule.values.iter().find(|s| s.sdk == to.0 && s.pointer_size == to.1).map(|s| &s.value)
    }

    /// The other names member `name` of a record (whose type and ancestors are `ancestry`) may
    /// have in another SDK.
    pub fn other_names(&self, ancestry: &[String], name: &str) -> Vec<&Rename> {
        self.renames
            .iter()
            .filter(|r| class_matches(&r.class, ancestry) && (r.before == name || r.after == name))
            .collect()
    }

    /// The conversion named for member `name`.
    pub fn conversion(&self, ancestry: &[String], name: &str) -> Option<&Conversion> {
        self.conversions.iter().find(|c| class_matches(&c.class, ancestry) && c.member == name)
    }

    /// The indexed-record rules for a class with ancestry `ancestry`.
    pub fn indexed_records(&self, ancestry: &[String]) -> Vec<&IndexedRecords> {
        self.indexed_records.iter().filter(|r| class_matches(&r.class, ancestry)).collect()
    }

    /// The grouping rules for a record with ancestry `ancestry`.
    pub fn grouped(&self, ancestry: &[String]) -> Vec<&Grouped> {
        self.grouped.iter().filter(|r| class_matches(&r.class, ancestry)).collect()
    }

    /// The derived-array rules for a record with ancestry `ancestry`.
    pub fn derived(&self, ancestry: &[String]) -> Vec<&Derived> {
        self.derived.iter().filter(|r| class_matches(&r.class, ancestry)).collect()
    }

    /// The computed-member rules for records with ancestry `ancestry`.
    pub fn computed(&self, ancestry: &[String]) -> Vec<&Computed> {
        self.computed.iter().filter(|r| class_matches(&r.class, ancestry)).collect()
    }

    /// The value Havok writes for member `name` in SDK `sdk`.
    pub fn default_for(&self, ancestry: &[String], name: &str, sdk: &str) -> Option<&MemberDefault> {
        self.defaults
            .iter()
            .find(|d| class_matches(&d.class, ancestry) && d.member == name && (d.sdks.is_empty() || d.sdks.iter().any(|s| s == sdk)))
    }

    /// Whether any default is named for a member of a record of `ancestry` in SDK `sdk`.
    pub fn has_defaults(&self, ancestry: &[String], sdk: &str) -> bool {
        self.defaults.iter().any(|d| d.class != "*" && class_matches(&d.class, ancestry) && (d.sdks.is_empty() || d.sdks.iter().any(|s| s == sdk)))
    }

    /// Whether member `name` holds only what the run time rebuilds.
    pub fn runtime(&self, ancestry: &[String], name: &str) -> Option<&Runtime> {
        self.runtime.iter().find(|r| class_matches(&r.class, ancestry) && r.member == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(motion: u64, shape: u32) -> Val {
        Val::Record(Members(vec![("motionPropertiesId".into(), Val::UInt(motion)), ("shape".into(), Val::Ref(shape, None))]))
    }

    fn rule() -> Derived {
        Migrations::builtin().derived.into_iter().find(|d| d.member == "referencedObjects").unwrap()
    }

    /// The bodies' shapes in motion order; nothing where the order is no permutation of 0..n
    /// (a repeated or out-of-range index, a missing member), so the array is kept, or lost by name.
    #[test]
    fn derived_lists_only_a_permutation() {
        let r = rule();
        let of = |bodies: Vec<Val>| r.derive(&Members(vec![("bodyCinfos".into(), Val::List(bodies))]));
        assert_eq!(of(vec![body(1, 10), body(0, 11)]), Some(vec![Val::Ref(11, None), Val::Ref(10, None)]));
        assert_eq!(of(vec![body(0, 10), body(0, 11)]), None);
        assert_eq!(of(vec![body(0, 10), body(5, 11)]), None);
        assert_eq!(of(vec![body(u64::MAX, 10)]), None);
        assert_eq!(of(vec![Val::Record(Members(vec![("shape".into(), Val::Ref(1, None))]))]), None);
        assert_eq!(of(vec![]), Some(vec![]));
        assert_eq!(r.derive(&Members(vec![])), None);
    }

    fn inertia_rule() -> Computed {
        Migrations::builtin().computed.into_iter().find(|c| c.member == "inverseInertiaLocal").unwrap()
    }

    /// c1400.HKX's pelvis: packed inertia [17839, 12292, 17839, 11904] is 17839 * 2^-18 = 0.06805
    /// (x, z) and 12292 * 2^-18 (y), whose reciprocals are the stored 14.694993 and 21.32639
    /// within an ulp; the 2016.2 shape (`{values}`) and 2014.1's (four integers) alike.
    #[test]
    fn inverse_packed_inertia() {
        let r = inertia_rule();
        let ints = |v: &[i64]| Val::List(v.iter().map(|x| if *x < 0 { Val::Int(*x) } else { Val::UInt(*x as u64) }).collect());
        let got = r.compute(&ints(&[17839, 12292, 17839, 11904]), None).unwrap();
        let stored = Val::List(vec![Val::Real(14.694993), Val::Real(21.32639), Val::Real(14.694993), Val::Real(1.0)]);
        assert!(Computed::ulps(&stored, &got).unwrap() <= 1, "{got:?}");
        let wrapped = Val::Record(Members(vec![("values".into(), ints(&[17839, 12292, 17839, 11904]))]));
        assert_eq!(r.compute(&wrapped, None), Some(got));
        // Zero stays zero; another shape computes nothing.
        assert_eq!(r.compute(&ints(&[0, 0, 0, 11904]), None), Some(Val::List(vec![Val::Real(0.0), Val::Real(0.0), Val::Real(0.0), Val::Real(1.0)])));
        assert_eq!(r.compute(&ints(&[1, 2, 3]), None), None);
        assert_eq!(r.compute(&Val::Real(1.0), None), None);
        assert_eq!(r.compute(&ints(&[1, 2, 3, 70000]), None), None);
    }

    /// c1400.HKX's pelvis: its body's orientation times the packed identity (0x8000 0x8000 0x7fff
    /// 0xf530: 0, 0, -1/30000, 1.0) is the motion's stored orientation within 3 ulp.
    #[test]
    fn rotated_by_packed_quaternion() {
        let r = Migrations::builtin().computed.into_iter().find(|c| c.member == "orientation").unwrap();
        let reals = |v: [f32; 4]| Val::List(v.iter().map(|x| Val::Real(*x)).collect());
        let packed = Val::List([-32768i64, -32768, 32767, -2768].iter().map(|x| Val::Int(*x)).collect());
        let body = reals([0.70710737, 0.7071061, 1.7406663e-6, 1.7406642e-6]);
        let got = r.compute(&packed, Some(&body)).unwrap();
        let stored = reals([0.70708376, 0.7071296, 1.7406082e-6, 1.740722e-6]);
        assert!(Computed::ulps(&stored, &got).unwrap() <= 3, "{got:?}");
        // No second operand, or a packed zero quaternion, computes nothing.
        assert_eq!(r.compute(&packed, None), None);
        let zero = Val::List([-32768i64; 4].iter().map(|x| Val::Int(*x)).collect());
        assert_eq!(r.compute(&zero, Some(&body)), None);
    }

    /// The path follows pointers and searches arrays; a missing object or member gives nothing.
    #[test]
    fn computed_source_follows_pointers() {
        let r = inertia_rule();
        let body = Members(vec![("shape".into(), Val::Ref(6, None))]);
        let shape = Members(vec![("properties".into(), Val::Ref(7, None))]);
        let props = Members(vec![("entries".into(), Val::List(vec![Val::Record(Members(vec![("object".into(), Val::Ref(8, None))]))]))]);
        let inertia = Val::List(vec![Val::UInt(1), Val::UInt(2), Val::UInt(3), Val::UInt(4)]);
        let mass = Members(vec![("compressedMassProperties".into(), Val::Record(Members(vec![("inertia".into(), inertia.clone())])))]);
        let objects = [(6, shape), (7, props), (8, mass)];
        let object = |h: u32| objects.iter().find(|(k, _)| *k == h).map(|(_, m)| m);
        assert_eq!(r.source(&body, &object), Some(inertia));
        let none = |_: u32| None;
        assert_eq!(r.source(&body, &none), None);
        assert_eq!(r.source(&Members(vec![]), &object), None);
    }

    fn capsule_rule() -> Replacement {
        Migrations::builtin().replacements.into_iter().find(|r| r.from == "hknpCapsuleShape").unwrap()
    }

    /// c1400's first capsule as DSR's shape (vertexA.w the radius) and back (a.w 0); members the
    /// rule does not list are not carried, even under the same name.
    #[test]
    fn capsule_replaced_both_ways() {
        let r = capsule_rule();
        let v = |x: [f32; 4]| Val::List(x.iter().map(|c| Val::Real(*c)).collect());
        let hknp = Members(vec![
            ("dispatchType".into(), Val::Str("CONVEX".into())),
            ("convexRadius".into(), Val::Real(0.101810664)),
            ("a".into(), v([5.297208e-7, 0.038160928, 0.0057549314, 0.0])),
            ("b".into(), v([-6.489283e-7, -0.038160972, 0.0057538473, 0.0])),
        ]);
        let (none, no_owner) = (|_: &str| None, |_: &str| None);
        let (hkp, carried) = r.remap(Way::Forward, &hknp, &none, &no_owner);
        assert_eq!(hkp.get("radius"), Some(&Val::Real(0.101810664)));
        assert_eq!(hkp.get("vertexA"), Some(&v([5.297208e-7, 0.038160928, 0.0057549314, 0.101810664])));
        assert_eq!(hkp.get("dispatchType"), None);
        assert_eq!(carried, ["convexRadius", "a", "b"]);
        let (back, _) = r.remap(Way::Back, &hkp, &none, &no_owner);
        assert_eq!(back.get("a"), hknp.get("a"));
        assert_eq!(back.get("b"), hknp.get("b"));
        assert_eq!(back.get("convexRadius"), hknp.get("convexRadius"));
    }

    /// A material's dynamic and static friction are hkp's one friction: the static one is
    /// carried only where it equals the dynamic one (else it is a named loss of the caller's).
    #[test]
    fn shared_members_of_one_path() {
        let r = Migrations::builtin().replacements.into_iter().find(|r| r.from == "hknpBodyCinfo").unwrap();
        let material = |d: f32, s: f32| Members(vec![("dynamicFriction".into(), Val::Real(d)), ("staticFriction".into(), Val::Real(s)), ("restitution".into(), Val::Real(0.0))]);
        assert_eq!(r.carried_from_record("materials", &material(1.0, 1.0)), ["dynamicFriction", "staticFriction", "restitution"]);
        assert_eq!(r.carried_from_record("materials", &material(0.5, 1.0)), ["dynamicFriction", "restitution"]);
        assert!(r.carried_from_record("motionCinfos", &material(1.0, 1.0)).is_empty());
        let body = Members(vec![("materialId".into(), Val::UInt(1))]);
        let owner = |name: &str| (name == "materials").then(|| Val::List(vec![Val::Record(material(1.0, 1.0)), Val::Record(material(0.5, 1.0))]));
        let (hkp, carried) = r.remap(Way::Forward, &body, &|_| None, &owner);
        assert_eq!(path_get(&hkp, "material.friction"), Some(&Val::Real(0.5)));
        assert_eq!(carried, ["materials[].dynamicFriction", "materials[].restitution"]);
    }

    /// Paths build the records along them; `name[k]` grows a list with nulls; an absurd index
    /// is refused.
    #[test]
    fn paths_build_records_and_elements() {
        let mut m = Members(Vec::new());
        path_set(&mut m, "collidable.broadPhaseHandle.collisionFilterInfo", Val::UInt(7));
        path_set(&mut m, "entities[1]", Val::Ref(3, None));
        path_set(&mut m, "motion.inertiaAndMassInv", Val::List(vec![Val::Real(1.0); 4]));
        path_set(&mut m, "motion.inertiaAndMassInv[3]", Val::Real(0.5));
        path_set(&mut m, "x[99999]", Val::Null);
        assert_eq!(path_get(&m, "collidable.broadPhaseHandle.collisionFilterInfo"), Some(&Val::UInt(7)));
        assert_eq!(m.get("entities"), Some(&Val::List(vec![Val::Null, Val::Ref(3, None)])));
        assert_eq!(path_get(&m, "motion.inertiaAndMassInv"), Some(&Val::List(vec![Val::Real(1.0), Val::Real(1.0), Val::Real(1.0), Val::Real(0.5)])));
        assert_eq!(m.get("x"), None);
    }

    /// The identity, and a quarter turn about z (x -> y), with the position in the last column.
    #[test]
    fn quaternion_as_transform() {
        let t = quaternion_transform([0.0, 0.0, 0.0, 1.0], [1.0, 2.0, 3.0, 1.0]);
        assert_eq!(t, [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 2.0, 3.0, 1.0]);
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let t = quaternion_transform([0.0, 0.0, h, h], [0.0; 4]);
        let want = [0.0, 1.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0];
        assert!(t.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-6), "{t:?}");
    }

    /// Known rotations back to their quaternions (identity; quarter turns about z, x, y; a half
    /// turn about x, where w is 0; c1400's pelvis orientation), within 1e-6 and up to sign; the
    /// position comes back; a scaled, sheared or mirrored matrix, or a NaN, gives nothing.
    #[test]
    fn transform_as_quaternion() {
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let cases = [
            [0.0, 0.0, 0.0, 1.0],
            [0.0, 0.0, h, h],
            [h, 0.0, 0.0, h],
            [0.0, h, 0.0, -h],
            [1.0, 0.0, 0.0, 0.0],
            [0.70710737, 0.7071061, 1.7406663e-6, 1.7406642e-6],
            [0.1825742, 0.3651484, 0.5477226, 0.7302967],
        ];
        for q in cases {
            let t = quaternion_transform(q, [1.0, 2.0, 3.0, 1.0]);
            let (got, p) = transform_quaternion(&t).unwrap();
            let sign = if q[3] < 0.0 { -1.0 } else { 1.0 };
            assert!(got.iter().zip(q).all(|(a, b)| (a - sign * b).abs() < 1e-6), "{q:?} -> {got:?}");
            assert_eq!(p, [1.0, 2.0, 3.0, 1.0]);
        }
        let mut scaled = quaternion_transform([0.0, 0.0, 0.0, 1.0], [0.0; 4]);
        scaled[0] = 2.0;
        assert_eq!(transform_quaternion(&scaled), None);
        let mut mirrored = quaternion_transform([0.0, 0.0, 0.0, 1.0], [0.0; 4]);
        mirrored[10] = -1.0;
        assert_eq!(transform_quaternion(&mirrored), None);
        let mut nan = quaternion_transform([0.0, 0.0, 0.0, 1.0], [0.0; 4]);
        nan[13] = f32::NAN;
        assert_eq!(transform_quaternion(&nan), None);
        assert_eq!(transform_quaternion(&[0.0; 12]), None);
    }

    /// c1400's pelvis made an hkp body (the way forward) is at rest at its transform; DSR's
    /// pelvis (a local centre of mass of 1e-8), another rotation or another position is not.
    #[test]
    fn swept_transform_at_rest() {
        let v = |x: [f32; 4]| Val::List(x.iter().map(|c| Val::Real(*c)).collect());
        let q = [0.70710737, 0.7071061, 1.7406663e-6, 1.7406642e-6];
        let p = [-1.3446338e-9, 0.95681125, -7.9030736e-26, 1.0];
        let at = [p[0], p[1], p[2], 0.0];
        let swept = |c: [f32; 4], r: [f32; 4], local: [f32; 4]| Val::List(vec![v(c), v(c), v(r), v(r), v(local)]);
        let (t_q, t_p) = transform_quaternion(&quaternion_transform(q, p)).unwrap();
        assert!(swept_at_rest(&swept(at, q, [0.0; 4]), t_q, t_p, false));
        assert!(swept_at_rest(&swept(at, q.map(|c| -c), [0.0; 4]), t_q, t_p, false), "a quaternion and its negation are one rotation");
        assert!(!swept_at_rest(&swept(at, q, [0.0, -2.7824767e-10, -7.450581e-9, 0.0]), t_q, t_p, false));
        assert!(!swept_at_rest(&swept([at[0], at[1] + 0.01, at[2], 0.0], q, [0.0; 4]), t_q, t_p, false));
        assert!(!swept_at_rest(&swept(at, [0.0, 0.0, 0.0, 1.0], [0.0; 4]), t_q, t_p, false));
        assert!(!swept_at_rest(&Val::List(vec![v(at)]), t_q, t_p, false));
        // 2010.2's record of five named vectors.
        let names = ["centerOfMass0", "centerOfMass1", "rotation0", "rotation1", "centerOfMassLocal"];
        let record = Val::Record(Members(names.iter().zip([at, at, q, q, [0.0; 4]]).map(|(n, x)| ((*n).to_owned(), v(x))).collect()));
        assert!(swept_at_rest(&record, t_q, t_p, false));
        // DSR's pelvis: its centre of mass kept elsewhere (2014.1's motion), its local one is
        // what that gives (within 1e-5); another local one is not.
        let q = [0.70710677, 0.7071069, 5.3245486e-7, 1.428777e-6];
        let (d_q, d_p) = transform_quaternion(&quaternion_transform(q, [0.0, 1.436664, 0.0, 1.0])).unwrap();
        let com = [-2.7826838e-10, 1.436664, 7.4505815e-9, 0.0];
        assert!(swept_at_rest(&swept(com, q, [0.0, -2.7824767e-10, -7.450581e-9, 0.0]), d_q, d_p, true));
        assert!(!swept_at_rest(&swept(com, q, [0.0, -2.7824767e-10, -7.450581e-9, 0.0]), d_q, d_p, false));
        assert!(!swept_at_rest(&swept(com, q, [0.0, 0.1, 0.0, 0.0]), d_q, d_p, true));
    }

    #[test]
    fn ulps_between_reals() {
        assert_eq!(ulp_distance(1.0, 1.0), Some(0));
        assert_eq!(ulp_distance(0.0, -0.0), Some(0));
        assert_eq!(ulp_distance(1.0, f32::from_bits(1.0f32.to_bits() + 3)), Some(3));
        assert_eq!(ulp_distance(-f32::MIN_POSITIVE, f32::MIN_POSITIVE), Some(2 * f32::MIN_POSITIVE.to_bits()));
        assert_eq!(ulp_distance(f32::NAN, 1.0), None);
    }
}
