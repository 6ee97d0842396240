//! Builds, loads and times every program of a run. Programs are timed in
//! interleaved rounds; each figure is the median over rounds of the
//! kernel's average ns per run.

use super::matrix::{self, Point};
use super::suite::{self, Family, Mode};
use super::{build, designs, fill, twin, veth::VethPair, Request};
use p4bpf_compiler::Hook;
use p4bpf_runtime::bench::live::time_live;
use p4bpf_runtime::bench::{median, packet, time_plain, BenchObject, ProgramFacts};
use p4bpf_runtime::check_bpf_available;
use std::path::Path;

/// One loaded program and what was measured of it.
pub struct Subject {
    pub label: String,
    pub mode: Mode,
    object: BenchObject,
    program: String,
    pub facts: ProgramFacts,
    /// Kernel-reported ns per run, one per round.
    pub samples: Vec<f64>,
    /// Thread CPU ns per run, one per round (plain mode only).
    pub cpu_samples: Vec<f64>,
    /// The packet it is timed with.
    packet: Vec<u8>,
    /// The verdict every timed run must return, when the case names one.
    verdict: Option<u32>,
}

impl Subject {
    fn program_fd(&self) -> Result<i32, String> {
        self.object
            .program_fd(&self.program)
            .map_err(|e| format!("{}: {e}", self.label))
    }

    pub fn ns(&self) -> f64 {
        median(&self.samples).unwrap_or(f64::NAN)
    }

    /// The CPU-time median where there is one, else the kernel's.
    pub fn fine_ns(&self) -> f64 {
        median(&self.cpu_samples).unwrap_or_else(|| self.ns())
    }
}

/// A study program and its twin.
pub struct Pair {
    pub name: &'static str,
    pub family: Family,
    pub what: &'static str,
    pub p4: Subject,
    pub twin: Subject,
}

/// One matrix point: median ns and facts of the generated program and of
/// its hand-written twin (`c/matrix.c`).
pub struct MatrixRow {
    pub point: Point,
    pub p4: (f64, ProgramFacts),
    pub twin: (f64, ProgramFacts),
}

pub struct Results {
    pub pairs: Vec<Pair>,
    /// The floors, plain, and the tx floor live when live runs happened.
    pub floors: Vec<Subject>,
    /// Why live-frame cases were not timed, when they were not.
    pub live_skipped: Option<String>,
    /// Cases not timed, each with why.
    pub skipped: Vec<String>,
    /// Table matrix points, generated program and twin.
    pub matrix: Vec<MatrixRow>,
    /// Ternary designs: (label, median ns, facts).
    pub designs: Vec<(String, f64, ProgramFacts)>,
    pub clang: String,
    pub kernel: String,
    pub cpu: String,
    /// `/proc/loadavg`'s 1-minute figure when the run started and ended:
    /// other work on the machine, which interleaving makes fair but noisy.
    pub load: (String, String),
}

pub fn run(request: &Request) -> Result<Results, String> {
    check_bpf_available().map_err(|e| format!("cannot benchmark on this machine: {e}"))?;
    let scratch = std::env::temp_dir().join(format!("p4bpf-bench-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)
        .map_err(|e| format!("cannot create {}: {e}", scratch.display()))?;
    let outcome = run_in(request, &scratch);
    // Best effort: a leftover scratch folder is harmless.
    let _ = std::fs::remove_dir_all(&scratch);
    outcome
}

/// `--table-cache`: the cache's figure as Markdown.
pub fn table_cache(request: &Request) -> Result<String, String> {
    check_bpf_available().map_err(|e| format!("cannot benchmark on this machine: {e}"))?;
    let scratch = std::env::temp_dir().join(format!("p4bpf-bench-cache-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)
        .map_err(|e| format!("cannot create {}: {e}", scratch.display()))?;
    let load_at_start = load_average();
    let rows = super::table_cache::run(request, &scratch);
    // Best effort: a leftover scratch folder is harmless.
    let _ = std::fs::remove_dir_all(&scratch);
    let load = (load_at_start, load_average());
    Ok(super::table_cache::markdown(request, &rows?, &load))
}

fn run_in(request: &Request, scratch: &Path) -> Result<Results, String> {
    let load_at_start = load_average();
    // The veth pair first: routed cases need its ifindex in their entries.
    build::c_object(&request.suite.join("c").join("drop.c"), scratch, &[])?;
    let (pair, live_skipped) = match VethPair::create(&scratch.join("twin_drop.o")) {
        Ok(pair) => (Some(pair), None),
        Err(why) => (None, Some(why)),
    };
    let port = pair.as_ref().map(|p| p.ifindex).unwrap_or(0);
    let cases: Vec<_> = suite::cases(port)
        .into_iter()
        .filter(|c| request.only.as_deref().is_none_or(|only| only == c.name))
        .filter(|c| !request.psa || c.family == Family::Psa)
        .collect();
    if cases.is_empty() {
        return Err(format!(
            "no study program named `{}`",
            request.only.as_deref().unwrap_or_default()
        ));
    }
    let mut pairs = Vec::new();
    let mut skipped = Vec::new();
    for case in &cases {
        let Some(p4_path) = p4_source(request, case) else {
            skipped.push(format!(
                "{}: not timed, {} is absent (the shared corpus is read at run time, never copied here)",
                case.name,
                corpus_dir(request).display()
            ));
            continue;
        };
        let (image, pipeline) = build::p4_object_at(&p4_path, scratch, case.hook)
            .map_err(|e| format!("{}: {e}", p4_path.display()))?;
        let mut p4 = load(
            format!("{} (P4)", case.name),
            case.mode,
            image,
            &pipeline.entry,
        )?;
        p4.packet = case.packet.clone();
        p4.verdict = case.verdict;
        fill::write_ports(&p4.object, &pipeline, &case.p4_ports)
            .map_err(|e| format!("{}: {e}", case.name))?;
        fill::write_p4(&p4.object, &pipeline, &case.p4_entries)
            .map_err(|e| format!("{}: {e}", case.name))?;
        // Routed entries name the veth's ifindex as their P4 port too,
        // unless the case names its own.
        if let (Some(ports), true) = (&pipeline.port_map, port != 0) {
            let p4_port = case.p4_port.unwrap_or(port);
            fill::write_output_ports(&p4.object, &pipeline, ports, &[(p4_port, port)])
                .map_err(|e| format!("{}: {e}", case.name))?;
        }
        let mut twin = load_twin(request, scratch, case.name, case.mode, case.hook)?;
        twin.packet = case.packet.clone();
        twin.verdict = case.verdict;
        fill::write_raw(&twin.object, &case.twin_entries)
            .map_err(|e| format!("twin {}: {e}", case.name))?;
        pairs.push(Pair {
            name: case.name,
            family: case.family,
            what: case.what,
            p4,
            twin,
        });
    }
    let mut floors = Vec::new();
    for (name, _) in suite::FLOORS {
        floors.push(load_c(request, scratch, name, Mode::Plain)?);
    }
    floors.push(load_c(request, scratch, "tx", Mode::Live)?);
    for round in 0..request.rounds {
        // Which of a pair runs first alternates: the first live run after
        // plain ones pays for waking the veth up.
        let twin_first = round % 2 == 1;
        let subjects = pairs
            .iter_mut()
            .flat_map(|p| {
                if twin_first {
                    [&mut p.twin, &mut p.p4]
                } else {
                    [&mut p.p4, &mut p.twin]
                }
            })
            .chain(floors.iter_mut());
        for subject in subjects {
            let fd = subject
                .object
                .program_fd(&subject.program)
                .map_err(|e| e.to_string())?;
            let failed = |e: p4bpf_runtime::RuntimeError| format!("{}: {e}", subject.label);
            match (subject.mode, &pair) {
                (Mode::Plain, _) => {
                    let timing = time_plain(fd, &subject.packet, request.repeat).map_err(failed)?;
                    if subject.verdict.is_some_and(|v| v != timing.verdict) {
                        return Err(format!(
                            "{}: the packet took another path (verdict {}), the figure would time it",
                            subject.label, timing.verdict
                        ));
                    }
                    subject.samples.push(timing.kernel_ns);
                    subject.cpu_samples.push(timing.cpu_ns);
                }
                (Mode::Live, Some(veth)) => {
                    let ns = time_live(fd, &subject.packet, request.repeat, veth.ifindex)
                        .map_err(failed)?;
                    subject.samples.push(ns);
                }
                (Mode::Live, None) => continue,
            }
        }
    }
    drop(pair);
    let matrix = if request.matrix {
        run_matrix(request, scratch)?
    } else {
        Vec::new()
    };
    let designs = if request.matrix {
        run_designs(request, scratch)?
    } else {
        Vec::new()
    };
    Ok(Results {
        designs,
        matrix,
        pairs,
        floors,
        live_skipped,
        skipped,
        clang: build::clang_version(),
        kernel: first_line("/proc/sys/kernel/osrelease"),
        cpu: cpu_model(),
        load: (load_at_start, load_average()),
    })
}

/// Every matrix point, one at a time (their maps together would not fit
/// in memory comfortably): compile the P4 program and build the twin, load
/// and fill both, time them in interleaved rounds.
fn run_matrix(request: &Request, scratch: &Path) -> Result<Vec<MatrixRow>, String> {
    let wire = matrix::packet();
    let mut out = Vec::new();
    // Up to the 192 masks of the P4-in-the-kernel evaluation.
    for point in matrix::points(192) {
        let name = format!(
            "matrix_{}_{}t_{}e_{}m_{}b",
            point.kind.name(),
            point.tables,
            point.entries,
            point.masks,
            point.key_bytes
        );
        let source = scratch.join(format!("{name}.p4"));
        std::fs::write(&source, matrix::program(&point))
            .map_err(|e| format!("cannot write {}: {e}", source.display()))?;
        let (image, pipeline) =
            build::p4_object(&source, scratch).map_err(|e| format!("{name}: {e}"))?;
        let p4 = load(name.clone(), Mode::Plain, image, &pipeline.entry)?;
        matrix::write(&p4.object, &pipeline, &matrix::entries(&point))
            .map_err(|e| format!("{name}: {e}"))?;
        let c_path = request.suite.join("c").join("matrix.c");
        let image = build::c_object(&c_path, scratch, &twin::defines(&point))
            .map_err(|e| format!("{name}: {e}"))?;
        let c = load(format!("{name} (C)"), Mode::Plain, image, "matrix_xdp")?;
        let maps = twin::maps(&point).map_err(|e| format!("{name} (C): {e}"))?;
        fill::write_raw(&c.object, &maps).map_err(|e| format!("{name} (C): {e}"))?;
        let (p4_fd, c_fd) = (p4.program_fd()?, c.program_fd()?);
        let (mut p4_samples, mut c_samples) = (Vec::new(), Vec::new());
        // Slow points (many masks) need fewer repeats for the same time.
        let repeat = (request.repeat / 10).max(1);
        for _ in 0..request.rounds {
            for (fd, samples, label) in [
                (p4_fd, &mut p4_samples, &p4.label),
                (c_fd, &mut c_samples, &c.label),
            ] {
                let timing = time_plain(fd, &wire, repeat).map_err(|e| format!("{label}: {e}"))?;
                if timing.verdict != XDP_TX {
                    return Err(format!(
                        "{label}: the packet missed (verdict {}), the figure would time a miss",
                        timing.verdict
                    ));
                }
                samples.push(timing.kernel_ns);
            }
        }
        let (p4_ns, c_ns) = (
            median(&p4_samples).unwrap_or(f64::NAN),
            median(&c_samples).unwrap_or(f64::NAN),
        );
        eprintln!("{name}: {p4_ns:.1} ns, twin {c_ns:.1} ns");
        out.push(MatrixRow {
            point,
            p4: (p4_ns, p4.facts),
            twin: (c_ns, c.facts),
        });
    }
    Ok(out)
}

/// The two hand-written ternary designs on the 192-mask ruleset.
fn run_designs(
    request: &Request,
    scratch: &Path,
) -> Result<Vec<(String, f64, ProgramFacts)>, String> {
    let wire = matrix::packet();
    let mut out = Vec::new();
    for (name, maps) in [
        ("ternary_tss", Ok(designs::tss())),
        ("ternary_grouped", designs::grouped()),
    ] {
        let subject = load_c(request, scratch, name, Mode::Plain)?;
        fill::write_raw(&subject.object, &maps?).map_err(|e| format!("{name}: {e}"))?;
        let fd = subject
            .object
            .program_fd(&subject.program)
            .map_err(|e| e.to_string())?;
        let mut samples = Vec::new();
        for _ in 0..request.rounds {
            let timing = time_plain(fd, &wire, (request.repeat / 10).max(1))
                .map_err(|e| format!("{name}: {e}"))?;
            if timing.verdict != XDP_TX {
                return Err(format!(
                    "{name}: the packet missed (verdict {})",
                    timing.verdict
                ));
            }
            samples.push(timing.kernel_ns);
        }
        out.push((
            name.to_string(),
            median(&samples).unwrap_or(f64::NAN),
            subject.facts,
        ));
    }
    Ok(out)
}

/// What the matrix programs return on a hit.
const XDP_TX: u32 = 3;

fn load_c(request: &Request, scratch: &Path, name: &str, mode: Mode) -> Result<Subject, String> {
    load_twin(request, scratch, name, mode, Hook::Xdp)
}

/// `c/NAME.c`, whose program is `NAME_xdp` or `NAME_tc`.
fn load_twin(
    request: &Request,
    scratch: &Path,
    name: &str,
    mode: Mode,
    hook: Hook,
) -> Result<Subject, String> {
    let c_path = request.suite.join("c").join(format!("{name}.c"));
    let image = build::c_object(&c_path, scratch, &[])?;
    let program = match hook {
        Hook::Xdp => format!("{name}_xdp"),
        Hook::Tc => format!("{name}_tc"),
    };
    load(format!("{name} (C)"), mode, image, &program)
}

/// The shared corpus beside the repository the suite is in.
fn corpus_dir(request: &Request) -> std::path::PathBuf {
    request.suite.join("../../shared/corpus/p4c")
}

/// The case's P4 program: `p4/NAME.p4`, or its corpus file when that
/// exists; `None` when the corpus is absent.
fn p4_source(request: &Request, case: &suite::Case) -> Option<std::path::PathBuf> {
    match case.corpus {
        None => Some(request.suite.join("p4").join(format!("{}.p4", case.name))),
        Some(file) => Some(corpus_dir(request).join(file)).filter(|p| p.is_file()),
    }
}

fn load(label: String, mode: Mode, image: Vec<u8>, program: &str) -> Result<Subject, String> {
    let object = BenchObject::load(image).map_err(|e| format!("{label}: {e}"))?;
    let facts = object.facts(program).map_err(|e| format!("{label}: {e}"))?;
    Ok(Subject {
        label,
        mode,
        object,
        program: program.to_string(),
        facts,
        samples: Vec::new(),
        cpu_samples: Vec::new(),
        packet: packet::udp_packet(packet::DST_IP),
        verdict: None,
    })
}

/// The 1-minute load average.
fn load_average() -> String {
    let line = first_line("/proc/loadavg");
    line.split_whitespace()
        .next()
        .unwrap_or("unknown")
        .to_string()
}

fn first_line(path: &str) -> String {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| t.lines().next().map(str::to_string))
        .unwrap_or_else(|| "unknown".into())
}

fn cpu_model() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = info
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")
                .and_then(|r| r.split(':').nth(1))
        })
        .map(str::trim)
        .unwrap_or("unknown CPU");
    let cpus = info.lines().filter(|l| l.starts_with("processor")).count();
    format!("{model}, {cpus} CPUs")
}
