/* SPDX-License-Identifier: Apache-2.0 */
/* What the twins of the second family share: the parse their P4 programs
 * share (p4/shared.p4: Ethernet, an optional VLAN tag, IPv4, UDP or TCP),
 * written by hand with the same rejections. */
#ifndef BENCH_SHARED_H
#define BENCH_SHARED_H

#include "common.h"
#include <linux/tcp.h>

#define ETH_P_TAG 0x88b5

struct vlan_hdr {
    __be16 tci;
    __be16 proto;
};

struct tag_hdr {
    __be16 magic;
    __be16 proto; /* the EtherType the tag displaced */
    __be32 value;
};

/* The headers found; a null pointer for a header the packet does not have. */
struct parsed {
    struct ethhdr *eth;
    struct vlan_hdr *vlan;
    struct iphdr *ip;
    struct udphdr *udp;
    struct tcphdr *tcp;
};

/* 0 where the P4 parser rejects (a header it selected is cut short). */
static __always_inline int parse_shared(void *data, void *end, struct parsed *p)
{
    __builtin_memset(p, 0, sizeof(*p));
    struct ethhdr *eth = data;
    if ((void *)(eth + 1) > end)
        return 0;
    p->eth = eth;
    void *at = eth + 1;
    __be16 proto = eth->h_proto;
    if (proto == bpf_htons(ETH_P_8021Q)) {
        struct vlan_hdr *vlan = at;
        if ((void *)(vlan + 1) > end)
            return 0;
        p->vlan = vlan;
        proto = vlan->proto;
        at = vlan + 1;
    }
    if (proto != bpf_htons(ETH_P_IP))
        return 1;
    struct iphdr *ip = at;
    if ((void *)(ip + 1) > end)
        return 0;
    p->ip = ip;
    if (ip->protocol == IPPROTO_UDP) {
        struct udphdr *udp = (void *)(ip + 1);
        if ((void *)(udp + 1) > end)
            return 0;
        p->udp = udp;
    } else if (ip->protocol == IPPROTO_TCP) {
        struct tcphdr *tcp = (void *)(ip + 1);
        if ((void *)(tcp + 1) > end)
            return 0;
        p->tcp = tcp;
    }
    return 1;
}

struct mac_key {
    __u8 addr[ETH_ALEN];
};

#endif
