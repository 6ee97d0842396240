//! Signed numbers wherever a register takes a value
//! (tests/p4regint/signed.p4): `p4bpf register set` takes `-5` and `-0x5`
//! for int<W> registers and the int fields of struct registers, refuses a
//! sign for bit<W> and numbers outside int<W>, and `register get` shows
//! ints as signed numbers; a struct register's negative initial value and
//! the values the control plane wrote read right in the data path (a
//! frame copies them into its header through BPF_PROG_TEST_RUN), at XDP
//! and at TC. Registers indexed by a struct or a bit<72> take signed
//! indexes and values too. Skips, saying why, without root/BPF.

#![allow(clippy::panic)] // a failing test should stop loudly

mod common;

use common::{p4bpf, stderr, stdout};
use p4bpf_runtime::deploy::Deployment;
use std::path::PathBuf;
use std::process::Output;

fn program() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/p4regint/signed.p4")
}

/// Unloads the pipeline when the test ends.
struct Loaded(String);

impl Drop for Loaded {
    fn drop(&mut self) {
        let _ = p4bpf(&["pipeline", "unload", &self.0]);
    }
}

fn load(hook: &str) -> Loaded {
    let name = format!("p4regint_{hook}_{}", std::process::id());
    let program = program();
    let p = program.to_string_lossy();
    let out = p4bpf(&["pipeline", "load", &p, "--name", &name, "--hook", hook]);
    assert!(out.status.success(), "{}", stderr(&out));
    Loaded(name)
}

fn register(args: &[&str]) -> Output {
    p4bpf(&[&["register"][..], args].concat())
}

/// `register get` prints exactly `line`.
fn reads(pipeline: &str, name: &str, index: &str, line: &str) {
    let out = register(&["get", pipeline, name, index]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), line);
}

fn sets(pipeline: &str, name: &str, index: &str, value: &str) {
    let out = register(&["set", pipeline, name, index, value]);
    assert!(
        out.status.success(),
        "set {name}[{index}] {value}: {}",
        stderr(&out)
    );
}

/// `register set` fails, saying `error`.
fn refused(pipeline: &str, name: &str, index: &str, value: &str, error: &str) {
    let out = register(&["set", pipeline, name, index, value]);
    assert!(!out.status.success(), "{name}[{index}] = {value} was taken");
    assert!(stderr(&out).contains(error), "{}", stderr(&out));
}

/// Runs an h_t frame of `op`, `idx` and `a`, the rest zero, through the
/// loaded program; the frame it leaves with.
fn send(pipeline: &str, op: u8, idx: u8, a: i8) -> Vec<u8> {
    run_frame(pipeline, &[op, idx, a as u8])
}

/// Runs `frame`, zero-padded to 16 bytes (the kernel runs no frame
/// shorter than 14), through BPF_PROG_TEST_RUN; the frame it leaves with.
fn run_frame(pipeline: &str, frame: &[u8]) -> Vec<u8> {
    let mut frame = frame.to_vec();
    frame.resize(16, 0);
    let deployment = Deployment::open(pipeline).unwrap_or_else(|e| panic!("{e}"));
    let program = deployment.program().unwrap_or_else(|e| panic!("{e}"));
    let fd = std::os::fd::AsRawFd::as_raw_fd(&program);
    let run = p4bpf_runtime::test_run::run(fd, &frame, 1).unwrap_or_else(|e| panic!("{e}"));
    run.packet
}

/// The frame's a, b, c and d as numbers (c is an int<40>).
fn fields(frame: &[u8]) -> (i8, i16, i64, u8) {
    let byte = |i: usize| frame.get(i).copied().unwrap_or(0);
    let c = (5..10).fold(0i64, |acc, i| acc << 8 | i64::from(byte(i)));
    let c = (c << 24) >> 24; // sign-extend the 40 bits
    (
        byte(2) as i8,
        i16::from_be_bytes([byte(3), byte(4)]),
        c,
        byte(10),
    )
}

#[test]
fn signed_register_values_round_trip_and_reach_the_data_path_at_xdp() {
    signed_register_values("xdp");
}

#[test]
fn signed_register_values_round_trip_and_reach_the_data_path_at_tc() {
    signed_register_values("tc");
}

fn signed_register_values(hook: &str) {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED p4regint: {why}");
        return;
    }
    let loaded = load(hook);
    let p = loaded.0.as_str();
    // The negative initial value, through the control plane and a packet.
    reads(
        p,
        "In.seeded",
        "1",
        "register In.seeded[1] = {a=-3, b=-300, c=-5, d=0x7}",
    );
    assert_eq!(fields(&send(p, 2, 1, 0)), (-3, -300, -5, 7));
    // Boundaries of each int field, read back and by a packet.
    sets(p, "In.cells", "1", "-128,-32768,-4294967296,0xff");
    reads(
        p,
        "In.cells",
        "1",
        "register In.cells[1] = {a=-128, b=-32768, c=-4294967296, d=0xff}",
    );
    assert_eq!(fields(&send(p, 1, 1, 0)), (-128, -32768, -4294967296, 0xff));
    sets(p, "In.cells", "2", "127,32767,4294967295,0");
    assert_eq!(fields(&send(p, 1, 2, 0)), (127, 32767, 4294967295, 0));
    sets(p, "In.cells", "3", "-0x1,-0x5,-1,1");
    reads(
        p,
        "In.cells",
        "3",
        "register In.cells[3] = {a=-1, b=-5, c=-1, d=0x1}",
    );
    assert_eq!(fields(&send(p, 1, 3, 0)), (-1, -5, -1, 1));
    // What a packet wrote reads back signed.
    // op 3, idx 0: a -2, b -100, c -10 (int<40>), d 0x42.
    let write = [
        3, 0, 0xfe, 0xff, 0x9c, 0xff, 0xff, 0xff, 0xff, 0xf6, 0x42, 0, 0,
    ];
    let _ = run_frame(p, &write);
    reads(
        p,
        "In.cells",
        "0",
        "register In.cells[0] = {a=-2, b=-100, c=-10, d=0x42}",
    );
    // Plain int registers.
    sets(p, "In.small", "0", "-5");
    reads(p, "In.small", "0", "register In.small[0] = -5");
    sets(p, "In.big", "0", "-0x100000000");
    reads(p, "In.big", "0", "register In.big[0] = -4294967296");
    let (a, _, c, _) = fields(&send(p, 4, 0, 0));
    assert_eq!((a, c), (-5, -4294967296));
    // Struct- and wide-indexed registers.
    sets(p, "In.by_key", "3,-2", "-7");
    reads(p, "In.by_key", "3,-2", "register In.by_key[3,-2] = -7");
    sets(p, "In.by_wide", "3", "9");
    let (_, b, _, d) = fields(&send(p, 5, 3, -2));
    assert_eq!((b, d), (-7, 9));
    refusals(p);
}

fn refusals(p: &str) {
    let outside = "register `In.small`: `128` is outside int<8> (-128..=127)";
    refused(p, "In.small", "0", "128", outside);
    let below = "register `In.small`: `-129` is outside int<8> (-128..=127)";
    refused(p, "In.small", "0", "-129", below);
    let field = "register `In.cells`, value field `a`: `-129` is outside int<8> (-128..=127)";
    refused(p, "In.cells", "0", "-129,0,0,0", field);
    let wide = "register `In.cells`, value field `c`: `4294967296` is outside int<33>";
    refused(p, "In.cells", "0", "0,0,4294967296,0", wide);
    let unsigned =
        "register `In.cells`, value field `d`: `-1` is negative, and bit<8> holds no sign";
    refused(p, "In.cells", "0", "0,0,0,-1", unsigned);
    let bits =
        "register `In.by_wide`, value field `value`: `-9` is negative, and bit<8> holds no sign";
    refused(p, "In.by_wide", "1", "-9", bits);
    let index =
        "register `In.by_wide`, index field `index`: `-1` is negative, and bit<72> holds no sign";
    refused(p, "In.by_wide", "-1", "9", index);
    // Nothing refused was written.
    reads(p, "In.small", "0", "register In.small[0] = -5");
}

/// `stem`.stf passes with `stem`.p4 (tests/p4regint/) at XDP and TC.
fn script_passes(stem: &str, packets: usize) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/p4regint");
    let (p, s) = (
        dir.join(format!("{stem}.p4")),
        dir.join(format!("{stem}.stf")),
    );
    let (p, s) = (p.to_string_lossy(), s.to_string_lossy());
    for hook in ["xdp", "tc"] {
        let out = p4bpf(&["test", &p, &s, "--target", "kernel", "--hook", hook]);
        let text = stdout(&out) + &stderr(&out);
        let pass = format!("PASS: {packets} packets, 0 failure(s)");
        assert!(text.contains(&pass), "{stem} {hook}:\n{text}");
    }
}

/// tests/p4regint/signed.stf: a table's int<8> and int<12> keys and
/// int<16> and int<12> parameters given as negative numbers (and as BMv2's
/// bits) match and reach the packet, at XDP and at TC.
#[test]
fn negative_table_keys_and_parameters_reach_the_packet() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED p4regint stf: {why}");
        return;
    }
    script_passes("signed", 3);
}

/// tests/p4regint/const_entries.stf: the program's own negative int
/// literals, in const entries (int<8> and int<12> keys) and in a parser's
/// select on an int<8>, match the packet's values, at XDP and at TC.
#[test]
fn negative_literals_in_const_entries_and_selects_match() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED p4regint const entries: {why}");
        return;
    }
    script_passes("const_entries", 3);
}

/// tests/p4regint/ranges.stf: an int<8> range across zero and at the
/// ends of int<8>, in signed order (as bits, -5..5 would be refused as
/// backwards), next to a ternary int<12>, at XDP and at TC.
#[test]
fn int_ranges_hold_the_numbers_between_their_bounds() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED p4regint ranges: {why}");
        return;
    }
    script_passes("ranges", 7);
}

/// `p4bpf table add` takes negative int keys and parameters, `table dump`
/// shows them signed, and one outside the field's range is refused naming
/// the table, field and value.
#[test]
fn table_add_takes_negatives_in_range() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED p4regint table add: {why}");
        return;
    }
    let loaded = load("tc");
    let add = |a: &str, w: &str| {
        let (a, w) = (format!("hdr.h.a={a}"), format!("w={w}"));
        let table = ["table", "add", &loaded.0, "In.signs", &a, "hdr.h.e=-1"];
        p4bpf(&[&table[..], &["In.set_b", "v=-1", &w]].concat())
    };
    let fine = add("-128", "-2048");
    assert!(fine.status.success(), "{}", stderr(&fine));
    let dump = p4bpf(&["table", "dump", &loaded.0, "In.signs"]);
    let shown = "hdr.h.a=-128 hdr.h.e=-1\tIn.set_b\tv=-1 w=-2048";
    assert_eq!(stdout(&dump).trim(), shown);
    let low = stderr(&add("-129", "0"));
    assert!(low.contains("In.signs") && low.contains("hdr.h.a"), "{low}");
    assert!(
        low.contains("`-129` is outside int<8> (-128..=127)"),
        "{low}"
    );
    let param = stderr(&add("1", "-2049"));
    assert!(
        param.contains("`-2049` is outside int<12> (-2048..=2047)"),
        "{param}"
    );
}

/// tests/p4regint/shapes.p4's frame after running `start`: x, y and z.
fn shapes_frame(pipeline: &str, start: &[u8]) -> (i16, i16, i64) {
    let out = run_frame(pipeline, start);
    let bytes = |at: usize, n: usize| out.get(at..at + n).map(<[u8]>::to_vec);
    let word = |at: usize| bytes(at, 2).and_then(|b| <[u8; 2]>::try_from(b).ok());
    let z = bytes(6, 8).and_then(|b| <[u8; 8]>::try_from(b).ok());
    (
        i16::from_be_bytes(word(2).unwrap_or_default()),
        i16::from_be_bytes(word(4).unwrap_or_default()),
        i64::from_be_bytes(z.unwrap_or_default()),
    )
}

/// Other shapes (tests/p4regint/shapes.p4): an int<12> register with a
/// negative initial value, a nested struct's int<4>, int<64>s at their
/// lowest; through the CLI and the data path, both ways, at XDP and TC.
#[test]
fn nested_narrow_and_64_bit_ints_round_trip() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED p4regint shapes: {why}");
        return;
    }
    for hook in ["xdp", "tc"] {
        let name = format!("p4regint_shapes_{hook}_{}", std::process::id());
        let program = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/p4regint/shapes.p4");
        let p = program.to_string_lossy();
        let out = p4bpf(&["pipeline", "load", &p, "--name", &name, "--hook", hook]);
        assert!(out.status.success(), "{}", stderr(&out));
        let loaded = Loaded(name);
        shapes(&loaded.0);
    }
}

fn shapes(p: &str) {
    reads(p, "In.twelve", "0", "register In.twelve[0] = -2");
    reads(
        p,
        "In.evs",
        "0",
        "register In.evs[0] = {t=-7, inner.n=-8, inner.m=0x3, z=-9}",
    );
    assert_eq!(shapes_frame(p, &[1, 0]).0, -2);
    assert_eq!(shapes_frame(p, &[2, 0]), (-7, -8, -9));
    sets(p, "In.twelve", "1", "-2048");
    assert_eq!(shapes_frame(p, &[1, 1]).0, -2048);
    sets(p, "In.evs", "1", "2047,-1,0xf,-9223372036854775808");
    assert_eq!(shapes_frame(p, &[2, 1]), (2047, -1, i64::MIN));
    sets(p, "In.sixty4", "0", "-0x8000000000000000");
    assert_eq!(shapes_frame(p, &[3, 0]).2, i64::MIN);
    reads(
        p,
        "In.sixty4",
        "0",
        "register In.sixty4[0] = -9223372036854775808",
    );
    // op 4 writes x -300, y -3, z -2 into twelve[1] and evs[1].
    let z = (-2i64).to_be_bytes();
    let frame = [&[4, 1, 0xfe, 0xd4, 0xff, 0xfd][..], &z[..]].concat();
    run_frame(p, &frame);
    reads(p, "In.twelve", "1", "register In.twelve[1] = -300");
    reads(
        p,
        "In.evs",
        "1",
        "register In.evs[1] = {t=-300, inner.n=-3, inner.m=0x0, z=-2}",
    );
    let nested = "register `In.evs`, value field `inner.n`: `-9` is outside int<4> (-8..=7)";
    refused(p, "In.evs", "1", "0,-9,0,0", nested);
    let twelve = "register `In.twelve`: `2048` is outside int<12> (-2048..=2047)";
    refused(p, "In.twelve", "1", "2048", twelve);
}
