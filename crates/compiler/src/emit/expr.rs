//! Expressions to C: fully parenthesized, every arithmetic result cut back
//! to its P4 width (`bit<4>` wraps at 16), signed values compared as signed.

use super::helpers::Helper;
use super::types::VALID;
use super::wide::is_wide;
use super::Emitter;
use crate::cstruct::{c_ident, Scalar};
use crate::ir::{BinOp, Builtin, Expr, ExprKind, SkbField, Ty, UnOp, VarStorage};
use num_bigint::BigUint;

/// `value` as a C literal of a `width`-bit type.
pub fn literal(value: &BigUint, width: u32) -> String {
    let suffix = if width > 32 { "ULL" } else { "U" };
    if *value < BigUint::from(10u32) {
        format!("{value}{suffix}")
    } else {
        format!("0x{value:x}{suffix}")
    }
}

/// `value` as the big-endian bytes of a `width`-bit array: a compound
/// literal, usable wherever a wide place is read.
pub fn wide_literal(value: &BigUint, width: u32) -> String {
    let n = width.div_ceil(8) as usize;
    let bytes = value.to_bytes_be();
    let pad = n.saturating_sub(bytes.len());
    let all: Vec<String> = std::iter::repeat_n(0u8, pad)
        .chain(bytes.iter().copied().skip(bytes.len().saturating_sub(n)))
        .map(|b| format!("0x{b:02x}"))
        .collect();
    format!("((u8[{n}]){{{}}})", all.join(", "))
}

/// `a |+| b` or `a |-| b` on `int<width>`, clamped to its range; the
/// operands are widened to 64 bits, and the tests never overflow them.
fn signed_saturating(op: BinOp, a: &str, b: &str, width: u32) -> String {
    let holder = Scalar::for_width(width).size() * 8;
    let (x, y) = (
        format!("(s64)(s{holder}){a}"),
        format!("(s64)(s{holder}){b}"),
    );
    let max_value = (1i128 << (width.clamp(1, 64) - 1)) - 1;
    let (max, min) = (format!("{max_value}LL"), format!("(-{max_value}LL - 1)"));
    if op == BinOp::AddSat {
        format!("(({y} > 0 && {x} > {max} - {y}) ? {max} : ({y} < 0 && {x} < {min} - {y}) ? {min} : {x} + {y})")
    } else {
        format!("(({y} < 0 && {x} > {max} + {y}) ? {max} : ({y} > 0 && {x} < {min} + {y}) ? {min} : {x} - {y})")
    }
}

/// All ones in the low `width` bits.
pub fn mask_literal(width: u32) -> String {
    if width >= 64 {
        "0xffffffffffffffffULL".into()
    } else {
        literal(&((BigUint::from(1u32) << width) - 1u32), width)
    }
}

fn is_natural(width: u32) -> bool {
    matches!(width, 8 | 16 | 32 | 64)
}

/// A signed type narrower than its C holder: a value of it that comes in
/// as bare bits (from the packet, an entry) needs its sign bit spread.
pub fn is_narrow_signed(ty: &Ty) -> bool {
    matches!(ty, Ty::Bits { width, signed: true } if *width < 64 && !is_natural(*width))
}

/// `text` converted to the C holder of `ty`, cut to its width.
pub fn wrap(ty: &Ty, text: &str) -> String {
    match ty {
        Ty::Bits {
            width,
            signed: false,
        } if *width <= 64 => {
            let c = Scalar::for_width(*width).c_type();
            if is_natural(*width) {
                format!("(({c})({text}))")
            } else {
                format!("(({c})(({text}) & {}))", mask_literal(*width))
            }
        }
        Ty::Bits {
            width,
            signed: true,
        } if *width <= 64 => {
            let bits = Scalar::for_width(*width).size() * 8;
            if is_natural(*width) {
                format!("((s{bits})({text}))")
            } else {
                // Sign-extend from `width` bits inside the holder.
                let shift = bits - width;
                format!("((s{bits})((s{bits})((u{bits})({text}) << {shift}) >> {shift}))")
            }
        }
        Ty::Bool => format!("(({text}) != 0)"),
        _ => text.to_string(),
    }
}

impl Emitter<'_> {
    pub fn expr(&self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Bool(b) => if *b { "1" } else { "0" }.into(),
            ExprKind::Int(v) if is_wide(&e.ty) => wide_literal(v, e.ty.width().unwrap_or(0)),
            ExprKind::Int(v) if is_narrow_signed(&e.ty) => {
                wrap(&e.ty, &literal(v, e.ty.width().unwrap_or(32)))
            }
            ExprKind::Int(v) => literal(v, e.ty.width().unwrap_or(32)),
            ExprKind::Var(_)
            | ExprKind::Field { .. }
            | ExprKind::VarbitField { .. }
            | ExprKind::Index { .. }
            | ExprKind::StackNext(_)
            | ExprKind::StackLast(_) => self.lvalue(e),
            ExprKind::StackIndex { stack, minus: 0 } => format!("{}.next", self.lvalue(stack)),
            ExprKind::StackIndex { stack, .. } => format!("({}.next - 1)", self.lvalue(stack)),
            ExprKind::IsValid(h) => match h.ty {
                // A union is valid when one of its members is.
                Ty::Union(a) => {
                    let place = self.lvalue(h);
                    let members: Vec<String> = self
                        .prog
                        .agg(a)
                        .map(|u| {
                            u.fields
                                .iter()
                                .map(|f| format!("{place}.{}.{VALID}", c_ident(&f.name)))
                                .collect()
                        })
                        .unwrap_or_default();
                    if members.is_empty() {
                        "0".into()
                    } else {
                        format!("({})", members.join(" || "))
                    }
                }
                _ => format!("{}.{VALID}", self.lvalue(h)),
            },
            ExprKind::Unary { op, operand } => {
                let x = self.expr(operand);
                match op {
                    UnOp::Not => format!("(!{x})"),
                    UnOp::Complement => wrap(&e.ty, &format!("~{x}")),
                    UnOp::Neg => wrap(&e.ty, &format!("-{x}")),
                }
            }
            ExprKind::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs, &e.ty),
            ExprKind::Slice { base, lo, .. } if is_wide(&base.ty) => {
                self.wide_bits(base, *lo, &e.ty)
            }
            ExprKind::Slice { base, lo, .. } => {
                wrap(&e.ty, &format!("{} >> {lo}", self.expr(base)))
            }
            ExprKind::Concat { hi, lo } => {
                let lo_width = lo.ty.width().unwrap_or(0);
                wrap(
                    &e.ty,
                    &format!("((u64){} << {lo_width}) | {}", self.expr(hi), self.expr(lo)),
                )
            }
            ExprKind::Cast(inner) if is_wide(&inner.ty) => self.wide_bits(inner, 0, &e.ty),
            ExprKind::Cast(inner) => self.cast(inner, &e.ty),
            ExprKind::Mux { cond, then, other } => format!(
                "({} ? {} : {})",
                self.expr(cond),
                self.expr(then),
                self.expr(other)
            ),
            ExprKind::ErrorCode(code) => format!("{code}"),
            ExprKind::Lookahead { bit_offset, .. } => {
                let field = crate::ir::AggField {
                    name: String::new(),
                    ty: e.ty.clone(),
                    bit_offset: *bit_offset,
                };
                self.load_field("(pkt + offset)", &field)
            }
            ExprKind::PacketLength => self.target.packet_length().into(),
            ExprKind::Builtin { func, args } => self.builtin(*func, args),
            ExprKind::ExternMethod { instance, op, args } => {
                self.extern_method(*instance, *op, args)
            }
            ExprKind::ExternCall { name, args } => {
                let args: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                format!("{name}({})", args.join(", "))
            }
            // The lowering puts wide operations only on the right of an
            // assignment, which `Emitter::assign` prints as a helper call.
            ExprKind::Wide { .. } => "0 /* wide operation outside an assignment */".into(),
        }
    }

    /// An assignable place: `st->headers.ipv4.ttl`, `add`.
    pub fn lvalue(&self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Var(v) => match self.prog.var(*v) {
                Some(var) if var.storage == VarStorage::ActionParam => var.c_name.clone(),
                Some(var) if var.storage == VarStorage::ActionOutParam => {
                    format!("(*{})", var.c_name)
                }
                Some(var) => format!("st->{}", var.c_name),
                None => "0".into(),
            },
            ExprKind::Field { base, agg, field } => {
                let name = self
                    .prog
                    .agg(*agg)
                    .and_then(|a| a.fields.get(*field))
                    .map(|f| c_ident(&f.name))
                    .unwrap_or_default();
                format!("{}.{name}", self.lvalue(base))
            }
            ExprKind::VarbitField { base, agg } => {
                let name = self
                    .prog
                    .agg(*agg)
                    .and_then(|a| a.varbit.as_ref())
                    .map(|v| c_ident(&v.name))
                    .unwrap_or_default();
                format!("{}.{name}", self.lvalue(base))
            }
            ExprKind::Index { base, index } => match (&index.kind, &base.ty) {
                (ExprKind::Int(_), _) => {
                    format!("{}.elem[{}]", self.lvalue(base), self.expr(index))
                }
                // A run-time index is bounded for the verifier; an
                // out-of-range read takes element 0 (its value is undefined).
                (_, Ty::Stack { size, .. }) => {
                    let i = self.bounded_index(&self.expr(index), *size);
                    format!("{}.elem[{i}]", self.lvalue(base))
                }
                _ => format!("{}.elem[{}]", self.lvalue(base), self.expr(index)),
            },
            ExprKind::StackNext(stack) | ExprKind::StackLast(stack) => {
                let size = match stack.ty {
                    Ty::Stack { size, .. } => size,
                    _ => 1,
                };
                let s = self.lvalue(stack);
                let index = if matches!(e.kind, ExprKind::StackNext(_)) {
                    format!("{s}.next")
                } else {
                    format!("({s}.next - 1)")
                };
                // Out of range reads element 0: the verifier needs a bounded index.
                format!("{s}.elem[{}]", self.bounded_index(&index, size))
            }
            _ => self.expr(e),
        }
    }

    /// `index`, or 0 when it is not below `size`, clamped where the
    /// verifier sees it (a C `?:` lets clang compare one register and
    /// index with another, which the verifier refuses as unbounded).
    pub(super) fn bounded_index(&self, index: &str, size: u32) -> String {
        self.use_helper(Helper::StackIndex);
        format!("p4bpf_stack_index({index}, {size})")
    }

    /// `i < size && ...` for the run-time stack indices on the path of
    /// the place `e`, or `None` when every index is a constant.
    pub fn index_guard(&self, mut e: &Expr) -> Option<String> {
        let mut conds = vec![];
        loop {
            match &e.kind {
                ExprKind::Index { base, index } => {
                    if let (false, Ty::Stack { size, .. }) =
                        (matches!(index.kind, ExprKind::Int(_)), &base.ty)
                    {
                        conds.push(format!("{} < {size}", self.expr(index)));
                    }
                    e = base;
                }
                ExprKind::Field { base, .. }
                | ExprKind::VarbitField { base, .. }
                | ExprKind::Slice { base, .. } => e = base,
                _ => break,
            }
        }
        (!conds.is_empty()).then(|| conds.join(" && "))
    }

    fn binary(&self, op: BinOp, lhs: &Expr, rhs: &Expr, ty: &Ty) -> String {
        if let (Ty::Varbit { .. }, BinOp::Eq | BinOp::Ne) = (&lhs.ty, op) {
            let not = if op == BinOp::Ne { "!" } else { "" };
            return format!("{not}{}", self.varbit_eq(lhs, rhs));
        }
        let (a, b) = (self.expr(lhs), self.expr(rhs));
        let signed = matches!(lhs.ty, Ty::Bits { signed: true, .. });
        let width = lhs.ty.width().unwrap_or(32);
        let arith = |sym: &str| wrap(ty, &format!("{a} {sym} {b}"));
        let compare = |sym: &str| {
            if signed {
                let s = Scalar::for_width(width).size() * 8;
                format!("((s{s}){a} {sym} (s{s}){b})")
            } else {
                format!("({a} {sym} {b})")
            }
        };
        match op {
            BinOp::Add => arith("+"),
            BinOp::Sub => arith("-"),
            BinOp::Mul => arith("*"),
            BinOp::Div => format!("({b} == 0 ? 0 : {})", arith("/")),
            BinOp::Mod => format!("({b} == 0 ? 0 : {})", arith("%")),
            BinOp::BitAnd => arith("&"),
            BinOp::BitOr => arith("|"),
            BinOp::BitXor => arith("^"),
            // Arithmetic: a shift by the width or more leaves the sign bits.
            BinOp::Shr if signed => {
                let s = Scalar::for_width(width).size() * 8;
                let fill = format!("((s{s}){a} < 0 ? -1 : 0)");
                let shifted = wrap(ty, &format!("(s64)(s{s}){a} >> {b}"));
                match &rhs.kind {
                    ExprKind::Int(v) if *v < BigUint::from(width) => shifted,
                    ExprKind::Int(_) => wrap(ty, &fill),
                    _ => wrap(ty, &format!("({b} >= {width} ? {fill} : {shifted})")),
                }
            }
            BinOp::Shl | BinOp::Shr => {
                let sym = if op == BinOp::Shl { "<<" } else { ">>" };
                let shifted = wrap(ty, &format!("(u64){a} {sym} {b}"));
                match &rhs.kind {
                    ExprKind::Int(v) if *v < BigUint::from(width) => shifted,
                    ExprKind::Int(_) => "0".into(),
                    _ => format!("({b} >= {width} ? 0 : {shifted})"),
                }
            }
            BinOp::AddSat | BinOp::SubSat if signed => {
                wrap(ty, &signed_saturating(op, &a, &b, width))
            }
            BinOp::AddSat => {
                let max = mask_literal(width);
                wrap(
                    ty,
                    &format!(
                        "((u64){a} + {b} > {max} || (u64){a} + {b} < (u64){a}) ? {max} : {a} + {b}"
                    ),
                )
            }
            BinOp::SubSat => wrap(ty, &format!("{a} > {b} ? {a} - {b} : 0")),
            BinOp::Eq | BinOp::Ne if width > 64 => {
                self.use_helper(Helper::BytesEq);
                let n = width.div_ceil(8);
                let eq = format!("p4bpf_bytes_eq({a}, {b}, {n})");
                if op == BinOp::Eq {
                    eq
                } else {
                    format!("(!{eq})")
                }
            }
            BinOp::Eq => format!("({a} == {b})"),
            BinOp::Ne => format!("({a} != {b})"),
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge if width > 64 => {
                self.wide_compare(op, lhs, rhs)
            }
            BinOp::Lt => compare("<"),
            BinOp::Le => compare("<="),
            BinOp::Gt => compare(">"),
            BinOp::Ge => compare(">="),
            BinOp::And => format!("({a} && {b})"),
            BinOp::Or => format!("({a} || {b})"),
        }
    }

    fn cast(&self, inner: &Expr, to: &Ty) -> String {
        let x = self.expr(inner);
        match (&inner.ty, to) {
            (Ty::Bool, Ty::Bits { .. }) => format!("({x} ? 1 : 0)"),
            (Ty::Bits { .. }, Ty::Bool) => format!("({x} != 0)"),
            (
                Ty::Bits {
                    width,
                    signed: true,
                },
                Ty::Bits { .. },
            ) => {
                let s = Scalar::for_width(*width).size() * 8;
                wrap(to, &format!("(s64)(s{s}){x}"))
            }
            _ => wrap(to, &x),
        }
    }

    fn builtin(&self, func: Builtin, args_of: &[Expr]) -> String {
        let values: Vec<String> = args_of.iter().map(|a| self.expr(a)).collect();
        let args = values.join(", ");
        match func {
            Builtin::Ipv4Checksum => {
                self.use_helper(Helper::Ipv4Checksum);
                format!("p4bpf_ipv4_checksum({args})")
            }
            Builtin::CsumReplace2 => {
                self.use_helper(Helper::CsumReplace);
                format!("p4bpf_csum_replace2({args})")
            }
            Builtin::CsumReplace4 => {
                self.use_helper(Helper::CsumReplace);
                format!("p4bpf_csum_replace4({args})")
            }
            Builtin::CsumFold => {
                self.use_helper(Helper::CsumReplace);
                format!("p4bpf_csum_fold({args})")
            }
            Builtin::KtimeGetNs => "((u32)bpf_ktime_get_ns())".into(),
            Builtin::TimeNs48 => "(bpf_ktime_get_ns() & 0xffffffffffffULL)".into(),
            Builtin::PerfEventOutput => self.perf_event_output_call(),
            Builtin::Hash(algorithm) => self.hash_call(algorithm, args_of),
            Builtin::Random => "bpf_get_prandom_u32()".into(),
            Builtin::PassNumber => "passes".into(),
            Builtin::CrcContinue(algorithm) => self.crc_continue_call(algorithm, args_of),
            Builtin::Csum16WithPayload => self.csum16_with_payload_call(args_of),
            Builtin::Digest(index) => self.digest_call(index, &args),
            Builtin::AddEntry(index) => self.add_entry_call(index),
            Builtin::AllocateFlowId => {
                self.use_helper(Helper::FlowId);
                "p4bpf_allocate_flow_id()".into()
            }
            // The kernel keeps the protocol in network order.
            Builtin::SkbRead(SkbField::Protocol) => {
                format!("bpf_ntohs({}->protocol)", self.context_name())
            }
            Builtin::SkbRead(field) => format!("{}->{}", self.context_name(), field.c_name()),
            Builtin::SkbWrite(field) => {
                format!("({}->{} = {args})", self.context_name(), field.c_name())
            }
            Builtin::Lookup3 => {
                self.use_helper(Helper::Lookup3);
                // 64-bit fields hash as two words, high first.
                let words: Vec<String> = args_of
                    .iter()
                    .zip(&values)
                    .flat_map(|(a, v)| match a.ty.width() {
                        Some(w) if w > 32 => {
                            vec![format!("(u32)((u64)({v}) >> 32)"), format!("(u32)({v})")]
                        }
                        _ => vec![format!("(u32)({v})")],
                    })
                    .collect();
                format!(
                    "({{ u32 words[{n}] = {{ {} }}; p4bpf_lookup3(words, {n}); }})",
                    words.join(", "),
                    n = words.len().max(1)
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_widths_are_masked_and_signed_ones_sign_extended() {
        assert_eq!(wrap(&Ty::bits(4), "x + 1"), "((u8)((x + 1) & 0xfU))");
        assert_eq!(wrap(&Ty::bits(16), "x"), "((u16)(x))");
        assert_eq!(
            wrap(
                &Ty::Bits {
                    width: 4,
                    signed: true
                },
                "x"
            ),
            "((s8)((s8)((u8)(x) << 4) >> 4))"
        );
    }

    #[test]
    fn wide_literals_get_a_64_bit_suffix() {
        assert_eq!(literal(&BigUint::from(0x800u32), 16), "0x800U");
        assert_eq!(literal(&BigUint::from(1u32), 48), "1ULL");
    }
}
