//! What changed between two schema snapshots, from code (what `hkgen schema-diff` prints): by default
//! the committed SDK 2016.2 (Sekiro) and 2018.1 (Elden Ring) snapshots.
//!
//! `cargo run --example diff_snapshots -- [OLD] [NEW]`; each a snapshot directory (holding
//! `sdk.ron`) or `REV:path` for a git revision (`HEAD~3:schemas/2018.1`).

use hkgen::diff::{diff, markdown, Change};
use hkgen::schema::snapshot;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let old = args.next().unwrap_or_else(|| "schemas/2016.2".into());
    let new = args.next().unwrap_or_else(|| "schemas/2018.1".into());
    let changes = diff(&snapshot::open(&old)?, &snapshot::open(&new)?);
    // The classes whose layout changed, as a Markdown table ending in a summary line.
    print!("{}", markdown(&changes, false));
    println!();
    for c in changes.iter().filter(|c| c.change == Change::Changed && !c.added.is_empty()).take(5) {
        println!("{}: version {:?} -> {:?}, members added: {}", c.class, c.version.0, c.version.1, c.added.join(", "));
    }
    Ok(())
}
