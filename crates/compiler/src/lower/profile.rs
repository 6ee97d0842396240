//! Action profiles and selectors: their instances (declared, or written
//! inline as a table's `implementation`), the table properties naming them
//! (`implementation`, `psa_implementation`, `pna_implementation`,
//! `psa_empty_group_action`) and the `selector` keys hashed to pick a
//! group's member. Tables sharing a profile may list different actions:
//! members take codes over all of them (`ActionProfile::actions`).

use super::{Binding, Lowerer};
use crate::arch::Object;
use crate::ir::{
    ActionProfile, Expr, HashAlgorithm, ProfileId, Selector, TableId, TableImplementation,
};
use num_traits::ToPrimitive;
use p4bpf_front::ast::{self, ExprKind as A};
use p4bpf_front::check::Value;
use p4bpf_front::source::Span;

/// Members a selector's group may hold when `@max_group_size` does not
/// say: a group is one map value (a count and this many member ids).
const DEFAULT_GROUP_SIZE: u32 = 128;
/// The most `@max_group_size` may ask for (a group stays under 4 KiB).
const MAX_GROUP_SIZE: u32 = 1000;

/// A table's profile-related properties, gathered while its properties
/// are read.
#[derive(Default)]
pub(super) struct ProfileProperties<'a> {
    pub profile: Option<ProfileId>,
    /// The hash inputs of an action selector; without one they select
    /// nothing and the table matches its other keys (p4c's P4Info leaves
    /// `selector` keys out of the table's match fields).
    pub selector_keys: Vec<Expr>,
    pub empty_group_action: Option<&'a ast::Expr>,
    /// `const psa_empty_group_action`: compiled in, not for the control
    /// plane to change.
    pub empty_group_const: bool,
    /// The profile came by `psa_implementation`: PSA's empty group action
    /// rules apply.
    pub psa: bool,
}

impl<'a, 'u> Lowerer<'a, 'u> {
    /// `action_profile(size)`, `ActionSelector(algorithm, size, width)`
    /// and their kin, named `name` (already the control-plane name when
    /// `dotted` is false).
    pub(super) fn profile_instance(
        &mut self,
        type_name: &str,
        name: &str,
        args: &[ast::Argument],
        decl: &ast::Decl,
    ) -> Option<ProfileId> {
        let p4 = self.dotted(name);
        self.new_profile(type_name, p4, args, &decl.annotations, decl.span)
    }

    fn new_profile(
        &mut self,
        type_name: &str,
        p4: String,
        args: &[ast::Argument],
        annotations: &[ast::Annotation],
        span: Span,
    ) -> Option<ProfileId> {
        let object = self.arch.and_then(|a| a.object(type_name));
        let (size, selector) = match (object, args) {
            (Some(Object::ActionProfile), [size]) => (size, None),
            (Some(Object::ActionSelector), [algorithm, size, _width]) => {
                let selector = self.selector(type_name, algorithm, annotations)?;
                (size, Some(selector))
            }
            _ => {
                self.diags.error(
                    span,
                    format!("`{type_name}` takes (size) for a profile, (algorithm, size, output width) for a selector"),
                );
                return None;
            }
        };
        let size = self.env.const_u32(&size.value, &mut self.diags)?;
        let c_name = self.c_name(&p4);
        let p4_id = self.id_annotation(annotations);
        let id = ProfileId(self.prog.profiles.len() as u32);
        self.prog.profiles.push(ActionProfile {
            name: p4,
            c_name,
            size: size.max(1),
            selector,
            p4_id,
            tables: vec![],
            actions: vec![],
        });
        Some(id)
    }

    fn selector(
        &mut self,
        type_name: &str,
        algorithm: &ast::Argument,
        annotations: &[ast::Annotation],
    ) -> Option<Selector> {
        let member = match self.env.value(&algorithm.value) {
            Some(Value::Member { member, .. }) => member.clone(),
            _ => String::new(),
        };
        let span = algorithm.span;
        let Some(algorithm) = selector_algorithm(&member) else {
            self.diags.error(
                span,
                format!("`{type_name}` hashes with an algorithm p4bpf computes (crc16, crc32, csum16, xor16, identity, or PSA's and PNA's names of them), not `{member}`"),
            );
            return None;
        };
        let declared = self.number_annotation(annotations, "max_group_size");
        if declared > MAX_GROUP_SIZE {
            self.diags.error(
                span,
                format!("`@max_group_size` may be at most {MAX_GROUP_SIZE} on the eBPF target"),
            );
            return None;
        }
        Some(Selector {
            algorithm,
            max_group_size: if declared == 0 {
                DEFAULT_GROUP_SIZE
            } else {
                declared
            },
            declared_max_group_size: declared,
        })
    }

    /// `@NAME(N)` as a number, 0 when absent or not an integer literal.
    fn number_annotation(&self, annotations: &[ast::Annotation], name: &str) -> u32 {
        let body = annotations
            .iter()
            .find(|a| a.name.name == name)
            .map(|a| &a.body);
        match body {
            Some(ast::AnnotationBody::Expressions(list)) => match list.first().map(|e| &e.kind) {
                Some(A::Int(lit)) => lit.value.to_u32().unwrap_or(0),
                _ => 0,
            },
            _ => 0,
        }
    }

    /// Whether `value`, a table's implementation, is a profile or selector
    /// (an instance's name or an inline instantiation), not ebpf_model's
    /// `hash_table(N)`.
    pub(super) fn names_profile(&self, value: &ast::Expr) -> bool {
        match &value.kind {
            A::Path(p) => matches!(self.lookup(&p.name.name), Some(Binding::Profile(_))),
            A::Call { callee, .. } => match &callee.kind {
                A::Path(p) => matches!(
                    self.arch.and_then(|a| a.object(&p.name.name)),
                    Some(Object::ActionProfile | Object::ActionSelector)
                ),
                _ => false,
            },
            _ => false,
        }
    }

    /// The profile a table's implementation property names; an inline
    /// instance takes the property's `@name`, else the table's name.
    pub(super) fn implementation_profile(
        &mut self,
        prop: &ast::TableProperty,
        value: &ast::Expr,
        table: &str,
    ) -> Option<ProfileId> {
        match &value.kind {
            A::Path(p) => match self.lookup(&p.name.name) {
                Some(Binding::Profile(id)) => Some(id),
                _ => None,
            },
            A::Call { callee, args, .. } => {
                let A::Path(p) = &callee.kind else {
                    return None;
                };
                let p4 = match Self::annotation_string(&prop.annotations, "name") {
                    Some(n) => self.dotted(&n),
                    None => table.to_string(),
                };
                self.new_profile(&p.name.name, p4, args, &prop.annotations, value.span)
            }
            _ => None,
        }
    }

    /// A `selector` key: a field hashed to pick a group member, a wide
    /// field as its 64-bit slices (what the hash takes).
    pub(super) fn selector_key(&mut self, k: &'a ast::KeyElement) -> Vec<Expr> {
        let Some(expr) = self.expr(&k.expr) else {
            return vec![];
        };
        if !self.pending.is_empty() || expr.ty.width().is_none() {
            self.pending.clear();
            self.diags.error(
                k.expr.span,
                "a `selector` key must be a bit string or bool read without applying a table or calling a function",
            );
            return vec![];
        }
        let mut slices = vec![];
        self.flatten(expr, &mut slices);
        slices
    }

    /// The table's implementation once its actions are known, checked
    /// against what the target and the other tables sharing the profile
    /// need; the table is recorded among the profile's.
    pub(super) fn table_implementation(
        &mut self,
        found: ProfileProperties<'a>,
        table: TableId,
        actions: &[crate::ir::ActionId],
    ) -> Option<TableImplementation> {
        let selects = found
            .profile
            .and_then(|p| self.prog.profile(p))
            .is_some_and(|p| p.selector.is_some());
        if let (Some(e), false) = (found.empty_group_action, selects) {
            self.diags.error(
                e.span,
                "`psa_empty_group_action` needs an `ActionSelector` as `psa_implementation`",
            );
            return None;
        }
        let profile = found.profile?;
        let empty_group_action = match found.empty_group_action {
            Some(e) => {
                let call = self.action_call(e)?;
                if !actions.contains(&call.action) {
                    self.diags.error(
                        e.span,
                        "`psa_empty_group_action` must be one of the table's actions",
                    );
                    return None;
                }
                Some(call)
            }
            None => None,
        };
        if let Some(p) = self.prog.profiles.get_mut(profile.index()) {
            p.tables.push(table);
            for a in actions {
                if !p.actions.contains(a) {
                    p.actions.push(*a);
                }
            }
        }
        Some(TableImplementation {
            profile,
            selector_keys: found.selector_keys,
            empty_group_action,
            // PSA's property, written or (under `psa_implementation`)
            // implied as `NoAction`, is the control plane's unless `const`.
            empty_group_runtime: selects
                && !found.empty_group_const
                && (found.psa || found.empty_group_action.is_some()),
        })
    }
}

/// A selector's algorithm by v1model's name (`crc32`) or PSA's and PNA's
/// (`CRC32`); v1model's `random` picks no member the same way twice, so
/// it is not one.
fn selector_algorithm(member: &str) -> Option<HashAlgorithm> {
    match super::hash::algorithm(member) {
        Some(super::hash::Algorithm::Hash(a)) => Some(a),
        _ => super::value_externs::algorithm(member),
    }
}
