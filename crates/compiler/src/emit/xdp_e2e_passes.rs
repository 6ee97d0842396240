//! PSA's E2E clones of a packet that also recirculates, at XDP, on the
//! copies of [`super::xdp_copies`] and [`super::xdp_clone_e2e`].
//!
//! A recirculated packet goes round inside the XDP program, so the clones
//! an earlier pass's egress asked for cannot leave when they are asked
//! for: one XDP run ends in one verdict, and a devmap broadcast sends the
//! frame the run ends with. PSA clones the packet as that pass's egress
//! deparser wrote it, with that pass's state. So the pass that clones and
//! recirculates keeps both (`NAME_e2e_later`): its frame (whole, at most
//! [`FRAME_MAX`] bytes; a longer one is not cloned) and its state, in
//! one of the slot's records of earlier passes (`NAME_e2e_passes`, one
//! map entry per record, so a state may be as big as the ring's), and
//! lists the session's clones in the plan (the record notes which copies
//! are its). The plan's number lives in a per-CPU variable
//! (`NAME_e2e_pending`) cleared when a packet arrives. The packet's last
//! pass sends the plan: its own clones and copy join it as
//! [`super::xdp_clone_e2e`] plans them, or, when it clones nothing, the
//! packet's own copy (unless egress or ingress dropped it) is added and
//! the plan leaves through the last cloned session's devmap. A clone of
//! an earlier pass gets that pass's frame back (`NAME_e2e_restore`)
//! before its egress parses it.
//!
//! Not made: the clones of earlier passes when the last pass sends the
//! packet to the host (one verdict cannot both pass a frame to the stack
//! and broadcast it: the packet goes to the host), multicasts it, or
//! recirculates it once too often. A port gets at most the frames the
//! devmap of the session sending the plan lists it for (every port once,
//! its members once more).

use super::c::{line, CStmt};
use super::xdp_clone_e2e::PSA_PORT_CPU;
use super::xdp_copies::{CLONE_E2E, EGRESSED, RING};
use super::Emitter;
use crate::ir::{Arch, Resubmit};

/// The longest frame an earlier pass's clone keeps (a power of two, so a
/// mask bounds the length for the verifier).
const FRAME_MAX: u32 = 2048;

impl Emitter<'_> {
    /// Whether egress's E2E clones may come from a pass that recirculates.
    pub(super) fn xdp_e2e_passes(&self) -> bool {
        let recirculates = self.prog.intrinsics.recirculate.is_some();
        self.xdp_clone_e2e().is_some() && recirculates && self.prog.arch == Arch::Psa
    }

    fn passes_map(&self) -> String {
        format!("{}_e2e_passes", self.c_prefix())
    }

    fn pending_map(&self) -> String {
        format!("{}_e2e_pending", self.c_prefix())
    }

    /// When a packet arrives: no earlier pass has cloned it yet.
    pub(super) fn xdp_e2e_pending_reset(&self) -> Vec<CStmt> {
        if !self.xdp_e2e_passes() {
            return vec![];
        }
        vec![
            line("u32 pending_key = 0"),
            line(format!(
                "u32 *pending = bpf_map_lookup_elem(&{}, &pending_key)",
                self.pending_map()
            )),
            CStmt::If {
                cond: "pending".into(),
                then: vec![line("*pending = 0 /* a new packet: no clones planned */")],
                other: vec![],
            },
        ]
    }

    /// In `NAME_clone_e2e`, when egress also recirculates the packet: its
    /// clones kept for the pass that sends the plan.
    pub(super) fn xdp_e2e_later_call(&self) -> Vec<CStmt> {
        let Some(again) = self.prog.intrinsics.recirculate.as_ref() else {
            return vec![];
        };
        if !self.xdp_e2e_passes() {
            return vec![];
        }
        vec![CStmt::If {
            cond: self.expr(&again.flag),
            then: vec![
                line(format!(
                    "{}_e2e_later(ctx, st, session_id)",
                    self.c_prefix()
                )),
                CStmt::Return("-1 /* it goes round: a later pass sends them */".into()),
            ],
            other: vec![],
        }]
    }

    /// The function `NAME_clone_e2e` begins its plan with: a new one, or
    /// the one earlier passes began.
    pub(super) fn xdp_e2e_plan_begin(&self) -> String {
        match self.xdp_e2e_passes() {
            true => format!("{}_e2e_plan", self.c_prefix()),
            false => format!("{}_copies_begin", self.c_prefix()),
        }
    }

    /// After the egress deparser, in a pass that does not recirculate and
    /// clones nothing: the plan of earlier passes' clones, if any, sent
    /// with the packet's own copy. `kept` says whether the packet leaves.
    pub(super) fn xdp_e2e_pending_send_call(&self, kept: &str) -> Vec<CStmt> {
        let Some(again) = self.prog.intrinsics.recirculate.as_ref() else {
            return vec![];
        };
        if !self.xdp_e2e_passes() {
            return vec![];
        }
        let p = self.c_prefix();
        vec![CStmt::If {
            cond: format!("!({}) && !{p}_on_copy()", self.expr(&again.flag)),
            then: self.pending_sent(kept),
            other: vec![],
        }]
    }

    /// At the ingress checkpoint, before a packet ingress dropped is: the
    /// clones earlier passes planned leave without it.
    pub(super) fn xdp_e2e_pending_on_drop(&self) -> Vec<CStmt> {
        if !self.xdp_e2e_passes() {
            return vec![];
        }
        self.pending_sent("0")
    }

    fn pending_sent(&self, kept: &str) -> Vec<CStmt> {
        vec![
            line(format!(
                "int sent = {}_e2e_pending_send(ctx, st, {kept})",
                self.c_prefix()
            )),
            CStmt::If {
                cond: "sent >= 0".into(),
                then: vec![CStmt::Return("sent".into())],
                other: vec![],
            },
        ]
    }
}

/// The C definitions: the records, the pending plan and the functions
/// keeping, sending and restoring earlier passes' clones.
impl Emitter<'_> {
    pub(super) fn xdp_e2e_passes_definitions(&self) -> String {
        if !self.xdp_e2e_passes() {
            return String::new();
        }
        let (p, state) = (self.c_prefix(), self.state_type());
        let (passes, pending) = (self.passes_map(), self.pending_map());
        let max = Resubmit::MAX_PASSES;
        let entries = RING * max;
        let mut out = format!(
            "/* A pass that cloned E2E and recirculated, record k of a ring slot (key\n * slot * {max} + k): the plan it belongs to, its copies in the plan (first to\n * end), its session, its state and its frame as its egress deparser wrote it. */\n\
             struct {p}_e2e_pass {{\n    u32 seq;\n    u32 first;\n    u32 end;\n    u32 session;\n    u32 len;\n    struct {state} state;\n    u8 frame[{FRAME_MAX}];\n}};\n\
             struct {{\n    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);\n    __type(key, u32);\n    __type(value, struct {p}_e2e_pass);\n    __uint(max_entries, {entries});\n}} {passes} SEC(\".maps\");\n\n\
             /* [0] the sequence number of the plan this packet's earlier passes began (0: none). */\n\
             struct {{\n    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);\n    __type(key, u32);\n    __type(value, u32);\n    __uint(max_entries, 1);\n}} {pending} SEC(\".maps\");\n\n"
        );
        out.push_str(&self.function(
            "Record `k` of plan `c`'s slot, whichever plan wrote it last.",
            &format!("struct {p}_e2e_pass *{p}_e2e_record(struct {p}_copies *c, u32 k)"),
            vec![
                line(format!("u32 key = c->seq % {RING} * {max} + k")),
                CStmt::Return(format!("bpf_map_lookup_elem(&{passes}, &key)")),
            ],
        ));
        out.push_str(&self.function(
            "The plan this packet's earlier passes began, or 0.",
            &format!("struct {p}_copies *{p}_e2e_pending_plan(void)"),
            self.pending_plan_body(),
        ));
        out.push_str(&self.function(
            "The plan a pass's E2E clones join: the one earlier passes began (now with\n * this pass's state), or a new one.",
            &format!("struct {p}_copies *{p}_e2e_plan(struct {state} *st, u32 offset, u8 parser_error)"),
            self.plan_body(),
        ));
        out.push_str(&self.later_function());
        out.push_str(&self.function(
            "The last pass of a packet earlier passes cloned: its own copy (when `kept`\n * and not to the host) joins their clones, and the plan leaves through the\n * last cloned session's devmap; -1 when there is no such plan.",
            &format!("int {p}_e2e_pending_send(struct xdp_md *ctx, struct {state} *st, u32 kept)"),
            self.pending_send_body(),
        ));
        out.push_str(&self.function(
            "The record of the earlier pass copy `i` is of, or 0 (a clone of the frame sent).",
            &format!("struct {p}_e2e_pass *{p}_e2e_pass_of(struct {p}_copies *c, u32 i)"),
            self.pass_of_body(),
        ));
        out.push_str(&self.global_function(
            "An earlier pass's clone: its frame as that pass's egress deparser wrote it;\n * -1 when the frame cannot be made so.",
            &format!("int {p}_e2e_restore(struct xdp_md *ctx, struct {p}_copies *c, u32 i)"),
            self.restore_body(),
        ));
        out.push_str(&self.global_function(
            "An E2E clone's state before its own fields are set: its pass's, or the\n * plan's.",
            &format!("int {p}_e2e_state_of(struct {state} *st, struct {p}_copies *c, u32 i)"),
            self.state_of_body(),
        ));
        out
    }

    /// `SIGNATURE { BODY }` as a global function, after `comment`: the
    /// verifier checks it once, and its caller goes on from one state
    /// whichever record it read (a big state's copy from two places, inline,
    /// took the egress program past the verifier's 1M).
    fn global_function(&self, comment: &str, signature: &str, body: Vec<CStmt>) -> String {
        let mut out = format!("/* {comment} */\n__attribute__((noinline)) {signature}\n{{\n");
        super::c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        out
    }

    /// `static __always_inline SIGNATURE { BODY }`, after `comment`.
    fn function(&self, comment: &str, signature: &str, body: Vec<CStmt>) -> String {
        let mut out = format!("/* {comment} */\nstatic __always_inline {signature}\n{{\n");
        super::c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        out
    }

    fn pending_plan_body(&self) -> Vec<CStmt> {
        let p = self.c_prefix();
        vec![
            line("u32 zero = 0"),
            line(format!(
                "u32 *pending = bpf_map_lookup_elem(&{}, &zero)",
                self.pending_map()
            )),
            CStmt::If {
                cond: "!pending || !*pending".into(),
                then: vec![CStmt::Return("0".into())],
                other: vec![],
            },
            line(format!("u32 slot = *pending % {RING}")),
            line(format!(
                "struct {p}_copies *c = bpf_map_lookup_elem(&{p}_copy_ring, &slot)"
            )),
            CStmt::Return("c && c->seq == *pending ? c : 0".into()),
        ]
    }

    fn plan_body(&self) -> Vec<CStmt> {
        let p = self.c_prefix();
        vec![
            line(format!("struct {p}_copies *c = {p}_e2e_pending_plan()")),
            CStmt::If {
                cond: "!c".into(),
                then: vec![CStmt::Return(format!(
                    "{p}_copies_begin(st, offset, parser_error)"
                ))],
                other: vec![],
            },
            self.copy_state_line("&c->state", "st"),
            line("c->offset = offset"),
            line("c->parser_error = parser_error"),
            CStmt::Return("c".into()),
        ]
    }

    fn pending_send_body(&self) -> Vec<CStmt> {
        let p = self.c_prefix();
        let port = self.prog.intrinsics.output_port.as_ref();
        let port = port.map(|e| self.expr(e)).unwrap_or_else(|| "0".into());
        let mut body = vec![
            line(format!("struct {p}_copies *c = {p}_e2e_pending_plan()")),
            CStmt::If {
                cond: format!("!c || {port} == {PSA_PORT_CPU:#x}U"),
                then: vec![CStmt::Return(
                    "-1 /* no earlier clones, or the packet goes to the host */".into(),
                )],
                other: vec![],
            },
        ];
        body.extend([
            line("u32 session_id = 0"),
            CStmt::Comment("the last session cloned to".into()),
            CStmt::For {
                head: format!("u32 k = 0; k < {}; k++", Resubmit::MAX_PASSES),
                body: vec![
                    line(format!("struct {p}_e2e_pass *pass = {p}_e2e_record(c, k)")),
                    CStmt::If {
                        cond: "!pass || pass->seq != c->seq".into(),
                        then: vec![line("break")],
                        other: vec![],
                    },
                    line("session_id = pass->session"),
                ],
            },
            CStmt::If {
                cond: "kept".into(),
                then: vec![line(format!("{p}_copies_add(c, {port}, 0, {EGRESSED})"))],
                other: vec![],
            },
            CStmt::Return(format!(
                "{p}_copies_send(ctx, c, {}ULL | session_id)",
                p4bpf_layout::SESSION_KEY
            )),
        ]);
        body
    }

    fn pass_of_body(&self) -> Vec<CStmt> {
        let p = self.c_prefix();
        vec![
            CStmt::For {
                head: format!("u32 k = 0; k < {}; k++", Resubmit::MAX_PASSES),
                body: vec![
                    line(format!("struct {p}_e2e_pass *pass = {p}_e2e_record(c, k)")),
                    CStmt::If {
                        cond: "!pass || pass->seq != c->seq".into(),
                        then: vec![CStmt::Return("0".into())],
                        other: vec![],
                    },
                    CStmt::If {
                        cond: "i >= pass->first && i < pass->end".into(),
                        then: vec![CStmt::Return("pass".into())],
                        other: vec![],
                    },
                ],
            },
            CStmt::Return("0".into()),
        ]
    }

    fn state_of_body(&self) -> Vec<CStmt> {
        let p = self.c_prefix();
        vec![
            CStmt::If {
                cond: "!st || !c".into(),
                then: vec![CStmt::Return("0".into())],
                other: vec![],
            },
            line(format!("struct {p}_e2e_pass *pass = {p}_e2e_pass_of(c, i)")),
            CStmt::If {
                cond: "pass".into(),
                then: vec![self.copy_state_line("st", "&pass->state")],
                other: vec![self.copy_state_line("st", "&c->state")],
            },
            CStmt::Return("0".into()),
        ]
    }

    fn restore_body(&self) -> Vec<CStmt> {
        let p = self.c_prefix();
        vec![
            CStmt::If {
                cond: "!c".into(),
                then: vec![CStmt::Return("-1".into())],
                other: vec![],
            },
            line(format!("struct {p}_e2e_pass *pass = {p}_e2e_pass_of(c, i)")),
            CStmt::If {
                cond: "!pass".into(),
                then: vec![CStmt::Return("0 /* of the frame sent */".into())],
                other: vec![],
            },
            line("u32 len = pass->len"),
            CStmt::If {
                cond: format!("len == 0 || len > {FRAME_MAX}"),
                then: vec![CStmt::Return("-1".into())],
                other: vec![],
            },
            line("int grown = (int)len - (int)(ctx->data_end - ctx->data)"),
            CStmt::Comment("room at the end, else at the start".into()),
            CStmt::If {
                cond:
                    "grown && bpf_xdp_adjust_tail(ctx, grown) && bpf_xdp_adjust_head(ctx, -grown)"
                        .into(),
                then: vec![CStmt::Return("-1".into())],
                other: vec![],
            },
            line(format!("u32 n = ((len - 1) & {}) + 1", FRAME_MAX - 1)),
            CStmt::Return("bpf_xdp_store_bytes(ctx, 0, pass->frame, n) ? -1 : 0".into()),
        ]
    }

    /// `NAME_e2e_later`: a global function, which the verifier checks
    /// once, not once per pass and per path of its caller (inlined, it took
    /// psa-e2e-cloning-basic past the verifier's 1M). It takes only what it
    /// uses: clang passes nothing in an unused argument's register.
    fn later_function(&self) -> String {
        let (p, state) = (self.c_prefix(), self.state_type());
        let sessions = super::replication::sessions_map(self.prog);
        let mut body = vec![
            line("u32 zero = 0"),
            line(format!(
                "u32 *pending = bpf_map_lookup_elem(&{}, &zero)",
                self.pending_map()
            )),
            line(format!(
                "struct {p}_group *session = bpf_map_lookup_elem(&{sessions}, &session_id)"
            )),
            line("u32 len = ctx->data_end - ctx->data"),
            CStmt::If {
                cond: format!("!st || !pending || !session || len == 0 || len > {FRAME_MAX}"),
                then: vec![CStmt::Return(
                    "0 /* no such session, or a frame too long to keep */".into(),
                )],
                other: vec![],
            },
            line(format!("struct {p}_copies *c = {p}_e2e_pending_plan()")),
            CStmt::If {
                cond: "!c".into(),
                then: vec![line(format!("c = {p}_copies_begin(st, 0, 0)"))],
                other: vec![],
            },
            CStmt::If {
                cond: "!c".into(),
                then: vec![CStmt::Return("0".into())],
                other: vec![],
            },
        ];
        body.extend(self.later_record());
        let mut out = format!(
            "/* Clone E2E in a pass that recirculates: the session's clones of the frame\n * the egress deparser wrote, with this pass's state, planned for the pass\n * that sends the packet. A global function: the verifier checks it once. */\n\
             __attribute__((noinline)) int {p}_e2e_later(struct xdp_md *ctx, struct {state} *st, u32 session_id)\n{{\n"
        );
        super::c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        out
    }

    /// In `NAME_e2e_later`, plan `c` at hand: the slot's first record no
    /// pass of this plan holds, filled with this pass's frame, state,
    /// session and clones (valid once its `seq` is the plan's).
    fn later_record(&self) -> Vec<CStmt> {
        let p = self.c_prefix();
        vec![
            line(format!("struct {p}_e2e_pass *pass = 0")),
            CStmt::For {
                head: format!("u32 k = 0; k < {}; k++", Resubmit::MAX_PASSES),
                body: vec![
                    line(format!("struct {p}_e2e_pass *at = {p}_e2e_record(c, k)")),
                    CStmt::If {
                        cond: "at && at->seq != c->seq".into(),
                        then: vec![line("pass = at"), line("break")],
                        other: vec![],
                    },
                ],
            },
            CStmt::If {
                cond: "!pass".into(),
                then: vec![CStmt::Return("0 /* every record holds a pass */".into())],
                other: vec![],
            },
            self.copy_state_line("&pass->state", "st"),
            line("pass->len = len"),
            CStmt::If {
                cond: format!(
                    "bpf_xdp_load_bytes(ctx, 0, pass->frame, ((len - 1) & {}) + 1)",
                    FRAME_MAX - 1
                ),
                then: vec![CStmt::Return("0".into())],
                other: vec![],
            },
            line("pass->session = session_id"),
            line("pass->first = c->count"),
            CStmt::Comment(
                "clang must not carry the count in a register through the loop: the\n\
                 verifier would follow each of its values"
                    .into(),
            ),
            line("asm volatile(\"\" ::: \"memory\")"),
            line(format!("{p}_copies_add_members(c, session, {CLONE_E2E})")),
            line("asm volatile(\"\" ::: \"memory\")"),
            line("pass->end = c->count"),
            line("pass->seq = c->seq"),
            line("*pending = c->seq"),
            CStmt::Return("0".into()),
        ]
    }
}

/// What the devmap program does for an earlier pass's clone.
impl Emitter<'_> {
    /// In `NAME_copy_state`, for an E2E clone: `st` made the state it
    /// starts from (its pass's, or the plan's).
    pub(super) fn xdp_e2e_clone_state_copy(&self) -> CStmt {
        if !self.xdp_e2e_passes() {
            return self.copy_state_line("st", "&c->state");
        }
        line(format!("{}_e2e_state_of(st, c, i)", self.c_prefix()))
    }

    /// In the devmap program, before an E2E clone's egress: the frame of
    /// the pass it is of.
    pub(super) fn xdp_e2e_restore_call(&self) -> Vec<CStmt> {
        if !self.xdp_e2e_passes() {
            return vec![];
        }
        vec![CStmt::If {
            cond: format!(
                "c->copy[i].kind == {CLONE_E2E} && {}_e2e_restore(ctx, c, i)",
                self.c_prefix()
            ),
            then: vec![CStmt::Return(
                "XDP_DROP /* its pass's frame cannot be put back */".into(),
            )],
            other: vec![],
        }]
    }
}
