//! Inserting 100k exact entries through the library (`control::insert_batch`,
//! BPF_MAP_UPDATE_BATCH) takes under a second in a release build; prints
//! the rate beside that of one system call per entry. Skips, saying why,
//! without root/BPF or clang.

#![allow(clippy::panic)] // a failing test should stop loudly

use p4bpf_compiler::{CompileOptions, Hook};
use p4bpf_layout::Table;
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

/// The control test program loaded under a name unique to this process
/// and `tag`; `None` (having said why) where BPF or clang is missing.
fn load(tag: &str) -> Option<(deploy::Deployment, Unload)> {
    load_program("tests/control/tables.p4", tag)
}

/// `program` (relative to this crate) loaded as [`load`] does.
fn load_program(program: &str, tag: &str) -> Option<(deploy::Deployment, Unload)> {
    if let Err(why) = p4bpf_runtime::check_bpf_available() {
        eprintln!("skipped: {why}");
        return None;
    }
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join(program);
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("batch_insert_{tag}"));
    let options = CompileOptions {
        front: Default::default(),
        hook: Hook::Xdp,
        out_dir,
        extern_file: None,
        trace: false,
        table_stats: false,
        table_caching: false,
        port_notes: true,
    };
    let compiled = match p4bpf_compiler::compile_file(&program, &options) {
        Ok(compiled) => compiled,
        Err(_) => {
            eprintln!("skipped: the test program does not compile here (is clang installed?)");
            return None;
        }
    };
    let image = std::fs::read(&compiled.object).unwrap_or_default();
    let name = format!("batch{tag}{}", std::process::id());
    let load = LoadOptions {
        name: name.clone(),
        xdp_mode: XdpMode::Native,
        p4info: None,
    };
    let deployment = deploy::load(image, &load);
    let unload = Unload(name);
    Some((deployment.unwrap_or_else(|e| panic!("load: {e}")), unload))
}

#[test]
fn hundred_thousand_exact_entries_in_under_a_second() {
    let Some((deployment, _unload)) = load("rate") else {
        return;
    };
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

fn table(deployment: &deploy::Deployment, name: &str) -> Table {
    let table = names::table(&deployment.description, name).cloned();
    table.unwrap_or_else(|e| panic!("{e}"))
}

/// An lpm entry on the 48-bit source address: `value/prefix`, forward to `port`.
fn prefix(value: u64, prefix: u32, port: u32) -> EntrySpec {
    EntrySpec {
        keys: vec![(0, format!("{value:#014x}/{prefix}"))],
        action: 0,
        args: vec![(0, port.to_string())],
        priority: None,
    }
}

/// Insert `specs` into `table` expecting a refusal of entry `at` that
/// says `why`, and the table as it was.
fn refused(
    deployment: &deploy::Deployment,
    table: &Table,
    specs: &[EntrySpec],
    at: usize,
    why: &str,
) {
    let before = control::dump(deployment, table).map_err(|e| e.to_string());
    let result = control::insert_batches(deployment, &[(table, specs)]);
    let error = result
        .err()
        .unwrap_or_else(|| panic!("{} entries: no refusal", specs.len()));
    assert_eq!(error.at, Some((0, at)), "{}", error.error);
    assert!(error.error.to_string().contains(why), "{}", error.error);
    let after = control::dump(deployment, table).map_err(|e| e.to_string());
    assert_eq!(after, before, "the refused batch changed `{}`", table.name);
}

/// A duplicate anywhere in a large batch refuses all of it and names the
/// entry, whether the table is empty (checked, then one batch update) or
/// already holds more than the batch (one insert-only update each, the
/// written ones deleted again); an lpm entry inside a shorter prefix that
/// is in the table is no duplicate.
#[test]
fn a_duplicate_inside_a_large_batch_writes_nothing_and_names_the_entry() {
    let Some((deployment, _unload)) = load("dup") else {
        return;
    };
    let exact = table(&deployment, "by_dst");
    let specs: Vec<EntrySpec> = (0..5000).map(spec).collect();

    // Into an empty table: a key twice in the batch.
    let mut twice = specs.clone();
    twice[3700] = spec(1234);
    refused(&deployment, &exact, &twice, 3700, "twice in the batch");
    assert_eq!(control::count_entries(&deployment, &exact).ok(), Some(0));

    // Into a table larger than the batch.
    let first = control::insert_batch(&deployment, &exact, &specs);
    assert_eq!(first.map_err(|e| e.to_string()), Ok(5000));
    let mut more: Vec<EntrySpec> = (5000..7000).map(spec).collect();
    more[1500] = EntrySpec {
        args: vec![(0, "63".into())],
        ..spec(42)
    };
    refused(&deployment, &exact, &more, 1500, "already has an entry");
    let mut more: Vec<EntrySpec> = (5000..7000).map(spec).collect();
    more[1999] = spec(5001);
    refused(&deployment, &exact, &more, 1999, "twice in the batch");
    assert_eq!(control::count_entries(&deployment, &exact).ok(), Some(5000));

    // Several tables: the second's refusal takes the first's entries out.
    let lpm = table(&deployment, "by_prefix");
    let good: Vec<EntrySpec> = (7000..7100).map(spec).collect();
    let bad = [
        prefix(0x0a00_0000_0000, 8, 1),
        prefix(0x0a00_0000_0000, 8, 2),
    ];
    let both = control::insert_batches(&deployment, &[(&exact, &good), (&lpm, &bad)]);
    assert_eq!(both.err().and_then(|e| e.at), Some((1, 1)));
    assert_eq!(control::count_entries(&deployment, &exact).ok(), Some(5000));
    assert_eq!(control::count_entries(&deployment, &lpm).ok(), Some(0));

    // Lpm: 30 entries, one of them 0a/8, then 20 longer prefixes under it
    // (a lookup would find 0a/8 for each of them: only the exact prefix is
    // a duplicate).
    let base: Vec<EntrySpec> = (1..=30).map(|n| prefix(n << 40, 8, 1)).collect();
    let taken = control::insert_batch(&deployment, &lpm, &base);
    assert_eq!(taken.map_err(|e| e.to_string()), Ok(base.len()));
    let inside: Vec<EntrySpec> = (0..20)
        .map(|n| prefix(0x0a00_0000_0000 | n << 8, 40, 2))
        .collect();
    let taken = control::insert_batch(&deployment, &lpm, &inside);
    assert_eq!(taken.map_err(|e| e.to_string()), Ok(20));
    let mut again: Vec<EntrySpec> = (20..30)
        .map(|n| prefix(0x0a00_0000_0000 | n << 8, 40, 2))
        .collect();
    again[6] = prefix(0x0a00_0000_0000, 8, 3);
    refused(&deployment, &lpm, &again, 6, "already has an entry");
    assert_eq!(
        control::count_entries(&deployment, &lpm).ok(),
        Some(base.len() + 20)
    );
}

/// Lpm entries in scrambled order (the trie takes them sorted by address):
/// every one lands with its own action data, and a refusal still names the
/// entry by its place in the batch as given, into an empty table (one batch
/// update) and into a larger one (one insert-only update each).
#[test]
fn an_lpm_batch_in_any_order_goes_in_whole_and_refusals_name_the_entry_as_given() {
    let Some((deployment, _unload)) = load("order") else {
        return;
    };
    let lpm = table(&deployment, "by_prefix");
    // 61 is prime: n * 37 % 61 visits 1..=60 out of order. A third of the
    // entries are /40s, the rest /32s.
    let scrambled = |n: u64| {
        let v = n * 37 % 61;
        match n % 3 {
            0 => prefix(v << 16 | 0x100, 40, (n % 64) as u32),
            _ => prefix(v << 16, 32, (n % 64) as u32),
        }
    };
    let specs: Vec<EntrySpec> = (1..=60).map(scrambled).collect();

    let mut twice = specs.clone();
    twice[5] = specs[40].clone();
    refused(&deployment, &lpm, &twice, 40, "twice in the batch");

    let taken = control::insert_batch(&deployment, &lpm, &specs);
    assert_eq!(taken.map_err(|e| e.to_string()), Ok(60));
    for spec in &specs {
        let entry = control::get(&deployment, &lpm, spec).unwrap_or_else(|e| panic!("{e}"));
        let port = entry.params.first().map(|(_, v)| v.clone());
        assert_eq!(
            port.as_deref(),
            Some(spec.args[0].1.as_str()),
            "{:?}",
            spec.keys
        );
    }

    // Descending addresses above all of the table's: sorting reverses them.
    let more: Vec<EntrySpec> = (0..3)
        .map(|n| prefix(1 << 44 | (3 - n) << 8, 40, 9))
        .collect();
    let mut taken_before = more.clone();
    taken_before[1] = specs[17].clone();
    refused(&deployment, &lpm, &taken_before, 1, "already has an entry");
    let mut twice = more.clone();
    twice[2] = more[0].clone();
    refused(&deployment, &lpm, &twice, 2, "twice in the batch");
    assert_eq!(control::count_entries(&deployment, &lpm).ok(), Some(60));
}

/// An entry of the rates bench's `routes` table (lpm on a 32-bit address):
/// `address/prefix`, send to `port`.
fn route(address: u32, prefix: u32, port: u32) -> EntrySpec {
    EntrySpec {
        keys: vec![(0, format!("{}/{prefix}", std::net::Ipv4Addr::from(address)))],
        action: 0,
        args: vec![(0, port.to_string())],
        priority: None,
    }
}

/// Batches long enough to be written from two threads: 20010 lpm entries
/// of three prefix lengths, scrambled, go in whole with their own action
/// data; a key twice (in a scrambled batch and, side by side, in a sorted
/// one) or a key the table holds refuses the batch, naming the entry as
/// given, and writes nothing.
#[test]
fn a_long_lpm_batch_goes_in_from_two_threads_all_or_nothing() {
    let Some((deployment, _unload)) = load_program("../../bench/p4runtime/tables.p4", "long")
    else {
        return;
    };
    let lpm = table(&deployment, "routes");
    // 20011 is prime: n * 7919 % 20011 visits 1..=20010 out of order.
    let scrambled = |n: u32| {
        let v = 0x0a00_0000 | (n * 7919 % 20011) << 8;
        match n % 3 {
            0 => route(v, 24, n % 64),
            1 => route(v | 0x10, 28, n % 64),
            _ => route(v | 0x21, 32, n % 64),
        }
    };
    let specs: Vec<EntrySpec> = (1..=20010).map(scrambled).collect();
    let mut twice = specs.clone();
    twice[15000] = specs[3].clone();
    refused(&deployment, &lpm, &twice, 15000, "twice in the batch");
    let mut sorted: Vec<EntrySpec> = (0..20000)
        .map(|n| route(0x0b00_0000 | n << 8, 24, 1))
        .collect();
    sorted[12345] = sorted[12344].clone();
    refused(&deployment, &lpm, &sorted, 12345, "twice in the batch");
    assert_eq!(control::count_entries(&deployment, &lpm).ok(), Some(0));

    let first = control::insert_batch(&deployment, &lpm, &specs[..100]);
    assert_eq!(first.map_err(|e| e.to_string()), Ok(100));
    let mut rest = specs[100..].to_vec();
    rest[17000] = specs[50].clone();
    refused(&deployment, &lpm, &rest, 17000, "already has an entry");
    let rest = control::insert_batch(&deployment, &lpm, &specs[100..]);
    assert_eq!(rest.map_err(|e| e.to_string()), Ok(specs.len() - 100));
    assert_eq!(
        control::count_entries(&deployment, &lpm).ok(),
        Some(specs.len())
    );
    for spec in specs.iter().step_by(97) {
        let entry = control::get(&deployment, &lpm, spec).unwrap_or_else(|e| panic!("{e}"));
        let port = entry.params.first().map(|(_, v)| v.clone());
        assert_eq!(
            port.as_deref(),
            Some(spec.args[0].1.as_str()),
            "{:?}",
            spec.keys
        );
    }
}
