//! Idle timeouts (`psa_idle_timeout = NOTIFY_CONTROL`) on lpm, ternary,
//! range and optional tables (tests/idle_kinds/tables.p4, one STF per
//! kind), at kernel TC and XDP and on the user target at both hooks: a
//! control-plane entry's timer starts at its first hit, every hit
//! restarts the timer of the entry that won, the sweep reports idle
//! entries and keeps them, a deleted entry is not reported, a longer
//! timeout holds; 128-bit keys too (idle_kinds/wide.p4), and entries
//! naming action profile members (idle_kinds/profile.p4); PNA actions'
//! timer requests reach the matched lpm entry or ternary rule
//! (idle_kinds/pna_requests.p4). Auto-deleting timers stay refused
//! outside exact tables. The kernel runs skip, saying why, without
//! root/BPF or clang.

#![allow(clippy::panic)] // a failing test should stop loudly

mod common;

use common::{p4bpf, p4bpf_in, scratch_dir, stderr, stdout};
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/idle_kinds")
        .join(name)
}

const TARGETS: [(&str, &str); 4] = [
    ("kernel", "tc"),
    ("kernel", "xdp"),
    ("user", "tc"),
    ("user", "xdp"),
];

/// Runs `stf` against tables.p4 on every target; the output of each run.
fn run_everywhere(stf: &str) -> Vec<String> {
    run_program_everywhere("tables.p4", stf)
}

/// Runs fixture `stf` against fixture `program` on every target.
fn run_program_everywhere(program: &str, stf: &str) -> Vec<String> {
    let program = fixture(program);
    let script = fixture(stf);
    let (p, s) = (program.to_string_lossy(), script.to_string_lossy());
    let mut outputs = vec![];
    for (target, hook) in TARGETS {
        let out = p4bpf(&["test", &p, &s, "--target", target, "--hook", hook]);
        let text = format!("{}{}", stdout(&out), stderr(&out));
        assert!(out.status.success(), "{stf} at {target} {hook}:\n{text}");
        outputs.push(text);
    }
    outputs
}

/// How long the first sweep of `output` reporting both `first` and
/// `second` (texts of their sweep lines) found each idle, in ns.
fn idle_pair(output: &str, first: &str, second: &str) -> (u64, u64) {
    let ns =
        |line: &str| -> Option<u64> { line.split(" for ").nth(1)?.split(' ').next()?.parse().ok() };
    let lines: Vec<&str> = output.lines().collect();
    lines
        .windows(2)
        .find_map(|pair| {
            let a = pair.iter().find(|l| l.contains(first))?;
            let b = pair.iter().find(|l| l.contains(second))?;
            Some((ns(a)?, ns(b)?))
        })
        .unwrap_or_else(|| panic!("no sweep reported both `{first}` and `{second}`:\n{output}"))
}

fn skip_without_kernel(test: &str) -> bool {
    match common::kernel_unavailable() {
        Some(why) => {
            eprintln!("SKIPPED {test}: {why}");
            true
        }
        None => false,
    }
}

#[test]
fn lpm_entries_time_out_by_prefix() {
    if skip_without_kernel("idle_kinds lpm") {
        return;
    }
    for text in run_everywhere("lpm.stf") {
        // The /8 was hit after the /16: idle for less long.
        let (eight, sixteen) = idle_pair(&text, "/8 for", "/16 for");
        assert!(eight < sixteen, "{text}");
    }
}

#[test]
fn ternary_rules_time_out_by_the_rule_that_won() {
    if skip_without_kernel("idle_kinds ternary") {
        return;
    }
    for text in run_everywhere("ternary.stf") {
        let (winner, other) = idle_pair(&text, "priority=20 for", "priority=10 for");
        assert!(winner < other, "{text}");
    }
}

#[test]
fn range_rules_keep_their_timer_and_direct_counter_apart() {
    if skip_without_kernel("idle_kinds range") {
        return;
    }
    for text in run_everywhere("range.stf") {
        let (last, first) = idle_pair(&text, "priority=10 for", "priority=20 for");
        assert!(last < first, "{text}");
    }
}

#[test]
fn optional_rules_time_out() {
    if skip_without_kernel("idle_kinds optional") {
        return;
    }
    run_everywhere("optional.stf");
}

#[test]
fn wide_ternary_and_lpm_keys_time_out() {
    if skip_without_kernel("idle_kinds wide") {
        return;
    }
    run_program_everywhere("wide.p4", "wide.stf");
}

#[test]
fn timed_entries_naming_action_profile_members_time_out() {
    if skip_without_kernel("idle_kinds profile") {
        return;
    }
    run_program_everywhere("profile.p4", "profile.stf");
}

#[test]
fn pna_requests_set_the_profile_of_lpm_and_ternary_entries() {
    if skip_without_kernel("idle_kinds pna requests") {
        return;
    }
    run_program_everywhere("pna_requests.p4", "pna_requests.stf");
}

/// A PNA program whose table `flows` has a `kind` key and idle timeout
/// `behavior`.
fn pna_program(kind: &str, behavior: &str) -> String {
    format!(
        r#"#include <core.p4>
#include <tc/pna.p4>
header ethernet_t {{ bit<48> dst; bit<48> src; bit<16> etherType; }}
struct headers_t {{ ethernet_t ethernet; }}
struct meta_t {{ }}
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, in pna_main_parser_input_metadata_t istd) {{
    state start {{ pkt.extract(hdr.ethernet); transition accept; }}
}}
control C(inout headers_t hdr, inout meta_t m, in pna_main_input_metadata_t istd, inout pna_main_output_metadata_t ostd) {{
    action known(PortId_t port) {{ send_to_port(port); }}
    table flows {{ key = {{ hdr.ethernet.src : {kind}; }} actions = {{ known; NoAction; }}
                  pna_idle_timeout = PNA_IdleTimeout_t.{behavior}; }}
    apply {{ flows.apply(); }}
}}
control D(packet_out pkt, inout headers_t hdr, in meta_t m, in pna_main_output_metadata_t ostd) {{
    apply {{ pkt.emit(hdr.ethernet); }}
}}
PNA_NIC(P(), C(), D()) main;
"#
    )
}

#[test]
fn auto_delete_outside_exact_tables_is_refused_where_declared() {
    let dir = scratch_dir("idle_kinds_auto_delete");
    for kind in ["lpm", "ternary", "range", "optional"] {
        common::write(&dir, "prog.p4", &pna_program(kind, "NOTIFY_CONTROL"));
        let out = p4bpf_in(&dir, &["compile", "prog.p4", "-o", "out"]);
        assert!(
            out.status.success(),
            "{kind} NOTIFY_CONTROL: {}",
            stderr(&out)
        );
        common::write(&dir, "prog.p4", &pna_program(kind, "AUTO_DELETE"));
        let out = p4bpf_in(&dir, &["compile", "prog.p4", "-o", "out"]);
        let err = stderr(&out);
        assert!(
            !out.status.success()
                && err.contains("prog.p4:11:5")
                && err.contains(
                    "idle entries are deleted by the lookup only in tables of exact keys"
                ),
            "{kind} AUTO_DELETE: {err}"
        );
    }
}
