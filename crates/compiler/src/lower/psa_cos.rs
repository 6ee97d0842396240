//! PSA's class of service. A program whose runnable code sets
//! `ostd.class_of_service`, or that clones (a clone's class of service is
//! its session's), gets the place in [`ir::Intrinsics::class_of_service`]:
//! at TC the emitter gives it to the packet as `skb->priority`, which
//! queueing disciplines (prio, mqprio) map to a band or queue, and a
//! clone's copy holds its session member's value there. Egress reads it
//! in `egress_istd.class_of_service` (`lower::psa_egress`).

use super::Lowerer;
use crate::arch::Place;
use p4bpf_front::source::Span;

impl Lowerer<'_, '_> {
    pub(super) fn psa_class_of_service(&mut self, span: Span) {
        let place = Place::field("ostd", "class_of_service");
        let i = &self.prog.intrinsics;
        let clones = i.clone_i2e.is_some() || i.clone_e2e.is_some();
        if !clones && !self.sets(&place, span) {
            return;
        }
        self.prog.intrinsics.class_of_service = self.arch_place(&place, span);
    }
}
