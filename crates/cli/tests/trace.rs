//! `p4bpf test --trace`: every packet's trace shows the tables applied
//! with hit or miss and a verdict that agrees with the STF's outcome, on
//! the kernel and user targets; `p4bpf trace` follows a loaded pipeline.

#![allow(clippy::panic)] // a failing test should stop loudly

mod common;

use common::{kernel_unavailable, p4bpf, stdout};
use std::path::{Path, PathBuf};

fn program(folder: &str, name: &str) -> (PathBuf, PathBuf) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(folder);
    (
        dir.join(format!("{name}.p4")),
        dir.join(format!("{name}.stf")),
    )
}

/// The traced report of `name` on `target`, which must pass.
fn traced_run(folder: &str, name: &str, target: &str) -> String {
    let (p4, stf) = program(folder, name);
    let args = [
        Some("test"),
        p4.to_str(),
        stf.to_str(),
        Some("--trace"),
        Some("--target"),
        Some(target),
    ];
    let out = p4bpf(&args.map(|a| a.unwrap_or_default()));
    let text = stdout(&out);
    assert!(
        out.status.success(),
        "{name} on {target}:\n{text}{}",
        common::stderr(&out)
    );
    text
}

/// Each packet line and the trace lines under it.
fn packets(report: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = vec![];
    for line in report.lines() {
        if line.starts_with("packet ") {
            out.push((line.to_string(), vec![]));
        } else if let Some((_, trace)) = out.last_mut().filter(|_| line.starts_with("    ")) {
            trace.push(line.trim().to_string());
        }
    }
    out
}

/// `packet N (...) in port P: VERDICT ...` -> the verdict's words as the
/// trace writes them (`redirect port 7`, `pass`, `drop`).
fn expected_verdict(packet_line: &str) -> String {
    let outcome = packet_line.split(": ").nth(1).unwrap_or_default();
    match outcome.split(' ').collect::<Vec<_>>().as_slice() {
        ["redirect", "to", "port", port] => format!("verdict redirect port {port}"),
        [word, ..] => format!("verdict {word}"),
        [] => String::new(),
    }
}

fn check_every_packet(report: &str, tables: usize) {
    let packets = packets(report);
    assert!(!packets.is_empty(), "no packets in:\n{report}");
    for (line, trace) in &packets {
        let applied: Vec<&String> = trace.iter().filter(|l| l.starts_with("table ")).collect();
        assert!(
            applied
                .iter()
                .all(|l| l.contains("-> hit ->") || l.contains("-> miss ->")),
            "{line}: {trace:?}"
        );
        assert!(applied.len() <= tables, "{line}: {trace:?}");
        let verdict = trace.last().map(String::as_str).unwrap_or_default();
        assert!(
            verdict.starts_with(&expected_verdict(line)),
            "{line}: trace ends `{verdict}`"
        );
        assert!(
            trace
                .first()
                .is_some_and(|l| l.starts_with("parser state ")),
            "{line}: {trace:?}"
        );
    }
}

const STF_PROGRAMS: [(&str, &str, usize); 4] = [
    ("stf", "compile_lpm_redirect", 1),
    ("stf", "split_tables", 4),
    ("stf", "table_actions", 3),
    ("trace", "const_and_reject", 2),
];

#[test]
fn traced_stf_runs_show_tables_and_verdicts_on_both_targets() {
    if let Some(why) = kernel_unavailable() {
        eprintln!("skipped: {why}");
        return;
    }
    for target in ["kernel", "user"] {
        for (folder, name, tables) in STF_PROGRAMS {
            let report = traced_run(folder, name, target);
            check_every_packet(&report, tables);
            // Several tables: each packet of split_tables goes through all four.
            if name == "split_tables" {
                let (_, first) = &packets(&report)[0];
                assert_eq!(
                    first.iter().filter(|l| l.starts_with("table ")).count(),
                    4,
                    "{first:?}"
                );
            }
        }
    }
}

#[test]
fn traces_name_keys_actions_arguments_states_and_parser_errors() {
    if let Some(why) = kernel_unavailable() {
        eprintln!("skipped: {why}");
        return;
    }
    for target in ["kernel", "user"] {
        let lpm = packets(&traced_run("stf", "compile_lpm_redirect", target));
        assert_eq!(
            lpm[0].1,
            [
                "parser state prs.start",
                "parser state prs.ipv4",
                "table route.fib [hdr.ipv4.dst=10.0.0.2] -> hit -> route.forward(port=7)",
                "verdict redirect port 7; valid headers: headers.eth headers.ipv4",
            ]
        );
        assert!(lpm[2].1.contains(
            &"table route.fib [hdr.ipv4.dst=11.0.0.2] -> miss -> route.keep()".to_string()
        ));
        let mine = packets(&traced_run("trace", "const_and_reject", target));
        assert_eq!(
            mine[1].1,
            [
                "parser state prs.start",
                "parser state prs.vlan",
                "parser state prs.ipv4",
                "table pipe.classify [hdr.ipv4.protocol=17] -> hit -> pipe.refuse()",
                "table pipe.fwd [hdr.eth.dst=00:11:22:33:44:55 hdr.ipv4.dst=10.0.0.3] -> miss -> NoAction()",
                "verdict drop; valid headers: headers.eth headers.vlan headers.ipv4",
            ]
        );
        assert!(mine[0].1.contains(
            &"table pipe.classify [hdr.ipv4.protocol=6] -> hit -> pipe.mark(tos=7)".to_string()
        ));
        assert!(mine[2].1.contains(
            &"table pipe.classify [hdr.ipv4.protocol=1] -> miss -> NoAction()".to_string()
        ));
        assert_eq!(
            mine[3].1,
            [
                "parser state prs.start",
                "verdict drop (parser error NoMatch); valid headers: headers.eth"
            ]
        );
    }
}

#[test]
fn traces_show_stack_elements_const_keys_default_arguments_and_extern_calls() {
    if let Some(why) = kernel_unavailable() {
        eprintln!("skipped: {why}");
        return;
    }
    for target in ["kernel", "user"] {
        let runs = packets(&traced_run("trace", "stack_const", target));
        assert_eq!(
            runs[0].1[3..],
            [
                "table pipe.by_label [hdr.mpls[0].label=291] -> hit -> pipe.send(port=4)",
                "extern pipe.labelled.count(index=5, amount=2)",
                "verdict redirect port 4; valid headers: headers.eth headers.mpls[0] headers.mpls[1]",
            ]
        );
        assert_eq!(
            runs[1].1[2..],
            [
                "table pipe.by_label [hdr.mpls[0].label=512] -> miss -> pipe.set_ttl(ttl=9)",
                "extern pipe.labelled.count(index=3, amount=2)",
                "verdict pass; valid headers: headers.eth headers.mpls[0]",
            ]
        );
    }
}

#[test]
fn traces_show_register_reads_with_results_and_writes() {
    if let Some(why) = kernel_unavailable() {
        eprintln!("skipped: {why}");
        return;
    }
    for target in ["kernel", "user"] {
        let runs = packets(&traced_run("trace", "extern_calls", target));
        for (n, (_, lines)) in runs.iter().enumerate() {
            assert_eq!(
                lines[1..3],
                [
                    format!("extern pipe.seen.read(index=2) -> {n}"),
                    format!("extern pipe.seen.write(index=2, value={})", n + 1),
                ],
                "{target}"
            );
        }
    }
}

/// Unloads the pipeline when the test ends, passed or not.
struct Unload(String);

impl Drop for Unload {
    fn drop(&mut self) {
        let _ = p4bpf(&["pipeline", "unload", &self.0]);
    }
}

/// Compiles `name` (from tests/stf) into `dir`, with `extra` options; its C.
fn compile_into(dir: &Path, name: &str, extra: &[&str]) -> String {
    let (p4, _) = program("stf", name);
    let mut args = vec![
        "compile",
        p4.to_str().unwrap_or_default(),
        "-o",
        dir.to_str().unwrap_or_default(),
    ];
    args.extend(extra);
    let result = p4bpf(&args);
    assert!(result.status.success(), "{}", common::stderr(&result));
    std::fs::read_to_string(dir.join(format!("{name}.c"))).unwrap_or_default()
}

#[test]
fn trace_follows_a_loaded_pipeline_and_refuses_an_untraced_one() {
    if let Some(why) = kernel_unavailable() {
        eprintln!("skipped: {why}");
        return;
    }
    let dir = common::scratch_dir("trace_live");
    compile_into(&dir.join("traced"), "compile_lpm_redirect", &["--trace"]);
    compile_into(&dir.join("plain"), "compile_lpm_redirect", &[]);
    let object = |kind: &str| dir.join(kind).join("compile_lpm_redirect.o");
    let (traced, plain) = (
        format!("trl{}", std::process::id()),
        format!("trp{}", std::process::id()),
    );
    for (name, kind) in [(&traced, "traced"), (&plain, "plain")] {
        let loaded = p4bpf(&[
            "pipeline",
            "load",
            object(kind).to_str().unwrap_or_default(),
            "--name",
            name,
        ]);
        assert!(loaded.status.success(), "{}", common::stderr(&loaded));
    }
    let _unload = (Unload(traced.clone()), Unload(plain.clone()));
    let refused = p4bpf(&["trace", &plain, "--count", "1"]);
    assert!(!refused.status.success());
    assert!(
        common::stderr(&refused).contains("compiled without tracing"),
        "{}",
        common::stderr(&refused)
    );

    let added = p4bpf(&[
        "table",
        "add",
        &traced,
        "route.fib",
        "hdr.ipv4.dst=10.0.0.0/8",
        "route.forward",
        "port=7",
    ]);
    assert!(added.status.success(), "{}", common::stderr(&added));
    let follower = std::process::Command::new(env!("CARGO_BIN_EXE_p4bpf"))
        .args([
            "trace",
            &traced,
            "--count",
            "2",
            "--seconds",
            "30",
            "--json",
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start p4bpf trace: {e}"));
    // Records wait in the ring until read, so the follower may open it late.
    let packet = |dst: [u8; 4]| {
        let mut p = hex("00112233445566778899aabb080045000014000100004006000a0a000001");
        p.extend(dst);
        p
    };
    let records: Vec<p4bpf_runtime::pcap::Record> = [[10, 0, 0, 2], [11, 0, 0, 2]]
        .iter()
        .enumerate()
        .map(|(i, dst)| p4bpf_runtime::pcap::Record {
            seconds: i as u32,
            micros: 0,
            data: packet(*dst),
        })
        .collect();
    let _ = std::fs::write(dir.join("in.pcap"), p4bpf_runtime::pcap::write(&records));
    let out = dir.join("out.pcap");
    let ran = p4bpf(&[
        "run",
        "--pipeline",
        &traced,
        "--in",
        dir.join("in.pcap").to_str().unwrap_or_default(),
        "--out",
        out.to_str().unwrap_or_default(),
    ]);
    assert!(ran.status.success(), "{}", common::stderr(&ran));
    let done = follower
        .wait_with_output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let lines: Vec<&str> = done.lines().collect();
    assert_eq!(lines.len(), 2, "{done}");
    assert!(lines[0].contains(r#"{"table":"route.fib","hit":true,"key":{"hdr.ipv4.dst":"10.0.0.2"},"action":"route.forward","params":{"port":"7"}}"#), "{}", lines[0]);
    // No interface stands for port 7 in this pipeline: the redirect drops.
    assert!(lines[0].contains(r#""verdict":"drop""#), "{}", lines[0]);
    assert!(
        lines[1].contains(r#""hit":false"#) && lines[1].contains(r#""verdict":"pass""#),
        "{}",
        lines[1]
    );
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len() / 2)
        .filter_map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok())
        .collect()
}

#[test]
fn untraced_builds_have_no_trace_code() {
    let dir = common::scratch_dir("trace_untraced");
    let plain = dir.join("plain");
    let traced = dir.join("traced");
    let plain_c = compile_into(&plain, "split_tables", &[]);
    let traced_c = compile_into(&traced, "split_tables", &["--trace"]);
    assert!(
        !plain_c.contains("ringbuf") && !plain_c.contains("trace"),
        "untraced C mentions tracing"
    );
    assert!(traced_c.contains("BPF_MAP_TYPE_RINGBUF"));
    // The traced C is the plain C plus trace statements and definitions only.
    let untraced_lines: Vec<&str> = traced_c.lines().filter(|l| !l.contains("trace")).collect();
    assert!(untraced_lines.len() < traced_c.lines().count());
    let objects_differ = std::fs::read(plain.join("split_tables.o")).ok()
        != std::fs::read(traced.join("split_tables.o")).ok();
    assert!(objects_differ);
}

#[test]
fn run_with_trace_prints_each_packets_trace() {
    if let Some(why) = kernel_unavailable() {
        eprintln!("skipped: {why}");
        return;
    }
    let dir = common::scratch_dir("trace_run");
    let (p4, stf) = program("stf", "compile_lpm_redirect");
    let packet = |dst: [u8; 4]| {
        let mut p = hex("00112233445566778899aabb080045000014000100004006000a0a000001");
        p.extend(dst);
        p
    };
    let records: Vec<p4bpf_runtime::pcap::Record> = [[10, 1, 0, 2], [11, 0, 0, 2]]
        .iter()
        .map(|dst| p4bpf_runtime::pcap::Record {
            seconds: 0,
            micros: 0,
            data: packet(*dst),
        })
        .collect();
    let input = dir.join("in.pcap");
    let _ = std::fs::write(&input, p4bpf_runtime::pcap::write(&records));
    for target in ["kernel", "user"] {
        let out = dir.join(format!("{target}.pcap"));
        let ran = p4bpf(&[
            "run",
            p4.to_str().unwrap_or_default(),
            "--in",
            input.to_str().unwrap_or_default(),
            "--out",
            out.to_str().unwrap_or_default(),
            "--entries",
            stf.to_str().unwrap_or_default(),
            "--target",
            target,
            "--trace",
        ]);
        let text = stdout(&ran);
        assert!(ran.status.success(), "{text}{}", common::stderr(&ran));
        assert!(
            text.contains("packet 1\n  trace: 34 bytes in")
                && text.contains(
                    "table route.fib [hdr.ipv4.dst=10.1.0.2] -> hit -> route.forward(port=9)"
                )
                && text.contains("verdict redirect port 9")
                && text.contains("table route.fib [hdr.ipv4.dst=11.0.0.2] -> miss -> route.keep()"),
            "{target}:\n{text}"
        );
    }
}
