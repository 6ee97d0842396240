//! PSA's `psa_idle_timeout` (tests/stf/psa_idle_timeout.p4): the P4Info
//! marks the NOTIFY_CONTROL table alone; every hit restarts an entry's
//! timer, at TC, at XDP and on the user target; `p4bpf idle sweep`
//! reports an idle entry of a loaded PSA pipeline and keeps it; a table
//! the timers cannot serve (all const) is refused where it is declared.
//! The kernel tests skip, saying why, without root/BPF or clang.

#![allow(clippy::panic)] // a failing test should stop loudly

mod common;

use common::{p4bpf, p4bpf_in, scratch_dir, stderr, stdout};
use p4bpf_runtime::deploy::Deployment;
use std::path::PathBuf;

fn program() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/stf/psa_idle_timeout.p4")
}

/// How long the last sweep of `output` found the `flows` entry of
/// destination `dst` idle, in ns.
fn idle_ns(output: &str, dst: &str) -> u64 {
    output
        .lines()
        .rev()
        .filter(|l| l.contains(&format!("hdr.ethernet.dst={dst} for ")))
        .find_map(|l| l.split(" for ").nth(1)?.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no sweep reported {dst}:\n{output}"))
}

#[test]
fn the_p4info_marks_the_notify_control_table_alone() {
    let dir = scratch_dir("psa_idle_p4info");
    let out = p4bpf_in(
        &dir,
        &["compile", &program().to_string_lossy(), "-o", "out"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let p4info = std::fs::read_to_string(dir.join("out/psa_idle_timeout.p4info.txtpb"))
        .unwrap_or_else(|e| panic!("{e}"));
    let marked: Vec<&str> = p4info
        .split("tables {")
        .filter(|t| t.contains("idle_timeout_behavior: NOTIFY_CONTROL"))
        .collect();
    assert_eq!(marked.len(), 1, "{p4info}");
    assert!(marked[0].contains("name: \"In.flows\""), "{p4info}");
}

#[test]
fn a_hit_restarts_the_timer_at_tc_xdp_and_in_user_space() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED psa_idle hit restarts: {why}");
        return;
    }
    let program = program();
    let script = program.with_extension("stf");
    let (p, s) = (program.to_string_lossy(), script.to_string_lossy());
    for (target, hook) in [("kernel", "tc"), ("kernel", "xdp"), ("user", "tc")] {
        let out = p4bpf(&["test", &p, &s, "--target", target, "--hook", hook]);
        let text = format!("{}{}", stdout(&out), stderr(&out));
        assert!(out.status.success(), "{target} {hook}:\n{text}");
        // ..02 was hit first, then ..03, then ..02 again: restarted by
        // its last hit, it has been idle for less long.
        assert!(
            idle_ns(&text, "00:00:00:00:00:02") < idle_ns(&text, "00:00:00:00:00:03"),
            "{target} {hook}:\n{text}"
        );
    }
}

#[test]
fn idle_sweep_reports_an_idle_entry_of_a_loaded_psa_pipeline_and_keeps_it() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED psa_idle sweep: {why}");
        return;
    }
    let name = format!("psaidle{}", std::process::id());
    let loaded = p4bpf(&[
        "pipeline",
        "load",
        &program().to_string_lossy(),
        "--name",
        &name,
        "--hook",
        "tc",
    ]);
    assert!(loaded.status.success(), "{}", stderr(&loaded));
    let run = || {
        let profile = p4bpf(&["idle", "profile", &name, "0", "1"]);
        let add = p4bpf(&[
            "table",
            "add",
            &name,
            "In.flows",
            "hdr.ethernet.dst=2",
            "In.forward",
            "port=2",
        ]);
        let before = p4bpf(&["idle", "sweep", &name]);
        let sent = send(
            &name,
            &[0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0x12, 0x34, 0, 0],
        );
        let after = p4bpf(&["idle", "sweep", &name]);
        let again = p4bpf(&["idle", "sweep", &name]);
        (profile, add, before, sent, after, again)
    };
    let (profile, add, before, sent, after, again) = run();
    let unloaded = p4bpf(&["pipeline", "unload", &name]);
    assert!(profile.status.success(), "{}", stderr(&profile));
    assert!(add.status.success(), "{}", stderr(&add));
    assert!(sent.is_ok(), "{sent:?}");
    assert!(
        stdout(&before).is_empty(),
        "not hit yet: {}",
        stdout(&before)
    );
    for sweep in [&after, &again] {
        let text = stdout(sweep);
        assert!(
            sweep.status.success()
                && text.starts_with("idle In.flows hdr.ethernet.dst=00:00:00:00:00:02 for ")
                && text.trim_end().ends_with(": reported"),
            "{text}{}",
            stderr(sweep)
        );
    }
    assert!(unloaded.status.success(), "{}", stderr(&unloaded));
}

/// Runs `frame` through the ingress program of pipeline `name` once.
fn send(name: &str, frame: &[u8]) -> Result<(), String> {
    let deployment = Deployment::open(name).map_err(|e| e.to_string())?;
    let program = deployment.program().map_err(|e| e.to_string())?;
    let fd = std::os::fd::AsRawFd::as_raw_fd(&program);
    p4bpf_runtime::test_run::run(fd, frame, 1)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

#[test]
fn a_table_the_timers_cannot_serve_is_refused_where_declared() {
    let dir = scratch_dir("psa_idle_const");
    let source = std::fs::read_to_string(program()).unwrap_or_else(|e| panic!("{e}"));
    let constant = source.replace(
        "psa_idle_timeout = PSA_IdleTimeout_t.NOTIFY_CONTROL;",
        "psa_idle_timeout = PSA_IdleTimeout_t.NOTIFY_CONTROL;\n        const entries = { 48w2 : forward(2); }",
    );
    assert_ne!(constant, source);
    common::write(&dir, "prog.p4", &constant);
    let out = p4bpf_in(&dir, &["compile", "prog.p4", "-o", "out"]);
    let err = stderr(&out);
    assert!(
        !out.status.success()
            && err.contains("prog.p4:49:5")
            && err.contains("idle timeouts need entries the control plane adds"),
        "{err}"
    );
}
