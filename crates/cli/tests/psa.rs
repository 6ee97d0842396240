//! PSA end to end. Our own program (tests/psa/psa_forward.p4) runs its
//! STF on the kernel target at XDP and TC and on the user target, and
//! variants of `psa_wide_select.p4` check each refusal names its reason
//! and place. Then
//! the reference corpus: the PSA STF files of p4_16_samples, and every
//! program of psa-ebpf/ and psa-ebpf-examples/ compiled and loaded at XDP
//! and TC. Skips, saying why, without root/BPF, clang or the corpus.
//!
//! [`KNOWN_GAPS`] lists the PSA STF files that do not pass yet and why;
//! each is checked to still fail for its stated reason.

mod common;

use std::path::{Path, PathBuf};

const TARGETS: [&[&str]; 3] = [
    &["--target", "kernel", "--hook", "xdp"],
    &["--target", "kernel", "--hook", "tc"],
    &["--target", "user"],
];

fn own(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/psa")
        .join(name)
}

/// Runs `p4bpf test` on every target: (passed, target, output) each.
fn run_stf(program: &Path, script: &Path, defines: &[&str]) -> Vec<(bool, String, String)> {
    TARGETS
        .iter()
        .map(|target| {
            let (p, s) = (program.to_string_lossy(), script.to_string_lossy());
            let mut args = vec!["test", p.as_ref(), s.as_ref()];
            args.extend_from_slice(target);
            args.extend_from_slice(defines);
            let out = common::p4bpf(&args);
            let text = format!("{}{}", common::stdout(&out), common::stderr(&out));
            (out.status.success(), target.join(" "), text)
        })
        .collect()
}

#[test]
fn psa_unicast_drop_default_counter_and_register_on_every_target() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED psa_unicast: {why}");
        return;
    }
    for (ok, target, text) in run_stf(&own("psa_forward.p4"), &own("psa_forward.stf"), &[]) {
        assert!(ok, "{target}:\n{text}");
        assert!(
            text.contains("drop: ok (dropped)"),
            "{target}: no drop seen:\n{text}"
        );
    }
    // The drop is observed: expecting the missed packet out fails.
    let dir = common::scratch_dir("psa_drop_observed");
    let script = common::write(
        &dir,
        "miss.stf",
        "packet 1 000000000009 000000000001 9000 cafe\nexpect 1 000000000009 000000000001 9000 cafe\n",
    );
    for (ok, target, text) in run_stf(&own("psa_forward.p4"), &script, &[]) {
        assert!(!ok && text.contains("dropped"), "{target}:\n{text}");
    }
}

#[test]
fn psa_egress_parses_again_bridges_metadata_and_drops_on_every_target() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED psa_egress: {why}");
        return;
    }
    for (ok, target, text) in run_stf(&own("psa_egress.p4"), &own("psa_egress.stf"), &[]) {
        assert!(ok, "{target}:\n{text}");
        assert_eq!(
            text.matches("drop: ok (dropped)").count(),
            3,
            "{target}:\n{text}"
        );
    }
    // Egress's writes are observed: expecting the tag as ingress left it fails.
    let dir = common::scratch_dir("psa_egress_observed");
    let script = common::write(
        &dir,
        "ingress_only.stf",
        "add In.fwd hdr.ethernet.dst:0x000000000002 In.forward(port:2, mark:0x11)\n\
         packet 1 000000000002 000000000001 9000 cafe\n\
         expect 2 000000000002 000000000001 88b5 11 00 ff 00 9000 cafe $\n",
    );
    for (ok, target, text) in run_stf(&own("psa_egress.p4"), &script, &[]) {
        assert!(
            !ok && text.contains("88b51102 01039000"),
            "{target}:\n{text}"
        );
    }
}

#[test]
fn psa_egress_tables_load_and_act_on_every_target() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED psa_egress_tables: {why}");
        return;
    }
    let (program, script) = (own("psa_egress_tables.p4"), own("psa_egress_tables.stf"));
    for (ok, target, text) in run_stf(&program, &script, &[]) {
        assert!(ok, "{target}:\n{text}");
        assert!(text.contains("drop: ok"), "{target}: no drop seen:\n{text}");
    }
}

#[test]
fn psa_resubmit_runs_ingress_again_on_the_received_packet_on_every_target() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED psa_resubmit: {why}");
        return;
    }
    for (ok, target, text) in run_stf(&own("psa_resubmit.p4"), &own("psa_resubmit.stf"), &[]) {
        assert!(ok, "{target}:\n{text}");
        assert!(text.contains("drop: ok (dropped)"), "{target}:\n{text}");
    }
}

#[test]
fn psa_crc_checksums_accumulate_updates_in_every_block_on_every_target() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED psa_crc_checksum: {why}");
        return;
    }
    let (program, script) = (own("psa_crc_checksum.p4"), own("psa_crc_checksum.stf"));
    for (ok, target, text) in run_stf(&program, &script, &[]) {
        assert!(ok, "{target}:\n{text}");
        assert!(text.contains("PASS: 10 packets"), "{target}:\n{text}");
    }
}

/// PSA leaves a byte counter's packet length to the implementation;
/// p4bpf's is the frame as it arrived, in egress too, whatever ingress
/// and egress added (PTF's PortCountersTest expects PSA-eBPF's bridged
/// header in egress's count instead: conformance/psa.md).
#[test]
fn psa_byte_counters_count_the_frame_as_it_arrived_on_every_target() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED psa_byte_counters: {why}");
        return;
    }
    let (program, script) = (own("psa_byte_counters.p4"), own("psa_byte_counters.stf"));
    for (ok, target, text) in run_stf(&program, &script, &[]) {
        assert!(ok, "{target}:\n{text}");
        assert!(text.contains("PASS: 3 packets"), "{target}:\n{text}");
    }
}

#[test]
fn psa_wide_select_keys_match_values_masks_and_value_sets_on_every_target() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED psa_wide_select: {why}");
        return;
    }
    let (program, script) = (own("psa_wide_select.p4"), own("psa_wide_select.stf"));
    for (ok, target, text) in run_stf(&program, &script, &[]) {
        assert!(ok, "{target}:\n{text}");
        assert!(text.contains("PASS: 7 packets"), "{target}:\n{text}");
    }
}

/// (what a variant changes in psa_wide_select.p4: from, to; its refusal)
const WIDE_SELECT_REFUSED: &[(&str, &str, &str)] = &[
    (
        "96w0xffffffffffffffffffffffff: reject;",
        "96w1 .. 96w5: reject;",
        "takes values, masks, value sets or default, not ranges",
    ),
    (
        "transition select(hdr.probe.id) {",
        "transition select(hdr.probe.id + 1) {",
        "one wider than 64 bits must be a field or variable",
    ),
];

#[test]
fn psa_wide_select_refusals_name_their_reason_and_place() {
    let source = std::fs::read_to_string(own("psa_wide_select.p4")).expect("psa_wide_select.p4");
    let dir = common::scratch_dir("psa_wide_select_refusals");
    for (i, (from, to, says)) in WIDE_SELECT_REFUSED.iter().enumerate() {
        assert!(
            source.contains(from),
            "variant {i}: `{from}` not in the program"
        );
        let program = common::write(&dir, &format!("wide{i}.p4"), &source.replacen(from, to, 1));
        let out_dir = dir.join(format!("out{i}"));
        let out = common::p4bpf(&[
            "compile",
            &program.to_string_lossy(),
            "-o",
            &out_dir.to_string_lossy(),
        ]);
        let err = common::stderr(&out);
        assert!(!out.status.success(), "variant {i} compiled");
        assert!(
            err.contains(says) && err.contains(&format!("wide{i}.p4:")),
            "variant {i}: {err}"
        );
    }
}

#[test]
fn psa_parser_errors_reach_ingress_and_egress_instead_of_dropping() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED psa_parser_errors: {why}");
        return;
    }
    let (program, script) = (own("psa_parser_error.p4"), own("psa_parser_error.stf"));
    for (ok, target, text) in run_stf(&program, &script, &[]) {
        assert!(ok, "{target}:\n{text}");
        assert_eq!(text.matches("ok (dropped)").count(), 2, "{target}:\n{text}");
    }
    // The error is observed: a too-short packet does not leave by port 2.
    let dir = common::scratch_dir("psa_parser_error_observed");
    let script = common::write(
        &dir,
        "too_short.stf",
        "packet 1 000000000002 000000000001 1234 07\nexpect 2 000000000002 000000000001 1234 07 $\n",
    );
    for (ok, target, text) in run_stf(&program, &script, &[]) {
        assert!(
            !ok && text.contains("redirect to port 3"),
            "{target}:\n{text}"
        );
    }
    // The corpus's test sets errors in either parser; the egress control
    // reads its own parser's. At TC its short frames go through a TUN device.
    let Some(corpus) = common::corpus_dir() else {
        return;
    };
    let sample = corpus.join("p4_16_samples/psa-parser-error-test-bmv2.p4");
    for (ok, target, text) in run_stf(&sample, &sample.with_extension("stf"), &[]) {
        assert!(ok && text.contains("PASS: 4 packets"), "{target}:\n{text}");
    }
}

#[test]
fn psa_recirculate_runs_ingress_on_what_egress_wrote_on_every_target() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED psa_recirculate: {why}");
        return;
    }
    let (p4, stf) = (own("psa_recirculate.p4"), own("psa_recirculate.stf"));
    for (ok, target, text) in run_stf(&p4, &stf, &[]) {
        assert!(ok, "{target}:\n{text}");
        assert!(text.contains("drop: ok (dropped)"), "{target}:\n{text}");
    }
    // PTF's EgressTrafficManagerRecirculatePSATest, its recirculation
    // port being ours.
    let Some(corpus) = common::corpus_dir() else {
        return;
    };
    let program = corpus.join("psa-ebpf/etm-recirc.p4");
    let mut defines = PTF_DEFINES;
    defines[7] = "PSA_RECIRC=0xfffffffa";
    let script = own("recirculate/etm-recirc.stf");
    for (ok, target, text) in run_stf(&program, &script, &defines) {
        assert!(ok, "{target}:\n{text}");
    }
}

#[test]
fn psa_multicast_and_clone_copies_each_run_egress_at_tc() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED psa_multicast: {why}");
        return;
    }
    let (p4, stf) = (own("psa_multicast.p4"), own("psa_multicast.stf"));
    let args = ["test", &*p4.to_string_lossy(), &*stf.to_string_lossy()];
    let out = common::p4bpf(&[&args[..], &["--target", "veth", "--hook", "tc"]].concat());
    let text = common::stdout(&out);
    assert!(out.status.success(), "{text}{}", common::stderr(&out));
    // Two copies leave (egress dropped the third), each judged against its port's expect.
    assert_eq!(
        text.matches("(psa_multicast.stf:15) in port 1: redirect to port")
            .count(),
        2,
        "{text}"
    );
    if let Some(corpus) = common::corpus_dir() {
        let stem = corpus.join("p4_16_samples/psa-multicast-basic-corrected-bmv2");
        let (p4, stf) = (stem.with_extension("p4"), stem.with_extension("stf"));
        let corpus_args = ["test", &*p4.to_string_lossy(), &*stf.to_string_lossy()];
        let out =
            common::p4bpf(&[&corpus_args[..], &["--target", "veth", "--hook", "tc"]].concat());
        let text = common::stdout(&out);
        assert!(out.status.success(), "{text}{}", common::stderr(&out));
        // PSACloneI2E with BMv2's `mirroring_add` (one member); two
        // members through `p4bpf clone`: replication.rs.
        let p4 = corpus.join("psa-ebpf/clone-i2e.p4");
        let stf = own("live/clone-i2e.stf");
        let clone_args = ["test", &*p4.to_string_lossy(), &*stf.to_string_lossy()];
        let out = common::p4bpf(
            &[
                &clone_args[..],
                &["--target", "veth", "--hook", "tc"],
                &PTF_DEFINES,
            ]
            .concat(),
        );
        let text = common::stdout(&out);
        assert!(out.status.success(), "{text}{}", common::stderr(&out));
        assert!(text.contains("PASS: 2 packets, 0 failure(s)"), "{text}");
    }
    // At XDP the copies leave through a devmap broadcast, egress in its program.
    let out = common::p4bpf(&[&args[..], &["--target", "kernel", "--hook", "xdp"]].concat());
    let text = common::stdout(&out);
    assert!(out.status.success(), "{text}{}", common::stderr(&out));
    assert_eq!(
        text.matches("(psa_multicast.stf:15) in port 1: redirect to port")
            .count(),
        2,
        "{text}"
    );
}

#[test]
fn psa_clone_e2e_copies_what_egress_wrote_at_tc() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED psa_clone_e2e: {why}");
        return;
    }
    let mut runs = vec![(own("psa_clone_e2e.p4"), own("psa_clone_e2e.stf"), 3)];
    if let Some(corpus) = common::corpus_dir() {
        let stem = corpus.join("p4_16_samples/psa-e2e-cloning-basic-bmv2");
        runs.push((stem.with_extension("p4"), stem.with_extension("stf"), 3));
    }
    for (p4, stf, packets) in runs {
        let args = ["test", &*p4.to_string_lossy(), &*stf.to_string_lossy()];
        for target in [["--target", "kernel"], ["--target", "user"]] {
            let out = common::p4bpf(&[&args[..], &target, &["--hook", "tc"]].concat());
            let text = common::stdout(&out) + &common::stderr(&out);
            assert!(
                out.status.success()
                    && text.contains(&format!("PASS: {packets} packets, 0 failure(s)")),
                "{} {}:\n{text}",
                p4.display(),
                target.join(" ")
            );
        }
    }
}

/// (PSA STF file stem, text its failing runs print).
const KNOWN_GAPS: &[(&str, &str)] = &[];

#[test]
fn corpus_psa_stf_files_pass_on_kernel_and_user_targets() {
    let Some(corpus) = common::corpus_dir() else {
        eprintln!("SKIPPED corpus_psa_stf_files: ../shared/corpus/p4c is absent");
        return;
    };
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED corpus_psa_stf_files: {why}");
        return;
    }
    let scripts = common::files_where(&corpus.join("p4_16_samples"), |n| {
        n.starts_with("psa-") && n.ends_with(".stf")
    });
    let mut tally = common::GapTally::default();
    for script in &scripts {
        let program = script.with_extension("p4");
        let stem = program.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let outputs = run_stf(&program, script, &[]);
        tally.judge(stem, &outputs, KNOWN_GAPS);
    }
    let (passed, problems) = (tally.passed, tally.problems);
    eprintln!(
        "{passed} of {} PSA STF files pass on all targets; {} known gaps",
        scripts.len(),
        KNOWN_GAPS.len()
    );
    assert!(passed >= 8, "only {passed} PSA STF files pass");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// What the PTF suite's programs are compiled with (its `common.py`).
const PTF_DEFINES: [&str; 8] = [
    "-D",
    "PORT0=0",
    "-D",
    "PORT1=1",
    "-D",
    "PORT2=2",
    "-D",
    "PSA_RECIRC=3",
];

#[test]
fn corpus_psa_ebpf_programs_load_at_xdp_and_tc_or_get_a_diagnostic() {
    let Some(corpus) = common::corpus_dir() else {
        eprintln!("SKIPPED corpus_psa_ebpf_programs: ../shared/corpus/p4c is absent");
        return;
    };
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED corpus_psa_ebpf_programs: {why}");
        return;
    }
    let mut programs: Vec<PathBuf> = ["psa-ebpf", "psa-ebpf-examples"]
        .iter()
        .flat_map(|d| std::fs::read_dir(corpus.join(d)).into_iter().flatten())
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "p4"))
        .filter(|p| !p.ends_with("common_headers.p4"))
        .collect();
    programs.sort();
    let (mut loaded, mut refused, mut problems) = (0, 0, vec![]);
    for program in &programs {
        let stem = program.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        for hook in ["xdp", "tc"] {
            let name = format!("psa{}_{hook}_{}", std::process::id(), loaded + refused);
            let p = program.to_string_lossy();
            let mut args = vec![
                "pipeline",
                "load",
                p.as_ref(),
                "--name",
                &name,
                "--hook",
                hook,
            ];
            args.extend_from_slice(&PTF_DEFINES);
            let out = common::p4bpf(&args);
            let _ = common::p4bpf(&["pipeline", "unload", &name]);
            let err = common::stderr(&out);
            if out.status.success() {
                loaded += 1;
            } else if err.contains(&format!("{stem}.p4:")) && !err.contains("clang could not") {
                // A diagnostic placed in the program, not a build or verifier failure.
                refused += 1;
            } else {
                problems.push(format!("{stem} at {hook}: {err}"));
            }
        }
    }
    eprintln!(
        "psa-ebpf and psa-ebpf-examples: {loaded} loads and {refused} clear refusals over {} programs at XDP and TC",
        programs.len()
    );
    // bng and upf included: a parser's error paths join before ingress;
    // the CRC `Checksum` programs, wide const entries, select keys and
    // registers of structs and wide values too.
    assert!(loaded >= 112, "only {loaded} loads");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The PTF scenarios of programs that replicate packets (which XDP
/// refuses), as our STF files (tests/psa/ptf-tc/PROGRAM-SCENARIO.stf
/// against psa-ebpf-examples/PROGRAM.p4), at kernel TC.
#[test]
fn ptf_scenarios_of_replicating_programs_pass_at_tc() {
    let Some(corpus) = common::corpus_dir() else {
        eprintln!("SKIPPED ptf_scenarios_at_tc: ../shared/corpus/p4c is absent");
        return;
    };
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED ptf_scenarios_at_tc: {why}");
        return;
    }
    let scripts = common::files_where(&own("ptf-tc"), |n| n.ends_with(".stf"));
    assert!(!scripts.is_empty(), "PTF scenario files at TC missing");
    for script in &scripts {
        let stem = script.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let program_name = stem.rsplit_once('-').map_or(stem, |(p, _)| p);
        let program = corpus.join(format!("psa-ebpf-examples/{program_name}.p4"));
        let (p, s) = (program.to_string_lossy(), script.to_string_lossy());
        let args = [
            &[
                "test",
                p.as_ref(),
                s.as_ref(),
                "--target",
                "kernel",
                "--hook",
                "tc",
            ][..],
            &PTF_DEFINES,
        ]
        .concat();
        let out = common::p4bpf(&args);
        let text = format!("{}{}", common::stdout(&out), common::stderr(&out));
        assert!(
            out.status.success() && text.contains("0 failure(s)"),
            "{stem}:\n{text}"
        );
    }
}

/// `p4bpf register` on a loaded pipeline whose register holds structs at
/// struct indexes: cells by field, a packet's write seen, bad input named.
#[test]
fn register_cli_reads_and_writes_struct_cells_by_field() {
    let Some(corpus) = common::corpus_dir() else {
        eprintln!("SKIPPED register_cli: ../shared/corpus/p4c is absent");
        return;
    };
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED register_cli: {why}");
        return;
    }
    let name = format!("psa_register_cli_{}", std::process::id());
    let program = corpus.join("psa-ebpf/register-structs.p4");
    let p = program.to_string_lossy();
    let load = [
        &[
            "pipeline",
            "load",
            p.as_ref(),
            "--name",
            &name,
            "--hook",
            "xdp",
        ][..],
        &PTF_DEFINES,
    ]
    .concat();
    let out = common::p4bpf(&load);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let register = |args: &[&str]| common::p4bpf(&[&["register"][..], args].concat());
    let key = "5,0xffffffffffff";
    let get = register(&["get", &name, "ingress.reg", key]);
    let set = register(&["set", &name, "ingress.reg", key, "0xda,0x55,7"]);
    let again = register(&["get", &name, "ingress.reg", key]);
    let short_key = register(&["set", &name, "ingress.reg", "5", "1,2,3"]);
    let too_wide = register(&["set", &name, "ingress.reg", key, "1,2,0x1ffffffff"]);
    let _ = common::p4bpf(&["pipeline", "unload", &name]);
    assert_eq!(
        common::stdout(&get).trim(),
        "register ingress.reg[5,0xffffffffffff] = {port=0x0, srcAddr=0x0, dstAddr=0x0}"
    );
    assert!(set.status.success(), "{}", common::stderr(&set));
    assert_eq!(
        common::stdout(&again).trim(),
        "register ingress.reg[5,0xffffffffffff] = {port=0xda, srcAddr=0x55, dstAddr=0x7}"
    );
    let says = common::stderr(&short_key);
    assert!(
        !short_key.status.success() && says.contains("takes 2 (port, srcAddr)"),
        "{says}"
    );
    let says = common::stderr(&too_wide);
    assert!(
        !too_wide.status.success() && says.contains("value field `dstAddr`"),
        "{says}"
    );
}

/// What the PTF scenarios that read a register back must report (PTF's
/// `register_verify`), by scenario.
const PTF_READS: &[(&str, &[&str])] = &[
    (
        "register-action",
        &[
            "stf:8: register ingress.reg[1] = 5",
            "stf:11: register ingress.reg[1] = 15",
        ],
    ),
    (
        "register-structs",
        &[
            "stf:7: register ingress.reg[5,0xffffffffffff] = {port=0x0, srcAddr=0x5, dstAddr=0x0}",
            "stf:10: register ingress.reg[5,0xffffffffffff] = {port=0xda, srcAddr=0x55, dstAddr=0xd}",
            "stf:12: register ingress.reg[6,0xffffffffffff] = {port=0x0, srcAddr=0x0, dstAddr=0x0}",
        ],
    ),
    (
        "wide-field-register",
        &[
            "stf:7: register ingress.reg[0x1111222233334444555567] = 0x11111000000000000000000",
            "stf:11: register ingress.reg[0x1111222233334444555567] = 0x11111000000000000000000",
        ],
    ),
    (
        "register-apply",
        &[
            "stf:5: register ingress.reg[5] = 5",
            "stf:7: register ingress.reg[5] = 15",
        ],
    ),
];

/// The scenarios of psa-ebpf-ptf that p4bpf supports, as our STF files
/// (tests/psa/ptf/NAME.stf against psa-ebpf/NAME.p4 or
/// psa-ebpf-examples/NAME.p4, each naming its PTF
/// test class); conformance/psa.md lists every scenario with its result.
#[test]
fn ptf_scenarios_pass_on_every_target() {
    let Some(corpus) = common::corpus_dir() else {
        eprintln!("SKIPPED ptf_scenarios: ../shared/corpus/p4c is absent");
        return;
    };
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED ptf_scenarios: {why}");
        return;
    }
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(own("ptf"))
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    scripts.sort();
    assert!(scripts.len() >= 14, "PTF scenario files missing");
    let mut problems = vec![];
    for script in &scripts {
        let stem = script.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let program = ["psa-ebpf", "psa-ebpf-examples"]
            .iter()
            .map(|folder| corpus.join(folder).join(format!("{stem}.p4")))
            .find(|p| p.exists())
            .unwrap_or_default();
        let reads = PTF_READS
            .iter()
            .find(|(s, _)| *s == stem)
            .map_or(&[][..], |r| r.1);
        for (ok, target, text) in run_stf(&program, script, &PTF_DEFINES) {
            if !ok || reads.iter().any(|read| !text.contains(read)) {
                problems.push(format!("{stem} ({target}), reading {reads:?}:\n{text}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
