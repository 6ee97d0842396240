//! A CRC continued over more data ([`crate::ir::Builtin::CrcContinue`],
//! PNA's `Checksum`): the fields are laid out as for a hash
//! (`super::hash`), then run through the algorithm's table from the
//! register the previous CRC leaves.

use super::helpers::Helper;
use super::Emitter;
use crate::ir::{Expr, HashAlgorithm};

impl Emitter<'_> {
    /// The C expression continuing `args[0]`, a finished CRC, over the
    /// fields `args[1..]`.
    pub(super) fn crc_continue_call(&self, algorithm: HashAlgorithm, args: &[Expr]) -> String {
        let Some((so_far, fields)) = args.split_first() else {
            return "0".into();
        };
        self.use_helper(Helper::CrcContinue(algorithm));
        let (body, len) = self.hash_input(fields);
        let function = match algorithm {
            HashAlgorithm::Crc16 => "p4bpf_crc16_continue",
            _ => "p4bpf_crc32_continue",
        };
        format!(
            "({{ {body}{function}({}, hash_in, {len}); }})",
            self.expr(so_far)
        )
    }
}

/// The C function continuing `algorithm`'s CRC (the tables and steps of
/// `super::hash`'s, from a register other than the initial one).
pub(super) fn helper_text(algorithm: HashAlgorithm) -> &'static str {
    match algorithm {
        HashAlgorithm::Crc16 => {
            "/* CRC-16/ARC of more bytes after a CRC `so_far` (no final xor:
 * the CRC is the register). */
static __always_inline u64 p4bpf_crc16_continue(u64 so_far, const u8 *d, u32 n)
{
    const u16 t[16] = { 0x0000, 0xcc01, 0xd801, 0x1400, 0xf001, 0x3c00, 0x2800, 0xe401,
                        0xa001, 0x6c00, 0x7800, 0xb401, 0x5000, 0x9c01, 0x8801, 0x4400 };
    u16 crc = (u16)so_far;
    #pragma unroll
    for (u32 i = 0; i < n; i++) {
        crc = t[(crc ^ d[i]) & 0xf] ^ (crc >> 4);
        crc = t[(crc ^ (d[i] >> 4)) & 0xf] ^ (crc >> 4);
    }
    return crc;
}
"
        }
        _ => {
            "/* CRC-32 of more bytes after a CRC `so_far`: its final xor undone
 * is the register to go on from (0, no data: the initial all ones). */
static __always_inline u64 p4bpf_crc32_continue(u64 so_far, const u8 *d, u32 n)
{
    const u32 t[16] = { 0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac,
                        0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
                        0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
                        0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c };
    u32 crc = ~(u32)so_far;
    #pragma unroll
    for (u32 i = 0; i < n; i++) {
        crc = t[(crc ^ d[i]) & 0xf] ^ (crc >> 4);
        crc = t[(crc ^ (d[i] >> 4)) & 0xf] ^ (crc >> 4);
    }
    return ~crc;
}
"
        }
    }
}
