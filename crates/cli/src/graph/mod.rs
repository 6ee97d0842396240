//! `p4bpf graph PROGRAM.p4 [-o DIR]`: pictures of a program, as p4c's
//! graphs back end draws them: each parser's state machine and each
//! control's flow of tables, conditions and actions, as DOT and SVG.

mod control_flow;
mod dot;
mod parser_flow;
mod svg;

use crate::args::{self, Args, UsageError};
use p4bpf_front::ast::{Decl, DeclKind};
use p4bpf_front::source::{SourceMap, Span, TranslationUnit};
use p4bpf_front::Options;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub const USAGE: &str = "\
usage: p4bpf graph PROGRAM.p4 [-o DIR] [-I DIR]... [-D NAME[=VALUE]]...

Draws each parser of the program as its state machine (states with what
they extract and select on, edges labelled with the select cases) and each
control as its flow (tables with keys and actions, conditions, actions and
controls called directly, `exit`). Writes DIR/NAME.dot and DIR/NAME.svg per
parser or control (DIR defaults to the current folder). SVG needs Graphviz's
`dot` (Debian package graphviz).
";

#[derive(Debug)]
struct Request {
    file: PathBuf,
    out_dir: PathBuf,
    options: Options,
}

fn parse(mut words: Args) -> Result<Request, UsageError> {
    let mut file = None;
    let mut out_dir = PathBuf::from(".");
    let mut options = Options::default();
    while let Some(word) = words.next_word() {
        if args::front_option(&mut words, &word, &mut options)? {
            continue;
        } else if let Some(dir) = words.option(&word, "-o")? {
            out_dir = dir.into();
        } else {
            args::take_input(&mut file, word, "input file")?;
        }
    }
    let file = file.ok_or_else(|| UsageError::new("missing the P4 file to draw"))?;
    Ok(Request {
        file,
        out_dir,
        options,
    })
}

pub fn run(words: Args) -> ExitCode {
    let request = match parse(words) {
        Ok(request) => request,
        Err(e) => return e.report(Some("graph")),
    };
    let fe = p4bpf_front::check_file(&request.file, &request.options);
    for d in &fe.diagnostics.list {
        eprint!("{}", d.render(&fe.sources));
    }
    if fe.has_errors() {
        return ExitCode::FAILURE;
    }
    let text = Text {
        unit: &fe.unit,
        sources: &fe.sources,
    };
    let graphs = program_graphs(&fe.program.decls, &text);
    if graphs.is_empty() {
        eprintln!(
            "p4bpf: error: {} declares no parser or control to draw",
            request.file.display()
        );
        return ExitCode::FAILURE;
    }
    match write_all(&graphs, &request.out_dir) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("p4bpf: error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// One graph per parser and control the program itself declares (not
/// those of the architecture files it includes).
fn program_graphs(decls: &[Decl], text: &Text) -> Vec<dot::Graph> {
    let global_actions: HashSet<String> = decls
        .iter()
        .filter_map(|d| match &d.kind {
            DeclKind::Action { sig, .. } => Some(sig.name.name.clone()),
            _ => None,
        })
        .collect();
    decls
        .iter()
        .filter(|d| !text.is_builtin(d.span))
        .filter_map(|d| match &d.kind {
            DeclKind::Parser { sig, states, .. } => {
                Some(parser_flow::graph(&sig.name.name, states, text))
            }
            DeclKind::Control {
                sig, locals, apply, ..
            } => Some(control_flow::graph(
                &sig.name.name,
                locals,
                apply,
                &global_actions,
                text,
            )),
            _ => None,
        })
        .collect()
}

fn write_all(graphs: &[dot::Graph], out_dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(out_dir)
        .map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;
    for g in graphs {
        let dot_text = g.to_dot();
        let base = out_dir.join(g.name());
        write(&base.with_extension("dot"), &dot_text)?;
        write(&base.with_extension("svg"), &svg::render(&dot_text)?)?;
        println!("{}.{{dot,svg}}", base.display());
    }
    Ok(())
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The program text behind spans, for labels.
struct Text<'a> {
    unit: &'a TranslationUnit,
    sources: &'a SourceMap,
}

impl Text<'_> {
    /// The text of `span` on one line, shortened past 60 characters.
    fn of(&self, span: Span) -> String {
        let words: Vec<&str> = self.unit.slice(span).split_whitespace().collect();
        let line = words.join(" ");
        match line.char_indices().nth(60) {
            Some((cut, _)) => format!("{}...", &line[..cut]),
            None => line,
        }
    }

    fn is_builtin(&self, span: Span) -> bool {
        self.unit
            .resolve(span)
            .is_some_and(|loc| self.sources.file(loc.file).builtin)
    }
}
