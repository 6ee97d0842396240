//! `@atomic` blocks that call kernel helpers (a table, a Counter, a Hash,
//! an index they compute), under a lock word of their own (fixtures in
//! `atomic2_cpus/`): two threads pinned to CPU 0 and CPU 1 drive the same
//! loaded program with BPF_PROG_TEST_RUN at the same time, at XDP and at
//! TC, and no update is lost; a domain mixing such a block with a plain
//! one, and a block nested in a table's action, stays exact; the blocks'
//! ways out give the word back on every target; the blocks that still
//! cannot be locked warn at the statement that prevents it. Skips, saying
//! why, without root/BPF, clang or a second CPU.

#![allow(clippy::panic)] // a failing test should stop loudly

mod common;

use p4bpf_compiler::{CompileOptions, Hook};
use p4bpf_layout::LOCK_WORDS_MAP;
use p4bpf_runtime::map::Write;
use p4bpf_runtime::{lock_words, stf, test_run, LoadedPipeline};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/atomic2_cpus")
        .join(name)
}

/// The fixtures' probe: `op`, `slot`, `amount`, then what the program
/// writes back (the cells before the packet).
fn probe(op: u8, slot: u8, amount: u16) -> Vec<u8> {
    let mut frame = vec![0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0x90, 0x00];
    frame.extend([op, slot]);
    frame.extend(amount.to_be_bytes());
    frame.extend([0; 14]);
    frame
}

fn load(program: &Path, hook: Hook, test: &str) -> LoadedPipeline {
    load_built(program, hook, test, false)
}

/// [`load`], the traced build when `trace`.
fn load_built(program: &Path, hook: Hook, test: &str, trace: bool) -> LoadedPipeline {
    let options = CompileOptions {
        front: Default::default(),
        hook,
        out_dir: common::scratch_dir(test),
        extern_file: None,
        trace,
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

/// Runs `fd` `rounds * repeat` times from each of two threads started
/// together, the one on CPU 0 on `frames[0]`, the one on CPU 1 on
/// `frames[1]`.
fn run_on_two_cpus(fd: i32, frames: [&[u8]; 2], rounds: u32, repeat: u32) {
    let start = std::sync::Barrier::new(2);
    std::thread::scope(|s| {
        for (cpu, frame) in [0, 1].into_iter().zip(frames) {
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

/// Packets that ran the block: those sent, less the blocks skipped for
/// want of their word (counted; a VM's stopped vCPU can make one).
fn ran_the_block(pipeline: &LoadedPipeline, sent: u64, name: &str) -> u64 {
    let skipped = lock_words::skipped_blocks(pipeline).unwrap_or_else(|e| panic!("{e}"));
    let skipped = skipped.unwrap_or_else(|| panic!("{name}: no lock word"));
    if skipped > 0 {
        eprintln!("{name}: {skipped} of {sent} blocks skipped for want of their word");
    }
    sent - skipped
}

fn skip_reason() -> Option<String> {
    common::kernel_unavailable().or_else(|| {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        (cpus < 2).then(|| format!("{cpus} CPU: the race needs two"))
    })
}

const ROUNDS: u32 = 4;
const REPEAT: u32 = 200_000;
const HOOKS: [(Hook, &str); 2] = [(Hook::Xdp, "xdp"), (Hook::Tc, "tc")];

/// `table_sum.p4`: both CPUs run the block (Counter, Hash, a table whose
/// action adds to `sum` and `count`, `twin` at an index it computes) on
/// slot 2 at once: `count` and `twin` are exactly the number of packets
/// (less those counted as skipped), `sum` moved with them (5 + 3 per
/// packet).
#[test]
fn a_block_applying_a_table_and_calling_externs_loses_no_update_across_two_cpus() {
    if let Some(why) = skip_reason() {
        eprintln!("SKIPPED lock words across CPUs: {why}");
        return;
    }
    for (hook, name) in HOOKS {
        let test = format!("atomic2_cpus_table_{name}");
        let pipeline = load(&fixture("table_sum.p4"), hook, &test);
        let fd = pipeline.program_fd().unwrap_or_else(|e| panic!("{e}"));
        let frame = probe(0, 2, 3);
        run_on_two_cpus(fd, [&frame, &frame], ROUNDS, REPEAT);
        let ran = ran_the_block(&pipeline, u64::from(2 * ROUNDS * REPEAT), name);
        assert_eq!(cell(&pipeline, "In.count", 2), ran, "{name}: count");
        assert_eq!(cell(&pipeline, "In.sum", 2), 5 + 3 * ran, "{name}: sum");
        assert_eq!(cell(&pipeline, "In.twin", 2), ran, "{name}: twin");
    }
}

/// `one_domain.p4`: CPU 0 comes in through the block applying the table
/// (whose action's own block finds the word held by its CPU), then
/// through the table alone (the action's block takes the word); CPU 1
/// meanwhile through the plain block on the same registers. Had the plain
/// block kept a spin lock of its own, the two would not exclude each
/// other and updates would be lost.
#[test]
fn a_domain_mixing_helper_and_plain_blocks_takes_one_lock_for_all() {
    if let Some(why) = skip_reason() {
        eprintln!("SKIPPED one lock per domain: {why}");
        return;
    }
    for (hook, name) in HOOKS {
        let test = format!("atomic2_cpus_domain_{name}");
        let pipeline = load(&fixture("one_domain.p4"), hook, &test);
        let fd = pipeline.program_fd().unwrap_or_else(|e| panic!("{e}"));
        let plain = probe(1, 1, 7);
        for helper_way in [0, 2] {
            run_on_two_cpus(fd, [&probe(helper_way, 1, 7), &plain], ROUNDS, REPEAT);
        }
        let ran = ran_the_block(&pipeline, u64::from(4 * ROUNDS * REPEAT), name);
        assert_eq!(cell(&pipeline, "In.count", 1), ran, "{name}: count");
        assert_eq!(cell(&pipeline, "In.sum", 1), 5 + 7 * ran, "{name}: sum");
    }
}

/// `v1model_round_robin.p4`: each packet's slot is read from a register
/// inside the block, which moves it on round 8 slots and applies a table:
/// after both CPUs' packets the slots were taken in turn, so each holds
/// an eighth of them, the first ones one more for the remainder (a race
/// would count two packets on one slot and pass over the next).
#[test]
fn an_index_read_inside_the_block_stays_exact_across_two_cpus_on_v1model() {
    if let Some(why) = skip_reason() {
        eprintln!("SKIPPED v1model round robin across CPUs: {why}");
        return;
    }
    let mut frame = vec![0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0x90, 0x00];
    frame.extend([0; 8]);
    for (hook, name) in HOOKS {
        let test = format!("atomic2_cpus_round_robin_{name}");
        let pipeline = load(&fixture("v1model_round_robin.p4"), hook, &test);
        let fd = pipeline.program_fd().unwrap_or_else(|e| panic!("{e}"));
        run_on_two_cpus(fd, [&frame, &frame], ROUNDS, REPEAT);
        let ran = ran_the_block(&pipeline, u64::from(2 * ROUNDS * REPEAT), name);
        for slot in 0..8u32 {
            let turns = ran / 8 + u64::from(u64::from(slot) < ran % 8);
            assert_eq!(
                cell(&pipeline, "Ing.hits", slot),
                turns,
                "{name}: slot {slot}"
            );
        }
        assert_eq!(cell(&pipeline, "Ing.next", 0), ran % 8, "{name}: next slot");
    }
}

/// A traced build writes its records with helper calls, so each of its
/// domains takes a lock word, even one of plain register blocks
/// (`atomic_cpus/sum_count.p4`): its sum and count stay exact across two
/// CPUs (less the blocks counted as skipped).
#[test]
fn a_traced_build_locks_its_blocks_with_words() {
    if let Some(why) = skip_reason() {
        eprintln!("SKIPPED traced build across CPUs: {why}");
        return;
    }
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/atomic_cpus/sum_count.p4");
    for (hook, name) in HOOKS {
        let test = format!("atomic2_cpus_traced_{name}");
        let pipeline = load_built(&program, hook, &test, true);
        let fd = pipeline.program_fd().unwrap_or_else(|e| panic!("{e}"));
        let frame = probe(0, 2, 3);
        run_on_two_cpus(fd, [&frame, &frame], ROUNDS, REPEAT / 4);
        let ran = ran_the_block(&pipeline, u64::from(2 * ROUNDS * REPEAT / 4), name);
        assert_eq!(cell(&pipeline, "In.count", 2), ran, "{name}: count");
        assert_eq!(cell(&pipeline, "In.sum", 2), 5 + 3 * ran, "{name}: sum");
        let c_file = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(&test)
            .join("sum_count.c");
        let c = std::fs::read_to_string(c_file).unwrap_or_default();
        assert!(c.contains("= p4bpf_lock_take(") && !c.contains("bpf_spin_lock("));
    }
}

/// The fixtures' STFs (`exit` in a table's action, `return` in the
/// block and in a block inside a loop's `bpf_loop` round give the word
/// back; a nested block runs inside it) pass on the kernel and user
/// targets at XDP and TC, with no warning.
#[test]
fn blocks_under_lock_words_behave_alike_on_every_target() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED lock word STF: {why}");
        return;
    }
    let fixtures = [
        ("table_sum", 5),
        ("one_domain", 4),
        ("v1model_round_robin", 9),
        ("in_loop", 3),
    ];
    for (stem, packets) in fixtures {
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

/// Each block of `unlockable.p4` marked `// why: REASON` may leave by a
/// packet error's jump no release follows: it warns at that statement,
/// saying the reason, and only those warn.
#[test]
fn blocks_that_may_leave_by_a_packet_error_warn_at_that_statement() {
    let program = fixture("unlockable.p4");
    let source = std::fs::read_to_string(&program).unwrap_or_default();
    let dir = common::scratch_dir("atomic2_cpus_unlockable");
    let out_dir = dir.to_string_lossy();
    let out = common::p4bpf(&["compile", &program.to_string_lossy(), "-o", &out_dir]);
    let err = common::stderr(&out);
    assert!(out.status.success(), "{err}");
    let mut expected = 0;
    for (number, text) in source.lines().enumerate() {
        let Some((code, why)) = text.split_once("// why: ") else {
            continue;
        };
        let column = 1 + code.len() - code.trim_start().len();
        let at = format!("unlockable.p4:{}:{column}: warning: `@atomic`: p4bpf runs this block without a lock, because it ", number + 1);
        let line = err.lines().find(|l| l.contains(&at));
        let line = line.unwrap_or_else(|| panic!("no warning at {at}:\n{err}"));
        assert!(line.contains(why), "`{why}` is not in: {line}");
        expected += 1;
    }
    assert_eq!(expected, 4, "the fixture's marks changed");
    assert_eq!(err.matches("warning: `@atomic`").count(), expected, "{err}");
}

/// p4c's flowlet_switching-bmv2.p4, whose block applies two tables whose
/// actions read and write registers, compiles with no warning, takes a
/// lock word, and the kernel accepts it at XDP and TC.
#[test]
fn p4c_flowlet_switching_takes_a_lock_word() {
    let Some(corpus) = common::corpus_dir() else {
        eprintln!("SKIPPED flowlet_switching: ../shared/corpus/p4c is absent");
        return;
    };
    let program = corpus.join("p4_16_samples/flowlet_switching-bmv2.p4");
    let dir = common::scratch_dir("atomic2_cpus_flowlet");
    let out = common::p4bpf(&[
        "compile",
        &program.to_string_lossy(),
        "-o",
        &dir.to_string_lossy(),
    ]);
    let err = common::stderr(&out);
    assert!(out.status.success() && !err.contains("warning"), "{err}");
    let c = std::fs::read_to_string(dir.join("flowlet_switching-bmv2.c")).unwrap_or_default();
    assert_eq!(
        c.matches("= p4bpf_lock_take(").count(),
        1,
        "one block, one take"
    );
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED loading flowlet_switching: {why}");
        return;
    }
    for (hook, name) in HOOKS {
        load(&program, hook, &format!("atomic2_cpus_flowlet_{name}"));
    }
}

/// A word held elsewhere (set by hand to another CPU's mark) is not won
/// within the bound: the block is skipped whole (no register moves) and
/// counted, never run unlocked; once the word is free again, the block
/// runs. `pipeline show` prints the count for a program with lock words.
#[test]
fn a_word_not_won_skips_the_block_and_counts_it() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED lock word timeouts: {why}");
        return;
    }
    for (hook, name) in HOOKS {
        let test = format!("atomic2_cpus_timeout_{name}");
        let pipeline = load(&fixture("table_sum.p4"), hook, &test);
        let fd = pipeline.program_fd().unwrap_or_else(|e| panic!("{e}"));
        let skipped = || lock_words::skipped_blocks(&pipeline).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(skipped(), Some(0), "{name}: before any packet");
        let words = pipeline
            .map(LOCK_WORDS_MAP)
            .unwrap_or_else(|e| panic!("{e}"));
        let hold = |mark: u64| {
            let write = words.write(&0u32.to_ne_bytes(), &mark.to_ne_bytes(), Write::Replace);
            write.unwrap_or_else(|e| panic!("{e}"));
        };
        hold(1000);
        test_run::run(fd, &probe(0, 2, 3), 1).unwrap_or_else(|e| panic!("run: {e}"));
        assert_eq!(
            cell(&pipeline, "In.count", 2),
            0,
            "{name}: ran without its word"
        );
        assert_eq!(skipped(), Some(1), "{name}: the skip is counted");
        hold(0);
        test_run::run(fd, &probe(0, 2, 3), 1).unwrap_or_else(|e| panic!("run: {e}"));
        assert_eq!(
            cell(&pipeline, "In.count", 2),
            1,
            "{name}: the word is free"
        );
        assert_eq!(skipped(), Some(1), "{name}: nothing more skipped");
    }
    let name = format!("atomic2show{}", std::process::id());
    let program = fixture("table_sum.p4");
    let load = [
        "pipeline",
        "load",
        &program.to_string_lossy(),
        "--name",
        &name,
    ];
    let loaded = common::p4bpf(&load);
    let show = common::stdout(&common::p4bpf(&["pipeline", "show", &name]));
    let _ = common::p4bpf(&["pipeline", "unload", &name]);
    assert!(loaded.status.success(), "{}", common::stderr(&loaded));
    let line = "atomic\t0 blocks skipped (lock word not won)";
    assert!(show.contains(line), "{show}");
}
