//! Benchmark support: load a BPF object the way a benchmark needs it (the
//! verifier's statistics kept, maps by file descriptor for batch fills),
//! time a program with `BPF_PROG_TEST_RUN` (plain repeats, or live frames
//! sent out through a real interface) and build the benchmark packet.
//! Nothing here judges the figures: `p4bpf bench` compares and reports.
//!
//! Rules: every figure comes from the kernel (its per-run average time,
//! `bpf_prog_info`, the verifier's own stack-depth line); a round that
//! fails is an error, never a silent zero.

pub mod classbench;
pub mod classbench_shapes;
pub mod fill;
pub mod live;
pub mod object;
pub mod packet;
pub mod timing;

pub use object::{BenchObject, ProgramFacts};
pub use timing::{median, time_plain, Timing};
