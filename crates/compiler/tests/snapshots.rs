//! Snapshot tests of the generated C: each `programs/NAME.p4` (except the
//! shared `headers.p4`) is compiled for XDP and TC and compared with
//! `programs/NAME.xdp.c` / `NAME.tc.c`; `BLESS=1 cargo test` rewrites them.
//! The generated C is also compiled by clang when clang is installed, and
//! the object loaded into the kernel (verifier check) when bpftool and root
//! are there; the test says which steps it skips and why.

#![allow(clippy::panic)] // a failing test should stop loudly

use p4bpf_compiler::{generate, Hook};
use std::path::{Path, PathBuf};

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

fn clang_available() -> bool {
    std::process::Command::new("clang")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Why objects cannot be loaded here, or `None` when they can.
fn cannot_load() -> Option<&'static str> {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let root = status
        .lines()
        .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"));
    if !root {
        return Some("not root");
    }
    if !std::process::Command::new("bpftool")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return Some("bpftool not installed");
    }
    if !Path::new("/sys/fs/bpf").is_dir() {
        return Some("no bpffs at /sys/fs/bpf");
    }
    None
}

/// Loads `object` with bpftool under a unique pin, then unpins it.
fn load(object: &Path, pin_name: &str) -> Result<(), String> {
    let pin = Path::new("/sys/fs/bpf").join(pin_name);
    let out = std::process::Command::new("bpftool")
        .arg("prog")
        .arg("load")
        .arg(object)
        .arg(&pin)
        .output()
        .map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&pin);
    if out.status.success() {
        Ok(())
    } else {
        let log = String::from_utf8_lossy(&out.stderr);
        Err(format!(
            "{} does not load: {}",
            object.display(),
            log.lines().rev().take(5).collect::<Vec<_>>().join(" | ")
        ))
    }
}

fn generate_c(path: &Path, hook: Hook) -> String {
    let fe = p4bpf_front::check_file(path, &Default::default());
    let rendered: Vec<String> = fe
        .diagnostics
        .list
        .iter()
        .map(|d| d.render(&fe.sources))
        .collect();
    assert!(
        !fe.has_errors(),
        "{}: {}",
        path.display(),
        rendered.join("\n")
    );
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    match generate(&fe, &stem, hook, None) {
        Ok(g) => g.c,
        Err(d) => panic!(
            "{}: {}",
            path.display(),
            d.list
                .iter()
                .map(|d| d.render(&fe.sources))
                .collect::<Vec<_>>()
                .join("\n")
        ),
    }
}

#[test]
fn generated_c_matches_snapshots_and_compiles() {
    let bless = std::env::var_os("BLESS").is_some();
    let clang = clang_available();
    if !clang {
        eprintln!("clang not installed: checking the C text only, not compiling it");
    }
    let no_load = cannot_load();
    if let Some(why) = no_load {
        eprintln!("not loading the objects into the kernel: {why}");
    }
    let scratch = std::env::temp_dir().join(format!("p4bpf-snapshots-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&scratch);
    let mut failures = vec![];
    let list = programs();
    assert!(list.len() >= 5, "snapshot programs missing");
    for path in list {
        for (hook, tag) in [(Hook::Xdp, "xdp"), (Hook::Tc, "tc")] {
            let c = generate_c(&path, hook);
            let expected_path = path.with_extension(format!("{tag}.c"));
            if bless {
                let _ = std::fs::write(&expected_path, &c);
            } else if std::fs::read_to_string(&expected_path).ok().as_deref() != Some(c.as_str()) {
                failures.push(format!(
                    "{} differs from the generated C (re-bless with BLESS=1 after review)",
                    expected_path.display()
                ));
            }
            if clang {
                let stem = path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let c_file = scratch.join(format!("{stem}.{tag}.c"));
                let _ = std::fs::write(&c_file, &c);
                let object = c_file.with_extension("o");
                if let Err(e) = p4bpf_compiler::clang::compile(&c_file, &object) {
                    failures.push(e);
                } else if no_load.is_none() {
                    // bpffs rejects `.` in pin names.
                    if let Err(e) = load(
                        &object,
                        &format!("p4bpf_snapshot_{}_{stem}_{tag}", std::process::id())
                            .replace(['.', '-'], "_"),
                    ) {
                        failures.push(e);
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
