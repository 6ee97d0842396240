//! PSA's clone E2E at TC ([`crate::ir::CloneI2e`] in `clone_e2e`), on the
//! copies' machinery ([`super::replication`]). After the egress deparser
//! has written the packet, and whether or not egress drops it or sends
//! it to recirculation, one copy of the packet as written goes to each
//! member of the clone session egress chose, through
//! `bpf_clone_redirect` to the member's port, whose egress program runs
//! the egress pipeline on it: packet path CLONE_E2E, the member's port
//! and instance, a fresh egress state (`lower::psa_clone`).
//!
//! A copy's egress (a multicast replica, an I2E clone) clones E2E too.
//! It runs inside the `bpf_clone_redirect` that made it, on the state in
//! the one mailbox, which each of its own clones' egress overwrites: the
//! clones are made from a per-CPU scratch copy of the state
//! (`NAME_e2e_origin`), which is put back after them. An E2E clone's own
//! egress clones no further, which bounds the nesting to two egresses.

use super::c::{line, CStmt};
use super::replication::{COPY_MARK, MAX_REPLICAS};
use super::Emitter;
use crate::ir::{Arch, CloneI2e, Step};

impl Emitter<'_> {
    fn psa_clone_e2e(&self) -> Option<&CloneI2e> {
        let clone = self.prog.intrinsics.clone_e2e.as_ref()?;
        let at_tc = self.hook == p4bpf_layout::Hook::Tc;
        let copies = self.prog.intrinsics.replication.is_some();
        (self.prog.arch == Arch::Psa && at_tc && copies).then_some(clone)
    }

    /// In the egress function, after the egress deparser wrote the
    /// packet: the E2E clones egress asked for.
    pub(super) fn psa_clone_e2e_call(&self, deparser: usize) -> Vec<CStmt> {
        let Some(clone) = self.psa_clone_e2e() else {
            return vec![];
        };
        let last = self.prog.pipeline.iter().rev().find_map(|s| match s {
            Step::Deparse(i) => Some(*i),
            _ => None,
        });
        if !self.in_egress_function || last != Some(deparser) {
            return vec![];
        }
        vec![CStmt::If {
            cond: format!(
                "{} && {} != {}",
                self.expr(&clone.flag),
                self.expr(&clone.packet_path),
                clone.path
            ),
            then: vec![line(format!(
                "{}_clone_e2e(skb, st, {})",
                self.c_prefix(),
                self.expr(&clone.session)
            ))],
            other: vec![],
        }]
    }

    /// `NAME_clone_e2e`: one copy of the packet egress wrote per member of
    /// session `session_id`, the state (kept in the scratch first) copied
    /// into the mailbox with the member's port and instance and the path
    /// CLONE_E2E; the packet and its state stay as they were.
    pub(super) fn psa_clone_e2e_function(&self) -> String {
        let (Some(clone), Some(r)) = (
            self.psa_clone_e2e(),
            self.prog.intrinsics.replication.as_ref(),
        ) else {
            return String::new();
        };
        let in_copy = |place: String| match place.strip_prefix("st->") {
            Some(rest) => format!("copy->{rest}"),
            None => place,
        };
        let ports = super::port_map(self.prog).unwrap_or_default();
        let port = self
            .prog
            .intrinsics
            .output_port
            .as_ref()
            .map(|p| in_copy(self.lvalue(p)))
            .unwrap_or_default();
        let mut member = vec![
            line("u32 port = session->members[i].port"),
            line(format!(
                "u32 *ifindex = bpf_map_lookup_elem(&{ports}, &port)"
            )),
            CStmt::If {
                cond: "!ifindex".into(),
                then: vec![line("continue")],
                other: vec![],
            },
            line(format!(
                "struct {} *copy = &mailbox->state",
                self.state_type()
            )),
            self.copy_state_line("copy", "origin"),
            line(format!("{port} = port")),
            line(format!(
                "{} = session->members[i].rid",
                in_copy(self.lvalue(&r.replica_id))
            )),
            line(format!(
                "{} = {}",
                in_copy(self.lvalue(&clone.packet_path)),
                clone.path
            )),
        ];
        member.extend(self.clone_traits("copy"));
        member.extend([
            line("mailbox->armed = 1"),
            line(format!("skb->cb[0] = {COPY_MARK}")),
            line("bpf_clone_redirect(skb, *ifindex, 0)"),
            line("mailbox->armed = 0"),
        ]);
        let (state, origin) = (self.state_type(), self.e2e_origin());
        let mut body = self.copy_function_prologue(&["st"], "0");
        body.push(line("u32 zero = 0"));
        body.extend(self.session_and_mailbox(self.copy_function_give_up()));
        body.extend([
            line(format!(
                "struct {state} *origin = bpf_map_lookup_elem(&{origin}, &zero)"
            )),
            CStmt::If {
                cond: "!origin".into(),
                then: vec![self.copy_function_give_up()],
                other: vec![],
            },
            self.copy_state_line("origin", "st"),
            CStmt::For {
                head: format!("u32 i = 0; i < {MAX_REPLICAS} && i < session->count; i++"),
                body: member,
            },
            line("skb->cb[0] = 0"),
            // A copy's `st` is the mailbox's, which its clones' egress reused.
            self.copy_state_line("st", "origin"),
        ]);
        body.extend(self.copy_function_end());
        let mut out = format!(
            "/* The state E2E clones are made of (a copy's own is the mailbox's). */\n\
             struct {{\n    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);\n    __type(key, u32);\n    __type(value, struct {state});\n    __uint(max_entries, 1);\n}} {origin} SEC(\".maps\");\n\n"
        );
        out.push_str(&self.copy_function_head(
            "Clone E2E: one copy of the packet the egress deparser wrote per member of\n * session `session_id`, each to its port's egress program.",
            "void",
            &format!("{}_clone_e2e", self.c_prefix()),
            &format!("struct __sk_buff *skb, struct {state} *st, u32 session_id"),
        ));
        super::c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        out
    }

    fn e2e_origin(&self) -> String {
        format!("{}_e2e_origin", self.c_prefix())
    }
}
