/* The user-space stand-ins behave as the kernel does: map flags and
 * capacities, LPM longest match, LRU eviction, packet resize limits, csum_diff. Built
 * with sanitizers by crates/runtime/tests/user_c.rs; exits 0 when every
 * check holds, else prints the first one that failed. */
#include "p4u_runtime.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void p4u_fatal(const char *why)
{
    fprintf(stderr, "fatal: %s\n", why);
    exit(70);
}

#define CHECK(cond)                                                     \
    do {                                                                \
        if (!(cond)) {                                                  \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            return 1;                                                   \
        }                                                               \
    } while (0)

struct { __uint(type, BPF_MAP_TYPE_HASH); __type(key, __u32); __type(value, __u64); __uint(max_entries, 2); } hash SEC(".maps");
struct { __uint(type, BPF_MAP_TYPE_ARRAY); __type(key, __u32); __type(value, __u32); __uint(max_entries, 4); } array SEC(".maps");
struct lpm_key { __u32 prefixlen; __u8 addr[4]; };
struct { __uint(type, BPF_MAP_TYPE_LPM_TRIE); __type(key, struct lpm_key); __type(value, __u32); __uint(max_entries, 3); __uint(map_flags, BPF_F_NO_PREALLOC); } lpm SEC(".maps");

struct { __uint(type, BPF_MAP_TYPE_LRU_HASH); __type(key, __u32); __type(value, __u32); __uint(max_entries, 2); } lru SEC(".maps");
struct { __uint(type, BPF_MAP_TYPE_DEVMAP_HASH); __type(key, __u32); __type(value, __u32); __uint(max_entries, 4); } ports SEC(".maps");

static int maps(void)
{
    __u32 k1 = 1, k2 = 2, k3 = 3;
    __u64 v = 10, w = 20;
    CHECK(bpf_map_lookup_elem(&hash, &k1) == NULL);
    CHECK(bpf_map_update_elem(&hash, &k1, &v, BPF_EXIST) == -ENOENT);
    CHECK(bpf_map_update_elem(&hash, &k1, &v, BPF_NOEXIST) == 0);
    CHECK(bpf_map_update_elem(&hash, &k1, &w, BPF_NOEXIST) == -EEXIST);
    CHECK(bpf_map_update_elem(&hash, &k1, &w, BPF_EXIST) == 0);
    CHECK(*(__u64 *)bpf_map_lookup_elem(&hash, &k1) == 20);
    CHECK(bpf_map_update_elem(&hash, &k2, &v, BPF_ANY) == 0);
    CHECK(bpf_map_update_elem(&hash, &k3, &v, BPF_ANY) == -E2BIG);
    CHECK(bpf_map_update_elem(&hash, &k1, &v, 4) == -EINVAL);
    CHECK(bpf_map_delete_elem(&hash, &k2) == 0);
    CHECK(bpf_map_delete_elem(&hash, &k2) == -ENOENT);
    CHECK(bpf_map_update_elem(&hash, &k3, &v, BPF_ANY) == 0);

    __u32 *slot = bpf_map_lookup_elem(&array, &k3);
    __u32 four = 4, seven = 7;
    CHECK(slot && *slot == 0);
    CHECK(bpf_map_lookup_elem(&array, &four) == NULL);
    CHECK(bpf_map_update_elem(&array, &four, &seven, BPF_ANY) == -E2BIG);
    CHECK(bpf_map_update_elem(&array, &k3, &seven, BPF_NOEXIST) == -EEXIST);
    CHECK(bpf_map_update_elem(&array, &k3, &seven, BPF_EXIST) == 0 && *slot == 7);
    CHECK(bpf_map_delete_elem(&array, &k3) == -EINVAL);

    struct lpm_key net8 = { 8, { 10, 99, 99, 99 } }, net16 = { 16, { 10, 1, 0, 0 } };
    struct lpm_key all = { 0, { 0 } }, probe = { 32, { 10, 1, 2, 3 } }, other = { 32, { 11, 0, 0, 1 } };
    __u32 a = 8, b = 16, c = 0;
    CHECK(bpf_map_update_elem(&lpm, &net8, &a, BPF_ANY) == 0);
    CHECK(bpf_map_update_elem(&lpm, &net16, &b, BPF_ANY) == 0);
    CHECK(*(__u32 *)bpf_map_lookup_elem(&lpm, &probe) == 16);
    CHECK(bpf_map_lookup_elem(&lpm, &other) == NULL);
    CHECK(bpf_map_update_elem(&lpm, &all, &c, BPF_ANY) == 0);
    CHECK(*(__u32 *)bpf_map_lookup_elem(&lpm, &other) == 0);
    /* Bits past the prefix do not make a new key. */
    struct lpm_key net8_again = { 8, { 10, 0, 0, 0 } };
    CHECK(bpf_map_update_elem(&lpm, &net8_again, &b, BPF_NOEXIST) == -EEXIST);
    struct lpm_key extra = { 24, { 10, 1, 2, 0 } }, too_long = { 33, { 0 } };
    CHECK(bpf_map_update_elem(&lpm, &extra, &c, BPF_ANY) == -ENOSPC);
    CHECK(bpf_map_update_elem(&lpm, &too_long, &c, BPF_ANY) == -EINVAL);
    return 0;
}

static int packets(void)
{
    unsigned char frame[20] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 };
    p4u_packet_load(frame, sizeof frame);
    CHECK(bpf_xdp_adjust_head(&p4u_xdp, 7) == -EINVAL); /* would leave 13 bytes */
    CHECK(bpf_xdp_adjust_head(&p4u_xdp, 6) == 0);
    CHECK(p4u_xdp.data_end - p4u_xdp.data == 14 && ((unsigned char *)p4u_xdp.data)[0] == 7);
    CHECK(bpf_xdp_adjust_head(&p4u_xdp, -262) == 0); /* all 256 + 6 bytes of headroom */
    CHECK(bpf_xdp_adjust_head(&p4u_xdp, -1) == -EINVAL);

    p4u_packet_load(frame, sizeof frame);
    CHECK(bpf_skb_change_head(&p4u_skb, 4, 0) == 0);
    CHECK(p4u_skb.len == 24 && ((unsigned char *)p4u_skb.data)[3] == 0 && ((unsigned char *)p4u_skb.data)[4] == 1);
    CHECK(bpf_skb_change_tail(&p4u_skb, 13, 0) == -EINVAL);
    CHECK(bpf_skb_change_tail(&p4u_skb, 30, 0) == 0 && ((unsigned char *)p4u_skb.data)[29] == 0);
    unsigned char two[2];
    CHECK(bpf_skb_load_bytes(&p4u_skb, 29, two, 2) == -EFAULT);
    CHECK(bpf_skb_load_bytes(&p4u_skb, 4, two, 2) == 0 && two[1] == 2);
    CHECK(bpf_skb_store_bytes(&p4u_skb, 0, two, 2, 0) == 0 && ((unsigned char *)p4u_skb.data)[0] == 1);
    CHECK(bpf_skb_pull_data(&p4u_skb, 31) == -ENOMEM);

    p4u_hook_is_tc = 1;
    CHECK(bpf_redirect(3, 0) == TC_ACT_REDIRECT);
    p4u_hook_is_tc = 0;
    CHECK(bpf_redirect(3, 0) == XDP_REDIRECT && bpf_redirect(3, 1) == XDP_ABORTED);
    __u32 port = 7, ifindex = 1;
    CHECK(bpf_map_lookup_elem(&ports, &port) == NULL);
    CHECK(bpf_redirect_map(&ports, 7, XDP_DROP) == XDP_DROP);
    CHECK(bpf_map_update_elem(&ports, &port, &ifindex, BPF_NOEXIST) == 0);
    CHECK(bpf_redirect_map(&ports, 7, XDP_DROP) == XDP_REDIRECT);
    CHECK(bpf_redirect_map(&ports, 7, 1 << 5) == XDP_ABORTED);
    return 0;
}

/* BPF_ADJ_ROOM_MAC as net/core/filter.c has it: after the MAC header
 * (further in once the head grew), IPv4/IPv6 only, a whole IPv4 header
 * kept; the network header found there by bpf_skb_load_bytes_relative. */
static int adjust_room(void)
{
    unsigned char frame[40] = { 0 };
    for (int i = 0; i < 40; i++)
        frame[i] = (unsigned char)i;
    frame[12] = 0x08, frame[13] = 0x00;
    p4u_packet_load(frame, sizeof frame);
    p4u_skb.protocol = htons(0x0800);
    unsigned char byte;
    CHECK(bpf_skb_load_bytes_relative(&p4u_skb, 25, &byte, 1, BPF_HDR_START_NET) == 0 && byte == 39);
    CHECK(bpf_skb_load_bytes_relative(&p4u_skb, 26, &byte, 1, BPF_HDR_START_NET) == -EFAULT);
    CHECK(bpf_skb_adjust_room(&p4u_skb, -7, BPF_ADJ_ROOM_MAC, 0) == -ENOTSUP); /* 19 bytes left */
    CHECK(bpf_skb_adjust_room(&p4u_skb, -6, BPF_ADJ_ROOM_MAC, 0) == 0);
    unsigned char *data = (unsigned char *)p4u_skb.data;
    CHECK(p4u_skb.len == 34 && data[13] == 0 && data[14] == 20 && data[33] == 39);
    CHECK(bpf_skb_adjust_room(&p4u_skb, 2, BPF_ADJ_ROOM_MAC, 0) == 0);
    data = (unsigned char *)p4u_skb.data;
    CHECK(p4u_skb.len == 36 && data[14] == 0 && data[15] == 0 && data[16] == 20);
    CHECK(bpf_skb_change_head(&p4u_skb, 4, 0) == 0);
    CHECK(bpf_skb_load_bytes_relative(&p4u_skb, 0, &byte, 1, BPF_HDR_START_NET) == 0 && byte == 0);
    CHECK(bpf_skb_adjust_room(&p4u_skb, -1, BPF_ADJ_ROOM_MAC, 0) == 0);
    CHECK(((unsigned char *)p4u_skb.data)[18] == 0 && ((unsigned char *)p4u_skb.data)[19] == 20);
    p4u_skb.protocol = htons(0x9000);
    CHECK(bpf_skb_adjust_room(&p4u_skb, -1, BPF_ADJ_ROOM_MAC, 0) == -ENOTSUP);
    return 0;
}

static int checksums(void)
{
    __be32 from[1] = { 0x0000ffff }, to[1] = { 0x00000001 };
    /* ~0xffff + 1 as a 32-bit one's-complement sum. */
    CHECK(bpf_csum_diff(from, 4, to, 4, 0) == (long)(__u32)(~0x0000ffffu + 1u));
    CHECK(bpf_csum_diff(from, 3, to, 4, 0) == -EINVAL);
    CHECK(bpf_csum_diff(NULL, 0, to, 4, 5) == 6);
    return 0;
}

static __u32 meta_word(void)
{
    __u32 word;
    memcpy(&word, (void *)(long)p4u_xdp.data_meta, sizeof word);
    return word;
}

/* XDP metadata: whole words, at most 32 bytes, moved with the packet. */
static int metadata(void)
{
    unsigned char frame[20] = { 0xaa };
    p4u_packet_load(frame, sizeof frame);
    CHECK(p4u_xdp.data_meta == p4u_xdp.data);
    CHECK(bpf_xdp_adjust_meta(&p4u_xdp, -2) == -EINVAL);
    CHECK(bpf_xdp_adjust_meta(&p4u_xdp, -36) == -EACCES);
    CHECK(bpf_xdp_adjust_meta(&p4u_xdp, -4) == 0 && p4u_xdp.data - p4u_xdp.data_meta == 4);
    __u32 word = 0x01020304;
    memcpy((void *)(long)p4u_xdp.data_meta, &word, sizeof word);
    CHECK(bpf_xdp_adjust_head(&p4u_xdp, 2) == 0 && meta_word() == word);
    CHECK(bpf_xdp_adjust_head(&p4u_xdp, -10) == 0 && meta_word() == word);
    CHECK(p4u_xdp.data - p4u_xdp.data_meta == 4);
    return 0;
}

struct devmap_def {
    __uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
    __uint(key_size, sizeof(__u32));
    __uint(value_size, sizeof(struct bpf_devmap_val));
    __uint(max_entries, 4);
};
struct { __uint(type, BPF_MAP_TYPE_HASH_OF_MAPS); __type(key, __u64); __uint(max_entries, 2); __array(values, struct devmap_def); } outer SEC(".maps");

/* A full LRU hash makes room for a new key by dropping the least recently
 * used one, a lookup counting as a use. */
static int lru_maps(void)
{
    __u32 k1 = 1, k2 = 2, k3 = 3, v = 5;
    CHECK(bpf_map_update_elem(&lru, &k1, &v, BPF_ANY) == 0);
    CHECK(bpf_map_update_elem(&lru, &k2, &v, BPF_ANY) == 0);
    CHECK(bpf_map_lookup_elem(&lru, &k1) != NULL);
    CHECK(bpf_map_update_elem(&lru, &k3, &v, BPF_ANY) == 0);
    CHECK(bpf_map_lookup_elem(&lru, &k2) == NULL);
    CHECK(bpf_map_lookup_elem(&lru, &k1) != NULL && bpf_map_lookup_elem(&lru, &k3) != NULL);
    CHECK(bpf_map_update_elem(&lru, &k2, &v, BPF_NOEXIST) == 0);
    CHECK(bpf_map_lookup_elem(&lru, &k1) == NULL);
    return 0;
}

static __u32 walked[8], walked_count;

static void note(const struct bpf_devmap_val *entry)
{
    walked[walked_count++] = entry->ifindex;
}

/* A map of maps hands out its inner map; a broadcast walks a DEVMAP_HASH
 * by bucket (key modulo 8 for 5 entries), newest first in a bucket. */
static int maps_of_maps(void)
{
    struct p4u_map_shape shape = { BPF_MAP_TYPE_DEVMAP_HASH, 4, 8, 5 };
    struct p4u_map *inner = p4u_map_create(shape);
    __u64 key = 1;
    __u32 bad = 200;
    CHECK(bpf_map_update_elem(&outer, &key, &bad, BPF_ANY) == -EBADF);
    char name[16];
    snprintf(name, sizeof name, "%s", p4u_map_name(inner));
    __u32 id = (__u32)atoi(name + 1);
    CHECK(bpf_map_update_elem(&outer, &key, &id, BPF_ANY) == 0);
    CHECK(bpf_map_lookup_elem(&outer, &key) == inner);
    __u32 keys[] = { 9, 2, 1, 0 };
    for (int i = 0; i < 4; i++) {
        struct bpf_devmap_val value = { .ifindex = 100 + keys[i], .bpf_prog.fd = 1 };
        CHECK(p4u_map_update(inner, &keys[i], &value, BPF_ANY) == 0);
    }
    p4u_devmap_walk(inner, note);
    CHECK(walked_count == 4 && walked[0] == 100 && walked[1] == 101 && walked[2] == 109 && walked[3] == 102);
    CHECK(bpf_redirect_map(bpf_map_lookup_elem(&outer, &key), 0, BPF_F_BROADCAST) == XDP_REDIRECT);
    CHECK(p4u_redirect_broadcast == inner);
    CHECK(bpf_redirect_map(&ports, 7, 0) == XDP_REDIRECT && !p4u_redirect_broadcast);
    CHECK(bpf_map_delete_elem(&outer, &key) == 0 && !p4u_map_named(name) && !p4u_inner_map(&id));
    return 0;
}

/* The devmap program stand-in: notes where each copy went and the
 * metadata it came with; drops copies to interface 66. */
static __u32 egress_order[40], egress_meta[40], egress_count;

int p4u_egress_entry(void)
{
    egress_order[egress_count] = p4u_xdp.egress_ifindex;
    egress_meta[egress_count++] = meta_word();
    return p4u_xdp.egress_ifindex == 66 ? XDP_DROP : XDP_PASS;
}

/* A broadcast queues copies per device in walk order and runs them when
 * 16 wait and at the flush, newest device first, metadata included. */
static int broadcasts(void)
{
    struct p4u_map_shape shape = { BPF_MAP_TYPE_DEVMAP_HASH, 4, 8, 20 };
    struct p4u_map *devmap = p4u_map_create(shape);
    for (__u32 key = 0; key < 20; key++) {
        __u32 ifindex = key == 1 ? 55 : key == 3 ? 66 : 44;
        struct bpf_devmap_val value = { .ifindex = ifindex, .bpf_prog.fd = 1 };
        CHECK(p4u_map_update(devmap, &key, &value, BPF_ANY) == 0);
    }
    unsigned char frame[20] = { 0 };
    p4u_packet_load(frame, sizeof frame);
    p4u_hook_is_tc = 0;
    __u32 word = 0xfeed;
    CHECK(bpf_xdp_adjust_meta(&p4u_xdp, -4) == 0);
    memcpy((void *)(long)p4u_xdp.data_meta, &word, sizeof word);
    CHECK(bpf_redirect_map(devmap, 0, BPF_F_BROADCAST) == XDP_REDIRECT);
    CHECK(p4u_broadcast(XDP_PASS) == 0 && !p4u_redirect_broadcast);
    CHECK(bpf_redirect_map(devmap, 0, BPF_F_BROADCAST) == XDP_REDIRECT);
    CHECK(p4u_broadcast(XDP_REDIRECT) == 1);
    /* 18 copies to 44: its first 16 run when the 17th comes (key 18), then
     * the flush runs 66, 55, and 44's last two. */
    CHECK(egress_count == 20);
    for (__u32 i = 0; i < 16; i++)
        CHECK(egress_order[i] == 44);
    CHECK(egress_order[16] == 66 && egress_order[17] == 55);
    CHECK(egress_order[18] == 44 && egress_order[19] == 44);
    for (__u32 i = 0; i < 20; i++)
        CHECK(egress_meta[i] == word);
    CHECK(meta_word() == word && p4u_xdp.egress_ifindex == 0);
    return 0;
}

static void ignore_hex(const unsigned char *bytes, __u32 length)
{
    (void)bytes, (void)length;
}

int main(void)
{
    int failed = maps() || lru_maps() || packets() || adjust_room() || checksums() || metadata() || maps_of_maps() || broadcasts();
    p4u_copies_put(ignore_hex);
    free(p4u_current.buffer);
    if (!failed)
        puts("all checks hold");
    return failed;
}
