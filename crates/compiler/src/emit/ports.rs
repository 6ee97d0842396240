//! Output ports of architectures that send packets to ports (xdp_model,
//! ubpf_model): P4 port numbers map to interfaces
//! through the map `<prog>_ports` (key: u32 P4 port, value: u32 ifindex),
//! which `p4bpf port add` and the test targets fill; its kind and the
//! redirect through it are target primitives ([`crate::target`]). Either
//! way a port with no interface drops the packet.

use super::c::CStmt;
use super::Emitter;
use crate::ir::Program;

/// How many ports one pipeline can map (any u32 port number may be one).
pub const PORT_MAP_SIZE: u32 = 512;

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
        let noted = match super::output_record(self.prog) {
            Some(record) => format!(
                "    u32 one = 1;\n    u32 *noted = bpf_map_lookup_elem(&{record}, &one);\n    if (noted && *noted)\n        return *noted - 1;\n"
            ),
            None => String::new(),
        };
        format!(
            "/* Interface index -> P4 port; filled by `p4bpf port add`. */\n\
             struct {{\n    __uint(type, BPF_MAP_TYPE_HASH);\n    __type(key, u32);\n    __type(value, u32);\n    __uint(max_entries, {PORT_MAP_SIZE});\n}} {name} SEC(\".maps\");\n\n\
             /* The P4 port a packet came in on: the one a test harness noted (output\n * record [1], port + 1), else the interface's P4 port, else its index. */\n\
             static __always_inline u32 p4bpf_input_port(u32 ifindex)\n{{\n{noted}    \
             u32 *port = bpf_map_lookup_elem(&{name}, &ifindex);\n    return port ? *port : ifindex;\n}}\n\n"
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
             struct {{\n    __uint(type, {kind});\n    __type(key, u32);\n    __type(value, u32);\n    __uint(max_entries, {PORT_MAP_SIZE});\n}} {name} SEC(\".maps\");\n\n"
        )
    }

    /// Statements that send the packet out of P4 port `port` (a C
    /// expression), dropping it when the port has no interface.
    pub fn redirect_to_port(&self, port: &str) -> Vec<CStmt> {
        let name = port_map(self.prog).unwrap_or_default();
        self.target.redirect(&name, port)
    }
}

#[cfg(test)]
mod tests {
    use crate::{generate, Hook};
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
        assert!(c.contains("bpf_map_lookup_elem(&t_ports, &out_port)"));
        assert!(c.contains("out_ifindex ? bpf_redirect(*out_ifindex, 0) : TC_ACT_SHOT"));
    }
}
