//! Declarations in the wrong shape or place: instantiations of something
//! that is not a named type (or an array of one), a parser or
//! control instantiating itself, extern methods without a return type that
//! are not constructors and constructors with one, an extern named `main`
//! (the name of the package instance the program runs), `NoAction` with
//! parameters, and (directly or mutually) recursive functions, which P4
//! does not allow.

use super::walk::for_each_expr;
use super::Reporter;
use crate::ast::{
    Block, Decl, DeclKind, ExprKind, Ident, MethodKind, Program, Stmt, StmtKind, TypeRefKind,
};
use std::collections::HashMap;

pub(super) fn check(program: &Program, r: &mut Reporter) {
    for decl in &program.decls {
        special_names(decl, r);
        match &decl.kind {
            DeclKind::Instance { .. } => instance(decl, None, r),
            DeclKind::Parser { sig, locals, .. } | DeclKind::Control { sig, locals, .. } => {
                locals.iter().for_each(|l| instance(l, Some(&sig.name), r))
            }
            DeclKind::ExternType { name, methods, .. } => {
                for m in methods {
                    let named_like_extern = m.sig.name.name == name.name;
                    match m.kind {
                        MethodKind::Constructor if !named_like_extern => r.error(
                            m.sig.name.span,
                            format!("method `{}` has no return type", m.sig.name.name),
                        ),
                        MethodKind::Method | MethodKind::Abstract if named_like_extern => r.error(
                            m.sig.name.span,
                            format!(
                                "constructor `{}` cannot have a return type",
                                m.sig.name.name
                            ),
                        ),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    recursion(program, r);
}

/// Names the language gives a meaning: `main` is the package instance the
/// program runs, `NoAction` the action tables default to.
fn special_names(decl: &Decl, r: &mut Reporter) {
    match &decl.kind {
        DeclKind::Action { sig, .. } if sig.name.name == "NoAction" && !sig.params.is_empty() => {
            r.error(sig.name.span, "action `NoAction` cannot have parameters")
        }
        DeclKind::ExternType { name, .. } if name.name == "main" => r.error(
            name.span,
            "`main` must be an instance of a package, not an extern",
        ),
        _ => {}
    }
}

/// An instantiation must name a type (possibly as an array of instances),
/// and not the block it is in.
fn instance(decl: &Decl, enclosing: Option<&Ident>, r: &mut Reporter) {
    let DeclKind::Instance { ty, name, .. } = &decl.kind else {
        return;
    };
    let named = match &ty.kind {
        TypeRefKind::Stack { elem, .. } => elem,
        _ => ty,
    };
    let type_name = match &named.kind {
        TypeRefKind::Named { path, .. } => &path.name.name,
        _ => {
            return r.error(
                ty.span,
                format!(
                    "`{}` cannot be instantiated",
                    r.text(ty.span).trim().to_owned()
                ),
            )
        }
    };
    if let Some(block) = enclosing.filter(|b| &b.name == type_name) {
        r.error(
            ty.span,
            format!(
                "`{}` cannot instantiate itself in `{}`",
                block.name, name.name
            ),
        );
    }
}

/// Top-level functions calling themselves, directly or through others.
/// Only functions whose name is not overloaded are followed, so a call to
/// another overload is never mistaken for recursion.
fn recursion(program: &Program, r: &mut Reporter) {
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
