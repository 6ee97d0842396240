//! The ternary/range classifier in the kernel, against a linear scan: the
//! ACL of bench/classbench/acl.p4 loaded with thousands of generated rules
//! of unrelated masks and ranges, every probe's verdict checked through
//! BPF_PROG_TEST_RUN; then rules that win and lose probes added and
//! removed (in the wild list and in partitions' lists) while another
//! thread forwards, every verdict that of the rule set before or after an
//! update in flight. Skips, saying why, without root/BPF or clang.

#![allow(clippy::panic)] // a failing test should stop loudly

use p4bpf_compiler::{CompileOptions, Hook};
use p4bpf_runtime::bench::classbench::{
    first_match, random_headers, random_rules, rule_of_output, AclRule, Header, Random,
};
use p4bpf_runtime::bench::classbench_shapes::{shaped_rules, Shape};
use p4bpf_runtime::entry::{encode_entry, EncodedEntry};
use p4bpf_runtime::ternary_store::Store;
use p4bpf_runtime::{control, names, test_run, LoadedPipeline};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
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
        table_stats: false,
        table_caching: false,
        port_notes: true,
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
        // Half the rules out again, the first few as one-shot commands
        // (each reads the maps back), the rest through one store: the
        // others still decide.
        let mut store = None;
        for (i, spec) in specs.iter().enumerate().filter(|(i, _)| i % 2 == 0) {
            if i < 40 {
                control::delete(&pipeline, &table, spec)
                    .unwrap_or_else(|e| panic!("delete {i}: {e}"));
                continue;
            }
            let store = store.get_or_insert_with(|| {
                Store::open(&pipeline, &table).unwrap_or_else(|e| panic!("{e}"))
            });
            let entry = encode_entry(&table, spec).unwrap_or_else(|e| panic!("{e}"));
            store
                .remove(&entry)
                .unwrap_or_else(|e| panic!("delete {i}: {e}"));
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
fn classbench_shaped_acl_fw_and_ipc_sets_classify_like_a_linear_scan() {
    let Some(pipeline) = load_acl("ternary_shapes") else {
        return;
    };
    let table = names::table(&pipeline.description, "acl").cloned();
    let table = table.unwrap_or_else(|e| panic!("{e}"));
    let fd = pipeline.program_fd().unwrap_or_else(|e| panic!("{e}"));
    for shape in Shape::ALL {
        let rules = shaped_rules(shape, 31, 2000);
        let specs: Vec<_> = (0..rules.len())
            .map(|i| rules[i].entry(i, rules.len()))
            .collect();
        let inserted = control::insert_batch(&pipeline, &table, &specs);
        assert_eq!(inserted.map_err(|e| e.to_string()), Ok(rules.len()));
        let mut hits = 0;
        for h in random_headers(32, &rules, 4000) {
            let want = first_match(&rules, &h).map(|i| i + 1);
            hits += usize::from(want.is_some());
            assert_eq!(classify(fd, &h), want, "{} {h:?}", shape.name());
        }
        assert!(
            hits > 2000,
            "{}: only {hits} probes hit a rule",
            shape.name()
        );
        assert_eq!(control::clear(&pipeline, &table).ok(), Some(rules.len()));
    }
}

/// Rules of shapes ClassBench lacks: masks that nest (one address at
/// every prefix length, with nested port ranges), many groups wild in the
/// partition's cut bits (masks fixing only low bits), and every mask
/// repeated across many values.
fn nested_and_wild_rules(seed: u64, count: usize) -> Vec<AclRule> {
    let mut r = Random::new(seed);
    let prefix = |len: u64| u32::MAX.checked_shl(32 - len as u32).unwrap_or(0);
    let mut seen = std::collections::HashSet::new();
    let mut rules = vec![];
    let anchors: Vec<(u32, u32)> = (0..8)
        .map(|_| (r.next_u64() as u32, r.next_u64() as u32))
        .collect();
    while rules.len() < count {
        let (a, b) = anchors[(r.next_u64() % 8) as usize];
        let pick = r.next_u64();
        let (sm, dm) = match pick % 3 {
            // Nested: the anchor at any prefix length.
            0 => (prefix(pick >> 8 & 31), prefix(pick >> 16 & 31)),
            // Wild in the top bits: only low bits fixed, many masks.
            1 => (
                (pick >> 8) as u32 & 0x00ff_ffff,
                (pick >> 32) as u32 & 0x0fff_ffff,
            ),
            _ => (
                prefix(pick >> 8 & 31) | 0xff,
                (pick >> 32) as u32 & 0x00ff_ff00,
            ),
        };
        let noise = r.next_u64();
        let lo = (noise % 4) as u16 * 256;
        let rule = AclRule {
            src: ((a ^ (noise as u32 & 0x0f0f)) & sm, sm),
            dst: (b & dm, dm),
            sport: (0, u16::MAX),
            dport: (lo, lo + 255 + (noise >> 8) as u16 % 3 * 512),
            proto: [(0, 0), (6, 0xff), (17, 0xff)][(noise >> 20) as usize % 3],
        };
        if seen.insert(format!("{rule:?}")) {
            rules.push(rule);
        }
    }
    rules
}

#[test]
fn nested_masks_wild_groups_and_interleaved_priorities_classify_like_a_linear_scan() {
    let Some(pipeline) = load_acl("ternary_nested") else {
        return;
    };
    let table = names::table(&pipeline.description, "acl").cloned();
    let table = table.unwrap_or_else(|e| panic!("{e}"));
    let fd = pipeline.program_fd().unwrap_or_else(|e| panic!("{e}"));
    let rules = nested_and_wild_rules(5, 2500);
    assert!(
        rules.iter().filter(|r| wild_in_cuts(&table, r)).count() > 500,
        "too few rules wild in the cut bits"
    );
    // Priorities a random permutation: groups' best priorities interleave.
    let mut priorities: Vec<usize> = (1..=rules.len()).collect();
    shuffle(&mut priorities, &mut Random::new(6));
    let specs: Vec<_> = (rules.iter().enumerate())
        .map(|(i, r)| {
            let mut spec = r.entry(i, rules.len());
            spec.priority = Some(priorities[i] as u32);
            spec
        })
        .collect();
    let inserted = control::insert_batch(&pipeline, &table, &specs);
    assert_eq!(inserted.map_err(|e| e.to_string()), Ok(rules.len()));
    let store = Store::open(&pipeline, &table).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        store.classifier().groups() > 20,
        "only {} groups",
        store.classifier().groups()
    );
    let mut hits = 0;
    for h in random_headers(7, &rules, 3000) {
        let want = (0..rules.len())
            .filter(|i| rules[*i].matches(&h))
            .max_by_key(|i| priorities[*i])
            .map(|i| i + 1);
        hits += usize::from(want.is_some());
        assert_eq!(classify(fd, &h), want, "{h:?}");
    }
    assert!(hits > 1500, "only {hits} probes hit a rule");
}

/// Rules that share a few address pairs (so they share buckets) and
/// tell each other apart only by ports and protocol: exact ports, port
/// ranges of one value, wide ranges and wildcards; protocols exact, wild
/// and partly masked.
fn same_addresses_other_ports_rules(seed: u64, count: usize) -> Vec<AclRule> {
    let mut r = Random::new(seed);
    let pairs: Vec<(u32, u32)> = (0..6)
        .map(|_| (r.next_u64() as u32, r.next_u64() as u32))
        .collect();
    let mut seen = std::collections::HashSet::new();
    let mut rules = vec![];
    while rules.len() < count {
        let (a, b) = pairs[(r.next_u64() % 6) as usize];
        let pick = r.next_u64();
        // /32, /24 or /16 of the pair: buckets of one group or of nested ones.
        let mask = [u32::MAX, 0xffff_ff00, 0xffff_0000][(pick % 3) as usize];
        let port = |v: u64| -> (u16, u16) {
            let p = (v % 8) as u16 * 100;
            match v >> 8 & 3 {
                0 => (p, p),
                1 => (0, u16::MAX),
                2 => (p, p + 150),
                _ => (p + 1, p + 1),
            }
        };
        let rule = AclRule {
            src: (a & mask, mask),
            dst: (b & mask, mask),
            sport: port(pick >> 4),
            dport: port(pick >> 16),
            proto: [(6, 0xff), (17, 0xff), (0, 0), (0x01, 0x0f)][(pick >> 28) as usize % 4],
        };
        if seen.insert(format!("{rule:?}")) {
            rules.push(rule);
        }
    }
    rules
}

#[test]
fn rules_sharing_buckets_apart_only_in_ports_and_protocol_classify_like_a_linear_scan() {
    let Some(pipeline) = load_acl("ternary_classes") else {
        return;
    };
    let table = names::table(&pipeline.description, "acl").cloned();
    let table = table.unwrap_or_else(|e| panic!("{e}"));
    let fd = pipeline.program_fd().unwrap_or_else(|e| panic!("{e}"));
    let rules = same_addresses_other_ports_rules(21, 1200);
    let mut priorities: Vec<usize> = (1..=rules.len()).collect();
    shuffle(&mut priorities, &mut Random::new(22));
    let specs: Vec<_> = (rules.iter().enumerate())
        .map(|(i, r)| {
            let mut spec = r.entry(i, rules.len());
            spec.priority = Some(priorities[i] as u32);
            spec
        })
        .collect();
    let inserted = control::insert_batch(&pipeline, &table, &specs);
    assert_eq!(inserted.map_err(|e| e.to_string()), Ok(rules.len()));
    let scan = |h: &Header| {
        (0..rules.len())
            .filter(|i| rules[*i].matches(h))
            .max_by_key(|i| priorities[*i])
            .map(|i| i + 1)
    };
    // Probes inside a rule's addresses, ports and protocol drawn near the
    // rules' own values: most hit, many only a low-priority rule.
    let mut r = Random::new(23);
    let (mut hits, mut misses) = (0, 0);
    for h in random_headers(24, &rules, 4000) {
        let near = r.next_u64();
        let h = Header {
            sport: (near % 9) as u16 * 100 + (near >> 8) as u16 % 3,
            dport: (near >> 16) as u16 % 9 * 100 + (near >> 24) as u16 % 3,
            proto: [6, 17, 1, 0x21, 47][(near >> 32) as usize % 5],
            ..h
        };
        let want = scan(&h);
        hits += usize::from(want.is_some());
        misses += usize::from(want.is_none());
        assert_eq!(classify(fd, &h), want, "{h:?}");
    }
    assert!(hits > 1000 && misses > 200, "{hits} hits, {misses} misses");
}

/// One rule update of the churn: insert or remove churn rule `rule` at
/// `priority`.
#[derive(Clone, Copy)]
struct Update {
    insert: bool,
    rule: usize,
    priority: u32,
}

/// The verdict (1-based rule number) of every probe after each prefix of
/// `updates`: `[k][p]` is probe p's after the first k updates. Base rule
/// i is rule i + 1 at `base_priority(i)`; churn rule j is rule
/// `base.len() + j + 1`.
fn verdicts_per_state(
    base: &[AclRule],
    base_priority: impl Fn(usize) -> u32,
    churn: &[AclRule],
    updates: &[Update],
    probes: &[Header],
) -> Vec<Vec<Option<usize>>> {
    // Active rules by priority: (rule number, rule).
    let mut active: std::collections::BTreeMap<u32, (usize, AclRule)> = (base.iter())
        .enumerate()
        .map(|(i, r)| (base_priority(i), (i + 1, *r)))
        .collect();
    let scan = |active: &std::collections::BTreeMap<u32, (usize, AclRule)>, h: &Header| {
        (active.values().rev())
            .find(|(_, r)| r.matches(h))
            .map(|(n, _)| *n)
    };
    let mut now: Vec<Option<usize>> = probes.iter().map(|h| scan(&active, h)).collect();
    let mut states = vec![now.clone()];
    for u in updates {
        let (number, rule) = (base.len() + u.rule + 1, churn[u.rule]);
        if u.insert {
            active.insert(u.priority, (number, rule));
        } else {
            active.remove(&u.priority);
        }
        for (h, verdict) in probes.iter().zip(now.iter_mut()) {
            if rule.matches(h) {
                *verdict = scan(&active, h);
            }
        }
        states.push(now.clone());
    }
    states
}

/// Whether `rule` fixes no bit the table's partition cuts (src is key 0,
/// dst key 1): it is then in the wild list, not in partitions' lists.
fn wild_in_cuts(table: &p4bpf_layout::Table, rule: &AclRule) -> bool {
    let cuts = table.ternary.as_ref().map(|t| t.partition.clone());
    cuts.unwrap_or_default().iter().all(|cut| {
        let mask = [rule.src.1, rule.dst.1].get(cut.key as usize).copied();
        mask.is_some_and(|m| m.checked_shr(32 - cut.bits).unwrap_or(m) == 0)
    })
}

#[test]
fn winning_rules_come_and_go_under_traffic_each_verdict_before_or_after_the_update() {
    let Some(pipeline) = load_acl("ternary_churn") else {
        return;
    };
    let table = names::table(&pipeline.description, "acl").cloned();
    let table = table.unwrap_or_else(|e| panic!("{e}"));
    let fd = pipeline.program_fd().unwrap_or_else(|e| panic!("{e}"));
    let cuts = table.ternary.as_ref().map_or(0, |t| t.partition.len());
    assert!(cuts > 0, "the ACL's table is not partitioned: {table:?}");
    // Base rules on even priorities, churn rules on odd ones between them
    // (a new permutation each round): churn rules win some probes, lose
    // others, and move groups' best priorities up and down, in the wild
    // list and in partitions' lists.
    let candidates = random_rules(77, 1400);
    let (base, churn) = candidates.split_at(800);
    let wild = churn.iter().filter(|r| wild_in_cuts(&table, r)).count();
    assert!(
        wild >= 20 && churn.len() - wild >= 20,
        "{wild} of {} churn rules wild in the cut bits",
        churn.len()
    );
    let probes: Vec<Header> = random_headers(78, &candidates, 300);
    let base_priority = |i: usize| 2 * (base.len() - i) as u32;
    let mut random = Random::new(79);
    let mut updates = vec![];
    for _round in 0..2 {
        let mut order: Vec<usize> = (0..churn.len()).collect();
        shuffle(&mut order, &mut random);
        let priorities: Vec<u32> = order.iter().map(|k| 2 * *k as u32 + 1).collect();
        shuffle(&mut order, &mut random);
        for &j in &order {
            updates.push(Update {
                insert: true,
                rule: j,
                priority: priorities[j],
            });
        }
        shuffle(&mut order, &mut random);
        for &j in &order {
            updates.push(Update {
                insert: false,
                rule: j,
                priority: priorities[j],
            });
        }
    }
    let states = Arc::new(verdicts_per_state(
        base,
        base_priority,
        churn,
        &updates,
        &probes,
    ));
    let churn_wins = (states.iter().flatten())
        .filter(|v| v.is_some_and(|n| n > base.len()))
        .count();
    assert!(
        churn_wins > 1000,
        "churn rules win only {churn_wins} verdicts"
    );

    let encode = |rule: &AclRule, number: usize, priority: u32| -> EncodedEntry {
        let mut spec = rule.entry(number - 1, number);
        spec.priority = Some(priority);
        encode_entry(&table, &spec).unwrap_or_else(|e| panic!("{e}"))
    };
    let mut store = Store::open(&pipeline, &table).unwrap_or_else(|e| panic!("{e}"));
    let base_entries: Vec<EncodedEntry> = (base.iter().enumerate())
        .map(|(i, r)| encode(r, i + 1, base_priority(i)))
        .collect();
    store
        .insert_all(&base_entries)
        .unwrap_or_else(|e| panic!("{e}"));
    let entries: Vec<EncodedEntry> = (updates.iter())
        .map(|u| encode(&churn[u.rule], base.len() + u.rule + 1, u.priority))
        .collect();

    // Updates done so far: a verdict seen while updates b..a ran must be
    // that of the state before or after one of them.
    let done = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let forwarder = {
        let (done, stop, states, probes) =
            (done.clone(), stop.clone(), states.clone(), probes.clone());
        std::thread::spawn(move || {
            let (mut runs, mut wrong) = (0usize, vec![]);
            while !stop.load(Ordering::Acquire) {
                for (p, h) in probes.iter().enumerate() {
                    let before = done.load(Ordering::Acquire);
                    let got = classify(fd, h);
                    let after = done.load(Ordering::Acquire);
                    runs += 1;
                    let last = (after + 1).min(states.len() - 1);
                    let seen = (before..=last).any(|k| states[k][p] == got);
                    if !seen && wrong.len() < 5 {
                        let want: Vec<_> = (before..=last).map(|k| states[k][p]).collect();
                        wrong.push(format!("{h:?} during updates {before}..={after}: got {got:?}, want one of {want:?}"));
                    }
                }
            }
            (runs, wrong)
        })
    };
    let start = std::time::Instant::now();
    for (k, (u, e)) in updates.iter().zip(&entries).enumerate() {
        let applied = if u.insert {
            store.insert(e)
        } else {
            store.remove(e)
        };
        applied.unwrap_or_else(|e| panic!("update {k}: {e}"));
        done.store(k + 1, Ordering::Release);
    }
    let elapsed = start.elapsed();
    // Let the forwarder see the last state too.
    std::thread::sleep(std::time::Duration::from_millis(50));
    stop.store(true, Ordering::Release);
    let (runs, wrong) = forwarder
        .join()
        .unwrap_or_else(|_| panic!("the forwarder panicked"));
    println!(
        "{} rule updates in {:.0} ms ({:.0}/s) under {runs} lookups; churn rules win {churn_wins} of the expected verdicts",
        updates.len(),
        elapsed.as_secs_f64() * 1e3,
        updates.len() as f64 / elapsed.as_secs_f64()
    );
    assert!(wrong.is_empty(), "wrong verdicts under updates: {wrong:#?}");
    assert!(runs > 1000, "only {runs} lookups ran under the updates");
    for (p, h) in probes.iter().enumerate() {
        assert_eq!(
            classify(fd, h),
            states[0][p],
            "after every churn rule left, {h:?}"
        );
    }
}

fn shuffle(items: &mut [usize], random: &mut Random) {
    for i in (1..items.len()).rev() {
        items.swap(i, (random.next_u64() % (i as u64 + 1)) as usize);
    }
}
