//! TC: `struct __sk_buff`, verdicts `TC_ACT_*`, headers pulled into the
//! linear part first, the head moved by `p4bpf_skb_grow` and
//! `p4bpf_skb_shrink`, ports through a hash looked up before
//! `bpf_redirect` (devmaps are XDP-only).

use super::{over_mtu_drop, Target};
use crate::emit::c::{line, CStmt};

pub struct Tc;

impl Target for Tc {
    fn name(&self) -> &'static str {
        "TC"
    }
    fn section(&self) -> &'static str {
        "tc"
    }
    fn context_param(&self) -> &'static str {
        "struct __sk_buff *skb"
    }
    fn context(&self) -> &'static str {
        "skb"
    }
    // Headers must be in the linear part for direct access. The lengths
    // are read through volatile loads: clang would otherwise reuse these
    // 32-bit loads for the packet pointers and zero-extend them with
    // shifts, which the verifier refuses on a packet pointer (seen in the
    // PSA egress function of a program with an egress table).
    fn before_parsing(&self) -> Vec<CStmt> {
        let comment = "volatile reads, not reused for pkt and pkt_end: \
                       the verifier rejects a zero-extended packet pointer";
        let linear = "*(volatile u32 *)&skb->data_end - *(volatile u32 *)&skb->data";
        vec![
            CStmt::Comment(comment.into()),
            CStmt::If {
                cond: format!("{linear} < skb->len"),
                then: vec![line(
                    "bpf_skb_pull_data(skb, skb->len < 512 ? skb->len : 512)",
                )],
                other: vec![],
            },
        ]
    }
    fn reload_pointers(&self) -> [String; 2] {
        [
            "pkt = (u8 *)(long)skb->data".into(),
            "pkt_end = (u8 *)(long)skb->data_end".into(),
        ]
    }
    // `emit/helpers.rs`: bpf_skb_adjust_room, which keeps the skb's header
    // offsets, works after the MAC header the kernel knows (18 bytes once
    // a VLAN tag is put back, more once the head grew), not at the front:
    // the helpers use it only where that is within the bytes rewritten.
    fn move_start_fails(&self, delta: &str, parsed: &str) -> String {
        format!(
            "({delta} < 0 ? p4bpf_skb_grow(skb, -{delta}, {parsed}) : p4bpf_skb_shrink(skb, {delta}, {parsed} - {delta}))"
        )
    }
    fn cut_fails(&self, len: &str) -> String {
        format!("bpf_skb_change_tail(skb, {len}, 0)")
    }
    fn moving_needs_shrink(&self) -> bool {
        true
    }
    fn packet_length(&self) -> &'static str {
        "skb->len"
    }
    fn context_length(&self) -> &'static str {
        "skb->len"
    }
    fn ingress_port(&self) -> &'static str {
        "skb->ingress_ifindex"
    }
    fn pass(&self) -> &'static str {
        "TC_ACT_OK"
    }
    fn drop(&self) -> &'static str {
        "TC_ACT_SHOT"
    }
    fn abort(&self) -> &'static str {
        "TC_ACT_SHOT"
    }
    // A redirect to the receiving interface.
    fn transmit(&self, mtu_checked: bool) -> Vec<CStmt> {
        let mut out = over_mtu_drop(self, mtu_checked, vec![], None, "skb->ifindex");
        out.push(CStmt::Return("bpf_redirect(skb->ifindex, 0)".into()));
        out
    }
    fn port_map_kind(&self) -> (&'static str, &'static str) {
        ("BPF_MAP_TYPE_HASH", "devmaps are XDP-only")
    }
    /// Through `p4bpf_output_ifindex` (`emit/ports.rs`): the ports map
    /// `map` by its port slots.
    fn redirect(&self, _map: &str, port: &str, mtu_checked: bool) -> Vec<CStmt> {
        let mut out = vec![line(format!(
            "u32 out_ifindex = p4bpf_output_ifindex({port})"
        ))];
        out.extend(over_mtu_drop(
            self,
            mtu_checked,
            vec![],
            Some("out_ifindex"),
            "out_ifindex",
        ));
        out.push(CStmt::Return(
            "out_ifindex ? bpf_redirect(out_ifindex, 0) : TC_ACT_SHOT".into(),
        ));
        out
    }
}
