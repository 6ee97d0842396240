//! Bit strings wider than 64 bits: C has no integer for them, so they are
//! big-endian byte arrays (the value in the low bits) and every operation
//! is a call of a small helper over bytes ([`WIDE_HELPERS`]). The lowering
//! gives each operation its own variable as destination and places as
//! wide operands, so each one is one call here.

use super::c::{line, CStmt};
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

/// The statements reading wide field `f` of the header at packet pointer
/// `base` into the byte array `place`. A field that is not whole bytes is
/// shifted out of the bytes covering it, one statement per byte at a
/// constant offset (a loop over packet bytes loses the verifier's bounds).
pub fn load_wide_field(base: &str, f: &AggField, place: &str) -> Vec<CStmt> {
    let width = f.ty.width().unwrap_or(0);
    let (byte, m, shift) = covering_bytes(f);
    if whole_bytes(f) {
        return vec![line(format!(
            "__builtin_memcpy({place}, {base} + {byte}, {m})"
        ))];
    }
    let n = bytes(width);
    (0..n)
        .map(|k| {
            let at = byte + m - 1 - k;
            let mut value = format!("({base}[{at}] >> {shift})");
            if shift > 0 && k + 1 < m {
                value = format!("{value} | ({base}[{}] << {})", at - 1, 8 - shift);
            }
            let i = n - 1 - k;
            let keep = if i == 0 { top(width) } else { "0xff".into() };
            line(format!("{place}[{i}] = (u8)(({value}) & {keep})"))
        })
        .collect()
}

/// The statements writing the byte array `value` to wide field `f` of the
/// header at packet pointer `base`, keeping the bits of the fields that
/// share its first and last bytes.
pub fn store_wide_field(base: &str, f: &AggField, value: &str) -> Vec<CStmt> {
    let width = f.ty.width().unwrap_or(0);
    let (byte, m, shift) = covering_bytes(f);
    if whole_bytes(f) {
        return vec![line(format!(
            "__builtin_memcpy({base} + {byte}, {value}, {m})"
        ))];
    }
    let n = bytes(width);
    (0..m)
        .map(|k| {
            let mut parts = vec![];
            if k < n {
                parts.push(format!("({value}[{}] << {shift})", n - 1 - k));
            }
            if shift > 0 && k >= 1 && k <= n {
                parts.push(format!("({value}[{}] >> {})", n - k, 8 - shift));
            }
            let at = byte + m - 1 - k;
            let mask = field_bits_in_byte(k, shift, width);
            let bits = parts.join(" | ");
            if mask == 0xff {
                line(format!("{base}[{at}] = (u8)({bits})"))
            } else {
                line(format!(
                    "{base}[{at}] = (u8)(({base}[{at}] & 0x{:02x}) | (({bits}) & 0x{mask:02x}))",
                    !mask
                ))
            }
        })
        .collect()
}

/// The bits of the `k`th byte from the end of a field's covering bytes
/// that belong to the field, which ends `shift` bits before their end.
fn field_bits_in_byte(k: u32, shift: u32, width: u32) -> u8 {
    let lo = if k == 0 { shift } else { 0 };
    let end = shift + width;
    let hi = (end.saturating_sub(8 * k)).min(8);
    let below = |b: u32| if b >= 8 { 0xffu32 } else { (1u32 << b) - 1 };
    (below(hi) & !below(lo)) as u8
}

impl Emitter<'_> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_owns_only_its_bits_of_the_shared_bytes() {
        // bit<3> then bit<70>: 10 bytes, the field ends 7 bits before them.
        assert_eq!(field_bits_in_byte(0, 7, 70), 0x80, "last byte: its top bit");
        assert_eq!(field_bits_in_byte(4, 7, 70), 0xff, "a middle byte");
        assert_eq!(
            field_bits_in_byte(9, 7, 70),
            0x1f,
            "first byte: after bit<3>"
        );
        // bit<4> then bit<68>: ends on a byte, starts inside one.
        assert_eq!(field_bits_in_byte(0, 0, 68), 0xff);
        assert_eq!(field_bits_in_byte(8, 0, 68), 0x0f);
    }
}
