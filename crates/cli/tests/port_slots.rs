//! At TC the program finds an output port's interface in the port slots
//! (a direct-mapped array) before the ports hash map: a slot answers only
//! for the key it holds, a port whose slot holds another is found in the
//! hash map, and a port in neither is dropped. Needs root, BPF and clang;
//! skips saying which is missing.

#![allow(clippy::unwrap_used, clippy::panic)] // a failing test should stop loudly

mod common;

use p4bpf_layout::port_slots::{slot_index, slot_value, PORT_SLOTS};
use p4bpf_runtime::map::Write;
use p4bpf_runtime::{LoadedPipeline, Verdict};
use std::path::Path;

fn compiled() -> Option<LoadedPipeline> {
    if let Err(why) = p4bpf_runtime::check_bpf_available() {
        eprintln!("SKIPPED port_slots: {why}");
        return None;
    }
    let dir = common::scratch_dir(&format!("port_slots-{}", std::process::id()));
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/port_slots/redirect.p4");
    let out = dir.join("redirect");
    let built = common::p4bpf(&[
        "compile",
        &source.to_string_lossy(),
        "--hook",
        "tc",
        "-o",
        &out.to_string_lossy(),
    ]);
    assert!(built.status.success(), "{}", common::stderr(&built));
    Some(LoadedPipeline::open(&out.join("redirect.o")).unwrap())
}

/// A frame whose first four bytes name P4 port `port`.
fn frame(port: u32) -> Vec<u8> {
    let mut packet = port.to_be_bytes().to_vec();
    packet.resize(64, 0);
    packet
}

fn verdict(pipeline: &LoadedPipeline, port: u32) -> Verdict {
    pipeline.run_packet(0, &frame(port)).unwrap().verdict
}

#[test]
fn a_slot_answers_for_its_own_key_and_the_hash_map_for_the_rest() {
    let Some(pipeline) = compiled() else {
        return;
    };
    let description = pipeline.description.clone();
    let (Some((hash_name, slots_name)), _) = description.port_slot_maps() else {
        panic!("a TC program that redirects has port slots");
    };
    let (hash, slots) = (
        pipeline.map(&hash_name).unwrap(),
        pipeline.map(&slots_name).unwrap(),
    );
    let loopback = p4bpf_runtime::ports::ifindex("lo").unwrap();
    let colliding = 3 + PORT_SLOTS;
    assert_eq!(slot_index(colliding), slot_index(3));
    let put_slot = |key: u32| {
        let index = slot_index(key).to_ne_bytes();
        slots
            .write(&index, &slot_value(key, loopback), Write::Replace)
            .unwrap();
    };

    assert_eq!(verdict(&pipeline, 3), Verdict::Drop, "mapped nowhere");
    put_slot(3);
    assert_eq!(
        verdict(&pipeline, 3),
        Verdict::Redirect,
        "found in its slot"
    );
    put_slot(colliding);
    assert_eq!(verdict(&pipeline, colliding), Verdict::Redirect);
    assert_eq!(
        verdict(&pipeline, 3),
        Verdict::Drop,
        "its slot holds another port"
    );
    hash.write(&3u32.to_ne_bytes(), &loopback.to_ne_bytes(), Write::Insert)
        .unwrap();
    assert_eq!(
        verdict(&pipeline, 3),
        Verdict::Redirect,
        "found in the hash map"
    );
    assert_eq!(
        verdict(&pipeline, 4),
        Verdict::Drop,
        "an empty slot is no port"
    );
}
