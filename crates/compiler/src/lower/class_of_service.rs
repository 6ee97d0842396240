//! The packet's class of service, where the program sets one: PSA's
//! `ostd.class_of_service` (or any PSA program that clones: a clone's
//! class of service is its session member's) and v1model's
//! `standard_metadata.priority`. It goes in
//! [`ir::Intrinsics::class_of_service`]: at TC the emitter gives it to the
//! packet as `skb->priority`, which queueing disciplines (prio, mqprio)
//! map to a band or queue; a PSA clone's copy holds its member's value
//! there (`emit::psa_cos`). A program that only clones leaves the host's
//! priority (`sets_class_of_service`). PSA's egress reads it in
//! `egress_istd.class_of_service` (`lower::psa_egress`).

use super::Lowerer;
use crate::arch::Place;
use p4bpf_front::source::Span;

impl Lowerer<'_, '_> {
    pub(super) fn psa_class_of_service(&mut self, span: Span) {
        let place = Place::field("ostd", "class_of_service");
        let i = &self.prog.intrinsics;
        let clones = i.clone_i2e.is_some() || i.clone_e2e.is_some();
        let sets = self.sets(&place, span);
        if !clones && !sets {
            return;
        }
        self.prog.intrinsics.class_of_service = self.arch_place(&place, span);
        self.prog.intrinsics.sets_class_of_service = sets;
    }

    /// v1model's `priority`, when ingress (`span`) or egress sets it.
    pub(super) fn v1model_priority(&mut self, span: Span) {
        let place = Place::field("standard_metadata", "priority");
        if self.sets(&place, span) {
            self.prog.intrinsics.class_of_service = self.arch_place(&place, span);
            self.prog.intrinsics.sets_class_of_service = true;
        }
    }
}
