//! Recursive-descent parser for P4_16. (Stub.)

use crate::ast::Program;
use crate::diag::Diagnostics;
use crate::lexer::Token;
use crate::source::TranslationUnit;

pub fn parse(_unit: &TranslationUnit, _tokens: &[Token], _diags: &mut Diagnostics) -> Program {
    Program::default()
}
