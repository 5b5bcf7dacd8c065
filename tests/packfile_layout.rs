//! Layouts computed from the platform-neutral hkClass records against the offsets and sizes of the
//! BotW Switch reflection dump (layout rules 8,1,1,1).

mod common;

use hkgen::reflection::{botw, layout::ClassLayouts};
use hktypes::packfile::LayoutRules;

#[test]
fn switch_layout_matches_the_botw_dump() {
    let Some(corpus) = common::corpus() else { return };
    let json = std::fs::read_to_string(common::classdata(&corpus).join("botw-2014.2-switch-reflection.json")).unwrap();
    let (mut schema, observed) = botw::import(&json).unwrap();
    let mut plain = ClassLayouts::new(&schema, LayoutRules::SWITCH);
    let from_description = observed
        .sizes
        .iter()
        .filter(|(n, size)| plain.class(n).is_ok_and(|l| l.size == **size && l.offsets == observed.offsets[*n]))
        .count();
    eprintln!("Switch 8,1,1,1 from the description and the README's interface counts alone: {from_description} of {} classes match", observed.sizes.len());
    let inferred = botw::infer_interfaces(&mut schema, &observed);
    eprintln!("interface counts inferred from the dump's offsets: {inferred:?}");
    let mut layouts = ClassLayouts::new(&schema, LayoutRules::SWITCH);
    let (mut ok, mut bad, mut unlaid) = (0, Vec::new(), Vec::new());
    for (name, size) in &observed.sizes {
        match layouts.class(name) {
            Ok(l) if l.size == *size && l.offsets == observed.offsets[name] => ok += 1,
            Ok(l) => bad.push(format!("{name}: size {} (dump {size}), offsets {:?} (dump {:?})", l.size, l.offsets, observed.offsets[name])),
            Err(e) => unlaid.push(format!("{name}: {e}")),
        }
    }
    eprintln!("Switch 8,1,1,1: {ok} of {} classes match the dump; {} differ, {} cannot be laid out", observed.sizes.len(), bad.len(), unlaid.len());
    for b in bad.iter().chain(&unlaid).take(40) {
        eprintln!("  {b}");
    }
    let hidden: Vec<&String> = schema.overrides.iter().filter(|(_, o)| !o.fixed.is_empty()).map(|(n, _)| n).collect();
    eprintln!("overrides: {} interface counts, hidden members in {hidden:?}", inferred.len());
    assert!(bad.is_empty() && unlaid.is_empty());
    assert_eq!(ok, observed.sizes.len());
    // The Wii U rules lay out every class except those whose bytes are hidden.
    let mut wiiu = ClassLayouts::new(&schema, LayoutRules::WII_U);
    let failed: Vec<String> = observed.sizes.keys().filter_map(|n| wiiu.class(n).err().map(|e| format!("{n}: {e}"))).collect();
    eprintln!("Wii U 4,0,0,1: {} of {} classes laid out; not: {failed:?}", observed.sizes.len() - failed.len(), observed.sizes.len());
}

/// The Wii U (4,0,0,1) and Switch (8,1,1,1) layouts against the BotW files of the corpus: every
/// object's computed size fits before the next object, and every fixup inside an object patches a
/// slot the layout puts a pointer at.
#[test]
fn botw_objects_agree_with_the_layouts() {
    use hktypes::packfile::{PackFile, DATA};
    let Some(corpus) = common::corpus() else { return };
    let json = std::fs::read_to_string(common::classdata(&corpus).join("botw-2014.2-switch-reflection.json")).unwrap();
    let (mut schema, observed) = botw::import(&json).unwrap();
    botw::infer_interfaces(&mut schema, &observed);
    let mut per_layout: std::collections::BTreeMap<String, (usize, usize, usize)> = Default::default();
    let mut bad = Vec::new();
    for e in common::manifest(&corpus).into_iter().filter(|e| e.format == "packfile") {
        let bytes = std::fs::read(&e.path).unwrap();
        let f = PackFile::read(&bytes).unwrap();
        if f.contents_version() != "hk_2014.2.0-r1" {
            continue;
        }
        let mut layouts = ClassLayouts::new(&schema, f.layout());
        let di = f.section_index(DATA).unwrap();
        let sec = &f.sections[di];
        let mut objects = f.objects(di);
        objects.sort_by_key(|(o, _)| *o);
        let mut srcs: Vec<u32> = sec.local.iter().map(|x| x.src).chain(sec.global.iter().map(|x| x.src)).collect();
        srcs.sort_unstable();
        let n = per_layout.entry(f.layout().to_string()).or_default();
        for (i, (at, class)) in objects.iter().enumerate() {
            n.0 += 1;
            let Ok(l) = layouts.class(&class.name) else { continue };
            let slots = layouts.pointer_slots(&class.name).unwrap();
            n.1 += 1;
            let next = objects.get(i + 1).map_or(sec.data().unwrap().len() as u32, |(o, _)| *o);
            let end = at + l.size;
            let inside: Vec<u32> = srcs.iter().filter(|&&s| s >= *at && s < end.min(next)).map(|s| s - at).collect();
            let stray: Vec<u32> = inside.iter().copied().filter(|s| !slots.contains(s)).collect();
            if end > next || !stray.is_empty() {
                bad.push(format!("{} {} at {at:#x}: size {} (next object at {next:#x}), fixups at {stray:?} outside pointer slots", e.relpath, class.name, l.size));
            } else {
                n.2 += 1;
            }
        }
    }
    for (layout, (objects, laid, ok)) in &per_layout {
        eprintln!("BotW {layout}: {objects} objects, {laid} of known classes, {ok} agree with the computed layout");
    }
    for b in bad.iter().take(20) {
        eprintln!("  {b}");
    }
    assert!(bad.is_empty(), "{} objects disagree", bad.len());
}

/// Every corpus packfile whose SDK has a committed class schema: each object of a class the schema
/// lays out fits before the next object and has its fixups on the pointer slots of the layout its
/// file's rules give. Counted per contents version and layout.
#[test]
fn corpus_objects_agree_with_the_layouts() {
    use hkgen::reflection::check::ClassSchemas;
    use hkgen::reflection::sources::sdk_of_contents_version;
    use hktypes::packfile::{PackFile, DATA};
    let Some(corpus) = common::corpus() else { return };
    let schemas = ClassSchemas::load(&common::workspace_root().join("schemas")).unwrap();
    let mut per: std::collections::BTreeMap<(String, String), [usize; 3]> = Default::default();
    let mut bad = Vec::new();
    for e in common::manifest(&corpus).into_iter().filter(|e| e.format == "packfile") {
        let bytes = std::fs::read(&e.path).unwrap();
        let f = PackFile::read(&bytes).unwrap();
        let Some(schema) = schemas.by_sdk.get(&sdk_of_contents_version(&f.contents_version())) else { continue };
        let mut layouts = ClassLayouts::new(schema, f.layout());
        let di = f.section_index(DATA).unwrap();
        let sec = &f.sections[di];
        let mut objects = f.objects(di);
        objects.sort_by_key(|(o, _)| *o);
        let mut srcs: Vec<u32> = sec.local.iter().map(|x| x.src).chain(sec.global.iter().map(|x| x.src)).collect();
        srcs.sort_unstable();
        let n = per.entry((f.contents_version(), f.layout().to_string())).or_default();
        for (i, (at, class)) in objects.iter().enumerate() {
            n[0] += 1;
            let (Ok(l), Ok(slots)) = (layouts.class(&class.name), layouts.pointer_slots(&class.name)) else { continue };
            n[1] += 1;
            let next = objects.get(i + 1).map_or(sec.data().unwrap().len() as u32, |(o, _)| *o);
            let end = at + l.size;
            let stray: Vec<u32> = srcs.iter().filter(|&&s| s >= *at && s < end.min(next)).map(|s| s - at).filter(|s| !slots.contains(s)).collect();
            if end > next || !stray.is_empty() {
                bad.push(format!("{} {} at {at:#x}: size {} (next at {next:#x}), fixups off the pointer slots at {stray:?}", e.relpath, class.name, l.size));
            } else {
                n[2] += 1;
            }
        }
    }
    for ((v, layout), [objects, laid, ok]) in &per {
        eprintln!("{v:<16} {layout}: {objects:>6} objects, {laid:>6} of classes laid out, {ok:>6} agree");
    }
    for b in bad.iter().take(15) {
        eprintln!("  {b}");
    }
    // Two files written by third-party tools disagree with any Havok layout: chickenbehavior.hkx
    // (HKX2) puts 8 unexplained bytes before its hkRootLevelContainer's array, and hkxpack's
    // test-base.hkx maps an hkBaseObject to an empty data section.
    const THIRD_PARTY: [&str; 2] = ["HKX2-Enhanced-Library/chickenbehavior.hkx ", "hkxpack/test-base.hkx "];
    let unexpected: Vec<&String> = bad.iter().filter(|b| !THIRD_PARTY.iter().any(|t| b.starts_with(t))).collect();
    assert!(unexpected.is_empty(), "{} objects disagree: {unexpected:?}", unexpected.len());
}
