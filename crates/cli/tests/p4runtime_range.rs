//! Range and optional matches over P4Runtime: `p4bpf p4runtime serve` for
//! the PSA program tests/p4runtime/range.p4, driven by p4runtime-shell
//! (tests/p4runtime/range.py): rules inserted and read back with their
//! matches, a backwards range refused, then packets through the loaded
//! program hit or miss as the rules say. Uses the p4runtime-shell venv the
//! `p4runtime` test installs; skips, saying why, without it, root/BPF or
//! clang.

#![allow(clippy::panic)] // a failing test should stop loudly

mod common;

use common::{p4bpf, scratch_dir, stderr, stdout};
use p4bpf_runtime::deploy::Deployment;
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const XDP_DROP: u32 = 1;
const XDP_PASS: u32 = 2;

/// The program's XDP verdict for an Ethernet frame of `ether_type` from `src`.
fn verdict(pipeline: &str, ether_type: u16, src: u8) -> u32 {
    let mut frame = vec![0u8; 14];
    frame[11] = src;
    frame[12..14].copy_from_slice(&ether_type.to_be_bytes());
    frame.resize(64, 0);
    let deployment = Deployment::open(pipeline).unwrap_or_else(|e| panic!("{e}"));
    let program = deployment.program().unwrap_or_else(|e| panic!("{e}"));
    let fd = std::os::fd::AsRawFd::as_raw_fd(&program);
    let run = p4bpf_runtime::test_run::run(fd, &frame, 1).unwrap_or_else(|e| panic!("{e}"));
    run.retval
}

#[test]
fn range_and_optional_rules_written_read_and_matched_over_p4runtime() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED p4runtime_range: {why}");
        return;
    }
    let python = Path::new(env!("CARGO_TARGET_TMPDIR")).join("p4runtime-venv/bin/python");
    if !python.exists() {
        eprintln!(
            "SKIPPED p4runtime_range: no p4runtime-shell venv (the `p4runtime` test installs it)"
        );
        return;
    }
    let dir = scratch_dir("p4runtime_range");
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/p4runtime");
    let out = dir.to_string_lossy().into_owned();
    let compiled = p4bpf(&[
        "compile",
        &tests.join("range.p4").to_string_lossy(),
        "-o",
        &out,
    ]);
    assert!(compiled.status.success(), "{}", stderr(&compiled));
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_or(0, |a| a.port());
    let address = format!("127.0.0.1:{port}");
    let pipeline = format!("p4rtrange{}", std::process::id());
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
    let session = Command::new(&python)
        .arg(tests.join("range.py"))
        .args([&address, "range.p4info.txtpb", "range.o"])
        .current_dir(&dir)
        .output()
        .unwrap_or_else(|e| panic!("python runs: {e}"));
    let said = format!("{}{}", stdout(&session), stderr(&session));
    let verdicts = said.contains("inserted").then(|| {
        [
            (0x0800, 1),
            (0x08ff, 1),
            (0x0800, 2),
            (0x0900, 1),
            (0x9000, 7),
            (0x9fff, 9),
            (0xa000, 1),
        ]
        .map(|(ether_type, src)| verdict(&pipeline, ether_type, src))
    });
    let _ = server.kill();
    let _ = server.wait();
    let _ = p4bpf(&["pipeline", "unload", &pipeline]);
    assert!(session.status.success(), "{said}");
    assert!(said.contains("ok   a backwards range is refused"), "{said}");
    // A hit sends to PSA_PORT_CPU, the host stack; a miss drops.
    let (hit, miss) = (XDP_PASS, XDP_DROP);
    assert_eq!(
        verdicts,
        Some([hit, hit, miss, miss, hit, hit, miss]),
        "ranges bound both ends, the optional source counts only where given"
    );
}
