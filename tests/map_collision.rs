//! Demon's Souls' map collision (soulstruct-havok's `MapCollisionTemplate_DES.hkx`: Havok-5.5.0-r1,
//! 4-byte pointers, big-endian, reuse-padding) through the compiled-in 5.5 classes: FromSoftware's
//! `CustomParamStorageExtendedMeshShape` and `CustomMeshParameter`, the `hkpEntity` family, the
//! extended mesh shape storage and the MOPP code, all typed (`classdata/hkclass-5.5.ron`). The file
//! opens with every object typed, verifies, writes back byte for byte, goes through Havok's XML
//! and back to the same bytes, and reads and edits through the generated structs.
#![cfg(feature = "hk5_5")]

mod common;

use hkclasses::hk5_5::{
    hkpMoppBvTreeShape, hkpMoppCode, hkpRigidBody, hkpStorageExtendedMeshShapeMeshSubpartStorage, CustomMeshParameter,
    CustomParamStorageExtendedMeshShape,
};
use hkclasses::{open_options, packfile_sources_for_sdk};
use hktypes::packfile::objects::Body;
use hktypes::packfile::xml::{self, ObjectOrder, ReadOptions, WriteOptions};
use hktypes::{open, Counts, Document};

const DES: &str = "soulstruct-havok/MapCollisionTemplate_DES.hkx";

fn packfile(doc: &Document) -> &hktypes::packfile::objects::PackfileDocument {
    match doc {
        Document::Packfile(p) => p,
        _ => panic!("not a packfile"),
    }
}

/// Every object typed through the compiled-in classes, and the file written back unchanged.
#[test]
fn des_map_collision_opens_fully_typed_and_writes_back() {
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, DES) else { return };
    let doc = open(&bytes, &open_options()).unwrap();
    assert_eq!(doc.counts(), Counts { typed: 11, untyped: 0, demoted: 0 });
    let p = packfile(&doc);
    assert_eq!(p.file.contents_version(), "Havok-5.5.0-r1");
    let classes: Vec<&str> = p.objects.iter().map(|o| o.class.as_str()).collect();
    assert_eq!(
        classes,
        [
            "hkRootLevelContainer",
            "hkpPhysicsData",
            "hkpPhysicsSystem",
            "hkpRigidBody",
            "hkpMoppBvTreeShape",
            "hkpMoppCode",
            "CustomParamStorageExtendedMeshShape",
            "hkpStorageExtendedMeshShapeMeshSubpartStorage",
            "hkpStorageExtendedMeshShapeMeshSubpartStorage",
            "CustomMeshParameter",
            "CustomMeshParameter",
        ]
    );
    assert!(p.objects.iter().all(|o| matches!(o.body, Body::Typed(_))));
    // Each of the file's 62 classes recomputes the signature it stores.
    for c in &p.file.class_names().entries {
        let ours = packfile_sources_for_sdk("5.5").first().and_then(|s| s.signature(&c.name));
        assert_eq!(ours, Some(c.signature), "{}", c.name);
    }
    assert_eq!(doc.write().unwrap(), bytes);
}

/// `hkgen verify` (through the compiled-in classes) passes it.
#[test]
fn des_map_collision_verifies() {
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, DES) else { return };
    let v = hkgen::verify::Verifier { packfile_sources: Some(packfile_sources_for_sdk), ..Default::default() };
    let r = v.verify(DES, &bytes, &hktypes::tagfile::CompendiumSet::new());
    assert!(r.ok, "{:?}", r.error);
    assert_eq!(r.sdk.as_deref(), Some("5.5"));
}

/// Binary -> XML -> binary gives the same bytes, and the XML names FromSoftware's classes with
/// their 5.5 signatures.
#[test]
fn des_map_collision_round_trips_through_xml() {
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, DES) else { return };
    let doc = open(&bytes, &open_options()).unwrap();
    let p = packfile(&doc);
    let text = xml::write(p, WriteOptions::default()).unwrap();
    assert!(text.contains(r#"class="CustomMeshParameter" signature="0x3c8ecce9""#));
    assert!(text.contains(r#"class="CustomParamStorageExtendedMeshShape" signature="0x73a7114d""#));
    assert!(text.contains(r#"class="hkpRigidBody" signature="0x3224de76""#));
    let layout = xml::stated_layout(text.as_bytes()).unwrap_or(xml::DEFAULT_LAYOUT);
    let back = xml::read(text.as_bytes(), &packfile_sources_for_sdk("5.5"), ReadOptions { layout, order: ObjectOrder::Xml, ..Default::default() }).unwrap();
    assert_eq!(back.write().unwrap(), bytes);
}

/// The objects read as what they are: the rigid body's shape, a MOPP tree over FromSoftware's
/// mesh shape, whose two triangle subparts, two mesh storages and two material parameters agree
/// with each other; a material parameter edited through its struct writes and reads back, the
/// other objects unchanged.
#[test]
fn des_map_collision_reads_and_edits_through_structs() {
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, DES) else { return };
    let mut doc = open(&bytes, &open_options()).unwrap();

    let (tree_handle, tree) = doc.all::<hkpMoppBvTreeShape>().next().expect("a MOPP tree");
    let tree = tree.unwrap().into_owned();
    // The rigid body points at it (the body's struct does not apply: its runtime-only hkArrays,
    // SERIALIZE_IGNORED, carry the word 0x80000000 where its stored ones carry Havok 5.5's
    // `len | 0xC0000000`, so it stays values).
    let (body_handle, body) = doc.all::<hkpRigidBody>().next().expect("a rigid body");
    let err = body.unwrap_err().to_string();
    assert!(err.contains("capacity word"), "{err}");
    assert!(packfile(&doc).pointers_of(body_handle).contains(&tree_handle));
    let code = doc.get::<hkpMoppCode>(tree.code.handle().unwrap()).unwrap().into_owned();
    assert!(!code.data.is_empty());
    let mesh_handle = tree.child.child_shape.handle().unwrap();
    let mesh = doc.get::<CustomParamStorageExtendedMeshShape>(mesh_handle).unwrap().into_owned();
    assert_eq!(mesh.num_bits_for_subpart_index, 12);
    assert_eq!(mesh.triangles_subparts.len(), 2);
    assert_eq!(mesh.meshstorage.len(), 2);
    assert_eq!(mesh.material_array.len(), 2);
    assert!(mesh.shapes_subparts.is_empty() && mesh.shapestorage.is_empty());
    for (i, sub) in mesh.triangles_subparts.iter().enumerate() {
        let storage = doc.get::<hkpStorageExtendedMeshShapeMeshSubpartStorage>(mesh.meshstorage[i].handle().unwrap()).unwrap();
        assert_eq!(storage.vertices.len(), sub.num_vertices as usize, "subpart {i}");
        assert_eq!(storage.indices16.len(), 4 * sub.num_triangle_shapes as usize, "subpart {i}");
        let param = doc.get::<CustomMeshParameter>(mesh.material_array[i].handle().unwrap()).unwrap();
        assert_eq!(param.vertex_data_buffer.len(), sub.num_vertices as usize, "subpart {i}");
        assert_eq!(param.vertex_data_stride, 1);
    }
    assert_eq!((mesh.triangles_subparts[0].num_triangle_shapes, mesh.triangles_subparts[0].num_vertices), (391, 554));

    let untouched = packfile(&doc).objects.clone();
    let h = mesh.material_array[1].handle().unwrap();
    let mut param = doc.get::<CustomMeshParameter>(h).unwrap().into_owned();
    assert_eq!((param.version, param.material_name_data), (0x9100, 1));
    param.material_name_data = 7;
    param.vertex_data_buffer.push(0x2a);
    *doc.get_mut::<CustomMeshParameter>(h).unwrap() = param.clone();
    let out = doc.write().unwrap();
    assert_ne!(out, bytes);
    let back = open(&out, &open_options()).unwrap();
    assert_eq!(back.counts(), Counts { typed: 11, untyped: 0, demoted: 0 });
    assert_eq!(*back.get::<CustomMeshParameter>(h).unwrap(), param);
    for (i, (a, b)) in untouched.iter().zip(&packfile(&back).objects).enumerate() {
        if i != h.0 as usize {
            assert_eq!(a.body, b.body, "object {i} ({})", a.class);
        }
    }
}

/// Dark Souls: Prepare to Die Edition's map collisions (hk_2010.2.0-r1, 4-byte pointers,
/// little-endian) hold the same FromSoftware classes. No such file is in the corpus: the 2010.2
/// records (`classdata/hkclass-2010.2.ron`) are derived, held as such by `extract`, and compiled
/// in; under PTDE's layout they place the members where soulstruct-havok reads PTDE's objects
/// (`materialNameData` at 32 of `CustomMeshParameter`, `materialArray` at 272 of
/// `CustomParamStorageExtendedMeshShape`). Their signatures are what the records compute (no
/// stored one settles them): the figures here pin them so that a change shows.
#[test]
fn ptde_records_lay_out_as_ptde_objects_read() {
    use hkgen::reflection::{layout::ClassLayouts, signature, snapshot};
    let schema = snapshot::read(&common::workspace_root().join("schemas"), "2010.2").unwrap();
    assert!(schema.classes["CustomMeshParameter"].signature.is_none());
    let rules = hktypes::packfile::LayoutRules::parse("4,1,0,1").unwrap();
    let mut layouts = ClassLayouts::new(&schema, rules);
    let p = layouts.class("CustomMeshParameter").unwrap();
    assert_eq!((p.offsets.clone(), p.data_size), (vec![8, 12, 20, 24, 32], 36));
    let s = layouts.class("CustomParamStorageExtendedMeshShape").unwrap();
    assert_eq!((s.offsets.clone(), s.data_size), (vec![272], 284));
    let sig = |n: &str| signature::class_signature(&schema, n).unwrap();
    // 2010.2's hkReferencedObject is 5.5's: the parameter's signature is the one Demon's Souls'
    // file stores for it (FromSoftware kept the class from Demon's Souls to Dark Souls).
    assert_eq!(sig("CustomMeshParameter"), 0x3c8ecce9);
    assert_eq!(sig("CustomParamStorageExtendedMeshShape"), 0x82a6c03a);
    // The parent the mesh shape's signature runs through is the Skyrim record that PTDE's files
    // store the signature of.
    assert_eq!(sig("hkpStorageExtendedMeshShape"), 0xb469efbc);
    // The compiled-in 2010.2 classes are these records.
    #[cfg(feature = "hk2010_2")]
    {
        use hktypes::packfile::typed::PackClass;
        assert_eq!(hkclasses::hk2010_2::CustomMeshParameter::SIGNATURE, sig("CustomMeshParameter"));
        assert_eq!(hkclasses::hk2010_2::CustomParamStorageExtendedMeshShape::SIGNATURE, sig("CustomParamStorageExtendedMeshShape"));
    }
}
