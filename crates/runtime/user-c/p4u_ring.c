/* User-space target: the program's BPF ring buffer (trace records). One
 * flat buffer: a reservation takes 8 bytes of length and the record,
 * rounded up to 8 like the kernel's; the driver's `ring` request hands the
 * records over and empties it. Full: the reservation fails, as in the
 * kernel when no reader keeps up. */
#include "p4u_runtime.h"

#include <errno.h>
#include <string.h>

#define P4U_RING_BYTES (256 * 1024)

static unsigned char ring[P4U_RING_BYTES] __attribute__((aligned(8)));
static __u32 used;

void *p4u_ringbuf_reserve(__u64 size, __u64 flags)
{
    __u64 room = 8 + ((size + 7) & ~7ull);
    if (flags || room > P4U_RING_BYTES - used)
        return NULL;
    __u32 length = (__u32)size;
    memcpy(ring + used, &length, sizeof(length));
    void *record = ring + used + 8;
    used += (__u32)room;
    return record;
}

void p4u_ringbuf_submit(void *data, __u64 flags)
{
    (void)data, (void)flags;
}

const unsigned char *p4u_ring_take(__u32 *length)
{
    *length = used;
    used = 0;
    return ring;
}
