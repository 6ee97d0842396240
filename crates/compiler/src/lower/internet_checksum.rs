//! PSA's and PNA's `InternetChecksum`: the ones' complement sum of 16-bit
//! words (RFC 1071), kept per packet in a `bit<16>` variable of the
//! instance, and its methods as plain statements over it.
//!
//! The variable holds the sum itself (what `get_state` returns), not its
//! complement: `add` folds in the data's sum, `subtract` its complement
//! (RFC 1624's incremental update, `~m` then `m'`), and `get` is the
//! complement of the sum. The data's sum comes from the Internet
//! checksum builtin over the fields concatenated, an odd byte padded, so
//! a bit-list of any width works as one bit string.

use super::{Binding, Lowerer};
use crate::ir::{BinOp, Builtin, Expr, ExprKind, HashAlgorithm, Stmt, Ty, UnOp, VarId, VarStorage};
use p4bpf_front::ast;

impl<'a, 'u> Lowerer<'a, 'u> {
    /// `InternetChecksum() name;`: a zero sum each time its block starts,
    /// as after `clear()`.
    pub(super) fn internet_checksum_instance(&mut self, name: &ast::Ident) {
        let p4 = self.dotted(&name.name);
        let sum = self.new_var(p4, Ty::bits(16), VarStorage::State);
        self.local_inits.push(Stmt::Assign {
            lhs: var(sum),
            rhs: int(0, 16),
        });
        self.bind(&name.name, Binding::InternetChecksum(sum));
    }

    /// `name.method(args)` on the instance whose sum is `sum`: the value
    /// for `get` and `get_state`; the others' statements go to
    /// [`Lowerer::pending`].
    pub(super) fn internet_checksum_method(
        &mut self,
        sum: VarId,
        method: &str,
        args: &'a [ast::Argument],
        call: &ast::Expr,
    ) -> Option<Expr> {
        let update = match (method, args) {
            ("clear", []) => int(0, 16),
            ("add", [data]) => {
                let data_sum = complement(self.checksum_of(&data.value)?);
                ones_add(var(sum), data_sum)
            }
            ("subtract", [data]) => ones_add(var(sum), self.checksum_of(&data.value)?),
            ("set_state", [state]) => self.expr(&state.value)?,
            ("get", []) => return Some(complement(var(sum))),
            ("get_state", []) => return Some(var(sum)),
            _ => {
                self.diags.error(
                    call.span,
                    format!(
                        "`InternetChecksum` has no method `{method}` taking {} arguments: it has clear(), add(data), subtract(data), get(), get_state() and set_state(state)",
                        args.len()
                    ),
                );
                return None;
            }
        };
        self.pending.push(Stmt::Assign {
            lhs: var(sum),
            rhs: update,
        });
        Some(Expr {
            kind: ExprKind::Bool(true),
            ty: Ty::Void,
        })
    }

    /// The Internet checksum (the complemented sum) of `data`'s fields
    /// concatenated, as a `bit<16>`.
    fn checksum_of(&mut self, data: &'a ast::Expr) -> Option<Expr> {
        let fields = self.fields_of(data)?;
        let checksum = Expr {
            kind: ExprKind::Builtin {
                func: Builtin::Hash(HashAlgorithm::Csum16),
                args: fields,
            },
            ty: Ty::bits(64),
        };
        Some(cast(checksum, Ty::bits(16)))
    }
}

/// `a + b` in ones' complement over 16 bits: the sum in 32 bits, folded.
fn ones_add(a: Expr, b: Expr) -> Expr {
    let wide = Ty::bits(32);
    let sum = binary(BinOp::Add, cast(a, wide.clone()), cast(b, wide));
    Expr {
        kind: ExprKind::Builtin {
            func: Builtin::CsumFold,
            args: vec![sum],
        },
        ty: Ty::bits(16),
    }
}

fn complement(x: Expr) -> Expr {
    let ty = x.ty.clone();
    Expr {
        kind: ExprKind::Unary {
            op: UnOp::Complement,
            operand: Box::new(x),
        },
        ty,
    }
}

fn var(v: VarId) -> Expr {
    Expr {
        kind: ExprKind::Var(v),
        ty: Ty::bits(16),
    }
}

fn int(value: u64, width: u32) -> Expr {
    Expr {
        kind: ExprKind::Int(value.into()),
        ty: Ty::bits(width),
    }
}

fn cast(x: Expr, ty: Ty) -> Expr {
    if x.ty == ty {
        return x;
    }
    Expr {
        kind: ExprKind::Cast(Box::new(x)),
        ty,
    }
}

fn binary(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
    let ty = lhs.ty.clone();
    Expr {
        kind: ExprKind::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        },
        ty,
    }
}
