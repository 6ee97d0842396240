//! `p4bpf-p4runtime`: a P4Runtime v1 server over the p4bpf runtime, so the
//! controllers P4 users already have (p4runtime-shell, ONOS, the P4
//! tutorials' scripts) drive a p4bpf pipeline: pipeline config, table
//! entries, counters, registers (`register`), parser value sets and client arbitration, for the architectures p4bpf
//! compiles today (ebpf_model, xdp_model), and PNA's and PSA's idle
//! timeouts (`idle`; per entry in `write`, `read`). What those
//! architectures lack (packet-in/out, digests, action profiles, meters,
//! replication) is refused with UNIMPLEMENTED and says why.
//!
//! The protocol schema is generated at build time (build.rs) from the
//! descriptor set the PyPI `p4runtime` package carries (`proto/`).

mod arbitration;
mod bytestring;
mod config;
mod failure;
mod idle;
mod profile;
mod read;
mod register;
mod schema;
mod serve;
mod service;
mod signed;
mod stream;
mod table_entry;
mod value_set;
mod write;

pub use serve::{serve, ServeOptions, TlsFiles, DEFAULT_ADDRESS};

/// The generated P4Runtime messages and service.
#[allow(clippy::all, clippy::unwrap_used, clippy::panic)]
pub mod proto {
    pub mod google {
        pub mod rpc {
            tonic::include_proto!("google.rpc");
        }
    }
    pub mod p4 {
        pub mod config {
            pub mod v1 {
                tonic::include_proto!("p4.config.v1");
            }
        }
        pub mod v1 {
            tonic::include_proto!("p4.v1");
        }
    }
}
