//! How a value set's members are matched, field by field. P4_16 (12.14)
//! lets a struct element type say `@match(kind)` on its fields; P4Runtime
//! then writes each member as one `FieldMatch` per field, of that kind. A
//! set whose fields are all exact stays a hash set (one lookup); any other
//! kind (ternary, lpm, range, optional) makes it an array of slots that a
//! select scans (see `emit/value_set_scan.rs`), whose fields are compared
//! as host integers, so they are at most 64 bits wide. The verifier walks
//! every round of the scan, and refuses a walk of more than 8192 jumps:
//! a scanned set's size is bounded by [`SCAN_JUMP_BUDGET`] jumps (measured
//! on kernel 6.18: one field, 1228 members load and 2048 do not; three
//! fields, 768 load and 1024 do not; six fields, 560 load).

use super::Lowerer;
use crate::ir::{MatchKind, Ty};
use p4bpf_front::ast::{self, ExprKind as A};
use p4bpf_front::source::Span;

/// Verifier jumps a scanned set may cost, at `3 + 2 * fields` a slot:
/// three quarters of the verifier's limit, as a margin.
const SCAN_JUMP_BUDGET: u32 = 6144;

impl Lowerer<'_, '_> {
    /// Reports a scanned set too large for the verifier to follow its scan.
    pub(super) fn check_scanned_size(&mut self, set: &str, size: u32, fields: usize, at: Span) {
        let most = SCAN_JUMP_BUDGET / (3 + 2 * fields as u32);
        if size > most {
            self.diags.error(
                at,
                format!(
                    "value set `{set}` has inexact members, so a select scans its {size} slots; the kernel verifier follows a scan of at most {most} slots of {fields} field(s)"
                ),
            );
        }
    }

    /// The match kind of each bit-string leaf of value set element type
    /// `ty`, nested structs flattened in order. Reports kinds p4bpf does
    /// not match and inexact fields wider than 64 bits.
    pub(super) fn value_set_match_kinds(&mut self, set: &str, ty: &Ty, at: Span) -> Vec<MatchKind> {
        let mut leaves = vec![];
        self.leaf_match_kinds(set, ty, MatchKind::Exact, &mut leaves);
        let scans = leaves.iter().any(|(k, _)| *k != MatchKind::Exact);
        if scans && leaves.iter().any(|(_, w)| w.is_none_or(|w| w > 64)) {
            self.diags.error(
                at,
                format!("value set `{set}` has inexact members, so each of its fields must be a bit string of at most 64 bits"),
            );
        }
        leaves.into_iter().map(|(kind, _)| kind).collect()
    }

    fn leaf_match_kinds(
        &mut self,
        set: &str,
        ty: &Ty,
        kind: MatchKind,
        out: &mut Vec<(MatchKind, Option<u32>)>,
    ) {
        let Ty::Struct(agg) = ty else {
            out.push((kind, ty.width()));
            return;
        };
        let Some(name) = self.env.aggregates.get(agg.index()).map(|a| a.name.clone()) else {
            return;
        };
        let Some(ast::DeclKind::Struct { fields, .. }) = self.env.decl(&name).map(|d| &d.kind)
        else {
            return;
        };
        let leaf_types: Vec<Ty> = self
            .env
            .aggregates
            .get(agg.index())
            .map(|a| a.fields.iter().map(|f| f.ty.clone()).collect())
            .unwrap_or_default();
        for (field, field_ty) in fields.iter().zip(leaf_types) {
            let kind = self.field_match_kind(set, field, &field_ty);
            self.leaf_match_kinds(set, &field_ty, kind, out);
        }
    }

    /// The kind `field`'s `@match` names (exact without one).
    fn field_match_kind(&mut self, set: &str, field: &ast::Field, ty: &Ty) -> MatchKind {
        let Some(annotation) = field.annotations.iter().find(|a| a.name.name == "match") else {
            return MatchKind::Exact;
        };
        let ast::AnnotationBody::Expressions(args) = &annotation.body else {
            return MatchKind::Exact;
        };
        let [ast::Expr {
            kind: A::Path(path),
            ..
        }] = args.as_slice()
        else {
            self.diags.error(
                annotation.span,
                format!("value set `{set}`: `@match` takes one match kind"),
            );
            return MatchKind::Exact;
        };
        let kind = match path.name.name.as_str() {
            "exact" => MatchKind::Exact,
            "ternary" => MatchKind::Ternary,
            "lpm" => MatchKind::Lpm,
            "range" => MatchKind::Range,
            "optional" => MatchKind::Optional,
            other => {
                self.diags.error(
                    annotation.span,
                    format!(
                        "value set `{set}`: member `{}` is `@match({other})`; p4bpf matches value set members by exact, ternary, lpm, range or optional",
                        field.name.name
                    ),
                );
                return MatchKind::Exact;
            }
        };
        let width = ty.width();
        if kind != MatchKind::Exact && width.is_none_or(|w| w > 64) {
            self.diags.error(
                annotation.span,
                format!(
                    "value set `{set}`: member `{}` is `@match({})` over {}; p4bpf matches such members when they are bit strings of at most 64 bits",
                    field.name.name,
                    path.name.name,
                    width.map_or("a value that is not a bit string".into(), |w| format!("{w} bits"))
                ),
            );
        }
        kind
    }
}
