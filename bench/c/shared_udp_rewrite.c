/* SPDX-License-Identifier: Apache-2.0 */
/* Twin of shared_udp_rewrite.p4: the shared parse; on UDP a fixed source
 * port and address, both checksums updated; drop. */
#include "shared.h"

#define NEW_SRC bpf_htonl(0x0a000001)
#define NEW_PORT bpf_htons(4000)

SEC("xdp")
int shared_udp_rewrite_xdp(struct xdp_md *ctx)
{
    struct parsed p;
    if (!parse_shared((void *)(long)ctx->data, (void *)(long)ctx->data_end, &p) || !p.udp)
        return XDP_DROP;
    struct iphdr *ip = p.ip;
    struct udphdr *udp = p.udp;
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
