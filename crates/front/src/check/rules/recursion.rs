//! Recursion, which P4 does not allow: a top-level function that calls
//! itself, directly or through other functions. Calls are followed by the
//! callee's spelling, and only to functions whose name is not overloaded,
//! so a call to another overload is never mistaken for recursion.

use super::walk::for_each_expr;
use super::Reporter;
use crate::ast::{Block, DeclKind, ExprKind, Ident, Program, Stmt, StmtKind};
use std::collections::{HashMap, HashSet};

pub(super) fn check(program: &Program, r: &mut Reporter) {
    let mut order: Vec<&str> = Vec::new();
    let mut functions: HashMap<&str, Option<(&Ident, &Block)>> = HashMap::new();
    for d in &program.decls {
        if let DeclKind::Function { sig, body, .. } = &d.kind {
            let name = sig.name.name.as_str();
            match functions.get_mut(name) {
                Some(overloaded) => *overloaded = None,
                None => {
                    order.push(name);
                    functions.insert(name, Some((&sig.name, body)));
                }
            }
        }
    }
    let graph: HashMap<&str, (&Ident, Vec<&str>)> = functions
        .iter()
        .filter_map(|(name, f)| {
            f.map(|(ident, body)| {
                let mut callees = called_names(&body.stmts);
                callees.sort_unstable();
                callees.dedup();
                (*name, (ident, callees))
            })
        })
        .collect();
    let mut color: HashMap<&str, Color> = HashMap::new();
    for name in order {
        if graph.contains_key(name) && !color.contains_key(name) {
            visit(name, &graph, &mut color, r);
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Color {
    /// On the current call path.
    Open,
    Done,
}

/// Depth-first walk of the call graph from `root` (with an explicit stack,
/// so long call chains cannot overflow); a call to a function on the
/// current path closes a cycle, and that function is reported (once per
/// walk).
fn visit<'p>(
    root: &'p str,
    graph: &HashMap<&'p str, (&'p Ident, Vec<&'p str>)>,
    color: &mut HashMap<&'p str, Color>,
    r: &mut Reporter,
) {
    let mut reported: HashSet<&str> = HashSet::new();
    let mut stack: Vec<(&str, usize)> = vec![(root, 0)];
    color.insert(root, Color::Open);
    while let Some((name, next)) = stack.pop() {
        let callees = graph.get(name).map_or(&[][..], |(_, c)| c.as_slice());
        let Some(&callee) = callees.get(next) else {
            color.insert(name, Color::Done);
            continue;
        };
        stack.push((name, next + 1));
        let Some((ident, _)) = graph.get(callee) else {
            continue;
        };
        match color.get(callee) {
            Some(Color::Open) => {
                if reported.insert(callee) {
                    r.error(
                        ident.span,
                        format!("function `{callee}` is recursive, which P4 does not allow"),
                    );
                }
            }
            Some(Color::Done) => {}
            None => {
                color.insert(callee, Color::Open);
                stack.push((callee, 0));
            }
        }
    }
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
