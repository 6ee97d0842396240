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

/// The files of `dir` whose names `keep` accepts, sorted.
pub fn files_where(dir: &Path, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(&keep));
    files.sort();
    files
}

/// One STF file's runs on several targets: (passed, target, output).
pub type TargetRuns = [(bool, String, String)];

/// A corpus suite's tally against its list of known gaps (program stem,
/// the text its failure must still show).
#[derive(Default)]
pub struct GapTally {
    pub passed: usize,
    pub problems: Vec<String>,
}

impl GapTally {
    /// Counts `stem` as passed when every run passed and it is no known
    /// gap; a known gap must still fail with its reason, so a fixed gap
    /// is noticed and taken off the list.
    pub fn judge(&mut self, stem: &str, runs: &TargetRuns, known: &[(&str, &str)]) {
        match known.iter().find(|(name, _)| *name == stem) {
            None if runs.iter().all(|(ok, _, _)| *ok) => self.passed += 1,
            None => self.problems.extend(
                runs.iter()
                    .filter(|(ok, _, _)| !ok)
                    .map(|(_, target, text)| format!("{stem} ({target}):\n{text}")),
            ),
            Some((_, reason)) => {
                if !runs
                    .iter()
                    .any(|(ok, _, text)| !ok && text.contains(reason))
                {
                    self.problems.push(format!(
                        "{stem} no longer fails with \"{reason}\": remove it from KNOWN_GAPS"
                    ));
                }
            }
        }
    }
}
