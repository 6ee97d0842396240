/* SPDX-License-Identifier: Apache-2.0 */
/* Twin of shared_push_header.p4: the shared parse; the IPv4 destination
 * looked up gives the tag's value (a miss drops); the 8-byte tag goes in
 * after Ethernet (and VLAN); XDP_TX. */
#include "shared.h"

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __type(key, __be32);
    __type(value, __u32);
    __uint(max_entries, 1024);
} tag_by_dst SEC(".maps");

SEC("xdp")
int shared_push_header_xdp(struct xdp_md *ctx)
{
    struct parsed p;
    if (!parse_shared((void *)(long)ctx->data, (void *)(long)ctx->data_end, &p) || !p.ip)
        return XDP_DROP;
    __u32 *value = bpf_map_lookup_elem(&tag_by_dst, &p.ip->daddr);
    if (!value)
        return XDP_DROP;
    __u32 tag_value = *value;
    /* What moves forward: Ethernet, and the VLAN tag when there is one. */
    struct ethhdr eth = *p.eth;
    struct vlan_hdr vlan;
    int tagged = p.vlan != 0;
    if (tagged)
        vlan = *p.vlan;
    if (bpf_xdp_adjust_head(ctx, -(int)sizeof(struct tag_hdr)))
        return XDP_DROP;
    void *data = (void *)(long)ctx->data;
    void *end = (void *)(long)ctx->data_end;
    struct ethhdr *new_eth = data;
    if ((void *)(new_eth + 1) > end)
        return XDP_DROP;
    struct tag_hdr *tag = (void *)(new_eth + 1);
    __be16 displaced = eth.h_proto;
    if (tagged) {
        struct vlan_hdr *new_vlan = (void *)(new_eth + 1);
        if ((void *)(new_vlan + 1) > end)
            return XDP_DROP;
        displaced = vlan.proto;
        vlan.proto = bpf_htons(ETH_P_TAG);
        *new_vlan = vlan;
        tag = (void *)(new_vlan + 1);
    } else {
        eth.h_proto = bpf_htons(ETH_P_TAG);
    }
    if ((void *)(tag + 1) > end)
        return XDP_DROP;
    *new_eth = eth;
    tag->magic = bpf_htons(0x5034);
    tag->proto = displaced;
    tag->value = bpf_htonl(tag_value);
    return XDP_TX;
}

char LICENSE[] SEC("license") = "GPL";
