//! Types and constants of the top level: turns written types into concrete
//! IR types with bit layouts, and evaluates the constant expressions that
//! sizes, enum values, keysets and literals need.
//!
//! Rules: headers must be a whole number of bytes (the target extracts
//! bytes); fields wider than 64 bits must start on a byte. Enums without a
//! representation get 32-bit codes in declaration order.

use super::Diags;
use crate::ir::{AggField, AggId, AggKind, Aggregate, Ty};
use num_bigint::{BigInt, BigUint, Sign};
use num_traits::{One, ToPrimitive, Zero};
use p4bpf_front::ast::{
    self, BinaryOp, Decl, DeclKind, ExprKind, TypeRef, TypeRefKind, TypedefTarget, UnaryOp,
};
use std::collections::HashMap;

/// A P4 enum as bits: its width and member values.
#[derive(Clone, Debug)]
pub struct EnumInfo {
    pub width: u32,
    pub members: HashMap<String, BigUint>,
}

/// Everything named at the top level that has a type or a constant value.
pub struct TypeEnv<'a> {
    decls: HashMap<&'a str, &'a Decl>,
    pub aggregates: Vec<Aggregate>,
    agg_by_name: HashMap<String, AggId>,
    pub enums: HashMap<String, EnumInfo>,
    pub errors: Vec<String>,
    pub consts: HashMap<String, (BigInt, Ty)>,
}

/// Nesting guard for typedef chains and constant expressions.
const MAX_DEPTH: u32 = 64;

pub fn mask(width: u32) -> BigInt {
    (BigInt::one() << width) - 1
}

/// `value` reduced modulo 2^width, as the unsigned bits of a field.
pub fn to_bits(value: &BigInt, width: u32) -> BigUint {
    let reduced = value & mask(width);
    reduced.to_biguint().unwrap_or_default()
}

impl<'a> TypeEnv<'a> {
    pub fn new(program: &'a ast::Program, diags: &mut Diags) -> TypeEnv<'a> {
        let mut env = TypeEnv {
            decls: HashMap::new(),
            aggregates: Vec::new(),
            agg_by_name: HashMap::new(),
            enums: HashMap::new(),
            errors: vec!["NoError".into()],
            consts: HashMap::new(),
        };
        for decl in &program.decls {
            env.collect(decl, diags);
        }
        env
    }

    fn collect(&mut self, decl: &'a Decl, diags: &mut Diags) {
        match &decl.kind {
            DeclKind::Error { members } => {
                for m in members {
                    if !self.errors.contains(&m.name) {
                        self.errors.push(m.name.clone());
                    }
                }
            }
            DeclKind::Typedef {
                target: TypedefTarget::Decl(inner),
                name,
            }
            | DeclKind::NewType {
                target: TypedefTarget::Decl(inner),
                name,
            } => {
                self.collect(inner, diags);
                self.decls.insert(&name.name, decl);
            }
            DeclKind::Enum {
                name,
                underlying,
                members,
            } => {
                self.decls.insert(&name.name, decl);
                let info = self.enum_info(underlying.as_ref(), members, diags);
                self.enums.insert(name.name.clone(), info);
            }
            DeclKind::Constant { ty, name, value } => {
                self.decls.insert(&name.name, decl);
                if let Some(ty) = self.resolve(ty, diags) {
                    if let Some(v) = self.eval(value, diags) {
                        self.consts.insert(name.name.clone(), (v, ty));
                    }
                }
            }
            _ => {
                if let Some(name) = decl.name() {
                    self.decls.insert(&name.name, decl);
                }
            }
        }
    }

    fn enum_info(
        &mut self,
        underlying: Option<&TypeRef>,
        members: &[ast::EnumMember],
        diags: &mut Diags,
    ) -> EnumInfo {
        let width = match underlying.and_then(|t| self.resolve(t, diags)) {
            Some(Ty::Bits { width, .. }) => width,
            _ => 32,
        };
        let mut values = HashMap::new();
        for (i, m) in members.iter().enumerate() {
            let v = match &m.value {
                Some(e) => self
                    .eval(e, diags)
                    .map(|v| to_bits(&v, width))
                    .unwrap_or_default(),
                None => BigUint::from(i),
            };
            values.insert(m.name.name.clone(), v);
        }
        EnumInfo {
            width,
            members: values,
        }
    }

    pub fn error_code(&self, name: &str) -> Option<u32> {
        self.errors.iter().position(|e| e == name).map(|i| i as u32)
    }

    pub fn decl(&self, name: &str) -> Option<&'a Decl> {
        self.decls.get(name).copied()
    }

    /// The concrete type of a written type.
    pub fn resolve(&mut self, ty: &TypeRef, diags: &mut Diags) -> Option<Ty> {
        self.resolve_at(ty, diags, 0)
    }

    fn resolve_at(&mut self, ty: &TypeRef, diags: &mut Diags, depth: u32) -> Option<Ty> {
        if depth > MAX_DEPTH {
            diags.error(ty.span, "type definitions nest too deeply");
            return None;
        }
        match &ty.kind {
            TypeRefKind::Bool => Some(Ty::Bool),
            TypeRefKind::Error => Some(Ty::Error),
            TypeRefKind::Void => Some(Ty::Void),
            TypeRefKind::Bit(w) | TypeRefKind::Int(w) => {
                let width = self.eval_u32(w, diags)?;
                if width == 0 || width > 2048 {
                    diags.error(ty.span, format!("unsupported width {width}"));
                    return None;
                }
                Some(Ty::Bits {
                    width,
                    signed: matches!(ty.kind, TypeRefKind::Int(_)),
                })
            }
            TypeRefKind::Stack { elem, size } => {
                let size = self.eval_u32(size, diags)?;
                match self.resolve_at(elem, diags, depth + 1)? {
                    Ty::Header(elem) | Ty::Union(elem) => Some(Ty::Stack { elem, size }),
                    _ => {
                        diags.error(
                            ty.span,
                            "only header stacks are supported by the eBPF target",
                        );
                        None
                    }
                }
            }
            TypeRefKind::Named { path, .. } => self.resolve_name(&path.name.name, ty, diags, depth),
            TypeRefKind::Varbit(_) => {
                diags.error(
                    ty.span,
                    "`varbit` fields are not supported by the eBPF target",
                );
                None
            }
            _ => {
                diags.error(ty.span, "this type is not supported by the eBPF target");
                None
            }
        }
    }

    fn resolve_name(
        &mut self,
        name: &str,
        at: &TypeRef,
        diags: &mut Diags,
        depth: u32,
    ) -> Option<Ty> {
        if let Some(id) = self.agg_by_name.get(name) {
            return Some(self.agg_ty(*id));
        }
        if let Some(info) = self.enums.get(name) {
            return Some(Ty::bits(info.width));
        }
        let Some(decl) = self.decl(name) else {
            diags.error(at.span, format!("unknown type `{name}`"));
            return None;
        };
        match &decl.kind {
            DeclKind::Typedef { target, .. } | DeclKind::NewType { target, .. } => match target {
                TypedefTarget::Type(t) => self.resolve_at(t, diags, depth + 1),
                TypedefTarget::Decl(inner) => match inner.name() {
                    Some(n) => {
                        let n = n.name.clone();
                        self.resolve_name(&n, at, diags, depth + 1)
                    }
                    None => None,
                },
            },
            DeclKind::Header { name, fields, .. } => {
                self.aggregate(name, AggKind::Header, fields, diags, depth)
            }
            DeclKind::Struct { name, fields, .. } => {
                self.aggregate(name, AggKind::Struct, fields, diags, depth)
            }
            DeclKind::HeaderUnion { name, fields, .. } => {
                self.aggregate(name, AggKind::Union, fields, diags, depth)
            }
            _ => {
                diags.error(
                    at.span,
                    format!("`{name}` is not a data type the eBPF target can hold"),
                );
                None
            }
        }
    }

    fn agg_ty(&self, id: AggId) -> Ty {
        match self.aggregates.get(id.index()).map(|a| a.kind) {
            Some(AggKind::Header) => Ty::Header(id),
            Some(AggKind::Union) => Ty::Union(id),
            _ => Ty::Struct(id),
        }
    }

    fn aggregate(
        &mut self,
        name: &ast::Ident,
        kind: AggKind,
        fields: &[ast::Field],
        diags: &mut Diags,
        depth: u32,
    ) -> Option<Ty> {
        let id = AggId(self.aggregates.len() as u32);
        // Registered before the fields so a recursive type is caught below.
        self.aggregates.push(Aggregate {
            name: name.name.clone(),
            kind,
            fields: vec![],
            wire_bits: 0,
        });
        self.agg_by_name.insert(name.name.clone(), id);
        let mut out = Vec::new();
        let mut offset = 0u32;
        for f in fields {
            let ty = self.resolve_at(&f.ty, diags, depth + 1)?;
            if kind == AggKind::Header {
                let Some(w) = ty.width() else {
                    diags.error(
                        f.span,
                        format!("header field `{}` must be a bit string", f.name.name),
                    );
                    return None;
                };
                if w > 64 && !offset.is_multiple_of(8) {
                    diags.error(
                        f.span,
                        format!(
                            "field `{}` wider than 64 bits must start on a byte boundary",
                            f.name.name
                        ),
                    );
                    return None;
                }
                out.push(AggField {
                    name: f.name.name.clone(),
                    ty,
                    bit_offset: offset,
                });
                offset += w;
            } else {
                out.push(AggField {
                    name: f.name.name.clone(),
                    ty,
                    bit_offset: 0,
                });
            }
        }
        if kind == AggKind::Header && !offset.is_multiple_of(8) {
            diags.error(
                name.span,
                format!(
                    "header `{}` is {offset} bits long, not a whole number of bytes",
                    name.name
                ),
            );
            return None;
        }
        if let Some(agg) = self.aggregates.get_mut(id.index()) {
            agg.fields = out;
            agg.wire_bits = offset;
        }
        Some(self.agg_ty(id))
    }

    pub fn eval_u32(&mut self, e: &ast::Expr, diags: &mut Diags) -> Option<u32> {
        let v = self.eval(e, diags)?;
        match v.to_u32() {
            Some(v) => Some(v),
            None => {
                diags.error(
                    e.span,
                    format!("expected a small non-negative constant, found {v}"),
                );
                None
            }
        }
    }

    /// Evaluates a compile-time constant expression.
    pub fn eval(&mut self, e: &ast::Expr, diags: &mut Diags) -> Option<BigInt> {
        self.eval_at(e, diags, 0)
    }

    fn eval_at(&mut self, e: &ast::Expr, diags: &mut Diags, depth: u32) -> Option<BigInt> {
        if depth > MAX_DEPTH {
            diags.error(e.span, "constant expression nests too deeply");
            return None;
        }
        match &e.kind {
            ExprKind::Int(lit) => Some(match lit.width {
                Some((w, _)) if w == 0 || w > 2048 => {
                    diags.error(e.span, "unsupported literal width");
                    return None;
                }
                Some((w, false)) => BigInt::from_biguint(Sign::Plus, to_bits(&lit.value, w)),
                _ => lit.value.clone(),
            }),
            ExprKind::Bool(b) => Some(BigInt::from(u8::from(*b))),
            ExprKind::Path(p) => match self.consts.get(&p.name.name) {
                Some((v, _)) => Some(v.clone()),
                None => {
                    diags.error(
                        e.span,
                        format!("`{}` is not a compile-time constant", p.name.name),
                    );
                    None
                }
            },
            ExprKind::Member { base, member } => {
                if let ExprKind::Path(p) = &base.kind {
                    if let Some(v) = self
                        .enums
                        .get(&p.name.name)
                        .and_then(|i| i.members.get(&member.name))
                    {
                        return Some(BigInt::from_biguint(Sign::Plus, v.clone()));
                    }
                }
                diags.error(e.span, "not a compile-time constant");
                None
            }
            ExprKind::Cast { ty, expr } => {
                let v = self.eval_at(expr, diags, depth + 1)?;
                match self.resolve(ty, diags) {
                    Some(Ty::Bits {
                        width,
                        signed: false,
                    }) => Some(BigInt::from_biguint(Sign::Plus, to_bits(&v, width))),
                    _ => Some(v),
                }
            }
            ExprKind::Unary { op, operand } => {
                let v = self.eval_at(operand, diags, depth + 1)?;
                match op {
                    UnaryOp::Neg => Some(-v),
                    UnaryOp::Plus => Some(v),
                    UnaryOp::Not => Some(BigInt::from(u8::from(v.is_zero()))),
                    UnaryOp::Complement => Some(!v),
                }
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let a = self.eval_at(lhs, diags, depth + 1)?;
                let b = self.eval_at(rhs, diags, depth + 1)?;
                self.binary(*op, a, b, e, diags)
            }
            _ => {
                diags.error(e.span, "expected a compile-time constant");
                None
            }
        }
    }

    fn binary(
        &self,
        op: BinaryOp,
        a: BigInt,
        b: BigInt,
        e: &ast::Expr,
        diags: &mut Diags,
    ) -> Option<BigInt> {
        let shift = || b.to_u32().filter(|s| *s <= 4096);
        let flag = |c: bool| Some(BigInt::from(u8::from(c)));
        match op {
            BinaryOp::Add => Some(a + b),
            BinaryOp::Sub => Some(a - b),
            BinaryOp::Mul => Some(a * b),
            BinaryOp::Div | BinaryOp::Mod if b.is_zero() => {
                diags.error(e.span, "division by zero");
                None
            }
            BinaryOp::Div => Some(a / b),
            BinaryOp::Mod => Some(a % b),
            BinaryOp::Shl => Some(a << shift()?),
            BinaryOp::Shr => Some(a >> shift()?),
            BinaryOp::BitAnd => Some(a & b),
            BinaryOp::BitOr => Some(a | b),
            BinaryOp::BitXor => Some(a ^ b),
            BinaryOp::Eq => flag(a == b),
            BinaryOp::Ne => flag(a != b),
            BinaryOp::Lt => flag(a < b),
            BinaryOp::Le => flag(a <= b),
            BinaryOp::Gt => flag(a > b),
            BinaryOp::Ge => flag(a >= b),
            BinaryOp::And => flag(!a.is_zero() && !b.is_zero()),
            BinaryOp::Or => flag(!a.is_zero() || !b.is_zero()),
            _ => {
                diags.error(e.span, "this operator is not supported in a constant");
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn to_bits_wraps_negative_values() {
        assert_eq!(to_bits(&BigInt::from(-1), 8), BigUint::from(255u32));
        assert_eq!(to_bits(&BigInt::from(0x1ff), 8), BigUint::from(255u32));
    }
}
