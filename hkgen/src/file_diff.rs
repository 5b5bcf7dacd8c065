//! `hkgen diff A B`: two Havok files compared object by object and member by member, in the one
//! dump shape of both formats ([`hktypes::dump`]), so a TAG0 file, a packfile and their XML
//! compare alike.
//!
//! Objects are matched by their place in the graph from the root object: the first path of
//! pointers that reaches an object (breadth first, members in order), with its class
//! (`hkaSkeleton at root.namedVariants[0].variant.skeletons[0]`). Objects no path reaches are
//! matched by class and order. A pointer value compares by the place of the object it names,
//! not by its handle, so objects that only moved in the file do not differ.

use hktypes::dump::{Dump, DumpObject, Val};
use serde::Serialize;
use std::collections::{HashMap, VecDeque};

/// At most this many element changes of one array are listed; the rest are counted.
pub const MAX_ELEMENTS: usize = 16;

/// One difference.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Change {
    /// `changed` (a value), `added` or `removed` (an object, a member, or array elements), or
    /// `file` (the SDK or format of the files).
    pub kind: &'static str,
    /// The object: its class and place (`hkaSkeleton at root.namedVariants[0].variant.skeletons[0]`).
    pub object: String,
    /// The object's handles in A and B (`#12`), where it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handle_a: Option<u32>,
    /// The object's handle in B.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handle_b: Option<u32>,
    /// The member path inside the object (`parentIndices[153]`); empty for a whole object.
    pub path: String,
    /// The value in A.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<serde_json::Value>,
    /// The value in B.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<serde_json::Value>,
}

/// The differences of two files.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FileDiff {
    /// Objects in A.
    pub objects_a: usize,
    /// Objects in B.
    pub objects_b: usize,
    /// Every difference, objects in A's order, then those only B has.
    pub changes: Vec<Change>,
}

impl FileDiff {
    /// Whether the files hold the same objects and values.
    pub fn same(&self) -> bool {
        self.changes.is_empty()
    }

    /// The readable listing: one line per object that differs, then its changes indented.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let mut last: Option<&str> = None;
        for c in &self.changes {
            if c.kind == "file" {
                out.push_str(&format!("file {}: {} -> {}\n", c.path, show(c.old.as_ref()), show(c.new.as_ref())));
                continue;
            }
            if c.path.is_empty() {
                let sign = if c.kind == "added" { '+' } else { '-' };
                let h = c.handle_b.or(c.handle_a).map_or(String::new(), |h| format!(" (#{h})"));
                out.push_str(&format!("{sign} {}{h}\n", c.object));
                last = None;
                continue;
            }
            if last != Some(c.object.as_str()) {
                let h = match (c.handle_a, c.handle_b) {
                    (Some(a), Some(b)) if a == b => format!(" (#{a})"),
                    (Some(a), Some(b)) => format!(" (#{a} -> #{b})"),
                    _ => String::new(),
                };
                out.push_str(&format!("~ {}{h}\n", c.object));
                last = Some(&c.object);
            }
            match c.kind {
                "added" => out.push_str(&format!("    {}: added {}\n", c.path, show(c.new.as_ref()))),
                "removed" => out.push_str(&format!("    {}: removed {}\n", c.path, show(c.old.as_ref()))),
                _ => out.push_str(&format!("    {}: {} -> {}\n", c.path, show(c.old.as_ref()), show(c.new.as_ref()))),
            }
        }
        out
    }
}

/// A value for a line of text: compact JSON, long values cut.
fn show(v: Option<&serde_json::Value>) -> String {
    const MAX: usize = 120;
    let s = v.map_or("null".to_owned(), |v| v.to_string());
    if s.chars().count() > MAX {
        let cut: String = s.chars().take(MAX).collect();
        format!("{cut}... ({} chars)", s.len())
    } else {
        s
    }
}

/// Each object's place: a key that names it by class and first path from the root.
fn places(d: &Dump) -> HashMap<u32, String> {
    let by_handle: HashMap<u32, &DumpObject> = d.objects.iter().map(|o| (o.handle, o)).collect();
    let mut place: HashMap<u32, String> = HashMap::new();
    let mut queue = VecDeque::new();
    let root = d.root.or_else(|| d.objects.first().map(|o| o.handle));
    if let Some(r) = root.filter(|r| by_handle.contains_key(r)) {
        place.insert(r, format!("{} at root", by_handle[&r].class));
        queue.push_back((r, "root".to_owned()));
    }
    while let Some((h, at)) = queue.pop_front() {
        let Some(members) = by_handle.get(&h).and_then(|o| o.members.as_ref()) else { continue };
        let mut refs = Vec::new();
        for (name, v) in &members.0 {
            collect_refs(v, &format!("{at}.{name}"), &mut refs, 0);
        }
        for (target, path) in refs {
            if let Some(t) = by_handle.get(&target) {
                if let std::collections::hash_map::Entry::Vacant(e) = place.entry(target) {
                    e.insert(format!("{} at {path}", t.class));
                    queue.push_back((target, path));
                }
            }
        }
    }
    // Objects no pointer path reaches: by class and order.
    let mut count: HashMap<&str, usize> = HashMap::new();
    for o in &d.objects {
        if let std::collections::hash_map::Entry::Vacant(e) = place.entry(o.handle) {
            let n = count.entry(o.class.as_str()).or_default();
            e.insert(format!("{} unreached [{n}]", o.class));
            *n += 1;
        }
    }
    place
}

fn collect_refs(v: &Val, path: &str, out: &mut Vec<(u32, String)>, depth: usize) {
    if depth > hktypes::dump::MAX_DEPTH {
        return;
    }
    match v {
        Val::Ref(h, _) => out.push((*h, path.to_owned())),
        Val::List(l) | Val::Array(l, _) => {
            for (i, e) in l.iter().enumerate() {
                collect_refs(e, &format!("{path}[{i}]"), out, depth + 1);
            }
        }
        Val::Record(m) => {
            for (n, e) in &m.0 {
                collect_refs(e, &format!("{path}.{n}"), out, depth + 1);
            }
        }
        _ => {}
    }
}

/// Compares two files.
pub fn diff(a: &Dump, b: &Dump) -> FileDiff {
    let mut out = FileDiff { objects_a: a.objects.len(), objects_b: b.objects.len(), changes: Vec::new() };
    for (what, x, y) in [("format", &a.format, &b.format), ("sdk", &a.sdk, &b.sdk)] {
        if x != y {
            out.changes.push(Change {
                kind: "file",
                object: String::new(),
                handle_a: None,
                handle_b: None,
                path: what.to_owned(),
                old: Some(x.clone().into()),
                new: Some(y.clone().into()),
            });
        }
    }
    let (pa, pb) = (places(a), places(b));
    let b_by_place: HashMap<&str, &DumpObject> = b.objects.iter().map(|o| (pb[&o.handle].as_str(), o)).collect();
    let mut matched = std::collections::HashSet::new();
    let cx = Cx { pa: &pa, pb: &pb };
    for oa in &a.objects {
        let place = &pa[&oa.handle];
        match b_by_place.get(place.as_str()) {
            Some(ob) => {
                matched.insert(ob.handle);
                let mut changes = Vec::new();
                cx.object(oa, ob, &mut changes);
                out.changes.extend(changes.into_iter().map(|(kind, path, old, new)| Change {
                    kind,
                    object: place.clone(),
                    handle_a: Some(oa.handle),
                    handle_b: Some(ob.handle),
                    path,
                    old,
                    new,
                }));
            }
            None => out.changes.push(Change { kind: "removed", object: place.clone(), handle_a: Some(oa.handle), handle_b: None, path: String::new(), old: None, new: None }),
        }
    }
    for ob in &b.objects {
        if !matched.contains(&ob.handle) {
            out.changes.push(Change { kind: "added", object: pb[&ob.handle].clone(), handle_a: None, handle_b: Some(ob.handle), path: String::new(), old: None, new: None });
        }
    }
    out
}

type Raw = (&'static str, String, Option<serde_json::Value>, Option<serde_json::Value>);

struct Cx<'a> {
    pa: &'a HashMap<u32, String>,
    pb: &'a HashMap<u32, String>,
}

impl Cx<'_> {
    fn json(&self, v: &Val, side_a: bool) -> serde_json::Value {
        // A pointer shows the place of what it names.
        if let Val::Ref(h, off) = v {
            let places = if side_a { self.pa } else { self.pb };
            let place = places.get(h).cloned().unwrap_or_else(|| format!("#{h}"));
            return match off {
                Some(o) => serde_json::json!({ "ref": place, "offset": o }),
                None => serde_json::json!({ "ref": place }),
            };
        }
        serde_json::to_value(v).unwrap_or(serde_json::Value::Null)
    }

    fn object(&self, a: &DumpObject, b: &DumpObject, out: &mut Vec<Raw>) {
        match (&a.members, &b.members) {
            (Some(x), Some(y)) => self.members(&x.0, &y.0, "", out, 0),
            _ => {
                let (x, y) = (serde_json::to_value(&a.untyped).ok(), serde_json::to_value(&b.untyped).ok());
                if x != y || a.members.is_some() != b.members.is_some() {
                    out.push(("changed", "(untyped bytes)".to_owned(), x, y));
                }
            }
        }
    }

    fn members(&self, x: &[(String, Val)], y: &[(String, Val)], at: &str, out: &mut Vec<Raw>, depth: usize) {
        let join = |n: &str| if at.is_empty() { n.to_owned() } else { format!("{at}.{n}") };
        for (n, va) in x {
            match y.iter().find(|(m, _)| m == n) {
                Some((_, vb)) => self.value(va, vb, &join(n), out, depth + 1),
                None => out.push(("removed", join(n), Some(self.json(va, true)), None)),
            }
        }
        for (n, vb) in y {
            if !x.iter().any(|(m, _)| m == n) {
                out.push(("added", join(n), None, Some(self.json(vb, false))));
            }
        }
    }

    fn value(&self, a: &Val, b: &Val, at: &str, out: &mut Vec<Raw>, depth: usize) {
        if depth > hktypes::dump::MAX_DEPTH {
            return;
        }
        match (a, b) {
            (Val::Record(x), Val::Record(y)) => self.members(&x.0, &y.0, at, out, depth),
            (Val::List(x) | Val::Array(x, _), Val::List(y) | Val::Array(y, _)) => {
                let mut listed = 0usize;
                let mut unlisted = 0usize;
                for (i, (ea, eb)) in x.iter().zip(y).enumerate() {
                    let mut sub = Vec::new();
                    self.value(ea, eb, &format!("{at}[{i}]"), &mut sub, depth + 1);
                    if !sub.is_empty() {
                        if listed < MAX_ELEMENTS {
                            out.extend(sub);
                            listed += 1;
                        } else {
                            unlisted += 1;
                        }
                    }
                }
                if unlisted > 0 {
                    out.push(("changed", format!("{at}[..]"), Some(format!("{unlisted} more elements differ").into()), None));
                }
                if x.len() > y.len() {
                    let gone: Vec<serde_json::Value> = x[y.len()..].iter().map(|v| self.json(v, true)).collect();
                    out.push(("removed", format!("{at}[{}..{}]", y.len(), x.len()), Some(gone.into()), None));
                } else if y.len() > x.len() {
                    let new: Vec<serde_json::Value> = y[x.len()..].iter().map(|v| self.json(v, false)).collect();
                    out.push(("added", format!("{at}[{}..{}]", x.len(), y.len()), None, Some(new.into())));
                }
            }
            (Val::Ref(ha, oa), Val::Ref(hb, ob)) => {
                if self.pa.get(ha) != self.pb.get(hb) || oa != ob {
                    out.push(("changed", at.to_owned(), Some(self.json(a, true)), Some(self.json(b, false))));
                }
            }
            (Val::Real(x), Val::Real(y)) if x.to_bits() == y.to_bits() => {}
            _ if a == b => {}
            _ => out.push(("changed", at.to_owned(), Some(self.json(a, true)), Some(self.json(b, false)))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hktypes::dump::{Kept, Members};

    fn obj(handle: u32, class: &str, members: Vec<(&str, Val)>) -> DumpObject {
        DumpObject {
            handle,
            class: class.to_owned(),
            members: Some(Members(members.into_iter().map(|(n, v)| (n.to_owned(), v)).collect())),
            untyped: None,
            kept: Default::default(),
        }
    }

    fn file(objects: Vec<DumpObject>) -> Dump {
        Dump { format: "tag0".to_owned(), sdk: "2018.1".to_owned(), layout: None, root: Some(objects[0].handle), objects, kept: Kept::default() }
    }

    #[test]
    fn objects_match_by_place_and_values_show_old_and_new() {
        let a = file(vec![obj(1, "Root", vec![("child", Val::Ref(2, None))]), obj(2, "Bone", vec![("x", Val::Int(-1)), ("n", Val::Str("a".into()))])]);
        // The same graph with the objects in another order and other handles.
        let b = file(vec![obj(5, "Root", vec![("child", Val::Ref(3, None))]), obj(3, "Bone", vec![("x", Val::Int(-1)), ("n", Val::Str("a".into()))])]);
        assert!(diff(&a, &b).same());
        let c = file(vec![obj(1, "Root", vec![("child", Val::Ref(2, None))]), obj(2, "Bone", vec![("x", Val::Int(7)), ("n", Val::Str("a".into()))])]);
        let d = diff(&a, &c);
        assert_eq!(d.changes.len(), 1);
        assert_eq!(d.changes[0].object, "Bone at root.child");
        assert_eq!(d.changes[0].path, "x");
        assert_eq!(d.text(), "~ Bone at root.child (#2)\n    x: -1 -> 7\n");
    }
}
