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
    let o = objects(program);
    program.decls.iter().for_each(|d| declaration(d, &o, r));
}

/// Top-level names that denote objects or code, not values: a structured
/// annotation (whose values must be compile-time known data) cannot use
/// them.
type Objects<'p> = HashMap<&'p str, &'static str>;

fn objects(program: &crate::ast::Program) -> Objects<'_> {
    let mut names = HashMap::new();
    for d in &program.decls {
        let kind = match &d.kind {
            DeclKind::Instance { .. } => "an instance",
            DeclKind::ExternType { .. } | DeclKind::Parser { .. } | DeclKind::Control { .. } => {
                "a type"
            }
            DeclKind::Action { .. }
            | DeclKind::Function { .. }
            | DeclKind::ExternFunction { .. } => "code",
            _ => continue,
        };
        if let Some(name) = d.name() {
            names.insert(name.name.as_str(), kind);
        }
    }
    names
}

fn declaration(d: &Decl, o: &Objects, r: &mut Reporter) {
    list(&d.annotations, o, r);
    match &d.kind {
        DeclKind::Header { fields, .. }
        | DeclKind::HeaderUnion { fields, .. }
        | DeclKind::Struct { fields, .. } => {
            fields.iter().for_each(|f| list(&f.annotations, o, r));
            length_uses_earlier_fields(fields, r);
        }
        DeclKind::Enum { members, .. } => members.iter().for_each(|m| list(&m.annotations, o, r)),
        DeclKind::Typedef {
            target: TypedefTarget::Decl(inner),
            ..
        }
        | DeclKind::NewType {
            target: TypedefTarget::Decl(inner),
            ..
        } => declaration(inner, o, r),
        DeclKind::ExternType { methods, .. } => {
            for m in methods {
                list(&m.annotations, o, r);
                m.sig.params.iter().for_each(|p| list(&p.annotations, o, r));
            }
        }
        DeclKind::ExternFunction { sig, .. }
        | DeclKind::ParserType { sig }
        | DeclKind::ControlType { sig }
        | DeclKind::PackageType { sig } => {
            sig.params.iter().for_each(|p| list(&p.annotations, o, r))
        }
        DeclKind::Function { sig, body, .. } | DeclKind::Action { sig, body } => {
            sig.params.iter().for_each(|p| list(&p.annotations, o, r));
            block(body, o, r);
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
                .for_each(|p| list(&p.annotations, o, r));
            locals.iter().for_each(|l| declaration(l, o, r));
            for s in states {
                list(&s.annotations, o, r);
                s.stmts.iter().for_each(|s| stmt(s, o, r));
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
                .for_each(|p| list(&p.annotations, o, r));
            locals.iter().for_each(|l| declaration(l, o, r));
            block(apply, o, r);
        }
        DeclKind::Table { properties, .. } => {
            for p in properties {
                list(&p.annotations, o, r);
                match &p.kind {
                    TablePropertyKind::Key(keys) => {
                        keys.iter().for_each(|k| list(&k.annotations, o, r))
                    }
                    TablePropertyKind::Actions(actions) => {
                        actions.iter().for_each(|a| list(&a.annotations, o, r))
                    }
                    TablePropertyKind::Entries(entries) => {
                        entries.iter().for_each(|e| list(&e.annotations, o, r))
                    }
                    _ => {}
                }
            }
        }
        DeclKind::Instance {
            initializer: Some(methods),
            ..
        } => methods.iter().for_each(|m| declaration(m, o, r)),
        _ => {}
    }
}

fn block(b: &Block, o: &Objects, r: &mut Reporter) {
    list(&b.annotations, o, r);
    b.stmts.iter().for_each(|s| stmt(s, o, r));
}

fn stmt(s: &Stmt, o: &Objects, r: &mut Reporter) {
    match &s.kind {
        StmtKind::Block(b) => block(b, o, r),
        StmtKind::If { then, other, .. } => {
            stmt(then, o, r);
            other.iter().for_each(|other| stmt(other, o, r));
        }
        StmtKind::Switch { cases, .. } => cases
            .iter()
            .flat_map(|c| &c.body)
            .for_each(|b| block(b, o, r)),
        StmtKind::For { body, .. } | StmtKind::ForIn { body, .. } => stmt(body, o, r),
        StmtKind::Decl(d) => declaration(d, o, r),
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
fn list(annotations: &[Annotation], o: &Objects, r: &mut Reporter) {
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
        if is_structured && FIXED_SHAPES.contains(&a.name.name.as_str()) {
            r.error(
                a.span,
                format!("annotation `@{}` cannot be structured", a.name.name),
            );
        } else if is_structured {
            structured_values(a, o, r);
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

fn structured_values(a: &Annotation, o: &Objects, r: &mut Reporter) {
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
        for_each_expr(v, &mut |e| {
            let ExprKind::Path(p) = &e.kind else { return };
            if let Some(kind) = o.get(p.name.name.as_str()) {
                r.error(
                    e.span,
                    format!(
                        "`{}` in structured annotation `@{}` is {kind}, not a compile-time-known value",
                        p.name.name, a.name.name
                    ),
                );
            }
        });
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

/// The annotations whose shape the specification fixes ([`shape`]).
const FIXED_SHAPES: [&str; 11] = [
    "name",
    "deprecated",
    "noWarn",
    "priority",
    "match",
    "hidden",
    "optional",
    "tableonly",
    "defaultonly",
    "pure",
    "noSideEffects",
];

fn shape(a: &Annotation, r: &mut Reporter) {
    let name = a.name.name.as_str();
    let ok = match name {
        "name" | "deprecated" | "noWarn" => single(a).is_some_and(is_string),
        "priority" => single(a).is_some_and(is_integer),
        "match" => single(a).is_some_and(|e| matches!(e.kind, ExprKind::Path(_))),
        "hidden" | "optional" | "tableonly" | "defaultonly" | "pure" | "noSideEffects" => {
            is_empty(a)
        }
        "p4runtime_translation" => translation_body(r.text(a.span)),
        _ => true,
    };
    if !ok {
        let expected = match name {
            "name" | "deprecated" | "noWarn" => "one string",
            "priority" => "one integer",
            "match" => "one match kind name",
            "p4runtime_translation" => {
                "a URI string and the controller's type: a width, `bit<W>` or `string`"
            }
            _ => "no arguments",
        };
        r.error(a.span, format!("annotation `@{name}` takes {expected}"));
    }
}

/// `@p4runtime_translation("uri", T)` as written: T is an integer (a
/// width), `bit<W>` with a literal W, or `string` (P4Runtime spec 8.x).
fn translation_body(text: &str) -> bool {
    let inner = text
        .split_once('(')
        .and_then(|(_, rest)| rest.rsplit_once(')'))
        .map_or("", |(inner, _)| inner);
    let Some((uri, ty)) = inner.rsplit_once(',') else {
        return false;
    };
    let ty: String = ty.split_whitespace().collect();
    let width = |w: &str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit());
    let type_ok = ty == "string"
        || width(&ty)
        || ty
            .strip_prefix("bit<")
            .and_then(|t| t.strip_suffix('>'))
            .is_some_and(width);
    uri.trim().starts_with('"') && type_ok
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
