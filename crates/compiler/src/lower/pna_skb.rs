//! P4TC's `skb_*` externs (`tc/pna.p4`) on the kernel socket buffer's
//! metadata. P4TC loads the metadata into a per-packet struct
//! (`skb_get_meta`), reads and sets that struct's fields, and writes the
//! set ones back (`skb_set_meta`). Here a getter reads the socket buffer
//! itself (what the struct holds once loaded); a setter stages its value
//! and marks the field, `skb_set_meta` writes the marked fields, and
//! `skb_get_meta` forgets staged values, as reloading the struct does.
//! Only TC has a socket buffer: XDP refuses these (`refuse_at_hook`).

use super::Lowerer;
use crate::arch::SkbCall;
use crate::ir::{BinOp, Builtin, Expr, ExprKind, SkbField, Stmt, Ty, VarId, VarStorage};
use p4bpf_front::ast;

/// The fields `skb_set_meta` writes, each with its bit in the mask.
const WRITABLE: [SkbField; 5] = [
    SkbField::Tstamp,
    SkbField::Mark,
    SkbField::TcClassid,
    SkbField::TcIndex,
    SkbField::QueueMapping,
];

/// The staged fields' mask variable.
const MASK: &str = "skb_meta.set";

impl<'a, 'u> Lowerer<'a, 'u> {
    pub(super) fn skb_meta_call(
        &mut self,
        name: &str,
        call: SkbCall,
        args: &'a [ast::Argument],
        e: &ast::Expr,
    ) -> Option<Expr> {
        if let SkbCall::Unreachable(why) = call {
            self.diags
                .error(e.span, format!("`{name}` is not supported: {why}"));
            return None;
        }
        let values: Vec<Expr> = args
            .iter()
            .map(|a| self.expr(&a.value))
            .collect::<Option<_>>()?;
        if self.prog.skb_meta_at.is_none() {
            self.prog.skb_meta_at = self.diags.unit.resolve(e.span);
        }
        let mask = self.skb_var(MASK, Ty::bits(8));
        match (call, values.as_slice()) {
            (SkbCall::Get(field), []) => Some(read(field)),
            (SkbCall::Set(field), [value]) => {
                let staged = self.skb_var(&format!("skb_meta.{}", field.c_name()), p4_type(field));
                self.pending
                    .push(assign(staged, value.clone().cast(p4_type(field))));
                self.pending.push(assign(
                    mask.clone(),
                    Expr::binary(BinOp::BitOr, mask, Expr::int(bit(field), Ty::bits(8))),
                ));
                Some(void())
            }
            (SkbCall::Load, []) => {
                self.pending
                    .push(assign(mask, Expr::int(0u32, Ty::bits(8))));
                Some(void())
            }
            (SkbCall::Store, []) => {
                for field in WRITABLE {
                    let staged =
                        self.skb_var(&format!("skb_meta.{}", field.c_name()), p4_type(field));
                    self.pending.push(write_if_set(&mask, field, staged));
                }
                self.pending
                    .push(assign(mask, Expr::int(0u32, Ty::bits(8))));
                Some(void())
            }
            _ => {
                self.diags.error(
                    e.span,
                    format!(
                        "`{name}` takes {} arguments",
                        usize::from(matches!(call, SkbCall::Set(_)))
                    ),
                );
                None
            }
        }
    }

    /// The per-packet variable `p4_name`, made at its first use.
    fn skb_var(&mut self, p4_name: &str, ty: Ty) -> Expr {
        let known = self.prog.vars.iter().position(|v| v.p4_name == p4_name);
        let id = match known {
            Some(i) => VarId(i as u32),
            None => self.new_var(p4_name.to_string(), ty.clone(), VarStorage::State),
        };
        Expr {
            kind: ExprKind::Var(id),
            ty,
        }
    }
}

/// The P4 type `tc/pna.p4` gives the field.
fn p4_type(field: SkbField) -> Ty {
    match field {
        SkbField::Tstamp => Ty::bits(64),
        SkbField::Mark => Ty::bits(32),
        _ => Ty::bits(16),
    }
}

/// The field's value: `struct __sk_buff` holds it in 32 bits (the
/// timestamp in 64), cut to the P4 type.
fn read(field: SkbField) -> Expr {
    let c_width = if field == SkbField::Tstamp { 64 } else { 32 };
    Expr {
        kind: ExprKind::Builtin {
            func: Builtin::SkbRead(field),
            args: vec![],
        },
        ty: Ty::bits(c_width),
    }
    .cast(p4_type(field))
}

fn bit(field: SkbField) -> u32 {
    let index = WRITABLE.iter().position(|f| *f == field).unwrap_or(0);
    1 << index
}

/// `if (mask & bit) skb->field = staged;`
fn write_if_set(mask: &Expr, field: SkbField, staged: Expr) -> Stmt {
    let set = Expr::binary(
        BinOp::Ne,
        Expr::binary(
            BinOp::BitAnd,
            mask.clone(),
            Expr::int(bit(field), Ty::bits(8)),
        ),
        Expr::int(0u32, Ty::bits(8)),
    );
    let write = Stmt::Eval(Expr {
        kind: ExprKind::Builtin {
            func: Builtin::SkbWrite(field),
            args: vec![staged],
        },
        ty: Ty::Void,
    });
    Stmt::If {
        cond: set,
        then: vec![write],
        other: vec![],
    }
}

fn assign(lhs: Expr, rhs: Expr) -> Stmt {
    Stmt::Assign { lhs, rhs }
}

fn void() -> Expr {
    Expr {
        kind: ExprKind::Bool(true),
        ty: Ty::Void,
    }
}
