//! A pipeline loaded by a p4bpf from before port slots has no slot arrays
//! (`<map>_slots`): `p4bpf port add` from this binary refuses it, saying
//! to reload it, before attaching anything. The older pipeline is made
//! here by unpinning the slot arrays of a fresh one. Needs root, BPF and
//! `ip`; skips saying which is missing.

#![allow(clippy::panic)] // a failing test should stop loudly

mod common;

use std::path::Path;
use std::process::Command;

/// Removes the veth pair and the pipeline, however the test ends.
struct Cleanup {
    link: String,
    pipeline: String,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        let _ = common::p4bpf(&["pipeline", "unload", &self.pipeline]);
        let _ = Command::new("ip")
            .args(["link", "del", &self.link])
            .output();
    }
}

fn missing() -> Option<String> {
    if let Err(why) = p4bpf_runtime::check_bpf_available() {
        return Some(why.to_string());
    }
    match Command::new("ip").arg("-V").output() {
        Ok(o) if o.status.success() => None,
        _ => Some("`ip` is not installed".into()),
    }
}

/// The pinned slot arrays of `pipeline`.
fn slot_pins(pipeline: &str) -> Vec<std::path::PathBuf> {
    let maps = format!("/sys/fs/bpf/p4bpf/{pipeline}/maps");
    common::files_where(Path::new(&maps), |name| name.ends_with("_slots"))
}

#[test]
fn port_add_on_a_pipeline_without_port_slots_asks_for_a_reload() {
    if let Some(why) = missing() {
        eprintln!("SKIPPED port_add_on_a_pipeline_without_port_slots_asks_for_a_reload: {why}");
        return;
    }
    let id = std::process::id();
    let cleanup = Cleanup {
        link: format!("idle{id}a"),
        pipeline: format!("idle_slots{id}"),
    };
    let made = Command::new("ip")
        .args(["link", "add", &cleanup.link, "type", "veth", "peer", "name"])
        .arg(format!("idle{id}b"))
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(made, "cannot create veth pair {}", cleanup.link);
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/port_slots/redirect.p4");
    let loaded = common::p4bpf(&[
        "pipeline",
        "load",
        &program.to_string_lossy(),
        "--name",
        &cleanup.pipeline,
        "--hook",
        "tc",
    ]);
    assert!(loaded.status.success(), "{}", common::stderr(&loaded));
    let pins = slot_pins(&cleanup.pipeline);
    assert!(
        !pins.is_empty(),
        "a TC pipeline that redirects has port slots"
    );
    for pin in &pins {
        std::fs::remove_file(pin).unwrap_or_else(|e| panic!("unpin {}: {e}", pin.display()));
    }

    let added = common::p4bpf(&["port", "add", &cleanup.pipeline, &cleanup.link]);
    assert!(!added.status.success(), "port add succeeded without slots");
    let wanted = format!(
        "pipeline {} was loaded by an older p4bpf without port slots: reload it",
        cleanup.pipeline
    );
    assert!(
        common::stderr(&added).contains(&wanted),
        "{}",
        common::stderr(&added)
    );
    let listed = common::p4bpf(&["port", "list", &cleanup.pipeline]);
    assert!(listed.status.success(), "{}", common::stderr(&listed));
    assert!(
        !common::stdout(&listed).contains(&cleanup.link),
        "nothing was attached: {}",
        common::stdout(&listed)
    );
}
