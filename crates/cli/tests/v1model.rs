//! v1model programs of our own (`tests/v1model`), each with an STF
//! written to break BMv2's behaviour where p4bpf could differ: parser
//! errors reaching ingress, the drop port in ingress and in egress, the
//! default egress_spec, egress_port in egress. Every script runs at XDP
//! and TC, in user space (needs clang) and in the kernel (needs BPF).

mod common;

use std::path::{Path, PathBuf};

fn scripts(folder: &str) -> Vec<PathBuf> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(folder)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    scripts.retain(|p| p.extension().is_some_and(|e| e == "stf"));
    scripts.sort();
    scripts
}

/// Runs every script at both hooks on `target`; the failures' output.
fn failures(target: &str) -> Vec<String> {
    failures_in("tests/v1model", target)
}

fn failures_in(folder: &str, target: &str) -> Vec<String> {
    let mut failures = vec![];
    let scripts = scripts(folder);
    assert!(!scripts.is_empty(), "no scripts in {folder}");
    for script in &scripts {
        let program = script.with_extension("p4");
        for hook in ["xdp", "tc"] {
            let out = common::p4bpf(&[
                "test",
                &program.to_string_lossy(),
                &script.to_string_lossy(),
                "--target",
                target,
                "--hook",
                hook,
            ]);
            if !out.status.success() {
                failures.push(format!(
                    "{} at {hook}:\n{}{}",
                    script.display(),
                    common::stdout(&out),
                    common::stderr(&out)
                ));
            }
        }
    }
    failures
}

#[test]
fn v1model_scripts_pass_in_user_space() {
    if std::process::Command::new("clang")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("SKIPPED v1model_scripts_pass_in_user_space: clang is not installed");
        return;
    }
    let failures = failures("user");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn v1model_scripts_pass_in_the_kernel() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED v1model_scripts_pass_in_the_kernel: {why}");
        return;
    }
    let failures = failures("kernel");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Scripts of `tests/v1model/user` (frames shorter than an Ethernet header,
/// which the kernel refuses): user space, both hooks.
#[test]
fn user_only_scripts_pass_in_user_space() {
    if std::process::Command::new("clang")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("SKIPPED user_only_scripts_pass_in_user_space: clang is not installed");
        return;
    }
    let failures = failures_in("tests/v1model/user", "user");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
