//! The pipeline description ([`p4bpf_layout::Pipeline`]) of a compiled
//! program: every map the runtime fills or reads, by P4 name, with the byte
//! layouts [`crate::map_layout`] computed for the emitter.

use crate::ir::{Arch, CounterUnit, ExternKind, Program, Storage};
use crate::map_layout::{
    table_layout, TERNARY_BUCKET_RULES, TERNARY_FILTER_WORDS, TERNARY_HEAD_WITH_CELLS,
};
use p4bpf_layout as layout;

fn match_kind(kind: crate::ir::MatchKind) -> layout::MatchKind {
    match kind {
        crate::ir::MatchKind::Exact => layout::MatchKind::Exact,
        crate::ir::MatchKind::Lpm => layout::MatchKind::Lpm,
        crate::ir::MatchKind::Ternary => layout::MatchKind::Ternary,
        crate::ir::MatchKind::Range => layout::MatchKind::Range,
        crate::ir::MatchKind::Optional => layout::MatchKind::Optional,
    }
}

/// The fields of `t`'s key struct, in P4 order (`key.fieldN`); offsets
/// say where each lives.
pub fn key_fields(
    t: &crate::ir::Table,
    l: &crate::map_layout::TableLayout,
) -> Vec<layout::KeyField> {
    let fields = l.key.describe(0);
    let mut keyed: Vec<(usize, layout::KeyField)> = fields
        .into_iter()
        .zip(&l.key_order)
        .filter_map(|(field, i)| {
            t.keys.get(*i).map(|k| {
                (
                    *i,
                    layout::KeyField {
                        field,
                        match_kind: match_kind(k.kind),
                    },
                )
            })
        })
        .collect();
    keyed.sort_by_key(|(i, _)| *i);
    keyed.into_iter().map(|(_, k)| k).collect()
}

/// The actions `t` may run, with their codes and parameter layouts.
pub fn table_actions(
    prog: &Program,
    t: &crate::ir::Table,
    l: &crate::map_layout::TableLayout,
) -> Vec<layout::Action> {
    t.actions
        .iter()
        .filter_map(|a| {
            let action = prog.action(*a)?;
            Some(layout::Action {
                name: action.name.clone(),
                code: t.action_code(*a)?,
                params: l
                    .params_of(*a)
                    .map(|s| s.describe(l.union_offset))
                    .unwrap_or_default(),
                default_only: action.default_only,
                table_only: action.table_only,
            })
        })
        .collect()
}

pub fn describe(prog: &Program, hook: layout::Hook) -> layout::Pipeline {
    let mut tables = vec![];
    for (slot, t) in prog.tables.iter().enumerate() {
        if t.storage == Storage::Code {
            continue;
        }
        let l = table_layout(prog, t);
        let keys = key_fields(t, &l);
        let actions = match &t.implementation {
            Some(im) => crate::describe_profile::references(prog, im, &l),
            None => table_actions(prog, t, &l),
        };
        let storage = match t.storage {
            Storage::Array => layout::TableStorage::Array,
            Storage::LpmTrie => layout::TableStorage::LpmTrie,
            Storage::Ternary => layout::TableStorage::Ternary,
            Storage::DefaultOnly => layout::TableStorage::Keyless,
            Storage::Code => layout::TableStorage::Const,
            Storage::Hash => layout::TableStorage::Hash,
        };
        let key_size = l.key.size();
        let ternary = (t.storage == Storage::Ternary).then(|| {
            let shape = l.ternary_shape(t.size);
            layout::TernaryLayout {
                groups_map: format!("{}_groups", t.c_name),
                max_groups: shape.max_groups,
                groups_offset: shape.groups_offset,
                group_size: shape.group_size,
                filters_map: format!("{}_filters", t.c_name),
                filter_bits_offset: shape.filter_bits_offset,
                filter_words: TERNARY_FILTER_WORDS,
                bucket_key_offset: shape.key_offset,
                bucket_key_size: shape.bucket_key_size,
                bucket_size: shape.bucket_size,
                bucket_rules: TERNARY_BUCKET_RULES,
                rules_offset: shape.rules_offset,
                rule_size: shape.rule_size,
                rule_mask_offset: shape.rule_mask_offset,
                rule_bounds_offset: shape.rule_bounds_offset,
                rule_value_offset: shape.rule_value_offset,
                priority_offset: 4,
                partition: (l.ternary_cuts(t.size).into_iter())
                    .filter_map(|(j, bits)| {
                        let key = *l.key_order.get(j)? as u32;
                        Some(layout::PartitionCut { key, bits })
                    })
                    .collect(),
                cells: l.ternary_cells().then(|| layout::TernaryCells {
                    map: format!("{}_cells", t.c_name),
                    slots: shape.cell_slots,
                    slot_offset: 8,
                    head_size: TERNARY_HEAD_WITH_CELLS,
                }),
            }
        });
        tables.push(layout::Table {
            name: t.name.clone(),
            map: t.c_name.clone(),
            storage,
            size: t.size,
            keys,
            key_size,
            value_size: l.value_size,
            actions,
            default_map: crate::emit::runtime_default(t).then(|| crate::emit::defaults_map(prog)),
            default_slot: slot as u32,
            ternary,
        });
    }
    let counters = prog
        .counters()
        .map(|(c, sparse)| {
            let kind = match c.kind {
                ExternKind::Counter {
                    unit: CounterUnit::Bytes,
                    ..
                } => layout::CounterKind::Bytes,
                ExternKind::Counter {
                    unit: CounterUnit::PacketsAndBytes,
                    ..
                } => layout::CounterKind::PacketsAndBytes,
                _ => layout::CounterKind::Packets,
            };
            let value_size = if kind == layout::CounterKind::PacketsAndBytes {
                16
            } else {
                8
            };
            layout::Counter {
                name: c.name.clone(),
                map: c.c_name.clone(),
                kind,
                size: c.size,
                sparse,
                value_size,
            }
        })
        .collect();
    let value_sets = prog
        .value_sets
        .iter()
        .zip(0u32..)
        .map(|(v, index)| {
            let match_kinds: Vec<layout::MatchKind> =
                v.match_kinds.iter().map(|k| match_kind(*k)).collect();
            if v.scans() {
                return scanned_value_set(prog, v, match_kinds, index);
            }
            if let Some((fields, key_size)) = struct_members(prog, &v.ty) {
                return layout::ValueSet {
                    name: v.name.clone(),
                    map: v.c_name.clone(),
                    size: v.size,
                    fields,
                    key_size,
                    match_kinds,
                    index,
                };
            }
            let width = v.ty.width().unwrap_or(0);
            let len = crate::cstruct::Scalar::for_width(width).size();
            let field = layout::FieldLayout {
                name: "value".into(),
                bit_width: width,
                byte_offset: 0,
                byte_len: len,
                // Wide values are network-order bytes in the program.
                byte_order: if width > 64 {
                    layout::ByteOrder::Network
                } else {
                    layout::ByteOrder::Host
                },
                signed: false,
            };
            layout::ValueSet {
                name: v.name.clone(),
                map: v.c_name.clone(),
                size: v.size,
                fields: vec![field],
                key_size: len,
                match_kinds,
                index,
            }
        })
        .collect();
    layout::Pipeline {
        format_version: layout::FORMAT_VERSION,
        program: prog.name.clone(),
        architecture: match prog.arch {
            Arch::EbpfModel => layout::Architecture::EbpfModel,
            Arch::XdpModel => layout::Architecture::XdpModel,
            Arch::UbpfModel => layout::Architecture::UbpfModel,
            Arch::Pna | Arch::PnaTc => layout::Architecture::Pna,
            Arch::Psa => layout::Architecture::Psa,
            Arch::V1Model => layout::Architecture::V1Model,
        },
        hook,
        entry: crate::emit::entry_name(prog, hook),
        p4tc: prog.arch == Arch::PnaTc,
        tables,
        counters,
        meters: meters(prog),
        value_sets,
        port_map: crate::emit::port_map(prog),
        output_record: crate::emit::output_record(prog),
        ingress_port_map: crate::emit::ingress_port_map(prog),
        mtu_drops: crate::emit::mtu_drops_map(prog),
        trace: None,
        table_stats: None,
        table_acls: table_acls(prog),
        replication: crate::emit::replication_description(prog, hook),
        mirror_sessions: crate::emit::mirror_sessions_description(prog, hook),
        profiles: crate::describe_profile::profiles(prog),
        direct: crate::emit::direct_description(prog),
        digests: crate::emit::digest::describe(prog),
        register_initials: crate::emit::register_initials(prog),
        initial_entries: crate::describe_entries::initial_entries(prog),
        composite_registers: crate::emit::composite_registers(prog),
        idle_timers: idle_timers(prog),
        table_caches: None,
    }
}

/// The tables whose entries have idle timers.
fn idle_timers(prog: &Program) -> Vec<layout::IdleTimer> {
    prog.tables
        .iter()
        .filter_map(|t| {
            t.entry_timer.map(|timer| layout::IdleTimer {
                table: t.name.clone(),
                notify: timer.notify,
            })
        })
        .collect()
}

/// The control-plane half of each table's `@tc_acl`.
fn table_acls(prog: &Program) -> Vec<layout::TableAcl> {
    prog.tables
        .iter()
        .filter_map(|t| {
            let acl = t.tc_acl.as_ref()?;
            Some(layout::TableAcl {
                table: t.name.clone(),
                annotation: acl.annotation.clone(),
                control: acl.control.clone(),
            })
        })
        .collect()
}

/// The meters the control plane sets, by P4 name.
fn meters(prog: &Program) -> Vec<layout::Meter> {
    prog.externs
        .iter()
        .filter_map(|x| match x.kind {
            ExternKind::Meter { bytes } => Some(layout::Meter {
                name: x.name.clone(),
                map: x.c_name.clone(),
                bytes,
                size: x.size,
            }),
            _ => None,
        })
        .collect()
}

/// The members of a struct value set's element, nested structs flattened
/// in order, where the C struct of the map's key holds them (natural
/// alignment, as clang lays it out), and that struct's size; `None` for
/// an element that is not a struct.
fn struct_members(prog: &Program, ty: &crate::ir::Ty) -> Option<(Vec<layout::FieldLayout>, u32)> {
    fn walk(
        prog: &Program,
        ty: &crate::ir::Ty,
        base: u32,
        prefix: &str,
        out: &mut Vec<layout::FieldLayout>,
    ) -> (u32, u32) {
        use crate::cstruct::Scalar;
        let crate::ir::Ty::Struct(agg) = ty else {
            let width = ty.width().unwrap_or(8);
            let scalar = Scalar::for_width(width);
            out.push(layout::FieldLayout {
                name: prefix.to_string(),
                bit_width: width,
                byte_offset: base,
                byte_len: scalar.size(),
                byte_order: if width > 64 {
                    layout::ByteOrder::Network
                } else {
                    layout::ByteOrder::Host
                },
                signed: false,
            });
            let align = if width > 64 { 1 } else { scalar.size() };
            return (scalar.size(), align);
        };
        let (mut size, mut align) = (0u32, 1u32);
        for f in prog.agg(*agg).map_or(&[][..], |a| &a.fields) {
            let mut inner = vec![];
            let name = if prefix.is_empty() {
                f.name.clone()
            } else {
                format!("{prefix}.{}", f.name)
            };
            let (f_size, f_align) = walk(prog, &f.ty, 0, &name, &mut inner);
            let offset = size.div_ceil(f_align) * f_align;
            out.extend(inner.into_iter().map(|l| layout::FieldLayout {
                byte_offset: base + offset + l.byte_offset,
                ..l
            }));
            size = offset + f_size;
            align = align.max(f_align);
        }
        (size.div_ceil(align).max(1) * align, align)
    }
    if !matches!(ty, crate::ir::Ty::Struct(_)) {
        return None;
    }
    let mut fields = vec![];
    let (size, _) = walk(prog, ty, 0, "", &mut fields);
    Some((fields, size))
}

/// A value set with inexact members: its fields named and sized as the
/// element's, each placed at its `(mask, lo, hi)` in the map's slot.
fn scanned_value_set(
    prog: &Program,
    v: &crate::ir::ValueSet,
    match_kinds: Vec<layout::MatchKind>,
    index: u32,
) -> layout::ValueSet {
    let members = struct_members(prog, &v.ty).map_or(vec![], |(fields, _)| fields);
    let fields = members
        .into_iter()
        .zip(0u32..)
        .map(|(f, i)| layout::FieldLayout {
            byte_offset: layout::ValueSet::SLOT_HEADER_BYTES
                + i * layout::ValueSet::SLOT_FIELD_BYTES,
            byte_len: layout::ValueSet::SLOT_FIELD_BYTES,
            byte_order: layout::ByteOrder::Host,
            ..f
        })
        .collect();
    layout::ValueSet {
        name: v.name.clone(),
        map: v.c_name.clone(),
        size: v.size,
        fields,
        key_size: 4,
        match_kinds,
        index,
    }
}
