//! PNA's `Checksum<W>(algorithm)`: a CRC of everything `update`d since the
//! last `clear()` (or since its block started), kept per packet in a
//! variable of the instance. The variable holds the finished CRC of the
//! data so far, which is what `get()` returns: CRC-16/ARC has no final
//! xor, and CRC-32's final xor undone is the register to continue from
//! (`emit::crc_continue`), so 0 is the CRC of no data for both.

use super::{Binding, Lowerer};
use crate::ir::{Builtin, Expr, ExprKind, HashAlgorithm, Stmt, Ty, VarId, VarStorage};
use p4bpf_front::ast;
use p4bpf_front::check::Value;

impl<'a, 'u> Lowerer<'a, 'u> {
    /// `Checksum<W>(algorithm) name;`: cleared each time its block starts.
    pub(super) fn crc_checksum_instance(
        &mut self,
        name: &ast::Ident,
        args: &[ast::Argument],
        decl: &ast::Decl,
    ) {
        let algorithm = match args {
            [algo] => match self.env.value(&algo.value) {
                Some(Value::Member { member, .. }) => match member.as_str() {
                    "CRC16" | "CRC16_CUSTOM" => Some(HashAlgorithm::Crc16),
                    "CRC32" | "CRC32_CUSTOM" | "TARGET_DEFAULT" => Some(HashAlgorithm::Crc32),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        };
        let Some(algorithm) = algorithm else {
            self.diags.error(
                decl.span,
                "`Checksum` takes CRC16 or CRC32 (their _CUSTOM with the standard parameters, or TARGET_DEFAULT: CRC32)",
            );
            return;
        };
        let width = match algorithm {
            HashAlgorithm::Crc16 => 16,
            _ => 32,
        };
        let state = self.new_var(self.dotted(&name.name), Ty::bits(width), VarStorage::State);
        self.local_inits.push(Stmt::Assign {
            lhs: var(state, width),
            rhs: Expr::int(0u32, Ty::bits(width)),
        });
        self.bind(&name.name, Binding::CrcChecksum { state, algorithm });
    }

    /// `clear()`, `update(data)` and `get()` on the instance whose CRC so
    /// far is in `state`.
    pub(super) fn crc_checksum_method(
        &mut self,
        state: VarId,
        algorithm: HashAlgorithm,
        method: &str,
        args: &'a [ast::Argument],
        call: &ast::Expr,
    ) -> Option<Expr> {
        let width = self.prog.var(state)?.ty.width().unwrap_or(32);
        let now = var(state, width);
        let next = match (method, args) {
            ("get", []) => return Some(now),
            ("clear", []) => Expr::int(0u32, Ty::bits(width)),
            ("update", [data]) => {
                let mut fields = vec![now.clone()];
                fields.extend(self.fields_of(&data.value)?);
                Expr::cast(
                    Expr {
                        kind: ExprKind::Builtin {
                            func: Builtin::CrcContinue(algorithm),
                            args: fields,
                        },
                        ty: Ty::bits(64),
                    },
                    Ty::bits(width),
                )
            }
            _ => {
                self.diags.error(
                    call.span,
                    format!(
                        "`Checksum` has no method `{method}` taking {} arguments: it has clear(), update(data) and get()",
                        args.len()
                    ),
                );
                return None;
            }
        };
        self.pending.push(Stmt::Assign {
            lhs: now,
            rhs: next,
        });
        Some(Expr {
            kind: ExprKind::Bool(true),
            ty: Ty::Void,
        })
    }
}

fn var(id: VarId, width: u32) -> Expr {
    Expr {
        kind: ExprKind::Var(id),
        ty: Ty::bits(width),
    }
}
