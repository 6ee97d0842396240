//! `p4bpf top`: with UDP packets flowing over a veth pair (one end in a
//! namespace of its own) into a loaded pipeline, the rates `top` prints for
//! the port, the counter and the tables agree with `counter get` read
//! before and after over the same interval; a `--table-stats` pipeline's
//! hit and miss rates agree with the packets sent that match an entry and
//! those that do not. Needs root, BPF, clang and `ip`; skips saying which
//! is missing.

#![allow(clippy::panic)] // a failing test should stop loudly

mod common;

use common::{p4bpf, stderr, stdout};
use std::net::UdpSocket;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Stops the sender, unloads the pipeline, removes the veth pair and the
/// namespace, however the test ends.
struct Cleanup {
    namespace: String,
    link: String,
    pipeline: String,
    sending: Arc<AtomicBool>,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        self.sending.store(false, Ordering::Relaxed);
        let _ = p4bpf(&["pipeline", "unload", &self.pipeline]);
        let _ = Command::new("ip")
            .args(["link", "del", &self.link])
            .output();
        let _ = Command::new("ip")
            .args(["netns", "del", &self.namespace])
            .output();
    }
}

fn missing() -> Option<String> {
    if let Some(why) = common::kernel_unavailable() {
        return Some(why);
    }
    let ip = Command::new("ip").arg("-V").output();
    (!ip.is_ok_and(|o| o.status.success())).then(|| "`ip` is not installed".to_string())
}

extern "C" {
    /// From libc: moves the calling thread into the namespace behind `fd`.
    fn setns(fd: i32, nstype: i32) -> i32;
}

/// A thread in namespace `ns` sending, every 5 ms while `sending` holds,
/// one UDP packet to each address of `to` (from `from`).
fn send_from(ns: &str, from: String, to: Vec<String>, sending: Arc<AtomicBool>) {
    let path = format!("/var/run/netns/{ns}");
    std::thread::spawn(move || {
        let Ok(file) = std::fs::File::open(&path) else {
            return;
        };
        const CLONE_NEWNET: i32 = 0x4000_0000;
        // SAFETY: a valid namespace descriptor; only this thread moves.
        if unsafe { setns(file.as_raw_fd(), CLONE_NEWNET) } != 0 {
            return;
        }
        let Ok(socket) = UdpSocket::bind(format!("{from}:0")) else {
            return;
        };
        while sending.load(Ordering::Relaxed) {
            for address in &to {
                let _ = socket.send_to(b"p4bpf top test", format!("{address}:9"));
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    });
}

fn sh(args: &[&str]) {
    let out = Command::new(args[0]).args(&args[1..]).output();
    assert!(
        out.as_ref().is_ok_and(|o| o.status.success()),
        "{args:?}: {out:?}"
    );
}

/// Packets of cell 1 of the program's counter, from `counter get`.
fn seen(pipeline: &str) -> (u64, Instant) {
    let out = p4bpf(&["counter", "get", pipeline, "TestIngress.seen", "1"]);
    let at = Instant::now();
    let text = stdout(&out);
    let packets = text
        .split("packets=")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("counter get said: {text}{}", stderr(&out)));
    (packets, at)
}

/// The first number after `label` in the line starting with `start`.
fn number_in(text: &str, start: &str, label: &str) -> f64 {
    let line = text
        .lines()
        .find(|l| l.starts_with(start))
        .unwrap_or_default();
    let words: Vec<&str> = line.split_whitespace().collect();
    match label {
        "" => words.get(2).and_then(|w| w.parse().ok()),
        _ => words
            .windows(2)
            .find(|w| w[1] == label)
            .and_then(|w| w[0].parse().ok()),
    }
    .unwrap_or_else(|| panic!("no `{label}` in line `{start}` of:\n{text}"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 0.15 * a.max(b) + 2.0
}

/// A veth pair, its peer in a new namespace at 10.199.`net`.2/30 and this
/// end at 10.199.`net`.1, the names unique to this process and `tag`.
fn veth_pair(tag: &str, net: u8) -> Cleanup {
    let id = std::process::id();
    let cleanup = Cleanup {
        namespace: format!("p{tag}{id}"),
        link: format!("p{tag}{id}a"),
        pipeline: format!("{tag}{id}"),
        sending: Arc::new(AtomicBool::new(true)),
    };
    let peer = format!("p{tag}{id}b");
    let (ns, link) = (cleanup.namespace.as_str(), cleanup.link.as_str());
    sh(&["ip", "netns", "add", ns]);
    sh(&[
        "ip", "link", "add", link, "type", "veth", "peer", "name", &peer,
    ]);
    sh(&["ip", "link", "set", &peer, "netns", ns]);
    sh(&[
        "ip",
        "addr",
        "add",
        &format!("10.199.{net}.1/30"),
        "dev",
        link,
    ]);
    sh(&["ip", "link", "set", link, "up"]);
    let in_ns = |args: &[&str]| sh(&[&["ip", "netns", "exec", ns][..], args].concat());
    in_ns(&[
        "ip",
        "addr",
        "add",
        &format!("10.199.{net}.2/30"),
        "dev",
        &peer,
    ]);
    in_ns(&["ip", "link", "set", &peer, "up"]);
    // The program drops everything, ARP replies too: a fixed neighbour.
    let mac = link_mac(link);
    in_ns(&[
        "ip",
        "neigh",
        "add",
        &format!("10.199.{net}.1"),
        "lladdr",
        &mac,
        "dev",
        &peer,
    ]);
    // And one more, behind the same link, whose MAC no table entry holds.
    in_ns(&[
        "ip",
        "route",
        "add",
        &format!("10.199.{}.0/24", net + 1),
        "dev",
        &peer,
    ]);
    in_ns(&[
        "ip",
        "neigh",
        "add",
        &format!("10.199.{}.1", net + 1),
        "lladdr",
        STRANGER_MAC,
        "dev",
        &peer,
    ]);
    cleanup
}

/// The MAC of the second neighbour [`veth_pair`] sets up.
const STRANGER_MAC: &str = "02:00:00:00:00:01";

fn link_mac(link: &str) -> String {
    std::fs::read_to_string(format!("/sys/class/net/{link}/address"))
        .unwrap_or_default()
        .trim()
        .to_string()
}

/// Loads `tables.p4` (compiled with `compile_flag`) as `cleanup.pipeline`
/// on its link, as P4 port 1.
fn load_tables(cleanup: &Cleanup, compile_flag: &str) {
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/control/tables.p4");
    let dir = common::scratch_dir(&cleanup.pipeline);
    let compiled = p4bpf(&[
        "compile",
        program.to_str().unwrap_or_default(),
        compile_flag,
        "-o",
        dir.to_str().unwrap_or_default(),
    ]);
    assert!(compiled.status.success(), "{}", stderr(&compiled));
    let object = dir.join("tables.o");
    let loaded = p4bpf(&[
        "pipeline",
        "load",
        object.to_str().unwrap_or_default(),
        "--name",
        &cleanup.pipeline,
        "--xdp-mode",
        "generic",
    ]);
    assert!(loaded.status.success(), "{}", stderr(&loaded));
    let added = p4bpf(&[
        "port",
        "add",
        &cleanup.pipeline,
        &cleanup.link,
        "--port",
        "1",
    ]);
    assert!(added.status.success(), "{}", stderr(&added));
}

/// `top --once` over 3 s, and the packets per second `counter get` saw
/// over the same interval.
fn top_and_counted(pipeline: &str) -> (String, f64) {
    let (before, t0) = seen(pipeline);
    let top = p4bpf(&["top", pipeline, "--once", "--interval", "3"]);
    let (after, t1) = seen(pipeline);
    let text = stdout(&top);
    assert!(top.status.success(), "{text}{}", stderr(&top));
    eprintln!("{text}");
    let counted = (after - before) as f64 / t1.duration_since(t0).as_secs_f64();
    assert!(counted > 20.0, "too few packets arrived: {counted:.1}/s");
    (text, counted)
}

#[test]
fn top_rates_agree_with_counter_get_over_veth_traffic() {
    if let Some(why) = missing() {
        eprintln!("skipped: {why}");
        return;
    }
    let cleanup = veth_pair("top", 0);
    load_tables(&cleanup, "--trace");
    let to = vec!["10.199.0.1".to_string()];
    send_from(
        &cleanup.namespace,
        "10.199.0.2".into(),
        to,
        Arc::clone(&cleanup.sending),
    );
    std::thread::sleep(std::time::Duration::from_secs(1));

    let (text, counted) = top_and_counted(&cleanup.pipeline);
    let counter_rate = number_in(&text, "counter TestIngress.seen:", "packets/s");
    let port_rate = number_in(&text, "1 ", "");
    let misses = number_in(&text, "table TestIngress.by_dst:", "misses/s");
    let hits = number_in(&text, "table TestIngress.by_dst:", "hits/s");
    assert!(
        close(counter_rate, counted),
        "top {counter_rate}/s, counter get {counted}/s:\n{text}"
    );
    assert!(
        close(port_rate, counted),
        "port {port_rate}/s, counter get {counted}/s:\n{text}"
    );
    // by_dst is empty: every packet misses it.
    assert!(
        close(misses, counted) && hits == 0.0,
        "by_dst {hits} hits/s {misses} misses/s:\n{text}"
    );
}

#[test]
fn table_stats_rates_agree_with_the_packets_that_match() {
    if let Some(why) = missing() {
        eprintln!("skipped: {why}");
        return;
    }
    let cleanup = veth_pair("tops", 2);
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/control/tables.p4");
    // The P4 file straight to `pipeline load`, counting tables.
    let loaded = p4bpf(&[
        "pipeline",
        "load",
        program.to_str().unwrap_or_default(),
        "--table-stats",
        "--name",
        &cleanup.pipeline,
        "--xdp-mode",
        "generic",
    ]);
    assert!(loaded.status.success(), "{}", stderr(&loaded));
    let dst = format!("dstAddr={}", link_mac(&cleanup.link));
    let entry = p4bpf(&["table", "add", &cleanup.pipeline, "by_dst", &dst, "drop"]);
    assert!(entry.status.success(), "{}", stderr(&entry));
    let added = p4bpf(&[
        "port",
        "add",
        &cleanup.pipeline,
        &cleanup.link,
        "--port",
        "1",
    ]);
    assert!(added.status.success(), "{}", stderr(&added));
    // Two packets to this end's MAC (by_dst hits) for one to a stranger's
    // (a miss): a swapped count cannot pass.
    let to = ["10.199.2.1", "10.199.2.1", "10.199.3.1"]
        .map(String::from)
        .to_vec();
    send_from(
        &cleanup.namespace,
        "10.199.2.2".into(),
        to,
        Arc::clone(&cleanup.sending),
    );
    std::thread::sleep(std::time::Duration::from_secs(1));

    let (text, counted) = top_and_counted(&cleanup.pipeline);
    let hits = number_in(&text, "table TestIngress.by_dst:", "hits/s");
    let misses = number_in(&text, "table TestIngress.by_dst:", "misses/s");
    assert!(
        close(hits, counted * 2.0 / 3.0) && close(misses, counted / 3.0),
        "by_dst {hits} hits/s {misses} misses/s of {counted} packets/s:\n{text}"
    );
    // by_type is empty: every packet misses it.
    let type_hits = number_in(&text, "table TestIngress.by_type:", "hits/s");
    let type_misses = number_in(&text, "table TestIngress.by_type:", "misses/s");
    assert!(
        close(type_misses, counted) && type_hits == 0.0,
        "by_type {type_hits} hits/s {type_misses} misses/s:\n{text}"
    );
    assert!(!text.contains("--table-stats"), "{text}");
}
