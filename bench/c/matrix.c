/* SPDX-License-Identifier: Apache-2.0 */
/* Twin of the table matrix programs, set at compile time: KIND (0 exact,
 * 1 LPM, 2 ternary), TABLES (1 to 3 lookups in sequence), KEY_WORDS (the
 * IPv4 destination and the 32-bit words after it; LPM and ternary use the
 * destination alone, as the matrix does) and SIZE (entries per table).
 * Each table: on a hit write the destination MAC and XDP_TX, on a miss
 * XDP_DROP, the last table deciding. Ternary is the grouped design of
 * ternary_grouped.c, one group map and one bucket map per table. */
#include "common.h"

#ifndef KIND
#define KIND 0
#endif
#ifndef TABLES
#define TABLES 1
#endif
#ifndef KEY_WORDS
#define KEY_WORDS 1
#endif
#ifndef SIZE
#define SIZE 1024
#endif
#if KIND != 0 && KEY_WORDS != 1
#error "LPM and ternary twins key on the IPv4 destination alone"
#endif

/* Ethernet (14) and IPv4 up to its source address (16): the key starts here. */
#define KEY_OFFSET 30

struct hop {
    __u8 dmac[ETH_ALEN];
    __u16 pad;
};

#if KIND == 0
struct key {
    __be32 word[KEY_WORDS];
};
#define TABLE(name)                                        \
    struct {                                               \
        __uint(type, BPF_MAP_TYPE_HASH);                   \
        __type(key, struct key);                           \
        __type(value, struct hop);                         \
        __uint(max_entries, SIZE);                         \
    } name SEC(".maps")
#elif KIND == 1
struct key {
    __u32 prefixlen;
    __be32 addr;
};
#define TABLE(name)                                        \
    struct {                                               \
        __uint(type, BPF_MAP_TYPE_LPM_TRIE);               \
        __type(key, struct key);                           \
        __type(value, struct hop);                         \
        __uint(max_entries, SIZE);                         \
        __uint(map_flags, BPF_F_NO_PREALLOC);              \
    } name SEC(".maps")
#else
#define MAX_GROUPS 8
#define BUCKET_RULES 8
struct groups {
    __u32 count;
    __be32 mask[MAX_GROUPS];
};
struct bucket_key {
    __u32 group;
    __be32 bits; /* destination & the group's relaxed mask */
};
struct rule {
    __be32 value;
    __be32 mask;
    __u32 priority;
    struct hop hop;
};
struct bucket {
    __u32 count; /* rules in use, best priority first */
    struct rule rule[BUCKET_RULES];
};
struct table {
    __uint(type, BPF_MAP_TYPE_HASH);
    __type(key, struct bucket_key);
    __type(value, struct bucket);
    __uint(max_entries, SIZE);
};
#define TABLE(name)                                        \
    struct {                                               \
        __uint(type, BPF_MAP_TYPE_ARRAY);                  \
        __type(key, __u32);                                \
        __type(value, struct groups);                      \
        __uint(max_entries, 1);                            \
    } name##_groups SEC(".maps");                          \
    struct table name SEC(".maps")
#endif

TABLE(t0);
#if TABLES > 1
TABLE(t1);
#endif
#if TABLES > 2
TABLE(t2);
#endif

#if KIND == 2
/* The best rule of a grouped ternary table for `dst`, or 0. */
static __always_inline struct hop *ternary_lookup(void *groups_map, void *buckets, __be32 dst)
{
    __u32 zero = 0;
    struct groups *groups = bpf_map_lookup_elem(groups_map, &zero);
    if (!groups)
        return 0;
    struct rule *best = 0;
    for (__u32 g = 0; g < MAX_GROUPS; g++) {
        if (g >= groups->count)
            break;
        struct bucket_key key = { .group = g, .bits = dst & groups->mask[g] };
        struct bucket *bucket = bpf_map_lookup_elem(buckets, &key);
        if (!bucket)
            continue;
        for (__u32 r = 0; r < BUCKET_RULES; r++) {
            if (r >= bucket->count)
                break;
            struct rule *rule = &bucket->rule[r];
            if ((dst & rule->mask) == rule->value) {
                if (!best || rule->priority > best->priority)
                    best = rule;
                break; /* sorted: the first match is the bucket's best */
            }
        }
    }
    return best ? &best->hop : 0;
}
#define LOOKUP(name) ternary_lookup(&name##_groups, &name, *(__be32 *)key_at)
#elif KIND == 1
#define LOOKUP(name) bpf_map_lookup_elem(&name, &key)
#else
/* The key is a run of packet bytes: probe with the packet pointer itself. */
#define LOOKUP(name) bpf_map_lookup_elem(&name, key_at)
#endif

/* One table: a hit forwards to its MAC, a miss drops. */
#define APPLY(name)                                        \
    do {                                                   \
        struct hop *hop = LOOKUP(name);                    \
        if (hop) {                                         \
            __builtin_memcpy(eth->h_dest, hop->dmac, ETH_ALEN); \
            action = XDP_TX;                               \
        } else {                                           \
            action = XDP_DROP;                             \
        }                                                  \
    } while (0)

SEC("xdp")
int matrix_xdp(struct xdp_md *ctx)
{
    void *data = (void *)(long)ctx->data;
    void *end = (void *)(long)ctx->data_end;
    struct ethhdr *eth = data;
    void *key_at = data + KEY_OFFSET;
    if (key_at + 4 * KEY_WORDS > end)
        return XDP_DROP;
#if KIND == 1
    struct key key = { .prefixlen = 32, .addr = *(__be32 *)key_at };
#endif
    int action = XDP_DROP;
    APPLY(t0);
#if TABLES > 1
    APPLY(t1);
#endif
#if TABLES > 2
    APPLY(t2);
#endif
    return action;
}

char LICENSE[] SEC("license") = "GPL";
