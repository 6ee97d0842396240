//! Table caches (`--table-caching`, as PSA-eBPF's option): our programs
//! (tests/table_cache/) run their STF scripts at kernel XDP, kernel TC and
//! user. PSA-eBPF's TernaryTableCachePSATest and CacheActionSelectorPSATest
//! scenarios (a cache entry written by hand is used, a table write makes
//! it stale), writes after cached hits of every kind (insert, modify,
//! delete, default action, selector member, group and empty group
//! action), more flows than the cache holds, and lpm and range tables;
//! writes under traffic from other threads, each seen by the packet sent
//! after it; per-table annotations. Kernel parts skip, saying why,
//! without root/BPF or clang.

#![allow(clippy::panic)] // a failing test should stop loudly

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
    passes_everywhere("selector.p4", "selector-cache.stf", 11);
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

/// Writes while two other threads send the same flow as fast as they can
/// (their packets, searching before a write, store results after it):
/// after each `modify` the packet this thread sends next runs the new
/// action, at XDP and TC.
#[test]
fn writes_under_traffic_are_seen_by_the_next_packet() {
    use p4bpf_runtime::{control, names, test_run, LoadedPipeline};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    if let Err(why) = p4bpf_runtime::check_bpf_available() {
        eprintln!("SKIPPED writes_under_traffic: {why}");
        return;
    }
    for (hook, tag) in [
        (p4bpf_compiler::Hook::Xdp, "xdp"),
        (p4bpf_compiler::Hook::Tc, "tc"),
    ] {
        let options = p4bpf_compiler::CompileOptions {
            hook,
            out_dir: Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("table_cache_{tag}")),
            table_caching: true,
            port_notes: true,
            front: Default::default(),
            extern_file: None,
            trace: false,
            table_stats: false,
        };
        let compiled = p4bpf_compiler::compile_file(&own("ternary.p4"), &options)
            .unwrap_or_else(|e| panic!("{e:?}"));
        let image = std::fs::read(&compiled.object).unwrap_or_default();
        let pipeline = LoadedPipeline::from_image(image).unwrap_or_else(|e| panic!("{e}"));
        let table = names::table(&pipeline.description, "tbl_ternary").cloned();
        let table = table.unwrap_or_else(|e| panic!("{e}"));
        let fd = pipeline.program_fd().unwrap_or_else(|e| panic!("{e}"));
        let entry = |dst: u64| {
            let words: Vec<String> = [
                "dstAddr=0x001122334455&&&0xffffffffffff".to_string(),
                "srcAddr=0&&&0".to_string(),
                "rewrite".to_string(),
                format!("dst={dst}"),
            ]
            .to_vec();
            control::parse_entry(&table, &words, Some(1)).unwrap_or_else(|e| panic!("{e}"))
        };
        control::add(&pipeline, &table, &entry(1)).unwrap_or_else(|e| panic!("{e}"));
        let mut frame = vec![0u8; 60];
        frame[..12].copy_from_slice(&[0, 0x11, 0x22, 0x33, 0x44, 0x55, 0, 0, 0, 0, 0, 1]);
        frame[12..14].copy_from_slice(&[0x88, 0xb5]);
        let stop = Arc::new(AtomicBool::new(false));
        let senders: Vec<_> = (0..2)
            .map(|_| {
                let (stop, frame) = (Arc::clone(&stop), frame.clone());
                std::thread::spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        let _ = test_run::run(fd, &frame, 64);
                    }
                })
            })
            .collect();
        for dst in 2..300u64 {
            control::modify(&pipeline, &table, &entry(dst)).unwrap_or_else(|e| panic!("{e}"));
            let out = test_run::run(fd, &frame, 1).unwrap_or_else(|e| panic!("{e}"));
            let seen = out
                .packet
                .get(..6)
                .map(|b| b.iter().fold(0u64, |a, x| a << 8 | u64::from(*x)));
            assert_eq!(
                seen,
                Some(dst),
                "{tag}: the packet after write {dst} ran an older result"
            );
        }
        stop.store(true, Ordering::Relaxed);
        senders.into_iter().for_each(|s| {
            let _ = s.join();
        });
    }
}

/// `ternary.p4` with `annotation` on its ternary table, compiled into
/// `dir` with `extra` options: the C and what the compiler said.
fn annotated(dir: &Path, annotation: &str, extra: &[&str]) -> (String, String) {
    let text = std::fs::read_to_string(own("ternary.p4")).unwrap_or_default();
    let program = common::write(
        dir,
        "annotated.p4",
        &text.replace(
            "    table tbl_ternary {",
            &format!("    {annotation}\n    table tbl_ternary {{"),
        ),
    );
    let mut args = vec![
        "compile",
        program.to_str().unwrap_or(""),
        "-o",
        dir.to_str().unwrap_or(""),
    ];
    args.extend_from_slice(extra);
    let out = p4bpf(&args);
    let c = std::fs::read_to_string(dir.join("annotated.c")).unwrap_or_default();
    (c, format!("{}{}", stdout(&out), stderr(&out)))
}

/// Per table: `@p4bpf_cache` caches without the option (and the cache
/// scenario passes), `@p4bpf_no_cache` keeps a table out of it, both at
/// once is an error at the table, and an exact table asked to be cached
/// gets a warning.
#[test]
fn annotations_choose_per_table() {
    let dir = common::scratch_dir("table_cache_annotated");
    let (c, said) = annotated(&dir, "@p4bpf_cache", &[]);
    assert!(c.contains("ingress_tbl_ternary_cache SEC"), "{said}");
    if common::kernel_unavailable().is_none() {
        let (script, program) = (own("ternary-cache.stf"), dir.join("annotated.p4"));
        let args = [
            "test",
            program.to_str().unwrap_or(""),
            script.to_str().unwrap_or(""),
            "--target",
            "user",
        ];
        let out = p4bpf(&args);
        let text = format!("{}{}", stdout(&out), stderr(&out));
        assert!(text.contains("PASS: 3 packets, 0 failure(s)"), "{text}");
    }
    let (c, said) = annotated(&dir, "@p4bpf_no_cache", &["--table-caching"]);
    assert!(
        said.contains("wrote") && !c.contains("_cache_value"),
        "{said}"
    );
    let (_, said) = annotated(&dir, "@p4bpf_cache @p4bpf_no_cache", &[]);
    assert!(
        said.contains("annotated.p4:")
            && said.contains("either `@p4bpf_cache` or `@p4bpf_no_cache`"),
        "{said}"
    );
    let text = std::fs::read_to_string(own("ternary.p4")).unwrap_or_default();
    let exact = common::write(
        &dir,
        "exact.p4",
        &text
            .replace(
                "    table tbl_ternary {",
                "    @p4bpf_cache\n    table tbl_ternary {",
            )
            .replace(": ternary;", ": exact;"),
    );
    let out = p4bpf(&[
        "compile",
        exact.to_str().unwrap_or(""),
        "-o",
        dir.to_str().unwrap_or(""),
    ]);
    let said = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        said.contains("table `ingress.tbl_ternary`")
            && said.contains("is not cached: its search is one exact probe already"),
        "{said}"
    );
}

/// The cache changes no result: every PSA-eBPF PTF scenario of
/// `--test psa` (tests/psa/ptf/NAME.stf on the corpus's NAME.p4), its
/// ternary, lpm, action profile and selector tables cached, passes at
/// every target as it does without.
#[test]
fn every_ptf_scenario_passes_with_caching_on() {
    let Some(corpus) = common::corpus_dir() else {
        eprintln!("SKIPPED every_ptf_scenario_with_caching: ../shared/corpus/p4c is absent");
        return;
    };
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED every_ptf_scenario_with_caching: {why}");
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/psa/ptf");
    let scripts = common::files_where(&dir, |n| n.ends_with(".stf"));
    assert!(scripts.len() >= 14, "PTF scenario files missing");
    let mut problems = vec![];
    for script in &scripts {
        let stem = script.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let program = ["psa-ebpf", "psa-ebpf-examples"]
            .iter()
            .map(|folder| corpus.join(folder).join(format!("{stem}.p4")))
            .find(|p| p.exists())
            .unwrap_or_default();
        for target in TARGETS {
            let mut args = vec![
                "test",
                program.to_str().unwrap_or(""),
                script.to_str().unwrap_or(""),
                "--table-caching",
                "-D",
                "PORT0=0",
                "-D",
                "PORT1=1",
                "-D",
                "PORT2=2",
                "-D",
                "PSA_RECIRC=3",
            ];
            args.extend_from_slice(target);
            let out = p4bpf(&args);
            let text = format!("{}{}", stdout(&out), stderr(&out));
            if !out.status.success() || !text.contains("PASS:") {
                problems.push(format!("{stem} {target:?}:\n{text}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
