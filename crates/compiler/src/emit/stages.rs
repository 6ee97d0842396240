//! Stages: a packet path cut into BPF programs joined by tail calls.
//!
//! The kernel allows a program 64 maps (`MAX_USED_MAPS`), counted over
//! every map its code, global functions included, refers to. A program
//! whose tables need more is cut between top-level statements of its
//! controls: each stage is a program of its own (`ENTRY_stageN`, same
//! hook) with its own 64 maps and its own 1M-instruction budget, and the
//! stage before ends in `bpf_tail_call` through the program array
//! `ENTRY_stages`. The per-packet state lives in the per-CPU scratch map
//! so it survives the call, with the two locals the deparser needs
//! (bytes parsed, parser error). Programs within the limit have one stage
//! and none of this: no tail call on their packet path.

use super::c::{line, CStmt};
use super::{entry_name, Emitter};
use crate::ir::{Program, Step, Stmt, Storage, TableId};
use crate::table_cache::CachePlan;
use std::collections::BTreeSet;

/// The kernel's limit on maps one program refers to.
const MAPS_PER_PROGRAM: usize = 64;

/// Maps any stage may refer to besides tables and extern instances:
/// default actions, output record, ingress ports, port devmap, perf
/// events, scratch and the program array.
const SHARED_MAPS: usize = 7;

/// Where a stage starts: statement `stmt` of the control run by
/// `prog.pipeline[step]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cut {
    pub step: usize,
    pub stmt: usize,
}

/// The cuts of a program, in pipeline order; stage `i + 1` starts at
/// `cuts[i]`.
#[derive(Debug, Default)]
pub struct Stages {
    cuts: Vec<Cut>,
}

impl Stages {
    /// Cuts before each top-level control statement whose tables would
    /// take the current stage past the map limit (a cached table's cache
    /// counting as one map more, the caches' generations as a shared one).
    pub fn plan(prog: &Program, caches: &CachePlan) -> Stages {
        let generations = usize::from(!caches.is_empty());
        // Value sets share one more map, their live halves.
        let sets = prog.value_sets.len() + usize::from(!prog.value_sets.is_empty());
        let budget =
            MAPS_PER_PROGRAM.saturating_sub(SHARED_MAPS + generations + prog.externs.len() + sets);
        let all: BTreeSet<TableId> = (0..prog.tables.len())
            .filter_map(|i| u32::try_from(i).ok().map(TableId))
            .collect();
        if maps_of(prog, caches, &all) <= budget {
            return Stages::default();
        }
        let mut cuts = vec![];
        let mut stage: BTreeSet<TableId> = BTreeSet::new();
        for (step, control) in controls(prog) {
            for (index, stmt) in control.iter().enumerate() {
                let mut tables = BTreeSet::new();
                tables_in(prog, std::slice::from_ref(stmt), &mut tables);
                let grown: BTreeSet<TableId> = stage.union(&tables).copied().collect();
                if maps_of(prog, caches, &grown) > budget && !stage.is_empty() {
                    cuts.push(Cut { step, stmt: index });
                    stage = tables;
                } else {
                    stage = grown;
                }
            }
        }
        Stages { cuts }
    }

    pub fn staged(&self) -> bool {
        !self.cuts.is_empty()
    }

    /// The first cut inside step `step` at or after statement `from`
    /// (after it when `from` is where the stage starts), with its stage.
    fn next_cut(&self, step: usize, from: usize, starts_here: bool) -> Option<(usize, Cut)> {
        self.cuts
            .iter()
            .enumerate()
            .find(|(_, c)| c.step == step && (c.stmt > from || (!starts_here && c.stmt == from)))
            .map(|(i, c)| (i + 1, *c))
    }
}

/// The statements of each control step (deparsers included), by step.
fn controls(prog: &Program) -> impl Iterator<Item = (usize, &Vec<Stmt>)> {
    prog.pipeline
        .iter()
        .enumerate()
        .filter_map(|(step, s)| match s {
            Step::Control(i) | Step::Deparse(i) => prog.controls.get(*i).map(|c| (step, &c.body)),
            Step::Parse(_) | Step::ParseKeepingError(_) | Step::Checkpoint => None,
        })
}

/// Maps the tables `ids` define.
fn maps_of(prog: &Program, caches: &CachePlan, ids: &BTreeSet<TableId>) -> usize {
    let tables: usize = ids
        .iter()
        .filter_map(|id| prog.table(*id))
        .map(|t| match t.storage {
            // Groups, filters and buckets.
            Storage::Ternary => 3,
            Storage::Hash | Storage::Array | Storage::LpmTrie => 1,
            // Code holds the entries; defaults share one array.
            Storage::Code | Storage::DefaultOnly => 0,
        })
        .sum();
    tables + ids.iter().filter(|id| caches.slot(**id).is_some()).count()
}

/// Every table applied in `stmts`, inside branches and actions too.
fn tables_in(prog: &Program, stmts: &[Stmt], out: &mut BTreeSet<TableId>) {
    for s in stmts {
        match s {
            Stmt::Apply { table, .. } => {
                out.insert(*table);
            }
            Stmt::If { then, other, .. } => {
                tables_in(prog, then, out);
                tables_in(prog, other, out);
            }
            Stmt::SwitchAction { cases, default, .. } => {
                for (_, body) in cases {
                    tables_in(prog, body, out);
                }
                tables_in(prog, default.as_deref().unwrap_or(&[]), out);
            }
            Stmt::SwitchValue { cases, default, .. } => {
                for (_, body) in cases {
                    tables_in(prog, body, out);
                }
                tables_in(prog, default.as_deref().unwrap_or(&[]), out);
            }
            Stmt::Inline { body, .. } | Stmt::Atomic { body, .. } => tables_in(prog, body, out),
            Stmt::CallAction { action, .. } => {
                if let Some(a) = prog.action(*action) {
                    tables_in(prog, &a.body, out);
                }
            }
            _ => {}
        }
    }
}

impl Emitter<'_> {
    fn stages_map(&self) -> String {
        format!("{}_stages", entry_name(self.prog, self.hook))
    }

    fn stage_name(&self, stage: usize) -> String {
        format!("{}_stage{stage}", entry_name(self.prog, self.hook))
    }

    /// The program array joining the stages, with their declarations.
    pub fn stages_definition(&self) -> String {
        let count = self.stages.cuts.len() + 1;
        let param = self.target.context_param();
        let mut out = String::from("/* The stages after the first, reached by tail calls. */\n");
        for stage in 1..count {
            out.push_str(&format!("int {}({param});\n", self.stage_name(stage)));
        }
        out.push_str(&format!(
            "struct {{\n    __uint(type, BPF_MAP_TYPE_PROG_ARRAY);\n    __uint(max_entries, {count});\n    __uint(key_size, sizeof(u32));\n    __array(values, int ({param}));\n}} {} SEC(\".maps\") = {{\n    .values = {{\n",
            self.stages_map()
        ));
        for stage in 1..count {
            out.push_str(&format!(
                "        [{stage}] = (void *)&{},\n",
                self.stage_name(stage)
            ));
        }
        out.push_str("    },\n};\n\n");
        out
    }

    /// The tail call ending a stage; the state carries what the next needs.
    fn tail_call(&self, stage: usize) -> Vec<CStmt> {
        vec![
            CStmt::Comment(format!(
                "stage {stage} goes on from here, in a program of its own"
            )),
            line("st->p4bpf_offset = offset"),
            line("st->p4bpf_parser_error = parser_error"),
            line(format!(
                "bpf_tail_call({}, &{}, {stage})",
                self.context_name(),
                self.stages_map()
            )),
            CStmt::Return(self.target.abort().into()),
        ]
    }

    /// The pipeline's steps from `start` (the whole pipeline for `None`),
    /// each stage ending at the next cut; the code after a control's end
    /// label (reached by `exit`) goes on in this stage.
    pub fn staged_steps(&self, start: Option<Cut>) -> Vec<CStmt> {
        let mut out = vec![];
        // PSA's egress steps run in a function of their own (`psa_egress`).
        let last = super::psa_egress::egress_start(self.prog).unwrap_or(usize::MAX);
        for (index, step) in self.prog.pipeline.iter().enumerate().take(last) {
            let from = match start {
                Some(c) if index < c.step => continue,
                Some(c) if index == c.step => c.stmt,
                _ => 0,
            };
            let starts_here = start.is_some_and(|c| c.step == index);
            let cut = self.stages.next_cut(index, from, starts_here);
            let tail = cut.map(|(stage, _)| self.tail_call(stage));
            let until = cut.map(|(_, c)| c.stmt);
            out.extend(self.step_part(*step, from, until, tail));
        }
        out
    }

    /// The program of stage `stage`, starting at `cut`.
    pub fn stage_function(&self, stage: usize, cut: Cut) -> String {
        let ctx = self.target.context();
        let mut body = vec![
            line(format!("u8 *pkt = (u8 *)(long){ctx}->data")),
            line(format!("u8 *pkt_end = (u8 *)(long){ctx}->data_end")),
            line("u32 zero = 0"),
            line(format!(
                "struct {} *st = bpf_map_lookup_elem(&{}_scratch, &zero)",
                self.state_type(),
                self.c_prefix()
            )),
            CStmt::If {
                cond: "!st".into(),
                then: vec![CStmt::Return(self.target.abort().into())],
                other: vec![],
            },
            line("u32 offset = st->p4bpf_offset"),
            line("u8 parser_error = st->p4bpf_parser_error"),
            line("(void)parser_error"),
        ];
        let mut steps = self.staged_steps(Some(cut));
        steps.extend(self.entry_epilogue());
        body.extend(self.trace_returns(steps));
        let mut out = format!(
            "/* stage {stage} of {} */\nSEC(\"{}\")\nint {}({})\n{{\n",
            self.prog.name,
            self.target.section(),
            self.stage_name(stage),
            self.target.context_param()
        );
        super::c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        out
    }

    /// Every stage after the first.
    pub fn stage_functions(&self) -> String {
        self.stages
            .cuts
            .iter()
            .enumerate()
            .map(|(i, cut)| self.stage_function(i + 1, *cut))
            .collect()
    }
}
