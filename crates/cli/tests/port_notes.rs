//! The output record's port notes are for test runs: a pipeline loaded
//! with them off (as `p4bpf pipeline load` and the bench load it) notes
//! neither the port a packet leaves by nor reads the input port a harness
//! noted, and the verifier drops that code; loaded as `p4bpf test` loads
//! it, both work as before. Needs root, BPF and clang; skips saying which
//! is missing.

#![allow(clippy::unwrap_used, clippy::panic)] // a failing test should stop loudly

mod common;

use p4bpf_runtime::map::Write;
use p4bpf_runtime::object::PortNotes;
use p4bpf_runtime::{LoadedPipeline, Verdict};
use std::path::Path;

/// The fixture's object compiled for `hook`, or `None` (said why) where
/// programs cannot be loaded.
fn compiled(hook: &str, test: &str) -> Option<Vec<u8>> {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED port_notes: {why}");
        return None;
    }
    // One folder per test: the tests run in parallel.
    let dir = common::scratch_dir(&format!("port_notes-{test}-{hook}-{}", std::process::id()));
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/port_notes/redirect.p4");
    let out = dir.join("redirect");
    let built = common::p4bpf(&[
        "compile",
        &source.to_string_lossy(),
        "--hook",
        hook,
        "-o",
        &out.to_string_lossy(),
    ]);
    assert!(built.status.success(), "{}", common::stderr(&built));
    Some(std::fs::read(out.join("redirect.o")).unwrap())
}

/// `image` loaded with its notes as `notes` says, P4 port `port` sent to
/// the loopback interface.
fn loaded(image: &[u8], notes: PortNotes, port: u32) -> LoadedPipeline {
    let pipeline = LoadedPipeline::from_image_with(image.to_vec(), notes).unwrap();
    let Some(ports) = pipeline.description.port_map.clone() else {
        panic!("a program that redirects has a port map");
    };
    let loopback = p4bpf_runtime::ports::ifindex("lo").unwrap();
    let map = pipeline.map(&ports).unwrap();
    map.write(&port.to_ne_bytes(), &loopback.to_ne_bytes(), Write::Insert)
        .unwrap();
    pipeline
}

/// A frame whose first four bytes name P4 port `port`.
fn frame(port: u32) -> Vec<u8> {
    let mut packet = port.to_be_bytes().to_vec();
    packet.resize(64, 0);
    packet
}

#[test]
fn kept_notes_give_the_output_port_and_take_the_noted_input_port() {
    let Some(image) = compiled("tc", "kept") else {
        return;
    };
    let pipeline = loaded(&image, PortNotes::Kept, 3);
    let out = pipeline.run_packet(0, &frame(3)).unwrap();
    assert_eq!((out.verdict, out.port), (Verdict::Redirect, Some(3)));
    let pipeline = loaded(&image, PortNotes::Kept, 5);
    let back = pipeline.run_packet(5, &frame(0)).unwrap();
    assert_eq!(
        (back.verdict, back.port),
        (Verdict::Redirect, Some(5)),
        "the program takes the input port the harness noted"
    );
}

#[test]
fn without_notes_the_program_neither_notes_nor_reads_the_record() {
    let Some(image) = compiled("tc", "off") else {
        return;
    };
    let pipeline = loaded(&image, PortNotes::Off, 3);
    let out = pipeline.run_packet(0, &frame(3)).unwrap();
    assert_eq!(
        (out.verdict, out.port),
        (Verdict::Redirect, None),
        "redirected, but no port noted"
    );
    let pipeline = loaded(&image, PortNotes::Off, 5);
    let back = pipeline.run_packet(5, &frame(0)).unwrap();
    assert_eq!(
        back.verdict,
        Verdict::Drop,
        "the noted input port 5 is not read: the test run's interface has no P4 port 5"
    );
}

#[test]
fn the_verifier_drops_the_notes_at_both_hooks() {
    for hook in ["tc", "xdp"] {
        let Some(image) = compiled(hook, "dropped") else {
            return;
        };
        let kept = loaded(&image, PortNotes::Kept, 3).stats().unwrap();
        let off = loaded(&image, PortNotes::Off, 3).stats().unwrap();
        assert!(
            off.xlated_insns < kept.xlated_insns,
            "{hook}: {} instructions without notes, {} with",
            off.xlated_insns,
            kept.xlated_insns
        );
    }
}
