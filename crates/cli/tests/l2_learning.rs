//! The learning switch example (examples/l2_learning.p4 and its
//! controller, examples/l2_learning_controller.sh) on veth: three hosts,
//! each in a private network namespace, on switch ports 1-3 at TC. The
//! first frame from host A floods to B and C and its digest teaches the
//! controller A's address; from then on frames to A reach A alone.
//! Every name carries the process id; everything is removed at the end,
//! also after a failure. Skips, saying why, without root/BPF, clang, `ip`
//! or python3 (which sends the frames from inside the namespaces).

mod common;

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run(program: &str, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .output()
        .expect("the command runs");
    let text = format!("{}{}", common::stdout(&out), common::stderr(&out));
    assert!(out.status.success(), "{program} {args:?}:\n{text}");
    text
}

fn p4bpf(args: &[&str]) -> String {
    run(env!("CARGO_BIN_EXE_p4bpf"), args)
}

/// The switch, its hosts and its controller; dropped, all are removed.
struct Lab {
    id: u32,
    controller: Option<Child>,
}

impl Lab {
    fn pipeline(&self) -> String {
        format!("l2learn{}", self.id)
    }
    fn host(&self, n: u32) -> String {
        format!("l2h{n}-{}", self.id)
    }
    fn port(&self, n: u32) -> String {
        format!("l2s{n}-{}", self.id)
    }

    fn build(id: u32) -> Lab {
        let lab = Lab {
            id,
            controller: None,
        };
        for n in 1..=3 {
            let (ns, port) = (lab.host(n), lab.port(n));
            let mac = format!("02:00:00:00:00:0{n}");
            run("ip", &["netns", "add", &ns]);
            run(
                "ip",
                &[
                    "link", "add", &port, "type", "veth", "peer", "name", "eth0", "netns", &ns,
                    "address", &mac,
                ],
            );
            // No IPv6 chatter: the hosts must receive only the test's frames.
            run(
                "sysctl",
                &["-qw", &format!("net.ipv6.conf.{port}.disable_ipv6=1")],
            );
            for conf in ["all", "default", "eth0"] {
                let key = format!("net.ipv6.conf.{conf}.disable_ipv6=1");
                run("ip", &["netns", "exec", &ns, "sysctl", "-qw", &key]);
            }
            run("ip", &["link", "set", &port, "up"]);
            run("ip", &["-n", &ns, "link", "set", "eth0", "up"]);
        }
        let program = repo().join("examples/l2_learning.p4");
        let pipeline = lab.pipeline();
        p4bpf(&[
            "pipeline",
            "load",
            &program.to_string_lossy(),
            "--name",
            &pipeline,
            "--hook",
            "tc",
        ]);
        for n in 1..=3 {
            p4bpf(&[
                "port",
                "add",
                &pipeline,
                &lab.port(n),
                "--port",
                &n.to_string(),
            ]);
        }
        p4bpf(&["mcast", "set", &pipeline, "1", "1", "2", "3"]);
        lab
    }

    /// Starts the controller in a process group of its own, so the
    /// `p4bpf digest` it pipes from ends with it.
    fn start_controller(&mut self) {
        let child = Command::new(repo().join("examples/l2_learning_controller.sh"))
            .arg(self.pipeline())
            .env("P4BPF", env!("CARGO_BIN_EXE_p4bpf"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("controller starts");
        self.controller = Some(child);
    }

    /// Sends one frame from host `from` to host `to`'s address.
    fn send(&self, from: u32, to: u32) {
        let frame = format!("02000000000{to}02000000000{from}88b5{}", "00".repeat(46));
        let script = "import socket,sys\ns=socket.socket(socket.AF_PACKET,socket.SOCK_RAW)\ns.bind(('eth0',0))\ns.send(bytes.fromhex(sys.argv[1]))";
        run(
            "ip",
            &[
                "netns",
                "exec",
                &self.host(from),
                "python3",
                "-c",
                script,
                &frame,
            ],
        );
    }

    /// Frames host `n` has received.
    fn received(&self, n: u32) -> u64 {
        let path = "/sys/class/net/eth0/statistics/rx_packets";
        let text = run("ip", &["netns", "exec", &self.host(n), "cat", path]);
        text.trim().parse().unwrap_or(u64::MAX)
    }

    /// Frames each host received while `f` ran (after the copies settle).
    fn delivered(&self, f: impl FnOnce()) -> [u64; 3] {
        let before = [1, 2, 3].map(|n| self.received(n));
        f();
        std::thread::sleep(Duration::from_millis(300));
        let after = [1, 2, 3].map(|n| self.received(n));
        [0, 1, 2].map(|i| after[i] - before[i])
    }

    /// Waits until the controller put `mac` in `dmac`.
    fn learned(&self, mac: &str) -> bool {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            let dump = p4bpf(&["table", "dump", &self.pipeline(), "SwitchIngress.dmac"]);
            if dump.contains(mac) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        false
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        if let Some(mut child) = self.controller.take() {
            // The group this test started: the script and its `p4bpf digest`.
            let group = format!("-{}", child.id());
            let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
            let _ = child.wait();
        }
        let bin = env!("CARGO_BIN_EXE_p4bpf");
        let _ = Command::new(bin)
            .args(["pipeline", "unload", &self.pipeline()])
            .output();
        for n in 1..=3 {
            let _ = Command::new("ip")
                .args(["link", "del", &self.port(n)])
                .output();
            let _ = Command::new("ip")
                .args(["netns", "del", &self.host(n)])
                .output();
        }
    }
}

fn missing_tools() -> Option<String> {
    if let Some(why) = common::kernel_unavailable() {
        return Some(why);
    }
    for tool in ["ip", "python3", "sysctl"] {
        if Command::new(tool).arg("-V").output().is_err() {
            return Some(format!("`{tool}` is not installed"));
        }
    }
    None
}

#[test]
fn the_controller_learns_from_digests_and_frames_then_reach_only_their_host() {
    if let Some(why) = missing_tools() {
        eprintln!("SKIPPED l2 learning switch: {why}");
        return;
    }
    let mut lab = Lab::build(std::process::id());
    lab.start_controller();
    // Let `p4bpf digest` open the ring before the first frame.
    std::thread::sleep(Duration::from_millis(500));

    // Host 2 unknown: the frame floods to 2 and 3, not back to 1.
    assert_eq!(
        lab.delivered(|| lab.send(1, 2)),
        [0, 1, 1],
        "first frame floods"
    );
    assert!(
        lab.learned("02:00:00:00:00:01"),
        "host 1 learned from its digest"
    );
    let smac = p4bpf(&["table", "dump", &lab.pipeline(), "SwitchIngress.smac"]);
    assert!(smac.contains("02:00:00:00:00:01"), "smac:\n{smac}");

    // Host 1 known: frames to it go to port 1 only.
    assert_eq!(
        lab.delivered(|| lab.send(2, 1)),
        [1, 0, 0],
        "2 -> 1 goes to 1 only"
    );
    assert!(lab.learned("02:00:00:00:00:02"), "host 2 learned");
    assert_eq!(
        lab.delivered(|| lab.send(3, 1)),
        [1, 0, 0],
        "3 -> 1 goes to 1 only"
    );
    assert_eq!(
        lab.delivered(|| lab.send(1, 2)),
        [0, 1, 0],
        "1 -> 2 goes to 2 only"
    );
    let entry = p4bpf(&[
        "table",
        "get",
        &lab.pipeline(),
        "SwitchIngress.dmac",
        "hdr.ethernet.dstAddr=02:00:00:00:00:01",
    ]);
    assert!(
        entry.contains("forward") && entry.contains("port=1"),
        "dmac entry:\n{entry}"
    );
}
