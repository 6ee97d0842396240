//! Action profiles and selectors in C. A profile is a hash map of members
//! (member id -> the action code and arguments, as a table's value holds
//! them); a selector adds a hash map of groups (group id -> a count and
//! the member ids). A table naming a profile stores a reference (code
//! [`MEMBER`] or [`GROUP`] and an id); on a hit one more lookup finds the
//! member, after hashing the selector keys to pick one of a group's.

use super::c::{line, CStmt};
use super::maps::map_def;
use super::stmt::Ctx;
use super::Emitter;
use crate::ir::{ActionId, ActionProfile, Builtin, Expr, ExprKind, Program, Storage, Table, Ty};
use crate::map_layout::{table_layout, TableLayout};

/// Action code of a table entry naming a member.
pub const MEMBER: u32 = 1;
/// Action code of a table entry naming a group.
pub const GROUP: u32 = 2;

/// The layout of a profile's member values.
pub fn member_layout(prog: &Program, profile: &ActionProfile) -> Option<TableLayout> {
    Some(table_layout(prog, &members_table(prog, profile)?))
}

/// The profile's members as a hash table over every action of the tables
/// sharing it, codes in [`ActionProfile::actions`]'s order. Direct
/// counters and meters, and entry timers, stay with the tables' entries,
/// not the members.
pub fn members_table(prog: &Program, profile: &ActionProfile) -> Option<Table> {
    let first = prog.table(*profile.tables.first()?)?;
    Some(Table {
        keys: vec![],
        actions: profile.actions.clone(),
        storage: Storage::Hash,
        implementation: None,
        direct: vec![],
        entry_timer: None,
        ..first.clone()
    })
}

/// Map names of a profile: its members, and a selector's groups.
pub fn members_map(profile: &ActionProfile) -> String {
    format!("{}_members", profile.c_name)
}

pub fn groups_map(profile: &ActionProfile) -> String {
    format!("{}_groups", profile.c_name)
}

impl Emitter<'_> {
    /// The member layout of the profile `t` names, if it names one.
    pub(super) fn member_layout_of(&self, t: &Table) -> Option<TableLayout> {
        let profile = self.prog.profile(t.implementation.as_ref()?.profile)?;
        member_layout(self.prog, profile)
    }

    /// The code `action` has in `t`'s switch: its code among the
    /// profile's members when `t` names a profile, else `code` (its code
    /// in `t`). Where they differ, `call` first sets `action` to `code`,
    /// the one `action_run` compares with.
    pub(super) fn member_code(
        &self,
        t: &Table,
        action: ActionId,
        code: u32,
        call: &mut Vec<CStmt>,
    ) -> u32 {
        let profile = t
            .implementation
            .as_ref()
            .and_then(|im| self.prog.profile(im.profile));
        match profile.and_then(|p| p.action_code(action)) {
            Some(member) if member != code => {
                call.insert(0, line(format!("action = {code}")));
                member
            }
            _ => code,
        }
    }

    /// Structs and maps of every profile some table uses.
    pub(super) fn profile_maps(&self) -> String {
        let mut out = String::new();
        for p in &self.prog.profiles {
            let Some(l) = member_layout(self.prog, p) else {
                continue;
            };
            let kind = if p.selector.is_some() {
                "action selector"
            } else {
                "action profile"
            };
            out.push_str(&format!(
                "/* {kind} {}: members by id */\nstruct {}_member {{\n    u32 action;\n{}}};\n",
                p.name,
                p.c_name,
                self.param_union(&l)
            ));
            out.push_str(&format!(
                "_Static_assert(sizeof(struct {}_member) == {}, \"member layout\");\n",
                p.c_name, l.value_size
            ));
            let member = format!("struct {}_member", p.c_name);
            out.push_str(&map_def(
                "BPF_MAP_TYPE_HASH",
                "u32",
                &member,
                p.size,
                None,
                &members_map(p),
            ));
            if let Some(s) = &p.selector {
                out.push_str(&format!(
                    "/* groups of {}: a count, then member ids */\nstruct {}_group {{\n    u32 count;\n    u32 members[{}];\n}};\n",
                    p.name, p.c_name, s.max_group_size
                ));
                let group = format!("struct {}_group", p.c_name);
                out.push_str(&map_def(
                    "BPF_MAP_TYPE_HASH",
                    "u32",
                    &group,
                    p.size,
                    None,
                    &groups_map(p),
                ));
                out.push_str(&self.empty_groups_definition(p));
            }
        }
        out
    }

    /// After the lookup of table `t` (its reference in `value`, its code in
    /// `action`): the member it names in `member`, its action in `action`;
    /// `empty_group` set when a group with no members was named and the
    /// table has an action for that.
    pub(super) fn resolve_member(&self, t: &Table) -> Vec<CStmt> {
        let Some((mut out, resolution)) = self.member_parts(t) else {
            return vec![];
        };
        out.push(resolution);
        out.push(line("action = member ? member->action : 0"));
        out
    }

    /// The declarations of `member` (and `empty_group`), and the `if`
    /// finding the member the reference in `value` names.
    pub(super) fn member_parts(&self, t: &Table) -> Option<(Vec<CStmt>, CStmt)> {
        let im = t.implementation.as_ref()?;
        let p = self.prog.profile(im.profile)?;
        let empty_action = im.empty_group_action.is_some();
        let mut out = vec![
            CStmt::Comment(format!("the entry names a member or a group of {}", p.name)),
            line(format!("struct {}_member *member = 0", p.c_name)),
        ];
        if empty_action {
            out.push(line("u8 empty_group = 0"));
        }
        let by_group = match &p.selector {
            Some(s) => vec![CStmt::If {
                cond: format!("value && action == {GROUP}"),
                then: self.pick_from_group(t, p, s.max_group_size, empty_action),
                other: vec![],
            }],
            None => vec![],
        };
        let resolution = CStmt::If {
            cond: format!("value && action == {MEMBER}"),
            then: vec![line(format!(
                "member = bpf_map_lookup_elem(&{}, &value->ref)",
                members_map(p)
            ))],
            other: by_group,
        };
        Some((out, resolution))
    }

    /// One member of the group `value` names, by the hash of `t`'s
    /// selector keys modulo the group's count.
    fn pick_from_group(
        &self,
        t: &Table,
        p: &ActionProfile,
        max: u32,
        empty_action: bool,
    ) -> Vec<CStmt> {
        let (Some(selector), Some(im)) = (p.selector, &t.implementation) else {
            return vec![];
        };
        let hash = Expr {
            kind: ExprKind::Builtin {
                func: Builtin::Hash(selector.algorithm),
                args: im.selector_keys.clone(),
            },
            ty: Ty::bits(64),
        };
        vec![
            line(format!(
                "struct {}_group *group = bpf_map_lookup_elem(&{}, &value->ref)",
                p.c_name,
                groups_map(p)
            )),
            CStmt::If {
                cond: "group && group->count".into(),
                then: vec![
                    line(format!(
                        "u32 pick = (u32)(({}) % group->count)",
                        self.expr(&hash)
                    )),
                    CStmt::If {
                        cond: format!("pick < {max}"),
                        then: vec![line(format!(
                            "member = bpf_map_lookup_elem(&{}, &group->members[pick])",
                            members_map(p)
                        ))],
                        other: vec![],
                    },
                ],
                other: self.on_empty_group(t, p, empty_action),
            },
        ]
    }

    /// The action `switch` of table `t`, or, when `t` has an empty group
    /// action, that action for a group with no members instead.
    pub(super) fn unless_empty_group(&self, t: &Table, switch: CStmt, cx: &Ctx) -> Vec<CStmt> {
        let Some(empty) = t
            .implementation
            .as_ref()
            .and_then(|im| im.empty_group_action.as_ref())
        else {
            return vec![switch];
        };
        let code = t.action_code(empty.action).unwrap_or(0);
        let args: Vec<String> = empty.args.iter().map(|a| self.expr(a)).collect();
        let mut then = vec![line(format!("action = {code}"))];
        then.extend(self.call_action(empty.action, &args, cx));
        vec![CStmt::If {
            cond: "empty_group".into(),
            then,
            other: vec![switch],
        }]
    }
}
