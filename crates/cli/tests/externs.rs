//! The externs v1model, PSA and PNA share, end to end: each program of
//! tests/externs runs its STF on the kernel target at XDP and TC and on
//! the user target; variants of them check each refusal names the extern,
//! the method and the place. Skips, saying why, without root/BPF or clang.

mod common;

use std::path::{Path, PathBuf};

const TARGETS: [&[&str]; 3] = [
    &["--target", "kernel", "--hook", "xdp"],
    &["--target", "kernel", "--hook", "tc"],
    &["--target", "user"],
];

fn own(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/externs")
        .join(name)
}

/// `p4bpf test program script` at `target` (with `defines`): whether it
/// passed, and its output.
fn run_stf(program: &Path, script: &Path, target: &[&str], defines: &[&str]) -> (bool, String) {
    let (p, s) = (program.to_string_lossy(), script.to_string_lossy());
    // Written for the reference harness, P4TC programs' too.
    let mut args = vec!["test", p.as_ref(), s.as_ref(), "--stf-reading", "reference"];
    args.extend_from_slice(target);
    args.extend_from_slice(defines);
    let out = common::p4bpf(&args);
    let text = format!("{}{}", common::stdout(&out), common::stderr(&out));
    (out.status.success(), text)
}

/// Runs `stem.stf` against `stem.p4` on every target and asserts each
/// passes, with every line of `seen` in its output.
fn passes_everywhere(stem: &str, seen: &[&str]) {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED {stem}: {why}");
        return;
    }
    let (program, script) = (own(&format!("{stem}.p4")), own(&format!("{stem}.stf")));
    for target in TARGETS {
        let (ok, text) = run_stf(&program, &script, target, &[]);
        let target = target.join(" ");
        assert!(ok, "{stem} at {target}:\n{text}");
        for line in seen {
            assert!(
                text.contains(line),
                "{stem} at {target}: no `{line}`:\n{text}"
            );
        }
    }
}

/// Compiles `stem.p4` with `from` replaced by `to` and asserts it is
/// refused with `says`, at a place in the variant.
fn refused(stem: &str, from: &str, to: &str, says: &str) {
    let source = std::fs::read_to_string(own(&format!("{stem}.p4"))).expect("program");
    assert!(source.contains(from), "`{from}` not in {stem}.p4");
    let dir = common::scratch_dir(&format!("externs_{stem}_refused"));
    let program = common::write(&dir, "variant.p4", &source.replacen(from, to, 1));
    let out_dir = dir.join("out");
    let out = common::p4bpf(&[
        "compile",
        &program.to_string_lossy(),
        "-o",
        &out_dir.to_string_lossy(),
    ]);
    let err = common::stderr(&out);
    assert!(!out.status.success(), "{stem} variant compiled: {to}");
    assert!(err.contains(says), "{stem}: {err}");
    assert!(err.contains("variant.p4:"), "{stem}: no place in {err}");
}

#[test]
fn psa_internet_checksum_verifies_updates_incrementally_and_recomputes() {
    passes_everywhere(
        "psa_internet_checksum",
        &["PASS: 15 packets", "drop: ok (dropped)"],
    );
}

#[test]
fn pna_internet_checksum_carries_state_between_instances() {
    passes_everywhere("pna_internet_checksum", &["PASS: 8 packets"]);
}

#[test]
fn psa_counters_count_packets_bytes_at_ingress_and_both() {
    passes_everywhere("psa_counters", &["PASS: 5 packets"]);
}

#[test]
fn pna_hashes_random_draws_and_byte_counter() {
    passes_everywhere("pna_hash_random", &["PASS: 16 packets"]);
}

#[test]
fn random_ranges_the_target_cannot_draw_are_refused() {
    refused(
        "pna_hash_random",
        "Random<bit<8>>(10, 12) drawn;",
        "Random<bit<8>>(12, 10) drawn;",
        "`Random(12, 10)`: the range must hold 1 to 2^32 values",
    );
}

#[test]
fn psa_meters_colour_blind_aware_and_by_bytes_as_rfc_2698() {
    passes_everywhere("psa_meters", &["PASS: 7 packets"]);
}

#[test]
fn v1model_meter_and_counter_of_packets_and_bytes() {
    passes_everywhere("v1model_meters", &["PASS: 4 packets"]);
}

#[test]
fn meter_set_configures_a_loaded_pipeline_and_names_bad_values() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED meter_set: {why}");
        return;
    }
    let dir = common::scratch_dir("externs_meter_set");
    let program = own("psa_meters.p4");
    let out = common::p4bpf(&[
        "compile",
        &program.to_string_lossy(),
        "-o",
        &dir.to_string_lossy(),
    ]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let object = dir.join("psa_meters.o");
    let name = format!("externs_meter{}", std::process::id());
    let load = common::p4bpf(&[
        "pipeline",
        "load",
        &object.to_string_lossy(),
        "--name",
        &name,
        "--hook",
        "xdp",
    ]);
    assert!(load.status.success(), "{}", common::stderr(&load));
    let set = |args: &[&str]| {
        let mut all = vec!["meter", "set", name.as_str()];
        all.extend_from_slice(args);
        common::p4bpf(&all)
    };
    let ok = set(&["In.bytes", "3", "1000", "1500", "500", "1500"]);
    let slow_peak = set(&["In.bytes", "3", "10", "1500", "500", "1500"]);
    let out_of_range = set(&["In.bytes", "4", "1000", "1500", "500", "1500"]);
    let unknown = set(&["In.nothing", "0", "1", "1", "1", "1"]);
    common::p4bpf(&["pipeline", "unload", &name]);
    assert!(ok.status.success(), "{}", common::stderr(&ok));
    for (out, says) in [
        (slow_peak, "PIR >= CIR"),
        (out_of_range, "index 4 is out of range"),
        (unknown, "In.nothing"),
    ] {
        assert!(!out.status.success());
        assert!(
            common::stderr(&out).contains(says),
            "{}",
            common::stderr(&out)
        );
    }
}

#[test]
fn psa_registers_start_and_reset_to_their_initial_values() {
    passes_everywhere(
        "psa_register_initial",
        &[
            "PASS: 9 packets",
            "register In.small[0] = 4369",
            "register In.small[3] = 48879",
            "register In.wide[1] = 0",
            "register In.wide[2] = 81985529216486895",
            "stf:33: register In.small[0] = 48879",
            "stf:34: register In.wide[0] = 81985529216486895",
        ],
    );
}

#[test]
fn pna_registers_count_up_from_their_initial_value_and_reset_to_it() {
    passes_everywhere(
        "pna_register_initial",
        &[
            "PASS: 8 packets",
            "register MainControlImpl.numbers[0] = 1003",
            "register MainControlImpl.stamps[0] = 11042563100175",
            "register MainControlImpl.numbers[5] = 1000",
            "stf:26: register MainControlImpl.numbers[0] = 1001",
        ],
    );
}

#[test]
fn register_initial_values_of_another_type_are_refused() {
    for (wrong, its_type) in [
        ("16w0xbeef == 1", "bool"),
        ("8w7", "bit<8>"),
        ("32w0xbeef", "bit<32>"),
    ] {
        refused(
            "psa_register_initial",
            "Register<bit<16>, bit<8>>(4, 0xbeef) small;",
            &format!("Register<bit<16>, bit<8>>(4, {wrong}) small;"),
            &format!(
                "argument `initial_value` of `Register`: cannot convert `{its_type}` to `bit<16>`"
            ),
        );
    }
}

#[test]
fn psa_direct_counters_count_the_hits_of_actions_calling_count() {
    passes_everywhere("psa_direct_counters", &["PASS: 4 packets"]);
}

#[test]
fn v1model_direct_counters_count_every_hit_of_their_table() {
    passes_everywhere("v1model_direct_counters", &["PASS: 4 packets"]);
}

#[test]
fn pna_direct_counters_count_entries_added_on_miss_from_zero() {
    passes_everywhere("pna_direct_counters", &["PASS: 4 packets"]);
}

#[test]
fn psa_direct_meters_colour_the_hits_of_actions_calling_execute() {
    passes_everywhere("psa_direct_meters", &["PASS: 13 packets"]);
}

#[test]
fn v1model_direct_meters_run_on_every_hit_and_read_the_colour() {
    passes_everywhere("v1model_direct_meters", &["PASS: 8 packets"]);
}

/// Kernel hooks only: the user target's host cannot delete entries.
#[test]
fn a_direct_counter_restarts_from_zero_when_its_entry_is_added_again() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED direct counter re-add: {why}");
        return;
    }
    let program = own("psa_direct_counters.p4");
    let script = own("psa_direct_counters_readd.stf");
    for hook in ["xdp", "tc"] {
        let (ok, text) = run_stf(
            &program,
            &script,
            &["--target", "kernel", "--hook", hook],
            &[],
        );
        assert!(ok, "at {hook}:\n{text}");
        assert!(
            text.contains("packets 0, bytes 0: ok"),
            "at {hook}:\n{text}"
        );
    }
}

#[test]
fn direct_externs_on_tables_that_cannot_hold_them_are_refused() {
    refused(
        "v1model_direct_counters",
        "        counters = second_hits;\n",
        "        counters = second_hits;\n        const entries = { 7 : mark(1); }\n",
        "its entries are all const",
    );
    refused(
        "v1model_direct_counters",
        "counters = first_hits;",
        "meters = first_hits;",
        "`meters` names a direct meter instance",
    );
    refused(
        "psa_direct_meters",
        "hdr.ethernet.dst : exact;",
        "hdr.ethernet.dst : lpm;",
        "an lpm trie's values cannot hold a meter's lock",
    );
    refused(
        "psa_direct_meters",
        "rate.execute()",
        "rate.execute(hdr.colour.seen == 1 ? PSA_MeterColor_t.RED : PSA_MeterColor_t.GREEN)",
        "a direct meter's colour-aware `execute` takes a constant colour",
    );
    refused(
        "psa_direct_counters",
        "psa_direct_counter = both;",
        "psa_direct_counter = forward;",
        "`psa_direct_counter` names a direct counter instance",
    );
    refused(
        "psa_direct_counters",
        "        psa_direct_counter = { packets, bytes, both };\n",
        "        psa_direct_counter = { packets, both };\n",
        "action `In.tag` uses the direct extern `In.bytes`, which this table does not name",
    );
}

#[test]
fn checksum_misuses_are_refused_with_a_place() {
    refused(
        "psa_internet_checksum",
        "hdr.probe.hc = ck.get();\n        }\n    }",
        "hdr.probe.hc = ck.get(1);\n        }\n    }",
        "no `get` takes 1 argument",
    );
    refused(
        "psa_internet_checksum",
        "    InternetChecksum() ck;\n    apply {\n        send_to_port",
        "    InternetChecksum() ck;\n    Checksum<bit<16>>(PSA_HashAlgorithm_t.ONES_COMPLEMENT16) crc;\n    apply {\n        send_to_port",
        "`Checksum` takes CRC16 or CRC32",
    );
    refused(
        "pna_internet_checksum",
        "check.add(hdr.ipv4);",
        "check.update(hdr.ipv4);",
        "`InternetChecksum` has no method `update`",
    );
}

/// Unloads a pipeline when the test ends, passed or not.
struct Unload(String);

impl Drop for Unload {
    fn drop(&mut self) {
        let _ = common::p4bpf(&["pipeline", "unload", &self.0]);
    }
}

/// Direct counters by P4 name through the CLI on a loaded pipeline, with
/// two replays running at once on the two CPUs (the cells are shared by
/// every CPU: no count may be lost); then reset.
#[test]
fn direct_counters_read_and_reset_by_name_with_packets_from_two_cpus() {
    use p4bpf_runtime::pcap::{self, Record};
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED direct counters through the CLI: {why}");
        return;
    }
    let name = format!("direct{}", std::process::id());
    let program = own("psa_direct_counters.p4");
    let load = common::p4bpf(&[
        "pipeline",
        "load",
        &program.to_string_lossy(),
        "--name",
        &name,
    ]);
    assert!(load.status.success(), "{}", common::stderr(&load));
    let _unload = Unload(name.clone());
    for (dst, action) in [("2", "forward"), ("3", "forward_uncounted")] {
        let added = common::p4bpf(&[
            "table",
            "add",
            &name,
            "In.by_dst",
            &format!("hdr.ethernet.dst={dst}"),
            action,
            "port=2",
        ]);
        assert!(added.status.success(), "{}", common::stderr(&added));
    }
    // 20-byte frames to dst 2 (counted) and dst 3 (not).
    let frame = |dst: u8| {
        let mut data = vec![0u8; 20];
        data[5] = dst;
        data[11] = 1;
        data[12] = 0x90;
        data
    };
    let records: Vec<Record> = (0..4000u32)
        .map(|i| Record {
            seconds: i,
            micros: 0,
            data: frame(if i % 4 == 3 { 3 } else { 2 }),
        })
        .collect();
    let dir = common::scratch_dir("externs_direct_cli");
    let input = dir.join("in.pcap");
    std::fs::write(&input, pcap::write(&records)).expect("pcap");
    let exe = env!("CARGO_BIN_EXE_p4bpf");
    let replays: Vec<std::process::Child> = ["0", "1"]
        .iter()
        .map(|cpu| {
            let out = dir.join(format!("out{cpu}.pcap"));
            std::process::Command::new("taskset")
                .args(["-c", cpu, exe, "run", "--pipeline", &name])
                .arg("--in")
                .arg(&input)
                .arg("--out")
                .arg(&out)
                .spawn()
                .expect("taskset")
        })
        .collect();
    for mut replay in replays {
        assert!(replay.wait().expect("replay").success());
    }
    let get = |extra: &[&str]| {
        let mut args = vec!["counter", "get", name.as_str(), "In.both"];
        args.extend_from_slice(extra);
        let out = common::p4bpf(&args);
        assert!(out.status.success(), "{}", common::stderr(&out));
        common::stdout(&out)
    };
    let all = get(&[]);
    assert!(
        all.contains("In.by_dst\thdr.ethernet.dst=00:00:00:00:00:02\tpackets=6000\tbytes=120000"),
        "{all}"
    );
    assert!(
        all.contains("In.by_dst\thdr.ethernet.dst=00:00:00:00:00:03\tpackets=0\tbytes=0"),
        "{all}"
    );
    let reset = common::p4bpf(&["counter", "reset", &name, "In.both", "hdr.ethernet.dst=2"]);
    assert!(reset.status.success(), "{}", common::stderr(&reset));
    let one = get(&["hdr.ethernet.dst=2"]);
    assert_eq!(
        one.trim(),
        "In.by_dst\thdr.ethernet.dst=00:00:00:00:00:02\tpackets=0\tbytes=0"
    );
    let missing = common::p4bpf(&["counter", "get", &name, "In.both", "hdr.ethernet.dst=9"]);
    assert!(common::stderr(&missing).contains("has no entry with this key"));
}

/// `meter set|get` on a direct meter: the entry by its key, kept when the
/// entry's action is modified; a bad rate and a missing entry are named.
#[test]
fn direct_meter_rates_are_set_per_entry_by_name() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED direct meter rates: {why}");
        return;
    }
    let name = format!("dmeter{}", std::process::id());
    let program = own("psa_direct_meters.p4");
    let load = common::p4bpf(&[
        "pipeline",
        "load",
        &program.to_string_lossy(),
        "--name",
        &name,
        "--hook",
        "tc",
    ]);
    assert!(load.status.success(), "{}", common::stderr(&load));
    let _unload = Unload(name.clone());
    let added = common::p4bpf(&[
        "table",
        "add",
        &name,
        "In.by_dst",
        "hdr.ethernet.dst=2",
        "police",
        "port=2",
    ]);
    assert!(added.status.success(), "{}", common::stderr(&added));
    let meter = |args: &[&str]| {
        let mut all = vec!["meter"];
        all.push(args[0]);
        all.push(name.as_str());
        all.extend_from_slice(&args[1..]);
        common::p4bpf(&all)
    };
    let set = meter(&[
        "set",
        "In.rate",
        "hdr.ethernet.dst=2",
        "100",
        "20",
        "50",
        "10",
    ]);
    assert!(set.status.success(), "{}", common::stderr(&set));
    let got = meter(&["get", "In.rate", "hdr.ethernet.dst=2"]);
    assert_eq!(
        common::stdout(&got).trim(),
        "pir=100\tpburst=20\tcir=50\tcburst=10"
    );
    // Modifying the entry's action keeps its meter.
    let modified = common::p4bpf(&[
        "table",
        "modify",
        &name,
        "In.by_dst",
        "hdr.ethernet.dst=2",
        "police",
        "port=7",
    ]);
    assert!(modified.status.success(), "{}", common::stderr(&modified));
    let kept = meter(&["get", "In.rate", "hdr.ethernet.dst=2"]);
    assert_eq!(
        common::stdout(&kept).trim(),
        "pir=100\tpburst=20\tcir=50\tcburst=10"
    );
    let slow_peak = meter(&[
        "set",
        "In.rate",
        "hdr.ethernet.dst=2",
        "10",
        "20",
        "50",
        "10",
    ]);
    assert!(common::stderr(&slow_peak).contains("PIR >= CIR"));
    let missing = meter(&[
        "set",
        "In.rate",
        "hdr.ethernet.dst=3",
        "100",
        "20",
        "50",
        "10",
    ]);
    assert!(common::stderr(&missing).contains("has no entry with this key"));
}

/// psa-ebpf-ptf's DirectCountersPSATest as our STF, against the corpus's
/// psa-ebpf/direct-counters.p4 (whose egress control acts: it sets
/// `ostd.drop`).
#[test]
fn psa_ptf_direct_counters_scenario_on_every_target() {
    let Some(corpus) = common::corpus_dir() else {
        eprintln!("SKIPPED ptf direct counters: ../shared/corpus/p4c is absent");
        return;
    };
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED ptf direct counters: {why}");
        return;
    }
    let program = corpus.join("psa-ebpf/direct-counters.p4");
    let script = own("psa_ptf_direct_counters.stf");
    let ports = ["-D", "PORT0=0", "-D", "PORT1=1", "-D", "PORT2=2"];
    for target in TARGETS {
        let (ok, text) = run_stf(&program, &script, target, &ports);
        assert!(ok, "at {}:\n{text}", target.join(" "));
    }
}

/// psa-ebpf-ptf's RegisterBigKeyPSATest as our STF, against the corpus's
/// psa-ebpf/register-big-key.p4: a register starting at 6, 64-bit indexes.
#[test]
fn psa_ptf_register_big_key_scenario_on_every_target() {
    let Some(corpus) = common::corpus_dir() else {
        eprintln!("SKIPPED ptf register big key: ../shared/corpus/p4c is absent");
        return;
    };
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED ptf register big key: {why}");
        return;
    }
    let program = corpus.join("psa-ebpf/register-big-key.p4");
    let script = own("psa_ptf_register_big_key.stf");
    for target in TARGETS {
        let (ok, text) = run_stf(&program, &script, target, &[]);
        let target = target.join(" ");
        assert!(ok, "at {target}:\n{text}");
        for seen in [
            "stf:6: register ingress.reg[5] = 16",
            "stf:8: register ingress.reg[5] = 26",
            "stf:9: register ingress.reg[4] = 6",
            "stf:11: register ingress.reg[5] = 6",
        ] {
            assert!(text.contains(seen), "at {target}: no `{seen}`:\n{text}");
        }
    }
}
