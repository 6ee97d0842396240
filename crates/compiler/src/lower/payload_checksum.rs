//! v1model's `verify_checksum_with_payload` and
//! `update_checksum_with_payload`: the Internet checksum of the fields
//! followed by the packet's payload (TCP and UDP checksums).

use super::Lowerer;
use crate::ir::{Builtin, Expr, ExprKind, HashAlgorithm};
use p4bpf_front::ast;

impl<'a, 'u> Lowerer<'a, 'u> {
    /// `hash`, the fields' checksum, continued over the payload: csum16
    /// only (BMv2's others are not used over payloads), and the fields
    /// whole bytes, so the payload starts on a byte.
    pub(super) fn with_payload(&mut self, hash: Expr, e: &ast::Expr) -> Option<Expr> {
        let ExprKind::Builtin {
            func: Builtin::Hash(HashAlgorithm::Csum16),
            args,
        } = hash.kind
        else {
            self.diags.error(
                e.span,
                "the eBPF target computes a checksum over the payload only with csum16",
            );
            return None;
        };
        let bits: u32 = args.iter().filter_map(|f| f.ty.width()).sum();
        if !bits.is_multiple_of(8) {
            self.diags.error(
                e.span,
                format!("the fields before the payload are {bits} bits, not whole bytes"),
            );
            return None;
        }
        Some(Expr {
            kind: ExprKind::Builtin {
                func: Builtin::Csum16WithPayload,
                args,
            },
            ty: hash.ty,
        })
    }
}
