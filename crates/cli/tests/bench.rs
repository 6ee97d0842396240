//! `p4bpf bench` end to end on one study program: it compiles, loads, times
//! the program and its twin and prints their row. No timing is asserted
//! (benchmarks are not tests); skips, saying why, without root or clang.

#![allow(clippy::panic)] // a failing test should stop loudly

use std::path::Path;
use std::process::Command;

fn skip_reason() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let root = status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().nth(1))
        == Some("0");
    if !root {
        return Some("loading BPF programs needs root".into());
    }
    if Command::new("clang").arg("--version").output().is_err() {
        return Some("clang is not installed".into());
    }
    None
}

#[test]
fn bench_times_one_program_and_its_twin() {
    if let Some(why) = skip_reason() {
        eprintln!("skipped: {why}");
        return;
    }
    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench");
    let output = Command::new(env!("CARGO_BIN_EXE_p4bpf"))
        .arg("bench")
        .arg(&suite)
        .args([
            "--only",
            "mac_swap",
            "--no-matrix",
            "--no-write",
            "--repeat",
            "1000",
            "--rounds",
            "1",
        ])
        .output();
    let Ok(output) = output else {
        panic!("cannot run p4bpf");
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "p4bpf bench failed:\n{stderr}");
    let row = stdout.lines().find(|l| l.starts_with("| mac_swap |"));
    let Some(row) = row else {
        panic!("no mac_swap row in:\n{stdout}");
    };
    // Both programs were timed and counted: no "-" where a figure belongs.
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    assert!(
        cells.get(4).is_some_and(|ns| ns.parse::<f64>().is_ok()),
        "{row}"
    );
    assert!(
        cells.get(5).is_some_and(|ns| ns.parse::<f64>().is_ok()),
        "{row}"
    );
    assert!(stdout.contains("| drop (C) | plain |"), "{stdout}");
}
