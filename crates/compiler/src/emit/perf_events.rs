//! `BPF_PERF_EVENT_OUTPUT` of the xdp_model: sends the current packet to
//! user space as one perf event on this CPU's ring of the map
//! `<prog>_perf_events`. The map and the sending function are printed only
//! in programs that call it; actions of such programs take the program
//! context too, since the helper needs it.
//!
//! An event is a `struct <prog>_perf_meta` followed by the packet's first
//! `captured_length` bytes, which the kernel appends itself when the upper
//! 32 bits of the flags ask for them (XDP and TC alike). The P4 result is
//! the helper's return value as `bit<32>`: 0 when sent, a negative errno
//! otherwise, -ENOENT (0xfffffffe) when no reader has opened this CPU's ring.

use super::Emitter;

/// The most packet bytes one event carries: the kernel takes up to 20 bits
/// of length in the flags; 16 bits covers every packet short of BIG TCP.
const MAX_CAPTURED_BYTES: u32 = 0xffff;

impl Emitter<'_> {
    /// The name the program context has in the entry function and in
    /// actions of programs that send perf events.
    pub fn context_name(&self) -> &'static str {
        self.target.context()
    }

    /// The context parameter actions take, if they need one.
    pub fn action_context_param(&self) -> Option<String> {
        self.prog
            .actions_take_context()
            .then(|| self.target.context_param().to_string())
    }

    /// The C expression of one `BPF_PERF_EVENT_OUTPUT()` call.
    pub fn perf_event_output_call(&self) -> String {
        format!("p4bpf_perf_event_output({})", self.context_name())
    }

    /// The map and the sending function, if the program sends perf events.
    pub fn perf_event_definitions(&self) -> String {
        if !self.prog.sends_perf_events {
            return String::new();
        }
        let prefix = self.c_prefix();
        let param = self.target.context_param();
        let ctx = self.context_name();
        let length = self.target.context_length();
        format!(
            "/* BPF_PERF_EVENT_OUTPUT: one ring per CPU; max_entries 0 lets libbpf size it to the CPU count. */\n\
             struct {{\n    __uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);\n    __type(key, u32);\n    __type(value, u32);\n    __uint(max_entries, 0);\n}} {prefix}_perf_events SEC(\".maps\");\n\n\
             /* What precedes the packet bytes in each event. */\n\
             struct {prefix}_perf_meta {{\n    u32 packet_length;\n    u32 captured_length; /* packet bytes that follow */\n}};\n\n\
             /* Sends the packet to user space: 0 when sent, else a negative errno\n * (-ENOENT: no reader on this CPU's ring). */\n\
             static __always_inline u32 p4bpf_perf_event_output({param})\n{{\n    \
             struct {prefix}_perf_meta meta = {{ .packet_length = {length} }};\n    \
             meta.captured_length = meta.packet_length > {MAX_CAPTURED_BYTES:#x} ? {MAX_CAPTURED_BYTES:#x} : meta.packet_length;\n    \
             u64 flags = BPF_F_CURRENT_CPU | ((u64)meta.captured_length << 32);\n    \
             return (u32)bpf_perf_event_output({ctx}, &{prefix}_perf_events, flags, &meta, sizeof(meta));\n}}\n\n"
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::{generate, Hook};
    use std::path::Path;

    const SENDS_FROM_AN_ACTION: &str = "
#include <xdp_model.p4>
header h_t { bit<8> x; }
struct hs { h_t h; }
parser prs(packet_in p, out hs hdr) { state start { p.extract(hdr.h); transition accept; } }
control sw(inout hs hdr, in xdp_input imd, out xdp_output omd) {
    action sample() { BPF_PERF_EVENT_OUTPUT(); }
    apply { omd.output_port = 0; omd.output_action = xdp_action.XDP_PASS; sample(); }
}
control dprs(in hs hdr, packet_out p) { apply { p.emit(hdr.h); } }
xdp(prs(), sw(), dprs()) main;
";

    fn c_text(source: &str, hook: Hook) -> String {
        let fe = p4bpf_front::check_source(Path::new("t.p4"), source, &Default::default());
        assert!(!fe.has_errors(), "{:?}", fe.diagnostics);
        generate(&fe, "t", hook, None)
            .map(|g| g.c)
            .unwrap_or_default()
    }

    #[test]
    fn actions_get_the_context_the_helper_needs_at_both_hooks() {
        let xdp = c_text(SENDS_FROM_AN_ACTION, Hook::Xdp);
        assert!(xdp.contains("BPF_MAP_TYPE_PERF_EVENT_ARRAY"));
        assert!(xdp.contains("} t_perf_events SEC(\".maps\")"));
        assert!(xdp.contains("action_sw_sample(struct t_state *st, struct xdp_md *ctx"));
        assert!(xdp.contains("action_sw_sample(st, ctx"));
        let tc = c_text(SENDS_FROM_AN_ACTION, Hook::Tc);
        assert!(tc.contains("bpf_perf_event_output(skb, &t_perf_events"));
        assert!(tc.contains("action_sw_sample(st, skb"));
    }

    #[test]
    fn programs_that_do_not_send_have_no_perf_map() {
        let quiet = SENDS_FROM_AN_ACTION.replace("BPF_PERF_EVENT_OUTPUT();", "");
        let c = c_text(&quiet, Hook::Xdp);
        assert!(!c.is_empty());
        assert!(!c.contains("perf_event"));
    }
}
