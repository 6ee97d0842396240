//! Statements in the wrong place: `return` with or without a value against
//! the enclosing function or action, `exit` and `return` in parsers, `exit`
//! in functions, `break`/`continue` outside loops, instantiations inside
//! bodies other than actions', `switch` in actions and parsers, `for` in
//! parsers, variables of type `int`, `for ... in` without a type, and
//! functions that can end without returning their value. This walker
//! knows which body each statement is in; the rules on the expressions it
//! meets are in [`expressions`].
//!
//! Only names declared in the same control (its tables) or at the top level
//! (actions, a user `verify`) are looked at, and only by their spelling.

mod expressions;

use super::{switches, Reporter};
use crate::ast::{
    ActionRef, Block, Decl, DeclKind, Expr, Param, Program, Stmt, StmtKind, SwitchLabel,
    TablePropertyKind, Transition, TypeRefKind,
};
use expressions::{arguments, expr, no_defaults, no_table_apply};
use std::collections::{HashMap, HashSet};

pub(super) fn check(program: &Program, r: &mut Reporter) {
    let top = TopLevel::new(program);
    let no_tables = HashMap::new();
    for decl in &program.decls {
        let ctx = Ctx {
            body: Body::Local,
            loops: 0,
            this_ok: false,
            tables: &no_tables,
            params: &[],
            top: &top,
        };
        declaration(decl, &ctx, r);
    }
}

/// Facts about top-level names the rules need.
struct TopLevel<'p> {
    actions: HashSet<&'p str>,
    /// The program declares its own `verify` function (not core's extern).
    user_verify: bool,
}

impl<'p> TopLevel<'p> {
    fn new(program: &'p Program) -> TopLevel<'p> {
        let mut actions = HashSet::new();
        let mut user_verify = false;
        for d in &program.decls {
            match &d.kind {
                DeclKind::Action { sig, .. } => {
                    actions.insert(sig.name.name.as_str());
                }
                DeclKind::Function { sig, .. } if sig.name.name == "verify" => user_verify = true,
                _ => {}
            }
        }
        TopLevel {
            actions,
            user_verify,
        }
    }
}

/// The kind of body a statement is in.
#[derive(Clone, Copy, PartialEq)]
enum Body {
    Action,
    Function {
        returns_value: bool,
    },
    /// A control's `apply` block.
    Apply,
    /// A parser state.
    State,
    /// Initializers of declarations and table properties.
    Local,
}

#[derive(Clone, Copy)]
struct Ctx<'c, 'p> {
    body: Body,
    loops: u32,
    this_ok: bool,
    /// The tables of the enclosing control, with their `actions` lists.
    tables: &'c HashMap<&'p str, &'p [ActionRef]>,
    /// Parameters of the enclosing function (they shadow top-level names).
    params: &'p [Param],
    top: &'c TopLevel<'p>,
}

fn declaration<'p>(decl: &'p Decl, ctx: &Ctx<'_, 'p>, r: &mut Reporter) {
    match &decl.kind {
        DeclKind::Function {
            return_type,
            sig,
            body,
        } => {
            let returns_value = !matches!(return_type.kind, TypeRefKind::Void);
            let inner = Ctx {
                body: Body::Function { returns_value },
                params: &sig.params,
                ..*ctx
            };
            block(body, &inner, r);
            if returns_value && !always_returns(&body.stmts) {
                r.error(
                    sig.name.span,
                    format!(
                        "function `{}` does not return a value on all paths",
                        sig.name.name
                    ),
                );
            }
        }
        DeclKind::Action { body, .. } => block(
            body,
            &Ctx {
                body: Body::Action,
                ..*ctx
            },
            r,
        ),
        DeclKind::Control { locals, apply, .. } => {
            let tables: HashMap<&str, &[ActionRef]> =
                locals.iter().filter_map(table_actions).collect();
            let inner = Ctx {
                tables: &tables,
                ..*ctx
            };
            locals.iter().for_each(|l| declaration(l, &inner, r));
            block(
                apply,
                &Ctx {
                    body: Body::Apply,
                    ..inner
                },
                r,
            );
        }
        DeclKind::Parser { locals, states, .. } => {
            locals.iter().for_each(|l| declaration(l, ctx, r));
            let inner = Ctx {
                body: Body::State,
                ..*ctx
            };
            for state in states {
                stmts(&state.stmts, &inner, r);
                if let Some(Transition::Select { exprs, .. }) = &state.transition {
                    exprs.iter().for_each(|e| expr(e, &inner, r));
                }
            }
        }
        DeclKind::Instance {
            args, initializer, ..
        } => {
            arguments(args, r);
            args.iter().for_each(|a| expr(&a.value, ctx, r));
            let inner = Ctx {
                this_ok: true,
                ..*ctx
            };
            initializer
                .iter()
                .flatten()
                .for_each(|m| declaration(m, &inner, r));
        }
        DeclKind::Table { properties, .. } => {
            for p in properties {
                match &p.kind {
                    TablePropertyKind::Key(keys) => keys.iter().for_each(|k| expr(&k.expr, ctx, r)),
                    TablePropertyKind::Actions(list) => {
                        list.iter()
                            .flat_map(|a| &a.args)
                            .for_each(|args| arguments(args, r));
                        for arg in list.iter().flat_map(|a| a.args.iter().flatten()) {
                            no_table_apply(&arg.value, ctx, r);
                            expr(&arg.value, ctx, r);
                        }
                    }
                    TablePropertyKind::Entries(entries) => entries.iter().for_each(|e| {
                        no_table_apply(&e.action, ctx, r);
                        expr(&e.action, ctx, r)
                    }),
                    TablePropertyKind::DefaultAction(e) => {
                        no_table_apply(e, ctx, r);
                        expr(e, ctx, r)
                    }
                    TablePropertyKind::Other { value: e, .. } => expr(e, ctx, r),
                }
            }
        }
        DeclKind::Variable { ty, name, init } => {
            if matches!(ty.kind, TypeRefKind::InfInt) {
                r.error(
                    name.span,
                    format!("variable `{}` cannot have type `int`", name.name),
                );
            }
            init.iter().for_each(|e| expr(e, ctx, r));
        }
        DeclKind::Constant { value, .. } => expr(value, ctx, r),
        _ => {}
    }
}

fn table_actions(decl: &Decl) -> Option<(&str, &[ActionRef])> {
    let DeclKind::Table { name, properties } = &decl.kind else {
        return None;
    };
    let actions = properties.iter().find_map(|p| match &p.kind {
        TablePropertyKind::Actions(list) => Some(list.as_slice()),
        _ => None,
    });
    Some((name.name.as_str(), actions.unwrap_or(&[])))
}

fn block<'p>(b: &'p Block, ctx: &Ctx<'_, 'p>, r: &mut Reporter) {
    stmts(&b.stmts, ctx, r);
}

fn stmts<'p>(list: &'p [Stmt], ctx: &Ctx<'_, 'p>, r: &mut Reporter) {
    list.iter().for_each(|s| stmt(s, ctx, r));
}

fn stmt<'p>(s: &'p Stmt, ctx: &Ctx<'_, 'p>, r: &mut Reporter) {
    match &s.kind {
        StmtKind::Assign { lhs, rhs } | StmtKind::CompoundAssign { lhs, rhs, .. } => {
            expr(lhs, ctx, r);
            expr(rhs, ctx, r);
        }
        StmtKind::Call(e) => expr(e, ctx, r),
        StmtKind::If { cond, then, other } => {
            expr(cond, ctx, r);
            stmt(then, ctx, r);
            other.iter().for_each(|o| stmt(o, ctx, r));
        }
        StmtKind::Block(b) => block(b, ctx, r),
        StmtKind::Switch {
            expr: subject,
            cases,
        } => {
            if ctx.body == Body::Action {
                r.error(s.span, "`switch` statements are not allowed in actions");
            }
            // The grammar's parser statements have no `switch` (spec 12.4).
            if ctx.body == Body::State {
                r.error(
                    s.span,
                    "`switch` statements are not allowed in a parser (use `select`)",
                );
            }
            match switches::action_run_base(subject) {
                Some(call) => expr(call, ctx, r),
                None => expr(subject, ctx, r),
            }
            switches::check(subject, cases, ctx.tables, r);
            for case in cases {
                if let SwitchLabel::Expr(label) = &case.label {
                    expr(label, ctx, r);
                }
                case.body.iter().for_each(|b| block(b, ctx, r));
            }
        }
        StmtKind::For {
            init,
            cond,
            update,
            body,
        } => {
            no_loop_in_parser(s, ctx, r);
            stmts(init, ctx, r);
            cond.iter().for_each(|c| expr(c, ctx, r));
            stmts(update, ctx, r);
            stmt(
                body,
                &Ctx {
                    loops: ctx.loops + 1,
                    ..*ctx
                },
                r,
            );
        }
        StmtKind::ForIn {
            ty,
            var,
            range,
            body,
        } => {
            no_loop_in_parser(s, ctx, r);
            if ty.is_none() {
                r.error(
                    var.span,
                    format!("loop variable `{}` must be declared with a type", var.name),
                );
            }
            expr(range, ctx, r);
            stmt(
                body,
                &Ctx {
                    loops: ctx.loops + 1,
                    ..*ctx
                },
                r,
            );
        }
        StmtKind::Break | StmtKind::Continue => {
            if ctx.loops == 0 {
                let what = if matches!(s.kind, StmtKind::Break) {
                    "break"
                } else {
                    "continue"
                };
                r.error(s.span, format!("`{what}` outside a loop"));
            }
        }
        StmtKind::Exit => match ctx.body {
            Body::State => r.error(s.span, "`exit` is not allowed in a parser"),
            Body::Function { .. } => r.error(s.span, "`exit` is not allowed in a function"),
            _ => {}
        },
        StmtKind::Return(value) => return_stmt(s, value.as_ref(), ctx, r),
        StmtKind::Decl(d) => {
            // The grammar lets any block instantiate; p4c keeps that for
            // action bodies only, and so do we.
            let instance = match &d.kind {
                DeclKind::Instance { name, .. } if ctx.body != Body::Action => Some(name),
                _ => None,
            };
            if let Some(name) = instance {
                r.error(
                    name.span,
                    format!(
                        "instantiation of `{}` is not allowed inside a body",
                        name.name
                    ),
                );
            }
            declaration(d, ctx, r);
        }
        StmtKind::Empty => {}
    }
}

fn return_stmt<'p>(s: &'p Stmt, value: Option<&'p Expr>, ctx: &Ctx<'_, 'p>, r: &mut Reporter) {
    match (ctx.body, value) {
        (Body::State, _) => r.error(s.span, "`return` is not allowed in a parser"),
        (
            Body::Function {
                returns_value: true,
            },
            None,
        ) => r.error(
            s.span,
            "`return` without a value in a function that returns a value",
        ),
        (
            Body::Function {
                returns_value: false,
            },
            Some(_),
        ) => r.error(
            s.span,
            "`return` with a value in a function returning `void`",
        ),
        (Body::Action | Body::Apply, Some(_)) => {
            r.error(s.span, "`return` with a value outside a function")
        }
        _ => {}
    }
    if let Some(v) = value {
        no_defaults(v, "returned", r);
        expr(v, ctx, r);
    }
}

/// Whether running `list` always ends in a `return` (or `exit`).
fn always_returns(list: &[Stmt]) -> bool {
    list.iter().any(returns)
}

fn returns(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Return(_) | StmtKind::Exit => true,
        StmtKind::Block(b) => always_returns(&b.stmts),
        StmtKind::If {
            then,
            other: Some(other),
            ..
        } => returns(then) && returns(other),
        StmtKind::Switch { cases, .. } => {
            let has_default = cases
                .iter()
                .any(|c| matches!(c.label, SwitchLabel::Default(_)));
            let bodies_return = cases
                .iter()
                .filter_map(|c| c.body.as_ref())
                .all(|b| always_returns(&b.stmts));
            let ends_with_body = cases.last().is_some_and(|c| c.body.is_some());
            has_default && bodies_return && ends_with_body
        }
        _ => false,
    }
}

/// Parser states loop through transitions; the grammar's parser statements
/// have no `for` (spec 12.4).
fn no_loop_in_parser(s: &Stmt, ctx: &Ctx, r: &mut Reporter) {
    if ctx.body == Body::State {
        r.error(
            s.span,
            "`for` loops are not allowed in a parser (loop with transitions)",
        );
    }
}
