//! Crafted hostile files, one per case of issue 21: bounded work and memory, nonsense refused,
//! and data after the TAG0 section kept. Each crafted file is made here by the test code (no game
//! data); the cases that change a real file take a corpus file and change a few bytes of it.
//!
//! Bounds checked (stated in the README, "Speed, memory and bad input"): reading and verifying a
//! crafted file allocates at most `READ_FACTOR` x its size + `READ_SLACK` (a counting allocator
//! measures the peak of live heap bytes) and each case ends within a few seconds.

mod common;

use common::counting::measured;
use hkgen::verify::verify_bytes;
use hktypes::reflect::hash::{check_table, Recipe};
use hktypes::tagfile::index::{write_items, Item};
use hktypes::tagfile::items::Items;
use hktypes::tagfile::packed;
use hktypes::tagfile::section::SectionWriter;
use hktypes::tagfile::{CompendiumSet, TagFile};
use hktypes::Layer;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

#[global_allocator]
static ALLOC: common::counting::Counting = common::counting::Counting;

/// The bound of the README: reading (and verifying) a file allocates at most this many times its
/// size, plus [`READ_SLACK`].
const READ_FACTOR: usize = 32;
const READ_SLACK: usize = 1 << 20;

/// The tests share the allocator's counters: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `f` on `input` under the counting allocator; fails when it takes more than the stated
/// memory bound or `seconds`.
fn bounded<R>(what: &str, input: &[u8], seconds: u64, f: impl FnOnce() -> R) -> R {
    common::fuzz_seed(input);
    let t = Instant::now();
    let (r, peak) = measured(f);
    let took = t.elapsed();
    let bound = READ_FACTOR * input.len() + READ_SLACK;
    eprintln!("{what}: {} bytes, peak {peak} bytes ({:.1} x), {:.2} s", input.len(), peak as f64 / input.len() as f64, took.as_secs_f64());
    assert!(peak <= bound, "{what}: heap peak {peak} over the bound {bound} for {} input bytes", input.len());
    assert!(took <= Duration::from_secs(seconds), "{what}: took {took:?}, over {seconds} s");
    r
}

// ---------------------------------------------------------------------------------------------
// A crafted TAG0 file.

const FMT_INT8: u32 = 4 | (8 << 10);
const FMT_INT32: u32 = 4 | (32 << 10);
const FMT_STRING: u32 = 3;
const FMT_POINTER: u32 = 6;
const FMT_RECORD: u32 = 7;
const FMT_ARRAY: u32 = 8 | (2 << 5);

const fn fmt_c_array(n: u32) -> u32 {
    8 | (1 << 5) | (n << 8)
}

#[derive(Clone, Default)]
struct Ty {
    name: String,
    parent: u32,
    format: Option<u32>,
    subtype: Option<u32>,
    size: Option<(u32, u32)>,
    fields: Option<Vec<(String, u32, u32)>>,
    hash: Option<u32>,
}

fn ty(name: &str, format: u32, size: u32, align: u32) -> Ty {
    Ty { name: name.into(), format: Some(format), size: Some((size, align)), ..Ty::default() }
}

fn record(name: &str, size: u32, fields: &[(&str, u32, u32)]) -> Ty {
    Ty { fields: Some(fields.iter().map(|&(n, o, t)| (n.to_owned(), o, t)).collect()), ..ty(name, FMT_RECORD, size, 8) }
}

fn packed_all(out: &mut Vec<u8>, values: impl IntoIterator<Item = u64>) {
    for v in values {
        packed::write(out, v);
    }
}

/// Strings of a string table, NUL-terminated, and the index of each name.
struct Strings {
    bytes: Vec<u8>,
    index: std::collections::HashMap<String, u64>,
}

impl Strings {
    fn new() -> Self {
        Strings { bytes: Vec::new(), index: Default::default() }
    }
    fn of(&mut self, s: &str) -> u64 {
        let n = self.index.len() as u64;
        *self.index.entry(s.to_owned()).or_insert_with(|| {
            self.bytes.extend(s.as_bytes());
            self.bytes.push(0);
            n
        })
    }
}

/// A TAG0 file of SDK 2018.1 with types `types` (indices from 1), `DATA` and `ITEM` records
/// (the null item is added first).
fn tag0(types: &[Ty], data: &[u8], items: &[Item]) -> Vec<u8> {
    let (mut tstr, mut fstr) = (Strings::new(), Strings::new());
    let mut tna1 = Vec::new();
    packed_all(&mut tna1, [types.len() as u64 + 1]);
    let mut tbdy = Vec::new();
    let mut thsh = Vec::new();
    let hashes = types.iter().filter(|t| t.hash.is_some()).count();
    packed_all(&mut thsh, [hashes as u64]);
    for (k, t) in types.iter().enumerate() {
        let k = k as u64 + 1;
        packed_all(&mut tna1, [tstr.of(&t.name), 0]);
        let presence = t.format.map_or(0, |_| 1) | t.subtype.map_or(0, |_| 2) | t.size.map_or(0, |_| 8) | t.fields.as_ref().map_or(0, |_| 32);
        packed_all(&mut tbdy, [k, u64::from(t.parent), presence]);
        packed_all(&mut tbdy, t.format.map(u64::from));
        packed_all(&mut tbdy, t.subtype.map(u64::from));
        if let Some((size, align)) = t.size {
            packed_all(&mut tbdy, [u64::from(size), u64::from(align)]);
        }
        if let Some(fields) = &t.fields {
            packed_all(&mut tbdy, [fields.len() as u64]);
            for (name, offset, ty) in fields {
                packed_all(&mut tbdy, [fstr.of(name), 0x20, u64::from(*offset), u64::from(*ty)]);
            }
        }
        if let Some(h) = t.hash {
            packed_all(&mut thsh, [k]);
            thsh.extend(h.to_le_bytes());
        }
    }
    let mut all = vec![Item { ty: 0, kind_byte: 0, offset: 0, count: 0 }];
    all.extend_from_slice(items);
    let mut w = SectionWriter::new();
    w.begin(b"TAG0", 0);
    w.leaf(b"SDKV", b"20180100");
    w.leaf(b"DATA", data);
    w.begin(b"TYPE", 0);
    w.leaf(b"TSTR", &tstr.bytes);
    w.leaf(b"TNA1", &tna1);
    w.leaf(b"FSTR", &fstr.bytes);
    w.leaf(b"TBDY", &tbdy);
    if hashes > 0 {
        w.leaf(b"THSH", &thsh);
    }
    w.end();
    w.begin(b"INDX", 0);
    w.leaf(b"ITEM", &write_items(&all));
    w.end();
    w.end();
    w.finish()
}

fn object(ty: u32, offset: u32) -> Item {
    Item { ty, kind_byte: 0x10, offset, count: 1 }
}

fn run(ty: u32, offset: u32, count: u32) -> Item {
    Item { ty, kind_byte: 0x20, offset, count }
}

/// The items of `bytes` read to an error of the items layer, with an offset and within bounds.
fn items_fail(what: &str, bytes: &[u8], seconds: u64, expect: &str) {
    let set = CompendiumSet::new();
    let e = bounded(what, bytes, seconds, || {
        let file = TagFile::read(bytes, &set).expect("the type table reads");
        let mut layouts = file.layouts();
        Items::read(&file, &mut layouts).map(|_| ()).unwrap_err()
    });
    eprintln!("  {e}");
    assert_eq!(e.layer(), Layer::Items, "{what}: {e}");
    assert!(e.offset().is_some() && e.section().is_some(), "{what}: not located: {e}");
    assert!(e.to_string().contains(expect), "{what}: {e}");
    // verify says the same, within the same bounds.
    let r = bounded(&format!("{what} (verify)"), bytes, seconds, || verify_bytes("crafted", bytes, &set));
    assert!(!r.ok, "{what}: verify passed");
}

// ---------------------------------------------------------------------------------------------
// 1. Bounded work and memory.

/// `T[N]` in a record in `T[N]` ...: the slots of one element would be N x N x ... pointers.
#[test]
fn nested_c_arrays_are_refused_before_their_slots_are_collected() {
    let _s = serial();
    let n = (1 << 24) - 1;
    // Zero-size elements: a pointer type with no size, arrays and records of size 0 or 8.
    let types = [
        Ty { name: "P".into(), format: Some(FMT_POINTER), ..Ty::default() },
        Ty { subtype: Some(1), ..ty("P[N]", fmt_c_array(n), 0, 8) },
        record("R1", 8, &[("a", 0, 2)]),
        Ty { subtype: Some(3), ..ty("R1[N]", fmt_c_array(n), 0, 8) },
        record("R2", 16, &[("b", 0, 4)]),
    ];
    let bytes = tag0(&types, &[0; 16], &[object(5, 0)]);
    items_fail("two levels of 2^24-1, zero-size pointers", &bytes, 2, "reference slots in one element");
    // Real sizes (as stated by the type table): three levels of 4096 pointers of 8 bytes.
    let n = 4096;
    let types = [
        ty("P", FMT_POINTER, 8, 8),
        Ty { subtype: Some(1), ..ty("P[N]", fmt_c_array(n), 8 * n, 8) },
        record("R1", 8 * n, &[("a", 0, 2)]),
        Ty { subtype: Some(3), ..ty("R1[N]", fmt_c_array(n), 16, 8) },
        record("R2", 16, &[("b", 0, 4)]),
        Ty { subtype: Some(5), ..ty("R2[N]", fmt_c_array(n), 16, 8) },
        record("R3", 16, &[("c", 0, 6)]),
    ];
    let bytes = tag0(&types, &[0; 16], &[object(7, 0)]);
    items_fail("three levels of 4096, 8-byte pointers", &bytes, 2, "reference slots in one element");
}

/// A run of 2,000 elements of a record that claims far more slots than its size holds: the
/// reference check took elements x slots. (Members that share bytes are refused with the types,
/// `a_record_whose_members_share_bytes_is_a_type_table_error`; pointers of no size are not.)
#[test]
fn a_run_of_records_with_more_slots_than_bytes_is_refused() {
    let _s = serial();
    // 60 000 pointer members of no size at offset 0 of an 8-byte record.
    let fields: Vec<(String, u32, u32)> = (0..60_000).map(|k| (format!("p{k}"), 0, 1)).collect();
    let types = [Ty { name: "P".into(), format: Some(FMT_POINTER), ..Ty::default() }, Ty { fields: Some(fields), ..record("R", 8, &[]) }];
    let bytes = tag0(&types, &vec![0; 8 * 2000], &[run(2, 0, 2000)]);
    items_fail("60 000 pointers of no size, a run of 2 000", &bytes, 2, "reference slots in one element");
    // One member of 1 000 000 pointers in a record of 16 bytes.
    let types = [
        ty("P", FMT_POINTER, 8, 8),
        Ty { subtype: Some(1), ..ty("P[N]", fmt_c_array(1_000_000), 16, 8) },
        record("R", 16, &[("a", 0, 2)]),
    ];
    let bytes = tag0(&types, &vec![0; 16 * 2000], &[run(3, 0, 2000)]);
    items_fail("a C array of 10^6 pointers, a run of 2 000", &bytes, 2, "reference slots in one element");
}

/// A record of 65,535 members that take no bytes (empty records at offset 0 of 8 bytes), as a run
/// of 2,000 that one object holds: decoding it as dynamic values (`hkgen dump`) made 65,535 values
/// per element. (Members that overlap were the first way to it; they are now refused with the
/// types.)
#[test]
fn dynamic_values_of_members_of_no_size_are_bounded() {
    let _s = serial();
    let fields: Vec<(String, u32, u32)> = (0..0xFFFF).map(|k| (format!("f{k}"), 0, 1)).collect();
    let types = [
        record("E", 0, &[]),
        Ty { fields: Some(fields), ..record("R", 8, &[]) },
        Ty { subtype: Some(2), ..ty("hkArray<R>", FMT_ARRAY, 16, 8) },
        record("Root", 16, &[("rs", 0, 3)]),
    ];
    let mut data = vec![0u8; 16 + 8 * 2000];
    data[0..4].copy_from_slice(&2u32.to_le_bytes());
    let bytes = tag0(&types, &data, &[object(4, 0), run(2, 16, 2000)]);
    let set = CompendiumSet::new();
    let e = bounded("65 535 members of no size x 2 000: dump", &bytes, 5, || {
        let file = TagFile::read(&bytes, &set).unwrap();
        hktypes::dynamic::dump(&file).map(|_| ()).unwrap_err()
    });
    eprintln!("  {e}");
    assert!(e.offset().is_some() && e.to_string().contains("more values than"), "{e}");
}

/// One record of 65,535 fields (of no size, at offset 0) inherited by 60,000 types that store
/// hashes (and have objects): hashing the inherited fields again for every heir took minutes.
#[test]
fn many_heirs_of_a_record_with_many_fields_hash_and_lay_out_in_linear_time() {
    let _s = serial();
    let heirs = 60_000u32;
    let fields: Vec<(String, u32, u32)> = (0..0xFFFF).map(|k| (format!("f{k}"), 0, 1)).collect();
    let mut types = vec![record("E", 0, &[]), Ty { fields: Some(fields), hash: Some(1), ..record("Base", 8, &[]) }];
    for k in 0..heirs {
        types.push(Ty { name: format!("H{k}"), parent: 2, fields: Some(Vec::new()), hash: Some(k), ..ty("", FMT_RECORD, 8, 8) });
    }
    let items: Vec<Item> = (0..heirs).map(|k| object(3 + k, 8 * k)).collect();
    let bytes = tag0(&types, &vec![0; 8 * heirs as usize], &items);
    let set = CompendiumSet::new();
    let c = bounded("65 535 fields, 60 000 heirs: hashes", &bytes, 10, || {
        let file = TagFile::read(&bytes, &set).unwrap();
        check_table(&file.types, Recipe::InheritedFields).unwrap()
    });
    assert_eq!(c.stored, heirs as usize + 1);
    // Each heir's hash is its own: they differ in name.
    let file = TagFile::read(&bytes, &set).unwrap();
    let mut h = hktypes::reflect::hash::Hasher::new(&file.types, Recipe::InheritedFields);
    let (a, b) = (h.hash(3).unwrap(), h.hash(4).unwrap());
    assert_ne!(a, b);
    // verify: hashes, the items (60 000 objects of 60 000 types) and the round trip.
    let r = bounded("65 535 fields, 60 000 heirs: verify", &bytes, 20, || verify_bytes("crafted", &bytes, &set));
    assert_eq!(r.hashes_stored, heirs as usize + 1);
    assert_eq!(r.roundtrip, Some("exact"), "{:?}", r.error);
}

/// About 190 bytes of memory per two-byte type record: tables of more types than their TYPE
/// section's bytes allow (one per `MIN_TYPE_BYTES`) are refused before any is made.
#[test]
fn tables_of_tiny_types_are_refused_past_the_stated_ratio() {
    use hktypes::tagfile::type_section::{MIN_TYPE_BYTES, TYPE_SLACK};
    let _s = serial();
    let set = CompendiumSet::new();
    // 1 000 000 types of two bytes each.
    let types: Vec<Ty> = (0..1_000_000).map(|_| Ty { name: "T".into(), ..Ty::default() }).collect();
    let bytes = tag0(&types, &[], &[]);
    let e = bounded("10^6 two-byte types", &bytes, 5, || TagFile::read(&bytes, &set).map(|_| ()).unwrap_err());
    assert_eq!(e.layer(), Layer::TypeTable, "{e}");
    assert!(e.offset().is_some() && e.to_string().contains("types in a TYPE section"), "{e}");
    // At the limit (the section padded to MIN_TYPE_BYTES per type), reading and verifying stay
    // within the bound.
    let n = 100_000usize;
    let types: Vec<Ty> = (0..n).map(|_| Ty { name: "T".into(), ..Ty::default() }).collect();
    let small = tag0(&types, &[], &[]);
    let pad = (n - TYPE_SLACK) * MIN_TYPE_BYTES;
    let bytes = with_type_padding(&small, pad);
    let r = bounded("10^5 two-byte types at the limit: verify", &bytes, 10, || verify_bytes("crafted", &bytes, &set));
    assert_eq!(r.types, n, "{:?}", r.error);
}

/// `small` with a `TPAD` section of `pad` bytes added at the end of its `TYPE` section.
fn with_type_padding(small: &[u8], pad: usize) -> Vec<u8> {
    let root = hktypes::tagfile::section::read_root(small).unwrap();
    let mut w = SectionWriter::new();
    w.begin(b"TAG0", 0);
    for s in &root.children {
        if s.is_leaf() {
            w.leaf(&s.tag.0, s.body);
            continue;
        }
        w.begin(&s.tag.0, 0);
        for c in &s.children {
            w.leaf(&c.tag.0, c.body);
        }
        if s.tag.0 == *b"TYPE" {
            w.leaf(b"TPAD", &vec![0; pad]);
        }
        w.end();
    }
    w.end();
    w.finish()
}

/// The large cases above in versions that fit the fuzzers' inputs (at most
/// `common::FUZZ_SEED_MAX` bytes), held to the same bounds: refused or read as the large ones
/// are. With `HKGEN_FUZZ_SEED_DIR` set they become the fuzz seeds of those cases.
#[test]
fn small_versions_of_the_large_cases_end_the_same_way() {
    let _s = serial();
    let set = CompendiumSet::new();
    let small = |bytes: &[u8]| assert!(bytes.len() <= common::FUZZ_SEED_MAX, "{} bytes", bytes.len());
    // 4,000 pointer members of no size at offset 0 of an 8-byte record, a run of 100.
    let fields: Vec<(String, u32, u32)> = (0..4_000).map(|k| (format!("p{k}"), 0, 1)).collect();
    let types = [Ty { name: "P".into(), format: Some(FMT_POINTER), ..Ty::default() }, Ty { fields: Some(fields), ..record("R", 8, &[]) }];
    let bytes = tag0(&types, &[0; 8 * 100], &[run(2, 0, 100)]);
    small(&bytes);
    items_fail("4 000 pointers of no size, a run of 100", &bytes, 2, "reference slots in one element");
    // 4,000 overlapping pointer members: refused with the types.
    let fields: Vec<(String, u32, u32)> = (0..4_000).map(|k| (format!("p{k}"), 0, 1)).collect();
    let types = [ty("P", FMT_POINTER, 8, 8), Ty { fields: Some(fields), ..record("R", 8, &[]) }];
    let bytes = tag0(&types, &[0; 8 * 100], &[run(2, 0, 100)]);
    small(&bytes);
    let e = bounded("4 000 overlapping pointers", &bytes, 2, || TagFile::read(&bytes, &set).map(|_| ()).unwrap_err());
    assert!(e.layer() == Layer::TypeTable && e.to_string().contains("share bytes"), "{e}");
    // 2,000 members of no size x 100 elements, decoded as dynamic values.
    let fields: Vec<(String, u32, u32)> = (0..2_000).map(|k| (format!("f{k}"), 0, 1)).collect();
    let types = [
        record("E", 0, &[]),
        Ty { fields: Some(fields), ..record("R", 8, &[]) },
        Ty { subtype: Some(2), ..ty("hkArray<R>", FMT_ARRAY, 16, 8) },
        record("Root", 16, &[("rs", 0, 3)]),
    ];
    let mut data = vec![0u8; 16 + 8 * 100];
    data[0..4].copy_from_slice(&2u32.to_le_bytes());
    let bytes = tag0(&types, &data, &[object(4, 0), run(2, 16, 100)]);
    small(&bytes);
    let e = bounded("2 000 members of no size x 100: dump", &bytes, 5, || {
        let file = TagFile::read(&bytes, &set).unwrap();
        hktypes::dynamic::dump(&file).map(|_| ()).unwrap_err()
    });
    assert!(e.offset().is_some() && e.to_string().contains("more values than"), "{e}");
    // 1,000 fields inherited by 1,000 heirs that store hashes and have objects.
    let heirs = 1_000u32;
    let fields: Vec<(String, u32, u32)> = (0..1_000).map(|k| (format!("f{k}"), 0, 1)).collect();
    let mut types = vec![record("E", 0, &[]), Ty { fields: Some(fields), hash: Some(1), ..record("Base", 8, &[]) }];
    for k in 0..heirs {
        types.push(Ty { name: format!("H{k}"), parent: 2, fields: Some(Vec::new()), hash: Some(k), ..ty("", FMT_RECORD, 8, 8) });
    }
    let items: Vec<Item> = (0..heirs).map(|k| object(3 + k, 8 * k)).collect();
    let bytes = tag0(&types, &vec![0; 8 * heirs as usize], &items);
    small(&bytes);
    let r = bounded("1 000 fields, 1 000 heirs: verify", &bytes, 5, || verify_bytes("crafted", &bytes, &set));
    assert_eq!((r.hashes_stored, r.roundtrip), (heirs as usize + 1, Some("exact")), "{:?}", r.error);
    // 10^4 two-byte types: refused; 2,000 at the limit: read and verified.
    let types: Vec<Ty> = (0..10_000).map(|_| Ty { name: "T".into(), ..Ty::default() }).collect();
    let bytes = tag0(&types, &[], &[]);
    small(&bytes);
    let e = bounded("10^4 two-byte types", &bytes, 5, || TagFile::read(&bytes, &set).map(|_| ()).unwrap_err());
    assert!(e.layer() == Layer::TypeTable && e.to_string().contains("types in a TYPE section"), "{e}");
    let n = 2_000usize;
    let types: Vec<Ty> = (0..n).map(|_| Ty { name: "T".into(), ..Ty::default() }).collect();
    let pad = (n - hktypes::tagfile::type_section::TYPE_SLACK) * hktypes::tagfile::type_section::MIN_TYPE_BYTES;
    let bytes = with_type_padding(&tag0(&types, &[], &[]), pad);
    small(&bytes);
    let r = bounded("2 000 two-byte types at the limit: verify", &bytes, 5, || verify_bytes("crafted", &bytes, &set));
    assert_eq!(r.types, n, "{:?}", r.error);
}

// ---------------------------------------------------------------------------------------------
// 2. No nonsense accepted.

/// A member offset near 2^32 wrapped `offset + 4 > size`.
#[test]
fn a_member_that_does_not_fit_its_record_is_a_type_table_error() {
    let set = CompendiumSet::new();
    for offset in [0xFFFF_FFFE, 0xFFFF_FFFC, 8, 5] {
        let types = [ty("P", FMT_POINTER, 8, 8), record("R", 8, &[("p", offset, 1)])];
        let bytes = tag0(&types, &[0; 8], &[object(2, 0)]);
        common::fuzz_seed(&bytes);
        let e = TagFile::read(&bytes, &set).map(|_| ()).unwrap_err();
        assert_eq!(e.layer(), Layer::TypeTable, "{e}");
        assert_eq!(e.path(), ["R", "p"], "{e}");
        assert!(e.section().is_some_and(|s| s.ends_with("TBDY")) && e.to_string().contains("does not fit the 8-byte record"), "{e}");
    }
    // One that fits reads.
    let types = [ty("P", FMT_POINTER, 8, 8), record("R", 16, &[("p", 8, 1)])];
    assert!(TagFile::read(&tag0(&types, &[0; 16], &[object(2, 0)]), &set).is_ok());
}

/// Two members over the same bytes hold one value, and writing them (from XML, where each has its
/// own text) kept only the second without a word (the tagfile_xml fuzz target's finding at
/// f65dd88): a record whose members share a byte, with each other or with its ancestors'
/// members, is refused with the types. Members of no size share nothing, and an heir may put its
/// members in its parent's padding.
#[test]
fn a_record_whose_members_share_bytes_is_a_type_table_error() {
    let _s = serial();
    let set = CompendiumSet::new();
    let int = || ty("int", FMT_INT32, 4, 4);
    let refused = |what: &str, types: &[Ty], path: &[&str], expect: &str| {
        let bytes = tag0(types, &[0; 16], &[object(types.len() as u32, 0)]);
        common::fuzz_seed(&bytes);
        let e = TagFile::read(&bytes, &set).map(|_| ()).unwrap_err();
        assert_eq!(e.layer(), Layer::TypeTable, "{what}: {e}");
        assert_eq!(e.path(), path, "{what}: {e}");
        assert!(e.section().is_some_and(|s| s.ends_with("TBDY")) && e.to_string().contains(expect), "{what}: {e}");
    };
    refused("own members", &[ty("P", FMT_POINTER, 8, 8), record("R", 16, &[("p", 0, 1), ("q", 4, 1)])], &["R"], "members p (bytes 0..8) and q (bytes 4..12) share bytes");
    refused("the same offset", &[int(), record("R", 16, &[("a", 8, 1), ("b", 8, 1)])], &["R"], "members a (bytes 8..12) and b (bytes 8..12) share bytes");
    let heir = Ty { name: "H".into(), parent: 2, fields: Some(vec![("b".into(), 2, 1)]), ..ty("", FMT_RECORD, 16, 8) };
    refused("an ancestor's member", &[int(), record("B", 8, &[("a", 0, 1)]), heir], &["H"], "members a (bytes 0..4) of its ancestor B and b (bytes 2..6) share bytes");
    // Two generations up, past a parent with no members of its own.
    let mid = Ty { name: "M".into(), parent: 2, fields: Some(Vec::new()), ..ty("", FMT_RECORD, 8, 8) };
    let heir = Ty { name: "H".into(), parent: 3, fields: Some(vec![("c".into(), 0, 1)]), ..ty("", FMT_RECORD, 16, 8) };
    refused("a grandparent's member", &[int(), record("B", 8, &[("a", 0, 1), ("b", 4, 1)]), mid, heir], &["H"], "members a (bytes 0..4) of its ancestor B and c (bytes 0..4) share bytes");
    // 65,535 members at one offset: refused at once.
    let fields: Vec<(String, u32, u32)> = (0..0xFFFF).map(|k| (format!("f{k}"), 0, 1)).collect();
    let types = [int(), Ty { fields: Some(fields), ..record("R", 8, &[]) }];
    let bytes = tag0(&types, &[0; 8], &[object(2, 0)]);
    let e = bounded("65 535 members at one offset", &bytes, 2, || TagFile::read(&bytes, &set).map(|_| ()).unwrap_err());
    assert!(e.layer() == Layer::TypeTable && e.to_string().contains("share bytes"), "{e}");
    // What reads: members of no size at one offset, beside a member; an heir's member in its
    // parent's padding (bytes 4..8 of an 8-byte parent whose member takes 0..4); members that
    // touch.
    let reads = |types: &[Ty]| TagFile::read(&tag0(types, &[0; 16], &[object(types.len() as u32, 0)]), &set).map(|_| ());
    reads(&[int(), record("E", 0, &[]), record("R", 8, &[("e", 0, 2), ("f", 0, 2), ("a", 0, 1), ("g", 4, 2)])]).unwrap();
    let heir = Ty { name: "H".into(), parent: 2, fields: Some(vec![("b".into(), 4, 1), ("c".into(), 8, 1)]), ..ty("", FMT_RECORD, 16, 8) };
    reads(&[int(), record("B", 8, &[("a", 0, 1)]), heir]).unwrap();
}

/// Types of the pointer tests: `Base`, `Derived : Base`, `Other`, each an 8-byte record that
/// holds a pointer to a `Base`; and a run of `Holder` elements with a string.
fn pointer_types() -> Vec<Ty> {
    vec![
        Ty { subtype: Some(2), ..ty("Base*", FMT_POINTER, 8, 8) }, // 1
        record("Base", 8, &[("next", 0, 1)]),                     // 2
        Ty { parent: 2, ..record("Derived", 8, &[]) },             // 3
        record("Other", 8, &[("next", 0, 1)]),                    // 4
        ty("char", FMT_INT8, 1, 1),                               // 5
        Ty { subtype: Some(5), ..ty("char*", FMT_STRING, 8, 8) }, // 6
        record("Holder", 8, &[("name", 0, 6)]),                   // 7
        Ty { subtype: Some(7), ..ty("hkArray<Holder>", FMT_ARRAY, 16, 8) }, // 8
        record("Root", 16, &[("holders", 0, 8)]),                 // 9
    ]
}

/// Item 1 an object of `first` whose pointer names item `target`; item 2 an object of `second`.
fn two_objects(first: u32, second: u32, target: u32) -> Vec<u8> {
    let mut data = vec![0u8; 32];
    data[0..4].copy_from_slice(&target.to_le_bytes());
    tag0(&pointer_types(), &data, &[object(first, 0), object(second, 16)])
}

fn verify_fails(what: &str, bytes: &[u8], expect: &[&str]) {
    common::fuzz_seed(bytes);
    let r = verify_bytes("crafted", bytes, &CompendiumSet::new());
    let e = r.error.clone().unwrap_or_default();
    eprintln!("{what}: {e}");
    assert!(!r.ok, "{what}: verify passed");
    for x in expect {
        assert!(e.contains(x), "{what}: {e:?} does not say {x:?}");
    }
}

#[test]
fn pointers_to_objects_of_another_class_fail_verify() {
    // Base -> Other: not a Base.
    verify_fails("Base.next -> Other", &two_objects(2, 4, 2), &["item 1 Base[0].next", "neither a Base nor a class derived from it"]);
    // An object pointing to itself.
    verify_fails("Base.next -> itself", &two_objects(2, 3, 1), &["item 1 Base[0].next", "points to the object that holds it"]);
    // A subclass is fine: Base -> Derived reads, and the pointer check has nothing to say.
    let set = CompendiumSet::new();
    let bytes = two_objects(2, 3, 2);
    let file = TagFile::read(&bytes, &set).unwrap();
    let mut layouts = file.layouts();
    let items = Items::read(&file, &mut layouts).unwrap();
    items.check_targets(&file, &mut layouts).unwrap();
    // A string slot naming the run that holds it: Root.holders -> run 2 of Holder, whose name
    // names run 2 again.
    let mut data = vec![0u8; 32];
    data[0..4].copy_from_slice(&2u32.to_le_bytes());
    data[16..20].copy_from_slice(&2u32.to_le_bytes());
    let bytes = tag0(&pointer_types(), &data, &[object(9, 0), run(7, 16, 1)]);
    verify_fails("a string naming its own run", &bytes, &["item 2 Holder[0].name", "names the run that holds it"]);
}

/// The same on a real file: `hkbProjectData.stringData` (an `hkRefPtr<hkbProjectStringData>`)
/// made to name the project data itself, then the root container; a string of the string data
/// made to name its own run.
#[test]
fn a_corpus_project_file_with_its_pointers_turned_fails_verify() {
    let Some(corpus) = common::corpus() else { return };
    let path = corpus.join("AriT000__midir-NR/chr/c6211.behbnd/c6211/Export/c6211.hkx");
    let stock = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let set = CompendiumSet::new();
    assert!(verify_bytes("stock", &stock, &set).ok);
    let file = TagFile::read(&stock, &set).unwrap();
    let mut layouts = file.layouts();
    let items = Items::read(&file, &mut layouts).unwrap();
    let named = |name: &str| items.items.iter().position(|it| file.types.get(it.ty).is_some_and(|t| t.name == name)).unwrap();
    let project = named("hkbProjectData");
    let strings = named("hkbProjectStringData");
    // The slot of the project data that names the string data.
    let it = &items.items[project];
    let (_, slot, _) = it.references().find(|&(_, _, t)| t as usize == strings).expect("stringData names the string data");
    let at = file.data_offset as usize + file.items[project].offset as usize + slot.offset as usize;
    let set_slot = |bytes: &[u8], at: usize, v: u32| {
        let mut b = bytes.to_vec();
        b[at..at + 4].copy_from_slice(&v.to_le_bytes());
        b
    };
    verify_fails("stringData -> the project data", &set_slot(&stock, at, project as u32), &["hkbProjectData[0].stringData", "holds it"]);
    verify_fails(
        "stringData -> the root container",
        &set_slot(&stock, at, 1),
        &["hkbProjectData[0].stringData", "a hkRootLevelContainer, which is neither a hkbProjectStringData"],
    );
    // A run of strings (`hkStringPtr` elements) one of whose strings names that run.
    let (index, it) = items
        .items
        .iter()
        .enumerate()
        .find(|(_, it)| !it.is_object() && it.slots.iter().any(|s| s.kind == hktypes::reflect::layout::SlotKind::String) && it.count > 0)
        .expect("a run of strings");
    let s = it.slots.iter().find(|s| s.kind == hktypes::reflect::layout::SlotKind::String).unwrap();
    let at = file.data_offset as usize + file.items[index].offset as usize + s.offset as usize;
    verify_fails("a string naming its own run", &set_slot(&stock, at, index as u32), &["names the run that holds it"]);
}

/// A packfile from the corpus: a small Dark Souls III skeleton (2014.1, little-endian, 8-byte
/// pointers), whose class schemas are committed.
fn packfile_skeleton() -> Option<Vec<u8>> {
    let corpus = common::corpus()?;
    common::corpus_file(
        &corpus,
        "monaxiastr__MonaxiaSouls/MonaxiaSouls/parts/wp_a_10010.partsbnd/Weapon/WP_A_10010/WP_A_10010_1.anibnd/WP_A_0500/hkx/skeleton_1.HKX",
    )
}

#[test]
fn a_packfile_contents_offset_outside_its_section_is_an_error() {
    let Some(stock) = packfile_skeleton() else { return }; // not-a-skip: packfile_skeleton reads through common::corpus_file, which fails under HKGEN_REQUIRE_CORPUS=1
    assert!(hktypes::packfile::PackFile::read(&stock).is_ok());
    for (at, v) in [(0x1C, 0xFFFF_FFF0u32), (0x24, 0xFFFF_FFF0)] {
        let mut bytes = stock.clone();
        bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
        common::fuzz_seed(&bytes);
        let e = hktypes::packfile::PackFile::read(&bytes).map(|_| ()).unwrap_err();
        assert_eq!(e.offset(), Some(at as u64), "{e}");
        assert!(e.to_string().contains("offset 0xfffffff0 outside"), "{e}");
    }
}

#[test]
fn a_packfile_array_of_0x7fffffff_elements_fails_verify() {
    let Some(stock) = packfile_skeleton() else { return }; // not-a-skip: packfile_skeleton reads through common::corpus_file, which fails under HKGEN_REQUIRE_CORPUS=1
    let schemas = hkgen::reflection::check::ClassSchemas::load(&common::workspace_root().join("schemas")).unwrap();
    let v = hkgen::verify::Verifier { class_schemas: schemas, ..Default::default() };
    let set = CompendiumSet::new();
    assert!(v.verify("stock", &stock, &set).ok);
    // An array slot of __data__: a local fixup at the data pointer, then the count and the
    // capacity word (the count with the high bit set) after it.
    let file = hktypes::packfile::PackFile::read(&stock).unwrap();
    let i = file.section_index("__data__").unwrap();
    let sec = &file.sections[i];
    let d = sec.data().unwrap();
    let base = d.as_ptr() as usize - stock.as_ptr() as usize;
    let u32_at = |o: usize| d.get(o..o + 4).map(|b| u32::from_le_bytes(b.try_into().unwrap()));
    let count_at = sec
        .local
        .iter()
        .map(|f| f.src as usize + 8)
        .find(|&o| u32_at(o).is_some_and(|n| n > 0 && u32_at(o + 4) == Some(n | 0x8000_0000)))
        .expect("an hkArray in __data__");
    let mut bytes = stock.clone();
    bytes[base + count_at..base + count_at + 4].copy_from_slice(&0x7FFF_FFFFu32.to_le_bytes());
    common::fuzz_seed(&bytes);
    let r = v.verify("crafted", &bytes, &set);
    let e = r.error.clone().unwrap_or_default();
    eprintln!("0x7FFFFFFF elements: {e}");
    assert!(!r.ok);
    assert!(e.contains("2147483647") && e.contains("object "), "{e}");
}

// ---------------------------------------------------------------------------------------------
// 3. Data after the TAG0 section.

#[test]
fn bytes_after_the_tag0_section_are_kept_and_written_back() {
    let Some(corpus) = common::corpus() else { return };
    let path = corpus.join("AriT000__midir-NR/chr/c6211.behbnd/c6211/Export/c6211.hkx");
    let stock = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let set = CompendiumSet::new();
    // Helldivers 2 style: the TAG0 file, then data of its own.
    let trailing: Vec<u8> = (0..1000u32).map(|i| (i * 7 + 3) as u8).collect();
    let bytes = [&stock[..], &trailing].concat();
    common::fuzz_seed(&bytes);
    let file = TagFile::read(&bytes, &set).unwrap();
    assert_eq!(file.trailing, &trailing[..]);
    assert_eq!(hktypes::tagfile::write::rewrite(&file).unwrap(), bytes);
    let doc = hktypes::graph::TagfileDocument::read(&bytes, &set, &[]).unwrap();
    assert_eq!(doc.trailing(), &trailing[..]);
    assert_eq!(doc.write().unwrap(), bytes);
    let r = verify_bytes("helldivers-style", &bytes, &set);
    assert!(r.ok, "{:?}", r.error);
    assert_eq!((r.trailing_bytes, r.roundtrip), (Some(1000), Some("exact")));
    assert_eq!(verify_bytes("stock", &stock, &set).trailing_bytes, Some(0));
    // Bytes before the first section stay an error.
    let before = [&[0u8; 16][..], &stock].concat();
    assert!(TagFile::read(&before, &set).is_err());
    // A compendium takes no trailing bytes.
    let e = hktypes::tagfile::Compendium::read(&[&stock[..], b"x"].concat()).map(|_| ()).unwrap_err();
    assert!(e.offset().is_some(), "{e}");
}

// ---------------------------------------------------------------------------------------------
// 4. The checks added with the allocation audit.

/// The pointer test types, with an array of `Base` elements and its holder.
fn array_types() -> Vec<Ty> {
    let mut types = pointer_types();
    types.push(Ty { subtype: Some(2), ..ty("hkArray<Base>", FMT_ARRAY, 16, 8) }); // 10
    types.push(record("BaseRoot", 16, &[("bases", 0, 10)])); // 11
    types
}

/// A root object of type `root` whose array names item 2, a run of one element of type `elem`.
fn root_and_run(root: u32, elem: u32) -> Vec<u8> {
    let mut data = vec![0u8; 32];
    data[0..4].copy_from_slice(&2u32.to_le_bytes());
    tag0(&array_types(), &data, &[object(root, 0), run(elem, 16, 1)])
}

#[test]
fn an_array_whose_run_is_of_another_type_fails_verify() {
    // Root.holders is an hkArray<Holder>; its run holds an Other.
    verify_fails(
        "hkArray<Holder> -> a run of Other",
        &root_and_run(9, 4),
        &["item 1 Root[0].holders", "names item 2, a run of Other, as its elements, which are neither Holder"],
    );
    // hkArray<Base> naming a run of Other (a record of the same size, not derived from Base).
    verify_fails("hkArray<Base> -> a run of Other", &root_and_run(11, 4), &["item 1 BaseRoot[0].bases", "a run of Other", "neither Base"]);
    // A run of the element type, or of a class derived from it, passes the check.
    let set = CompendiumSet::new();
    for (root, elem) in [(9, 7), (11, 2), (11, 3)] {
        let bytes = root_and_run(root, elem);
        common::fuzz_seed(&bytes);
        let file = TagFile::read(&bytes, &set).unwrap();
        let mut layouts = file.layouts();
        let items = Items::read(&file, &mut layouts).unwrap();
        items.check_targets(&file, &mut layouts).unwrap_or_else(|e| panic!("root {root}, run of type {elem}: {e}"));
    }
}

#[test]
fn a_type_smaller_than_its_parent_is_a_type_table_error() {
    let set = CompendiumSet::new();
    let base = record("Base", 16, &[("a", 0, 1), ("b", 8, 1)]);
    for (size, ok) in [(8, false), (15, false), (16, true), (24, true)] {
        let types = [ty("int", FMT_INT32, 4, 4), base.clone(), Ty { parent: 2, ..record("Derived", size, &[]) }];
        let bytes = tag0(&types, &[0; 24], &[object(3, 0)]);
        common::fuzz_seed(&bytes);
        match TagFile::read(&bytes, &set) {
            Ok(_) => assert!(ok, "size {size}: read"),
            Err(e) => {
                assert!(!ok, "size {size}: {e}");
                assert_eq!(e.layer(), Layer::TypeTable, "{e}");
                assert_eq!(e.path(), ["Derived"], "{e}");
                assert!(e.section().is_some_and(|s| s.ends_with("TBDY")), "{e}");
                assert!(e.to_string().contains(&format!("size {size} is smaller than the 16 bytes of its parent Base")), "{e}");
                verify_fails("a type smaller than its parent", &bytes, &["Derived", "smaller than the 16 bytes of its parent Base"]);
            }
        }
    }
}

/// The 2014.1 class schemas, for the packfile tests.
fn verifier_2014() -> hkgen::verify::Verifier {
    let schemas = hkgen::reflection::check::ClassSchemas::load(&common::workspace_root().join("schemas")).unwrap();
    hkgen::verify::Verifier { class_schemas: schemas, ..Default::default() }
}

/// The skeleton packfile with the global fixup that names the `hkaSkeleton` object made to name
/// `to(objects)` instead (`objects`: each object's start and class).
fn skeleton_pointer_turned(stock: &[u8], to: impl Fn(&[(u32, String)]) -> u32) -> Vec<u8> {
    let mut file = hktypes::packfile::PackFile::read(stock).unwrap();
    let i = file.section_index("__data__").unwrap();
    let objects: Vec<(u32, String)> = file.objects(i).into_iter().map(|(at, c)| (at, c.name.clone())).collect();
    let skeleton = objects.iter().find(|(_, c)| c == "hkaSkeleton").expect("an hkaSkeleton").0;
    let target = to(&objects);
    let sec = &mut file.sections[i];
    let fixups: Vec<usize> = (0..sec.global.len()).filter(|&k| sec.global[k].section == i as u32 && sec.global[k].dst == skeleton).collect();
    assert_eq!(fixups.len(), 1, "one pointer names the skeleton");
    sec.global[fixups[0]].dst = target;
    file.to_bytes().unwrap()
}

#[test]
fn a_packfile_pointer_to_an_object_of_another_class_or_into_one_fails_verify() {
    let Some(stock) = packfile_skeleton() else { return }; // not-a-skip: packfile_skeleton reads through common::corpus_file, which fails under HKGEN_REQUIRE_CORPUS=1
    let v = verifier_2014();
    let set = CompendiumSet::new();
    let r = v.verify("stock", &stock, &set);
    assert!(r.ok, "{:?}", r.error);
    // hkaAnimationContainer.skeletons[0] made to name the container itself.
    let bytes = skeleton_pointer_turned(&stock, |objects| objects.iter().find(|(_, c)| c == "hkaAnimationContainer").unwrap().0);
    common::fuzz_seed(&bytes);
    let r = v.verify("crafted", &bytes, &set);
    let e = r.error.clone().unwrap_or_default();
    eprintln!("skeletons[0] -> the container: {e}");
    assert!(!r.ok);
    assert!(e.contains("(hkaAnimationContainer).skeletons[0]") && e.contains("a hkaAnimationContainer, which is neither a hkaSkeleton nor a class derived from it"), "{e}");
    assert!(e.contains("__data__"), "not located: {e}");
    // ... and 16 bytes into the skeleton.
    let bytes = skeleton_pointer_turned(&stock, |objects| objects.iter().find(|(_, c)| c == "hkaSkeleton").unwrap().0 + 16);
    common::fuzz_seed(&bytes);
    let r = v.verify("crafted", &bytes, &set);
    let e = r.error.clone().unwrap_or_default();
    eprintln!("skeletons[0] -> skeleton + 16: {e}");
    assert!(!r.ok);
    assert!(e.contains("(hkaAnimationContainer).skeletons[0]") && e.contains("points 0x10 bytes into object") && e.contains("where a hkaSkeleton object's start is expected"), "{e}");
}

/// One run of bytes named by the arrays of 20,000 elements: the dynamic decoder (`hkgen dump`)
/// copied it once per array, 10^10 bytes from a file of under a megabyte.
#[test]
fn a_run_named_by_many_arrays_is_not_copied_for_each() {
    let _s = serial();
    let (k, n) = (20_000u32, 500_000u32);
    let types = [
        ty("hkUint8", FMT_INT8, 1, 1),                                    // 1
        Ty { subtype: Some(1), ..ty("hkArray<hkUint8>", FMT_ARRAY, 16, 8) }, // 2
        record("R", 16, &[("bytes", 0, 2)]),                              // 3
        Ty { subtype: Some(3), ..ty("hkArray<R>", FMT_ARRAY, 16, 8) },    // 4
        record("Root", 16, &[("rs", 0, 4)]),                              // 5
    ];
    let mut data = vec![0u8; 16 + 16 * k as usize + n as usize];
    data[0..4].copy_from_slice(&2u32.to_le_bytes());
    for e in 0..k as usize {
        data[16 + 16 * e..20 + 16 * e].copy_from_slice(&3u32.to_le_bytes());
    }
    let bytes = tag0(&types, &data, &[object(5, 0), run(3, 16, k), run(1, 16 + 16 * k, n)]);
    let set = CompendiumSet::new();
    let e = bounded("a run named by 20 000 arrays: dump", &bytes, 10, || {
        let file = TagFile::read(&bytes, &set).unwrap();
        hktypes::dynamic::dump(&file).map(|_| ()).unwrap_err()
    });
    eprintln!("  {e}");
    assert!(e.offset().is_some() && e.to_string().contains("more values than"), "{e}");
    // The same run named once dumps.
    let mut once = data.clone();
    for e in 1..k as usize {
        once[16 + 16 * e..20 + 16 * e].copy_from_slice(&0u32.to_le_bytes());
    }
    let bytes = tag0(&types, &once, &[object(5, 0), run(3, 16, k), run(1, 16 + 16 * k, n)]);
    let file = TagFile::read(&bytes, &set).unwrap();
    assert_eq!(hktypes::dynamic::dump(&file).unwrap().len(), 1);
}

/// A packfile whose 10,000 bone names all point at one string of 100,000 bytes: the object
/// reader copied it once per name (10^9 bytes from a file of about 400 kB).
#[test]
fn a_packfile_string_named_by_many_members_is_not_copied_for_each() {
    use hktypes::packfile::objects::{MemberArray, PackfileDocument, MemberValue};
    let _s = serial();
    let Some(stock) = packfile_skeleton() else { return }; // not-a-skip: packfile_skeleton reads through common::corpus_file, which fails under HKGEN_REQUIRE_CORPUS=1
    let v = verifier_2014();
    let set = CompendiumSet::new();
    let sources = v.class_schemas.sources_for("2014.1");
    let mut doc = PackfileDocument::from_file_with(hktypes::packfile::PackFile::read(&stock).unwrap(), &sources).unwrap();
    let skeleton = doc.find("hkaSkeleton").next().expect("an hkaSkeleton");
    let long = vec![b'A'; 100_000];
    let bones: Vec<MemberValue> = (0..10_000)
        .map(|k| MemberValue::Struct(vec![MemberValue::Str(Some(if k == 0 { long.clone() } else { b"b".to_vec() })), MemberValue::Bool(0)]))
        .collect();
    *doc.field_mut(skeleton, "bones").expect("hkaSkeleton.bones") = MemberValue::Array(MemberArray::new(bones));
    let written = doc.write().unwrap();
    // Every bone name's local fixup made to point at the long name.
    let mut file = hktypes::packfile::PackFile::read(&written).unwrap();
    let i = file.section_index("__data__").unwrap();
    let d = file.sections[i].data().unwrap().to_vec();
    let sec = &mut file.sections[i];
    let long_at = sec.local.iter().find(|f| d[f.dst as usize..].starts_with(&long)).expect("the long name").dst;
    let mut turned = 0;
    for f in sec.local.iter_mut().filter(|f| d[f.dst as usize..].starts_with(b"b\0")) {
        f.dst = long_at;
        turned += 1;
    }
    assert_eq!(turned, 9_999);
    let bytes = file.to_bytes().unwrap();
    let r = bounded("10 000 names of one 100 000-byte string: verify", &bytes, 20, || v.verify("crafted", &bytes, &set));
    let e = r.error.clone().unwrap_or_default();
    eprintln!("  {e}");
    assert!(!r.ok);
    assert!(e.contains("of bytes of array elements and strings read exceeds") && e.contains("hkaSkeleton"), "{e}");
}

/// A packfile's own `__types__` (Dark Souls III c1400.HKX, 8-byte pointers) with every member
/// name made to point at one string of 200,000 bytes appended to the section: the importer
/// copied it once per member.
#[test]
fn a_types_section_name_shared_by_every_member_is_not_copied_for_each() {
    use hktypes::packfile::{LocalFixup, PackFile, SectionBody};
    let _s = serial();
    let Some(corpus) = common::corpus() else { return };
    let Some(stock) = common::corpus_file(&corpus, "monaxiastr__MonaxiaSouls/MonaxiaSouls/chr/c1400.chrbnd/chr/c1400/c1400.HKX") else {
        return; // not-a-skip: common::corpus_file fails under HKGEN_REQUIRE_CORPUS=1
    };
    let mut file = PackFile::read(&stock).unwrap();
    assert_eq!(file.pointer_size(), 8);
    let (schema, _) = hkgen::reflection::types_section::import(&file, "2014.1").unwrap();
    let ti = file.section_index("__types__").unwrap();
    let mut data = file.sections[ti].data().unwrap().to_vec();
    let u32_at = |d: &[u8], at: usize| u32::from_le_bytes(d[at..at + 4].try_into().unwrap());
    // The name slot of every hkClassMember: hkClass members at +40, their count at +48, each
    // member record 40 bytes with its name first.
    let local: std::collections::HashMap<u32, u32> = file.sections[ti].local.iter().map(|f| (f.src, f.dst)).collect();
    let mut name_slots = std::collections::HashSet::new();
    for (at, c) in file.objects(ti) {
        if c.name != "hkClass" {
            continue;
        }
        let Some(&base) = local.get(&(at + 40)) else { continue };
        for i in 0..u32_at(&data, at as usize + 48) {
            name_slots.insert(base + 40 * i);
        }
    }
    let members: usize = schema.classes.values().map(|c| c.members.len()).sum();
    assert_eq!(name_slots.len(), members);
    let long_at = data.len() as u32;
    data.extend(std::iter::repeat_n(b'A', 200_000));
    data.extend([0u8; 16]);
    let sec = &mut file.sections[ti];
    sec.body = SectionBody::Data(data.into());
    sec.local = sec.local.iter().map(|f| LocalFixup { src: f.src, dst: if name_slots.contains(&f.src) { long_at } else { f.dst } }).collect();
    let bytes = file.to_bytes().unwrap();
    let e = bounded("every member name one 200 000-byte string: __types__ import", &bytes, 10, || {
        let file = PackFile::read(&bytes).unwrap();
        hkgen::reflection::types_section::import(&file, "2014.1").map(|_| ()).unwrap_err()
    });
    eprintln!("  {e}");
    assert!(e.to_string().contains("bytes read per byte of the section"), "{e}");
}
