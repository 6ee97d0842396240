//! A deparser that emits fewer bytes than its parser read, down to a
//! frame shorter than an Ethernet header. The programs of
//! `tests/tcfix_shrink` (v1model; PSA shrinking in ingress; PSA shrinking
//! in egress, after an egress parser that may reject with an error) emit
//! 0, 4, 13, 14, 20 or all 34 bytes of a parsed prefix, and one script
//! checks every byte that leaves on every target. At TC the kernel's
//! `bpf_skb_adjust_room` removes bytes after the MAC header, not at the
//! front: used when fewer than 14 bytes were emitted, it left the first
//! 14 bytes of the old prefix in place of the payload's start. A frame
//! that would leave shorter than 14 bytes is dropped at every target (the
//! kernel keeps an Ethernet header at TC and XDP). `vlan_pop.p4` and
//! `grow_after_ethernet.p4` shrink and grow tagged frames on live ports,
//! where the MAC header is 18 bytes. The kernel runs skip without
//! root/BPF; the user target needs clang only.

mod common;

use std::path::{Path, PathBuf};

fn own(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/tcfix_shrink")
        .join(name)
}

/// Runs the shrink script on `program` at each of `targets`, expecting
/// every packet to pass.
fn passes_everywhere(program: &str, targets: &[&[&str]]) {
    let (p4, stf) = (own(program), own("shrink.stf"));
    let (p4, stf) = (p4.to_string_lossy(), stf.to_string_lossy());
    for target in targets {
        let args = [&["test", p4.as_ref(), stf.as_ref()][..], target].concat();
        let out = common::p4bpf(&args);
        let text = common::stdout(&out) + &common::stderr(&out);
        let label = format!("{program} {}", target.join(" "));
        assert!(out.status.success(), "{label}:\n{text}");
        assert!(
            text.contains("PASS: 13 packets, 0 failure(s)"),
            "{label}:\n{text}"
        );
    }
}

const PROGRAMS: [&str; 3] = ["v1model.p4", "psa_ingress.p4", "psa_egress.p4"];

#[test]
fn the_bytes_left_out_are_the_ones_removed_in_user_space() {
    if std::process::Command::new("clang")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("SKIPPED tcfix_shrink in user space: clang is not installed");
        return;
    }
    for program in PROGRAMS {
        passes_everywhere(
            program,
            &[
                &["--target", "user", "--hook", "tc"],
                &["--target", "user", "--hook", "xdp"],
            ],
        );
    }
}

#[test]
fn the_bytes_left_out_are_the_ones_removed_in_the_kernel() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED tcfix_shrink: {why}");
        return;
    }
    for program in PROGRAMS {
        passes_everywhere(
            program,
            &[
                &["--target", "kernel", "--hook", "tc"],
                &["--target", "kernel", "--hook", "xdp"],
            ],
        );
    }
}

/// `stem`'s script passes at TC on veth (live ports), in the kernel and
/// in user space.
fn passes_on_live_ports_too(stem: &str) {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED tcfix_shrink {stem}: {why}");
        return;
    }
    let (p4, stf) = (own(&format!("{stem}.p4")), own(&format!("{stem}.stf")));
    let (p4, stf) = (p4.to_string_lossy(), stf.to_string_lossy());
    for target in ["veth", "kernel", "user"] {
        let args = [
            "test",
            p4.as_ref(),
            stf.as_ref(),
            "--target",
            target,
            "--hook",
            "tc",
        ];
        let out = common::p4bpf(&args);
        let text = common::stdout(&out) + &common::stderr(&out);
        assert!(
            out.status.success() && text.contains("PASS: 3 packets, 0 failure(s)"),
            "{stem} {target}:\n{text}"
        );
    }
}

/// On a live port the kernel's MAC header is 18 bytes once the program
/// has put a VLAN tag back: a program popping the tag (18 bytes parsed,
/// 14 emitted) removed the 4 bytes after the tag on veth.
#[test]
fn a_popped_vlan_tag_is_the_part_removed_on_live_ports() {
    passes_on_live_ports_too("vlan_pop");
}

/// The same on growing: a program parsing Ethernet alone and adding a
/// header after it opened the room after the put-back VLAN tag on veth,
/// so the new header overwrote the tag.
#[test]
fn room_opens_after_the_parsed_bytes_on_live_ports() {
    passes_on_live_ports_too("grow_after_ethernet");
}
