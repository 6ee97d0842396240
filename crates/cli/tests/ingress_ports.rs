//! `p4bpf port add` gives a program that reads its ingress port (ubpf_model's
//! `std.input_port`, xdp_model's `input_port`) the P4 port, not the
//! interface index: the pipeline's ingress ports map holds ifindex -> port
//! while the interface is a port, and forgets it on `port del`, its port
//! slot (the array the program reads first) likewise. Needs
//! root, BPF, `ip` and `bpftool`; skips saying which is missing.

mod common;

use std::path::Path;
use std::process::Command;

/// Removes the veth pair and the pipeline, however the test ends.
struct Cleanup {
    link: String,
    pipeline: String,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        let _ = common::p4bpf(&["pipeline", "unload", &self.pipeline]);
        let _ = Command::new("ip")
            .args(["link", "del", &self.link])
            .output();
    }
}

fn missing() -> Option<String> {
    if let Err(why) = p4bpf_runtime::check_bpf_available() {
        return Some(why.to_string());
    }
    for tool in [["ip", "-V"], ["bpftool", "version"]] {
        if !Command::new(tool[0])
            .arg(tool[1])
            .output()
            .is_ok_and(|o| o.status.success())
        {
            return Some(format!("`{}` is not installed", tool[0]));
        }
    }
    None
}

/// The ingress ports map's entries as (ifindex, port).
fn entries(pipeline: &str) -> Vec<(u64, u64)> {
    let pin = format!("/sys/fs/bpf/p4bpf/{pipeline}/maps/ubpf_registers_in_ports");
    let out = Command::new("bpftool")
        .args(["-j", "map", "dump", "pinned", &pin])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let number = |text: &str, field: &str| -> Option<u64> {
        let (_, after) = text.split_once(&format!("\"{field}\":"))?;
        let digits: String = after
            .trim_start()
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().ok()
    };
    out.split('{')
        .filter_map(|entry| Some((number(entry, "key")?, number(entry, "value")?)))
        .collect()
}

/// The raw bytes of the ingress port slot `ifindex` belongs in.
fn slot_bytes(pipeline: &str, ifindex: u32) -> Vec<u8> {
    let pin = format!("/sys/fs/bpf/p4bpf/{pipeline}/maps/ubpf_registers_in_ports_slots");
    let index = p4bpf_layout::port_slots::slot_index(ifindex).to_ne_bytes();
    let out = Command::new("bpftool")
        .args(["-j", "map", "lookup", "pinned", &pin, "key"])
        .args(index.iter().map(u8::to_string))
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let raw = out
        .split_once("\"value\":[")
        .and_then(|(_, after)| after.split_once(']'))
        .map(|(bytes, _)| bytes)
        .unwrap_or_default();
    raw.split(',')
        .filter_map(|b| {
            u8::from_str_radix(b.trim().trim_matches('"').trim_start_matches("0x"), 16).ok()
        })
        .collect()
}

#[test]
fn port_add_maps_the_interface_to_its_p4_port() {
    if let Some(why) = missing() {
        eprintln!("SKIPPED port_add_maps_the_interface_to_its_p4_port: {why}");
        return;
    }
    let id = std::process::id();
    let cleanup = Cleanup {
        link: format!("pin{id}a"),
        pipeline: format!("ingress{id}"),
    };
    let made = Command::new("ip")
        .args(["link", "add", &cleanup.link, "type", "veth", "peer", "name"])
        .arg(format!("pin{id}b"))
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(made, "cannot create veth pair {}", cleanup.link);
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/stf/ubpf_registers.p4");
    let program = program.to_string_lossy();
    let loaded = common::p4bpf(&[
        "pipeline",
        "load",
        &program,
        "--name",
        &cleanup.pipeline,
        "--hook",
        "xdp",
        "--xdp-mode",
        "generic",
    ]);
    assert!(loaded.status.success(), "{}", common::stderr(&loaded));
    let ifindex: u64 = std::fs::read_to_string(format!("/sys/class/net/{}/ifindex", cleanup.link))
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0);
    let added = common::p4bpf(&[
        "port",
        "add",
        &cleanup.pipeline,
        &cleanup.link,
        "--port",
        "7",
    ]);
    assert!(added.status.success(), "{}", common::stderr(&added));
    assert_eq!(entries(&cleanup.pipeline), vec![(ifindex, 7)]);
    let slotted = p4bpf_layout::port_slots::slot_value(ifindex as u32, 7);
    assert_eq!(slot_bytes(&cleanup.pipeline, ifindex as u32), slotted);
    let deleted = common::p4bpf(&["port", "del", &cleanup.pipeline, &cleanup.link]);
    assert!(deleted.status.success(), "{}", common::stderr(&deleted));
    assert_eq!(entries(&cleanup.pipeline), vec![]);
    assert_eq!(slot_bytes(&cleanup.pipeline, ifindex as u32), [0u8; 12]);
}
