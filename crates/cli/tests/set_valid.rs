//! `setValid()` on an invalid header zeroes its fields, on every
//! architecture and target (`tests/set_valid`): a tagged frame fills the
//! tag in the reused per-CPU state, the untagged frame after it makes
//! the tag valid without assigning it and must send zeros, not the tag
//! before. Needs root, BPF and clang; skips saying which.

mod common;

use std::path::{Path, PathBuf};

const TARGETS: [&[&str]; 3] = [
    &["--target", "kernel", "--hook", "xdp"],
    &["--target", "kernel", "--hook", "tc"],
    &["--target", "user"],
];

fn file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/set_valid")
        .join(name)
}

#[test]
fn set_valid_on_an_invalid_header_zeroes_its_fields_on_every_architecture() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED set_valid: {why}");
        return;
    }
    let stf = file("tag.stf");
    for program in ["psa_tag.p4", "v1model_tag.p4"] {
        let p4 = file(program);
        for target in TARGETS {
            let args = ["test", &*p4.to_string_lossy(), &*stf.to_string_lossy()];
            let out = common::p4bpf(&[&args[..], target].concat());
            let text = common::stdout(&out) + &common::stderr(&out);
            assert!(
                out.status.success() && text.contains("PASS: 6 packets, 0 failure(s)"),
                "{program} {}:\n{text}",
                target.join(" ")
            );
        }
    }
}
