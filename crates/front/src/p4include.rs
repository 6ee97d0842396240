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
    (
        "ebpf_model.p4",
        include_str!("../../../p4include/ebpf_model.p4"),
    ),
    (
        "xdp_model.p4",
        include_str!("../../../p4include/xdp_model.p4"),
    ),
    (
        "ubpf_model.p4",
        include_str!("../../../p4include/ubpf_model.p4"),
    ),
];

/// The built-in file an `#include <name>` refers to, if any.
pub fn find(name: &str) -> Option<&'static str> {
    FILES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{check_source, Options};
    use std::path::Path;

    /// The include guard of a built-in file: its first `#ifndef`.
    fn guard(text: &str) -> Option<&str> {
        text.lines()
            .find_map(|l| l.trim().strip_prefix("#ifndef "))
            .map(str::trim)
    }

    #[test]
    fn every_file_is_ours_and_guarded() {
        for (name, text) in FILES {
            assert!(
                text.starts_with("// SPDX-License-Identifier: Apache-2.0\n"),
                "{name}"
            );
            assert!(text.contains("p4bpf's own"), "{name}");
            let g = guard(text).unwrap_or_default();
            assert!(g.starts_with("_P4BPF_"), "{name}: guard {g:?}");
            assert!(text.contains(&format!("#define {g}\n")), "{name}");
        }
    }

    #[test]
    fn distinct_files_have_distinct_guards() {
        let mut seen: Vec<(&str, &str)> = Vec::new();
        for (name, text) in FILES {
            let g = guard(text).unwrap_or_default();
            if let Some((other, other_text)) = seen.iter().find(|(_, t)| guard(t) == Some(g)) {
                assert_eq!(other_text, text, "{name} and {other} share guard {g}");
            }
            seen.push((name, text));
        }
    }

    /// A program that only includes `name` (after core.p4, as programs do).
    fn accepts_include(name: &str) -> bool {
        let program = format!("#include <core.p4>\n#include <{name}>\n");
        !check_source(Path::new("inc_test.p4"), &program, &Options::default()).has_errors()
    }

    #[test]
    fn every_file_passes_the_front_end() {
        for (name, _) in FILES {
            assert!(accepts_include(name), "{name}");
        }
    }

    #[test]
    fn fragments_see_the_usual_guard_names() {
        let program = "#include <core.p4>\n#ifdef _CORE_P4_\nstruct Seen {}\n#endif\n";
        let frontend = check_source(Path::new("fragment.p4"), program, &Options::default());
        assert!(frontend.unit.text.contains("struct Seen"));
    }

    #[test]
    fn including_twice_is_harmless() {
        let program = "#include <v1model.p4>\n#include <core.p4>\n#include <v1model.p4>\n";
        let frontend = check_source(Path::new("twice.p4"), program, &Options::default());
        assert!(!frontend.has_errors());
    }

    #[test]
    fn v1model_versions() {
        let with_version = |v: &str| {
            let program = format!("#define V1MODEL_VERSION {v}\n#include <v1model.p4>\n");
            check_source(Path::new("version.p4"), &program, &Options::default()).has_errors()
        };
        assert!(!with_version("20180101"));
        assert!(!with_version("20200408"));
        assert!(with_version("20000101"));
        assert!(with_version("-6419018"));
    }

    #[test]
    fn a_bad_v1model_version_is_reported_at_the_programs_include() {
        let program = "#define V1MODEL_VERSION 1\n#include <v1model.p4>\n";
        let frontend = check_source(Path::new("version.p4"), program, &Options::default());
        let error = frontend.diagnostics.errors().next().and_then(|d| d.loc);
        let file = error.map(|loc| frontend.sources.file(loc.file).path.clone());
        assert_eq!(file.as_deref(), Some(Path::new("version.p4")));
    }
}
