/* SPDX-License-Identifier: Apache-2.0 */
/* Floor: the empty program that sends every packet back out. */
#include "common.h"

SEC("xdp")
int tx_xdp(struct xdp_md *ctx)
{
    return XDP_TX;
}

char LICENSE[] SEC("license") = "GPL";
