//! PNA's and PSA's entry timers (what the C does:
//! `crate::emit::entry_timer`): the table properties
//! `idle_timeout_with_auto_delete = true`,
//! `pna_idle_timeout = PNA_IdleTimeout_t.AUTO_DELETE` or `NOTIFY_CONTROL`
//! and `psa_idle_timeout = PSA_IdleTimeout_t.NOTIFY_CONTROL` give a table
//! an [`ir::EntryTimer`]. In PSA every hit restarts the entry's timer; in
//! PNA `set_entry_expire_time[_if]`,
//! `restart_expire_timer` and `update_expire_info` record what the
//! matched entry's action asks of its timer. With `NOTIFY_CONTROL` the
//! data plane keeps idle entries and the control plane finds them
//! (`p4bpf_runtime::idle`). In a table without a timer the calls do
//! nothing: there is no timer to restart.

use super::Lowerer;
use crate::arch::pna::{TIMER_PROFILE, TIMER_REQUEST};
use crate::arch::{Place, TimerCall};
use crate::ir::{self, BinOp, Expr, ExprKind, Stmt, Storage, Ty};
use p4bpf_front::ast;
use p4bpf_front::check::Value;

/// The table properties that ask for idle timeouts.
const TIMER_PROPERTIES: [&str; 3] = [
    "idle_timeout_with_auto_delete",
    "pna_idle_timeout",
    "psa_idle_timeout",
];

impl<'a, 'u> Lowerer<'a, 'u> {
    pub(super) fn is_timer_property(name: &str) -> bool {
        TIMER_PROPERTIES.contains(&name)
    }

    /// Whether property `name = value` gives entries timers, and if so
    /// whether idle ones are reported to the control plane (`true`) or
    /// deleted.
    pub(super) fn timer_property(&mut self, name: &str, value: &ast::Expr) -> Option<bool> {
        match (name, self.env.value(value)) {
            ("idle_timeout_with_auto_delete", Some(Value::Bool(b))) => b.then_some(false),
            ("pna_idle_timeout", Some(Value::Member { member, .. })) => match member.as_str() {
                "AUTO_DELETE" => Some(false),
                "NOTIFY_CONTROL" => Some(true),
                _ => None,
            },
            ("psa_idle_timeout", Some(Value::Member { member, .. })) => {
                (member == "NOTIFY_CONTROL").then_some(true)
            }
            _ => {
                self.diags.error(
                    value.span,
                    format!("`{name}` takes `true` or `false` (`idle_timeout_with_auto_delete`), a `PNA_IdleTimeout_t` (`pna_idle_timeout`) or a `PSA_IdleTimeout_t` (`psa_idle_timeout`)"),
                );
                None
            }
        }
    }

    /// The timer of a table whose idle entries are deleted or reported
    /// (`notify`). Reported ones may be in any table whose entries the
    /// control plane adds (exact, lpm, ternary, range, optional keys); a
    /// lookup can delete only an exact entry, which it finds by its key.
    /// PNA's actions make requests of it; PSA's cannot.
    pub(super) fn entry_timer(
        &mut self,
        notify: Option<bool>,
        storage: Storage,
        decl: &ast::Decl,
    ) -> Option<ir::EntryTimer> {
        let notify = notify?;
        let refusal = match storage {
            Storage::Hash => None,
            Storage::LpmTrie | Storage::Ternary if notify => None,
            Storage::LpmTrie | Storage::Ternary => Some(
                "idle entries are deleted by the lookup only in tables of exact keys: \
                 use `NOTIFY_CONTROL` here, and let the control plane delete them",
            ),
            Storage::Code => Some(
                "idle timeouts need entries the control plane adds: this table's are all const",
            ),
            Storage::Array | Storage::DefaultOnly => Some(
                "idle timeouts are supported on tables whose entries the control plane adds \
                 (not an `array_table`, nor a table without a key)",
            ),
        };
        if let Some(why) = refusal {
            self.diags.error(decl.span, why);
            return None;
        }
        let requests = match (
            self.shared.get(TIMER_REQUEST),
            self.shared.get(TIMER_PROFILE),
        ) {
            (Some(&request), Some(&profile)) => Some(ir::TimerRequests { request, profile }),
            _ => None,
        };
        Some(ir::EntryTimer { requests, notify })
    }

    /// One of PNA's entry-timer calls: sets the request bits (and the
    /// profile) the table reads after the action.
    pub(super) fn entry_timer_call(
        &mut self,
        call: TimerCall,
        args: &'a [ast::Argument],
        e: &ast::Expr,
    ) -> Option<Expr> {
        let values: Vec<Expr> = args
            .iter()
            .map(|a| self.expr(&a.value))
            .collect::<Option<_>>()?;
        let wanted = match call {
            TimerCall::SetExpireTime => 1,
            TimerCall::SetExpireTimeIf => 2,
            TimerCall::Restart => 0,
            TimerCall::UpdateExpireInfo => 3,
        };
        if values.len() != wanted {
            self.diags.error(
                e.span,
                format!("this entry-timer call takes {wanted} arguments"),
            );
            return None;
        }
        let request = self.arch_place(&Place::var(TIMER_REQUEST), e.span)?;
        let profile = self.arch_place(&Place::var(TIMER_PROFILE), e.span)?;
        let restart = ask(&request, ir::EntryTimer::RESTART);
        let mut set = vec![
            Stmt::Assign {
                lhs: profile.clone(),
                rhs: values.last()?.clone().cast(profile.ty.clone()),
            },
            ask(
                &request,
                ir::EntryTimer::RESTART | ir::EntryTimer::NEW_PROFILE,
            ),
        ];
        let stmts = match (call, values.as_slice()) {
            (TimerCall::Restart, _) => vec![restart],
            (TimerCall::SetExpireTime, _) => set,
            (TimerCall::SetExpireTimeIf, [cond, _]) => vec![when(cond.clone(), set, vec![])],
            (TimerCall::UpdateExpireInfo, [aging, new_time, _]) => {
                set = vec![when(new_time.clone(), set, vec![restart])];
                vec![when(aging.clone(), set, vec![])]
            }
            _ => vec![],
        };
        self.pending.extend(stmts);
        Some(Expr {
            kind: ExprKind::Bool(true),
            ty: Ty::Void,
        })
    }
}

/// `request |= bits`.
fn ask(request: &Expr, bits: u32) -> Stmt {
    Stmt::Assign {
        lhs: request.clone(),
        rhs: Expr::binary(
            BinOp::BitOr,
            request.clone(),
            Expr::int(bits, request.ty.clone()),
        ),
    }
}

fn when(cond: Expr, then: Vec<Stmt>, other: Vec<Stmt>) -> Stmt {
    let cond = match cond.ty {
        Ty::Bool => cond,
        _ => Expr::binary(BinOp::Ne, cond.clone(), Expr::int(0u32, cond.ty)),
    };
    Stmt::If { cond, then, other }
}
