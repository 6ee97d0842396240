//! The Read RPC: table entries, counter cells and direct counter data of a
//! pinned pipeline, with the specification's wildcards (table id 0: every
//! table; no match: every entry of the table; counter id 0: every counter;
//! no index: every cell).
//! An entry given with its match is looked up by key; `is_default_action`
//! reads the table's default entry.

use crate::failure::{Failure, Outcome};
use crate::proto::p4::v1::{
    entity, table_entry, CounterData, CounterEntry, DirectCounterEntry, Entity, Index, TableEntry,
};
use crate::schema::Schema;
use crate::table_entry::key_spec;
use crate::write::{entity_kind, spec_of};
use p4bpf_layout::{DirectKind, Table, TableStorage};
use p4bpf_runtime::control::{self, Entry};
use p4bpf_runtime::counter::CounterValue;
use p4bpf_runtime::deploy::Deployment;
use p4bpf_runtime::direct;
use p4bpf_runtime::entry_timeout::{self, TimersByEntry};
use p4bpf_runtime::MapSource;

/// Every entity `wanted` selects, in request order.
pub fn read(schema: &Schema, source: &Deployment, wanted: &[Entity]) -> Outcome<Vec<Entity>> {
    let mut found = Vec::new();
    for entity in wanted {
        match entity.entity.as_ref() {
            Some(entity::Entity::TableEntry(entry)) => {
                table_entries(schema, source, entry, &mut found)?
            }
            Some(entity::Entity::CounterEntry(entry)) => {
                counter_cells(schema, source, entry, &mut found)?
            }
            Some(entity::Entity::DirectCounterEntry(entry)) => {
                direct_counters(schema, source, entry, &mut found)?
            }
            Some(entity::Entity::ValueSetEntry(entry)) => {
                crate::value_set::read(schema, source, entry, &mut found)?
            }
            Some(entity::Entity::RegisterEntry(entry)) => {
                crate::register::read(schema, source, entry, &mut found)?
            }
            Some(other) => {
                return Err(Failure::unimplemented(format!(
                    "reading {}: not supported by today's architectures (ebpf_model, xdp_model)",
                    entity_kind(other)
                )))
            }
            None => return Err(Failure::invalid("the read request has an empty entity")),
        }
    }
    Ok(found)
}

fn table_entries(
    schema: &Schema,
    source: &Deployment,
    wanted: &TableEntry,
    found: &mut Vec<Entity>,
) -> Outcome<()> {
    if wanted.is_default_action {
        return default_entry(schema, source, wanted, found);
    }
    let table_ids = match wanted.table_id {
        0 => schema.table_ids(),
        id => vec![id],
    };
    for id in table_ids {
        let ids = schema.table(id)?;
        let table = match schema.layout_table(ids) {
            Ok(table) => table,
            // Const-only tables hold nothing a wildcard read could return.
            Err(_) if wanted.table_id == 0 => continue,
            Err(failure) => return Err(failure),
        };
        let entries = if table.storage == TableStorage::Keyless {
            // Only a default action: no entries to read.
            Vec::new()
        } else if wanted.r#match.is_empty() {
            control::dump(source, table)?
        } else {
            let spec = key_spec(ids, table, wanted)?;
            control::get(source, table, &spec).into_iter().collect()
        };
        let timed = entry_timeout::is_timed(&schema.pipeline, table);
        // A whole table's timers in one walk; one entry's alone.
        let timers = match timed && wanted.r#match.is_empty() {
            true => entry_timeout::read_all(source, table)?,
            false => TimersByEntry::new(),
        };
        for entry in &entries {
            let mut read = crate::profile::read_entry(schema, ids, table, entry)?;
            if timed {
                with_timer(source, table, &timers, entry, wanted, &mut read)?;
            }
            found.push(Entity {
                entity: Some(entity::Entity::TableEntry(read)),
            });
        }
    }
    Ok(())
}

/// An entry of a table with idle timeouts: its `idle_timeout_ns`, and
/// `time_since_last_hit` when the read asks for it (0 for a timer the
/// control plane never started and no hit has).
fn with_timer(
    source: &Deployment,
    table: &Table,
    timers: &TimersByEntry,
    entry: &Entry,
    wanted: &TableEntry,
    read: &mut TableEntry,
) -> Outcome<()> {
    // One entry asked for, or added since the table's timers were read.
    let timer = match timers.get(&(entry.keys.clone(), entry.priority)) {
        Some(timer) => *timer,
        None => entry_timeout::read(source, table, &spec_of(table, entry)?)?,
    };
    read.idle_timeout_ns = i64::try_from(timer.timeout_ns).unwrap_or(i64::MAX);
    if wanted.time_since_last_hit.is_some() {
        read.time_since_last_hit = Some(table_entry::IdleTimeout {
            elapsed_ns: timer
                .idle_ns
                .map_or(0, |ns| i64::try_from(ns).unwrap_or(i64::MAX)),
        });
    }
    Ok(())
}

/// The default entry of one table. A slot never written means the
/// program's own default action, which the description does not name: it
/// is returned without an action.
fn default_entry(
    schema: &Schema,
    source: &Deployment,
    wanted: &TableEntry,
    found: &mut Vec<Entity>,
) -> Outcome<()> {
    let ids = schema.table(wanted.table_id)?;
    let table = schema.layout_table(ids)?;
    let mut entry = TableEntry {
        table_id: ids.id,
        is_default_action: true,
        ..TableEntry::default()
    };
    if let Some(map) = &table.default_map {
        let slot = source.map(map)?.read(&0u32.to_ne_bytes())?;
        let value = slot.into_iter().next().unwrap_or_default();
        if value.iter().any(|b| *b != 0) {
            let (action, params) = control::decode_action(table, &value)?;
            let decoded = Entry {
                keys: Vec::new(),
                action,
                params,
                priority: None,
            };
            entry.action = crate::profile::read_entry(schema, ids, table, &decoded)?.action;
        }
    }
    found.push(Entity {
        entity: Some(entity::Entity::TableEntry(entry)),
    });
    Ok(())
}

fn counter_cells(
    schema: &Schema,
    source: &Deployment,
    wanted: &CounterEntry,
    found: &mut Vec<Entity>,
) -> Outcome<()> {
    let counter_ids = match wanted.counter_id {
        0 => schema.counter_ids(),
        id => vec![id],
    };
    for id in counter_ids {
        let counter = schema.counter(id)?;
        let index = match wanted.index.as_ref().map(|i| i.index) {
            Some(i) => Some(u32::try_from(i).map_err(|_| {
                Failure::new(
                    tonic::Code::OutOfRange,
                    format!("counter `{}`: index {i}", counter.name),
                )
            })?),
            None => None,
        };
        let cells = control::counter_cells(source, counter, index).map_err(|e| {
            let failure = Failure::from(e);
            match failure.message.contains("out of range") {
                true => Failure::new(tonic::Code::OutOfRange, failure.message),
                false => failure,
            }
        })?;
        for cell in cells {
            found.push(Entity {
                entity: Some(entity::Entity::CounterEntry(CounterEntry {
                    counter_id: id,
                    index: Some(Index {
                        index: i64::from(cell.index),
                    }),
                    data: Some(counter_data(&cell.value)),
                })),
            });
        }
    }
    Ok(())
}

fn counter_data(value: &CounterValue) -> CounterData {
    CounterData {
        byte_count: value.bytes.unwrap_or(0) as i64,
        packet_count: value.packets.unwrap_or(0) as i64,
    }
}

/// The direct counter data of the entries `wanted`'s table entry selects
/// (table id 0: every table with a direct counter; no match: every entry),
/// each with its entry.
fn direct_counters(
    schema: &Schema,
    source: &Deployment,
    wanted: &DirectCounterEntry,
    found: &mut Vec<Entity>,
) -> Outcome<()> {
    let selector = wanted.table_entry.clone().unwrap_or_default();
    let table_ids = match selector.table_id {
        0 => schema.table_ids(),
        id => vec![id],
    };
    for id in table_ids {
        let ids = schema.table(id)?;
        let table = schema.layout_table(ids);
        let counter = table.as_ref().ok().and_then(|t| {
            let counters = schema.pipeline.direct.iter();
            counters
                .filter(|d| matches!(d.kind, DirectKind::Counter(_)))
                .find(|d| d.table == t.name)
        });
        let (table, counter) = match (table, counter) {
            (Ok(table), Some(counter)) => (table, counter),
            _ if selector.table_id == 0 => continue,
            _ => {
                return Err(Failure::not_found(format!(
                    "table `{}` has no direct counter",
                    ids.name
                )))
            }
        };
        let counts = if selector.r#match.is_empty() {
            direct::counter_entries(source, table, counter)?
        } else {
            let spec = key_spec(ids, table, &selector)?;
            let entry = control::get(source, table, &spec).map_err(|_| {
                Failure::not_found(format!("table `{}` has no entry with this key", ids.name))
            })?;
            let value = direct::read_counter(source, table, counter, &spec)?;
            vec![direct::DirectCount { entry, value }]
        };
        for count in counts {
            found.push(Entity {
                entity: Some(entity::Entity::DirectCounterEntry(DirectCounterEntry {
                    table_entry: Some(crate::profile::read_entry(
                        schema,
                        ids,
                        table,
                        &count.entry,
                    )?),
                    data: Some(counter_data(&count.value)),
                })),
            });
        }
    }
    Ok(())
}
