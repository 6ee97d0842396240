// A hand-written stand-in for a compiled pipeline, used by kernel.rs: one
// exact table keyed by the packet's first 4 bytes, a runtime default
// action, a per-CPU packet counter and the output record.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct key { __u32 addr; };
struct value { __u32 action; __u16 port; __u16 pad; };

struct { __uint(type, BPF_MAP_TYPE_HASH); __uint(max_entries, 16);
         __type(key, struct key); __type(value, struct value); } pipe_t SEC(".maps");
struct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, 1);
         __type(key, __u32); __type(value, struct value); } pipe_t_default SEC(".maps");
struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); __uint(max_entries, 4);
         __type(key, __u32); __type(value, __u64); } pipe_c SEC(".maps");
struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); __uint(max_entries, 1);
         __type(key, __u32); __type(value, __u32); } out_port SEC(".maps");

enum { FORWARD = 1, REJECT = 2, MARK = 3, BOUNCE = 4 };

SEC("xdp") int pipe_prog(struct xdp_md *ctx) {
    unsigned char *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
    __u32 zero = 0;
    __u64 *count = bpf_map_lookup_elem(&pipe_c, &zero);
    if (count) *count += 1;
    if (data + 4 > end) return XDP_DROP;
    struct key key = { .addr = *(__u32 *)data };
    struct value *v = bpf_map_lookup_elem(&pipe_t, &key);
    if (!v) v = bpf_map_lookup_elem(&pipe_t_default, &zero);
    if (!v) return XDP_ABORTED;
    switch (v->action) {
    case FORWARD: {
        __u32 port = v->port;
        bpf_map_update_elem(&out_port, &zero, &port, BPF_ANY);
        return XDP_REDIRECT;
    }
    case REJECT: return XDP_DROP;
    case MARK: data[0] = 0xee; return XDP_PASS;
    case BOUNCE: return XDP_TX;
    default: return XDP_PASS;
    }
}

// The same table at TC: redirect, shot or ok.
SEC("tc") int tc_prog(struct __sk_buff *skb) {
    unsigned char *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
    __u32 zero = 0;
    if (data + 4 > end) return 2;
    struct key key = { .addr = *(__u32 *)data };
    struct value *v = bpf_map_lookup_elem(&pipe_t, &key);
    if (!v) return 0;
    if (v->action == FORWARD) {
        __u32 port = v->port;
        bpf_map_update_elem(&out_port, &zero, &port, BPF_ANY);
        return 7;
    }
    if (v->action == BOUNCE) {
        __u32 same_port = 0xfffffffe;  /* p4bpf_layout::SAME_PORT */
        bpf_map_update_elem(&out_port, &zero, &same_port, BPF_ANY);
        return 7;
    }
    return v->action == REJECT ? 2 : 0;
}

// Ternary on the first 4 bytes by tuple-space search: every used mask is
// probed, the highest priority wins; the verdict is the action code
// (1 drop, 2 pass).
struct tkey { __u32 mask_index; __u32 pad; __u32 addr; };
struct tmask { __u32 used; __u32 pad; __u32 addr; };
struct tvalue { __u32 action; __u32 priority; };
struct { __uint(type, BPF_MAP_TYPE_HASH); __uint(max_entries, 16);
         __type(key, struct tkey); __type(value, struct tvalue); } tern_t SEC(".maps");
struct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, 4);
         __type(key, __u32); __type(value, struct tmask); } tern_t_masks SEC(".maps");

SEC("xdp") int tern_prog(struct xdp_md *ctx) {
    unsigned char *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
    if (data + 4 > end) return XDP_ABORTED;
    __u32 addr = *(__u32 *)data, best_priority = 0, action = XDP_PASS;
    for (__u32 i = 0; i < 4; i++) {
        __u32 slot = i;
        struct tmask *mask = bpf_map_lookup_elem(&tern_t_masks, &slot);
        if (!mask || !mask->used) continue;
        struct tkey key = { .mask_index = i, .addr = addr & mask->addr };
        struct tvalue *v = bpf_map_lookup_elem(&tern_t, &key);
        if (v && v->priority >= best_priority) { best_priority = v->priority; action = v->action; }
    }
    return action;
}

#ifdef BREAK_VERIFIER
SEC("xdp") int broken(struct xdp_md *ctx) {
    unsigned char *data = (void *)(long)ctx->data;
    return data[100];
}
#endif

char LICENSE[] SEC("license") = "GPL";
const char pipeline[] SEC(".p4bpf.pipeline") = PIPELINE_JSON;
