//! VLAN tags on live ports at TC (`tests/tc_vlan`): the kernel takes a
//! received frame's outer 802.1Q tag out of its bytes before TC ingress,
//! and the program puts it back, so a P4 parser finds the tag where the
//! wire has it, on veth as under `BPF_PROG_TEST_RUN` and on the user
//! target. Needs root, BPF and clang; skips saying which.

mod common;

use std::path::{Path, PathBuf};

fn file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/tc_vlan")
        .join(name)
}

#[test]
fn a_tagged_frame_reaches_the_parser_with_its_tag_on_live_ports_at_tc() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED tc_vlan: {why}");
        return;
    }
    let (p4, stf) = (file("vlan_port.p4"), file("vlan_port.stf"));
    for target in ["veth", "kernel", "user"] {
        let args = ["test", &*p4.to_string_lossy(), &*stf.to_string_lossy()];
        let out = common::p4bpf(&[&args[..], &["--target", target, "--hook", "tc"]].concat());
        let text = common::stdout(&out) + &common::stderr(&out);
        assert!(
            out.status.success() && text.contains("PASS: 3 packets, 0 failure(s)"),
            "{target}:\n{text}"
        );
    }
}
