//! What one P4Runtime INSERT of a ternary rule costs, with and without an
//! idle timer, as the table grows (`bench/p4runtime/timed_rules.p4`: two
//! ternary tables of one shape, one with `psa_idle_timeout`). Each insert
//! takes the steps the Write RPC takes for it (`p4runtime::write`): the
//! duplicate check (`control::contains`), then the insert: `control::add`, or
//! on the timed table `entry_timeout::insert` (the rule with its timer
//! started). Figures before and after that path: bench/p4runtime/README.md.
//! The table
//! is first filled to 100, 500 and 2000 rules in one batch; the mean CPU
//! time (this thread's, user and system: the machine is shared, so wall
//! time is its load) of the inserts after that is printed. Needs root.
//! `cargo run --release -p p4bpf --example timed_inserts`.

use p4bpf_compiler::CompileOptions;
use p4bpf_layout::{Hook, Table};
use p4bpf_runtime::control::{self, TableBatch};
use p4bpf_runtime::deploy::{self, Deployment, LoadOptions, XdpMode};
use p4bpf_runtime::entry::EntrySpec;
use p4bpf_runtime::entry_timeout;
use std::path::Path;

/// Rules in the table before the timed inserts.
const SIZES: [u32; 3] = [100, 500, 2000];
/// Inserts timed at each size.
const INSERTS: u32 = 40;
/// The idle timeout the timed inserts give (1 s).
const TIMEOUT_NS: u64 = 1_000_000_000;

fn main() {
    if let Err(why) = run() {
        eprintln!("timed_inserts: {why}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    p4bpf_runtime::check_bpf_available().map_err(|e| e.to_string())?;
    let name = format!("p4rttimed{}", std::process::id());
    let deployment = load(&name)?;
    let measured = measure(&deployment);
    let _ = deploy::unload(&name);
    println!("| rules | plain insert, CPU ms | timed, idle_timeout_ns 0 | timed, 1 s |");
    println!("| ---: | ---: | ---: | ---: |");
    for (size, [plain, zero, timed]) in SIZES.iter().zip(measured?) {
        println!("| {size} | {plain:.3} | {zero:.3} | {timed:.3} |");
    }
    Ok(())
}

fn load(name: &str) -> Result<Deployment, String> {
    let program =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/p4runtime/timed_rules.p4");
    let out_dir = std::env::temp_dir().join(format!("{name}-build"));
    let options = CompileOptions {
        front: p4bpf_front::Options::default(),
        hook: Hook::Tc,
        out_dir: out_dir.clone(),
        extern_file: None,
        trace: false,
        table_stats: false,
        table_caching: false,
        port_notes: true,
    };
    let compiled = p4bpf_compiler::compile_file(&program, &options)
        .map_err(|_| format!("{} does not compile", program.display()))?;
    let image = std::fs::read(&compiled.object).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&out_dir);
    let options = LoadOptions {
        name: name.to_string(),
        xdp_mode: XdpMode::Generic,
        p4info: None,
    };
    deploy::load(image, &options).map_err(|e| e.to_string())
}

/// Per size: ms per plain insert, per timed insert without a timeout and
/// per timed insert with one.
fn measure(deployment: &Deployment) -> Result<Vec<[f64; 3]>, String> {
    let table = |name: &str| {
        (deployment.description.tables.iter())
            .find(|t| t.name == name)
            .cloned()
            .ok_or(format!("no table {name}"))
    };
    let (timed, plain) = (table("In.timed")?, table("In.plain")?);
    let mut figures = vec![];
    for size in SIZES {
        for table in [&timed, &plain] {
            control::clear(deployment, table).map_err(|e| e.to_string())?;
            let mut batch = TableBatch::new(table);
            for i in 0..size {
                batch.push(&rule(i)).map_err(|e| e.to_string())?;
            }
            control::insert_table_batches(deployment, &[batch]).map_err(|e| format!("{e:?}"))?;
        }
        let after = |k: u32| size + k..size + k + INSERTS;
        figures.push([
            time_inserts(deployment, &plain, after(0), None)?,
            time_inserts(deployment, &timed, after(0), Some(0))?,
            time_inserts(deployment, &timed, after(INSERTS), Some(TIMEOUT_NS))?,
        ]);
    }
    Ok(figures)
}

/// Mean ms per insert of the rules `numbers`, as the Write RPC inserts.
fn time_inserts(
    deployment: &Deployment,
    table: &Table,
    numbers: std::ops::Range<u32>,
    timeout: Option<u64>,
) -> Result<f64, String> {
    let count = numbers.len() as f64;
    let start = thread_cpu_ns()?;
    for i in numbers {
        let spec = rule(i);
        if control::contains(deployment, table, &spec) {
            return Err(format!("rule {i} is already there"));
        }
        let description = &deployment.description;
        match timeout {
            Some(ns) => entry_timeout::insert(deployment, description, table, &spec, ns),
            None => control::add(deployment, table, &spec),
        }
        .map_err(|e| e.to_string())?;
    }
    Ok((thread_cpu_ns()? - start) as f64 / 1e6 / count)
}

/// `timespec` of `clock_gettime`.
#[repr(C)]
struct Timespec {
    seconds: i64,
    nanoseconds: i64,
}

/// `CLOCK_THREAD_CPUTIME_ID`.
const THREAD_CPU: i32 = 3;

extern "C" {
    fn clock_gettime(clock: i32, time: *mut Timespec) -> i32;
}

/// The CPU time this thread has used, in ns.
fn thread_cpu_ns() -> Result<u64, String> {
    let mut time = Timespec {
        seconds: 0,
        nanoseconds: 0,
    };
    // SAFETY: `time` is a valid timespec for the call to fill.
    if unsafe { clock_gettime(THREAD_CPU, &mut time) } != 0 {
        return Err("the thread's CPU clock cannot be read".into());
    }
    Ok(time.seconds as u64 * 1_000_000_000 + time.nanoseconds as u64)
}

/// Rule `i`: a value under one of four masks, a `b` of its own, and a
/// priority of its own (so no two rules are one).
fn rule(i: u32) -> EntrySpec {
    let masks = [0xffff, 0xfff0, 0xff00, 0xf0f0];
    let mask = masks[i as usize % masks.len()];
    let value = (i.wrapping_mul(7919) & 0xffff) & mask;
    EntrySpec {
        keys: vec![
            (0, format!("{value:#x}&&&{mask:#x}")),
            (1, format!("{}", i % 256)),
        ],
        action: 0,
        args: vec![(0, format!("{}", i % 256))],
        priority: Some(i + 1),
    }
}
