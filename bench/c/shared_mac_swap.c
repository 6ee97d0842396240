/* SPDX-License-Identifier: Apache-2.0 */
/* Twin of shared_mac_swap.p4: the shared parse, the Ethernet addresses
 * swapped, XDP_TX. */
#include "shared.h"

SEC("xdp")
int shared_mac_swap_xdp(struct xdp_md *ctx)
{
    struct parsed p;
    if (!parse_shared((void *)(long)ctx->data, (void *)(long)ctx->data_end, &p))
        return XDP_DROP;
    struct ethhdr *eth = p.eth;
    __u8 dst[ETH_ALEN];
    __builtin_memcpy(dst, eth->h_dest, ETH_ALEN);
    __builtin_memcpy(eth->h_dest, eth->h_source, ETH_ALEN);
    __builtin_memcpy(eth->h_source, dst, ETH_ALEN);
    return XDP_TX;
}

char LICENSE[] SEC("license") = "GPL";
