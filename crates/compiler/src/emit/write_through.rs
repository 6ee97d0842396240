//! Writing assigned header fields straight into the packet.
//!
//! When the deparser keeps the packet's shape, at least unless a header is
//! pushed or popped (an architecture with a deparser whose plan is not a
//! rebuild), a plain assignment `hdr.h.f = v` of a header whose validity
//! nothing changes after the parser also
//! stores `f` into the packet at once, as a hand-written program does,
//! and the deparser leaves that field alone: nothing is carried to the end
//! of the pipeline, and paths that never assign the field never touch the
//! packet. Fields also written indirectly (an `out` argument, a slice, a
//! stack element) or of a header that may be pushed or popped are still
//! written back by the deparser. Actions get the
//! packet pointers as parameters when anything is written through.

use super::c::{line, CStmt};
use super::types::{OFFSET, VALID};
use super::Emitter;
use crate::ir::{AggId, Expr, ExprKind, Ty};
use crate::midend::correspond::Shape;
use crate::midend::defuse::plain_path;
use crate::midend::visit::{walk_stmts, CalledActions};

/// An opaque `hdr_at` (as libbpf's `barrier_var`).
const KEEP_POINTER: &str = "asm volatile(\"\" : \"+r\"(hdr_at))";

impl Emitter<'_> {
    fn writes_through(&self) -> bool {
        self.plan != Shape::Rebuilt && self.prog.deparser().is_some()
    }

    /// Whether every assignment of (header type, field) writes the packet.
    pub fn written_through(&self, agg: AggId, field: usize) -> bool {
        self.writes_through()
            && self.writes.fields.contains(&(agg, field))
            && !self.writes.indirect.contains(&(agg, field))
    }

    /// Whether action functions take the packet pointers.
    pub fn actions_take_packet(&self) -> bool {
        self.writes
            .fields
            .iter()
            .any(|(agg, field)| self.written_through(*agg, *field))
    }

    /// Whether the C stores (header type, field) in more than one place:
    /// assigned in two places, or by an action run from two (it is
    /// inlined at each).
    fn stored_in_more_than_one_place(&self, agg: AggId, field: usize) -> bool {
        let key = (agg, field);
        let action_calls = self.action_calls.borrow();
        self.writes.repeated.contains(&key)
            || self
                .writes
                .in_action
                .get(&key)
                .is_some_and(|a| action_calls.get(a).copied().unwrap_or(0) > 1)
    }

    /// Actions run by other actions count as run from many places: the
    /// caller is inlined wherever it runs.
    pub fn count_calls_from_actions(&self) {
        let mut called = CalledActions::default();
        for a in &self.prog.actions {
            walk_stmts(&mut called, &a.body);
        }
        let mut calls = self.action_calls.borrow_mut();
        for action in called.0 {
            *calls.entry(action).or_default() += 2;
        }
    }

    /// The packet store following the assignment of `lhs`, if it is a
    /// written-through field of a valid header.
    pub fn write_through(&self, lhs: &Expr) -> Vec<CStmt> {
        let ExprKind::Field { base, agg, field } = &lhs.kind else {
            return vec![];
        };
        if !matches!(base.ty, Ty::Header(_))
            || !plain_path(base)
            || !self.written_through(*agg, *field)
        {
            return vec![];
        }
        let Some(header) = self.prog.agg(*agg) else {
            return vec![];
        };
        let Some(f) = header.fields.get(*field) else {
            return vec![];
        };
        let place = self.lvalue(base);
        let bytes = header.wire_bits / 8;
        let mut store = vec![line(format!(
            "u8 *hdr_at = pkt + ({place}.{OFFSET} & 0x3fff)"
        ))];
        // One pointer for the check and the store: where branches store
        // the same field, clang merges the stores and recomputes the
        // pointer, which the verifier sees unchecked. Only there: the
        // pinned register costs stack in big straight-line programs.
        if self.stored_in_more_than_one_place(*agg, *field) {
            store.push(line(KEEP_POINTER));
        }
        store.push(CStmt::If {
            cond: format!("hdr_at + {bytes} <= pkt_end"),
            then: self.store_field("hdr_at", f, &self.lvalue(lhs)),
            other: vec![],
        });
        vec![CStmt::If {
            cond: format!("{place}.{VALID}"),
            then: store,
            other: vec![],
        }]
    }
}
