//! v1model's multicast: a program whose runnable code sets
//! `standard_metadata.mcast_grp` gets an [`ir::Replication`], which the
//! emitter turns into one copy per group member at the checkpoint
//! between ingress and egress. Programs that never set it pay nothing.

use super::psa_outputs::{runnable_bodies, Sets};
use super::Lowerer;
use crate::arch::Place;
use crate::ir::{self, ExprKind};
use crate::midend::visit::walk_stmts;
use p4bpf_front::source::Span;

const STD: &str = "standard_metadata";
/// BMv2's `PKT_INSTANCE_TYPE_REPLICATION`.
const REPLICATION: u32 = 5;

impl Lowerer<'_, '_> {
    /// Notes multicast in the intrinsics when a control can set a group.
    pub(super) fn v1model_multicast(&mut self, span: Span) {
        let place = |l: &mut Self, field| l.arch_place(&Place::field(STD, field), span);
        let (Some(group), Some(replica_id), Some(instance_type)) = (
            place(self, "mcast_grp"),
            place(self, "egress_rid"),
            place(self, "instance_type"),
        ) else {
            return;
        };
        let ExprKind::Field { agg, field, .. } = group.kind else {
            return;
        };
        let mut finder = Sets {
            agg,
            watched: vec![(field, "multicast")],
            found: None,
        };
        for body in runnable_bodies(&self.prog) {
            walk_stmts(&mut finder, body);
        }
        if finder.found.is_none() {
            return;
        }
        self.prog.intrinsics.replication = Some(ir::Replication {
            group,
            replica_id,
            instance_type,
            replica_instance: REPLICATION,
            at: self.diags.unit.resolve(span),
        });
    }
}
