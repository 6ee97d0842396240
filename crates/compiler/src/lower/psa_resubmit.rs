//! PSA's resubmission: a program whose runnable code sets
//! `ostd.resubmit` gets an [`ir::Resubmit`]: the flag, the resubmit
//! metadata the ingress deparser writes and the ingress parser reads
//! (kept across the pass), and the packet paths the next pass sees.

use super::Lowerer;
use crate::arch::Place;
use crate::ir;
use p4bpf_front::source::Span;

/// `PSA_PacketPath_t.RESUBMIT`.
const RESUBMIT: u32 = 5;

/// Where ingress sees its packet path.
const PACKET_PATHS: [Place; 2] = [
    Place::field("parser_istd", "packet_path"),
    Place::field("istd", "packet_path"),
];

impl Lowerer<'_, '_> {
    /// Notes resubmission when a control can set `ostd.resubmit`.
    pub(super) fn psa_resubmit(&mut self, span: Span) {
        let flag_place = Place::field("ostd", "resubmit");
        if !self.sets(&flag_place, span) {
            return;
        }
        let Some(flag) = self.arch_place(&flag_place, span) else {
            return;
        };
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
        });
    }
}
