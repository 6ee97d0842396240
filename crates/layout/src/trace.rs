//! The records of a traced build (`p4bpf compile --trace`).
//!
//! A traced program writes one record per event to the BPF ring buffer
//! [`Trace::ring`]; the normal build has no trace code and no [`Trace`].
//! Every record is a [`RecordHead`] (16 bytes, host byte order) followed by
//! `len` bytes of data:
//!
//! | kind | `what` | `detail` | data |
//! |---|---|---|---|
//! | [`BEGIN`] | 0 | packet length | none |
//! | [`STATE`] | index in [`Trace::states`] | 0 | none |
//! | [`TABLE`] | index in [`Trace::tables`] | [`HIT`] bit, action code | key struct, then value struct (zeros when none); for a const table, the key struct then the `u32` entry index |
//! | [`EXTERN`] | index in [`Trace::extern_calls`] | 0 | each argument, then the result if any: u64 each |
//! | [`VERDICT`] | 0 | the program's return value | u32 output port, u32 parser error, then [`Trace::headers`] validity, one bit each, LSB first |
//! | [`DROP`] | the reason: [`DROP_MTU`] | the output interface's MTU | u32 its ifindex (0: the input one), u32 the packet's length |
//!
//! Records of one packet are written in order on one CPU (XDP and TC run
//! with migration disabled), so a reader groups them by `cpu`: a `BEGIN`
//! opens a packet, its `VERDICT` closes it.

use serde::{Deserialize, Serialize};

pub const BEGIN: u16 = 1;
pub const STATE: u16 = 2;
pub const TABLE: u16 = 3;
pub const VERDICT: u16 = 4;
pub const EXTERN: u16 = 5;
/// The program drops the packet for a reason the verdict cannot tell.
pub const DROP: u16 = 6;

/// A `DROP` record's reason: the deparser made the packet longer than
/// the output interface forwards (its MTU, link header and a VLAN tag).
pub const DROP_MTU: u16 = 1;

/// In a `TABLE` record's `detail`: the lookup found an entry.
pub const HIT: u32 = 1 << 31;

/// Bytes of the head every record starts with.
pub const HEAD_SIZE: usize = 16;

/// The head of every record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordHead {
    pub cpu: u32,
    pub kind: u16,
    pub what: u16,
    pub detail: u32,
    pub len: u32,
}

impl RecordHead {
    /// The head at the start of `bytes`, and the data after it.
    pub fn split(bytes: &[u8]) -> Option<(RecordHead, &[u8])> {
        let u32_at = |at: usize| -> Option<u32> {
            Some(u32::from_ne_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
        };
        let u16_at = |at: usize| -> Option<u16> {
            Some(u16::from_ne_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
        };
        let head = RecordHead {
            cpu: u32_at(0)?,
            kind: u16_at(4)?,
            what: u16_at(6)?,
            detail: u32_at(8)?,
            len: u32_at(12)?,
        };
        let data = bytes.get(HEAD_SIZE..HEAD_SIZE + head.len as usize)?;
        Some((head, data))
    }
}

/// What a traced build's records refer to by index.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trace {
    /// The `BPF_MAP_TYPE_RINGBUF` the records go to.
    pub ring: String,
    /// Parser states, `parser.state`, in the order the records number them.
    pub states: Vec<String>,
    /// Every table the program applies, const ones included.
    pub tables: Vec<TracedTable>,
    /// Headers whose validity the verdict record carries, by P4 name.
    pub headers: Vec<String>,
    /// The program's `error` names by code, for a verdict's parser error.
    pub errors: Vec<String>,
    /// The extern operations the records name: an instance's method.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extern_calls: Vec<TracedExternCall>,
}

/// The hit and miss counts of a `--table-stats` (or `--trace`) build, for
/// `p4bpf top`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableStats {
    /// Per-CPU array of u64: at `2 * t` the hits of `tables[t]`, at
    /// `2 * t + 1` its misses.
    pub map: String,
    /// Every table the program applies, const ones included, in slot order
    /// (the order of [`Trace::tables`] in a traced build).
    pub tables: Vec<String>,
}

/// One method of one extern instance, as its `EXTERN` records show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TracedExternCall {
    /// `instance.method`, the instance by its dotted P4 name.
    pub name: String,
    /// The arguments recorded, by parameter name (a wider than 64-bit one
    /// is recorded as 0).
    pub params: Vec<String>,
    /// The record ends with the call's result.
    pub result: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TracedTable {
    pub name: String,
    /// Bytes of key in a `TABLE` record (0: the table is compiled into
    /// code and its key is not recorded); the value struct follows.
    pub key_size: u32,
    pub value_size: u32,
    /// The action run on a miss when no runtime default is set (code 0).
    pub default_action: String,
    /// Action names by code.
    pub actions: Vec<(u32, String)>,
    /// A table compiled into code (const entries): the fields of the key
    /// struct its `TABLE` record carries (`key_size` bytes, then the `u32`
    /// index of the entry that matched, `entry_args.len() - 1` for the
    /// default action). Empty for a table in a map.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub code_keys: Vec<crate::KeyField>,
    /// A code table's action arguments, `(parameter, value)`, of each const
    /// entry in order, then of the default action.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entry_args: Vec<Vec<(String, String)>>,
}
