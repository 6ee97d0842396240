//! `p4bpf bench --table-cache`: what `--table-caching` saves on a repeated
//! flow. One ternary table of the table matrix (`matrix::program`: the
//! IPv4 destination and the next word as key) holding one rule per mask,
//! 1 to 64 unrelated masks (pseudo-random bits in both words), none
//! matching the packet, and the packet's rule (both words whole) at the
//! lowest priority, so the search walks every group. Compiled with and
//! without the cache, filled alike and timed on the same packet in
//! interleaved rounds: after the first run every packet of the cached
//! build is a cache hit.

use super::fill::P4Entry;
use super::matrix::{self, Kind, Point};
use super::{build, Request};
use p4bpf_compiler::{CompileOptions, Hook};
use p4bpf_runtime::bench::{median, time_plain, BenchObject};
use std::fmt::Write;
use std::path::Path;

/// XDP_TX: the verdict of the packet's rule (a miss drops).
const XDP_TX: u32 = 3;

/// The mask counts measured.
const MASKS: [u32; 4] = [1, 8, 32, 64];

/// One row: masks, the groups the classifier made of them, then median
/// ns/packet without and with the cache.
pub struct Row {
    pub masks: u32,
    pub groups: usize,
    pub plain_ns: f64,
    pub cached_ns: f64,
}

/// Times every mask count; `scratch` holds the programs.
pub fn run(request: &Request, scratch: &Path) -> Result<Vec<Row>, String> {
    let wire = matrix::packet();
    let mut rows = Vec::new();
    for masks in MASKS {
        let point = Point {
            series: "cache",
            kind: Kind::Ternary,
            tables: 1,
            entries: masks + 1,
            masks,
            key_bytes: 8,
        };
        let source = scratch.join(format!("cache_{masks}m.p4"));
        std::fs::write(&source, matrix::program(&point))
            .map_err(|e| format!("cannot write {}: {e}", source.display()))?;
        let mut subjects = Vec::new();
        let mut groups = 0;
        for caching in [false, true] {
            let (image, pipeline) = compiled(&source, scratch, caching)?;
            let object = BenchObject::load(image).map_err(|e| e.to_string())?;
            let rules = entries(masks);
            groups = group_count(&pipeline, &rules)?;
            matrix::write(&object, &pipeline, &rules)?;
            let fd = object
                .program_fd(&pipeline.entry)
                .map_err(|e| e.to_string())?;
            subjects.push((object, fd, Vec::new()));
        }
        for _ in 0..request.rounds {
            for (_, fd, samples) in &mut subjects {
                let timing = time_plain(*fd, &wire, request.repeat).map_err(|e| e.to_string())?;
                if timing.verdict != XDP_TX {
                    return Err(format!(
                        "{masks} masks: the packet missed (verdict {})",
                        timing.verdict
                    ));
                }
                samples.push(timing.kernel_ns);
            }
        }
        let ns = |i: usize| {
            subjects
                .get(i)
                .and_then(|s| median(&s.2))
                .unwrap_or(f64::NAN)
        };
        eprintln!("{masks} masks: {:.1} ns, cached {:.1} ns", ns(0), ns(1));
        rows.push(Row {
            masks,
            groups,
            plain_ns: ns(0),
            cached_ns: ns(1),
        });
    }
    Ok(rows)
}

/// One rule per mask, none matching the packet, then the packet's at the
/// lowest priority.
fn entries(masks: u32) -> Vec<P4Entry> {
    let packet = [matrix::key_word(0), matrix::key_word(1)];
    let mut state = 0x2545_f491_u32;
    let mut next = || {
        // xorshift32: the same masks on every run.
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state
    };
    let rule = |words: [(u32, u32); 2], priority: u32| P4Entry {
        table: "C.t0".into(),
        keys: words
            .iter()
            .map(|(v, m)| format!("{:#x}&&&{m:#x}", v & m))
            .collect(),
        action: "forward".into(),
        args: vec![format!("{:#x}", 0x0200_0000_0000u64 + u64::from(priority))],
        priority: Some(priority),
    };
    let mut out: Vec<P4Entry> = (0..masks)
        .map(|i| {
            let (m0, m1) = (next() | 1, next());
            // Bit 0 of the first word flipped: never the packet's.
            rule([(packet[0] ^ 1, m0), (packet[1], m1)], 2 + i)
        })
        .collect();
    out.push(rule([(packet[0], u32::MAX), (packet[1], u32::MAX)], 1));
    out
}

/// How many groups the control plane makes of `rules`.
fn group_count(pipeline: &p4bpf_layout::Pipeline, rules: &[P4Entry]) -> Result<usize, String> {
    let table = p4bpf_runtime::names::table(pipeline, "C.t0").map_err(|e| e.to_string())?;
    let mut classifier = p4bpf_runtime::ternary::Classifier::default();
    for r in rules {
        let spec = p4bpf_runtime::entry::EntrySpec {
            keys: r.keys.iter().cloned().enumerate().collect(),
            action: p4bpf_runtime::names::action(table, &r.action).map_err(|e| e.to_string())?,
            args: r.args.iter().cloned().enumerate().collect(),
            priority: r.priority,
        };
        let encoded =
            p4bpf_runtime::entry::encode_entry(table, &spec).map_err(|e| e.to_string())?;
        classifier
            .insert(table, &encoded)
            .map_err(|e| e.to_string())?;
    }
    Ok(classifier.groups())
}

fn compiled(
    source: &Path,
    scratch: &Path,
    caching: bool,
) -> Result<(Vec<u8>, p4bpf_layout::Pipeline), String> {
    let out_dir = scratch.join(if caching { "cached" } else { "plain" });
    let options = CompileOptions {
        out_dir,
        hook: Hook::Xdp,
        table_caching: caching,
        port_notes: false,
        ..crate::target::default_compile_options()
    };
    build::p4_object_with(source, &options)
}

/// The rows as Markdown, with how they were measured.
pub fn markdown(request: &Request, rows: &[Row], load: &(String, String)) -> String {
    let mut out = String::from("# Table cache (`--table-caching`)\n\n");
    let _ = writeln!(
        out,
        "One ternary table (IPv4 destination and the next word) with one rule per\n\
         pseudo-random mask, none matching, and the packet's rule at the lowest\n\
         priority (so every group is walked), with and without its cache, on one\n\
         repeated flow at XDP: median over {} interleaved rounds of the kernel's\n\
         average ns per `BPF_PROG_TEST_RUN` over {} runs (`p4bpf bench --table-cache`;\n\
         load {} at the start, {} at the end).\n",
        request.rounds, request.repeat, load.0, load.1
    );
    out.push_str("| masks | groups | no cache ns | cache ns | cache / no cache |\n|---:|---:|---:|---:|---:|\n");
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {:.1} | {:.1} | {:.2}x |",
            r.masks,
            r.groups,
            r.plain_ns,
            r.cached_ns,
            r.cached_ns / r.plain_ns
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every mask rule misses the packet's key; the packet's rule is last
    /// and lowest.
    #[test]
    fn mask_rules_miss_the_packet_and_its_rule_comes_last() {
        let rules = entries(64);
        assert_eq!(rules.len(), 65);
        let packet = [matrix::key_word(0), matrix::key_word(1)];
        let parse = |text: &str| {
            let (v, m) = text.split_once("&&&").unwrap_or(("0", "0"));
            let n = |t: &str| u32::from_str_radix(t.trim_start_matches("0x"), 16).unwrap_or(0);
            (n(v), n(m))
        };
        let matches = |r: &P4Entry| {
            r.keys.iter().zip(packet).all(|(k, word)| {
                let (v, m) = parse(k);
                word & m == v
            })
        };
        let Some((last, masked)) = rules.split_last() else {
            unreachable!("65 rules")
        };
        assert!(matches(last) && last.priority == Some(1));
        assert!(masked.iter().all(|r| !matches(r) && r.priority > Some(1)));
        let mut masks: Vec<&String> = masked.iter().filter_map(|r| r.keys.first()).collect();
        masks.dedup();
        assert_eq!(masks.len(), 64, "the masks differ");
    }
}
