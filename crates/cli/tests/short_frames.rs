//! Frames `BPF_PROG_TEST_RUN` refuses (shorter than 14 bytes; at TC, an
//! IPv4 EtherType without a whole IPv4 header) on the kernel target: they
//! run through a TUN device at the pipeline's own hook, with the same
//! maps as the packets test-run takes, and the report says which ones
//! did. Every script of `tests/short_frames` passes at XDP and TC in the
//! kernel (needs BPF) and in user space (needs clang).

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

const NOTE: &str = "sent through a TUN device";

fn scripts() -> Vec<PathBuf> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/short_frames");
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(folder)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    scripts.retain(|p| p.extension().is_some_and(|e| e == "stf"));
    scripts.sort();
    assert!(!scripts.is_empty(), "no scripts in tests/short_frames");
    scripts
}

fn run(script: &Path, target: &str, hook: &str) -> Output {
    let program = script.with_extension("p4");
    common::p4bpf(&[
        "test",
        &program.to_string_lossy(),
        &script.to_string_lossy(),
        "--target",
        target,
        "--hook",
        hook,
    ])
}

/// Every script at both hooks on `target`: the failures' output, and how
/// many packets went through a TUN device.
fn failures_and_notes(target: &str) -> (Vec<String>, Vec<(String, usize)>) {
    let mut failures = vec![];
    let mut notes = vec![];
    for script in scripts() {
        for hook in ["xdp", "tc"] {
            let out = run(&script, target, hook);
            let text = common::stdout(&out);
            if !out.status.success() {
                failures.push(format!(
                    "{} at {hook}:\n{text}{}",
                    script.display(),
                    common::stderr(&out)
                ));
            }
            notes.push((hook.to_string(), text.matches(NOTE).count()));
        }
    }
    (failures, notes)
}

#[test]
fn short_frames_pass_in_the_kernel_through_a_tun_device() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED short_frames_pass_in_the_kernel_through_a_tun_device: {why}");
        return;
    }
    let (failures, notes) = failures_and_notes("kernel");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // short_lengths.stf: 5 frames under 14 bytes at either hook, and 2
    // IPv4-typed frames under 34 bytes that only TC's test-run refuses.
    assert_eq!(
        notes,
        [("xdp".to_string(), 5), ("tc".to_string(), 7)],
        "packets the report says went through a TUN device"
    );
}

#[test]
fn short_frames_pass_in_user_space_with_no_tun_device() {
    if std::process::Command::new("clang")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("SKIPPED short_frames_pass_in_user_space_with_no_tun_device: clang is not installed");
        return;
    }
    let (failures, notes) = failures_and_notes("user");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(notes.iter().all(|(_, n)| *n == 0), "{notes:?}");
}
