//! PNA's `mirror_packet` (`tests/pna_mirror/pna_mirror.p4`): copies per
//! slot to each session's ports, the last call per slot, the packet
//! itself sent or dropped on its own, sessions never made, slots chosen
//! at run time and by a table entry; passed to the host and
//! recirculated, where TC and XDP differ; on the kernel and the user
//! target at both hooks; and sessions set with `p4bpf clone` on a pipeline loaded on
//! veth ports in a private namespace.

mod common;

use common::{p4bpf, stderr, stdout};
use p4bpf_runtime::ports::ifindex;
use p4bpf_runtime::veth::netns;
use p4bpf_runtime::veth::socket::{wait_any, PacketSocket};
use std::path::{Path, PathBuf};

fn program() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pna_mirror/pna_mirror.p4")
}

/// `p4bpf test` of script `stf` (in tests/pna_mirror) at `hook` on
/// `target`: whether it passed, and its report.
fn run(stf: &str, target: &str, hook: &str) -> (bool, String) {
    let program = program();
    let script = program.with_file_name(stf);
    let (p, s) = (program.to_string_lossy(), script.to_string_lossy());
    let out = p4bpf(&["test", &p, &s, "--target", target, "--hook", hook]);
    (
        out.status.success(),
        format!("{}{}", stdout(&out), stderr(&out)),
    )
}

#[test]
fn mirror_copies_leave_at_tc_and_xdp_in_the_kernel_and_on_the_user_target() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED mirror copies: {why}");
        return;
    }
    let runs = [
        ("kernel", "tc"),
        ("kernel", "xdp"),
        ("user", "tc"),
        ("user", "xdp"),
    ];
    for (target, hook) in runs {
        let (ok, text) = run("pna_mirror.stf", target, hook);
        let at = format!("{target} at {hook}");
        assert!(ok && text.contains("PASS: 10 packets"), "{at}:\n{text}");
        // Packet 4 mirrors on two slots and is sent on: three frames.
        let packet4 = text.matches("packet 4 (pna_mirror.stf:15)").count();
        assert_eq!(packet4, 3, "{at}:\n{text}");
    }
}

/// (script, target, hook, packets): what differs by hook. At XDP a packet
/// passed to the host makes no copy and only the last pass mirrors.
const BY_HOOK: &[(&str, &str, &str, u32)] = &[
    ("pna_mirror_recirculate_tc.stf", "kernel", "tc", 2),
    ("pna_mirror_recirculate_tc.stf", "user", "tc", 2),
    ("pna_mirror_host_tc.stf", "user", "tc", 2),
    ("pna_mirror_xdp.stf", "kernel", "xdp", 3),
    ("pna_mirror_xdp.stf", "user", "xdp", 3),
];

#[test]
fn mirroring_a_packet_to_the_host_or_recirculated_follows_the_hook() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED mirror by hook: {why}");
        return;
    }
    for (stf, target, hook, packets) in BY_HOOK {
        let (ok, text) = run(stf, target, hook);
        let pass = format!("PASS: {packets} packets");
        assert!(
            ok && text.contains(&pass),
            "{stf} {target} at {hook}:\n{text}"
        );
    }
}

/// Unloads the pipeline however the test ends (the namespace and its
/// interfaces die with the test's thread).
struct Loaded(String);

impl Drop for Loaded {
    fn drop(&mut self) {
        let _ = p4bpf(&["pipeline", "unload", &self.0]);
    }
}

/// `p4bpf ARGS` must succeed: its output.
fn p4bpf_ok(args: &[&str]) -> String {
    let out = p4bpf(args);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(out.status.success(), "p4bpf {}: {text}", args.join(" "));
    stdout(&out)
}

/// Sends `frame` in on the tester's side of port 1; every frame that
/// left a port, as (port, bytes), sorted.
fn exchange(sockets: &[(u32, PacketSocket)], frame: &[u8]) -> Vec<(u32, Vec<u8>)> {
    let input = sockets.first().map(|(_, s)| s).expect("port 1");
    input.send(frame).expect("send");
    let all: Vec<&PacketSocket> = sockets.iter().map(|(_, s)| s).collect();
    let (mut out, mut wait) = (vec![], 300);
    while wait_any(&all, wait).expect("poll") {
        for (port, socket) in sockets {
            while let Some(f) = socket.receive().expect("receive") {
                if !f.outgoing {
                    out.push((*port, f.bytes));
                }
            }
        }
        wait = 50;
    }
    out.sort();
    out
}

/// The pipeline loaded on ports 1 to 4 (veth pairs `pN`/`tN`), session 5
/// set, listed and deleted with `p4bpf clone`.
fn clone_command_scenario(name: &str, hook: &str) {
    let mut sockets = vec![];
    for port in 1..=4u32 {
        let (inner, outer) = (format!("p{port}"), format!("t{port}"));
        netns::veth_pair(&inner, &outer, None).expect("veth pair");
        if hook == "xdp" {
            // A frame redirected into `pN` reaches `tN` through its NAPI.
            netns::tool("ethtool", &["-K", &outer, "gro", "on"]).expect("GRO on");
        }
        let index = ifindex(&outer).expect("tester interface");
        sockets.push((port, PacketSocket::bind(index, &outer).expect("socket")));
    }
    let p = program();
    p4bpf_ok(&[
        "pipeline",
        "load",
        &p.to_string_lossy(),
        "--name",
        name,
        "--hook",
        hook,
    ]);
    let _loaded = Loaded(name.to_string());
    for port in 1..=4u32 {
        let (dev, number) = (format!("p{port}"), port.to_string());
        p4bpf_ok(&["port", "add", name, &dev, "--port", &number]);
    }
    p4bpf_ok(&["clone", "set", name, "5", "3"]);
    assert_eq!(p4bpf_ok(&["clone", "list", name]), "5\t3:0\n");
    // op 1: sent to port 2 and mirrored to session 5.
    let mut frame = vec![0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x88, 0xb5, 0x01];
    let mut written = frame.clone();
    written[11] = 0xaa;
    assert_eq!(
        exchange(&sockets, &frame),
        vec![(2, written.clone()), (3, written.clone())],
        "{hook}"
    );
    p4bpf_ok(&["clone", "del", name, "5"]);
    frame[14] = 2;
    written[14] = 2;
    assert_eq!(exchange(&sockets, &frame), vec![(2, written)], "{hook}");
}

#[test]
fn mirror_sessions_are_set_with_p4bpf_clone_on_a_loaded_pipeline() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED mirror sessions live: {why}");
        return;
    }
    for hook in ["tc", "xdp"] {
        let name = format!("mirror_live_{hook}_{}", std::process::id());
        std::thread::scope(|scope| {
            scope
                .spawn(|| match netns::enter_fresh() {
                    Ok(()) => clone_command_scenario(&name, hook),
                    Err(why) => eprintln!("SKIPPED mirror sessions live: {why}"),
                })
                .join()
                .expect("the live mirror test ran");
        });
    }
}
