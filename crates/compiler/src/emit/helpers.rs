//! Small C functions the generated code calls, each printed only when used:
//! big-endian loads and stores of odd-sized fields, byte comparison, the
//! xdp_model and ubpf_model checksum externs, and ubpf_model's hash.

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Helper {
    StoreBe,
    LoadBePacket,
    StoreBePacket,
    BytesEq,
    Ipv4Checksum,
    CsumReplace,
    /// TC's resizes at the front (`crate::target`'s `move_start_fails`).
    SkbResize,
    Lookup3,
    /// Operations on bit strings wider than 64 bits (`super::wide`).
    Wide,
    /// One hash algorithm over bytes (`super::hash`).
    Hash(crate::ir::HashAlgorithm),
    /// A CRC continued from a previous one (`super::crc_continue`).
    CrcContinue(crate::ir::HashAlgorithm),
    /// A run-time header-stack index clamped below the stack's size.
    StackIndex,
    /// A stack's next index, or its size when full (`super::stmt`).
    StackNext,
    /// A number the verifier knows only by its bound (`super::deparser`).
    BoundedUnknown,
    /// A value the verifier forgets (`super::parser_merge`).
    OpaqueU16,
    /// `==` of two varbit values (`super::varbit`).
    VarbitEq,
    /// The checksum over fields and payload, per hook
    /// (`super::payload_checksum`).
    PayloadCsum16Tc,
    PayloadCsum16Xdp,
    /// A received frame's VLAN tag back in its bytes, at TC (`super::vlan`).
    VlanIntoPacket,
    /// PNA's `allocate_flow_id()` (`super::flow_id`).
    FlowId,
}

pub fn text(helper: Helper) -> &'static str {
    match helper {
        Helper::Wide => super::wide::WIDE_HELPERS,
        Helper::Hash(algorithm) => super::hash::helper_text(algorithm),
        Helper::VarbitEq => super::varbit::EQ_HELPER,
        Helper::PayloadCsum16Tc => super::payload_checksum::TC_HELPER,
        Helper::PayloadCsum16Xdp => super::payload_checksum::XDP_HELPER,
        Helper::VlanIntoPacket => super::vlan::HELPER,
        Helper::FlowId => super::flow_id::HELPER,
        Helper::CrcContinue(algorithm) => super::crc_continue::helper_text(algorithm),
        // In asm: clang would otherwise fold the clamp into a compare on
        // one register and an access through another, or into a select of
        // pointers, and the verifier would see an unbounded offset. Not
        // volatile: clang still merges the clamps of one index (a volatile
        // one per field access multiplied the verifier's paths) and keeps
        // a loop counter where the verifier follows it.
        Helper::StackIndex => {
            "/* `i` if it is below `size`, else 0 (P4: an out-of-range stack index
 * reads an undefined value), bounded where the verifier sees it. */
#ifdef __bpf__
#define p4bpf_stack_index(i, size) ({ \\
    u64 p4bpf_index = (i); \\
    asm(\"if %[x] < %[n] goto +1; %[x] = 0\" : [x] \"+r\"(p4bpf_index) : [n] \"i\"(size)); \\
    p4bpf_index; })
#else
#define p4bpf_stack_index(i, size) ((u64)(i) < (size) ? (u64)(i) : 0)
#endif
"
        }
        Helper::OpaqueU16 => super::parser_merge::OPAQUE_HELPER,
        Helper::StackNext => super::stmt::STACK_NEXT_HELPER,
        Helper::BoundedUnknown => super::deparser::BOUNDED_UNKNOWN_HELPER,
        Helper::StoreBe => {
            "/* Writes the low `n` bytes of `v` at `p`, big-endian. */
static __always_inline void p4bpf_store_be(u8 *p, u32 n, u64 v)
{
    for (u32 i = 0; i < n; i++)
        p[i] = (u8)(v >> (8 * (n - 1 - i)));
}
"
        }
        // Packet bytes may be read and written a word at a time whatever
        // their alignment (x86_64 and the verifier allow it for packet
        // pointers, not for the stack): a 48-bit MAC is a u32 and a u16
        // access instead of six byte accesses and five shifts.
        Helper::LoadBePacket => {
            "/* The `n` bytes at packet pointer `p` as a big-endian number. */
static __always_inline u64 p4bpf_load_be_pkt(const u8 *p, u32 n)
{
    u64 v = 0;
    u32 i = 0;
    for (; i + 4 <= n; i += 4)
        v = (v << 32) | bpf_ntohl(*(const u32 *)(p + i));
    if (i + 2 <= n) {
        v = (v << 16) | bpf_ntohs(*(const u16 *)(p + i));
        i += 2;
    }
    if (i < n)
        v = (v << 8) | p[i];
    return v;
}
"
        }
        Helper::StoreBePacket => {
            "/* Writes the low `n` bytes of `v` at packet pointer `p`, big-endian. */
static __always_inline void p4bpf_store_be_pkt(u8 *p, u32 n, u64 v)
{
    u32 i = 0;
    for (; i + 4 <= n; i += 4)
        *(u32 *)(p + i) = bpf_htonl((u32)(v >> (8 * (n - 4 - i))));
    if (i + 2 <= n) {
        *(u16 *)(p + i) = bpf_htons((u16)(v >> (8 * (n - 2 - i))));
        i += 2;
    }
    if (i < n)
        p[i] = (u8)v;
}
"
        }
        Helper::BytesEq => {
            "static __always_inline int p4bpf_bytes_eq(const u8 *a, const u8 *b, u32 n)
{
    u8 diff = 0;
    for (u32 i = 0; i < n; i++)
        diff |= a[i] ^ b[i];
    return diff == 0;
}
"
        }
        Helper::SkbResize => {
            "/* Whether the MAC header the kernel knows ends within the first `n`
 * bytes of a TC packet: where bpf_skb_adjust_room (BPF_ADJ_ROOM_MAC) adds
 * or removes bytes. It is 14 bytes, 18 once a VLAN tag is put back, more
 * once the head grew. The network header starts there, so it is within
 * `n` bytes exactly when the byte `len - n - 1` after it is in the packet. */
static __always_inline int p4bpf_mac_header_within(struct __sk_buff *skb, u32 n, u8 *scratch)
{
    u32 len = skb->len;
    if (n >= len)
        return n == len;
    return !bpf_skb_load_bytes_relative(skb, len - n - 1, scratch, 1, BPF_HDR_START_NET);
}

/* Adds `n` bytes at the front of a TC packet whose first `parsed` bytes
 * the deparser rewrites: bpf_skb_adjust_room, which keeps the skb's header
 * offsets, when the kernel allows it (IPv4/IPv6) and it adds them within
 * those bytes; else bpf_skb_change_head. A global function, as below. */
__attribute__((noinline)) int p4bpf_skb_grow(struct __sk_buff *skb, u32 n, u32 parsed)
{
    u8 scratch;
    if (p4bpf_mac_header_within(skb, parsed, &scratch) && !bpf_skb_adjust_room(skb, (s32)n, BPF_ADJ_ROOM_MAC, 0))
        return 0;
    return bpf_skb_change_head(skb, n, 0);
}

/* Removes the first `n` bytes of a TC packet whose next `kept` bytes the
 * deparser rewrites: bpf_skb_adjust_room when the kernel allows it
 * (IPv4/IPv6 keeping a whole header) and it removes bytes within those
 * `n + kept`; else the rest moves forward in 16-byte chunks and the tail
 * is trimmed (packets up to 4 KiB; the kernel keeps at least the MAC
 * header, so a frame shorter than 14 bytes fails). A global function: the
 * verifier walks its loop once, not once per parser path; its chunk is
 * small because its stack adds to the caller's. */
__attribute__((noinline)) int p4bpf_skb_shrink(struct __sk_buff *skb, u32 n, u32 kept)
{
    u8 chunk[16];
    u32 len = skb->len;
    if (n > len || kept > len - n)
        return -1;
    if (p4bpf_mac_header_within(skb, kept, chunk) && !bpf_skb_adjust_room(skb, -(s32)n, BPF_ADJ_ROOM_MAC, 0))
        return 0;
    if (len - n > 16 * 256)
        return -1;
    for (u32 i = 0; i < 256; i++) {
        u32 from = n + i * 16;
        if (from >= len)
            break;
        u32 size = len - from;
        if (size > 16)
            size = 16;
        /* Hide the bound from clang so the mask stays for the verifier. */
        asm volatile(\"\" : \"+r\"(size));
        size &= 31;
        if (size == 0 || size > 16 || bpf_skb_load_bytes(skb, from, chunk, size))
            return -1;
        if (bpf_skb_store_bytes(skb, from - n, chunk, size, 0))
            return -1;
    }
    return bpf_skb_change_tail(skb, len - n, 0);
}
"
        }
        Helper::Ipv4Checksum => {
            "/* ebpf_ipv4_checksum: the IPv4 header checksum over host-order fields. */
static __always_inline u16 p4bpf_ipv4_checksum(u8 version, u8 ihl, u8 diffserv, u16 totalLen,
        u16 identification, u8 flags, u16 fragOffset, u8 ttl, u8 protocol, u32 srcAddr, u32 dstAddr)
{
    u32 sum = ((u32)version << 12) | ((u32)ihl << 8) | diffserv;
    sum += totalLen;
    sum += identification;
    sum += ((u32)flags << 13) | fragOffset;
    sum += ((u32)ttl << 8) | protocol;
    sum += (srcAddr >> 16) + (srcAddr & 0xffff);
    sum += (dstAddr >> 16) + (dstAddr & 0xffff);
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    return (u16)~sum;
}
"
        }
        Helper::Lookup3 => {
            "/* Bob Jenkins' lookup3 hashword() over `length` words, initval 0. */
#define p4bpf_rot(x, k) (((x) << (k)) | ((x) >> (32 - (k))))
static __always_inline u32 p4bpf_lookup3(const u32 *k, u32 length)
{
    u32 a, b, c;
    a = b = c = 0xdeadbeef + (length << 2);
    while (length > 3) {
        a += k[0]; b += k[1]; c += k[2];
        a -= c; a ^= p4bpf_rot(c, 4); c += b;
        b -= a; b ^= p4bpf_rot(a, 6); a += c;
        c -= b; c ^= p4bpf_rot(b, 8); b += a;
        a -= c; a ^= p4bpf_rot(c, 16); c += b;
        b -= a; b ^= p4bpf_rot(a, 19); a += c;
        c -= b; c ^= p4bpf_rot(b, 4); b += a;
        length -= 3;
        k += 3;
    }
    if (length == 0)
        return c;
    if (length == 3)
        c += k[2];
    if (length >= 2)
        b += k[1];
    a += k[0];
    c ^= b; c -= p4bpf_rot(b, 14);
    a ^= c; a -= p4bpf_rot(c, 11);
    b ^= a; b -= p4bpf_rot(a, 25);
    c ^= b; c -= p4bpf_rot(b, 16);
    a ^= c; a -= p4bpf_rot(c, 4);
    b ^= a; b -= p4bpf_rot(a, 14);
    c ^= b; c -= p4bpf_rot(b, 24);
    return c;
}
"
        }
        Helper::CsumReplace => {
            "/* Incremental checksum update (RFC 1624), host-order values. */
static __always_inline u16 p4bpf_csum_fold(u32 sum)
{
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    return (u16)sum;
}

static __always_inline u16 p4bpf_csum_replace2(u16 csum, u16 old, u16 new)
{
    return (u16)~p4bpf_csum_fold((u32)(u16)~csum + (u16)~old + new);
}

static __always_inline u16 p4bpf_csum_replace4(u16 csum, u32 old, u32 new)
{
    u32 sum = (u32)(u16)~csum + (u16)~(old >> 16) + (u16)~(old & 0xffff) + (new >> 16) + (new & 0xffff);
    return (u16)~p4bpf_csum_fold(sum);
}
"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_helper_defines_a_p4bpf_function() {
        for h in [
            Helper::StoreBe,
            Helper::LoadBePacket,
            Helper::StoreBePacket,
            Helper::BytesEq,
            Helper::Ipv4Checksum,
            Helper::CsumReplace,
            Helper::SkbResize,
            Helper::Lookup3,
            Helper::Wide,
            Helper::StackIndex,
            Helper::StackNext,
            Helper::BoundedUnknown,
            Helper::VlanIntoPacket,
        ] {
            let defines = text(h).contains("static __always_inline")
                || text(h).contains("__attribute__((noinline)) int p4bpf_")
                || text(h).contains("#define p4bpf_");
            assert!(defines, "{h:?}");
        }
    }
}
