//! The schema tool's errors name where they happened: a snapshot file's line, column and byte, the
//! SDK and type/field path of a schema the code generator cannot generate from, the place in a
//! registry dump.

use hkgen::error::{CodegenInputError, SchemaError};
use hkgen::Error;
use std::path::Path;

fn fixture() -> hkgen::schema::Schema {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/codegen/fixture");
    hkgen::schema::snapshot::read(&dir).expect("fixture schema reads")
}

#[test]
fn a_field_of_an_unknown_type_names_the_sdk_the_class_and_the_field() {
    let mut schema = fixture();
    let body_id = schema.types.get_mut("hknpBodyId").expect("the fixture has hknpBodyId");
    let field = body_id.fields.as_mut().and_then(|f| f.first_mut()).expect("hknpBodyId has a field");
    field.ty = "NoSuchType".into();
    let name = field.name.clone();
    let e = match hkgen::codegen::Config::new().render(&schema) {
        Ok(_) => panic!("a field of an unknown type generated"),
        Err(e) => e,
    };
    let Error::Codegen(CodegenInputError { sdk, path, .. }) = &e else { panic!("not a code generator error: {e}") };
    assert_eq!(sdk.as_deref(), Some(schema.sdk.as_str()), "{e}");
    assert_eq!(path, &["hknpBodyId".to_owned(), name.clone()], "{e}");
    assert_eq!(e.to_string(), format!("SDK {} in hknpBodyId.{name}: unknown type \"NoSuchType\"", schema.sdk));
}

#[test]
fn a_snapshot_syntax_error_names_file_line_column_and_byte() {
    let sdk = "(\n  sdk: \"2018.1\",\n  sdkv: 20180100,\n)";
    let e = hkgen::schema::snapshot::parse("fixture/sdk.ron", sdk, Vec::new()).unwrap_err();
    let Error::Schema(SchemaError { file, position: Some(p), .. }) = &e else { panic!("not located: {e}") };
    assert_eq!(file.as_deref(), Some("fixture/sdk.ron"));
    assert_eq!(p.line, 3, "{e}");
    assert_eq!(p.offset, sdk.lines().take(2).map(|l| l.len() + 1).sum::<usize>().checked_add(p.column - 1), "{e}");
    assert!(e.to_string().starts_with("fixture/sdk.ron:3:"), "{e}");
}

#[cfg(feature = "tool")]
#[test]
fn a_registry_error_names_line_column_and_byte() {
    let xml = "<HavokTypeRegistry Version=\"20180100\">\n  <HavokType Id=\"1\" Name=\"hkBaseObject\" Parent=\"7\"/>\n</HavokTypeRegistry>";
    let e = hkgen::registry::import(xml).unwrap_err();
    let Error::Registry(r) = &e else { panic!("not a registry error: {e}") };
    let p = r.position.expect("located");
    assert_eq!((p.line, p.column, p.offset), (2, 3, xml.find("<HavokType ")), "{e}");
    assert!(e.to_string().starts_with("line 2:3 (byte "), "{e}");
}

#[cfg(feature = "tool")]
#[test]
fn a_registry_of_an_unknown_version_is_a_located_error() {
    // The Optionals bits differ per SDK; a version without a known mapping is refused, not guessed.
    let xml = "<HavokTypeRegistry Version=\"20200100\">\n</HavokTypeRegistry>";
    let e = hkgen::registry::import(xml).unwrap_err();
    let Error::Registry(r) = &e else { panic!("not a registry error: {e}") };
    assert_eq!(r.position.map(|p| (p.line, p.column)), Some((1, 1)), "{e}");
    assert!(e.to_string().contains("20200100") && e.to_string().contains("20190100"), "{e}");
    // 2019.1: a type's flags are present where `Flags` is nonzero; a missing `Flags` is an error at
    // that type.
    let xml = "<HavokTypeRegistry Version=\"20190100\">\n  <HavokType Id=\"1\" Name=\"void\" Parent=\"0\" Optionals=\"0\"/>\n</HavokTypeRegistry>";
    let e = hkgen::registry::import(xml).unwrap_err();
    let Error::Registry(r) = &e else { panic!("not a registry error: {e}") };
    assert_eq!(r.position.map(|p| p.line), Some(2), "{e}");
    assert!(e.to_string().contains("Flags"), "{e}");
}
