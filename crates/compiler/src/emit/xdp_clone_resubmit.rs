//! I2E clones in a program that resubmits, at XDP (v1model's, PSA's; PSA's
//! of a packet that recirculates too, [`super::xdp_clone_round`]), on the
//! copies of [`super::xdp_copies`].
//!
//! BMv2 clones at the end of ingress before it resubmits, and PSA makes
//! the clones `ostd.clone` asks for whatever else happens to the packet,
//! so a pass can do both; its clones are of the packet as received, and
//! the frame stays as received through every ingress pass (v1model has no
//! ingress deparser; PSA's resubmits before its deparser writes). So the
//! pass that clones and resubmits begins the plan
//! (`NAME_clone_i2e_later`): the clones, and this pass's state in the
//! slot's `clone_state`, which the clones' egress starts from; the slot's
//! number survives the passes in `planned_copies`; a pass that resubmits
//! without cloning keeps it. The pass that does not resubmit finishes the plan with the packet's own copies and its
//! state, and sends it through the session's devmap (v1model:
//! `NAME_clone_i2e` at the checkpoint; PSA: `NAME_clone_plan` in the
//! ingress deparser, which also keeps the received headers, and
//! `NAME_clone_send`). PSA's last pass adds its own clones to the plan
//! (`last_pass_clones`: their egress starts from the plan's `state`),
//! leaving through the earlier session's devmap, which holds every port
//! once besides its members. Otherwise one pass's clones per packet at
//! XDP: a later pass's clone, when an earlier one is planned, is not made
//! (v1model's; PSA's of a pass between the first cloning one and the
//! last).

use super::c::{line, CStmt};
use super::xdp_copies::CLONE;
use super::Emitter;
use crate::ir::CloneI2e;

/// The local holding the sequence number of the plan an earlier pass
/// began (0: none).
const PLANNED: &str = "planned_copies";

impl Emitter<'_> {
    /// The I2E clone made at XDP in a program that resubmits.
    /// (PSA: or recirculates, [`super::xdp_clone_round`].)
    pub(super) fn xdp_clones_before_resubmit(&self) -> Option<&CloneI2e> {
        let i = &self.prog.intrinsics;
        let clone = i.clone_i2e.as_ref();
        let rounds = i.recirculate.is_some() && self.prog.arch == crate::ir::Arch::Psa;
        clone.filter(|_| (i.resubmit.is_some() || rounds) && self.xdp_copies())
    }

    /// Before the first pass: no plan yet.
    pub(super) fn xdp_planned_local(&self) -> Vec<CStmt> {
        if self.xdp_clones_before_resubmit().is_none() {
            return vec![];
        }
        vec![line(format!(
            "u32 {PLANNED} = 0 /* the plan of copies an earlier pass began */"
        ))]
    }

    /// The slot's fields for the cloning pass's state (in a program that
    /// resubmits) and session (there, and for every PSA clone).
    pub(super) fn clone_state_fields(&self) -> String {
        let mut out = String::new();
        if self.xdp_clones_before_resubmit().is_some() {
            out.push_str(&format!("\n    struct {} clone_state;", self.state_type()));
        }
        if self.xdp_clones_before_resubmit().is_some() && self.psa_xdp_clone().is_some() {
            out.push_str("\n    u32 last_pass_clones; /* the first clone the last pass made */");
            out.push_str(self.round_field());
        }
        if self.xdp_clones_before_resubmit().is_some() || self.psa_xdp_clone().is_some() {
            out.push_str("\n    u32 clone_session;");
        }
        out
    }

    /// Where a clone's egress finds the state of the pass that cloned.
    pub(super) fn cloning_pass_state(&self) -> &'static str {
        match self.xdp_clones_before_resubmit() {
            Some(_) => "clone_state",
            None => "state",
        }
    }

    /// At the checkpoint: a pass that clones and resubmits plans the
    /// clones; a pass that does not resubmit sends them (and its own).
    pub(super) fn xdp_clone_check_with_passes(&self, clone: &CloneI2e) -> Vec<CStmt> {
        let p = self.c_prefix();
        self.clone_with_passes(
            clone,
            vec![
                line(format!(
                    "int copied = {p}_clone_i2e(ctx, st, offset, parser_error, {PLANNED})"
                )),
                CStmt::If {
                    cond: "copied >= 0".into(),
                    then: vec![CStmt::Return("copied".into())],
                    other: vec![],
                },
            ],
        )
    }

    /// A pass that clones and goes round again (resubmits; PSA: or
    /// recirculates) begins the plan, and keeps it; a pass that leaves,
    /// when it clones or a plan is begun, runs `finish`.
    pub(super) fn clone_with_passes(&self, clone: &CloneI2e, finish: Vec<CStmt>) -> Vec<CStmt> {
        let (p, flag) = (self.c_prefix(), self.expr(&clone.flag));
        let resubmit = self.prog.intrinsics.resubmit.as_ref();
        let round = self.xdp_round_condition();
        let again: Vec<String> = resubmit
            .map(|r| self.expr(&r.flag))
            .into_iter()
            .chain(round.clone())
            .collect();
        let again = match again.as_slice() {
            [] => return vec![],
            [one] => one.clone(),
            both => format!("({})", both.join(") || (")),
        };
        let mut planned = vec![CStmt::If {
            cond: flag.clone(),
            then: vec![line(format!(
                "{PLANNED} = {p}_clone_i2e_later(st, offset, parser_error, {PLANNED})"
            ))],
            other: vec![],
        }];
        planned.extend(self.xdp_round_kept(round));
        vec![CStmt::If {
            cond: again,
            then: planned,
            other: vec![CStmt::If {
                cond: format!("{flag} || {PLANNED}"),
                then: finish,
                other: vec![],
            }],
        }]
    }

    /// The argument and the parameter passing the begun plan's number to
    /// PSA's `NAME_clone_plan`, in a program that resubmits.
    pub(super) fn planned_argument(&self) -> (&'static str, &'static str) {
        match self.xdp_clones_before_resubmit() {
            Some(_) => (", planned_copies", ", u32 planned"),
            None => ("", ""),
        }
    }

    /// PSA's `NAME_clone_plan`, in a program that resubmits: the plan an
    /// earlier pass began, given this pass's state (returning when it was
    /// lost or the headers are too long to keep); or a plan begun now
    /// (`fresh`), keeping this pass's state for its clones.
    pub(super) fn psa_plan_resumed_or_begun(
        &self,
        clone: &CloneI2e,
        fresh: Vec<CStmt>,
        too_long: &str,
    ) -> Vec<CStmt> {
        let p = self.c_prefix();
        let mut resumed = vec![
            line(format!("u32 slot = planned % {}", super::xdp_copies::RING)),
            line(format!("c = bpf_map_lookup_elem(&{p}_copy_ring, &slot)")),
            CStmt::If {
                cond: format!("!c || c->seq != planned || {too_long}"),
                then: vec![CStmt::Return(
                    "/* its plan was lost, or headers too long to keep */".into(),
                )],
                other: vec![],
            },
            self.copy_state_line("&c->state", "st"),
            line("c->offset = offset"),
        ];
        resumed.extend(self.last_pass_clones_added(clone));
        let mut begun = fresh;
        begun.extend(self.round_reset());
        begun.extend([
            self.copy_state_line("&c->clone_state", "st"),
            line("c->last_pass_clones = 0 /* all this pass's */"),
        ]);
        vec![CStmt::If {
            cond: "planned".into(),
            then: resumed,
            other: begun,
        }]
    }

    /// In `NAME_clone_i2e`: the plan an earlier pass began, given this
    /// pass's state; or a plan begun now with this pass's clones.
    pub(super) fn clones_resumed_or_planned(&self, clone: &CloneI2e) -> Vec<CStmt> {
        let p = self.c_prefix();
        let resumed = vec![
            line(format!("u32 slot = planned % {}", super::xdp_copies::RING)),
            line(format!("c = bpf_map_lookup_elem(&{p}_copy_ring, &slot)")),
            CStmt::If {
                cond: "!c || c->seq != planned".into(),
                then: vec![CStmt::Return("XDP_DROP /* its plan was lost */".into())],
                other: vec![],
            },
            self.copy_state_line("&c->state", "st"),
            line("c->offset = offset"),
            line("c->parser_error = parser_error"),
            line("session_id = c->clone_session"),
        ];
        let mut begun = vec![line(format!("session_id = {}", self.expr(&clone.session)))];
        begun.extend(self.session_of_id());
        begun.extend([
            line(format!("c = {p}_copies_begin(st, offset, parser_error)")),
            CStmt::If {
                cond: "!c".into(),
                then: vec![CStmt::Return("XDP_DROP".into())],
                other: vec![],
            },
            line(format!("{p}_copies_add_members(c, session, {CLONE})")),
        ]);
        begun.extend(self.clone_state_kept());
        vec![
            line(format!("struct {p}_copies *c")),
            line("u32 session_id"),
            CStmt::If {
                cond: "planned".into(),
                then: resumed,
                other: begun,
            },
        ]
    }

    /// PSA, in the plan an earlier pass began: this last pass's clones
    /// too, after it, whose egress starts from `state` (`clone_state` is
    /// the earlier pass's). The devmap is the earlier session's, which
    /// holds every port once: a port gets at most one frame more than
    /// that session's members on it.
    fn last_pass_clones_added(&self, clone: &CloneI2e) -> Vec<CStmt> {
        let (p, sessions) = (self.c_prefix(), super::replication::sessions_map(self.prog));
        vec![
            line("c->last_pass_clones = c->count"),
            CStmt::If {
                cond: self.unless_went_round(self.expr(&clone.flag)),
                then: vec![
                    line(format!("u32 session_id = {}", self.expr(&clone.session))),
                    line(format!(
                        "struct {p}_group *session = bpf_map_lookup_elem(&{sessions}, &session_id)"
                    )),
                    CStmt::If {
                        cond: "session".into(),
                        then: vec![self.clones_added(CLONE)],
                        other: vec![],
                    },
                ],
                other: vec![],
            },
        ]
    }

    /// In `NAME_copy_state`, PSA: where clone `i`'s egress starts, the
    /// state of the pass that made it.
    pub(super) fn psa_cloning_pass_state(&self) -> String {
        if self.xdp_clones_before_resubmit().is_none() {
            return "&c->state".into();
        }
        "(i >= c->last_pass_clones ? &c->state : &c->clone_state)".into()
    }

    fn clone_state_kept(&self) -> [CStmt; 2] {
        [
            self.copy_state_line("&c->clone_state", "st"),
            line("c->clone_session = session_id"),
        ]
    }

    /// `NAME_clone_i2e_later`: a plan begun with the clones of a pass that
    /// also resubmits; its sequence number, or `planned` when there is no
    /// such session or an earlier pass's clones are planned already.
    pub(super) fn clone_later_function(&self) -> String {
        let Some(clone) = self.xdp_clones_before_resubmit() else {
            return String::new();
        };
        let p = self.c_prefix();
        let sessions = super::replication::sessions_map(self.prog);
        let mut body = vec![
            CStmt::If {
                cond: "planned".into(),
                then: vec![CStmt::Return(
                    "planned /* at XDP, one pass's clones per packet */".into(),
                )],
                other: vec![],
            },
            line(format!("u32 session_id = {}", self.expr(&clone.session))),
            line(format!(
                "struct {p}_group *session = bpf_map_lookup_elem(&{sessions}, &session_id)"
            )),
            line(format!(
                "struct {p}_copies *c = session ? {p}_copies_begin(st, offset, parser_error) : 0"
            )),
            CStmt::If {
                cond: "!c".into(),
                then: vec![CStmt::Return("0 /* no such session */".into())],
                other: vec![],
            },
        ];
        body.extend(self.clone_state_kept());
        body.extend(self.round_reset());
        body.extend([self.clones_added(CLONE), CStmt::Return("c->seq".into())]);
        let mut out = format!(
            "/* Clone I2E in a pass that resubmits: the plan begun with the session's clones\n * and this pass's state; the pass that does not resubmit sends it. */\n\
             static __always_inline u32 {p}_clone_i2e_later(struct {} *st, u32 offset, u8 parser_error, u32 planned)\n{{\n",
            self.state_type()
        );
        super::c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        out
    }
}
