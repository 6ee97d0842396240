//! PSA programs that combine resubmission, recirculation and copies in
//! orders of their own (`tests/copies2/NAME.p4` with `NAME.stf`, expected
//! packets derived from the PSA 1.2 specification): recirculate, then
//! clone and resubmit, then leave; clone and resubmit, then recirculate;
//! multicast and resubmit (resubmit wins), then multicast; an E2E clone
//! on the way round a recirculation; v1model's I2E clone in a pass that
//! resubmits and multicasts from recirculated and resubmitted passes
//! (BMv2's values). Each script passes, packet for
//! packet and byte for byte, at kernel TC, kernel XDP and on the user
//! target, so the three give the same output; each program loads as a
//! pinned pipeline at both hooks, under the verifier's limit (the copies'
//! member loops are global functions there, `emit/pass_copies.rs`).
//! Skips, saying why, without root/BPF or clang.

mod common;

use std::path::{Path, PathBuf};

/// Program stem and the packets its script checks.
const PROGRAMS: [(&str, usize); 3] = [
    ("recirc_clone_resubmit", 3),
    ("resubmit_multicast_e2e", 2),
    ("v1model_passes_copies", 3),
];

/// The targets every script passes on.
const TARGETS: [[&str; 4]; 3] = [
    ["--target", "kernel", "--hook", "tc"],
    ["--target", "kernel", "--hook", "xdp"],
    ["--target", "user", "--hook", "tc"],
];

fn own(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/copies2")
        .join(name)
}

/// `p4bpf test` of program `stem` with script `script` at `target`:
/// whether it succeeded, and all it said.
fn run_script(stem: &str, script: &str, target: [&str; 4]) -> (bool, String) {
    let (p4, stf) = (own(&format!("{stem}.p4")), own(&format!("{script}.stf")));
    let mut args = vec![
        "test",
        p4.to_str().unwrap_or_default(),
        stf.to_str().unwrap_or_default(),
    ];
    args.extend_from_slice(&target);
    let out = common::p4bpf(&args);
    (
        out.status.success(),
        common::stdout(&out) + &common::stderr(&out),
    )
}

#[test]
fn copies2_programs_pass_their_scripts_at_kernel_tc_xdp_and_user() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED copies2 scripts: {why}");
        return;
    }
    let mut problems = vec![];
    for (stem, packets) in PROGRAMS {
        for target in TARGETS {
            let (passed, text) = run_script(stem, stem, target);
            let summary = format!("PASS: {packets} packets, 0 failure(s)");
            if !passed || !text.contains(&summary) {
                problems.push(format!("{stem} at {}:\n{text}", target.join(" ")));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// A documented XDP gap (ARCHITECTURE.md, copies at XDP): an earlier
/// pass's E2E clone of a packet a later pass multicasts is not made.
/// TC makes it; XDP, kernel and user alike, misses that one packet only.
#[test]
fn copies2_e2e_clone_before_a_multicast_pass_is_made_at_tc_only() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED copies2 gap: {why}");
        return;
    }
    let (stem, script) = ("resubmit_multicast_e2e", "resubmit_multicast_e2e_gap");
    let mut problems = vec![];
    for target in TARGETS {
        let (passed, text) = run_script(stem, script, target);
        let at_xdp = target.contains(&"xdp");
        let missing = "expect (resubmit_multicast_e2e_gap.stf:24) port 5: FAIL, no packet came out";
        let as_documented = match at_xdp {
            true => !passed && text.contains(missing) && text.contains("1 failure(s)"),
            false => passed && text.contains("PASS: 1 packets, 0 failure(s)"),
        };
        if !as_documented {
            problems.push(format!("{script} at {}:\n{text}", target.join(" ")));
        }
    }
    let (passed, text) = run_script(stem, script, ["--target", "user", "--hook", "xdp"]);
    if passed || !text.contains("1 failure(s)") {
        problems.push(format!("{script} at user xdp (the gap fixed?):\n{text}"));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// Compiles `stem` for `hook`, loads it pinned under a name of its own,
/// unloads it: a problem if any step fails.
fn load(stem: &str, hook: &str) -> Option<String> {
    let dir = common::scratch_dir(&format!("copies2_{stem}_{hook}"));
    let p4 = own(&format!("{stem}.p4"));
    let out_dir = dir.to_string_lossy().into_owned();
    let p4 = p4.to_str().unwrap_or_default();
    let compiled = common::p4bpf(&["compile", p4, "--hook", hook, "-o", &out_dir]);
    if !compiled.status.success() {
        return Some(format!(
            "{stem} does not compile at {hook}:\n{}",
            common::stderr(&compiled)
        ));
    }
    let object = dir.join(format!("{stem}.o"));
    let name = format!("copies2-{}-{stem}-{hook}", std::process::id());
    let object = object.to_str().unwrap_or_default();
    let loaded = common::p4bpf(&["pipeline", "load", object, "--name", &name, "--hook", hook]);
    if !loaded.status.success() {
        return Some(format!(
            "{stem} does not load at {hook}:\n{}",
            common::stderr(&loaded)
        ));
    }
    let unloaded = common::p4bpf(&["pipeline", "unload", &name]);
    (!unloaded.status.success()).then(|| {
        format!(
            "{stem} at {hook} does not unload:\n{}",
            common::stderr(&unloaded)
        )
    })
}

#[test]
fn copies2_programs_load_as_pipelines_at_both_hooks() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED copies2 loads: {why}");
        return;
    }
    let problems: Vec<String> = PROGRAMS
        .iter()
        .flat_map(|(stem, _)| ["tc", "xdp"].map(|hook| load(stem, hook)))
        .flatten()
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
