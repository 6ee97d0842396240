//! Which programs of the corpus are checked, and what is expected of each.
//!
//! A suite is one corpus folder (subfolders included) with one expectation:
//! every program accepted, or every program rejected with its first error
//! located in the program's own files; judged by `p4bpf check`, or by
//! `p4bpf compile` for what only the eBPF target can reject. Files under an `include/` folder are
//! fragments of larger programs, never programs; some suites also treat the
//! files their programs `#include "..."` as fragments. Programs are listed in
//! path order so every run reports in the same order.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Which command judges a suite's programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// `p4bpf check`: the front end.
    Check,
    /// `p4bpf compile`: for programs only the eBPF target can reject.
    Compile,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    Accept,
    /// Rejected, with the first error in the program, not in our includes.
    RejectInProgram,
}

pub struct Suite {
    /// The folder, relative to the corpus root.
    pub folder: &'static str,
    pub expect: Expect,
    pub stage: Stage,
    /// `-D` flags, as the reference compiler's test harness passes them.
    pub defines: &'static [(&'static str, &'static str)],
    /// Files `#include`d by the folder's programs are fragments.
    pub quoted_includes_are_fragments: bool,
}

const PSA_PORTS: &[(&str, &str)] = &[
    ("PORT0", "2"),
    ("PORT1", "3"),
    ("PORT2", "4"),
    ("PSA_RECIRC", "8"),
];

pub const SUITES: &[Suite] = &[
    Suite {
        folder: "p4_16_samples",
        expect: Expect::Accept,
        stage: Stage::Check,
        defines: &[],
        quoted_includes_are_fragments: false,
    },
    Suite {
        folder: "p4_16_errors",
        expect: Expect::RejectInProgram,
        stage: Stage::Check,
        defines: &[],
        quoted_includes_are_fragments: false,
    },
    Suite {
        folder: "p4_16_ebpf_errors",
        expect: Expect::RejectInProgram,
        stage: Stage::Compile,
        defines: &[],
        quoted_includes_are_fragments: false,
    },
    Suite {
        folder: "psa-ebpf",
        expect: Expect::Accept,
        stage: Stage::Check,
        defines: PSA_PORTS,
        quoted_includes_are_fragments: true,
    },
    Suite {
        folder: "psa-ebpf-examples",
        expect: Expect::Accept,
        stage: Stage::Check,
        defines: PSA_PORTS,
        quoted_includes_are_fragments: true,
    },
    Suite {
        folder: "p4tc_samples",
        expect: Expect::Accept,
        stage: Stage::Check,
        defines: &[],
        quoted_includes_are_fragments: false,
    },
    Suite {
        folder: "p4tc_samples_stf",
        expect: Expect::Accept,
        stage: Stage::Check,
        defines: &[],
        quoted_includes_are_fragments: false,
    },
];

/// A subset of a suite reported on its own line, e.g. the eBPF samples.
pub struct Subset {
    pub label: &'static str,
    pub suite: &'static str,
    /// Takes the path relative to the suite folder.
    pub contains: fn(&Path) -> bool,
}

pub const SUBSETS: &[Subset] = &[Subset {
    label: "p4_16_samples/*_ebpf*.p4",
    suite: "p4_16_samples",
    contains: is_top_level_ebpf_sample,
}];

fn is_top_level_ebpf_sample(path: &Path) -> bool {
    path.components().count() == 1 && path.to_string_lossy().contains("_ebpf")
}

/// One program to check: which suite, and its path relative to the corpus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    pub suite: usize,
    pub path: PathBuf,
}

impl Program {
    /// The path relative to the suite folder.
    pub fn path_in_suite(&self) -> &Path {
        SUITES
            .get(self.suite)
            .and_then(|s| self.path.strip_prefix(s.folder).ok())
            .unwrap_or(&self.path)
    }
}

/// Every program of every suite present under `corpus`, in suite order and
/// then path order; and the suite folders that are missing.
pub fn discover(corpus: &Path) -> (Vec<Program>, Vec<&'static str>) {
    let mut programs = Vec::new();
    let mut missing = Vec::new();
    for (index, suite) in SUITES.iter().enumerate() {
        let folder = corpus.join(suite.folder);
        if !folder.is_dir() {
            missing.push(suite.folder);
            continue;
        }
        let mut files = Vec::new();
        collect_p4_files(&folder, &mut files);
        files.sort();
        let fragments = if suite.quoted_includes_are_fragments {
            quoted_includes(&files)
        } else {
            BTreeSet::new()
        };
        for file in files {
            if in_include_folder(&file, &folder) || fragments.contains(&canonical(&file)) {
                continue;
            }
            if let Ok(relative) = file.strip_prefix(corpus) {
                programs.push(Program {
                    suite: index,
                    path: relative.to_path_buf(),
                });
            }
        }
    }
    (programs, missing)
}

/// Appends every `.p4` file under `dir`, recursively (symbolic links to
/// folders are not followed, so a cycle cannot trap the walk).
fn collect_p4_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => collect_p4_files(&path, out),
            Ok(_) if path.extension().is_some_and(|e| e == "p4") => out.push(path),
            _ => {}
        }
    }
}

fn in_include_folder(file: &Path, suite_folder: &Path) -> bool {
    file.strip_prefix(suite_folder)
        .ok()
        .and_then(Path::parent)
        .is_some_and(|dir| dir.components().any(|c| c.as_os_str() == "include"))
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// The files that `#include "name"` lines of `files` name, relative to the
/// including file's folder.
fn quoted_includes(files: &[PathBuf]) -> BTreeSet<PathBuf> {
    let mut included = BTreeSet::new();
    for file in files {
        let Ok(bytes) = std::fs::read(file) else {
            continue;
        };
        let dir = file.parent().unwrap_or(Path::new("."));
        for line in String::from_utf8_lossy(&bytes).lines() {
            if let Some(name) = quoted_include_target(line) {
                included.insert(canonical(&dir.join(name)));
            }
        }
    }
    included
}

/// `name` in a line `#  include "name"`.
fn quoted_include_target(line: &str) -> Option<&str> {
    let directive = line
        .trim_start()
        .strip_prefix('#')?
        .trim_start()
        .strip_prefix("include")?;
    let quoted = directive.trim_start().strip_prefix('"')?;
    quoted.split_once('"').map(|(name, _)| name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_quoted_include_lines_only() {
        assert_eq!(
            quoted_include_target("#include \"common.p4\""),
            Some("common.p4")
        );
        assert_eq!(
            quoted_include_target("  #  include  \"a/b.p4\" // x"),
            Some("a/b.p4")
        );
        assert_eq!(quoted_include_target("#include <core.p4>"), None);
        assert_eq!(quoted_include_target("// #include \"x.p4\""), None);
    }

    #[test]
    fn include_folders_hold_fragments() {
        let suite = Path::new("c/samples");
        assert!(in_include_folder(
            Path::new("c/samples/x/include/h.p4"),
            suite
        ));
        assert!(!in_include_folder(Path::new("c/samples/include.p4"), suite));
        assert!(!in_include_folder(Path::new("c/samples/x/y.p4"), suite));
    }

    #[test]
    fn ebpf_subset_is_top_level_only() {
        assert!(is_top_level_ebpf_sample(Path::new("action_call_ebpf.p4")));
        assert!(!is_top_level_ebpf_sample(Path::new(
            "sub/action_call_ebpf.p4"
        )));
        assert!(!is_top_level_ebpf_sample(Path::new("psa-basic.p4")));
    }

    #[test]
    fn discovers_programs_in_order_and_skips_fragments() {
        let root = std::env::temp_dir().join(format!("p4bpf-suites-{}", std::process::id()));
        let psa = root.join("psa-ebpf");
        let samples = root.join("p4_16_samples");
        for dir in [&psa, &samples.join("include"), &samples.join("sub")] {
            std::fs::create_dir_all(dir).expect("temporary folder");
        }
        for (path, text) in [
            (psa.join("b.p4"), "#include \"common.p4\"\n"),
            (psa.join("a.p4"), "#include \"common.p4\"\n"),
            (psa.join("common.p4"), "header h_t {}\n"),
            (samples.join("include/frag.p4"), ""),
            (samples.join("sub/z.p4"), ""),
            (samples.join("notes.txt"), ""),
        ] {
            std::fs::write(path, text).expect("temporary file");
        }
        let (programs, missing) = discover(&root);
        let paths: Vec<String> = programs
            .iter()
            .map(|p| p.path.display().to_string())
            .collect();
        assert_eq!(
            paths,
            ["p4_16_samples/sub/z.p4", "psa-ebpf/a.p4", "psa-ebpf/b.p4"]
        );
        assert!(missing.contains(&"p4_16_errors"));
        let _ = std::fs::remove_dir_all(&root);
    }
}
