//! PSA-eBPF's own list of what it lacks, item by item, as PSA programs of
//! ours written to break our design (tests/psa/gaps/NAME.p4 with its
//! NAME.stf), each run at kernel XDP, kernel TC and on the user target.
//! conformance/psa.md says which test covers which item. Skips, saying
//! why, without root/BPF or clang.

mod common;

use std::path::{Path, PathBuf};

const TARGETS: [&[&str]; 3] = [
    &["--target", "kernel", "--hook", "xdp"],
    &["--target", "kernel", "--hook", "tc"],
    &["--target", "user"],
];

fn gap(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/psa/gaps")
        .join(name)
}

/// Runs `NAME.stf` against `NAME.p4` on every target and checks that all
/// `packets` passed on each.
fn passes_everywhere(name: &str, packets: usize) {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED {name}: {why}");
        return;
    }
    let (program, script) = (gap(&format!("{name}.p4")), gap(&format!("{name}.stf")));
    let (p, s) = (program.to_string_lossy(), script.to_string_lossy());
    for target in TARGETS {
        let mut args = vec!["test", p.as_ref(), s.as_ref()];
        args.extend_from_slice(target);
        let out = common::p4bpf(&args);
        let text = format!("{}{}", common::stdout(&out), common::stderr(&out));
        let target = target.join(" ");
        assert!(out.status.success(), "{name} at {target}:\n{text}");
        let summary = format!("PASS: {packets} packets, 0 failure(s)");
        assert!(text.contains(&summary), "{name} at {target}:\n{text}");
    }
}

/// Fields wider than 64 bits that are not whole bytes, starting or ending
/// inside a byte shared with a narrow field: extract, emit, arithmetic,
/// comparison, exact/ternary/lpm/optional keys, action data, a value set,
/// a register and a digest.
#[test]
fn wide_fields_not_of_whole_bytes_keep_their_neighbours_bits() {
    passes_everywhere("wide_odd", 18);
}

/// `lookahead<bit<N>>` for N of 13, 71 (wider than 64 bits, not whole
/// bytes) and a slice of an 87-bit one in a select; then a value set of
/// two fields, its member added by STF `pvs_add`.
#[test]
fn lookahead_of_odd_and_wide_bit_strings_sees_the_bits_ahead() {
    passes_everywhere("lookahead_bits", 5);
}

/// A DirectMeter and a DirectCounter on a table of ternary and range keys:
/// overlapping rules each spend only their own meter and counter.
#[test]
fn direct_meters_on_ternary_and_range_rules_are_per_rule() {
    passes_everywhere("direct_meter_ternary", 8);
}

/// An `@atomic` block that applies a table (a DirectMeter and a
/// DirectCounter on it) takes a lock word, with no warning, and the
/// program behaves as without the block on every target
/// (`atomic2_cpus` races such blocks across CPUs).
#[test]
fn atomic_blocks_applying_a_table_are_locked() {
    let source =
        std::fs::read_to_string(gap("direct_meter_ternary.p4")).expect("direct_meter_ternary.p4");
    let from = "        police_by_addr.apply();";
    assert!(source.contains(from), "the apply block changed");
    let atomic = source.replacen(
        from,
        "        @atomic {\n            police_by_addr.apply();\n        }",
        1,
    );
    let dir = common::scratch_dir("psa_gaps_atomic");
    let program = common::write(&dir, "atomic.p4", &atomic);
    let out_dir = dir.join("out");
    let out = common::p4bpf(&[
        "compile",
        &program.to_string_lossy(),
        "-o",
        &out_dir.to_string_lossy(),
    ]);
    let err = common::stderr(&out);
    assert!(out.status.success() && !err.contains("warning"), "{err}");
    let c = std::fs::read_to_string(out_dir.join("atomic.c")).unwrap_or_default();
    assert!(c.contains("= p4bpf_lock_take("), "no lock word taken");
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED atomic.p4's STF: {why}");
        return;
    }
    let script = gap("direct_meter_ternary.stf");
    let (p, s) = (program.to_string_lossy(), script.to_string_lossy());
    for target in TARGETS {
        let mut args = vec!["test", p.as_ref(), s.as_ref()];
        args.extend_from_slice(target);
        let out = common::p4bpf(&args);
        let text = format!("{}{}", common::stdout(&out), common::stderr(&out));
        let summary = "PASS: 8 packets, 0 failure(s)";
        assert!(
            text.contains(summary),
            "atomic.p4 at {}:\n{text}",
            target.join(" ")
        );
    }
}
