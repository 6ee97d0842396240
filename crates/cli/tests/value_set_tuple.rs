//! A value set matched against several select keys: a member written into
//! the loaded pipeline's value-set map (with bpftool: p4bpf has no value
//! set command yet) sends exactly that tuple of keys to the value set's
//! state, in the kernel. `tests/v1model/value_set_tuple.stf` checks the
//! empty set on every target. Skips, saying why, without root/BPF or bpftool.

#![allow(clippy::panic)] // a failing test should stop loudly

mod common;

use common::{p4bpf, scratch_dir, stderr};
use p4bpf_runtime::pcap::{self, Record};
use std::path::Path;
use std::process::Command;

/// Unloads the pipeline when the test ends, passed or not.
struct Unload(String);

impl Drop for Unload {
    fn drop(&mut self) {
        let _ = p4bpf(&["pipeline", "unload", &self.0]);
    }
}

/// An Ethernet frame with the program's `tag_t` (a, b:4 c:4, seen).
fn frame(a: u8, b: u8, c: u8) -> Vec<u8> {
    let mut f = vec![0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0x12, 0x34];
    f.extend([a, (b << 4) | c, 0]);
    f
}

/// `bpftool map update pinned MAP key hex KEY value hex VALUE`.
fn bpftool_update(map: &str, key: &[&str], value: &[&str]) {
    let out = Command::new("bpftool")
        .args(["map", "update", "pinned", map, "key", "hex"])
        .args(key)
        .args(["value", "hex"])
        .args(value)
        .output()
        .unwrap_or_else(|e| panic!("bpftool: {e}"));
    assert!(
        out.status.success(),
        "{map}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_member_of_a_tuple_value_set_matches_only_its_tuple() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("skipped: {why}");
        return;
    }
    if Command::new("bpftool").arg("version").output().is_err() {
        eprintln!("skipped: bpftool is not installed");
        return;
    }
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/v1model/value_set_tuple.p4");
    let name = format!("vstuple{}", std::process::id());
    let loaded = p4bpf(&[
        "pipeline",
        "load",
        &program.to_string_lossy(),
        "--name",
        &name,
        "--hook",
        "xdp",
    ]);
    assert!(loaded.status.success(), "{}", stderr(&loaded));
    let _unload = Unload(name.clone());
    let pinned = format!("/sys/fs/bpf/p4bpf/{name}");
    // struct member_t { u8 a; struct pair_t { u8 b; u8 c; } pair; }
    bpftool_update(
        &format!("{pinned}/maps/MyParser_known"),
        &["11", "05", "06"],
        &["01"],
    );
    // P4 port 1 -> the loopback interface, so redirected packets are let out.
    bpftool_update(
        &format!("{pinned}/ports"),
        &["01", "00", "00", "00"],
        &["01", "00", "00", "00"],
    );
    // The member; the exact case; one key off the member (no case);
    // the member's keys in another order.
    let input = [
        frame(0x11, 5, 6),
        frame(0x11, 2, 3),
        frame(0x11, 5, 7),
        frame(0x11, 6, 5),
    ];
    let want_seen = [1, 2, 0, 0];
    let dir = scratch_dir("value_set_tuple");
    let records: Vec<Record> = input
        .iter()
        .enumerate()
        .map(|(i, data)| Record {
            seconds: i as u32,
            micros: 0,
            data: data.clone(),
        })
        .collect();
    let (inp, out) = (dir.join("in.pcap"), dir.join("out.pcap"));
    std::fs::write(&inp, pcap::write(&records)).unwrap_or_else(|e| panic!("{e}"));
    let ran = p4bpf(&[
        "run",
        "--pipeline",
        &name,
        "--in",
        &inp.to_string_lossy(),
        "--out",
        &out.to_string_lossy(),
    ]);
    assert!(ran.status.success(), "{}", stderr(&ran));
    let bytes = std::fs::read(&out).unwrap_or_else(|e| panic!("{e}"));
    let got = pcap::parse(&bytes).unwrap_or_else(|e| panic!("{e}"));
    let seen: Vec<u8> = got
        .iter()
        .map(|r| r.data.get(16).copied().unwrap_or(0xff))
        .collect();
    assert_eq!(seen, want_seen.to_vec());
}
