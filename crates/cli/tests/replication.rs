//! Packet replication at TC and XDP, live: `tests/replication/multicast.p4`
//! loaded with `p4bpf pipeline load` on four veth ports in a private
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

/// `pN`, the pipeline's side of port N, and its peer `tN`, for each port.
fn veth_pairs() {
    for port in PORTS {
        netns::veth_pair(&format!("p{port}"), &format!("t{port}"), None).expect("veth pair");
    }
}

/// The tester's side of each port: `tN` is the peer of the pipeline's `pN`.
struct Wires {
    sockets: Vec<(u32, PacketSocket)>,
}

impl Wires {
    /// At XDP a frame redirected into `pN` reaches `tN` only through
    /// the peer's NAPI, which GRO turns on.
    fn new(hook: &str) -> Wires {
        veth_pairs();
        let mut sockets = vec![];
        for port in PORTS {
            let outer = format!("t{port}");
            if hook == "xdp" {
                netns::tool("ethtool", &["-K", &outer, "gro", "on"]).expect("GRO on");
            }
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

fn multicast_scenarios(name: &str, hook: &str) {
    let wires = Wires::new(hook);
    p4bpf_ok(&[
        "pipeline",
        "load",
        &program().to_string_lossy(),
        "--name",
        name,
        "--hook",
        hook,
    ]);
    let _loaded = Loaded(name.to_string());
    // Port 9 has no interface: its copy is skipped, the others still go.
    // The group is set before the ports exist (at XDP adding a port
    // rebuilds the groups' devmaps).
    p4bpf_ok(&["mcast", "set", name, "1", "2:10", "3:7", "4:99", "9:1"]);
    for port in PORTS {
        p4bpf_ok(&[
            "port",
            "add",
            name,
            &format!("p{port}"),
            "--port",
            &port.to_string(),
        ]);
    }
    let listed = p4bpf_ok(&["mcast", "list", name]);
    assert_eq!(listed, "1\t2:10 3:7 4:99 9:1\n");

    // Three members: rid 10 as is, rid 7 grown by a tag, rid 99 dropped
    // in egress; the original goes nowhere (nothing on port 1).
    assert_eq!(
        wires.exchange(&frame(1, 1)),
        vec![(2, expected(1, 1, 2, 10, 5)), (3, expected(1, 1, 3, 7, 5)),]
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
    live_multicast("tc");
}

/// At XDP the copies leave through a devmap broadcast, each running
/// egress in the devmap's program: `p4bpf mcast` fills the devmaps.
#[test]
fn multicast_copies_at_xdp_run_egress_each_with_its_port_and_replica_id() {
    live_multicast("xdp");
}

/// The multicast scenarios at `hook` in a fresh network namespace.
fn live_multicast(hook: &str) {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED live multicast at {hook}: {why}");
        return;
    }
    let name = format!("mcast_live_{hook}_{}", std::process::id());
    std::thread::scope(|scope| {
        scope
            .spawn(|| match netns::enter_fresh() {
                Ok(()) => multicast_scenarios(&name, hook),
                Err(why) => eprintln!("SKIPPED multicast live test: {why}"),
            })
            .join()
            .expect("the live multicast test ran");
    });
}

#[test]
fn mcast_refuses_group_zero_and_bad_members() {
    let out = common::p4bpf(&["mcast", "set", "no_such_pipeline_x", "1", "2:x"]);
    assert!(!out.status.success());
    assert!(common::stderr(&out).contains("member `2:x`"));
    let out = common::p4bpf(&["mcast", "del", "no_such_pipeline_x", "1", "2"]);
    assert!(common::stderr(&out).contains("`del` takes no members"));
}

/// Members of the timed groups: no copy (unicast), then 1 to 8 copies.
const TIMED_GROUPS: [u32; 5] = [0, 1, 2, 4, 8];
const TIMED_REPEAT: u32 = 50_000;
const TIMED_ROUNDS: usize = 7;

/// ns per packet for a group of `members` copies (0: unicast), the median
/// over rounds of `BPF_PROG_TEST_RUN` with repeat.
fn time_group(name: &str, members: u32) -> f64 {
    let deployment = p4bpf_runtime::deploy::Deployment::open(name).expect("pipeline");
    let program = deployment.program().expect("program");
    let group: Vec<String> = (0..members)
        .map(|i| format!("{}:{}", 2 + i % 3, 20 + i))
        .collect();
    let mut args = vec!["mcast", "set", name, "1"];
    args.extend(group.iter().map(String::as_str));
    p4bpf_ok(&args);
    let packet = if members == 0 {
        frame(2, 3)
    } else {
        frame(1, 1)
    };
    time_frame(&program, &packet)
}

/// ns per packet of `program` on `packet`: the median over rounds of this
/// thread's CPU time per run of `BPF_PROG_TEST_RUN` with repeat.
fn time_frame(program: &std::os::fd::OwnedFd, packet: &[u8]) -> f64 {
    let mut samples: Vec<f64> = (0..TIMED_ROUNDS)
        .map(|_| {
            let fd = std::os::fd::AsRawFd::as_raw_fd(program);
            p4bpf_runtime::bench::timing::time_plain(fd, packet, TIMED_REPEAT)
                .expect("test run")
                .cpu_ns
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples.get(samples.len() / 2).copied().unwrap_or(0.0)
}

/// The cost of a multicast copy, written to bench/replication/RESULTS.md:
/// `cargo test --release -p p4bpf --test replication -- --ignored`.
#[test]
#[ignore = "a benchmark: run explicitly, as root"]
fn replication_cost() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED replication_cost: {why}");
        return;
    }
    let name = format!("mcast_bench_{}", std::process::id());
    let figures = std::thread::scope(|scope| {
        scope
            .spawn(|| {
                netns::enter_fresh().expect("network namespace");
                veth_pairs();
                let program = program();
                p4bpf_ok(&[
                    "pipeline",
                    "load",
                    &program.to_string_lossy(),
                    "--name",
                    &name,
                    "--hook",
                    "tc",
                ]);
                let _loaded = Loaded(name.clone());
                for port in PORTS {
                    p4bpf_ok(&[
                        "port",
                        "add",
                        &name,
                        &format!("p{port}"),
                        "--port",
                        &port.to_string(),
                    ]);
                }
                TIMED_GROUPS.map(|members| (members, time_group(&name, members)))
            })
            .join()
            .expect("the benchmark ran")
    });
    let text = report(&figures) + &psa_section_kept();
    std::fs::write(bench_results(), text).expect("bench/replication/RESULTS.md");
    print!("{}", report(&figures));
}

fn bench_results() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/replication/RESULTS.md")
}

/// The figures as Markdown, with the least-squares cost of one copy over
/// the groups of 1 to 8.
fn report(figures: &[(u32, f64)]) -> String {
    let copies: Vec<(f64, f64)> = figures
        .iter()
        .filter(|(m, _)| *m > 0)
        .map(|(m, ns)| (f64::from(*m), *ns))
        .collect();
    let slope = slope(&copies);
    let mut out = String::from(
        "# Cost of packet replication (v1model multicast at TC)\n\n\
         Written by `cargo test --release -p p4bpf --test replication -- --ignored replication_cost`\n\
         (as root). `crates/cli/tests/replication/multicast.p4` is loaded at TC on four\n\
         veth ports in a private namespace; each figure is the median over 7 rounds of\n\
         this thread's CPU time per run of `BPF_PROG_TEST_RUN` (repeat 50000) on one\n\
         36-byte frame. A copy is real: `bpf_clone_redirect`, the egress program at tcx\n\
         egress of its port, and the veth transmit to the peer (whose stack drops the\n\
         frame later, in a softirq this figure may not see). The unicast row runs ingress\n\
         and egress in one program and returns a redirect the test run does not perform.\n\n\
         | copies | ns/packet |\n| ---: | ---: |\n",
    );
    for (members, ns) in figures {
        let what = if *members == 0 {
            "unicast".to_string()
        } else {
            members.to_string()
        };
        out.push_str(&format!("| {what} | {ns:.0} |\n"));
    }
    out.push_str(&format!(
        "\nOne multicast copy costs **{slope:.0} ns** (least-squares slope over 1 to 8 copies).\n"
    ));
    out
}

/// The least-squares slope of `points` (x, y).
fn slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    let (sx, sy) = points
        .iter()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
    let (sxx, sxy) = points
        .iter()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x * x, b + x * y));
    (n * sxy - sx * sy) / (n * sxx - sx * sx)
}

fn stf() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/replication/multicast.stf")
}

#[test]
fn bmv2_multicast_commands_pass_live_at_tc() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED bmv2_multicast_commands_pass_live_at_tc: {why}");
        return;
    }
    let (p4, script) = (program(), stf());
    let args = ["test", &*p4.to_string_lossy(), &*script.to_string_lossy()];
    let out = common::p4bpf(&[&args[..], &["--target", "veth", "--hook", "tc"]].concat());
    let text = common::stdout(&out);
    assert!(out.status.success(), "{text}{}", common::stderr(&out));
    assert!(text.contains("PASS: 3 packets, 0 failure(s)"), "{text}");
    // Three copies of the first packet, each judged against its port's expect.
    assert_eq!(
        text.matches("(multicast.stf:15) in port 1: redirect to port")
            .count(),
        3,
        "{text}"
    );
    // One test run returns one packet: the kernel target plays the
    // script on live ports instead, and says so.
    let out = common::p4bpf(&[&args[..], &["--target", "kernel", "--hook", "tc"]].concat());
    let text = common::stdout(&out);
    assert!(out.status.success(), "{text}{}", common::stderr(&out));
    assert!(text.contains("run on veth pairs"), "{text}");
    assert!(text.contains("PASS: 3 packets, 0 failure(s)"), "{text}");
    // The user target runs egress on each copy as the program makes it.
    let out = common::p4bpf(&[&args[..], &["--target", "user", "--hook", "tc"]].concat());
    let text = common::stdout(&out);
    assert!(out.status.success(), "{text}{}", common::stderr(&out));
    assert!(text.contains("PASS: 3 packets, 0 failure(s)"), "{text}");
}

/// PTF's PSACloneI2E (psa-ebpf-ptf/test.py) on the corpus's clone-i2e.p4:
/// ingress clones every packet to session 8 and sends the original to the
/// port its destination MAC names, source MAC 00000000cafe; egress marks
/// clones (EtherType face). Session 8 has two members on port 3
/// (instances 1 and 2), set with `p4bpf clone`.
fn clone_i2e_scenario(program: &Path, name: &str, hook: &str) {
    let wires = Wires::new(hook);
    let p = program.to_string_lossy();
    p4bpf_ok(&["pipeline", "load", &p, "--name", name, "--hook", hook]);
    let _loaded = Loaded(name.to_string());
    for port in PORTS {
        let (dev, number) = (format!("p{port}"), port.to_string());
        p4bpf_ok(&["port", "add", name, &dev, "--port", &number]);
    }
    p4bpf_ok(&["clone", "set", name, "8", "3:1", "3:2"]);
    assert_eq!(p4bpf_ok(&["clone", "list", name]), "8\t3:1 3:2\n");
    let packet = |dst: u8| {
        let mut f = vec![0, 0, 0, 0, 0, dst, 0, 0, 0, 0, 0, 1, 0xff, 0xff];
        f.extend([1, 2, 3, 4, 5, 6, 7, 8]);
        f
    };
    let with = |mut f: Vec<u8>, at: usize, bytes: &[u8]| {
        f.splice(at..at + bytes.len(), bytes.iter().copied());
        f
    };
    let clone = |dst| with(packet(dst), 12, &[0xfa, 0xce]);
    assert_eq!(
        wires.exchange(&packet(2)),
        vec![
            (2, with(packet(2), 6, &[0, 0, 0, 0, 0xca, 0xfe])),
            (3, clone(2)),
            (3, clone(2)),
        ]
    );
    // Ingress drops packets to 9; their clones still go.
    assert_eq!(
        wires.exchange(&packet(9)),
        vec![(3, clone(9)), (3, clone(9))]
    );
    p4bpf_ok(&["clone", "del", name, "8"]);
    assert_eq!(wires.exchange(&packet(9)), vec![]);
    let out = common::p4bpf(&["clone", "del", name, "8"]);
    assert!(common::stderr(&out).contains("clone session 8 does not exist"));
}

#[test]
fn psa_clone_i2e_sessions_live_at_tc() {
    live_psa_clone("tc");
}

/// At XDP the clones are planned in the ingress deparser, their received
/// headers kept, and sent with the original through the session's devmap.
#[test]
fn psa_clone_i2e_sessions_live_at_xdp() {
    live_psa_clone("xdp");
}

/// The PSA clone scenario at `hook` in a fresh network namespace.
fn live_psa_clone(hook: &str) {
    let Some(corpus) = common::corpus_dir() else {
        eprintln!("SKIPPED psa clone live at {hook}: ../shared/corpus/p4c is absent");
        return;
    };
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED psa clone live at {hook}: {why}");
        return;
    }
    let program = corpus.join("psa-ebpf/clone-i2e.p4");
    let name = format!("clone_live_{hook}_{}", std::process::id());
    std::thread::scope(|scope| {
        scope
            .spawn(|| match netns::enter_fresh() {
                Ok(()) => clone_i2e_scenario(&program, &name, hook),
                Err(why) => eprintln!("SKIPPED clone live test: {why}"),
            })
            .join()
            .expect("the live clone test ran");
    });
}

fn psa_program() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/replication/psa_copies.p4")
}

/// The heading of PSA's section of bench/replication/RESULTS.md.
const PSA_HEADING: &str = "## PSA at TC: clone I2E and multicast";

/// PSA's section of the existing RESULTS.md, kept when v1model's figures
/// are written again.
fn psa_section_kept() -> String {
    let old = std::fs::read_to_string(bench_results()).unwrap_or_default();
    old.find(PSA_HEADING)
        .and_then(|at| old.get(at..))
        .map(|section| format!("\n{section}"))
        .unwrap_or_default()
}

/// A frame for `psa_copies.p4`: `op` and `arg` after Ethernet, then the
/// fields egress fills in and a payload.
fn psa_frame(op: u8, arg: u8) -> Vec<u8> {
    let mut f = vec![0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0x12, 0x34, op, arg];
    f.extend([0; 6]); // port, instance, path, pad
    f.extend([0xca, 0xfe]);
    f
}

/// What egress makes of `psa_frame(op, arg)` out of `port`.
fn psa_expected(op: u8, arg: u8, port: u16, instance: u16, path: u8) -> Vec<u8> {
    let mut f = psa_frame(op, arg);
    f.splice(
        16..21,
        [port.to_be_bytes(), instance.to_be_bytes()]
            .concat()
            .into_iter()
            .chain([path]),
    );
    f
}

/// The timed rows: (what, copies, ns/packet).
type PsaFigures = Vec<(&'static str, u32, f64)>;

/// Checks that the copies are made, then times unicast, a clone and
/// groups of 1 to 8, all on live ports.
fn psa_costs(name: &str) -> PsaFigures {
    let wires = Wires::new("tc");
    let p = psa_program();
    p4bpf_ok(&[
        "pipeline",
        "load",
        &p.to_string_lossy(),
        "--name",
        name,
        "--hook",
        "tc",
    ]);
    let _loaded = Loaded(name.to_string());
    for port in PORTS {
        let (dev, number) = (format!("p{port}"), port.to_string());
        p4bpf_ok(&["port", "add", name, &dev, "--port", &number]);
    }
    p4bpf_ok(&["clone", "set", name, "8", "3:1"]);
    p4bpf_ok(&["mcast", "set", name, "1", "2:1", "4:2"]);
    // The timed paths make their copies: the original and one clone,
    // two multicast copies each through egress.
    assert_eq!(
        wires.exchange(&psa_frame(3, 8)),
        vec![
            (2, psa_expected(3, 8, 2, 0, 1)),
            (3, psa_expected(3, 8, 3, 1, 3))
        ]
    );
    assert_eq!(
        wires.exchange(&psa_frame(1, 1)),
        vec![
            (2, psa_expected(1, 1, 2, 1, 2)),
            (4, psa_expected(1, 1, 4, 2, 2))
        ]
    );
    drop(wires);
    let deployment = p4bpf_runtime::deploy::Deployment::open(name).expect("pipeline");
    let program = deployment.program().expect("program");
    let mut figures = vec![
        ("unicast", 0, time_frame(&program, &psa_frame(2, 2))),
        (
            "clone I2E, one member",
            1,
            time_frame(&program, &psa_frame(3, 8)),
        ),
    ];
    for members in [1u32, 2, 4, 8] {
        let group: Vec<String> = (0..members)
            .map(|i| format!("{}:{}", 2 + i % 3, 20 + i))
            .collect();
        let mut args = vec!["mcast", "set", name, "1"];
        args.extend(group.iter().map(String::as_str));
        p4bpf_ok(&args);
        figures.push(("multicast", members, time_frame(&program, &psa_frame(1, 1))));
    }
    figures
}

/// PSA's section: the rows, the cost of a clone (clone row less unicast
/// row) and of a multicast copy (slope over 1 to 8).
fn psa_report(figures: &PsaFigures) -> String {
    let ns = |what: &str| {
        figures
            .iter()
            .find(|(w, _, _)| *w == what)
            .map_or(f64::NAN, |(_, _, ns)| *ns)
    };
    let copies: Vec<(f64, f64)> = figures
        .iter()
        .filter(|(w, _, _)| *w == "multicast")
        .map(|(_, m, ns)| (f64::from(*m), *ns))
        .collect();
    let mut out = format!(
        "{PSA_HEADING}\n\n\
         Written by `cargo test --release -p p4bpf --test replication -- --ignored psa_replication_cost`\n\
         (as root), the same way: `crates/cli/tests/replication/psa_copies.p4` at TC on four veth ports\n\
         in a private namespace, the median over 7 rounds of this thread's CPU time per run of\n\
         `BPF_PROG_TEST_RUN` (repeat 50000). Before timing, the test checks the copies leave their\n\
         ports with what egress wrote. The unicast and clone rows send the original to port 2 with a\n\
         redirect the test run does not perform; the clone (session 8, one member) is a real\n\
         `bpf_clone_redirect` through egress at tcx egress of port 3. A multicast packet's original\n\
         goes nowhere. Load average (1, 5, 15 min) at the end of the run: {}.\n\n\
         | path | copies | ns/packet |\n| --- | ---: | ---: |\n",
        load_average()
    );
    for (what, members, ns) in figures {
        out.push_str(&format!("| {what} | {members} | {ns:.0} |\n"));
    }
    out.push_str(&format!(
        "\nOne PSA clone I2E costs **{:.0} ns** (clone row less unicast row); one PSA multicast copy \
         costs **{:.0} ns** (least-squares slope over 1 to 8 copies).\n",
        ns("clone I2E, one member") - ns("unicast"),
        slope(&copies)
    ));
    out
}

/// `/proc/loadavg`'s three averages: how much else ran beside the figures.
fn load_average() -> String {
    let line = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let averages: Vec<&str> = line.split_whitespace().take(3).collect();
    averages.join(", ")
}

/// The cost of a PSA clone and of a PSA multicast copy, written beside
/// v1model's in bench/replication/RESULTS.md:
/// `cargo test --release -p p4bpf --test replication -- --ignored psa_replication_cost`.
#[test]
#[ignore = "a benchmark: run explicitly, as root"]
fn psa_replication_cost() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED psa_replication_cost: {why}");
        return;
    }
    let name = format!("psa_copy_bench_{}", std::process::id());
    let figures = std::thread::scope(|scope| {
        scope
            .spawn(|| {
                netns::enter_fresh().expect("network namespace");
                psa_costs(&name)
            })
            .join()
            .expect("the benchmark ran")
    });
    let old = std::fs::read_to_string(bench_results()).unwrap_or_default();
    let v1model = old
        .find(PSA_HEADING)
        .and_then(|at| old.get(..at))
        .unwrap_or(&old);
    let text = format!("{}\n{}", v1model.trim_end(), psa_report(&figures));
    std::fs::write(bench_results(), text).expect("bench/replication/RESULTS.md");
    print!("{}", psa_report(&figures));
}

/// The cost of a multicast copy at XDP, written to
/// bench/replication/RESULTS_XDP.md:
/// `cargo test -p p4bpf --test replication -- --ignored xdp_replication_cost`
/// (the figures are the kernel's, so a debug build times the same).
#[test]
#[ignore = "a benchmark: run explicitly, as root"]
fn xdp_replication_cost() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED xdp_replication_cost: {why}");
        return;
    }
    let name = format!("mcast_xdp_bench_{}", std::process::id());
    let figures = std::thread::scope(|scope| {
        scope
            .spawn(|| {
                netns::enter_fresh().expect("network namespace");
                let wires = Wires::new("xdp");
                let program = program();
                let p = program.to_string_lossy();
                p4bpf_ok(&["pipeline", "load", &p, "--name", &name, "--hook", "xdp"]);
                let _loaded = Loaded(name.clone());
                for port in PORTS {
                    let interface = format!("p{port}");
                    p4bpf_ok(&[
                        "port",
                        "add",
                        &name,
                        &interface,
                        "--port",
                        &port.to_string(),
                    ]);
                }
                TIMED_GROUPS.map(|members| (members, time_group_live(&name, members, &wires)))
            })
            .join()
            .expect("the benchmark ran")
    });
    let text = xdp_report(&figures);
    let path = bench_results().with_file_name("RESULTS_XDP.md");
    std::fs::write(path, &text).expect("bench/replication/RESULTS_XDP.md");
    print!("{text}");
}

/// ns per packet at XDP for a group of `members` copies (0: unicast), the
/// median over rounds of live-frame test runs arriving on port 1; the
/// first copy's port (the unicast's, port 3) must have seen frames.
fn time_group_live(name: &str, members: u32, wires: &Wires) -> f64 {
    let deployment = p4bpf_runtime::deploy::Deployment::open(name).expect("pipeline");
    let program = deployment.program().expect("program");
    let group: Vec<String> = (0..members)
        .map(|i| format!("{}:{}", 2 + i % 3, 20 + i))
        .collect();
    let mut args = vec!["mcast", "set", name, "1"];
    args.extend(group.iter().map(String::as_str));
    p4bpf_ok(&args);
    let packet = if members == 0 {
        frame(2, 3)
    } else {
        frame(1, 1)
    };
    let port1 = ifindex("p1").expect("port 1");
    let fd = std::os::fd::AsRawFd::as_raw_fd(&program);
    let mut samples: Vec<f64> = (0..TIMED_ROUNDS)
        .map(|_| {
            p4bpf_runtime::bench::live::time_live(fd, &packet, TIMED_REPEAT, port1)
                .expect("live test run")
        })
        .collect();
    let seen_on = if members == 0 { 3 } else { 2 };
    let (_, socket) = wires
        .sockets
        .iter()
        .find(|(p, _)| *p == seen_on)
        .expect("port");
    assert!(
        socket.receive().expect("receive").is_some(),
        "no frame left port {seen_on}"
    );
    while socket.receive().expect("receive").is_some() {}
    samples.sort_by(f64::total_cmp);
    samples.get(samples.len() / 2).copied().unwrap_or(0.0)
}

/// The XDP figures as Markdown, with the least-squares cost of one copy.
fn xdp_report(figures: &[(u32, f64)]) -> String {
    let copies: Vec<(f64, f64)> = figures
        .iter()
        .filter(|(m, _)| *m > 0)
        .map(|(m, ns)| (f64::from(*m), *ns))
        .collect();
    let mut out = format!(
        "# Cost of packet replication at XDP (v1model multicast)\n\n\
         Written by `cargo test -p p4bpf --test replication -- --ignored xdp_replication_cost`\n\
         (as root). `crates/cli/tests/replication/multicast.p4` is loaded at XDP on four veth\n\
         ports in a private namespace (GRO on the peers, so redirected frames are taken); each\n\
         figure is the median over 7 rounds of the kernel's ns per frame for\n\
         `BPF_PROG_TEST_RUN` with live frames (repeat 50000) arriving on port 1. Frames are\n\
         really sent: the unicast row redirects to port 3; a multicast frame is broadcast to\n\
         its group's devmap, and the devmap's program runs egress on each copy before the\n\
         veth transmit, all inside the timed run. Load average (1, 5, 15 min) at the end: {}.\n\n\
         | copies | ns/packet |\n| ---: | ---: |\n",
        load_average()
    );
    for (members, ns) in figures {
        let what = if *members == 0 {
            "unicast".to_string()
        } else {
            members.to_string()
        };
        out.push_str(&format!("| {what} | {ns:.0} |\n"));
    }
    out.push_str(&format!(
        "\nOne multicast copy at XDP costs **{:.0} ns** (least-squares slope over 1 to 8 copies).\n",
        slope(&copies)
    ));
    out
}
