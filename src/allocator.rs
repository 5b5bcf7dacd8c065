//! The allocator of the `hkgen` binary and of the benches that measure its readers: mimalloc,
//! told to keep the pages it frees (`#[path]`-included by `src/main.rs` and `benches/*.rs`).
//!
//! By default mimalloc gives freed pages back to the kernel a second after they fall empty. A folder
//! conversion reads file after file, and each document is dropped before the next is read: the
//! next one then faults the same pages in again, and the kernel zeroes each of them first. Over
//! the packfile XML of the corpus (`benches/xml.rs` `xml_read`, 11 rounds) that was 17,900 page
//! faults and 3.9 s of system time against 1,000 and 0.13 s with the pages kept. The cost is
//! that the process keeps the most it ever used until it exits.

use libmimalloc_sys::{mi_option_get, mi_option_set, mi_option_t};

/// `mi_option_purge_delay` in the mimalloc sources libmimalloc-sys 0.1.49 builds (v3,
/// `c_src/mimalloc/v3/include/mimalloc.h`: the crate's own option constants are v2's, which
/// number it otherwise).
const PURGE_DELAY: mi_option_t = 15;
/// Its default there, in milliseconds (`src/options.c`; the header's comment says 10): how the
/// option is recognised before it is set.
const DEFAULT_PURGE_DELAY: std::ffi::c_long = 1000;

/// Tells mimalloc never to give freed pages back, unless `MIMALLOC_PURGE_DELAY` says otherwise
/// or the option at [`PURGE_DELAY`] is not the purge delay of the mimalloc linked (another
/// version): then nothing changes. Whether it was set.
pub fn keep_freed_pages() -> bool {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
        return false;
    }
    // SAFETY: reading and setting an option of the allocator linked in; both take any option
    // number below the last and any value.
    unsafe {
        if mi_option_get(PURGE_DELAY) != DEFAULT_PURGE_DELAY {
            return false;
        }
        mi_option_set(PURGE_DELAY, -1);
    }
    true
}
