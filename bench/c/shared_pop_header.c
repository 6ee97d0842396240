/* SPDX-License-Identifier: Apache-2.0 */
/* Twin of shared_pop_header.p4: the shared parse; a hit on the IPv4
 * destination pops the VLAN tag when there is one and sends the packet back
 * out (XDP_TX); a miss drops. */
#include "shared.h"

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __type(key, __be32);
    __type(value, __u32);
    __uint(max_entries, 1024);
} untag_by_dst SEC(".maps");

SEC("xdp")
int shared_pop_header_xdp(struct xdp_md *ctx)
{
    struct parsed p;
    if (!parse_shared((void *)(long)ctx->data, (void *)(long)ctx->data_end, &p) || !p.ip)
        return XDP_DROP;
    if (!bpf_map_lookup_elem(&untag_by_dst, &p.ip->daddr))
        return XDP_DROP;
    if (!p.vlan)
        return XDP_TX;
    struct ethhdr eth = *p.eth;
    eth.h_proto = p.vlan->proto;
    if (bpf_xdp_adjust_head(ctx, (int)sizeof(struct vlan_hdr)))
        return XDP_DROP;
    struct ethhdr *new_eth = (void *)(long)ctx->data;
    if ((void *)(new_eth + 1) > (void *)(long)ctx->data_end)
        return XDP_DROP;
    *new_eth = eth;
    return XDP_TX;
}

char LICENSE[] SEC("license") = "GPL";
