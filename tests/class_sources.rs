//! The complete class sources (serde-hkx for 2010.2, DSMapStudio for 2014.1) against what they
//! state and what the corpus files store.

mod common;

use hkgen::reflection::facts::{self, SourceFacts};
use hkgen::reflection::{dsmapstudio, serde_hkx};

fn report(name: &str, f: &SourceFacts) {
    let sig = facts::signature_disagreements(f);
    eprintln!("{name}: {} classes, {} enums, {} signature disagreements", f.schema.classes.len(), f.schema.enums.len(), sig.len());
    for d in sig.iter() {
        eprintln!("  sig {d}");
    }
    eprintln!("  interfaces: {:?}", f.schema.overrides.keys().collect::<Vec<_>>());
    for r in f.layouts.keys() {
        let (n, d) = facts::layout_disagreements(f, hktypes::packfile::LayoutRules::parse(r).unwrap());
        eprintln!("  layout {r}: {n} facts, {} disagree", d.len());
        for x in d.iter().take(60) {
            eprintln!("    {x}");
        }
    }
}

#[test]
fn explore() {
    let Some(corpus) = common::corpus() else { return };
    let cd = common::classdata(&corpus);
    let s = serde_hkx::load(&cd.join(serde_hkx::FOLDER)).unwrap();
    report("serde-hkx", &s);
    let (d, flags) = dsmapstudio::load(&cd.join(dsmapstudio::FOLDER)).unwrap();
    eprintln!("recovered flags: {}", flags.len());
    for f in &flags { eprintln!("  {f:?}"); }
    report("dsmapstudio", &d);
}
