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

/// What a test needs: a compiled program served by `p4bpf p4runtime
/// serve`, and the p4runtime-shell venv's python; `None` (said on
/// stderr) when the kernel or the venv is missing.
struct Served {
    _server: Server,
    pipeline: String,
    address: String,
    dir: std::path::PathBuf,
    python: std::path::PathBuf,
}

/// Compiles `program` (under tests/) into a scratch dir and serves it as
/// pipeline `pipeline` followed by the process id.
fn serve(test: &str, program: &str, pipeline: &str) -> Option<Served> {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED {test}: {why}");
        return None;
    }
    let python = Path::new(env!("CARGO_TARGET_TMPDIR")).join("p4runtime-venv/bin/python");
    if !python.exists() {
        eprintln!("SKIPPED {test}: no p4runtime-shell venv (the `p4runtime` test installs it)");
        return None;
    }
    let dir = scratch_dir(test);
    let program = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(program);
    let out = dir.to_string_lossy().into_owned();
    let compiled = p4bpf(&["compile", &program.to_string_lossy(), "-o", &out]);
    assert!(compiled.status.success(), "{}", stderr(&compiled));
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_or(0, |a| a.port());
    let address = format!("127.0.0.1:{port}");
    let pipeline = format!("{pipeline}{}", std::process::id());
    Some(Served {
        _server: start_server(&address, &pipeline),
        pipeline,
        address,
        dir,
        python,
    })
}

impl Served {
    /// Runs controller tests/p4runtime/`script` on the served program
    /// (`stem`'s P4Info and object), `between` when it prints `marker`:
    /// whether its checks passed, and all it printed.
    fn drive(
        &self,
        script: &str,
        stem: &str,
        marker: &str,
        between: impl FnOnce(),
    ) -> (bool, String) {
        let script = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/p4runtime")
            .join(script);
        let (p4info, object) = (format!("{stem}.p4info.txtpb"), format!("{stem}.o"));
        let args = [self.address.as_str(), &p4info, &object];
        drive(&self.python, &script, &args, &self.dir, marker, between)
    }
}

#[test]
fn a_notify_control_entry_gone_idle_reaches_the_primary_controller() {
    let Some(served) = serve("p4runtime_idle", "stf/pna_idle_sweep.p4", "p4rtidle") else {
        return;
    };
    let pipeline = &served.pipeline;
    // The controller inserts its entry; its first hit starts its timer
    // (dst 00:00:00:00:00:01, EtherType 1).
    let (passed, text) = served.drive("idle.py", "pna_idle_sweep", "inserted\n", || {
        let profile = p4bpf(&["idle", "profile", pipeline, "0", "100000000"]);
        assert!(profile.status.success(), "{}", stderr(&profile));
        send(pipeline, &[0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1]);
    });
    assert!(passed, "the controller's checks failed:\n{text}");
    assert!(
        text.contains("ok   of MainControl.reported")
            && text.contains("ok   no second notification while it stays idle"),
        "{text}"
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
    let test = "p4runtime_idle_entry";
    let Some(served) = serve(test, "stf/psa_idle_timeout.p4", "p4rtidleentry") else {
        return;
    };
    // A hit of the reported entry (dst 00:00:00:00:00:02).
    let hit = [0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0x12, 0x34, 0, 0];
    let (passed, text) = served.drive("idle_entry.py", "psa_idle_timeout", "notified\n", || {
        send(&served.pipeline, &hit)
    });
    assert!(passed, "the controller's checks failed:\n{text}");
    assert!(
        text.contains("ok   the 300 ms entry alone is reported")
            && text.contains("ok   a hit restarted its timer")
            && text.contains("ok   and it is reported in turn"),
        "{text}"
    );
}

/// Notifications of lpm and ternary entries (tests/idle_kinds/tables.p4):
/// the controller (tests/p4runtime/idle_rules.py) inserts rules and a
/// prefix with their own timeouts, deletes one, reads them back, and is
/// told of the others once, each with its match, priority and
/// `idle_timeout_ns`, no action; after the test hits the ternary rule it
/// is reported again, alone; a MODIFY's new timeout is reported with it.
#[test]
fn lpm_and_ternary_entries_are_notified_with_their_match_priority_and_timeout() {
    let test = "p4runtime_idle_rules";
    let Some(served) = serve(test, "idle_kinds/tables.p4", "idlerules") else {
        return;
    };
    // a 0x1256, b 1: the ternary rule of priority 10 alone.
    let hit = [0, 0, 0, 0, 0x12, 0x56, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    let (passed, text) = served.drive("idle_rules.py", "tables", "notified\n", || {
        send(&served.pipeline, &hit)
    });
    assert!(passed, "the controller's checks failed:\n{text}");
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
