//! PSA's I2E clones of a packet that recirculates, at XDP, on the plans
//! of [`super::xdp_clone_resubmit`].
//!
//! A packet sent to `PSA_PORT_RECIRCULATE` goes round inside the XDP
//! program (egress runs there, then ingress again), so its frame leaves
//! by a later pass, which sends the plan. The pass that clones and
//! recirculates begins the plan as a resubmitting pass does, and the
//! plan keeps the frame's headers as this pass received them
//! (`NAME_clone_round`; a plan an earlier resubmitting pass began keeps
//! them too: the frame is as received until the deparser), for the
//! recirculated frame is what egress wrote; E2E clones egress makes on
//! the way round join this plan ([`super::xdp_e2e_passes`]'s pending
//! one). The pass that leaves adds the
//! packet's copies only: a later pass's clones would need its own
//! received headers, which the plan has no room for (one pass's clones
//! per packet). Egress dropping the packet on its way round sends the
//! plan's clones alone.

use super::c::{line, CStmt};
use super::Emitter;
use crate::ir::Arch;

/// The local holding the plan's number ([`super::xdp_clone_resubmit`]).
const PLANNED: &str = "planned_copies";
/// Received bytes a PSA clone keeps at XDP (as [`super::xdp_psa_clone`]).
const RECEIVED_MAX: u32 = 256;

impl Emitter<'_> {
    /// When ingress sends the packet round by recirculation (not
    /// resubmitted, not multicast, not dropped), in a PSA program that
    /// clones I2E at XDP and recirculates.
    pub(super) fn xdp_round_condition(&self) -> Option<String> {
        let i = &self.prog.intrinsics;
        let (again, r) = (i.recirculate.as_ref()?, i.replication.as_ref()?);
        if self.prog.arch != Arch::Psa || self.psa_xdp_clone().is_none() {
            return None;
        }
        let mut cond = format!("{} && {} == 0", self.expr(&again.flag), self.expr(&r.group));
        if let Some(resubmit) = &i.resubmit {
            cond = format!("!{} && {cond}", self.expr(&resubmit.flag));
        }
        Some(cond)
    }

    /// The plan's field telling that it keeps the headers of a pass that
    /// recirculated.
    pub(super) fn round_field(&self) -> &'static str {
        match self.xdp_round_condition() {
            Some(_) => "\n    u8 went_round; /* received headers kept before a recirculation */",
            None => "",
        }
    }

    /// A plan begun now keeps no pass's headers yet.
    pub(super) fn round_reset(&self) -> Vec<CStmt> {
        match self.xdp_round_condition() {
            Some(_) => vec![line("c->went_round = 0")],
            None => vec![],
        }
    }

    /// `cond` for what the last pass does only when the plan keeps no
    /// recirculated pass's headers.
    pub(super) fn unless_went_round(&self, cond: String) -> String {
        match self.xdp_round_condition() {
            Some(_) => format!("!c->went_round && {cond}"),
            None => cond,
        }
    }

    /// In a pass that goes round (`round`: by recirculation), with a plan:
    /// the plan keeps the headers this pass received.
    pub(super) fn xdp_round_kept(&self, round: Option<String>) -> Vec<CStmt> {
        let Some(round) = round else {
            return vec![];
        };
        vec![CStmt::If {
            cond: format!("{PLANNED} && ({round})"),
            then: vec![line(format!(
                "{PLANNED} = {}_clone_round(ctx, offset, {PLANNED})",
                self.c_prefix()
            ))],
            other: vec![],
        }]
    }

    /// After egress, in the entry function: a packet going round that
    /// egress dropped leaves as its planned clones.
    pub(super) fn xdp_round_dropped(&self) -> Vec<CStmt> {
        if self.hook != p4bpf_layout::Hook::Xdp || self.xdp_round_condition().is_none() {
            return vec![];
        }
        vec![CStmt::If {
            cond: format!("{PLANNED} && verdict == XDP_DROP"),
            then: vec![CStmt::Return(format!(
                "{}_clone_send(ctx, {PLANNED}) /* egress dropped it: its clones leave */",
                self.c_prefix()
            ))],
            other: vec![],
        }]
    }

    /// In a program whose egress clones E2E on the way round: those
    /// clones join this plan, the one the leaving pass sends.
    fn e2e_clones_joined(&self) -> Vec<CStmt> {
        if !self.xdp_e2e_passes() {
            return vec![];
        }
        let p = self.c_prefix();
        vec![
            line("u32 zero = 0"),
            line(format!(
                "u32 *pending = bpf_map_lookup_elem(&{p}_e2e_pending, &zero)"
            )),
            CStmt::If {
                cond: "pending".into(),
                then: vec![line("*pending = planned /* egress's E2E clones join it */")],
                other: vec![],
            },
        ]
    }

    /// `NAME_clone_round`: plan `planned` keeps the headers received by
    /// the pass that recirculates (unless an earlier one's); its number,
    /// or 0 when it was lost or the headers are too long to keep.
    pub(super) fn clone_round_function(&self) -> String {
        if self.xdp_round_condition().is_none() {
            return String::new();
        }
        let p = self.c_prefix();
        let body = vec![
            line(format!("u32 slot = planned % {}", super::xdp_copies::RING)),
            line(format!(
                "struct {p}_copies *c = bpf_map_lookup_elem(&{p}_copy_ring, &slot)"
            )),
            CStmt::If {
                cond: format!("!c || c->seq != planned || offset > {RECEIVED_MAX}"),
                then: vec![CStmt::Return(
                    "0 /* its plan was lost, or headers too long to keep */".into(),
                )],
                other: vec![],
            },
            line("c->last_pass_clones = c->count /* all an earlier pass's */"),
            CStmt::If {
                cond: "c->went_round".into(),
                then: vec![CStmt::Return(
                    "planned /* an earlier pass's headers kept */".into(),
                )],
                other: vec![],
            },
            line("c->received_len = ctx->data_end - ctx->data"),
            line("c->saved = offset"),
            line(format!("u32 n = ((offset - 1) & {}) + 1", RECEIVED_MAX - 1)),
            CStmt::If {
                cond: "offset && bpf_xdp_load_bytes(ctx, 0, c->received, n)".into(),
                then: vec![CStmt::Return("0".into())],
                other: vec![],
            },
            line("c->went_round = 1"),
        ];
        let mut body = body;
        body.extend(self.e2e_clones_joined());
        body.push(CStmt::Return("planned".into()));
        let mut out = format!(
            "/* Clone I2E of a packet that recirculates: the plan keeps the headers this\n * pass received (the recirculated frame is what egress writes); 0 when it\n * cannot. A global function: the verifier checks it once. */\n\
             __attribute__((noinline)) u32 {p}_clone_round(struct xdp_md *ctx, u32 offset, u32 planned)\n{{\n"
        );
        super::c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        out
    }
}
