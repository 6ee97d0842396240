/* SPDX-License-Identifier: Apache-2.0 */
/* Twin of PSA-eBPF's l2l3-acl.p4 (psa-ebpf-examples), at TC: the same
 * tables and the same decisions, written as a C programmer would, with
 * ports as interface indexes.
 *
 * Ingress: count the packet per port; tag it on an untagged port; report
 * an unknown source MAC (ring buffer); a routable destination MAC sends
 * the IPv4 packet through an LPM route to an ECMP group (CRC-32 over the
 * source address and L4 source port picks the next hop: TTL-1 with the
 * checksum updated, MACs and VLAN rewritten, TTL 0 drops); switching on
 * (destination MAC, VLAN) forwards or floods to a group; a 5-tuple ACL
 * drops. Egress, per output port: strip the tag or set its VLAN, counted
 * per entry. A flood copies the packet to every member but the port it
 * came in on, each copy's egress running at TC egress of its port.
 *
 * What the twin leaves out is P4's own plumbing: no bridged header
 * carries the input port to egress (a local does), no per-packet state
 * in a map, no default-action lookups. */
#include "shared.h"
#include <linux/pkt_cls.h>

struct port_tag_key {
    __u32 port;
    __u32 tagged;
};

/* Action values of `ingress_vlan` and `vlan_egress`. */
#define PUSH_VLAN 1
#define STRIP_VLAN 1
#define SET_VLAN 2
/* Action values of `switching`. */
#define FORWARD 1
#define FLOOD 2

struct mac_vlan_key {
    __u8 mac[ETH_ALEN];
    __u16 vlan;
};

struct route_key {
    __u32 prefixlen;
    __be32 addr;
};

struct next_hop {
    __u8 smac[ETH_ALEN];
    __u8 dmac[ETH_ALEN];
    __u16 vlan;
};

#define ECMP_MAX 16
struct ecmp_group {
    __u32 count;
    struct next_hop hops[ECMP_MAX];
};

struct switch_action {
    __u32 action;
    __u32 arg; /* FORWARD: the interface; FLOOD: the group */
};

struct five_tuple {
    __be32 src;
    __be32 dst;
    __be16 sport;
    __be16 dport;
    __u8 proto;
    __u8 pad[3];
};

#define FLOOD_MAX 8
struct flood_group {
    __u32 count;
    __u32 ports[FLOOD_MAX];
};

struct egress_vlan {
    __u32 action;
    __u16 vlan;
    __u16 pad;
    __u64 packets;
    __u64 bytes;
};

struct port_count {
    __u64 packets;
    __u64 bytes;
};

struct mac_learn {
    __u8 mac[ETH_ALEN];
    __u16 vlan;
    __u32 port;
};

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __type(key, __u32);
    __type(value, struct port_count);
    __uint(max_entries, 100);
} in_pkts SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __type(key, struct port_tag_key);
    __type(value, __u32);
    __uint(max_entries, 1024);
} ingress_vlan SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __type(key, struct mac_key);
    __type(value, __u32);
    __uint(max_entries, 1024);
} known_macs SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_RINGBUF);
    __uint(max_entries, 262144);
} learned SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __type(key, struct mac_vlan_key);
    __type(value, __u32);
    __uint(max_entries, 1024);
} routable SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_LPM_TRIE);
    __type(key, struct route_key);
    __type(value, struct ecmp_group);
    __uint(max_entries, 1024);
    __uint(map_flags, BPF_F_NO_PREALLOC);
} routes SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __type(key, struct mac_vlan_key);
    __type(value, struct switch_action);
    __uint(max_entries, 1024);
} switching SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __type(key, struct five_tuple);
    __type(value, __u32);
    __uint(max_entries, 1024);
} acl SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __type(key, __u32);
    __type(value, struct flood_group);
    __uint(max_entries, 1024);
} floods SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __type(key, __u32);
    __type(value, struct egress_vlan);
    __uint(max_entries, 1024);
} vlan_egress SEC(".maps");

/* skb->cb[0] of a flood copy, so the egress program knows it. */
#define COPY_MARK 0x636f7079

/* CRC-32 (IEEE 802.3), four bits at a time, as the P4 program's selector. */
static __always_inline __u32 crc32(const __u8 *d, __u32 n)
{
    const __u32 t[16] = { 0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac,
                          0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
                          0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
                          0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c };
    __u32 crc = 0xffffffff;
#pragma unroll
    for (__u32 i = 0; i < n; i++) {
        crc = t[(crc ^ d[i]) & 0xf] ^ (crc >> 4);
        crc = t[(crc ^ (d[i] >> 4)) & 0xf] ^ (crc >> 4);
    }
    return ~crc;
}

static __always_inline __u16 vlan_of(const struct vlan_hdr *vlan)
{
    return vlan ? bpf_ntohs(vlan->tci) & 0xfff : 0;
}

static __always_inline void set_vlan(struct vlan_hdr *vlan, __u16 vid)
{
    vlan->tci = (vlan->tci & bpf_htons(0xf000)) | bpf_htons(vid & 0xfff);
}

/* Inserts a VLAN tag (VLAN 0) after the MACs; 0 when the packet cannot grow. */
static __always_inline int push_vlan(struct __sk_buff *skb)
{
    if (bpf_skb_adjust_room(skb, sizeof(struct vlan_hdr), BPF_ADJ_ROOM_MAC, 0))
        return 0;
    void *data = (void *)(long)skb->data;
    void *end = (void *)(long)skb->data_end;
    struct ethhdr *eth = data;
    struct vlan_hdr *vlan = (void *)(eth + 1);
    if ((void *)(vlan + 1) > end)
        return 0;
    /* The room opened after the EtherType, which moves into the tag. */
    vlan->tci = 0;
    vlan->proto = eth->h_proto;
    eth->h_proto = bpf_htons(ETH_P_8021Q);
    return 1;
}

/* Egress for output port `port`: strip or set the tag, counted. */
static __always_inline int egress(struct __sk_buff *skb, __u32 port, __u32 frame_len)
{
    struct egress_vlan *e = bpf_map_lookup_elem(&vlan_egress, &port);
    if (!e)
        return 1;
    __sync_fetch_and_add(&e->packets, 1);
    __sync_fetch_and_add(&e->bytes, frame_len);
    void *data = (void *)(long)skb->data;
    void *end = (void *)(long)skb->data_end;
    struct ethhdr *eth = data;
    struct vlan_hdr *vlan = (void *)(eth + 1);
    if ((void *)(vlan + 1) > end || eth->h_proto != bpf_htons(ETH_P_8021Q))
        return 1;
    if (e->action == SET_VLAN) {
        set_vlan(vlan, e->vlan);
        return 1;
    }
    if (e->action != STRIP_VLAN)
        return 1;
    eth->h_proto = vlan->proto;
    return bpf_skb_adjust_room(skb, -(int)sizeof(struct vlan_hdr), BPF_ADJ_ROOM_MAC, 0) == 0;
}

/* The routed hop for `p`, written into the packet; 0 when it must drop. */
static __always_inline int route(struct parsed *p, struct ecmp_group *group, __be16 sport)
{
    if (!group->count)
        return 1;
    __u8 in[6];
    __builtin_memcpy(in, &p->ip->saddr, 4);
    __builtin_memcpy(in + 4, &sport, 2);
    __u32 pick = crc32(in, 6) % group->count;
    if (pick >= ECMP_MAX)
        return 1;
    struct next_hop *hop = &group->hops[pick];
    __be16 old_word = *(__be16 *)&p->ip->ttl;
    p->ip->ttl--;
    p->ip->check = csum_replace2(p->ip->check, old_word, *(__be16 *)&p->ip->ttl);
    __builtin_memcpy(p->eth->h_source, hop->smac, ETH_ALEN);
    __builtin_memcpy(p->eth->h_dest, hop->dmac, ETH_ALEN);
    if (p->vlan)
        set_vlan(p->vlan, hop->vlan);
    return p->ip->ttl != 0;
}

/* A copy of the packet to every member of `group` but `in_port`. */
static __always_inline int flood(struct __sk_buff *skb, __u32 group, __u32 in_port)
{
    struct flood_group *g = bpf_map_lookup_elem(&floods, &group);
    if (!g)
        return TC_ACT_SHOT;
    skb->cb[0] = COPY_MARK;
    for (__u32 i = 0; i < FLOOD_MAX && i < g->count; i++) {
        if (g->ports[i] != in_port)
            bpf_clone_redirect(skb, g->ports[i], 0);
    }
    skb->cb[0] = 0;
    return TC_ACT_SHOT;
}

SEC("tc")
int l2l3_acl_tc(struct __sk_buff *skb)
{
    __u32 in_port = skb->ingress_ifindex;
    __u32 frame_len = skb->len;
    struct port_count *count = bpf_map_lookup_elem(&in_pkts, &in_port);
    if (count) {
        count->packets++;
        count->bytes += frame_len;
    }
    struct parsed p;
    if (!parse_shared((void *)(long)skb->data, (void *)(long)skb->data_end, &p))
        return TC_ACT_SHOT;
    struct port_tag_key port_tag = { .port = in_port, .tagged = p.vlan != 0 };
    __u32 *tagging = bpf_map_lookup_elem(&ingress_vlan, &port_tag);
    if (tagging && *tagging == PUSH_VLAN) {
        if (!push_vlan(skb) ||
            !parse_shared((void *)(long)skb->data, (void *)(long)skb->data_end, &p))
            return TC_ACT_SHOT;
    }
    __u16 vid = vlan_of(p.vlan);
    if (!bpf_map_lookup_elem(&known_macs, p.eth->h_source)) {
        struct mac_learn learn = { .vlan = vid, .port = in_port };
        __builtin_memcpy(learn.mac, p.eth->h_source, ETH_ALEN);
        bpf_ringbuf_output(&learned, &learn, sizeof(learn), 0);
    }
    __be16 sport = p.udp ? p.udp->source : p.tcp ? p.tcp->source : 0;
    __be16 dport = p.udp ? p.udp->dest : p.tcp ? p.tcp->dest : 0;
    struct mac_vlan_key to = { .vlan = vid };
    __builtin_memcpy(to.mac, p.eth->h_dest, ETH_ALEN);
    if (p.ip && bpf_map_lookup_elem(&routable, &to)) {
        struct route_key rk = { .prefixlen = 32, .addr = p.ip->daddr };
        struct ecmp_group *group = bpf_map_lookup_elem(&routes, &rk);
        if (group && !route(&p, group, sport))
            return TC_ACT_SHOT;
        to.vlan = vlan_of(p.vlan);
        __builtin_memcpy(to.mac, p.eth->h_dest, ETH_ALEN);
    }
    struct switch_action *sw = bpf_map_lookup_elem(&switching, &to);
    if (!sw)
        return TC_ACT_SHOT;
    if (p.ip) {
        struct five_tuple t = { .src = p.ip->saddr, .dst = p.ip->daddr, .sport = sport,
                                .dport = dport, .proto = p.ip->protocol };
        if (bpf_map_lookup_elem(&acl, &t))
            return TC_ACT_SHOT;
    }
    if (sw->action == FLOOD)
        return flood(skb, sw->arg, in_port);
    if (sw->action != FORWARD)
        return TC_ACT_SHOT;
    __u32 out = sw->arg;
    if (!egress(skb, out, frame_len))
        return TC_ACT_SHOT;
    return bpf_redirect(out, 0);
}

/* Egress of a flood copy, at TC egress of every port. */
SEC("tc")
int l2l3_acl_tc_egress(struct __sk_buff *skb)
{
    if (skb->cb[0] != COPY_MARK)
        return TC_ACT_OK;
    skb->cb[0] = 0;
    return egress(skb, skb->ifindex, skb->len) ? TC_ACT_OK : TC_ACT_SHOT;
}

char LICENSE[] SEC("license") = "GPL";
