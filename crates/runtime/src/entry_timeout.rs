//! Per-entry idle timeouts (P4Runtime's `idle_timeout_ns`) on the tables
//! whose entries have timers (`p4bpf_layout::IdleTimer`). An entry's
//! timeout is its expire-time profile's, so an entry given a timeout takes
//! a profile holding it: one that already does, else one no entry uses,
//! taken from the top (255) down, clear of the low profiles a PNA
//! program's `add_entry` names. Starting the timer writes the entry's
//! cell: now, with that profile. Reading gives back the timeout and how
//! long since the timer last restarted.

use crate::control;
use crate::entry::{encode_entry, EntrySpec};
use crate::error::{Result, RuntimeError};
use crate::idle::{monotonic_ns, profile_timeout, timer_cell};
use crate::map::{Map, Write};
use crate::map_source::MapSource;
use crate::timed_entries::{self, TimedValue};
use p4bpf_layout::{IdleTimer, Pipeline, Table};
use std::collections::HashMap;

/// An entry's timer as the control plane sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryTimeout {
    /// Its profile's timeout in ns (0: never).
    pub timeout_ns: u64,
    /// How long since its timer last restarted; `None` before it started.
    pub idle_ns: Option<u64>,
}

/// Whether `table`'s entries have timers.
pub fn is_timed(description: &Pipeline, table: &Table) -> bool {
    description
        .idle_timers
        .iter()
        .any(|t| t.table == table.name)
}

/// Starts the timer of `table`'s entry `spec` now, with a timeout of
/// `timeout_ns` (0: never idle).
pub fn start(
    source: &impl MapSource,
    description: &Pipeline,
    table: &Table,
    spec: &EntrySpec,
    timeout_ns: u64,
) -> Result<()> {
    let profiles = source.map(IdleTimer::PROFILES_MAP)?;
    let profile = profile_for(source, description, &profiles, timeout_ns)?;
    let TimedValue {
        map,
        key,
        mut value,
    } = timed_entries::of_entry(source, table, spec)?;
    stamp(table, &mut value, profile)?;
    map.write(&key, &value, Write::Replace)
}

/// Inserts `table`'s entry `spec` with its timer started now, with a
/// timeout of `timeout_ns`. The timer is part of the value the insert
/// writes: the entry is not looked up again to start it (for a ternary
/// rule that would read the whole table back), and no packet sees the
/// entry without it.
pub fn insert(
    source: &impl MapSource,
    description: &Pipeline,
    table: &Table,
    spec: &EntrySpec,
    timeout_ns: u64,
) -> Result<()> {
    let profiles = source.map(IdleTimer::PROFILES_MAP)?;
    let profile = profile_for(source, description, &profiles, timeout_ns)?;
    let mut entry = encode_entry(table, spec)?;
    stamp(table, &mut entry.value, profile)?;
    control::add_encoded(source, table, &entry)
}

/// Writes a timer started now with `profile` into an entry's `value`
/// (its last 8 bytes).
fn stamp(table: &Table, value: &mut [u8], profile: u8) -> Result<()> {
    let at = value.len().checked_sub(8).ok_or_else(|| untimed(table))?;
    let cell = monotonic_ns()? << 8 | u64::from(profile);
    if let Some(timer) = value.get_mut(at..) {
        timer.copy_from_slice(&cell.to_ne_bytes());
    }
    Ok(())
}

/// The timer of `table`'s entry `spec`.
pub fn read(source: &impl MapSource, table: &Table, spec: &EntrySpec) -> Result<EntryTimeout> {
    let profiles = source.map(IdleTimer::PROFILES_MAP)?;
    let value = timed_entries::of_entry(source, table, spec)?.value;
    timeout_of(table, &value, &profiles, monotonic_ns()?)
}

/// The timers of every entry of `table`, by key and priority: one walk of
/// the table (a ternary table's rules are read back once, not per entry).
pub fn read_all(source: &impl MapSource, table: &Table) -> Result<TimersByEntry> {
    let profiles = source.map(IdleTimer::PROFILES_MAP)?;
    let now = monotonic_ns()?;
    let mut timers = HashMap::new();
    for timed in timed_entries::all(source, table)?.entries {
        let timer = timeout_of(table, &timed.value, &profiles, now)?;
        let entry = timed.decode(table)?;
        timers.insert((entry.keys, entry.priority), timer);
    }
    Ok(timers)
}

/// Entries' timers by their keys and priority.
pub type TimersByEntry = HashMap<(Vec<(String, String)>, Option<u32>), EntryTimeout>;

/// The timer an entry's `value` holds, at `now`.
fn timeout_of(table: &Table, value: &[u8], profiles: &Map, now: u64) -> Result<EntryTimeout> {
    let cell = timer_cell(value).ok_or_else(|| untimed(table))?;
    let idle_ns = match cell {
        0 => None,
        started => Some(now.saturating_sub(started >> 8)),
    };
    Ok(EntryTimeout {
        timeout_ns: profile_timeout(profiles, (cell & 0xff) as u32)?,
        idle_ns,
    })
}

/// A profile whose timeout is `timeout_ns`: profile 0 for none if it has
/// none, else one that has it, else a free one set to it. Profiles are
/// read one at a time from the top, where they are taken: the one an
/// earlier entry took for this timeout is found in the first reads, and
/// only a new timeout pays for the walk of the timed tables.
fn profile_for(
    source: &impl MapSource,
    description: &Pipeline,
    profiles: &Map,
    timeout_ns: u64,
) -> Result<u8> {
    let count = profiles.max_entries().min(256);
    if timeout_ns == 0 && count > 0 && profile_timeout(profiles, 0)? == 0 {
        return Ok(0);
    }
    for p in (0..count).rev() {
        if profile_timeout(profiles, p)? == timeout_ns {
            return Ok(p as u8);
        }
    }
    let used = profiles_in_use(source, description)?;
    let free = (1..count)
        .rev()
        .find(|&p| !used[p as usize])
        .ok_or_else(|| {
            RuntimeError::Value(format!(
                "no expire-time profile is left for a timeout of {timeout_ns} ns: \
                 the table of profiles is full (each holds a timeout entries use)"
            ))
        })?;
    profiles.write(
        &free.to_ne_bytes(),
        &timeout_ns.to_ne_bytes(),
        Write::Replace,
    )?;
    Ok(free as u8)
}

/// Which profiles the entries of the timed tables use.
fn profiles_in_use(source: &impl MapSource, description: &Pipeline) -> Result<[bool; 256]> {
    let mut used = [false; 256];
    for timer in &description.idle_timers {
        let Some(table) = description.table(&timer.table) else {
            continue;
        };
        for timed in timed_entries::all(source, table)?.entries {
            if let Some(cell) = timer_cell(&timed.value).filter(|&c| c != 0) {
                used[(cell & 0xff) as usize] = true;
            }
        }
    }
    Ok(used)
}

fn untimed(table: &Table) -> RuntimeError {
    RuntimeError::Value(format!(
        "table `{}` has no idle timeouts (its P4 sets no `NOTIFY_CONTROL`)",
        table.name
    ))
}
