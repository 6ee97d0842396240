//! The checker's types and values as the IR needs them: headers, structs
//! and unions get concrete bit layouts (one aggregate per checked type),
//! enums and errors get their codes, compile-time values become bits.
//! Nothing is typed or evaluated here: every type and constant comes from
//! [`CheckedProgram`].
//!
//! Rules: headers must be a whole number of bytes (the target extracts
//! bytes); fields wider than 64 bits must start on a byte. Enums without a
//! representation get 32-bit codes in declaration order.

use super::Diags;
use crate::ir::{AggField, AggId, AggKind, Aggregate, Ty, VarbitField};
use num_bigint::{BigInt, BigUint};
use num_traits::{One, ToPrimitive};
use p4bpf_front::ast::{self, Decl, DeclKind, TypedefTarget};
use p4bpf_front::check::{CheckedProgram, Type, TypeDefKind, Value};
use p4bpf_front::source::Span;
use std::collections::HashMap;

/// Width of a non-serializable enum's code.
const ENUM_CODE_BITS: u32 = 32;

/// The checked program seen through IR types, plus the top-level
/// declarations by name.
pub struct TypeEnv<'a> {
    pub checked: &'a CheckedProgram,
    decls: HashMap<&'a str, &'a Decl>,
    pub aggregates: Vec<Aggregate>,
    /// The checked type each aggregate was built from.
    agg_types: Vec<Type>,
    /// Error names by code, `NoError` first, then in declaration order.
    pub errors: Vec<String>,
    /// Type variables of the generic functions being inlined, innermost
    /// last, with the types the checker inferred at the call.
    type_args: Vec<(String, Type)>,
}

/// `value` reduced modulo 2^width, as the unsigned bits of a field.
pub fn to_bits(value: &BigInt, width: u32) -> BigUint {
    let reduced: BigInt = value & ((BigInt::one() << width) - 1);
    reduced.to_biguint().unwrap_or_default()
}

impl<'a> TypeEnv<'a> {
    pub fn new(program: &'a ast::Program, checked: &'a CheckedProgram) -> TypeEnv<'a> {
        let mut env = TypeEnv {
            checked,
            decls: HashMap::new(),
            aggregates: Vec::new(),
            agg_types: Vec::new(),
            errors: vec!["NoError".into()],
            type_args: Vec::new(),
        };
        for decl in &program.decls {
            env.collect(decl);
        }
        env
    }

    fn collect(&mut self, decl: &'a Decl) {
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
                self.collect(inner);
                self.decls.insert(&name.name, decl);
            }
            _ => {
                if let Some(name) = decl.name() {
                    self.decls.insert(&name.name, decl);
                }
            }
        }
    }

    /// Binds the type parameters of a generic function for the inlining of
    /// one call; returns how many bindings to drop afterwards.
    pub fn bind_type_params(&mut self, params: &[String], args: &[Type]) -> usize {
        let names: Vec<String> = self.type_args.iter().map(|(n, _)| n.clone()).collect();
        let outer: Vec<Type> = self.type_args.iter().map(|(_, t)| t.clone()).collect();
        // Arguments may name the type variables of an enclosing inlining.
        let resolved: Vec<Type> = args
            .iter()
            .map(|a| self.checked.substitute(a, &names, &outer))
            .collect();
        self.type_args.extend(params.iter().cloned().zip(resolved));
        params.len().min(args.len())
    }

    pub fn unbind_type_params(&mut self, count: usize) {
        let keep = self.type_args.len().saturating_sub(count);
        self.type_args.truncate(keep);
    }

    pub fn error_code(&self, name: &str) -> Option<u32> {
        self.errors.iter().position(|e| e == name).map(|i| i as u32)
    }

    pub fn decl(&self, name: &str) -> Option<&'a Decl> {
        self.decls.get(name).copied()
    }

    /// The IR type of the checked expression `e`.
    pub fn expr_ty(&mut self, e: &ast::Expr, diags: &mut Diags) -> Option<Ty> {
        let checked = self.checked;
        self.ty(checked.type_of(e), e.span, diags)
    }

    /// The IR type of a declared name (variable, parameter, value set).
    pub fn decl_ty(&mut self, name: &ast::Ident, diags: &mut Diags) -> Option<Ty> {
        let checked = self.checked;
        match checked.decl_type(name) {
            Some(Type::ValueSet(elem)) => self.ty(elem, name.span, diags),
            Some(t) => self.ty(t, name.span, diags),
            None => {
                diags.error(name.span, format!("`{}` has no checked type", name.name));
                None
            }
        }
    }

    /// The concrete IR type of a checked type; `at` locates errors.
    pub fn ty(&mut self, ty: &Type, at: Span, diags: &mut Diags) -> Option<Ty> {
        match ty {
            Type::Bool => Some(Ty::Bool),
            Type::Error => Some(Ty::Error),
            Type::Void => Some(Ty::Void),
            Type::Bit(w) | Type::Int(w) => {
                if *w == 0 || *w > 2048 {
                    diags.error(at, format!("unsupported width {w}"));
                    return None;
                }
                Some(Ty::Bits {
                    width: *w,
                    signed: matches!(ty, Type::Int(_)),
                })
            }
            // An integer no context fixed (a shift amount): its value is used.
            Type::InfInt => Some(Ty::bits(64)),
            Type::Stack(elem, size) => match self.ty(elem, at, diags)? {
                Ty::Header(elem) | Ty::Union(elem) => Some(Ty::Stack { elem, size: *size }),
                _ => self.array(ty, elem, *size, at, diags),
            },
            Type::Varbit(max_bits) => Some(Ty::Varbit {
                max_bits: *max_bits,
            }),
            Type::Named { .. } => self.named(ty, at, diags),
            Type::Tuple(elems) => self.tuple(ty, elems, at, diags),
            Type::Var(name) => match self.type_args.iter().rev().find(|(n, _)| n == name) {
                Some((_, bound)) => {
                    let bound = bound.clone();
                    self.ty(&bound, at, diags)
                }
                None => {
                    diags.error(at, format!("type variable `{name}` is not bound here"));
                    None
                }
            },
            Type::Unknown => {
                diags.error(
                    at,
                    "the type of this expression could not be inferred; add a cast",
                );
                None
            }
            other => {
                let shown = self.checked.types.display(other).to_string();
                diags.error(
                    at,
                    format!("values of type `{shown}` are not supported by the eBPF target"),
                );
                None
            }
        }
    }

    fn named(&mut self, ty: &Type, at: Span, diags: &mut Diags) -> Option<Ty> {
        if let Some(i) = self.agg_types.iter().position(|t| t == ty) {
            return Some(self.agg_ty(AggId(i as u32)));
        }
        let def = self.checked.types.kind(ty)?;
        match def {
            TypeDefKind::Header { .. } => self.aggregate(ty, AggKind::Header, diags),
            TypeDefKind::Struct { .. } => self.aggregate(ty, AggKind::Struct, diags),
            TypeDefKind::HeaderUnion { .. } => self.aggregate(ty, AggKind::Union, diags),
            TypeDefKind::Enum {
                underlying: Some(u),
                ..
            } => self.ty(u, at, diags),
            TypeDefKind::Enum { .. } => Some(Ty::bits(ENUM_CODE_BITS)),
            TypeDefKind::NewType(t) => self.ty(t, at, diags),
            _ => {
                let shown = self.checked.types.display(ty).to_string();
                diags.error(
                    at,
                    format!("`{shown}` is not a data type the eBPF target can hold"),
                );
                None
            }
        }
    }

    pub fn agg_ty(&self, id: AggId) -> Ty {
        match self.aggregates.get(id.index()).map(|a| a.kind) {
            Some(AggKind::Header) => Ty::Header(id),
            Some(AggKind::Union) => Ty::Union(id),
            _ => Ty::Struct(id),
        }
    }

    fn aggregate(&mut self, ty: &Type, kind: AggKind, diags: &mut Diags) -> Option<Ty> {
        let checked = self.checked;
        let Type::Named { id: type_id, .. } = ty else {
            return None;
        };
        let def = checked.types.get(*type_id)?;
        let fields = checked.types.fields(ty)?;
        self.layout(ty, def.name.clone(), kind, &fields, def.span, diags)
    }

    /// A tuple is held as a struct with fields `f0`, `f1`, ...
    fn tuple(&mut self, ty: &Type, elems: &[Type], at: Span, diags: &mut Diags) -> Option<Ty> {
        if let Some(i) = self.agg_types.iter().position(|t| t == ty) {
            return Some(self.agg_ty(AggId(i as u32)));
        }
        let fields: Vec<(String, Type)> = elems
            .iter()
            .enumerate()
            .map(|(i, t)| (format!("f{i}"), t.clone()))
            .collect();
        let name = format!("tuple{}", self.aggregates.len());
        self.layout(ty, name, AggKind::Struct, &fields, at, diags)
    }

    /// An array of bit strings, bools or structs (`T[N]`, P4_16 1.2.4) is
    /// held like a tuple, as a struct with fields `f0`, `f1`, ...: indexes
    /// known at compile time pick a field.
    fn array(
        &mut self,
        ty: &Type,
        elem: &Type,
        size: u32,
        at: Span,
        diags: &mut Diags,
    ) -> Option<Ty> {
        if let Some(i) = self.agg_types.iter().position(|t| t == ty) {
            return Some(self.agg_ty(AggId(i as u32)));
        }
        let fields: Vec<(String, Type)> =
            (0..size).map(|i| (format!("f{i}"), elem.clone())).collect();
        let name = format!("array{}", self.aggregates.len());
        self.layout(ty, name, AggKind::Struct, &fields, at, diags)
    }

    /// Builds the aggregate `name` for the checked type `ty`; `at` locates
    /// layout errors.
    fn layout(
        &mut self,
        ty: &Type,
        name: String,
        kind: AggKind,
        fields: &[(String, Type)],
        at: Span,
        diags: &mut Diags,
    ) -> Option<Ty> {
        let id = AggId(self.aggregates.len() as u32);
        // Registered before the fields so a recursive type is caught below.
        self.aggregates.push(Aggregate {
            name: name.clone(),
            kind,
            fields: vec![],
            wire_bits: 0,
            varbit: None,
        });
        self.agg_types.push(ty.clone());
        let mut out = Vec::new();
        let mut offset = 0u32;
        let (fields, varbit) = split_varbit(&name, kind, fields, at, diags)?;
        for (field, field_ty) in fields {
            let fty = self.ty(field_ty, at, diags)?;
            let bit_offset = offset;
            if kind == AggKind::Header {
                let Some(w) = self.wire_width(&fty) else {
                    diags.error(
                        at,
                        format!("header field `{field}` must be a bit string, a bool or a struct of them (of at most 64 bits each)"),
                    );
                    return None;
                };
                offset += w;
            }
            out.push(AggField {
                name: field.clone(),
                ty: fty,
                bit_offset: if kind == AggKind::Header {
                    bit_offset
                } else {
                    0
                },
            });
        }
        if kind == AggKind::Header && !offset.is_multiple_of(8) {
            diags.error(
                at,
                format!("header `{name}` is {offset} bits long, not a whole number of bytes: the eBPF target, like BMv2, takes headers of whole bytes"),
            );
            return None;
        }
        if let Some(agg) = self.aggregates.get_mut(id.index()) {
            agg.fields = out;
            agg.wire_bits = offset;
            agg.varbit = varbit;
        }
        Some(self.agg_ty(id))
    }

    /// How many bits a header field of type `ty` takes on the wire: a bit
    /// string, a bool, or a struct of them (P4 7.2.7: a struct inside a
    /// header). `None` for what a header cannot hold, and for a struct
    /// member wider than 64 bits, which the emitter does not place.
    fn wire_width(&self, ty: &Ty) -> Option<u32> {
        let Ty::Struct(id) = ty else {
            return ty.width();
        };
        let agg = self.aggregates.get(id.index())?;
        agg.fields
            .iter()
            .map(|f| match f.ty {
                Ty::Struct(_) => self.wire_width(&f.ty),
                _ => f.ty.width().filter(|w| *w <= 64),
            })
            .sum()
    }

    /// The compile-time value the checker gave `e`.
    pub fn value(&self, e: &ast::Expr) -> Option<&'a Value> {
        self.checked.value_of(e)
    }

    /// The integer the checker gave `e`, or an error naming the need.
    pub fn int(&self, e: &ast::Expr, diags: &mut Diags) -> Option<BigInt> {
        match self.value(e) {
            Some(Value::Int { value, .. }) => Some(value.clone()),
            Some(Value::Bool(b)) => Some(BigInt::from(u8::from(*b))),
            _ => {
                diags.error(e.span, "expected a compile-time constant");
                None
            }
        }
    }

    /// A small non-negative constant: a size, an index, a bit count.
    pub fn const_u32(&self, e: &ast::Expr, diags: &mut Diags) -> Option<u32> {
        let v = self.int(e, diags)?;
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

    /// The bits of a compile-time scalar (integer, bool, enum member,
    /// error) of `width` bits.
    pub fn scalar_bits(&self, v: &Value, width: u32) -> Option<BigUint> {
        match v {
            Value::Int { value, .. } => Some(to_bits(value, width)),
            Value::Bool(b) => Some(BigUint::from(u8::from(*b))),
            Value::Member { ty, member } if ty == "error" => {
                self.error_code(member).map(BigUint::from)
            }
            Value::Member { ty, member } => {
                let enum_ty = self.checked.enum_named(ty)?;
                self.checked.enum_code(&enum_ty, member).map(BigUint::from)
            }
            _ => None,
        }
    }
}

/// Fields of a checked aggregate type, by name.
type Fields<'f> = &'f [(String, Type)];

/// The fixed fields of a header and its trailing varbit field, of a whole
/// number of bytes. Other aggregates hold varbit values as any field.
fn split_varbit<'f>(
    name: &str,
    kind: AggKind,
    fields: Fields<'f>,
    at: Span,
    diags: &mut Diags,
) -> Option<(Fields<'f>, Option<VarbitField>)> {
    let position = fields
        .iter()
        .position(|(_, t)| matches!(t, Type::Varbit(_)));
    let (Some(i), AggKind::Header) = (position, kind) else {
        return Some((fields, None));
    };
    let (field, max_bits) = match fields.get(i) {
        Some((field, Type::Varbit(max))) => (field, *max),
        _ => return None,
    };
    if i + 1 != fields.len() || !max_bits.is_multiple_of(8) {
        diags.error(at, format!("`varbit` field `{field}` of `{name}`: the eBPF target takes one varbit field of whole bytes, as the last field of a header"));
        return None;
    }
    let varbit = VarbitField {
        name: field.clone(),
        max_bits,
    };
    Some((fields.get(..i).unwrap_or_default(), Some(varbit)))
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
