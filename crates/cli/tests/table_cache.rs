//! Table caches (`--table-caching`, as PSA-eBPF's option): our programs
//! (tests/table_cache/) run their STF scripts at kernel XDP, kernel TC and
//! user. PSA-eBPF's TernaryTableCachePSATest and CacheActionSelectorPSATest
//! scenarios (a cache entry written by hand is used, a table write makes
//! it stale), writes after cached hits of every kind (insert, modify,
//! delete, default action, selector member and group), more flows than
//! the cache holds, and lpm and range tables. Kernel parts skip, saying
//! why, without root/BPF or clang.

mod common;

use common::{p4bpf, stderr, stdout};
use std::path::{Path, PathBuf};

const TARGETS: [&[&str]; 3] = [
    &["--target", "kernel", "--hook", "xdp"],
    &["--target", "kernel", "--hook", "tc"],
    &["--target", "user"],
];

fn own(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/table_cache")
        .join(name)
}

/// Runs `script` against `program` with the cache on at every target;
/// each run must pass with `packets` packets.
fn passes_everywhere(program: &str, script: &str, packets: usize) {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED table_cache {script}: {why}");
        return;
    }
    let (program, script) = (own(program), own(script));
    for target in TARGETS {
        let mut args = vec![
            "test",
            program.to_str().unwrap_or(""),
            script.to_str().unwrap_or(""),
            "--table-caching",
        ];
        args.extend_from_slice(target);
        let out = p4bpf(&args);
        let text = format!("{}{}", stdout(&out), stderr(&out));
        assert!(out.status.success(), "{target:?}:\n{text}");
        assert!(
            text.contains(&format!("PASS: {packets} packets, 0 failure(s)")),
            "{target:?}:\n{text}"
        );
    }
}

#[test]
fn ternary_table_cache_scenario_passes_on_every_target() {
    passes_everywhere("ternary.p4", "ternary-cache.stf", 3);
}

#[test]
fn action_selector_cache_scenario_passes_on_every_target() {
    passes_everywhere("selector.p4", "selector-cache.stf", 8);
}

#[test]
fn writes_after_cached_hits_are_seen_by_the_next_packet() {
    passes_everywhere("ternary.p4", "ternary-writes.stf", 11);
}

#[test]
fn lpm_and_range_tables_see_every_write_after_cached_hits() {
    passes_everywhere("lpm_range.p4", "lpm-range.stf", 11);
}

#[test]
fn more_flows_than_the_cache_holds_stay_right() {
    passes_everywhere("ternary.p4", "many-flows.stf", 60);
}

/// PSA-eBPF's two PTF classes on the corpus's own programs, every step of
/// each (tests/table_cache/ptf/PROGRAM.stf against psa-ebpf/PROGRAM.p4).
#[test]
fn ptf_cache_classes_pass_on_the_corpus_programs() {
    let Some(corpus) = common::corpus_dir() else {
        eprintln!("SKIPPED ptf_cache_classes: ../shared/corpus/p4c is absent");
        return;
    };
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED ptf_cache_classes: {why}");
        return;
    }
    for (stem, packets) in [("table-cache-ternary", 3), ("action-selector1", 6)] {
        let program = corpus.join("psa-ebpf").join(format!("{stem}.p4"));
        let script = own(&format!("ptf/{stem}.stf"));
        for target in TARGETS {
            let mut args = vec![
                "test",
                program.to_str().unwrap_or(""),
                script.to_str().unwrap_or(""),
                "--table-caching",
            ];
            args.extend_from_slice(target);
            let out = p4bpf(&args);
            let text = format!("{}{}", stdout(&out), stderr(&out));
            assert!(
                text.contains(&format!("PASS: {packets} packets, 0 failure(s)")),
                "{stem} {target:?}:\n{text}"
            );
        }
    }
}

/// Without --table-caching there is no cache: the C has no cache map and
/// a cache_put names the option.
#[test]
fn without_the_option_nothing_is_cached_and_cache_put_says_why() {
    let dir = common::scratch_dir("table_cache_off");
    let program = own("ternary.p4");
    let out = p4bpf(&[
        "compile",
        program.to_str().unwrap_or(""),
        "-o",
        dir.to_str().unwrap_or(""),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let c = std::fs::read_to_string(dir.join("ternary.c")).unwrap_or_default();
    assert!(c.contains("ingress_tbl_ternary_groups"), "{c}");
    assert!(!c.contains("_cache"), "{c}");
    let out = p4bpf(&[
        "test",
        program.to_str().unwrap_or(""),
        own("ternary-cache.stf").to_str().unwrap_or(""),
        "--target",
        "user",
    ]);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(!out.status.success(), "{text}");
    assert!(
        text.contains("table `ingress.tbl_ternary` has no cache (compile with --table-caching"),
        "{text}"
    );
}

/// A costly table whose hits must reach the entry itself (a direct
/// counter) is left uncached with a warning naming it; the exact table
/// beside it is not costly and is not cached either.
#[test]
fn tables_a_cache_would_break_are_refused_with_a_warning() {
    let dir = common::scratch_dir("table_cache_refused");
    let program = common::write(
        &dir,
        "counted.p4",
        &std::fs::read_to_string(own("ternary.p4"))
            .unwrap_or_default()
            .replace(
                "    table tbl_ternary {",
                "    DirectCounter<bit<32>>(PSA_CounterType_t.PACKETS) hits;\n    table exact_only {\n        key = { hdr.ethernet.etherType : exact; }\n        actions = { NoAction; }\n    }\n    table tbl_ternary {\n        psa_direct_counter = hits;",
            )
            .replace("if (tbl_ternary.apply().hit) {", "exact_only.apply();\n        if (tbl_ternary.apply().hit) {"),
    );
    let out = p4bpf(&[
        "compile",
        program.to_str().unwrap_or(""),
        "--table-caching",
        "-o",
        dir.to_str().unwrap_or(""),
    ]);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("table `ingress.tbl_ternary`")
            && text.contains("is not cached: its direct counters and meters live in the entry"),
        "{text}"
    );
    assert!(!text.contains("exact_only"), "{text}");
    let c = std::fs::read_to_string(dir.join("counted.c")).unwrap_or_default();
    assert!(!c.contains("_cache_value"), "{c}");
}

/// The generation of the pinned pipeline's cache, as bpftool prints it.
fn generation(pipeline: &str) -> Option<String> {
    let map = format!("/sys/fs/bpf/p4bpf/{pipeline}/maps/ternary_cache_generations");
    let out = std::process::Command::new("bpftool")
        .args(["map", "dump", "pinned", &map, "-j"])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let at = text.find("\"formatted\"")?;
    text.get(at..).map(str::to_string)
}

/// Unloads the pipeline however the test ends.
struct Loaded(String);

impl Drop for Loaded {
    fn drop(&mut self) {
        let _ = p4bpf(&["pipeline", "unload", &self.0]);
    }
}

/// `pipeline load --table-caching`, then `p4bpf table` writes renew the
/// cache's generation and `table cache-put` writes one result, refusing
/// bad words with the table and the word named.
#[test]
fn cli_writes_renew_the_generation_and_cache_put_checks_its_words() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED cli_cache_put: {why}");
        return;
    }
    if std::process::Command::new("bpftool")
        .arg("version")
        .output()
        .is_err()
    {
        eprintln!("SKIPPED cli_cache_put: no bpftool to read the generation");
        return;
    }
    let name = format!("tcache{}", std::process::id());
    let program = own("ternary.p4");
    let load = p4bpf(&[
        "pipeline",
        "load",
        program.to_str().unwrap_or(""),
        "--name",
        &name,
        "--hook",
        "tc",
        "--table-caching",
    ]);
    assert!(load.status.success(), "{}", stderr(&load));
    let _loaded = Loaded(name.clone());
    let before = generation(&name);
    assert!(before.is_some(), "no generations map pinned");
    let add = [
        "table",
        "add",
        &name,
        "tbl_ternary",
        "dstAddr=0x001122334455&&&0xffffffffffff",
        "srcAddr=0&&&0",
        "rewrite",
        "dst=1",
        "--priority",
        "1",
    ];
    assert!(p4bpf(&add).status.success());
    let after_add = generation(&name);
    assert_ne!(before, after_add, "the add did not renew the generation");
    let put = |words: &[&str]| {
        let mut args = vec!["table", "cache-put", name.as_str(), "tbl_ternary"];
        args.extend_from_slice(words);
        p4bpf(&args)
    };
    let ok = put(&["dstAddr=0x001122334455", "srcAddr=1", "mark", "src=2"]);
    assert!(ok.status.success(), "{}", stderr(&ok));
    assert_eq!(
        after_add,
        generation(&name),
        "a cache put is no table write"
    );
    for (words, says) in [
        (
            &["dstAddr=0x001122334455", "mark", "src=2"][..],
            "key field `hdr.ethernet.srcAddr`: is missing",
        ),
        (
            &["dstAddr=1", "srcAddr=1", "selector.0=3", "mark", "src=2"],
            "has no selector key `selector.0`",
        ),
        (
            &["dstAddr=1", "srcAddr=1", "hit=2", "mark", "src=2"],
            "`hit=2` must be 0 or 1",
        ),
        (&["dstAddr=1", "srcAddr=1", "jump"], "jump"),
    ] {
        let out = put(words);
        assert!(!out.status.success(), "{words:?}");
        let text = stderr(&out);
        assert!(
            text.contains("ingress.tbl_ternary") || text.contains("jump"),
            "{text}"
        );
        assert!(text.contains(says), "{words:?}: {text}");
    }
    let del = [
        "table",
        "del",
        &name,
        "tbl_ternary",
        "dstAddr=0x001122334455&&&0xffffffffffff",
        "srcAddr=0&&&0",
        "--priority",
        "1",
    ];
    assert!(p4bpf(&del).status.success());
    assert_ne!(
        after_add,
        generation(&name),
        "the delete did not renew the generation"
    );
}
