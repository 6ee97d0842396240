//! Parsers: a state graph whose states hold simple operations (extract,
//! advance, verify, assignments) and end in a direct transition or a
//! select over keysets (values, masks, ranges, value sets, default).

use super::{Binding, Lowerer};
use crate::ir::{self, Keyset, Next, SelectCase, StateId, Transition};
use num_bigint::BigUint;
use p4bpf_front::ast::{self, DeclKind, ExprKind as A};
use std::collections::{HashMap, HashSet};

/// The states of one top-level parser as they are built: its declared
/// states first (their ids are their positions), then those copied in by
/// sub-parser calls and the states that continue after such calls.
#[derive(Default)]
pub(super) struct StateGraph {
    states: Vec<Option<ir::State>>,
    names: HashSet<String>,
}

impl StateGraph {
    /// A new state's id, and a name for it (a C label) no other state has.
    pub(super) fn reserve(&mut self, wanted: &str) -> (StateId, String) {
        let mut name = wanted.to_string();
        let mut n = 1;
        while !self.names.insert(name.clone()) {
            n += 1;
            name = format!("{wanted}_{n}");
        }
        self.states.push(None);
        (StateId(self.states.len() as u32 - 1), name)
    }

    fn fill(&mut self, id: StateId, state: ir::State) {
        if let Some(slot) = self.states.get_mut(id.index()) {
            *slot = Some(state);
        }
    }

    /// The states in id order (a slot stays empty only after an error).
    fn finish(self) -> Vec<ir::State> {
        self.states.into_iter().flatten().collect()
    }
}

impl<'a, 'u> Lowerer<'a, 'u> {
    pub(super) fn parser(&mut self, decl: &'a ast::Decl, shared: &[Option<ir::VarId>]) {
        let DeclKind::Parser {
            sig,
            ctor_params,
            locals,
            states,
        } = &decl.kind
        else {
            return;
        };
        self.prefix = sig.name.name.clone();
        self.scopes.push(HashMap::new());
        self.bind_params(&sig.params, shared, true);
        self.bind_block_ctor_args(ctor_params, &sig.name);
        for local in locals {
            self.local_decl(local);
        }
        let mut graph = StateGraph::default();
        let declared = self.declare_states(states, "", &mut graph);
        if !states.iter().any(|s| s.name.name == "start") {
            self.diags.error(
                decl.span,
                format!("parser `{}` has no `start` state", sig.name.name),
            );
        }
        let inits = std::mem::take(&mut self.local_inits);
        self.lower_states(states, &declared, inits, &mut graph);
        self.scopes.pop();
        self.prog.parsers.push(ir::Parser {
            name: sig.name.name.clone(),
            states: graph.finish(),
        });
    }

    /// Reserves a state for each of `states` (named `{prefix}_{state}`
    /// when `prefix` is given) and binds their names in the current scope.
    pub(super) fn declare_states(
        &mut self,
        states: &[ast::ParserState],
        prefix: &str,
        graph: &mut StateGraph,
    ) -> Vec<(StateId, String)> {
        states
            .iter()
            .map(|s| {
                let wanted = match prefix {
                    "" => s.name.name.clone(),
                    prefix => format!("{prefix}_{}", s.name.name),
                };
                let (id, name) = graph.reserve(&wanted);
                self.bind(&s.name.name, Binding::State(id));
                (id, name)
            })
            .collect()
    }

    /// Lowers declared states into their reserved slots; `inits` (the
    /// parser's locals starting with their initializers) open `start`.
    pub(super) fn lower_states(
        &mut self,
        states: &'a [ast::ParserState],
        declared: &[(StateId, String)],
        mut inits: Vec<ir::Stmt>,
        graph: &mut StateGraph,
    ) {
        for (s, (id, name)) in states.iter().zip(declared) {
            let opening = if s.name.name == "start" {
                std::mem::take(&mut inits)
            } else {
                vec![]
            };
            self.state(s, *id, name.clone(), opening, graph);
        }
    }

    /// One state; a sub-parser call in it ends the state there, with a
    /// jump into the sub-parser's copied states, whose `accept` leads to a
    /// new state holding the rest of the statements and the transition.
    fn state(
        &mut self,
        s: &'a ast::ParserState,
        mut id: StateId,
        mut name: String,
        mut stmts: Vec<ir::Stmt>,
        graph: &mut StateGraph,
    ) {
        let origin = self.diags.origin(s.span);
        self.scopes.push(HashMap::new());
        for st in &s.stmts {
            let Some((callee, args, call)) = self.sub_parser_call(st) else {
                self.stmt(st, &mut stmts);
                continue;
            };
            let (after, after_name) =
                graph.reserve(&format!("{name}_after_{}", callee.instance.name));
            let Some((entry, copy_out)) =
                self.inline_sub_parser(&callee, args, call, after, &mut stmts, graph)
            else {
                break;
            };
            graph.fill(
                id,
                ir::State {
                    name: std::mem::replace(&mut name, after_name),
                    origin: origin.clone(),
                    stmts: std::mem::replace(&mut stmts, copy_out),
                    transition: Transition::Direct(Next::State(entry)),
                },
            );
            id = after;
        }
        // A state without a transition statement rejects (P4_16 §13.5).
        let transition = match &s.transition {
            Some(t) => self
                .transition(t)
                .unwrap_or(Transition::Direct(Next::Reject)),
            None => Transition::Direct(Next::Reject),
        };
        self.scopes.pop();
        graph.fill(
            id,
            ir::State {
                name,
                origin,
                stmts,
                transition,
            },
        );
    }

    fn next(&mut self, path: &ast::Path) -> Option<Next> {
        match path.name.name.as_str() {
            // Inside a sub-parser, `accept` is bound to the caller's state
            // that continues after the call.
            "accept" => match self.lookup("accept") {
                Some(Binding::State(s)) => Some(Next::State(s)),
                _ => Some(Next::Accept),
            },
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
                    // A wide key is compared as bytes in place: it must be
                    // a field or variable, not an operation's result.
                    let wide_place =
                        key.ty.width().is_some_and(|w| w > 64) && self.pending.is_empty();
                    pre.append(&mut self.pending);
                    if key.ty.width().is_none_or(|w| w > 64 && !wide_place) {
                        self.diags.error(
                            e.span,
                            "select keys must be bit strings; one wider than 64 bits must be a field or variable",
                        );
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
                    if let Some(keyset) = self.tuple_value_set(&case.keyset, &keys) {
                        let next = self.next(&case.state)?;
                        out.push(SelectCase {
                            keysets: vec![keyset],
                            next,
                        });
                        continue;
                    }
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
                        let keyset = self.keyset(item, width)?;
                        if width > 64 && matches!(keyset, Keyset::Range { .. }) {
                            self.diags.error(
                                item.span,
                                "a select key wider than 64 bits takes values, masks, value sets or default, not ranges",
                            );
                            return None;
                        }
                        keysets.push(keyset);
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
                Some(Binding::ValueSet(v)) => Some(self.single_key_value_set(v, width, e)),
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
