//! PSA-eBPF's PassToKernelStackTest (psa-ebpf-ptf test.py) on veth, at TC
//! and at XDP: a switch in a private network namespace, its two ports
//! (eth0 = P4 port 0, eth1 = P4 port 1) attached to a program that sends
//! every packet to `PSA_PORT_CPU`, the host's stack. The test plays PTF's
//! side from a second namespace holding the veth peers, with PTF's
//! addresses, route and static ARP entries on the switch, and its three
//! packets: a TCP packet the host routes out of eth1, an ARP request the
//! host answers, an ICMP echo request the host answers.
//!
//! PTF also checks that egress's counter stays 0: PSA-eBPF passes such
//! packets up before egress, and its egress program sits at TC egress,
//! where the host's own replies pass. Here egress runs on each packet the
//! program sends to the host (`psa_egress.rs`), and no program sees what
//! the host sends, so the counter counts the test's packets, one each.
//!
//! Every name carries the hook and the process id; everything is removed
//! at the end, also after a failure. Skips, saying why, without root/BPF,
//! clang, `ip`, `nsenter`, python3 (which sends and captures frames) or
//! network namespaces.

mod common;

use std::path::Path;
use std::process::Command;

const SWITCH_MAC: [&str; 2] = ["00:00:00:00:00:01", "00:00:00:00:00:02"];
const SENDER_MAC: [u8; 6] = [0x00, 0x06, 0x07, 0x08, 0x09, 0x0a];
const ETH0_MAC: [u8; 6] = [0, 0, 0, 0, 0, 0x01];
const ETH1_MAC: [u8; 6] = [0, 0, 0, 0, 0, 0x02];
/// The static ARP entries PTF sets: the routed packet's next hop, and the
/// sender, which the echo reply goes to.
const NEXT_HOP_MAC: [u8; 6] = [0, 0, 0, 0, 0, 0xaa];
const SENDER_ARP_MAC: [u8; 6] = [0, 0, 0, 0, 0, 0xcc];
const SWITCH_IP: [u8; 4] = [10, 0, 0, 1];
const SENDER_IP: [u8; 4] = [10, 0, 0, 2];
const ROUTED_IP: [u8; 4] = [20, 0, 0, 15];

fn run(program: &str, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .output()
        .expect("the command runs");
    let text = format!("{}{}", common::stdout(&out), common::stderr(&out));
    assert!(out.status.success(), "{program} {args:?}:\n{text}");
    text
}

/// The switch namespace, the peers' namespace and the pipeline of one
/// hook; dropped, all are removed.
struct Lab {
    hook: &'static str,
    id: u32,
}

impl Lab {
    fn switch(&self) -> String {
        format!("k2h-sw-{}-{}", self.hook, self.id)
    }
    fn peers(&self) -> String {
        format!("k2h-pt-{}-{}", self.hook, self.id)
    }
    fn pipeline(&self) -> String {
        format!("k2h{}{}", self.hook, self.id)
    }

    /// Runs `p4bpf` inside the switch's network namespace (and only that:
    /// bpffs stays the machine's), as PTF's `exec_ns_cmd` does.
    fn p4bpf(&self, args: &[&str]) -> String {
        let net = format!("--net=/run/netns/{}", self.switch());
        let mut all = vec![net.as_str(), env!("CARGO_BIN_EXE_p4bpf")];
        all.extend_from_slice(args);
        run("nsenter", &all)
    }

    fn in_switch(&self, args: &[&str]) -> String {
        let switch = self.switch();
        let mut all = vec!["-n", switch.as_str()];
        all.extend_from_slice(args);
        run("ip", &all)
    }

    fn build(hook: &'static str) -> Lab {
        let lab = Lab {
            hook,
            id: std::process::id(),
        };
        let (switch, peers) = (lab.switch(), lab.peers());
        for ns in [&switch, &peers] {
            run("ip", &["netns", "add", ns]);
            // No IPv6 chatter: the peers must receive only the host's answers.
            for conf in ["all", "default"] {
                let key = format!("net.ipv6.conf.{conf}.disable_ipv6=1");
                run("ip", &["netns", "exec", ns, "sysctl", "-qw", &key]);
            }
        }
        run(
            "ip",
            &[
                "netns",
                "exec",
                &switch,
                "sysctl",
                "-qw",
                "net.ipv4.ip_forward=1",
            ],
        );
        for (n, mac) in SWITCH_MAC.iter().enumerate() {
            let (eth, peer) = (format!("eth{n}"), format!("p{n}"));
            lab.in_switch(&[
                "link", "add", &eth, "address", mac, "type", "veth", "peer", "name", &peer,
                "netns", &peers,
            ]);
            lab.in_switch(&["link", "set", &eth, "up"]);
            run("ip", &["-n", &peers, "link", "set", &peer, "up"]);
        }
        // PTF's setUp: `ifconfig eth0 10.0.0.1 up` (a class A address),
        // the static route and the two static ARP entries.
        lab.in_switch(&["addr", "add", "10.0.0.1/8", "dev", "eth0"]);
        lab.in_switch(&["route", "add", "20.0.0.15/32", "dev", "eth1"]);
        lab.in_switch(&[
            "neigh",
            "replace",
            "20.0.0.15",
            "lladdr",
            "00:00:00:00:00:aa",
            "dev",
            "eth1",
            "nud",
            "permanent",
        ]);
        lab.in_switch(&[
            "neigh",
            "replace",
            "10.0.0.2",
            "lladdr",
            "00:00:00:00:00:cc",
            "dev",
            "eth0",
            "nud",
            "permanent",
        ]);
        let program =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/psa_kernel_stack/to_host.p4");
        let pipeline = lab.pipeline();
        lab.p4bpf(&[
            "pipeline",
            "load",
            &program.to_string_lossy(),
            "--name",
            &pipeline,
            "--hook",
            hook,
        ]);
        lab.p4bpf(&["port", "add", &pipeline, "eth0", "--port", "0"]);
        lab.p4bpf(&["port", "add", &pipeline, "eth1", "--port", "1"]);
        lab
    }

    /// Sends `frame` into the switch's eth0 and returns what came back out
    /// of each port within a second: (eth0's frames, eth1's frames), in hex.
    fn exchange(&self, frame: &[u8]) -> (Vec<String>, Vec<String>) {
        let script = "\
import select, socket, sys, time
socks = {}
for name in ('p0', 'p1'):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    s.bind((name, 0))
    socks[name] = s
socks['p0'].send(bytes.fromhex(sys.argv[1]))
end = time.time() + 1.0
while time.time() < end:
    ready, _, _ = select.select(list(socks.values()), [], [], max(0.0, end - time.time()))
    for s in ready:
        data, addr = s.recvfrom(65535)
        if addr[2] != socket.PACKET_OUTGOING:
            print(addr[0], data.hex())
";
        let peers = self.peers();
        let text = run(
            "ip",
            &[
                "netns",
                "exec",
                &peers,
                "python3",
                "-c",
                script,
                &hex(frame),
            ],
        );
        let mut out = (Vec::new(), Vec::new());
        for (port, frame) in text.lines().filter_map(|line| line.split_once(' ')) {
            match port {
                "p0" => out.0.push(frame.to_string()),
                _ => out.1.push(frame.to_string()),
            }
        }
        out
    }

    /// Packets egress's `eg_packets` counted at index 0 (`u64::MAX` if
    /// the output has no count).
    fn egress_packets(&self) -> u64 {
        let text = self.p4bpf(&["counter", "get", &self.pipeline(), "egress.eg_packets", "0"]);
        text.split_whitespace()
            .find_map(|word| word.strip_prefix("packets="))
            .and_then(|n| n.parse().ok())
            .unwrap_or(u64::MAX)
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        let bin = env!("CARGO_BIN_EXE_p4bpf");
        let _ = Command::new(bin)
            .args(["pipeline", "unload", &self.pipeline()])
            .output();
        for ns in [self.switch(), self.peers()] {
            let _ = Command::new("ip").args(["netns", "del", &ns]).output();
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn ethernet(dst: [u8; 6], src: [u8; 6], ether_type: u16) -> Vec<u8> {
    [&dst[..], &src[..], &ether_type.to_be_bytes()[..]].concat()
}

/// The Internet checksum of `bytes`.
fn checksum(bytes: &[u8]) -> u16 {
    let mut sum: u32 = bytes
        .chunks(2)
        .map(|pair| u32::from(pair[0]) << 8 | u32::from(*pair.get(1).unwrap_or(&0)))
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// An IPv4 header (no options, id 1, TTL `ttl`) before `payload`, as
/// scapy builds it, with its checksum.
fn ipv4(ttl: u8, protocol: u8, src: [u8; 4], dst: [u8; 4], payload: &[u8]) -> Vec<u8> {
    let length = (20 + payload.len()) as u16;
    let mut header = [
        &[0x45, 0][..],
        &length.to_be_bytes(),
        &[0, 1, 0, 0, ttl, protocol, 0, 0],
    ]
    .concat();
    header.extend_from_slice(&src);
    header.extend_from_slice(&dst);
    let sum = checksum(&header);
    header[10..12].copy_from_slice(&sum.to_be_bytes());
    [header, payload.to_vec()].concat()
}

/// PTF's `simple_tcp_packet` (100 bytes, SYN from port 1234 to 80).
fn tcp_packet(ttl: u8, eth: Vec<u8>) -> Vec<u8> {
    let mut tcp = vec![
        0x04, 0xd2, 0, 80, 0, 0, 0, 0, 0, 0, 0, 0, 0x50, 0x02, 0x20, 0, 0, 0, 0, 0,
    ];
    tcp.extend((0..46).map(|i| i as u8));
    [eth, ipv4(ttl, 6, SENDER_IP, ROUTED_IP, &tcp)].concat()
}

fn arp(op: u8, eth: Vec<u8>, sender: ([u8; 6], [u8; 4]), target: ([u8; 6], [u8; 4])) -> Vec<u8> {
    let fixed = [0, 1, 8, 0, 6, 4, 0, op];
    [&eth[..], &fixed, &sender.0, &sender.1, &target.0, &target.1].concat()
}

/// An ICMP echo of `icmp_type` (8 request, 0 reply), id and sequence 0,
/// padded to PTF's 60 bytes.
fn icmp_packet(icmp_type: u8, eth: Vec<u8>, src: [u8; 4], dst: [u8; 4]) -> Vec<u8> {
    let mut icmp = vec![icmp_type, 0, 0, 0, 0, 0, 0, 0];
    icmp.extend((0..18).map(|i| i as u8));
    let sum = checksum(&icmp);
    icmp[2..4].copy_from_slice(&sum.to_be_bytes());
    [eth, ipv4(64, 1, src, dst, &icmp)].concat()
}

/// `frame` (in hex) with the IPv4 identification and header checksum
/// masked: the host picks the id, so PTF masks both.
fn without_ip_id(frame: &str) -> String {
    frame
        .char_indices()
        .map(|(at, digit)| match at / 2 {
            18..=19 | 24..=25 => 'x',
            _ => digit,
        })
        .collect()
}

fn missing_tools(hook: &str) -> Option<String> {
    if let Some(why) = common::kernel_unavailable() {
        return Some(why);
    }
    for tool in ["ip", "nsenter", "python3", "sysctl"] {
        if Command::new(tool).arg("-V").output().is_err() {
            return Some(format!("`{tool}` is not installed"));
        }
    }
    no_namespaces(hook)
}

/// Why network namespaces cannot be made here, if they cannot.
fn no_namespaces(hook: &str) -> Option<String> {
    let probe = format!("k2h-probe-{hook}-{}", std::process::id());
    let made = Command::new("ip").args(["netns", "add", &probe]).output();
    let _ = Command::new("ip").args(["netns", "del", &probe]).output();
    match made {
        Ok(out) if out.status.success() => None,
        Ok(out) => Some(format!(
            "cannot make a network namespace: {}",
            common::stderr(&out).trim()
        )),
        Err(e) => Some(format!("cannot run `ip netns add`: {e}")),
    }
}

fn pass_to_kernel_stack(hook: &'static str) {
    if let Some(why) = missing_tools(hook) {
        eprintln!("skipping the host-stack scenario at {hook}: {why}");
        return;
    }
    let lab = Lab::build(hook);

    // Forwarded by the host's routing: out of eth1 to the static next hop.
    let sent = tcp_packet(64, ethernet(ETH0_MAC, SENDER_MAC, 0x0800));
    let routed = tcp_packet(63, ethernet(NEXT_HOP_MAC, ETH1_MAC, 0x0800));
    let (eth0, eth1) = lab.exchange(&sent);
    assert_eq!(
        (eth0, eth1),
        (vec![], vec![hex(&routed)]),
        "{hook}: routed packet"
    );
    assert_eq!(lab.egress_packets(), 1, "{hook}: egress counter");

    // ARP for the switch's address: the host answers out of eth0.
    let request = arp(
        1,
        ethernet(ETH0_MAC, SENDER_MAC, 0x0806),
        (SENDER_MAC, SENDER_IP),
        ([0; 6], SWITCH_IP),
    );
    let reply = arp(
        2,
        ethernet(SENDER_MAC, ETH0_MAC, 0x0806),
        (ETH0_MAC, SWITCH_IP),
        (SENDER_MAC, SENDER_IP),
    );
    let (eth0, eth1) = lab.exchange(&request);
    assert_eq!(
        (eth0, eth1),
        (vec![hex(&reply)], vec![]),
        "{hook}: ARP reply"
    );
    assert_eq!(lab.egress_packets(), 2, "{hook}: egress counter");

    // ICMP echo to the switch's address: the host replies to the static
    // ARP entry's MAC.
    let echo = icmp_packet(
        8,
        ethernet(ETH0_MAC, SENDER_MAC, 0x0800),
        SENDER_IP,
        SWITCH_IP,
    );
    let expected = icmp_packet(
        0,
        ethernet(SENDER_ARP_MAC, ETH0_MAC, 0x0800),
        SWITCH_IP,
        SENDER_IP,
    );
    let (eth0, eth1) = lab.exchange(&echo);
    assert!(eth1.is_empty(), "{hook}: nothing out of eth1: {eth1:?}");
    assert_eq!(eth0.len(), 1, "{hook}: one echo reply: {eth0:?}");
    let reply = &eth0[0];
    assert_eq!(
        without_ip_id(reply),
        without_ip_id(&hex(&expected)),
        "{hook}: echo reply"
    );
    let ip_header: Vec<u8> = (14..34)
        .map(|at| u8::from_str_radix(&reply[2 * at..2 * at + 2], 16).unwrap_or(0))
        .collect();
    assert_eq!(checksum(&ip_header), 0, "{hook}: reply's IPv4 checksum");
    assert_eq!(lab.egress_packets(), 3, "{hook}: egress counter");
}

#[test]
fn psa_pass_to_kernel_stack_routes_and_answers_at_tc() {
    pass_to_kernel_stack("tc");
}

#[test]
fn psa_pass_to_kernel_stack_routes_and_answers_at_xdp() {
    pass_to_kernel_stack("xdp");
}
