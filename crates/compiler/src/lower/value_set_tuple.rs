//! A value set matched against several select keys at once:
//! `value_set<vs_t>(4) pvs; ... select(a, b) { pvs: next; }`, where `vs_t`
//! is a struct with one member per key, in order (nested structs count
//! their members). Its members are matched as their fields' `@match`
//! kinds say (see `value_set_match.rs`).

use super::{Binding, Lowerer};
use crate::ir::{Expr, Keyset, Ty, ValueSetId};
use p4bpf_front::ast::{self, ExprKind as A};

impl Lowerer<'_, '_> {
    /// The value set `keyset` names when the select has several `keys`,
    /// or `None`. An element type that does not line up with the keys is
    /// reported here.
    pub(super) fn tuple_value_set(&mut self, keyset: &ast::Expr, keys: &[Expr]) -> Option<Keyset> {
        let A::Path(p) = &keyset.kind else {
            return None;
        };
        let Some(Binding::ValueSet(id)) = self.lookup(&p.name.name).filter(|_| keys.len() > 1)
        else {
            return None;
        };
        let widths = self.value_set_widths(id);
        let key_widths: Vec<Option<u32>> = keys.iter().map(|k| k.ty.width()).collect();
        if widths != key_widths {
            self.diags.error(
                keyset.span,
                format!(
                    "value set `{}` holds members of {} bits; the select's keys have {} bits",
                    p.name.name,
                    shown(&widths),
                    shown(&key_widths)
                ),
            );
        }
        if key_widths.iter().any(|w| w.is_some_and(|w| w > 64)) {
            self.diags.error(
                keyset.span,
                format!(
                    "value set `{}` over several keys takes keys of at most 64 bits",
                    p.name.name
                ),
            );
        }
        Some(Keyset::ValueSet(id))
    }

    /// Value set `id` as the keyset of a select on one key of `width`
    /// bits: its element must be one bit string of that width (a struct of
    /// several members needs as many keys).
    pub(super) fn single_key_value_set(
        &mut self,
        id: ValueSetId,
        width: u32,
        keyset: &ast::Expr,
    ) -> Keyset {
        let widths = self.value_set_widths(id);
        if widths != [Some(width)] {
            let name = self
                .prog
                .value_sets
                .get(id.index())
                .map_or("", |v| v.name.as_str());
            self.diags.error(
                keyset.span,
                format!(
                    "value set `{name}` holds members of {} bits; the select's key has {width} bits",
                    shown(&widths)
                ),
            );
        }
        Keyset::ValueSet(id)
    }

    /// The widths of the bit-string members of value set `id`'s element
    /// type, nested structs flattened in order.
    fn value_set_widths(&self, id: ValueSetId) -> Vec<Option<u32>> {
        fn walk(l: &Lowerer, ty: &Ty, out: &mut Vec<Option<u32>>) {
            match ty {
                Ty::Struct(a) => {
                    for f in l
                        .env
                        .aggregates
                        .get(a.index())
                        .map_or(&[][..], |g| &g.fields)
                    {
                        walk(l, &f.ty, out);
                    }
                }
                _ => out.push(ty.width()),
            }
        }
        let mut out = vec![];
        if let Some(vs) = self.prog.value_sets.get(id.index()) {
            walk(self, &vs.ty, &mut out);
        }
        out
    }
}

/// `16, 3` (`?` for what is not a bit string).
fn shown(widths: &[Option<u32>]) -> String {
    let each: Vec<String> = widths
        .iter()
        .map(|w| w.map_or("?".into(), |w| w.to_string()))
        .collect();
    each.join(", ")
}
