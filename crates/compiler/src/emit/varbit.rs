//! A header's trailing `varbit` field: `extract(h, bits)` checks the size
//! (whole bytes, at most the maximum) and copies that many bytes after the
//! fixed fields; emitting the header writes them back. At XDP the bytes
//! move one at a time in a loop bounded by the maximum, each access checked
//! against the packet's end, as the verifier needs; at TC one
//! `bpf_skb_load_bytes` / `bpf_skb_store_bytes` call moves them.

use super::c::{line, CStmt};
use super::types::VALID;
use super::Emitter;
use crate::cstruct::c_ident;
use crate::ir::{Aggregate, Expr, VarbitField};
use p4bpf_layout::Hook;

/// Keeps clang from testing a copy of `varbit_bytes` (libbpf's
/// `barrier_var`): the verifier must see the length it checked passed to
/// the helper, which refuses a length that may be zero.
const KEEP_CHECKED: &str = "asm volatile(\"\" : \"+r\"(varbit_bytes))";

/// The hidden member holding how many varbit bytes a header has.
pub const VARBIT_BYTES: &str = "p4bpf_varbit_bytes";

impl Emitter<'_> {
    fn error_code(&self, name: &str, fallback: usize) -> usize {
        self.prog
            .errors
            .iter()
            .position(|e| e == name)
            .unwrap_or(fallback)
    }

    /// After the fixed fields of `a` were read at `hdr_start`: the varbit
    /// bytes into `place`, then `offset` moved past them. A failure leaves
    /// the header invalid, as BMv2 does (the fixed part was read already).
    pub fn extract_varbit(&self, a: &Aggregate, place: &str, bits: &Expr) -> Vec<CStmt> {
        let Some(v) = &a.varbit else {
            return vec![];
        };
        let fixed = a.wire_bits / 8;
        let max = v.max_bits / 8;
        let invalid = self.error_code("ParserInvalidArgument", 6);
        let too_long = self.error_code("HeaderTooShort", 4);
        let short = self.error_code("PacketTooShort", 1);
        let fail = |code: usize, name: &str| {
            vec![
                line(format!("{place}.{VALID} = 0")),
                line(format!("parser_error = {code} /* {name} */")),
                CStmt::Goto("reject".into()),
            ]
        };
        let field = c_ident(&v.name);
        vec![CStmt::Block(vec![
            line(format!("u32 varbit_bits = (u32){}", self.expr(bits))),
            CStmt::If {
                cond: "varbit_bits % 8 != 0".into(),
                then: fail(invalid, "ParserInvalidArgument"),
                other: vec![],
            },
            CStmt::If {
                cond: format!("varbit_bits > {}", v.max_bits),
                then: fail(too_long, "HeaderTooShort"),
                other: vec![],
            },
            line("u64 varbit_bytes = varbit_bits / 8"),
            line(KEEP_CHECKED),
            CStmt::If {
                cond: format!("pkt + offset + {fixed} + varbit_bytes > pkt_end"),
                then: fail(short, "PacketTooShort"),
                other: vec![],
            },
            match self.hook {
                // One helper call: a byte loop multiplies the verifier's
                // paths by the possible sizes, on top of TC's resizing code.
                Hook::Tc => CStmt::If {
                    cond: "varbit_bytes > 0".into(),
                    then: vec![CStmt::If {
                        cond: format!("bpf_skb_load_bytes(skb, offset + {fixed}, {place}.{field}, varbit_bytes)"),
                        then: fail(short, "PacketTooShort"),
                        other: vec![],
                    }],
                    other: vec![],
                },
                Hook::Xdp => CStmt::For {
                    head: format!("u32 k = 0; k < {max}; k++"),
                    body: vec![
                        CStmt::If {
                            cond: format!(
                                "k >= varbit_bytes || pkt + offset + {fixed} + k + 1 > pkt_end"
                            ),
                            then: vec![line("break")],
                            other: vec![],
                        },
                        line(format!("{place}.{field}[k] = pkt[offset + {fixed} + k]")),
                    ],
                },
            },
            line(format!("{place}.{VARBIT_BYTES} = varbit_bytes")),
            line("offset += varbit_bytes"),
        ])]
    }

    /// The varbit bytes of `place` written after its fixed part at `out`.
    pub fn emit_varbit(&self, v: &VarbitField, fixed: u32, place: &str) -> Vec<CStmt> {
        let field = c_ident(&v.name);
        let max = v.max_bits / 8;
        // Bounded again so the verifier knows how far `out` can move.
        let mut out = vec![
            line(format!(
                "u64 varbit_bytes = {place}.{VARBIT_BYTES} < {max} ? {place}.{VARBIT_BYTES} : {max}"
            )),
            line(KEEP_CHECKED),
        ];
        match self.hook {
            Hook::Tc => out.extend([
                CStmt::If {
                    cond: "varbit_bytes > 0".into(),
                    then: vec![CStmt::If {
                        cond: format!("bpf_skb_store_bytes(skb, out + {fixed}, {place}.{field}, varbit_bytes, 0)"),
                        then: vec![CStmt::Goto("reject".into())],
                        other: vec![],
                    }],
                    other: vec![],
                },
                // The helper may move the packet.
                line("pkt = (u8 *)(long)skb->data"),
                line("pkt_end = (u8 *)(long)skb->data_end"),
            ]),
            Hook::Xdp => out.push(CStmt::For {
                head: format!("u32 k = 0; k < {max}; k++"),
                body: vec![
                    CStmt::If {
                        cond: format!(
                            "k >= varbit_bytes || pkt + out + {fixed} + k + 1 > pkt_end"
                        ),
                        then: vec![line("break")],
                        other: vec![],
                    },
                    line(format!("pkt[out + {fixed} + k] = {place}.{field}[k]")),
                ],
            }),
        }
        out.push(line("out += varbit_bytes"));
        out
    }
}
