//! Recursion, which P4 does not allow: a top-level function that calls
//! itself, directly or through other functions. Calls are followed by the
//! callee's spelling, and only to functions whose name is not overloaded,
//! so a call to another overload is never mistaken for recursion.

use super::walk::for_each_expr;
use super::Reporter;
use crate::ast::{Block, DeclKind, ExprKind, Ident, Program, Stmt, StmtKind};
use std::collections::HashMap;

pub(super) fn check(program: &Program, r: &mut Reporter) {
    let mut functions: HashMap<&str, Option<(&Ident, &Block)>> = HashMap::new();
    for d in &program.decls {
        if let DeclKind::Function { sig, body, .. } = &d.kind {
            functions
                .entry(sig.name.name.as_str())
                .and_modify(|f| *f = None)
                .or_insert(Some((&sig.name, body)));
        }
    }
    let callees: HashMap<&str, Vec<&str>> = functions
        .iter()
        .filter_map(|(name, f)| f.map(|(_, body)| (*name, called_names(&body.stmts))))
        .collect();
    for (name, f) in &functions {
        let Some((ident, _)) = f else { continue };
        if reaches(name, name, &callees) {
            r.error(
                ident.span,
                format!("function `{name}` is recursive, which P4 does not allow"),
            );
        }
    }
}

/// Whether `from` calls `target`, following the call graph.
fn reaches(from: &str, target: &str, callees: &HashMap<&str, Vec<&str>>) -> bool {
    let mut visited: Vec<&str> = Vec::new();
    let mut stack: Vec<&str> = callees.get(from).cloned().unwrap_or_default();
    while let Some(f) = stack.pop() {
        if f == target {
            return true;
        }
        if !visited.contains(&f) {
            visited.push(f);
            stack.extend(callees.get(f).into_iter().flatten());
        }
    }
    false
}

/// Plain names called anywhere in a list of statements.
fn called_names(stmts: &[Stmt]) -> Vec<&str> {
    let mut out = Vec::new();
    stmts.iter().for_each(|s| stmt_calls(s, &mut out));
    out
}

fn stmt_calls<'a>(s: &'a Stmt, out: &mut Vec<&'a str>) {
    let mut exprs = Vec::new();
    match &s.kind {
        StmtKind::Assign { lhs, rhs } | StmtKind::CompoundAssign { lhs, rhs, .. } => {
            exprs.extend([lhs, rhs])
        }
        StmtKind::Call(e) => exprs.push(e),
        StmtKind::If { cond, then, other } => {
            exprs.push(cond);
            stmt_calls(then, out);
            other.iter().for_each(|o| stmt_calls(o, out));
        }
        StmtKind::Block(b) => b.stmts.iter().for_each(|s| stmt_calls(s, out)),
        StmtKind::Switch { expr, cases } => {
            exprs.push(expr);
            cases
                .iter()
                .flat_map(|c| c.body.iter())
                .flat_map(|b| &b.stmts)
                .for_each(|s| stmt_calls(s, out));
        }
        StmtKind::For {
            init,
            cond,
            update,
            body,
        } => {
            init.iter().chain(update).for_each(|s| stmt_calls(s, out));
            exprs.extend(cond);
            stmt_calls(body, out);
        }
        StmtKind::ForIn { range, body, .. } => {
            exprs.push(range);
            stmt_calls(body, out);
        }
        StmtKind::Return(Some(e)) => exprs.push(e),
        StmtKind::Decl(d) => match &d.kind {
            DeclKind::Variable { init: Some(e), .. } | DeclKind::Constant { value: e, .. } => {
                exprs.push(e)
            }
            _ => {}
        },
        _ => {}
    }
    for e in exprs {
        for_each_expr(e, &mut |e| {
            if let ExprKind::Call { callee, .. } = &e.kind {
                if let ExprKind::Path(p) = &callee.kind {
                    out.push(&p.name.name);
                }
            }
        });
    }
}
