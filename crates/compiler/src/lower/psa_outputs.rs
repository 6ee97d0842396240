//! PSA's ingress outputs p4bpf does not act on yet: a program that sets
//! `resubmit` in its
//! `psa_ingress_output_metadata_t` would see its packet unicast as if it
//! had not, so it is refused instead. Only code the pipeline can run
//! counts: its controls, and the actions they and their tables call.

use super::Lowerer;
use crate::ir::{ActionId, AggId, Expr, ExprKind, Program, Stmt, Ty};
use crate::midend::visit::{walk_stmts, Descend, Visitor};
use p4bpf_front::source::Span;

/// The outputs refused, and why.
const NOT_YET: [(&str, &str); 1] = [("resubmit", "resubmission (`resubmit`)")];

impl Lowerer<'_, '_> {
    /// Refuses a program that sets one of the [`NOT_YET`] outputs.
    pub(super) fn psa_outputs(&mut self, span: Span) {
        let Some(Ty::Struct(agg)) = self
            .shared
            .get("ostd")
            .and_then(|v| self.prog.var(*v))
            .map(|v| v.ty.clone())
        else {
            return;
        };
        let Some(fields) = self.env.aggregates.get(agg.index()).map(|a| &a.fields) else {
            return;
        };
        let watched: Vec<(usize, &str)> = NOT_YET
            .iter()
            .filter_map(|(name, what)| {
                fields
                    .iter()
                    .position(|f| f.name == *name)
                    .map(|i| (i, *what))
            })
            .collect();
        let mut finder = Sets {
            agg,
            watched,
            found: None,
        };
        for body in runnable_bodies(&self.prog) {
            walk_stmts(&mut finder, body);
        }
        if let Some(what) = finder.found {
            self.diags.error(
                span,
                format!("PSA {what} is not supported yet: p4bpf sends a packet to one port (`send_to_port`) or drops it"),
            );
        }
    }
}

/// The bodies of the pipeline's controls and of the actions they, their
/// tables and those actions can run.
pub(super) fn runnable_bodies(prog: &Program) -> Vec<&[Stmt]> {
    let mut bodies: Vec<&[Stmt]> = prog.controls.iter().map(|c| c.body.as_slice()).collect();
    let mut seen: Vec<ActionId> = vec![];
    let mut calls = Calls(prog.tables.iter().flat_map(|t| t.actions.clone()).collect());
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

/// Actions called directly (`CallAction`).
struct Calls(Vec<ActionId>);

impl Visitor for Calls {
    fn stmt(&mut self, s: &Stmt) -> Descend {
        if let Stmt::CallAction { action, .. } = s {
            self.0.push(*action);
        }
        Descend::Yes
    }
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
