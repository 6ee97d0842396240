//! A control's flow, as p4c's graphs back end draws it: the tables it
//! applies (with their keys and actions), the conditions that choose
//! between them, actions, controls and extern methods called directly
//! (a deparser's `emit`s), from the start of `apply` to its end.
//! Assignments are left out: the picture is about which way a packet goes.

use super::dot::{Graph, NodeId, Shape};
use super::Text;
use p4bpf_front::ast::{
    Block, Decl, DeclKind, Expr, ExprKind, Stmt, StmtKind, SwitchCase, SwitchLabel,
    TablePropertyKind,
};
use std::collections::HashSet;

/// Open ends of the flow so far: the nodes whose next step is not drawn
/// yet, each with the label its edge will carry.
type Ends = Vec<(NodeId, String)>;

struct ControlFlow<'a> {
    g: Graph,
    text: &'a Text<'a>,
    locals: &'a [Decl],
    /// Names of the actions the control can call: its own and top-level ones.
    actions: HashSet<String>,
    exit: NodeId,
}

/// The flow of a control with these `locals` and `apply` block;
/// `global_actions` names the program's top-level actions.
pub fn graph(
    name: &str,
    locals: &[Decl],
    apply: &Block,
    global_actions: &HashSet<String>,
    text: &Text,
) -> Graph {
    let mut g = Graph::new(name);
    let start = g.node(vec!["start".into()], Shape::Oval);
    let exit = g.node(vec!["exit".into()], Shape::Oval);
    let mut actions = global_actions.clone();
    actions.extend(locals.iter().filter_map(|d| match &d.kind {
        DeclKind::Action { sig, .. } => Some(sig.name.name.clone()),
        _ => None,
    }));
    let mut flow = ControlFlow {
        g,
        text,
        locals,
        actions,
        exit,
    };
    let ends = flow.block(apply, vec![(start, String::new())]);
    flow.join(ends, exit);
    flow.g
}

impl ControlFlow<'_> {
    fn join(&mut self, ends: Ends, to: NodeId) {
        for (from, label) in ends {
            self.g.edge(from, to, label);
        }
    }

    /// A new node that every open end leads to.
    fn step(&mut self, ends: Ends, lines: Vec<String>, shape: Shape) -> NodeId {
        let node = self.g.node(lines, shape);
        self.join(ends, node);
        node
    }

    fn block(&mut self, block: &Block, ends: Ends) -> Ends {
        block.stmts.iter().fold(ends, |ends, s| self.stmt(s, ends))
    }

    fn stmt(&mut self, stmt: &Stmt, ends: Ends) -> Ends {
        match &stmt.kind {
            StmtKind::Block(b) => self.block(b, ends),
            StmtKind::If { cond, then, other } => {
                let ends = self.applies_in(cond, ends);
                let test = self.step(ends, vec![self.text.of(cond.span)], Shape::Diamond);
                let mut out = self.stmt(then, vec![(test, "true".into())]);
                match other {
                    Some(other) => out.extend(self.stmt(other, vec![(test, "false".into())])),
                    None => out.push((test, "false".into())),
                }
                out
            }
            StmtKind::Switch { expr, cases } => self.switch(expr, cases, ends),
            StmtKind::Call(call) => self.call(call, ends),
            StmtKind::Assign { rhs, .. } | StmtKind::CompoundAssign { rhs, .. } => {
                self.applies_in(rhs, ends)
            }
            StmtKind::For { body, .. } | StmtKind::ForIn { body, .. } => {
                let head = self.text.of(stmt.span);
                let head = head
                    .split('{')
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .to_string();
                let test = self.step(ends, vec![head], Shape::Diamond);
                let body_ends = self.stmt(body, vec![(test, "next".into())]);
                self.join(body_ends, test);
                vec![(test, "done".into())]
            }
            StmtKind::Exit | StmtKind::Return(_) => {
                let keyword = if matches!(stmt.kind, StmtKind::Exit) {
                    "exit"
                } else {
                    "return"
                };
                for (from, label) in ends {
                    let label = if label.is_empty() {
                        keyword.to_string()
                    } else {
                        format!("{label}; {keyword}")
                    };
                    self.g.edge(from, self.exit, label);
                }
                vec![]
            }
            StmtKind::Decl(decl) => match &decl.kind {
                DeclKind::Variable {
                    init: Some(init), ..
                } => self.applies_in(init, ends),
                _ => ends,
            },
            StmtKind::Break | StmtKind::Continue | StmtKind::Empty => ends,
        }
    }

    /// `switch (t.apply().action_run)` branches on the table's node; a
    /// switch on a value branches on a condition node.
    fn switch(&mut self, expr: &Expr, cases: &[SwitchCase], ends: Ends) -> Ends {
        let ends = self.applies_in(expr, ends);
        let action_run_of = match &expr.kind {
            ExprKind::Member { base, member } if member.name == "action_run" => Some(base),
            _ => None,
        };
        let on_table = action_run_of.is_some_and(|t| self.applied_table(t).is_some());
        let from = match (on_table, ends.as_slice()) {
            (true, [(table, _)]) => *table,
            _ => {
                let lines = vec![format!("switch ({})", self.text.of(expr.span))];
                self.step(ends, lines, Shape::Diamond)
            }
        };
        let mut out = vec![];
        let mut pending: Vec<String> = vec![];
        let mut has_default = false;
        for case in cases {
            let label = match &case.label {
                SwitchLabel::Default(_) => {
                    has_default = true;
                    "default".to_string()
                }
                SwitchLabel::Expr(e) => self.text.of(e.span),
            };
            pending.push(label);
            if let Some(body) = &case.body {
                let label = pending.join(" | ");
                pending.clear();
                out.extend(self.block(body, vec![(from, label)]));
            }
        }
        if !has_default {
            out.push((from, "otherwise".into()));
        }
        out
    }

    fn call(&mut self, call: &Expr, ends: Ends) -> Ends {
        if self.applied_table(call).is_some() || self.applied_control(call).is_some() {
            return self.applies_in(call, ends);
        }
        let ends = self.args_applies(call, ends);
        let node = match self.called_action(call) {
            Some(name) => {
                let lines = vec![format!("action {name}"), self.text.of(call.span)];
                self.step(ends, lines, Shape::Oval)
            }
            None => self.step(ends, vec![self.text.of(call.span)], Shape::Note),
        };
        vec![(node, String::new())]
    }

    /// Draws every table or control applied inside `e`, in evaluation order.
    fn applies_in(&mut self, e: &Expr, ends: Ends) -> Ends {
        let ends = self.args_applies(e, ends);
        if let Some(table) = self.applied_table(e) {
            let lines = table_lines(table, self.text);
            let node = self.step(ends, lines, Shape::Box);
            return vec![(node, String::new())];
        }
        if let Some(control) = self.applied_control(e) {
            let node = self.step(ends, vec![format!("control {control}")], Shape::Box);
            return vec![(node, String::new())];
        }
        ends
    }

    fn args_applies(&mut self, e: &Expr, ends: Ends) -> Ends {
        match &e.kind {
            ExprKind::Call { callee, args, .. } => {
                let ends = self.applies_in(callee, ends);
                args.iter()
                    .fold(ends, |ends, a| self.applies_in(&a.value, ends))
            }
            ExprKind::Member { base, .. } => self.applies_in(base, ends),
            ExprKind::Unary { operand, .. } => self.applies_in(operand, ends),
            ExprKind::Binary { lhs, rhs, .. } => {
                let ends = self.applies_in(lhs, ends);
                self.applies_in(rhs, ends)
            }
            ExprKind::Ternary { cond, then, other } => {
                let ends = self.applies_in(cond, ends);
                let ends = self.applies_in(then, ends);
                self.applies_in(other, ends)
            }
            _ => ends,
        }
    }

    /// The local declaration `name.apply()` calls, when `e` is such a call.
    fn applied_local(&self, e: &Expr) -> Option<&Decl> {
        let ExprKind::Call { callee, .. } = &e.kind else {
            return None;
        };
        let ExprKind::Member { base, member } = &callee.kind else {
            return None;
        };
        let ExprKind::Path(path) = &base.kind else {
            return None;
        };
        if member.name != "apply" {
            return None;
        }
        self.locals
            .iter()
            .find(|d| d.name().is_some_and(|n| n.name == path.name.name))
    }

    fn applied_table(&self, e: &Expr) -> Option<&Decl> {
        self.applied_local(e)
            .filter(|d| matches!(d.kind, DeclKind::Table { .. }))
    }

    fn applied_control(&self, e: &Expr) -> Option<String> {
        match &self.applied_local(e)?.kind {
            DeclKind::Instance { name, .. } => Some(name.name.clone()),
            _ => None,
        }
    }

    /// The action `e` calls directly, if it is an action call.
    fn called_action(&self, e: &Expr) -> Option<String> {
        let ExprKind::Call { callee, .. } = &e.kind else {
            return None;
        };
        let ExprKind::Path(path) = &callee.kind else {
            return None;
        };
        let name = &path.name.name;
        self.actions.contains(name).then(|| name.clone())
    }
}

/// A table node's label: its name, keys with match kinds, and actions.
fn table_lines(table: &Decl, text: &Text) -> Vec<String> {
    let DeclKind::Table { name, properties } = &table.kind else {
        return vec![];
    };
    let mut lines = vec![format!("table {}", name.name)];
    for property in properties {
        match &property.kind {
            TablePropertyKind::Key(keys) => lines.extend(
                keys.iter()
                    .map(|k| format!("key {}: {}", text.of(k.expr.span), k.match_kind.name.name)),
            ),
            TablePropertyKind::Actions(actions) => {
                let names: Vec<&str> = actions.iter().map(|a| a.name.name.name.as_str()).collect();
                lines.push(format!("actions {}", names.join(", ")));
            }
            _ => {}
        }
    }
    lines
}
