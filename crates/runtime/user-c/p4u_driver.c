/* User-space target: the host program's main loop. The p4bpf runtime
 * drives it over stdin/stdout, one request per line, hex for bytes
 * (`-` for none), one answer line each:
 *   shape MAP                      -> shape TYPE KEY_SIZE VALUE_SIZE MAX_ENTRIES | none
 *   update MAP FLAGS KEY VALUE     -> status ERRNO (0 or negative)
 *   lookup MAP KEY                 -> value BYTES | none
 *   delete MAP KEY                 -> status ERRNO (0 or negative)
 *   keys MAP                       -> keys [KEY...] (in slot order)
 *   create TYPE KEY VALUE MAX      -> map NAME (an inner map for a map of maps,
 *                                     whose id NAME's number is)
 *   run PACKET                     -> ret RETVAL PACKET [broadcast] [copy IFINDEX RETVAL PACKET]...
 *                                     (the copies bpf_clone_redirect or an XDP
 *                                     broadcast made, egress run; `broadcast`:
 *                                     the packet left as those copies only)
 *   ring                           -> records [RECORD...] (and forgets them)
 *   ring digests                   -> the same for the digest ring
 * The per-program glue defines p4u_register_maps (names every map) and
 * p4u_entry (calls the program's entry function). */
#include "p4u_runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void p4u_register_maps(void);
int p4u_entry(void);

void p4u_fatal(const char *why)
{
    fprintf(stderr, "p4bpf user target: %s\n", why);
    exit(70);
}

static int nibble(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decodes `text` into a fresh buffer; its length goes to `length`. */
static unsigned char *unhex(const char *text, __u32 *length)
{
    size_t n = strcmp(text, "-") == 0 ? 0 : strlen(text);
    if (n % 2)
        p4u_fatal("odd number of hex digits");
    unsigned char *bytes = malloc(n / 2 + 1);
    if (!bytes)
        p4u_fatal("out of memory");
    for (size_t i = 0; i < n / 2; i++) {
        int hi = nibble(text[2 * i]), lo = nibble(text[2 * i + 1]);
        if (hi < 0 || lo < 0)
            p4u_fatal("bad hex digit");
        bytes[i] = (unsigned char)(hi << 4 | lo);
    }
    *length = (__u32)(n / 2);
    return bytes;
}

static void put_hex(const unsigned char *bytes, __u32 length)
{
    if (length == 0)
        fputc('-', stdout);
    for (__u32 i = 0; i < length; i++)
        printf("%02x", bytes[i]);
}

/* The map named `name` when `size` bytes of key fit it, else NULL. */
static struct p4u_map *sized_map(const char *name, __u32 key_length, __u32 value_length, int with_value)
{
    struct p4u_map *map = p4u_map_named(name);
    if (!map)
        return NULL;
    struct p4u_map_shape shape = p4u_map_shape_of(map);
    if (key_length != shape.key_size || (with_value && value_length != shape.value_size))
        p4u_fatal("key or value of the wrong size");
    return map;
}

static void serve(char *words[], int count)
{
    __u32 key_length = 0, value_length = 0;
    if (count == 2 && strcmp(words[0], "shape") == 0) {
        struct p4u_map *map = p4u_map_named(words[1]);
        if (!map) {
            puts("none");
            return;
        }
        struct p4u_map_shape s = p4u_map_shape_of(map);
        printf("shape %u %u %u %u\n", s.type, s.key_size, s.value_size, s.max_entries);
    } else if (count == 5 && strcmp(words[0], "update") == 0) {
        unsigned char *key = unhex(words[3], &key_length);
        unsigned char *value = unhex(words[4], &value_length);
        struct p4u_map *map = sized_map(words[1], key_length, value_length, 1);
        long status = map ? p4u_map_update(map, key, value, strtoull(words[2], NULL, 10)) : -2;
        printf("status %ld\n", status);
        free(key);
        free(value);
    } else if (count == 3 && strcmp(words[0], "delete") == 0) {
        unsigned char *key = unhex(words[2], &key_length);
        struct p4u_map *map = sized_map(words[1], key_length, 0, 0);
        printf("status %ld\n", map ? p4u_map_delete(map, key) : -2L);
        free(key);
    } else if (count == 3 && strcmp(words[0], "lookup") == 0) {
        unsigned char *key = unhex(words[2], &key_length);
        struct p4u_map *map = sized_map(words[1], key_length, 0, 0);
        void *value = map ? p4u_map_value(map, key) : NULL;
        if (value) {
            fputs("value ", stdout);
            put_hex(value, p4u_map_shape_of(map).value_size);
            fputc('\n', stdout);
        } else {
            puts("none");
        }
        free(key);
    } else if (count == 2 && strcmp(words[0], "keys") == 0) {
        struct p4u_map *map = p4u_map_named(words[1]);
        fputs("keys", stdout);
        for (__u32 slot = 0; map && slot < p4u_map_shape_of(map).max_entries; slot++) {
            const void *key = p4u_map_key_at(map, slot);
            if (key) {
                fputc(' ', stdout);
                put_hex(key, p4u_map_shape_of(map).key_size);
            }
        }
        fputc('\n', stdout);
    } else if (count == 5 && strcmp(words[0], "create") == 0) {
        struct p4u_map_shape shape = { 0 };
        __u32 *fields[] = { &shape.type, &shape.key_size, &shape.value_size, &shape.max_entries };
        for (int i = 0; i < 4; i++)
            *fields[i] = (__u32)strtoul(words[1 + i], NULL, 10);
        printf("map %s\n", p4u_map_name(p4u_map_create(shape)));
    } else if (count == 2 && strcmp(words[0], "run") == 0) {
        unsigned char *packet = unhex(words[1], &key_length);
        p4u_packet_load(packet, key_length);
        free(packet);
        int ret = p4u_entry();
        int broadcast = p4u_broadcast(ret);
        printf("ret %u ", (unsigned)ret);
        put_hex(p4u_current.buffer + p4u_current.headroom, p4u_current.length);
        if (broadcast)
            fputs(" broadcast", stdout);
        p4u_copies_put(put_hex);
        fputc('\n', stdout);
    } else if ((count == 1 || count == 2) && strcmp(words[0], "ring") == 0) {
        __u32 length = 0;
        const unsigned char *ring = p4u_ring_take(count == 2, &length);
        fputs("records", stdout);
        for (__u32 at = 0; at + 8 <= length;) {
            __u32 size;
            memcpy(&size, ring + at, sizeof(size));
            fputc(' ', stdout);
            put_hex(ring + at + 8, size);
            at += 8 + ((size + 7) & ~7u);
        }
        fputc('\n', stdout);
    } else {
        p4u_fatal("unknown request");
    }
}

int main(void)
{
    /* As BPF_PROG_TEST_RUN sets them: the loopback device (ifindex 1) for
     * XDP's receive queue and the skb's device; no skb input interface. */
    p4u_xdp.ingress_ifindex = 1;
    p4u_skb.ifindex = 1;
    p4u_register_maps();
    char *line = NULL;
    size_t room = 0;
    while (getline(&line, &room, stdin) > 0) {
        char *words[6];
        int count = 0;
        for (char *w = strtok(line, " \n"); w && count < 6; w = strtok(NULL, " \n"))
            words[count++] = w;
        if (count > 0)
            serve(words, count);
        fflush(stdout);
    }
    free(line);
    free(p4u_current.buffer);
    return 0;
}
