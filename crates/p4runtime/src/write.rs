//! The Write RPC's updates applied to a pinned pipeline. Every update is
//! checked and encoded before its map changes (the runtime's rule), so a
//! failed update writes nothing; the batch then follows its atomicity:
//! CONTINUE_ON_ERROR applies the others, ROLLBACK_ON_ERROR stops at the
//! first failure and undoes the updates before it, in reverse. Each applied
//! update leaves an undo step (the entry as it was).
//!
//! DATAPLANE_ATOMIC (packets see the whole batch or none of it) is taken
//! where one map element carries the whole change: a batch of one table
//! entry update in a hash or lpm table. The kernel builds the new element
//! aside and links it in with RCU, so a packet finds the old entry or the
//! new one, never part of either (make before break). Anything larger is
//! refused as UNIMPLEMENTED, as the specification asks of a target that
//! cannot offer it: BPF maps change one key at a time, packets between two
//! updates would see the first without the second, and array slots
//! (array tables, default actions) are overwritten in place.
//!
//! A batch of inserts into one table goes in through
//! `control::insert_table_batches` (all or nothing, encoded as they are
//! decoded); when that refuses the batch, the
//! updates are applied one by one to find and report the ones at fault.

use crate::failure::{Failure, Outcome};
use crate::proto::p4::v1::{
    entity, update, write_request::Atomicity, CounterEntry, TableEntry, Update,
};
use crate::schema::{Schema, TableIds};
use crate::table_entry::{action_spec, entry_spec, key_spec};
use p4bpf_layout::{Table, TableStorage};
use p4bpf_runtime::control::{self, Entry};
use p4bpf_runtime::deploy::Deployment;
use p4bpf_runtime::entry::EntrySpec;
use p4bpf_runtime::entry_timeout;
use p4bpf_runtime::map::Write;
use p4bpf_runtime::{names, MapSource};
use tonic::Code;

/// How to take an applied update back.
enum Undo {
    Delete(usize, EntrySpec),
    Insert(usize, EntrySpec),
    Modify(usize, EntrySpec),
    /// A map slot's previous bytes (a table's default action).
    Slot {
        map: String,
        value: Vec<u8>,
    },
    /// An action profile's member or group as it was.
    Profile(crate::profile::Undo),
    /// A value set's members as they were.
    ValueSet(crate::value_set::Undo),
    /// A register's cells as they were.
    Register(crate::register::Undo),
}

/// Apply `updates`; per-update outcomes in request order.
pub fn apply(
    schema: &Schema,
    source: &Deployment,
    updates: &[Update],
    atomicity: i32,
) -> Outcome<Vec<Outcome<()>>> {
    match Atomicity::try_from(atomicity) {
        Ok(Atomicity::ContinueOnError | Atomicity::RollbackOnError) => {}
        Ok(Atomicity::DataplaneAtomic) => return dataplane_atomic(schema, source, updates),
        Err(_) => return Err(Failure::invalid(format!("unknown atomicity {atomicity}"))),
    }
    if let Some(done) = batch_insert(schema, source, updates) {
        return Ok(done);
    }
    let rollback = atomicity == Atomicity::RollbackOnError as i32;
    let mut results = Vec::with_capacity(updates.len());
    let mut undo = Vec::new();
    for update in updates {
        if rollback && results.iter().any(|r: &Outcome<()>| r.is_err()) {
            results.push(Err(Failure::new(
                Code::Aborted,
                "not applied: an earlier update of this ROLLBACK_ON_ERROR batch failed",
            )));
            continue;
        }
        match apply_one(schema, source, update) {
            Ok(step) => {
                undo.extend(step);
                results.push(Ok(()));
            }
            Err(failure) => results.push(Err(failure)),
        }
    }
    if rollback && results.iter().any(|r| r.is_err()) {
        for step in undo.into_iter().rev() {
            undo_step(schema, source, step)?;
        }
        for result in results.iter_mut().filter(|r| r.is_ok()) {
            *result = Err(Failure::new(
                Code::Aborted,
                "rolled back: another update failed",
            ));
        }
    }
    Ok(results)
}

/// A DATAPLANE_ATOMIC batch: one update whose change is one map element.
fn dataplane_atomic(
    schema: &Schema,
    source: &Deployment,
    updates: &[Update],
) -> Outcome<Vec<Outcome<()>>> {
    let [update] = updates else {
        return Err(Failure::unimplemented(format!(
            "DATAPLANE_ATOMIC: a batch of {} updates; BPF maps change one key at a time, \
             so only a batch of one table entry update is dataplane atomic here \
             (use ROLLBACK_ON_ERROR for all or nothing)",
            updates.len()
        )));
    };
    let Some(entity::Entity::TableEntry(entry)) =
        update.entity.as_ref().and_then(|e| e.entity.as_ref())
    else {
        return Err(Failure::unimplemented(
            "DATAPLANE_ATOMIC: only table entries change in one step here",
        ));
    };
    let ids = schema.table(entry.table_id)?;
    let storage = schema.layout_table(ids)?.storage;
    if entry.is_default_action || !matches!(storage, TableStorage::Hash | TableStorage::LpmTrie) {
        return Err(Failure::unimplemented(format!(
            "DATAPLANE_ATOMIC: table `{}`: only entries of hash and lpm tables change \
             in one step (default actions, array and ternary tables are written in place \
             or in parts)",
            ids.name
        )));
    }
    Ok(vec![apply_one(schema, source, update).map(|_| ())])
}

/// Many inserts into one hash table in one kernel call, when they all
/// encode and the batch takes; `None` to go one by one.
fn batch_insert(
    schema: &Schema,
    source: &Deployment,
    updates: &[Update],
) -> Option<Vec<Outcome<()>>> {
    let mut table_id = None;
    let mut entries = Vec::with_capacity(updates.len());
    for update in updates {
        let Some(entity::Entity::TableEntry(entry)) = update.entity.as_ref()?.entity.as_ref()
        else {
            return None;
        };
        if update.r#type != update::Type::Insert as i32
            || entry.is_default_action
            || *table_id.get_or_insert(entry.table_id) != entry.table_id
        {
            return None;
        }
        entries.push(entry);
    }
    let ids = schema.table(table_id?).ok()?;
    let table = schema.layout_table(ids).ok()?;
    // A timed table's entries each start their timer: one by one.
    if updates.len() < 2
        || schema.pipeline.profile_of_table(&table.name).is_some()
        || entry_timeout::is_timed(&schema.pipeline, table)
    {
        return None;
    }
    let mut batch = control::TableBatch::new(table);
    for entry in entries {
        batch.push(&entry_spec(ids, entry).ok()?).ok()?;
    }
    control::insert_table_batches(source, &[batch]).ok()?;
    Some(updates.iter().map(|_| Ok(())).collect())
}

fn apply_one(schema: &Schema, source: &Deployment, update: &Update) -> Outcome<Option<Undo>> {
    let kind = update::Type::try_from(update.r#type)
        .ok()
        .filter(|t| *t != update::Type::Unspecified)
        .ok_or_else(|| {
            Failure::invalid(format!(
                "update type {} is not INSERT, MODIFY or DELETE",
                update.r#type
            ))
        })?;
    match update.entity.as_ref().and_then(|e| e.entity.as_ref()) {
        Some(entity::Entity::TableEntry(entry)) => table_update(schema, source, kind, entry),
        Some(entity::Entity::CounterEntry(entry)) => counter_update(schema, source, kind, entry),
        Some(entity::Entity::ActionProfileMember(member)) => {
            crate::profile::member_update(schema, source, kind, member)
                .map(|undo| Some(Undo::Profile(undo)))
        }
        Some(entity::Entity::ActionProfileGroup(group)) => {
            crate::profile::group_update(schema, source, kind, group)
                .map(|undo| Some(Undo::Profile(undo)))
        }
        Some(entity::Entity::ValueSetEntry(entry)) => {
            crate::value_set::update(schema, source, kind, entry)
                .map(|undo| Some(Undo::ValueSet(undo)))
        }
        Some(entity::Entity::RegisterEntry(entry)) => {
            crate::register::update(schema, source, kind, entry)
                .map(|undo| Some(Undo::Register(undo)))
        }
        Some(other) => Err(Failure::unimplemented(format!(
            "{}: not supported by today's architectures (ebpf_model, xdp_model)",
            entity_kind(other)
        ))),
        None => Err(Failure::invalid("the update has no entity")),
    }
}

fn table_update(
    schema: &Schema,
    source: &Deployment,
    kind: update::Type,
    entry: &TableEntry,
) -> Outcome<Option<Undo>> {
    let ids = schema.table(entry.table_id)?;
    let table = schema.layout_table(ids)?;
    let index = ids.index.unwrap_or_default();
    // `time_since_last_hit` is the read's: a write ignores it.
    let timeout = idle_timeout(schema, ids, table, entry)?;
    if entry.counter_data.is_some() || entry.meter_config.is_some() {
        return Err(Failure::unimplemented(format!(
            "table `{}`: direct counters and meters are not compiled yet",
            ids.name
        )));
    }
    // A table with an action profile names a member or a group.
    let indirect = schema.pipeline.profile_of_table(&table.name).is_some();
    if entry.is_default_action {
        if indirect && entry.action.is_some() {
            return Err(Failure::unimplemented(format!(
                "table `{}`: the default entry of a table with an action profile is the program's own here",
                ids.name
            )));
        }
        return default_update(source, ids, table, kind, entry);
    }
    let full_spec = || match indirect {
        true => crate::profile::indirect_entry_spec(ids, table, entry),
        false => entry_spec(ids, entry),
    };
    match kind {
        update::Type::Insert => {
            let spec = full_spec()?;
            if control::contains(source, table, &spec) {
                return Err(Failure::new(
                    Code::AlreadyExists,
                    format!("table `{}` already has an entry with this key", ids.name),
                ));
            }
            // A timed entry goes in with its timer started: one write.
            match timeout {
                Some(ns) => entry_timeout::insert(source, &schema.pipeline, table, &spec, ns)?,
                None => control::add(source, table, &spec)?,
            }
            Ok(Some(Undo::Delete(index, spec)))
        }
        update::Type::Modify => {
            let spec = full_spec()?;
            let old = existing(source, ids, table, &spec)?;
            control::modify(source, table, &spec)?;
            if let Some(ns) = timeout {
                start_timer(schema, source, table, &spec, ns)?;
            }
            Ok(Some(Undo::Modify(index, old)))
        }
        _ => {
            let spec = key_spec(ids, table, entry)?;
            let old = existing(source, ids, table, &spec)?;
            control::delete(source, table, &spec)?;
            Ok(Some(Undo::Insert(index, old)))
        }
    }
}

/// The idle timeout of an entry of a table with idle timeouts, whose
/// insert or modify (re)starts its timer; `None` for other tables, whose
/// entries take none.
fn idle_timeout(
    schema: &Schema,
    ids: &TableIds,
    table: &Table,
    entry: &TableEntry,
) -> Outcome<Option<u64>> {
    let ns = u64::try_from(entry.idle_timeout_ns).map_err(|_| {
        Failure::invalid(format!(
            "table `{}`: idle_timeout_ns {} is negative",
            ids.name, entry.idle_timeout_ns
        ))
    })?;
    if !entry_timeout::is_timed(&schema.pipeline, table) || entry.is_default_action {
        return match ns {
            0 => Ok(None),
            _ => Err(Failure::invalid(format!(
                "table `{}`: idle_timeout_ns is for the entries of a table whose \
                 idle_timeout_behavior is NOTIFY_CONTROL, which this {} is not",
                ids.name,
                if entry.is_default_action {
                    "default entry"
                } else {
                    "table"
                }
            ))),
        };
    }
    Ok(Some(ns))
}

fn start_timer(
    schema: &Schema,
    source: &Deployment,
    table: &Table,
    spec: &EntrySpec,
    ns: u64,
) -> Outcome<()> {
    Ok(entry_timeout::start(
        source,
        &schema.pipeline,
        table,
        spec,
        ns,
    )?)
}

/// The default entry can only be modified: to an action, or (no action)
/// back to the program's own default.
fn default_update(
    source: &Deployment,
    ids: &TableIds,
    table: &Table,
    kind: update::Type,
    entry: &TableEntry,
) -> Outcome<Option<Undo>> {
    if kind != update::Type::Modify || !entry.r#match.is_empty() || entry.priority != 0 {
        return Err(Failure::invalid(format!(
            "table `{}`: the default entry takes only MODIFY, with no match and no priority",
            ids.name
        )));
    }
    let Some(map_name) = &table.default_map else {
        return Err(Failure::new(
            Code::PermissionDenied,
            format!("table `{}` has a const default action", ids.name),
        ));
    };
    let map = source.map(map_name)?;
    let slot = 0u32.to_ne_bytes();
    let old = map.read(&slot)?.into_iter().next().unwrap_or_default();
    match &entry.action {
        Some(_) => {
            let (action, args) = action_spec(ids, entry.action.as_ref())?;
            p4bpf_runtime::table::set_default(source, table, action, &args)?;
        }
        None => map.write(&slot, &vec![0u8; old.len()], Write::Replace)?,
    }
    Ok(Some(Undo::Slot {
        map: map_name.clone(),
        value: old,
    }))
}

/// The entry `spec` keys, as an entry spec to put it back with.
fn existing(
    source: &Deployment,
    ids: &TableIds,
    table: &Table,
    spec: &EntrySpec,
) -> Outcome<EntrySpec> {
    let entry = control::get(source, table, spec).map_err(|_| {
        Failure::not_found(format!("table `{}` has no entry with this key", ids.name))
    })?;
    spec_of(table, &entry)
}

/// A decoded entry as a spec again (its text values parse back).
pub(crate) fn spec_of(table: &Table, entry: &Entry) -> Outcome<EntrySpec> {
    let keys = entry
        .keys
        .iter()
        .map(|(name, text)| names::key_field(table, name).map(|i| (i, text.clone())))
        .collect::<p4bpf_runtime::Result<Vec<_>>>()?;
    let action = names::action(table, &entry.action)?;
    let args = entry
        .params
        .iter()
        .map(|(name, text)| names::param(table, action, name).map(|i| (i, text.clone())))
        .collect::<p4bpf_runtime::Result<Vec<_>>>()?;
    Ok(EntrySpec {
        keys,
        action,
        args,
        priority: entry.priority,
    })
}

fn counter_update(
    schema: &Schema,
    source: &Deployment,
    kind: update::Type,
    entry: &CounterEntry,
) -> Outcome<Option<Undo>> {
    let counter = schema.counter(entry.counter_id)?;
    let zero = entry
        .data
        .as_ref()
        .is_none_or(|d| d.byte_count == 0 && d.packet_count == 0);
    if kind != update::Type::Modify || !zero {
        return Err(Failure::unimplemented(format!(
            "counter `{}`: cells can only be reset (MODIFY with zero data)",
            counter.name
        )));
    }
    let index = entry.index.as_ref().map(|i| i.index);
    let index = index
        .map(|i| {
            u32::try_from(i).map_err(|_| {
                Failure::new(
                    Code::OutOfRange,
                    format!("counter `{}`: index {i}", counter.name),
                )
            })
        })
        .transpose()?;
    control::reset_counter(source, counter, index)?;
    Ok(None)
}

fn undo_step(schema: &Schema, source: &Deployment, step: Undo) -> Outcome<()> {
    let table = |index: usize| {
        schema
            .pipeline
            .tables
            .get(index)
            .ok_or_else(|| Failure::new(Code::Internal, "rollback: table vanished"))
    };
    match step {
        Undo::Delete(index, spec) => control::delete(source, table(index)?, &spec)?,
        Undo::Insert(index, spec) => control::add(source, table(index)?, &spec)?,
        Undo::Modify(index, spec) => control::modify(source, table(index)?, &spec)?,
        Undo::Slot { map, value } => {
            source
                .map(&map)?
                .write(&0u32.to_ne_bytes(), &value, Write::Replace)?
        }
        Undo::Profile(step) => crate::profile::undo(schema, source, step)?,
        Undo::ValueSet(step) => crate::value_set::undo(schema, source, step)?,
        Undo::Register(step) => crate::register::undo(schema, source, step)?,
    }
    Ok(())
}

pub fn entity_kind(entity: &entity::Entity) -> &'static str {
    match entity {
        entity::Entity::ExternEntry(_) => "extern entries",
        entity::Entity::TableEntry(_) => "table entries",
        entity::Entity::ActionProfileMember(_) => "action profile members",
        entity::Entity::ActionProfileGroup(_) => "action profile groups",
        entity::Entity::MeterEntry(_) => "meters",
        entity::Entity::DirectMeterEntry(_) => "direct meters",
        entity::Entity::CounterEntry(_) => "counters",
        entity::Entity::DirectCounterEntry(_) => "direct counters",
        entity::Entity::PacketReplicationEngineEntry(_) => "multicast groups and clone sessions",
        entity::Entity::ValueSetEntry(_) => "value sets",
        entity::Entity::RegisterEntry(_) => "registers",
        entity::Entity::DigestEntry(_) => "digests",
    }
}
