//! Havok names to Rust identifiers. A class keeps Havok's spelling (`hknpBodyCinfo`); a nested
//! name joins its parts with `_` (`hkaSkeleton::Partition` -> `hkaSkeleton_Partition`); a template
//! instance that is a class appends its arguments (`hkTuple<int, float>` -> `hkTuple_int_float`);
//! a `#hash` layout variant appends its hash (`Foo#1a2b3c4d` -> `Foo_1a2b3c4d`). Names that still
//! collide get `_` and the computed hash. Members are snake case by heck (`motionType` ->
//! `motion_type`), raw identifiers for keywords.

use heck::ToSnakeCase;
use proc_macro2::{Ident, Span};
use std::collections::{BTreeMap, BTreeSet};

/// Words that cannot be identifiers even raw.
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false", "fn", "for", "gen",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static", "struct",
    "trait", "true", "type", "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// Makes `s` identifier-safe: runs of other characters become one `_`, `*` is spelled `Ptr`, and a
/// leading digit gets `_` before it.
fn sanitize(s: &str) -> String {
    let mut out = String::new();
    let mut pending = false;
    for ch in s.chars() {
        let piece = match ch {
            'a'..='z' | 'A'..='Z' | '0'..='9' => None,
            '*' => Some("Ptr"),
            '&' => Some("Ref"),
            _ => {
                pending = !out.is_empty();
                continue;
            }
        };
        if pending || (piece.is_some() && !out.is_empty()) {
            out.push('_');
            pending = false;
        }
        match piece {
            None => out.push(ch),
            Some(p) => out.push_str(p),
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// The identifier spelling of a type key, before collisions are resolved.
pub fn type_name(key: &str) -> String {
    let base = crate::schema::model::base_key(key);
    let variant = key.get(base.len() + 1..).filter(|_| base.len() < key.len());
    let mut s = sanitize(base);
    if let Some(v) = variant {
        s.push('_');
        s.push_str(sanitize(v).trim_start_matches('_'));
    }
    s
}

/// An identifier, raw where it is a keyword.
pub fn ident(s: &str) -> Ident {
    if NOT_RAW.contains(&s) {
        Ident::new(&format!("{s}_"), Span::call_site())
    } else if KEYWORDS.contains(&s) {
        Ident::new_raw(s, Span::call_site())
    } else {
        Ident::new(s, Span::call_site())
    }
}

/// Assigns every key a distinct identifier: keys whose spellings collide (with each other or a
/// reserved name) all get their hash appended.
pub fn assign(keys: &[(&str, u32)], reserved: &[&str]) -> BTreeMap<String, String> {
    let mut by_name: BTreeMap<String, Vec<(&str, u32)>> = BTreeMap::new();
    for &(k, h) in keys {
        by_name.entry(type_name(k)).or_default().push((k, h));
    }
    let mut taken: BTreeSet<String> = reserved.iter().map(|s| s.to_string()).collect();
    let mut out = BTreeMap::new();
    let mut later = Vec::new();
    for (name, list) in by_name {
        if list.len() == 1 && !taken.contains(&name) {
            taken.insert(name.clone());
            out.insert(list[0].0.to_owned(), name);
        } else {
            later.extend(list.into_iter().map(|(k, h)| (k, h, name.clone())));
        }
    }
    for (k, h, name) in later {
        let mut candidate = format!("{name}_{h:08x}");
        let mut n = 2;
        while taken.contains(&candidate) {
            candidate = format!("{name}_{h:08x}_{n}");
            n += 1;
        }
        taken.insert(candidate.clone());
        out.insert(k.to_owned(), candidate);
    }
    out
}

/// Snake-case member names for one class, distinct from each other and from `reserved`.
pub fn field_names<'a>(names: impl IntoIterator<Item = &'a str>, reserved: &[&str]) -> Vec<String> {
    let mut taken: BTreeSet<String> = reserved.iter().map(|s| s.to_string()).collect();
    let mut out = Vec::new();
    for n in names {
        let mut s = sanitize(n).to_snake_case();
        if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
            s.insert(0, '_');
        }
        let mut candidate = s.clone();
        let mut i = 2;
        while taken.contains(&candidate) {
            candidate = format!("{s}_{i}");
            i += 1;
        }
        taken.insert(candidate.clone());
        out.push(candidate);
    }
    out
}

/// The constant names of an enumeration's items: the item name where it is an identifier (made
/// identifier-safe otherwise, raw for keywords), each once; `None` for an item whose name repeats
/// one taken before it or collides with the enumeration trait's `NAME`/`ITEMS`.
pub fn item_consts<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<Option<Ident>> {
    let mut seen: BTreeSet<String> = ["NAME", "ITEMS"].iter().map(|s| s.to_string()).collect();
    names
        .into_iter()
        .map(|n| {
            let mut s = sanitize(n);
            if s.is_empty() {
                return None;
            }
            if s.starts_with(|c: char| c.is_ascii_digit()) {
                s.insert(0, '_');
            }
            seen.insert(s.clone()).then(|| ident(&s))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings() {
        assert_eq!(type_name("hknpBodyCinfo"), "hknpBodyCinfo");
        assert_eq!(type_name("hkaSkeleton::Partition"), "hkaSkeleton_Partition");
        assert_eq!(type_name("hkTuple<hkUint32, T*<hkaBone>>"), "hkTuple_hkUint32_T_Ptr_hkaBone");
        assert_eq!(type_name("Foo#1a2b3c4d"), "Foo_1a2b3c4d");
        assert_eq!(type_name("hkcdPlanarGeometryPrimitives::Collection<28>"), "hkcdPlanarGeometryPrimitives_Collection_28");
        assert_eq!(field_names(["motionType", "type", "self", "base", "mType"], &["base"]), [
            "motion_type",
            "type",
            "self",
            "base_2",
            "m_type"
        ]);
        assert_eq!(ident("type").to_string(), "r#type");
        assert_eq!(ident("self").to_string(), "self_");
    }

    #[test]
    fn collisions_get_hashes() {
        let m = assign(&[("a::b", 1), ("a_b", 2), ("c", 3)], &["Value"]);
        assert_eq!(m["a::b"], "a_b_00000001");
        assert_eq!(m["a_b"], "a_b_00000002");
        assert_eq!(m["c"], "c");
    }
}
