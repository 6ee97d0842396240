//! PNA's idle timeouts seen from the control plane
//! (`p4bpf_layout::IdleTimer`): a sweep walks the entries of every table
//! with idle timers and finds those idle for longer than their profile's
//! timeout. An `AUTO_DELETE` table's idle entries are deleted (the data
//! plane also deletes one at its next lookup, but an idle flow sends no
//! lookup); a `NOTIFY_CONTROL` table's stay, and the sweep reports them,
//! at every sweep while they stay idle.

use crate::control::decode::Entry;
use crate::error::{Result, RuntimeError};
use crate::map::{Map, Write};
use crate::map_source::MapSource;
use crate::timed_entries;
use p4bpf_layout::{IdleTimer, Pipeline};

/// An entry a sweep found idle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdleEntry {
    pub table: String,
    pub entry: Entry,
    /// How long since its timer last restarted, in ns.
    pub idle_ns: u64,
    /// Its timeout (its expire-time profile's), in ns.
    pub timeout_ns: u64,
    /// Deleted by the sweep (`AUTO_DELETE`), or left for the control
    /// plane (`NOTIFY_CONTROL`).
    pub deleted: bool,
}

impl std::fmt::Display for IdleEntry {
    /// `idle TABLE KEY=VALUE... [priority=P] for N ns: deleted|reported`
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "idle {}", self.table)?;
        for (name, value) in &self.entry.keys {
            write!(f, " {name}={value}")?;
        }
        if let Some(priority) = self.entry.priority {
            write!(f, " priority={priority}")?;
        }
        let what = if self.deleted { "deleted" } else { "reported" };
        write!(f, " for {} ns: {what}", self.idle_ns)
    }
}

/// One sweep of every table with idle timers, at the kernel's clock now.
pub fn sweep(source: &impl MapSource, description: &Pipeline) -> Result<Vec<IdleEntry>> {
    if description.idle_timers.is_empty() {
        return Ok(Vec::new());
    }
    let profiles = source.map(IdleTimer::PROFILES_MAP)?;
    let now = monotonic_ns()?;
    let mut found = Vec::new();
    for timer in &description.idle_timers {
        found.extend(sweep_table(source, description, timer, &profiles, now)?);
    }
    Ok(found)
}

fn sweep_table(
    source: &impl MapSource,
    description: &Pipeline,
    timer: &IdleTimer,
    profiles: &Map,
    now: u64,
) -> Result<Vec<IdleEntry>> {
    let table = description
        .table(&timer.table)
        .ok_or_else(|| RuntimeError::Value(format!("no table `{}`", timer.table)))?;
    // The compiler refuses it: a rule's value is not the rule.
    if !timer.notify && timed_entries::in_cells(table) {
        return Err(RuntimeError::Value(format!(
            "table `{}`: idle rules of a ternary table cannot be deleted by the sweep",
            table.name
        )));
    }
    let timed = timed_entries::all(source, table)?;
    let mut found = Vec::new();
    for timed_entry in &timed.entries {
        let Some((idle_ns, timeout_ns)) = idle_for(&timed_entry.value, profiles, now)? else {
            continue;
        };
        let entry = timed_entry.decode(table)?;
        if !timer.notify {
            match timed.map.delete(&timed_entry.key) {
                Ok(()) | Err(RuntimeError::KeyNotFound { .. }) => {}
                Err(other) => return Err(other),
            }
        }
        found.push(IdleEntry {
            table: table.name.clone(),
            entry,
            idle_ns,
            timeout_ns,
            deleted: !timer.notify,
        });
    }
    Ok(found)
}

/// How long the entry of `value` has been idle, with its profile's
/// timeout, if longer than that (never for a timer not started or a
/// profile of 0).
fn idle_for(value: &[u8], profiles: &Map, now: u64) -> Result<Option<(u64, u64)>> {
    let Some(cell) = timer_cell(value).filter(|&cell| cell != 0) else {
        return Ok(None);
    };
    let timeout = profile_timeout(profiles, (cell & 0xff) as u32)?;
    let idle = now.saturating_sub(cell >> 8);
    Ok((timeout != 0 && idle > timeout).then_some((idle, timeout)))
}

/// The timer cell of an entry's `value`: its last 8 bytes.
pub(crate) fn timer_cell(value: &[u8]) -> Option<u64> {
    value
        .len()
        .checked_sub(8)
        .and_then(|at| value.get(at..))
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .map(u64::from_ne_bytes)
}

/// Expire-time profile `profile`'s timeout in ns (0: never).
pub(crate) fn profile_timeout(profiles: &Map, profile: u32) -> Result<u64> {
    Ok(profiles
        .read(&profile.to_ne_bytes())?
        .into_iter()
        .next()
        .and_then(|b| <[u8; 8]>::try_from(b.as_slice()).ok())
        .map_or(0, u64::from_ne_bytes))
}

/// Sets expire-time profile `profile`'s timeout (0: never).
pub fn set_profile(pipeline: &impl MapSource, profile: u32, nanoseconds: u64) -> Result<()> {
    let map = pipeline
        .map(IdleTimer::PROFILES_MAP)
        .map_err(|_| RuntimeError::Value("the program has no table with idle timeouts".into()))?;
    if profile >= map.max_entries() {
        return Err(RuntimeError::Value(format!(
            "expire-time profile {profile} is out of range (0 to {})",
            map.max_entries().saturating_sub(1)
        )));
    }
    map.write(
        &profile.to_ne_bytes(),
        &nanoseconds.to_ne_bytes(),
        Write::Replace,
    )
}

/// `timespec` of `clock_gettime`.
#[repr(C)]
struct Timespec {
    seconds: i64,
    nanoseconds: i64,
}

/// `CLOCK_MONOTONIC`, the clock of `bpf_ktime_get_ns` (and of the
/// user-space target's stand-in).
const MONOTONIC: i32 = 1;

extern "C" {
    fn clock_gettime(clock: i32, time: *mut Timespec) -> i32;
}

pub(crate) fn monotonic_ns() -> Result<u64> {
    let mut time = Timespec {
        seconds: 0,
        nanoseconds: 0,
    };
    // SAFETY: `time` is a valid timespec for the call to fill.
    if unsafe { clock_gettime(MONOTONIC, &mut time) } != 0 {
        return Err(RuntimeError::Value(
            "the monotonic clock cannot be read".into(),
        ));
    }
    Ok(time.seconds as u64 * 1_000_000_000 + time.nanoseconds as u64)
}
