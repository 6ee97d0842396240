//! `p4bpf test --target veth` end to end: every STF script (ours in
//! `tests/stf/` and the corpus's `*_ebpf*.stf`) that passes on `--target
//! kernel` at XDP must pass on veth pairs too. Skips, saying why, without
//! root/BPF, clang or `ip`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn unavailable() -> Option<String> {
    if let Err(why) = p4bpf_runtime::check_bpf_available() {
        return Some(why.to_string());
    }
    for tool in ["clang", "ip"] {
        if Command::new(tool).arg("-V").output().is_err() {
            return Some(format!("`{tool}` is not installed"));
        }
    }
    None
}

fn scripts(folder: &Path, wanted: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(folder)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    found.retain(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with(".stf") && wanted(n))
    });
    found.sort();
    found
}

/// The program of a script: `NAME.p4`, or `NAME.p4` for `NAME-kernel.stf`.
fn program_of(script: &Path) -> PathBuf {
    let plain = script.with_extension("p4");
    if plain.exists() {
        return plain;
    }
    let text = script.to_string_lossy().replace("-kernel.stf", ".p4");
    PathBuf::from(text)
}

fn passes(program: &Path, script: &Path, target: &str) -> (bool, String) {
    let run = Command::new(env!("CARGO_BIN_EXE_p4bpf"))
        .arg("test")
        .arg(program)
        .arg(script)
        .args(["--target", target, "--hook", "xdp"])
        .output();
    match run {
        Ok(out) => (
            out.status.success(),
            format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
        ),
        Err(e) => (false, e.to_string()),
    }
}

#[test]
fn what_passes_in_the_kernel_passes_on_veth() {
    if let Some(why) = unavailable() {
        eprintln!("skipped: {why}");
        return;
    }
    let ours = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/stf");
    let mut all = scripts(&ours, |_| true);
    match common::corpus_dir() {
        Some(corpus) => all.extend(scripts(&corpus.join("p4_16_samples"), |n| {
            n.contains("_ebpf")
        })),
        None => eprintln!("the corpus is not beside the repository: only our own scripts run"),
    }
    let mut compared = 0;
    let mut failures = Vec::new();
    for script in &all {
        let program = program_of(script);
        if !passes(&program, script, "kernel").0 {
            continue;
        }
        compared += 1;
        let (ok, output) = passes(&program, script, "veth");
        if !ok {
            failures.push(format!("{}:\n{output}", script.display()));
        }
    }
    println!(
        "{compared} scripts pass in the kernel; {} of them fail on veth",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
