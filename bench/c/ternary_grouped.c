/* SPDX-License-Identifier: Apache-2.0 */
/* Ternary lookup on the IPv4 destination by grouped tuple space (after
 * TupleMerge, Daly and Torng 2017): the control plane puts masks into a few
 * groups, each with a relaxed mask (the bits all its masks share); a rule
 * lives in the bucket of (group, destination & relaxed mask), a short array
 * sorted by priority holding each rule's own value and mask. A packet costs
 * one lookup per group plus a bounded scan, not one per mask. A bucket that
 * would overflow makes the control plane split its group (fewer shared
 * masks, more bits). Same action as the matrix programs. */
#include "common.h"

#define MAX_GROUPS 8
#define BUCKET_RULES 8

struct groups {
    __u32 count;
    __be32 mask[MAX_GROUPS];
};

struct bucket_key {
    __u32 group;
    __be32 bits; /* destination & the group's relaxed mask */
};

struct rule {
    __be32 value;
    __be32 mask;
    __u32 priority;
    __u8 dmac[ETH_ALEN];
    __u16 pad;
};

struct bucket {
    __u32 count; /* rules in use, best priority first */
    struct rule rule[BUCKET_RULES];
};

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __type(key, __u32);
    __type(value, struct groups);
    __uint(max_entries, 1);
} grouped_groups SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __type(key, struct bucket_key);
    __type(value, struct bucket);
    __uint(max_entries, 262144);
} grouped_buckets SEC(".maps");

SEC("xdp")
int ternary_grouped_xdp(struct xdp_md *ctx)
{
    void *data = (void *)(long)ctx->data;
    void *end = (void *)(long)ctx->data_end;
    struct ethhdr *eth;
    struct iphdr *ip = parse_ipv4(data, end, &eth);
    if (!ip)
        return XDP_DROP;
    __be32 dst = ip->daddr;
    __u32 zero = 0;
    struct groups *groups = bpf_map_lookup_elem(&grouped_groups, &zero);
    if (!groups)
        return XDP_DROP;
    struct rule *best = 0;
    for (__u32 g = 0; g < MAX_GROUPS; g++) {
        if (g >= groups->count)
            break;
        struct bucket_key key = { .group = g, .bits = dst & groups->mask[g] };
        struct bucket *bucket = bpf_map_lookup_elem(&grouped_buckets, &key);
        if (!bucket)
            continue;
        for (__u32 r = 0; r < BUCKET_RULES; r++) {
            if (r >= bucket->count)
                break;
            struct rule *rule = &bucket->rule[r];
            if ((dst & rule->mask) == rule->value) {
                if (!best || rule->priority > best->priority)
                    best = rule;
                break; /* sorted: the first match is the bucket's best */
            }
        }
    }
    if (!best)
        return XDP_DROP;
    __builtin_memcpy(eth->h_dest, best->dmac, ETH_ALEN);
    return XDP_TX;
}

char LICENSE[] SEC("license") = "GPL";
