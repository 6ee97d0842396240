//! Copies at XDP (`tests/xdp_copies`): multicast and I2E clones through
//! a devmap broadcast, egress run on each copy by the devmap's program.
//! `p4bpf test --target kernel --hook xdp` plays the script on veth pairs
//! in a private network namespace: two replicas to one port in the
//! group's order, a replica back out of the ingress port, one egress
//! drops, a member port with no interface, a clone with its field list,
//! a clone of a dropped packet, a clone and a multicast of one packet,
//! a session nobody made. The same script passes at TC, and a wrong
//! order of replicas fails. E2E clones (v1model's with a field list,
//! PSA's of what the egress deparser wrote): the original and its clones
//! both leave, an original egress drops still clones, as at TC. A clone
//! in a pass that resubmits: the clone of that pass, the packet after
//! the next, as at TC. Needs root, BPF and clang; skips
//! saying which is missing.

mod common;

use std::path::{Path, PathBuf};

fn file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/xdp_copies")
        .join(name)
}

/// `p4bpf test copies.p4 SCRIPT --target TARGET --hook HOOK`: success and output.
fn run(script: &Path, target: &str, hook: &str) -> (bool, String) {
    run_program(&file("copies.p4"), script, target, hook)
}

/// `p4bpf test P4 SCRIPT --target TARGET --hook HOOK`: success and output.
fn run_program(p4: &Path, script: &Path, target: &str, hook: &str) -> (bool, String) {
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

/// copies.p4 with a resubmission (op bit 8) on the first pass, which alone
/// clones; the second pass sets the kept field to 0x6b.
fn resubmitting_copies(dir: &Path) -> PathBuf {
    let source = std::fs::read_to_string(file("copies.p4")).expect("copies.p4");
    let edits = [
        (
            "        if (hdr.op.op & 2 != 0) {\n",
            "        if (hdr.op.op & 2 != 0 && sm.instance_type == 0) {\n",
        ),
        (
            "        meta.lost = 0x1c;\n",
            "        meta.lost = 0x1c;\n        if (sm.instance_type == 6) {\n            meta.kept = 0x6b;\n        }\n",
        ),
        (
            "        if (hdr.op.op & 4 != 0) {\n",
            "        if (hdr.op.op & 8 != 0 && sm.instance_type == 0) {\n            resubmit_preserving_field_list(0);\n        }\n        if (hdr.op.op & 4 != 0) {\n",
        ),
    ];
    let mut program = source.clone();
    for (from, to) in edits {
        assert!(program.contains(from), "copies.p4 changed: {from}");
        program = program.replacen(from, to, 1);
    }
    common::write(dir, "resubmits.p4", &program)
}

#[test]
fn a_clone_and_a_resubmission_in_one_pass_at_xdp_as_at_tc() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED xdp_copies: {why}");
        return;
    }
    let program = resubmitting_copies(&common::scratch_dir("xdp_copies_resubmit"));
    for hook in ["xdp", "tc"] {
        let (ok, text) = run_program(&program, &file("resubmit.stf"), "kernel", hook);
        assert!(ok, "{hook}: {text}");
        assert!(
            text.contains("PASS: 4 packets, 0 failure(s)"),
            "{hook}: {text}"
        );
        let clone_of_dropped = "(resubmit.stf:16) in port 1: redirect to port 3: ok";
        assert!(text.contains(clone_of_dropped), "{hook}: {text}");
    }
}

#[test]
fn v1model_e2e_clones_at_xdp_keep_what_egress_left_as_at_tc() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED xdp_copies: {why}");
        return;
    }
    for hook in ["xdp", "tc"] {
        let (ok, text) = run_program(&file("e2e.p4"), &file("e2e.stf"), "kernel", hook);
        assert!(ok, "{hook}: {text}");
        assert!(
            text.contains("PASS: 3 packets, 0 failure(s)"),
            "{hook}: {text}"
        );
        let clone_of_dropped = "(e2e.stf:12) in port 1: redirect to port 3: ok (expect at line 13)";
        assert!(text.contains(clone_of_dropped), "{hook}: {text}");
    }
}

#[test]
fn a_v1model_e2e_clone_that_lost_its_field_list_fails_at_xdp() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED xdp_copies: {why}");
        return;
    }
    let script = std::fs::read_to_string(file("e2e.stf")).expect("e2e.stf");
    let kept = "expect 3 000000000002 00000000cafe 1234 01 05 02 4c 00 03 $";
    assert!(script.contains(kept), "e2e.stf changed");
    let dir = common::scratch_dir("xdp_copies_e2e_lost");
    let lost = script.replacen(kept, &kept.replace(" 4c 00 03", " 00 00 03"), 1);
    let (ok, text) = run_program(
        &file("e2e.p4"),
        &common::write(&dir, "lost.stf", &lost),
        "kernel",
        "xdp",
    );
    assert!(!ok, "{text}");
    assert!(text.contains("FAIL: 3 packets, 1 failure(s)"), "{text}");
}

#[test]
fn psa_e2e_clones_at_xdp_copy_what_the_egress_deparser_wrote() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED xdp_copies: {why}");
        return;
    }
    let psa = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/psa");
    let (p4, stf) = (psa.join("psa_clone_e2e.p4"), psa.join("psa_clone_e2e.stf"));
    let (ok, text) = run_program(&p4, &stf, "kernel", "xdp");
    assert!(
        ok && text.contains("PASS: 3 packets, 0 failure(s)"),
        "{text}"
    );
    for port in [2, 5, 6] {
        let out = format!("(psa_clone_e2e.stf:15) in port 1: redirect to port {port}: ok");
        assert!(text.contains(&out), "{text}");
    }
}
