//! What each fuzz target checks of one input. Shared by the targets under `fuzz/fuzz_targets/`
//! and by the regression test `tests/fuzz_regressions.rs`, which runs every input a fuzzer ever
//! failed on through the same function.
//!
//! Each check reads the input with a reader of the project; the reader must end in `Ok` or in a
//! located `Err` (never a panic, which the fuzzer reports as a crash). Where a read succeeds, the
//! check also writes the result and requires the written bytes to read again and write the same
//! bytes (writing is a function of what was read).

use hktypes::graph::Document;
use hktypes::tagfile::{Compendium, CompendiumSet, TagFile};

/// A TAG0 file (or any input) through the container, the type table and the items, with no
/// compendia and no generated classes: every object dynamic.
pub fn tag0(data: &[u8]) {
    let Ok(file) = TagFile::read(data, &CompendiumSet::new()) else { return };
    let _ = file.sdk_version();
    let _ = hktypes::dynamic::dump(&file);
    drop(file);
    stable_write(data, &[]);
}

/// A TCM0 compendium, and the set that looks its ids up.
pub fn tcm0(data: &[u8]) {
    let Ok(c) = Compendium::read(data) else { return };
    let mut set = CompendiumSet::new();
    set.add(&c);
    for id in &c.ids {
        assert!(set.get(id).is_some(), "a compendium's own id does not find it");
    }
}

/// The Elden Ring type-registry importer, on any text.
pub fn registry(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = hkgen::registry::import(text);
}

/// A packfile: the container read and written back; where the written file reads, writing it
/// again gives the same bytes.
pub fn packfile(data: &[u8]) {
    let Ok(file) = hktypes::packfile::PackFile::read(data) else { return };
    let _ = file.contents_version();
    for i in 0..file.sections.len() {
        let _ = file.objects(i);
        let _ = file.pointers(i);
    }
    let Ok(out) = hktypes::packfile::write::write(&file) else { return };
    let again = hktypes::packfile::PackFile::read(&out).expect("a written packfile reads back");
    let out2 = hktypes::packfile::write::write(&again).expect("a packfile that was written writes again");
    assert!(out == out2, "writing a packfile is not stable");
}

/// A TAG0 file into typed objects through every SDK's generated classes, written back through
/// the classes and as read.
pub fn typed(data: &[u8]) {
    let Ok(file) = TagFile::read(data, &CompendiumSet::new()) else { return };
    let classes = hkclasses::classes_for_sdk(&file.sdk_version());
    drop(file);
    stable_write(data, classes);
}

/// Reads `data` as a document with `classes`; where both writers succeed, their output must read
/// again and write the same bytes.
fn stable_write(data: &[u8], classes: &'static [hktypes::value::ClassEntry]) {
    let set = CompendiumSet::new();
    let Ok(doc) = Document::read(data, &set, classes) else { return };
    let _ = doc.counts();
    for h in doc.handles() {
        let _ = doc.type_name(h);
    }
    for out in [doc.write(), doc.write_typed()].into_iter().flatten() {
        let again = Document::read(&out, &set, classes).expect("a written tagfile reads back");
        let out2 = again.write().expect("a tagfile that was written writes again");
        assert!(out == out2, "writing a tagfile is not stable");
    }
}
