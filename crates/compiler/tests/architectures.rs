//! The architecture layer from the outside: each package maps its blocks,
//! metadata and externs as its module says; an unknown package gets a
//! diagnostic naming the known ones.

use p4bpf_compiler::{generate, Hook};
use std::path::Path;

/// The generated C for `text`, or the first error message.
fn compile(text: &str, hook: Hook) -> Result<String, String> {
    let fe = p4bpf_front::check_source(Path::new("test.p4"), text, &Default::default());
    assert!(
        !fe.has_errors(),
        "front end: {:?}",
        fe.diagnostics.list.first().map(|d| d.message.clone())
    );
    generate(&fe, "test", hook, None).map(|g| g.c).map_err(|d| {
        d.list
            .first()
            .map(|x| x.message.clone())
            .unwrap_or_default()
    })
}

const UBPF_TYPES: &str = "#include <core.p4>\n#include <ubpf_model.p4>\n\
    header h_t { bit<32> a; bit<32> b; }\nstruct hs { h_t h; }\nstruct m_t { bit<32> x; }\n\
    parser prs(packet_in p, out hs hdr, inout m_t m, inout standard_metadata std) { state start { p.extract(hdr.h); transition accept; } }\n\
    control dprs(packet_out p, in hs hdr) { apply { p.emit(hdr.h); } }\n";

fn ubpf(pipe_body: &str) -> String {
    format!("{UBPF_TYPES}control pipe(inout hs hdr, inout m_t m, inout standard_metadata std) {{ {pipe_body} }}\nubpf(prs(), pipe(), dprs()) main;\n")
}

#[test]
fn ubpf_metadata_are_set_and_read_by_meaning() {
    for hook in [Hook::Xdp, Hook::Tc] {
        let c = compile(
            &ubpf("apply { if (std.input_port == 2) { mark_to_drop(); } }"),
            hook,
        )
        .unwrap_or_else(|e| e);
        let (ifindex, drop) = match hook {
            Hook::Xdp => ("ctx->ingress_ifindex", "XDP_DROP"),
            Hook::Tc => ("skb->ingress_ifindex", "TC_ACT_SHOT"),
        };
        assert!(
            c.contains(&format!("st->std.input_port = p4bpf_input_port({ifindex})")),
            "{c}"
        );
        assert!(c.contains("st->std.packet_length = "), "{c}");
        // PASS (2) until the program says otherwise; mark_to_drop stores DROP (1).
        assert!(c.contains("st->std.output_action = 2U"), "{c}");
        assert!(c.contains("st->std.output_action = 1U"), "{c}");
        assert!(c.contains("switch (st->std.output_action)"), "{c}");
        assert!(
            c.contains(&format!("case 1:\n    {{\n        return {drop};")),
            "{c}"
        );
    }
}

#[test]
fn the_ingress_port_is_looked_up_only_when_read() {
    let c = compile(&ubpf("apply { mark_to_drop(); }"), Hook::Xdp).unwrap_or_else(|e| e);
    assert!(c.contains("} test_in_ports SEC"), "{c}");
    assert!(!c.contains("= p4bpf_input_port("), "{c}");
}

#[test]
fn registers_are_array_maps_read_and_written_through_functions() {
    let c = compile(
        &ubpf("Register<bit<16>, bit<32>>(8) r;\n apply { m.x = (bit<32>)r.read(hdr.h.a); r.write(hdr.h.b, 16w7); }"),
        Hook::Xdp,
    )
    .unwrap_or_else(|e| e);
    assert!(c.contains("__uint(type, BPF_MAP_TYPE_ARRAY);\n    __type(key, u32);\n    __type(value, u16);\n    __uint(max_entries, 8);\n} pipe_r SEC"), "{c}");
    assert!(
        c.contains("static __always_inline u16 p4bpf_read_pipe_r(u64 index)"),
        "{c}"
    );
    assert!(c.contains("p4bpf_write_pipe_r(st->headers.h.b, 7U)"), "{c}");
}

#[test]
fn registers_are_in_the_p4info_with_their_width_and_size() {
    let text = ubpf("Register<bit<16>, bit<32>>(8) r;\n apply { r.write(hdr.h.b, 16w7); }");
    let fe = p4bpf_front::check_source(Path::new("test.p4"), &text, &Default::default());
    let p4info = generate(&fe, "test", Hook::Xdp, None)
        .map(|g| g.p4info)
        .unwrap_or_default();
    let register = p4info.split("registers {").nth(1).unwrap_or_default();
    assert!(register.contains("name: \"pipe.r\""), "{p4info}");
    assert!(register.contains("bitwidth: 16"), "{p4info}");
    assert!(register.contains("size: 8"), "{p4info}");
    let id = register
        .split("id: ")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .and_then(|t| t.parse::<u32>().ok())
        .unwrap_or(0);
    // P4Runtime's `P4Ids.Prefix`: REGISTER is 0x16 (0x13 is DIRECT_COUNTER).
    assert_eq!(id >> 24, 0x16, "{p4info}");
}

#[test]
fn the_p4info_lists_used_actions_with_their_control_plane_params() {
    let text = ubpf(
        "action unused() {}\n action set(inout bit<32> x, bit<32> v) { x = v; }\n \
         action fwd(bit<32> port) { m.x = port; }\n \
         action inner() { m.x = 1; }\n action outer() { inner(); }\n \
         table t { key = { hdr.h.a: exact; } actions = { fwd; outer; NoAction; } default_action = NoAction; }\n \
         apply { t.apply(); set(m.x, 32w5); }",
    );
    let fe = p4bpf_front::check_source(Path::new("test.p4"), &text, &Default::default());
    let p4info = generate(&fe, "test", Hook::Xdp, None)
        .map(|g| g.p4info)
        .unwrap_or_default();
    let action = |name: &str| {
        p4info
            .split("actions {")
            .find(|a| a.contains(&format!("name: \"{name}\"")))
            .map(str::to_string)
    };
    assert!(action("pipe.unused").is_none(), "{p4info}");
    // Called only from an action: p4c inlines it and does not list it.
    assert!(action("pipe.inner").is_none(), "{p4info}");
    assert!(action("pipe.outer").is_some(), "{p4info}");
    assert!(
        action("pipe.fwd").is_some_and(|a| a.contains("name: \"port\"")),
        "{p4info}"
    );
    assert!(action("NoAction").is_some(), "{p4info}");
    // The caller binds `x`: only `v` comes from the control plane, as param 1.
    let set = action("pipe.set").unwrap_or_default();
    assert!(set.contains("id: 1\n    name: \"v\""), "{p4info}");
    assert!(!set.contains("name: \"x\""), "{p4info}");
}

#[test]
fn truncate_cuts_after_the_pipeline_at_both_hooks() {
    for (hook, cut) in [
        (
            Hook::Xdp,
            "bpf_xdp_adjust_tail(ctx, (int)st->truncate_to - (int)(pkt_end - pkt))",
        ),
        (Hook::Tc, "bpf_skb_change_tail(skb, st->truncate_to, 0)"),
    ] {
        let c = compile(&ubpf("apply { truncate(hdr.h.a); }"), hook).unwrap_or_else(|e| e);
        // No cut unless the program asks: all ones first.
        assert!(c.contains("st->truncate_to = 0xffffffffU"), "{c}");
        assert!(c.contains("st->truncate_to = st->headers.h.a"), "{c}");
        let cut_at = c.find(cut).unwrap_or(usize::MAX);
        let verdict_at = c.find("switch (st->std.output_action)").unwrap_or(0);
        assert!(cut_at < verdict_at, "{c}");
    }
}

#[test]
fn an_unknown_package_lists_the_known_ones() {
    let text = "#include <core.p4>\nparser P(packet_in p); package Pkg(P p);\nparser prs(packet_in p) { state start { transition accept; } }\nPkg(prs()) main;\n";
    let e = compile(text, Hook::Xdp).err().unwrap_or_default();
    assert!(e.contains("package `Pkg` is not supported"), "{e}");
    for known in ["`ebpfFilter`", "`xdp`", "`ubpf`"] {
        assert!(e.contains(known), "{e}");
    }
}
