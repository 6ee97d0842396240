//! `@atomic` blocks under a lock across CPUs (`ir::Stmt::Atomic`, made
//! by `lower/atomic.rs`), one lock per domain of shared state
//! (`lock_domains.rs`).
//!
//! The kernel's lock is a `bpf_spin_lock` in a map value, and while it is
//! held the verifier allows no helper call (no map lookup) and no second
//! lock: one per domain in `p4bpf_locks`. A block under one looks up
//! every register cell it touches and its domain's lock before taking
//! it, then reads and writes the cells through those pointers
//! (`p4bpf_load_R`, `p4bpf_store_R`: the same value ^ initial encoding as
//! `p4bpf_read_R`/`p4bpf_write_R`, an index past the end reads the
//! initial value and writes nothing). A domain whose blocks call helpers
//! takes a lock word instead (`lock_word.rs`) and runs its blocks as
//! written. Every way out of the block (its end, `return`, `exit`)
//! unlocks first. Registers of no block get no extra code.

use super::c::{line, CStmt};
use super::expr::{is_narrow_signed, wrap};
use super::lock_domains::{each_stmt, Lock, LockDomains};
use super::maps::map_def;
use super::stmt::Ctx;
use super::Emitter;
use crate::ir::{Expr, ExprKind, ExternId, ExternKind, ExternOp, Stmt, Ty};
use crate::midend::visit;

/// The map holding one lock per domain.
const LOCKS: &str = "p4bpf_locks";

/// The register reads and writes of a locked body, in order: (register,
/// index). Called actions make none (`lower/atomic.rs` checked).
pub(super) fn cell_accesses(body: &[Stmt]) -> Vec<(ExternId, &Expr)> {
    let mut found = vec![];
    each_stmt(body, &mut |s| {
        for e in visit::stmt_exprs(s) {
            each_expr(e, &mut |e| {
                if let ExprKind::ExternMethod {
                    instance,
                    op: ExternOp::Read | ExternOp::Write,
                    args,
                } = &e.kind
                {
                    found.extend(args.first().map(|index| (*instance, index)));
                }
            });
        }
    });
    found
}

fn each_expr<'a>(e: &'a Expr, f: &mut dyn FnMut(&'a Expr)) {
    f(e);
    for part in visit::expr_parts(e) {
        each_expr(part, f);
    }
}

impl Emitter<'_> {
    /// The locks' maps and functions, and the cell functions of each
    /// register under a spin lock.
    pub(super) fn atomic_definitions(&self) -> String {
        let domains = self.lock_domains();
        let mut out = String::new();
        if domains.spins > 0 {
            out.push_str(&format!(
                "/* The locks of `@atomic` blocks: one per set of registers used together. */\n\
                 struct p4bpf_lock {{\n    struct bpf_spin_lock lock;\n}};\n\n{}\
                 static __always_inline struct bpf_spin_lock *p4bpf_lock(u32 domain)\n{{\n    \
                 struct p4bpf_lock *l = bpf_map_lookup_elem(&{LOCKS}, &domain);\n    \
                 return l ? &l->lock : 0;\n}}\n\n",
                map_def(
                    "BPF_MAP_TYPE_ARRAY",
                    "u32",
                    "struct p4bpf_lock",
                    domains.spins,
                    None,
                    LOCKS
                )
            ));
        }
        if domains.words > 0 {
            out.push_str(&super::lock_word::definitions(domains.words));
        }
        for id in domains.spin_registers() {
            out.push_str(&self.cell_functions(id));
        }
        out
    }

    /// The lock domains of the program as this build emits it.
    pub(super) fn lock_domains(&self) -> LockDomains {
        LockDomains::of(self.prog, self.traces())
    }

    /// `p4bpf_cell_R` (the lookup, before the lock), `p4bpf_load_R` and
    /// `p4bpf_store_R` (through the pointer, under it).
    fn cell_functions(&self, id: ExternId) -> String {
        let Some(x) = self.prog.extern_instance(id) else {
            return String::new();
        };
        let ExternKind::Register { value, initial, .. } = &x.kind else {
            return String::new();
        };
        let (name, size) = (&x.c_name, x.size);
        let c_value = self.declare(value, "");
        let c_value = c_value.trim();
        let (read, encode) = match initial {
            0 => ("cell ? *cell : 0".to_string(), "value".to_string()),
            n => (
                format!("(cell ? *cell : 0) ^ {n:#x}ULL"),
                format!("value ^ {n:#x}ULL"),
            ),
        };
        let read = if is_narrow_signed(value) {
            wrap(value, &read)
        } else {
            read
        };
        format!(
            "/* Register {}'s cell at `index` (0 past the end), looked up before a lock. */\n\
             static __always_inline {c_value} *p4bpf_cell_{name}(u64 index)\n{{\n    \
             u32 key = (u32)index;\n    \
             return index < {size} ? bpf_map_lookup_elem(&{name}, &key) : 0;\n}}\n\n\
             static __always_inline {c_value} p4bpf_load_{name}({c_value} *cell)\n{{\n    \
             return {read};\n}}\n\n\
             static __always_inline void p4bpf_store_{name}({c_value} *cell, {c_value} value)\n{{\n    \
             if (cell)\n        *cell = {encode};\n}}\n\n",
            x.name
        )
    }

    /// A locked block: lookups, lock, body, unlock on every way out.
    pub(super) fn atomic_block(
        &self,
        body: &[Stmt],
        calls_helpers: bool,
        cx: &Ctx,
        out: &mut Vec<CStmt>,
    ) {
        let k = self.next_label();
        let domains = self.lock_domains();
        let (mut block, give, cells) = match domains.lock_of(self.prog, body, calls_helpers) {
            Some(Lock::Spin(domain)) => self.take_spin_lock(k, domain, body),
            Some(Lock::Word(word)) => {
                let names = domains.word_names(self.prog, word);
                let (take, give) = super::lock_word::take_and_give(k, word, &names);
                (take, give, vec![])
            }
            None => {
                // Nothing shared to guard: the block runs as written.
                out.push(CStmt::Block(self.stmts(body, cx)));
                return;
            }
        };
        let inner = Ctx {
            in_action: cx.in_action,
            end: format!("atomic{k}_return"),
            exit: format!("atomic{k}_exit"),
        };
        let saved = self.atomic_cells.replace(cells);
        let mut locked = self.stmts(body, &inner);
        self.atomic_cells.replace(saved);
        let leaves = [(&inner.end, Stmt::Return), (&inner.exit, Stmt::Exit)];
        let leaves: Vec<_> = leaves
            .into_iter()
            .filter(|(label, _)| jumps_to(&locked, label))
            .collect();
        block.append(&mut locked);
        block.push(give.clone());
        let done = format!("atomic{k}_done");
        if leaves.is_empty() && !jumps_to(&block, &done) {
            out.push(CStmt::Block(block));
            return;
        }
        if !leaves.is_empty() {
            block.push(CStmt::Goto(done.clone()));
        }
        for (label, leave) in leaves {
            block.push(CStmt::Label(label.clone()));
            block.push(give.clone());
            self.plain_stmt(&leave, cx, &mut block);
        }
        out.push(CStmt::Block(block));
        out.push(CStmt::Label(done));
    }

    /// Block `k`'s cell lookups and spin lock `domain` taken, its release,
    /// and the cells looked up.
    #[allow(clippy::type_complexity)]
    fn take_spin_lock(
        &self,
        k: u32,
        domain: u32,
        body: &[Stmt],
    ) -> (Vec<CStmt>, CStmt, Vec<(ExternId, String, String)>) {
        let lock = format!("atomic{k}_lock");
        let mut block = vec![CStmt::Comment(format!(
            "@atomic under lock {domain}: the cells first (no lookup while it is held)"
        ))];
        let cells = self.cell_lookups(k, &cell_accesses(body), &mut block);
        block.push(line(format!(
            "struct bpf_spin_lock *{lock} = p4bpf_lock({domain})"
        )));
        block.push(if_lock(&lock, "bpf_spin_lock"));
        (block, if_lock(&lock, "bpf_spin_unlock"), cells)
    }

    /// Declares block `k`'s pointer to each distinct (register, index)
    /// cell of `accesses` into `out`: (register, index in C, pointer).
    fn cell_lookups(
        &self,
        k: u32,
        accesses: &[(ExternId, &Expr)],
        out: &mut Vec<CStmt>,
    ) -> Vec<(ExternId, String, String)> {
        let mut cells: Vec<(ExternId, String, String)> = vec![];
        for (id, index) in accesses {
            let index = self.expr(index);
            if cells.iter().any(|(i, at, _)| i == id && *at == index) {
                continue;
            }
            let (name, value) = self.register_c_names(*id);
            let cell = format!("atomic{k}_cell{}", cells.len());
            out.push(line(format!(
                "{value} *{cell} = p4bpf_cell_{name}({index})"
            )));
            cells.push((*id, index, cell));
        }
        cells
    }

    /// A register's C name and value type.
    fn register_c_names(&self, id: ExternId) -> (String, String) {
        let Some(x) = self.prog.extern_instance(id) else {
            return (String::new(), String::new());
        };
        let value = match &x.kind {
            ExternKind::Register { value, .. } => value.clone(),
            _ => Ty::Void,
        };
        (
            x.c_name.clone(),
            self.declare(&value, "").trim().to_string(),
        )
    }

    /// Inside a locked block, a read or write of a cell looked up before
    /// the lock goes through its pointer.
    pub(super) fn atomic_cell_call(
        &self,
        instance: ExternId,
        op: ExternOp,
        args: &[String],
    ) -> Option<String> {
        let cells = self.atomic_cells.borrow();
        let index = args.first()?;
        let (_, _, cell) = cells
            .iter()
            .find(|(i, at, _)| *i == instance && at == index)?;
        let name = &self.prog.extern_instance(instance)?.c_name;
        match (op, args.get(1)) {
            (ExternOp::Read, _) => Some(format!("p4bpf_load_{name}({cell})")),
            (ExternOp::Write, Some(value)) => Some(format!("p4bpf_store_{name}({cell}, {value})")),
            _ => None,
        }
    }
}

fn if_lock(lock: &str, call: &str) -> CStmt {
    CStmt::If {
        cond: lock.to_string(),
        then: vec![line(format!("{call}({lock})"))],
        other: vec![],
    }
}

/// Whether any statement, at any depth, jumps to `label`.
fn jumps_to(stmts: &[CStmt], label: &str) -> bool {
    stmts.iter().any(|s| match s {
        CStmt::Goto(to) => to == label,
        CStmt::Block(b) | CStmt::For { body: b, .. } | CStmt::FromP4 { body: b, .. } => {
            jumps_to(b, label)
        }
        CStmt::If { then, other, .. } => jumps_to(then, label) || jumps_to(other, label),
        CStmt::Switch { cases, default, .. } => {
            cases.iter().any(|(_, b)| jumps_to(b, label)) || jumps_to(default, label)
        }
        _ => false,
    })
}
