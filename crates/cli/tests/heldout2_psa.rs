//! A second round of PSA programs written to break p4bpf's design
//! (`tests/heldout2_psa/NAME.p4` with `NAME.stf`, expected packets derived
//! by hand or by independent scripts from the P4_16 and PSA
//! specifications, never copied from p4bpf's output), in shapes neither
//! `heldout_psa` nor the corpus has: control flow through nested
//! controls (`exit` copying out their parameters, `return` in an action,
//! switch on a bit field); tables mixing lpm, ternary, range and optional
//! keys; InternetChecksum state carried from ingress to egress in bridged
//! metadata; hashes of odd-width tuples with a max that is not a power of
//! two; digests of odd widths and a nested struct sent on some paths
//! only; an ActionSelector with groups of 1, 3 and 7 members hashing
//! odd-width keys; parsers with lookahead of a header, advance, verify,
//! stack overflow, a label stack shifted in egress and a header union;
//! resubmission and recirculation carrying odd-width metadata (and a
//! resubmission asked while still dropped); replicas to the ingress
//! port, a truncated clone, a clone to a group session with the original
//! dropped, an E2E clone with its metadata; a colour-aware byte meter
//! pre-coloured by a table, counters of packets and bytes indexed by an
//! expression and direct on an exact table; initial `entries` with
//! written and derived priorities, the smallest winning, keyed on a
//! validity, a ternary bit<12> and an optional bool; one control type
//! applied twice with a header stack, returning, popping, exiting from
//! an action with an inout argument and from a loop. Each runs at
//! kernel TC and XDP and on the user target at TC and XDP, and loads as
//! a pinned pipeline at both hooks; the runs go in parallel. Skips,
//! saying why, without root/BPF or clang.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Program stem and the packets its script checks.
const PROGRAMS: [(&str, usize); 12] = [
    ("flow", 8),
    ("mixed", 7),
    ("checksum", 3),
    ("hashes", 4),
    ("digest", 6),
    ("selector", 17),
    ("parser", 6),
    ("paths", 4),
    ("replicas", 4),
    ("colours", 11),
    ("entries", 4),
    ("subcontrols", 5),
];

const TARGETS: [[&str; 4]; 4] = [
    ["--target", "kernel", "--hook", "tc"],
    ["--target", "kernel", "--hook", "xdp"],
    ["--target", "user", "--hook", "tc"],
    ["--target", "user", "--hook", "xdp"],
];

fn own(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/heldout2_psa")
        .join(name)
}

/// `p4bpf ARGS`: whether it succeeded, and all it said.
fn run(args: &[&str]) -> (bool, String) {
    let out = common::p4bpf(args);
    (
        out.status.success(),
        common::stdout(&out) + &common::stderr(&out),
    )
}

type Job = Box<dyn Fn() -> Option<String> + Send + Sync>;

/// Runs `jobs` on a few threads (the machine is shared), collecting the
/// problems each reports.
fn in_parallel(jobs: Vec<Job>) -> Vec<String> {
    let next = Mutex::new(0usize);
    let problems = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| loop {
                let job = {
                    let mut next = next.lock().unwrap_or_else(|e| e.into_inner());
                    let Some(job) = jobs.get(*next) else { break };
                    *next += 1;
                    job
                };
                if let Some(problem) = job() {
                    problems
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(problem);
                }
            });
        }
    });
    problems.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// One STF run: a problem unless every packet of the script passed.
fn stf_job(stem: &'static str, packets: usize, target: [&'static str; 4]) -> Option<String> {
    let (p4, stf) = (own(&format!("{stem}.p4")), own(&format!("{stem}.stf")));
    let mut args = vec![
        "test",
        p4.to_str().unwrap_or_default(),
        stf.to_str().unwrap_or_default(),
    ];
    args.extend_from_slice(&target);
    let (passed, text) = run(&args);
    let summary = format!("PASS: {packets} packets, 0 failure(s)");
    let at = target.join(" ");
    (!passed || !text.contains(&summary)).then(|| format!("{stem} at {at}:\n{text}"))
}

#[test]
fn heldout2_psa_programs_pass_their_scripts_on_every_target() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED heldout2_psa scripts: {why}");
        return;
    }
    let mut jobs: Vec<Job> = Vec::new();
    for (stem, packets) in PROGRAMS {
        for target in TARGETS {
            jobs.push(Box::new(move || stf_job(stem, packets, target)));
        }
    }
    let problems = in_parallel(jobs);
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// Compiles `stem` for `hook`, loads it pinned under a name of its own,
/// unloads it: a problem if any step fails.
fn load_job(stem: &'static str, hook: &'static str) -> Option<String> {
    let dir = common::scratch_dir(&format!("heldout2_psa_{stem}_{hook}"));
    let p4 = own(&format!("{stem}.p4"));
    let out_dir = dir.to_string_lossy().into_owned();
    let p4 = p4.to_str().unwrap_or_default();
    let (compiled, text) = run(&["compile", p4, "--hook", hook, "-o", &out_dir]);
    if !compiled {
        return Some(format!("{stem} does not compile at {hook}:\n{text}"));
    }
    let object = dir.join(format!("{stem}.o"));
    let name = format!("heldout2{}-{stem}-{hook}", std::process::id());
    let object = object.to_str().unwrap_or_default();
    let (loaded, text) = run(&["pipeline", "load", object, "--name", &name, "--hook", hook]);
    if loaded {
        let (unloaded, text) = run(&["pipeline", "unload", &name]);
        return (!unloaded).then(|| format!("{stem} at {hook} does not unload:\n{text}"));
    }
    Some(format!("{stem} does not load at {hook}:\n{text}"))
}

#[test]
fn heldout2_psa_programs_load_as_pipelines_at_both_hooks() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED heldout2_psa loads: {why}");
        return;
    }
    let mut jobs: Vec<Job> = Vec::new();
    for (stem, _) in PROGRAMS {
        for hook in ["tc", "xdp"] {
            jobs.push(Box::new(move || load_job(stem, hook)));
        }
    }
    let problems = in_parallel(jobs);
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
