//! `p4bpf top`: with UDP packets flowing over a veth pair (one end in a
//! namespace of its own) into a loaded pipeline, the rates `top` prints for
//! the port, the counter and the tables agree with `counter get` read
//! before and after over the same interval. Needs root, BPF, clang and
//! `ip`; skips saying which is missing.

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

/// A thread in namespace `ns` sending a UDP packet to 10.199.0.1 every
/// 5 ms while `sending` holds.
fn send_from(ns: &str, sending: Arc<AtomicBool>) {
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
        let Ok(socket) = UdpSocket::bind("10.199.0.2:0") else {
            return;
        };
        while sending.load(Ordering::Relaxed) {
            let _ = socket.send_to(b"p4bpf top test", "10.199.0.1:9");
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

#[test]
fn top_rates_agree_with_counter_get_over_veth_traffic() {
    if let Some(why) = missing() {
        eprintln!("skipped: {why}");
        return;
    }
    let id = std::process::id();
    let cleanup = Cleanup {
        namespace: format!("ptop{id}"),
        link: format!("ptp{id}a"),
        pipeline: format!("top{id}"),
        sending: Arc::new(AtomicBool::new(true)),
    };
    let peer = format!("ptp{id}b");
    let (ns, link) = (cleanup.namespace.clone(), cleanup.link.clone());
    sh(&["ip", "netns", "add", &ns]);
    sh(&[
        "ip", "link", "add", &link, "type", "veth", "peer", "name", &peer,
    ]);
    sh(&["ip", "link", "set", &peer, "netns", &ns]);
    sh(&["ip", "addr", "add", "10.199.0.1/30", "dev", &link]);
    sh(&["ip", "link", "set", &link, "up"]);
    sh(&[
        "ip",
        "netns",
        "exec",
        &ns,
        "ip",
        "addr",
        "add",
        "10.199.0.2/30",
        "dev",
        &peer,
    ]);
    sh(&["ip", "netns", "exec", &ns, "ip", "link", "set", &peer, "up"]);
    // The program drops everything, ARP replies too: a fixed neighbour.
    let mac = std::fs::read_to_string(format!("/sys/class/net/{link}/address")).unwrap_or_default();
    sh(&[
        "ip",
        "netns",
        "exec",
        &ns,
        "ip",
        "neigh",
        "add",
        "10.199.0.1",
        "lladdr",
        mac.trim(),
        "dev",
        &peer,
    ]);

    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/control/tables.p4");
    let dir = common::scratch_dir("top");
    let compiled = p4bpf(&[
        "compile",
        program.to_str().unwrap_or_default(),
        "--trace",
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
    let added = p4bpf(&["port", "add", &cleanup.pipeline, &link, "--port", "1"]);
    assert!(added.status.success(), "{}", stderr(&added));

    send_from(&ns, Arc::clone(&cleanup.sending));
    std::thread::sleep(std::time::Duration::from_secs(1));

    let (before, t0) = seen(&cleanup.pipeline);
    let top = p4bpf(&["top", &cleanup.pipeline, "--once", "--interval", "3"]);
    let (after, t1) = seen(&cleanup.pipeline);
    let text = stdout(&top);
    assert!(top.status.success(), "{text}{}", stderr(&top));
    eprintln!("{text}");
    let counted = (after - before) as f64 / t1.duration_since(t0).as_secs_f64();
    assert!(counted > 20.0, "too few packets arrived: {counted:.1}/s");
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
