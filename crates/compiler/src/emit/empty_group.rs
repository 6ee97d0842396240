//! PSA's `psa_empty_group_action` when the control plane may change it
//! (not `const`): one hash map per selector holding, for each such table
//! sharing it, a member-shaped value at the table's slot. No value (as
//! loaded) means the program's own empty group action; a value is run by
//! the table's switch with its arguments as a member is. A hash map, not
//! an array: the kernel replaces a hash value whole, so a packet sees the
//! old action or the new one, never a mix of the two.

use super::c::{line, CStmt};
use super::maps::map_def;
use super::Emitter;
use crate::ir::{ActionProfile, Program, Table};

/// The map of a selector's runtime empty group actions.
pub fn empty_groups_map(profile: &ActionProfile) -> String {
    format!("{}_empty_groups", profile.c_name)
}

/// The profile's tables whose empty group action the control plane may
/// change, in slot order.
pub fn runtime_tables<'p>(prog: &'p Program, profile: &ActionProfile) -> Vec<&'p Table> {
    profile
        .tables
        .iter()
        .filter_map(|id| prog.table(*id))
        .filter(|t| {
            t.implementation
                .as_ref()
                .is_some_and(|im| im.empty_group_runtime)
        })
        .collect()
}

/// `table`'s slot in the profile's empty group map, if it has one.
fn slot(prog: &Program, profile: &ActionProfile, table: &Table) -> Option<usize> {
    runtime_tables(prog, profile)
        .iter()
        .position(|t| t.name == table.name)
}

impl Emitter<'_> {
    /// The empty group map of selector `p`, when a table sharing it has a
    /// runtime empty group action.
    pub(super) fn empty_groups_definition(&self, p: &ActionProfile) -> String {
        let slots = runtime_tables(self.prog, p).len();
        if slots == 0 {
            return String::new();
        }
        format!(
            "/* empty group actions of {}'s tables by slot, set by the control plane (none: the program's own) */\n{}",
            p.name,
            map_def(
                "BPF_MAP_TYPE_HASH",
                "u32",
                &format!("struct {}_member", p.c_name),
                slots as u32,
                None,
                &empty_groups_map(p),
            )
        )
    }

    /// What table `t` does on naming an empty group of `p`: take the
    /// control plane's action as the member when it set one; else set
    /// `empty_group` when the program has its own (`compiled`), or leave
    /// no member (the table's default runs).
    pub(super) fn on_empty_group(
        &self,
        t: &Table,
        p: &ActionProfile,
        compiled: bool,
    ) -> Vec<CStmt> {
        let flag = if compiled {
            vec![line("empty_group = 1")]
        } else {
            vec![]
        };
        let Some(slot) = slot(self.prog, p, t) else {
            return flag;
        };
        let mut out = vec![
            line(format!("u32 empty_slot = {slot}")),
            line(format!(
                "member = bpf_map_lookup_elem(&{}, &empty_slot)",
                empty_groups_map(p)
            )),
        ];
        if compiled {
            out.push(CStmt::If {
                cond: "!member".into(),
                then: flag,
                other: vec![],
            });
        }
        out
    }
}
