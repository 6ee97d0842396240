//! Verification at scale: generated programs with many tables (ternary,
//! lpm and exact, in sequence, inside if/else branches, inside the arms of
//! a switch on `action_run`) compile and load at XDP and TC with
//! `p4bpf pipeline load`. Each program is checked by the kernel's verifier
//! as a whole; the compiler must split it so no part meets the verifier's
//! limits. Skips, saying why, without root/BPF or clang.

mod common;

use std::fmt::Write as _;

const HEADERS: &str = "\
#include <core.p4>
#include <xdp_model.p4>

header ethernet_h { bit<48> dst; bit<48> src; bit<16> ether_type; }
header ipv4_h {
    bit<8> version_ihl; bit<8> tos; bit<16> total_len; bit<32> id_frag;
    bit<8> ttl; bit<8> protocol; bit<16> checksum; bit<32> src; bit<32> dst;
}
header udp_h { bit<16> sport; bit<16> dport; bit<16> len; bit<16> checksum; }
struct headers_t { ethernet_h eth; ipv4_h ipv4; udp_h udp; }

parser Prs(packet_in p, out headers_t hdr) {
    state start {
        p.extract(hdr.eth);
        transition select(hdr.eth.ether_type) { 0x0800: ipv4; default: accept; }
    }
    state ipv4 {
        p.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) { 17: udp; default: accept; }
    }
    state udp { p.extract(hdr.udp); transition accept; }
}

control Dep(in headers_t hdr, packet_out p) {
    apply { p.emit(hdr.eth); p.emit(hdr.ipv4); p.emit(hdr.udp); }
}
";

/// The kinds of table the generator writes.
#[derive(Clone, Copy)]
enum Kind {
    /// Three ternary fields (addresses and protocol).
    Ternary,
    /// One lpm field (destination address).
    Lpm,
    /// One exact field: a metadata word earlier tables set, or a port.
    Exact,
}

/// Table `i` of `kind` and its actions: each action writes metadata that
/// later keys read and a header field, so paths through the tables differ.
fn table(out: &mut String, i: usize, kind: Kind) {
    let key = match kind {
        Kind::Ternary => {
            "hdr.ipv4.src: ternary; hdr.ipv4.dst: ternary; hdr.ipv4.protocol: ternary;".to_string()
        }
        Kind::Lpm => "hdr.ipv4.dst: lpm;".to_string(),
        Kind::Exact if i.is_multiple_of(2) => format!("m{}: exact;", i % 4),
        Kind::Exact => "hdr.udp.dport: exact;".to_string(),
    };
    let _ = write!(
        out,
        "    action set{i}(bit<32> v, bit<8> tos) {{ m{m} = m{m} + v; hdr.ipv4.tos = tos; }}
    action fwd{i}(bit<32> port) {{ omd.output_port = port; omd.output_action = xdp_action.XDP_REDIRECT; }}
    action drop{i}() {{ omd.output_action = xdp_action.XDP_DROP; }}
    table t{i} {{
        key = {{ {key} }}
        actions = {{ set{i}; fwd{i}; drop{i}; NoAction; }}
        default_action = NoAction();
        size = 1024;
    }}
",
        m = i % 4
    );
}

/// An xdp_model program declaring `kinds` as tables t0, t1, ... and
/// applying them with `apply` (the body of the control's `apply`).
fn program(kinds: &[Kind], apply: &str) -> String {
    let mut out = String::from(HEADERS);
    out.push_str(
        "control Sw(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    bit<32> m0 = 0; bit<32> m1 = 0; bit<32> m2 = 0; bit<32> m3 = 0;
",
    );
    for (i, kind) in kinds.iter().enumerate() {
        table(&mut out, i, *kind);
    }
    let _ = write!(
        out,
        "    apply {{
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_PASS;
{apply}
        if (m0 == m1) {{ hdr.ipv4.ttl = hdr.ipv4.ttl - 1; }}
    }}
}}

xdp(Prs(), Sw(), Dep()) main;
"
    );
    out
}

/// `ternary` three-field ternary tables, 10 lpm tables, exact tables to 50.
fn kinds(ternary: usize, lpm: usize, exact: usize) -> Vec<Kind> {
    let mut kinds = vec![Kind::Ternary; ternary];
    kinds.extend(vec![Kind::Lpm; lpm]);
    kinds.extend(vec![Kind::Exact; exact]);
    kinds
}

fn in_sequence(count: usize) -> String {
    (0..count)
        .map(|i| format!("        t{i}.apply();\n"))
        .collect()
}

/// Compiles `source` for each hook and loads it with `pipeline load`.
fn loads_at_xdp_and_tc(test: &str, source: &str) {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED {test}: {why}");
        return;
    }
    let dir = common::scratch_dir(test);
    let program = common::write(&dir, &format!("{test}.p4"), source);
    for hook in ["xdp", "tc"] {
        let out_dir = dir.join(hook);
        let compiled = common::p4bpf(&[
            "compile",
            &program.to_string_lossy(),
            "-o",
            &out_dir.to_string_lossy(),
            "--hook",
            hook,
        ]);
        assert!(
            compiled.status.success(),
            "{test} does not compile for {hook}:\n{}",
            common::stderr(&compiled)
        );
        let object = out_dir.join(format!("{test}.o"));
        let name = format!("scale{}_{test}_{hook}", std::process::id());
        let loaded = common::p4bpf(&[
            "pipeline",
            "load",
            &object.to_string_lossy(),
            "--name",
            &name,
        ]);
        // A staged program's tail calls need its program array pinned.
        let c = std::fs::read_to_string(out_dir.join(format!("{test}.c"))).unwrap_or_default();
        let stages = format!("{test}_{hook}_stages");
        let pinned = std::path::Path::new("/sys/fs/bpf/p4bpf")
            .join(&name)
            .join("maps")
            .join(&stages)
            .exists();
        let unloaded = common::p4bpf(&["pipeline", "unload", &name]);
        assert_eq!(
            pinned,
            c.contains(&format!("}} {stages} SEC")),
            "{test} at {hook}: the program array is pinned if and only if the program has stages"
        );
        assert!(
            loaded.status.success(),
            "{test} does not load at {hook}:\n{}",
            common::stderr(&loaded)
        );
        assert!(unloaded.status.success(), "{}", common::stderr(&unloaded));
    }
}

/// As many tables as the kernel's 64 maps per program allow with ten
/// ternary tables (a ternary table takes three maps: groups, buckets and
/// their filters; others one, plus the shared defaults, ports and output
/// record maps).
#[test]
fn ten_ternary_ten_lpm_and_fifteen_exact_tables_load() {
    let kinds = kinds(10, 10, 15);
    loads_at_xdp_and_tc("ten_ternary", &program(&kinds, &in_sequence(kinds.len())));
}

/// The shape: 10 ternary, 10 lpm and 30 exact tables need 70 table
/// maps, past the kernel's 64 per program: the program is cut into stages
/// joined by a tail call.
#[test]
fn fifty_tables_ten_of_them_ternary_load() {
    let kinds = kinds(10, 10, 30);
    loads_at_xdp_and_tc(
        "fifty_ten_ternary",
        &program(&kinds, &in_sequence(kinds.len())),
    );
}

/// Three stages: 10 ternary, 10 lpm and 120 exact tables (160 table maps),
/// two tail calls.
#[test]
fn a_hundred_and_forty_tables_in_three_stages_load() {
    let kinds = kinds(10, 10, 120);
    loads_at_xdp_and_tc("three_stages", &program(&kinds, &in_sequence(kinds.len())));
}

#[test]
fn tables_inside_if_else_branches_load() {
    // Six ternary tables deciding branches, lpm and exact tables inside.
    let kinds: Vec<Kind> = (0..24)
        .map(|i| match i % 4 {
            0 => Kind::Ternary,
            2 => Kind::Lpm,
            _ => Kind::Exact,
        })
        .collect();
    let mut apply = String::new();
    for i in (0..24).step_by(4) {
        let _ = writeln!(
            apply,
            "        if (t{i}.apply().hit) {{ t{}.apply(); }} else {{ t{}.apply(); t{}.apply(); }}",
            i + 1,
            i + 2,
            i + 3
        );
    }
    loads_at_xdp_and_tc("if_else_branches", &program(&kinds, &apply));
}

#[test]
fn tables_inside_action_run_switch_arms_load() {
    // Ternary tables in the arms, applied on several paths.
    let kinds: Vec<Kind> = (0..30)
        .map(|i| match i % 3 {
            0 => Kind::Lpm,
            1 if i < 20 => Kind::Ternary,
            _ => Kind::Exact,
        })
        .collect();
    let mut apply = String::new();
    for i in (0..30).step_by(3) {
        let _ = writeln!(
            apply,
            "        switch (t{i}.apply().action_run) {{ set{i}: {{ t{}.apply(); }} drop{i}: {{ t{}.apply(); t{}.apply(); }} default: {{ }} }}",
            i + 1,
            i + 2,
            i + 1
        );
    }
    loads_at_xdp_and_tc("action_run_switch", &program(&kinds, &apply));
}
