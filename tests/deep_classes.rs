//! Debug builds keep every temporary of a generated reader on the stack, and a class holds its
//! base and its struct members inline, so the biggest classes make the deepest frames. Every class
//! of every enabled SDK is read (from zero bytes), visited, written and dropped on a thread with
//! the 2 MiB stack that test threads get by default, biggest first: no stack overflow.
//! Runs for the enabled SDK features: `cargo test --features all-sdks --test deep_classes`.

use hktypes::value::{NoItems, TagfileClass, Reader, SourceIndices, Target, Writer};

fn all_classes() -> Vec<(&'static str, &'static TagfileClass)> {
    let mut v: Vec<(&'static str, &'static TagfileClass)> = Vec::new();
    for sdk in hkgen::codegen::sdk_versions(Some(hkgen::codegen::SdkFiles::Tagfile)) {
        v.extend(hkclasses::classes_for_sdk(sdk).iter().filter_map(|e| Some((e.name, e.as_tagfile()?))));
    }
    v.sort_by(|a, b| b.1.size.cmp(&a.1.size).then(a.0.cmp(b.0)));
    v
}

#[test]
fn biggest_classes_read_write_and_drop_on_a_2_mib_stack() {
    let classes = all_classes();
    if classes.is_empty() {
        eprintln!("no SDK feature enabled; nothing to check");
        return; // not-a-skip: no SDK feature, no corpus read
    }
    let biggest = classes[0];
    let handle = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            for (name, e) in &classes {
                let zeros = vec![0u8; e.size];
                let obj = (e.read)(&Reader::new(&zeros, 0, &NoItems)).unwrap_or_else(|err| panic!("{}: {err}", name));
                let mut refs = 0;
                obj.visit_object_refs(&mut |_: usize, _: Target<'_>| refs += 1);
                assert_eq!(refs, 0, "{}: zero bytes hold no references", name);
                let mut out = vec![0u8; e.size];
                obj.write_object(&mut Writer::new(&mut out, 0, &mut SourceIndices { data: &zeros, base: 0 }))
                    .unwrap_or_else(|err| panic!("{}: {err}", name));
                assert_eq!(out, zeros, "{}", name);
                drop(obj);
            }
            classes.len()
        })
        .unwrap();
    let n = handle.join().expect("the reader thread finished (no stack overflow)");
    eprintln!("{n} classes; the biggest, {}, has {} bytes", biggest.0, biggest.1.size);
}
