//! `hkgen verify` of bytes a test made, by the `hkgen` binary this test is built with: for the
//! tests that need the binary (`required-features = ["cli"]`), so kept out of `common/mod.rs`,
//! which every test includes. Include it with `#[path = "common/hkgen_verify.rs"] mod hkgen_verify;`.

use std::path::Path;
use std::process::Command;

/// Writes `bytes` as `name` (a `/` made `__`) under the test's target folder `dir` and runs
/// `hkgen verify` on it: `Err` with its output when it does not pass.
pub fn verify(dir: &str, bytes: &[u8], name: &str) -> Result<(), String> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join(name.replace('/', "__"));
    std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let out = Command::new(env!("CARGO_BIN_EXE_hkgen")).arg("verify").arg(&path).output().map_err(|e| format!("hkgen verify: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("hkgen verify {name}: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
    }
}
