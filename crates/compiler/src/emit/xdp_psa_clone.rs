//! PSA's clone I2E at XDP, on the copies of [`super::xdp_copies`].
//!
//! A PSA clone is of the packet as received, the original is the packet
//! its ingress deparser writes: two different frames, where a devmap
//! broadcast sends one. So the clone is planned in the ingress deparser
//! before it writes (`NAME_clone_plan`): the plan keeps the received
//! headers (the bytes the ingress parser read, at most
//! [`RECEIVED_MAX`]; a packet with more is not cloned) and the frame's
//! length, lists the session's clones and what ingress decided for the
//! packet (nothing when dropped, the group's replicas, or the original),
//! and puts its number in the frame's XDP metadata, which moves with the
//! frame as the deparser writes. At the checkpoint a frame with a plan
//! goes to the devmap of the session the plan holds (`NAME_clone_send`;
//! in a program that resubmits, the plan may be an earlier pass's:
//! [`super::xdp_clone_resubmit`]). A clone's egress
//! program first puts the received headers back (`NAME_restore_received`)
//! and then parses it, as every PSA copy's egress does.

use super::c::{line, CStmt};
use super::xdp_copies::{copy_ports_map, CLONE, ORIGINAL, REPLICA};
use super::Emitter;
use crate::ir::{CloneI2e, Outcome, Replication, Step, VerdictRule};

/// Received bytes a PSA clone keeps at XDP.
const RECEIVED_MAX: u32 = 256;

impl Emitter<'_> {
    /// PSA's clone I2E, made at XDP.
    pub(super) fn psa_xdp_clone(&self) -> Option<&CloneI2e> {
        let clone = self.prog.intrinsics.clone_i2e.as_ref();
        clone.filter(|c| c.field_lists.is_none() && self.xdp_copies())
    }

    /// The plan's fields for the received headers, when PSA clones.
    pub(super) fn psa_received_fields(&self) -> String {
        if self.psa_xdp_clone().is_none() {
            return String::new();
        }
        format!("\n    u32 received_len;\n    u32 saved;\n    u8 received[{RECEIVED_MAX}];")
    }

    /// In the ingress deparser, before it writes the packet: the plan of
    /// a packet ingress clones (packet pointers reread: the metadata moved
    /// the frame's start).
    pub(super) fn psa_xdp_clone_call(&self, deparser: usize) -> Vec<CStmt> {
        let Some(clone) = self.psa_xdp_clone() else {
            return vec![];
        };
        let at = |step: Step| self.prog.pipeline.iter().position(|s| *s == step);
        let before = at(Step::Deparse(deparser)).zip(at(Step::Checkpoint));
        if before.is_none_or(|(deparse, checkpoint)| deparse >= checkpoint) {
            return vec![];
        }
        let ctx = self.target.context();
        let planned = self.planned_argument().0;
        let plan = vec![
            line(format!(
                "{}_clone_plan({ctx}, st, offset{planned})",
                self.c_prefix()
            )),
            line(format!("pkt = (u8 *)(long){ctx}->data")),
            line(format!("pkt_end = (u8 *)(long){ctx}->data_end")),
        ];
        if self.xdp_clones_before_resubmit().is_some() {
            return self.clone_with_passes(clone, plan);
        }
        vec![CStmt::If {
            cond: self.expr(&clone.flag),
            then: plan,
            other: vec![],
        }]
    }

    /// At the checkpoint, first: a frame with a plan leaves as its copies.
    pub(super) fn xdp_clone_pending(&self) -> Vec<CStmt> {
        let mut out = self.xdp_inline_egress_mark();
        if self.psa_xdp_clone().is_none() {
            return out;
        }
        out.extend([
            line("u32 *planned = (u32 *)(long)ctx->data_meta"),
            CStmt::If {
                cond: "(void *)(planned + 1) <= (void *)(long)ctx->data".into(),
                then: vec![CStmt::Return(format!(
                    "{}_clone_send(ctx, *planned)",
                    self.c_prefix()
                ))],
                other: vec![],
            },
        ]);
        out
    }

    /// `NAME_clone_plan`, `NAME_clone_send` and `NAME_restore_received`.
    pub(super) fn psa_clone_functions(&self, r: &Replication) -> String {
        let Some(clone) = self.psa_xdp_clone() else {
            return String::new();
        };
        let mut out = self.clone_plan_function(clone, r);
        out.push_str(&self.clone_send_after_deparse());
        out.push_str(&self.restore_received_function());
        out
    }

    /// What ingress decided for the packet itself, as copies of the plan.
    fn packet_copies(&self, r: &Replication) -> Vec<CStmt> {
        let p = self.c_prefix();
        let port = self.prog.intrinsics.output_port.as_ref();
        let port = port.map(|e| self.expr(e)).unwrap_or_else(|| "0".into());
        let unicast = vec![line(format!("{p}_copies_add(c, {port}, 0, {ORIGINAL})"))];
        let multicast = CStmt::If {
            cond: "group_id != 0".into(),
            then: vec![
                line(format!(
                    "struct {p}_group *group = bpf_map_lookup_elem(&{p}_mcast_groups, &group_id)"
                )),
                CStmt::If {
                    cond: "group".into(),
                    then: vec![line(format!("{p}_copies_add_members(c, group, {REPLICA})"))],
                    other: vec![],
                },
            ],
            other: unicast,
        };
        let mut out = vec![line(format!("u32 group_id = {}", self.expr(&r.group)))];
        let VerdictRule::Code { place, outcomes } = &self.prog.intrinsics.verdict else {
            out.push(multicast);
            return out;
        };
        let code = self.expr(place);
        let kept: Vec<String> = outcomes
            .iter()
            .filter(|(_, o)| *o != Outcome::Drop)
            .map(|(c, _)| format!("{code} == {c}"))
            .collect();
        if !kept.is_empty() {
            out.push(CStmt::If {
                cond: kept.join(" || "),
                then: vec![multicast],
                other: vec![],
            });
        }
        out
    }

    /// A plan begun in `c` with the clones of session `clone.session`.
    fn psa_plan_begun(&self, clone: &CloneI2e) -> Vec<CStmt> {
        let p = self.c_prefix();
        let sessions = super::replication::sessions_map(self.prog);
        vec![
            line(format!("u32 session_id = {}", self.expr(&clone.session))),
            line(format!(
                "struct {p}_group *session = bpf_map_lookup_elem(&{sessions}, &session_id)"
            )),
            CStmt::If {
                cond: format!("!session || offset > {RECEIVED_MAX}"),
                then: vec![CStmt::Return(
                    "/* no such session, or headers too long to keep */".into(),
                )],
                other: vec![],
            },
            line(format!("c = {p}_copies_begin(st, offset, 0)")),
            CStmt::If {
                cond: "!c".into(),
                then: vec![CStmt::Return(String::new())],
                other: vec![],
            },
            line("c->clone_session = session_id"),
            self.clones_added(CLONE),
        ]
    }

    fn clone_plan_function(&self, clone: &CloneI2e, r: &Replication) -> String {
        let p = self.c_prefix();
        let mut body = vec![line(format!("struct {p}_copies *c"))];
        let begun = self.psa_plan_begun(clone);
        if self.xdp_clones_before_resubmit().is_some() {
            let too_long = format!("offset > {RECEIVED_MAX}");
            body.extend(self.psa_plan_resumed_or_begun(clone, begun, &too_long));
        } else {
            body.extend(begun);
        }
        let received = vec![
            line("c->received_len = ctx->data_end - ctx->data"),
            line("c->saved = offset"),
            CStmt::Comment("1 to 256 bytes, as the verifier can see".into()),
            line(format!("u32 n = ((offset - 1) & {}) + 1", RECEIVED_MAX - 1)),
            CStmt::If {
                cond: "offset && bpf_xdp_load_bytes(ctx, 0, c->received, n)".into(),
                then: vec![CStmt::Return(String::new())],
                other: vec![],
            },
        ];
        match self.xdp_round_condition() {
            // a recirculated pass's plan keeps the headers it received
            Some(_) => body.push(CStmt::If {
                cond: "!c->went_round".into(),
                then: received,
                other: vec![],
            }),
            None => body.extend(received),
        }
        body.extend(self.packet_copies(r));
        body.extend([
            CStmt::If {
                cond: "bpf_xdp_adjust_meta(ctx, -(int)sizeof(u32))".into(),
                then: vec![CStmt::Return(String::new())],
                other: vec![],
            },
            line("u32 *meta = (u32 *)(long)ctx->data_meta"),
            CStmt::If {
                cond: "(void *)(meta + 1) <= (void *)(long)ctx->data".into(),
                then: vec![line("*meta = c->seq")],
                other: vec![],
            },
        ]);
        let mut out = format!(
            "/* Clone I2E: plans the session's clones (with the received headers) and\n * the packet's own copies; the plan's number goes in the frame's metadata.\n * A function of its own: the verifier goes on from one state, not one per\n * way out of its loops. */\n\
             static __attribute__((noinline)) void {p}_clone_plan(struct xdp_md *ctx, struct {} *st, u32 offset{})\n{{\n",
            self.state_type(),
            self.planned_argument().1
        );
        super::c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        out
    }

    /// `NAME_clone_send`: to the devmap of the session the plan's clones
    /// are of (in a program that resubmits, an earlier pass's).
    fn clone_send_after_deparse(&self) -> String {
        let p = self.c_prefix();
        let body = vec![
            line(format!("u32 slot = planned % {}", super::xdp_copies::RING)),
            line(format!(
                "struct {p}_copies *c = bpf_map_lookup_elem(&{p}_copy_ring, &slot)"
            )),
            CStmt::If {
                cond: "!c || c->seq != planned".into(),
                then: vec![CStmt::Return("XDP_DROP /* its plan was lost */".into())],
                other: vec![],
            },
            line(format!(
                "u64 key = {}ULL | c->clone_session",
                p4bpf_layout::SESSION_KEY
            )),
            line(format!(
                "void *ports = bpf_map_lookup_elem(&{}, &key)",
                copy_ports_map(self.prog)
            )),
            CStmt::Return("ports ? bpf_redirect_map(ports, 0, BPF_F_BROADCAST) : XDP_DROP".into()),
        ];
        let mut out = format!(
            "/* A planned frame, written by the ingress deparser, to the session's devmap. */\n\
             static __always_inline int {p}_clone_send(struct xdp_md *ctx, u32 planned)\n{{\n"
        );
        super::c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        out
    }

    fn restore_received_function(&self) -> String {
        let p = self.c_prefix();
        let body = vec![
            line("int grown = (int)(ctx->data_end - ctx->data) - (int)c->received_len"),
            CStmt::If {
                cond: "grown && bpf_xdp_adjust_head(ctx, grown)".into(),
                then: vec![CStmt::Return("-1".into())],
                other: vec![],
            },
            CStmt::If {
                cond: format!("c->saved == 0 || c->saved > {RECEIVED_MAX}"),
                then: vec![CStmt::Return("0".into())],
                other: vec![],
            },
            line(format!(
                "u32 n = ((c->saved - 1) & {}) + 1",
                RECEIVED_MAX - 1
            )),
            CStmt::Return("bpf_xdp_store_bytes(ctx, 0, c->received, n) ? -1 : 0".into()),
        ];
        let mut out = format!(
            "/* A clone's frame as received: the deparsed headers swapped back for the\n * received ones; -1 when the frame cannot be made so. */\n\
             static __always_inline int {p}_restore_received(struct xdp_md *ctx, struct {p}_copies *c)\n{{\n"
        );
        super::c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        out
    }

    /// In `NAME_copy_state`: a PSA clone's state, the packet's with the
    /// member's port and instance, and the clone's packet path.
    pub(super) fn psa_clone_state(&self) -> Vec<CStmt> {
        let (Some(clone), Some(r)) = (self.psa_xdp_clone(), &self.prog.intrinsics.replication)
        else {
            return vec![];
        };
        let port = self.prog.intrinsics.output_port.as_ref();
        let port = port.map(|e| self.lvalue(e)).unwrap_or_default();
        vec![CStmt::If {
            cond: format!("c->copy[i].kind == {CLONE}"),
            then: vec![
                self.copy_state_line("st", &self.psa_cloning_pass_state()),
                line(format!("{port} = port")),
                line(format!("{} = c->copy[i].rid", self.lvalue(&r.replica_id))),
                line(format!(
                    "{} = {}",
                    self.lvalue(&clone.packet_path),
                    clone.path
                )),
                CStmt::Return(String::new()),
            ],
            other: vec![],
        }]
    }

    /// In the egress program, before a PSA clone's egress: its received
    /// headers back.
    pub(super) fn psa_clone_restore(&self) -> Vec<CStmt> {
        if self.psa_xdp_clone().is_none() {
            return vec![];
        }
        vec![CStmt::If {
            cond: format!(
                "c->copy[i].kind == {CLONE} && {}_restore_received(ctx, c)",
                self.c_prefix()
            ),
            then: vec![CStmt::Return(
                "XDP_DROP /* its received headers cannot be put back */".into(),
            )],
            other: vec![],
        }]
    }
}
