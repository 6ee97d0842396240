//! A python with p4runtime-shell in the target's scratch folder, made on
//! first use as `tests/p4runtime.rs` makes it (the same venv), so that
//! `--test p4regint_p4runtime` runs on a clean clone, before that test.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The venv's python, installed once however many tests ask at once.
pub fn python_with_shell() -> Result<PathBuf, String> {
    static PYTHON: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    PYTHON.get_or_init(install_shell).clone()
}

fn has_shell(python: &Path) -> bool {
    Command::new(python)
        .args(["-c", "import p4runtime_sh.shell"])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn install_shell() -> Result<PathBuf, String> {
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("p4runtime-venv");
    let python = venv.join("bin/python");
    if has_shell(&python) {
        return Ok(python);
    }
    let made = Command::new("python3")
        .arg("-m")
        .arg("venv")
        .arg(&venv)
        .output();
    if !made.is_ok_and(|o| o.status.success()) {
        return Err("python3 -m venv failed (install python3 and python3-venv)".into());
    }
    let pip = Command::new(venv.join("bin/pip"))
        .args(["install", "--quiet", "p4runtime-shell"])
        .output()
        .map_err(|e| format!("pip: {e}"))?;
    if !pip.status.success() || !has_shell(&python) {
        return Err(format!(
            "pip could not install p4runtime-shell (is PyPI reachable?): {}",
            String::from_utf8_lossy(&pip.stderr)
        ));
    }
    Ok(python)
}
