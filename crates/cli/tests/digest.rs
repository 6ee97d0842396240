//! Digests end to end: our v1model, PSA and PNA programs (tests/digest/) send
//! digests checked by `expect_digest` on the kernel target at XDP and TC
//! and on the user target; a wrong expectation fails; the PTF suite's
//! digest scenarios (DigestPSATest, WideFieldDigest) run as STF against
//! the corpus's programs; a ring nobody reads fills, and what it loses is
//! counted exactly; data a record cannot carry flat is refused at its
//! place. Skips, saying why, without root/BPF, clang or the corpus.

mod common;

use p4bpf_runtime::digest::{self, DigestReader};
use p4bpf_runtime::LoadedPipeline;
use std::path::{Path, PathBuf};

const TARGETS: [&[&str]; 4] = [
    &["--target", "kernel", "--hook", "xdp"],
    &["--target", "kernel", "--hook", "tc"],
    &["--target", "user", "--hook", "xdp"],
    &["--target", "user", "--hook", "tc"],
];

fn own(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/digest")
        .join(name)
}

/// `p4bpf test` on every target: (passed, target, output) each.
fn run_stf(program: &Path, script: &Path, defines: &[&str]) -> Vec<(bool, String, String)> {
    TARGETS
        .iter()
        .map(|target| {
            let (p, s) = (program.to_string_lossy(), script.to_string_lossy());
            // Written for the reference harness, P4TC programs' too.
            let mut args = vec!["test", p.as_ref(), s.as_ref(), "--stf-reading", "reference"];
            args.extend_from_slice(target);
            args.extend_from_slice(defines);
            let out = common::p4bpf(&args);
            let text = format!("{}{}", common::stdout(&out), common::stderr(&out));
            (out.status.success(), target.join(" "), text)
        })
        .collect()
}

#[test]
fn v1model_psa_and_pna_digests_arrive_with_their_values_on_every_target() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED digests on every target: {why}");
        return;
    }
    for (program, digests) in [
        ("v1model_digests", 2),
        ("psa_digests", 5),
        ("pna_digests", 2),
        ("pna_scalar_digests", 4),
    ] {
        let p4 = own(&format!("{program}.p4"));
        let stf = own(&format!("{program}.stf"));
        for (ok, target, text) in run_stf(&p4, &stf, &[]) {
            assert!(ok, "{program} {target}:\n{text}");
            let matched = text.matches("ok (expect_digest at line").count();
            assert_eq!(matched, digests, "{program} {target}:\n{text}");
        }
    }
}

#[test]
fn a_digest_that_differs_or_never_comes_fails_the_script() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED digest failures: {why}");
        return;
    }
    let dir = common::scratch_dir("digest_failures");
    let stf = std::fs::read_to_string(own("v1model_digests.stf")).expect("stf");
    let wrong = common::write(&dir, "wrong.stf", &stf.replace("b=0x1abc", "b=0x1abd"));
    let extra = common::write(&dir, "extra.stf", &format!("{stf}expect_digest odd_t\n"));
    let unexpected = common::write(
        &dir,
        "unexpected.stf",
        &stf.replace("expect_digest odd_t a=5 b=0x1abc c=1 wide=0xf1 d=1\n", ""),
    );
    for (script, says) in [
        (wrong, "b is 6844, expected 0x1abd"),
        (extra, "FAIL, no digest came for it"),
        (unexpected, "FAIL, no digest was expected"),
    ] {
        for (ok, target, text) in run_stf(&own("v1model_digests.p4"), &script, &[]) {
            assert!(!ok && text.contains(says), "{target}: {says}:\n{text}");
        }
    }
}

/// The PTF suite's (psa-ebpf-ptf/test.py) digest scenarios as STF, against
/// the corpus programs they use, compiled with the suite's port numbers.
const PTF_SCENARIOS: [(&str, &str); 2] = [
    (
        "psa-ebpf/digest.p4",
        "packet 0 000000000001 fafbfcfdfef0 0800 4500001400010000400066e70a0000010a000002\n\
         packet 0 000000000001 fafbfcfdfef0 0800 4500001400010000400066e70a0000010a000002\n\
         packet 0 000000000001 fafbfcfdfef0 0800 4500001400010000400066e70a0000010a000002\n\
         expect_digest mac_learn_digest srcAddr=0xfafbfcfdfef0 ingress_port=0\n\
         expect_digest mac_learn_digest srcAddr=0xfafbfcfdfef0 ingress_port=0\n\
         expect_digest mac_learn_digest srcAddr=0xfafbfcfdfef0 ingress_port=0\n",
    ),
    (
        "psa-ebpf/wide-field-digest.p4",
        "packet 0 000000000001 000000000002 86dd 6000000000143b40 00000000000000000000000000000002 00000000000000000000000000000001 4500001400010000400066e70a0000010a000002\n\
         expect 0 000000000001 000000000002 86dd 6000000000143b40 00000000000000000000000000000002 00000000000000000000000000000001 4500001400010000400066e70a0000010a000002\n\
         expect_digest d srcAddr=2 info=1023\n",
    ),
];

#[test]
fn the_ptf_digest_scenarios_pass_as_stf() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED PTF digest scenarios: {why}");
        return;
    }
    let Some(corpus) = common::corpus_dir() else {
        eprintln!("SKIPPED PTF digest scenarios: no corpus at ../shared");
        return;
    };
    let dir = common::scratch_dir("digest_ptf");
    let defines = [
        "-D",
        "PORT0=0",
        "-D",
        "PORT1=1",
        "-D",
        "PORT2=2",
        "-D",
        "PSA_RECIRC=3",
    ];
    for (i, (program, script)) in PTF_SCENARIOS.iter().enumerate() {
        let stf = common::write(&dir, &format!("scenario{i}.stf"), script);
        for (ok, target, text) in run_stf(&corpus.join(program), &stf, &defines) {
            let digests = script.matches("expect_digest").count();
            let matched = text.matches("ok (expect_digest at line").count();
            assert!(ok && matched == digests, "{program} {target}:\n{text}");
        }
    }
}

/// Frames from an unknown source: each misses `smac` and sends a digest.
fn learning_frame(i: u32) -> Vec<u8> {
    let mut frame = vec![0xff; 6];
    frame.extend_from_slice(&[0x02, 0, 0, 0]);
    frame.extend_from_slice(&(i as u16).to_be_bytes());
    frame.extend_from_slice(&[0x12, 0x34, 0, 0, 0, 0]);
    frame
}

#[test]
fn a_full_ring_loses_digests_and_counts_every_one() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED full digest ring: {why}");
        return;
    }
    let dir = common::scratch_dir("digest_full_ring");
    let out = dir.to_string_lossy();
    let program = own("v1model_digests.p4");
    let compiled = common::p4bpf(&["compile", &program.to_string_lossy(), "-o", &out]);
    assert!(compiled.status.success(), "{}", common::stderr(&compiled));
    let pipeline = LoadedPipeline::open(&dir.join("v1model_digests.o")).expect("loads");
    let mut reader = DigestReader::open(&pipeline).expect("digest ring");
    let layout = reader.layout().clone();
    // A learning record is 8 bytes of ring header, the 8-byte tag and the
    // 16-byte struct; the kernel keeps a byte of the 256 KiB ring free, so
    // it holds 8191 of them.
    let (sent, room) = (9000u32, layout.ring_bytes / 32 - 1);
    for i in 0..sent {
        pipeline.run_packet(1, &learning_frame(i)).expect("runs");
    }
    let mut received = vec![];
    loop {
        let batch = reader.next_batch(0).expect("reads");
        if batch.is_empty() {
            break;
        }
        received.extend(batch);
    }
    let lost = digest::lost(&pipeline, &layout).expect("loss counter");
    assert_eq!(received.len() as u32, room, "what the ring held");
    assert_eq!(u64::from(sent - room), lost, "every lost digest is counted");
    // The ring kept the first ones, in order; the rest were lost.
    assert_eq!(received[0].field("srcAddr"), Some("02:00:00:00:00:00"));
    assert_eq!(received[1].field("srcAddr"), Some("02:00:00:00:00:01"));
    let last = format!(
        "02:00:00:00:{:02x}:{:02x}",
        (room - 1) >> 8,
        (room - 1) & 0xff
    );
    assert_eq!(
        received[room as usize - 1].field("srcAddr"),
        Some(last.as_str())
    );
    // Read, the ring takes digests again.
    pipeline.run_packet(1, &learning_frame(7)).expect("runs");
    let again = reader.next_batch(0).expect("reads");
    assert_eq!(again.len(), 1);
    assert_eq!(
        again[0].to_string(),
        "digest mac_learn_digest_t: srcAddr=02:00:00:00:00:07 ingress_port=1"
    );
}

#[test]
fn data_a_record_cannot_carry_flat_is_refused_where_it_is_sent() {
    let dir = common::scratch_dir("digest_refusals");
    let source = std::fs::read_to_string(own("v1model_digests.p4")).expect("program");
    for (from, to, says) in [
        (
            "digest(2, o);",
            "digest(2, hdr);",
            "a digest's data must be a bit string, boolean or error, or a struct of them",
        ),
        (
            "digest(2, o);",
            "digest(2, o.b);",
            "a digest's data must be a struct of bit strings, booleans and errors (v1model names the digest after it)",
        ),
        (
            "struct odd_t { bit<3> a;",
            "struct odd_t { bit<512> w1; bit<512> w2; bit<512> w3; bit<512> w4; bit<512> w5; bit<3> a;",
            "bytes; the eBPF target sends at most 256",
        ),
    ] {
        let p4 = common::write(&dir, "refused.p4", &source.replace(from, to));
        let out = common::p4bpf(&["compile", &p4.to_string_lossy(), "-o", &dir.to_string_lossy()]);
        let stderr = common::stderr(&out);
        assert!(!out.status.success(), "{to} compiled");
        assert!(stderr.contains(says), "{to}:\n{stderr}");
        let line = source
            .lines()
            .position(|l| l.contains("digest(2, o);"))
            .map_or(0, |i| i + 1);
        assert!(stderr.contains(&format!("refused.p4:{line}:")), "{to}:\n{stderr}");
    }
}
