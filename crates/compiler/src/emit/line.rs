//! `#line` directives: C statements that come from P4 source (action
//! bodies, table applications) carry the P4 file and line, so the BTF line
//! info clang writes, and with it the verifier's log, points at the .p4
//! file. Generated scaffolding keeps the C file's own lines: after each
//! P4 region the printer leaves a marker that [`resolve`] turns into a
//! `#line` back to the C file, once the whole text is known.

use super::c::CStmt;

/// Marker line the printer leaves where a P4 region ends.
pub const BACK_TO_C: &str = "#line p4bpf_back_to_c";

/// `body` marked as coming from `origin` (`file.p4:LINE`, as the lowering
/// notes it); unmarked when the origin is unknown.
pub fn from_p4(origin: &str, body: Vec<CStmt>) -> Vec<CStmt> {
    let Some((file, line)) = origin.rsplit_once(':') else {
        return body;
    };
    match line.parse::<u32>() {
        Ok(line) if !file.is_empty() && !body.is_empty() => vec![CStmt::FromP4 {
            file: file.to_string(),
            line,
            body,
        }],
        _ => body,
    }
}

/// `#line LINE "FILE"`, with the file name escaped as a C string.
pub fn directive(line: u32, file: &str) -> String {
    let escaped: String = file
        .chars()
        .flat_map(|c| match c {
            '"' | '\\' => vec!['\\', c],
            c => vec![c],
        })
        .collect();
    format!("#line {line} \"{escaped}\"")
}

/// `text` with every [`BACK_TO_C`] marker replaced by a directive naming
/// the line after it in `c_file`.
pub fn resolve(text: &str, c_file: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, l) in text.lines().enumerate() {
        if l == BACK_TO_C {
            // Line numbers count from 1; the next line is i + 2.
            out.push_str(&directive(i as u32 + 2, c_file));
        } else {
            out.push_str(l);
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::c::{line, print};

    #[test]
    fn p4_statements_carry_their_line_and_the_c_file_resumes_after() {
        let mut text = String::from("int f(void)\n{\n");
        let body = from_p4("prog.p4:41", vec![line("a = 1"), line("b = 2")]);
        print(&body, 1, &mut text);
        print(&[line("return c")], 1, &mut text);
        text.push_str("}\n");
        assert_eq!(
            resolve(&text, "prog.c"),
            "int f(void)\n{\n#line 41 \"prog.p4\"\n    a = 1;\n#line 41 \"prog.p4\"\n    b = 2;\n#line 8 \"prog.c\"\n    return c;\n}\n"
        );
    }

    #[test]
    fn unknown_origins_leave_statements_unmarked() {
        assert!(matches!(
            from_p4("", vec![line("a = 1")]).as_slice(),
            [CStmt::Line(_)]
        ));
        assert!(matches!(
            from_p4("x.p4:", vec![line("a = 1")]).as_slice(),
            [CStmt::Line(_)]
        ));
    }

    #[test]
    fn file_names_are_escaped() {
        assert_eq!(directive(3, "a\"b.p4"), "#line 3 \"a\\\"b.p4\"");
    }
}
