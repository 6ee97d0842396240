//! `pipeline load` takes every object `compile` writes: each corpus program
//! that compiles is compiled for XDP and for TC, and each object is loaded
//! with `p4bpf pipeline load` under a name of its own, then unloaded.
//! Programs `compile` refuses are counted, not judged (other tests own
//! what compiles). Skips, saying why, without the corpus, root/BPF or clang.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Folders of whole programs (the others hold error cases or fragments).
const PROGRAM_FOLDERS: [&str; 4] = [
    "p4_16_samples",
    "psa-ebpf",
    "psa-ebpf-examples",
    "p4tc_samples",
];

/// (program file, text of its refusal): compiled objects the verifier is
/// known to refuse. corpus_ubpf's `LOAD_GAPS` checks each still fails so.
const VERIFIER_GAPS: &[(&str, &str)] = &[
    // At TC: header-stack moves in a loop of 64-byte chunks (conformance/pna.md).
    (
        "pna-dpdk-header-stack-assignment.p4",
        "BPF program is too large",
    ),
    // v1model programs that compile since the v1model architecture and
    // that the verifier refuses: header stacks indexed at run time inside
    // loops, long loops and unrolled parsers (issue 10's report lists them).
    ("`forloop_bmv2", VERIFIER),
    ("`header_stack_ops_bmv2", VERIFIER),
    ("`invalid_hdr_warnings1", VERIFIER),
    ("`parser_unroll_issue3537", VERIFIER),
    ("`parser_unroll_test9", VERIFIER),
    ("`opassign2_bmv2", VERIFIER),
    ("`runtime_index_2_bmv2", VERIFIER),
    ("`ternary2_bmv2", VERIFIER),
    // Compile since sub-parsers: parser loops the verifier cannot bound
    // (a stack's `next` in the per-CPU state, or no stack at all).
    ("`issue1879_bmv2", VERIFIER),
    ("`issue2314_", VERIFIER),
    ("`issue281_", VERIFIER),
    ("`issue561_bmv2", VERIFIER),
    ("`subparser_with_header_stack_bmv2", VERIFIER),
    // Compiles in seconds since inlined controls' parameters name their
    // arguments (midend/alias.rs); the ternary table system_acl's apply
    // function and its bpf_loop probe need, with the stage calling them,
    // 528 bytes of stack at TC and 544 at XDP (the kernel allows 512).
    ("`switch_p4_16_", "combined stack size"),
    // Compiles since InternetChecksum; a table's name is longer than the
    // loader pins maps under (not the verifier: a naming limit to lift).
    ("psa-dpdk-token-too-big.p4", "bad map name"),
];
const VERIFIER: &str = "the kernel verifier rejected program";

/// Whether `why` is the known refusal of one of [`VERIFIER_GAPS`].
fn known_gap(why: &str) -> bool {
    VERIFIER_GAPS
        .iter()
        .any(|(file, reason)| why.contains(file) && why.contains(reason))
}

/// Child processes at once: compiling is clang-bound, loading is quick.
const WORKERS: usize = 3;

/// Seconds one p4bpf command may take. A few corpus programs (switch_p4_16
/// at TC) generate C that clang needs many minutes for: such a program
/// counts as not compiled rather than holding the suite.
const COMMAND_SECONDS: &str = "120";

/// Runs p4bpf under coreutils' `timeout`, which kills the whole process
/// group (clang included) when the time is up.
fn p4bpf(args: &[&str]) -> std::io::Result<Output> {
    Command::new("timeout")
        .args(["-s", "KILL", COMMAND_SECONDS, env!("CARGO_BIN_EXE_p4bpf")])
        .args(args)
        .output()
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// What happened to one program at one hook.
enum Outcome {
    NotCompiled,
    Loaded,
    Refused(String),
}

/// Compiles `program` for `hook` into `dir` and loads the object as
/// pipeline `name`, unloading it again.
fn compile_and_load(program: &Path, hook: &str, dir: &Path, name: &str) -> Outcome {
    let dir_text = dir.to_string_lossy();
    let program_text = program.to_string_lossy();
    let compiled = p4bpf(&["compile", &program_text, "-o", &dir_text, "--hook", hook]);
    if !compiled.is_ok_and(|out| out.status.success()) {
        return Outcome::NotCompiled;
    }
    let object = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "o"));
    let Some(object) = object else {
        return Outcome::Refused(format!("{program_text} at {hook}: compile wrote no object"));
    };
    let loaded = p4bpf(&[
        "pipeline",
        "load",
        &object.to_string_lossy(),
        "--name",
        name,
    ]);
    let outcome = match loaded {
        Ok(out) if out.status.success() => Outcome::Loaded,
        Ok(out) => Outcome::Refused(format!("{program_text} at {hook}:\n{}", text(&out))),
        Err(e) => Outcome::Refused(format!("{program_text}: cannot run p4bpf: {e}")),
    };
    if matches!(outcome, Outcome::Loaded) {
        if let Ok(out) = p4bpf(&["pipeline", "unload", name]) {
            if !out.status.success() {
                return Outcome::Refused(format!("unloading {name}:\n{}", text(&out)));
            }
        }
    }
    outcome
}

fn programs(corpus: &Path) -> Vec<PathBuf> {
    let mut all: Vec<PathBuf> = PROGRAM_FOLDERS
        .iter()
        .flat_map(|folder| std::fs::read_dir(corpus.join(folder)).into_iter().flatten())
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "p4"))
        .collect();
    all.sort();
    all
}

#[test]
fn every_compiled_corpus_object_loads_at_xdp_and_tc() {
    let Some(corpus) = common::corpus_dir() else {
        eprintln!("SKIPPED every_compiled_corpus_object_loads: ../shared/corpus/p4c is absent");
        return;
    };
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED every_compiled_corpus_object_loads: {why}");
        return;
    }
    let programs = programs(&corpus);
    let scratch = common::scratch_dir("corpus_load");
    let next = AtomicUsize::new(0);
    let loaded = AtomicUsize::new(0);
    let refused = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..WORKERS {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(program) = programs.get(i) else {
                    break;
                };
                for hook in ["xdp", "tc"] {
                    let dir = scratch.join(format!("{i}_{hook}"));
                    let name = format!("corpus{}_{i}_{hook}", std::process::id());
                    match compile_and_load(program, hook, &dir, &name) {
                        Outcome::NotCompiled => {}
                        Outcome::Loaded => {
                            loaded.fetch_add(1, Ordering::Relaxed);
                        }
                        Outcome::Refused(why) if known_gap(&why) => {}
                        Outcome::Refused(why) => {
                            if let Ok(mut list) = refused.lock() {
                                list.push(why);
                            }
                        }
                    }
                    let _ = std::fs::remove_dir_all(&dir);
                }
            });
        }
    });
    let refused = refused.into_inner().unwrap_or_default();
    let loaded = loaded.into_inner();
    eprintln!(
        "{loaded} objects of {} corpus programs loaded at XDP and TC",
        programs.len()
    );
    assert!(loaded > 0, "no corpus program compiled");
    assert!(
        refused.is_empty(),
        "{} compiled objects were not loaded:\n{}",
        refused.len(),
        refused.join("\n")
    );
}
