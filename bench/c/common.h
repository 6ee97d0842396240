/* SPDX-License-Identifier: Apache-2.0 */
/* What every hand-written twin includes: the kernel's XDP types, libbpf's
 * helper declarations and the headers of the benchmark packet. */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

/* Ethernet + IPv4 (no options checked, as the P4 programs do not). */
static __always_inline struct iphdr *parse_ipv4(void *data, void *end, struct ethhdr **eth_out)
{
    struct ethhdr *eth = data;
    if ((void *)(eth + 1) > end)
        return 0;
    *eth_out = eth;
    if (eth->h_proto != bpf_htons(ETH_P_IP))
        return 0;
    struct iphdr *ip = (void *)(eth + 1);
    if ((void *)(ip + 1) > end)
        return 0;
    return ip;
}

/* RFC 1624 incremental update of a 16-bit one's-complement checksum. */
static __always_inline __u16 csum_fold32(__u32 sum)
{
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    return (__u16)sum;
}

static __always_inline __sum16 csum_replace4(__sum16 check, __be32 from, __be32 to)
{
    __u32 sum = (__u16)~check;
    sum += (__u16)~(from & 0xffff) + (__u16)~(from >> 16);
    sum += (to & 0xffff) + (to >> 16);
    return (__sum16)~csum_fold32(sum);
}

static __always_inline __sum16 csum_replace2(__sum16 check, __be16 from, __be16 to)
{
    __u32 sum = (__u16)~check + (__u16)~from + to;
    return (__sum16)~csum_fold32(sum);
}

#endif
