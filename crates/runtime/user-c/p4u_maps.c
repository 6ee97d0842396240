/* User-space target: BPF maps with the kernel's semantics, for one CPU.
 *
 * Every map is a fixed array of max_entries slots allocated on first use,
 * so the value pointers lookups hand out stay valid, as in the kernel
 * (programs count through them). Hash and LPM maps search their used
 * slots; an LPM key is {u32 prefixlen; bytes} and matches on the first
 * prefixlen bits. An LRU hash, when full, makes room by dropping the
 * entry least recently inserted or looked up (the kernel's is approximate;
 * this one is exact). Per-CPU maps behave as one-CPU maps. Return codes are
 * the kernel's: -EEXIST, -ENOENT, -E2BIG, -ENOSPC, -EINVAL.
 *
 * Maps of maps hold inner maps' ids (the slot of `maps` they live in); a
 * program's lookup gets the inner map itself. Inner maps are made by the
 * runtime (`create`, as it would create a map and pass its descriptor)
 * and freed when no map of maps holds them any more (one never stored
 * stays: the runtime always stores what it creates). */
#include "p4u_runtime.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct p4u_map {
    const void *definition;
    char name[64];
    struct p4u_map_shape shape;
    unsigned char *keys;
    unsigned char *values;
    unsigned char *used;
    /* When each slot was inserted (devmaps walk a bucket newest first);
     * in an LRU hash, last used. */
    __u64 *stamps;
    __u32 high_water; /* slots at or above this were never used */
    /* How many maps of maps hold this map, when it has no definition. */
    __u32 holders;
};

#define P4U_MAX_MAPS 256
static struct p4u_map maps[P4U_MAX_MAPS];
static __u32 map_count;

static int is_array(const struct p4u_map *m)
{
    return m->shape.type == BPF_MAP_TYPE_ARRAY || m->shape.type == BPF_MAP_TYPE_PERCPU_ARRAY;
}

static int is_lpm(const struct p4u_map *m)
{
    return m->shape.type == BPF_MAP_TYPE_LPM_TRIE;
}

static int is_map_of_maps(const struct p4u_map *m)
{
    return m->shape.type == BPF_MAP_TYPE_HASH_OF_MAPS || m->shape.type == BPF_MAP_TYPE_ARRAY_OF_MAPS;
}

static __u64 insertions;

static int is_lru(const struct p4u_map *m)
{
    return m->shape.type == BPF_MAP_TYPE_LRU_HASH;
}

/* The least recently used slot of a full LRU hash, freed for a new key. */
static long evict_least_recent(struct p4u_map *m)
{
    long oldest = -1;
    for (__u32 i = 0; i < m->shape.max_entries; i++)
        if (m->used[i] && (oldest < 0 || m->stamps[i] < m->stamps[oldest]))
            oldest = i;
    if (oldest >= 0)
        m->used[oldest] = 0;
    return oldest;
}

/* A free place in `maps`: one a freed inner map left, or the next. */
static struct p4u_map *free_slot(void)
{
    for (__u32 i = 0; i < map_count; i++)
        if (!maps[i].definition)
            return &maps[i];
    if (map_count == P4U_MAX_MAPS)
        p4u_fatal("more than 256 maps");
    return &maps[map_count++];
}

static void fill(struct p4u_map *m, const void *definition, struct p4u_map_shape shape, const char *name)
{
    m->definition = definition;
    strncpy(m->name, name, sizeof m->name - 1);
    m->shape = shape;
    size_t slots = shape.max_entries ? shape.max_entries : 1;
    m->keys = calloc(slots, shape.key_size ? shape.key_size : 1);
    m->values = calloc(slots, shape.value_size ? shape.value_size : 1);
    m->used = calloc(slots, 1);
    m->stamps = calloc(slots, sizeof(__u64));
    if (!m->keys || !m->values || !m->used || !m->stamps)
        p4u_fatal("out of memory for a map");
    if (is_array(m)) {
        memset(m->used, 1, slots);
        m->high_water = shape.max_entries;
    }
}

struct p4u_map *p4u_map_of(const void *definition, struct p4u_map_shape shape, const char *name)
{
    for (__u32 i = 0; i < map_count; i++)
        if (maps[i].definition == definition)
            return &maps[i];
    struct p4u_map *m = free_slot();
    fill(m, definition, shape, name[0] == '&' ? name + 1 : name);
    return m;
}

struct p4u_map *p4u_map_create(struct p4u_map_shape shape)
{
    struct p4u_map *m = free_slot();
    char name[16];
    snprintf(name, sizeof name, "#%ld", (long)(m - maps));
    fill(m, m, shape, name);
    return m;
}

/* One holder fewer; an inner map nobody holds is freed, its place reused. */
static void release(struct p4u_map *m)
{
    if (!m || m->definition != m || --m->holders)
        return;
    free(m->keys);
    free(m->values);
    free(m->used);
    free(m->stamps);
    memset(m, 0, sizeof *m);
}

struct p4u_map *p4u_inner_map(const void *value)
{
    __u32 id;
    memcpy(&id, value, sizeof id);
    return id < map_count && maps[id].definition == &maps[id] ? &maps[id] : NULL;
}

struct p4u_map *p4u_map_behind(const void *m)
{
    for (__u32 i = 0; i < map_count; i++)
        if (maps[i].definition == m)
            return &maps[i];
    p4u_fatal("a map the program never registered");
}

struct p4u_map *p4u_map_named(const char *name)
{
    for (__u32 i = 0; i < map_count; i++)
        if (strcmp(maps[i].name, name) == 0)
            return &maps[i];
    return NULL;
}

const char *p4u_map_name(const struct p4u_map *m)
{
    return m->name;
}

struct p4u_map_shape p4u_map_shape_of(const struct p4u_map *m)
{
    return m->shape;
}

const void *p4u_map_key_at(const struct p4u_map *m, __u32 slot)
{
    static __u32 index;
    if (slot >= m->shape.max_entries || !m->used[slot])
        return NULL;
    if (is_array(m)) {
        index = slot;
        return &index;
    }
    return m->keys + (size_t)slot * m->shape.key_size;
}

static __u32 lpm_prefix(const unsigned char *key)
{
    __u32 bits;
    memcpy(&bits, key, 4);
    return bits;
}

/* Whether the first `bits` bits of the data after the prefix length agree. */
static int lpm_prefix_equal(const unsigned char *a, const unsigned char *b, __u32 bits)
{
    __u32 whole = bits / 8, rest = bits % 8;
    if (memcmp(a + 4, b + 4, whole) != 0)
        return 0;
    if (rest == 0)
        return 1;
    unsigned char mask = (unsigned char)(0xff << (8 - rest));
    return ((a[4 + whole] ^ b[4 + whole]) & mask) == 0;
}

/* The slot holding exactly `key`, or -1. */
static long find_slot(const struct p4u_map *m, const void *key)
{
    if (is_array(m)) {
        __u32 index;
        memcpy(&index, key, 4);
        return index < m->shape.max_entries ? (long)index : -1;
    }
    __u32 size = m->shape.key_size;
    for (__u32 i = 0; i < m->high_water; i++) {
        if (!m->used[i])
            continue;
        const unsigned char *stored = m->keys + (size_t)i * size;
        if (is_lpm(m)) {
            __u32 bits = lpm_prefix(key);
            if (lpm_prefix(stored) == bits && lpm_prefix_equal(stored, key, bits))
                return i;
        } else if (memcmp(stored, key, size) == 0) {
            return i;
        }
    }
    return -1;
}

/* The longest stored prefix that covers `key`, or -1. */
static long longest_prefix(const struct p4u_map *m, const unsigned char *key)
{
    long best = -1;
    __u32 best_bits = 0, limit = lpm_prefix(key);
    for (__u32 i = 0; i < m->high_water; i++) {
        if (!m->used[i])
            continue;
        const unsigned char *stored = m->keys + (size_t)i * m->shape.key_size;
        __u32 bits = lpm_prefix(stored);
        if (bits <= limit && (best < 0 || bits > best_bits) && lpm_prefix_equal(stored, key, bits)) {
            best = i;
            best_bits = bits;
        }
    }
    return best;
}

void *p4u_map_value(struct p4u_map *m, const void *key)
{
    long slot = is_lpm(m) ? longest_prefix(m, key) : find_slot(m, key);
    return slot < 0 ? NULL : m->values + (size_t)slot * m->shape.value_size;
}

void *p4u_map_lookup(struct p4u_map *m, const void *key)
{
    void *value = p4u_map_value(m, key);
    if (value && is_lru(m))
        m->stamps[((unsigned char *)value - m->values) / m->shape.value_size] = ++insertions;
    return value && is_map_of_maps(m) ? p4u_inner_map(value) : value;
}

long p4u_map_update(struct p4u_map *m, const void *key, const void *value, __u64 flags)
{
    if (flags > BPF_EXIST)
        return -EINVAL;
    if (is_lpm(m) && lpm_prefix(key) > (m->shape.key_size - 4) * 8)
        return -EINVAL;
    struct p4u_map *inner = is_map_of_maps(m) ? p4u_inner_map(value) : NULL;
    if (is_map_of_maps(m) && !inner)
        return -EBADF;
    long slot = find_slot(m, key);
    struct p4u_map *old = inner && slot >= 0 ? p4u_map_lookup(m, key) : NULL;
    if (is_array(m)) {
        if (slot < 0)
            return -E2BIG;
        if (flags == BPF_NOEXIST)
            return -EEXIST;
    } else if (slot >= 0 && flags == BPF_NOEXIST) {
        return -EEXIST;
    } else if (slot < 0 && flags == BPF_EXIST) {
        return -ENOENT;
    } else if (slot < 0) {
        for (__u32 i = 0; i < m->shape.max_entries && slot < 0; i++)
            if (!m->used[i])
                slot = i;
        if (slot < 0 && is_lru(m))
            slot = evict_least_recent(m);
        if (slot < 0)
            return is_lpm(m) ? -ENOSPC : -E2BIG;
        m->used[slot] = 1;
        if ((__u32)slot >= m->high_water)
            m->high_water = (__u32)slot + 1;
        memcpy(m->keys + (size_t)slot * m->shape.key_size, key, m->shape.key_size);
        m->stamps[slot] = ++insertions;
    }
    if (inner) {
        inner->holders++;
        release(old);
    }
    memcpy(m->values + (size_t)slot * m->shape.value_size, value, m->shape.value_size);
    return 0;
}

long p4u_map_delete(struct p4u_map *m, const void *key)
{
    if (is_array(m))
        return -EINVAL;
    long slot = find_slot(m, key);
    if (slot < 0)
        return -ENOENT;
    if (is_map_of_maps(m))
        release(p4u_map_lookup(m, key));
    m->used[slot] = 0;
    return 0;
}

/* The kernel's walk of a broadcast: a DEVMAP by index; a DEVMAP_HASH by
 * bucket (the key's low bits, over a power of two at least max_entries
 * buckets), each bucket's entries newest first. Entries without an
 * interface hold no device. */
void p4u_devmap_walk(const struct p4u_map *m, void (*visit)(const struct bpf_devmap_val *))
{
    __u32 buckets = 1;
    while (buckets < m->shape.max_entries)
        buckets <<= 1;
    int hashed = m->shape.type == BPF_MAP_TYPE_DEVMAP_HASH;
    for (__u32 bucket = 0; bucket < (hashed ? buckets : m->shape.max_entries); bucket++) {
        __u64 after = ~0ULL;
        for (;;) {
            long next = -1;
            for (__u32 i = 0; i < m->high_water; i++) {
                __u32 key;
                memcpy(&key, m->keys + (size_t)i * m->shape.key_size, sizeof key);
                int here = hashed ? (key & (buckets - 1)) == bucket : i == bucket;
                if (m->used[i] && here && m->stamps[i] < after && (next < 0 || m->stamps[i] > m->stamps[next]))
                    next = i;
            }
            if (next < 0)
                break;
            after = m->stamps[next];
            struct bpf_devmap_val entry = { 0 };
            memcpy(&entry, m->values + (size_t)next * m->shape.value_size,
                   m->shape.value_size < sizeof entry ? m->shape.value_size : sizeof entry);
            if (entry.ifindex)
                visit(&entry);
            if (!hashed)
                break;
        }
    }
}
