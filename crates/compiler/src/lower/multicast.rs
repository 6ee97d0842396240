//! Multicast: a program whose runnable code sets v1model's
//! `standard_metadata.mcast_grp` or PSA's `ostd.multicast_group` gets an
//! [`ir::Replication`], which the emitter turns into one copy per group
//! member at the checkpoint between ingress and egress. Programs that
//! never set it pay nothing.

use super::runnable::{runnable_bodies, Sets};
use super::Lowerer;
use crate::arch::Place;
use crate::ir::{self, ExprKind};
use crate::midend::visit::walk_stmts;
use p4bpf_front::source::Span;

const STD: &str = "standard_metadata";
/// BMv2's `PKT_INSTANCE_TYPE_REPLICATION`.
const REPLICATION: u32 = 5;
/// PSA's `PSA_PacketPath_t.NORMAL_MULTICAST`.
const NORMAL_MULTICAST: u32 = 2;
/// PSA's `PSA_PacketPath_t.CLONE_I2E`.
pub(super) const PSA_CLONE_I2E: u32 = 3;

/// Where a program names its multicast: the group, and where a copy
/// finds its replica id and its instance type (or packet path).
struct Places {
    group: Place,
    replica_id: Place,
    instance_type: Place,
    replica_instance: u32,
}

const V1MODEL: Places = Places {
    group: Place::field(STD, "mcast_grp"),
    replica_id: Place::field(STD, "egress_rid"),
    instance_type: Place::field(STD, "instance_type"),
    replica_instance: REPLICATION,
};

const PSA: Places = Places {
    group: Place::field("ostd", "multicast_group"),
    replica_id: Place::field("egress_istd", "instance"),
    instance_type: Place::field("egress_istd", "packet_path"),
    replica_instance: NORMAL_MULTICAST,
};

impl Lowerer<'_, '_> {
    /// Notes multicast in the intrinsics when a control can set a group.
    pub(super) fn v1model_multicast(&mut self, span: Span) {
        self.multicast(&V1MODEL, span, false);
    }

    /// PSA's `ostd.multicast_group`: copies of the packet the ingress
    /// deparser wrote, each through the egress pipeline.
    pub(super) fn psa_multicast(&mut self, span: Span) {
        self.multicast(&PSA, span, false);
    }

    /// v1model's copies machinery for clones, whether or not the
    /// program sets a group too.
    pub(super) fn v1model_copies(&mut self, span: Span) {
        if self.prog.intrinsics.replication.is_none() {
            self.multicast(&V1MODEL, span, true);
        }
    }

    /// PSA's copies machinery for clones, whether or not the program
    /// sets a group too.
    pub(super) fn psa_copies(&mut self, span: Span) {
        if self.prog.intrinsics.replication.is_none() {
            self.multicast(&PSA, span, true);
        }
    }

    /// Notes `places`' multicast when runnable code sets the group, or
    /// `always`.
    fn multicast(&mut self, places: &Places, span: Span, always: bool) {
        let (Some(group), Some(replica_id), Some(instance_type)) = (
            self.arch_place(&places.group, span),
            self.arch_place(&places.replica_id, span),
            self.arch_place(&places.instance_type, span),
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
        if finder.found.is_none() && !always {
            return;
        }
        self.prog.intrinsics.replication = Some(ir::Replication {
            group,
            replica_id,
            instance_type,
            replica_instance: places.replica_instance,
            at: self.diags.unit.resolve(span),
            field: places.group.field.unwrap_or_default(),
        });
    }
}
