/* SPDX-License-Identifier: Apache-2.0 */
/* Ternary lookup on the IPv4 destination by tuple-space search, written by
 * hand as the baseline of the ternary design comparison: one hash map per
 * mask (folded into one map keyed by mask slot), every used mask probed,
 * the best priority wins. Same action as the matrix programs: set the
 * destination MAC, XDP_TX. Cost grows with the number of masks. */
#include "common.h"

#define MAX_MASKS 256

struct mask_slot {
    __u32 used;
    __be32 mask;
};

struct tss_key {
    __u32 slot;
    __be32 bits; /* destination & mask */
};

struct rule {
    __u32 priority;
    __u8 dmac[ETH_ALEN];
    __u16 pad;
};

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __type(key, __u32);
    __type(value, struct mask_slot);
    __uint(max_entries, MAX_MASKS);
} tss_masks SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __type(key, struct tss_key);
    __type(value, struct rule);
    __uint(max_entries, 262144);
} tss_rules SEC(".maps");

SEC("xdp")
int ternary_tss_xdp(struct xdp_md *ctx)
{
    void *data = (void *)(long)ctx->data;
    void *end = (void *)(long)ctx->data_end;
    struct ethhdr *eth;
    struct iphdr *ip = parse_ipv4(data, end, &eth);
    if (!ip)
        return XDP_DROP;
    __be32 dst = ip->daddr;
    struct rule *best = 0;
    for (__u32 i = 0; i < MAX_MASKS; i++) {
        __u32 slot = i;
        struct mask_slot *mask = bpf_map_lookup_elem(&tss_masks, &slot);
        if (!mask || !mask->used)
            break;
        struct tss_key key = { .slot = i, .bits = dst & mask->mask };
        struct rule *found = bpf_map_lookup_elem(&tss_rules, &key);
        if (found && (!best || found->priority > best->priority))
            best = found;
    }
    if (!best)
        return XDP_DROP;
    __builtin_memcpy(eth->h_dest, best->dmac, ETH_ALEN);
    return XDP_TX;
}

char LICENSE[] SEC("license") = "GPL";
