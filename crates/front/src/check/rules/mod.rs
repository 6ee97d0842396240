//! Structural rules of P4_16 that need no types: duplicate names, parser
//! states and transitions, table properties, statement placement. (Stub.)

use crate::ast::Program;
use crate::diag::Diagnostics;
use crate::source::TranslationUnit;

pub fn check_rules(_program: &Program, _unit: &TranslationUnit, _diags: &mut Diagnostics) {}
