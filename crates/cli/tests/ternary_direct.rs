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

/// Unloads the pipeline when the test ends, however it ends.
struct Loaded(String);

impl Drop for Loaded {
    fn drop(&mut self) {
        let _ = common::p4bpf(&["pipeline", "unload", &self.0]);
    }
}

/// A loaded pipeline pins each ternary table's cells map: `p4bpf counter`
/// and `p4bpf meter` read and write a rule's cells by its key.
#[test]
fn a_loaded_pipeline_reads_and_sets_a_ternary_rules_cells_by_key() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED ternary direct cells of a loaded pipeline: {why}");
        return;
    }
    let name = format!("tern_cells_{}", std::process::id());
    let program = own("ternary_direct.p4");
    let load = [
        "pipeline",
        "load",
        &program.to_string_lossy(),
        "--name",
        &name,
        "--hook",
        "tc",
    ];
    let out = common::p4bpf(&load);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let _loaded = Loaded(name.clone());
    let run = |args: &[&str]| {
        let out = common::p4bpf(args);
        assert!(out.status.success(), "{args:?}: {}", common::stderr(&out));
        common::stdout(&out)
    };
    let rule = ["first=0x12&&&0xff", "second=0..255"];
    run(&[
        "table",
        "add",
        &name,
        "classify",
        rule[0],
        rule[1],
        "to_port",
        "port=3",
        "--priority",
        "20",
    ]);
    run(&[
        "table",
        "add",
        &name,
        "police",
        "second=0x20&&&0xf0",
        "colour",
        "pad=0xbb",
        "--priority",
        "1",
    ]);
    let counts = run(&["counter", "get", &name, "hits", rule[0], rule[1]]);
    assert!(counts.contains("packets=0\tbytes=0"), "{counts}");
    run(&[
        "meter",
        "set",
        &name,
        "rate",
        "second=0x20&&&0xf0",
        "1",
        "3",
        "1",
        "1",
    ]);
    let rates = run(&["meter", "get", &name, "rate", "second=0x20&&&0xf0"]);
    assert!(
        rates.contains("pir=1\tpburst=3\tcir=1\tcburst=1"),
        "{rates}"
    );
    // A rule that is not there is named as such.
    let out = common::p4bpf(&[
        "counter",
        "get",
        &name,
        "hits",
        "first=0x13&&&0xff",
        rule[1],
    ]);
    assert!(!out.status.success());
    assert!(
        common::stderr(&out).contains("has no entry with this key"),
        "{}",
        common::stderr(&out)
    );
}
