//! PNA's `mirror_packet` (`tests/pna_mirror/pna_mirror.p4`): copies per
//! slot to each session's ports, the last call per slot, the packet
//! itself sent or dropped on its own, sessions never made, slots chosen
//! at run time and by a table entry; passed to the host and
//! recirculated, where TC and XDP differ; on the kernel and the user
//! target.

mod common;

use common::{p4bpf, stderr, stdout};
use std::path::{Path, PathBuf};

fn program() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pna_mirror/pna_mirror.p4")
}

/// `p4bpf test` of script `stf` (in tests/pna_mirror) at `hook` on
/// `target`: whether it passed, and its report.
fn run(stf: &str, target: &str, hook: &str) -> (bool, String) {
    let program = program();
    let script = program.with_file_name(stf);
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
        let (ok, text) = run("pna_mirror.stf", target, hook);
        let at = format!("{target} at {hook}");
        assert!(ok && text.contains("PASS: 10 packets"), "{at}:\n{text}");
        // Packet 4 mirrors on two slots and is sent on: three frames.
        let packet4 = text.matches("packet 4 (pna_mirror.stf:15)").count();
        assert_eq!(packet4, 3, "{at}:\n{text}");
    }
}

/// (script, target, hook, packets): what differs by hook. At XDP a packet
/// passed to the host makes no copy and only the last pass mirrors.
const BY_HOOK: &[(&str, &str, &str, u32)] = &[
    ("pna_mirror_recirculate_tc.stf", "kernel", "tc", 2),
    ("pna_mirror_recirculate_tc.stf", "user", "tc", 2),
    ("pna_mirror_host_tc.stf", "user", "tc", 2),
    ("pna_mirror_xdp.stf", "kernel", "xdp", 3),
];

#[test]
fn mirroring_a_packet_to_the_host_or_recirculated_follows_the_hook() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED mirror by hook: {why}");
        return;
    }
    for (stf, target, hook, packets) in BY_HOOK {
        let (ok, text) = run(stf, target, hook);
        let pass = format!("PASS: {packets} packets");
        assert!(ok && text.contains(&pass), "{stf} {target} at {hook}:\n{text}");
    }
}
