//! PNA end to end: every STF of the reference corpus's `p4tc_samples_stf`
//! against its program (the `.p4` whose name is the longest prefix of the
//! script's: `routing_default.stf` tests `routing.p4`) on the kernel target
//! at TC and XDP and on the user target; and every `p4tc_samples` program
//! that compiles loads at TC and XDP. Skips, saying why, without the
//! corpus, root/BPF or clang.
//!
//! [`KNOWN_GAPS`] lists what does not pass yet and why; each entry is
//! checked to still fail for its stated reason, so a fix shows up here as
//! a failure asking to remove the entry.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// (program stem, text its failing runs print): none left.
const KNOWN_GAPS: &[(&str, &str)] = &[];

/// The files of `dir` whose names end with `suffix`, sorted.
fn files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    common::files_where(dir, |name| name.ends_with(suffix))
}

/// The program `script` tests: the longest program stem its stem starts with.
fn program_of(script: &Path, programs: &[PathBuf]) -> Option<PathBuf> {
    let stem = |p: &Path| p.file_stem()?.to_str().map(str::to_string);
    let wanted = stem(script)?;
    programs
        .iter()
        .filter(|p| stem(p).is_some_and(|s| wanted.starts_with(&s)))
        .max_by_key(|p| stem(p).map(|s| s.len()))
        .cloned()
}

fn run(args: &[&std::ffi::OsStr]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_p4bpf"))
        .args(args)
        .output()
        .expect("p4bpf runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn corpus_p4tc_stf_files_pass_on_kernel_and_user_targets() {
    let Some(corpus) = common::corpus_dir() else {
        eprintln!("SKIPPED corpus_p4tc_stf_files: ../shared/corpus/p4c is absent");
        return;
    };
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED corpus_p4tc_stf_files: {why}");
        return;
    }
    let dir = corpus.join("p4tc_samples_stf");
    let programs = files(&dir, ".p4");
    let scripts = files(&dir, ".stf");
    assert!(!scripts.is_empty(), "no STF files in {}", dir.display());
    let targets: [&[&str]; 3] = [
        &["--target", "kernel", "--hook", "tc"],
        &["--target", "kernel", "--hook", "xdp"],
        &["--target", "user", "--hook", "tc"],
    ];
    let mut tally = common::GapTally::default();
    for script in &scripts {
        let Some(program) = program_of(script, &programs) else {
            tally
                .problems
                .push(format!("no program for {}", script.display()));
            continue;
        };
        let stem = program.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let mut outputs = vec![];
        for target in targets {
            let mut args = vec!["test".as_ref(), program.as_os_str(), script.as_os_str()];
            args.extend(target.iter().map(std::ffi::OsStr::new));
            let (ok, text) = run(&args);
            outputs.push((ok, target.join(" "), text));
        }
        tally.judge(stem, &outputs, KNOWN_GAPS);
    }
    let (passed, problems) = (tally.passed, tally.problems);
    eprintln!(
        "{passed} p4tc STF files pass on all targets; {} known gaps",
        KNOWN_GAPS.len()
    );
    assert!(passed >= 4, "only {passed} p4tc STF files pass");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn corpus_p4tc_programs_that_compile_load_at_tc_and_xdp() {
    let Some(corpus) = common::corpus_dir() else {
        eprintln!("SKIPPED corpus_p4tc_programs_load: ../shared/corpus/p4c is absent");
        return;
    };
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED corpus_p4tc_programs_load: {why}");
        return;
    }
    let (mut loaded, mut problems) = (0, vec![]);
    for program in files(&corpus.join("p4tc_samples"), ".p4") {
        let stem = program.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        for hook in ["tc", "xdp"] {
            let out_dir = std::env::temp_dir().join(format!(
                "p4bpf-pna-load-{}-{stem}-{hook}",
                std::process::id()
            ));
            let (compiled, _) = run(&[
                "compile".as_ref(),
                program.as_os_str(),
                "-o".as_ref(),
                out_dir.as_os_str(),
                "--hook".as_ref(),
                hook.as_ref(),
            ]);
            if !compiled {
                // Refusals are counted in conformance/pna.md.
                let _ = std::fs::remove_dir_all(&out_dir);
                continue;
            }
            let name = format!(
                "pna{}-{}-{hook}",
                std::process::id(),
                loaded + problems.len()
            );
            let object = out_dir.join(format!("{stem}.o"));
            let (ok, text) = run(&[
                "pipeline".as_ref(),
                "load".as_ref(),
                object.as_os_str(),
                "--name".as_ref(),
                name.as_ref(),
                "--hook".as_ref(),
                hook.as_ref(),
            ]);
            if ok {
                let _ = run(&["pipeline".as_ref(), "unload".as_ref(), name.as_ref()]);
                loaded += 1;
            } else {
                problems.push(format!("{stem} at {hook}:\n{text}"));
            }
            let _ = std::fs::remove_dir_all(&out_dir);
        }
    }
    eprintln!("{loaded} p4tc objects loaded");
    assert!(loaded >= 60, "only {loaded} p4tc objects loaded");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
