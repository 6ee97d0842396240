//! Direct counters over P4Runtime: `p4bpf p4runtime serve` for
//! tests/externs/v1model_direct_counters.p4, driven by p4runtime-shell
//! (tests/p4runtime/direct.py): two entries inserted, packets run through
//! the loaded program, then `DirectCounterEntry` reads (every entry, and
//! one by key) give each entry its own packet and byte counts. Uses the
//! p4runtime-shell venv the `p4runtime` test installs; skips, saying why,
//! without it, root/BPF or clang.

#![allow(clippy::panic)] // a failing test should stop loudly

mod common;

use common::{p4bpf, scratch_dir, stderr, stdout};
use p4bpf_runtime::deploy::Deployment;
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn session(python: &Path, address: &str, folder: &Path, phase: &str) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/p4runtime/direct.py");
    let out = Command::new(python)
        .arg(script)
        .args([
            address,
            "v1model_direct_counters.p4info.txtpb",
            "v1model_direct_counters.o",
            phase,
        ])
        .current_dir(folder)
        .output()
        .unwrap_or_else(|e| panic!("python runs: {e}"));
    format!("{}{}", stdout(&out), stderr(&out))
}

/// Run `frame` through the pipeline's program once.
fn send(pipeline: &str, frame: &[u8]) {
    let deployment = Deployment::open(pipeline).unwrap_or_else(|e| panic!("{e}"));
    let program = deployment.program().unwrap_or_else(|e| panic!("{e}"));
    let fd = std::os::fd::AsRawFd::as_raw_fd(&program);
    p4bpf_runtime::test_run::run(fd, frame, 1).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn direct_counter_entries_read_over_p4runtime() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED p4runtime_direct: {why}");
        return;
    }
    let python = Path::new(env!("CARGO_TARGET_TMPDIR")).join("p4runtime-venv/bin/python");
    if !python.exists() {
        eprintln!(
            "SKIPPED p4runtime_direct: no p4runtime-shell venv (the `p4runtime` test installs it)"
        );
        return;
    }
    let dir = scratch_dir("p4runtime_direct");
    let program =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/externs/v1model_direct_counters.p4");
    let out = dir.to_string_lossy().into_owned();
    let compiled = p4bpf(&["compile", &program.to_string_lossy(), "-o", &out]);
    assert!(compiled.status.success(), "{}", stderr(&compiled));
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_or(0, |a| a.port());
    let address = format!("127.0.0.1:{port}");
    let pipeline = format!("p4rtdirect{}", std::process::id());
    let mut server = Command::new(env!("CARGO_BIN_EXE_p4bpf"))
        .args([
            "p4runtime",
            "serve",
            "--addr",
            &address,
            "--pipeline",
            &pipeline,
        ])
        .stdout(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("the server starts: {e}"));
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(&address).is_err() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let inserted = session(&python, &address, &dir, "insert");
    if inserted.contains("ok   entry 2") {
        // Key 1 twice (16 and 20 bytes), key 2 once, and a miss.
        let frame = |first: u8, length: usize| {
            let mut frame = vec![first, 7, 0, 0];
            frame.resize(length, 0);
            frame
        };
        for (first, length) in [(1, 16), (1, 20), (2, 16), (9, 16)] {
            send(&pipeline, &frame(first, length));
        }
    }
    let read = session(&python, &address, &dir, "read");
    let _ = server.kill();
    let _ = server.wait();
    let _ = p4bpf(&["pipeline", "unload", &pipeline]);
    assert!(inserted.contains("ok   entry 2"), "{inserted}");
    assert!(read.contains("ok   read"), "{read}");
    for expected in [
        "direct all field_id: 1 exact { value: \"\\001\" } packets 2 bytes 36",
        "direct all field_id: 1 exact { value: \"\\002\" } packets 1 bytes 16",
        "direct key field_id: 1 exact { value: \"\\002\" } packets 1 bytes 16",
    ] {
        assert!(read.contains(expected), "no `{expected}` in:\n{read}");
    }
    assert_eq!(read.matches("direct ").count(), 3, "{read}");
}
