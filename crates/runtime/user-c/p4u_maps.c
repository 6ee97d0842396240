/* User-space target: BPF maps with the kernel's semantics, for one CPU.
 *
 * Every map is a fixed array of max_entries slots allocated on first use,
 * so the value pointers lookups hand out stay valid, as in the kernel
 * (programs count through them). Hash and LPM maps search their used
 * slots; an LPM key is {u32 prefixlen; bytes} and matches on the first
 * prefixlen bits. Per-CPU maps behave as one-CPU maps. Return codes are
 * the kernel's: -EEXIST, -ENOENT, -E2BIG, -ENOSPC, -EINVAL. */
#include "p4u_runtime.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct p4u_map {
    const void *definition;
    char name[64];
    struct p4u_map_shape shape;
    unsigned char *keys;
    unsigned char *values;
    unsigned char *used;
    __u32 high_water; /* slots at or above this were never used */
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

struct p4u_map *p4u_map_of(const void *definition, struct p4u_map_shape shape, const char *name)
{
    for (__u32 i = 0; i < map_count; i++)
        if (maps[i].definition == definition)
            return &maps[i];
    if (map_count == P4U_MAX_MAPS)
        p4u_fatal("more than 256 maps");
    struct p4u_map *m = &maps[map_count++];
    m->definition = definition;
    if (name[0] == '&')
        name++;
    strncpy(m->name, name, sizeof m->name - 1);
    m->shape = shape;
    size_t slots = shape.max_entries ? shape.max_entries : 1;
    m->keys = calloc(slots, shape.key_size ? shape.key_size : 1);
    m->values = calloc(slots, shape.value_size ? shape.value_size : 1);
    m->used = calloc(slots, 1);
    if (!m->keys || !m->values || !m->used)
        p4u_fatal("out of memory for a map");
    if (is_array(m)) {
        memset(m->used, 1, slots);
        m->high_water = shape.max_entries;
    }
    return m;
}

struct p4u_map *p4u_map_named(const char *name)
{
    for (__u32 i = 0; i < map_count; i++)
        if (strcmp(maps[i].name, name) == 0)
            return &maps[i];
    return NULL;
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

void *p4u_map_lookup(struct p4u_map *m, const void *key)
{
    long slot = is_lpm(m) ? longest_prefix(m, key) : find_slot(m, key);
    return slot < 0 ? NULL : m->values + (size_t)slot * m->shape.value_size;
}

long p4u_map_update(struct p4u_map *m, const void *key, const void *value, __u64 flags)
{
    if (flags > BPF_EXIST)
        return -EINVAL;
    if (is_lpm(m) && lpm_prefix(key) > (m->shape.key_size - 4) * 8)
        return -EINVAL;
    long slot = find_slot(m, key);
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
        if (slot < 0)
            return is_lpm(m) ? -ENOSPC : -E2BIG;
        m->used[slot] = 1;
        if ((__u32)slot >= m->high_water)
            m->high_water = (__u32)slot + 1;
        memcpy(m->keys + (size_t)slot * m->shape.key_size, key, m->shape.key_size);
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
    m->used[slot] = 0;
    return 0;
}
