//! PSA's egress pipeline, where it leaves the packet as it is. p4bpf runs
//! PSA's ingress pipeline; the egress one runs only in the shape that
//! cannot change a unicast packet: a parser that only extracts headers,
//! an empty egress control, and a deparser that emits, in an order every
//! parse path agrees with, the headers the parser extracts. Such an
//! egress re-emits what it parsed, so it is not run. Any other egress is
//! refused as not supported yet.

use super::Lowerer;
use crate::ir::{Control, Expr, ExprKind, Next, Parser, Stmt, Transition, VarId};
use p4bpf_front::ast;
use std::collections::HashMap;

impl Lowerer<'_, '_> {
    /// Checks that the egress blocks (the last parser and the last two
    /// controls lowered) leave the packet as it is, then drops them from
    /// the program. `decls` are the egress parser, control and deparser.
    pub(super) fn psa_egress(&mut self, decls: &[&ast::Decl]) {
        let (Some(parser), Some(control), Some(deparser)) = (
            self.prog.parsers.last(),
            self.prog.controls.iter().rev().nth(1),
            self.prog.controls.last(),
        ) else {
            return;
        };
        let problem = if !control.body.is_empty() {
            Some(format!(
                "the egress control `{}` does something",
                control.name
            ))
        } else {
            re_emits(parser, deparser).err()
        };
        if let Some(problem) = problem {
            let span = decls.first().map(|d| d.span).unwrap_or_default();
            self.diags.error(
                span,
                format!(
                    "PSA's egress pipeline is not supported yet: p4bpf runs PSA's ingress pipeline, \
                     and an egress pipeline only where it leaves the packet as it is ({problem})"
                ),
            );
            return;
        }
        self.prog.parsers.pop();
        let kept = self.prog.controls.len().saturating_sub(2);
        self.prog.controls.truncate(kept);
    }
}

/// Ok when `deparser` writes back exactly what `parser` read: the parser
/// only extracts fixed-size headers, the deparser only emits (itself or
/// through controls it applies), and along every parse path the extracted
/// headers come in the deparser's order.
fn re_emits(parser: &Parser, deparser: &Control) -> Result<(), String> {
    let mut order = vec![];
    let mut copies = HashMap::new();
    if !emits_only(&deparser.body, &mut copies, &mut order) {
        return Err(format!(
            "the egress deparser `{}` does more than emit",
            deparser.name
        ));
    }
    let mut ranks: Vec<Vec<usize>> = vec![];
    for state in &parser.states {
        let mut rank = vec![];
        for stmt in &state.stmts {
            let key = match stmt {
                Stmt::Extract {
                    header,
                    varbit_bits: None,
                } => place(header, &HashMap::new()),
                _ => {
                    return Err(format!(
                        "the egress parser `{}` does more than extract headers in state `{}`",
                        parser.name, state.name
                    ))
                }
            };
            match order.iter().position(|o| *o == key) {
                Some(i) => rank.push(i),
                None => {
                    return Err(format!(
                        "the egress deparser does not emit a header parsed in state `{}`",
                        state.name
                    ))
                }
            }
        }
        ranks.push(rank);
    }
    let start = parser.states.iter().position(|s| s.name == "start");
    let mut reached = vec![None; parser.states.len()];
    match start {
        Some(start) if in_order(parser, &ranks, start, None, &mut reached) => Ok(()),
        _ => Err(format!(
            "the egress parser `{}` extracts headers in another order than its deparser emits them",
            parser.name
        )),
    }
}

/// Whether every path from `state`, after a header of rank `last`, extracts
/// headers in increasing rank. `reached` holds the highest `last` a state
/// was checked with: a state seen again with no higher one is done. A
/// loop that extracts raises `last` each round, so it ends failing.
fn in_order(
    parser: &Parser,
    ranks: &[Vec<usize>],
    state: usize,
    last: Option<usize>,
    reached: &mut Vec<Option<Option<usize>>>,
) -> bool {
    let (Some(slot), Some(node)) = (reached.get_mut(state), parser.states.get(state)) else {
        return false;
    };
    if slot.is_some_and(|seen| seen >= last) {
        return true;
    }
    *slot = Some(last);
    let mut last = last;
    for &rank in ranks.get(state).map(Vec::as_slice).unwrap_or_default() {
        if last.is_some_and(|l| l >= rank) {
            return false;
        }
        last = Some(rank);
    }
    let nexts: Vec<Next> = match &node.transition {
        Transition::Direct(next) => vec![*next],
        Transition::Select { cases, .. } => cases.iter().map(|c| c.next).collect(),
    };
    nexts.into_iter().all(|next| match next {
        Next::State(s) => in_order(parser, ranks, s.index(), last, reached),
        Next::Accept | Next::Reject => true,
    })
}

/// Appends to `order` the headers `body` emits, when it does nothing else
/// but pass them to the controls it applies: a copy into an applied
/// control's parameter is recorded in `copies`, and its copy back ignored.
fn emits_only<'e>(
    body: &'e [Stmt],
    copies: &mut HashMap<VarId, &'e Expr>,
    order: &mut Vec<String>,
) -> bool {
    body.iter().all(|stmt| match stmt {
        Stmt::Emit { header } => {
            order.push(place(header, copies));
            true
        }
        Stmt::Inline { body, .. } => emits_only(body, copies, order),
        Stmt::Assign { lhs, rhs } => match (&lhs.kind, &rhs.kind) {
            (ExprKind::Var(param), _) if !copies.contains_key(param) && !is_copy(rhs, copies) => {
                copies.insert(*param, rhs);
                true
            }
            (ExprKind::Var(_), ExprKind::Var(param)) => copies.contains_key(param),
            _ => false,
        },
        _ => false,
    })
}

/// Whether `e` is a parameter an applied control was given a copy in.
fn is_copy(e: &Expr, copies: &HashMap<VarId, &Expr>) -> bool {
    matches!(e.kind, ExprKind::Var(v) if copies.contains_key(&v))
}

/// A header place as a comparable name, parameters of applied controls
/// replaced by what they were given.
fn place(e: &Expr, copies: &HashMap<VarId, &Expr>) -> String {
    match &e.kind {
        ExprKind::Field { base, agg, field } => {
            format!("{}.{}.{field}", place(base, copies), agg.index())
        }
        ExprKind::Var(v) => match copies.get(v) {
            Some(given) => place(given, copies),
            None => format!("var{}", v.index()),
        },
        other => format!("{other:?}"),
    }
}
