//! v1model's passes ([`crate::ir::Resubmit`] with field lists): where
//! resubmission is decided, and the field list a pass keeps. v1model has
//! no ingress deparser, so resubmission is checked at the checkpoint
//! after ingress, before multicast and the drop port, as BMv2 orders
//! them; the packet is still as received, since a program that resubmits
//! rebuilds its headers in the deparser ([`Emitter::deparse_plan`]). A
//! pass copies the fields of every list aside before the state is reset,
//! and puts back those of the list the program chose.

use super::c::{line, CStmt};
use super::Emitter;
use crate::ir::{Expr, FieldLists, Resubmit, Step};

impl Emitter<'_> {
    /// Whether ingress ends in a deparser (PSA's, with or without an
    /// egress after a checkpoint), where resubmission is then decided,
    /// rather than at a checkpoint no deparser precedes (v1model's).
    pub(super) fn ingress_deparses(&self) -> bool {
        let pipeline = &self.prog.pipeline;
        let deparse = pipeline.iter().position(|s| matches!(s, Step::Deparse(_)));
        match pipeline.iter().position(|s| *s == Step::Checkpoint) {
            Some(checkpoint) => deparse.is_some_and(|d| d < checkpoint),
            None => deparse.is_some(),
        }
    }

    /// At the checkpoint, for an architecture without an ingress
    /// deparser: another pass when ingress resubmits.
    pub(super) fn resubmit_at_end_of_ingress(&self) -> Vec<CStmt> {
        match &self.prog.intrinsics.resubmit {
            Some(r) if !self.ingress_deparses() => self.pass_when(r),
            _ => vec![],
        }
    }

    fn field_list_members<'r>(&self, r: &'r Resubmit) -> Vec<(&'r Expr, Vec<u32>)> {
        self.field_list_members_of(r.field_lists.as_ref())
    }

    /// Every field some list names, once, with the lists naming it.
    pub(super) fn field_list_members_of<'r>(
        &self,
        lists: Option<&'r FieldLists>,
    ) -> Vec<(&'r Expr, Vec<u32>)> {
        let mut members: Vec<(&Expr, Vec<u32>)> = vec![];
        let Some(lists) = lists else {
            return members;
        };
        for (index, fields) in &lists.lists {
            for field in fields {
                let place = self.lvalue(field);
                match members.iter_mut().find(|(f, _)| self.lvalue(f) == place) {
                    Some((_, indexes)) => indexes.push(*index),
                    None => members.push((field, vec![*index])),
                }
            }
        }
        members
    }

    /// Before the state is reset: the chosen list and every listed field.
    pub(super) fn field_lists_saved(&self, r: &Resubmit) -> Vec<CStmt> {
        let Some(lists) = &r.field_lists else {
            return vec![];
        };
        let mut out = vec![line(format!(
            "u16 field_list = {}",
            self.expr(&lists.chosen)
        ))];
        out.push(line("(void)field_list"));
        for (i, (field, _)) in self.field_list_members(r).into_iter().enumerate() {
            let place = self.lvalue(field);
            out.push(line(format!("u8 kept_{i}[sizeof({place})]")));
            out.push(line(format!(
                "__builtin_memcpy(kept_{i}, &{place}, sizeof(kept_{i}))"
            )));
        }
        out
    }

    /// After the reset: the fields of the chosen list back.
    pub(super) fn field_lists_restored(&self, r: &Resubmit) -> Vec<CStmt> {
        let members = self.field_list_members(r);
        if members.is_empty() {
            return vec![];
        }
        let comment = "the user metadata of the field list chosen, as the pass left it";
        let mut out = vec![CStmt::Comment(comment.into())];
        for (i, (field, indexes)) in members.into_iter().enumerate() {
            out.push(CStmt::If {
                cond: list_chosen(&indexes),
                then: vec![line(format!(
                    "__builtin_memcpy(&{}, kept_{i}, sizeof(kept_{i}))",
                    self.lvalue(field)
                ))],
                other: vec![],
            });
        }
        out
    }
}

/// C that is true when the program chose one of the field lists `indexes`.
pub(super) fn list_chosen(indexes: &[u32]) -> String {
    let chosen: Vec<String> = indexes
        .iter()
        .map(|index| format!("field_list == {index}"))
        .collect();
    chosen.join(" || ")
}
