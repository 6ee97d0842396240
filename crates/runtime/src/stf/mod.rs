//! STF, the P4 reference compiler's packet-test format: `parse` reads a
//! file into commands (a malformed line is an error naming file:line),
//! `expect` matches output packets against `expect` patterns, and `run`
//! plays the commands against a loaded pipeline; `registers` carries out
//! BMv2's register commands, `value_sets` its `pvs_add`; `xdp_limit`
//! tells a run XDP cannot carry from a failed one; `p4tc` is how P4TC's
//! harness reads the scripts of `tc/pna.p4` programs.

mod digests;
mod direct;
mod expect;
mod p4tc;
mod parse;
mod profiles;
pub mod registers;
mod replication;
mod run;
mod table_cache;
mod timers;
mod value_sets;
pub mod xdp_limit;

pub use digests::DigestExpect;
pub use expect::Pattern;
pub use parse::{parse, parse_file, ActionCall, Command, CountKind, Line, StfError};
pub use replication::ReplicationCommand;
pub use run::{run, Outcome};
