//! PNA's `mirror_packet` (`tests/pna_mirror/pna_mirror.p4`): copies per
//! slot to each session's ports, the last call per slot, the packet
//! itself sent or dropped on its own, sessions never made, slots chosen
//! at run time and by a table entry; on the kernel and the user target.

mod common;

use common::{p4bpf, stderr, stdout};
use std::path::{Path, PathBuf};

fn program() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pna_mirror/pna_mirror.p4")
}

/// `p4bpf test` of the mirror script at `hook` on `target`: its report.
fn run(target: &str, hook: &str) -> (bool, String) {
    let program = program();
    let script = program.with_extension("stf");
    let (p, s) = (program.to_string_lossy(), script.to_string_lossy());
    let out = p4bpf(&["test", &p, &s, "--target", target, "--hook", hook]);
    (
        out.status.success(),
        format!("{}{}", stdout(&out), stderr(&out)),
    )
}

#[test]
fn mirror_copies_leave_at_tc_and_xdp_in_the_kernel_and_at_tc_on_the_user_target() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED mirror copies: {why}");
        return;
    }
    for (target, hook) in [("kernel", "tc"), ("kernel", "xdp"), ("user", "tc")] {
        let (ok, text) = run(target, hook);
        let at = format!("{target} at {hook}");
        assert!(ok && text.contains("PASS: 10 packets"), "{at}:\n{text}");
        // Packet 4 mirrors on two slots and is sent on: three frames.
        let packet4 = text.matches("packet 4 (pna_mirror.stf:15)").count();
        assert_eq!(packet4, 3, "{at}:\n{text}");
    }
}
