//! The control-plane commands end to end against the kernel: `pipeline
//! load/show/unload`, `table` and `counter` by P4 name over bpffs pins, BTF
//! names in `bpftool map dump`, two writers at once, and every bad-input
//! path of the issue (each a one-line error, exit status 1, nothing
//! written). Pipeline names carry the process id; every test unloads what
//! it loaded, also when an assertion fails. Skips, saying why, without
//! root/BPF or clang.

mod common;

use common::{p4bpf, stderr, stdout};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn unavailable() -> Option<String> {
    if let Err(why) = p4bpf_runtime::check_bpf_available() {
        return Some(why.to_string());
    }
    let clang = Command::new("clang").arg("--version").output();
    clang.err().map(|_| "clang is not installed".to_string())
}

fn program() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/control/tables.p4")
}

/// A loaded pipeline, unloaded when dropped.
struct Loaded(String);

impl Loaded {
    fn new(test: &str) -> Loaded {
        let name = format!("{test}{}", std::process::id());
        let program = program();
        let out = p4bpf(&[
            "pipeline",
            "load",
            program.to_str().unwrap_or(""),
            "--name",
            &name,
        ]);
        assert!(out.status.success(), "load: {}", stderr(&out));
        Loaded(name)
    }
}

impl Drop for Loaded {
    fn drop(&mut self) {
        let _ = p4bpf(&["pipeline", "unload", &self.0]);
    }
}

/// A failed command: exit status 1 and one line naming `what`.
fn assert_fails(out: &Output, what: &str) {
    let text = stderr(out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert_eq!(text.lines().count(), 1, "not one line: {text}");
    assert!(text.contains(what), "`{what}` not in: {text}");
}

fn run(words: &[&str]) -> Output {
    p4bpf(words)
}

fn dump(name: &str, table: &str) -> String {
    stdout(&run(&["table", "dump", name, table]))
}

#[test]
fn tables_by_p4_name_round_trip() {
    if let Some(why) = unavailable() {
        eprintln!("skipped: {why}");
        return;
    }
    let loaded = Loaded::new("ctlrt");
    let n = loaded.0.as_str();
    let add = run(&[
        "table",
        "add",
        n,
        "by_dst",
        "dstAddr=00:00:00:00:00:01",
        "forward",
        "port=7",
    ]);
    assert!(add.status.success(), "{}", stderr(&add));
    let lpm = [
        "table",
        "add",
        n,
        "by_prefix",
        "srcAddr=02:00:00:00:00:00/8",
        "drop",
    ];
    assert!(run(&lpm).status.success());
    let ternary = "srcAddr=02:00:00:00:00:00&&&ff:00:00:00:00:00";
    let added = run(&[
        "table",
        "add",
        n,
        "by_src",
        ternary,
        "forward",
        "port=3",
        "--priority",
        "5",
    ]);
    assert!(added.status.success(), "{}", stderr(&added));
    assert_eq!(
        dump(n, "by_dst"),
        "hdr.ethernet.dstAddr=00:00:00:00:00:01\tTestIngress.forward\tport=7\n"
    );
    assert!(dump(n, "by_prefix").contains("srcAddr=02:00:00:00:00:00/8\tTestIngress.drop"));
    assert!(dump(n, "by_src").contains(&format!(
        "{ternary}\tTestIngress.forward\tport=3\tpriority=5"
    )));

    let modify = run(&[
        "table",
        "modify",
        n,
        "by_dst",
        "dstAddr=00:00:00:00:00:01",
        "forward",
        "port=9",
    ]);
    assert!(modify.status.success(), "{}", stderr(&modify));
    let got = run(&[
        "table",
        "get",
        n,
        "by_dst",
        "key.field0=00:00:00:00:00:01",
        "--json",
    ]);
    assert!(
        stdout(&got).contains("\"params\": {\"port\": \"9\"}"),
        "{}",
        stdout(&got)
    );
    assert!(run(&["table", "default", n, "by_dst", "forward", "port=1"])
        .status
        .success());

    let show = stdout(&run(&["pipeline", "show", n]));
    assert!(
        show.contains("table\tTestIngress.by_dst\t1/131072 entries"),
        "{show}"
    );
    assert!(show.contains("counter\tTestIngress.seen"), "{show}");
    assert_eq!(
        stdout(&run(&["counter", "get", n, "seen", "1"])),
        "1\tpackets=0\n"
    );
    assert!(run(&["counter", "reset", n, "seen"]).status.success());

    assert!(run(&["table", "del", n, "by_src", ternary])
        .status
        .success());
    assert_eq!(dump(n, "by_src"), "");
    assert_eq!(
        stdout(&run(&["table", "clear", n, "by_dst"])),
        "removed 1 entries\n"
    );

    // BTF: bpftool prints the P4 field names of the pinned maps.
    let pin = format!("/sys/fs/bpf/p4bpf/{n}/maps/TestIngress_by_prefix");
    match Command::new("bpftool")
        .args(["map", "dump", "pinned", &pin])
        .output()
    {
        Ok(out) => {
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(
                text.contains("srcAddr\"") && text.contains("\"port\""),
                "{text}"
            );
        }
        Err(_) => eprintln!("bpftool is not installed: BTF check skipped"),
    }
    let folder = format!("/sys/fs/bpf/p4bpf/{n}");
    drop(loaded);
    assert!(!Path::new(&folder).exists());
}

#[test]
fn bad_input_is_one_line_and_writes_nothing() {
    if let Some(why) = unavailable() {
        eprintln!("skipped: {why}");
        return;
    }
    let loaded = Loaded::new("ctlbad");
    let n = loaded.0.as_str();
    let ghost = format!("nosuch{}", std::process::id());
    let fwd = ["forward", "port=1"];
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["table", "add", &ghost, "by_dst", "dstAddr=1"],
            "unknown pipeline",
        ),
        (
            vec!["table", "add", n, "nosuch", "dstAddr=1"],
            "unknown table `nosuch`",
        ),
        (
            vec!["table", "add", n, "by_dst", "nosuch=1", fwd[0], fwd[1]],
            "unknown key field",
        ),
        (
            vec!["table", "add", n, "by_dst", "dstAddr=1", "nosuch"],
            "unknown action",
        ),
        (
            vec![
                "table",
                "add",
                n,
                "by_dst",
                "dstAddr=1",
                "forward",
                "nosuch=1",
            ],
            "unknown parameter",
        ),
        (
            vec!["table", "add", n, "by_dst", "dstAddr=1", "forward"],
            "`port`: is missing",
        ),
        (
            vec![
                "table",
                "add",
                n,
                "by_type",
                "etherType=0x10000",
                fwd[0],
                fwd[1],
            ],
            "does not fit in bit<16>",
        ),
        (
            vec![
                "table",
                "add",
                n,
                "by_dst",
                "dstAddr=1",
                "forward",
                "port=0x100000000",
            ],
            "does not fit in bit<32>",
        ),
        (
            vec!["table", "add", n, "by_prefix", "srcAddr=2", "drop"],
            "needs a prefix length",
        ),
        (
            vec!["table", "add", n, "by_prefix", "srcAddr=2/49", "drop"],
            "bad prefix length",
        ),
        (
            vec!["table", "add", n, "by_src", "srcAddr=2", "drop"],
            "needs a mask",
        ),
        (
            vec!["table", "del", n, "by_dst", "dstAddr=5"],
            "has no entry with this key",
        ),
        (
            vec!["port", "add", n, "nosuch-if0"],
            "interface `nosuch-if0` does not exist",
        ),
        (
            vec!["counter", "get", n, "seen", "16"],
            "index 16 is out of range",
        ),
        (
            vec![
                "pipeline",
                "load",
                "tests/control/tables.p4",
                "--name",
                "bad.name",
            ],
            "bad pipeline name",
        ),
    ];
    for (words, what) in &cases {
        assert_fails(&run(words), what);
    }
    // A file that is no BPF object: refused, and no folder is left behind.
    let junk = format!("junk{}", std::process::id());
    let load = run(&["pipeline", "load", "Cargo.toml", "--name", &junk]);
    assert_fails(&load, "bad pipeline object");
    assert!(!Path::new(&format!("/sys/fs/bpf/p4bpf/{junk}")).exists());
    for table in ["by_dst", "by_type", "by_src", "by_prefix"] {
        assert_eq!(dump(n, table), "", "{table} was written");
    }
    // A full table: the third entry of a 2-entry table is refused.
    for ether_type in ["1", "2"] {
        let key = format!("etherType={ether_type}");
        assert!(run(&["table", "add", n, "by_type", &key, "drop"])
            .status
            .success());
    }
    assert_fails(
        &run(&["table", "add", n, "by_type", "etherType=3", "drop"]),
        "is full",
    );
    assert_fails(
        &run(&["table", "add", n, "by_type", "etherType=1", "drop"]),
        "already has an entry",
    );
    assert_eq!(dump(n, "by_type").lines().count(), 2);
}

#[test]
fn concurrent_writers_both_succeed_or_fail_cleanly() {
    if let Some(why) = unavailable() {
        eprintln!("skipped: {why}");
        return;
    }
    let loaded = Loaded::new("ctlpar");
    let n = loaded.0.as_str();
    let spawn = |table: &str, key: String| {
        Command::new(env!("CARGO_BIN_EXE_p4bpf"))
            .args(["table", "add", n, table, &key, "forward", "port=1"])
            .output()
    };
    for round in 0..8 {
        let ternary = |v: u32| format!("srcAddr=0x{v}00&&&0xff{round:02x}");
        let (a, b) = std::thread::scope(|s| {
            let a = s.spawn(|| spawn("by_src", ternary(1)));
            let b = s.spawn(|| spawn("by_src", ternary(2)));
            (a.join(), b.join())
        });
        for out in [a, b] {
            let out = out.ok().and_then(Result::ok);
            assert!(out.is_some_and(|o| o.status.success()));
        }
        // The same key twice: exactly one wins, the other says why.
        let key = format!("dstAddr={round}");
        let (a, b) = std::thread::scope(|s| {
            let a = s.spawn(|| spawn("by_dst", key.clone()));
            let b = s.spawn(|| spawn("by_dst", key.clone()));
            (a.join(), b.join())
        });
        let outs: Vec<Output> = [a, b].into_iter().filter_map(|o| o.ok()?.ok()).collect();
        assert_eq!(outs.iter().filter(|o| o.status.success()).count(), 1);
        let loser = outs.iter().find(|o| !o.status.success());
        assert!(loser.is_some_and(|o| stderr(o).contains("already has an entry")));
    }
    assert_eq!(dump(n, "by_src").lines().count(), 16);
    assert_eq!(dump(n, "by_dst").lines().count(), 8);
}
