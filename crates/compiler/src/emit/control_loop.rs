//! P4 loops the verifier cannot walk inline, run one round per call of a
//! `bpf_loop` callback.
//!
//! Inline, the verifier follows a loop round by round with its counter
//! known: a run-time bound multiplies its paths by the rounds, nested
//! loops by the rounds of each (255 x 255 for two `bit<8>` counters: "the
//! sequence of 8193 jumps is too complex"), and a loop that may never end
//! (`i <= n` for a `bit<8>` `i` and `n` = 255) is refused. A callback is
//! verified once, whatever the round. Loops that compare with a constant
//! and hold no other loop stay inline, where they cost no call.
//!
//! The round reads everything through the loop's context: the state
//! pointer, the program's context (the packet pointers are read again from
//! it) and, in an action, the packet pointers and the parameters the loop
//! uses. P4 locals live in the state. `break` ends the callback with 1,
//! `continue` runs the step; `return` and `exit` end it with 1 and say so
//! in `left`, which the caller then acts on.

use super::c::{self, line, CStmt};
use super::stmt::Ctx;
use super::Emitter;
use crate::ir::{BinOp, Expr, ExprKind, Stmt, VarId, VarStorage};
use crate::midend::visit::{self, Descend, Visitor};

/// The rounds a loop run by `bpf_loop` may take. P4 leaves a loop that
/// never ends undefined; here it stops after this many.
const MAX_ROUNDS: u32 = 1 << 16;

/// `left` after a round that ran a `return` or an `exit`.
const LEFT_BY_RETURN: u8 = 1;
const LEFT_BY_EXIT: u8 = 2;

/// Whether the loop `cond`/`body` runs under `bpf_loop`: its condition
/// compares with no constant, or it holds another loop; never a loop that
/// extracts or emits (its parser or deparser locals stay in the caller).
pub fn runs_in_rounds(cond: &Expr, body: &[Stmt]) -> bool {
    let packet_io = visit::any_stmt(body, |s| {
        matches!(s, Stmt::Extract { .. } | Stmt::Emit { .. })
    });
    let nested = visit::any_stmt(body, |s| matches!(s, Stmt::Loop { .. }));
    !packet_io && (nested || !compares_with_constant(cond))
}

fn compares_with_constant(cond: &Expr) -> bool {
    let ExprKind::Binary { op, lhs, rhs } = &cond.kind else {
        return false;
    };
    let comparison = matches!(
        op,
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
    );
    let constant = |e: &Expr| matches!(e.kind, ExprKind::Int(_));
    comparison && (constant(lhs) || constant(rhs))
}

/// Whether `body` holds a statement like `stmt` (a `break` of the same
/// loop).
fn holds(body: &[Stmt], stmt: &Stmt) -> bool {
    visit::any_stmt(body, |s| match (s, stmt) {
        (Stmt::Break { label: a }, Stmt::Break { label: b }) => a == b,
        _ => std::mem::discriminant(s) == std::mem::discriminant(stmt),
    })
}

/// The action parameters an expression of the loop reads, in first use.
fn params_used(emitter: &Emitter, cond: &Expr, step: &[Stmt], body: &[Stmt]) -> Vec<VarId> {
    struct Params<'e, 'p>(&'e Emitter<'p>, Vec<VarId>);
    impl Visitor for Params<'_, '_> {
        fn expr(&mut self, e: &Expr) -> Descend {
            if let ExprKind::Var(id) = e.kind {
                let param = self.0.prog.var(id).is_some_and(|v| {
                    matches!(
                        v.storage,
                        VarStorage::ActionParam | VarStorage::ActionOutParam
                    )
                });
                if param && !self.1.contains(&id) {
                    self.1.push(id);
                }
            }
            Descend::Yes
        }
    }
    let mut params = Params(emitter, vec![]);
    visit::walk_expr(&mut params, cond);
    visit::walk_stmts(&mut params, step);
    visit::walk_stmts(&mut params, body);
    params.1
}

/// One field of a loop's context: its declaration, and its name in C.
struct Carried {
    decl: String,
    name: String,
}

impl Emitter<'_> {
    /// The loop `label` as a `bpf_loop` call, its callback kept for
    /// [`Emitter::loop_round_definitions`]; `None` where a carried value
    /// has no plain C declaration (a wide parameter): it stays inline.
    pub fn loop_in_rounds(
        &self,
        label: &str,
        cond: &Expr,
        step: &[Stmt],
        body: &[Stmt],
        cx: &Ctx,
    ) -> Option<Vec<CStmt>> {
        let carried = self.carried(cx, params_used(self, cond, step, body))?;
        let ty = format!("{}_{label}", self.c_prefix());
        let round = format!("{ty}_round");
        let mut fields: String = carried
            .iter()
            .map(|c| format!("    {};\n", c.decl))
            .collect();
        fields.push_str("    u8 left;\n");
        let declaration = format!(
            "/* The context of loop {label}'s rounds (bpf_loop). */\nstruct {ty} {{\n{fields}}};\nstatic long {round}(u32 round, void *data);\n\n"
        );
        let definition =
            self.round_function(label, (&ty, &round), &carried, cx, (cond, step, body));
        self.loop_rounds
            .borrow_mut()
            .push((declaration, definition));
        let inits: Vec<String> = carried
            .iter()
            .map(|c| format!(".{0} = {0}", c.name))
            .collect();
        let mut call = vec![
            line(format!("struct {ty} {label} = {{ {} }}", inits.join(", "))),
            line(format!("bpf_loop({MAX_ROUNDS}, {round}, &{label}, 0)")),
        ];
        if !cx.in_action {
            // A round may have moved the packet.
            call.extend(self.target.reload_pointers().map(line));
        }
        for (left, stmt) in [(LEFT_BY_RETURN, Stmt::Return), (LEFT_BY_EXIT, Stmt::Exit)] {
            if holds(body, &stmt) {
                call.push(CStmt::If {
                    cond: format!("{label}.left == {left}"),
                    then: self.stmts(std::slice::from_ref(&stmt), cx),
                    other: vec![],
                });
            }
        }
        Some(vec![
            CStmt::Comment(format!("loop {label}: one bpf_loop round at a time")),
            CStmt::Block(call),
        ])
    }

    /// What a round needs from the function the loop is in.
    fn carried(&self, cx: &Ctx, params: Vec<VarId>) -> Option<Vec<Carried>> {
        let plain = |decl: String, name: &str| Carried {
            decl,
            name: name.to_string(),
        };
        let mut carried = vec![plain(format!("struct {} *st", self.state_type()), "st")];
        let context = self.context_name();
        if !cx.in_action || self.prog.sends_perf_events {
            carried.push(plain(self.target.context_param().to_string(), context));
        }
        if cx.in_action && self.actions_take_packet() {
            carried.push(plain("u8 *pkt".into(), "pkt"));
            carried.push(plain("u8 *pkt_end".into(), "pkt_end"));
        }
        for id in params {
            let var = self.prog.var(id)?;
            let name = match var.storage {
                VarStorage::ActionOutParam => format!("*{}", var.c_name),
                _ => var.c_name.clone(),
            };
            let decl = self.declare(&var.ty, &name);
            if decl.contains('[') {
                return None;
            }
            carried.push(plain(decl, &var.c_name));
        }
        Some(carried)
    }

    /// `static long PROG_label_round(u32 round, void *data)`.
    fn round_function(
        &self,
        label: &str,
        (ty, round): (&str, &str),
        carried: &[Carried],
        cx: &Ctx,
        (cond, step, body): (&Expr, &[Stmt], &[Stmt]),
    ) -> String {
        let mut stmts = vec![line(format!("struct {ty} *loop = data"))];
        stmts.extend(
            carried
                .iter()
                .map(|c| line(format!("{} = loop->{}", c.decl, c.name))),
        );
        if !carried.iter().any(|c| c.name == "pkt") {
            let context = self.context_name();
            stmts.push(line(format!("u8 *pkt = (u8 *)(long){context}->data")));
            stmts.push(line(format!(
                "u8 *pkt_end = (u8 *)(long){context}->data_end"
            )));
        }
        let inner = Ctx {
            in_action: cx.in_action,
            end: format!("{label}_returned"),
            exit: format!("{label}_exited"),
        };
        stmts.push(CStmt::If {
            cond: format!("!{}", self.expr(cond)),
            then: vec![CStmt::Return("1".into())],
            other: vec![],
        });
        stmts.push(CStmt::Block(self.stmts(body, &inner)));
        stmts.push(CStmt::Label(format!("{label}_next")));
        stmts.extend(self.stmts(step, &inner));
        stmts.push(CStmt::Return("0".into()));
        let ends = [
            (
                Stmt::Break {
                    label: label.into(),
                },
                format!("{label}_end"),
                None,
            ),
            (Stmt::Return, inner.end.clone(), Some(LEFT_BY_RETURN)),
            (Stmt::Exit, inner.exit.clone(), Some(LEFT_BY_EXIT)),
        ];
        let used = |s: &Stmt| holds(body, s) || holds(step, s);
        for (_, end, left) in ends.into_iter().filter(|(s, ..)| used(s)) {
            stmts.push(CStmt::Label(end));
            stmts.extend(left.map(|left| line(format!("loop->left = {left}"))));
            stmts.push(CStmt::Return("1".into()));
        }
        let mut out = format!(
            "/* One round of loop {label}: 0 goes on, 1 ends the loop. */\nstatic long {round}(u32 round, void *data)\n{{\n"
        );
        c::print(&stmts, 1, &mut out);
        out.push_str("}\n\n");
        out
    }

    /// The loops' contexts and callbacks, declared before the actions
    /// (which may run loops) and defined after them (rounds call them).
    pub fn loop_round_declarations(&self) -> String {
        self.loop_rounds
            .borrow()
            .iter()
            .map(|(d, _)| d.as_str())
            .collect()
    }

    pub fn loop_round_definitions(&self) -> String {
        self.loop_rounds
            .borrow()
            .iter()
            .map(|(_, d)| d.as_str())
            .collect()
    }
}
