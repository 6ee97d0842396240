//! `p4bpf table load`: entries for several tables from a file and from
//! stdin, comments and blank lines skipped; a bad line, a duplicate (in the
//! table or in the file) or a full table loads nothing, and the error names
//! FILE:LINE. Skips, saying why, without root/BPF or clang.

mod common;

use common::{p4bpf, scratch_dir, stderr, stdout};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// A loaded pipeline, unloaded when dropped.
struct Loaded(String);

impl Drop for Loaded {
    fn drop(&mut self) {
        let _ = p4bpf(&["pipeline", "unload", &self.0]);
    }
}

/// The test program, loaded under a name unique to this process and `tag`.
fn load_pipeline(tag: &str) -> Result<Loaded, String> {
    p4bpf_runtime::check_bpf_available().map_err(|e| e.to_string())?;
    let name = format!("tload{tag}{}", std::process::id());
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/control/tables.p4");
    let out = p4bpf(&[
        "pipeline",
        "load",
        &program.to_string_lossy(),
        "--name",
        &name,
    ]);
    if !out.status.success() {
        return Err(format!(
            "the test program does not load here: {}",
            stderr(&out)
        ));
    }
    Ok(Loaded(name))
}

fn load_stdin(pipeline: &str, text: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_p4bpf"))
        .args(["table", "load", pipeline, "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("p4bpf runs");
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(text.as_bytes())
            .expect("stdin takes the entries");
    }
    child.wait_with_output().expect("p4bpf ends")
}

fn count(pipeline: &str, table: &str) -> usize {
    stdout(&p4bpf(&["table", "dump", pipeline, table]))
        .lines()
        .count()
}

fn counts(pipeline: &str) -> [usize; 4] {
    ["by_dst", "by_type", "by_src", "by_prefix"].map(|t| count(pipeline, t))
}

const GOOD: &str = "\
# one entry for each table; comments and blank lines are skipped

by_dst hdr.ethernet.dstAddr=02:00:00:00:00:01 forward port=1   # exact
by_type etherType=0x0800 drop
by_src srcAddr=02:00:00:00:00:00&&&ff:ff:ff:00:00:00 forward port=2 --priority 7
by_prefix srcAddr=02:00:00:00:00:00/24 forward port=3
by_dst dstAddr=02:00:00:00:00:02 forward port=4
";

#[test]
fn loads_every_table_or_nothing() {
    let loaded = match load_pipeline("") {
        Ok(loaded) => loaded,
        Err(why) => {
            eprintln!("skipped: {why}");
            return;
        }
    };
    let name = loaded.0.as_str();
    let folder = scratch_dir("table_load");
    let file = folder.join("entries.txt");
    std::fs::write(&file, GOOD).expect("entries file");
    let out = p4bpf(&["table", "load", name, &file.to_string_lossy()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "loaded 5 entries into 4 tables\n");
    assert_eq!(counts(name), [2, 1, 1, 1]);
    let rule = stdout(&p4bpf(&["table", "dump", name, "by_src"]));
    assert!(
        rule.contains("priority=7") && rule.contains("port=2"),
        "{rule}"
    );

    // Each of these fails on its second line and loads nothing.
    let cases = [
        ("by_type etherType=0x86dd drop\nby_dst dstAddr=02:00:00:00:00:01 drop\n", "already has an entry"),
        ("by_dst dstAddr=02:00:00:00:00:0c drop\nby_dst dstAddr=02:00:00:00:00:0c drop\n", "twice in the batch"),
        ("by_type etherType=0x86dd drop\nby_prefix srcAddr=02:00:00:00:00:00/49 drop\n", "prefix length"),
        ("by_type etherType=0x86dd drop\nby_dst dstAddr=02:00:00:00:00:09 forward port=0x1ffffffff\n", "does not fit"),
        ("by_type etherType=0x86dd drop\nno_such_table x=1 drop\n", "no_such_table"),
        ("by_dst dstAddr=02:00:00:00:00:0a drop\nby_type etherType=0x86dd drop --priority x\n", "--priority"),
        // Lines of one shape after the first take a shortcut past name
        // resolution: their values are still checked.
        (
            "by_dst dstAddr=02:00:00:00:00:0d forward port=1\nby_dst dstAddr=02:00:00:00:00:0e forward port=0x1ffffffff\n",
            "does not fit",
        ),
        (
            "by_prefix srcAddr=04:00:00:00:00:00/24 drop\nby_prefix srcAddr=05:00:00:00:00:00 drop\n",
            "prefix length",
        ),
        (
            "by_src srcAddr=06:00:00:00:00:00&&&ff:00:00:00:00:00 drop --priority=3\nby_src srcAddr=07:00:00:00:00:00&&&ff:00:00:00:00:00 drop --priority=x\n",
            "--priority",
        ),
        // by_type holds 2: one is in, two more do not fit.
        ("by_dst dstAddr=02:00:00:00:00:0b drop\nby_type etherType=1 drop\nby_type etherType=2 drop\n", "full"),
    ];
    for (text, why) in cases {
        let out = load_stdin(name, text);
        let message = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{text}: {message}");
        assert!(message.contains(why), "`{why}` not in: {message}");
        if why != "full" {
            assert!(message.starts_with("p4bpf: error: -:2: "), "{message}");
        }
        assert_eq!(counts(name), [2, 1, 1, 1], "half-loaded: {text}");
    }

    let more = load_stdin(
        name,
        "by_type etherType=0x86dd drop\n\n# done\nby_dst dstAddr=02:00:00:00:00:21 forward port=21\nby_dst dstAddr=02:00:00:00:00:22 forward port=22\n",
    );
    assert!(more.status.success(), "{}", stderr(&more));
    assert_eq!(counts(name), [4, 2, 1, 1]);
    let hosts = stdout(&p4bpf(&["table", "dump", name, "by_dst"]));
    for (mac, port) in [("02:00:00:00:00:21", 21), ("02:00:00:00:00:22", 22)] {
        let line = format!("hdr.ethernet.dstAddr={mac}\tTestIngress.forward\tport={port}");
        assert!(hosts.contains(&line), "{line} not in {hosts}");
    }
}

/// `by_dst` entry line for host `n`.
fn host(n: usize) -> String {
    format!(
        "by_dst dstAddr=02:00:00:{:02x}:{:02x}:{:02x} forward port={}",
        n >> 16 & 255,
        n >> 8 & 255,
        n & 255,
        n % 64
    )
}

/// A file of `lines` lines, long enough to be parsed as two halves on two
/// threads: hosts, with `by_prefix` entries only early and `by_type` only
/// late, each line replaced where `edit` says so.
fn long_file(lines: usize, end: &str, edit: impl Fn(usize) -> Option<String>) -> String {
    (1..=lines)
        .map(|number| {
            let line = match number {
                5 => "by_prefix srcAddr=0a:00:00:00:00:00/8 drop".to_string(),
                n if n == lines - 3 => "by_type etherType=0x0801 drop".to_string(),
                n => host(n),
            };
            edit(number).unwrap_or(line) + end
        })
        .collect()
}

/// A file long enough to be parsed on two threads: tables met in either
/// half load together, and an error names the file's first bad line by
/// its number in the whole file (line endings `\n` or `\r\n`), loading
/// nothing.
#[test]
fn a_long_file_loads_whole_and_names_its_first_bad_line() {
    let loaded = match load_pipeline("long") {
        Ok(loaded) => loaded,
        Err(why) => {
            eprintln!("skipped: {why}");
            return;
        }
    };
    let name = loaded.0.as_str();
    const LINES: usize = 4000;
    let bad_port = |at: usize| move |n: usize| (n == at).then(|| host(n) + "ffffffffff");
    let cases: [(String, &str); 5] = [
        (long_file(LINES, "\n", bad_port(3900)), "-:3900: "),
        (long_file(LINES, "\r\n", bad_port(3333)), "-:3333: "),
        (
            long_file(LINES, "\n", |n| {
                (n == 120 || n == 3900).then(|| host(n) + "ffffffffff")
            }),
            "-:120: ",
        ),
        // The same host early and late: the later line is refused.
        (
            long_file(LINES, "\n", |n| (n == 3800).then(|| host(10))),
            "-:3800: ",
        ),
        (
            long_file(LINES, "\n", |n| {
                (n == 3000).then(|| "no_such_table a=1 drop".into())
            }),
            "-:3000: ",
        ),
    ];
    for (text, at) in &cases {
        assert!(text.len() > 128 * 1024, "{} bytes", text.len());
        let out = load_stdin(name, text);
        let message = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{message}");
        assert!(
            message.starts_with(&format!("p4bpf: error: {at}")),
            "{message}"
        );
        assert_eq!(counts(name), [0, 0, 0, 0], "half-loaded: {message}");
    }

    let out = load_stdin(name, &long_file(LINES, "\n", |_| None));
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!("loaded {LINES} entries into 3 tables\n")
    );
    assert_eq!(counts(name), [LINES - 2, 1, 0, 1]);
    let hosts = stdout(&p4bpf(&["table", "dump", name, "by_dst"]));
    for n in [1, 1999, 2000, 2001, LINES] {
        let line = format!(
            "hdr.ethernet.dstAddr=02:00:00:{:02x}:{:02x}:{:02x}\tTestIngress.forward\tport={}",
            n >> 16 & 255,
            n >> 8 & 255,
            n & 255,
            n % 64
        );
        assert!(hosts.contains(&line), "{line} not in the dump");
    }
}
