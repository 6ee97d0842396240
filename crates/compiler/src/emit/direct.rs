//! Direct counters and meters: cells at the end of a table's value struct
//! (`map_layout::TableLayout::direct`), updated in place through the
//! pointer the lookup returned, so a hit costs no second lookup. Counter
//! cells are shared by every CPU and added to atomically; a meter cell is
//! the indexed meters' `struct p4bpf_meter`, with its lock. A hit updates
//! the externs its action uses (`count()`, `execute()`), or every one for
//! v1model's; the action's own calls then only read the result. A miss
//! updates nothing and leaves a meter's colour GREEN.

use super::c::{line, CStmt};
use super::Emitter;
use crate::ir::{ActionId, CounterUnit, ExternId, ExternKind, ExternOp, Program, Stmt, Table};
use crate::map_layout::{table_layout, TableLayout};
use crate::midend::visit::{walk_stmts, Descend, Visitor};
use p4bpf_layout as layout;

/// Where every direct extern's cells are, for the control plane.
pub fn direct_description(prog: &Program) -> Vec<layout::DirectExtern> {
    let mut out = vec![];
    for t in &prog.tables {
        for (id, offset) in table_layout(prog, t).direct {
            let Some(x) = prog.extern_instance(id) else {
                continue;
            };
            let kind = match x.kind {
                ExternKind::DirectCounter { unit, .. } => layout::DirectKind::Counter(match unit {
                    CounterUnit::Packets => layout::CounterKind::Packets,
                    CounterUnit::Bytes => layout::CounterKind::Bytes,
                    CounterUnit::PacketsAndBytes => layout::CounterKind::PacketsAndBytes,
                }),
                ExternKind::DirectMeter { bytes, .. } => layout::DirectKind::Meter { bytes },
                _ => continue,
            };
            out.push(layout::DirectExtern {
                name: x.name.clone(),
                table: t.name.clone(),
                kind,
                offset,
            });
        }
    }
    out
}

/// The direct externs `action` uses, its own calls and those of the
/// actions it calls.
fn used_by(prog: &Program, action: ActionId) -> Vec<ExternId> {
    struct Uses<'p> {
        prog: &'p Program,
        found: Vec<ExternId>,
        seen: Vec<ActionId>,
    }
    impl Visitor for Uses<'_> {
        fn stmt(&mut self, s: &Stmt) -> Descend {
            if let Stmt::CallAction { action, .. } = s {
                if !self.seen.contains(action) {
                    self.seen.push(*action);
                    if let Some(a) = self.prog.action(*action) {
                        walk_stmts(self, &a.body);
                    }
                }
            }
            Descend::Yes
        }
        fn expr(&mut self, e: &crate::ir::Expr) -> Descend {
            if let crate::ir::ExprKind::ExternMethod { instance, .. } = &e.kind {
                self.found.push(*instance);
            }
            Descend::Yes
        }
    }
    let mut uses = Uses {
        prog,
        found: vec![],
        seen: vec![action],
    };
    if let Some(a) = prog.action(action) {
        walk_stmts(&mut uses, &a.body);
    }
    uses.found
}

impl Emitter<'_> {
    /// The struct of a meter cell, before the table structs that hold one.
    pub(super) fn direct_prelude(&self) -> &'static str {
        if self.has_direct_meters() {
            super::externs::METER
        } else {
            ""
        }
    }

    pub(super) fn has_direct_meters(&self) -> bool {
        self.prog
            .externs
            .iter()
            .any(|x| matches!(x.kind, ExternKind::DirectMeter { .. }))
    }

    /// The value struct's members holding `l`'s direct cells.
    pub(super) fn direct_members(&self, l: &TableLayout) -> String {
        let mut out = String::new();
        for (id, _) in &l.direct {
            let Some(x) = self.prog.extern_instance(*id) else {
                continue;
            };
            let member = match x.kind {
                ExternKind::DirectCounter {
                    unit: CounterUnit::PacketsAndBytes,
                    ..
                } => format!(
                    "u64 {}[2]; /* direct counter {}: packets, bytes */",
                    x.c_name, x.name
                ),
                ExternKind::DirectCounter {
                    unit: CounterUnit::Bytes,
                    ..
                } => format!(
                    "u64 {}[1]; /* direct counter {}: bytes */",
                    x.c_name, x.name
                ),
                ExternKind::DirectCounter { .. } => {
                    format!(
                        "u64 {}[1]; /* direct counter {}: packets */",
                        x.c_name, x.name
                    )
                }
                _ => format!(
                    "struct p4bpf_meter {}; /* direct meter {} */",
                    x.c_name, x.name
                ),
            };
            out.push_str(&format!("    {member}\n"));
        }
        out
    }

    /// On a hit (`value` the entry): the updates of the direct externs
    /// the entry's action uses.
    pub(super) fn direct_on_hit(&self, t: &Table) -> Vec<CStmt> {
        let all: Vec<CStmt> = t
            .direct
            .iter()
            .flat_map(|x| self.direct_update(*x))
            .collect();
        let every_hit = t.direct.iter().all(|x| {
            self.prog
                .extern_instance(*x)
                .is_some_and(|x| x.kind.every_hit())
        });
        if every_hit {
            return all;
        }
        let mut cases = vec![];
        for a in &t.actions {
            let used = used_by(self.prog, *a);
            let updates: Vec<CStmt> = t
                .direct
                .iter()
                .filter(|x| {
                    used.contains(x)
                        || self
                            .prog
                            .extern_instance(**x)
                            .is_some_and(|x| x.kind.every_hit())
                })
                .flat_map(|x| self.direct_update(*x))
                .collect();
            if let (false, Some(code)) = (updates.is_empty(), t.action_code(*a)) {
                cases.push((vec![code.to_string()], updates));
            }
        }
        if cases.is_empty() {
            return vec![];
        }
        vec![
            CStmt::Comment("direct counters and meters the entry's action uses".into()),
            CStmt::Switch {
                scrutinee: "value->action".into(),
                cases,
                default: vec![],
            },
        ]
    }

    /// On a miss: the table's direct meters read GREEN.
    pub(super) fn direct_on_miss(&self, t: &Table) -> Vec<CStmt> {
        t.direct
            .iter()
            .filter_map(|x| match self.prog.extern_instance(*x)?.kind {
                ExternKind::DirectMeter { colour, .. } => {
                    let var = self.prog.var(colour)?;
                    Some(line(format!("st->{} = 0", var.c_name)))
                }
                _ => None,
            })
            .collect()
    }

    /// The update of extern `id`'s cell in the entry `value`.
    fn direct_update(&self, id: ExternId) -> Vec<CStmt> {
        let Some(x) = self.prog.extern_instance(id) else {
            return vec![];
        };
        let length = || {
            self.prog
                .intrinsics
                .packet_length
                .as_ref()
                .map_or_else(|| "0".to_string(), |l| self.expr(l))
        };
        let add = |slot: usize, amount: String| {
            line(format!(
                "__sync_fetch_and_add(&value->{}[{slot}], {amount})",
                x.c_name
            ))
        };
        match x.kind {
            ExternKind::DirectCounter { unit, .. } => match unit {
                CounterUnit::Packets => vec![add(0, "1".into())],
                CounterUnit::Bytes => vec![add(0, length())],
                CounterUnit::PacketsAndBytes => vec![add(0, "1".into()), add(1, length())],
            },
            ExternKind::DirectMeter { bytes, colour, .. } => {
                let Some(var) = self.prog.var(colour) else {
                    return vec![];
                };
                let amount = if bytes { length() } else { "1".into() };
                vec![line(format!(
                    "st->{} = p4bpf_meter_colour(&value->{}, 0, {amount})",
                    var.c_name, x.c_name
                ))]
            }
            _ => vec![],
        }
    }

    /// A direct extern's call in an action: a counter's `count()` did its
    /// work on the hit; a meter's `execute()` is the hit's colour.
    pub(super) fn direct_use(&self, instance: ExternId, op: ExternOp) -> Option<String> {
        let x = self.prog.extern_instance(instance)?;
        match (&x.kind, op) {
            (ExternKind::DirectCounter { .. }, _) => {
                Some("0 /* counted on the table hit */".into())
            }
            (ExternKind::DirectMeter { colour, .. }, _) => {
                Some(format!("st->{}", self.prog.var(*colour)?.c_name))
            }
            _ => None,
        }
    }
}
