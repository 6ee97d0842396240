//! Where the generated C comes from in P4. Parser states, controls,
//! action bodies and table applications are marked while printing; [`resolve`] takes the marks out
//! and records which C lines each covers, and [`section`] writes that list
//! into section `.p4bpf.lines` (`p4bpf_layout::SourceRegion`), so the
//! runtime can turn the C line of a failing instruction in the verifier's
//! log into the P4 line and the action or table, and so that
//! [`crate::p4_lines`] can rewrite the object's BTF line info to P4 lines
//! (`#line` directives cannot: see there).

use super::c::CStmt;
use p4bpf_layout::SourceRegion;

/// Marks the printer leaves around a region; never in the final text.
pub const BEGIN: &str = "/*p4bpf:from*/";
pub const END: &str = "/*p4bpf:end*/";

/// `body` marked as coming from P4 `origin` (`file.p4:LINE`) inside
/// `what`; unmarked when the origin is unknown.
pub fn from_p4(origin: &str, what: String, body: Vec<CStmt>) -> Vec<CStmt> {
    if origin.is_empty() || body.is_empty() {
        return body;
    }
    vec![CStmt::FromP4 {
        origin: origin.to_string(),
        what,
        body,
    }]
}

/// `text` without the marks, and the regions they delimited (C lines
/// counted from 1 in the returned text).
pub fn resolve(text: &str) -> (String, Vec<SourceRegion>) {
    let mut out = String::with_capacity(text.len());
    let mut regions = vec![];
    let mut open: Vec<usize> = vec![];
    let mut line = 0u32;
    for l in text.lines() {
        if let Some(rest) = l.trim_start().strip_prefix(BEGIN) {
            let (origin, what) = rest.split_once('\t').unwrap_or((rest, ""));
            open.push(regions.len());
            regions.push(SourceRegion {
                c_first: line + 1,
                c_last: line,
                origin: origin.to_string(),
                what: what.to_string(),
            });
            continue;
        }
        if l.trim_start() == END {
            if let Some(region) = open.pop().and_then(|i| regions.get_mut(i)) {
                region.c_last = line;
            }
            continue;
        }
        line += 1;
        out.push_str(l);
        out.push('\n');
    }
    regions.retain(|r| r.c_last >= r.c_first);
    (out, regions)
}

/// The C definition of section `.p4bpf.lines` holding `regions`.
pub fn section(regions: &[SourceRegion]) -> String {
    let lines: String = regions
        .iter()
        .map(|r| format!("    \"{}\\n\"\n", escape(&r.to_line())))
        .collect();
    format!(
        "/* Which C lines come from which P4 lines (p4bpf-layout SourceRegion). */\n\
         __attribute__((used)) const char p4bpf_lines[] SEC(\"{}\") =\n{lines}    \"\";\n",
        p4bpf_layout::LINES_SECTION
    )
}

fn escape(text: &str) -> String {
    text.chars()
        .flat_map(|c| match c {
            '"' | '\\' => vec!['\\', c],
            '\t' => vec!['\\', 't'],
            c if c.is_ascii() && !c.is_ascii_control() => vec![c],
            _ => vec!['?'],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::c::{line, print};

    #[test]
    fn regions_cover_the_lines_printed_between_the_marks() {
        let mut text = String::from("int f(void)\n{\n");
        let action = from_p4(
            "prog.p4:41",
            "action f.a".into(),
            vec![line("a = 1"), line("b = 2")],
        );
        print(&action, 1, &mut text);
        print(&[line("return c")], 1, &mut text);
        text.push_str("}\n");
        let (c, regions) = resolve(&text);
        assert_eq!(
            c,
            "int f(void)\n{\n    a = 1;\n    b = 2;\n    return c;\n}\n"
        );
        assert_eq!(
            regions,
            [SourceRegion {
                c_first: 3,
                c_last: 4,
                origin: "prog.p4:41".into(),
                what: "action f.a".into()
            }]
        );
    }

    #[test]
    fn nested_regions_and_the_section_round_trip() {
        let inner = from_p4("p.p4:9", "action f.a".into(), vec![line("x = 1")]);
        let mut body = vec![line("k = 0")];
        body.extend(inner);
        let mut text = String::new();
        print(&from_p4("p.p4:3", "table f.t".into(), body), 0, &mut text);
        let (_, regions) = resolve(&text);
        assert_eq!(
            SourceRegion::find(&regions, 2).map(|r| r.what.as_str()),
            Some("action f.a")
        );
        assert_eq!(
            SourceRegion::find(&regions, 1).map(|r| r.what.as_str()),
            Some("table f.t")
        );
        let c = section(&regions);
        assert!(c.contains("\"1\\t2\\tp.p4:3\\ttable f.t\\n\""), "{c}");
    }

    #[test]
    fn unknown_origins_leave_statements_unmarked() {
        assert!(matches!(
            from_p4("", "table t".into(), vec![line("a = 1")]).as_slice(),
            [CStmt::Line(_)]
        ));
    }
}
