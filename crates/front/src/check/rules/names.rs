//! Duplicate and illegal names, scope by scope: top-level declarations,
//! `error` and `match_kind` members (each one set, however many
//! declarations extend it), fields, enum members, type parameters and
//! parameters, extern methods, parser states, locals of parsers, controls
//! and blocks, and table properties.
//!
//! Overloading: functions, extern functions, parsers, controls and package
//! types may share a name with declarations of the same kind; two methods
//! of one extern may share a name when a call can tell them apart, i.e.
//! when they differ in the number of parameters or in their names. Actions
//! are never overloaded. Locals may shadow parameters (a warning
//! elsewhere, not an error here).

use super::Reporter;
use crate::ast::{
    Block, Decl, DeclKind, Ident, Method, Param, Program, Signature, Stmt, StmtKind, TableProperty,
    TablePropertyKind, TypedefTarget,
};
use crate::source::Span;
use std::collections::HashMap;

pub(super) fn check(program: &Program, r: &mut Reporter) {
    let mut members = GlobalMembers::default();
    declaration_scope(&program.decls, r);
    for decl in &program.decls {
        declaration(decl, &mut members, r);
    }
}

/// Names already declared in one scope, with where.
#[derive(Default)]
struct Scope<'a> {
    seen: HashMap<&'a str, Span>,
}

impl<'a> Scope<'a> {
    /// Records `name`; reports it if the scope already has it.
    fn add(&mut self, name: &'a Ident, r: &mut Reporter) {
        if let Some(&first) = self.seen.get(name.name.as_str()) {
            duplicate(name, first, r);
        } else {
            self.seen.insert(&name.name, name.span);
        }
    }
}

fn duplicate(name: &Ident, first: Span, r: &mut Reporter) {
    r.error_with_note(
        name.span,
        format!("duplicate declaration of `{}`", name.name),
        first,
        "previous declaration is here",
    );
}

/// `error` and `match_kind` members: one set each for the whole program.
#[derive(Default)]
struct GlobalMembers<'a> {
    errors: Scope<'a>,
    match_kinds: Scope<'a>,
}

/// What tells overloads apart: the number of parameters and their names.
fn overload_key(params: &[Param]) -> Vec<&str> {
    params.iter().map(|p| p.name.name.as_str()).collect()
}

/// The kinds of declaration that may be overloaded (calls and
/// instantiations pick one by their arguments), as a number per kind.
fn overload_kind(kind: &DeclKind) -> Option<u8> {
    match kind {
        DeclKind::Function { .. } => Some(0),
        DeclKind::ExternFunction { .. } => Some(1),
        DeclKind::Parser { .. } => Some(2),
        DeclKind::Control { .. } => Some(3),
        DeclKind::PackageType { .. } => Some(4),
        _ => None,
    }
}

/// One scope of declarations (the program, or a parser's or control's
/// locals): two declarations with one name are duplicates unless both are
/// overloadable and of the same kind.
fn declaration_scope(decls: &[Decl], r: &mut Reporter) {
    let mut seen: HashMap<&str, &Decl> = HashMap::new();
    for decl in decls {
        let Some(name) = decl.name() else { continue };
        let Some(first) = seen.get(name.name.as_str()) else {
            seen.insert(&name.name, decl);
            continue;
        };
        let overload =
            overload_kind(&first.kind).is_some_and(|k| Some(k) == overload_kind(&decl.kind));
        if let (false, Some(first)) = (overload, first.name()) {
            duplicate(name, first.span, r);
        }
    }
}

fn declaration<'a>(decl: &'a Decl, members: &mut GlobalMembers<'a>, r: &mut Reporter) {
    if let Some(name) = decl.name() {
        if name.name == "_" {
            r.error(name.span, "`_` cannot be used as a name");
        }
    }
    match &decl.kind {
        DeclKind::Header {
            type_params,
            fields,
            ..
        }
        | DeclKind::HeaderUnion {
            type_params,
            fields,
            ..
        }
        | DeclKind::Struct {
            type_params,
            fields,
            ..
        } => {
            distinct(type_params.iter(), r);
            let mut scope = Scope::default();
            for f in fields {
                if f.name.name == "_" {
                    r.error(f.name.span, "`_` cannot be used as a field name");
                }
                scope.add(&f.name, r);
            }
        }
        DeclKind::Enum { members: list, .. } => distinct(list.iter().map(|m| &m.name), r),
        DeclKind::Error { members: list } => list.iter().for_each(|m| members.errors.add(m, r)),
        DeclKind::MatchKind { members: list } => {
            list.iter().for_each(|m| members.match_kinds.add(m, r))
        }
        DeclKind::Typedef {
            target: TypedefTarget::Decl(inner),
            ..
        }
        | DeclKind::NewType {
            target: TypedefTarget::Decl(inner),
            ..
        } => declaration(inner, members, r),
        DeclKind::ExternType {
            type_params,
            methods,
            ..
        } => {
            distinct(type_params.iter(), r);
            extern_methods(methods, r);
        }
        DeclKind::ExternFunction { sig, .. }
        | DeclKind::ParserType { sig }
        | DeclKind::ControlType { sig }
        | DeclKind::PackageType { sig } => signature(sig, &[], r),
        DeclKind::Function { sig, body, .. } | DeclKind::Action { sig, body } => {
            signature(sig, &[], r);
            block(body, r);
        }
        DeclKind::Parser {
            sig,
            ctor_params,
            locals,
            states,
        } => {
            signature(sig, ctor_params, r);
            locals_scope(locals, members, r);
            let mut scope = Scope::default();
            for state in states {
                scope.add(&state.name, r);
                statements(&state.stmts, r);
            }
            // States and locals are declared in the one parser scope.
            for state in states {
                let mut local = locals.iter().filter_map(|l| l.name());
                if let Some(first) = local.find(|n| n.name == state.name.name) {
                    duplicate(&state.name, first.span, r);
                }
            }
        }
        DeclKind::Control {
            sig,
            ctor_params,
            locals,
            apply,
        } => {
            signature(sig, ctor_params, r);
            locals_scope(locals, members, r);
            block(apply, r);
        }
        DeclKind::Table { properties, .. } => table_properties(properties, r),
        DeclKind::Instance {
            initializer: Some(methods),
            ..
        } => {
            declaration_scope(methods, r);
            methods.iter().for_each(|m| declaration(m, members, r));
        }
        _ => {}
    }
}

fn locals_scope<'a>(locals: &'a [Decl], members: &mut GlobalMembers<'a>, r: &mut Reporter) {
    declaration_scope(locals, r);
    locals.iter().for_each(|l| declaration(l, members, r));
}

/// Type parameters, parameters and constructor parameters of one
/// declaration share one scope.
fn signature(sig: &Signature, ctor_params: &[Param], r: &mut Reporter) {
    let names = sig.type_params.iter();
    let names = names.chain(sig.params.iter().map(|p| &p.name));
    distinct(names.chain(ctor_params.iter().map(|p| &p.name)), r);
}

fn distinct<'a>(names: impl Iterator<Item = &'a Ident>, r: &mut Reporter) {
    let mut scope = Scope::default();
    names.for_each(|n| scope.add(n, r));
}

/// Methods of one extern: overloads must differ in arity or parameter names.
fn extern_methods(methods: &[Method], r: &mut Reporter) {
    let mut seen: HashMap<(&str, Vec<&str>), Span> = HashMap::new();
    for m in methods {
        if m.sig.name.name == "_" {
            r.error(m.sig.name.span, "`_` cannot be used as a method name");
        }
        signature(&m.sig, &[], r);
        let key = (m.sig.name.name.as_str(), overload_key(&m.sig.params));
        match seen.get(&key) {
            Some(&first) => duplicate(&m.sig.name, first, r),
            None => {
                seen.insert(key, m.sig.name.span);
            }
        }
    }
}

/// Locals declared directly in one block; nested blocks are scopes of
/// their own.
fn block(b: &Block, r: &mut Reporter) {
    statements(&b.stmts, r);
}

fn statements(stmts: &[Stmt], r: &mut Reporter) {
    let mut scope = Scope::default();
    for s in stmts {
        if let StmtKind::Decl(d) = &s.kind {
            if let Some(name) = d.name() {
                if name.name == "_" {
                    r.error(name.span, "`_` cannot be used as a name");
                }
                scope.add(name, r);
            }
        }
        nested(s, r);
    }
}

fn nested(s: &Stmt, r: &mut Reporter) {
    match &s.kind {
        StmtKind::Block(b) => block(b, r),
        StmtKind::If { then, other, .. } => {
            nested(then, r);
            if let Some(o) = other {
                nested(o, r);
            }
        }
        StmtKind::Switch { cases, .. } => cases
            .iter()
            .filter_map(|c| c.body.as_ref())
            .for_each(|b| block(b, r)),
        StmtKind::For { body, .. } | StmtKind::ForIn { body, .. } => nested(body, r),
        _ => {}
    }
}

fn table_properties(properties: &[TableProperty], r: &mut Reporter) {
    let mut seen: HashMap<&str, Span> = HashMap::new();
    for p in properties {
        let name = match &p.kind {
            TablePropertyKind::Key(_) => "key",
            TablePropertyKind::Actions(_) => "actions",
            TablePropertyKind::Entries(_) => "entries",
            TablePropertyKind::DefaultAction(_) => "default_action",
            TablePropertyKind::Other { name, .. } => name.name.as_str(),
        };
        match seen.get(name) {
            Some(&first) => r.error_with_note(
                p.span,
                format!("duplicate table property `{name}`"),
                first,
                "previous declaration is here",
            ),
            None => {
                seen.insert(name, p.span);
            }
        }
    }
}
