//! Digests: messages the data plane sends the control plane (v1model's
//! `digest`, PSA's and PNA's `Digest.pack`), as records of one BPF ring
//! buffer per program.
//!
//! A record is a u32 digest index (host order, into [`Digests::digests`]),
//! 4 bytes of padding, then from [`DATA_OFFSET`] the digest's struct as
//! the emitter wrote it (host-order fields, wider than 64 bits as
//! network-order bytes: [`crate::FieldLayout`] says which). A record the
//! ring has no room for is lost and counted in [`Digests::lost`].

use crate::FieldLayout;
use serde::{Deserialize, Serialize};

/// Where a record's struct starts: after the index and its padding, at
/// the alignment of any struct (8).
pub const DATA_OFFSET: u32 = 8;

/// The program's digest ring and what its records hold.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Digests {
    /// The `BPF_MAP_TYPE_RINGBUF` the records go to.
    pub ring: String,
    /// Size of the ring in bytes (a record takes 8 bytes of header plus
    /// its size rounded up to 8).
    pub ring_bytes: u32,
    /// One-entry per-CPU array (key u32 0, value u64 host order): records
    /// lost because the ring was full. Sum the CPUs.
    pub lost: String,
    pub digests: Vec<Digest>,
}

/// One digest: its P4 name, its struct's type name and field layout.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Digest {
    /// The P4Runtime name: the dotted instance (`ingress.mac_learn`) for
    /// PSA and PNA, the struct type's name for v1model's `digest`.
    pub name: String,
    /// The P4 type of the data (`mac_learn_digest_t`).
    pub type_name: String,
    /// Fields, with offsets from the start of the struct.
    pub fields: Vec<FieldLayout>,
    /// `sizeof` the struct.
    pub size: u32,
}

impl Digests {
    /// The digest named `name`: its P4 name or its type's name.
    pub fn find(&self, name: &str) -> Option<&Digest> {
        self.digests
            .iter()
            .find(|d| d.name == name || d.type_name == name)
            .or_else(|| {
                self.digests
                    .iter()
                    .find(|d| d.name.rsplit('.').next() == Some(name))
            })
    }
}
