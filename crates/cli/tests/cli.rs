//! The `p4bpf` command line as users see it: exit statuses, usage errors,
//! `-I`/`-D` in both spellings, help.

mod common;

use common::{p4bpf, p4bpf_in, scratch_dir, stderr, stdout, write};

const VALID: &str = "#include <core.p4>\nconst bit<8> X = 1;\n";

#[test]
fn no_arguments_prints_usage_and_exits_2() {
    let out = p4bpf(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("usage: p4bpf COMMAND"));
}

#[test]
fn unknown_commands_and_options_are_usage_errors() {
    for args in [
        &["frobnicate"][..],
        &["check"],
        &["check", "a.p4", "b.p4"],
        &["check", "a.p4", "-I"],
        &["check", "a.p4", "--no-such-option"],
        &["check", "a.p4", "-D", "1BAD"],
        &["conformance", "--jobs", "0"],
        &["help", "frobnicate"],
    ] {
        let out = p4bpf(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&out).starts_with("p4bpf: error: "),
            "{args:?}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn help_is_available_three_ways() {
    for args in [
        &["--help"][..],
        &["help"],
        &["help", "check"],
        &["check", "--help"],
        &["conformance", "-h"],
        &["help", "compile"],
        &["help", "test"],
        &["test", "--help"],
    ] {
        let out = p4bpf(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(stdout(&out).contains("usage: p4bpf"), "{args:?}");
    }
    assert!(stdout(&p4bpf(&["help", "check"])).contains("-I DIR"));
}

#[test]
fn a_missing_file_is_an_error_not_a_usage_error() {
    let out = p4bpf(&["check", "no/such/file.p4"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no/such/file.p4"), "{}", stderr(&out));
}

#[test]
fn a_valid_program_exits_0_with_a_summary() {
    let dir = scratch_dir("valid_program");
    write(&dir, "ok.p4", VALID);
    let out = p4bpf_in(&dir, &["check", "ok.p4"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("ok.p4: no errors."),
        "{}",
        stdout(&out)
    );
}

#[test]
fn defines_reach_the_preprocessor_in_both_spellings() {
    let dir = scratch_dir("defines");
    write(
        &dir,
        "needs_flag.p4",
        &format!("#ifndef FLAG\n#error FLAG is not defined\n#endif\n{VALID}"),
    );
    let without = p4bpf_in(&dir, &["check", "needs_flag.p4"]);
    assert_eq!(without.status.code(), Some(1));
    assert!(
        stderr(&without).contains("FLAG is not defined"),
        "{}",
        stderr(&without)
    );
    for args in [
        &["-DFLAG"][..],
        &["-D", "FLAG"],
        &["-DFLAG=7"],
        &["-D", "FLAG=7"],
    ] {
        let out = p4bpf_in(&dir, &[&["check", "needs_flag.p4"][..], args].concat());
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn include_dirs_are_searched_in_both_spellings() {
    let dir = scratch_dir("include_dirs");
    write(&dir, "lib/consts.p4", "const bit<8> Y = 2;\n");
    write(
        &dir,
        "src/main.p4",
        &format!("{VALID}#include \"consts.p4\"\nconst bit<8> Z = Y;\n"),
    );
    let without = p4bpf_in(&dir, &["check", "src/main.p4"]);
    assert_eq!(without.status.code(), Some(1), "found consts.p4 without -I");
    for args in [&["-Ilib"][..], &["-I", "lib"]] {
        let out = p4bpf_in(&dir, &[&["check", "src/main.p4"][..], args].concat());
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn diagnostics_can_be_read_by_tools() {
    let out = p4bpf(&["check", "--diagnostics-format=lines", "no/such/file.p4"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("error\tnone\t-\t"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn conformance_skips_a_missing_corpus() {
    let out = p4bpf(&["conformance", "no/such/corpus"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).contains("skipping conformance"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn conformance_checks_each_program_and_writes_a_report() {
    let dir = scratch_dir("conformance_report");
    write(&dir, "corpus/p4_16_samples/good_ebpf.p4", VALID);
    write(
        &dir,
        "corpus/p4_16_samples/include/fragment.p4",
        "this is not P4",
    );
    write(&dir, "corpus/p4_16_errors/bad.p4", "control {");
    let out = p4bpf_in(
        &dir,
        &[
            "conformance",
            "corpus",
            "--out",
            "report/frontend.md",
            "--jobs",
            "2",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report =
        std::fs::read_to_string(dir.join("report/frontend.md")).expect("the report is written");
    assert!(
        report.contains("| `p4_16_samples` | accepted | 1 | 1 | 100.0% |"),
        "{report}"
    );
    assert!(
        report.contains("| `p4_16_samples/*_ebpf*.p4` | accepted | 1 | 1 |"),
        "{report}"
    );
    assert!(report.contains("| `p4_16_errors` | rejected"), "{report}");
    assert!(!report.contains("fragment.p4"), "{report}");
}

#[test]
fn a_word_that_is_not_utf8_is_a_usage_error() {
    use std::os::unix::ffi::OsStrExt;
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_p4bpf"))
        .arg("check")
        .arg(std::ffi::OsStr::from_bytes(b"\xff.p4"))
        .output()
        .expect("the p4bpf binary runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not valid UTF-8"), "{}", stderr(&out));
}

#[test]
fn table_stats_on_pipeline_commands_that_do_not_compile_is_refused() {
    let out = p4bpf(&["pipeline", "unload", "x", "--table-stats"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--table-stats goes with `pipeline load`"));
    let out = p4bpf(&["pipeline", "load", "x.o", "--name", "x", "--table-stats"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("p4bpf compile --table-stats"),
        "{}",
        stderr(&out)
    );
}
