//! `p.lookahead<T>()` as a value of a header, a struct or a header stack
//! (and structs of them): a fresh variable whose bit strings take the bits
//! ahead in wire order, every header in it valid, filled before the
//! expression. The whole of `T` must be in the packet. A bit string wider
//! than 64 bits is such a variable too.

use super::Lowerer;
use crate::ir::{Expr, ExprKind, Stmt, Ty, VarStorage};
use p4bpf_front::ast;

impl Lowerer<'_, '_> {
    pub(super) fn lookahead_value(&mut self, ty: Ty, e: &ast::Expr) -> Option<Expr> {
        let name = format!("{}.lookahead{}", self.dotted("tmp"), self.prog.vars.len());
        let v = self.new_var(name, ty.clone(), VarStorage::State);
        let place = Expr {
            kind: ExprKind::Var(v),
            ty,
        };
        let (mut leaves, mut headers) = (vec![], vec![]);
        if !self.wire_leaves(place.clone(), &mut leaves, &mut headers) {
            self.diags.error(
                e.span,
                "`lookahead<T>()` needs bit strings of at most 64 bits, headers without varbit, and structs and stacks of them",
            );
            return None;
        }
        let bits: u32 = leaves.iter().filter_map(|l| l.ty.width()).sum();
        for header in headers {
            self.pending.push(Stmt::SetValid {
                header,
                valid: true,
            });
        }
        let mut bit_offset = 0;
        for leaf in leaves {
            let ty = leaf.ty.clone();
            let width = ty.width().unwrap_or(0);
            self.pending.push(Stmt::Assign {
                lhs: leaf,
                rhs: Expr {
                    kind: ExprKind::Lookahead {
                        bit_offset,
                        check_bytes: bits.div_ceil(8),
                    },
                    ty,
                },
            });
            bit_offset += width;
        }
        Some(place)
    }

    /// `p.lookahead<bit<N>>()` with N > 64: wide values are places, so a
    /// fresh variable filled with the bits ahead before the expression.
    pub(super) fn lookahead_wide(&mut self, ty: Ty) -> Expr {
        let name = format!("{}.lookahead{}", self.dotted("tmp"), self.prog.vars.len());
        let v = self.new_var(name, ty.clone(), VarStorage::State);
        let place = Expr {
            kind: ExprKind::Var(v),
            ty: ty.clone(),
        };
        let check_bytes = ty.width().unwrap_or(0).div_ceil(8);
        self.pending.push(Stmt::Assign {
            lhs: place.clone(),
            rhs: Expr {
                kind: ExprKind::Lookahead {
                    bit_offset: 0,
                    check_bytes,
                },
                ty,
            },
        });
        place
    }

    /// Appends the bit-string places inside `place` in wire order to
    /// `leaves` and its headers to `headers`; false for what has no fixed
    /// place on the wire.
    fn wire_leaves(&self, place: Expr, leaves: &mut Vec<Expr>, headers: &mut Vec<Expr>) -> bool {
        match place.ty.clone() {
            Ty::Bits { width, .. } if width <= 64 => leaves.push(place),
            Ty::Bool => leaves.push(place),
            Ty::Header(agg) | Ty::Struct(agg) => {
                let Some(def) = self.env.aggregates.get(agg.index()) else {
                    return false;
                };
                if def.varbit.is_some() {
                    return false;
                }
                let fields: Vec<Ty> = def.fields.iter().map(|f| f.ty.clone()).collect();
                if matches!(place.ty, Ty::Header(_)) {
                    headers.push(place.clone());
                }
                return fields.into_iter().enumerate().all(|(field, ty)| {
                    let member = Expr {
                        kind: ExprKind::Field {
                            base: Box::new(place.clone()),
                            agg,
                            field,
                        },
                        ty,
                    };
                    self.wire_leaves(member, leaves, headers)
                });
            }
            Ty::Stack { elem, size } => {
                return (0..size).all(|i| {
                    let element = Expr {
                        kind: ExprKind::Index {
                            base: Box::new(place.clone()),
                            index: Box::new(Expr::int(i, Ty::bits(32))),
                        },
                        ty: Ty::Header(elem),
                    };
                    self.wire_leaves(element, leaves, headers)
                });
            }
            _ => return false,
        }
        true
    }
}
