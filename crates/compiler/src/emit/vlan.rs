//! VLAN tags on live ports at TC. The kernel takes a received frame's
//! outer VLAN tag out of its bytes (into `skb->vlan_tci`) before TC
//! ingress runs, so a P4 parser would never see it; `BPF_PROG_TEST_RUN`
//! leaves it in. The TC entry function puts it back first.

use super::c::CStmt;
use super::helpers::Helper;
use super::Emitter;
use p4bpf_layout::Hook;

/// `p4bpf_vlan_into_packet`. A global function: the verifier walks it
/// once, and the paths of the program after it do not split on it.
pub const HELPER: &str = "/* Puts the outer VLAN tag the kernel took out of a received frame back
 * between its MAC addresses and its EtherType, where the wire has it. A
 * second tag (QinQ), whose type the kernel leaves in skb->protocol, is
 * left as the kernel gives it. */
__attribute__((noinline)) int p4bpf_vlan_into_packet(struct __sk_buff *skb)
{
    if (!skb->vlan_present || skb->protocol == bpf_htons(0x8100) || skb->protocol == bpf_htons(0x88a8))
        return 0;
    u16 tag[2] = { (u16)skb->vlan_proto, bpf_htons((u16)skb->vlan_tci) };
    u8 macs[12];
    if (bpf_skb_change_head(skb, 4, 0) || bpf_skb_load_bytes(skb, 4, macs, 12)
            || bpf_skb_store_bytes(skb, 0, macs, 12, 0) || bpf_skb_store_bytes(skb, 12, tag, 4, 0))
        return -1;
    bpf_skb_vlan_pop(skb);
    return 0;
}
";

impl Emitter<'_> {
    /// At TC, before the parser reads the packet: its VLAN tag back in.
    pub(super) fn vlan_tag_into_packet(&self) -> Vec<CStmt> {
        if self.hook != Hook::Tc {
            return vec![];
        }
        self.use_helper(Helper::VlanIntoPacket);
        vec![CStmt::If {
            cond: "p4bpf_vlan_into_packet(skb)".into(),
            then: vec![CStmt::Return("TC_ACT_SHOT".into())],
            other: vec![],
        }]
    }
}
