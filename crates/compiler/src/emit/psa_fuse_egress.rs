//! The egress side of the fused unicast path ([`super::psa_fuse`]): the
//! egress function's inputs, extracts that take the ingress deparser's
//! next emitted header from the state, the write of those headers where
//! the parser needs bytes, and the egress deparser's share of the
//! emitted headers egress did not take.
//!
//! At run time `fuse_pending` holds the emits not taken yet (its lowest
//! bit is the next one), `fuse_taken` their bytes taken so far, and
//! `offset` where the packet's own bytes go on (`fuse_from`). On a copy
//! or after the write, `fuse_pending` is 0 and the function is the
//! unfused one. The verifier knows `fuse_pending` on each path, so it
//! walks only the branches a path can take.

use super::c::{line, CStmt};
use super::types::VALID;
use super::Emitter;
use crate::cstruct::c_ident;
use crate::ir::{Aggregate, Expr, Ty};

impl Emitter<'_> {
    /// The egress function's parameters after `ctx, st`.
    pub fn fuse_params(&self) -> &'static str {
        match self.fused_ingress {
            Some(_) => ", u64 fuse_emitted, u32 fuse_from",
            None => "",
        }
    }

    /// The egress function's first locals for the parser.
    pub fn fuse_locals(&self) -> Vec<CStmt> {
        if self.fused_ingress.is_none() {
            return vec![line("u32 offset = 0 /* bytes the egress parser parsed */")];
        }
        vec![
            line("u32 offset = fuse_from /* where the packet's own bytes go on */"),
            line("u64 fuse_pending = fuse_emitted /* ingress emits not taken yet */"),
            line("u32 fuse_taken = 0 /* their bytes taken */"),
        ]
    }

    /// Before a state that reads the packet otherwise than by extracts
    /// of fixed headers: the ingress headers written first.
    pub fn fuse_before_state(&self, state: &crate::ir::State) -> Vec<CStmt> {
        if self.fused_ingress.is_none() || !super::psa_fuse::state_needs_bytes(state) {
            return vec![];
        }
        vec![CStmt::If {
            cond: "fuse_pending".into(),
            then: self.materialize(),
            other: vec![],
        }]
    }

    /// Writes the ingress headers, then parses on in the packet's bytes
    /// from where the headers taken end.
    fn materialize(&self) -> Vec<CStmt> {
        let mut out = vec![
            CStmt::Comment("the packet's bytes are needed: write the ingress headers".into()),
            CStmt::If {
                cond: format!(
                    "{}_psa_fuse_write({}, st, fuse_emitted, fuse_from)",
                    self.c_prefix(),
                    self.target.context()
                ),
                then: vec![CStmt::Goto(super::DEPARSE_FAILED.into())],
                other: vec![],
            },
            line("offset = fuse_taken"),
            line("fuse_pending = 0"),
        ];
        let ctx = self.target.context();
        out.extend(
            [("pkt", "data"), ("pkt_end", "data_end")]
                .map(|(p, f)| line(format!("{p} = (u8 *)(long)p4bpf_fresh_u32({ctx}, {f})"))),
        );
        out
    }

    /// An extract (`real`, its unfused code) of `header`: taken from the
    /// next emitted ingress header when that one has the same layout;
    /// read from the packet when every emitted header is taken; else
    /// after the ingress headers are written.
    pub fn fused_extract(&self, header: &Expr, real: Vec<CStmt>) -> Vec<CStmt> {
        let Some(fusion) = &self.fused_ingress else {
            return real;
        };
        let Ty::Header(agg) = header.ty else {
            return real;
        };
        if !super::psa_fuse::fixed_place(header) {
            return real;
        }
        let mut chain = vec![
            CStmt::If {
                cond: "next_emit != 0".into(),
                then: self.materialize(),
                other: vec![],
            },
            CStmt::Block(real),
        ];
        for (i, emitted) in fusion.emits.iter().enumerate().rev() {
            let Some(copy) = self.copy_header(emitted, header, agg) else {
                continue;
            };
            chain = vec![CStmt::If {
                cond: format!("next_emit == 1ULL << {i}"),
                then: copy,
                other: chain,
            }];
        }
        let mut block = vec![line("u64 next_emit = fuse_pending & -fuse_pending")];
        block.extend(chain);
        vec![
            CStmt::Comment("fused: the next header ingress emitted, if it lines up".into()),
            CStmt::Block(block),
        ]
    }

    /// `to = from` for two headers of the same field types, as an
    /// extract of `to` would leave it, or `None` for other layouts.
    fn copy_header(&self, from: &Expr, to: &Expr, to_agg: crate::ir::AggId) -> Option<Vec<CStmt>> {
        let Ty::Header(from_agg) = from.ty else {
            return None;
        };
        let (a, b) = (self.prog.agg(from_agg)?, self.prog.agg(to_agg)?);
        if !same_layout(a, b) {
            return None;
        }
        let (src, dst) = (self.lvalue(from), self.lvalue(to));
        let in_map = self.state_in_map();
        let mut out = vec![];
        for (i, (f, t)) in a.fields.iter().zip(&b.fields).enumerate() {
            if in_map && !self.reads.contains(to_agg, i) {
                continue;
            }
            let (s, d) = (
                format!("{src}.{}", c_ident(&f.name)),
                format!("{dst}.{}", c_ident(&t.name)),
            );
            out.push(line(match f.ty.width() {
                Some(w) if w > 64 => format!("__builtin_memcpy(&{d}, &{s}, sizeof({d}))"),
                _ => format!("{d} = {s}"),
            }));
        }
        out.push(line(format!("{dst}.{VALID} = 1")));
        out.push(line("fuse_pending ^= next_emit"));
        out.push(line(format!("fuse_taken += {}", b.wire_bits / 8)));
        Some(out)
    }

    /// In a fused egress deparser, before its resize: the ingress headers
    /// egress did not take go after its own emits.
    pub fn fused_leftover_count(&self) -> Vec<CStmt> {
        let Some(fusion) = &self.fused_ingress else {
            return vec![];
        };
        fusion
            .emits
            .iter()
            .enumerate()
            .map(|(i, h)| CStmt::If {
                cond: format!("fuse_pending & (1ULL << {i})"),
                then: self.count_header(h).into_iter().collect(),
                other: vec![],
            })
            .collect()
    }

    /// In a fused egress deparser, after its own emits: the ingress
    /// headers egress did not take.
    pub fn fused_leftover_writes(&self) -> Vec<CStmt> {
        let Some(fusion) = &self.fused_ingress else {
            return vec![];
        };
        let emits: Vec<&Expr> = fusion.emits.iter().collect();
        let mut out = vec![CStmt::Comment(
            "the ingress headers egress did not parse, after its own".into(),
        )];
        out.extend(
            self.write_recorded(&emits, |i, _| Some(format!("fuse_pending & (1ULL << {i})"))),
        );
        out
    }
}

/// Whether the bytes of a header of type `a` parse as one of type `b`
/// into the same values: the same field types, in order.
fn same_layout(a: &Aggregate, b: &Aggregate) -> bool {
    a.varbit.is_none()
        && b.varbit.is_none()
        && a.wire_bits == b.wire_bits
        && a.fields.len() == b.fields.len()
        && a.fields.iter().zip(&b.fields).all(|(f, g)| f.ty == g.ty)
}
