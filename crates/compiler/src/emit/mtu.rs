//! The MTU check before a packet leaves by a port, for programs whose
//! deparser may grow the packet ([`crate::midend::growth`]); the others
//! cannot send a frame longer than the one that came in, and pay nothing.
//!
//! A frame longer than the output interface takes is dropped by the
//! kernel after the redirect with nothing to say so (the veth and devmap
//! forwarding checks, `is_skb_forwardable` and `xdp_ok_fwd_dev`). Here it
//! is dropped before, and counted in the per-CPU array `<prog>_mtu_drops`
//! (one u64 per CPU; the description's `mtu_drops`), which `p4bpf
//! pipeline show` sums. The rule is the kernel's forwarding rule: a frame
//! fits in the MTU plus the link header plus one VLAN tag, asked of
//! `bpf_check_mtu` with a 4-byte allowance (`len_diff`). At TC a GSO
//! packet passes (the helper's answer without `BPF_MTU_CHK_SEGS`): the
//! kernel cuts it into segments that fit. An interface the helper cannot
//! find is left to the redirect, which drops the packet itself. The
//! targets call `p4bpf_over_mtu` before they send ([`crate::target`]).

use super::c::CStmt;
use super::{c_identifier, Emitter};
use crate::ir::{Outcome, Program, VerdictRule};
use p4bpf_layout::Hook;

/// The state's field holding the frame's length as it came in: a packet
/// no longer than that is not checked ([`crate::target`]).
pub const ARRIVED_LEN: &str = "p4bpf_arrived_len";

/// The length of an 802.1Q tag, which the kernel's forwarding rule allows
/// beyond the MTU and the link header.
const VLAN_TAG_BYTES: u32 = 4;

/// The per-CPU array counting the packets dropped for their size, if
/// the program checks them: it may grow them and send them to a port.
pub fn mtu_drops_map(prog: &Program) -> Option<String> {
    let sends = match &prog.intrinsics.verdict {
        VerdictRule::Accept(_) => false,
        VerdictRule::Code { outcomes, .. } => outcomes
            .iter()
            .any(|(_, o)| matches!(o, Outcome::Transmit | Outcome::Redirect)),
        VerdictRule::Port { .. } => true,
    };
    (sends && crate::midend::growth::may_grow(prog))
        .then(|| format!("{}_mtu_drops", c_identifier(&prog.name)))
}

impl Emitter<'_> {
    /// The entry's note of the frame's length as it came in, if the
    /// program checks.
    pub fn arrival_length(&self) -> Option<CStmt> {
        self.mtu_checked.then(|| {
            super::c::line(format!(
                "st->{ARRIVED_LEN} = {}",
                self.target.context_length()
            ))
        })
    }

    /// The counter and `p4bpf_over_mtu`, if the program checks.
    pub fn mtu_check_definitions(&self) -> String {
        let Some(map) = mtu_drops_map(self.prog) else {
            return String::new();
        };
        let (param, context) = (self.target.context_param(), self.target.context());
        format!(
            "/* Packets dropped because they outgrew the output interface's MTU. */\n\
             struct {{\n    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);\n    __type(key, u32);\n    __type(value, u64);\n    __uint(max_entries, 1);\n}} {map} SEC(\".maps\");\n\n\
             /* Whether the packet is longer than interface `ifindex` (0: the input one)\n \
             * forwards: its MTU, link header and a VLAN tag; counted when it is.\n \
             * A GSO packet fits (it is cut into segments); an unknown interface\n \
             * is left to the redirect. */\n\
             static __always_inline int p4bpf_over_mtu({param}, u32 ifindex)\n{{\n    \
             u32 mtu = 0;\n    \
             if (bpf_check_mtu({context}, ifindex, &mtu, -{VLAN_TAG_BYTES}, 0) <= 0)\n        return 0;\n    \
             u32 zero = 0;\n    \
             u64 *drops = bpf_map_lookup_elem(&{map}, &zero);\n    \
             if (drops)\n        *drops += 1;\n{trace}    \
             return 1;\n}}\n\n",
            trace = self.mtu_drop_record()
        )
    }

    /// In a traced build, the `DROP` record of an MTU drop.
    fn mtu_drop_record(&self) -> String {
        if !self.traces() {
            return String::new();
        }
        format!(
            "    u8 *trace_data = p4bpf_trace_open({kind} /* drop */, {reason} /* MTU */, mtu, 8);\n    \
             if (trace_data) {{\n        \
             *(u32 *)trace_data = ifindex;\n        \
             *(u32 *)(trace_data + 4) = {length};\n        \
             bpf_ringbuf_submit(trace_data - sizeof(struct p4bpf_trace_head), 0);\n    }}\n",
            kind = p4bpf_layout::trace::DROP,
            reason = p4bpf_layout::trace::DROP_MTU,
            length = self.target.context_length()
        )
    }
}

impl Emitter<'_> {
    /// In the program a copy's egress runs, before it lets the copy go:
    /// drops it when `unless` (a C condition: already dropped) is false
    /// and the copy does not fit the port it was sent to (at TC egress
    /// the skb's interface, in a devmap's program the egress one).
    pub fn copy_mtu_drop(&self, unless: Option<&str>) -> Vec<CStmt> {
        if !self.mtu_checked {
            return vec![];
        }
        let (context, ifindex) = match self.hook {
            Hook::Tc => ("skb", "skb->ifindex"),
            Hook::Xdp => ("ctx", "ctx->egress_ifindex"),
        };
        let over = format!("p4bpf_over_mtu({context}, {ifindex})");
        vec![CStmt::If {
            cond: unless.map_or(over.clone(), |u| format!("!({u}) && {over}")),
            then: vec![CStmt::Return(self.target.drop().into())],
            other: vec![],
        }]
    }
}

#[cfg(test)]
mod tests {
    use crate::{generate, Hook};
    use std::path::Path;

    /// Ethernet, then `CONTROL`; the deparser emits a tunnel header first.
    const PROGRAM: &str = "
#include <xdp_model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header tun_t { bit<32> id; }
struct hs { tun_t tun; eth_t eth; }
parser prs(packet_in p, out hs hdr) { state start { p.extract(hdr.eth); transition accept; } }
control sw(inout hs hdr, in xdp_input imd, out xdp_output omd) {
    apply { omd.output_port = 2; omd.output_action = xdp_action.XDP_REDIRECT; CONTROL }
}
control dprs(in hs hdr, packet_out p) { apply { p.emit(hdr.tun); p.emit(hdr.eth); } }
xdp(prs(), sw(), dprs()) main;
";

    fn generated(control: &str, hook: Hook) -> (String, Option<String>) {
        let source = PROGRAM.replace("CONTROL", control);
        let fe = p4bpf_front::check_source(Path::new("t.p4"), &source, &Default::default());
        assert!(!fe.has_errors(), "{:?}", fe.diagnostics);
        generate(&fe, "t", hook, None)
            .map(|g| (g.c, g.pipeline.mtu_drops))
            .unwrap_or_default()
    }

    const PUSH: &str = "hdr.tun.setValid(); hdr.tun.id = 1;";

    #[test]
    fn a_pushing_program_checks_the_output_interface_before_redirecting() {
        let (c, map) = generated(PUSH, Hook::Tc);
        assert_eq!(map.as_deref(), Some("t_mtu_drops"));
        let check = c
            .find("if (out_ifindex && p4bpf_over_mtu(skb, out_ifindex))")
            .unwrap_or(usize::MAX);
        let redirect = c.find("bpf_redirect(out_ifindex, 0)").unwrap_or(0);
        assert!(
            check < redirect,
            "the check comes before the redirect:\n{c}"
        );
        assert!(c.contains("bpf_check_mtu(skb, ifindex, &mtu, -4, 0) <= 0"));
        assert!(c.contains("bpf_map_lookup_elem(&t_mtu_drops, &zero)"));
        // XDP_TX, a redirect to the input interface at TC.
        assert!(c.contains("if (p4bpf_over_mtu(skb, skb->ifindex))"));
    }

    #[test]
    fn at_xdp_the_interface_comes_from_the_devmap() {
        let (c, map) = generated(PUSH, Hook::Xdp);
        assert_eq!(map.as_deref(), Some("t_mtu_drops"));
        assert!(c.contains("u32 *out_ifindex = bpf_map_lookup_elem(&t_ports, &out_port)"));
        assert!(c.contains("if (out_ifindex && p4bpf_over_mtu(ctx, *out_ifindex))"));
        assert!(c.contains("if (p4bpf_over_mtu(ctx, 0 /* the input interface */))"));
    }

    /// The helper call is paid only by a packet longer than it came in.
    #[test]
    fn only_a_packet_the_program_grew_is_checked() {
        for (hook, length) in [
            (Hook::Tc, "skb->len"),
            (Hook::Xdp, "(u32)(ctx->data_end - ctx->data)"),
        ] {
            let (c, _) = generated(PUSH, hook);
            assert!(
                c.contains(&format!("st->p4bpf_arrived_len = {length};")),
                "{c}"
            );
            let grown = format!("if ({length} > st->p4bpf_arrived_len) {{");
            let checks =
                c.matches("&& p4bpf_over_mtu(").count() + c.matches("if (p4bpf_over_mtu(").count();
            assert_eq!(c.matches(&grown).count(), checks, "{hook:?}:\n{c}");
        }
    }

    #[test]
    fn a_program_that_only_rewrites_or_pops_pays_nothing() {
        for control in ["hdr.eth.src = 1;", "hdr.eth.setInvalid();"] {
            for hook in [Hook::Tc, Hook::Xdp] {
                let (c, map) = generated(control, hook);
                assert_eq!(map, None, "{control}");
                assert!(!c.contains("mtu"), "{control}:\n{c}");
            }
        }
    }
}
