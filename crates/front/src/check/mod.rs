//! Name resolution, type checking, constant evaluation and instantiation of
//! `main`. (Stub.)

mod rules;

use crate::ast::Program;
use crate::diag::Diagnostics;
use crate::source::TranslationUnit;

/// The facts the checker established, consumed by the back end.
#[derive(Debug, Default)]
pub struct CheckedProgram {}

pub fn check(program: &Program, unit: &TranslationUnit, diags: &mut Diagnostics) -> CheckedProgram {
    rules::check_rules(program, unit, diags);
    CheckedProgram::default()
}
