//! `@atomic` blocks under a lock across CPUs (fixtures in `atomic_cpus/`):
//! two threads pinned to CPU 0 and CPU 1 drive the same loaded program
//! with BPF_PROG_TEST_RUN at the same time, at XDP and at TC, and no
//! update of the block's read-modify-writes is lost; the block's ways out
//! (`exit`, `return`) and cells past the end behave on every target; the
//! blocks a spin lock cannot hold take a lock word instead (more in
//! `atomic2_cpus.rs`).
//! Skips, saying why, without root/BPF, clang or a second CPU.

#![allow(clippy::panic)] // a failing test should stop loudly

mod common;

use p4bpf_compiler::{CompileOptions, Hook};
use p4bpf_runtime::{stf, test_run, LoadedPipeline};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/atomic_cpus")
        .join(name)
}

/// `sum_count.p4`'s probe: op 0, `slot`, `amount`, then what the program
/// writes back (the cells before the packet, and hits).
fn probe(slot: u8, amount: u16) -> Vec<u8> {
    let mut frame = vec![0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0x90, 0x00];
    frame.extend([0, slot]);
    frame.extend(amount.to_be_bytes());
    frame.extend([0; 14]);
    frame
}

fn load(program: &Path, hook: Hook, test: &str) -> LoadedPipeline {
    let options = CompileOptions {
        front: Default::default(),
        hook,
        out_dir: common::scratch_dir(test),
        extern_file: None,
        trace: false,
        table_stats: false,
        table_caching: false,
        port_notes: true,
    };
    let compiled = p4bpf_compiler::compile_file(program, &options)
        .unwrap_or_else(|e| panic!("compile {}: {e:?}", program.display()));
    let image = std::fs::read(&compiled.object).unwrap_or_default();
    LoadedPipeline::from_image(image).unwrap_or_else(|e| panic!("load: {e}"))
}

extern "C" {
    /// From libc: the CPUs the calling thread may run on.
    fn sched_setaffinity(pid: i32, size: usize, mask: *const u64) -> i32;
}

/// Pins the calling thread to `cpu` (below 64).
fn pin_to(cpu: u32) -> bool {
    let mask = 1u64 << cpu;
    // SAFETY: the mask is one readable u64 of the size given; pid 0 is us.
    unsafe { sched_setaffinity(0, std::mem::size_of::<u64>(), &mask) == 0 }
}

/// Runs `fd` on `frame` `rounds * repeat` times from each of two threads,
/// one on CPU 0 and one on CPU 1, started together.
fn run_on_two_cpus(fd: i32, frame: &[u8], rounds: u32, repeat: u32) {
    let start = std::sync::Barrier::new(2);
    std::thread::scope(|s| {
        for cpu in [0, 1] {
            let start = &start;
            s.spawn(move || {
                assert!(pin_to(cpu), "cannot pin a thread to CPU {cpu}");
                start.wait();
                for _ in 0..rounds {
                    test_run::run(fd, frame, repeat).unwrap_or_else(|e| panic!("run: {e}"));
                }
            });
        }
    });
}

/// A register cell's value, as the control plane reads it.
fn cell(pipeline: &LoadedPipeline, name: &str, index: u32) -> u64 {
    let line = stf::registers::read(pipeline, &pipeline.description, name, &index.to_string())
        .unwrap_or_else(|e| panic!("read {name}: {e}"));
    let value = line.rsplit(' ').next().unwrap_or_default();
    value
        .parse()
        .unwrap_or_else(|_| panic!("`{line}` ends in no number"))
}

fn second_cpu_missing() -> Option<String> {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    (cpus < 2).then(|| format!("{cpus} CPU: the race needs two"))
}

/// Both CPUs add to the same cells at once: `count` is exactly the
/// number of packets, and `sum` moved with it (5 + amount per packet);
/// the second ingress block's, egress's and the parser's counts are
/// exact too.
#[test]
fn locked_read_modify_writes_lose_no_update_across_two_cpus_at_xdp_and_tc() {
    if let Some(why) = common::kernel_unavailable().or_else(second_cpu_missing) {
        eprintln!("SKIPPED atomic across CPUs: {why}");
        return;
    }
    const ROUNDS: u32 = 4;
    const REPEAT: u32 = 250_000;
    for (hook, name) in [(Hook::Xdp, "xdp"), (Hook::Tc, "tc")] {
        let pipeline = load(
            &fixture("sum_count.p4"),
            hook,
            &format!("atomic_cpus_{name}"),
        );
        let fd = pipeline.program_fd().unwrap_or_else(|e| panic!("{e}"));
        run_on_two_cpus(fd, &probe(2, 3), ROUNDS, REPEAT);
        let packets = u64::from(2 * ROUNDS * REPEAT);
        let (count, sum) = (cell(&pipeline, "In.count", 2), cell(&pipeline, "In.sum", 2));
        let hits = cell(&pipeline, "In.hits", 0);
        assert_eq!(count, packets, "{name}: count lost updates");
        assert_eq!(sum, 5 + 3 * packets, "{name}: sum lost updates");
        assert_eq!(
            hits,
            packets % (1 << 16),
            "{name}: hits (16 bits) lost updates"
        );
        let departed = cell(&pipeline, "Eg.departed", 0);
        assert_eq!(departed, packets, "{name}: egress's departed lost updates");
        let parsed = cell(&pipeline, "InParser.parsed", 0);
        assert_eq!(parsed, packets, "{name}: the parser's parsed lost updates");
    }
}

/// `exit` and `return` inside locked blocks unlock and leave; a slot past
/// the end reads the initial values and writes nothing (`sum_count`,
/// PSA); p4c's RCP update, three registers partly updated (`v1model_rcp`);
/// the same on the kernel and user targets, at XDP and TC.
#[test]
fn locked_blocks_leave_and_read_alike_on_every_target() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED atomic STF: {why}");
        return;
    }
    for (stem, packets) in [("sum_count", 7), ("v1model_rcp", 3)] {
        let program = fixture(&format!("{stem}.p4"));
        let script = fixture(&format!("{stem}.stf"));
        let (p, s) = (program.to_string_lossy(), script.to_string_lossy());
        for target in ["kernel", "user"] {
            for hook in ["xdp", "tc"] {
                let args = ["test", &p, &s, "--target", target, "--hook", hook];
                let out = common::p4bpf(&args);
                let text = format!("{}{}", common::stdout(&out), common::stderr(&out));
                let pass = format!("PASS: {packets} packets");
                let ok = out.status.success() && text.contains(&pass);
                assert!(ok, "{stem} {target} {hook}:\n{text}");
                assert!(!text.contains("warning"), "{stem}: {text}");
            }
        }
    }
}

/// Each block of `helper_blocks.p4` marked `// helpers:` calls a kernel
/// helper or touches a cell it cannot look up first, and its last block
/// could take a bpf_spin_lock; they share `cells`, so all eight take one
/// lock word, with no warning, and the verifier accepts them at XDP and
/// TC (a loop, a table, a Counter, Random under the word).
#[test]
fn blocks_a_spin_lock_cannot_hold_take_a_lock_word_without_warning() {
    let program = fixture("helper_blocks.p4");
    let source = std::fs::read_to_string(&program).unwrap_or_default();
    let dir = common::scratch_dir("atomic_cpus_helper_blocks");
    let out_dir = dir.to_string_lossy();
    let out = common::p4bpf(&["compile", &program.to_string_lossy(), "-o", &out_dir]);
    let err = common::stderr(&out);
    assert!(out.status.success() && !err.contains("warning"), "{err}");
    let marks = source.matches("// helpers: ").count();
    assert_eq!(marks, 7, "the fixture's marks changed");
    let c = std::fs::read_to_string(dir.join("helper_blocks.c")).unwrap_or_default();
    assert_eq!(c.matches("= p4bpf_lock_take(").count(), marks + 1, "{c}");
    assert!(!c.contains("bpf_spin_lock("), "a spin lock beside the word");
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED loading helper_blocks: {why}");
        return;
    }
    for (hook, name) in [(Hook::Xdp, "xdp"), (Hook::Tc, "tc")] {
        let test = format!("atomic_cpus_helper_blocks_{name}");
        load(&program, hook, &test);
    }
}
