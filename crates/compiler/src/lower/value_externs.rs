//! PSA's and PNA's externs whose methods compute values without a map:
//! `Random<T>(min, max)` and `Hash<O>(algorithm)`, bound to their
//! constructor arguments; their calls become the target's random number
//! and hash builtins. `InternetChecksum` (`super::internet_checksum`)
//! keeps a per-packet sum; the three share the method dispatch here.

use super::{Binding, Lowerer};
use crate::ir::{BinOp, Builtin, Expr, ExprKind, HashAlgorithm, Ty};
use num_traits::ToPrimitive;
use p4bpf_front::ast;
use p4bpf_front::check::{Type, Value};

/// The random numbers the target draws: 32 bits each.
const RANDOM_SPAN: u64 = 1 << 32;

impl<'a, 'u> Lowerer<'a, 'u> {
    /// `Random<T>(min, max) name;`: `read()` draws from `min..=max`.
    pub(super) fn random_instance(
        &mut self,
        name: &ast::Ident,
        args: &[ast::Argument],
        decl: &ast::Decl,
    ) {
        let [lo, hi] = args else {
            self.diags
                .error(decl.span, "`Random` takes a lowest and a highest value");
            return;
        };
        let Some(ty) = self.type_argument(name, decl) else {
            return;
        };
        let bound = |x: &ast::Argument, l: &mut Self| {
            l.env.int(&x.value, &mut l.diags).and_then(|v| v.to_u64())
        };
        let (Some(lo), Some(hi)) = (bound(lo, self), bound(hi, self)) else {
            return;
        };
        if lo > hi || hi - lo >= RANDOM_SPAN {
            self.diags.error(
                decl.span,
                format!("`Random({lo}, {hi})`: the range must hold 1 to 2^32 values on the eBPF target (its random numbers have 32 bits)"),
            );
            return;
        }
        self.bind(&name.name, Binding::Random { lo, hi, ty });
    }

    /// `Hash<O>(algorithm) name;`.
    pub(super) fn hash_instance(
        &mut self,
        name: &ast::Ident,
        args: &[ast::Argument],
        decl: &ast::Decl,
    ) {
        let algorithm = match args {
            [algo] => match self.env.value(&algo.value) {
                Some(Value::Member { member, .. }) => algorithm(member),
                _ => None,
            },
            _ => None,
        };
        let Some(algorithm) = algorithm else {
            self.diags.error(
                decl.span,
                "`Hash` takes an algorithm p4bpf computes: IDENTITY, CRC16, CRC32 (and their _CUSTOM with the standard parameters), ONES_COMPLEMENT16, TOEPLITZ or TARGET_DEFAULT (CRC32)",
            );
            return;
        };
        let Some(ty) = self.type_argument(name, decl) else {
            return;
        };
        self.bind(&name.name, Binding::Hash { algorithm, ty });
    }

    /// A method call on an instance bound to a value extern: its value,
    /// statements it needs first in [`Lowerer::pending`].
    pub(super) fn value_extern_method(
        &mut self,
        binding: Binding,
        method: &str,
        args: &'a [ast::Argument],
        call: &ast::Expr,
    ) -> Option<Expr> {
        match (binding, method, args) {
            (Binding::InternetChecksum(sum), ..) => {
                self.internet_checksum_method(sum, method, args, call)
            }
            (Binding::CrcChecksum { state, algorithm }, ..) => {
                self.crc_checksum_method(state, algorithm, method, args, call)
            }
            (Binding::Ipsec(enabled), ..) => self.ipsec_method(enabled, method, args, call),
            (Binding::Random { lo, hi, ty }, "read", []) => Some(random(lo, hi, ty)),
            (Binding::Hash { algorithm, ty }, "get_hash", [data]) => {
                let hash = self.hashed(algorithm, &data.value)?;
                Some(Expr::cast(hash, ty))
            }
            // base + hash % max; a zero max gives base (the emitted `%`
            // by zero is 0).
            (Binding::Hash { algorithm, ty }, "get_hash", [base, data, max]) => {
                let wide = Ty::bits(64);
                let hash = self.hashed(algorithm, &data.value)?;
                let base = Expr::cast(self.expr(&base.value)?, wide.clone());
                let max = Expr::cast(self.expr(&max.value)?, wide);
                let offset = Expr::binary(BinOp::Mod, hash, max);
                Some(Expr::cast(Expr::binary(BinOp::Add, base, offset), ty))
            }
            (binding, ..) => {
                let object = match binding {
                    Binding::Random { .. } => "Random",
                    _ => "Hash",
                };
                self.diags.error(
                    call.span,
                    format!(
                        "`{object}` has no method `{method}` taking {} arguments",
                        args.len()
                    ),
                );
                None
            }
        }
    }

    /// `algorithm`'s hash of `data`'s fields, as a `bit<64>`.
    fn hashed(&mut self, algorithm: HashAlgorithm, data: &'a ast::Expr) -> Option<Expr> {
        let fields = self.fields_of(data)?;
        Some(Expr {
            kind: ExprKind::Builtin {
                func: Builtin::Hash(algorithm),
                args: fields,
            },
            ty: Ty::bits(64),
        })
    }

    /// The lowered type argument of the instance `name` (`T` of `Random<T>`).
    fn type_argument(&mut self, name: &ast::Ident, decl: &ast::Decl) -> Option<Ty> {
        let checked = self.env.checked;
        let ty = match checked.decl_type(name) {
            Some(Type::Named { args, .. }) => args.first(),
            _ => None,
        };
        let ty = ty.and_then(|t| self.env.ty(t, decl.span, &mut self.diags));
        match ty {
            Some(ty @ Ty::Bits { width, .. }) if width <= 64 => Some(ty),
            _ => {
                self.diags.error(
                    decl.span,
                    "the type argument must be a bit string of at most 64 bits on the eBPF target",
                );
                None
            }
        }
    }
}

/// `lo + r % (hi - lo + 1)` of the target's 32-bit random number `r`,
/// without the modulo when the range holds every value `r` takes.
fn random(lo: u64, hi: u64, ty: Ty) -> Expr {
    let wide = Ty::bits(64);
    let mut r = Expr {
        kind: ExprKind::Builtin {
            func: Builtin::Random,
            args: vec![],
        },
        ty: wide.clone(),
    };
    let span = hi - lo + 1;
    if span != RANDOM_SPAN {
        r = Expr::binary(BinOp::Mod, r, Expr::int(span, wide.clone()));
    }
    Expr::cast(Expr::binary(BinOp::Add, Expr::int(lo, wide), r), ty)
}

/// The algorithm a `PSA_HashAlgorithm_t` or `PNA_HashAlgorithm_t` member
/// names; `_CUSTOM` ones keep their standard parameters.
pub(super) fn algorithm(member: &str) -> Option<HashAlgorithm> {
    Some(match member {
        "IDENTITY" => HashAlgorithm::Identity,
        "CRC16" | "CRC16_CUSTOM" => HashAlgorithm::Crc16,
        "CRC32" | "CRC32_CUSTOM" | "TARGET_DEFAULT" => HashAlgorithm::Crc32,
        "ONES_COMPLEMENT16" => HashAlgorithm::Csum16,
        "TOEPLITZ" => HashAlgorithm::Toeplitz,
        _ => return None,
    })
}
