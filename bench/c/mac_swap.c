/* SPDX-License-Identifier: Apache-2.0 */
/* Twin of mac_swap.p4: parse, swap the Ethernet addresses, XDP_TX. */
#include "common.h"

SEC("xdp")
int mac_swap_xdp(struct xdp_md *ctx)
{
    void *data = (void *)(long)ctx->data;
    void *end = (void *)(long)ctx->data_end;
    struct ethhdr *eth;
    struct iphdr *ip = parse_ipv4(data, end, &eth);
    (void)ip;
    if ((void *)(eth + 1) > end)
        return XDP_DROP;
    __u8 dst[ETH_ALEN];
    __builtin_memcpy(dst, eth->h_dest, ETH_ALEN);
    __builtin_memcpy(eth->h_dest, eth->h_source, ETH_ALEN);
    __builtin_memcpy(eth->h_source, dst, ETH_ALEN);
    return XDP_TX;
}

char LICENSE[] SEC("license") = "GPL";
