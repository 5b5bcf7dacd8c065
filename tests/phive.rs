//! Tears of the Kingdom's cloth (`TotkBits/Armor_006_RaulSkin_Upper.bphcl`): a TAG0 tagfile of SDK
//! 2022.1 inside Nintendo's Phive wrapper, with an `AAMP` parameter archive after it. It opens
//! through `hktypes::open`, every object typed through the generated `hk2022_1` classes; it writes
//! back byte for byte, and after an edit the wrapper's offsets and sizes follow the tagfile while
//! the trailing archive stays as it was. Its tagfile goes through `<hktagfile>` XML and back.

mod common;

use hktypes::tagfile::phive::{Phive, HEADER_SIZE};
use hktypes::{open, Format, OpenOptions};

const CLOTH: &str = "TotkBits/Armor_006_RaulSkin_Upper.bphcl";

#[cfg(feature = "hk2022_1")]
#[test]
fn totk_cloth_opens_typed_and_writes_back() {
    use hkclasses::hk2022_1::{hclClothData, hclCollidable};
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, CLOTH) else { return };
    let mut doc = open(&bytes, &hkclasses::open_options()).unwrap();
    assert_eq!((doc.format(), doc.sdk().as_deref()), (Format::Phive, Some("2022.1")));
    let counts = doc.counts();
    assert_eq!((counts.typed, counts.untyped), (54, 0));
    assert_eq!(doc.write().unwrap(), bytes);

    // The one member of the corpus with field flag 0x80 reads as any other.
    let collidables: Vec<_> = doc.all::<hclCollidable>().map(|(h, c)| (h, c.unwrap().into_owned())).collect();
    assert!(!collidables.is_empty());
    let names: Vec<_> = doc.all::<hclClothData>().map(|(_, c)| c.unwrap().name.as_deref().map(str::to_owned)).collect();
    assert_eq!(names.len(), 1);
    let old = names[0].clone().expect("a named cloth");

    // An edit that lengthens the tagfile: the wrapper is recomputed around it.
    let (h, _) = doc.all::<hclClothData>().next().unwrap();
    let longer = format!("{old}_edited_by_hkgen_with_a_longer_name");
    doc.get_mut::<hclClothData>(h).unwrap().name = longer.as_str().into();
    let edited = doc.write().unwrap();
    assert_ne!(edited.len(), bytes.len());
    let (before, after) = (Phive::read(&bytes).unwrap(), Phive::read(&edited).unwrap());
    assert_eq!(after.header, before.header);
    assert_eq!(after.tail, before.tail, "the AAMP block is kept as it was");
    assert!(after.tail.starts_with(b"AAMP"));
    assert_eq!((HEADER_SIZE + after.tag0.len() + after.tag0_padding.len()) % 16, 0);
    let again = open(&edited, &hkclasses::open_options()).unwrap();
    let (_, cloth) = again.all::<hclClothData>().next().unwrap();
    assert_eq!(cloth.unwrap().name.as_deref(), Some(longer.as_str()));
    assert_eq!(again.write().unwrap(), edited);
}

/// The tagfile inside goes to `<hktagfile>` XML and back to the stock bytes (the field record
/// with flag 0x80 keeps its number as hkgen's `aux` attribute): SDK 2022.1's `TYPE` section is
/// written from the types by its own walk (`type_writer`'s module doc: breadth-first from the
/// items' types, no type argument followed), which gives its 196 `TBDY` records in stock order.
/// Its dump builds back to the same bytes too.
#[test]
fn totk_cloth_tagfile_goes_through_xml_and_back() {
    use hktypes::tagfile::{xml, CompendiumSet, TagFile};
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, CLOTH) else { return };
    let wrapped = Phive::read(&bytes).unwrap();
    let none = CompendiumSet::new();
    let file = TagFile::read(wrapped.tag0, &none).unwrap();
    let text = xml::write(&file, xml::WriteOptions::default()).unwrap();
    assert!(text.contains("name=\"userData\" flags=\"160\" aux=\"3\" offset=\"128\"") || text.contains("name=\"userData\" flags=\"160\" offset=\"128\" typeid=\"type50\" aux=\"3\""), "the flagged member");
    let back = xml::read(text.as_bytes()).unwrap().write_tag0(&none).unwrap();
    let first = back.iter().zip(wrapped.tag0).position(|(x, y)| x != y);
    assert_eq!((first, back.len()), (None, wrapped.tag0.len()), "the stock bytes from XML");

    // The dump shape (`hkgen dump` / `hkgen build`) goes the same way.
    let text = hkgen::cli::dump_text("json", &hktypes::dump::dump_tagfile(&file).unwrap()).unwrap();
    let dump = hkgen::cli::parse_dump(text.as_bytes()).unwrap();
    let options = hktypes::dump::BuildOptions { compendia: Some(&none), packfile_classes: Vec::new(), ..Default::default() };
    let built = hktypes::dump::build(&dump, &options, text.len()).unwrap();
    assert!(built == wrapped.tag0, "the stock bytes from the dump");
}

/// The whole `.bphcl` goes to XML and back, and to a dump and back, to its stock bytes: the XML
/// root's `phive` attribute and the dump's `kept.phive` keep the wrapper (header, the tagfile's
/// padding, the `AAMP` block), which is written around the tagfile again.
#[test]
fn totk_cloth_whole_file_goes_through_xml_and_dump() {
    use hktypes::tagfile::phive::PhiveWrapper;
    use hktypes::tagfile::{xml, CompendiumSet, TagFile};
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, CLOTH) else { return };
    let wrapped = Phive::read(&bytes).unwrap();
    let wrapper = PhiveWrapper::of(&wrapped);
    let none = CompendiumSet::new();
    let file = TagFile::read(wrapped.tag0, &none).unwrap();
    let text = xml::write_phive(&file, &wrapper, xml::WriteOptions::default()).unwrap();
    let read = xml::read(text.as_bytes()).unwrap();
    assert_eq!(read.phive.as_ref(), Some(&wrapper));
    assert!(read.write_file(&none).unwrap() == bytes, "the .bphcl from XML");
    assert!(read.write_tag0(&none).unwrap() == wrapped.tag0, "its tagfile from XML");

    let dump = hktypes::dump::dump_phive(&file, &wrapper, &Default::default()).unwrap();
    let text = hkgen::cli::dump_text("ron", &dump).unwrap();
    let back = hkgen::cli::parse_dump(text.as_bytes()).unwrap();
    let options = hktypes::dump::BuildOptions { compendia: Some(&none), packfile_classes: Vec::new(), ..Default::default() };
    assert!(hktypes::dump::build(&back, &options, text.len()).unwrap() == bytes, "the .bphcl from its dump");

    // A wrapper in the XML that lies about its sizes is an error at the XML root.
    let good = wrapper.to_hex();
    let mut lying = good.clone();
    // The file size (offset 0x14, little-endian) one more than it is.
    let size = u32::from_str_radix(&good[0x28..0x30], 16).unwrap().swap_bytes() + 1;
    lying.replace_range(0x28..0x30, &format!("{:08x}", size.swap_bytes()));
    let e = xml::read(text_with(&text_of(&file, &wrapper), &good, &lying).as_bytes()).unwrap_err().to_string();
    assert!(e.contains("line 2") && e.contains("phive: byte 0x14 of the wrapper: Phive file size"), "{e}");
}

fn text_of(file: &hktypes::tagfile::TagFile<'_>, wrapper: &hktypes::tagfile::phive::PhiveWrapper) -> String {
    hktypes::tagfile::xml::write_phive(file, wrapper, Default::default()).unwrap()
}

fn text_with(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from));
    text.replacen(from, to, 1)
}

/// Through the command line: `hkgen convert --to xml` then `--to binary`, and `hkgen dump
/// --format json` then `hkgen build`, of the `.bphcl` give its bytes again, and so do they of its
/// tagfile alone.
#[cfg(feature = "cli")]
#[test]
fn totk_cloth_through_convert_and_dump_build() {
    use std::process::Command;
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, CLOTH) else { return };
    let dir = std::env::temp_dir().join(format!("hkgen-phive-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let tag0 = Phive::read(&bytes).unwrap().tag0.to_vec();
    std::fs::write(dir.join("cloth.bphcl"), &bytes).unwrap();
    std::fs::write(dir.join("cloth.hkx"), &tag0).unwrap();
    let hkgen = |args: &[&str]| {
        let out = common::run(Command::new(env!("CARGO_BIN_EXE_hkgen")).args(args).current_dir(&dir));
        assert!(out.status.success(), "hkgen {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    for (name, want) in [("cloth.bphcl", &bytes), ("cloth.hkx", &tag0)] {
        hkgen(&["convert", "--to", "xml", name, &format!("{name}.xml")]);
        hkgen(&["convert", "--to", "binary", &format!("{name}.xml"), &format!("{name}.back")]);
        assert!(std::fs::read(dir.join(format!("{name}.back"))).unwrap() == *want, "{name} through XML");
        hkgen(&["dump", "--format", "json", "--out", &format!("{name}.json"), name]);
        hkgen(&["build", &format!("{name}.json"), &format!("{name}.built")]);
        assert!(std::fs::read(dir.join(format!("{name}.built"))).unwrap() == *want, "{name} through its dump");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// SDK 2022.1's numbering and `TYPE` section from scratch: `type_writer::havok_order` from the
/// types in the order the data writer meets them (the stored `THSH` order, and the same order
/// recomputed from the items our writer lays out) gives back the file's index order; and the
/// committed `schemas/2022.1` snapshot, reduced to the types the data needs
/// (`declare_unneeded`), numbered so and written with that order, is the stock section byte for
/// byte.
#[test]
fn totk_cloth_type_section_from_the_snapshot() {
    use hkgen::schema::{rebuild, snapshot};
    use hktypes::reflect::hash::Hasher;
    use hktypes::reflect::TypeIndex;
    use hktypes::tagfile::section::read_root;
    use hktypes::tagfile::{type_section, type_writer, write, CompendiumSet, TagFile};
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, CLOTH) else { return };
    let tag0 = Phive::read(&bytes).unwrap().tag0;
    let root = read_root(tag0).unwrap();
    let ty = root.child(b"TYPE").unwrap();
    let stock = &tag0[ty.start as usize..ty.start as usize + 8 + ty.body.len()];
    let table = type_section::read(ty).unwrap();
    let hash_order = type_section::hash_order(ty, table.types.len()).unwrap();
    let style = type_writer::Style::for_sdk("20220100");
    let identity: Vec<TypeIndex> = (1..table.types.len() as TypeIndex).collect();
    assert_eq!(type_writer::havok_order(&table, &hash_order, style), identity);
    let file = TagFile::read(tag0, &CompendiumSet::new()).unwrap();
    let mut layouts = hktypes::reflect::layout::Layouts::new(&file.types);
    let items = hktypes::tagfile::items::Items::read(&file, &mut layouts).unwrap();
    let plan = write::plan(&items, &mut layouts).unwrap();
    let (_, items_out, patches) = write::lay_out(&items, &plan);
    let met = type_writer::data_hash_order(&table, &items_out, &patches);
    assert_eq!(met, hash_order, "THSH lists the types as the data writer meets them");
    assert!(type_writer::write_ordered(&table, style, &met) == stock, "the section from the file's own table");

    let schema = snapshot::read(&common::workspace_root().join("schemas/2022.1")).unwrap();
    let (snap, index) = rebuild::to_table(&schema).unwrap();
    let mut hasher = Hasher::new(&table, schema.recipe);
    let mut to_snapshot = vec![0; table.types.len()];
    for (i, _) in table.iter() {
        let name = table.full_name(i);
        let variant = format!("{name}#{:08x}", hasher.hash(i).unwrap());
        to_snapshot[i as usize] = *index.get(variant.as_str()).or_else(|| index.get(name.as_str())).unwrap_or_else(|| panic!("{name} is not in the snapshot"));
    }
    let data_types: Vec<TypeIndex> = hash_order.iter().map(|&t| to_snapshot[t as usize]).collect();
    let reduced = type_writer::declare_unneeded(&snap, &data_types);
    let rebuilt = type_writer::renumber(&reduced, &type_writer::havok_order(&reduced, &data_types, style)).unwrap();
    assert_eq!(rebuilt.types.len(), table.types.len());
    let generated = type_writer::write_ordered(&rebuilt, style, &hash_order);
    let first = generated.iter().zip(stock).position(|(a, b)| a != b);
    assert_eq!((first, generated.len()), (None, stock.len()), "the section from the snapshot");
}

/// A wrapper that lies is a located error from `open`, and an error inside the tagfile points
/// into the whole file.
#[test]
fn a_lying_phive_wrapper_is_a_located_error() {
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, CLOTH) else { return };
    let options = OpenOptions::default();
    let with = |at: usize, v: u32| {
        let mut b = bytes.clone();
        b[at..at + 4].copy_from_slice(&v.to_le_bytes());
        b
    };
    let cases = [
        // The file size past the end.
        (with(0x14, 0x9000), "file 0x14: Phive file size 0x9000, but the file is 0x8000 bytes"),
        // The AAMP block's offset inside the tagfile.
        (with(0x10, 0x1000), "file 0x10: Phive trailing block at 0x1000 starts inside the tagfile (0x30..0x7c90)"),
        // The tagfile's room past the end.
        (with(0x18, 0x10000), "file 0x18: Phive tagfile of 0x10000 bytes at 0x30 runs past the end of the file (0x8000)"),
    ];
    for (b, want) in cases {
        assert_eq!(open(&b, &options).unwrap_err().to_string(), want);
    }
    // A body record declared twice in the TYPE section (the tagfile's own error, at its place in
    // the whole file): the first record's type index written over the second's.
    let tbdy = find(&bytes, b"TBDY") + 4;
    let mut twice = bytes.clone();
    // The second record of the section (type 2, hkArray) names type 1 instead.
    let second = tbdy + 0xb;
    assert_eq!(twice[second], 2);
    twice[second] = 1;
    let e = open(&twice, &options).unwrap_err().to_string();
    assert!(e.contains("body of type 1 is declared more than once"), "{e}");
    assert!(e.contains(&format!("(file {:#x})", second)), "{e}");
}

fn find(hay: &[u8], needle: &[u8]) -> usize {
    hay.windows(needle.len()).position(|w| w == needle).expect("present")
}
