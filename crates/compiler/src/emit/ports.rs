//! Output ports of the xdp_model: P4 port numbers map to interfaces
//! through the map `<prog>_ports` (key: u32 P4 port, value: u32 ifindex),
//! which `p4bpf port add` and the test targets fill. At XDP it is a
//! `BPF_MAP_TYPE_DEVMAP_HASH` and `XDP_REDIRECT` goes through
//! `bpf_redirect_map`; devmaps are XDP-only, so at TC it is a plain hash
//! looked up before `bpf_redirect`. Either way a port with no interface
//! drops the packet.

use super::c::{line, CStmt};
use super::Emitter;
use crate::ir::{Arch, Program};
use p4bpf_layout::Hook;

/// How many ports one pipeline can map (any u32 port number may be one).
pub const PORT_MAP_SIZE: u32 = 512;

/// The name of the ports map (the description's `port_map`), if the
/// program can redirect.
pub fn port_map(prog: &Program) -> Option<String> {
    (prog.arch == Arch::XdpModel).then(|| format!("{}_ports", super::c_identifier(&prog.name)))
}

impl Emitter<'_> {
    /// The ports map's definition, if the program has one.
    pub fn port_map_definition(&self) -> String {
        let Some(name) = port_map(self.prog) else {
            return String::new();
        };
        let (kind, why) = match self.hook {
            Hook::Xdp => ("BPF_MAP_TYPE_DEVMAP_HASH", "for bpf_redirect_map"),
            Hook::Tc => ("BPF_MAP_TYPE_HASH", "devmaps are XDP-only"),
        };
        format!(
            "/* P4 output port -> ifindex ({why}); filled by `p4bpf port add`. */\n\
             struct {{\n    __uint(type, {kind});\n    __type(key, u32);\n    __type(value, u32);\n    __uint(max_entries, {PORT_MAP_SIZE});\n}} {name} SEC(\".maps\");\n\n"
        )
    }

    /// Statements that send the packet out of P4 port `port` (a C
    /// expression), dropping it when the port has no interface.
    pub fn redirect_to_port(&self, port: &str) -> Vec<CStmt> {
        let name = port_map(self.prog).unwrap_or_default();
        match self.hook {
            Hook::Xdp => vec![CStmt::Return(format!(
                "bpf_redirect_map(&{name}, {port}, XDP_DROP)"
            ))],
            Hook::Tc => vec![
                line(format!("u32 out_port = {port}")),
                line(format!(
                    "u32 *out_ifindex = bpf_map_lookup_elem(&{name}, &out_port)"
                )),
                CStmt::Return("out_ifindex ? bpf_redirect(*out_ifindex, 0) : TC_ACT_SHOT".into()),
            ],
        }
    }
}
