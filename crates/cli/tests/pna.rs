//! PNA's refusals and add-on-miss checks: each compile error names the
//! place in the program and what is wrong (the programs that run are
//! `tests/stf/pna_*.p4`).

mod common;

use common::{p4bpf_in, scratch_dir, stderr, write};
use std::path::Path;

/// A P4TC-flavour program whose control body is `control` (with a table
/// `flows` whose `add_on_miss`, key kind and actions the test picks).
fn program(control: &str) -> String {
    format!(
        r#"#include <core.p4>
#include <tc/pna.p4>
header ethernet_t {{ bit<48> dst; bit<48> src; bit<16> etherType; }}
struct headers_t {{ ethernet_t ethernet; }}
struct meta_t {{ }}
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, in pna_main_parser_input_metadata_t istd) {{
    state start {{ pkt.extract(hdr.ethernet); transition accept; }}
}}
control C(inout headers_t hdr, inout meta_t m, in pna_main_input_metadata_t istd, inout pna_main_output_metadata_t ostd) {{
{control}
}}
control D(packet_out pkt, inout headers_t hdr, in meta_t m, in pna_main_output_metadata_t ostd) {{
    apply {{ pkt.emit(hdr.ethernet); }}
}}
PNA_NIC(P(), C(), D()) main;
"#
    )
}

/// Compiles `control` in a program; the compiler's stderr (it must fail).
fn refusal(test: &str, control: &str) -> String {
    let dir = scratch_dir(test);
    write(&dir, "prog.p4", &program(control));
    let out = p4bpf_in(&dir, &["compile", "prog.p4", "-o", "out"]);
    assert!(!out.status.success(), "{test} compiled");
    stderr(&out)
}

const KNOWN: &str = "action known(bit<16> tag, PortId_t port) { send_to_port(port); }";

#[test]
fn add_entry_gives_one_value_per_entry_parameter() {
    let err = refusal(
        "pna_add_entry_count",
        &format!(
            "{KNOWN}
    action learn() {{ add_entry(\"known\", {{ hdr.ethernet.etherType }}, (ExpireTimeProfileId_t)0); }}
    table flows {{ key = {{ hdr.ethernet.src : exact; }} actions = {{ known; learn; }}
                  default_action = learn; add_on_miss = true; }}
    apply {{ flows.apply(); }}"
        ),
    );
    assert!(
        err.contains("prog.p4:11:")
            && err.contains(
                "action `known` takes 2 parameters from a table entry, and `add_entry` gives 1"
            ),
        "{err}"
    );
}

#[test]
fn add_entry_is_made_by_an_add_on_miss_tables_default_action() {
    // learn() is an action of the table, but not its default action.
    let err = refusal(
        "pna_add_entry_default",
        &format!(
            "{KNOWN}
    action learn() {{ add_entry(\"known\", {{ 16w1, (PortId_t)1 }}, (ExpireTimeProfileId_t)0); }}
    table flows {{ key = {{ hdr.ethernet.src : exact; }} actions = {{ known; learn; }}
                  default_action = known(1, (PortId_t)1); add_on_miss = true; }}
    apply {{ flows.apply(); }}"
        ),
    );
    assert!(
        err.contains("prog.p4:11:")
            && err.contains("`add_entry` may only be called by the default action of a table with `add_on_miss = true`"),
        "{err}"
    );
}

/// P4TC's compiler lets a default action add entries without the table
/// saying `add_on_miss = true`; so does p4bpf for `tc/pna.p4`.
#[test]
fn p4tc_tables_whose_default_action_adds_entries_add_on_miss() {
    let dir = scratch_dir("pna_add_implicit");
    write(
        &dir,
        "prog.p4",
        &program(&format!(
            "{KNOWN}
    action learn() {{ add_entry(\"known\", {{ 16w1, (PortId_t)1 }}, (ExpireTimeProfileId_t)0); }}
    table flows {{ key = {{ hdr.ethernet.src : exact; }} actions = {{ known; learn; }}
                  default_action = learn; }}
    apply {{ flows.apply(); }}"
        )),
    );
    let out = p4bpf_in(&dir, &["compile", "prog.p4", "-o", "out"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let c = std::fs::read_to_string(dir.join("out/prog.c")).unwrap_or_default();
    assert!(
        c.contains("action_C_learn(st, &key, 0)")
            && c.contains("bpf_map_update_elem(&C_flows, missed_key, &entry, BPF_NOEXIST)"),
        "{c}"
    );
}

#[test]
fn add_entry_names_an_action_of_its_table() {
    let err = refusal(
        "pna_add_entry_name",
        &format!(
            "{KNOWN}
    action learn() {{ add_entry(\"elsewhere\", {{ 16w1 }}, (ExpireTimeProfileId_t)0); }}
    table flows {{ key = {{ hdr.ethernet.src : exact; }} actions = {{ known; learn; }}
                  default_action = learn; add_on_miss = true; }}
    apply {{ flows.apply(); }}"
        ),
    );
    assert!(
        err.contains("prog.p4:11:")
            && err.contains(
                "`add_entry` names `elsewhere`, which is not an action of table `C.flows`"
            ),
        "{err}"
    );
}

#[test]
fn add_on_miss_needs_exact_keys() {
    let err = refusal(
        "pna_add_on_miss_lpm",
        &format!(
            "{KNOWN}
    table flows {{ key = {{ hdr.ethernet.src : lpm; }} actions = {{ known; }}
                  add_on_miss = true; }}
    apply {{ flows.apply(); }}"
        ),
    );
    assert!(
        err.contains("prog.p4:11:")
            && err.contains("`add_on_miss` needs a table whose keys are all `exact`"),
        "{err}"
    );
}

#[test]
fn a_mirror_slot_past_the_architectures_is_refused_where_named() {
    let err = refusal(
        "pna_mirror_slot",
        "    apply {
        mirror_packet((MirrorSlotId_t)4, (MirrorSessionId_t)1);
    }",
    );
    assert!(
        err.contains("prog.p4:11:23")
            && err.contains("PNA gives 4 mirror slots, 0 to 3: there is no slot 4"),
        "{err}"
    );
}

#[test]
fn tc_acl_without_data_plane_create_warns_at_add_entry() {
    // P4TC's compiler only warns; the insert never happens (what a miss
    // then does: tests/stf/pna_acl_no_create.stf).
    let dir = scratch_dir("pna_acl_data");
    write(
        &dir,
        "prog.p4",
        &program(&format!(
            "{KNOWN}
    action learn() {{ add_entry(\"known\", {{ 16w1, (PortId_t)1 }}, (ExpireTimeProfileId_t)0); }}
    @tc_acl(\"CRUDPS:RX\") table flows {{ key = {{ hdr.ethernet.src : exact; }}
                  actions = {{ known; learn; }} default_action = learn; add_on_miss = true; }}
    apply {{ flows.apply(); }}"
        )),
    );
    let out = p4bpf_in(&dir, &["compile", "prog.p4", "-o", "out"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("prog.p4:11:")
            && err.contains("warning")
            && err.contains("table `C.flows` does not let the data plane create entries: its @tc_acl(\"CRUDPS:RX\") has no `C` after the colon, so this `add_entry` never inserts"),
        "{err}"
    );
}

#[test]
fn tc_acl_letters_are_checked() {
    let err = refusal(
        "pna_acl_letters",
        &format!(
            "{KNOWN}
    @tc_acl(\"CRUQ:RX\") table flows {{ key = {{ hdr.ethernet.src : exact; }} actions = {{ known; }} }}
    apply {{ flows.apply(); }}"
        ),
    );
    assert!(
        err.contains("prog.p4:11:5") && err.contains("`@tc_acl` takes a string"),
        "{err}"
    );
}

#[test]
fn tc_acl_without_control_plane_create_refuses_table_add() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED tc_acl_without_control_plane_create_refuses_table_add: {why}");
        return;
    }
    let dir = scratch_dir("pna_acl_control");
    write(
        &dir,
        "prog.p4",
        &program(&format!(
            "{KNOWN}
    @tc_acl(\"RUS:RX\") table flows {{ key = {{ hdr.ethernet.src : exact; }} actions = {{ known; }} }}
    apply {{ flows.apply(); }}"
        )),
    );
    let name = format!("pnaacl{}", std::process::id());
    let load = p4bpf_in(&dir, &["pipeline", "load", "prog.p4", "--name", &name]);
    assert!(load.status.success(), "{}", stderr(&load));
    let add = p4bpf_in(
        &dir,
        &[
            "table",
            "add",
            &name,
            "C.flows",
            "hdr.ethernet.src=1",
            "C.known",
            "tag=1",
            "port=2",
        ],
    );
    let dump = p4bpf_in(&dir, &["table", "dump", &name, "C.flows"]);
    let _ = p4bpf_in(&dir, &["pipeline", "unload", &name]);
    assert_eq!(add.status.code(), Some(1), "{}", stderr(&add));
    assert!(
        stderr(&add).contains("table `C.flows` does not let the control plane create entries in it: its @tc_acl(\"RUS:RX\") has no `C` before the colon"),
        "{}",
        stderr(&add)
    );
    assert!(
        dump.status.success(),
        "reading is allowed: {}",
        stderr(&dump)
    );
}

#[test]
fn tc_type_names_a_p4tc_type() {
    let err = refusal(
        "pna_tc_type",
        &format!(
            "{KNOWN}
    table flows {{ key = {{ hdr.ethernet.src : exact @tc_type(\"mac\"); }} actions = {{ known; }} }}
    apply {{ flows.apply(); }}"
        ),
    );
    assert!(
        err.contains("prog.p4:11:")
            && err.contains("`@tc_type(\"mac\")` is not a P4TC type (one of dev, macaddr, ipv4, ipv6, be16, be32, be64)"),
        "{err}"
    );
}

/// A table `t` of two actions `a` and `b`, annotated as the test says.
fn annotated_table(table_annotation: &str, a: &str, b: &str) -> String {
    format!(
        "action a() {{ }}
    action b() {{ }}
    {table_annotation} table t {{ key = {{ hdr.ethernet.src : ternary; }}
        actions = {{ {a} a; {b} b; }} default_action = b; }}
    apply {{ t.apply(); }}"
    )
}

#[test]
fn p4tc_hit_defaults_name_one_action_neither_tableonly_nor_both() {
    let cases = [
        (
            "",
            "@default_hit",
            "@default_hit",
            "has one `@default_hit` action: `a` and `b` both claim it",
        ),
        (
            "",
            "@default_hit_const",
            "@default_hit_const",
            "has one `@default_hit_const` action",
        ),
        (
            "",
            "@default_hit",
            "@default_hit_const",
            "cannot have both a `@default_hit` action (`a`)",
        ),
        (
            "",
            "@default_hit @default_hit_const",
            "",
            "action `a` cannot be annotated with both",
        ),
        (
            "",
            "@tableonly @default_hit_const",
            "",
            "`@tableonly` and a hit default",
        ),
        (
            "",
            "@defaultonly @tableonly",
            "",
            "`@tableonly` and `@defaultonly`",
        ),
        (
            "@nummask(\"many\")",
            "",
            "",
            "`@nummask` takes an integer constant",
        ),
    ];
    for (i, (table, a, b, wanted)) in cases.into_iter().enumerate() {
        let err = refusal(&format!("pna_tc_rules_{i}"), &annotated_table(table, a, b));
        assert!(
            err.contains("prog.p4:") && err.contains(wanted),
            "{a} {b}: {err}"
        );
    }
}

#[test]
fn p4tc_annotations_used_as_p4tc_means_them_compile() {
    let dir = scratch_dir("pna_tc_rules_ok");
    let control = "action a() { }
    action b() { }
    action c() { }
    @nummask(8) table t { key = { hdr.ethernet.src : ternary; }
        actions = { @default_hit a; @tableonly b; @defaultonly c; } default_action = c; }
    @nummask(4) table u { key = { hdr.ethernet.dst : ternary; }
        actions = { @default_hit_const a; b; } default_action = b; }
    apply { t.apply(); u.apply(); }";
    write(&dir, "prog.p4", &program(control));
    let out = p4bpf_in(&dir, &["compile", "prog.p4", "-o", "out"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn p4tc_internet_checksum_lives_in_parsers_and_deparsers() {
    let err = refusal(
        "pna_tc_checksum_control",
        "InternetChecksum() ck;
    apply { ck.clear(); ck.add({ hdr.ethernet.etherType }); }",
    );
    assert!(
        err.contains("prog.p4:10:1")
            && err.contains("P4TC computes an `InternetChecksum` in a parser or the deparser"),
        "{err}"
    );
}

#[test]
fn direct_counter_lengths_are_constants_known_at_the_hit() {
    let stf_program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/stf/pna_direct_lengths.p4");
    let text = std::fs::read_to_string(stf_program).expect("the STF program is readable");
    let counted = "volume.count(1000)";
    assert!(text.contains(counted));
    let dir = scratch_dir("pna_direct_length");
    write(
        &dir,
        "prog.p4",
        &text.replace(counted, "volume.count((bit<32>)hdr.ethernet.etherType)"),
    );
    let out = p4bpf_in(&dir, &["compile", "prog.p4", "-o", "out"]);
    let err = stderr(&out);
    assert!(
        !out.status.success()
            && err.contains(
                "prog.p4:58:22: error: a direct extern's `count` takes a constant length"
            ),
        "{err}"
    );
}

#[test]
fn idle_entries_are_deleted_by_the_lookup_in_exact_tables_only() {
    let err = refusal(
        "pna_idle_ternary",
        &format!(
            "{KNOWN}
    table flows {{ key = {{ hdr.ethernet.src : ternary; }} actions = {{ known; }}
                  idle_timeout_with_auto_delete = true; }}
    apply {{ flows.apply(); }}"
        ),
    );
    assert!(
        err.contains("prog.p4:11:5")
            && err.contains("idle entries are deleted by the lookup only in tables of exact keys"),
        "{err}"
    );
}

#[test]
fn direct_meter_colours_are_known_at_the_hit() {
    let stf_program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/stf/pna_direct_lengths.p4");
    let text = std::fs::read_to_string(stf_program).expect("the STF program is readable");
    let (action, call) = (
        "action policed_by_tag(PortId_t port) {",
        "dpdk_execute(colour_in,",
    );
    assert!(text.contains(action) && text.contains(call));
    let dir = scratch_dir("pna_direct_colour");
    let text = text
        .replace(
            action,
            "action policed_by_tag(PortId_t port, PNA_MeterColor_t c) {",
        )
        .replace(call, "dpdk_execute(c,");
    write(&dir, "prog.p4", &text);
    let out = p4bpf_in(&dir, &["compile", "prog.p4", "-o", "out"]);
    let err = stderr(&out);
    assert!(
        !out.status.success()
            && err.contains("prog.p4:70:42: error: a direct meter's colour-aware `dpdk_execute` takes a colour known when the table hits"),
        "{err}"
    );
}

#[test]
fn a_digest_of_a_bit_string_is_a_bitstring_in_p4info() {
    let dir = scratch_dir("pna_scalar_digest_p4info");
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/digest/pna_scalar_digests.p4");
    let out = p4bpf_in(&dir, &["compile", &program.to_string_lossy(), "-o", "out"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let p4info = std::fs::read_to_string(dir.join("out/pna_scalar_digests.p4info.txtpb"))
        .expect("the P4Info was written");
    let pair = p4info
        .split("digests {")
        .find(|d| d.contains("name: \"D.pair\""))
        .expect("digest D.pair in the P4Info");
    assert!(
        pair.contains("bitstring {") && pair.contains("bitwidth: 96") && !pair.contains("struct {"),
        "{pair}"
    );
}

fn skb_program() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pna_skb/pna_skb_meta.p4")
}

#[test]
fn skb_metadata_is_written_and_read_back_at_tc_on_kernel_and_user() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED skb metadata: {why}");
        return;
    }
    let program = skb_program();
    let script = program.with_extension("stf");
    let (p, s) = (program.to_string_lossy(), script.to_string_lossy());
    for target in ["kernel", "user"] {
        let out = common::p4bpf(&["test", &p, &s, "--target", target, "--hook", "tc"]);
        let text = format!("{}{}", common::stdout(&out), stderr(&out));
        assert!(
            out.status.success() && text.contains("PASS: 2 packets"),
            "{target}:\n{text}"
        );
    }
}

#[test]
fn skb_metadata_is_refused_at_xdp_where_first_used() {
    let dir = scratch_dir("pna_skb_xdp");
    let program = skb_program();
    let out = p4bpf_in(
        &dir,
        &[
            "compile",
            &program.to_string_lossy(),
            "--hook",
            "xdp",
            "-o",
            "out",
        ],
    );
    let err = stderr(&out);
    assert!(!out.status.success(), "compiled at XDP");
    assert!(
        err.contains("pna_skb_meta.p4:16:9")
            && err.contains("which XDP runs before: compile with --hook tc"),
        "{err}"
    );
}

#[test]
fn skb_protocol_cannot_be_set() {
    let err = refusal(
        "pna_skb_protocol",
        "    apply { skb_set_protocol(16w0x86dd); }",
    );
    assert!(
        err.contains("prog.p4:10:13")
            && err.contains("the kernel lets no TC program write `skb->protocol`"),
        "{err}"
    );
}

#[test]
fn an_ipsec_accelerator_is_warned_of_where_declared() {
    let dir = scratch_dir("pna_ipsec_warning");
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/stf/pna_ipsec.p4");
    let out = p4bpf_in(&dir, &["compile", &program.to_string_lossy(), "-o", "out"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("pna_ipsec.p4:22:1: warning")
            && err.contains("p4bpf has no IPsec accelerator: `from_ipsec` is always false"),
        "{err}"
    );
}

#[test]
fn idle_sets_profiles_and_sweeps_a_loaded_pipeline() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED p4bpf idle: {why}");
        return;
    }
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/stf/pna_idle_sweep.p4");
    let name = format!("pna4idle{}", std::process::id());
    let loaded = common::p4bpf(&[
        "pipeline",
        "load",
        &program.to_string_lossy(),
        "--name",
        &name,
        "--hook",
        "tc",
    ]);
    assert!(loaded.status.success(), "{}", stderr(&loaded));
    let set = common::p4bpf(&["idle", "profile", &name, "0", "1000"]);
    let wide = common::p4bpf(&["idle", "profile", &name, "256", "1"]);
    let add = common::p4bpf(&[
        "table",
        "add",
        &name,
        "MainControl.reported",
        "hdr.ethernet.dst=1",
        "to",
        "port=1",
    ]);
    let sweep = common::p4bpf(&["idle", "sweep", &name]);
    let unloaded = common::p4bpf(&["pipeline", "unload", &name]);
    assert!(set.status.success(), "{}", stderr(&set));
    assert!(
        !wide.status.success()
            && stderr(&wide).contains("expire-time profile 256 is out of range (0 to 255)"),
        "{}",
        stderr(&wide)
    );
    assert!(add.status.success(), "{}", stderr(&add));
    // The entry was never hit: its timer has not started, so it is not idle.
    assert!(
        sweep.status.success() && common::stdout(&sweep).is_empty(),
        "{}",
        stderr(&sweep)
    );
    assert!(unloaded.status.success(), "{}", stderr(&unloaded));
}

/// P4TC's reading of STF, the default for `tc/pna.p4` programs: a packet
/// sent on a port other than 0 runs nothing (P4TC's harness attaches the
/// program to port 0 alone); the reference reading runs it, and its copy
/// leaves on port 0, where the script expects nothing.
#[test]
fn p4tc_programs_scripts_run_on_port_0_alone_unless_read_as_the_reference() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED P4TC STF reading: {why}");
        return;
    }
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pna_reading/port_swap.p4");
    let script = program.with_extension("stf");
    let (p, s) = (program.to_string_lossy(), script.to_string_lossy());
    for target in ["kernel", "user"] {
        let run = |reading: &[&str]| {
            let mut args = vec!["test", &p, &s, "--target", target, "--hook", "tc"];
            args.extend_from_slice(reading);
            let out = common::p4bpf(&args);
            let text = format!("{}{}", common::stdout(&out), stderr(&out));
            (out.status.success(), text)
        };
        for reading in [&[][..], &["--stf-reading", "p4tc"]] {
            let (ok, text) = run(reading);
            assert!(
                ok && text.contains("PASS: 1 packets")
                    && text.contains("in port 1: not run")
                    && text.contains("to port 1: ok"),
                "{target} {reading:?}:\n{text}"
            );
        }
        let (ok, text) = run(&["--stf-reading", "reference"]);
        assert!(
            !ok && text.contains("FAIL, no packet was expected on port 0"),
            "{target} reference:\n{text}"
        );
    }
}
