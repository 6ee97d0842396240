/* SPDX-License-Identifier: Apache-2.0 */
/* Twin of l3_fwd.p4: LPM on the IPv4 destination gives the next hop's MACs
 * and output interface; TTL decremented with an incremental checksum
 * update; bpf_redirect. No route: drop. No TTL-expiry check, as in the P4
 * program: live-frame runs recycle pages without restoring their bytes. */
#include "common.h"

struct route_key {
    __u32 prefixlen;
    __be32 addr;
};

struct next_hop {
    __u8 dmac[ETH_ALEN];
    __u8 smac[ETH_ALEN];
    __u32 ifindex;
};

struct {
    __uint(type, BPF_MAP_TYPE_LPM_TRIE);
    __type(key, struct route_key);
    __type(value, struct next_hop);
    __uint(max_entries, 1024);
    __uint(map_flags, BPF_F_NO_PREALLOC);
} routes SEC(".maps");

SEC("xdp")
int l3_fwd_xdp(struct xdp_md *ctx)
{
    void *data = (void *)(long)ctx->data;
    void *end = (void *)(long)ctx->data_end;
    struct ethhdr *eth;
    struct iphdr *ip = parse_ipv4(data, end, &eth);
    if (!ip)
        return XDP_DROP;
    struct route_key key = { .prefixlen = 32, .addr = ip->daddr };
    struct next_hop *hop = bpf_map_lookup_elem(&routes, &key);
    if (!hop)
        return XDP_DROP;
    __builtin_memcpy(eth->h_dest, hop->dmac, ETH_ALEN);
    __builtin_memcpy(eth->h_source, hop->smac, ETH_ALEN);
    /* TTL and protocol form one 16-bit word of the checksum. */
    __be16 old_word = *(__be16 *)&ip->ttl;
    ip->ttl--;
    ip->check = csum_replace2(ip->check, old_word, *(__be16 *)&ip->ttl);
    return bpf_redirect(hop->ifindex, 0);
}

char LICENSE[] SEC("license") = "GPL";
