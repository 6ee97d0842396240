//! What the CLI's integration tests share: running the `p4bpf` binary, and
//! finding the corpus and scratch folders.

#![allow(dead_code)] // each test file uses its own part of this module

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs `p4bpf` with `args` in `dir`.
pub fn p4bpf_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_p4bpf"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("the p4bpf binary runs")
}

pub fn p4bpf(args: &[&str]) -> Output {
    p4bpf_in(Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The reference compiler's corpus, beside the repository as `../shared`.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/p4c");
    dir.is_dir().then_some(dir)
}

/// A fresh, empty folder for one test.
pub fn scratch_dir(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// Writes `text` to `dir/name`, creating folders on the way.
pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("scratch folder");
    }
    std::fs::write(&path, text).expect("scratch file");
    path
}

/// Why tests that compile and load programs cannot run here, if they
/// cannot: no BPF (not root, no bpffs) or no clang.
pub fn kernel_unavailable() -> Option<String> {
    if let Err(why) = p4bpf_runtime::check_bpf_available() {
        return Some(why.to_string());
    }
    Command::new("clang")
        .arg("--version")
        .output()
        .err()
        .map(|_| "clang is not installed".to_string())
}
