//! PSA's clone I2E: a program whose runnable code sets `ostd.clone` gets
//! an [`ir::CloneI2e`] (the flag, the session id, where a copy finds its
//! packet path) and PSA's copies machinery ([`ir::Replication`]), which
//! the emitter turns into one copy per session member, made after the
//! ingress deparser's body. Cloning from egress (E2E) is refused.

use super::multicast::PSA_CLONE_I2E;
use super::runnable::{runnable_bodies, Sets};
use super::Lowerer;
use crate::arch::Place;
use crate::ir::{self, ExprKind};
use crate::midend::visit::walk_stmts;
use p4bpf_front::source::Span;

impl Lowerer<'_, '_> {
    /// Notes clone I2E when a control can set `ostd.clone`; refuses
    /// `egress_ostd.clone`.
    pub(super) fn psa_clone(&mut self, span: Span) {
        if self.sets(&Place::field("egress_ostd", "clone"), span) {
            self.diags.error(
                span,
                "PSA cloning from egress (`clone` in psa_egress_output_metadata_t, CLONE_E2E) is not supported yet: clone from ingress (`ostd.clone`)",
            );
        }
        if !self.sets(&Place::field("ostd", "clone"), span) {
            return;
        }
        let (Some(flag), Some(session), Some(packet_path)) = (
            self.arch_place(&Place::field("ostd", "clone"), span),
            self.arch_place(&Place::field("ostd", "clone_session_id"), span),
            self.arch_place(&Place::field("egress_istd", "packet_path"), span),
        ) else {
            return;
        };
        self.prog.intrinsics.clone_i2e = Some(ir::CloneI2e {
            flag,
            session,
            packet_path,
            path: PSA_CLONE_I2E,
            at: self.diags.unit.resolve(span),
            field_lists: None,
        });
        self.psa_copies(span);
    }

    /// Whether runnable code sets `place` to something but zero.
    pub(super) fn sets(&mut self, place: &Place, span: Span) -> bool {
        let Some(ExprKind::Field { agg, field, .. }) = self.arch_place(place, span).map(|e| e.kind)
        else {
            return false;
        };
        let mut finder = Sets {
            agg,
            watched: vec![(field, "set")],
            found: None,
        };
        for body in runnable_bodies(&self.prog) {
            walk_stmts(&mut finder, body);
        }
        finder.found.is_some()
    }
}
