//! P4TC's `@tc_acl("CP:DP")` on a table: the control plane's permissions
//! (before the colon) and the data plane's (after). The control plane's
//! go into the pipeline description for `p4bpf table`; the data plane's
//! are checked here against the program's `add_entry` calls.

use super::Lowerer;
use crate::ir::TcAcl;
use p4bpf_front::ast;

/// The letters each side may hold: create, read, update, delete,
/// publish, subscribe, execute.
const LETTERS: &str = "CRUDPSX";

impl<'a, 'u> Lowerer<'a, 'u> {
    /// The table's `@tc_acl`, if it has a well-formed one.
    pub(super) fn tc_acl(&mut self, annotations: &[ast::Annotation]) -> Option<TcAcl> {
        let annotation = annotations.iter().find(|a| a.name.name == "tc_acl")?;
        let text = Self::annotation_string(annotations, "tc_acl");
        let parsed = text.as_deref().and_then(|t| {
            let (control, data) = t.split_once(':')?;
            let valid = |s: &str| s.chars().all(|c| LETTERS.contains(c));
            (valid(control) && valid(data)).then(|| TcAcl {
                annotation: t.to_string(),
                control: control.to_string(),
                data: data.to_string(),
            })
        });
        if parsed.is_none() {
            self.diags.error(
                annotation.span,
                format!(
                    "`@tc_acl` takes a string \"CONTROL:DATA\" of permission letters from {LETTERS} (e.g. \"CRUDPS:RX\")"
                ),
            );
        }
        parsed
    }
}
