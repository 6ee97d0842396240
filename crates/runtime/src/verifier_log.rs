//! A verifier log read in P4 terms. The verifier quotes BTF line info
//! (`; TEXT @ FILE:LINE`) before the instructions it walks: the last one
//! names the P4 line itself where the compiler rewrote the line info
//! (`p4bpf_compiler::p4_lines`), else a C line; either is looked up in the
//! object's source regions (section `.p4bpf.lines`: the P4 line and the
//! action or table); a table applied
//! on its own is a global function `PROG_apply_TABLE`, whose name the log
//! gives when the verifier starts on it; and the registers it prints name
//! the maps they point into. Pure text work over the log and the object.

use p4bpf_layout::{Pipeline, SourceRegion};

/// Lines of the log's end quoted under a refusal.
const TAIL_LINES: usize = 12;

/// What a verifier log says about where and why it refused.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Refusal {
    /// The verifier's own words (the lines after the last instruction).
    pub reason: String,
    /// `file.p4:LINE` of the last P4 statement walked, when the line info
    /// names a P4 file itself.
    pub p4_line: Option<String>,
    /// The line of the generated C last walked.
    pub c_line: Option<u32>,
    /// The global function being verified, if not the entry.
    pub function: Option<String>,
    /// The last map a register pointed into (names cut to 15 characters
    /// by the kernel).
    pub last_map: Option<String>,
    /// The log's last lines.
    pub tail: Vec<String>,
}

/// Reads `log`.
pub fn read(log: &str) -> Refusal {
    let lines: Vec<&str> = log.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut refusal = Refusal {
        tail: lines
            .iter()
            .skip(lines.len().saturating_sub(TAIL_LINES))
            .map(|l| l.to_string())
            .collect(),
        ..Refusal::default()
    };
    for line in &lines {
        // The last line info walked wins, whichever file it names.
        if let Some(at) = p4_location(line) {
            refusal.p4_line = Some(at);
            refusal.c_line = None;
        } else if let Some(n) = c_line(line) {
            refusal.c_line = Some(n);
            refusal.p4_line = None;
        } else if let Some(name) = validated_function(line) {
            refusal.function = Some(name);
            forget_place(&mut refusal);
        } else if line.contains(") is safe for any args that match its prototype") {
            // Global functions are verified before the entry: this one passed.
            refusal.function = None;
            forget_place(&mut refusal);
        }
        if let Some(map) = last_map_named(line) {
            refusal.last_map = Some(map);
        }
    }
    refusal.reason = reason(&lines);
    refusal
}

fn forget_place(refusal: &mut Refusal) {
    refusal.p4_line = None;
    refusal.c_line = None;
    refusal.last_map = None;
}

/// Where in P4 a refusal happened: `file.p4:LINE`, and the action or table.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct P4Place {
    pub at: Option<String>,
    pub involving: Option<String>,
}

/// The P4 place of `refusal`: the source region of its C line, else what
/// the line info, the function or the maps say.
pub fn place(refusal: &Refusal, description: &Pipeline, regions: &[SourceRegion]) -> P4Place {
    let region = refusal
        .c_line
        .and_then(|n| SourceRegion::find(regions, n))
        .or_else(|| region_at(regions, refusal.p4_line.as_deref()?));
    P4Place {
        at: region
            .map(|r| r.origin.clone())
            .or_else(|| refusal.p4_line.clone()),
        involving: region
            .map(|r| r.what.clone())
            .or_else(|| table_involved(refusal, description).map(|name| format!("table `{name}`"))),
    }
}

/// The innermost region whose P4 origin is `at` (line info the compiler
/// rewrote to P4 lines names the region's origin).
fn region_at<'a>(regions: &'a [SourceRegion], at: &str) -> Option<&'a SourceRegion> {
    regions
        .iter()
        .filter(|r| r.origin == at)
        .min_by_key(|r| r.c_last - r.c_first)
}

/// The P4 name of the table the refusal is about: the table whose global
/// function was being verified, else the table whose map was touched last.
pub fn table_involved(refusal: &Refusal, description: &Pipeline) -> Option<String> {
    let tables = &description.tables;
    if let Some(function) = &refusal.function {
        let by_function = tables.iter().find(|t| {
            function
                .split_once(&format!("_apply_{}", t.map))
                .is_some_and(|(_, rest)| {
                    rest.is_empty()
                        || rest
                            .strip_prefix('_')
                            .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit()))
                })
        });
        if let Some(t) = by_function {
            return Some(t.name.clone());
        }
    }
    let map = refusal.last_map.as_deref()?;
    let owns = |t: &p4bpf_layout::Table| {
        let names = [
            Some(t.map.as_str()),
            t.ternary.as_ref().map(|l| l.groups_map.as_str()),
        ];
        names
            .into_iter()
            .flatten()
            .any(|name| name == map || (map.len() == 15 && name.starts_with(map)))
    };
    let mut owners = tables.iter().filter(|t| owns(t));
    match (owners.next(), owners.next()) {
        (Some(t), None) => Some(t.name.clone()),
        _ => None,
    }
}

/// `file.p4:12` from a line-info line `; TEXT @ file.p4:12` naming a P4 file.
fn p4_location(line: &str) -> Option<String> {
    let (_, at) = line.strip_prefix(";")?.rsplit_once(" @ ")?;
    let (file, number) = at.rsplit_once(':')?;
    let is_c = [".c", ".h"].iter().any(|ext| file.ends_with(ext));
    (!is_c && number.parse::<u32>().is_ok()).then(|| at.to_string())
}

/// `N` from a line-info line `; TEXT @ file.c:N` naming a C file (line 0
/// is code clang made up, with no line of its own).
fn c_line(line: &str) -> Option<u32> {
    let (_, at) = line.strip_prefix(";")?.rsplit_once(" @ ")?;
    let (file, number) = at.rsplit_once(':')?;
    let n: u32 = number.parse().ok()?;
    (file.ends_with(".c") && n > 0).then_some(n)
}

/// `NAME` from `Validating NAME() func#3...`.
fn validated_function(line: &str) -> Option<String> {
    let rest = line.strip_prefix("Validating ")?;
    let (name, _) = rest.split_once("() func#")?;
    Some(name.to_string())
}

/// The last `map=NAME` in a line of register states.
fn last_map_named(line: &str) -> Option<String> {
    let (_, rest) = line.rsplit_once("map=")?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// The verifier's message: the lines after the last instruction or line
/// info, without the statistics that close every log.
fn reason(lines: &[&str]) -> String {
    let instruction = |l: &str| {
        l.starts_with(';')
            || l.split_once(": ")
                .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
    };
    let statistics = |l: &str| {
        l.starts_with("processed ")
            || l.starts_with("verification time")
            || l.starts_with("stack depth")
            || l.starts_with("-- END PROG LOAD LOG --")
    };
    let start = lines
        .iter()
        .rposition(|l| instruction(l))
        .map_or(0, |i| i + 1);
    let words: Vec<&str> = lines
        .iter()
        .skip(start)
        .copied()
        .filter(|l| !statistics(l))
        .collect();
    match words.as_slice() {
        [] => lines
            .last()
            .copied()
            .unwrap_or("no reason given")
            .to_string(),
        _ => words.join("; "),
    }
}

#[cfg(test)]
#[allow(clippy::panic)] // a failing test should stop loudly
mod tests {
    use super::*;

    const TOO_LARGE: &str = "\
func#0 @0
0: R1=ctx() R10=fp0
; u8 *pkt = (u8 *)(long)ctx->data; @ prog.c:300
0: (61) r2 = *(u32 *)(r1 +0)
Validating prog_apply_Sw_t20() func#3...
; key.hdr_ipv4_dst = st->headers.ipv4.dst; @ prog.p4:41
1743: (79) r2 = *(u64 *)(r10 -56)     ; R2=map_value(map=Sw_t20,ks=16,vs=324,off=308)
; miss |= (key.hdr_ipv4_dst & rule->mask.hdr_ipv4_dst); @ prog.c:3354
1748: (79) r3 = *(u64 *)(r10 -56)
BPF program is too large. Processed 1000001 insn
processed 1000001 insns (limit 1000000) max_states_per_insn 41 total_states 21227 peak_states 2585 mark_read 0
";

    #[test]
    fn reads_the_p4_line_function_map_and_reason() {
        let r = read(TOO_LARGE);
        // The C line walked after the P4 line is the last place.
        assert_eq!(r.p4_line, None);
        assert_eq!(r.c_line, Some(3354));
        assert_eq!(r.function.as_deref(), Some("prog_apply_Sw_t20"));
        assert_eq!(r.last_map.as_deref(), Some("Sw_t20"));
        assert_eq!(r.reason, "BPF program is too large. Processed 1000001 insn");
        assert_eq!(r.tail.len(), TAIL_LINES.min(TOO_LARGE.lines().count()));
    }

    #[test]
    fn a_function_that_passed_is_not_the_one_refused() {
        let log = "Validating prog_apply_Sw_t0() func#1...\n; x = 1; @ prog.p4:30\nFunc#1 ('prog_apply_Sw_t0') is safe for any args that match its prototype\n0: R1=ctx()\n; y = 2; @ prog.p4:50\n5: (61) r1 = *(u32 *)(r1 +0)\ninvalid access to packet\n";
        let r = read(log);
        assert_eq!(r.function, None);
        assert_eq!(r.p4_line.as_deref(), Some("prog.p4:50"));
    }

    #[test]
    fn a_log_without_line_info_still_gives_its_reason() {
        let log = "0: R1=ctx() R10=fp0\n0: (61) r1 = *(u32 *)(r1 +0)\ninvalid access to packet, off=0 size=4, R1(id=0,off=0,r=0)\nR1 offset is outside of the packet\nprocessed 2 insns (limit 1000000)\n";
        let r = read(log);
        assert_eq!(r.p4_line, None);
        assert_eq!(
            r.reason,
            "invalid access to packet, off=0 size=4, R1(id=0,off=0,r=0); R1 offset is outside of the packet"
        );
    }

    #[test]
    fn the_c_line_finds_the_p4_region() {
        let regions = [
            SourceRegion {
                c_first: 3000,
                c_last: 3400,
                origin: "prog.p4:12".into(),
                what: "table `Sw.t20`".into(),
            },
            SourceRegion {
                c_first: 3350,
                c_last: 3360,
                origin: "prog.p4:9".into(),
                what: "action `Sw.set20`".into(),
            },
        ];
        let description =
            p4bpf_layout::Pipeline::from_json(DESCRIPTION).unwrap_or_else(|e| panic!("{e}"));
        let place = place(&read(TOO_LARGE), &description, &regions);
        assert_eq!(place.at.as_deref(), Some("prog.p4:9"));
        assert_eq!(place.involving.as_deref(), Some("action `Sw.set20`"));
        let no_regions = place_of(&read(TOO_LARGE), &description);
        assert_eq!(no_regions.involving.as_deref(), Some("table `Sw.t20`"));
    }

    #[test]
    fn a_p4_line_in_the_line_info_finds_its_region_and_the_last_line_wins() {
        let regions = [
            SourceRegion {
                c_first: 10,
                c_last: 40,
                origin: "prog.p4:12".into(),
                what: "table `Sw.t20`".into(),
            },
            SourceRegion {
                c_first: 20,
                c_last: 22,
                origin: "prog.p4:9".into(),
                what: "action `Sw.set20`".into(),
            },
        ];
        let log = "; pass = peek(hdr.h.addr) == 7; @ prog.p4:9\n3: (61) r1 = *(u32 *)(r1 +0)\ninvalid mem access 'scalar'\n";
        let at_p4 = place_of_regions(log, &regions);
        assert_eq!(at_p4.at.as_deref(), Some("prog.p4:9"));
        assert_eq!(at_p4.involving.as_deref(), Some("action `Sw.set20`"));
        let then_c = format!("{log}; return *(u32 *)(long)at; @ prog.c:15\n");
        assert_eq!(
            place_of_regions(&then_c, &regions).at.as_deref(),
            Some("prog.p4:12")
        );
    }

    fn place_of_regions(log: &str, regions: &[SourceRegion]) -> P4Place {
        let description =
            p4bpf_layout::Pipeline::from_json(DESCRIPTION).unwrap_or_else(|e| panic!("{e}"));
        place(&read(log), &description, regions)
    }

    fn place_of(refusal: &Refusal, description: &Pipeline) -> P4Place {
        place(refusal, description, &[])
    }

    const DESCRIPTION: &str = r#"{"format_version": 1, "program": "prog", "architecture": "xdp_model",
        "hook": "xdp", "entry": "prog_xdp", "counters": [], "value_sets": [], "port_map": null,
        "output_record": null, "tables": [{"name": "Sw.t20", "map": "Sw_t20", "storage": "hash",
        "size": 1, "keys": [], "key_size": 4, "value_size": 4, "actions": [], "default_map": null,
        "ternary": null}]}"#;

    #[test]
    fn c_lines_are_not_p4_lines() {
        assert_eq!(p4_location("; return x; @ prog.c:10"), None);
        assert_eq!(
            p4_location("; x = 1; @ dir/prog.p4:7"),
            Some("dir/prog.p4:7".into())
        );
        assert_eq!(p4_location("; x = 1; @ prog.p4:seven"), None);
    }
}
