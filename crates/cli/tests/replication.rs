//! Packet replication at TC, live: `tests/replication/multicast.p4` loaded
//! with `p4bpf pipeline load --hook tc` on four veth ports in a private
//! network namespace, groups set with `p4bpf mcast`, frames sent in on
//! port 1 and every frame that leaves any port collected. (One
//! `BPF_PROG_TEST_RUN` returns one packet, so copies are only seen live.)
//! Needs root, BPF, clang and `ip`; skips saying which is missing.

mod common;

use p4bpf_runtime::ports::ifindex;
use p4bpf_runtime::veth::netns;
use p4bpf_runtime::veth::socket::{wait_any, PacketSocket};
use std::path::{Path, PathBuf};

const PORTS: [u32; 4] = [1, 2, 3, 4];
/// How long to wait for the first frame, and for more after the last.
const FIRST_MS: i32 = 300;
const SETTLE_MS: i32 = 50;

fn program() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/replication/multicast.p4")
}

/// Unloads the pipeline however the test ends (the namespace and its
/// interfaces die with the test's thread).
struct Loaded(String);

impl Drop for Loaded {
    fn drop(&mut self) {
        let _ = common::p4bpf(&["pipeline", "unload", &self.0]);
    }
}

/// `p4bpf ARGS` must succeed.
fn p4bpf_ok(args: &[&str]) -> String {
    let out = common::p4bpf(args);
    assert!(
        out.status.success(),
        "p4bpf {}: {}{}",
        args.join(" "),
        common::stdout(&out),
        common::stderr(&out)
    );
    common::stdout(&out)
}

/// The tester's side of each port: `tN` is the peer of the pipeline's `pN`.
struct Wires {
    sockets: Vec<(u32, PacketSocket)>,
}

impl Wires {
    fn new() -> Wires {
        let mut sockets = vec![];
        for port in PORTS {
            let (inner, outer) = (format!("p{port}"), format!("t{port}"));
            netns::veth_pair(&inner, &outer, None).expect("veth pair");
            let index = ifindex(&outer).expect("tester interface");
            sockets.push((port, PacketSocket::bind(index, &outer).expect("socket")));
        }
        Wires { sockets }
    }

    /// Sends `frame` in on port 1; every frame that left a port, as
    /// (port, bytes), in arrival order.
    fn exchange(&self, frame: &[u8]) -> Vec<(u32, Vec<u8>)> {
        let input = self.sockets.first().map(|(_, s)| s).expect("port 1");
        input.send(frame).expect("send");
        let all: Vec<&PacketSocket> = self.sockets.iter().map(|(_, s)| s).collect();
        let mut out = vec![];
        let mut wait = FIRST_MS;
        while wait_any(&all, wait).expect("poll") {
            for (port, socket) in &self.sockets {
                while let Some(f) = socket.receive().expect("receive") {
                    if !f.outgoing {
                        out.push((*port, f.bytes));
                    }
                }
            }
            wait = SETTLE_MS;
        }
        out.sort();
        out
    }
}

/// A frame for `multicast.p4`: `op` and `arg` after Ethernet, zeroed
/// fields egress fills in, and a payload.
fn frame(op: u8, arg: u8) -> Vec<u8> {
    let mut f = vec![0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0x12, 0x34, op, arg];
    f.extend([0; 8]); // port, rid, instance
    f.extend([0xca, 0xfe]);
    f
}

/// What egress makes of `frame(op, arg)` on a copy out of `port` with
/// replica id `rid` and instance type `instance`: the fields it saw, the
/// source address's last byte from ingress's metadata, and for replica id
/// 7 a tag header.
fn expected(op: u8, arg: u8, port: u16, rid: u16, instance: u32) -> Vec<u8> {
    let mut f = vec![0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0xab, 0x12, 0x34];
    if rid == 7 {
        f.extend(0x7a6u32.to_be_bytes());
    }
    f.extend([op, arg]);
    f.extend(port.to_be_bytes());
    f.extend(rid.to_be_bytes());
    f.extend(instance.to_be_bytes());
    f.extend([0xca, 0xfe]);
    f
}

fn multicast_scenarios(name: &str) {
    let wires = Wires::new();
    p4bpf_ok(&[
        "pipeline",
        "load",
        &program().to_string_lossy(),
        "--name",
        name,
        "--hook",
        "tc",
    ]);
    let _loaded = Loaded(name.to_string());
    for port in PORTS {
        p4bpf_ok(&["port", "add", name, &format!("p{port}"), "--port", &port.to_string()]);
    }
    // Port 9 has no interface: its copy is skipped, the others still go.
    p4bpf_ok(&["mcast", "set", name, "1", "2:10", "3:7", "4:99", "9:1"]);
    let listed = p4bpf_ok(&["mcast", "list", name]);
    assert_eq!(listed, "1\t2:10 3:7 4:99 9:1\n");

    // Three members: rid 10 as is, rid 7 grown by a tag, rid 99 dropped
    // in egress; the original goes nowhere (nothing on port 1).
    assert_eq!(
        wires.exchange(&frame(1, 1)),
        vec![
            (2, expected(1, 1, 2, 10, 5)),
            (3, expected(1, 1, 3, 7, 5)),
        ]
    );
    // Unicast still runs egress once, as a normal instance.
    assert_eq!(
        wires.exchange(&frame(2, 3)),
        vec![(3, expected(2, 3, 3, 0, 0))]
    );
    // A group set, then mark_to_drop: dropped.
    assert!(wires.exchange(&frame(3, 1)).is_empty());
    // An unknown group: no copies.
    assert!(wires.exchange(&frame(1, 2)).is_empty());
    // Replacing the members; the same port twice gives two copies.
    p4bpf_ok(&["mcast", "set", name, "1", "4:1", "2:2", "4:3"]);
    assert_eq!(
        wires.exchange(&frame(1, 1)),
        vec![
            (2, expected(1, 1, 2, 2, 5)),
            (4, expected(1, 1, 4, 1, 5)),
            (4, expected(1, 1, 4, 3, 5)),
        ]
    );
    p4bpf_ok(&["mcast", "del", name, "1"]);
    assert!(wires.exchange(&frame(1, 1)).is_empty());
    let out = common::p4bpf(&["mcast", "del", name, "1"]);
    assert!(!out.status.success());
    assert!(common::stderr(&out).contains("multicast group 1 does not exist"));
}

#[test]
fn multicast_copies_run_egress_each_with_its_port_and_replica_id() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED multicast_copies_run_egress_each_with_its_port_and_replica_id: {why}");
        return;
    }
    let name = format!("mcast_live_{}", std::process::id());
    std::thread::scope(|scope| {
        scope
            .spawn(|| match netns::enter_fresh() {
                Ok(()) => multicast_scenarios(&name),
                Err(why) => eprintln!("SKIPPED multicast live test: {why}"),
            })
            .join()
            .expect("the live multicast test ran");
    });
}

#[test]
fn multicast_is_refused_at_xdp_with_where_it_is_asked() {
    let dir = common::scratch_dir("multicast_xdp");
    let out = common::p4bpf(&[
        "compile",
        &program().to_string_lossy(),
        "--hook",
        "xdp",
        "-o",
        &dir.to_string_lossy(),
    ]);
    assert!(!out.status.success());
    let err = common::stderr(&out);
    assert!(err.contains("multicast.p4:"), "{err}");
    assert!(err.contains("multicast (`mcast_grp`) is not supported at XDP"), "{err}");
}

#[test]
fn mcast_refuses_group_zero_and_bad_members() {
    let out = common::p4bpf(&["mcast", "set", "no_such_pipeline_x", "1", "2:x"]);
    assert!(!out.status.success());
    assert!(common::stderr(&out).contains("member `2:x`"));
    let out = common::p4bpf(&["mcast", "del", "no_such_pipeline_x", "1", "2"]);
    assert!(common::stderr(&out).contains("`del` takes no members"));
}
