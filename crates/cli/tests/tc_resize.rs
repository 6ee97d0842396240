//! Resizing a packet twice in one pass at TC: a PSA program whose ingress
//! deparser emits a bridged header before Ethernet and whose egress
//! deparser leaves it out (`tests/tc_resize/bridged.p4`), on IPv4 frames
//! and others, with and without a tag left in. Growing at the head moves
//! the skb's MAC header but not its network header, so a shrink after the
//! Ethernet header then cut the first bytes of the IPv4 header; the STF
//! compares every byte out, on every target. Skips without root/BPF.

mod common;

use std::path::{Path, PathBuf};

fn own(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/tc_resize")
        .join(name)
}

#[test]
fn a_packet_grown_then_shrunk_keeps_every_byte_on_every_target() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED tc_resize: {why}");
        return;
    }
    let (p4, stf) = (own("bridged.p4"), own("bridged.stf"));
    let (p4, stf) = (p4.to_string_lossy(), stf.to_string_lossy());
    for target in [
        &["--target", "kernel", "--hook", "tc"][..],
        &["--target", "kernel", "--hook", "xdp"],
        &["--target", "user"],
    ] {
        let args = [&["test", p4.as_ref(), stf.as_ref()][..], target].concat();
        let out = common::p4bpf(&args);
        let text = common::stdout(&out) + &common::stderr(&out);
        assert!(out.status.success(), "{}:\n{text}", target.join(" "));
        assert!(
            text.contains("PASS: 3 packets, 0 failure(s)"),
            "{}:\n{text}",
            target.join(" ")
        );
    }
}
