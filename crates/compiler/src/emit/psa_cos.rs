//! PSA's class of service and clone truncation at TC
//! ([`crate::ir::Intrinsics::class_of_service`], the clone sessions'
//! traits). The packet's class of service becomes its `skb->priority` at
//! the checkpoint after ingress, before any copy or redirect: a copy made
//! by `bpf_clone_redirect` inherits it, and the queueing discipline of the
//! port it leaves by maps it to a band or queue. A clone takes its session
//! member's class of service into the copy's `ostd.class_of_service`
//! (which egress reads as `egress_istd.class_of_service`), and its length:
//! the copy's egress program cuts the copy to it before the egress parser
//! reads it, as PSA cuts a clone before egress. XDP has no skb: there the
//! class of service reaches egress only. v1model's `priority` becomes the
//! skb's priority the same way. A program that never sets a class of
//! service (one that only clones) leaves the priority the host gave the
//! packet, but for a clone whose session member has one.

use super::c::{line, CStmt};
use super::Emitter;
use crate::ir::Arch;
use p4bpf_layout::Hook;

impl Emitter<'_> {
    /// The place of the class of service (PSA's, v1model's `priority`), at
    /// TC, when the program sets it (or, PSA, clones).
    fn tc_class_of_service(&self) -> Option<String> {
        let place = self.prog.intrinsics.class_of_service.as_ref()?;
        (self.hook == Hook::Tc).then(|| self.lvalue(place))
    }

    /// At the checkpoint: the packet's class of service as its priority
    /// (before any copy, which inherits it), when the program sets one; a
    /// program that only clones leaves the priority the host gave.
    pub(super) fn skb_priority(&self) -> Vec<CStmt> {
        if !self.prog.intrinsics.sets_class_of_service {
            return vec![];
        }
        self.tc_class_of_service()
            .map(|cos| vec![line(format!("skb->priority = {cos}"))])
            .unwrap_or_default()
    }

    /// On a copy in its egress program: its class of service as its
    /// priority; when the program sets none, only a clone's session member
    /// gives one (not 0), else the copy keeps the packet's priority.
    fn copy_priority(&self) -> Vec<CStmt> {
        let Some(cos) = self.tc_class_of_service() else {
            return vec![];
        };
        let set = line(format!("skb->priority = {cos}"));
        if self.prog.intrinsics.sets_class_of_service {
            return vec![set];
        }
        vec![CStmt::If {
            cond: cos,
            then: vec![set],
            other: vec![],
        }]
    }

    /// Whether copies carry a length to cut them to: PSA's clones at TC,
    /// whose mailbox then holds `truncate`.
    pub(super) fn copies_truncate(&self) -> bool {
        let i = &self.prog.intrinsics;
        let clones = i.clone_i2e.is_some() || i.clone_e2e.is_some();
        self.prog.arch == Arch::Psa && self.hook == Hook::Tc && clones && i.replication.is_some()
    }

    /// For a copy to member `i` of `session`, whose state is `state` (a
    /// pointer): the member's class of service into the copy, and its
    /// length into the mailbox.
    pub(super) fn clone_traits(&self, state: &str) -> Vec<CStmt> {
        let mut out = vec![];
        if let Some(cos) = self.tc_class_of_service() {
            let cos = match cos.strip_prefix("st->") {
                Some(rest) => format!("{state}->{rest}"),
                None => cos,
            };
            out.push(line(format!("{cos} = session->traits[i].class_of_service")));
        }
        if self.copies_truncate() {
            out.push(line(
                "mailbox->truncate = session->traits[i].packet_length_bytes",
            ));
        }
        out
    }

    /// At the start of a PSA copy's egress program, its state in `st`: the
    /// copy cut to its clone session's length (a length the kernel
    /// refuses, below the Ethernet header, drops the copy; the control
    /// plane refuses to set one) and its class of service as its priority.
    pub(super) fn psa_copy_traits(&self) -> Vec<CStmt> {
        let mut out = vec![];
        if self.copies_truncate() {
            out.push(CStmt::If {
                cond: "mailbox->truncate && mailbox->truncate < skb->len && bpf_skb_change_tail(skb, mailbox->truncate, 0)".into(),
                then: vec![CStmt::Return("TC_ACT_SHOT /* the kernel would not cut it */".into())],
                other: vec![],
            });
        }
        out.extend(self.copy_priority());
        out
    }
}
