//! The back end reads the checker's facts: constant values, types and
//! constructor arguments come from `CheckedProgram`, so what the checker
//! computed is what the generated program does.

#![allow(clippy::panic)] // a failing test should stop loudly

use p4bpf_compiler::{generate, Generated, Hook};
use std::path::Path;

/// Generates `body` placed after the ebpf_model includes, or the first error.
fn generate_body(body: &str) -> Result<Generated, String> {
    let text = format!("#include <core.p4>\n#include <ebpf_model.p4>\n{body}");
    let fe = p4bpf_front::check_source(Path::new("test.p4"), &text, &Default::default());
    if let Some(d) = fe
        .diagnostics
        .list
        .iter()
        .find(|d| d.severity == p4bpf_front::diag::Severity::Error)
    {
        return Err(format!("front end: {}", d.message));
    }
    generate(&fe, "test", Hook::Xdp, None).map_err(|d| {
        d.list
            .first()
            .map(|d| d.message.clone())
            .unwrap_or_default()
    })
}

const HEADERS: &str = "header a_t { bit<8> x; }\nstruct h_t { a_t a; }\n";
const PARSER: &str = "parser prs(packet_in p, out h_t hdr) { state start { p.extract(hdr.a); transition accept; } }\n";

fn filter(locals: &str, apply: &str) -> String {
    format!("{HEADERS}{PARSER}control f(inout h_t hdr, out bool pass) {{\n{locals}\napply {{ {apply} }} }}\nebpfFilter(prs(), f()) main;\n")
}

#[test]
fn a_const_bool_argument_reaches_the_counter() {
    for (flag, sparse) in [("true", true), ("false", false)] {
        let body = format!(
            "const bool SPARSE = {flag};\n{}",
            filter(
                "CounterArray(32w64, SPARSE) hits;",
                "hits.increment(32w1); pass = true;"
            )
        );
        let generated = generate_body(&body).unwrap_or_else(|e| panic!("{e}"));
        let counter = generated.pipeline.counters.first().expect("one counter");
        assert_eq!(counter.sparse, sparse, "SPARSE = {flag}");
    }
}

#[test]
fn bit8_constants_wrap_at_every_step() {
    // (200 + 100) wraps to 44 in bit<8>; 44 >> 1 = 22 = 0x16.
    let body = format!(
        "const bit<8> BASE = 200;\nconst bit<8> HALF = (BASE + 100) >> 1;\n{}",
        filter("", "pass = hdr.a.x == HALF;")
    );
    let c = generate_body(&body).unwrap_or_else(|e| panic!("{e}")).c;
    assert!(
        c.contains("== 0x16U"),
        "expected the wrapped value 22 in:\n{c}"
    );
    assert!(
        !c.contains("0x96U"),
        "found the unwrapped value 150 in:\n{c}"
    );
}

#[test]
fn saturating_operators_fold_in_constants() {
    let body = format!(
        "const bit<8> SAT = 8w200 |+| 8w100;\nconst bit<8> FLOOR = 8w10 |-| 8w200;\n{}",
        filter("", "pass = hdr.a.x == SAT || hdr.a.x == FLOOR + 7;")
    );
    let c = generate_body(&body).unwrap_or_else(|e| panic!("{e}")).c;
    assert!(c.contains("== 0xffU"), "expected 255 in:\n{c}");
    assert!(c.contains("== 7U"), "expected FLOOR + 7 = 7 in:\n{c}");
}

#[test]
fn sizes_and_keysets_take_the_checkers_values() {
    // A table size written as a constant expression that wraps in bit<8>.
    let body = format!(
        "const bit<8> N = 8w250 + 8w10;\n{}",
        filter(
            "action a() {} table t { key = { hdr.a.x : exact; } actions = { a; } size = N; }",
            "t.apply(); pass = true;"
        )
    );
    let generated = generate_body(&body).unwrap_or_else(|e| panic!("{e}"));
    let table = generated.pipeline.tables.first().expect("one table");
    assert_eq!(table.size, 4);
}
