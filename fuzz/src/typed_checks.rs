//! The check of the `typed` fuzz target, apart from `checks.rs` because it alone needs the
//! generated classes (`hkclasses`, the fuzz crate's `typed` feature): the other targets build
//! without them. Also run by `tests/fuzz_regressions.rs`.

use crate::checks::stable_write;
use hktypes::tagfile::{CompendiumSet, TagFile};

/// A TAG0 file into typed objects through every SDK's generated classes, written back through
/// the classes and as read.
pub fn typed(data: &[u8]) {
    let Ok(file) = TagFile::read(data, &CompendiumSet::new()) else { return };
    let classes = hkclasses::classes_for_sdk(&file.sdk_version());
    drop(file);
    stable_write(data, classes);
}
