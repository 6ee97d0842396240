/* SPDX-License-Identifier: Apache-2.0 */
/* Twin of shared_exact_ttl.p4: the shared parse, an exact lookup of the
 * IPv4 destination that yields a new TTL, written; drop. */
#include "shared.h"

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __type(key, __be32);
    __type(value, __u8);
    __uint(max_entries, 1024);
} ttl_by_dst SEC(".maps");

SEC("xdp")
int shared_exact_ttl_xdp(struct xdp_md *ctx)
{
    struct parsed p;
    if (!parse_shared((void *)(long)ctx->data, (void *)(long)ctx->data_end, &p) || !p.ip)
        return XDP_DROP;
    __u8 *ttl = bpf_map_lookup_elem(&ttl_by_dst, &p.ip->daddr);
    if (ttl)
        p.ip->ttl = *ttl;
    return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
