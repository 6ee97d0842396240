//! Diagnostic snapshots: every `tests/diagnostics/NAME.p4` is checked and its
//! stderr compared exactly with `NAME.stderr` beside it. `BLESS=1 cargo test`
//! rewrites the snapshots from the current output; review the diff.
//!
//! A snapshot with an `error:` line also fixes the exit status at 1, one
//! without at 0, so a program cannot start passing silently.

mod common;

use common::{p4bpf_in, stderr};
use std::path::{Path, PathBuf};

fn programs(dir: &Path) -> Vec<PathBuf> {
    let mut programs: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("tests/diagnostics exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "p4"))
        .collect();
    programs.sort();
    programs
}

#[test]
fn diagnostics_match_their_snapshots() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/diagnostics");
    let bless = std::env::var_os("BLESS").is_some_and(|v| v != "0");
    let mut mismatches = Vec::new();
    for program in programs(&dir) {
        let name = program
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let out = p4bpf_in(&dir, &["check", &name]);
        let actual = stderr(&out);
        let snapshot = program.with_extension("stderr");
        if bless {
            std::fs::write(&snapshot, &actual).expect("snapshot written");
            continue;
        }
        let expected = std::fs::read_to_string(&snapshot).unwrap_or_default();
        if actual != expected {
            mismatches.push(format!(
                "{name}: stderr differs\n--- expected\n{expected}--- actual\n{actual}"
            ));
        }
        let expected_status = if expected.lines().any(|l| l.contains("error:")) {
            1
        } else {
            0
        };
        if out.status.code() != Some(expected_status) {
            mismatches.push(format!(
                "{name}: exit status {:?}, expected {expected_status}",
                out.status.code()
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{}\n\n{} snapshot(s) differ; if the new output is right, run `BLESS=1 cargo test` and review the diff",
        mismatches.join("\n\n"),
        mismatches.len()
    );
}
