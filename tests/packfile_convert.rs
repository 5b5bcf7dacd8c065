//! Platform conversion of packfiles through their objects: BotW files read from Wii U (4,0,0,1)
//! written as Switch (8,1,1,1) and back, and compared with the stock Switch files where the corpus
//! has the same file for both platforms.

mod common;

use hkgen::reflection::check::ClassSchemas;
use hktypes::packfile::objects::PackfileDocument;
use hktypes::packfile::{LayoutRules, PackFile};

fn botw_schema() -> Option<hkgen::schema::model::ClassSchema> {
    let schemas = ClassSchemas::load(&common::workspace_root().join("schemas")).unwrap();
    schemas.by_sdk.get("2014.2").cloned()
}

/// Every corpus BotW Wii U packfile: Wii U -> Switch -> Wii U gives the stock bytes, and the
/// Switch bytes read back as a Switch file with the same objects.
#[test]
fn botw_wiiu_to_switch_and_back_is_exact() {
    let Some(corpus) = common::corpus() else { return };
    let schema = botw_schema().expect("schemas/2014.2");
    let (mut files, mut exact) = (0, 0);
    let mut bad = Vec::new();
    for e in common::manifest(&corpus).into_iter().filter(|e| e.format == "packfile" && e.sdk == "hk_2014.2.0-r1") {
        let bytes = std::fs::read(&e.path).unwrap();
        let doc = PackfileDocument::read(&bytes, &schema).unwrap();
        if doc.layout() != LayoutRules::WII_U {
            continue;
        }
        files += 1;
        let switch = match doc.write_as(LayoutRules::SWITCH) {
            Ok(b) => b,
            Err(err) => {
                bad.push(format!("{}: to Switch: {err}", e.relpath));
                continue;
            }
        };
        let sw = PackfileDocument::read(&switch, &schema).unwrap();
        assert_eq!(sw.layout(), LayoutRules::SWITCH);
        assert_eq!(sw.counts(), doc.counts(), "{}", e.relpath);
        assert_eq!(sw.objects, doc.objects, "{}: objects differ after conversion", e.relpath);
        let back = sw.write_as(LayoutRules::WII_U).unwrap();
        if back == bytes {
            exact += 1;
        } else {
            let at = back.iter().zip(&bytes).position(|(a, b)| a != b).unwrap_or(back.len().min(bytes.len()));
            bad.push(format!("{}: Wii U -> Switch -> Wii U differs at {at:#x}", e.relpath));
        }
    }
    eprintln!("BotW Wii U -> Switch -> Wii U: {exact} of {files} files exact");
    for b in &bad {
        eprintln!("  {b}");
    }
    assert!(files > 0 || corpus.as_os_str().is_empty());
    assert_eq!(exact, files);
}

/// The corpus holds Moriblin_Blue.hkrg and Enemy_Moriblin.hkcl for both platforms (from two
/// different actor packs). Converting the Wii U file to Switch is compared with the stock Switch
/// file: equal, or where they differ.
#[test]
fn botw_wiiu_converted_against_stock_switch() {
    let Some(corpus) = common::corpus() else { return };
    let schema = botw_schema().expect("schemas/2014.2");
    let pairs = [
        (
            "NiceneNerd__UKMM/uk-mod/test/wiiu/content/Actor/Pack/Enemy_Moriblin_Dark.sbactorpack/Ragdoll/Moriblin_Blue/Moriblin_Blue.hkrg",
            "NiceneNerd__UKMM/crates/uk-content/test/Actor/Pack/Enemy_Moriblin_Junior.sbactorpack/Ragdoll/Moriblin_Blue/Moriblin_Blue.hkrg",
        ),
        (
            "NiceneNerd__UKMM/uk-mod/test/wiiu/content/Actor/Pack/Enemy_Moriblin_Dark.sbactorpack/Cloth/Enemy_Moriblin/Enemy_Moriblin.hkcl",
            "NiceneNerd__UKMM/crates/uk-content/test/Actor/Pack/Enemy_Moriblin_Junior.sbactorpack/Cloth/Enemy_Moriblin/Enemy_Moriblin.hkcl",
        ),
    ];
    for (wiiu, switch) in pairs {
        let (Ok(w), Ok(s)) = (std::fs::read(corpus.join(wiiu)), std::fs::read(corpus.join(switch))) else {
            eprintln!("SKIPPED: pair {wiiu} not in this corpus");
            continue;
        };
        let dw = PackfileDocument::read(&w, &schema).unwrap();
        let ds = PackfileDocument::read(&s, &schema).unwrap();
        let converted = dw.write_as(LayoutRules::SWITCH).unwrap();
        // The stock Switch file goes the other way too.
        let down = ds.write_as(LayoutRules::WII_U).unwrap();
        let report = compare(&dw, &ds);
        eprintln!(
            "{}: converted {} bytes, stock Switch {} bytes, equal: {}; Switch -> Wii U equals stock Wii U: {}; objects {} vs {}; {report}",
            wiiu.rsplit('/').next().unwrap(),
            converted.len(),
            s.len(),
            converted == s,
            down == w,
            dw.objects.len(),
            ds.objects.len(),
        );
        // The ragdoll is the same file on both platforms: the conversion gives the stock Switch
        // bytes, and the stock Switch file converted down gives the stock Wii U bytes.
        if wiiu.ends_with(".hkrg") {
            assert!(converted == s && down == w, "{wiiu}: conversion differs from the stock file of the other platform");
        }
        // The converted file is a Switch file that reads back to the Wii U file's objects.
        let back = PackfileDocument::read(&converted, &schema).unwrap();
        assert_eq!(back.objects, dw.objects);
        assert_eq!(PackFile::read(&converted).unwrap().layout(), LayoutRules::SWITCH);
    }
}

/// The first object whose values differ between two documents, by class and member.
fn compare(a: &PackfileDocument, b: &PackfileDocument) -> String {
    let differing = a.objects.iter().zip(&b.objects).filter(|(x, y)| x != y).count();
    format!("{differing} objects differ in value; {}", first_difference(a, b))
}

fn first_difference(a: &PackfileDocument, b: &PackfileDocument) -> String {
    for (i, (x, y)) in a.objects.iter().zip(&b.objects).enumerate() {
        if x.class != y.class {
            return format!("object {i}: class {} vs {}", x.class, y.class);
        }
        if let (hktypes::packfile::objects::Body::Typed(va), hktypes::packfile::objects::Body::Typed(vb)) = (&x.body, &y.body) {
            let names = a.member_names(&x.class);
            if let Some(k) = va.iter().zip(vb).position(|(p, q)| p != q) {
                let show = |v: &hktypes::packfile::objects::MemberValue| {
                    let s = format!("{v:?}");
                    s.chars().take(160).collect::<String>()
                };
                return format!("first difference: object {i} {}.{}: {} vs {}", x.class, names.get(k).map_or("?", |s| s), show(&va[k]), show(&vb[k]));
            }
        }
    }
    if a.objects.len() != b.objects.len() {
        return format!("the first {} objects agree; object counts differ", a.objects.len().min(b.objects.len()));
    }
    "every object's values agree".into()
}
