//! PSA's fused unicast path (`emit/psa_fuse.rs`): egress takes the
//! ingress deparser's headers from the state instead of the packet. The
//! programs in `tests/perf_fuse` break the fusion on purpose: a bridged
//! header sometimes invalid, egress extracts of another layout, a
//! lookahead or a parser error while emitted headers are left, extracts
//! past what ingress parsed, headers egress leaves to the payload, size
//! changes, and multicast copies (made of the written bytes). Every
//! expected byte is what the unfused program writes (checked against
//! main's binary when they were written; main at TC fails shapes.stf's
//! parser error, whose egress emits under 14 bytes: `bpf_skb_adjust_room`
//! then removes bytes after the first 14, not the first 8), on kernel TC,
//! kernel XDP and the user target. Skips without root/BPF or clang,
//! saying which.

mod common;

use std::path::{Path, PathBuf};

fn own(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/perf_fuse")
        .join(name)
}

const TARGETS: [&[&str]; 3] = [
    &["--target", "kernel", "--hook", "tc"],
    &["--target", "kernel", "--hook", "xdp"],
    &["--target", "user"],
];

/// Runs `NAME.stf` against `NAME.p4` on every target; each must pass all
/// `packets`.
fn passes_everywhere(name: &str, packets: usize) {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED perf_fuse {name}: {why}");
        return;
    }
    let (p4, stf) = (own(&format!("{name}.p4")), own(&format!("{name}.stf")));
    let (p4, stf) = (p4.to_string_lossy(), stf.to_string_lossy());
    for target in TARGETS {
        let args = [&["test", p4.as_ref(), stf.as_ref()][..], target].concat();
        let out = common::p4bpf(&args);
        let text = common::stdout(&out) + &common::stderr(&out);
        let pass = format!("PASS: {packets} packets, 0 failure(s)");
        assert!(
            out.status.success() && text.contains(&pass),
            "{name} {}:\n{text}",
            target.join(" ")
        );
    }
}

/// The C `p4bpf compile` writes for `NAME.p4` at `hook`.
fn generated_c(name: &str, hook: &str) -> String {
    let dir = common::scratch_dir(&format!("perf_fuse_{name}_{hook}"));
    let p4 = own(&format!("{name}.p4"));
    let out_dir = dir.to_string_lossy().into_owned();
    let out = common::p4bpf(&[
        "compile",
        &p4.to_string_lossy(),
        "--hook",
        hook,
        "-o",
        &out_dir,
    ]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    std::fs::read_to_string(dir.join(format!("{name}.c"))).unwrap_or_default()
}

#[test]
fn the_programs_are_fused_at_both_hooks() {
    for name in ["orders", "shapes", "multicast", "widths"] {
        for hook in ["tc", "xdp"] {
            let c = generated_c(name, hook);
            // Egress takes Ethernet (emit 1) from the state when it is next.
            assert!(c.contains("if (next_emit == 1ULL << 1) {"), "{name} {hook}");
            assert!(
                c.contains(&format!("{name}_psa_fuse_write(")),
                "{name} {hook}"
            );
        }
    }
    // The lookahead's state writes the headers first.
    let shapes = generated_c("shapes", "tc");
    let peek = shapes.split("state_peek:").nth(1).unwrap_or_default();
    let before_lookahead = peek.split("peeked").next().unwrap_or_default();
    assert!(
        before_lookahead.contains("if (fuse_pending) {"),
        "{before_lookahead}"
    );
}

#[test]
fn orders_sizes_and_a_missing_bridged_header_keep_every_byte() {
    passes_everywhere("orders", 6);
}

#[test]
fn other_layouts_a_lookahead_and_a_deeper_parse_keep_every_byte() {
    passes_everywhere("shapes", 5);
}

#[test]
fn multicast_copies_are_of_the_written_headers() {
    passes_everywhere("multicast", 2);
}

#[test]
fn narrow_fields_computed_by_ingress_keep_their_widths() {
    passes_everywhere("widths", 1);
}
