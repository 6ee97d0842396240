//! Action profiles and selectors end to end: our v1model program
//! (tests/profile/v1_selector.p4: odd-width selector keys, a selector
//! shared by two tables with different actions, a profile on a ternary
//! table) runs its STF on kernel XDP, kernel TC and user; many flows
//! spread evenly over a group's members; the control plane refuses to
//! leave a reference dangling; and the compiler refuses what it cannot
//! build, saying where. Kernel parts skip, saying why, without root/BPF
//! or clang.

mod common;

use std::path::{Path, PathBuf};

const TARGETS: [&[&str]; 3] = [
    &["--target", "kernel", "--hook", "xdp"],
    &["--target", "kernel", "--hook", "tc"],
    &["--target", "user"],
];

fn own(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/profile")
        .join(name)
}

/// A table with both an implementation and a direct counter: the members
/// hold the actions, the table's entries hold the counter cells.
#[test]
fn a_profile_table_with_a_direct_counter_passes_on_every_target() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED profile_direct_counter: {why}");
        return;
    }
    let (program, script) = (
        own("profile_direct_counter.p4"),
        own("profile_direct_counter.stf"),
    );
    for target in TARGETS {
        let mut args = vec![
            "test",
            program.to_str().unwrap_or(""),
            script.to_str().unwrap_or(""),
        ];
        args.extend_from_slice(target);
        let out = common::p4bpf(&args);
        let text = format!("{}{}", common::stdout(&out), common::stderr(&out));
        assert!(out.status.success(), "{target:?}:\n{text}");
        assert!(text.contains("PASS: 3 packets"), "{target:?}:\n{text}");
    }
}

#[test]
fn selector_and_profile_stf_passes_on_every_target() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED selector_and_profile_stf: {why}");
        return;
    }
    let (program, script) = (own("v1_selector.p4"), own("v1_selector.stf"));
    for target in TARGETS {
        let mut args = vec![
            "test",
            program.to_str().unwrap_or(""),
            script.to_str().unwrap_or(""),
        ];
        args.extend_from_slice(target);
        let out = common::p4bpf(&args);
        let text = format!("{}{}", common::stdout(&out), common::stderr(&out));
        assert!(out.status.success(), "{target:?}:\n{text}");
        assert!(text.contains("PASS: 11 packets"), "{target:?}:\n{text}");
        assert!(
            text.contains("drop: ok (dropped)"),
            "{target:?}: the empty group did not drop:\n{text}"
        );
    }
}

/// 3000 flows (random port, label and class) through a group of three
/// members: each member's share is within 15% of a third.
#[test]
fn many_flows_spread_evenly_over_a_group() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED many_flows_spread_evenly: {why}");
        return;
    }
    const FLOWS: usize = 3000;
    let dir = common::scratch_dir("profile_spread");
    let entries = common::write(
        &dir,
        "entries.stf",
        "act_prof_create_member Ig.spread Ig.fwd 1\n\
         act_prof_create_member Ig.spread Ig.fwd 2\n\
         act_prof_create_member Ig.spread Ig.fwd 3\n\
         act_prof_create_group Ig.spread\n\
         act_prof_add_member_to_group Ig.spread 0 0\n\
         act_prof_add_member_to_group Ig.spread 1 0\n\
         act_prof_add_member_to_group Ig.spread 2 0\n\
         table_indirect_add_with_group Ig.by_dst 0x00000000000a => 0\n",
    );
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let records: Vec<p4bpf_runtime::pcap::Record> = (0..FLOWS)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let flow = (seed as u32) & 0x00ff_ffff;
            let mut data = vec![0, 0, 0, 0, 0, 0x0a, 1, 0, 0, 0, 0, 1, 0x88, 0xb5];
            data.extend_from_slice(&flow.to_be_bytes()[1..]);
            data.extend_from_slice(&[0xca, 0xfe]);
            p4bpf_runtime::pcap::Record {
                seconds: 0,
                micros: 0,
                data,
            }
        })
        .collect();
    let input = dir.join("flows.pcap");
    std::fs::write(&input, p4bpf_runtime::pcap::write(&records)).unwrap_or_default();
    for target in [
        &["--target", "user"][..],
        &["--target", "kernel", "--hook", "tc"][..],
    ] {
        let out_base = dir.join("out.pcap");
        let program = own("v1_selector.p4");
        let mut args = vec![
            "run",
            program.to_str().unwrap_or(""),
            "--in",
            input.to_str().unwrap_or(""),
            "--out",
            out_base.to_str().unwrap_or(""),
            "--entries",
            entries.to_str().unwrap_or(""),
        ];
        args.extend_from_slice(target);
        let out = common::p4bpf(&args);
        assert!(out.status.success(), "{target:?}: {}", common::stderr(&out));
        let counts: Vec<usize> = (1..=3)
            .map(|port| {
                let bytes = std::fs::read(dir.join(format!("out-{port}.pcap"))).unwrap_or_default();
                p4bpf_runtime::pcap::parse(&bytes).map_or(0, |r| r.len())
            })
            .collect();
        assert_eq!(
            counts.iter().sum::<usize>(),
            FLOWS,
            "{target:?}: {counts:?}"
        );
        let third = FLOWS / 3;
        for (member, count) in counts.iter().enumerate() {
            assert!(
                count.abs_diff(third) * 100 <= third * 15,
                "{target:?}: member {member} took {count} of {FLOWS} flows: {counts:?}"
            );
        }
        eprintln!("{target:?}: flows per member {counts:?}");
    }
}

/// `p4bpf profile` on a loaded pipeline: references by entries and
/// groups keep members and groups alive, with an error naming the user.
#[test]
fn control_plane_keeps_references_whole() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED control_plane_keeps_references_whole: {why}");
        return;
    }
    let name = format!("profile{}", std::process::id());
    let program = own("v1_selector.p4");
    let load = common::p4bpf(&[
        "pipeline",
        "load",
        program.to_str().unwrap_or(""),
        "--name",
        &name,
    ]);
    assert!(load.status.success(), "{}", common::stderr(&load));
    let run = |args: &[&str]| {
        let mut all = vec!["profile"];
        all.extend_from_slice(args);
        let out = common::p4bpf(&all);
        (
            out.status.success(),
            format!("{}{}", common::stdout(&out), common::stderr(&out)),
        )
    };
    let table = |args: &[&str]| {
        let mut all = vec!["table"];
        all.extend_from_slice(args);
        common::p4bpf(&all).status.success()
    };
    let n = name.as_str();
    let checks: Vec<(bool, String, &str)> = vec![
        (
            run(&["member", "add", n, "spread", "1", "fwd", "port=1"]).0,
            String::new(),
            "add member 1",
        ),
        (
            run(&["member", "add", n, "spread", "2", "fwd", "port=2"]).0,
            String::new(),
            "add member 2",
        ),
        (
            run(&["group", "add", n, "spread", "5"]).0,
            String::new(),
            "add group 5",
        ),
        (
            run(&["group", "set-members", n, "spread", "5", "2", "2"]).0,
            String::new(),
            "set group 5",
        ),
        (
            table(&["add", n, "Ig.by_dst", "hdr.eth.dst=0x0a", "member", "1"]),
            String::new(),
            "entry to member 1",
        ),
        (
            table(&["add", n, "Ig.by_dst", "hdr.eth.dst=0x0b", "group", "5"]),
            String::new(),
            "entry to group 5",
        ),
    ];
    for (ok, _, what) in &checks {
        assert!(ok, "{what} failed");
    }
    let refusals = [
        (
            run(&["member", "del", n, "spread", "1"]),
            "member 1 is in use by an entry of table `Ig.by_dst`",
        ),
        (
            run(&["member", "del", n, "spread", "2"]),
            "member 2 is in group 5",
        ),
        (
            run(&["group", "del", n, "spread", "5"]),
            "group 5 is in use by an entry of table `Ig.by_dst`",
        ),
        (
            run(&["group", "set-members", n, "spread", "5", "9"]),
            "has no member 9",
        ),
        (
            run(&["member", "add", n, "spread", "1", "fwd", "port=3"]),
            "already has a member 1",
        ),
        (
            run(&["group", "add", n, "marks", "1"]),
            "without a selector",
        ),
        (
            run(&["member", "add", n, "spread", "3", "set_src", "src=1"]),
            "set_src",
        ),
    ];
    let listed = run(&["group", "list", n, "spread"]);
    let members = run(&["member", "list", n, "Ig.spread"]);
    // Once the entries are gone, the member and the group may go.
    let freed = table(&["del", n, "Ig.by_dst", "hdr.eth.dst=0x0a"])
        && run(&["member", "del", n, "spread", "1"]).0
        && table(&["del", n, "Ig.by_dst", "hdr.eth.dst=0x0b"])
        && run(&["group", "del", n, "spread", "5"]).0
        && run(&["member", "del", n, "spread", "2"]).0;
    let unload = common::p4bpf(&["pipeline", "unload", n]);
    for ((ok, text), says) in refusals {
        assert!(
            !ok && text.contains(says),
            "expected a refusal saying `{says}`, got: {text}"
        );
    }
    assert!(listed.0 && listed.1.contains("5\t2 2"), "{}", listed.1);
    assert!(
        members.0 && members.1.contains("1\tIg.fwd\tport=1"),
        "{}",
        members.1
    );
    assert!(
        freed,
        "members and groups no longer named could not be deleted"
    );
    assert!(unload.status.success(), "{}", common::stderr(&unload));
}

/// (what a variant of v1_selector.p4 changes: from, to; what its refusal says)
const REFUSED: &[(&str, &str, &str)] = &[
    (
        "action_selector(HashAlgorithm.crc16,",
        "action_selector(HashAlgorithm.random,",
        "hashes with an algorithm p4bpf computes",
    ),
    (
        "        implementation = marks;\n",
        "        implementation = marks;\n        const entries = { 0x0800 &&& 0xffff : set_src(1); }\n",
        "takes its entries from the control plane",
    ),
    (
        "    action_profile(32w64) marks;",
        "    @max_group_size(5000) action_selector(HashAlgorithm.crc16, 32w64, 32w16) marks;",
        "`@max_group_size` may be at most",
    ),
    (
        "        implementation = marks;\n",
        "        implementation = marks;\n        psa_empty_group_action = NoAction();\n",
        "`psa_empty_group_action` needs an `ActionSelector`",
    ),
];

#[test]
fn what_cannot_be_built_is_refused_with_its_place() {
    let source = std::fs::read_to_string(own("v1_selector.p4")).unwrap_or_default();
    let dir = common::scratch_dir("profile_refused");
    for (i, (from, to, says)) in REFUSED.iter().enumerate() {
        assert!(
            source.contains(from),
            "variant {i}: `{from}` not in the program"
        );
        let path = common::write(
            &dir,
            &format!("variant{i}.p4"),
            &source.replacen(from, to, 1),
        );
        let out = common::p4bpf(&[
            "compile",
            path.to_str().unwrap_or(""),
            "-o",
            dir.to_str().unwrap_or(""),
        ]);
        let err = common::stderr(&out);
        assert!(!out.status.success(), "variant {i} compiled");
        assert!(err.contains(says), "variant {i}: {err}");
        assert!(
            err.contains(&format!("variant{i}.p4:")),
            "variant {i} has no place: {err}"
        );
    }
}
