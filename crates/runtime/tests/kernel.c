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

// Ternary on the first 4 bytes by grouped tuple space: the group list
// (one hash value, best group first; no partition cut, so only the wild
// list, key 1) gives each group's id and best priority; the group's filter
// holds its mask, which picks one bucket of rules sorted best priority first;
// the walk stops when no group left can beat the match in hand. The
// verdict is the action code (1 drop, 2 pass).
struct tgroup { __u32 id; __u32 max_priority; };
struct tgroups { __u32 count; struct tgroup group[4]; };
struct tkey { __u32 group; __u32 pad; __u32 addr; };
struct trule { __u32 value; __u32 mask; __u32 action; __u32 priority; };
struct tbucket { __u32 count; struct trule rule[2]; };
struct { __uint(type, BPF_MAP_TYPE_HASH); __uint(max_entries, 16);
         __type(key, struct tkey); __type(value, struct tbucket); } tern_t SEC(".maps");
struct { __uint(type, BPF_MAP_TYPE_HASH); __uint(max_entries, 2); __uint(map_flags, BPF_F_NO_PREALLOC);
         __type(key, __u32); __type(value, struct tgroups); } tern_t_groups SEC(".maps");
// Group masks and bucket filters (the bits are not consulted here).
struct tfilter { __u32 mask; __u32 bits[8]; };
struct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, 4);
         __type(key, __u32); __type(value, struct tfilter); } tern_t_filters SEC(".maps");

SEC("xdp") int tern_prog(struct xdp_md *ctx) {
    unsigned char *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
    if (data + 4 > end) return XDP_ABORTED;
    __u32 addr = *(__u32 *)data, best_priority = 0, action = XDP_PASS, found = 0, list = 1;
    struct tgroups *groups = bpf_map_lookup_elem(&tern_t_groups, &list);
    for (__u32 g = 0; groups && g < 4 && g < groups->count; g++) {
        struct tgroup *group = &groups->group[g];
        if (found && best_priority >= group->max_priority) break;
        struct tfilter *filter = bpf_map_lookup_elem(&tern_t_filters, &group->id);
        if (!filter) continue;
        struct tkey key = { .group = group->id, .addr = addr & filter->mask };
        struct tbucket *b = bpf_map_lookup_elem(&tern_t, &key);
        if (!b) continue;
        for (__u32 r = 0; r < 2; r++) {
            if (r >= b->count) break;
            struct trule *rule = &b->rule[r];
            if ((addr & rule->mask) != rule->value) continue;
            if (!found || rule->priority > best_priority) {
                found = 1;
                best_priority = rule->priority;
                action = rule->action;
            }
            break;
        }
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
