//! `p4bpf test PROGRAM STF [--target kernel|user]`: runs a packet-test file
//! against a program in the kernel or in the user-space target. PROGRAM is P4 source (compiled first)
//! or an object `p4bpf compile` wrote. Each `packet` is one
//! `BPF_PROG_TEST_RUN`; one report line per packet, with a byte diff, the
//! port and the verdict when it fails. A script that asks for packet
//! copies runs on veth pairs instead, which see every copy.
//!
//! Exit status 0 when every packet and check passes, 1 on any failure (a
//! malformed STF line, a program that does not compile or load, a machine
//! without BPF), 2 for a command line that cannot be understood.

use crate::args::{self, Args, UsageError};
use crate::target::{self, Target};
use p4bpf_compiler::CompileOptions;
use p4bpf_runtime::trace::Traced;
use p4bpf_runtime::{check_bpf_available, stf, veth};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

pub const USAGE: &str = "\
usage: p4bpf test PROGRAM.p4|PROGRAM.o TEST.stf [--target kernel|user|veth] [--hook xdp|tc]
                  [--extern-file FILE.c] [-I DIR]... [-D NAME[=VALUE]]... [--table-stats] [--trace]
                  [--table-caching]
                  [--stf-reading p4tc|reference]

Runs the packet test TEST.stf against PROGRAM: P4 source is compiled first,
an object from `p4bpf compile` is loaded as is. Prints one line per packet
and, for a failure, the expected and received bytes, the port and the verdict.

options:
  --target kernel        run each packet with BPF_PROG_TEST_RUN (needs root
                         or CAP_BPF); the default. A script that makes
                         packet copies (mc_*, mirroring_add) runs as with
                         --target veth, which sees every copy
  --target user          run the same generated C built for this host, under
                         AddressSanitizer and UBSan (needs PROGRAM.p4)
  --target veth          attach the program (at XDP or tcx) to one veth pair
                         per STF port in a private network namespace, inject
                         with packet sockets and watch every port; sees every
                         multicast copy (needs root)
  --hook xdp|tc          attach point to compile PROGRAM.p4 for (default: xdp)
  --extern-file, -I, -D, --table-stats, --table-caching
                         as for `p4bpf compile`
  --trace                compile with tracing and print under each packet the
                         parser states, tables (key, hit or miss, action) and
                         verdict (kernel and user targets)
  --stf-reading p4tc|reference
                         how to read TEST.stf (kernel and user targets). p4tc,
                         the default for programs written for P4TC's
                         tc/pna.p4, is how P4TC's harness plays a script: the
                         program sits on port 0 alone, so a packet sent on
                         another port runs nothing (each port's capture sees
                         it, where its line expects it). reference, the
                         default for every other program, runs every packet

Besides the reference STF dialect, `expect_digest NAME [FIELD=VALUE...]`
checks the digests the script's packets send, in order (kernel and user
targets); once a script has one, every digest must be expected.

At XDP, a script whose every failure is at a frame shorter than 14 bytes
(sent or expected) is not applicable: XDP keeps at least an Ethernet
header. Its last line says `not applicable at XDP` and names the frame.

exit status: 0 all passed, 1 a failure (or not applicable), 2 bad command line
";

#[derive(Debug)]
struct Request {
    program: PathBuf,
    script: PathBuf,
    target: Target,
    /// `--stf-reading`: `Some(true)` for P4TC's reading, `Some(false)` for
    /// the reference one, `None` for the program's own.
    p4tc_reading: Option<bool>,
    /// Used when PROGRAM is P4 source; `out_dir` is replaced by a
    /// temporary folder.
    compile: CompileOptions,
}

/// The request, or `None` when the words ask for help.
fn parse(mut words: Args) -> Result<Option<Request>, UsageError> {
    let mut files = Vec::new();
    let mut target = Target::Kernel;
    let mut p4tc_reading = None;
    let mut compile = target::default_compile_options();
    while let Some(word) = words.next_word() {
        if word == "-h" || word == "--help" {
            return Ok(None);
        } else if let Some(name) = words.option(&word, "--target")? {
            target = Target::parse(&name).map_err(UsageError::new)?;
        } else if let Some(reading) = words.option(&word, "--stf-reading")? {
            p4tc_reading = Some(reading_is_p4tc(&reading)?);
        } else if target::compile_option(&mut words, &word, &mut compile)? {
            // `--hook`, `-I`, `-D` or `--extern-file`, now in `compile`.
        } else if word.starts_with('-') {
            return Err(args::unknown_option(&word));
        } else {
            files.push(PathBuf::from(word));
        }
    }
    match <[PathBuf; 2]>::try_from(files) {
        Ok([program, script]) => Ok(Some(Request {
            program,
            script,
            target,
            p4tc_reading,
            compile,
        })),
        Err(files) => Err(UsageError::new(format!(
            "expected a program and an STF file, got {} file name(s)",
            files.len()
        ))),
    }
}

/// Whether `--stf-reading WORD` asks for P4TC's reading.
fn reading_is_p4tc(word: &str) -> Result<bool, UsageError> {
    match word {
        "p4tc" => Ok(true),
        "reference" => Ok(false),
        _ => Err(UsageError::new(format!(
            "unknown STF reading `{word}` (supported: p4tc, reference)"
        ))),
    }
}

pub fn run(words: Args) -> ExitCode {
    args::run_command(words, "test", USAGE, parse, run_request)
}

/// Whether every packet passed; Err for what stops the run before packets.
fn run_request(request: &Request) -> Result<bool, String> {
    let script = target::read_stf(&request.script)?;
    if request.target == Target::Veth && request.compile.trace {
        return Err("--trace runs with the kernel and user targets, not veth".into());
    }
    if request.target == Target::Veth && request.p4tc_reading.is_some() {
        return Err("--stf-reading applies to the kernel and user targets, not veth".into());
    }
    let (image, compiled) = target::object_image(&request.program, &request.compile)?;
    if request.target == Target::Veth || copies_at_kernel(request, &image, &script) {
        check_bpf_available().map_err(|e| format!("cannot run veth tests on this machine: {e}"))?;
        let outcome = veth::run_stf(image, &request.script, &script).map_err(|e| e.to_string())?;
        let head = match request.target {
            Target::Veth => "on veth pairs in a private network namespace",
            _ => "the script asks for packet copies (multicast, clone), which one BPF_PROG_TEST_RUN does not show: run on veth pairs in a private network namespace",
        };
        return Ok(report(vec![head.to_string()], outcome, request));
    }
    let mut pipeline = target::load_image(image, compiled, request.target)?;
    if let Some(p4tc) = request.p4tc_reading {
        pipeline.description.p4tc = p4tc;
    }
    let hook = format!("{:?}", pipeline.description.hook).to_lowercase();
    let head = match (request.target, pipeline.stats()) {
        (Target::User, _) => format!(
            "built {} for user space ({hook} code, sanitizers on)",
            pipeline.description.program
        ),
        (_, Ok(stats)) => format!(
            "loaded {} at {hook}: {} instructions ({} processed by the verifier)",
            pipeline.description.program, stats.xlated_insns, stats.verified_insns
        ),
        (_, Err(_)) => format!("loaded {} at {hook}", pipeline.description.program),
    };
    let outcome = if request.compile.trace {
        let traced = Traced::new(&pipeline).map_err(|e| e.to_string())?;
        let mut outcome = stf::run(&traced, &request.script, &script);
        outcome.lines = crate::trace::with_traces(outcome.lines, &traced.packets.borrow());
        outcome
    } else {
        stf::run(&pipeline, &request.script, &script)
    };
    Ok(report(vec![head], outcome, request))
}

/// Whether the kernel target plays `script` on live ports instead: it
/// asks for copies, which only they show (not under `--trace`, which
/// reads the test run's records).
fn copies_at_kernel(request: &Request, image: &[u8], script: &[stf::Line]) -> bool {
    request.target == Target::Kernel
        && !request.compile.trace
        && p4bpf_runtime::read_description(image)
            .is_ok_and(|description| veth::needs_live_ports(&description, script))
}

/// Prints the report; whether every packet passed.
fn report(mut report: Vec<String>, outcome: stf::Outcome, request: &Request) -> bool {
    let verdict = match (&outcome.not_applicable, outcome.failures) {
        (_, 0) => "PASS",
        (Some(_), _) => "NOT APPLICABLE",
        (None, _) => "FAIL",
    };
    report.extend(outcome.lines);
    report.push(format!(
        "{verdict}: {} packets, {} failure(s) in {}",
        outcome.packets,
        outcome.failures,
        request.script.display()
    ));
    report.extend(outcome.not_applicable.filter(|_| outcome.failures > 0));
    // A closed stdout (`| head`) ends the report, not the process.
    let mut stdout = std::io::stdout().lock();
    for line in &report {
        if writeln!(stdout, "{line}").is_err() {
            break;
        }
    }
    outcome.failures == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn words(list: &[&str]) -> Args {
        Args::new(list.iter().map(|w| w.to_string()).collect())
    }

    #[test]
    fn takes_program_script_and_kernel_target() {
        let request = parse(words(&[
            "a.p4", "--target", "kernel", "a.stf", "--hook", "tc", "-Iinc",
        ]));
        let request = request.ok().flatten();
        assert!(request.is_some_and(|r| r.program == Path::new("a.p4")
            && r.script == Path::new("a.stf")
            && r.compile.hook == p4bpf_compiler::Hook::Tc
            && r.compile.front.include_dirs == [PathBuf::from("inc")]));
        assert!(matches!(parse(words(&["--help"])), Ok(None)));
        assert!(parse(words(&["a.p4"])).is_err());
        assert!(parse(words(&["a.p4", "a.stf", "--target", "veth"]))
            .is_ok_and(|r| r.is_some_and(|r| r.target == Target::Veth)));
        assert!(parse(words(&["a.p4", "a.stf", "--target", "bmv2"])).is_err());
        let user = parse(words(&["a.p4", "a.stf", "--target", "user"]));
        assert!(user
            .ok()
            .flatten()
            .is_some_and(|r| r.target == Target::User));
        assert!(parse(words(&["a.p4", "a.stf", "--frob"])).is_err());
        let reading = |word: &str| {
            parse(words(&["a.p4", "a.stf", "--stf-reading", word]))
                .map(|r| r.and_then(|r| r.p4tc_reading))
        };
        assert!(matches!(reading("p4tc"), Ok(Some(true))));
        assert!(matches!(reading("reference"), Ok(Some(false))));
        assert!(reading("bmv2").is_err());
    }
}
