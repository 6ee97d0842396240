//! A small C syntax tree for statements and its printer.
//!
//! Expressions stay strings (the expression emitter parenthesizes them
//! fully); statements are a tree so indentation, blocks and labels are the
//! printer's job alone.

/// One C statement.
#[derive(Clone, Debug)]
pub enum CStmt {
    /// A simple statement; the printer adds the `;`.
    Line(String),
    Comment(String),
    Block(Vec<CStmt>),
    If {
        cond: String,
        then: Vec<CStmt>,
        other: Vec<CStmt>,
    },
    Switch {
        scrutinee: String,
        cases: Vec<(Vec<String>, Vec<CStmt>)>,
        default: Vec<CStmt>,
    },
    /// `for (init; cond; step) { body }`
    For {
        head: String,
        body: Vec<CStmt>,
    },
    Label(String),
    Goto(String),
    Return(String),
    /// Statements from P4 source at `origin`, inside `what` (an action or
    /// a table): printed between marks [`super::source_map`] resolves.
    FromP4 {
        origin: String,
        what: String,
        body: Vec<CStmt>,
    },
}

pub fn line(text: impl Into<String>) -> CStmt {
    CStmt::Line(text.into())
}

/// Prints statements at `depth` levels of four spaces.
pub fn print(stmts: &[CStmt], depth: usize, out: &mut String) {
    for s in stmts {
        print_one(s, depth, out);
    }
}

fn indent(depth: usize, out: &mut String) {
    for _ in 0..depth {
        out.push_str("    ");
    }
}

fn print_one(s: &CStmt, depth: usize, out: &mut String) {
    match s {
        CStmt::Line(text) => {
            indent(depth, out);
            out.push_str(text);
            out.push_str(";\n");
        }
        CStmt::Comment(text) => {
            indent(depth, out);
            out.push_str(&format!("/* {text} */\n"));
        }
        CStmt::Block(body) => {
            indent(depth, out);
            out.push_str("{\n");
            print(body, depth + 1, out);
            indent(depth, out);
            out.push_str("}\n");
        }
        CStmt::If { cond, then, other } => {
            indent(depth, out);
            out.push_str(&format!("if ({cond}) {{\n"));
            print(then, depth + 1, out);
            indent(depth, out);
            match other.as_slice() {
                [] => out.push_str("}\n"),
                [nested @ CStmt::If { .. }] => {
                    out.push_str("} else ");
                    let mut text = String::new();
                    print_one(nested, depth, &mut text);
                    out.push_str(text.trim_start());
                }
                _ => {
                    out.push_str("} else {\n");
                    print(other, depth + 1, out);
                    indent(depth, out);
                    out.push_str("}\n");
                }
            }
        }
        CStmt::Switch {
            scrutinee,
            cases,
            default,
        } => {
            indent(depth, out);
            out.push_str(&format!("switch ({scrutinee}) {{\n"));
            for (labels, body) in cases {
                for l in labels {
                    indent(depth, out);
                    out.push_str(&format!("case {l}:\n"));
                }
                indent(depth, out);
                out.push_str("{\n");
                print(body, depth + 1, out);
                indent(depth + 1, out);
                out.push_str("break;\n");
                indent(depth, out);
                out.push_str("}\n");
            }
            indent(depth, out);
            out.push_str("default:\n");
            indent(depth, out);
            out.push_str("{\n");
            print(default, depth + 1, out);
            indent(depth + 1, out);
            out.push_str("break;\n");
            indent(depth, out);
            out.push_str("}\n");
            indent(depth, out);
            out.push_str("}\n");
        }
        CStmt::For { head, body } => {
            indent(depth, out);
            out.push_str(&format!("for ({head}) {{\n"));
            print(body, depth + 1, out);
            indent(depth, out);
            out.push_str("}\n");
        }
        CStmt::Label(name) => {
            out.push_str(&format!("{name}:;\n"));
        }
        CStmt::Goto(name) => {
            indent(depth, out);
            out.push_str(&format!("goto {name};\n"));
        }
        CStmt::Return(value) => {
            indent(depth, out);
            out.push_str(&format!("return {value};\n"));
        }
        CStmt::FromP4 { origin, what, body } => {
            out.push_str(&format!("{}{origin}\t{what}\n", super::source_map::BEGIN));
            print(body, depth, out);
            out.push_str(super::source_map::END);
            out.push('\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_else_if_chains_flat() {
        let s = CStmt::If {
            cond: "a".into(),
            then: vec![line("x = 1")],
            other: vec![CStmt::If {
                cond: "b".into(),
                then: vec![line("x = 2")],
                other: vec![],
            }],
        };
        let mut out = String::new();
        print(&[s], 1, &mut out);
        assert_eq!(
            out,
            "    if (a) {\n        x = 1;\n    } else if (b) {\n        x = 2;\n    }\n"
        );
    }
}
