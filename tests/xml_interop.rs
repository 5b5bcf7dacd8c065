//! Havok packfile XML as the rest of the toolchain writes and reads it (issue 40): flags in every
//! form other writers use (names, numbers, hex, mixtures, a trailing `|`, empty) read to the same
//! bits, and are written as Havok writes them (names, then the unnamed bits as a number); vectors
//! are written with the number of components Havok writes for their type, the hidden fourth
//! words in hkgen's note, so that XML -> binary stays byte-exact. On corpus files; the peer check
//! against serde-hkx's `hkxc` is `bench/hkxc_interop.py`.

mod common;

use hkgen::reflection::check::ClassSchemas;
use hkgen::reflection::sources::sdk_of_contents_version;
use hktypes::packfile::layout::MemberType;
use hktypes::packfile::objects::{Body, PackfileDocument};
use hktypes::packfile::xml::{self, FloatForm, ObjectOrder, ReadOptions, WriteOptions};
use std::collections::{BTreeMap, HashMap};

fn schemas() -> ClassSchemas {
    ClassSchemas::load(&common::workspace_root().join("schemas")).unwrap()
}

fn binary(schemas: &ClassSchemas, bytes: &[u8]) -> PackfileDocument {
    let f = hktypes::packfile::PackFile::read(bytes).unwrap();
    let sdk = sdk_of_contents_version(&f.contents_version());
    PackfileDocument::from_file_with(f, &schemas.sources_for(&sdk)).unwrap()
}

fn read(schemas: &ClassSchemas, text: &str, layout: hktypes::packfile::LayoutRules) -> hktypes::Result<PackfileDocument> {
    xml::read(text.as_bytes(), &schemas.sources_for("2010.2"), ReadOptions { layout, order: ObjectOrder::Xml, ..Default::default() })
}

/// 1-based line of byte `at` of `text`.
fn line_of(text: &str, at: usize) -> usize {
    text[..at].bytes().filter(|&b| b == b'\n').count() + 1
}

/// One flags member of a corpus behaviour (Pandora's dog, the first variable's
/// `role.flags`, an `hkFlags<RoleFlags, hkInt16>` whose enum names bits 1 to 32) given in each
/// form: every form of the same bits reads to the same objects, hkgen writes them back as Havok
/// does, and an unknown name is an error at the parameter with its object and member path.
#[test]
fn flags_read_in_every_form_to_the_same_bits() {
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, "Pandora-Behaviour-Engine-Plus/dogbehavior.hkx") else { return };
    let schemas = schemas();
    let doc = binary(&schemas, &bytes);
    let layout = doc.layout();
    let text = xml::write(&doc, WriteOptions::default()).unwrap();
    let anchor = "<hkparam name=\"role\">ROLE_DEFAULT</hkparam>";
    let role = text.find(anchor).expect("a variable's role");
    let open = "<hkparam name=\"flags\">";
    let at = role + text[role..].find(open).unwrap() + open.len();
    let end = at + text[at..].find("</hkparam>").unwrap();
    assert_eq!(&text[at..end], "0", "the first variable's role flags are 0, written as 0");
    let with = |form: &str| format!("{}{form}{}", &text[..at], &text[end..]);
    // The variable's object, for the error's place.
    let object = text[..at].rfind("<hkobject name=\"").map(|o| &text[o + 16..o + 16 + text[o + 16..].find('"').unwrap()]).unwrap();

    // No bits: every form reads to the file's own objects.
    for form in ["0", "", "FLAG_NONE", "FLAG_NONE|", "0x0", " 0 ", "|"] {
        let back = read(&schemas, &with(form), layout).unwrap_or_else(|e| panic!("{form:?}: {e}"));
        assert_eq!(back.objects, doc.objects, "{form:?}");
    }

    // FLAG_RAGDOLL (1) | FLAG_NOT_VARIABLE (4) | 4096 (no name): 4101, 0x1005.
    let forms = [
        "FLAG_RAGDOLL|FLAG_NOT_VARIABLE|4096",
        "4101",
        "0x1005",
        "0X1005",
        "FLAG_RAGDOLL|FLAG_NOT_VARIABLE|4096|",
        "FLAG_NOT_VARIABLE|FLAG_RAGDOLL|0x1000",
        "FLAG_RAGDOLL | FLAG_NOT_VARIABLE | 4096",
        "1|4|4096",
        "FLAG_RAGDOLL|5|4096",
        "FLAG_NONE|FLAG_RAGDOLL|FLAG_NOT_VARIABLE|4096",
    ];
    let first = read(&schemas, &with(forms[0]), layout).unwrap();
    assert_ne!(first.objects, doc.objects, "the bits changed");
    for form in &forms[1..] {
        let back = read(&schemas, &with(form), layout).unwrap_or_else(|e| panic!("{form:?}: {e}"));
        assert_eq!(back.objects, first.objects, "{form:?}");
    }
    // Written as Havok writes flags: the named bits by name, the rest as a number; and back to
    // the same binary.
    let again = xml::write(&first, WriteOptions::default()).unwrap();
    assert_eq!(again, with("FLAG_RAGDOLL|FLAG_NOT_VARIABLE|4096"));
    assert_eq!(xml::write(&first, WriteOptions { floats: FloatForm::Havok }).unwrap().matches(">FLAG_RAGDOLL|FLAG_NOT_VARIABLE|4096<").count(), 1);
    let bin = first.write().unwrap();
    assert_eq!(binary(&schemas, &bin).objects, first.objects);

    // The bit a signed 16-bit word's sign is: 0x8000 and -32768 read the same.
    let sign = read(&schemas, &with("0x8000"), layout).unwrap();
    assert_eq!(read(&schemas, &with("-32768"), layout).unwrap().objects, sign.objects);
    assert!(read(&schemas, &with("0x10000"), layout).unwrap_err().to_string().contains("65536 is out of range for an enum stored as TYPE_INT16"), "0x10000");

    // An unknown name: located at the parameter, with the object and the member path.
    let line = line_of(&text, at);
    for bad in ["FLAG_RAGDOLL|FLAG_NO_SUCH", "FLAG_NO_SUCH", "FLAG_RAGDOLL|4096|flag_ragdoll"] {
        let err = read(&schemas, &with(bad), layout).unwrap_err().to_string();
        let name = bad.rsplit('|').next().unwrap();
        let want = format!("object {object}, member variableInfos[0].role.flags: \"{name}\" is no item of enum hkbRoleAttribute::RoleFlags");
        assert!(err.contains(&format!("line {line}, column ")) && err.contains(&want), "{bad:?}: {err}\nwant line {line}: {want}");
    }
    // An enum (not flags) takes a name or a number, and no empty text.
    let r = text[..at].rfind(anchor).unwrap() + "<hkparam name=\"role\">".len();
    let role_with = |form: &str| format!("{}{form}{}", &text[..r], &text[r + "ROLE_DEFAULT".len()..]);
    assert_eq!(read(&schemas, &role_with("0"), layout).unwrap().objects, doc.objects);
    assert!(read(&schemas, &role_with(""), layout).unwrap_err().to_string().contains("member variableInfos[0].role.role: a TYPE_ENUM value is missing"));
}

/// Flags with bits their enum has no name for, as Havok and serde-hkx write them: Nemesis's
/// master behaviour holds role flags 5797 (FLAG_RAGDOLL | FLAG_NOT_VARIABLE |
/// FLAG_NOT_CHARACTER_PROPERTY and 5760 unnamed), written
/// `FLAG_RAGDOLL|FLAG_NOT_VARIABLE|FLAG_NOT_CHARACTER_PROPERTY|5760`; no flags value is written
/// as a bare number where a name applies, and the file comes back through XML byte for byte.
#[test]
fn flags_are_written_as_havok_writes_them() {
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, "Project-New-Reign---Nemesis-Main/0_master.hkx") else { return };
    let schemas = schemas();
    let doc = binary(&schemas, &bytes);
    let text = xml::write(&doc, WriteOptions::default()).unwrap();
    assert!(text.contains("<hkparam name=\"flags\">FLAG_RAGDOLL|FLAG_NOT_VARIABLE|FLAG_NOT_CHARACTER_PROPERTY|5760</hkparam>"));
    // Every flags text: names, then at most one number, last.
    let mut forms: BTreeMap<&str, usize> = BTreeMap::new();
    for line in text.lines().filter_map(|l| l.trim().strip_prefix("<hkparam name=\"flags\">")) {
        let value = line.strip_suffix("</hkparam>").unwrap();
        let parts: Vec<&str> = value.split('|').collect();
        let numbers = parts.iter().filter(|p| p.parse::<i64>().is_ok()).count();
        let form = match (parts.len(), numbers) {
            (1, 1) => "number",
            (_, 0) => "names",
            (_, 1) if parts.last().unwrap().parse::<i64>().is_ok() => "names then number",
            _ => panic!("{value}"),
        };
        *forms.entry(form).or_default() += 1;
    }
    eprintln!("{forms:?}");
    assert!(forms["names then number"] > 0 && forms["names"] > 0 && forms["number"] > 0, "{forms:?}");
    let back = read(&schemas, &text, doc.layout()).unwrap();
    assert_eq!(back.write().unwrap(), bytes);
}

/// The member types whose XML is groups of numbers, and the groups Havok writes for each.
fn havok_groups(ty: MemberType) -> Option<&'static [usize]> {
    Some(match ty {
        MemberType::Vector4 | MemberType::Quaternion => &[4],
        MemberType::Matrix3 | MemberType::Rotation => &[3, 3, 3],
        MemberType::QsTransform => &[3, 4, 3],
        MemberType::Transform => &[3, 3, 3, 3],
        MemberType::Matrix4 => &[4, 4, 4, 4],
        _ => return None,
    })
}

/// Per parameter name, the groups Havok writes for it, where every member of that name in the
/// document's classes is of one vector type (or arrays of it).
fn group_members(doc: &PackfileDocument) -> HashMap<String, &'static [usize]> {
    let mut by_name: HashMap<String, Option<&'static [usize]>> = HashMap::new();
    for c in doc.classes.classes.values() {
        for m in &c.members {
            let ty = if matches!(m.ty, MemberType::Array | MemberType::SimpleArray | MemberType::RelArray) { m.subtype } else { m.ty };
            let g = havok_groups(ty);
            by_name.entry(m.name.clone()).and_modify(|e| if *e != g { *e = None }).or_insert(g);
        }
    }
    by_name.into_iter().filter_map(|(n, g)| Some((n, g?))).collect()
}

/// Every group of numbers in `text` under a parameter `groups` knows, as counts per line.
fn group_lines(text: &str, groups: &HashMap<String, &'static [usize]>, mut f: impl FnMut(&str, &[usize], Vec<usize>)) {
    let mut param: Option<&str> = None;
    for line in text.lines() {
        let mut rest = line;
        if let Some(at) = line.find("<hkparam name=\"") {
            let name = &line[at + 15..];
            param = Some(&name[..name.find('"').unwrap()]);
            rest = &name[name.find('>').map_or(name.len(), |k| k + 1)..];
        }
        let Some(want) = param.and_then(|p| groups.get(p)) else { continue };
        if !rest.trim_start().starts_with('(') {
            continue;
        }
        let counts: Vec<usize> = rest.split('(').skip(1).map(|g| g.split(')').next().unwrap().split_ascii_whitespace().count()).collect();
        f(param.unwrap(), want, counts);
    }
}

/// The default XML of every all-typed 2010.2 corpus packfile writes each vector with the number
/// of components Havok writes for its type (hkQsTransform `(3)(4)(3)`, hkVector4 `(4)`,
/// hkMatrix3 `(3)(3)(3)`, ...), as `--floats havok` does; the fourth words 32-bit exporters
/// leave in translations (1.0, where the packer writes 0) are in the object's `lanes=` note, and
/// XML -> binary gives the file's bytes.
#[test]
fn vectors_have_havoks_component_counts() {
    let Some(corpus) = common::corpus() else { return };
    let schemas = schemas();
    let (mut files, mut groups_seen, mut lanes_files) = (0, 0, 0);
    let mut wrong = Vec::new();
    for e in common::manifest(&corpus).into_iter().filter(|e| e.format == "packfile" && e.sdk.contains("2010.2")) {
        let Some(bytes) = common::corpus_file(&corpus, &e.relpath) else { continue };
        let doc = binary(&schemas, &bytes);
        if doc.objects.iter().any(|o| matches!(o.body, Body::Untyped(_))) {
            continue;
        }
        files += 1;
        let members = group_members(&doc);
        for floats in [FloatForm::Shortest, FloatForm::Havok] {
            let text = xml::write(&doc, WriteOptions { floats }).unwrap();
            group_lines(&text, &members, |name, want, counts| {
                groups_seen += 1;
                // An array of vectors is one value a line; a single value is the whole text.
                if counts != want {
                    wrong.push(format!("{} ({floats:?}): {name}: {counts:?}, Havok writes {want:?}", e.relpath));
                }
            });
            if floats == FloatForm::Shortest {
                lanes_files += usize::from(text.contains(" lanes="));
                let layout = xml::stated_layout(text.as_bytes()).unwrap_or(xml::DEFAULT_LAYOUT);
                let back = read(&schemas, &text, layout).unwrap();
                assert!(back.write().unwrap() == bytes, "{}: XML -> binary differs", e.relpath);
            }
        }
    }
    eprintln!("{files} files, {groups_seen} vector values, {lanes_files} with lanes notes");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(files, 31);
    assert!(groups_seen > 1000 && lanes_files > 0, "{groups_seen} {lanes_files}");
}

/// A lanes note names groups by their place; one the object does not have is an error at the
/// note, and a group of four numbers (hkgen's older form) still reads, to the same bytes.
#[test]
fn lanes_notes_read_back() {
    let Some(corpus) = common::corpus() else { return };
    let Some(bytes) = common::corpus_file(&corpus, "soulstruct-havok/PTDE__c2240__Skeleton.HKX") else { return };
    let schemas = schemas();
    let doc = binary(&schemas, &bytes);
    let text = xml::write(&doc, WriteOptions::default()).unwrap();
    let layout = xml::stated_layout(text.as_bytes()).unwrap_or(xml::DEFAULT_LAYOUT);
    let note = text.find(" lanes=").expect("a lanes note");
    let list_end = note + text[note..].find(" -->").unwrap();
    let list = &text[note + 7..list_end];
    let n = list.split(',').count();
    // Dark Souls' exporter left 1.0 in the root's translation, and other words in others.
    assert!(list.starts_with("0:0x3f800000,"), "{list}");
    assert!(list.split(',').all(|l| l.split_once(':').is_some_and(|(k, w)| k.parse::<usize>().is_ok() && w.starts_with("0x"))), "{list}");
    // Without the note the translations' w reads as the packer's 0: other bytes.
    let without = format!("{}{}", &text[..note], &text[list_end..]);
    let plain = read(&schemas, &without, layout).unwrap();
    assert_ne!(plain.write().unwrap(), bytes);
    // A lane beyond the object's groups.
    let beyond = format!("{},{}:0x3f800000{}", &text[..list_end], n * 10, &text[list_end..]);
    let err = read(&schemas, &beyond, layout).unwrap_err().to_string();
    assert!(err.contains(&format!("hkgen:object: lane {}: the object has no such group of three numbers", n * 10)), "{err}");
    // The older form: the fourth number in the group, no note.
    let mut four = without;
    let first_pose = four.find("<hkparam name=\"referencePose\"").unwrap();
    let line_at = first_pose + four[first_pose..].find('\n').unwrap() + 1;
    let close = line_at + four[line_at..].find(')').unwrap();
    four.insert_str(close, " 1");
    let old = read(&schemas, &four, layout).unwrap();
    assert_ne!(old.objects, plain.objects, "the fourth number is read");
}
