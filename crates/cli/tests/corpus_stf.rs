//! `p4bpf test` end to end: every `*_ebpf*.stf` of the reference corpus and
//! every test of our own (`tests/stf/NAME.p4` + `NAME.stf`), each against its
//! program compiled for XDP and for TC. Skips, saying why, without the
//! corpus, root/BPF or clang.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs every `*.stf` in `folder` whose name passes `wanted` against the
/// `.p4` beside it, at XDP and TC; the failures, with their output.
fn run_folder(folder: &Path, wanted: impl Fn(&str) -> bool) -> (usize, Vec<String>) {
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(folder)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    scripts.retain(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with(".stf") && wanted(n))
    });
    scripts.sort();
    let mut failures = Vec::new();
    let mut runs = 0;
    for script in &scripts {
        let program = script.with_extension("p4");
        for hook in ["xdp", "tc"] {
            runs += 1;
            let run = Command::new(env!("CARGO_BIN_EXE_p4bpf"))
                .arg("test")
                .arg(&program)
                .arg(script)
                .args(["--target", "kernel", "--hook", hook])
                // Written for the reference harness, P4TC programs' too.
                .args(["--stf-reading", "reference"])
                .output();
            match run {
                Ok(out) if out.status.success() => {}
                Ok(out) => failures.push(format!(
                    "{} at {hook}:\n{}{}",
                    script.display(),
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                )),
                Err(e) => failures.push(format!("{}: cannot run p4bpf: {e}", script.display())),
            }
        }
    }
    (runs, failures)
}

#[test]
fn corpus_ebpf_stf_files_pass_at_xdp_and_tc() {
    let Some(corpus) = common::corpus_dir() else {
        eprintln!(
            "SKIPPED corpus_ebpf_stf_files_pass_at_xdp_and_tc: ../shared/corpus/p4c is absent"
        );
        return;
    };
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED corpus_ebpf_stf_files_pass_at_xdp_and_tc: {why}");
        return;
    }
    let (runs, failures) = run_folder(&corpus.join("p4_16_samples"), |name| name.contains("_ebpf"));
    assert!(runs > 0);
    assert!(
        failures.is_empty(),
        "{} of {runs} runs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn own_stf_tests_pass_at_xdp_and_tc() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED own_stf_tests_pass_at_xdp_and_tc: {why}");
        return;
    }
    let (runs, failures) = run_folder(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/stf"),
        |_| true,
    );
    assert!(runs > 0);
    assert!(
        failures.is_empty(),
        "{} of {runs} runs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// `check_counter` against the compiler's counter maps: count_ebpf counts
/// packets per destination address in a sparse CounterArray.
#[test]
fn counters_of_a_compiled_program_are_checked() {
    let Some(corpus) = common::corpus_dir() else {
        eprintln!(
            "SKIPPED counters_of_a_compiled_program_are_checked: ../shared/corpus/p4c is absent"
        );
        return;
    };
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED counters_of_a_compiled_program_are_checked: {why}");
        return;
    }
    let packet =
        "001b1700 0130b881 98b7aeb7 08004500 00344a6f 40004006 53920a01 98453212 c86acf2c 01bbd0fa";
    let script = |count: u32| {
        format!("packet 0 {packet}\nexpect 0 {packet}\npacket 0 {packet}\nexpect 0 {packet}\ncheck_counter pipe_counters(0x3212c86a) packets == {count}\n")
    };
    let dir = std::env::temp_dir().join(format!("p4bpf-counter-test-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let program = corpus.join("p4_16_samples/count_ebpf.p4");
    let run = |count: u32| {
        let stf = dir.join(format!("count{count}.stf"));
        let _ = std::fs::write(&stf, script(count));
        Command::new(env!("CARGO_BIN_EXE_p4bpf"))
            .arg("test")
            .arg(&program)
            .arg(&stf)
            .output()
    };
    let right = run(2).map(|o| {
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
        )
    });
    let wrong = run(3).map(|o| {
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
        )
    });
    let _ = std::fs::remove_dir_all(&dir);
    let (right, wrong) = (right.unwrap_or_default(), wrong.unwrap_or_default());
    assert!(right.0 && right.1.contains("packets 2: ok"), "{}", right.1);
    assert!(
        !wrong.0 && wrong.1.contains("expected packets == 3"),
        "{}",
        wrong.1
    );
}
