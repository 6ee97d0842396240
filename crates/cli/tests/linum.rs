//! `bpftool prog dump xlated pinned .../program linum` of a loaded
//! pipeline names the .p4 file: each line-info record in a parser state,
//! control, table or action carries that P4 line and its text. Skips,
//! saying why, without root/BPF, clang or bpftool.

#![allow(clippy::panic)] // a failing test should stop loudly

mod common;

use std::process::Command;

const PROGRAM: &str = "\
#include <core.p4>
#include <ebpf_model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header vlan_t { bit<16> tci; bit<16> type; }
struct hs { eth_t eth; vlan_t vlan; }
parser prs(packet_in p, out hs hdr) {
    state start {
        p.extract(hdr.eth);
        transition select(hdr.eth.type) { 0x8100: tagged; default: accept; }
    }
    state tagged {
        p.extract(hdr.vlan);
        transition accept;
    }
}
control f(inout hs hdr, out bool pass) {
    action allow() { pass = true; }
    action deny() { pass = false; }
    table by_source {
        key = { hdr.eth.src: exact; }
        actions = { allow; deny; }
        default_action = deny();
    }
    table by_vlan {
        key = { hdr.vlan.tci: ternary; }
        actions = { allow; deny; }
        default_action = allow();
    }
    apply {
        pass = false;
        if (hdr.vlan.isValid()) { by_vlan.apply(); } else { by_source.apply(); }
    }
}
ebpfFilter(prs(), f()) main;
";

/// Lines of PROGRAM the dump must name, with the text it must quote.
const EXPECTED: [(u32, &str); 4] = [
    (7, "state start {"),
    (11, "state tagged {"),
    (19, "table by_source {"),
    (24, "table by_vlan {"),
];

#[test]
fn bpftool_linum_names_the_p4_lines_of_a_loaded_pipeline() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED bpftool_linum_names_the_p4_lines_of_a_loaded_pipeline: {why}");
        return;
    }
    if Command::new("bpftool").arg("version").output().is_err() {
        eprintln!("SKIPPED bpftool_linum_names_the_p4_lines_of_a_loaded_pipeline: bpftool is not installed");
        return;
    }
    let dir = common::scratch_dir("linum");
    let program = common::write(&dir, "linum_filter.p4", PROGRAM);
    for hook in ["xdp", "tc"] {
        let name = format!("linum{}_{hook}", std::process::id());
        let loaded = common::p4bpf(&[
            "pipeline",
            "load",
            &program.to_string_lossy(),
            "--name",
            &name,
            "--hook",
            hook,
        ]);
        assert!(loaded.status.success(), "{}", common::stderr(&loaded));
        let pinned = format!("/sys/fs/bpf/p4bpf/{name}/program");
        let dump = Command::new("bpftool")
            .args(["prog", "dump", "xlated", "pinned", &pinned, "linum"])
            .output();
        let _ = common::p4bpf(&["pipeline", "unload", &name]);
        let dump = dump.unwrap_or_else(|e| panic!("bpftool: {e}"));
        let text = String::from_utf8_lossy(&dump.stdout);
        assert!(
            dump.status.success(),
            "{}",
            String::from_utf8_lossy(&dump.stderr)
        );
        for (line, quoted) in EXPECTED {
            let record = format!("; {quoted} [file:linum_filter.p4 line_num:{line} line_col:0]");
            assert!(text.contains(&record), "{hook}: no `{record}` in\n{text}");
        }
        assert_every_p4_line_quotes_its_text(&text);
    }
}

/// Every record naming the .p4 quotes that line of PROGRAM.
fn assert_every_p4_line_quotes_its_text(dump: &str) {
    let p4_records = dump
        .lines()
        .filter_map(|l| l.strip_prefix("; "))
        .filter_map(|l| l.split_once(" [file:linum_filter.p4 line_num:"));
    let mut count = 0;
    for (quoted, rest) in p4_records {
        let line: usize = rest
            .split(' ')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        let source = PROGRAM
            .lines()
            .nth(line.saturating_sub(1))
            .unwrap_or_default();
        assert_eq!(quoted, source.trim(), "line {line}");
        count += 1;
    }
    assert!(count > 0, "no .p4 lines in\n{dump}");
}
