//! The conformance report: Markdown, in a fixed order, so that a committed
//! report changes only where results change (and in the timings).
//!
//! Sections: a summary table per suite and subset, every failure with its
//! first diagnostic, the crashes, and the slowest files.

use super::runner::{Outcome, Run};
use super::suites::{Expect, Program, Stage, Suite, SUBSETS, SUITES};
use crate::diagnostic_line::Origin;
use std::fmt::Write;
use std::time::Duration;

/// A file slower than this misses the front end's time target.
pub const TARGET_TIME: Duration = Duration::from_secs(1);
const SLOWEST_SHOWN: usize = 15;

/// What one program's run means for its suite.
enum Verdict {
    Pass,
    /// Not what the suite expects; why, in one line.
    Fail(String),
    Crash(String),
}

fn verdict(expect: Expect, outcome: &Outcome) -> Verdict {
    match (expect, outcome) {
        (_, Outcome::Crashed(why)) => Verdict::Crash(why.clone()),
        (Expect::Accept, Outcome::Accepted) => Verdict::Pass,
        (Expect::Accept, Outcome::Rejected(Some(first))) => Verdict::Fail(first.headline()),
        (_, Outcome::Rejected(None)) => {
            Verdict::Fail("rejected without an error diagnostic".into())
        }
        (Expect::RejectInProgram, Outcome::Accepted) => Verdict::Fail("accepted".into()),
        (Expect::RejectInProgram, Outcome::Rejected(Some(first))) => match first.origin {
            Origin::Program => Verdict::Pass,
            Origin::Builtin | Origin::None => Verdict::Fail(format!(
                "rejected, but not in the program: {}",
                first.headline()
            )),
        },
    }
}

/// Passed and total programs of one line of the summary.
#[derive(Default)]
struct Tally {
    passed: usize,
    rejected: usize,
    total: usize,
}

impl Tally {
    fn add(&mut self, outcome: &Outcome, verdict: &Verdict) {
        self.total += 1;
        self.passed += usize::from(matches!(verdict, Verdict::Pass));
        self.rejected += usize::from(matches!(outcome, Outcome::Rejected(_)));
    }

    fn rate(&self) -> String {
        if self.total == 0 {
            return "-".into();
        }
        format!("{:.1}%", 100.0 * self.passed as f64 / self.total as f64)
    }
}

/// What the run was over, for the report's header.
pub struct Context<'a> {
    pub corpus: &'a str,
    pub missing: &'a [&'static str],
    pub timeout: Duration,
}

/// The report for `programs`, whose results are `runs` (same order).
pub fn render(context: &Context, programs: &[Program], runs: &[Run]) -> String {
    let verdicts: Vec<Verdict> = programs
        .iter()
        .zip(runs)
        .map(|(p, r)| {
            verdict(
                SUITES.get(p.suite).map_or(Expect::Accept, |s| s.expect),
                &r.outcome,
            )
        })
        .collect();
    let mut out = String::new();
    let _ = writeln!(out, "# Front-end conformance\n");
    let _ = writeln!(
        out,
        "Written by `make conformance` (`p4bpf conformance`); do not edit by hand. \
         Corpus: `{}`, {} programs, each checked by `p4bpf check` in its own process \
         (time limit {} s).\n",
        context.corpus,
        programs.len(),
        context.timeout.as_secs_f64()
    );
    for folder in context.missing {
        let _ = writeln!(out, "Folder `{folder}` is not in the corpus: skipped.\n");
    }
    summary(&mut out, programs, runs, &verdicts);
    failures(&mut out, programs, &verdicts);
    crashes(&mut out, programs, &verdicts);
    slowest(&mut out, programs, runs);
    out
}

fn summary(out: &mut String, programs: &[Program], runs: &[Run], verdicts: &[Verdict]) {
    let _ = writeln!(out, "## Summary\n");
    let _ = writeln!(out, "| programs | expected | passed | total | rate |");
    let _ = writeln!(out, "| --- | --- | ---: | ---: | ---: |");
    let mut line = |label: &str, suite: &Suite, keep: &dyn Fn(&Program) -> bool| {
        let mut tally = Tally::default();
        for ((program, run), verdict) in programs.iter().zip(runs).zip(verdicts) {
            if keep(program) {
                tally.add(&run.outcome, verdict);
            }
        }
        if tally.total == 0 {
            return;
        }
        let by = match suite.stage {
            Stage::Check => "",
            Stage::Compile => " by `compile`",
        };
        let expected = match suite.expect {
            Expect::Accept => format!("accepted{by}"),
            Expect::RejectInProgram => format!(
                "rejected{by}, error in the program ({} rejected in all)",
                tally.rejected
            ),
        };
        let _ = writeln!(
            out,
            "| `{label}` | {expected} | {} | {} | {} |",
            tally.passed,
            tally.total,
            tally.rate()
        );
    };
    for (index, suite) in SUITES.iter().enumerate() {
        line(suite.folder, suite, &|p| p.suite == index);
        for subset in SUBSETS.iter().filter(|s| s.suite == suite.folder) {
            line(subset.label, suite, &|p| {
                p.suite == index && (subset.contains)(p.path_in_suite())
            });
        }
    }
    let crashed = verdicts
        .iter()
        .filter(|v| matches!(v, Verdict::Crash(_)))
        .count();
    let slow = runs.iter().filter(|r| r.elapsed > TARGET_TIME).count();
    let _ = writeln!(
        out,
        "\nCrashes: {crashed}. Files over {} s: {slow}.\n",
        TARGET_TIME.as_secs_f64()
    );
}

fn failures(out: &mut String, programs: &[Program], verdicts: &[Verdict]) {
    let _ = writeln!(out, "## Failures\n");
    let mut any = false;
    for (index, suite) in SUITES.iter().enumerate() {
        let failed: Vec<(&Program, &String)> = programs
            .iter()
            .zip(verdicts)
            .filter_map(|(p, v)| match v {
                Verdict::Fail(why) if p.suite == index => Some((p, why)),
                _ => None,
            })
            .collect();
        if failed.is_empty() {
            continue;
        }
        any = true;
        let _ = writeln!(out, "### `{}` ({})\n", suite.folder, failed.len());
        for (program, why) in failed {
            let _ = writeln!(out, "- `{}`: {}", program.path.display(), inline(why));
        }
        out.push('\n');
    }
    if !any {
        out.push_str("None.\n\n");
    }
}

fn crashes(out: &mut String, programs: &[Program], verdicts: &[Verdict]) {
    let _ = writeln!(out, "## Crashes\n");
    let mut any = false;
    for (program, verdict) in programs.iter().zip(verdicts) {
        if let Verdict::Crash(why) = verdict {
            any = true;
            let _ = writeln!(out, "- `{}`: {}", program.path.display(), inline(why));
        }
    }
    out.push_str(if any { "\n" } else { "None.\n\n" });
}

fn slowest(out: &mut String, programs: &[Program], runs: &[Run]) {
    let _ = writeln!(out, "## Slowest files\n");
    let mut timed: Vec<(&Program, Duration)> = programs
        .iter()
        .zip(runs)
        .map(|(p, r)| (p, r.elapsed))
        .collect();
    timed.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.path.cmp(&b.0.path)));
    let _ = writeln!(out, "| file | seconds |");
    let _ = writeln!(out, "| --- | ---: |");
    for (program, elapsed) in timed.into_iter().take(SLOWEST_SHOWN) {
        let _ = writeln!(
            out,
            "| `{}` | {:.3} |",
            program.path.display(),
            elapsed.as_secs_f64()
        );
    }
}

/// Text safe inside a Markdown list item: one line, backticks kept literal.
fn inline(text: &str) -> String {
    format!("`{}`", text.replace('`', "'").replace(['\n', '\r'], " "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic_line;

    fn run(outcome: Outcome) -> Run {
        Run {
            outcome,
            elapsed: Duration::from_millis(10),
        }
    }

    #[test]
    fn errors_must_be_rejected_inside_the_program() {
        let in_program = diagnostic_line::parse("error\tprogram\tx.p4:1:1\tbad");
        let in_builtin = diagnostic_line::parse("error\tbuiltin\tcore.p4:1:1\tbad");
        assert!(matches!(
            verdict(Expect::RejectInProgram, &Outcome::Rejected(in_program)),
            Verdict::Pass
        ));
        assert!(matches!(
            verdict(Expect::RejectInProgram, &Outcome::Rejected(in_builtin)),
            Verdict::Fail(_)
        ));
        assert!(matches!(
            verdict(Expect::RejectInProgram, &Outcome::Accepted),
            Verdict::Fail(_)
        ));
        assert!(matches!(
            verdict(Expect::Accept, &Outcome::Crashed("x".into())),
            Verdict::Crash(_)
        ));
    }

    #[test]
    fn report_lists_rates_failures_and_crashes() {
        let programs = vec![
            Program {
                suite: 0,
                path: "p4_16_samples/a_ebpf.p4".into(),
            },
            Program {
                suite: 0,
                path: "p4_16_samples/b.p4".into(),
            },
            Program {
                suite: 1,
                path: "p4_16_errors/c.p4".into(),
            },
        ];
        let runs = vec![
            run(Outcome::Accepted),
            run(Outcome::Crashed("killed by signal 11".into())),
            run(Outcome::Rejected(diagnostic_line::parse(
                "error\tprogram\tp4_16_errors/c.p4:2:3\tunknown name `x`",
            ))),
        ];
        let context = Context {
            corpus: "corpus",
            missing: &["p4tc_samples"],
            timeout: Duration::from_secs(10),
        };
        let text = render(&context, &programs, &runs);
        assert!(
            text.contains("| `p4_16_samples` | accepted | 1 | 2 | 50.0% |"),
            "{text}"
        );
        assert!(
            text.contains("| `p4_16_samples/*_ebpf*.p4` | accepted | 1 | 1 | 100.0% |"),
            "{text}"
        );
        assert!(text.contains(
            "| `p4_16_errors` | rejected, error in the program (1 rejected in all) | 1 | 1 |"
        ));
        assert!(text.contains("- `p4_16_samples/b.p4`: `killed by signal 11`"));
        assert!(text.contains("Folder `p4tc_samples` is not in the corpus"));
        assert!(text.contains("Crashes: 1."));
    }
}
