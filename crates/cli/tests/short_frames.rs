//! Frames `BPF_PROG_TEST_RUN` refuses (shorter than 14 bytes; at TC, an
//! IPv4 EtherType without a whole IPv4 header) on the kernel target: they
//! run through a TUN device at the pipeline's own hook, with the same
//! maps as the packets test-run takes, and the report says which ones
//! did. Every script of `tests/short_frames` passes at XDP and TC in user
//! space (needs clang) and in the kernel (needs BPF), but for what the
//! kernel refuses at XDP: `bpf_xdp_adjust_head` leaves no frame shorter
//! than 14 bytes, so a program that resizes one drops it there.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

const NOTE: &str = "sent through a TUN device";
/// Scripts whose program resizes frames under 14 bytes, and the kernel
/// rule the report gives for them at XDP.
const XDP_RESIZES: &[&str] = &["grow_front"];
const XDP_RULE: &str = "bpf_xdp_adjust_head leaves no frame shorter than 14 bytes";

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

/// Every script at both hooks on `target`: the unexpected outcomes, and
/// how many packets of each run went through a TUN device.
fn problems_and_notes(target: &str) -> (Vec<String>, Vec<String>) {
    let mut problems = vec![];
    let mut notes = vec![];
    for script in scripts() {
        let stem = script.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        for hook in ["xdp", "tc"] {
            let out = run(&script, target, hook);
            let text = format!("{}{}", common::stdout(&out), common::stderr(&out));
            let refused = target == "kernel" && hook == "xdp" && XDP_RESIZES.contains(&stem);
            if refused && (out.status.success() || !text.contains(XDP_RULE)) {
                problems.push(format!(
                    "{stem} at {hook} should fail naming \"{XDP_RULE}\":\n{text}"
                ));
            } else if !refused && !out.status.success() {
                problems.push(format!("{stem} at {hook}:\n{text}"));
            }
            notes.push(format!("{stem} {hook} {}", text.matches(NOTE).count()));
        }
    }
    (problems, notes)
}

#[test]
fn short_frames_pass_in_the_kernel_through_a_tun_device() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED short_frames_pass_in_the_kernel_through_a_tun_device: {why}");
        return;
    }
    let (problems, notes) = problems_and_notes("kernel");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // Frames under 14 bytes at either hook, and IPv4-typed frames under
    // 34 bytes, which only TC's test-run refuses.
    assert_eq!(
        notes,
        [
            "grow_front xdp 5",
            "grow_front tc 5",
            "short_lengths xdp 5",
            "short_lengths tc 7"
        ],
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
        eprintln!(
            "SKIPPED short_frames_pass_in_user_space_with_no_tun_device: clang is not installed"
        );
        return;
    }
    let (problems, notes) = problems_and_notes("user");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(notes.iter().all(|n| n.ends_with(" 0")), "{notes:?}");
}
