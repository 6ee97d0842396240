//! A frame the deparser grows past the output port's MTU is dropped and
//! counted, not lost silently after the redirect. `mtu_drop/push_tunnel.p4`
//! pushes a 20-byte header onto every frame from port 1 and sends it out
//! of port 2, whose veth pair has MTU 600: the kernel forwards frames of
//! up to 600 + 14 (Ethernet) + 4 (a VLAN tag) = 618 bytes, so a 598-byte
//! frame (618 out) arrives and a 599-byte one (619) does not, and
//! `p4bpf pipeline show` says 1 MTU drop. Live at TC and XDP in a fresh
//! network namespace, and through `BPF_PROG_TEST_RUN`, whose
//! `bpf_check_mtu` sees the namespace's interfaces: the same for PSA and
//! v1model programs that push in egress, for multicast copies (only the
//! grown copy is dropped), and as a traced build's record. Needs root,
//! BPF, clang, `ip` and `ethtool`; skips saying which is missing.

mod common;

use p4bpf_runtime::ports::ifindex;
use p4bpf_runtime::veth::netns;
use p4bpf_runtime::veth::socket::{wait_any, PacketSocket};
use std::path::{Path, PathBuf};

/// The output port's MTU.
const MTU: &str = "600";
/// The largest frame the output port forwards: MTU, Ethernet, VLAN tag.
const LARGEST_OUT: usize = 618;
/// Bytes the program pushes.
const PUSHED: usize = 20;
/// How long to wait for a frame that should arrive.
const WAIT_MS: i32 = 300;

fn program() -> PathBuf {
    fixture("push_tunnel")
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/mtu_drop/{name}.p4"))
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

/// An Ethernet frame of `len` bytes with a recognizable payload.
fn frame(len: usize) -> Vec<u8> {
    let mut f = vec![0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0x12, 0x34];
    f.extend((0..len.saturating_sub(f.len())).map(|i| i as u8));
    f
}

/// The pipeline `name` of `source` (the fixture's P4 or an object) at
/// `hook` on `p1` (port 1) and `p2` (port 2, MTU 600 on both ends), in
/// the current namespace.
fn load(name: &str, hook: &str, source: &Path) -> Loaded {
    load_on(name, hook, source, &["1", "2"])
}

/// As [`load`] on `ports`, the last one with MTU 600.
fn load_on(name: &str, hook: &str, source: &Path, ports: &[&str]) -> Loaded {
    for port in ports {
        let outer = format!("t{port}");
        netns::veth_pair(&format!("p{port}"), &outer, None).expect("veth pair");
        // At XDP a frame redirected into `pN` reaches `tN` through the
        // peer's NAPI, which GRO turns on.
        netns::tool("ethtool", &["-K", &outer, "gro", "on"]).expect("GRO on");
    }
    let last = ports.last().copied().unwrap_or_default();
    for interface in [format!("p{last}"), format!("t{last}")] {
        netns::tool("ip", &["link", "set", &interface, "mtu", MTU]).expect("MTU 600");
    }
    let source = source.to_string_lossy();
    p4bpf_ok(&["pipeline", "load", &source, "--name", name, "--hook", hook]);
    let loaded = Loaded(name.to_string());
    for port in ports {
        let interface = format!("p{port}");
        p4bpf_ok(&["port", "add", name, &interface, "--port", port]);
    }
    loaded
}

/// The `mtu drops` figure of `p4bpf pipeline show NAME`.
fn mtu_drops(name: &str) -> Option<u64> {
    let shown = p4bpf_ok(&["pipeline", "show", name]);
    let line = shown.lines().find(|l| l.starts_with("mtu drops\t"))?;
    line.split('\t').nth(1)?.parse().ok()
}

/// Sends a `len`-byte frame in on port 1; the frames that left port 2.
fn exchange(input: &PacketSocket, output: &PacketSocket, len: usize) -> Vec<Vec<u8>> {
    exchange_all(input, &[output], len).concat()
}

/// Sends a `len`-byte frame in on port 1; the frames that left each of
/// `outputs`, in their order.
fn exchange_all(input: &PacketSocket, outputs: &[&PacketSocket], len: usize) -> Vec<Vec<Vec<u8>>> {
    input.send(&frame(len)).expect("send");
    let mut out = vec![vec![]; outputs.len()];
    while wait_any(outputs, WAIT_MS).expect("poll") {
        for (socket, frames) in outputs.iter().zip(out.iter_mut()) {
            while let Some(f) = socket.receive().expect("receive") {
                if !f.outgoing {
                    frames.push(f.bytes);
                }
            }
        }
    }
    out
}

/// The tester's side of port `port`.
fn tester(port: &str) -> PacketSocket {
    let interface = format!("t{port}");
    let index = ifindex(&interface).expect("tester interface");
    PacketSocket::bind(index, &interface).expect("socket")
}

/// Multicast copies: egress grows only the copy to port 3 (MTU 600); the
/// copy to port 2 of the same frame still leaves, the grown one is
/// dropped and counted in the program copies run in.
fn copies_scenario(name: &str, hook: &str) {
    let _loaded = load_on(name, hook, &fixture("multicast_push"), &["1", "2", "3"]);
    p4bpf_ok(&["mcast", "set", name, "1", "2:1", "3:7"]);
    let (input, two, three) = (tester("1"), tester("2"), tester("3"));
    let lens = |len| -> Vec<Vec<usize>> {
        let out = exchange_all(&input, &[&two, &three], len);
        out.iter()
            .map(|f| f.iter().map(Vec::len).collect())
            .collect()
    };
    let fits = LARGEST_OUT - PUSHED;
    assert_eq!(lens(fits), [vec![fits], vec![fits + PUSHED]], "at {hook}");
    assert_eq!(lens(fits + 1), [vec![fits + 1], vec![]], "at {hook}");
    assert_eq!(
        mtu_drops(name),
        Some(1),
        "the copy's drop is counted at {hook}"
    );
}

fn live_scenario(name: &str, hook: &str) {
    let _loaded = load(name, hook, &program());
    let (input, output) = (tester("1"), tester("2"));
    assert_eq!(
        mtu_drops(name),
        Some(0),
        "a fresh pipeline has dropped nothing"
    );
    for len in [560, LARGEST_OUT - PUSHED] {
        let arrived = exchange(&input, &output, len);
        let lens: Vec<usize> = arrived.iter().map(Vec::len).collect();
        assert_eq!(lens, [len + PUSHED], "a {len}-byte frame at {hook}");
        assert_eq!(
            arrived.first().and_then(|f| f.get(12..14)),
            Some(&[0x88, 0xb5][..])
        );
    }
    assert_eq!(mtu_drops(name), Some(0));
    let too_long = LARGEST_OUT - PUSHED + 1;
    assert!(
        exchange(&input, &output, too_long).is_empty(),
        "a {too_long}-byte frame grown to {} left a port of MTU {MTU} at {hook}",
        too_long + PUSHED
    );
    assert_eq!(mtu_drops(name), Some(1), "the drop is counted at {hook}");
    let json = p4bpf_ok(&["pipeline", "show", name, "--json"]);
    assert!(json.contains(r#""mtu_drops": 1}"#), "{json}");
}

/// `BPF_PROG_TEST_RUN` at TC: the verdict says drop for the frame that
/// does not fit, redirect for the one that does, and only the first counts.
fn test_run_scenario(name: &str) {
    let _loaded = load(name, "tc", &program());
    let run = |len| test_run(name, len);
    assert_eq!(run(LARGEST_OUT - PUSHED), TC_ACT_REDIRECT);
    assert_eq!(mtu_drops(name), Some(0));
    assert_eq!(run(LARGEST_OUT - PUSHED + 1), TC_ACT_SHOT);
    assert_eq!(run(1400), TC_ACT_SHOT);
    assert_eq!(mtu_drops(name), Some(2));
}

const TC_ACT_SHOT: u32 = 2;
const TC_ACT_REDIRECT: u32 = 7;
const XDP_DROP: u32 = 1;
const XDP_REDIRECT: u32 = 4;

/// Each architecture's program that pushes 20 bytes and sends to port 2
/// (PSA and v1model push in egress), at both hooks: the frame that fits
/// is redirected, the one that does not is dropped and counted.
fn architectures_scenario(pid: u32) {
    for program in ["push_tunnel", "psa_push", "v1model_push"] {
        for (hook, drop, redirect) in [
            ("tc", TC_ACT_SHOT, TC_ACT_REDIRECT),
            ("xdp", XDP_DROP, XDP_REDIRECT),
        ] {
            let name = format!("mtu_{program}_{hook}_{pid}");
            let loaded = load(&name, hook, &fixture(program));
            assert_eq!(test_run(&name, LARGEST_OUT - PUSHED), redirect, "{name}");
            assert_eq!(test_run(&name, LARGEST_OUT - PUSHED + 1), drop, "{name}");
            assert_eq!(mtu_drops(&name), Some(1), "{name}");
            drop_pipeline(loaded);
        }
    }
}

/// PNA's mirror copies: the packet leaves by port 2 (MTU 1500) and its
/// copy to session 5's port 3 (MTU 600) is dropped and counted when it
/// does not fit (at XDP in the mirror devmap's program).
fn mirror_scenario(name: &str, hook: &str) {
    let _loaded = load_on(name, hook, &fixture("pna_mirror_push"), &["1", "2", "3"]);
    p4bpf_ok(&["clone", "set", name, "5", "3"]);
    let (input, two, three) = (tester("1"), tester("2"), tester("3"));
    let lens = |len| -> Vec<Vec<usize>> {
        let out = exchange_all(&input, &[&two, &three], len);
        out.iter()
            .map(|f| f.iter().map(Vec::len).collect())
            .collect()
    };
    let (fits, grown) = (LARGEST_OUT - PUSHED, LARGEST_OUT);
    assert_eq!(lens(fits), [vec![grown], vec![grown]], "at {hook}");
    assert_eq!(lens(fits + 1), [vec![grown + 1], vec![]], "at {hook}");
    assert_eq!(mtu_drops(name), Some(1), "the mirror copy's drop at {hook}");
}

/// Unloads the pipeline and removes the veth pairs for the next one.
fn drop_pipeline(loaded: Loaded) {
    std::mem::drop(loaded);
    for port in ["p1", "p2"] {
        netns::tool("ip", &["link", "del", port]).expect("veth pair removed");
    }
}

/// The verdict of pipeline `name` on a `len`-byte frame, by `BPF_PROG_TEST_RUN`.
fn test_run(name: &str, len: usize) -> u32 {
    let deployment = p4bpf_runtime::deploy::Deployment::open(name).expect("pipeline");
    let program = deployment.program().expect("program");
    let fd = std::os::fd::AsRawFd::as_raw_fd(&program);
    p4bpf_runtime::test_run::run(fd, &frame(len), 1)
        .expect("test run")
        .retval
}

/// A traced build's record of the drop: `p4bpf trace` names the MTU, the
/// interface and the length, then the verdict.
fn trace_scenario(name: &str) {
    let dir = common::scratch_dir(&format!("mtu_drop_trace_{}", std::process::id()));
    let source = program();
    let (source, out) = (source.to_string_lossy(), dir.to_string_lossy());
    p4bpf_ok(&["compile", &source, "--hook", "tc", "--trace", "-o", &out]);
    let _loaded = load(name, "tc", &dir.join("push_tunnel.o"));
    let follower = std::process::Command::new(env!("CARGO_BIN_EXE_p4bpf"))
        .args(["trace", name, "--count", "1", "--seconds", "30", "--json"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("p4bpf trace starts");
    // Records wait in the ring until read, so the follower may open it late.
    assert_eq!(test_run(name, LARGEST_OUT - PUSHED + 1), TC_ACT_SHOT);
    let traced = follower
        .wait_with_output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let p2 = ifindex("p2").expect("port 2");
    let record = format!(
        r#"{{"drop":"mtu","ifindex":{p2},"mtu":600,"length":{}}}"#,
        LARGEST_OUT + 1
    );
    assert!(traced.contains(&record), "{record} in {traced}");
    assert!(traced.contains(r#""verdict":"drop""#), "{traced}");
}

/// Runs `scenario` in a fresh network namespace, or says why not.
fn in_fresh_namespace(what: &str, scenario: impl FnOnce() + Send) {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED {what}: {why}");
        return;
    }
    std::thread::scope(|scope| {
        scope
            .spawn(|| match netns::enter_fresh() {
                Ok(()) => scenario(),
                Err(why) => eprintln!("SKIPPED {what}: {why}"),
            })
            .join()
            .expect("the scenario ran");
    });
}

#[test]
fn at_tc_a_frame_grown_past_the_mtu_is_dropped_and_counted() {
    let name = format!("mtu_drop_tc_{}", std::process::id());
    in_fresh_namespace("MTU drops at TC", || live_scenario(&name, "tc"));
}

#[test]
fn at_xdp_a_frame_grown_past_the_mtu_is_dropped_and_counted() {
    let name = format!("mtu_drop_xdp_{}", std::process::id());
    in_fresh_namespace("MTU drops at XDP", || live_scenario(&name, "xdp"));
}

#[test]
fn test_run_sees_the_output_interface_mtu() {
    let name = format!("mtu_drop_run_{}", std::process::id());
    in_fresh_namespace("MTU drops through BPF_PROG_TEST_RUN", || {
        test_run_scenario(&name)
    });
}

#[test]
fn a_traced_build_says_why_it_dropped() {
    let name = format!("mtu_drop_trace_{}", std::process::id());
    in_fresh_namespace("MTU drop traces", || trace_scenario(&name));
}

#[test]
fn every_architecture_checks_where_it_sends() {
    let pid = std::process::id();
    in_fresh_namespace("MTU drops of each architecture", || {
        architectures_scenario(pid)
    });
}

#[test]
fn multicast_copies_grown_past_the_mtu_are_dropped_and_counted() {
    let pid = std::process::id();
    in_fresh_namespace("MTU drops of copies", || {
        copies_scenario(&format!("mtu_copies_tc_{pid}"), "tc");
        for port in ["p1", "p2", "p3"] {
            netns::tool("ip", &["link", "del", port]).expect("veth pair removed");
        }
        copies_scenario(&format!("mtu_copies_xdp_{pid}"), "xdp");
    });
}

#[test]
fn pna_mirror_copies_grown_past_the_mtu_are_dropped_and_counted() {
    let pid = std::process::id();
    in_fresh_namespace("MTU drops of mirror copies", || {
        mirror_scenario(&format!("mtu_mirror_tc_{pid}"), "tc");
        for port in ["p1", "p2", "p3"] {
            netns::tool("ip", &["link", "del", port]).expect("veth pair removed");
        }
        mirror_scenario(&format!("mtu_mirror_xdp_{pid}"), "xdp");
    });
}
