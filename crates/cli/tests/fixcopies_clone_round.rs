//! PSA's clone I2E of a packet that recirculates, in a program that does
//! not resubmit (`tests/fixcopies_clone_round/clone_round.p4`): the
//! clones of the packet as the cloning pass received it, the packet
//! leaving by the port a later pass chooses (after one or two rounds),
//! the clones alone when egress drops the packet on its way round, and
//! an E2E clone that egress makes on the way round among them.
//! One STF at kernel XDP (copies by devmap broadcast, the plan kept
//! across the rounds), kernel TC and on the user target at both hooks.
//! Needs root, BPF and clang; skips saying which.

mod common;

use std::path::{Path, PathBuf};

fn own(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixcopies_clone_round")
        .join(name)
}

#[test]
fn clones_of_a_pass_that_recirculates_leave_on_every_target() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED fixcopies_clone_round: {why}");
        return;
    }
    let (p4, stf) = (own("clone_round.p4"), own("clone_round.stf"));
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
                out.status.success() && text.contains("PASS: 5 packets, 0 failure(s)"),
                "{target} {hook}:\n{text}"
            );
        }
    }
}
