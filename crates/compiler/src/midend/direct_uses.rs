//! Which direct counters and meters an action uses: its own extern calls
//! and those of the actions it calls. A table updates the cells of what
//! the entry's action uses when the entry is hit (`emit::direct`), and
//! the lowering refuses an action using a direct extern its table lacks.

use super::visit::{expr_parts, stmt_bodies, stmt_exprs};
use crate::ir::{ActionId, Expr, ExprKind, ExternId, Program, Stmt};

/// Each direct-extern call in `action` (or an action it calls): the
/// instance and the call's arguments (a meter's colour, then a length
/// other than the packet's), in order.
pub fn direct_uses(prog: &Program, action: ActionId) -> Vec<(ExternId, &[Expr])> {
    let mut found = vec![];
    collect(prog, action, &mut vec![], &mut found);
    found
}

/// Walks `action`'s body, and once each the actions it calls.
fn collect<'p>(
    prog: &'p Program,
    action: ActionId,
    seen: &mut Vec<ActionId>,
    found: &mut Vec<(ExternId, &'p [Expr])>,
) {
    if seen.contains(&action) {
        return;
    }
    seen.push(action);
    let Some(a) = prog.action(action) else {
        return;
    };
    let mut calls = vec![];
    in_stmts(prog, &a.body, &mut calls, found);
    for called in calls {
        collect(prog, called, seen, found);
    }
}

fn in_stmts<'p>(
    prog: &'p Program,
    body: &'p [Stmt],
    calls: &mut Vec<ActionId>,
    found: &mut Vec<(ExternId, &'p [Expr])>,
) {
    for s in body {
        if let Stmt::CallAction { action, .. } = s {
            calls.push(*action);
        }
        for e in stmt_exprs(s) {
            in_expr(prog, e, found);
        }
        for inner in stmt_bodies(s) {
            in_stmts(prog, inner, calls, found);
        }
    }
}

fn in_expr<'p>(prog: &'p Program, e: &'p Expr, found: &mut Vec<(ExternId, &'p [Expr])>) {
    if let ExprKind::ExternMethod { instance, args, .. } = &e.kind {
        let direct = prog
            .extern_instance(*instance)
            .is_some_and(|x| x.kind.is_direct());
        if direct {
            found.push((*instance, args.as_slice()));
        }
    }
    for part in expr_parts(e) {
        in_expr(prog, part, found);
    }
}
