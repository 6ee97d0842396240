//! The PSA case: PSA-eBPF's l2l3-acl.p4 (read from the shared corpus at
//! run time) at TC against its twin `c/l2l3_acl.c`, tables filled as the
//! reference back end's PTF suite fills them (psa-ebpf-ptf/l2l3_acl.py:
//! `setUp`'s six ports, SwitchingTest's switching entries, ACLTest's ACL
//! entries, MACLearningTest's known source), on the path of ACLTest's
//! first packet: untagged UDP in on PORT0, tagged with VLAN 0 by ingress,
//! bridged to PORT5, untagged by egress.
//!
//! Why untagged: at TC the kernel takes an 802.1Q tag off the packet
//! (`skb_vlan_untag`) before the program runs, so tagged frames reach it
//! only from a test run, where the kernel also refuses to shrink them
//! (`bpf_skb_adjust_room` wants IPv4 or IPv6).
//!
//! A `BPF_PROG_TEST_RUN` packet comes in on interface 0 and the kernel
//! performs no redirect, so PTF's PORT0 is interface 0 and PORT5 is
//! interface 1 (the loopback device, never sent to); the P4 program maps
//! them as `p4bpf port add` would, the twin uses interface indexes as
//! ports, as a C programmer would.

use super::fill::{P4Entry, RawEntries};
use super::suite::{case, Case, Family, Mode};
use p4bpf_compiler::Hook;
use p4bpf_runtime::bench::packet;

/// `TC_ACT_REDIRECT`: what both programs return for a forwarded packet.
const TC_ACT_REDIRECT: u32 = 7;
const PTF_PORTS: u32 = 6;
/// PTF's port numbers (P4 ports here) of the ports the timed packet uses,
/// and their interfaces.
const IN_PORT: u32 = 0;
const OUT_PORT: u32 = 5;
const IN_IFINDEX: u32 = 0;
const OUT_IFINDEX: u32 = 1;
/// The VLAN of each PTF port (`setUp`); 0: untagged.
const PORT_VLANS: [u16; PTF_PORTS as usize] = [0, 1, 1, 2, 1, 0];
const KNOWN_SOURCE: [u8; 6] = [0, 6, 7, 8, 9, 0x0a];
/// ACLTest's destination.
const BRIDGED_DST: [u8; 6] = [0, 1, 2, 3, 4, 5];

/// SwitchingTest's and ACLTest's entries: (destination MAC, VLAN, PTF port).
const SWITCHING: [([u8; 6], u16, u32); 8] = [
    ([0, 0, 0, 0, 0, 1], 1, 1),
    ([0, 0, 0, 0, 0, 2], 1, 2),
    ([0, 0, 0, 0, 0, 3], 1, 4),
    (BRIDGED_DST, 0, OUT_PORT),
    ([0, 0, 0, 0, 0, 1], 0, 0),
    ([0, 0, 0, 0, 0, 2], 0, 5),
    ([0, 0, 0, 0, 2, 2], 2, 2),
    ([0, 0, 0, 0, 3, 2], 0, 0),
];

/// ACLTest's entries: 10.0.0.1 -> 10.0.0.2, port 80 -> 8080, UDP and TCP.
const ACL_PROTOCOLS: [u8; 2] = [17, 6];

pub fn l2l3_acl_bridged() -> Case {
    Case {
        family: Family::Psa,
        hook: Hook::Tc,
        corpus: Some("psa-ebpf-examples/l2l3-acl.p4"),
        p4_entries: p4_entries(),
        twin_entries: twin_entries(),
        packet: bridged_packet(),
        p4_ports: vec![(IN_PORT, IN_IFINDEX), (OUT_PORT, OUT_IFINDEX)],
        verdict: Some(TC_ACT_REDIRECT),
        ..case(
            "l2l3_acl",
            "PSA l2l3-acl: untagged UDP bridged, VLAN tag pushed by ingress and stripped by egress (six tables, port counter, direct counter)",
            Mode::Plain,
        )
    }
}

fn mac_text(mac: &[u8; 6]) -> String {
    mac.iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(":")
}

fn p4_entries() -> Vec<P4Entry> {
    let mut entries = Vec::new();
    for (port, vlan) in (0..PTF_PORTS).zip(PORT_VLANS) {
        let port_text = port.to_string();
        let tagged = if vlan == 0 { "0" } else { "1" };
        let (ingress, egress, egress_args) = if vlan == 0 {
            ("push_vlan", "strip_vlan", vec![])
        } else {
            ("NoAction", "mod_vlan", vec![vlan.to_string()])
        };
        entries.push(P4Entry::new(
            "ingress.tbl_ingress_vlan",
            &[&port_text, tagged],
            ingress,
            &[],
        ));
        let args: Vec<&str> = egress_args.iter().map(String::as_str).collect();
        entries.push(P4Entry::new(
            "egress.tbl_vlan_egress",
            &[&port_text],
            egress,
            &args,
        ));
    }
    for (mac, vlan, port) in SWITCHING {
        entries.push(P4Entry::new(
            "ingress.tbl_switching",
            &[&mac_text(&mac), &vlan.to_string()],
            "forward",
            &[&port.to_string()],
        ));
    }
    for protocol in ACL_PROTOCOLS {
        entries.push(P4Entry::new(
            "ingress.tbl_acl",
            &["10.0.0.1", "10.0.0.2", &protocol.to_string(), "80", "8080"],
            "drop",
            &[],
        ));
    }
    entries.push(P4Entry::new(
        "ingress.tbl_mac_learning",
        &[&mac_text(&KNOWN_SOURCE)],
        "NoAction",
        &[],
    ));
    entries
}

/// The twin's interface for PTF port `port`: the timed ports' interfaces,
/// indexes no interface has for the others.
fn ifindex(port: u32) -> u32 {
    match port {
        IN_PORT => IN_IFINDEX,
        OUT_PORT => OUT_IFINDEX,
        other => 100 + other,
    }
}

/// The same entries in `c/l2l3_acl.c`'s layouts (host order for its
/// integers, network order for packet fields).
fn twin_entries() -> Vec<RawEntries> {
    let mut ingress_vlan = Batch::new("ingress_vlan");
    let mut vlan_egress = Batch::new("vlan_egress");
    for (port, vlan) in (0..PTF_PORTS).zip(PORT_VLANS) {
        let tagged = u32::from(vlan != 0);
        let key = [ifindex(port).to_ne_bytes(), tagged.to_ne_bytes()].concat();
        let push = u32::from(vlan == 0);
        ingress_vlan.add(&key, &push.to_ne_bytes());
        // strip_vlan is 1, mod_vlan (set the VLAN) 2; counters start at 0.
        let action: u32 = if vlan == 0 { 1 } else { 2 };
        let mut value = action.to_ne_bytes().to_vec();
        value.extend(vlan.to_ne_bytes());
        value.extend([0; 2 + 16]);
        vlan_egress.add(&ifindex(port).to_ne_bytes(), &value);
    }
    let mut switching = Batch::new("switching");
    for (mac, vlan, port) in SWITCHING {
        let key = [&mac[..], &vlan.to_ne_bytes()].concat();
        // FORWARD is 1.
        let value = [1u32.to_ne_bytes(), ifindex(port).to_ne_bytes()].concat();
        switching.add(&key, &value);
    }
    let mut acl = Batch::new("acl");
    for protocol in ACL_PROTOCOLS {
        let mut key = [10, 0, 0, 1, 10, 0, 0, 2].to_vec();
        key.extend(80u16.to_be_bytes());
        key.extend(8080u16.to_be_bytes());
        key.extend([protocol, 0, 0, 0]);
        acl.add(&key, &1u32.to_ne_bytes());
    }
    let known = RawEntries::one("known_macs", &KNOWN_SOURCE, &0u32.to_ne_bytes());
    vec![ingress_vlan.0, vlan_egress.0, switching.0, acl.0, known]
}

/// Records for one map, added one by one.
struct Batch(RawEntries);

impl Batch {
    fn new(map: &str) -> Batch {
        Batch(RawEntries {
            map: map.into(),
            key_size: 0,
            value_size: 0,
            keys: Vec::new(),
            values: Vec::new(),
        })
    }

    fn add(&mut self, key: &[u8], value: &[u8]) {
        self.0.key_size = key.len();
        self.0.value_size = value.len();
        self.0.keys.extend_from_slice(key);
        self.0.values.extend_from_slice(value);
    }
}

/// The benchmark packet from the known source to the bridged destination.
fn bridged_packet() -> Vec<u8> {
    let mut p = packet::udp_packet(packet::DST_IP);
    p[0..6].copy_from_slice(&BRIDGED_DST);
    p[6..12].copy_from_slice(&KNOWN_SOURCE);
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twin_records_have_one_size_per_map() {
        for batch in twin_entries() {
            assert_eq!(batch.keys.len() % batch.key_size, 0, "{}", batch.map);
            assert_eq!(
                batch.keys.len() / batch.key_size,
                batch.values.len() / batch.value_size,
                "{}",
                batch.map
            );
        }
    }

    #[test]
    fn the_timed_ports_are_untagged_and_switched_to() {
        assert_eq!(PORT_VLANS[IN_PORT as usize], 0);
        assert_eq!(PORT_VLANS[OUT_PORT as usize], 0);
        let p = bridged_packet();
        let to_out = SWITCHING
            .iter()
            .any(|(mac, vlan, port)| p[0..6] == mac[..] && *vlan == 0 && *port == OUT_PORT);
        assert!(to_out);
    }
}
