//! Whole-preprocessor tests: text in, translation unit and diagnostics out.

use super::preprocess;
use crate::diag::{Diagnostics, Severity};
use crate::source::{SourceMap, Span, TranslationUnit};
use crate::Options;
use std::path::{Path, PathBuf};

struct Run {
    unit: TranslationUnit,
    sources: SourceMap,
    diags: Diagnostics,
}

impl Run {
    /// The output with runs of whitespace squeezed, for comparisons.
    fn words(&self) -> String {
        self.unit
            .text
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn messages(&self, severity: Severity) -> Vec<String> {
        self.diags
            .list
            .iter()
            .filter(|d| d.severity == severity)
            .map(|d| d.message.clone())
            .collect()
    }

    fn errors(&self) -> Vec<String> {
        self.messages(Severity::Error)
    }

    /// `file:line:col` of the first error.
    fn first_error_at(&self) -> Option<String> {
        self.diags
            .errors()
            .next()
            .and_then(|d| d.position(&self.sources))
    }

    /// `file:line:col` where the `n`th occurrence of `needle` in the output
    /// came from.
    fn origin_of(&self, needle: &str, n: usize) -> Option<String> {
        let at = self.unit.text.match_indices(needle).nth(n)?.0 as u32;
        let loc = self.unit.resolve(Span::new(at, at + needle.len() as u32))?;
        let file = self.sources.file(loc.file);
        let (line, col) = file.line_col(loc.lo);
        Some(format!("{}:{line}:{col}", file.path.display()))
    }
}

fn run_with(path: &Path, text: &str, options: &Options) -> Run {
    let mut sources = SourceMap::new();
    let mut diags = Diagnostics::default();
    let unit = preprocess(path, text, options, &mut sources, &mut diags);
    Run {
        unit,
        sources,
        diags,
    }
}

fn run(text: &str) -> Run {
    run_with(Path::new("main.p4"), text, &Options::default())
}

/// A fresh temporary folder holding `files`, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str, files: &[(&str, &str)]) -> TempDir {
        let dir = std::env::temp_dir().join(format!("p4bpf-pp-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (name, text) in files {
            let path = dir.join(name);
            if let Some(parent) = path.parent() {
                let _ = std::fs::create_dir_all(parent);
            }
            let _ = std::fs::write(path, text);
        }
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn plain_text_is_copied_exactly() {
    let text = "control c() {\n  apply { /* # not a directive */ }\n}\n";
    let r = run(text);
    assert_eq!(r.unit.text, text);
    assert_eq!(r.unit.segments.len(), 1);
}

#[test]
fn object_and_function_macros_expand() {
    let r = run("#define W 8\n#define F(a, b) (a + \\\n b)\nbit<W> x = F(1, W);\n");
    assert_eq!(r.words(), "bit<8> x = (1 + 8);");
    assert!(r.errors().is_empty());
}

#[test]
fn a_token_after_an_expansion_keeps_its_true_column() {
    let r = run("#define WIDTH 16\nbit<WIDTH> field; bad\n");
    assert_eq!(r.origin_of("bad", 0).as_deref(), Some("main.p4:2:19"));
    assert_eq!(r.origin_of("16", 0).as_deref(), Some("main.p4:2:5"));
    assert_eq!(r.origin_of("field", 0).as_deref(), Some("main.p4:2:12"));
    let twice = run("#define W 8\nbit<W> a; bit<W> b;\n");
    assert_eq!(twice.origin_of("8", 1).as_deref(), Some("main.p4:2:15"));
    assert_eq!(twice.origin_of("b;", 0).as_deref(), Some("main.p4:2:18"));
}

#[test]
fn arguments_may_span_lines_and_the_rest_of_the_line_stays_exact() {
    let r = run("#define F(x) x\nF(\n a\n) zz\n");
    assert_eq!(r.words(), "a zz");
    assert_eq!(r.origin_of("zz", 0).as_deref(), Some("main.p4:4:3"));
}

#[test]
fn nothing_expands_in_comments_or_strings() {
    let r = run("#define X 1\n// X\n/* X\n#define X 2 */ \"X\" X\n");
    assert!(r.unit.text.contains("// X"));
    assert!(r.unit.text.contains("\"X\" 1"));
    assert!(r.errors().is_empty());
}

#[test]
fn function_macro_name_without_arguments_is_left_alone() {
    let r = run("#define F(x) x\nF + F\n");
    assert_eq!(r.words(), "F + F");
}

#[test]
fn nested_conditionals_pick_the_right_groups() {
    let r = run(concat!(
        "#define A 1\n",
        "#if A\n",
        "#ifdef B\nwrong1\n#elif defined(A) && !defined B\nright1\n#else\nwrong2\n#endif\n",
        "#else\n",
        "#if 1/0\n#endif\nwrong3\n",
        "#endif\n",
        "#ifndef B\nright2\n#endif\n",
    ));
    assert_eq!(r.words(), "right1 right2");
    assert!(r.errors().is_empty(), "{:?}", r.errors());
}

#[test]
fn if_arithmetic_with_macros() {
    let r = run(concat!(
        "#define VERSION 20200408\n",
        "#if VERSION >= 20200408 && (VERSION % 100) == 8\nnew\n#else\nold\n#endif\n",
        "#if UNDEFINED_NAME || -1 > 0\nno\n#elif 2 * 3 == 6 ? 1 : 0\nyes\n#endif\n",
    ));
    assert_eq!(r.words(), "new yes");
}

#[test]
fn command_line_defines_are_predefined() {
    let options = Options {
        defines: vec![("PORT0".into(), "2".into())],
        ..Options::default()
    };
    let r = run_with(
        Path::new("main.p4"),
        "#ifdef PORT0\nport = PORT0;\n#endif\n",
        &options,
    );
    assert_eq!(r.words(), "port = 2;");
}

#[test]
fn conditional_errors_are_located() {
    let r = run("#if 1\n#else\n#else\n#endif\n#endif\n#elif 1\n#ifdef\n#endif\n#if 1\n");
    assert_eq!(
        r.errors(),
        vec![
            "`#else` after `#else`",
            "`#endif` without `#if`",
            "`#elif` without `#if`",
            "`#ifdef` needs a macro name",
            "`#if` without matching `#endif`",
        ]
    );
    assert_eq!(r.first_error_at().as_deref(), Some("main.p4:3:1"));
}

#[test]
fn error_warning_and_unknown_directives() {
    let r = run(
        "#error stop here\n#warning careful\n#frobnicate\n#if 0\n#frobnicate\n#error no\n#endif\n",
    );
    assert_eq!(
        r.errors(),
        vec!["#error stop here", "unknown directive `#frobnicate`"]
    );
    assert_eq!(r.messages(Severity::Warning), vec!["#warning careful"]);
}

#[test]
fn no_hash_line_reaches_the_lexer() {
    let r = run("#pragma once\n#pragma something\n#\nx\n");
    assert_eq!(r.words(), "x");
    assert!(r.errors().is_empty());
}

#[test]
fn includes_search_the_folder_then_dash_i_then_builtins() {
    let dir = TempDir::new(
        "search",
        &[
            ("src/main.p4", ""),
            ("src/local.h", "local\n"),
            ("inc/lib.h", "#include \"sub/deeper.h\"\nlib\n"),
            ("inc/sub/deeper.h", "deeper\n"),
        ],
    );
    let options = Options {
        include_dirs: vec![dir.0.join("inc")],
        ..Options::default()
    };
    let main = dir.0.join("src/main.p4");
    let r = run_with(
        &main,
        "#include \"local.h\"\n#include <lib.h>\n#include <core.p4>\nend\n",
        &options,
    );
    assert!(r.errors().is_empty(), "{:?}", r.errors());
    assert!(r.words().starts_with("local deeper lib"));
    assert!(r.words().ends_with("end"));
    let core = r.sources.find(Path::new("p4include/core.p4"));
    assert!(core.is_some_and(|id| r.sources.file(id).builtin));
    let deeper = r.origin_of("deeper", 0).unwrap_or_default();
    assert!(deeper.ends_with("inc/sub/deeper.h:1:1"), "{deeper}");
}

#[test]
fn include_guards_stop_double_inclusion() {
    let dir = TempDir::new(
        "guards",
        &[("g.h", "#ifndef G_H\n#define G_H\nonce\n#endif\n")],
    );
    let main = dir.0.join("main.p4");
    let r = run_with(
        &main,
        "#include \"g.h\"\n#include \"g.h\"\n",
        &Options::default(),
    );
    assert_eq!(r.words(), "once");
}

#[test]
fn include_cycles_and_missing_files_are_errors() {
    let dir = TempDir::new("cycle", &[("a.h", "#include \"a.h\"\n")]);
    let main = dir.0.join("main.p4");
    let r = run_with(
        &main,
        "#include \"a.h\"\n#include \"nope.p4\"\n",
        &Options::default(),
    );
    assert_eq!(r.errors().len(), 2);
    assert!(r.errors()[0].contains("nested more than"));
    assert_eq!(r.errors()[1], "cannot find include file `nope.p4`");
    let missing = r
        .diags
        .errors()
        .nth(1)
        .map(|d| d.render(&r.sources))
        .unwrap_or_default();
    assert!(missing.contains("main.p4:2:1: error"), "{missing}");
    assert!(missing.contains("note: searched"), "{missing}");
}

#[test]
fn unguarded_self_inclusion_ends_quickly() {
    let dir = TempDir::new("fork", &[("a.h", "#include \"a.h\"\n#include \"a.h\"\n")]);
    let main = dir.0.join("main.p4");
    let r = run_with(&main, "#include \"a.h\"\n", &Options::default());
    assert!(r.diags.has_errors());
}

#[test]
fn line_directive_renames_and_renumbers() {
    let r = run("a\n#line 30 \"other.p4\"\nb c\n");
    assert_eq!(r.origin_of("c", 0).as_deref(), Some("other.p4:30:3"));
    assert_eq!(r.origin_of("a", 0).as_deref(), Some("main.p4:1:1"));
}

#[test]
fn runaway_expansion_is_an_error_not_a_hang() {
    let mut text = String::from("#define A0 x x x x\n");
    for i in 1..30 {
        text.push_str(&format!("#define A{i} A{p} A{p} A{p} A{p}\n", p = i - 1));
    }
    text.push_str("A29\n");
    let r = run(&text);
    assert!(r.diags.has_errors());
    assert!(r.unit.text.len() <= super::output::MAX_OUTPUT);
}

#[test]
fn unterminated_invocation_is_an_error() {
    let r = run("#define F(x) x\nF(1, \n#define G\n");
    assert_eq!(
        r.errors(),
        vec!["unterminated argument list invoking macro `F`"]
    );
}

#[test]
fn errors_inside_builtin_files_are_reported_at_the_include() {
    // A macro of the program's that breaks a line of core.p4.
    let options = Options {
        defines: vec![("verify()".into(), String::new())],
        ..Options::default()
    };
    let r = run_with(Path::new("main.p4"), "\n#include <core.p4>\n", &options);
    let core_calls_verify =
        crate::p4include::find("core.p4").is_some_and(|t| t.contains("verify("));
    assert_eq!(r.diags.has_errors(), core_calls_verify);
    for d in r.diags.errors() {
        assert_eq!(d.position(&r.sources).as_deref(), Some("main.p4:2:1"));
        assert!(d.notes.first().is_some_and(|n| n.loc.is_some()));
    }
}

#[test]
fn defined_may_come_from_a_macro() {
    let r = run("#define X\n#define HAS_X defined(X)\n#if HAS_X && !defined Y\nyes\n#endif\n");
    assert_eq!(r.words(), "yes");
    assert!(r.errors().is_empty(), "{:?}", r.errors());
}

#[test]
fn if_expression_errors_point_at_the_expression() {
    let r = run("#if 1 +\n#endif\n#if 8w1\n#endif\n");
    assert_eq!(
        r.errors(),
        vec![
            "missing operand at the end of #if expression",
            "invalid integer `8w1` in #if expression"
        ]
    );
    assert_eq!(r.first_error_at().as_deref(), Some("main.p4:1:5"));
}

#[test]
fn gnu_line_markers_of_preprocessed_files_are_accepted() {
    let r = run("# 1 \"prog.p4\"\n# 0 \"<built-in>\"\n# 7 \"prog.p4\" 2\nx y\n# 3 \"bad\" z\n");
    assert_eq!(r.origin_of("y", 0).as_deref(), Some("prog.p4:7:3"));
    assert_eq!(
        r.errors(),
        vec!["`#line` expects a line number and an optional \"FILE\""]
    );
}

#[test]
fn file_and_line_name_the_invocation() {
    let r = run("#define HERE __FILE__ __LINE__\nx\nHERE\n#line 40 \"renamed.p4\"\n__LINE__\n");
    assert_eq!(r.words(), "x \"main.p4\" 3 40");
}
