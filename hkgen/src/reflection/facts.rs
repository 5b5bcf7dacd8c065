//! What a class-reflection source states besides the neutral records: each class's signature and
//! its offsets and sizes under the layout rules of the platforms it was dumped from. The importers
//! of complete sources ([`super::serde_hkx`], [`super::dsmapstudio`]) return [`SourceFacts`]; the
//! checks here compare what the source states with what our own recipe ([`super::signature`]) and
//! layout rules ([`super::layout`]) compute from the records, so that every imported fact is
//! either confirmed or listed as a disagreement.

use super::layout::ObservedLayout;
use super::layout::ClassLayouts;
use super::signature;
use crate::schema::model::{ClassSchema, FixedLayout, LayoutOverride};
use hktypes::packfile::LayoutRules;
use std::collections::BTreeMap;

/// A complete source's records and the facts it states about them.
#[derive(Clone, Debug, Default)]
pub struct SourceFacts {
    /// The platform-neutral records (interface counts as found by [`infer_interfaces`]).
    pub schema: ClassSchema,
    /// The signature the source states per class.
    pub signatures: BTreeMap<String, u32>,
    /// The sizes and offsets the source states, per layout rules (`8,1,0,1`).
    pub layouts: BTreeMap<String, ObservedLayout>,
}

/// One fact a source states that our computation does not give.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Disagreement {
    /// The class.
    pub class: String,
    /// The member, or `None` for the class's size (or signature).
    pub member: Option<String>,
    /// What the source states.
    pub source: String,
    /// What we compute (or why we cannot).
    pub computed: String,
}

impl std::fmt::Display for Disagreement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.member {
            Some(m) => write!(f, "{}.{m}: source {}, computed {}", self.class, self.source, self.computed),
            None => write!(f, "{}: source {}, computed {}", self.class, self.source, self.computed),
        }
    }
}

/// Classes whose signature, recomputed from the records, is not the one the source states.
pub fn signature_disagreements(facts: &SourceFacts) -> Vec<Disagreement> {
    let mut out = Vec::new();
    for (name, stated) in &facts.signatures {
        let computed = match signature::class_signature(&facts.schema, name) {
            Ok(s) if s == *stated => continue,
            Ok(s) => format!("{s:#010x}"),
            Err(why) => why.to_string(),
        };
        out.push(Disagreement { class: name.clone(), member: None, source: format!("{stated:#010x}"), computed });
    }
    out
}

/// Sizes and member offsets the source states under `rules` that our layout rules do not give:
/// one entry per class size and per member offset that differs (or per class that cannot be laid
/// out). Returns (facts compared, disagreements).
pub fn layout_disagreements(facts: &SourceFacts, rules: LayoutRules) -> (usize, Vec<Disagreement>) {
    let mut out = Vec::new();
    let mut compared = 0;
    let Some(observed) = facts.layouts.get(&rules.to_string()) else { return (0, out) };
    let mut layouts = ClassLayouts::new(&facts.schema, rules);
    for (name, size) in &observed.sizes {
        let offsets = observed.offsets.get(name).map(Vec::as_slice).unwrap_or(&[]);
        compared += 1 + offsets.len();
        let l = match layouts.class(name) {
            Ok(l) => l,
            Err(e) => {
                out.push(Disagreement { class: name.clone(), member: None, source: format!("size {size}"), computed: e.to_string() });
                continue;
            }
        };
        if l.size != *size {
            out.push(Disagreement { class: name.clone(), member: None, source: format!("size {size}"), computed: format!("size {}", l.size) });
        }
        let members = facts.schema.classes.get(name).map(|c| c.members.as_slice()).unwrap_or(&[]);
        for ((m, want), got) in members.iter().zip(offsets).zip(&l.offsets) {
            if want != got {
                out.push(Disagreement { class: name.clone(), member: Some(m.name.clone()), source: want.to_string(), computed: got.to_string() });
            }
        }
    }
    (compared, out)
}

/// Interface counts (extra vtable pointers) the source leaves out, found from its offsets under
/// `rules`: for each class (parents first) whose computed layout differs from the source's, the
/// smallest count of 1 to 4 that makes it agree and, where the source states a signature (which
/// counts the interfaces), gives that signature too. Sets them in the records with an override
/// whose reason says where the count came from (`reason`), and returns them.
pub fn infer_interfaces(facts: &mut SourceFacts, rules: LayoutRules, reason: &str) -> Vec<(String, u32)> {
    let Some(observed) = facts.layouts.get(&rules.to_string()) else { return Vec::new() };
    infer_interface_counts(&mut facts.schema, observed, rules, &facts.signatures, reason)
}

/// [`infer_interfaces`] over any dump's `observed` layout under `rules`: `stated` holds the
/// signatures the dump states (none for a dump that states none, such as the BotW reflection).
pub(crate) fn infer_interface_counts(
    schema: &mut ClassSchema,
    observed: &ObservedLayout,
    rules: LayoutRules,
    stated: &BTreeMap<String, u32>,
    reason: &str,
) -> Vec<(String, u32)> {
    let mut order: Vec<(usize, String)> = schema.classes.keys().map(|n| (schema.ancestry(n).len(), n.clone())).collect();
    order.sort();
    let mut found = Vec::new();
    for (_, name) in order {
        let (Some(size), Some(offsets)) = (observed.sizes.get(&name), observed.offsets.get(&name)) else { continue };
        let stated = stated.get(&name);
        let lays_out = |s: &ClassSchema| ClassLayouts::new(s, rules).class(&name).is_ok_and(|l| l.size == *size && l.offsets == *offsets);
        let agrees = |s: &ClassSchema| lays_out(s) && stated.is_none_or(|st| signature::class_signature(s, &name).is_ok_and(|c| c == *st));
        if schema.classes[&name].interfaces != 0 || lays_out(schema) {
            continue;
        }
        for k in 1..=4 {
            if let Some(c) = schema.classes.get_mut(&name) {
                c.interfaces = k;
            }
            if agrees(schema) {
                found.push((name.clone(), k));
                break;
            }
            if let Some(c) = schema.classes.get_mut(&name) {
                c.interfaces = 0;
            }
        }
    }
    for (name, _) in &found {
        schema.overrides.insert(name.clone(), LayoutOverride { reason: reason.to_owned(), hidden_members: false, fixed: BTreeMap::new() });
    }
    found
}

/// Marks as hiding members every class whose stated layout under each of `rules` our layout rules
/// do not give (after [`infer_interfaces`]) and whose stated signature recomputes (so the records
/// themselves are right and the bytes they do not describe are the source's): its override then
/// fixes the source's layouts, and other platforms cannot lay it out. Returns the classes marked.
pub fn fix_hidden_members(facts: &mut SourceFacts, rules: &[LayoutRules], reason: &str) -> Vec<String> {
    let mut marked = Vec::new();
    let names: Vec<String> = facts.schema.classes.keys().cloned().collect();
    for name in names {
        if !facts.signatures.get(&name).is_some_and(|s| signature::class_signature(&facts.schema, &name).is_ok_and(|c| c == *s)) {
            continue;
        }
        let mut fixed = BTreeMap::new();
        for r in rules {
            let Some(observed) = facts.layouts.get(&r.to_string()) else { continue };
            let (Some(size), Some(offsets)) = (observed.sizes.get(&name), observed.offsets.get(&name)) else { continue };
            let l = ClassLayouts::new(&facts.schema, *r).class(&name);
            if l.as_ref().is_ok_and(|l| l.size == *size && l.offsets == *offsets) {
                continue;
            }
            let align = l.map_or(16, |l| l.align);
            fixed.insert(r.to_string(), FixedLayout { size: *size, align, offsets: offsets.clone() });
        }
        if fixed.len() == rules.len() {
            facts.schema.overrides.insert(name.clone(), LayoutOverride { reason: reason.to_owned(), hidden_members: true, fixed });
            marked.push(name);
        }
    }
    marked
}

/// The files of `dir` whose names end in `.ext`, in name order, as `(file name, contents)`.
pub fn read_folder(dir: &std::path::Path, ext: &str) -> Result<Vec<(String, String)>, crate::error::Error> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| crate::error::Error::io(dir, e))? {
        let p = entry.map_err(|e| crate::error::Error::io(dir, e))?.path();
        if p.is_file() && p.extension().is_some_and(|x| x == ext) {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("").to_owned();
            out.push((name, std::fs::read_to_string(&p).map_err(|e| crate::error::Error::io(&p, e))?));
        }
    }
    out.sort();
    Ok(out)
}

/// A member flag a source left out, recovered from the signature it states.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct RecoveredFlag {
    /// The class.
    pub class: String,
    /// The member, or `None` for an interface (a vtable pointer) of the class's own.
    pub member: Option<String>,
    /// The flag bit ([`crate::schema::model::member_flags`]); 0 for an interface.
    pub flag: u16,
}

/// Member flags the source's records lack (`ALIGN_8`, `ALIGN_16`, `NOT_OWNED`: a source that keeps
/// only `SERIALIZE_IGNORED`), recovered from the signatures it states: for each class whose
/// stated signature does not recompute (parents and struct classes first, over a few passes), the
/// one flag on one of its own members, else the two flags on two members, that make it recompute;
/// an interface of the class's own (which the source does not count either) is tried as one more
/// such flag, and noted in the class's layout override.
/// The stated signature is a CRC-32 over every member's flags, so a completion that gives it is
/// the source's. Returns what was set.
pub fn recover_flags(facts: &mut SourceFacts) -> Vec<RecoveredFlag> {
    use crate::schema::model::member_flags::{ALIGN_16, ALIGN_8, NOT_OWNED};
    const FLAGS: [u16; 3] = [ALIGN_16, ALIGN_8, NOT_OWNED];
    /// Members up to which pairs of flags are tried.
    const PAIRS_UP_TO: usize = 48;
    let mut out = Vec::new();
    for _pass in 0..4 {
        let mut changed = false;
        let mut order: Vec<(usize, String)> = facts.signatures.keys().map(|n| (facts.schema.ancestry(n).len(), n.clone())).collect();
        order.sort();
        for (_, name) in order {
            let stated = facts.signatures[&name];
            let agrees = |s: &ClassSchema| signature::class_signature(s, &name).is_ok_and(|c| c == stated);
            if !facts.schema.classes.contains_key(&name) || agrees(&facts.schema) || signature::class_signature(&facts.schema, &name).is_err() {
                continue;
            }
            let n = facts.schema.classes[&name].members.len();
            let mut singles = Vec::new();
            for i in 0..n {
                for f in FLAGS {
                    if facts.schema.classes[&name].members[i].flags & f == 0 {
                        singles.push((i, f));
                    }
                }
            }
            // One interface more (a vtable pointer) is the last candidate, `(n, 0)`.
            if facts.schema.classes[&name].interfaces == 0 {
                singles.push((n, 0));
            }
            let set = |s: &mut ClassSchema, (i, f): (usize, u16), on: bool| {
                if i == n {
                    if let Some(c) = s.classes.get_mut(&name) {
                        c.interfaces = u32::from(on);
                    }
                } else if let Some(m) = s.classes.get_mut(&name).and_then(|c| c.members.get_mut(i)) {
                    if on {
                        m.flags |= f;
                    } else {
                        m.flags &= !f;
                    }
                }
            };
            let mut found: Option<Vec<(usize, u16)>> = None;
            for &a in &singles {
                set(&mut facts.schema, a, true);
                if agrees(&facts.schema) {
                    found = Some(vec![a]);
                    break;
                }
                set(&mut facts.schema, a, false);
            }
            if found.is_none() && n <= PAIRS_UP_TO {
                'pairs: for (k, &a) in singles.iter().enumerate() {
                    set(&mut facts.schema, a, true);
                    for &b in &singles[k + 1..] {
                        if b.0 == a.0 && (a.1 | b.1) == (ALIGN_8 | ALIGN_16) {
                            continue;
                        }
                        set(&mut facts.schema, b, true);
                        if agrees(&facts.schema) {
                            found = Some(vec![a, b]);
                            break 'pairs;
                        }
                        set(&mut facts.schema, b, false);
                    }
                    set(&mut facts.schema, a, false);
                }
            }
            for (i, f) in found.into_iter().flatten() {
                changed = true;
                if i == n {
                    let reason = "interfaces: not in the source, found from the signature it states".to_owned();
                    facts.schema.overrides.insert(name.clone(), LayoutOverride { reason, hidden_members: false, fixed: BTreeMap::new() });
                    out.push(RecoveredFlag { class: name.clone(), member: None, flag: 0 });
                    continue;
                }
                let member = facts.schema.classes[&name].members[i].name.clone();
                out.push(RecoveredFlag { class: name.clone(), member: Some(member), flag: f });
            }
        }
        if !changed {
            break;
        }
    }
    out.sort();
    out
}
