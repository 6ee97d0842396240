//! Every `*_ebpf*.stf` of the reference corpus, run by `p4bpf test` against
//! its program compiled for XDP and for TC. Skips, saying why, without the
//! corpus, root/BPF or clang.

mod common;

use std::process::Command;

#[test]
fn corpus_ebpf_stf_files_pass_at_xdp_and_tc() {
    let Some(entries) = common::corpus_dir().and_then(|c| std::fs::read_dir(c.join("p4_16_samples")).ok()) else {
        eprintln!("SKIPPED corpus_ebpf_stf_files_pass_at_xdp_and_tc: ../shared/corpus/p4c is absent");
        return;
    };
    if let Err(why) = p4bpf_runtime::check_bpf_available() {
        eprintln!("SKIPPED corpus_ebpf_stf_files_pass_at_xdp_and_tc: {why}");
        return;
    }
    if Command::new("clang").arg("--version").output().is_err() {
        eprintln!("SKIPPED corpus_ebpf_stf_files_pass_at_xdp_and_tc: clang is not installed");
        return;
    }
    let mut scripts: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.contains("_ebpf") && n.ends_with(".stf")))
        .collect();
    scripts.sort();
    let mut failures = Vec::new();
    for script in &scripts {
        let program = script.with_extension("p4");
        for hook in ["xdp", "tc"] {
            let run = Command::new(env!("CARGO_BIN_EXE_p4bpf"))
                .arg("test")
                .arg(&program)
                .arg(script)
                .args(["--target", "kernel", "--hook", hook])
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
    assert!(!scripts.is_empty());
    assert!(failures.is_empty(), "{} of {} runs failed:\n{}", failures.len(), scripts.len() * 2, failures.join("\n"));
}
