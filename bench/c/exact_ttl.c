/* SPDX-License-Identifier: Apache-2.0 */
/* Twin of exact_ttl.p4: parse, exact lookup of the destination address that
 * yields a new TTL, write it, drop. */
#include "common.h"

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __type(key, __be32);
    __type(value, __u8);
    __uint(max_entries, 1024);
} ttl_by_dst SEC(".maps");

SEC("xdp")
int exact_ttl_xdp(struct xdp_md *ctx)
{
    void *data = (void *)(long)ctx->data;
    void *end = (void *)(long)ctx->data_end;
    struct ethhdr *eth;
    struct iphdr *ip = parse_ipv4(data, end, &eth);
    if (!ip)
        return XDP_DROP;
    __u8 *ttl = bpf_map_lookup_elem(&ttl_by_dst, &ip->daddr);
    if (ttl)
        ip->ttl = *ttl;
    return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
