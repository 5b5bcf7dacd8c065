//! Compiles the golden file `tests/codegen/fixture.rs` (see `codegen.rs`) and checks its layouts
//! against the fixture schema and its readers and writers on hand-made bytes.

// The generated code's `cfg_attr(feature = "serde", ...)` names the root crate's feature, which
// this test crate does not have: the derives are compiled out here, as intended. (The lint is
// checked per crate; an `allow` on the module does not reach the included code.)
#![allow(unexpected_cfgs)]

use hktypes::value::{self, Class, ClassEntry, NoItems, SourceIndices, Value};
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/codegen")
}

fn fixture() -> hkgen::schema::Schema {
    hkgen::schema::snapshot::read(&dir().join("fixture")).expect("fixture schema reads")
}

#[allow(non_camel_case_types, non_snake_case, non_upper_case_globals, dead_code)]
mod expected {
    include!("codegen/fixture.rs");
}

#[test]
fn expected_layout_matches_the_fixture() {
    let schema = fixture();
    let model = hkgen::codegen::types::Model::new(&schema, quote::quote!(::hktypes::value)).unwrap();
    assert_eq!(expected::CLASSES.len(), model.structs.len());
    assert!(expected::CLASSES.windows(2).all(|w| w[0].name < w[1].name));
    for t in &model.structs {
        let e = ClassEntry::find(expected::CLASSES, &t.key).unwrap_or_else(|| panic!("no class {}", t.key));
        let e = e.as_tagfile().unwrap_or_else(|| panic!("{} is no tagfile class", t.key));
        assert_eq!(Some(e.size as u32), t.size, "{}", t.key);
        let fields = t.fields.as_deref().unwrap_or(&[]);
        assert_eq!(e.fields.len(), fields.len(), "{}", t.key);
        for (f, info) in fields.iter().zip(e.fields) {
            assert_eq!((info.name, info.offset), (f.name.as_str(), f.offset), "{}", t.key);
            assert_eq!(Some(info.size), model.size_of(&f.ty), "{}.{}", t.key, f.name);
        }
    }
}

#[test]
fn expected_code_round_trips_an_object() {
    use expected::*;
    let mut bytes = vec![0u8; hknpBodyCinfo::SIZE];
    bytes[0] = 7; // shape: item 7
    bytes[8..12].copy_from_slice(&(-1i32).to_le_bytes());
    bytes[40] = 2; // motionType DYNAMIC
    bytes[48..52].copy_from_slice(&1.5f32.to_le_bytes());
    bytes[60..64].copy_from_slice(&0x7fc0_1234u32.to_le_bytes()); // a NaN in the w lane
    bytes[112..116].copy_from_slice(&10.0f32.to_le_bytes());
    let body: hknpBodyCinfo = value::read_value(&bytes, 0x100, &NoItems).unwrap();
    assert_eq!(body.shape.handle(), Some(hktypes::Handle(7)));
    assert_eq!(body.flags, -1);
    assert_eq!(body.position.lanes[0], 1.5);
    assert_eq!(body.position.lanes[3].to_bits(), 0x7fc0_1234);
    assert_eq!(body.mass, 10.0);
    // The overlay makes the bare byte an enumeration; the byte is kept.
    assert_eq!(body.motion_type.name(), Some("DYNAMIC"));
    assert_eq!(body.motion_type.raw, 2u8);
    // Items are constants of the enumeration type.
    assert!(body.motion_type == hknpMotionType_Enum::DYNAMIC);
    assert_eq!(body.motion_type.item(), Some(hknpMotionType_Enum::DYNAMIC));
    let keyframed = value::Enum::<hknpMotionType_Enum, u8>::of(hknpMotionType_Enum::KEYFRAMED);
    assert_eq!(keyframed.raw, 1);
    let mut m = body.motion_type;
    assert!(m.set(hknpMotionType_Enum::STATIC));
    assert_eq!(m.raw, 0);
    // Only the fixture SDK's names apply: 2018.1's, not the 2014.2 group's.
    assert_eq!(hkaAnimationBinding_BlendHint::ADDITIVE_PARENT_SPACE.value, 1);
    assert_eq!(<hkaAnimationBinding_BlendHint as value::Enumeration>::name_of(2), Some("ADDITIVE_CHILD_SPACE"));
    assert_eq!(body.name.0, None);
    let back = value::write_value(&body, 0x100, &mut SourceIndices { data: &bytes, base: 0x100 }).unwrap();
    assert_eq!(back, bytes);
    let mut refs = Vec::new();
    body.visit_refs(0, &mut |at, _: value::Target<'_>| refs.push(at));
    assert_eq!(refs, vec![0]);
    assert_eq!(<hknpBodyCinfo as Class>::FIELDS[8].rust_name, "motion_type");
}

#[test]
fn derived_reaches_base_fields_and_downcasts() {
    use expected::*;
    let bytes = vec![0u8; hkaSkeleton::SIZE];
    let e = ClassEntry::find(CLASSES, "hkaSkeleton").and_then(ClassEntry::as_tagfile).unwrap();
    let obj = (e.read)(&value::Reader::new(&bytes, 0, &NoItems)).unwrap();
    let skel = obj.downcast_ref::<hkaSkeleton>().unwrap();
    // hkaSkeleton derives from hkReferencedObject: its fields read through Deref.
    let _: &hkReferencedObject = &skel.base;
    assert_eq!(skel.ref_count, skel.base.ref_count);
    assert!(obj.downcast_ref::<hkReferencedObject>().is_some());
    assert!(obj.is_a("hkBaseObject"));
    assert!(obj.downcast_ref::<hkaBone>().is_none());
    // Short input is a located error naming the member.
    let err = hkaSkeleton::read(&value::Reader::new(&bytes[..20], 0x40, &NoItems)).unwrap_err();
    assert!(err.to_string().contains("file 0x"), "{err}");
}

/// The module's `ENUMS` table names what the marker types name: the run-time data the dump names a
/// tagfile's enum members by (the type table lists no items).
#[test]
fn enum_table_names_items_and_overlaid_members() {
    use expected::*;
    assert_eq!(ENUMS.name_of("hknpMotionType::Enum", 2), <hknpMotionType_Enum as value::Enumeration>::name_of(2));
    assert_eq!(ENUMS.value_of("hkaAnimationBinding::BlendHint", "ADDITIVE_CHILD_SPACE"), Some(2));
    assert_eq!(ENUMS.member("hknpBodyCinfo", "motionType"), Some("hknpMotionType::Enum"));
    assert_eq!((ENUMS.items("hknpNoSuch::Enum"), ENUMS.member("hknpBodyCinfo", "mass")), (None, None));
}
