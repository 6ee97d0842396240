//! Multicast at TC (v1model's `mcast_grp`, PSA's `multicast_group`,
//! [`crate::ir::Replication`]).
//!
//! At the checkpoint after ingress, a non-zero group sends one copy of
//! the packet per member through `bpf_clone_redirect` to the member's
//! port, then drops the original. Egress runs on each copy in a second
//! program, `ENTRY_egress`, attached at TC egress of every port: the
//! kernel runs it inside `bpf_clone_redirect`, on this CPU, before the
//! call returns, so the state after ingress (with the copy's port,
//! replica id and instance type) is handed over in a per-CPU mailbox.
//! The mailbox is armed only around the call and the copy carries a mark
//! in `skb->cb`: any other packet leaving the port (the host's, or a
//! unicast the entry program redirected) finds one of them missing and
//! passes untouched. Egress reads the packet as ingress left it: the
//! header offsets of the state still hold, since only the deparser after
//! egress moves bytes. PSA's copies are of the packet its ingress
//! deparser wrote, and its egress parser parses them again: they run the
//! egress function the unicast path runs inline (`psa_egress`).

use super::c::{line, CStmt};
use super::{c_identifier, entry_name, Emitter, DEPARSE_FAILED};
use crate::ir::{Program, Replication, Step, VerdictRule};
use p4bpf_layout::Hook;

/// Members one group can hold.
pub const MAX_REPLICAS: u32 = 64;
/// Groups one program can hold.
pub(super) const MAX_GROUPS: u32 = 4096;
/// What a copy carries in `skb->cb[0]` ("p4bp").
pub(super) const COPY_MARK: &str = "0x70346270";

/// The control plane's view of multicast, for programs that use it at TC.
pub fn replication_description(prog: &Program, hook: Hook) -> Option<p4bpf_layout::Replication> {
    prog.intrinsics.replication.as_ref()?;
    Some(p4bpf_layout::Replication {
        groups_map: groups_map(prog),
        max_replicas: MAX_REPLICAS,
        egress_entry: egress_entry_name(prog, hook),
        clone_sessions_map: prog
            .intrinsics
            .clone_i2e
            .as_ref()
            .or(prog.intrinsics.clone_e2e.as_ref())
            .map(|_| sessions_map(prog)),
        copy_ports_map: (hook == Hook::Xdp).then(|| super::xdp_copies::copy_ports_map(prog)),
    })
}

pub(super) fn sessions_map(prog: &Program) -> String {
    format!("{}_clone_sessions", c_identifier(&prog.name))
}

fn groups_map(prog: &Program) -> String {
    format!("{}_mcast_groups", c_identifier(&prog.name))
}

/// The program run on each copy: at TC egress, or as the XDP devmap's.
pub fn egress_entry_name(prog: &Program, hook: Hook) -> String {
    format!("{}_egress", entry_name(prog, hook))
}

impl Emitter<'_> {
    fn replication(&self) -> Option<&Replication> {
        let r = self.prog.intrinsics.replication.as_ref()?;
        (self.hook == Hook::Tc).then_some(r)
    }

    pub(super) fn mailbox(&self) -> String {
        format!("{}_replica", self.c_prefix())
    }

    /// The place of the architecture's output port.
    fn output_port_place(&self) -> String {
        let port = self.prog.intrinsics.output_port.as_ref();
        port.map(|e| self.lvalue(e)).unwrap_or_default()
    }

    /// The loop body that sends one copy to member `i` of `list` (a group
    /// or a clone session): a member whose port is unknown is skipped; the
    /// copy gets its port and `metadata`, and the egress program finds the
    /// state (and `handover`) in the mailbox, armed only for the clone.
    /// The clone session `session_id` names and the mailbox that carries a
    /// copy's state; the clone function returns (`give_up`) when either is
    /// missing.
    pub(super) fn session_and_mailbox(&self, give_up: CStmt) -> Vec<CStmt> {
        let p = self.c_prefix();
        let (sessions, mailbox) = (sessions_map(self.prog), self.mailbox());
        vec![
            line(format!(
                "struct {p}_session *session = bpf_map_lookup_elem(&{sessions}, &session_id)"
            )),
            line(format!(
                "struct {mailbox} *mailbox = bpf_map_lookup_elem(&{mailbox}, &zero)"
            )),
            CStmt::If {
                cond: "!session || !mailbox".into(),
                then: vec![give_up],
                other: vec![],
            },
        ]
    }

    fn member_copy(&self, list: &str, metadata: Vec<CStmt>, handover: &[&str]) -> Vec<CStmt> {
        let ports = super::port_map(self.prog).unwrap_or_default();
        let mut copy = vec![
            line(format!("u32 port = {list}->members[i].port")),
            line(format!(
                "u32 *ifindex = bpf_map_lookup_elem(&{ports}, &port)"
            )),
            CStmt::If {
                cond: "!ifindex".into(),
                then: vec![line("continue")],
                other: vec![],
            },
            line(format!("{} = port", self.output_port_place())),
        ];
        copy.extend(metadata);
        copy.push(self.copy_state_line("&mailbox->state", "st"));
        copy.extend(handover.iter().map(|h| line(*h)));
        copy.extend([
            line("mailbox->armed = 1"),
            line(format!("skb->cb[0] = {COPY_MARK}")),
            line("bpf_clone_redirect(skb, *ifindex, 0)"),
            line("mailbox->armed = 0"),
        ]);
        copy
    }

    /// The groups map, the mailbox and the function making the copies.
    pub fn replication_definitions(&self) -> String {
        if self.xdp_copies() {
            return self.xdp_copy_definitions();
        }
        let Some(r) = self.replication() else {
            return String::new();
        };
        let p = self.c_prefix();
        let (groups, mailbox, state) = (groups_map(self.prog), self.mailbox(), self.state_type());
        // Whether a copy is an I2E clone its egress program parses again.
        let reparse = if self.reparses_clones() {
            "\n    u8 reparse;"
        } else {
            ""
        };
        // The length a clone is cut to (0: whole), from its session.
        let truncate = if self.copies_truncate() {
            "\n    u32 truncate;"
        } else {
            ""
        };
        let mut out = format!(
            "/* Multicast groups (`p4bpf mcast`): group -> its members' ports and replica ids. */\n\
             struct {p}_member {{\n    u32 port;\n    u32 rid;\n}};\n\
             struct {p}_group {{\n    u32 count;\n    struct {p}_member members[{MAX_REPLICAS}];\n}};\n\
             struct {{\n    __uint(type, BPF_MAP_TYPE_HASH);\n    __type(key, u32);\n    __type(value, struct {p}_group);\n    __uint(max_entries, {MAX_GROUPS});\n}} {groups} SEC(\".maps\");\n\n\
             /* A copy's state, from the entry program to the egress program\n * that runs inside bpf_clone_redirect on this CPU. */\n\
             struct {mailbox} {{\n    struct {state} state;\n    u32 offset;\n    u8 parser_error;\n    u8 armed;{reparse}{truncate}\n}};\n\
             struct {{\n    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);\n    __type(key, u32);\n    __type(value, struct {mailbox});\n    __uint(max_entries, 1);\n}} {mailbox} SEC(\".maps\");\n\n"
        );
        let mut handover = vec![
            "mailbox->offset = offset",
            "mailbox->parser_error = parser_error",
        ];
        if self.reparses_clones() {
            handover.push("mailbox->reparse = 0");
        }
        if self.copies_truncate() {
            handover.push("mailbox->truncate = 0");
        }
        let copy = self.member_copy(
            "group",
            vec![
                line(format!(
                    "{} = group->members[i].rid",
                    self.lvalue(&r.replica_id)
                )),
                line(format!(
                    "{} = {}",
                    self.lvalue(&r.instance_type),
                    r.replica_instance
                )),
            ],
            &handover,
        );
        let mut body = self.copy_function_prologue(&["st"], "TC_ACT_SHOT");
        body.extend([
            line("u32 zero = 0"),
            line(format!(
                "struct {p}_group *group = bpf_map_lookup_elem(&{groups}, &group_id)"
            )),
            line(format!(
                "struct {mailbox} *mailbox = bpf_map_lookup_elem(&{mailbox}, &zero)"
            )),
            CStmt::If {
                cond: "!group || !mailbox".into(),
                then: vec![CStmt::Return("TC_ACT_SHOT".into())],
                other: vec![],
            },
            CStmt::For {
                head: format!("u32 i = 0; i < {MAX_REPLICAS} && i < group->count; i++"),
                body: copy,
            },
            line("skb->cb[0] = 0"),
            CStmt::Return(
                "TC_ACT_SHOT /* the copies went out; the original goes nowhere */".into(),
            ),
        ]);
        out.push_str(&self.clone_definitions());
        out.push_str(&self.copy_function_head(
            "One copy per member of group `group_id`, each to its port's egress program.",
            "int",
            &format!("{p}_multicast"),
            &format!("struct __sk_buff *skb, struct {state} *st, u32 group_id, u32 offset, u8 parser_error"),
        ));
        super::c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        out
    }

    /// At the checkpoint: hand a packet with a group to the copies.
    pub fn multicast_check(&self) -> Vec<CStmt> {
        if let (Some(r), true) = (&self.prog.intrinsics.replication, self.xdp_copies()) {
            return self.xdp_multicast_check(self.expr(&r.group));
        }
        let Some(r) = self.replication() else {
            return vec![];
        };
        let group = self.expr(&r.group);
        vec![CStmt::If {
            cond: format!("{group} != 0"),
            then: vec![CStmt::Return(format!(
                "{}_multicast(skb, st, {group}, offset, parser_error)",
                self.c_prefix()
            ))],
            other: vec![],
        }]
    }

    /// `ENTRY_egress`: the steps after the checkpoint, on one copy.
    pub fn egress_entry_function(&self) -> String {
        if self.replication().is_none() && !self.xdp_copies() {
            return String::new();
        }
        let Some(first) = self
            .prog
            .pipeline
            .iter()
            .position(|s| *s == Step::Checkpoint)
        else {
            return String::new();
        };
        let mut body = match self.hook {
            Hook::Tc => self.mailbox_prologue(),
            Hook::Xdp => self.xdp_egress_prologue(),
        };
        if let Some(steps) = self.psa_egress_on_copy() {
            body.extend(self.trace_returns(steps));
            return self.egress_entry_text(body);
        }
        let mut steps = vec![];
        self.on_copy.set(true);
        for step in self.prog.pipeline.iter().skip(first + 1) {
            steps.extend(self.step_part(*step, 0, None, None));
        }
        self.on_copy.set(false);
        steps.extend(self.truncation());
        let (pass, drop) = (self.target.pass(), self.target.drop());
        if let VerdictRule::Port { place, drop: port } = &self.prog.intrinsics.verdict {
            steps.push(CStmt::If {
                cond: format!("{} == {port}", self.expr(place)),
                then: vec![CStmt::Return(drop.into())],
                other: vec![],
            });
        }
        steps.extend(self.copy_mtu_drop(None));
        steps.push(CStmt::Return(format!(
            "{pass} /* out of the port the copy was sent to */"
        )));
        if self.prog.deparser().is_some() {
            steps.push(CStmt::Label(DEPARSE_FAILED.into()));
            steps.push(CStmt::Return(drop.into()));
        }
        body.extend(self.trace_returns(steps));
        self.egress_entry_text(body)
    }

    /// The start of `ENTRY_egress` at TC: the copy's state from the
    /// mailbox, or the packet is none of ours.
    fn mailbox_prologue(&self) -> Vec<CStmt> {
        let mailbox = self.mailbox();
        let mut body = vec![
            line("u32 zero = 0"),
            line(format!(
                "struct {mailbox} *mailbox = bpf_map_lookup_elem(&{mailbox}, &zero)"
            )),
            CStmt::If {
                cond: format!("!mailbox || !mailbox->armed || skb->cb[0] != {COPY_MARK}"),
                then: vec![CStmt::Return(
                    "TC_ACT_OK /* not a copy: the host's traffic, or a unicast */".into(),
                )],
                other: vec![],
            },
            line("mailbox->armed = 0"),
            line("skb->cb[0] = 0"),
        ];
        let state = line(format!(
            "struct {} *st = &mailbox->state",
            self.state_type()
        ));
        if self.prog.arch == crate::ir::Arch::Psa {
            body.push(state);
            body.extend(self.psa_copy_traits());
            return body;
        }
        body.extend([
            line("u8 *pkt = (u8 *)(long)skb->data"),
            line("u8 *pkt_end = (u8 *)(long)skb->data_end"),
            state,
            line("u32 offset = mailbox->offset"),
            line("u8 parser_error = mailbox->parser_error"),
            line("(void)parser_error"),
        ]);
        body.extend(self.reparse_on_copy("mailbox->reparse"));
        body
    }

    fn egress_entry_text(&self, body: Vec<CStmt>) -> String {
        let (section, where_) = match self.hook {
            Hook::Tc => ("tc", "multicast copy, attached at TC egress of every port"),
            Hook::Xdp => (
                "xdp/devmap",
                "copy, the program of every entry of the copies' devmaps",
            ),
        };
        let mut out = format!(
            "/* Egress of {} on each {where_}. */\nSEC(\"{section}\")\nint {}({})\n{{\n",
            self.prog.name,
            egress_entry_name(self.prog, self.hook),
            self.target.context_param()
        );
        super::c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        out
    }

    /// PSA's clone sessions map and `NAME_clone_i2e`, which sends one
    /// copy per member of the session ingress chose to the member's port's
    /// egress program, and leaves the packet and its state as they were;
    /// `NAME_clone_e2e` too, for a program that clones from egress.
    fn clone_definitions(&self) -> String {
        if self.prog.arch == crate::ir::Arch::V1Model {
            return self.v1model_clone_definitions();
        }
        let e2e = self.psa_clone_e2e_function();
        let (Some(clone), Some(r)) = (&self.prog.intrinsics.clone_i2e, self.replication()) else {
            if e2e.is_empty() {
                return e2e;
            }
            return self.sessions_map_definition() + &e2e;
        };
        let p = self.c_prefix();
        let port = self.output_port_place();
        let (instance, path) = (self.lvalue(&r.replica_id), self.lvalue(&clone.packet_path));
        let mut metadata = vec![
            line(format!("{instance} = session->members[i].rid")),
            line(format!("{path} = {}", clone.path)),
        ];
        metadata.extend(self.clone_traits("st"));
        let copy = self.member_copy("session", metadata, &[]);
        // What the copies change in `st`, put back after them.
        let mut kept = vec![("port", port), ("instance", instance), ("path", path)];
        if let Some(cos) = self.prog.intrinsics.class_of_service.as_ref() {
            kept.push(("cos", self.lvalue(cos)));
        }
        let mut body = self.copy_function_prologue(&["st"], "0");
        body.push(line("u32 zero = 0"));
        body.extend(self.session_and_mailbox(self.copy_function_give_up()));
        body.extend(
            kept.iter()
                .map(|(name, place)| line(format!("u32 kept_{name} = {place}"))),
        );
        body.extend([
            CStmt::For {
                head: format!("u32 i = 0; i < {MAX_REPLICAS} && i < session->count; i++"),
                body: copy,
            },
            line("skb->cb[0] = 0"),
        ]);
        body.extend(
            kept.iter()
                .map(|(name, place)| line(format!("{place} = kept_{name}"))),
        );
        body.extend(self.copy_function_end());
        let mut out = self.sessions_map_definition();
        out.push_str(&self.copy_function_head(
            "Clone I2E: one copy of the packet as ingress received it per member of\n * session `session_id`, each to its port's egress program.",
            "void",
            &format!("{p}_clone_i2e"),
            &format!("struct __sk_buff *skb, struct {} *st, u32 session_id", self.state_type()),
        ));
        super::c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        out.push_str(&e2e);
        out
    }

    /// After the ingress deparser's body, before it writes the packet:
    /// the clones ingress asked for.
    pub fn clone_i2e_call(&self, deparser: usize) -> Vec<CStmt> {
        if self.hook == Hook::Xdp {
            return self.psa_xdp_clone_call(deparser);
        }
        let (Some(clone), Some(_)) = (&self.prog.intrinsics.clone_i2e, self.replication()) else {
            return vec![];
        };
        // The ingress deparser is the one before the checkpoint (the
        // egress function's program has none).
        let at = |step: Step| self.prog.pipeline.iter().position(|s| *s == step);
        let before = at(Step::Deparse(deparser)).zip(at(Step::Checkpoint));
        if before.is_none_or(|(deparse, checkpoint)| deparse >= checkpoint) {
            return vec![];
        }
        vec![CStmt::If {
            cond: self.expr(&clone.flag),
            then: vec![line(format!(
                "{}_clone_i2e(skb, st, {})",
                self.c_prefix(),
                self.expr(&clone.session)
            ))],
            other: vec![],
        }]
    }
}
