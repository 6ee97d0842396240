/* User-space target: the packet buffer and the helpers that resize, read
 * and write it, plus redirect, time, checksum and perf event helpers, with the
 * kernel's limits: XDP has 256 bytes of headroom and keeps at least an
 * Ethernet header (a frame that came in shorter keeps no floor); TC grows the buffer as needed and zero-fills new bytes.
 * bpf_skb_adjust_room adds or removes bytes after the MAC header, for
 * IPv4/IPv6 packets only, as the kernel does (the generated code moves
 * the bytes itself otherwise). */
#include "p4u_runtime.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define XDP_HEADROOM 256
#define ETH_HLEN 14

int p4u_hook_is_tc;
struct p4u_packet p4u_current;
struct xdp_md p4u_xdp;
struct __sk_buff p4u_skb;
struct p4u_map *p4u_redirect_broadcast;

void p4u_context_refresh(void)
{
    unsigned char *data = p4u_current.buffer + p4u_current.headroom;
    p4u_xdp.data = (long)data;
    p4u_xdp.data_end = (long)(data + p4u_current.length);
    p4u_xdp.data_meta = (long)(data - p4u_current.meta_length);
    p4u_skb.data = p4u_xdp.data;
    p4u_skb.data_end = p4u_xdp.data_end;
    p4u_skb.len = p4u_current.length;
}

/* Replace the buffer by one with `headroom` and `length` bytes of packet,
 * copying `keep` bytes from offset `from` of the old packet to offset `to`;
 * the metadata stays just before the packet. */
static void rebuffer(__u32 headroom, __u32 length, __u32 from, __u32 to, __u32 keep)
{
    unsigned char *fresh = calloc(1, (size_t)headroom + length + 1);
    if (!fresh)
        p4u_fatal("out of memory for a packet");
    __u32 meta = p4u_current.meta_length;
    memcpy(fresh + headroom - meta, p4u_current.buffer + p4u_current.headroom - meta, meta);
    memcpy(fresh + headroom + to, p4u_current.buffer + p4u_current.headroom + from, keep);
    free(p4u_current.buffer);
    p4u_current.buffer = fresh;
    p4u_current.headroom = headroom;
    p4u_current.length = length;
    p4u_context_refresh();
}

void p4u_packet_load(const unsigned char *bytes, __u32 length)
{
    free(p4u_current.buffer);
    p4u_current.buffer = calloc(1, (size_t)XDP_HEADROOM + length + 1);
    if (!p4u_current.buffer)
        p4u_fatal("out of memory for a packet");
    memcpy(p4u_current.buffer + XDP_HEADROOM, bytes, length);
    p4u_current.headroom = XDP_HEADROOM;
    p4u_current.length = length;
    p4u_current.min_length = length < ETH_HLEN ? 0 : ETH_HLEN;
    p4u_current.network_offset = p4u_current.min_length;
    p4u_current.meta_length = 0;
    p4u_redirect_broadcast = NULL;
    /* Each packet has a fresh socket buffer, as BPF_PROG_TEST_RUN gives:
     * no metadata, and the protocol eth_type_trans finds (Ethernet II). */
    p4u_skb.mark = 0;
    p4u_skb.queue_mapping = 0;
    p4u_skb.tc_index = 0;
    p4u_skb.tc_classid = 0;
    p4u_skb.tstamp = 0;
    __u16 ethertype = length >= ETH_HLEN ? (__u16)(bytes[12] << 8 | bytes[13]) : 0;
    p4u_skb.protocol = ethertype >= 0x600 ? htons(ethertype) : 0;
    p4u_context_refresh();
}

long bpf_xdp_adjust_head(struct xdp_md *ctx, int delta)
{
    (void)ctx;
    long headroom = (long)p4u_current.headroom + delta;
    long length = (long)p4u_current.length - delta;
    if (headroom < (long)p4u_current.meta_length || length < p4u_current.min_length)
        return -EINVAL;
    /* A fresh buffer, so reads before the new start are caught too. */
    if (delta >= 0)
        rebuffer((__u32)headroom, (__u32)length, (__u32)delta, 0, (__u32)length);
    else
        rebuffer((__u32)headroom, (__u32)length, 0, (__u32)-delta, p4u_current.length);
    return 0;
}

/* The kernel's limits: the metadata is whole 32-bit words, at most 32
 * bytes, within the headroom. */
long bpf_xdp_adjust_meta(struct xdp_md *ctx, int delta)
{
    (void)ctx;
    long meta = (long)p4u_current.meta_length - delta;
    if (meta < 0 || meta > (long)p4u_current.headroom || meta % 4)
        return -EINVAL;
    if (meta > 32)
        return -EACCES;
    p4u_current.meta_length = (__u32)meta;
    p4u_context_refresh();
    return 0;
}

long bpf_xdp_adjust_tail(struct xdp_md *ctx, int delta)
{
    (void)ctx;
    long length = (long)p4u_current.length + delta;
    if (delta > 0 || length < p4u_current.min_length)
        return -EINVAL;
    rebuffer(p4u_current.headroom, (__u32)length, 0, 0, (__u32)length);
    return 0;
}

/* No packet here has its VLAN tag outside its bytes: nothing to pop. */
long bpf_skb_vlan_pop(struct __sk_buff *skb)
{
    (void)skb;
    return 0;
}

long bpf_skb_change_head(struct __sk_buff *skb, __u32 len, __u64 flags)
{
    (void)skb;
    if (flags || len > 0xffff)
        return -EINVAL;
    rebuffer(p4u_current.headroom, p4u_current.length + len, 0, len, p4u_current.length);
    p4u_current.network_offset += len;
    return 0;
}

long bpf_skb_change_tail(struct __sk_buff *skb, __u32 len, __u64 flags)
{
    (void)skb;
    if (flags || len < p4u_current.min_length || len > 0xffff)
        return -EINVAL;
    __u32 keep = len < p4u_current.length ? len : p4u_current.length;
    rebuffer(p4u_current.headroom, len, 0, 0, keep);
    return 0;
}

/* net/core/filter.c's rules for BPF_ADJ_ROOM_MAC without flags: IPv4 or
 * IPv6 only, at most 0xfff bytes, room opened (zeroed) or closed right
 * after the MAC header, a whole IP header left after it. */
long bpf_skb_adjust_room(struct __sk_buff *skb, __s32 len_diff, __u32 mode, __u64 flags)
{
    __u32 off = p4u_current.network_offset, length = p4u_current.length;
    __u32 len_abs = len_diff < 0 ? (__u32)0 - (__u32)len_diff : (__u32)len_diff;
    int ipv4 = skb->protocol == htons(0x0800), ipv6 = skb->protocol == htons(0x86dd);
    if (flags || len_abs > 0xfff)
        return -EINVAL;
    if (mode != BPF_ADJ_ROOM_MAC || (!ipv4 && !ipv6) || off > length)
        return -ENOTSUP;
    unsigned char *data = p4u_current.buffer + p4u_current.headroom;
    __u32 len_cur = length - off, len_min = ipv4 ? 20 : 40;
    if (len_diff < 0) {
        if (len_abs >= len_cur || len_cur - len_abs < len_min)
            return -ENOTSUP;
        memmove(data + off, data + off + len_abs, len_cur - len_abs);
        rebuffer(p4u_current.headroom, length - len_abs, 0, 0, length - len_abs);
        return 0;
    }
    if (length + len_abs > 0xffff)
        return -ENOTSUP;
    rebuffer(p4u_current.headroom, length + len_abs, 0, 0, length);
    data = p4u_current.buffer + p4u_current.headroom;
    memmove(data + off + len_abs, data + off, len_cur);
    memset(data + off, 0, len_abs);
    return 0;
}

/* The packet's bytes from its MAC header (its start) or its network
 * header on, as the kernel's bounds check them. */
long bpf_skb_load_bytes_relative(const struct __sk_buff *skb, __u32 offset, void *to, __u32 len,
                                 __u32 start_header)
{
    __u32 start = start_header == BPF_HDR_START_NET ? p4u_current.network_offset : 0;
    if (offset > 0xffff || start_header > BPF_HDR_START_NET) {
        memset(to, 0, len);
        return -EFAULT;
    }
    return bpf_skb_load_bytes(skb, start + offset, to, len);
}

/* The host packet is one linear buffer already; the kernel refuses only a
 * length beyond the packet (skb_ensure_writable: -ENOMEM). */
long bpf_skb_pull_data(struct __sk_buff *skb, __u32 len)
{
    (void)skb;
    return len > p4u_current.length ? -ENOMEM : 0;
}

long bpf_skb_load_bytes(const struct __sk_buff *skb, __u32 offset, void *to, __u32 len)
{
    (void)skb;
    if ((__u64)offset + len > p4u_current.length) {
        memset(to, 0, len);
        return -EFAULT;
    }
    memcpy(to, p4u_current.buffer + p4u_current.headroom + offset, len);
    return 0;
}

long bpf_skb_store_bytes(struct __sk_buff *skb, __u32 offset, const void *from, __u32 len, __u64 flags)
{
    (void)skb;
    if (flags || (__u64)offset + len > p4u_current.length)
        return -EFAULT;
    memmove(p4u_current.buffer + p4u_current.headroom + offset, from, len);
    return 0;
}

/* The same bytes as the skb helpers: the host packet is one buffer. */
long bpf_xdp_load_bytes(struct xdp_md *ctx, __u32 offset, void *buf, __u32 len)
{
    (void)ctx;
    return bpf_skb_load_bytes(NULL, offset, buf, len);
}

long bpf_xdp_store_bytes(struct xdp_md *ctx, __u32 offset, void *buf, __u32 len)
{
    (void)ctx;
    return bpf_skb_store_bytes(NULL, offset, buf, len, 0);
}

long bpf_redirect(__u32 ifindex, __u64 flags)
{
    (void)ifindex;
    if (p4u_hook_is_tc)
        return flags ? TC_ACT_SHOT : TC_ACT_REDIRECT;
    return flags ? XDP_ABORTED : XDP_REDIRECT;
}

/* The host has no interfaces to measure: as the kernel's answer for an
 * unknown one, which the generated code leaves to the redirect. */
long bpf_check_mtu(void *ctx, __u32 ifindex, __u32 *mtu_len, __s32 len_diff, __u64 flags)
{
    (void)ctx, (void)ifindex, (void)mtu_len, (void)len_diff, (void)flags;
    return -ENODEV;
}

long p4u_redirect_map(struct p4u_map *map, __u32 key, __u64 flags)
{
    /* The kernel's rule: the low two bits are the verdict when the key is
     * missing; a broadcast redirects whatever the key; any other flag
     * aborts. The last redirect wins. */
    const __u64 action_mask = XDP_ABORTED | XDP_DROP | XDP_PASS | XDP_TX;
    if (flags & ~(action_mask | BPF_F_BROADCAST))
        return XDP_ABORTED;
    __u32 type = p4u_map_shape_of(map).type;
    int devmap = type == BPF_MAP_TYPE_DEVMAP || type == BPF_MAP_TYPE_DEVMAP_HASH;
    p4u_redirect_broadcast = (flags & BPF_F_BROADCAST) && devmap ? map : NULL;
    if (p4u_redirect_broadcast)
        return XDP_REDIRECT;
    if (flags & BPF_F_BROADCAST)
        return XDP_ABORTED;
    return p4u_map_lookup(map, &key) ? XDP_REDIRECT : (long)(flags & action_mask);
}

__u64 bpf_ktime_get_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (__u64)now.tv_sec * 1000000000u + (__u64)now.tv_nsec;
}

/* Pseudo-random numbers as the kernel's helper gives them: xorshift32,
 * one sequence per thread, the same on every run (reproducible tests). */
__u32 bpf_get_prandom_u32(void)
{
    static __thread __u32 state = 0x9e3779b9u;
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
}

/* The kernel's csum_diff: a 32-bit one's-complement partial sum of `to`
 * minus `from`, both whole 32-bit words, folded into `seed`. */
long bpf_csum_diff(__be32 *from, __u32 from_size, __be32 *to, __u32 to_size, __wsum seed)
{
    if (from_size % 4 || to_size % 4)
        return -EINVAL;
    __u64 sum = seed;
    for (__u32 i = 0; i < from_size / 4; i++)
        sum += (__u32)~from[i];
    for (__u32 i = 0; i < to_size / 4; i++)
        sum += to[i];
    while (sum >> 32)
        sum = (sum & 0xffffffffu) + (sum >> 32);
    return (long)(__u32)sum;
}

/* The kernel's bpf_perf_event_output from XDP or TC when no reader has
 * opened the ring, as in every test run: the flags and the packet length
 * to append are checked the same way, then the event is dropped with
 * -ENOENT, so both targets give the program the same result. */
long bpf_perf_event_output(void *ctx, void *map, __u64 flags, void *data, __u64 size)
{
    (void)ctx, (void)map, (void)data, (void)size;
    if (flags & ~(BPF_F_CTXLEN_MASK | BPF_F_INDEX_MASK))
        return -EINVAL;
    if ((flags & BPF_F_CTXLEN_MASK) >> 32 > p4u_current.length)
        return -EFAULT;
    return -ENOENT;
}
