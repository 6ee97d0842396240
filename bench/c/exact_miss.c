/* SPDX-License-Identifier: Apache-2.0 */
/* Twin of exact_miss.p4: parse, look the destination MAC up, drop. */
#include "common.h"

struct mac_key {
    __u8 addr[ETH_ALEN];
};

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __type(key, struct mac_key);
    __type(value, __u32);
    __uint(max_entries, 1024);
} dmac SEC(".maps");

SEC("xdp")
int exact_miss_xdp(struct xdp_md *ctx)
{
    void *data = (void *)(long)ctx->data;
    void *end = (void *)(long)ctx->data_end;
    struct ethhdr *eth = data;
    if ((void *)(eth + 1) > end)
        return XDP_DROP;
    /* The P4 parser drops a packet that says IPv4 but is too short for it. */
    if (eth->h_proto == bpf_htons(ETH_P_IP) && (void *)((struct iphdr *)(eth + 1) + 1) > end)
        return XDP_DROP;
    struct mac_key key;
    __builtin_memcpy(key.addr, eth->h_dest, ETH_ALEN);
    __u32 *verdict = bpf_map_lookup_elem(&dmac, &key);
    if (verdict)
        return *verdict;
    return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
