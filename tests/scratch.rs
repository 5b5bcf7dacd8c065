//! Files made from nothing through the one `hktypes::Document`: `Document::new(sdk, format,
//! Some(&hkclasses::REGISTRY))`, objects added and read through the generated classes with `add`,
//! `get` and `all`, and nothing from `hkgen` to make them. Packfiles: the header Havok's packer
//! writes for the SDK, each added object's class listed in `__classnames__` from the compiled-in
//! descriptions (`SCHEMA`). Tagfiles: the SDK's type table compiled into `hkclasses`, the `TYPE`
//! section written by `tagfile::type_writer`. Each is written, read back through `hktypes::open`
//! with the compiled-in classes and passes `hkgen verify`.
#![cfg(all(feature = "hk2014_1", feature = "hk2014_2", feature = "hk2018_1"))]

mod common;

use hkclasses::{hk2014_1, hk2014_2};
use hktypes::packfile::{HeaderTail, LayoutRules};
use hktypes::value::{Ptr, Typed};
use hktypes::{open, ClassRegistry, Counts, Document, Handle, NewFormat};

/// A Dark Souls III weapon skeleton (2014.1, 8-byte little-endian): a root container, an
/// animation container and a skeleton.
const DS3_SKELETON: &str =
    "monaxiastr__MonaxiaSouls/MonaxiaSouls/parts/wp_a_10010.partsbnd/Weapon/WP_A_10010/WP_A_10010.anibnd/WP_A_0500/hkx/skeleton.HKX";
/// A BotW Wii U ragdoll (2014.2, 4-byte big-endian), whose skeleton the 2014.2 file is made of.
const BOTW_RAGDOLL: &str =
    "NiceneNerd__UKMM/uk-mod/test/wiiu/content/Actor/Pack/Enemy_Golem_Fire.sbactorpack/Ragdoll/Enemy_Golem/Enemy_Golem.hkrg";

/// The one object of class `T` in `doc`.
fn only<T: Typed>(doc: &Document) -> T {
    let all: Vec<_> = doc.all::<T>().collect();
    assert_eq!(all.len(), 1, "{} objects of {}", all.len(), T::ENTRY.name);
    all.into_iter().next().unwrap().1.unwrap().into_owned()
}

#[test]
fn a_skeleton_made_from_nothing_is_the_stock_file_byte_for_byte() {
    let Some(corpus) = common::corpus() else { return };
    let Some(stock) = common::corpus_file(&corpus, DS3_SKELETON) else { return };
    let read = open(&stock, &hkclasses::open_options()).unwrap();
    let (root, container, skeleton) = (
        only::<hk2014_1::hkRootLevelContainer>(&read),
        only::<hk2014_1::hkaAnimationContainer>(&read),
        only::<hk2014_1::hkaSkeleton>(&read),
    );

    let mut doc = Document::new("2014.1", NewFormat::Packfile(LayoutRules::parse("8,1,0,1").unwrap()), Some(&hkclasses::REGISTRY)).unwrap();
    // Dark Souls III's files carry a 16-byte header region (the word 20, then zeros) that
    // `Document::new` leaves out, as BotW's files do.
    let mut region = vec![0u8; 16];
    region[0] = 20;
    let Document::Packfile(p) = &mut doc else { panic!("not a packfile") };
    p.file.header.tail = HeaderTail::Predicates { max_predicate: 21, region };
    // Each `add` lists its object's class in `__classnames__` from the registry, after the four
    // reflection classes every packfile lists.
    assert_eq!(doc.add(root).unwrap(), Handle(0));
    assert_eq!(doc.add(container).unwrap(), Handle(1));
    assert_eq!(doc.add(skeleton).unwrap(), Handle(2));
    assert_eq!(doc.root(), Some(Handle(0)));
    let Document::Packfile(p) = &doc else { panic!("not a packfile") };
    let names: Vec<(&str, u32)> = p.file.class_names().entries.iter().map(|c| (c.name.as_str(), c.signature)).collect();
    assert_eq!(names[4..], [("hkRootLevelContainer", 0x2772c11e), ("hkaAnimationContainer", 0x26859f4c), ("hkaSkeleton", 0xfec1cedb)]);
    let out = doc.write().unwrap();
    assert_eq!(out.len(), stock.len());
    assert!(out == stock, "first difference at {:#x}", out.iter().zip(&stock).position(|(a, b)| a != b).unwrap_or(out.len()));
}

#[test]
fn a_botw_skeleton_made_from_nothing_reads_back_and_verifies() {
    let Some(corpus) = common::corpus() else { return };
    let Some(ragdoll) = common::corpus_file(&corpus, BOTW_RAGDOLL) else { return };
    let read = open(&ragdoll, &hkclasses::open_options()).unwrap();
    let container = only::<hk2014_2::hkaAnimationContainer>(&read);
    // The ragdoll holds two skeletons: the animation container's first is the one taken.
    let skeleton = read.get::<hk2014_2::hkaSkeleton>(container.skeletons[0].handle().unwrap()).unwrap().into_owned();
    let mut root = only::<hk2014_2::hkRootLevelContainer>(&read);
    // Only the animation container, now object 1, with its skeleton, object 2.
    root.named_variants.retain(|v| v.class_name.as_deref() == Some("hkaAnimationContainer"));
    root.named_variants[0].variant = Ptr::to(Handle(1));
    let mut container = container;
    container.skeletons = vec![Ptr::to(Handle(2))];
    assert!(container.animations.is_empty() && container.bindings.is_empty());

    let wii_u = LayoutRules::parse("4,0,0,1").unwrap();
    let mut doc = Document::new("2014.2", NewFormat::Packfile(wii_u), Some(&hkclasses::REGISTRY)).unwrap();
    doc.add(root.clone()).unwrap();
    doc.add(container).unwrap();
    doc.add(skeleton.clone()).unwrap();
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("scratch");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("golem_skeleton.hkrg");
    std::fs::write(&path, doc.write().unwrap()).unwrap();

    let bytes = std::fs::read(&path).unwrap();
    let back = open(&bytes, &hkclasses::open_options()).unwrap();
    assert_eq!(back.counts(), Counts { typed: 3, untyped: 0, demoted: 0 });
    assert_eq!(back.layout(), Some(wii_u));
    assert_eq!(back.write().unwrap(), bytes);
    assert_eq!(only::<hk2014_2::hkaSkeleton>(&back), skeleton);
    assert_eq!(only::<hk2014_2::hkRootLevelContainer>(&back), root);
    assert_eq!((skeleton.name.as_deref(), skeleton.bones.len()), (Some("model_skeleton"), 12));
    let report = hkgen::verify::verify_bytes(&path.display().to_string(), &bytes, &Default::default());
    assert!(report.ok, "{:?}", report.error);
    assert_eq!((report.format, report.sdk.as_deref()), ("packfile", Some("2014.2")));
}

/// An Elden Ring skeleton (2018.1, its own `TYPE` section).
const ER_SKELETON: &str = "Axelph237__mod/chr/c2110.anibnd/c2110/hkx/skeleton.hkx";

#[test]
fn a_2018_skeleton_made_from_nothing_reads_back_and_verifies() {
    use hkclasses::hk2018_1;
    let Some(corpus) = common::corpus() else { return };
    let Some(stock) = common::corpus_file(&corpus, ER_SKELETON) else { return };
    let Some(ragdoll) = common::corpus_file(&corpus, BOTW_RAGDOLL) else { return };
    let read = open(&stock, &hkclasses::open_options()).unwrap();
    let mut root = only::<hk2018_1::hkRootLevelContainer>(&read);
    let mut container = only::<hk2018_1::hkaAnimationContainer>(&read);
    let skeleton = only::<hk2018_1::hkaSkeleton>(&read);
    // Handles of the new document: the root 1, the container 2, the skeleton 3.
    assert_eq!(root.named_variants.items.len(), 1);
    root.named_variants.items[0].variant = Ptr::to(Handle(2));
    assert!(container.animations.items.is_empty() && container.bindings.items.is_empty());
    container.skeletons.items = vec![Ptr::to(Handle(3))];

    let mut doc = Document::new("2018.1", NewFormat::Tagfile, Some(&hkclasses::REGISTRY)).unwrap();
    assert_eq!(doc.add(root.clone()).unwrap(), Handle(1));
    assert_eq!(doc.add(container).unwrap(), Handle(2));
    assert_eq!(doc.add(skeleton.clone()).unwrap(), Handle(3));
    assert_eq!(doc.pointers_of(Handle(3)), []);
    // A packfile class has no place in a tagfile.
    let botw = open(&ragdoll, &hkclasses::open_options()).unwrap();
    let botw_skeleton = botw.get::<hk2014_2::hkaSkeleton>(botw.find("hkaSkeleton")[0]).unwrap().into_owned();
    assert_eq!(doc.add(botw_skeleton).unwrap_err().to_string(), "hkaSkeleton is a class of a packfile SDK; the document is a tag0");
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("scratch");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("c2110_skeleton.hkx");
    std::fs::write(&path, doc.write().unwrap()).unwrap();

    let bytes = std::fs::read(&path).unwrap();
    let back = open(&bytes, &hkclasses::open_options()).unwrap();
    assert_eq!(back.counts(), Counts { typed: 3, untyped: 0, demoted: 0 });
    assert_eq!(back.sdk().as_deref(), Some("2018.1"));
    assert_eq!(back.write().unwrap(), bytes);
    // Read back, objects are numbered by the file's items: the root stays 1.
    assert!(only::<hk2018_1::hkaSkeleton>(&back) == skeleton, "the skeleton does not read back as written");
    let back_root = back.get::<hk2018_1::hkRootLevelContainer>(Handle(1)).unwrap();
    assert_eq!(back_root.named_variants.items[0].name, root.named_variants.items[0].name);
    assert_eq!(skeleton.bones.len(), 193);
    let report = hkgen::verify::verify_bytes(&path.display().to_string(), &bytes, &Default::default());
    assert!(report.ok, "{:?}", report.error);
    assert_eq!((report.format, report.sdk.as_deref()), ("tag0", Some("2018.1")));
    // The TYPE section holds the types the objects use, not the SDK's whole table: exactly the
    // stock file's set of types, by full name.
    let names = |bytes: &[u8]| {
        let t = hktypes::tagfile::TagFile::read(bytes, &Default::default()).unwrap();
        let mut n: Vec<String> = (1..t.types.types.len() as u32).map(|i| t.types.full_name(i)).collect();
        n.sort();
        n
    };
    let sdk_types = hkclasses::REGISTRY.tagfile_types("2018.1").unwrap().types.len() - 1;
    assert_eq!((names(&bytes).len(), sdk_types), (TYPES_OF_A_SKELETON, 4735));
    assert_eq!(names(&bytes), names(&stock));
}

/// The types of a 2018.1 skeleton file: those of hkRootLevelContainer, hkaAnimationContainer and
/// hkaSkeleton, with their members', parents' and template arguments' types, as many as the stock
/// Elden Ring skeleton's `TYPE` section holds (and the same ones); the SDK's table has 4,735.
const TYPES_OF_A_SKELETON: usize = 215;

/// The type table compiled into `hkclasses` is the one `hkgen` rebuilds from the snapshot, type
/// for type, and is parsed once.
#[test]
fn the_compiled_in_type_table_is_the_snapshots() {
    let snapshot = hkgen::schema::snapshot::read(&common::workspace_root().join("schemas/2018.1")).unwrap();
    let (rebuilt, _) = hkgen::schema::rebuild::to_table(&snapshot).unwrap();
    let compiled = hkclasses::REGISTRY.tagfile_types("2018.1").unwrap();
    assert_eq!(compiled.types.len(), snapshot.types.len() + 1);
    assert!(*compiled == rebuilt, "the compiled-in 2018.1 table differs from the rebuilt one");
    assert!(std::sync::Arc::ptr_eq(&compiled, &hkclasses::REGISTRY.tagfile_types("2018.1").unwrap()));
    // An SDK the build has no table of, and a packfile SDK, give none.
    assert!(hkclasses::REGISTRY.tagfile_types("2014.2").is_none());
    let e = Document::new("2014.2", NewFormat::Tagfile, Some(&hkclasses::REGISTRY)).unwrap_err();
    assert_eq!(e.to_string(), "the class registry has no type table of SDK 2014.2");
}

/// Without a registry a packfile's classes are declared from a source of one's own; a class the
/// registry's source for the document's SDK does not have is refused by name and signature.
#[test]
fn classes_without_a_registry_are_declared() {
    let Some(corpus) = common::corpus() else { return };
    let Some(ragdoll) = common::corpus_file(&corpus, BOTW_RAGDOLL) else { return };
    let read = open(&ragdoll, &hkclasses::open_options()).unwrap();
    let skeleton = read.get::<hk2014_2::hkaSkeleton>(read.find("hkaSkeleton")[0]).unwrap().into_owned();
    let mut doc = Document::new("2014.2", NewFormat::Packfile(LayoutRules::WII_U), None).unwrap();
    let e = doc.add(skeleton.clone()).unwrap_err();
    assert_eq!(e.to_string(), "hkaSkeleton (signature 0xfec1cedb) is not a class of the document: declare it first");
    doc.declare("hkaSkeleton", &hk2014_2::SCHEMA).unwrap();
    assert_eq!(doc.add(skeleton.clone()).unwrap(), Handle(0));
    // A registry without the SDK's classes (as `hkclasses::REGISTRY` for an SDK whose feature is
    // off) declares nothing.
    struct NoClasses;
    impl ClassRegistry for NoClasses {}
    static NO_CLASSES: NoClasses = NoClasses;
    let mut empty = Document::new("2014.2", NewFormat::Packfile(LayoutRules::WII_U), Some(&NO_CLASSES)).unwrap();
    let e = empty.add(skeleton).unwrap_err();
    assert_eq!(e.to_string(), "hkaSkeleton (signature 0xfec1cedb) is not a class the class registry has for hk_2014.2.0-r1");
}
