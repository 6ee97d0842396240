/* User-space target: stands in for <linux/bpf.h> when the generated C is
 * built for the host. Only what the generated code names: program
 * contexts with pointer-wide data fields, verdicts, map types and flags. */
#ifndef P4U_LINUX_BPF_H
#define P4U_LINUX_BPF_H

#include <linux/types.h>

enum xdp_action { XDP_ABORTED = 0, XDP_DROP, XDP_PASS, XDP_TX, XDP_REDIRECT };

enum bpf_map_type {
    BPF_MAP_TYPE_UNSPEC = 0,
    BPF_MAP_TYPE_HASH = 1,
    BPF_MAP_TYPE_ARRAY = 2,
    BPF_MAP_TYPE_PROG_ARRAY = 3,
    BPF_MAP_TYPE_PERF_EVENT_ARRAY = 4,
    BPF_MAP_TYPE_PERCPU_HASH = 5,
    BPF_MAP_TYPE_PERCPU_ARRAY = 6,
    BPF_MAP_TYPE_LRU_HASH = 9,
    BPF_MAP_TYPE_LPM_TRIE = 11,
    BPF_MAP_TYPE_ARRAY_OF_MAPS = 12,
    BPF_MAP_TYPE_HASH_OF_MAPS = 13,
    BPF_MAP_TYPE_DEVMAP = 14,
    BPF_MAP_TYPE_DEVMAP_HASH = 25,
    BPF_MAP_TYPE_RINGBUF = 27,
};

#define BPF_ANY 0
#define BPF_NOEXIST 1
#define BPF_EXIST 2
#define BPF_F_NO_PREALLOC (1U << 0)
/* bpf_perf_event_output's flags: the ring (CPU) index, and in the upper
 * bits how many packet bytes to append. */
#define BPF_F_INDEX_MASK 0xffffffffULL
#define BPF_F_CURRENT_CPU BPF_F_INDEX_MASK
#define BPF_F_CTXLEN_MASK (0xfffffULL << 32)
/* bpf_redirect_map's flags on a devmap: a copy to every entry (but the
 * receiving interface's). */
#define BPF_F_BROADCAST (1ULL << 3)
#define BPF_F_EXCLUDE_INGRESS (1ULL << 4)

/* A devmap entry: the interface, and the program run on each frame sent
 * there (a descriptor when written; here any positive number names the
 * pipeline's egress entry, the one program the host has). */
struct bpf_devmap_val {
    __u32 ifindex;
    union {
        int fd;
        __u32 id;
    } bpf_prog;
};

enum bpf_adj_room_mode { BPF_ADJ_ROOM_NET, BPF_ADJ_ROOM_MAC };
enum bpf_hdr_start_off { BPF_HDR_START_MAC, BPF_HDR_START_NET };

/* The kernel's contexts hold 32-bit offsets the verifier rewrites; on the
 * host they must hold whole pointers, which `(u8 *)(long)ctx->data` reads. */
struct bpf_spin_lock {
    __u32 val;
};

struct xdp_md {
    long data;
    long data_end;
    long data_meta;
    __u32 ingress_ifindex;
    __u32 rx_queue_index;
    __u32 egress_ifindex;
};

struct __sk_buff {
    long data;
    long data_end;
    __u32 len;
    __u32 protocol;
    __u32 ifindex;
    __u32 ingress_ifindex;
    __u32 mark;
    __u32 priority;
    __u32 queue_mapping;
    __u32 tc_index;
    __u32 tc_classid;
    __u64 tstamp;
    /* Scratch the program may use; a copy carries its mark here. */
    __u32 cb[5];
    /* A VLAN tag the kernel took out of the packet: never, here. */
    __u32 vlan_present;
    __u32 vlan_tci;
    __u32 vlan_proto;
};

#endif
