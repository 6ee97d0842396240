/* User-space target: packet copies, as the kernel makes them.
 *
 * TC: bpf_clone_redirect runs the egress program on a copy before it
 * returns, as the kernel runs tc egress of the copy's device inside the
 * call, on its own packet and its own skb (the copy inherits the skb's
 * fields, `cb` too, and changes none of the original's).
 *
 * XDP: an entry that returns XDP_REDIRECT after a broadcast
 * bpf_redirect_map hands its frame to every entry of the devmap, walked
 * as the kernel walks it. Each copy (metadata included) waits in its
 * device's queue; queues run the entry's program (`xdp/devmap`, with
 * `egress_ifindex` its interface) when full (16 frames) and at the flush,
 * newest device first, as the kernel's flush list is built.
 *
 * What egress returns and the copy as it left are kept for the `run`
 * answer: a copy egress passes (TC_ACT_OK, XDP_PASS) leaves by its
 * interface. */
#include "p4u_runtime.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* As many copies as one packet may make: more is a runaway program. */
#define MAX_COPIES 1024

struct copy {
    __u32 ifindex;
    int retval;
    unsigned char *bytes;
    __u32 length;
};

static struct copy copies[MAX_COPIES];
static __u32 copy_count;

/* Runs egress (or, without a program, nothing: the copy leaves) on a copy
 * of the current packet sent to `ifindex`, and keeps the copy. */
static void copy_through(__u32 ifindex, int with_egress)
{
    if (copy_count == MAX_COPIES)
        p4u_fatal("more than 1024 copies of one packet");
    struct p4u_packet original = p4u_current;
    struct __sk_buff original_skb = p4u_skb;
    struct xdp_md original_xdp = p4u_xdp;
    struct p4u_map *original_broadcast = p4u_redirect_broadcast;
    p4u_current.buffer = malloc((size_t)original.headroom + original.length + 1);
    if (!p4u_current.buffer)
        p4u_fatal("out of memory for a copy");
    memcpy(p4u_current.buffer, original.buffer, (size_t)original.headroom + original.length);
    p4u_skb.ifindex = ifindex;
    p4u_xdp.egress_ifindex = ifindex;
    p4u_context_refresh();
    int retval = with_egress ? p4u_egress_entry() : (p4u_hook_is_tc ? TC_ACT_OK : XDP_PASS);
    struct copy *made = &copies[copy_count++];
    made->ifindex = ifindex;
    made->retval = retval;
    made->length = p4u_current.length;
    made->bytes = malloc((size_t)made->length + 1);
    if (!made->bytes)
        p4u_fatal("out of memory for a copy");
    memcpy(made->bytes, p4u_current.buffer + p4u_current.headroom, made->length);
    free(p4u_current.buffer);
    p4u_current = original;
    p4u_skb = original_skb;
    p4u_xdp = original_xdp;
    p4u_redirect_broadcast = original_broadcast;
    p4u_context_refresh();
}

long bpf_clone_redirect(struct __sk_buff *skb, __u32 ifindex, __u64 flags)
{
    (void)skb;
    if (flags)
        return -EINVAL; /* only egress redirects are generated */
    copy_through(ifindex, 1);
    return 0;
}

/* The kernel's per-device bulk queue (DEV_MAP_BULK_SIZE). */
#define BULK 16

/* A device's queue: its frames run the program of the entry that queued
 * the first, as the kernel keeps one program per queue. */
struct device_queue {
    __u32 ifindex;
    __u32 count;
    int with_program;
};

static struct device_queue queues[MAX_COPIES];
static __u32 queue_count;

static void flush(struct device_queue *queue)
{
    for (__u32 i = 0; i < queue->count; i++)
        copy_through(queue->ifindex, queue->with_program);
    queue->count = 0;
}

static void enqueue(const struct bpf_devmap_val *entry)
{
    struct device_queue *queue = NULL;
    for (__u32 i = 0; i < queue_count && !queue; i++)
        if (queues[i].ifindex == entry->ifindex)
            queue = &queues[i];
    if (!queue) {
        if (queue_count == MAX_COPIES)
            p4u_fatal("more than 1024 devices in one broadcast");
        queue = &queues[queue_count++];
        queue->ifindex = entry->ifindex;
        queue->count = 0;
        queue->with_program = entry->bpf_prog.fd > 0;
    }
    if (queue->count == BULK)
        flush(queue);
    queue->count++;
}

int p4u_broadcast(int verdict)
{
    struct p4u_map *devmap = p4u_redirect_broadcast;
    p4u_redirect_broadcast = NULL;
    if (p4u_hook_is_tc || verdict != XDP_REDIRECT || !devmap)
        return 0;
    queue_count = 0;
    p4u_devmap_walk(devmap, enqueue);
    while (queue_count)
        flush(&queues[--queue_count]);
    return 1;
}

void p4u_copies_put(void (*put_hex)(const unsigned char *, __u32))
{
    for (__u32 i = 0; i < copy_count; i++) {
        printf(" copy %u %d ", copies[i].ifindex, copies[i].retval);
        put_hex(copies[i].bytes, copies[i].length);
        free(copies[i].bytes);
    }
    copy_count = 0;
}
