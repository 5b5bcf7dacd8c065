//! The generated structs through serde (feature `serde`): corpus objects of a tagfile SDK (an
//! Elden Ring 2018.1 skeleton) and of a packfile SDK (a BotW 2014.2 ragdoll's skeleton, bodies,
//! ragdoll instance and root container) go to JSON under Havok's member names and come back equal.
#![cfg(all(feature = "serde", feature = "hk2018_1", feature = "hk2014_2"))]

mod common;

use serde::{de::DeserializeOwned, Serialize};

/// `v` to JSON and back: the JSON text and whether it came back equal.
fn through_json<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(v: &T) -> serde_json::Value {
    let text = serde_json::to_string(v).unwrap();
    let back: T = serde_json::from_str(&text).unwrap();
    assert_eq!(&back, v);
    serde_json::from_str(&text).unwrap()
}

#[test]
fn tagfile_skeleton_through_json() {
    use hkclasses::hk2018_1::hkaSkeleton;
    let Some(corpus) = common::corpus() else { return };
    let bytes = common::corpus_file(&corpus, "Axelph237__mod/chr/c2110.anibnd/c2110/hkx/skeleton.hkx").unwrap();
    let doc = hktypes::open(&bytes, &hkclasses::open_options()).unwrap();
    let skeletons: Vec<_> = doc.all::<hkaSkeleton>().map(|(_, s)| s.unwrap()).collect();
    assert_eq!(skeletons.len(), 1);
    let skeleton = &*skeletons[0];
    let json = through_json(skeleton);
    // Havok's member names, not the Rust ones.
    assert_eq!(json["parentIndices"].as_array().unwrap().len(), skeleton.parent_indices.items.len());
    assert_eq!(json["referencePose"].as_array().unwrap().len(), skeleton.reference_pose.items.len());
    assert!(json.get("parent_indices").is_none());
    assert_eq!(json["name"].as_str(), skeleton.name.as_deref());
    assert_eq!(json["bones"].as_array().unwrap().len(), 193);
    // A pointer is where it points, in the form a packfile's takes: `{"Object": handle}`.
    let (_, root) = doc.all::<hkclasses::hk2018_1::hkRootLevelContainer>().next().unwrap();
    let root = root.unwrap();
    let target = root.named_variants.items[0].variant.handle().unwrap();
    assert_eq!(doc.class_name(target).as_deref(), Some("hkaAnimationContainer"));
    assert_eq!(through_json(&*root)["namedVariants"][0]["variant"], serde_json::json!({"Object": target.0}));
}

#[test]
fn packfile_ragdoll_through_json() {
    use hkclasses::hk2014_2::{hkRootLevelContainer, hkaRagdollInstance, hkaSkeleton, hkpRigidBody};
    let Some(corpus) = common::corpus() else { return };
    let bytes = common::corpus_file(
        &corpus,
        "NiceneNerd__UKMM/uk-mod/test/wiiu/content/Actor/Pack/Enemy_Moriblin_Dark.sbactorpack/Ragdoll/Moriblin_Blue/Moriblin_Blue.hkrg",
    )
    .unwrap();
    let doc = hktypes::open(&bytes, &hkclasses::open_options()).unwrap();

    let skeletons: Vec<hkaSkeleton> = doc.all::<hkaSkeleton>().map(|(_, s)| s.unwrap().into_owned()).collect();
    assert_eq!(skeletons.len(), 2);
    for s in &skeletons {
        let json = through_json(s);
        assert_eq!(json["parentIndices"].as_array().unwrap().len(), s.parent_indices.len());
        assert_eq!(json["referencePose"].as_array().unwrap().len(), s.reference_pose.len());
    }
    let bodies: Vec<hkpRigidBody> = doc.all::<hkpRigidBody>().map(|(_, b)| b.unwrap().into_owned()).collect();
    assert_eq!(bodies.len(), 20);
    for b in &bodies {
        through_json(b);
    }
    let (_, ragdoll) = doc.all::<hkaRagdollInstance>().next().unwrap();
    let json = through_json(&*ragdoll.unwrap());
    assert_eq!(json["rigidBodies"].as_array().unwrap().len(), 20);
    let (_, root) = doc.all::<hkRootLevelContainer>().next().unwrap();
    let json = through_json(&*root.unwrap());
    // Pointers name their object by handle.
    assert_eq!(json["namedVariants"][0]["name"], "Animation Container");
    assert_eq!(json["namedVariants"][0]["className"], "hkaAnimationContainer");
    assert_eq!(json["namedVariants"][0]["variant"], serde_json::json!({"Object": 1}));
}
