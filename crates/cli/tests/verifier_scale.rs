//! Programs of the shapes that were too big for clang or the verifier
//! (`tests/verifier_scale`): controls nested three deep passing `hdr` and
//! `meta` down with a state over 1 KiB and a clone, and an I2E clone
//! before eight optional emits. Each must compile to C of one state copy
//! and load at TC.

mod common;

use std::path::{Path, PathBuf};

fn program(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/verifier_scale/{name}.p4"))
}

/// Loads `name` at TC under a name of this process's own; the error if
/// it does not load.
fn loads_at_tc(name: &str) -> Result<(), String> {
    let pipeline = format!("vscale{}_{name}", std::process::id());
    let path = program(name);
    let out = common::p4bpf(&[
        "pipeline",
        "load",
        &path.to_string_lossy(),
        "--name",
        &pipeline,
        "--hook",
        "tc",
    ]);
    let _ = common::p4bpf(&["pipeline", "unload", &pipeline]);
    if out.status.success() {
        Ok(())
    } else {
        Err(common::stderr(&out))
    }
}

#[test]
fn nested_controls_keep_one_copy_of_headers_and_meta() {
    let dir = common::scratch_dir("nested_controls_c");
    let path = program("nested_controls");
    let out = common::p4bpf(&[
        "compile",
        &path.to_string_lossy(),
        "--hook",
        "tc",
        "-o",
        &dir.to_string_lossy(),
    ]);
    if !out.status.success() && common::kernel_unavailable().is_some() {
        eprintln!("SKIPPED nested_controls_keep_one_copy_of_headers_and_meta: no clang");
        return;
    }
    assert!(out.status.success(), "{}", common::stderr(&out));
    let c = std::fs::read_to_string(dir.join("nested_controls.c")).unwrap_or_default();
    let state = c
        .split("struct nested_controls_state {")
        .nth(1)
        .and_then(|rest| rest.split("};").next())
        .unwrap_or_default();
    assert_eq!(state.matches("struct headers_t ").count(), 1, "{state}");
    assert_eq!(state.matches("struct meta_t ").count(), 1, "{state}");
    // Over 1 KiB, a clone copies the state word by word.
    assert!(c.contains("p4bpf_copy_state(copy, st)"));
}

#[test]
fn big_shapes_load_at_tc() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED big_shapes_load_at_tc: {why}");
        return;
    }
    let failures: Vec<String> = ["nested_controls", "clone_many_emits"]
        .iter()
        .filter_map(|name| loads_at_tc(name).err().map(|e| format!("{name}: {e}")))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
