//! PNA's and PSA's entry timers in C ([`crate::ir::EntryTimer`]): the
//! timer cell at the end of a timed table's value, the profiles' timeouts
//! map, the lookup that deletes an idle entry (and misses), and the
//! restart a PNA action asked for, or PSA's at every hit. A control-plane
//! entry's cell starts at 0 (its timer starts at its first hit, with
//! profile 0) unless the control plane started it (P4Runtime's
//! per-entry `idle_timeout_ns`).

use super::c::{line, CStmt};
use super::maps::map_def;
use super::Emitter;
use crate::ir::{EntryTimer, Table};

/// The value struct's member holding the timer.
const CELL: &str = "p4bpf_timer";

impl Emitter<'_> {
    /// The timer member of `t`'s value struct, last.
    pub(super) fn timer_member(&self, t: &Table) -> String {
        match t.entry_timer {
            Some(_) => format!(
                "    u64 {CELL}; /* entry timer: last restart (ns) << 8 | expire-time profile */\n"
            ),
            None => String::new(),
        }
    }

    /// The profiles' timeouts, when a table has a timer.
    pub(super) fn timer_profiles_map(&self) -> String {
        if self.prog.tables.iter().all(|t| t.entry_timer.is_none()) {
            return String::new();
        }
        format!(
            "/* each expire-time profile's timeout in ns (0: never), set by the control plane */\n{}",
            map_def(
                "BPF_MAP_TYPE_ARRAY",
                "u32",
                "u64",
                EntryTimer::PROFILES,
                None,
                EntryTimer::PROFILES_MAP
            )
        )
    }

    /// After the lookup of `t` (the key in `key`): an entry idle for
    /// longer than its profile's timeout is deleted and the lookup misses.
    pub(super) fn timer_expiry(&self, t: &Table) -> Vec<CStmt> {
        let Some(timer) = t.entry_timer else {
            return vec![];
        };
        let Some(requests) = timer.requests else {
            return self.timer_restart_on_hit();
        };
        let Some(request) = self.prog.var(requests.request) else {
            return vec![];
        };
        if timer.notify {
            return self.timer_start(t, &request.c_name);
        }
        let expired = CStmt::If {
            cond: format!("timeout && *timeout && now - (value->{CELL} >> 8) > *timeout"),
            then: vec![
                line(format!("bpf_map_delete_elem(&{}, &key)", t.c_name)),
                line("value = 0"),
            ],
            other: vec![],
        };
        vec![
            CStmt::Comment("entry timer: an idle entry is deleted, and the lookup misses".into()),
            CStmt::If {
                cond: "value".into(),
                then: vec![
                    line("u64 now = bpf_ktime_get_ns()"),
                    line(format!("u32 profile = value->{CELL} & 0xff")),
                    line(format!(
                        "u64 *timeout = bpf_map_lookup_elem(&{}, &profile)",
                        EntryTimer::PROFILES_MAP
                    )),
                    CStmt::If {
                        cond: format!("value->{CELL} == 0"),
                        then: vec![line(format!("value->{CELL} = now << 8"))],
                        other: vec![expired],
                    },
                ],
                other: vec![],
            },
            line(format!("struct {}_value *timed = value", t.c_name)),
            line(format!("st->{} = 0", request.c_name)),
        ]
    }

    /// After the lookup of `t` in a `NOTIFY_CONTROL` table: idle entries
    /// stay (the control plane finds them); a control-plane entry's timer
    /// starts at its first hit.
    fn timer_start(&self, t: &Table, request: &str) -> Vec<CStmt> {
        vec![
            CStmt::If {
                cond: format!("value && value->{CELL} == 0"),
                then: vec![line(format!("value->{CELL} = bpf_ktime_get_ns() << 8"))],
                other: vec![],
            },
            line(format!("struct {}_value *timed = value", t.c_name)),
            line(format!("st->{request} = 0")),
        ]
    }

    /// After the lookup of a PSA table: a hit restarts the entry's timer,
    /// which keeps its profile.
    fn timer_restart_on_hit(&self) -> Vec<CStmt> {
        vec![
            CStmt::Comment("entry timer: a hit restarts it".into()),
            CStmt::If {
                cond: "value".into(),
                then: vec![line(format!(
                    "value->{CELL} = bpf_ktime_get_ns() << 8 | (value->{CELL} & 0xff)"
                ))],
                other: vec![],
            },
        ]
    }

    /// After `t`'s action: the restart it asked of the matched entry's
    /// timer, with a new profile or its own.
    pub(super) fn timer_restart(&self, t: &Table) -> Vec<CStmt> {
        let Some(requests) = t.entry_timer.and_then(|timer| timer.requests) else {
            return vec![];
        };
        let (Some(request), Some(profile)) = (
            self.prog.var(requests.request),
            self.prog.var(requests.profile),
        ) else {
            return vec![];
        };
        let (request, profile) = (&request.c_name, &profile.c_name);
        vec![CStmt::If {
            cond: format!("timed && st->{request}"),
            then: vec![
                line(format!(
                    "u64 profile = st->{request} & {} ? st->{profile} : timed->{CELL} & 0xff",
                    EntryTimer::NEW_PROFILE
                )),
                line(format!("timed->{CELL} = bpf_ktime_get_ns() << 8 | profile")),
            ],
            other: vec![],
        }]
    }

    /// In an entry `add_entry` inserts: its timer starts now, with the
    /// profile the call gave.
    pub(super) fn timer_on_insert(&self, t: &Table) -> Vec<CStmt> {
        let Some(profile) = t
            .entry_timer
            .and_then(|x| x.requests)
            .and_then(|x| self.prog.var(x.profile))
        else {
            return vec![];
        };
        vec![line(format!(
            "entry.{CELL} = bpf_ktime_get_ns() << 8 | st->{}",
            profile.c_name
        ))]
    }
}
