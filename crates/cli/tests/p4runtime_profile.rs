//! Action profiles over P4Runtime: `p4bpf p4runtime serve` for
//! tests/profile/v1_selector.p4, driven by p4runtime-shell
//! (tests/p4runtime/profiles.py): members and a weighted group written,
//! a duplicate member and the deletion of a member in use refused with
//! the specification's codes, table entries naming a member and a group
//! read back as such, a ROLLBACK_ON_ERROR batch of member and group
//! inserts, modifications and deletions that fails on its last update
//! leaves every member and group as it was, and `p4bpf profile` sees
//! what was written. Uses the
//! p4runtime-shell venv the `p4runtime` test installs; skips, saying why,
//! without it, root/BPF or clang.

#![allow(clippy::panic)] // a failing test should stop loudly

mod common;

use common::{p4bpf, scratch_dir, stderr, stdout};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn members_groups_and_references_over_p4runtime() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED p4runtime_profile: {why}");
        return;
    }
    let python = Path::new(env!("CARGO_TARGET_TMPDIR")).join("p4runtime-venv/bin/python");
    if !python.exists() {
        eprintln!(
            "SKIPPED p4runtime_profile: no p4runtime-shell venv (the `p4runtime` test installs it)"
        );
        return;
    }
    let dir = scratch_dir("p4runtime_profile");
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/profile/v1_selector.p4");
    let out = dir.to_string_lossy().into_owned();
    let compiled = p4bpf(&["compile", &program.to_string_lossy(), "-o", &out]);
    assert!(compiled.status.success(), "{}", stderr(&compiled));
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_or(0, |a| a.port());
    let address = format!("127.0.0.1:{port}");
    let pipeline = format!("p4rtprof{}", std::process::id());
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
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/p4runtime/profiles.py");
    let session = Command::new(&python)
        .arg(script)
        .args([&address, "v1_selector.p4info.txtpb", "v1_selector.o"])
        .current_dir(&dir)
        .output();
    let groups = p4bpf(&["profile", "group", "list", &pipeline, "spread"]);
    let members = p4bpf(&["profile", "member", "list", &pipeline, "spread"]);
    let _ = server.kill();
    let _ = server.wait();
    let _ = p4bpf(&["pipeline", "unload", &pipeline]);
    let session = session.unwrap_or_else(|e| panic!("python runs: {e}"));
    let said = format!("{}{}", stdout(&session), stderr(&session));
    for expected in [
        "ok   member 1",
        "ok   member 2",
        "ok   group 5",
        "ok   entry to member 1",
        "ok   entry to group 5",
        "ok   member 4",
        "ok   group 7",
        "action_profile_member_id: 1",
        "action_profile_group_id: 5",
    ] {
        assert!(said.contains(expected), "no `{expected}` in:\n{said}");
    }
    assert!(
        said.contains("ERR  member 2 again") && said.contains("ALREADY_EXISTS"),
        "{said}"
    );
    assert!(
        said.contains("ERR  delete member 1") && said.contains("FAILED_PRECONDITION"),
        "{said}"
    );
    assert!(said.contains("ERR  rollback batch"), "{said}");
    // Weight 2 is member 1 twice; the rolled-back batch changed nothing.
    let groups = stdout(&groups);
    assert!(groups.contains("5\t1 1 2\n"), "{groups}");
    assert!(groups.contains("7\t1\n"), "{groups}");
    assert!(!groups.lines().any(|l| l.starts_with("6\t")), "{groups}");
    let members = stdout(&members);
    for kept in [
        "1\tIg.fwd\tport=1",
        "2\tIg.fwd\tport=2",
        "4\tIg.fwd\tport=4",
    ] {
        assert!(members.contains(kept), "no `{kept}` in {members}");
    }
    assert!(!members.lines().any(|l| l.starts_with("3\t")), "{members}");
}
