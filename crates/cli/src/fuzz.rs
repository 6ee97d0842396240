//! `p4bpf fuzz PROGRAM.p4 [--packets N] [--seed S] [--entries FILE.stf]`:
//! differential testing of the user-space target against the kernel. Both
//! get the same table entries (the `add`/`setdefault` lines of the STF file,
//! by default PROGRAM.stf beside the program) and the same packets (random
//! frames and mutations of the STF file's packets, `fuzz_packets`); any
//! difference in verdict, output port or output bytes is reported with the
//! packet as hex and a reproduction: an STF file expecting what the kernel
//! did, to run with `p4bpf test --target user`. At the end every counter
//! cell is compared too.
//!
//! Exit status 0 when the targets agreed on every packet, 1 on a mismatch
//! or when a target cannot run (no root: the reason is printed), 2 for a
//! bad command line.

use crate::args::{self, Args, UsageError};
use crate::fuzz_packets::{next_packet, Packet, Rng};
use crate::target::{self, Target};
use p4bpf_compiler::CompileOptions;
use p4bpf_runtime::control::counter_cells;
use p4bpf_runtime::{stf, LoadedPipeline, PacketOutcome, Result as RunResult, RuntimeError};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub const USAGE: &str = "\
usage: p4bpf fuzz PROGRAM.p4 [--packets N] [--seed S] [--entries FILE.stf]
                  [--repro-dir DIR] [--hook xdp|tc] [--extern-file FILE.c]
                  [-I DIR]... [-D NAME[=VALUE]]...

Runs the same packets through PROGRAM in the kernel and in user space and
reports every packet where the verdict, output port or output bytes differ.

options:
  --packets N        packets to run (default 10000)
  --seed S           seed of the packet generator (default 1)
  --entries FILE     table entries and seed packets (default PROGRAM.stf if
                     it exists)
  --repro-dir DIR    where reproduction STF files go (default p4bpf-fuzz)
  --hook, --extern-file, -I, -D   as for `p4bpf compile`

exit status: 0 no mismatch, 1 a mismatch or a failure, 2 bad command line
";

/// Mismatches reported in full; the rest are only counted.
const MAX_REPORTED: usize = 10;

#[derive(Debug)]
struct Request {
    program: PathBuf,
    packets: u64,
    seed: u64,
    entries: Option<PathBuf>,
    repro_dir: PathBuf,
    compile: CompileOptions,
}

fn parse(mut words: Args) -> Result<Option<Request>, UsageError> {
    let mut compile = target::default_compile_options();
    let (mut program, mut entries) = (None, None);
    let (mut packets, mut seed) = (10_000, 1);
    let mut repro_dir = PathBuf::from("p4bpf-fuzz");
    while let Some(word) = words.next_word() {
        if word == "-h" || word == "--help" {
            return Ok(None);
        } else if let Some(n) = words.option(&word, "--packets")? {
            packets = args::parse_count("--packets", &n)?;
        } else if let Some(n) = words.option(&word, "--seed")? {
            seed = n
                .parse()
                .map_err(|_| UsageError::new(format!("`--seed {n}` is not a whole number")))?;
        } else if let Some(file) = words.option(&word, "--entries")? {
            entries = Some(PathBuf::from(file));
        } else if let Some(dir) = words.option(&word, "--repro-dir")? {
            repro_dir = PathBuf::from(dir);
        } else if target::compile_option(&mut words, &word, &mut compile)? {
            continue;
        } else if word.starts_with('-') {
            return Err(args::unknown_option(&word));
        } else if program.replace(PathBuf::from(&word)).is_some() {
            return Err(UsageError::new(format!(
                "a second program `{word}`: fuzz takes one"
            )));
        }
    }
    let program: PathBuf = program.ok_or_else(|| UsageError::new("missing the program"))?;
    let entries = entries.or_else(|| Some(program.with_extension("stf")).filter(|p| p.exists()));
    Ok(Some(Request {
        program,
        packets,
        seed,
        entries,
        repro_dir,
        compile,
    }))
}

pub fn run(words: Args) -> ExitCode {
    args::run_command(words, "fuzz", USAGE, parse, run_request)
}

/// Whether the targets agreed on every packet.
fn run_request(request: &Request) -> Result<bool, String> {
    let kernel = target::load(&request.program, &request.compile, Target::Kernel)?;
    let user = target::load(&request.program, &request.compile, Target::User)?;
    let (entry_text, seeds) = match &request.entries {
        Some(path) => {
            let entries = target::table_commands(path)?;
            target::install_entries(&kernel, path, &entries)?;
            target::install_entries(&user, path, &entries)?;
            (table_lines(path), seed_packets(path)?)
        }
        None => (String::new(), Vec::new()),
    };
    let mut rng = Rng::new(request.seed);
    let mut mismatches = 0;
    for number in 1..=request.packets {
        let packet = next_packet(&mut rng, &seeds);
        let k = kernel.run_packet(packet.port, &packet.data);
        let u = user.run_packet(packet.port, &packet.data);
        if let Some(difference) = differ(&k, &u) {
            mismatches += 1;
            if mismatches <= MAX_REPORTED {
                let repro = write_repro(request, number, &entry_text, &packet, &k);
                println!("{}", report(request, number, &packet, &difference, &repro));
            }
        }
    }
    for difference in counter_differences(&kernel, &user) {
        mismatches += 1;
        println!("MISMATCH after the run: {difference}");
    }
    println!(
        "{}: {} packets, {mismatches} mismatch(es) between kernel and user ({}, seed {})",
        if mismatches == 0 { "PASS" } else { "FAIL" },
        request.packets,
        request.program.display(),
        request.seed
    );
    Ok(mismatches == 0)
}

/// Counters whose cells differ between the targets.
fn counter_differences(kernel: &LoadedPipeline, user: &LoadedPipeline) -> Vec<String> {
    let mut out = Vec::new();
    for c in &kernel.description.counters {
        let sorted = |p: &LoadedPipeline| {
            counter_cells(p, c, None).map(|mut cells| {
                cells.sort_by_key(|cell| cell.index);
                cells
            })
        };
        let (k, u) = (sorted(kernel), sorted(user));
        if k != u {
            out.push(format!("counter {}: kernel {k:?}, user {u:?}", c.name));
        }
    }
    out
}

/// How two outcomes differ, if they do: verdict, port, then bytes of a
/// packet that leaves (a dropped packet's bytes go nowhere).
fn differ(kernel: &RunResult<PacketOutcome>, user: &RunResult<PacketOutcome>) -> Option<String> {
    match (kernel, user) {
        (Err(_), Err(_)) => None,
        // A packet BPF_PROG_TEST_RUN cannot take (too short for what its
        // EtherType announces) runs in user space only: nothing to compare.
        (Err(RuntimeError::NotSupported(_)), Ok(_)) => None,
        (Ok(k), Ok(u)) if k.verdict != u.verdict => {
            Some(format!("verdict: kernel {}, user {}", k.verdict, u.verdict))
        }
        (Ok(k), Ok(u)) if k.port != u.port => {
            Some(format!("port: kernel {:?}, user {:?}", k.port, u.port))
        }
        (Ok(k), Ok(u)) if k.verdict.delivers() && k.packet != u.packet => Some(format!(
            "bytes:\n  kernel ({} bytes): {}\n  user   ({} bytes): {}",
            k.packet.len(),
            hex(&k.packet),
            u.packet.len(),
            hex(&u.packet)
        )),
        (Ok(_), Ok(_)) => None,
        (k, u) => Some(format!(
            "one target failed: kernel {}, user {}",
            describe(k),
            describe(u)
        )),
    }
}

fn describe(result: &RunResult<PacketOutcome>) -> String {
    match result {
        Ok(outcome) => format!("{} (port {:?})", outcome.verdict, outcome.port),
        Err(e) => format!("error: {e}"),
    }
}

fn report(
    request: &Request,
    number: u64,
    packet: &Packet,
    difference: &str,
    repro: &str,
) -> String {
    let mut text = format!(
        "MISMATCH at packet {number} (seed {}) in port {}: {difference}\n  packet ({} bytes): {}\n",
        request.seed,
        packet.port,
        packet.data.len(),
        hex(&packet.data)
    );
    let _ = write!(text, "  reproduce: {repro}");
    text
}

/// An STF file with the entries, the packet and what the kernel did with
/// it; the command that runs it on the user target (or why none was written).
fn write_repro(
    request: &Request,
    number: u64,
    entries: &str,
    packet: &Packet,
    kernel: &RunResult<PacketOutcome>,
) -> String {
    let mut stf = format!(
        "# p4bpf fuzz {} --seed {}: packet {number}; expects what the kernel did\n{entries}packet {} {}\n",
        request.program.display(),
        request.seed,
        packet.port,
        hex(&packet.data)
    );
    if let Ok(outcome) = kernel {
        if let (true, Some(port)) = (outcome.verdict.delivers(), outcome.port) {
            let _ = writeln!(stf, "expect {port} {}$", hex(&outcome.packet));
        }
    }
    let stem = request
        .program
        .file_stem()
        .map_or_else(|| "prog".into(), |s| s.to_string_lossy().into_owned());
    let path = request
        .repro_dir
        .join(format!("{stem}-seed{}-packet{number}.stf", request.seed));
    let written =
        std::fs::create_dir_all(&request.repro_dir).and_then(|()| std::fs::write(&path, stf));
    match written {
        Ok(()) => format!(
            "p4bpf test {} {} --target user --hook {}",
            request.program.display(),
            path.display(),
            format!("{:?}", request.compile.hook).to_lowercase()
        ),
        Err(e) => format!("(cannot write {}: {e})", path.display()),
    }
}

/// The `add` and `setdefault` lines of the STF file, as written.
fn table_lines(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| {
            let l = l.trim_start();
            l.starts_with("add ") || l.starts_with("setdefault ")
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

fn seed_packets(path: &Path) -> Result<Vec<Packet>, String> {
    let script = target::read_stf(path)?;
    Ok(script
        .into_iter()
        .filter_map(|l| match l.command {
            stf::Command::Packet { port, data } => Some(Packet { port, data }),
            _ => None,
        })
        .collect())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use p4bpf_runtime::Verdict;

    fn outcome(verdict: Verdict, port: Option<u32>, packet: &[u8]) -> RunResult<PacketOutcome> {
        Ok(PacketOutcome {
            verdict,
            port,
            packet: packet.to_vec(),
            retval: 0,
        })
    }

    #[test]
    fn differences_in_verdict_port_and_sent_bytes_count() {
        let pass = outcome(Verdict::Pass, Some(0), &[1, 2]);
        assert_eq!(differ(&pass, &pass), None);
        assert!(differ(&pass, &outcome(Verdict::Drop, None, &[1, 2])).is_some());
        assert!(differ(&pass, &outcome(Verdict::Pass, Some(1), &[1, 2])).is_some());
        assert!(differ(&pass, &outcome(Verdict::Pass, Some(0), &[1, 3])).is_some());
        // A dropped packet's leftover bytes are not output.
        let dropped = |b: &[u8]| outcome(Verdict::Drop, None, b);
        assert_eq!(differ(&dropped(&[1]), &dropped(&[2])), None);
    }

    #[test]
    fn takes_counts_seed_and_program() {
        let words = |list: &[&str]| Args::new(list.iter().map(|w| w.to_string()).collect());
        let r = parse(words(&["p.p4", "--packets", "5", "--seed", "9"]))
            .ok()
            .flatten();
        assert!(r.is_some_and(|r| r.packets == 5 && r.seed == 9 && r.entries.is_none()));
        assert!(parse(words(&["--packets", "0", "p.p4"])).is_err());
        assert!(parse(words(&[])).is_err());
    }
}
