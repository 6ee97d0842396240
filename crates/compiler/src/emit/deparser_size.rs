//! The length of the headers a rebuilding deparser will emit, computed
//! before it writes anything (the packet is resized first). The deparser's
//! control flow is mirrored, so an `emit` counts only on the paths that run
//! it: under an `if`, in one arm of a `switch`, or not at all.

use super::c::{line, CStmt};
use super::types::VALID;
use super::varbit::VARBIT_BYTES;
use super::Emitter;
use crate::ir::{Expr, Stmt, Ty};

impl Emitter<'_> {
    /// Statements adding to `new_len` the bytes `stmts` emit.
    pub fn emitted_length(&self, stmts: &[Stmt]) -> Vec<CStmt> {
        let mut out = vec![];
        for s in stmts {
            match s {
                Stmt::Emit { header } => out.extend(self.header_length(header)),
                Stmt::If { cond, then, other } => {
                    let (then, other) = (self.emitted_length(then), self.emitted_length(other));
                    if !then.is_empty() || !other.is_empty() {
                        out.push(CStmt::If {
                            cond: self.expr(cond),
                            then,
                            other,
                        });
                    }
                }
                Stmt::SwitchValue {
                    value,
                    cases,
                    default,
                } => {
                    let width = value.ty.width().unwrap_or(32);
                    let arms = cases
                        .iter()
                        .map(|(labels, body)| {
                            let labels = labels
                                .iter()
                                .map(|v| super::expr::literal(v, width))
                                .collect();
                            (labels, self.emitted_length(body))
                        })
                        .collect();
                    let default = default
                        .as_deref()
                        .map(|d| self.emitted_length(d))
                        .unwrap_or_default();
                    out.push(CStmt::Switch {
                        scrutinee: self.expr(value),
                        cases: arms,
                        default,
                    });
                }
                Stmt::Inline { body, .. } => out.extend(self.emitted_length(body)),
                _ => {}
            }
        }
        out
    }

    fn header_length(&self, h: &Expr) -> Option<CStmt> {
        let Ty::Header(agg) = h.ty else {
            return None;
        };
        let a = self.prog.agg(agg)?;
        let place = self.lvalue(h);
        let mut grow = vec![line(format!("new_len += {}", a.wire_bits / 8))];
        if a.varbit.is_some() {
            grow.push(line(format!("new_len += {place}.{VARBIT_BYTES}")));
        }
        Some(CStmt::If {
            cond: format!("{place}.{VALID}"),
            then: grow,
            other: vec![],
        })
    }
}
