/* SPDX-License-Identifier: Apache-2.0 */
/* Floor: the empty program that drops. */
#include "common.h"

SEC("xdp")
int drop_xdp(struct xdp_md *ctx)
{
    return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
