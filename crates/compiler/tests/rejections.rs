//! Programs the eBPF target cannot run are rejected with a diagnostic
//! located in the program, never a panic or a clang error.

use p4bpf_compiler::{generate, Hook};
use std::path::Path;

/// The first error message for `body` placed after the ebpf_model includes.
fn first_error(body: &str) -> Option<String> {
    let text = format!("#include <core.p4>\n#include <ebpf_model.p4>\n{body}");
    let fe = p4bpf_front::check_source(Path::new("test.p4"), &text, &Default::default());
    assert!(
        !fe.has_errors(),
        "front end: {:?}",
        fe.diagnostics.list.first().map(|d| d.message.clone())
    );
    match generate(&fe, "test", Hook::Xdp, None) {
        Ok(_) => None,
        Err(d) => {
            let first = d.list.first()?;
            assert!(
                first.loc.is_some(),
                "diagnostic without a location: {}",
                first.message
            );
            Some(first.message.clone())
        }
    }
}

const PARSER: &str = "parser prs(packet_in p, out h_t hdr) { state start { p.extract(hdr.a); transition accept; } }\n";

#[test]
fn headers_must_be_whole_bytes() {
    let body = format!("header a_t {{ bit<3> x; }}\nstruct h_t {{ a_t a; }}\n{PARSER}control f(inout h_t hdr, out bool pass) {{ apply {{ pass = true; }} }}\nebpfFilter(prs(), f()) main;\n");
    let message = first_error(&body).unwrap_or_default();
    assert!(message.contains("not a whole number of bytes"), "{message}");
}

#[test]
fn extern_functions_need_an_extern_file() {
    let body = format!("header a_t {{ bit<8> x; }}\nstruct h_t {{ a_t a; }}\nextern bool check(in a_t a);\n{PARSER}control f(inout h_t hdr, out bool pass) {{ apply {{ pass = check(hdr.a); }} }}\nebpfFilter(prs(), f()) main;\n");
    let message = first_error(&body).unwrap_or_default();
    assert!(message.contains("--extern-file"), "{message}");
}

#[test]
fn unsupported_match_kinds_are_named() {
    let body = format!(
        "match_kind {{ fuzzy }}\nheader a_t {{ bit<8> x; }}\nstruct h_t {{ a_t a; }}\n{PARSER}control f(inout h_t hdr, out bool pass) {{\n  table t {{ key = {{ hdr.a.x : fuzzy; }} actions = {{ NoAction; }} }}\n  apply {{ pass = true; t.apply(); }} }}\nebpfFilter(prs(), f()) main;\n"
    );
    let message = first_error(&body).unwrap_or_default();
    assert!(
        message.starts_with("match kind `fuzzy` is not supported by the eBPF target"),
        "{message}"
    );
}

#[test]
fn range_keys_compile_up_to_64_bits() {
    let table = |width: u32| {
        format!(
            "match_kind {{ range }}\nheader a_t {{ bit<{width}> x; }}\nstruct h_t {{ a_t a; }}\n{PARSER}control f(inout h_t hdr, out bool pass) {{\n  table t {{ key = {{ hdr.a.x : range; }} actions = {{ NoAction; }} }}\n  apply {{ pass = true; t.apply(); }} }}\nebpfFilter(prs(), f()) main;\n"
        )
    };
    assert_eq!(first_error(&table(16)), None);
    assert_eq!(
        first_error(&table(72)),
        Some("a `range` key may be at most 64 bits wide".into())
    );
}

#[test]
fn a_valid_program_generates() {
    let body = format!("header a_t {{ bit<8> x; }}\nstruct h_t {{ a_t a; }}\n{PARSER}control f(inout h_t hdr, out bool pass) {{ apply {{ pass = hdr.a.x == 1; }} }}\nebpfFilter(prs(), f()) main;\n");
    assert_eq!(first_error(&body), None);
}

/// A filter over `h_t { a_t a; }` with `locals` and `apply`.
fn filter(headers: &str, locals: &str, apply: &str) -> String {
    format!("{headers}\nstruct h_t {{ a_t a; }}\n{PARSER}control f(inout h_t hdr, out bool pass) {{\n{locals}\napply {{ {apply} }} }}\nebpfFilter(prs(), f()) main;\n")
}

#[test]
fn varbit_fields_not_last_are_named() {
    let body = "header a_t { varbit<32> opts; bit<8> x; }\nstruct h_t { a_t a; }\nparser prs(packet_in p, out h_t hdr) { state start { p.extract(hdr.a, 32w16); transition accept; } }\ncontrol f(inout h_t hdr, out bool pass) { apply { pass = true; } }\nebpfFilter(prs(), f()) main;\n";
    let message = first_error(body).unwrap_or_default();
    assert!(message.contains("`varbit`"), "{message}");
}

#[test]
fn wide_division_names_the_operator_and_width() {
    let body = filter(
        "header a_t { bit<128> x; bit<128> y; }",
        "",
        "hdr.a.x = hdr.a.x / hdr.a.y; pass = true;",
    );
    let message = first_error(&body).unwrap_or_default();
    assert!(message.contains("`/` on bit<128>"), "{message}");
}

#[test]
fn wide_shifts_by_a_run_time_amount_are_refused() {
    let body = filter(
        "header a_t { bit<128> x; bit<8> n; }",
        "",
        "hdr.a.x = hdr.a.x << hdr.a.n; pass = true;",
    );
    let message = first_error(&body).unwrap_or_default();
    assert!(message.contains("constant amount"), "{message}");
}

#[test]
fn struct_parameters_from_the_control_plane_are_named() {
    let body = filter(
        "header a_t { bit<8> x; }\nstruct p_t { bit<8> v; }",
        "action set(p_t p) { hdr.a.x = p.v; } table t { key = { hdr.a.x : exact; } actions = { set; } }",
        "t.apply(); pass = true;",
    );
    let message = first_error(&body).unwrap_or_default();
    assert!(message.contains("action parameter `p`"), "{message}");
}

#[test]
fn parenthesized_parameterless_actions_are_plain_actions() {
    let body = filter(
        "header a_t { bit<8> x; }",
        "action Reject() { pass = false; } table t { key = { hdr.a.x : exact; } actions = { Reject(); NoAction(); } default_action = Reject(); }",
        "pass = true; t.apply();",
    );
    assert_eq!(first_error(&body), None);
}

#[test]
fn a_loop_condition_that_applies_a_table_is_refused() {
    let body = filter(
        "header a_t { bit<8> x; }",
        "action a() {} table t { key = { hdr.a.x : exact; } actions = { a; } }",
        "pass = true; for (bit<8> i = 0; i < 4 && t.apply().hit; i = i + 1) { hdr.a.x = hdr.a.x + 1; }",
    );
    let message = first_error(&body).unwrap_or_default();
    assert!(message.contains("loop condition"), "{message}");
}

#[test]
fn a_struct_inside_a_header_holds_fields_of_at_most_64_bits() {
    let fits = "struct s_t { bit<4> a; bit<4> b; }\nheader a_t { bit<8> x; s_t s; }\nstruct h_t { a_t a; }\n";
    let wide =
        "struct s_t { bit<72> a; }\nheader a_t { bit<8> x; s_t s; }\nstruct h_t { a_t a; }\n";
    let program = |types: &str| {
        format!("{types}{PARSER}control f(inout h_t hdr, out bool pass) {{ apply {{ pass = hdr.a.s.b == 1; }} }}\nebpfFilter(prs(), f()) main;\n")
    };
    assert_eq!(first_error(&program(fits)), None);
    let wide = program(wide).replace("hdr.a.s.b == 1", "true");
    let message = first_error(&wide).unwrap_or_default();
    assert!(
        message.contains("header field `s` must be a bit string, a bool or a struct of them"),
        "{message}"
    );
}

#[test]
fn a_value_set_over_several_keys_must_line_up_with_them() {
    let program = |member: &str| {
        format!("header a_t {{ bit<8> x; bit<8> y; }}\nstruct h_t {{ a_t a; }}\nstruct m_t {{ {member} }}\nparser prs(packet_in p, out h_t hdr) {{\n  value_set<m_t>(4) vs;\n  state start {{ p.extract(hdr.a); transition select(hdr.a.x, hdr.a.y) {{ vs: accept; default: reject; }} }} }}\ncontrol f(inout h_t hdr, out bool pass) {{ apply {{ pass = true; }} }}\nebpfFilter(prs(), f()) main;\n")
    };
    assert_eq!(first_error(&program("bit<8> x; bit<8> y;")), None);
    let message = first_error(&program("bit<8> x; bit<16> y;")).unwrap_or_default();
    assert!(
        message.contains(
            "value set `vs` holds members of 8, 16 bits; the select's keys have 8, 8 bits"
        ),
        "{message}"
    );
    // `@match` is a hint: the set is matched exactly, as BMv2 does.
    assert_eq!(
        first_error(&program("bit<8> x; @match(ternary) bit<8> y;")),
        None
    );
}
