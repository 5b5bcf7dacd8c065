//! The compressed mesh decoder on made members: a good tree of each form, and each lie a
//! hostile file can tell (a section's range past the primitives, indices past the vertex
//! arrays, a bits count over 32, a quantization that is not finite, counts that multiply to
//! huge), each a located error.

use super::meshtree::{decode, TreeFacts};
use super::read::At;
use crate::dump::{Members, Val};
use crate::error::ErrorKind;
use crate::Handle;

fn rec(fields: Vec<(&str, Val)>) -> Val {
    Val::Record(Members(fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()))
}

fn ints(v: &[u64]) -> Val {
    Val::List(v.iter().map(|&x| Val::UInt(x)).collect())
}

fn reals(v: &[f32]) -> Val {
    Val::List(v.iter().map(|&x| Val::Real(x)).collect())
}

fn prim(i: [u64; 4]) -> Val {
    rec(vec![("indices", ints(&i))])
}

fn packed(x: u64, y: u64, z: u64) -> u64 {
    x | y << 11 | z << 22
}

/// An SDK 2014 tree (bit-field sections): one section of four packed vertices, a quad, a
/// triangle and a custom primitive; `edit` changes it first.
fn tree_2014(edit: impl FnOnce(&mut Vec<(&'static str, Val)>, &mut Vec<(&'static str, Val)>)) -> Val {
    let mut section = vec![
        ("codecParms", reals(&[1.0, 2.0, 3.0, 0.5, 0.25, 2.0])),
        ("firstPackedVertex", Val::UInt(0)),
        ("sharedVertices", rec(vec![("data", Val::UInt(4))])), // 4 packed, shared from 0
        ("primitives", rec(vec![("data", Val::UInt(3))])),     // 3 primitives from 0
        ("numPackedVertices", Val::UInt(4)),
    ];
    let mut tree = vec![
        ("domain", rec(vec![("min", reals(&[0.0, 0.0, 0.0, 0.0])), ("max", reals(&[10.0, 10.0, 10.0, 0.0]))])),
        ("bitsPerKey", Val::UInt(18)),
        ("primitives", Val::List(vec![prim([0, 1, 2, 3]), prim([0, 1, 2, 2]), prim([0xde, 0xad, 0xde, 0xad])])),
        ("sharedVerticesIndex", ints(&[])),
        ("packedVertices", ints(&[packed(0, 0, 0), packed(2, 0, 0), packed(2, 4, 0), packed(0, 4, 1)])),
        ("sharedVertices", ints(&[])),
    ];
    edit(&mut section, &mut tree);
    tree.push(("sections", Val::List(vec![rec(section)])));
    rec(tree)
}

/// An SDK 2018 tree (plain section members): one packed vertex and two shared ones.
fn tree_2018(edit: impl FnOnce(&mut Vec<(&'static str, Val)>, &mut Vec<(&'static str, Val)>)) -> Val {
    let mut section = vec![
        ("codecParms", reals(&[0.0, 0.0, 0.0, 1.0, 1.0, 1.0])),
        ("firstPackedVertexIndex", Val::UInt(0)),
        ("firstSharedVertexIndex", Val::UInt(0)),
        ("firstPrimitiveIndex", Val::UInt(0)),
        ("numPackedVertices", Val::UInt(1)),
        ("numPrimitives", Val::UInt(1)),
    ];
    let max21 = (1u64 << 21) - 1;
    let max22 = (1u64 << 22) - 1;
    let mut tree = vec![
        ("domain", rec(vec![("min", reals(&[-1.0, -2.0, -3.0, 0.0])), ("max", reals(&[1.0, 2.0, 3.0, 0.0]))])),
        ("primitives", Val::List(vec![prim([0, 1, 2, 2])])),
        ("sharedVerticesIndex", ints(&[1, 0])),
        ("packedVertices", ints(&[packed(5, 6, 7)])),
        ("sharedVertices", ints(&[0, max21 | max21 << 21 | max22 << 42])),
    ];
    edit(&mut section, &mut tree);
    tree.push(("sections", Val::List(vec![rec(section)])));
    rec(tree)
}

fn run(tree: &Val) -> crate::error::Result<(super::Mesh, TreeFacts)> {
    decode(At { h: Handle(7), class: "hknpCompressedMeshShapeData", v: tree }, "meshTree", 1000)
}

fn err(tree: &Val) -> crate::error::Error {
    run(tree).expect_err("a lie must be an error")
}

#[test]
fn a_2014_tree_gives_its_quads_and_triangles() {
    let (m, f) = run(&tree_2014(|_, _| {})).unwrap();
    assert_eq!(f, TreeFacts { sections: 1, triangles: 1, quads: 1, custom: 1 });
    assert_eq!(m.triangles, vec![[0, 1, 2], [0, 2, 3], [0, 1, 2]]);
    // offset + scale * quantized.
    assert_eq!(m.positions, vec![[1.0, 2.0, 3.0], [2.0, 2.0, 3.0], [2.0, 3.0, 3.0], [1.0, 3.0, 5.0]]);
}

#[test]
fn a_2018_tree_decodes_packed_and_shared_vertices() {
    let (m, f) = run(&tree_2018(|_, _| {})).unwrap();
    assert_eq!((f.triangles, f.quads), (1, 0));
    assert_eq!(m.positions[0], [5.0, 6.0, 7.0]);
    // Index 1 is shared slot 0 -> sharedVertices[1], the domain's max; index 2 is its min.
    assert_eq!(m.positions[1], [1.0, 2.0, 3.0]);
    assert_eq!(m.positions[2], [-1.0, -2.0, -3.0]);
}

fn assert_range(e: &crate::error::Error, what: &str, index: u64, count: u64, path_has: &str) {
    match e.kind() {
        ErrorKind::IndexOutOfRange { what: w, index: i, count: c } => assert_eq!((*w, *i, *c), (what, index, count), "{e}"),
        k => panic!("{k:?}: {e}"),
    }
    let s = e.to_string();
    assert!(s.contains("object 7 (hknpCompressedMeshShapeData)") && s.contains(path_has), "{s}");
}

#[test]
fn a_section_range_past_the_primitives_is_located() {
    let t = tree_2014(|s, _| s[3].1 = rec(vec![("data", Val::UInt(2 << 8 | 5))]));
    assert_range(&err(&t), "primitive", 6, 3, "meshTree.sections[0].primitives");
    // Counts that multiply to huge: the largest start and count a 32-bit word holds.
    let t = tree_2014(|s, _| s[3].1 = rec(vec![("data", Val::UInt(u64::from(u32::MAX)))]));
    assert_range(&err(&t), "primitive", 0xff_ffff + 0xff - 1, 3, "sections[0]");
    let t = tree_2018(|s, _| s[5].1 = Val::UInt(u64::MAX));
    assert_range(&err(&t), "primitive", u64::MAX - 1, 1, "sections[0]");
}

#[test]
fn indices_past_the_vertex_arrays_are_located() {
    // A packed index past packedVertices.
    let t = tree_2014(|s, _| s[1].1 = Val::UInt(2));
    assert_range(&err(&t), "packed vertex", 4, 4, "meshTree.primitives[0]");
    // A shared index past sharedVerticesIndex.
    let t = tree_2018(|s, _| s[2].1 = Val::UInt(1));
    assert_range(&err(&t), "shared vertex index", 2, 2, "meshTree.primitives[0]");
    // sharedVerticesIndex naming no shared vertex.
    let t = tree_2018(|_, tr| tr[2].1 = ints(&[9, 0]));
    assert_range(&err(&t), "shared vertex", 9, 2, "meshTree.sharedVerticesIndex[0]");
    // A primitive index that is no byte.
    let t = tree_2014(|_, tr| tr[2].1 = Val::List(vec![prim([0, 1, 300, 2])]));
    assert!(err(&t).to_string().contains("meshTree.primitives[0]"));
}

#[test]
fn quantization_lies_are_located() {
    let t = tree_2014(|_, tr| tr[1].1 = Val::UInt(40));
    let e = err(&t);
    assert!(e.to_string().contains("meshTree.bitsPerKey") && e.to_string().contains("40 bits"), "{e}");
    let t = tree_2014(|s, _| s[0].1 = reals(&[1.0, f32::NAN, 3.0, 0.5, 0.25, 2.0]));
    let e = err(&t);
    assert!(e.to_string().contains("sections[0].codecParms") && e.to_string().contains("not finite"), "{e}");
    // An unset codec is no lie where no packed vertex uses it.
    let t = tree_2018(|s, tr| {
        s[0].1 = reals(&[f32::MAX, f32::MAX, f32::MAX, f32::NEG_INFINITY, f32::NEG_INFINITY, f32::NEG_INFINITY]);
        s[4].1 = Val::UInt(0);
        tr[1].1 = Val::List(vec![prim([0, 1, 1, 1])]);
    });
    assert_eq!(run(&t).unwrap().0.triangles.len(), 1);
    let t = tree_2014(|s, _| s[0].1 = reals(&[1.0, 2.0, 3.0]));
    assert!(err(&t).to_string().contains("3 reals where 6 belong"));
    let t = tree_2018(|_, tr| tr[0].1 = rec(vec![("min", reals(&[0.0, 0.0, f32::INFINITY, 0.0])), ("max", reals(&[1.0; 4]))]));
    assert!(err(&t).to_string().contains("meshTree.domain.min"));
    // A packed word wider than 32 bits.
    let t = tree_2014(|_, tr| tr[4].1 = ints(&[1 << 40, 0, 0, 0]));
    assert!(err(&t).to_string().contains("packedVertices[0]"));
}

#[test]
fn errors_carry_the_object_and_member_path() {
    let e = err(&tree_2014(|s, _| s[1].1 = Val::UInt(2)));
    assert_eq!(e.path(), vec!["object 7 (hknpCompressedMeshShapeData)", "meshTree.primitives[0]"]);
    assert_eq!(e.to_string(), "in object 7 (hknpCompressedMeshShapeData).meshTree.primitives[0]: packed vertex 4 out of range (4 available)");
}

#[test]
fn sections_naming_the_same_primitives_over_and_over_stop_at_the_limit() {
    // 2018 sections, 600 of them, each naming the one primitive: 600 triangles past a limit of
    // 1000 triangles and vertices together.
    let one = tree_2018(|_, _| {});
    let Val::Record(mut m) = one else { unreachable!() };
    let secs = m.0.iter_mut().find(|(n, _)| n == "sections").unwrap();
    let Val::List(l) = &mut secs.1 else { unreachable!() };
    let s = l[0].clone();
    l.resize(600, s);
    let e = err(&Val::Record(m));
    assert!(e.to_string().contains("meshTree.sections[") && e.to_string().contains("more than 1000 triangles and vertices"), "{e}");
}
