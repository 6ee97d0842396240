//! P4Runtime's IdleTimeoutNotification for PNA's and PSA's `NOTIFY_CONTROL` tables:
//! every [`EVERY`] a sweep of the served pipeline (`p4bpf_runtime::idle`)
//! finds the entries idle for longer than their expire-time profile's
//! timeout, and each role's primary controller is told, on its stream, of
//! those newly idle: once per idle period, again only after a hit restarted
//! the entry's timer and it went idle again. The same sweep deletes the
//! idle entries of `AUTO_DELETE` tables, as `p4bpf idle sweep` does.

use crate::arbitration::Arbitration;
use crate::proto::p4::v1::{
    stream_message_response, IdleTimeoutNotification, StreamMessageResponse, TableEntry,
};
use crate::schema::Schema;
use crate::service::lock;
use p4bpf_runtime::deploy::Deployment;
use p4bpf_runtime::idle::{self, IdleEntry};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

/// How often the served pipeline is swept.
pub const EVERY: Duration = Duration::from_millis(500);

/// Sweeps until the server stops. `active` gives the schema of the
/// committed config, if any; a sweep that fails (the pipeline being
/// replaced) is reported on stderr and the next one tries again.
pub async fn notify(
    pipeline: String,
    active: impl Fn() -> Option<Arc<Schema>>,
    arbitration: Arc<Mutex<Arbitration>>,
) {
    let mut reported = Reported::default();
    loop {
        tokio::time::sleep(EVERY).await;
        let Some(schema) = active().filter(|s| s.pipeline.idle_timers.iter().any(|t| t.notify))
        else {
            continue;
        };
        let name = pipeline.clone();
        let swept = tokio::task::spawn_blocking(move || {
            let deployment = Deployment::open(&name)?;
            idle::sweep(&deployment, &deployment.description)
        })
        .await;
        let found = match swept {
            Ok(Ok(found)) => found,
            Ok(Err(error)) => {
                eprintln!("p4runtime: idle sweep of `{pipeline}`: {error}");
                continue;
            }
            Err(error) => {
                eprintln!("p4runtime: idle sweep of `{pipeline}` stopped: {error}");
                continue;
            }
        };
        let entries: Vec<TableEntry> = reported
            .newly_idle(found)
            .iter()
            .filter_map(|idle| table_entry(&schema, idle))
            .collect();
        if entries.is_empty() {
            continue;
        }
        let message = StreamMessageResponse {
            update: Some(stream_message_response::Update::IdleTimeoutNotification(
                IdleTimeoutNotification {
                    table_entry: entries,
                    timestamp: since_epoch_ns(),
                },
            )),
        };
        for outbox in lock(&arbitration).primaries() {
            let _ = outbox.try_send(Ok(message.clone()));
        }
    }
}

/// An entry of a table: its table, key and priority (ternary rules of
/// one key differ by priority).
type EntryId = (String, Vec<(String, String)>, Option<u32>);

/// The entries idle at the last sweep, with how long they had been idle
/// then.
#[derive(Default)]
struct Reported(HashMap<EntryId, u64>);

impl Reported {
    /// The kept (`NOTIFY_CONTROL`) entries of `found` that are newly idle:
    /// not idle at the last sweep, or idle for less long than then (their
    /// timer restarted since). Forgets the entries no longer idle.
    fn newly_idle(&mut self, found: Vec<IdleEntry>) -> Vec<IdleEntry> {
        let mut now = HashMap::new();
        let mut fresh = Vec::new();
        for idle in found.into_iter().filter(|idle| !idle.deleted) {
            let key = (
                idle.table.clone(),
                idle.entry.keys.clone(),
                idle.entry.priority,
            );
            let before = self.0.get(&key).copied();
            now.insert(key, idle.idle_ns);
            if before.is_none_or(|ns| idle.idle_ns < ns) {
                fresh.push(idle);
            }
        }
        self.0 = now;
        fresh
    }
}

/// `idle` as P4Runtime's IdleTimeoutNotification carries an entry: its
/// table, match and priority, which name it, and its `idle_timeout_ns`;
/// not its action.
fn table_entry(schema: &Schema, idle: &IdleEntry) -> Option<TableEntry> {
    let read = schema.table_ids().into_iter().find_map(|id| {
        let ids = schema.table(id).ok()?;
        let table = schema.layout_table(ids).ok()?;
        (table.name == idle.table)
            .then(|| crate::profile::read_entry(schema, ids, table, &idle.entry).ok())
            .flatten()
    })?;
    Some(TableEntry {
        table_id: read.table_id,
        r#match: read.r#match,
        priority: read.priority,
        idle_timeout_ns: i64::try_from(idle.timeout_ns).unwrap_or(i64::MAX),
        ..TableEntry::default()
    })
}

fn since_epoch_ns() -> i64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing test should stop loudly
mod tests {
    use super::*;
    use p4bpf_runtime::control::Entry;

    fn idle(key: &str, idle_ns: u64, deleted: bool) -> IdleEntry {
        IdleEntry {
            table: "C.flows".into(),
            entry: Entry {
                keys: vec![("hdr.ethernet.src".into(), key.into())],
                action: "known".into(),
                params: vec![],
                priority: None,
            },
            idle_ns,
            timeout_ns: 1,
            deleted,
        }
    }

    fn keys(found: &[IdleEntry]) -> Vec<&str> {
        found.iter().map(|i| i.entry.keys[0].1.as_str()).collect()
    }

    #[test]
    fn an_entry_is_reported_once_per_idle_period() {
        let mut reported = Reported::default();
        let first = reported.newly_idle(vec![idle("a", 10, false), idle("b", 10, true)]);
        assert_eq!(keys(&first), ["a"], "deleted entries are not kept");
        assert!(reported.newly_idle(vec![idle("a", 20, false)]).is_empty());
        // Hit since (timer restarted), idle again.
        assert_eq!(keys(&reported.newly_idle(vec![idle("a", 5, false)])), ["a"]);
        // No longer idle, then idle again.
        assert!(reported.newly_idle(vec![]).is_empty());
        assert_eq!(
            keys(&reported.newly_idle(vec![idle("a", 30, false)])),
            ["a"]
        );
    }

    #[test]
    fn rules_of_one_key_and_two_priorities_are_two_entries() {
        let mut reported = Reported::default();
        let rule = |priority| IdleEntry {
            entry: Entry {
                priority: Some(priority),
                ..idle("a", 10, false).entry
            },
            ..idle("a", 10, false)
        };
        assert_eq!(reported.newly_idle(vec![rule(1)]).len(), 1);
        assert_eq!(reported.newly_idle(vec![rule(1), rule(2)]).len(), 1);
        assert!(reported.newly_idle(vec![rule(1), rule(2)]).is_empty());
    }
}
