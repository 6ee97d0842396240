//! Output ports of architectures that send packets to ports (xdp_model,
//! ubpf_model): P4 port numbers map to interfaces
//! through the map `<prog>_ports` (key: u32 P4 port, value: u32 ifindex),
//! which `p4bpf port add` and the test targets fill; its kind and the
//! redirect through it are target primitives ([`crate::target`]). Either
//! way a port with no interface drops the packet.
//!
//! The program reads the ingress ports map, and at TC the ports map, through
//! their port slots first ([`p4bpf_layout::port_slots`]): an array read
//! instead of a hash lookup per direction for every port `p4bpf port add`
//! mapped. The read returns a scalar on every path, so the verifier's walk
//! does not fork on it (branching on a map pointer instead made bng.p4
//! exceed the verifier's instruction limit).

use super::c::CStmt;
use super::Emitter;
use crate::ir::Program;
use p4bpf_layout::port_slots::{port_slots_of, PORT_SLOTS};
use p4bpf_layout::Hook;

/// How many ports one pipeline can map (any u32 port number may be one).
pub const PORT_MAP_SIZE: u32 = 512;

/// The slot struct and the slot array in front of hash map `map`.
fn port_slots_definition(map: &str, with_struct: bool) -> String {
    let slot_struct = match with_struct {
        true => {
            "/* One key of a port map and its value (used: 0 is an empty slot). */\n\
                 struct p4bpf_port_slot {\n    u32 key;\n    u32 value;\n    u32 used;\n};\n\n"
        }
        false => "",
    };
    let slots = port_slots_of(map);
    format!(
        "{slot_struct}/* `{map}` by slot (key & {mask}): an array read instead of a hash lookup;\n * a key whose slot holds another is found in `{map}` itself. */\n\
         struct {{\n    __uint(type, BPF_MAP_TYPE_ARRAY);\n    __type(key, u32);\n    __type(value, struct p4bpf_port_slot);\n    __uint(max_entries, {PORT_SLOTS});\n}} {slots} SEC(\".maps\");\n\n",
        mask = PORT_SLOTS - 1
    )
}

/// C statements returning `key`'s value from `map`'s slots, if its slot
/// holds it, else declaring `{found}` as the hash map's value pointer.
fn slot_then_hash_lookup(map: &str, key: &str, found: &str) -> String {
    let slots = port_slots_of(map);
    format!(
        "    u32 lookup_key = {key} & {mask} /* one stack slot for both keys: the stack is 512 bytes */;\n    \
         struct p4bpf_port_slot *slot = bpf_map_lookup_elem(&{slots}, &lookup_key);\n    \
         if (slot && slot->used && slot->key == {key})\n        return slot->value;\n    \
         lookup_key = {key};\n    \
         u32 *{found} = bpf_map_lookup_elem(&{map}, &lookup_key);\n",
        mask = PORT_SLOTS - 1
    )
}

/// The name of the ports map (the description's `port_map`), if the
/// program can redirect.
pub fn port_map(prog: &Program) -> Option<String> {
    prog.intrinsics
        .sends_to_ports()
        .then(|| format!("{}_ports", super::c_identifier(&prog.name)))
}

/// The name of the ingress ports map (interface index to P4 port, filled
/// by `p4bpf port add`; the description's `ingress_port_map`), if the
/// program reads its ingress port.
pub fn ingress_port_map(prog: &Program) -> Option<String> {
    prog.intrinsics
        .ingress_port
        .is_some()
        .then(|| format!("{}_in_ports", super::c_identifier(&prog.name)))
}

impl Emitter<'_> {
    /// The ingress ports map and `p4bpf_input_port`, if the program reads
    /// its ingress port.
    pub fn ingress_port_definitions(&self) -> String {
        let Some(name) = ingress_port_map(self.prog) else {
            return String::new();
        };
        let noted = match &self.output_record {
            Some(record) => format!(
                "    if ({flag}) {{\n        u32 one = 1;\n        u32 *noted = bpf_map_lookup_elem(&{record}, &one);\n        if (noted && *noted)\n            return *noted - 1;\n    }}\n",
                flag = super::NOTES_FLAG
            ),
            None => String::new(),
        };
        let slots = port_slots_definition(&name, true);
        let lookup = slot_then_hash_lookup(&name, "ifindex", "port");
        format!(
            "/* Interface index -> P4 port; filled by `p4bpf port add`. */\n\
             struct {{\n    __uint(type, BPF_MAP_TYPE_HASH);\n    __type(key, u32);\n    __type(value, u32);\n    __uint(max_entries, {PORT_MAP_SIZE});\n}} {name} SEC(\".maps\");\n\n{slots}\
             /* The P4 port a packet came in on: the one a test harness noted (output\n * record [1], port + 1), else the interface's P4 port, else its index. */\n\
             static __always_inline u32 p4bpf_input_port(u32 ifindex)\n{{\n{noted}{lookup}    \
             return port ? *port : ifindex;\n}}\n\n"
        )
    }

    /// The ports map's definition, if the program has one.
    pub fn port_map_definition(&self) -> String {
        let Some(name) = port_map(self.prog) else {
            return String::new();
        };
        let (kind, why) = self.target.port_map_kind();
        format!(
            "/* P4 output port -> ifindex ({why}); filled by `p4bpf port add`. */\n\
             struct {{\n    __uint(type, {kind});\n    __type(key, u32);\n    __type(value, u32);\n    __uint(max_entries, {PORT_MAP_SIZE});\n}} {name} SEC(\".maps\");\n\n{}",
            self.output_ifindex_definition(&name)
        )
    }

    /// At TC, `p4bpf_output_ifindex`: the interface P4 port `port` leaves
    /// by, 0 for none (XDP redirects through its devmap instead).
    fn output_ifindex_definition(&self, map: &str) -> String {
        if self.hook == Hook::Xdp {
            return String::new();
        }
        let with_struct = ingress_port_map(self.prog).is_none();
        let slots = port_slots_definition(map, with_struct);
        let lookup = slot_then_hash_lookup(map, "port", "ifindex");
        format!(
            "{slots}/* The interface P4 port `port` leaves by (0: none). */\n\
             static __always_inline u32 p4bpf_output_ifindex(u32 port)\n{{\n{lookup}    \
             return ifindex ? *ifindex : 0;\n}}\n\n"
        )
    }

    /// Statements that send the packet out of P4 port `port` (a C
    /// expression), dropping it when the port has no interface or, for a
    /// program that may grow it, when it outgrew the port (`emit/mtu.rs`).
    pub fn redirect_to_port(&self, port: &str) -> Vec<CStmt> {
        let name = port_map(self.prog).unwrap_or_default();
        self.target.redirect(&name, port, self.mtu_checked)
    }
}

#[cfg(test)]
mod tests {
    use crate::{generate, generate_built, BuildOptions, Hook};
    use std::path::Path;

    const REDIRECTS: &str = "
#include <xdp_model.p4>
header h_t { bit<32> port; }
struct hs { h_t h; }
parser prs(packet_in p, out hs hdr) { state start { p.extract(hdr.h); transition accept; } }
control sw(inout hs hdr, in xdp_input imd, out xdp_output omd) {
    apply { omd.output_port = hdr.h.port; omd.output_action = xdp_action.XDP_REDIRECT; }
}
control dprs(in hs hdr, packet_out p) { apply { p.emit(hdr.h); } }
xdp(prs(), sw(), dprs()) main;
";

    fn generated(source: &str, hook: Hook) -> (String, Option<String>) {
        let fe = p4bpf_front::check_source(Path::new("t.p4"), source, &Default::default());
        assert!(!fe.has_errors(), "{:?}", fe.diagnostics);
        generate(&fe, "t", hook, None)
            .map(|g| (g.c, g.pipeline.port_map))
            .unwrap_or_default()
    }

    #[test]
    fn xdp_redirects_through_a_devmap_that_drops_unknown_ports() {
        let (c, port_map) = generated(REDIRECTS, Hook::Xdp);
        assert_eq!(port_map.as_deref(), Some("t_ports"));
        assert!(c.contains("BPF_MAP_TYPE_DEVMAP_HASH"));
        assert!(c.contains("bpf_redirect_map(&t_ports, st->omd.output_port, XDP_DROP)"));
        assert!(c.contains("p4bpf_note_port(st->omd.output_port)"));
    }

    #[test]
    fn tc_looks_the_port_up_and_shoots_unknown_ones() {
        let (c, port_map) = generated(REDIRECTS, Hook::Tc);
        assert_eq!(port_map.as_deref(), Some("t_ports"));
        assert!(!c.contains("DEVMAP"));
        assert!(c.contains("u32 out_ifindex = p4bpf_output_ifindex(st->omd.output_port)"));
        assert!(c.contains("bpf_map_lookup_elem(&t_ports_slots, &lookup_key)"));
        assert!(c.contains("bpf_map_lookup_elem(&t_ports, &lookup_key)"));
        assert!(c.contains("out_ifindex ? bpf_redirect(out_ifindex, 0) : TC_ACT_SHOT"));
    }

    /// A build to deploy or time has no port notes at all: no record, no
    /// flag, no call, no read of a noted input port.
    #[test]
    fn a_build_without_port_notes_has_no_trace_of_them() {
        let fe = p4bpf_front::check_source(Path::new("t.p4"), REDIRECTS, &Default::default());
        let build = BuildOptions {
            port_notes: false,
            ..BuildOptions::default()
        };
        for hook in [Hook::Xdp, Hook::Tc] {
            let g = generate_built(&fe, "t", hook, None, build);
            assert!(g.is_ok(), "{hook:?}: the program compiles");
            let Ok(g) = g else { return };
            assert_eq!(g.pipeline.output_record, None, "{hook:?}");
            for noted in ["p4bpf_note_port", "p4bpf_notes_ports", "t_output_port"] {
                assert!(!g.c.contains(noted), "{hook:?}: {noted} in\n{}", g.c);
            }
            assert!(g.c.contains("p4bpf_output_ifindex") || hook == Hook::Xdp);
        }
    }
}
