/* User-space target: packet copies. bpf_clone_redirect runs the egress
 * program on a copy before it returns, as the kernel runs tc egress of
 * the copy's device inside the call, on its own packet and its own skb
 * (the copy inherits the skb's fields, `cb` too, and changes none of the
 * original's). What egress returns and the copy as it left are kept for
 * the `run` answer: a copy egress passes (TC_ACT_OK) leaves by its
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

long bpf_clone_redirect(struct __sk_buff *skb, __u32 ifindex, __u64 flags)
{
    (void)skb;
    if (flags)
        return -EINVAL; /* only egress redirects are generated */
    if (copy_count == MAX_COPIES)
        p4u_fatal("more than 1024 copies of one packet");
    struct p4u_packet original = p4u_current;
    struct __sk_buff original_skb = p4u_skb;
    p4u_current.buffer = malloc((size_t)original.headroom + original.length + 1);
    if (!p4u_current.buffer)
        p4u_fatal("out of memory for a copy");
    memcpy(p4u_current.buffer, original.buffer, (size_t)original.headroom + original.length);
    p4u_skb.ifindex = ifindex;
    p4u_context_refresh();
    int retval = p4u_egress_entry();
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
    p4u_context_refresh();
    return 0;
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
