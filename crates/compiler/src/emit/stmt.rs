//! Statements of parsers, controls and actions to C, and the action
//! functions. Controls end at a label (`return` jumps there); actions are
//! `static __always_inline` functions taking the state and their
//! parameters, and `exit` inside one sets a flag the caller checks.

use super::c::{line, CStmt};
use super::expr::{is_narrow_signed, wrap};
use super::helpers::Helper;
use super::types::{DIRTY, OFFSET, VALID};
use super::Emitter;
use crate::cstruct::{c_ident, Scalar};
use crate::ir::{Action, ActionId, AggId, Expr, ExprKind, Stmt, Ty, VarStorage};

/// `p4bpf_stack_next(i, size)`: `i` if it is below `size`, else `size`.
/// A parser loop through `extract(s.next)` ends where the verifier sees it
/// only if the index it compares is the one it steps: clang would compare
/// a zero-extended copy, and keep the stepped register unbounded. In asm,
/// the compare, the access and the next turn's index are one register.
pub const STACK_NEXT_HELPER: &str =
    "/* `i` if it is below `size`, else `size` (a full stack), in the register
 * the verifier bounds: a parser loop over a stack ends where it sees it. */
#ifdef __bpf__
#define p4bpf_stack_next(i, size) ({ \\
    u64 p4bpf_next = (i); \\
    asm(\"if %[x] < %[n] goto +1; %[x] = %[n]\" : [x] \"+r\"(p4bpf_next) : [n] \"i\"(size)); \\
    p4bpf_next; })
#else
#define p4bpf_stack_next(i, size) ((u64)(i) < (size) ? (u64)(i) : (u64)(size))
#endif
";

/// Where the statements being emitted live.
pub struct Ctx {
    /// In an action: its body returns, unless `end`/`exit` name where to
    /// go instead (an inlined body, a loop's round).
    pub in_action: bool,
    /// Label ending the current control (`return`).
    pub end: String,
    /// Label ending the outermost control (`exit`).
    pub exit: String,
}

fn may_exit(stmts: &[Stmt]) -> bool {
    crate::midend::visit::any_stmt(stmts, |s| matches!(s, Stmt::Exit))
}

impl Emitter<'_> {
    pub fn action_exits(&self, action: ActionId) -> bool {
        self.prog.action(action).is_some_and(|a| may_exit(&a.body))
    }

    /// `static __always_inline void action_x(struct s *st, u32 p)`.
    pub fn action_function(&self, action: &Action) -> String {
        let mut params = vec![format!("struct {} *st", self.state_type())];
        params.extend(self.action_context_param());
        if self.actions_take_packet() {
            params.extend(["u8 *pkt".to_string(), "u8 *pkt_end".to_string()]);
        }
        for v in &action.params {
            if let Some(var) = self.prog.var(*v) {
                let name = if var.storage == VarStorage::ActionOutParam {
                    format!("*{}", var.c_name)
                } else {
                    var.c_name.clone()
                };
                params.push(self.declare(&var.ty, &name));
            }
        }
        params.extend(self.missed_key_params(action));
        let cx = Ctx {
            in_action: true,
            end: String::new(),
            exit: String::new(),
        };
        let mut out = format!(
            "/* action {} ({}) */\nstatic __always_inline void {}({})\n{{\n",
            action.name,
            action.origin,
            action.c_name,
            params.join(", ")
        );
        let mut body = self.sign_extended_params(action);
        body.extend(super::source_map::from_p4(
            &action.origin,
            format!("action `{}`", action.name),
            self.stmts(&action.body, &cx),
        ));
        super::c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        out
    }

    /// Entries and constant arguments hold a signed parameter narrower than
    /// its C holder as its bare bits: spread the sign bit first.
    fn sign_extended_params(&self, action: &Action) -> Vec<CStmt> {
        action
            .params
            .iter()
            .filter_map(|v| self.prog.var(*v))
            .filter(|var| var.storage == VarStorage::ActionParam && is_narrow_signed(&var.ty))
            .map(|var| line(format!("{} = {}", var.c_name, wrap(&var.ty, &var.c_name))))
            .collect()
    }

    /// A call of `action`, then the check for `exit` if it can exit.
    pub fn call_action(&self, action: ActionId, args: &[String], cx: &Ctx) -> Vec<CStmt> {
        let Some(a) = self.prog.action(action) else {
            return vec![];
        };
        *self.action_calls.borrow_mut().entry(action).or_default() += 1;
        let mut all = vec!["st".to_string()];
        if self.prog.actions_take_context() {
            all.push(self.context_name().to_string());
        }
        if self.actions_take_packet() {
            all.extend(["pkt".to_string(), "pkt_end".to_string()]);
        }
        all.extend(args.iter().cloned());
        all.extend(self.missed_key_args(action));
        let mut out = vec![line(format!("{}({})", a.c_name, all.join(", ")))];
        if self.action_exits(action) {
            out.push(if cx.in_action && cx.exit.is_empty() {
                CStmt::If {
                    cond: "st->p4bpf_exit".into(),
                    then: vec![CStmt::Return(String::new())],
                    other: vec![],
                }
            } else {
                CStmt::If {
                    cond: "st->p4bpf_exit".into(),
                    then: vec![CStmt::Goto(cx.exit.clone())],
                    other: vec![],
                }
            });
        }
        out
    }

    pub fn stmts(&self, body: &[Stmt], cx: &Ctx) -> Vec<CStmt> {
        let mut out = vec![];
        for s in body {
            self.stmt(s, cx, &mut out);
        }
        out
    }

    /// A write through a stack element at a run-time index happens only
    /// when the index is in range (P4: out-of-range writes do nothing).
    fn stmt(&self, s: &Stmt, cx: &Ctx, out: &mut Vec<CStmt>) {
        let target = match s {
            Stmt::Assign { lhs, .. } => Some(lhs),
            Stmt::SetValid { header, .. } => Some(header),
            _ => None,
        };
        match target.and_then(|t| self.index_guard(t)) {
            Some(cond) => {
                let mut then = vec![];
                self.plain_stmt(s, cx, &mut then);
                out.push(CStmt::If {
                    cond,
                    then,
                    other: vec![],
                });
            }
            None => self.plain_stmt(s, cx, out),
        }
    }

    pub(super) fn plain_stmt(&self, s: &Stmt, cx: &Ctx, out: &mut Vec<CStmt>) {
        match s {
            Stmt::Assign { lhs, rhs } => {
                if let Some(bytes) = super::parser::has_lookahead(rhs) {
                    out.push(self.too_short_check(&bytes.to_string()));
                }
                out.extend(self.assign(lhs, rhs));
                out.extend(self.write_through(lhs));
                out.extend(self.mark_dirty(lhs));
            }
            Stmt::If { cond, then, other } => out.push(CStmt::If {
                cond: self.expr(cond),
                then: self.stmts(then, cx),
                other: self.stmts(other, cx),
            }),
            Stmt::Apply {
                table,
                hit,
                action_run,
            } => out.extend(self.apply_table(*table, *hit, *action_run, cx)),
            Stmt::SwitchAction {
                table,
                action_run,
                cases,
                default,
            } => {
                let Some(t) = self.prog.table(*table) else {
                    return;
                };
                let arms = cases
                    .iter()
                    .map(|(actions, body)| {
                        (
                            actions
                                .iter()
                                .filter_map(|a| t.action_code(*a))
                                .map(|c| c.to_string())
                                .collect(),
                            self.stmts(body, cx),
                        )
                    })
                    .filter(|(labels, _): &(Vec<String>, _)| !labels.is_empty())
                    .collect();
                let default = default
                    .as_ref()
                    .map(|d| self.stmts(d, cx))
                    .unwrap_or_default();
                let run = self
                    .prog
                    .var(*action_run)
                    .map(|v| format!("st->{}", v.c_name))
                    .unwrap_or_default();
                out.push(CStmt::Switch {
                    scrutinee: run,
                    cases: arms,
                    default,
                });
            }
            Stmt::SwitchValue {
                value,
                cases,
                default,
            } => {
                let width = value.ty.width().unwrap_or(32);
                let arms = cases
                    .iter()
                    .map(|(labels, body)| {
                        (
                            labels
                                .iter()
                                .map(|v| super::expr::literal(v, width))
                                .collect(),
                            self.stmts(body, cx),
                        )
                    })
                    .collect();
                let default = default
                    .as_ref()
                    .map(|d| self.stmts(d, cx))
                    .unwrap_or_default();
                out.push(CStmt::Switch {
                    scrutinee: self.expr(value),
                    cases: arms,
                    default,
                });
            }
            Stmt::CallAction { action, args } => {
                let params = self
                    .prog
                    .action(*action)
                    .map(|a| a.params.clone())
                    .unwrap_or_default();
                let by_pointer = |i: usize| {
                    params
                        .get(i)
                        .and_then(|v| self.prog.var(*v))
                        .is_some_and(|v| v.storage == VarStorage::ActionOutParam)
                };
                // `out` arguments are written through pointers.
                let written: Vec<&Expr> = args
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| by_pointer(*i))
                    .map(|(_, a)| a)
                    .collect();
                let args: Vec<String> = args
                    .iter()
                    .enumerate()
                    .map(|(i, a)| {
                        if by_pointer(i) {
                            format!("&{}", self.lvalue(a))
                        } else {
                            self.expr(a)
                        }
                    })
                    .collect();
                // Marked before the call: an `exit` in the action skips what follows.
                for lhs in written {
                    out.extend(self.mark_dirty(lhs));
                }
                out.extend(self.call_action(*action, &args, cx));
            }
            Stmt::SetValid { header, valid } => {
                // A union holds at most one valid member.
                if let ExprKind::Field { base, agg, field } = &header.kind {
                    if let Some(union) = self
                        .prog
                        .agg(*agg)
                        .filter(|a| a.kind == crate::ir::AggKind::Union && *valid)
                    {
                        for (i, f) in union.fields.iter().enumerate() {
                            if i != *field {
                                out.push(line(format!(
                                    "{}.{}.{VALID} = 0",
                                    self.lvalue(base),
                                    c_ident(&f.name)
                                )));
                            }
                        }
                    }
                }
                if *valid && at_fixed_place(header) {
                    out.push(self.zero_if_invalid(header));
                }
                out.push(line(format!(
                    "{}.{VALID} = {}",
                    self.lvalue(header),
                    u8::from(*valid)
                )));
            }
            Stmt::StackShift { stack, count } => out.extend(self.stack_shift(stack, *count)),
            // An action's own body returns; an inlined body jumps to its end.
            Stmt::Return if cx.in_action && cx.end.is_empty() => {
                out.push(CStmt::Return(String::new()))
            }
            Stmt::Exit if cx.in_action && cx.exit.is_empty() => {
                out.push(line("st->p4bpf_exit = 1"));
                out.push(CStmt::Return(String::new()));
            }
            Stmt::Return => out.push(CStmt::Goto(cx.end.clone())),
            Stmt::Exit => out.push(CStmt::Goto(cx.exit.clone())),
            Stmt::Inline { name, body } => out.extend(self.inline_body(name, body, cx)),
            Stmt::ExitOnward => out.extend(self.exit_onward(cx)),
            Stmt::Atomic {
                body,
                calls_helpers,
            } => self.atomic_block(body, *calls_helpers, cx, out),
            Stmt::Extract {
                header,
                varbit_bits,
            } => {
                let real = self.extract(header, varbit_bits.as_ref());
                out.extend(match varbit_bits {
                    None => self.fused_extract(header, real),
                    Some(_) => real,
                })
            }
            Stmt::Loop {
                label,
                cond,
                step,
                body,
            } => {
                if super::control_loop::runs_in_rounds(cond, body) {
                    if let Some(rounds) = self.loop_in_rounds(label, cond, step, body, cx) {
                        out.extend(rounds);
                        return;
                    }
                }
                // Labels rather than C's break/continue: the body may hold a C switch.
                let mut round = vec![CStmt::If {
                    cond: format!("!{}", self.expr(cond)),
                    then: vec![CStmt::Goto(format!("{label}_end"))],
                    other: vec![],
                }];
                round.push(CStmt::Block(self.stmts(body, cx)));
                round.push(CStmt::Label(format!("{label}_next")));
                round.extend(self.stmts(step, cx));
                out.push(CStmt::For {
                    head: ";;".into(),
                    body: round,
                });
                out.push(CStmt::Label(format!("{label}_end")));
            }
            Stmt::Break { label } => out.push(CStmt::Goto(format!("{label}_end"))),
            Stmt::Continue { label } => out.push(CStmt::Goto(format!("{label}_next"))),
            Stmt::Advance { bits } => {
                let bytes = bits / 8;
                out.push(self.too_short_check(&format!("{bytes}")));
                out.push(line(format!("offset += {bytes}")));
            }
            Stmt::AdvanceBy { bits } => out.push(self.advance_by(bits)),
            Stmt::Verify { cond, error } => {
                if let Some(bytes) = super::parser::has_lookahead(cond) {
                    out.push(self.too_short_check(&bytes.to_string()));
                }
                out.push(CStmt::If {
                    cond: format!("!{}", self.expr(cond)),
                    then: vec![
                        line(format!(
                            "parser_error = {error} /* {} */",
                            self.prog
                                .errors
                                .get(*error as usize)
                                .map(String::as_str)
                                .unwrap_or("")
                        )),
                        CStmt::Goto("reject".into()),
                    ],
                    other: vec![],
                });
            }
            Stmt::Emit { header } => out.extend(self.emit_header(header)),
            Stmt::Eval(e) => out.push(line(format!("(void){}", self.expr(e)))),
        }
    }

    /// After a write to `lhs`: when it is a header field (or a slice of
    /// one), mark the header dirty for the in-place deparser.
    /// A header made valid from invalid starts with zeroed fields (as in
    /// BMv2 and PSA-eBPF), not with what an earlier packet left in the
    /// reused state; fields this packet assigned before keep their values,
    /// as BMv2 keeps them. Its fields come first in its C struct, so one
    /// `memset` up to the validity flag clears them and keeps the rest.
    fn zero_if_invalid(&self, header: &Expr) -> CStmt {
        let place = self.lvalue(header);
        CStmt::If {
            cond: format!("!{place}.{VALID} && !{place}.{DIRTY}"),
            then: vec![line(format!(
                "__builtin_memset(&{place}, 0, __builtin_offsetof(__typeof__({place}), {VALID}))"
            ))],
            other: vec![],
        }
    }

    fn mark_dirty(&self, lhs: &Expr) -> Vec<CStmt> {
        let mut target = match &lhs.kind {
            ExprKind::Slice { base, .. } => base.as_ref(),
            _ => lhs,
        };
        // A member of a struct inside a header dirties the header.
        while let ExprKind::Field { base, .. } = &target.kind {
            if !matches!(base.ty, Ty::Struct(_)) || !matches!(base.kind, ExprKind::Field { .. }) {
                break;
            }
            target = base;
        }
        match &target.kind {
            // A field written into the packet where it is assigned needs
            // nothing from the deparser.
            ExprKind::Field { agg, field, .. } if self.written_through(*agg, *field) => vec![],
            ExprKind::Field { base, .. } if matches!(base.ty, Ty::Header(_)) => {
                vec![line(format!("{}.{DIRTY} = 1", self.lvalue(base)))]
            }
            _ => vec![],
        }
    }

    fn assign(&self, lhs: &Expr, rhs: &Expr) -> Vec<CStmt> {
        if let Some(read) = self.composite_register_read(lhs, rhs) {
            return vec![line(read)];
        }
        if let ExprKind::Slice { base, hi, lo } = &lhs.kind {
            // `x[h1:l1][h2:l2]` is `x[l1 + h2 : l1 + l2]`.
            if let ExprKind::Slice {
                base: inner,
                lo: inner_lo,
                ..
            } = &base.kind
            {
                let flat = Expr {
                    kind: ExprKind::Slice {
                        base: inner.clone(),
                        hi: hi + inner_lo,
                        lo: lo + inner_lo,
                    },
                    ty: lhs.ty.clone(),
                };
                return self.assign(&flat, rhs);
            }
            let mask = format!("((u64){} << {lo})", super::expr::mask_literal(hi - lo + 1));
            let place = self.lvalue(base);
            let merged = format!(
                "({place} & ~{mask}) | (((u64){} << {lo}) & {mask})",
                self.expr(rhs)
            );
            return vec![line(format!(
                "{place} = {}",
                super::expr::wrap(&base.ty, &merged)
            ))];
        }
        let place = self.lvalue(lhs);
        match (&lhs.ty, &rhs.kind) {
            (ty, ExprKind::Wide { op, args }) => {
                vec![line(self.wide_assign(&place, ty, *op, args))]
            }
            (Ty::Bits { width, .. }, ExprKind::Lookahead { bit_offset, .. }) if *width > 64 => {
                let ahead = crate::ir::AggField {
                    name: String::new(),
                    ty: lhs.ty.clone(),
                    bit_offset: *bit_offset,
                };
                super::wide::load_wide_field("(pkt + offset)", &ahead, &place)
            }
            (Ty::Bits { width, .. }, ExprKind::Int(v)) if *width > 64 => {
                let n = width.div_ceil(8);
                let bytes = v.to_bytes_be();
                (0..n)
                    .map(|i| {
                        let from_end = (n - 1 - i) as usize;
                        let b = bytes
                            .len()
                            .checked_sub(from_end + 1)
                            .and_then(|j| bytes.get(j))
                            .copied()
                            .unwrap_or(0);
                        line(format!("{place}[{i}] = {b}"))
                    })
                    .collect()
            }
            (Ty::Bits { width, .. }, _)
                if matches!(Scalar::for_width(*width), Scalar::Bytes(_)) =>
            {
                vec![line(format!(
                    "__builtin_memcpy({place}, {}, {})",
                    self.lvalue(rhs),
                    width.div_ceil(8)
                ))]
            }
            _ => vec![line(format!("{place} = {}", self.expr(rhs)))],
        }
    }

    fn stack_shift(&self, stack: &Expr, count: i64) -> Vec<CStmt> {
        let Ty::Stack { size, .. } = stack.ty else {
            return vec![];
        };
        let s = self.lvalue(stack);
        let n = count.unsigned_abs().min(u64::from(size)) as u32;
        let mut out = vec![];
        if count > 0 {
            for i in (n..size).rev() {
                out.push(line(format!("{s}.elem[{i}] = {s}.elem[{}]", i - n)));
            }
            for i in 0..n {
                out.push(line(format!("{s}.elem[{i}].{VALID} = 0")));
            }
            out.push(line(format!(
                "{s}.next = {s}.next + {n} > {size} ? {size} : {s}.next + {n}"
            )));
        } else {
            for i in 0..size.saturating_sub(n) {
                out.push(line(format!("{s}.elem[{i}] = {s}.elem[{}]", i + n)));
            }
            for i in size.saturating_sub(n)..size {
                out.push(line(format!("{s}.elem[{i}].{VALID} = 0")));
            }
            out.push(line(format!(
                "{s}.next = {s}.next >= {n} ? {s}.next - {n} : 0"
            )));
        }
        out
    }

    /// The extract of a header no code reads a field of: only its length
    /// is checked, on the packet's length as a number. A pointer check
    /// would prove a range no access needs, and parser paths that end
    /// after different such headers would reach the controls with
    /// different proven ranges, verified once each.
    fn extract_unread(&self, header: &Expr, agg: AggId, a: &crate::ir::Aggregate) -> Vec<CStmt> {
        let place = self.lvalue(header);
        let bytes = a.wire_bits / 8;
        vec![
            CStmt::Comment(format!(
                "extract {} ({bytes} bytes): no field is read, only the length counts",
                a.name
            )),
            self.reject_too_short_if(format!("offset + {bytes} > (u32)(pkt_end - pkt)")),
            line(format!("{place}.{VALID} = 1")),
            line(format!(
                "{place}.{OFFSET} = {}{}",
                self.recorded_offset(header),
                self.parsed_mark(agg)
            )),
            line(format!("offset += {bytes}")),
        ]
    }

    /// `if (too short) { error; goto reject; }` for `bytes` more bytes.
    pub fn too_short_check(&self, bytes: &str) -> CStmt {
        self.reject_too_short_if(format!("pkt + offset + {bytes} > pkt_end"))
    }

    /// `if (cond) { parser_error = PacketTooShort; goto reject; }`.
    fn reject_too_short_if(&self, cond: String) -> CStmt {
        let code = self
            .prog
            .errors
            .iter()
            .position(|e| e == "PacketTooShort")
            .unwrap_or(1);
        CStmt::If {
            cond,
            then: vec![
                line(format!("parser_error = {code} /* PacketTooShort */")),
                CStmt::Goto("reject".into()),
            ],
            other: vec![],
        }
    }

    /// `extract(s.next)`: fills the next element, or fails with StackOutOfBounds.
    /// `stack.next` extracted, or with `member`, the header `member` of a
    /// stack of unions' next element (its other members made invalid).
    fn extract_next(
        &self,
        stack: &Expr,
        agg: AggId,
        a: &crate::ir::Aggregate,
        member: Option<(AggId, usize)>,
        varbit_bits: Option<&Expr>,
    ) -> Vec<CStmt> {
        let Ty::Stack { size, .. } = stack.ty else {
            return vec![];
        };
        let bytes = a.wire_bits / 8;
        let s = self.lvalue(stack);
        let union = member.and_then(|(u, field)| Some((self.prog.agg(u)?, field)));
        let full = self
            .prog
            .errors
            .iter()
            .position(|e| e == "StackOutOfBounds")
            .unwrap_or(3);
        let element = format!("{s}.elem[element]");
        self.use_helper(Helper::StackNext);
        let place = match union {
            Some((u, field)) => format!("{element}.{}", c_ident(&u.fields[field].name)),
            None => element.clone(),
        };
        let mut body = vec![
            line(format!(
                "u64 stack_index = p4bpf_stack_next({s}.next, {size})"
            )),
            CStmt::If {
                cond: format!("stack_index >= {size}"),
                then: vec![
                    line(format!("parser_error = {full} /* StackOutOfBounds */")),
                    CStmt::Goto("reject".into()),
                ],
                other: vec![],
            },
            self.too_short_check(&bytes.to_string()),
            // Clamped again where the verifier sees it: clang may compute
            // the element's address before the check, in another register.
            line(format!(
                "u64 element = {}",
                self.bounded_index("stack_index", size)
            )),
            line("u8 *hdr_start = pkt + offset"),
        ];
        body.extend(self.read_header(agg, a, "hdr_start", &place));
        if let Some((u, field)) = union {
            let others = u.fields.iter().enumerate().filter(|(i, _)| *i != field);
            for (_, other) in others {
                body.push(line(format!(
                    "{element}.{}.{VALID} = 0",
                    c_ident(&other.name)
                )));
            }
        }
        body.push(line(format!("{place}.{VALID} = 1")));
        body.push(line(format!("{place}.{OFFSET} = offset")));
        if let Some(bits) = varbit_bits {
            body.extend(self.extract_varbit(a, &place, bits));
        }
        body.push(line(format!("{s}.next = stack_index + 1")));
        vec![
            CStmt::Comment(format!("extract {}.next ({bytes} bytes)", a.name)),
            CStmt::Block(body),
            line(format!("offset += {bytes}")),
        ]
    }

    /// One bounds check for the header, then its fields (and its varbit
    /// bytes, `varbit_bits` of them).
    fn extract(&self, header: &Expr, varbit_bits: Option<&Expr>) -> Vec<CStmt> {
        let Ty::Header(agg) = header.ty else {
            return vec![];
        };
        let Some(a) = self.prog.agg(agg) else {
            return vec![];
        };
        let bytes = a.wire_bits / 8;
        match &header.kind {
            ExprKind::StackNext(stack) => {
                return self.extract_next(stack, agg, a, None, varbit_bits)
            }
            ExprKind::Field {
                base,
                agg: union,
                field,
            } => {
                if let ExprKind::StackNext(stack) = &base.kind {
                    let member = Some((*union, *field));
                    return self.extract_next(stack, agg, a, member, varbit_bits);
                }
            }
            _ => {}
        }
        let place = self.lvalue(header);
        if varbit_bits.is_none() && self.reads.none_of(agg, a.fields.len()) {
            return self.extract_unread(header, agg, a);
        }
        let mut body = vec![line("u8 *hdr_start = pkt + offset")];
        body.extend(self.read_header(agg, a, "hdr_start", &place));
        body.push(line(format!("{place}.{VALID} = 1")));
        body.push(line(format!(
            "{place}.{OFFSET} = {}{}",
            self.recorded_offset(header),
            self.parsed_mark(agg)
        )));
        let mut out = vec![
            CStmt::Comment(format!("extract {} ({bytes} bytes)", a.name)),
            self.too_short_check(&bytes.to_string()),
            CStmt::Block(body),
        ];
        if let Some(bits) = varbit_bits {
            out.extend(self.extract_varbit(a, &place, bits));
        }
        out.push(line(format!("offset += {bytes}")));
        out
    }
}

/// Whether `e` names its place without a run-time stack index: a
/// `memset` through a computed element's address reaches the verifier
/// as arithmetic on a pointer, which it refuses.
fn at_fixed_place(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Field { base, .. } => at_fixed_place(base),
        ExprKind::Index { base, index } => {
            matches!(index.kind, ExprKind::Int(_)) && at_fixed_place(base)
        }
        ExprKind::StackNext(_) | ExprKind::StackLast(_) => false,
        _ => true,
    }
}
