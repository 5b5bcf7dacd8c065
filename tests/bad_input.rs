//! Truncated, corrupt and hostile inputs: every TAG0 and TCM0 file of the corpus, mutated by a fixed,
//! seeded set of truncations, byte flips and inflated counts and sizes, must read to `Ok` or to a
//! located `Err` (a byte offset and, inside a section, the section path) — never a panic, a hang or
//! an allocation out of proportion to the input. The registry importer gets truncations and
//! corrupted attribute values of the Elden Ring registry dump.
//!
//! Allocation bound: a counting global allocator records the peak of live heap bytes while one
//! mutated input is read (`TagFile::read`, `Compendium::read`) and its table hashed (`check_table`).
//! The rise of that peak over what was live before must stay within `ALLOC_FACTOR` x input size +
//! `ALLOC_SLACK` (32 x + 1 MiB). A type table in memory is several times larger than its packed
//! bytes; measured, the stock files peak at 8.2 x their size (a compendium, which is all type table)
//! and their mutations at 12 x, so the bound leaves a margin of more than two. Crafted tables of
//! minimal records can reach the model's own floor, about 100 x (see `CRAFTED_ALLOC_FACTOR`); the
//! crafted inputs that used to take gigabytes or never finish now fail early with a located error.

mod common;

use hkgen::inputs::Compendia;
use hktypes::reflect::hash::{check_table, Recipe};
use hktypes::reflect::TypeTable;
use hktypes::tagfile::packed;
use hktypes::tagfile::section::{read_root, Section, SectionWriter};
use hktypes::tagfile::{Compendium, CompendiumSet, TagFile};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use hktypes::Layer;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

// ---------------------------------------------------------------------------------------------
// Counting allocator.

#[global_allocator]
static ALLOC: common::counting::Counting = common::counting::Counting;
use common::counting::measured;

const ALLOC_FACTOR: usize = 32;
const ALLOC_SLACK: usize = 1 << 20;

/// The two tests share the allocator's counters: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

// ---------------------------------------------------------------------------------------------
// Deterministic randomness (SplitMix64), seeded per file from its path.

struct Rng(u64);

impl Rng {
    fn new(seed: &str) -> Self {
        // FNV-1a of the seed string.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in seed.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
        Rng(h)
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    fn byte_nonzero(&mut self) -> u8 {
        (self.below(255) + 1) as u8
    }
}

// ---------------------------------------------------------------------------------------------
// The stock file's layout, from which the mutations are aimed.

#[derive(Clone, Debug)]
struct Sec {
    tag: [u8; 4],
    path: String,
    start: usize,
    end: usize,
    leaf: bool,
    /// Indices of the enclosing sections, outermost first.
    parents: Vec<usize>,
}

impl Sec {
    fn body(&self) -> std::ops::Range<usize> {
        self.start + 8..self.end
    }
}

fn layout(bytes: &[u8]) -> Vec<Sec> {
    fn walk(s: &Section<'_>, parents: &[usize], out: &mut Vec<Sec>) {
        let start = s.start as usize;
        let me = out.len();
        out.push(Sec {
            tag: s.tag.0,
            path: s.path.to_string(),
            start,
            end: start + 8 + s.body.len(),
            leaf: s.is_leaf(),
            parents: parents.to_vec(),
        });
        let mut p = parents.to_vec();
        p.push(me);
        for c in &s.children {
            walk(c, &p, out);
        }
    }
    let root = read_root(bytes).expect("stock file frames");
    let mut out = Vec::new();
    walk(&root, &[], &mut out);
    out
}

/// One mutation of a stock file.
#[derive(Clone, Debug)]
enum Mutation {
    /// The first `n` bytes, as they are.
    Truncate(usize),
    /// The first `n` bytes with every enclosing section's size cut to fit.
    TruncateFramed(usize),
    /// Section `sec` loses the last `k` bytes of its body; enclosing sizes follow, the rest stays.
    Shrink { sec: usize, k: usize },
    /// Bytes overwritten in place.
    Write(Vec<(usize, u8)>),
}

fn describe(m: &Mutation, secs: &[Sec]) -> String {
    let at = |o: usize| {
        let s = secs.iter().rev().find(|s| s.start <= o && o < s.end).map_or("-", |s| s.path.as_str());
        format!("{o:#x} ({s})")
    };
    match m {
        Mutation::Truncate(n) => format!("truncate to {n:#x}"),
        Mutation::TruncateFramed(n) => format!("truncate to {n:#x} with sizes fixed"),
        Mutation::Shrink { sec, k } => format!("shrink {} by {k}", secs[*sec].path),
        Mutation::Write(w) if w.len() <= 3 => {
            w.iter().map(|(o, b)| format!("[{}]={b:#04x}", at(*o))).collect::<Vec<_>>().join(" ")
        }
        Mutation::Write(w) => format!("{} bytes written from {}", w.len(), at(w[0].0)),
    }
}

fn write_be(out: &mut Vec<(usize, u8)>, at: usize, v: u32) {
    for (k, b) in v.to_be_bytes().into_iter().enumerate() {
        out.push((at + k, b));
    }
}

fn write_le(out: &mut Vec<(usize, u8)>, at: usize, v: u32) {
    for (k, b) in v.to_le_bytes().into_iter().enumerate() {
        out.push((at + k, b));
    }
}

/// Packed integers too large for anything they might count (and one invalid first byte).
const HUGE_PACKED: &[&[u8]] = &[
    &[0xBF, 0xFF],
    &[0xDF, 0xFF, 0xFF],
    &[0xE7, 0xFF, 0xFF, 0xFF],
    &[0xEF, 0xFF, 0xFF, 0xFF, 0xFF],
    &[0xF7, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
    &[0xF9, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
    &[0xFA],
];

const PACKED_TAGS: &[&[u8; 4]] = &[b"TNA1", b"TNAM", b"TBDY", b"TBOD", b"THSH"];
const STRING_TAGS: &[&[u8; 4]] = &[b"TSTR", b"TST1", b"FSTR", b"FST1"];

fn mutations(bytes: &[u8], secs: &[Sec], rng: &mut Rng) -> Vec<Mutation> {
    let len = bytes.len();
    let mut out = Vec::new();
    let cut = |out: &mut Vec<Mutation>, n: usize| {
        if n < len {
            out.push(Mutation::Truncate(n));
        }
    };
    // Raw truncations: inside the first headers and at a few points of the whole.
    for n in [0, 1, 3, 4, 7, 8, 9, 12, 15, 16, 17, 20, 24, len / 2, len - 1] {
        cut(&mut out, n);
    }
    // Framed truncations at every section boundary and inside every header.
    let mut points = Vec::new();
    for s in secs.iter().skip(1) {
        points.extend([s.start, s.start + 1, s.start + 4, s.start + 7, s.start + 8, s.start + 9, s.end - 1]);
        let b = s.body();
        if b.len() > 2 {
            points.extend([b.start + b.len() / 3, b.start + b.len() / 2, b.start + rng.below(b.len())]);
        }
    }
    points.sort();
    points.dedup();
    out.extend(points.into_iter().filter(|&n| n > 8 && n < len).map(Mutation::TruncateFramed));
    // Every leaf section shortened by 1, 2, 5 bytes, a third, and all of its body.
    for (i, s) in secs.iter().enumerate() {
        let b = s.body().len();
        if s.leaf && b > 0 {
            let mut ks = vec![1, 2, 5, b / 3, b];
            ks.retain(|&k| k > 0 && k <= b);
            ks.dedup();
            out.extend(ks.into_iter().map(|k| Mutation::Shrink { sec: i, k }));
        }
    }

    // Section headers: sizes inflated, shrunk, zeroed; the leaf flag flipped; the tag garbled.
    for s in secs {
        let word = u32::from_be_bytes(bytes[s.start..s.start + 4].try_into().unwrap());
        let flags = word & 0xC000_0000;
        let size = word & 0x3FFF_FFFF;
        for v in [
            flags | 0x3FFF_FFFF,
            flags | size.wrapping_add(1),
            flags | size.wrapping_sub(1),
            flags | size.wrapping_add(8),
            flags,
            flags | 7,
            flags | 8,
            word ^ 0x4000_0000,
            word ^ 0x8000_0000,
            0xFFFF_FFFF,
        ] {
            let mut w = Vec::new();
            write_be(&mut w, s.start, v);
            out.push(Mutation::Write(w));
        }
        out.push(Mutation::Write(vec![(s.start + 4 + rng.below(4), b'?')]));
    }

    // Packed integers overwritten with huge values: at the start of each packed sub-section (the
    // type and hash counts) and at random points of it (some of them record starts).
    for s in secs.iter().filter(|s| PACKED_TAGS.iter().any(|t| **t == s.tag)) {
        let b = s.body();
        let mut at = vec![b.start];
        for _ in 0..10 {
            at.push(b.start + rng.below(b.len()));
        }
        for (n, p) in at.into_iter().enumerate() {
            let enc: Vec<&[u8]> =
                if n == 0 { HUGE_PACKED.to_vec() } else { (0..2).map(|_| HUGE_PACKED[rng.below(HUGE_PACKED.len())]).collect() };
            for e in enc {
                let w: Vec<(usize, u8)> = e.iter().enumerate().map(|(k, &x)| (p + k, x)).filter(|(o, _)| *o < b.end).collect();
                out.push(Mutation::Write(w));
            }
        }
    }
    // String tables: terminators removed, bytes made invalid UTF-8.
    for s in secs.iter().filter(|s| STRING_TAGS.iter().any(|t| **t == s.tag)) {
        let b = s.body();
        if b.is_empty() {
            continue;
        }
        let w: Vec<(usize, u8)> = b.clone().filter(|&o| bytes[o] == 0).map(|o| (o, b'A')).collect();
        if !w.is_empty() {
            out.push(Mutation::Write(w));
        }
        out.push(Mutation::Write(vec![(b.start + rng.below(b.len()), 0xFF)]));
    }
    // Item records: type index, kind, offset and count made huge.
    for s in secs.iter().filter(|s| s.tag == *b"ITEM") {
        let n = s.body().len() / 12;
        if n == 0 {
            continue;
        }
        for r in [0, n - 1, rng.below(n)] {
            let at = s.body().start + 12 * r;
            for (k, v) in [(0, 0xFFFF_FFFF), (0, 0x10FF_FFFF), (4, 0xFFFF_FFFF), (8, 0xFFFF_FFFF)] {
                let mut w = Vec::new();
                write_le(&mut w, at + k, v);
                out.push(Mutation::Write(w));
            }
        }
    }
    // Patch records: the offset count made huge, off by one, or the type index huge.
    for s in secs.iter().filter(|s| s.tag == *b"PTCH") {
        let b = s.body();
        let mut starts = Vec::new();
        let mut o = b.start;
        while o + 8 <= b.end {
            starts.push(o);
            let n = u32::from_le_bytes(bytes[o + 4..o + 8].try_into().unwrap()) as usize;
            o += 8 + 4 * n;
        }
        let picks: Vec<usize> = match starts.len() {
            0 => Vec::new(),
            k => vec![starts[0], starts[k - 1], starts[rng.below(k)]],
        };
        for p in picks {
            let n = u32::from_le_bytes(bytes[p + 4..p + 8].try_into().unwrap());
            for v in [0xFFFF_FFFF, 0x3FFF_FFFF, n + 1, n.wrapping_sub(1)] {
                let mut w = Vec::new();
                write_le(&mut w, p + 4, v);
                out.push(Mutation::Write(w));
            }
            let mut w = Vec::new();
            write_le(&mut w, p, 0xFFFF_FFFF);
            out.push(Mutation::Write(w));
        }
    }

    // Inside DATA, which the item reader, the writer and the dynamic decoder look into: every
    // reference slot that PTCH lists set to a huge index, to the root (an object where an array or
    // string may stand), and to the last item; and random flips.
    let items_n = secs.iter().find(|s| s.tag == *b"ITEM").map_or(0, |s| s.body().len() / 12) as u32;
    if let (Some(d), Some(pt)) = (secs.iter().find(|s| s.tag == *b"DATA"), secs.iter().find(|s| s.tag == *b"PTCH")) {
        let (db, pb) = (d.body(), pt.body());
        let mut slots = Vec::new();
        let mut o = pb.start;
        while o + 8 <= pb.end {
            let n = u32::from_le_bytes(bytes[o + 4..o + 8].try_into().unwrap()) as usize;
            for k in 0..n {
                let at = o + 8 + 4 * k;
                if at + 4 <= pb.end {
                    slots.push(u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize);
                }
            }
            o += 8 + 4 * n;
        }
        for _ in 0..12.min(slots.len()) {
            let slot = db.start + slots[rng.below(slots.len())];
            if slot + 4 > db.end {
                continue;
            }
            for v in [0xFFFF_FFFF, 1, items_n.saturating_sub(1), items_n] {
                let mut w = Vec::new();
                write_le(&mut w, slot, v);
                out.push(Mutation::Write(w));
            }
        }
        if !db.is_empty() {
            for _ in 0..24 {
                let at = db.start + rng.below(db.len());
                out.push(Mutation::Write(vec![(at, bytes[at] ^ rng.byte_nonzero())]));
            }
        }
    }

    // Random byte flips outside the DATA body.
    let data = secs.iter().find(|s| s.tag == *b"DATA").map(|s| s.body());
    let outside: Vec<std::ops::Range<usize>> = match &data {
        Some(d) => vec![0..d.start, d.end..len],
        None => vec![0..len],
    };
    let total: usize = outside.iter().map(|r| r.len()).sum();
    let pick = |rng: &mut Rng| {
        let mut k = rng.below(total);
        for r in &outside {
            if k < r.len() {
                return r.start + k;
            }
            k -= r.len();
        }
        0
    };
    for _ in 0..48 {
        let o = pick(rng);
        let b = match rng.below(4) {
            0 => 0x00,
            1 => 0xFF,
            _ => bytes[o] ^ rng.byte_nonzero(),
        };
        if b != bytes[o] {
            out.push(Mutation::Write(vec![(o, b)]));
        }
    }
    // More single flips inside the packed sub-sections, where most of the decoding is.
    for s in secs.iter().filter(|s| PACKED_TAGS.iter().any(|t| **t == s.tag) && !s.body().is_empty()) {
        for _ in 0..24 {
            let o = s.body().start + rng.below(s.body().len());
            out.push(Mutation::Write(vec![(o, bytes[o] ^ rng.byte_nonzero())]));
        }
    }
    for _ in 0..16 {
        let n = 2 + rng.below(15);
        let w = (0..n).map(|_| {
            let o = pick(rng);
            (o, bytes[o] ^ rng.byte_nonzero())
        });
        out.push(Mutation::Write(w.collect()));
    }
    out
}

/// Builds (or, for an in-place write, patches) the mutated bytes and hands them to `f`.
fn with_mutated<R>(stock: &[u8], work: &mut Vec<u8>, secs: &[Sec], m: &Mutation, f: impl FnOnce(&[u8]) -> R) -> R {
    let set_size = |buf: &mut [u8], s: &Sec, size: usize| {
        let word = u32::from_be_bytes(buf[s.start..s.start + 4].try_into().unwrap());
        let word = (word & 0xC000_0000) | (size as u32 & 0x3FFF_FFFF);
        buf[s.start..s.start + 4].copy_from_slice(&word.to_be_bytes());
    };
    match m {
        Mutation::Truncate(n) => f(&stock[..*n]),
        Mutation::TruncateFramed(n) => {
            let mut buf = stock[..*n].to_vec();
            for s in secs.iter().filter(|s| s.start + 4 <= *n && *n < s.end) {
                set_size(&mut buf, s, n - s.start);
            }
            f(&buf)
        }
        Mutation::Shrink { sec, k } => {
            let s = &secs[*sec];
            let mut buf = Vec::with_capacity(stock.len() - k);
            buf.extend_from_slice(&stock[..s.end - k]);
            buf.extend_from_slice(&stock[s.end..]);
            set_size(&mut buf, s, s.end - s.start - k);
            for &p in &s.parents {
                set_size(&mut buf, &secs[p], secs[p].end - secs[p].start - k);
            }
            f(&buf)
        }
        Mutation::Write(w) => {
            for &(o, b) in w {
                work[o] = b;
            }
            let r = f(work);
            for &(o, _) in w {
                work[o] = stock[o];
            }
            r
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Reading one input.

#[derive(Default)]
struct Tally {
    inputs: usize,
    ok: usize,
    errors: usize,
    hashed: usize,
    hash_errors: usize,
    failures: Vec<String>,
    samples: Vec<String>,
    section_only: usize,
    max_ratio: (f64, String),
    /// Errors by the layer that failed.
    by_layer: HashMap<Layer, usize>,
}

impl Tally {
    fn fail(&mut self, msg: String) {
        if self.failures.len() < 200 {
            self.failures.push(msg);
        }
    }
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned()).unwrap_or_default()
}

/// Errors seen, to print every 997th as a sample.
static SEEN: AtomicUsize = AtomicUsize::new(0);

/// Checks one read error: it must say where it happened (the layer it comes from is in its type,
/// `hktypes::Error`'s variant, so every error has one).
fn check_error(e: &hktypes::Error, what: &str, tally: &mut Tally) {
    let shown = e.to_string();
    tally.errors += 1;
    *tally.by_layer.entry(e.layer()).or_default() += 1;
    if e.offset().is_none() && e.section().is_none() {
        tally.fail(format!("{what}: unlocated error ({} layer): {shown}", e.layer()));
    } else if e.offset().is_none() {
        // Located by section only (a property of the whole table, such as a parent cycle).
        tally.section_only += 1;
    }
    if SEEN.fetch_add(1, Ordering::Relaxed) % 997 == 0 {
        tally.samples.push(format!("{what}: [{}] {shown}", e.layer()));
    }
}

/// Hashes a table that read, unless it is one already hashed (a compendium's, or the stock file's).
fn hash(table: &TypeTable, recipes: &[Recipe], what: &str, tally: &mut Tally) {
    for &r in recipes {
        tally.hashed += 1;
        if let Err(e) = check_table(table, r) {
            tally.hash_errors += 1;
            let shown = e.to_string();
            tally.samples.push(format!("{what}: hash: {shown}"));
            if e.path().is_empty() {
                tally.fail(format!("{what}: hash error names no type: {shown}"));
            }
        }
    }
}

struct Stock<'a> {
    set: &'a CompendiumSet,
    /// The stock file's own table, to skip re-hashing an unchanged one.
    table: Option<Arc<TypeTable>>,
    compendium: Option<Arc<TypeTable>>,
    /// The stock file's `DATA` and `ITEM` records, to skip rewriting and decoding an input whose
    /// items are unchanged (the mutation lies in the type section, already covered).
    items: Option<(Vec<u8>, Vec<hktypes::tagfile::index::Item>)>,
}

fn read_all(input: &[u8], stock: &Stock<'_>, what: &str, factor: usize, tally: &mut Tally) {
    tally.inputs += 1;
    let run = catch_unwind(AssertUnwindSafe(|| {
        let mut local = Tally::default();
        let (_, peak) = measured(|| {
            match TagFile::read(input, stock.set) {
                Ok(t) => {
                    local.ok += 1;
                    let known = stock.table.as_ref().is_some_and(|s| Arc::ptr_eq(s, &t.types) || **s == *t.types)
                        || !stock.set.is_empty() && matches!(t.source, hktypes::tagfile::TypeSource::Compendium { .. });
                    if !known {
                        hash(&t.types, &[Recipe::for_sdk(&t.sdk)], what, &mut local);
                    }
                    // The items and the writer's walk, and decoding every object.
                    let same_items = stock.items.as_ref().is_some_and(|(d, i)| d == t.data && *i == t.items) && known;
                    if !same_items {
                        match hktypes::tagfile::write::rewrite(&t) {
                            // What the writer writes, the reader reads (the fuzzers' first finding
                            // was a written file the reader refused).
                            Ok(out) => match TagFile::read(&out, stock.set).and_then(|r| hktypes::tagfile::write::rewrite(&r)) {
                                Ok(again) if again == out => local.ok += 1,
                                Ok(_) => local.fail(format!("{what}: rewriting the written file changes it")),
                                Err(e) => local.fail(format!("{what}: the written file does not read back: {e}")),
                            },
                            Err(e) => check_error(&e, &format!("{what}: rewrite"), &mut local),
                        }
                        match hktypes::dynamic::dump(&t) {
                            Ok(_) => local.ok += 1,
                            Err(e) => check_error(&e, &format!("{what}: dump"), &mut local),
                        }
                    }
                }
                Err(e) => check_error(&e, &format!("{what}: TagFile"), &mut local),
            }
            match Compendium::read(input) {
                Ok(c) => {
                    local.ok += 1;
                    let known = stock.compendium.as_ref().is_some_and(|s| **s == *c.types);
                    if !known {
                        hash(&c.types, &Recipe::ALL, what, &mut local);
                    }
                }
                Err(e) => check_error(&e, &format!("{what}: Compendium"), &mut local),
            }
        });
        (local, peak)
    }));
    match run {
        Ok((local, peak)) => {
            tally.ok += local.ok;
            tally.errors += local.errors;
            tally.section_only += local.section_only;
            for (layer, n) in local.by_layer {
                *tally.by_layer.entry(layer).or_default() += n;
            }
            tally.hashed += local.hashed;
            tally.hash_errors += local.hash_errors;
            for f in local.failures {
                tally.fail(f);
            }
            tally.samples.extend(local.samples);
            let bound = factor * input.len() + ALLOC_SLACK;
            if peak > bound {
                tally.fail(format!("{what}: heap peak rose by {peak} bytes, over the bound {bound} for {} input bytes", input.len()));
            }
            let ratio = peak as f64 / input.len().max(1) as f64;
            if ratio > tally.max_ratio.0 && input.len() > 4096 {
                tally.max_ratio = (ratio, what.to_owned());
            }
        }
        Err(p) => tally.fail(format!("{what}: PANIC {}", panic_message(&*p))),
    }
}

#[test]
fn mutated_tagfiles_and_compendia_fail_cleanly() {
    let _serial = serial();
    let Some(corpus) = common::corpus() else { return };
    let started = std::time::Instant::now();
    let entries: Vec<_> =
        common::manifest(&corpus).into_iter().filter(|e| e.format == "tag0" || e.format == "tcm0").collect();
    let mut compendia = Compendia::default();
    for e in entries.iter().filter(|e| e.format == "tcm0") {
        let bytes = std::fs::read(&e.path).expect("read compendium");
        compendia.add(&e.path, Compendium::read(&bytes).expect("stock compendium reads"));
    }

    let mut tally = Tally::default();
    let mut stock_ratio: (f64, String) = (0.0, String::new());
    let empty = CompendiumSet::new();
    for e in &entries {
        let bytes = std::fs::read(&e.path).expect("read corpus file");
        let set = compendia.set_for(&e.path);
        let secs = layout(&bytes);
        // The stock file itself: reads, and sets the baseline ratio.
        let (stock_table, compendium_table, stock_items, peak) = {
            let (r, peak) = measured(|| {
                if e.format == "tag0" {
                    let t = TagFile::read(&bytes, &set).unwrap_or_else(|err| panic!("{}: stock file: {err}", e.relpath));
                    let own = matches!(t.source, hktypes::tagfile::TypeSource::Own).then(|| Arc::clone(&t.types));
                    (own, None, Some((t.data.to_vec(), t.items.clone())))
                } else {
                    let c = Compendium::read(&bytes).unwrap_or_else(|err| panic!("{}: stock file: {err}", e.relpath));
                    (None, Some(c.types), None)
                }
            });
            (r.0, r.1, r.2, peak)
        };
        let ratio = peak as f64 / bytes.len() as f64;
        if ratio > stock_ratio.0 {
            stock_ratio = (ratio, e.relpath.clone());
        }
        let stock = Stock { set: &set, table: stock_table, compendium: compendium_table, items: stock_items };
        let mut rng = Rng::new(&e.relpath);
        let list = mutations(&bytes, &secs, &mut rng);
        let mut work = bytes.clone();
        for m in &list {
            let what = format!("{} [{}]", e.relpath, describe(m, &secs));
            with_mutated(&bytes, &mut work, &secs, m, |input| read_all(input, &stock, &what, ALLOC_FACTOR, &mut tally));
        }
        // A TCRF file without its compendium.
        if e.format == "tag0" {
            let stock = Stock { set: &empty, table: None, compendium: None, items: None };
            read_all(&bytes, &stock, &format!("{} [no compendia]", e.relpath), ALLOC_FACTOR, &mut tally);
        }
    }
    for s in tally.samples.iter().take(250) {
        eprintln!("sample: {s}");
    }
    eprintln!(
        "{} files, {} mutated inputs: {} reads ok, {} located errors ({} by section only), {} tables hashed ({} hash errors); \
         stock peak {:.1} x input ({}), mutated peak {:.1} x input ({}); bound {ALLOC_FACTOR} x + {ALLOC_SLACK}; {:.1} s",
        entries.len(),
        tally.inputs,
        tally.ok,
        tally.errors,
        tally.section_only,
        tally.hashed,
        tally.hash_errors,
        stock_ratio.0,
        stock_ratio.1,
        tally.max_ratio.0,
        tally.max_ratio.1,
        started.elapsed().as_secs_f64()
    );
    let layers = [Layer::Container, Layer::TypeTable, Layer::Items, Layer::Values, Layer::Writer];
    let by_layer: Vec<String> = layers.iter().map(|l| format!("{l} {}", tally.by_layer.get(l).copied().unwrap_or(0))).collect();
    eprintln!("errors by layer: {}", by_layer.join(", "));
    assert!(stock_ratio.0 * 2.0 < ALLOC_FACTOR as f64, "stock files need half the allocation bound at most");
    assert!(tally.failures.is_empty(), "{} failures:\n{}", tally.failures.len(), tally.failures.join("\n"));
    // The mutations reach the framing, the type tables and the item tables: each fails in its layer.
    for l in [Layer::Container, Layer::TypeTable, Layer::Items] {
        assert!(tally.by_layer.get(&l).is_some_and(|&n| n > 0), "no mutation failed in the {l} layer: {}", by_layer.join(", "));
    }
}

// ---------------------------------------------------------------------------------------------
// The registry importer.

/// A registry error must say where: a line (`line N:`), or roxmltree's `row:column`.
fn registry_error_located(msg: &str) -> bool {
    msg.contains("line ") || msg.split(|c: char| !c.is_ascii_digit() && c != ':').any(|w| {
        let mut it = w.split(':');
        matches!((it.next(), it.next()), (Some(a), Some(b)) if !a.is_empty() && !b.is_empty())
    })
}

#[test]
fn truncated_and_corrupted_registry_fails_cleanly() {
    let _serial = serial();
    let Some(corpus) = common::corpus() else { return };
    let path = common::classdata(&corpus).join("eldenring-2018.1-registry.xml");
    let text = std::fs::read_to_string(&path).expect("registry present beside the corpus");
    let text = text.trim_start_matches('\u{feff}');
    let started = std::time::Instant::now();

    let mut inputs: Vec<(String, String)> = Vec::new();
    // Truncations: inside the XML declaration, the root tag, the first type, mid-file, near the end.
    for n in [0, 10, 60, 100, 300, text.len() / 3, text.len() / 2, text.len() - 30, text.len() - 1] {
        let mut n = n.min(text.len());
        while !text.is_char_boundary(n) {
            n -= 1;
        }
        inputs.push((format!("truncated to {n}"), text[..n].to_owned()));
    }
    // Corrupted attribute values, each replacing its first occurrence.
    let corrupt: &[(&str, &str)] = &[
        ("Name=\"hkBaseObject\" Parent=\"0\"", "Name=\"hkBaseObject\" Parent=\"999999\""),
        ("Name=\"hkBaseObject\" Parent=\"0\"", "Name=\"hkBaseObject\" Parent=\"-1\""),
        ("Name=\"hkReferencedObject\" Parent=\"2006\"", "Name=\"hkReferencedObject\" Parent=\"2006x\""),
        // A parent cycle: hkBaseObject's parent made hkReferencedObject, whose parent it is.
        ("Optionals=\"79791833\"", "Optionals=\"4294967295\""),
        ("Optionals=\"79791833\"", "Optionals=\"99999999999\""),
        ("Size=\"24\" Alignment=\"8\"", "Size=\"24\" Alignment=\"99999999999999999999\""),
        ("Size=\"24\" Alignment=\"8\"", "Size=\"240\" Alignment=\"8\""),
        ("Hash=\"2726127122\"", "Hash=\"1\""),
        ("Kind=\"Type\"", "Kind=\"Nonsense\""),
        ("Kind=\"Type\" Value=\"", "Kind=\"Type\" Value=\"9"),
        ("Id=\"1435\"", "Id=\"1777\""),
        ("<HavokTypeRegistry Version=\"20180100\">", "<HavokTypeRegistry>"),
        ("<HavokTypeRegistry", "<HavokTypeRegistr"),
    ];
    for (from, to) in corrupt {
        assert!(text.contains(from), "registry no longer contains {from:?}");
        inputs.push((format!("{from:?} -> {to:?}"), text.replacen(from, to, 1)));
    }
    // hkBaseObject (parent 0) made a child of hkReferencedObject (whose parent chain reaches it).
    if let Some(id) = text.split("Name=\"hkReferencedObject\"").next().and_then(|s| s.rsplit("Id=\"").next()) {
        let id = id.trim_end_matches(['"', ' ']);
        inputs.push((
            "parent cycle".into(),
            text.replacen("Name=\"hkBaseObject\" Parent=\"0\"", &format!("Name=\"hkBaseObject\" Parent=\"{id}\""), 1),
        ));
    }

    let mut failures = Vec::new();
    for (what, xml) in &inputs {
        let t = std::time::Instant::now();
        let run = || {
            hkgen::registry::import(xml).map(|r| {
                let hashes = check_table(&r.types, Recipe::for_sdk(&r.sdkv)).map(|c| c.matched);
                (r.types.len(), hashes)
            })
        };
        match catch_unwind(AssertUnwindSafe(run)) {
            Ok(Ok((n, hashes))) => {
                eprintln!("registry [{what}]: ok, {n} types, hashes {hashes:?} ({:.2} s)", t.elapsed().as_secs_f64());
                if let Err(e) = hashes {
                    if e.path().is_empty() {
                        failures.push(format!("[{what}]: hash error names no type: {e}"));
                    }
                }
            }
            Ok(Err(e)) => {
                let msg = e.to_string();
                eprintln!("registry [{what}]: {msg} ({:.2} s)", t.elapsed().as_secs_f64());
                if !registry_error_located(&msg) {
                    failures.push(format!("[{what}]: unlocated error: {msg}"));
                }
            }
            Err(p) => failures.push(format!("[{what}]: PANIC {}", panic_message(&*p))),
        }
    }
    eprintln!("{} registry inputs in {:.1} s", inputs.len(), started.elapsed().as_secs_f64());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// Crafted hostile tables: each of these once took time or memory out of all proportion.

/// A TAG0 file whose `TYPE` section holds the given sub-sections.
fn crafted_tag0(type_children: &[(&[u8; 4], Vec<u8>)]) -> Vec<u8> {
    let mut w = SectionWriter::new();
    w.begin(b"TAG0", 0);
    w.leaf(b"SDKV", b"20180100");
    w.leaf(b"DATA", &[]);
    w.begin(b"TYPE", 0);
    for (tag, body) in type_children {
        w.leaf(tag, body);
    }
    w.end();
    w.begin(b"INDX", 0);
    w.leaf(b"ITEM", &[]);
    w.end();
    w.end();
    w.finish()
}

fn packed_all(values: impl IntoIterator<Item = u64>) -> Vec<u8> {
    let mut out = Vec::new();
    for v in values {
        packed::write(&mut out, v);
    }
    out
}

/// TNA1 of `n` types (plus the null one), each named string 0, with the given parameters.
fn names(n: u64, params: impl Fn(u64) -> Vec<u64>) -> Vec<u8> {
    let mut out = packed_all([n + 1]);
    for k in 1..=n {
        let p = params(k);
        packed::write(&mut out, 0);
        packed::write(&mut out, p.len() as u64 / 2);
        for v in p {
            packed::write(&mut out, v);
        }
    }
    out
}

fn crafted() -> Vec<(&'static str, Vec<u8>)> {
    let long = |n: usize| {
        let mut s = vec![b'A'; n];
        s.push(0);
        s
    };
    let mut out = Vec::new();
    // Every type named by one 60 000-byte string: 1.8 GB of copies.
    out.push((
        "one long name for every type",
        crafted_tag0(&[
            (b"TSTR", long(60_000)),
            (b"FSTR", vec![0]),
            (b"TNA1", names(30_000, |_| vec![])),
            (b"TBDY", vec![]),
        ]),
    ));
    // One type of 65 535 fields, each named by one 60 000-byte string: 3.9 GB of copies.
    let mut tbdy = packed_all([1, 0, 32, 0xFFFF]);
    for _ in 0..0xFFFF {
        tbdy.extend(packed_all([0, 0x20, 0, 0]));
    }
    out.push((
        "one long name for every field",
        crafted_tag0(&[(b"TSTR", long(10)), (b"FSTR", long(60_000)), (b"TNA1", names(1, |_| vec![])), (b"TBDY", tbdy)]),
    ));
    // Type k takes type k-1 twice: 2^40 template arguments to hash and to name. Every type stores
    // a (wrong) hash, so that check_table hashes them and names the mismatches.
    let n = 40;
    let mut thsh = packed_all([n]);
    for k in 1..=n {
        packed::write(&mut thsh, k);
        thsh.extend(0u32.to_le_bytes());
    }
    out.push((
        "template arguments that double with every type",
        crafted_tag0(&[
            (b"TSTR", b"T\0tA\0tB\0".to_vec()),
            (b"FSTR", vec![0]),
            (b"TNA1", names(n, |k| if k == 1 { vec![] } else { vec![1, k - 1, 2, k - 1] })),
            (b"TBDY", vec![]),
            (b"THSH", thsh),
        ]),
    ));
    // 20 000 types that take one type of a 1 000-byte name, each with a wrong hash: the list of
    // mismatches names each in full (the longest that full names get).
    let n = 20_000;
    let mut tstr = long(1_000);
    tstr.extend(b"X\0tT\0");
    let mut thsh = packed_all([n]);
    for k in 2..=n + 1 {
        packed::write(&mut thsh, k);
        thsh.extend(0u32.to_le_bytes());
    }
    let mut tna1 = packed_all([n + 2, 0, 0]);
    for _ in 0..n {
        tna1.extend(packed_all([1, 1, 2, 1]));
    }
    out.push((
        "20 000 types named after one long one",
        crafted_tag0(&[(b"TSTR", tstr), (b"FSTR", vec![0]), (b"TNA1", tna1), (b"TBDY", vec![]), (b"THSH", thsh)]),
    ));
    // A parent chain 5 000 types long, each type with (no) fields: walking every type's ancestry
    // took cubic time.
    let n = 5_000;
    let tbdy: Vec<u8> = (1..=n).flat_map(|k| packed_all([k, k - 1, 32, 0])).collect();
    let mut thsh = packed_all([1]);
    packed::write(&mut thsh, n);
    thsh.extend(0u32.to_le_bytes());
    out.push((
        "a parent chain of 5000 types",
        crafted_tag0(&[
            (b"TSTR", long(1)),
            (b"FSTR", vec![0]),
            (b"TNA1", names(n, |_| vec![])),
            (b"TBDY", tbdy),
            (b"THSH", thsh),
        ]),
    ));
    // Type k has one field of type k+1, 2 000 deep: the hash recursion must stop, not overflow.
    let n = 2_000;
    let tbdy: Vec<u8> =
        (1..=n).flat_map(|k| if k < n { packed_all([k, 0, 32, 1, 0, 0x20, 0, k + 1]) } else { packed_all([k, 0, 0]) }).collect();
    let mut thsh = packed_all([1]);
    packed::write(&mut thsh, 1);
    thsh.extend(0u32.to_le_bytes());
    out.push((
        "field types 2000 deep",
        crafted_tag0(&[
            (b"TSTR", long(1)),
            (b"FSTR", long(1)),
            (b"TNA1", names(n, |_| vec![])),
            (b"TBDY", tbdy),
            (b"THSH", thsh),
        ]),
    ));
    // 50 000 types of two bytes each: the largest table per byte that a file can hold.
    out.push((
        "50 000 two-byte types",
        crafted_tag0(&[(b"TSTR", vec![0]), (b"FSTR", vec![0]), (b"TNA1", names(50_000, |_| vec![])), (b"TBDY", vec![])]),
    ));
    // 50 000 empty sections inside one.
    let mut w = SectionWriter::new();
    w.begin(b"TAG0", 0);
    for _ in 0..50_000 {
        w.leaf(b"TPAD", &[]);
    }
    w.end();
    out.push(("50 000 empty sections", w.finish()));
    // Sections nested 20 deep.
    let mut w = SectionWriter::new();
    for _ in 0..20 {
        w.begin(b"TAG0", 0);
    }
    for _ in 0..20 {
        w.end();
    }
    out.push(("sections nested 20 deep", w.finish()));
    out
}

/// Crafted inputs may reach the floors that the in-memory model sets: a 160-byte `TypeDef` for each
/// two-byte `TNA1` record (84 x measured), and in `check_table`'s list of mismatches a full name of
/// up to `MAX_FULL_NAME` (1 kB) for each type record of ten bytes or so (125 x measured). Their bound
/// is therefore wider than that of the stock mutations.
const CRAFTED_ALLOC_FACTOR: usize = 160;

#[test]
fn crafted_hostile_tables_fail_cleanly() {
    let _serial = serial();
    let empty = CompendiumSet::new();
    let stock = Stock { set: &empty, table: None, compendium: None, items: None };
    let mut tally = Tally::default();
    for (what, bytes) in crafted() {
        let t = std::time::Instant::now();
        let before = tally.failures.len();
        read_all(&bytes, &stock, what, CRAFTED_ALLOC_FACTOR, &mut tally);
        let peak = std::mem::take(&mut tally.max_ratio);
        let outcome = match TagFile::read(&bytes, &empty) {
            Ok(f) => {
                let hashes = check_table(&f.types, Recipe::InheritedFields).map(|c| c.mismatches.len());
                let longest = f.types.iter().map(|(i, _)| f.types.full_name(i).len()).max().unwrap_or(0);
                format!("reads, {} types, hash check {:?}, longest full name {longest}", f.types.len(), hashes.map_err(|e| e.to_string()))
            }
            Err(e) => e.to_string(),
        };
        eprintln!("crafted [{what}] ({} bytes, {:.2} s, peak {:.1} x): {outcome}", bytes.len(), t.elapsed().as_secs_f64(), peak.0);
        for f in &tally.failures[before..] {
            eprintln!("  FAILED: {f}");
        }
    }
    assert!(tally.failures.is_empty(), "{}", tally.failures.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// Packfile XML.

/// Bytes that XML and the value texts care about, put in place of others.
const XML_BYTES: &[u8] = b"<>\"&/#()09- =!?;x\xFF";

/// Texts put in place of a word (a number, a name, a count, an object name).
const XML_WORDS: &[&str] =
    &["-1", "99999999999999999999", "4294967295", "1e39", "nan", "#9999", "null", "(1 2)", "", "&lol;", "hkNoSuchClass", "<hkobject>", "]]>", "<!--", "0x", "1.#INF00"];

/// Peak heap while one XML input is read and written again: at most this many times its size,
/// plus `ALLOC_SLACK` (the classes copied from the schemas). Every stock input peaks within half
/// of that bound. (16 until HavokLib's 5.5 animation XML files read: some of their mutants peak
/// at 21.9 x, twice their stock peak.)
const XML_ALLOC_FACTOR: usize = 24;

/// A word at or after `at`: a run of letters, digits and `#._-`.
fn word_at(text: &[u8], at: usize) -> Option<(usize, usize)> {
    let is_word = |b: &u8| b.is_ascii_alphanumeric() || b"#._-".contains(b);
    let start = at + text.get(at..)?.iter().position(is_word)?;
    let len = text[start..].iter().take_while(|b| is_word(b)).count();
    Some((start, start + len))
}

/// Mutations of one XML text: truncations, bytes replaced, words replaced; where it has `hkgen:`
/// notes, words inside them replaced too.
fn xml_mutations(text: &[u8], rng: &mut Rng) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for _ in 0..6 {
        let n = rng.below(text.len());
        out.push((format!("truncated to {n}"), text[..n].to_vec()));
    }
    for _ in 0..24 {
        let (at, b) = (rng.below(text.len()), XML_BYTES[rng.below(XML_BYTES.len())]);
        let mut m = text.to_vec();
        m[at] = b;
        out.push((format!("byte {at:#x} = {b:#04x}"), m));
    }
    let notes: Vec<usize> = text.windows(6).enumerate().filter(|(_, w)| w == b"hkgen:").map(|(i, _)| i).collect();
    for k in 0..24 + if notes.is_empty() { 0 } else { 16 } {
        let at = if k >= 24 { notes[rng.below(notes.len())] + 6 + rng.below(60) } else { rng.below(text.len()) };
        let Some((a, b)) = word_at(text, at) else { continue };
        let w = XML_WORDS[rng.below(XML_WORDS.len())];
        let mut m = text[..a].to_vec();
        m.extend_from_slice(w.as_bytes());
        m.extend_from_slice(&text[b..]);
        out.push((format!("word {a:#x}..{b:#x} = {w:?}"), m));
    }
    out
}

/// Every `<hkpackfile>` XML file of the corpus, and the XML written from four corpus packfiles
/// whose XML carries `hkgen:` notes (kept bytes, `__types__` records, a pointer into
/// `__types__`, an object cut off by the end of its file), mutated: each mutant reads to a
/// document that goes XML -> binary -> XML unchanged, or to an error that names its line and
/// column (or a byte offset); no panic, and no allocation beyond `XML_ALLOC_FACTOR` x its size.
#[test]
fn mutated_packfile_xml_fails_cleanly() {
    use hktypes::packfile::{objects::PackfileDocument, xml, PackFile};
    let _serial = serial();
    let Some(corpus) = common::corpus() else { return };
    let started = std::time::Instant::now();
    let schemas = hkgen::reflection::check::ClassSchemas::load(&common::workspace_root().join("schemas")).expect("schemas");
    let sdk_of = hkgen::reflection::sources::sdk_of_contents_version;
    let mut inputs: Vec<(String, Vec<u8>)> = Vec::new();
    for e in common::manifest(&corpus).into_iter().filter(|e| e.format == "xml") {
        let bytes = common::corpus_file(&corpus, &e.relpath).expect("corpus XML file");
        inputs.push((e.relpath, bytes));
    }
    for rel in [
        "Pandora-Behaviour-Engine-Plus/skeleton.hkx",
        "soulstruct-havok/PTDE__c2240__c2240.hkx",
        "DSAnimStudio/skeleton.hkx",
        "hkxpack/test-base.hkx",
    ] {
        let bytes = common::corpus_file(&corpus, rel).expect("corpus packfile");
        let file = PackFile::read(&bytes).expect("stock packfile reads");
        let sdk = sdk_of(&file.contents_version());
        let doc = PackfileDocument::from_file_with(file, &schemas.sources_for(&sdk)).expect("stock packfile reads into objects");
        let text = xml::write(&doc, xml::WriteOptions::default()).expect("an all-typed packfile writes as XML");
        assert!(text.contains("<!-- hkgen:"), "{rel}: its XML has no hkgen note");
        inputs.push((format!("{rel} as XML"), text.into_bytes()));
    }
    let read = |bytes: &[u8]| xml::read_with(bytes, |c| schemas.sources_for(&sdk_of(c)), xml::ReadOptions::default());
    let (mut tried, mut ok, mut located, mut stock_ratio, mut max_ratio) = (0, 0, 0, 0.0f64, (0.0f64, String::new()));
    let mut failures = Vec::new();
    for (name, text) in &inputs {
        let (_, peak) = measured(|| read(text).map(|d| d.write()));
        stock_ratio = stock_ratio.max(peak as f64 / text.len() as f64);
        if 2 * peak > XML_ALLOC_FACTOR * text.len() + ALLOC_SLACK {
            failures.push(format!("{name}: the stock input peaks at {peak} bytes, more than half the bound"));
        }
        let mut rng = Rng::new(name);
        for (what, m) in xml_mutations(text, &mut rng) {
            tried += 1;
            let what = format!("{name} [{what}]");
            let run = catch_unwind(AssertUnwindSafe(|| {
                measured(|| {
                    let doc = read(&m)?;
                    let text = xml::write(&doc, xml::WriteOptions::default())?;
                    let bin = doc.write()?;
                    let again = PackfileDocument::from_file_with(PackFile::read(&bin)?, &[&doc.classes])?;
                    let text2 = xml::write(&again, xml::WriteOptions::default())?;
                    // (A NaN real is not equal to itself: then the binary written again decides.)
                    Ok::<bool, hktypes::Error>((again.objects == doc.objects || again.write()? == bin) && text2 == text)
                })
            }));
            match run {
                Err(p) => failures.push(format!("{what}: PANIC {}", panic_message(&*p))),
                Ok((result, peak)) => {
                    let ratio = peak as f64 / m.len().max(1) as f64;
                    if ratio > max_ratio.0 {
                        max_ratio = (ratio, what.clone());
                    }
                    if peak > XML_ALLOC_FACTOR * m.len() + ALLOC_SLACK {
                        failures.push(format!("{what}: peak heap {peak} bytes for {} input bytes", m.len()));
                    }
                    match result {
                        Ok(true) => ok += 1,
                        Ok(false) => failures.push(format!("{what}: XML -> binary -> XML changes the document")),
                        Err(e) => {
                            let shown = e.to_string();
                            if shown.contains("line ") && shown.contains(", column ") || e.offset().is_some() {
                                located += 1;
                            } else {
                                failures.push(format!("{what}: unlocated error: {shown}"));
                            }
                        }
                    }
                }
            }
        }
    }
    eprintln!(
        "{} XML inputs, {tried} mutants: {ok} read and come back, {located} located errors; stock peak {stock_ratio:.1} x input, mutated peak {:.1} x ({}); {:.1} s",
        inputs.len(),
        max_ratio.0,
        max_ratio.1,
        started.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    assert_eq!((inputs.len(), tried, ok + located), (27, XML_MUTANTS, XML_MUTANTS));
}

/// The mutants `xml_mutations` makes of the 27 inputs (fixed by the seeded generator).
const XML_MUTANTS: usize = 1522;

/// Arrays of structs that claim a billion elements and hold none, 2,000 of them: what the
/// packfile XML reader reserves from a `numelements` stays within `XML_ALLOC_FACTOR` x the input,
/// and the text's elements are the array (each reads empty).
#[test]
fn packfile_xml_counts_reserve_little() {
    use hktypes::packfile::{objects::MemberValue, xml};
    let _serial = serial();
    let schemas = hkgen::reflection::check::ClassSchemas::load(&common::workspace_root().join("schemas")).expect("schemas");
    let mut text = String::from("<?xml version=\"1.0\" encoding=\"ascii\"?>\n<hkpackfile classversion=\"8\" contentsversion=\"hk_2010.2.0-r1\" toplevelobject=\"#1\">\n<hksection name=\"__data__\">\n");
    for k in 1..=2000 {
        text += &format!("<hkobject name=\"#{k}\" class=\"hkRootLevelContainer\" signature=\"0x2772c11e\"><hkparam name=\"namedVariants\" numelements=\"1000000000\"></hkparam></hkobject>\n");
    }
    text += "</hksection>\n</hkpackfile>\n";
    let (doc, peak) = measured(|| xml::read(text.as_bytes(), &schemas.sources_for("2010.2"), xml::ReadOptions::default()));
    let doc = doc.expect("empty arrays read");
    assert_eq!(doc.objects.len(), 2000);
    let hktypes::packfile::objects::Body::Typed(values) = &doc.objects[1999].body else { panic!("object 1999 is not typed") };
    assert!(matches!(&values[0], MemberValue::Array(a) if a.items.is_empty()), "{:?}", values[0]);
    assert!(peak <= XML_ALLOC_FACTOR * text.len() + ALLOC_SLACK, "peak heap {peak} bytes for {} input bytes", text.len());
}
