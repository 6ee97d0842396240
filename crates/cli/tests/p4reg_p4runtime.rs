//! Registers over P4Runtime: `p4bpf p4runtime serve` for
//! tests/p4reg_p4runtime/registers.p4, driven by
//! tests/p4reg_p4runtime/registers.py (p4runtime-shell's client, messages
//! by hand): never-written cells read as the initial values, a MODIFY of
//! one cell and of every cell reads back (one cell, every cell, every
//! register), registers without an initial value (bit<8>, int<8>,
//! int<12>, a struct holding an int<8>: two's-complement bytestrings)
//! read and write, bad updates get
//! the specification's codes naming the register, index and value, a
//! ROLLBACK_ON_ERROR batch takes its register MODIFYs back, a cell a
//! packet wrote (BPF_PROG_TEST_RUN through the loaded program) reads back
//! and a packet reads a negative int<12> the control plane wrote. At XDP
//! and at TC. Uses (or makes) the p4runtime-shell venv the `p4runtime`
//! test makes; skips, saying why, without pip's reach, root/BPF or clang.

#![allow(clippy::panic)] // a failing test should stop loudly

mod common;
#[path = "p4regint/shell.rs"]
mod shell;

use common::{p4bpf, scratch_dir, stderr, stdout};
use p4bpf_runtime::deploy::Deployment;
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Stops the server and unloads its pipeline when the test ends.
struct Server {
    child: Child,
    pipeline: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = p4bpf(&["pipeline", "unload", &self.pipeline]);
    }
}

fn session(python: &Path, address: &str, folder: &Path, phase: &str) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/p4reg_p4runtime/registers.py");
    let out = Command::new(python)
        .arg(script)
        .args([address, "registers.p4info.txtpb", "registers.o", phase])
        .current_dir(folder)
        .output()
        .unwrap_or_else(|e| panic!("python runs: {e}"));
    format!("{}{}", stdout(&out), stderr(&out))
}

fn serve(address: &str, pipeline: &str) -> Server {
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
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(address).is_err() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    Server {
        child,
        pipeline: pipeline.to_string(),
    }
}

/// Runs a frame of `op` at `idx` (count 0x0777, flag set, tag 0x99)
/// through the loaded program; the frame it leaves with.
fn send(pipeline: &str, op: u8, idx: u8) -> Vec<u8> {
    let mut frame = vec![op, idx, 0x07, 0x77, 1];
    frame.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 0x99]);
    let deployment = Deployment::open(pipeline).unwrap_or_else(|e| panic!("{e}"));
    let program = deployment.program().unwrap_or_else(|e| panic!("{e}"));
    let fd = std::os::fd::AsRawFd::as_raw_fd(&program);
    let run = p4bpf_runtime::test_run::run(fd, &frame, 1).unwrap_or_else(|e| panic!("{e}"));
    run.packet
}

fn assert_lines(output: &str, expected: &[&str]) {
    for line in expected {
        assert!(output.contains(line), "no `{line}` in:\n{output}");
    }
}

#[test]
fn register_entries_read_and_write_over_p4runtime_at_xdp() {
    register_entries_read_and_write("xdp");
}

#[test]
fn register_entries_read_and_write_over_p4runtime_at_tc() {
    register_entries_read_and_write("tc");
}

fn register_entries_read_and_write(hook: &str) {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED p4reg_p4runtime: {why}");
        return;
    }
    let python = match shell::python_with_shell() {
        Ok(python) => python,
        Err(why) => {
            eprintln!("SKIPPED p4reg_p4runtime: {why}");
            return;
        }
    };
    let dir = scratch_dir(&format!("p4reg_p4runtime_{hook}"));
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/p4reg_p4runtime/registers.p4");
    let out = dir.to_string_lossy().into_owned();
    let compiled = p4bpf(&[
        "compile",
        &program.to_string_lossy(),
        "--hook",
        hook,
        "-o",
        &out,
    ]);
    assert!(compiled.status.success(), "{}", stderr(&compiled));
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_or(0, |a| a.port());
    let address = format!("127.0.0.1:{port}");
    let pipeline = format!("p4reg{hook}{}", std::process::id());
    let _server = serve(&address, &pipeline);
    let setup = session(&python, &address, &dir, "setup");
    assert_lines(&setup, &SETUP_LINES);
    // Six totals cells, four of cells, bare, deltas and offsets, two of
    // pairs (a struct holding an int): every register served.
    assert_eq!(setup.matches("reg every ").count(), 24, "{setup}");
    assert_eq!(setup.matches("reg every In.bare").count(), 4, "{setup}");
    // The data path sign-extends the int<12> the control plane wrote.
    let read = send(&pipeline, 2, 1);
    assert_eq!(read.get(2..4), Some(&[0xf8u8, 0x00][..]), "{read:x?}");
    send(&pipeline, 1, 3);
    let after = session(&python, &address, &dir, "after");
    assert_lines(
        &after,
        &[
            "reg packet In.totals 3 0x777",
            "reg packet In.cells 3 {0x777, True, {0x99, 0x3}}",
            "reg packet In.bare 3 0x3",
            "reg packet In.deltas 3 0xfd",
            "reg packet In.offsets 3 0xfd",
            "ok   read",
        ],
    );
}

const SETUP_LINES: [&str; 42] = [
    "reg initial In.totals 5 0xa0b",
    "reg initial In.cells 3 {0x7, True, {0x1, 0x2}}",
    "ok   one",
    "reg one In.totals 2 0xbeef",
    "ok   all",
    "ok   one-cell",
    "reg all In.cells 0 {0x1234, False, {0xff00000000000000ab, 0x9}}",
    "reg all In.cells 1 {0x55, True, {0x42, 0x0}}",
    "reg all In.cells 3 {0x1234, False, {0xff00000000000000ab, 0x9}}",
    "reg initial In.bare 1 0x0",
    "ok   bare",
    "reg bare In.bare 0 0xab",
    "reg int8 In.deltas 1 0xfe",
    "reg int8-padded In.deltas 2 0x80",
    "reg int8-positive In.deltas 0 0x7f",
    "fail int8-over Error(s) during Write: * At index 0: OUT_OF_RANGE, 'register `In.deltas`[0], field `value`: value 0x0080 is outside int<8>",
    "fail int8-under Error(s) during Write: * At index 0: OUT_OF_RANGE, 'register `In.deltas`[0], field `value`: value 0xff7f is outside int<8>",
    "reg int12 In.offsets 1 0xf800",
    "reg int12-small In.offsets 2 0x7ff",
    "ok   int-field",
    "fail wide Error(s) during Write: * At index 0: OUT_OF_RANGE, 'register `In.totals`[0], field `value`: value 0x01ffff has 17 bits",
    "fail range Error(s) during Write: * At index 0: OUT_OF_RANGE, 'register `In.totals`: index 6 is out of range",
    "fail shape Error(s) during Write: * At index 0: INVALID_ARGUMENT, 'register `In.cells`: the value is bitstring 0x01",
    "fail members Error(s) during Write: * At index 0: INVALID_ARGUMENT, 'register `In.cells`: the value is a struct of 2 members",
    "fail insert Error(s) during Write: * At index 0: INVALID_ARGUMENT",
    "fail delete Error(s) during Write: * At index 0: INVALID_ARGUMENT",
    "fail id Error(s) during Write: * At index 0: NOT_FOUND, 'no register with id 12345",
    "status = StatusCode.OUT_OF_RANGE details = \"register `In.cells`: index 4 is out of range",
    "status = StatusCode.NOT_FOUND details = \"no register with id 12345",
    "reg after-errors In.totals 0 0xa0b",
    "fail rollback-one Error(s) during Write: * At index 0: ABORTED, 'rolled back: another update failed' * At index 1: OUT_OF_RANGE, 'register `In.totals`: index 9 is out of range",
    "reg rollback-one In.totals 1 0xa0b",
    "fail rollback-all Error(s) during Write:",
    "At index 2: INVALID_ARGUMENT, 'register `In.cells`: the value is bitstring 0x01",
    "reg rollback-all In.bare 0 0xab",
    "reg rollback-all In.bare 1 0x0",
    "reg rollback-all In.bare 2 0x0",
    "reg rollback-all In.bare 3 0x0",
    "reg rollback-all In.deltas 3 0x0",
    "ok   applied",
    "reg applied In.deltas 3 0x5",
    "reg applied In.totals 1 0x2222",
];
