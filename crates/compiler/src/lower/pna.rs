//! The calls and inputs PNA adds to the architecture layer: the input
//! metadata beyond the ingress port, `send_to_port`, `SelectByDirection`
//! and `is_host_port`/`is_net_port`, and recirculation (what they mean:
//! `crate::arch::pna`).

use super::runnable::runnable_bodies;
use super::Lowerer;
use crate::arch::pna::RECIRCULATE;
use crate::arch::{Architecture, Input, Place};
use crate::ir::{self, BinOp, Builtin, Expr, ExprKind, Stmt, Ty, VarId};
use crate::midend::visit::{walk_stmts, Descend, Visitor};
use p4bpf_front::ast;
use p4bpf_front::source::Span;

/// Where the parser and the main control see the pass number and whether
/// the packet was recirculated.
const PASSES: [Place; 2] = [
    Place::field("parser_istd", "pass"),
    Place::field("istd", "pass"),
];
const LOOPEDBACK: [Place; 2] = [
    Place::field("parser_istd", "loopedback"),
    Place::field("istd", "loopedback"),
];

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

    /// Notes recirculation when runnable code calls `recirculate()`: the
    /// verdict says so after the main deparser. Each pass sees its number.
    pub(super) fn pna_recirculate(&mut self, span: Span) {
        let Some(&verdict_var) = self.shared.get("pna_verdict") else {
            return;
        };
        let mut finder = Recirculates(verdict_var, false);
        for body in runnable_bodies(&self.prog) {
            walk_stmts(&mut finder, body);
        }
        let (true, Some(verdict)) = (finder.1, self.arch_place(&Place::var("pna_verdict"), span))
        else {
            return;
        };
        let passes: Vec<Expr> = PASSES
            .iter()
            .filter_map(|p| self.arch_place(p, span))
            .collect();
        for pass in passes {
            let rhs = Expr {
                kind: ExprKind::Builtin {
                    func: Builtin::PassNumber,
                    args: vec![],
                },
                ty: pass.ty.clone(),
            };
            self.prog
                .intrinsics
                .defaults
                .push(Stmt::Assign { lhs: pass, rhs });
        }
        let loopedback = LOOPEDBACK
            .iter()
            .filter_map(|p| self.arch_place(p, span))
            .collect();
        self.prog.intrinsics.recirculate = Some(ir::Resubmit {
            flag: equals(verdict, RECIRCULATE),
            kept: None,
            packet_paths: loopedback,
            path: 1,
            field_lists: None,
        });
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
    Expr::int(value, ty.clone())
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

/// Finds `recirculate()`'s verdict among the assignments to variable `.0`.
struct Recirculates(VarId, bool);

impl Visitor for Recirculates {
    fn stmt(&mut self, s: &Stmt) -> Descend {
        if let Stmt::Assign { lhs, rhs } = s {
            let to_verdict = matches!(lhs.kind, ExprKind::Var(v) if v == self.0);
            if to_verdict && matches!(&rhs.kind, ExprKind::Int(i) if *i == RECIRCULATE.into()) {
                self.1 = true;
            }
        }
        Descend::Yes
    }
}

/// The value of a call done for its effect.
fn void() -> Expr {
    Expr {
        kind: ExprKind::Bool(true),
        ty: Ty::Void,
    }
}
