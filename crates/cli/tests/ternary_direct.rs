//! Direct counters and meters on ternary and range tables
//! (tests/ternary_direct): each rule counts and meters only the packets
//! it wins, read back by its key and priority, at kernel XDP and TC and
//! on the user target; a rule deleted and added again counts from zero.
//! Skips, saying why, without root/BPF or clang.

mod common;

use std::path::{Path, PathBuf};

fn own(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/ternary_direct")
        .join(name)
}

/// `p4bpf test` of ternary_direct.p4 with `script` at `target`: whether
/// it passed, and its output.
fn run(script: &str, target: &[&str]) -> (bool, String) {
    let (program, script) = (own("ternary_direct.p4"), own(script));
    let (p, s) = (program.to_string_lossy(), script.to_string_lossy());
    let mut args = vec!["test", p.as_ref(), s.as_ref()];
    args.extend_from_slice(target);
    let out = common::p4bpf(&args);
    let text = format!("{}{}", common::stdout(&out), common::stderr(&out));
    (out.status.success(), text)
}

#[test]
fn each_ternary_rule_counts_and_meters_the_packets_it_wins() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED ternary direct counters: {why}");
        return;
    }
    let targets: [&[&str]; 3] = [
        &["--target", "kernel", "--hook", "xdp"],
        &["--target", "kernel", "--hook", "tc"],
        &["--target", "user"],
    ];
    for target in targets {
        let (ok, text) = run("ternary_direct.stf", target);
        let target = target.join(" ");
        assert!(ok, "at {target}:\n{text}");
        assert!(text.contains("PASS: 5 packets"), "at {target}:\n{text}");
        assert_eq!(
            text.matches("packets 2, bytes 32: ok").count(),
            3,
            "at {target}:\n{text}"
        );
    }
}

/// Kernel hooks only: the user target's host cannot delete entries.
#[test]
fn a_ternary_rule_added_again_counts_from_zero() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED ternary direct counter re-add: {why}");
        return;
    }
    for hook in ["xdp", "tc"] {
        let (ok, text) = run(
            "ternary_direct_readd.stf",
            &["--target", "kernel", "--hook", hook],
        );
        assert!(ok, "at {hook}:\n{text}");
        assert!(
            text.contains("packets 0, bytes 0: ok"),
            "at {hook}:\n{text}"
        );
    }
}
