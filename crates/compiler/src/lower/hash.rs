//! Calls that hash a list of fields with an algorithm the program names
//! (`HashAlgorithm.crc32`): v1model's `hash`, `verify_checksum` and
//! `update_checksum`, as [`Builtin::Hash`] over the fields, headers and
//! structs flattened to their fields in order, wide fields cut into
//! 64-bit slices. Also `random` and `assert`/`assume`, which, like the
//! checksums, set v1model's metadata.

use super::Lowerer;
use crate::arch::Place;
use crate::ir::{BinOp, Builtin, Expr, ExprKind, HashAlgorithm, Stmt, Ty, UnOp};
use p4bpf_front::ast::{self, ExprKind as A};
use p4bpf_front::check::Value;

/// What the algorithm a program names computes.
pub(super) enum Algorithm {
    Hash(HashAlgorithm),
    Random,
}

impl<'a, 'u> Lowerer<'a, 'u> {
    /// `hash(out result, algo, base, { data }, max)`: `result = base +
    /// hash(data) % max` (no modulo when `max` is 0).
    pub(super) fn hash_with_algorithm(
        &mut self,
        args: &'a [ast::Argument],
        e: &ast::Expr,
    ) -> Option<Expr> {
        let [result, algo, base, data, max] = args else {
            self.diags.error(
                e.span,
                "`hash` takes a result, an algorithm, a base, a list of fields and a maximum",
            );
            return None;
        };
        let lhs = self.expr(&result.value)?;
        let hash = self.hash_of(&algo.value, &data.value)?;
        let base = Expr::cast(self.expr(&base.value)?, Ty::bits(64));
        let zero_max = matches!(self.env.value(&max.value), Some(Value::Int { value, .. }) if value.bits() == 0);
        let offset = if zero_max {
            hash
        } else {
            Expr::binary(
                BinOp::Mod,
                hash,
                Expr::cast(self.expr(&max.value)?, Ty::bits(64)),
            )
        };
        let ty = lhs.ty.clone();
        self.pending.push(Stmt::Assign {
            lhs,
            rhs: Expr::cast(Expr::binary(BinOp::Add, base, offset), ty),
        });
        Some(void())
    }

    /// `verify_checksum(cond, { data }, checksum, algo)`: sets `flag` (1)
    /// when `cond` holds and the data's checksum is not `checksum`;
    /// `update_checksum(cond, { data }, checksum, algo)`: `checksum` takes
    /// the data's checksum when `cond` holds.
    pub(super) fn checksum(
        &mut self,
        verify: Option<Place>,
        args: &'a [ast::Argument],
        e: &ast::Expr,
    ) -> Option<Expr> {
        self.checksum_over(verify, false, args, e)
    }

    /// The `_with_payload` checksum calls: the payload follows the fields.
    pub(super) fn checksum_with_payload(
        &mut self,
        verify: Option<Place>,
        args: &'a [ast::Argument],
        e: &ast::Expr,
    ) -> Option<Expr> {
        self.checksum_over(verify, true, args, e)
    }

    fn checksum_over(
        &mut self,
        verify: Option<Place>,
        payload: bool,
        args: &'a [ast::Argument],
        e: &ast::Expr,
    ) -> Option<Expr> {
        let args = by_checksum_param_names(args);
        let [cond, data, checksum, algo] = args.as_slice() else {
            self.diags.error(
                e.span,
                "a checksum call takes a condition, a list of fields, the checksum and an algorithm",
            );
            return None;
        };
        let cond = self.expr(&cond.value)?;
        let checksum = self.expr(&checksum.value)?;
        let mut hash = self.hash_of(&algo.value, &data.value)?;
        if payload {
            hash = self.with_payload(hash, e)?;
        }
        let computed = Expr::cast(hash, checksum.ty.clone());
        let stmt = match verify {
            Some(flag) => {
                let flag = self.arch_place(&flag, e.span)?;
                Stmt::If {
                    cond: Expr::binary(
                        BinOp::And,
                        cond,
                        Expr::binary(BinOp::Ne, computed, checksum),
                    ),
                    then: vec![Stmt::Assign {
                        rhs: Expr::int(1u32, flag.ty.clone()),
                        lhs: flag,
                    }],
                    other: vec![],
                }
            }
            None => Stmt::If {
                cond,
                then: vec![Stmt::Assign {
                    lhs: checksum,
                    rhs: computed,
                }],
                other: vec![],
            },
        };
        self.pending.push(stmt);
        Some(void())
    }

    /// `random(out result, lo, hi)`: `result = lo + r % (hi - lo + 1)`.
    pub(super) fn random(&mut self, args: &'a [ast::Argument], e: &ast::Expr) -> Option<Expr> {
        let [result, lo, hi] = args else {
            self.diags.error(
                e.span,
                "`random` takes a result, a lowest and a highest value",
            );
            return None;
        };
        let lhs = self.expr(&result.value)?;
        let wide = Ty::bits(64);
        let lo = Expr::cast(self.expr(&lo.value)?, wide.clone());
        let hi = Expr::cast(self.expr(&hi.value)?, wide.clone());
        let span = Expr::binary(
            BinOp::Add,
            Expr::binary(BinOp::Sub, hi, lo.clone()),
            Expr::int(1u32, wide.clone()),
        );
        let r = Expr {
            kind: ExprKind::Builtin {
                func: Builtin::Random,
                args: vec![],
            },
            ty: wide,
        };
        let ty = lhs.ty.clone();
        self.pending.push(Stmt::Assign {
            lhs,
            rhs: Expr::cast(
                Expr::binary(BinOp::Add, lo, Expr::binary(BinOp::Mod, r, span)),
                ty,
            ),
        });
        Some(void())
    }

    /// `assert(cond)` and `assume(cond)`: BMv2 stops the switch when
    /// `cond` is false; p4bpf drops the packet (the code in `drop` goes
    /// to `place`, and the control ends).
    pub(super) fn assert(
        &mut self,
        place: Place,
        drop: u32,
        args: &'a [ast::Argument],
        e: &ast::Expr,
    ) -> Option<Expr> {
        let [cond] = args else {
            self.diags.error(e.span, "`assert` takes a condition");
            return None;
        };
        let cond = self.expr(&cond.value)?;
        let lhs = self.arch_place(&place, e.span)?;
        self.pending.push(Stmt::If {
            cond: Expr {
                kind: ExprKind::Unary {
                    op: UnOp::Not,
                    operand: Box::new(cond),
                },
                ty: Ty::Bool,
            },
            then: vec![
                Stmt::Assign {
                    rhs: Expr::int(drop, lhs.ty.clone()),
                    lhs,
                },
                Stmt::Exit,
            ],
            other: vec![],
        });
        Some(void())
    }

    /// The hash `algo` names over the fields of `data`, as a `bit<64>`.
    fn hash_of(&mut self, algo: &ast::Expr, data: &'a ast::Expr) -> Option<Expr> {
        let algorithm = match self.env.value(algo) {
            Some(Value::Member { member, .. }) => algorithm(member),
            _ => None,
        };
        let Some(algorithm) = algorithm else {
            self.diags.error(
                algo.span,
                "expected a hash algorithm p4bpf computes: crc16, crc32, crc16_custom, crc32_custom (with the standard parameters), csum16, xor16, identity or random",
            );
            return None;
        };
        let fields = self.fields_with_varbit(data)?;
        if !self.hashable_varbit(&fields, &algorithm, data.span) {
            return None;
        }
        let func = match algorithm {
            Algorithm::Hash(a) => Builtin::Hash(a),
            Algorithm::Random => Builtin::Random,
        };
        Some(Expr {
            kind: ExprKind::Builtin { func, args: fields },
            ty: Ty::bits(64),
        })
    }

    /// The bit strings of a list of fields (`{ a, b }`) or of one
    /// expression, as [`Lowerer::flatten`] gives them, in order; no
    /// `varbit` value among them.
    pub(super) fn fields_of(&mut self, data: &'a ast::Expr) -> Option<Vec<Expr>> {
        let fields = self.fields_with_varbit(data)?;
        if fields.iter().any(|f| matches!(f.ty, Ty::Varbit { .. })) {
            self.diags.error(
                data.span,
                "a `varbit` value in this list is not supported by the eBPF target (v1model's hashes and checksums by csum16 or xor16 take one, last)",
            );
            return None;
        }
        Some(fields)
    }

    /// As [`Lowerer::fields_of`], `varbit` values included.
    fn fields_with_varbit(&mut self, data: &'a ast::Expr) -> Option<Vec<Expr>> {
        let items: Vec<&'a ast::Expr> = match &data.kind {
            A::List(items) => items.iter().collect(),
            _ => vec![data],
        };
        let mut fields = vec![];
        for item in items {
            let x = self.expr(item)?;
            self.flatten(x, &mut fields);
        }
        Some(fields)
    }

    /// `x` as bit strings of at most 64 bits, in order: a header's or
    /// struct's fields, a wide field's 64-bit slices from the top.
    pub(super) fn flatten(&self, x: Expr, out: &mut Vec<Expr>) {
        match &x.ty {
            Ty::Header(agg) | Ty::Struct(agg) => {
                let Some(fields) = self.env.aggregates.get(agg.index()).map(|a| &a.fields) else {
                    return;
                };
                for (index, field) in fields.iter().enumerate() {
                    let member = Expr {
                        kind: ExprKind::Field {
                            base: Box::new(x.clone()),
                            agg: *agg,
                            field: index,
                        },
                        ty: field.ty.clone(),
                    };
                    self.flatten(member, out);
                }
                out.extend(self.varbit_of(&x));
            }
            Ty::Bits { width, .. } if *width > 64 => {
                let mut hi = *width;
                while hi > 0 {
                    let lo = hi.saturating_sub(64);
                    out.push(Expr {
                        kind: ExprKind::Slice {
                            base: Box::new(x.clone()),
                            hi: hi - 1,
                            lo,
                        },
                        ty: Ty::bits(hi - lo),
                    });
                    hi = lo;
                }
            }
            Ty::Bool => out.push(Expr::cast(x, Ty::bits(1))),
            _ => out.push(x),
        }
    }
}

/// The algorithm a `HashAlgorithm` member names; `*_custom` ones keep
/// their standard parameters (no control plane sets others yet).
pub(super) fn algorithm(member: &str) -> Option<Algorithm> {
    Some(match member {
        "crc16" | "crc16_custom" => Algorithm::Hash(HashAlgorithm::Crc16),
        "crc32" | "crc32_custom" => Algorithm::Hash(HashAlgorithm::Crc32),
        "csum16" => Algorithm::Hash(HashAlgorithm::Csum16),
        "xor16" => Algorithm::Hash(HashAlgorithm::Xor16),
        "identity" => Algorithm::Hash(HashAlgorithm::Identity),
        "random" => Algorithm::Random,
        _ => return None,
    })
}

/// The value of a call done for its effect.
fn void() -> Expr {
    Expr {
        kind: ExprKind::Bool(true),
        ty: Ty::Void,
    }
}

/// A checksum call's arguments in parameter order: passed by name
/// (`verify_checksum(data = {...}, checksum = c, condition = true, algo =
/// ...)`, v1model.p4's names), or as written.
fn by_checksum_param_names(args: &[ast::Argument]) -> Vec<&ast::Argument> {
    if args.iter().all(|a| a.name.is_none()) {
        return args.iter().collect();
    }
    ["condition", "data", "checksum", "algo"]
        .iter()
        .filter_map(|p| {
            args.iter()
                .find(|a| a.name.as_ref().is_some_and(|n| n.name == *p))
        })
        .collect()
}
