//! PNA's `allocate_flow_id()` (tests/pna_flow_id/flow_ids.p4): a flow's
//! first packet takes a new id and learns its entry with it; its later
//! packets carry the same id, and other flows get other ids. The STF runs
//! at TC, at XDP and on the user target; the kernel test compares the ids
//! of the learned entries with those packets carry. Skips, saying why,
//! without root/BPF or clang.

#![allow(clippy::panic)] // a failing test should stop loudly

mod common;

use common::{p4bpf, stderr, stdout};
use p4bpf_runtime::{control, LoadedPipeline};
use std::path::PathBuf;

fn program() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/pna_flow_id/flow_ids.p4")
}

#[test]
fn flow_ids_stf_passes_at_tc_xdp_and_in_user_space() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED pna_flow_id STF: {why}");
        return;
    }
    let program = program();
    let script = program.with_extension("stf");
    let (p, s) = (program.to_string_lossy(), script.to_string_lossy());
    for (target, hook) in [("kernel", "tc"), ("kernel", "xdp"), ("user", "tc")] {
        let out = p4bpf(&["test", &p, &s, "--target", target, "--hook", hook]);
        assert!(
            out.status.success(),
            "{target} {hook}:\n{}{}",
            stdout(&out),
            stderr(&out)
        );
    }
}

/// A packet of the flow from `src`; what the pipeline made of it.
fn send(pipeline: &LoadedPipeline, src: u8) -> Vec<u8> {
    let frame = [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, src, 8, 0, 0, 0, 0, 0];
    pipeline
        .run_packet(0, &frame)
        .unwrap_or_else(|e| panic!("{e}"))
        .packet
}

/// The flow id a packet carries.
fn carried(packet: &[u8]) -> u32 {
    packet
        .get(14..18)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map(u32::from_be_bytes)
        .unwrap_or_else(|| panic!("a short packet: {packet:?}"))
}

/// The ids of the learned entries, in the order of their source address.
fn learned(pipeline: &LoadedPipeline) -> Vec<u32> {
    let table = pipeline
        .description
        .table("C.flows")
        .unwrap_or_else(|| panic!("no table C.flows"));
    let mut entries: Vec<(String, String)> = control::dump(pipeline, table)
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .map(|e| (e.keys[0].1.clone(), e.params[0].1.clone()))
        .collect();
    entries.sort();
    entries
        .iter()
        .map(|(_, id)| {
            match id.strip_prefix("0x") {
                Some(hex) => u32::from_str_radix(hex, 16),
                None => id.parse(),
            }
            .unwrap_or_else(|_| panic!("an id: {entries:?}"))
        })
        .collect()
}

#[test]
fn a_flow_keeps_its_id_and_flows_get_distinct_ones() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED pna_flow_id ids: {why}");
        return;
    }
    for hook in ["tc", "xdp"] {
        let dir = common::scratch_dir(&format!("pna_flow_id_{hook}"));
        let out = dir.to_string_lossy().into_owned();
        let compiled = p4bpf(&[
            "compile",
            &program().to_string_lossy(),
            "-o",
            &out,
            "--hook",
            hook,
        ]);
        assert!(compiled.status.success(), "{}", stderr(&compiled));
        let pipeline =
            LoadedPipeline::open(&dir.join("flow_ids.o")).unwrap_or_else(|e| panic!("{hook}: {e}"));
        let flows = [0xa1, 0xa2, 0xa3];
        // The first packets miss: each learns its flow with a new id.
        for src in flows {
            send(&pipeline, src);
        }
        let ids = learned(&pipeline);
        let mut distinct = ids.clone();
        distinct.sort();
        distinct.dedup();
        assert!(
            distinct.len() == flows.len() && !ids.contains(&0),
            "{hook}: distinct ids {ids:x?}"
        );
        // The next ones hit and carry their flow's id.
        let hits: Vec<u32> = flows
            .iter()
            .map(|&src| carried(&send(&pipeline, src)))
            .collect();
        assert_eq!(hits, ids, "{hook}");
    }
}
