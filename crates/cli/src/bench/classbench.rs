//! `p4bpf bench --classbench DIR`: the ternary/range classifier on
//! ClassBench rule sets. For every `NAME.rules` with its `NAME.trace` in
//! DIR, SUITE/classbench/acl.p4 is loaded with the whole rule set and
//! every trace packet is classified in the kernel and checked against a
//! linear scan of the rules; the trace is timed packet by packet (mean,
//! p50, p99 ns) beside SUITE/classbench/exact.p4, an exact-match table
//! of as many entries keyed by the trace's own headers. Also reported:
//! the verifier's instruction count, the classifier's groups and map
//! bytes, the load time, and the rate of rule updates (a delete and an
//! insert of each of a share of the rules) with the set still correct
//! after them. The rule files are read where they are, never copied.

use p4bpf_runtime::bench::classbench::{self, first_match, rule_of_output, AclRule, Header};
use p4bpf_runtime::bench::classbench_shapes::{shaped_rules, Shape};
use p4bpf_runtime::bench::timing::time_plain;
use p4bpf_runtime::entry::{encode_entry, EncodedEntry};
use p4bpf_runtime::ternary_store::Store;
use p4bpf_runtime::{control, names, test_run, LoadedPipeline};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Trace packets timed in steady state (one call of STEADY_REPEAT runs
/// each): a call with repeats swaps the kernel's XDP dispatcher twice
/// (two RCU grace periods, milliseconds), too slow for a whole trace.
const STEADY_PACKETS: usize = 200;
const STEADY_REPEAT: u32 = 2000;
/// Rules deleted and inserted again for the update rate.
const UPDATE_RULES: usize = 5000;

/// What one rule set measured.
pub struct SetResult {
    pub name: String,
    pub rules: usize,
    pub packets: usize,
    /// Packets whose verdict differs from the linear scan (must be 0).
    pub wrong: usize,
    pub hits: usize,
    pub groups: usize,
    pub acl: Times,
    pub exact: Times,
    /// Steady-state mean ns (see `time_steady`).
    pub acl_steady: f64,
    pub exact_steady: f64,
    pub verified_insns: u32,
    pub xlated_insns: u32,
    pub exact_verified_insns: u32,
    pub map_bytes: u64,
    pub load_ms: f64,
    pub updates_per_s: f64,
    /// The same per second this thread ran on a CPU (the machine's other
    /// load left out).
    pub updates_per_cpu_s: f64,
    /// Packets wrong after the updates (must be 0).
    pub wrong_after_updates: usize,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct Times {
    pub mean: f64,
    pub p50: f64,
    pub p99: f64,
}

fn times(mut ns: Vec<f64>) -> Times {
    ns.sort_by(f64::total_cmp);
    let at = |q: f64| {
        ns.get(((ns.len() as f64 - 1.0) * q).round() as usize)
            .copied()
            .unwrap_or(0.0)
    };
    Times {
        mean: ns.iter().sum::<f64>() / ns.len().max(1) as f64,
        p50: at(0.5),
        p99: at(0.99),
    }
}

/// The rule sets of `dir`: (name, rules file, trace file), by name.
fn rule_sets(dir: &Path) -> Result<Vec<(String, PathBuf, PathBuf)>, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut sets: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rules"))
        .map(|rules| {
            let name = rules
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            (name, rules.with_extension("trace"), rules)
        })
        .filter(|(_, trace, _)| trace.is_file())
        .map(|(name, trace, rules)| (name, rules, trace))
        .collect();
    sets.sort();
    if sets.is_empty() {
        return Err(format!(
            "{} holds no NAME.rules with its NAME.trace",
            dir.display()
        ));
    }
    Ok(sets)
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

fn load(p4: &Path, out_dir: &Path) -> Result<LoadedPipeline, String> {
    let (image, _) = super::build::p4_object(p4, out_dir)?;
    LoadedPipeline::from_image(image).map_err(|e| format!("{}: {e}", p4.display()))
}

/// ns of one run of every packet, as the kernel times it: the spread over
/// the trace, with the timer's own cost in every sample.
fn time_trace(pipeline: &LoadedPipeline, packets: &[Vec<u8>]) -> Result<Vec<f64>, String> {
    let fd = pipeline.program_fd().map_err(|e| e.to_string())?;
    packets
        .iter()
        .map(|p| {
            let out = test_run::run(fd, p, 1).map_err(|e| e.to_string())?;
            Ok(f64::from(out.duration_ns))
        })
        .collect()
}

/// Mean ns per run over STEADY_PACKETS packets spread over the trace,
/// each run STEADY_REPEAT times in one call (warm caches, no timer cost).
fn time_steady(pipeline: &LoadedPipeline, packets: &[Vec<u8>]) -> Result<f64, String> {
    let fd = pipeline.program_fd().map_err(|e| e.to_string())?;
    let step = (packets.len() / STEADY_PACKETS).max(1);
    let sample: Vec<&Vec<u8>> = packets.iter().step_by(step).take(STEADY_PACKETS).collect();
    let mut total = 0.0;
    for p in &sample {
        total += time_plain(fd, p, STEADY_REPEAT)
            .map_err(|e| e.to_string())?
            .kernel_ns;
    }
    Ok(total / sample.len().max(1) as f64)
}

/// Trace packets whose verdict differs from the linear scan of `rules`.
fn wrong_verdicts(
    pipeline: &LoadedPipeline,
    rules: &[AclRule],
    trace: &[Header],
) -> Result<(usize, usize), String> {
    let fd = pipeline.program_fd().map_err(|e| e.to_string())?;
    let (mut wrong, mut hits) = (0, 0);
    for h in trace {
        let out = test_run::run(fd, &h.packet(), 1).map_err(|e| e.to_string())?;
        let want = first_match(rules, h).map(|i| i + 1);
        hits += usize::from(want.is_some());
        wrong += usize::from(rule_of_output(&out.packet) != want);
    }
    Ok((wrong, hits))
}

/// Deletes and inserts again the first UPDATE_RULES rules, one by one;
/// returns updates per second of wall time and of this thread's CPU time.
fn update_rate(store: &mut Store, entries: &[EncodedEntry]) -> Result<(f64, f64), String> {
    let chosen = &entries[..entries.len().min(UPDATE_RULES)];
    let (start, cpu_start) = (Instant::now(), thread_cpu_ns());
    for e in chosen {
        store.remove(e).map_err(|e| e.to_string())?;
        store.insert(e).map_err(|e| e.to_string())?;
    }
    let updates = 2.0 * chosen.len() as f64;
    let cpu_s = thread_cpu_ns().saturating_sub(cpu_start) as f64 / 1e9;
    Ok((
        updates / start.elapsed().as_secs_f64(),
        updates / cpu_s.max(1e-9),
    ))
}

/// Nanoseconds this thread has run on a CPU (user and kernel), from
/// /proc/thread-self/schedstat; 0 where unreadable.
fn thread_cpu_ns() -> u64 {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    let first = stat.split_whitespace().next().unwrap_or_default();
    first.parse().unwrap_or(0)
}

/// A rule set and its trace, read or generated.
struct RuleSet {
    name: String,
    rules: Vec<AclRule>,
    trace: Vec<Header>,
}

fn read_set(name: &str, rules_file: &Path, trace_file: &Path) -> Result<RuleSet, String> {
    let rules = classbench::parse_rules(&read(rules_file)?)
        .map_err(|e| format!("{}: {e}", rules_file.display()))?;
    let trace = classbench::parse_trace(&read(trace_file)?)
        .map_err(|e| format!("{}: {e}", trace_file.display()))?;
    Ok(RuleSet {
        name: name.to_string(),
        rules,
        trace,
    })
}

/// The generated sets: each shape at 1K and 10K rules, a trace of
/// TRACE_PER_RULE packets a rule.
fn shaped_sets() -> Vec<RuleSet> {
    const TRACE_PER_RULE: usize = 5;
    let mut sets = vec![];
    for shape in Shape::ALL {
        for (seed, count) in [(1u64, 1000usize), (2, 10_000)] {
            let rules = shaped_rules(shape, seed, count);
            let trace = classbench::random_headers(seed + 100, &rules, count * TRACE_PER_RULE);
            let name = format!("gen-{}-{}k", shape.name(), count / 1000);
            sets.push(RuleSet { name, rules, trace });
        }
    }
    sets
}

fn measure_set(suite: &Path, out_dir: &Path, set: &RuleSet) -> Result<SetResult, String> {
    let RuleSet { name, rules, trace } = set;
    let acl = load(&suite.join("classbench/acl.p4"), out_dir)?;
    let table = names::table(&acl.description, "acl")
        .map_err(|e| e.to_string())?
        .clone();
    let entries = (0..rules.len())
        .map(|i| encode_entry(&table, &rules[i].entry(i, rules.len())))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let start = Instant::now();
    let mut store = Store::open(&acl, &table).map_err(|e| e.to_string())?;
    store.insert_all(&entries).map_err(|e| e.to_string())?;
    let load_ms = start.elapsed().as_secs_f64() * 1e3;
    let (wrong, hits) = wrong_verdicts(&acl, rules, trace)?;
    let packets: Vec<Vec<u8>> = trace.iter().map(Header::packet).collect();
    let acl_ns = time_trace(&acl, &packets)?;
    let acl_steady = time_steady(&acl, &packets)?;

    let exact = load(&suite.join("classbench/exact.p4"), out_dir)?;
    let exact_table = names::table(&exact.description, "acl")
        .map_err(|e| e.to_string())?
        .clone();
    let mut keys: Vec<Header> = trace.clone();
    keys.sort_by_key(|h| (h.src, h.dst, h.sport, h.dport, h.proto));
    keys.dedup();
    let mut filler = classbench::random_headers(1, &[], rules.len());
    keys.append(&mut filler);
    keys.truncate(rules.len());
    let specs: Vec<_> = keys
        .iter()
        .enumerate()
        .map(|(i, h)| h.exact_entry(i + 1))
        .collect();
    control::insert_batch(&exact, &exact_table, &specs).map_err(|e| e.to_string())?;
    let exact_ns = time_trace(&exact, &packets)?;
    let exact_steady = time_steady(&exact, &packets)?;

    let (updates_per_s, updates_per_cpu_s) = update_rate(&mut store, &entries)?;
    let (wrong_after_updates, _) = wrong_verdicts(&acl, rules, trace)?;
    let stats = acl.stats().map_err(|e| e.to_string())?;
    let exact_stats = exact.stats().map_err(|e| e.to_string())?;
    Ok(SetResult {
        name: name.clone(),
        rules: rules.len(),
        packets: trace.len(),
        wrong,
        hits,
        groups: store.classifier().groups(),
        acl: times(acl_ns),
        exact: times(exact_ns),
        acl_steady,
        exact_steady,
        verified_insns: stats.verified_insns,
        xlated_insns: stats.xlated_insns,
        exact_verified_insns: exact_stats.verified_insns,
        map_bytes: store
            .classifier()
            .map_bytes(&table)
            .map_err(|e| e.to_string())?,
        load_ms,
        updates_per_s,
        updates_per_cpu_s,
        wrong_after_updates,
    })
}

/// Every rule set of `dir`, and with `shapes` the generated ones,
/// measured.
pub fn run(suite: &Path, dir: &Path, shapes: bool) -> Result<Vec<SetResult>, String> {
    let out_dir = std::env::temp_dir().join(format!("p4bpf-classbench-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir)
        .map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;
    let mut sets = rule_sets(dir)?
        .iter()
        .map(|(name, rules, trace)| read_set(name, rules, trace))
        .collect::<Result<Vec<_>, _>>()?;
    if shapes {
        sets.extend(shaped_sets());
    }
    let results = sets
        .iter()
        .map(|set| {
            eprintln!("classbench: {}", set.name);
            measure_set(suite, &out_dir, set)
        })
        .collect();
    let _ = std::fs::remove_dir_all(&out_dir);
    results
}

/// What RESULTS.md says above the table.
pub const RESULTS_HEAD: &str = "# ClassBench on the ternary/range classifier\n\n\
Written by `p4bpf bench --classbench DIR` (see README.md here). mean, p50,\n\
p99: the kernel's BPF_PROG_TEST_RUN time of one run of each trace packet\n\
(the timer's own cost included in every sample); steady: the mean of 200\n\
trace packets run 2000 times each. `wrong` counts trace packets whose rule\n\
differs from a linear scan.\n\n";

/// The kernel and CPU the figures come from.
pub fn machine() -> String {
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .map(|l| l.trim_start_matches([' ', '\t', ':']))
        .unwrap_or("unknown CPU");
    format!("Kernel {}, {cpu}.", kernel.trim())
}

/// The results as a Markdown table.
pub fn markdown(results: &[SetResult]) -> String {
    let mut out = String::from(
        "| set | rules | groups | packets (hits) | wrong (after updates) | mean ns | p50 | p99 | exact mean | p50 | p99 | mean/exact | steady ns (exact) | steady/exact | verified insns (exact) | xlated | map bytes | load ms | updates/s (per CPU s) |\n\
         | --- | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: |\n",
    );
    for r in results {
        out.push_str(&format!(
            "| {} | {} | {} | {} ({}) | {} ({}) | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} | {:.2} | {:.0} ({:.0}) | {:.2} | {} ({}) | {} | {} | {:.0} | {:.0} ({:.0}) |\n",
            r.name,
            r.rules,
            r.groups,
            r.packets,
            r.hits,
            r.wrong,
            r.wrong_after_updates,
            r.acl.mean,
            r.acl.p50,
            r.acl.p99,
            r.exact.mean,
            r.exact.p50,
            r.exact.p99,
            r.acl.mean / r.exact.mean.max(1.0),
            r.acl_steady,
            r.exact_steady,
            r.acl_steady / r.exact_steady.max(1.0),
            r.verified_insns,
            r.exact_verified_insns,
            r.xlated_insns,
            r.map_bytes,
            r.load_ms,
            r.updates_per_s,
            r.updates_per_cpu_s,
        ));
    }
    out
}
