//! End-to-end tests of the checker: small programs through the whole front
//! end, checking which errors come out (or that none do).

use crate::diag::Severity;
use std::path::Path;

/// Error messages the front end reports for `src`.
fn errors(src: &str) -> Vec<String> {
    let fe = crate::check_source(Path::new("test.p4"), src, &crate::Options::default());
    fe.diagnostics
        .list
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.message.clone())
        .collect()
}

fn accepts(src: &str) {
    let errs = errors(src);
    assert!(errs.is_empty(), "unexpected errors: {errs:?}");
}

fn rejects(src: &str, needle: &str) {
    let errs = errors(src);
    assert!(
        errs.iter().any(|e| e.contains(needle)),
        "expected an error containing {needle:?}, got {errs:?}"
    );
}

const PRELUDE: &str = "
error { NoError, ParserError }
match_kind { exact, lpm, ternary }
extern packet_in { void extract<T>(out T hdr); T lookahead<T>(); }
action NoAction() {}
header h_t { bit<8> a; bit<16> b; }
struct s_t { h_t h; bit<4> x; }
";

fn with_prelude(body: &str) -> String {
    format!("{PRELUDE}\n{body}")
}

#[test]
fn int_literals_convert_but_widths_do_not() {
    accepts(&with_prelude(
        "control c(inout s_t s) { apply { s.h.a = 3; s.h.b = s.h.b + 1; } }",
    ));
    rejects(
        &with_prelude("control c(inout s_t s) { apply { s.h.a = s.h.b; } }"),
        "cannot convert `bit<16>` to `bit<8>`",
    );
}

#[test]
fn unknown_names_and_fields_are_reported() {
    rejects(
        &with_prelude("control c(inout s_t s) { apply { s.h.zz = 1; } }"),
        "has no member `zz`",
    );
    rejects(
        &with_prelude("control c(inout s_t s) { apply { y = 1; } }"),
        "`y` is not declared",
    );
    rejects(
        &with_prelude("control c(inout foo_t s) { apply { } }"),
        "type `foo_t` is not declared",
    );
}

#[test]
fn in_parameters_are_read_only_and_out_arguments_need_lvalues() {
    rejects(
        &with_prelude("control c(in s_t s) { apply { s.x = 1; } }"),
        "cannot assign",
    );
    let src = with_prelude(
        "extern void f(out bit<8> x);
         control c(inout s_t s) { apply { f(s.h.a); f(s.h.a + 1); } }",
    );
    rejects(&src, "needs a value that can be written");
}

#[test]
fn generic_calls_are_inferred() {
    accepts(&with_prelude(
        "parser p(packet_in pk, out s_t s) {
            state start { pk.extract(s.h); transition select(s.h.a) { 1: accept; default: reject; } }
        }",
    ));
    rejects(
        &with_prelude("extern T id<T>(in T a, in T b); control c(inout s_t s) { apply { s.x = id(s.h.a, s.h.b); } }"),
        "conflicts",
    );
}

#[test]
fn constants_are_folded_with_wraparound() {
    let src = with_prelude(
        "const bit<8> big = 8w255 + 8w2;
         const bit<big> w = 0;",
    );
    // big wraps to 1, so `bit<1>` is a valid type.
    accepts(&src);
    rejects(&with_prelude("const bit<8> z = 1 / 0;"), "division by zero");
}

#[test]
fn tables_check_keys_actions_and_defaults() {
    let ok = with_prelude(
        "control c(inout s_t s) {
            action set(bit<8> v) { s.h.a = v; }
            table t { key = { s.h.a : exact; } actions = { set; NoAction; } default_action = NoAction(); }
            apply { switch (t.apply().action_run) { set: {} default: {} } if (t.apply().hit) { } }
        }",
    );
    accepts(&ok);
    let bad_kind = ok.replace(": exact", ": fuzzy");
    rejects(&bad_kind, "not a declared match kind");
    let bad_default = ok.replace("default_action = NoAction()", "default_action = other()");
    rejects(&bad_default, "is not in the actions of table");
}

#[test]
fn slices_need_constant_bounds_within_the_width() {
    rejects(
        &with_prelude("control c(inout s_t s) { apply { s.h.a = s.h.b[16:9]; } }"),
        "out of the bounds",
    );
    accepts(&with_prelude(
        "control c(inout s_t s) { apply { s.h.a = s.h.b[15:8]; } }",
    ));
}

#[test]
fn header_methods_and_stacks() {
    accepts(&with_prelude(
        "control c(inout s_t s) { h_t[4] st; apply { s.h.setValid(); if (s.h.isValid()) { st[0] = s.h; st.push_front(1); } } }",
    ));
    rejects(
        &with_prelude("control c(inout s_t s) { h_t[4] st; apply { st[4].a = 1; } }"),
        "out of bounds",
    );
}

#[test]
fn casts_follow_the_spec_rules() {
    accepts(&with_prelude(
        "control c(inout s_t s) { apply { s.x = (bit<4>)s.h.a; bool b = (bool)1w1; } }",
    ));
    rejects(
        &with_prelude("control c(inout s_t s) { apply { int<16> v = (int<16>)s.h.a; } }"),
        "cannot cast",
    );
}

#[test]
fn main_is_instantiated_into_a_tree() {
    let src = with_prelude(
        "control C(inout s_t s);
         package P(C c);
         control impl(inout s_t s) { apply { } }
         P(impl()) main;",
    );
    let fe = crate::check_source(Path::new("test.p4"), &src, &crate::Options::default());
    let main = fe.checked.and_then(|c| c.main);
    let main = main.expect("main instantiated");
    assert_eq!(main.args.len(), 1);
    assert!(matches!(&main.args[0].1, super::InstanceArg::Instance(i) if i.name == "c"));
}

#[test]
fn type_variables_are_rigid_inside_generic_bodies() {
    rejects("T f<T>(tuple<> x) { return x; }", "cannot convert");
    accepts("T id<T>(in T x) { return x; }");
}

#[test]
fn generic_calls_need_a_width_and_a_single_overload() {
    let src = with_prelude(
        "extern void emit<T>(in T x); control c(inout s_t s) { apply { emit(2); emit(s.x); } }",
    );
    rejects(&src, "cannot infer a width");
    let ambiguous = with_prelude(
        "extern E { E(); void m<T>(out T a); void m<T>(out T b); }
         control c(inout s_t s) { E() e; apply { e.m(s.x); } }",
    );
    rejects(&ambiguous, "ambiguous");
}

#[test]
fn static_assert_fails_on_a_false_constant() {
    let decl = "extern bool static_assert(bool check, string message);";
    rejects(
        &format!("{decl} const bool ok = static_assert(1 == 2, \"math\");"),
        "static assertion failed: math",
    );
    accepts(&format!(
        "{decl} const bool ok = static_assert(1 == 1, \"math\");"
    ));
}

#[test]
fn extract_needs_a_header() {
    let src = with_prelude(
        "parser p(packet_in pk, out s_t s) { state start { pk.extract(s.x); transition accept; } }",
    );
    rejects(&src, "`extract` needs a header");
}

#[test]
fn serializable_enum_members_are_values() {
    accepts(&with_prelude(
        "enum bit<8> E { A = 1, B = A }
         control c(inout s_t s) { apply { s.h.a = E.B; bit<2> v = s.h.a[E.A:0]; } }",
    ));
    rejects(
        &with_prelude("enum bit<8> E { A = 1 } control c(inout s_t s) { apply { s.h.b = E.A; } }"),
        "cannot convert",
    );
}

#[test]
fn tables_are_applied_only_from_control_bodies() {
    let src = with_prelude(
        "control c(inout s_t s) {
            table t { actions = { NoAction; } }
            action a() { t.apply(); }
            apply { t.apply(); }
        }",
    );
    rejects(&src, "can only be applied in a control's `apply` block");
}

#[test]
fn select_masks_must_be_compile_time_known() {
    let src = with_prelude(
        "parser p(packet_in pk, out s_t s) {
            state start { bit<8> m = 3; transition select(s.h.a) { 1 &&& m: accept; default: reject; } }
        }",
    );
    rejects(&src, "compile-time known");
}

#[test]
fn self_containing_types_are_rejected_without_looping() {
    rejects(
        "header H { bit<8> a; H[2] inner; }",
        "contains the type being declared",
    );
}

#[test]
fn direct_apply_and_overloaded_packages() {
    accepts(&with_prelude(
        "control inner(inout s_t s) { apply { } }
         control outer(inout s_t s) { apply { inner.apply(s); } }
         control C(inout s_t s);
         package P(C a);
         package P(C a, C b);
         P(outer(), outer()) main;",
    ));
}

#[test]
fn calls_record_the_callee_and_inferred_type_arguments() {
    let src = with_prelude(
        "parser p(packet_in pk, out s_t s) { state start { pk.extract(s.h); transition accept; } }",
    );
    let fe = crate::check_source(Path::new("test.p4"), &src, &crate::Options::default());
    let checked = fe.checked.expect("checked");
    let extract = checked
        .calls
        .values()
        .find(|c| c.kind == super::CallKind::Method)
        .expect("a method call");
    assert_eq!(extract.type_args.len(), 1);
    assert!(matches!(&extract.type_args[0], super::Type::Named { .. }));
}

#[test]
#[allow(clippy::panic)] // a test fails by panicking
fn main_tree_holds_nested_instances_with_constructor_values() {
    let src = with_prelude(
        "extern Counter { Counter(bit<32> size, bool sparse); void count(in bit<32> i); }
         control C(inout s_t s);
         package P(C c);
         control impl(inout s_t s)(bit<32> n) {
             Counter(n + 1, true) hits;
             apply { hits.count(0); }
         }
         P(impl(7)) main;",
    );
    let fe = crate::check_source(Path::new("test.p4"), &src, &crate::Options::default());
    assert!(!fe.has_errors());
    let main = fe.checked.and_then(|c| c.main).expect("main");
    let super::InstanceArg::Instance(control) = &main.args[0].1 else {
        panic!("control expected")
    };
    assert_eq!(control.args[0].0, "n");
    assert!(
        matches!(&control.args[0].1, super::InstanceArg::Value(super::Value::Int { value, .. }) if *value == 7.into())
    );
    assert_eq!(control.children.len(), 1);
    assert_eq!(control.children[0].name, "hits");
    let size = &control.children[0].args[0].1;
    assert!(
        matches!(size, super::InstanceArg::Value(super::Value::Int { value, .. }) if *value == 8.into())
    );
}

#[test]
fn huge_constants_are_refused_not_computed() {
    let mut src = String::from("const int c0 = 1 << 65535;\n");
    for i in 1..12 {
        src.push_str(&format!(
            "const int c{i} = c{prev} * c{prev};\n",
            prev = i - 1
        ));
    }
    rejects(&src, "more than");
}

#[test]
fn table_entry_keysets_do_not_read_parameters() {
    let table = |entries: &str| {
        with_prelude(&format!(
            "control c(inout s_t s)(bit<8> k) {{
                 action a() {{}}
                 table t {{
                     key = {{ s.h.a : ternary; s.h.b : exact; }}
                     actions = {{ a; }}
                     const entries = {{ {entries} }}
                 }}
                 apply {{ t.apply(); }}
             }}"
        ))
    };
    rejects(
        &table("(s.h.a, 1) : a();"),
        "a table entry's keyset must be compile-time known",
    );
    rejects(&table("(1 &&& s.h.a, 1) : a();"), "compile-time known");
    accepts(&table(
        "(k, 1) : a(); (1 &&& 0xf0, (bit<16>)k + 2) : a(); (_, 3) : a();",
    ));
}

#[test]
fn static_assert_needs_a_compile_time_condition() {
    let decl = "extern bool static_assert(bool check);";
    rejects(
        &with_prelude(&format!(
            "{decl} control c(inout s_t s) {{ apply {{ static_assert(s.x == 1); }} }}"
        )),
        "needs a condition known at compile time",
    );
    accepts(&with_prelude(&format!(
        "{decl} const bit<4> K = 1;
         control c(inout s_t s)(bit<4> n) {{ apply {{ static_assert(K == 1); static_assert(n != 0); }} }}"
    )));
}

#[test]
fn variables_cannot_be_void() {
    rejects(
        &with_prelude("control c(inout s_t s) { apply { void v; } }"),
        "variable `v` cannot have type `void`",
    );
    accepts(&with_prelude(
        "void f(inout s_t s) { s.x = 1; } control c(inout s_t s) { apply { f(s); } }",
    ));
}

#[test]
fn an_extern_without_a_constructor_is_not_instantiated() {
    rejects(
        &with_prelude("extern R { void f(); } control c(inout s_t s) { R() r; apply { r.f(); } }"),
        "extern `R` has no constructor",
    );
    rejects(
        &with_prelude("control c(inout s_t s) { packet_in() p; apply { } }"),
        "extern `packet_in` has no constructor",
    );
    accepts(&with_prelude(
        "extern R { R(); void f(); } control c(inout s_t s)(R q) { R() r; apply { r.f(); q.f(); } }",
    ));
}

#[test]
fn a_value_switch_needs_the_exact_match_kind() {
    let control = "control c(in bit<4> a, inout bit<4> b) { apply { switch (a) { 1: { b = 2; } default: {} } } }";
    rejects(control, "needs the match kind `exact`");
    accepts(&with_prelude(control));
    // Labels that all fall through to `default` need no table.
    accepts("control c(in bit<4> a) { apply { switch (a) { 1: 2: default: {} } switch (a) { } } }");
}

#[test]
fn a_match_annotation_names_a_match_kind() {
    rejects(
        &with_prelude("struct vs_t { @match(foo) bit<8> a; }"),
        "`foo` is not a match kind",
    );
    accepts(&with_prelude(
        "struct vs_t { @match(ternary) bit<8> a; @match(exact) bit<16> b; }",
    ));
}

#[test]
fn a_for_loop_iterates_over_a_stack_a_list_or_a_range() {
    rejects(
        &with_prelude("control c(inout s_t s) { apply { for (bit<8> i in s.h.a) { } } }"),
        "cannot iterate over a value of type `bit<8>`",
    );
    accepts(&with_prelude(
        "control c(inout s_t s) { h_t[3] st; apply {
             for (bit<8> i in 1 .. 3) { s.h.a = i; }
             for (bit<8> i in { 1, 2 }) { s.h.a = i; }
             for (h_t h in st) { s.h = h; }
         } }",
    ));
}
