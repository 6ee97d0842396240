//! Frames XDP cannot carry (`tests/xdp_limit`): a script whose every
//! failure at XDP is at a frame shorter than an Ethernet header is "not
//! applicable at XDP", naming the frame; the same script passes at TC; a
//! short frame XDP runs unresized passes; a failure at a whole frame
//! keeps the run failed. Needs root, BPF and clang; skips saying which.

mod common;

use std::path::{Path, PathBuf};

fn file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/xdp_limit")
        .join(name)
}

/// `p4bpf test strip.p4 SCRIPT --hook HOOK`: success and stdout.
fn run(script: &str, hook: &str) -> (bool, String) {
    let (p4, stf) = (file("strip.p4"), file(script));
    let args = ["test", &*p4.to_string_lossy(), &*stf.to_string_lossy()];
    let out = common::p4bpf(&[&args[..], &["--hook", hook]].concat());
    let text = common::stdout(&out) + &common::stderr(&out);
    (out.status.success(), text)
}

#[test]
fn a_frame_under_an_ethernet_header_is_not_applicable_at_xdp_only() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED xdp_limit: {why}");
        return;
    }
    let (ok, text) = run("shrinks.stf", "xdp");
    assert!(!ok, "{text}");
    assert!(
        text.contains("NOT APPLICABLE: 2 packets, 1 failure(s)")
            && text.ends_with("not applicable at XDP: the frame at line 7 is 5 bytes, shorter than the 14-byte Ethernet header XDP needs\n"),
        "{text}"
    );
    // The 9-byte frame left whole ran at XDP and passed.
    assert!(
        text.contains("(shrinks.stf:2) in port 0: redirect to port 0: ok"),
        "{text}"
    );
    let (ok, text) = run("shrinks.stf", "tc");
    assert!(
        ok && text.contains("PASS: 2 packets, 0 failure(s)"),
        "{text}"
    );
}

#[test]
fn a_failure_at_a_whole_frame_is_not_hidden_by_a_short_one() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED xdp_limit: {why}");
        return;
    }
    let (ok, text) = run("also_fails.stf", "xdp");
    assert!(!ok, "{text}");
    assert!(text.contains("FAIL: 2 packets"), "{text}");
    assert!(!text.contains("not applicable"), "{text}");
    let (ok, text) = run("also_fails.stf", "tc");
    assert!(
        !ok && text.contains("FAIL: 2 packets, 1 failure(s)"),
        "{text}"
    );
}
