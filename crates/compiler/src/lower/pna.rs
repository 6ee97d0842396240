//! The calls and inputs PNA adds to the architecture layer: the input
//! metadata beyond the ingress port, `send_to_port`, `SelectByDirection`
//! and `is_host_port`/`is_net_port` (what they mean: `crate::arch::pna`).

use super::Lowerer;
use crate::arch::{Architecture, Input, Place};
use crate::ir::{BinOp, Builtin, Expr, ExprKind, Stmt, Ty};
use p4bpf_front::ast;
use p4bpf_front::source::Span;

impl<'a, 'u> Lowerer<'a, 'u> {
    /// The architecture's [`Input`]s, set after its intrinsic inputs.
    pub(super) fn arch_inputs(&mut self, arch: &Architecture, span: Span) {
        for (place, input) in arch.inputs() {
            // A flavour's block may lack the variable (no pre-control).
            if !self.shared.contains_key(place.var) {
                continue;
            }
            let Some(lhs) = self.arch_place(place, span) else {
                return;
            };
            let kind = match input {
                Input::Copy(from) => match self.arch_place(from, span) {
                    Some(from) => from.kind,
                    None => return,
                },
                Input::TimeNs => ExprKind::Builtin {
                    func: Builtin::TimeNs48,
                    args: vec![],
                },
                Input::Const(value) => ExprKind::Int((*value).into()),
            };
            let rhs = Expr {
                kind,
                ty: lhs.ty.clone(),
            };
            self.prog
                .intrinsics
                .defaults
                .push(Stmt::Assign { lhs, rhs });
        }
    }

    /// `send_to_port(p)`: `places` = [verdict, port]; the verdict is
    /// `host.1` when `p` is `host.0`, else `code`.
    pub(super) fn send_to_port(
        &mut self,
        args: &'a [ast::Argument],
        e: &ast::Expr,
        places: [Place; 2],
        code: u32,
        host: (u32, u32),
    ) -> Option<Expr> {
        let [port] = args else {
            self.diags.error(e.span, "`send_to_port` takes a port");
            return None;
        };
        let port = self.expr(&port.value)?;
        let [verdict, port_place] = places.map(|p| self.arch_place(&p, e.span));
        let (verdict, port_place) = (verdict?, port_place?);
        let is_host = equals(port.clone(), host.0);
        let code = Expr {
            kind: ExprKind::Mux {
                cond: Box::new(is_host),
                then: Box::new(int(host.1, &verdict.ty)),
                other: Box::new(int(code, &verdict.ty)),
            },
            ty: verdict.ty.clone(),
        };
        self.pending.push(Stmt::Assign {
            lhs: port_place.clone(),
            rhs: Expr {
                kind: ExprKind::Cast(Box::new(port)),
                ty: port_place.ty.clone(),
            },
        });
        self.pending.push(Stmt::Assign {
            lhs: verdict,
            rhs: code,
        });
        Some(void())
    }

    /// `f(c, a, b)`: `a` when `c` holds (or equals `first`), else `b`.
    pub(super) fn select(
        &mut self,
        name: &str,
        args: &'a [ast::Argument],
        e: &ast::Expr,
        first: u32,
    ) -> Option<Expr> {
        let [c, a, b] = args else {
            self.diags
                .error(e.span, format!("`{name}` takes a direction and two values"));
            return None;
        };
        let c = self.expr(&c.value)?;
        let (a, b) = (self.expr(&a.value)?, self.expr(&b.value)?);
        let cond = match c.ty {
            Ty::Bool => c,
            _ => equals(c, first),
        };
        Some(Expr {
            ty: a.ty.clone(),
            kind: ExprKind::Mux {
                cond: Box::new(cond),
                then: Box::new(a),
                other: Box::new(b),
            },
        })
    }

    /// `f(p)`: whether `p` is (`equal`) or is not `port`.
    pub(super) fn port_is(
        &mut self,
        name: &str,
        args: &'a [ast::Argument],
        e: &ast::Expr,
        port: u32,
        equal: bool,
    ) -> Option<Expr> {
        let [p] = args else {
            self.diags.error(e.span, format!("`{name}` takes a port"));
            return None;
        };
        let p = self.expr(&p.value)?;
        let op = if equal { BinOp::Eq } else { BinOp::Ne };
        Some(Expr {
            kind: ExprKind::Binary {
                op,
                rhs: Box::new(int(port, &p.ty)),
                lhs: Box::new(p),
            },
            ty: Ty::Bool,
        })
    }
}

fn int(value: u32, ty: &Ty) -> Expr {
    Expr {
        kind: ExprKind::Int(value.into()),
        ty: ty.clone(),
    }
}

fn equals(x: Expr, value: u32) -> Expr {
    Expr {
        kind: ExprKind::Binary {
            op: BinOp::Eq,
            rhs: Box::new(int(value, &x.ty)),
            lhs: Box::new(x),
        },
        ty: Ty::Bool,
    }
}

/// The value of a call done for its effect.
fn void() -> Expr {
    Expr {
        kind: ExprKind::Bool(true),
        ty: Ty::Void,
    }
}
