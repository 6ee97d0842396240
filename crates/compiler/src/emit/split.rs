//! Splitting the packet path into parts the verifier checks one by one.
//!
//! The kernel's verifier walks every path of a program, instruction by
//! instruction, and gives up after one million. Tables applied one after
//! another add up, and worse: each table is walked again for every distinct
//! state the code before it leaves (parser outcomes, earlier actions). A
//! global function (not `static`, `noinline`, described in BTF by
//! `clang -g`) is verified once, on its own, whatever its callers; after a
//! call the caller knows nothing more of the state it passed, so its paths
//! merge again. So when the entry function's estimated cost passes a
//! budget, the costliest table applications become global functions
//! (`PROG_apply_TABLE([ctx, ]st)`, a nonzero result meaning `exit`), until
//! the rest fits. Programs under the budget keep one function and no call
//! on their packet path.
//!
//! The estimate counts instructions the verifier walks, from measurements
//! on kernel 6.x (see ARCHITECTURE.md, "Verification at scale").

use super::c::{self, line, CStmt};
use super::stmt::Ctx;
use super::Emitter;
use crate::ir::{Next, Program, StateId, Stmt, Storage, Table, TableId, Transition, VarId};
use crate::map_layout::TERNARY_BUCKET_RULES;
use p4bpf_layout::Hook;
use std::cell::RefCell;
use std::collections::BTreeSet;

/// The verifier's limit: instructions walked over all functions of a
/// program together (global functions save walks, not this sum).
const VERIFIER_LIMIT: u64 = 1_000_000;

/// Estimated walk of the entry function above which tables move out: half
/// the limit, since the estimate is rough and states multiply where it adds.
pub const ENTRY_BUDGET: u64 = VERIFIER_LIMIT / 2;

/// Estimated walk of the whole program above which more tables move out
/// (a table in its own function is walked once, not once per state).
const TOTAL_BUDGET: u64 = VERIFIER_LIMIT * 9 / 10;

/// Most states counted as walking a table separately.
const MAX_PATHS_INTO_TABLE: u64 = 16;

/// Instructions walked for one map lookup with its key fill and the miss
/// path through the default-action map.
const LOOKUP: u64 = 250;
const PER_KEY_FIELD: u64 = 8;
/// One rule of a ternary bucket scan, per key field and the rule itself.
/// The groups are walked by `bpf_loop`, whose callback is verified once,
/// so the cost is one bucket's scan (measured: about 10.3K verified
/// instructions for a 5-field table; inline, times the parser's outcomes).
const PER_TERNARY_RULE_FIELD: u64 = 110;
const PER_STATEMENT: u64 = 6;
/// The call of a global function and the test of its result.
const CALL: u64 = 8;

/// Label inside a table function that `exit` jumps to.
const EXIT_LABEL: &str = "p4bpf_exit";

/// Which tables are applied through a global function of their own, and
/// those functions once written.
#[derive(Debug, Default)]
pub struct Split {
    outlined: BTreeSet<TableId>,
    functions: RefCell<Vec<TableFunction>>,
}

/// One global function: the table application it performs and its C text.
#[derive(Debug)]
struct TableFunction {
    site: (TableId, Option<VarId>, Option<VarId>),
    name: String,
    /// Whether it takes the hook's context (for packet access or helpers).
    takes_context: bool,
    text: String,
}

impl Split {
    pub fn outlines(&self, table: TableId) -> bool {
        self.outlined.contains(&table)
    }

    /// Chooses the tables to outline: costliest first, until the entry
    /// function's estimate is within `ENTRY_BUDGET` and the program's
    /// within `TOTAL_BUDGET`.
    pub fn plan(prog: &Program) -> Split {
        let mut walk = Walk {
            prog,
            paths: parser_outcomes(prog),
            cost: 0,
            applied: vec![],
        };
        for control in &prog.controls {
            walk.stmts(&control.body);
        }
        // Per table: its own cost, and its inline cost over all its sites.
        let mut tables: Vec<(u64, u64, TableId)> = vec![];
        for (id, paths) in &walk.applied {
            let own = table_cost(prog, *id);
            let inline = own.saturating_mul(*paths);
            match tables.iter_mut().find(|t| t.2 == *id) {
                Some(t) => t.0 = t.0.saturating_add(inline),
                None => tables.push((inline, own, *id)),
            }
        }
        let mut entry = tables
            .iter()
            .fold(walk.cost, |sum, t| sum.saturating_add(t.0));
        let mut total = entry;
        tables.sort_by(|a, b| b.0.cmp(&a.0).then(a.2.index().cmp(&b.2.index())));
        let mut outlined = BTreeSet::new();
        for (inline, own, id) in tables {
            if entry <= ENTRY_BUDGET && total <= TOTAL_BUDGET {
                break;
            }
            entry = entry.saturating_sub(inline).saturating_add(CALL);
            total = total
                .saturating_sub(inline)
                .saturating_add(own.saturating_add(CALL));
            outlined.insert(id);
        }
        Split {
            outlined,
            functions: RefCell::default(),
        }
    }
}

impl Emitter<'_> {
    /// The call of table `id`'s global function, writing the function on
    /// its first use; `exit` inside comes back as a nonzero result.
    pub fn call_table_function(
        &self,
        id: TableId,
        hit: Option<VarId>,
        action_run: Option<VarId>,
        cx: &Ctx,
    ) -> Vec<CStmt> {
        let (name, takes_context) = self.table_function(id, hit, action_run);
        let call = if takes_context {
            format!("{name}({}, st)", self.context_name())
        } else {
            format!("{name}(st)")
        };
        let exits = self
            .prog
            .table(id)
            .is_some_and(|t| t.actions.iter().any(|a| self.action_exits(*a)));
        if exits {
            vec![CStmt::If {
                cond: call,
                then: vec![CStmt::Goto(cx.exit.clone())],
                other: vec![],
            }]
        } else {
            vec![line(call)]
        }
    }

    /// The name of the function applying `id` with these outcome
    /// variables, and whether it takes the context; written into the
    /// split's list if new.
    fn table_function(
        &self,
        id: TableId,
        hit: Option<VarId>,
        action_run: Option<VarId>,
    ) -> (String, bool) {
        let site = (id, hit, action_run);
        if let Some(f) = self
            .split
            .functions
            .borrow()
            .iter()
            .find(|f| f.site == site)
        {
            return (f.name.clone(), f.takes_context);
        }
        let table = self.prog.table(id).map_or("", |t| t.c_name.as_str());
        let stem = format!("{}_apply_{table}", self.c_prefix());
        let taken = self
            .split
            .functions
            .borrow()
            .iter()
            .filter(|f| f.site.0 == id)
            .count();
        let name = match taken {
            0 => stem,
            n => format!("{stem}_{n}"),
        };
        let cx = Ctx {
            in_action: false,
            end: EXIT_LABEL.into(),
            exit: EXIT_LABEL.into(),
        };
        let body = self.table_lookup(id, hit, action_run, &cx);
        let mut printed = String::new();
        c::print(&body, 1, &mut printed);
        // clang passes garbage for a parameter the body never reads, which
        // the verifier refuses for a context: take it only when used.
        let uses_packet = printed.contains("pkt");
        let takes_context = uses_packet || self.prog.actions_take_context();
        let text = self.table_function_text(id, &name, body, uses_packet, takes_context);
        self.split.functions.borrow_mut().push(TableFunction {
            site,
            name: name.clone(),
            takes_context,
            text,
        });
        (name, takes_context)
    }

    fn table_function_text(
        &self,
        id: TableId,
        name: &str,
        body: Vec<CStmt>,
        uses_packet: bool,
        takes_context: bool,
    ) -> String {
        let ctx = self.context_name();
        let mut params = vec![];
        if takes_context {
            params.push(match self.hook {
                Hook::Xdp => "struct xdp_md *ctx",
                Hook::Tc => "struct __sk_buff *skb",
            });
        }
        let state = format!("struct {} *st", self.state_type());
        params.push(&state);
        // The verifier passes pointer arguments of global functions as maybe null.
        let mut all = vec![CStmt::If {
            cond: "!st".into(),
            then: vec![CStmt::Return("0".into())],
            other: vec![],
        }];
        if uses_packet {
            all.push(line(format!("u8 *pkt = (u8 *)(long){ctx}->data")));
            all.push(line(format!("u8 *pkt_end = (u8 *)(long){ctx}->data_end")));
        }
        let exits = {
            let mut printed = String::new();
            c::print(&body, 1, &mut printed);
            printed.contains(EXIT_LABEL)
        };
        all.extend(body);
        all.push(CStmt::Return("0".into()));
        if exits {
            all.push(CStmt::Label(EXIT_LABEL.into()));
            all.push(CStmt::Return("1".into()));
        }
        let table = self.prog.table(id);
        let mut out = format!(
            "/* table {} ({}): a global function, verified on its own */\n\
             __attribute__((noinline)) int {name}({})\n{{\n",
            table.map_or("", |t| t.name.as_str()),
            table.map_or("", |t| t.origin.as_str()),
            params.join(", ")
        );
        c::print(&all, 1, &mut out);
        out.push_str("}\n\n");
        out
    }

    /// Every table function written, in order of first use.
    pub fn table_function_definitions(&self) -> String {
        self.split
            .functions
            .borrow()
            .iter()
            .map(|f| f.text.as_str())
            .collect()
    }
}

/// How many distinct ways the parser reaches `accept` (distinct next
/// states per select), each a state the verifier carries into the
/// controls; at least 1, at most [`MAX_PATHS_INTO_TABLE`] (loops count
/// once).
fn parser_outcomes(prog: &Program) -> u64 {
    fn from(prog: &Program, next: Next, seen: &mut Vec<StateId>) -> u64 {
        let id = match next {
            Next::Accept => return 1,
            Next::Reject => return 0,
            Next::State(id) => id,
        };
        let Some(state) = prog.parsers.first().and_then(|p| p.states.get(id.index())) else {
            return 0;
        };
        if seen.contains(&id) {
            return 1;
        }
        seen.push(id);
        let mut nexts: Vec<Next> = vec![];
        match &state.transition {
            Transition::Direct(next) => nexts.push(*next),
            Transition::Select { cases, .. } => {
                for case in cases {
                    if !nexts.contains(&case.next) {
                        nexts.push(case.next);
                    }
                }
            }
        }
        let paths = nexts.into_iter().fold(0u64, |sum, n| {
            sum.saturating_add(from(prog, n, seen))
                .min(MAX_PATHS_INTO_TABLE)
        });
        seen.pop();
        paths
    }
    let states = prog
        .parsers
        .first()
        .map_or(&[][..], |p| p.states.as_slice());
    let start = states.iter().position(|s| s.name == "start").unwrap_or(0);
    let start = Next::State(StateId(u32::try_from(start).unwrap_or(0)));
    from(prog, start, &mut vec![]).clamp(1, MAX_PATHS_INTO_TABLE)
}

/// The verifier's walk of control bodies, estimated: the cost of their
/// plain statements, and each table application with the number of
/// distinct states the verifier carries into it (parser outcomes, times
/// the branches taken before it: states of different branches go on
/// separately when they differ).
struct Walk<'p> {
    prog: &'p Program,
    paths: u64,
    cost: u64,
    applied: Vec<(TableId, u64)>,
}

impl Walk<'_> {
    fn stmts(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Apply { table, .. } => self.applied.push((*table, self.paths)),
            Stmt::If { then, other, .. } => self.branches([then, other].into_iter()),
            // A switch without `default` goes on past it too.
            Stmt::SwitchAction { cases, default, .. } => {
                let none = vec![];
                let rest = default.as_ref().unwrap_or(&none);
                self.branches(cases.iter().map(|(_, body)| body).chain([rest]))
            }
            Stmt::SwitchValue { cases, default, .. } => {
                let none = vec![];
                let rest = default.as_ref().unwrap_or(&none);
                self.branches(cases.iter().map(|(_, body)| body).chain([rest]))
            }
            Stmt::Inline { body, .. } | Stmt::Atomic { body, .. } => self.stmts(body),
            Stmt::CallAction { action, .. } => {
                if let Some(a) = self.prog.action(*action) {
                    self.stmts(&a.body);
                }
            }
            _ => {
                self.cost = self
                    .cost
                    .saturating_add(PER_STATEMENT.saturating_mul(self.paths))
            }
        }
    }

    fn branches<'s>(&mut self, arms: impl Iterator<Item = &'s Vec<Stmt>>) {
        let start = self.paths;
        let mut after = 0u64;
        for arm in arms {
            self.paths = start;
            self.stmts(arm);
            after = after.saturating_add(self.paths);
        }
        self.paths = after.clamp(1, MAX_PATHS_INTO_TABLE);
    }
}

/// Estimated walk of one application of table `id`, its actions included,
/// for one incoming state.
fn table_cost(prog: &Program, id: TableId) -> u64 {
    let Some(t) = prog.table(id) else { return 0 };
    let actions = t
        .actions
        .iter()
        .filter_map(|a| prog.action(*a))
        .fold(0u64, |sum, a| {
            let mut walk = Walk {
                prog,
                paths: 1,
                cost: 0,
                applied: vec![],
            };
            walk.stmts(&a.body);
            sum.saturating_add(walk.cost)
        });
    lookup_cost(t).saturating_add(actions)
}

fn lookup_cost(t: &Table) -> u64 {
    let fields = t.keys.len() as u64;
    match t.storage {
        Storage::Ternary => u64::from(TERNARY_BUCKET_RULES) * (1 + fields) * PER_TERNARY_RULE_FIELD,
        Storage::Code => (t.const_entries.len() as u64 + 1) * (fields + 1) * PER_STATEMENT,
        Storage::Hash | Storage::Array | Storage::LpmTrie | Storage::DefaultOnly => {
            LOOKUP + fields * PER_KEY_FIELD
        }
    }
}
