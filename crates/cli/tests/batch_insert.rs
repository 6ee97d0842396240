//! Inserting 100k exact entries through the library (`control::insert_batch`,
//! BPF_MAP_UPDATE_BATCH) takes under a second in a release build; prints
//! the rate beside that of one system call per entry. Skips, saying why,
//! without root/BPF or clang.

#![allow(clippy::panic)] // a failing test should stop loudly

use p4bpf_compiler::{CompileOptions, Hook};
use p4bpf_runtime::control;
use p4bpf_runtime::deploy::{self, LoadOptions, XdpMode};
use p4bpf_runtime::entry::EntrySpec;
use p4bpf_runtime::{names, MapSource};
use std::path::Path;
use std::time::Instant;

const ENTRIES: u32 = 100_000;

/// Unloads the pipeline when the test ends, passed or not.
struct Unload(String);

impl Drop for Unload {
    fn drop(&mut self) {
        let _ = deploy::unload(&self.0);
    }
}

fn spec(n: u32) -> EntrySpec {
    EntrySpec {
        keys: vec![(0, n.to_string())],
        action: 0,
        args: vec![(0, (n % 64).to_string())],
        priority: None,
    }
}

#[test]
fn hundred_thousand_exact_entries_in_under_a_second() {
    if let Err(why) = p4bpf_runtime::check_bpf_available() {
        eprintln!("skipped: {why}");
        return;
    }
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/control/tables.p4");
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("batch_insert");
    let options = CompileOptions {
        front: Default::default(),
        hook: Hook::Xdp,
        out_dir,
        extern_file: None,
        trace: false,
    };
    let compiled = match p4bpf_compiler::compile_file(&program, &options) {
        Ok(compiled) => compiled,
        Err(_) => {
            eprintln!("skipped: the test program does not compile here (is clang installed?)");
            return;
        }
    };
    let image = std::fs::read(&compiled.object).unwrap_or_default();
    let name = format!("batch{}", std::process::id());
    let load = LoadOptions {
        name: name.clone(),
        xdp_mode: XdpMode::Native,
        p4info: None,
    };
    let deployment = deploy::load(image, &load);
    let _unload = Unload(name);
    let deployment = deployment.unwrap_or_else(|e| panic!("load: {e}"));
    let table = names::table(&deployment.description, "by_dst").cloned();
    let table = table.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        table.actions.first().map(|a| a.name.as_str()),
        Some("TestIngress.forward")
    );

    let specs: Vec<EntrySpec> = (0..ENTRIES).map(spec).collect();
    let start = Instant::now();
    let inserted = control::insert_batch(&deployment, &table, &specs);
    let batch = start.elapsed();
    assert_eq!(inserted.map_err(|e| e.to_string()), Ok(ENTRIES as usize));
    assert_eq!(
        control::count_entries(&deployment, &table).ok(),
        Some(ENTRIES as usize)
    );

    // The same work one entry per system call, on a tenth of the entries.
    let cleared = control::clear(&deployment, &table);
    assert_eq!(cleared.ok(), Some(ENTRIES as usize));
    let start = Instant::now();
    for spec in specs.iter().take(ENTRIES as usize / 10) {
        assert!(control::add(&deployment, &table, spec).is_ok());
    }
    let single = start.elapsed() * 10;
    let rate = |d: std::time::Duration| f64::from(ENTRIES) / d.as_secs_f64();
    println!(
        "100k exact entries: batch {:.0} ms ({:.0} entries/s); one by one {:.0} ms ({:.0} entries/s, extrapolated from 10k)",
        batch.as_secs_f64() * 1e3,
        rate(batch),
        single.as_secs_f64() * 1e3,
        rate(single),
    );
    // A key that is already there fails the whole batch before writing.
    let again = control::insert_batch(&deployment, &table, &specs[..1]);
    assert!(again.is_err_and(|e| e.to_string().contains("already has an entry")));
    if !cfg!(debug_assertions) {
        assert!(batch.as_secs_f64() < 1.0, "batch insert took {batch:?}");
    }
    assert!(deployment.map(&table.map).is_ok());
}
