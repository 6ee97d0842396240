//! The parser as labelled blocks and gotos: one label per state, a select
//! as an if-chain over its keysets in order (no match rejects), `accept`
//! and `reject` as the labels the entry function defines.

use super::c::{line, CStmt};
use super::parser_loop;
use super::stmt::Ctx;
use super::tables::keyset_test;
use super::Emitter;
use crate::ir::{Expr, ExprKind, Keyset, Next, Parser, Transition};

/// The longest run-time `advance` the parser takes, in bytes: a bound the
/// verifier needs on the packet offset (a longer one is PacketTooShort).
const MAX_ADVANCE_BYTES: u32 = 4096;

/// Bytes a lookahead inside `e` needs in the packet, if it has one.
pub fn has_lookahead(e: &Expr) -> Option<u32> {
    let mut most = None;
    crate::midend::visit::each_expr(e, |x| {
        if let ExprKind::Lookahead { check_bytes, .. } = x.kind {
            most = most.max(Some(check_bytes));
        }
    });
    most
}

impl Emitter<'_> {
    /// `advance(bits)` with `bits` known at run time: whole bytes only
    /// (else ParserInvalidArgument), inside the packet (else PacketTooShort).
    pub fn advance_by(&self, bits: &Expr) -> CStmt {
        let code = |name: &str, fallback: usize| {
            self.prog
                .errors
                .iter()
                .position(|e| e == name)
                .unwrap_or(fallback)
        };
        let fail = |name: &str, fallback: usize| {
            vec![
                line(format!(
                    "parser_error = {} /* {name} */",
                    code(name, fallback)
                )),
                CStmt::Goto("reject".into()),
            ]
        };
        CStmt::Block(vec![
            line(format!("u64 advance_bits = (u64){}", self.expr(bits))),
            CStmt::If {
                cond: "advance_bits % 8 != 0".into(),
                then: fail("ParserInvalidArgument", 6),
                other: vec![],
            },
            line("u64 advance_bytes = advance_bits / 8"),
            CStmt::If {
                cond: format!(
                    "advance_bytes > {MAX_ADVANCE_BYTES} || pkt + offset + advance_bytes > pkt_end"
                ),
                then: fail("PacketTooShort", 1),
                other: vec![],
            },
            line("offset += advance_bytes"),
        ])
    }

    pub fn state_label(&self, parser: &Parser, next: Next) -> String {
        match next {
            Next::Accept => "accept".into(),
            Next::Reject => "reject".into(),
            Next::State(s) => parser
                .states
                .get(s.index())
                .map(|s| format!("state_{}", s.name))
                .unwrap_or_else(|| "reject".into()),
        }
    }

    pub fn parser_code(&self, parser: &Parser) -> Vec<CStmt> {
        let start = parser
            .states
            .iter()
            .position(|s| s.name == "start")
            .unwrap_or(0);
        let loops = parser_loop::unbounded_loops(parser);
        let mut out = super::value_set_live::read_halves(parser);
        if !loops.is_empty() {
            let cursor = self.cursor_var(parser);
            out.push(line(format!(
                "struct {} {cursor} = {{}}",
                self.cursor_type()
            )));
            out.extend(super::value_set_live::halves_into_cursor(parser, &cursor));
        }
        out.push(CStmt::Goto(self.state_label(
            parser,
            Next::State(crate::ir::StateId(start as u32)),
        )));
        for (i, s) in parser.states.iter().enumerate() {
            out.push(CStmt::Label(format!("state_{}", s.name)));
            match loops.iter().position(|l| l.contains(&i)) {
                Some(n) => out.extend(self.enter_loop(parser, i, n)),
                None => out.extend(self.state_code(parser, s)),
            }
        }
        for (n, states) in loops.iter().enumerate() {
            out.extend(self.run_loop(parser, n, states));
            let text = self.loop_function(parser, n, states);
            self.parser_loops.borrow_mut().push(text);
        }
        out
    }

    /// One state's statements and transition, ending in a `goto`.
    pub fn state_code(&self, parser: &Parser, s: &crate::ir::State) -> Vec<CStmt> {
        let cx = Ctx {
            in_action: false,
            end: "reject".into(),
            exit: "reject".into(),
        };
        let mut out = self.trace_state(&parser.name, &s.name);
        out.push(CStmt::Comment(format!(
            "parser {} state {} ({})",
            parser.name, s.name, s.origin
        )));
        out.extend(self.fuse_before_state(s));
        let mut body = self.stmts(&s.stmts, &cx);
        match &s.transition {
            Transition::Direct(next) => body.push(CStmt::Goto(self.state_label(parser, *next))),
            Transition::Select { keys, cases } => {
                if let Some(bytes) = keys.iter().filter_map(has_lookahead).max() {
                    body.push(self.too_short_check(&bytes.to_string()));
                }
                let key_values: Vec<String> = keys.iter().map(|k| self.key_bits(k)).collect();
                let no_match = self
                    .prog
                    .errors
                    .iter()
                    .position(|e| e == "NoMatch")
                    .unwrap_or(2);
                let mut chain = vec![
                    line(format!("parser_error = {no_match} /* NoMatch */")),
                    CStmt::Goto("reject".into()),
                ];
                for case in cases.iter().rev() {
                    let conds: Vec<String> = match case.keysets.as_slice() {
                        [Keyset::ValueSet(id)] if keys.len() > 1 => self
                            .value_set_tuple_test(*id, &key_values)
                            .into_iter()
                            .collect(),
                        _ => case
                            .keysets
                            .iter()
                            .zip(keys.iter().zip(&key_values))
                            .filter_map(|(ks, (k, v))| {
                                keyset_test(v, ks, k.ty.width().unwrap_or(32), k, self)
                            })
                            .collect(),
                    };
                    let goto = vec![CStmt::Goto(self.state_label(parser, case.next))];
                    chain = if conds.is_empty() {
                        goto
                    } else {
                        vec![CStmt::If {
                            cond: conds.join(" && "),
                            then: goto,
                            other: chain,
                        }]
                    };
                }
                body.extend(chain);
            }
        }
        let what = format!("parser state `{}.{}`", parser.name, s.name);
        out.extend(super::source_map::from_p4(&s.origin, what, body));
        out
    }
}
