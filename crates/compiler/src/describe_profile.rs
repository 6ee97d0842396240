//! The pipeline description of action profiles and selectors: each
//! profile's members as a table keyed by member id, a selector's groups,
//! and the two reference actions (`member`, `group`) that the entries of
//! a table naming a profile take instead of its actions.

use crate::emit::empty_group::{empty_groups_map, runtime_tables};
use crate::emit::profile::{groups_map, member_layout, members_map, members_table, GROUP, MEMBER};
use crate::ir::{ActionProfile, Program, TableImplementation};
use crate::map_layout::TableLayout;
use p4bpf_layout as layout;

/// The actions of a table naming a profile: `member(id)`, and for a
/// selector `group(id)`, the id right after the code (and priority).
pub fn references(
    prog: &Program,
    im: &TableImplementation,
    l: &TableLayout,
) -> Vec<layout::Action> {
    let id = layout::FieldLayout {
        name: "id".into(),
        bit_width: 32,
        byte_offset: l.union_offset,
        byte_len: 4,
        byte_order: layout::ByteOrder::Host,
        signed: false,
    };
    let reference = |name: &str, code| layout::Action {
        name: name.into(),
        code,
        params: vec![id.clone()],
        default_only: false,
        table_only: false,
    };
    let mut actions = vec![reference(layout::MEMBER_ACTION, MEMBER)];
    if prog
        .profile(im.profile)
        .is_some_and(|p| p.selector.is_some())
    {
        actions.push(reference(layout::GROUP_ACTION, GROUP));
    }
    actions
}

/// Every profile some table names.
pub fn profiles(prog: &Program) -> Vec<layout::ActionProfile> {
    prog.profiles
        .iter()
        .filter_map(|p| profile(prog, p))
        .collect()
}

fn profile(prog: &Program, p: &ActionProfile) -> Option<layout::ActionProfile> {
    let table = members_table(prog, p)?;
    let l = member_layout(prog, p)?;
    let member_id = layout::KeyField {
        field: layout::FieldLayout {
            name: "member_id".into(),
            bit_width: 32,
            byte_offset: 0,
            byte_len: 4,
            byte_order: layout::ByteOrder::Host,
            signed: false,
        },
        match_kind: layout::MatchKind::Exact,
    };
    let members = layout::Table {
        name: p.name.clone(),
        map: members_map(p),
        storage: layout::TableStorage::Hash,
        size: p.size,
        keys: vec![member_id],
        key_size: 4,
        value_size: l.value_size,
        actions: crate::describe::table_actions(prog, &table, &l),
        default_map: None,
        default_slot: 0,
        ternary: None,
    };
    let empty_group_tables = empty_group_tables(prog, p);
    Some(layout::ActionProfile {
        name: p.name.clone(),
        members,
        tables: p
            .tables
            .iter()
            .filter_map(|t| Some(prog.table(*t)?.name.clone()))
            .collect(),
        selector: p.selector.map(|s| layout::SelectorLayout {
            groups_map: groups_map(p),
            max_group_size: s.max_group_size,
            empty_group_map: match empty_group_tables.is_empty() {
                true => String::new(),
                false => empty_groups_map(p),
            },
            empty_group_tables,
            const_empty_group_tables: const_empty_group_tables(prog, p),
        }),
    })
}

/// The selector's tables whose empty group action the control plane may
/// change, in slot order, with the actions each lists.
fn empty_group_tables(prog: &Program, p: &ActionProfile) -> Vec<layout::EmptyGroupTable> {
    runtime_tables(prog, p)
        .into_iter()
        .map(|t| layout::EmptyGroupTable {
            table: t.name.clone(),
            actions: t
                .actions
                .iter()
                .filter_map(|a| Some(prog.action(*a)?.name.clone()))
                .collect(),
        })
        .collect()
}

/// The selector's tables with a `const psa_empty_group_action`.
fn const_empty_group_tables(prog: &Program, p: &ActionProfile) -> Vec<String> {
    p.tables
        .iter()
        .filter_map(|id| prog.table(*id))
        .filter(|t| {
            t.implementation
                .as_ref()
                .is_some_and(|im| im.empty_group_action.is_some() && !im.empty_group_runtime)
        })
        .map(|t| t.name.clone())
        .collect()
}
