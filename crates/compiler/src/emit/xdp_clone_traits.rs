//! PSA clone sessions' per-member traits at XDP (class of service,
//! truncation), on the copies of [`super::xdp_copies`].
//!
//! The devmap broadcast copies the frame whole, and there is no skb to
//! carry a priority. So a clone's plan entry takes its member's traits
//! when the plan is made (`NAME_copies_add_clones`), and the devmap
//! program, before the copy's egress parser, gives the copy its member's
//! class of service (`ostd.class_of_service`, which egress reads as
//! `egress_istd.class_of_service`) and cuts it to its length with
//! `bpf_xdp_adjust_tail` (I2E: the packet as received, its headers put
//! back first; E2E: as the egress deparser wrote it), as TC cuts with
//! `bpf_skb_change_tail`. The class of service reaches egress only: no
//! XDP helper gives a frame a queue.

use super::c::{line, CStmt};
use super::replication::MAX_REPLICAS;
use super::xdp_copies::{CLONE, CLONE_E2E};
use super::Emitter;
use crate::ir::Arch;

impl Emitter<'_> {
    /// Whether PSA clones at XDP, whose plan entries then carry traits.
    fn xdp_clone_traits(&self) -> bool {
        let clones = self.psa_xdp_clone().is_some() || self.xdp_clone_e2e().is_some();
        self.prog.arch == Arch::Psa && clones
    }

    /// The plan entry's fields for its member's traits.
    pub(super) fn copy_trait_fields(&self) -> &'static str {
        if !self.xdp_clone_traits() {
            return "";
        }
        "\n    u32 class_of_service;\n    u32 truncate; /* 0: whole */"
    }

    /// In `NAME_copies_add`, entry `n`: no traits (a clone's are set after).
    pub(super) fn copy_traits_cleared(&self) -> Vec<CStmt> {
        if !self.xdp_clone_traits() {
            return vec![];
        }
        vec![
            line("c->copy[n].class_of_service = 0"),
            line("c->copy[n].truncate = 0"),
        ]
    }

    /// The statement adding a copy of `kind` per member of `session` to
    /// plan `c`: with the members' traits where the plan has them.
    pub(super) fn clones_added(&self, kind: &str) -> CStmt {
        let p = self.c_prefix();
        if !self.xdp_clone_traits() {
            return line(format!("{p}_copies_add_members(c, session, {kind})"));
        }
        line(format!(
            "{p}_copies_add_clones(c, (struct {p}_session *)session, {kind})"
        ))
    }

    /// `NAME_copies_add_clones`, when plan entries carry traits.
    pub(super) fn clones_add_function(&self) -> String {
        if !self.xdp_clone_traits() {
            return String::new();
        }
        let p = self.c_prefix();
        let member = vec![
            line("u32 n = c->count"),
            line(format!(
                "{p}_copies_add(c, session->members[i].port, session->members[i].rid, kind)"
            )),
            CStmt::If {
                cond: format!("n < {} && c->count == n + 1", super::xdp_copies::MAX_COPIES),
                then: vec![
                    line("c->copy[n].class_of_service = session->traits[i].class_of_service"),
                    line("c->copy[n].truncate = session->traits[i].packet_length_bytes"),
                ],
                other: vec![],
            },
        ];
        let mut body = self.copy_function_prologue(&["c", "session"], "0");
        body.push(CStmt::For {
            head: format!("u32 i = 0; i < {MAX_REPLICAS} && i < session->count; i++"),
            body: member,
        });
        body.extend(self.copy_function_end());
        let mut out = self.copy_function_head(
            "Adds a clone of `kind` per member of `session`, with the member's class of\n * service and length.",
            "void",
            &format!("{p}_copies_add_clones"),
            &format!("struct {p}_copies *c, struct {p}_session *session, u32 kind"),
        );
        super::c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        out
    }

    /// In the devmap program, on copy `i` of plan `c` (a clone's received
    /// headers back): a clone's class of service, and the cut.
    pub(super) fn xdp_clone_traits_applied(&self) -> Vec<CStmt> {
        let cos = self.prog.intrinsics.class_of_service.as_ref();
        let (true, Some(cos)) = (self.xdp_clone_traits(), cos) else {
            return vec![];
        };
        vec![
            CStmt::If {
                cond: format!("c->copy[i].kind == {CLONE} || c->copy[i].kind == {CLONE_E2E}"),
                then: vec![line(format!(
                    "{} = c->copy[i].class_of_service",
                    self.lvalue(cos)
                ))],
                other: vec![],
            },
            line("int cut = (int)c->copy[i].truncate - (int)(ctx->data_end - ctx->data)"),
            CStmt::If {
                cond: "c->copy[i].truncate && cut < 0 && bpf_xdp_adjust_tail(ctx, cut)".into(),
                then: vec![CStmt::Return(
                    "XDP_DROP /* the kernel would not cut it */".into(),
                )],
                other: vec![],
            },
        ]
    }
}
