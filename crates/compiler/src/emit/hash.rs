//! Hash algorithms over lists of fields, named by algorithm (any
//! architecture's `hash`, checksum and selector externs use them). The
//! fields are concatenated as one bit string, most significant bit
//! first, as BMv2 does for field lists; the bytes are built at compile
//! time positions (no loops over bits), then hashed by a small C
//! function per algorithm, printed only when used.

use super::helpers::Helper;
use super::Emitter;
use crate::ir::{Expr, HashAlgorithm, Ty};

impl Emitter<'_> {
    /// The C expression hashing `fields` with `algorithm`.
    pub(super) fn hash_call(&self, algorithm: HashAlgorithm, fields: &[Expr]) -> String {
        self.use_helper(Helper::Hash(algorithm));
        let (body, len) = self.hash_input(fields);
        format!("({{ {body}{}(hash_in, {len}); }})", function(algorithm))
    }

    /// C statements filling `u8 hash_in[len]` with `fields` as one bit
    /// string, and `len`. A varbit field (last, on a byte: lowering
    /// checks) takes room for its maximum, zeros past the bytes in use.
    pub(super) fn hash_input(&self, fields: &[Expr]) -> (String, u32) {
        let bits: u32 = fields.iter().map(|f| input_bits(&f.ty)).sum();
        let len = bits.div_ceil(8).max(1);
        let mut body = format!("u8 hash_in[{len}] = {{0}}; ");
        let mut at = 0;
        for field in fields {
            let width = input_bits(&field.ty);
            match field.ty {
                Ty::Varbit { .. } => body.push_str(&self.put_varbit(field, at / 8)),
                _ => body.push_str(&put_bits(&self.expr(field), at, width)),
            }
            at += width;
        }
        (body, len)
    }

    /// A C statement copying the varbit `value` into `hash_in` from byte
    /// `at`: all its bytes, zero past those in use.
    fn put_varbit(&self, value: &Expr, at: u32) -> String {
        let max = input_bits(&value.ty) / 8;
        let v = self.lvalue(value);
        format!("__builtin_memcpy(hash_in + {at}, {v}.data, {max}); ")
    }
}

/// The bits a field takes in a hash's input: a varbit's maximum.
fn input_bits(ty: &Ty) -> u32 {
    match ty {
        Ty::Varbit { max_bits } => max_bits.next_multiple_of(8),
        _ => ty.width().unwrap_or(0),
    }
}

/// C statements or-ing the low `width` bits of `value` into `hash_in`
/// at bit `at`, one statement per byte they touch.
fn put_bits(value: &str, at: u32, width: u32) -> String {
    let mut out = String::new();
    if width == 0 {
        return out;
    }
    let end = at + width; // one past the field's last bit
    for byte in at / 8..=(end - 1) / 8 {
        let first = (byte * 8).max(at) - byte * 8;
        let last = (byte * 8 + 8).min(end) - byte * 8;
        let mask = (0xffu32 >> first) & (0xffu32 << (8 - last)) & 0xff;
        // Where the field's last bit lands relative to this byte's last bit.
        let shift = i64::from(end) - i64::from(byte * 8 + 8);
        let moved = match shift {
            0 => format!("(u64)({value})"),
            s if s > 0 => format!("((u64)({value}) >> {s})"),
            s => format!("((u64)({value}) << {})", -s),
        };
        out.push_str(&format!("hash_in[{byte}] |= (u8)({moved} & 0x{mask:x}); "));
    }
    out
}

fn function(algorithm: HashAlgorithm) -> &'static str {
    match algorithm {
        HashAlgorithm::Crc16 => "p4bpf_crc16",
        HashAlgorithm::Crc32 => "p4bpf_crc32",
        HashAlgorithm::Csum16 => "p4bpf_csum16",
        HashAlgorithm::Xor16 => "p4bpf_xor16",
        HashAlgorithm::Identity => "p4bpf_identity",
        HashAlgorithm::Toeplitz => "p4bpf_toeplitz",
    }
}

/// The C function computing `algorithm` over `n` bytes, `n` a constant
/// where it is inlined: the loops unroll into straight code the verifier
/// walks once. The CRCs go four bits at a time from a table: bit by bit,
/// clang and the verifier between them branch per bit.
pub(super) fn helper_text(algorithm: HashAlgorithm) -> &'static str {
    match algorithm {
        HashAlgorithm::Crc16 => {
            "/* CRC-16/ARC (BMv2's crc16): polynomial 0x8005 reflected, init 0,
 * four bits at a time from a 16-entry table. */
static __always_inline u64 p4bpf_crc16(const u8 *d, u32 n)
{
    const u16 t[16] = { 0x0000, 0xcc01, 0xd801, 0x1400, 0xf001, 0x3c00, 0x2800, 0xe401,
                        0xa001, 0x6c00, 0x7800, 0xb401, 0x5000, 0x9c01, 0x8801, 0x4400 };
    u16 crc = 0;
    #pragma unroll
    for (u32 i = 0; i < n; i++) {
        crc = t[(crc ^ d[i]) & 0xf] ^ (crc >> 4);
        crc = t[(crc ^ (d[i] >> 4)) & 0xf] ^ (crc >> 4);
    }
    return crc;
}
"
        }
        HashAlgorithm::Crc32 => {
            "/* CRC-32 (IEEE 802.3, BMv2's crc32): reflected, init and final xor
 * all ones, four bits at a time from a 16-entry table. */
static __always_inline u64 p4bpf_crc32(const u8 *d, u32 n)
{
    const u32 t[16] = { 0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac,
                        0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
                        0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
                        0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c };
    u32 crc = 0xffffffff;
    #pragma unroll
    for (u32 i = 0; i < n; i++) {
        crc = t[(crc ^ d[i]) & 0xf] ^ (crc >> 4);
        crc = t[(crc ^ (d[i] >> 4)) & 0xf] ^ (crc >> 4);
    }
    return ~crc;
}
"
        }
        HashAlgorithm::Csum16 => {
            "/* The Internet checksum (RFC 1071): ones' complement of the ones'
 * complement sum of big-endian 16-bit words, an odd last byte padded. */
static __always_inline u64 p4bpf_csum16(const u8 *d, u32 n)
{
    u32 sum = 0;
    #pragma unroll
    for (u32 i = 0; i < n; i += 2)
        sum += ((u32)d[i] << 8) | (i + 1 < n ? d[i + 1] : 0);
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    return (u16)~sum;
}
"
        }
        HashAlgorithm::Xor16 => {
            "/* The xor of big-endian 16-bit words, an odd last byte padded. */
static __always_inline u64 p4bpf_xor16(const u8 *d, u32 n)
{
    u16 x = 0;
    #pragma unroll
    for (u32 i = 0; i < n; i += 2)
        x ^= ((u16)d[i] << 8) | (i + 1 < n ? d[i + 1] : 0);
    return x;
}
"
        }
        HashAlgorithm::Identity => {
            "/* The bytes as a big-endian number (their last 8 when longer). */
static __always_inline u64 p4bpf_identity(const u8 *d, u32 n)
{
    u64 v = 0;
    #pragma unroll
    for (u32 i = 0; i < n; i++)
        v = (v << 8) | d[i];
    return v;
}
"
        }
        HashAlgorithm::Toeplitz => {
            "/* The Toeplitz hash of receive-side scaling with the Microsoft RSS
 * key: for each set bit of the input, most significant first, the xor of
 * the key's 32 bits from that bit on (the key repeats past its end). */
static __always_inline u64 p4bpf_toeplitz(const u8 *d, u32 n)
{
    const u8 key[40] = { 0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
                         0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
                         0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
                         0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa };
    u32 window = (u32)key[0] << 24 | (u32)key[1] << 16 | (u32)key[2] << 8 | key[3];
    u32 hash = 0;
    #pragma unroll
    for (u32 i = 0; i < n; i++) {
        u8 next = key[(i + 4) % 40];
        #pragma unroll
        for (u32 b = 0; b < 8; b++) {
            /* An opaque window keeps clang from branching on each bit
             * between folded constants: straight code for the verifier. */
            asm volatile(\"\" : \"+r\"(window));
            hash ^= window & -(u32)((d[i] >> (7 - b)) & 1);
            window = window << 1 | ((next >> (7 - b)) & 1);
        }
    }
    return hash;
}
"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::put_bits;

    #[test]
    fn aligned_bytes_are_copied_whole() {
        assert_eq!(put_bits("x", 8, 8), "hash_in[1] |= (u8)((u64)(x) & 0xff); ");
        assert_eq!(
            put_bits("x", 0, 16),
            "hash_in[0] |= (u8)(((u64)(x) >> 8) & 0xff); hash_in[1] |= (u8)((u64)(x) & 0xff); "
        );
    }

    #[test]
    fn odd_fields_straddle_bytes_most_significant_bit_first() {
        // IPv4's version (4 bits) then ihl (4 bits) share byte 0.
        assert_eq!(
            put_bits("v", 0, 4),
            "hash_in[0] |= (u8)(((u64)(v) << 4) & 0xf0); "
        );
        assert_eq!(put_bits("l", 4, 4), "hash_in[0] |= (u8)((u64)(l) & 0xf); ");
        // 13 bits from bit 3: five in byte 0, eight in byte 1.
        assert_eq!(
            put_bits("f", 3, 13),
            "hash_in[0] |= (u8)(((u64)(f) >> 8) & 0x1f); hash_in[1] |= (u8)((u64)(f) & 0xff); "
        );
    }
}
