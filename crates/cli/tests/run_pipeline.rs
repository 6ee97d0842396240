//! `p4bpf run --pipeline NAME`: a capture replayed through a loaded
//! pipeline (the ClassBench ACL with two range/ternary rules added through
//! the CLI) comes out in input order, each packet as the program left it.
//! Skips, saying why, without root/BPF or clang.

#![allow(clippy::panic)] // a failing test should stop loudly

mod common;

use common::{p4bpf, scratch_dir, stderr};
use p4bpf_runtime::bench::classbench::{rule_of_output, Header};
use p4bpf_runtime::pcap::{self, Record};
use std::path::Path;

/// Unloads the pipeline when the test ends, passed or not.
struct Unload(String);

impl Drop for Unload {
    fn drop(&mut self) {
        let _ = p4bpf(&["pipeline", "unload", &self.0]);
    }
}

#[test]
fn a_capture_replays_through_a_loaded_pipeline_in_input_order() {
    if let Err(why) = p4bpf_runtime::check_bpf_available() {
        eprintln!("skipped: {why}");
        return;
    }
    let acl = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/classbench/acl.p4");
    let name = format!("runpl{}", std::process::id());
    let loaded = p4bpf(&["pipeline", "load", &acl.to_string_lossy(), "--name", &name]);
    if !loaded.status.success() {
        eprintln!("skipped: cannot load the ACL: {}", stderr(&loaded));
        return;
    }
    let _unload = Unload(name.clone());
    for (key, rule, priority) in [
        ("dport=1000..2000", "1", "10"),
        ("src=10.0.0.0&&&255.0.0.0", "2", "20"),
    ] {
        let added = p4bpf(&[
            "table",
            "add",
            &name,
            "acl",
            key,
            "hit",
            &format!("rule={rule}"),
            "--priority",
            priority,
        ]);
        assert!(added.status.success(), "{}", stderr(&added));
    }
    let header = |src: u32, dport: u16| Header {
        src,
        dst: 1,
        sport: 7,
        dport,
        proto: 6,
    };
    // Rule 2 beats rule 1 on priority; the last packet matches nothing.
    let input = [
        header(0x0a01_0203, 1500),
        header(0x0b00_0001, 1500),
        header(0x0a00_0001, 80),
        header(0x0b00_0001, 80),
    ];
    let want = [Some(2), Some(1), Some(2), None];
    let dir = scratch_dir("run_pipeline");
    let records: Vec<Record> = input
        .iter()
        .enumerate()
        .map(|(i, h)| Record {
            seconds: i as u32,
            micros: 0,
            data: h.packet(),
        })
        .collect();
    std::fs::write(dir.join("in.pcap"), pcap::write(&records)).unwrap_or_else(|e| panic!("{e}"));
    let (inp, out) = (dir.join("in.pcap"), dir.join("out.pcap"));
    let ran = p4bpf(&[
        "run",
        "--pipeline",
        &name,
        "--in",
        &inp.to_string_lossy(),
        "--out",
        &out.to_string_lossy(),
    ]);
    assert!(ran.status.success(), "{}", stderr(&ran));
    let bytes = std::fs::read(&out).unwrap_or_else(|e| panic!("{e}"));
    let got = pcap::parse(&bytes).unwrap_or_else(|e| panic!("{e}"));
    let seconds: Vec<u32> = got.iter().map(|r| r.seconds).collect();
    assert_eq!(seconds, vec![0, 1, 2, 3], "input order");
    let rules: Vec<Option<usize>> = got.iter().map(|r| rule_of_output(&r.data)).collect();
    assert_eq!(rules, want.to_vec());
    let missing = p4bpf(&[
        "run",
        "--pipeline",
        "no-such-pipeline-here",
        "--in",
        &inp.to_string_lossy(),
        "--out",
        &out.to_string_lossy(),
    ]);
    assert_eq!(missing.status.code(), Some(1), "{}", stderr(&missing));
}
