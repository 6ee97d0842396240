//! Annotations the specification gives a fixed shape: `@name`,
//! `@deprecated` and `@noWarn` take one string (a literal, a constant or a
//! `++` of those), `@priority` one integer (or constant),
//! `@match` one match kind name, `@hidden`, `@optional`, `@tableonly`,
//! `@defaultonly`, `@pure` and `@noSideEffects` nothing. Structured
//! annotations (`@x[...]`) hold only int, string or bool values, name each
//! key once, and their name may not be repeated on the same element.
//! `@length` on a field names only fields before it. Unknown annotations
//! are left alone.

use super::walk::for_each_expr;
use super::Reporter;
use crate::ast::{
    Annotation, AnnotationBody, BinaryOp, Block, Decl, DeclKind, Expr, ExprKind, Field, Stmt,
    StmtKind, TablePropertyKind, TypedefTarget, UnaryOp,
};
use std::collections::HashMap;

pub(super) fn check(program: &crate::ast::Program, r: &mut Reporter) {
    program.decls.iter().for_each(|d| declaration(d, r));
}

fn declaration(d: &Decl, r: &mut Reporter) {
    list(&d.annotations, r);
    match &d.kind {
        DeclKind::Header { fields, .. }
        | DeclKind::HeaderUnion { fields, .. }
        | DeclKind::Struct { fields, .. } => {
            fields.iter().for_each(|f| list(&f.annotations, r));
            length_uses_earlier_fields(fields, r);
        }
        DeclKind::Enum { members, .. } => members.iter().for_each(|m| list(&m.annotations, r)),
        DeclKind::Typedef {
            target: TypedefTarget::Decl(inner),
            ..
        }
        | DeclKind::NewType {
            target: TypedefTarget::Decl(inner),
            ..
        } => declaration(inner, r),
        DeclKind::ExternType { methods, .. } => {
            for m in methods {
                list(&m.annotations, r);
                m.sig.params.iter().for_each(|p| list(&p.annotations, r));
            }
        }
        DeclKind::ExternFunction { sig, .. }
        | DeclKind::ParserType { sig }
        | DeclKind::ControlType { sig }
        | DeclKind::PackageType { sig } => sig.params.iter().for_each(|p| list(&p.annotations, r)),
        DeclKind::Function { sig, body, .. } | DeclKind::Action { sig, body } => {
            sig.params.iter().for_each(|p| list(&p.annotations, r));
            block(body, r);
        }
        DeclKind::Parser {
            sig,
            ctor_params,
            locals,
            states,
        } => {
            sig.params
                .iter()
                .chain(ctor_params)
                .for_each(|p| list(&p.annotations, r));
            locals.iter().for_each(|l| declaration(l, r));
            for s in states {
                list(&s.annotations, r);
                s.stmts.iter().for_each(|s| stmt(s, r));
            }
        }
        DeclKind::Control {
            sig,
            ctor_params,
            locals,
            apply,
        } => {
            sig.params
                .iter()
                .chain(ctor_params)
                .for_each(|p| list(&p.annotations, r));
            locals.iter().for_each(|l| declaration(l, r));
            block(apply, r);
        }
        DeclKind::Table { properties, .. } => {
            for p in properties {
                list(&p.annotations, r);
                match &p.kind {
                    TablePropertyKind::Key(keys) => {
                        keys.iter().for_each(|k| list(&k.annotations, r))
                    }
                    TablePropertyKind::Actions(actions) => {
                        actions.iter().for_each(|a| list(&a.annotations, r))
                    }
                    TablePropertyKind::Entries(entries) => {
                        entries.iter().for_each(|e| list(&e.annotations, r))
                    }
                    _ => {}
                }
            }
        }
        DeclKind::Instance {
            initializer: Some(methods),
            ..
        } => methods.iter().for_each(|m| declaration(m, r)),
        _ => {}
    }
}

fn block(b: &Block, r: &mut Reporter) {
    list(&b.annotations, r);
    b.stmts.iter().for_each(|s| stmt(s, r));
}

fn stmt(s: &Stmt, r: &mut Reporter) {
    match &s.kind {
        StmtKind::Block(b) => block(b, r),
        StmtKind::If { then, other, .. } => {
            stmt(then, r);
            other.iter().for_each(|o| stmt(o, r));
        }
        StmtKind::Switch { cases, .. } => {
            cases.iter().flat_map(|c| &c.body).for_each(|b| block(b, r))
        }
        StmtKind::For { body, .. } | StmtKind::ForIn { body, .. } => stmt(body, r),
        StmtKind::Decl(d) => declaration(d, r),
        _ => {}
    }
}

/// `@length(e)` on a field computes its length from fields read before
/// it, so `e` cannot name the field itself or a later one.
fn length_uses_earlier_fields(fields: &[Field], r: &mut Reporter) {
    for (i, field) in fields.iter().enumerate() {
        let later = fields.get(i..).unwrap_or_default();
        for a in field.annotations.iter().filter(|a| a.name.name == "length") {
            let AnnotationBody::Expressions(exprs) = &a.body else {
                continue;
            };
            for e in exprs {
                for_each_expr(e, &mut |e| {
                    let ExprKind::Path(p) = &e.kind else { return };
                    if later.iter().any(|f| f.name.name == p.name.name) {
                        r.error(
                            e.span,
                            format!(
                                "`@length` of `{}` uses field `{}`, which is not read before it",
                                field.name.name, p.name.name
                            ),
                        );
                    }
                });
            }
        }
    }
}

/// The annotations of one element.
fn list(annotations: &[Annotation], r: &mut Reporter) {
    let mut structured: HashMap<&str, bool> = HashMap::new();
    for a in annotations {
        let is_structured = is_structured(a, r);
        match structured.get(a.name.name.as_str()) {
            Some(&earlier) if earlier || is_structured => r.error(
                a.span,
                format!(
                    "structured annotation `@{}` cannot be repeated",
                    a.name.name
                ),
            ),
            _ => {
                structured.insert(&a.name.name, is_structured);
            }
        }
        if is_structured {
            structured_values(a, r);
        } else {
            shape(a, r);
        }
    }
}

/// `@x[...]` rather than `@x(...)`.
fn is_structured(a: &Annotation, r: &Reporter) -> bool {
    let text = r.text(a.span);
    let after_name = text
        .find(a.name.name.as_str())
        .map_or("", |i| &text[i + a.name.name.len()..]);
    after_name.trim_start().starts_with('[')
}

fn structured_values(a: &Annotation, r: &mut Reporter) {
    let values: Vec<&Expr> = match &a.body {
        AnnotationBody::Expressions(list) => list.iter().collect(),
        AnnotationBody::KeyValues(pairs) => {
            let mut seen: HashMap<&str, ()> = HashMap::new();
            for (key, _) in pairs {
                if seen.insert(&key.name, ()).is_some() {
                    r.error(
                        key.span,
                        format!(
                            "key `{}` appears twice in annotation `@{}`",
                            key.name, a.name.name
                        ),
                    );
                }
            }
            pairs.iter().map(|(_, v)| v).collect()
        }
        _ => Vec::new(),
    };
    for v in values {
        if matches!(
            v.kind,
            ExprKind::List(_)
                | ExprKind::StructInit { .. }
                | ExprKind::Invalid
                | ExprKind::DontCare
                | ExprKind::Default
                | ExprKind::Mask { .. }
                | ExprKind::Range { .. }
        ) {
            r.error(
                v.span,
                format!(
                    "a value of structured annotation `@{}` must be an int, string or bool",
                    a.name.name
                ),
            );
        }
    }
}

/// The one expression of an annotation body, if it has exactly one.
fn single(a: &Annotation) -> Option<&Expr> {
    match &a.body {
        AnnotationBody::Expressions(list) if list.len() == 1 => list.first(),
        _ => None,
    }
}

fn is_empty(a: &Annotation) -> bool {
    match &a.body {
        AnnotationBody::Empty => true,
        AnnotationBody::Expressions(list) => list.is_empty(),
        _ => false,
    }
}

fn shape(a: &Annotation, r: &mut Reporter) {
    let name = a.name.name.as_str();
    let ok = match name {
        "name" | "deprecated" | "noWarn" => single(a).is_some_and(is_string),
        "priority" => single(a).is_some_and(is_integer),
        "match" => single(a).is_some_and(|e| matches!(e.kind, ExprKind::Path(_))),
        "hidden" | "optional" | "tableonly" | "defaultonly" | "pure" | "noSideEffects" => {
            is_empty(a)
        }
        _ => true,
    };
    if !ok {
        let expected = match name {
            "name" | "deprecated" | "noWarn" => "one string",
            "priority" => "one integer",
            "match" => "one match kind name",
            _ => "no arguments",
        };
        r.error(a.span, format!("annotation `@{name}` takes {expected}"));
    }
}

/// A string literal, a constant's name, or a `++` of those.
fn is_string(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::String(_) | ExprKind::Path(_) => true,
        ExprKind::Binary {
            op: BinaryOp::Concat,
            lhs,
            rhs,
        } => is_string(lhs) && is_string(rhs),
        _ => false,
    }
}

fn is_integer(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Int(_) | ExprKind::Path(_) => true,
        ExprKind::Unary {
            op: UnaryOp::Neg,
            operand,
        } => matches!(operand.kind, ExprKind::Int(_)),
        _ => false,
    }
}
