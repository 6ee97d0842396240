//! E2E clones at XDP (PSA's `egress_ostd.clone`, v1model's
//! `clone(CloneType.E2E, ..)`), on the copies of [`super::xdp_copies`].
//!
//! A devmap program cannot redirect, so only an egress that runs inside
//! the XDP program clones: the unicast packet's, which runs inline after
//! ingress. When it asks for a clone, the packet leaves through the
//! session's devmap as a plan of copies: one per session member, with
//! the path CLONE_E2E, and the packet itself (unless egress dropped it)
//! as a copy whose egress already ran (`P4BPF_EGRESSED`). The session's
//! devmap holds every port once besides its members, so the packet's own
//! port is there.
//!
//! - PSA: the clone is of what the egress deparser wrote, so the plan is
//!   made after it and the frame sent is that; a clone's egress parses it
//!   from byte 0, and the packet's own copy leaves as it is.
//! - v1model: the clone keeps the headers egress left (BMv2 copies the
//!   packet before the deparser), so, as at TC, the plan is made before
//!   the deparser and the frame sent is the packet as parsed; a clone's
//!   egress starts from the state the plan holds, reset as a clone's is,
//!   and the packet's own copy goes straight to the deparser.
//!
//! A PSA packet egress also recirculates is cloned on every pass:
//! [`super::xdp_e2e_passes`]. Not cloned at XDP: a copy's own egress (a
//! replica, an I2E clone or its original, as at TC for the first two),
//! and a packet egress hands to the host (it does not leave by a devmap).

use super::c::{line, CStmt};
use super::xdp_copies::{CLONE_E2E, EGRESSED};
use super::Emitter;
use crate::ir::{Arch, CloneI2e, Outcome, VerdictRule};

/// `PSA_PacketPath_t.NORMAL_UNICAST`: the one egress path that clones.
const NORMAL_UNICAST: u32 = 1;
/// psa.p4's `PSA_PORT_CPU`: the host, which a devmap does not reach.
pub(super) const PSA_PORT_CPU: u32 = 0xffff_fffd;
/// Where a v1model packet's own copy, its egress done, joins its devmap
/// program: the deparser.
const EGRESSED_LABEL: &str = "egressed";

impl Emitter<'_> {
    /// The E2E clone this program makes at XDP.
    pub(super) fn xdp_clone_e2e(&self) -> Option<&CloneI2e> {
        let clone = self.prog.intrinsics.clone_e2e.as_ref();
        clone.filter(|_| self.xdp_copies())
    }

    fn copy_running_map(&self) -> String {
        format!("{}_copy_running", self.c_prefix())
    }

    /// v1model, before the deparser: inline, the clone the packet's
    /// egress asked for; in the devmap program, where the packet's own
    /// copy joins.
    pub(super) fn xdp_v1model_clone_e2e_check(&self) -> Vec<CStmt> {
        let Some(clone) = self.xdp_clone_e2e().filter(|c| c.field_lists.is_some()) else {
            return vec![];
        };
        if self.on_copy.get() {
            return vec![CStmt::Label(EGRESSED_LABEL.into())];
        }
        self.clone_e2e_call(clone, "offset, parser_error")
    }

    /// PSA, in the egress function after the egress deparser wrote the
    /// packet: the clone a unicast packet's egress asked for, unless the
    /// egress runs on a copy in the devmap program.
    pub(super) fn xdp_psa_clone_e2e_call(&self, deparser: usize) -> Vec<CStmt> {
        let Some(clone) = self.xdp_clone_e2e().filter(|c| c.field_lists.is_none()) else {
            return vec![];
        };
        let last = self.prog.pipeline.iter().rev().find_map(|s| match s {
            crate::ir::Step::Deparse(i) => Some(*i),
            _ => None,
        });
        if !self.in_egress_function || last != Some(deparser) {
            return vec![];
        }
        let unicast = format!(
            "{} == {NORMAL_UNICAST} && !{}_on_copy()",
            self.expr(&clone.packet_path),
            self.c_prefix()
        );
        let mut call = self.clone_e2e_call(clone, "0, 0");
        if let Some(CStmt::If { cond, .. }) = call.first_mut() {
            *cond = format!("{cond} && {unicast}");
        }
        call.extend(self.xdp_e2e_pending_send_call(&self.packet_kept()));
        call
    }

    fn clone_e2e_call(&self, clone: &CloneI2e, at: &str) -> Vec<CStmt> {
        let p = self.c_prefix();
        vec![CStmt::If {
            cond: self.expr(&clone.flag),
            then: vec![
                line(format!("int cloned = {p}_clone_e2e(ctx, st, {at})")),
                CStmt::If {
                    cond: "cloned >= 0".into(),
                    then: vec![CStmt::Return("cloned".into())],
                    other: vec![],
                },
            ],
            other: vec![],
        }]
    }

    /// PSA, at the ingress checkpoint: what runs next is an egress in the
    /// XDP program, which may clone.
    pub(super) fn xdp_inline_egress_mark(&self) -> Vec<CStmt> {
        self.copy_running_mark("0")
    }

    /// In the devmap program, once the copy is found: PSA's egress runs on
    /// a copy (it makes no clone); the packet's own copy, its egress done,
    /// leaves (PSA) or goes to the deparser (v1model).
    pub(super) fn xdp_egressed_original(&self) -> Vec<CStmt> {
        if self.xdp_clone_e2e().is_none() {
            return vec![];
        }
        let mut out = self.copy_running_mark("1");
        let done = match self.prog.arch {
            Arch::Psa => {
                CStmt::Return("XDP_PASS /* the packet itself, as its egress wrote it */".into())
            }
            _ => line(format!("goto {EGRESSED_LABEL}")),
        };
        out.push(CStmt::If {
            cond: format!("c->copy[i].kind == {EGRESSED}"),
            then: vec![done],
            other: vec![],
        });
        out
    }

    fn copy_running_mark(&self, value: &str) -> Vec<CStmt> {
        if self.xdp_clone_e2e().is_none() || self.prog.arch != Arch::Psa {
            return vec![];
        }
        vec![
            line("u32 running_key = 0"),
            line(format!(
                "u32 *running = bpf_map_lookup_elem(&{}, &running_key)",
                self.copy_running_map()
            )),
            CStmt::If {
                cond: "running".into(),
                then: vec![line(format!("*running = {value}"))],
                other: vec![],
            },
        ]
    }

    /// In `NAME_copy_state`: an E2E clone's state, from the packet's as
    /// its egress left it.
    pub(super) fn xdp_clone_e2e_state(&self) -> Vec<CStmt> {
        let (Some(clone), Some(r)) = (self.xdp_clone_e2e(), &self.prog.intrinsics.replication)
        else {
            return vec![];
        };
        // As at TC: PSA's clone keeps its state but for its port, instance
        // and path; v1model's is reset as a clone's is.
        let mut then = match clone.field_lists {
            Some(_) => vec![line(format!(
                "{}_clone_e2e_state(st, &c->state, port)",
                self.c_prefix()
            ))],
            None => {
                let port = self.prog.intrinsics.output_port.as_ref();
                vec![
                    self.xdp_e2e_clone_state_copy(),
                    line(format!(
                        "{} = port",
                        port.map(|e| self.lvalue(e)).unwrap_or_default()
                    )),
                    line(format!(
                        "{} = {}",
                        self.lvalue(&clone.packet_path),
                        clone.path
                    )),
                    line(format!("{} = c->copy[i].rid", self.lvalue(&r.replica_id))),
                ]
            }
        };
        then.push(CStmt::Return(String::new()));
        vec![CStmt::If {
            cond: format!("c->copy[i].kind == {CLONE_E2E}"),
            then,
            other: vec![],
        }]
    }

    /// The map marking a devmap program's run (PSA), v1model's clone
    /// state function, and `NAME_clone_e2e`.
    pub(super) fn xdp_clone_e2e_definitions(&self) -> String {
        let Some(clone) = self.xdp_clone_e2e() else {
            return String::new();
        };
        let p = self.c_prefix();
        let mut out = String::new();
        if self.prog.arch == Arch::Psa {
            out.push_str(&format!(
                "/* [0] 1 while the devmap program runs a copy's egress, which cannot clone. */\n\
                 struct {{\n    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);\n    __type(key, u32);\n    __type(value, u32);\n    __uint(max_entries, 1);\n}} {} SEC(\".maps\");\n\n\
                 static __always_inline int {p}_on_copy(void)\n{{\n    u32 zero = 0;\n    u32 *running = bpf_map_lookup_elem(&{}, &zero);\n    return running && *running;\n}}\n\n",
                self.copy_running_map(),
                self.copy_running_map()
            ));
        }
        out.push_str(&self.e2e_clone_state_function());
        out.push_str(&self.xdp_e2e_passes_definitions());
        out.push_str(&self.clone_e2e_function(clone));
        out
    }

    /// `NAME_clone_e2e`: the session's clones and the packet itself, all
    /// through the session's devmap; -1 (no clone) when the session does
    /// not exist or the packet does not leave by a port.
    fn clone_e2e_function(&self, clone: &CloneI2e) -> String {
        let p = self.c_prefix();
        let port = self.prog.intrinsics.output_port.as_ref();
        let port = port.map(|e| self.expr(e)).unwrap_or_else(|| "0".into());
        let mut body = vec![line(format!(
            "u32 session_id = {}",
            self.expr(&clone.session)
        ))];
        body.extend(self.session_of_id());
        body.extend(self.xdp_e2e_later_call());
        let mut elsewhere = vec![];
        if let Some(again) = &self.prog.intrinsics.recirculate {
            elsewhere.push(self.expr(&again.flag));
        }
        if self.prog.arch == Arch::Psa {
            elsewhere.push(format!("{port} == {PSA_PORT_CPU:#x}U"));
        }
        if !elsewhere.is_empty() {
            body.push(CStmt::If {
                cond: elsewhere.join(" || "),
                then: vec![CStmt::Return(
                    "-1 /* it recirculates or goes to the host, not by a devmap */".into(),
                )],
                other: vec![],
            });
        }
        body.extend([
            line(format!(
                "struct {p}_copies *c = {}(st, offset, parser_error)",
                self.xdp_e2e_plan_begin()
            )),
            CStmt::If {
                cond: "!c".into(),
                then: vec![CStmt::Return("-1".into())],
                other: vec![],
            },
            self.clones_added(CLONE_E2E),
            CStmt::If {
                cond: self.packet_kept(),
                then: vec![line(format!("{p}_copies_add(c, {port}, 0, {EGRESSED})"))],
                other: vec![],
            },
            CStmt::Return(format!(
                "{p}_copies_send(ctx, c, {}ULL | session_id)",
                p4bpf_layout::SESSION_KEY
            )),
        ]);
        let mut out = format!(
            "/* Clone E2E: one copy per member of the session egress chose, and the packet\n * itself unless egress dropped it, through the session's devmap (-1: no clone). */\n\
             static __always_inline int {p}_clone_e2e(struct xdp_md *ctx, struct {} *st, u32 offset, u8 parser_error)\n{{\n",
            self.state_type()
        );
        super::c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        out
    }

    /// Whether the packet itself leaves, as its verdict says.
    fn packet_kept(&self) -> String {
        match &self.prog.intrinsics.verdict {
            VerdictRule::Port { place, drop } => format!("{} != {drop}", self.expr(place)),
            VerdictRule::Code { place, outcomes } => {
                let code = self.expr(place);
                let kept: Vec<String> = outcomes
                    .iter()
                    .filter(|(_, o)| *o != Outcome::Drop)
                    .map(|(c, _)| format!("{code} == {c}"))
                    .collect();
                if kept.is_empty() {
                    "0".into()
                } else {
                    kept.join(" || ")
                }
            }
            VerdictRule::Accept(flag) => self.expr(flag),
        }
    }
}
