//! PNA's `ipsec_accelerator`, which p4bpf's targets do not have: no
//! packet ever comes back from it, so `from_ipsec` is false (and leaves
//! its status unwritten, which P4 allows of an `out` argument); a packet
//! the program sends to it (`enable()` and not `disable()` after) cannot
//! be encrypted, so it is dropped after the deparser rather than sent in
//! the clear. The compiler warns of both where the instance is declared.

use super::{Binding, Lowerer};
use crate::arch::pna::{DROP, VERDICT};
use crate::ir::{Expr, ExprKind, Stmt, Ty, VarId, VarStorage};
use p4bpf_front::ast;
use p4bpf_front::source::Span;

/// The variable `enable()` sets, when the program has an accelerator.
const ENABLED: &str = "ipsec.enabled";

impl<'a, 'u> Lowerer<'a, 'u> {
    /// `ipsec_accelerator() name;`
    pub(super) fn ipsec_instance(&mut self, name: &ast::Ident, decl: &ast::Decl) {
        let known = self.prog.vars.iter().position(|v| v.p4_name == ENABLED);
        let enabled = match known {
            Some(i) => VarId(i as u32),
            None => self.new_var(ENABLED.into(), Ty::Bool, VarStorage::State),
        };
        self.bind(&name.name, Binding::Ipsec(enabled));
        self.diags.warning(
            decl.span,
            "p4bpf has no IPsec accelerator: `from_ipsec` is always false, and a packet sent to the accelerator (`enable()`) is dropped, not sent unencrypted",
        );
    }

    /// `enable()`, `disable()`, `set_sa_index(i)`, `set_ip_header_offset(o)`
    /// and `from_ipsec(status)`.
    pub(super) fn ipsec_method(
        &mut self,
        enabled: VarId,
        method: &str,
        args: &'a [ast::Argument],
        call: &ast::Expr,
    ) -> Option<Expr> {
        let flag = Expr {
            kind: ExprKind::Var(enabled),
            ty: Ty::Bool,
        };
        match (method, args) {
            ("enable" | "disable", []) => {
                self.pending.push(Stmt::Assign {
                    lhs: flag,
                    rhs: Expr {
                        kind: ExprKind::Bool(method == "enable"),
                        ty: Ty::Bool,
                    },
                });
                Some(void())
            }
            // What the accelerator would use: evaluated, for their effects.
            ("set_sa_index" | "set_ip_header_offset", [value]) => {
                let value = self.expr(&value.value)?;
                self.pending.push(Stmt::Eval(value));
                Some(void())
            }
            ("from_ipsec", [_status]) => Some(Expr {
                kind: ExprKind::Bool(false),
                ty: Ty::Bool,
            }),
            _ => {
                self.diags.error(
                    call.span,
                    format!(
                        "`ipsec_accelerator` has no method `{method}` taking {} arguments",
                        args.len()
                    ),
                );
                None
            }
        }
    }

    /// At the end of the deparser: a packet still sent to the accelerator
    /// is dropped.
    pub(super) fn ipsec_fails_closed(&mut self) {
        let Some(enabled) = self.prog.vars.iter().position(|v| v.p4_name == ENABLED) else {
            return;
        };
        let Some(verdict) = self.arch_place(&VERDICT, Span::default()) else {
            return;
        };
        let Some(deparser) = self.prog.pipeline.iter().find_map(|s| match s {
            crate::ir::Step::Deparse(i) => Some(*i),
            _ => None,
        }) else {
            return;
        };
        let drop = Stmt::If {
            cond: Expr {
                kind: ExprKind::Var(VarId(enabled as u32)),
                ty: Ty::Bool,
            },
            then: vec![Stmt::Assign {
                rhs: Expr::int(DROP, verdict.ty.clone()),
                lhs: verdict,
            }],
            other: vec![],
        };
        if let Some(control) = self.prog.controls.get_mut(deparser) {
            control.body.push(drop);
        }
    }
}

fn void() -> Expr {
    Expr {
        kind: ExprKind::Bool(true),
        ty: Ty::Void,
    }
}
