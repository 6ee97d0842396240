/* SPDX-License-Identifier: Apache-2.0 */
/* Twin of v1model_l3_fwd.p4: the same work as l3_fwd's twin, whose C it is
 * (the P4 program recomputes the checksum where this one updates it). */
#define l3_fwd_xdp v1model_l3_fwd_xdp
#include "l3_fwd.c"
