/* User-space target: what the host driver and the runtime files share. */
#ifndef P4U_RUNTIME_H
#define P4U_RUNTIME_H

#include <bpf/bpf_helpers.h>
#include <linux/pkt_cls.h>

void p4u_fatal(const char *why) __attribute__((noreturn));
struct p4u_map *p4u_map_named(const char *name);
struct p4u_map_shape p4u_map_shape_of(const struct p4u_map *map);
/* The key in `slot` if the slot holds an entry (arrays: every slot). */
const void *p4u_map_key_at(const struct p4u_map *map, __u32 slot);

/* The packet being processed: a heap buffer of exactly headroom + length
 * bytes, so AddressSanitizer sees any access past the end. */
struct p4u_packet {
    unsigned char *buffer;
    __u32 headroom;
    __u32 length;
    /* The shortest the helpers may make it: an Ethernet header, as in the
     * kernel, unless it came in shorter (a BMv2 test's frame the kernel
     * never takes); then any length. */
    __u32 min_length;
    /* Where the kernel's network header would be: after an Ethernet
     * header (none in a shorter frame, as a TUN device gives), further
     * in once the head grew (bpf_skb_change_head resets only the MAC
     * header). bpf_skb_adjust_room works there. */
    __u32 network_offset;
    /* XDP metadata (bpf_xdp_adjust_meta): the bytes just before the
     * packet, which move with it as the kernel moves them. */
    __u32 meta_length;
};

/* Whether the program runs at TC (bpf_redirect's verdict depends on it). */
extern int p4u_hook_is_tc;
extern struct p4u_packet p4u_current;
extern struct xdp_md p4u_xdp;
extern struct __sk_buff p4u_skb;
/* The devmap the last bpf_redirect_map broadcast to (NULL when the last
 * redirect was to one place): the kernel's redirect info. */
extern struct p4u_map *p4u_redirect_broadcast;

void p4u_packet_load(const unsigned char *bytes, __u32 length);

/* The trace ring's records since the last call, or (digests) the digest
 * ring's: `length` bytes of records, each 8-byte aligned and starting
 * with its data length (u32). */
const unsigned char *p4u_ring_take(int digests, __u32 *length);
void p4u_context_refresh(void);

/* The program's egress entry, run on each copy (glue; fatal without one). */
int p4u_egress_entry(void);
/* Writes the copies the last packet made, ` copy IFINDEX RETVAL PACKET`
 * each, and forgets them. */
void p4u_copies_put(void (*put_hex)(const unsigned char *, __u32));
/* After the XDP entry returned `verdict`: a broadcast redirect sends a
 * copy to every devmap entry, each run through the entry's program, as
 * the kernel does when it flushes; whether the frame left that way. */
int p4u_broadcast(int verdict);
/* A map of maps' inner map, from the id stored in it. */
struct p4u_map *p4u_inner_map(const void *value);
/* A fresh map of no definition (a descriptor's map), named `#ID`. */
struct p4u_map *p4u_map_create(struct p4u_map_shape shape);
const char *p4u_map_name(const struct p4u_map *map);
/* The stored value of `key`, as the bpf syscall reads it (a map of maps:
 * the inner map's id). */
void *p4u_map_value(struct p4u_map *map, const void *key);
/* Visits a devmap's entries in the order a broadcast walks them. */
void p4u_devmap_walk(const struct p4u_map *map, void (*visit)(const struct bpf_devmap_val *));

#endif
