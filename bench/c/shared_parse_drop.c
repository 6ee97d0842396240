/* SPDX-License-Identifier: Apache-2.0 */
/* Twin of shared_parse_drop.p4: the shared parse, drop. */
#include "shared.h"

SEC("xdp")
int shared_parse_drop_xdp(struct xdp_md *ctx)
{
    struct parsed p;
    parse_shared((void *)(long)ctx->data, (void *)(long)ctx->data_end, &p);
    return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
