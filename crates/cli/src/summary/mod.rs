//! The one-paragraph summary `p4bpf check` prints for a valid program: what
//! `main` instantiates and how many of each kind of block the program
//! declares.
//!
//! `main` comes from the checker's instance tree ([`main_tree`]), or as
//! written when the checker produced none. The declaration counts come from
//! the AST; those from our built-in architecture files are counted apart,
//! so the numbers describe the program, not `core.p4`.

mod main_tree;

use main_tree::InstanceCounts;
use p4bpf_front::ast::{Decl, DeclKind, TypedefTarget};
use p4bpf_front::Frontend;
use std::fmt::Write;

/// How many declarations of each kind, and parser states in all.
#[derive(Debug, Default, PartialEq, Eq)]
struct Counts {
    parsers: usize,
    states: usize,
    controls: usize,
    tables: usize,
    actions: usize,
    functions: usize,
    externs: usize,
    headers: usize,
    structs: usize,
    packages: usize,
}

impl Counts {
    /// Counts `decl` and the declarations nested in it.
    fn add(&mut self, decl: &Decl) {
        match &decl.kind {
            DeclKind::Parser { locals, states, .. } => {
                self.parsers += 1;
                self.states += states.len();
                locals.iter().for_each(|d| self.add(d));
            }
            DeclKind::Control { locals, .. } => {
                self.controls += 1;
                locals.iter().for_each(|d| self.add(d));
            }
            DeclKind::Table { .. } => self.tables += 1,
            DeclKind::Action { .. } => self.actions += 1,
            DeclKind::Function { .. } => self.functions += 1,
            DeclKind::ExternType { .. } | DeclKind::ExternFunction { .. } => self.externs += 1,
            DeclKind::Header { .. } | DeclKind::HeaderUnion { .. } => self.headers += 1,
            DeclKind::Struct { .. } => self.structs += 1,
            DeclKind::PackageType { .. } => self.packages += 1,
            DeclKind::Typedef {
                target: TypedefTarget::Decl(inner),
                ..
            }
            | DeclKind::NewType {
                target: TypedefTarget::Decl(inner),
                ..
            } => self.add(inner),
            _ => {}
        }
    }

    /// `1 parser (4 states), 2 controls, ...`, leaving out kinds with none.
    fn describe(&self) -> String {
        let mut parts = Vec::new();
        if self.parsers > 0 {
            parts.push(format!(
                "{} ({})",
                plural(self.parsers, "parser"),
                plural(self.states, "state")
            ));
        }
        for (n, what) in [
            (self.controls, "control"),
            (self.tables, "table"),
            (self.actions, "action"),
            (self.functions, "function"),
            (self.externs, "extern"),
            (self.headers, "header"),
            (self.structs, "struct"),
            (self.packages, "package type"),
        ] {
            if n > 0 {
                parts.push(plural(n, what));
            }
        }
        if parts.is_empty() {
            "nothing".to_string()
        } else {
            parts.join(", ")
        }
    }
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// The paragraph for a program the front end accepted.
pub fn describe(file: &str, fe: &Frontend) -> String {
    let mut own = Counts::default();
    let mut builtin = Counts::default();
    for decl in &fe.program.decls {
        if is_builtin(fe, decl) {
            builtin.add(decl);
        } else {
            own.add(decl);
        }
    }
    let mut text = format!("{file}: no errors. ");
    let checked_main = fe
        .checked
        .as_ref()
        .and_then(|c| Some((c.main.as_ref()?, &c.types)));
    match (checked_main, main_as_written(fe)) {
        (Some((main, types)), _) => {
            let counts = InstanceCounts::of(main, types);
            let _ = write!(
                text,
                "`main` instantiates `{}`: {}, {} and {} in all. ",
                main_tree::render(main, types),
                plural(counts.parsers, "parser instance"),
                plural(counts.controls, "control instance"),
                plural(counts.externs, "extern instance")
            );
        }
        (None, Some(main)) => {
            let _ = write!(text, "`main` is declared as `{main}`. ");
        }
        (None, None) => text.push_str("No `main` package instance is declared. "),
    }
    let _ = write!(text, "The program declares {}", own.describe());
    if builtin != Counts::default() {
        let _ = write!(text, "; the architecture files add {}", builtin.describe());
    }
    text.push('.');
    text
}

/// True when `decl` was written in one of our built-in include files.
fn is_builtin(fe: &Frontend, decl: &Decl) -> bool {
    fe.unit
        .resolve(decl.span)
        .is_some_and(|loc| fe.sources.file(loc.file).builtin)
}

/// `Pkg(Parser(), Control())` as written in `Pkg(Parser(), Control()) main;`.
fn main_as_written(fe: &Frontend) -> Option<String> {
    fe.program.decls.iter().find_map(|decl| match &decl.kind {
        DeclKind::Instance { ty, args, name, .. } if name.name == "main" => {
            let args: Vec<&str> = args.iter().map(|a| fe.unit.slice(a.span).trim()).collect();
            Some(format!(
                "{}({})",
                fe.unit.slice(ty.span).trim(),
                args.join(", ")
            ))
        }
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describes_only_kinds_present_with_plurals() {
        let counts = Counts {
            parsers: 1,
            states: 3,
            tables: 2,
            actions: 1,
            ..Counts::default()
        };
        assert_eq!(counts.describe(), "1 parser (3 states), 2 tables, 1 action");
        assert_eq!(Counts::default().describe(), "nothing");
    }

    #[test]
    fn summarises_main_and_the_program_apart_from_the_architecture() {
        let program = "#include <core.p4>\n#include <ebpf_model.p4>\n\
            struct h_t {}\n\
            parser prs(packet_in p, out h_t h) { state start { transition accept; } }\n\
            control filt(inout h_t h, out bool pass) {\n\
                action allow() { pass = true; }\n\
                table t { actions = { allow; } default_action = allow(); }\n\
                apply { pass = false; t.apply(); }\n\
            }\n\
            ebpfFilter(prs(), filt()) main;\n";
        let fe =
            p4bpf_front::check_source(std::path::Path::new("f.p4"), program, &Default::default());
        assert!(!fe.has_errors(), "{:?}", fe.diagnostics.list);
        let text = describe("f.p4", &fe);
        assert!(text.starts_with("f.p4: no errors. `main` instantiates `ebpfFilter(prs = prs(), filt = filt())`: 1 parser instance, 1 control instance and 0 extern instances in all."), "{text}");
        assert!(text.contains("The program declares 1 parser (1 state), 1 control, 1 table, 1 action, 1 struct; the architecture files add"), "{text}");
    }
}
