//! Which table applications become global functions, verified on their
//! own: none in a small program, the costliest first in a big one, and the
//! generated C stays whole (the call passes the context and the state;
//! `exit` inside comes back as the result).

#![allow(clippy::panic)] // a failing test should stop loudly

use p4bpf_compiler::{generate, Hook};
use std::fmt::Write as _;
use std::path::Path;

fn c_of(body: &str, hook: Hook) -> String {
    let text = format!("#include <core.p4>\n#include <ebpf_model.p4>\n{body}");
    let fe = p4bpf_front::check_source(Path::new("s.p4"), &text, &Default::default());
    assert!(!fe.has_errors(), "front end rejected the test program");
    match generate(&fe, "s", hook, None) {
        Ok(g) => g.c,
        Err(d) => panic!(
            "{:?}",
            d.list.iter().map(|d| d.message.clone()).collect::<Vec<_>>()
        ),
    }
}

/// A parser with sixteen outcomes (fifteen selected states and `default`),
/// so each table after it is estimated as walked sixteen times.
fn sixteen_outcome_parser() -> String {
    let cases: String = (1..16).map(|i| format!("{i}: s{i}; ")).collect();
    let states: String = (1..16)
        .map(|i| format!("state s{i} {{ transition accept; }} "))
        .collect();
    format!(
        "parser prs(packet_in p, out hs hdr) {{ state start {{ p.extract(hdr.h); transition select(hdr.h.proto) {{ {cases}default: accept; }} }} {states}}}\n"
    )
}

/// An ebpf_model filter with `ternary` ternary and `exact` exact tables
/// applied in sequence; the ternary ones may `exit`.
fn filter(ternary: usize, exact: usize) -> String {
    let mut out = String::from(
        "header h_t { bit<8> proto; bit<16> port; bit<32> addr; }\nstruct hs { h_t h; }\n\
         {PARSER}\
         control f(inout hs hdr, out bool pass) {\n\
         action stop() { pass = false; exit; }\n\
         action set(bit<32> a) { hdr.h.addr = a; }\n",
    )
    .replace("{PARSER}", &sixteen_outcome_parser());
    let mut apply = String::new();
    for i in 0..ternary {
        let _ = writeln!(
            out,
            "table tern{i} {{ key = {{ hdr.h.addr: ternary; hdr.h.port: ternary; hdr.h.proto: ternary; }} actions = {{ stop; set; NoAction; }} default_action = NoAction(); }}"
        );
        let _ = writeln!(apply, "tern{i}.apply();");
    }
    for i in 0..exact {
        let _ = writeln!(
            out,
            "table ex{i} {{ key = {{ hdr.h.port: exact; }} actions = {{ set; NoAction; }} default_action = NoAction(); }}"
        );
        let _ = writeln!(apply, "ex{i}.apply();");
    }
    let _ = write!(
        out,
        "apply {{ pass = true;\n{apply}}}\n}}\nebpfFilter(prs(), f()) main;\n"
    );
    out
}

fn global_functions(c: &str) -> Vec<&str> {
    c.lines()
        .filter_map(|l| l.strip_prefix("__attribute__((noinline)) int "))
        .filter_map(|l| l.split('(').next())
        .collect()
}

#[test]
fn a_small_program_stays_one_function() {
    let c = c_of(&filter(1, 3), Hook::Xdp);
    assert_eq!(global_functions(&c), Vec::<&str>::new());
}

#[test]
fn more_tables_move_out_as_the_estimate_grows() {
    let functions_of = |n| global_functions(&c_of(&filter(n, 0), Hook::Xdp)).len();
    let counts: Vec<usize> = [4, 8, 12].into_iter().map(functions_of).collect();
    assert!(counts[0] < counts[1] && counts[1] < counts[2], "{counts:?}");
}

#[test]
fn costly_tables_move_out_and_cheap_ones_stay() {
    let c = c_of(&filter(5, 5), Hook::Xdp);
    let functions = global_functions(&c);
    // Sixteen parser outcomes: each inline ternary table is walked sixteen
    // times; one moved out brings the rest under the budget, exact tables
    // stay.
    assert_eq!(functions, ["s_apply_f_tern0"]);
    // `exit` in a moved-out table leaves the control through the result.
    assert!(c.contains("if (s_apply_f_tern0(st)) {"), "{c}");
    assert!(c.contains("p4bpf_exit:;\n    return 1;"), "{c}");
}

#[test]
fn table_functions_take_the_context_only_to_reach_the_packet() {
    // clang would pass garbage for an unread context, which the verifier refuses.
    let c = c_of(&filter(5, 0), Hook::Tc);
    assert!(c.contains("int s_apply_f_tern0(struct s_state *st)"), "{c}");
    let xdp = c_of(&switch_writing_the_packet(), Hook::Tc);
    assert!(
        xdp.contains("int s_apply_sw_tern0(struct __sk_buff *skb, struct s_state *st)"),
        "{xdp}"
    );
    assert!(xdp.contains("u8 *pkt = (u8 *)(long)skb->data;"), "{xdp}");
    assert!(xdp.contains("s_apply_sw_tern0(skb, st);"), "{xdp}");
}

/// An xdp_model program whose ternary tables' actions write a header
/// field, which goes straight into the packet.
fn switch_writing_the_packet() -> String {
    let mut out = String::from(
        "#include <xdp_model.p4>\n\
         header h_t { bit<8> proto; bit<16> port; bit<32> addr; }\nstruct hs { h_t h; }\n\
         {PARSER}\
         control dep(in hs hdr, packet_out p) { apply { p.emit(hdr.h); } }\n\
         control sw(inout hs hdr, in xdp_input i, out xdp_output o) {\n\
         action set(bit<32> a) { hdr.h.addr = a; }\n",
    )
    .replace("{PARSER}", &sixteen_outcome_parser());
    let mut apply = String::new();
    for i in 0..5 {
        let _ = writeln!(
            out,
            "table tern{i} {{ key = {{ hdr.h.addr: ternary; hdr.h.port: ternary; hdr.h.proto: ternary; }} actions = {{ set; NoAction; }} default_action = NoAction(); }}"
        );
        let _ = writeln!(apply, "tern{i}.apply();");
    }
    let _ = write!(
        out,
        "apply {{ o.output_action = xdp_action.XDP_PASS; o.output_port = 0;\n{apply}}}\n}}\nxdp(prs(), sw(), dep()) main;\n"
    );
    out
}

#[test]
fn every_table_default_shares_one_map() {
    // The kernel allows 64 maps per program: one defaults map for all tables.
    let c = c_of(&filter(2, 40), Hook::Xdp);
    let maps = c.matches("SEC(\".maps\")").count();
    assert_eq!(
        maps,
        2 * 3 + 40 + 1,
        "entries (+ groups and filters) per table, one defaults map"
    );
    assert!(c.contains("__type(value, union s_defaults);\n    __uint(max_entries, 42);"));
    assert!(
        c.contains("u32 slot = 41;\n"),
        "the last table reads its own slot"
    );
}
