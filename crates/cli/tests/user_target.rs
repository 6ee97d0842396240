//! `p4bpf test --target user`: every corpus `*_ebpf*.stf` and every test of
//! our own (`tests/stf`) passes in the user-space target, whose host
//! program is built with AddressSanitizer and UBSan (a sanitizer report
//! ends it and fails the packet). Needs no root: skips, saying why, only
//! without clang (or without the corpus, for the corpus part).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn clang_missing() -> bool {
    Command::new("clang").arg("--version").output().is_err()
}

/// The hooks a script runs at: those of its `# hooks:` line, else both.
fn hooks_of(script: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(script).unwrap_or_default();
    match text.lines().find_map(|line| line.strip_prefix("# hooks:")) {
        Some(hooks) => hooks.split_whitespace().map(str::to_string).collect(),
        None => vec!["xdp".to_string(), "tc".to_string()],
    }
}

/// Runs the wanted scripts of `folder` on the user target; runs and failures.
fn run_folder(folder: &Path, wanted: impl Fn(&str) -> bool) -> (usize, Vec<String>) {
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(folder)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    scripts.retain(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with(".stf") && wanted(n))
    });
    scripts.sort();
    let mut failures = Vec::new();
    let mut runs = 0;
    for script in &scripts {
        let program = script.with_extension("p4");
        for hook in hooks_of(script) {
            runs += 1;
            let run = Command::new(env!("CARGO_BIN_EXE_p4bpf"))
                .arg("test")
                .arg(&program)
                .arg(script)
                .args(["--target", "user", "--hook", &hook])
                // Written for the reference harness, P4TC programs' too.
                .args(["--stf-reading", "reference"])
                .output();
            match run {
                Ok(out) if out.status.success() => {}
                Ok(out) => failures.push(format!(
                    "{} at {hook}:\n{}{}",
                    script.display(),
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                )),
                Err(e) => failures.push(format!("{}: cannot run p4bpf: {e}", script.display())),
            }
        }
    }
    (runs, failures)
}

fn assert_all_pass(runs: usize, failures: &[String]) {
    assert!(runs > 0);
    assert!(
        failures.is_empty(),
        "{} of {runs} runs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn corpus_ebpf_stf_files_pass_in_user_space() {
    let Some(corpus) = common::corpus_dir() else {
        eprintln!(
            "SKIPPED corpus_ebpf_stf_files_pass_in_user_space: ../shared/corpus/p4c is absent"
        );
        return;
    };
    if clang_missing() {
        eprintln!("SKIPPED corpus_ebpf_stf_files_pass_in_user_space: clang is not installed");
        return;
    }
    let (runs, failures) = run_folder(&corpus.join("p4_16_samples"), |name| name.contains("_ebpf"));
    assert_all_pass(runs, &failures);
}

#[test]
fn own_stf_tests_pass_in_user_space() {
    if clang_missing() {
        eprintln!("SKIPPED own_stf_tests_pass_in_user_space: clang is not installed");
        return;
    }
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/stf");
    let (runs, failures) = run_folder(&folder, |_| true);
    assert_all_pass(runs, &failures);
}

/// A failing expectation fails on the user target too (the runner is the
/// kernel's: same report, same exit status).
#[test]
fn a_wrong_expectation_fails_in_user_space() {
    if clang_missing() {
        eprintln!("SKIPPED a_wrong_expectation_fails_in_user_space: clang is not installed");
        return;
    }
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/stf");
    let dir = std::env::temp_dir().join(format!("p4bpf-user-wrong-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let original =
        std::fs::read_to_string(folder.join("xdp_tx_and_resize.stf")).unwrap_or_default();
    // Every expected byte pattern gets one byte more than the program sends.
    let broken: String = original
        .lines()
        .map(|l| {
            if l.starts_with("expect") {
                format!("{} ff$\n", l.trim_end().trim_end_matches('$'))
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let script = dir.join("wrong.stf");
    let _ = std::fs::write(&script, broken);
    let out = Command::new(env!("CARGO_BIN_EXE_p4bpf"))
        .arg("test")
        .arg(folder.join("xdp_tx_and_resize.p4"))
        .arg(&script)
        .args(["--target", "user"])
        .output();
    let _ = std::fs::remove_dir_all(&dir);
    let out = out.map(|o| {
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
        )
    });
    let (passed, text) = out.unwrap_or_default();
    assert!(!passed && text.contains("FAIL"), "{text}");
}

/// `p4bpf run`: a capture through xdp_dec_ttl in user space comes out on
/// port 0 as a capture of the same packets with the TTL one lower.
#[test]
fn run_writes_one_capture_per_output_port() {
    let Some(corpus) = common::corpus_dir() else {
        eprintln!("SKIPPED run_writes_one_capture_per_output_port: ../shared/corpus/p4c is absent");
        return;
    };
    if clang_missing() {
        eprintln!("SKIPPED run_writes_one_capture_per_output_port: clang is not installed");
        return;
    }
    let packet = |ttl: u8| {
        let mut p = vec![0u8; 14 + 20];
        p[12] = 0x08;
        p[14] = 0x45;
        p[22] = ttl;
        p
    };
    let record = |data: Vec<u8>| p4bpf_runtime::pcap::Record {
        seconds: 1,
        micros: 2,
        data,
    };
    let dir = std::env::temp_dir().join(format!("p4bpf-user-run-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let input = dir.join("in.pcap");
    let _ = std::fs::write(
        &input,
        p4bpf_runtime::pcap::write(&[record(packet(64)), record(packet(0))]),
    );
    let out = Command::new(env!("CARGO_BIN_EXE_p4bpf"))
        .arg("run")
        .arg(corpus.join("p4_16_samples/xdp_dec_ttl_ebpf-kernel.p4"))
        .arg("--in")
        .arg(&input)
        .arg("--out")
        .arg(dir.join("out.pcap"))
        .output();
    let written = std::fs::read(dir.join("out-0.pcap")).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = out
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    assert!(stdout.contains("2 packets: 2 sent out"), "{stdout}");
    assert_eq!(
        p4bpf_runtime::pcap::parse(&written),
        Ok(vec![record(packet(63)), record(packet(255))])
    );
}

/// `p4bpf fuzz`: the kernel and user targets agree on a few thousand random
/// and mutated packets at TC, where resizing and the test run's input
/// rules differ most from XDP. Needs root for the kernel side.
#[test]
fn fuzz_finds_no_difference_between_kernel_and_user() {
    let Some(corpus) = common::corpus_dir() else {
        eprintln!("SKIPPED fuzz_finds_no_difference_between_kernel_and_user: ../shared/corpus/p4c is absent");
        return;
    };
    if let Err(why) = p4bpf_runtime::check_bpf_available() {
        eprintln!("SKIPPED fuzz_finds_no_difference_between_kernel_and_user: {why}");
        return;
    }
    if clang_missing() {
        eprintln!(
            "SKIPPED fuzz_finds_no_difference_between_kernel_and_user: clang is not installed"
        );
        return;
    }
    let dir = std::env::temp_dir().join(format!("p4bpf-user-fuzz-{}", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_p4bpf"))
        .arg("fuzz")
        .arg(corpus.join("p4_16_samples/two_ebpf.p4"))
        .args([
            "--packets",
            "3000",
            "--seed",
            "7",
            "--hook",
            "tc",
            "--repro-dir",
        ])
        .arg(&dir)
        .output();
    let _ = std::fs::remove_dir_all(&dir);
    let out = out.map(|o| {
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
        )
    });
    let (passed, text) = out.unwrap_or_default();
    assert!(
        passed && text.contains("PASS: 3000 packets, 0 mismatch"),
        "{text}"
    );
}
