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
    /// or a struct of bit strings, bools and such structs.
    pub(super) fn register_type_fits(&self, ty: &Ty) -> bool {
        match ty {
            Ty::Bits { .. } => true,
            Ty::Struct(_) => self.struct_fits(ty),
            _ => false,
        }
    }

    fn struct_fits(&self, ty: &Ty) -> bool {
        match ty {
            Ty::Bits { .. } | Ty::Bool => true,
            Ty::Struct(agg) => self
                .env
                .aggregates
                .get(agg.index())
                .is_some_and(|a| a.fields.iter().all(|f| self.struct_fits(&f.ty))),
            _ => false,
        }
    }

    /// A composite register's `initial_value`: a constant struct (fields
    /// named or in order, nested structs alike) or wide bit string of its
    /// value type, as its bit-string and bool fields' bits, depth first.
    pub(super) fn composite_initial(&mut self, e: &ast::Expr, value: &Ty) -> Option<Vec<BigUint>> {
        let mut leaves = vec![];
        if self.initial_leaves(self.env.value(e), value, &mut leaves) {
            return Some(leaves);
        }
        self.diags.error(
            e.span,
            "a `Register`'s initial value must be a constant of its value type \
             (a struct of constants, fields named or in order, or a `bit<W>` constant)",
        );
        None
    }

    /// Appends the bits of `v`, a constant of type `ty`, field by field;
    /// false when it is not one.
    fn initial_leaves(&self, v: Option<&Value>, ty: &Ty, out: &mut Vec<BigUint>) -> bool {
        match (ty, v) {
            (Ty::Struct(agg), Some(Value::Struct(named))) => {
                let fields = self.env.aggregates.get(agg.index()).map(|a| &a.fields);
                fields.is_some_and(|fields| {
                    fields.iter().all(|f| {
                        let field = named.iter().find(|(n, _)| *n == f.name).map(|(_, v)| v);
                        self.initial_leaves(field, &f.ty, out)
                    })
                })
            }
            (Ty::Struct(agg), Some(Value::List(items))) => {
                let fields = self.env.aggregates.get(agg.index()).map(|a| &a.fields);
                fields.is_some_and(|fields| {
                    fields.len() == items.len()
                        && fields
                            .iter()
                            .zip(items)
                            .all(|(f, v)| self.initial_leaves(Some(v), &f.ty, out))
                })
            }
            (Ty::Bool, Some(Value::Bool(b))) => {
                out.push(BigUint::from(u8::from(*b)));
                true
            }
            (Ty::Bits { width, .. }, Some(Value::Int { value, ty })) if of_width(ty, *width) => {
                out.push(super::types::to_bits(value, *width));
                true
            }
            _ => false,
        }
    }
}
