//! What the pipeline can run, for the lowering passes that look for an
//! architecture output being set (multicast, clone, resubmit): its
//! controls, and the actions they and their tables call.

use crate::ir::{ActionId, AggId, Expr, ExprKind, Program, Stmt};
use crate::midend::visit::{walk_stmts, CalledActions, Descend, Visitor};

/// The bodies of the pipeline's controls and of the actions they, their
/// tables and those actions can run.
pub(super) fn runnable_bodies(prog: &Program) -> Vec<&[Stmt]> {
    let mut bodies: Vec<&[Stmt]> = prog.controls.iter().map(|c| c.body.as_slice()).collect();
    let mut seen: Vec<ActionId> = vec![];
    let mut calls = CalledActions(prog.tables.iter().flat_map(|t| t.actions.clone()).collect());
    for body in &bodies {
        walk_stmts(&mut calls, body);
    }
    while let Some(action) = calls.0.pop() {
        if seen.contains(&action) {
            continue;
        }
        seen.push(action);
        if let Some(a) = prog.action(action) {
            walk_stmts(&mut calls, &a.body);
            bodies.push(&a.body);
        }
    }
    bodies
}

/// Finds an assignment of something but zero to a watched field of `agg`.
pub(super) struct Sets<'w> {
    pub agg: AggId,
    pub watched: Vec<(usize, &'w str)>,
    pub found: Option<&'w str>,
}

impl Visitor for Sets<'_> {
    fn stmt(&mut self, s: &Stmt) -> Descend {
        if let Stmt::Assign { lhs, rhs } = s {
            if let ExprKind::Field { agg, field, .. } = lhs.kind {
                let watched = self.watched.iter().find(|(i, _)| *i == field);
                if let (true, Some((_, what)), false) = (agg == self.agg, watched, is_zero(rhs)) {
                    self.found = Some(what);
                }
            }
        }
        Descend::Yes
    }
}

fn is_zero(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Bool(b) => !b,
        ExprKind::Int(i) => *i == 0u32.into(),
        _ => false,
    }
}
