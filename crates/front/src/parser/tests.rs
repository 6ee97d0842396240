//! Helpers shared by the parser's unit tests, and the tests of the parser
//! as a whole: recovery, guards against deep nesting, any-input safety.

use crate::ast::{DeclKind, Expr, Program, Stmt};
use crate::diag::Diagnostics;
use crate::lexer::tokenize;
use crate::source::{FileId, Segment, SegmentKind, TranslationUnit};

fn unit(text: &str) -> TranslationUnit {
    TranslationUnit {
        text: text.into(),
        segments: vec![Segment {
            out_start: 0,
            file: FileId(0),
            src_start: 0,
            kind: SegmentKind::Copied,
        }],
    }
}

/// Lexes and parses `src`.
pub(super) fn parse_str(src: &str) -> (Program, Diagnostics) {
    let unit = unit(src);
    let mut diags = Diagnostics::default();
    let tokens = tokenize(&unit, &mut diags);
    let program = super::parse(&unit, &tokens, &mut diags);
    (program, diags)
}

/// Parses `src`, which must have no errors.
pub(super) fn parse_ok(src: &str) -> Program {
    let (program, diags) = parse_str(src);
    let messages: Vec<_> = diags.errors().map(|d| &d.message).collect();
    assert!(messages.is_empty(), "{src}: {messages:?}");
    program
}

/// Parses `src` as the value of a constant and returns it.
pub(super) fn parse_expr(src: &str) -> Expr {
    let program = parse_ok(&format!("const bit<8> x = {src};"));
    match program.decls.into_iter().next().map(|d| d.kind) {
        Some(DeclKind::Constant { value, .. }) => value,
        other => panic!("{other:?}"),
    }
}

/// Parses `stmts` as the apply block of a control and returns them.
pub(super) fn control_body(stmts: &str) -> Vec<Stmt> {
    let program = parse_ok(&format!("control c() {{ apply {{ {stmts} }} }}"));
    match program.decls.into_iter().next().map(|d| d.kind) {
        Some(DeclKind::Control { apply, .. }) => apply.stmts,
        other => panic!("{other:?}"),
    }
}

#[test]
fn expression_ids_are_dense_and_counted() {
    let program = parse_ok("const bit<8> x = 1 + 2 * 3; const bool y = !true;");
    // 1, 2, 3, 2*3, 1+2*3 and the width 8; true, !true and the width of bool: none.
    assert_eq!(program.expr_count, 8);
}

#[test]
fn error_message_names_expected_and_found_tokens() {
    let (_, diags) = parse_str("const bit<8> x = 1 }");
    let d = diags.errors().next().expect("an error");
    assert_eq!(d.message, "expected `;`, found `}`");
    assert_eq!(d.loc.map(|l| (l.lo, l.hi)), Some((19, 20)));
}

fn deeply_nested(open: &str, count: usize) -> String {
    format!("control c() {{ apply {{ x = {}; }} }}", open.repeat(count))
}

/// Runs `f` on a thread with the default test stack size, so a stack
/// overflow fails the test rather than passing by luck of a big stack.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    let handle = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("thread");
    assert!(handle.join().is_ok());
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    on_small_stack(|| {
        for open in ["(", "{", "-", "a[", "(bit<8>)", "f("] {
            let (_, diags) = parse_str(&deeply_nested(open, 100_000));
            let messages: Vec<_> = diags.errors().map(|d| d.message.clone()).collect();
            assert_eq!(
                messages,
                ["nesting too deep (more than 200 levels)"],
                "{open}"
            );
        }
        let blocks = format!("control c() {{ apply {}", "{".repeat(100_000));
        let (_, diags) = parse_str(&blocks);
        assert!(diags
            .errors()
            .any(|d| d.message.starts_with("nesting too deep")));
        let ifs = format!(
            "control c() {{ apply {{ {} }} }}",
            "if (true) ".repeat(100_000)
        );
        let (_, diags) = parse_str(&ifs);
        assert!(diags
            .errors()
            .any(|d| d.message.starts_with("nesting too deep")));
        let stacks = format!("const bit<8>{} x = 1;", "[1]".repeat(100_000));
        let (_, diags) = parse_str(&stacks);
        assert!(diags
            .errors()
            .any(|d| d.message.starts_with("nesting too deep")));
        let types = format!("const {} x = 1;", "tuple<".repeat(100_000));
        let (_, diags) = parse_str(&types);
        assert!(diags
            .errors()
            .any(|d| d.message.starts_with("nesting too deep")));
    });
}

#[test]
fn errors_stop_after_a_hundred() {
    let (_, diags) = parse_str(&"1; ".repeat(1000));
    assert_eq!(diags.errors().count(), 100);
    let last = diags
        .errors()
        .last()
        .map(|d| d.notes.clone())
        .unwrap_or_default();
    assert!(last
        .iter()
        .any(|n| n.message.starts_with("too many syntax errors")));
}

#[test]
fn long_chains_of_less_than_stay_linear() {
    // Each `<` asks whether type arguments follow; each scan is bounded.
    // Such a chain also nests too deeply for later stages' recursion.
    on_small_stack(|| {
        let src = format!("const bool a = {}1;", "x < ".repeat(20_000));
        let (_, diags) = parse_str(&src);
        let messages: Vec<_> = diags.errors().map(|d| d.message.clone()).collect();
        assert_eq!(messages, ["nesting too deep (more than 200 levels)"]);
    });
}

#[test]
fn moderate_nesting_is_fine() {
    on_small_stack(|| {
        let src = format!("const bit<8> x = {}1{};", "(".repeat(90), ")".repeat(90));
        parse_ok(&src);
    });
}

#[test]
fn any_prefix_of_a_program_parses_without_panic() {
    let src = "#include <core.p4>\n@name(\"x\") header h { bit<8> a; }
        parser p(packet_in b, out h hdr) { state start { b.extract(hdr); transition select(hdr.a) { 1 &&& 3: accept; default: reject; } } }
        control c(inout h hdr) { table t { key = { hdr.a: exact; } actions = { NoAction; } const entries = { 1: NoAction(); } }
        apply { if (t.apply().hit) { hdr.a = (bit<8>)(hdr.a >> 1) ++ 4w0 |+| 8s3; } } }
        V1Switch(p(), c()) main;";
    for end in 0..src.len() {
        for cut in [&src[..end], &src[end..]] {
            if cut.is_char_boundary(0) {
                let _ = parse_str(cut);
            }
        }
    }
}

#[test]
fn error_recovery_reports_one_error_per_bad_declaration() {
    let (program, diags) = parse_str(
        "header h { bit<8> a }
         control c() { apply { x = 1 y = 2; z = 3; } }
         struct s { bit<8> b; }",
    );
    assert_eq!(diags.errors().count(), 2);
    assert_eq!(program.decls.len(), 3);
}

#[test]
fn block_bodies_are_shared_by_parsers_and_controls() {
    let program = parse_ok(
        "control c(inout bit<8> x)(bit<8> k) {
             bit<8> tmp; Counter(1) cnt; const bit<8> K = 1; action a(bit<8> v) { x = v; }
             apply { tmp = K; a(tmp); }
         }",
    );
    match &program.decls[0].kind {
        DeclKind::Control {
            locals,
            ctor_params,
            apply,
            ..
        } => {
            assert_eq!(locals.len(), 4);
            assert_eq!(ctor_params.len(), 1);
            assert_eq!(apply.stmts.len(), 2);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_loop_that_never_consumes_is_stopped_and_reported() {
    let unit = unit("const bit<8> x = 1;");
    let mut diags = Diagnostics::default();
    let tokens = tokenize(&unit, &mut diags);
    let mut p = super::Parser::new(&unit, &tokens, &mut diags);
    // A buggy loop: looks at the same token forever.
    while !p.at_eof() {
        let _ = p.peek();
    }
    p.bump();
    assert!(p.aborted);
    let messages: Vec<_> = diags.errors().map(|d| d.message.clone()).collect();
    assert_eq!(messages, ["parser made no progress (internal error)"]);
}

#[test]
fn spans_cover_annotations_to_semicolon_and_whole_expressions() {
    let src = "@name(\"a\") const bit<8> x = (y + 1) * 2;";
    let program = parse_ok(src);
    let decl = &program.decls[0];
    assert_eq!((decl.span.lo, decl.span.hi), (0, src.len() as u32));
    let DeclKind::Constant { value, .. } = &decl.kind else {
        panic!("{decl:?}")
    };
    let text = &src[value.span.lo as usize..value.span.hi as usize];
    assert_eq!(text, "(y + 1) * 2");
}

#[test]
fn argument_and_parameter_lists_take_no_trailing_comma() {
    let errors = |src: &str| -> Vec<String> {
        let (_, diags) = parse_str(src);
        diags.errors().map(|d| d.message.clone()).collect()
    };
    let params = errors("control c(inout bit<8> x,) { apply {} }");
    assert!(
        params
            .iter()
            .any(|m| m.contains("expected a parameter after `,`")),
        "{params:?}"
    );
    let args = errors("control c(inout bit<8> x) { apply { f(1, x,); } }");
    assert!(
        args.iter()
            .any(|m| m.contains("expected an argument after `,`")),
        "{args:?}"
    );
    parse_ok("enum E { A, B, } const tuple<bit<8>> t = { 1, }; @a(2, 3,) control c(inout bit<8> x) { apply { f(1, x); } }");
}

#[test]
fn a_declaration_is_not_a_statement_body() {
    let (_, diags) = parse_str("control c() { apply { if (true) bit<8> v = 1; } }");
    let messages: Vec<_> = diags.errors().map(|d| d.message.clone()).collect();
    assert!(
        messages
            .iter()
            .any(|m| m.contains("cannot be the body of `if`")),
        "{messages:?}"
    );
    parse_ok("control c() { apply { if (true) { bit<8> v = 1; } else ; for (bit<8> i in 1 .. 2) x = i; } }");
}

#[test]
fn enum_error_and_match_kind_lists_are_not_empty() {
    for src in [
        "enum E {}",
        "enum bit<8> E { }",
        "error { }",
        "match_kind {}",
    ] {
        let (_, diags) = parse_str(src);
        let messages: Vec<_> = diags.errors().map(|d| d.message.clone()).collect();
        assert!(
            messages.iter().any(|m| m == "expected a member, found `}`"),
            "{src}: {messages:?}"
        );
    }
    parse_ok("enum E { A, } enum bit<8> F { B = 1 } error { X } match_kind { y, }");
}
