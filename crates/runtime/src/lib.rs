//! `p4bpf-runtime`: puts a compiled p4bpf pipeline into the kernel and works
//! it by P4 name: loads the object, reads the pipeline description the
//! compiler embedded (`p4bpf_layout`), encodes table entries from text
//! values, reads counters summed over CPUs, and runs packets through the
//! program with `BPF_PROG_TEST_RUN`; `stf` parses and runs the P4 reference
//! compiler's packet-test files on top of that.
//!
//! Why hand-written bindings to the system libbpf instead of libbpf-rs
//! (measured here, libbpf-rs 0.24.8): it pulls 13 crates and, through
//! libbpf-sys, builds a vendored libbpf 1.7 from C with make and pkg-config
//! (21 s of a clean debug build on this shared 2-core machine); its
//! `novendor` mode would use the system libbpf, but insists on one at least
//! as new as libbpf-sys itself, and Debian 12 has 1.1. The runtime calls
//! about twenty libbpf functions, all stable since libbpf 1.0, so `sys`
//! declares them and links `-lbpf` (libbpf-dev): nothing to build, one
//! libbpf on the machine (the one bpftool uses), no new crates. Everything
//! unsafe stays in `sys`, `libbpf_log`, `object`, `map` and `test_run`.
//! Section reading is a few lines of ELF (`elf`), not a libelf binding.

pub mod bench;
pub mod bpffs;
pub mod clone_session;
pub mod control;
pub mod counter;
pub mod deploy;
pub mod digest;
pub mod direct;
mod elf;
pub mod empty_group;
pub mod entry;
pub mod entry_timeout;
pub mod error;
pub mod idle;
pub mod initial_entries;
pub mod int_value;
pub mod json;
mod libbpf_log;
pub mod lock_words;
pub mod map;
pub mod map_source;
pub mod meter;
pub mod mtu_drops;
pub mod multicast;
pub mod names;
pub mod object;
pub mod packet_target;
pub mod pcap;
pub mod pipeline;
pub mod ports;
pub mod profile;
pub mod register_composite;
pub mod stf;
mod sys;
mod sys_net;
mod sys_ops;
pub mod table;
pub mod table_cache;
pub mod ternary;
pub mod ternary_cells;
pub mod ternary_store;
pub mod test_ports;
pub mod test_run;
pub mod test_run_skb;
pub mod timed_entries;
pub mod top;
pub mod trace;
pub mod trace_ring;
pub mod tun;
pub mod user;
pub mod value;
pub mod value_set;
pub mod verdict;
pub mod verifier_log;
pub mod veth;
mod xdp_copies;

pub use error::{Result, RuntimeError};
pub use map_source::MapSource;
pub use object::{check_bpf_available, LoadedObject, ProgramStats};
pub use pipeline::{read_description, LoadedPipeline, PacketOutcome};
pub use verdict::Verdict;
