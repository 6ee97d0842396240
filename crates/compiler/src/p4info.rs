//! P4Info in protobuf text format (`prog.p4info.txtpb`): what a P4Runtime
//! controller needs to address the program's tables, actions, counters,
//! registers and value sets.
//!
//! IDs follow the P4Runtime rules: the top 8 bits say the resource type
//! (0x01 action, 0x02 table, 0x03 value set, 0x11 action profile,
//! 0x12 counter, 0x14 meter, 0x16 register, 0x17 digest: the
//! specification's `P4Ids.Prefix`), the low 24 bits
//! are the Jenkins one-at-a-time hash of the fully-qualified name, probed
//! linearly on collision; `@id(N)` wins and is assigned first; names are
//! hashed in sorted order so the IDs do not depend on declaration order.
//! Aliases are the shortest unique dotted suffix.
//!
//! As p4c, only actions the program uses are listed (in a table's
//! `actions`, or called from a control or parser), with the parameters
//! the control plane gives (those without a direction).

use crate::ir::{
    Action, ActionProfile, AggId, CounterUnit, ExternKind, MatchKind, Program, Storage, Ty,
};
use crate::midend::visit::{walk_stmts, CalledActions};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

const ACTION: u32 = 0x01;
const TABLE: u32 = 0x02;
const VALUE_SET: u32 = 0x03;
const ACTION_PROFILE: u32 = 0x11;
const COUNTER: u32 = 0x12;
const METER: u32 = 0x14;
const REGISTER: u32 = 0x16;
const DIRECT_COUNTER: u32 = 0x13;
const DIRECT_METER: u32 = 0x15;
const DIGEST: u32 = 0x17;

pub fn jenkins_one_at_a_time(bytes: &[u8]) -> u32 {
    let mut hash: u32 = 0;
    for b in bytes {
        hash = hash.wrapping_add(u32::from(*b));
        hash = hash.wrapping_add(hash << 10);
        hash ^= hash >> 6;
    }
    hash = hash.wrapping_add(hash << 3);
    hash ^= hash >> 11;
    hash.wrapping_add(hash << 15)
}

/// IDs of every named resource, by (type prefix, name).
struct Ids {
    ids: BTreeMap<(u32, String), u32>,
}

impl Ids {
    fn new(resources: &[(u32, String, Option<u32>)]) -> Ids {
        let mut taken = BTreeSet::new();
        let mut ids = BTreeMap::new();
        for (prefix, name, fixed) in resources {
            if let Some(id) = fixed {
                taken.insert(*id);
                ids.insert((*prefix, name.clone()), *id);
            }
        }
        let mut pending: Vec<&(u32, String, Option<u32>)> =
            resources.iter().filter(|r| r.2.is_none()).collect();
        pending.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        pending.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
        for (prefix, name, _) in pending {
            let mut low = jenkins_one_at_a_time(name.as_bytes()) & 0xff_ffff;
            // 2^24 candidates per type: a program cannot exhaust them.
            for _ in 0..0x100_0000u32 {
                let id = (prefix << 24) | low;
                if taken.insert(id) {
                    ids.insert((*prefix, name.clone()), id);
                    break;
                }
                low = (low + 1) & 0xff_ffff;
            }
        }
        Ids { ids }
    }

    fn get(&self, prefix: u32, name: &str) -> u32 {
        self.ids
            .get(&(prefix, name.to_string()))
            .copied()
            .unwrap_or(0)
    }
}

/// The shortest dotted suffix of `name` no other name ends with.
fn alias(name: &str, all: &[String]) -> String {
    let parts: Vec<&str> = name.split('.').collect();
    for n in 1..=parts.len() {
        let suffix = parts[parts.len() - n..].join(".");
        let clash = all
            .iter()
            .filter(|other| other.as_str() != name)
            .any(|other| other == &suffix || other.ends_with(&format!(".{suffix}")));
        if !clash {
            return suffix;
        }
    }
    name.to_string()
}

fn preamble(out: &mut String, id: u32, name: &str, all: &[String]) {
    let _ = write!(
        out,
        "  preamble {{\n    id: {id}\n    name: \"{name}\"\n    alias: \"{}\"\n  }}\n",
        alias(name, all)
    );
}

/// A key's P4Info name: p4c names a validity key `h.isValid()` after the
/// header's hidden validity field, `h.$valid$`.
fn match_field_name(key: &str) -> String {
    match key.strip_suffix(".isValid()") {
        Some(header) => format!("{header}.$valid$"),
        None => key.to_string(),
    }
}

/// Names of the actions tables list or take as default (`NoAction` when a
/// table names none) or controls and parsers call, but not `@hidden` ones.
/// A call from an action is not a use: p4c's front end inlines it and
/// drops the callee if nothing else uses it.
fn used_action_names(prog: &Program) -> BTreeSet<&str> {
    let mut calls = CalledActions::default();
    for state in prog.parsers.iter().flat_map(|p| &p.states) {
        walk_stmts(&mut calls, &state.stmts);
    }
    for c in &prog.controls {
        walk_stmts(&mut calls, &c.body);
    }
    let listed = prog
        .tables
        .iter()
        .flat_map(|t| t.actions.iter().chain([&t.default_action.action]));
    calls
        .0
        .iter()
        .chain(listed)
        .filter_map(|id| prog.action(*id))
        .filter(|a| !a.hidden)
        .map(|a| a.name.as_str())
        .collect()
}

/// Actions as the control plane sees them: each used action once, as the
/// `actions`-list wrapper (no directional parameters) when there is one.
fn listed_actions(prog: &Program) -> Vec<&Action> {
    let used = used_action_names(prog);
    let mut listed: Vec<&Action> = vec![];
    for a in prog
        .actions
        .iter()
        .filter(|a| used.contains(a.name.as_str()))
    {
        match listed.iter_mut().find(|b| b.name == a.name) {
            Some(b) if a.directional < b.directional => *b = a,
            Some(_) => {}
            None => listed.push(a),
        }
    }
    listed
}

pub fn write(prog: &Program) -> String {
    let tables: Vec<_> = prog.tables.iter().collect();
    let actions = listed_actions(prog);
    let mut resources = vec![];
    resources.extend(actions.iter().map(|a| (ACTION, a.name.clone(), a.p4_id)));
    resources.extend(tables.iter().map(|t| (TABLE, t.name.clone(), t.p4_id)));
    resources.extend(
        prog.value_sets
            .iter()
            .map(|v| (VALUE_SET, v.name.clone(), v.p4_id)),
    );
    resources.extend(
        prog.counters()
            .map(|(c, _)| (COUNTER, c.name.clone(), c.p4_id)),
    );
    resources.extend(prog.externs.iter().filter_map(|x| match x.kind {
        ExternKind::Register { .. } => Some((REGISTER, x.name.clone(), x.p4_id)),
        ExternKind::Meter { .. } => Some((METER, x.name.clone(), x.p4_id)),
        ExternKind::Counter { .. } => None,
        ExternKind::DirectCounter { .. } => Some((DIRECT_COUNTER, x.name.clone(), x.p4_id)),
        ExternKind::DirectMeter { .. } => Some((DIRECT_METER, x.name.clone(), x.p4_id)),
    }));
    resources.extend(profiles(prog).map(|p| (ACTION_PROFILE, p.name.clone(), p.p4_id)));
    resources.extend(
        prog.digests
            .iter()
            .map(|d| (DIGEST, d.name.clone(), d.p4_id)),
    );
    let ids = Ids::new(&resources);
    let all: Vec<String> = resources.iter().map(|r| r.1.clone()).collect();
    let arch = prog.arch.name();
    let mut out = format!(
        "# P4Info of {}.p4, written by p4bpf.\npkg_info {{\n  arch: \"{arch}\"\n}}\n",
        prog.name
    );
    for t in &tables {
        out.push_str("tables {\n");
        preamble(&mut out, ids.get(TABLE, &t.name), &t.name, &all);
        for (i, k) in t.keys.iter().enumerate() {
            let kind = match_type(k.kind);
            let _ = write!(out, "  match_fields {{\n    id: {}\n    name: \"{}\"\n    bitwidth: {}\n    match_type: {kind}\n  }}\n", i + 1, match_field_name(&k.name), k.expr.ty.width().unwrap_or(0));
        }
        for a in &t.actions {
            let Some(action) = prog.action(*a) else {
                continue;
            };
            let scope = if action.default_only {
                "\n    scope: DEFAULT_ONLY"
            } else if action.table_only {
                "\n    scope: TABLE_ONLY"
            } else {
                ""
            };
            let _ = write!(
                out,
                "  action_refs {{\n    id: {}{scope}\n  }}\n",
                ids.get(ACTION, &action.name)
            );
        }
        if t.default_is_const {
            if let Some(a) = prog.action(t.default_action.action) {
                let _ = writeln!(
                    out,
                    "  const_default_action_id: {}",
                    ids.get(ACTION, &a.name)
                );
            }
        }
        if t.storage == Storage::Code {
            out.push_str("  is_const_table: true\n");
        }
        if let Some(p) = t
            .implementation
            .as_ref()
            .and_then(|im| prog.profile(im.profile))
        {
            let _ = writeln!(
                out,
                "  implementation_id: {}",
                ids.get(ACTION_PROFILE, &p.name)
            );
        }
        for x in &t.direct {
            if let Some(x) = prog.extern_instance(*x) {
                let prefix = match x.kind {
                    ExternKind::DirectMeter { .. } => DIRECT_METER,
                    _ => DIRECT_COUNTER,
                };
                let _ = writeln!(out, "  direct_resource_ids: {}", ids.get(prefix, &x.name));
            }
        }
        let _ = writeln!(out, "  size: {}", t.size);
        // NOTIFY_CONTROL (PNA, PSA): the P4Runtime server reports idle entries.
        if t.entry_timer.is_some_and(|timer| timer.notify) {
            out.push_str("  idle_timeout_behavior: NOTIFY_CONTROL\n");
        }
        out.push_str("}\n");
    }
    for a in &actions {
        out.push_str("actions {\n");
        preamble(&mut out, ids.get(ACTION, &a.name), &a.name, &all);
        let control_plane_params = a.params.iter().skip(a.directional);
        for (i, v) in control_plane_params.enumerate() {
            let Some(var) = prog.var(*v) else { continue };
            let _ = write!(
                out,
                "  params {{\n    id: {}\n    name: \"{}\"\n    bitwidth: {}\n  }}\n",
                i + 1,
                var.p4_name,
                var.ty.width().unwrap_or(0)
            );
        }
        out.push_str("}\n");
    }
    write_profiles(&mut out, prog, &ids, &all);
    for (c, _) in prog.counters() {
        out.push_str("counters {\n");
        preamble(&mut out, ids.get(COUNTER, &c.name), &c.name, &all);
        let unit = match c.kind {
            ExternKind::Counter {
                unit: CounterUnit::Bytes,
                ..
            } => "BYTES",
            ExternKind::Counter {
                unit: CounterUnit::PacketsAndBytes,
                ..
            } => "BOTH",
            _ => "PACKETS",
        };
        let _ = write!(
            out,
            "  spec {{\n    unit: {unit}\n  }}\n  size: {}\n}}\n",
            c.size
        );
    }
    write_direct(&mut out, prog, &ids, &all, DIRECT_COUNTER);
    write_meters(&mut out, prog, &ids, &all);
    write_direct(&mut out, prog, &ids, &all, DIRECT_METER);
    let mut structs = BTreeMap::new();
    write_registers(&mut out, prog, &ids, &all, &mut structs);
    write_value_sets(&mut out, prog, &ids, &all);
    write_digests(&mut out, prog, &ids, &all, &mut structs);
    write_type_info(&mut out, prog, &structs);
    out
}

/// Each register with its value's type: a bit string, or a struct by
/// name (noted in `structs` for `type_info`).
fn write_registers(
    out: &mut String,
    prog: &Program,
    ids: &Ids,
    all: &[String],
    structs: &mut BTreeMap<String, AggId>,
) {
    for x in &prog.externs {
        let ExternKind::Register { value, .. } = &x.kind else {
            continue;
        };
        out.push_str("registers {\n");
        preamble(out, ids.get(REGISTER, &x.name), &x.name, all);
        out.push_str(&type_spec(prog, value, "  ", structs));
        let _ = write!(out, "  size: {}\n}}\n", x.size);
    }
}

/// A `type_spec` block for `ty` indented by `indent`: a bit string, an
/// `int<W>`, a bool, or a struct by name (noted in `structs`, with the structs it
/// holds, for `type_info`).
fn type_spec(
    prog: &Program,
    ty: &Ty,
    indent: &str,
    structs: &mut BTreeMap<String, AggId>,
) -> String {
    let body = match ty {
        Ty::Struct(agg) => {
            let name = prog.agg(*agg).map(|a| a.name.clone()).unwrap_or_default();
            note_struct(prog, *agg, structs);
            format!("{indent}  struct {{\n{indent}    name: \"{name}\"\n{indent}  }}\n")
        }
        Ty::Bool => format!("{indent}  bool {{\n{indent}  }}\n"),
        Ty::Bits {
            width,
            signed: true,
        } => format!(
            "{indent}  bitstring {{\n{indent}    int {{\n{indent}      bitwidth: {width}\n{indent}    }}\n{indent}  }}\n"
        ),
        ty => format!(
            "{indent}  bitstring {{\n{indent}    bit {{\n{indent}      bitwidth: {}\n{indent}    }}\n{indent}  }}\n",
            ty.width().unwrap_or(0)
        ),
    };
    format!("{indent}type_spec {{\n{body}{indent}}}\n")
}

/// Notes struct `agg` and the structs its fields hold.
fn note_struct(prog: &Program, agg: AggId, structs: &mut BTreeMap<String, AggId>) {
    let Some(a) = prog.agg(agg) else { return };
    if structs.insert(a.name.clone(), agg).is_some() {
        return;
    }
    for f in &a.fields {
        if let Ty::Struct(inner) = f.ty {
            note_struct(prog, inner, structs);
        }
    }
}

/// The action profiles some table names.
fn profiles(prog: &Program) -> impl Iterator<Item = &ActionProfile> {
    prog.profiles.iter().filter(|p| !p.tables.is_empty())
}

/// `action_profiles`: the tables naming each, whether it selects, its
/// size and, when the program says, its `max_group_size`.
fn write_profiles(out: &mut String, prog: &Program, ids: &Ids, all: &[String]) {
    for p in profiles(prog) {
        out.push_str("action_profiles {\n");
        preamble(out, ids.get(ACTION_PROFILE, &p.name), &p.name, all);
        for t in p.tables.iter().filter_map(|t| prog.table(*t)) {
            let _ = writeln!(out, "  table_ids: {}", ids.get(TABLE, &t.name));
        }
        if p.selector.is_some() {
            out.push_str("  with_selector: true\n");
        }
        let _ = writeln!(out, "  size: {}", p.size);
        let declared = p.selector.map_or(0, |s| s.declared_max_group_size);
        if declared > 0 {
            let _ = writeln!(out, "  max_group_size: {declared}");
        }
        out.push_str("}\n");
    }
}

/// Each digest with its struct type by name (noted in `structs`) or its
/// bit string.
fn write_digests(
    out: &mut String,
    prog: &Program,
    ids: &Ids,
    all: &[String],
    structs: &mut BTreeMap<String, AggId>,
) {
    for d in &prog.digests {
        out.push_str("digests {\n");
        preamble(out, ids.get(DIGEST, &d.name), &d.name, all);
        out.push_str(&type_spec(prog, &d.ty, "  ", structs));
        out.push_str("}\n");
    }
}

/// `type_info` with the members of `structs` (p4c names `new_type`s
/// there too; we give their widths).
fn write_type_info(out: &mut String, prog: &Program, structs: &BTreeMap<String, AggId>) {
    if structs.is_empty() {
        return;
    }
    // `structs` holds the nested structs already (`note_struct`).
    let mut nested = BTreeMap::new();
    out.push_str("type_info {\n");
    for (name, agg) in structs {
        let _ = write!(out, "  structs {{\n    key: \"{name}\"\n    value {{\n");
        let fields = prog.agg(*agg).map(|a| a.fields.as_slice());
        for f in fields.unwrap_or_default() {
            let spec = type_spec(prog, &f.ty, "        ", &mut nested);
            let _ = write!(
                out,
                "      members {{\n        name: \"{}\"\n{spec}      }}\n",
                f.name
            );
        }
        out.push_str("    }\n  }\n");
    }
    out.push_str("}\n");
}

fn write_meters(out: &mut String, prog: &Program, ids: &Ids, all: &[String]) {
    for x in &prog.externs {
        let ExternKind::Meter { bytes } = x.kind else {
            continue;
        };
        out.push_str("meters {\n");
        preamble(out, ids.get(METER, &x.name), &x.name, all);
        let unit = if bytes { "BYTES" } else { "PACKETS" };
        let _ = write!(
            out,
            "  spec {{\n    unit: {unit}\n  }}\n  size: {}\n}}\n",
            x.size
        );
    }
}

/// `direct_counters` or `direct_meters` (by `prefix`): each with the
/// first table naming it (P4Runtime has one table per direct resource).
fn write_direct(out: &mut String, prog: &Program, ids: &Ids, all: &[String], prefix: u32) {
    for (i, x) in prog.externs.iter().enumerate() {
        let (section, unit) = match x.kind {
            ExternKind::DirectCounter { unit, .. } if prefix == DIRECT_COUNTER => (
                "direct_counters",
                match unit {
                    CounterUnit::Packets => "PACKETS",
                    CounterUnit::Bytes => "BYTES",
                    CounterUnit::PacketsAndBytes => "BOTH",
                },
            ),
            ExternKind::DirectMeter { bytes, .. } if prefix == DIRECT_METER => {
                ("direct_meters", if bytes { "BYTES" } else { "PACKETS" })
            }
            _ => continue,
        };
        let id = crate::ir::ExternId(i as u32);
        let Some(table) = prog.tables.iter().find(|t| t.direct.contains(&id)) else {
            continue;
        };
        let _ = writeln!(out, "{section} {{");
        preamble(out, ids.get(prefix, &x.name), &x.name, all);
        let _ = write!(
            out,
            "  spec {{\n    unit: {unit}\n  }}\n  direct_table_id: {}\n}}\n",
            ids.get(TABLE, &table.name)
        );
    }
}

/// P4Info's `MatchType` name of `kind`.
fn match_type(kind: MatchKind) -> &'static str {
    match kind {
        MatchKind::Exact => "EXACT",
        MatchKind::Lpm => "LPM",
        MatchKind::Ternary => "TERNARY",
        MatchKind::Range => "RANGE",
        MatchKind::Optional => "OPTIONAL",
    }
}

/// `value_sets`, as p4c writes them: a bit-string element is one unnamed
/// exact field; a struct element one field per member (nested structs
/// flattened, dotted), named, of the kind its `@match` says.
fn write_value_sets(out: &mut String, prog: &Program, ids: &Ids, all: &[String]) {
    for v in &prog.value_sets {
        out.push_str("value_sets {\n");
        preamble(out, ids.get(VALUE_SET, &v.name), &v.name, all);
        let mut fields = vec![];
        member_fields(prog, &v.ty, "", &mut fields);
        for (i, ((name, width), kind)) in fields.iter().zip(&v.match_kinds).enumerate() {
            let _ = writeln!(out, "  match {{\n    id: {}", i + 1);
            if !name.is_empty() {
                let _ = writeln!(out, "    name: \"{name}\"");
            }
            let _ = writeln!(
                out,
                "    bitwidth: {width}\n    match_type: {}\n  }}",
                match_type(*kind)
            );
        }
        let _ = writeln!(out, "  size: {}\n}}", v.size);
    }
}

/// The (dotted name, width) of each bit-string leaf of `ty`.
fn member_fields(prog: &Program, ty: &Ty, prefix: &str, out: &mut Vec<(String, u32)>) {
    let crate::ir::Ty::Struct(agg) = ty else {
        out.push((prefix.to_string(), ty.width().unwrap_or(0)));
        return;
    };
    for f in prog.agg(*agg).map_or(&[][..], |a| &a.fields) {
        let name = if prefix.is_empty() {
            f.name.clone()
        } else {
            format!("{prefix}.{}", f.name)
        };
        member_fields(prog, &f.ty, &name, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jenkins_hash_matches_known_values() {
        assert_eq!(jenkins_one_at_a_time(b"a"), 0xca2e_9442);
        assert_eq!(
            jenkins_one_at_a_time(b"The quick brown fox jumps over the lazy dog"),
            0x519e_91f5
        );
    }

    #[test]
    fn fixed_ids_win_and_collisions_probe_upwards() {
        let name = "pipe.t".to_string();
        let hashed = (TABLE << 24) | (jenkins_one_at_a_time(name.as_bytes()) & 0xff_ffff);
        let ids = Ids::new(&[
            (TABLE, "other".into(), Some(hashed)),
            (TABLE, name.clone(), None),
        ]);
        assert_eq!(ids.get(TABLE, "other"), hashed);
        assert_eq!(
            ids.get(TABLE, &name),
            (TABLE << 24) | ((hashed + 1) & 0xff_ffff)
        );
    }

    #[test]
    fn aliases_are_the_shortest_unique_suffix() {
        let all = vec![
            "pipe.c1.Reject".to_string(),
            "pipe.Reject".to_string(),
            "pipe.t".to_string(),
        ];
        assert_eq!(alias("pipe.t", &all), "t");
        assert_eq!(alias("pipe.c1.Reject", &all), "c1.Reject");
        assert_eq!(alias("pipe.Reject", &all), "pipe.Reject");
    }
}
