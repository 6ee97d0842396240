//! Signed register values over P4Runtime: `p4bpf p4runtime serve` for
//! tests/p4regint/signed.p4, driven by tests/p4regint/signed.py
//! (p4runtime-shell's client, messages by hand). A struct register of
//! int<8>, int<16>, int<33> and bit<8> fields reads its negative initial
//! value, takes MODIFYs of boundary values (-128, 127, -1, -2^32, 2^32-1)
//! as two's-complement bytestrings, padded or not, and reads them back in
//! their shortest form; the data path reads them right (a frame copies a
//! cell into its header through BPF_PROG_TEST_RUN) and a cell a packet
//! wrote reads back. Values outside a field are refused naming the
//! register, index, field and value; registers indexed by a struct or a
//! bit<72> are UNIMPLEMENTED, saying why. Table entries with negative
//! int keys and parameters go in, read back in their shortest form and
//! are hit by a packet; out-of-range ones are refused. At XDP and at TC.
//! Uses (or makes) the p4runtime-shell venv the `p4runtime` test makes;
//! skips, saying why, without pip's reach or root/BPF.

#![allow(clippy::panic)] // a failing test should stop loudly

mod common;
#[path = "p4regint/shell.rs"]
mod shell;

use common::{p4bpf, scratch_dir, stderr, stdout};
use p4bpf_runtime::deploy::Deployment;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
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

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/p4regint")
        .join(name)
}

fn session(python: &Path, address: &str, folder: &Path, phase: &str) -> String {
    let out = Command::new(python)
        .arg(fixture("signed.py"))
        .args([address, "signed.p4info.txtpb", "signed.o", phase])
        .current_dir(folder)
        .output()
        .unwrap_or_else(|e| panic!("python runs: {e}"));
    format!("{}{}", stdout(&out), stderr(&out))
}

fn serve(address: &str, pipeline: &str) -> Server {
    let child = Command::new(env!("CARGO_BIN_EXE_p4bpf"))
        .args(["p4runtime", "serve", "--addr", address])
        .args(["--pipeline", pipeline])
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

/// Runs a 16-byte h_t frame starting `start` through the loaded program;
/// the frame's a, b, c (int<40>) and d as numbers.
fn send(pipeline: &str, start: &[u8]) -> (i8, i16, i64, u8) {
    let mut frame = start.to_vec();
    frame.resize(16, 0);
    let deployment = Deployment::open(pipeline).unwrap_or_else(|e| panic!("{e}"));
    let program = deployment.program().unwrap_or_else(|e| panic!("{e}"));
    let fd = std::os::fd::AsRawFd::as_raw_fd(&program);
    let run = p4bpf_runtime::test_run::run(fd, &frame, 1).unwrap_or_else(|e| panic!("{e}"));
    let byte = |i: usize| run.packet.get(i).copied().unwrap_or(0);
    let c = (5..10).fold(0i64, |acc, i| acc << 8 | i64::from(byte(i)));
    let b = i16::from_be_bytes([byte(3), byte(4)]);
    (byte(2) as i8, b, (c << 24) >> 24, byte(10))
}

fn assert_lines(output: &str, expected: &[&str]) {
    for line in expected {
        assert!(output.contains(line), "no `{line}` in:\n{output}");
    }
}

#[test]
fn signed_register_entries_over_p4runtime_at_xdp() {
    signed_register_entries("xdp");
}

#[test]
fn signed_register_entries_over_p4runtime_at_tc() {
    signed_register_entries("tc");
}

fn signed_register_entries(hook: &str) {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED p4regint_p4runtime: {why}");
        return;
    }
    let python = match shell::python_with_shell() {
        Ok(python) => python,
        Err(why) => {
            eprintln!("SKIPPED p4regint_p4runtime: {why}");
            return;
        }
    };
    let dir = scratch_dir(&format!("p4regint_p4runtime_{hook}"));
    let out = dir.to_string_lossy().into_owned();
    let program = fixture("signed.p4");
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
    let pipeline = format!("p4regint{hook}{}", std::process::id());
    let _server = serve(&address, &pipeline);
    let setup = session(&python, &address, &dir, "setup");
    assert_lines(&setup, &SETUP_LINES);
    // Four cells, two seeded, four small, four big; not by_key, by_wide.
    assert_eq!(setup.matches("reg every ").count(), 14, "{setup}");
    assert_eq!(send(&pipeline, &[1, 1]), (-128, -32768, -(1 << 32), 0xff));
    assert_eq!(send(&pipeline, &[1, 2]), (127, 32767, (1 << 32) - 1, 0));
    assert_eq!(send(&pipeline, &[1, 3]), (-1, -1, -1, 1));
    assert_eq!(send(&pipeline, &[2, 1]), (-3, -300, -5, 7));
    assert_eq!(send(&pipeline, &[4, 0]).0, -1); // small[0]
                                                // In.signs: a -3 and e -2 (0xffe, then 4 pad bits) hit set_b(-300, -5).
    assert_eq!(
        send(&pipeline, &[0, 0, 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xe0]),
        (-3, -300, -5, 0)
    );
    assert_eq!(
        send(&pipeline, &[0, 0, 0x7f, 0, 0, 0, 0, 0, 0, 0, 0, 0x7f, 0xf0]),
        (127, 32767, 128, 0)
    );
    assert_eq!(send(&pipeline, &[4, 1]).2, -(1 << 32)); // big[1]
                                                        // op 3 writes a -2, b -100, c -10, d 0x42 into cells[0].
    send(
        &pipeline,
        &[3, 0, 0xfe, 0xff, 0x9c, 0xff, 0xff, 0xff, 0xff, 0xf6, 0x42],
    );
    let after = session(&python, &address, &dir, "after");
    assert_lines(
        &after,
        &["reg packet In.cells 0 {fe, 9c, f6, 42}", "ok   read"],
    );
}

const SETUP_LINES: [&str; 24] = [
    "reg initial In.seeded 1 {fd, fed4, fb, 07}",
    "ok   lowest",
    "ok   highest",
    "ok   minus-one",
    "reg cells In.cells 0 {00, 00, 00, 00}",
    "reg cells In.cells 1 {80, 8000, ff00000000, ff}",
    "reg cells In.cells 2 {7f, 7fff, 00ffffffff, 00}",
    "reg cells In.cells 3 {ff, ff, ff, 01}",
    "reg small In.small 0 ff",
    "reg big In.big 1 ff00000000",
    "fail a-over Error(s) during Write: * At index 0: OUT_OF_RANGE, 'register `In.cells`[0], field `a`: value 0x0080 is outside int<8>",
    "fail c-over Error(s) during Write: * At index 0: OUT_OF_RANGE, 'register `In.cells`[0], field `c`: value 0x0100000000 is outside int<33>",
    "fail c-under Error(s) during Write: * At index 0: OUT_OF_RANGE, 'register `In.cells`, field `c`: value 0xfeffffffff is outside int<33>",
    "fail b-under Error(s) during Write: * At index 0: OUT_OF_RANGE, 'register `In.cells`[0], field `b`: value 0xff7fff is outside int<16>",
    "reg unchanged In.cells 0 {00, 00, 00, 00}",
    "fail by-key <_MultiThreadedRendezvous of RPC that terminated with: status = StatusCode.UNIMPLEMENTED details = \"register `In.by_key` is indexed by a struct or a bit string wider than 64 bits; P4Runtime numbers a register's cells with an int64 (use `p4bpf register get/set`)\"",
    "fail by-wide Error(s) during Write: * At index 0: UNIMPLEMENTED, 'register `In.by_wide` is indexed by a struct or a bit string wider than 64 bits; P4Runtime numbers a register's cells with an int64",
    "reg every In.seeded 0 {fd, fed4, fb, 07}",
    "ok   signs",
    "ok   signs-high",
    "fail param-over Error(s) during Write: * At index 0: OUT_OF_RANGE, 'action `In.set_b`, parameter `v`: value 0x018000 is outside int<16>",
    "fail key-over Error(s) during Write: * At index 0: OUT_OF_RANGE, 'table `In.signs`, match field `hdr.h.a`: value 0x0080 is outside int<8>",
    "entry signs fd fe -> fed4 fb",
    "entry signs 7f 07ff -> 7fff 0080",
];
