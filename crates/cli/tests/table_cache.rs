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
