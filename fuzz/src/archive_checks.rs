//! What the fuzz targets of the archive readers (`hktypes::archive`, issue 38) check of one
//! input: each reader ends in `Ok` or a located `Err` within the decompression limits, never a
//! panic or an allocation out of proportion; what reads is written, and reads back to the same
//! content (compression layers) or writes the same bytes again (binders, SARC). Only `hktypes` is
//! needed, so these targets build without the generated classes.

/// The archive readers (`hktypes::archive`) share these bounds in every check: a decompressed
/// size is allowed 64 KiB plus 1,100 times the input, never more.
fn archive_limits() -> hktypes::archive::Limits {
    hktypes::archive::Limits::default()
}

/// DCX: decompressed within the limits; where it reads, compressing the payload again with the
/// header's codec reads back to the same payload.
pub fn archive_dcx(data: &[u8]) {
    use hktypes::archive::dcx;
    let Ok((header, payload)) = dcx::decompress(data, &archive_limits()) else { return };
    let again = dcx::compress(&header, &payload).expect("a payload that was read compresses");
    let unlimited = hktypes::archive::Limits { max_ratio: u64::MAX, max_size: u64::MAX };
    let (_, back) = dcx::decompress(&again, &unlimited).expect("a DCX written reads");
    assert_eq!(back, payload, "DCX payload changed through a compression");
}

/// Yaz0: as DCX, through hkgen's own encoder.
pub fn archive_yaz0(data: &[u8]) {
    use hktypes::archive::yaz0;
    let Ok((header, payload)) = yaz0::decompress(data, &archive_limits()) else { return };
    let again = yaz0::compress(&header, &payload).expect("a payload that was read compresses");
    let unlimited = hktypes::archive::Limits { max_ratio: u64::MAX, max_size: u64::MAX };
    let (_, back) = yaz0::decompress(&again, &unlimited).expect("a Yaz0 stream written reads");
    assert_eq!(back, payload, "Yaz0 payload changed through a compression");
}

/// A zstd frame (no dictionary): as DCX.
pub fn archive_zstd(data: &[u8]) {
    use hktypes::archive::zstd_frame;
    let Ok((flags, payload)) = zstd_frame::decompress(data, None, &archive_limits(), "zstd", 0) else { return };
    let again = zstd_frame::compress(&payload, None, 3, &flags).expect("a payload that was read compresses");
    // What was read may compress better than the limits allow a claim to (a run of one byte): the
    // frame written is read back without them.
    let unlimited = hktypes::archive::Limits { max_ratio: u64::MAX, max_size: u64::MAX };
    let (_, back) = zstd_frame::decompress(&again, None, &unlimited, "zstd", 0).expect("a frame written reads");
    assert_eq!(back, payload, "zstd payload changed through a compression");
}

/// A binder or SARC written again must read, and writing that gives the same bytes.
fn stable<T>(first: T, write: impl Fn(&T) -> Vec<u8>, read: impl Fn(&[u8]) -> T) {
    let once = write(&first);
    let twice = write(&read(&once));
    assert!(once == twice, "writing an archive read back from its own output changes it");
}

/// BND3.
pub fn archive_bnd3(data: &[u8]) {
    use hktypes::archive::bnd3::Bnd3;
    let Ok(b) = Bnd3::read(data) else { return };
    let Ok(_) = b.write() else { return };
    stable(b, |b| b.write().unwrap(), |d| Bnd3::read(d).expect("a BND3 written reads"));
}

/// BND4.
pub fn archive_bnd4(data: &[u8]) {
    use hktypes::archive::bnd4::Bnd4;
    let Ok(b) = Bnd4::read(data, None) else { return };
    let Ok(_) = b.write() else { return };
    stable(b, |b| b.write().unwrap(), |d| Bnd4::read(d, None).expect("a BND4 written reads"));
}

/// BHF4 + BDF4: the input split in two at a point its first byte chooses (the header file first).
pub fn archive_bhf4(data: &[u8]) {
    use hktypes::archive::bhf4::Bhf4;
    let Some((&cut, rest)) = data.split_first() else { return };
    let at = (rest.len() * usize::from(cut) / 256).min(rest.len());
    let (h, d) = rest.split_at(at);
    let Ok(b) = Bhf4::read(h, d) else { return };
    let Ok(_) = b.write() else { return };
    let (h1, d1) = b.write().unwrap();
    let (h2, d2) = Bhf4::read(&h1, &d1).expect("a BHF4 written reads").write().unwrap();
    assert!(h1 == h2 && d1 == d2, "writing a split binder read back from its own output changes it");
}

/// SARC, both byte orders.
pub fn archive_sarc(data: &[u8]) {
    use hktypes::archive::sarc::Sarc;
    let Ok(s) = Sarc::read(data) else { return };
    let Ok(_) = s.write() else { return };
    stable(s, |s| s.write().unwrap(), |d| Sarc::read(d).expect("a SARC written reads"));
}

/// Any archive through `Archive::read` (layers nested), listed, every member read, written.
pub fn archive_any(data: &[u8]) {
    use hktypes::archive::{Archive, OpenOptions};
    let Ok(a) = Archive::read(data, &OpenOptions::default()) else { return };
    let _ = a.members();
    a.walk(&mut |_, _| {});
    let _ = a.write();
}
