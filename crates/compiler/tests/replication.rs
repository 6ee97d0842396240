//! The C of v1model multicast at TC and XDP (`replication/NAME.p4`
//! against `replication/NAME.tc.c` and `NAME.xdp.c`; `BLESS=1` rewrites
//! them after review): the groups map, the mailbox (TC) or the ring of
//! copy plans and the devmaps (XDP), the copies at the checkpoint and the
//! egress program. The objects are loaded (verifier check) by the CLI's live
//! tests; here clang builds them when it is installed.

#![allow(clippy::panic)] // a failing test should stop loudly

use p4bpf_compiler::{generate, Generated, Hook};
use p4bpf_front::diag::Diagnostics;
use std::path::{Path, PathBuf};

fn programs() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/replication");
    let mut list: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    list.retain(|p| p.extension().is_some_and(|e| e == "p4"));
    list.sort();
    list
}

fn compile(
    path: &Path,
    hook: Hook,
) -> Result<Generated, (Diagnostics, p4bpf_front::source::SourceMap)> {
    let fe = p4bpf_front::check_file(path, &Default::default());
    assert!(!fe.has_errors(), "{}", path.display());
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    generate(&fe, &stem, hook, None).map_err(|d| (d, fe.sources))
}

/// Compares `c` with the snapshot at `snapshot` (or rewrites it).
fn check_snapshot(snapshot: &Path, c: &str, failures: &mut Vec<String>) {
    if std::env::var_os("BLESS").is_some() {
        let _ = std::fs::write(snapshot, c);
    } else if std::fs::read_to_string(snapshot).ok().as_deref() != Some(c) {
        failures.push(format!(
            "{} differs (re-bless with BLESS=1 after review)",
            snapshot.display()
        ));
    }
}

#[test]
fn multicast_c_matches_its_snapshots_at_tc_and_xdp() {
    let list = programs();
    assert!(!list.is_empty(), "no programs in tests/replication");
    let mut failures = vec![];
    for path in list {
        let generated = match compile(&path, Hook::Tc) {
            Ok(g) => g,
            Err((d, sources)) => panic!(
                "{}: {}",
                path.display(),
                d.list
                    .iter()
                    .map(|d| d.render(&sources))
                    .collect::<String>()
            ),
        };
        let replication = generated.pipeline.replication.clone();
        let replication =
            replication.unwrap_or_else(|| panic!("{}: no replication", path.display()));
        assert!(generated.c.contains(&format!(
            "int {}(struct __sk_buff *skb)",
            replication.egress_entry
        )));
        assert!(generated
            .c
            .contains(&format!("}} {} SEC(\".maps\")", replication.groups_map)));
        check_snapshot(&path.with_extension("tc.c"), &generated.c, &mut failures);
        match compile(&path, Hook::Xdp) {
            Err(_) => failures.push(format!("{}: refused at XDP", path.display())),
            Ok(xdp) => {
                let r = xdp.pipeline.replication.clone();
                let r = r.unwrap_or_else(|| panic!("{}: no replication at XDP", path.display()));
                let devmaps = r.copy_ports_map.unwrap_or_default();
                assert!(xdp.c.contains(&format!(
                    "SEC(\"xdp/devmap\")\nint {}(struct xdp_md *ctx)",
                    r.egress_entry
                )));
                assert!(xdp.c.contains(&format!("}} {devmaps} SEC(\".maps\")")));
                assert!(xdp
                    .c
                    .contains("bpf_redirect_map(ports, 0, BPF_F_BROADCAST)"));
                check_snapshot(&path.with_extension("xdp.c"), &xdp.c, &mut failures);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
