//! Which lock guards each `@atomic` block. Blocks that share state share
//! a lock domain (union-find over the blocks): a block under a
//! `bpf_spin_lock` shares the registers it reads and writes; a block that
//! calls helpers (`Stmt::Atomic::calls_helpers`) every register, other
//! extern and table it reaches, through the actions and tables it calls.
//! A domain in which any block calls helpers, and every domain of a traced
//! build (its records are helper calls), takes a lock word
//! (`lock_word.rs`): two kinds of lock on the same state would not
//! exclude each other. The other domains keep a `bpf_spin_lock`
//! (`atomic.rs`), numbered as if no lock word existed.

use super::atomic::cell_accesses;
use crate::ir::{ActionId, ExprKind, ExternId, Program, Stmt, TableId};
use crate::midend::visit;
use std::collections::{BTreeMap, BTreeSet};

/// State an `@atomic` block shares with others.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Shared {
    Extern(ExternId),
    Table(TableId),
}

/// A domain's lock: its number among the spin locks or the lock words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Lock {
    Spin(u32),
    Word(u32),
}

pub(super) struct LockDomains {
    of: BTreeMap<Shared, Lock>,
    pub(super) spins: u32,
    pub(super) words: u32,
}

impl LockDomains {
    /// The domains of `prog`'s blocks; `traced`: every one a lock word.
    pub(super) fn of(prog: &Program, traced: bool) -> LockDomains {
        let mut parent: BTreeMap<Shared, Shared> = BTreeMap::new();
        let mut worded = vec![];
        for (body, calls_helpers) in locked_blocks(prog) {
            let shared = shared_state(prog, body, calls_helpers);
            for s in &shared {
                parent.entry(*s).or_insert(*s);
            }
            for pair in shared.windows(2) {
                let (a, b) = (root(&parent, pair[0]), root(&parent, pair[1]));
                parent.insert(a.max(b), a.min(b));
            }
            if calls_helpers || traced {
                worded.extend(shared.first().copied());
            }
        }
        let worded: BTreeSet<Shared> = worded.iter().map(|s| root(&parent, *s)).collect();
        let mut numbers: BTreeMap<Shared, Lock> = BTreeMap::new();
        let (mut spins, mut words) = (0, 0);
        let mut of = BTreeMap::new();
        for s in parent.keys() {
            let r = root(&parent, *s);
            let lock = *numbers.entry(r).or_insert_with(|| {
                if worded.contains(&r) {
                    words += 1;
                    Lock::Word(words - 1)
                } else {
                    spins += 1;
                    Lock::Spin(spins - 1)
                }
            });
            of.insert(*s, lock);
        }
        LockDomains { of, spins, words }
    }

    /// The lock of a block, `None` when it shares nothing.
    pub(super) fn lock_of(
        &self,
        prog: &Program,
        body: &[Stmt],
        calls_helpers: bool,
    ) -> Option<Lock> {
        let shared = shared_state(prog, body, calls_helpers);
        shared.first().and_then(|s| self.of.get(s)).copied()
    }

    /// The registers guarded by a spin lock, whose cells are looked up
    /// before it.
    pub(super) fn spin_registers(&self) -> impl Iterator<Item = ExternId> + '_ {
        self.of.iter().filter_map(|(s, lock)| match (s, lock) {
            (Shared::Extern(id), Lock::Spin(_)) => Some(*id),
            _ => None,
        })
    }

    /// What lock word `n` guards, by P4 name, for a comment.
    pub(super) fn word_names(&self, prog: &Program, n: u32) -> Vec<String> {
        let named = |s: &Shared| match s {
            Shared::Extern(id) => prog.extern_instance(*id).map(|x| x.name.clone()),
            Shared::Table(id) => prog.table(*id).map(|t| format!("table {}", t.name)),
        };
        self.of
            .iter()
            .filter(|(_, lock)| **lock == Lock::Word(n))
            .filter_map(|(s, _)| named(s))
            .collect()
    }
}

fn root(parent: &BTreeMap<Shared, Shared>, mut s: Shared) -> Shared {
    while let Some(&p) = parent.get(&s).filter(|p| **p != s) {
        s = p;
    }
    s
}

/// The bodies of the program's locked blocks, and whether each calls
/// helpers.
fn locked_blocks(prog: &Program) -> Vec<(&[Stmt], bool)> {
    let states = prog.parsers.iter().flat_map(|p| &p.states);
    let bodies = states
        .map(|s| s.stmts.as_slice())
        .chain(prog.controls.iter().map(|c| c.body.as_slice()))
        .chain(prog.actions.iter().map(|a| a.body.as_slice()));
    let mut found = vec![];
    for body in bodies {
        each_stmt(body, &mut |s| {
            if let Stmt::Atomic {
                body,
                calls_helpers,
            } = s
            {
                found.push((body.as_slice(), *calls_helpers));
            }
        });
    }
    found
}

/// What a block shares, in order of first use: the cells' registers of a
/// block under a spin lock; all it reaches of one that calls helpers.
fn shared_state(prog: &Program, body: &[Stmt], calls_helpers: bool) -> Vec<Shared> {
    let mut found = vec![];
    if calls_helpers {
        reached(prog, body, &mut vec![], &mut found);
    } else {
        for (id, _) in cell_accesses(body) {
            if !found.contains(&Shared::Extern(id)) {
                found.push(Shared::Extern(id));
            }
        }
    }
    found
}

fn add(found: &mut Vec<Shared>, s: Shared) {
    if !found.contains(&s) {
        found.push(s);
    }
}

/// The externs and tables `body` uses, and those of the actions it calls
/// and the tables it applies (`seen`: actions already walked).
fn reached(prog: &Program, body: &[Stmt], seen: &mut Vec<ActionId>, found: &mut Vec<Shared>) {
    for s in body {
        for e in visit::stmt_exprs(s) {
            visit::each_expr(e, |x| {
                if let ExprKind::ExternMethod { instance, .. } = x.kind {
                    add(found, Shared::Extern(instance));
                }
            });
        }
        let mut actions = vec![];
        match s {
            Stmt::Apply { table, .. } | Stmt::SwitchAction { table, .. } => {
                add(found, Shared::Table(*table));
                if let Some(t) = prog.table(*table) {
                    actions.extend(&t.actions);
                    actions.push(t.default_action.action);
                }
            }
            Stmt::CallAction { action, .. } => actions.push(*action),
            _ => {}
        }
        for a in actions {
            if seen.contains(&a) {
                continue;
            }
            seen.push(a);
            if let Some(action) = prog.action(a) {
                reached(prog, &action.body, seen, found);
            }
        }
        for inner in visit::stmt_bodies(s) {
            reached(prog, inner, seen, found);
        }
    }
}

pub(super) fn each_stmt<'a>(body: &'a [Stmt], f: &mut dyn FnMut(&'a Stmt)) {
    for s in body {
        f(s);
        for inner in visit::stmt_bodies(s) {
            each_stmt(inner, f);
        }
    }
}
