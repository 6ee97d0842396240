//! Controls applied inside others, and `exit` through them. An inlined
//! body is a C block: `return` jumps to its end, and `exit` to a label
//! after it that sets `st->p4bpf_exit` (as an exiting action does) and
//! falls through to the copy-out of the parameters; the `ExitOnward`
//! after that copy-out then goes on exiting the controls around. P4_16
//! 12.5: the copy-out of `inout` and `out` parameters still happens when
//! `exit` ends a control (p4c's issue2225-bmv2 shows it for an action).
//! The flag is cleared after each top-level control, so an `exit` of
//! ingress does not end egress at its first action that could exit.

use super::c::{line, CStmt};
use super::stmt::Ctx;
use super::Emitter;
use crate::ir::Stmt;

impl Emitter<'_> {
    /// The body of control `name` applied inline, in a block of its own.
    pub(super) fn inline_body(&self, name: &str, body: &[Stmt], cx: &Ctx) -> Vec<CStmt> {
        let id = self.next_label();
        let stem = name.replace('.', "_");
        let end = format!("{stem}_end_{id}");
        let exited = format!("{stem}_exit_{id}");
        let inner = Ctx {
            in_action: cx.in_action,
            end: end.clone(),
            exit: exited.clone(),
        };
        let block = vec![CStmt::Block(self.stmts(body, &inner))];
        let mut out = vec![CStmt::Comment(format!("apply {name}"))];
        let exits = jumps_to(&block, &exited);
        out.extend(block);
        if exits {
            out.push(CStmt::Goto(end.clone()));
            out.push(CStmt::Label(exited));
            out.push(line("st->p4bpf_exit = 1"));
            self.exit_pending.set(true);
        }
        out.push(CStmt::Label(end));
        out
    }

    /// After the copy-out of an inlined body that can exit: the exit goes
    /// on through the controls around.
    pub(super) fn exit_onward(&self, cx: &Ctx) -> Vec<CStmt> {
        if !self.exit_pending.replace(false) {
            return vec![];
        }
        let leave = if cx.in_action && cx.exit.is_empty() {
            CStmt::Return(String::new())
        } else {
            CStmt::Goto(cx.exit.clone())
        };
        vec![CStmt::If {
            cond: "st->p4bpf_exit".into(),
            then: vec![leave],
            other: vec![],
        }]
    }

    /// Clears the exit flag after a top-level control (deparsers cannot
    /// exit), in programs where something sets it: an action's `exit`
    /// anywhere, even in a table function of its own, sets it.
    pub(super) fn exit_flag_reset(&self) -> Vec<CStmt> {
        let exits =
            |body: &[Stmt]| crate::midend::visit::any_stmt(body, |s| matches!(s, Stmt::Exit));
        let sets_flag = self.prog.actions.iter().any(|a| exits(&a.body))
            || self.prog.controls.iter().any(|c| exits(&c.body));
        if sets_flag {
            vec![line("st->p4bpf_exit = 0")]
        } else {
            vec![]
        }
    }
}

/// Whether `stmts` jump to `label` anywhere inside.
fn jumps_to(stmts: &[CStmt], label: &str) -> bool {
    stmts.iter().any(|s| match s {
        CStmt::Goto(to) => to == label,
        CStmt::Block(inner) | CStmt::For { body: inner, .. } => jumps_to(inner, label),
        CStmt::If { then, other, .. } => jumps_to(then, label) || jumps_to(other, label),
        CStmt::Switch { cases, default, .. } => {
            cases.iter().any(|(_, body)| jumps_to(body, label)) || jumps_to(default, label)
        }
        CStmt::FromP4 { body, .. } => jumps_to(body, label),
        _ => false,
    })
}
