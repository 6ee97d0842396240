//! `p4bpf-runtime`: puts a compiled p4bpf pipeline into the kernel and works
//! it by P4 name: loads the object, reads the pipeline description the
//! compiler embedded (`p4bpf_layout`), encodes table entries from text
//! values, reads counters summed over CPUs, and runs packets through the
//! program with `BPF_PROG_TEST_RUN`; `stf` parses and runs the P4 reference
//! compiler's packet-test files on top of that.
//!
//! Why hand-written bindings to the system libbpf instead of libbpf-rs:
//! libbpf-rs links libbpf through libbpf-sys, which by default builds a
//! vendored libbpf (C, with make) and, with `novendor`, insists through
//! pkg-config on a system libbpf at least as new as itself (1.4+ for every
//! libbpf-rs of the last two years). This machine, like Debian 12, has
//! libbpf 1.1, so libbpf-rs would mean compiling libbpf from source plus
//! the crate's own dependencies on every clean build of a 2-core machine,
//! for a use of about twenty functions. `sys` declares those functions
//! against libbpf 1.1's stable ABI (`-lbpf`, i.e. libbpf-dev); nothing is
//! built, and everything unsafe stays in `sys`, `libbpf_log`, `object`,
//! `map` and `test_run`. Section reading is a few lines of ELF (`elf`), not
//! a libelf binding.

pub mod counter;
mod elf;
pub mod entry;
pub mod error;
mod libbpf_log;
pub mod map;
pub mod names;
pub mod object;
pub mod pipeline;
pub mod stf;
mod sys;
pub mod table;
pub mod test_run;
pub mod value;
pub mod verdict;

pub use error::{Result, RuntimeError};
pub use object::{check_bpf_available, LoadedObject, ProgramStats};
pub use pipeline::{read_description, LoadedPipeline, PacketOutcome};
pub use verdict::Verdict;
