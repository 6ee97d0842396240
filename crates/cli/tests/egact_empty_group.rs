//! PSA's `psa_empty_group_action` changed by the control plane (PSA 1.2
//! section 7.12): our program (tests/egact_empty_group/three_tables.p4:
//! two tables sharing a selector, one with a changeable and one with a
//! `const` empty group action, and a third with a selector of its own and
//! no property) runs its STF on kernel XDP, kernel TC and user; the STF
//! command and `p4bpf table empty-group-action` refuse a `const`
//! property, an action the table does not list and bad arguments, naming
//! the table, the action and the parameter. Kernel parts skip, saying
//! why, without root/BPF or clang.

mod common;

use common::{p4bpf, stderr, stdout};
use std::path::{Path, PathBuf};
use std::process::Output;

const TARGETS: [&[&str]; 3] = [
    &["--target", "kernel", "--hook", "xdp"],
    &["--target", "kernel", "--hook", "tc"],
    &["--target", "user"],
];

fn own(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/egact_empty_group")
        .join(name)
}

fn test_stf(script: &Path, target: &[&str]) -> (bool, String) {
    let program = own("three_tables.p4");
    let mut args = vec![
        "test",
        program.to_str().unwrap_or(""),
        script.to_str().unwrap_or(""),
    ];
    args.extend_from_slice(target);
    let out = p4bpf(&args);
    (
        out.status.success(),
        format!("{}{}", stdout(&out), stderr(&out)),
    )
}

#[test]
fn empty_group_actions_change_on_every_target() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED empty_group_actions_change: {why}");
        return;
    }
    for target in TARGETS {
        let (ok, text) = test_stf(&own("three_tables.stf"), target);
        assert!(ok, "{target:?}:\n{text}");
        assert!(text.contains("PASS: 10 packets"), "{target:?}:\n{text}");
        // `by_type` runs NoAction on its empty group until it is set.
        assert!(text.contains("drop: ok (dropped)"), "{target:?}:\n{text}");
    }
}

/// Each refused STF command fails its script with a message naming what
/// is wrong.
#[test]
fn stf_refuses_what_the_table_cannot_take() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED stf_refuses: {why}");
        return;
    }
    let cases = [
        (
            "Ig.by_tag Ig.fwd 1",
            "table `Ig.by_tag`: its `psa_empty_group_action` is `const`",
        ),
        (
            "Ig.by_src Ig.tag 1",
            "unknown action of table `Ig.by_src`: `Ig.tag` (known: Ig.fwd, Ig.mark, NoAction)",
        ),
        (
            "Ig.by_src Ig.mark 1 0x1000 1",
            "table `Ig.by_src`, action `Ig.mark`, parameter `label`: `0x1000` does not fit in bit<12>",
        ),
        (
            "Ig.by_src Ig.mark 1 2",
            "table `Ig.by_src`, action `Ig.mark`, parameter `color`: is missing",
        ),
        (
            "Ig.by_src Ig.fwd 1 2",
            "`Ig.by_src`: action `Ig.fwd` takes 1 parameters, 2 given",
        ),
        (
            "Ig.by_src Ig.mark(port:1, label:2, hue:3)",
            "unknown parameter of a `Ig.by_src` action: `hue`",
        ),
        ("Ig.nosuch Ig.fwd 1", "unknown table `Ig.nosuch`"),
    ];
    let dir = common::scratch_dir("egact_refusals");
    for (i, (command, message)) in cases.iter().enumerate() {
        let script = common::write(
            &dir,
            &format!("refused{i}.stf"),
            &format!(
                "table_indirect_set_empty_group_action {command}\npacket 0 000000000001 000000000002 1234 0ab5\n"
            ),
        );
        let (ok, text) = test_stf(&script, TARGETS[0]);
        assert!(!ok, "`{command}` was taken:\n{text}");
        assert!(
            text.contains(message),
            "`{command}`: no `{message}` in:\n{text}"
        );
        assert!(text.contains("1 failure(s)"), "`{command}`:\n{text}");
    }
}

/// The const property stays compiled in: `by_src` and `by_type` have a
/// slot each in the selector's map, `by_tag` none.
#[test]
fn only_changeable_empty_group_actions_get_a_slot() {
    if std::process::Command::new("clang")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("SKIPPED only_changeable_empty_group_actions_get_a_slot: no clang");
        return;
    }
    let dir = common::scratch_dir("egact_slots");
    let program = own("three_tables.p4");
    let out = p4bpf(&[
        "compile",
        program.to_str().unwrap_or(""),
        "--hook",
        "tc",
        "-o",
        dir.to_str().unwrap_or(""),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let c = std::fs::read_to_string(dir.join("three_tables.c")).unwrap_or_default();
    let map = |name: &str| {
        let at = c.find(&format!("}} {name} SEC")).unwrap_or(0);
        c.get(..at)
            .and_then(|head| head.rsplit("max_entries, ").next())
            .and_then(|tail| tail.split(')').next())
            .map(str::to_string)
    };
    assert_eq!(map("Ig_shared_empty_groups").as_deref(), Some("2"), "{c}");
    // by_src and by_type read their slots; by_tag's const tag(3) and
    // by_src's own fwd(1) are compiled calls.
    for slot in ["u32 empty_slot = 0;", "u32 empty_slot = 1;"] {
        assert_eq!(c.matches(slot).count(), 1, "{slot}\n{c}");
    }
    assert!(c.contains("action_Ig_tag(st, pkt, pkt_end, 3U)"), "{c}");
    assert!(c.contains("action_Ig_fwd(st, pkt, pkt_end, 1U)"), "{c}");
}

/// A loaded pipeline, unloaded when dropped.
struct Loaded(String);

impl Drop for Loaded {
    fn drop(&mut self) {
        let _ = p4bpf(&["pipeline", "unload", &self.0]);
    }
}

fn assert_fails(out: &Output, what: &str) {
    let text = stderr(out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert_eq!(text.lines().count(), 1, "not one line: {text}");
    assert!(text.contains(what), "`{what}` not in: {text}");
}

#[test]
fn table_empty_group_action_sets_and_refuses() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED table_empty_group_action: {why}");
        return;
    }
    let name = format!("egact{}", std::process::id());
    let program = own("three_tables.p4");
    let out = p4bpf(&[
        "pipeline",
        "load",
        program.to_str().unwrap_or(""),
        "--name",
        &name,
    ]);
    assert!(out.status.success(), "load: {}", stderr(&out));
    let loaded = Loaded(name);
    let n = loaded.0.as_str();
    let set = |words: &[&str]| {
        let mut args = vec!["table", "empty-group-action", n];
        args.extend_from_slice(words);
        p4bpf(&args)
    };
    let read = |table: &str| stdout(&set(&[table]));
    assert_eq!(read("by_src"), "the program's own psa_empty_group_action\n");
    let ok = set(&["by_src", "mark", "port=5", "label=0x123", "color=9"]);
    assert!(ok.status.success(), "{}", stderr(&ok));
    assert!(set(&["by_type", "NoAction"]).status.success());
    assert_eq!(read("by_src"), "Ig.mark\tport=5 label=291 color=9\n");
    assert_eq!(read("by_type"), "NoAction\t\n");
    assert_fails(
        &set(&["by_tag", "fwd", "port=1"]),
        "table `Ig.by_tag`: its `psa_empty_group_action` is `const`",
    );
    assert_fails(
        &set(&["by_src", "tag", "color=1"]),
        "unknown action of table `Ig.by_src`: `tag`",
    );
    assert_fails(
        &set(&["by_src", "mark", "port=5", "label=4096", "color=9"]),
        "table `Ig.by_src`, action `Ig.mark`, parameter `label`",
    );
    assert_fails(
        &set(&["by_src", "srcAddr=1", "fwd", "port=1"]),
        "table `Ig.by_src`",
    );
    assert_fails(
        &set(&["by_src", "fwd", "speed=1"]),
        "unknown parameter of a `Ig.by_src` action: `speed`",
    );
}
