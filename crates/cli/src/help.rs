//! The help texts: `p4bpf --help`, `p4bpf help COMMAND`, `p4bpf COMMAND --help`.

use crate::args::{Args, UsageError};
use std::process::ExitCode;

const MAIN: &str = "\
p4bpf: P4_16 programs in the Linux kernel's fast path (XDP, TC)

usage: p4bpf COMMAND [ARGS...]

commands:
  check FILE.p4         check a program with the front end; print what it declares
  compile FILE.p4       compile a program to C, an eBPF object and P4Info
  test PROGRAM STF      run a packet-test file against a program (kernel, user space, veth)
  run PROGRAM --in PCAP process a capture offline, one output capture per port
  fuzz PROGRAM          compare the kernel and user-space targets on random packets
  graph PROGRAM         draw parsers and controls as DOT and SVG (state machines, table flow)
  bench [SUITE]         time generated programs against hand-written C, write RESULTS.md
  conformance [DIR]     run the front end over a corpus of P4 programs, write a report
  counter ...           read or reset a loaded pipeline's counters
  register ...          read or write a loaded pipeline's register cells
  digest PIPELINE       print the digests a loaded pipeline sends, as they come
  idle PIPELINE         sweep a loaded pipeline's idle table entries (PNA's idle timeouts)
  mcast ...             set, delete, list a loaded pipeline's multicast groups
  profile ...           action profile members and selector groups of a pipeline
  clone ...             set, delete, list a loaded pipeline's clone (or mirror) sessions
  meter set ...         configure a loaded pipeline's meter (rates and bursts)
  p4runtime serve       serve P4Runtime (gRPC) for a pipeline: controllers like p4runtime-shell
  pipeline ...          load, unload or show pipelines pinned in bpffs
  port ...              attach a loaded pipeline to interfaces as P4 ports
  table ...             add, modify, delete, dump a loaded pipeline's table entries
  top PIPELINE          live per-port, per-counter and per-table rates of a loaded pipeline
  trace PIPELINE        print what a pipeline loaded with --trace does with each packet
  value-set ...         add, clear, show a loaded pipeline's parser value set members
  help [COMMAND]        print this text, or the help of COMMAND

options:
  -h, --help            print help (also after a command)
  -V, --version         print the version
";

const CHECK: &str = "\
usage: p4bpf check FILE.p4 [-I DIR]... [-D NAME[=VALUE]]... [--diagnostics-format=human|lines]

Preprocesses, parses and type-checks FILE.p4. Diagnostics go to stderr; for a
valid program a summary of what it declares goes to stdout.

options:
  -I DIR, -IDIR          search DIR for #include files (after the including
                         file's folder for \"quoted\" includes, before the
                         built-in architecture files)
  -D NAME[=VALUE], -DNAME[=VALUE]
                         define a macro (VALUE defaults to 1)
  --diagnostics-format=human|lines
                         human: file:line:col, excerpt and caret (default);
                         lines: one tab-separated line per diagnostic:
                         severity, origin (program|builtin|none), position, message

exit status: 0 valid (warnings allowed), 1 errors, 2 bad command line
";

const CONFORMANCE: &str = "\
usage: p4bpf conformance [CORPUS_DIR] [--out FILE] [--jobs N] [--timeout SECONDS]

Checks every program of the corpus (default ../shared/corpus/p4c), each in a
child process `p4bpf check` with a time limit, and writes a Markdown report:
accepted or rejected per folder, every failure with its first diagnostic,
crashes, and the slowest files. p4_16_ebpf_errors, which only the eBPF target
can reject, is judged by `p4bpf compile` instead. Skips with a message when
the corpus is absent.

options:
  --out FILE            the report (default conformance/frontend.md)
  --jobs N              child processes at once (default: number of CPUs)
  --timeout SECONDS     a child running longer is killed and counted as a crash
                        (default 10)

exit status: 0 when nothing crashed (failures are data), 1 on any crash,
2 bad command line
";

/// The help text of `command`, if it is one of ours.
pub fn text(command: Option<&str>) -> Option<&'static str> {
    match command {
        None | Some("help") => Some(MAIN),
        Some("check") => Some(CHECK),
        Some("compile") => Some(crate::compile::USAGE),
        Some("conformance") => Some(CONFORMANCE),
        Some("run") => Some(crate::run::USAGE),
        Some("fuzz") => Some(crate::fuzz::USAGE),
        Some("graph") => Some(crate::graph::USAGE),
        Some("bench") => Some(crate::bench::USAGE),
        Some("counter") => Some(crate::counter::USAGE),
        Some("value-set") => Some(crate::value_set::USAGE),
        Some("register") => Some(crate::register::USAGE),
        Some("mcast") => Some(crate::mcast::USAGE),
        Some("idle") => Some(crate::idle::USAGE),
        Some("profile") => Some(crate::profile::USAGE),
        Some("clone") => Some(crate::mcast::CLONE_USAGE),
        Some("meter") => Some(crate::meter::USAGE),
        Some("p4runtime") => Some(crate::p4runtime::USAGE),
        Some("pipeline") => Some(crate::pipeline::USAGE),
        Some("port") => Some(crate::port::USAGE),
        Some("table") => Some(crate::table::USAGE),
        Some("test") => Some(crate::test::USAGE),
        Some("top") => Some(crate::top::USAGE),
        Some("trace") => Some(crate::trace::USAGE),
        Some("digest") => Some(crate::digest::USAGE),
        Some(_) => None,
    }
}

/// `p4bpf help [COMMAND]`.
pub fn run(mut words: Args) -> ExitCode {
    let topic = words.next_word();
    if let Some(extra) = words.next_word() {
        return UsageError::new(format!("unexpected `{extra}` after the help topic")).report(None);
    }
    match text(topic.as_deref()) {
        Some(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        None => UsageError::new(format!(
            "no help for unknown command `{}`",
            topic.unwrap_or_default()
        ))
        .report(None),
    }
}
