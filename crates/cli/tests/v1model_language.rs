//! P4_16 language features v1model programs use that compile to nothing
//! or to plain code (`static_assert`, constructor arguments of `main`'s
//! blocks, ...): refusals of what cannot work, named at their place, and
//! the corpus programs that use the features compiling and loading. The
//! features' own behaviour is checked by the scripts of tests/v1model.

mod common;

use std::path::Path;

fn own(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/v1model")
        .join(name)
}

/// Compiles `stem.p4` of tests/v1model with `from` replaced by `to`;
/// asserts the compiler refuses it with `says` at `line:col` of the
/// variant.
fn refused(stem: &str, from: &str, to: &str, says: &str, place: &str) {
    let source = std::fs::read_to_string(own(&format!("{stem}.p4"))).expect("program");
    assert!(source.contains(from), "`{from}` not in {stem}.p4");
    let case = place.replace(':', "_");
    let dir = common::scratch_dir(&format!("v1model_language_{stem}_{case}"));
    let program = common::write(&dir, "variant.p4", &source.replacen(from, to, 1));
    let out_dir = dir.join("out");
    let out = common::p4bpf(&[
        "compile",
        &program.to_string_lossy(),
        "-o",
        &out_dir.to_string_lossy(),
    ]);
    let err = common::stderr(&out);
    assert!(!out.status.success(), "{stem} variant compiled: {to}");
    assert!(err.contains(says), "{stem}: {err}");
    assert!(
        err.contains(&format!("variant.p4:{place}: error")),
        "{stem}: not at {place}: {err}"
    );
}

#[test]
fn a_false_static_assert_is_an_error_with_its_message() {
    refused(
        "static_assert",
        "PORTS < 8, \"ports must fit bit<3>\"",
        "PORTS < 4, \"ports must fit bit<2>\"",
        "static assertion failed: ports must fit bit<2>",
        "9:24",
    );
}

#[test]
fn a_static_assert_of_a_run_time_value_is_refused() {
    refused(
        "static_assert",
        "static_assert(PORTS > 1);",
        "static_assert(type > 1);",
        "`static_assert` needs a condition known at compile time",
        "16:5",
    );
}
