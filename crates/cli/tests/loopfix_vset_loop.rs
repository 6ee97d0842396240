//! A parser loop compiled as a function (`emit/parser_loop.rs`, one
//! state per call) reads a value set's live half once per packet, as the
//! inline parser does: tests/loopfix_vset_loop/loop.p4 walks four keys,
//! one per turn of a loop, probing an exact and a ternary set each turn,
//! while one thread rewrites both sets over and over, alternating members
//! A and B, and another runs packets (BPF_PROG_TEST_RUN) at kernel XDP
//! and TC. Every packet must come back with A's membership pattern or
//! B's; a loop re-reading the halves at each call mixes them when a flip
//! lands between turns. Skips, saying why, without root/BPF or clang.

#![allow(clippy::panic)] // a failing test should stop loudly

mod common;

use common::{p4bpf, scratch_dir, stderr};
use p4bpf_runtime::deploy::{self, Deployment, LoadOptions, XdpMode};
use p4bpf_runtime::value_set::{self, FieldMatch, Member};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// The probe keys: in A only, in both (at another slot), in B only, in
/// neither.
const KEYS: [u16; 4] = [0x1111, 0x2222, 0x3333, 0x4444];
/// The marks of A's and B's members: each turn shifts the mark left, so
/// probe `i` found a member when bit `3 - i` is set.
const PATTERN_A: u8 = 0b1100;
const PATTERN_B: u8 = 0b0110;
/// Rewrites of each set per run.
const REWRITES: usize = 300;

fn exact(key: u16) -> Member {
    vec![FieldMatch::Exact(key.to_be_bytes().to_vec())]
}

/// A ternary member matching `key`'s top byte.
fn ternary(key: u16) -> Member {
    vec![FieldMatch::Ternary {
        value: (key & 0xff00).to_be_bytes().to_vec(),
        mask: 0xff00u16.to_be_bytes().to_vec(),
    }]
}

/// Members A and B in the order they are written: the shared key is
/// A's second member and B's first.
fn members(kind: fn(u16) -> Member) -> [Vec<Member>; 2] {
    [
        vec![kind(KEYS[0]), kind(KEYS[1])],
        vec![kind(KEYS[1]), kind(KEYS[2])],
    ]
}

/// Unloads the pipeline when the test ends.
struct Loaded(String);

impl Drop for Loaded {
    fn drop(&mut self) {
        let _ = deploy::unload(&self.0);
    }
}

fn load(hook: &str) -> Loaded {
    let dir = scratch_dir(&format!("loopfix_vset_loop_{hook}"));
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/loopfix_vset_loop/loop.p4");
    let out = dir.to_string_lossy().into_owned();
    let args = [
        "compile",
        &program.to_string_lossy(),
        "--hook",
        hook,
        "-o",
        &out,
    ];
    let compiled = p4bpf(&args);
    assert!(compiled.status.success(), "{}", stderr(&compiled));
    let image = std::fs::read(dir.join("loop.o")).unwrap_or_else(|e| panic!("loop.o: {e}"));
    let name = format!("loopfixvset{hook}{}", std::process::id());
    let options = LoadOptions {
        name: name.clone(),
        xdp_mode: XdpMode::Generic,
        p4info: None,
    };
    deploy::load(image, &options).unwrap_or_else(|e| panic!("loading: {e}"));
    Loaded(name)
}

/// Writes A and B alternately into both sets, `rounds` times, A first.
fn rewrite(pipeline: &str, rounds: usize) {
    let deployment = Deployment::open(pipeline).unwrap_or_else(|e| panic!("{e}"));
    let description = &deployment.description;
    let set = |name| value_set::find(description, name).unwrap_or_else(|e| panic!("{e}"));
    let (exact_set, tern_set) = (set("InParser.exact_set"), set("InParser.tern_set"));
    let (exact_members, tern_members) = (members(exact), members(ternary));
    for round in 0..rounds {
        let which = round % 2;
        value_set::replace(&deployment, exact_set, &exact_members[which])
            .unwrap_or_else(|e| panic!("{e}"));
        value_set::replace(&deployment, tern_set, &tern_members[which])
            .unwrap_or_else(|e| panic!("{e}"));
    }
}

/// The probe packet: Ethernet, two zero marks, the four keys.
fn probe() -> Vec<u8> {
    let mut frame = vec![0u8; 12];
    frame.extend_from_slice(&[0x90, 0x00, 0, 0]);
    for key in KEYS {
        frame.extend_from_slice(&key.to_be_bytes());
    }
    frame
}

/// Runs probes until `done`: the marks of every packet, how many runs.
fn send(pipeline: &str, done: &AtomicBool) -> (Vec<(u8, u8)>, usize) {
    let deployment = Deployment::open(pipeline).unwrap_or_else(|e| panic!("{e}"));
    let program = deployment.program().unwrap_or_else(|e| panic!("{e}"));
    let fd = std::os::fd::AsRawFd::as_raw_fd(&program);
    let frame = probe();
    let (mut odd, mut runs) = (vec![], 0);
    while !done.load(Ordering::Relaxed) || runs == 0 {
        let out = p4bpf_runtime::test_run::run(fd, &frame, 1).unwrap_or_else(|e| panic!("{e}"));
        let marks = out
            .packet
            .get(14..16)
            .unwrap_or_else(|| panic!("short output"));
        let (m_exact, m_tern) = (marks[0], marks[1]);
        runs += 1;
        let whole = |m: u8| m == PATTERN_A || m == PATTERN_B;
        if !whole(m_exact) || !whole(m_tern) {
            odd.push((m_exact, m_tern));
        }
    }
    (odd, runs)
}

fn check(hook: &str) {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED loopfix_vset_loop at {hook}: {why}");
        return;
    }
    let loaded = load(hook);
    let pipeline = loaded.0.as_str();
    // Packets start once the sets hold A.
    rewrite(pipeline, 1);
    let done = AtomicBool::new(false);
    let (odd, runs) = std::thread::scope(|scope| {
        let sender = scope.spawn(|| send(pipeline, &done));
        // The sender stops even when the writer fails.
        let written = std::panic::catch_unwind(|| rewrite(pipeline, REWRITES));
        done.store(true, Ordering::Relaxed);
        let sent = sender.join();
        if let Err(why) = written {
            std::panic::resume_unwind(why);
        }
        sent.unwrap_or_else(|_| panic!("the sender failed"))
    });
    eprintln!("{hook}: {runs} packets during {REWRITES} rewrites of each set");
    assert!(
        odd.is_empty(),
        "{hook}: {} of {runs} packets saw a mix of members (exact, ternary marks): {:?}",
        odd.len(),
        &odd[..odd.len().min(10)]
    );
}

#[test]
fn a_parser_loop_sees_the_old_set_or_the_new_at_xdp() {
    check("xdp");
}

#[test]
fn a_parser_loop_sees_the_old_set_or_the_new_at_tc() {
    check("tc");
}
