/* SPDX-License-Identifier: Apache-2.0 */
/* Twin of udp_rewrite.p4: parse Ethernet/IPv4/UDP, write a fixed source
 * port and address, update both checksums, drop. */
#include "common.h"

#define NEW_SRC bpf_htonl(0x0a000001)
#define NEW_PORT bpf_htons(4000)

SEC("xdp")
int udp_rewrite_xdp(struct xdp_md *ctx)
{
    void *data = (void *)(long)ctx->data;
    void *end = (void *)(long)ctx->data_end;
    struct ethhdr *eth;
    struct iphdr *ip = parse_ipv4(data, end, &eth);
    if (!ip || ip->protocol != IPPROTO_UDP)
        return XDP_DROP;
    struct udphdr *udp = (void *)(ip + 1);
    if ((void *)(udp + 1) > end)
        return XDP_DROP;
    ip->check = csum_replace4(ip->check, ip->saddr, NEW_SRC);
    if (udp->check) {
        __sum16 check = csum_replace4(udp->check, ip->saddr, NEW_SRC);
        udp->check = csum_replace2(check, udp->source, NEW_PORT);
    }
    ip->saddr = NEW_SRC;
    udp->source = NEW_PORT;
    return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
