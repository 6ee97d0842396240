//! P4Info ids to the pipeline description's tables, key fields, actions,
//! parameters and counters. The P4Info is the controller's (it came with
//! `SetForwardingPipelineConfig`); every name in it is resolved once, by
//! `p4bpf_runtime::names`, against the description inside the object, so
//! a P4Info that does not belong to the object is refused at once rather
//! than at the first write. Tables the object keeps no map for (all
//! entries const) are known but read-only.

use crate::failure::{Failure, Outcome};
use crate::proto::p4::config::v1::{match_field, MatchField, P4Info, Preamble};
use p4bpf_layout::{MatchKind, Pipeline};
use p4bpf_runtime::names;
use std::collections::HashMap;

/// P4Info's `MatchField.MatchType` numbers.
const EXACT: i32 = 2;
const LPM: i32 = 3;
const TERNARY: i32 = 4;
const RANGE: i32 = 5;
const OPTIONAL: i32 = 6;

pub struct Schema {
    pub p4info: P4Info,
    pub pipeline: Pipeline,
    tables: HashMap<u32, TableIds>,
    /// Counter id to its index in `pipeline.counters`.
    counters: HashMap<u32, usize>,
}

pub struct TableIds {
    pub id: u32,
    pub name: String,
    /// Index in `pipeline.tables`; `None` for a table without a map.
    pub index: Option<usize>,
    pub fields: Vec<FieldIds>,
    pub actions: Vec<ActionIds>,
    /// Whether entries carry a priority (a ternary, range or optional key).
    pub needs_priority: bool,
}

#[derive(Clone, Debug)]
pub struct FieldIds {
    pub id: u32,
    pub name: String,
    /// Index in the description table's keys.
    pub key: usize,
    pub bitwidth: u32,
    pub kind: MatchKind,
    /// An `int<W>` (the layout's `signed`): its values are two's
    /// complement bytestrings.
    pub signed: bool,
}

pub struct ActionIds {
    pub id: u32,
    pub name: String,
    /// Index in the description table's actions.
    pub index: usize,
    /// (param id, index in the action's params, bitwidth, name, whether
    /// an `int<W>`).
    pub params: Vec<(u32, usize, u32, String, bool)>,
}

impl Schema {
    /// Resolve every table, action and counter of `p4info` in `pipeline`.
    pub fn new(p4info: P4Info, pipeline: Pipeline) -> Outcome<Schema> {
        let mut tables = HashMap::new();
        for table in &p4info.tables {
            let ids = table_ids(&p4info, &pipeline, table)?;
            tables.insert(ids.id, ids);
        }
        let mut counters = HashMap::new();
        for counter in &p4info.counters {
            let preamble = preamble(&counter.preamble)?;
            let found = names::counter(&pipeline, &preamble.name).map_err(mismatch)?;
            let index = pipeline.counters.iter().position(|c| c.name == found.name);
            if let Some(index) = index {
                counters.insert(preamble.id, index);
            }
        }
        Ok(Schema {
            p4info,
            pipeline,
            tables,
            counters,
        })
    }

    pub fn table(&self, id: u32) -> Outcome<&TableIds> {
        self.tables
            .get(&id)
            .ok_or_else(|| Failure::not_found(format!("no table with id {id} in the P4Info")))
    }

    /// Every table id, in P4Info order.
    pub fn table_ids(&self) -> Vec<u32> {
        self.p4info
            .tables
            .iter()
            .filter_map(|t| t.preamble.as_ref().map(|p| p.id))
            .collect()
    }

    /// The description's table for `ids` (refused for a table without map).
    pub fn layout_table(&self, ids: &TableIds) -> Outcome<&p4bpf_layout::Table> {
        ids.index
            .and_then(|i| self.pipeline.tables.get(i))
            .ok_or_else(|| {
                Failure::invalid(format!(
                    "table `{}` has only const entries: it cannot be written or read",
                    ids.name
                ))
            })
    }

    pub fn counter(&self, id: u32) -> Outcome<&p4bpf_layout::Counter> {
        self.counters
            .get(&id)
            .and_then(|i| self.pipeline.counters.get(*i))
            .ok_or_else(|| Failure::not_found(format!("no counter with id {id} in the P4Info")))
    }

    /// Every counter id with its counter, in P4Info order.
    pub fn counter_ids(&self) -> Vec<u32> {
        self.p4info
            .counters
            .iter()
            .filter_map(|c| c.preamble.as_ref().map(|p| p.id))
            .filter(|id| self.counters.contains_key(id))
            .collect()
    }
}

impl TableIds {
    pub fn field(&self, id: u32) -> Outcome<&FieldIds> {
        self.fields.iter().find(|f| f.id == id).ok_or_else(|| {
            Failure::invalid(format!("table `{}` has no match field {id}", self.name))
        })
    }

    pub fn action(&self, id: u32) -> Outcome<&ActionIds> {
        self.actions.iter().find(|a| a.id == id).ok_or_else(|| {
            Failure::invalid(format!(
                "action {id} is not an action of table `{}`",
                self.name
            ))
        })
    }

    pub fn action_by_index(&self, index: usize) -> Option<&ActionIds> {
        self.actions.iter().find(|a| a.index == index)
    }
}

fn table_ids(
    p4info: &P4Info,
    pipeline: &Pipeline,
    table: &crate::proto::p4::config::v1::Table,
) -> Outcome<TableIds> {
    let preamble = preamble(&table.preamble)?;
    let Ok(layout) = names::table(pipeline, &preamble.name) else {
        return Ok(TableIds {
            id: preamble.id,
            name: preamble.name.clone(),
            index: None,
            fields: Vec::new(),
            actions: Vec::new(),
            needs_priority: false,
        });
    };
    let index = pipeline.tables.iter().position(|t| t.name == layout.name);
    let fields = table
        .match_fields
        .iter()
        .map(|field| field_ids(layout, field))
        .collect::<Outcome<Vec<_>>>()?;
    // A table with an action profile runs its profile's members' actions.
    let members = pipeline.profile_of_table(&layout.name);
    let runs = members.map_or(layout, |p| &p.members);
    let mut actions = Vec::new();
    for reference in &table.action_refs {
        let action = p4info
            .actions
            .iter()
            .filter_map(|a| a.preamble.as_ref().map(|p| (p, a)))
            .find(|(p, _)| p.id == reference.id)
            .ok_or_else(|| {
                Failure::invalid(format!(
                    "P4Info: table `{}` refers to action {} it does not declare",
                    preamble.name, reference.id
                ))
            })?;
        let (action_preamble, action) = action;
        let action_index = names::action(runs, &action_preamble.name).map_err(mismatch)?;
        let params = action
            .params
            .iter()
            .map(|p| {
                let index = names::param(runs, action_index, &p.name).map_err(mismatch)?;
                let signed = runs
                    .actions
                    .get(action_index)
                    .and_then(|a| a.params.get(index));
                let signed = signed.is_some_and(|f| f.signed);
                Ok((p.id, index, p.bitwidth as u32, p.name.clone(), signed))
            })
            .collect::<Outcome<Vec<_>>>()?;
        actions.push(ActionIds {
            id: action_preamble.id,
            name: action_preamble.name.clone(),
            index: action_index,
            params,
        });
    }
    let needs_priority = fields.iter().any(|f| {
        matches!(
            f.kind,
            MatchKind::Ternary | MatchKind::Range | MatchKind::Optional
        )
    });
    Ok(TableIds {
        id: preamble.id,
        name: preamble.name.clone(),
        index,
        fields,
        actions,
        needs_priority,
    })
}

fn field_ids(layout: &p4bpf_layout::Table, field: &MatchField) -> Outcome<FieldIds> {
    let key = names::key_field(layout, &field.name).map_err(mismatch)?;
    let kind = match field.r#match {
        Some(match_field::Match::MatchType(EXACT)) => MatchKind::Exact,
        Some(match_field::Match::MatchType(LPM)) => MatchKind::Lpm,
        Some(match_field::Match::MatchType(TERNARY)) => MatchKind::Ternary,
        Some(match_field::Match::MatchType(RANGE)) => MatchKind::Range,
        Some(match_field::Match::MatchType(OPTIONAL)) => MatchKind::Optional,
        _ => {
            return Err(Failure::unimplemented(format!(
                "match field `{}`: only exact, lpm, ternary, range and optional are known",
                field.name
            )))
        }
    };
    Ok(FieldIds {
        id: field.id,
        name: field.name.clone(),
        key,
        bitwidth: field.bitwidth as u32,
        kind,
        signed: layout.keys.get(key).is_some_and(|k| k.field.signed),
    })
}

fn preamble(preamble: &Option<Preamble>) -> Outcome<&Preamble> {
    preamble
        .as_ref()
        .ok_or_else(|| Failure::invalid("P4Info: an object without a preamble"))
}

fn mismatch(error: p4bpf_runtime::RuntimeError) -> Failure {
    Failure::invalid(format!("the P4Info does not match the object: {error}"))
}
