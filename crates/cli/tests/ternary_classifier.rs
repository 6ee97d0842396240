//! The ternary/range classifier in the kernel, against a linear scan: the
//! ACL of bench/classbench/acl.p4 loaded with thousands of generated rules
//! of unrelated masks and ranges, every probe's verdict checked through
//! BPF_PROG_TEST_RUN; then rules added and removed while another thread
//! forwards, with no probe ever seeing a wrong rule. Skips, saying why,
//! without root/BPF or clang.

#![allow(clippy::panic)] // a failing test should stop loudly

use p4bpf_compiler::{CompileOptions, Hook};
use p4bpf_runtime::bench::classbench::{
    first_match, random_headers, random_rules, rule_of_output, AclRule, Header,
};
use p4bpf_runtime::entry::{encode_entry, EncodedEntry};
use p4bpf_runtime::ternary_store::Store;
use p4bpf_runtime::{control, names, test_run, LoadedPipeline};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

fn load_acl(test: &str) -> Option<LoadedPipeline> {
    if let Err(why) = p4bpf_runtime::check_bpf_available() {
        eprintln!("skipped: {why}");
        return None;
    }
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/classbench/acl.p4");
    let options = CompileOptions {
        front: Default::default(),
        hook: Hook::Xdp,
        out_dir: Path::new(env!("CARGO_TARGET_TMPDIR")).join(test),
        extern_file: None,
        trace: false,
    };
    let Ok(compiled) = p4bpf_compiler::compile_file(&program, &options) else {
        eprintln!("skipped: the ACL does not compile here (is clang installed?)");
        return None;
    };
    let image = std::fs::read(&compiled.object).unwrap_or_default();
    Some(LoadedPipeline::from_image(image).unwrap_or_else(|e| panic!("load: {e}")))
}

/// The rule the program picks for `h` (1-based), `None` for a miss.
fn classify(fd: i32, h: &Header) -> Option<usize> {
    let out = test_run::run(fd, &h.packet(), 1).unwrap_or_else(|e| panic!("run: {e}"));
    rule_of_output(&out.packet)
}

#[test]
fn thousands_of_unrelated_masks_and_ranges_classify_like_a_linear_scan() {
    let Some(pipeline) = load_acl("ternary_random") else {
        return;
    };
    let table = names::table(&pipeline.description, "acl").cloned();
    let table = table.unwrap_or_else(|e| panic!("{e}"));
    let fd = pipeline.program_fd().unwrap_or_else(|e| panic!("{e}"));
    for seed in [11u64, 4242] {
        let rules = random_rules(seed, 3000);
        let specs: Vec<_> = (0..rules.len())
            .map(|i| rules[i].entry(i, rules.len()))
            .collect();
        let inserted = control::insert_batch(&pipeline, &table, &specs);
        assert_eq!(inserted.map_err(|e| e.to_string()), Ok(rules.len()));
        assert_eq!(
            control::count_entries(&pipeline, &table).ok(),
            Some(rules.len())
        );
        let headers = random_headers(seed + 1, &rules, 3000);
        let mut hits = 0;
        for h in &headers {
            let want = first_match(&rules, h).map(|i| i + 1);
            hits += usize::from(want.is_some());
            assert_eq!(classify(fd, h), want, "seed {seed}, {h:?}");
        }
        assert!(hits > 1500, "only {hits} probes hit a rule");
        // Half the rules out again: the rest still decide.
        for (i, spec) in specs.iter().enumerate().filter(|(i, _)| i % 2 == 0) {
            control::delete(&pipeline, &table, spec).unwrap_or_else(|e| panic!("delete {i}: {e}"));
        }
        let kept: Vec<Option<&AclRule>> = rules
            .iter()
            .enumerate()
            .map(|(i, r)| (i % 2 == 1).then_some(r))
            .collect();
        for h in headers.iter().take(500) {
            let want = kept.iter().position(|r| r.is_some_and(|r| r.matches(h)));
            assert_eq!(
                classify(fd, h),
                want.map(|i| i + 1),
                "seed {seed} after deletes, {h:?}"
            );
        }
        assert_eq!(
            control::clear(&pipeline, &table).ok(),
            Some(rules.len() / 2)
        );
    }
}

#[test]
fn rules_come_and_go_under_traffic_without_a_wrong_verdict() {
    let Some(pipeline) = load_acl("ternary_churn") else {
        return;
    };
    let table = names::table(&pipeline.description, "acl").cloned();
    let table = table.unwrap_or_else(|e| panic!("{e}"));
    let fd = pipeline.program_fd().unwrap_or_else(|e| panic!("{e}"));
    // Base rules on even priorities decide the probes; churn rules, on odd
    // priorities between them, match no probe but share groups and
    // buckets with the base and raise and lower the groups' priorities.
    let candidates = random_rules(77, 4000);
    let (base, rest) = candidates.split_at(1000);
    let probes: Vec<Header> = random_headers(78, base, 400);
    let churn: Vec<AclRule> = rest
        .iter()
        .filter(|r| !probes.iter().any(|h| r.matches(h)))
        .copied()
        .collect();
    let encode = |rule: &AclRule, index: usize, priority: u32| -> EncodedEntry {
        let mut spec = rule.entry(index, index + 1);
        spec.priority = Some(priority);
        encode_entry(&table, &spec).unwrap_or_else(|e| panic!("{e}"))
    };
    let mut store = Store::open(&pipeline, &table).unwrap_or_else(|e| panic!("{e}"));
    let base_entries: Vec<EncodedEntry> = base
        .iter()
        .enumerate()
        .map(|(i, r)| encode(r, i, 2 * (base.len() - i) as u32))
        .collect();
    store
        .insert_all(&base_entries)
        .unwrap_or_else(|e| panic!("{e}"));
    let expected: Vec<Option<usize>> = probes
        .iter()
        .map(|h| first_match(base, h).map(|i| i + 1))
        .collect();

    let stop = Arc::new(AtomicBool::new(false));
    let forwarder = {
        let stop = stop.clone();
        let probes = probes.clone();
        let expected = expected.clone();
        std::thread::spawn(move || {
            let (mut runs, mut wrong) = (0usize, vec![]);
            while !stop.load(Ordering::Relaxed) {
                for (h, want) in probes.iter().zip(&expected) {
                    let got = classify(fd, h);
                    runs += 1;
                    if got != *want && wrong.len() < 5 {
                        wrong.push(format!("{h:?}: got {got:?}, want {want:?}"));
                    }
                }
            }
            (runs, wrong)
        })
    };
    let start = std::time::Instant::now();
    let mut updates = 0usize;
    for round in 0..3u32 {
        let entries: Vec<EncodedEntry> = churn
            .iter()
            .enumerate()
            .map(|(i, r)| encode(r, i, 2 * ((i as u32 * 7 + round) % base.len() as u32) + 1))
            .collect();
        for e in &entries {
            store.insert(e).unwrap_or_else(|e| panic!("insert: {e}"));
        }
        for e in &entries {
            store.remove(e).unwrap_or_else(|e| panic!("remove: {e}"));
        }
        updates += 2 * entries.len();
    }
    let elapsed = start.elapsed();
    stop.store(true, Ordering::Relaxed);
    let (runs, wrong) = forwarder
        .join()
        .unwrap_or_else(|_| panic!("the forwarder panicked"));
    println!(
        "{updates} rule updates in {:.0} ms ({:.0}/s) under {runs} lookups",
        elapsed.as_secs_f64() * 1e3,
        updates as f64 / elapsed.as_secs_f64()
    );
    assert!(wrong.is_empty(), "wrong verdicts under updates: {wrong:#?}");
    assert!(
        runs > 0 && updates > 1000,
        "{runs} lookups, {updates} updates"
    );
}
