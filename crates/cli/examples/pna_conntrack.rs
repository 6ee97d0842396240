//! Connection tracking with PNA add-on-miss (`bench/pna/conntrack.p4`),
//! timed with `BPF_PROG_TEST_RUN` at XDP: data-plane inserts per second
//! (one new flow per run, the kernel's time for each), ns/packet on hits
//! (one learned flow, many runs), and control-plane inserts per second
//! (one `bpf(BPF_MAP_UPDATE_BATCH)` call per entry, then batches of 4096);
//! each without and with idle timers on the entries (`-D AGING`).
//! Needs root. `cargo run --release -p p4bpf --example pna_conntrack`.

use p4bpf_compiler::CompileOptions;
use p4bpf_layout::Hook;
use p4bpf_runtime::bench::fill::write_all;
use p4bpf_runtime::bench::packet::udp_packet;
use p4bpf_runtime::bench::{median, time_plain, BenchObject};
use p4bpf_runtime::test_run;
use std::path::Path;
use std::time::Instant;

/// New flows timed for data-plane inserts.
const FLOWS: u32 = 100_000;
/// Entries written by the control plane.
const ENTRIES: u32 = 200_000;

fn main() {
    if let Err(why) = run() {
        eprintln!("pna_conntrack: {why}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    p4bpf_runtime::check_bpf_available().map_err(|e| e.to_string())?;
    let plain = measure(false)?;
    let aging = measure(true)?;
    println!("| measure | without timers | with idle timers |");
    println!("| --- | ---: | ---: |");
    for (i, what) in [
        "data-plane inserts (add-on-miss), per second, kernel time",
        "data-plane insert + miss, ns/packet",
        "hit on a learned flow, ns/packet",
        "control-plane inserts, one syscall each, per second",
        "control-plane inserts, batches of 4096, per second",
    ]
    .iter()
    .enumerate()
    {
        // Rates as whole numbers, times to a tenth of a nanosecond.
        let digits = usize::from(what.contains("ns/"));
        println!(
            "| {what} | {:.*} | {:.*} |",
            digits, plain[i], digits, aging[i]
        );
    }
    Ok(())
}

/// The five figures of the table, for the program with or without timers.
fn measure(aging: bool) -> Result<[f64; 5], String> {
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/pna/conntrack.p4");
    let out_dir = std::env::temp_dir().join(format!("p4bpf-conntrack-{}", std::process::id()));
    let mut front = p4bpf_front::Options::default();
    if aging {
        front.defines.push(("AGING".into(), "1".into()));
    }
    let options = CompileOptions {
        front,
        hook: Hook::Xdp,
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
    let table = compiled.pipeline.tables.first().ok_or("no table")?;
    let (map, key_size, value_size) = (
        table.map.clone(),
        table.key_size as usize,
        table.value_size as usize,
    );

    let data_plane = BenchObject::load(image.clone()).map_err(|e| e.to_string())?;
    let fd = data_plane
        .program_fd(&compiled.pipeline.entry)
        .map_err(|e| e.to_string())?;
    // Each packet a new flow: its destination address is the flow number.
    let mut kernel_ns = 0u64;
    for flow in 0..FLOWS {
        let packet = udp_packet((flow + 1).to_be_bytes());
        let out = test_run::run(fd, &packet, 1).map_err(|e| e.to_string())?;
        kernel_ns += u64::from(out.duration_ns);
    }
    let inserts_per_s = f64::from(FLOWS) / (kernel_ns as f64 / 1e9);
    // The first flow is learned now: every run hits it.
    let hit = udp_packet(1u32.to_be_bytes());
    let mut samples = vec![];
    for _ in 0..9 {
        let timing = time_plain(fd, &hit, 200_000).map_err(|e| e.to_string())?;
        samples.push(timing.cpu_ns);
    }
    let hit_ns = median(&samples).unwrap_or(f64::NAN);

    let (keys, values) = entries(ENTRIES, key_size, value_size);
    // One entry per call, as `p4bpf table add` writes, into a fresh map.
    let single = BenchObject::load(image.clone()).map_err(|e| e.to_string())?;
    let map_fd = single.map_fd(&map).map_err(|e| e.to_string())?;
    let start = Instant::now();
    for (key, value) in keys.chunks(key_size).zip(values.chunks(value_size)) {
        write_all(map_fd, key, key_size, value, value_size).map_err(|e| e.to_string())?;
    }
    let single_per_s = f64::from(ENTRIES) / start.elapsed().as_secs_f64();
    // All of them in batches, as `p4bpf table load` writes, into another.
    let batched = BenchObject::load(image).map_err(|e| e.to_string())?;
    let map_fd = batched.map_fd(&map).map_err(|e| e.to_string())?;
    let start = Instant::now();
    write_all(map_fd, &keys, key_size, &values, value_size).map_err(|e| e.to_string())?;
    let batch_per_s = f64::from(ENTRIES) / start.elapsed().as_secs_f64();
    Ok([
        inserts_per_s,
        kernel_ns as f64 / f64::from(FLOWS),
        hit_ns,
        single_per_s,
        batch_per_s,
    ])
}

/// `count` distinct keys (the entry number in the first four bytes) and
/// values (`allow` to port 1: action code 1, then the port).
fn entries(count: u32, key_size: usize, value_size: usize) -> (Vec<u8>, Vec<u8>) {
    let mut keys = vec![0u8; count as usize * key_size];
    let mut values = vec![0u8; count as usize * value_size];
    for i in 0..count as usize {
        keys[i * key_size..i * key_size + 4].copy_from_slice(&(i as u32 + 1).to_ne_bytes());
        let value = &mut values[i * value_size..(i + 1) * value_size];
        for word in value.chunks_mut(4).take(2) {
            word.copy_from_slice(&1u32.to_ne_bytes());
        }
    }
    (keys, values)
}
