//! The `hkgen` binary's allocator keeps the pages it frees (`src/allocator.rs`): the option it
//! sets is found where that file says, in the mimalloc that Cargo.lock pins. A libmimalloc-sys
//! that numbers its options otherwise fails here instead of leaving the option unset in silence.

#[path = "../src/allocator.rs"]
mod allocator;

#[test]
fn mimalloc_purge_delay_is_found_and_set() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
        // The user's setting is left as it is.
        assert!(!allocator::keep_freed_pages());
    } else {
        assert!(allocator::keep_freed_pages(), "option 15 of the mimalloc linked is not a purge delay of 1000 ms");
        // Set once, it is not set again (the option now reads -1).
        assert!(!allocator::keep_freed_pages());
    }
}
