//! The xdp_model deparser, planned from def-use facts.
//!
//! In place: when no control changes which headers are valid and the
//! deparser emits exactly the extracted headers in their extraction order,
//! the packet keeps its shape and only fields some control assigns are
//! written back, at the offset each header was extracted from (most of
//! them already where they are assigned: see [`super::write_through`]). Rebuild:
//! otherwise the parsed bytes are replaced by the emitted headers,
//! resizing the packet once (`bpf_xdp_adjust_head`; at TC
//! `bpf_skb_change_head` to grow and `bpf_skb_adjust_room` to shrink, which
//! the kernel allows only for IPv4/IPv6 packets: others move their bytes
//! forward and trim the tail, up to 4 KiB).

use super::c::{line, CStmt};
use super::types::{DIRTY, OFFSET, VALID};
use super::Emitter;
use crate::ir::{AggId, Expr, ExprKind, Next, Program, Stmt, Transition, Ty};
use p4bpf_layout::Hook;
use std::collections::BTreeSet;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Plan {
    InPlace,
    Rebuild,
}

/// Def-use facts about the controls and actions.
#[derive(Default)]
pub struct Writes {
    /// Header fields assigned somewhere, by (header type, field index).
    pub fields: BTreeSet<(AggId, usize)>,
    /// Validity or whole headers may change.
    pub reshapes: bool,
    /// Fields also assigned other than by a plain `hdr.h.f = v` (through an
    /// `out` argument, a slice, a stack element): the deparser writes them.
    pub indirect: BTreeSet<(AggId, usize)>,
}

/// The (header type, field) a header field expression names, if any.
fn header_field(e: &Expr) -> Option<(AggId, usize)> {
    match &e.kind {
        ExprKind::Field { agg, field, base } if matches!(base.ty, Ty::Header(_)) => {
            Some((*agg, *field))
        }
        _ => None,
    }
}

/// Whether `e` is a path of struct members from a variable (`hdr.ipv4`),
/// which has one place in the packet once extracted.
pub fn plain_path(mut e: &Expr) -> bool {
    loop {
        match &e.kind {
            ExprKind::Var(_) => return true,
            ExprKind::Field { base, .. } => e = base,
            _ => return false,
        }
    }
}

fn collect(prog: &Program, stmts: &[Stmt], w: &mut Writes) {
    for s in stmts {
        match s {
            Stmt::Assign { lhs, .. } => match (&lhs.kind, &lhs.ty) {
                (ExprKind::Field { agg, field, base }, Ty::Bits { .. } | Ty::Bool)
                    if matches!(base.ty, Ty::Header(_)) =>
                {
                    w.fields.insert((*agg, *field));
                    if !plain_path(base) {
                        w.indirect.insert((*agg, *field));
                    }
                }
                (ExprKind::Slice { base, .. }, _) if header_field(base).is_some() => {
                    w.fields.extend(header_field(base));
                    w.indirect.extend(header_field(base));
                }
                (_, Ty::Bits { .. } | Ty::Bool | Ty::Error) => {}
                _ => w.reshapes = true,
            },
            Stmt::SetValid { .. } | Stmt::StackShift { .. } => w.reshapes = true,
            // `out`/`inout` arguments are written through pointers.
            Stmt::CallAction { action, args } => {
                let params = prog
                    .action(*action)
                    .map(|a| a.params.as_slice())
                    .unwrap_or(&[]);
                for (v, arg) in params.iter().zip(args) {
                    if prog
                        .var(*v)
                        .is_some_and(|v| v.storage == crate::ir::VarStorage::ActionOutParam)
                    {
                        w.indirect.extend(header_field(arg));
                        collect(
                            prog,
                            &[Stmt::Assign {
                                lhs: arg.clone(),
                                rhs: arg.clone(),
                            }],
                            w,
                        );
                    }
                }
            }
            Stmt::If { then, other, .. } => {
                collect(prog, then, w);
                collect(prog, other, w);
            }
            Stmt::SwitchAction { cases, default, .. } => {
                for (_, b) in cases {
                    collect(prog, b, w);
                }
                if let Some(d) = default {
                    collect(prog, d, w);
                }
            }
            Stmt::SwitchValue { cases, default, .. } => {
                for (_, b) in cases {
                    collect(prog, b, w);
                }
                if let Some(d) = default {
                    collect(prog, d, w);
                }
            }
            Stmt::Inline { body, .. } => collect(prog, body, w),
            Stmt::Loop { step, body, .. } => {
                collect(prog, body, w);
                collect(prog, step, w);
            }
            _ => {}
        }
    }
}

fn header_ops(stmts: &[Stmt], extract: bool, out: &mut Vec<String>, e: &Emitter) {
    for s in stmts {
        match s {
            Stmt::Extract { header, .. } if extract => out.push(e.lvalue(header)),
            Stmt::Emit { header } if !extract => out.push(e.lvalue(header)),
            Stmt::If { then, other, .. } => {
                header_ops(then, extract, out, e);
                header_ops(other, extract, out, e);
            }
            // Emits in a switch count too, so the plan sees them.
            Stmt::SwitchValue { cases, default, .. } => {
                for (_, body) in cases {
                    header_ops(body, extract, out, e);
                }
                if let Some(d) = default {
                    header_ops(d, extract, out, e);
                }
            }
            _ => {}
        }
    }
}

/// Headers in the order a walk of the parser from `start` extracts them.
fn extraction_order(prog: &Program, e: &Emitter) -> Vec<String> {
    let mut order = vec![];
    let mut seen = vec![false; prog.parser.states.len()];
    let mut queue: Vec<usize> = prog
        .parser
        .states
        .iter()
        .position(|s| s.name == "start")
        .into_iter()
        .collect();
    while let Some(i) = queue.first().copied() {
        queue.remove(0);
        if seen.get(i).copied().unwrap_or(true) {
            continue;
        }
        if let Some(s) = seen.get_mut(i) {
            *s = true;
        }
        let Some(state) = prog.parser.states.get(i) else {
            continue;
        };
        header_ops(&state.stmts, true, &mut order, e);
        let nexts: Vec<Next> = match &state.transition {
            Transition::Direct(n) => vec![*n],
            Transition::Select { cases, .. } => cases.iter().map(|c| c.next).collect(),
        };
        for n in nexts {
            if let Next::State(s) = n {
                queue.push(s.index());
            }
        }
    }
    order.dedup();
    order
}

pub fn writes(prog: &Program) -> Writes {
    let mut w = Writes::default();
    // A parser may assign header fields too (after extracting them).
    for state in &prog.parser.states {
        collect(prog, &state.stmts, &mut w);
    }
    for c in &prog.controls {
        collect(prog, &c.body, &mut w);
    }
    for a in &prog.actions {
        collect(prog, &a.body, &mut w);
    }
    w
}

impl Emitter<'_> {
    pub fn deparse_plan(&self) -> Plan {
        let Some(deparser) = self.prog.controls.get(1) else {
            return Plan::InPlace;
        };
        let mut emitted = vec![];
        header_ops(&deparser.body, false, &mut emitted, self);
        let extracted = extraction_order(self.prog, self);
        if self.writes.reshapes || emitted != extracted {
            Plan::Rebuild
        } else {
            Plan::InPlace
        }
    }

    /// Code before the deparser's body: the resize, for a rebuild.
    pub fn deparser_prologue(&self) -> Vec<CStmt> {
        if self.plan != Plan::Rebuild {
            return vec![CStmt::Comment(
                "deparser: headers keep their places; write back assigned fields".into(),
            )];
        }
        let Some(deparser) = self.prog.controls.get(1) else {
            return vec![];
        };
        let mut out = vec![
            CStmt::Comment("deparser: replace the parsed headers by the emitted ones".into()),
            line("u32 new_len = 0"),
        ];
        out.extend(self.emitted_length(&deparser.body));
        out.push(line("int delta = (int)offset - (int)new_len"));
        let (resize, refresh) = match self.hook {
            Hook::Xdp => (
                "bpf_xdp_adjust_head(ctx, delta)",
                [
                    "pkt = (u8 *)(long)ctx->data",
                    "pkt_end = (u8 *)(long)ctx->data_end",
                ],
            ),
            // Growing works for any packet; the kernel shrinks only IPv4 and IPv6 ones, so others move their bytes.
            Hook::Tc => {
                self.use_helper(super::helpers::Helper::SkbShrink);
                (
                    "(delta < 0 ? bpf_skb_change_head(skb, -delta, 0) : (bpf_skb_adjust_room(skb, -delta, BPF_ADJ_ROOM_MAC, 0) && p4bpf_skb_shrink(skb, delta)))",
                    ["pkt = (u8 *)(long)skb->data", "pkt_end = (u8 *)(long)skb->data_end"],
                )
            }
        };
        out.push(CStmt::If {
            cond: format!("delta != 0 && {resize}"),
            then: vec![CStmt::Goto("reject".into())],
            other: vec![],
        });
        out.push(line(refresh[0]));
        out.push(line(refresh[1]));
        out.push(line("u32 out = 0"));
        out
    }

    /// `packet.emit(h)`.
    pub fn emit_header(&self, h: &Expr) -> Vec<CStmt> {
        let Ty::Header(agg) = h.ty else { return vec![] };
        let Some(a) = self.prog.agg(agg) else {
            return vec![];
        };
        let bytes = a.wire_bits / 8;
        let place = self.lvalue(h);
        let mut body;
        if self.plan == Plan::InPlace {
            let keep =
                |i: usize| self.writes.fields.contains(&(agg, i)) && !self.written_through(agg, i);
            if !(0..a.fields.len()).any(keep) {
                return vec![];
            }
            body = vec![
                line(format!("u32 at = {place}.{OFFSET} & 0x3fff")),
                CStmt::If {
                    cond: format!("pkt + at + {bytes} > pkt_end"),
                    then: vec![CStmt::Goto("reject".into())],
                    other: vec![],
                },
                line("u8 *hdr_start = pkt + at"),
            ];
            body.extend(self.write_header(a, "hdr_start", &place, keep));
            // Only when a field was assigned on this packet's path: clang
            // then moves the store into that path.
            body = vec![CStmt::If {
                cond: format!("{place}.{DIRTY}"),
                then: body,
                other: vec![],
            }];
        } else {
            body = vec![
                CStmt::If {
                    cond: format!("pkt + out + {bytes} > pkt_end"),
                    then: vec![CStmt::Goto("reject".into())],
                    other: vec![],
                },
                line("u8 *hdr_start = pkt + out"),
            ];
            body.extend(self.write_header(a, "hdr_start", &place, |_| true));
            if let Some(v) = &a.varbit {
                body.extend(self.emit_varbit(v, bytes, &place));
            }
            body.push(line(format!("out += {bytes}")));
        }
        vec![
            CStmt::Comment(format!("emit {}", a.name)),
            CStmt::If {
                cond: format!("{place}.{VALID}"),
                then: body,
                other: vec![],
            },
        ]
    }
}
