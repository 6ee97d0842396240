//! Bit strings wider than 64 bits: C has no integer for them, so they are
//! big-endian byte arrays (the value in the low bits) and every operation
//! is a call of a small helper over bytes ([`WIDE_HELPERS`]). The lowering
//! gives each operation its own variable as destination and places as
//! wide operands, so each one is one call here.

use super::expr::wrap;
use super::helpers::Helper;
use super::Emitter;
use crate::ir::{AggField, BinOp, Expr, Ty, WideOp};

/// The C functions behind wide operations, printed once when used.
pub const WIDE_HELPERS: &str = "/* Bit strings wider than 64 bits: big-endian byte arrays of `n` bytes
 * holding the value in their low bits; `top` keeps the first byte's bits
 * that belong to the width. `n` is a constant at every call, and the loops
 * are unrolled: inside a P4 loop a rolled one would index the stack with a
 * register, which the verifier refuses. */
static __always_inline void p4bpf_wide_add(u8 *d, const u8 *a, const u8 *b, u32 n, u8 top, int sub)
{
    u32 carry = sub ? 1 : 0;
#pragma unroll
    for (u32 k = 0; k < n; k++) {
        u32 i = n - 1 - k;
        u32 s = (u32)a[i] + (u8)(sub ? ~b[i] : b[i]) + carry;
        d[i] = (u8)s;
        carry = s >> 8;
    }
    d[0] &= top;
}

/* a * b cut to `n` bytes: column by column from the low byte, each
 * column's byte products summed with the carry of the one before. */
static __always_inline void p4bpf_wide_mul(u8 *d, const u8 *a, const u8 *b, u32 n, u8 top)
{
    u32 carry = 0;
#pragma unroll
    for (u32 k = 0; k < n; k++) {
        u32 sum = carry;
#pragma unroll
        for (u32 i = 0; i <= k; i++)
            sum += (u32)a[n - 1 - i] * b[n - 1 - (k - i)];
        d[n - 1 - k] = (u8)sum;
        carry = sum >> 8;
    }
    d[0] &= top;
}

/* op 0: and, 1: or, 2: xor, 3: complement of `a`. */
static __always_inline void p4bpf_wide_bitwise(u8 *d, const u8 *a, const u8 *b, u32 n, u8 top, int op)
{
#pragma unroll
    for (u32 i = 0; i < n; i++)
        d[i] = op == 0 ? a[i] & b[i] : op == 1 ? a[i] | b[i] : op == 2 ? a[i] ^ b[i] : (u8)~a[i];
    d[0] &= top;
}

static __always_inline void p4bpf_wide_shl(u8 *d, const u8 *a, u32 n, u8 top, u32 k)
{
    u32 q = k / 8, r = k % 8;
#pragma unroll
    for (u32 i = 0; i < n; i++) {
        u8 hi = i + q < n ? (u8)(a[i + q] << r) : 0;
        u8 lo = r && i + q + 1 < n ? (u8)(a[i + q + 1] >> (8 - r)) : 0;
        d[i] = hi | lo;
    }
    d[0] &= top;
}

static __always_inline void p4bpf_wide_shr(u8 *d, const u8 *a, u32 n, u32 k)
{
    u32 q = k / 8, r = k % 8;
#pragma unroll
    for (u32 i = 0; i < n; i++) {
        u8 lo = i >= q ? (u8)(a[i - q] >> r) : 0;
        u8 hi = r && i >= q + 1 ? (u8)(a[i - q - 1] << (8 - r)) : 0;
        d[i] = lo | hi;
    }
}

/* `v` zero-extended (or cut) to `n` bytes. */
static __always_inline void p4bpf_wide_from_u64(u8 *d, u32 n, u8 top, u64 v)
{
#pragma unroll
    for (u32 k = 0; k < n; k++)
        d[n - 1 - k] = k < 8 ? (u8)(v >> (8 * k)) : 0;
    d[0] &= top;
}

/* The `sn`-byte value `s` zero-extended (or cut) to `n` bytes. */
static __always_inline void p4bpf_wide_resize(u8 *d, u32 n, u8 top, const u8 *s, u32 sn)
{
#pragma unroll
    for (u32 k = 0; k < n; k++)
        d[n - 1 - k] = k < sn ? s[sn - 1 - k] : 0;
    d[0] &= top;
}

/* Bits `lo` to `lo + w - 1` (w <= 64) of `a`. */
static __always_inline u64 p4bpf_wide_bits(const u8 *a, u32 n, u32 lo, u32 w)
{
    u64 v = 0;
#pragma unroll
    for (u32 k = 0; k < n; k++) {
        u32 bit = 8 * k;
        if (bit + 8 <= lo || bit >= lo + w)
            continue;
        u64 byte = a[n - 1 - k];
        v |= bit >= lo ? byte << (bit - lo) : byte >> (lo - bit);
    }
    return w >= 64 ? v : v & ((1ULL << w) - 1);
}

static __always_inline int p4bpf_wide_cmp(const u8 *a, const u8 *b, u32 n)
{
#pragma unroll
    for (u32 i = 0; i < n; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}
";

/// The C functions that move a wide field between its value and packet
/// bits that are not whole bytes (`bit<71>` then `bit<1>`), printed once
/// when used. The field ends `shift` bits before the end of the `m` packet
/// bytes that cover it; the other bits of those bytes are another field's.
pub const WIDE_PACKET_BITS_HELPERS: &str = "/* A field wider than 64 bits ending `shift` bits before the end of the
 * `m` packet bytes at `p`, read into the `n`-byte value `d`. */
static __always_inline void p4bpf_wide_load_bits(u8 *d, u32 n, u8 top, const u8 *p, u32 m, u32 shift)
{
#pragma unroll
    for (u32 k = 0; k < n; k++) {
        u8 lo = (u8)(p[m - 1 - k] >> shift);
        u8 hi = shift && k + 1 < m ? (u8)(p[m - 2 - k] << (8 - shift)) : 0;
        d[n - 1 - k] = lo | hi;
    }
    d[0] &= top;
}

/* The `n`-byte value `s` written to the `w` bits ending `shift` bits before
 * the end of the `m` packet bytes at `p`, keeping the bits around it. */
static __always_inline void p4bpf_wide_store_bits(u8 *p, u32 m, u32 shift, u32 w, const u8 *s, u32 n)
{
#pragma unroll
    for (u32 k = 0; k < m; k++) {
        u32 lo = k == 0 ? shift : 0;
        u32 end = shift + w;
        u32 hi = end >= 8 * k + 8 ? 8 : end > 8 * k ? end - 8 * k : 0;
        u8 mask = (u8)(((1u << hi) - 1) & ~((1u << lo) - 1));
        u8 v = (k < n ? (u8)(s[n - 1 - k] << shift) : 0)
             | (shift && k >= 1 && k - 1 < n ? (u8)(s[n - k] >> (8 - shift)) : 0);
        p[m - 1 - k] = (p[m - 1 - k] & (u8)~mask) | (v & mask);
    }
}
";

/// Bytes of a wide value.
fn bytes(width: u32) -> u32 {
    width.div_ceil(8)
}

/// The mask of the first byte's bits that belong to `width`.
fn top(width: u32) -> String {
    let used = width - 8 * (bytes(width) - 1);
    format!("0x{:x}", (1u32 << used) - 1)
}

pub fn is_wide(ty: &Ty) -> bool {
    ty.width().is_some_and(|w| w > 64)
}

/// Whether a wide field lies in whole packet bytes, so a byte copy moves it.
fn whole_bytes(f: &AggField) -> bool {
    f.bit_offset.is_multiple_of(8) && f.ty.width().is_some_and(|w| w.is_multiple_of(8))
}

/// The packet bytes covering wide field `f`: (first byte, count, bits after
/// the field in the last one).
fn covering_bytes(f: &AggField) -> (u32, u32, u32) {
    let width = f.ty.width().unwrap_or(0);
    let bit = f.bit_offset % 8;
    let m = (bit + width).div_ceil(8);
    (f.bit_offset / 8, m, m * 8 - bit - width)
}

impl Emitter<'_> {
    /// The statement reading wide field `f` of the header at packet
    /// pointer `base` into the byte array `place`.
    pub fn load_wide_field(&self, base: &str, f: &AggField, place: &str) -> String {
        let width = f.ty.width().unwrap_or(0);
        let (byte, m, shift) = covering_bytes(f);
        if whole_bytes(f) {
            return format!("__builtin_memcpy({place}, {base} + {byte}, {m})");
        }
        self.use_helper(Helper::WidePacketBits);
        format!(
            "p4bpf_wide_load_bits({place}, {}, {}, {base} + {byte}, {m}, {shift})",
            bytes(width),
            top(width)
        )
    }

    /// The statement writing the byte array `value` to wide field `f` of
    /// the header at packet pointer `base`.
    pub fn store_wide_field(&self, base: &str, f: &AggField, value: &str) -> String {
        let width = f.ty.width().unwrap_or(0);
        let (byte, m, shift) = covering_bytes(f);
        if whole_bytes(f) {
            return format!("__builtin_memcpy({base} + {byte}, {value}, {m})");
        }
        self.use_helper(Helper::WidePacketBits);
        format!(
            "p4bpf_wide_store_bits({base} + {byte}, {m}, {shift}, {width}, {value}, {})",
            bytes(width)
        )
    }

    /// The statement that stores `op(args)` into the wide variable `place`.
    pub fn wide_assign(&self, place: &str, ty: &Ty, op: WideOp, args: &[Expr]) -> String {
        self.use_helper(Helper::Wide);
        let width = ty.width().unwrap_or(0);
        let (n, top) = (bytes(width), top(width));
        let arg = |i: usize| args.get(i).map(|a| self.lvalue(a)).unwrap_or_default();
        match op {
            WideOp::Add | WideOp::Sub => format!(
                "p4bpf_wide_add({place}, {}, {}, {n}, {top}, {})",
                arg(0),
                arg(1),
                u8::from(op == WideOp::Sub)
            ),
            WideOp::Mul => format!(
                "p4bpf_wide_mul({place}, {}, {}, {n}, {top})",
                arg(0),
                arg(1)
            ),
            WideOp::BitAnd | WideOp::BitOr | WideOp::BitXor | WideOp::Complement => {
                let code = match op {
                    WideOp::BitAnd => 0,
                    WideOp::BitOr => 1,
                    WideOp::BitXor => 2,
                    _ => 3,
                };
                let b = if op == WideOp::Complement {
                    arg(0)
                } else {
                    arg(1)
                };
                format!(
                    "p4bpf_wide_bitwise({place}, {}, {b}, {n}, {top}, {code})",
                    arg(0)
                )
            }
            WideOp::Shl(k) => format!("p4bpf_wide_shl({place}, {}, {n}, {top}, {k})", arg(0)),
            WideOp::Shr(k) => format!("p4bpf_wide_shr({place}, {}, {n}, {k})", arg(0)),
            WideOp::Widen => match args.first() {
                Some(from) if is_wide(&from.ty) => format!(
                    "p4bpf_wide_resize({place}, {n}, {top}, {}, {})",
                    self.lvalue(from),
                    bytes(from.ty.width().unwrap_or(0))
                ),
                Some(from) => format!(
                    "p4bpf_wide_from_u64({place}, {n}, {top}, (u64){})",
                    self.expr(from)
                ),
                None => String::new(),
            },
        }
    }

    /// Bits `lo..lo + ty's width` of the wide place `base`, as `ty`.
    pub fn wide_bits(&self, base: &Expr, lo: u32, ty: &Ty) -> String {
        self.use_helper(Helper::Wide);
        let n = bytes(base.ty.width().unwrap_or(0));
        let w = ty.width().unwrap_or(64).min(64);
        wrap(
            ty,
            &format!("p4bpf_wide_bits({}, {n}, {lo}, {w})", self.lvalue(base)),
        )
    }

    /// `a op b` for wide places, unsigned.
    pub fn wide_compare(&self, op: BinOp, a: &Expr, b: &Expr) -> String {
        self.use_helper(Helper::Wide);
        let n = bytes(a.ty.width().unwrap_or(0));
        let sym = match op {
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Ne => "!=",
            _ => "==",
        };
        format!(
            "(p4bpf_wide_cmp({}, {}, {n}) {sym} 0)",
            self.lvalue(a),
            self.lvalue(b)
        )
    }
}
