//! PSA's clone I2E in a program that also resubmits
//! (`tests/psa_clone_resubmit/clone_resubmit.p4`): the clones of the pass
//! that asked for them, of the packet as received, with that pass's clone
//! metadata and their session's traits, whether the packet then leaves
//! (grown by a header), is dropped or is resubmitted without a clone. One
//! STF at kernel XDP (copies by devmap broadcast), kernel TC and on the
//! user target at both hooks. Needs root, BPF and clang; skips saying
//! which.

mod common;

use std::path::{Path, PathBuf};

fn own(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/psa_clone_resubmit")
        .join(name)
}

#[test]
fn clones_of_a_pass_that_resubmits_leave_on_every_target() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED psa_clone_resubmit: {why}");
        return;
    }
    let (p4, stf) = (own("clone_resubmit.p4"), own("clone_resubmit.stf"));
    for target in ["kernel", "user"] {
        for hook in ["xdp", "tc"] {
            let out = common::p4bpf(&[
                "test",
                &*p4.to_string_lossy(),
                &*stf.to_string_lossy(),
                "--target",
                target,
                "--hook",
                hook,
            ]);
            let text = common::stdout(&out) + &common::stderr(&out);
            assert!(
                out.status.success() && text.contains("PASS: 9 packets, 0 failure(s)"),
                "{target} {hook}:\n{text}"
            );
        }
    }
}
