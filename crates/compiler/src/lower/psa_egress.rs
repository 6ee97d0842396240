//! PSA's egress pipeline. After the ingress deparser has written the
//! packet and ingress has not dropped it (the checkpoint), the egress
//! parser parses those bytes again, the egress control runs, and the
//! egress deparser writes the packet that leaves. Two controls the
//! architecture owns frame them: `psa_egress_inputs` gives the egress
//! blocks their input metadata (the port ingress chose, the unicast
//! packet path, the class of service) before the egress parser, and
//! `psa_egress_verdict` carries `egress_ostd.drop` into the verdict
//! after the egress control. Bridged metadata needs nothing: the ingress
//! deparser's `normal_meta` and the egress parser's are one variable.
//!
//! An egress that cannot change the packet (an empty egress control, a
//! parser that only extracts, a deparser that emits those headers in an
//! order every parse path agrees with) is dropped from the program
//! instead: it would re-emit what it parsed, so running it costs a
//! second parse for nothing.

use super::Lowerer;
use crate::arch::Place;
use crate::ir::{BinOp, Control, Expr, ExprKind, Next, Parser, Step, Stmt, Transition, VarId};
use p4bpf_front::ast;
use p4bpf_front::source::Span;
use std::collections::HashMap;

/// `PSA_PacketPath_t.NORMAL_UNICAST`, the path of a packet ingress sent
/// to one port.
const NORMAL_UNICAST: u32 = 1;

/// Egress input places that take the value of an ingress output.
const FROM_INGRESS: [(Place, Place); 4] = [
    (
        Place::field("egress_parser_istd", "egress_port"),
        Place::field("ostd", "egress_port"),
    ),
    (
        Place::field("egress_istd", "egress_port"),
        Place::field("ostd", "egress_port"),
    ),
    (
        Place::field("egress_istd", "class_of_service"),
        Place::field("ostd", "class_of_service"),
    ),
    (
        Place::field("egress_deparser_istd", "egress_port"),
        Place::field("ostd", "egress_port"),
    ),
];

/// Egress input places holding the packet path.
const PACKET_PATHS: [Place; 2] = [
    Place::field("egress_parser_istd", "packet_path"),
    Place::field("egress_istd", "packet_path"),
];

impl Lowerer<'_, '_> {
    /// Keeps the egress blocks (the last parser and the last two
    /// controls lowered, run after the checkpoint) framed by the
    /// architecture's controls, or drops them when they cannot change the
    /// packet. `decls` are the egress parser, control and deparser.
    pub(super) fn psa_egress(&mut self, decls: &[&ast::Decl]) {
        let (Some(parser), Some(control), Some(deparser)) = (
            self.prog.parsers.last(),
            self.prog.controls.iter().rev().nth(1),
            self.prog.controls.last(),
        ) else {
            return;
        };
        let span = decls.first().map(|d| d.span).unwrap_or_default();
        let Some(checkpoint) = self
            .prog
            .pipeline
            .iter()
            .position(|s| *s == Step::Checkpoint)
        else {
            return;
        };
        // A clone's egress runs on the packet as ingress received it.
        let clones = self.prog.intrinsics.clone_i2e.is_some();
        if control.body.is_empty() && re_emits(parser, deparser).is_ok() && !clones {
            self.prog.parsers.pop();
            let parsers = self.prog.parsers.len();
            self.prog
                .intrinsics
                .parser_errors
                .retain(|(p, _)| *p < parsers);
            let kept = self.prog.controls.len().saturating_sub(2);
            self.prog.controls.truncate(kept);
            // Multicast copies the packet at the checkpoint.
            let multicast = self.prog.intrinsics.replication.is_some();
            self.prog
                .pipeline
                .truncate(checkpoint + usize::from(multicast));
            return;
        }
        let inputs = self.egress_inputs(span);
        let verdict = self.egress_verdict(span);
        let origin = self.diags.origin(span);
        let (
            Some(Step::ParseKeepingError(parse)),
            Some(Step::Control(egress)),
            Some(Step::Deparse(deparse)),
        ) = (
            self.prog.pipeline.get(checkpoint + 1).copied(),
            self.prog.pipeline.get(checkpoint + 2).copied(),
            self.prog.pipeline.get(checkpoint + 3).copied(),
        )
        else {
            return;
        };
        let first = self.prog.controls.len();
        for (name, body) in [
            ("psa_egress_inputs", inputs),
            ("psa_egress_verdict", verdict),
        ] {
            self.prog.controls.push(Control {
                name: name.into(),
                origin: origin.clone(),
                body,
            });
        }
        self.prog.pipeline.truncate(checkpoint + 1);
        self.prog.pipeline.extend([
            Step::Control(first),
            Step::ParseKeepingError(parse),
            Step::Control(egress),
            Step::Control(first + 1),
            Step::Deparse(deparse),
        ]);
    }

    /// The egress blocks' input metadata, from what ingress decided. A
    /// copy (multicast, clone) comes with its port, instance and packet
    /// path set (`emit::replication`); a packet without a path is unicast.
    fn egress_inputs(&mut self, span: Span) -> Vec<Stmt> {
        let mut out = vec![];
        for (to, from) in FROM_INGRESS {
            if let (Some(lhs), Some(rhs)) =
                (self.arch_place(&to, span), self.arch_place(&from, span))
            {
                out.push(Stmt::Assign { lhs, rhs });
            }
        }
        let [parser_path, path] = PACKET_PATHS;
        let Some(path) = self.arch_place(&path, span) else {
            return out;
        };
        let zero = Expr::int(0u32, path.ty.clone());
        out.push(Stmt::If {
            cond: Expr::binary(BinOp::Eq, path.clone(), zero),
            then: vec![Stmt::Assign {
                rhs: Expr::int(NORMAL_UNICAST, path.ty.clone()),
                lhs: path.clone(),
            }],
            other: vec![],
        });
        out.extend(self.psa_clone_e2e_fresh(span));
        if let Some(lhs) = self.arch_place(&parser_path, span) {
            out.push(Stmt::Assign { lhs, rhs: path });
        }
        out
    }

    /// `ostd.drop = egress_ostd.drop`: ingress did not drop (the
    /// checkpoint passed), so egress decides.
    fn egress_verdict(&mut self, span: Span) -> Vec<Stmt> {
        let to = self.arch_place(&Place::field("ostd", "drop"), span);
        let from = self.arch_place(&Place::field("egress_ostd", "drop"), span);
        match (to, from) {
            (Some(lhs), Some(rhs)) => vec![Stmt::Assign { lhs, rhs }],
            _ => vec![],
        }
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
