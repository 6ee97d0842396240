//! P4TC's `@tc_type("T")` on header and struct fields, action parameters
//! and table keys: how P4TC's control plane shows a value (a MAC or IP
//! address, an interface). p4bpf checks the name, as P4TC's compiler
//! does, and keeps the values as numbers.

use super::Lowerer;
use crate::ir::Arch;
use p4bpf_front::ast::{self, DeclKind, TablePropertyKind};

/// The types P4TC's control plane knows.
const TC_TYPES: &[&str] = &["dev", "macaddr", "ipv4", "ipv6", "be16", "be32", "be64"];

impl<'a, 'u> Lowerer<'a, 'u> {
    /// Checks every `@tc_type` of a P4TC program.
    pub(super) fn check_tc_types(&mut self, program: &ast::Program) {
        if self.prog.arch != Arch::PnaTc {
            return;
        }
        for decl in &program.decls {
            self.tc_types_in(decl);
        }
    }

    fn tc_types_in(&mut self, decl: &ast::Decl) {
        match &decl.kind {
            DeclKind::Header { fields, .. }
            | DeclKind::HeaderUnion { fields, .. }
            | DeclKind::Struct { fields, .. } => {
                for field in fields {
                    self.tc_type(&field.annotations);
                }
            }
            DeclKind::Action { sig, .. } => {
                for param in &sig.params {
                    self.tc_type(&param.annotations);
                }
            }
            DeclKind::Control { locals, .. } => {
                for local in locals {
                    self.tc_types_in(local);
                }
            }
            DeclKind::Table { properties, .. } => {
                for property in properties {
                    if let TablePropertyKind::Key(elements) = &property.kind {
                        for element in elements {
                            self.tc_type(&element.annotations);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    fn tc_type(&mut self, annotations: &[ast::Annotation]) {
        let Some(annotation) = annotations.iter().find(|a| a.name.name == "tc_type") else {
            return;
        };
        match Self::annotation_string(annotations, "tc_type") {
            Some(name) if TC_TYPES.contains(&name.as_str()) => {}
            Some(name) => self.diags.error(
                annotation.span,
                format!(
                    "`@tc_type(\"{name}\")` is not a P4TC type (one of {})",
                    TC_TYPES.join(", ")
                ),
            ),
            None => self
                .diags
                .error(annotation.span, "`@tc_type` takes a type name as a string"),
        }
    }
}
