//! `hkgen schema-diff OLD NEW`: what changed between two schema snapshots, class by class: versions,
//! members added, removed, retyped or moved, size, alignment and hash. Classes are the record types
//! without template parameters, matched by full name. Where a snapshot holds several layouts of a
//! name, the one seen in the most files stands for it.

use crate::schema::model::{base_key, Schema, Type};
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
/// How a class differs between the two snapshots.
pub enum Change {
    /// Only the new snapshot has it.
    Added,
    /// Only the old snapshot has it.
    Removed,
    /// Both have it, with some difference (layout or hash).
    Changed,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
/// A member whose type changed.
pub struct Retyped {
    /// The member's Havok name.
    pub member: String,
    /// Its type key in the old snapshot.
    pub old: String,
    /// Its type key in the new snapshot.
    pub new: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
/// A member whose offset changed.
pub struct Moved {
    /// The member's Havok name.
    pub member: String,
    /// Its offset in the old snapshot.
    pub old: u32,
    /// Its offset in the new snapshot.
    pub new: u32,
}

/// One class's change. Pairs are (old, new).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ClassChange {
    /// The class's full name.
    pub class: String,
    /// Added, removed or changed.
    pub change: Change,
    /// The class version (`None` where a snapshot lacks the class or stores no version).
    pub version: (Option<u32>, Option<u32>),
    /// Size in bytes.
    pub size: (Option<u32>, Option<u32>),
    /// Alignment in bytes.
    pub align: (Option<u32>, Option<u32>),
    /// The computed type hash, as `0x...`.
    pub hash: (Option<String>, Option<String>),
    /// Members only the new snapshot has (its own members, not inherited ones), in order.
    pub added: Vec<String>,
    /// Members only the old snapshot has.
    pub removed: Vec<String>,
    /// Members in both whose type changed.
    pub retyped: Vec<Retyped>,
    /// Members in both whose offset changed.
    pub moved: Vec<Moved>,
}

impl ClassChange {
    /// Whether anything but the hash changed (a hash also changes when a member's type does).
    pub fn layout_changed(&self) -> bool {
        self.change != Change::Changed
            || self.version.0 != self.version.1
            || self.size.0 != self.size.1
            || self.align.0 != self.align.1
            || !self.added.is_empty()
            || !self.removed.is_empty()
            || !self.retyped.is_empty()
            || !self.moved.is_empty()
    }
}

fn is_class(t: &Type) -> bool {
    t.params.is_empty() && t.fields.is_some() && t.format.is_some_and(|f| f.0 & 0x1F == 7)
}

/// The representative record of each class name.
fn classes(s: &Schema) -> BTreeMap<&str, &Type> {
    let mut out: BTreeMap<&str, &Type> = BTreeMap::new();
    for t in s.types.values().filter(|t| is_class(t)) {
        let name = t.full_name();
        let better = |old: &Type| (t.seen.files, t.seen.registry) > (old.seen.files, old.seen.registry);
        match out.get(name) {
            Some(old) if !better(old) => {}
            _ => {
                out.insert(name, t);
            }
        }
    }
    out
}

fn field_map(t: &Type) -> BTreeMap<&str, (u32, &str)> {
    t.fields.iter().flatten().map(|f| (f.name.as_str(), (f.offset, base_key(&f.ty)))).collect()
}

/// Every class that differs between `old` and `new`, by name.
///
/// ```
/// use hkgen::diff::{diff, table, Change};
/// use hkgen::schema::snapshot;
///
/// let sdk = r#"(sdk: "x", sdkv: "x", recipe: InheritedFields, sources: (tagfiles: 1, compendia: [], registry: false), variants: {})"#;
/// let v = |version: u32, extra: &str| format!(
///     r#"#![enable(implicit_some)]
///     [(key: "int", name: "int", format: "0x00008204", size: 4, align: 4, computed: "0x00000001", seen: (files: 1)),
///        (key: "hkaBone", name: "hkaBone", format: "0x00000007", version: {version}, size: 8, align: 4,
///         fields: [(name: "a", flags: "0x00000020", offset: 0, ty: "int"){extra}],
///         computed: "0x0000000{version}", seen: (files: 1))]"#);
/// let old = snapshot::parse("old", sdk, vec![("t".into(), v(1, ""))])?;
/// let new = snapshot::parse("new", sdk, vec![("t".into(), v(2, r#", (name: "b", flags: "0x00000020", offset: 4, ty: "int")"#))])?;
/// let changes = diff(&old, &new);
/// assert_eq!(changes[0].class, "hkaBone");
/// assert_eq!((changes[0].change, changes[0].version), (Change::Changed, (Some(1), Some(2))));
/// assert_eq!(changes[0].added, ["b"]);
/// println!("{}", table(&changes, false));
/// # Ok::<(), hkgen::Error>(())
/// ```
pub fn diff(old: &Schema, new: &Schema) -> Vec<ClassChange> {
    let (a, b) = (classes(old), classes(new));
    let mut names: Vec<&str> = a.keys().chain(b.keys()).copied().collect();
    names.sort_unstable();
    names.dedup();
    let mut out = Vec::new();
    for name in names {
        let (o, n) = (a.get(name).copied(), b.get(name).copied());
        let change = match (o, n) {
            (Some(_), None) => Change::Removed,
            (None, Some(_)) => Change::Added,
            _ => Change::Changed,
        };
        let pair = |f: fn(&Type) -> Option<u32>| (o.and_then(f), n.and_then(f));
        let mut c = ClassChange {
            class: name.to_owned(),
            change,
            version: pair(|t| t.version),
            size: pair(|t| t.size),
            align: pair(|t| t.align),
            hash: (o.map(|t| t.computed.to_string()), n.map(|t| t.computed.to_string())),
            added: Vec::new(),
            removed: Vec::new(),
            retyped: Vec::new(),
            moved: Vec::new(),
        };
        if let (Some(o), Some(n)) = (o, n) {
            if o.computed == n.computed {
                continue;
            }
            let (fo, fnew) = (field_map(o), field_map(n));
            // Members in the new class's order, then removed ones in the old order.
            for f in n.fields.iter().flatten() {
                match fo.get(f.name.as_str()) {
                    None => c.added.push(f.name.clone()),
                    Some(&(off, ty)) => {
                        if ty != base_key(&f.ty) {
                            c.retyped.push(Retyped { member: f.name.clone(), old: ty.to_owned(), new: base_key(&f.ty).to_owned() });
                        }
                        if off != f.offset {
                            c.moved.push(Moved { member: f.name.clone(), old: off, new: f.offset });
                        }
                    }
                }
            }
            for f in o.fields.iter().flatten() {
                if !fnew.contains_key(f.name.as_str()) {
                    c.removed.push(f.name.clone());
                }
            }
        }
        out.push(c);
    }
    out
}

fn opt<T: std::fmt::Display>(v: &Option<T>) -> String {
    v.as_ref().map_or("-".to_owned(), |x| x.to_string())
}

fn pair_cell<T: std::fmt::Display + PartialEq>(p: &(Option<T>, Option<T>)) -> String {
    if p.0 == p.1 {
        opt(&p.1)
    } else {
        format!("{} -> {}", opt(&p.0), opt(&p.1))
    }
}

fn members_cell(c: &ClassChange) -> String {
    let mut parts = Vec::new();
    parts.extend(c.added.iter().map(|m| format!("+{m}")));
    parts.extend(c.removed.iter().map(|m| format!("-{m}")));
    parts.extend(c.retyped.iter().map(|r| format!("{}: {} -> {}", r.member, r.old, r.new)));
    if !c.moved.is_empty() {
        parts.push(format!("{} moved", c.moved.len()));
    }
    parts.join(", ")
}

/// Rows of the table: class, change, version, size, align, hash, members.
fn rows(changes: &[ClassChange], all: bool) -> Vec<[String; 6]> {
    changes
        .iter()
        .filter(|c| all || (c.change == Change::Changed && c.layout_changed()))
        .map(|c| {
            let hash = if c.hash.0 == c.hash.1 { "same".to_owned() } else { "changed".to_owned() };
            let class = match c.change {
                Change::Added => format!("{} (added)", c.class),
                Change::Removed => format!("{} (removed)", c.class),
                Change::Changed => c.class.clone(),
            };
            [class, pair_cell(&c.version), pair_cell(&c.size), pair_cell(&c.align), hash, members_cell(c)]
        })
        .collect()
}

const HEADINGS: [&str; 6] = ["class", "version", "size", "align", "hash", "members"];

/// A summary line: how many classes were added, removed, changed in layout, changed only in hash.
pub fn summary(changes: &[ClassChange]) -> String {
    let count = |f: &dyn Fn(&ClassChange) -> bool| changes.iter().filter(|c| f(c)).count();
    format!(
        "{} classes changed in layout, {} only in hash (a member type changed), {} added, {} removed",
        count(&|c| c.change == Change::Changed && c.layout_changed()),
        count(&|c| c.change == Change::Changed && !c.layout_changed()),
        count(&|c| c.change == Change::Added),
        count(&|c| c.change == Change::Removed),
    )
}

/// A plain-text table with aligned columns. `all` lists added, removed and hash-only changes too.
pub fn table(changes: &[ClassChange], all: bool) -> String {
    let rows = rows(changes, all);
    let mut width = HEADINGS.map(str::len);
    for r in &rows {
        for (w, cell) in width.iter_mut().zip(r) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: [&str; 6]| -> String {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i + 1 == cells.len() {
                s.push_str(c);
            } else {
                s.push_str(&format!("{c:<w$}  ", w = width[i]));
            }
        }
        s.trim_end().to_owned() + "\n"
    };
    let mut out = line(HEADINGS);
    for r in &rows {
        out.push_str(&line([&r[0], &r[1], &r[2], &r[3], &r[4], &r[5]]));
    }
    out.push_str(&summary(changes));
    out.push('\n');
    out
}

/// A Markdown table.
pub fn markdown(changes: &[ClassChange], all: bool) -> String {
    let esc = |s: &str| s.replace('|', "\\|");
    let mut out = format!("| {} |\n|{}\n", HEADINGS.join(" | "), "---|".repeat(HEADINGS.len()));
    for r in rows(changes, all) {
        let cells: Vec<String> = r.iter().enumerate().map(|(i, c)| if i == 0 { format!("`{}`", esc(c)) } else { esc(c) }).collect();
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    out.push('\n');
    out.push_str(&summary(changes));
    out.push('\n');
    out
}
