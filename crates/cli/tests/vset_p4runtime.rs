//! Parser value sets over P4Runtime: `p4bpf p4runtime serve` for the PSA
//! program tests/vset_p4runtime/sets.p4, driven by p4runtime-shell's
//! client (tests/vset_p4runtime/sets.py): the P4Info's match kinds, MODIFY
//! of a ternary+range set and of an exact set, read back, a whole-set
//! replace, refusals with the specification's codes; then packets through
//! the loaded program are kept or dropped as the members say. Uses the
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

const XDP_DROP: u32 = 1;
const XDP_PASS: u32 = 2;

/// The program's XDP verdict for an Ethernet frame of `ether_type` whose
/// source address ends in `src_low`.
fn verdict(pipeline: &str, ether_type: u16, src_low: u8) -> u32 {
    let mut frame = vec![0u8; 14];
    frame[11] = src_low;
    frame[12..14].copy_from_slice(&ether_type.to_be_bytes());
    frame.resize(64, 0);
    let deployment = Deployment::open(pipeline).unwrap_or_else(|e| panic!("{e}"));
    let program = deployment.program().unwrap_or_else(|e| panic!("{e}"));
    let fd = std::os::fd::AsRawFd::as_raw_fd(&program);
    let run = p4bpf_runtime::test_run::run(fd, &frame, 1).unwrap_or_else(|e| panic!("{e}"));
    run.retval
}

#[test]
fn value_sets_written_read_and_matched_over_p4runtime() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED vset_p4runtime: {why}");
        return;
    }
    let python = Path::new(env!("CARGO_TARGET_TMPDIR")).join("p4runtime-venv/bin/python");
    if !python.exists() {
        eprintln!(
            "SKIPPED vset_p4runtime: no p4runtime-shell venv (the `p4runtime` test installs it)"
        );
        return;
    }
    let dir = scratch_dir("vset_p4runtime");
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vset_p4runtime");
    let out = dir.to_string_lossy().into_owned();
    let compiled = p4bpf(&[
        "compile",
        &tests.join("sets.p4").to_string_lossy(),
        "-o",
        &out,
    ]);
    assert!(compiled.status.success(), "{}", stderr(&compiled));
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_or(0, |a| a.port());
    let address = format!("127.0.0.1:{port}");
    let pipeline = format!("vsetp4rt{}", std::process::id());
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
        .arg(tests.join("sets.py"))
        .args([&address, "sets.p4info.txtpb", "sets.o"])
        .current_dir(&dir)
        .output()
        .unwrap_or_else(|e| panic!("python runs: {e}"));
    let said = format!("{}{}", stdout(&session), stderr(&session));
    let verdicts = said.contains("written").then(|| {
        [
            (0x0800, 10),
            (0x08ab, 20),
            (0x0800, 21),
            (0x0800, 9),
            (0x0900, 15),
            (0x9000, 0xff),
            (0x9001, 0),
            (0x88cc, 0),
            (0x88cd, 0),
        ]
        .map(|(ether_type, src_low)| verdict(&pipeline, ether_type, src_low))
    });
    let _ = server.kill();
    let _ = server.wait();
    let _ = p4bpf(&["pipeline", "unload", &pipeline]);
    assert!(session.status.success(), "{said}");
    let (hit, miss) = (XDP_PASS, XDP_DROP);
    assert_eq!(
        verdicts,
        Some([hit, hit, miss, miss, miss, hit, miss, hit, miss]),
        "the written members match, their neighbours do not:\n{said}"
    );
}
