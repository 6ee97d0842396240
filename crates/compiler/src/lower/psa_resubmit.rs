//! PSA's resubmission and recirculation: a program whose runnable code
//! sets `ostd.resubmit` gets an [`ir::Resubmit`]: the flag (psa.p4's
//! `psa_resubmit`: resubmit asked and not dropped), the resubmit
//! metadata the ingress deparser writes and the ingress parser reads
//! (kept across the pass), and the packet paths the next pass sees. A
//! program that names `PSA_PORT_RECIRCULATE` gets another, whose flag
//! is psa.p4's `psa_recirculate` (not dropped, and sent to that port) and
//! which keeps the recirculate metadata.

use super::runnable::runnable_bodies;
use super::Lowerer;
use crate::arch::Place;
use crate::ir::{self, BinOp, Expr, ExprKind};
use crate::midend::visit::{walk_stmts, Descend, Visitor};
use p4bpf_front::source::Span;

/// `PSA_PacketPath_t.RESUBMIT`.
const RESUBMIT: u32 = 5;
/// `PSA_PacketPath_t.RECIRCULATE`.
const RECIRCULATE: u32 = 6;
/// psa.p4's `PSA_PORT_RECIRCULATE`.
const RECIRCULATION_PORT: u32 = 0xffff_fffa;

/// Where ingress sees its packet path.
const PACKET_PATHS: [Place; 2] = [
    Place::field("parser_istd", "packet_path"),
    Place::field("istd", "packet_path"),
];

impl Lowerer<'_, '_> {
    /// Notes resubmission when a control can set `ostd.resubmit`. The
    /// flag is psa.p4's `psa_resubmit`: PSA 1.2 6.2 drops a packet whose
    /// `ostd.drop` is still true before it looks at `ostd.resubmit`.
    pub(super) fn psa_resubmit(&mut self, span: Span) {
        let flag_place = Place::field("ostd", "resubmit");
        if !self.sets(&flag_place, span) {
            return;
        }
        let (Some(resubmit), Some(drop)) = (
            self.arch_place(&flag_place, span),
            self.arch_place(&Place::field("ostd", "drop"), span),
        ) else {
            return;
        };
        let kept_going = Expr::binary(BinOp::Eq, drop.clone(), Expr::int(0u32, drop.ty));
        let flag = Expr::binary(BinOp::And, kept_going, resubmit);
        let kept = self.arch_place(&Place::var("resubmit_meta"), span);
        let packet_paths = PACKET_PATHS
            .iter()
            .filter_map(|p| self.arch_place(p, span))
            .collect();
        self.prog.intrinsics.resubmit = Some(ir::Resubmit {
            flag,
            kept,
            packet_paths,
            path: RESUBMIT,
            field_lists: None,
        });
    }

    /// Notes recirculation when runnable code names the recirculation
    /// port.
    pub(super) fn psa_recirculate(&mut self, span: Span) {
        let mut finder = Names(false);
        for body in runnable_bodies(&self.prog) {
            walk_stmts(&mut finder, body);
        }
        let (true, Some(port), Some(drop)) = (
            finder.0,
            self.arch_place(&Place::field("ostd", "egress_port"), span),
            self.arch_place(&Place::field("ostd", "drop"), span),
        ) else {
            return;
        };
        let to_port = Expr::binary(
            BinOp::Eq,
            port.clone(),
            Expr::int(RECIRCULATION_PORT, port.ty),
        );
        let kept_going = Expr::binary(BinOp::Eq, drop.clone(), Expr::int(0u32, drop.ty));
        let kept = self.arch_place(&Place::var("recirculate_meta"), span);
        let packet_paths = PACKET_PATHS
            .iter()
            .filter_map(|p| self.arch_place(p, span))
            .collect();
        self.prog.intrinsics.recirculate = Some(ir::Resubmit {
            flag: Expr::binary(BinOp::And, kept_going, to_port),
            kept,
            packet_paths,
            path: RECIRCULATE,
            field_lists: None,
        });
    }
}

/// Finds the recirculation port's number.
struct Names(bool);

impl Visitor for Names {
    fn expr(&mut self, e: &Expr) -> Descend {
        if matches!(&e.kind, ExprKind::Int(i) if *i == RECIRCULATION_PORT.into()) {
            self.0 = true;
        }
        Descend::Yes
    }
}
