//! Keys looked up straight from the packet: when an exact table's whole
//! key is one byte-aligned 16/32/64-bit header field that no control
//! assigns, of a header that is valid only when parsed, the map is probed with a pointer to that field's bytes in the
//! packet (network order, as the key layout stores it), as a hand-written
//! program would; the key struct on the stack stays only as the fallback
//! for an invalid header, which clang removes where validity is known.

use super::c::{line, CStmt};
use super::types::{OFFSET, VALID};
use super::Emitter;
use crate::ir::{ExprKind, Storage, Table, Ty};
use crate::map_layout::TableLayout;
use crate::midend::defuse::plain_path;
use p4bpf_layout::ByteOrder;

impl Emitter<'_> {
    /// Statements pointing `key_at` at the key's bytes in the packet when
    /// the header is valid, or `None` when the key cannot come from there.
    pub fn key_from_packet(&self, t: &Table, l: &TableLayout) -> Option<Vec<CStmt>> {
        // A header a fused egress took from the state has no bytes there.
        if t.storage != Storage::Hash || self.fused_ingress.is_some() {
            return None;
        }
        let [f] = l.key.fields.as_slice() else {
            return None;
        };
        let k = t.keys.get(*l.key_order.first()?)?;
        let ExprKind::Field { base, agg, field } = &k.expr.kind else {
            return None;
        };
        let header = self.prog.agg(*agg)?;
        let af = header.fields.get(*field)?;
        let packet_shaped = f.order == ByteOrder::Network
            && matches!(f.bit_width, 16 | 32 | 64)
            && l.key.size() == f.bit_width / 8
            && af.bit_offset.is_multiple_of(8);
        // Only a header whose validity says it was parsed has bytes there.
        if !packet_shaped
            || !matches!(base.ty, Ty::Header(a) if self.facts.stable(a))
            || !plain_path(base)
            || self.writes.fields.contains(&(*agg, *field))
        {
            return None;
        }
        let place = self.lvalue(base);
        let bytes = header.wire_bits / 8;
        Some(vec![CStmt::If {
            cond: format!("{place}.{VALID}"),
            then: vec![
                line(format!("u8 *key_hdr = pkt + ({place}.{OFFSET} & 0x3fff)")),
                CStmt::If {
                    cond: format!("key_hdr + {bytes} <= pkt_end"),
                    then: vec![line(format!("key_at = key_hdr + {}", af.bit_offset / 8))],
                    other: vec![],
                },
            ],
            other: vec![],
        }])
    }
}
