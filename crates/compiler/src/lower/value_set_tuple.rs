//! A value set matched against several select keys at once:
//! `value_set<vs_t>(4) pvs; ... select(a, b) { pvs: next; }`, where `vs_t`
//! is a struct with one member per key, in order (nested structs count
//! their members). Its map is looked up exactly, so a member that asks
//! for another match kind (`@match(ternary)`) is refused.

use super::{Binding, Lowerer};
use crate::ir::{Expr, Keyset, Ty, ValueSetId};
use p4bpf_front::ast::{self, AnnotationBody, DeclKind, ExprKind as A};

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
        if let Some(kind) = self.non_exact_member(id) {
            self.diags.error(
                keyset.span,
                format!("value set `{}` has a `@match({kind})` member: the eBPF target matches value sets exactly", p.name.name),
            );
        }
        Some(Keyset::ValueSet(id))
    }

    /// The first match kind other than `exact` that a member of value set
    /// `id`'s element struct asks for with `@match(kind)`.
    fn non_exact_member(&self, id: ValueSetId) -> Option<String> {
        let vs = self.prog.value_sets.get(id.index())?;
        let Ty::Struct(a) = vs.ty else {
            return None;
        };
        let name = &self.env.aggregates.get(a.index())?.name;
        let DeclKind::Struct { fields, .. } = &self.env.decl(name)?.kind else {
            return None;
        };
        fields
            .iter()
            .flat_map(|f| &f.annotations)
            .filter(|a| a.name.name == "match")
            .find_map(|a| match &a.body {
                AnnotationBody::Expressions(e) => match e.first().map(|e| &e.kind) {
                    Some(A::Path(kind)) if kind.name.name != "exact" => {
                        Some(kind.name.name.clone())
                    }
                    _ => None,
                },
                _ => None,
            })
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
