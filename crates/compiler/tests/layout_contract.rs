//! The pipeline description the runtime relies on: key and value byte
//! layouts, action codes, maps, and the deparser plan chosen from def-use.

#![allow(clippy::panic)] // a failing test should stop loudly

use p4bpf_compiler::{generate, Generated, Hook};
use p4bpf_layout::{ByteOrder, MatchKind, TableStorage};
use std::path::Path;

fn compile(body: &str, model: &str) -> Generated {
    let text = format!("#include <core.p4>\n#include <{model}>\n{body}");
    let fe = p4bpf_front::check_source(Path::new("t.p4"), &text, &Default::default());
    assert!(!fe.has_errors(), "front end rejected the test program");
    match generate(&fe, "t", Hook::Xdp, None) {
        Ok(g) => g,
        Err(d) => panic!(
            "{:?}",
            d.list.iter().map(|d| d.message.clone()).collect::<Vec<_>>()
        ),
    }
}

const HEADERS: &str =
    "header h_t { bit<8> proto; bit<16> port; bit<32> addr; }\nstruct hs { h_t h; }\n";
const PARSER: &str = "parser prs(packet_in p, out hs hdr) { state start { p.extract(hdr.h); transition accept; } }\n";

#[test]
fn lpm_keys_put_exact_fields_first_in_network_order_but_list_in_p4_order() {
    let body = format!(
        "{HEADERS}{PARSER}control f(inout hs hdr, out bool pass) {{
            action set(bit<64> cookie, bit<8> tag) {{ pass = cookie == 0 && tag == 0; }}
            table t {{ key = {{ hdr.h.addr : lpm; hdr.h.port : exact; }} actions = {{ set; NoAction; }} }}
            apply {{ pass = true; t.apply(); }}
        }}\nebpfFilter(prs(), f()) main;\n"
    );
    let g = compile(&body, "ebpf_model.p4");
    let t = g.pipeline.table("f.t").expect("table f.t described");
    assert_eq!(t.storage, TableStorage::LpmTrie);
    let keys: Vec<_> = t
        .keys
        .iter()
        .map(|k| {
            (
                k.field.name.as_str(),
                k.match_kind,
                k.field.byte_offset,
                k.field.byte_len,
                k.field.byte_order,
            )
        })
        .collect();
    assert_eq!(
        keys,
        vec![
            ("hdr.h.addr", MatchKind::Lpm, 2, 4, ByteOrder::Network),
            ("hdr.h.port", MatchKind::Exact, 0, 2, ByteOrder::Network)
        ]
    );
    assert_eq!(t.key_size, 6);
    // Codes from 1 in `actions` order; parameters after the u32 code, a u64 aligned to 8.
    let set = &t.actions[0];
    assert_eq!((set.name.as_str(), set.code), ("f.set", 1));
    let params: Vec<_> = set
        .params
        .iter()
        .map(|p| (p.name.as_str(), p.byte_offset, p.byte_len))
        .collect();
    assert_eq!(params, vec![("cookie", 8, 8), ("tag", 16, 1)]);
    assert_eq!(t.value_size, 24);
    assert_eq!(t.default_map.as_deref(), Some("t_defaults"));
    assert_eq!(t.default_slot, 0);
    assert!(g
        .c
        .contains("_Static_assert(sizeof(struct f_t_value) == 24"));
}

#[test]
fn const_entry_tables_are_code_and_not_described() {
    let body = format!(
        "{HEADERS}{PARSER}control f(inout hs hdr, out bool pass) {{
            action ok(bool v) {{ pass = v; }}
            table t {{ key = {{ hdr.h.proto : exact; }} actions = {{ ok; }} const entries = {{ 6 : ok(true); }} const default_action = ok(false); }}
            apply {{ t.apply(); }}
        }}\nebpfFilter(prs(), f()) main;\n"
    );
    let g = compile(&body, "ebpf_model.p4");
    assert!(g.pipeline.tables.is_empty());
    assert!(g.c.contains("st->headers.h.proto == 6U"));
}

fn xdp_program(control_body: &str) -> String {
    format!(
        "{HEADERS}{PARSER}control s(inout hs hdr, in xdp_input i, out xdp_output o) {{
            apply {{ o.output_action = xdp_action.XDP_PASS; o.output_port = 0; {control_body} }}
        }}
        control d(in hs hdr, packet_out p) {{ apply {{ p.emit(hdr.h); }} }}
        xdp(prs(), s(), d()) main;\n"
    )
}

#[test]
fn assigned_fields_are_written_in_place_when_headers_keep_their_places() {
    let g = compile(&xdp_program("hdr.h.port = 7;"), "xdp_model.p4");
    assert!(g.c.contains("headers keep their places"));
    assert!(g
        .c
        .contains("*(u16 *)(hdr_at + 1) = bpf_htons(st->headers.h.port)"));
    assert!(
        !g.c.contains("hdr_at + 3) = ") && !g.c.contains("hdr_start + 3) = "),
        "an unassigned field was written back"
    );
    assert!(
        !g.c.contains("hdr_start + 1) = "),
        "a field written where it is assigned was written again by the deparser"
    );
    assert_eq!(g.pipeline.output_record.as_deref(), Some("t_output_port"));
}

#[test]
fn deparser_resizes_when_validity_changes() {
    let g = compile(&xdp_program("hdr.h.setInvalid();"), "xdp_model.p4");
    assert!(g.c.contains("unless a control pushed or popped one"));
    assert!(g.c.contains("bpf_xdp_adjust_head(ctx, delta)"));
}

#[test]
fn name_annotations_give_control_plane_names() {
    let body = format!(
        "{HEADERS}{PARSER}control f(inout hs hdr, out bool pass) {{
            @name(\"deny\") action d() {{ pass = false; }}
            @name(\".acl\") table t {{ key = {{ hdr.h.proto : exact @name(\"proto\"); }} actions = {{ d; NoAction; }} }}
            apply {{ pass = true; t.apply(); }}
        }}\nebpfFilter(prs(), f()) main;\n"
    );
    let g = compile(&body, "ebpf_model.p4");
    let t = g.pipeline.table("acl").expect("absolute @name");
    assert_eq!(t.keys[0].field.name, "proto");
    assert_eq!(t.actions[0].name, "f.deny");
    assert!(g.p4info.contains("name: \"acl\"") && g.p4info.contains("name: \"f.deny\""));
}
