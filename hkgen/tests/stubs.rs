//! The Python type stubs of the package (`python/hkgen/classes/<module>.pyi`) are what
//! `hkgen::codegen::stubs` generates from the committed snapshots, and they type members as the
//! package reads them. Regenerate with `hkgen stubs --out python/hkgen/classes`.

use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
}

#[test]
fn committed_stubs_are_generated() {
    let out = std::env::temp_dir().join(format!("hkgen-stubs-{}", std::process::id()));
    let done = hkgen::codegen::generate_stubs(&root().join("schemas"), &out, hkgen::codegen::SDKS)
        .unwrap();
    assert_eq!(done.len(), 4);
    for path in &done {
        let name = path.file_name().unwrap();
        let committed = root().join("python/hkgen/classes").join(name);
        let generated = std::fs::read_to_string(path).unwrap();
        let committed = std::fs::read_to_string(&committed).unwrap_or_else(|e| {
            panic!(
                "{}: {e}; run hkgen stubs --out python/hkgen/classes",
                committed.display()
            )
        });
        assert!(
            committed == generated,
            "python/hkgen/classes/{} is not what the generator writes; run hkgen stubs --out python/hkgen/classes",
            name.to_string_lossy()
        );
    }
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn stubs_type_members_as_the_package_reads_them() {
    let schema = hkgen::schema::snapshot::read(&root().join("schemas/2018.1")).unwrap();
    let overlay =
        hkgen::codegen::overlay::Overlay::read(&root().join("schemas/enums.ron")).unwrap();
    let text = hkgen::codegen::stubs::render(&schema, &overlay).unwrap();
    let class = |name: &str| -> Vec<&str> {
        let head = format!("class {name}(");
        let start = text
            .lines()
            .position(|l| l.starts_with(&head))
            .unwrap_or_else(|| panic!("no class {name}"));
        text.lines()
            .skip(start)
            .take_while(|l| !l.is_empty())
            .collect()
    };
    let body = class("hknpBodyCinfo");
    assert_eq!(body[0], "class hknpBodyCinfo(Record):");
    for line in [
        "    motionType: hknpMotionType_Enum",
        "    mass: float",
        "    name: Optional[str]",
        "    position: tuple[float, ...]",
        "    shape: Optional[hknpShape]",
        "    desiredBodyId: hknpBodyId",
    ] {
        assert!(body.contains(&line), "{line:?} not in {body:#?}");
    }
    assert_eq!(body.len(), 2 + 22, "{body:#?}");
    let motion = class("hknpMotionType_Enum");
    assert_eq!(motion[0], "class hknpMotionType_Enum(enum.IntEnum):");
    assert!(motion.contains(&"    KEYFRAMED = 1"), "{motion:#?}");
    let skeleton = class("hkaSkeleton");
    assert_eq!(skeleton[0], "class hkaSkeleton(hkReferencedObject):");
    assert!(
        skeleton.contains(&"    bones: list[hkaBone]"),
        "{skeleton:#?}"
    );
    assert!(
        skeleton.contains(&"    parentIndices: memoryview"),
        "{skeleton:#?}"
    );
}

#[test]
fn writer_quotes_docstrings_and_rejects_keywords() {
    use hkgen::codegen::stubs::{is_py_name, PyWriter};
    let mut w = PyWriter::default();
    w.line("class A:");
    w.indented(|w| w.docstring("a \"b\"\\c\nd"));
    assert_eq!(
        w.finish(),
        "class A:\n    \"\"\"a \\\"b\\\"\\\\c\\nd\"\"\"\n"
    );
    assert!(is_py_name("motionType") && is_py_name("_x1"));
    assert!(
        !is_py_name("None")
            && !is_py_name("class")
            && !is_py_name("1a")
            && !is_py_name("a-b")
            && !is_py_name("")
    );
}
