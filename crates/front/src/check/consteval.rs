//! Compile-time values and the arithmetic on them.
//!
//! Integers are exact ([`BigInt`]); a value of type `bit<W>` or `int<W>` is
//! always kept reduced to its width (wraparound, two's complement for
//! `int<W>`), so every operation ends with [`wrap`]. Operations that have
//! no value at compile time (division by zero, a negative shift) return
//! `Err` with the reason, which the caller reports.

use super::types::Type;
use num_bigint::BigInt;
use num_traits::{One, Signed, ToPrimitive, Zero};

/// Widths above this are refused (no target has them, and values of such
/// widths would be too big to compute with).
pub const MAX_WIDTH: u32 = 1 << 16;

/// A compile-time-known value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// An integer of type `int`, `bit<W>` or `int<W>` (reduced to width).
    Int {
        value: BigInt,
        ty: Type,
    },
    Bool(bool),
    String(String),
    /// A member of `error`, `match_kind` or an enum: type name and member.
    Member {
        ty: String,
        member: String,
    },
    /// Tuples, lists and positional initializers.
    List(Vec<Value>),
    /// `{ f = v, ... }` initializers, fields in written order.
    Struct(Vec<(String, Value)>),
}

impl Value {
    pub fn int(&self) -> Option<&BigInt> {
        match self {
            Value::Int { value, .. } => Some(value),
            _ => None,
        }
    }
}

/// Reduces `value` to the range of `ty` (no-op for `int`).
pub fn wrap(value: BigInt, ty: &Type) -> BigInt {
    match ty {
        Type::Bit(w) => {
            let modulus = BigInt::one() << *w;
            let r = value % &modulus;
            if r.is_negative() {
                r + modulus
            } else {
                r
            }
        }
        Type::Int(w) if *w > 0 => {
            let modulus = BigInt::one() << *w;
            let half = BigInt::one() << (*w - 1);
            let mut r = value % &modulus;
            if r.is_negative() {
                r += &modulus;
            }
            if r >= half {
                r - modulus
            } else {
                r
            }
        }
        Type::Int(_) => BigInt::zero(),
        _ => value,
    }
}

/// Whether `value` can be represented in `ty` without wrapping.
pub fn fits(value: &BigInt, ty: &Type) -> bool {
    match ty {
        Type::Bit(w) => !value.is_negative() && value.bits() <= u64::from(*w),
        Type::Int(w) if *w > 0 => {
            let half = BigInt::one() << (*w - 1);
            *value >= -half.clone() && *value < half
        }
        Type::Int(_) => value.is_zero(),
        _ => true,
    }
}

pub fn int_value(value: BigInt, ty: &Type) -> Value {
    Value::Int {
        value: wrap(value, ty),
        ty: ty.clone(),
    }
}

/// Compile-time integers larger than this many bits are refused, so that
/// repeated squaring in constants cannot exhaust memory.
const MAX_INT_BITS: u64 = 1 << 20;

/// Arithmetic and bitwise binary operators on two integers of type `ty`.
pub fn int_binary(
    op: crate::ast::BinaryOp,
    a: &BigInt,
    b: &BigInt,
    ty: &Type,
) -> Result<BigInt, String> {
    let result = int_binary_unbounded(op, a, b, ty)?;
    if result.bits() > MAX_INT_BITS {
        return Err(format!("constant value has more than {MAX_INT_BITS} bits"));
    }
    Ok(result)
}

fn int_binary_unbounded(
    op: crate::ast::BinaryOp,
    a: &BigInt,
    b: &BigInt,
    ty: &Type,
) -> Result<BigInt, String> {
    use crate::ast::BinaryOp::*;
    Ok(match op {
        Add => a + b,
        Sub => a - b,
        Mul => a * b,
        Div | Mod if b.is_zero() => return Err("division by zero".into()),
        Div | Mod if a.is_negative() || b.is_negative() => {
            return Err("division or modulo of a negative value".into())
        }
        Div => a / b,
        Mod => a % b,
        AddSat | SubSat => {
            let exact = if op == AddSat { a + b } else { a - b };
            saturate(exact, ty)
        }
        BitAnd => a & b,
        BitOr => a | b,
        BitXor => a ^ b,
        Shl | Shr => {
            if b.is_negative() {
                return Err("shift by a negative amount".into());
            }
            let amount = b.to_usize().unwrap_or(usize::MAX);
            let limit = match ty {
                Type::Bit(w) | Type::Int(w) => *w as usize,
                _ => 1 << 16,
            };
            if op == Shl {
                let shifted_out = amount >= limit && !matches!(ty, Type::InfInt);
                if shifted_out || a.is_zero() {
                    BigInt::zero()
                } else if a.bits().saturating_add(amount as u64) > MAX_INT_BITS {
                    return Err(format!(
                        "shifting by {amount} makes a constant of more than {MAX_INT_BITS} bits"
                    ));
                } else {
                    a << amount
                }
            } else {
                a >> amount.min(MAX_INT_BITS as usize + 1)
            }
        }
        _ => return Err("not an arithmetic operator".into()),
    })
}

fn saturate(exact: BigInt, ty: &Type) -> BigInt {
    let (lo, hi) = match ty {
        Type::Bit(w) => (BigInt::zero(), (BigInt::one() << *w) - 1),
        Type::Int(w) if *w > 0 => {
            let half = BigInt::one() << (*w - 1);
            (-half.clone(), half - 1)
        }
        _ => return exact,
    };
    exact.clamp(lo, hi)
}

/// Whether `mask`, read as `width` bits, is ones from the most significant
/// bit down, then zeros (a prefix length); all zeros and all ones count.
pub fn is_prefix_mask(mask: &BigInt, width: u64) -> bool {
    let all = (BigInt::one() << width) - 1;
    let host_bits: BigInt = &all ^ (mask & &all);
    let next: BigInt = &host_bits + 1;
    (host_bits & next).is_zero()
}

/// Value of `(ty) value` for integer and boolean casts.
pub fn cast(value: &Value, ty: &Type) -> Option<Value> {
    match (value, ty) {
        (Value::Int { value, .. }, Type::Bit(_) | Type::Int(_) | Type::InfInt) => {
            Some(int_value(value.clone(), ty))
        }
        (Value::Int { value, .. }, Type::Bool) => Some(Value::Bool(!value.is_zero())),
        (Value::Bool(b), Type::Bit(_)) => Some(int_value(BigInt::from(u8::from(*b)), ty)),
        _ => None,
    }
}

/// `a[hi:lo]` of an integer: always unsigned.
pub fn slice(value: &BigInt, hi: u32, lo: u32) -> BigInt {
    let width = hi.saturating_sub(lo).saturating_add(1).min(MAX_WIDTH);
    wrap(value >> lo as usize, &Type::Bit(width))
}

/// `a ++ b` where `b` has `rhs_width` bits.
pub fn concat(a: &BigInt, b: &BigInt, rhs_width: u32) -> BigInt {
    let low = wrap(b.clone(), &Type::Bit(rhs_width));
    (a << rhs_width as usize) | low
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::BinaryOp;

    #[test]
    fn fixed_width_values_wrap() {
        assert_eq!(wrap(BigInt::from(256), &Type::Bit(8)), BigInt::from(0));
        assert_eq!(wrap(BigInt::from(-1), &Type::Bit(8)), BigInt::from(255));
        assert_eq!(wrap(BigInt::from(128), &Type::Int(8)), BigInt::from(-128));
        assert!(fits(&BigInt::from(-128), &Type::Int(8)));
        assert!(!fits(&BigInt::from(256), &Type::Bit(8)));
    }

    #[test]
    fn saturating_ops_clamp_to_the_type() {
        let ty = Type::Bit(8);
        let r = int_binary(BinaryOp::AddSat, &BigInt::from(250), &BigInt::from(10), &ty);
        assert_eq!(r, Ok(BigInt::from(255)));
        let r = int_binary(
            BinaryOp::SubSat,
            &BigInt::from(-120),
            &BigInt::from(10),
            &Type::Int(8),
        );
        assert_eq!(r, Ok(BigInt::from(-128)));
    }

    #[test]
    fn division_by_zero_is_an_error() {
        assert!(int_binary(
            BinaryOp::Div,
            &BigInt::from(1),
            &BigInt::zero(),
            &Type::InfInt
        )
        .is_err());
    }

    #[test]
    fn slices_and_concatenation() {
        assert_eq!(slice(&BigInt::from(0xabcd), 11, 4), BigInt::from(0xbc));
        assert_eq!(
            concat(&BigInt::from(0xa), &BigInt::from(0x1b), 4),
            BigInt::from(0xab)
        );
    }
}
