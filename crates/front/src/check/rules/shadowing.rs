//! A variable may not shadow a parameter: a variable declared in a body
//! (a parser state, a control's `apply` block, an action or a function, at
//! any depth) whose name is the name of a parameter in scope there is an
//! error, as in the reference compiler. Other shadowing (a parser's or
//! control's own locals, a table named like a parameter, a variable named
//! like a top-level declaration) is allowed.

use super::Reporter;
use crate::ast::{Block, Decl, DeclKind, Param, Program, Stmt, StmtKind};

pub(super) fn check(program: &Program, r: &mut Reporter) {
    for decl in &program.decls {
        declaration(decl, &[], r);
    }
}

fn declaration(decl: &Decl, outer: &[&Param], r: &mut Reporter) {
    match &decl.kind {
        DeclKind::Parser {
            sig,
            ctor_params,
            locals,
            states,
        } => {
            let params: Vec<&Param> = sig.params.iter().chain(ctor_params).collect();
            locals.iter().for_each(|l| local(l, &params, r));
            states.iter().for_each(|s| stmts(&s.stmts, &params, r));
        }
        DeclKind::Control {
            sig,
            ctor_params,
            locals,
            apply,
        } => {
            let params: Vec<&Param> = sig.params.iter().chain(ctor_params).collect();
            locals.iter().for_each(|l| local(l, &params, r));
            block(apply, &params, r);
        }
        DeclKind::Action { sig, body } | DeclKind::Function { sig, body, .. } => {
            let params: Vec<&Param> = outer.iter().copied().chain(&sig.params).collect();
            block(body, &params, r);
        }
        DeclKind::Instance {
            initializer: Some(methods),
            ..
        } => methods.iter().for_each(|m| declaration(m, &[], r)),
        DeclKind::Variable { name, .. } => {
            if let Some(p) = outer.iter().find(|p| p.name.name == name.name) {
                r.error_with_note(
                    name.span,
                    format!("variable `{}` shadows a parameter", name.name),
                    p.name.span,
                    "the parameter is here",
                );
            }
        }
        _ => {}
    }
}

/// A local of a parser or control: its own variables may shadow, the
/// bodies of its actions may not.
fn local(decl: &Decl, params: &[&Param], r: &mut Reporter) {
    if !matches!(decl.kind, DeclKind::Variable { .. }) {
        declaration(decl, params, r);
    }
}

fn block(b: &Block, params: &[&Param], r: &mut Reporter) {
    stmts(&b.stmts, params, r);
}

fn stmts(list: &[Stmt], params: &[&Param], r: &mut Reporter) {
    list.iter().for_each(|s| stmt(s, params, r));
}

fn stmt(s: &Stmt, params: &[&Param], r: &mut Reporter) {
    match &s.kind {
        StmtKind::Decl(d) => declaration(d, params, r),
        StmtKind::Block(b) => block(b, params, r),
        StmtKind::If { then, other, .. } => {
            stmt(then, params, r);
            other.iter().for_each(|o| stmt(o, params, r));
        }
        StmtKind::Switch { cases, .. } => cases
            .iter()
            .flat_map(|c| &c.body)
            .for_each(|b| block(b, params, r)),
        StmtKind::For { init, body, .. } => {
            stmts(init, params, r);
            stmt(body, params, r);
        }
        StmtKind::ForIn { body, .. } => stmt(body, params, r),
        _ => {}
    }
}
