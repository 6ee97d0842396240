//! `p4bpf run PROGRAM.p4 --in IN.pcap --out OUT.pcap [--target user|kernel]
//! [--entries FILE.stf] [--port N]`: offline processing of a capture. Every
//! packet of IN.pcap enters on port N (default 0); those the program sends
//! out are written, with their input timestamps, to one capture per output
//! port, `OUT-PORT.pcap` beside OUT.pcap. Table entries come from the
//! `add`/`setdefault` lines of an STF file.
//!
//! `p4bpf run --pipeline NAME --in IN.pcap --out OUT.pcap` replays the
//! capture through the program of a loaded (pinned) pipeline instead, its
//! tables as they are, and writes every packet the program lets out to
//! OUT.pcap in input order.
//!
//! Exit status 0 when every packet ran (dropping is running), 1 when the
//! program, the capture or a packet failed, 2 for a bad command line.

use crate::args::{Args, UsageError};
use crate::target::{self, Target};
use p4bpf_compiler::CompileOptions;
use p4bpf_runtime::deploy::Deployment;
use p4bpf_runtime::packet_target::PacketTarget;
use p4bpf_runtime::pcap::{self, Record};
use p4bpf_runtime::trace::Traced;
use p4bpf_runtime::{test_run, Verdict};
use std::collections::BTreeMap;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub const USAGE: &str = "\
usage: p4bpf run PROGRAM.p4 --in IN.pcap --out OUT.pcap [--target user|kernel]
                 [--entries FILE.stf] [--port N] [--hook xdp|tc]
                 [--extern-file FILE.c] [-I DIR]... [-D NAME[=VALUE]]... [--table-stats] [--trace]
       p4bpf run --pipeline NAME --in IN.pcap --out OUT.pcap

Runs every packet of IN.pcap through PROGRAM (arriving on port N, default 0)
and writes the packets it sends out to OUT-PORT.pcap, one file per port.
With --pipeline, runs them through the loaded pipeline NAME (`p4bpf
pipeline load`), its tables as they are, and writes every packet it lets
out (passed, sent back or redirected) to OUT.pcap, in input order.

options:
  --target user|kernel   where the program runs (default: user; kernel
                         needs root or CAP_BPF)
  --entries FILE.stf     table entries: the file's `add`, `setdefault` and
                         `act_prof_*` lines
  --port N               input port of every packet (default 0)
  --hook, --extern-file, -I, -D, --table-stats   as for `p4bpf compile`
  --trace                compile with tracing; print each packet's parser
                         states, tables and verdict

exit status: 0 every packet ran, 1 a failure, 2 bad command line
";

#[derive(Debug)]
struct Request {
    /// The program, or `--pipeline NAME`.
    source: Source,
    input: PathBuf,
    output: PathBuf,
    target: Target,
    entries: Option<PathBuf>,
    port: u32,
    compile: CompileOptions,
}

#[derive(Debug, PartialEq, Eq)]
enum Source {
    Program(PathBuf),
    Pipeline(String),
}

fn parse(mut words: Args) -> Result<Option<Request>, UsageError> {
    let mut compile = target::default_compile_options();
    let (mut program, mut input, mut output, mut entries) = (None, None, None, None);
    let mut pipeline = None;
    let mut target = Target::User;
    let mut port = 0;
    while let Some(word) = words.next_word() {
        if word == "-h" || word == "--help" {
            return Ok(None);
        } else if let Some(name) = words.option(&word, "--target")? {
            target = Target::parse(&name).map_err(UsageError::new)?;
        } else if let Some(name) = words.option(&word, "--pipeline")? {
            pipeline = Some(name);
        } else if let Some(file) = words.option(&word, "--in")? {
            input = Some(PathBuf::from(file));
        } else if let Some(file) = words.option(&word, "--out")? {
            output = Some(PathBuf::from(file));
        } else if let Some(file) = words.option(&word, "--entries")? {
            entries = Some(PathBuf::from(file));
        } else if let Some(number) = words.option(&word, "--port")? {
            port = number
                .parse()
                .map_err(|_| UsageError::new(format!("`--port {number}` is not a port number")))?;
        } else if target::compile_option(&mut words, &word, &mut compile)? {
            continue;
        } else if word.starts_with('-') {
            return Err(crate::args::unknown_option(&word));
        } else if program.replace(PathBuf::from(&word)).is_some() {
            return Err(UsageError::new(format!(
                "a second program `{word}`: run takes one"
            )));
        }
    }
    let missing = |what: &str| UsageError::new(format!("missing {what}"));
    let source = match (program, pipeline) {
        (Some(_), Some(_)) => {
            return Err(UsageError::new(
                "a program and --pipeline: run takes one of them",
            ))
        }
        (Some(program), None) => Source::Program(program),
        (None, Some(name)) => Source::Pipeline(name),
        (None, None) => return Err(missing("the program (or --pipeline NAME)")),
    };
    Ok(Some(Request {
        source,
        input: input.ok_or_else(|| missing("--in IN.pcap"))?,
        output: output.ok_or_else(|| missing("--out OUT.pcap"))?,
        target,
        entries,
        port,
        compile,
    }))
}

pub fn run(words: Args) -> ExitCode {
    crate::args::run_command(words, "run", USAGE, parse, run_request)
}

/// Whether every packet ran; Err for what stops the run before packets.
fn run_request(request: &Request) -> Result<bool, String> {
    let bytes = std::fs::read(&request.input)
        .map_err(|e| format!("cannot read {}: {e}", request.input.display()))?;
    let packets = pcap::parse(&bytes).map_err(|e| format!("{}: {e}", request.input.display()))?;
    let program = match &request.source {
        Source::Program(program) => program,
        Source::Pipeline(name) => return replay(name, &packets, &request.output),
    };
    let pipeline = target::load(program, &request.compile, request.target)?;
    if let Some(path) = &request.entries {
        let entries = target::table_commands(path)?;
        target::install_entries(&pipeline, path, &entries)?;
    }
    let traced = match request.compile.trace {
        true => Some(Traced::new(&pipeline).map_err(|e| e.to_string())?),
        false => None,
    };
    let mut by_port: BTreeMap<u32, Vec<Record>> = BTreeMap::new();
    let (mut dropped, mut failed) = (0, 0);
    for (number, packet) in packets.iter().enumerate() {
        let result = match &traced {
            Some(traced) => traced.run_packet(request.port, &packet.data),
            None => pipeline.run_packet(request.port, &packet.data),
        };
        if let Some(traced) = &traced {
            println!("packet {}\n{}", number + 1, crate::trace::last_text(traced));
        }
        match result {
            Ok(outcome) => match outcome.port.filter(|_| outcome.verdict.delivers()) {
                Some(port) => by_port.entry(port).or_default().push(Record {
                    data: outcome.packet,
                    ..packet.clone()
                }),
                None => dropped += 1,
            },
            Err(e) => {
                failed += 1;
                eprintln!("packet {}: {e}", number + 1);
            }
        }
    }
    let mut written = Vec::new();
    for (port, records) in &by_port {
        let path = port_file(&request.output, *port);
        std::fs::write(&path, pcap::write(records))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        written.push(format!("{} ({} packets)", path.display(), records.len()));
    }
    println!(
        "{} packets: {} sent out, {dropped} dropped, {failed} failed",
        packets.len(),
        packets.len() - dropped - failed
    );
    for line in written {
        println!("wrote {line}");
    }
    Ok(failed == 0)
}

/// Every packet through the program of loaded pipeline `name`; those it
/// lets out go to `output` in input order.
fn replay(name: &str, packets: &[Record], output: &Path) -> Result<bool, String> {
    let deployment = Deployment::open(name).map_err(|e| e.to_string())?;
    let program = deployment.program().map_err(|e| e.to_string())?;
    let hook = deployment.description.hook;
    let (mut out, mut failed) = (Vec::new(), 0);
    for (number, packet) in packets.iter().enumerate() {
        match test_run::run(program.as_raw_fd(), &packet.data, 1) {
            Ok(ran) if Verdict::from_retval(hook, ran.retval).delivers() => out.push(Record {
                data: ran.packet,
                ..packet.clone()
            }),
            Ok(_) => {}
            Err(e) => {
                failed += 1;
                eprintln!("packet {}: {e}", number + 1);
            }
        }
    }
    std::fs::write(output, pcap::write(&out))
        .map_err(|e| format!("cannot write {}: {e}", output.display()))?;
    println!(
        "{} packets: {} let out, {} dropped, {failed} failed\nwrote {} ({} packets)",
        packets.len(),
        out.len(),
        packets.len() - out.len() - failed,
        output.display(),
        out.len()
    );
    Ok(failed == 0)
}

/// `OUT-PORT.EXT` beside `OUT.EXT`.
fn port_file(output: &Path, port: u32) -> PathBuf {
    let stem = output
        .file_stem()
        .map_or_else(|| "out".to_string(), |s| s.to_string_lossy().into_owned());
    let name = match output.extension() {
        Some(ext) => format!("{stem}-{port}.{}", ext.to_string_lossy()),
        None => format!("{stem}-{port}.pcap"),
    };
    output.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(list: &[&str]) -> Args {
        Args::new(list.iter().map(|w| w.to_string()).collect())
    }

    #[test]
    fn output_files_are_named_per_port() {
        assert_eq!(
            port_file(Path::new("d/out.pcap"), 3),
            Path::new("d/out-3.pcap")
        );
        assert_eq!(port_file(Path::new("cap"), 0), Path::new("cap-0.pcap"));
    }

    #[test]
    fn needs_program_input_and_output() {
        let ok = parse(words(&[
            "p.p4", "--in", "a.pcap", "--out", "b.pcap", "--target", "kernel", "--port", "2",
        ]));
        assert!(ok
            .ok()
            .flatten()
            .is_some_and(|r| r.target == Target::Kernel && r.port == 2));
        assert!(parse(words(&["p.p4", "--in", "a.pcap"])).is_err());
        assert!(parse(words(&["p.p4", "q.p4", "--in", "a", "--out", "b"])).is_err());
        assert!(parse(words(&["p.p4", "--in", "a", "--out", "b", "--port", "x"])).is_err());
        assert!(parse(words(&["--help"])).is_ok_and(|r| r.is_none()));
        let pinned = parse(words(&["--pipeline", "acl", "--in", "a", "--out", "b"]));
        assert!(pinned
            .ok()
            .flatten()
            .is_some_and(|r| r.source == Source::Pipeline("acl".into())));
        assert!(parse(words(&[
            "p.p4",
            "--pipeline",
            "acl",
            "--in",
            "a",
            "--out",
            "b"
        ]))
        .is_err());
    }
}
