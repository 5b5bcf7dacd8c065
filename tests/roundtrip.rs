//! Reading a stock tagfile and writing it again by the walk gives back the same bytes, for every
//! TAG0 file of the corpus; and when it does not, the report names the place.

mod common;

use hkgen::verify::verify_bytes;
use hktypes::tagfile::{write, TagFile};
use std::collections::BTreeMap;

#[test]
fn every_corpus_tagfile_round_trips_exactly() {
    let Some(corpus) = common::corpus() else { return };
    let entries = common::manifest(&corpus);
    let compendia = common::compendia(&entries);
    let mut per_sdk: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut bad = Vec::new();
    for e in entries.iter().filter(|e| e.format == "tag0") {
        let bytes = std::fs::read(&e.path).unwrap();
        let file = TagFile::read(&bytes, &compendia.set_for(&e.path)).unwrap_or_else(|err| panic!("{}: {err}", e.relpath));
        let n = per_sdk.entry(file.sdk_version()).or_default();
        n.0 += 1;
        match write::rewrite(&file) {
            Ok(out) if out == bytes => n.1 += 1,
            Ok(out) => {
                let at = out.iter().zip(&bytes).position(|(a, b)| a != b).unwrap_or(out.len().min(bytes.len()));
                bad.push(format!("{}: differs at {at:#x}", e.relpath));
            }
            Err(err) => bad.push(format!("{}: {err}", e.relpath)),
        }
    }
    for (sdk, (files, exact)) in &per_sdk {
        eprintln!("{sdk}: {exact}/{files} tagfiles round trip exactly");
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert_eq!(per_sdk.values().map(|n| n.1).sum::<usize>(), entries.iter().filter(|e| e.format == "tag0").count());
}

/// A nonzero byte where the walk puts zero padding is a difference, and verify says where.
#[test]
fn a_difference_is_located() {
    let Some(corpus) = common::corpus() else { return };
    let entries = common::manifest(&corpus);
    // A file with its own types whose DATA has padding between two items.
    for e in entries.iter().filter(|e| e.format == "tag0") {
        let mut bytes = std::fs::read(&e.path).unwrap();
        let Ok(file) = TagFile::read(&bytes, &Default::default()) else { continue };
        let data_at = file.data_offset as usize;
        let mut layouts = hktypes::reflect::layout::Layouts::new(&file.types);
        let mut ends: Vec<(usize, usize)> = file
            .items
            .iter()
            .skip(1)
            .map(|it| {
                let len = layouts.size_of(it.ty).unwrap() as usize * it.count as usize;
                (it.offset as usize, it.offset as usize + len)
            })
            .collect();
        ends.sort();
        let Some(gap) = ends.windows(2).find(|w| w[0].1 < w[1].0).map(|w| w[0].1) else { continue };
        drop(file);
        bytes[data_at + gap] = 0xAB;
        let r = verify_bytes(&e.relpath, &bytes, &Default::default());
        assert_eq!(r.roundtrip, Some("differs"), "{r:?}");
        assert_eq!(r.roundtrip_offset, Some((data_at + gap) as u64));
        let detail = r.roundtrip_detail.unwrap();
        assert!(detail.contains("TAG0/DATA+") && detail.contains("padding between items"), "{detail}");
        assert!(!r.ok);
        return; // not-a-skip: the check ran on this file
    }
    panic!("no corpus file with padding between items");
}

/// The first sub-section of two `TYPE` sections that differs, with the offset in its body of the
/// first differing byte (and the two sizes), or `None` when the sections are identical.
fn first_difference(generated: &[u8], stock: &[u8]) -> Option<String> {
    use hktypes::tagfile::section::read_root;
    if generated == stock {
        return None;
    }
    let (g, s) = (read_root(generated).unwrap(), read_root(stock).unwrap());
    for (a, b) in g.children.iter().zip(&s.children) {
        if a.tag != b.tag || a.body != b.body {
            let at = a.body.iter().zip(b.body).position(|(x, y)| x != y).unwrap_or(a.body.len().min(b.body.len()));
            return Some(format!("{} (stock {}): byte {at} of {} (stock {})", a.tag, b.tag, a.body.len(), b.body.len()));
        }
    }
    Some(format!("{} sub-sections (stock {})", g.children.len(), s.children.len()))
}

/// A `TYPE` section generated from a table (for files built from scratch or whose types changed)
/// equals the stock one byte for byte in all 81 corpus sections (29 distinct): the 76 of TAG0
/// files with their `THSH` order taken from the items and patches our writer lays out, the 5 of
/// TCM0 compendia (which hold no items) given their stored `THSH` order. From the table alone
/// (`THSH` in walk order) every sub-section but `THSH` is the stock one, and `THSH` differs in all
/// 81 from its fourth entry on (the data writer meets `hkRefVariant` before `hkStringPtr`). The
/// generated section reads back to the same table, its hashes recompute, and a file written with it
/// reads and holds the same items.
#[test]
fn generated_type_sections_read_back() {
    use hktypes::reflect::hash::{check_table, Recipe};
    use hktypes::tagfile::section::read_root;
    use hktypes::tagfile::{type_section, type_writer};
    let Some(corpus) = common::corpus() else { return };
    let (mut tables, mut from_data, mut from_stored_order, mut thsh_only) = (0, 0, 0, 0);
    let mut distinct = std::collections::HashSet::new();
    let mut mismatches = Vec::new();
    for e in common::manifest(&corpus).iter().filter(|e| e.format == "tag0" || e.format == "tcm0") {
        let bytes = std::fs::read(&e.path).unwrap();
        let root = read_root(&bytes).unwrap();
        let Some(ty) = root.child(b"TYPE") else { continue };
        let sdkv = root.child(b"SDKV").map_or("20180100".to_owned(), |s| String::from_utf8_lossy(s.body).into_owned());
        let stock = &bytes[ty.start as usize..ty.start as usize + 8 + ty.body.len()];
        distinct.insert(stock.to_vec());
        let table = type_section::read(ty).unwrap();
        let style = type_writer::Style::for_sdk(&sdkv);
        tables += 1;
        // From the table alone: only THSH may differ.
        let walked = type_writer::write(&table, style);
        match first_difference(&walked, stock) {
            Some(d) if d.starts_with("THSH") => thsh_only += 1,
            d => mismatches.push(format!("{} (THSH in walk order): {d:?}", e.relpath)),
        }
        let back = type_section::read(&read_root(&walked).unwrap()).unwrap();
        assert_eq!(back, table, "{}", e.relpath);
        let check = check_table(&back, Recipe::for_sdk(&sdkv)).unwrap();
        assert_eq!(check.matched, check.stored, "{}", e.relpath);
        if e.format == "tag0" {
            let file = TagFile::read(&bytes, &Default::default()).unwrap();
            let mut layouts = hktypes::reflect::layout::Layouts::new(&file.types);
            let items = hktypes::tagfile::items::Items::read(&file, &mut layouts).unwrap();
            let plan = write::plan(&items, &mut layouts).unwrap();
            let (data, table_out, patches) = write::lay_out(&items, &plan);
            let order = type_writer::data_hash_order(&table, &table_out, &patches);
            let generated = type_writer::write_ordered(&table, style, &order);
            match first_difference(&generated, stock) {
                None => from_data += 1,
                Some(d) => mismatches.push(format!("{} (THSH from the items): {d}", e.relpath)),
            }
            let out = write::write_file(file.sdkv_raw, &data, write::TypesOut::Section(&generated), &table_out, &patches);
            let again = TagFile::read(&out, &Default::default()).unwrap();
            assert_eq!(*again.types, *file.types);
            assert_eq!(again.data, file.data, "{}", e.relpath);
            assert_eq!(again.items, file.items);
        } else {
            let order = type_section::hash_order(ty, table.types.len()).unwrap();
            match first_difference(&type_writer::write_ordered(&table, style, &order), stock) {
                None => from_stored_order += 1,
                Some(d) => mismatches.push(format!("{} (stored THSH order): {d}", e.relpath)),
            }
        }
    }
    assert!(mismatches.is_empty(), "{} sections differ:\n{}", mismatches.len(), mismatches.join("\n"));
    assert_eq!((tables, distinct.len()), (81, 29));
    assert_eq!((from_data, from_stored_order), (76, 5), "generated TYPE sections identical to the stock ones");
    assert_eq!(thsh_only, 81, "sections from the table alone identical but for THSH");
}

/// Havok numbers a file's types by a walk from the types its data writer met first
/// (`type_writer::havok_order`): applied to the roots `type_writer::roots` finds, it gives back the
/// index order of every one of the 81 corpus tables, and renumbering by it changes nothing; for
/// the 76 TAG0 files the types in the order the data writer meets them (`data_hash_order`, from
/// the items our writer lays out) give the same order.
#[test]
fn havok_numbers_every_stock_table_by_its_walk() {
    use hktypes::tagfile::section::read_root;
    use hktypes::tagfile::{type_section, type_writer};
    let Some(corpus) = common::corpus() else { return };
    let (mut tables, mut from_data) = (0, 0);
    for e in common::manifest(&corpus).iter().filter(|e| e.format == "tag0" || e.format == "tcm0") {
        let bytes = std::fs::read(&e.path).unwrap();
        let root = read_root(&bytes).unwrap();
        let Some(ty) = root.child(b"TYPE") else { continue };
        let sdkv = root.child(b"SDKV").map_or("20180100".to_owned(), |s| String::from_utf8_lossy(s.body).into_owned());
        let table = type_section::read(ty).unwrap();
        let style = type_writer::Style::for_sdk(&sdkv);
        let order = type_writer::havok_order(&table, &type_writer::roots(&table), style);
        let identity: Vec<u32> = (1..table.types.len() as u32).collect();
        assert_eq!(order, identity, "{}", e.relpath);
        assert_eq!(type_writer::renumber(&table, &order).unwrap(), table, "{}", e.relpath);
        tables += 1;
        // What a writer has instead of a stock table's index order: the data. The types in the
        // order the data writer meets them (`data_hash_order`) are roots that give the same order.
        if e.format == "tag0" {
            let file = TagFile::read(&bytes, &Default::default()).unwrap();
            let mut layouts = hktypes::reflect::layout::Layouts::new(&file.types);
            let items = hktypes::tagfile::items::Items::read(&file, &mut layouts).unwrap();
            let plan = write::plan(&items, &mut layouts).unwrap();
            let (_, table_out, patches) = write::lay_out(&items, &plan);
            let met = type_writer::data_hash_order(&table, &table_out, &patches);
            assert_eq!(type_writer::havok_order(&table, &met, style), identity, "{}", e.relpath);
            from_data += 1;
        }
    }
    assert_eq!((tables, from_data), (81, 76));
}

/// The path of a document whose types changed: its types taken from the committed schema snapshot
/// of its SDK (`hkgen::schema::rebuild::to_table`, every type of the SDK), SDK 2019.1's unneeded
/// types reduced to declarations (`type_writer::declare_unneeded`), numbered as Havok numbers them
/// from the file's roots (`havok_order`, `renumber`), and written with the file's `THSH` order:
/// all 81 sections come out byte for byte (a compendium, which states no SDK, from the snapshot
/// that holds its types).
#[test]
fn type_sections_from_schema_snapshots() {
    use hkgen::schema::{rebuild, snapshot};
    use hktypes::reflect::hash::Hasher;
    use hktypes::reflect::{TypeIndex, TypeTable};
    use hktypes::tagfile::section::read_root;
    use hktypes::tagfile::{type_section, type_writer};
    let Some(corpus) = common::corpus() else { return };
    let schemas_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas");
    let snapshots: Vec<(hkgen::schema::model::Schema, TypeTable, BTreeMap<String, TypeIndex>)> = snapshot::list(&schemas_dir)
        .unwrap()
        .iter()
        .map(|dir| {
            let schema = snapshot::read(dir).unwrap();
            let (table, index) = rebuild::to_table(&schema).unwrap();
            let index = index.into_iter().map(|(k, i)| (k.to_owned(), i)).collect();
            (schema, table, index)
        })
        .collect();
    let (mut identical, mut others) = (0, Vec::new());
    for e in common::manifest(&corpus).iter().filter(|e| e.format == "tag0" || e.format == "tcm0") {
        let bytes = std::fs::read(&e.path).unwrap();
        let root = read_root(&bytes).unwrap();
        let Some(ty) = root.child(b"TYPE") else { continue };
        let sdkv = root.child(b"SDKV").map(|s| String::from_utf8_lossy(s.body).into_owned());
        let stock = &bytes[ty.start as usize..ty.start as usize + 8 + ty.body.len()];
        let table = type_section::read(ty).unwrap();
        let hash_order = type_section::hash_order(ty, table.types.len()).unwrap();
        // A compendium states no SDK: the snapshot that holds its types is tried among all.
        let mut reasons = Vec::new();
        let mut matched = false;
        for (schema, snap, index) in snapshots.iter().filter(|(s, _, _)| sdkv.as_deref().is_none_or(|v| v == s.sdkv)) {
            let style = type_writer::Style::for_sdk(&schema.sdkv);
            let mut hasher = Hasher::new(&table, schema.recipe);
            let mut to_snapshot = vec![0; table.types.len()];
            let mut missing = None;
            for (i, _) in table.iter() {
                let name = table.full_name(i);
                let variant = format!("{name}#{:08x}", hasher.hash(i).unwrap());
                match index.get(&variant).or_else(|| index.get(&name)) {
                    Some(&k) => to_snapshot[i as usize] = k,
                    None => {
                        missing = Some(name);
                        break;
                    }
                }
            }
            if let Some(name) = missing {
                reasons.push(format!("{}: {name} is not in the snapshot", schema.sdk));
                continue;
            }
            // SDK 2019.1 gives records only to the types the data needs.
            let stripped;
            let snap = if style.v2019 {
                let data_types: Vec<TypeIndex> = hash_order.iter().map(|&t| to_snapshot[t as usize]).collect();
                stripped = type_writer::declare_unneeded(snap, &data_types);
                &stripped
            } else {
                snap
            };
            // A type the file only declares (no record in TBDY) but the snapshot defines.
            let declared: Vec<String> = table
                .iter()
                .filter(|&(i, t)| t.presence() == 0 && t.parent == 0 && snap.types[to_snapshot[i as usize] as usize].presence() != 0)
                .map(|(i, _)| table.full_name(i))
                .collect();
            if !declared.is_empty() {
                reasons.push(format!("{}: the file only declares {} types the snapshot defines ({})", schema.sdk, declared.len(), declared.join(", ")));
                continue;
            }
            let roots: Vec<TypeIndex> = type_writer::roots(&table).iter().map(|&r| to_snapshot[r as usize]).collect();
            let order = type_writer::havok_order(snap, &roots, style);
            let rebuilt = type_writer::renumber(snap, &order).unwrap();
            let unhashed = |t: &TypeTable, i| t.record(i).map(|r| hktypes::reflect::TypeRecord { hash: None, ..r });
            if rebuilt.types.len() != table.types.len() {
                reasons.push(format!("{}: its types reach {} types, the file has {}", schema.sdk, rebuilt.types.len(), table.types.len()));
                continue;
            }
            if let Some((i, _)) = table.iter().find(|&(i, _)| unhashed(&rebuilt, i) != unhashed(&table, i)) {
                reasons.push(format!("{}: {} differs from the file's", schema.sdk, table.full_name(i)));
                continue;
            }
            let generated = type_writer::write_ordered(&rebuilt, style, &hash_order);
            match first_difference(&generated, stock) {
                None => matched = true,
                Some(d) => reasons.push(format!("{}: {d}", schema.sdk)),
            }
            break;
        }
        if matched {
            identical += 1;
        } else {
            others.push(format!("{}: {}", e.relpath, reasons.join("; ")));
        }
    }
    assert_eq!((identical, others.len()), (81, 0), "{}", others.join("\n"));
}

/// Every object of every corpus tagfile decodes through the file's own type table.
#[test]
fn every_corpus_tagfile_dumps() {
    let Some(corpus) = common::corpus() else { return };
    let entries = common::manifest(&corpus);
    let compendia = common::compendia(&entries);
    let mut objects = 0;
    for e in entries.iter().filter(|e| e.format == "tag0") {
        let bytes = std::fs::read(&e.path).unwrap();
        let file = TagFile::read(&bytes, &compendia.set_for(&e.path)).unwrap();
        let dump = hktypes::dynamic::dump(&file).unwrap_or_else(|err| panic!("{}: {err}", e.relpath));
        assert_eq!(dump[0].id, "#1", "{}", e.relpath);
        objects += dump.len();
    }
    eprintln!("{objects} objects decoded");
}
