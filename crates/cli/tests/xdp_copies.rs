//! Copies at XDP (`tests/xdp_copies`): multicast and I2E clones through
//! a devmap broadcast, egress run on each copy by the devmap's program.
//! `p4bpf test --target kernel --hook xdp` plays the script on veth pairs
//! in a private network namespace: two replicas to one port in the
//! group's order, a replica back out of the ingress port, one egress
//! drops, a member port with no interface, a clone with its field list,
//! a clone of a dropped packet, a clone and a multicast of one packet,
//! a session nobody made. The same script passes at TC, and a wrong
//! order of replicas fails. What XDP cannot copy is refused at its place.
//! Needs root, BPF and clang; skips saying which is missing.

mod common;

use std::path::{Path, PathBuf};

fn file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/xdp_copies")
        .join(name)
}

/// `p4bpf test copies.p4 SCRIPT --target TARGET --hook HOOK`: success and output.
fn run(script: &Path, target: &str, hook: &str) -> (bool, String) {
    let p4 = file("copies.p4");
    let args = ["test", &*p4.to_string_lossy(), &*script.to_string_lossy()];
    let out = common::p4bpf(&[&args[..], &["--target", target, "--hook", hook]].concat());
    (
        out.status.success(),
        common::stdout(&out) + &common::stderr(&out),
    )
}

#[test]
fn copies_at_xdp_run_egress_per_copy_as_at_tc() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED xdp_copies: {why}");
        return;
    }
    for hook in ["xdp", "tc"] {
        let (ok, text) = run(&file("copies.stf"), "kernel", hook);
        assert!(ok, "{hook}: {text}");
        assert!(
            text.contains("PASS: 6 packets, 0 failure(s)"),
            "{hook}: {text}"
        );
        let to_port_2 = "(copies.stf:23) in port 1: redirect to port 2: ok";
        assert_eq!(text.matches(to_port_2).count(), 2, "{hook}: {text}");
        let clone = "(copies.stf:36) in port 1: redirect to port 3: ok (expect at line 37)";
        assert!(text.contains(clone), "{hook}: {text}");
    }
}

#[test]
fn replicas_to_one_port_in_another_order_fail_at_xdp() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED xdp_copies: {why}");
        return;
    }
    let script = std::fs::read_to_string(file("copies.stf")).expect("copies.stf");
    let (first, second) = (
        "expect 2 ffffffffffff 000000000001 1234 01 01 00 02 0001 05 4b 1c\n",
        "expect 2 ffffffffffff 000000000001 1234 01 01 00 02 0002 05 4b 1c\n",
    );
    let swapped = script.replacen(&format!("{first}{second}"), &format!("{second}{first}"), 1);
    assert_ne!(
        swapped, script,
        "the two replicas to port 2 are not in copies.stf"
    );
    let dir = common::scratch_dir("xdp_copies_order");
    let (ok, text) = run(
        &common::write(&dir, "swapped.stf", &swapped),
        "kernel",
        "xdp",
    );
    assert!(!ok, "{text}");
    assert!(text.contains("FAIL: 6 packets, 2 failure(s)"), "{text}");
}

#[test]
fn a_clone_in_a_program_that_resubmits_is_refused_at_xdp_where_it_clones() {
    let source = std::fs::read_to_string(file("copies.p4")).expect("copies.p4");
    let drop = "        if (hdr.op.op & 4 != 0) {\n            mark_to_drop(sm);";
    let resubmit =
        "        if (hdr.op.op & 8 != 0) {\n            resubmit_preserving_field_list(0);\n        }\n";
    assert!(source.contains(drop), "copies.p4 changed");
    let dir = common::scratch_dir("xdp_copies_resubmit");
    let program = common::write(
        &dir,
        "resubmits.p4",
        &source.replacen(drop, &format!("{resubmit}{drop}"), 1),
    );
    let out = common::p4bpf(&[
        "compile",
        &program.to_string_lossy(),
        "--hook",
        "xdp",
        "-o",
        &dir.join("out").to_string_lossy(),
    ]);
    let text = common::stderr(&out);
    assert!(!out.status.success(), "{text}");
    assert!(
        text.contains("resubmits.p4:29:1: error: cloning in a program that also resubmits is not supported at XDP"),
        "{text}"
    );
    assert!(text.contains("compile with --hook tc"), "{text}");
}
