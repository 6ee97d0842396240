//! Loader and test-run path against the kernel, with `kernel.c` (a
//! hand-written stand-in for a compiled pipeline) built by clang. Skips,
//! saying why, without root/BPF or clang.

#![allow(clippy::panic, clippy::unwrap_used)] // a failing test should stop loudly

use p4bpf_runtime::entry::EntrySpec;
use p4bpf_runtime::{
    check_bpf_available, counter, names, stf, table, LoadedPipeline, RuntimeError, Verdict,
};
use std::path::{Path, PathBuf};
use std::process::Command;

fn here() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

/// The object built from kernel.c with `defines`, or None (and why) when
/// this machine cannot build or load it.
fn build(test: &str, description: &str, defines: &[&str]) -> Option<Vec<u8>> {
    if let Err(why) = check_bpf_available() {
        eprintln!("skipped {test}: {why}");
        return None;
    }
    let dir = std::env::temp_dir().join(format!("p4bpf-runtime-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let json = std::fs::read_to_string(here().join(description)).ok()?;
    let escaped = json
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n");
    let header = dir.join("pipeline.h");
    std::fs::write(&header, format!("#define PIPELINE_JSON \"{escaped}\"\n")).ok()?;
    let object = dir.join("kernel.o");
    let mut clang = Command::new("clang");
    clang.args([
        "-O2",
        "-g",
        "-target",
        "bpf",
        "-I/usr/include/x86_64-linux-gnu",
        "-include",
    ]);
    clang
        .arg(&header)
        .arg("-c")
        .arg(here().join("kernel.c"))
        .arg("-o")
        .arg(&object);
    clang.args(defines.iter().map(|d| format!("-D{d}")));
    let built = match clang.output() {
        Err(e) => {
            eprintln!("skipped {test}: cannot run clang: {e}");
            return None;
        }
        Ok(out) => {
            assert!(
                out.status.success(),
                "clang failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
            std::fs::read(&object).ok()
        }
    };
    let _ = std::fs::remove_dir_all(&dir);
    built
}

/// `head` padded to the 14 bytes the kernel wants of a test packet.
fn frame(head: &[u8]) -> Vec<u8> {
    let mut packet = head.to_vec();
    packet.resize(16, 0);
    packet
}

fn load(image: Vec<u8>) -> LoadedPipeline {
    LoadedPipeline::from_image(image).unwrap_or_else(|e| panic!("load failed: {e}"))
}

#[test]
fn tables_defaults_counters_and_ports() {
    let Some(image) = build("tables", "kernel.json", &[]) else {
        return;
    };
    let pipeline = load(image);
    let t = names::table(&pipeline.description, "pipe_t").unwrap_or_else(|e| panic!("{e}"));
    let mark = names::action(t, "pipe.mark").unwrap_or_else(|e| panic!("{e}"));
    table::set_default(&pipeline, t, mark, &[]).unwrap_or_else(|e| panic!("{e}"));
    let forward = EntrySpec {
        keys: vec![(0, "10.0.0.1".into())],
        action: 0,
        args: vec![(0, "7".into())],
        priority: None,
    };
    table::add_entry(&pipeline, t, &forward).unwrap_or_else(|e| panic!("{e}"));
    let duplicate = table::add_entry(&pipeline, t, &forward);
    assert!(
        matches!(duplicate, Err(RuntimeError::Value(ref m)) if m.contains("pipe.t")),
        "{duplicate:?}"
    );

    let hit = pipeline
        .run_packet(3, &frame(&[10, 0, 0, 1, 0xaa]))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((hit.verdict, hit.port), (Verdict::Redirect, Some(7)));
    let miss = pipeline
        .run_packet(3, &frame(&[10, 0, 0, 2, 0xaa]))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((miss.verdict, miss.port), (Verdict::Pass, Some(3)));
    assert_eq!(miss.packet, frame(&[0xee, 0, 0, 2, 0xaa]));
    let reject = EntrySpec {
        keys: vec![(0, "0x0a000003".into())],
        action: 1,
        ..EntrySpec::default()
    };
    table::add_entry(&pipeline, t, &reject).unwrap_or_else(|e| panic!("{e}"));
    let dropped = pipeline
        .run_packet(0, &frame(&[10, 0, 0, 3]))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((dropped.verdict, dropped.port), (Verdict::Drop, None));
    // A frame test-run refuses runs on a TUN device (the parser rejects
    // it); an empty one is refused.
    let short = pipeline
        .run_packet(0, &[1])
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((short.verdict, short.port), (Verdict::Drop, None));
    assert!(matches!(
        pipeline.run_packet(0, &[]),
        Err(RuntimeError::NotSupported(_))
    ));
    let bounce = names::action(t, "pipe_bounce").unwrap_or_else(|e| panic!("{e}"));
    let tx = EntrySpec {
        keys: vec![(0, "10.0.0.4".into())],
        action: bounce,
        ..EntrySpec::default()
    };
    table::add_entry(&pipeline, t, &tx).unwrap_or_else(|e| panic!("{e}"));
    let sent_back = pipeline
        .run_packet(5, &frame(&[10, 0, 0, 4]))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (sent_back.verdict, sent_back.port),
        (Verdict::Transmit, Some(5))
    );

    let c = names::counter(&pipeline.description, "pipe_c").unwrap_or_else(|e| panic!("{e}"));
    let value = counter::read(&pipeline, c, 0).unwrap_or_else(|e| panic!("{e}"));
    // The 1-byte frame ran the same program, so it is counted too.
    assert_eq!(value.packets, Some(5));
    assert!(counter::read(&pipeline, c, 4).is_err());
    let stats = pipeline.stats().unwrap_or_else(|e| panic!("{e}"));
    assert!(
        stats.xlated_insns > 10 && stats.verified_insns > 0,
        "{stats:?}"
    );
}

#[test]
fn verifier_rejection_is_typed_with_its_log() {
    let Some(image) = build("verifier", "kernel.json", &["BREAK_VERIFIER"]) else {
        return;
    };
    match LoadedPipeline::from_image(image) {
        Err(RuntimeError::Verifier { program, log, .. }) => {
            assert_eq!(program, "broken");
            assert!(log.contains("invalid access to packet"), "{log}");
        }
        Err(other) => panic!("expected a verifier error, got {other}"),
        Ok(_) => panic!("the broken program loaded"),
    }
}

#[test]
fn stf_script_passes_and_reports_failures() {
    let Some(image) = build("stf", "kernel.json", &[]) else {
        return;
    };
    let pipeline = load(image);
    let script = "\
setdefault pipe_t pipe_reject()
add pipe_t key.field0:0x0a000001 pipe_forward(port:2)
add pipe_t hdr.h.addr:10.0.0.3 pipe.mark()
packet 0 0a000001 55 00000000 00000000 00000000
expect 2 0a000001 **
packet 1 0a000003 66 00000000 00000000 00000000
expect 1 ee000003 66 00000000 00000000 00000000 $
packet 0 0a000009 00000000 00000000 00000000
check_counter pipe_c(0) packets == 3
packet 0 0a000001 77 00000000 00000000 00000000
expect 2 0a000001 78
";
    let file = Path::new("inline.stf");
    let commands = stf::parse(file, script).unwrap_or_else(|e| panic!("{e:?}"));
    let outcome = stf::run(&pipeline, file, &commands);
    assert_eq!(outcome.packets, 4, "{:#?}", outcome.lines);
    assert_eq!(outcome.failures, 1, "{:#?}", outcome.lines);
    let last = outcome.lines.last().map(String::as_str).unwrap_or_default();
    assert!(
        last.starts_with("packet 4 (inline.stf:10) in port 0: redirect to port 2: FAIL"),
        "{last}"
    );
    assert!(last.contains("^"), "{last}");
}

#[test]
fn ternary_entries_share_groups_and_priorities_decide() {
    let Some(image) = build("ternary", "ternary.json", &[]) else {
        return;
    };
    let pipeline = load(image);
    let script = "\
add pipe.acl 10 hdr.h.addr:10.0.0.0&&&255.0.0.0 pipe.drop()
add pipe.acl 20 hdr.h.addr:10.1.0.0&&&255.255.0.0 pipe.pass()
add pipe.acl 5 hdr.h.addr:11.0.0.0&&&255.0.0.0 pipe.pass()
add pipe.acl 30 hdr.h.addr:10.1.2.3&&&255.255.255.255 pipe.drop()
packet 0 0a090000 00000000 00000000 00000000
packet 0 0a010909 00000000 00000000 00000000
expect 0 0a010909 $
packet 0 0a010203 00000000 00000000 00000000
packet 0 0b000001 00000000 00000000 00000000
expect 0 0b000001
";
    let file = Path::new("ternary.stf");
    let commands = stf::parse(file, script).unwrap_or_else(|e| panic!("{e:?}"));
    let outcome = stf::run(&pipeline, file, &commands);
    assert_eq!(
        (outcome.packets, outcome.failures),
        (4, 1),
        "{:#?}",
        outcome.lines
    );
    // `$`: the packet is longer than the 4 bytes expected, the only failure.
    assert!(
        outcome
            .lines
            .iter()
            .any(|l| l.starts_with("packet 2") && l.contains("FAIL")),
        "{:#?}",
        outcome.lines
    );
    let acl = names::table(&pipeline.description, "pipe_acl").unwrap_or_else(|e| panic!("{e}"));
    // Masks nest into coarser groups (a rule is offered its /16 site
    // first, the extra bits checked in its bucket): a /24 and two rules
    // of an odd 255.255.0.255 mask all find room although the table
    // allows only four groups.
    for key in [
        "1.2.3.0&&&255.255.255.0",
        "10.1.0.0&&&255.255.0.255",
        "10.1.0.1&&&255.255.0.255",
    ] {
        let spec = EntrySpec {
            keys: vec![(0, key.into())],
            ..EntrySpec::default()
        };
        let added = table::add_entry(&pipeline, acl, &spec);
        assert!(added.is_ok(), "{key}: {added:?}");
    }
}

#[test]
fn tc_verdicts_and_redirect_port() {
    let Some(image) = build("tc", "tc.json", &[]) else {
        return;
    };
    let pipeline = load(image);
    let script = "\
add pipe_t key.field0:10.0.0.1 pipe_forward(port:9)
add pipe_t key.field0:10.0.0.2 pipe_reject()
add pipe_t key.field0:10.0.0.4 pipe_bounce()
packet 4 0a000001 00000000 00000000 00000000
expect 9 0a000001
packet 5 0a000004 00000000 00000000 00000000
expect 5 0a000004
packet 4 0a000002 00000000 00000000 00000000
packet 4 0a000003 00000000 00000000 00000000
expect 4 0a000003
";
    let file = Path::new("tc.stf");
    let commands = stf::parse(file, script).unwrap_or_else(|e| panic!("{e:?}"));
    let outcome = stf::run(&pipeline, file, &commands);
    assert_eq!(
        (outcome.packets, outcome.failures),
        (4, 0),
        "{:#?}",
        outcome.lines
    );
}
