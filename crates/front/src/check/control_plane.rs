//! Control-plane names of what each instance of a parser or control holds
//! (tables, value sets, extern instances): the control plane addresses them
//! by fully-qualified name, so no two may share one (spec 18.3.3). A name
//! is hierarchical (the instance path, then the local name) unless
//! `@name(".x")` makes it absolute: a block instantiated twice then gives
//! two entities the same name. Actions are named per declaration and
//! checked with the structural rules.

use super::instantiate::{Instance, InstanceArg, InstanceKind};
use super::rules::name_annotation;
use super::types::Type;
use super::Checker;
use crate::ast::{Decl, DeclKind, Program};
use crate::diag::Diagnostic;
use crate::source::Span;
use std::collections::HashMap;

/// Where an absolute name was first given: the instance that holds the
/// entity and the entity's declaration.
struct Claim<'p> {
    holder: Span,
    holder_name: String,
    decl: &'p Decl,
}

impl Checker<'_> {
    pub(super) fn control_plane_names(&mut self, program: &Program, main: &Instance) {
        let mut claims: HashMap<String, Claim> = HashMap::new();
        self.claim_names(program, main, &mut claims, 0);
    }

    fn claim_names<'p>(
        &mut self,
        program: &'p Program,
        instance: &Instance,
        claims: &mut HashMap<String, Claim<'p>>,
        depth: usize,
    ) {
        if depth > 64 {
            return;
        }
        if matches!(instance.kind, InstanceKind::Parser | InstanceKind::Control) {
            for local in self.block_locals(program, &instance.ty) {
                self.claim_local(instance, local, claims);
            }
        }
        let nested = instance.args.iter().filter_map(|(_, a)| match a {
            InstanceArg::Instance(i) => Some(&**i),
            _ => None,
        });
        for inner in nested.chain(&instance.children) {
            self.claim_names(program, inner, claims, depth + 1);
        }
    }

    /// The local declarations of the parser or control an instance is of.
    fn block_locals<'p>(&self, program: &'p Program, ty: &Type) -> &'p [Decl] {
        let Type::Named { id, .. } = ty else {
            return &[];
        };
        let Some(def) = self.types.get(*id) else {
            return &[];
        };
        program
            .decls
            .iter()
            .find_map(|d| match &d.kind {
                DeclKind::Parser { sig, locals, .. } | DeclKind::Control { sig, locals, .. }
                    if sig.name.name == def.name && sig.name.span == def.span =>
                {
                    Some(locals.as_slice())
                }
                _ => None,
            })
            .unwrap_or_default()
    }

    fn claim_local<'p>(
        &mut self,
        holder: &Instance,
        local: &'p Decl,
        claims: &mut HashMap<String, Claim<'p>>,
    ) {
        // Each kind of entity has its own names (a direct meter may share
        // its table's name).
        let kind = match &local.kind {
            DeclKind::Table { .. } => "table",
            DeclKind::ValueSet { .. } => "value set",
            DeclKind::Instance { .. } => "extern instance",
            _ => return,
        };
        let Some(absolute) = name_annotation(&local.annotations).filter(|n| n.starts_with('.'))
        else {
            return;
        };
        let name = format!("{kind} {absolute}");
        let own = local.name().map_or("", |n| n.name.as_str());
        match claims.get(&name) {
            Some(first) => {
                let other = first.decl.name().map_or("", |n| n.name.as_str());
                let message = format!(
                    "{kind} `{own}` in `{}` has control-plane name `{absolute}`, already given to `{other}` in `{}`",
                    holder.name, first.holder_name
                );
                let d = Diagnostic::error(self.unit.resolve(holder.span), message)
                    .with_note(self.unit.resolve(local.span), "the name is given here")
                    .with_note(self.unit.resolve(first.holder), "the other instance");
                self.diags.push(d);
            }
            None => {
                claims.insert(
                    name,
                    Claim {
                        holder: holder.span,
                        holder_name: holder.name.clone(),
                        decl: local,
                    },
                );
            }
        }
    }
}
