/* SPDX-License-Identifier: Apache-2.0 */
/* Twin of push_header.p4: insert an 8-byte tag after Ethernet, XDP_TX. */
#include "common.h"

#define ETH_P_TAG 0x88b5

struct tag {
    __be16 magic;
    __be16 proto; /* the EtherType the tag displaced */
    __be32 value;
};

SEC("xdp")
int push_header_xdp(struct xdp_md *ctx)
{
    void *data = (void *)(long)ctx->data;
    void *end = (void *)(long)ctx->data_end;
    struct ethhdr *eth = data;
    if ((void *)(eth + 1) > end)
        return XDP_DROP;
    struct ethhdr saved = *eth;
    if (bpf_xdp_adjust_head(ctx, -(int)sizeof(struct tag)))
        return XDP_DROP;
    data = (void *)(long)ctx->data;
    end = (void *)(long)ctx->data_end;
    eth = data;
    struct tag *tag = (void *)(eth + 1);
    if ((void *)(tag + 1) > end)
        return XDP_DROP;
    __builtin_memcpy(eth->h_dest, saved.h_dest, ETH_ALEN);
    __builtin_memcpy(eth->h_source, saved.h_source, ETH_ALEN);
    eth->h_proto = bpf_htons(ETH_P_TAG);
    tag->magic = bpf_htons(0x5034);
    tag->proto = saved.h_proto;
    tag->value = bpf_htonl(0xdeadbeef);
    return XDP_TX;
}

char LICENSE[] SEC("license") = "GPL";
