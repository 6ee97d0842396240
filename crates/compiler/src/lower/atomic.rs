//! `@atomic` blocks (P4_16 18.3.2, PSA 7.12.1): a block becomes
//! `Stmt::Atomic`, which `emit/atomic.rs` runs under a lock shared by
//! every block using the same registers, on every CPU.
//!
//! While a `bpf_spin_lock` is held the kernel allows no helper call, so a
//! block under one looks up every register cell it touches before the
//! lock: each index must be known when the lock is taken (statements
//! before the first register access run before it), and nothing inside
//! may be a helper call (hashes and checksums are plain C). A block that
//! cannot (a table, another extern, a helper-backed builtin, an index the
//! block itself changes, a loop...) `calls_helpers`: its domain takes a
//! lock word of its own, which allows them. Only a block that may leave
//! by a packet error (extract, emit, verify, lookahead: a jump to
//! `reject` no release follows) runs as written, with a warning at the
//! statement that prevents the lock saying what is then guaranteed.

use super::Lowerer;
use crate::ir::{Builtin, Expr, ExprKind, ExternKind, ExternOp, Program, Stmt, VarId};
use crate::midend::visit;
use p4bpf_front::ast;
use p4bpf_front::source::Span;
use std::collections::HashMap;

impl<'a> Lowerer<'a, '_> {
    /// Lowers a block statement; an `@atomic` one is locked if it can be.
    pub(super) fn block_stmt(&mut self, b: &'a ast::Block, out: &mut Vec<Stmt>) {
        if !b.annotations.iter().any(|a| a.name.name == "atomic") {
            out.extend(self.block(&b.stmts));
            return;
        }
        self.scopes.push(HashMap::new());
        let mut pieces: Vec<(Span, Vec<Stmt>)> = vec![];
        for s in &b.stmts {
            let mut piece = vec![];
            self.stmt(s, &mut piece);
            pieces.push((s.span, piece));
        }
        self.scopes.pop();
        // What comes before the first shared state is work on this packet's
        // own: it runs before the lock, so an index it computes is known
        // when the cells are looked up.
        let shared = pieces.iter().position(|(_, piece)| {
            touches_register(piece) || needs_helpers(&self.prog, piece, &[], false)
        });
        let rest = pieces.split_off(shared.unwrap_or(pieces.len()));
        out.extend(pieces.into_iter().flat_map(|(_, piece)| piece));
        if !rest.is_empty() {
            self.lock(rest, out);
        }
    }

    /// `Stmt::Atomic` of the pieces (statement span, lowered statements),
    /// or the pieces as they are, with a warning, when a lock cannot work.
    fn lock(&mut self, pieces: Vec<(Span, Vec<Stmt>)>, out: &mut Vec<Stmt>) {
        let mut body: Vec<Stmt> = pieces.iter().flat_map(|(_, p)| p.clone()).collect();
        let unlockable = pieces
            .iter()
            .find_map(|(span, piece)| leaves_unreleased(piece).map(|why| (*span, why)));
        if let Some((span, why)) = unlockable {
            self.diags.warning(
                span,
                format!("`@atomic`: p4bpf runs this block without a lock, because {why}: no other packet runs on the same CPU in between, but a packet on another CPU may read or write the same register cells meanwhile (a read-modify-write can lose its update)"),
            );
            out.append(&mut body);
            return;
        }
        // An index is known at the start when nothing before it (in its
        // statement, or in the block's earlier ones) assigns what it reads.
        let mut assigned = vec![];
        let calls_helpers = pieces.iter().any(|(_, piece)| {
            assigned.extend(assigned_places(&self.prog, piece));
            needs_helpers(&self.prog, piece, &assigned, false)
        });
        // One lock for the whole block: inner `@atomic` blocks are inside it.
        visit::rewrite_stmts(&mut body, &mut |list| {
            *list = std::mem::take(list)
                .into_iter()
                .flat_map(|s| match s {
                    Stmt::Atomic { body, .. } => body,
                    s => vec![s],
                })
                .collect();
        });
        out.push(Stmt::Atomic {
            body,
            calls_helpers,
        });
    }
}

/// Whether `body` calls an extern method (a register's included), or
/// holds a locked block.
fn touches_register(body: &[Stmt]) -> bool {
    visit::any_stmt(body, |s| {
        matches!(s, Stmt::Atomic { .. })
            || visit::stmt_exprs(s).into_iter().any(calls_extern_method)
    })
}

/// Whether `body` cannot run under a `bpf_spin_lock` with its cells
/// looked up first: a helper call, or a register access that cannot be
/// looked up before the lock. `in_action`: inside an action the block
/// calls, whose register accesses are not the block's own.
fn needs_helpers(prog: &Program, body: &[Stmt], assigned: &[Expr], in_action: bool) -> bool {
    body.iter().any(|s| {
        let here = match s {
            Stmt::Assign { .. }
            | Stmt::If { .. }
            | Stmt::SwitchValue { .. }
            | Stmt::Eval(_)
            | Stmt::Inline { .. }
            | Stmt::Atomic { .. }
            | Stmt::Return
            | Stmt::Exit => false,
            Stmt::CallAction { action, .. } => prog
                .action(*action)
                .is_some_and(|a| needs_helpers(prog, &a.body, assigned, true)),
            _ => true,
        };
        here || visit::stmt_exprs(s)
            .into_iter()
            .any(|e| expr_needs_helpers(prog, e, assigned, in_action))
            || visit::stmt_bodies(s)
                .into_iter()
                .any(|b| needs_helpers(prog, b, assigned, in_action))
    })
}

fn expr_needs_helpers(prog: &Program, e: &Expr, assigned: &[Expr], in_action: bool) -> bool {
    let here = match &e.kind {
        ExprKind::ExternMethod { instance, op, args } => {
            let register = prog.extern_instance(*instance).is_some_and(|x| {
                matches!(x.kind, ExternKind::Register { .. })
                    && !x.kind.is_composite_register()
                    && matches!(op, ExternOp::Read | ExternOp::Write)
            });
            // An index reading a register or what the block assigns is not
            // known before the lock.
            !register
                || in_action
                || args
                    .first()
                    .is_some_and(|i| calls_extern_method(i) || reads_any(i, assigned))
        }
        ExprKind::Builtin { func, .. } => !computed_in_c(*func),
        ExprKind::ExternCall { .. } | ExprKind::Lookahead { .. } => true,
        _ => false,
    };
    here || visit::expr_parts(e)
        .into_iter()
        .any(|p| expr_needs_helpers(prog, p, assigned, in_action))
}

/// What in `body` may leave the block by a jump no release follows (a
/// packet error's `goto reject`, a deparser's failure), said for a warning.
fn leaves_unreleased(body: &[Stmt]) -> Option<String> {
    body.iter().find_map(|s| {
        let here = match s {
            Stmt::Extract { .. } | Stmt::Advance { .. } | Stmt::AdvanceBy { .. } => {
                Some("it extracts or skips packet bytes (a short packet jumps to `reject`)")
            }
            Stmt::Verify { .. } => Some("it verifies (a failure jumps to `reject`)"),
            Stmt::Emit { .. } => Some("it emits a header (a failure jumps out of the deparser)"),
            _ => None,
        };
        let lookahead = || {
            let mut found = false;
            for e in visit::stmt_exprs(s) {
                visit::each_expr(e, |x| found |= matches!(x.kind, ExprKind::Lookahead { .. }));
            }
            found.then_some("it looks ahead in the packet (a short packet jumps to `reject`)")
        };
        here.or_else(lookahead).map(String::from).or_else(|| {
            visit::stmt_bodies(s)
                .into_iter()
                .find_map(leaves_unreleased)
        })
    })
}

/// Builtins that are plain C over their arguments (hashes, checksums,
/// reads of the context), which may run under the lock.
fn computed_in_c(func: Builtin) -> bool {
    matches!(
        func,
        Builtin::Hash(_)
            | Builtin::CrcContinue(_)
            | Builtin::Lookup3
            | Builtin::Ipv4Checksum
            | Builtin::CsumReplace2
            | Builtin::CsumReplace4
            | Builtin::CsumFold
            | Builtin::PassNumber
            | Builtin::SkbRead(_)
    )
}

fn calls_extern_method(e: &Expr) -> bool {
    let mut found = false;
    visit::each_expr(e, |x| {
        found |= matches!(x.kind, ExprKind::ExternMethod { .. })
    });
    found
}

/// Every place the block (and the actions it calls) may write: left
/// sides, and the arguments of action calls (`out`/`inout` ones).
fn assigned_places(prog: &Program, body: &[Stmt]) -> Vec<Expr> {
    let mut found = vec![];
    let mut seen = vec![];
    collect_assigned(prog, body, &mut seen, &mut found);
    found
}

fn collect_assigned(prog: &Program, body: &[Stmt], seen: &mut Vec<usize>, found: &mut Vec<Expr>) {
    for s in body {
        match s {
            Stmt::Assign { lhs, .. } => found.push(lhs.clone()),
            Stmt::CallAction { action, args } => {
                found.extend(args.iter().filter(|a| place_path(a).is_some()).cloned());
                if let Some(a) = prog
                    .action(*action)
                    .filter(|_| !seen.contains(&action.index()))
                {
                    seen.push(action.index());
                    collect_assigned(prog, &a.body, seen, found);
                }
            }
            _ => {}
        }
        for inner in visit::stmt_bodies(s) {
            collect_assigned(prog, inner, seen, found);
        }
    }
}

/// A place as its variable and the fields below it (`None`: any element
/// of a stack), or `None` for a value that is not a place.
fn place_path(e: &Expr) -> Option<(VarId, Vec<Option<usize>>)> {
    match &e.kind {
        ExprKind::Var(v) => Some((*v, vec![])),
        ExprKind::Field { base, field, .. } => {
            let (v, mut path) = place_path(base)?;
            path.push(Some(*field));
            Some((v, path))
        }
        ExprKind::Index { base, .. } | ExprKind::StackNext(base) | ExprKind::StackLast(base) => {
            let (v, mut path) = place_path(base)?;
            path.push(None);
            Some((v, path))
        }
        ExprKind::Slice { base, .. } | ExprKind::VarbitField { base, .. } => place_path(base),
        _ => None,
    }
}

/// Whether `e` reads any part of the places in `assigned`.
fn reads_any(e: &Expr, assigned: &[Expr]) -> bool {
    if let Some((v, path)) = place_path(e) {
        let overlaps = assigned.iter().filter_map(place_path).any(|(w, other)| {
            v == w
                && path
                    .iter()
                    .zip(&other)
                    .all(|(a, b)| a.is_none() || b.is_none() || a == b)
        });
        return overlaps || index_reads_any(e, assigned);
    }
    visit::expr_parts(e)
        .into_iter()
        .any(|p| reads_any(p, assigned))
}

/// Whether a run-time stack index inside the place `e` reads `assigned`.
fn index_reads_any(e: &Expr, assigned: &[Expr]) -> bool {
    match &e.kind {
        ExprKind::Index { base, index } => {
            reads_any(index, assigned) || index_reads_any(base, assigned)
        }
        ExprKind::Field { base, .. }
        | ExprKind::Slice { base, .. }
        | ExprKind::VarbitField { base, .. }
        | ExprKind::StackNext(base)
        | ExprKind::StackLast(base) => index_reads_any(base, assigned),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::reads_any;
    use crate::ir::{AggId, BinOp, Expr, ExprKind, Ty, VarId};

    fn var(v: u32) -> Expr {
        Expr {
            kind: ExprKind::Var(VarId(v)),
            ty: Ty::Bool,
        }
    }

    fn field(base: Expr, field: usize) -> Expr {
        Expr {
            kind: ExprKind::Field {
                base: Box::new(base),
                agg: AggId(0),
                field,
            },
            ty: Ty::Bool,
        }
    }

    fn element(stack: Expr, index: Expr) -> Expr {
        Expr {
            kind: ExprKind::Index {
                base: Box::new(stack),
                index: Box::new(index),
            },
            ty: Ty::Bool,
        }
    }

    fn plus(lhs: Expr, rhs: Expr) -> Expr {
        Expr {
            kind: ExprKind::Binary {
                op: BinOp::Add,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            ty: Ty::Bool,
        }
    }

    #[test]
    fn an_index_depends_on_what_overlaps_a_place_the_block_assigns() {
        let assigned = [field(var(1), 2)];
        assert!(!reads_any(&field(var(1), 3), &assigned), "a sibling field");
        assert!(!reads_any(&var(2), &assigned), "another variable");
        assert!(reads_any(&field(var(1), 2), &assigned), "the same field");
        assert!(reads_any(&var(1), &assigned), "the whole struct");
        assert!(
            reads_any(&field(field(var(1), 2), 0), &assigned),
            "inside it"
        );
        let sum = plus(var(2), field(var(1), 2));
        assert!(reads_any(&sum, &assigned), "an operand");
    }

    #[test]
    fn stack_elements_at_run_time_indexes_overlap_every_element() {
        let assigned = [field(element(var(3), var(4)), 1)];
        let first = field(element(var(3), var(5)), 1);
        assert!(reads_any(&first, &assigned), "any element may be it");
        let other_field = field(element(var(3), var(5)), 0);
        assert!(!reads_any(&other_field, &assigned), "another field of it");
        let by_assigned = field(element(var(6), field(var(1), 2)), 0);
        assert!(reads_any(&by_assigned, &[field(var(1), 2)]), "its index");
    }
}
