//! A register read past its end gives the register's initial value, on
//! every target and for every kind of register (`tests/loopfix_register`:
//! a struct, a bit string wider than 64 bits, a narrow bit string), and a
//! write past the end is lost. Needs root, BPF and clang; skips saying
//! which.

mod common;

use std::path::{Path, PathBuf};

const TARGETS: [&[&str]; 4] = [
    &["--target", "kernel", "--hook", "xdp"],
    &["--target", "kernel", "--hook", "tc"],
    &["--target", "user", "--hook", "xdp"],
    &["--target", "user", "--hook", "tc"],
];

fn file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/loopfix_register")
        .join(name)
}

#[test]
fn a_read_past_the_end_gives_the_initial_value_for_every_register_kind() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED loopfix_register: {why}");
        return;
    }
    let (p4, stf) = (file("past_end.p4"), file("past_end.stf"));
    for target in TARGETS {
        let args = ["test", &*p4.to_string_lossy(), &*stf.to_string_lossy()];
        let out = common::p4bpf(&[&args[..], target].concat());
        let text = common::stdout(&out) + &common::stderr(&out);
        assert!(
            out.status.success() && text.contains("PASS: 6 packets, 0 failure(s)"),
            "{}:\n{text}",
            target.join(" ")
        );
    }
}
