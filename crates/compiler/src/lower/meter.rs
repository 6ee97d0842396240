//! Meters: PSA's and PNA's `Meter<S>(size, type)` and v1model's
//! `meter(size, type)`, one [`ExternKind::Meter`] each. The target's
//! meter takes and gives BMv2's colour codes (0 green, 1 yellow, 2 red),
//! which v1model's `execute_meter` writes as they are; PSA's and PNA's
//! `execute` map their colour enum onto them and back.

use super::Lowerer;
use crate::ir::{BinOp, Expr, ExprKind, ExternId, ExternKind, ExternOp, Stmt, Ty, VarStorage};
use p4bpf_front::ast;
use p4bpf_front::check::Value;

/// BMv2's colour codes, the target meter's.
const GREEN: u64 = 0;
const YELLOW: u64 = 1;
const RED: u64 = 2;

impl<'a, 'u> Lowerer<'a, 'u> {
    /// `Meter(size, PSA_MeterType_t.BYTES)`, `meter(size, MeterType.packets)`.
    pub(super) fn meter_kind(
        &mut self,
        args: &[ast::Argument],
        decl: &ast::Decl,
    ) -> Option<ExternKind> {
        let unit = match args.get(1).and_then(|a| self.env.value(&a.value)) {
            Some(Value::Member { member, .. }) => member.to_ascii_lowercase(),
            _ => String::new(),
        };
        match unit.as_str() {
            "packets" => Some(ExternKind::Meter { bytes: false }),
            "bytes" => Some(ExternKind::Meter { bytes: true }),
            _ => {
                self.diags.error(
                    decl.span,
                    "a meter takes a size and a meter type (packets or bytes)",
                );
                None
            }
        }
    }

    /// `execute(index[, colour])`, `dpdk_execute(index[, colour], length)`
    /// and v1model's `execute_meter(index, out colour)`.
    pub(super) fn meter_method(
        &mut self,
        instance: ExternId,
        bytes: bool,
        method: &str,
        args: &'a [ast::Argument],
        call: &ast::Expr,
    ) -> Option<Expr> {
        let (index, colour, length, result) = match (method, args) {
            ("execute", [index]) => (index, None, None, None),
            ("execute", [index, colour]) => (index, Some(colour), None, None),
            ("dpdk_execute", [index, length]) => (index, None, Some(length), None),
            ("dpdk_execute", [index, colour, length]) => (index, Some(colour), Some(length), None),
            ("execute_meter", [index, result]) => (index, None, None, Some(result)),
            _ => {
                self.diags.error(
                    call.span,
                    format!(
                        "a meter has no method `{method}` taking {} arguments",
                        args.len()
                    ),
                );
                return None;
            }
        };
        let amount = match length {
            Some(length) => self.expr(&length.value)?,
            None if bytes => self.packet_length(),
            None => Expr::int(1u32, Ty::bits(32)),
        };
        let index = self.expr(&index.value)?;
        let index = self.cell_index(instance, index);
        if let Some(result) = result {
            let lhs = self.expr(&result.value)?;
            let colour = execute(instance, index, Expr::int(GREEN, Ty::bits(8)), amount);
            let ty = lhs.ty.clone();
            self.pending.push(Stmt::Assign {
                lhs,
                rhs: Expr::cast(colour, ty),
            });
            return Some(Expr {
                kind: ExprKind::Bool(true),
                ty: Ty::Void,
            });
        }
        let ty = self.env.expr_ty(call, &mut self.diags)?;
        let codes = self.colour_codes(call)?;
        let colour_in = match colour {
            Some(c) => {
                let c = self.expr(&c.value)?;
                from_enum(c, &codes)
            }
            None => Expr::int(GREEN, Ty::bits(8)),
        };
        // The meter runs once: its colour goes through a variable.
        let name = match self.prog.extern_instance(instance) {
            Some(x) => format!("{}.colour", x.name),
            None => "meter.colour".into(),
        };
        let var = self.new_var(name, Ty::bits(8), VarStorage::State);
        let colour = Expr {
            kind: ExprKind::Var(var),
            ty: Ty::bits(8),
        };
        self.pending.push(Stmt::Assign {
            lhs: colour.clone(),
            rhs: execute(instance, index, colour_in, amount),
        });
        Some(to_enum(colour, &codes, ty))
    }

    /// The codes of GREEN, YELLOW and RED in the architecture's colour
    /// enum (`PSA_MeterColor_t`, `PNA_MeterColor_t`).
    pub(super) fn colour_codes(&mut self, call: &ast::Expr) -> Option<[u64; 3]> {
        let checked = self.env.checked;
        let codes = ["PSA_MeterColor_t", "PNA_MeterColor_t"]
            .iter()
            .find_map(|name| checked.enum_named(name))
            .and_then(|colours| {
                let code = |m: &str| checked.enum_code(&colours, m).map(u64::from);
                Some([code("GREEN")?, code("YELLOW")?, code("RED")?])
            });
        if codes.is_none() {
            self.diags.error(
                call.span,
                "`execute` needs the architecture's meter colours (GREEN, YELLOW, RED)",
            );
        }
        codes
    }
}

fn execute(instance: ExternId, index: Expr, colour: Expr, amount: Expr) -> Expr {
    Expr {
        kind: ExprKind::ExternMethod {
            instance,
            op: ExternOp::Execute,
            args: vec![index, colour, amount],
        },
        ty: Ty::bits(8),
    }
}

/// The enum colour `c` as the meter's code.
pub(super) fn from_enum(c: Expr, [_, yellow, red]: &[u64; 3]) -> Expr {
    let ty = c.ty.clone();
    let is = |code: u64| Expr::binary(BinOp::Eq, c.clone(), Expr::int(code, ty.clone()));
    Expr::mux(
        is(*red),
        Expr::int(RED, Ty::bits(8)),
        Expr::mux(
            is(*yellow),
            Expr::int(YELLOW, Ty::bits(8)),
            Expr::int(GREEN, Ty::bits(8)),
        ),
    )
}

/// The meter's code `colour` (a variable) as the enum's.
pub(super) fn to_enum(colour: Expr, [green, yellow, red]: &[u64; 3], ty: Ty) -> Expr {
    let is = |code: u64| Expr::binary(BinOp::Eq, colour.clone(), Expr::int(code, Ty::bits(8)));
    Expr::mux(
        is(GREEN),
        Expr::int(*green, ty.clone()),
        Expr::mux(
            is(YELLOW),
            Expr::int(*yellow, ty.clone()),
            Expr::int(*red, ty),
        ),
    )
}
