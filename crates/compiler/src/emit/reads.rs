//! Def-use, the read side: which header fields the program ever reads
//! (parser, controls, actions, table keys and action arguments). A parser
//! whose state lives in the per-CPU scratch extracts only those, since
//! clang cannot drop stores to map memory it does not see read. Anything
//! it cannot follow field by field (a whole header or struct used as a
//! value, a stack shift, a deparser that rebuilds) makes every field read.

use crate::ir::{AggId, Expr, ExprKind, Program, Stmt, Transition, Ty};
use std::collections::BTreeSet;

#[derive(Default)]
pub struct Reads {
    /// Header fields read somewhere, by (header type, field index).
    fields: BTreeSet<(AggId, usize)>,
    /// Something reads headers whole: every field counts as read.
    everything: bool,
}

impl Reads {
    pub fn contains(&self, agg: AggId, field: usize) -> bool {
        self.everything || self.fields.contains(&(agg, field))
    }

    /// Reads of `prog`; `rebuilds`: the deparser writes every emitted field.
    pub fn of(prog: &Program, rebuilds: bool) -> Reads {
        let mut r = Reads {
            everything: rebuilds,
            ..Reads::default()
        };
        for state in &prog.parser.states {
            r.stmts(&state.stmts);
            if let Transition::Select { keys, .. } = &state.transition {
                keys.iter().for_each(|k| r.expr(k));
            }
        }
        for c in &prog.controls {
            r.stmts(&c.body);
        }
        for a in &prog.actions {
            r.stmts(&a.body);
        }
        for t in &prog.tables {
            t.keys.iter().for_each(|k| r.expr(&k.expr));
            t.default_action.args.iter().for_each(|a| r.expr(a));
            for e in &t.const_entries {
                e.action.args.iter().for_each(|a| r.expr(a));
            }
        }
        r
    }

    /// A place named by a path (`hdr.ipv4`, `hdr.s[i]`): only its indexes
    /// are read.
    fn path(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Var(_) => {}
            ExprKind::Field { base, .. } => self.path(base),
            ExprKind::Index { base, index } => {
                self.path(base);
                self.expr(index);
            }
            ExprKind::StackNext(b) | ExprKind::StackLast(b) => self.path(b),
            _ => self.expr(e),
        }
    }

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Field { base, agg, field } if matches!(base.ty, Ty::Header(_)) => {
                self.fields.insert((*agg, *field));
                self.path(base);
            }
            ExprKind::IsValid(b) | ExprKind::StackIndex { stack: b, .. } => self.path(b),
            // An aggregate used as a value is read whole.
            _ if !matches!(e.ty, Ty::Bits { .. } | Ty::Bool | Ty::Error | Ty::Void) => {
                self.everything = true;
            }
            ExprKind::Field { base, .. } => self.path(base),
            ExprKind::Index { base, index } => {
                self.path(base);
                self.expr(index);
            }
            ExprKind::StackNext(b) | ExprKind::StackLast(b) | ExprKind::Cast(b) => self.expr(b),
            ExprKind::Unary { operand, .. } => self.expr(operand),
            ExprKind::Binary { lhs, rhs, .. } => {
                self.expr(lhs);
                self.expr(rhs);
            }
            ExprKind::Slice { base, .. } => self.expr(base),
            ExprKind::Concat { hi, lo } => {
                self.expr(hi);
                self.expr(lo);
            }
            ExprKind::Mux { cond, then, other } => {
                self.expr(cond);
                self.expr(then);
                self.expr(other);
            }
            ExprKind::Builtin { args, .. }
            | ExprKind::ExternCall { args, .. }
            | ExprKind::Wide { args, .. } => {
                args.iter().for_each(|a| self.expr(a));
            }
            ExprKind::Bool(_)
            | ExprKind::Int(_)
            | ExprKind::Var(_)
            | ExprKind::ErrorCode(_)
            | ExprKind::Lookahead { .. }
            | ExprKind::PacketLength => {}
        }
    }

    fn stmts(&mut self, body: &[Stmt]) {
        body.iter().for_each(|s| self.stmt(s));
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Assign { lhs, rhs } => {
                // A slice keeps the field's other bits: a read too.
                if matches!(lhs.kind, ExprKind::Slice { .. }) {
                    self.expr(lhs);
                } else {
                    self.path(lhs);
                }
                self.expr(rhs);
            }
            Stmt::If { cond, then, other } => {
                self.expr(cond);
                self.stmts(then);
                self.stmts(other);
            }
            Stmt::SwitchAction { cases, default, .. } => {
                cases.iter().for_each(|(_, b)| self.stmts(b));
                default.iter().for_each(|b| self.stmts(b));
            }
            Stmt::SwitchValue {
                value,
                cases,
                default,
            } => {
                self.expr(value);
                cases.iter().for_each(|(_, b)| self.stmts(b));
                default.iter().for_each(|b| self.stmts(b));
            }
            // `out`/`inout` arguments too: the action may read them.
            Stmt::CallAction { args, .. } => args.iter().for_each(|a| self.expr(a)),
            Stmt::SetValid { header, .. } | Stmt::Emit { header } => self.path(header),
            Stmt::Extract {
                header,
                varbit_bits,
            } => {
                self.path(header);
                varbit_bits.iter().for_each(|b| self.expr(b));
            }
            Stmt::StackShift { .. } => self.everything = true,
            Stmt::Count { index, amount, .. } => {
                self.expr(index);
                amount.iter().for_each(|a| self.expr(a));
            }
            Stmt::Verify { cond, .. } => self.expr(cond),
            Stmt::Eval(e) => self.expr(e),
            Stmt::Inline { body, .. } => self.stmts(body),
            Stmt::Loop {
                cond, step, body, ..
            } => {
                self.expr(cond);
                self.stmts(body);
                self.stmts(step);
            }
            Stmt::Break { .. } | Stmt::Continue { .. } => {}
            Stmt::Apply { .. } | Stmt::Return | Stmt::Exit | Stmt::Advance { .. } => {}
        }
    }
}
