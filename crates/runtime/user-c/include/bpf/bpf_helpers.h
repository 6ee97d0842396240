/* User-space target: stands in for libbpf's <bpf/bpf_helpers.h>.
 *
 * Map definitions keep libbpf's BTF form (`__uint` and `__type` turn into
 * pointer-typed members), so the same generated C declares a map for both
 * targets; here the helper macros read a map's type, sizes and capacity
 * back out of those member types and pass them to p4u_runtime.c, which
 * keeps the map's contents keyed by the address of its definition. */
#ifndef P4U_BPF_HELPERS_H
#define P4U_BPF_HELPERS_H

#include <linux/bpf.h>

#define __uint(name, val) int (*name)[val]
#define __type(name, val) __typeof__(val) *name
/* `value` gives a map of maps the kernel's value size, an inner map's id. */
#define __array(name, val) __u32 *value; __typeof__(val) *name[]
#define SEC(name) __attribute__((used))
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

struct p4u_map;
struct p4u_map_shape {
    __u32 type, key_size, value_size, max_entries;
};

#define P4U_SHAPE(m) \
    ((struct p4u_map_shape){ sizeof(*(m)->type) / sizeof(int), sizeof(*(m)->key), \
                             sizeof(*(m)->value), sizeof(*(m)->max_entries) / sizeof(int) })

struct p4u_map *p4u_map_of(const void *definition, struct p4u_map_shape shape, const char *name);
void *p4u_map_lookup(struct p4u_map *map, const void *key);
long p4u_map_update(struct p4u_map *map, const void *key, const void *value, __u64 flags);
long p4u_map_delete(struct p4u_map *map, const void *key);

#define bpf_map_lookup_elem(m, key) p4u_map_lookup(p4u_map_of((m), P4U_SHAPE(m), #m), (key))
#define bpf_map_update_elem(m, key, value, flags) \
    p4u_map_update(p4u_map_of((m), P4U_SHAPE(m), #m), (key), (value), (flags))
#define bpf_map_delete_elem(m, key) p4u_map_delete(p4u_map_of((m), P4U_SHAPE(m), #m), (key))
/* The map behind `m`: a map definition registered by the glue, or an
 * inner map a map of maps handed out (p4u_maps.c). */
struct p4u_map *p4u_map_behind(const void *m);
/* XDP only: XDP_REDIRECT when the devmap holds `key`, else the action in
 * the low bits of `flags`; with BPF_F_BROADCAST, XDP_REDIRECT to every
 * entry (p4u_copies.c). */
long p4u_redirect_map(struct p4u_map *map, __u32 key, __u64 flags);
#define bpf_redirect_map(m, key, flags) p4u_redirect_map(p4u_map_behind(m), (key), (flags))

/* A tail call through a program array (`__array(values, ...)` above: the
 * stage functions' addresses) runs the next stage and returns its verdict;
 * the kernel's helper does not come back either when it succeeds. */
#define bpf_tail_call(ctx, m, index) return (m)->values[index](ctx)

long bpf_xdp_adjust_head(struct xdp_md *ctx, int delta);
long bpf_xdp_adjust_tail(struct xdp_md *ctx, int delta);
long bpf_xdp_adjust_meta(struct xdp_md *ctx, int delta);
long bpf_skb_change_head(struct __sk_buff *skb, __u32 len, __u64 flags);
long bpf_skb_vlan_pop(struct __sk_buff *skb);
long bpf_skb_change_tail(struct __sk_buff *skb, __u32 len, __u64 flags);
long bpf_skb_pull_data(struct __sk_buff *skb, __u32 len);
long bpf_skb_adjust_room(struct __sk_buff *skb, __s32 len_diff, __u32 mode, __u64 flags);
long bpf_skb_load_bytes(const struct __sk_buff *skb, __u32 offset, void *to, __u32 len);
long bpf_skb_load_bytes_relative(const struct __sk_buff *skb, __u32 offset, void *to, __u32 len,
                                 __u32 start_header);
long bpf_skb_store_bytes(struct __sk_buff *skb, __u32 offset, const void *from, __u32 len, __u64 flags);
long bpf_xdp_load_bytes(struct xdp_md *ctx, __u32 offset, void *buf, __u32 len);
long bpf_xdp_store_bytes(struct xdp_md *ctx, __u32 offset, void *buf, __u32 len);
long bpf_redirect(__u32 ifindex, __u64 flags);
long bpf_clone_redirect(struct __sk_buff *skb, __u32 ifindex, __u64 flags);
long bpf_check_mtu(void *ctx, __u32 ifindex, __u32 *mtu_len, __s32 len_diff, __u64 flags);
__u64 bpf_ktime_get_ns(void);
__u32 bpf_get_prandom_u32(void);

/* A map cell's lock (meters): spins as the kernel's does. */
static inline void bpf_spin_lock(struct bpf_spin_lock *lock)
{
    while (__atomic_exchange_n(&lock->val, 1, __ATOMIC_ACQUIRE))
        ;
}

static inline void bpf_spin_unlock(struct bpf_spin_lock *lock)
{
    __atomic_store_n(&lock->val, 0, __ATOMIC_RELEASE);
}
long bpf_csum_diff(__be32 *from, __u32 from_size, __be32 *to, __u32 to_size, __wsum seed);
long bpf_perf_event_output(void *ctx, void *map, __u64 flags, void *data, __u64 size);

/* One ring buffer per program (p4u_ring.c): the map is not looked at. */
void *p4u_ringbuf_reserve(__u64 size, __u64 flags);
void p4u_ringbuf_submit(void *data, __u64 flags);
#define bpf_ringbuf_reserve(m, size, flags) p4u_ringbuf_reserve((size), (flags))
#define bpf_ringbuf_submit(data, flags) p4u_ringbuf_submit((data), (flags))
long p4u_ringbuf_output(const void *data, __u64 size, __u64 flags);
#define bpf_ringbuf_output(m, data, size, flags) p4u_ringbuf_output((data), (size), (flags))
/* The host program is one thread: CPU 0. */
static inline __u32 bpf_get_smp_processor_id(void)
{
    return 0;
}

/* Calls `fn` with 0, 1, ... until it returns nonzero or nr_loops calls. */
static inline long bpf_loop(__u32 nr_loops, long (*fn)(__u32, void *), void *ctx, __u64 flags)
{
    (void)flags;
    for (__u32 i = 0; i < nr_loops; i++)
        if (fn(i, ctx))
            return i + 1;
    return nr_loops;
}

#endif
