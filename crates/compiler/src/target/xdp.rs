//! XDP: `struct xdp_md`, verdicts `XDP_*`, the head moved with
//! `bpf_xdp_adjust_head`, ports through a devmap and `bpf_redirect_map`.

use super::{over_mtu_drop, Target};
use crate::emit::c::{line, CStmt};

pub struct Xdp;

impl Target for Xdp {
    fn name(&self) -> &'static str {
        "XDP"
    }
    fn section(&self) -> &'static str {
        "xdp"
    }
    fn context_param(&self) -> &'static str {
        "struct xdp_md *ctx"
    }
    fn context(&self) -> &'static str {
        "ctx"
    }
    fn before_parsing(&self) -> Vec<CStmt> {
        vec![]
    }
    fn reload_pointers(&self) -> [String; 2] {
        [
            "pkt = (u8 *)(long)ctx->data".into(),
            "pkt_end = (u8 *)(long)ctx->data_end".into(),
        ]
    }
    fn move_start_fails(&self, delta: &str, _parsed: &str) -> String {
        format!("bpf_xdp_adjust_head(ctx, {delta})")
    }
    fn cut_fails(&self, len: &str) -> String {
        format!("bpf_xdp_adjust_tail(ctx, (int){len} - (int)(pkt_end - pkt))")
    }
    fn moving_needs_shrink(&self) -> bool {
        false
    }
    fn packet_length(&self) -> &'static str {
        "((u32)(pkt_end - pkt))"
    }
    fn context_length(&self) -> &'static str {
        "(u32)(ctx->data_end - ctx->data)"
    }
    fn ingress_port(&self) -> &'static str {
        "ctx->ingress_ifindex"
    }
    fn pass(&self) -> &'static str {
        "XDP_PASS"
    }
    fn drop(&self) -> &'static str {
        "XDP_DROP"
    }
    fn abort(&self) -> &'static str {
        "XDP_ABORTED"
    }
    // The XDP_TX verdict itself says where the packet goes.
    fn transmit(&self, mtu_checked: bool) -> Vec<CStmt> {
        let input = "0 /* the input interface */";
        let mut out = over_mtu_drop(self, mtu_checked, vec![], None, input);
        out.push(CStmt::Return("XDP_TX".into()));
        out
    }
    fn port_map_kind(&self) -> (&'static str, &'static str) {
        ("BPF_MAP_TYPE_DEVMAP_HASH", "for bpf_redirect_map")
    }
    // The devmap's value is the interface: looked up for the MTU check
    // (programs may read a devmap), else only the redirect reads it.
    fn redirect(&self, map: &str, port: &str, mtu_checked: bool) -> Vec<CStmt> {
        let lookup = vec![
            line(format!("u32 out_port = {port}")),
            line(format!(
                "u32 *out_ifindex = bpf_map_lookup_elem(&{map}, &out_port)"
            )),
        ];
        let mut out = over_mtu_drop(
            self,
            mtu_checked,
            lookup,
            Some("out_ifindex"),
            "*out_ifindex",
        );
        out.push(CStmt::Return(format!(
            "bpf_redirect_map(&{map}, {port}, XDP_DROP)"
        )));
        out
    }
}
