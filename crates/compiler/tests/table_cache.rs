//! Snapshot of the C a `--table-caching` build generates
//! (`table_cache/cached.p4`: a ternary table with a range field, an lpm
//! table with a const default, an action selector table with two
//! selector keys and an empty group action, a ternary table with an
//! action profile, and an exact table, which stays uncached) against `table_cache/cached.{xdp,tc}.c`; `BLESS=1 cargo
//! test` rewrites them. Compiled by clang when it is installed.

#![allow(clippy::panic)] // a failing test should stop loudly

use p4bpf_compiler::{generate_built, BuildOptions, Hook};
use std::path::Path;

fn generate(hook: Hook) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/table_cache/cached.p4");
    let fe = p4bpf_front::check_file(&path, &Default::default());
    assert!(!fe.has_errors(), "{:?}", fe.diagnostics);
    match generate_built(
        &fe,
        "cached",
        hook,
        None,
        BuildOptions {
            table_caching: true,
            ..BuildOptions::default()
        },
    ) {
        Ok(g) => {
            assert!(g.warnings.is_empty(), "{:?}", g.warnings);
            let caches = g.pipeline.table_caches.map(|c| c.caches.len());
            assert_eq!(
                caches,
                Some(4),
                "acl, routes, by_source and profiled are cached"
            );
            g.c
        }
        Err(d) => panic!("{:?}", d.list),
    }
}

#[test]
fn cached_tables_c_matches_its_snapshots_and_compiles() {
    let bless = std::env::var_os("BLESS").is_some();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/table_cache");
    let scratch = std::env::temp_dir().join(format!("p4bpf-table-cache-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&scratch);
    let mut failures = vec![];
    for (hook, tag) in [(Hook::Xdp, "xdp"), (Hook::Tc, "tc")] {
        let c = generate(hook);
        let snapshot = dir.join(format!("cached.{tag}.c"));
        if bless {
            let _ = std::fs::write(&snapshot, &c);
        } else if std::fs::read_to_string(&snapshot).ok().as_deref() != Some(c.as_str()) {
            failures.push(format!(
                "{} differs from the generated C (re-bless with BLESS=1 after review)",
                snapshot.display()
            ));
        }
        let c_file = scratch.join(format!("cached.{tag}.c"));
        let _ = std::fs::write(&c_file, &c);
        match p4bpf_compiler::clang::compile(&c_file, &c_file.with_extension("o")) {
            Err(e) if e.contains("clang is not installed") || e.contains("cannot run clang") => {
                eprintln!("clang not run: {e}")
            }
            Err(e) => failures.push(e),
            Ok(_) => {}
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
