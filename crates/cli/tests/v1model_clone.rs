//! v1model clones (`tests/v1model_clone`): I2E and E2E, with and without
//! a field list, through BMv2's `mirroring_add`, live on veth pairs at
//! TC, the only target that sees every copy; XDP refuses them where the
//! program asks; the kernel's test run says it cannot see the copies.

mod common;

use std::path::{Path, PathBuf};

fn files() -> (PathBuf, PathBuf) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/v1model_clone");
    (dir.join("clones.p4"), dir.join("clones.stf"))
}

#[test]
fn clones_pass_live_at_tc() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED clones_pass_live_at_tc: {why}");
        return;
    }
    let (p4, stf) = files();
    let (p4, stf) = (p4.to_string_lossy(), stf.to_string_lossy());
    let out = common::p4bpf(&["test", &p4, &stf, "--target", "veth", "--hook", "tc"]);
    let text = common::stdout(&out);
    assert!(out.status.success(), "{text}{}", common::stderr(&out));
    assert!(text.contains("PASS: 5 packets, 0 failure(s)"), "{text}");
    // The first packet leaves twice: the original and its I2E clone.
    assert_eq!(text.matches("(clones.stf:8) in port 0").count(), 2, "{text}");
    // One test run returns one packet: the kernel target says so.
    let out = common::p4bpf(&["test", &p4, &stf, "--target", "kernel", "--hook", "tc"]);
    assert!(!out.status.success());
    let text = common::stdout(&out) + &common::stderr(&out);
    assert!(
        text.contains("run this script with --target veth --hook tc"),
        "{text}"
    );
}

#[test]
fn clones_are_refused_at_xdp_where_the_program_clones() {
    let (p4, _) = files();
    let dir = common::scratch_dir("v1model_clone_xdp");
    let out = common::p4bpf(&[
        "compile",
        &p4.to_string_lossy(),
        "--hook",
        "xdp",
        "-o",
        &dir.to_string_lossy(),
    ]);
    assert!(!out.status.success());
    let text = common::stderr(&out);
    assert!(
        text.contains("clones.p4:33:1: error: cloning (`clone`, `clone_preserving_field_list`) is not supported at XDP"),
        "{text}"
    );
    assert!(text.contains("compile with --hook tc"), "{text}");
}
