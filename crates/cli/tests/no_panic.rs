//! Property: the front end returns (with diagnostics) on any input; it never
//! panics, overflows its stack or hangs.
//!
//! Inputs are our own programs and, when present, the corpus's eBPF samples,
//! mutated by a seeded xorshift generator (byte flips, P4 token insertions,
//! splices between programs, truncation, duplicated and deleted chunks),
//! plus random bytes and nesting 100 000 levels deep. The run is bounded in
//! time; `P4BPF_MUTATION_SEED` and `P4BPF_MUTATION_SECONDS` change the seed
//! and the budget. `make fuzz` runs the coverage-guided fuzzer for longer.

mod common;

use p4bpf_front::Options;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The stack the `p4bpf` binary's main thread gets on Linux by default.
const STACK_SIZE: usize = 8 << 20;
/// Generous for a debug build; a loop in the front end would never end.
const PER_INPUT_LIMIT: Duration = Duration::from_secs(20);
const DEEP: usize = 100_000;
/// Fixed, so a failure reproduces.
const DEFAULT_SEED: u64 = 0x5eed_0004_b0f1;

/// xorshift64*: small, seeded, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const TOKENS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "<",
    ">",
    ">>",
    ";",
    ",",
    ".",
    "=",
    "==",
    "&&&",
    "..",
    "++",
    "|+|",
    "?",
    ":",
    "@name(",
    "#",
    "#define X(a) a a\n",
    "#include \"x.p4\"\n",
    "#if 1\n",
    "#endif\n",
    "#undef X\n",
    "/*",
    "*/",
    "//",
    "\"",
    "'",
    "\\",
    "8w",
    "4s",
    "0x",
    "1_000",
    "99999999999999999999999999w8",
    "bit<",
    "int<",
    "varbit<",
    "header",
    "struct",
    "control",
    "parser",
    "state",
    "transition",
    "select",
    "table",
    "key",
    "actions",
    "extern",
    "package",
    "typedef",
    "type",
    "enum",
    "const",
    "apply",
    "return",
    "exit",
    "this",
    "_",
    "default",
    "main",
    "error",
    "match_kind",
    "tuple<",
    "list<",
    "value_set<",
    "\u{0}",
    "\u{feff}",
    "é",
    "\r\n",
];

/// One mutation of `input`, drawing material from `others` for splices.
fn mutate(rng: &mut Rng, input: &[u8], others: &[Vec<u8>]) -> Vec<u8> {
    let mut out = input.to_vec();
    let at = rng.below(out.len() + 1);
    match rng.below(7) {
        0 => {
            for _ in 0..=rng.below(8) {
                let i = rng.below(out.len());
                if let Some(byte) = out.get_mut(i) {
                    *byte = rng.next() as u8;
                }
            }
        }
        1 => {
            let token = TOKENS.get(rng.below(TOKENS.len())).copied().unwrap_or("{");
            out.splice(at..at, token.bytes());
        }
        2 => {
            let other = others
                .get(rng.below(others.len()))
                .map_or(&[][..], |o| o.as_slice());
            let from = rng.below(other.len());
            let to = (from + rng.below(2048)).min(other.len());
            out.splice(
                at..at,
                other.get(from..to).unwrap_or_default().iter().copied(),
            );
        }
        3 => out.truncate(at),
        4 => {
            let end = (at + rng.below(512)).min(out.len());
            let chunk: Vec<u8> = out.get(at..end).unwrap_or_default().to_vec();
            for _ in 0..=rng.below(4) {
                out.splice(end..end, chunk.iter().copied());
            }
        }
        5 => {
            let end = (at + rng.below(256)).min(out.len());
            out.drain(at..end);
        }
        _ => out = (0..rng.below(4096)).map(|_| rng.next() as u8).collect(),
    }
    out
}

/// Inputs nested `DEEP` levels: expressions, blocks, types, `#if`s, a
/// comment and a string that never close.
fn deep_inputs() -> Vec<(String, String)> {
    let open = |s: &str| s.repeat(DEEP);
    vec![
        (
            "parentheses".into(),
            format!("const bit<8> X = {}1{};", open("("), open(")")),
        ),
        (
            "unclosed parentheses".into(),
            format!("const bit<8> X = {}", open("(")),
        ),
        (
            "braces".into(),
            format!("control c() {{ apply {} {} }}", open("{"), open("}")),
        ),
        (
            "unclosed braces".into(),
            format!("control c() {{ apply {}", open("{")),
        ),
        (
            "unary minus".into(),
            format!("const int X = {}1;", open("-")),
        ),
        (
            "if chain".into(),
            format!("control c() {{ apply {{ {} }} }}", open("if (true) ")),
        ),
        (
            "types".into(),
            format!("typedef {}bit<8>{} t;", open("tuple<"), open(">")),
        ),
        (
            "header stacks".into(),
            format!("typedef bit<8>{} t;", open("[1]")),
        ),
        (
            "ternaries".into(),
            format!("const bit<8> X = {}1;", open("true ? 1 : ")),
        ),
        (
            "member chain".into(),
            format!("const bit<8> X = a{};", open(".b")),
        ),
        (
            "preprocessor ifs".into(),
            format!("{}{}", open("#if 1\n"), open("#endif\n")),
        ),
        (
            "preprocessor parentheses".into(),
            format!("#if {}1{}\n#endif\n", open("("), open(")")),
        ),
        (
            "recursive macros".into(),
            "#define A B B\n#define B A A\nconst bit<8> X = A;\n".into(),
        ),
        ("unterminated comment".into(), format!("/*{}", open("x"))),
        (
            "unterminated string".into(),
            format!("@name(\"{}", open("x")),
        ),
    ]
}

/// Our own programs, and the corpus's eBPF samples when the corpus is there.
fn seeds() -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths: Vec<PathBuf> = vec![root.join("../../examples/l3_router.p4")];
    let mut dirs = vec![root.join("tests/diagnostics")];
    if let Some(corpus) = common::corpus_dir() {
        dirs.push(corpus.join("p4_16_samples"));
    }
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "p4"))
            .filter(|p| !dir.ends_with("p4_16_samples") || p.to_string_lossy().contains("_ebpf"))
            .collect();
        found.sort();
        paths.extend(found);
    }
    paths.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

/// Checks inputs on a thread with the binary's stack, one at a time, each
/// within the time limit. Each input is saved first, so the one that
/// crashed is there even when a stack overflow aborts the test program.
struct Checker {
    inputs: mpsc::Sender<Vec<u8>>,
    done: mpsc::Receiver<bool>,
}

impl Checker {
    fn start() -> Checker {
        let (inputs, received) = mpsc::channel::<Vec<u8>>();
        let (report, done) = mpsc::channel();
        std::thread::Builder::new()
            .stack_size(STACK_SIZE)
            .spawn(move || {
                for bytes in received {
                    let text = String::from_utf8_lossy(&bytes).into_owned();
                    let survived = std::panic::catch_unwind(|| {
                        p4bpf_front::check_source(Path::new("fuzz.p4"), &text, &Options::default());
                    })
                    .is_ok();
                    if report.send(survived).is_err() {
                        break;
                    }
                }
            })
            .expect("the checker thread starts");
        Checker { inputs, done }
    }

    fn check(&self, what: &str, bytes: &[u8]) -> Result<(), String> {
        let saved = Path::new(env!("CARGO_TARGET_TMPDIR")).join("no_panic_last_input.p4");
        let _ = std::fs::write(&saved, bytes);
        let failure = |why: &str| format!("{why} on {what} (input saved to {})", saved.display());
        self.inputs
            .send(bytes.to_vec())
            .map_err(|_| failure("the checker thread died"))?;
        match self.done.recv_timeout(PER_INPUT_LIMIT) {
            Ok(true) => Ok(()),
            Ok(false) => Err(failure("the front end panicked")),
            Err(_) => Err(failure(&format!(
                "the front end ran over {} s",
                PER_INPUT_LIMIT.as_secs()
            ))),
        }
    }
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Deep nesting runs through the `p4bpf` binary, one child process per
/// input, so a stack overflow fails this test naming the input instead of
/// aborting the whole test program.
#[test]
fn deep_nesting_is_diagnosed_not_overflowed() {
    let dir = common::scratch_dir("deep_nesting");
    let mut failures = Vec::new();
    for (what, text) in deep_inputs() {
        let name = format!("{}.p4", what.replace(' ', "_"));
        common::write(&dir, &name, &text);
        let started = Instant::now();
        let out = common::p4bpf_in(&dir, &["check", &name]);
        let status = out.status.code();
        if !matches!(status, Some(0 | 1)) {
            let said = common::stderr(&out);
            let last = said.lines().rev().take(2).collect::<Vec<_>>().join(" / ");
            failures.push(format!(
                "{what} ({}): {}: {last}",
                dir.join(&name).display(),
                out.status
            ));
        } else if started.elapsed() > PER_INPUT_LIMIT {
            failures.push(format!(
                "{what}: took {:.1} s",
                started.elapsed().as_secs_f64()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "the front end failed on deep nesting:\n{}",
        failures.join("\n")
    );
}

#[test]
fn mutated_programs_never_panic() {
    let seed = env_number("P4BPF_MUTATION_SEED", DEFAULT_SEED);
    let budget = Duration::from_secs(env_number("P4BPF_MUTATION_SECONDS", 3));
    let seeds = seeds();
    let checker = Checker::start();
    let mut rng = Rng(seed.max(1));
    let started = Instant::now();
    let mut tried = 0;
    while started.elapsed() < budget && tried < 20_000 {
        let base = seeds
            .get(rng.below(seeds.len()))
            .map_or(&[][..], |s| s.as_slice());
        let mut input = mutate(&mut rng, base, &seeds);
        for _ in 0..rng.below(3) {
            input = mutate(&mut rng, &input, &seeds);
        }
        let result = checker.check(&format!("mutation {tried} of seed {seed:#x}"), &input);
        assert!(result.is_ok(), "{}", result.err().unwrap_or_default());
        tried += 1;
    }
    eprintln!(
        "{tried} mutated inputs checked in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
