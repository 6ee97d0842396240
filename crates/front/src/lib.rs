//! The P4_16 front end of p4bpf.
//!
//! One straight path, each stage its own module:
//! [`preprocess`] (text + `#include`/`#define` → one translation unit with a
//! map back to the files) → [`lexer`] (tokens) → [`parser`] (AST, [`ast`]) →
//! [`check`] (name resolution, types, constants, instantiation of `main`).
//! Every stage reports problems as [`diag::Diagnostic`]s and keeps going; no
//! input makes it panic.

pub mod ast;
pub mod check;
pub mod diag;
pub mod lexer;
pub mod p4include;
pub mod parser;
pub mod preprocess;
pub mod source;

use diag::Diagnostics;
use source::{SourceMap, TranslationUnit};
use std::path::{Path, PathBuf};

/// What the command line passes to the front end.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `-I DIR`, searched in order after the including file's folder (for
    /// quoted includes) and before the built-in architecture files.
    pub include_dirs: Vec<PathBuf>,
    /// `-D NAME[=VALUE]`; a define without a value is `1`, as in cpp.
    pub defines: Vec<(String, String)>,
}

/// Everything the front end learned about one program.
pub struct Frontend {
    pub sources: SourceMap,
    pub unit: TranslationUnit,
    pub program: ast::Program,
    pub checked: Option<check::CheckedProgram>,
    pub diagnostics: Diagnostics,
}

impl Frontend {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.has_errors()
    }
}

/// Runs the whole front end on one file.
pub fn check_file(path: &Path, options: &Options) -> Frontend {
    match std::fs::read(path) {
        Ok(bytes) => check_source(path, &String::from_utf8_lossy(&bytes), options),
        Err(e) => {
            let mut diagnostics = Diagnostics::default();
            diagnostics.error(None, format!("cannot read {}: {e}", path.display()));
            Frontend {
                sources: SourceMap::new(),
                unit: TranslationUnit::default(),
                program: ast::Program::default(),
                checked: None,
                diagnostics,
            }
        }
    }
}

/// Runs the whole front end on `text`, the contents of the main file at
/// `path` (whose folder is searched first by quoted includes). Type checking
/// runs only when parsing produced no errors, so one mistake is not
/// reported twice.
pub fn check_source(path: &Path, text: &str, options: &Options) -> Frontend {
    // The parser and checker recurse once per nesting level of the program
    // (bounded by the parser's depth limit); debug builds use large frames.
    // A thread of our own gives them a stack that holds whatever the limit
    // lets through, whoever calls us.
    const STACK_BYTES: usize = 256 << 20;
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("p4bpf-front".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, || run_stages(path, text, options));
        match worker {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => run_stages(path, text, options),
        }
    })
}

fn run_stages(path: &Path, text: &str, options: &Options) -> Frontend {
    let mut sources = SourceMap::new();
    let mut diagnostics = Diagnostics::default();
    let unit = preprocess::preprocess(path, text, options, &mut sources, &mut diagnostics);
    let tokens = lexer::tokenize(&unit, &mut diagnostics);
    let program = parser::parse(&unit, &tokens, &mut diagnostics);
    let checked = if diagnostics.has_errors() {
        None
    } else {
        Some(check::check(&program, &unit, &mut diagnostics))
    };
    Frontend {
        sources,
        unit,
        program,
        checked,
        diagnostics,
    }
}
