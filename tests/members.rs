//! Generic member access (`hktypes::Document::members` / `set_members`) on real files: a
//! tagfile's enum member by its item's name when the document was opened with classes that know
//! the enumeration's items (as the dump names it), by number otherwise; `set_members` takes the
//! name or the number; and `set_members_renumbered` follows each object when the tagfile writer
//! numbers the objects anew.
//!
//! `cargo test --no-default-features --features hk2015_1 --test members`.

mod common;

use hktypes::dump::Val;
use hktypes::members::ValExt;
use hktypes::{open, Document, Handle, OpenOptions};

/// A Dark Souls Remastered animation (SDK 2015.1 TAG0): an hkaSplineCompressedAnimation.
const DSR_ANIMATION: &str = "soulstruct-havok/DSR__c2240__a00_0000.hkx";
/// A Sekiro ragdoll (SDK 2016.2 TAG0): bodies pointing at capsule shapes.
const RAGDOLL: &str = "nikhil-RGB__Genichiro-The-Last-Stand/chr/c7190.chrbnd/chr/c7190/c7190.hkx";

fn only(doc: &Document, class: &str) -> Handle {
    let found = doc.find(class);
    assert_eq!(found.len(), 1, "{class}: {found:?}");
    found[0]
}

#[cfg(feature = "hk2015_1")]
#[test]
fn a_tagfile_enum_member_is_named_by_the_classes_and_set_by_name_or_number() {
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, DSR_ANIMATION) else { return };
    let options = hkclasses::open_options();
    // Without classes: the number.
    let plain = open(&bytes, &OpenOptions::default()).unwrap();
    let h = only(&plain, "hkaSplineCompressedAnimation");
    assert_eq!(plain.member(h, "type").unwrap(), Val::UInt(3));
    // With the compiled-in classes: the item's name, as the dump gives it.
    let mut doc = open(&bytes, &options).unwrap();
    assert_eq!(doc.member(h, "type").unwrap(), Val::Str("HK_SPLINE_COMPRESSED_ANIMATION".into()));
    // Set by another item's name, by number, and back by name: the bytes come back.
    let h = doc.set_members(h, vec![("type".into(), Val::Str("HK_INTERLEAVED_ANIMATION".into()))], &options).unwrap();
    assert_eq!(doc.member(h, "type").unwrap(), Val::Str("HK_INTERLEAVED_ANIMATION".into()));
    assert_eq!(open(&doc.write().unwrap(), &OpenOptions::default()).unwrap().member(h, "type").unwrap(), Val::UInt(1));
    let h = doc.set_members(h, vec![("type".into(), Val::UInt(3))], &options).unwrap();
    assert_eq!(doc.member(h, "type").unwrap(), Val::Str("HK_SPLINE_COMPRESSED_ANIMATION".into()));
    assert_eq!(doc.write().unwrap(), bytes);
    // A name the enumeration does not have is a located error that changes nothing.
    let e = doc.set_members(h, vec![("type".into(), Val::Str("HK_NO_SUCH_ANIMATION".into()))], &options).unwrap_err();
    assert!(e.to_string().contains("HK_NO_SUCH_ANIMATION"), "{e}");
    assert_eq!(doc.write().unwrap(), bytes);
}

#[test]
fn set_members_renumbered_follows_every_object_when_the_writer_reorders_them() {
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, RAGDOLL) else { return };
    let options = OpenOptions::default();
    let mut doc = open(&bytes, &options).unwrap();
    let before = open(&bytes, &options).unwrap();
    let ragdoll = only(&doc, "hknpRagdollData");
    // The first body's shape pointed at the second body's: the first capsule is named by no
    // pointer any more, and the writer's walk from the root places it elsewhere.
    let mut bodies = doc.member(ragdoll, "bodyCinfos").unwrap();
    let Val::List(list) = &mut bodies else { panic!("bodyCinfos: {bodies:?}") };
    let second = list[1].field("shape").cloned().unwrap();
    let Val::Record(first) = &mut list[0] else { panic!() };
    let old_shape = first.get("shape").and_then(ValExt::as_ref_handle).unwrap();
    first.0.iter_mut().find(|(n, _)| n == "shape").unwrap().1 = second.clone();
    let map = doc.set_members_renumbered(ragdoll, vec![("bodyCinfos".into(), bodies)], &options).unwrap();
    // One pair per object, every new handle an object of the same class with the same members
    // (pointers compared by the class of the object they name).
    assert_eq!(map.len(), before.handles().len());
    assert!(map.iter().any(|(o, n)| o != n), "the writer kept every handle: the test no longer tests the renumbering");
    let class_of_ref = |d: &Document, v: &Val| v.as_ref_handle().and_then(|h| d.class_name(h));
    for (old, new) in &map {
        assert_eq!(before.class_name(*old), doc.class_name(*new), "{old:?} -> {new:?}");
        if *old == ragdoll {
            continue;
        }
        let (a, b) = (before.members(*old).unwrap(), doc.members(*new).unwrap());
        assert_eq!(a.0.len(), b.0.len());
        for ((na, va), (nb, vb)) in a.0.iter().zip(&b.0) {
            assert_eq!(na, nb);
            match (va, vb) {
                (Val::Ref(..), Val::Ref(..)) => assert_eq!(class_of_ref(&before, va), class_of_ref(&doc, vb)),
                _ if na == "vertices" || na == "bones" => assert_eq!(va, vb),
                _ => {}
            }
        }
    }
    let new_ragdoll = map.iter().find(|(o, _)| *o == ragdoll).unwrap().1;
    let bodies = doc.member(new_ragdoll, "bodyCinfos").unwrap();
    let shape = |i: usize| bodies.as_list().unwrap()[i].field("shape").and_then(ValExt::as_ref_handle).unwrap();
    assert_eq!(shape(0), shape(1));
    // The capsule no pointer names is still there, followed to its new handle.
    let moved = map.iter().find(|(o, _)| *o == old_shape).unwrap().1;
    assert_eq!(doc.class_name(moved).as_deref(), Some("hknpCapsuleShape"));
    assert_eq!(doc.member(moved, "vertices").unwrap(), before.member(old_shape, "vertices").unwrap());
}
