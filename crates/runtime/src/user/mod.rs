//! The user-space target: the generated C built for the host against our
//! stand-ins for the kernel headers and helpers (`crates/runtime/user-c`),
//! run as a child process that [`crate::LoadedPipeline`] drives like the
//! kernel. [`build`] compiles it (with AddressSanitizer and UBSan);
//! [`host`] speaks its line protocol.
//!
//! Why a child process rather than a shared object loaded with dlopen: a
//! sanitized library cannot be loaded into an unsanitized Rust process
//! without preloading the sanitizer runtime, and a crash or sanitizer
//! report in the program ends the child, not the test runner, which then
//! reports it as the packet's failure.

pub mod build;
pub mod devmaps;
pub mod host;

pub use build::{build_host, BuildOptions};
pub use host::UserHost;
