//! Each rule on a small program parsed by the real front end: the mistake
//! is reported, and the corrected program passes.

use super::check_rules;
use crate::diag::Diagnostics;
use crate::source::SourceMap;
use crate::{lexer, parser, preprocess, Options};
use std::path::Path;

/// The error messages of the structural rules alone for `src`.
fn errors(src: &str) -> Vec<String> {
    let mut sources = SourceMap::new();
    let mut diags = Diagnostics::default();
    let unit = preprocess::preprocess(
        Path::new("t.p4"),
        src,
        &Options::default(),
        &mut sources,
        &mut diags,
    );
    let tokens = lexer::tokenize(&unit, &mut diags);
    let program = parser::parse(&unit, &tokens, &mut diags);
    let parse_errors: Vec<_> = diags.errors().map(|d| d.message.clone()).collect();
    assert!(parse_errors.is_empty(), "parse errors: {parse_errors:?}");
    let mut out = Diagnostics::default();
    check_rules(&program, &unit, &mut out);
    out.errors().map(|d| d.message.clone()).collect()
}

fn assert_error(src: &str, expected: &str) {
    let found = errors(src);
    assert!(
        found.iter().any(|m| m.contains(expected)),
        "expected `{expected}` in {found:?}"
    );
}

fn assert_clean(src: &str) {
    let found = errors(src);
    assert!(found.is_empty(), "unexpected errors: {found:?}");
}

#[test]
fn duplicate_top_level_names() {
    assert_error(
        "const bit<4> a = 1; const bit<4> a = 2;",
        "duplicate declaration of `a`",
    );
    assert_error(
        "control foo(in bit<8> x) { apply {} } bool foo() { return true; }",
        "duplicate declaration of `foo`",
    );
    assert_error(
        "action f() {} action f(in bit<8> x) {}",
        "duplicate declaration of `f`",
    );
    assert_clean("control d()(bit<32> a) { apply {} } control d()(bit<32> b) { apply {} }");
}

#[test]
fn functions_overload_by_arity_or_parameter_names() {
    assert_clean("extern void f(); extern void f(bit<32> a); extern void f(bit<16> b);");
    assert_error(
        "extern E { E(bit<8> x); E(bit<8> x); }",
        "duplicate declaration of `E`",
    );
}

#[test]
fn error_and_match_kind_members_form_one_set() {
    assert_error(
        "match_kind { foo, bar } match_kind { foo }",
        "duplicate declaration of `foo`",
    );
    assert_error("error { A, B, A }", "duplicate declaration of `A`");
    assert_clean("error { A } error { B } match_kind { exact } match_kind { lpm }");
}

#[test]
fn duplicate_fields_members_and_parameters() {
    assert_error(
        "struct S { bit<1> f; bit<1> f; }",
        "duplicate declaration of `f`",
    );
    assert_error(
        "enum bit<4> e { a = 1, a = 2 }",
        "duplicate declaration of `a`",
    );
    assert_error(
        "control c(bit<32> p)(bool p) { apply {} }",
        "duplicate declaration of `p`",
    );
    assert_error(
        "control C<p>(inout bit<32> p) { apply {} }",
        "duplicate declaration of `p`",
    );
    assert_error("package S<T, T>();", "duplicate declaration of `T`");
}

#[test]
fn only_variables_may_not_shadow_parameters() {
    assert_clean("control MyC(in bit<8> t) { table t { actions = {} } apply {} }");
    assert_clean("control MyC(inout bit<8> p) { bit<8> p = 0; apply {} }");
    assert_error(
        "control c(inout bit<8> h) { apply { bit<8> h = h; } }",
        "variable `h` shadows a parameter",
    );
    assert_error(
        "control c(inout bit<8> h) { action a() { bit<8> h; } apply {} }",
        "variable `h` shadows a parameter",
    );
}

#[test]
fn parser_states() {
    assert_error(
        "parser p() { state accept { transition reject; } }",
        "state `accept` is built in",
    );
    assert_error(
        "parser p() { state s { transition accept; } }",
        "has no `start` state",
    );
    assert_error(
        "parser p() { state start { transition nowhere; } }",
        "`nowhere` is not a state of parser `p`",
    );
    assert_error(
        "parser p() { state start { transition a; } state a { transition b; } state b { transition a; } }",
        "never reaches `accept` or `reject`",
    );
    assert_error(
        "parser p() { state start {} state start {} }",
        "duplicate declaration of `start`",
    );
}

#[test]
fn state_without_transition_rejects() {
    assert_clean("parser p() { state start {} }");
    assert_clean("parser p(in bit<8> x) { state start { transition select(x) { 1: a; default: accept; } } state a {} }");
}

#[test]
fn statements_in_the_wrong_place() {
    assert_error(
        "parser p() { state start { return; } }",
        "`return` is not allowed in a parser",
    );
    assert_error(
        "parser p() { state start { exit; } }",
        "`exit` is not allowed in a parser",
    );
    assert_error("void f() { exit; }", "`exit` is not allowed in a function");
    assert_error("action a() { break; }", "`break` outside a loop");
    assert_error("action a() { continue; }", "`continue` outside a loop");
    assert_error("void f() { return 1; }", "function returning `void`");
    assert_error("bit<8> f() { return; }", "`return` without a value");
    assert_error(
        "bit<8> f(in bool c) { if (c) return 1; }",
        "does not return a value on all paths",
    );
    assert_clean("bit<8> f(in bool c) { if (c) { return 1; } else { return 2; } }");
    assert_error(
        "package p(bit<1> a); void func() { p(1w1) a; }",
        "instantiation of `a` is not allowed",
    );
    assert_error(
        "control c() { apply { int x = 0; } }",
        "cannot have type `int`",
    );
}

#[test]
fn arguments_and_calls() {
    assert_error(
        "extern void f(in bit<16> x, in bool y); control c() { apply { f(y = true, 1); } }",
        "all named or all positional",
    );
    assert_error(
        "extern void f(in bool y); control c() { apply { f(y = true, y = true); } }",
        "given twice",
    );
    assert_error(
        "action a() {} control c() { apply { a<bit>(); } }",
        "takes no type arguments",
    );
    assert_error(
        "control c() { table t { actions = {} } apply { t.apply()(); } }",
        "result of a call cannot be called",
    );
    assert_error(
        "control c() { bit<8> i; apply { for (i in 1 .. 6) {} } }",
        "must be declared with a type",
    );
    assert_clean("extern void f(in bit<16> x, in bool y); control c() { apply { f(y = true, x = 1); f(1, true); } }");
}

#[test]
fn fields_are_initialized_once() {
    assert_error(
        "struct S { bit<8> a; } const S s = { a = 1, a = 2 };",
        "field `a` is initialized twice",
    );
}

#[test]
fn abstract_methods() {
    let ext = "extern V { V(); abstract bit<16> f(in bit<16> ix); @optional abstract void g(); }";
    assert_error(&format!("{ext} control c() {{ V() v = {{ bit<16> h(in bit<16> ix) {{ return ix; }} }}; apply {{}} }}"), "not an abstract method");
    assert_error(&format!("{ext} control c() {{ V() v = {{ bit<16> f(inout bit<16> ix) {{ return ix; }} }}; apply {{}} }}"), "another direction");
    assert_error(
        &format!("{ext} control c() {{ V() v; apply {{}} }}"),
        "must implement abstract method `f`",
    );
    assert_clean(&format!("{ext} control c() {{ V() v = {{ bit<16> f(in bit<16> ix) {{ return this.f(ix); }} }}; apply {{}} }}"));
}

#[test]
fn types_do_not_refer_to_themselves() {
    assert_error("extern E { void method(E e); }", "`E` refers to itself");
    assert_error("struct S { S s; }", "`S` refers to itself");
    assert_error(
        "header H { bit<8> a; } header_union U { U u; }",
        "`U` refers to itself",
    );
    assert_clean("extern E<T> { E(); void m<E>(in E x); } struct S<T> { T t; }");
}

#[test]
fn recursion_is_rejected() {
    assert_error("void f() { f(); }", "function `f` is recursive");
    assert_error(
        "void g() { f(); } void f() { g(); }",
        "function `g` is recursive",
    );
    assert_eq!(errors("void f() { f(); f(); }").len(), 1);
    assert_clean("void g() {} void f() { g(); }");
}

#[test]
fn table_apply_and_action_run_placement() {
    assert_error(
        "control c() { action a() {} table t { actions = { a; } } action b() { t.apply(); } apply {} }",
        "table `t` can only be applied",
    );
    assert_error(
        "control c() { table t { actions = {} } apply { if (t.apply().action_run == t.apply().action_run) {} } }",
        "`action_run` can only be used",
    );
    assert_error(
        "control c() { action a(in bool b) {} table s { actions = {} } table t { actions = { a(s.apply().hit); } } apply {} }",
        "cannot be applied in an action argument",
    );
    assert_clean("control c() { table s { actions = {} } table t { key = { s.apply().hit : exact @name(\"k\"); } actions = {} } apply { t.apply(); } }");
}

#[test]
fn switch_labels() {
    let program = |labels: &str| {
        format!(
            "control c() {{ action a() {{}} action b() {{}} table t {{ actions = {{ a; }} }} \
             apply {{ switch (t.apply().action_run) {{ {labels} }} }} }}"
        )
    };
    assert_error(&program("a: {} a: {}"), "duplicate switch label `a`");
    assert_error(
        &program("a: {} default: {} default: {}"),
        "duplicate `default` label",
    );
    assert_error(&program("b: {}"), "`b` is not an action of table `t`");
    assert_error(&program("1: {}"), "must be an action name");
    assert_error(&program("default: a: {}"), "must be the last switch label");
    assert_clean(&program("a: default: {}"));
}

#[test]
fn table_properties() {
    let table = |body: &str| {
        format!("control c(in bit<8> x) {{ action a() {{}} action b() {{}} table t {{ {body} }} apply {{}} }}")
    };
    assert_error(&table("key = { x : exact; }"), "has no `actions` property");
    assert_error(
        &table("actions = { a; } default_action = b;"),
        "default action `b` is not in the actions",
    );
    assert_error(&table("actions = { a; a; }"), "listed twice");
    assert_error(
        "control c(inout bit<8> x) { action a(inout bit<8> b, bit<8> d) {} table t { actions = { a; } } apply {} }",
        "1 parameter with a direction but 0 arguments bound",
    );
    assert_error(
        &table("actions = { a; } entries = { 1 : a; }"),
        "has entries but no key",
    );
    assert_error(
        &table("entries = { 1 : a; } key = { x : exact; } actions = { a; }"),
        "must come after its key",
    );
    assert_error(
        &table("key = { x : exact; } actions = { a; } const entries = { (1, 2) : a; }"),
        "2 key values",
    );
    assert_error(
        &table("key = { x : exact; } actions = { a; } entries = { priority = 1 : 1 : a; }"),
        "cannot have priorities",
    );
    assert_error(
        &table("actions = { a; } size = true;"),
        "`size` must be a number",
    );
    assert_error(
        &table("const actions = { a; }"),
        "cannot be declared `const`",
    );
    assert_error(
        &table("actions = { a; } largest_priority_wins = \"x\";"),
        "must be `true` or `false`",
    );
    assert_error(
        &table("key = { x : ternary; } actions = { a; } const entries = { priority = 1 : 1 : a; }"),
        "`const entries` list cannot have priorities",
    );
    assert_error(
        &table("key = { x + x : exact; } actions = { a; }"),
        "requires a `@name` annotation",
    );
    assert_error(
        &table("key = { t : exact; } actions = { a; }"),
        "cannot refer to itself",
    );
    assert_error(
        &table("key = { x : exact; } actions = { a; } const entries = { 1 : b; }"),
        "entry action `b` is not in the actions",
    );
    assert_error(
        &table("key = { x : exact; } actions = { a; } const entries = { 1 : a; 1 : a; }"),
        "duplicate entry key",
    );
    assert_clean(&table(
        "key = { x : ternary; x[3:0] : exact @name(\"lo\"); } actions = { a; @defaultonly b; } \
         default_action = b; const entries = { (1 &&& 3, 2) : a; (_, 3) : a(); }",
    ));
}

#[test]
fn default_actions_repeat_bound_arguments() {
    let program = |bound: &str, default: &str| {
        format!(
            "struct s {{ bit<1> f0; bit<1> f1; }} extern bit<1> e1(); extern bit<1> e2(); \
             control c(inout bit<8> x, inout bit<8> y) {{ action a(inout bit<8> b, in s v) {{}} \
             table t {{ actions = {{ a({bound}); }} default_action = a({default}); }} apply {{}} }}"
        )
    };
    assert_error(&program("x, {}", "y, {}"), "differs from the one bound");
    assert_error(
        &program("x, { f0 = e1(), f1 = e2() }", "x, { f1 = e1(), f0 = e2() }"),
        "differs from the one bound",
    );
    assert_clean(&program(
        "x, { f0 = e1(), f1 = e1() }",
        "x, { f1 = e1(), f0 = e1() }",
    ));
    assert_error(
        &program("x, { f0 = y[0:0], f1 = 0 }", "x, { f0 = y[1:1], f1 = 0 }"),
        "differs from the one bound",
    );
    assert_error(
        &program(
            "x, { f0 = e1() & 1, f1 = 0 }",
            "x, { f0 = e1() | 1, f1 = 0 }",
        ),
        "differs from the one bound",
    );
    assert_clean(&program(
        "x, { f0 = y[0 : 0], f1 = ~e1() }",
        "x, { f0 = y[0:0], f1 = ~ e1() }",
    ));
}

#[test]
fn tableonly_and_defaultonly_actions() {
    let table = |body: &str| {
        format!("control c(in bit<8> x) {{ action a() {{}} table t {{ key = {{ x : exact; }} {body} }} apply {{}} }}")
    };
    assert_error(
        &table("actions = { @tableonly a; } default_action = a;"),
        "cannot be the default action",
    );
    assert_error(
        &table("actions = { @defaultonly a; } const entries = { 1 : a; }"),
        "cannot be the entry action",
    );
}

#[test]
fn top_level_action_is_not_the_local_one() {
    assert_error(
        "action b() {} control c() { action a() {} action b() {} table t { actions = { a; b; } default_action = .b(); } apply {} }",
        "default action `b` is not in the actions",
    );
}

#[test]
fn parameter_rules() {
    assert_error("package top(in bit<8> x);", "cannot have a direction");
    assert_error(
        "control c()(in bit<8> x) { apply {} }",
        "cannot have a direction",
    );
    assert_error(
        "action a(bit<8> x, in bit<8> y) {}",
        "with a direction follows",
    );
    assert_error(
        "extern void f(out bit<32> x = 0);",
        "cannot have a default value",
    );
    assert_error(
        "extern void f(@optional bit<32> y = 0);",
        "cannot have a default value",
    );
    assert_error(
        "bit f(@optional bit a) { return a; }",
        "optional parameter `a` is not allowed here",
    );
    assert_error("action a(int x) {}", "cannot have type `int`");
    assert_error(
        "bit h(in bit a) { return a; } bit f(in bit a = h(1), in bit b) { return b; }",
        "must be a compile-time constant",
    );
    assert_clean("action a(in bit<8> x, bit<8> y) {} extern void g(@optional in bit<8> z);");
}

#[test]
fn annotation_shapes() {
    assert_error("@name(4) action a() {}", "`@name` takes one string");
    assert_error(
        "@deprecated(\"a\" | \"b\") action a() {}",
        "`@deprecated` takes one string",
    );
    assert_error(
        "struct s { @match(1+1) bit<16> f; }",
        "`@match` takes one match kind name",
    );
    assert_error(
        "@dup[] @dup[] control c() { apply {} }",
        "cannot be repeated",
    );
    assert_error(
        "@bad[a = { 2, 3 }] control c() { apply {} }",
        "must be an int, string or bool",
    );
    assert_clean("@deprecated(\"a\" ++ \"b\") action b() {}");
    assert_clean("@name(\"x\") @hidden @my(1, 2) @Mixed[1, \"hello\", true] @kv[a = 1, b = \"x\"] action a() {}");
}

#[test]
fn length_reads_earlier_fields() {
    assert_error(
        "header H { @length(n) varbit<256> d; bit<32> n; }",
        "uses field `n`, which is not read before it",
    );
    assert_clean("header H { bit<32> n; @length(n) varbit<256> d; }");
}

#[test]
fn declarations_in_the_wrong_place() {
    assert_error("extern main {}", "`main` must be an instance");
    assert_error(
        "enum bit<8> E { A = 1, B }",
        "member `B` of serializable enum `E` needs a value",
    );
    assert_error("enum F { X = 1, Y }", "cannot have a value");
    assert_error(
        "parser p() { action a() {} state start {} }",
        "cannot be declared in a parser",
    );
    assert_error(
        "control c() { value_set<bit<8>>(4) vs; apply {} }",
        "can only be declared in a parser",
    );
    assert_error(
        "action NoAction(bit t) {}",
        "`NoAction` cannot have parameters",
    );
    assert_error(
        "control c() { c() inst; apply {} }",
        "cannot instantiate itself",
    );
}

/// Nesting about as deep as the parser accepts (an `if` and its block are
/// two levels there) must not overflow the stack of a test thread.
#[test]
fn deep_nesting_is_walked() {
    let ifs = "if (true) { ".repeat(99) + &"} ".repeat(99);
    assert_clean(&format!(
        "control c(inout bit<8> x) {{ apply {{ {ifs} }} }}"
    ));
    let parens = "(".repeat(99) + "x" + &")".repeat(99);
    assert_clean(&format!(
        "control c(inout bit<8> x) {{ apply {{ x = {parens}; }} }}"
    ));
}

#[test]
fn initializers_with_defaults_are_only_stored() {
    let prelude = "struct S { bit<8> a; bool b; } S f(in S s) { return s; }";
    let body = |stmts: &str| format!("{prelude} control c(inout S r) {{ apply {{ {stmts} }} }}");
    assert_error(
        &format!("{prelude} S g() {{ return {{ 1, ... }}; }}"),
        "cannot be returned",
    );
    assert_error(
        &body("if (r == { b = true, ... }) {}"),
        "cannot be an operand",
    );
    assert_error(&body("if ({ ... } != r) {}"), "cannot be an operand");
    assert_error(&body("r = f({ a = 1, ... });"), "cannot be a call argument");
    assert_clean(&body(
        "S s = { b = true, ... }; S t = (S){ 1, ... }; r = { ... }; r = f(s); \
         tuple<S, bit<8>> u = { { a = 2, ... }, ... };",
    ));
}

#[test]
fn only_action_bodies_instantiate() {
    let ext = "extern E { E(); void f(); }";
    assert_clean(&format!(
        "{ext} control c() {{ action a() {{ E() e; e.f(); }} apply {{ a(); }} }}"
    ));
    assert_error(
        &format!("{ext} control c() {{ apply {{ E() e; e.f(); }} }}"),
        "instantiation of `e` is not allowed inside a body",
    );
    assert_error(
        &format!("{ext} parser p() {{ state start {{ E() e; transition accept; }} }}"),
        "instantiation of `e` is not allowed inside a body",
    );
}

#[test]
fn parser_states_and_locals_share_a_scope() {
    assert_error(
        "parser p(out bit<8> x) { bit<8> next = 1; state start { transition next; } state next { transition accept; } }",
        "duplicate declaration of `next`",
    );
    assert_clean(
        "parser p(out bit<8> x) { bit<8> n = 1; state start { transition next; } state next { transition accept; } }",
    );
}

#[test]
fn fixed_shape_annotations_are_not_structured() {
    assert_error(
        "@name[n = \"x\"] action a() {}",
        "annotation `@name` cannot be structured",
    );
    assert_error(
        "@hidden[] action a() {}",
        "annotation `@hidden` cannot be structured",
    );
    assert_clean("@name(\"x\") @hidden @my_info[n = \"x\", k = 2] action a() {}");
}
