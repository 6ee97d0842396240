//! Our architecture include files (`p4include/` at the repository root),
//! embedded so that `#include <core.p4>` works without flags or installs.

/// `(name as written in #include, contents)`. `bmv2/psa.p4`, `dpdk/psa.p4`
/// and `dpdk/pna.p4` are the names other toolchains use for the same
/// architectures. `tc/pna.p4` (the kernel P4TC flavour of PNA) is a file of
/// its own: its package has three blocks, not four, and its deparser takes
/// the headers `inout`, so no single declaration serves both.
pub const FILES: &[(&str, &str)] = &[
    ("core.p4", include_str!("../../../p4include/core.p4")),
    ("v1model.p4", include_str!("../../../p4include/v1model.p4")),
    ("psa.p4", include_str!("../../../p4include/psa.p4")),
    ("bmv2/psa.p4", include_str!("../../../p4include/psa.p4")),
    ("dpdk/psa.p4", include_str!("../../../p4include/psa.p4")),
    ("pna.p4", include_str!("../../../p4include/pna.p4")),
    ("dpdk/pna.p4", include_str!("../../../p4include/pna.p4")),
    ("tc/pna.p4", include_str!("../../../p4include/tc/pna.p4")),
    ("ebpf_model.p4", include_str!("../../../p4include/ebpf_model.p4")),
    ("xdp_model.p4", include_str!("../../../p4include/xdp_model.p4")),
    ("ubpf_model.p4", include_str!("../../../p4include/ubpf_model.p4")),
];

/// The built-in file an `#include <name>` refers to, if any.
pub fn find(name: &str) -> Option<&'static str> {
    FILES.iter().find(|(n, _)| *n == name).map(|(_, text)| *text)
}
