//! The rules P4TC's compiler (p4c-tc) adds to P4 for `tc/pna.p4`
//! programs, so a program P4TC refuses is refused here too: a table's
//! hit-default annotations (`@default_hit`, `@default_hit_const`) name at
//! most one action, which is neither `@tableonly` nor both at once;
//! `@tableonly` and `@defaultonly` exclude each other; `@nummask` is an
//! integer; and `InternetChecksum` lives in parsers and deparsers only.

use super::Lowerer;
use crate::arch::{self, BlockKind};
use crate::ir::Arch;
use p4bpf_front::ast::{self, DeclKind, ExprKind, TablePropertyKind, TypeRefKind};

/// The annotations that make an action the default of a hit.
const HIT_DEFAULTS: [&str; 2] = ["default_hit", "default_hit_const"];

impl<'a, 'u> Lowerer<'a, 'u> {
    /// Checks P4TC's rules on the blocks `decls` that fill `blocks`.
    pub(super) fn check_p4tc_rules(&mut self, blocks: &[arch::Block], decls: &[&ast::Decl]) {
        if self.prog.arch != Arch::PnaTc {
            return;
        }
        for (block, decl) in blocks.iter().zip(decls) {
            let DeclKind::Control { locals, .. } = &decl.kind else {
                continue;
            };
            for local in locals {
                match &local.kind {
                    DeclKind::Table { name, properties } => {
                        self.check_nummask(local);
                        self.check_table_annotations(&name.name, properties);
                    }
                    DeclKind::Instance { ty, .. } if block.kind == BlockKind::Control => {
                        self.checksum_outside_deparser(ty, local);
                    }
                    _ => {}
                }
            }
        }
    }

    /// P4TC computes checksums where packets are parsed and deparsed.
    fn checksum_outside_deparser(&mut self, ty: &ast::TypeRef, local: &ast::Decl) {
        if let TypeRefKind::Named { path, .. } = &ty.kind {
            if path.name.name == "InternetChecksum" {
                self.diags.error(
                    local.span,
                    "P4TC computes an `InternetChecksum` in a parser or the deparser, \
                     not in the main control",
                );
            }
        }
    }

    /// `@nummask(N)`: how many masks a ternary table holds, a number.
    fn check_nummask(&mut self, table: &ast::Decl) {
        let Some(annotation) = table.annotations.iter().find(|a| a.name.name == "nummask") else {
            return;
        };
        let is_int = matches!(&annotation.body, ast::AnnotationBody::Expressions(list)
            if matches!(list.as_slice(), [e] if matches!(e.kind, ExprKind::Int(_))));
        if !is_int {
            self.diags.error(
                annotation.span,
                "`@nummask` takes an integer constant: the number of masks",
            );
        }
    }

    /// The action annotations of one table's `actions` list.
    fn check_table_annotations(&mut self, table: &str, properties: &[ast::TableProperty]) {
        let actions = properties.iter().flat_map(|p| match &p.kind {
            TablePropertyKind::Actions(list) => list.as_slice(),
            _ => &[],
        });
        let mut first_of = [None::<&str>; 2];
        for action in actions {
            let name = action.name.name.name.as_str();
            let has = |a: &str| Self::has_annotation(&action.annotations, a);
            let conflict = if has("tableonly") && has("defaultonly") {
                Some("`@tableonly` and `@defaultonly`")
            } else if has("tableonly") && HIT_DEFAULTS.iter().any(|a| has(a)) {
                Some("`@tableonly` and a hit default (`@default_hit` or `@default_hit_const`)")
            } else if HIT_DEFAULTS.iter().all(|a| has(a)) {
                Some("both `@default_hit` and `@default_hit_const`")
            } else {
                None
            };
            if let Some(conflict) = conflict {
                self.diags.error(
                    action.span,
                    format!("table `{table}`: action `{name}` cannot be annotated with {conflict}"),
                );
                continue;
            }
            for (i, annotation) in HIT_DEFAULTS.iter().enumerate() {
                if !has(annotation) {
                    continue;
                }
                match first_of[i] {
                    Some(first) => self.diags.error(
                        action.span,
                        format!(
                            "table `{table}` has one `@{annotation}` action: `{first}` \
                             and `{name}` both claim it"
                        ),
                    ),
                    None => first_of[i] = Some(name),
                }
            }
        }
        if let [Some(hit), Some(hit_const)] = first_of {
            self.diags.error(
                properties.first().map(|p| p.span).unwrap_or_default(),
                format!(
                    "table `{table}` cannot have both a `@default_hit` action (`{hit}`) \
                     and a `@default_hit_const` action (`{hit_const}`)"
                ),
            );
        }
    }
}
