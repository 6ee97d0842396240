//! Parsers: a state graph whose states hold simple operations (extract,
//! advance, verify, assignments) and end in a direct transition or a
//! select over keysets (values, masks, ranges, value sets, default).

use super::{Binding, Lowerer};
use crate::ir::{self, Keyset, Next, SelectCase, StateId, Transition};
use num_bigint::BigUint;
use p4bpf_front::ast::{self, DeclKind, ExprKind as A};
use std::collections::HashMap;

impl<'a, 'u> Lowerer<'a, 'u> {
    pub(super) fn parser(&mut self, decl: &'a ast::Decl, shared: &[Option<ir::VarId>]) {
        let DeclKind::Parser {
            sig,
            locals,
            states,
            ..
        } = &decl.kind
        else {
            return;
        };
        self.prefix = sig.name.name.clone();
        self.scopes.push(HashMap::new());
        self.bind_params(&sig.params, shared, true);
        for local in locals {
            self.local_decl(local);
        }
        for (i, s) in states.iter().enumerate() {
            self.bind(&s.name.name, Binding::State(StateId(i as u32)));
        }
        if !states.iter().any(|s| s.name.name == "start") {
            self.diags.error(
                decl.span,
                format!("parser `{}` has no `start` state", sig.name.name),
            );
        }
        let mut inits = std::mem::take(&mut self.local_inits);
        let mut lowered = vec![];
        for s in states {
            let mut stmts = self.block(&s.stmts);
            if s.name.name == "start" {
                // Locals start with their initializers when parsing starts.
                inits.append(&mut stmts);
                stmts = std::mem::take(&mut inits);
            }
            let transition = match &s.transition {
                Some(t) => self
                    .transition(t)
                    .unwrap_or(Transition::Direct(Next::Reject)),
                None => {
                    self.diags
                        .error(s.span, format!("state `{}` has no transition", s.name.name));
                    Transition::Direct(Next::Reject)
                }
            };
            lowered.push(ir::State {
                name: s.name.name.clone(),
                origin: self.diags.origin(s.span),
                stmts,
                transition,
            });
        }
        self.scopes.pop();
        self.prog.parsers.push(ir::Parser {
            name: sig.name.name.clone(),
            states: lowered,
        });
    }

    fn next(&mut self, path: &ast::Path) -> Option<Next> {
        match path.name.name.as_str() {
            "accept" => Some(Next::Accept),
            "reject" => Some(Next::Reject),
            name => match self.lookup(name) {
                Some(Binding::State(s)) => Some(Next::State(s)),
                _ => {
                    self.diags
                        .error(path.span, format!("unknown parser state `{name}`"));
                    None
                }
            },
        }
    }

    fn transition(&mut self, t: &'a ast::Transition) -> Option<Transition> {
        match t {
            ast::Transition::Direct(p) => Some(Transition::Direct(self.next(p)?)),
            ast::Transition::Select { exprs, cases, .. } => {
                let mut keys = vec![];
                let mut pre = vec![];
                for e in exprs {
                    let key = self.expr(e)?;
                    pre.append(&mut self.pending);
                    if key.ty.width().is_none_or(|w| w > 64) {
                        self.diags
                            .error(e.span, "select keys must be bit strings of at most 64 bits");
                        return None;
                    }
                    keys.push(key);
                }
                if !pre.is_empty() {
                    self.diags
                        .error(t_span(t), "tables cannot be applied in a parser");
                    return None;
                }
                let mut out = vec![];
                for case in cases {
                    let items: Vec<&'a ast::Expr> = match &case.keyset.kind {
                        A::List(items) if keys.len() > 1 => items.iter().collect(),
                        _ => vec![&case.keyset],
                    };
                    if items.len() != keys.len()
                        && !(items.len() == 1
                            && matches!(
                                items.first().map(|e| &e.kind),
                                Some(A::Default | A::DontCare)
                            ))
                    {
                        self.diags
                            .error(case.keyset.span, format!("expected {} keysets", keys.len()));
                        continue;
                    }
                    let mut keysets = vec![];
                    for (i, item) in items.iter().enumerate() {
                        let width = keys.get(i).and_then(|k| k.ty.width()).unwrap_or(64);
                        keysets.push(self.keyset(item, width)?);
                    }
                    let next = self.next(&case.state)?;
                    out.push(SelectCase { keysets, next });
                }
                Some(Transition::Select { keys, cases: out })
            }
        }
    }

    /// One keyset of a select case or a table entry, for a key of `width` bits.
    pub(super) fn keyset(&mut self, e: &'a ast::Expr, width: u32) -> Option<Keyset> {
        match &e.kind {
            A::Default | A::DontCare => Some(Keyset::Default),
            A::Mask { value, mask } => Some(Keyset::Mask {
                value: self.keyset_bits(value, width)?,
                mask: self.keyset_bits(mask, width)?,
            }),
            A::Range { lo, hi } => Some(Keyset::Range {
                lo: self.keyset_bits(lo, width)?,
                hi: self.keyset_bits(hi, width)?,
            }),
            A::Path(p) => match self.lookup(&p.name.name) {
                Some(Binding::ValueSet(v)) => Some(Keyset::ValueSet(v)),
                _ => Some(Keyset::Value(self.keyset_bits(e, width)?)),
            },
            _ => Some(Keyset::Value(self.keyset_bits(e, width)?)),
        }
    }

    /// The checker's value of a keyset part, as `width` bits.
    fn keyset_bits(&mut self, e: &ast::Expr, width: u32) -> Option<BigUint> {
        let bits = self
            .env
            .value(e)
            .and_then(|v| self.env.scalar_bits(v, width));
        if bits.is_none() {
            self.diags
                .error(e.span, "keyset values must be compile-time constants");
        }
        bits
    }
}

fn t_span(t: &ast::Transition) -> p4bpf_front::source::Span {
    match t {
        ast::Transition::Select { span, .. } => *span,
        ast::Transition::Direct(p) => p.span,
    }
}
