//! Registers of structs or of bit strings wider than 64 bits: C passes
//! neither as a number, so their index and value are places the register's
//! functions take by address, and a read fills a variable. Their initial
//! value (PSA's and PNA's `initial_value`) is a constant of the value type,
//! kept as one value per field.

use super::externs::of_width;
use super::Lowerer;
use crate::ir::{composite_register_type, Expr, ExprKind, ExternOp, Ty};
use num_bigint::BigUint;
use p4bpf_front::ast;
use p4bpf_front::check::Value;

impl Lowerer<'_, '_> {
    /// `call` (a read or write of a composite register) with its composite
    /// arguments in places; a read becomes the variable it fills.
    pub(super) fn composite_register_call(&mut self, call: Expr) -> Expr {
        let ExprKind::ExternMethod { instance, op, args } = call.kind else {
            return call;
        };
        let args = args
            .into_iter()
            .map(|a| {
                if composite_register_type(&a.ty) {
                    self.place(a)
                } else {
                    a
                }
            })
            .collect();
        let call = Expr {
            kind: ExprKind::ExternMethod { instance, op, args },
            ty: call.ty,
        };
        match op {
            ExternOp::Read if call.ty != Ty::Void => self.place(call),
            _ => call,
        }
    }

    /// A register value or index type the eBPF target holds: a bit string,
    /// or a struct of bit strings.
    pub(super) fn register_type_fits(&self, ty: &Ty) -> bool {
        match ty {
            Ty::Bits { .. } => true,
            Ty::Struct(agg) => self
                .env
                .aggregates
                .get(agg.index())
                .is_some_and(|a| a.fields.iter().all(|f| matches!(f.ty, Ty::Bits { .. }))),
            _ => false,
        }
    }

    /// A composite register's `initial_value`: a constant struct (fields
    /// named or in order) or wide bit string of its value type, as each
    /// field's bits in order.
    pub(super) fn composite_initial(&mut self, e: &ast::Expr, value: &Ty) -> Option<Vec<BigUint>> {
        let widths: Vec<(String, u32)> = match value {
            Ty::Struct(agg) => self.env.aggregates.get(agg.index()).map_or(vec![], |a| {
                a.fields
                    .iter()
                    .map(|f| (f.name.clone(), f.ty.width().unwrap_or(0)))
                    .collect()
            }),
            ty => vec![(String::new(), ty.width().unwrap_or(0))],
        };
        let found = match (self.env.value(e), value) {
            (Some(Value::Struct(named)), Ty::Struct(_)) => widths
                .iter()
                .map(|(name, w)| {
                    let v = named.iter().find(|(n, _)| n == name).map(|(_, v)| v);
                    v.and_then(|v| field_bits(v, *w))
                })
                .collect(),
            (Some(Value::List(items)), Ty::Struct(_)) if items.len() == widths.len() => items
                .iter()
                .zip(&widths)
                .map(|(v, (_, w))| field_bits(v, *w))
                .collect(),
            (Some(v), Ty::Bits { .. }) => widths
                .first()
                .map(|(_, w)| field_bits(v, *w))
                .into_iter()
                .collect(),
            _ => None,
        };
        if found.is_none() {
            let names: Vec<String> = widths
                .iter()
                .map(|(n, w)| format!("{n}: bit<{w}>"))
                .collect();
            let ty = match value {
                Ty::Struct(_) => format!("a struct {{ {} }}", names.join(", ")),
                ty => format!("`bit<{}>`", ty.width().unwrap_or(0)),
            };
            self.diags.error(
                e.span,
                format!("a `Register`'s initial value must be a constant of its value type, {ty}"),
            );
        }
        found
    }
}

/// A constant field value `v` of `width` bits, as those bits.
fn field_bits(v: &Value, width: u32) -> Option<BigUint> {
    match v {
        Value::Int { value, ty } if of_width(ty, width) => {
            Some(super::types::to_bits(value, width))
        }
        _ => None,
    }
}
