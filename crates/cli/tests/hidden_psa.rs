//! PSA shapes found by running p4c's PSA programs that are kept outside
//! the shared corpus, each as a program of our own in `tests/hidden_psa/`
//! with its STF, run at kernel TC and XDP and in user space. Needs root,
//! BPF and clang for the kernel runs; skips saying which.

mod common;

use std::path::{Path, PathBuf};

fn own(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/hidden_psa")
        .join(name)
}

/// `p4bpf test PROGRAM.p4 PROGRAM.stf` on every target: (target, passed, output).
fn run_everywhere(stem: &str) -> Vec<(String, bool, String)> {
    let (p4, stf) = (own(&format!("{stem}.p4")), own(&format!("{stem}.stf")));
    let kernel = common::kernel_unavailable();
    if let Some(why) = &kernel {
        eprintln!("SKIPPED {stem} on the kernel target: {why}");
    }
    let targets = [
        ("kernel", "tc"),
        ("kernel", "xdp"),
        ("user", "tc"),
        ("user", "xdp"),
    ];
    targets
        .iter()
        .filter(|(target, _)| *target == "user" || kernel.is_none())
        .map(|(target, hook)| {
            let out = common::p4bpf(&[
                "test",
                &p4.to_string_lossy(),
                &stf.to_string_lossy(),
                "--target",
                target,
                "--hook",
                hook,
            ]);
            let text = common::stdout(&out) + &common::stderr(&out);
            (format!("{target} {hook}"), out.status.success(), text)
        })
        .collect()
}

/// A counter indexed by 128 bits and a meter indexed by 40 bits: an
/// index in range uses its cell; one past the end uses none, even when
/// its low 32 bits name a cell (p4c's wide-field meter program was
/// refused by the verifier: the wide index reached C as a pointer).
#[test]
fn wide_counter_and_meter_indexes_use_their_cell_or_none_on_every_target() {
    for (target, passed, text) in run_everywhere("wide_index") {
        assert!(
            passed && text.contains("PASS: 5 packets, 0 failure(s)"),
            "{target}:\n{text}"
        );
    }
}

/// Branches that store the same header field into the packet (p4c's
/// programs assign a field in both arms of an if-else): the verifier
/// refused them when clang merged the stores and recomputed the pointer.
#[test]
fn header_stores_in_every_branch_load_and_rewrite_on_every_target() {
    for (target, passed, text) in run_everywhere("branch_stores") {
        assert!(
            passed && text.contains("PASS: 3 packets, 0 failure(s)"),
            "{target}:\n{text}"
        );
    }
}

/// One action storing a header field, run by tables in both arms of an
/// if-else: refused by the verifier like the stores of an if-else.
#[test]
fn an_action_run_by_two_tables_stores_its_field_on_every_target() {
    for (target, passed, text) in run_everywhere("shared_action_store") {
        assert!(
            passed && text.contains("PASS: 4 packets, 0 failure(s)"),
            "{target}:\n{text}"
        );
    }
}
