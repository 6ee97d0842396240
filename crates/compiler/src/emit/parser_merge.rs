//! Parser paths merged for the verifier at `accept`.
//!
//! The verifier walks what follows the parser once for each state the
//! parser's paths reach `accept` in. Paths that leave a header at
//! different offsets, or prove different packet lengths, reach it in
//! different states, so every table after the parser is verified once per
//! path (three tables behind no VLAN tag, at most one or at most two:
//! 399, 766, 1134 verified instructions; merged: 399, 334, 332). The
//! mid-end's [`Placement`] says what differs; here a moving header's
//! offset is stored through [`OPAQUE_HELPER`] (a bounded unknown to the
//! verifier, the same number to the CPU), and the packet pointers are read
//! again at `accept`, proving nothing yet. Every packet access after the
//! parser checks its bounds anyway. Only where enough is saved: see
//! [`MERGE_FROM_TABLE_WALKS`].
//!
//! [`Placement`]: crate::midend::placement::Placement

use super::c::{line, CStmt};
use super::helpers::Helper;
use super::Emitter;
use crate::ir::Expr;
use crate::midend::correspond::HeaderRef;

/// `p4bpf_opaque_u16(v)` is `v`; the verifier, which tracks values through
/// registers and aligned stack slots, loses it in a store and load at a
/// misaligned half of a slot, and keeps only its 16-bit bound.
pub const OPAQUE_HELPER: &str =
    "/* `v`, which the verifier no longer knows beyond its 16 bits (it does
 * not follow a value through a misaligned half of a stack slot): parser
 * paths that leave a header at different offsets then meet in one state. */
static __always_inline u16 p4bpf_opaque_u16(u16 v)
{
#ifdef __bpf__
    u32 slot[2];
    asm(\"*(u16 *)(%1 + 2) = %0\\n\\t%0 = *(u16 *)(%1 + 2)\" : \"+r\"(v) : \"r\"(slot));
#endif
    return v;
}
";

/// Walks of the code after the parser saved, counted in tables (each a
/// lookup and its actions), from which hiding placements pays: it costs
/// every packet access after the parser a bounds check the verifier can
/// no longer settle (bench's one-table programs over an optional VLAN tag:
/// 110 -> 126 verified instructions; three tables behind up to two tags:
/// 1134 -> 332).
const MERGE_FROM_TABLE_WALKS: usize = 2;

impl Emitter<'_> {
    /// Whether parser paths are merged at `accept`.
    fn merges_parse_paths(&self) -> bool {
        let p = &self.placement;
        !p.moving.is_empty() && p.extra_walks * p.applies >= MERGE_FROM_TABLE_WALKS
    }

    /// The offset an extract of `header` records, as C: `offset`, hidden
    /// from the verifier when parser paths put the header at different
    /// offsets.
    pub fn recorded_offset(&self, header: &Expr) -> String {
        let moving = HeaderRef::of(header).is_some_and(|h| self.placement.moving.contains(&h));
        if !moving || !self.merges_parse_paths() {
            return "offset".into();
        }
        self.use_helper(Helper::OpaqueU16);
        "p4bpf_opaque_u16(offset)".into()
    }

    /// Code right after the first parser's `accept`: the packet pointers
    /// read again when paths differ, so what they proved is forgotten.
    pub fn merge_parse_paths(&self, parser: usize) -> Vec<CStmt> {
        if parser != 0 || !self.merges_parse_paths() {
            return vec![];
        }
        let mut out = vec![
            CStmt::Comment(
                "parser paths end at different places: the packet pointers again, so the verifier walks what follows once"
                    .into(),
            ),
            // Clang then reads them anew instead of reusing the entry's
            // loads; not volatile, so they go when nothing uses them.
            line(format!("asm(\"\" : \"+r\"({}))", self.target.context())),
        ];
        out.extend(self.target.reload_pointers().map(line));
        out
    }
}
