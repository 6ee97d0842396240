/* SPDX-License-Identifier: Apache-2.0 */
/* Twin of shared_exact_miss.p4: the shared parse, the destination MAC looked
 * up (a miss: drop; a hit would redirect to the port found). */
#include "shared.h"

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __type(key, struct mac_key);
    __type(value, __u32);
    __uint(max_entries, 1024);
} dmac SEC(".maps");

SEC("xdp")
int shared_exact_miss_xdp(struct xdp_md *ctx)
{
    struct parsed p;
    if (!parse_shared((void *)(long)ctx->data, (void *)(long)ctx->data_end, &p))
        return XDP_DROP;
    struct mac_key key;
    __builtin_memcpy(key.addr, p.eth->h_dest, ETH_ALEN);
    __u32 *port = bpf_map_lookup_elem(&dmac, &key);
    if (port)
        return bpf_redirect(*port, 0);
    return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
