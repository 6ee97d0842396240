/* SPDX-License-Identifier: Apache-2.0 */
/* Twin of parse_drop.p4: parse Ethernet and IPv4, drop. */
#include "common.h"

SEC("xdp")
int parse_drop_xdp(struct xdp_md *ctx)
{
    void *data = (void *)(long)ctx->data;
    void *end = (void *)(long)ctx->data_end;
    struct ethhdr *eth;
    struct iphdr *ip = parse_ipv4(data, end, &eth);
    (void)ip;
    return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
