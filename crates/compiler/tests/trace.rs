//! The traced build (`--trace`) over every snapshot program: the untraced
//! C is exactly the default build's (so its instructions are too), the
//! traced C has a record for each parser state and table, and it compiles
//! and passes the verifier (when clang, bpftool and root are there). One
//! traced program is snapshot-tested in `trace/`; `BLESS=1` rewrites it.
//! The stats-only build (`--table-stats`) counts every table and writes
//! no record.

#![allow(clippy::panic)] // a failing test should stop loudly

use p4bpf_compiler::{generate, generate_with, Hook, Instrument};
use std::path::{Path, PathBuf};
use std::process::Command;

fn programs() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs");
    let mut list: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    list.retain(|p| {
        p.extension().is_some_and(|e| e == "p4") && p.file_stem().is_some_and(|s| s != "headers")
    });
    list.sort();
    list
}

fn can_load() -> bool {
    let root = std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"));
    let tool = |name: &str, arg: &str| {
        Command::new(name)
            .arg(arg)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    root && tool("bpftool", "version") && tool("clang", "--version")
}

/// Compiles `c` with clang and loads it with bpftool; the error's last lines.
fn compile_and_load(c: &str, dir: &Path, name: &str) -> Result<(), String> {
    let c_file = dir.join(format!("{name}.c"));
    let object = dir.join(format!("{name}.o"));
    std::fs::write(&c_file, c).map_err(|e| e.to_string())?;
    p4bpf_compiler::clang::compile(&c_file, &object)?;
    let pin = Path::new("/sys/fs/bpf").join(format!("p4bpf-trace-{}-{name}", std::process::id()));
    let out = Command::new("bpftool")
        .arg("prog")
        .arg("load")
        .arg(&object)
        .arg(&pin)
        .output()
        .map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&pin);
    match out.status.success() {
        true => Ok(()),
        false => Err(String::from_utf8_lossy(&out.stderr)
            .lines()
            .rev()
            .take(4)
            .collect::<Vec<_>>()
            .join(" | ")),
    }
}

#[test]
fn untraced_c_is_the_default_build_and_traced_c_loads() {
    let load = can_load();
    if !load {
        eprintln!("not compiling and loading the traced objects: needs root, bpftool and clang");
    }
    let scratch = std::env::temp_dir().join(format!("p4bpf-trace-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&scratch);
    let mut failures = vec![];
    for path in programs() {
        let fe = p4bpf_front::check_file(&path, &Default::default());
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        for (hook, tag) in [(Hook::Xdp, "xdp"), (Hook::Tc, "tc")] {
            let (Ok(default), Ok(plain), Ok(traced)) = (
                generate(&fe, &stem, hook, None),
                generate_with(&fe, &stem, hook, None, Instrument::Off),
                generate_with(&fe, &stem, hook, None, Instrument::Trace),
            ) else {
                panic!("{} does not generate", path.display());
            };
            assert_eq!(default.c, plain.c, "{stem}: tracing off changes the C");
            assert!(
                !plain.c.contains("ringbuf") && plain.pipeline.trace.is_none(),
                "{stem}"
            );
            let Some(trace) = &traced.pipeline.trace else {
                panic!("{stem}: no trace description");
            };
            let counted = traced.pipeline.table_stats.as_ref().map(|s| s.tables.len());
            assert_eq!(
                counted,
                Some(trace.tables.len()),
                "{stem}: --trace implies the table counts"
            );
            for (i, _) in trace.states.iter().enumerate() {
                let hook_line = format!("p4bpf_trace_event(P4BPF_TRACE_STATE, {i} /*");
                assert!(
                    traced.c.contains(&hook_line),
                    "{stem}: no record of state {i}"
                );
            }
            for (i, _) in trace.tables.iter().enumerate() {
                let table_line = format!("p4bpf_table_stat({}", 2 * i);
                assert!(
                    traced.c.contains(&table_line),
                    "{stem}: no record of table {i}"
                );
            }
            if load {
                if let Err(why) = compile_and_load(&traced.c, &scratch, &format!("{stem}_{tag}")) {
                    failures.push(format!("{stem} ({tag}) traced: {why}"));
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The table counts of `stats` (a `--table-stats` build of `stem`): the
/// map, a count on each table, and nothing of the trace.
fn check_stats_only(stem: &str, stats: &p4bpf_compiler::Generated) {
    let Some(described) = &stats.pipeline.table_stats else {
        panic!("{stem}: the --table-stats build describes no stats map");
    };
    assert!(
        stats
            .c
            .contains(&format!("}} {} SEC(\".maps\")", described.map)),
        "{stem}: no map {}",
        described.map
    );
    for (i, table) in described.tables.iter().enumerate() {
        assert!(
            stats.c.contains(&format!("p4bpf_table_stat({}", 2 * i)),
            "{stem}: table {table} is not counted"
        );
    }
    assert!(
        stats.pipeline.trace.is_none(),
        "{stem}: a trace description"
    );
    for traced in ["ringbuf", "p4bpf_trace_", "P4BPF_TRACE_"] {
        assert!(!stats.c.contains(traced), "{stem}: `{traced}` in the C");
    }
}

#[test]
fn stats_only_build_counts_tables_and_writes_no_records() {
    let load = can_load();
    if !load {
        eprintln!(
            "not compiling and loading the --table-stats objects: needs root, bpftool and clang"
        );
    }
    let scratch = std::env::temp_dir().join(format!("p4bpf-stats-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&scratch);
    let mut failures = vec![];
    for path in programs() {
        let fe = p4bpf_front::check_file(&path, &Default::default());
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        for (hook, tag) in [(Hook::Xdp, "xdp"), (Hook::Tc, "tc")] {
            let (Ok(default), Ok(stats)) = (
                generate(&fe, &stem, hook, None),
                generate_with(&fe, &stem, hook, None, Instrument::TableStats),
            ) else {
                panic!("{} does not generate", path.display());
            };
            // The default build (the untraced one, whose C the first test
            // compares) has neither the map nor the counts.
            assert!(
                !default.c.contains("p4bpf_table_stat") && default.pipeline.table_stats.is_none(),
                "{stem}: table counts in the default build"
            );
            check_stats_only(&stem, &stats);
            if load {
                if let Err(why) =
                    compile_and_load(&stats.c, &scratch, &format!("{stem}_{tag}_stats"))
                {
                    failures.push(format!("{stem} ({tag}) --table-stats: {why}"));
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn traced_c_matches_its_snapshot() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let path = dir.join("programs/lpm_route.p4");
    let fe = p4bpf_front::check_file(&path, &Default::default());
    let Ok(traced) = generate_with(&fe, "lpm_route", Hook::Xdp, None, Instrument::Trace) else {
        panic!("lpm_route.p4 does not generate");
    };
    let snapshot = dir.join("trace/lpm_route.traced.xdp.c");
    if std::env::var_os("BLESS").is_some() {
        let _ = std::fs::create_dir_all(dir.join("trace"));
        let _ = std::fs::write(&snapshot, &traced.c);
    }
    let expected = std::fs::read_to_string(&snapshot).unwrap_or_default();
    assert!(
        expected == traced.c,
        "{} differs (re-bless with BLESS=1 after review)",
        snapshot.display()
    );
}
