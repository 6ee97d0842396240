//! Idle-timeout notifications over P4Runtime: `p4bpf p4runtime serve`
//! for tests/stf/pna_idle_sweep.p4, whose table `MainControl.reported`
//! is NOTIFY_CONTROL. A p4runtime-shell controller
//! (tests/p4runtime/idle.py) inserts an entry; the test sets expire-time
//! profile 0 to 100 ms and hits the entry, which starts its timer; the
//! controller then gets one IdleTimeoutNotification naming it on its
//! stream. A second test gives PSA entries their own `idle_timeout_ns`
//! (tests/p4runtime/idle_entry.py); a third, lpm and ternary entries
//! (tests/p4runtime/idle_rules.py). Uses the p4runtime-shell venv the
//! `p4runtime` test installs;
//! skips, saying why, without it, root/BPF or clang.

#![allow(clippy::panic)] // a failing test should stop loudly

mod common;

use common::{p4bpf, scratch_dir, stderr};
use p4bpf_runtime::deploy::{self, Deployment};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Kills the server and unloads its pipeline when the test ends.
struct Server(Child, String);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
        let _ = deploy::unload(&self.1);
    }
}

/// Run `frame` through the pipeline's program once.
fn send(pipeline: &str, frame: &[u8]) {
    let deployment = Deployment::open(pipeline).unwrap_or_else(|e| panic!("{e}"));
    let program = deployment.program().unwrap_or_else(|e| panic!("{e}"));
    let fd = std::os::fd::AsRawFd::as_raw_fd(&program);
    p4bpf_runtime::test_run::run(fd, frame, 1).unwrap_or_else(|e| panic!("{e}"));
}

fn start_server(address: &str, pipeline: &str) -> Server {
    let child = Command::new(env!("CARGO_BIN_EXE_p4bpf"))
        .args([
            "p4runtime",
            "serve",
            "--addr",
            address,
            "--pipeline",
            pipeline,
        ])
        .stdout(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("the server starts: {e}"));
    let server = Server(child, pipeline.to_string());
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(address).is_err() {
        assert!(Instant::now() < deadline, "no server on {address}");
        std::thread::sleep(Duration::from_millis(50));
    }
    server
}

#[test]
fn a_notify_control_entry_gone_idle_reaches_the_primary_controller() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED p4runtime_idle: {why}");
        return;
    }
    let python = Path::new(env!("CARGO_TARGET_TMPDIR")).join("p4runtime-venv/bin/python");
    if !python.exists() {
        eprintln!(
            "SKIPPED p4runtime_idle: no p4runtime-shell venv (the `p4runtime` test installs it)"
        );
        return;
    }
    let dir = scratch_dir("p4runtime_idle");
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/stf/pna_idle_sweep.p4");
    let out = dir.to_string_lossy().into_owned();
    let compiled = p4bpf(&["compile", &program.to_string_lossy(), "-o", &out]);
    assert!(compiled.status.success(), "{}", stderr(&compiled));
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_or(0, |a| a.port());
    let address = format!("127.0.0.1:{port}");
    let pipeline = format!("p4rtidle{}", std::process::id());
    let _server = start_server(&address, &pipeline);

    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/p4runtime/idle.py");
    // `timeout`: a controller stuck on its stream ends, and the test fails.
    let mut controller = Command::new("timeout")
        .arg("90")
        .arg(&python)
        .arg(script)
        .args([&address, "pna_idle_sweep.p4info.txtpb", "pna_idle_sweep.o"])
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("python runs: {e}"));
    let mut printed = BufReader::new(controller.stdout.take().unwrap_or_else(|| panic!("stdout")));
    // The shell prints the entry it inserts, then the script `inserted`.
    let mut seen = String::new();
    while !seen.ends_with("inserted\n") {
        if printed.read_line(&mut seen).unwrap_or(0) == 0 {
            let mut err = String::new();
            let _ = controller
                .stderr
                .take()
                .map(|mut e| e.read_to_string(&mut err));
            panic!("the controller did not insert its entry:\n{seen}{err}");
        }
    }

    let profile = p4bpf(&["idle", "profile", &pipeline, "0", "100000000"]);
    assert!(profile.status.success(), "{}", stderr(&profile));
    // The entry's first hit starts its timer (dst 00:00:00:00:00:01, EtherType 1).
    send(&pipeline, &[0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1]);
    if let Some(stdin) = controller.stdin.as_mut() {
        let _ = stdin.write_all(b"go\n");
    }

    let mut rest = String::new();
    let _ = printed.read_to_string(&mut rest);
    let status = controller.wait().unwrap_or_else(|e| panic!("{e}"));
    let mut err = String::new();
    let _ = controller
        .stderr
        .take()
        .map(|mut e| e.read_to_string(&mut err));
    assert!(
        status.success(),
        "the controller's checks failed:\n{rest}{err}"
    );
    assert!(
        rest.contains("ok   of MainControl.reported")
            && rest.contains("ok   no second notification while it stays idle"),
        "{rest}{err}"
    );
}

/// Per-entry `idle_timeout_ns` on a PSA table (tests/stf/psa_idle_timeout.p4,
/// `In.flows` NOTIFY_CONTROL): the controller (tests/p4runtime/idle_entry.py)
/// inserts entries with their own timeouts, reads them back with
/// `time_since_last_hit`, is told of the short one alone; after the test
/// hits it, its timer restarted and it is reported again; a MODIFY gives
/// another entry a new timeout.
#[test]
fn psa_entries_take_their_own_idle_timeouts_from_the_controller() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED p4runtime_idle per-entry: {why}");
        return;
    }
    let python = Path::new(env!("CARGO_TARGET_TMPDIR")).join("p4runtime-venv/bin/python");
    if !python.exists() {
        eprintln!(
            "SKIPPED p4runtime_idle per-entry: no p4runtime-shell venv (the `p4runtime` test installs it)"
        );
        return;
    }
    let dir = scratch_dir("p4runtime_idle_entry");
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/stf/psa_idle_timeout.p4");
    let out = dir.to_string_lossy().into_owned();
    let compiled = p4bpf(&["compile", &program.to_string_lossy(), "-o", &out]);
    assert!(compiled.status.success(), "{}", stderr(&compiled));
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_or(0, |a| a.port());
    let address = format!("127.0.0.1:{port}");
    let pipeline = format!("p4rtidleentry{}", std::process::id());
    let _server = start_server(&address, &pipeline);

    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/p4runtime/idle_entry.py");
    let mut controller = Command::new("timeout")
        .arg("90")
        .arg(&python)
        .arg(script)
        .args([
            &address,
            "psa_idle_timeout.p4info.txtpb",
            "psa_idle_timeout.o",
        ])
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("python runs: {e}"));
    let mut printed = BufReader::new(controller.stdout.take().unwrap_or_else(|| panic!("stdout")));
    let mut seen = String::new();
    while !seen.ends_with("notified\n") {
        if printed.read_line(&mut seen).unwrap_or(0) == 0 {
            let mut err = String::new();
            let _ = controller
                .stderr
                .take()
                .map(|mut e| e.read_to_string(&mut err));
            panic!("the controller was not notified:\n{seen}{err}");
        }
    }
    // A hit of the reported entry (dst 00:00:00:00:00:02).
    send(
        &pipeline,
        &[0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0x12, 0x34, 0, 0],
    );
    if let Some(stdin) = controller.stdin.as_mut() {
        let _ = stdin.write_all(b"go\n");
    }
    let mut rest = String::new();
    let _ = printed.read_to_string(&mut rest);
    let status = controller.wait().unwrap_or_else(|e| panic!("{e}"));
    let mut err = String::new();
    let _ = controller
        .stderr
        .take()
        .map(|mut e| e.read_to_string(&mut err));
    assert!(
        status.success(),
        "the controller's checks failed:\n{seen}{rest}{err}"
    );
    assert!(
        seen.contains("ok   the 300 ms entry alone is reported")
            && rest.contains("ok   a hit restarted its timer")
            && rest.contains("ok   and it is reported in turn"),
        "{seen}{rest}{err}"
    );
}

/// Notifications of lpm and ternary entries (tests/idle_kinds/tables.p4):
/// the controller (tests/p4runtime/idle_rules.py) inserts rules and a
/// prefix with their own timeouts, deletes one, and is told of the others
/// once, each with its match, priority and `idle_timeout_ns`, no action;
/// after the test hits the ternary rule it is reported again, alone; a
/// MODIFY's new timeout is reported with it.
#[test]
fn lpm_and_ternary_entries_are_notified_with_their_match_priority_and_timeout() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED p4runtime_idle rules: {why}");
        return;
    }
    let python = Path::new(env!("CARGO_TARGET_TMPDIR")).join("p4runtime-venv/bin/python");
    if !python.exists() {
        eprintln!(
            "SKIPPED p4runtime_idle rules: no p4runtime-shell venv (the `p4runtime` test installs it)"
        );
        return;
    }
    let dir = scratch_dir("p4runtime_idle_rules");
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/idle_kinds/tables.p4");
    let out = dir.to_string_lossy().into_owned();
    let compiled = p4bpf(&["compile", &program.to_string_lossy(), "-o", &out]);
    assert!(compiled.status.success(), "{}", stderr(&compiled));
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_or(0, |a| a.port());
    let address = format!("127.0.0.1:{port}");
    let pipeline = format!("idlerules{}", std::process::id());
    let _server = start_server(&address, &pipeline);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/p4runtime/idle_rules.py");
    let args = [address.as_str(), "tables.p4info.txtpb", "tables.o"];
    // a 0x1256, b 1: the ternary rule of priority 10 alone.
    let hit = [0, 0, 0, 0, 0x12, 0x56, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    let (status, text) = drive(&python, &script, &args, &dir, "notified\n", || {
        send(&pipeline, &hit)
    });
    assert!(status, "the controller's checks failed:\n{text}");
    assert!(
        text.contains("ok   a prefix's timer reads back")
            && text.contains("ok   a read of the whole table gives each rule its timer")
            && text.contains("ok   the 200 ms rule and prefix are reported")
            && text.contains("ok   a hit rule is reported again, alone")
            && text.contains("ok   and it is reported in turn, with that timeout"),
        "{text}"
    );
}

/// Runs controller `script` with `args` in `dir` until it prints
/// `marker`, then runs `between` and tells the controller to go on:
/// whether it passed, and all it printed.
fn drive(
    python: &Path,
    script: &Path,
    args: &[&str],
    dir: &Path,
    marker: &str,
    between: impl FnOnce(),
) -> (bool, String) {
    // `timeout`: a controller stuck on its stream ends, and the test fails.
    let mut controller = Command::new("timeout")
        .arg("90")
        .arg(python)
        .arg(script)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("python runs: {e}"));
    let mut printed = BufReader::new(controller.stdout.take().unwrap_or_else(|| panic!("stdout")));
    let mut seen = String::new();
    while !seen.ends_with(marker) {
        if printed.read_line(&mut seen).unwrap_or(0) == 0 {
            break;
        }
    }
    if seen.ends_with(marker) {
        between();
        if let Some(stdin) = controller.stdin.as_mut() {
            let _ = stdin.write_all(b"go\n");
        }
    }
    let _ = printed.read_to_string(&mut seen);
    let status = controller.wait().unwrap_or_else(|e| panic!("{e}"));
    let _ = controller
        .stderr
        .take()
        .map(|mut e| e.read_to_string(&mut seen));
    (status.success(), seen)
}
