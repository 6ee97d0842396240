//! Registers of structs or of bit strings wider than 64 bits: C passes
//! neither as a number, so their index and value are places the register's
//! functions take by address, and a read fills a variable.

use super::Lowerer;
use crate::ir::{composite_register_type, Expr, ExprKind, ExternOp, Ty};

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
}
