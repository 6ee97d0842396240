//! Parser loops the verifier cannot bound, run one state per call of a
//! global function.
//!
//! A parser cycle that extracts no header-stack element (a TLV walk, a
//! `select` on `lookahead` that extracts headers in packet order) has no
//! bound the verifier can see: each way around it leaves a different
//! parse offset, so inline the paths multiply at every turn until the
//! verifier gives up ("too complex"). Here the cycle's states become one
//! global function (`PROG_PARSER_loopN(ctx, st, cursor)`) that runs the
//! state the cursor names and leaves the next one in it. A global function
//! is verified once, whatever its callers, and after a call its caller
//! knows nothing more of the state: the calling loop is walked once per
//! turn, not once per path. The loop visits at most
//! [`MAX_LOOP_STATES`] states, then rejects with `ParserTimeout`, as
//! P4_16 lets a target do. Cycles through a stack's `next` along one path
//! stay inline: the stack's size bounds them and the verifier follows,
//! unless a state of the cycle copies varbit bytes (see [`copies_varbit`]).

use super::c::{self, line, CStmt};
use super::Emitter;
use crate::ir::{Expr, ExprKind, Next, Parser, Stmt, Transition};

/// States one packet's parse may visit inside one loop.
const MAX_LOOP_STATES: u32 = 1024;

/// The parse offset a loop state may start from: header offsets are kept
/// in 14 bits (see `p4bpf_offset`), and the verifier needs a bound.
const MAX_LOOP_OFFSET: u32 = 0x3fff;

/// The parser's cycles that need a loop function: strongly connected sets
/// of states (a state with a transition to itself counts) extracting no
/// header-stack element, or branching or copying varbit bytes inside the
/// cycle, each in state order.
pub fn unbounded_loops(parser: &Parser) -> Vec<Vec<usize>> {
    strongly_connected(parser)
        .into_iter()
        .filter(|set| {
            let cyclic = set.len() > 1
                || set
                    .first()
                    .is_some_and(|s| successors(parser, *s).contains(s));
            let through_stack = set.iter().any(|s| {
                parser
                    .states
                    .get(*s)
                    .is_some_and(|st| st.stmts.iter().any(extracts_stack_next))
            });
            cyclic && (!through_stack || branches_within(parser, set) || copies_varbit(parser, set))
        })
        .collect()
}

/// Whether a state of the cycle `set` extracts a varbit field: its bytes
/// are copied by a helper writing into the parser's state, after which
/// clang reads the stack's `next` again from the map value, so the
/// verifier no longer sees the stack's size bound the turns.
fn copies_varbit(parser: &Parser, set: &[usize]) -> bool {
    set.iter().any(|s| {
        parser.states.get(*s).is_some_and(|st| {
            st.stmts.iter().any(|x| {
                matches!(
                    x,
                    Stmt::Extract {
                        varbit_bits: Some(_),
                        ..
                    }
                )
            })
        })
    })
}

/// Whether some state of the cycle `set` may go two ways inside it: then
/// paths around it differ (TCP options of several sizes), and the stack's
/// size bounds the turns, not the paths, which multiply at each turn.
fn branches_within(parser: &Parser, set: &[usize]) -> bool {
    set.iter().any(|s| {
        let mut inside = successors(parser, *s);
        inside.retain(|n| set.contains(n));
        inside.sort_unstable();
        inside.dedup();
        inside.len() > 1
    })
}

fn extracts_stack_next(s: &Stmt) -> bool {
    let Stmt::Extract { header, .. } = s else {
        return false;
    };
    let mut found = false;
    crate::midend::visit::each_expr(header, |x: &Expr| {
        found |= matches!(x.kind, ExprKind::StackNext(_));
    });
    found
}

/// The states `state` may go to next.
fn successors(parser: &Parser, state: usize) -> Vec<usize> {
    let Some(s) = parser.states.get(state) else {
        return vec![];
    };
    let nexts: Vec<Next> = match &s.transition {
        Transition::Direct(n) => vec![*n],
        Transition::Select { cases, .. } => cases.iter().map(|c| c.next).collect(),
    };
    nexts
        .into_iter()
        .filter_map(|n| match n {
            Next::State(id) => Some(id.index()),
            Next::Accept | Next::Reject => None,
        })
        .collect()
}

/// Tarjan's strongly connected components of the state graph.
fn strongly_connected(parser: &Parser) -> Vec<Vec<usize>> {
    struct Search<'p> {
        parser: &'p Parser,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next_index: usize,
        sets: Vec<Vec<usize>>,
    }
    impl Search<'_> {
        fn visit(&mut self, v: usize) {
            self.index[v] = Some(self.next_index);
            self.low[v] = self.next_index;
            self.next_index += 1;
            self.stack.push(v);
            self.on_stack[v] = true;
            for w in successors(self.parser, v) {
                match self.index.get(w).copied().flatten() {
                    None if w < self.index.len() => {
                        self.visit(w);
                        self.low[v] = self.low[v].min(self.low[w]);
                    }
                    Some(wi) if self.on_stack[w] => self.low[v] = self.low[v].min(wi),
                    _ => {}
                }
            }
            if Some(self.low[v]) == self.index[v] {
                let mut set = vec![];
                while let Some(w) = self.stack.pop() {
                    self.on_stack[w] = false;
                    set.push(w);
                    if w == v {
                        break;
                    }
                }
                set.sort_unstable();
                self.sets.push(set);
            }
        }
    }
    let n = parser.states.len();
    let mut search = Search {
        parser,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: vec![],
        next_index: 0,
        sets: vec![],
    };
    for v in 0..n {
        if search.index[v].is_none() {
            search.visit(v);
        }
    }
    search.sets
}

impl Emitter<'_> {
    pub fn cursor_type(&self) -> String {
        format!("{}_parse_cursor", self.c_prefix())
    }

    fn loop_function_name(&self, parser: &Parser, n: usize) -> String {
        format!(
            "{}_{}_loop{n}",
            self.c_prefix(),
            super::c_identifier(&parser.name)
        )
    }

    /// The entry function's cursor of `parser`'s loops (one per parser,
    /// as a program may run several).
    pub fn cursor_var(&self, parser: &Parser) -> String {
        format!("{}_cursor", super::c_identifier(&parser.name))
    }

    fn loop_label(&self, parser: &Parser, n: usize) -> String {
        format!("{}_loop{n}", super::c_identifier(&parser.name))
    }

    /// Cursor codes past the state indices.
    fn accept_code(parser: &Parser) -> usize {
        parser.states.len()
    }

    /// In the entry function, for a state of loop `n`: note it in the
    /// cursor and run the loop.
    pub fn enter_loop(&self, parser: &Parser, state: usize, n: usize) -> Vec<CStmt> {
        vec![
            line(format!("{}.state = {state}", self.cursor_var(parser))),
            CStmt::Goto(self.loop_label(parser, n)),
        ]
    }

    /// In the entry function, loop `n` of `parser`: its function called
    /// until it leaves the loop, then on to where it went.
    pub fn run_loop(&self, parser: &Parser, n: usize, states: &[usize]) -> Vec<CStmt> {
        let timeout = self
            .prog
            .errors
            .iter()
            .position(|e| e == "ParserTimeout")
            .unwrap_or(5);
        let cursor = self.cursor_var(parser);
        let call = format!(
            "more = {}({}, st, &{cursor})",
            self.loop_function_name(parser, n),
            self.context_name()
        );
        // Only where the loop's transitions lead: the verifier follows every case.
        let mut targets: Vec<usize> = states
            .iter()
            .flat_map(|s| successors(parser, *s))
            .filter(|t| !states.contains(t))
            .collect();
        targets.sort_unstable();
        targets.dedup();
        let mut exits: Vec<(Vec<String>, Vec<CStmt>)> = targets
            .iter()
            .filter_map(|t| parser.states.get(*t).map(|s| (*t, s)))
            .map(|(t, s)| {
                (
                    vec![t.to_string()],
                    vec![CStmt::Goto(format!("state_{}", s.name))],
                )
            })
            .collect();
        exits.push((
            vec![Self::accept_code(parser).to_string()],
            vec![CStmt::Goto("accept".into())],
        ));
        vec![
            CStmt::Label(self.loop_label(parser, n)),
            CStmt::Comment(format!(
                "a loop the verifier cannot bound: one state per call, at most {MAX_LOOP_STATES}"
            )),
            line(format!("{cursor}.offset = offset")),
            line(format!("{cursor}.error = parser_error")),
            CStmt::Block(vec![
                line("u32 more = 1"),
                CStmt::For {
                    head: format!("u32 visits = 0; more && visits < {MAX_LOOP_STATES}; visits++"),
                    body: vec![line(call)],
                },
                CStmt::If {
                    cond: "more".into(),
                    then: vec![
                        line(format!("parser_error = {timeout} /* ParserTimeout */")),
                        CStmt::Goto("reject".into()),
                    ],
                    other: vec![],
                },
            ]),
            line(format!("offset = {cursor}.offset")),
            line(format!("parser_error = {cursor}.error")),
            CStmt::If {
                cond: format!("offset > {MAX_LOOP_OFFSET}"),
                then: vec![CStmt::Goto("reject".into())],
                other: vec![],
            },
            CStmt::Switch {
                scrutinee: format!("{cursor}.state"),
                cases: exits,
                default: vec![CStmt::Goto("reject".into())],
            },
        ]
    }

    /// The cursor type, once for a program with loops.
    pub fn cursor_definition(&self) -> String {
        format!(
            "/* Where a parser loop function goes on from, and where it left. */\nstruct {} {{\n    u32 state; /* a state's index; past them: accept, reject */\n    u32 offset;\n    u32 error;\n{}}};\n\n",
            self.cursor_type(),
            super::value_set_live::cursor_fields(self.prog.value_sets.len())
        )
    }

    /// Loop `n`'s global function: the state the cursor names, its
    /// transition noted in the cursor; 1 while the next state is in the
    /// loop.
    pub fn loop_function(&self, parser: &Parser, n: usize, states: &[usize]) -> String {
        let accept = Self::accept_code(parser);
        let packet_too_short = self
            .prog
            .errors
            .iter()
            .position(|e| e == "PacketTooShort")
            .unwrap_or(1);
        let ctx = self.context_name();
        let mut body = vec![
            CStmt::Comment("the verifier passes pointer arguments as maybe null".into()),
            CStmt::If {
                cond: "!st || !cursor".into(),
                then: vec![CStmt::Return("0".into())],
                other: vec![],
            },
            line(format!("u8 *pkt = (u8 *)(long){ctx}->data")),
            line(format!("u8 *pkt_end = (u8 *)(long){ctx}->data_end")),
            line("u32 offset = cursor->offset"),
            line("u8 parser_error = 0"),
        ];
        body.extend(super::value_set_live::halves_from_cursor(parser, "cursor"));
        body.extend([
            CStmt::If {
                cond: format!("offset > {MAX_LOOP_OFFSET}"),
                then: vec![
                    line(format!(
                        "parser_error = {packet_too_short} /* PacketTooShort */"
                    )),
                    CStmt::Goto("reject".into()),
                ],
                other: vec![],
            },
            CStmt::Switch {
                scrutinee: "cursor->state".into(),
                cases: states
                    .iter()
                    .map(|s| (vec![s.to_string()], vec![CStmt::Goto(format!("run_{s}"))]))
                    .collect(),
                default: vec![CStmt::Goto("reject".into())],
            },
        ]);
        for s in states {
            if let Some(state) = parser.states.get(*s) {
                body.push(CStmt::Label(format!("run_{s}")));
                body.extend(self.state_code(parser, state));
            }
        }
        // Where the state's code goes: back to the caller with the next state.
        for (i, s) in parser.states.iter().enumerate() {
            body.push(CStmt::Label(format!("state_{}", s.name)));
            body.push(line(format!("cursor->state = {i}")));
            body.push(CStmt::Goto(
                if states.contains(&i) { "more" } else { "left" }.into(),
            ));
        }
        body.extend([
            CStmt::Label("accept".into()),
            line(format!("cursor->state = {accept}")),
            CStmt::Goto("left".into()),
            CStmt::Label("reject".into()),
            line(format!("cursor->state = {}", accept + 1)),
            line("cursor->error = parser_error"),
            CStmt::Return("0".into()),
            CStmt::Label("more".into()),
            line("cursor->offset = offset"),
            CStmt::Return("1".into()),
            CStmt::Label("left".into()),
            line("cursor->offset = offset"),
            CStmt::Return("0".into()),
        ]);
        let names: Vec<&str> = states
            .iter()
            .filter_map(|s| parser.states.get(*s).map(|st| st.name.as_str()))
            .collect();
        let mut out = format!(
            "/* parser {}, the loop through {}: a global function, verified once */\n\
             __attribute__((noinline)) int {}({}, struct {} *st, struct {} *cursor)\n{{\n",
            parser.name,
            names.join(", "),
            self.loop_function_name(parser, n),
            self.target.context_param(),
            self.state_type(),
            self.cursor_type()
        );
        c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{SelectCase, State, StateId, Ty, VarId};

    fn state(name: &str, nexts: &[Next]) -> State {
        State {
            name: name.into(),
            origin: String::new(),
            stmts: vec![],
            transition: Transition::Select {
                keys: vec![],
                cases: nexts
                    .iter()
                    .map(|n| SelectCase {
                        keysets: vec![],
                        next: *n,
                    })
                    .collect(),
            },
        }
    }

    #[test]
    fn finds_cycles_and_self_loops_but_not_straight_paths() {
        let s = |i: u32| Next::State(StateId(i));
        // start -> a <-> b -> accept; c -> c; d -> accept
        let parser = Parser {
            name: "p".into(),
            states: vec![
                state("start", &[s(1), s(3), s(4)]),
                state("a", &[s(2)]),
                state("b", &[s(1), Next::Accept]),
                state("c", &[s(3), Next::Reject]),
                state("d", &[Next::Accept]),
            ],
        };
        let mut loops = unbounded_loops(&parser);
        loops.sort();
        assert_eq!(loops, vec![vec![1, 2], vec![3]]);
    }

    /// `state` extracting `stack.next`, with varbit bytes or without.
    fn extracting_next(name: &str, nexts: &[Next], varbit: bool) -> State {
        let stack = Expr {
            kind: ExprKind::Var(VarId(0)),
            ty: Ty::Void,
        };
        let header = Expr {
            kind: ExprKind::StackNext(Box::new(stack)),
            ty: Ty::Void,
        };
        let bits = Expr::int(16u32, Ty::bits(32));
        State {
            stmts: vec![Stmt::Extract {
                header,
                varbit_bits: varbit.then_some(bits),
            }],
            ..state(name, nexts)
        }
    }

    #[test]
    fn a_stack_cycle_copying_varbit_bytes_needs_a_loop_function() {
        let s = |i: u32| Next::State(StateId(i));
        // start -> select <-> ext -> accept, ext extracting `stack.next`.
        for (varbit, loops) in [(false, vec![]), (true, vec![vec![1, 2]])] {
            let parser = Parser {
                name: "p".into(),
                states: vec![
                    state("start", &[s(1)]),
                    state("select", &[s(2), Next::Accept]),
                    extracting_next("ext", &[s(1)], varbit),
                ],
            };
            assert_eq!(unbounded_loops(&parser), loops, "varbit: {varbit}");
        }
    }

    #[test]
    fn a_parser_without_cycles_has_no_loops() {
        let parser = Parser {
            name: "p".into(),
            states: vec![
                state("start", &[Next::State(StateId(1)), Next::Accept]),
                state("b", &[Next::Accept]),
            ],
        };
        assert!(unbounded_loops(&parser).is_empty());
    }
}
