//! Writes a [`TypeTable`] as a `TYPE` section, for files built from scratch or whose types changed
//! (a file read with its own `TYPE` section writes that section back as it was).
//!
//! Stock sections are laid out by a walk over the types, which [`write()`] reproduces, and list their
//! hashes in the order the data writer met the types, which [`data_hash_order`] recomputes from a
//! file's items and patches and [`write_ordered`] takes. So generated, every one of the corpus's 81
//! stock sections comes out byte for byte (`tests/roundtrip.rs`: the 76 of TAG0 files with the
//! order from their items, the 5 of TCM0 compendia, which hold no items, with their stored order),
//! and so does the SDK 2022.1 section of TotK's cloth file (`tests/phive.rs`).
//!
//! A table whose indices are not Havok's (rebuilt from a schema snapshot, or built from scratch) is
//! first numbered as Havok numbers a file's types: [`havok_order`] from the types the data writer
//! meets first, then [`renumber`]; for SDK 2019.1 and 2022.1, [`declare_unneeded`] first reduces
//! the types the data does not need to declarations. From the committed snapshots this gives all
//! 81 stock sections again, and the 2022.1 one.
//!
//! - **The walk.** Its roots are the types no type of a lower index refers to (as parent, subtype,
//!   template argument, field or interface): the types Havok's data writer met first in the
//!   objects, in index order. From each root the walk meets a type's *dependencies*: its parent,
//!   its type arguments, its fields' types, its interfaces, and its subtype only when it has no
//!   fields (the subtype of `hkRefVariant` or `hkPropertyBag` is met through the pointer field
//!   instead). Up to SDK 2018.1 the walk is breadth-first, parent and type arguments before fields;
//!   SDK 2019.1 meets a type's fields, interfaces and subtype before its type arguments, and after
//!   listing all the new dependencies of a type it walks each of them in turn (depth-first by
//!   sibling group). Types the walk does not reach come last, in index order.
//! - **The walk of SDK 2022.1** ([`Style::item_roots`]), as TotK's cloth file
//!   `Armor_006_RaulSkin_Upper.bphcl` shows it (its 196 `TBDY` records of 237 types): the roots
//!   are the types of the `THSH` list, in its order (the data writer's: [`data_hash_order`]),
//!   then the roots of the older walks. From each root the walk is breadth-first over a type's
//!   parent, its fields' types, its interfaces and the subtype of a type without fields that is
//!   not a pointer; **no type argument is followed**, nor the type a pointer points at. The
//!   element type of an array (`hkArray<T>`'s `tT`) and the class behind a `T*` or `hkRefPtr` are
//!   met when the data writer meets them as the type of an item or a patch, so they come after
//!   the walk of the type that holds them (`hkArray<hkaBone>` is record 65, `hkaBone` record 73,
//!   after the other fields of `hkaSkeleton`); a type argument that no item or patch has as its
//!   type waits for a field elsewhere (the `hkUint8` of `hkArray<hkUint8>` is met as a field of
//!   `hclBufferLayout`, 30 records later), else comes with the unreached types at the end. An
//!   alias (a type with a parent and nothing else) is followed to the type it names like any
//!   parent, one level later. The file's records are in this walk's order, all 196, and the
//!   field names fill `FST1` in that order.
//! - **`TPTR`**: eight zero bytes per type, the null type included; SDK 2019.1 only per type with
//!   a `TBDY` record, plus one (2022.1 is back to one per type).
//! - **`TSTR`**: every type and parameter name once, in walk order (a type's name, then its
//!   parameters' names); SDK 2019.1 (and 2022.1) takes the types in index order and puts a type
//!   parameter's type name right after the parameter's.
//! - **`TNA1`**: every type in index order.
//! - **`FSTR`**: the field names in the order the bodies use them.
//! - **`TBDY`**: one record per type that has a parent or any optional part, in walk order. (SDK
//!   2019.1 and 2022.1 write a type the data does not need as a declaration, with no record:
//!   [`declare_unneeded`].)
//! - **`THSH`**: the hashes of exactly the types of the file's items and of its patched slots, in
//!   the order Havok's data writer meets them ([`data_hash_order`]): the items in `DATA` order,
//!   each its own type and then its slots' types, non-strings before strings. So `hkRefVariant`
//!   comes before `hkStringPtr` although the walk over the types meets it later. The table alone
//!   does not say that order; [`write()`] lists the hashes in walk order, which differs from every
//!   stock section from the fourth entry on. A compendium's order (it holds no items) is kept only
//!   by its `THSH` ([`type_section::hash_order`](super::type_section::hash_order)).
//!
//! Packed integers take their shortest form and every sub-section is padded to four bytes (string
//! tables with 0xFF from SDK 2019.1 on, zero before).

use super::index::{Item, Patch};
use super::packed;
use super::section::SectionWriter;
use crate::reflect::{presence, Kind, TemplateArg, TypeDef, TypeIndex, TypeRecord, TypeTable};
use std::collections::HashMap;

/// Which sub-section names and padding a section is written with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    /// `TNAM`/`TBOD` (SDK 2015.1) instead of `TNA1`/`TBDY`.
    pub old_names: bool,
    /// `TST1`/`FST1` and 0xFF string padding (SDK 2019.1 on) instead of `TSTR`/`FSTR` and zeros.
    pub v2019: bool,
    /// A `TPTR` slot per type with a `TBDY` record, plus one (SDK 2019.1), instead of one per
    /// type (before it, and again in SDK 2022.1).
    pub slot_per_record: bool,
    /// SDK 2022.1's walk: its roots are the types of the items in the order the data writer meets
    /// them (then the others), it is breadth-first from each, and it follows no type argument and
    /// no pointer's subtype (the element and pointed-at types are met as items' types instead).
    pub item_roots: bool,
}

impl Style {
    /// The style of an `SDKV` string such as `20180100`.
    pub fn for_sdk(sdkv: &str) -> Style {
        let year: u32 = sdkv.get(..4).and_then(|y| y.parse().ok()).unwrap_or(2018);
        let minor: u32 = sdkv.get(4..6).and_then(|m| m.parse().ok()).unwrap_or(0);
        Style { old_names: (year, minor) <= (2015, 1), v2019: year >= 2019, slot_per_record: year == 2019, item_roots: year >= 2022 }
    }
}

struct Strings {
    list: Vec<u8>,
    index: HashMap<String, u64>,
}

impl Strings {
    fn new() -> Self {
        Strings { list: Vec::new(), index: HashMap::new() }
    }
    fn intern(&mut self, s: &str) -> u64 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.index.len() as u64;
        self.index.insert(s.to_owned(), i);
        self.list.extend_from_slice(s.as_bytes());
        self.list.push(0);
        i
    }
}

fn pad4(v: &mut Vec<u8>, byte: u8) {
    while !v.len().is_multiple_of(4) {
        v.push(byte);
    }
}

/// Every type a type refers to, in the order Havok numbers them up to SDK 2018.1: its parent, type
/// arguments, subtype, fields' types and interfaces (the null type and indices out of range left
/// out).
fn references(table: &TypeTable, t: &TypeDef, out: &mut Vec<TypeIndex>) {
    out.clear();
    out.push(t.parent);
    out.extend(table.params_of(t).iter().filter_map(|p| match p.arg {
        TemplateArg::Type(ti) => Some(ti),
        TemplateArg::Value(_) => None,
    }));
    out.extend(t.subtype);
    out.extend(table.fields_of(t).iter().map(|f| f.ty));
    out.extend(t.interfaces.iter().flatten().map(|x| x.ty));
    out.retain(|&d| d != 0 && (d as usize) < table.types.len());
}

/// The types the walk meets from `t`, in the order it meets them (see the module doc): up to
/// SDK 2018.1 its parent, type arguments, fields' types, interfaces, and subtype when it has no
/// fields; SDK 2019.1 the type arguments last; SDK 2022.1 no type arguments, and no subtype of a
/// pointer.
fn dependencies(table: &TypeTable, t: &TypeDef, style: Style, out: &mut Vec<TypeIndex>) {
    out.clear();
    let args = table.params_of(t).iter().filter_map(|p| match p.arg {
        TemplateArg::Type(ti) => Some(ti),
        TemplateArg::Value(_) => None,
    });
    out.push(t.parent);
    if !style.v2019 {
        out.extend(args.clone());
    }
    let pointer = t.format.is_some_and(|f| f & 0x1F == 6);
    out.extend(table.fields_of(t).iter().map(|f| f.ty));
    out.extend(t.interfaces.iter().flatten().map(|x| x.ty));
    // SDK 2022.1 follows neither a pointer's subtype nor any type argument: the types pointed at
    // and the elements of arrays are met as the types of items.
    if t.fields.is_none() && !(style.item_roots && pointer) {
        out.extend(t.subtype);
    }
    if style.v2019 && !style.item_roots {
        out.extend(args);
    }
    out.retain(|&d| d != 0 && (d as usize) < table.types.len());
}

/// The roots of a table's walks: the types no type of a lower index refers to, in index order.
/// In a stock table these are the types Havok's data writer met first in the objects.
pub fn roots(table: &TypeTable) -> Vec<TypeIndex> {
    let n = table.types.len();
    // The lowest index that refers to each type.
    let mut first_referrer = vec![TypeIndex::MAX; n];
    let mut refs = Vec::new();
    for (i, t) in table.iter() {
        references(table, t, &mut refs);
        for &r in &refs {
            first_referrer[r as usize] = first_referrer[r as usize].min(i);
        }
    }
    (1..n as TypeIndex).filter(|&t| first_referrer[t as usize] >= t).collect()
}

/// Every type of `table` but the null one, in the order Havok's writer walks them (module doc).
pub fn walk_order(table: &TypeTable, style: Style) -> Vec<TypeIndex> {
    walk_order_from(table, style, &[])
}

/// [`walk_order`] whose first roots are `items`, the types of a file's items in the order the data
/// writer meets them ([`data_hash_order`]), where the SDK's walk starts from them (SDK 2022.1).
pub fn walk_order_from(table: &TypeTable, style: Style, items: &[TypeIndex]) -> Vec<TypeIndex> {
    let n = table.types.len();
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(n.saturating_sub(1));
    let mut deps = Vec::new();
    let first = if style.item_roots { items } else { &[] };
    let all_roots: Vec<TypeIndex> = first.iter().copied().filter(|&t| (t as usize) < n && t != 0).chain(roots(table)).collect();
    for root in all_roots {
        if !meet(root, &mut seen, &mut order) {
            continue;
        }
        if !style.v2019 || style.item_roots {
            // Breadth-first: the types met are walked in the order they were met.
            let mut next = order.len() - 1;
            while next < order.len() {
                dependencies(table, &table.types[order[next] as usize], style, &mut deps);
                for &d in &deps {
                    meet(d, &mut seen, &mut order);
                }
                next += 1;
            }
        } else {
            // A type's new dependencies are all met, then each is walked in turn. The stack holds,
            // per type being walked, the range of `order` its new dependencies took.
            let mut stack = vec![(order.len() - 1, order.len())];
            while let Some(top) = stack.last_mut() {
                if top.0 == top.1 {
                    stack.pop();
                    continue;
                }
                let t = order[top.0];
                top.0 += 1;
                dependencies(table, &table.types[t as usize], style, &mut deps);
                let start = order.len();
                for &d in &deps {
                    meet(d, &mut seen, &mut order);
                }
                stack.push((start, order.len()));
            }
        }
    }
    // Types the walk did not reach (a type met only as the subtype of a type with fields).
    for i in 1..n as TypeIndex {
        meet(i, &mut seen, &mut order);
    }
    order
}

/// The types reachable from `roots` in the order Havok numbers them, for a table whose indices are
/// not Havok's (one rebuilt from a schema snapshot, or built from scratch): `order[k]` is the type
/// that gets index `k + 1` ([`renumber`] makes the table). `roots` are the types in the order the
/// data writer meets them: [`data_hash_order`] of the file's items and patches, which gives back
/// the index order of all 76 corpus TAG0 tables; from the roots [`roots`] infers, every one of the
/// 81 corpus tables comes out in its own order (`tests/roundtrip.rs`):
///
/// - up to SDK 2018.1, breadth-first from each root over a type's parent, type arguments,
///   subtype, fields' types and interfaces;
/// - SDK 2019.1 numbers a type's type arguments (and theirs) right after it, and otherwise follows
///   [`walk_order`]'s walk, numbering the subtype of a type with fields (which that walk does not
///   follow) as the type's dependencies are listed. One 2019.1 table is in the corpus, so this rule
///   rests on it alone.
/// - SDK 2022.1 numbers as its `TBDY` walk goes (breadth-first from each root, no type argument
///   and no pointer followed: the module doc): each type the walk takes up numbers every type it
///   refers to (parent, type arguments, subtype, fields' types, interfaces), each followed at once
///   by its type arguments (and theirs). Its roots must be the data writer's ([`data_hash_order`]
///   or a stored `THSH` order): the roots [`roots`] infers do not reach the element types. This
///   gives the index order of the corpus's one 2022.1 table (TotK's `.bphcl`, 237 types).
pub fn havok_order(table: &TypeTable, roots: &[TypeIndex], style: Style) -> Vec<TypeIndex> {
    let n = table.types.len();
    let mut numbered = vec![false; n];
    let mut order = Vec::new();
    let mut deps = Vec::new();
    if !style.v2019 {
        for &root in roots {
            if root == 0 || root as usize >= n || !meet(root, &mut numbered, &mut order) {
                continue;
            }
            let mut next = order.len() - 1;
            while next < order.len() {
                references(table, &table.types[order[next] as usize], &mut deps);
                for &d in &deps {
                    meet(d, &mut numbered, &mut order);
                }
                next += 1;
            }
        }
        return order;
    }
    // SDK 2019.1 and 2022.1: `number` gives a type its index and then its type arguments theirs,
    // depth-first.
    let mut pending = Vec::new();
    let mut number = |t: TypeIndex, numbered: &mut Vec<bool>, order: &mut Vec<TypeIndex>| {
        pending.push(t);
        while let Some(x) = pending.pop() {
            if meet(x, numbered, order) {
                let args = table.params_of(&table.types[x as usize]).iter().rev();
                pending.extend(args.filter_map(|p| match p.arg {
                    TemplateArg::Type(ti) if ti != 0 && (ti as usize) < n => Some(ti),
                    _ => None,
                }));
            }
        }
    };
    let mut walked = vec![false; n];
    if style.item_roots {
        // SDK 2022.1: the walk of the `TBDY` records from each root, numbering every type a
        // walked type refers to (with its type arguments) as the walk reaches it.
        let mut refs = Vec::new();
        for &root in roots {
            if root == 0 || root as usize >= n || std::mem::replace(&mut walked[root as usize], true) {
                continue;
            }
            number(root, &mut numbered, &mut order);
            let mut queue = vec![root];
            let mut next = 0;
            while let Some(&t) = queue.get(next) {
                next += 1;
                let def = &table.types[t as usize];
                references(table, def, &mut refs);
                for &r in &refs {
                    number(r, &mut numbered, &mut order);
                }
                dependencies(table, def, style, &mut deps);
                for &d in &deps {
                    if !std::mem::replace(&mut walked[d as usize], true) {
                        queue.push(d);
                    }
                }
            }
        }
        return order;
    }
    for &root in roots {
        if root == 0 || root as usize >= n || std::mem::replace(&mut walked[root as usize], true) {
            continue;
        }
        number(root, &mut numbered, &mut order);
        let mut stack: Vec<Vec<TypeIndex>> = vec![vec![root]];
        while let Some(top) = stack.last_mut() {
            let Some(t) = top.pop() else {
                stack.pop();
                continue;
            };
            let def = &table.types[t as usize];
            if def.fields.is_some() {
                if let Some(s) = def.subtype.filter(|&s| s != 0 && (s as usize) < n) {
                    number(s, &mut numbered, &mut order);
                }
            }
            dependencies(table, def, style, &mut deps);
            let mut new = Vec::new();
            for &d in &deps {
                if !std::mem::replace(&mut walked[d as usize], true) {
                    number(d, &mut numbered, &mut order);
                    new.push(d);
                }
            }
            new.reverse();
            stack.push(new);
        }
    }
    order
}

/// The table with every type the data does not need reduced to a declaration (its name and
/// template parameters, no `TBDY` record), as SDK 2019.1 writes it: a type keeps its record when a
/// type of `data_types` (the types of the items and patched slots, [`data_hash_order`]) leads to it
/// through parents, fields' types, interfaces and the subtype of a type that has no fields and is
/// not a pointer. So the element types of empty arrays, `hkContainerHeapAllocator` and `void` are
/// declared only. Older SDKs give every type its record. The rule rests on the corpus's one 2019.1
/// table, whose 37 records it reproduces from a snapshot that defines all 50 of its types. SDK
/// 2022.1's one file (TotK's cloth) declares such types too (41 of its 237, `hkaAnimation` among
/// them); its snapshot defines none of them, so this rule is not tested there beyond keeping the
/// other 196.
pub fn declare_unneeded(table: &TypeTable, data_types: &[TypeIndex]) -> TypeTable {
    let n = table.types.len();
    let mut needed = vec![false; n];
    let mut stack: Vec<TypeIndex> = data_types.iter().copied().filter(|&t| t != 0 && (t as usize) < n).collect();
    while let Some(t) = stack.pop() {
        if std::mem::replace(&mut needed[t as usize], true) {
            continue;
        }
        let def = &table.types[t as usize];
        stack.push(def.parent);
        stack.extend(table.fields_of(def).iter().map(|f| f.ty));
        stack.extend(def.interfaces.iter().flatten().map(|x| x.ty));
        if def.fields.is_none() && def.format().is_none_or(|f| f.kind() != Kind::Pointer) {
            stack.extend(def.subtype);
        }
        stack.retain(|&d| d != 0 && (d as usize) < n);
    }
    let mut out = table.clone();
    for (t, keep) in out.types.iter_mut().zip(needed).skip(1) {
        if !keep {
            *t = TypeDef { name: t.name.clone(), params: t.params, hash: t.hash, ..TypeDef::EMPTY };
        }
    }
    out
}

/// The table of the types `order` lists, `order[k]` at index `k + 1`, every reference renumbered;
/// `None` when a listed type refers to one `order` leaves out (an order from [`havok_order`]
/// never does).
pub fn renumber(table: &TypeTable, order: &[TypeIndex]) -> Option<TypeTable> {
    let mut new_index = vec![None; table.types.len()];
    new_index[0] = Some(0);
    for (k, &old) in order.iter().enumerate() {
        *new_index.get_mut(old as usize)? = Some(k as TypeIndex + 1);
    }
    let map = |i: TypeIndex| new_index.get(i as usize).copied().flatten();
    let mut records = vec![TypeRecord::default()];
    for &old in order {
        let mut r = table.record(old)?;
        for p in &mut r.params {
            if let TemplateArg::Type(ti) = &mut p.arg {
                *ti = map(*ti)?;
            }
        }
        r.parent = map(r.parent)?;
        r.subtype = r.subtype.map(map).map_or(Some(None), |s| s.map(Some))?;
        for f in r.fields.iter_mut().flatten() {
            f.ty = map(f.ty)?;
        }
        for x in r.interfaces.iter_mut().flatten() {
            x.ty = map(x.ty)?;
        }
        records.push(r);
    }
    Some(TypeTable::from_records(records))
}

/// Marks `d` met; appends it to `order` and says so if it was not met before.
fn meet(d: TypeIndex, seen: &mut [bool], order: &mut Vec<TypeIndex>) -> bool {
    let new = !std::mem::replace(&mut seen[d as usize], true);
    if new {
        order.push(d);
    }
    new
}

/// Whether a type gets a `TBDY` record: it has a parent or any optional part.
fn has_body(t: &TypeDef) -> bool {
    t.presence() != 0 || t.parent != 0
}

/// The `TYPE` section (header included) for `table`, its `THSH` entries in walk order (stock files
/// order them by the data writer's walk, which the table does not say: see [`write_ordered`]).
pub fn write(table: &TypeTable, style: Style) -> Vec<u8> {
    let order = walk_order(table, style);
    let hashed: Vec<TypeIndex> = order.iter().copied().filter(|&i| table.types[i as usize].hash.is_some()).collect();
    write_ordered(table, style, &hashed)
}

/// The first of `key` that `t` or an ancestor of it has (at most as many steps as the table has
/// types, so a parent cycle of a hand-built table ends).
fn inherited<T>(table: &TypeTable, mut t: TypeIndex, key: impl Fn(&TypeDef) -> Option<T>) -> Option<T> {
    for _ in 0..table.types.len() {
        let def = table.get(t)?;
        if let Some(v) = key(def) {
            return Some(v);
        }
        t = def.parent;
    }
    None
}

/// The types of `table` that `roots` need (themselves, their parents, subtypes, template
/// arguments, members' and interfaces' types, and so on), as a table of their own in the order
/// `table` holds them, with each old index's new one (`None` for a type left out). A tagfile made
/// from nothing is described by a whole SDK's table; its `TYPE` section holds only these, as
/// Havok's writer gives only the types a file uses.
pub fn used_types(table: &TypeTable, roots: impl IntoIterator<Item = TypeIndex>) -> (TypeTable, Vec<Option<TypeIndex>>) {
    let n = table.types.len();
    let mut used = vec![false; n];
    let mut stack: Vec<TypeIndex> = roots.into_iter().collect();
    while let Some(t) = stack.pop() {
        let Some(slot) = used.get_mut(t as usize) else { continue };
        if t == 0 || std::mem::replace(slot, true) {
            continue;
        }
        let Some(r) = table.record(t) else { continue };
        stack.push(r.parent);
        stack.extend(r.subtype);
        stack.extend(r.params.iter().filter_map(|p| match p.arg {
            TemplateArg::Type(a) => Some(a),
            TemplateArg::Value(_) => None,
        }));
        stack.extend(r.fields.iter().flatten().map(|f| f.ty));
        stack.extend(r.interfaces.iter().flatten().map(|i| i.ty));
    }
    let mut map = vec![None; n];
    map[0] = Some(0);
    let mut next = 1;
    for (i, u) in used.iter().enumerate().skip(1) {
        if *u {
            map[i] = Some(next);
            next += 1;
        }
    }
    let new = |t: TypeIndex| map.get(t as usize).copied().flatten().unwrap_or(0);
    let records = (1..n).filter(|&i| used[i]).filter_map(|i| table.record(i as TypeIndex)).map(|mut r| {
        r.parent = new(r.parent);
        r.subtype = r.subtype.map(new);
        for p in &mut r.params {
            if let TemplateArg::Type(a) = p.arg {
                p.arg = TemplateArg::Type(new(a));
            }
        }
        for f in r.fields.iter_mut().flatten() {
            f.ty = new(f.ty);
        }
        for i in r.interfaces.iter_mut().flatten() {
            i.ty = new(i.ty);
        }
        r
    });
    (TypeTable::from_records(std::iter::once(TypeRecord::default()).chain(records)), map)
}

/// The order of a file's `THSH` entries, as Havok's data writer meets the types: the items in the
/// order they lie in `DATA`, each its own type and then the types of the slots it holds (the
/// `PTCH` entries within its bytes) in the order the walk numbers their references, every
/// non-string slot before the strings, each group by offset within an element and then by
/// element. Every corpus TAG0 file stores exactly the types this lists (its items' and its
/// patches'), in this order (`tests/roundtrip.rs`). `items` and `patches` are a file's `ITEM` and
/// `PTCH` tables as [`write::lay_out`](super::write::lay_out) gives them.
pub fn data_hash_order(table: &TypeTable, items: &[Item], patches: &[Patch]) -> Vec<TypeIndex> {
    // Items by offset (the null item left out); among items at one offset, the later numbered
    // holds the bytes (an empty run shares its offset with what follows it).
    let mut by_offset: Vec<usize> = (1..items.len()).collect();
    by_offset.sort_by_key(|&k| (items[k].offset, k));
    let starts: Vec<u32> = by_offset.iter().map(|&k| items[k].offset).collect();
    let mut slots: Vec<Vec<(u32, TypeIndex)>> = vec![Vec::new(); by_offset.len()];
    for p in patches {
        for &at in &p.offsets {
            if let Some(j) = starts.partition_point(|&s| s <= at).checked_sub(1) {
                slots[j].push((at, p.ty));
            }
        }
    }
    let is_string = |t: TypeIndex| inherited(table, t, |d| d.format()).is_some_and(|f| f.kind() == Kind::String);
    let mut seen = vec![false; table.types.len()];
    let mut order = Vec::new();
    let mut meet = |t: TypeIndex, order: &mut Vec<TypeIndex>| {
        if let Some(s) = seen.get_mut(t as usize) {
            if !std::mem::replace(s, true) {
                order.push(t);
            }
        }
    };
    for (j, &k) in by_offset.iter().enumerate() {
        let item = &items[k];
        meet(item.ty, &mut order);
        let size = inherited(table, item.ty, |d| d.size.map(|s| s.size)).unwrap_or(0).max(1);
        let mut held = std::mem::take(&mut slots[j]);
        held.sort_by_key(|&(at, ty)| {
            let rel = at - item.offset;
            (is_string(ty), rel % size, rel / size)
        });
        for (_, ty) in held {
            meet(ty, &mut order);
        }
    }
    order
}

/// The `TYPE` section (header included) for `table`, with the `THSH` entries of the types
/// `hash_order` lists, in that order (each must have a hash; one that has none is left out, and so
/// is a type listed twice or out of range). A stock file's `THSH` order
/// ([`type_section::hash_order`](super::type_section::hash_order)) gives back its section.
pub fn write_ordered(table: &TypeTable, style: Style, hash_order: &[TypeIndex]) -> Vec<u8> {
    let n = table.types.len();
    let order = walk_order_from(table, style, hash_order);
    let mut tstr = Strings::new();
    let intern_names = |tstr: &mut Strings, t: &TypeDef| {
        tstr.intern(&t.name);
        for p in table.params_of(t) {
            tstr.intern(&p.name);
            // SDK 2019.1 interns a type parameter's type name right after the parameter name.
            if style.v2019 {
                if let TemplateArg::Type(ti) = p.arg {
                    if let Some(pt) = table.get(ti) {
                        tstr.intern(&pt.name);
                    }
                }
            }
        }
    };
    if style.v2019 {
        for (_, t) in table.iter() {
            intern_names(&mut tstr, t);
        }
    } else {
        for &i in &order {
            intern_names(&mut tstr, &table.types[i as usize]);
        }
    }
    let mut tna = Vec::new();
    packed::write(&mut tna, n as u64);
    for (_, t) in table.iter() {
        packed::write(&mut tna, tstr.intern(&t.name));
        let params = table.params_of(t);
        packed::write(&mut tna, params.len() as u64);
        for p in params {
            packed::write(&mut tna, tstr.intern(&p.name));
            match p.arg {
                TemplateArg::Type(ti) => packed::write(&mut tna, u64::from(ti)),
                TemplateArg::Value(v) => packed::write(&mut tna, v),
            }
        }
    }
    let mut fstr = Strings::new();
    let mut tbdy = Vec::new();
    let mut records = 0usize;
    for &i in &order {
        let t = &table.types[i as usize];
        if !has_body(t) {
            continue;
        }
        records += 1;
        let p = t.presence();
        packed::write(&mut tbdy, u64::from(i));
        packed::write(&mut tbdy, u64::from(t.parent));
        packed::write(&mut tbdy, u64::from(p));
        if let Some(f) = t.format {
            packed::write(&mut tbdy, f.into());
        }
        if let Some(s) = t.subtype {
            packed::write(&mut tbdy, s.into());
        }
        if let Some(v) = t.version {
            packed::write(&mut tbdy, v.into());
        }
        if let Some(sa) = t.size {
            packed::write(&mut tbdy, sa.size.into());
            packed::write(&mut tbdy, sa.align.into());
        }
        if let Some(f) = t.flags {
            packed::write(&mut tbdy, f.into());
        }
        if t.fields.is_some() {
            let fields = table.fields_of(t);
            let word = (u64::from(t.properties.unwrap_or(0)) << 16) | fields.len() as u64;
            packed::write(&mut tbdy, word);
            for f in fields {
                packed::write(&mut tbdy, fstr.intern(&f.name));
                packed::write(&mut tbdy, f.flags.into());
                if f.flags & crate::reflect::field_flags::AUX != 0 {
                    packed::write(&mut tbdy, f.aux.into());
                }
                packed::write(&mut tbdy, f.offset.into());
                packed::write(&mut tbdy, f.ty.into());
            }
        }
        if let Some(ifaces) = &t.interfaces {
            packed::write(&mut tbdy, ifaces.len() as u64);
            for x in ifaces {
                packed::write(&mut tbdy, x.ty.into());
                packed::write(&mut tbdy, x.value.into());
            }
        }
        debug_assert_eq!(p & presence::ATTRIBUTE, 0);
    }
    let mut listed = vec![false; n];
    let hashed: Vec<(TypeIndex, u32)> = hash_order
        .iter()
        .filter_map(|&i| {
            let h = table.get(i)?.hash?;
            (!std::mem::replace(&mut listed[i as usize], true)).then_some((i, h))
        })
        .collect();
    let mut thsh = Vec::new();
    packed::write(&mut thsh, hashed.len() as u64);
    for (i, h) in hashed {
        packed::write(&mut thsh, i.into());
        thsh.extend_from_slice(&h.to_le_bytes());
    }

    let string_pad = if style.v2019 { 0xFF } else { 0 };
    let (mut ts, mut fs) = (tstr.list, fstr.list);
    pad4(&mut ts, string_pad);
    pad4(&mut fs, string_pad);
    pad4(&mut tna, 0);
    pad4(&mut tbdy, 0);
    pad4(&mut thsh, 0);

    // SDK 2019.1 keeps a pointer slot per type with a record (and the null type); older SDKs, and
    // 2022.1 again, one per type.
    let slots = if style.slot_per_record { records + 1 } else { n };
    let mut w = SectionWriter::new();
    w.begin(b"TYPE", 0);
    w.leaf(b"TPTR", &vec![0u8; 8 * slots]);
    w.leaf(if style.v2019 { b"TST1" } else { b"TSTR" }, &ts);
    w.leaf(if style.old_names { b"TNAM" } else { b"TNA1" }, &tna);
    w.leaf(if style.v2019 { b"FST1" } else { b"FSTR" }, &fs);
    w.leaf(if style.old_names { b"TBOD" } else { b"TBDY" }, &tbdy);
    w.leaf(b"THSH", &thsh);
    w.leaf(b"TPAD", &[]);
    w.end();
    w.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reflect::{Field, SizeAlign, TemplateParam};

    fn record(name: &str, parent: TypeIndex, fields: &[TypeIndex]) -> TypeRecord {
        TypeRecord {
            name: name.into(),
            parent,
            format: Some(7),
            size: Some(SizeAlign { size: 8, align: 8 }),
            properties: Some(0),
            fields: Some(fields.iter().map(|&ty| Field { name: "f".into(), flags: 0x20, offset: 0, ty, aux: 0 }).collect()),
            ..TypeRecord::default()
        }
    }

    /// A root (1) holding a field of a template type (3) whose argument is 2, and a class (4) no
    /// type refers to, numbered as Havok does from the roots 1 and 4 whatever order they hold.
    #[test]
    fn havok_order_renumbers_a_shuffled_table() {
        // Shuffled: index 1 the argument, 2 the template type, 3 the root, 4 the lone class.
        let mut w = record("W", 0, &[]);
        w.params = vec![TemplateParam { name: "tT".into(), arg: TemplateArg::Type(1) }];
        let shuffled =
            TypeTable::from_records([TypeRecord::default(), record("A", 0, &[]), w, record("Root", 0, &[2]), record("Lone", 0, &[])]);
        let style = Style::for_sdk("20180100");
        let order = havok_order(&shuffled, &[3, 4], style);
        assert_eq!(order, [3, 2, 1, 4]);
        let table = renumber(&shuffled, &order).unwrap();
        let names: Vec<&str> = table.iter().map(|(_, t)| t.name.as_str()).collect();
        assert_eq!(names, ["Root", "W", "A", "Lone"]);
        assert_eq!(roots(&table), [1, 4]);
        assert_eq!(walk_order(&table, style), [1, 2, 3, 4]);
        assert_eq!(havok_order(&table, &roots(&table), style), [1, 2, 3, 4]);
        // An order that leaves out a type a listed one refers to cannot be renumbered.
        assert!(renumber(&shuffled, &[3, 4]).is_none());
    }

    /// SDK 2022.1's walk takes the items' types as roots in turn and does not follow a type
    /// argument: the element type of a field's array waits for its turn as an item's type, after
    /// a class met as an item before it; SDK 2019.1's walk follows it at once.
    #[test]
    fn the_2022_walk_follows_no_type_argument() {
        // 1 Root { array: 2, n: 5 }; 2 an array of 3 (its field 4); 3 Elem; 4, 5 plain; 6 Other.
        let mut array = record("hkArray", 0, &[4]);
        array.params = vec![TemplateParam { name: "tT".into(), arg: TemplateArg::Type(3) }];
        let table = TypeTable::from_records([
            TypeRecord::default(),
            record("Root", 0, &[2, 5]),
            array,
            record("Elem", 0, &[]),
            record("int", 0, &[]),
            record("long", 0, &[]),
            record("Other", 0, &[]),
        ]);
        let items = [1, 6, 3];
        assert_eq!(walk_order_from(&table, Style::for_sdk("20220100"), &items), [1, 2, 5, 4, 6, 3]);
        assert_eq!(walk_order_from(&table, Style::for_sdk("20190100"), &items), [1, 2, 5, 4, 3, 6]);
        // Numbered as the walk goes, each type with its type arguments at once.
        assert_eq!(havok_order(&table, &items, Style::for_sdk("20220100")), [1, 2, 3, 5, 4, 6]);
    }

    /// A hand-built table with a parent cycle and references out of range: every walk ends.
    #[test]
    fn walks_end_on_cycles_and_bad_indices() {
        let table = TypeTable::from_records([TypeRecord::default(), record("A", 2, &[9]), record("B", 1, &[1])]);
        for sdkv in ["20180100", "20190100", "20220100"] {
            let style = Style::for_sdk(sdkv);
            assert_eq!(walk_order(&table, style).len(), 2);
            assert_eq!(havok_order(&table, &[1, 7, 0], style), [1, 2]);
            let section = write(&table, style);
            assert!(!section.is_empty());
        }
        let items = [Item { ty: 0, kind_byte: 0, offset: 0, count: 0 }, Item { ty: 1, kind_byte: 0x10, offset: 0, count: 1 }];
        let patches = [Patch { ty: 2, offsets: vec![0] }];
        assert_eq!(data_hash_order(&table, &items, &patches), [1, 2]);
        let reduced = declare_unneeded(&table, &[2]);
        assert!(reduced.types[1].fields.is_some() && reduced.types[2].fields.is_some());
        let reduced = declare_unneeded(&TypeTable::from_records([TypeRecord::default(), record("C", 0, &[])]), &[]);
        assert_eq!(reduced.types[1].presence(), 0);
    }
}
