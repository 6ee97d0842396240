//! Direct counters and meters: cells at the end of a table's value struct
//! (`map_layout::TableLayout::direct`), updated in place through the
//! pointer the lookup returned, so a hit costs no second lookup. Counter
//! cells are shared by every CPU and added to atomically; a meter cell is
//! the indexed meters' `struct p4bpf_meter`, with its lock. A hit updates
//! the externs its action uses (`count()`, `execute()`), or every one for
//! v1model's; the action's own calls then only read the result. A miss
//! updates nothing and leaves a meter's colour GREEN. So an action counts
//! once per hit however many `count()` calls it makes, and a colour-aware
//! `execute(colour)` takes a constant colour.

use super::c::{line, CStmt};
use super::Emitter;
use crate::ir::{CounterUnit, Expr, ExternId, ExternKind, ExternOp, Program, Table};
use crate::map_layout::{table_layout, TableLayout};
use crate::midend::direct_uses::direct_uses;
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

impl Emitter<'_> {
    /// The struct of a meter cell, before the table structs that hold one
    /// (and of a cell another cell's lock guards, where a table has more).
    pub(super) fn direct_prelude(&self) -> String {
        let guarded = self.prog.tables.iter().any(|t| self.meters_of(t).len() > 1);
        match (self.has_direct_meters(), guarded) {
            (false, _) => String::new(),
            (true, false) => super::externs::METER.to_string(),
            (true, true) => format!("{}\n{GUARDED}", super::externs::METER),
        }
    }

    /// The direct meters of `t`, in order: the first cell's lock guards all.
    fn meters_of(&self, t: &Table) -> Vec<ExternId> {
        t.direct
            .iter()
            .copied()
            .filter(|x| {
                matches!(
                    self.prog.extern_instance(*x).map(|x| &x.kind),
                    Some(ExternKind::DirectMeter { .. })
                )
            })
            .collect()
    }

    pub(super) fn has_direct_meters(&self) -> bool {
        self.prog
            .externs
            .iter()
            .any(|x| matches!(x.kind, ExternKind::DirectMeter { .. }))
    }

    /// The value struct's members holding `l`'s direct cells.
    pub(super) fn direct_members(&self, t: &Table, l: &TableLayout) -> String {
        let first_meter = self.meters_of(t).first().copied();
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
                _ if first_meter == Some(*id) => {
                    format!(
                        "struct p4bpf_meter {}; /* direct meter {} */",
                        x.c_name, x.name
                    )
                }
                _ => format!(
                    "struct p4bpf_meter_guarded {}; /* direct meter {} */",
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
        let every_hit = |x: &ExternId| {
            self.prog
                .extern_instance(*x)
                .is_some_and(|x| x.kind.every_hit())
        };
        if t.direct.iter().all(every_hit) {
            return t
                .direct
                .iter()
                .flat_map(|x| self.direct_update(t, *x, &[]))
                .collect();
        }
        let mut cases = vec![];
        for a in &t.actions {
            let used = direct_uses(self.prog, *a);
            let mut updates = vec![];
            for x in &t.direct {
                match used.iter().find(|(u, _)| u == x) {
                    Some((_, args)) => updates.extend(self.direct_update(t, *x, args)),
                    None if every_hit(x) => updates.extend(self.direct_update(t, *x, &[])),
                    None => {}
                }
            }
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

    /// A trace record's copy of the entry `value` to `to`: whole, but for
    /// its meter cells, zeroed (the verifier forbids reading a lock).
    pub(super) fn trace_value_copy(&self, t: &Table, to: &str) -> Vec<CStmt> {
        let value = format!("struct {}_value", t.c_name);
        let first_meter = self.meters_of(t).first().copied();
        let Some(meter) = first_meter.and_then(|m| self.prog.extern_instance(m)) else {
            return vec![line(format!(
                "__builtin_memcpy({to}, value, sizeof({value}))"
            ))];
        };
        let cells = format!("__builtin_offsetof({value}, {})", meter.c_name);
        vec![
            line(format!("__builtin_memcpy({to}, value, {cells})")),
            line(format!(
                "__builtin_memset({to} + {cells}, 0, sizeof({value}) - {cells})"
            )),
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

    /// The update of extern `id`'s cell in the entry `value`, `args` the
    /// call's: a meter runs on the packet coloured `args[0]` (a constant
    /// code), else GREEN; the length is the packet's unless the call
    /// gives one (a counter's `args[0]`, a meter's `args[1]`).
    fn direct_update(&self, t: &Table, id: ExternId, args: &[Expr]) -> Vec<CStmt> {
        let Some(x) = self.prog.extern_instance(id) else {
            return vec![];
        };
        let (colour, given_length) = match x.kind {
            ExternKind::DirectMeter { .. } => (args.first(), args.get(1)),
            _ => (None, args.first()),
        };
        let length = || match given_length {
            Some(bytes) => self.expr(bytes),
            None => self
                .prog
                .intrinsics
                .packet_length
                .as_ref()
                .map_or_else(|| "0".to_string(), |l| self.expr(l)),
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
            ExternKind::DirectMeter {
                bytes,
                colour: result,
                ..
            } => {
                let Some(var) = self.prog.var(result) else {
                    return vec![];
                };
                let amount = if bytes { length() } else { "1".into() };
                let colour = colour.map_or_else(|| "0".into(), |c| self.expr(c));
                let first = self.meters_of(t).first().copied();
                let call = match first.and_then(|f| self.prog.extern_instance(f)) {
                    Some(guard) if first != Some(id) => format!(
                        "p4bpf_meter_under(&value->{}.lock, &value->{}.b, {colour}, {amount})",
                        guard.c_name, x.c_name
                    ),
                    _ => format!(
                        "p4bpf_meter_colour(&value->{}, {colour}, {amount})",
                        x.c_name
                    ),
                };
                vec![line(format!("st->{} = {call}", var.c_name))]
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

/// A meter cell of a table's value after its first: the kernel allows one
/// `bpf_spin_lock` per map value, so the first cell's lock guards it.
const GUARDED: &str = "/* A meter cell another cell's lock guards (one lock per map value). */
struct p4bpf_meter_guarded {
    u32 unused; /* where a cell of its own would keep its lock */
    u32 pad;
    struct p4bpf_meter_buckets b;
};

";
