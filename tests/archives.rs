//! Havok files inside game archives (issue 38): every archive of `../shared/containers/` lists,
//! gives its Havok members equal to the corpus files its README names, writes back byte for byte
//! unchanged, and writes back an edited member that reads back with the edit; hostile archives and
//! archives of every format made here (BND3, BHF4+BDF4, big-endian SARC) are checked too.

mod common;

use std::path::{Path, PathBuf};

use hktypes::archive::{self, bhf4::Bhf4, binder::Entry, bnd3::Bnd3, dcx, sarc::Sarc, Archive, Contents, ErrorKind, OpenOptions, Wrapper};

/// One shared archive and the corpus files it holds: (member path suffix, corpus path).
struct Case {
    file: &'static str,
    describe: &'static str,
    members: &'static [(&'static str, &'static str)],
}

const CASES: &[Case] = &[
    Case {
        file: "c3570.anibnd.dcx",
        describe: "DCX(DFLT) > BND4",
        members: &[("N:\\GR\\data\\INTERROOT_win64\\chr\\c3570\\hkx\\skeleton.hkx", "Axelph237__mod/chr/c3570.anibnd/c3570/hkx/skeleton.hkx")],
    },
    Case {
        file: "wp_a_9823_l.partsbnd.dcx",
        describe: "DCX(DFLT) > BND4",
        members: &[("WP_A_9823_c_L.hkx", "tokotchd__Cinders/parts/wp_a_9823_l.partsbnd/Weapon/WP_A_9823/WP_A_9823_c_L.hkx")],
    },
    Case {
        file: "s88940.anibnd",
        describe: "BND4",
        members: &[
            (
                "s88940_a000_000001.hkx",
                "Blabla132132__More-Map-Variation/sfx/sfxbnd_commoneffects_dlc01-ffxbnd-dcx-wffxbnd/sfx/s88940.anibnd/hkx/s88940/s88940_a000_000001.hkx",
            ),
            (
                "s88940\\s88940_skeleton.hkx",
                "Blabla132132__More-Map-Variation/sfx/sfxbnd_commoneffects_dlc01-ffxbnd-dcx-wffxbnd/sfx/s88940.anibnd/hkx/s88940/s88940_skeleton.hkx",
            ),
        ],
    },
    Case {
        file: "Obj_Mineral_A_01.sbactorpack",
        describe: "Yaz0 > SARC (big-endian)",
        members: &[(
            "Physics/RigidBody/Obj_Mineral_A/Obj_Mineral_A_01.hkrb",
            "NiceneNerd__UKMM/uk-mod/test/wiiu/content/Actor/Pack/Obj_Mineral_A_01.sbactorpack/RigidBody/Obj_Mineral_A/Obj_Mineral_A_01.hkrb",
        )],
    },
    Case {
        file: "Armor_006_Upper.pack.zs",
        describe: "zstd(dictionary 3) > SARC (little-endian)",
        members: &[("Phive/Cloth/Armor_006_RaulSkin_Upper.bphcl", "TotkBits/Armor_006_RaulSkin_Upper.bphcl")],
    },
];

/// The shared containers folder beside the corpus.
fn containers(corpus: &Path) -> PathBuf {
    corpus.join("../containers")
}

/// A fresh scratch folder under the target directory.
fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("archives").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn every_shared_archive_lists_and_gives_its_corpus_members() {
    let Some(corpus) = common::corpus() else { return };
    for case in CASES {
        let Some(_) = common::corpus_file(&corpus, &format!("../containers/{}", case.file)) else { return };
        let path = containers(&corpus).join(case.file);
        let a = Archive::open(&path, &OpenOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(a.describe(), case.describe, "{}", case.file);
        let members = a.members();
        assert!(!members.is_empty());
        for (suffix, rel) in case.members {
            let Some(expected) = common::corpus_file(&corpus, rel) else { return };
            let (bytes, origin) = archive::read_path(&format!("{}:{suffix}", path.display()), &OpenOptions::default()).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(bytes, expected, "{}:{suffix} differs from the corpus file {rel}", case.file);
            let m = &members[origin.index.unwrap()];
            assert_eq!(m.size, expected.len() as u64, "{}", m.name);
            assert!(m.name.replace('\\', "/").ends_with(&suffix.replace('\\', "/")));
            if let Some(kind) = m.kind {
                hktypes::open(&bytes, &hktypes::OpenOptions::default()).unwrap_or_else(|e| panic!("{}:{}: {e}", case.file, m.name));
                assert_eq!(Some(kind), hktypes::sniff(&bytes));
            }
        }
    }
}

#[test]
fn member_paths_take_full_names_suffixes_and_say_what_is_ambiguous() {
    let Some(corpus) = common::corpus() else { return };
    let Some(_) = common::corpus_file(&corpus, "../containers/c3570.anibnd.dcx") else { return };
    let path = containers(&corpus).join("c3570.anibnd.dcx");
    let full = format!("{}:N:\\GR\\data\\INTERROOT_win64\\chr\\c3570\\hkx\\skeleton.hkx", path.display());
    let (a, o) = archive::read_path(&full, &OpenOptions::default()).unwrap();
    let (b, _) = archive::read_path(&format!("{}:skeleton.hkx", path.display()), &OpenOptions::default()).unwrap();
    assert_eq!(a, b);
    assert_eq!(o.member.as_deref(), Some("N:\\GR\\data\\INTERROOT_win64\\chr\\c3570\\hkx\\skeleton.hkx"));
    assert_eq!(o.display(), full);
    // ".hkx" ends several names, "keleton.hkx" none at a separator.
    let e = archive::read_path(&format!("{}:hkx\\", path.display()), &OpenOptions::default()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::NotFound, "{e}");
    let e = archive::read_path(&format!("{}:keleton.hkx", path.display()), &OpenOptions::default()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::NotFound, "{e}");
    // Naming the archive alone says it is one and lists members.
    let e = archive::read_path(&path.display().to_string(), &OpenOptions::default()).unwrap_err().to_string();
    assert!(e.contains("is an archive (DCX(DFLT) > BND4) of"), "{e}");
}

#[test]
fn an_ambiguous_suffix_lists_the_candidates() {
    let mut b = hktypes::archive::bnd4::Bnd4::new();
    b.entries.push(Entry::new("N:\\GR\\a\\skeleton.hkx", 1, vec![1], true, false));
    b.entries.push(Entry::new("N:\\GR\\b\\skeleton.hkx", 2, vec![2], true, false));
    let a = Archive::from_contents(Contents::Bnd4(b));
    let e = a.find("skeleton.hkx").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Ambiguous(vec!["N:\\GR\\a\\skeleton.hkx".into(), "N:\\GR\\b\\skeleton.hkx".into()]));
    assert_eq!(e.to_string(), "\"skeleton.hkx\" ends 2 member names; name one of them: N:\\GR\\a\\skeleton.hkx, N:\\GR\\b\\skeleton.hkx");
    assert_eq!(a.find("b/skeleton.hkx").unwrap(), 1);
}

#[test]
fn every_shared_archive_writes_back_byte_for_byte() {
    let Some(corpus) = common::corpus() else { return };
    for case in CASES {
        let Some(original) = common::corpus_file(&corpus, &format!("../containers/{}", case.file)) else { return };
        let a = Archive::open(&containers(&corpus).join(case.file), &OpenOptions::default()).unwrap();
        let (bytes, data) = a.write().unwrap();
        assert!(data.is_none());
        assert!(bytes == original, "{} does not write back byte for byte ({} vs {} bytes)", case.file, bytes.len(), original.len());
        // The contents laid out again from its entries is the payload the compression layers held.
        let inner = Archive::from_contents(a.contents.clone()).write().unwrap().0;
        let mut payload = original.clone();
        while let Some((_, p)) = archive::unwrap_layer(&payload, &OpenOptions { zstd_dictionaries: dictionaries(&corpus), ..Default::default() }).unwrap() {
            payload = p;
        }
        assert!(inner == payload, "{}: the contents laid out again differs from the payload", case.file);
    }
}

fn dictionaries(corpus: &Path) -> Vec<Vec<u8>> {
    vec![std::fs::read(containers(corpus).join("pack.zsdic")).unwrap()]
}

#[test]
fn every_shared_archive_writes_back_an_edited_member() {
    let Some(corpus) = common::corpus() else { return };
    let dir = scratch("edit");
    for case in CASES {
        let Some(original) = common::corpus_file(&corpus, &format!("../containers/{}", case.file)) else { return };
        let copy = dir.join(case.file);
        std::fs::write(&copy, &original).unwrap();
        if case.file.ends_with(".zs") {
            std::fs::copy(containers(&corpus).join("pack.zsdic"), dir.join("pack.zsdic")).unwrap();
        }
        let (suffix, _) = case.members[0];
        let member = format!("{}:{suffix}", copy.display());
        let before = Archive::open(&copy, &OpenOptions::default()).unwrap();
        let (old, origin) = archive::read_path(&member, &OpenOptions::default()).unwrap();
        // The edit: the member grows by 1000 bytes and its first bytes change, so that every
        // offset after it moves and every size is recomputed.
        let mut new = old.clone();
        new[0] ^= 0xFF;
        new.extend((0..1000u32).map(|i| i as u8));
        archive::write_member(&member, new.clone(), &OpenOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        let after = Archive::open(&copy, &OpenOptions::default()).unwrap_or_else(|e| panic!("{}: {e}", case.file));
        assert_eq!(after.describe(), case.describe);
        let (back, _) = archive::read_path(&member, &OpenOptions::default()).unwrap();
        assert_eq!(back, new, "{}: the edited member does not read back", case.file);
        for (i, name) in before.names().iter().enumerate() {
            assert_eq!(&after.names()[i], name);
            if Some(i) != origin.index {
                assert_eq!(after.member_bytes(i).unwrap(), before.member_bytes(i).unwrap(), "{}: {name} changed", case.file);
            }
        }
        // Putting the old bytes back gives a valid archive again that holds them.
        archive::write_member(&member, old.clone(), &OpenOptions::default()).unwrap();
        assert_eq!(archive::read_path(&member, &OpenOptions::default()).unwrap().0, old);
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().filter(|e| e.file_name().to_string_lossy().contains("hkgen-tmp")).collect();
        assert!(left.is_empty(), "temporary files left behind");
    }
}

#[test]
fn a_dcx_wrapped_havok_file_opens_as_its_payload() {
    let Some(corpus) = common::corpus() else { return };
    let rel = "Axelph237__mod/chr/c3570.anibnd/c3570/hkx/skeleton.hkx";
    let Some(hkx) = common::corpus_file(&corpus, rel) else { return };
    let dir = scratch("single");
    let path = dir.join("skeleton.hkx.dcx");
    let file = dcx::compress(&dcx::new_header(dcx::Codec::Deflate), &hkx).unwrap();
    std::fs::write(&path, &file).unwrap();
    let (bytes, origin) = archive::read_path(&path.display().to_string(), &OpenOptions::default()).unwrap();
    assert_eq!(bytes, hkx);
    assert_eq!(origin.container.as_deref(), Some("DCX(DFLT) > one file"));
    let a = Archive::open(&path, &OpenOptions::default()).unwrap();
    assert_eq!(a.members()[0].name, "skeleton.hkx");
    assert_eq!(a.members()[0].kind, Some(hktypes::Format::Tag0));
    assert_eq!(a.write().unwrap().0, file);
}

#[test]
fn a_missing_zstd_dictionary_is_named() {
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, "../containers/Armor_006_Upper.pack.zs") else { return };
    let e = Archive::read(&bytes, &OpenOptions::default()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::MissingDictionary(3), "{e}");
    let a = Archive::read(&bytes, &OpenOptions { zstd_dictionaries: dictionaries(&corpus), ..Default::default() }).unwrap();
    assert_eq!(a.describe(), "zstd(dictionary 3) > SARC (little-endian)");
}

#[test]
fn hostile_archives_give_located_errors() {
    let Some(corpus) = common::corpus() else { return };
    let Some(real) = common::corpus_file(&corpus, "../containers/c3570.anibnd.dcx") else { return };
    let opts = OpenOptions::default();
    // A DCX claiming 4 GB: refused before allocating.
    let mut bomb = real.clone();
    bomb[0x1C..0x20].copy_from_slice(&0xFFFF_FFF0u32.to_be_bytes());
    let e = Archive::read(&bomb, &opts).unwrap_err().to_string();
    assert!(e.starts_with("DCX at byte 0x1c: uncompressed size 4294967280 claimed for 62064 compressed bytes is over the limit"), "{e}");
    // A BND4 inside the DCX whose count lies: located in the decompressed payload.
    let a = Archive::read(&real, &opts).unwrap();
    let Contents::Bnd4(b) = &a.contents else { panic!() };
    let mut bnd = b.write().unwrap();
    bnd[0x0C..0x10].copy_from_slice(&0x0FFF_FFFFu32.to_le_bytes());
    let lying = Archive::from_contents(Contents::Single("x".into(), bnd.clone())).wrapped(Wrapper::Dcx(dcx::new_header(dcx::Codec::Deflate))).write().unwrap().0;
    let e = Archive::read(&lying, &opts).unwrap_err().to_string();
    assert!(e.starts_with("DCX(DFLT) > BND4 at byte 0xc: file count 268435455 needs"), "{e}");
    // A member offset past the end.
    let mut bnd = b.write().unwrap();
    bnd[0x40 + 0x18..0x40 + 0x1C].copy_from_slice(&0x7FFF_0000u32.to_le_bytes());
    let e = Archive::read(&bnd, &opts).unwrap_err().to_string();
    assert!(e.contains("bytes at 0x7fff0000 run past the end"), "{e}");
    // An entry size that disagrees with the format byte.
    let mut bnd = b.write().unwrap();
    bnd[0x20] = 0x30;
    let e = Archive::read(&bnd, &opts).unwrap_err().to_string();
    assert_eq!(e, "BND4 at byte 0x20: entry size 0x30 is not the 0x24 the format byte 0x2e gives");
    // A Yaz0 back-reference before the start of the output.
    let yaz = [b"Yaz0".as_slice(), &[0, 0, 0x10, 0], &[0; 8], &[0xBF, b'S', 0x20, 0x10]].concat();
    let e = Archive::read(&yaz, &opts).unwrap_err().to_string();
    assert_eq!(e, "Yaz0 at byte 0x12: back-reference 17 bytes back reaches before the start of the output (at 1)");
    // A Yaz0 4 GB claim.
    let yaz = [b"Yaz0".as_slice(), &[0xFF, 0xFF, 0xFF, 0xFF], &[0; 8], &[0; 64]].concat();
    let e = Archive::read(&yaz, &opts).unwrap_err().to_string();
    assert!(e.starts_with("Yaz0 at byte 0x4: uncompressed size 4294967295 is more than 80 bytes of Yaz0 can hold"), "{e}");
    // A zstd frame claiming 4 GB.
    let zs = zstd_frame_of(b"some bytes");
    let zs = [&[0x28, 0xB5, 0x2F, 0xFD, 0xA0][..], &0xFFFF_FFF0u32.to_le_bytes(), &zs[6..]].concat();
    let e = Archive::read(&zs, &opts).unwrap_err().to_string();
    assert!(e.starts_with("zstd at byte 0x5: uncompressed size 4294967280 claimed"), "{e}");
    // A SARC node whose data end lies; a Yaz0 SARC whose byte-order mark is wrong.
    let mut s = Sarc::new(true);
    s.add("a.hkrb", vec![1; 40]);
    let mut sb = s.write().unwrap();
    sb[0x20 + 12..0x20 + 16].copy_from_slice(&0x10_0000u32.to_be_bytes());
    let e = Archive::read(&sb, &opts).unwrap_err().to_string();
    assert!(e.starts_with("SARC at byte") && e.contains("node 0 (a.hkrb)"), "{e}");
    sb[6] = 0;
    let e = Archive::read(&Archive::from_contents(Contents::Single("x".into(), sb)).with_yaz0().write().unwrap().0, &opts).unwrap_err().to_string();
    assert_eq!(e, "Yaz0 > SARC at byte 0x6: byte-order mark 00 FF is neither FE FF nor FF FE");
    // KRAK.
    let mut krak = real.clone();
    krak[0x28..0x2C].copy_from_slice(b"KRAK");
    let e = Archive::read(&krak, &opts).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Unsupported);
    assert!(e.to_string().contains("cannot be decompressed without Oodle"));
}

fn zstd_frame_of(b: &[u8]) -> Vec<u8> {
    hktypes::archive::zstd_frame::compress(b, None, 3, &Default::default()).unwrap()
}

#[test]
fn archives_of_every_format_made_here_read_back_through_member_paths() {
    let dir = scratch("made");
    let hkx = |i: u8| [b"\x00\x00\x01\x00TAG0".as_slice(), &[i; 40]].concat();
    // BND3 inside DCX, as Dark Souls ships its .anibnd.dcx.
    let mut b3 = Bnd3::new();
    for i in 0..3u8 {
        b3.entries.push(Entry::new(&format!("N:\\FRPG\\data\\Model\\chr\\c2300\\hkx\\a00_000{i}.hkx"), i32::from(i), hkx(i), false, false));
    }
    let p = dir.join("c2300.anibnd.dcx");
    Archive::from_contents(Contents::Bnd3(b3)).wrapped(Wrapper::Dcx(dcx::new_header(dcx::Codec::Deflate))).save(&p).unwrap();
    let (bytes, o) = archive::read_path(&format!("{}:a00_0001.hkx", p.display()), &OpenOptions::default()).unwrap();
    assert_eq!((bytes, o.container.as_deref()), (hkx(1), Some("DCX(DFLT) > BND3")));
    assert_eq!(Archive::open(&p, &OpenOptions::default()).unwrap().members()[2].kind, Some(hktypes::Format::Tag0));
    // BHF4 + BDF4, members DCX-compressed, as Elden Ring's map collision binders.
    let mut split = Bhf4::new();
    for i in 0..3u8 {
        let member = dcx::compress(&dcx::new_header(dcx::Codec::Deflate), &hkx(i)).unwrap();
        split.binder.entries.push(Entry::new(&format!("h30_00_00_00_00000{i}.hkx.dcx"), i32::from(i), member, true, false));
    }
    let p = dir.join("h30_00_00_00.hkxbhd");
    Archive::from_contents(Contents::Bhf4(split)).save(&p).unwrap();
    assert!(dir.join("h30_00_00_00.hkxbdt").is_file());
    for name in ["h30_00_00_00.hkxbhd", "h30_00_00_00.hkxbdt"] {
        let (bytes, _) = archive::read_path(&format!("{}:h30_00_00_00_000002.hkx.dcx", dir.join(name).display()), &OpenOptions::default()).unwrap();
        assert_eq!(bytes, hkx(2));
    }
    let a = Archive::open(&p, &OpenOptions::default()).unwrap();
    assert_eq!(a.members()[1].compression.as_deref(), Some("DCX(DFLT)"));
    // An edited member of the split binder is compressed again as it was and reads back.
    archive::write_member(&format!("{}:h30_00_00_00_000001.hkx.dcx", p.display()), hkx(9), &OpenOptions::default()).unwrap();
    assert_eq!(archive::read_path(&format!("{}:h30_00_00_00_000001.hkx.dcx", p.display()), &OpenOptions::default()).unwrap().0, hkx(9));
    assert_eq!(archive::read_path(&format!("{}:h30_00_00_00_000002.hkx.dcx", p.display()), &OpenOptions::default()).unwrap().0, hkx(2));
    // Big- and little-endian SARC, in Yaz0 and in zstd.
    for (big, name) in [(true, "Actor.sbactorpack"), (false, "Actor.pack.zs")] {
        let mut s = Sarc::new(big);
        s.add("Physics/RigidBody/A/A_01.hkrb", hkx(5));
        s.add("Actor/ActorLink/A_01.bxml", vec![1, 2, 3]);
        let a = Archive::from_contents(Contents::Sarc(s));
        let a = if big { a.with_yaz0() } else { a.wrapped(Wrapper::Zstd(Default::default(), None)) };
        let p = dir.join(name);
        a.save(&p).unwrap();
        let (bytes, o) = archive::read_path(&format!("{}:A_01.hkrb", p.display()), &OpenOptions::default()).unwrap();
        assert_eq!(bytes, hkx(5));
        assert!(o.container.unwrap().ends_with(if big { "(big-endian)" } else { "(little-endian)" }));
    }
}

#[test]
fn members_of_archives_inside_archives_read_and_write_back() {
    let Some(corpus) = common::corpus() else { return };
    let Some(original) = common::corpus_file(&corpus, "../containers/wp_a_9823_l.partsbnd.dcx") else { return };
    let rel = "tokotchd__Cinders/parts/wp_a_9823.partsbnd/Weapon/WP_A_9823/WP_A_9823.anibnd/WP_A_1342/hkx/skeleton.HKX";
    let Some(expected) = common::corpus_file(&corpus, rel) else { return };
    let dir = scratch("nested");
    let copy = dir.join("wp_a_9823_l.partsbnd.dcx");
    std::fs::write(&copy, &original).unwrap();
    let member = format!("{}:WP_A_9823.anibnd:skeleton.HKX", copy.display());
    let (bytes, origin) = archive::read_path(&member, &OpenOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(hktypes::sniff(&bytes), Some(hktypes::Format::Packfile));
    assert!(origin.member.as_deref().unwrap().contains("WP_A_9823.anibnd:N:\\"), "{origin:?}");
    assert!(bytes == expected, "the nested skeleton differs from the corpus file {rel}");
    // Walking the archive goes into the nested binder.
    let a = Archive::open(&copy, &OpenOptions::default()).unwrap();
    let mut havok = Vec::new();
    a.walk(&mut |name, b| {
        if hktypes::sniff(&b.unwrap()).is_some() {
            havok.push(name)
        }
    });
    assert!(havok.iter().any(|n| n.contains(".anibnd:") && n.ends_with("skeleton.HKX")), "{havok:?}");
    assert!(havok.len() >= 2);
    // An edit of the nested member reads back, and the rest of both binders is unchanged.
    let mut new = bytes.clone();
    new.extend_from_slice(&[0xAB; 300]);
    archive::write_member(&member, new.clone(), &OpenOptions::default()).unwrap();
    assert_eq!(archive::read_path(&member, &OpenOptions::default()).unwrap().0, new);
    let after = Archive::open(&copy, &OpenOptions::default()).unwrap();
    let hkx = "WP_A_9823_c_L.hkx";
    assert_eq!(after.member_bytes(after.find(hkx).unwrap()).unwrap(), a.member_bytes(a.find(hkx).unwrap()).unwrap());
}

/// The command line: `ls`, `verify` of an archive and a folder of archives, `dump` of a member
/// path, `build --into`.
#[cfg(feature = "cli")]
mod cli {
    use super::*;
    use std::process::Command;

    fn hkgen(args: &[&str], dir: &Path) -> (bool, String, String) {
        let out = Command::new(env!("CARGO_BIN_EXE_hkgen")).args(args).current_dir(dir).output().unwrap();
        (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
    }

    #[test]
    fn ls_verify_dump_and_build_into() {
        let Some(corpus) = common::corpus() else { return };
        let Some(original) = common::corpus_file(&corpus, "../containers/c3570.anibnd.dcx") else { return };
        let dir = scratch("cli");
        std::fs::write(dir.join("c3570.anibnd.dcx"), &original).unwrap();
        let (ok, out, err) = hkgen(&["ls", "c3570.anibnd.dcx"], &dir);
        assert!(ok, "{err}");
        assert!(out.starts_with("c3570.anibnd.dcx: DCX(DFLT) > BND4, 5 members, 1 Havok files\n"), "{out}");
        assert!(out.contains(" tag0 ") && out.contains("N:\\GR\\data\\INTERROOT_win64\\chr\\c3570\\hkx\\skeleton.hkx"), "{out}");

        // verify of the shared folder: every Havok member counted as a file, named by its path.
        let shared = containers(&corpus);
        let (ok, out, err) = hkgen(&["verify", "--json", &shared.display().to_string()], &dir);
        assert!(ok, "{err}");
        let passed: Vec<&str> = out.lines().filter(|l| l.contains("\"ok\":true") && !l.contains("\"skipped\":true")).collect();
        assert!(passed.len() >= 6, "{out}");
        assert!(passed.iter().any(|l| l.contains("c3570.anibnd.dcx:N:\\\\GR\\\\data\\\\INTERROOT_win64\\\\chr\\\\c3570\\\\hkx\\\\skeleton.hkx")), "{out}");
        assert!(err.lines().last().unwrap().starts_with(&format!("{} passed, 0 failed", passed.len())), "{err}");

        // dump of a member path, built back into the archive with an edit.
        let (ok, _, err) = hkgen(&["dump", "--format", "json", "--out", "sk.json", "c3570.anibnd.dcx:skeleton.hkx"], &dir);
        assert!(ok, "{err}");
        let json = std::fs::read_to_string(dir.join("sk.json")).unwrap();
        assert!(json.contains("\"Root\""), "the skeleton has a bone named Root");
        std::fs::write(dir.join("sk.json"), json.replacen("\"Root\"", "\"Rooted\"", 1)).unwrap();
        let (ok, _, err) = hkgen(&["build", "sk.json", "--into", "c3570.anibnd.dcx:skeleton.hkx"], &dir);
        assert!(ok, "{err}");
        assert!(err.contains("-> c3570.anibnd.dcx:N:\\GR\\data\\INTERROOT_win64\\chr\\c3570\\hkx\\skeleton.hkx (DCX(DFLT) > BND4)"), "{err}");
        let (ok, out, err) = hkgen(&["dump", "c3570.anibnd.dcx:skeleton.hkx"], &dir);
        assert!(ok && out.contains("Rooted"), "{err}");
        // anim of a member path.
        std::fs::copy(shared.join("s88940.anibnd"), dir.join("s88940.anibnd")).unwrap();
        let (ok, out, err) = hkgen(&["anim", "s88940.anibnd:s88940_a000_000001.hkx"], &dir);
        assert!(ok && out.starts_with("s88940.anibnd:s88940_a000_000001.hkx: 1 animation\n"), "{out}{err}");
        let (ok, _, err) = hkgen(&["verify", "c3570.anibnd.dcx"], &dir);
        assert!(ok && err.ends_with("1 passed, 0 failed\n"), "{err}");
        // A member that is not there is refused before anything is written.
        let before = std::fs::read(dir.join("c3570.anibnd.dcx")).unwrap();
        let (ok, _, err) = hkgen(&["build", "sk.json", "--into", "c3570.anibnd.dcx:nothing.hkx"], &dir);
        assert!(!ok && err.contains("no member named or ending in \"nothing.hkx\""), "{err}");
        assert_eq!(std::fs::read(dir.join("c3570.anibnd.dcx")).unwrap(), before);
    }
    /// A folder holding game archives converts to XML member by member (each under the archive's
    /// name, at its member path) and extracts their type tables.
    #[test]
    fn convert_and_extract_of_a_folder_go_into_its_archives() {
        let Some(corpus) = common::corpus() else { return };
        let shared = containers(&corpus);
        let dir = scratch("folder");
        let input = dir.join("in");
        std::fs::create_dir_all(&input).unwrap();
        for f in ["c3570.anibnd.dcx", "s88940.anibnd", "Armor_006_Upper.pack.zs", "pack.zsdic"] {
            std::fs::copy(shared.join(f), input.join(f)).unwrap();
        }
        let (ok, _, err) = hkgen(&["convert", "--to", "xml", "in", "out"], &dir);
        assert!(ok, "{err}");
        // The Phive file in TotK's pack converts too, its wrapper kept in the XML.
        assert!(err.contains("4 converted, 0 failed") && !err.contains("Phive"), "{err}");
        let cloth = dir.join("out/Armor_006_Upper.pack.zs/Phive/Cloth/Armor_006_RaulSkin_Upper.bphcl.xml");
        assert!(cloth.is_file(), "{err}");
        let (ok, _, err) = hkgen(&["convert", "--to", "binary", &cloth.display().to_string(), "back.bphcl"], &dir);
        assert!(ok, "{err}");
        assert!(std::fs::read(dir.join("back.bphcl")).unwrap() == common::corpus_file(&corpus, "TotkBits/Armor_006_RaulSkin_Upper.bphcl").unwrap());
        let skeleton = dir.join("out/c3570.anibnd.dcx/GR/data/INTERROOT_win64/chr/c3570/hkx/skeleton.xml");
        assert!(skeleton.is_file(), "{err}");
        assert!(dir.join("out/s88940.anibnd/GR/data/INTERROOT_win64/sfx/hkx/s88940/s88940_a000_000001.xml").is_file());
        // The member's XML gives back the member, which is the corpus file.
        let (ok, _, err) = hkgen(&["convert", "--to", "binary", &skeleton.display().to_string(), "back.hkx"], &dir);
        assert!(ok, "{err}");
        let member = common::corpus_file(&corpus, "Axelph237__mod/chr/c3570.anibnd/c3570/hkx/skeleton.hkx").unwrap();
        assert!(std::fs::read(dir.join("back.hkx")).unwrap() == member);
        // extract reads the tagfiles inside the archives: Elden Ring's and Tears of the Kingdom's.
        let (ok, _, err) = hkgen(&["extract", "--out", "sch", "in"], &dir);
        assert!(ok, "{err}");
        assert!(err.contains("2018.1: 216 types") && err.contains("from 3 tagfiles"), "{err}");
        assert!(err.contains("2022.1: 237 types (108 with stored hashes)"), "{err}");
        assert!(dir.join("sch/2022.1/sdk.ron").is_file());
    }
}
