//! PSA's class of service and clone sessions' traits
//! (`tests/psa_cos/psa_cos.p4`), and v1model's `priority`: egress reads
//! the class of service ingress set, or a clone's from its session
//! member; a clone is cut to its session's length before egress (at XDP
//! too, in the devmap program); at TC the class of service is the
//! packet's `skb->priority` (read back from
//! `BPF_PROG_TEST_RUN`'s context: no packet socket shows it, and the test
//! machine's kernel has no queueing discipline to count by it). Needs
//! root, BPF and clang; skips saying which.

mod common;

use p4bpf_runtime::pipeline::LoadedPipeline;
use p4bpf_runtime::test_run_skb::run_with_priority;
use std::path::{Path, PathBuf};

fn own(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/psa_cos")
        .join(name)
}

/// `p4bpf test PROGRAM SCRIPT ARGS`: whether it passed, and what it said.
fn stf(script: &str, args: &[&str]) -> (bool, String) {
    let (p4, stf) = (own("psa_cos.p4"), own(script));
    let mut all = vec![
        "test",
        p4.to_str().unwrap_or_default(),
        stf.to_str().unwrap_or_default(),
    ];
    all.extend_from_slice(args);
    let out = common::p4bpf(&all);
    (
        out.status.success(),
        common::stdout(&out) + &common::stderr(&out),
    )
}

#[test]
fn egress_sees_the_class_of_service_ingress_set_on_every_target() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED psa_cos: {why}");
        return;
    }
    for target in [
        &["--target", "kernel", "--hook", "xdp", "-D", "NO_E2E"][..],
        &["--target", "kernel", "--hook", "tc"],
        &["--target", "user", "--hook", "tc"],
    ] {
        let (passed, text) = stf("unicast_cos.stf", target);
        assert!(
            passed && text.contains("PASS: 3 packets, 0 failure(s)"),
            "{}:\n{text}",
            target.join(" ")
        );
    }
}

#[test]
fn clones_take_their_session_class_of_service_and_length_on_every_target() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED psa_cos clones: {why}");
        return;
    }
    // At XDP the devmap program gives the copy its member's traits.
    for target in ["kernel", "user"] {
        for hook in ["xdp", "tc"] {
            let args = ["--target", target, "--hook", hook];
            let (passed, text) = stf("clone_traits.stf", &args);
            assert!(
                passed && text.contains("PASS: 8 packets, 0 failure(s)"),
                "{target} {hook}:\n{text}"
            );
        }
    }
    // A copy's egress clones E2E at TC (at XDP it makes no clone).
    for target in ["kernel", "user"] {
        let args = ["--target", target, "--hook", "tc"];
        let (passed, text) = stf("clone_traits_of_clones.stf", &args);
        assert!(
            passed && text.contains("PASS: 1 packets, 0 failure(s)"),
            "{target}:\n{text}"
        );
    }
}

/// A frame for `psa_cos.p4` to port 2 with class of service `cos`, cloned
/// I2E to session `i2e` (0: not cloned).
fn frame(cos: u8, i2e: u8) -> Vec<u8> {
    let mut f = vec![0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0x90, 0x00];
    f.extend([2, cos, i2e, 0, 0, 0, 0]);
    f.extend([0xca, 0xfe]);
    f
}

/// `program` compiled for TC, loaded (unpinned).
fn loaded(program: &Path) -> LoadedPipeline {
    let stem = program.file_stem().unwrap_or_default();
    // One folder per program: tests load theirs at once.
    let dir = common::scratch_dir(&format!("psa_cos_{}", stem.to_string_lossy()));
    let out = common::p4bpf(&[
        "compile",
        &*program.to_string_lossy(),
        "--hook",
        "tc",
        "-o",
        &*dir.to_string_lossy(),
    ]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let image = std::fs::read(dir.join(stem).with_extension("o")).expect("the object");
    LoadedPipeline::from_image(image).expect("loaded")
}

#[test]
fn class_of_service_is_the_skb_priority_at_tc() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED psa_cos priority: {why}");
        return;
    }
    let cos = loaded(&own("psa_cos.p4"));
    let fd = cos.program_fd().expect("program");
    for class in [0u8, 1, 7, 255] {
        let run = run_with_priority(fd, &frame(class, 0), 9).expect("test run");
        assert_eq!(run.priority, u32::from(class), "class of service {class}");
    }
    // A program that never sets a class of service leaves the host's.
    let forward = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/psa/psa_forward.p4");
    let forward = loaded(&forward);
    let fd = forward.program_fd().expect("program");
    let run = run_with_priority(fd, &frame(3, 0), 9).expect("test run");
    assert_eq!(run.priority, 9);
}

/// `psa_cos.p4` with no class of service set: a program that only clones.
const SETS_COS: &str =
    "        ostd.class_of_service = (ClassOfService_t) (ClassOfServiceUint_t) hdr.info.cos;\n";

#[test]
fn a_program_that_only_clones_keeps_the_hosts_priority_at_tc() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED psa_cos clone-only priority: {why}");
        return;
    }
    let source = std::fs::read_to_string(own("psa_cos.p4")).expect("psa_cos.p4");
    assert!(
        source.contains(SETS_COS),
        "psa_cos.p4 no longer sets its class of service so"
    );
    let dir = common::scratch_dir("psa_cos_clone_only_source");
    let program = common::write(&dir, "clone_only.p4", &source.replacen(SETS_COS, "", 1));
    let clone_only = loaded(&program);
    let fd = clone_only.program_fd().expect("program");
    // Not cloned, and cloned to a session nobody made: the host's 9 stays
    // (it was overwritten with the class of service nobody set, 0).
    for (priority, i2e) in [(9, 0), (9, 1), (0, 0), (200, 1)] {
        let run = run_with_priority(fd, &frame(5, i2e), priority).expect("test run");
        assert_eq!(run.priority, priority, "clone session {i2e}");
    }
}

#[test]
fn v1model_priority_is_the_skb_priority_at_tc() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED v1model priority: {why}");
        return;
    }
    let program = loaded(&own("v1model_priority.p4"));
    let fd = program.program_fd().expect("program");
    for ether_type in [0x9000u16, 0x9003, 0x9007] {
        let mut frame = vec![0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1];
        frame.extend(ether_type.to_be_bytes());
        frame.extend([0xca, 0xfe]);
        let run = run_with_priority(fd, &frame, 9).expect("test run");
        assert_eq!(run.priority, u32::from(ether_type & 7), "{ether_type:#x}");
    }
}

/// Unloads the pipeline however the test ends.
struct Loaded(String);

impl Drop for Loaded {
    fn drop(&mut self) {
        let _ = common::p4bpf(&["pipeline", "unload", &self.0]);
    }
}

#[test]
fn clone_set_lists_traits_and_refuses_those_it_cannot_honour() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED psa_cos refusals: {why}");
        return;
    }
    // The same at XDP, where the devmap program applies the traits.
    for hook in ["tc", "xdp"] {
        clone_set_at(hook);
    }
}

/// `p4bpf clone set` and `list` with traits on `psa_cos.p4` loaded at
/// `hook`, and the traits it refuses.
fn clone_set_at(hook: &str) {
    let name = format!("psa_cos_refuse_{hook}_{}", std::process::id());
    let p4 = own("psa_cos.p4");
    let load = [
        "pipeline",
        "load",
        &*p4.to_string_lossy(),
        "--name",
        &name,
        "--hook",
        hook,
    ];
    assert!(
        common::p4bpf(&load).status.success(),
        "pipeline load at {hook}"
    );
    let _loaded = Loaded(name.clone());
    let set = [
        "clone",
        "set",
        &name,
        "8",
        "2:1,cos=2",
        "3:2,cos=1,truncate=20",
        "4",
    ];
    assert!(common::p4bpf(&set).status.success(), "clone set at {hook}");
    let listed = common::stdout(&common::p4bpf(&["clone", "list", &name]));
    assert_eq!(listed, "8\t2:1,cos=2 3:2,cos=1,truncate=20 4:0\n");
    let json = common::stdout(&common::p4bpf(&["clone", "list", &name, "--json"]));
    assert!(
        json.contains("{\"port\": 3, \"rid\": 2, \"cos\": 1, \"truncate\": 20}"),
        "{json}"
    );
    for (member, says) in [
        ("2,truncate=13", "shorter than the Ethernet header"),
        ("2,cos=256", "does not fit ClassOfService_t"),
        ("2,colour=1", "`colour=1` is not one of"),
        ("2,cos=x", "`cos` takes a number"),
    ] {
        let out = common::p4bpf(&["clone", "set", &name, "3", member]);
        let text = common::stderr(&out);
        assert!(
            !out.status.success() && text.contains(says),
            "{member}: {text}"
        );
    }
    let out = common::p4bpf(&["mcast", "set", &name, "1", "2,cos=1"]);
    assert!(!out.status.success() && common::stderr(&out).contains("PORT or PORT:RID only"));
}
