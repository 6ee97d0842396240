/* User-space target: the program's BPF ring buffers. Two flat buffers:
 * trace records, reserved in place (`bpf_ringbuf_reserve`), and digests,
 * copied in (`bpf_ringbuf_output`), so the two never mix. A record takes
 * 8 bytes of length and the record, rounded up to 8 like the kernel's;
 * the driver's `ring` request hands one buffer's records over and
 * empties it. Full: the record is refused, as in the kernel when no
 * reader keeps up. */
#include "p4u_runtime.h"

#include <errno.h>
#include <string.h>

#define P4U_RING_BYTES (256 * 1024)

struct p4u_ring {
    unsigned char bytes[P4U_RING_BYTES] __attribute__((aligned(8)));
    __u32 used;
};

static struct p4u_ring traces, outputs;

static void *reserve_in(struct p4u_ring *ring, __u64 size, __u64 flags)
{
    __u64 room = 8 + ((size + 7) & ~7ull);
    /* The kernel keeps one byte free: a full ring is one byte short. */
    if (flags || room > P4U_RING_BYTES - 1 - ring->used)
        return NULL;
    __u32 length = (__u32)size;
    memcpy(ring->bytes + ring->used, &length, sizeof(length));
    void *record = ring->bytes + ring->used + 8;
    ring->used += (__u32)room;
    return record;
}

void *p4u_ringbuf_reserve(__u64 size, __u64 flags)
{
    return reserve_in(&traces, size, flags);
}

void p4u_ringbuf_submit(void *data, __u64 flags)
{
    (void)data, (void)flags;
}

long p4u_ringbuf_output(const void *data, __u64 size, __u64 flags)
{
    void *record = reserve_in(&outputs, size, flags);
    if (!record)
        return -EAGAIN;
    memcpy(record, data, size);
    return 0;
}

const unsigned char *p4u_ring_take(int digests, __u32 *length)
{
    struct p4u_ring *ring = digests ? &outputs : &traces;
    *length = ring->used;
    ring->used = 0;
    return ring->bytes;
}
