//! Packet copies on every target that shows them
//! (`tests/replication_targets`): multicast to three ports, each copy
//! changed by egress per replica, and an I2E clone that egress cuts to 18
//! bytes as instance 1, all with `p4bpf test` at kernel TC (which plays a
//! script with copies on veth pairs) and on the user-space target (which
//! runs egress on each copy as the program makes it). A wrong expectation
//! of the clone fails on both, so the copies are checked, not skipped.
//! Needs root, BPF and clang; skips saying which is missing.

mod common;

use std::path::{Path, PathBuf};

fn file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/replication_targets")
        .join(name)
}

/// `p4bpf test copies.p4 SCRIPT --target TARGET --hook tc`: success and output.
fn run(script: &Path, target: &str) -> (bool, String) {
    let p4 = file("copies.p4");
    let args = ["test", &*p4.to_string_lossy(), &*script.to_string_lossy()];
    let out = common::p4bpf(&[&args[..], &["--target", target, "--hook", "tc"]].concat());
    (
        out.status.success(),
        common::stdout(&out) + &common::stderr(&out),
    )
}

#[test]
fn multicast_and_clone_copies_pass_at_kernel_tc_and_user() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED replication_targets: {why}");
        return;
    }
    for target in ["kernel", "user"] {
        let (ok, text) = run(&file("copies.stf"), target);
        assert!(ok, "{target}: {text}");
        assert!(
            text.contains("PASS: 3 packets, 0 failure(s)"),
            "{target}: {text}"
        );
        for port in [2, 3, 4] {
            let copy = format!("(copies.stf:13) in port 1: redirect to port {port}: ok");
            assert!(text.contains(&copy), "{target}: {text}");
        }
        assert!(
            text.contains("(copies.stf:20) in port 1: redirect to port 3: ok (expect at line 22)"),
            "{target}: {text}"
        );
    }
}

#[test]
fn a_clone_expected_whole_fails_on_both_targets() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED replication_targets: {why}");
        return;
    }
    let script = std::fs::read_to_string(file("copies.stf")).expect("copies.stf");
    let cut = "expect 3 000000000002 000000000001 1234 0205 0003$";
    assert!(script.contains(cut));
    let whole = "expect 3 000000000002 000000000001 1234 0205 0003 0000 00000001 cafe$";
    let dir = common::scratch_dir("replication_targets_whole");
    let wrong = common::write(&dir, "whole.stf", &script.replace(cut, whole));
    for target in ["kernel", "user"] {
        let (ok, text) = run(&wrong, target);
        assert!(!ok, "{target}: {text}");
        assert!(
            text.contains("redirect to port 3: FAIL, differs from expect at line 22"),
            "{target}: {text}"
        );
    }
}
