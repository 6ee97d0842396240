//! `p4bpf p4runtime serve` driven by p4runtime-shell (PyPI), as a P4 user
//! would: set the pipeline, insert entries into exact, lpm and ternary
//! tables, read them back; `p4bpf table dump` sees them; packets through
//! the loaded program get the entries' actions; the counter is read back
//! over P4Runtime; a second controller with a lower election id cannot
//! write. Then bad input (tests/p4runtime/session.py `errors`): each gets
//! the specification's code and leaves the table as it was.
//!
//! A second test serves mutual TLS (certificates from
//! tests/p4runtime/certs.sh) and checks who gets in.
//!
//! The test's own set-up installs p4runtime-shell in a venv under
//! target/tmp. Skips, saying why, without root/BPF, clang, python3 with
//! venv, or PyPI (and openssl, for TLS).

#![allow(clippy::panic)] // a failing test should stop loudly

mod common;

use common::{p4bpf, scratch_dir, stderr, stdout};
use p4bpf_runtime::deploy::{self, Deployment};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const XDP_DROP: u32 = 1;
const XDP_PASS: u32 = 2;
const XDP_TX: u32 = 3;

/// Stops the server and unloads its pipeline when the test ends.
struct Server {
    child: Child,
    pipeline: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = deploy::unload(&self.pipeline);
    }
}

/// A python with p4runtime-shell, installed on first use (once, however
/// many tests ask at the same time).
fn python_with_shell() -> Result<PathBuf, String> {
    static PYTHON: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    PYTHON.get_or_init(install_shell).clone()
}

fn install_shell() -> Result<PathBuf, String> {
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("p4runtime-venv");
    let python = venv.join("bin/python");
    let has_shell = |python: &Path| {
        Command::new(python)
            .args(["-c", "import p4runtime_sh.shell"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if has_shell(&python) {
        return Ok(python);
    }
    let made = Command::new("python3")
        .arg("-m")
        .arg("venv")
        .arg(&venv)
        .output();
    if !made.is_ok_and(|o| o.status.success()) {
        return Err("python3 -m venv failed (install python3 and python3-venv)".into());
    }
    let pip = Command::new(venv.join("bin/pip"))
        .args(["install", "--quiet", "p4runtime-shell"])
        .output()
        .map_err(|e| format!("pip: {e}"))?;
    if !pip.status.success() || !has_shell(&python) {
        return Err(format!(
            "pip could not install p4runtime-shell (is PyPI reachable?): {}",
            String::from_utf8_lossy(&pip.stderr)
        ));
    }
    Ok(python)
}

fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address").port()
}

fn start_server(address: &str, pipeline: &str, extra: &[&str]) -> Server {
    let child = Command::new(env!("CARGO_BIN_EXE_p4bpf"))
        .args([
            "p4runtime",
            "serve",
            "--addr",
            address,
            "--pipeline",
            pipeline,
        ])
        .args(extra)
        .stdout(Stdio::null())
        .spawn()
        .expect("the server starts");
    let server = Server {
        child,
        pipeline: pipeline.to_string(),
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(address).is_err() {
        assert!(
            Instant::now() < deadline,
            "the server does not listen on {address}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    server
}

fn session(python: &Path, address: &str, folder: &Path, phase: &str) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/p4runtime/session.py");
    let mut child = Command::new(python)
        .arg(script)
        .args([address, "router.p4info.txtpb", "router.o", phase])
        .current_dir(folder)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python runs");
    let deadline = Instant::now() + Duration::from_secs(120);
    while child.try_wait().ok().flatten().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().expect("python's output");
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "phase {phase} failed:\n{printed}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        printed.contains("ok   "),
        "phase {phase} checked nothing:\n{printed}"
    );
}

/// An Ethernet + IPv4 frame.
fn packet(dst_mac: [u8; 6], src_ip: [u8; 4], dst_ip: [u8; 4], protocol: u8) -> Vec<u8> {
    let mut frame = dst_mac.to_vec();
    frame.extend_from_slice(&[2, 0, 0, 0, 0, 0xee, 0x08, 0x00]);
    frame.extend_from_slice(&[0x45, 0, 0, 20, 0, 0, 0, 0, 64, protocol, 0, 0]);
    frame.extend_from_slice(&src_ip);
    frame.extend_from_slice(&dst_ip);
    frame.resize(64, 0);
    frame
}

fn verdict(pipeline: &str, frame: &[u8]) -> u32 {
    let deployment = Deployment::open(pipeline).unwrap_or_else(|e| panic!("{e}"));
    let program = deployment.program().unwrap_or_else(|e| panic!("{e}"));
    let fd = std::os::fd::AsRawFd::as_raw_fd(&program);
    let run = p4bpf_runtime::test_run::run(fd, frame, 1).unwrap_or_else(|e| panic!("{e}"));
    run.retval
}

#[test]
fn p4runtime_shell_programs_a_pipeline() {
    if let Err(why) = p4bpf_runtime::check_bpf_available() {
        eprintln!("skipped: {why}");
        return;
    }
    let python = match python_with_shell() {
        Ok(python) => python,
        Err(why) => {
            eprintln!("skipped: {why}");
            return;
        }
    };
    let compiled = scratch_dir("p4runtime");
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/p4runtime/router.p4");
    let out = compiled.to_string_lossy().into_owned();
    let compile = p4bpf(&["compile", &program.to_string_lossy(), "-o", &out]);
    if !compile.status.success() {
        eprintln!(
            "skipped: the test program does not compile here (is clang installed?): {}",
            stderr(&compile)
        );
        return;
    }
    let pipeline = format!("p4rt{}", std::process::id());
    let address = format!("127.0.0.1:{}", free_port());
    let _server = start_server(&address, &pipeline, &[]);

    session(&python, &address, &compiled, "program");

    let dump = p4bpf(&["table", "dump", &pipeline, "stations"]);
    assert_eq!(
        stdout(&dump),
        "hdr.ethernet.dst=02:00:00:00:00:01\tRouterIngress.send\tport=7\n",
        "{}",
        stderr(&dump)
    );
    let routes = stdout(&p4bpf(&["table", "dump", &pipeline, "routes"]));
    assert!(
        routes.contains("10.1.0.0/16\tRouterIngress.send\tport=3"),
        "{routes}"
    );

    let station = [2, 0, 0, 0, 0, 1];
    let elsewhere = [2, 0, 0, 0, 0, 0x99];
    assert_eq!(
        verdict(&pipeline, &packet(station, [10, 0, 0, 1], [10, 9, 9, 9], 6)),
        XDP_TX
    );
    assert_eq!(
        verdict(
            &pipeline,
            &packet(elsewhere, [10, 0, 0, 1], [10, 1, 2, 3], 6)
        ),
        XDP_TX
    );
    assert_eq!(
        verdict(
            &pipeline,
            &packet(elsewhere, [10, 0, 0, 1], [10, 2, 2, 3], 6)
        ),
        XDP_PASS
    );
    assert_eq!(
        verdict(
            &pipeline,
            &packet(elsewhere, [192, 168, 7, 7], [10, 2, 2, 3], 17)
        ),
        XDP_DROP
    );
    assert_eq!(
        verdict(
            &pipeline,
            &packet(elsewhere, [192, 168, 7, 7], [10, 2, 2, 3], 6)
        ),
        XDP_PASS,
        "the acl rule also matches on protocol 17"
    );

    session(&python, &address, &compiled, "counters");
    // An unknown station, not IPv4: only the stations table's default acts.
    let mut other = packet([2, 0, 0, 0, 0, 0x42], [0; 4], [0; 4], 0);
    other[12..14].copy_from_slice(&[0x86, 0xdd]);
    assert_eq!(verdict(&pipeline, &other), XDP_PASS, "NoAction by default");
    session(&python, &address, &compiled, "errors");
    assert_eq!(
        verdict(&pipeline, &other),
        XDP_DROP,
        "the errors phase made drop the default"
    );
}

#[test]
fn mutual_tls_admits_only_clients_with_a_certificate() {
    let python = match python_with_shell() {
        Ok(python) => python,
        Err(why) => {
            eprintln!("skipped: {why}");
            return;
        }
    };
    let folder = scratch_dir("p4runtime_tls");
    let certs = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/p4runtime/certs.sh");
    let made = Command::new("bash").arg(certs).arg(&folder).output();
    if !made.as_ref().is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: openssl could not make test certificates: {made:?}");
        return;
    }
    let file = |name: &str| folder.join(name).to_string_lossy().into_owned();
    let address = format!("127.0.0.1:{}", free_port());
    let pipeline = format!("p4rttls{}", std::process::id());
    let tls = [
        "--tls-cert",
        &file("server.pem"),
        "--tls-key",
        &file("server.key"),
        "--tls-ca",
        &file("ca.pem"),
    ];
    let _server = start_server(&address, &pipeline, &tls);
    session(&python, &address, &folder, "tls");
}
